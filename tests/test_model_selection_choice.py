"""Judging out-of-fold scores at the model's decision rule (textwin/model_selection/
_choice.py): select_lam, thresholds tuned on folds they did not see, the one early-stopping
rule and the one-standard-error choice."""
import numpy as np
import pytest


def test_a_path_is_past_its_best_at_two_points_a_standard_error_below_it():
    from textwin.model_selection._choice import past_the_best

    mean = np.array([[0.5, 0.8, 0.7, 0.6],     # two below 0.8 - 0.02: past
                     [0.5, 0.8, 0.7, 0.79],    # the last within a standard error
                     [0.5, 0.6, 0.8, 0.5],     # one point after the best
                     [0.9, 0.8, 0.85, 0.6],    # the best first
                     [0.5, 0.6, 0.7, 0.8]])    # still rising
    assert past_the_best(mean, np.full(mean.shape, 0.02)).tolist() == [
        True, False, False, True, False]
    # the best's own standard error is the margin, in n_se of them
    assert not past_the_best(mean[:1], np.array([[0.0, 0.25, 0.0, 0.0]]))[0]
    assert past_the_best(mean[1:2], np.full((1, 4), 0.02), n_se=0)[0]


def test_both_searches_stop_by_one_rule_parameterised():
    from textwin.model_selection._choice import shared_choice, stopped, turned

    mean = np.array([[0.5, 0.8, 0.7, 0.6],     # the best two lams back, both far below
                     [0.5, 0.8, 0.8, 0.8],     # ties: the best is the first
                     [0.5, 0.8, 0.79, 0.6],    # the last but one within the margin
                     [0.5, 0.6, 0.7, 0.8]])    # still rising
    se = np.full(mean.shape, 0.02)
    assert stopped(mean, se, patience=1).tolist() == [True, True, True, False]
    assert stopped(mean, se, patience=2).tolist() == [True, True, True, False]
    assert stopped(mean, se, patience=2, margin=1.0).tolist() == [True, False, False, False]
    # one standard error: the largest lam within it of the best (0.79 >= 0.8 - 0.02)
    assert stopped(mean[2:3], se[2:3], patience=2, one_se=True).tolist() == [True]
    assert stopped(np.array([[0.5, 0.79, 0.8]]), np.full((1, 3), 0.02),
                   patience=1, one_se=True).tolist() == [True]
    assert stopped(np.array([[0.5, 0.79, 0.8]]), np.full((1, 3), 0.02),
                   patience=1).tolist() == [False]
    # TextClassifierCV's turn: the lam its choice takes (shared_choice) is not the last
    rng = np.random.default_rng(0)
    for _ in range(50):
        whole = np.round(rng.random((5, int(rng.integers(1, 7)))), 1)  # ties too
        for one_se in (False, True):
            assert turned(whole, one_se) == (shared_choice(whole, one_se)[0]
                                             < whole.shape[1] - 1)


def _random_path_scores(n=120, K=4, L=5, F=4, seed=0):
    """Out-of-fold path scores whose quality varies by lam, labels and folds."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, K)) < np.linspace(0.1, 0.5, K)).astype(int)
    quality = rng.random(L)
    S = (quality[None, None, :] * (2 * Y[:, :, None] - 1) + rng.normal(size=(n, K, L))
         - rng.random((1, K, 1)))
    return S, Y, np.arange(n) % F


@pytest.mark.parametrize("scoring, average", [("micro-f1", "micro"), ("macro-f1", "macro")])
def test_select_lam_scores_each_fold_at_score_zero_as_scikit_learn(scoring, average):
    from sklearn.metrics import f1_score

    from textwin.model_selection import select_lam

    S, Y, fold_of = _random_path_scores()
    choice = select_lam(S, Y, fold_of, task="multilabel", scoring=scoring)
    expected = np.array([[f1_score(Y[fold_of == f], S[fold_of == f, :, l] > 0, average=average,
                                   zero_division=np.nan) for l in range(S.shape[2])]
                         for f in range(4)])
    np.testing.assert_allclose(choice.fold_scores, expected)
    assert choice.index == np.argmax(expected.mean(axis=0))
    np.testing.assert_array_equal(choice.thresholds, 0.0)


def test_tuned_thresholds_are_scored_on_folds_they_did_not_see():
    from textwin.metrics import f1_thresholds
    from textwin.model_selection import select_lam

    S, Y, fold_of = _random_path_scores(seed=1)
    choice = select_lam(S, Y, fold_of, task="multilabel", rule="f1")
    expected = np.empty((4, S.shape[2]))
    for f in range(4):
        own, others = fold_of == f, fold_of != f
        for l in range(S.shape[2]):
            t = f1_thresholds(Y[others], S[others, :, l])
            P, T = S[own, :, l] > t, Y[own] > 0
            tp, fp, fn = (P & T).sum(), (P & ~T).sum(), (~P & T).sum()
            expected[f, l] = 2 * tp / (2 * tp + fp + fn)
    np.testing.assert_allclose(choice.fold_scores, expected)
    # the model's thresholds: tuned on every out-of-fold score at the chosen lam
    np.testing.assert_allclose(choice.thresholds, f1_thresholds(Y, S[:, :, choice.index]))


def test_a_label_with_fewer_positives_than_folds_keeps_threshold_zero():
    from textwin.model_selection import select_lam

    S, Y, fold_of = _random_path_scores(seed=2)
    Y[:, 0] = 0
    Y[[5, 6, 7], 0] = 1  # three positives, four folds: some fold trained on one or none
    S[:, 0, :] -= 1.0    # its scores all below 0: a tuned threshold would fall below them
    choice = select_lam(S, Y, fold_of, task="multilabel", rule="f1")
    assert choice.thresholds[0] == 0.0 and np.all(choice.thresholds[1:] != 0.0)


def test_single_label_tasks_score_the_argmax_and_both_binary_classes():
    from sklearn.metrics import accuracy_score, f1_score

    from textwin.model_selection import select_lam

    S, Y, fold_of = _random_path_scores(K=3, seed=3)
    y = np.argmax(S[:, :, 2] + np.random.default_rng(0).normal(size=(120, 3)), axis=1)
    Y1 = np.eye(3, dtype=int)[y]
    multi = select_lam(S, Y1, fold_of, task="multiclass", scoring="macro-f1")
    binary = select_lam(S[:, :1], y == 0, fold_of, task="binary", scoring="macro-f1")
    acc = select_lam(S, Y1, fold_of, task="multiclass")
    for f in range(4):
        rows = fold_of == f
        for l in range(S.shape[2]):
            pred = np.argmax(S[rows, :, l], axis=1)
            assert multi.fold_scores[f, l] == pytest.approx(
                f1_score(y[rows], pred, average="macro", labels=np.unique(
                    np.r_[y[rows], pred])))
            assert acc.fold_scores[f, l] == pytest.approx(accuracy_score(y[rows], pred))
            assert binary.fold_scores[f, l] == pytest.approx(
                f1_score(y[rows] == 0, S[rows, 0, l] > 0, average="macro"))
    with pytest.raises(ValueError, match="multi-class model gives the class"):
        select_lam(S, Y1, fold_of, task="multiclass", rule="f1")


def test_one_standard_error_takes_the_largest_lam_the_folds_cannot_tell_from_the_best():
    from textwin.model_selection._choice import shared_choice

    whole = np.array([[.80, .85, .86], [.70, .86, .84], [.82, .86, .88], [.78, .85, .86]])
    best, mean, se = shared_choice(whole, one_se=False)
    assert best == 2 and se[2] == pytest.approx(np.std(whole[:, 2]) / 2)
    # lam 1 scores .855, within one standard error (.0071) of lam 2's .86
    assert shared_choice(whole, one_se=True)[0] == 1


@pytest.mark.parametrize("one_se", [False, True])
def test_search_keeps_a_settings_scores_only_at_the_lams_its_rules_choose(one_se):
    # every setting's out-of-fold scores at every lam, kept to the end of the search, were
    # most of its memory on many classes: one lam is kept per choice, and choosing from
    # it gives the choice, thresholds and score of the whole grid's scores
    from textwin.model_selection._choice import at_the_choices, choice_of, fold_scores

    rng = np.random.default_rng(3)
    n, K, L = 60, 3, 6
    Y = np.zeros((n, K), dtype=int)
    Y[np.arange(n), rng.integers(0, K, n)] = 1
    Y[rng.random((n, K)) < 0.2] = 1  # multi-label
    fold_of = np.arange(n) % 5
    S = rng.normal(size=(n, K, L)) + Y[:, :, None] * np.linspace(0.2, 2.0, L)
    whole = {rule: fold_scores(S, Y > 0, fold_of, task="multilabel", scoring="micro-f1",
                               rule=rule) for rule in ("zero", "f1")}
    kept = at_the_choices(S, whole, one_se)
    for rule, scores in whole.items():
        args = dict(task="multilabel", scoring="micro-f1", rule=rule, one_se=one_se)
        full, compact = (choice_of(scores, x, Y, fold_of, **args) for x in (S, kept[rule]))
        assert compact.index == full.index and compact.score == full.score
        np.testing.assert_array_equal(compact.thresholds, full.thresholds)
        np.testing.assert_array_equal(kept[rule][:, :, full.index], S[:, :, full.index])
        assert kept[rule].base.nbytes == S[:, :, 0].nbytes  # one lam stored
