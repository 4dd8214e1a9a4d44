"""What comes after training, run as users run them (the command in a subprocess):
`textwin inspect`, predict's --proba, --top-k and --explain, train --proba."""
import json
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from textwin import TextClassifier
from _textwin_process import run_textwin  # tests/ on sys.path

REPO = Path(__file__).resolve().parents[1]

TOPICS = {
    "grain": "wheat corn harvest grain crop farmers bushels",
    "money": "bank rates interest loans central dollar deposits",
    "ships": "tanker port cargo vessel shipping freight crew",
}


def textwin(*args, stdin=None):
    """``(exit code, stdout, stderr)`` of the textwin command."""
    proc = run_textwin(*args, input=stdin, timeout=300, check=False)
    return proc.returncode, proc.stdout, proc.stderr


def _texts(n, seed=0):
    rng = np.random.default_rng(seed)
    names = sorted(TOPICS)
    texts, labels = [], []
    for i in range(n):
        topic, other = names[i % 3], names[(i + 1) % 3]
        words = rng.choice(TOPICS[topic].split(), 5).tolist() + \
            rng.choice(TOPICS[other].split(), 2).tolist()
        texts.append(" ".join(rng.permutation(words)))
        labels.append(topic)
    return texts, labels


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """A calibrated single-label model, a multi-label one, and what they were fitted on."""
    folder = tmp_path_factory.mktemp("models")
    texts, labels = _texts(150)
    single = TextClassifier(probability=True, fit_intercept=True).fit(texts, labels)
    single.save(folder / "single.npz")
    tags = [[label] + (["rates"] if "rates" in t else []) for t, label in zip(texts, labels)]
    multi = TextClassifier().fit(texts, tags)
    multi.save(folder / "multi.npz")
    return {"single": (folder / "single.npz", single), "multi": (folder / "multi.npz", multi)}


def test_inspect_json_is_what_the_model_is(models):
    path, clf = models["single"]
    code, out, err = textwin("inspect", path, "--terms", 3, "--json")
    assert code == 0, err
    r = json.loads(out)
    assert r["task"] == "multiclass" and r["classes"] == ["grain", "money", "ships"]
    assert r["features"]["terms"] == len(clf.vectorizer_.vocabulary_)
    assert r["features"]["weighting"] == "tfidf" and r["features"]["stem"] is True
    assert_allclose(r["lam"], clf.lam_)
    assert r["thresholds"] == {"grain": 0.0, "money": 0.0, "ships": 0.0}
    assert r["calibration"]["method"] == "sigmoid"
    assert_allclose(r["calibration"]["a"], clf.calibration_.a)
    names = clf.vectorizer_.get_feature_names_out()
    for k, c in enumerate(clf.classes_):
        w = clf.coef_[k]
        top = r["top_terms"][c]
        assert [t["term"] for t in top["positive"]] == names[np.argsort(-w)[:3]].tolist()
        assert [t["term"] for t in top["negative"]] == names[np.argsort(w)[:3]].tolist()
        assert_allclose([t["weight"] for t in top["positive"]], np.sort(w)[::-1][:3])


def test_inspect_shows_the_loss_of_a_preset_trained_by_the_command(tmp_path):
    # a preset (svm: DualSVM) fixes its loss, which get_params omits: before, the model
    # file and inspect named no loss for it
    path = tmp_path / "c.jsonl"
    texts, labels = _texts(60)
    path.write_text("".join(json.dumps({"text": t, "labels": [c]}) + "\n"
                            for t, c in zip(texts, labels)))
    for method, loss in (("svm", "hinge"), ("mls", "squared_hinge")):
        model = tmp_path / f"{method}.npz"
        code, _, err = textwin("train", "--corpus", path, "--method", method, "-q", "-o", model)
        assert code == 0, err
        code, out, err = textwin("inspect", model, "--json")
        assert code == 0, err
        settings = json.loads(out)["settings"]
        assert settings["loss"] == loss and settings["regularizer"] == "square", settings
        code, out, _ = textwin("inspect", model)
        assert loss in out


def test_inspect_prints_a_summary_and_the_terms(models):
    path, clf = models["multi"]
    code, out, err = textwin("inspect", path, "--terms", 2)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("model") and str(path) in lines[0]
    assert any(l.startswith("task") and "multilabel" in l for l in lines)
    assert any(l.startswith("probabilities") and "--proba" in l for l in lines)
    k = list(clf.classes_).index("rates")
    best = clf.vectorizer_.get_feature_names_out()[np.argmax(clf.coef_[k])]
    at = lines.index("rates")
    assert lines[at + 1].startswith(f"  + {best} ")


@pytest.mark.parametrize("argv, fragment, code", [
    (["inspect", "nowhere.npz"], "model file not found", 3),
    (["inspect", REPO / "README.md"], "not a usable textwin model file", 4),
    (["inspect", REPO / "tests"], "is a folder", 2),
])
def test_inspect_errors_are_one_line(argv, fragment, code):
    got, out, err = textwin(*argv)
    assert got == code and out == ""
    assert err.startswith("textwin: error:") and fragment in err and len(err.splitlines()) == 1


def test_inspect_refuses_a_negative_number_of_terms(models):
    code, _, err = textwin("inspect", models["single"][0], "--terms", -1)
    assert code == 2 and "--terms -1" in err and len(err.splitlines()) == 1


# -- predict --proba, --top-k, --explain ----------------------------------------------

DOCS = "The BANK raised rates and loans\nwheat harvest, Corn crop\ncargo tanker at the port\n"


def _predict_json(path, *options):
    code, out, err = textwin("predict", path, "--json", *options, stdin=DOCS)
    assert code == 0, err
    return json.loads(out)


def test_predict_proba_is_the_models_and_sums_to_one(models):
    path, clf = models["single"]
    got = _predict_json(path, "--proba")
    expected = clf.predict_proba(DOCS.splitlines())
    for doc, row in zip(got, expected):
        assert list(doc["probabilities"]) == ["grain", "money", "ships"]
        assert_allclose(list(doc["probabilities"].values()), row, rtol=1e-12)
        assert_allclose(sum(doc["probabilities"].values()), 1.0)
    _, out, _ = textwin("predict", path, "--proba", stdin=DOCS)
    lines = out.splitlines()
    assert lines[0] == "labels\tgrain\tmoney\tships\tdocument"
    assert_allclose([float(x) for x in lines[1].split("\t")[1:4]], expected[0], atol=1e-6)


def test_top_k_ranks_the_classes_the_first_being_the_label_given(models):
    path, clf = models["single"]
    plain = _predict_json(path)
    by_score = _predict_json(path, "--top-k", 3)
    got = _predict_json(path, "--top-k", 3, "--proba")
    scores = clf.decision_function(DOCS.splitlines())
    for doc, ranked, one, row in zip(got, by_score, plain, scores):
        assert ranked["labels"] == [clf.classes_[j] for j in np.argsort(-row)]
        # --proba: the label given first, then the likeliest of the others
        assert doc["labels"][0] == one["labels"][0]
        p = doc["probabilities"]
        assert doc["labels"][1:] == sorted(doc["labels"][1:], key=lambda c: -p[c])
    assert [len(d["labels"]) for d in _predict_json(path, "--top-k", 9)] == [3, 3, 3]


def test_top_k_of_a_multilabel_model_is_at_most_k_of_its_labels(models):
    path, _ = models["multi"]
    plain = _predict_json(path)
    for doc, one in zip(_predict_json(path, "--top-k", 1), plain):
        assert len(doc["labels"]) == min(1, len(one["labels"]))
        assert set(doc["labels"]) <= set(one["labels"])
        if one["labels"]:
            assert doc["labels"][0] == max(one["labels"], key=one["scores"].get)


def test_explain_adds_up_to_the_score_in_the_documents_own_words(models):
    path, _ = models["single"]
    for doc in _predict_json(path, "--explain", 2):
        (label, why), = doc["explanation"].items()
        assert label == doc["labels"][0]
        total = why["intercept"] + sum(t["contribution"] for t in why["terms"]) + why["rest"]
        assert_allclose([why["score"], total], doc["scores"][label], rtol=1e-9)
        assert len(why["terms"]) == 2
        assert all(t["contribution"] == max(t["contribution"], 0) for t in why["terms"])
    first = _predict_json(path, "--explain", 5)[0]["explanation"]["money"]["terms"]
    words = {w for t in first for w in t["words"]}
    assert {"BANK", "rates", "loans"} <= words      # as the document writes them
    code, out, err = textwin("predict", path, "--explain", 1, stdin=DOCS)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[2].startswith("  money: ") and "score" in lines[2]


@pytest.mark.parametrize("options, fragment", [
    (["--top-k", "0"], "--top-k 0: give a number of labels of 1 or more"),
    (["--explain", "-2"], "--explain -2"),
])
def test_bad_counts_are_refused_in_one_line(models, options, fragment):
    code, out, err = textwin("predict", models["single"][0], *options, stdin=DOCS)
    assert code == 2 and out == "" and fragment in err and len(err.splitlines()) == 1


def test_proba_without_calibration_says_how_to_get_it(models):
    code, out, err = textwin("predict", models["multi"][0], "--proba", stdin=DOCS)
    assert code == 2 and out == ""
    assert "textwin train --proba" in err and len(err.splitlines()) == 1


def _jsonl_corpus(path, n, seed):
    """``n`` texts of :func:`_texts` as a JSON Lines corpus at ``path``."""
    texts, labels = _texts(n, seed=seed)
    path.write_text("".join(json.dumps({"text": t, "label": c}) + "\n"
                            for t, c in zip(texts, labels)))
    return path


def test_train_proba_writes_a_calibrated_model(tmp_path):
    corpus = _jsonl_corpus(tmp_path / "news.jsonl", 240, seed=3)
    model = tmp_path / "news.npz"
    code, out, err = textwin("train", "--corpus", corpus, "--proba", "-o", model, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert 0 < result["log_loss"] < 0.5 * np.log(3)
    code, out, err = textwin("inspect", model, "--json")
    assert json.loads(out)["calibration"]["folds"] == 5
    code, out, err = textwin("predict", model, "--proba", "--json", stdin=DOCS)
    assert code == 0, err
    for doc in json.loads(out):
        assert_allclose(sum(doc["probabilities"].values()), 1.0)
        assert max(doc["probabilities"], key=doc["probabilities"].get) == doc["labels"][0]


def test_a_binary_model_prints_the_probability_of_the_label_it_gives(tmp_path):
    texts, labels = _texts(120, seed=4)
    keep = [i for i, c in enumerate(labels) if c != "ships"]
    clf = TextClassifier(probability=True).fit([texts[i] for i in keep],
                                               [labels[i] for i in keep])
    clf.save(tmp_path / "two.npz")
    code, out, err = textwin("predict", tmp_path / "two.npz", "--proba", stdin=DOCS)
    assert code == 0, err
    P = clf.predict_proba(DOCS.splitlines())
    for line, p, label in zip(out.splitlines(), P, clf.predict(DOCS.splitlines())):
        shown, given, _ = line.split("\t")
        assert given == label
        assert_allclose(float(shown), p[list(clf.classes_).index(label)], atol=1e-6)


def test_an_auto_model_has_probabilities_from_its_own_search(tmp_path):
    corpus = _jsonl_corpus(tmp_path / "news.jsonl", 150, seed=5)
    model = tmp_path / "auto.npz"
    code, _, err = textwin("train", "--corpus", corpus, "--auto", "-o", model, "-q")
    assert code == 0, err
    code, out, err = textwin("inspect", model, "--json")
    calibration = json.loads(out)["calibration"]
    assert calibration["method"] == "sigmoid" and calibration["folds"] == 5
    code, out, err = textwin("predict", model, "--proba", "--json", stdin=DOCS)
    assert code == 0, err
    for doc in json.loads(out):
        assert_allclose(sum(doc["probabilities"].values()), 1.0)
