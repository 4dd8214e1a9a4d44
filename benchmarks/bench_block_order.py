"""Block order against random order: epochs and CPU seconds to a relative gap of 1e-3.

The kernel's ``shuffle_block=B`` visits blocks of ``B`` consecutive rows in a
random block order (rows in a random order inside each block): the rows of a
block lie together in the CSR arrays, so an epoch streams the matrix instead
of starting every row with a cache and TLB miss, but the coarser randomness
can cost epochs. Which wins depends on the size of the matrix (against the
caches), on the number of blocks, and on the row order, since a block of a
corpus sorted by label or by date holds similar rows. This script measures
it so that a rule for choosing ``B`` can be read off.

Corpora (each one matrix, its rows in several orders):

* synthetic, ``--sizes`` nonzeros (default 1e6, 3e6, 1e7): the Zipf corpus
  of ``bench_scale.py`` (``_common.zipf_corpus``, ``d = 50,000``, about 50
  words per document) given a date: each document's vocabulary beyond the
  200 most frequent words is rotated by an amount that grows with its date
  (the hot words drift, one full turn over the corpus), and the labels are
  drawn afresh from the drifted rows as ``zipf_corpus`` draws them (sign of a
  sparse random linear score plus noise, 30 % positives), so the share of
  positives drifts with the date too. Orders: ``random`` (a random
  permutation), ``label`` (positives first, then negatives, each in random
  order) and ``date`` (the generation order: neighbours share vocabulary);
* ``--reuters``: the ModApte training documents, every stemmed word, tf-idf
  (``_common.reuters_tfidf``), in their natural (date) order, the ten
  largest categories one after the other (seconds and epochs summed over
  the ten problems);
* ``--entropy-nnz``: one synthetic size with the normalized entropy
  regularizer (``mu`` = ones, rescaled by the kernel), hinge loss.

For each corpus, order, loss (hinge, squared hinge; square regularizer),
``lam`` (``--lams``, ``C = 1/(lam n)``) and ``B`` in ``1`` (the default, a full
random permutation) and ``--blocks``: one ``dual_gauss_seidel`` call from
``alpha = 0`` to the relative gap ``--tol`` (default 1e-3, shrinking on, as
the estimators call it) within ``--max-epochs``. Repeat ``r`` uses
``seed=r`` for every ``B``, and the ``B`` run in turn inside a repeat so
that they share the machine's noise; the table gives the median epochs and
the median thread CPU seconds (``time.thread_time``: the kernel runs in the
calling thread, and other processes on the machine do not inflate it), and
the ratio of the CPU medians against ``B = 1``. ``*`` marks a run that did not
reach ``--tol`` within ``--max-epochs``.

Finally it applies a candidate rule (``--rule-block``, ``--rule-min-blocks``,
``--rule-min-bytes``): use blocks of ``rule-block`` rows when
``n / rule-block >= rule-min-blocks`` and the CSR matrix (12 bytes per
nonzero + 4 per row) is at least ``rule-min-bytes``, else ``B = 1``, and
prints, for every case where it blocks, its time against ``B = 1``;
``--from-json PATH [PATH ...]`` applies a rule to earlier ``--json`` outputs
without measuring anything.

The module file of the kernel is printed with its modification time and a
hash, and every case with its UTC time: a rebuild of the kernel during the
run would show there.

Run from the repository root:

    python benchmarks/bench_block_order.py [--sizes 1e6 3e6 1e7] [--reuters] [--repeats 3] [--json out.json]
    python benchmarks/bench_block_order.py --from-json out.json --rule-block 4 --rule-min-blocks 30000
"""
import argparse
import hashlib
import json
import os
import statistics
import sys
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import (add_common_args, as_kernel_csr, emit_json, load_average,  # noqa: E402
                     print_machine, reuters_tfidf, zipf_corpus)

from textwin._kernels import _dual_gs  # noqa: E402

L3_BYTES = 32 * 2 ** 20
CORE_WORDS = 200  # the most frequent words (function words) do not drift with the date


def csr_bytes(X):
    """What an epoch streams: 8-byte value + 4-byte index per nonzero, 4-byte row pointer."""
    return 12 * X.nnz + 4 * (X.shape[0] + 1)


def drifting_corpus(n, d, mean_nnz=50, seed=0, positive_rate=0.3):
    """``zipf_corpus`` rows in date order, with a vocabulary that drifts with the date.

    Row ``i`` has the date ``i / n``; its words beyond the ``CORE_WORDS`` most
    frequent are rotated by ``date * (d - CORE_WORDS)`` columns, so that rows
    close in date share their mid-frequency words and rows far apart do not
    (news of one period). Labels as in ``zipf_corpus``, drawn on the drifted
    rows: the share of positives then drifts with the date as well.
    """
    X, _ = zipf_corpus(n, d, mean_nnz=mean_nnz, seed=seed, positive_rate=positive_rate)
    rows = np.repeat(np.arange(n), np.diff(X.indptr))
    cols = X.indices.astype(np.int64)
    span = d - CORE_WORDS
    shift = (rows * span) // n
    drift = cols >= CORE_WORDS
    cols[drift] = CORE_WORDS + (cols[drift] - CORE_WORDS + shift[drift]) % span
    X = as_kernel_csr(sp.csr_matrix((X.data, cols, X.indptr), shape=(n, d)))
    rng = np.random.default_rng(seed + 1000)
    w_true = rng.normal(size=d) * (rng.random(d) < 0.05)
    score = X @ w_true
    score = score + 0.3 * score.std() * rng.normal(size=n)
    y = np.where(score > np.quantile(score, 1.0 - positive_rate), 1.0, -1.0)
    return X, y


def row_order(kind, y, seed=0):
    """The permutation of the rows for one order (the corpus comes in date order)."""
    n = y.size
    if kind == "date":
        return np.arange(n)
    perm = np.random.default_rng(seed + 7).permutation(n)
    if kind == "random":
        return perm
    if kind == "label":
        return perm[np.argsort(-y[perm], kind="stable")]
    raise ValueError(f"unknown order {kind!r}")


def solve(X, y, *, loss, regularizer, lam, tol, max_epochs, seed, block):
    n, d = X.shape
    mu = None if regularizer == "square" else np.ones(d)
    alpha = np.zeros(n)
    t0 = time.thread_time()
    res = _dual_gs.dual_gauss_seidel(
        X.data, X.indices, X.indptr, y, np.ones(n), np.ones(n), alpha, d, loss=loss,
        regularizer=regularizer, lam=lam, mu=mu, tol=tol, max_epochs=max_epochs, seed=seed,
        shuffle_block=block)
    return time.thread_time() - t0, int(res["n_epochs"]), float(res["gap"]), bool(res["converged"])


def measure(problems, blocks, args, regularizer="square"):
    """Every B on a list of binary problems (X, y) on one matrix: seconds and epochs summed
    over the problems, per repeat; medians over the repeats."""
    per = {B: {"seconds": [], "epochs": [], "converged": [], "max_gap": []} for B in blocks}
    for r in range(args.repeats):
        for B in blocks:   # interleaved: the B of one repeat share the machine's noise
            tot_s = tot_ep = 0
            conv, worst = True, 0.0
            for X, y, loss, lam in problems:
                s, ep, gap, ok = solve(X, y, loss=loss, regularizer=regularizer, lam=lam,
                                       tol=args.tol, max_epochs=args.max_epochs, seed=r, block=B)
                tot_s += s
                tot_ep += ep
                conv &= ok
                worst = max(worst, gap)
            per[B]["seconds"].append(tot_s)
            per[B]["epochs"].append(tot_ep)
            per[B]["converged"].append(conv)
            per[B]["max_gap"].append(worst)
    out = {}
    for B in blocks:
        p = per[B]
        out[B] = {"seconds": statistics.median(p["seconds"]), "seconds_all": p["seconds"],
                  "epochs": statistics.median(p["epochs"]), "epochs_all": p["epochs"],
                  "converged": all(p["converged"]), "max_gap": max(p["max_gap"])}
    base = out[1]["seconds"]
    for B in blocks:
        out[B]["ratio"] = out[B]["seconds"] / base
    return out


def rule_block(n, nbytes, args):
    B = args.rule_block
    if n // B >= args.rule_min_blocks and nbytes >= args.rule_min_bytes:
        return B
    return 1


def apply_rule(cases, args):
    """Print what the candidate rule would have chosen on each case, and its time against B=1."""
    print(f"rule: B = {args.rule_block} when n / {args.rule_block} >= {args.rule_min_blocks} "
          f"blocks and CSR >= {args.rule_min_bytes / 2 ** 20:g} MiB, else B = 1")
    chosen = []
    for c in cases:
        B = rule_block(c["n"], c["csr_bytes"], args)
        if str(B) not in c["results"]:
            raise SystemExit(f"B = {B} was not measured on {c['corpus']} (--blocks)")
        c["rule_block"] = B
        c["rule_ratio"] = c["results"][str(B)]["ratio"]
        if B > 1:
            chosen.append(c)
            print(f"  {c['corpus']:>15s} {c['order']:>6s} {c['regularizer'][:4]:>4s} "
                  f"{c['loss']:>13s} lam {c['lam']:5.0e}: {c['n'] // B:6d} blocks, "
                  f"time x {c['rule_ratio']:.2f}")
    if chosen:
        ratios = [c["rule_ratio"] for c in chosen]
        gm = float(np.exp(np.mean(np.log(ratios))))
        print(f"  blocks in {len(chosen)} of {len(cases)} cases; time against B=1 there: "
              f"geometric mean {gm:.2f}, best {min(ratios):.2f}, worst {max(ratios):.2f}")
    else:
        print(f"  blocks in none of the {len(cases)} cases")


def kernel_stamp():
    """The kernels' build: one digest of their extension modules, the newest one's time."""
    folder, name = os.path.split(_dual_gs.__file__)
    suffix = name[len("_dual_gs"):]                      # e.g. .cpython-311-x86_64-linux-gnu.so
    paths = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(suffix))
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as fh:
            digest.update(fh.read())
    newest = max(os.path.getmtime(path) for path in paths)
    mtime = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(newest))
    return {"path": folder, "sha256_12": digest.hexdigest()[:12], "mtime_utc": mtime}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=float, nargs="*", default=[1e6, 3e6, 1e7],
                    help="nonzeros of the synthetic corpora (default 1e6 3e6 1e7)")
    ap.add_argument("--orders", nargs="+", default=["random", "label", "date"],
                    choices=("random", "label", "date"))
    ap.add_argument("--d", type=int, default=50000, help="vocabulary size (default 50,000)")
    ap.add_argument("--mean-nnz", type=int, default=50, help="words per document (default 50)")
    ap.add_argument("--losses", nargs="+", default=["hinge", "squared_hinge"],
                    help="losses of the square-regularized cases (default hinge squared_hinge)")
    ap.add_argument("--lams", type=float, nargs="+", default=[1e-4, 1e-5],
                    help="lam values (default 1e-4 1e-5)")
    ap.add_argument("--blocks", type=int, nargs="+", default=[16, 64, 256],
                    help="block sizes compared with B = 1 (default 16 64 256)")
    ap.add_argument("--tol", type=float, default=1e-3,
                    help="relative duality gap each fit runs to (default 1e-3)")
    ap.add_argument("--max-epochs", type=int, default=500,
                    help="epochs at most per fit (default 500)")
    ap.add_argument("--reuters", action="store_true",
                    help="also Reuters tf-idf, ten categories, date order (needs TEXTWIN_DATA_HOME)")
    ap.add_argument("--entropy-nnz", type=float, default=0,
                    help="nonzeros of one synthetic corpus solved with the normalized entropy "
                         "(hinge, --entropy-lam, orders --orders); 0 skips (default)")
    ap.add_argument("--entropy-lam", type=float, default=1e-4)
    ap.add_argument("--rule-block", type=int, default=4,
                    help="the rule's rows per block (default 4, the estimators' rule)")
    ap.add_argument("--rule-min-blocks", type=int, default=30000,
                    help="the rule blocks when n / rule-block is at least this (default "
                         "30000: the estimators' 120,000 rows at blocks of 4)")
    ap.add_argument("--rule-min-bytes", type=float, default=L3_BYTES,
                    help="CSR bytes from which the rule blocks (default 32 MiB, this L3)")
    ap.add_argument("--from-json", metavar="PATH", nargs="+", default=None,
                    help="measure nothing: apply the rule to the cases of earlier --json outputs")
    add_common_args(ap)
    args = ap.parse_args(argv)
    if args.from_json:
        cases = []
        for path in args.from_json:
            with open(path) as fh:
                cases += json.load(fh)["cases"]
        apply_rule(cases, args)
        return
    if args.smoke:  # corpora of a thousandth the nonzeros, few epochs, one Reuters category
        args.sizes = [min(s / 1000, 3e4) for s in args.sizes]
        args.entropy_nnz = min(args.entropy_nnz / 1000, 3e4)
        args.repeats, args.max_epochs = 1, min(args.max_epochs, 20)
    if args.repeats < 1 or args.max_epochs < 1:
        ap.error("--repeats and --max-epochs must be >= 1")
    if any(B < 2 for B in args.blocks):
        ap.error("--blocks must be >= 2 (B = 1 is always measured)")
    blocks = [1] + sorted(set(args.blocks))
    if args.rule_block not in blocks:
        blocks = sorted(set(blocks) | {args.rule_block})

    info = print_machine()
    stamp = kernel_stamp()
    print(f"kernel: {stamp['path']} (modified {stamp['mtime_utc']}, sha256 {stamp['sha256_12']})")
    print(f"to a relative gap of {args.tol:g}, max {args.max_epochs} epochs, thread CPU s, "
          f"median of {args.repeats} (seed = repeat), ratio = CPU median / CPU median of B=1")

    # warm up imports and first-call costs outside the timings
    Xw, yw = drifting_corpus(2000, args.d, args.mean_nnz, seed=3)
    solve(Xw, yw, loss="hinge", regularizer="square", lam=1e-4, tol=args.tol, max_epochs=2,
          seed=0, block=1)
    per_doc = Xw.nnz / Xw.shape[0]

    head = (f"{'UTC':>8s} {'corpus':>15s} {'order':>6s} {'reg':>4s} {'loss':>6s} {'lam':>5s} "
            f"{'n':>7s} {'nnz':>9s} {'CSR MB':>6s} |"
            + "".join(f" {'B=' + str(B) + ' ep':>9s} {'s':>7s}" + ("" if B == 1 else f" {'ratio':>5s}")
                      for B in blocks))
    print("\n" + head)
    cases = []

    def report(corpus, order, reg, loss, lam, n, nnz, nbytes, res):
        utc = time.strftime("%H:%M:%S", time.gmtime())
        cells = []
        for B in blocks:
            c = res[B]
            mark = "" if c["converged"] else "*"
            cells.append(f" {c['epochs']:8g}{mark:1s} {c['seconds']:7.3f}"
                         + ("" if B == 1 else f" {c['ratio']:5.2f}"))
        short = {"hinge": "hinge", "squared_hinge": "sqhin"}.get(loss, loss)
        print(f"{utc:>8s} {corpus:>15s} {order:>6s} {reg[:4]:>4s} {short:>6s} {lam:5.0e} {n:7d} "
              f"{nnz:9d} {nbytes / 1e6:6.1f} |" + "".join(cells), flush=True)
        cases.append({"utc": utc, "corpus": corpus, "order": order, "regularizer": reg,
                      "loss": loss, "lam": lam, "n": n, "nnz": nnz, "csr_bytes": nbytes,
                      "kernel_mtime_utc": kernel_stamp()["mtime_utc"],
                      "results": {str(B): res[B] for B in blocks}})

    sizes = [(s, "square") for s in args.sizes]
    if args.entropy_nnz > 0:
        sizes.append((args.entropy_nnz, "normalized_entropy"))
    for target, reg in sizes:
        n = max(int(round(target / per_doc)), 100)
        X0, y0 = drifting_corpus(n, args.d, args.mean_nnz, seed=1)
        nbytes = csr_bytes(X0)
        name = f"zipf {X0.nnz / 1e6:.1f}M"
        for order in args.orders:
            perm = row_order(order, y0)
            X, y = as_kernel_csr(X0[perm]), y0[perm]
            if reg == "square":
                combos = [(loss, lam) for loss in args.losses for lam in args.lams]
            else:
                combos = [("hinge", args.entropy_lam)]
            for loss, lam in combos:
                res = measure([(X, y, loss, lam)], blocks, args, regularizer=reg)
                report(name, order, reg, loss, lam, n, X.nnz, nbytes, res)
            del X, y
        del X0, y0

    if args.reuters:
        X, Y, names = reuters_tfidf()
        Y = Y[:, :1] if args.smoke else Y
        nbytes = csr_bytes(X)
        for loss in args.losses:
            for lam in args.lams:
                problems = [(X, np.where(Y[:, k] > 0, 1.0, -1.0), loss, lam)
                            for k in range(Y.shape[1])]
                res = measure(problems, blocks, args)
                report(f"reuters tfidf x{Y.shape[1]}", "date", "square", loss, lam, X.shape[0],
                       X.nnz, nbytes, res)

    print()
    apply_rule(cases, args)
    end_load = load_average()
    end_stamp = kernel_stamp()
    print(f"load average at the end: {end_load}")
    if end_stamp != stamp:
        print(f"WARNING: the kernel file changed during the run (now modified "
              f"{end_stamp['mtime_utc']}, sha256 {end_stamp['sha256_12']})")
    info["load_average_end"] = end_load
    emit_json(args.json, {"benchmark": "block_order", "machine": info, "kernel": stamp,
                          "kernel_end": end_stamp, "args": vars(args), "blocks": blocks,
                          "cases": cases})


if __name__ == "__main__":
    main()
