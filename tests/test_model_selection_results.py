"""A search's results (textwin/model_selection/_results.py): cv_results_ and the summary
are views of the same rows."""
import numpy as np
from scipy.stats import rankdata

from textwin.model_selection._results import cv_results, result_rows, search_summary


def test_cv_results_rank_as_scipy_and_the_summary_reads_the_same_rows():
    lams = np.array([10.0, 1.0, 0.1])
    rows = (result_rows({"stem": True}, lams, np.array([0.8, 0.9, -np.inf]),
                        np.array([[0.7, 0.9, np.nan], [0.9, 0.9, np.nan]]), fit_seconds=1.0)
            + result_rows({"stem": False}, lams, np.array([0.85, 0.9, 0.7]),
                          np.array([[0.8, 0.9, 0.7], [0.9, 0.9, 0.7]]), fit_seconds=2.0))
    res = cv_results(rows)
    means = np.array(res["mean_test_score"])
    assert np.isnan(means[2]) and np.isclose(res["std_test_score"][0], 0.1)
    expected = rankdata(-np.nan_to_num(means, nan=-np.inf), method="ordinal")
    assert res["rank_test_score"] == expected.tolist()
    summary = search_summary(res, "accuracy", 2, 0.9, {"stem": True, "lam_n": 1.0})
    assert summary["lam_n"] == [10.0, 1.0, 0.1]
    assert summary["curves"] == [{"params": {"stem": True}, "scores": [0.8, 0.9, None]},
                                 {"params": {"stem": False}, "scores": [0.85, 0.9, 0.7]}]
