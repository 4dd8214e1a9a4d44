"""The search's time budget and its estimate of the time left (textwin/model_selection/
_budget.py)."""
import re

import pytest
from _model_selection_data import Clock


def test_the_estimate_left_prices_the_lams_below_and_the_settings_left(monkeypatch):
    import textwin.model_selection._budget as budget_module
    from textwin.model_selection._budget import TimeBudget

    monkeypatch.setattr(budget_module, "time", Clock())
    budget = TimeBudget(None, "search")
    budget.solved(2.0, 100, 3, True)  # a first piece: 3 lams over 100 values in 2 s
    # the 7 lams below at 1.5 times the rate seen (7 s), then one setting more priced as
    # this one: its first piece (2 s) and its 7 lams below (7 s)
    assert budget.estimate_left(100, 10, 7, 1) == pytest.approx(16.0)
    assert budget.estimate_left(100, 10, 0, 0) == 0.0
    assert budget.progress_note(100, 10, 7, 1) == "at most about 16 s left"
    bounded = TimeBudget(20, "search")  # the clock moves 1 s at each reading
    bounded.solved(2.0, 100, 3, True)
    # 7 + 5 * 9 = 52 s of work, but never past the budget left
    assert 15 < bounded.estimate_left(100, 10, 7, 5) < 20
    assert re.fullmatch(r"at most about 1\d s left, budget left 1\d s",
                        bounded.progress_note(100, 10, 7, 5))
