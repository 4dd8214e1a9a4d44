"""TextClassifierCV (textwin/model_selection/_text_search.py): the cross-validated search
over the features, the loss, lam and the decision rule, on raw texts."""
import io
import re
import sys
import warnings

import numpy as np
import pytest

from textwin import (DegenerateSolutionWarning, DualGaussSeidelClassifier, TextClassifier,
                     TextClassifierCV)
from textwin.model_selection._split import search_sample
from textwin.model_selection._validation import FoldPaths, matrix_folds
from textwin.text_classifier import intercept_params
from textwin.text import TextVectorizer
from _model_selection_data import Clock
from _text_corpora import COMMON, TOPICS, corpus, multilabel_corpus


# ---------------------------------------------------------------------------
# TextClassifierCV
# ---------------------------------------------------------------------------

def _manual_fold_accuracy(texts, y, folds, stem, lam_n, chars=None):
    """Accuracy per fold, the vectorizer fitted on each fold's training texts alone."""
    out = []
    for train, test in folds:
        vec = TextVectorizer(weighting="tfidf", stem=stem, char_ngrams=chars)
        X_train = vec.fit_transform([texts[i] for i in train])
        model = DualGaussSeidelClassifier(lam=lam_n / train.size, tol=1e-6, random_state=0)
        model.fit(X_train, y[train])
        out.append(np.mean(model.predict(vec.transform([texts[i] for i in test])) == y[test]))
    return np.array(out)


def test_cv_scores_each_fold_with_a_vectorizer_of_its_own_training_texts():
    texts, y = corpus(n_per_class=20, noise=0.6)
    grid = [3.0, 0.3]
    search = TextClassifierCV(lam_grid=grid, cv=3, tol=1e-6, ngrams=1, nb_scaling=False,
                              fit_intercept=False, chars=[None, (2, 4)]).fit(texts, y)
    folds = search._folds(np.eye(3)[np.searchsorted(search.classes_, y)], "multiclass")
    res = search.cv_results_
    # stem on/off, then character n-grams beside the better: each at two lams
    assert len(res["params"]) == 3 * 2 and search.chars_searched_ is True
    assert [p["chars"] for p in res["params"]] == [None] * 4 + [(2, 4)] * 2
    for params, lam_n, mean, std in zip(res["params"], res["lam_n"], res["mean_test_score"],
                                        res["std_test_score"]):
        expected = _manual_fold_accuracy(texts, y, folds, params["stem"], lam_n,
                                         params["chars"])
        assert mean == pytest.approx(expected.mean()) and std == pytest.approx(expected.std())
    best = int(np.argmax(res["mean_test_score"]))
    assert search.best_score_ == pytest.approx(res["mean_test_score"][best])
    assert search.best_params_["lam"] == pytest.approx(res["lam_n"][best] / len(texts))
    assert search.best_params_["stem"] == res["params"][best]["stem"]
    assert res["rank_test_score"][best] == 1


def test_cv_refits_the_choice_on_all_the_texts():
    texts, y = corpus(noise=0.6)
    search = TextClassifierCV(lam_grid=[10.0, 1.0, 0.1], cv=3).fit(texts, y)
    p = dict(search.best_params_)
    assert p.pop("rule") == "zero"  # one class of several: the argmax, never a threshold
    ref = TextClassifier(**p).fit(texts, y)
    vec, ref_vec = search.best_estimator_.vectorizer_, ref.vectorizer_  # the words found once
    assert vec.vocabulary_ == ref_vec.vocabulary_ and vec.n_documents_ == ref_vec.n_documents_
    np.testing.assert_array_equal(vec.idf_, ref_vec.idf_)
    np.testing.assert_allclose(search.decision_function(texts), ref.decision_function(texts))
    np.testing.assert_array_equal(search.predict(texts), ref.predict(texts))


def test_cv_holds_one_settings_scores_at_a_time_and_none_at_the_refit(monkeypatch):
    # A setting's out-of-fold scores (texts x problems x lams: 39 MB on Reuters 90 titles)
    # are gone before the next setting's are made, and every setting's scores at its
    # choices (but the best's, which the refit calibrates on) before the refit
    import weakref

    from textwin.model_selection import _text_search

    made, kept, alive_at = [], [], {}
    paths, at_the_choices, refit = (_text_search.TextClassifierCV._paths,
                                    _text_search.at_the_choices,
                                    _text_search.TextClassifierCV._refit)

    def recorded_paths(self, *args, **kwargs):
        alive_at.setdefault("paths", []).append(sum(r() is not None for r in made))
        S, W, lost = paths(self, *args, **kwargs)
        if S is not None:
            made.append(weakref.ref(S))
        return S, W, lost

    def recorded_choices(S, whole, one_se):
        out = at_the_choices(S, whole, one_se)
        kept.extend(weakref.ref(a.base) for a in out.values())
        return out

    def recorded_refit(self, *args, **kwargs):
        alive_at["refit"] = {id(r()) for r in kept if r() is not None}
        return refit(self, *args, **kwargs)

    monkeypatch.setattr(_text_search.TextClassifierCV, "_paths", recorded_paths)
    monkeypatch.setattr(_text_search, "at_the_choices", recorded_choices)
    monkeypatch.setattr(_text_search.TextClassifierCV, "_refit", recorded_refit)
    texts, y = corpus(noise=0.6)
    TextClassifierCV(lam_grid=[10.0, 1.0, 0.1], cv=3, chars=None).fit(texts, y)
    assert len(made) > 2 and len(kept) > 2
    assert alive_at["paths"] == [0] * len(made)
    assert len(alive_at["refit"]) == 1  # the best setting's, at its choice


def test_cv_searches_a_sample_and_refits_the_choice_on_every_text():
    texts, y = corpus(n_per_class=40, noise=0.6)
    grid = [10.0, 1.0, 0.1]
    Y = np.eye(3)[np.searchsorted(np.unique(y), y)]
    sample = search_sample(60, Y, "multiclass", 0)
    search = TextClassifierCV(lam_grid=grid, cv=3, chars=None, max_search_texts=60).fit(texts, y)
    alone = TextClassifierCV(lam_grid=grid, cv=3, chars=None, max_search_texts=None).fit(
        [texts[i] for i in sample], y[sample])
    assert search.n_search_texts_ == alone.n_search_texts_ == sample.size == 60
    # the search is the sample's, to the last score
    for key in ("params", "lam_n", "mean_test_score", "std_test_score", "rank_test_score"):
        assert search.cv_results_[key] == alone.cv_results_[key]
    # the refit is on every text, at the same C = 1 / (lam n)
    p = dict(search.best_params_)
    p.pop("rule")
    assert p["lam"] * len(texts) == pytest.approx(alone.best_params_["lam"] * sample.size)
    ref = TextClassifier(**p).fit(texts, y)
    assert search.best_estimator_.vectorizer_.vocabulary_ == ref.vectorizer_.vocabulary_
    np.testing.assert_allclose(search.decision_function(texts), ref.decision_function(texts))
    everything = TextClassifierCV(lam_grid=grid, cv=3, chars=None).fit(texts, y)
    assert everything.n_search_texts_ == len(texts)  # the default's 50,000 reach them all
    with pytest.raises(ValueError, match="max_search_texts=5 must be a whole number of "
                                         "texts, at least twice the folds"):
        TextClassifierCV(cv=3, max_search_texts=5).fit(texts, y)


def test_cv_on_two_classes_searches_the_nb_scaling():
    texts, y = corpus(classes=("grain", "money"), noise=0.7)
    search = TextClassifierCV(stem=True, ngrams=1, chars=None, lam_grid=[1.0],
                              cv=3).fit(texts, y)
    assert [p["nb_scaling"] for p in search.cv_results_["params"]] == [False, False, True, True]
    # each at score > 0 and at a cut tuned for accuracy in other folds
    assert [p["rule"] for p in search.cv_results_["params"]] == ["zero", "accuracy"] * 2
    assert search.best_estimator_.nb_scaling == search.best_params_["nb_scaling"]


def test_cv_multilabel_takes_select_lams_choice_and_thresholds():
    from textwin.model_selection import select_lam

    texts, labels = multilabel_corpus(n=150)
    grid = [30.0, 1.0, 0.03]
    search = TextClassifierCV(stem=False, ngrams=1, lam_grid=grid, cv=3, tune_thresholds=True,
                              tol=1e-6).fit(texts, labels)
    names = sorted(TOPICS)
    Y = np.array([[c in ls for c in names] for ls in labels], dtype=int)
    # the out-of-fold scores, each fold vectorized on its own training texts
    folds = search._folds(Y, "multilabel")
    S, fold_of = np.empty((150, 3, 3)), np.empty(150, dtype=int)
    for f, (train, test) in enumerate(folds):
        vec = TextVectorizer(weighting="tfidf", stem=False)
        A = vec.fit_transform([texts[i] for i in train])
        B = vec.transform([texts[i] for i in test])
        for l, lam_n in enumerate(grid):
            model = DualGaussSeidelClassifier(lam=lam_n / train.size, fit_intercept=True,
                                              intercept_solver="constant_feature", tol=1e-6,
                                              random_state=0).fit(A, Y[train])
            S[test, :, l] = model.decision_function(B)
        fold_of[test] = f
    choice = select_lam(S, Y, fold_of, task="multilabel", rule="f1")
    assert search.best_score_ == pytest.approx(choice.score, abs=1e-6)
    assert search.best_params_["lam"] == pytest.approx(grid[choice.index] / 150)
    est = search.best_estimator_
    np.testing.assert_allclose(est.thresholds_, choice.thresholds, atol=1e-4)
    assert np.any(est.thresholds_ != 0)  # tuned for F1, and applied by predict
    np.testing.assert_array_equal(search.predict(texts),
                                  (est.decision_function(texts) > est.thresholds_).astype(int))
    summary = search.search_summary()
    assert summary["scoring"] == "micro-f1" and summary["lam_n"] == grid


def test_cv_fixed_settings_are_not_searched():
    texts, y = corpus()
    search = TextClassifierCV(stem=False, ngrams=2, chars=(3, 4), nb_scaling=True, lam=0.02,
                              cv=3).fit(texts, y)
    assert len(search.cv_results_["params"]) == 1
    assert search.best_params_ == {"stem": False, "ngrams": 2, "chars": (3, 4),
                                   "loss": "hinge", "nb_scaling": True, "fit_intercept": True,
                                   "class_weight": None, "rule": "zero", "lam": 0.02}


def _with_small_classes(texts, y):
    """R52's shape: besides the large classes, one of two texts and one of a single text."""
    small = [("copper", "copper mine tonnes smelter the said"),
             ("copper", "copper price smelter output a year"),
             ("platinum", "platinum ounce mine the report")]
    return texts + [t for _, t in small], np.concatenate([y, [c for c, _ in small]])


def _fold_accuracy(texts, y, folds, params, lam_n):
    """Accuracy per fold of a TextClassifier fitted on the fold's training texts alone:
    a class they lack is not one of its classes, so it never predicts it."""
    out = []
    for train, test in folds:
        clf = TextClassifier(lam=lam_n / train.size, tol=1e-6, **params)
        clf.fit([texts[i] for i in train], y[train])
        out.append(np.mean(clf.predict([texts[i] for i in test]) == y[test]))
    return np.array(out)


@pytest.mark.parametrize("nb_scaling", [False, True])
def test_cv_with_classes_smaller_than_the_folds_warns_once_and_scores_every_fold(nb_scaling):
    texts, y = _with_small_classes(*corpus(n_per_class=15, noise=0.6))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search = TextClassifierCV(stem=False, ngrams=1, chars=None, nb_scaling=nb_scaling,
                                  fit_intercept=False, lam_grid=[3.0, 0.3], cv=5,
                                  tol=1e-6).fit(texts, y)
    folds = [str(w.message) for w in caught if "folds" in str(w.message)]
    assert folds == ["TextClassifierCV: class 'platinum' has 1 training text, fewer than the "
                     "5 folds (the smallest of 2 such classes); the folds are stratified as "
                     "far as they go, and a fold that trains without a class never predicts "
                     "it"]  # scikit-learn's StratifiedKFold warning is not shown besides
    assert issubclass(next(w for w in caught if "folds" in str(w.message)).category,
                      UserWarning)
    assert not [w for w in caught if "least populated" in str(w.message)
                or issubclass(w.category, DegenerateSolutionWarning)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        folds = search._folds(np.asarray(y[:, None] == search.classes_, dtype=int),
                              "multiclass", search.classes_)
    lacking = [f for f, (train, _) in enumerate(folds) if "platinum" not in y[train]]
    assert len(lacking) == 1
    res = search.cv_results_
    assert np.all(np.isfinite(res["mean_test_score"]))
    params = dict(stem=False, ngrams=1, nb_scaling=nb_scaling, fit_intercept=False)
    for lam_n, mean, std in zip(res["lam_n"], res["mean_test_score"], res["std_test_score"]):
        expected = _fold_accuracy(texts, y, folds, params, lam_n)
        assert mean == pytest.approx(expected.mean()) and std == pytest.approx(expected.std())
    assert "platinum" in search.classes_ and "platinum" in search.predict(texts[-1:])
    # in the fold that trains without it, platinum scores below anything a class can score
    train, test = folds[lacking[0]]
    vec = TextVectorizer(stem=False).fit([texts[i] for i in train])
    Y = np.asarray(y[:, None] == search.classes_, dtype=int)
    matrices = [(vec.transform([texts[i] for i in train]), vec.transform([texts[i] for i in test]))]
    S = np.full((len(y), Y.shape[1], 2), np.nan)
    parts = matrix_folds(matrices, Y, "multiclass", [(train, test)], nb_scaling, S,
                         dict(loss="hinge", fit_intercept=False, random_state=0))
    run = FoldPaths(parts, None, True, len(y), Y.shape[1], None)
    run.extend(np.array([3.0, 0.3]))
    S = run.out_of_fold(slice(0, 2), out=S)[test]
    absent = list(search.classes_).index("platinum")
    assert np.all(np.isneginf(S[:, absent])) and np.all(np.isfinite(np.delete(S, absent, 1)))


def _holds_a_matrix(obj, depth=0):
    """Is a sparse matrix reachable from ``obj`` (dicts, sequences, objects' attributes)?"""
    import scipy.sparse as sp

    if sp.issparse(obj):
        return True
    if depth > 4 or isinstance(obj, (str, bytes, np.ndarray)):
        return False
    items = (obj.values() if isinstance(obj, dict) else obj if isinstance(obj, (list, tuple))
             else vars(obj).values() if hasattr(obj, "__dict__") else ())
    return any(_holds_a_matrix(v, depth + 1) for v in items)


@pytest.mark.parametrize("task", ["multiclass", "binary"])
def test_cv_keeps_no_matrix_between_the_pieces_of_a_path(task):
    # each piece builds the fold's matrices anew (scaled ones for each class): kept for
    # every fold (and class) until the combination ends, they held a copy of the fold's
    # matrix each (AG News: peak RSS 347 MiB against 203 for the whole grid); the pieces
    # score as the whole grid does
    classes = ("grain", "money", "oil") if task == "multiclass" else ("grain", "money")
    texts, y = corpus(n_per_class=20, classes=classes)
    X = TextVectorizer(stem=False).fit_transform(texts)
    Y = np.asarray(y[:, None] == np.array(classes), dtype=int)
    order = np.random.default_rng(0).permutation(len(texts))
    train, test = order[:40], order[40:]
    K = 1 if task == "binary" else Y.shape[1]

    def paths(nb, pieces):
        S = np.full((len(texts), K, 2), np.nan)
        run = FoldPaths(matrix_folds([(X[train], X[test])], Y, task, [(train, test)], nb, S,
                                     dict(loss="hinge", **intercept_params(True),
                                          random_state=0)), None, True, len(texts), K, None)
        lam_n, l = np.array([1.0, 0.3]), 0
        for piece in pieces:
            run.extend(lam_n[l:l + piece])
            l += piece
        return run, run.out_of_fold(slice(0, 2), out=S)

    for nb in (False, True):
        run, S = paths(nb, [1, 1])
        assert not _holds_a_matrix((run._built, run._bases, run.state))
        _, whole = paths(nb, [2])
        np.testing.assert_array_equal(S, whole)


@pytest.mark.parametrize("task", ["multiclass", "binary", "multilabel"])
def test_cv_stops_a_combinations_paths_past_their_best_and_chooses_as_the_whole_grid(task):
    texts, y = {"multiclass": lambda: corpus(n_per_class=40, noise=0.6),
                "binary": lambda: corpus(n_per_class=60, classes=("grain", "money"),
                                         noise=0.7),
                "multilabel": lambda: multilabel_corpus(n=200)}[task]()
    kw = dict(ngrams=[1, 2], lam_grid=np.logspace(2, -4, 7), cv=3, tol=1e-4)
    whole = TextClassifierCV(early_stopping=False, **kw).fit(texts, y)
    search = TextClassifierCV(**kw).fit(texts, y)
    full = np.array(whole.cv_results_["mean_test_score"]).reshape(-1, 7)
    mean = np.array(search.cv_results_["mean_test_score"]).reshape(-1, 7)
    reached = np.isfinite(mean)
    assert np.isfinite(full).all() and not reached.all()
    # the points solved are the whole grid's, each path continued where it stopped
    np.testing.assert_array_equal(mean[reached], full[reached])
    n_reached = reached.sum(axis=1)
    rules = len(search._rules(search.task_, search.scoring_))
    for c in range(0, len(mean), rules):  # a combination's rules stop together
        assert len(set(n_reached[c:c + rules])) == 1
        if n_reached[c] < 7:  # stopped: every rule's one-SE choice a point or more back
            std = np.array(search.cv_results_["std_test_score"]).reshape(-1, 7)
            for row, sd in zip(mean[c:c + rules, :n_reached[c]], std[c:c + rules]):
                best = np.argmax(row)
                chosen = np.flatnonzero(row >= row[best] - sd[best] / np.sqrt(3))[0]
                assert chosen < n_reached[c] - 1
    assert search.best_params_ == whole.best_params_
    assert search.best_score_ == whole.best_score_


def test_cv_stops_the_naive_bayes_paths_of_many_classes_early_as_the_whole_grid():
    """Naive Bayes paths of more than four classes stop early too (each piece scales its
    classes' matrices again, cheaper than R52's smallest lams): the points solved are the
    whole grid's and the choice is the same."""
    rng = np.random.default_rng(4)
    K, texts, y = 6, [], []
    for c in range(K):
        for _ in range(30):
            words = list(rng.choice(COMMON, 6)) + [
                f"t{c if rng.random() > 0.6 else rng.integers(K)}x{rng.integers(5)}"
                for _ in range(6)]
            rng.shuffle(words)
            texts.append(" ".join(words))
            y.append(f"c{c}")
    kw = dict(stem=False, ngrams=1, chars=None, nb_scaling=[False, True],
              lam_grid=np.logspace(2, -4, 7), cv=3, tol=1e-4)
    whole = TextClassifierCV(early_stopping=False, **kw).fit(texts, y)
    search = TextClassifierCV(**kw).fit(texts, y)
    nb = np.array([p["nb_scaling"] for p in search.cv_results_["params"]])
    mean = np.array(search.cv_results_["mean_test_score"])
    full = np.array(whole.cv_results_["mean_test_score"])
    assert np.isfinite(full).all()
    assert not np.isfinite(mean[nb]).all()  # the scaled paths stopped before the grid's end
    reached = np.isfinite(mean)
    np.testing.assert_array_equal(mean[reached], full[reached])
    assert search.best_params_ == whole.best_params_
    assert search.best_score_ == whole.best_score_


def test_cv_solves_the_folds_to_fold_tol_and_the_refit_to_tol(monkeypatch):
    import textwin.model_selection._paths as paths

    texts, y = corpus(n_per_class=20, noise=0.6)
    tols = []
    original = paths.solve_binary_problem

    def recorded(X, y, weight, alpha, settings, seed, **kwargs):
        tols.append(settings.tol)
        return original(X, y, weight, alpha, settings, seed, **kwargs)

    monkeypatch.setattr(paths, "solve_binary_problem", recorded)
    kw = dict(stem=False, ngrams=1, nb_scaling=False, lam_grid=[1.0, 0.1], cv=3, tol=1e-6)
    search = TextClassifierCV(**kw).fit(texts, y)
    assert tols and set(tols) == {10 * 1e-6}  # None: ten times tol
    assert np.all(search.best_estimator_.duality_gap_ <= 1e-6)
    tols.clear()
    TextClassifierCV(fold_tol=0.1, **kw).fit(texts, y)
    assert set(tols) == {0.1}
    for bad in (0, -1.0, "x"):
        with pytest.raises(ValueError, match="fold_tol"):
            TextClassifierCV(fold_tol=bad, **kw).fit(texts, y)


def test_time_budget_keeps_the_best_of_what_fitted_and_says_what_was_not_tried(monkeypatch):
    import textwin.model_selection._budget as budget_module
    import textwin.model_selection._text_search as text_classifier  # the search's module
    from textwin.model_selection._budget import TimeBudgetWarning

    texts, y = corpus(n_per_class=20, noise=0.6)
    kw = dict(lam_grid=np.logspace(1, -2, 4), cv=3, early_stopping=False, chars=None)
    full = TextClassifierCV(**kw).fit(texts, y)
    assert full.time_budget_ is None
    monkeypatch.setattr(budget_module, "time", Clock())
    built = []
    original = text_classifier.fold_matrices

    def counted(vec, *args):
        built.append(vec.ngram_range)
        return original(vec, *args)

    monkeypatch.setattr(text_classifier, "fold_matrices", counted)
    # 4 settings of words (stem x nb_scaling), then bigrams beside the best
    with pytest.warns(TimeBudgetWarning, match=r"not tried: \d+ of 5 settings") as caught:
        search = TextClassifierCV(time_budget=9, **kw).fit(texts, y)
    assert len(caught) == 1
    spent = search.time_budget_
    # a feature setting after the budget is spent has no matrices built
    assert spent["spent"] > 9 and 0 < len(built) < 4
    tried = {tuple(sorted(p.items())) for p in search.cv_results_["params"]}
    assert tried and len(spent["not_tried"]) + len(tried) == 5
    # the cheapest first: words alone before bigrams, which a lack of time for words
    # alone leaves out
    ngrams = [p["ngrams"] for p in search.cv_results_["params"]]
    assert ngrams == sorted(ngrams)
    if any("ngrams=1" in s for s in spent["not_tried"]):
        assert 2 not in ngrams
    # the choice is the best of what was tried, as the full search scores it
    rows = [(m, p) for p, m in zip(full.cv_results_["params"], full.cv_results_["mean_test_score"])
            if tuple(sorted(p.items())) in tried]
    assert search.best_score_ == pytest.approx(max(m for m, _ in rows))
    with pytest.raises(ValueError, match=r"too small .* give at least \d+ s"):
        TextClassifierCV(time_budget=0.5, **kw).fit(texts, y)


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_progress_bar_shows_the_searchs_estimate_not_tqdms(monkeypatch):
    texts, y = corpus(n_per_class=20, noise=0.6)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    TextClassifierCV(lam_grid=np.logspace(1, -2, 4), cv=3, chars=None, verbose=1).fit(texts, y)
    shown = terminal.getvalue()
    assert "at most about" in shown and "left]" in shown
    # tqdm's own estimate ([elapsed<left, rate]) at the rate of the lams so far is gone
    assert not re.search(r"\[\d\d:\d\d<", shown)


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), "60", True])
def test_time_budget_is_a_number_of_seconds(bad):
    texts, y = corpus(n_per_class=10)
    with pytest.raises(ValueError, match="time_budget=.*number of seconds > 0"):
        TextClassifierCV(time_budget=bad).fit(texts, y)


def test_a_curve_that_only_ties_its_best_has_turned():
    from textwin.model_selection._choice import descend, turned

    flat = np.array([[0.90, 0.95, 0.97, 0.97], [0.92, 0.95, 0.97, 0.96]])
    assert turned(flat)  # the best (the first of the ties) is one lam back
    assert not turned(flat[:, :3])  # at the best: not yet
    rising = np.array([[0.90, 0.95, 0.96, 0.97, 0.98]] * 2)
    assert not turned(rising)
    assert not turned(np.array([[0.9, 0.95, 0.97, np.nan, np.nan]] * 2)[:, :3])
    # the pieces stop at the first end where the curve has turned: 4 of 7 lams, the
    # first piece's end (3) being the best's own lam
    curve = np.array([[0.90, 0.95, 0.97, 0.97, 0.97, 0.99, 0.99]] * 2)
    solved = []

    def piece(l, end):
        solved.append((l, end))
        return {"zero": curve[:, :end]}

    assert descend(7, piece, True) == 4 and solved == [(0, 3), (3, 4)]
    # a best at the first lam stops the first piece
    solved.clear()
    assert descend(7, lambda l, end: piece(l, end) and {"zero": curve[:, ::-1][:, :end]},
                   True) == 3 and solved == [(0, 3)]


def test_a_curve_that_creeps_up_within_a_standard_error_has_turned_under_the_one_se_rule():
    from textwin.model_selection._choice import descend, shared_choice, turned

    # the folds' scores: the means 0.9, 0.95, 0.955, 0.957, ... 0.959, with a standard
    # error of 0.01 at the best, so that 0.95 (one lam back at the third) is the one-SE
    # choice, while the plain best moves to each last lam
    noise = np.array([[-0.01415], [0.01415]])  # sd 0.01415 over 2 folds: se 0.01
    creeping = np.array([[0.90, 0.95, 0.955, 0.957, 0.958, 0.9585, 0.959]]) + noise
    assert shared_choice(creeping, True)[0] == 1 and shared_choice(creeping, False)[0] == 6
    assert turned(creeping[:, :3], one_se=True) and not turned(creeping[:, :3])
    assert not turned(creeping[:, :2], one_se=True)  # at the choice: not yet
    rising = np.array([[0.90, 0.93, 0.96, 0.99, 1.02]]) + noise  # more than an SE a lam
    assert not turned(rising, one_se=True)
    solved = []

    def piece(l, end):
        solved.append((l, end))
        return {"zero": creeping[:, :end]}

    assert descend(7, piece, True, one_se=True) == 3 and solved == [(0, 3)]
    solved.clear()
    assert descend(7, piece, True) == 7  # the plain best moves to each last lam


def test_cv_on_two_classes_one_of_a_single_text_goes_on():
    texts, y = corpus(n_per_class=15, classes=("grain", "money"))
    texts, y = texts[:16], y[:16]  # 15 grain, 1 money
    with pytest.warns(UserWarning, match="class 'money' has 1 training text, fewer than the "
                                         "5 folds;"):
        search = TextClassifierCV(stem=False, ngrams=1, lam_grid=[1.0], cv=5).fit(texts, y)
    assert search.task_ == "binary" and np.all(np.isfinite(search.cv_results_["mean_test_score"]))


def test_cv_bad_input_says_what_to_do():
    texts, y = corpus(n_per_class=3)
    with pytest.raises(ValueError, match=r"every class has fewer training texts than the 5 "
                                         r"folds \(the largest, 'grain', has 3\); lower cv to "
                                         r"at most 3"):
        TextClassifierCV().fit(texts, y)
    with pytest.raises(ValueError, match="scoring='micro_f1' is not one of micro-f1"):
        TextClassifierCV(scoring="micro_f1").fit(*corpus())
    with pytest.raises(ValueError, match="lam_grid"):
        TextClassifierCV(lam_grid=[1.0, -1.0]).fit(*corpus())
    with pytest.raises(ValueError, match="early_stopping='no' is not True or False"):
        TextClassifierCV(early_stopping="no").fit(*corpus())


def test_cv_takes_the_folds_of_another_search():
    from sklearn.model_selection import StratifiedKFold

    texts, y = corpus()
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(texts, y))
    given = TextClassifierCV(stem=False, lam_grid=[1.0, 0.1], cv=folds).fit(texts, y)
    own = TextClassifierCV(stem=False, lam_grid=[1.0, 0.1], cv=3).fit(texts, y)
    assert given.cv_results_["mean_test_score"] == own.cv_results_["mean_test_score"]
    assert given.search_summary()["folds"] == 3
    with pytest.raises(ValueError, match="cover every text once"):
        TextClassifierCV(cv=folds[:2]).fit(texts, y)



# ---------------------------------------------------------------------------
# The decision rule, chosen by the folds
# ---------------------------------------------------------------------------

def test_thresholds_tuned_in_sample_overfit_and_the_folds_do_not_prefer_them():
    from textwin.model_selection import fold_scores, tuned_thresholds

    rng = np.random.default_rng(2)  # a draw where the noise's top scores hold positives
    n = 300
    T = np.column_stack([rng.random(n) < 0.5, rng.random(n) < 0.04])  # the second: noise
    S = np.column_stack([np.where(T[:, 0], 1.0, -1.0) + rng.normal(0, 0.8, n),
                         -1.0 + rng.normal(0, 0.3, n)])[:, :, None]  # scores say nothing
    fold_of = np.arange(n) % 5

    def micro(P):
        tp, fp, fn = (P & T).sum(), (P & ~T).sum(), (~P & T).sum()
        return 2 * tp / (2 * tp + fp + fn)

    in_sample = micro(S[:, :, 0] > tuned_thresholds(S[:, :, 0], T, "f1", 5))
    assert in_sample > micro(S[:, :, 0] > 0)  # tuned on the scores it is scored on: better
    zero, tuned = (fold_scores(S, T, fold_of, task="multilabel", rule=r).mean()
                   for r in ("zero", "f1"))
    assert tuned < zero  # tuned on the other folds: the noise category's cut costs


def test_cv_chooses_between_score_zero_and_tuned_thresholds_on_held_out_folds():
    texts, labels = multilabel_corpus(n=150)
    rng = np.random.default_rng(0)  # categories the words say nothing about
    labels = [ls + [f"noise{j}" for j in range(4) if rng.random() < 0.1] for ls in labels]
    search = TextClassifierCV(stem=False, ngrams=1, chars=None, lam_grid=[1.0],
                              cv=3).fit(texts, labels)
    res = search.cv_results_
    score = {p["rule"]: m for p, m in zip(res["params"], res["mean_test_score"])}
    assert set(score) == {"zero", "f1"} and score["zero"] > score["f1"]
    assert search.best_params_["rule"] == "zero"
    assert search.best_score_ == pytest.approx(score["zero"])
    est = search.best_estimator_
    np.testing.assert_array_equal(est.thresholds_, 0.0)
    np.testing.assert_array_equal(search.predict(texts),
                                  (est.decision_function(texts) > 0).astype(int))
    never = TextClassifierCV(stem=False, ngrams=1, chars=None, lam_grid=[1.0], cv=3,
                             tune_thresholds=False).fit(texts, labels)
    assert [p["rule"] for p in never.cv_results_["params"]] == ["zero"]
    with pytest.raises(ValueError, match="tune_thresholds='f1' is not 'auto', True or False"):
        TextClassifierCV(tune_thresholds="f1").fit(texts, labels)


def test_cut_thresholds_maximise_accuracy_or_macro_f1_nearest_zero():
    from textwin.metrics import THRESHOLD_TUNERS

    def cut_thresholds(y, s, objective):  # the tuners of select_lam's cut rules
        return THRESHOLD_TUNERS[objective](y, s)

    y = [[1], [0], [1], [0], [1], [0], [0], [0]]
    s = [[3.0], [2.0], [1.0], [0.5], [-1.0], [-2.0], [-3.0], [-4.0]]
    # accuracy 6/8 at the top 1, 3 or 5: the cut nearest 0, between 1 and 0.5
    np.testing.assert_allclose(cut_thresholds(y, s, "accuracy"), [0.75])
    # macro-F1 at the top 1, 3, 5: (0.5 + 0.833) / 2, (0.667 + 0.8) / 2, (0.75 + 0.75) / 2
    np.testing.assert_allclose(cut_thresholds(y, s, "macro-f1"), [-1.5])


def test_cv_on_two_classes_cuts_the_score_where_the_folds_say():
    texts, y = corpus(classes=("grain", "money"), noise=0.5, n_per_class=60)
    keep = np.r_[np.arange(60), np.arange(60, 120)[:20]]  # three grain to one money
    texts, y = [texts[i] for i in keep], y[keep]
    for scoring, rule in (("accuracy", "accuracy"), ("macro-f1", "macro-f1")):
        search = TextClassifierCV(stem=False, ngrams=1, nb_scaling=False, fit_intercept=False,
                                  lam_grid=[30.0], cv=4, scoring=scoring,
                                  tune_thresholds=True).fit(texts, y)
        est = search.best_estimator_
        assert search.best_params_["rule"] == rule and est.thresholds_[0] != 0
        np.testing.assert_array_equal(
            search.predict(texts),
            est.classes_[(est.decision_function(texts) > est.thresholds_[0]).astype(int)])


def test_the_language_is_read_off_the_texts_as_the_command_line_reads_it(tmp_path):
    # TextClassifier stemmed every corpus as English; the command line read the language
    de = ("Ich sage es dir: {} der Bericht ist nicht auf dem Tisch, das ist ein Brief des "
          "Tages mit einer Frage zu den Kindern, die sich auch von ihr eine Antwort wünschen")
    texts = [de.format("Mannschaften Spielern") if i % 2 else de.format("Regierungen Wahlen")
             for i in range(20)]
    y = ["sport" if i % 2 else "politik" for i in range(20)]
    clf = TextClassifier().fit(texts, y)
    assert clf.language_ == "german" and "mannschaft" in clf.vectorizer_.vocabulary_
    assert TextClassifier(language="english").fit(texts, y).language_ == "english"
    search = TextClassifierCV(cv=2, ngrams=1, stem=True, nb_scaling=False).fit(texts, y)
    assert search.language_ == search.best_estimator_.language_ == "german"
    clf.save(tmp_path / "m.npz")
    loaded = TextClassifier.load(tmp_path / "m.npz")
    assert loaded.language_ == "german"
    np.testing.assert_array_equal(loaded.decision_function(texts), clf.decision_function(texts))


def test_cv_tries_bigrams_beside_the_best_words_combination_only():
    """Words alone are searched over stem x nb_scaling; bigrams then only with the best
    one's stem and scaling, their curve that of a search of that one setting, and the
    choice the best of the five."""
    texts, y = corpus(n_per_class=40, noise=0.6)
    kw = dict(lam_grid=[3.0, 1.0, 0.3], cv=3, chars=None, tol=1e-5)
    search = TextClassifierCV(ngrams=[1, 2], **kw).fit(texts, y)
    res = search.cv_results_
    words = {tuple(p.items()) for p in res["params"] if p["ngrams"] == 1}
    bigrams = [(p, m) for p, m in zip(res["params"], res["mean_test_score"]) if p["ngrams"] == 2]
    assert len(words) == 4 and len(bigrams) == 3  # one setting of bigrams, at 3 lams
    alone = TextClassifierCV(ngrams=1, **kw).fit(texts, y)
    best = alone.best_params_
    assert all(p["stem"] == best["stem"] and p["nb_scaling"] == best["nb_scaling"]
               for p, _ in bigrams)
    beside = TextClassifierCV(ngrams=2, stem=best["stem"], nb_scaling=best["nb_scaling"],
                              **kw).fit(texts, y)
    assert [m for _, m in bigrams] == beside.cv_results_["mean_test_score"]
    assert search.best_score_ == max(alone.best_score_, beside.best_score_)
    winner = alone if alone.best_score_ >= beside.best_score_ else beside
    assert search.best_params_ == winner.best_params_


def _ordered_corpus(n_per_class=60, seed=0, noise=0.1):
    """Two classes told apart by word order alone ("new york" against "york new"): the
    same words, so that only bigrams can separate them."""
    rng = np.random.default_rng(seed)
    pairs = [("new", "york"), ("interest", "rate"), ("crude", "oil")]
    texts, labels = [], []
    for label in ("a", "b"):
        for _ in range(n_per_class):
            words = list(rng.choice(COMMON, 6))
            flip = (label == "b") != (rng.random() < noise)
            for first, second in pairs:
                pair = f"{second} {first}" if flip else f"{first} {second}"
                words.insert(rng.integers(len(words) + 1), pair)
            texts.append(" ".join(words))
            labels.append(label)
    return texts, np.array(labels)


def _fold_tasks(monkeypatch):
    """Record the fold of every path task the search solves, per feature setting's
    matrices (in the order they are made)."""
    from textwin.model_selection import _validation

    tasks = {}
    original = _validation.held_out_path

    def recorded(fold, *args):
        tasks.setdefault(id(fold.matrices), set()).add(fold.p)
        return original(fold, *args)

    monkeypatch.setattr(_validation, "held_out_path", recorded)
    return tasks


def test_cv_halving_takes_a_winning_challenger_to_every_fold(monkeypatch):
    """Bigrams that win (word order is the class) pass their first rounds, are solved on
    every fold and chosen, with the scores of a search without halving."""
    texts, y = _ordered_corpus()
    tasks = _fold_tasks(monkeypatch)
    search = TextClassifierCV(chars=None).fit(texts, y)
    assert search.best_params_["ngrams"] == 2 and search.best_score_ > 0.8
    assert search.dropped_ == [] and set(search.cv_results_["n_folds"]) == {5}
    assert list(tasks.values())[-1] == set(range(5))  # the bigrams' paths on every fold
    full = TextClassifierCV(chars=None, halving=False).fit(texts, y)
    assert search.best_params_ == full.best_params_
    for key in ("params", "mean_test_score", "rank_test_score"):
        assert search.cv_results_[key] == full.cv_results_[key]
    # words alone cannot tell the classes apart
    words = [m for p, m in zip(full.cv_results_["params"], full.cv_results_["mean_test_score"])
             if p["ngrams"] == 1]
    assert max(words) < 0.65


def test_cv_halving_stops_a_losing_challenger_after_its_first_folds(monkeypatch):
    """Bigrams that lose to the words (90.0 against 92.3 on every fold, 94.2 against 90.0
    on the first two) are solved on those two of the 5 folds, never on the others; the
    choice is that of the search that solves them on every fold, and the search says
    what it dropped."""
    texts, y = corpus(n_per_class=100, noise=0.4, seed=0)
    kw = dict(chars=None, stem=False, nb_scaling=False)
    tasks = _fold_tasks(monkeypatch)
    search = TextClassifierCV(**kw).fit(texts, y)
    words, bigrams = tasks.values()
    assert words == set(range(5)) and bigrams == {0, 1}
    tasks.clear()
    full = TextClassifierCV(halving=False, **kw).fit(texts, y)
    assert list(tasks.values())[-1] == set(range(5))
    assert search.best_params_ == full.best_params_ and search.best_score_ == full.best_score_
    ((params, lost),) = [(d["params"], d) for d in search.dropped_]
    assert params["ngrams"] == 2 and (lost["folds"], lost["of"]) == (2, 5)
    assert lost["score"] < lost["best_score"]
    res = search.cv_results_
    dropped = [i for i, p in enumerate(res["params"]) if p["ngrams"] == 2]
    assert {res["n_folds"][i] for i in dropped} == {2}
    # ranked after every setting solved on all the folds
    assert min(res["rank_test_score"][i] for i in dropped) == len(res["params"]) - len(dropped) + 1
    assert search.search_summary()["dropped"] == search.dropped_
    # the words' curve is the full search's
    n = len(res["params"]) - len(dropped)
    assert res["mean_test_score"][:n] == full.cv_results_["mean_test_score"][:n]
    with pytest.raises(ValueError, match="halving='yes' is not True or False"):
        TextClassifierCV(halving="yes").fit(texts, y)


def test_cv_tries_char_ngrams_beside_the_best_words_only_on_small_corpora(monkeypatch):
    import textwin.model_selection._text_search as module

    texts, y = corpus(n_per_class=20, noise=0.6)
    params = dict(lam_grid=[1.0], cv=3, ngrams=[1, 2], nb_scaling=False)
    search = TextClassifierCV(**params).fit(texts, y)  # chars=(None, (2, 5)), the default
    chars = [p for p in search.cv_results_["params"] if p["chars"]]
    words = [p for p in search.cv_results_["params"] if not p["chars"]]
    assert len(words) == 3 and len(chars) == 1 and search.chars_searched_ is True
    assert chars[0]["chars"] == (2, 5)
    monkeypatch.setattr(module, "CHAR_SEARCH_CHARACTERS", sum(map(len, texts)) - 1)
    search = TextClassifierCV(**params).fit(texts, y)
    assert all(p["chars"] is None for p in search.cv_results_["params"])
    assert search.chars_searched_.startswith("not searched: 0.0 million characters")
    assert TextClassifierCV(chars=None, **params).fit(texts, y).chars_searched_ is False
    # nor where their paths cost too much: the characters times the binary problems (3)
    monkeypatch.undo()
    size = sum(map(len, texts))
    monkeypatch.setattr(module, "CHAR_SEARCH_WORK", 3 * size)
    assert TextClassifierCV(**params).fit(texts, y).chars_searched_ is True
    monkeypatch.setattr(module, "CHAR_SEARCH_WORK", 3 * size - 1)
    search = TextClassifierCV(**params).fit(texts, y)
    assert all(p["chars"] is None for p in search.cv_results_["params"])
    assert search.chars_searched_ == (f"not searched: {size / 1e6:.2f} million characters "
                                      "of training text times 3 binary problems, above "
                                      f"{(3 * size - 1) / 1e6:g} million")
    two = [t for t, c in zip(texts, y) if c != "oil"]  # two classes: one binary problem
    monkeypatch.setattr(module, "CHAR_SEARCH_WORK", sum(map(len, two)))
    assert TextClassifierCV(**params).fit(
        two, [c for c in y if c != "oil"]).chars_searched_ is True



def test_cv_tries_balanced_class_weights_beside_the_best():
    texts, y = corpus(n_per_class=20, noise=0.6)
    texts, y = texts[:45], y[:45]  # classes of unequal size
    search = TextClassifierCV(lam_grid=[1.0], cv=3, ngrams=1, chars=None, nb_scaling=False,
                              class_weight=[None, "balanced"]).fit(texts, y)
    weights = [p["class_weight"] for p in search.cv_results_["params"]]
    assert weights == [None, None, "balanced"]  # stem on/off, then the better balanced
    with pytest.raises(ValueError, match="not in classes_"):
        TextClassifierCV(class_weight={"wheat": 2.0}).fit(texts, y)


@pytest.mark.parametrize("nb_scaling", [False, True])
def test_cv_with_a_class_weight_dict_scores_each_fold_as_the_weighted_classifier(nb_scaling):
    # a dict names classes; each fold's problems see class indices (and one problem per
    # class with the naive Bayes scaling): each held-out fold must be scored by the model
    # TextClassifier(class_weight=dict) fits on that fold's training texts
    texts, y = corpus(n_per_class=20, noise=0.6)
    texts, y = texts[:45], y[:45]  # classes of unequal size
    weight = {"money": 8.0, "oil": 0.2}
    order = np.random.default_rng(0).permutation(45)  # every class in every training part
    folds = [(np.setdiff1d(np.arange(45), t), np.sort(t)) for t in np.array_split(order, 3)]
    lam = 0.05
    params = dict(stem=False, ngrams=1, chars=None, nb_scaling=nb_scaling, tol=1e-8)
    search = TextClassifierCV(lam=lam, cv=folds, fold_tol=1e-8, tune_thresholds=False,
                              class_weight=weight, **params).fit(texts, y)
    assert search.best_params_["class_weight"] == weight
    assert search.best_estimator_.class_weight == weight
    texts = np.array(texts, dtype=object)
    accuracies = []
    for train, test in folds:
        fold = TextClassifier(lam=lam * 45 / train.size, class_weight=weight, language="english",
                              **params).fit(list(texts[train]), y[train])
        accuracies.append(np.mean(fold.predict(list(texts[test])) == y[test]))
    unweighted = TextClassifierCV(lam=lam, cv=folds, fold_tol=1e-8, tune_thresholds=False,
                                  **params).fit(list(texts), y)
    assert unweighted.best_score_ != pytest.approx(np.mean(accuracies))  # the weights matter
    assert search.best_score_ == pytest.approx(np.mean(accuracies))


def test_thresholds_tunes_the_refitted_models_class_offsets():
    # --auto --tune-thresholds on one class per text: the refitted model tunes its class
    # offsets on folds of its own, each fold a whole TextClassifier of the chosen settings
    # at the chosen C (lam times the texts over the fold's)
    from sklearn.base import clone

    from textwin._tuning import thresholds_of_scores, tuning_folds
    from textwin.tasks import encode_labels

    texts, y = corpus(noise=0.6)
    search = TextClassifierCV(stem=False, ngrams=1, chars=None, nb_scaling=False, cv=3,
                              thresholds="accuracy").fit(texts, y)
    best = search.best_estimator_
    Y, _, task = encode_labels(y, None)
    oof = np.empty(Y.shape)
    for train, test in tuning_folds(Y, task, 3):
        fold = clone(best).set_params(thresholds=None, lam=best.lam * len(texts) / train.size)
        fold.fit([texts[i] for i in train], np.asarray(y)[train])
        oof[test] = fold.decision_function([texts[i] for i in test])
    expected, _ = thresholds_of_scores(oof, Y, task, "accuracy", 3)
    np.testing.assert_allclose(best.thresholds_, expected, rtol=1e-9, atol=1e-12)
    assert np.any(best.thresholds_ != 0)
    np.testing.assert_array_equal(search.predict(texts), best.predict(texts))
    texts, labels = multilabel_corpus()
    with pytest.raises(ValueError, match="the class offsets of one class per text"):
        TextClassifierCV(thresholds="f1").fit(texts, labels)
