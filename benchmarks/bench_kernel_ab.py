"""Two builds of the kernel, paired in one process: is a kernel change faster?

On a shared machine two runs of ``bench_epoch_cost.py`` differ by 10 % or more
between minutes, more than most kernel changes gain. This script builds the
kernels (``textwin/_kernels/``: the .pyx, .pxd and hand-written C) of two
revisions as two packages, compiled as ``setup.py`` compiles them, imports
both, and in each round times the same fit with each build back to back on one Reuters
category: the time per epoch is (fit of ``--epochs`` epochs - fit of 0 epochs)
/ ``--epochs``, on the thread CPU clock; the builds alternate which goes first
(the second of a pair can gain from the first's warm caches, or lose to a
clock change); the ratio new / old is taken within the round, and the median
over the rounds is reported with its quartiles. ``tol=0``, no shrinking, every
visit a step at the default least squares with ``lam`` 1e-5, as the
equal-work rows of ``bench_epoch_cost.py``.

``--columns-by-frequency`` compares data layouts instead of builds: the
current build on the columns as they come against the same matrix with its
columns renumbered by decreasing document frequency (the most frequent
words' weights then share cache lines).

Run from the repository root (corpus under TEXTWIN_DATA_HOME; a C compiler
and Cython, as for an in-place build; each build takes about a minute):

    python benchmarks/bench_kernel_ab.py --old HEAD~1 [--new WORKTREE] --data tfidf
        [--regularizers entropy,balanced_entropy] [--rounds 20] [--json out.json]
    python benchmarks/bench_kernel_ab.py --columns-by-frequency --data tfidf
"""
import argparse
import importlib
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import JsonPath, add_smoke_arg  # noqa: E402
from _common import (emit_json, kernel_fit, load_average, print_machine,  # noqa: E402
                     reuters_binary_ig, reuters_tfidf)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = "textwin/_kernels"
REGULARIZERS = ("square", "entropy", "normalized_entropy", "balanced_entropy",
                "balanced_normalized_entropy")
SETUP = """
import glob, os
import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
packages = {packages!r}
ext = []
for pkg in packages:
    # the hand-written C goes into the extensions that cimport its declarations
    c_sources = sorted(glob.glob(os.path.join(pkg, "*.c")))
    for pyx in sorted(glob.glob(os.path.join(pkg, "*.pyx"))):
        with open(pyx) as f:
            uses_c = "_rowops cimport" in f.read()
        name = pkg + "." + os.path.basename(pyx)[:-4]
        ext.append(Extension(name, [pyx] + (c_sources if uses_c else []),
                             include_dirs=[np.get_include()],
                             define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
                             extra_compile_args=["-O3"]))
setup(ext_modules=cythonize(ext, quiet=True, compiler_directives={{
    "language_level": 3, "boundscheck": False, "wraparound": False,
    "cdivision": True, "initializedcheck": False}}))
"""


def _git(*args):
    out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"error: git {' '.join(args)}: {out.stderr.strip()}")
    return out.stdout


def kernel_sources(rev):
    """{file name: text} of the kernels' sources (.pyx, .pxd, hand-written .c/.h)
    at ``rev`` (``WORKTREE``: the files as they are now, committed or not), by base
    name: each build is one flat folder, where the generated C finds rowops.h
    beside it whether the revision kept the hand-written C in ``src/`` or not."""
    if rev == "WORKTREE":
        names = _git("ls-files", "--cached", "--others", "--exclude-standard", KERNELS).split()
    else:
        names = _git("ls-tree", "-r", "--name-only", rev, KERNELS).split()
    names = [n for n in names if n.endswith((".pyx", ".pxd", ".c", ".h"))
             and os.path.basename(n) != "_online.pyx"]
    out = {}
    for name in names:
        if rev == "WORKTREE":
            with open(os.path.join(ROOT, name)) as f:
                out[os.path.basename(name)] = f.read()
        else:
            out[os.path.basename(name)] = _git("show", f"{rev}:{name}")
    if "_dual_gs.pyx" not in out:
        sys.exit(f"error: no {KERNELS}/_dual_gs.pyx at {rev!r}")
    return out


def build(packages, workdir):
    """Compile {package name: {file: text}} in workdir and import each package's
    ``_dual_gs`` (each build its own package, so the two load side by side)."""
    for pkg, files in packages.items():
        os.makedirs(os.path.join(workdir, pkg))
        open(os.path.join(workdir, pkg, "__init__.py"), "w").close()
        for name, text in files.items():
            with open(os.path.join(workdir, pkg, name), "w") as f:
                f.write(text)
    with open(os.path.join(workdir, "setup_ab.py"), "w") as f:
        f.write(SETUP.format(packages=list(packages)))
    print(f"building {', '.join(packages)} in {workdir} ...", file=sys.stderr, flush=True)
    out = subprocess.run([sys.executable, "setup_ab.py", "build_ext", "--inplace"], cwd=workdir,
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("error: the build failed:\n" + out.stdout[-3000:] + out.stderr[-3000:])
    sys.path.insert(0, workdir)
    return {pkg: importlib.import_module(pkg + "._dual_gs") for pkg in packages}


def by_frequency(X):
    """X with its columns renumbered by decreasing document frequency."""
    d = X.shape[1]
    order = np.argsort(-np.bincount(X.indices, minlength=d), kind="stable")
    new_index = np.empty(d, dtype=np.int32)
    new_index[order] = np.arange(d, dtype=np.int32)
    # copies: sort_indices reorders the values in place, which must not be X's
    Xp = sp.csr_matrix((X.data.copy(), new_index[X.indices], X.indptr.copy()), shape=X.shape)
    Xp.sort_indices()
    return Xp


def epoch_seconds(module, X, y, regularizer, args, seed):
    """Thread CPU seconds per epoch of one fit: (E epochs - 0 epochs) / E."""
    def fit(epochs):
        t0 = time.thread_time()
        kernel_fit(X, y, kernel=module, loss=args.loss, regularizer=regularizer, lam=args.lam,
                   tol=0.0, max_epochs=epochs, shrinking=False, seed=seed)
        return time.thread_time() - t0

    return (fit(args.epochs) - fit(0)) / args.epochs


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--old", default="HEAD", help="git revision of the first build "
                   "(default HEAD)")
    p.add_argument("--new", default="WORKTREE", help="git revision of the second build "
                   "(default WORKTREE: the files as they are now)")
    p.add_argument("--columns-by-frequency", action="store_true",
                   help="compare the current build on the columns as they come (old) and "
                        "renumbered by decreasing document frequency (new), no builds")
    p.add_argument("--data", choices=["binary", "tfidf"], default="tfidf",
                   help="the paper's 1,000 binary IG features, or all words tf-idf (default)")
    p.add_argument("--regularizers", default=",".join(REGULARIZERS),
                   help="comma-separated (default all five)")
    p.add_argument("--loss", default="least_squares",
                   help="loss (default least_squares: every visit a step)")
    p.add_argument("--lam", type=float, default=1e-5, help="lam (default 1e-5)")
    p.add_argument("--epochs", type=int, default=10, help="epochs per timed fit (default 10)")
    p.add_argument("--rounds", type=int, default=20, help="paired rounds (default 20)")
    p.add_argument("--json", metavar="PATH", default=None, action=JsonPath,
                   help="also write the results as JSON to PATH ('-': the JSON alone on "
                        "stdout, the tables on stderr)")
    add_smoke_arg(p)
    args = p.parse_args(argv)
    if args.smoke:  # one round of one epoch of the square regularizer (the builds stay)
        args.rounds, args.epochs, args.regularizers = 1, 1, "square"
    regs = [r.strip() for r in args.regularizers.split(",") if r.strip()]
    bad = [r for r in regs if r not in REGULARIZERS]
    if bad:
        p.error(f"unknown regularizer(s) {', '.join(bad)}; choose from {', '.join(REGULARIZERS)}")
    if args.rounds < 1 or args.epochs < 1:
        p.error("--rounds and --epochs must be >= 1")

    info = print_machine()
    X, Y = (reuters_tfidf() if args.data == "tfidf" else reuters_binary_ig())[:2]
    with tempfile.TemporaryDirectory(prefix="textwin-ab-") as workdir:
        if args.columns_by_frequency:
            from textwin._kernels import _dual_gs as current
            labels = ("columns as they come", "columns by frequency")
            variants = [(current, X), (current, by_frequency(X))]
        else:
            mods = build({"_tw_ab_old": kernel_sources(args.old),
                          "_tw_ab_new": kernel_sources(args.new)}, workdir)
            labels = (args.old, args.new)
            variants = [(mods["_tw_ab_old"], X), (mods["_tw_ab_new"], X)]
        print(f"reuters {args.data}: n={X.shape[0]} d={X.shape[1]} nnz={X.nnz}, "
              f"{args.loss} lam={args.lam:g}, {args.epochs} epochs per fit, {args.rounds} "
              f"paired rounds, thread CPU clock; old = {labels[0]}, new = {labels[1]}")
        times = {r: ([], []) for r in regs}
        for (module, XX), label in zip(variants, labels):
            try:                                   # one short call each: same signature?
                epoch_seconds(module, XX, np.where(Y[:, 0] > 0, 1.0, -1.0), regs[0],
                              argparse.Namespace(**{**vars(args), "epochs": 1}), seed=0)
            except (TypeError, ValueError) as exc:
                sys.exit(f"error: the kernel of {label} does not take this benchmark's call "
                         f"({exc}); compare revisions whose dual_gauss_seidel has the same "
                         f"arguments")
        for i in range(args.rounds):
            k = i % Y.shape[1]
            y = np.where(Y[:, k] > 0, 1.0, -1.0)
            for r in regs:
                for v in ((0, 1) if i % 2 == 0 else (1, 0)):      # alternate who goes first
                    module, XX = variants[v]
                    times[r][v].append(epoch_seconds(module, XX, y, r, args, seed=k))
    print(f"  {'regularizer':30s} {'old ms/ep':>10s} {'new ms/ep':>10s} "
          f"{'new/old':>8s}  quartiles")
    rows = []
    for r in regs:
        old, new = times[r]
        ratios = [b / a for a, b in zip(old, new)]
        q25, q75 = np.percentile(ratios, [25, 75])
        rows.append({"regularizer": r, "old_ms": 1e3 * statistics.median(old),
                     "new_ms": 1e3 * statistics.median(new),
                     "ratio_median": statistics.median(ratios), "ratio_q25": q25,
                     "ratio_q75": q75})
        print(f"  {r:30s} {rows[-1]['old_ms']:10.3f} {rows[-1]['new_ms']:10.3f} "
              f"{rows[-1]['ratio_median']:8.3f}  {q25:.3f}-{q75:.3f}")
    print(f"load average at the end: {load_average()}")
    if args.json:
        emit_json(args.json, {"machine": info, "settings": vars(args), "old": labels[0],
                              "new": labels[1], "results": rows})


if __name__ == "__main__":
    main()
