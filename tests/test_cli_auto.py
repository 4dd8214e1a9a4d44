"""`textwin train --auto` and `textwin eval --auto`: the features and lambda chosen by
cross-validation on the training set, reported, saved, and refused where they cannot be."""
import json
import re

import numpy as np
import pytest

from textwin import TextClassifierCV
from textwin.cli import EXIT_USAGE, main
from textwin.metrics import breakeven_points
from textwin.persistence import load_model
from _textwin_process import run_textwin  # tests/ on sys.path

WORDS = {
    "grain": "wheat corn grain harvest tonnes barley",
    "crude": "oil crude barrel opec refinery petroleum",
    "acq": "shares merger acquire stake takeover bid",
}
FILLER = "the a said company market year week would official report new".split()


def _write(path, docs):
    with open(path, "w", encoding="utf-8") as fh:
        for split, text, labels in docs:
            fh.write(json.dumps({"text": text, "labels": labels, "split": split}) + "\n")
    return path


def _corpus(n, seed, classes, multilabel):
    rng = np.random.default_rng(seed)
    docs = []
    for i in range(n):
        if multilabel:
            labels = [c for c in classes if rng.random() < 0.35]
        else:
            labels = [classes[i % len(classes)]]
        words = list(rng.choice(FILLER, 6))
        for c in labels:
            words += list(rng.choice(WORDS[c].split(), 2))
        if rng.random() < 0.3:  # a stray topic word: no setting is perfect
            words.append(rng.choice(WORDS[rng.choice(classes)].split()))
        docs.append((" ".join(words), labels))
    return docs


@pytest.fixture
def multilabel_corpus(tmp_path):
    classes = sorted(WORDS)
    docs = [("train", *d) for d in _corpus(200, 0, classes, True)]
    docs += [("test", *d) for d in _corpus(100, 1, classes, True)]
    return _write(tmp_path / "multi.jsonl", docs)


@pytest.fixture
def binary_corpus(tmp_path):
    docs = [("train", *d) for d in _corpus(120, 0, ["acq", "crude"], False)]
    docs += [("test", *d) for d in _corpus(60, 1, ["acq", "crude"], False)]
    return _write(tmp_path / "binary.jsonl", docs)


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err, *fragments):
    lines = [ln for ln in err.splitlines() if ln.startswith("textwin: error:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    for f in fragments:
        assert f in lines[0], lines[0]


def _texts(path, split):
    rows = [json.loads(line) for line in open(path, encoding="utf-8")]
    return ([r["text"] for r in rows if r["split"] == split],
            [r["labels"] for r in rows if r["split"] == split])


def test_train_auto_multilabel_reports_saves_and_scores_as_the_model(capsys, tmp_path,
                                                                     multilabel_corpus):
    model_path = tmp_path / "m.npz"
    code, out, err = run(capsys, "train", "--corpus", multilabel_corpus, "--auto", "--json",
                         "-o", model_path)
    assert code == 0, err
    result = json.loads(out)
    auto = result["auto"]
    assert auto["folds"] == 5 and auto["scoring"] == "micro-f1" and 0 < auto["cv_score"] <= 1
    assert set(auto["lam"]) == set(WORDS) == set(auto["thresholds"])
    # the library's search on the same texts chooses the same
    texts, labels = _texts(multilabel_corpus, "train")
    names = sorted(WORDS)
    Y = np.array([[c in ls for c in names] for ls in labels], dtype=int)
    # the command fits on every core (--n-jobs -1), which its model file records
    search = TextClassifierCV(cv=5, task="multilabel", n_jobs=-1).fit(texts, Y, classes=names)
    assert search.best_score_ == pytest.approx(auto["cv_score"])
    assert auto["chosen"]["lam"] == pytest.approx(search.best_params_["lam"])
    assert auto["chosen"]["C"] == pytest.approx(1 / (search.best_params_["lam"] * len(texts)))
    # the model file scores the raw test texts as the table says, at the tuned thresholds
    model = load_model(model_path)
    test_texts, test_labels = _texts(multilabel_corpus, "test")
    T = np.array([[c in ls for c in names] for ls in test_labels], dtype=int)
    beps = breakeven_points(T, model.decision_function(test_texts))
    assert [r["breakeven"] for r in result["categories"]] == pytest.approx(100 * beps, abs=1e-3)
    np.testing.assert_allclose(model.thresholds, list(auto["thresholds"].values()))
    predicted = model.predict(test_texts)
    precision = 100 * (predicted & T).sum(axis=0) / predicted.sum(axis=0)
    assert [r["precision"] for r in result["categories"]] == pytest.approx(precision, abs=1e-3)
    # the file is the search's own model (TextClassifierCV.save: its best estimator's, with
    # what it chose), plus what the command measured; not one assembled beside it
    search.save(tmp_path / "search.npz")
    library = load_model(tmp_path / "search.npz")
    assert model.target_names == library.target_names == names
    for array in ("coef", "intercept", "thresholds"):
        np.testing.assert_array_equal(getattr(model, array), getattr(library, array))
    assert model.calibration.to_json() == library.calibration.to_json()
    assert {k: model.metadata.get(k) for k in library.metadata} == library.metadata
    assert model.metadata["summary"] == {k: v for k, v in result.items()
                                         if k in model.metadata["summary"]}
    # inspect names the settings and the search's choice
    code, out, err = run(capsys, "inspect", model_path)
    assert code == 0, err
    rows = dict(ln.split(None, 1) for ln in out.splitlines()[:12] if ln.strip())
    assert rows["estimator"] == "textwin.TextClassifier (method svm)"
    assert f"lam {library.metadata['search']['chosen']['lam']:.3g}" in rows["search"]
    assert f"micro-f1 {100 * auto['cv_score']:.1f} over 5 folds" in rows["search"]


def test_auto_plot_stars_the_chosen_setting_at_the_chosen_lam():
    from textwin.cli.report import auto_curves

    base = dict(stem=True, ngrams=2, loss="hinge", nb_scaling=False, fit_intercept=True,
                rule="zero")
    summary = {"n_train": 100, "lam_n": [10.0, 1.0, 0.1], "scoring": "accuracy",
               "chosen": {**base, "lam": 0.1},  # one standard error: not the curve's best
               "curves": [{"params": base, "scores": [0.8, 0.85, 0.9]},
                          {"params": {**base, "stem": False}, "scores": [0.7, 0.95, None]}]}
    curves = auto_curves(summary)
    assert curves["lams"] == [0.1, 0.01, 0.001]
    assert curves["lam"] == {"stems and bigrams, bias": 0.1}  # no star on the others
    assert curves["curves"]["words and bigrams, bias"] == [0.7, 0.95, None]  # stopped


def test_train_auto_table_says_what_was_chosen(capsys, binary_corpus, tmp_path):
    plot = tmp_path / "cv.png"
    code, out, err = run(capsys, "train", "--corpus", binary_corpus, "--auto", "--plot", plot)
    assert code == 0, err
    line = next(ln for ln in out.splitlines() if ln.startswith("--auto chose"))
    assert "5-fold cross-validation on the training set (accuracy" in line and "C = " in line
    lam, c = line.split("lambda ")[1].rstrip(")").split(" (C = ")
    # the heading names the lam chosen and its C, as the line does
    said = re.search(r"\(here lam=(\S+) \(C = (\S+)\) by cross-validation\)  \[",
                     out.splitlines()[0])
    assert float(said[1]) == pytest.approx(float(lam), rel=5e-3) and said[2] == c
    assert plot.stat().st_size > 1000
    model_path = tmp_path / "m.npz"
    code, out, err = run(capsys, "train", "--corpus", binary_corpus, "--auto", "--json",
                         "-o", model_path)
    result = json.loads(out)
    curves = result["auto"]["curves"]
    # two classes are one binary problem, reported as without --auto
    assert result["task"] == "binary" and "positive_f1" in result and "accuracy" in result
    model = load_model(model_path)
    assert model.task == "binary" and model.coef.shape[0] == 1
    assert model.target_names == ["crude"] and model.classes == ["acq", "crude"]
    # one class per document: the naive Bayes scaling is one of the settings searched
    assert {c["params"]["nb_scaling"] for c in curves} == {False, True}
    # stem x NB scaling x the decision (score > 0 or a cut tuned for accuracy) of words
    # alone, then bigrams and character n-grams beside the best of those, at each decision
    assert len(curves) == 2 * 2 * 2 + 2 + 2
    chars = [c["params"] for c in curves if c["params"]["chars"]]
    assert len(chars) == 2 and result["auto"]["chars_searched"] is True
    best_words = {k: v for k, v in chars[0].items() if k not in ("chars", "rule")}
    assert best_words in [{k: v for k, v in c["params"].items() if k not in ("chars", "rule")}
                          for c in curves if not c["params"]["chars"]]
    assert {c["params"]["rule"] for c in curves} == {"zero", "accuracy"}


def test_auto_fixes_what_the_command_line_gives(capsys, binary_corpus):
    code, out, err = run(capsys, "train", "--corpus", binary_corpus, "--auto", "--no-stem",
                         "--lam", "0.01", "--json")
    assert code == 0, err
    auto = json.loads(out)["auto"]
    assert auto["chosen"]["lam"] == 0.01 and auto["lam_n"] == [pytest.approx(0.01 * 120)]
    assert {c["params"]["stem"] for c in auto["curves"]} == {False}
    code, out, err = run(capsys, "train", "--corpus", binary_corpus, "--auto", "--scoring",
                         "macro-f1", "--json")
    assert code == 0, err
    assert json.loads(out)["auto"]["scoring"] == "macro-f1"


@pytest.mark.parametrize("argv, fragments", [
    (["--method", "mls"], ["--auto searches the SVM", "drop --method mls"]),
    (["--features", "5"], ["--auto keeps every feature"]),
    (["--tune-thresholds", "f1"], ["--auto tunes the thresholds", "drop --tune-thresholds"]),
])
def test_train_auto_refuses_what_it_cannot_do(capsys, multilabel_corpus, argv, fragments):
    code, _, err = run(capsys, "train", "--corpus", multilabel_corpus, "--auto", *argv)
    assert code == EXIT_USAGE
    one_line_error(err, *fragments)


@pytest.fixture
def small_classes_corpus(tmp_path):
    """R52's shape: copper has 2 training documents, platinum 1."""
    docs = [("train", *d) for d in _corpus(60, 0, ["acq", "crude"], False)]
    docs += [("train", "copper mine smelter tonnes said", ["copper"]),
             ("train", "copper price smelter output week", ["copper"]),
             ("train", "platinum ounce mine report", ["platinum"])]
    docs += [("test", *d) for d in _corpus(20, 1, ["acq", "crude"], False)]
    docs += [("test", "copper smelter output", ["copper"]),
             ("test", "platinum ounce price", ["platinum"])]
    return _write(tmp_path / "small.jsonl", docs)


def test_auto_goes_on_with_classes_smaller_than_the_folds_and_says_so_once(
        capsys, small_classes_corpus):
    path = small_classes_corpus
    for command in ("train", "eval"):
        code, out, err = run(capsys, command, "--corpus", path, "--auto", "--json")
        assert code == 0 and "Traceback" not in err, err
        said = [ln for ln in err.splitlines() if "folds" in ln or "least populated" in ln]
        assert said == ["textwin: warning: --auto: class 'platinum' has 1 training document, "
                        "fewer than the 5 folds (the smallest of 2 such classes); the folds "
                        "are stratified as far as they go, and a fold that trains without a "
                        "class never predicts it"], err
        result = json.loads(out)
        row = result if command == "train" else result["methods"][-1]
        assert 0 < row["auto"]["cv_score"] <= 1 and 0 < row["accuracy"] <= 100
        for c in row["auto"]["curves"]:  # defined down to where the early stop ended it
            solved = [v is not None for v in c["scores"]]
            assert all(solved[:3]) and solved == sorted(solved, reverse=True), c


def test_lam_auto_says_once_in_its_words_that_a_class_is_smaller_than_the_folds(
        capsys, small_classes_corpus):
    for command in ("train", "eval"):  # eval: svm, mls and rwinnow-auto choose lambda
        code, _, err = run(capsys, command, "--corpus", small_classes_corpus, "--lam", "auto")
        assert code == 0, err
        said = [ln for ln in err.splitlines() if "folds" in ln]
        assert said == ["textwin: warning: --lam auto: class 'platinum' has 1 training "
                        "document, fewer than the 5 folds (the smallest of 2 such classes); "
                        "some folds train or test without it, which makes its part of the CV "
                        "score noisy"], err


def test_auto_refuses_when_no_class_fills_the_folds(capsys, tmp_path):
    docs = [("train", f"{w} {w} report", [w]) for w in ("grain", "crude", "acq") * 3]
    docs += [("test", "grain crude", ["grain"])]
    path = _write(tmp_path / "tiny.jsonl", docs)
    for command in ("train", "eval"):
        code, _, err = run(capsys, command, "--corpus", path, "--auto")
        assert code == EXIT_USAGE
        one_line_error(err, "--auto: every class has fewer training documents than the 5 "
                            "folds (the largest, 'acq', has 3); add documents, or train "
                            "without --auto")


def test_auto_needs_texts_and_a_corpus(capsys, tmp_path):
    svm = tmp_path / "c.svm"
    svm.write_text("".join(f"{i % 2} 1:{i % 3 + 1} 2:{i % 5 + 1}\n" for i in range(40)))
    code, _, err = run(capsys, "train", "--corpus", svm, "--auto")
    assert code == EXIT_USAGE
    one_line_error(err, "--auto chooses the text features", "use --lam auto")
    code, _, err = run(capsys, "eval", "--micro-breakeven", "--auto")
    assert code == EXIT_USAGE
    one_line_error(err, "--auto is for --corpus")


def test_eval_auto_adds_its_row_and_leaves_winnow_out_by_default(capsys, multilabel_corpus):
    code, out, err = run(capsys, "eval", "--corpus", multilabel_corpus, "--auto", "--json")
    assert code == 0, err
    rows = json.loads(out)["methods"]
    assert [r["method"] for r in rows] == ["svm", "mls", "rwinnow-auto", "perceptron",
                                           "linearsvc", "auto"]
    assert rows[-1]["auto"]["chosen"]["ngrams"] in (1, 2)
    code, out, err = run(capsys, "eval", "--corpus", multilabel_corpus, "--methods", "winnow",
                         "--json")
    assert code == 0 and [r["method"] for r in json.loads(out)["methods"]] == ["winnow"]


@pytest.fixture
def germeval2018():
    """GermEval 2018's folder of train.jsonl and test.jsonl, in the data home's corpora/."""
    import os
    from pathlib import Path

    home = Path(os.environ.get("TEXTWIN_DATA_HOME")
                or Path(__file__).resolve().parents[2] / "shared")
    folder = home / "corpora" / "germeval2018"
    if not (folder / "train.jsonl").is_file():
        if os.environ.get("CI"):
            pytest.fail(f"GermEval 2018 not found in {folder}")
        pytest.skip(f"GermEval 2018 not found in {folder}")
    return folder


def test_auto_is_not_below_the_defaults_on_german_tweets(capsys, germeval2018):
    # the folds' accuracies are noisy there: the plain best lam lost 0.8 points of test
    # accuracy to the defaults; the one-standard-error rule keeps --auto above them
    results = {}
    for extra in ([], ["--auto"]):
        code, out, err = run(capsys, "train", "--corpus", germeval2018, *extra, "--json", "-q")
        assert code == 0, err
        results[bool(extra)] = json.loads(out)
    default, auto = results[False], results[True]
    assert auto["features"]["language"] == default["features"]["language"] == "german"
    assert auto["accuracy"] >= default["accuracy"] > 72.0
    assert auto["macro_f1"] > 64.2  # the best peer's, SGDClassifier's


def test_time_budget_in_a_subprocess_bounds_the_search_and_refuses_what_is_no_budget(
        multilabel_corpus):

    def textwin(*argv):
        done = run_textwin("train", "--corpus", multilabel_corpus, *argv, check=False)
        return done.returncode, done.stdout, done.stderr

    for bad in ("0", "-5", "nan", "soon"):
        code, _, err = textwin("--auto", "--time-budget", bad)
        assert code == EXIT_USAGE and "--time-budget: expected a number of seconds > 0" in err
    code, _, err = textwin("--time-budget", "30")
    assert code == EXIT_USAGE
    one_line_error(err, "--time-budget bounds the search of --auto: add --auto")
    code, out, err = textwin("--auto", "--time-budget", "600", "--json")
    assert code == 0, err
    spent = json.loads(out)["auto"]["time_budget"]
    assert spent["seconds"] == 600 and 0 < spent["spent"] < 600
    assert spent["not_tried"] == [] and spent["cut_short"] == []


def test_auto_says_which_settings_it_dropped_after_their_first_folds(tmp_path):
    """Character n-grams that lose to the words on their first folds are dropped there:
    the line and --json say so, with the folds they were solved on."""
    from _text_corpora import corpus  # tests/ on sys.path

    docs = [("train", t, [str(c)]) for t, c in zip(*corpus(n_per_class=40, noise=0.5, seed=2))]
    docs += [("test", t, [str(c)]) for t, c in zip(*corpus(n_per_class=20, noise=0.5, seed=3))]
    path = _write(tmp_path / "topics.jsonl", docs)
    done = run_textwin("train", "--corpus", path, "--auto", "--no-stem")
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("--auto chose"))
    assert "; dropped after 2 of 5 folds (at most " in line
    assert line.endswith("): words and character 2-5-grams, bias")
    dropped = json.loads(run_textwin("train", "--corpus", path, "--auto", "--no-stem",
                                     "--json").stdout)["auto"]["dropped"]
    assert [(d["params"]["ngrams"], d["params"]["chars"], d["folds"], d["of"])
            for d in dropped] == [(1, [2, 5], 2, 5)]
    assert all(d["score"] < d["best_score"] for d in dropped)


def test_train_auto_vectorizes_no_text_beyond_the_search(capsys, tmp_path, binary_corpus,
                                                         monkeypatch):
    # The search fits its vectorizers on the training texts; after it, only the test
    # texts are mapped to the chosen vocabulary. The command used to vectorize the
    # training texts twice more (before the search, and again with the chosen
    # vectorizer) and the test texts twice.
    from textwin.text import TextVectorizer

    calls = []
    fit_transform, transform = TextVectorizer.fit_transform, TextVectorizer.transform

    def counted(method, name):
        def call(self, docs, *args):
            docs = list(docs)
            calls.append((name, len(docs)))
            return method(self, docs, *args)
        return call

    for name, method in (("fit_transform", fit_transform), ("transform", transform)):
        monkeypatch.setattr(TextVectorizer, name, counted(method, name))
    code, out, err = run(capsys, "train", "--corpus", binary_corpus, "--auto", "--json",
                         "-o", tmp_path / "m.npz")
    assert code == 0, err
    assert json.loads(out)["n_test"] == 60
    # (the search's own fit_transform, where its words cannot serve a setting, is its work)
    assert [c for c in calls if c[0] == "transform"] == [("transform", 60)]


def test_search_texts_samples_the_search_says_so_and_refits_on_every_document(
        capsys, binary_corpus):
    code, out, err = run(capsys, "train", "--corpus", binary_corpus, "--auto",
                         "--search-texts", "60", "--json", "-q")
    assert code == 0, err
    auto = json.loads(out)["auto"]
    assert auto["n_searched"] == 60 and auto["n_train"] == 120
    assert auto["chosen"]["C"] == pytest.approx(1 / (auto["chosen"]["lam"] * 120))
    code, out, err = run(capsys, "train", "--corpus", binary_corpus, "--auto",
                         "--search-texts", "60")
    assert code == 0 and ("searched on a sample of 60 of the 120 training documents "
                          "(--search-texts), fitted on all") in out + err
    code, out, err = run(capsys, "train", "--corpus", binary_corpus, "--auto",
                         "--search-texts", "all", "--json", "-q")
    assert code == 0 and json.loads(out)["auto"]["n_searched"] == 120
    for bad in ("5", "many"):
        with pytest.raises(SystemExit) as exit_:
            main(["train", "--corpus", str(binary_corpus), "--auto", "--search-texts", bad])
        assert exit_.value.code == EXIT_USAGE
        assert "expected a number of texts >= 10" in capsys.readouterr().err
    code, _, err = run(capsys, "train", "--corpus", binary_corpus, "--search-texts", "60")
    assert code == EXIT_USAGE
    one_line_error(err, "--search-texts samples the documents of --auto's search: add --auto")


def test_train_auto_loads_no_feature_selection_of_scikit_learn(tmp_path):
    # the naive Bayes folds need only the ratios (textwin._nb_scaling): scikit-learn's
    # feature selection brings much of scikit-learn with it, 15 MiB of the process's peak
    import subprocess
    import sys

    from _text_corpora import corpus

    texts, labels = corpus(n_per_class=20)
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps({"text": t, "label": str(c)}) + "\n"
                            for t, c in zip(texts, labels)))
    code = ("import sys; from textwin.cli import main; "
            f"main(['train', '--corpus', {str(path)!r}, '--auto', '-q', '--json']); "
            "print(sorted(m for m in sys.modules if m.startswith('sklearn.feature_selection')),"
            " file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=tmp_path)  # the installed textwin, as a user's
    assert json.loads(done.stdout)["auto"]["curves"]  # the search ran, naive Bayes included
    assert any(c["params"]["nb_scaling"] for c in json.loads(done.stdout)["auto"]["curves"])
    assert done.stderr.strip().splitlines()[-1] == "[]"
