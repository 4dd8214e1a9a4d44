"""Text-categorization metrics: break-even point, precision, recall and F1 (docs/mathematics.md §11).

Break-even point (BEP) of one category with ``P`` positive test documents: rank the
documents by decreasing score and call the top ``P`` positive. Then there are as many
false positives as false negatives, so precision equals recall and both equal::

    BEP = (positives among the top P) / P

When ``m`` documents tie at the score of rank ``P``, ``p`` of them positive, and ``s``
of those ``m`` places fall inside the top ``P``, the tied block contributes the
average over all orderings of the tie, ``p * s / m`` (so ``TP`` may be fractional).
The BEP is computed from this formula, never by searching the precision-recall curve
for ``precision == recall``: that equality also holds at 0 for any cutoff without a
true positive, and no threshold reaches it when a tie straddles rank ``P``.

Micro-averaged BEP: ``sum_c TP_c / sum_c P_c``. Macro-averaged BEP: the mean of the
per-category BEPs over the categories with at least one positive document.

Undefined values (``zero_division``): a category with no positive document has no
BEP (``0 / 0``), and precision, recall or F1 may be ``0 / 0`` too. Every function
takes ``zero_division``: ``"warn"`` (default) returns ``nan`` and emits
:class:`sklearn.exceptions.UndefinedMetricWarning` naming the categories; a number
(``0.0``, ``1.0`` or ``np.nan``) is returned silently instead. Unlike scikit-learn,
where ``"warn"`` means 0, the default here is ``nan`` so that an undefined value can
never pass for a measured zero; macro averages skip ``nan`` entries.
"""
import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils import Bunch

__all__ = [
    "breakeven_point",
    "breakeven_points",
    "micro_breakeven_point",
    "macro_breakeven_point",
    "breakeven_threshold",
    "breakeven_thresholds",
    "f1_thresholds",
    "accuracy_thresholds",
    "macro_f1_thresholds",
    "THRESHOLD_TUNERS",
    "precision_recall_f1",
    "f1_from_counts",
]


# --------------------------------------------------------------------------- checks
def _as_2d(name, A):
    """Dense 2-d view of a 1-d/2-d array-like or sparse matrix; 1-d becomes a column."""
    if sp.issparse(A):
        A = A.toarray()
    A = np.asarray(A)
    if A.ndim == 1:
        A = A[:, None]
    if A.ndim != 2:
        raise ValueError(
            f"{name} must be 1-d (one category) or 2-d (documents x categories), "
            f"got shape {A.shape}."
        )
    if A.shape[0] == 0:
        raise ValueError(f"{name} has no document (shape {A.shape}).")
    return A


def _check_indicator(name, Y):
    """Return a bool (n_samples, n_categories) array; 1 (or True) is positive.

    Accepted values: {0, 1}, {-1, 1} or booleans; anything else is an error.
    """
    Y = _as_2d(name, Y)
    if Y.dtype.kind == "b":
        return Y
    if Y.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be numeric 0/1 (or -1/1) labels, got dtype {Y.dtype}.")
    if Y.dtype.kind == "f" and np.isnan(Y).any():
        raise ValueError(f"{name} contains NaN; labels must be 0/1 (or -1/1).")
    values = np.unique(Y)
    if not (np.isin(values, (0, 1)).all() or np.isin(values, (-1, 1)).all()):
        raise ValueError(
            f"{name} must hold binary labels 0/1 or -1/1 (1 = positive), "
            f"found values {values[:5].tolist()}{'...' if len(values) > 5 else ''}."
        )
    return Y == 1


def _check_scores(name, S, shape):
    """Return float64 scores of the same shape as the labels; NaN is an error."""
    S = _as_2d(name, S)
    if S.shape != shape:
        raise ValueError(
            f"{name} has shape {S.shape} but the labels have shape {shape}; "
            "give one score per document and category."
        )
    if S.dtype.kind not in "iufb":
        raise ValueError(f"{name} must be numeric, got dtype {S.dtype}.")
    S = S.astype(np.float64, copy=False)
    if np.isnan(S).any():
        rows, cols = np.nonzero(np.isnan(S))
        raise ValueError(
            f"{name} contains NaN (first at document {rows[0]}, category {cols[0]}); "
            "a ranking needs a score for every document."
        )
    return S


def _check_zero_division(zero_division):
    if isinstance(zero_division, str):
        if zero_division != "warn":
            raise ValueError(
                f'zero_division must be "warn", 0.0, 1.0 or np.nan, got {zero_division!r}.'
            )
    elif not (
        isinstance(zero_division, numbers.Real)
        and (np.isnan(zero_division) or zero_division in (0, 1))
    ):
        raise ValueError(
            f'zero_division must be "warn", 0.0, 1.0 or np.nan, got {zero_division!r}.'
        )


def _divide(num, den, zero_division, what):
    """``num / den`` elementwise; where ``den == 0`` apply the zero_division rule."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    undefined = den == 0
    out = np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=~undefined)
    if undefined.any():
        if zero_division == "warn":
            where = np.flatnonzero(undefined)
            where_text = (
                f" (categories {where[:10].tolist()}{'...' if len(where) > 10 else ''})"
                if out.ndim
                else ""
            )
            warnings.warn(
                f"{what} is undefined (0/0){where_text}; returning nan. Pass "
                "zero_division=0.0, 1.0 or np.nan to choose the value and silence this.",
                UndefinedMetricWarning,
                stacklevel=3,
            )
            out[undefined] = np.nan
        else:
            out[undefined] = zero_division
    return out[()] if out.ndim == 0 else out


def f1_from_counts(tp, n_predicted, n_true, *, zero_division="warn", what="F1"):
    """F1 from counts, ``2 TP / (predicted + true)``, elementwise: the one formula of F1
    in textwin. Where no document is true or predicted (0/0), ``zero_division`` (as in
    the module's other functions; ``what`` names the figure in the warning)."""
    tp = np.asarray(tp, dtype=np.float64)
    return _divide(2 * tp, np.asarray(n_predicted, dtype=np.float64)
                   + np.asarray(n_true, dtype=np.float64), zero_division, what)


# ----------------------------------------------------------------- break-even core
def _breakeven_counts(T, S):
    """Per-category ``TP`` at the break-even cutoff and ``P``, from one sort.

    Parameters
    ----------
    T : ndarray of bool, shape (n_samples, n_categories)
        True where the document belongs to the category.
    S : ndarray of float64, same shape
        Scores; larger means more likely positive.

    Returns
    -------
    tp : ndarray of shape (n_categories,)
        Positives among the top ``P``, averaged over orderings of the tie at rank
        ``P`` (``p * s / m``); 0 where ``P == 0``.
    P : ndarray of shape (n_categories,)
        Number of positive documents.
    sorted_desc : ndarray of shape (n_samples, n_categories)
        Each column's scores in decreasing order (reused for thresholds).
    """
    n_samples, n_cat = S.shape
    P = T.sum(axis=0)
    sorted_desc = -np.sort(-S, axis=0)  # one sort per category
    cols = np.arange(n_cat)
    has_pos = P > 0
    # s_P: score at rank P (1-based); categories without positives get +inf so that
    # nothing counts (their top-0 is empty).
    s_P = np.full(n_cat, np.inf)
    s_P[has_pos] = sorted_desc[P[has_pos] - 1, cols[has_pos]]
    above = S > s_P  # strictly above the cutoff score: all inside the top P
    tied = S == s_P  # the block of m documents at the cutoff score
    g = above.sum(axis=0)
    m = tied.sum(axis=0)
    tp_above = (above & T).sum(axis=0)
    p = (tied & T).sum(axis=0)
    s = P - g  # places of the top P taken by the tied block (0 <= s <= m)
    tp = tp_above + np.divide(p * s, m, out=np.zeros(n_cat), where=m > 0)
    return tp, P, sorted_desc


def _validate_pair(y_true, y_score, zero_division):
    _check_zero_division(zero_division)
    T = _check_indicator("y_true", y_true)
    S = _check_scores("y_score", y_score, T.shape)
    return T, S


def breakeven_points(Y_true, Y_score, *, zero_division="warn"):
    """Break-even point of every category (docs/mathematics.md §11).

    Parameters
    ----------
    Y_true : {array-like, sparse matrix} of shape (n_samples, n_categories)
        Indicator of true categories: 0/1, -1/1 or bool (1 = positive). A 1-d array
        is one category.
    Y_score : {array-like, sparse matrix} of shape (n_samples, n_categories)
        Scores, e.g. ``decision_function`` output; larger means more positive.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Value for a category without positive documents; ``"warn"`` gives nan and
        an ``UndefinedMetricWarning``.

    Returns
    -------
    bep : ndarray of shape (n_categories,)
        ``TP_c / P_c`` with ``TP_c`` the (tie-averaged) positives among the top
        ``P_c`` documents.
    """
    T, S = _validate_pair(Y_true, Y_score, zero_division)
    tp, P, _ = _breakeven_counts(T, S)
    return _divide(tp, P, zero_division, "Break-even point of a category without positives")


def breakeven_point(y_true, y_score, *, zero_division="warn"):
    """Break-even point of one category (docs/mathematics.md §11).

    Rank the documents by decreasing ``y_score`` and call the top ``P`` positive,
    ``P`` being the number of positive documents; precision and recall are then
    equal, and equal to ``(positives among the top P) / P``. If ``m`` documents tie
    at the score of rank ``P``, ``p`` of them positive, and ``s`` of those places are
    inside the top ``P``, the tie contributes ``p * s / m`` (its average over all
    orderings).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels 0/1, -1/1 or bool; 1 (True) is positive.
    y_score : array-like of shape (n_samples,)
        Scores; larger means more positive. NaN is an error.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Returned when there is no positive document (the BEP is 0/0); ``"warn"``
        returns nan with an ``UndefinedMetricWarning``.

    Returns
    -------
    bep : float
        The break-even point, in [0, 1].

    Examples
    --------
    >>> breakeven_point([1, 0, 1, 0], [0.9, 0.8, 0.8, 0.1])  # tie straddles rank 2
    0.75
    """
    if np.ndim(y_true) != 1 or np.ndim(y_score) != 1:
        raise ValueError(
            "breakeven_point takes 1-d y_true and y_score (one category); "
            "use breakeven_points for a documents x categories matrix."
        )
    T, S = _validate_pair(y_true, y_score, zero_division)
    tp, P, _ = _breakeven_counts(T, S)
    return float(_divide(tp[0], P[0], zero_division, "Break-even point without positives"))


def micro_breakeven_point(Y_true, Y_score, *, zero_division="warn"):
    """Micro-averaged break-even point, ``sum_c TP_c / sum_c P_c``.

    Summing the per-category confusion matrices at their break-even cutoffs gives
    as many false positives as false negatives, so micro precision equals micro
    recall and equals this ratio. Categories without positives add nothing.

    Parameters
    ----------
    Y_true : {array-like, sparse matrix} of shape (n_samples, n_categories)
        Indicator of true categories (0/1, -1/1 or bool).
    Y_score : {array-like, sparse matrix} of shape (n_samples, n_categories)
        Scores; larger means more positive.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Returned when no category has a positive document.

    Returns
    -------
    bep : float
    """
    T, S = _validate_pair(Y_true, Y_score, zero_division)
    tp, P, _ = _breakeven_counts(T, S)
    return float(_divide(tp.sum(), P.sum(), zero_division, "Micro break-even point"))


def macro_breakeven_point(Y_true, Y_score, *, zero_division="warn"):
    """Macro-averaged break-even point: mean BEP over categories with positives.

    Categories without a positive document have no BEP and are left out of the
    mean (silently: that is the definition, not a fallback).

    Parameters
    ----------
    Y_true : {array-like, sparse matrix} of shape (n_samples, n_categories)
        Indicator of true categories (0/1, -1/1 or bool).
    Y_score : {array-like, sparse matrix} of shape (n_samples, n_categories)
        Scores; larger means more positive.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Returned when no category has a positive document.

    Returns
    -------
    bep : float
    """
    T, S = _validate_pair(Y_true, Y_score, zero_division)
    tp, P, _ = _breakeven_counts(T, S)
    has_pos = P > 0
    bep = tp[has_pos] / P[has_pos]
    return float(_divide(bep.sum(), has_pos.sum(), zero_division, "Macro break-even point"))


def breakeven_thresholds(Y_true, Y_score):
    """Per-category thresholds ``t_c`` whose cutoff ``score > t_c`` is the BEP cutoff.

    Without a tie at rank ``P``, ``t`` is the midpoint between the ``P``-th and the
    ``(P+1)``-th highest score, so ``score > t`` selects exactly the top ``P``
    documents (and a new score between them is decided by the nearer one). When a
    tie block straddles rank ``P`` no threshold selects exactly ``P`` documents; the
    cutoff then goes to the side of the block that selects the count nearer to
    ``P``, excluding the block when both sides are equally near. ``P == 0`` gives
    ``+inf`` (nothing selected); when the cutoff includes every document, ``t`` is
    ``-inf``.

    Parameters
    ----------
    Y_true : {array-like, sparse matrix} of shape (n_samples, n_categories)
        Indicator of true categories (0/1, -1/1 or bool). A 1-d array is one category.
    Y_score : {array-like, sparse matrix} of shape (n_samples, n_categories)
        Scores; larger means more positive.

    Returns
    -------
    thresholds : ndarray of shape (n_categories,)
        Predict category ``c`` where ``score > thresholds[c]`` (strictly).
    """
    T, S = _validate_pair(Y_true, Y_score, 0.0)
    n_samples, n_cat = S.shape
    _, P, sorted_desc = _breakeven_counts(T, S)
    # Number of documents selected by "score > t" is how many scores lie above t.
    # Selecting the top n documents (n in 0..n_samples) is possible only at a break
    # in the sorted column; pick n = P when the break exists, else the nearer break.
    thresholds = np.empty(n_cat)
    for c in range(n_cat):
        col = sorted_desc[:, c]
        n = int(P[c])
        if 0 < n < n_samples and col[n - 1] == col[n]:
            tie = col[n - 1]
            g = int(np.count_nonzero(col > tie))  # documents above the tie block
            m = int(np.count_nonzero(col == tie))
            n = g if n - g <= g + m - n else g + m
        thresholds[c] = _cut_between(col, n)
    return thresholds


def f1_thresholds(Y_true, Y_score):
    """Per-category thresholds ``t_c`` whose cutoff ``score > t_c`` has the largest F1.

    For each category, every cutoff that a threshold can make is tried: the top
    ``n`` documents, for each ``n`` at a break in the sorted scores (a threshold
    never splits documents of equal score), ``n = 0`` (nothing) included. The one
    with the largest ``F1 = 2 TP / (n + P)`` wins; among equal F1 the smallest
    ``n`` (the highest threshold). ``t`` is then placed as in
    :func:`breakeven_thresholds`: the midpoint between the ``n``-th and the
    ``(n+1)``-th highest score, ``-inf`` when every document is selected. A category
    without positives gets ``+inf`` (nothing selected: any selection has F1 = 0).
    Parameters and result as in :func:`breakeven_thresholds`.

    Examples
    --------
    >>> f1_thresholds([1, 0, 1, 0, 0], [5.0, 4.0, 3.0, 2.0, 1.0])
    array([2.5])
    """
    T, S = _validate_pair(Y_true, Y_score, 0.0)
    thresholds = np.empty(S.shape[1])
    for c in range(S.shape[1]):
        col, pos, ends = _cutoffs(T, S, c)
        P = int(pos.sum())
        if P == 0:
            thresholds[c] = np.inf
            continue
        tp = np.cumsum(pos)[ends[1:] - 1]
        f1 = f1_from_counts(tp, ends[1:], P, zero_division=0.0)
        best = int(np.argmax(f1))  # first maximum: the fewest documents selected
        n = int(ends[1:][best]) if f1[best] > 0 else 0
        thresholds[c] = _cut_between(col, n)
    return thresholds


def accuracy_thresholds(Y_true, Y_score):
    """Per-category thresholds ``t_c`` whose cutoff ``score > t_c`` is right most often.

    Each column's cutoffs are tried as in :func:`f1_thresholds` (the top ``n``
    documents, at every break in the sorted scores); a cutoff wins by the number
    of documents it decides rightly (positives above, negatives at or below).
    The threshold stays 0 unless a cutoff decides more documents rightly than
    ``score > 0`` does; among equally good cutoffs, the one nearest to 0 (in
    documents) wins. Parameters and result as in :func:`breakeven_thresholds`.

    Examples
    --------
    >>> accuracy_thresholds([1, 1, 0, 1, 0], [5.0, 4.0, 3.0, 2.0, 1.0])
    array([1.5])
    >>> accuracy_thresholds([1, 0, 1, 0], [1.0, -1.0, 2.0, -2.0])
    array([0.])
    """
    def right(tp, n_selected, P, n):  # positives above, negatives at or below
        return tp + (n - n_selected) - (P - tp)

    return _cuts_from_zero(Y_true, Y_score, right)


def macro_f1_thresholds(Y_true, Y_score):
    """Per-category thresholds ``t_c`` whose cutoff ``score > t_c`` has the best mean F1
    of the positives and the negatives (a two-class problem's macro-F1), tried and
    chosen as in :func:`accuracy_thresholds` (0 unless a cutoff does better).

    Examples
    --------
    >>> macro_f1_thresholds([1, 1, 0, 1, 0], [2.0, 1.0, 0.5, -0.5, -1.0])
    array([0.75])
    """
    def macro_f1(tp, n_selected, P, n):
        tn = (n - P) - (n_selected - tp)
        return (f1_from_counts(tp, n_selected, P, zero_division=0.0)
                + f1_from_counts(tn, n - n_selected, n - P, zero_division=0.0)) / 2

    return _cuts_from_zero(Y_true, Y_score, macro_f1)


#: The per-category threshold tuners, by the figure they maximise.
THRESHOLD_TUNERS = {"f1": f1_thresholds, "breakeven": breakeven_thresholds,
                    "accuracy": accuracy_thresholds, "macro-f1": macro_f1_thresholds}


def _cutoffs(T, S, c):
    """Column ``c`` by decreasing score: ``(scores, positives, ends)``, ``ends`` the
    counts ``n`` of top documents a threshold can select (0, every break between two
    different scores, and all): a cutoff never splits documents of equal score."""
    order = np.argsort(-S[:, c], kind="stable")
    col, pos = S[order, c], T[order, c].astype(np.int64)
    return col, pos, np.r_[0, np.flatnonzero(np.r_[col[:-1] > col[1:], True]) + 1]


def _cuts_from_zero(Y_true, Y_score, value):
    """Per column, the threshold of the cutoff of best ``value(tp, n_selected, P, n)``
    (arrays over the cutoffs): 0 unless a cutoff beats ``score > 0``, and among equally
    good cutoffs the one nearest to it in documents."""
    T, S = _validate_pair(Y_true, Y_score, 0.0)
    n = S.shape[0]
    thresholds = np.zeros(S.shape[1])
    for c in range(S.shape[1]):
        col, pos, ends = _cutoffs(T, S, c)
        values = value(np.r_[0, np.cumsum(pos)][ends], ends, int(pos.sum()), n)
        at_zero = int(np.count_nonzero(col > 0))  # always one of the ends
        if values.max() > values[ends == at_zero][0]:
            best = np.flatnonzero(values == values.max())
            nearest = best[np.argmin(np.abs(ends[best] - at_zero))]
            thresholds[c] = _cut_between(col, int(ends[nearest]))
    return thresholds


def _cut_between(col, n):
    """A ``t`` with ``col > t`` true for exactly the first ``n`` entries of ``col``.

    ``col`` is sorted in decreasing order and ``col[n-1] > col[n]`` (or ``n`` is 0 or
    ``len(col)``).
    """
    if n == 0:
        return np.inf
    if n == len(col):
        return -np.inf
    hi, lo = col[n - 1], col[n]
    mid = hi / 2 + lo / 2  # no overflow for large scores
    # The midpoint fails only with infinities or adjacent floats; ``lo`` itself is
    # then a valid cutoff since ``>`` excludes it.
    return mid if lo <= mid < hi else lo


def breakeven_threshold(y_true, y_score):
    """Threshold ``t`` such that ``y_score > t`` is the break-even cutoff of one category.

    See :func:`breakeven_thresholds` for the rule, including ties at rank ``P``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels 0/1, -1/1 or bool; 1 (True) is positive.
    y_score : array-like of shape (n_samples,)
        Scores; larger means more positive.

    Returns
    -------
    threshold : float

    Examples
    --------
    >>> breakeven_threshold([1, 0, 1, 0], [4.0, 3.0, 2.0, 1.0])
    2.5
    """
    if np.ndim(y_true) != 1 or np.ndim(y_score) != 1:
        raise ValueError(
            "breakeven_threshold takes 1-d y_true and y_score (one category); "
            "use breakeven_thresholds for a documents x categories matrix."
        )
    return float(breakeven_thresholds(y_true, y_score)[0])


# ------------------------------------------------------------- precision / recall
def precision_recall_f1(
    Y_true, Y_pred=None, *, Y_score=None, threshold=0.0, zero_division="warn"
):
    """Precision, recall and F1 per category, micro- and macro-averaged.

    Give either predictions ``Y_pred`` or scores ``Y_score``; scores are turned into
    predictions by ``Y_score > threshold`` (strictly, as linear classifiers' ``predict``
    does at ``threshold=0``), with one threshold for all categories or one per
    category (e.g. from :func:`breakeven_thresholds`).

    Per category ``precision = TP / (TP + FP)``, ``recall = TP / (TP + FN)`` and
    ``F1 = 2 TP / (2 TP + FP + FN)``. Micro averages apply the same formulas to the
    counts summed over categories; macro averages are the means of the per-category
    values, skipping ``nan`` (undefined) entries.

    Parameters
    ----------
    Y_true : {array-like, sparse matrix} of shape (n_samples, n_categories)
        Indicator of true categories (0/1, -1/1 or bool). 1-d is one category.
    Y_pred : {array-like, sparse matrix} of shape (n_samples, n_categories), optional
        Indicator of predicted categories, same encoding as ``Y_true``.
    Y_score : {array-like, sparse matrix} of shape (n_samples, n_categories), optional
        Scores, thresholded into predictions.
    threshold : float or array-like of shape (n_categories,), default=0.0
        Cutoff on ``Y_score``; ignored with ``Y_pred``.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Value of a 0/0 ratio; ``"warn"`` gives nan and an ``UndefinedMetricWarning``.

    Returns
    -------
    result : sklearn.utils.Bunch
        ``precision``, ``recall``, ``f1``, ``tp``, ``fp``, ``fn``, ``support``
        (arrays of shape (n_categories,), ``support`` = positives per category),
        and the floats ``micro_precision``, ``micro_recall``, ``micro_f1``,
        ``macro_precision``, ``macro_recall``, ``macro_f1``.
    """
    _check_zero_division(zero_division)
    T = _check_indicator("Y_true", Y_true)
    if (Y_pred is None) == (Y_score is None):
        raise ValueError("Give exactly one of Y_pred (0/1 predictions) or Y_score (scores).")
    if Y_pred is not None:
        Yp = _check_indicator("Y_pred", Y_pred)
        if Yp.shape != T.shape:
            raise ValueError(
                f"Y_pred has shape {Yp.shape} but Y_true has shape {T.shape}; they must match."
            )
    else:
        S = _check_scores("Y_score", Y_score, T.shape)
        t = np.asarray(threshold, dtype=np.float64)
        if t.ndim > 1 or (t.ndim == 1 and t.shape[0] != T.shape[1]):
            raise ValueError(
                f"threshold must be a number or one per category ({T.shape[1]}), "
                f"got shape {t.shape}."
            )
        if np.isnan(t).any():
            raise ValueError("threshold contains NaN.")
        Yp = S > t
    tp = (T & Yp).sum(axis=0)
    fp = (~T & Yp).sum(axis=0)
    fn = (T & ~Yp).sum(axis=0)
    precision = _divide(tp, tp + fp, zero_division, "Precision (no predicted positive)")
    recall = _divide(tp, tp + fn, zero_division, "Recall (no true positive document)")
    f1 = f1_from_counts(tp, tp + fp, tp + fn, zero_division=zero_division,
                        what="F1 (no positive at all)")
    TP, FP, FN = tp.sum(), fp.sum(), fn.sum()

    def macro(values):
        defined = values[~np.isnan(values)]
        return float(_divide(defined.sum(), defined.size, zero_division, "Macro average"))

    return Bunch(
        precision=precision,
        recall=recall,
        f1=f1,
        tp=tp,
        fp=fp,
        fn=fn,
        support=tp + fn,
        micro_precision=float(_divide(TP, TP + FP, zero_division, "Micro precision")),
        micro_recall=float(_divide(TP, TP + FN, zero_division, "Micro recall")),
        micro_f1=float(f1_from_counts(TP, TP + FP, TP + FN, zero_division=zero_division,
                                      what="Micro F1")),
        macro_precision=macro(precision),
        macro_recall=macro(recall),
        macro_f1=macro(f1),
    )
