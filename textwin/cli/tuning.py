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
- a matrix (feature values, the paper's cached features) has no TextClassifier: its
  thresholds and calibration are tuned here on the estimator of the method
  (:func:`matrix_tuning`) by
  :mod:`textwin.model_selection._thresholds`.

- Multi-label: a threshold per category, for the largest F1 or at the break-even point.
- Two-class: one threshold on the positive class's score, for the positive class's F1,
  the break-even point or accuracy.
- Multi-class: a threshold per class, subtracted from its score before the argmax
  (:func:`textwin.thresholds.argmax_thresholds`), for accuracy or macro-F1.
"""
from __future__ import annotations

import warnings

from .common import CLIError, first_line, first_names, warnings_naming

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


def matrix_tuning(opts, method, est, d, settings):
    """The thresholds and the calibration of ``method``'s estimator ``est`` fitted on a
    matrix (feature values, the paper's cached features: no TextClassifier holds them):
    ``(thresholds, calibration)``, each None unless --tune-thresholds (a threshold per
    class, a two-class corpus's as ``[-cut, cut]``) or --proba asked for it (or the
    estimator has its own calibration: the logistic loss's link)."""
    with warnings_naming(d.problem_names):
        thresholds = _problem_thresholds(opts, method, est, d, settings)
    if thresholds is not None and d.task == "binary":
        thresholds = two_class_thresholds(thresholds[0])
    return thresholds, _calibration(opts, method, est, d, settings)


def two_class_thresholds(cut):
    """The one problem decides ``s > cut``: the classes' thresholds ``[-cut, cut]``
    (0, never -0.0, at a cut of 0)."""
    return [0.0 - float(cut), float(cut)]


def _problem_thresholds(opts, method, est, d, settings):
    """--tune-thresholds: a threshold per binary problem (a two-class corpus has one, a
    multi-class corpus one per class), from --lam auto's own folds or tuned by
    :func:`~textwin.model_selection._thresholds.task_thresholds` on folds of their own;
    None without."""
    if not opts.tune:
        return None
    tuned = getattr(est, "thresholds_", None)  # --lam auto: tuned in the folds that chose lam
    if tuned is not None:
        return [float(t) for t in tuned]
    if hasattr(est, "lam_"):  # --lam auto: the chosen lam, in folds of its own
        from ..experiments import build_method

        est = build_method(method, d.X_train.shape[0],
                           {**settings, "lam": float(est.lam_[0])}, n_jobs=opts.n_jobs,
                           order=opts.order)
    from ..model_selection._thresholds import task_thresholds

    Y = d.Y_train[:, [1]] if d.task == "binary" else d.Y_train
    try:
        thresholds, _ = task_thresholds(est, d.X_train, Y, d.task, opts.tune, TUNING_FOLDS)
    except ValueError as exc:  # e.g. a category with too few documents for the folds
        raise CLIError(f"--tune-thresholds: {first_line(exc)}") from None
    warn_rare_classes(opts.tune, d)
    return thresholds


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


def _calibration(opts, method, est, d, settings):
    """--proba: Platt's sigmoids fitted on out-of-fold scores of the training set
    (:func:`~textwin.model_selection._thresholds.out_of_fold_calibration`), each fold's
    model at the final model's ``C`` (its ``lam`` times ``n`` over the fold's training
    documents; --lam auto's choice); --auto's model has them already. Without --proba,
    the estimator's own, if any (the logistic loss's link)."""
    if not opts.proba or hasattr(est, "best_params_") or opts.auto:
        return getattr(est, "calibration_", None)
    import numpy as np

    from ..experiments import build_method
    from ..model_selection._thresholds import out_of_fold_calibration

    folds = _calibration_folds(d)
    n = d.n_train
    lam = float(np.ravel(est.lam_)[0]) if hasattr(est, "lam_") else settings.get("lam")
    if lam == "auto":  # the model refitted at the search's choice (a class without documents)
        lam = float(est.lam)

    def estimator_for(fold_n):
        scaled = dict(settings) if lam is None else {**settings, "lam": lam * n / fold_n}
        return build_method(method, fold_n, scaled, n_jobs=opts.n_jobs, order=opts.order)

    try:
        return out_of_fold_calibration(estimator_for, d.X_train, d.Y_train, d.task, folds)
    except ValueError as exc:
        raise CLIError(f"--proba: {first_line(exc)}") from None
