"""Pure-NumPy/SciPy references for the dual Gauss-Seidel kernel tests.

Written from docs/mathematics.md directly, dense and slow, with no cache: ``w = grad h(v)``
is recomputed from ``v`` at every step.  They share no code with the kernel. A name they have no formula for raises (never another
loss's or regularizer's formula).
"""
import numpy as np
from scipy.optimize import brentq, minimize
from scipy.special import expit, log_expit, logsumexp

# --- losses: f(u), K(alpha) = s k(-alpha/s), K', K'', domain (docs/mathematics.md §4) -----


def _unknown(kind, name):
    return ValueError(f"the reference has no formula for the {kind} {name!r}")


def loss_value(loss, u, t):
    if loss == "hinge":
        return np.maximum(0.0, t - u)
    if loss == "squared_hinge":
        return np.maximum(0.0, t - u) ** 2
    if loss == "least_squares":
        return (t - u) ** 2
    if loss == "logistic":
        return np.logaddexp(0.0, t - u)
    raise _unknown("loss", loss)


def conj(loss, a, t, s):
    if loss == "hinge":
        return -t * a
    if loss in ("squared_hinge", "least_squares"):
        return -t * a + a * a / (4 * s)
    if loss == "logistic":
        p = a / s
        return s * (p * np.log(p) + (1 - p) * np.log1p(-p)) - t * a
    raise _unknown("loss", loss)


def dconj(loss, a, t, s):
    if loss == "hinge":
        return -t
    if loss in ("squared_hinge", "least_squares"):
        return -t + a / (2 * s)
    if loss == "logistic":
        return np.log(a / (s - a)) - t
    raise _unknown("loss", loss)


def d2conj(loss, a, t, s):
    if loss == "hinge":
        return 0.0
    if loss in ("squared_hinge", "least_squares"):
        return 0.5 / s
    if loss == "logistic":
        return s / (a * (s - a))
    raise _unknown("loss", loss)


def domain(loss, s):
    domains = {"hinge": (0, s), "squared_hinge": (0, np.inf),
               "least_squares": (-np.inf, np.inf), "logistic": (0, s)}
    if loss not in domains:
        raise _unknown("loss", loss)
    return domains[loss]


# --- regularizers: h(v), w = grad h(v), hess h(v) (docs/mathematics.md §5) -------------------


def normalized_mu(reg, mu):
    if reg == "normalized_entropy":
        return mu / mu.sum()
    if reg == "balanced_normalized_entropy":
        return mu / (2 * mu.sum())
    if reg in ("square", "entropy", "balanced_entropy"):
        return mu
    raise _unknown("regularizer", reg)


def h(reg, v, mu, A=1.0):
    mu = normalized_mu(reg, mu)
    if reg == "square":
        return 0.5 * v @ v
    if reg == "entropy":
        return mu @ np.expm1(v)
    if reg == "balanced_entropy":
        return mu @ (np.exp(v) + np.exp(-v) - 2)
    if reg == "normalized_entropy":
        return A * logsumexp(v, b=mu)
    return A * logsumexp(np.concatenate([v, -v]), b=np.concatenate([mu, mu]))


def grad_h(reg, v, mu, A=1.0):
    mu = normalized_mu(reg, mu)
    if reg == "square":
        return v.copy()
    if reg == "entropy":
        return mu * np.exp(v)
    if reg == "balanced_entropy":
        return mu * (np.exp(v) - np.exp(-v))
    if reg == "normalized_entropy":
        return A * mu * np.exp(v - logsumexp(v, b=mu))
    lz = logsumexp(np.concatenate([v, -v]), b=np.concatenate([mu, mu]))
    return A * mu * (np.exp(v - lz) - np.exp(-v - lz))


def curvature(reg, v, mu, z, A=1.0):
    """z' hess h(v) z."""
    mu = normalized_mu(reg, mu)
    if reg == "square":
        return z @ z
    if reg == "entropy":
        return (mu * np.exp(v)) @ (z * z)
    if reg == "balanced_entropy":
        return (mu * (np.exp(v) + np.exp(-v))) @ (z * z)
    w = grad_h(reg, v, mu, A) if reg == "normalized_entropy" else None
    if reg == "normalized_entropy":
        return max(w @ (z * z) - (w @ z) ** 2 / A, 0.0)
    lz = logsumexp(np.concatenate([v, -v]), b=np.concatenate([mu, mu]))
    wabs = A * mu * (np.exp(v - lz) + np.exp(-v - lz))
    wz = A * mu * (np.exp(v - lz) - np.exp(-v - lz)) @ z
    return max(wabs @ (z * z) - wz ** 2 / A, 0.0)


def g(reg, w, mu, A=1.0):
    """The primal regularizer with the constants that make it >= 0."""
    mu = normalized_mu(reg, mu)
    if reg == "square":
        return 0.5 * w @ w
    if reg == "entropy":
        return np.sum(w * np.log(w / mu) - w + mu)
    if reg == "balanced_entropy":
        return np.sum(w * np.arcsinh(w / (2 * mu)) - np.sqrt(w * w + 4 * mu * mu) + 2 * mu)
    raise ValueError("use the (w+, w-) parametrisation for the normalized rows")


# --- Algorithm 1, one step at a time (docs/mathematics.md §3, §6) ---------------------------


def reference_gauss_seidel(X, y, t, s, alpha, loss, reg, lam, mu=None, A=1.0,
                           epochs=1, kappa=np.log(2) / 2):
    """In-order dual Gauss-Seidel on a dense X; returns alpha after each epoch."""
    n, d = X.shape
    S = lam * n
    Z = y[:, None] * X                                  # z_i = y_i x_i
    alpha = alpha.astype(float).copy()
    v = Z.T @ alpha / S
    growth = {"square": 1, "entropy": np.exp(kappa), "balanced_entropy": np.exp(kappa),
              "normalized_entropy": np.exp(2 * kappa),
              "balanced_normalized_entropy": np.exp(2 * kappa)}[reg]
    history = []
    for _ in range(epochs):
        for i in range(n):
            z = Z[i]
            b, c = grad_h(reg, v, mu, A) @ z, curvature(reg, v, mu, z, A)
            lo, hi = domain(loss, s[i])
            cap = kappa * S / np.abs(z).max() if reg != "square" and np.any(z) else np.inf
            gr = dconj(loss, alpha[i], t[i], s[i]) + b
            if abs(gr) <= 1e-12 or (gr > 0 and alpha[i] <= lo) or (gr < 0 and alpha[i] >= hi):
                continue
            if loss == "logistic":   # exact on the majorizer K(a) + b (a - alpha) + q (a - alpha)^2 / 2
                q = growth * c / S if reg != "square" else c / S
                lo_, hi_ = max(lo, alpha[i] - cap), min(hi, alpha[i] + cap)
                fp = lambda a: dconj(loss, a, t[i], s[i]) + b + q * (a - alpha[i])
                if lo_ > lo and fp(lo_) >= 0:
                    new = lo_
                elif hi_ < hi and fp(hi_) <= 0:
                    new = hi_
                else:
                    eps = 1e-300 + 1e-15 * s[i]
                    new = brentq(fp, lo_ + eps if lo_ == lo else lo_, hi_ - eps if hi_ == hi else hi_, xtol=1e-15)
            else:                    # Newton (exact for the square regularizer), capped, projected
                H = max(d2conj(loss, alpha[i], t[i], s[i]) + c / S, 1e-12)
                new = np.clip(alpha[i] + np.clip(-gr / H, -cap, cap), lo, hi)
            v += (new - alpha[i]) * z / S
            alpha[i] = new
        history.append(alpha.copy())
    return history


# --- primal objectives and an independent solver ---------------------------------


def primal(X, y, t, s, w, loss, reg, lam, mu=None, A=1.0, bias=0.0):
    u = y * (X @ w + bias)
    return np.mean(s * loss_value(loss, u, t)) + lam * g(reg, w, mu, A)


def scipy_dual_min(X, y, t, s, loss, reg, lam, mu=None, A=1.0):
    """min_alpha D(alpha) by L-BFGS-B with the loss's box (independent of the kernel)."""
    n = X.shape[0]
    S = lam * n
    Z = y[:, None] * X

    def fun(a):
        v = Z.T @ a / S
        D = np.mean(conj(loss, a, t, s)) + lam * h(reg, v, mu, A)
        grad = dconj(loss, a, t, s) / n + Z @ grad_h(reg, v, mu, A) / n
        return D, grad

    lo, hi = domain(loss, 1.0)
    eps = 1e-12 if loss == "logistic" else 0.0
    bounds = [(None if not np.isfinite(lo) else lo * si + eps,
               None if not np.isfinite(hi) else hi * si - eps) for si in s]
    a0 = np.full(n, 1e-3) * s
    res = minimize(fun, a0, jac=True, method="L-BFGS-B", bounds=bounds,
                   options={"maxiter": 20000, "ftol": 1e-15, "gtol": 1e-12, "maxcor": 30})
    return res.fun


def scipy_primal_min(X, y, t, s, loss, reg, lam, mu, A=1.0):
    """min_w P(w) by L-BFGS over an unconstrained parametrisation (smooth losses).

    entropy: w = mu e^theta; balanced entropy: w itself; normalized rows:
    (w+, w-) = A softmax(theta) over d (resp. 2d) entries, g = A KL to the prior.
    """
    n, d = X.shape
    mun = normalized_mu(reg, mu)

    def unpack(theta):
        if reg == "entropy":
            return mu * np.exp(theta), None
        if reg == "balanced_entropy":
            return theta, None
        if reg == "normalized_entropy":
            lp = theta + np.log(mun) - logsumexp(theta, b=mun)
            return A * np.exp(lp), lp
        m2 = np.concatenate([mun, mun])
        lp = theta + np.log(m2) - logsumexp(theta, b=m2)
        p = np.exp(lp)
        return A * (p[:d] - p[d:]), lp

    def obj(theta):
        w, lp = unpack(theta)
        u = y * (X @ w)
        if reg in ("entropy", "balanced_entropy"):
            G = g(reg, w, mu, A)
        else:
            m = mun if reg == "normalized_entropy" else np.concatenate([mun, mun])
            G = A * np.sum(np.exp(lp) * (lp - np.log(m)))
        return np.mean(s * loss_value(loss, u, t)) + lam * G

    size = 2 * d if reg == "balanced_normalized_entropy" else d
    best = np.inf
    for x0 in (np.zeros(size), 0.1 * np.random.default_rng(0).normal(size=size)):
        res = minimize(obj, x0, method="L-BFGS-B",
                       options={"maxiter": 50000, "maxfun": 10 ** 6, "ftol": 1e-15, "gtol": 1e-10})
        best = min(best, res.fun)
    return best
