"""Accuracy, not speed: the command line's defaults on a single-label corpus against
scikit-learn's LinearSVC().

On R8 and R52 (the single-label subsets of Reuters-21578 ModApte), trains
``textwin train --corpus NAME`` with no option (tf-idf, every feature,
lam = 1/n, a random example order each epoch, the svm method) and scikit-learn's
``make_pipeline(TfidfVectorizer(), LinearSVC())`` with its defaults on the same
raw texts and split, and prints both test accuracies and macro-F1 (percent)
with their difference. The target: textwin within 1 point of LinearSVC().

Run: ``python benchmarks/bench_corpus_defaults.py [--data-home DIR] [--json PATH]``
"""
import argparse
import contextlib
import io
import json
import os
import sys
import time

from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import accuracy_score, f1_score
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import JsonPath, add_smoke_arg, emit_json, print_machine  # noqa: E402

from textwin.cli import main as textwin_main  # noqa: E402
from textwin.datasets import fetch_reuters_single_label  # noqa: E402


def textwin_defaults(name, data_home):
    argv = ["train", "--corpus", name, "--json", "-q"]
    if data_home:
        argv += ["--data-home", data_home]
    out = io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out):
        code = textwin_main(argv)
    if code != 0:
        sys.exit(f"textwin {' '.join(argv)} exited with {code}")
    result = json.loads(out.getvalue())
    return {"command": "textwin " + " ".join(argv[:3]), "accuracy": result["accuracy"],
            "macro_f1": result["macro_f1"], "seconds": round(time.perf_counter() - t0, 1)}


def linearsvc_defaults(name, data_home):
    train = fetch_reuters_single_label(name, data_home=data_home, subset="train")
    test = fetch_reuters_single_label(name, data_home=data_home, subset="test")
    t0 = time.perf_counter()
    pipe = make_pipeline(TfidfVectorizer(), LinearSVC()).fit(train.data, train.target)
    pred = pipe.predict(test.data)
    return {"command": "make_pipeline(TfidfVectorizer(), LinearSVC())",
            "accuracy": round(100 * accuracy_score(test.target, pred), 4),
            "macro_f1": round(100 * f1_score(test.target, pred, average="macro"), 4),
            "seconds": round(time.perf_counter() - t0, 1)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-home", default=None, help="folder holding reuters21578/")
    parser.add_argument("--json", metavar="PATH", default=None, action=JsonPath,
                        help="also write the results as JSON to PATH ('-': the JSON alone "
                             "on stdout, the table on stderr)")
    add_smoke_arg(parser)
    args = parser.parse_args(argv)
    info = print_machine()
    rows = []
    for name in ("r8",) if args.smoke else ("r8", "r52"):
        ours, peer = textwin_defaults(name, args.data_home), linearsvc_defaults(name,
                                                                              args.data_home)
        rows.append({"corpus": name.upper(), "textwin": ours, "linearsvc": peer,
                     "accuracy_difference": round(ours["accuracy"] - peer["accuracy"], 2)})
    print(f"{'corpus':<8}{'textwin acc':>12}{'macro-F1':>10}{'LinearSVC acc':>15}"
          f"{'macro-F1':>10}{'difference':>12}")
    for r in rows:
        print(f"{r['corpus']:<8}{r['textwin']['accuracy']:12.1f}{r['textwin']['macro_f1']:10.1f}"
              f"{r['linearsvc']['accuracy']:15.1f}{r['linearsvc']['macro_f1']:10.1f}"
              f"{r['accuracy_difference']:+12.1f}")
    emit_json(args.json, {"machine": info, "results": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
