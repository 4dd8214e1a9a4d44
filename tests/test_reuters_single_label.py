"""R8 and R52: the published counts of the single-label subsets of ModApte."""
import numpy as np
import pytest

from textwin.datasets import fetch_reuters21578, fetch_reuters_single_label

# Cardoso-Cachopo (2007): R8 per class (train, test).
R8_COUNTS = {"acq": (1596, 696), "crude": (253, 121), "earn": (2840, 1083), "grain": (41, 10),
             "interest": (190, 81), "money-fx": (206, 87), "ship": (108, 36),
             "trade": (251, 75)}


@pytest.mark.corpus
@pytest.mark.parametrize("name, n_train, n_test, n_classes", [
    ("r8", 5485, 2189, 8), ("r52", 6532, 2568, 52)])
def test_published_sizes(reuters_data_home, name, n_train, n_test, n_classes):
    train = fetch_reuters_single_label(name, data_home=reuters_data_home, subset="train")
    test = fetch_reuters_single_label(name, data_home=reuters_data_home, subset="test")
    assert (len(train.data), len(test.data)) == (n_train, n_test)
    assert len(train.target_names) == n_classes == len(np.unique(train.target))
    assert len(np.unique(test.target)) == n_classes  # every class has test stories
    assert train.target_names == sorted(train.target_names)


@pytest.mark.corpus
def test_r8_classes_have_the_published_counts(reuters_data_home):
    counts = {}
    for subset in ("train", "test"):
        b = fetch_reuters_single_label("r8", data_home=reuters_data_home, subset=subset)
        counts[subset] = dict(zip(b.target_names, np.bincount(b.target).tolist()))
    assert {c: (counts["train"][c], counts["test"][c]) for c in R8_COUNTS} == R8_COUNTS


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["r8", "r52"])
def test_labels_are_the_modapte_topics_and_one_story_is_left_out(reuters_data_home, name):
    test = fetch_reuters_single_label(name, data_home=reuters_data_home, subset="test")
    full = fetch_reuters21578(data_home=reuters_data_home, subset="test")
    col = {c: j for j, c in enumerate(full.target_names)}
    row = {newid: i for i, newid in enumerate(full.ids)}
    for newid, k, text in zip(test.ids, test.target, test.data):
        i = row[newid]
        assert full.target[i].sum() == 1 and full.target[i, col[test.target_names[k]]] == 1
        assert full.data[i] == text
    # Read as sets, the topics of one more test story are a single class of the subset:
    # NEWID 19918 (<D>trade</D><D>trade</D>), which the published counts leave out.
    names = [col[c] for c in test.target_names]
    single = {int(full.ids[i]) for i in np.flatnonzero(full.target.sum(axis=1) == 1)
              if full.target[i, names].any()}
    assert single - set(test.ids.tolist()) == {19918}
    assert set(test.ids.tolist()) <= single


@pytest.mark.corpus
def test_all_and_return_X_y_and_bad_names(reuters_data_home):
    X, y = fetch_reuters_single_label("R52", data_home=reuters_data_home, subset="all",
                                      return_X_y=True)
    assert len(X) == len(y) == 6532 + 2568
    with pytest.raises(ValueError, match="'r8' or 'r52'"):
        fetch_reuters_single_label("r10", data_home=reuters_data_home)
    with pytest.raises(ValueError, match="subset="):
        fetch_reuters_single_label("r8", data_home=reuters_data_home, subset="dev")
