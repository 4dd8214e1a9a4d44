"""Accuracy of the regularized Winnows with the automatic scale, against the SVM,
each with lam chosen by cross-validation on the training set only.

Corpora (ModApte split of Reuters-21578, tf-idf as textwin's: sublinear tf, smoothed
idf of the training set, unit rows):

* ``top10``: the ten largest categories, multi-label, every training stem as a
  feature (20,140); score: micro-averaged break-even point on the test set, lam
  chosen per category (``DualGaussSeidelClassifierCV``'s pooled micro-BEP);
* ``r8``, ``r52``: the single-label subsets (``fetch_reuters_single_label``), every
  training stem; score: test accuracy, one lam shared by the classes (chosen on the
  held-out folds' accuracy);
* ``r52-bigrams``: R52 with stems and stem bigrams occurring in at least two
  training stories (73,023 features, 52 classes): the "20+ classes, ~100k
  features" corpus.

lam is chosen by ``DualGaussSeidelClassifierCV`` (5 folds of the training set, each
method's own data-derived grid); the test set is used once, for the figure.

Methods (docs/mathematics.md §14 derives the scale):

* ``svm``: hinge loss, square regularizer;
* ``rwinnow-balanced``: the balanced regularized Winnow, squared hinge (update
  (28)) with the balanced normalized entropy, ``mass="auto"``;
* ``balanced-entropy``: squared hinge, balanced unnormalized entropy, ``prior="auto"``;
* ``rwinnow-positive``, ``entropy-positive``: the positive-only Winnows
  (normalized / unnormalized entropy, weights >= 0), ``mass``/``prior="auto"``;
* ``*-fixed``: the balanced normalized entropy and ``RegularizedWinnow`` with a
  fixed ``mass=1`` and their default lam, no CV (how they did before the scale
  was chosen from the data).

Run from the repository root: ``python benchmarks/bench_winnow_scale.py
[--corpora top10,r8,r52,r52-bigrams] [--methods ...] [--folds 5] [--json PATH]``
(TEXTWIN_DATA_HOME must hold reuters21578/; about 30-60 minutes on two busy cores
for everything).
"""
import argparse
import os
import sys
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import (JsonPath, add_smoke_arg, corpus_or_exit, emit_json,  # noqa: E402
                     machine_info, print_machine, smoke_cut)
from textwin import (DualGaussSeidelClassifier, DualGaussSeidelClassifierCV,  # noqa: E402
                     RegularizedWinnow)
from textwin.metrics import micro_breakeven_point  # noqa: E402


METHODS = {
    "svm": dict(loss="hinge", regularizer="square"),
    "rwinnow-balanced": dict(loss="squared_hinge", regularizer="balanced_normalized_entropy",
                             mass="auto"),
    "balanced-entropy": dict(loss="squared_hinge", regularizer="balanced_entropy",
                             prior="auto"),
    "rwinnow-positive": dict(loss="squared_hinge", regularizer="normalized_entropy",
                             mass="auto"),
    "entropy-positive": dict(loss="squared_hinge", regularizer="entropy", prior="auto"),
}
FIXED = {
    "rwinnow-balanced-fixed": lambda: DualGaussSeidelClassifier(
        loss="squared_hinge", regularizer="balanced_normalized_entropy", mass=1.0),
    "rwinnow-paper-preset": lambda: RegularizedWinnow(mass=1.0),
}
CORPORA = ("top10", "r8", "r52", "r52-bigrams")


# ---------------------------------------------------------------------------
# Corpora
# ---------------------------------------------------------------------------

def _bigram_analyzer():
    from textwin.text import PorterStemmer, tokenize

    stemmer = PorterStemmer()

    def analyze(text):
        stems = stemmer.stem_many(tokenize(text))
        return stems + [a + " " + b for a, b in zip(stems, stems[1:])]
    return analyze


def _tfidf_bigrams(train_texts, test_texts, min_df=2):
    import scipy.sparse as sp
    from sklearn.feature_extraction.text import CountVectorizer

    from textwin.text import apply_weighting, smooth_idf

    vec = CountVectorizer(analyzer=_bigram_analyzer(), min_df=min_df, dtype=np.float64)
    X_train = sp.csr_matrix(vec.fit_transform(train_texts), dtype=np.float64)
    X_test = sp.csr_matrix(vec.transform(test_texts), dtype=np.float64)
    idf = smooth_idf(np.bincount(X_train.indices, minlength=X_train.shape[1]),
                     X_train.shape[0])
    return apply_weighting(X_train, "tfidf", idf), apply_weighting(X_test, "tfidf", idf)


def load_corpus(name, data_home=None):
    """(X_train, y_train, X_test, y_test, multilabel) of a corpus named in CORPORA."""
    from textwin.datasets import fetch_reuters_single_label, load_reuters_vectorized
    from textwin.text import TextVectorizer

    if name == "top10":
        b = corpus_or_exit(load_reuters_vectorized, data_home=data_home, weighting="tfidf",
                           categories="top10", download_if_missing=False)
        return b.X_train, np.asarray(b.Y_train), b.X_test, np.asarray(b.Y_test), True
    subset = "r8" if name == "r8" else "r52"
    tr, te = (corpus_or_exit(fetch_reuters_single_label, subset, data_home=data_home,
                             subset=part, download_if_missing=False)
              for part in ("train", "test"))
    if name == "r52-bigrams":
        X_train, X_test = _tfidf_bigrams(tr.data, te.data)
    else:
        vec = TextVectorizer(weighting="tfidf")
        X_train, X_test = vec.fit_transform(tr.data), vec.transform(te.data)
    return X_train, np.asarray(tr.target), X_test, np.asarray(te.target), False


# ---------------------------------------------------------------------------
# Cross-validation on the training set
# ---------------------------------------------------------------------------

def cv_fit_score(params, data, lams, folds, n_jobs):
    """lam by CV on the training set (DualGaussSeidelClassifierCV), test score, chosen lams."""
    X_train, y_train, X_test, y_test, multilabel = data
    started = time.perf_counter()
    est = DualGaussSeidelClassifierCV(lams=lams, cv=folds, random_state=0, n_jobs=n_jobs,
                                      scoring="micro_breakeven_point" if multilabel else None,
                                      **params).fit(X_train, y_train)
    if multilabel:
        score = micro_breakeven_point(y_test, est.decision_function(X_test))
    else:
        score = np.mean(est.predict(X_test) == y_test)
    cv = np.asarray(est.cv_scores_)
    return dict(score=100 * score, lam=np.ravel(est.lam_).tolist(),
                grid=np.ravel(est.lams_).tolist(), cv_best=100 * float(np.max(
                    cv.mean(axis=-2) if cv.ndim == 2 else cv.mean(axis=-2).max(axis=-1))),
                seconds=time.perf_counter() - started)


def fixed_score(make, data, n_jobs):
    X_train, y_train, X_test, y_test, multilabel = data
    started = time.perf_counter()
    est = make().set_params(random_state=0, n_jobs=n_jobs).fit(X_train, y_train)
    if multilabel:
        score = micro_breakeven_point(y_test, est.decision_function(X_test))
    else:
        score = np.mean(est.predict(X_test) == y_test)
    return dict(score=100 * score, lam=[est.lam], grid=None, cv_best=None,
                seconds=time.perf_counter() - started)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpora", default=",".join(CORPORA),
                   help="comma-separated, from: " + ", ".join(CORPORA))
    p.add_argument("--methods", default=",".join(list(METHODS) + list(FIXED)),
                   help="comma-separated, from: " + ", ".join(list(METHODS) + list(FIXED)))
    p.add_argument("--folds", type=int, default=5, help="CV folds (default: %(default)s)")
    p.add_argument("--lams", type=int, default=10,
                   help="points of each method's automatic grid, from its lam_max down "
                        "four decades and on while the best is the smallest (default: "
                        "%(default)s)")
    p.add_argument("--n-jobs", type=int, default=2, help="threads (default: %(default)s)")
    p.add_argument("--data-home", default=None, help="folder holding reuters21578/")
    p.add_argument("--json", metavar="PATH", default=None, action=JsonPath,
                   help="also write the results as JSON to PATH ('-': stdout)")
    add_smoke_arg(p)
    args = p.parse_args(argv)
    if args.smoke:  # the first rows of R8 and of the ten categories, a short grid
        args.lams, args.folds = 3, 3
        if args.corpora == ",".join(CORPORA):
            args.corpora = "r8,top10"
    lams = args.lams
    methods = args.methods.split(",")
    unknown = [m for m in methods if m not in METHODS and m not in FIXED]
    if unknown:
        p.error(f"unknown method(s) {unknown}")
    print_machine()
    results = []
    for corpus in args.corpora.split(","):
        if corpus not in CORPORA:
            p.error(f"unknown corpus {corpus!r}")
        data = load_corpus(corpus, args.data_home)
        if args.smoke:
            train, test = smoke_cut(300, 100, data[0:2], data[2:4])
            data = (*train, *test, data[4])
        what = "micro-BEP" if data[4] else "accuracy"
        print(f"\n{corpus}: {data[0].shape[0]} training x {data[0].shape[1]} features, "
              f"{data[2].shape[0]} test; {what} (%)", flush=True)
        for method in methods:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                if method in METHODS:
                    r = cv_fit_score(METHODS[method], data, lams, args.folds, args.n_jobs)
                else:
                    r = fixed_score(FIXED[method], data, args.n_jobs)
            lam = (f"lam {r['lam'][0]:.3g}" if len(set(r["lam"])) == 1 else
                   "lam " + ",".join(f"{x:.2g}" for x in r["lam"]))
            print(f"  {method:24s} {r['score']:5.1f}   {lam}   {r['seconds']:.0f} s", flush=True)
            results.append(dict(corpus=corpus, method=method, metric=what, **r))
    emit_json(args.json, dict(machine=machine_info(), n_lams=lams, folds=args.folds,
                              results=results))


if __name__ == "__main__":
    main()
