"""A search's time budget: which pieces of paths fit in the seconds left, and what the
search did not try.

A search asks :meth:`TimeBudget.allows` before each piece of a combination's paths
(a few lams on every fold), with the piece's predicted cost: the seconds per lam
and per stored value of the training matrices that the pieces solved so far took
(the costliest rate seen, the lams below costing more than those above), or for a
combination's first piece the costliest first piece's rate. A piece that would
overrun the seconds left is not started; the choice is the best of what was solved.
"""
import math
import time
import warnings
from contextlib import contextmanager
from numbers import Real

__all__ = ["BAR_FORMAT", "duration", "LongSearchWarning", "TimeBudget", "say_if_long",
           "TimeBudgetWarning", "check_time_budget"]

#: The searches' progress bars: tqdm's own time left, at the rate of the fits so far,
#: would promise too little (smaller lams and richer features cost more), so a search
#: shows its own estimate as the bar's postfix instead.
BAR_FORMAT = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]"

#: A search predicted to take longer than this says so, once, after its first piece.
LONG_SEARCH_SECONDS = 120.0


class TimeBudgetWarning(UserWarning):
    """The time budget ran out before the search had tried everything: one line says
    what it did not try."""


class LongSearchWarning(UserWarning):
    """A search that will be long, said after its first piece: how long at most, from
    what (``detail``), and the parameter that bounds it (``option``; a front end
    renders its own with :meth:`render`)."""

    def __init__(self, name, seconds, detail, option):
        self.name, self.seconds, self.detail = name, seconds, detail
        super().__init__(self.render(option))

    def render(self, option):
        return (f"{self.name}: this search may take about {duration(self.seconds)} "
                f"({self.detail}; early stopping usually saves much of it); {option}")


def say_if_long(name, seconds, detail, option):
    """One :class:`LongSearchWarning` when ``seconds`` exceed :data:`LONG_SEARCH_SECONDS`."""
    if seconds > LONG_SEARCH_SECONDS:
        warnings.warn(LongSearchWarning(name, seconds, detail, option), stacklevel=4)


def duration(seconds):
    """Seconds as a person says them: 45 s, 12 min, 2 h 05 min."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    hours, minutes = divmod(round(seconds / 60), 60)
    return f"{hours} h {minutes:02d} min"


def check_time_budget(seconds, name):
    """``seconds`` (None: no budget) after a one-line check: a number of seconds > 0."""
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, Real) or not (
            math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"{name}: time_budget={seconds!r}: give a number of seconds > 0, "
                         "or None for no bound")
    return float(seconds)


class TimeBudget:
    """The seconds of a search (None: unbounded), from the moment it is made."""

    #: how much costlier a lam is, per value stored, than the lams above it on the path
    GROWTH = 1.5

    def __init__(self, seconds, name):
        self.seconds, self.name = check_time_budget(seconds, name), name
        self.start = time.perf_counter()
        self.first_rate = self.rate = 0.0  # seconds per lam and stored value
        self.first_seconds = None  # of the search's first piece
        self.first_lams = 0  # lams in a combination's first piece
        self.not_tried, self.cut_short = [], []
        self.said = False  # say_if_long's line, once

    def elapsed(self):
        return time.perf_counter() - self.start

    def left(self):
        return math.inf if self.seconds is None else self.seconds - self.elapsed()

    def exhausted(self):
        """Is the budget spent (after the search's first piece)?"""
        return self.first_seconds is not None and self.left() <= 0

    def predict(self, size, n_lams, first):
        """Seconds of a piece of ``n_lams`` lams over matrices of ``size`` stored values:
        a combination's ``first`` piece, or one further down its paths."""
        rate = self.first_rate if first else max(self.rate, self.first_rate) * self.GROWTH
        return rate * size * n_lams

    def allows(self, size, n_lams, first):
        """May a piece start? Always the search's first (nothing is chosen without it)."""
        if self.seconds is None or self.first_seconds is None:
            return True
        return self.predict(size, n_lams, first) <= self.left()

    def solved(self, seconds, size, n_lams, first):
        """Record a piece that took ``seconds``."""
        rate = seconds / max(size * n_lams, 1)
        if self.first_seconds is None:
            self.first_seconds = seconds
        if first:
            self.first_rate = max(self.first_rate, rate)
            self.first_lams = max(self.first_lams, n_lams)
        self.rate = max(self.rate, rate)

    def estimate_left(self, size, n_lams, lams_left, settings_left):
        """Seconds the rest of a search may take, refreshed after every piece: this
        combination's ``lams_left`` further down its paths (matrices of ``size`` stored
        values), then ``settings_left`` combinations of ``n_lams`` lams each, each priced
        as this one (the cheapest are tried first). An upper figure, as every lam is
        counted where the early stop usually ends sooner; never past the budget left."""
        rest = self.predict(size, lams_left, False) if lams_left > 0 else 0.0
        if settings_left > 0:
            rest += settings_left * (self.first_rate * size * self.first_lams
                                     + self.predict(size, n_lams - self.first_lams, False))
        return min(rest, max(self.left(), 0.0))

    def progress_note(self, size, n_lams, lams_left, settings_left):
        """The progress bar's estimate of the time left (tqdm's own, at the rate of the
        lams so far, would promise too little: smaller lams and richer features cost
        more), and the budget left when there is one."""
        seconds = self.estimate_left(size, n_lams, lams_left, settings_left)
        note = f"at most about {duration(seconds)} left"
        if self.seconds is not None:
            note += f", budget left {max(self.left(), 0):.0f} s"
        return note

    def say_if_long(self, size, n_lams, first_lams, n_settings):
        """After the search's first piece (``first_lams`` lams over matrices of ``size``
        stored values): if ``n_settings`` settings of ``n_lams`` lams each may take more
        than :data:`LONG_SEARCH_SECONDS` (each setting's first piece as the first's, the
        rest of its grid at :meth:`predict`'s rate), one :class:`LongSearchWarning`.
        Once per search; not under a budget, which bounds it already."""
        if self.said or self.first_seconds is None:
            return
        self.said = True
        if self.seconds is not None:
            return
        per_setting = self.first_seconds + self.predict(size, n_lams - first_lams, False)
        say_if_long(self.name, per_setting * n_settings,
                    f"{n_settings} setting{'s' if n_settings != 1 else ''}, every lam of the "
                    f"grid; the first lams of the first took {duration(self.first_seconds)} "
                    f"on every fold", "time_budget=SECONDS bounds it")

    def gate(self, size):
        """The :class:`Gate` of a combination whose solves read ``size`` stored values per
        lam (the training matrices' values, once per binary problem)."""
        return Gate(self, size)

    def check_first(self):
        """Refuse a budget that the search's first piece alone overran: there is no
        choice to speak of, and the line says what the smallest useful budget is."""
        if self.seconds is not None and self.first_seconds > self.seconds:
            raise ValueError(
                f"{self.name}: time_budget={self.seconds:g} s is too small for one setting's "
                f"first lams on every fold ({self.first_seconds:.1f} s here); give at least "
                f"{math.ceil(1.5 * self.first_seconds):d} s, or no budget")

    def report(self, n_tried):
        """One warning line for what the budget left out, if anything; returns what the
        search spent and left out (None without a budget)."""
        if self.seconds is None:
            return None
        spent = {"seconds": self.seconds, "spent": round(self.elapsed(), 3),
                 "not_tried": list(self.not_tried), "cut_short": list(self.cut_short)}
        if not (self.not_tried or self.cut_short):
            return spent
        parts = []
        if self.not_tried:
            parts.append(f"not tried: {len(self.not_tried)} of "
                         f"{n_tried + len(self.not_tried)} settings ("
                         + "; ".join(self.not_tried) + ")")
        if self.cut_short:
            parts.append(f"{len(self.cut_short)} stopped above their smallest lam")
        warnings.warn(TimeBudgetWarning(
            f"{self.name}: the time budget of {self.seconds:g} s is spent "
            f"({self.elapsed():.0f} s): " + ", ".join(parts)
            + "; the choice is the best of the rest (a larger budget tries more)"),
            stacklevel=3)
        return spent


class Gate:
    """One combination's pieces under a :class:`TimeBudget`: ``allows(l, end)`` for
    :func:`~textwin.model_selection._choice.descend`, ``piece(l, end, bar)`` to time
    one, ``close(described)``: was it
    tried at all? (recording what the budget left out)."""

    def __init__(self, budget, size):
        self.budget, self.size, self.refused = budget, size, None

    def allows(self, l, end):
        if self.budget.allows(self.size, end - l, l == 0):
            return True
        self.refused = l
        return False

    @contextmanager
    def piece(self, l, end):
        start = time.perf_counter()
        yield
        self.budget.solved(time.perf_counter() - start, self.size, end - l, l == 0)

    def close(self, described):
        if self.refused == 0:
            self.budget.not_tried.append(described)
            return False
        if self.refused is not None:
            self.budget.cut_short.append(described)
        return True
