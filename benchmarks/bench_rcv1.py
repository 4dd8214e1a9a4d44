"""An RCV1-sized one-vs-rest fit and scoring on one machine and on a two-worker LocalCluster.

The corpus is ``_common.rcv1_like_corpus``: by default RCV1's size, 800,000
documents over 47,000 words with about 75 nonzeros per row (tf-idf-like
values, rows of unit length: a 0.7 GB CSR matrix) and 103 categories whose
frequencies fall from 30 % to 0.01 %. Every fit is ``DualSVM(lam=1/n,
random_state=0)`` (hinge loss, square regularizer, no intercept, relative
gap 1e-3: the defaults but ``lam``), one binary problem per category.
Phases (``--phases``, default all of them):

``local``
    textwin's full one-vs-rest fit with ``n_jobs=2`` (two threads over the
    one shared matrix) and its ``decision_function`` over the 800,000
    documents; the peak memory of the fit over the state just before it
    (``VmHWM`` of the process, and the peak of ``tracemalloc``: every numpy
    array), less the fitted ``coef_`` and ``dual_coef_``, against the CSR
    matrix and ``8 (n + d)`` bytes, the size of one problem's dual variables
    and weights.
``peer``
    scikit-learn's ``OneVsRestClassifier(LinearSVC(loss="hinge",
    C=1/(lam n), fit_intercept=False), n_jobs=2)`` (liblinear, joblib's
    worker processes) on the same data: fit and ``decision_function``. The
    ratio textwin / peer of fit + scoring is the headline (target <= 0.5),
    and each category's primal objective ``P(w)`` of both models says that
    both solved the same problems (liblinear stops on its own rule, textwin
    on the relative duality gap).
``sweep``
    textwin's fit time on every 4th and every 2nd category (26 and 52, the
    same mix of frequencies as all 103): seconds per category and the slope
    of log time against log categories (1: linear).
``cluster``
    the same fit and scoring inside ``joblib.parallel_config(backend="dask")``
    on a ``LocalCluster`` of two worker processes with one thread each: wall
    and CPU time, what each worker received of the shared data and how often
    (``textwin._distributed.arrivals``: every unpickled copy, with its
    bytes), the workers' peak memory, and whether ``coef_`` and ``dual_coef_`` are
    bit-identical to the threads' (their SHA-256, compared with the
    ``local`` phase of the same run or of ``--reference`` JSON).
``ray``
    the same inside ``joblib.parallel_config(backend="ray")`` on a local Ray
    of 2 CPUs (``ray.init(num_cpus=2)``): wall time, the CPU seconds of the
    whole machine, the shipments put in the object store (label and bytes of
    each ``ray.put``), the worker processes' peak memory, and the digests.

Each phase prints the load average before and after it (other programs on
the machine slow the figures, not the ratios of a phase run back to back).

Run from the repository root (about an hour on 2 busy cores at full size):

    python benchmarks/bench_rcv1.py [--n 800000] [--phases local,peer,sweep,cluster,ray] [--json out.json]

``--n 20000 --categories 20`` runs every phase in a minute.
"""
import argparse
import hashlib
import json
import os
import sys
import time
import tracemalloc
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import (add_common_args, emit_json, load_average, print_machine,  # noqa: E402
                     rcv1_like_corpus, reset_peak_rss, status_kib)

PHASES = ("local", "peer", "sweep", "cluster", "ray")
TARGET = 0.5
MiB = 2 ** 20


def cpu_seconds(pid):
    """CPU seconds (user + system) a process has used so far (Linux)."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds():
    """CPU seconds of this process's live child processes (joblib's workers)."""
    total = 0.0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rpartition(")")[2].split()[1])
                if ppid == os.getpid():
                    total += cpu_seconds(entry)
            except (OSError, ValueError, IndexError):
                continue
    return total


def digest(*arrays):
    """SHA-256 of the arrays' bytes: equal digests, bit-identical arrays."""
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def primal_objectives(scores, Y, coef, lam):
    """P_k(w) = mean_i max(0, 1 - y_i s_ik) + lam/2 |w_k|^2 for each category k."""
    out = np.empty(Y.shape[1])
    for k in range(Y.shape[1]):
        y = np.where(Y[:, [k]].toarray().ravel() > 0, 1.0, -1.0)
        out[k] = np.maximum(0.0, 1.0 - y * scores[:, k]).mean() + lam / 2 * coef[k] @ coef[k]
    return out


def fitted_bytes(est):
    return sum(getattr(est, a).nbytes for a in ("coef_", "dual_coef_", "intercept_",
                                                 "duality_gap_", "n_iter_"))


def phase_local(X, Y, lam):
    from textwin import DualSVM

    n, d = X.shape
    est = DualSVM(lam=lam, random_state=0, n_jobs=2)
    exact = reset_peak_rss()
    rss0 = status_kib("VmRSS")
    tracemalloc.start()
    t0, c0 = time.perf_counter(), time.process_time()
    est.fit(X, Y)
    fit_s, fit_cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = (status_kib("VmHWM") - rss0) * 1024
    traced = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    t0, c0 = time.perf_counter(), time.process_time()
    scores = est.decision_function(X)
    score_s, score_cpu = time.perf_counter() - t0, time.process_time() - c0
    working = traced - fitted_bytes(est)
    unit = 8 * (n + d)
    print(f"textwin DualSVM n_jobs=2: fit {fit_s:.1f} s, decision_function {score_s:.1f} s, "
          f"total {fit_s + score_s:.1f} s (CPU {fit_cpu + score_cpu:.1f} s); epochs per problem: median "
          f"{np.median(est.n_iter_):.0f}, max {est.n_iter_.max()}")
    print(f"  peak memory of the fit over the state before it: RSS {peak / MiB:.0f} MiB "
          f"({'VmHWM' if exact else 'VmHWM not resettable: an upper bound'}), numpy/Python "
          f"allocations {traced / MiB:.0f} MiB (tracemalloc); of these the fitted coef_ + "
          f"dual_coef_ {fitted_bytes(est) / MiB:.0f} MiB, the rest {working / MiB:.0f} MiB = "
          f"{working / unit:.1f} x 8(n + d) for 2 threads (CSR: {csr_bytes(X) / MiB:.0f} MiB)")
    return est, scores, {"fit_s": fit_s, "score_s": score_s, "total_s": fit_s + score_s,
                         "cpu_s": fit_cpu + score_cpu, "fit_cpu_s": fit_cpu,
                         "peak_rss_bytes": peak, "exact_hwm": exact, "peak_traced_bytes": traced, "fitted_bytes": fitted_bytes(est),
                         "working_bytes": working, "working_over_8_n_plus_d": working / unit,
                         "epochs_median": float(np.median(est.n_iter_)),
                         "epochs_max": int(est.n_iter_.max()),
                         "coef_sha256": digest(est.coef_),
                         "dual_coef_sha256": digest(est.dual_coef_)}


def phase_peer(X, Y, lam):
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.svm import LinearSVC

    n = X.shape[0]
    est = OneVsRestClassifier(LinearSVC(loss="hinge", C=1.0 / (lam * n), fit_intercept=False,
                                        dual=True, random_state=0), n_jobs=2)
    t0, c0 = time.perf_counter(), time.process_time() + children_cpu_seconds()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning: liblinear's own budget
        est.fit(X, Y)
    fit_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    scores = est.decision_function(X)
    score_s = time.perf_counter() - t0
    cpu = time.process_time() + children_cpu_seconds() - c0  # joblib's workers still alive
    coef = np.vstack([e.coef_ for e in est.estimators_])
    print(f"OneVsRestClassifier(LinearSVC(hinge)) n_jobs=2: fit {fit_s:.1f} s, "
          f"decision_function {score_s:.1f} s, total {fit_s + score_s:.1f} s (CPU {cpu:.1f} s, "
          f"its worker processes included)")
    return coef, scores, {"fit_s": fit_s, "score_s": score_s, "total_s": fit_s + score_s,
                          "cpu_s": cpu}


def phase_sweep(X, Y, lam, full_fit_s):
    from textwin import DualSVM

    K = Y.shape[1]
    rows = []
    for step in (4, 2):
        sub = Y[:, ::step]
        t0, c0 = time.perf_counter(), time.process_time()
        DualSVM(lam=lam, random_state=0, n_jobs=2).fit(X, sub)
        rows.append({"categories": sub.shape[1], "fit_s": time.perf_counter() - t0,
                     "cpu_s": time.process_time() - c0})
    if full_fit_s is not None:
        rows.append({"categories": K, "fit_s": full_fit_s[0], "cpu_s": full_fit_s[1]})
    for r in rows:
        r["s_per_category"] = r["fit_s"] / r["categories"]
        print(f"  {r['categories']:4d} categories: fit {r['fit_s']:7.1f} s "
              f"({r['s_per_category']:.2f} s per category), CPU {r['cpu_s']:7.1f} s "
              f"({r['cpu_s'] / r['categories']:.2f} s per category)")
    slope = cpu_slope = None
    if len(rows) >= 2:
        logk = np.log([r["categories"] for r in rows])
        slope = float(np.polyfit(logk, np.log([r["fit_s"] for r in rows]), 1)[0])
        cpu_slope = float(np.polyfit(logk, np.log([r["cpu_s"] for r in rows]), 1)[0])
        print(f"  slope of log time against log categories: {slope:.2f}, of log CPU time "
              f"{cpu_slope:.2f} (1 = linear)")
    return {"rows": rows, "slope": slope, "cpu_slope": cpu_slope}


def fit_and_score(X, Y, lam):
    """DualSVM(lam, random_state=0) fitted on (X, Y), then scoring X: (model, fit s, scoring s)."""
    from textwin import DualSVM

    est = DualSVM(lam=lam, random_state=0)
    t0 = time.perf_counter()
    est.fit(X, Y)
    fit_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    est.decision_function(X)
    return est, fit_s, time.perf_counter() - t0


def compare_digests(est, reference):
    """Are coef_ and dual_coef_ bit-identical to the reference run's (printed when there is one)?"""
    same = {"coef_": digest(est.coef_) == reference.get("coef_sha256"),
            "dual_coef_": digest(est.dual_coef_) == reference.get("dual_coef_sha256")}
    if reference:
        print(f"  bit-identical to the threads' fit: coef_ {same['coef_']}, "
              f"dual_coef_ {same['dual_coef_']}")
    return same


def phase_cluster(X, Y, lam, reference):
    import joblib
    from distributed import Client, LocalCluster

    from textwin._distributed import arrivals

    t0 = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    client = Client(cluster)
    start_s = time.perf_counter() - t0
    try:
        client.run(__import__, "textwin.linear")  # the workers' imports, before the clocks
        pids = client.run(os.getpid)
        cpu0 = sum(cpu_seconds(p) for p in pids.values()) + time.process_time()
        with joblib.parallel_config(backend="dask"):
            est, fit_s, score_s = fit_and_score(X, Y, lam)
        cpu = sum(cpu_seconds(p) for p in pids.values()) + time.process_time() - cpu0
        got = client.run(arrivals)
        peaks = {w: status_kib("VmHWM", p) * 1024 for w, p in pids.items()}
    finally:
        client.close()
        cluster.close()
    shipments = {w: [(label, nbytes) for label, nbytes, _ in a] for w, a in got.items()}
    results_bytes = est.coef_.nbytes + est.dual_coef_.nbytes
    print(f"LocalCluster, 2 worker processes x 1 thread (started in {start_s:.1f} s): "
          f"fit {fit_s:.1f} s, decision_function {score_s:.1f} s, total {fit_s + score_s:.1f} s "
          f"(CPU {cpu:.1f} s: workers and client)")
    print(f"  back to the client: coef_ + dual_coef_, {results_bytes / MiB:.0f} MiB")
    for w, a in shipments.items():
        print(f"  worker {w}: received {', '.join(f'{lbl} ({b / MiB:.0f} MiB)' for lbl, b in a)};"
              f" peak RSS {peaks[w] / MiB:.0f} MiB")
    same = compare_digests(est, reference)
    return {"start_s": start_s, "fit_s": fit_s, "score_s": score_s, "total_s": fit_s + score_s,
            "cpu_s": cpu, "coef_sha256": digest(est.coef_), "dual_coef_sha256": digest(est.dual_coef_),
            "results_bytes": results_bytes,
            "shipments": shipments, "worker_peak_rss": peaks, "identical": same}


def machine_cpu_seconds():
    """CPU seconds every process of the machine has used (``/proc/stat``, user + system)."""
    with open("/proc/stat") as fh:
        fields = fh.readline().split()[1:]
    return (int(fields[0]) + int(fields[1]) + int(fields[2])) / os.sysconf("SC_CLK_TCK")


def ray_worker_pids():
    """Ray's worker processes on this machine (their command line starts with ``ray::``)."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    if fh.read(5) == b"ray::":
                        pids.append(int(entry))
            except OSError:
                continue
    return pids


def _warm(shipment, k):
    import textwin.linear  # noqa: F401  (the workers' imports, before the clocks)

    return os.getpid()


def phase_ray(X, Y, lam, reference):
    import joblib
    import ray
    from ray.util.joblib import register_ray

    import textwin._distributed as D

    put = D.RayCluster.put
    shipments = []

    def put_and_record(self, shipment, broadcast):
        shipments.append((shipment.label, shipment.nbytes))
        return put(self, shipment, broadcast)

    D.RayCluster.put = put_and_record
    t0 = time.perf_counter()
    # from the folder textwin was imported from: Ray puts the driver's folder first on its
    # workers' path, and a checkout's root holds a textwin without compiled kernels
    with D._in_the_folder_of_this_textwin():
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    register_ray()
    start_s = time.perf_counter() - t0
    try:
        with joblib.parallel_config(backend="ray"):
            D.map_on_cluster(D.active_cluster(), _warm, {}, 8)
            shipments.clear()
            cpu0 = machine_cpu_seconds()
            est, fit_s, score_s = fit_and_score(X, Y, lam)
            cpu = machine_cpu_seconds() - cpu0
        peaks = {pid: status_kib("VmHWM", pid) * 1024 for pid in ray_worker_pids()}
    finally:
        ray.shutdown()
        D.RayCluster.put = put
    print(f"local Ray, 2 CPUs (started in {start_s:.1f} s): fit {fit_s:.1f} s, "
          f"decision_function {score_s:.1f} s, total {fit_s + score_s:.1f} s (CPU of the "
          f"whole machine {cpu:.1f} s)")
    print(f"  put in the object store: {', '.join(f'{lbl} ({b / MiB:.0f} MiB)' for lbl, b in shipments)}")
    print(f"  peak RSS of the {len(peaks)} worker processes (object store pages they mapped "
          f"included): {', '.join(f'{v / MiB:.0f}' for v in sorted(peaks.values()))} MiB")
    same = compare_digests(est, reference)
    return {"start_s": start_s, "fit_s": fit_s, "score_s": score_s, "total_s": fit_s + score_s,
            "machine_cpu_s": cpu, "coef_sha256": digest(est.coef_),
            "dual_coef_sha256": digest(est.dual_coef_), "shipments": shipments,
            "worker_peak_rss": sorted(peaks.values()), "identical": same}


def csr_bytes(X):
    return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=800_000, help="documents (default 800,000)")
    ap.add_argument("--d", type=int, default=47_000, help="words (default 47,000)")
    ap.add_argument("--nnz", type=float, default=75, help="nonzeros per row (default 75)")
    ap.add_argument("--categories", type=int, default=103, help="categories (default 103)")
    ap.add_argument("--lam", type=float, default=None, help="lambda (default 1/n)")
    ap.add_argument("--phases", default=",".join(PHASES),
                    help=f"comma-separated, of {', '.join(PHASES)} (default: all)")
    ap.add_argument("--reference", metavar="JSON", default=None,
                    help="an earlier run's --json output whose local digests the cluster "
                         "phase compares with (when this run has no local phase)")
    add_common_args(ap, repeats=1)
    args = ap.parse_args(argv)
    if args.smoke:  # 5,000 documents, 8 categories: every phase in seconds
        args.n, args.d, args.categories = 5000, 2000, 8
    phases = [p.strip() for p in args.phases.split(",") if p.strip()]
    unknown = sorted(set(phases) - set(PHASES))
    if unknown:
        ap.error(f"unknown phase(s) {', '.join(unknown)}; choose from {', '.join(PHASES)}")
    info = print_machine()
    t0 = time.perf_counter()
    X, Y, rates = rcv1_like_corpus(args.n, args.d, args.nnz, args.categories)
    gen_s = time.perf_counter() - t0
    n, d = X.shape
    lam = args.lam if args.lam is not None else 1.0 / n
    freq = np.asarray(Y.mean(axis=0)).ravel()
    print(f"corpus: n={n} d={d} nnz={X.nnz} ({X.nnz / n:.1f} per row), CSR "
          f"{csr_bytes(X) / MiB:.0f} MiB; {Y.shape[1]} categories, frequencies "
          f"{freq.max():.2%} to {freq.min():.3%} (built in {gen_s:.0f} s); lam = {lam:.3g}")
    out = {"benchmark": "rcv1", "machine": info, "n": n, "d": d, "nnz": int(X.nnz),
           "categories": Y.shape[1], "lam": lam, "csr_bytes": csr_bytes(X), "phases": {}}
    reference = {}
    if args.reference:
        with open(args.reference) as fh:
            reference = json.load(fh)["phases"].get("local", {})
    tw = tw_scores = None
    for phase in phases:
        print(f"\n[{phase}] load average {load_average()}", flush=True)
        if phase == "local":
            tw, tw_scores, res = phase_local(X, Y, lam)
            reference = res
        elif phase == "peer":
            coef, scores, res = phase_peer(X, Y, lam)
            if tw is not None:
                ratio = out["phases"]["local"]["total_s"] / res["total_s"]
                p_tw = primal_objectives(tw_scores, Y, tw.coef_, lam)
                p_ll = primal_objectives(scores, Y, coef, lam)
                rel = (p_ll - p_tw) / p_tw
                res.update(ratio=ratio, fit_ratio=out["phases"]["local"]["fit_s"] / res["fit_s"],
                           cpu_ratio=out["phases"]["local"]["cpu_s"] / res["cpu_s"],
                           primal_rel_diff_median=float(np.median(rel)),
                           primal_rel_diff_min=float(rel.min()),
                           primal_rel_diff_max=float(rel.max()))
                print(f"  ratio textwin / peer (fit + scoring): {ratio:.2f} (target <= "
                      f"{TARGET}); fit alone {res['fit_ratio']:.2f}; CPU seconds "
                      f"{res['cpu_ratio']:.2f}")
                print(f"  (P_peer - P_textwin) / P_textwin over the categories: median "
                      f"{np.median(rel):.2e}, range [{rel.min():.2e}, {rel.max():.2e}]")
            del scores
        elif phase == "sweep":
            local = out["phases"].get("local")
            res = phase_sweep(X, Y, lam, local and (local["fit_s"], local["fit_cpu_s"]))
        elif phase == "cluster":
            res = phase_cluster(X, Y, lam, reference)
        else:
            res = phase_ray(X, Y, lam, reference)
        res["load_after"] = load_average()
        out["phases"][phase] = res
        print(f"[{phase}] done; load average {res['load_after']}", flush=True)
    info["load_average_end"] = load_average()
    emit_json(args.json, out)


if __name__ == "__main__":
    main()
