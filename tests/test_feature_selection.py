"""InformationGain against an independent brute force (docs/mathematics.md §11)."""
import math
import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.linear_model import LogisticRegression
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from textwin.feature_selection import InformationGain, information_gain


# ------------------------------------------------------------------ brute force
def brute_force_ig(Xd, events):
    """IG of every column of dense ``Xd`` from an explicit list of events.

    ``events`` is a list of (document, class) pairs; every probability is an
    explicit ratio of event counts, summed with loops, as written in docs/mathematics.md §11.
    """
    N = len(events)
    classes = sorted({c for _, c in events}, key=str)
    h = 0.0
    for c in classes:
        p_c = sum(1 for _, k in events if k == c) / N
        h -= p_c * math.log(p_c)
    scores = []
    for t in range(Xd.shape[1]):
        with_t = [k for d, k in events if Xd[d, t] != 0]
        without_t = [k for d, k in events if Xd[d, t] == 0]
        ig = h
        for part in (with_t, without_t):
            if not part:
                continue
            p_part = len(part) / N
            inner = 0.0
            for c in classes:
                p_c_given = part.count(c) / len(part)
                if p_c_given > 0:
                    inner += p_c_given * math.log(p_c_given)
            ig += p_part * inner
        scores.append(ig)
    return np.array(scores)


def pair_events(Y):
    """(document, category) pairs; a document with no category is one 'none' event."""
    events = []
    for d in range(Y.shape[0]):
        labels = [c for c in range(Y.shape[1]) if Y[d, c]]
        events.extend((d, c) for c in labels or ["none"])
    return events


def binary_events(Y, c):
    return [(d, bool(Y[d, c])) for d in range(Y.shape[0])]


def random_data(seed, n=40, d=15, n_cat=4, density=0.3):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=rng,
                  data_rvs=lambda k: rng.integers(1, 4, k))
    Y = (rng.random((n, n_cat)) < 0.3).astype(int)
    return X, Y


# --------------------------------------------------------------- exact values
@pytest.mark.parametrize("seed", range(4))
def test_global_matches_brute_force_over_pairs(seed):
    X, Y = random_data(seed)
    assert (Y.sum(axis=1) == 0).any() and (Y.sum(axis=1) > 1).any()  # both cases occur
    expected = brute_force_ig(X.toarray(), pair_events(Y))
    got = InformationGain(k=5).fit(X, Y).scores_
    assert_allclose(got, expected, rtol=1e-10, atol=1e-14)
    assert (expected > 1e-3).sum() > 5  # the test compares real signal, not zeros


@pytest.mark.parametrize("seed", range(3))
def test_per_category_matches_brute_force_and_aggregates(seed):
    X, Y = random_data(seed, n_cat=3)
    Xd = X.toarray()
    per_cat = np.array([brute_force_ig(Xd, binary_events(Y, c)) for c in range(3)])
    n_c = Y.sum(axis=0)
    expected = {
        "max": per_cat.max(axis=0),
        "mean": per_cat.mean(axis=0),
        "weighted": (n_c[:, None] * per_cat).sum(axis=0) / n_c.sum(),
    }
    for aggregate, want in expected.items():
        sel = InformationGain(k=3, scope="per_category", aggregate=aggregate).fit(X, Y)
        assert_allclose(sel.scores_per_category_, per_cat, rtol=1e-10, atol=1e-14)
        assert_allclose(sel.scores_, want, rtol=1e-10, atol=1e-14)


def test_global_differs_from_per_category():
    # Guards against "global" silently computing a per-category aggregate.
    X, Y = random_data(0)
    g = InformationGain(k=1).fit(X, Y).scores_
    for aggregate in ("max", "mean", "weighted"):
        p = InformationGain(k=1, scope="per_category", aggregate=aggregate).fit(X, Y).scores_
        assert not np.allclose(g, p)


def test_hand_computed_value():
    # Pairs: d0 -> c0; d1 -> c0, c1; d2 -> c1; d3 -> none. N = 5 events.
    # H(C) = -(.4 ln .4 + .4 ln .4 + .2 ln .2). Word 0 is in d0, d1: events
    # (c0, c0, c1) with it, (c1, none) without.
    X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    Y = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    h = -(2 * 0.4 * math.log(0.4) + 0.2 * math.log(0.2))
    h_with = -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3))
    h_without = math.log(2)
    expected0 = h - 3 / 5 * h_with - 2 / 5 * h_without
    assert_allclose(InformationGain(k=1).fit(X, Y).scores_[0], expected0, rtol=1e-12)


@pytest.mark.parametrize("labels", [["a", "b", "c"], [0, 1, 2], [-1, 1, 7]])
def test_label_vector_y(labels):
    X, _ = random_data(5)
    rng = np.random.default_rng(5)
    y = np.array(labels, dtype=object)[rng.integers(0, 3, X.shape[0])].astype(type(labels[0]))
    events = list(enumerate(y.tolist()))
    sel = InformationGain(k=4).fit(X, y)
    assert_allclose(sel.scores_, brute_force_ig(X.toarray(), events), rtol=1e-10, atol=1e-14)
    assert_array_equal(sel.classes_, sorted(labels))
    per = InformationGain(k=4, scope="per_category").fit(X, y)
    for i, c in enumerate(sel.classes_):
        ev = [(d, k == c) for d, k in enumerate(y.tolist())]
        assert_allclose(per.scores_per_category_[i], brute_force_ig(X.toarray(), ev),
                        rtol=1e-10, atol=1e-14)


def test_label_vector_matches_sklearn_mutual_information():
    # With one event per document, IG is the mutual information between word
    # presence and the class: scikit-learn's discrete estimator is an independent
    # implementation of the same number (for "global" and for one category).
    from sklearn.feature_selection import mutual_info_classif

    X, _ = random_data(18, n=120, d=25)
    X_bin = (X != 0).astype(float)
    y = np.random.default_rng(18).integers(0, 4, X.shape[0])
    assert_allclose(InformationGain(k="all").fit(X, y).scores_,
                    mutual_info_classif(X_bin, y, discrete_features=True), atol=1e-13)
    per = InformationGain(k="all", scope="per_category").fit(X, y).scores_per_category_
    assert_allclose(per[2], mutual_info_classif(X_bin, y == 2, discrete_features=True),
                    atol=1e-13)


def test_single_label_indicator_equals_label_vector():
    # Each document in exactly one category: pair events = document events.
    X, _ = random_data(6)
    y = np.random.default_rng(6).integers(0, 3, X.shape[0])
    Y = np.eye(3, dtype=int)[y]
    assert_allclose(InformationGain(k="all").fit(X, Y).scores_, InformationGain(k="all").fit(X, y).scores_,
                    rtol=1e-13)


# ---------------------------------------------------------- input formats
def test_sparse_and_dense_inputs_give_identical_scores():
    X, Y = random_data(7)
    ref = InformationGain(k=3).fit(X, Y).scores_
    variants = [X.toarray(), X.tocsc(), sp.csr_array(X), X.astype(np.float32),
                X.toarray().astype(bool)]
    for Xv in variants:
        assert_array_equal(InformationGain(k=3).fit(Xv, Y).scores_, ref)
    for Yv in (sp.csr_matrix(Y), sp.csc_matrix(Y), Y.astype(bool), Y.astype(float)):
        assert_array_equal(InformationGain(k=3).fit(X, Yv).scores_, ref)
    # Nonzero values (even negative) mean "present": only the pattern matters.
    X_neg = X.copy()
    X_neg.data = -X_neg.data * 7.5
    assert_array_equal(InformationGain(k=3).fit(X_neg, Y).scores_, ref)


def test_stored_zeros_and_duplicates_are_not_double_counted():
    X, Y = random_data(8)
    ref = InformationGain(k="all").fit(X, Y).scores_
    # Rebuild X in CSR with every entry stored twice (two halves) and an explicit
    # zero stored at one absent place per row: a non-canonical matrix.
    data, indices, indptr = [], [], [0]
    for i in range(X.shape[0]):
        row = X.getrow(i)
        absent = int(np.flatnonzero(X.toarray()[i] == 0)[0])
        indices += list(row.indices) * 2 + [absent]
        data += list(row.data / 2) * 2 + [0.0]
        indptr.append(len(indices))
    X_messy = sp.csr_matrix((np.array(data), np.array(indices), np.array(indptr)),
                            shape=X.shape)
    assert not X_messy.has_canonical_format
    before = X_messy.data.copy()
    assert_array_equal(InformationGain(k="all").fit(X_messy, Y).scores_, ref)
    assert_array_equal(X_messy.data, before)  # the user's matrix is left alone


def test_feature_in_every_or_no_document_scores_zero():
    X, Y = random_data(9)
    Xd = X.toarray()
    Xd[:, 0] = 1  # everywhere
    Xd[:, 1] = 0  # nowhere
    for scope in ("global", "per_category"):
        sel = InformationGain(k=2, scope=scope).fit(sp.csr_matrix(Xd), Y)
        assert sel.scores_[0] == 0.0 and sel.scores_[1] == 0.0
        assert (sel.scores_[2:] >= 0).all()
    assert_allclose(brute_force_ig(Xd, pair_events(Y))[:2], 0.0, atol=1e-14)


def test_does_not_densify_sparse_x():
    # Dense float64 X would take 160 MB; the counts need a few MB.
    n, d = 50_000, 400
    rng = np.random.default_rng(0)
    X = sp.csr_matrix((np.ones(3000), (rng.integers(0, n, 3000), rng.integers(0, d, 3000))),
                      shape=(n, d))
    Y = sp.csr_matrix((rng.random((n, 3)) < 0.01).astype(float))
    tracemalloc.start()
    try:
        InformationGain(k=10).fit(X, Y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20e6, f"peak {peak / 1e6:.0f} MB suggests X was densified"


# ------------------------------------------------------------------ selection
def test_top_k_is_brute_force_ranking():
    X, Y = random_data(10, d=30)
    brute = brute_force_ig(X.toarray(), pair_events(Y))
    sel = InformationGain(k=8).fit(X, Y)
    mask = sel.get_support()
    assert mask.sum() == 8
    assert brute[mask].min() >= brute[~mask].max() - 1e-12
    assert_array_equal(sel.transform(X).toarray(), X.toarray()[:, mask])


def test_ties_keep_lower_feature_index():
    X, Y = random_data(11, d=10)
    Xd = X.toarray()
    Xt = np.hstack([Xd, Xd])  # column j + 10 duplicates column j: exact ties
    sel = InformationGain(k=10).fit(sp.csr_matrix(Xt), Y)
    s = sel.scores_
    assert_array_equal(s[:10], s[10:])
    order = sorted(range(20), key=lambda j: (-s[j], j))
    expected = np.zeros(20, dtype=bool)
    expected[order[:10]] = True
    assert_array_equal(sel.get_support(), expected)
    # With k = 1 the best column is chosen over its later copy.
    best = int(np.argmax(s[:10]))
    assert_array_equal(np.flatnonzero(InformationGain(k=1).fit(Xt, Y).get_support()), [best])


def test_k_all_zero_and_too_large():
    X, Y = random_data(12)
    assert InformationGain(k="all").fit(X, Y).get_support().all()
    assert not InformationGain(k=0).fit(X, Y).get_support().any()
    with pytest.warns(UserWarning, match="greater than n_features"):
        sel = InformationGain(k=100).fit(X, Y)
    assert sel.get_support().all()


def test_information_gain_function():
    X, Y = random_data(13)
    assert_array_equal(information_gain(X, Y), InformationGain(k="all").fit(X, Y).scores_)
    assert information_gain(X, Y, scope="per_category").shape == (Y.shape[1], X.shape[1])


# ------------------------------------------------------------------ pipeline
def test_pipeline_with_multilabel_y():
    # sklearn#7628: SelectKBest breaks when a Pipeline passes a multi-label Y.
    X, Y = random_data(14, n=80, d=30)
    pipe = Pipeline([("ig", InformationGain(k=10)),
                     ("clf", OneVsRestClassifier(LogisticRegression()))])
    pipe.fit(X, Y)
    assert pipe.predict(X).shape == Y.shape
    assert_array_equal(pipe.named_steps["ig"].get_support(),
                       InformationGain(k=10).fit(X, Y).get_support())
    assert pipe.named_steps["clf"].n_features_in_ == 10


def test_refit_with_other_scope_leaves_no_stale_attribute():
    X, Y = random_data(19)
    sel = InformationGain(k=2, scope="per_category").fit(X, Y)
    sel.set_params(scope="global").fit(X, Y)
    assert not hasattr(sel, "scores_per_category_")


def test_clone_and_params():
    from sklearn.base import clone
    sel = InformationGain(k=7, scope="per_category", aggregate="mean")
    assert clone(sel).get_params() == {"k": 7, "scope": "per_category", "aggregate": "mean"}
    assert not hasattr(sel, "scores_")


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("params, match", [
    ({"k": -1}, "k must be"),
    ({"k": 2.5}, "k must be"),
    ({"k": "most"}, "k must be"),
    ({"scope": "local"}, "scope must be"),
    ({"aggregate": "median"}, "aggregate must be"),
])
def test_bad_parameters(params, match):
    X, Y = random_data(15)
    with pytest.raises(ValueError, match=match):
        InformationGain(**params).fit(X, Y)


def test_bad_targets_and_inputs():
    X, Y = random_data(16)
    with pytest.raises(ValueError, match="requires y"):
        InformationGain(k="all").fit(X)
    with pytest.raises(ValueError, match="must match"):
        InformationGain(k="all").fit(X, Y[:-1])
    with pytest.raises(ValueError, match="must match"):
        InformationGain(k="all").fit(X, np.arange(3))
    with pytest.raises(ValueError, match=r"0/1 \(or -1/\+1\) multi-label indicator"):
        InformationGain(k="all").fit(X, Y * 2)
    # a -1/+1 matrix (which the classifiers accept) is the same target as 0/1
    signed = InformationGain(k="all").fit(X, 2 * np.asarray(Y) - 1).scores_
    assert_array_equal(signed, InformationGain(k="all").fit(X, Y).scores_)
    with pytest.raises(ValueError, match="NaN"):
        InformationGain(k="all").fit(X, np.where(Y == 1, np.nan, 0.0))
    with pytest.raises(ValueError, match="class labels"):
        InformationGain(k="all").fit(X, np.random.default_rng(0).random(X.shape[0]))
    with pytest.raises(ValueError, match="no category column"):
        InformationGain(k="all").fit(X, np.zeros((X.shape[0], 0)))
    Xd = X.toarray().astype(float)
    Xd[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        InformationGain(k="all").fit(Xd, Y)
    with pytest.raises(ValueError):
        InformationGain(k="all").fit(X, Y).transform(X[:, :3])  # wrong number of features


def test_no_warning_in_normal_use():
    X, Y = random_data(17)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        InformationGain(k=3, scope="per_category").fit(X, Y).transform(X)


# ------------------------------------------------------------ sklearn contract
@parametrize_with_checks([InformationGain(k=2), InformationGain(k=2, scope="per_category")])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_global_memory_does_not_grow_with_features_times_classes():
    # 2,000 classes x 20,000 words: a dense count table would take 320 MB.
    rng = np.random.default_rng(1)
    n, d = 4000, 20_000
    X = sp.csr_matrix((np.ones(20_000), (rng.integers(0, n, 20_000),
                                         rng.integers(0, d, 20_000))), shape=(n, d))
    y = rng.integers(0, 2000, n)
    tracemalloc.start()
    try:
        scores = InformationGain(k=10).fit(X, y).scores_
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 40e6, f"peak {peak / 1e6:.0f} MB: the count table was densified"
    assert (scores > 0).sum() > 1000


def test_nb_ratios_and_scaling_need_no_array_as_long_as_the_entries():
    # Wang & Manning's ratios count the positive rows' columns a block of rows at a time,
    # and the scaling multiplies a block at a time: a search's fold with character
    # n-grams has millions of entries, and an index or mask array as long as them was
    # its peak. The same ratios as the formula on the whole matrix, the same scaled values
    from textwin.feature_selection import nb_ratios, scale_columns

    rng = np.random.default_rng(3)
    n, d, nnz = 3000, 5000, 2_000_000
    X = sp.csr_matrix((rng.random(nnz) + 0.1, (rng.integers(0, n, nnz),
                                               rng.integers(0, d, nnz))), shape=(n, d))
    X.sum_duplicates()
    positive = rng.random(n) < 0.3
    positive[:5] = True  # a block's first rows, whatever the draw
    tracemalloc.start()
    try:
        r = nb_ratios(X, positive)
        ratios_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        scale_columns(X, r, out=X.copy())
        scale_peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    p = 1.0 + np.bincount(X[positive].indices, minlength=d)
    q = 1.0 + np.bincount(X[~positive].indices, minlength=d)
    assert_array_equal(r, np.log(p / p.sum()) - np.log(q / q.sum()))
    assert ratios_peak < X.nnz, f"{ratios_peak / 1e6:.1f} MB: an array as long as the entries"
    # the copy given as out is X.nnz * 12 bytes; the scaling itself a few blocks
    assert scale_peak - X.nnz * 12 < X.nnz, f"{scale_peak / 1e6:.1f} MB"
    assert_allclose(scale_columns(X, r).toarray(), X.toarray() * r, rtol=0, atol=0)


# ------------------------------------------------- the user guide's Pipeline API
def test_text_pipeline_with_model_selection_clone_and_pickle():
    """TextVectorizer -> InformationGain -> DualSVM with a multi-label Y, as the user
    guide shows it: cross_val_score, GridSearchCV over lam, clone, pickle."""
    import pickle

    from sklearn.base import clone
    from sklearn.metrics import make_scorer
    from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

    from textwin import DualSVM
    from textwin.metrics import micro_breakeven_point
    from textwin.text import TextVectorizer

    rng = np.random.default_rng(0)
    topics = {"grain": "wheat corn harvest", "oil": "crude barrel refinery",
              "deal": "merger stake takeover"}
    docs, Y = [], []
    for _ in range(150):
        on = rng.random(3) < 0.35
        words = list(rng.choice("the a said market week report".split(), size=5))
        for t, flag in zip(topics.values(), on):
            if flag:
                words += list(rng.choice(t.split(), size=2))
        if rng.random() < 0.2:  # a topic word without its label
            words.append(rng.choice(" ".join(topics.values()).split()))
        docs.append(" ".join(words))
        Y.append(on.astype(int))
    Y = np.array(Y)
    pipe = Pipeline([("vectorize", TextVectorizer()), ("select", InformationGain(k=8)),
                     ("svm", DualSVM(lam=1e-2, random_state=0))])
    scorer = make_scorer(micro_breakeven_point, response_method="decision_function")
    cv = KFold(3, shuffle=True, random_state=0)

    lams = [1e-3, 1e-2, 1e-1]
    by_hand = [cross_val_score(clone(pipe).set_params(svm__lam=lam), docs, Y, cv=cv,
                               scoring=scorer).mean() for lam in lams]
    assert 0.7 < max(by_hand) <= 1.0
    search = GridSearchCV(pipe, {"svm__lam": lams}, cv=cv, scoring=scorer).fit(docs, Y)
    assert search.best_params_["svm__lam"] == lams[int(np.argmax(by_hand))]
    assert search.best_score_ == pytest.approx(max(by_hand), rel=1e-12)

    fitted = search.best_estimator_
    copy = clone(fitted)
    assert copy.get_params()["svm__lam"] == fitted.get_params()["svm__lam"]
    assert not hasattr(copy[-1], "coef_")  # clone is unfitted
    again = pickle.loads(pickle.dumps(fitted))  # what joblib does for n_jobs > 1
    scores = fitted.decision_function(docs)
    assert scores.shape == (150, 3)
    assert_array_equal(again.decision_function(docs), scores)
