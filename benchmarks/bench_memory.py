"""Peak memory of 1 and 100 categories at once vs CSR + O(n + d); peer: OvR(LinearSVC).

A synthetic multi-label problem (``_common.zipf_corpus`` rows, ``--n``
documents over ``--d`` words, 100 label columns with about 5 % positives
each) is written once to a temporary folder as raw ``.npy`` arrays. Each
measurement then runs in a fresh Python process that loads the arrays,
imports everything, and only then fits:

* textwin: ``DualSVM(lam=1e-3, max_epochs=3)`` (hinge, square regularizer;
  memory does not depend on the number of epochs) with ``n_jobs=1`` and
  ``n_jobs=2`` (two problems in flight at once);
* peer: ``OneVsRestClassifier(LinearSVC(loss="hinge", max_iter=3))``
  (liblinear copies the matrix into its own row format for every binary
  problem).

Two figures per fit, both as the increase over the state just before
``fit`` (data loaded, modules imported):

* ``peak_rss``: the kernel's peak resident set size during the fit
  (``VmHWM`` of ``/proc/self/status`` after resetting it by writing 5 to
  ``/proc/self/clear_refs``; where that is not possible, ``ru_maxrss`` of
  ``resource.getrusage``, which then also counts the loading);
* ``peak_traced``: the peak of ``tracemalloc`` (every numpy array and Python
  object; not liblinear's C ``malloc``).

The goal: peak memory at most the CSR matrix plus O(n + d) per
category, i.e. no copy of the matrix per category. The report gives the
bytes per extra category, ``(peak(100) - peak(1)) / 99``, beside
``8 (n + d)``: one float64 per example (the dual variables) and per feature
(the weights); the fitted ``coef_`` (100 x d) and ``dual_coef_`` (100 x n)
alone are 8 (n + d) per category, so that is the floor.

Run from the repository root:

    python benchmarks/bench_memory.py [--n 20000] [--d 50000] [--repeats 3] [--json out.json]
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import (add_common_args, emit_json, load_average, print_machine,  # noqa: E402
                     reset_peak_rss, status_kib, zipf_corpus)

N_LABELS = 100


def child(folder, side, labels, n_jobs):
    """Runs in a fresh process: load, import, fit, print one JSON line."""
    import tracemalloc

    import scipy.sparse as sp

    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.svm import LinearSVC

    from textwin.linear import DualSVM

    arrays = {k: np.load(os.path.join(folder, k + ".npy"))
              for k in ("data", "indices", "indptr", "shape", "Y")}
    X = sp.csr_matrix((arrays["data"], arrays["indices"], arrays["indptr"]),
                      shape=tuple(arrays["shape"]))
    Y = arrays["Y"][:, :labels]
    if labels == 1:
        Y = Y[:, 0]
    if side == "textwin":
        est = DualSVM(lam=1e-3, max_epochs=3, n_jobs=n_jobs)
    else:
        est = OneVsRestClassifier(LinearSVC(C=1 / (1e-3 * X.shape[0]), loss="hinge", dual=True,
                                            max_iter=3, random_state=0), n_jobs=n_jobs)
    exact = reset_peak_rss()
    rss0 = status_kib("VmRSS")
    maxrss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, Y)
    _, traced = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    if exact:
        peak = (status_kib("VmHWM") - rss0) * 1024
    else:
        peak = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - maxrss0) * 1024
    print(json.dumps({"peak_rss": peak, "peak_traced": traced, "exact_hwm": exact,
                      "rss_before": rss0 * 1024}))


def measure(folder, side, labels, n_jobs):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", folder, side, str(labels),
           str(n_jobs)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"child {side} {labels} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--child":
        folder, side, labels, n_jobs = sys.argv[2:6]
        return child(folder, side, int(labels), int(n_jobs))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000, help="documents (default 20,000)")
    ap.add_argument("--d", type=int, default=50000, help="features (default 50,000)")
    add_common_args(ap)
    args = ap.parse_args(argv)
    if args.smoke:  # a small corpus, 10 labels, one process per case
        global N_LABELS
        args.n, args.d, args.repeats, N_LABELS = 2000, 5000, 1, 10
    info = print_machine()
    X, _ = zipf_corpus(args.n, args.d, mean_nnz=50, seed=3)
    rng = np.random.default_rng(4)
    Y = (rng.random((args.n, N_LABELS)) < 0.05).astype(np.int8)
    Y[0, :] = 1
    Y[1, :] = 0
    csr_bytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    n, d = X.shape
    unit = 8 * (n + d)
    print(f"data: n={n} d={d} nnz={X.nnz}, CSR {csr_bytes / 2**20:.1f} MiB; "
          f"8(n + d) = {unit / 2**20:.2f} MiB; {N_LABELS} labels")

    rows = []
    with tempfile.TemporaryDirectory(prefix="textwin-bench-memory-") as folder:
        for key, arr in (("data", X.data), ("indices", X.indices), ("indptr", X.indptr),
                         ("shape", np.array(X.shape)), ("Y", Y)):
            np.save(os.path.join(folder, key + ".npy"), arr)
        del X
        cases = [("textwin", 1), ("textwin", 2), ("liblinear", 1)]
        for side, jobs in cases:
            res = {}
            for labels in (1, N_LABELS):
                runs = [measure(folder, side, labels, jobs) for _ in range(args.repeats)]
                res[labels] = {k: statistics.median(r[k] for r in runs)
                               for k in ("peak_rss", "peak_traced")}
                res[labels]["exact_hwm"] = runs[0]["exact_hwm"]
            per_cat = {k: (res[N_LABELS][k] - res[1][k]) / (N_LABELS - 1)
                       for k in ("peak_rss", "peak_traced")}
            row = {"side": side, "n_jobs": jobs, "csr_bytes": csr_bytes, "unit_8_n_plus_d": unit,
                   "peak_1": res[1], f"peak_{N_LABELS}": res[N_LABELS],
                   "bytes_per_extra_category": per_cat,
                   "per_category_over_8_n_plus_d": {k: v / unit for k, v in per_cat.items()},
                   "peak_100_over_csr": {k: res[N_LABELS][k] / csr_bytes
                                         for k in ("peak_rss", "peak_traced")}}
            rows.append(row)
            print(f"\n{side} (n_jobs={jobs}), median of {args.repeats} fresh processes "
                  f"(peak increase during fit over the state before it)")
            for k, label in (("peak_rss", "peak RSS (VmHWM)" if res[1]["exact_hwm"]
                              else "peak RSS (ru_maxrss)"),
                             ("peak_traced", "tracemalloc peak")):
                print(f"  {label:22s} 1 label {res[1][k] / 2**20:8.2f} MiB   {N_LABELS} labels "
                      f"{res[N_LABELS][k] / 2**20:8.2f} MiB   per extra label "
                      f"{per_cat[k] / 2**10:8.1f} KiB = {per_cat[k] / unit:.2f} x 8(n + d)"
                      f"   peak({N_LABELS}) / CSR = {res[N_LABELS][k] / csr_bytes:.2f}")
    tw = next(r for r in rows if r["side"] == "textwin" and r["n_jobs"] == 1)
    ll = next(r for r in rows if r["side"] == "liblinear")
    print(f"\nratio liblinear / textwin peak RSS at {N_LABELS} labels: "
          f"{ll[f'peak_{N_LABELS}']['peak_rss'] / tw[f'peak_{N_LABELS}']['peak_rss']:.2f}")
    end_load = load_average()
    info["load_average_end"] = end_load
    print(f"load average at the end: {end_load}")
    emit_json(args.json, {"benchmark": "memory", "machine": info, "n": n, "d": d,
                          "labels": N_LABELS, "rows": rows})


if __name__ == "__main__":
    main()
