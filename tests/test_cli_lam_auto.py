"""--lam auto, --tune-thresholds, --positive-label and eval --corpus on every task and
corpus layout.

Small corpora written here: two classes, three classes, and three categories of
which a document may have one or two; each as JSON Lines, folders and svmlight.
"""
import json
import warnings

import numpy as np
import pytest

from textwin.cli import EXIT_USAGE

from test_cli import assert_one_line_error as one_line_error  # noqa: E402 (tests/ on sys.path)
from test_cli import run

VOCABULARY = {"red": "apple cherry tomato brick blood ruby",
              "green": "leaf grass lime frog moss jade",
              "blue": "sky sea ocean cobalt denim lake"}
NOISE = "the a of and to in is it that was".split()
TASKS = {"binary": ["red", "green"], "multiclass": ["red", "green", "blue"],
         "multilabel": ["red", "green", "blue"]}


def _documents(task, n, seed):
    """(words, labels) pairs: each label's words and some noise; multi-label
    documents have one or two labels (a label word list per label)."""
    rng = np.random.default_rng(seed)
    cats = TASKS[task]
    docs = []
    for i in range(n):
        labels = [cats[i % len(cats)]]
        if task == "multilabel" and i % 3 == 0:
            labels.append(cats[(i + 1) % len(cats)])
        words = [w for c in labels for w in rng.choice(VOCABULARY[c].split(), 3)]
        words += list(rng.choice(NOISE, 4)) + list(rng.choice(" ".join(
            VOCABULARY.values()).split(), 1))  # a word of any class: not separable by one word
        docs.append((words, labels))
    return docs


def _write_jsonl(root, task):
    path = root / "corpus.jsonl"
    with open(path, "w") as fh:
        for split, n, seed in (("train", 60, 0), ("test", 30, 1)):
            for words, labels in _documents(task, n, seed):
                fh.write(json.dumps({"text": " ".join(words), "labels": labels,
                                     "split": split}) + "\n")
    return ["--corpus", path]


def _write_folders(root, task):
    for split, n, seed in (("train", 60, 0), ("test", 30, 1)):
        for cat in TASKS[task]:
            (root / split / cat).mkdir(parents=True)
        for i, (words, labels) in enumerate(_documents(task, n, seed)):
            for cat in labels:  # a multi-label document: the same file in each folder
                (root / split / cat / f"{i}.txt").write_text(" ".join(words))
    return ["--corpus", root / "train", "--test-corpus", root / "test"]


def _write_svmlight(root, task):
    terms = sorted({w for v in VOCABULARY.values() for w in v.split()} | set(NOISE))
    index = {t: j + 1 for j, t in enumerate(terms)}
    cats = TASKS[task]
    for split, n, seed in (("train", 60, 0), ("test", 30, 1)):
        with open(root / f"{split}.svm", "w") as fh:
            for words, labels in _documents(task, n, seed):
                counts = {}
                for w in words:
                    counts[index[w]] = counts.get(index[w], 0) + 1
                features = " ".join(f"{j}:{c}" for j, c in sorted(counts.items()))
                fh.write(",".join(str(cats.index(c) + 1) for c in labels) + f" {features}\n")
    return ["--corpus", root / "train.svm", "--test-corpus", root / "test.svm"]


LAYOUTS = {"jsonl": _write_jsonl, "folders": _write_folders, "svmlight": _write_svmlight}


def _train(capsys, tmp_path, task, layout, *extra):
    corpus = LAYOUTS[layout](tmp_path, task)
    code, out, err = run(capsys, "train", *corpus, *extra, "--json")
    assert code == 0, err
    assert "Traceback" not in err
    return json.loads(out), err


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("task", sorted(TASKS))
def test_lam_auto_on_every_task_and_layout(capsys, tmp_path, task, layout):
    result, _ = _train(capsys, tmp_path, task, layout, "--lam", "auto")
    assert result["task"] == task
    cv = result["lam_by_cv"]
    assert cv["scoring"] == ("micro-f1" if task == "multilabel" else "accuracy")
    # one lam for the model, named for every category (both classes of a two-class corpus)
    lams = {row["category"]: row["lam"] for row in result["categories"]}
    assert len(lams) == len(TASKS[task]) and len(set(lams.values())) == 1
    # the grid passes through the default lam, 1/n (when the search went that far down)
    n = result["n_train"]
    if min(cv["lams"]) * n < 1:
        assert min(abs(lam * n - 1) for lam in cv["lams"]) < 1e-9
    if task == "binary":  # one problem, reported with the F1 of the positive class
        positive = result["categories"][1]
        assert result["positive_f1"] == positive["f1"]


@pytest.mark.parametrize("task", sorted(TASKS))
def test_the_heading_names_the_lam_chosen(capsys, tmp_path, task):
    # it said "(here lam=auto)", the one setting a user of --lam auto wants to read
    corpus = _write_jsonl(tmp_path, task)
    code, out, err = run(capsys, "train", *corpus, "--lam", "auto", "--json")
    assert code == 0, err
    result = json.loads(out)
    (lam,) = set(result["lam_by_cv"]["lam"].values())
    code, out, err = run(capsys, "train", *corpus, "--lam", "auto")
    assert code == 0, err
    heading = out.splitlines()[0]
    assert (f"(here lam={lam:g} (C = {1 / (lam * result['n_train']):.3g}) "
            "by cross-validation)") in heading
    assert "auto" not in heading


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("task", sorted(TASKS))
@pytest.mark.parametrize("lam", [None, "auto"])
def test_tune_thresholds_on_every_task_and_layout(capsys, tmp_path, task, layout, lam):
    extra = ["--tune-thresholds", "f1"] + ([] if lam is None else ["--lam", lam])
    result, _ = _train(capsys, tmp_path, task, layout, *extra, "-o", tmp_path / "m.npz")
    thresholds = [float(row["threshold"]) for row in result["categories"]]  # "-inf": all
    tuning = result["tuning"]
    assert tuning["objective"] == "f1"
    assert tuning["metric"] == {"binary": "the positive class's F1", "multiclass": "macro-F1",
                                "multilabel": "each category's F1"}[task]
    # --lam auto tunes two-class and multi-label thresholds in its own folds
    assert tuning["folds"] == (result["lam_by_cv"]["folds"] if lam and task != "multiclass"
                               else 3)
    if task == "binary":  # the second class's threshold t; the first's is -t
        assert thresholds[0] == -thresholds[1]
    if task != "multiclass":  # (this corpus's classes need no offset)
        assert any(t != 0 for t in thresholds)
    from textwin.persistence import load_model

    model = load_model(tmp_path / "m.npz")
    assert model.thresholds.size == (1 if task == "binary" else 3)
    np.testing.assert_allclose(model.thresholds, thresholds[-model.thresholds.size:])


@pytest.mark.parametrize("task", ["binary", "multiclass"])
def test_tune_thresholds_for_accuracy_on_single_label_corpora(capsys, tmp_path, task):
    result, _ = _train(capsys, tmp_path, task, "jsonl", "--tune-thresholds", "accuracy")
    assert result["tuning"]["metric"] == "accuracy"
    assert len(result["categories"]) == len(TASKS[task])
    assert all(np.isfinite(row["threshold"]) for row in result["categories"])


@pytest.mark.parametrize("task, objective, takes", [
    ("multiclass", "breakeven", "give f1 or accuracy"),
    ("multilabel", "accuracy", "give f1 or breakeven"),
])
def test_tune_thresholds_refuses_an_objective_the_task_has_no_use_for(capsys, tmp_path, task,
                                                                      objective, takes):
    corpus = _write_jsonl(tmp_path, task)
    code, _, err = run(capsys, "train", *corpus, "--tune-thresholds", objective)
    assert code == EXIT_USAGE
    one_line_error(err, f"--tune-thresholds {objective} is for", takes)
    assert "training svm" not in err  # before any training


def _imbalanced_corpus(root):
    """Three classes, blue rare (10 of 90): at a large lambda its one-vs-rest scores
    stay low, and the argmax gives no document blue."""
    rng = np.random.default_rng(0)
    words = " ".join(VOCABULARY.values()).split()
    path = root / "imbalanced.jsonl"
    with open(path, "w") as fh:
        for split in ("train", "test"):
            for cat, n in (("red", 40), ("green", 40), ("blue", 10)):
                for _ in range(n):
                    text = [*rng.choice(VOCABULARY[cat].split(), 2), *rng.choice(NOISE, 4),
                            *rng.choice(words, 1)]
                    fh.write(json.dumps({"text": " ".join(text), "labels": [cat],
                                         "split": split}) + "\n")
    return path


def test_tuned_class_offsets_lift_an_underscored_class_and_predict_applies_them(capsys,
                                                                                tmp_path):
    path = _imbalanced_corpus(tmp_path)
    model_path = tmp_path / "m.npz"
    base = ["train", "--corpus", path, "--lam", "0.05", "--json"]
    code, out, err = run(capsys, *base)
    assert code == 0, err
    plain = json.loads(out)
    code, out, err = run(capsys, *base, "--tune-thresholds", "accuracy", "-o", model_path)
    assert code == 0, err
    tuned = json.loads(out)
    thresholds = {row["category"]: row["threshold"] for row in tuned["categories"]}
    # blue, under-scored, gets a threshold below the others': more of its documents
    assert thresholds["blue"] < min(thresholds["red"], thresholds["green"]) - 0.3
    assert tuned["accuracy"] > plain["accuracy"] + 3
    blue = next(row for row in tuned["categories"] if row["category"] == "blue")
    assert blue["recall"] > next(row["recall"] for row in plain["categories"]
                                 if row["category"] == "blue") + 30

    # predict gives the class of the highest score less its threshold, not the argmax
    test_dir = tmp_path / "test"
    test_dir.mkdir()
    truth = {}
    for i, line in enumerate(open(path)):
        doc = json.loads(line)
        if doc["split"] == "test":
            (test_dir / f"{i:03d}.txt").write_text(doc["text"])
            truth[f"{i:03d}.txt"] = doc["labels"][0]
    code, out, err = run(capsys, "predict", model_path, test_dir, "--json")
    assert code == 0, err
    # --threshold is for binary (also single-label) and multi-label models: the warning
    # named single-label models; the offsets stay
    code, ignored, err = run(capsys, "predict", model_path, test_dir, "--json",
                             "--threshold", "5")
    assert (code, ignored) == (0, out)
    assert err.startswith("textwin: warning: --threshold does not apply to a multi-class "
                          "model: "), err
    rows = json.loads(out)
    names = sorted(thresholds)
    for row in rows:
        offset = [row["scores"][c] - thresholds[c] for c in names]
        assert row["labels"] == [names[int(np.argmax(offset))]]
    changed = [row for row in rows
               if row["labels"][0] != max(row["scores"], key=row["scores"].get)]
    assert changed  # the thresholds decide some documents
    right = sum(truth[row["id"].rsplit("/", 1)[-1]] == row["labels"][0] for row in rows)
    assert 100 * right / len(rows) == pytest.approx(tuned["accuracy"], abs=1e-3)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("task", sorted(TASKS))
def test_eval_corpus_with_lam_auto_on_every_task_and_layout(capsys, tmp_path, task, layout):
    corpus = LAYOUTS[layout](tmp_path, task)
    code, out, err = run(capsys, "eval", *corpus, "--methods", "svm,mls", "--lam", "auto",
                         "--json")
    assert code == 0, err
    rows = json.loads(out)["methods"]
    assert [r["method"] for r in rows] == ["svm", "mls"]
    assert all("lam_by_cv" in r for r in rows)


def test_scoring_chooses_what_the_cross_validation_maximises(capsys, tmp_path):
    result, _ = _train(capsys, tmp_path, "multilabel", "jsonl", "--lam", "auto", "--scoring",
                       "macro-f1")
    assert result["lam_by_cv"]["scoring"] == "macro-f1"
    code, _, err = run(capsys, "train", "--corpus", tmp_path / "corpus.jsonl", "--scoring",
                       "accuracy")
    assert code == EXIT_USAGE
    one_line_error(err, "--scoring", "add --lam auto or --auto")


def test_lam_auto_warnings_name_the_categories_and_the_options(capsys, tmp_path, monkeypatch):
    from textwin.model_selection import (DualGaussSeidelClassifierCV, LamGridWarning,
                                         PathConvergenceWarning)

    fit = DualGaussSeidelClassifierCV.fit

    def warning_fit(self, *args, **kwargs):
        est = fit(self, *args, **kwargs)
        warnings.warn(LamGridWarning("X: the lam of {problems} is the smallest of the grid "
                                     "(1e-05). Search further with {search_lower}.", [0, 2]))
        warnings.warn(PathConvergenceWarning("X: 3 path points missed {tol} ({problem} at "
                                             "lam=1e-05). Raise {max_epochs}; the smallest lams "
                                             "are the hardest{avoid_smallest}.", [1]))
        return est

    monkeypatch.setattr(DualGaussSeidelClassifierCV, "fit", warning_fit)
    corpus = _write_jsonl(tmp_path, "multilabel")
    code, _, err = run(capsys, "train", *corpus, "--lam", "auto")
    assert code == 0, err
    lines = [ln for ln in err.splitlines() if "smallest" in ln]
    assert len(lines) == 2, err
    assert "categories blue, red" in lines[0] and "a smaller --lam given by hand" in lines[0]
    assert "green at lam" in lines[1] and "--epochs" in lines[1] and "--tol" in lines[1]
    assert "column" not in err and "lam_min_ratio" not in err and "max_epochs" not in err


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_positive_label_chooses_the_positive_class_of_a_two_class_corpus(capsys, tmp_path,
                                                                         layout):
    default, _ = _train(capsys, tmp_path, "binary", layout)
    first, second = [row["category"] for row in default["categories"]]  # sorted order
    assert default["positive_label"] == second
    model_path = tmp_path / "m.npz"
    code, out, err = run(capsys, "train", *_corpus_args(tmp_path, layout), "--positive-label",
                         first, "--tune-thresholds", "f1", "-o", model_path, "--json")
    assert code == 0, err
    flipped = json.loads(out)
    assert flipped["positive_label"] == first
    assert [row["category"] for row in flipped["categories"]] == [second, first]
    assert flipped["positive_f1"] == flipped["categories"][1]["f1"]
    # the positive class's threshold is the one tuned, the other's its negation
    assert flipped["categories"][1]["threshold"] == -flipped["categories"][0]["threshold"]
    from textwin.persistence import load_model

    model = load_model(model_path)
    assert model.classes == [second, first] and model.target_names == [first]
    assert model.metadata["positive_label"] == first
    np.testing.assert_allclose(model.thresholds, [flipped["categories"][1]["threshold"]])
    code, out, err = run(capsys, "eval", *_corpus_args(tmp_path, layout), "--methods", "svm",
                         "--positive-label", first, "--json")
    assert code == 0, err
    assert json.loads(out)["positive_label"] == first


def _corpus_args(root, layout):
    """The options of the corpus LAYOUTS[layout] wrote in ``root``."""
    return {"jsonl": ["--corpus", root / "corpus.jsonl"],
            "folders": ["--corpus", root / "train", "--test-corpus", root / "test"],
            "svmlight": ["--corpus", root / "train.svm", "--test-corpus",
                         root / "test.svm"]}[layout]


@pytest.mark.parametrize("argv, fragments", [
    (["--positive-label", "blue"], ["--positive-label 'blue' is not a class", "green or red"]),
    (["--task", "multilabel", "--positive-label", "red"],
     ["--positive-label is for a two-class corpus", "multilabel"]),
])
def test_positive_label_refuses_a_name_or_a_corpus_it_cannot_apply_to(capsys, tmp_path, argv,
                                                                      fragments):
    corpus = _write_jsonl(tmp_path, "binary")
    for command in ("train", "eval"):
        code, _, err = run(capsys, command, *corpus, *argv)
        assert code == EXIT_USAGE
        one_line_error(err, *fragments)
    code, _, err = run(capsys, "train", "--category", "acq", "--positive-label", "acq")
    assert code == EXIT_USAGE
    one_line_error(err, "--positive-label is for --corpus")


@pytest.mark.parametrize("task, first", [("binary", "red"), ("multiclass", "blue")])
def test_degenerate_solution_warning_names_the_method_and_the_category(capsys, tmp_path, task,
                                                                       first):
    # rwinnow-auto at the lam its folds choose here: no training example reaches its margin
    corpus = _write_jsonl(tmp_path, task)
    code, _, err = run(capsys, "eval", *corpus, "--methods", "rwinnow-auto", "--lam", "auto")
    assert code == 0, err
    lines = [ln for ln in err.splitlines() if "is degenerate" in ln]
    assert len(lines) == 1, err
    assert lines[0].startswith("textwin: warning: rwinnow-auto: the solution of ")
    assert f"the first ({first}): " in lines[0]
    assert lines[0].endswith("is the cross-validation's choice; a smaller --lam given by "
                             "hand avoids it.")
    assert "Classifier" not in lines[0] and "class 0" not in lines[0] and "(now " not in lines[0]


@pytest.mark.parametrize("layout", ["folders", "jsonl"])
def test_auto_with_tuned_class_offsets_on_a_multi_class_corpus(capsys, tmp_path, layout):
    result, _ = _train(capsys, tmp_path, "multiclass", layout, "--auto", "--tune-thresholds",
                       "accuracy", "-o", tmp_path / "m.npz")
    assert "auto" in result
    assert result["tuning"] == {"objective": "accuracy", "metric": "accuracy", "folds": 3}
    from textwin.persistence import load_model

    thresholds = [row["threshold"] for row in result["categories"]]
    np.testing.assert_allclose(load_model(tmp_path / "m.npz").thresholds, thresholds)
    # two classes and multi-label categories: --auto chooses their thresholds itself
    for task in ("binary", "multilabel"):
        (tmp_path / task).mkdir()
        corpus = _write_jsonl(tmp_path / task, task)
        code, _, err = run(capsys, "train", *corpus, "--auto", "--tune-thresholds", "f1")
        assert code == EXIT_USAGE
        one_line_error(err, "--auto tunes the thresholds", "drop --tune-thresholds")


def test_auto_tunes_class_offsets_past_a_class_of_one_training_document(capsys, tmp_path):
    # a tuning fold trains without the class: it was 'textwin: error: --tune-thresholds:
    # shape mismatch: value array of shape (3,28) could not be broadcast ...'
    corpus = _write_jsonl(tmp_path, "multiclass")
    with open(corpus[1], "a") as fh:
        fh.write(json.dumps({"text": "violet lilac violet the of", "labels": ["violet"],
                             "split": "train"}) + "\n")
    code, out, err = run(capsys, "train", *corpus, "--auto", "--tune-thresholds", "f1",
                         "--json")
    assert code == 0, err
    thresholds = {row["category"]: row["threshold"] for row in json.loads(out)["categories"]}
    assert set(thresholds) == {"red", "green", "blue", "violet"}
    assert thresholds["violet"] == 0
    assert any(ln.startswith("textwin: warning: --tune-thresholds: ") and "violet (1)" in ln
               for ln in err.splitlines()), err


def test_the_search_and_solver_warnings_name_the_method_not_a_class(capsys, tmp_path):
    # they said "DualGaussSeidelClassifierCV: ..." and "DualSVM did not converge ..."
    result, err = _train(capsys, tmp_path, "multiclass", "jsonl", "--lam", "auto",
                         "--epochs", "1", "--tol", "1e-9")
    lines = [line for line in err.splitlines() if "warning:" in line]
    assert any("svm, --lam auto: " in line and "path points stopped" in line for line in lines)
    assert any("svm did not converge on" in line for line in lines), err
    assert not any("Classifier" in line or "DualSVM" in line for line in lines), err


@pytest.mark.parametrize("task", sorted(TASKS))
def test_a_model_of_lam_auto_records_the_lam_chosen_and_inspect_reads_it(capsys, tmp_path,
                                                                         task):
    # inspect stopped on such a model with a traceback: the file said only lam "auto"
    corpus = _write_jsonl(tmp_path, task)
    model = tmp_path / "m.npz"
    code, out, err = run(capsys, "train", *corpus, "--lam", "auto", "-o", model, "--json")
    assert code == 0, err
    (lam,) = set(json.loads(out)["lam_by_cv"]["lam"].values())
    code, out, err = run(capsys, "inspect", model, "--json")
    assert code == 0 and "Traceback" not in err, err
    assert set(json.loads(out)["lam"]) == {lam}
    code, out, err = run(capsys, "inspect", model)
    assert code == 0, err
    assert f"{lam:.3g}" in next(ln for ln in out.splitlines() if ln.startswith("lam"))


def test_lam_auto_proba_on_classes_one_of_which_has_no_training_document(capsys, tmp_path):
    # the model refitted at the shared choice has no lam_: --proba's folds read "auto"
    path = tmp_path / "corpus.jsonl"
    with open(path, "w") as fh:
        for split, n, seed in (("train", 60, 0), ("test", 30, 1)):
            for i, (words, labels) in enumerate(_documents("multiclass", n, seed)):
                if split == "test" and i % 5 == 0:
                    labels = ["purple"]  # a class of test documents only
                fh.write(json.dumps({"text": " ".join(words), "labels": labels,
                                     "split": split}) + "\n")
    code, out, err = run(capsys, "train", "--corpus", path, "--lam", "auto", "--proba",
                         "--json")
    assert code == 0 and "Traceback" not in err, err
    result = json.loads(out)
    assert result["log_loss"] > 0 and set(result["lam_by_cv"]["lam"]) == {"blue", "green", "purple", "red"}
