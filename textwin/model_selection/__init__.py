"""Choosing by cross-validation: folds, regularization paths, out-of-fold path scores,
the choice of lam and of the decision rule, and the searches (docs/mathematics.md §13).

The package's modules, as scikit-learn's ``model_selection`` splits its own:

``_split``
    The folds and the words for a class smaller than the folds, as
    :mod:`textwin._folds` builds them (the one place that does, below the estimators).
``_paths``
    The warm-started regularization path (:func:`regularization_path`,
    :func:`held_out_path_scores`, :func:`lam_max`, :func:`lam_grid`).
``_validation``
    Out-of-fold path scores of every (fold, binary problem), in threads or on a
    cluster.
``_choice``
    Judging out-of-fold scores at the model's decision rule; choosing ``lam``
    (:func:`select_lam`) and stopping a path early.
``_thresholds``
    Decision thresholds tuned on out-of-fold scores
    (:class:`TunedThresholdsClassifierCV`, :func:`argmax_thresholds`, a task's
    :func:`task_thresholds`) and probabilities calibrated on out-of-fold scores.
``_search``, ``_text_search``
    :class:`DualGaussSeidelClassifierCV`; :class:`TextClassifierCV`, which searches
    the features of raw texts too.

The names are loaded on first use, so that the command line can name a warning or a
default without importing scikit-learn's model selection and metrics.
"""
import importlib

_LAZY = {
    "DualGaussSeidelClassifierCV": "_search", "TextClassifierCV": "_text_search",
    "regularization_path": "_paths", "held_out_path_scores": "_paths", "lam_max": "_paths",
    "lam_grid": "_paths", "LamGridWarning": "_paths", "PathConvergenceWarning": "_paths",
    "select_lam": "_choice", "fold_scores": "_choice", "check_choice": "_choice",
    "tuned_thresholds": "_choice", "shared_choice": "_choice", "mean_and_se": "_choice",
    "past_the_best": "_choice", "SCORINGS": "_choice", "RULES": "_choice",
    "default_scoring": "_choice", "rule_for": "_choice",
    "SmallClassWarning": "_split", "SMALL_CLASS_NOISE": "_split",
    "SMALL_CLASS_FALLBACK": "_split", "fold_shortfall": "_split", "fold_of": "_split",
    "MICRO_BEP": "_validation",
    "TunedThresholdsClassifierCV": "_thresholds", "argmax_thresholds": "_thresholds",
    "out_of_fold_scores": "_thresholds", "task_thresholds": "_thresholds",
}

__all__ = ["DualGaussSeidelClassifierCV", "TextClassifierCV", "regularization_path", "held_out_path_scores",
           "lam_max", "lam_grid", "select_lam", "LamGridWarning", "PathConvergenceWarning",
           "SmallClassWarning"]


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_LAZY})
