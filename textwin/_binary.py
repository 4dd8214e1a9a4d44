"""One binary problem of a dual Gauss-Seidel fit: its settings and its solve.

:class:`DualGaussSeidelClassifier` turns its parameters into one
:class:`SolverSettings` per fit and calls :func:`solve_binary_problem` once per
class (one-vs-rest) or label column. Everything a problem needs is in the
arguments, so that problems may run in threads over one shared matrix or as
tasks elsewhere.
"""
from dataclasses import dataclass
from typing import Optional

import numpy as np

from textwin._intercept import algorithm2
from textwin._kernels._dual_gs import dual_gauss_seidel


@dataclass(frozen=True)
class SolverSettings:
    """What every binary problem of one fit shares (validated by the estimator).

    ``intercept`` is "none", "constant_feature" (a column of ones already in
    the matrix), "converged" or "paper" (Algorithm 2, docs/mathematics.md §8).
    ``gradient_step`` is in the kernel's scaling (already times ``lam n``).
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

    def kernel_kwargs(self):
        """The keyword arguments of every kernel call but tol, max_epochs and seed."""
        return dict(loss=self.loss, regularizer=self.regularizer, lam=self.lam, mu=self.mu,
                    mass=self.mass, shuffle=self.shuffle, shuffle_block=self.shuffle_block,
                    step=self.step, step_fraction=self.step_fraction,
                    gradient_step=self.gradient_step, exp_cap=self.exp_cap)


def constant_bias(y, weight):
    """The bias of a problem without both classes (w = 0): the only label present."""
    present = y[weight > 0] if np.any(weight > 0) else y
    return 1.0 if np.all(present > 0) else -1.0


def solve_binary_problem(X, y, weight, alpha, settings, seed, sigma0=0.0):
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

    Returns
    -------
    solution : dict
        ``w`` (d,), ``bias`` (Algorithm 2's, else 0; None for a constant
        model), ``n_epochs``, ``gaps`` (each exact check), ``gap``,
        ``residual`` (Algorithm 2's, NaN without it), ``rounds``,
        ``converged``, ``constant`` (no example of nonzero weight on one
        side: ``w = 0`` and the bias is the label present).
    """
    pos, nonzero = y > 0, weight != 0
    if not (np.any(nonzero & pos) and np.any(nonzero & ~pos)):
        alpha[:] = 0.0
        return dict(w=np.zeros(X.n_features), bias=constant_bias(y, weight), n_epochs=0,
                    gaps=np.zeros(0), gap=0.0, residual=0.0, rounds=0, converged=True,
                    constant=True)
    target = settings.gamma + y * settings.theta
    args = (X.data, X.indices, X.indptr, y, target, weight, alpha, X.n_features)
    kwargs = dict(X_checked=X, **settings.kernel_kwargs())
    if settings.intercept in ("converged", "paper"):
        out = algorithm2(dual_gauss_seidel, args, kwargs, settings, seed, sigma0)
    else:
        res = dual_gauss_seidel(*args, tol=settings.tol, max_epochs=settings.max_epochs,
                                seed=int(seed), **kwargs)
        gap = float(res["gap"])
        out = dict(w=res["w"], bias=0.0, n_epochs=int(res["n_epochs"]),
                   gaps=np.asarray(res["gaps"]), gap=gap, residual=np.nan, rounds=0,
                   converged=gap <= settings.tol)
    out["constant"] = False
    return out
