"""Decision thresholds tuned on out-of-fold scores: the one tuner of each task and its one
policy for rare classes, below the estimators that tune their own (``TextClassifier(
thresholds="f1")``) and the searches (:mod:`textwin.model_selection`, which hands these
names on).

- a threshold per category (multi-label) or on the positive class's score (two-class),
  for F1, the break-even point or accuracy (:func:`tuned_thresholds`, over
  :data:`textwin.metrics.THRESHOLD_TUNERS`);
- an offset per class before a multi-class argmax, for accuracy or macro-F1
  (:func:`argmax_thresholds`);
- the folds those scores come from (:func:`tuning_folds`) and a task's thresholds from
  them (:func:`thresholds_of_scores`).
"""
import numpy as np

from textwin._folds import split_folds, stratified_folds
from textwin.metrics import THRESHOLD_TUNERS, f1_from_counts
from textwin.tasks import never_given, predicted_classes

__all__ = ["tuned_thresholds", "argmax_thresholds", "tuning_folds", "thresholds_of_scores",
           "rare_columns", "ARGMAX_OBJECTIVES", "OBJECTIVES"]

#: What thresholds can be tuned for, by task.
OBJECTIVES = {"multilabel": ("f1", "breakeven"), "binary": ("f1", "breakeven", "accuracy"),
              "multiclass": ("f1", "accuracy")}

#: What :func:`argmax_thresholds` maximises.
ARGMAX_OBJECTIVES = ("accuracy", "f1")


def tuned_thresholds(S, T, rule, min_positives):
    """Thresholds of ``rule`` on out-of-fold scores ``S`` (n, K) against the indicator
    ``T`` (n, K); 0 for a category with fewer than ``min_positives`` (each caller passes
    its folds): the threshold tuner of the searches, of ``train --tune-thresholds`` and
    of :class:`~textwin.model_selection.TunedThresholdsClassifierCV`, and their one policy
    for rare categories.

    With fewer positives than folds, some fold trained without any or with one: its
    scores say nothing, and the tuned threshold falls far below 0 (a category of two
    positives in Reuters-21578 then took 585 false positives of the test set).
    """
    if rule == "zero":
        return np.zeros(S.shape[1])
    t = np.asarray(THRESHOLD_TUNERS[rule](T, S), dtype=np.float64)
    return np.where(np.asarray(T).sum(axis=0) < min_positives, 0.0, t)


def _argmax_score(y, predicted, K, objective):
    """Accuracy, or macro-F1 over the classes that are true or predicted somewhere."""
    if objective == "accuracy":
        return float(np.mean(predicted == y))
    true = np.bincount(y, minlength=K)
    pred = np.bincount(predicted, minlength=K)
    tp = np.bincount(y[predicted == y], minlength=K)
    return _macro_f1(tp, pred, true)


def _macro_f1(tp, pred, true):
    """Macro-F1 of counts (..., K), over the classes with ``pred + true > 0``."""
    f1 = f1_from_counts(tp, pred, true, zero_division=0.0)
    return f1.sum(axis=-1) / np.maximum((pred + true > 0).sum(axis=-1), 1)


def _cut_scores(y, d, k, r, K, objective):
    """The objective when class ``k``'s threshold lies below the ``j``-th smallest of
    ``d`` (j = 0..n): the documents below it go to their runner-up ``r``, the
    others to ``k`` (``d``, ``r`` sorted by ``d``)."""
    n = d.size
    if objective == "accuracy":
        to_k = np.r_[0, np.cumsum(y == k)]       # right answers lost by leaving k
        to_r = np.r_[0, np.cumsum(y == r)]       # right answers won by going to r
        return (to_k[-1] - to_k + to_r) / n
    moved = np.zeros((n + 1, K), dtype=np.int64)
    np.add.at(moved, (np.arange(1, n + 1), r), 1)
    moved[1:, k] -= 1
    pred = np.cumsum(moved, axis=0)
    pred[:, k] += n
    hits = np.zeros((n + 1, K), dtype=np.int64)
    right_r = np.flatnonzero(y == r)
    np.add.at(hits, (right_r + 1, r[right_r]), 1)
    hits[1:, k] -= y == k
    tp = np.cumsum(hits, axis=0)
    tp[:, k] += int(np.sum(y == k))
    return _macro_f1(tp, pred, np.bincount(y, minlength=K))


def _best_threshold(S, y, t, k, objective, current):
    """Class ``k``'s threshold of the best objective given the others' (``t``), or
    ``t[k]`` unless some cut point improves on ``current``."""
    others = S - t
    others[:, k] = -np.inf
    r = np.argmax(others, axis=1)                 # the class a document gets without k
    d = S[:, k] - others[np.arange(S.shape[0]), r]  # k wins while its threshold is below d
    if not np.isfinite(d).all():
        return t[k]
    order = np.argsort(d, kind="stable")
    d, values = d[order], _cut_scores(y[order], d[order], k, r[order], S.shape[1], objective)
    # a threshold can only lie between two different values of d (or beyond them all);
    # values equal but for rounding are one (the comparison at predict time may differ)
    cut = np.r_[True, np.diff(d) > 1e-9 * np.maximum(1.0, np.abs(d[1:])), True]
    candidates = np.r_[d[0] - 1.0, d[:-1] / 2 + d[1:] / 2, d[-1] + 1.0]
    values = np.where(cut, values, -np.inf)
    if values.max() <= current:
        return t[k]
    best = np.flatnonzero(values == values.max())
    return float(candidates[best[np.argmin(np.abs(candidates[best] - t[k]))]])


def argmax_thresholds(y, scores, objective="accuracy", *, tunable=None, max_sweeps=5):
    """Per-class thresholds for a multi-class argmax, tuned on held-out scores.

    A document gets the class ``argmax_k(scores[:, k] - thresholds[k])``
    (:func:`textwin.tasks.predicted_classes`): a threshold is an offset
    subtracted from the class's one-vs-rest score. Starting from 0, each
    tunable class in turn takes the threshold, among the cut points where some
    document changes class, that gives the best ``objective`` on ``scores``
    with the other thresholds fixed (coordinate ascent), and keeps it only if
    it improves on the thresholds so far; sweeps over the classes repeat
    until one changes nothing, at most ``max_sweeps`` times. The result is
    deterministic and never scores below all-zero thresholds on ``scores``.

    Parameters
    ----------
    y : array-like of int, shape (n_samples,)
        Each document's class, a column index of ``scores``.
    scores : array-like of shape (n_samples, n_classes)
        Out-of-fold scores (each document scored by a model that did not see it).
    objective : {"accuracy", "f1"}
        Accuracy, or macro-F1 over the classes true or predicted somewhere.
    tunable : array-like of bool, shape (n_classes,), optional
        The classes whose threshold may move (default: all); the others keep 0.
    max_sweeps : int, default=5

    Returns
    -------
    thresholds : ndarray of shape (n_classes,)

    Examples
    --------
    >>> S = [[1.0, 0.9], [1.0, 0.8], [1.0, 0.7], [1.0, 2.0]]
    >>> argmax_thresholds([1, 1, 0, 1], S)
    array([0.25, 0.  ])
    """
    S = np.asarray(scores, dtype=np.float64)
    y = np.asarray(y, dtype=np.intp)
    if objective not in ARGMAX_OBJECTIVES:
        raise ValueError(f"objective={objective!r} is not one of {', '.join(ARGMAX_OBJECTIVES)}")
    if S.ndim != 2 or y.shape != S.shape[:1] or not np.isfinite(S).all():
        raise ValueError("scores must be finite, one row per label of y, one column per class")
    K = S.shape[1]
    tunable = np.ones(K, dtype=bool) if tunable is None else np.asarray(tunable, dtype=bool)
    t = np.zeros(K)
    best = _argmax_score(y, predicted_classes(S, t), K, objective)
    for _ in range(max_sweeps):
        moved = False
        for k in np.flatnonzero(tunable):
            trial = t.copy()
            trial[k] = _best_threshold(S, y, t, k, objective, best)
            score = _argmax_score(y, predicted_classes(S, trial), K, objective)
            if score > best:
                t, best, moved = trial, score, True
        if not moved:
            break
    return t


def rare_columns(Y, folds):
    """The columns of the indicator ``Y`` with some documents, but fewer than ``folds``:
    their thresholds stay 0 (some fold trained without any)."""
    counts = (np.asarray(Y) != 0).sum(axis=0)
    return np.flatnonzero((counts > 0) & (counts < folds))


def tuning_folds(Y, task, folds):
    """The (train, test) pairs whose held-out scores tune a task's thresholds, unshuffled:
    ``folds`` stratified on the class of each document ("multiclass"), on the one
    column of a two-class task's positive class, or plain folds of a multi-label
    indicator (scikit-learn's ``check_cv`` of an int); None for a single column rarer
    than the folds (its threshold stays 0, nothing to cross-validate)."""
    Y = np.asarray(Y)
    if task == "multiclass":
        return stratified_folds(folds, Y.argmax(axis=1))
    if Y.shape[1] == 1 and (Y != 0).sum() < folds:
        return None
    split_y = Y[:, 0] if Y.shape[1] == 1 else Y
    return list(split_folds(folds, np.zeros((Y.shape[0], 1)), split_y))


def thresholds_of_scores(oof, Y, task, objective, folds):
    """A task's thresholds tuned for ``objective`` on the out-of-fold scores ``oof``
    (n, columns of ``Y``) of :func:`tuning_folds`' ``folds`` against the indicator
    ``Y`` (a two-class task: the positive class's column alone):

    - "multiclass": an offset per class before the argmax (:func:`argmax_thresholds`);
      +inf for a class without documents (never given);
    - otherwise a threshold per column (:func:`tuned_thresholds`).

    One with fewer documents than ``folds`` keeps 0 (``oof`` None: a single such
    column). Returns the thresholds and :func:`rare_columns`."""
    Y = np.asarray(Y)
    counts = (Y != 0).sum(axis=0)
    rare = rare_columns(Y, folds)
    if task == "multiclass":
        y = Y.argmax(axis=1)
        present = counts > 0  # a class without documents is never given, left out here
        thresholds = never_given(Y)
        thresholds[present] = argmax_thresholds(np.cumsum(present)[y] - 1, oof[:, present],
                                                objective, tunable=counts[present] >= folds)
        return thresholds, rare
    if oof is None:
        return np.zeros(Y.shape[1]), rare
    return tuned_thresholds(oof, Y != 0, objective, folds), rare
