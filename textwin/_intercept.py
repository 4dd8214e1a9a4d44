"""Algorithm 2 (docs/mathematics.md §8): an unregularized bias by augmented Lagrangian.

The kernel treats the bias coordinate with the conjugate
``sigma v_b + v_b^2 / (2 rho)`` (``b = sigma + v_b / rho``); :func:`algorithm2`
updates ``sigma`` and ``rho`` between warm-started inner solves.
"""
import numpy as np

from textwin._ovr import INT32_MAX

# Budgets: (outer rounds, epochs per inner solve). "converged" runs up to 100
# rounds of max_epochs each and stops on the gap and the residual; "paper" is
# the Reuters experiment's 4 x 50 (docs/mathematics.md §8).
PAPER_ROUNDS, PAPER_EPOCHS = 4, 50
CONVERGED_ROUNDS = 100
RHO_MIN = 1e-12  # the penalty is never stiffened beyond this


def algorithm2(kernel, args, kernel_kwargs, settings, seed, sigma0=0.0):
    """Solve one binary problem with an unregularized bias; returns the solution dict.

    ``kernel(*args, **kernel_kwargs, ...)`` is one warm-started inner solve
    (the dual variables in ``args`` are updated in place); ``settings`` holds
    ``intercept`` ("converged" or "paper"), ``tol``, ``max_epochs``, ``rho0``
    and ``intercept_tol``. ``sigma`` starts at ``sigma0`` (0, or the previous
    bias on a warm start).

    Each round is a multiplier step when the residual
    ``r = |v_b| = |sum alpha_i y_i| / (lam n)`` at least halved, else
    ``rho /= 4``. Two guards change nothing while the residual is above
    ``intercept_tol``: once it is below, the round only continues the inner
    solve (multiplier step, no stiffening), and ``rho`` never falls below
    ``RHO_MIN``. Without them a residual at rounding level (which cannot halve
    any more) keeps dividing ``rho`` until ``v_b / rho`` -- rounding noise over
    a vanishing ``rho`` -- throws the bias off by orders of magnitude.
    """
    if settings.intercept == "paper":
        rounds, epochs = PAPER_ROUNDS, PAPER_EPOCHS
    else:
        rounds, epochs = CONVERGED_ROUNDS, settings.max_epochs
    tol, intercept_tol = settings.tol, settings.intercept_tol
    sigma, rho, r_prev = float(sigma0), settings.rho0, np.inf
    n_epochs, gaps = 0, []
    for rnd in range(1, rounds + 1):
        round_seed = (int(seed) + rnd - 1) % INT32_MAX
        res = kernel(*args, tol=tol, max_epochs=epochs, seed=round_seed,
                     bias_sigma=sigma, bias_rho=rho, **kernel_kwargs)
        n_epochs += int(res["n_epochs"])
        gaps.append(np.asarray(res["gaps"]))
        v_b = float(res["v_bias"])
        r = abs(v_b)
        gap = float(res["gap"])
        if gap <= tol and r <= intercept_tol:
            break
        if r <= r_prev / 2 or r <= intercept_tol or rho / 4.0 < RHO_MIN:
            sigma += v_b / rho  # multiplier step
        else:
            rho /= 4.0  # stiffen the penalty
        r_prev = r
    return dict(w=res["w"], bias=float(res["bias"]), n_epochs=n_epochs,
                gaps=np.concatenate(gaps), gap=gap, residual=r, rounds=rnd,
                converged=gap <= tol and r <= intercept_tol)
