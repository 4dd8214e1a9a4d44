"""Speed of TextVectorizer against scikit-learn's TfidfVectorizer on all of Reuters-21578.

The corpus: the 21,578 stories of the 22 SGML files (title and body, as the
reproduction reads them), parsed once by textwin's loader before any timing.
Measured in the same run, interleaved (``--repeats`` rounds, medians):

* peer: ``TfidfVectorizer(sublinear_tf=True).fit_transform`` (scikit-learn's
  defaults otherwise: no stemming);
* textwin: ``TextVectorizer(weighting="tfidf").fit_transform``, which also
  Porter-stems every word, once with each stemmer: PyStemmer's (when
  installed; the default then) and NLTK's. The process-wide stem memo is
  emptied before each run, so that every run stems from scratch as a new
  process would; one more row shows a refit with the memo full (what a
  cross-validation's second fold costs);
* textwin, hashed columns (``n_features=2**20``, no vocabulary);
* textwin, chunked: ``partial_fit`` over ten batches, then ``transform``,
  checked to give exactly the one-shot matrix;
* parallel over documents: ``transform`` in one thread against two threads
  each transforming half of the documents (checked to give the same matrix).

It also traces (tracemalloc) the peak memory of ``fit`` over a generator of the
texts, which holds one chunk of :data:`textwin.text.CHUNK_CHARACTERS` at a time.

The ratio is textwin / peer within each round, median over the rounds (< 1:
textwin is faster); the target is <= 1.0 for the default stemmer. ``--cpu``
times the process's CPU seconds instead of wall seconds (both sides run in one
thread), which other work on a shared machine inflates less. It also counts where the two stemmers disagree on the
corpus's distinct words (how many, how often they occur, examples).

Run from the repository root: ``TEXTWIN_DATA_HOME=/path/holding/reuters21578
python benchmarks/bench_vectorizer.py [--repeats 3] [--json PATH]``.
"""
import argparse
import os
import statistics
import sys
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import (  # noqa: E402  (also finds an uninstalled textwin)
    add_common_args,
    emit_json,
    interleaved_times,
    print_machine,
    require_corpus,
)
from sklearn.feature_extraction.text import TfidfVectorizer  # noqa: E402

from textwin.datasets import get_data_home  # noqa: E402
from textwin.datasets._reuters import CORPUS_DIR, SGML_FILES  # noqa: E402
from textwin.datasets._sgml_parser import parse_sgml_file  # noqa: E402
from textwin.text import (  # noqa: E402
    CHUNK_CHARACTERS,
    PorterStemmer,
    TextVectorizer,
    clear_stem_cache,
    pystemmer_installed,
    resolve_stemmer,
)

TARGET = 1.0


def reuters_texts(data_home):
    """Title and body of every story of the 22 SGML files, in file order."""
    folder = get_data_home(data_home) / CORPUS_DIR
    texts = []
    for name in SGML_FILES:
        for story in parse_sgml_file(folder / name):
            texts.append(f"{story.title}\n{story.body}" if story.title else story.body)
    return texts


def agreement(texts, n_examples=12):
    """Where NLTK's Porter stemmer and PyStemmer's disagree on the corpus's words."""
    words = TextVectorizer(weighting="count", stem=False)
    counts = words.fit_transform(texts)
    vocabulary = words.get_feature_names_out().tolist()
    occurrences = np.asarray(counts.sum(axis=0)).ravel()
    nltk = PorterStemmer(backend="nltk").stem_many(vocabulary)
    snowball = PorterStemmer(backend="pystemmer").stem_many(vocabulary)
    differ = np.array([a != b for a, b in zip(nltk, snowball)])
    most_frequent = np.flatnonzero(differ)[np.argsort(-occurrences[differ], kind="stable")]
    return {
        "distinct_words": len(vocabulary),
        "words_stemmed_differently": int(differ.sum()),
        "share_of_distinct_words": float(differ.mean()),
        "share_of_word_occurrences": float(occurrences[differ].sum() / occurrences.sum()),
        "distinct_stems_nltk": len(set(nltk)),
        "distinct_stems_pystemmer": len(set(snowball)),
        "most_frequent_differences": [
            {"word": vocabulary[j], "occurrences": int(occurrences[j]), "nltk": nltk[j],
             "pystemmer": snowball[j]} for j in most_frequent[:n_examples]],
    }


def chunked(texts, n_batches=10):
    vec = TextVectorizer(weighting="tfidf")
    for batch in np.array_split(np.arange(len(texts)), n_batches):
        vec.partial_fit(texts[batch[0]:batch[-1] + 1])
    return vec.transform(texts)


def fit_memory(texts):
    """tracemalloc's peak and retained bytes of ``fit`` over a generator of the texts."""
    TextVectorizer().fit(texts[:10])  # imports and first allocations outside the trace
    clear_stem_cache()
    tracemalloc.start()
    vec = TextVectorizer(weighting="tfidf").fit(text for text in texts)
    retained, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"chunk_characters": CHUNK_CHARACTERS, "peak_bytes": peak,
            "retained_bytes": retained, "n_terms": len(vec.vocabulary_),
            "peak_bytes_per_chunk_character": peak / CHUNK_CHARACTERS}


def transform_in_threads(vec, texts, n_threads):
    """``vec.transform`` of ``n_threads`` equal parts of the texts, one per thread, stacked."""
    parts = [texts[p[0]:p[-1] + 1] for p in np.array_split(np.arange(len(texts)), n_threads)]
    with ThreadPoolExecutor(n_threads) as pool:
        return sp.vstack(list(pool.map(vec.transform, parts)), format="csr")


def cold(fn):
    """``fn`` after emptying the stem memo: every distinct word is stemmed again."""
    def run():
        clear_stem_cache()
        return fn()
    return run


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=None, help="folder holding reuters21578/ "
                        "(default $TEXTWIN_DATA_HOME)")
    parser.add_argument("--cpu", action="store_true",
                        help="time CPU seconds of the process instead of wall seconds")
    add_common_args(parser, repeats=3)
    args = parser.parse_args(argv)
    data_home = args.data_home or os.environ.get("TEXTWIN_DATA_HOME")
    require_corpus(data_home)
    info = print_machine()
    texts = reuters_texts(data_home)
    n_chars = sum(map(len, texts))
    default = resolve_stemmer("auto")
    print(f"corpus: Reuters-21578, {len(texts):,} stories, {n_chars / 1e6:.1f} million "
          f"characters; default stemmer here: {default}")

    def textwin(stemmer):
        return lambda: TextVectorizer(weighting="tfidf", stemmer=stemmer).fit_transform(texts)

    rows = [("scikit-learn TfidfVectorizer(sublinear_tf=True)",
             lambda: TfidfVectorizer(sublinear_tf=True).fit_transform(texts))]
    stemmers = (["pystemmer"] if pystemmer_installed() else []) + ["nltk"]
    rows += [(f"textwin TextVectorizer('tfidf', stemmer='{s}')", cold(textwin(s)))
             for s in stemmers]
    rows.append((f"  the same, {default}, stem memo full (a refit)", textwin(default)))
    rows.append((f"  {default}: hashed columns, n_features=2**20",
                 cold(lambda: TextVectorizer(weighting="tfidf", n_features=2**20)
                      .fit_transform(texts))))
    rows.append((f"  {default}: partial_fit x 10 batches + transform", cold(lambda: chunked(texts))))
    # Parallel over documents: transform in one thread, and in two threads over halves
    # (the numpy parts release the GIL, the Python parts do not).
    fitted = TextVectorizer(weighting="tfidf").fit(texts)
    rows.append((f"  {default}: transform, 1 thread", cold(lambda: fitted.transform(texts))))
    rows.append((f"  {default}: transform, 2 threads over halves",
                 cold(lambda: transform_in_threads(fitted, texts, 2))))
    timer = time.process_time if args.cpu else time.perf_counter
    results = interleaved_times([fn for _, fn in rows], repeats=args.repeats, timer=timer)

    peer = results[0]["times"]
    one_shot = results[1]["result"]
    same_chunked = (results[-3]["result"] != one_shot).nnz == 0
    same_threads = (results[-1]["result"] != results[-2]["result"]).nnz == 0
    clock = "CPU s" if args.cpu else "wall s"
    print(f"\n{'measurement':<58}{clock:>9}{'ratio':>8}   runs")
    table = []
    for (name, _), res in zip(rows, results):
        ratio = statistics.median(t / p for t, p in zip(res["times"], peer))
        print(f"{name:<58}{res['median']:>9.3f}{ratio:>8.2f}   "
              + " ".join(f"{t:.2f}" for t in res["times"]))
        table.append({"measurement": name, "median_s": res["median"], "min_s": res["min"],
                      "times_s": res["times"], "ratio_to_peer": ratio,
                      "shape": list(res["result"].shape)})
    default_ratio = table[1 + stemmers.index(default)]["ratio_to_peer"]
    print(f"ratio textwin (default stemmer, {default}) / scikit-learn: {default_ratio:.2f}x "
          f"(target <= {TARGET}: {'met' if default_ratio <= TARGET else 'MISSED'})")
    print(f"partial_fit in batches gives the one-shot matrix exactly: {same_chunked}")
    threads = statistics.median(a / b for a, b in zip(results[-2]["times"], results[-1]["times"]))
    print(f"transform: 2 threads over halves, speed-up {threads:.2f} over 1 thread "
          f"(same matrix: {same_threads})")
    memory = fit_memory(texts)
    print(f"fit over a generator: peak {memory['peak_bytes'] / 1e6:.0f} MB traced "
          f"({memory['peak_bytes_per_chunk_character']:.1f} bytes per character of a "
          f"{CHUNK_CHARACTERS:,}-character chunk), {memory['retained_bytes'] / 1e6:.0f} MB "
          f"retained (vocabulary of {memory['n_terms']:,} terms, counts, stem memo)")

    payload = {"machine": info, "clock": clock, "n_documents": len(texts), "n_characters": n_chars,
               "default_stemmer": default, "repeats": args.repeats, "results": table,
               "default_ratio": default_ratio, "target": TARGET,
               "chunked_equals_one_shot": same_chunked, "transform_2_threads_speedup": threads,
               "threads_equal_one_thread": same_threads, "fit_memory": memory}
    if pystemmer_installed():
        agree = agreement(texts)
        payload["stemmer_agreement"] = agree
        print(f"\nNLTK's Porter (NLTK_EXTENSIONS) vs PyStemmer's 'porter' on the corpus's "
              f"{agree['distinct_words']:,} distinct words: "
              f"{agree['words_stemmed_differently']:,} stem differently "
              f"({100 * agree['share_of_distinct_words']:.1f} % of the words, "
              f"{100 * agree['share_of_word_occurrences']:.2f} % of their occurrences); "
              f"distinct stems {agree['distinct_stems_nltk']:,} (NLTK) vs "
              f"{agree['distinct_stems_pystemmer']:,} (PyStemmer)")
        print("most frequent differences (word: NLTK / PyStemmer): " + ", ".join(
            f"{d['word']}: {d['nltk']} / {d['pystemmer']}"
            for d in agree["most_frequent_differences"]))
    emit_json(args.json, payload)
    return 0 if same_chunked and same_threads else 1


if __name__ == "__main__":
    sys.exit(main())
