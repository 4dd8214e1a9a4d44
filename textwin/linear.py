"""Linear classifiers trained by dual Gauss-Seidel (docs/mathematics.md §1-§8, §10).

:class:`DualGaussSeidelClassifier` is the general estimator: any loss of
docs/mathematics.md §4 with any regularizer of §5, an optional threshold and
margin (§7), and an optional bias (Algorithm 2 of §8, or a
regularized constant feature). The presets below it fix the loss and the
regularizer and carry the papers' defaults:

=========================  ==========================================================
class                      paper name
=========================  ==========================================================
DualSVM                    SVM by Algorithm 1 (update (29)); with ``fit_intercept``,
                           SVM by Algorithm 2 (update (30))
ModifiedLeastSquares       modified least squares, update (27), constant feature
RegularizedWinnow          regularized Winnow, update (28) (Reuters Table 1)
LargeMarginPerceptron      LM-Perc (*Regularized Winnow methods*, section 4)
LargeMarginUWinnow         LM-UWin (same)
LargeMarginNWinnow         LM-NWin (same)
=========================  ==========================================================

All of them share one CSR matrix across the binary problems of a multi-class
(one-vs-rest) or multi-label fit and train the problems in threads (the
kernel releases the GIL).
"""
import inspect
import logging
import math
import sys
import time
import warnings
from dataclasses import replace
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import Bunch
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted
from tqdm import tqdm

from textwin._binary import (ProblemArguments, SolverSettings, solve_binary_problem,
                             solve_problem_task, solver_intercept)
from textwin._distributed import active_cluster, map_on_cluster
from textwin.calibration import Calibration, calibrate
from textwin._kernels._dual_gs import check_csr
from textwin._losses_and_regularizers import (LOSSES, REGULARIZERS, loss_named,
                                              regularizer_named)
from textwin._scale import (AUTO, DEGENERATE_MOVE, DEGENERATE_SPREAD,
                            DEGENERATE_SQUARE_SPREAD,
                            DegenerateSolutionWarning)
from textwin._ovr import (
    MAX_EPOCHS,
    ConstantModelWarning,
    OneVsRestLinearMixin,
    append_constant,
    check_class_weight,
    check_positive,
    check_sample_weight,
    convergence_warning,
    effective_n_jobs,
    map_problems,
    problem_seeds,
    shuffle_block,
    store_params,
)
from textwin.tasks import ABSENT_SCORE

# one DEBUG record per binary problem (epochs, gap, seconds): applications see
# them through logging; ``verbose=2`` prints them on stderr instead
logger = logging.getLogger(__name__)

__all__ = [
    "DualGaussSeidelClassifier",
    "DualSVM",
    "ModifiedLeastSquares",
    "RegularizedWinnow",
    "LargeMarginPerceptron",
    "LargeMarginUWinnow",
    "LargeMarginNWinnow",
    "DegenerateSolutionWarning",
]

# ---------------------------------------------------------------------------
# Dual Gauss-Seidel
# ---------------------------------------------------------------------------

# Every loss works with every regularizer (the kernel picks the step,
# docs/mathematics.md §6); this list is what the error for a bad pair quotes.
_VALID_PAIRS = [(loss, reg) for loss in LOSSES for reg in REGULARIZERS]
_INTERCEPT_SOLVERS = ("auto", "converged", "paper", "constant_feature")


class DualGaussSeidelClassifier(OneVsRestLinearMixin, ClassifierMixin, BaseEstimator):
    """Linear classifier by dual Gauss-Seidel: a loss of the margin plus a regularizer.

    Solves, for each binary problem (docs/mathematics.md §1, ``z_i = y_i x_i``,
    ``u_i = w @ z_i``)::

        minimize_w  (1/N) sum_i s_i f(u_i; t_i) + lam g(w),   N = sum_i sample_weight_i

    by coordinate descent on the dual (Algorithm 1, docs/mathematics.md §3), and stops
    when the relative duality gap ``gap / max(P(w), eps)`` is at most ``tol``
    (checked every epoch). ``s_i`` is ``sample_weight`` times the class weight;
    ``N`` is ``n`` without sample weights, so that a weight ``k`` is exactly
    ``k`` copies of the row. In scikit-learn's scaling ``C = 1 / (lam * N)``:
    ``loss="hinge"`` with ``regularizer="square"`` is
    ``LinearSVC(loss="hinge", C=1/(lam n))``.

    Parameters
    ----------
    loss : {"hinge", "squared_hinge", "least_squares", "logistic"}, default="hinge"
        ``f`` of docs/mathematics.md §4. ``"squared_hinge"`` is the paper's modified
        least squares.
    regularizer : {"square", "entropy", "normalized_entropy", "balanced_entropy", \
            "balanced_normalized_entropy"}, default="square"
        ``g`` of docs/mathematics.md §5. The entropies keep positive weights
        (``"balanced_*"``: ``w = w+ - w-``); the normalized ones keep
        ``||w||_1 = mass`` (``||w+||_1 + ||w-||_1`` when balanced).
    lam : float > 0, default=1e-3
        Regularization strength ``lam`` (``C = 1 / (lam N)``, ``N = n`` without
        sample weights).
    tol : float >= 0, default=1e-3
        Stop when the relative duality gap is at most ``tol``.
    max_epochs : int >= 1, default=1000
        Most passes over the data per binary problem (per inner solve in
        Algorithm 2).
    fit_intercept : bool, default=False
        Fit a bias. How is chosen by ``intercept_solver``.
    intercept_solver : {"auto", "converged", "paper", "constant_feature"}, default="auto"
        ``"converged"``: Algorithm 2 (docs/mathematics.md §8), an unregularized bias by
        augmented Lagrangian, run until the inner relative gap is at most ``tol``
        and the residual ``|sum_i alpha_i y_i| / (lam n)`` at most
        ``intercept_tol`` (at most 100 rounds). ``"paper"``: Algorithm 2 with the
        Reuters experiment's budget, 4 rounds of at most 50 epochs (which can
        stop far from the optimum). ``"constant_feature"``: append a constant
        feature 1 and regularize it like the others (the *Regularized Winnow*
        paper's choice for its balanced Winnows; under the square regularizer
        the solver's own bias coordinate, the same problem without a copy of X). ``"auto"`` is
        ``"constant_feature"`` for the balanced entropies, as that paper did,
        and ``"converged"`` otherwise: under ``"entropy"`` and
        ``"normalized_entropy"`` every weight is >= 0, the constant feature's
        too, so such a bias could only raise the scores (the paper's positive
        Winnow used the threshold ``theta`` instead; Algorithm 2 works with
        every regularizer, the bias coordinate being kept out of ``g``). The
        choice made is stored in ``intercept_solver_``.
    rho0 : float > 0, default=1.0
        Algorithm 2's initial penalty parameter ``rho`` (the paper's value was
        lost; a small value hurts).
    intercept_tol : float > 0, default=1e-6
        Algorithm 2's bound on the residual ``|sum_i alpha_i y_i| / (lam n)``.
    theta : float, default=0.0
        Decision threshold: score ``w @ x - theta`` (docs/mathematics.md §7).
    gamma : float or None, default=None
        Margin around the threshold: the per-example target is
        ``t_i = gamma + y_i theta`` (in class: ``theta + gamma``, out of class:
        ``gamma - theta``). None means 1, or 0 for the logistic loss.
    prior : "auto", None, float or array of shape (n_features,), default="auto"
        The entropy regularizers' prior ``mu`` (positive), the initial weight
        of a Winnow. ``"auto"``: uniform, and for ``"entropy"`` and
        ``"balanced_entropy"`` scaled to the total ``||w_sq||_1``, the 1-norm
        of the same problem's solution under the square regularizer at the
        same ``lam`` (see ``mass="auto"``). None: uniform ``1/d``
        (``"entropy"``, ``"normalized_entropy"``) or ``1/(2d)`` (the balanced
        ones), ``d`` counting the constant feature if any. A float fills every
        entry. For the normalized regularizers the prior is rescaled to sum to
        1 (to 1/2 when balanced); its shape is what matters. Ignored by
        ``"square"`` (which takes only "auto" or None).
    mass : "auto", float > 0 or "prior", default="auto"
        The normalized entropies' ``A = ||w||_1``. ``"auto"``: ``A =
        ||w_sq||_1``, as for ``prior="auto"``, per binary problem (stored in
        ``mass_``). With either automatic scale the solver runs at ``lam * A /
        d``, so that ``lam`` regularizes as much as the square regularizer's
        near the prior and the same ``lam`` values suit every regularizer
        (docs/mathematics.md §14). ``"prior"`` takes the total of the prior as
        given (``sum mu``, or ``2 sum mu`` when balanced), the *Regularized
        Winnow* paper's ``W = ||mu||_1``. A fixed scale that does not fit the
        data can give a degenerate solution (training scores all equal,
        weights still at the prior, or no margin met), which is warned about
        (:class:`DegenerateSolutionWarning`).
    shuffle : bool, default=True
        Visit the examples in a fresh random order each epoch (else in data order,
        as in the papers). From 120,000 rows with a matrix beyond the CPU's
        last-level cache the order is drawn over blocks of 4 consecutive rows
        (faster to a given gap, docs/performance.md).
    random_state : int, RandomState instance, Generator or None, default=None
        Seeds the permutations (the only randomness; none with
        ``shuffle=False``). Problem ``k`` of a multi-class or multi-label fit
        gets the ``k``-th seed drawn from it, so results do not depend on
        ``n_jobs``. An int gives the same fit every time; a RandomState or
        Generator instance advances with each fit.
    n_jobs : int or None, default=None
        Threads over the binary problems: None or 1 for one, -1 for all cores,
        -2 for all but one (joblib's convention; 0 is an error). The CSR
        matrix is shared, never copied per problem.
    step : {"auto", "newton", "gradient"}, default="auto"
        The coordinate step (docs/mathematics.md §6): exact where a closed form
        exists, else a safeguarded Newton step; ``"gradient"`` is a fixed step
        ``gradient_step``.
    step_fraction : float in (0, 1], default=1.0
        Take this fraction of each step.
    gradient_step : float or None, default=None
        The fixed step of ``step="gradient"``, in the *Regularized Winnow*
        paper's scaling: the kernel takes ``gradient_step * lam * n`` (docs/mathematics.md
        §10). None means 0.01, the paper's value.
    exp_cap : float > 0, default=ln(2)/2
        The entropy rows' exponent cap ``kappa`` (docs/mathematics.md §6).
    warm_start : bool, default=False
        Start from the previous fit's dual variables (same data shape and
        classes), e.g. along a decreasing ``lam`` path.
    class_weight : None, "balanced" or dict, default=None
        Multiplies the loss weight of each class's examples (for one-vs-rest and
        multi-label problems: the positives of that class).
    probability : bool, default=False
        Calibrate probabilities for :meth:`predict_proba` (``calibration_``), as
        ``sklearn.svm.SVC(probability=True)``: 5-fold cross-validation
        (stratified, fewer folds for a class of fewer than 5 examples) gives every
        example an out-of-fold score, and Platt's sigmoid fitted on them per binary
        problem turns the final model's scores into probabilities
        (:mod:`textwin.calibration`, docs/mathematics.md §15). It costs the folds'
        fits, about 4 more. Without it the logistic loss's scores are log-odds
        already (strongly regularized, they are too timid: the sigmoid sharpens them).
    verbose : int, default=0
        1: a progress bar over the binary problems on stderr (when it is a
        terminal); 2: also one line per problem (its class, epochs, relative
        gap, seconds). Below 2 the same lines go to the ``textwin.linear``
        logger at DEBUG level, for applications that collect logs.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Sorted class labels (``arange(n_labels)`` for a multi-label y).
    task_ : {"binary", "multiclass", "multilabel"}
        How the labels were read: one problem for two classes, one per class, or one
        per column of an indicator matrix.
    coef_ : ndarray of shape (n_problems, n_features)
        Weights ``w`` (one row per binary problem; one row for binary y).
    intercept_ : ndarray of shape (n_problems,)
        Bias minus ``theta``: ``decision_function = X @ coef_.T + intercept_``.
    dual_coef_ : ndarray of shape (n_problems, n_samples)
        The dual variables ``alpha`` in docs/mathematics.md's scaling (the *Regularized
        Winnow* paper's are ``alpha / (lam n)``), for the kernel's loss weights
        ``s_i n / N``.
    duality_gap_ : ndarray of shape (n_problems,)
        Final relative duality gap of each problem.
    gap_history_ : list of ndarray
        Relative duality gaps at each exact check, per problem (all rounds of
        Algorithm 2): the solver makes one when a cheap running estimate says
        it may be done (and, while that estimate is known to run low, at least
        every quarter of the epochs run).
    n_iter_ : ndarray of shape (n_problems,)
        Epochs run per problem (summed over Algorithm 2's rounds).
    intercept_solver_ : str
        ``"none"``, ``"converged"``, ``"paper"`` or ``"constant_feature"``.
    intercept_residual_ : ndarray of shape (n_problems,)
        Algorithm 2 only: ``|sum_i alpha_i y_i| / (lam n)`` at the end.
    n_rounds_ : ndarray of shape (n_problems,)
        Algorithm 2 only: outer rounds run.
    n_features_in_ : int
        Number of features seen in ``fit``.
    calibration_ : textwin.calibration.Calibration
        How :meth:`predict_proba` turns scores into probabilities: the logistic
        loss's link, or (``probability=True``) a sigmoid per problem.

    See Also
    --------
    DualSVM, ModifiedLeastSquares, RegularizedWinnow, LargeMarginPerceptron,
    LargeMarginUWinnow, LargeMarginNWinnow : presets of this class.
    """

    def __init__(
        self,
        loss="hinge",
        regularizer="square",
        lam=1e-3,
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
        warm_start=False,
        class_weight=None,
        probability=False,
        verbose=0,
    ):
        store_params(self, locals())

    # The presets fix some of these; everything reads parameters through here.
    _fixed_params = {}

    def all_params(self):
        """Every parameter of the general model as this estimator fits with it: a preset's
        fixed ones (its loss and regularizer) included, which ``get_params`` omits."""
        params = dict(_GENERAL_DEFAULTS)
        params.update(self._fixed_params)
        params.update(self.get_params(deep=False))
        return params

    # -- validation ---------------------------------------------------------

    def _check_params(self, p):
        name = type(self).__name__
        if p["loss"] not in LOSSES or p["regularizer"] not in REGULARIZERS:
            valid = ", ".join(f"({loss!r}, {reg!r})" for loss, reg in _VALID_PAIRS)
            raise ValueError(
                f"{name}: the combination loss={p['loss']!r}, regularizer="
                f"{p['regularizer']!r} is not supported. Valid (loss, regularizer) "
                f"pairs: {valid}."
            )
        check_positive(name, "lam", p["lam"])
        check_positive(name, "tol", p["tol"], allow_zero=True)
        check_positive(name, "rho0", p["rho0"])
        check_positive(name, "intercept_tol", p["intercept_tol"])
        check_positive(name, "exp_cap", p["exp_cap"])
        if (not isinstance(p["max_epochs"], Integral)
                or not 1 <= p["max_epochs"] <= MAX_EPOCHS):  # the kernel counts in a C int
            raise ValueError(f"{name}: max_epochs must be an integer in [1, {MAX_EPOCHS}], "
                             f"got {p['max_epochs']!r}.")
        if not (isinstance(p["step_fraction"], Real) and 0 < p["step_fraction"] <= 1):
            raise ValueError(f"{name}: step_fraction must be in (0, 1], got {p['step_fraction']!r}.")
        if p["step"] not in ("auto", "newton", "gradient"):
            raise ValueError(
                f"{name}: step={p['step']!r} is not valid; use 'auto', 'newton' or 'gradient'."
            )
        if p["gradient_step"] is not None:
            check_positive(name, "gradient_step", p["gradient_step"])
        if p["intercept_solver"] not in _INTERCEPT_SOLVERS:
            raise ValueError(
                f"{name}: intercept_solver={p['intercept_solver']!r} is not valid; use one "
                f"of {list(_INTERCEPT_SOLVERS)}."
            )
        if not isinstance(p["theta"], Real) or not np.isfinite(p["theta"]):
            raise ValueError(f"{name}: theta must be a finite number, got {p['theta']!r}.")
        if p["gamma"] is not None and (not isinstance(p["gamma"], Real) or not np.isfinite(p["gamma"])):
            raise ValueError(f"{name}: gamma must be a finite number or None, got {p['gamma']!r}.")
        if isinstance(p["prior"], str) and p["prior"] != "auto":
            raise ValueError(f"{name}: prior must be 'auto', None, a number > 0 or an array "
                             f"of them, got {p['prior']!r}.")
        if not regularizer_named(p["regularizer"]).entropy and not _is_auto_or_none(p["prior"]):
            raise ValueError(
                f"{name}: prior is the entropy regularizers' mu; it must be 'auto' or "
                f"None with regularizer='square'."
            )
        if isinstance(p["mass"], str):
            if p["mass"] not in ("auto", "prior"):
                raise ValueError(f"{name}: mass must be 'auto', 'prior' or a finite number "
                                 f"> 0, got {p['mass']!r}.")
        else:
            check_positive(name, "mass", p["mass"])
        try:
            effective_n_jobs(p["n_jobs"])
        except ValueError as exc:
            raise ValueError(f"{name}: {exc}") from None

    def _prior_and_mass(self, p, d):
        """mu (d,) and A in the kernel's conventions (docs/mathematics.md §5).

        An automatic scale (docs/mathematics.md §14) returns the prior's shape
        (total 1: ``sum mu = 1``, ``sum 2 mu = 1`` when balanced) and
        ``A = "auto"``; each problem then gets its own from a square solve.
        """
        reg = regularizer_named(p["regularizer"])
        if not reg.entropy:
            return None, 1.0
        balanced = reg.balanced
        if _is_auto_or_none(p["prior"]):
            mu = np.full(d, 1.0 / (2 * d if balanced else d))
        else:
            mu = np.asarray(p["prior"], dtype=np.float64)
            if mu.ndim == 0:
                mu = np.full(d, float(mu))
            elif p["fit_intercept"] and self.intercept_solver_ == "constant_feature" and mu.shape == (d - 1,):
                # a prior over the user's features: the constant feature gets their mean
                mu = np.append(mu, mu.mean())
            if mu.shape != (d,):
                raise ValueError(
                    f"{type(self).__name__}: prior has shape {mu.shape}; expected ({d},) "
                    f"(one entry per feature)."
                )
            if not np.all(np.isfinite(mu)) or np.any(mu <= 0):
                raise ValueError(f"{type(self).__name__}: prior must be finite and > 0.")
        total = mu.sum() * (2.0 if balanced else 1.0)
        if not reg.normalized:
            # the unnormalized entropies' scale is the prior's: automatic only when asked
            if p["mass"] == "prior":
                raise ValueError(
                    f"{type(self).__name__}: mass='prior' only applies to the normalized "
                    f"entropies, not regularizer={reg.name!r}."
                )
            if isinstance(p["prior"], str):
                return np.ascontiguousarray(mu / total), AUTO
            return np.ascontiguousarray(mu), 1.0
        if p["mass"] == "auto":
            mass = AUTO
        elif p["mass"] == "prior":
            if isinstance(p["prior"], str):
                raise ValueError(
                    f"{type(self).__name__}: mass='prior' takes the total of a given prior; "
                    f"with prior='auto' use mass='auto' or a number."
                )
            mass = float(total)
        else:
            mass = float(p["mass"])
        return np.ascontiguousarray(mu / total), mass  # sum mu = 1 (sum 2 mu = 1 if balanced)

    # -- fit ----------------------------------------------------------------

    def fit(self, X, y, sample_weight=None, column_scale=None):
        """Fit one binary problem per class (one-vs-rest) or per label column.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; converted once to CSR (float64, int32 indices) and
            shared by every binary problem.
        y : array-like of shape (n_samples,) or (n_samples, n_labels)
            Class labels, or a multi-label 0/1 indicator matrix (dense or sparse).
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each example's loss term (weight ``k`` = ``k`` copies).
        column_scale : array-like of shape (n_features,), default=None
            ``r``: fit on ``X`` with column ``j`` scaled by ``r_j`` (the naive Bayes
            scaling's log-count ratios, say), under the square regularizer, without a
            scaled copy of ``X`` (docs/mathematics.md §5, "A per-feature scale").
            ``coef_`` is then ``r`` times the scaled problem's weights: the model
            scores ``X`` itself, unscaled.

        Returns
        -------
        self : object
        """
        p = self.all_params()
        self._check_params(p)
        before = dict(self.__dict__)
        try:
            prepared = self.prepare_fit(X, y, sample_weight, p, column_scale)
            X_given, X, labels = prepared.X_user, prepared.X, prepared.labels
            sw = prepared.sample_weight
            n, d_user = X_given.shape
            K = labels.n_problems
            settings = prepared.settings
            entropy = regularizer_named(p["regularizer"]).entropy
            problem = self._problem_arguments(labels, sw, p, n, X.shape[1])

            # The fitted arrays are filled in place, row k by problem k: a fit over
            # K problems holds the CSR matrix, these and O(n + d) per thread, not a
            # list of K solutions stacked into copies at the end.
            coef, dual, bias = np.empty((K, d_user)), np.empty((K, n)), np.empty(K)

            def store(k, out, seconds):
                w = out.pop("w")
                coef[k] = w[:d_user]
                own_bias = settings.intercept == "constant_feature" and not out["constant"]
                bias[k] = w[-1] if own_bias else out["bias"]
                self._log_problem(k, out, seconds, p["verbose"])
                return out

            cluster = active_cluster()
            if cluster is None:  # threads over the one matrix
                Xc = check_csr(X.data, X.indices, X.indptr, X.shape[1], entropy)
                # the automatic scale's square solves read the row norms: checked once
                Xsq = (check_csr(X.data, X.indices, X.indptr, X.shape[1], False)
                       if settings.mass == AUTO else None)

                def solve(k):
                    started = time.perf_counter()
                    args = problem(k, dual[k])  # dual[k]: the contiguous row the kernel updates
                    out = solve_binary_problem(Xc, settings=settings, X_square=Xsq, **args)
                    return store(k, out, time.perf_counter() - started)

                results = map_problems(solve, K, p["n_jobs"], desc=type(self).__name__,
                                       verbose=p["verbose"])
            else:  # one task per problem on joblib's Dask or Ray cluster (docs/scaling.md)
                def collect(k, out):
                    dual[k] = out.pop("alpha")
                    return store(k, out, out.pop("seconds"))

                warm = problem.alpha0
                shared = dict(X=X, entropy=entropy, problem=problem.without_warm_start(),
                              settings=settings)
                results = map_on_cluster(
                    cluster, solve_problem_task, shared, K, label="textwin-fit",
                    extra=lambda k: (None if warm is None else warm[k],), on_result=collect,
                    describe=lambda k: f"problem {k} ({self._describe_problem(k)})",
                    desc=type(self).__name__, verbose=p["verbose"])
            self._collect(results, coef, dual, bias, settings)
            self._fit_dimension = X.shape[1]
            self._warn_after_fit(results, settings, p)
            self.__dict__.pop("calibration_", None)
            if p["probability"]:
                self.calibration_ = self._calibrate(X_given, y, sw, p, settings.column_scale)
            elif loss_named(p["loss"]).probabilistic:
                self.calibration_ = Calibration("logistic")
            return self
        except BaseException:
            # no partial model: a fit that fails (a bad label, a lost cluster,
            # an interrupt) leaves the estimator as it was
            self.__dict__.clear()
            self.__dict__.update(before)
            raise

    # -- the steps of fit -----------------------------------------------------

    def prepare_fit(self, X, y, sample_weight=None, params=None, column_scale=None):
        """The problems :meth:`fit` solves, prepared as it prepares them (the
        regularization paths and the cross-validation solve exactly these, one lam
        after another): a :class:`~sklearn.utils.Bunch` of ``params`` (:meth:`all_params`,
        checked), ``X_user`` (canonical CSR), ``X`` (with the constant feature when that is
        the bias), ``labels``, ``sample_weight`` and the solver's ``settings``. Sets
        ``classes_`` and ``intercept_solver_``, as fit does. ``column_scale``: as
        :meth:`fit`'s, into the settings."""
        p = self.all_params() if params is None else params
        if params is None:
            self._check_params(p)
        X_user, labels, sw = self._validate_fit_data(X, y, sample_weight, p)
        X = self._choose_intercept(X_user, p)
        settings = self._solver_settings(X, p)
        if column_scale is not None:
            settings = replace(settings, column_scale=self._column_scale(column_scale, X_user, p))
        return Bunch(params=p, X_user=X_user, X=X, labels=labels, sample_weight=sw,
                     settings=settings)

    def _column_scale(self, column_scale, X, p):
        """A fit's ``column_scale`` as the kernel takes it, or a one-line ValueError."""
        name = type(self).__name__
        if regularizer_named(p["regularizer"]).entropy:
            raise ValueError(f"{name}: column_scale is for regularizer='square', not "
                             f"{p['regularizer']!r}; scale the columns of X instead.")
        r = np.asarray(column_scale, dtype=np.float64)
        if r.shape != (X.shape[1],) or not np.all(np.isfinite(r)):
            raise ValueError(f"{name}: column_scale must hold one finite number per feature "
                             f"({X.shape[1]}), got shape {r.shape}.")
        return np.ascontiguousarray(r)

    def _validate_fit_data(self, X, y, sample_weight, p):
        """Canonical CSR X, the problems' labels (sets classes_) and the sample weights."""
        X = self._validate_X(X, reset=True)
        labels = self._encode_labels(y, X.shape[0], stacklevel=5)
        sw = check_sample_weight(sample_weight, X.shape[0])
        check_class_weight(p["class_weight"], self.classes_)
        return X, labels, sw

    def _choose_intercept(self, X, p):
        """Set ``intercept_solver_``; return X, with the constant feature if it is the bias."""
        if not p["fit_intercept"]:
            mode = "none"
        elif p["intercept_solver"] == "auto":
            mode = ("constant_feature" if regularizer_named(p["regularizer"]).balanced
                    else "converged")
        else:
            mode = p["intercept_solver"]
            if mode == "constant_feature" and regularizer_named(p["regularizer"]).positive:
                warnings.warn(
                    f"{type(self).__name__}: under regularizer={p['regularizer']!r} the "
                    f"constant feature's weight is >= 0, so intercept_solver="
                    f"'constant_feature' gives a bias that can only raise the scores. Use "
                    f"intercept_solver='converged' for a bias of either sign, or theta "
                    f"for a fixed threshold.", UserWarning, stacklevel=4)
        self.intercept_solver_ = mode
        # under the square regularizer the kernel's bias coordinate is the constant feature
        # (solver_intercept): no copy of X with the column appended
        in_matrix = solver_intercept(mode, p["regularizer"]) == "constant_feature"
        return append_constant(X) if in_matrix else X

    def _solver_settings(self, X, p):
        """The :class:`SolverSettings` shared by every binary problem of this fit."""
        mu, mass = self._prior_and_mass(p, X.shape[1])
        intercept = solver_intercept(self.intercept_solver_, p["regularizer"])
        gamma = p["gamma"]
        if gamma is None:
            gamma = loss_named(p["loss"]).default_gamma
        gradient_step = None
        if p["step"] == "gradient":  # the paper's scaling to the kernel's (docs/mathematics.md §10)
            step = 0.01 if p["gradient_step"] is None else float(p["gradient_step"])
            gradient_step = step * (p["lam"] * X.shape[0])
        return SolverSettings(
            loss=p["loss"], regularizer=p["regularizer"], lam=float(p["lam"]), mu=mu,
            mass=mass, theta=float(p["theta"]), gamma=float(gamma), tol=float(p["tol"]),
            max_epochs=int(p["max_epochs"]), intercept=intercept,
            rho0=float(p["rho0"]), intercept_tol=float(p["intercept_tol"]),
            shuffle=bool(p["shuffle"]),
            shuffle_block=shuffle_block(X, constant=intercept == "regularized"), step=p["step"],
            step_fraction=float(p["step_fraction"]), gradient_step=gradient_step,
            exp_cap=float(p["exp_cap"]))

    def _problem_arguments(self, labels, sample_weight, p, n, d):
        """The :class:`ProblemArguments` of this fit: a warm start from the previous
        fit's dual variables when there is one of the same data shape and classes."""
        K = labels.n_problems
        # The kernel averages over the n rows; averaging over the total sample
        # weight instead makes weight k the same problem as k copies of the row.
        weight_scale = n / sample_weight.sum()
        alpha0, sigma0 = None, np.zeros(K)
        if (p["warm_start"] and getattr(self, "dual_coef_", None) is not None
                and self.dual_coef_.shape == (K, n)
                and getattr(self, "_fit_dimension", None) == d):
            alpha0 = self.dual_coef_
            # Algorithm 2 restarts its multiplier at the previous bias (sigma = b
            # at convergence, where v_b = 0)
            sigma0 = self.intercept_ + float(p["theta"])
        return ProblemArguments(labels, sample_weight, weight_scale, self.classes_,
                                self.task_, p["class_weight"],
                                problem_seeds(p["random_state"], K), sigma0, alpha0)

    def _log_problem(self, k, out, seconds, verbose):
        """One line per problem: on stderr with ``verbose >= 2``, else a DEBUG record."""
        if verbose < 2 and not logger.isEnabledFor(logging.DEBUG):
            return
        label = self.classes_[-1] if self.task_ == "binary" else self.classes_[k]
        line = (f"[{type(self).__name__}] problem {k} ({label}): {out['n_epochs']} epochs, "
                f"relative gap {out['gap']:.3g}, {seconds:.3f} s")
        if verbose >= 2:
            tqdm.write(line, file=sys.stderr)
        else:  # printed already: not twice where the logger has a handler too
            logger.debug(line)

    def _collect(self, results, coef, dual, bias, settings):
        """Set the fitted attributes from the per-problem solutions."""
        self.coef_ = coef
        self.intercept_ = bias - settings.theta
        self.dual_coef_ = dual
        self.duality_gap_ = np.array([r["gap"] for r in results])
        self.gap_history_ = [r["gaps"] for r in results]
        self.n_iter_ = np.array([r["n_epochs"] for r in results])
        if settings.intercept in ("converged", "paper"):
            self.intercept_residual_ = np.array([r["residual"] for r in results])
            self.n_rounds_ = np.array([r["rounds"] for r in results])
        else:  # an earlier fit's Algorithm 2 figures do not describe this one
            for attr in ("intercept_residual_", "n_rounds_"):
                self.__dict__.pop(attr, None)
        if regularizer_named(settings.regularizer).entropy:
            self.mass_ = np.array([r["mass"] for r in results])
        else:
            self.__dict__.pop("mass_", None)

    def _warn_after_fit(self, results, settings, p):
        """Say which problems got a constant model and which missed the tolerances."""
        name = type(self).__name__
        constant = [k for k, r in enumerate(results) if r["constant"]]
        if constant:
            warnings.warn(ConstantModelWarning(
                f"{name}: label column(s) {constant} have examples of a single "
                f"class (or zero weight on one side); they get a constant model "
                f"(coefficients 0, intercept +-1).", constant), stacklevel=3)
        _warn_degenerate(name, results, p, self._describe_problem)
        failures = [(k, r["gap"], r["n_epochs"]) for k, r in enumerate(results)
                    if not r["converged"]]
        if not failures:
            return
        detail = ""
        if settings.intercept in ("converged", "paper"):
            worst = results[max(failures, key=lambda f: f[1])[0]]
            detail = (f", Algorithm 2 after {worst['rounds']} rounds with residual "
                      f"|sum alpha_i y_i|/(lam n) = {worst['residual']:.3g} "
                      f"(intercept_tol={p['intercept_tol']:g})")
            if settings.intercept == "paper":
                detail += "; {converged} runs to the tolerances"
        convergence_warning(name, failures, p["tol"], detail, self._describe_problem,
                            stacklevel=4)

    def _describe_problem(self, k):
        """What binary problem k is: its class (one-vs-rest) or its label column."""
        if self.task_ == "multilabel":
            return f"label column {k}"
        label = self.classes_[-1] if self.task_ == "binary" else self.classes_[k]
        if isinstance(label, np.generic):
            label = label.item()  # 'cat', not np.str_('cat')
        return f"class {label!r}"

    def _calibrate(self, X, y, sample_weight, p, column_scale=None):
        """Platt's sigmoids on out-of-fold scores: the same estimator, without
        ``probability``, fitted on each fold's training part scores its held-out part."""
        from sklearn.base import clone
        from sklearn.utils import check_random_state

        from textwin._folds import calibration_fold_count, shuffled_folds

        n, mode = X.shape[0], self.task_
        if mode == "multilabel":
            y = y.toarray() if sp.issparse(y) else np.asarray(y)  # rows taken per fold
            positives = y.astype(bool)
            n_folds, classes = calibration_fold_count(
                f"{type(self).__name__}: probability=True", None, n, "examples"), None
        else:
            y = np.asarray(y).ravel()
            positives = (y[:, None] == self.classes_[1:] if mode == "binary"
                         else y[:, None] == self.classes_)
            n_folds = calibration_fold_count(f"{type(self).__name__}: probability=True",
                                             [np.sum(y == c) for c in self.classes_], n,
                                             "examples", self.classes_)
            classes = y
        folds = shuffled_folds(n_folds, n, classes,
                               int(check_random_state(p["random_state"]).randint(2**31 - 1)))
        fold = clone(self).set_params(probability=False, warm_start=False, verbose=0)
        scores = np.empty(positives.shape)
        for train, test in folds:
            with warnings.catch_warnings():  # the final fit says what the folds' would
                warnings.simplefilter("ignore")
                fold.fit(X[train], y[train], sample_weight=sample_weight[train],
                         column_scale=column_scale)
            s = np.asarray(fold.decision_function(X[test])).reshape(test.size, -1)
            if mode == "multiclass" and fold.classes_.size < self.classes_.size:
                full = np.full((test.size, self.classes_.size), ABSENT_SCORE)
                full[:, np.searchsorted(self.classes_, fold.classes_)] = s
                s = full
            scores[test] = s
        return calibrate(scores, positives, folds=len(folds),
                         sample_weight=sample_weight)

    def _predict_proba_available(self):
        p = self.all_params()
        loss = p["loss"]
        # an unknown loss fails in fit
        return loss in LOSSES and (loss_named(loss).probabilistic or bool(p["probability"]))

    @available_if(_predict_proba_available)
    def predict_proba(self, X):
        """Probabilities of each class (of each label column, multi-label).

        With ``probability=True``, those of Platt's sigmoids fitted on
        out-of-fold scores; else the logistic loss's own, ``1 / (1 + exp(-score))``. Multi-class (one-vs-rest) rows are normalized to sum to 1;
        multi-label columns are independent.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self, "calibration_")
        return self.calibration_.predict_proba(self.decision_function(X), self.task_)


def _is_auto_or_none(prior):
    return prior is None or (isinstance(prior, str) and prior == "auto")


def _warn_degenerate(name, results, p, describe):
    """One DegenerateSolutionWarning for the problems whose solution is degenerate.

    Degenerate (docs/mathematics.md §14): the training scores hardly spread, the
    weights never left the prior, or (balanced entropies, whose weights take
    either sign) no training example reaches its target margin. A positive-only
    Winnow cannot push an out-of-class score below 0, so the last test does not
    apply to it.
    """
    reg = regularizer_named(p["regularizer"])

    def why(r):
        if not reg.entropy:
            if r["spread"] <= DEGENERATE_SQUARE_SPREAD:
                return (f"its training scores are all equal (standard deviation "
                        f"{r['spread']:.2g} of the target margin: lam is so large that "
                        f"every weight is about 0)")
            return None
        if r["spread"] <= DEGENERATE_SPREAD:
            return (f"its training scores are all equal (standard deviation "
                    f"{r['spread']:.2g} of the target margin)")
        if r["move"] <= DEGENERATE_MOVE:
            return (f"its weights are still the prior's (none moved by more than "
                    f"{r['move']:.2g} of its prior weight)")
        if reg.balanced and r["met"] == 0:
            return ("no training example reaches its target margin (the weights' "
                    "1-norm is too small for the margins the loss asks for)")
        return None

    bad = [k for k, r in enumerate(results) if "spread" in r and why(r)]
    if not bad:
        return
    reason = why(results[bad[0]])
    key = "mass" if reg.normalized else "prior"
    if not reg.entropy:
        fix = f"Lower {{lam}} (now {p['lam']:g}), or {{by_cv}}"
    elif isinstance(p[key], str) and p[key] == "auto":  # the prior may be an array
        fix = f"Lower {{lam}} (now {p['lam']:g}), or {{by_cv}}"
    else:
        fix = (f"Use {key}='auto', which takes the scale from the data "
               f"(docs/mathematics.md §14), or "
               + (f"a larger {key}" if reason.startswith("no training") else "lower {lam}"))
    warnings.warn(DegenerateSolutionWarning(
        "", bad, estimator=name, reason=reason, advice=fix, first=describe(bad[0])),
        stacklevel=4)


_GENERAL_DEFAULTS = {
    k: v.default
    for k, v in inspect.signature(DualGaussSeidelClassifier.__init__).parameters.items()
    if k != "self"
}


# ---------------------------------------------------------------------------
# Presets
# ---------------------------------------------------------------------------


class DualSVM(DualGaussSeidelClassifier):
    """Linear SVM (hinge loss, square regularizer) by dual Gauss-Seidel.

    Paper names: *SVM by Algorithm 1*, the dual coordinate update (29), when
    ``fit_intercept=False``; *SVM by Algorithm 2*, update (30), with
    ``fit_intercept=True``: an unregularized bias by augmented Lagrangian
    (docs/mathematics.md §8). ``intercept_solver="paper"`` runs the Reuters
    experiment's budget of 4 rounds x 50 epochs; the default ``"converged"``
    runs to the duality-gap and residual tolerances. Same problem as
    ``sklearn.svm.LinearSVC(loss="hinge", C=1/(lam n))`` without intercept and
    ``sklearn.svm.SVC(kernel="linear", C=1/(lam n))`` with one.

    Parameters
    ----------
    lam, tol, max_epochs, fit_intercept, intercept_solver, rho0, intercept_tol, \
shuffle, random_state, n_jobs, step_fraction, warm_start, class_weight, probability, \
verbose
        As in :class:`DualGaussSeidelClassifier`.
    """

    _fixed_params = {"loss": "hinge", "regularizer": "square"}

    def __init__(self, lam=1e-3, tol=1e-3, max_epochs=1000, fit_intercept=False,
                 intercept_solver="auto", rho0=1.0, intercept_tol=1e-6, shuffle=True,
                 random_state=None, n_jobs=None, step_fraction=1.0, warm_start=False,
                 class_weight=None, probability=False, verbose=0):
        store_params(self, locals())


class ModifiedLeastSquares(DualGaussSeidelClassifier):
    """Modified least squares (squared hinge, square regularizer): update (27).

    Paper name: *modified least squares, update (27), constant feature,
    Algorithm 1* (Reuters, 100 epochs). The default bias is that constant
    feature, regularized (``intercept_solver="constant_feature"``); pass
    ``intercept_solver="converged"`` for an unregularized one (Algorithm 2).
    Same problem as ``sklearn.svm.LinearSVC(loss="squared_hinge",
    C=1/(lam n))`` when ``fit_intercept=False``.

    Parameters
    ----------
    lam, tol, max_epochs, fit_intercept, intercept_solver, shuffle, random_state, \
n_jobs, warm_start, class_weight, verbose
        As in :class:`DualGaussSeidelClassifier`; ``max_epochs`` defaults to
        the paper's 100.
    """

    _fixed_params = {"loss": "squared_hinge", "regularizer": "square"}

    def __init__(self, lam=1e-3, tol=1e-3, max_epochs=100, fit_intercept=True,
                 intercept_solver="constant_feature", shuffle=True, random_state=None,
                 n_jobs=None, warm_start=False, class_weight=None, verbose=0):
        store_params(self, locals())


class RegularizedWinnow(DualGaussSeidelClassifier):
    """Regularized Winnow: update (28), squared hinge + normalized entropy, threshold targets.

    Paper name: *regularized Winnow, update (28)* (Reuters Table 1). Positive
    weights with ``||w||_1 = mass``, score ``w @ x - theta``, trained towards
    ``w @ x >= theta + gamma`` in class and ``w @ x <= theta - gamma`` out of
    class (docs/mathematics.md §7): the modified least squares loss with targets
    ``t_i = gamma + y_i theta`` and the normalized positive entropy with a
    uniform prior. Paper settings: ``gamma = 0.1``, ``lam = 1e-4``,
    ``theta`` in {0.1, 0.3}, 100 epochs, ``mass=1.0`` (reconstructed: the
    paper's ``A`` was lost) and ``shuffle=False``, which visits the examples
    in data order, as the paper did; the Reuters reproduction passes them.
    The default ``mass="auto"`` takes ``A`` from the data instead
    (docs/mathematics.md §14): ``A = 1`` suits the paper's 1,000 binary
    features, not tf-idf over a large vocabulary, where every training score
    comes out nearly equal.

    Parameters
    ----------
    theta, gamma, lam, mass, prior, tol, max_epochs, shuffle, random_state, n_jobs, \
step, step_fraction, gradient_step, exp_cap, warm_start, class_weight, verbose
        As in :class:`DualGaussSeidelClassifier`.
    """

    _fixed_params = {"loss": "squared_hinge", "regularizer": "normalized_entropy"}

    def __init__(self, theta=0.1, gamma=0.1, lam=1e-4, mass="auto", prior="auto", tol=1e-3,
                 max_epochs=100, shuffle=True, random_state=None, n_jobs=None,
                 step="auto", step_fraction=1.0, gradient_step=None,
                 exp_cap=math.log(2) / 2, warm_start=False, class_weight=None, verbose=0):
        store_params(self, locals())


class _LargeMargin(DualGaussSeidelClassifier):
    """Shared __init__ of the *Regularized Winnow methods* section-4 presets."""

    def __init__(self, lam=1e-3, tol=1e-3, max_epochs=200, fit_intercept=True, prior=0.01,
                 shuffle=False, random_state=None, n_jobs=None, step="auto",
                 gradient_step=None, warm_start=False, class_weight=None, verbose=0):
        store_params(self, locals())


class LargeMarginPerceptron(DualGaussSeidelClassifier):
    """LM-Perc of *Regularized Winnow methods* (section 4): hinge + square, constant feature.

    The "SVM style large margin Perceptron" with the exact update
    (``eta = 1/||x_i||^2``), a regularized constant feature and 200 passes in
    data order. ``lam = 1/(n C)`` as in the paper's Figure 1.

    Parameters
    ----------
    lam, tol, max_epochs, fit_intercept, shuffle, random_state, n_jobs, warm_start, \
class_weight, verbose
        As in :class:`DualGaussSeidelClassifier`.
    """

    _fixed_params = {"loss": "hinge", "regularizer": "square",
                     "intercept_solver": "constant_feature"}

    def __init__(self, lam=1e-3, tol=1e-3, max_epochs=200, fit_intercept=True, shuffle=False,
                 random_state=None, n_jobs=None, warm_start=False, class_weight=None,
                 verbose=0):
        store_params(self, locals())


class LargeMarginUWinnow(_LargeMargin):
    """LM-UWin of *Regularized Winnow methods* (section 4): hinge + balanced unnormalized entropy.

    The large-margin (regularized) balanced unnormalized Winnow: prior
    ``mu_j = 0.01``, a regularized constant feature, 200 passes in data order.
    The paper took gradient steps of 0.01 in its dual scaling
    (``step="gradient"``, ``gradient_step=0.01``); the default here is the
    safeguarded Newton step, which reaches the same optimum in fewer epochs.

    Parameters
    ----------
    lam, tol, max_epochs, fit_intercept, prior, shuffle, random_state, n_jobs, step, \
gradient_step, warm_start, class_weight, verbose
        As in :class:`DualGaussSeidelClassifier`.
    """

    _fixed_params = {"loss": "hinge", "regularizer": "balanced_entropy"}


class LargeMarginNWinnow(_LargeMargin):
    """LM-NWin of *Regularized Winnow methods* (section 4): hinge + balanced normalized entropy.

    The large-margin balanced normalized Winnow: prior ``mu_j = 0.01`` and
    ``||w+||_1 + ||w-||_1 = W = ||mu||_1`` over both halves (``mass="prior"``),
    a regularized constant feature, 200 passes in data order. Steps as in
    :class:`LargeMarginUWinnow`.

    Parameters
    ----------
    lam, tol, max_epochs, fit_intercept, prior, shuffle, random_state, n_jobs, step, \
gradient_step, warm_start, class_weight, verbose
        As in :class:`DualGaussSeidelClassifier`.
    """

    _fixed_params = {"loss": "hinge", "regularizer": "balanced_normalized_entropy",
                     "mass": "prior"}
