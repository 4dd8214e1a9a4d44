"""Speed and memory of TextVectorizer against scikit-learn's TfidfVectorizer, words and bigrams.

The corpus: the 21,578 stories of Reuters-21578's 22 SGML files (title and body,
as the reproduction reads them), or with ``--jsonl`` the texts of JSON Lines
files (AG News, say), read once before any timing. Measured in the same run,
interleaved (``--repeats`` rounds, medians):

* words: ``TfidfVectorizer(sublinear_tf=True).fit_transform`` (scikit-learn's
  defaults otherwise: no stemming) against
  ``TextVectorizer(weighting="tfidf").fit_transform``, which also Porter-stems
  every word, once with each stemmer: PyStemmer's (when installed; the default
  then) and NLTK's. The process-wide stem memo is emptied before each run, so
  that every run stems from scratch as a new process would; one more row shows
  a refit with the memo full (what a cross-validation's second fold costs);
* textwin, hashed columns (``n_features=2**20``, no vocabulary);
* textwin, chunked: ``partial_fit`` over ten batches, then ``transform``,
  checked to give exactly the one-shot matrix;
* parallel over documents: ``transform`` in one thread against two threads
  each transforming half of the documents (checked to give the same matrix);
* words and bigrams: ``TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)``
  against ``TextVectorizer(weighting="tfidf", ngram_range=(1, 2))`` (the
  default stemmer, the memo emptied), hashed and in batches too;
* character n-grams 2-5 inside word boundaries:
  ``TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True)``
  against ``TextVectorizer(weighting="tfidf", ngram_range=None, char_ngrams=(2, 5))``
  (checked to give the peer's columns and values), with ``min_df=2`` (the bound
  ``textwin train --chars`` uses), beside the words, and hashed; target: at most
  half the peer's time;
* with ``--baseline FILE``, the words-only default with another version's
  ``textwin/text.py`` (``git show COMMIT:textwin/text.py > FILE``), to check
  that a change does not slow it.

Peak memory: each ``fit_transform`` call (words, bigrams and character n-grams,
both sides; textwin's words beside character n-grams with ``min_df=2``) runs alone in a fresh child process after reading the corpus; the
child reports its peak resident set (``VmHWM``, i.e. ``ru_maxrss``) and its
resident set before vectorizing. The script also traces (tracemalloc) the peak
memory of ``fit`` over a generator of the texts, which holds one chunk of
:data:`textwin.text.CHUNK_CHARACTERS` at a time.

The ratio is textwin / peer within each round, median over the rounds (< 1:
textwin is faster); the target is <= 1.0 for the default stemmer, words and
bigrams, and a peak resident set for bigrams no larger than the peer's.
``--cpu`` times the process's CPU seconds instead of wall seconds (both sides
run in one thread), which other work on a shared machine inflates less. It also
counts where the two stemmers disagree on the corpus's distinct words.

Run from the repository root: ``TEXTWIN_DATA_HOME=/path/holding/reuters21578
python benchmarks/bench_vectorizer.py [--repeats 3] [--cpu] [--json PATH]``, or
``python benchmarks/bench_vectorizer.py --jsonl train.jsonl test.jsonl``.
"""
import argparse
import importlib.util
import json
import os
import statistics
import subprocess
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
    status_kib,
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
CHARS_TARGET = 0.5
BIGRAMS = (1, 2)
CHARS = (2, 5)


def reuters_texts(data_home):
    """Title and body of every story of the 22 SGML files, in file order."""
    folder = get_data_home(data_home) / CORPUS_DIR
    texts = []
    for name in SGML_FILES:
        for story in parse_sgml_file(folder / name):
            texts.append(f"{story.title}\n{story.body}" if story.title else story.body)
    return texts


def jsonl_texts(paths):
    """The ``"text"`` of every line of the JSON Lines files, in order."""
    texts = []
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            texts.extend(json.loads(line)["text"] for line in fh if line.strip())
    return texts


def read_corpus(args):
    """``(name, texts)`` of the corpus the arguments name."""
    if args.jsonl:
        name, texts = " + ".join(os.path.basename(p) for p in args.jsonl), jsonl_texts(args.jsonl)
    else:
        data_home = args.data_home or os.environ.get("TEXTWIN_DATA_HOME")
        require_corpus(data_home)
        name, texts = "Reuters-21578", reuters_texts(data_home)
    if args.smoke:
        return name + " (--smoke: its first 500 documents)", texts[:500]
    return name, texts


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


def chunked(texts, n_batches=10, **params):
    vec = TextVectorizer(weighting="tfidf", **params)
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


def load_baseline(path):
    """Another version's ``textwin/text.py``, imported as a module of its own."""
    spec = importlib.util.spec_from_file_location("baseline_text", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cold(fn, *modules):
    """``fn`` after emptying the stem memos (of textwin.text and ``modules``): every
    distinct word is stemmed again."""
    def run():
        clear_stem_cache()
        for module in modules:
            module.clear_stem_cache()
        return fn()
    return run


def before_after(texts, baseline, repeats, timer):
    """This text.py's time over the baseline's for the words-only default, median of
    2 x ``repeats`` pairs run in alternating order (neither side always runs first)."""
    ours = cold(lambda: TextVectorizer(weighting="tfidf").fit_transform(texts), baseline)
    theirs = cold(lambda: baseline.TextVectorizer(weighting="tfidf").fit_transform(texts),
                  baseline)
    pairs = []
    for i in range(2 * repeats):
        seconds, matrices = {}, {}
        for side, fn in (("ours", ours), ("theirs", theirs))[::1 if i % 2 == 0 else -1]:
            start = timer()
            matrices[side] = fn()
            seconds[side] = timer() - start
        assert (matrices["ours"] != matrices["theirs"]).nnz == 0, "the baseline's matrix differs"
        pairs.append((seconds["ours"], seconds["theirs"]))
    ratio = statistics.median(a / b for a, b in pairs)
    print(f"words only, this text.py / --baseline's: {ratio:.2f}x (median of {len(pairs)} "
          f"pairs in alternating order; the same matrix)")
    return {"ratio": ratio, "pairs_s": pairs}


def measurements(texts):
    """``[(key, name, callable)]``: what is timed, the peer of each group first. Every
    textwin run but the refit starts with the stem memo emptied."""

    def tfidf(**params):
        return lambda: TextVectorizer(weighting="tfidf", **params).fit_transform(texts)

    default = resolve_stemmer("auto")
    stemmers = (["pystemmer"] if pystemmer_installed() else []) + ["nltk"]
    fitted = TextVectorizer(weighting="tfidf").fit(texts)
    rows = [("peer", "scikit-learn TfidfVectorizer(sublinear_tf=True)",
             lambda: TfidfVectorizer(sublinear_tf=True).fit_transform(texts))]
    rows += [(f"words_{s}", f"textwin TextVectorizer('tfidf', stemmer='{s}')",
              cold(tfidf(stemmer=s))) for s in stemmers]
    rows += [
        ("refit", f"  the same, {default}, stem memo full (a refit)", tfidf()),
        ("hashed", f"  {default}: hashed columns, n_features=2**20", cold(tfidf(n_features=2**20))),
        ("chunked", f"  {default}: partial_fit x 10 batches + transform", cold(lambda: chunked(texts))),
        ("threads1", f"  {default}: transform, 1 thread", cold(lambda: fitted.transform(texts))),
        ("threads2", f"  {default}: transform, 2 threads over halves",
         cold(lambda: transform_in_threads(fitted, texts, 2))),
        ("peer_bigrams", "scikit-learn TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)",
         lambda: TfidfVectorizer(ngram_range=BIGRAMS, sublinear_tf=True).fit_transform(texts)),
        ("bigrams", f"textwin TextVectorizer('tfidf', ngram_range=(1, 2)), {default}",
         cold(tfidf(ngram_range=BIGRAMS))),
        ("bigrams_hashed", f"  {default}, bigrams: hashed columns, n_features=2**20",
         cold(tfidf(ngram_range=BIGRAMS, n_features=2**20))),
        ("bigrams_chunked", f"  {default}, bigrams: partial_fit x 10 batches + transform",
         cold(lambda: chunked(texts, ngram_range=BIGRAMS))),
        ("peer_chars", "scikit-learn TfidfVectorizer('char_wb', (2, 5), sublinear_tf=True)",
         lambda: TfidfVectorizer(analyzer="char_wb", ngram_range=CHARS,
                                 sublinear_tf=True).fit_transform(texts)),
        ("chars", "textwin TextVectorizer('tfidf', ngram_range=None, char_ngrams=(2, 5))",
         tfidf(ngram_range=None, char_ngrams=CHARS)),
        ("chars_min_df2", "  the same, min_df=2", tfidf(ngram_range=None, char_ngrams=CHARS,
                                                         min_df=2)),
        ("chars_words", f"  beside the words (stemmed, {default}), min_df=2",
         cold(tfidf(char_ngrams=CHARS, min_df=2))),
        ("chars_hashed", "  hashed columns, n_features=2**20",
         tfidf(ngram_range=None, char_ngrams=CHARS, n_features=2**20)),
    ]
    return rows


def time_rows(rows, repeats, timer):
    """Time the rows interleaved; ``{key: result}`` with each row's ratio to its group's
    peer (the peer of the bigram rows is scikit-learn's bigram vectorizer)."""
    results = interleaved_times([fn for _, _, fn in rows], repeats=repeats, timer=timer)
    out, peer = {}, None
    for (key, name, _), res in zip(rows, results):
        if key.startswith("peer"):
            peer = res["times"]
        res["ratio"] = statistics.median(t / p for t, p in zip(res["times"], peer))
        res["name"] = name
        out[key] = res
    return out


def print_times(timed, clock):
    print(f"\n{'measurement':<72}{clock:>9}{'ratio':>8}   runs")
    table = []
    for key, res in timed.items():
        print(f"{res['name']:<72}{res['median']:>9.3f}{res['ratio']:>8.2f}   "
              + " ".join(f"{t:.2f}" for t in res["times"]))
        table.append({"key": key, "measurement": res["name"], "median_s": res["median"],
                      "min_s": res["min"], "times_s": res["times"],
                      "ratio_to_peer": res["ratio"], "shape": list(res["result"].shape)})
    return table


def rss_child(side, args):
    """In a child process: the corpus read, one ``fit_transform``, and the resident set
    before and at its peak (KiB), printed as JSON."""
    _, texts = read_corpus(args)
    ngram_range = BIGRAMS if side.endswith("bigrams") else (1, 1)
    if side == "peer_chars":
        vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=CHARS, sublinear_tf=True)
    elif side == "textwin_chars":
        vectorizer = TextVectorizer(weighting="tfidf", ngram_range=None, char_ngrams=CHARS)
    elif side == "textwin_words_chars_min_df2":
        vectorizer = TextVectorizer(weighting="tfidf", char_ngrams=CHARS, min_df=2)
    elif side.startswith("peer"):
        vectorizer = TfidfVectorizer(ngram_range=ngram_range, sublinear_tf=True)
    else:
        vectorizer = TextVectorizer(weighting="tfidf", ngram_range=ngram_range)
    before = status_kib("VmRSS")
    X = vectorizer.fit_transform(texts)
    print(json.dumps({"side": side, "rss_before_kib": before, "peak_kib": status_kib("VmHWM"),
                      "shape": list(X.shape), "nnz": int(X.nnz)}))


def peak_rss(argv):
    """The children's peak resident sets, each vectorizing alone in a fresh process."""
    out = {}
    for side in ("peer_words", "textwin_words", "peer_bigrams", "textwin_bigrams", "peer_chars",
                 "textwin_chars", "textwin_words_chars_min_df2"):
        run = subprocess.run([sys.executable, os.path.abspath(__file__), "--rss-child", side,
                              *argv], capture_output=True, text=True, check=True)
        out[side] = json.loads(run.stdout.strip().splitlines()[-1])
    print("\npeak resident set of one fit_transform('tfidf') in a fresh process, after reading "
          "the corpus (MB; growth over the resident set before vectorizing):")
    for words in ("words", "bigrams"):
        peer, ours = out[f"peer_{words}"], out[f"textwin_{words}"]
        grow = [(r["peak_kib"] - r["rss_before_kib"]) / 1024 for r in (peer, ours)]
        print(f"  {words:<8} scikit-learn {peer['peak_kib'] / 1024:6.0f} (+{grow[0]:.0f}), "
              f"textwin {ours['peak_kib'] / 1024:6.0f} (+{grow[1]:.0f}); ratio of the peaks "
              f"{ours['peak_kib'] / peer['peak_kib']:.2f}, of the growths {grow[1] / grow[0]:.2f}")
    bigrams = out["textwin_bigrams"]
    for side in ("textwin_chars", "textwin_words_chars_min_df2"):
        r = out[side]
        print(f"  {side[8:]:<22} textwin {r['peak_kib'] / 1024:6.0f} MB, {r['shape'][1]:,} "
              f"columns: {r['peak_kib'] / bigrams['peak_kib']:.2f} x the peak and "
              f"{r['shape'][1] / bigrams['shape'][1]:.2f} x the columns of textwin's words "
              f"and bigrams ({bigrams['shape'][1]:,}); scikit-learn char_wb "
              f"{out['peer_chars']['peak_kib'] / 1024:.0f} MB")
    return out


def print_summary(timed, default, target=TARGET):
    words = timed[f"words_{default}"]["ratio"]
    bigrams = timed["bigrams"]["ratio"]
    for what, ratio in (("words", words), ("words and bigrams", bigrams)):
        print(f"ratio textwin / scikit-learn, {what}, {default}: {ratio:.2f}x "
              f"(target <= {target}: {'met' if ratio <= target else 'MISSED'})")
    chars = timed["chars"]["ratio"]
    print(f"ratio textwin / scikit-learn, character n-grams 2-5: {chars:.2f}x "
          f"(target <= {CHARS_TARGET}: {'met' if chars <= CHARS_TARGET else 'MISSED'})")
    ours, peer = timed["chars"]["result"], timed["peer_chars"]["result"]
    checks = {
        "chars_equal_char_wb": ours.shape == peer.shape and abs(ours - peer).max() < 1e-12,
        "chunked_equals_one_shot": (timed["chunked"]["result"] != timed[f"words_{default}"]
                                    ["result"]).nnz == 0,
        "bigrams_chunked_equals_one_shot": (timed["bigrams_chunked"]["result"]
                                            != timed["bigrams"]["result"]).nnz == 0,
        "threads_equal_one_thread": (timed["threads1"]["result"]
                                     != timed["threads2"]["result"]).nnz == 0,
    }
    print(f"partial_fit in batches gives the one-shot matrix exactly: words "
          f"{checks['chunked_equals_one_shot']}, bigrams {checks['bigrams_chunked_equals_one_shot']}")
    speedup = statistics.median(a / b for a, b in zip(timed["threads1"]["times"],
                                                      timed["threads2"]["times"]))
    print(f"transform: 2 threads over halves, speed-up {speedup:.2f} over 1 thread "
          f"(same matrix: {checks['threads_equal_one_thread']})")
    print(f"character n-grams: the same columns and values as char_wb: "
          f"{checks['chars_equal_char_wb']}")
    return {"default_ratio": words, "bigrams_ratio": bigrams, "chars_ratio": chars,
            "transform_2_threads_speedup": speedup, **checks}


def print_agreement(texts):
    agree = agreement(texts)
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
    return agree


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=None, help="folder holding reuters21578/ "
                        "(default $TEXTWIN_DATA_HOME)")
    parser.add_argument("--jsonl", nargs="+", metavar="FILE", default=None,
                        help="JSON Lines files whose lines' \"text\" make the corpus, instead "
                             "of Reuters-21578")
    parser.add_argument("--cpu", action="store_true",
                        help="time CPU seconds of the process instead of wall seconds")
    parser.add_argument("--baseline", metavar="TEXT_PY", default=None,
                        help="another version's textwin/text.py, timed beside this one "
                             "(words only, the default stemmer)")
    parser.add_argument("--rss-child", default=None, help=argparse.SUPPRESS)
    add_common_args(parser, repeats=3)
    return parser.parse_args(argv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    if args.rss_child:
        return rss_child(args.rss_child, args)
    corpus_argv = (["--jsonl", *args.jsonl] if args.jsonl
                   else ["--data-home", args.data_home] if args.data_home else [])
    if args.smoke:
        corpus_argv.append("--smoke")
        args.repeats = 1
    info = print_machine()
    corpus, texts = read_corpus(args)
    default = resolve_stemmer("auto")
    print(f"corpus: {corpus}, {len(texts):,} documents, {sum(map(len, texts)) / 1e6:.1f} "
          f"million characters; default stemmer here: {default}")
    timer = time.process_time if args.cpu else time.perf_counter
    timed = time_rows(measurements(texts), args.repeats, timer)
    clock = "CPU s" if args.cpu else "wall s"
    table = print_times(timed, clock)
    summary = print_summary(timed, default)
    if args.baseline:
        summary["before_after"] = before_after(texts, load_baseline(args.baseline),
                                               args.repeats, timer)
    rss = peak_rss(corpus_argv)
    memory = fit_memory(texts)
    print(f"fit over a generator: peak {memory['peak_bytes'] / 1e6:.0f} MB traced "
          f"({memory['peak_bytes_per_chunk_character']:.1f} bytes per character of a "
          f"{CHUNK_CHARACTERS:,}-character chunk), {memory['retained_bytes'] / 1e6:.0f} MB "
          f"retained (vocabulary of {memory['n_terms']:,} terms, counts, stem memo)")
    payload = {"machine": info, "clock": clock, "corpus": corpus, "n_documents": len(texts),
               "n_characters": sum(map(len, texts)), "default_stemmer": default,
               "repeats": args.repeats, "results": table, **summary, "target": TARGET,
               "chars_target": CHARS_TARGET,
               "peak_rss": rss, "fit_memory": memory}
    if pystemmer_installed():
        payload["stemmer_agreement"] = print_agreement(texts)
    emit_json(args.json, payload)
    checks = ("chunked_equals_one_shot", "bigrams_chunked_equals_one_shot",
              "threads_equal_one_thread", "chars_equal_char_wb")
    return 0 if all(summary[k] for k in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
