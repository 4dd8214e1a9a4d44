"""Training time against nonzeros (10^5 to 10^7) and the memory limit; peer: liblinear.

Synthetic text-like corpora (``_common.zipf_corpus``: Zipf word frequencies
over ``d = 50,000`` words, about 50 words per document, tf-idf-like values,
rows of unit length); the number of documents grows so that the nonzeros run
from 10^5 to 10^7. On each corpus, one binary problem (hinge loss, square
regularizer, ``lam = 1e-4``), single thread:

* textwin: ``dual_gauss_seidel`` for a fixed ``--epochs`` (``tol=0``, no
  shrinking, so that every epoch visits every example: the cost of the
  epochs themselves);
* peer: liblinear (``LinearSVC(loss="hinge", dual=True, fit_intercept=False,
  C=1/(lam n))``) for the same number of outer iterations
  (``max_iter=epochs, tol=1e-12``; liblinear shrinks, so its later
  iterations may visit fewer examples);
* also textwin's time to a relative duality gap of 1e-3 (defaults:
  shrinking on), the quantity a user waits for.

Both solvers run in the calling thread, so the default clock is that
thread's CPU time (``time.thread_time``), which other processes on a busy
machine do not inflate (``--clock wall`` for elapsed time).

It fits ``log t = a + slope log nnz`` (least squares) for each column and
reports the slope (target ~1: linear in the nonzeros), the nonzeros touched
per second (an epoch reads every nonzero once for the margins and once
more for each update), and compares that rate with the machine's memory
bandwidth measured in the same run (``_common.memory_bandwidth``: numpy copy
and sum of a 256 MiB array, best of 5): streaming the CSR matrix costs 12
bytes per nonzero (8-byte value plus 4-byte column index), so the bandwidth
allows ``sum_GBps / 12`` billion nonzeros per second per pass.

With ``--shuffle-block B`` (default 64; 0 to skip) it also times textwin with
the examples visited in blocks of ``B`` consecutive rows (blocks in a random
order, rows in a random order inside each block; the kernel's
``shuffle_block``), per epoch and to a gap of 1e-3: the cost of the random
order's cache misses against what the coarser randomness costs in epochs.

Writes the log-log plot to ``docs/figures/scaling.png`` (``--plot`` to change).

Run from the repository root:

    python benchmarks/bench_scale.py [--epochs 10] [--repeats 3] [--max-nnz 1e7] [--json out.json]
"""
import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import (add_common_args, emit_json, interleaved_times, kernel_fit,  # noqa: E402
                     load_average, memory_bandwidth, print_machine, zipf_corpus)

BYTES_PER_NONZERO = 12  # float64 value + int32 column index
LAM = 1e-4


def liblinear(X, y, epochs):
    from sklearn.svm import LinearSVC

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning: the budget is the point
        return LinearSVC(loss="hinge", dual=True, fit_intercept=False, C=1 / (LAM * X.shape[0]),
                         tol=1e-12, max_iter=epochs, random_state=0).fit(X, y)


def fit_slope(nnz, seconds):
    slope, intercept = np.polyfit(np.log(nnz), np.log(seconds), 1)
    return float(slope), float(intercept)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=10,
                    help="epochs (liblinear: outer iterations) per timed fit (default 10)")
    ap.add_argument("--min-nnz", type=float, default=1e5,
                    help="nonzeros of the smallest corpus (default 1e5)")
    ap.add_argument("--max-nnz", type=float, default=1e7,
                    help="nonzeros of the largest corpus (default 1e7)")
    ap.add_argument("--points", type=int, default=5, help="sizes, log-spaced (default 5)")
    ap.add_argument("--d", type=int, default=50000, help="vocabulary size (default 50,000)")
    ap.add_argument("--mean-nnz", type=int, default=50, help="words per document (default 50)")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                    help="cpu: CPU time of the calling thread, where both solvers run "
                         "(default; robust on a busy machine); wall: elapsed time")
    ap.add_argument("--shuffle-block", type=int, default=64,
                    help="also time block order with blocks of this many rows (default 64; 0: skip)")
    ap.add_argument("--plot", metavar="PNG", default=None,
                    help="draw the curves to this file (docs/figures/scaling.png is the "
                         "documented one; default: no plot)")
    add_common_args(ap)
    args = ap.parse_args(argv)
    if args.smoke:  # two small corpora, two epochs
        args.min_nnz, args.max_nnz, args.points, args.epochs, args.repeats = 1e4, 1e5, 2, 2, 1
    info = print_machine()
    bw = memory_bandwidth(16 * 2 ** 20, 1) if args.smoke else memory_bandwidth()
    print(f"memory bandwidth (numpy, one thread, 256 MiB float64): copy {bw['copy_GBps']:.1f} GB/s,"
          f" sum (read) {bw['sum_GBps']:.1f} GB/s -> at most "
          f"{bw['sum_GBps'] / BYTES_PER_NONZERO:.2f} x 1e9 nonzeros/s streamed from memory")

    timer = time.thread_time if args.clock == "cpu" else time.perf_counter
    targets = np.logspace(np.log10(args.min_nnz), np.log10(args.max_nnz), args.points)
    # repeated words merge, so a document has fewer than mean_nnz nonzeros:
    # calibrate the nonzeros per document on a small corpus, and warm both
    # solvers up (imports, first-call costs) outside the timings
    Xc, yc = zipf_corpus(4000, args.d, mean_nnz=args.mean_nnz, seed=2)
    per_doc = Xc.nnz / Xc.shape[0]
    kernel_fit(Xc, yc, lam=LAM, max_epochs=2)
    liblinear(Xc, yc, 2)
    rows = []
    print(f"\n{'nnz':>10s} {'n':>8s} {'textwin s':>10s} {'liblinear s':>11s} {'ratio':>6s} "
          f"{'tw ns/nnz/ep':>12s} {'tw to 1e-3 s':>12s} {'epochs':>6s}"
          + (f" {'block ns/nnz/ep':>15s} {'block to 1e-3 s':>15s} {'epochs':>6s}"
             if args.shuffle_block > 1 else ""))
    for target in targets:
        n = max(int(round(target / per_doc)), 100)
        X, y = zipf_corpus(n, args.d, mean_nnz=args.mean_nnz, seed=1)
        tw, ll, conv = interleaved_times([
            lambda: kernel_fit(X, y, lam=LAM, tol=0.0, max_epochs=args.epochs, shrinking=False),
            lambda: liblinear(X, y, args.epochs),
            lambda: kernel_fit(X, y, lam=LAM, tol=1e-3, max_epochs=10000),
        ], args.repeats, timer=timer)
        # one 0-epoch call: validation + rebuild + one gap pass, not epochs
        zero = interleaved_times([lambda: kernel_fit(X, y, lam=LAM, tol=0.0, max_epochs=0)],
                                 args.repeats, timer=timer)[0]
        per_epoch = max(tw["median"] - zero["median"], 1e-12) / args.epochs
        if args.shuffle_block > 1:
            B = args.shuffle_block
            blk, blk_conv = interleaved_times([
                lambda: kernel_fit(X, y, lam=LAM, tol=0.0, max_epochs=args.epochs,
                                   shrinking=False, shuffle_block=B),
                lambda: kernel_fit(X, y, lam=LAM, tol=1e-3, max_epochs=10000, shuffle_block=B),
            ], args.repeats, timer=timer)
        row = {"n": n, "d": args.d, "nnz": int(X.nnz), "textwin_seconds": tw["median"],
               "liblinear_seconds": ll["median"], "ratio": tw["median"] / ll["median"],
               "textwin_zero_epoch_seconds": zero["median"],
               "textwin_seconds_per_epoch": per_epoch,
               "textwin_ns_per_nonzero_epoch": 1e9 * per_epoch / X.nnz,
               "textwin_nonzeros_per_second": X.nnz / per_epoch,
               "textwin_to_1e-3_seconds": conv["median"],
               "textwin_to_1e-3_epochs": int(conv["result"]["n_epochs"]),
               "textwin_to_1e-3_gap": float(conv["result"]["gap"])}
        extra = ""
        if args.shuffle_block > 1:
            blk_epoch = max(blk["median"] - zero["median"], 1e-12) / args.epochs
            row.update({"block_rows": B, "block_seconds_per_epoch": blk_epoch,
                        "block_ns_per_nonzero_epoch": 1e9 * blk_epoch / X.nnz,
                        "block_to_1e-3_seconds": blk_conv["median"],
                        "block_to_1e-3_epochs": int(blk_conv["result"]["n_epochs"])})
            extra = (f" {row['block_ns_per_nonzero_epoch']:15.2f} {blk_conv['median']:15.4f} "
                     f"{row['block_to_1e-3_epochs']:6d}")
        rows.append(row)
        print(f"{X.nnz:10d} {n:8d} {tw['median']:10.4f} {ll['median']:11.4f} {row['ratio']:6.2f} "
              f"{row['textwin_ns_per_nonzero_epoch']:12.2f} {conv['median']:12.4f} "
              f"{row['textwin_to_1e-3_epochs']:6d}{extra}")
        del X, y

    nnz = np.array([r["nnz"] for r in rows], dtype=float)
    slopes = {}
    keys = ["textwin_seconds", "liblinear_seconds", "textwin_seconds_per_epoch",
            "textwin_to_1e-3_seconds"]
    if args.shuffle_block > 1:
        keys += ["block_seconds_per_epoch", "block_to_1e-3_seconds"]
    for key in keys:
        slopes[key] = fit_slope(nnz, np.array([r[key] for r in rows]))[0]
    print("\nlog-log slopes (target ~1):")
    for key, s in slopes.items():
        print(f"  {key:28s} {s:.3f}")
    rate = np.median([r["textwin_nonzeros_per_second"] for r in rows[-2:]])
    limit = bw["sum_GBps"] * 1e9 / BYTES_PER_NONZERO
    print(f"textwin at the two largest sizes: {rate / 1e9:.3f} x 1e9 nonzeros per second per "
          f"epoch, {100 * rate / limit:.0f} % of the {limit / 1e9:.2f} x 1e9 per second that "
          f"streaming 12 bytes per nonzero at {bw['sum_GBps']:.1f} GB/s allows")

    plot_path = None
    try:
        if args.plot is None:
            raise ImportError  # no plot asked for
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6.4, 4.4))
        for key, label, style in (
                ("textwin_seconds", f"textwin, {args.epochs} epochs", "o-"),
                ("liblinear_seconds", f"liblinear, {args.epochs} iterations", "s-"),
                ("textwin_to_1e-3_seconds", "textwin to relative gap 1e-3", "^--")):
            t = np.array([r[key] for r in rows])
            ax.loglog(nnz, t, style, label=f"{label} (slope {slopes[key]:.2f})")
        ref = np.array([rows[0]["textwin_seconds"] * x / nnz[0] for x in nnz])
        ax.loglog(nnz, ref, ":", color="gray", label="slope 1")
        ax.set_xlabel("nonzeros of the training matrix")
        ax.set_ylabel(f"training time, {args.clock} s (median of {args.repeats})")
        ax.set_title(f"Zipf corpora, d={args.d}, hinge + square, lam={LAM:g}, 1 thread",
                     fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        os.makedirs(os.path.dirname(args.plot), exist_ok=True)
        tmp = args.plot + ".tmp.png"
        fig.savefig(tmp, dpi=110)
        os.replace(tmp, args.plot)
        plot_path = args.plot
        print(f"plot: {plot_path}")
    except ImportError:
        if args.plot is not None:
            print("matplotlib missing: no plot")

    end_load = load_average()
    print(f"load average at the end: {end_load}")
    info["load_average_end"] = end_load
    emit_json(args.json, {"benchmark": "scale", "machine": info, "memory_bandwidth": bw,
                          "epochs": args.epochs, "lam": LAM, "clock": args.clock, "rows": rows, "slopes": slopes,
                          "nonzeros_per_second": rate, "bandwidth_limit_nonzeros_per_second": limit,
                          "plot": plot_path})


if __name__ == "__main__":
    main()
