"""Per-category decision thresholds tuned on held-out scores.

A linear text classifier decides "in category c" at ``score > 0``. For rare
categories that cutoff is often far from the best one: the bias is fitted to the
hinge or squared loss, not to F1 or the break-even point. :class:`TunedThresholdsClassifierCV`
wraps any textwin (or scikit-learn) linear classifier, scores every training
document by cross-validation (each scored by a model that did not see it), chooses
one threshold per category on those scores, and then fits the wrapped model on all
the data. The thresholds travel with the model: :func:`textwin.persistence.save_model`
stores ``thresholds_`` and ``textwin predict`` applies them.
"""
import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import check_cv
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from ._ovr import sparse_multilabel_tags
from .metrics import breakeven_thresholds, f1_thresholds

__all__ = ["TunedThresholdsClassifierCV", "out_of_fold_scores"]

_OBJECTIVES = {"f1": f1_thresholds, "breakeven": breakeven_thresholds}


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
    if sp.issparse(X):
        X = X.tocsr()  # row indexing for the folds
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    Y = Y.tocsr() if sp.issparse(Y) else np.asarray(Y)
    # one indicator column splits as binary labels (stratified), not as a matrix
    split_y = Y[:, 0] if Y.ndim == 2 and Y.shape[1] == 1 else Y
    if sp.issparse(split_y):
        split_y = split_y.toarray().ravel()
    sw = None if sample_weight is None else np.asarray(sample_weight)
    oof = None
    for train, test in check_cv(cv, split_y, classifier=True).split(X, split_y):
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
       (:func:`textwin.metrics.breakeven_thresholds`);
    3. fits ``estimator`` on all the data (``estimator_``).

    ``predict`` returns the categories whose score is above their threshold, so a
    document may get no category. A category without positives in the training
    data gets ``+inf`` (never predicted).

    Parameters
    ----------
    estimator : classifier with ``decision_function``
        For example :class:`textwin.DualSVM`. It is cloned, never fitted in place.
    objective : {"f1", "breakeven"}, default="f1"
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
        Y = y.tocsr() if sp.issparse(y) else np.asarray(y)
        sw = None if sample_weight is None else np.asarray(sample_weight)
        oof = out_of_fold_scores(self.estimator, X, Y, self.cv, sw)
        if kind == "binary":
            labels = np.ravel(Y.toarray() if sp.issparse(Y) else Y)
            truth = (labels == np.unique(labels)[-1])[:, None]
        else:
            truth = Y.toarray() if sp.issparse(Y) else Y
        self.thresholds_ = _OBJECTIVES[self.objective](truth, oof)
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
        above = self.decision_function(X) > 0
        if self._binary:
            return self.classes_[above.astype(int)]
        Y = above.astype(int)
        return sp.csr_matrix(Y) if self._sparse_labels else Y

    def __sklearn_tags__(self):
        return sparse_multilabel_tags(super().__sklearn_tags__())
