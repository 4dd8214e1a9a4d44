"""Per-category decision thresholds tuned on held-out scores.

A linear text classifier decides "in category c" at ``score > 0``. For rare
categories that cutoff is often far from the best one: the bias is fitted to the
hinge or squared loss, not to F1 or the break-even point. :class:`TunedThresholdsClassifierCV`
wraps any textwin (or scikit-learn) linear classifier, scores every training
document by cross-validation (each scored by a model that did not see it), chooses
one threshold per category on those scores, and then fits the wrapped model on all
the data. The thresholds travel with the model: :func:`textwin.persistence.save_model`
stores ``thresholds_`` and ``textwin predict`` applies them.

A multi-class model gives the class of the highest score; there
:func:`argmax_thresholds` tunes an offset per class, subtracted from its score
before the argmax, for accuracy or macro-F1 (a class the one-vs-rest scores
under-rate wins more of its documents).
"""
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from textwin._ovr import sparse_multilabel_tags
from textwin._tuning import (ARGMAX_OBJECTIVES, argmax_thresholds, thresholds_of_scores,
                             tuned_thresholds, tuning_folds)
from textwin.calibration import calibrate
from textwin.model_selection._split import calibration_fold_count, split_folds, text_folds
from textwin.tasks import decide

__all__ = ["TunedThresholdsClassifierCV", "argmax_thresholds", "out_of_fold_scores",
           "task_thresholds", "tuning_folds", "thresholds_of_scores", "calibration_folds",
           "out_of_fold_calibration", "ARGMAX_OBJECTIVES"]

_OBJECTIVES = ("f1", "breakeven", "accuracy")


def _scores_2d(scores):
    scores = np.asarray(scores, dtype=np.float64)
    return scores[:, None] if scores.ndim == 1 else scores


def _rows(X, idx):
    """X's rows at the integer positions idx, keeping X's kind: a matrix or array
    is indexed, a DataFrame through ``iloc``, anything else (a list of raw texts
    for a Pipeline that starts with a vectorizer) item by item."""
    if hasattr(X, "iloc"):
        return X.iloc[idx]
    if sp.issparse(X) or isinstance(X, np.ndarray):
        return X[idx]
    if hasattr(X, "__array__") and not isinstance(X, (list, tuple)):
        return np.asarray(X)[idx]
    return [X[i] for i in idx]


def out_of_fold_scores(estimator, X, Y, cv=5, sample_weight=None):
    """Scores (n_samples, n_categories) of every document by a model that did not see it.

    For each split of ``cv`` (:func:`sklearn.model_selection.check_cv`: an int is
    a ``StratifiedKFold`` for binary labels, including one indicator column, and
    a ``KFold`` for a multi-label indicator), a clone of ``estimator`` is fitted
    on the training part and its ``decision_function`` scores the held-out part.
    """
    X, Y, pairs = _fold_pairs(cv, X, Y)
    return _scored_out_of_fold(estimator, X, Y, pairs, sample_weight, cv)


def _fold_pairs(cv, X, Y):
    """``X`` and ``Y`` as the folds index them, and the (train, test) pairs of ``cv``."""
    if sp.issparse(X):
        X = X.tocsr()  # row indexing for the folds
    Y = Y.tocsr() if sp.issparse(Y) else np.asarray(Y)
    # one indicator column splits as binary labels (stratified), not as a matrix
    split_y = Y[:, 0] if Y.ndim == 2 and Y.shape[1] == 1 else Y
    if sp.issparse(split_y):
        split_y = split_y.toarray().ravel()
    return X, Y, list(split_folds(cv, X, split_y))


def _scored_out_of_fold(estimator, X, Y, pairs, sample_weight, cv):
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    sw = None if sample_weight is None else np.asarray(sample_weight)
    oof = None
    for train, test in pairs:
        est = clone(estimator)
        kwargs = {} if sw is None else {"sample_weight": sw[train]}
        est.fit(_rows(X, train), Y[train], **kwargs)
        part = _scores_2d(est.decision_function(_rows(X, test)))
        if oof is None:
            oof = np.full((n, part.shape[1]), np.nan)
        oof[test] = part
    if oof is None or np.isnan(oof).any():
        raise ValueError(f"cv={cv!r} left some documents without an out-of-fold score; "
                         "use splits whose test parts cover every document (such as an "
                         "int, or KFold).")
    return oof


def _quiet_out_of_fold(estimator, X, Y, cv):
    with warnings.catch_warnings():
        # the folds' fits repeat what the full fit already reported
        warnings.simplefilter("ignore")
        return out_of_fold_scores(estimator, X, Y, cv=cv)


def task_thresholds(estimator, X, Y, task, objective, folds=3):
    """The decision thresholds of a task's problems, tuned for ``objective`` on
    out-of-fold scores of ``estimator`` (unfitted: a clone per fold) on the training rows
    ``X`` (a matrix, or raw texts for a text classifier) with the indicator ``Y``:

    - "multiclass": an offset per class before the argmax (:func:`argmax_thresholds`),
      on ``folds`` stratified folds; +inf for a class without documents (never given);
    - otherwise a threshold per column of ``Y`` (a two-class task: the positive
      class's column alone), on the folds of :func:`out_of_fold_scores`.

    The folds are :func:`~textwin._tuning.tuning_folds`', the thresholds
    :func:`~textwin._tuning.thresholds_of_scores`' (as ``TextClassifier(thresholds="f1")``
    tunes its own); the policy for rare classes and categories is the searches': one with
    fewer documents than ``folds`` keeps 0, and a single such category is not
    cross-validated at all (its folds could not be trained).

    Returns
    -------
    thresholds : ndarray of shape (n_columns,)
    rare : ndarray of int
        The columns with some documents, but fewer than ``folds``, that keep 0.
    """
    pairs = tuning_folds(Y, task, folds)
    if pairs is None:  # a single category rarer than the folds: nothing to cross-validate
        return thresholds_of_scores(None, Y, task, objective, folds)
    oof = _quiet_out_of_fold(estimator, X, np.asarray(Y), pairs)
    return thresholds_of_scores(oof, Y, task, objective, folds)


def calibration_folds(name, Y, task, classes):
    """The (train, test) pairs of :func:`out_of_fold_calibration` for the indicator ``Y``:
    :data:`~textwin._folds.CALIBRATION_FOLDS` folds (fewer for a class of fewer
    documents; a ValueError that names ``name`` below two), stratified as far as the
    classes go, shuffled with seed 0."""
    Y = np.asarray(Y)
    n = Y.shape[0]
    counts = Y.sum(axis=0)
    smallest = n if task == "multilabel" else int(counts[counts > 0].min())
    k = calibration_fold_count(name, smallest, n, "training documents")
    with warnings.catch_warnings():  # a class rarer than the folds: stratified as far as it goes
        warnings.simplefilter("ignore")
        return text_folds(name, k, Y, task, classes, 0)


def out_of_fold_calibration(estimator_for, X, Y, task, folds):
    """Platt's sigmoids (:func:`textwin.calibration.calibrate`) fitted on out-of-fold
    scores of the training rows ``X`` (indicator ``Y``; a two-class task: of the
    positive class's column) on ``folds`` (:func:`calibration_folds`).
    ``estimator_for(n)``: the unfitted model of a fold of ``n`` training rows (their
    mean), at the final model's ``C``."""
    Y = np.asarray(Y)
    fold_n = np.mean([train.size for train, _ in folds])
    target = Y[:, [1]] if task == "binary" else Y
    oof = _quiet_out_of_fold(estimator_for(fold_n), X, target, folds)
    return calibrate(oof, target.astype(bool), folds=len(folds))


class TunedThresholdsClassifierCV(ClassifierMixin, BaseEstimator):
    """One decision threshold per category, tuned on cross-validated scores.

    For a multi-label indicator ``y`` (or a binary ``y``), ``fit``:

    1. splits the data with ``cv`` and, for each split, fits a clone of
       ``estimator`` on the training part and scores the held-out part with its
       ``decision_function``, so every document gets an out-of-fold score;
    2. sets ``thresholds_[c]`` from those scores: with ``objective="f1"`` the
       cutoff ``score > t`` of largest F1 (:func:`textwin.metrics.f1_thresholds`);
       with ``"breakeven"`` the cutoff that selects as many documents as there are
       positives, where precision equals recall
       (:func:`textwin.metrics.breakeven_thresholds`); with ``"accuracy"`` the cutoff
       right about the most documents, 0 unless another is right about more
       (:func:`textwin.metrics.accuracy_thresholds`);
    3. fits ``estimator`` on all the data (``estimator_``).

    ``predict`` returns the categories whose score is above their threshold, so a
    document may get no category. A category with fewer training positives than
    folds keeps the threshold 0, its model's own decision, as the searches' and ``train
    --tune-thresholds``' do: some fold trained without any, and its out-of-fold scores
    say nothing (a category without positives gets a constant negative model, never
    predicted).

    Parameters
    ----------
    estimator : classifier with ``decision_function``
        For example :class:`textwin.DualSVM`. It is cloned, never fitted in place.
    objective : {"f1", "breakeven", "accuracy"}, default="f1"
        What the thresholds maximize on the out-of-fold scores.
    cv : int, cross-validation generator or iterable, default=5
        As in scikit-learn (:func:`sklearn.model_selection.check_cv`): an int is
        a ``StratifiedKFold`` for a binary ``y`` and a ``KFold`` (no shuffling)
        for a multi-label ``y``.

    Attributes
    ----------
    estimator_ : estimator
        ``estimator`` fitted on all the data.
    thresholds_ : ndarray of shape (n_categories,)
        Predict category ``c`` where ``estimator_``'s score is above
        ``thresholds_[c]`` (one entry for a binary ``y``: the threshold of
        ``classes_[1]``).
    classes_ : ndarray
        As ``estimator_.classes_``.
    coef_, intercept_ : ndarray
        ``estimator_``'s weights (when it has them), so that
        :func:`textwin.persistence.save_model` writes the weights and the thresholds.
    oof_scores_ : ndarray of shape (n_samples, n_categories)
        The out-of-fold scores the thresholds were chosen on.
    n_features_in_ : int
    """

    def __init__(self, estimator, *, objective="f1", cv=5):
        self.estimator = estimator
        self.objective = objective
        self.cv = cv

    def fit(self, X, y, sample_weight=None):
        """Tune the thresholds by cross-validation, then fit on all the data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_categories)
            Binary labels or a multi-label 0/1 indicator matrix (dense or sparse).
        sample_weight : array-like of shape (n_samples,), default=None
            Passed to the estimator's ``fit`` (each fold gets its part).

        Returns
        -------
        self : object
        """
        name = type(self).__name__
        if self.objective not in _OBJECTIVES:
            raise ValueError(f"{name}: objective={self.objective!r} is not valid; use one of "
                             f"{sorted(_OBJECTIVES)}.")
        if not hasattr(self.estimator, "decision_function"):
            raise ValueError(f"{name}: the estimator {type(self.estimator).__name__} has no "
                             "decision_function; thresholds need scores.")
        kind = type_of_target(y, input_name="y")
        if kind not in ("binary", "multilabel-indicator"):
            raise ValueError(
                f"{name}: y is {kind}; per-category thresholds need a binary y or a "
                "multi-label indicator matrix (a multi-class prediction is an argmax "
                "over the classes, with no threshold to tune).")
        Xf, Y, folds = _fold_pairs(self.cv, X, y)
        sw = None if sample_weight is None else np.asarray(sample_weight)
        oof = _scored_out_of_fold(self.estimator, Xf, Y, folds, sw, self.cv)
        if kind == "binary":
            labels = np.ravel(Y.toarray() if sp.issparse(Y) else Y)
            truth = (labels == np.unique(labels)[-1])[:, None]
        else:
            truth = Y.toarray() if sp.issparse(Y) else Y
        # the searches' one tuner and its policy: a category with fewer positives than
        # folds keeps 0 (some fold trained without any: its scores say nothing)
        self.thresholds_ = tuned_thresholds(oof, truth, self.objective, len(folds))
        self.oof_scores_ = oof

        kwargs = {} if sw is None else {"sample_weight": sw}
        self.estimator_ = clone(self.estimator).fit(X, y, **kwargs)
        self.classes_ = self.estimator_.classes_
        self._binary = kind == "binary"
        self._sparse_labels = sp.issparse(y)
        for attr in ("coef_", "intercept_", "n_features_in_"):
            if hasattr(self.estimator_, attr):
                setattr(self, attr, getattr(self.estimator_, attr))
        return self

    def decision_function(self, X):
        """The estimator's scores minus the thresholds: positive means "in the category".

        Returns
        -------
        scores : ndarray of shape (n_samples,) for a binary y, else (n_samples, n_categories)
        """
        check_is_fitted(self, "thresholds_")
        scores = np.asarray(self.estimator_.decision_function(X), dtype=np.float64)
        if self._binary:
            return scores.ravel() - self.thresholds_[0]
        return scores - self.thresholds_

    def predict(self, X):
        """Categories whose score is above their threshold (an indicator row; may be empty).

        Returns
        -------
        y : ndarray of shape (n_samples,) for a binary y (labels from ``classes_``),
            else an (n_samples, n_categories) 0/1 indicator (sparse if y was)
        """
        check_is_fitted(self, "thresholds_")
        scores = np.asarray(self.estimator_.decision_function(X), dtype=np.float64)
        above = decide("binary" if self._binary else "multilabel",
                       scores.ravel() if self._binary else scores, self.thresholds_)
        if self._binary:
            return self.classes_[above.astype(int)]
        Y = above.astype(int)
        return sp.csr_matrix(Y) if self._sparse_labels else Y

    def __sklearn_tags__(self):
        return sparse_multilabel_tags(super().__sklearn_tags__())
