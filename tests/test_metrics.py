"""Break-even point, its thresholds, and precision/recall/F1 (docs/mathematics.md §11)."""
import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import precision_recall_curve, precision_recall_fscore_support

from textwin.metrics import (
    breakeven_point,
    breakeven_points,
    breakeven_threshold,
    breakeven_thresholds,
    macro_breakeven_point,
    micro_breakeven_point,
    precision_recall_f1,
)


def permutation_average_bep(y, s):
    """Mean over every ranking consistent with the scores of (positives in top P)/P.

    Enumerates all orderings of the documents and keeps those sorted by decreasing
    score, i.e. every way of ordering the tied blocks, each equally likely.
    """
    y, s = np.asarray(y), np.asarray(s)
    P = int(y.sum())
    total, count = 0.0, 0
    for order in itertools.permutations(range(len(y))):
        if all(s[order[i]] >= s[order[i + 1]] for i in range(len(y) - 1)):
            total += y[list(order[:P])].sum() / P
            count += 1
    return total / count


@pytest.fixture
def no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


# ------------------------------------------------------------- without ties
@pytest.mark.parametrize("seed", range(5))
def test_bep_is_the_top_p_point_of_sklearn_pr_curve(seed, no_warnings):
    rng = np.random.default_rng(seed)
    y = (rng.random(60) < 0.3).astype(int)
    s = rng.normal(size=60) + y  # continuous: no ties
    P = y.sum()
    precision, recall, thresholds = precision_recall_curve(y, s)
    at_top_p = np.flatnonzero(thresholds == np.sort(s)[::-1][P - 1])
    assert len(at_top_p) == 1
    i = at_top_p[0]
    assert precision[i] == pytest.approx(recall[i])
    assert breakeven_point(y, s) == pytest.approx(precision[i], abs=1e-15)
    assert 0 < breakeven_point(y, s) < 1  # a real, non-trivial value


def test_bep_ignores_spurious_zero_crossings_of_the_pr_curve():
    # precision == recall == 0 at the top-1 cutoff; the BEP is at the top-2 cutoff.
    y = [0, 1, 1, 0]
    s = [4.0, 3.0, 2.0, 1.0]
    assert breakeven_point(y, s) == 0.5


# ----------------------------------------------------------------- with ties
def test_hand_made_tie_straddling_rank_p():
    # Ranks: 5 (pos) | 4 4 4 4 (neg, pos, pos, neg) | 1 (neg). P = 3.
    # One document above the tie (positive); the tie block has m = 4 documents,
    # p = 2 positives, s = 3 - 1 = 2 places in the top 3: TP = 1 + 2*2/4 = 2.
    y = [1, 0, 1, 1, 0, 0]
    s = [5, 4, 4, 4, 4, 1]
    assert breakeven_point(y, s) == pytest.approx(2 / 3, abs=1e-15)
    assert breakeven_point(y, s) == pytest.approx(permutation_average_bep(y, s), abs=1e-15)


def test_hand_made_tie_starting_at_rank_p():
    # P = 2. Above: 9 (neg). Tie at 3 of m = 3 (pos, neg, pos), s = 1 place:
    # TP = 0 + 2*1/3.
    y = [0, 1, 0, 1, 0]
    s = [9, 3, 3, 3, 0]
    assert breakeven_point(y, s) == pytest.approx((2 / 3) / 2, abs=1e-15)


def test_hand_made_tie_inside_top_p_is_exact():
    # P = 3; the tie at 7 (two docs) lies inside the top 3 entirely: s = m.
    y = [1, 1, 0, 1, 0]
    s = [7, 7, 6, 2, 1]
    assert breakeven_point(y, s) == pytest.approx(2 / 3, abs=1e-15)


@pytest.mark.parametrize("seed", range(12))
def test_ties_match_brute_force_over_all_orderings(seed):
    rng = np.random.default_rng(seed)
    n = 7
    y = (rng.random(n) < 0.45).astype(int)
    if y.sum() == 0:
        y[0] = 1
    s = rng.integers(0, 3, n).astype(float)  # three levels: heavy ties
    assert breakeven_point(y, s) == pytest.approx(permutation_average_bep(y, s), abs=1e-14)


def test_order_of_documents_does_not_matter():
    rng = np.random.default_rng(3)
    y = (rng.random(50) < 0.3).astype(int)
    s = rng.integers(0, 5, 50)
    perm = rng.permutation(50)
    assert breakeven_point(y, s) == breakeven_point(y[perm], s[perm])


# ------------------------------------------------------- micro, macro, vectors
def test_micro_and_macro_by_hand(no_warnings):
    # Category 0: the tie example above, TP = 2 of P = 3.
    # Category 1: P = 2, ranking pos, neg, pos, ...: TP = 1 of P = 2.
    # Category 2: no positive: excluded from the macro mean, adds 0/0 to micro.
    Y = np.array([[1, 1, 0], [0, 0, 0], [1, 1, 0], [1, 0, 0], [0, 0, 0], [0, 0, 0]])
    S = np.array([[5, 9, 1], [4, 8, 2], [4, 7, 3], [4, 1, 4], [4, 2, 5], [1, 3, 6]], float)
    assert micro_breakeven_point(Y, S) == pytest.approx((2 + 1) / (3 + 2), abs=1e-15)
    assert macro_breakeven_point(Y, S) == pytest.approx((2 / 3 + 1 / 2) / 2, abs=1e-15)
    assert_allclose(breakeven_points(Y, S, zero_division=0.0), [2 / 3, 1 / 2, 0.0])


def test_micro_is_pooled_tp_over_pooled_p_not_mean_of_beps():
    rng = np.random.default_rng(4)
    Y = (rng.random((80, 6)) < rng.random(6) * 0.5).astype(int)
    Y[0] = 1
    S = rng.integers(0, 6, (80, 6)) + Y * rng.random((80, 6))
    bep = breakeven_points(Y, S)
    P = Y.sum(axis=0)
    assert micro_breakeven_point(Y, S) == pytest.approx((bep * P).sum() / P.sum(), abs=1e-14)
    assert micro_breakeven_point(Y, S) != pytest.approx(bep.mean(), abs=1e-6)
    assert macro_breakeven_point(Y, S) == pytest.approx(bep.mean(), abs=1e-14)
    # Each column agrees with the one-category function.
    for c in range(6):
        assert bep[c] == pytest.approx(breakeven_point(Y[:, c], S[:, c]), abs=1e-15)


def test_input_encodings_agree():
    rng = np.random.default_rng(5)
    Y = (rng.random((30, 4)) < 0.4).astype(int)
    Y[0] = 1
    S = rng.integers(-2, 3, (30, 4)).astype(float)
    ref = breakeven_points(Y, S)
    assert_array_equal(breakeven_points(2 * Y - 1, S), ref)  # -1/1 labels
    assert_array_equal(breakeven_points(Y.astype(bool), S), ref)
    assert_array_equal(breakeven_points(sp.csr_matrix(Y), sp.csr_matrix(S)), ref)
    assert_array_equal(breakeven_points(Y.tolist(), S.tolist()), ref)


# -------------------------------------------------------------- degenerate
def test_no_positive_warns_and_returns_nan():
    with pytest.warns(UndefinedMetricWarning, match="without positives"):
        assert np.isnan(breakeven_point([0, 0, 0], [1.0, 2.0, 3.0]))
    with pytest.warns(UndefinedMetricWarning, match=r"categories \[1\]"):
        bep = breakeven_points([[1, 0], [0, 0]], [[1.0, 2.0], [0.0, 1.0]])
    assert bep[0] == 1.0 and np.isnan(bep[1])
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(micro_breakeven_point(np.zeros((3, 2)), np.ones((3, 2))))
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(macro_breakeven_point(np.zeros((3, 2)), np.ones((3, 2))))


@pytest.mark.parametrize("value", [0.0, 1.0, np.nan])
def test_zero_division_value_is_silent(value, no_warnings):
    got = breakeven_point([0, 0], [1.0, 2.0], zero_division=value)
    assert got == value or (np.isnan(value) and np.isnan(got))


def test_all_positive_and_constant_scores(no_warnings):
    assert breakeven_point([1, 1, 1], [3.0, -1.0, 0.0]) == 1.0
    # Constant scores: every ordering equally likely, BEP = P / n (prevalence).
    assert breakeven_point([1, 0, 0, 1, 0], [2.0] * 5) == pytest.approx(2 / 5, abs=1e-15)
    assert breakeven_point([1], [0.0]) == 1.0
    assert breakeven_point([0, 1], [np.inf, -np.inf]) == 0.0  # infinities rank fine


# ----------------------------------------------------------------- thresholds
@pytest.mark.parametrize("seed", range(4))
def test_threshold_selects_exactly_top_p_without_ties(seed, no_warnings):
    rng = np.random.default_rng(seed)
    Y = (rng.random((40, 5)) < 0.3).astype(int)
    Y[0] = 1
    S = rng.normal(size=(40, 5))
    t = breakeven_thresholds(Y, S)
    P = Y.sum(axis=0)
    assert_array_equal((S > t).sum(axis=0), P)
    # At that cutoff precision == recall == BEP for every category.
    res = precision_recall_f1(Y, Y_score=S, threshold=t)
    bep = breakeven_points(Y, S)
    assert_allclose(res.precision, bep, atol=1e-15)
    assert_allclose(res.recall, bep, atol=1e-15)
    # Midpoint: strictly between the P-th and (P+1)-th scores.
    sd = -np.sort(-S, axis=0)
    for c in range(5):
        assert sd[P[c], c] < t[c] < sd[P[c] - 1, c]


def test_threshold_with_ties_goes_to_the_nearer_side():
    # P = 3, sorted 5 | 4 4 4 4 | 1: above the tie 1 doc (2 short), with it 5 (2 over):
    # equally near, so the tie is excluded: t between 5 and 4.
    assert 4 <= breakeven_threshold([1, 0, 1, 1, 0, 0], [5, 4, 4, 4, 4, 1]) < 5
    # P = 4, sorted 5 | 4 4 4 | 1: above 1 doc (3 short), with the tie 4 (exact).
    t = breakeven_threshold([1, 0, 1, 1, 1, 0], [5, 4, 4, 4, 1, 0])
    assert 1 <= t < 4
    # P = 2, sorted 9 9 9 9 | 1: above none (2 short), with the tie 4 (2 over): exclude.
    assert breakeven_threshold([1, 1, 0, 0, 0], [9, 9, 9, 9, 1]) == np.inf


def test_threshold_edge_cases(no_warnings):
    assert breakeven_threshold([0, 0], [1.0, 2.0]) == np.inf  # P = 0: select nothing
    assert breakeven_threshold([1, 1], [1.0, 2.0]) == -np.inf  # P = n: select all
    t = breakeven_threshold([1, 0], [np.inf, 1.0])  # midpoint is inf: fall back to 1.0
    assert np.array([np.inf, 1.0]).__gt__(t).tolist() == [True, False]
    t = breakeven_threshold([1, 0], [1.0, np.nextafter(1.0, 0)])  # adjacent floats
    assert (np.array([1.0, np.nextafter(1.0, 0)]) > t).tolist() == [True, False]


# -------------------------------------------------------- precision / recall / F1
@pytest.mark.parametrize("seed", range(3))
def test_prf_matches_sklearn(seed, no_warnings):
    rng = np.random.default_rng(seed)
    Y = (rng.random((50, 6)) < 0.2).astype(int)
    Y[:, 5] = 0  # a category without positives: recall 0/0
    S = rng.normal(size=(50, 6)) + Y
    pred = (S > 0.5).astype(int)
    pred[:, 4] = 0  # a category without predictions: precision 0/0
    res = precision_recall_f1(Y, pred, zero_division=0.0)
    p, r, f, support = precision_recall_fscore_support(Y, pred, zero_division=0.0)
    assert_allclose(res.precision, p)
    assert_allclose(res.recall, r)
    assert_allclose(res.f1, f)
    assert_array_equal(res.support, support)
    for avg in ("micro", "macro"):
        p, r, f, _ = precision_recall_fscore_support(Y, pred, average=avg, zero_division=0.0)
        assert res[f"{avg}_precision"] == pytest.approx(p, abs=1e-15)
        assert res[f"{avg}_recall"] == pytest.approx(r, abs=1e-15)
        assert res[f"{avg}_f1"] == pytest.approx(f, abs=1e-15)
    # Scores with a threshold are the same as thresholded predictions.
    from_scores = precision_recall_f1(Y, Y_score=S, threshold=0.5, zero_division=0.0)
    from_pred = precision_recall_f1(Y, (S > 0.5).astype(int), zero_division=0.0)
    for key in ("tp", "fp", "fn", "precision", "recall", "f1"):
        assert_array_equal(from_scores[key], from_pred[key])


def test_prf_threshold_is_strict_and_per_category():
    Y = np.array([[1, 0], [0, 1], [1, 1]])
    S = np.array([[0.0, 2.0], [1.0, 1.0], [2.0, 3.0]])
    res = precision_recall_f1(Y, Y_score=S)  # threshold 0: score 0 is negative
    assert_array_equal(res.tp, [1, 2]) and assert_array_equal(res.fp, [1, 1])
    res = precision_recall_f1(Y, Y_score=S, threshold=[0.5, 2.5])
    assert_array_equal(res.tp, [1, 1])
    assert_array_equal(res.fp, [1, 0])
    assert_array_equal(res.fn, [1, 1])


def test_prf_undefined_values_default_to_nan_with_warning():
    Y = np.array([[1, 0], [0, 0]])
    pred = np.array([[0, 0], [0, 0]])
    with pytest.warns(UndefinedMetricWarning):
        res = precision_recall_f1(Y, pred)
    assert np.isnan(res.precision).all()  # nothing predicted in either category
    assert res.recall[0] == 0.0 and np.isnan(res.recall[1])
    assert res.f1[0] == 0.0 and np.isnan(res.f1[1])  # F1 = 2TP/(2TP+FP+FN)
    assert res.macro_f1 == 0.0  # nan entries are skipped
    assert res.micro_recall == 0.0
    # A category with nothing to find and nothing predicted does not drag the macro
    # average down: it is left out, not counted as 0.
    with pytest.warns(UndefinedMetricWarning):
        res = precision_recall_f1(Y, np.array([[1, 0], [0, 0]]))
    assert res.macro_precision == res.macro_recall == res.macro_f1 == 1.0
    assert precision_recall_f1(Y, np.array([[1, 0], [0, 0]]), zero_division=0.0).macro_f1 == 0.5


# ----------------------------------------------------------------- bad input
@pytest.mark.parametrize("func", [breakeven_points, micro_breakeven_point,
                                  macro_breakeven_point, breakeven_thresholds])
def test_bad_input_is_a_clear_error(func):
    Y = np.array([[1, 0], [0, 1], [1, 1]])
    S = np.ones((3, 2))
    with pytest.raises(ValueError, match="shape"):
        func(Y, S[:2])
    with pytest.raises(ValueError, match="NaN"):
        func(Y, np.where(Y == 1, np.nan, 0.0))
    with pytest.raises(ValueError, match="binary labels"):
        func(Y * 2, S)
    with pytest.raises(ValueError, match="NaN"):
        func(np.where(Y == 1, np.nan, 0.0), S)
    with pytest.raises(ValueError, match="1-d .* or 2-d"):
        func(np.ones((2, 2, 2)), np.ones((2, 2, 2)))
    with pytest.raises(ValueError, match="no document"):
        func(np.ones((0, 2)), np.ones((0, 2)))
    with pytest.raises(ValueError, match="numeric"):
        func(Y, np.full((3, 2), "a"))


def test_bad_arguments():
    with pytest.raises(ValueError, match="one category"):
        breakeven_point([[1, 0]], [[1.0, 0.0]])
    with pytest.raises(ValueError, match="one category"):
        breakeven_threshold([[1, 0]], [[1.0, 0.0]])
    with pytest.raises(ValueError, match="zero_division"):
        breakeven_point([1, 0], [1.0, 0.0], zero_division="ignore")
    with pytest.raises(ValueError, match="zero_division"):
        breakeven_point([1, 0], [1.0, 0.0], zero_division=0.5)
    with pytest.raises(ValueError, match="exactly one"):
        precision_recall_f1([1, 0])
    with pytest.raises(ValueError, match="exactly one"):
        precision_recall_f1([1, 0], [1, 0], Y_score=[1.0, 0.0])
    with pytest.raises(ValueError, match="must match"):
        precision_recall_f1([1, 0], [1, 0, 1])
    with pytest.raises(ValueError, match="one per category"):
        precision_recall_f1([[1, 0]], Y_score=[[1.0, 0.0]], threshold=[0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="threshold contains NaN"):
        precision_recall_f1([1, 0], Y_score=[1.0, 0.0], threshold=np.nan)


def test_f1_from_counts_is_scikit_learns_f1_and_says_0_over_0():
    import warnings as _warnings

    from sklearn.exceptions import UndefinedMetricWarning
    from sklearn.metrics import f1_score

    from textwin.metrics import f1_from_counts

    rng = np.random.default_rng(0)
    T, P = rng.random((40, 6)) < 0.3, rng.random((40, 6)) < 0.4
    tp, fp, fn = (T & P).sum(0), (~T & P).sum(0), (T & ~P).sum(0)
    np.testing.assert_allclose(f1_from_counts(tp, tp + fp, tp + fn),
                               f1_score(T, P, average=None), rtol=0, atol=1e-15)
    assert f1_from_counts(0, 0, 0, zero_division=0.0) == 0.0
    assert np.isnan(f1_from_counts([0, 1], [0, 1], [0, 1], zero_division=np.nan)[0])
    with _warnings.catch_warnings(record=True) as caught:
        _warnings.simplefilter("always")
        assert np.isnan(f1_from_counts(0, 0, 0))
    assert issubclass(caught[0].category, UndefinedMetricWarning)
