"""The ``n_jobs=2`` speed-up of two versions of ``textwin/linear.py``, paired.

``bench_parallel.py`` gives one speed-up per run, and on a shared two-core
machine a run is only meaningful when no other program holds a core. This
script compares the Python layer (thread pool, per-problem work) of an older
revision with the working tree's under the same conditions: it loads
``textwin/linear.py`` of ``--old`` (``git show``) as a second module beside
the current one (both call the same compiled kernel), and whenever the
machine has been idle for 0.3 s it times one (1-thread, 2-thread) pair of
fits of each version, in random order, on the ten Reuters categories (the
paper's 1,000 binary features), recording the cores other processes used
during each fit (machine CPU time in /proc/stat less this process's). Pairs
in which other processes used more than ``--max-other`` cores are left out.
It prints, per estimator, the median speed-up of each version, the 2-thread
CPU over the 1-thread CPU (the threads' overhead), and the share of pairs in
which the current version had the higher speed-up. Linux only.

Run from the repository root (corpus under TEXTWIN_DATA_HOME):

    python benchmarks/bench_parallel_ab.py --old HEAD~1 --seconds 600 [--json out.json]
"""
import argparse
import importlib.util
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import JsonPath  # noqa: E402
from _common import add_smoke_arg, emit_json, print_machine, reuters_binary_ig  # noqa: E402
from bench_parallel import _machine_cpu as machine_cpu, quiet_moment  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_old(rev):
    """textwin/linear.py at ``rev`` as a module of its own (it imports only the kernel)."""
    src = subprocess.run(["git", "-C", REPO, "show", f"{rev}:textwin/linear.py"],
                         check=True, capture_output=True, text=True).stdout
    fd, path = tempfile.mkstemp(suffix="_linear_old.py")
    with os.fdopen(fd, "w") as fh:
        fh.write(src)
    spec = importlib.util.spec_from_file_location("linear_old", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    os.unlink(path)
    return module


def main(argv=None):
    import textwin.linear as current

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", default="HEAD~1", help="git revision of the older linear.py")
    ap.add_argument("--seconds", type=float, default=600, help="how long to collect pairs")
    ap.add_argument("--max-other", type=float, default=0.2,
                    help="leave out pairs where other processes used more cores than this")
    ap.add_argument("--json", metavar="PATH", default=None, action=JsonPath,
                    help="also write the results as JSON to PATH ('-': the JSON alone on "
                         "stdout, the tables on stderr)")
    add_smoke_arg(ap)
    args = ap.parse_args(argv)
    if args.smoke:
        args.seconds = min(args.seconds, 3)
    info = print_machine()
    versions = {"old": load_old(args.old), "current": current}
    makers = {
        "RegularizedWinnow": lambda M, j: M.RegularizedWinnow(random_state=0, n_jobs=j),
        "DualSVM": lambda M, j: M.DualSVM(lam=1e-3, tol=1e-3, random_state=0, n_jobs=j),
    }
    X, Y, _, _ = reuters_binary_ig()
    Y = Y[:, :2] if args.smoke else Y
    warnings.simplefilter("ignore")  # ConvergenceWarning of the 100-epoch budget
    reference = {}
    for name, make in makers.items():
        for M in versions.values():
            coef = make(M, 2).fit(X, Y).coef_  # warm-up, and the weights must agree
            reference.setdefault(name, coef)
            if not np.array_equal(coef, reference[name]):
                print(f"ERROR: {name}: the two versions' weights differ (a revision before "
                      "dfd865d seeds the binary problems differently: give a later --old)",
                      file=sys.stderr)
                return 1
    pairs = {name: [] for name in makers}
    seen = 0
    deadline = time.time() + args.seconds
    while time.time() < deadline:
        if not quiet_moment():
            continue  # another program is running: wait for a quiet moment
        name = random.choice(list(makers))
        order = list(versions)
        random.shuffle(order)
        rec, worst = {}, 0.0
        for v in order:
            for j in (1, 2):
                m0, c0, t0 = machine_cpu(), time.process_time(), time.perf_counter()
                makers[name](versions[v], j).fit(X, Y)
                wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                worst = max(worst, max(0.0, (machine_cpu() - m0) - cpu) / wall)
                rec[v, j] = (wall, cpu)
        seen += 1
        if worst <= args.max_other:
            pairs[name].append(rec)
    rows = []
    print(f"--old {args.old}: {seen} pairs timed, kept those with other processes "
          f"<= {args.max_other} cores")
    for name, recs in pairs.items():
        if not recs:
            print(f"  {name:18s} no quiet pair")
            continue
        speed = {v: [r[v, 1][0] / r[v, 2][0] for r in recs] for v in versions}
        overhead = {v: statistics.median(r[v, 2][1] / r[v, 1][1] for r in recs) for v in versions}
        wins = sum(c > o for c, o in zip(speed["current"], speed["old"])) / len(recs)
        row = {"estimator": name, "pairs": len(recs),
               "speedup_old": statistics.median(speed["old"]),
               "speedup_current": statistics.median(speed["current"]),
               "cpu2_over_cpu1_old": overhead["old"],
               "cpu2_over_cpu1_current": overhead["current"], "current_higher": wins}
        rows.append(row)
        print(f"  {name:18s} {len(recs):5d} pairs  median speed-up {row['speedup_old']:.3f} -> "
              f"{row['speedup_current']:.3f}  2-thread CPU / 1-thread CPU "
              f"{row['cpu2_over_cpu1_old']:.3f} -> {row['cpu2_over_cpu1_current']:.3f}  "
              f"current higher in {100 * wins:.0f} % of pairs")
    emit_json(args.json, {"benchmark": "parallel_ab", "old": args.old, "machine": info,
                          "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
