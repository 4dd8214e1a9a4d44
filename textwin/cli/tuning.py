"""`train --tune-thresholds` and `--proba` as options: which objective each task takes,
the folds' checks before any training, the warning that names the rare classes, and the
summary. The estimators tune and calibrate themselves:

- a text corpus's :class:`~textwin.TextClassifier` takes --tune-thresholds as its
  ``thresholds`` (an objective, tuned on :data:`TUNING_FOLDS` folds of the texts) and
  --proba as ``probability=True``; --auto's :class:`~textwin.TextClassifierCV` tunes
  multi-label and two-class thresholds itself, and a multi-class corpus's class offsets
  as its ``thresholds``;
- with ``--lam auto``, multi-label and two-class thresholds for F1 or the break-even
  point are tuned in the folds that choose lambda (``DualGaussSeidelClassifierCV(
  thresholds=...)``), which the TextClassifier keeps;
- a matrix (feature values, the paper's cached features) has no TextClassifier: the
  method's estimator is a :class:`~textwin.model_selection.TunedThresholdsClassifierCV`
  (:func:`textwin.experiments.fit_method`), which tunes on :data:`TUNING_FOLDS` folds
  and calibrates itself alike.

- Multi-label: a threshold per category, for the largest F1 or at the break-even point.
- Two-class: one threshold on the positive class's score, for the positive class's F1,
  the break-even point or accuracy.
- Multi-class: a threshold per class, subtracted from its score before the argmax
  (:func:`textwin.thresholds.argmax_thresholds`), for accuracy or macro-F1.
"""
from __future__ import annotations

import warnings

from .common import CLIError, first_names

#: The folds of `train --tune-thresholds` (without --lam auto's own).
TUNING_FOLDS = 3

_WHAT = {"multilabel": "multi-label", "binary": "two-class", "multiclass": "multi-class"}


def check_tuning(opts, d):
    """Refuse, in one line before any training, an objective of --tune-thresholds that the
    task of ``d`` has no use for, and --proba without enough training documents of every
    class for the calibration's folds."""
    from .._tuning import OBJECTIVES  # what each task's thresholds are tuned for

    objective, task = opts.tune, d.task
    if objective is not None and objective not in OBJECTIVES[task]:
        takes = [_WHAT[t] for t, objectives in OBJECTIVES.items() if objective in objectives]
        raise CLIError(f"--tune-thresholds {objective} is for {' and '.join(takes)} corpora; "
                       f"this corpus is {_WHAT[task]}: give {' or '.join(OBJECTIVES[task])}")
    if opts.proba and not opts.auto:
        _calibration_folds(d)


def in_lam_folds(objective, task):
    """Whether --lam auto's cross-validation tunes the thresholds for ``objective`` (that
    of --tune-thresholds) in its own folds."""
    return task != "multiclass" and objective in ("f1", "breakeven")


def warn_rare_classes(objective, d):
    """Name, in a warning, the classes or categories with fewer training documents than
    the :data:`TUNING_FOLDS` folds, whose thresholds stay 0 (the estimators' policy:
    :func:`textwin._tuning.rare_columns`)."""
    import numpy as np

    from .._tuning import rare_columns

    Y = d.Y_train[:, [1]] if d.task == "binary" else d.Y_train
    rare = rare_columns(Y, TUNING_FOLDS)
    if not rare.size:
        return
    names = d.categories if d.task == "multiclass" else d.problem_names
    counts = (np.asarray(Y) != 0).sum(axis=0)
    named = [f"{names[j] if j < len(names) else j} ({int(counts[j])})" for j in rare]
    n = len(named)
    one, many = (("class", "classes") if d.task == "multiclass"
                 else ("category", "categories"))
    warnings.warn(f"--tune-thresholds: {n} {one + ' has' if n == 1 else many + ' have'} "
                  f"fewer training documents than the {TUNING_FOLDS} folds and "
                  f"keep{'s' if n == 1 else ''} threshold 0: {first_names(named)}",
                  stacklevel=2)


def _calibration_folds(d):
    """--proba's folds (:func:`~textwin.model_selection._thresholds.calibration_folds`),
    or the one line that says what to do when a class is too small for them."""
    from ..model_selection._thresholds import calibration_folds

    try:
        return calibration_folds("--proba", d.Y_train, d.task, d.categories)
    except ValueError as exc:
        raise CLIError(f"{exc}, or leave out --proba") from None


#: What each objective maximises, by task.
_METRIC = {("multiclass", "f1"): "macro-F1", ("binary", "f1"): "the positive class's F1",
           ("multilabel", "f1"): "each category's F1"}


def tuning_summary(objective, task, cv):
    """What --tune-thresholds tuned, JSON-ready: the objective, what it maximised, the
    folds (--lam auto's own, or :data:`TUNING_FOLDS` of their own)."""
    metric = _METRIC.get((task, objective), "the break-even point" if objective == "breakeven"
                         else "accuracy")
    own = cv is not None and in_lam_folds(objective, task)
    return {"objective": objective, "metric": metric,
            "folds": int(cv["folds"]) if own else TUNING_FOLDS}
