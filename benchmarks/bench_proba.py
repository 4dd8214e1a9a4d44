"""Calibrated probabilities against scikit-learn's CalibratedClassifierCV(LinearSVC()).

On one JSON Lines corpus (default AG News small: ``$TEXTWIN_DATA_HOME/corpora/
agnews-small``, its own train/test split), in one run:

* the peer: ``CalibratedClassifierCV(LinearSVC())`` (Platt's sigmoid, 5 folds, the
  folds' calibrated models averaged) on ``TfidfVectorizer()`` of the same texts;
* ``TextClassifier(probability=True)``: the defaults (hinge loss, ``lam = 1/n``, tf-idf
  of stems), Platt's sigmoid on 5-fold out-of-fold scores (``textwin train --proba``);
* ``TextClassifier(loss="logistic")``: the logistic loss's own link, uncalibrated, and
  with ``probability=True``;
* ``TextClassifierCV()`` (``--auto``): calibrated on its own out-of-fold scores
  (``--no-auto`` leaves it out: it is the slow one).

Each row: the test log-loss (the figure ``textwin``'s must keep within 0.02 of the
peer's), the Brier score (the mean squared error of the probability vectors), the
expected calibration error (ECE: every class's probability of every test text in ten
equal-width bins, the gap between a bin's mean probability and how often its class was
the true one, weighted by the bin's size), accuracy, and the fit time as a ratio to the
peer's (one fit each, in the same run: it says the load). ``--figure PATH`` draws the
reliability diagram of the defaults beside the peer's (matplotlib)::

    python benchmarks/bench_proba.py --figure docs/figures/reliability_agnews.png
"""
import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import (
    JsonPath,
    add_smoke_arg,
    emit_json,
    machine_info,
    print_machine,
    smoke_jsonl,
)

#: Bins of the reliability diagram and of the ECE.
BINS = 10


def read_jsonl(path):
    """(texts, labels) of a single-label JSON Lines file ("label" or a one-item "labels")."""
    texts, labels = [], []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            label = row.get("label", (row.get("labels") or [None])[0])
            texts.append(row["text"])
            labels.append(label)
    return texts, np.array(labels)


def reliability(P, y, classes, bins=BINS):
    """Every class's probability of every text against whether it was the true class:
    per bin of equal width, (mean probability, fraction true, count); and the ECE."""
    p = P.ravel()
    hit = (np.asarray(y)[:, None] == np.asarray(classes)[None, :]).ravel()
    which = np.minimum((p * bins).astype(int), bins - 1)
    count = np.bincount(which, minlength=bins)
    mean_p = np.bincount(which, weights=p, minlength=bins) / np.maximum(count, 1)
    frac = np.bincount(which, weights=hit, minlength=bins) / np.maximum(count, 1)
    ece = float(np.sum(count * np.abs(mean_p - frac)) / p.size)
    return {"mean_probability": mean_p.tolist(), "fraction_true": frac.tolist(),
            "count": count.tolist(), "ece": ece}


def figures(P, y, classes, seconds):
    """Log-loss, Brier score, ECE and accuracy of probabilities P (texts x classes)."""
    from sklearn.metrics import log_loss

    Y = (np.asarray(y)[:, None] == np.asarray(classes)[None, :]).astype(float)
    curve = reliability(P, y, classes)
    return {"log_loss": float(log_loss(y, P, labels=classes)),
            "brier": float(np.mean(np.sum((P - Y) ** 2, axis=1))),
            "ece": curve["ece"],
            "accuracy": float(np.mean(np.asarray(classes)[P.argmax(axis=1)] == y)),
            "fit_seconds": seconds, "reliability": curve}


def run(folder, auto=True):
    """Every row's figures on the corpus in ``folder`` (train.jsonl, test.jsonl)."""
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    from textwin import TextClassifier, TextClassifierCV

    texts, y = read_jsonl(os.path.join(folder, "train.jsonl"))
    test, y_test = read_jsonl(os.path.join(folder, "test.jsonl"))
    rows = {
        "scikit-learn CalibratedClassifierCV(LinearSVC())": make_pipeline(
            TfidfVectorizer(), CalibratedClassifierCV(LinearSVC())),
        "textwin TextClassifier(probability=True)": TextClassifier(probability=True),
        "textwin TextClassifier(loss='logistic'), its own link": TextClassifier(loss="logistic"),
        "textwin TextClassifier(loss='logistic', probability=True)": TextClassifier(
            loss="logistic", probability=True),
    }
    if auto:
        rows["textwin TextClassifierCV() (--auto)"] = TextClassifierCV()
    results = {}
    for name, model in rows.items():
        if not isinstance(model, TextClassifierCV):  # warm up (imports, first calls) untimed
            from sklearn.base import clone
            clone(model).fit(texts[:300], y[:300])
        start = time.perf_counter()
        model.fit(texts, y)
        seconds = time.perf_counter() - start
        P = model.predict_proba(test)
        results[name] = figures(P, y_test, model.classes_, seconds)
        # the decision is the model's rule on its scores; the probabilities' argmax may
        # differ (a sigmoid per class)
        results[name]["argmax_differs"] = float(np.mean(
            np.asarray(model.classes_)[P.argmax(axis=1)] != model.predict(test)))
        results[name]["classes"] = [str(c) for c in model.classes_]
        if hasattr(model, "best_params_"):
            results[name]["chosen"] = {k: v for k, v in model.best_params_.items()}
    peer = next(iter(results.values()))
    for r in results.values():
        r["time_ratio"] = r["fit_seconds"] / peer["fit_seconds"]
        r["log_loss_minus_peer"] = r["log_loss"] - peer["log_loss"]
    return {"corpus": folder, "n_train": len(texts), "n_test": len(test), "rows": results}


def plot(result, path, ours="textwin TextClassifier(probability=True)"):
    """The reliability diagrams of ``ours`` and of the peer, side by side."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    peer = next(iter(result["rows"]))
    fig, axes = plt.subplots(1, 2, figsize=(9, 4.4), sharey=True)
    for ax, name in zip(axes, (ours, peer)):
        r = result["rows"][name]
        curve = r["reliability"]
        shown = np.array(curve["count"]) > 0
        x, frac = np.array(curve["mean_probability"]), np.array(curve["fraction_true"])
        ax.plot([0, 1], [0, 1], color="0.6", linestyle="--", linewidth=1, label="perfect")
        ax.plot(x[shown], frac[shown], marker="o", color="C0", label="observed")
        share = np.array(curve["count"]) / sum(curve["count"])
        ax.bar((np.arange(BINS) + 0.5) / BINS, share, width=1 / BINS, color="C1", alpha=0.3,
               label="share of probabilities")
        title = name.replace("textwin ", "textwin\n").replace("scikit-learn ", "scikit-learn\n")
        ax.set_title(f"{title}\nlog-loss {r['log_loss']:.3f}, ECE {r['ece']:.3f}", fontsize=9)
        ax.set_xlabel("predicted probability (every class of every test text)")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
    axes[0].set_ylabel("fraction of them that were the true class")
    axes[0].legend(loc="upper left", fontsize=8)
    fig.suptitle(f"Reliability on {os.path.basename(os.path.normpath(result['corpus']))} "
                 f"({result['n_test']} test texts)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    home = os.environ.get("TEXTWIN_DATA_HOME") or os.path.expanduser("~/textwin_data")
    ap.add_argument("--corpus", default=os.path.join(home, "corpora", "agnews-small"),
                    help="a folder with train.jsonl and test.jsonl, one label per text "
                         "(default: $TEXTWIN_DATA_HOME/corpora/agnews-small)")
    ap.add_argument("--no-auto", action="store_true", help="leave out TextClassifierCV")
    ap.add_argument("--figure", metavar="PATH", default=None,
                    help="draw the reliability diagrams of the defaults and the peer (PNG)")
    ap.add_argument("--json", metavar="PATH", default=None, action=JsonPath,
                    help="also write the results as JSON to PATH ('-': stdout)")
    add_smoke_arg(ap)
    args = ap.parse_args(argv)
    for part in ("train.jsonl", "test.jsonl"):
        if not os.path.isfile(os.path.join(args.corpus, part)):
            raise SystemExit(f"error: {os.path.join(args.corpus, part)} is missing: give "
                             "--corpus, a folder with train.jsonl and test.jsonl")
    info = print_machine(machine_info())
    with tempfile.TemporaryDirectory(prefix="bench_proba") as tmp:
        folder = smoke_jsonl(args.corpus, tmp) if args.smoke else args.corpus
        result = run(folder, auto=not (args.no_auto or args.smoke))
    result["corpus"] = args.corpus
    result["machine"] = info
    print(f"{result['n_train']} training and {result['n_test']} test texts of {args.corpus}")
    print(f"{'':58}{'log-loss':>9}{'- peer':>8}{'Brier':>8}{'ECE':>7}{'acc':>7}{'time':>7}"
          f"{'differ':>8}")
    for name, r in result["rows"].items():
        print(f"{name:58}{r['log_loss']:9.4f}{r['log_loss_minus_peer']:+8.4f}{r['brier']:8.4f}"
              f"{r['ece']:7.4f}{100 * r['accuracy']:7.1f}{r['time_ratio']:6.2f}x"
              f"{100 * r['argmax_differs']:7.2f}%")
    print("time: the fit's, as a ratio to the peer's in this run (load above); differ: the "
          "test texts whose likeliest class is not the one predict gives")
    if args.figure:
        plot(result, args.figure)
        print(f"figure: {args.figure}")
    emit_json(args.json, result)


if __name__ == "__main__":
    main()
