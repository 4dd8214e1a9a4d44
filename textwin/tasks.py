"""Single-label and multi-label categorization: which task, what is predicted, how it scores.

The task of a labelled corpus is read from its labels (:func:`detect_task`):

``"multiclass"``
    Every document has exactly one label, among three or more classes. One
    one-vs-rest problem per class; a document gets the class of its highest
    score less that class's threshold (0 unless tuned). Ties go to the class
    that comes first in sorted order (``numpy.argmax``, as scikit-learn's
    one-vs-rest). Scored by accuracy, macro- and micro-F1 and a per-class
    table (precision, recall, F1 of the predicted classes; break-even point of
    each class's ranking).
``"binary"``
    Every document has exactly one of two labels. One problem, for the second
    class in sorted order (scikit-learn's positive class): score above the
    threshold gives it, otherwise the first. Scored as ``"multiclass"``, and
    with the F1 of that positive class (as scikit-learn's ``f1_score``).
``"multilabel"``
    Anything else: a document may have no label or several. One problem per
    category; a document gets every category whose score is above its
    threshold. Scored per category (break-even point, precision, recall, F1)
    with micro- and macro-averaged break-even points and F1.

Figures are fractions here; the command line prints them in percent.
"""
import numpy as np

__all__ = ["TASKS", "detect_task", "encode_labels", "problem_positives", "problem_weights", "decide",
           "never_given", "NEVER", "ABSENT_SCORE", "predicted_classes", "ranked_labels",
           "score_task", "label_accuracy"]

TASKS = ("multiclass", "binary", "multilabel")


def _label_counts(*Ys):
    return np.concatenate([np.asarray(Y).sum(axis=1).ravel() for Y in Ys if Y is not None])


def detect_task(Y_train, Y_test=None, task=None):
    """The task of label indicator matrices (documents x categories).

    Parameters
    ----------
    Y_train, Y_test : array of shape (n_documents, n_categories)
        0/1 indicators over the same categories (``Y_test`` may be None).
    task : None, "multiclass" or "multilabel"
        Force the task; ``"multiclass"`` needs exactly one label per document
        (two categories then make it ``"binary"``).

    Returns
    -------
    task : {"multiclass", "binary", "multilabel"}

    Raises
    ------
    ValueError
        ``task="multiclass"`` on documents with no label or several, or an
        unknown ``task``.
    """
    if task not in (None, "multiclass", "multilabel"):
        raise ValueError(f"task={task!r} must be 'multiclass', 'multilabel' or None (detect)")
    n_labels = _label_counts(Y_train, Y_test)
    n_categories = np.asarray(Y_train).shape[1]
    single = n_labels.size > 0 and bool((n_labels == 1).all()) and n_categories >= 2
    if task == "multilabel":
        return "multilabel"
    if task == "multiclass" and not single:
        if n_categories < 2:
            raise ValueError("a multi-class task needs at least two classes; this corpus "
                             f"has {n_categories} category")
        none, several = int((n_labels == 0).sum()), int((n_labels > 1).sum())
        raise ValueError(
            "a multi-class task needs exactly one label per document: "
            f"{none} document{'s have' if none != 1 else ' has'} none and {several} "
            f"{'have' if several != 1 else 'has'} several; use the multi-label task")
    if not single:
        return "multilabel"
    return "binary" if n_categories == 2 else "multiclass"


def _is_label_lists(y, sp):
    return (not isinstance(y, np.ndarray) and not sp.issparse(y) and len(y) > 0
            and all(isinstance(labels, (list, tuple, set, frozenset)) for labels in y))


def label_accuracy(estimator, X, y, sample_weight=None):
    """The accuracy of ``estimator.predict(X)`` against ``y`` given as its ``fit`` takes
    it, label lists too (scikit-learn's ``score`` refuses them): multi-label, the share
    of documents whose every category is right; a category the model never saw is
    never predicted, so a document that has one is missed."""
    import scipy.sparse as sp
    from sklearn.metrics import accuracy_score

    predicted = estimator.predict(X)
    if not _is_label_lists(y, sp):
        return float(accuracy_score(y, predicted, sample_weight=sample_weight))
    classes = estimator.classes_.tolist()
    given = ([[classes[j] for j in np.flatnonzero(row)] for row in predicted]
             if predicted.ndim == 2 else [[label] for label in predicted.tolist()])
    index = {label: j for j, label in enumerate(
        sorted({label for labels in [*y, *given] for label in labels}, key=class_order))}

    def indicator(lists):
        Y = np.zeros((len(lists), len(index)), dtype=np.uint8)
        for i, labels in enumerate(lists):
            Y[i, [index[label] for label in labels]] = 1
        return Y

    return float(accuracy_score(indicator(y), indicator(given), sample_weight=sample_weight))


def encode_labels(y, task=None):
    """``(Y, classes, task)`` of a training ``y``: a 0/1 indicator matrix (documents x
    classes), the class labels of its columns and the task (:func:`detect_task`).

    A 1-d ``y`` is single-label (its sorted distinct values are the classes); label
    lists and indicator matrices are multi-label unless every document has exactly
    one label (``task`` forces "multiclass" or "multilabel").
    """
    import scipy.sparse as sp

    if task not in (None, "multiclass", "multilabel"):
        raise ValueError(f"task={task!r} must be 'multiclass', 'multilabel' or None (detect)")
    if _is_label_lists(y, sp):
        for i, labels in enumerate(y):
            _check_labels(labels, i)
        classes = np.array(sorted({label for labels in y for label in labels}, key=class_order),
                           dtype=object)
        index = {label: j for j, label in enumerate(classes.tolist())}
        Y = np.zeros((len(y), classes.size), dtype=np.uint8)
        for i, labels in enumerate(y):
            Y[i, [index[label] for label in labels]] = 1
    elif sp.issparse(y) or np.ndim(y) == 2:
        Y = (y.toarray() if sp.issparse(y) else np.asarray(y))
        if not np.isin(Y, (0, 1)).all():
            raise ValueError("an indicator matrix y holds 0 and 1 only")
        Y, classes = Y.astype(np.uint8), np.arange(Y.shape[1])
    else:
        labels = np.asarray(y)
        if labels.ndim != 1:
            raise ValueError(f"y has shape {labels.shape}; give a 1-d array of labels, "
                             "label lists or an indicator matrix")
        if labels.dtype == object:
            for i, label in enumerate(labels.tolist()):
                _check_labels([label], i)
        try:
            classes, index = np.unique(labels, return_inverse=True)
        except TypeError:  # labels of kinds that do not compare (str and int)
            kinds = sorted({type(label).__name__ for label in labels.tolist()})
            raise ValueError(f"y mixes labels of kinds {', '.join(kinds)}, which have no "
                             f"order: give every label as the same kind (str)") from None
        if classes.size < 2:
            raise ValueError(f"y has a single class ({classes[0]!r} for every text); a "
                             "classifier needs two or more")
        _check_class_names(classes.tolist())
        Y = np.zeros((labels.size, classes.size), dtype=np.uint8)
        Y[np.arange(labels.size), index] = 1
        if task == "multilabel":  # one label per text, as independent yes/no problems
            return Y, classes, "multilabel"
        return Y, classes, "binary" if classes.size == 2 else "multiclass"
    _check_class_names(classes.tolist())
    return Y, classes, detect_task(Y, task=task)


def class_order(label):
    """Sort key of the labels of label lists: numbers as numbers (as numpy and
    scikit-learn sort numeric labels), then the others as strings."""
    import numbers

    if isinstance(label, numbers.Real) and not isinstance(label, bool) and label == label:
        return (0, float(label), "")
    return (1, 0.0, str(label))


def _check_labels(labels, i):
    for label in labels:
        if label is None or (isinstance(label, float) and label != label):
            raise ValueError(f"y[{i}] is {label!r}, not a label: give every text its label "
                             f"(or, for label lists, [] for none)")


def _check_class_names(classes):
    """Refuse the names that a model file and predict's output cannot tell apart from
    no label ("-") or from nothing ("")."""
    for name in classes:
        if isinstance(name, str) and name.strip() in ("", "-"):
            raise ValueError(f"a class is named {name!r}, which predict's output and the "
                             f"model file cannot tell apart from no label: rename it")


def problem_positives(Y, task):
    """(n_texts, n_problems) booleans: the positives of each binary problem (two classes:
    one problem, for the second)."""
    return Y[:, 1:].astype(bool) if task == "binary" else Y.astype(bool)


#: The threshold of a class without training documents: it is never given (above no
#: score; in an argmax its score less it is -inf, below every class that has a model).
NEVER = np.inf
#: The score of a class without a model (in a fold that trains without it): never the
#: argmax, the same decision as a threshold of :data:`NEVER`.
ABSENT_SCORE = -np.inf


def problem_weights(weight, cols, task, alone):
    """Weights of the classes (``weight[k]`` for class ``k``) as the ``class_weight`` of the
    model fitted for the problems ``cols``, keyed as that model reads its labels: the
    class indices of one class per text, the column indices of an indicator, or 0/1 for
    one problem on its own (``alone``: its positives weighted); a binary task's two
    classes each theirs."""
    if task == "binary":
        return {0: weight[0], 1: weight[1]}
    if alone:
        return {1: weight[cols[0]]}
    return {j: weight[k] for j, k in enumerate(cols)}


def decide(task, scores, thresholds=0.0):
    """The decision rule: labels from scores, for every estimator, model file, search
    and ``predict`` of textwin.

    ``scores``: (documents, problems[, ...]) (a two-class task's one problem may be
    1-d), ``thresholds`` one per problem along axis 1 (or one for all). A multi-label
    document gets every category whose score is above its threshold, a two-class one
    the positive class where its score is above the threshold (both: a boolean array
    the shape of ``scores``); a multi-class one the class of the highest score less
    its threshold, ties to the first (sorted order): an index array without axis 1.
    A class without training documents has the threshold :data:`NEVER`.
    """
    scores = np.asarray(scores, dtype=np.float64)
    t = np.asarray(thresholds, dtype=np.float64)
    if t.ndim == 1 and scores.ndim > 2:  # one per problem, along axis 1
        t = t.reshape(t.shape + (1,) * (scores.ndim - 2))
    if task == "multiclass":
        return np.argmax(scores - np.broadcast_to(t, scores.shape[1:]), axis=1)
    if task not in TASKS:
        raise ValueError(f"task={task!r} must be one of {TASKS}")
    return scores > t


def never_given(Y_train, thresholds=0.0):
    """``thresholds`` (one per class) with :data:`NEVER` for the classes without a
    training document (indicator ``Y_train``: documents x classes)."""
    absent = ~np.asarray(Y_train).any(axis=0)
    return np.where(absent, NEVER, np.broadcast_to(thresholds, absent.shape))


def predicted_classes(scores, thresholds=0.0):
    """Index of each document's class: the highest score less its threshold; ties
    go to the first class (sorted order). ``scores``: (documents x classes)."""
    return decide("multiclass", scores, thresholds)


def ranked_labels(scores, thresholds, task, k, by=None):
    """Each document's labels in the order the decision ranks them, at most ``k``: the
    indices of ``classes`` (binary: of its two classes) or of the categories.

    The labels :func:`decide` gives come first: one class per document, its class, then
    the others by their scores less their thresholds, highest first (ties in class
    order); a binary model's class, then the other. Multi-label: the categories
    :func:`decide` gives, the furthest above its threshold first. ``scores``:
    (documents x problems), a binary model's one column. ``by`` (documents x classes or
    categories, e.g. their probabilities) ranks them in place of the scores less the
    thresholds, after the labels given.
    """
    scores = np.asarray(scores, dtype=np.float64)
    t = np.broadcast_to(np.asarray(thresholds, dtype=np.float64), scores.shape[1:])
    if task == "binary":
        return [[1, 0][:k] if on else [0, 1][:k] for on in decide(task, scores[:, 0], t[0])]
    margin = scores - t if by is None else np.asarray(by, dtype=np.float64)
    order = np.argsort(-margin, axis=1, kind="stable")
    if task == "multilabel":
        given = decide(task, scores, t)
        return [[j for j in row if on[j]][:k] for row, on in zip(order.tolist(), given)]
    return [([first] + [j for j in row if j != first])[:k]
            for first, row in zip(decide(task, scores, t).tolist(), order.tolist())]


def _breakeven_averages_with_misses(Y_true, beps):
    """Micro- and macro-averaged break-even points over the categories with test
    positives, a NaN break-even point (a constant model's) counted as 0."""
    P = (np.asarray(Y_true) > 0).sum(axis=0)
    has_pos = P > 0
    if not has_pos.any():
        return np.nan, np.nan
    found = np.nan_to_num(beps[has_pos], nan=0.0)
    return (found * P[has_pos]).sum() / P.sum(), found.mean()


def score_task(task, Y_true, scores, thresholds=0.0, *, constant=None):
    """Summary figures and per-category rows of ``scores`` against ``Y_true``.

    Parameters
    ----------
    task : {"multiclass", "binary", "multilabel"}
    Y_true : array of shape (n_documents, n_categories)
        0/1 indicators (for a single-label task, one 1 per row).
    scores : array of shape (n_documents, n_categories)
        One score per category (for ``"binary"`` too: ``[-s, s]`` ranks as
        ``s`` does).
    thresholds : float or array of shape (n_categories,)
    constant : None or bool array of shape (n_categories,)
        The categories whose model is constant (no training document, or every one):
        their scores rank nothing, so they have no break-even point (NaN), and the
        micro- and macro-averaged break-even points count their test positives as
        missed (a break-even point of 0), as if none of them were found.

    Returns
    -------
    summary : dict
        ``accuracy``, ``macro_f1``, ``micro_f1`` (single-label; ``positive_f1``,
        the second class's F1, for ``"binary"``) or
        ``micro_breakeven``, ``macro_breakeven``, ``micro_f1``, ``macro_f1``
        (multi-label), fractions; NaN where undefined.
    rows : dict
        ``breakeven``, ``precision``, ``recall``, ``f1`` arrays, one value per
        category (NaN where undefined: a category without test documents; the
        break-even point of a ``constant`` one).
    """
    from .metrics import (breakeven_points, macro_breakeven_point, micro_breakeven_point,
                          precision_recall_f1)

    Y_true = np.asarray(Y_true)
    scores = np.asarray(scores, dtype=np.float64)
    beps = breakeven_points(Y_true, scores, zero_division=np.nan)
    constant = None if constant is None or not np.any(constant) else np.asarray(constant, bool)
    if constant is not None:
        beps[constant] = np.nan
    if task == "multilabel":
        prf = precision_recall_f1(Y_true, Y_score=scores, threshold=thresholds,
                                  zero_division=np.nan)
        if constant is None:
            micro = micro_breakeven_point(Y_true, scores, zero_division=np.nan)
            macro = macro_breakeven_point(Y_true, scores, zero_division=np.nan)
        else:
            micro, macro = _breakeven_averages_with_misses(Y_true, beps)
        summary = {"micro_breakeven": float(micro), "macro_breakeven": float(macro),
                   "micro_f1": prf.micro_f1, "macro_f1": prf.macro_f1}
        return summary, {"breakeven": beps, "precision": prf.precision,
                         "recall": prf.recall, "f1": prf.f1}
    if task not in TASKS:
        raise ValueError(f"task={task!r} must be one of {TASKS}")
    predicted = np.zeros_like(Y_true, dtype=np.uint8)
    predicted[np.arange(Y_true.shape[0]), predicted_classes(scores, thresholds)] = 1
    prf = precision_recall_f1(Y_true, Y_pred=predicted, zero_division=np.nan)
    # A class's F1 is undefined only when it is neither in the test set nor
    # predicted: the macro average skips it, as scikit-learn's f1_score(average=
    # "macro") averages over the classes present in either.
    summary = {
        "accuracy": float((predicted == Y_true).all(axis=1).mean()) if len(Y_true) else np.nan,
        "macro_f1": prf.macro_f1,
        "micro_f1": prf.micro_f1,
    }
    if task == "binary":
        summary["positive_f1"] = float(prf.f1[1])
    return summary, {"breakeven": beps, "precision": prf.precision, "recall": prf.recall,
                     "f1": prf.f1}
