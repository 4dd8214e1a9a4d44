"""textwin/cli/training.py: how `train` and `eval` fit a method (the settings given, lam
= 1/n on a user's corpus, the example order, a two-class corpus's scores and thresholds,
the summary). The commands run as users run them are in tests/test_cli*.py."""
from argparse import Namespace

import numpy as np
import pytest

from textwin.cli.common import CLIError
from textwin.cli.corpus import TrainingData
from textwin.datasets import TrainingSet
from textwin.cli.training import (FitOptions, class_thresholds, cv_settings, default_lam,
                                  example_order, fit_options, given_settings, method_settings,
                                  summarize, two_class_scores, two_class_thresholds)
from textwin.experiments import METHODS


def _args(**given):
    base = dict(lam=None, epochs=None, tol=None, eta=None, theta=None, gamma=None,
                class_weight=None, plot=None, time_budget=None, scoring=None, auto=False,
                shuffle=None, seed=None, corpus="c.jsonl")
    return Namespace(**{**base, **given})


def _data(Y_train, Y_test, task, as_corpus=True, constant=None):
    Y_train, Y_test = np.asarray(Y_train), np.asarray(Y_test)
    return TrainingData.of(
        TrainingSet("test", [f"c{j}" for j in range(Y_train.shape[1])], task,
                    np.zeros((len(Y_train), 3)), np.zeros((len(Y_test), 3)), Y_train, Y_test,
                    constant=constant or {}),
        as_corpus=as_corpus)


def test_default_lam_is_scikit_learns_c_of_one():
    # C = 1 / (lam n): lam = 1/n is C = 1
    assert default_lam(400) == 1 / 400
    assert 1 / (default_lam(400) * 400) == 1.0


@pytest.mark.parametrize("given, fragment", [
    ({"lam": -1.0}, "--lam must be positive"),
    ({"lam": float("inf")}, "--lam must be a finite number"),
    ({"tol": 1.5}, "--tol is a relative duality gap"),
    ({"gamma": -0.1}, "--gamma is a margin"),
    ({"epochs": 0}, "--epochs must be an integer from 1"),
    ({"plot": "cv.png"}, "--plot draws the cross-validated score"),
    ({"time_budget": 10.0}, "--time-budget bounds the search of --auto"),
    ({"scoring": "accuracy"}, "--scoring is what the cross-validation maximises"),
])
def test_given_settings_refuse_what_cannot_be_used(given, fragment):
    with pytest.raises(CLIError, match=fragment):
        given_settings(_args(**given))


def test_given_settings_keep_what_was_given_and_only_that():
    assert given_settings(_args(lam="auto", scoring="macro-f1", tol=1e-2)) == {
        "lam": "auto", "tol": 1e-2}
    assert given_settings(_args()) == {}


def test_lam_is_one_over_n_on_a_users_corpus_for_the_methods_of_a_square_norm():
    d = _data(np.eye(4)[[0, 1, 2, 3] * 5][:, :2], np.eye(2)[[0, 1]], "multilabel")
    svm, perceptron = METHODS["svm"], METHODS["perceptron"]
    assert method_settings(svm, d, {}) == {"lam": 1 / 20}
    assert method_settings(svm, d, {"lam": 0.5}) == {"lam": 0.5}  # as given
    assert method_settings(perceptron, d, {}) == {}  # no lam to set
    paper = _data(d.Y_train, d.Y_test, "multilabel", as_corpus=False)
    assert method_settings(svm, paper, {}) == {}  # the paper's own on Reuters


def test_example_order_is_shuffled_on_a_corpus_and_the_methods_own_on_reuters():
    assert example_order(_args()) == {"shuffle": True, "random_state": 0}
    assert example_order(_args(seed=7)) == {"shuffle": True, "random_state": 7}
    assert example_order(_args(shuffle=False)) == {"shuffle": False}
    assert example_order(_args(corpus=None)) == {}
    assert example_order(_args(corpus=None, shuffle=True, seed=3)) == {
        "shuffle": True, "random_state": 3}


def test_the_fits_options_are_read_once_from_the_parsed_options():
    # train's options (eval has no --tune-thresholds nor --proba: they default)
    opts = fit_options(_args(n_jobs=2, verbose=0, quiet=True, features=500,
                             tune_thresholds="f1", proba=True, seed=3))
    assert opts == FitOptions(order={"shuffle": True, "random_state": 3}, n_jobs=2,
                              verbose=0, features=500, corpus=True, scoring=None,
                              tune="f1", proba=True, auto=False)
    reuters = fit_options(_args(n_jobs=None, verbose=0, quiet=True, features=None,
                                corpus=None))
    assert (reuters.order, reuters.corpus, reuters.tune, reuters.proba) == ({}, False, None,
                                                                            False)


def test_lam_auto_scores_a_corpus_by_its_tasks_default_and_reuters_by_the_breakeven():
    d = _data(np.eye(2)[[0, 1] * 10], np.eye(2)[[0, 1]], "multiclass")
    corpus = fit_options(_args(n_jobs=None, verbose=0, quiet=True, features=None))
    assert cv_settings(corpus, d, {"lam": 0.1}) is None  # lam given: no search
    assert cv_settings(corpus, d, {"lam": "auto"})["scoring"] == "accuracy"
    multilabel = _data(np.eye(2)[[0, 1] * 10], np.eye(2)[[0, 1]], "multilabel",
                       as_corpus=False)
    reuters = fit_options(_args(n_jobs=None, verbose=0, quiet=True, features=None,
                                corpus=None))
    assert cv_settings(reuters, multilabel, {"lam": "auto"})["scoring"] is None
    tuned = fit_options(_args(n_jobs=None, verbose=0, quiet=True, features=None,
                              corpus=None, tune_thresholds="f1"))
    assert cv_settings(tuned, multilabel, {"lam": "auto"})["thresholds"] == "f1"


def test_a_two_class_corpus_scores_and_cuts_both_classes():
    s = np.array([[0.5], [-2.0]])
    assert two_class_scores(s).tolist() == [[-0.5, 0.5], [2.0, -2.0]]
    cut = two_class_thresholds(0.0)
    assert cut == [0.0, 0.0] and np.signbit(cut[0]) == np.False_  # never -0.0
    assert two_class_thresholds(0.25) == [-0.25, 0.25]


def test_a_class_without_training_documents_is_never_given():
    full = _data(np.eye(3)[[0, 1, 2, 0]], np.eye(3)[[0, 1]], "multiclass")
    assert class_thresholds(full) is None
    missing = _data(np.eye(3)[[0, 1, 0, 1]], np.eye(3)[[0, 2]], "multiclass")
    assert np.isinf(class_thresholds(missing)[2]) and class_thresholds(missing)[0] == 0
    assert class_thresholds(_data(np.eye(3)[[0, 1]], np.eye(3)[[0, 1]], "multilabel")) is None


def test_summarize_is_in_percent_and_reads_the_argmax():
    Y_test = np.eye(3)[[0, 1, 2, 2]]
    d = _data(np.eye(3)[[0, 1, 2]], Y_test, "multiclass")
    scores = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0.5]], dtype=float)
    summary, per = summarize(d, scores)
    # c0: precision 1/2, recall 1; c1: all right; c2: precision 1, recall 1/2
    assert summary == {"accuracy": 75.0, "micro_f1": 75.0, "macro_f1": 77.7778}
    np.testing.assert_allclose(per["f1"], [2 / 3, 1, 2 / 3])
