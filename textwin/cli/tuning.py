"""`train --tune-thresholds`: the decision thresholds of each task, tuned on out-of-fold
scores of the training set.

- Multi-label: a threshold per category, for the largest F1 or at the break-even point.
- Two-class: one threshold on the positive class's score, for the positive class's F1,
  the break-even point or accuracy.
- Multi-class: a threshold per class, subtracted from its score before the argmax
  (:func:`textwin.thresholds.argmax_thresholds`), for accuracy or macro-F1.

With ``--lam auto``, multi-label and two-class thresholds for F1 or the break-even
point are tuned in the folds that choose lambda; the others on folds of their own at the
chosen lambda. ``--auto`` chooses multi-label and two-class thresholds itself; on a
multi-class corpus the class offsets are tuned for the settings it chose, in folds of
their own.
"""
from __future__ import annotations

import warnings

from .common import CLIError, first_line, first_names

#: The folds of `train --tune-thresholds` (without --lam auto's own).
TUNING_FOLDS = 3

#: What --tune-thresholds maximises on each task.
OBJECTIVES = {"multilabel": ("f1", "breakeven"), "binary": ("f1", "breakeven", "accuracy"),
              "multiclass": ("f1", "accuracy")}
_WHAT = {"multilabel": "multi-label", "binary": "two-class", "multiclass": "multi-class"}


def check_tuning(objective, task):
    """Refuse, in one line before any training, an ``objective`` of --tune-thresholds that
    the task has no use for."""
    if objective is None or objective in OBJECTIVES[task]:
        return
    takes = [_WHAT[t] for t, objectives in OBJECTIVES.items() if objective in objectives]
    raise CLIError(f"--tune-thresholds {objective} is for {' and '.join(takes)} corpora; "
                   f"this corpus is {_WHAT[task]}: give {' or '.join(OBJECTIVES[task])}")


def in_lam_folds(objective, task):
    """Whether --lam auto's cross-validation tunes the thresholds for ``objective`` (that
    of --tune-thresholds) in its own folds."""
    return task != "multiclass" and objective in ("f1", "breakeven")


def problem_thresholds(opts, method, est, d, settings):
    """--tune-thresholds: a threshold per binary problem (a two-class corpus has one, a
    multi-class corpus one per class), from --lam auto's own folds or from a
    cross-validation of their own; None without."""
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
    try:
        if d.task == "multiclass":
            return _tune_classes(est, d.X_train, d.Y_train, opts.tune, d.categories)
        Y = d.Y_train[:, [1]] if d.task == "binary" else d.Y_train
        return _tune_columns(est, d.X_train, Y, opts.tune, d.problem_names)
    except ValueError as exc:  # e.g. a category with too few documents for the folds
        raise CLIError(f"--tune-thresholds: {first_line(exc)}") from None


def auto_class_thresholds(objective, best, d):
    """--auto --tune-thresholds on a multi-class corpus: class offsets from out-of-fold
    scores of the chosen model's settings, its vectorizer fitted on each fold's texts."""
    try:
        return _tune_classes(best, d.texts_train, d.Y_train, objective, d.categories)
    except ValueError as exc:
        raise CLIError(f"--tune-thresholds: {first_line(exc)}") from None


def _out_of_fold(est, X, Y, cv):
    from ..thresholds import out_of_fold_scores

    with warnings.catch_warnings():
        # the folds' fits repeat what the full fit already reported
        warnings.simplefilter("ignore")
        return out_of_fold_scores(est, X, Y, cv=cv)


def _tune_columns(est, X_train, Y_train, objective, names):
    """Per-category thresholds from out-of-fold scores of ``est``'s settings on the
    training set; ``names`` are the categories, in column order."""
    import numpy as np

    from ..model_selection._choice import tuned_thresholds

    # the search's tuner and its policy: a category with fewer positives than folds
    # keeps 0 (some fold trained without any); a single such category is not tuned at
    # all (its folds could not be trained)
    Y = np.asarray(Y_train) != 0
    positives = Y.sum(axis=0)
    if positives.size == 1 and positives[0] < TUNING_FOLDS:
        thresholds = np.zeros(1)
    else:
        oof = _out_of_fold(est, X_train, Y_train, TUNING_FOLDS)
        thresholds = tuned_thresholds(oof, Y, objective, TUNING_FOLDS)
    rare = [j for j in range(thresholds.size) if 0 < positives[j] < TUNING_FOLDS]
    if rare:
        _warn_rare([f"{names[j] if j < len(names) else j} ({positives[j]})" for j in rare],
                   "category", "categories")
    return thresholds


def _tune_classes(est, X_train, Y_train, objective, names):
    """Per-class thresholds of the argmax from stratified out-of-fold scores; a class
    with fewer training documents than folds keeps 0 (+inf without any: never given)."""
    import numpy as np

    from ..model_selection._split import stratified_folds
    from ..tasks import never_given
    from ..thresholds import argmax_thresholds

    Y = np.asarray(Y_train)
    counts = Y.sum(axis=0)
    y = Y.argmax(axis=1)
    folds = stratified_folds(TUNING_FOLDS, y)  # a class rarer than the folds: named below
    oof = _out_of_fold(est, X_train, Y, folds)
    present = counts > 0  # a class without documents is never given, left out here
    thresholds = never_given(Y)
    thresholds[present] = argmax_thresholds(np.cumsum(present)[y] - 1, oof[:, present],
                                            objective, tunable=counts[present] >= TUNING_FOLDS)
    rare = [f"{names[j]} ({int(counts[j])})"
            for j in np.flatnonzero(present & (counts < TUNING_FOLDS))]
    if rare:
        _warn_rare(rare, "class", "classes")
    return thresholds


def _warn_rare(named, one, many):
    n = len(named)
    warnings.warn(f"--tune-thresholds: {n} {one + ' has' if n == 1 else many + ' have'} "
                  f"fewer training documents than the {TUNING_FOLDS} folds and "
                  f"keep{'s' if n == 1 else ''} threshold 0: {first_names(named)}",
                  stacklevel=3)


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


def train_calibration(opts, method, est, d, settings):
    """--proba: Platt's sigmoids (:func:`textwin.calibration.calibrate`) fitted on
    out-of-fold scores of the training set, each fold's model at the final model's ``C``
    (its ``lam`` times ``n`` over the fold's training documents; --lam auto's choice);
    --auto's model has them already. Without --proba, the estimator's own, if any (the
    logistic loss's link)."""
    import numpy as np

    from ..calibration import calibrate
    from ..experiments import build_method
    from ..model_selection._split import calibration_fold_count, text_folds

    if not opts.proba or hasattr(est, "best_params_") or opts.auto:
        return getattr(est, "calibration_", None)
    Y = np.asarray(d.Y_train)
    n = Y.shape[0]
    counts = Y.sum(axis=0)
    smallest = n if d.task == "multilabel" else int(counts[counts > 0].min())
    try:
        k = calibration_fold_count("--proba", smallest, n, "training documents")
    except ValueError as exc:
        raise CLIError(f"{exc}, or leave out --proba") from None
    with warnings.catch_warnings():  # a class rarer than the folds: stratified as far as it goes
        warnings.simplefilter("ignore")
        folds = text_folds("--proba", k, Y, d.task, d.categories, 0)
    fold_n = np.mean([train.size for train, _ in folds])
    lam = float(np.ravel(est.lam_)[0]) if hasattr(est, "lam_") else settings.get("lam")
    if lam == "auto":  # the model refitted at the search's choice (a class without documents)
        lam = float(est.lam)
    fold_settings = dict(settings) if lam is None else {**settings, "lam": lam * n / fold_n}
    fold_est = build_method(method, fold_n, fold_settings, n_jobs=opts.n_jobs,
                            order=opts.order)
    target = Y[:, [1]] if d.task == "binary" else Y
    try:
        oof = _out_of_fold(fold_est, d.X_train, target, folds)
    except ValueError as exc:
        raise CLIError(f"--proba: {first_line(exc)}") from None
    return calibrate(oof, target.astype(bool), folds=len(folds))
