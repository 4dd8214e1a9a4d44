"""The benchmark scripts' own logic (their timings live in docs/performance.md)."""
import importlib.util
import os

import numpy as np
import pytest
import scipy.sparse as sp

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "benchmarks",
                                                                     name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_kernel_ab_renumbers_columns_by_document_frequency():
    ab = _load("bench_kernel_ab")
    rng = np.random.default_rng(0)
    X = sp.random(40, 15, density=0.3, format="csr", random_state=rng)
    X0 = X.copy()
    Xp = ab.by_frequency(X)
    assert (X != X0).nnz == 0                          # X itself untouched
    df = np.diff(Xp.tocsc().indptr)
    assert np.all(np.diff(df) <= 0)                    # most frequent column first
    assert Xp.has_sorted_indices
    # the same matrix, columns permuted: every row keeps its values
    order = np.argsort(-np.diff(X.tocsc().indptr), kind="stable")
    assert (abs(X[:, order] - Xp)).max() == 0


def test_kernel_ab_rejects_an_unknown_regularizer(capsys):
    ab = _load("bench_kernel_ab")
    with pytest.raises(SystemExit):
        ab.main(["--regularizers", "square,entropie"])
    assert "unknown regularizer(s) entropie" in capsys.readouterr().err


def test_parallel_quartiles_and_greedy_makespan():
    par = _load("bench_parallel")
    assert par.quartiles([5.0, 1.0, 4.0, 2.0, 3.0]) == (2.0, 3.0, 4.0)
    assert par.quartiles([1.7]) == (1.7, 1.7, 1.7)
    # the pool hands problems out in order: 3 | 3, then 2 to each, the last 2 to the first
    assert par.greedy_makespan([3.0, 3.0, 2.0, 2.0, 2.0], 2) == 7.0
    assert par.greedy_makespan([1.0] * 4, 1) == 4.0


def test_json_to_stdout_is_the_document_alone(capsys):
    # `--json -` printed the JSON after the tables: not a JSON stream
    import argparse
    import json
    import sys

    common = _load("_common")
    ap = common.add_common_args(argparse.ArgumentParser())
    real = sys.stdout
    try:
        args = ap.parse_args(["--json", "-"])
        print("a table line")
        common.emit_json(args.json, {"ratio": 0.5})
    finally:
        sys.stdout = real
        common._JSON_STDOUT.clear()
    out, err = capsys.readouterr()
    assert json.loads(out) == {"ratio": 0.5} and "a table line" in err


def test_a_missing_corpus_is_one_line():
    common = _load("_common")

    def load():
        raise OSError("Reuters-21578 was not found in /nowhere\nand more lines")

    with pytest.raises(SystemExit, match="Reuters-21578 is needed: .*/nowhere .*TEXTWIN_DATA_HOME"):
        common.corpus_or_exit(load)


# ---------------------------------------------------------------------------
# bench_corpora: textwin and its peers on real corpora
# ---------------------------------------------------------------------------

def _write_jsonl(path, rows):
    import json

    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row) + "\n")
    return str(path)


def _noisy_texts(n, seed, multilabel=False):
    """Texts of three topics, each with words of its own and of another topic, and
    one label in eight wrong (single-label): learnable, not separable."""
    import random

    rng = random.Random(seed)
    own = {c: [f"{c}{i}" for i in range(8)] for c in "abc"}
    rows = []
    for i in range(n):
        c = "abc"[i % 3]
        words = rng.sample(own[c], 2) + rng.sample(own["abc"[(i + 1) % 3]], 1)
        words += [f"w{rng.randrange(30)}" for _ in range(6)]
        labels = [c]
        if multilabel and i % 4 == 0:
            labels.append("abc"[(i + 2) % 3])
            words += rng.sample(own[labels[-1]], 2)
        elif not multilabel and rng.random() < 0.125:
            labels = [rng.choice("abc")]
        rows.append({"text": " ".join(rng.sample(words, len(words))), "labels": labels})
    return rows


def test_corpora_scores_single_and_multi_label():
    bench = _load("bench_corpora")
    Y_true = np.array([[1, 0, 0], [1, 0, 0], [1, 1, 0], [0, 0, 0]])
    Y_pred = np.array([[1, 0, 0], [1, 0, 0], [1, 0, 0], [0, 1, 0]])
    # category 0: F1 1; category 1: no true positive, F1 0; category 2 is in neither
    # the test set nor the predictions: left out of the macro average (50, not 33.3)
    assert bench.scores_of("multilabel", Y_true, Y_pred) == pytest.approx(
        {"micro_f1": 75.0, "macro_f1": 50.0})
    truth, guess = bench.one_hot([0, 0, 1, 2], 3), bench.one_hot([0, 1, 1, 1], 3)
    # accuracy 2/4; F1 per class: 2/3, 1/2 (precision 1/3, recall 1), 0
    assert bench.scores_of("multiclass", truth, guess) == pytest.approx(
        {"accuracy": 50.0, "macro_f1": 100 * 7 / 18})


def test_corpora_textwin_row_is_what_train_corpus_gives(tmp_path, capsys):
    import json

    from textwin.cli import main as textwin_main
    from textwin.persistence import load_model

    bench = _load("bench_corpora")
    train, test = _noisy_texts(150, 0), _noisy_texts(60, 1)
    joined = _write_jsonl(tmp_path / "c.jsonl", [dict(r, split="train") for r in train]
                          + [dict(r, split="test") for r in test])
    model = tmp_path / "m.npz"
    assert textwin_main(["train", "--corpus", joined, "--output", str(model), "--json",
                         "-q"]) in (0, None)
    cli = json.loads(capsys.readouterr().out)
    data = bench.Data(_write_jsonl(tmp_path / "tr.jsonl", train),
                      _write_jsonl(tmp_path / "te.jsonl", test))
    assert data.task == "multiclass"
    # the same model (vectorizer, lam, order), not only the same accuracy
    np.testing.assert_allclose(bench.textwin_scores(data),
                               load_model(model).decision_function(data.test), atol=1e-9)
    ours = bench.scores_of(data.task, data.Y_test, bench.run_textwin(data))
    # the command rounds its percentages to four decimals
    assert ours == pytest.approx({"accuracy": cli["accuracy"], "macro_f1": cli["macro_f1"]},
                                 abs=1e-4)


def _available(bench, method, data):
    try:
        return bench.RUNNERS[method](data)
    except bench.NotAvailable:
        return None


@pytest.mark.parametrize("multilabel", [False, True])
def test_corpora_every_method_maps_its_labels_back(tmp_path, multilabel):
    # each peer numbers the classes its own way (fastText's __label__j, Vowpal
    # Wabbit's --oaa from 1 and --multilabel_oaa from 0): a shifted mapping scores
    # near 0, the right one well above chance on these learnable texts
    bench = _load("bench_corpora")
    data = bench.Data(_write_jsonl(tmp_path / "tr.jsonl", _noisy_texts(300, 0, multilabel)),
                      _write_jsonl(tmp_path / "te.jsonl", _noisy_texts(90, 1, multilabel)))
    assert data.task == ("multilabel" if multilabel else "multiclass")
    ran = []
    for method in bench.METHODS:
        if method == "fasttext":  # its defaults (5 epochs, lr 0.1) need more texts
            continue
        Y = _available(bench, method, data)
        if Y is None:
            continue
        figures = bench.scores_of(data.task, data.Y_test, np.asarray(Y))
        assert figures["macro_f1"] > 60, (method, figures)
        if multilabel:  # several labels per text are given back, not only the best one
            assert (np.asarray(Y).sum(axis=1) > 1).any(), method
        ran.append(method)
    assert {"textwin", "textwin-auto", "linearsvc", "sgd"} <= set(ran)


def test_corpora_children_report_figures_and_peak_memory(tmp_path, capsys):
    import json

    bench = _load("bench_corpora")
    folder = tmp_path / "germeval2018"
    folder.mkdir()
    two = [dict(r, labels=["x" if r["labels"] == ["a"] else "y"])
           for r in _noisy_texts(120, 0)]
    _write_jsonl(folder / "train.jsonl", two[:90])
    _write_jsonl(folder / "test.jsonl", two[90:])
    out = tmp_path / "r.json"
    bench.main(["--corpora", "germeval2018", "--corpora-dir", str(tmp_path),
                "--methods", "textwin,complementnb", "--json", str(out)])
    table = capsys.readouterr().out
    rows = json.loads(out.read_text())["results"]["germeval2018"]
    assert rows["textwin"]["task"] == "binary" and rows["textwin"]["n_train"] == 90
    for method in ("textwin", "complementnb"):
        r = rows[method]
        # a child's own peak: at least what it held before fitting, and an interpreter's worth
        assert r["peak_rss_mib"] >= r["rss_before_mib"] > 10 and r["seconds"] > 0
        assert f"{r['accuracy']:8.2f}" in table


def test_corpora_unknown_names_are_one_line(capsys):
    bench = _load("bench_corpora")
    with pytest.raises(SystemExit, match="unknown method fasttxt; choose from textwin,"):
        bench.parse_args(["--methods", "textwin,fasttxt"])


def _two_topics(folder, n_train, noise):
    """train.jsonl and test.jsonl (20 texts) of two topics in ``folder``: three words of
    each text's topic, of the other topic with probability ``noise``, and two common."""
    import json

    rng = np.random.default_rng(0)
    topics = {"a": "wheat corn grain harvest crop", "b": "bank rate loan dollar money"}
    folder.mkdir()
    for split, n in (("train", n_train), ("test", 20)):
        with open(folder / f"{split}.jsonl", "w") as fh:
            for i in range(n):
                label = "ab"[i % 2]
                words = [rng.choice(topics["ab"[(label == "a") == (rng.random() < noise)]]
                                    .split()) for _ in range(3)] + ["the", "news"]
                fh.write(json.dumps({"text": " ".join(words), "labels": [label]}) + "\n")


def test_auto_searches_run_on_the_same_folds_and_grid(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(os.path.join(ROOT, "benchmarks"))  # its _common
    bench = _load("bench_auto")
    _two_topics(tmp_path / "agnews-small", 60, noise=0.0)
    monkeypatch.setattr(bench, "CORPORA", str(tmp_path))
    result = bench.run_corpus("agnews", 1)
    rows = result["rows"]
    assert set(rows) == {"sklearn GridSearchCV", "TextClassifierCV, same grid",
                         "TextClassifierCV (--auto)", "TextClassifier (defaults)"}
    assert result["time_ratio_same_grid"] == pytest.approx(
        rows["TextClassifierCV, same grid"]["seconds"] / rows["sklearn GridSearchCV"]["seconds"])
    assert result["time_ratio_auto"] == pytest.approx(
        rows["TextClassifierCV (--auto)"]["seconds"] / rows["sklearn GridSearchCV"]["seconds"])
    assert rows["TextClassifierCV, same grid"]["chosen"]["stem"] is False
    assert all(r["test"]["accuracy"] > 0.9 for r in rows.values())


def test_early_stop_bench_compares_the_two_searches_on_one_corpus(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(os.path.join(ROOT, "benchmarks"))  # its _common
    bench = _load("bench_early_stop")
    _two_topics(tmp_path / "agnews-small", 90, noise=0.5)  # the small lams overfit it
    r = bench.run_corpus("agnews-small", str(tmp_path), str(tmp_path))
    stop, whole = r["early_stopping"], r["whole_grid"]
    # settings (4 of words alone: stem x nb_scaling; then bigrams and character n-grams
    # beside the best) x rules x lams
    assert whole["points_scored"] == whole["points"] == (4 + 1 + 1) * 2 * 7
    assert stop["points"] == whole["points"] and stop["points_scored"] <= whole["points"]
    assert r["same_choice"] == (stop["chosen"] == whole["chosen"])
    assert r["time_ratio"] == pytest.approx(stop["seconds"] / whole["seconds"])


def test_train_memory_measures_both_sides_and_every_step(tmp_path, monkeypatch):
    import json

    monkeypatch.syspath_prepend(os.path.join(ROOT, "benchmarks"))  # its _common
    bench = _load("bench_train_memory")
    rows = _noisy_texts(120, 0)
    _write_jsonl(tmp_path / "train.jsonl", rows[:90])
    _write_jsonl(tmp_path / "test.jsonl", rows[90:])
    out = tmp_path / "m.json"
    assert bench.main(["--corpus", str(tmp_path), "--repeats", "1", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    for side in ("textwin", "sklearn"):
        (peak,) = result["peak_rss_mib"][side]
        assert peak > 10  # an interpreter's worth, the child's own
        peaks = [s["peak_mib"] for s in result["steps"][side]]
        assert peaks == sorted(peaks) and peaks[0] > 10  # a peak so far never falls
    # every call the textwin child wraps is still the command's: each step was reached
    assert [s["step"] for s in result["steps"]["textwin"]] == [
        "imports", "texts read", "fit_transform (train)", "fit", "transform (test)",
        "model written"]
    assert result["ratio"] == pytest.approx(
        result["median_peak_rss_mib"]["textwin"] / result["median_peak_rss_mib"]["sklearn"])


def test_every_script_has_a_smoke_mode_that_ci_runs():
    # .ci/run runs each script with --smoke; a script that takes the flag (add_common_args
    # adds it) but ignores it would run its full sizes there
    scripts = sorted(f for f in os.listdir(os.path.join(ROOT, "benchmarks"))
                     if f.endswith(".py") and not f.startswith("_"))
    assert len(scripts) >= 20
    ignored = [f for f in scripts
               if "args.smoke" not in open(os.path.join(ROOT, "benchmarks", f)).read()]
    assert not ignored, f"scripts without a --smoke mode: {ignored}"
    with open(os.path.join(ROOT, ".ci", "run")) as fh:
        ci = fh.read()
    assert "printf '%s\\n' benchmarks/bench_*.py benchmarks/profile_epoch.py |" in ci
    assert 'python "$script" --smoke' in ci
    assert set(scripts) <= {f for f in scripts if f.startswith("bench_")} | {"profile_epoch.py"}


def test_bench_cv_compares_accuracy_per_category_on_both_sides(monkeypatch):
    # its squared-hinge row compared textwin's exact-match accuracy over the ten
    # categories at once (0.8774) with liblinear's mean per-category accuracy (0.9879)
    import sys
    import types

    monkeypatch.syspath_prepend(os.path.join(ROOT, "benchmarks"))  # its `from _common`
    cv = _load("bench_cv")
    rng = np.random.default_rng(0)
    X = sp.random(120, 30, density=0.2, format="csr", random_state=rng)
    Y = (rng.random((120, 3)) < 0.3).astype(int)
    fake = types.ModuleType("liblinear.liblinearutil")
    fake.train = lambda y, X, opts: (1.0, 0.0, 0.5) if "-C" in opts else None
    monkeypatch.setitem(sys.modules, "liblinear", types.ModuleType("liblinear"))
    monkeypatch.setitem(sys.modules, "liblinear.liblinearutil", fake)
    row = cv.compare_with_liblinear(X, Y, 3, 1)
    from textwin import DualGaussSeidelClassifierCV

    per_category = [DualGaussSeidelClassifierCV(loss="squared_hinge", lams=3, cv=5,
                                                scoring="accuracy", random_state=0)
                    .fit(X, Y[:, k]).best_score_ for k in range(3)]
    assert row["textwin_cv_accuracy"] == pytest.approx(np.mean(per_category))
    assert len(row["textwin_lams"]) == 3 and row["liblinear_cv_accuracy"] == 0.5


def test_proba_reliability_bins_every_class_probability():
    bench = _load("bench_proba")
    P = np.array([[0.95, 0.05], [0.85, 0.15], [0.35, 0.65], [0.05, 0.95]])
    y = np.array(["a", "b", "b", "b"])
    curve = bench.reliability(P, y, ["a", "b"])
    # bin 0: 0.05 (b of "a", a of "b": both false); 1: 0.15 (true); 9: 0.95 twice (true)
    assert curve["count"] == [2, 1, 0, 1, 0, 0, 1, 0, 1, 2]
    assert curve["fraction_true"][0] == 0.0 and curve["fraction_true"][1] == 1.0
    gaps = [2 * 0.05, 1 - 0.15, 0.35, 1 - 0.65, 0.85, 2 * (1 - 0.95)]
    assert curve["ece"] == pytest.approx(sum(gaps) / 8)
    figures = bench.figures(P, y, np.array(["a", "b"]), 1.0)
    assert figures["accuracy"] == 0.75
    assert figures["log_loss"] == pytest.approx(-np.mean(np.log([0.95, 0.15, 0.65, 0.95])))
