"""The folds of every cross-validation in textwin, and what a class smaller than them does.

The one place that builds folds (scikit-learn's ``KFold``, ``StratifiedKFold`` and
``check_cv``): the searches over a path (:class:`~textwin.DualGaussSeidelClassifierCV`,
:class:`~textwin.TextClassifierCV`), the out-of-fold scores that thresholds are tuned on,
the estimators' probability calibration and the command line's tuning. A class with fewer
training examples than the folds is named here, in one wording (:func:`fold_shortfall`).
It sits low in the house, below the estimators that calibrate on its folds (as
scikit-learn's calibration imports its model selection's splitters);
:mod:`textwin.model_selection._split` hands its names on to the searches.

scikit-learn's model selection is imported inside the functions: the command line
silences :class:`SmallClassWarning` without loading it when it fits no search.
"""
import warnings
from numbers import Integral

import numpy as np

__all__ = ["SmallClassWarning", "SMALL_CLASS_NOISE", "SMALL_CLASS_FALLBACK", "small_classes",
           "fold_shortfall", "fold_of", "search_folds", "text_folds", "shuffled_folds",
           "split_folds", "stratified_folds", "search_sample", "CALIBRATION_FOLDS",
           "calibration_fold_count"]


class SmallClassWarning(UserWarning):
    """A class has fewer training examples than the folds: the search goes on, the folds
    stratified as far as they go (as :class:`~sklearn.model_selection.StratifiedKFold`
    does)."""


#: What a class smaller than the folds does to DualGaussSeidelClassifierCV's choice.
SMALL_CLASS_NOISE = ("some folds train or test without it, which makes its part of the CV "
                     "score noisy")

#: What the search does with a class smaller than the folds.
SMALL_CLASS_FALLBACK = ("the folds are stratified as far as they go, and a fold that trains "
                        "without a class never predicts it")


#: The most folds whose out-of-fold scores calibrate probabilities (Platt's sigmoids; as
#: scikit-learn's CalibratedClassifierCV).
CALIBRATION_FOLDS = 5


def calibration_fold_count(who, counts, n, noun, classes=None):
    """The folds of a probability calibration on out-of-fold scores: at most
    :data:`CALIBRATION_FOLDS`, the smallest class's training ``noun`` ("texts",
    "examples") and the ``n`` of them. ``counts``: each class's training ``noun``, a
    class without any limiting no fold (None: multi-label, where every fold holds each
    category's no); ``classes`` their names. A ValueError in one wording, naming ``who``
    calibrates and the smallest class, when it has fewer than 2 (no fold could hold one
    out)."""
    smallest, which = n, "a class"
    if counts is not None:
        counts = np.asarray(counts)
        j = int(np.argmin(np.where(counts > 0, counts, np.inf)))
        smallest = int(counts[j])
        if classes is not None:
            which = f"class {_label(classes[j])!r}"
    if min(smallest, n) < 2:
        raise ValueError(f"{who} calibrates on held-out scores, and {which} has {smallest} "
                         f"{noun if smallest != 1 else noun[:-1]}; give every class 2 or more")
    return min(CALIBRATION_FOLDS, smallest, n)


def fold_shortfall(counts, names, folds, noun):
    """The classes smaller than ``folds``, in words: the smallest (or, when every class is,
    the largest) with its count of training ``noun`` ("texts", "documents")."""
    counts = np.asarray(counts)
    if counts.max() < folds:
        k = int(np.argmax(counts))
        return (f"every class has fewer training {noun} than the {folds} folds (the "
                f"largest, {_label(names[k])!r}, has {int(counts[k])})")
    k, short = int(np.argmin(counts)), int((counts < folds).sum())
    many = f" (the smallest of {short} such classes)" if short > 1 else ""
    return (f"class {_label(names[k])!r} has {int(counts[k])} training "
            f"{noun if counts[k] != 1 else noun[:-1]}, fewer than the {folds} folds{many}")


def small_classes(name, counts, names, folds, noun, effect):
    """The one sentence on the classes smaller than ``folds`` (``counts`` training
    ``noun`` each): who says it, which classes (:func:`fold_shortfall`) and their
    ``effect`` on the search; None when every class fills the folds."""
    counts = np.asarray(counts)
    if counts.min() >= folds:
        return None
    return f"{name}: {fold_shortfall(counts, names, folds, noun)}; {effect}"


def _label(x):
    return x.item() if isinstance(x, np.generic) else x


def fold_of(folds, n):
    """The held-out fold of each of ``n`` samples, from (train, test) index pairs (-1: in
    no held-out part)."""
    out = np.full(n, -1, dtype=np.intp)
    for f, (_, test) in enumerate(folds):
        out[test] = f
    return out


def search_folds(name, cv, n, mode, y_split, classes):
    """The (train, test) pairs of :class:`~textwin.DualGaussSeidelClassifierCV`: ``cv`` as
    scikit-learn's ``check_cv`` reads it, stratified on ``y_split`` (each sample's class
    index; None for multi-label targets), unshuffled; one-line errors and warnings about
    sizes."""
    from sklearn.model_selection import check_cv

    if isinstance(cv, Integral) and not isinstance(cv, bool):
        if cv < 2:
            raise ValueError(f"{name}: cv={cv}; cross-validation needs at least 2 folds.")
        if cv > n:
            raise ValueError(f"{name}: cv={cv} folds but only {n} samples; "
                             f"lower cv to at most {n}.")
    splitter = check_cv(cv, y_split, classifier=mode != "multilabel")
    n_splits = splitter.get_n_splits(np.zeros((n, 1)), y_split)
    if mode != "multilabel":
        counts = np.bincount(y_split, minlength=classes.size)
        said = small_classes(name, counts, classes, n_splits, "examples",
                             f"{SMALL_CLASS_NOISE}. Lower cv to at most "
                             f"{max(counts.min(), 2)} for a fold per example.")
        if said:
            warnings.warn(SmallClassWarning(said), stacklevel=4)
    with warnings.catch_warnings():
        # said above in textwin's words
        warnings.filterwarnings("ignore", message=".*least populated class")
        return list(splitter.split(np.zeros((n, 1)), y_split))


def text_folds(name, cv, Y, task, classes, random_state):
    """The (train, test) pairs of :class:`~textwin.TextClassifierCV`: an int is as many
    folds, stratified for one class per text, plain otherwise, shuffled with
    ``random_state``; given pairs must hold out every text once."""
    n = Y.shape[0]
    if not isinstance(cv, Integral):  # (train, test) index pairs, as they are
        folds = [(np.asarray(train), np.asarray(test)) for train, test in cv]
        if not folds or sorted(np.concatenate([t for _, t in folds]).tolist()) != list(range(n)):
            raise ValueError(f"{name}: the held-out parts of cv must cover every text "
                             "once, as KFold's do")
        return folds
    if not (2 <= cv <= n):
        raise ValueError(f"{name}: cv={cv!r}; give a number of folds from 2 to the "
                         f"{n} texts")
    if task == "multilabel":
        return shuffled_folds(cv, n, None, random_state)
    counts = Y.sum(axis=0)
    names = np.arange(counts.size) if classes is None else classes
    if counts.max() < cv:  # StratifiedKFold refuses: no fold could hold each class
        raise ValueError(f"{name}: {fold_shortfall(counts, names, cv, 'texts')}; "
                         f"lower cv to at most {max(int(counts.max()), 2)} or add texts")
    said = small_classes(name, counts, names, cv, "texts", SMALL_CLASS_FALLBACK)
    if said:
        warnings.warn(SmallClassWarning(said), stacklevel=4)
    return shuffled_folds(cv, n, np.argmax(Y, axis=1), random_state)


def shuffled_folds(n_folds, n, y=None, random_state=None):
    """``n_folds`` shuffled folds of ``n`` samples, stratified on the classes ``y`` (an
    index per sample; None: plain ``KFold``); scikit-learn's warning about a class
    smaller than the folds is the caller's to word."""
    from sklearn.model_selection import KFold, StratifiedKFold

    splitter = (KFold if y is None else StratifiedKFold)(n_folds, shuffle=True,
                                                         random_state=random_state)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The least populated class",
                                category=UserWarning)
        return list(splitter.split(np.zeros((n, 1)), y))


def split_folds(cv, X, split_y):
    """The (train, test) pairs of ``cv`` as scikit-learn's ``check_cv`` reads it for a
    classifier: an int is a ``StratifiedKFold`` of binary or multi-class ``split_y``, a
    ``KFold`` of a multi-label indicator, unshuffled."""
    from sklearn.model_selection import check_cv

    return check_cv(cv, split_y, classifier=True).split(X, split_y)


def stratified_folds(n_folds, y):
    """``n_folds`` unshuffled folds stratified on the classes ``y``; a class smaller than
    the folds is the caller's to name (scikit-learn's warning is silenced)."""
    from sklearn.model_selection import StratifiedKFold

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(StratifiedKFold(n_folds).split(np.zeros((len(y), 1)), y))


def search_sample(n_max, Y, task, random_state):
    """The sorted indices of at most ``n_max`` of the texts of indicator ``Y``, drawn at
    random with ``random_state``, for a search that runs on a sample (None: all of them,
    ``n_max`` being None or at least their number).

    For one class per text the sample is stratified: each class keeps its share, rounded,
    and at least one text, so that a rare class stays in the search's folds."""
    from sklearn.utils import check_random_state

    n = Y.shape[0]
    if n_max is None or n <= n_max:
        return None
    order = check_random_state(random_state).permutation(n)
    if task == "multilabel":
        return np.sort(order[:n_max])
    labels = np.asarray(np.argmax(Y, axis=1)).ravel()[order]
    keep = []
    for c in np.unique(labels):
        members = order[labels == c]  # in the shuffled order
        keep.append(members[:max(1, int(round(members.size * n_max / n)))])
    return np.sort(np.concatenate(keep))
