"""The Reuters-21578 runs beyond the registry's tables: the alternatives to the
reconstructed settings, the precision-recall fits and the cross-validated rows;
and :func:`measure`, which runs everything a report shows."""
from __future__ import annotations

import logging
import sys
import time
from dataclasses import dataclass

import numpy as np

from ..experiments import METHODS, MethodResult, score_matrix
from ..metrics import breakeven_point, micro_breakeven_point

logger = logging.getLogger("textwin")


def epoch_overrides(keys, cap):
    """Quick mode: cap ``epochs`` of every method that has the setting."""
    if cap is None:
        return {}
    return {k: {"epochs": min(cap, METHODS[k].settings["epochs"])}
            for k in keys if "epochs" in METHODS[k].settings}


def _epoch_param(est):
    """Name of the estimator's epoch budget (textwin's two families differ)."""
    params = est.get_params()
    return "max_epochs" if "max_epochs" in params else "n_epochs"


def _build(key, n_train, params, epoch_cap):
    """The registry method's estimator with ``params`` set on top of the paper's."""
    est = METHODS[key].build(n_train)
    if epoch_cap is not None:
        name = _epoch_param(est)
        if name in est.get_params():
            est.set_params(**{name: min(epoch_cap, est.get_params()[name])})
    return est.set_params(**params) if params else est


def _per_category_scores(key, params, categories, k, epoch_cap, data_home):
    """Each category trained on its own ``k`` words of highest binary information gain."""
    from ..datasets import load_reuters_vectorized
    from ..feature_selection import InformationGain

    # download_if_missing=False here and below: main() has loaded the corpus already.
    data = load_reuters_vectorized(data_home=data_home, weighting="binary",
                                   download_if_missing=False)
    names = list(data.target_names)
    cols = [names.index(c) for c in categories]
    Y_train = _dense(data.Y_train)[:, cols]
    selector = InformationGain(k=k, scope="per_category").fit(data.X_train, Y_train)
    scores = np.empty((data.X_test.shape[0], len(categories)))
    for j in range(len(categories)):
        support = np.sort(np.argsort(-selector.scores_per_category_[j], kind="stable")[:k])
        est = _build(key, data.X_train.shape[0], params, epoch_cap)
        est.fit(data.X_train[:, support].tocsr(), Y_train[:, j])
        scores[:, j] = score_matrix(est, data.X_test[:, support].tocsr())[:, 0]
    return scores, _dense(data.Y_test)[:, cols]


def _dense(Y):
    return np.asarray(Y.toarray() if hasattr(Y, "toarray") else Y)


def _topic_test_rows(data_home):
    """Indices of the ModApte test documents with at least one topic (any of the 118)."""
    from ..datasets import load_reuters_vectorized

    Y_test = _dense(load_reuters_vectorized(data_home=data_home, weighting="binary",
                                            download_if_missing=False).Y_test)
    return np.flatnonzero(Y_test.sum(axis=1) > 0)


@dataclass
class Alternative:
    method: str
    label: str
    params: dict
    features: str
    breakeven: dict
    micro: float
    seconds: float


def _tfidf_stem_bigrams(train_texts, test_texts, min_df=2):
    """tf-idf over stems and pairs of consecutive stems in >= min_df training texts.

    The stems are the reproduction's (NLTK's Porter, textwin's tokenizer); the
    values as :class:`textwin.text.TextVectorizer`'s tf-idf (sublinear tf,
    smoothed idf of the training texts, unit rows).
    """
    import scipy.sparse as sp
    from sklearn.feature_extraction.text import CountVectorizer

    from ..text import PorterStemmer, apply_weighting, smooth_idf, tokenize

    stem_many = PorterStemmer(backend="nltk").stem_many

    def terms(text):
        stems = stem_many(tokenize(text))
        return stems + [a + " " + b for a, b in zip(stems, stems[1:])]

    vectorizer = CountVectorizer(analyzer=terms, min_df=min_df, dtype=np.float64)
    X_train = sp.csr_matrix(vectorizer.fit_transform(train_texts))
    X_test = sp.csr_matrix(vectorizer.transform(test_texts))
    idf = smooth_idf(np.bincount(X_train.indices, minlength=X_train.shape[1]),
                     X_train.shape[0])
    return apply_weighting(X_train, "tfidf", idf), apply_weighting(X_test, "tfidf", idf)


def tfidf_data(features, categories, data_home):
    """(X_train, Y_train, X_test, Y_test) of the ModApte split with tf-idf ``features``."""
    from ..datasets import fetch_reuters21578, load_reuters_vectorized

    if features == "stems":
        data = load_reuters_vectorized(data_home=data_home, weighting="tfidf",
                                       categories=list(categories), download_if_missing=False)
        # the loaders' columns are in their own (sorted) order: take the categories'
        cols = [list(data.target_names).index(c) for c in categories]
        return (data.X_train, _dense(data.Y_train)[:, cols], data.X_test,
                _dense(data.Y_test)[:, cols])
    train, test = (fetch_reuters21578(data_home=data_home, subset=part,
                                      categories=list(categories), download_if_missing=False)
                   for part in ("train", "test"))
    cols = [list(train.target_names).index(c) for c in categories]
    X_train, X_test = _tfidf_stem_bigrams(train.data, test.data)
    return X_train, _dense(train.target)[:, cols], X_test, _dense(test.target)[:, cols]


def run_cross_validated(plan, *, data_home=None, n_jobs=1, progress=False):
    """The plan's cv rows: lam per category by cross-validation on the training set.

    Returns (results, feature counts by features name); each result's ``extra``
    holds the chosen ``lam`` per category.
    """
    from tqdm.auto import tqdm

    from ..model_selection import DualGaussSeidelClassifierCV

    cache, results = {}, []
    for key, description, features, params in tqdm(plan.cv_rows, desc="cross-validated",
                                                    disable=not progress, leave=False,
                                                    file=sys.stderr):
        if features not in cache:
            cache[features] = tfidf_data(features, plan.categories, data_home)
        X_train, Y_train, X_test, Y_test = cache[features]
        t0 = time.perf_counter()
        # each category's lam for its break-even point, the figure the paper reports
        est = DualGaussSeidelClassifierCV(lams=plan.cv_lams, cv=plan.cv_folds, random_state=0,
                                          scoring="micro_breakeven_point", n_jobs=n_jobs,
                                          **params).fit(X_train, Y_train)
        scores = est.decision_function(X_test)
        seconds = time.perf_counter() - t0
        beps = {c: breakeven_point(Y_test[:, j], scores[:, j], zero_division=np.nan)
                for j, c in enumerate(plan.categories)}
        results.append(MethodResult(
            method=key, paper_name=description, breakeven=beps,
            micro_breakeven=micro_breakeven_point(Y_test, scores), paper_micro_breakeven=None,
            paper_breakeven={}, seconds=seconds, settings={"features": features, **params},
            extra={"lam": dict(zip(plan.categories, np.ravel(est.lam_).tolist()))}))
    return results, {f: d[0].shape[1] for f, d in cache.items()}


def run_alternatives(alternatives, data, *, data_home=None, epoch_cap=None, progress=False):
    """Micro- and per-category break-even points of alternative settings (fractions)."""
    from tqdm.auto import tqdm

    out = []
    for key, label, params, features in tqdm(alternatives, desc="alternatives",
                                             disable=not progress, leave=False,
                                             file=sys.stderr):
        t0 = time.perf_counter()
        features, _, restrict = features.partition("+")
        if features == "per_category":
            scores, Y = _per_category_scores(key, params, data.categories,
                                             data.X_train.shape[1], epoch_cap, data_home)
        elif features == "permuted":
            # The same features in another column order: only the floating-point
            # summation order of w'x changes.
            perm = np.random.RandomState(0).permutation(data.X_train.shape[1])
            est = _build(key, data.X_train.shape[0], params, epoch_cap)
            est.fit(data.X_train[:, perm].tocsr(), data.Y_train)
            scores, Y = score_matrix(est, data.X_test[:, perm].tocsr()), data.Y_test
        else:
            est = _build(key, data.X_train.shape[0], params, epoch_cap)
            est.fit(data.X_train, data.Y_train)
            scores, Y = score_matrix(est, data.X_test), data.Y_test
        if restrict == "topic_test":
            rows = _topic_test_rows(data_home)
            scores, Y = scores[rows], Y[rows]
        elif restrict:
            raise ValueError(f"unknown test-set restriction {restrict!r}")
        seconds = time.perf_counter() - t0
        beps = {c: breakeven_point(Y[:, j], scores[:, j], zero_division=np.nan)
                for j, c in enumerate(data.categories)}
        out.append(Alternative(key, label, params, features, beps,
                               float(micro_breakeven_point(Y, scores, zero_division=np.nan)),
                               seconds))
        logger.info("alternative %s (%s): micro-BEP %.1f%%", key, label, 100 * out[-1].micro)
    return out


def pr_curves(plan, data, progress):
    """Scores of each method on the precision-recall category (one binary problem)."""
    from tqdm.auto import tqdm

    j = data.categories.index(plan.pr_category)
    y_train, y_test = data.Y_train[:, j], data.Y_test[:, j]
    curves = {}
    for key in tqdm(plan.pr_methods, desc="precision-recall", disable=not progress,
                    leave=False, file=sys.stderr):
        est = _build(key, data.X_train.shape[0], {}, plan.epoch_cap)
        est.fit(data.X_train, y_train)
        curves[key] = score_matrix(est, data.X_test)[:, 0]
    return y_test, curves



@dataclass
class Measurements:
    """Everything one run measures, as the report shows it."""

    data: object                   # the protocol's data (experiments.load_protocol_data)
    results: list                  # MethodResult of the paper's table rows
    extra: list                    # MethodResult of the rows beyond the paper
    alternatives: list             # Alternative
    y_pr: np.ndarray               # test labels of the precision-recall category
    curves: dict                   # method key -> its scores on that category
    pr_check: str                  # the sentence saying whether those fits agree
    cv_results: list               # MethodResult of the cross-validated rows
    cv_features: dict              # features name -> number of features
    synth: object                  # SyntheticResult, "as generated"
    synth_alt: object              # SyntheticResult, "flip after filter"


def measure(plan, data, *, data_home=None, n_jobs=1, progress=False):
    """Run every part of ``plan`` on ``data`` (loaded by the caller)."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from ..experiments import run_micro_breakeven
    from .plan import BEYOND, TABLE1, TABLE2
    from .synthetic import run_synthetic

    keys = plan.methods or (TABLE1 + TABLE2 + BEYOND)
    with warnings.catch_warnings():
        # The paper's budgets (100 epochs, 4 x 50) stop before the tolerances by
        # design; the document reports what they reach.
        warnings.simplefilter("ignore", ConvergenceWarning)
        results = run_micro_breakeven(list(keys), data=data,
                                      overrides=epoch_overrides(keys, plan.epoch_cap),
                                      n_jobs=n_jobs, progress=progress)
        alternatives = run_alternatives(plan.alternatives, data, data_home=data_home,
                                        epoch_cap=plan.epoch_cap, progress=progress)
        y_pr, curves = pr_curves(plan, data, progress)
        cv_results, cv_features = run_cross_validated(plan, data_home=data_home,
                                                      n_jobs=n_jobs, progress=progress)
    synth = run_synthetic(plan, n_jobs=n_jobs, progress=progress)
    synth_alt = run_synthetic(plan, n_jobs=n_jobs, progress=progress,
                              reading="flip after filter")
    return Measurements(
        data=data, results=[r for r in results if r.method not in BEYOND],
        extra=[r for r in results if r.method in BEYOND], alternatives=alternatives,
        y_pr=y_pr, curves=curves, pr_check=_pr_check(plan, results, y_pr, curves),
        cv_results=cv_results, cv_features=cv_features, synth=synth, synth_alt=synth_alt)


def _pr_check(plan, results, y_pr, curves):
    """The precision-recall fits are single-category fits: their BEPs must equal the
    table's (every PR method visits the examples in data order or is deterministic)."""
    by_key = {r.method: r for r in results}
    agree = [k for k in curves
             if abs(breakeven_point(y_pr, curves[k]) - by_key[k].breakeven[plan.pr_category])
             < 1e-9]
    return (f"Check: for {len(agree)} of {len(curves)} methods the single-category "
            "fit's break-even point equals the table's"
            + ("." if len(agree) == len(curves) else
               f" (differ: {', '.join(k for k in curves if k not in agree)})."))
