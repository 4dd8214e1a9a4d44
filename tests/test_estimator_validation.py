"""The estimators validate as the command line does: each bad text or label is named
by its index with what to do; ``task`` is checked and honoured; ``lam`` takes only
what it documents; class names that a model file or predict cannot tell from no
label are refused at fit. Each message is what a wrong implementation gets wrong
(numpy's "'<' not supported", "could not convert string to float", a silent fit).
"""
import numpy as np
import pytest

from textwin import TextClassifier, TextClassifierCV

TEXTS = ["alpha beta gamma", "one two three", "alpha gamma delta", "two three four"] * 6
LABELS = ["a", "b", "a", "b"] * 6


def _refused(match, X=TEXTS, y=LABELS, **params):
    with pytest.raises(ValueError, match=match):
        TextClassifier(**params).fit(X, y)


def test_a_text_that_is_not_a_str_is_named_by_its_index():
    bad = list(TEXTS)
    bad[5] = None
    _refused(r"^TextClassifier: text 5 is None, not a str: give every text as a str", X=bad)
    bad[5] = b"one two"
    _refused(r"text 5 is a bytes, not a str: decode it first", X=bad)
    with pytest.raises(ValueError, match=r"text 5 is None"):
        TextClassifier().fit(TEXTS, LABELS).predict(TEXTS[:5] + [None])


def test_a_one_column_dataframe_names_its_column():
    pd = pytest.importorskip("pandas")
    _refused(r"a table of 1 column \(text\); give its column of texts, e\.g\. X\['text'\]",
             X=pd.DataFrame({"text": TEXTS}))


def test_a_missing_label_is_named_by_its_index():
    y = list(LABELS)
    y[7] = None
    _refused(r"^y\[7\] is None, not a label", y=y)
    _refused(r"^y\[2\] is None", y=[[lab] for lab in LABELS[:2]] + [[None]] + [
        [lab] for lab in LABELS[3:]])


@pytest.mark.parametrize("lam", ["auto", "0.1", -1.0, 0.0, float("nan"), [[1.0]]])
def test_lam_takes_only_what_it_documents(lam):
    _refused(r"^lam=.*TextClassifier takes a positive number", lam=lam)


def test_lam_auto_points_at_the_cross_validated_estimator():
    _refused(r"lam='auto' is TextClassifierCV's", lam="auto")


@pytest.mark.parametrize("estimator", [TextClassifier, TextClassifierCV])
def test_an_unknown_task_is_refused_for_every_kind_of_labels(estimator):
    for y in (LABELS, [[lab] for lab in LABELS]):
        with pytest.raises(ValueError, match=r"task='foo' must be 'multiclass', 'multilabel'"):
            estimator(task="foo").fit(TEXTS, y)


def test_task_multilabel_is_honoured_for_one_label_per_text():
    clf = TextClassifier(task="multilabel").fit(TEXTS, LABELS)
    assert clf.task_ == "multilabel" and clf.coef_.shape[0] == 2  # a problem per class
    assert np.asarray(clf.predict(TEXTS[:2])).shape == (2, 2)
    assert TextClassifier().fit(TEXTS, LABELS).task_ == "binary"


@pytest.mark.parametrize("name", ["", "-", " - "])
def test_class_names_that_read_as_no_label_are_refused(name):
    y = [name if lab == "a" else lab for lab in LABELS]
    _refused(r"a class is named .*cannot tell apart from no label: rename it", y=y)
    _refused(r"a class is named", y=[[lab] for lab in y])


def test_numeric_labels_of_label_lists_are_ordered_as_numbers():
    y = [[2] if lab == "a" else [10] for lab in LABELS]
    assert TextClassifier().fit(TEXTS, y).classes_.tolist() == [2, 10]  # str order: 10, 2
