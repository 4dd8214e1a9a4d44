"""Decision thresholds (textwin/model_selection/_thresholds.py and the tuners of metrics):
f1_thresholds and accuracy_thresholds against brute force,
TunedThresholdsClassifierCV, and argmax_thresholds (class offsets before a multi-class argmax)."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.model_selection import KFold

from textwin import DualGaussSeidelClassifier, DualSVM, TunedThresholdsClassifierCV
from textwin.metrics import breakeven_thresholds, f1_thresholds
from textwin.persistence import load_model, save_model


def f1_at(y, s, t):
    pred = s > t
    tp = np.sum(pred & (y == 1))
    return 2 * tp / (pred.sum() + y.sum()) if pred.sum() + y.sum() else 0.0


def best_f1_brute(y, s):
    """Largest F1 of any cutoff `s > t`, t running over every score and +-inf."""
    return max(f1_at(y, s, t) for t in [-np.inf, np.inf, *np.unique(s)])


@pytest.mark.parametrize("seed", range(30))
def test_f1_thresholds_reach_the_brute_force_best(seed):
    rng = np.random.RandomState(seed)
    n = rng.randint(1, 25)
    Y = (rng.rand(n, 3) < rng.rand(3)).astype(int)
    S = rng.randint(0, 6, size=(n, 3)).astype(float)  # many ties
    S[:, 2] += Y[:, 2]  # a column where the scores help
    t = f1_thresholds(Y, S)
    for c in range(3):
        y, s = Y[:, c], S[:, c]
        assert f1_at(y, s, t[c]) == pytest.approx(best_f1_brute(y, s))
        if y.sum() == 0:
            assert t[c] == np.inf
        # never splits a tie: the same documents are selected at every t between
        # the neighbouring distinct scores
        assert not np.any(s == t[c]) or np.isinf(t[c]) or np.any(s > t[c])


def test_f1_thresholds_prefer_the_fewest_documents_and_the_midpoint():
    # top 1 (F1 = 2/3) and top 3 (F1 = 2*2/(3+2) = 0.8) vs top 2 (F1 = 0.5): top 3 wins
    assert_array_equal(f1_thresholds([1, 0, 1, 0], [4.0, 3.0, 2.0, 1.0]), [1.5])
    # top 1 and top 3 give the same F1 (2/3): the higher threshold is kept
    assert_array_equal(f1_thresholds([1, 0, 0, 0], [4.0, 3.0, 2.0, 1.0]), [3.5])
    # every document positive: select all
    assert_array_equal(f1_thresholds([1, 1], [2.0, 1.0]), [-np.inf])


def multilabel_problem(n=300, d=40, seed=0):
    rng = np.random.RandomState(seed)
    X = sp.random(n, d, density=0.15, random_state=seed, format="csr")
    W = rng.randn(d, 3)
    # a rare category (about 5%), a common one, and one that never occurs
    S = X @ W
    Y = np.column_stack([S[:, 0] > np.quantile(S[:, 0], 0.95),
                         S[:, 1] > np.quantile(S[:, 1], 0.5),
                         np.zeros(n, bool)]).astype(int)
    return X, Y


def test_thresholds_come_from_out_of_fold_scores():
    X, Y = multilabel_problem()
    est = DualSVM(random_state=0, fit_intercept=True)
    cv = KFold(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tuned = TunedThresholdsClassifierCV(est, cv=cv).fit(X, Y)
        oof = np.empty(Y.shape)
        for train, test in cv.split(X):
            oof[test] = clone(est).fit(X[train], Y[train]).decision_function(X[test])
        full = clone(est).fit(X, Y)
    assert_allclose(tuned.oof_scores_, oof)
    assert_array_equal(tuned.thresholds_[:2], f1_thresholds(Y, oof)[:2])
    assert tuned.thresholds_[2] == 0.0  # no positives: its model's own decision (never)
    assert (full.decision_function(X)[:, 2] < 0).all()
    # the final model is fitted on all the data, and predict applies the thresholds
    assert_allclose(tuned.coef_, full.coef_)
    raw = full.decision_function(X)
    assert_array_equal(tuned.predict(X), (raw > tuned.thresholds_).astype(int))
    assert not np.array_equal(tuned.predict(X), full.predict(X))


@pytest.mark.parametrize("objective", ["f1", "breakeven", "accuracy"])
def test_a_category_with_fewer_positives_than_folds_keeps_threshold_0(objective):
    # the searches' and train --tune-thresholds' policy: some fold trained without a
    # positive, and its out-of-fold scores say nothing (tuned, it fell far below 0)
    X, Y = multilabel_problem()
    Y[:, 2] = 0
    Y[np.argsort(X[:, 0].toarray().ravel())[-2:], 2] = 1  # two positives, four folds
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tuned = TunedThresholdsClassifierCV(DualSVM(random_state=0, fit_intercept=True),
                                            objective=objective, cv=KFold(4)).fit(X, Y)
    assert tuned.thresholds_[2] == 0.0
    assert tuned.thresholds_[:2].tolist() != [0.0, 0.0]  # the others are tuned
    from textwin.metrics import THRESHOLD_TUNERS

    unfloored = THRESHOLD_TUNERS[objective](Y, tuned.oof_scores_)
    assert unfloored[2] != 0.0  # what it would have been tuned to
    assert_array_equal(tuned.thresholds_[:2], unfloored[:2])


def test_breakeven_objective_and_the_binary_case():
    X, Y = multilabel_problem()
    y = Y[:, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tuned = TunedThresholdsClassifierCV(DualSVM(random_state=0), objective="breakeven",
                                            cv=3).fit(X, y)
    assert tuned.thresholds_.shape == (1,)
    assert_array_equal(tuned.thresholds_, breakeven_thresholds(y, tuned.oof_scores_[:, 0]))
    raw = tuned.estimator_.decision_function(X)
    assert_array_equal(tuned.predict(X), tuned.classes_[(raw > tuned.thresholds_[0]).astype(int)])


def test_accuracy_objective_of_the_wrapper():
    from textwin.metrics import accuracy_thresholds

    X, Y = multilabel_problem()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tuned = TunedThresholdsClassifierCV(DualSVM(random_state=0), objective="accuracy",
                                            cv=3).fit(X, Y[:, 0])
    assert_array_equal(tuned.thresholds_, accuracy_thresholds(Y[:, 0], tuned.oof_scores_))
    assert tuned.thresholds_[0] != 0  # the rare category's cutoff moves


def test_tuned_thresholds_beat_zero_on_a_rare_category():
    # a rare category (x0 > 1.6, about 5%) and no intercept: the ranking is right but
    # "score > 0" takes half the documents; the tuned cutoff must do much better
    rng = np.random.RandomState(0)
    X = rng.randn(1500, 5)
    y = (X[:, 0] > 1.6).astype(int)
    X_tr, X_te, y_tr, y_te = X[:1000], X[1000:], y[:1000], y[1000:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tuned = TunedThresholdsClassifierCV(DualSVM(random_state=0, lam=1e-2)).fit(X_tr, y_tr)
    s = tuned.estimator_.decision_function(X_te)
    assert f1_at(y_te, s, 0.0) < 0.3
    assert f1_at(y_te, s, tuned.thresholds_[0]) > 0.8


def test_the_thresholds_are_saved_with_the_model(tmp_path):
    X, Y = multilabel_problem()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tuned = TunedThresholdsClassifierCV(DualSVM(random_state=0), cv=3).fit(X, Y)
    save_model(tmp_path / "m.npz", tuned)
    model = load_model(tmp_path / "m.npz")
    assert_array_equal(model.thresholds, tuned.thresholds_)
    assert_array_equal(model.predict(X), tuned.predict(X))


def test_bad_uses_are_one_clear_error():
    X, Y = multilabel_problem()
    with pytest.raises(ValueError, match="objective='bep' is not valid"):
        TunedThresholdsClassifierCV(DualSVM(), objective="bep").fit(X, Y)
    with pytest.raises(ValueError, match="objective='breakeven' is not valid for a "
                                         "multiclass y; use one of"):
        TunedThresholdsClassifierCV(DualSVM(), objective="breakeven").fit(
            X, np.arange(X.shape[0]) % 3)
    with pytest.raises(ValueError, match="task='multiclass' takes one class per row"):
        TunedThresholdsClassifierCV(DualSVM(), task="multiclass").fit(X, Y)
    with pytest.raises(ValueError, match="left some documents without an out-of-fold score"):
        TunedThresholdsClassifierCV(DualSVM(), cv=[(np.arange(200), np.arange(200, 250))]
                                    ).fit(X, Y[:, :2])


def test_the_model_file_records_the_stopping_rule_and_the_wrapped_estimator(tmp_path):
    X, Y = multilabel_problem()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tuned = TunedThresholdsClassifierCV(DualSVM(random_state=0, tol=1e-4), cv=3).fit(X, Y)
    meta = save_model(tmp_path / "m.npz", tuned).metadata
    assert meta["params"]["objective"] == "f1"
    wrapped = load_model(tmp_path / "m.npz").metadata["wrapped"]
    assert wrapped["estimator"] == "textwin.linear.DualSVM"
    assert wrapped["params"]["tol"] == 1e-4
    assert wrapped["duality_gap"] == tuned.estimator_.duality_gap_.tolist()
    assert "relative duality gap" in wrapped["stopping_rule"] and "<= tol" in wrapped["stopping_rule"]


def test_a_pipeline_on_raw_texts_is_tuned_like_its_vectorized_matrix():
    # the documented use: TunedThresholdsClassifierCV around a Pipeline that
    # starts with a vectorizer, given a plain list of texts (no .shape, no
    # fancy indexing); the folds must see the same documents as on the matrix
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import make_pipeline

    rng = np.random.default_rng(0)
    words = np.array([f"w{k}" for k in range(40)])
    docs = [" ".join(rng.choice(words, size=8)) for _ in range(120)]
    Y = np.column_stack([[("w1" in d.split()) or ("w2" in d.split()) for d in docs],
                         [("w3" in d.split()) for d in docs]]).astype(int)
    pipe = make_pipeline(CountVectorizer(), DualSVM(random_state=0, fit_intercept=True))
    cv = KFold(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tuned = TunedThresholdsClassifierCV(pipe, cv=cv).fit(docs, Y)
        by_array = TunedThresholdsClassifierCV(pipe, cv=cv).fit(np.array(docs, dtype=object), Y)
        oof = np.empty(Y.shape)
        for train, test in cv.split(docs):
            fold = clone(pipe).fit([docs[i] for i in train], Y[train])
            oof[test] = fold.decision_function([docs[i] for i in test])
    assert_allclose(tuned.oof_scores_, oof)
    assert_allclose(by_array.oof_scores_, oof)
    assert tuned.predict(docs[:5]).shape == (5, 2)


# -- accuracy_thresholds and argmax_thresholds --------------------------------------

@pytest.mark.parametrize("seed", range(20))
def test_accuracy_thresholds_reach_the_brute_force_best_and_keep_0_unless_better(seed):
    from textwin.metrics import accuracy_thresholds

    rng = np.random.RandomState(seed)
    n = rng.randint(1, 25)
    y = (rng.rand(n) < 0.4).astype(int)
    s = rng.randint(-3, 4, size=n).astype(float) + y  # ties, and 0 among the scores
    t = accuracy_thresholds(y, s)[0]

    def right(t):
        return int(np.sum((s > t) == (y == 1)))

    best = max(right(c) for c in [-np.inf, np.inf, 0.0, *s])
    assert right(t) == best
    if right(0.0) == best:
        assert t == 0.0


def underscored_class(n=2000, seed=0):
    """Held-out-like scores of three classes; class 0's scores are 0.8 too low, so the
    argmax gives it to too few of its documents."""
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 3, size=n)
    S = rng.randn(n, 3)
    S[np.arange(n), y] += 2.0
    S[:, 0] -= 0.8
    return y, S


def argmax_accuracy(y, S, t):
    from textwin.tasks import predicted_classes

    return float(np.mean(predicted_classes(S, t) == y))


def test_argmax_thresholds_lift_an_underscored_class_on_held_out_scores():
    from textwin.thresholds import argmax_thresholds

    y, S = underscored_class()
    t = argmax_thresholds(y, S, "accuracy")
    # the under-scored class is lifted (a threshold below the others'), and the
    # accuracy rises on these scores and on fresh ones of the same kind
    assert t[0] < min(t[1], t[2]) - 0.5
    assert argmax_accuracy(y, S, t) > argmax_accuracy(y, S, np.zeros(3)) + 0.03
    y2, S2 = underscored_class(seed=1)
    assert argmax_accuracy(y2, S2, t) > argmax_accuracy(y2, S2, np.zeros(3)) + 0.03
    # deterministic
    assert_array_equal(argmax_thresholds(y, S, "accuracy"), t)


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("objective", ["accuracy", "f1"])
def test_argmax_thresholds_never_score_below_no_tuning(seed, objective):
    from sklearn.metrics import f1_score

    from textwin.tasks import predicted_classes
    from textwin.thresholds import argmax_thresholds

    rng = np.random.RandomState(seed)
    n, K = rng.randint(2, 40), rng.randint(2, 5)
    y = rng.randint(0, K, size=n)
    S = np.round(rng.randn(n, K), 1)  # ties
    S[np.arange(n), y] += rng.rand()

    def score(t):
        p = predicted_classes(S, t)
        if objective == "accuracy":
            return np.mean(p == y)
        return f1_score(y, p, average="macro", labels=np.union1d(y, p))

    t = argmax_thresholds(y, S, objective)
    assert score(t) >= score(np.zeros(K))
    if score(t) == score(np.zeros(K)):
        assert_array_equal(t, 0.0)  # kept only when they improve


def test_argmax_thresholds_for_macro_f1_and_classes_left_alone():
    from sklearn.metrics import f1_score

    from textwin.tasks import predicted_classes
    from textwin.thresholds import argmax_thresholds

    # a common class, a rare one and a rarer under-scored one: each objective wins its own
    rng = np.random.RandomState(0)
    y = rng.choice(3, size=2000, p=[0.85, 0.1, 0.05])
    S = rng.randn(2000, 3)
    S[np.arange(2000), y] += 2.0
    S[:, 2] -= 1.5
    by = {o: predicted_classes(S, argmax_thresholds(y, S, o)) for o in ("f1", "accuracy")}
    untuned = predicted_classes(S, np.zeros(3))
    macro = {o: f1_score(y, p, average="macro") for o, p in by.items()}
    assert macro["f1"] > macro["accuracy"] > f1_score(y, untuned, average="macro") + 0.05
    assert np.mean(by["accuracy"] == y) > np.mean(by["f1"] == y) > np.mean(untuned == y)
    y, S = underscored_class()
    frozen = argmax_thresholds(y, S, "accuracy", tunable=[False, True, True])
    assert frozen[0] == 0.0
    with pytest.raises(ValueError, match="objective"):
        argmax_thresholds(y, S, "breakeven")


def _task_data(seed=0, n=60):
    rng = np.random.RandomState(seed)
    X = sp.csr_matrix(rng.rand(n, 8) * (rng.rand(n, 8) < 0.5))
    Y = np.zeros((n, 4), dtype=int)
    Y[:, 0] = X[:, 0].toarray().ravel() > 0.2
    Y[:, 1] = rng.rand(n) < 0.4
    Y[:2, 2] = 1  # two positives: fewer than the three folds
    return X, Y  # column 3: no positive


def test_task_thresholds_tune_each_category_on_out_of_fold_scores_and_keep_rare_ones_at_0():
    from textwin.model_selection import task_thresholds
    from textwin.model_selection._choice import tuned_thresholds
    from textwin.thresholds import out_of_fold_scores

    X, Y = _task_data()
    est = DualSVM(lam=0.01, random_state=0)
    t, rare = task_thresholds(est, X, Y, "multilabel", "f1", folds=3)
    oof = out_of_fold_scores(est, X, Y, cv=3)
    assert_array_equal(t[:2], f1_thresholds(Y[:, :2], oof[:, :2]))
    assert t[:2].tolist() != [0.0, 0.0]  # tuned, not left at 0
    assert t[2] == 0.0 and t[3] == 0.0  # fewer positives than folds, and none
    assert rare.tolist() == [2]
    assert_array_equal(t, tuned_thresholds(oof, Y != 0, "f1", 3))
    # one category rarer than the folds: no fold is fitted (some could not be)
    t1, rare1 = task_thresholds(est, X, Y[:, [2]], "binary", "f1", folds=3)
    assert t1.tolist() == [0.0] and rare1.tolist() == [0]


def test_task_thresholds_of_a_multiclass_task_are_offsets_of_the_argmax():
    from textwin.model_selection import task_thresholds
    from textwin.model_selection._split import stratified_folds
    from textwin.thresholds import argmax_thresholds, out_of_fold_scores

    rng = np.random.RandomState(1)
    n = 90
    y = rng.randint(0, 3, n)
    y[:2] = 3  # a class of two documents
    X = sp.csr_matrix(np.eye(5)[y] + 0.8 * rng.rand(n, 5))
    Y = np.zeros((n, 5), dtype=int)
    Y[np.arange(n), y] = 1  # class 4: no document
    est = DualSVM(lam=0.1, random_state=0)
    t, rare = task_thresholds(est, X, Y, "multiclass", "accuracy", folds=3)
    assert t[4] == np.inf and t[3] == 0.0 and rare.tolist() == [3]
    oof = out_of_fold_scores(est, X, Y, stratified_folds(3, y))
    assert_array_equal(t[:4], argmax_thresholds(y, oof[:, :4], "accuracy",
                                                tunable=[True, True, True, False]))


def test_out_of_fold_calibration_fits_each_fold_at_its_size_on_the_calibration_folds():
    from textwin.calibration import calibrate
    from textwin.model_selection._thresholds import calibration_folds, out_of_fold_calibration
    from textwin.thresholds import out_of_fold_scores

    X, Y = _task_data(2, n=80)
    Y = Y[:, :2]
    folds = calibration_folds("--proba", Y, "multilabel", ["a", "b"])
    assert len(folds) == 5 and sorted(np.concatenate([te for _, te in folds])) == list(range(80))
    sizes = []

    def estimator_for(n):
        sizes.append(n)
        return DualSVM(lam=1.0 / n, random_state=0)

    got = out_of_fold_calibration(estimator_for, X, Y, "multilabel", folds)
    assert sizes == [64.0]  # the folds' mean training size
    want = calibrate(out_of_fold_scores(DualSVM(lam=1 / 64, random_state=0), X, Y, folds), Y.astype(bool),
                     folds=5)
    P, Q = (c.predict_proba(np.linspace(-2, 2, 10)[:, None].repeat(2, 1), "multilabel")
            for c in (got, want))
    assert_array_equal(P, Q)
    with pytest.raises(ValueError, match="--proba"):
        calibration_folds("--proba", np.eye(2, dtype=int)[[0, 0, 0, 1]], "binary", ["a", "b"])


# -- the meta-estimator of the three tasks: thresholds and calibration ----------------

def _multiclass_data(n=120, seed=0):
    rng = np.random.RandomState(seed)
    y = rng.choice(3, n, p=[0.6, 0.3, 0.1])  # unbalanced: the offsets move
    y[:2] = 3  # a class of two documents, fewer than the folds: keeps 0
    X = sp.csr_matrix(0.7 * np.eye(6)[y] + rng.rand(n, 6))
    Y = np.zeros((n, 5), dtype=int)
    Y[np.arange(n), y] = 1  # class 4: no document, never given
    return X, Y


@pytest.mark.parametrize("task, objective", [("multiclass", "f1"), ("multiclass", "accuracy"),
                                             ("binary", "accuracy"), ("multilabel", "f1"),
                                             ("multilabel", "breakeven")])
def test_the_thresholds_are_task_thresholds_on_the_same_folds(task, objective):
    # TunedThresholdsClassifierCV(task=...) tunes a task's thresholds as task_thresholds
    # does (the folds of tuning_folds, thresholds_of_scores) and fits the final model
    from textwin.model_selection import task_thresholds

    if task == "multiclass":
        X, Y = _multiclass_data()
    elif task == "binary":
        rng = np.random.RandomState(0)
        X = sp.csr_matrix(rng.rand(90, 8) * (rng.rand(90, 8) < 0.5))
        Y = ((X[:, 0].toarray() + 0.5 * rng.rand(90, 1)) > 0.6).astype(int)
    else:
        X, Y = _task_data(4, n=90)
    est = DualSVM(lam=0.05, random_state=0, fit_intercept=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tuned = TunedThresholdsClassifierCV(est, objective=objective, cv=3, task=task).fit(X, Y)
        want, _ = task_thresholds(est, X, Y, task, objective, 3)
        # a class without documents keeps its column: the indicator, not the classes
        final = clone(est).fit(X, Y[:, 0] if Y.shape[1] == 1 else Y)
    assert_array_equal(tuned.thresholds_, want)
    assert np.count_nonzero(np.isfinite(want) & (want != 0)) > 0  # tuned, not left at 0
    assert_allclose(tuned.estimator_.coef_, final.coef_)
    scores = final.decision_function(X)
    if task == "multiclass":
        assert want[4] == np.inf and want[3] == 0.0  # never given; rarer than the folds
        assert_array_equal(tuned.predict(X), np.argmax(scores - want, axis=1))
    elif task == "binary":
        assert_array_equal(tuned.predict(X), tuned.classes_[(scores > want[0]).astype(int)])
    else:
        assert_array_equal(tuned.predict(X), (scores > want).astype(int))


def test_a_search_is_tuned_at_its_chosen_lam():
    # a DualGaussSeidelClassifierCV's thresholds come from folds of the model of the lam
    # it chose, not from a search again in every fold
    from textwin.model_selection import DualGaussSeidelClassifierCV, task_thresholds

    rng = np.random.RandomState(3)
    y = rng.choice(3, 90, p=[0.6, 0.3, 0.1])
    X = sp.csr_matrix(0.7 * np.eye(6)[y] + rng.rand(90, 6))
    Y = np.eye(3, dtype=int)[y]
    search = DualGaussSeidelClassifierCV(lams=[3.0, 1.0, 0.3, 0.1, 0.03, 0.01], cv=3,
                                         random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tuned = TunedThresholdsClassifierCV(search, objective="accuracy", cv=3,
                                            task="multiclass").fit(X, Y)
        lam = float(tuned.estimator_.lam_[0])
        at_choice = DualGaussSeidelClassifier(**{
            k: v for k, v in search.get_params().items()
            if k in DualGaussSeidelClassifier().get_params() and k != "lam"}, lam=lam)
        want, _ = task_thresholds(at_choice, X, Y, "multiclass", "accuracy", 3)
        searched, _ = task_thresholds(search, X, Y, "multiclass", "accuracy", 3)
    assert lam == 0.03  # inside the grid
    assert_array_equal(tuned.thresholds_, want)
    assert not np.array_equal(want, searched)


@pytest.mark.parametrize("task", ["multiclass", "binary", "multilabel"])
def test_the_calibration_is_out_of_fold_calibration_at_the_final_models_c(task):
    # probability=True: Platt's sigmoids on out-of-fold scores of calibration_folds, each
    # fold's model at the final model's C (lam times n over the fold's mean size)
    from textwin.model_selection._thresholds import calibration_folds, out_of_fold_calibration

    if task == "multiclass":
        X, Y = _multiclass_data()
        Y = Y[:, :3][Y[:, :3].any(axis=1)]
        X = X[np.flatnonzero(_multiclass_data()[1][:, :3].any(axis=1))]
    else:
        X, Y = _task_data(6, n=100)
        Y = Y[:, [0]] if task == "binary" else Y[:, :2]
    n, lam = X.shape[0], 0.02
    est = DualSVM(lam=lam, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tuned = TunedThresholdsClassifierCV(est, objective=None, task=task,
                                            probability=True).fit(X, Y)
        classes = np.hstack([1 - Y, Y]) if task == "binary" else Y
        folds = calibration_folds("probability", classes, task, None)
        want = out_of_fold_calibration(lambda m: DualSVM(lam=lam * (n / m), random_state=0),
                                       X, classes, task, folds)
        unscaled = out_of_fold_calibration(lambda m: DualSVM(lam=lam, random_state=0),
                                           X, classes, task, folds)
    S = np.linspace(-2, 2, 12)[:, None].repeat(Y.shape[1], 1)
    got = tuned.calibration_.predict_proba(S, task)
    assert_allclose(got, want.predict_proba(S, task), rtol=1e-12)
    assert not np.allclose(got, unscaled.predict_proba(S, task))
    assert_allclose(tuned.predict_proba(X[:5]), want.predict_proba(
        tuned.estimator_.decision_function(X[:5]).reshape(5, -1), task), rtol=1e-12)
    assert_array_equal(tuned.thresholds_, np.zeros(Y.shape[1]))  # objective=None: not tuned


@pytest.mark.parametrize("labels", [["a", "b", "c"], ["no", "yes"]])
def test_a_tuned_and_calibrated_single_label_model_file_predicts_as_the_estimator(tmp_path,
                                                                                 labels):
    # a multi-class or two-class y: the model file keeps the classes, the offsets (or the
    # positive class's threshold) and the calibration, and predicts as the estimator
    rng = np.random.RandomState(0)
    k = len(labels)
    y = rng.choice(k, 150, p=[0.6, 0.3, 0.1][:k] / np.sum([0.6, 0.3, 0.1][:k]))
    X = sp.csr_matrix(0.7 * np.eye(6)[y] + rng.rand(150, 6))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tuned = TunedThresholdsClassifierCV(DualSVM(lam=0.05, random_state=0), objective="f1",
                                            cv=3, probability=True).fit(X, np.array(labels)[y])
    save_model(tmp_path / "m.npz", tuned)
    model = load_model(tmp_path / "m.npz")
    assert list(model.classes) == labels and model.task == tuned.task_
    assert_array_equal(model.thresholds, tuned.thresholds_)
    assert np.count_nonzero(tuned.thresholds_) > 0
    assert_array_equal(model.predict(X), tuned.predict(X))
    raw = tuned.estimator_.decision_function(X)
    at_zero = (np.array(labels)[(raw > 0).astype(int)] if k == 2
               else np.array(labels)[np.argmax(raw, axis=1)])
    assert (tuned.predict(X) != at_zero).any()  # the thresholds change some labels
    assert_allclose(model.predict_proba(X), tuned.predict_proba(X), rtol=1e-10)
