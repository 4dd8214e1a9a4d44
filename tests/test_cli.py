"""The ``textwin`` command, end to end: printed numbers are checked against the library."""
import io
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from textwin import __version__
from textwin.cli import EXIT_BAD_MODEL, EXIT_NO_DATA, EXIT_USAGE, build_parser, main
from textwin.metrics import breakeven_points, micro_breakeven_point, precision_recall_f1
from textwin.persistence import load_model

REPO = Path(__file__).resolve().parents[1]

TOPICS = {
    "grain": "wheat corn grain harvest tonnes barley",
    "crude": "oil crude barrel opec refinery petroleum",
    "acq": "shares merger acquire stake takeover bid",
}
FILLER = "the a said company market year week would official report new".split()


def _docs(n, seed):
    """Documents mixing topic words and filler; labels = topics whose words occur."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        topics = [t for t in TOPICS if rng.random() < 0.35]
        words = list(rng.choice(FILLER, size=6))
        for t in topics:
            words += list(rng.choice(TOPICS[t].split(), size=2))
        # noise: a topic word without the label, so the task is not trivial
        if rng.random() < 0.15:
            words.append(rng.choice(" ".join(TOPICS.values()).split()))
        rng.shuffle(words)
        out.append((" ".join(words), sorted(topics)))
    return out


@pytest.fixture
def jsonl_corpus(tmp_path):
    path = tmp_path / "corpus.jsonl"
    with open(path, "w", encoding="utf-8") as fh:
        for split, n, seed in (("train", 300, 0), ("test", 150, 1)):
            for text, labels in _docs(n, seed):
                fh.write(json.dumps({"text": text, "labels": labels, "split": split}) + "\n")
    return path


def run(capsys, *argv, stdin=None, monkeypatch=None):
    """Run main(argv); return (exit code, stdout, stderr)."""
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(err, *fragments):
    lines = [ln for ln in err.splitlines() if ln.startswith("textwin: error:")]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for f in fragments:
        assert f in lines[0], lines[0]


# -- basics ------------------------------------------------------------------------

def test_version_and_help(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"textwin {__version__}"
    for cmd in ([], ["train"], ["eval"], ["predict"], ["inspect"], ["data"]):
        with pytest.raises(SystemExit) as exc:
            main([*cmd, "--help"])
        assert exc.value.code == 0
        assert "examples:" in capsys.readouterr().out


_HELP_ONLY = """\
import sys
from textwin.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("loaded:", sorted({m.split(".")[0] for m in sys.modules} & {"sklearn", "scipy"}))
"""


@pytest.mark.parametrize("cmd", [[], ["train"], ["eval"], ["predict"], ["inspect"], ["data"],
                                 ["reproduce"]])
def test_help_imports_neither_scikit_learn_nor_scipy(cmd):
    # a fresh process, so that what `textwin CMD --help` loads is all that is loaded
    proc = subprocess.run([sys.executable, "-c", _HELP_ONLY, *cmd, "--help"], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "usage: textwin" in proc.stdout, proc.stderr
    assert proc.stdout.rstrip().splitlines()[-1] == "loaded: []"


_TRAIN_IMPORTS = """\
import sys
from textwin.cli import main
main(sys.argv[1:])
print("loaded:", sorted({"sklearn.feature_selection", "sklearn.model_selection"}
                        & set(sys.modules)))
"""


def test_train_without_selection_or_search_leaves_their_modules_unloaded(tmp_path):
    # scikit-learn's feature selection (through InformationGain) and model selection
    # (through a warning's class) took 10 and 5 MB of every train's peak memory
    for split, n in (("train", 40), ("test", 10)):
        with open(tmp_path / f"{split}.jsonl", "w") as fh:
            for i in range(n):
                label = "ab"[i % 2]
                words = "wheat corn grain" if label == "a" else "bank rate loan"
                fh.write(json.dumps({"text": f"{words} {i}", "labels": [label]}) + "\n")
    argv = ["train", "--corpus", tmp_path / "train.jsonl", "--test-corpus",
            tmp_path / "test.jsonl", "--ngrams", "2", "-o", tmp_path / "m.npz", "-q"]
    # this checkout's textwin when it is built in place, else the installed one (CI's
    # `pip install .`): the checkout's kernels are not built there
    built = any((REPO / "textwin" / "_kernels").glob("_dual_gs.*.so"))
    env = dict(os.environ, PYTHONPATH=str(REPO)) if built else None
    proc = subprocess.run([sys.executable, "-c", _TRAIN_IMPORTS, *map(str, argv)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip().splitlines()[-1] == "loaded: []"
    assert (tmp_path / "m.npz").exists()


def test_importing_the_command_loads_no_numpy():
    # numpy and what uses it load inside main(), where a Ctrl-C is one line
    code = "import sys, textwin.cli; print('numpy' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert proc.stdout.strip() == "False", proc.stderr


def test_reproduce_is_a_command_with_its_own_options(capsys, monkeypatch):
    import textwin.reproduction
    from textwin.cli import reproduce as reproduce_command

    with pytest.raises(SystemExit) as exc:
        main(["reproduce", "--help"])
    out = capsys.readouterr().out
    assert exc.value.code == 0
    assert out.startswith("usage: textwin reproduce") and "--quick" in out
    assert "reproduce" in build_parser().format_help()
    calls = []
    monkeypatch.setattr(textwin.reproduction, "run", lambda output, *, command, **options: calls.append(
        (options["quick"], output, options["progress"], command)))
    assert run(capsys, "-q", "reproduce", "--quick", "--output", "x.md")[0] == 0
    # the report records the command as typed, without -q (the document is the same)
    assert calls[-1] == (True, "x.md", False, "textwin reproduce --quick --output x.md")
    assert reproduce_command.main(["--output=y.md", "-q"]) == 0
    assert calls[-1] == (False, "y.md", False, "python -m textwin.reproduce --output=y.md")
    # a bad option: the usage of `textwin reproduce`, not of `textwin`
    with pytest.raises(SystemExit) as exc:
        main(["reproduce", "--bogus"])
    err = capsys.readouterr().err
    assert exc.value.code == EXIT_USAGE and err.startswith("usage: textwin reproduce")
    assert "textwin reproduce: error: unrecognized arguments: --bogus" in err
    # Without matplotlib it stops before the long run, with the command that fixes it.
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "matplotlib" else real_find_spec(name, *a))
    code, _, err = run(capsys, "reproduce", "--quick")
    assert code == EXIT_NO_DATA and len(calls) == 2
    assert_one_line_error(err, "matplotlib", "pip install")


def test_package_lists_and_loads_its_lazy_names():
    import textwin

    names = dir(textwin)
    for name in ("DualGaussSeidelClassifier", "DualSVM", "RegularizedWinnow", "Perceptron",
                 "Winnow", "BalancedWinnow", "__version__"):
        assert name in names and name in textwin.__all__
        assert getattr(textwin, name) is not None
    assert textwin.DualSVM.__module__ == "textwin.linear"
    with pytest.raises(AttributeError, match="no attribute 'DualSVN'"):
        textwin.DualSVN


def test_no_command_is_a_usage_error(capsys):
    code, _, err = run(capsys)
    assert code == EXIT_USAGE and "usage:" in err


def test_predict_without_a_model_names_only_the_model(capsys):
    # INPUT is optional (stdin): argparse listed it as required too
    with pytest.raises(SystemExit) as exc:
        main(["predict"])
    assert exc.value.code == EXIT_USAGE
    assert capsys.readouterr().err.strip().endswith("the following arguments are required: MODEL")


# -- custom corpus, end to end -----------------------------------------------------

def _test_split(path):
    recs = [json.loads(line) for line in open(path, encoding="utf-8")]
    test = [r for r in recs if r["split"] == "test"]
    return [r["text"] for r in test], [r["labels"] for r in test]


@pytest.mark.parametrize("method", ["svm", "mls", "rwinnow", "perceptron", "smo"])
def test_train_custom_jsonl_numbers_match_the_library(capsys, tmp_path, jsonl_corpus, method):
    model_path = tmp_path / "m.npz"
    code, out, err = run(capsys, "train", "--corpus", jsonl_corpus, "--category",
                         "acq,grain", "--method", method, "--features", 15,
                         "--output", model_path, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["method"] == method and result["n_train"] == 300
    assert result["n_test"] == 150 and result["n_features"] == 15

    # Score the raw test texts with the saved model, recompute every figure.
    texts, labels = _test_split(jsonl_corpus)
    model = load_model(model_path)
    assert model.target_names == ["acq", "grain"]
    Y = np.array([[c in labs for c in model.target_names] for labs in labels], dtype=np.uint8)
    scores = model.decision_function(texts)
    beps = breakeven_points(Y, scores)
    prf = precision_recall_f1(Y, Y_score=scores, zero_division=np.nan)
    for j, row in enumerate(result["categories"]):
        assert row["category"] == model.target_names[j]
        assert row["test_positives"] == int(Y[:, j].sum())
        assert row["breakeven"] == pytest.approx(100 * beps[j], abs=1e-3)
        assert row["precision"] == pytest.approx(100 * prf.precision[j], abs=1e-3)
        assert row["recall"] == pytest.approx(100 * prf.recall[j], abs=1e-3)
        assert row["f1"] == pytest.approx(100 * prf.f1[j], abs=1e-3)
        assert row["breakeven"] > 70  # the task is learnable: a broken pipeline is not


def test_tfidf_corpus_model_scores_like_training(capsys, tmp_path, jsonl_corpus):
    model_path = tmp_path / "t.npz"
    code, out, err = run(capsys, "train", "--corpus", jsonl_corpus, "--category", "crude",
                         "--weighting", "tfidf", "--json", "-o", model_path)
    assert code == 0, err
    texts, labels = _test_split(jsonl_corpus)
    model = load_model(model_path)
    assert model.idf is not None and model.preprocessing["weighting"] == "tfidf"
    y = np.array([["crude" in labs] for labs in labels], dtype=np.uint8)
    bep = breakeven_points(y, model.decision_function(texts))[0]
    assert json.loads(out)["categories"][0]["breakeven"] == pytest.approx(100 * bep, abs=1e-3)


def test_train_table_output_and_predict(capsys, tmp_path, jsonl_corpus, monkeypatch):
    model_path = tmp_path / "grain.npz"
    code, out, err = run(capsys, "train", "--corpus", jsonl_corpus, "--category", "grain",
                         "--features", 15, "-o", model_path)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1].startswith("task: multi-label: every category whose score is above")
    assert lines[2].split() == ["category", "BEP", "prec", "recall", "F1", "gap", "epochs"]
    assert lines[3].split()[0] == "grain"
    assert lines[4].startswith("micro-BEP") and "macro-F1" in lines[4]
    assert "textwin: training svm" in err  # logs on stderr, not stdout

    model = load_model(model_path)
    docs = ["the official said wheat and barley tonnes rose", "opec oil refinery"]
    expected = model.decision_function(docs)[:, 0]
    code, out, err = run(capsys, "predict", model_path, stdin="\n".join(docs) + "\n",
                         monkeypatch=monkeypatch)
    code2, out2, _ = run(capsys, "predict", model_path, "--json", "-",
                         stdin="\n".join(docs) + "\n", monkeypatch=monkeypatch)
    assert code2 == 0 and [g["id"] for g in json.loads(out2)] == ["line 1", "line 2"]
    assert code == 0, err
    rows = [ln.split("\t") for ln in out.splitlines()]
    np.testing.assert_allclose([float(r[0]) for r in rows], expected, atol=1e-6)
    assert [r[1] for r in rows] == ["grain" if s > 0 else "-" for s in expected]

    # files and a folder, JSON output
    folder = tmp_path / "inbox"
    folder.mkdir()
    for i, d in enumerate(docs):
        (folder / f"{i}.txt").write_text(d)
    code, out, _ = run(capsys, "predict", model_path, folder / "0.txt", folder, "--json")
    got = json.loads(out)
    assert [g["id"] for g in got] == [str(folder / "0.txt"), str(folder / "0.txt"),
                                      str(folder / "1.txt")]
    assert got[2]["scores"]["grain"] == pytest.approx(expected[1])
    assert got[0]["labels"] == (["grain"] if expected[0] > 0 else [])


def test_predict_with_a_python_saved_multiclass_or_binary_model(capsys, tmp_path, monkeypatch):
    # a model saved from Python for one class per document: the label is the
    # estimator's argmax (multi-class) or one of its two classes (binary, 1-d scores)
    from sklearn.pipeline import Pipeline

    from textwin import DualSVM
    from textwin.persistence import save_model
    from textwin.text import TextVectorizer

    texts, labels = zip(*_docs(150, 5))
    texts = list(texts)
    y = np.array([labs[0] if labs else "none" for labs in labels])
    for name, target in (("mc", y), ("bin", np.where(y == "crude", "crude", "rest"))):
        pipe = Pipeline([("vec", TextVectorizer()), ("svm", DualSVM(lam=1e-2, random_state=0))])
        pipe.fit(texts, target)
        save_model(tmp_path / f"{name}.npz", pipe)
        code, out, err = run(capsys, "predict", tmp_path / f"{name}.npz", "--json", "-",
                             stdin="\n".join(texts[:20]) + "\n", monkeypatch=monkeypatch)
        assert code == 0, err
        got = json.loads(out)
        expected = pipe.predict(texts[:20])
        assert [g["labels"] for g in got] == [[c] for c in expected]
        assert {c for g in got for c in g["labels"]} >= ({"crude", "rest"} if name == "bin"
                                                         else {"crude"})


def test_train_folder_corpus(capsys, tmp_path):
    root = tmp_path / "news"
    for i, (text, labels) in enumerate(_docs(200, 3)):
        for lab in labels or ["none"]:
            (root / lab).mkdir(parents=True, exist_ok=True)
            (root / lab / f"{i}.txt").write_text(text)
    code, out, err = run(capsys, "train", "--corpus", root, "--category", "crude",
                         "--features", 15, "--json", "--seed", 4)
    assert code == 0, err
    res = json.loads(out)
    assert res["n_train"] + res["n_test"] == 200 and res["n_test"] == 50
    assert res["categories"][0]["breakeven"] > 70


def test_train_and_predict_svmlight(capsys, tmp_path):
    rng = np.random.default_rng(0)

    def write(path, n):
        with open(path, "w") as fh:
            for _ in range(n):
                idx = np.sort(rng.choice(40, size=6, replace=False)) + 1
                label = 1 if (idx <= 5).any() else 2
                fh.write(f"{label} " + " ".join(f"{j}:1" for j in idx) + "\n")

    write(tmp_path / "train.svm", 200)
    write(tmp_path / "test.svm", 80)
    model = tmp_path / "v.npz"
    code, out, err = run(capsys, "train", "--corpus", tmp_path / "train.svm", "--test-corpus",
                         tmp_path / "test.svm", "--category", "1", "--json", "-o", model)
    assert code == 0, err
    assert json.loads(out)["categories"][0]["breakeven"] > 90
    code, out, err = run(capsys, "predict", model, tmp_path / "test.svm", "--json")
    assert code == 0, err
    from sklearn.datasets import load_svmlight_file

    X, y = load_svmlight_file(str(tmp_path / "test.svm"), n_features=40)
    scores = [g["scores"]["1"] for g in json.loads(out)]
    bep = breakeven_points((y == 1).astype(int), np.array(scores))[0]
    assert 100 * bep == pytest.approx(json.loads(
        run(capsys, "train", "--corpus", tmp_path / "train.svm", "--test-corpus",
            tmp_path / "test.svm", "--category", "1", "--json")[1])["categories"][0]["breakeven"],
        abs=1e-3)


def test_train_on_feature_values_saves_the_tuned_and_calibrated_estimators_model(tmp_path):
    # train --tune-thresholds f1 --proba on a matrix, run as users run it: the model file
    # predicts the labels and probabilities of the library's TunedThresholdsClassifierCV
    # of the method, fitted on the same rows
    from textwin.datasets._svmlight import read_svmlight_file
    from textwin.experiments import METHODS, build_method, fold_estimator
    from textwin.model_selection import TunedThresholdsClassifierCV

    rng = np.random.default_rng(2)

    def write(path, n):
        with open(path, "w") as fh:
            for i in range(n):
                label = int(rng.choice(4, p=[0.55, 0.25, 0.12, 0.08]))
                idx = {label + 1, 30} | set(rng.choice(30, size=5, replace=False) + 1)
                if rng.random() < 0.5:  # a class's own feature, only now and then
                    idx.discard(label + 1)
                fh.write(f"{label} " + " ".join(f"{j}:1" for j in sorted(idx)) + "\n")

    write(tmp_path / "train.svm", 240)
    write(tmp_path / "test.svm", 120)
    from _textwin_process import ENV  # the textwin these tests import, not an unbuilt checkout

    proc = subprocess.run([sys.executable, "-m", "textwin.cli", "train", "--corpus",
                           "train.svm", "--test-corpus", "test.svm", "--tune-thresholds", "f1",
                           "--proba", "-o", "m.npz"], cwd=tmp_path, env=ENV,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    model = load_model(tmp_path / "m.npz")
    assert model.task == "multiclass" and list(model.classes) == ["0", "1", "2", "3"]

    X, labels = read_svmlight_file(tmp_path / "train.svm")
    X_test, _ = read_svmlight_file(tmp_path / "test.svm", n_features=X.shape[1])
    Y = np.zeros((X.shape[0], 4), dtype=int)
    Y[np.arange(X.shape[0]), [int(lab[0]) for lab in labels]] = 1
    n, svm = X.shape[0], METHODS["svm"]
    settings, order = {"lam": 1.0 / n}, {"shuffle": True, "random_state": 0}  # the corpus's
    est = TunedThresholdsClassifierCV(
        build_method(svm, n, settings, order=order), objective="f1", cv=3,
        task="multiclass", probability=True,
        fold_estimator=fold_estimator(svm, n, settings, order=order)).fit(X, Y)
    assert_array_equal(model.thresholds, est.thresholds_)
    assert np.count_nonzero(est.thresholds_) > 0  # tuned
    predicted = model.predict(X_test)
    assert_array_equal(predicted, np.array(model.classes)[est.predict(X_test)])
    untuned = np.argmax(est.estimator_.decision_function(X_test), axis=1)
    assert (predicted != np.array(model.classes)[untuned]).any()  # the thresholds matter
    np.testing.assert_allclose(model.predict_proba(X_test), est.predict_proba(X_test),
                               rtol=1e-9, atol=1e-12)


# -- errors: one line, distinct exit codes, never a traceback ----------------------

def test_unknown_category_in_custom_corpus(capsys, jsonl_corpus):
    code, out, err = run(capsys, "train", "--corpus", jsonl_corpus, "--category", "graine")
    assert code == EXIT_USAGE and out == ""
    assert_one_line_error(err, "unknown category 'graine'", "closest: grain")


@pytest.mark.parametrize("argv, fragments", [
    (["--method", "svn"], ["unknown method 'svn'", "closest: svm"]),
    (["--eta", "0.1"], ["method 'svm' has no setting --eta"]),
    (["--lam", "-1"], ["--lam must be positive"]),
    (["--epochs", "0"], ["--epochs must be an integer from 1 to 2147483647"]),
    (["--epochs", "99999999999999999999"], ["--epochs must be an integer from 1"]),
    (["--tol", "5"], ["--tol is a relative duality gap", "below 1"]),
    (["--method", "rwinnow", "--gamma", "-1"], ["--gamma is a margin", ">= 0"]),
    (["--category", "crude,crude"], ["'crude' is listed more than once"]),
])
def test_bad_settings(capsys, jsonl_corpus, argv, fragments):
    code, _, err = run(capsys, "train", "--corpus", jsonl_corpus, "--category", "acq", *argv)
    assert code == EXIT_USAGE
    assert_one_line_error(err, *fragments)


@pytest.mark.parametrize("argv, fragments", [
    # checked before any data is read, as train checks them
    (["--methods", "svm", "--lam", "-1"], ["--lam must be positive"]),
    (["--methods", "svm", "--lam", "nan"], ["--lam must be a finite number"]),
    (["--methods", "svm", "--epochs", "0"], ["--epochs must be an integer from 1"]),
    (["--methods", ""], ["no method given", "'paper'", "'all'"]),
    (["--methods", "svm,svm"], ["'svm' is listed more than once"]),
    (["--methods", "svm", "--eta", "0.1"], ["--eta applies to none of the methods (svm)"]),
])
def test_eval_checks_its_settings_as_train_does(capsys, argv, fragments):
    # these were tracebacks (exit 1), some after minutes of training
    code, out, err = run(capsys, "eval", "--micro-breakeven", *argv)
    assert code == EXIT_USAGE and out == ""
    assert_one_line_error(err, *fragments)


def test_json_output_holds_infinite_thresholds(capsys):
    # a category that cannot be learnt gets threshold +inf (never): standard
    # JSON has no such number, and the document used to break off midway
    from textwin.cli.common import print_json

    print_json({"categories": [{"threshold": float("inf")}, {"threshold": -math.inf},
                                {"breakeven": float("nan")}, {"threshold": 0.5}]})
    assert json.loads(capsys.readouterr().out) == {"categories": [
        {"threshold": "inf"}, {"threshold": "-inf"}, {"breakeven": None}, {"threshold": 0.5}]}


def test_predict_reads_a_pipe(capsys, tmp_path, jsonl_corpus):
    # bash's `textwin predict M <(echo ...)` passes /dev/fd/63, a pipe, not a file
    model = tmp_path / "m.npz"
    assert run(capsys, "train", "--corpus", jsonl_corpus, "--category", "grain",
               "-o", model, "-q")[0] == 0
    fifo = tmp_path / "in"
    os.mkfifo(fifo)
    import threading

    writer = threading.Thread(target=fifo.write_text, args=("wheat and barley tonnes",),
                              daemon=True)
    writer.start()
    code, out, err = run(capsys, "predict", model, fifo, "--json")
    if writer.is_alive():  # nobody read the pipe: open it so that the writer ends
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
    writer.join(10)
    assert code == 0, err
    assert [g["id"] for g in json.loads(out)] == [str(fifo)]


def test_predict_with_a_folder_as_model(capsys, tmp_path):
    code, out, err = run(capsys, "predict", tmp_path, tmp_path / "x.txt")
    assert code == EXIT_USAGE and out == ""
    assert_one_line_error(err, "is a folder: the first argument is the model file")


def test_predict_svmlight_model_errors(capsys, tmp_path):
    rng = np.random.default_rng(1)
    with open(tmp_path / "train.svm", "w") as fh:
        for i in range(60):
            idx = np.sort(rng.choice(20, size=4, replace=False)) + 1
            fh.write(f"{1 + i % 2} " + " ".join(f"{j}:1" for j in idx) + "\n")
    model = tmp_path / "v.npz"
    code, _, err = run(capsys, "train", "--corpus", tmp_path / "train.svm", "--category", "1",
                       "-o", model, "-q")
    assert code == 0, err
    (tmp_path / "empty.svm").write_text("")
    for inputs, fragment in (([tmp_path], "is a folder"), ([tmp_path / "empty.svm"], "empty")):
        code, out, err = run(capsys, "predict", model, *inputs)
        assert code != 0 and out == ""
        assert_one_line_error(err, fragment)
    assert f"(e.g. {tmp_path}/*.svm)" in run(capsys, "predict", model, tmp_path)[2]


def test_malformed_and_missing_corpus(capsys, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "a", "labels": ["x"]}\nnot json\n')
    code, _, err = run(capsys, "train", "--corpus", bad, "--category", "x")
    assert code == EXIT_USAGE
    assert_one_line_error(err, "bad.jsonl:2")
    code, _, err = run(capsys, "train", "--corpus", tmp_path / "nope.jsonl")
    assert code == EXIT_NO_DATA
    assert_one_line_error(err, "corpus not found")


def test_missing_reuters_is_exit_3(capsys, tmp_path):
    code, _, err = run(capsys, "train", "--category", "acq", "--data-home", tmp_path,
                       "--offline")
    assert code == EXIT_NO_DATA
    assert_one_line_error(err, "Reuters-21578", "textwin data --fetch")
    code, _, err = run(capsys, "data", "--data-home", tmp_path)
    assert code == EXIT_NO_DATA
    assert_one_line_error(err, "corpus is missing")


def test_bad_model_files(capsys, tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"PK\x03\x04 definitely not a model")
    code, _, err = run(capsys, "predict", bad, "-")
    assert code == EXIT_BAD_MODEL
    assert_one_line_error(err, "not a usable textwin model")
    code, _, err = run(capsys, "predict", tmp_path / "none.npz")
    assert code == EXIT_NO_DATA
    assert_one_line_error(err, "model file not found")


def test_eval_needs_an_evaluation(capsys):
    code, _, err = run(capsys, "eval")
    assert code == EXIT_USAGE
    assert_one_line_error(err, "--micro-breakeven")


def test_console_script_runs(tmp_path):
    """Through a real process: the installed script if there is one, else -m."""
    script = shutil.which("textwin")
    cmd = [script] if script else [sys.executable, "-m", "textwin.cli"]
    # the repository on the path only for -m: in front of an installed script it
    # would shadow the installed package with a tree whose kernels are not built
    env = dict(os.environ) if script else dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([*cmd, "--version"], capture_output=True, text=True, env=env,
                          timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == f"textwin {__version__}"
    proc = subprocess.run([*cmd, "train", "--category", "acq", "--data-home", str(tmp_path),
                           "--offline"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == EXIT_NO_DATA
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.strip().startswith("textwin: error:")


# -- the real corpus ---------------------------------------------------------------

@pytest.mark.corpus
def test_reuters_train_saved_model_scores_raw_stories(capsys, tmp_path, reuters_data_home):
    """The printed BEPs equal those of the saved model on the raw ModApte test stories:
    the stored vocabulary, stemming and IG columns reproduce the cached pipeline."""
    from textwin.datasets import fetch_reuters21578

    model_path = tmp_path / "acq_corn.npz"
    code, out, err = run(capsys, "train", "--category", "acq,corn", "--method", "mls",
                         "--epochs", 5, "--json", "-o", model_path)
    assert code == 0, err
    result = json.loads(out)
    assert (result["n_train"], result["n_test"], result["n_features"]) == (9603, 3299, 1000)
    test = fetch_reuters21578(subset="test", categories=["acq", "corn"],
                              download_if_missing=False)
    model = load_model(model_path)
    scores = model.decision_function(test.data)
    beps = breakeven_points(test.target, scores)
    for j, row in enumerate(result["categories"]):
        assert row["test_positives"] == int(test.target[:, j].sum())
        assert row["breakeven"] == pytest.approx(100 * beps[j], abs=1e-3)
        assert row["epochs"] == 5
    assert result["categories"][0]["breakeven"] > 85  # acq is easy even after 5 epochs
    # The file records the estimator as save_model does: class, parameters, epochs.
    meta = model.metadata
    assert meta["estimator"] == "textwin.linear.ModifiedLeastSquares"
    assert meta["params"]["max_epochs"] == 5 and meta["n_iter"] == [5, 5]
    assert meta["method"] == "mls" and meta["settings"]["epochs"] == 5


@pytest.mark.corpus
def test_reuters_texts_as_a_corpus_with_tfidf_and_every_feature(capsys, tmp_path,
                                                                reuters_data_home):
    from textwin.datasets import fetch_reuters21578
    from textwin.text import TextVectorizer

    model_path = tmp_path / "m.npz"
    code, out, err = run(capsys, "train", "--category", "grain,ship", "--weighting", "tfidf",
                         "--features", "all", "--json", "-o", model_path)
    assert code == 0, err
    result = json.loads(out)
    tr, te = (fetch_reuters21578(data_home=reuters_data_home, subset=s) for s in ("train", "test"))
    n_features = TextVectorizer(weighting="tfidf").fit(tr.data).idf_.size
    assert result["n_features"] == n_features > 10000  # every stem, not the paper's 1000
    assert result["settings"]["lam"] == pytest.approx(1 / len(tr.data))  # the corpus default
    model = load_model(model_path)  # scores the raw stories as the table says
    assert model.preprocessing["weighting"] == "tfidf" and model.selected is None
    cols = [tr.target_names.index(c) for c in ("grain", "ship")]
    beps = breakeven_points(np.asarray(te.target)[:, cols], model.decision_function(te.data))
    assert [r["breakeven"] for r in result["categories"]] == pytest.approx(100 * beps, abs=1e-3)


@pytest.mark.corpus
def test_reuters_texts_with_word_bigrams(capsys, tmp_path, reuters_data_home):
    from textwin.datasets import fetch_reuters21578

    model_path = tmp_path / "m.npz"
    # with the switches that leave the paper's protocol (--ngrams alone is refused)
    code, out, err = run(capsys, "train", "--category", "grain,ship", "--ngrams", "2",
                         "--weighting", "tfidf", "--features", "all", "--json", "-o", model_path)
    assert code == 0, err
    result = json.loads(out)
    model = load_model(model_path)
    assert model.preprocessing["ngram_range"] == [1, 2]
    assert "wheat export" in set(model.vocabulary.tolist())  # a stem bigram of the stories
    te = fetch_reuters21578(data_home=reuters_data_home, subset="test")
    cols = [te.target_names.index(c) for c in ("grain", "ship")]
    beps = breakeven_points(np.asarray(te.target)[:, cols], model.decision_function(te.data))
    assert [r["breakeven"] for r in result["categories"]] == pytest.approx(100 * beps, abs=1e-3)
    assert result["categories"][0]["breakeven"] > 85


@pytest.mark.corpus
def test_reuters_eval_json_matches_library(capsys, reuters_data_home):
    from textwin.experiments import METHODS, load_protocol_data, score_matrix

    code, out, err = run(capsys, "eval", "--micro-breakeven", "--methods", "perceptron,mls",
                         "--categories", "acq,grain,ship", "--epochs", 3, "--json", "-q")
    assert code == 0, err
    assert err == ""  # -q: no logs, no warnings
    rows = json.loads(out)
    assert [r["method"] for r in rows] == ["perceptron", "mls"]
    data = load_protocol_data(["acq", "grain", "ship"], reuters_data_home)
    for row in rows:
        est = METHODS[row["method"]].build(data.X_train.shape[0], epochs=3)
        scores = score_matrix(est.fit(data.X_train, data.Y_train), data.X_test)
        assert row["micro_breakeven"] == pytest.approx(
            100 * micro_breakeven_point(data.Y_test, scores), abs=1e-3)
        beps = breakeven_points(data.Y_test, scores)
        assert list(row["breakeven"]) == ["acq", "grain", "ship"]
        np.testing.assert_allclose(list(row["breakeven"].values()), 100 * beps, atol=1e-3)
        assert row["paper_micro_breakeven"] is None  # not the paper's ten categories
        assert row["paper_breakeven"]["acq"] == METHODS[row["method"]].paper_breakeven.get("acq")


@pytest.mark.corpus
def test_reuters_eval_table_has_paper_figures(capsys, reuters_data_home):
    code, out, err = run(capsys, "eval", "--micro-breakeven", "--methods", "perceptron",
                         "--epochs", 2)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1].split() == ["perceptron"]
    micro = next(ln for ln in lines if ln.startswith("micro-average")).split()
    assert micro[-1] == "(88.5)"  # the paper's figure beside ours
    assert next(ln for ln in lines if ln.startswith("acq")).split()[-1] == "(92.4)"
    assert next(ln for ln in lines if ln.startswith("earn")).split()[1:] != []
    assert "time (s)" in out


@pytest.mark.corpus
def test_reuters_eval_refuses_an_unlearnable_named_category(capsys, reuters_data_home):
    code, out, err = run(capsys, "eval", "--micro-breakeven", "--methods", "svm",
                         "--categories", "cottonseed")
    assert code == EXIT_USAGE and out == ""
    assert_one_line_error(err, "'cottonseed' has no training document")


def test_reuters_tuned_thresholds_of_rare_categories_stay_at_zero(capsys, reuters_data_home):
    # castorseed has 1 training document, wool 2: a fold trains without any,
    # and F1 tuning put their thresholds at -1 and -1.5 (every document in)
    code, out, err = run(capsys, "train", "-c", "castorseed,wool,acq", "--tune-thresholds",
                         "f1", "--json")
    assert code == 0, err
    rows = {r["category"]: r for r in json.loads(out)["categories"]}
    assert rows["castorseed"]["threshold"] == 0 and rows["wool"]["threshold"] == 0
    assert rows["acq"]["threshold"] != 0
    assert "castorseed (1), wool (2)" in err and "keep threshold 0" in err


@pytest.mark.corpus
def test_quiet_still_reports_a_corpus_that_differs(capsys, tmp_path, reuters_data_home,
                                                   monkeypatch):
    # -q silences logs and progress, not a corpus whose files are not the
    # published ones (figures then cannot be compared with the literature)
    monkeypatch.setenv("TEXTWIN_CACHE_DIR", str(tmp_path / "cache"))  # not the session's
    home = tmp_path / "home"
    shutil.copytree(reuters_data_home / "reuters21578", home / "reuters21578")
    with open(home / "reuters21578" / "reut2-007.sgm", "ab") as fh:
        fh.write(b"\n")
    code, _, err = run(capsys, "-q", "train", "-c", "acq", "--data-home", home,
                       "--method", "perceptron", "--epochs", "1")
    assert code == 0, err
    assert "differ from the published" in err and "reut2-007.sgm" in err


def test_reuters_unknown_category_lists_closest(capsys, reuters_data_home):
    code, out, err = run(capsys, "train", "--category", "aqc")
    assert code == EXIT_USAGE and out == ""
    assert_one_line_error(err, "unknown category 'aqc'", "acq")
    code, _, err = run(capsys, "train", "--category", "money-fxx")
    assert_one_line_error(err, "money-fx")


@pytest.mark.corpus
def test_reuters_data_verify_json(capsys, reuters_data_home):
    code, out, err = run(capsys, "data", "--verify", "--json")
    assert code == 0, err
    rep = json.loads(out)
    assert rep["counts"] == {"train": 9603, "test": 3299, "categories": 118}
    assert rep["verified"] is True and rep["sgm_files"] == 22


@pytest.mark.corpus
@pytest.mark.slow
def test_data_verify_unpacks_an_archive_placed_by_hand(capsys, tmp_path, reuters_data_home):
    """The offline route of the user guide: an archive in an empty data home."""
    import tarfile

    home = tmp_path / "home"
    home.mkdir()
    with tarfile.open(home / "reuters21578.tar.gz", "w:gz") as tar:
        for sgm in sorted((reuters_data_home / "reuters21578").glob("reut2-*.sgm")):
            tar.add(sgm, arcname=sgm.name)
    code, out, err = run(capsys, "data", "--data-home", home)
    assert code == EXIT_NO_DATA and "0 of 22" in out
    code, out, err = run(capsys, "data", "--verify", "--json", "--data-home", home)
    assert code == 0, err
    rep = json.loads(out)
    assert rep["sgm_files"] == 22 and rep["verified"] is True
    assert rep["counts"] == {"train": 9603, "test": 3299, "categories": 118}


def test_data_fetch_without_network_is_one_clear_line(capsys, tmp_path, monkeypatch):
    import textwin.datasets._base as base

    def offline(*args, **kwargs):
        raise OSError("network is unreachable")

    monkeypatch.setattr(base, "_urlopen", offline)
    code, out, err = run(capsys, "data", "--fetch", "--data-home", tmp_path)
    assert code == EXIT_NO_DATA
    assert_one_line_error(err, "could not download Reuters-21578", "by hand")
    assert not (tmp_path / "reuters21578").exists()


@pytest.mark.parametrize("objective", ["f1", "breakeven"])
def test_train_tune_thresholds_from_training_folds(capsys, tmp_path, jsonl_corpus, objective):
    from textwin import TextClassifier
    from textwin.model_selection import task_thresholds

    model_path = tmp_path / "m.npz"
    code, out, err = run(capsys, "train", "--corpus", jsonl_corpus, "--category", "all",
                         "--features", 15, "--tune-thresholds", objective, "--json",
                         "-o", model_path)
    assert code == 0, err
    result, model = json.loads(out), load_model(model_path)
    cats = [r["category"] for r in result["categories"]]
    assert [r["threshold"] for r in result["categories"]] == model.thresholds.tolist()

    # the thresholds are the objective's on out-of-fold scores of the training texts: on
    # each of 3 folds a TextClassifier of the command's settings (its vectorizer and its
    # 15 terms of highest information gain chosen on the fold's texts, lam = 1/n of them)
    recs = [json.loads(line) for line in open(jsonl_corpus, encoding="utf-8")]
    train = [r for r in recs if r["split"] == "train"]
    Y_train = np.array([[c in r["labels"] for c in cats] for r in train], dtype=int)
    assert result["settings"]["lam"] == 1 / len(train)
    expected, _ = task_thresholds(TextClassifier(features=15, task="multilabel"),
                                  [r["text"] for r in train], Y_train, "multilabel",
                                  objective, 3)
    np.testing.assert_allclose(model.thresholds, expected, rtol=1e-6, atol=1e-9)
    assert np.any(model.thresholds != 0)

    # precision, recall and F1 are measured at those thresholds
    texts, labels = _test_split(jsonl_corpus)
    Y_test = np.array([[c in labs for c in cats] for labs in labels], dtype=int)
    prf = precision_recall_f1(Y_test, Y_score=model.decision_function(texts),
                              threshold=model.thresholds)
    for j, row in enumerate(result["categories"]):
        assert row["f1"] == pytest.approx(100 * prf.f1[j], abs=1e-3)
        assert row["precision"] == pytest.approx(100 * prf.precision[j], abs=1e-3)


def test_train_tune_thresholds_text_output_and_bad_choice(capsys, jsonl_corpus):
    code, out, err = run(capsys, "train", "--corpus", jsonl_corpus, "--category", "grain",
                         "--features", 15, "--tune-thresholds", "f1")
    assert code == 0, err
    assert ("at thresholds tuned for each category's F1 by 3-fold cross-validation on the "
            "training set: grain") in out
    with pytest.raises(SystemExit) as exc:  # argparse's own check of the choices
        run(capsys, "train", "--corpus", jsonl_corpus, "--category", "grain",
            "--tune-thresholds", "bep")
    assert exc.value.code == EXIT_USAGE and "invalid choice: 'bep'" in capsys.readouterr().err


# -- lam chosen by cross-validation ------------------------------------------------

def test_train_lam_auto_reports_the_choice_and_plots_it(capsys, tmp_path, jsonl_corpus):
    plot = tmp_path / "cv.png"
    code, out, err = run(capsys, "train", "--corpus", jsonl_corpus, "--category", "acq,grain",
                         "--features", 15, "--lam", "auto", "--plot", plot, "--json")
    assert code == 0, err
    result = json.loads(out)
    cv = result["lam_by_cv"]
    # one lam for the model, chosen by micro-F1 at its decision (score > 0)
    assert cv["folds"] == 5 and cv["scoring"] == "micro-f1" and cv["shared"]
    assert 0.5 < cv["cv_score"] <= 1 and result["settings"]["lam"] == "auto"
    for row in result["categories"]:
        assert row["lam"] == cv["lam"][row["category"]] and row["lam"] in cv["lams"]
    curve = cv["curves"]["all"]
    assert len(curve) == len(cv["lams"])
    # the CV score of the choice is the best of the curve, at the chosen lam
    assert cv["cv_score"] == max(c for c in curve if c is not None)
    assert curve[cv["lams"].index(row["lam"])] == cv["cv_score"]
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and result["plot"] == str(plot)
    code, out, err = run(capsys, "train", "--corpus", jsonl_corpus, "--category", "acq",
                         "--features", 15, "--lam", "auto")
    assert code == 0, err
    assert "lambda by 5-fold cross-validation on the training set" in out
    assert "micro-f1" in out and "acq " in out.splitlines()[-2]


@pytest.mark.corpus
def test_reuters_lam_auto_heading_says_lam_is_chosen_per_category(capsys, reuters_data_home):
    # the paper's figure, one break-even point per category: a lam each (here two, named
    # below the table); the heading said "(here lam=auto)"
    code, out, err = run(capsys, "train", "--category", "acq,corn", "--lam", "auto",
                         "--epochs", 50, "-q")
    assert code == 0, err
    lines = out.splitlines()
    chosen = lines[-2].split(": ")[-1]
    assert chosen.startswith("acq ") and ", corn " in chosen
    assert len(set(part.split()[1] for part in chosen.split(", "))) == 2
    assert "(here lam per category by cross-validation, epochs=50)" in lines[0]


def test_lam_auto_on_a_multiclass_corpus_is_one_lam_chosen_by_accuracy(capsys, tmp_path):
    # the classes' scores are compared (argmax), so they share one lam, chosen by the
    # accuracy the task is scored by, not one lam per class by break-even point
    path = tmp_path / "single.jsonl"
    with open(path, "w", encoding="utf-8") as fh:
        for split, n, seed in (("train", 240, 0), ("test", 90, 1)):
            rng = np.random.default_rng(seed)
            for i in range(n):
                topic = list(TOPICS)[i % 3]
                words = list(rng.choice(FILLER, size=5)) + list(rng.choice(TOPICS[topic].split(), size=2))
                if rng.random() < 0.3:  # a word of another class: not separable by one word
                    words.append(rng.choice(TOPICS[list(TOPICS)[(i + 1) % 3]].split()))
                fh.write(json.dumps({"text": " ".join(words), "labels": [topic],
                                     "split": split}) + "\n")
    code, out, err = run(capsys, "train", "--corpus", path, "--lam", "auto", "--json")
    assert code == 0, err
    result = json.loads(out)
    cv = result["lam_by_cv"]
    assert result["task"] == "multiclass"
    assert cv["shared"] and cv["scoring"] == "accuracy"
    assert len(set(cv["lam"].values())) == 1 and set(cv["lam"]) == set(TOPICS)


@pytest.mark.parametrize("argv, fragments", [
    (["--lam", "auto", "--method", "linearsvc"], ["needs a dual Gauss-Seidel method"]),
    (["--plot", "x.png"], ["--plot", "--lam auto"]),
    (["--lam", "auto", "--plot", "x.txt"], [".png, .pdf or .svg"]),
])
def test_train_lam_auto_bad_combinations_are_one_line(capsys, jsonl_corpus, argv, fragments):
    code, out, err = run(capsys, "train", "--corpus", jsonl_corpus, "--category", "acq",
                         "--features", 15, *argv)
    assert code != 0
    assert_one_line_error(err, *fragments)


def test_lam_must_be_a_number_or_auto(capsys, jsonl_corpus):
    with pytest.raises(SystemExit):
        main(["train", "--corpus", str(jsonl_corpus), "--lam", "often"])
    assert "expected a number or 'auto'" in capsys.readouterr().err


def test_eval_lam_auto_refuses_a_method_that_cannot_before_training(capsys):
    code, out, err = run(capsys, "eval", "--micro-breakeven", "--methods", "svm,smo",
                         "--lam", "auto", "--offline")
    assert code != 0
    assert_one_line_error(err, "--methods smo", "dual Gauss-Seidel method")
    assert "training" not in err


def test_predict_skips_binary_files_and_hidden_folders(capsys, tmp_path, jsonl_corpus):
    # Training skips them, and says so; predict scored an image or a .git/ object as
    # if it were text.
    model = tmp_path / "m.npz"
    assert run(capsys, "train", "--corpus", jsonl_corpus, "--category", "grain",
               "-o", model, "-q")[0] == 0
    inbox = tmp_path / "inbox"
    (inbox / ".git").mkdir(parents=True)
    (inbox / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (inbox / "a.txt").write_text("wheat and barley tonnes")
    (inbox / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    code, out, err = run(capsys, "predict", model, inbox, "--json", "-q")
    assert code == 0, err
    assert [g["id"] for g in json.loads(out)] == [str(inbox / "a.txt")]
    assert "skipped 1 binary file" in err and "photo.png" in err and "HEAD" not in err
    code, out, err = run(capsys, "predict", model, inbox / "photo.png")
    assert code == EXIT_USAGE and out == ""
    assert "photo.png" in err
    assert_one_line_error(err, "no document to score")


def test_predict_of_empty_files_names_them(tmp_path, jsonl_corpus):
    # it said "give files, a folder, or lines on stdin" to a user who gave files
    from _textwin_process import run_textwin

    assert run_textwin("train", "--corpus", jsonl_corpus, "--category", "grain", "-o", "m.npz",
                       "-q", cwd=tmp_path).returncode == 0
    (tmp_path / "new.jsonl").write_text("\n\n", encoding="utf-8")
    (tmp_path / "new.csv").write_text("text,label\n", encoding="utf-8")
    proc = run_textwin("predict", "m.npz", "new.jsonl", "new.csv", cwd=tmp_path)
    assert proc.returncode == EXIT_USAGE and proc.stdout == ""
    assert_one_line_error(proc.stderr, "no document to score in new.jsonl, new.csv (empty, "
                          "blank lines or a header alone)", "give files holding the documents")
    proc = run_textwin("predict", "m.npz", cwd=tmp_path, input="")
    assert proc.returncode == EXIT_USAGE
    assert_one_line_error(proc.stderr, "stdin held no line", "lines on stdin")


def test_an_option_of_another_command_is_named_so(tmp_path, jsonl_corpus):
    # `textwin eval --proba` said "unrecognized arguments: --proba" alone
    from _textwin_process import run_textwin

    proc = run_textwin("eval", "--corpus", jsonl_corpus, "--tune-thresholds=f1", "--proba",
                       "--bogus", cwd=tmp_path)
    assert proc.returncode == EXIT_USAGE and proc.stdout == ""
    assert_one_line_error(proc.stderr, "unrecognized arguments: --tune-thresholds=f1 --proba "
                          "--bogus (--tune-thresholds is an option of textwin train; --proba "
                          "is an option of textwin train and textwin predict)")


def test_predict_names_a_skipped_named_pipe_in_a_sentence(capsys, tmp_path, jsonl_corpus):
    # it said 'skipped 2 not a regular file files (a named pipe, ...)'
    model = tmp_path / "m.npz"
    assert run(capsys, "train", "--corpus", jsonl_corpus, "--category", "grain",
               "-o", model, "-q")[0] == 0
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "a.txt").write_text("wheat and barley tonnes")
    for name in ("p1", "p2"):
        os.mkfifo(inbox / name)
    code, out, err = run(capsys, "predict", model, inbox, "--json", "-q")
    assert code == 0, err
    assert [g["id"] for g in json.loads(out)] == [str(inbox / "a.txt")]
    assert err == (f"textwin: warning: skipped 2 files (not a regular file: a named pipe, a "
                   f"socket, a device): {inbox / 'p1'}, {inbox / 'p2'}\n")


def test_predict_into_a_closed_pipe_is_no_input_error(capsys, monkeypatch, tmp_path,
                                                      jsonl_corpus):
    # `textwin predict m.npz docs.jsonl | head -1` said 'textwin: error: cannot read
    # the input: Broken pipe' (a BrokenPipeError is an OSError) and exited 3; the
    # results not written are said, as grep says them (exit 2, one line)
    from textwin.cli import EXIT_USAGE
    from textwin.cli import common

    model = tmp_path / "m.npz"
    assert run(capsys, "train", "--corpus", jsonl_corpus, "--category", "grain",
               "-o", model, "-q")[0] == 0

    def closed(text=""):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdin", io.StringIO("wheat\nbarley\n"))
    monkeypatch.setattr(common, "_write", closed)
    code, out, err = run(capsys, "predict", model)
    assert code == EXIT_USAGE
    assert_one_line_error(err, "stdout was closed by its reader (broken pipe)")
    assert "cannot read" not in err


def test_a_ctrl_c_while_the_command_line_loads_is_one_line(monkeypatch, capsys):
    # the console script imported textwin.cli before any handler: a traceback
    import builtins

    from textwin import _console
    from textwin.cli import EXIT_INTERRUPTED

    real_import = builtins.__import__

    def interrupted(name, *args, **kwargs):
        if name == "textwin.cli":
            raise KeyboardInterrupt
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", interrupted)
    assert _console.main() == _console.EXIT_INTERRUPTED == EXIT_INTERRUPTED
    assert capsys.readouterr().err == "textwin: interrupted\n"


def test_the_console_script_is_the_interruptible_entry_point():
    import tomllib

    with open(REPO / "pyproject.toml", "rb") as fh:
        scripts = tomllib.load(fh)["project"]["scripts"]
    assert scripts == {"textwin": "textwin._console:main"}
