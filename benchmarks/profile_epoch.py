"""One kernel call to profile (valgrind): instructions per nonzero; peer: the square regularizer.

Fits one Reuters category (``acq`` by default) with ``dual_gauss_seidel`` for
``--epochs`` epochs (``tol=0``, no shrinking, so every epoch visits every
example) on the paper's 1,000 binary IG features or on all words with tf-idf,
and prints the nonzeros the kernel touched. Run it under callgrind, once with
``--epochs 10`` and once with ``--epochs 0`` (the validation, the rebuild of
v and the exact gap that both calls make), and subtract:

    valgrind --tool=callgrind --callgrind-out-file=cg.10 \\
        python benchmarks/profile_epoch.py --data tfidf --regularizer entropy --epochs 10
    callgrind_annotate --inclusive=no cg.10 | grep -E "dual_gs|tw_|libm"

Instruction counts repeat exactly for the same build and inputs, whatever
else the machine is doing, which timed runs on a shared machine do not. They
are not time: memory stalls are not in them (docs/performance.md says where
that matters).
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import add_smoke_arg, kernel_fit, reuters_binary_ig, reuters_tfidf  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", choices=("binary", "tfidf"), default="binary",
                    help="the paper's 1,000 binary IG features (default), or all words tf-idf")
    ap.add_argument("--regularizer", default="square",
                    choices=("square", "entropy", "normalized_entropy", "balanced_entropy",
                             "balanced_normalized_entropy"))
    ap.add_argument("--loss", default="least_squares",
                    choices=("hinge", "squared_hinge", "least_squares", "logistic"))
    ap.add_argument("--lam", type=float, default=1e-5,
                    help="default 1e-5: least squares then steps at every visit (equal work)")
    ap.add_argument("--epochs", type=int, default=10,
                    help="epochs to profile (run again with 0 and subtract the setup)")
    ap.add_argument("--category", default="acq", help="the binary problem (default acq)")
    add_smoke_arg(ap)
    args = ap.parse_args(argv)
    if args.smoke:
        args.epochs = min(args.epochs, 1)
    if args.data == "binary":
        X, Y, names, _ = reuters_binary_ig()
    else:
        X, Y, names = reuters_tfidf()
    if args.category not in names:
        ap.error(f"unknown category {args.category!r}; one of {', '.join(names)}")
    y = np.where(Y[:, list(names).index(args.category)] > 0, 1.0, -1.0)
    res = kernel_fit(X, y, loss=args.loss, regularizer=args.regularizer, lam=args.lam, tol=0.0,
                     max_epochs=args.epochs, shrinking=False, seed=0)
    work = res["work"]
    print(f"{args.data} {args.loss} {args.regularizer} lam={args.lam:g}: {res['n_epochs']} epochs, "
          f"nonzeros visited {work['nnz_visits']}, stepped {work['nnz_steps']}, "
          f"v rebuilt {work['syncs']} time(s)")


if __name__ == "__main__":
    main()
