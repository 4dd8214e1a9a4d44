"""The folds (textwin/model_selection/_split.py): scikit-learn's splitters as each search
uses them, and the one sentence on a class smaller than the folds."""
import warnings

import numpy as np
import pytest
from sklearn.model_selection import KFold, StratifiedKFold

from textwin.model_selection._split import (SMALL_CLASS_FALLBACK, SmallClassWarning, fold_of,
                                            search_folds, search_sample, shuffled_folds,
                                            small_classes, stratified_folds, text_folds)


def _same(folds, expected):
    return len(folds) == len(expected) and all(
        np.array_equal(a, c) and np.array_equal(b, d) for (a, b), (c, d) in zip(folds, expected))


def test_a_search_of_lam_folds_as_scikit_learn_unshuffled():
    y = np.arange(60) % 3
    folds = search_folds("S", 5, 60, "multiclass", y, np.arange(3))
    assert _same(folds, list(StratifiedKFold(5).split(np.zeros((60, 1)), y)))
    assert _same(search_folds("S", 4, 60, "multilabel", None, None),
                 list(KFold(4).split(np.zeros((60, 1)))))


def test_a_text_search_folds_shuffled_by_its_seed_and_stratified():
    Y = np.eye(3, dtype=int)[np.arange(45) % 3]
    folds = text_folds("T", 5, Y, "multiclass", None, random_state=7)
    expected = StratifiedKFold(5, shuffle=True, random_state=7).split(np.zeros((45, 1)),
                                                                      np.arange(45) % 3)
    assert _same(folds, list(expected))
    assert not _same(folds, text_folds("T", 5, Y, "multiclass", None, random_state=8))
    # every class in every fold's held-out part, as stratification promises
    assert all(np.bincount(np.argmax(Y[test], axis=1), minlength=3).min() == 3
               for _, test in folds)


def test_given_pairs_must_hold_out_every_text_once():
    Y = np.eye(2, dtype=int)[np.arange(10) % 2]
    pairs = [(np.arange(5, 10), np.arange(5)), (np.arange(5), np.arange(5, 10))]
    assert _same(text_folds("T", pairs, Y, "binary", None, 0), pairs)
    with pytest.raises(ValueError, match="cover every text once"):
        text_folds("T", pairs[:1], Y, "binary", None, 0)


def test_a_class_smaller_than_the_folds_is_said_once_in_one_sentence():
    counts, names = np.array([9, 1, 2]), np.array(["grain", "platinum", "tin"])
    said = small_classes("X", counts, names, 3, "texts", "an effect")
    assert said == ("X: class 'platinum' has 1 training text, fewer than the 3 folds (the "
                    "smallest of 2 such classes); an effect")
    assert small_classes("X", counts, names, 1, "texts", "an effect") is None
    Y = np.eye(3, dtype=int)[[0] * 9 + [1] + [2] * 2]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        text_folds("T", 3, Y, "multiclass", names, 0)
    said = [str(w.message) for w in caught]
    assert said == [small_classes("T", counts, names, 3, "texts", SMALL_CLASS_FALLBACK)]
    assert issubclass(caught[0].category, SmallClassWarning)


def test_shuffled_and_stratified_folds_and_fold_of():
    y = np.array([0] * 20 + [1] * 10)
    folds = shuffled_folds(5, 30, y, random_state=0)
    assert all(np.bincount(y[test]).tolist() == [4, 2] for _, test in folds)
    assert _same(stratified_folds(5, y), list(StratifiedKFold(5).split(np.zeros((30, 1)), y)))
    where = fold_of(folds, 31)
    assert where[-1] == -1 and all((where[test] == f).all() for f, (_, test) in enumerate(folds))


def test_a_search_sample_keeps_each_class_share_and_every_class():
    labels = np.repeat([0, 1, 2], [900, 99, 1])
    Y = np.eye(3)[labels]
    sample = search_sample(100, Y, "multiclass", 0)
    assert np.all(np.diff(sample) > 0)  # sorted, no repeats
    assert np.bincount(labels[sample]).tolist() == [90, 10, 1]  # the shares, rounded; the one
    again = search_sample(100, Y, "multiclass", 0)
    other = search_sample(100, Y, "multiclass", 1)
    assert again.tolist() == sample.tolist() and other.tolist() != sample.tolist()
    assert search_sample(1000, Y, "multiclass", 0) is None  # no more than the texts: all
    assert search_sample(None, Y, "multiclass", 0) is None
    multi = search_sample(100, (np.arange(1000)[:, None] % [2, 3] == 0), "multilabel", 0)
    assert multi.size == 100 and np.unique(multi).size == 100


def test_the_package_of_the_searches_hands_on_every_name_of_the_folds():
    # the folds are built below the estimators (textwin/_folds.py); the searches' package
    # names them all, so a name added there is not missing here
    import textwin._folds as home
    import textwin.model_selection._split as face

    assert sorted(face.__all__) == sorted(home.__all__)
    assert all(getattr(face, name) is getattr(home, name) for name in home.__all__)
