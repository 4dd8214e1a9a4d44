"""`textwin inspect` (and predict's --proba, --top-k, --explain), run as users run them:
the command in a subprocess."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from textwin import TextClassifier

REPO = Path(__file__).resolve().parents[1]

TOPICS = {
    "grain": "wheat corn harvest grain crop farmers bushels",
    "money": "bank rates interest loans central dollar deposits",
    "ships": "tanker port cargo vessel shipping freight crew",
}


def textwin(*args, stdin=None):
    """``(exit code, stdout, stderr)`` of the textwin command."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-m", "textwin.cli", *map(str, args)], cwd=REPO,
                          input=stdin, capture_output=True, text=True, env=env, timeout=300)
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
    (["inspect", "README.md"], "not a usable textwin model file", 4),
    (["inspect", "tests"], "is a folder", 2),
])
def test_inspect_errors_are_one_line(argv, fragment, code):
    got, out, err = textwin(*argv)
    assert got == code and out == ""
    assert err.startswith("textwin: error:") and fragment in err and len(err.splitlines()) == 1


def test_inspect_refuses_a_negative_number_of_terms(models):
    code, out, err = textwin("inspect", models["single"][0], "--terms", -1)
    assert code == 2 and "--terms -1" in err and len(err.splitlines()) == 1
