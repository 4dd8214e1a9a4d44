# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The stopping rule of the dual Gauss-Seidel solver (docs/mathematics.md §2).

The solver stops on the exact relative duality gap ``(P + D) / P <= tol``, one
more pass over the data; the rule decides after each epoch whether that pass is
worth making, from a cheap estimate the epoch leaves behind.  Its state is a
handful of numbers; it reads no data, so it is tested alone on sequences of
estimates (tests/test_kernel.py).
"""
from libc.math cimport INFINITY

from ._losses cimport clip

cdef double LAG_MIN = 0.001        # range of the learnt ratio cheap / exact gap
cdef double LAG_MAX = 5.0
cdef double LAG_START = 1.2        # the ratio before any exact check

_ACTIONS = {CONTINUE: "continue", CHECK_EXACT: "check_exact", STOP: "stop",
            UNSHRINK: "unshrink"}


cdef class StopRule:
    """Cheap estimate, learnt lag, forced and periodic exact checks.

    Every ``gap_every`` epochs the solver forms the cheap estimate: the gap
    terms at the margins seen at each example's last visit, over ``P``
    estimated as gap - D with the exact D of now.  They lag behind: each is
    taken before its own step, so with the square regularizer the estimate
    runs above the exact gap; with the normalized ones every step moves every
    weight (through Z), and the terms seen, each small after its own step,
    run 20-50 times below it.  Either way the estimate is corrected by the
    ratio est / exact learnt at the last exact check (clamped to [0.001, 5],
    1.2 before any): without the correction below 1 the normalized rows made
    an exact check, two more passes, after nearly every epoch.  A check made
    while shrinking has set examples aside learns no ratio below 1: their
    terms are stale for another reason, and only a check that this estimate
    triggers brings them back.  A ratio below 1 may drift upward, and the
    corrected estimate then stays above tol while the exact gap is below it:
    in that regime an exact check also comes every quarter of the epochs run
    so far (at least 5 apart), which bounds the overshoot.  An exact check
    also comes every ``exact_every`` epochs (a safety net for the estimate)
    and after the last epoch; the gap reported is always exact.

    After an exact check that does not converge, every example set aside is
    back and shrinking starts afresh (liblinear's full-set recheck) if the
    estimate triggered the check, or if examples are aside at all: the
    estimate of a shrunk set may never trigger one, and they would stay aside
    for good.

    Parameters
    ----------
    tol : float
        The relative gap to reach.
    gap_every, exact_every, max_epochs : int
        As ``dual_gauss_seidel``'s ``gap_every``, ``exact_gap_every`` and
        ``max_epochs``.
    """

    def __init__(self, double tol, int gap_every, int exact_every, int max_epochs):
        self.tol = tol
        self.gap_every = gap_every
        self.exact_every = exact_every
        self.max_epochs = max_epochs
        self.lag = LAG_START
        self.last_exact = 0
        self.triggered = False

    cdef bint wants_estimate(self, int epoch) noexcept nogil:
        """Form the cheap estimate after this epoch?"""
        return epoch % self.gap_every == 0

    cdef StopAction after_epoch(self, int epoch, double estimate) noexcept nogil:
        """CHECK_EXACT or CONTINUE after ``epoch`` (1, 2, ...); ``estimate``
        is the cheap relative gap when wants_estimate(epoch), else ignored."""
        self.triggered = False
        if self.wants_estimate(epoch):
            self.triggered = estimate <= self.tol * self.lag
            if self.lag < 1.0 and epoch >= self.last_exact + max(5, self.last_exact // 4):
                self.triggered = True
        if self.triggered or epoch % self.exact_every == 0 or epoch == self.max_epochs:
            return CHECK_EXACT
        return CONTINUE

    cdef StopAction learn(self, int epoch, double estimate, double exact,
                          bint shrunk) noexcept nogil:
        """After the exact check of ``epoch`` (0: the warm start's, at entry):
        learn the lag from ``estimate`` (INFINITY when none was formed) and
        the exact relative gap; ``shrunk``: examples were set aside.  Returns
        STOP, UNSHRINK or CONTINUE."""
        self.last_exact = epoch
        if estimate < INFINITY and exact > 0:
            self.lag = clip(estimate / exact, LAG_MIN if not shrunk else 1.0, LAG_MAX)
        if exact <= self.tol:
            return STOP
        if self.triggered or shrunk:
            return UNSHRINK
        return CONTINUE

    def py_after_epoch(self, int epoch, double estimate=INFINITY):
        """after_epoch, for tests: "check_exact" or "continue"."""
        return _ACTIONS[self.after_epoch(epoch, estimate)]

    def py_learn(self, int epoch, double estimate, double exact, bint shrunk=False):
        """learn, for tests: "stop", "unshrink" or "continue"."""
        return _ACTIONS[self.learn(epoch, estimate, exact, shrunk)]
