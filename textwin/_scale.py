"""The entropies' scale from the data, and the degenerate solutions of a wrong one.

An entropy regularizer carries a scale: the prior weight per feature
``s_j`` (``A mu_j`` for the normalized entropies, ``mu_j`` for the others). Near
the prior it is ``sum_j w_j^2 / (4 s_j)`` (balanced) or ``sum_j (w_j - s_j)^2 /
(2 s_j)``, so ``lam`` means something different for every scale, and a scale
far from the weights the data need gives a solution that is all prior or all
constraint (docs/mathematics.md §14). With ``mass="auto"`` / ``prior="auto"``:

* the total prior mass is ``A = ||w_sq||_1``, the 1-norm of the same problem's
  solution under the square regularizer at the same ``lam`` (one cheap solve per
  binary problem first), so that the prior weight per feature is the square
  solution's mean ``|w_j|``;
* the kernel solves with ``lam * A / d``: for a uniform prior the entropy then
  has the square regularizer's curvature at the prior, and ``lam`` keeps its
  meaning (the same grids and defaults serve every regularizer).
"""
from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from textwin._kernels._dual_gs import check_csr, dual_gauss_seidel
from textwin._losses_and_regularizers import regularizer_named

__all__ = ["AUTO", "with_scale_from_square", "prior_total",
           "degeneracy", "score_spread", "DEGENERATE_SPREAD", "DEGENERATE_SQUARE_SPREAD", "DEGENERATE_MOVE", "DegenerateSolutionWarning"]

AUTO = "auto"
# A problem is degenerate when its training scores spread (standard deviation)
# less than this fraction of the target margin, or when no weight moved from its
# prior by more than this fraction of the prior weight (docs/mathematics.md §14).
DEGENERATE_SPREAD = 1e-2
DEGENERATE_MOVE = 1e-2
# The square regularizer's scores shrink as 1/lam: a lam far too large (1e300) leaves
# weights of 1e-300 and training scores equal to rounding. Only that is said: a large
# lam of a search's grid spreads its scores by far more than this.
DEGENERATE_SQUARE_SPREAD = 1e-9


class DegenerateSolutionWarning(UserWarning):
    """An entropy-regularized problem whose solution says nothing about the data.

    Its training scores are all (nearly) equal, or its weights never left the
    prior: the entropy's scale (``mass``, ``prior``) or ``lam`` does not fit
    the data (docs/mathematics.md §14). ``problems`` lists their indices. A
    front end words the message its own way with :meth:`render`: its name of
    the method, of the problems and of the options the advice names.
    """

    #: The API's words for the advice's {fields}; a front end passes its own to render().
    API_NAMES = {"lam": "lam", "by_cv": "choose it by cross-validation",
                 "smaller_lam": "a smaller lam given by hand"}

    def __init__(self, message, problems=(), *, estimator=None, reason=None, advice=None,
                 first=None):
        self.problems = list(problems)
        self.estimator, self.reason, self.advice, self.first = estimator, reason, advice, first
        super().__init__(message if reason is None else self.render(self.API_NAMES))

    def render(self, names, describe=None, estimator=None):
        """The message with the method called ``estimator``, problem k called
        ``describe(k)`` (None: the estimator's own words) and the advice's options
        called ``names[field]``."""
        if self.reason is None:  # a plain message, as given
            return str(self.args[0])
        first = describe(self.problems[0]) if describe is not None else None
        return (f"{estimator or self.estimator}: the solution of {len(self.problems)} binary "
                f"problem(s) is degenerate: the first ({first or self.first}): {self.reason}. "
                f"{self.advice.format(**names)}.")


# The prior mass when the square solution is zero (no example pulls any weight).
_MASS_FLOOR = 1e-12


def with_scale_from_square(X, y, target, weight, settings, seed, X_square=None):
    """The solver settings with the automatic scale: ``(settings, A)``.

    Solves the binary problem ``(y, target, weight)`` once with the square
    regularizer, the same loss, ``lam`` and tolerances (no bias: a bias is
    outside the regularizer), and takes ``A = ||w_sq||_1``. ``settings.mu``
    is the prior's shape, of total 1 (``sum mu = 1``, ``sum 2 mu = 1`` when
    balanced). The normalized entropies keep that shape with ``mass = A``; the
    others get the prior ``A mu`` (total ``A``); both run at ``lam * A / d``
    (docs/mathematics.md §14), a gradient step likewise.

    ``X`` is the shared matrix's ``CheckedCSR``; the square solve needs its row
    norms: ``X_square``, the same matrix checked for the square regularizer,
    made once by a caller with many problems, else here (an O(nnz) pass).
    """
    d = X.n_features
    Xs = X_square if X_square is not None else check_csr(X.data, X.indices, X.indptr, d, False)
    res = dual_gauss_seidel(
        Xs.data, Xs.indices, Xs.indptr, y, target, weight, np.zeros(np.shape(y)[0]), d,
        X_checked=Xs, loss=settings.loss, regularizer="square", lam=settings.lam,
        tol=settings.tol, max_epochs=settings.max_epochs, seed=int(seed),
        shuffle=settings.shuffle, shuffle_block=settings.shuffle_block,
        step_fraction=settings.step_fraction)
    A = max(float(np.abs(res["w"]).sum()), _MASS_FLOOR)
    ratio = A / d
    step = None if settings.gradient_step is None else settings.gradient_step * ratio
    if regularizer_named(settings.regularizer).normalized:
        scaled = replace(settings, mass=A, lam=settings.lam * ratio, gradient_step=step)
    else:
        scaled = replace(settings, mu=settings.mu * A, mass=1.0, lam=settings.lam * ratio,
                         gradient_step=step)
    return scaled, A


def prior_total(settings):
    """The prior's total mass of fixed settings: ``A`` (normalized), ``sum mu`` or
    ``2 sum mu`` (balanced); NaN for the square regularizer."""
    reg = regularizer_named(settings.regularizer)
    if not reg.entropy or settings.mu is None:
        return np.nan
    if reg.normalized:
        return float(settings.mass)
    return float(settings.mu.sum()) * (2.0 if reg.balanced else 1.0)


def _training_scores(X, w, bias):
    n = len(X.indptr) - 1
    if X.indptr[-1]:  # a view of the shared arrays: one matrix-vector product, no copy
        scores = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(n, X.n_features)) @ w
    else:
        scores = np.zeros(n)
    return scores + bias


def _spread(scores, target):
    margin = float(np.max(np.abs(target))) or 1.0
    return float(np.std(scores)) / margin


def score_spread(X, w, bias, target):
    """The standard deviation of the training scores ``X w + b`` over the largest
    target margin (the first measure of :func:`degeneracy`)."""
    return _spread(_training_scores(X, w, bias), target)


def degeneracy(X, y, w, bias, target, regularizer, mu, mass):
    """How a solution can be degenerate: ``(score spread, weight move, margins met)``.

    ``spread``: the standard deviation of the training scores ``X w + b`` over
    the largest target margin ``max |t_i|`` (1 when every target is 0).
    ``move``: the largest ``|w_j - w0_j| / s_j``, ``w0`` the weights at the
    prior (0 for the balanced entropies, ``s`` for the others) and ``s_j`` the
    prior weight per feature (twice it when balanced). ``met``: the fraction
    of training examples whose margin ``y_i (w x_i + b)`` reaches its target
    ``t_i``. Spread or move below :data:`DEGENERATE_SPREAD` /
    :data:`DEGENERATE_MOVE`, or no margin met, and the solution says nothing
    about the data (docs/mathematics.md §14).
    """
    scores = _training_scores(X, w, bias)
    spread = _spread(scores, target)
    met = float(np.mean(y * scores >= target))
    reg = regularizer_named(regularizer)
    s = mu * (mass if reg.normalized else 1.0)
    if reg.balanced:
        move = float(np.max(np.abs(w) / (2.0 * s)))
    else:
        move = float(np.max(np.abs(w - s) / s))
    return spread, move, met
