"""One binary problem of a dual Gauss-Seidel fit: its settings and its solve.

:class:`DualGaussSeidelClassifier` turns its parameters into one
:class:`SolverSettings` per fit and calls :func:`solve_binary_problem` once per
class (one-vs-rest) or label column. Everything a problem needs is in the
arguments, so that problems may run in threads over one shared matrix or as
tasks elsewhere.
"""
import time
from dataclasses import dataclass
from typing import Optional

import numpy as np

from textwin._intercept import algorithm2
from textwin._kernels._dual_gs import check_csr, dual_gauss_seidel
from textwin._losses_and_regularizers import regularizer_named
from textwin._ovr import problem_weight
from textwin._scale import (AUTO, degeneracy, prior_total, score_spread,
                            with_scale_from_square)


@dataclass(frozen=True)
class SolverSettings:
    """What every binary problem of one fit shares (validated by the estimator).

    ``intercept`` is "none", "constant_feature" (a column of ones already in
    the matrix), "regularized" (the kernel's bias coordinate at ``sigma = 0``,
    ``rho = 1``: see :func:`solver_intercept`), "converged" or "paper"
    (Algorithm 2, docs/mathematics.md §8).
    ``gradient_step`` is in the kernel's scaling (already times ``lam n``).
    ``column_scale``: the square regularizer's per-feature scale ``r`` (the problems on
    ``X diag(r)``, solved on X: docs/mathematics.md §5), or None.
    """

    loss: str
    regularizer: str
    lam: float
    mu: Optional[np.ndarray]
    mass: float
    theta: float
    gamma: float
    tol: float
    max_epochs: int
    intercept: str
    rho0: float
    intercept_tol: float
    shuffle: bool
    shuffle_block: int
    step: str
    step_fraction: float
    gradient_step: Optional[float]
    exp_cap: float
    column_scale: Optional[np.ndarray] = None

    def kernel_kwargs(self):
        """The keyword arguments of every kernel call but tol, max_epochs and seed."""
        return dict(loss=self.loss, regularizer=self.regularizer, lam=self.lam, mu=self.mu,
                    mass=self.mass, shuffle=self.shuffle, shuffle_block=self.shuffle_block,
                    step=self.step, step_fraction=self.step_fraction,
                    gradient_step=self.gradient_step, exp_cap=self.exp_cap,
                    column_scale=self.column_scale)


def solver_intercept(mode, regularizer):
    """How the solver fits the bias of ``intercept_solver_`` ``mode`` under ``regularizer``.

    A constant feature of value 1 regularized as the weights are is, under the square
    regularizer, exactly the kernel's bias coordinate at ``sigma = 0``, ``rho = 1``
    (docs/mathematics.md §8: its terms ``lam v_b^2 / 2`` in the dual and
    ``lam b^2 / 2`` in the primal are the constant feature's, and its step sees
    ``||x_i||^2 + 1``): "regularized", solved without a copy of the matrix with the
    column appended. The entropies regularize the constant feature by their own ``g``:
    it stays a column of the matrix ("constant_feature")."""
    if mode == "constant_feature" and not regularizer_named(regularizer).entropy:
        return "regularized"
    return mode


def constant_bias(y, weight):
    """The bias of a problem without both classes (w = 0): the only label present."""
    present = y[weight > 0] if np.any(weight > 0) else y
    return 1.0 if np.all(present > 0) else -1.0


def solve_binary_problem(X, y, weight, alpha, settings, seed, sigma0=0.0, X_square=None,
                         diagnose=True):
    """Fit one binary problem; ``alpha`` (n,) holds the start and receives the solution.

    Parameters
    ----------
    X : CheckedCSR
        The shared matrix from :func:`textwin._kernels._dual_gs.check_csr`
        (with the constant feature when ``settings.intercept`` is
        "constant_feature"); read only.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    weight : ndarray of shape (n,)
        Loss weights ``s_i >= 0`` in the kernel's scaling.
    alpha : ndarray of shape (n,), writable
        Dual variables: the warm start (0 for a cold one) on entry.
    settings : SolverSettings
    seed : int
        Seed of the visiting order (consecutive seeds for Algorithm 2's rounds).
    sigma0 : float
        Algorithm 2's starting multiplier (the previous bias on a warm start).
    diagnose : bool, default=True
        Add what a fit's warnings of a degenerate model read (``spread``, and for the
        entropies ``move`` and ``met``): a pass over X, which a path's points, read
        only for their scores, go without.

    Returns
    -------
    solution : dict
        ``w`` (d,), ``bias`` (Algorithm 2's or the regularized one's, else 0; None for a constant
        model), ``n_epochs``, ``gaps`` (each exact check), ``gap``,
        ``residual`` (Algorithm 2's, NaN without it), ``rounds``,
        ``converged``, ``constant`` (no example of nonzero weight on one
        side: ``w = 0`` and the bias is the label present), ``mass`` (the
        prior's total: the normalized entropies' ``A``; NaN for the square
        regularizer), and with ``diagnose`` ``spread`` (:func:`textwin._scale.score_spread`)
        and for the entropies ``move`` and ``met`` (:func:`textwin._scale.degeneracy`).
    """
    pos, nonzero = y > 0, weight != 0
    if not (np.any(nonzero & pos) and np.any(nonzero & ~pos)):
        alpha[:] = 0.0
        return dict(w=np.zeros(X.n_features), bias=constant_bias(y, weight), n_epochs=0,
                    gaps=np.zeros(0), gap=0.0, residual=0.0, rounds=0, converged=True,
                    constant=True, mass=np.nan)
    target = settings.gamma + y * settings.theta
    if settings.mass == AUTO:  # the entropy's scale from the data (docs/mathematics.md §14)
        settings, mass = with_scale_from_square(X, y, target, weight, settings, seed,
                                                X_square)
    else:
        mass = prior_total(settings)
    args = (X.data, X.indices, X.indptr, y, target, weight, alpha, X.n_features)
    kwargs = dict(X_checked=X, **settings.kernel_kwargs())
    if settings.intercept in ("converged", "paper"):
        out = algorithm2(dual_gauss_seidel, args, kwargs, settings, seed, sigma0)
    else:
        if settings.intercept == "regularized":  # a constant feature's weight (solver_intercept)
            kwargs.update(bias_sigma=0.0, bias_rho=1.0)
        res = dual_gauss_seidel(*args, tol=settings.tol, max_epochs=settings.max_epochs,
                                seed=int(seed), **kwargs)
        gap = float(res["gap"])
        out = dict(w=res["w"], bias=float(res["bias"]), n_epochs=int(res["n_epochs"]),
                   gaps=np.asarray(res["gaps"]), gap=gap, residual=np.nan, rounds=0,
                   converged=gap <= settings.tol)
    out["constant"] = False
    out["mass"] = mass
    if not diagnose:
        return out
    bias = 0.0 if settings.intercept == "constant_feature" else out["bias"]
    if regularizer_named(settings.regularizer).entropy:
        out["spread"], out["move"], out["met"] = degeneracy(
            X, y, out["w"], bias, target, settings.regularizer, settings.mu, settings.mass)
    else:  # the square's weights shrink as 1/lam: a huge lam leaves every score equal
        out["spread"] = score_spread(X, out["w"], bias, target)
    return out


class ProblemArguments:
    """``problem(k, alpha)``: the per-problem arguments of :func:`solve_binary_problem`.

    Holds what every problem of a fit derives its own arguments from -- the
    labels of all problems, the sample weights, the class weights, one seed
    per problem -- and builds problem ``k``'s labels and loss weights on
    demand (O(n) per problem in flight). A plain object, so that it travels
    to a cluster's workers once per fit (see :func:`solve_problem_task`).

    ``alpha`` receives the start: ``alpha0[k]`` (the previous fit's dual
    variables) on a warm start, else 0 -- for every loss: the kernel moves a
    logistic alpha outside the open domain (0, s) to a small interior start
    scaled by lam / max|x_ij| (docs/mathematics.md §4).
    """

    def __init__(self, labels, sample_weight, weight_scale, classes, mode, class_weight, seeds,
                 sigma0, alpha0=None):
        self.labels, self.sample_weight, self.weight_scale = labels, sample_weight, weight_scale
        self.classes, self.mode, self.class_weight = classes, mode, class_weight
        self.seeds, self.sigma0, self.alpha0 = seeds, sigma0, alpha0

    def __call__(self, k, alpha):
        y = self.labels.column(k)
        weight = problem_weight(self.class_weight, y, k, self.sample_weight, self.classes,
                                self.mode)
        weight *= self.weight_scale
        alpha[:] = self.alpha0[k] if self.alpha0 is not None else 0.0
        return dict(y=y, weight=weight, alpha=alpha, seed=int(self.seeds[k]),
                    sigma0=float(self.sigma0[k]))

    def without_warm_start(self):
        """A copy without ``alpha0`` (n_problems x n): what every worker gets; each
        problem's own row of ``alpha0`` goes with its task."""
        copy = ProblemArguments.__new__(ProblemArguments)
        copy.__dict__.update(self.__dict__, alpha0=None)
        return copy


def solve_problem_task(shipment, k, alpha0=None):
    """Problem ``k`` of a fit, run as a task on a Dask worker.

    ``shipment.payload`` is the fit's shared data, on this worker once:
    ``X`` (canonical CSR, with the constant feature if it is the bias),
    ``entropy`` (the kernels' row statistic), ``problem``
    (:class:`ProblemArguments` without the warm start) and ``settings``;
    ``alpha0`` is this problem's warm start (None for a cold one). The
    kernels' check of the matrix runs once per worker, shared by its tasks.
    Returns :func:`solve_binary_problem`'s solution with ``alpha`` (the dual
    variables) and ``seconds`` added.
    """
    started = time.perf_counter()
    P = shipment.payload
    Xc = shipment.cached("checked", lambda P: check_csr(P["X"].data, P["X"].indices,
                                                        P["X"].indptr, P["X"].shape[1],
                                                        P["entropy"]))
    Xsq = None
    if P["settings"].mass == AUTO:  # the square solve's view of the matrix, once per worker
        Xsq = shipment.cached("square", lambda P: check_csr(P["X"].data, P["X"].indices,
                                                            P["X"].indptr, P["X"].shape[1],
                                                            False))
    alpha = np.empty(P["X"].shape[0])
    args = P["problem"](k, alpha)
    if alpha0 is not None:
        alpha[:] = alpha0
    out = solve_binary_problem(Xc, settings=P["settings"], X_square=Xsq, **args)
    out["alpha"] = alpha
    out["seconds"] = time.perf_counter() - started
    return out
