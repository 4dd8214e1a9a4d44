"""Per-category thresholds tuned on out-of-fold scores: what a category rarer than the folds
should keep.

On Reuters-21578's ModApte split (the 90 categories with a training and a test document),
``TunedThresholdsClassifierCV(DualSVM(lam=1/n, fit_intercept=True), cv=5)`` over tf-idf of
stems scores every training document out of fold, once per objective. Its thresholds are
compared, on the same out-of-fold scores, under the two policies for a category with fewer
training positives than folds (some fold trained without any):

* ``floor``: it keeps 0, its model's own decision (the searches', ``train
  --tune-thresholds``' and now ``TunedThresholdsClassifierCV``'s one policy);
* ``tuned``: it is tuned like the others (``TunedThresholdsClassifierCV``'s former one).

Reported: the test set's micro- and macro-F1 (percent) under each policy, and the rare
categories' false positives on the test set. One thread.

    python benchmarks/bench_rare_thresholds.py [--objectives f1 breakeven] [--json PATH]
"""
import argparse
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import JsonPath, add_smoke_arg, emit_json, machine_info, print_machine  # noqa: E402

FOLDS = 5


def reuters90(smoke):
    """Training and test texts and indicators of the categories with a document in both."""
    from textwin.datasets import fetch_reuters21578

    train = fetch_reuters21578(subset="train", download_if_missing=False)
    test = fetch_reuters21578(subset="test", download_if_missing=False)
    Y_train, Y_test = (np.asarray(b.target.toarray() if hasattr(b.target, "toarray")
                                  else b.target) for b in (train, test))
    if smoke:
        n, m = 600, 300
        texts_train, Y_train, texts_test, Y_test = (train.data[:n], Y_train[:n],
                                                    test.data[:m], Y_test[:m])
    else:
        texts_train, texts_test = train.data, test.data
    keep = (Y_train.sum(axis=0) > 0) & (Y_test.sum(axis=0) > 0)
    names = [c for c, k in zip(train.target_names, keep) if k]
    return texts_train, Y_train[:, keep], texts_test, Y_test[:, keep], names


def run(objectives, smoke=False):
    from textwin import DualSVM, TunedThresholdsClassifierCV
    from textwin.metrics import THRESHOLD_TUNERS, precision_recall_f1
    from textwin.text import TextVectorizer

    texts_train, Y_train, texts_test, Y_test, names = reuters90(smoke)
    vec = TextVectorizer()
    X_train, X_test = vec.fit_transform(texts_train), None
    X_test = vec.transform(texts_test)
    n = X_train.shape[0]
    positives = Y_train.sum(axis=0)
    rare = positives < FOLDS
    result = {"corpus": "reuters21578 ModApte", "n_train": n, "n_test": X_test.shape[0],
              "categories": len(names), "folds": FOLDS,
              "rare": {c: int(p) for c, p, r in zip(names, positives, rare) if r},
              "objectives": {}}
    for objective in objectives:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # rare categories' folds: constant models
            tuned = TunedThresholdsClassifierCV(
                DualSVM(lam=1.0 / n, fit_intercept=True, random_state=0),
                objective=objective, cv=FOLDS).fit(X_train, Y_train)
        scores = tuned.estimator_.decision_function(X_test)
        floor = tuned.thresholds_
        unfloored = np.asarray(THRESHOLD_TUNERS[objective](Y_train != 0, tuned.oof_scores_),
                               dtype=np.float64)
        rows = {}
        for policy, t in (("floor", floor), ("tuned", unfloored)):
            prf = precision_recall_f1(Y_test, Y_score=scores, threshold=t, zero_division=0.0)
            fp = ((scores > t) & (Y_test == 0))[:, rare].sum()
            rows[policy] = {"micro_f1": 100 * prf.micro_f1, "macro_f1": 100 * prf.macro_f1,
                            "rare_false_positives": int(fp)}
        result["objectives"][objective] = rows
    return result


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--objectives", nargs="+", default=["f1", "breakeven"],
                    choices=["f1", "breakeven", "accuracy"])
    ap.add_argument("--json", metavar="PATH", default=None, action=JsonPath,
                    help="also write the results as JSON to PATH ('-': stdout)")
    add_smoke_arg(ap)
    args = ap.parse_args(argv)
    info = print_machine(machine_info())
    result = run(args.objectives, smoke=args.smoke)
    result["machine"] = info
    print(f"{result['n_train']} training and {result['n_test']} test documents, "
          f"{result['categories']} categories; {len(result['rare'])} with fewer training "
          f"positives than the {FOLDS} folds: "
          + ", ".join(f"{c} ({p})" for c, p in result["rare"].items()))
    print(f"{'objective':11}{'policy':8}{'micro-F1':>10}{'macro-F1':>10}{'rare FP':>9}")
    for objective, rows in result["objectives"].items():
        for policy, r in rows.items():
            print(f"{objective:11}{policy:8}{r['micro_f1']:10.2f}{r['macro_f1']:10.2f}"
                  f"{r['rare_false_positives']:9d}")
    print("floor: a category rarer than the folds keeps threshold 0 (textwin's policy); "
          "tuned: it is tuned on its out-of-fold scores too; rare FP: their false positives "
          "on the test set")
    emit_json(args.json, result)


if __name__ == "__main__":
    main()
