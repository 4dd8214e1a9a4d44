"""Speed of the Reuters-21578 pipeline: SGML files to the ModApte feature matrices.

Both sides start from the 22 SGML files and end with the two CSR matrices of the
ModApte split restricted to the 1,000 words of highest information gain
(docs/mathematics.md §11), measured in the same run:

* textwin: ``load_reuters_vectorized`` with an empty cache (parse, tokenize over
  the corpus, stem each distinct token once, CSR built with numpy), then
  ``InformationGain(k=1000)``;
* peer: the plain scikit-learn way on the same parsed texts: ``CountVectorizer``
  (``binary=True``) with an analyzer that tokenizes with the same regular
  expression and stems every token with NLTK's ``PorterStemmer`` behind
  ``functools.lru_cache`` (without the cache it is several times slower still),
  then the same selector. The parsing is shared code, timed inside each side.

It also times ``load_reuters_vectorized`` from its cache (and cache + selector).
It prints seconds and the ratio peer / textwin (> 1: textwin is faster), and
checks that both sides produce the same matrices. Imports are done before any
timing. Targets (2-core machine): cold < 4 s, from the cache < 0.3 s.

Run: ``TEXTWIN_DATA_HOME=/path/holding/reuters21578 python benchmarks/bench_pipeline.py
[--repeat 3]``. Caches go to a temporary folder that is deleted at the end.
"""
import argparse
import functools
import os
import statistics
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import add_smoke_arg, require_corpus  # noqa: E402  (also finds an uninstalled textwin)
from nltk.stem.porter import PorterStemmer as NLTKPorter  # noqa: E402
from sklearn.feature_extraction.text import CountVectorizer  # noqa: E402

from textwin.datasets import _reuters, fetch_reuters21578, load_reuters_vectorized  # noqa: E402,E501
from textwin.text import TOKEN_PATTERN, compile_token_pattern  # noqa: E402

from textwin.feature_selection import InformationGain  # noqa: E402

SELECTOR = "InformationGain(k=1000)"

K = 1000


def select(X_train, Y_train, X_test):
    """Fit the selector on the training set; return both reduced matrices."""
    sel = InformationGain(k=K).fit(X_train, Y_train)
    return sel.transform(X_train), sel.transform(X_test)


def textwin_cold(data_home):
    """Empty cache, nothing parsed in this process: the whole pipeline."""
    with tempfile.TemporaryDirectory() as cache:
        os.environ["TEXTWIN_CACHE_DIR"] = cache
        _reuters._PARSED.clear()
        t0 = time.perf_counter()
        b = load_reuters_vectorized(data_home=data_home, weighting="binary")
        Xtr, Xte = select(b.X_train, b.Y_train, b.X_test)
        elapsed = time.perf_counter() - t0
    return elapsed, b, Xtr, Xte


def textwin_cached(data_home, with_selector):
    t0 = time.perf_counter()
    b = load_reuters_vectorized(data_home=data_home, weighting="binary")
    if with_selector:
        select(b.X_train, b.Y_train, b.X_test)
    return time.perf_counter() - t0


def peer(data_home):
    """Parse (same parser), then CountVectorizer + NLTK Porter with lru_cache."""
    _reuters._PARSED.clear()
    t0 = time.perf_counter()
    train = fetch_reuters21578(data_home=data_home, subset="train")
    test = fetch_reuters21578(data_home=data_home, subset="test")
    stem = functools.lru_cache(maxsize=None)(NLTKPorter().stem)
    token_re = compile_token_pattern(TOKEN_PATTERN)  # its \p{M}, which re cannot read

    def analyzer(doc):
        return [stem(t) for t in token_re.findall(doc.lower())]

    cv = CountVectorizer(analyzer=analyzer, binary=True, dtype=np.float64)
    X_train = cv.fit_transform(train.data)
    X_test = cv.transform(test.data)
    Xtr, Xte = select(X_train, train.target, X_test)
    elapsed = time.perf_counter() - t0
    return elapsed, cv, X_train, X_test, Xtr, Xte


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (median)")
    parser.add_argument("--data-home", default=None, help="folder holding reuters21578/")
    add_smoke_arg(parser)
    args = parser.parse_args(argv)
    if args.smoke:  # once each (the corpus is parsed whole: that is what is measured)
        args.repeat = 1
    data_home = args.data_home or os.environ.get("TEXTWIN_DATA_HOME")
    require_corpus(data_home)
    saved_cache_env = os.environ.get("TEXTWIN_CACHE_DIR")

    print(f"selector: {SELECTOR}", file=sys.stderr)
    cold, b, Xtr, Xte = zip(*[textwin_cold(data_home) for _ in range(args.repeat)])
    with tempfile.TemporaryDirectory() as cache:
        os.environ["TEXTWIN_CACHE_DIR"] = cache
        load_reuters_vectorized(data_home=data_home)  # fill the cache
        cached = [textwin_cached(data_home, False) for _ in range(args.repeat)]
        cached_sel = [textwin_cached(data_home, True) for _ in range(args.repeat)]
    if saved_cache_env is None:
        os.environ.pop("TEXTWIN_CACHE_DIR", None)
    else:
        os.environ["TEXTWIN_CACHE_DIR"] = saved_cache_env
    runs = [peer(data_home) for _ in range(max(1, args.repeat - 1))]
    peer_times = [r[0] for r in runs]
    _, cv, P_train, P_test, Ptr, Pte = runs[-1]

    # Same texts, same regex, same stemmer: the same matrices.
    same_vocab = cv.get_feature_names_out().tolist() == list(b[-1].feature_names)
    same = (
        same_vocab
        and (P_train != b[-1].X_train).nnz == 0
        and (P_test != b[-1].X_test).nnz == 0
        and (Ptr != Xtr[-1]).nnz == 0
        and (Pte != Xte[-1]).nnz == 0
    )

    med = statistics.median
    print(f"ModApte: X_train {b[-1].X_train.shape}, X_test {b[-1].X_test.shape}, "
          f"{K} features selected by {SELECTOR}")
    print(f"{'measurement':<46}{'median s':>10}{'runs':>26}")
    rows = [
        ("textwin, SGML -> 2 CSR + selection (cold)", cold),
        ("peer CountVectorizer + NLTK (lru_cache)", peer_times),
        ("textwin, from the cache", cached),
        ("textwin, from the cache + selection", cached_sel),
    ]
    for name, times in rows:
        print(f"{name:<46}{med(times):>10.3f}   " + " ".join(f"{t:.3f}" for t in times))
    print(f"ratio peer / textwin cold: {med(peer_times) / med(cold):.2f}x")
    print(f"targets: cold < 4 s: {'met' if med(cold) < 4 else 'MISSED'}; "
          f"cache < 0.3 s: {'met' if med(cached) < 0.3 else 'MISSED'}")
    print(f"identical matrices from both pipelines: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
