"""Choosing lam by cross-validation: DualGaussSeidelClassifierCV against its peers.

Two comparisons on each data set, the contestants run in turn (``--repeats``
rounds, medians reported) so that they share the machine's noise:

1. **The SVM (hinge loss, no intercept) over one grid and one set of folds.**
   ``DualGaussSeidelClassifierCV(loss="hinge", lams=grid, cv=folds)`` (a
   warm-started path per fold and binary problem, lam per category on
   multi-label data) against ``GridSearchCV(LinearSVC(loss="hinge",
   fit_intercept=False), {"C": 1 / (grid * n)}, cv=folds)`` (one C for every
   category, wrapped in ``OneVsRestClassifier`` on multi-label data): the
   same problems (``C = 1/(lam n)``, docs/mathematics.md §10), the same
   folds, the same scoring (micro-BEP on multi-label data, accuracy
   otherwise), both refitting at their choice. Reported: the time ratio
   textwin / GridSearchCV and both CV scores.
2. **The squared hinge against liblinear's own search** (``train(y, X,
   "-s 2 -C -v 5")`` of the ``liblinear-official`` package: warm-started
   primal Newton over C doubling from its start, accuracy, its own 5 folds),
   then a final ``train`` at the C found, per binary problem;
   ``DualGaussSeidelClassifierCV(loss="squared_hinge", scoring="accuracy",
   cv=5)`` over its default grid. Reported: the time ratio textwin /
   liblinear and both mean CV accuracies.

The path's cost is reported in units of single fits: the CV fit's time over
one ``DualGaussSeidelClassifier`` fit on all the data at the (median) chosen
lam, and the epochs of all path points over that fit's epochs.

Data: Reuters-21578 top ten, ModApte training, tf-idf over every stem
(``--no-reuters`` skips it), and a synthetic Zipf corpus with a binary label,
10 % of the labels flipped (``--n``, ``--d``; ``--no-synthetic`` skips it). Every fit runs in one thread, the calling one (``--cpu-time`` times
its CPU seconds instead of wall time). Run from the repository root:

    python benchmarks/bench_cv.py [--no-reuters] [--no-synthetic] [--n 20000] [--d 20000] \
        [--n-lams 10] [--repeats 1] [--cpu-time] [--json PATH]
"""
import argparse
import contextlib
import os
import sys
import time
import warnings

import numpy as np
from _common import (add_common_args, emit_json, interleaved_times, print_machine,
                     reuters_tfidf, skip_missing_peer, zipf_corpus)
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import LinearSVC

from textwin import DualGaussSeidelClassifier, DualGaussSeidelClassifierCV
from textwin.metrics import micro_breakeven_point
from textwin.model_selection import lam_grid, lam_max


def micro_bep_scorer():
    return make_scorer(micro_breakeven_point, response_method="decision_function")


def compare_with_gridsearch(X, Y, n_lams, n_folds, repeats, timer=time.perf_counter):
    """Row 1: the hinge over one grid and one set of folds."""
    multilabel = Y.ndim == 2
    n = X.shape[0]
    grid = lam_grid(lam_max(X, Y), n_lams)
    splitter = KFold(n_folds) if multilabel else StratifiedKFold(n_folds)
    folds = list(splitter.split(X, Y))
    scoring = micro_bep_scorer() if multilabel else "accuracy"

    def ours():
        return DualGaussSeidelClassifierCV(lams=grid, cv=folds, random_state=0,
                                           scoring="micro_breakeven_point" if multilabel
                                           else None).fit(X, Y)

    def peer():
        svc = LinearSVC(loss="hinge", fit_intercept=False, dual=True, random_state=0)
        est, key = (OneVsRestClassifier(svc), "estimator__C") if multilabel else (svc, "C")
        return GridSearchCV(est, {key: 1.0 / (grid * n)}, cv=folds, scoring=scoring).fit(X, Y)

    clf = ours()  # once before timing: the chosen lam gives the single fit's size
    lam_single = float(np.median(clf.lam_))

    def single():
        return DualGaussSeidelClassifier(lam=lam_single, random_state=0).fit(X, Y)

    t_ours, t_peer, t_single = interleaved_times([ours, peer, single], repeats, timer)
    clf, search, one = t_ours["result"], t_peer["result"], t_single["result"]
    return {
        "n_lams": n_lams, "folds": n_folds, "lam_max": grid[0], "lam_min": grid[-1],
        "textwin_s": t_ours["median"], "gridsearch_s": t_peer["median"],
        "ratio": t_ours["median"] / t_peer["median"],
        "textwin_cv_score": clf.best_score_,
        "gridsearch_cv_score": float(search.best_score_),
        # the textwin choice scored as GridSearchCV scores: the mean of the folds' scores
        "textwin_cv_score_fold_mean": fold_mean_score(clf, folds, Y, multilabel),
        "textwin_lams": clf.lam_, "gridsearch_C": search.best_params_,
        "single_fit_s": t_single["median"], "single_fit_lam": lam_single,
        "path_cost_in_single_fits": t_ours["median"] / t_single["median"],
        "path_epochs_over_single_fit_epochs": clf.path_n_iter_.sum() / max(one.n_iter_.sum(), 1),
    }


def fold_mean_score(clf, folds, Y, multilabel):
    """Mean over folds of the fold's score at the chosen lams (GridSearchCV's definition)."""
    if not multilabel:
        best = int(np.flatnonzero(clf.lams_ == clf.lam_[0])[0])
        return float(clf.cv_scores_[:, best].mean())
    cols = np.arange(Y.shape[1])
    choice = np.array([np.flatnonzero(clf.lams_ == lam)[0] for lam in clf.lam_])
    per_fold = []
    for f, (_, test) in enumerate(folds):
        pos = Y[test].sum(axis=0)
        bep = np.nan_to_num(clf.cv_scores_[cols, f, choice])
        per_fold.append((bep * pos).sum() / pos.sum())
    return float(np.mean(per_fold))


@contextlib.contextmanager
def quiet_stdout():
    """File descriptor 1 to /dev/null (a C library's printf), restored after."""
    sys.stdout.flush()
    saved = os.dup(1)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 1)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def compare_with_liblinear(X, Y, n_lams, repeats, timer=time.perf_counter):
    """Row 2: the squared hinge against liblinear's -C search (5 folds); None, and one
    line, when liblinear-official is not installed."""
    try:
        from liblinear.liblinearutil import train
    except ImportError:
        skip_missing_peer("liblinear-official", "pip install liblinear-official")
        return None

    columns = [Y[:, k] for k in range(Y.shape[1])] if Y.ndim == 2 else [Y]
    labels = [np.where(y > 0, 1.0, -1.0) for y in columns]

    def ours():
        # one search per category, as liblinear's: each its own lam, scored by that
        # category's accuracy (on the indicator matrix "accuracy" is the exact match of
        # every category at once, a different figure)
        return [DualGaussSeidelClassifierCV(loss="squared_hinge", lams=n_lams, cv=5,
                                            scoring="accuracy", random_state=0).fit(X, y)
                for y in columns]

    def peer():
        found = []
        with quiet_stdout():  # liblinear prints its best C even with -q
            for y in labels:
                search = train(y, X, "-s 2 -C -v 5 -q")  # (best C, best p, CV accuracy)
                train(y, X, f"-s 2 -c {search[0]} -q")
                found.append((search[0], search[-1]))
        return found

    t_ours, t_peer = interleaved_times([ours, peer], repeats, timer)
    fits, found = t_ours["result"], t_peer["result"]
    lams = [float(np.ravel(clf.lam_)[0]) for clf in fits]
    return {
        "textwin_s": t_ours["median"], "liblinear_s": t_peer["median"],
        "ratio": t_ours["median"] / t_peer["median"],
        # both the mean over categories of the category's CV accuracy
        "textwin_cv_accuracy": float(np.mean([clf.best_score_ for clf in fits])),
        "liblinear_cv_accuracy": float(np.mean([r for _, r in found])),
        "textwin_lams": lams, "liblinear_C": [c for c, _ in found],
        "textwin_C": [1.0 / (lam * X.shape[0]) for lam in lams],
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--no-reuters", action="store_true", help="skip Reuters top ten, tf-idf")
    ap.add_argument("--no-synthetic", action="store_true", help="skip the Zipf corpus")
    ap.add_argument("--n", type=int, default=20000, help="synthetic documents (default 20000)")
    ap.add_argument("--d", type=int, default=20000, help="synthetic vocabulary (default 20000)")
    ap.add_argument("--n-lams", type=int, default=10, help="grid points (default 10)")
    ap.add_argument("--folds", type=int, default=5, help="folds of comparison 1 (default 5)")
    ap.add_argument("--no-liblinear", action="store_true", help="skip comparison 2")
    ap.add_argument("--cpu-time", action="store_true",
                    help="time by the CPU seconds of the calling thread (every contestant "
                         "runs in it), which other processes on a busy machine inflate "
                         "less than wall time")
    add_common_args(ap, repeats=1)
    args = ap.parse_args(argv)
    if args.smoke:  # two Reuters categories, a small Zipf corpus, a short grid
        args.n, args.d, args.n_lams, args.repeats = 2000, 2000, 3, 1
    timer = time.thread_time if args.cpu_time else time.perf_counter
    info = print_machine()
    data = []
    if not args.no_reuters:
        X, Y, _ = reuters_tfidf()
        data.append(("reuters_top10_tfidf", X, Y[:, :2] if args.smoke else Y))
    if not args.no_synthetic:
        X, y = zipf_corpus(args.n, args.d, seed=0)
        # 10 % of the labels flipped: without noise the best lam lies far below any grid
        flip = np.random.default_rng(1).random(y.size) < 0.1
        data.append((f"zipf_n{args.n}_d{args.d}_flip10", X, ((y > 0) ^ flip).astype(int)))
    results = {"machine": info, "datasets": {}}
    for name, X, Y in data:
        print(f"\n{name}: {X.shape[0]} x {X.shape[1]}, {X.nnz} nonzeros, "
              f"{Y.shape[1] if Y.ndim == 2 else 1} binary problem(s)")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # LinearSVC at the large Cs
            t0 = time.perf_counter()
            row = {"gridsearch": compare_with_gridsearch(X, Y, args.n_lams, args.folds,
                                                         args.repeats, timer),
                   "timer": "thread CPU" if args.cpu_time else "wall"}
            g = row["gridsearch"]
            print(f"  hinge, {args.n_lams} lams x {args.folds} folds: textwin {g['textwin_s']:.2f} s "
                  f"vs GridSearchCV(LinearSVC) {g['gridsearch_s']:.2f} s, ratio {g['ratio']:.3f}; "
                  f"CV score {g['textwin_cv_score']:.4f} (fold mean "
                  f"{g['textwin_cv_score_fold_mean']:.4f}) vs {g['gridsearch_cv_score']:.4f}")
            print(f"  path cost: {g['path_cost_in_single_fits']:.1f} single fits "
                  f"({g['single_fit_s']:.3f} s at lam {g['single_fit_lam']:.3g}); epochs of "
                  f"all path points = {g['path_epochs_over_single_fit_epochs']:.1f} x the "
                  f"single fit's")
            if not args.no_liblinear:
                row["liblinear"] = compare_with_liblinear(X, Y, args.n_lams, args.repeats,
                                                          timer)
                b = row["liblinear"]
            if not args.no_liblinear and b is not None:
                print(f"  squared hinge: textwin {b['textwin_s']:.2f} s vs liblinear -C "
                      f"{b['liblinear_s']:.2f} s, ratio {b['ratio']:.3f}; CV accuracy "
                      f"{b['textwin_cv_accuracy']:.4f} vs {b['liblinear_cv_accuracy']:.4f}")
            row["wall_s"] = time.perf_counter() - t0
        results["datasets"][name] = row
    emit_json(args.json, results)


if __name__ == "__main__":
    main()
