"""Probabilities from scores: Platt's sigmoid fitted on held-out scores, or the
logistic loss's own link, normalised as the task decides (docs/mathematics.md §15).

A score of a hinge or least-squares model is a margin, not a log-odds. Platt (1999)
maps it to a probability by a sigmoid ``p(s) = 1 / (1 + exp(a s + b))`` whose ``a`` and
``b`` minimise the log-loss of scores the model did not train on (out-of-fold scores),
against targets smoothed towards the prior: ``(N+ + 1) / (N+ + 2)`` for a positive and
``1 / (N- + 2)`` for a negative, as scikit-learn's
``CalibratedClassifierCV(method="sigmoid")`` does. Each binary problem has its own
sigmoid; one class per text then divides the classes' probabilities by their sum
(a binary model's second class has ``p``, its first ``1 - p``), and multi-label
categories keep each its own.

:class:`Calibration` holds the sigmoids (or says the scores are log-odds already),
turns scores into probabilities and travels in model files as JSON.
"""
import math

import numpy as np

__all__ = ["Calibration", "calibrate", "fit_sigmoid", "probabilities"]

#: How a model's scores become probabilities.
METHODS = ("sigmoid", "logistic")


def _log1pexp(t):
    """log(1 + exp(t)) without overflow."""
    return np.logaddexp(0.0, t)


def fit_sigmoid(scores, positive, sample_weight=None, max_iter=100):
    """Platt's ``(a, b)``: ``1 / (1 + exp(a s + b))`` of least log-loss on ``scores``
    against ``positive`` (bool), the targets smoothed towards the prior.

    Newton's method with a backtracking line search (Lin, Lin & Weng 2007, "A note on
    Platt's probabilistic outputs for support vector machines"), from ``a = 0`` and
    the prior's ``b``; the loss is convex in ``(a, b)``.
    """
    s = np.asarray(scores, dtype=np.float64).ravel()
    y = np.asarray(positive, dtype=bool).ravel()
    w = np.ones_like(s) if sample_weight is None else np.asarray(sample_weight, np.float64)
    n_pos, n_neg = float(w[y].sum()), float(w[~y].sum())
    t = np.where(y, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    # the scores on a unit scale: the Newton system is then well conditioned
    scale = max(float(np.max(np.abs(s))), 1e-12) if s.size else 1.0
    f = s / scale

    def loss(a, b):
        z = a * f + b  # p = 1 / (1 + e^z): -log p = log(1 + e^z), -log(1 - p) = log(1 + e^-z)
        return float(np.sum(w * (t * _log1pexp(z) + (1.0 - t) * _log1pexp(-z))))

    a, b = 0.0, math.log((n_neg + 1.0) / (n_pos + 1.0))
    value = loss(a, b)
    for _ in range(max_iter):
        z = a * f + b
        p = 0.5 * (1.0 - np.tanh(0.5 * z))  # 1 / (1 + e^z)
        d1 = w * (t - p)  # the derivative of the loss in z
        g = np.array([f @ d1, d1.sum()])
        if np.abs(g).max() < 1e-10 * max(w.sum(), 1.0):
            break
        d2 = w * p * (1.0 - p)
        H = np.array([[f @ (f * d2), f @ d2], [f @ d2, d2.sum()]]) + 1e-12 * np.eye(2)
        step = -np.linalg.solve(H, g)
        descent = float(g @ step)
        length = 1.0
        while length >= 1e-10:
            trial = loss(a + length * step[0], b + length * step[1])
            if trial < value + 1e-4 * length * descent:
                break
            length /= 2.0
        else:
            break  # no decrease along Newton's direction: at the minimum to rounding
        a, b, value = a + length * step[0], b + length * step[1], trial
    return a / scale, b


def _sigmoid(z):
    """1 / (1 + exp(-z)) without overflow."""
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def probabilities(p, task):
    """Per-problem probabilities ``p`` (n_texts, n_problems) as the task reads them:
    a binary model's two classes ``[1 - p, p]``; one class of several, each row
    divided by its sum (uniform where every class has 0); multi-label, as they are."""
    p = np.asarray(p, dtype=np.float64)
    if task == "binary":
        return np.column_stack([1.0 - p[:, 0], p[:, 0]])
    if task == "multiclass":
        total = p.sum(axis=1, keepdims=True)
        return np.divide(p, total, out=np.full_like(p, 1.0 / p.shape[1]), where=total > 0)
    return p


class Calibration:
    """How a model's scores become probabilities.

    ``method="sigmoid"``: problem ``k``'s probability is ``1 / (1 + exp(a[k] s +
    b[k]))`` (Platt, fitted on out-of-fold scores by :func:`calibrate`);
    ``method="logistic"``: the scores are log-odds (the logistic loss), ``1 / (1 +
    exp(-s))``. ``folds``: how many folds gave the scores the sigmoids were fitted on.
    """

    def __init__(self, method, a=None, b=None, folds=None):
        if method not in METHODS:
            raise ValueError(f"calibration method {method!r} is not one of {list(METHODS)}")
        self.method, self.folds = method, folds
        self.a = None if a is None else np.asarray(a, dtype=np.float64).reshape(-1)
        self.b = None if b is None else np.asarray(b, dtype=np.float64).reshape(-1)
        if method == "sigmoid":
            if self.a is None or self.b is None or self.a.shape != self.b.shape:
                raise ValueError("a sigmoid calibration needs a and b, one of each per problem")
            if not (np.all(np.isfinite(self.a)) and np.all(np.isfinite(self.b))):
                raise ValueError("the calibration's a and b must be finite numbers")

    @property
    def n_problems(self):
        """The problems it calibrates (None: any number, for the logistic link)."""
        return None if self.a is None else self.a.size

    def problem_probabilities(self, scores):
        """Each problem's probability (n_texts, n_problems) from its scores."""
        s = np.asarray(scores, dtype=np.float64)
        s = s.reshape(s.shape[0], -1)
        if self.method == "logistic":
            return _sigmoid(s)
        if s.shape[1] != self.a.size:
            raise ValueError(f"{s.shape[1]} scores per text for a calibration of "
                             f"{self.a.size} problems")
        return _sigmoid(-(s * self.a + self.b))

    def predict_proba(self, scores, task):
        """Probabilities of ``scores`` (n_texts, n_problems; a binary model's 1-d) as
        ``task`` reads them (:func:`probabilities`)."""
        return probabilities(self.problem_probabilities(scores), task)

    def to_json(self):
        """A JSON-ready dict (floats round-trip exactly)."""
        out = {"method": self.method}
        if self.method == "sigmoid":
            out.update(a=self.a.tolist(), b=self.b.tolist(), folds=self.folds)
        return out

    @classmethod
    def from_json(cls, data):
        """The calibration of :meth:`to_json`'s dict; ValueError if it is not one."""
        if not isinstance(data, dict):
            raise ValueError("the calibration is not a JSON object")  # noqa: TRY004 - a damaged file
        a, b = data.get("a"), data.get("b")
        for name, values in (("a", a), ("b", b)):
            if values is not None and not (isinstance(values, list) and all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)):
                raise ValueError(f"the calibration's {name} is not a list of numbers")
        folds = data.get("folds")
        return cls(data.get("method"), a, b,
                   folds=folds if isinstance(folds, int) and not isinstance(folds, bool)
                   else None)

    def __repr__(self):
        if self.method == "logistic":
            return "Calibration('logistic')"
        return f"Calibration('sigmoid', {self.a.size} problems, {self.folds} folds)"


def calibrate(scores, positives, folds=None, sample_weight=None):
    """A sigmoid :class:`Calibration` fitted on out-of-fold ``scores`` (n_texts,
    n_problems) against ``positives`` (the same shape, bool): one sigmoid per problem.

    A score that is not finite (a fold whose training part lacked a class scores it
    -inf, never chosen) counts as the problem's lowest (or highest) finite score.
    """
    S = np.asarray(scores, dtype=np.float64)
    S = S.reshape(S.shape[0], -1)
    P = np.asarray(positives, dtype=bool).reshape(S.shape[0], -1)
    if P.shape != S.shape:
        raise ValueError(f"scores {S.shape} and positives {P.shape} differ in shape")
    a, b = np.empty(S.shape[1]), np.empty(S.shape[1])
    for k in range(S.shape[1]):
        s = S[:, k]
        finite = np.isfinite(s)
        if not finite.all():
            low, high = ((s[finite].min(), s[finite].max()) if finite.any() else (-1.0, 1.0))
            s = np.where(np.isposinf(s), high, np.where(finite, s, low))
        a[k], b[k] = fit_sigmoid(s, P[:, k], sample_weight)
    return Calibration("sigmoid", a, b, folds=folds)
