"""The cross-validated estimator of lam: :class:`DualGaussSeidelClassifierCV`
(docs/mathematics.md §13).

It runs the regularization path (:mod:`textwin.model_selection._paths`) on every
cross-validation fold and binary problem (:class:`~textwin.model_selection._validation.
FoldPaths`), scores each point on the held-out fold, chooses ``lam`` (per binary
problem for multi-label targets scored by a scikit-learn scorer, shared otherwise) and
refits at the choice.
"""
import math
import sys
import time
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.utils.validation import check_is_fitted
from tqdm import tqdm

from textwin._distributed import map_on_cluster
from textwin._ovr import SolverConvergenceWarning, map_problems, store_params
from textwin._scale import DegenerateSolutionWarning
from textwin.linear import DualGaussSeidelClassifier
from textwin.tasks import decide
from textwin.model_selection._budget import BAR_FORMAT, TimeBudget, duration, say_if_long
from textwin.model_selection._choice import (SCORINGS, fold_scores, mean_and_se,
                                             past_the_best, shared_choice, tuned_thresholds)
from textwin.model_selection._paths import (DEFAULT_MIN_RATIO, DEFAULT_N_LAMS, LamGridWarning,
                                            Problems, resolve_lams, warn_path_failures)
from textwin.model_selection._results import cv_results, mean_curves, result_rows
from textwin.model_selection._split import fold_of, search_folds
from textwin.model_selection._validation import (FEW_POSITIVES, FLOOR, FoldPaths, RowsFold,
                                                 Scoring, refit_problem, refit_task)

__all__ = ["DualGaussSeidelClassifierCV"]


class _SearchPaths(FoldPaths):
    """The out-of-fold paths of :class:`DualGaussSeidelClassifierCV`: every fold of one
    prepared set of problems (``problems``), with the labels its choice reads. The
    held-out scores are kept where the choice reads them: a shared lam, or textwin's
    scorings of the model's decision (every problem's scores at once)."""

    def __init__(self, problems, scoring, folds, n_jobs):
        self.problems, self.pairs = problems, folds
        K = problems.n_problems
        super().__init__([RowsFold(problems, train, test) for train, test in folds], scoring,
                         problems.mode != "multilabel" or scoring.native, problems.n, K,
                         n_jobs, payload=dict(problems=problems))
        self.truth = np.column_stack([problems.labels.column(k) > 0 for k in range(K)])
        self.fold_of = fold_of(folds, problems.n)

class DualGaussSeidelClassifierCV(DualGaussSeidelClassifier):
    """:class:`DualGaussSeidelClassifier` with ``lam`` chosen by cross-validation.

    For every fold and binary problem, a warm-started regularization path
    over ``lams`` (:func:`regularization_path`, docs/mathematics.md §13) scores
    the held-out fold. By default every document's out-of-fold scores are
    judged at the decision the fitted model will make (:func:`select_lam`):
    a label where its score is above 0, or above the thresholds tuned on the
    other folds' scores (``thresholds``); a class by the argmax. The lam of
    the best mean score over the folds (micro-F1 for multi-label targets,
    accuracy for single-label ones; ``scoring``) is shared by every binary
    problem; ties go to the larger ``lam``. Then every problem is refit on
    all the data at the choice. A scikit-learn scorer, or
    ``"micro_breakeven_point"``, instead scores each label column of a
    multi-label target on its own and chooses a ``lam`` per column. Folds
    and problems run together in ``n_jobs`` threads (inside
    ``joblib.parallel_config(backend="dask")``, as tasks on the Dask
    cluster: docs/scaling.md); results do not depend on ``n_jobs`` or the
    cluster.

    Parameters
    ----------
    loss, regularizer, tol, max_epochs, fit_intercept, intercept_solver, rho0, \
intercept_tol, theta, gamma, prior, mass, shuffle, random_state, n_jobs, step, \
step_fraction, gradient_step, exp_cap, class_weight, verbose
        As in :class:`DualGaussSeidelClassifier` (``verbose >= 1``: a progress
        bar over folds x problems x lams on a terminal).
    lams : int or array-like of float, default=10
        The grid of ``lam`` (sorted descending, duplicates dropped), or the
        number of points from :func:`lam_max` of the training data down to
        ``lam_max * lam_min_ratio``, evenly on a log scale. Such a grid is
        continued below its bottom, three points at a time (down to
        ``lam_max * 1e-8``), while some problem's score at the smallest
        ``lam`` so far beats all others by more than a standard error (over
        the folds); a given array is searched as it is. A warning says when
        the smallest ``lam`` searched scores best.
    lam_min_ratio : float in (0, 1), default=1e-4
        Bottom of the first grid, relative to its top (four decades).
    lam_anchor : float or None, default=None
        A ``lam`` that a grid from the data passes through (such as the
        default ``1/n``): the grid is shifted down by less than one of its
        steps so that a point falls on it, and the choice is never between
        two points around it.
    cv : int, cross-validation generator or iterable, default=5
        As in scikit-learn (``check_cv``): an int is ``StratifiedKFold`` for
        binary and multi-class targets, ``KFold`` for multi-label ones,
        without shuffling.
    scoring : str, callable or None, default=None
        textwin's scorings of the model's decision: ``"micro-f1"`` (None for
        multi-label targets), ``"accuracy"`` (None for binary and
        multi-class targets; exact match of a multi-label row),
        ``"macro-f1"`` (over the labels or classes on the fold, both classes
        of a binary target) or ``"breakeven"`` (micro-averaged break-even
        point of the ranking). Otherwise a scikit-learn scorer name or
        callable, or ``"micro_breakeven_point"``: for multi-label targets
        each label column is then scored as a binary problem and gets its own
        ``lam``, and folds where it is undefined (a column without positives
        in the held-out fold) are left out of that column's mean, with a
        warning.
    thresholds : {None, "f1", "breakeven"}, default=None
        The decision of a multi-label or binary model: None, score > 0;
        otherwise per-label thresholds tuned for F1 or the break-even point,
        both in the cross-validation (each fold's from the other folds'
        scores) and in the fitted model (``thresholds_``, from every
        out-of-fold score at the chosen ``lam``; ``predict`` applies them). A
        label with fewer positives than folds keeps 0.
    one_se : bool, default=False
        Take the largest ``lam`` whose mean score is within one standard
        error (over the folds) of the best: the most regularized model the
        folds cannot tell from it, for noisy curves.
    early_stopping : bool, default=True
        Stop descending a problem's paths (all of them, when lam is shared)
        once its mean held-out score has been more than one standard error
        (over the folds) below its best at two lams in a row: the path is past its optimum, and the
        smaller lams, the costliest to solve, are left out (NaN in
        ``cv_scores_`` and 0 in ``path_n_iter_`` for that problem; with a
        shared lam, ``lams_`` ends there). As liblinear's ``-C`` search
        stops. False solves the whole grid.

    Attributes
    ----------
    lams_ : ndarray of shape (n_lams,)
        The grid searched, descending (continued or cut short as
        ``lams`` and ``early_stopping`` say).
    lam_ : ndarray of shape (n_problems,)
        The chosen ``lam`` of each binary problem (all equal when shared).
    cv_results_ : dict of lists
        A row per problem (one, "all", when ``lam`` is shared) and ``lam``:
        ``params``, ``lam``, ``mean_test_score``, ``std_test_score`` and
        ``rank_test_score``, as scikit-learn's searches give them.
    cv_scores_ : ndarray of shape (n_folds, n_lams) or (n_problems, n_folds, n_lams)
        The held-out score of every fold and ``lam``: of the whole model when
        ``lam`` is shared, of each label column when it is per problem (NaN
        where undefined: a fold without a positive of the column).
    thresholds_ : ndarray of shape (n_problems,)
        With ``thresholds``: the tuned decision thresholds.
    best_score_ : float
        The cross-validated score of the choice: its mean over the folds
        (``"micro_breakeven_point"``: the pooled true positives at each
        column's ``lam`` over the pooled positives, all folds).
    scoring_ : str or callable
        The scoring used.
    path_n_iter_ : ndarray of shape (n_folds, n_problems, n_lams)
        Epochs of every path point (the path's cost).
    classes_, coef_, intercept_, dual_coef_, duality_gap_, gap_history_, \
n_iter_, intercept_solver_, intercept_residual_, n_rounds_, n_features_in_
        Of the final fit, as in :class:`DualGaussSeidelClassifier`.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from textwin import DualGaussSeidelClassifierCV
    >>> X, y = make_classification(n_samples=200, random_state=0)
    >>> clf = DualGaussSeidelClassifierCV(lams=5, cv=3, random_state=0).fit(X, y)
    >>> clf.lams_.shape, clf.cv_scores_.shape
    ((5,), (3, 5))
    """

    def __init__(
        self,
        loss="hinge",
        regularizer="square",
        lams=DEFAULT_N_LAMS,
        lam_min_ratio=DEFAULT_MIN_RATIO,
        lam_anchor=None,
        cv=5,
        scoring=None,
        thresholds=None,
        one_se=False,
        early_stopping=True,
        tol=1e-3,
        max_epochs=1000,
        fit_intercept=False,
        intercept_solver="auto",
        rho0=1.0,
        intercept_tol=1e-6,
        theta=0.0,
        gamma=None,
        prior="auto",
        mass="auto",
        shuffle=True,
        random_state=None,
        n_jobs=None,
        step="auto",
        step_fraction=1.0,
        gradient_step=None,
        exp_cap=math.log(2) / 2,
        class_weight=None,
        verbose=0,
    ):
        store_params(self, locals())

    @classmethod
    def from_estimator(cls, estimator, **params):
        """The cross-validated version of a :class:`DualGaussSeidelClassifier` or preset.

        Every setting of ``estimator`` (a preset's fixed loss and regularizer
        included) but ``lam``, ``warm_start`` and ``probability`` (a search calibrates
        nothing), updated by ``params`` (``lams``, ``cv``, ``scoring``, ...).
        """
        settings = estimator.all_params()
        for key in ("lam", "warm_start", "probability"):
            settings.pop(key)
        return cls(**{**settings, **params})

    def fit(self, X, y, sample_weight=None):
        """Choose ``lam`` by cross-validation, then fit every problem at its choice.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_labels)
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the training folds' losses (the held-out scores are unweighted).

        Returns
        -------
        self : object
        """
        name = type(self).__name__
        before = dict(vars(self))  # the model so far, whole again if this fit fails
        try:
            problems = Problems(self, X, y, sample_weight)
            if self.lam_anchor is not None and not (isinstance(self.lam_anchor, Real)
                                                    and self.lam_anchor > 0):
                raise ValueError(f"{name}: lam_anchor must be a number > 0 or None, got "
                                 f"{self.lam_anchor!r}.")
            lams = resolve_lams(name, self.lams, self.lam_min_ratio, problems, self.lam_anchor)
            scoring = Scoring(self.scoring, self)
            folds = self._folds(problems, y)
            run = _SearchPaths(problems, scoring, folds, self.n_jobs)
            try:
                self._cross_validate(name, run, lams)
                vars(self).pop("thresholds_", None)
                self._tune_thresholds(run)
                self._refit(problems, run)
            finally:
                run.close()
        except BaseException:  # bad settings found late, a lost cluster, an interrupt: no
            vars(self).clear()  # new n_features_in_ or lam_ over the old coef_
            vars(self).update(before)
            raise
        return self

    def _cross_validate(self, name, run, lams):
        """Run the paths down ``lams`` (and below, see :meth:`fit`); set lams_ and the choice."""
        bar = tqdm(total=run.n_tasks * lams.size, desc=f"{name} (folds x problems x lams)",
                   unit="fit", bar_format=BAR_FORMAT, file=sys.stderr, leave=False,
                   disable=not self.verbose or not sys.stderr.isatty())
        active = np.ones(run.problems.n_problems, dtype=bool)
        try:
            self._descend(run, lams, active, bar)
            # A grid from the data continues its warm-started paths below its
            # bottom while some problem's score still rises there by more than
            # a standard error (three more points at a time, to lam_max * 1e-8).
            auto = isinstance(self.lams, Integral) and lams.size > 1
            while (auto and (active & self._rising_at_the_bottom(run)).any()
                   and run.lams[-1] > lams[0] * FLOOR):
                more = run.lams[-1] * (lams[1] / lams[0]) ** np.arange(1, 4)
                self._descend(run, more[more >= lams[0] * FLOOR * lams[1] / lams[0]],
                              active, bar)
        finally:
            bar.close()
        warn_path_failures(name, run.failures, run.n_tasks * run.lams.size,
                            run.problems.settings.tol, stacklevel=4)
        if run.shared and not np.isfinite(run.fold_scores).all():
            warnings.warn(f"{name}: the scoring {run.scoring.name!r} is undefined on some "
                          f"held-out folds; they are left out of the mean.", UserWarning,
                          stacklevel=3)
        self.lams_, self.scoring_, self.path_n_iter_ = run.lams, run.scoring.name, run.path_iter
        self._warn_at_the_bottom(run.lams, run.constant)

    def _descend(self, run, lams, active, bar):
        """Solve ``lams`` one after another on the active problems' paths, choosing as it goes.

        With ``early_stopping``, a problem (every problem, when lam is shared)
        stops descending once its mean held-out score has fallen more than one
        standard error (over the folds) below its best at two lams in a row:
        the path is past its optimum. ``active`` is updated in place.
        """
        for lam in lams:
            if not active.any():
                return
            left = lams.size - int(np.searchsorted(-lams, -lam))
            bar.total = bar.n + run.n_tasks // active.size * int(active.sum()) * left
            start = time.perf_counter()
            run.extend(np.array([lam]), bar, active)
            if run.lams.size == 1:  # the first lam: the search's length, said if long
                took = time.perf_counter() - start
                say_if_long(type(self).__name__, took * (1 + TimeBudget.GROWTH * (left - 1)),
                            f"{left} lams on every fold; the first took {took:.1f} s",
                            "a lam given by hand needs no search")
            self._choose(run)
            if self.early_stopping:
                active &= ~self._past_the_best(run)
            # the lams below cost more than this one (GROWTH each, as the search's
            # first line says); the paths that stopped cost nothing more
            took = (time.perf_counter() - start) * active.mean()
            bar.set_postfix_str(f"about {duration(took * TimeBudget.GROWTH * (left - 1))} "
                                "left")

    def _mean_and_se(self, run):
        """Mean held-out score and its standard error over the folds, (problems, lams)
        (one row when lam is shared); -inf where a path did not reach."""
        return mean_and_se(self.cv_scores_[None] if run.shared else self.cv_scores_, axis=1)

    def _per_problem(self, run, flags):
        return np.broadcast_to(flags, (run.problems.n_problems,)) if run.shared else flags

    def _past_the_best(self, run):
        """Per problem: are the last two lams' mean scores below best - one standard error?"""
        return self._per_problem(run, past_the_best(*self._mean_and_se(run)))

    def _rising_at_the_bottom(self, run):
        """Per problem: does the smallest lam's mean score beat all others by a standard error?"""
        mean, se = self._mean_and_se(run)
        rising = mean[:, -1] > mean[:, :-1].max(axis=1) + se[:, -1]
        return self._per_problem(run, rising)

    def _choose(self, run):
        """lam_, best_score_ and cv_scores_ from the paths run so far."""
        if run.scoring.native:
            self._native_choice(run)
        elif run.shared:
            self.cv_scores_ = self._shared_scores(run)
            mean = self.cv_scores_.mean(axis=0)
            best = int(np.argmax(mean))  # the first maximum: the largest lam
            self.lam_ = np.full(run.problems.n_problems, run.lams[best])
            self.best_score_ = float(mean[best])
        else:
            self.cv_scores_ = run.col_scores
            self.lam_, self.best_score_ = self._per_problem_choice(
                run.problems, run.scoring, run.lams, run.col_scores, run.tp, run.npos,
                run.constant, run.solved)

    def _native_choice(self, run):
        """lam_, best_score_ and cv_scores_ by textwin's scoring of the model's decision
        (:func:`select_lam`); the folds' scores of new lams are added to ``run``'s."""
        problems, scoring = run.problems, run.scoring
        done, L = run.fold_scores.shape[1], run.lams.size
        if done < L:
            whole = fold_scores(self._out_of_fold(run, slice(done, L)), run.truth, run.fold_of,
                                task=problems.mode, scoring=scoring.name, rule=scoring.rule)
            run.fold_scores = np.concatenate([run.fold_scores, whole], axis=1)
        if not np.isfinite(run.fold_scores).any(axis=0).all():
            raise ValueError(
                f"{type(self).__name__}: the scoring {scoring.name!r} is undefined on every "
                f"held-out fold; choose another scoring or other folds.")
        bad = ~np.isfinite(run.fold_scores)
        self.cv_scores_ = (np.where(bad, np.nanmean(run.fold_scores, axis=0), run.fold_scores)
                           if bad.any() else run.fold_scores)
        best, mean, _ = shared_choice(self.cv_scores_, self.one_se)
        self.best_score_ = float(mean[best])
        self._lam_index = best
        self.lam_ = np.full(problems.n_problems, run.lams[best])

    def _out_of_fold(self, run, lams):
        """(n, problems, lams) held-out scores: each sample's by the model of its fold."""
        return run.out_of_fold(lams)

    def _tune_thresholds(self, run):
        """thresholds_ of the rule on every out-of-fold score at the chosen lam."""
        if run.scoring.rule == "zero":
            return
        S = self._out_of_fold(run, slice(0, run.lams.size))
        self.thresholds_ = tuned_thresholds(S[:, :, self._lam_index], run.truth,
                                            run.scoring.rule, len(run.pairs))

    @property
    def cv_results_(self):
        """scikit-learn's dict of lists, a row per binary problem (one named "all" when
        ``lam`` is shared) and ``lam``: ``params`` ({"problem": name}), ``lam``,
        ``mean_test_score`` and ``std_test_score`` over the folds, ``rank_test_score``;
        the same rows as :meth:`cv_summary`'s curves."""
        return cv_results(self._result_rows()[1])

    def _result_rows(self, names=None):
        """The problems' names and the searches' one results format: a row per problem
        (or "all") and lam."""
        check_is_fitted(self, "lam_")
        if names is None:
            names = [str(c) for c in (self.classes_[-1:] if self.task_ == "binary"
                                      else self.classes_)]
        shared = self.cv_scores_.ndim == 2
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column: None
            means = (self.cv_scores_.mean(axis=0)[None] if shared
                     else np.nanmean(self.cv_scores_, axis=1))
        rows = []
        for name, mean, folds in zip(["all"] if shared else names, means,
                                     [self.cv_scores_] if shared else self.cv_scores_):
            rows += result_rows({"problem": str(name)}, self.lams_, mean, folds, lam_key="lam")
        return names, rows

    def cv_summary(self, names=None):
        """What the cross-validation chose, JSON-ready (for reports and plots).

        Parameters
        ----------
        names : list of str, optional
            A name per binary problem (default: the classes, or the label
            columns' indices).

        Returns
        -------
        summary : dict
            ``scoring``, ``folds``, ``lams`` (the grid, descending), ``shared``
            (one lam for every problem), ``lam`` ({name: chosen lam}),
            ``cv_score`` (:attr:`best_score_`) and ``curves`` ({name: mean
            held-out score per lam}; a single ``"all"`` curve when the lam is
            shared). Undefined means are None.
        """
        names, rows = self._result_rows(names)
        shared = self.cv_scores_.ndim == 2
        curves = {params["problem"]: scores for params, scores in mean_curves(rows)}
        return {
            "scoring": self.scoring_ if isinstance(self.scoring_, str) else repr(self.scoring_),
            "folds": int(self.cv_scores_.shape[-2]), "lams": [float(x) for x in self.lams_],
            "shared": bool(shared),
            "lam": {str(name): float(lam) for name, lam in zip(names, self.lam_)},
            "cv_score": float(self.best_score_), "curves": curves,
        }

    # -- the steps of fit -----------------------------------------------------

    def _warn_at_the_bottom(self, lams, constant):
        """Say so when the best lam is the grid's smallest: the optimum may lie below it."""
        at_bottom = [k for k in range(self.lam_.size)
                     if self.lam_[k] == lams[-1] and k not in constant]
        if not at_bottom or lams.size < 2:
            return
        shared = self.task_ != "multilabel" or np.all(self.lam_ == self.lam_[0])
        what = "the shared lam" if shared else "the lam of {problems}"
        fix = "{search_lower}" if isinstance(self.lams, Integral) else "{search_given}"
        warnings.warn(LamGridWarning(
            f"{{estimator}}: {what} is the smallest of the grid ({lams[-1]:.3g}); "
            f"the cross-validated score may still rise below it. Search further with {fix}.",
            [] if shared else at_bottom, type(self).__name__), stacklevel=4)

    def _folds(self, problems, y):
        """The (train, test) index pairs; one-line errors and warnings about sizes."""
        y_split = None if problems.mode == "multilabel" else problems.class_index()
        folds = search_folds(type(self).__name__, self.cv, problems.n, problems.mode,
                             y_split, problems.classes)
        if problems.mode == "multilabel" and not self._native_scoring():
            self._warn_missing_positives(problems, folds)
        return folds

    def _native_scoring(self):
        return self.scoring is None or (isinstance(self.scoring, str) and self.scoring in SCORINGS)

    def _decision_thresholds(self):
        """The tuned thresholds (``thresholds=``), else 0."""
        t = getattr(self, "thresholds_", None)
        return 0.0 if t is None else (t[0] if self.task_ == "binary" else t)

    def _warn_missing_positives(self, problems, folds):
        """Name the label columns with a held-out fold without positives (its score is left out)."""
        missing = []
        for k in range(problems.n_problems):
            y = problems.labels.column(k)
            empty = [f for f, (_, test) in enumerate(folds) if not np.any(y[test] > 0)]
            if empty and np.any(y > 0):
                missing.append((k, empty))
        if missing:
            shown = ", ".join(f"column {k} (folds {', '.join(map(str, e))})"
                              for k, e in missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            warnings.warn(
                f"{type(self).__name__}: {len(missing)} label column(s) have a held-out fold "
                f"without positive examples: {shown}{more}. Those folds are left out of "
                f"the column's score; fewer folds (cv) give each one positives.",
                UserWarning, stacklevel=4)

    def _shared_scores(self, run):
        """(n_folds, n_lams) scores of the whole model (one lam for every problem).

        The lams scored before are kept (``run.fold_scores``); NaN where the
        scoring is undefined on a fold, which :meth:`fit` reports.
        """
        problems, scoring = run.problems, run.scoring
        done = run.fold_scores.shape[1]
        new = np.empty((len(run.pairs), run.lams.size - done))
        for f, (_, test) in enumerate(run.pairs):
            for l in range(done, run.lams.size):
                S = run.held[f][:, :, l]
                if scoring.bep:
                    T = np.column_stack([problems.labels.column(k)[test] > 0
                                         for k in range(problems.n_problems)])
                    counts = [scoring.binary_counts(T[:, k], S[:, k]) for k in range(S.shape[1])]
                    pos = sum(c[1] for c in counts)
                    new[f, l - done] = sum(c[0] for c in counts) / pos if pos else np.nan
                else:
                    new[f, l - done] = self._score_scores(problems, scoring, test, S)
        run.fold_scores = np.concatenate([run.fold_scores, new], axis=1)
        out = run.fold_scores
        bad = ~np.isfinite(out)
        if bad.all(axis=0).any():
            raise ValueError(
                f"{type(self).__name__}: the scoring {scoring.name!r} is undefined on every "
                f"held-out fold; choose another scoring or other folds.")
        return np.where(bad, np.nanmean(out, axis=0), out) if bad.any() else out

    def _score_scores(self, problems, scoring, test, S):
        """The scorer on one held-out fold, the model given by its scores ``S`` (n_test, K)."""
        index = problems.class_index()[test]
        if scoring.name == "accuracy":  # the estimator's predict, without building one
            predicted = decide(problems.mode, S[:, 0] if problems.mode == "binary" else S)
            return float(np.mean(predicted == index))
        # a model whose decision_function returns S: identity weights over S's columns
        K = S.shape[1]
        y_test = problems.classes[index]
        if problems.mode == "binary":
            return scoring.score(S[:, :1], y_test, np.ones((1, 1)), np.zeros(1),
                                 problems.classes, "binary")
        return scoring.score(S, y_test, np.eye(K), np.zeros(K), problems.classes, problems.mode)

    def _per_problem_choice(self, problems, scoring, lams, col_scores, tp, npos, constant,
                            solved):
        """lam per label column and the CV score of the choice."""
        K = problems.n_problems
        if scoring.bep:
            pooled_tp, pooled_pos = tp.sum(axis=1), npos.sum(axis=1)  # (K, L), (K,)
            value = np.divide(pooled_tp, pooled_pos[:, None], out=np.full_like(pooled_tp, np.nan),
                              where=pooled_pos[:, None] > 0)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns: below
                value = np.nanmean(col_scores, axis=1)
        value = np.where(solved, value, np.nan)  # lams a stopped path did not reach
        finite = np.isfinite(value)
        usable = finite.any(axis=1)
        if not usable.any():
            raise ValueError(
                f"{type(self).__name__}: the scoring {scoring.name!r} is undefined for every "
                f"label column on every fold (no held-out positives); choose fewer folds.")
        # a column whose own scores cannot choose (none, or a break-even point over too
        # few held-out positives) takes the lam best on average over those that can
        chooses = usable & (pooled_pos >= FEW_POSITIVES) if scoring.bep else usable
        if not chooses.any():
            chooses = usable
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a lam no column reached
            average = np.nanmean(value[chooses], axis=0)
        fallback = int(np.argmax(np.where(np.isfinite(average), average, -np.inf)))
        choice = np.where(chooses, np.argmax(np.where(finite, value, -np.inf), axis=1),
                          fallback)
        unscored = [k for k in range(K) if not usable[k] and k not in constant]
        rare = [k for k in range(K) if usable[k] and not chooses[k] and k not in constant]
        for columns, why in ((unscored, f"no held-out fold where {scoring.name!r} is defined"),
                             (rare, f"fewer than {FEW_POSITIVES} held-out positives, too "
                                    f"few to choose by")):
            if columns:
                named = ", ".join(str(k) for k in columns[:10]) + (
                    f" and {len(columns) - 10} more" if len(columns) > 10 else "")
                warnings.warn(
                    f"{type(self).__name__}: {len(columns)} label column(s) ({named}) have "
                    f"{why}; they take lam={lams[fallback]:.3g}, the best on average over "
                    f"the columns that can choose.", UserWarning, stacklevel=3)
        cols = np.arange(K)
        if scoring.bep:
            best = pooled_tp[cols, choice].sum() / pooled_pos.sum()
        else:
            best = value[cols[usable], choice[usable]].mean()
        return lams[choice], float(best)

    def _refit(self, problems, run):
        """Fit every problem on all the data at its chosen lam (the base estimator's
        collection; on the cluster's workers when the paths ran there)."""
        K, d = problems.n_problems, problems.d_user
        coef, dual, bias = np.empty((K, d)), np.empty((K, problems.n)), np.empty(K)
        s = problems.settings

        def store(k, out):
            coef[k] = out["w"][:d]
            own_bias = s.intercept == "constant_feature" and not out["constant"]
            bias[k] = out["w"][-1] if own_bias else out["bias"]
            del out["w"]
            return out

        if run.data is None:  # threads over the one matrix
            views = problems.views(problems.X)
            results = map_problems(
                lambda k: store(k, refit_problem(problems, views, k, self.lam_[k], dual[k])),
                K, self.n_jobs)
        else:  # on the workers, which hold the data already
            def collect(k, out):
                dual[k] = out.pop("alpha")
                return store(k, out)

            results = map_on_cluster(run.cluster, refit_task, run.data, K, label="textwin-refit",
                                     extra=lambda k: (self.lam_[k],), on_result=collect,
                                     describe=lambda k: f"the refit of problem {k}")
        self._collect(results, coef, dual, bias, s)
        self._fit_dimension = problems.X.shape[1]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self._warn_after_fit(results, s, problems.params)
        for w in caught:  # this estimator has no warm start to resume with
            message = w.message
            if isinstance(message, SolverConvergenceWarning):
                message.args = (message.render(SolverConvergenceWarning.API_NAMES, resume=False),)
            if isinstance(message, DegenerateSolutionWarning) and message.reason is not None:
                # lam was chosen: "choose it by cross-validation" is no advice here
                message.advice = (f"lam {self.lam_[message.problems[0]]:.3g} is the "
                                  "cross-validation's choice; {smaller_lam} avoids it")
                message.args = (message.render(DegenerateSolutionWarning.API_NAMES),)
            warnings.warn(message, stacklevel=3)
