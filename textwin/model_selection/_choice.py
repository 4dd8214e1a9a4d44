"""Choosing lam from out-of-fold path scores, for the decision the model will make.

A cross-validated path gives every training document a score per binary
problem and ``lam``, each by a model of a fold that did not see it. This module
scores those out-of-fold scores at the model's own decision rule (score > 0,
or thresholds tuned on the other folds' out-of-fold scores: per category, or a
two-class problem's one cut; an argmax for a multi-class task) with the metric the user asked for, and picks
``lam`` (docs/mathematics.md §13). :class:`~textwin.DualGaussSeidelClassifierCV`
uses it, and so can any search that has the out-of-fold scores of a path.
"""
import copy
import math
import warnings

import numpy as np
from sklearn.utils import Bunch

from textwin._tuning import tuned_thresholds
from textwin.metrics import breakeven_points, f1_from_counts
from textwin.tasks import decide

__all__ = ["SCORINGS", "RULES", "default_scoring", "check_choice", "fold_scores",
           "shared_choice", "select_lam", "choice_of", "tuned_thresholds", "rule_for",
           "mean_and_se", "stopped", "past_the_best", "turned", "first_turn", "descend",
           "FoldJudge"]

#: What the cross-validation maximises (every task; on a single-label task micro-F1 is accuracy).
SCORINGS = ("micro-f1", "macro-f1", "breakeven", "accuracy")
#: The decision rule scored: score > 0, thresholds tuned for F1 or the break-even point,
#: or a two-class problem's one cut tuned for accuracy or macro-F1 (both classes).
RULES = ("zero", "f1", "breakeven", "accuracy", "macro-f1")
_CUTS = ("accuracy", "macro-f1")


def rule_for(task, scoring):
    """The tuned rule that serves ``scoring``: per-category thresholds for F1
    (multi-label), a cut for the scoring (two classes; the break-even point has none),
    None for one class of several (the argmax)."""
    if task == "multilabel":
        return "f1"
    if task == "binary" and scoring != "breakeven":
        return "macro-f1" if scoring == "macro-f1" else "accuracy"
    return None


def default_scoring(task):
    """micro-F1 for multi-label targets, accuracy for single-label ones."""
    return "micro-f1" if task == "multilabel" else "accuracy"


def check_choice(task, scoring, rule, name="select_lam"):
    """The scoring (None: the task's default) after one-line checks of scoring and rule."""
    scoring = default_scoring(task) if scoring is None else scoring
    if scoring not in SCORINGS:
        raise ValueError(f"{name}: scoring={scoring!r} is not one of {', '.join(SCORINGS)}.")
    if rule not in RULES:
        raise ValueError(f"{name}: rule={rule!r} is not one of {', '.join(RULES)}.")
    if rule != "zero" and task == "multiclass":
        raise ValueError(f"{name}: rule={rule!r} tunes a threshold per category; a "
                         f"multi-class model gives the class of the highest score (rule='zero').")
    if rule in _CUTS and task != "binary":
        raise ValueError(f"{name}: rule={rule!r} tunes the one cut of a two-class problem; "
                         f"for multi-label categories use rule='f1' or 'breakeven'.")
    return scoring


def _predictions(S, T, fold_of, n_folds, task, rule):
    """0/1 predictions (n, K, L) of the rule; a tuned rule's thresholds for fold f come
    from the other folds' out-of-fold scores (never from fold f's own)."""
    if task == "multiclass":
        P = np.zeros(S.shape, dtype=bool)
        np.put_along_axis(P, decide(task, S)[:, None, :], True, axis=1)  # (n, L): as predict
        return P
    if rule == "zero":
        return decide(task, S)
    P = np.empty(S.shape, dtype=bool)
    for f in range(n_folds):
        own, others = fold_of == f, (fold_of != f) & (fold_of >= 0)
        for l in range(S.shape[2]):
            t = tuned_thresholds(S[others, :, l], T[others], rule, n_folds)
            P[own, :, l] = decide(task, S[own, :, l], t)
    return P


def _f1(tp, fp, fn):
    return f1_from_counts(tp, tp + fp, tp + fn, zero_division=np.nan)


def _counts(P, T, fold_of, n_folds):
    """tp, fp, fn of every (fold, problem, lam): arrays (F, K, L)."""
    T3 = T[:, :, None].astype(bool)
    shape = (n_folds,) + P.shape[1:]
    tp, fp, fn = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    for f in range(n_folds):
        rows = fold_of == f
        p, t = P[rows], T3[rows]
        tp[f], fp[f], fn[f] = (p & t).sum(0), (p & ~t).sum(0), (~p & t).sum(0)
    return tp, fp, fn


def _breakeven_counts(S, T, fold_of, n_folds):
    """(tp at the break-even cutoff, positives) of every (fold, problem, lam)."""
    F, (_, K, L) = n_folds, S.shape
    tp, npos = np.zeros((F, K, L)), np.zeros((F, K, 1))
    for f in range(F):
        rows = fold_of == f
        pos = T[rows] > 0
        npos[f, :, 0] = pos.sum(0)
        for l in range(L):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                bep = breakeven_points(pos, S[rows, :, l], zero_division=0.0)
            tp[f, :, l] = bep * npos[f, :, 0]
    return tp, np.broadcast_to(npos, tp.shape)


def fold_scores(oof_scores, Y, fold_of, *, task, scoring=None, rule="zero"):
    """(n_folds, n_lams): ``scoring`` of each held-out fold's predictions at ``rule``
    (see :func:`select_lam`), NaN where undefined."""
    scoring = check_choice(task, scoring, rule)
    S, T = np.asarray(oof_scores, dtype=np.float64), np.asarray(Y) > 0
    fold_of = np.asarray(fold_of)
    F = int(fold_of.max()) + 1
    if task == "binary":
        T = T[:, -1:]
    if scoring == "breakeven":
        tp, npos = _breakeven_counts(S, T, fold_of, F)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(npos.sum(1) > 0, tp.sum(1) / npos.sum(1), np.nan)
    P = _predictions(S, T, fold_of, F, task, rule)
    if task == "binary":  # one score column; both classes count for macro-F1
        P, T = np.concatenate([~P, P], axis=1), np.column_stack([~T[:, 0], T[:, 0]])
    if scoring == "accuracy" or (scoring == "micro-f1" and task != "multilabel"):
        exact = (P == T[:, :, None]).all(axis=1)  # (n, L)
        return np.stack([exact[fold_of == f].mean(0) for f in range(F)])
    tp, fp, fn = _counts(P, T, fold_of, F)
    if scoring == "micro-f1":
        return _f1(tp.sum(1), fp.sum(1), fn.sum(1))
    with warnings.catch_warnings():  # macro-F1 over the labels defined on the fold
        warnings.simplefilter("ignore", RuntimeWarning)  # a fold where none is
        return np.nanmean(_f1(tp, fp, fn), axis=1)


def mean_and_se(whole, axis=0):
    """The mean over the folds (``axis`` of ``whole``, (n_folds, n_lams) by default) and
    its standard error; a lam undefined on every fold (or never reached) has mean -inf."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mean = np.nanmean(whole, axis=axis)
        se = np.nanstd(whole, axis=axis) / math.sqrt(max(whole.shape[axis], 1))
    return np.where(np.isnan(mean), -np.inf, mean), np.nan_to_num(se)


def stopped(mean, se, *, patience=1, margin=None, one_se=False):
    """The searches' one early-stopping rule, per row of mean scores (rows, lams so far,
    descending lams) and their standard errors: is each row's choice (its best mean, the
    first on a tie, or with ``one_se`` the largest lam within one standard error of it) at
    least ``patience`` lams above the last, and with a ``margin``, are those last lams'
    means all more than ``margin`` standard errors (the best's) below the best? Past that,
    a smaller lam, the costliest to solve, changes the choice only by rising above the
    best again. Each search parameterises it: :func:`past_the_best`
    (:class:`DualGaussSeidelClassifierCV`) and :func:`turned` (:class:`TextClassifierCV`)."""
    mean, se = np.atleast_2d(mean), np.atleast_2d(se)
    rows = np.arange(mean.shape[0])
    best, choice = _choices(mean, se, one_se)
    out = choice < mean.shape[1] - patience
    if margin is not None:
        floor = mean[rows, best] - margin * se[rows, best]
        out &= np.all(mean[:, -patience:] < floor[:, None], axis=1)
    return out


def _choices(mean, se, one_se):
    """Per row of mean scores (rows, lams) and their standard errors: the best mean's lam
    (the first, the largest lam, on a tie) and the choice, that lam or with ``one_se`` the
    largest lam within one standard error of the best."""
    best = np.argmax(mean, axis=1)
    if not one_se:
        return best, best
    return best, np.array([np.flatnonzero(m >= m[b] - e[b])[0]
                           for m, e, b in zip(mean, se, best)], dtype=np.intp)


def past_the_best(mean, se, n_se=1.0):
    """:func:`stopped` as :class:`DualGaussSeidelClassifierCV` stops each problem's path:
    are the last two lams' means both more than ``n_se`` standard errors (the best's)
    below the best? A path past its optimum; two points in a row, so that one low fold
    score alone does not end it."""
    return stopped(mean, se, patience=2, margin=n_se)


def shared_choice(whole, one_se):
    """Index of the best mean score over the folds (the first: the largest lam); with
    ``one_se``, the largest lam whose mean is within one standard error of it."""
    mean, se = mean_and_se(whole)
    return int(_choices(mean[None], se[None], one_se)[1][0]), mean, se


def select_lam(oof_scores, Y, fold_of, *, task="multilabel", scoring=None, rule="zero",
               one_se=False):
    """Choose lam from out-of-fold path scores, for the decision the model will make.

    Each held-out fold is scored as the model will decide (docs/mathematics.md
    §13): a label (or a binary problem's positive class) where its score is
    above 0 (``rule="zero"``), or above a threshold tuned for F1 or the
    break-even point (``rule="f1"``, ``"breakeven"``), or a binary problem's
    one cut tuned for accuracy or macro-F1 (``"accuracy"``, ``"macro-f1"``; fold f's thresholds
    are tuned on the out-of-fold scores of the other folds, so that no fold
    is scored by thresholds that saw it; a label with fewer positives than
    folds keeps 0); a multi-class document gets the class of its highest
    score. The fold's ``scoring`` is averaged over the folds, and the lam of
    the best mean wins, the largest on ties. With ``one_se``, the largest lam
    whose mean is within one standard error (over the folds) of the best: the
    most regularized model the folds cannot tell from the best, for noisy
    curves. Every problem gets the same lam: micro-F1, macro-F1 and accuracy
    are not sums of per-label terms, and per-label choices chased each
    label's noise on Reuters-21578 (benchmarks/bench_lam_auto.py).

    Parameters
    ----------
    oof_scores : ndarray of shape (n_samples, n_problems, n_lams)
        Each sample's ``decision_function`` value by the model of the fold
        that held it out, at each lam of a descending grid.
    Y : ndarray of shape (n_samples, n_problems)
        0/1 indicator of each problem's positives (binary: one column, the
        positive class; multi-class: one column per class).
    fold_of : ndarray of shape (n_samples,)
        The held-out fold of each sample, 0 to n_folds - 1 (-1: in none).
    task : {"multilabel", "multiclass", "binary"}
    scoring : {"micro-f1", "macro-f1", "breakeven", "accuracy"} or None
        None: micro-F1 for multi-label targets, accuracy otherwise.
        ``"macro-f1"`` averages over the labels (classes) defined on the
        fold, both classes of a binary task; ``"breakeven"`` is the
        micro-averaged break-even point of the ranking (no threshold changes
        it); ``"accuracy"`` is the exact match of a multi-label row.
    rule : {"zero", "f1", "breakeven", "accuracy", "macro-f1"}
        The decision scored ("zero" only for a multi-class task; "accuracy" and
        "macro-f1", a cut tuned for them, only for a binary one).
    one_se : bool, default=False

    Returns
    -------
    choice : :class:`~sklearn.utils.Bunch`
        ``index``: the chosen lam's position in the grid; ``score``: its mean
        CV score; ``fold_scores`` (n_folds, n_lams), ``mean`` and ``se``
        (n_lams,): the curve; ``thresholds`` (n_problems,): the rule's
        thresholds tuned on all the out-of-fold scores at the chosen lam (0
        for ``rule="zero"``), which the model refitted at that lam applies;
        ``scoring``, ``rule``.

    Examples
    --------
    >>> import numpy as np
    >>> from textwin.model_selection import select_lam
    >>> S = np.array([[[2., 1.]], [[-1., 1.]], [[1., -1.]], [[-2., -1.]]])  # (4, 1, 2)
    >>> Y = np.array([[1], [0], [1], [0]])
    >>> int(select_lam(S, Y, np.array([0, 0, 1, 1]), task="binary").index)
    0
    """
    S = np.asarray(oof_scores, dtype=np.float64)
    Y = np.asarray(Y)
    Y = Y[:, None] if Y.ndim == 1 else Y
    scoring = check_choice(task, scoring, rule)
    whole = fold_scores(S, Y, fold_of, task=task, scoring=scoring, rule=rule)
    return choice_of(whole, S, Y, fold_of, task=task, scoring=scoring, rule=rule, one_se=one_se)


def choice_of(whole, oof_scores, Y, fold_of, *, task, scoring, rule, one_se=False):
    """:func:`select_lam`'s choice from the folds' scores ``whole`` (n_folds, n_lams) of
    :func:`fold_scores` (NaN columns: lams a stopped path never reached) and the
    out-of-fold scores they came from (n_samples, n_problems, n_lams)."""
    S = np.asarray(oof_scores, dtype=np.float64)
    Y = np.asarray(Y)
    Y = Y[:, None] if Y.ndim == 1 else Y
    if not np.isfinite(whole).any():
        raise ValueError(f"select_lam: the scoring {scoring!r} is undefined on every "
                         f"held-out fold; choose another scoring or other folds.")
    best, mean, se = shared_choice(whole, one_se)
    T = (Y[:, -1:] if task == "binary" else Y) > 0
    thresholds = (tuned_thresholds(S[:, :, best], T, rule, int(np.max(fold_of)) + 1)
                  if task != "multiclass" else np.zeros(S.shape[1]))
    return Bunch(index=best, score=float(mean[best]), fold_scores=whole, mean=mean, se=se,
                 thresholds=thresholds, scoring=scoring, rule=rule)


def at_the_choices(S, whole, one_se):
    """Per rule of ``whole`` (rule -> the folds' scores), the out-of-fold scores ``S``
    (texts x problems x lams) as :func:`choice_of` reads
    them: only at the lam its choice takes, stored once and seen at every lam (a
    read-only view as wide as ``S``). Every setting's scores at every lam, kept to the
    end of the search, were most of its memory on many classes (R52: 19 MB a setting)."""
    kept, out = {}, {}
    for rule, scores in whole.items():
        index = shared_choice(scores, one_se)[0] if np.isfinite(scores).any() else 0
        if index not in kept:
            kept[index] = np.broadcast_to(S[:, :, index:index + 1].copy(), S.shape)
        out[rule] = kept[index]
    return out


def turned(whole, one_se=False):
    """Is the choice of the folds' scores ``whole`` (n_folds, lams so far) above the last
    lam: the best mean (the first, the largest lam, on a tie), or with ``one_se`` the
    largest lam within one standard error of it (:func:`shared_choice`)? The last lam
    did not move it: past it, a smaller lam changes the choice only by rising above the
    best again, and under the one-standard-error rule by more than a standard error (a
    curve that creeps up within its noise moves nothing). A curve that has flattened
    stops as one that falls (on separable texts the scores settle as lam shrinks, while
    the solves grow costlier). One lam past the choice, not two: on the seven corpora of
    docs/benchmarks.md the second never moved a choice, and it is the costliest lam
    solved (a fifth to a quarter of the search). :func:`stopped` with a patience of one
    lam and no margin."""
    return bool(stopped(*mean_and_se(whole), patience=1, one_se=one_se)[0])


def first_turn(whole, end, one_se=False):
    """The first end (past ``end``) of the lams solved at which every rule's curve
    (``whole``: rule -> (n_folds, n_lams)) could have turned: one lam past its choice so
    far (:func:`turned`). Checking no sooner spares the pieces that cannot stop, each of
    which prepares its matrices again."""
    bests = [shared_choice(w[:, :end], one_se)[0] for w in whole.values()]
    return max(end + 1, max(bests) + 2)


def descend(n_lams, piece, stops, first=3, allows=None, one_se=False):
    """Solve a grid of ``n_lams`` lams in pieces ``[l, end)``, each continued where the
    last stopped, until every curve has turned (:func:`turned`): the early stop of a
    search that solves its paths a few lams at a time. ``piece(l, end)`` solves one and
    returns every curve so far ({rule: (n_folds, n_lams)}); without ``stops``, one piece.
    ``allows(l, end)``: may the piece start (a time budget)? ``one_se``: the curves'
    choice is the one-standard-error rule's. Returns the end of the lams solved."""
    l, end = 0, min(first, n_lams) if stops else n_lams
    while l < n_lams:  # pieces [l, end), each to the first lam that could stop it
        if allows is not None and not allows(l, end):
            return l
        whole = piece(l, end)
        if stops and all(turned(w[:, :end], one_se) for w in whole.values()):
            return end
        l, end = end, min(n_lams, first_turn(whole, end, one_se))
    return n_lams


class FoldJudge:
    """The folds' scores (n_folds, n_lams) of out-of-fold path scores (n_texts,
    n_problems, n_lams) at each decision rule the search compares (``rules``), by
    :func:`fold_scores`."""

    def __init__(self, rules, Y, task, scoring, fold_of):
        self.rules, self.task, self.scoring, self.fold_of = rules, task, scoring, fold_of
        self.T = Y[:, 1:] if task == "binary" else Y

    def __call__(self, scores, rule):
        return fold_scores(scores, self.T, self.fold_of,
                           task=self.task, scoring=self.scoring, rule=rule)

    def first(self, m):
        """This judge on the first ``m`` folds alone, the texts of the others in none: a
        tuned rule's thresholds for each fold are tuned on the other first folds."""
        judge = copy.copy(self)
        judge.fold_of = np.where(self.fold_of < m, self.fold_of, -1)
        return judge

