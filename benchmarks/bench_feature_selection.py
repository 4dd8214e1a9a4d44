"""Speed of InformationGain against scikit-learn's chi2 and mutual_info_classif.

Each comparison times both sides on the same sparse matrix in the same run and
prints the ratio (peer time / textwin time; > 1 means textwin is faster):

* multi-label ``Y``: ``InformationGain(scope="global")`` and ``"per_category"`` vs
  ``chi2(X, Y)``, the cheapest multi-label scorer in scikit-learn;
* one binary category ``y``: ``InformationGain(scope="per_category")`` vs
  ``mutual_info_classif(X_bin, y, discrete_features=True)``, which computes the same
  number (checked here) one feature at a time. It is slow, so it runs on the first
  ``--mi-features`` columns only, and InformationGain is timed on the same columns.

Data: by default a synthetic corpus shaped like the Reuters-21578 ModApte training
set (9,603 documents, 20,000 words with Zipf document frequencies, about 1.2
categories per document over 118 categories). ``--reuters`` uses the real training
set instead (``fetch_reuters21578`` + ``TextVectorizer``; set ``TEXTWIN_DATA_HOME``).

Run from the repository root (after ``pip install .``, or with ``PYTHONPATH=.`` for an
in-place build): ``python benchmarks/bench_feature_selection.py [--reuters] [--repeat 5]``.
"""
import argparse
import os
import sys
import time

import numpy as np
import scipy.sparse as sp
from sklearn.feature_selection import chi2, mutual_info_classif

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import add_smoke_arg, corpus_or_exit  # noqa: E402  (also finds an uninstalled textwin)
from textwin.feature_selection import InformationGain  # noqa: E402


def synthetic_corpus(n_docs=9603, n_words=20000, n_cat=118, words_per_doc=60, seed=0):
    """Binary CSR documents x words and a multi-label indicator, Reuters-sized."""
    rng = np.random.default_rng(seed)
    # Zipf-like word popularity; each document draws its words from it.
    popularity = 1.0 / np.arange(1, n_words + 1)
    popularity /= popularity.sum()
    lengths = rng.poisson(words_per_doc, n_docs) + 1
    rows = np.repeat(np.arange(n_docs), lengths)
    cols = rng.choice(n_words, size=lengths.sum(), p=popularity)
    X = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_docs, n_words))
    X.data[:] = 1.0  # duplicates were summed: back to presence
    # Category sizes also skewed; 1 to 3 categories per document, some none.
    cat_p = 1.0 / np.arange(1, n_cat + 1) ** 1.2
    cat_p /= cat_p.sum()
    Y = np.zeros((n_docs, n_cat), dtype=np.uint8)
    n_labels = rng.choice([0, 1, 2, 3], size=n_docs, p=[0.15, 0.6, 0.18, 0.07])
    for i, k in enumerate(n_labels):
        Y[i, rng.choice(n_cat, size=k, replace=False, p=cat_p)] = 1
    return X, Y


def reuters_corpus():
    from textwin.datasets import fetch_reuters21578
    from textwin.text import TextVectorizer

    train = corpus_or_exit(fetch_reuters21578, subset="train", download_if_missing=False)
    X = TextVectorizer(weighting="binary").fit_transform(train.data)
    return sp.csr_matrix(X), np.asarray(train.target)


def best_time(func, repeat):
    """Smallest wall time of ``repeat`` calls (the machine is shared: min is steadiest)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reuters", action="store_true", help="use the real training set")
    parser.add_argument("--repeat", type=int, default=5, help="timings per method (min kept)")
    parser.add_argument("--mi-features", type=int, default=500,
                        help="columns used for the mutual_info_classif comparison")
    add_smoke_arg(parser)
    args = parser.parse_args(argv)
    if args.reuters:
        X, Y = reuters_corpus()
    else:
        X, Y = synthetic_corpus(2000, 5000, 20) if args.smoke else synthetic_corpus()
    if args.smoke:  # a small corpus, once each
        X, Y, args.repeat, args.mi_features = X[:2000], Y[:2000], 1, 100
    source = "Reuters-21578 ModApte train" if args.reuters else "synthetic, Reuters-sized"
    print(f"data: {source}: {X.shape[0]} documents x {X.shape[1]} words, "
          f"nnz={X.nnz}, {Y.shape[1]} categories, {Y.sum() / X.shape[0]:.2f} per document")

    rows = []
    t_chi2 = best_time(lambda: chi2(X, Y), args.repeat)
    for scope in ("global", "per_category"):
        t_ig = best_time(lambda: InformationGain(k=1000, scope=scope).fit(X, Y), args.repeat)
        rows.append((f"IG {scope} (multi-label Y)", t_ig, "chi2(X, Y)", t_chi2))

    # One binary category (the largest) against scikit-learn's mutual information.
    y = Y[:, np.argmax(Y.sum(axis=0))]
    Xs = X[:, : args.mi_features].tocsr()
    ig = InformationGain(k="all", scope="per_category")
    t_ig = best_time(lambda: ig.fit(Xs, y), args.repeat)
    mi = mutual_info_classif(Xs, y, discrete_features=True)
    gap = np.abs(ig.scores_per_category_[1] - mi).max()
    t_mi = best_time(lambda: mutual_info_classif(Xs, y, discrete_features=True),
                     max(1, args.repeat // 2))
    rows.append((f"IG one category ({Xs.shape[1]} words)", t_ig,
                 "mutual_info_classif", t_mi))

    print(f"{'textwin':<36}{'seconds':>10}   {'peer':<22}{'seconds':>10}{'ratio':>10}")
    for name, t, peer, tp in rows:
        print(f"{name:<36}{t:>10.4f}   {peer:<22}{tp:>10.4f}{tp / t:>10.1f}")
    print(f"max |IG - mutual_info_classif| = {gap:.1e} nats (same quantity)")


if __name__ == "__main__":
    main()
