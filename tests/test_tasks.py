"""Task detection and single-/multi-label scoring against scikit-learn's metrics."""
import numpy as np
import pytest
from sklearn.metrics import accuracy_score, f1_score

from textwin.metrics import breakeven_points
from textwin.tasks import detect_task, predicted_classes, score_task


def _onehot(y, k):
    Y = np.zeros((len(y), k), dtype=np.uint8)
    Y[np.arange(len(y)), y] = 1
    return Y


def test_detect_task():
    three = _onehot([0, 1, 2, 1], 3)
    assert detect_task(three, three) == "multiclass"
    assert detect_task(_onehot([0, 1, 1], 2), _onehot([1, 0], 2)) == "binary"
    assert detect_task(three, three, task="multilabel") == "multilabel"
    several = three.copy()
    several[0, 1] = 1
    assert detect_task(three, several) == "multilabel"  # one test document with two
    none = three.copy()
    none[2] = 0
    assert detect_task(none) == "multilabel"
    assert detect_task(three[:, :1]) == "multilabel"  # one category: in it or not
    with pytest.raises(ValueError, match="1 document has none and 1 has several"):
        detect_task(none, several, task="multiclass")
    with pytest.raises(ValueError, match="task="):
        detect_task(three, task="binary")


def test_ties_go_to_the_first_class():
    scores = np.array([[0.5, 0.5, 0.1], [0.2, 0.9, 0.9], [1.0, 1.0, 1.0], [-1, 0, -2.0]])
    np.testing.assert_array_equal(predicted_classes(scores), [0, 1, 0, 1])
    # thresholds are subtracted before the comparison
    np.testing.assert_array_equal(predicted_classes(scores, [0, 0, -0.5]), [2, 2, 2, 1])


def test_multiclass_scores_equal_sklearn():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, 200)
    y[:5] = 3
    scores = rng.normal(size=(200, 4)) + 1.5 * _onehot(y, 4)
    scores[:, 2] -= 5  # class 2 is never predicted: its precision is undefined
    summary, rows = score_task("multiclass", _onehot(y, 4), scores)
    pred = scores.argmax(axis=1)
    assert summary["accuracy"] == pytest.approx(accuracy_score(y, pred), abs=1e-15)
    assert summary["macro_f1"] == pytest.approx(f1_score(y, pred, average="macro",
                                                         zero_division=0), abs=1e-15)
    assert summary["micro_f1"] == pytest.approx(f1_score(y, pred, average="micro"), abs=1e-15)
    np.testing.assert_allclose(rows["f1"], f1_score(y, pred, average=None, zero_division=0))
    assert np.isnan(rows["precision"][2]) and rows["recall"][2] == 0
    np.testing.assert_allclose(rows["breakeven"], breakeven_points(_onehot(y, 4), scores))


def test_multilabel_summary():
    rng = np.random.default_rng(1)
    Y = (rng.random((150, 3)) < 0.3).astype(np.uint8)
    scores = rng.normal(size=(150, 3)) + 2 * Y - 0.5
    summary, rows = score_task("multilabel", Y, scores)
    pred = (scores > 0).astype(int)
    assert summary["micro_f1"] == pytest.approx(f1_score(Y, pred, average="micro"))
    assert summary["macro_f1"] == pytest.approx(f1_score(Y, pred, average="macro"))
    beps = breakeven_points(Y, scores)
    assert summary["macro_breakeven"] == pytest.approx(beps.mean())
    assert set(summary) == {"micro_breakeven", "macro_breakeven", "micro_f1", "macro_f1"}


# --- the decision rule -------------------------------------------------------------------

def test_decide_is_the_rule_of_each_task():
    from textwin.tasks import NEVER, decide, never_given

    rng = np.random.default_rng(0)
    S = rng.normal(size=(50, 4))
    t = np.array([0.1, -0.2, 0.0, 0.3])
    # multi-class: the class of the highest score less its threshold, ties to the first
    expected = [max(range(4), key=lambda k: (S[i, k] - t[k], -k)) for i in range(50)]
    assert decide("multiclass", S, t).tolist() == expected
    assert decide("multiclass", np.zeros((3, 4))).tolist() == [0, 0, 0]
    # multi-label and two classes: above the threshold, not at it
    assert np.array_equal(decide("multilabel", S, t), S > t)
    assert decide("binary", np.array([0.5, 0.0, -1.0]), [0.0]).tolist() == [True, False, False]
    # one threshold per problem along axis 1 of (documents, problems, lams)
    S3 = rng.normal(size=(10, 4, 3))
    assert np.array_equal(decide("multilabel", S3, t), S3 > t[None, :, None])
    assert np.array_equal(decide("multiclass", S3, t), np.argmax(S3 - t[None, :, None], axis=1))
    # a class without training documents is never given, whatever its score
    absent = never_given(np.eye(4, dtype=int)[[0, 1, 3]], t)
    assert absent[2] == NEVER and np.array_equal(np.delete(absent, 2), np.delete(t, 2))
    S[:, 2] = 1e300
    assert 2 not in decide("multiclass", S, absent)
    assert not decide("multilabel", S, absent)[:, 2].any()


def test_ranked_labels_put_the_decision_first_then_the_scores_less_thresholds():
    from textwin.tasks import decide, ranked_labels

    scores = np.array([[1.0, 3.0, 2.0], [0.0, 0.0, 0.0], [2.0, 1.0, 0.5]])
    thresholds = np.array([0.0, 0.0, -1.0])
    ranked = ranked_labels(scores, thresholds, "multiclass", 3)
    assert ranked == [[1, 2, 0], [2, 0, 1], [0, 2, 1]]  # margins 2, 1, 1.5 last
    assert [r[0] for r in ranked] == decide("multiclass", scores, thresholds).tolist()
    assert ranked_labels(scores, thresholds, "multiclass", 1) == [[1], [2], [0]]
    # multi-label: at most k of the categories given, the furthest above first
    assert ranked_labels(scores - 0.5, thresholds, "multilabel", 2) == [[1, 2], [2], [0, 2]]
    assert ranked_labels(np.array([[0.5], [-1.0]]), np.array([0.0]), "binary", 2) == [
        [1, 0], [0, 1]]


def test_ranked_labels_rank_by_the_probabilities_after_the_label_given():
    # predict --proba --top-k: per-class sigmoids may order the others unlike the scores
    from textwin.tasks import ranked_labels

    scores = np.array([[2.0, 1.0, 0.5], [0.1, 0.3, 0.2]])
    P = np.array([[0.5, 0.1, 0.4], [0.5, 0.3, 0.2]])
    assert ranked_labels(scores, 0.0, "multiclass", 3) == [[0, 1, 2], [1, 2, 0]]
    # the label given stays first, even where another is likelier
    assert ranked_labels(scores, 0.0, "multiclass", 3, by=P) == [[0, 2, 1], [1, 0, 2]]
    assert ranked_labels(scores, 0.0, "multilabel", 3, by=P) == [[0, 2, 1], [0, 1, 2]]
