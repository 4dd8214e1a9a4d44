"""What a search found, in one format: a row per candidate setting and ``lam``, of which
``cv_results_`` (scikit-learn's dict of lists, with ranks) and the JSON summary that the
command line prints and the model file keeps are views."""
import math

import numpy as np

__all__ = ["result_rows", "cv_results", "search_summary", "mean_curves"]


def result_rows(params, lams, mean, fold_scores, lam_key="lam_n", **extra):
    """The rows of one candidate (``params``) at each of ``lams``: the mean and standard
    deviation over the folds (``fold_scores``, (n_folds, n_lams); NaN at a lam the
    paths stopped above), with ``extra`` (such as ``fit_seconds``) in each."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a lam undefined on all
        std = np.nanstd(fold_scores, axis=0)
    return [{"params": params, lam_key: float(lams[l]),
             "mean_test_score": float(mean[l] if np.isfinite(mean[l]) else math.nan),
             "std_test_score": float(std[l]), **extra} for l in range(len(lams))]


def cv_results(rows):
    """``cv_results_`` of the rows: a list per key, and ``rank_test_score`` (1 the best;
    NaN last; ties in row order; with ``n_folds`` in the rows, those of fewer folds than
    the most, a search's candidates stopped early, after every other)."""
    means = np.array([r["mean_test_score"] for r in rows])
    folds = np.array([r.get("n_folds", 0) for r in rows])
    order = np.lexsort((-np.where(np.isfinite(means), means, -np.inf), folds < folds.max()))
    ranks = np.empty(len(rows), dtype=np.intp)
    ranks[order] = np.arange(1, len(rows) + 1)
    results = {key: [r[key] for r in rows] for key in rows[0]}
    results["rank_test_score"] = ranks.tolist()
    return results


def search_summary(results, scoring, folds, score, chosen, lam_key="lam_n"):
    """The summary of ``cv_results_``, JSON-ready: ``scoring``, ``folds``, ``cv_score``,
    ``chosen``, the grid (``lam_key``, descending) and ``curves``: per candidate, its
    ``params`` and its mean ``scores`` at each lam (None where undefined)."""
    return {"scoring": scoring, "folds": folds, "cv_score": score, "chosen": dict(chosen),
            lam_key: sorted(set(results[lam_key]), reverse=True),
            "curves": [{"params": params, "scores": scores}
                       for params, scores in mean_curves(results)]}


def mean_curves(results):
    """``[(params, mean scores)]``, a candidate's mean scores in lam order (None where
    undefined), from the rows or ``cv_results_``."""
    if isinstance(results, list):  # rows
        results = {"params": [r["params"] for r in results],
                   "mean_test_score": [r["mean_test_score"] for r in results]}
    curves = {}
    for params, value in zip(results["params"], results["mean_test_score"]):
        key = tuple(params.items())
        curves.setdefault(key, []).append(None if not math.isfinite(value) else value)
    return [(dict(key), scores) for key, scores in curves.items()]
