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
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from textwin._ovr import sparse_multilabel_tags
from textwin._tuning import (ARGMAX_OBJECTIVES, argmax_thresholds,
                             thresholds_of_scores, tuning_folds)
from textwin.calibration import calibrate
from textwin.model_selection._split import calibration_fold_count, split_folds, text_folds
from textwin.tasks import decide, never_given
from textwin.text_classifier import model_at_scale

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
    counts = None if task == "multilabel" else Y.sum(axis=0)
    k = calibration_fold_count(name, counts, n, "training documents", classes)
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
    """Any classifier, with decision thresholds tuned and probabilities calibrated on
    cross-validated scores: what ``textwin train --tune-thresholds --proba`` fits on a
    matrix of feature values, and scikit-learn's ``TunedThresholdsClassifierCV`` and
    ``CalibratedClassifierCV`` in one, for the three tasks.

    ``fit``:

    1. fits ``estimator`` on all the data (``estimator_``; a multi-class indicator ``y``
       as each document's class, so that the classes compete, when every class has
       documents);
    2. with an ``objective``, scores every document by a clone fitted on the other folds
       of ``cv`` and tunes the thresholds there (:func:`~textwin._tuning.tuning_folds`
       and :func:`~textwin._tuning.thresholds_of_scores`, as
       ``TextClassifier(thresholds="f1")`` tunes its own; :func:`task_thresholds` on the
       same folds gives the same):

       - multi-label: a threshold per category, for its F1 (``"f1"``,
         :func:`textwin.metrics.f1_thresholds`) or at its break-even point
         (``"breakeven"``), a document may get no category;
       - two-class: one on the positive class's score, for its F1, the break-even point
         or ``"accuracy"`` (0 unless another cutoff is right about more documents);
       - multi-class: an offset per class subtracted from its score before the argmax
         (:func:`argmax_thresholds`), for macro-F1 (``"f1"``) or accuracy; +inf for a
         class without documents, which is never given.

       A category or class with fewer documents than folds keeps 0, its model's own
       decision (some fold trained without any: its scores say nothing), the one policy
       of :func:`~textwin._tuning.rare_columns`. A search that chose ``lam``
       (:class:`~textwin.model_selection.DualGaussSeidelClassifierCV`) is tuned at its
       choice; one that tuned its own thresholds in its folds keeps them (``objective``
       None);
    3. with ``probability=True``, fits Platt's sigmoids (:mod:`textwin.calibration`)
       on out-of-fold scores of :func:`calibration_folds` (5 shuffled folds, fewer for a
       class of fewer documents), each fold's model at the final model's ``C``
       (:func:`out_of_fold_calibration`).

    Parameters
    ----------
    estimator : classifier with ``decision_function``
        For example :class:`textwin.DualSVM`. It is cloned, never fitted in place.
    objective : {"f1", "breakeven", "accuracy"} or None, default="f1"
        What the thresholds maximize on the out-of-fold scores (None: not tuned, 0 or
        the estimator's own ``thresholds_``).
    cv : int, cross-validation generator or iterable, default=5
        The folds of the thresholds. An int is unshuffled: stratified folds of the
        classes (multi-class), of a binary ``y`` or of one indicator column, plain
        ``KFold`` of a multi-label indicator (scikit-learn's ``check_cv``).
    task : {"multilabel", "binary", "multiclass"} or None, default=None
        What ``y`` is (None: from ``y``: binary labels, a multi-label indicator, or
        multi-class labels). An indicator ``y`` is then read as the task's: "binary" its
        one column (the positive class's), "multiclass" one class per row (a class may
        have no document), "multilabel" a category per column (even one).
    probability : bool, default=False
        Calibrate probabilities (``calibration_``), as ``sklearn.svm.SVC(
        probability=True)`` does.
    fold_estimator : callable or None, default=None
        ``fold_estimator(n_rows, lam)``: the unfitted model of a fold of ``n_rows``
        training rows (a float: the folds' mean) at the final model's ``C``, ``lam`` the
        lam a search chose (None: no search; ``n_rows`` the number of rows: the model
        at that choice). None: the estimator, its ``lam`` (a search's choice) times the
        rows over ``n_rows``. The method registry passes its own
        (:func:`textwin.experiments.method_estimator`), whose models' settings follow
        the number of rows.

    Attributes
    ----------
    estimator_ : estimator
        ``estimator`` fitted on all the data.
    thresholds_ : ndarray of shape (n_problems,)
        A category's threshold on ``estimator_``'s score (binary: one, the positive
        class's), or a class's offset before the argmax.
    calibration_ : textwin.calibration.Calibration
        Platt's sigmoids (``probability=True``), or the estimator's own (the logistic
        loss's link); absent otherwise.
    task_ : str
    classes_ : ndarray
        As ``estimator_.classes_`` (a multi-class indicator: the column numbers).
    coef_, intercept_ : ndarray
        ``estimator_``'s weights (when it has them), so that
        :func:`textwin.persistence.save_model` writes the weights and the thresholds.
    oof_scores_ : ndarray of shape (n_samples, n_problems)
        The out-of-fold scores the thresholds were chosen on (when tuned).
    n_features_in_ : int
    """

    def __init__(self, estimator, *, objective="f1", cv=5, task=None, probability=False,
                 fold_estimator=None):
        self.estimator = estimator
        self.objective = objective
        self.cv = cv
        self.task = task
        self.probability = probability
        self.fold_estimator = fold_estimator

    def fit(self, X, y, sample_weight=None):
        """Fit on all the data, then tune the thresholds and calibrate on folds.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), or raw texts
            for a Pipeline that starts with a vectorizer
        y : array-like of shape (n_samples,) or (n_samples, n_columns)
            Labels, or a 0/1 indicator matrix (dense or sparse) read as ``task`` says.
        sample_weight : array-like of shape (n_samples,), default=None
            Passed to the estimator's ``fit`` (each fold of the thresholds gets its part).

        Returns
        -------
        self : object
        """
        name = type(self).__name__
        if not hasattr(self.estimator, "decision_function"):
            raise ValueError(f"{name}: the estimator {type(self.estimator).__name__} has no "
                             "decision_function; thresholds need scores.")
        task, Y, target, classes = self._problems(y, name)
        self._n_rows, self._sparse_labels = Y.shape[0], sp.issparse(y)
        valid = ARGMAX_OBJECTIVES if task == "multiclass" else _OBJECTIVES
        if self.objective is not None and self.objective not in valid:
            raise ValueError(f"{name}: objective={self.objective!r} is not valid for a "
                             f"{task} y; use one of {sorted(valid)}.")
        if sp.issparse(X):
            X = X.tocsr()  # row indexing for the folds
        sw = None if sample_weight is None else np.asarray(sample_weight)
        kwargs = {} if sw is None else {"sample_weight": sw}
        self.estimator_ = clone(self.estimator).fit(X, self._fit_target(y, Y, task),
                                                    **kwargs)
        self.task_, self.classes_ = task, classes
        for attr in ("coef_", "intercept_", "n_features_in_"):
            if hasattr(self.estimator_, attr):
                setattr(self, attr, getattr(self.estimator_, attr))
        chosen = (float(np.ravel(self.estimator_.lam_)[0])
                  if hasattr(self.estimator_, "lam_") else None)  # a search's lam
        own = getattr(self.estimator_, "thresholds_", None)  # tuned in a search's folds
        if self.objective is not None:
            self.thresholds_ = self._tuned_thresholds(X, Y, target, task, sw, chosen)
        elif own is not None:
            self.thresholds_ = np.asarray(own, dtype=np.float64)
        else:
            self.thresholds_ = never_given(Y) if task == "multiclass" else np.zeros(Y.shape[1])
        self.__dict__.pop("calibration_", None)
        if self.probability:
            self.calibration_ = self._calibrated(X, Y, task, chosen, name)
        elif getattr(self.estimator_, "calibration_", None) is not None:
            self.calibration_ = self.estimator_.calibration_  # the logistic loss's link
        return self

    def _problems(self, y, name):
        """``(task, Y, target, classes)``: the indicator ``Y`` of the problems (binary:
        the positive class's column), what the folds fit on (``y`` as given; multi-class
        labels as ``Y``, so that a fold keeps a column for every class) and the classes."""
        task = self.task
        if task is not None and task not in ("multilabel", "binary", "multiclass"):
            raise ValueError(f"{name}: task={task!r} is not one of 'multilabel', 'binary', "
                             "'multiclass'.")
        kind = type_of_target(y, input_name="y")
        target = y.tocsr() if sp.issparse(y) else np.asarray(y)
        if target.ndim == 2:  # an indicator, read as the task says
            Y = target.toarray() if sp.issparse(target) else target
            task = task or ("binary" if Y.shape[1] == 1 else "multilabel")
            if task == "binary" and Y.shape[1] != 1:
                raise ValueError(f"{name}: task='binary' takes labels or the positive "
                                 f"class's one indicator column; y has {Y.shape[1]}.")
            if task == "multiclass" and (Y.sum(axis=1) != 1).any():
                raise ValueError(f"{name}: task='multiclass' takes one class per row of "
                                 "an indicator y.")
            classes = np.arange(2 if task == "binary" else Y.shape[1])
            return task, Y, target, classes
        if kind not in ("binary", "multiclass") or (task in ("binary", "multilabel")
                                                    and kind != "binary"):
            raise ValueError(f"{name}: y is {kind}; give {task or 'binary'} labels or a "
                             "0/1 indicator matrix.")
        classes = np.unique(target)
        task = task or kind
        if task != "multiclass":  # a two-class task, or one category's yes or no
            positive = (target == classes[-1])[:, None].astype(int)
            return task, positive, target, classes if task == "binary" else np.arange(1)
        Y = (target[:, None] == classes).astype(int)
        return task, Y, Y, classes

    @staticmethod
    def _fit_target(y, Y, task):
        """What the estimator fits on: labels as given; an indicator's one column as
        labels; a multi-class indicator as each row's class when each of its more than
        two classes has documents (so that they compete: a search's ``lam`` is chosen by
        accuracy), else as it is (a class without documents keeps its column)."""
        if np.ndim(y) == 1:  # labels
            return np.asarray(y)
        if Y.shape[1] == 1:
            return Y[:, 0]
        present = Y.any(axis=0)
        if task == "multiclass" and Y.shape[1] > 2 and present.all():
            return Y.argmax(axis=1)
        return y.tocsr() if sp.issparse(y) else y

    def _fold_model(self, n_rows, chosen):
        """The unfitted model of a fold of ``n_rows`` training rows at the final model's
        ``C`` (``fold_estimator``'s, or the estimator's ``lam`` scaled)."""
        if self.fold_estimator is not None:
            return self.fold_estimator(n_rows, chosen)
        return model_at_scale(self.estimator, self.estimator_,
                              self._n_rows / n_rows)

    def _tuned_thresholds(self, X, Y, target, task, sw, chosen):
        """The thresholds of ``objective`` on out-of-fold scores of ``cv``'s folds (an
        int: :func:`~textwin._tuning.tuning_folds`'), each fold's model a clone of the
        estimator (a search: the model of its choice)."""
        n = Y.shape[0]
        model = self.estimator if chosen is None else self._fold_model(n, chosen)
        if isinstance(self.cv, Integral):
            pairs, k = tuning_folds(Y, task, self.cv), self.cv
        else:
            split_y = Y.argmax(axis=1) if task == "multiclass" else (
                Y[:, 0] if Y.shape[1] == 1 else Y)
            pairs = list(split_folds(self.cv, X, split_y))
            k = len(pairs)
        oof = None
        if pairs is not None:  # None: a single category rarer than the folds
            with warnings.catch_warnings():
                # the folds' fits repeat what the full fit already reported
                warnings.simplefilter("ignore")
                oof = _scored_out_of_fold(model, X, target, pairs, sw, self.cv)
            self.oof_scores_ = oof
        thresholds, _ = thresholds_of_scores(oof, Y, task, self.objective, k)
        return np.asarray(thresholds, dtype=np.float64)

    def _calibrated(self, X, Y, task, chosen, name):
        """Platt's sigmoids on out-of-fold scores of :func:`calibration_folds`, each
        fold's model at the final model's ``C``."""
        # a two-class task: both classes' columns, as calibration_folds reads a task's
        both = np.hstack([Y == 0, Y]).astype(Y.dtype) if task == "binary" else Y
        folds = calibration_folds(f"{name}: probability=True", both, task, None)
        return out_of_fold_calibration(lambda n_rows: self._fold_model(n_rows, chosen),
                                       X, both, task, folds)

    def decision_function(self, X):
        """The estimator's scores minus the thresholds: positive means "in the category"
        (multi-class: the class of the highest is given).

        Returns
        -------
        scores : ndarray of shape (n_samples,) for a binary y, else (n_samples, n_problems)
        """
        check_is_fitted(self, "thresholds_")
        scores = np.asarray(self.estimator_.decision_function(X), dtype=np.float64)
        if self.task_ == "binary":
            return scores.ravel() - self.thresholds_[0]
        return _scores_2d(scores) - self.thresholds_

    def predict(self, X):
        """Binary: the class of ``classes_`` the thresholded score gives; multi-label: the
        categories whose score is above their threshold (an indicator row, sparse if y
        was; may be empty); multi-class: the class of the highest score less its
        threshold.
        """
        check_is_fitted(self, "thresholds_")
        scores = np.asarray(self.estimator_.decision_function(X), dtype=np.float64)
        if self.task_ == "binary":
            return self.classes_[decide("binary", scores.ravel(), self.thresholds_).astype(int)]
        decided = decide(self.task_, _scores_2d(scores), self.thresholds_)
        if self.task_ == "multiclass":
            return self.classes_[decided]
        Y = decided.astype(int)
        return sp.csr_matrix(Y) if self._sparse_labels else Y

    def predict_proba(self, X):
        """Calibrated probabilities of the estimator's scores (``probability=True``)."""
        check_is_fitted(self, "calibration_")
        scores = _scores_2d(self.estimator_.decision_function(X))
        return self.calibration_.predict_proba(scores, self.task_)

    def __sklearn_tags__(self):
        return sparse_multilabel_tags(super().__sklearn_tags__())
