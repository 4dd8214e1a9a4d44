"""Cost of one epoch of dual Gauss-Seidel per regularizer, against the square one.

For each loss (hinge, squared hinge) and each regularizer (square, entropy,
normalized, balanced, balanced normalized entropy) it times
``dual_gauss_seidel`` for a fixed number of epochs, on

* Reuters-21578 ModApte training, the 1,000 binary information-gain features
  (the paper's features), and
* the same documents on every stemmed word, tf-idf (rows of unit length),

over the ten categories. ``tol=0`` so that no run stops early, shrinking off
so that every epoch visits every example (both regularizers do the same
amount of work per epoch), the examples in a fresh random order per epoch.

Time per epoch = (t(E epochs) - t(0 epochs)) / E: the 0-epoch call does the
validation, the rebuild of v and one exact gap pass, which the E-epoch call
also does once; what is left is E epochs, each with its cheap gap estimate
(O(n + d), and one more exact gap pass every 50 epochs). Every regularizer's
runs are interleaved with the square one's; the clock is by default the CPU
time of the thread that runs the kernel (``time.thread_time``), which other
processes on a busy machine do not inflate (``--clock wall`` for elapsed
time).

With the hinge loss an example whose dual variable sits at a bound with the
gradient pointing out is skipped (liblinear's rule) and costs only its
margin; so a regularizer whose solution has more such examples does fewer
updates per epoch and can come out *cheaper* than the square one. The
squared hinge updates nearly every example: its ratios are the price per
update.

The reference is textwin's own square-regularized kernel on the same problem
(liblinear has no entropy regularizer): the ratio entropy / square is the
price of the entropy rows. Target (issue #5): <= 1.5. The peer row is
liblinear's seconds per outer iteration on the square-regularized problem
(same loss, ``C = 1/(lam n)``, no intercept; see
``liblinear_epoch_seconds``), to place textwin's square kernel; liblinear
always shrinks, so it is compared with textwin's square kernel with its
shrinking on (the row "square, shrinking").

Run from the repository root (corpus under TEXTWIN_DATA_HOME):

    python benchmarks/bench_epoch_cost.py [--epochs 10] [--repeats 3] [--json out.json]
"""
import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import (add_common_args, emit_json, interleaved_times, kernel_fit,  # noqa: E402
                     load_average, print_machine, reuters_binary_ig, reuters_tfidf)

LOSSES = ("hinge", "squared_hinge")
REGULARIZERS = ("square", "entropy", "normalized_entropy", "balanced_entropy",
                "balanced_normalized_entropy")
TARGET = 1.5


def epoch_seconds(X, Ys, loss, regularizers, lam, epochs, repeats, timer):
    """Median seconds per epoch of each regularizer, summed over the label columns of Ys.

    The runs of every regularizer (E epochs and 0 epochs) are interleaved, so
    that the ratios to the square regularizer share the machine's noise.
    """
    def run(reg, E):
        def go():
            for k in range(Ys.shape[1]):
                y = np.where(Ys[:, k] > 0, 1.0, -1.0)
                kernel_fit(X, y, loss=loss, regularizer=reg, lam=lam, tol=0.0,
                           max_epochs=E, shrinking=False, seed=k)
        return go

    fns = [run(reg, E) for reg in regularizers for E in (epochs, 0)]
    res = interleaved_times(fns, repeats, timer=timer)
    out = {}
    for r, reg in enumerate(regularizers):
        full, zero = res[2 * r], res[2 * r + 1]
        out[reg] = (max(full["median"] - zero["median"], 0.0) / epochs, full, zero)
    return out


def _square_shrinking(X, Ys, loss, lam, epochs):
    def go():
        for k in range(Ys.shape[1]):
            y = np.where(Ys[:, k] > 0, 1.0, -1.0)
            kernel_fit(X, y, loss=loss, regularizer="square", lam=lam, tol=0.0,
                       max_epochs=epochs, shrinking=True, seed=k)
    return go


def liblinear_epoch_seconds(X, Ys, loss, lam, epochs, repeats, timer):
    """liblinear's seconds per outer iteration, summed over the label columns of Ys.

    ``LinearSVC(dual=True, fit_intercept=False, C=1/(lam n), tol=1e-12)`` with
    ``max_iter=epochs + 1`` minus ``max_iter=1``, over ``epochs``: its setup
    (a copy of the matrix into liblinear's row format) and first iteration
    cancel. liblinear always shrinks, so its later iterations may visit fewer
    examples than textwin's (whose runs here do not shrink).
    """
    from sklearn.svm import LinearSVC

    def run(iters):
        def go():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # ConvergenceWarning: the budget is the point
                for k in range(Ys.shape[1]):
                    y = np.where(Ys[:, k] > 0, 1.0, -1.0)
                    LinearSVC(loss=loss, dual=True, fit_intercept=False,
                              C=1 / (lam * X.shape[0]), tol=1e-12, max_iter=iters,
                              random_state=k).fit(X, y)
        return go

    full, one = interleaved_times([run(epochs + 1), run(1)], repeats, timer=timer)
    return max(full["median"] - one["median"], 0.0) / epochs, full, one


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=10, help="epochs per timed run (default 10)")
    ap.add_argument("--lam", type=float, default=1e-3, help="lam of every run (default 1e-3)")
    ap.add_argument("--categories", type=int, default=10,
                    help="how many of the ten categories (default all ten)")
    ap.add_argument("--data", choices=("both", "binary", "tfidf"), default="both")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                    help="cpu: CPU time of the thread running the kernel (default; robust on a "
                         "busy machine); wall: elapsed time")
    add_common_args(ap)
    args = ap.parse_args(argv)
    info = print_machine()

    sets = []
    if args.data in ("both", "binary"):
        X, Y, cats, _ = reuters_binary_ig()
        sets.append(("reuters-1000-binary", X, Y[:, :args.categories]))
    if args.data in ("both", "tfidf"):
        X, Y, cats = reuters_tfidf()
        sets.append(("reuters-allwords-tfidf", X, Y[:, :args.categories]))

    rows = []
    for name, X, Ys in sets:
        print(f"\n{name}: n={X.shape[0]} d={X.shape[1]} nnz={X.nnz}, {Ys.shape[1]} categories, "
              f"{args.epochs} epochs, lam={args.lam:g}, median of {args.repeats}, {args.clock} clock")
        print(f"  {'loss':14s} {'regularizer':28s} {'ms/epoch':>9s} {'ns/nnz':>7s} "
              f"{'ratio to square':>15s}")
        timer = time.thread_time if args.clock == "cpu" else time.perf_counter
        for loss in LOSSES:
            per_reg = epoch_seconds(X, Ys, loss, REGULARIZERS, args.lam, args.epochs,
                                    args.repeats, timer)
            base = per_reg["square"][0]

            def report(label, reg, side, sec, times, note=""):
                """Print one line, keep its JSON row; sec is summed over the categories."""
                ns = 1e9 * sec / (X.nnz * Ys.shape[1])
                print(f"  {loss:14s} {label:28s} {1e3 * sec / Ys.shape[1]:9.3f} {ns:7.2f} "
                      f"{sec / base:15.2f}{note}")
                rows.append({"data": name, "n": X.shape[0], "d": X.shape[1], "nnz": X.nnz,
                             "categories": Ys.shape[1], "loss": loss, "regularizer": reg,
                             "side": side, "clock": args.clock,
                             "seconds_per_epoch_per_category": sec / Ys.shape[1],
                             "ns_per_nonzero": ns, "ratio_to_square": sec / base, **times})

            for reg in REGULARIZERS:
                sec, full, zero = per_reg[reg]
                ok = "" if reg == "square" else ("  ok" if sec / base <= TARGET else "  MISS")
                report(reg, reg, "textwin", sec, {"run_seconds": full["times"],
                                                  "zero_epoch_seconds": zero["times"]}, ok)
            # like for like with the peer, which always shrinks: textwin's square
            # kernel with its (liblinear-style) shrinking on
            shr = interleaved_times([_square_shrinking(X, Ys, loss, args.lam, E)
                                     for E in (args.epochs, 0)], args.repeats, timer=timer)
            sec_s = max(shr[0]["median"] - shr[1]["median"], 0.0) / args.epochs
            report("square, shrinking", "square", "textwin-shrinking", sec_s,
                   {"run_seconds": shr[0]["times"], "zero_epoch_seconds": shr[1]["times"]})
            sec, full, one = liblinear_epoch_seconds(X, Ys, loss, args.lam, args.epochs,
                                                     args.repeats, timer)
            report("peer: liblinear (square)", "square", "liblinear", sec,
                   {"run_seconds": full["times"], "one_iteration_seconds": one["times"]},
                   f"  (textwin square, shrinking / liblinear = {sec_s / sec:.2f})")
    worst = max(r["ratio_to_square"] for r in rows if r["side"] == "textwin")
    print(f"\nworst ratio entropy-type / square: {worst:.2f} (target <= {TARGET})")
    info["load_average_end"] = load_average()
    print(f"load average at the end: {info['load_average_end']}")
    emit_json(args.json, {"benchmark": "epoch_cost", "machine": info, "epochs": args.epochs,
                          "clock": args.clock,
                          "lam": args.lam, "target_ratio": TARGET, "rows": rows,
                          "worst_ratio": worst})


if __name__ == "__main__":
    main()
