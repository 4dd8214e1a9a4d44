"""Explanations: the terms of a text that moved its score, as the text writes them; the
largest weights of a model."""
import numpy as np
import pytest
from numpy.testing import assert_allclose

from textwin import TextClassifier
from textwin.explanations import top_terms
from textwin.persistence import load_model
from textwin.text import TextVectorizer

TEXTS = ["wheat harvest grain", "corn prices grain exports", "bank rates rise",
         "central bank loans", "grain crop harvest", "bank interest rates fall",
         "cargo ship port", "tanker port strike", "ship freight rates"]
LABELS = ["grain", "grain", "money", "money", "grain", "money", "ships", "ships", "ships"]


def _independent_contributions(clf, text, k):
    """w_kj x_j of every term of ``text``, from the vectorizer's row and coef_ alone."""
    row = clf.vectorizer_.transform([text])
    names = clf.vectorizer_.get_feature_names_out()
    return {names[j]: clf.coef_[k, j] * v for j, v in zip(row.indices, row.data)}


def test_contributions_and_intercept_add_up_to_the_score():
    clf = TextClassifier(fit_intercept=True).fit(TEXTS, LABELS)
    texts = ["The Bank lifts RATES; banks' rates up", "Grain ships leave port", "nothing known"]
    scores = clf.decision_function(texts)
    for text, why, row in zip(texts, clf.explain(texts, n_terms=2), scores):
        (label, e), = why.items()
        k = list(clf.classes_).index(label)
        assert label == clf.predict([text])[0]
        total = e["intercept"] + sum(t["contribution"] for t in e["terms"]) + e["rest"]
        assert_allclose([e["score"], total], row[k], rtol=1e-12)
        assert_allclose(e["intercept"], clf.intercept_[k])
        for t in e["terms"]:
            assert_allclose(t["contribution"], t["weight"] * t["value"])


def test_the_strongest_terms_as_the_text_writes_them():
    clf = TextClassifier().fit(TEXTS, LABELS)
    text = "The Bank lifts RATES; banks' rates up, harvest"
    e = clf.explain([text], n_terms=2, labels=[["money"]])[0]["money"]
    expected = _independent_contributions(clf, text, list(clf.classes_).index("money"))
    best = sorted(expected, key=expected.get, reverse=True)[:2]
    assert [t["term"] for t in e["terms"]] == best
    words = {t["term"]: t["words"] for t in e["terms"]}
    assert words["bank"] == ["Bank", "banks"]     # each writing once, in order
    assert words["rate"] == ["RATES", "rates"]    # the words, not the stem
    assert_allclose(e["rest"], sum(expected.values()) - sum(expected[b] for b in best))


def test_a_binary_models_first_class_is_explained_by_its_negative_terms():
    texts, labels = TEXTS[:6], LABELS[:6]
    clf = TextClassifier().fit(texts, labels)
    assert clf.task_ == "binary"
    e = clf.explain(["corn harvest and bank"], n_terms=3)[0]
    assert list(e) == ["grain"]
    contributions = [t["contribution"] for t in e["grain"]["terms"]]
    assert contributions == sorted(contributions) and contributions[0] < 0
    assert_allclose(e["grain"]["score"], clf.decision_function(["corn harvest and bank"])[0])


def test_bigrams_are_the_text_from_their_first_word_to_their_last(tmp_path):
    clf = TextClassifier(ngrams=2).fit(TEXTS, LABELS)
    clf.save(tmp_path / "m.npz")
    why = load_model(tmp_path / "m.npz").explain(["Interest, RATES fall"], n_terms=50,
                                                labels=[["money"]])[0]["money"]
    words = {t["term"]: t["words"] for t in why["terms"]}
    assert words["interest rate"] == ["Interest, RATES"]
    assert words["rate fall"] == ["RATES fall"]
    assert_allclose(why["score"], clf.decision_function(["Interest, RATES fall"])[0][1])


def test_multilabel_explains_the_labels_given():
    y = [[label] + (["ships"] if "rates" in t else []) for t, label in zip(TEXTS, LABELS)]
    clf = TextClassifier().fit(TEXTS, y)
    assert clf.task_ == "multilabel"
    texts = ["freight rates", "wheat"]
    given = clf.predict(texts)
    for row, why in zip(given, clf.explain(texts)):
        assert sorted(why) == sorted(clf.classes_[np.flatnonzero(row)])


def test_occurrences_find_every_writing_of_a_term():
    vec = TextVectorizer(ngram_range=(1, 2)).fit(["ponies running fast"])
    found = vec.occurrences("Ponies RUNNING; a pony runs")
    names = vec.get_feature_names_out()
    assert {names[j]: w for j, w in found.items()} == {
        "poni": ["Ponies", "pony"], "run": ["RUNNING", "runs"], "poni run": ["Ponies RUNNING", "pony runs"]}


def test_top_terms_are_the_largest_weights_of_each_sign():
    coef = np.array([[0.5, -2.0, 0.0, 3.0, -0.1], [0.0, 0.0, 0.0, 0.0, 1.0]])
    terms = ["a", "b", "c", "d", "e"]
    top = top_terms(coef, terms, 2)
    assert top[0] == {"positive": [("d", 3.0), ("a", 0.5)], "negative": [("b", -2.0), ("e", -0.1)]}
    assert top[1] == {"positive": [("e", 1.0)], "negative": []}


def test_explain_refuses_what_it_cannot_explain():
    clf = TextClassifier().fit(TEXTS, LABELS)
    with pytest.raises(ValueError, match="n_terms"):
        clf.explain(["bank"], n_terms=0)
    with pytest.raises(ValueError, match="not one of the classes"):
        clf.explain(["bank"], labels=[["sport"]])
