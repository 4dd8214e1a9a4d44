"""How ``--auto``'s time and peak memory grow with the corpus: 10k, 100k and 1M
synthetic documents, ``textwin train --corpus X --auto`` beside the default
``textwin train --corpus X``, each a whole process (``bench_auto_cost.py``'s
measure: wall time and ``ru_maxrss``).

The corpus (:func:`synthetic_corpus`) has natural word statistics: each document's
length is log-normal (median 60 words), its words are drawn from a Zipf law
(exponent 1.07) over a vocabulary of a million pseudo-words, so that the vocabulary
grows with the corpus as Heaps' law says, and one word in ten from its class's own
topic words (20 classes, 300 topic words each, themselves Zipf-distributed and
shared in part between classes, so that no setting is perfect). A fifth of the
documents is the test set. The figures of each size are printed with their ratio
to the first size's, so that linear growth reads as ratios near the ratio of the
sizes.

Run from the repository root::

    python benchmarks/bench_growth.py --sizes 10000,100000,1000000 --json growth.json
    python benchmarks/bench_growth.py --sizes 2000,20000 --auto-args="--time-budget 60"
"""
import argparse
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # _common, bench_auto_cost

from bench_auto_cost import figures, run_process, train_command  # noqa: E402

SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]  # 70 syllables


def pseudo_word(rank):
    """A pronounceable word for a vocabulary rank: its digits in base 70, as syllables."""
    out = []
    rank += 1
    while rank:
        rank, digit = divmod(rank - 1, len(SYLLABLES))
        out.append(SYLLABLES[digit])
    return "".join(out)


def synthetic_corpus(n, seed=0, n_classes=20, vocabulary=1_000_000, exponent=1.07,
                     topic_words=300, topic_rate=0.1):
    """``(texts, labels)``: ``n`` documents of natural word statistics (see the module's
    description), one class each (``n_classes`` of them, of Zipf-like sizes)."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, vocabulary + 1) ** exponent
    cdf = np.cumsum(p / p.sum())
    topics = [rng.choice(20_000, topic_words, replace=False) + 200 for _ in range(n_classes)]
    tp = 1.0 / np.arange(1, topic_words + 1)
    tp /= tp.sum()
    sizes = 1.0 / np.arange(1, n_classes + 1) ** 0.8
    classes = rng.choice(n_classes, size=n, p=sizes / sizes.sum())
    lengths = np.maximum(3, rng.lognormal(np.log(60), 0.6, size=n).astype(np.int64))
    ranks = np.searchsorted(cdf, rng.random(int(lengths.sum())), side="right")
    own = rng.random(ranks.size) < topic_rate
    of = np.repeat(classes, lengths)[own]
    ranks[own] = np.asarray(topics)[of, rng.choice(topic_words, int(own.sum()), p=tp)]
    types, index = np.unique(ranks, return_inverse=True)
    tokens = np.array([pseudo_word(int(r)) for r in types], dtype=object)[index].tolist()
    ends = np.cumsum(lengths).tolist()
    texts = [" ".join(tokens[a:b]) for a, b in zip([0, *ends[:-1]], ends)]
    return texts, [f"class{c:02d}" for c in classes]


def write_corpus(folder, n, seed=0):
    """The corpus of ``n`` documents as train.jsonl and test.jsonl (a fifth) in ``folder``."""
    texts, labels = synthetic_corpus(n, seed)
    cut = n - n // 5
    paths = []
    for name, part in (("train", slice(0, cut)), ("test", slice(cut, n))):
        path = os.path.join(folder, f"{name}.jsonl")
        with open(path, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps({"text": t, "labels": [c]}) + "\n"
                          for t, c in zip(texts[part], labels[part]))
        paths.append(path)
    return paths


def main(argv=None):
    from _common import JsonPath, add_smoke_arg, emit_json, machine_info, print_machine

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000,100000,1000000",
                    help="documents of each corpus, comma-separated (default 10k, 100k, 1M)")
    ap.add_argument("--auto-args", default="",
                    help="more options for the --auto command (e.g. '--time-budget 600')")
    ap.add_argument("--n-jobs", type=int, default=None, metavar="N",
                    help="threads of both commands (default: theirs, one per core)")
    ap.add_argument("--timeout", type=float, default=24 * 3600)
    ap.add_argument("--json", metavar="PATH", default=None, action=JsonPath)
    add_smoke_arg(ap)
    args = ap.parse_args(argv)
    sizes = [300, 600] if args.smoke else [int(s) for s in args.sizes.split(",")]
    info = print_machine()
    jobs = [] if args.n_jobs is None else ["--n-jobs", str(args.n_jobs)]
    auto_args = ["--auto", *args.auto_args.split(), *jobs]
    print(f"{'documents':>10} {'command':<8} {'seconds':>9} {'x first':>8} {'peak MiB':>9} "
          f"{'x first':>8}  figures (accuracy / macro-F1)", flush=True)
    results, first = {}, {}
    for n in sizes:
        with tempfile.TemporaryDirectory(prefix="bench_growth") as folder:
            train, test = write_corpus(folder, n)
            results[n] = {}
            for key, extra in (("default", jobs), ("auto", auto_args)):
                r = run_process(train_command(train, test, None, extra), args.timeout)
                if "report" in r:
                    r["report"] = {k: r["report"].get(k) for k in
                                   ("n_train", "n_features", "accuracy", "macro_f1", "auto")}
                results[n][key] = r
                if "seconds" not in r:
                    print(f"{n:>10} {key:<8} {r['error']}", flush=True)
                    continue
                base = first.setdefault(key, r)
                acc, macro = figures(r["report"])
                print(f"{n:>10} {key:<8} {r['seconds']:9.1f} {r['seconds'] / base['seconds']:8.1f} "
                      f"{r['peak_rss_mib']:9.0f} {r['peak_rss_mib'] / base['peak_rss_mib']:8.2f}  "
                      f"{acc:.2f} / {macro:.2f}", flush=True)
    end = machine_info()["load_average"]
    print(f"load average at the end: {end}")
    emit_json(args.json, {"machine": info, "load_average_end": end, "auto_args": auto_args,
                          "results": results})


if __name__ == "__main__":
    main()
