"""TextClassifierCV's early stops against the whole search: the same choice, in less time?

On each corpus of ``bench_corpora.py`` (the same training files), in one run and on the
same folds, ``TextClassifierCV()`` as ``--auto`` runs it (a setting's paths stop once every
decision rule's one-standard-error choice is a lam back, and the settings tried beside the
best stop after their first folds if they lose there: ``halving``), the same without
the halving (``halving=False``: every setting on every fold), and the whole search
(``early_stopping=False, halving=False``: every lam of the grid on every fold). It prints
each one's time, the share of the whole search's (setting, rule, lam) points scored on
every fold, the settings dropped after their first folds, the chosen settings and CV
score, and whether the three choose alike. One thread.

    python benchmarks/bench_early_stop.py [--corpora agnews-small germeval2018 ...]
                                          [--json PATH]
"""
import argparse
import os
import sys
import tempfile
import time
import warnings

import numpy as np
from bench_corpora import CORPORA, ROOT, Data, _built_in_place, corpus_files

if _built_in_place():
    sys.path.insert(0, ROOT)

from _common import (add_smoke_arg, emit_json, head_lines, machine_info,  # noqa: E402
                     print_machine)


def search(data, **params):
    from textwin import TextClassifierCV

    y = data.Y_train if data.multilabel else np.asarray(data.classes)[data.y_train]
    est = TextClassifierCV(n_jobs=1, **params)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(data.train, y)
    seconds = time.perf_counter() - start
    scores = np.asarray(est.cv_results_["mean_test_score"], dtype=float)
    every_fold = np.asarray(est.cv_results_["n_folds"]) == est.n_splits_
    chosen = {k: (round(v, 10) if isinstance(v, float) else v)
              for k, v in est.best_params_.items()}
    dropped = [{"params": {k: v for k, v in d["params"].items() if k in ("stem", "ngrams", "chars")},
                "folds": d["folds"]} for d in getattr(est, "dropped_", [])]
    return {"seconds": seconds, "cv_score": est.best_score_, "chosen": chosen,
            "points_scored": int((np.isfinite(scores) & every_fold).sum()),
            "points": int(every_fold.sum()), "dropped": dropped}


def corpus_data(name, corpora_dir, workdir, smoke=False):
    """Corpus ``name`` as :class:`Data` (with ``smoke``, its first 300 and 100 texts)."""
    train, test, task = corpus_files(name, corpora_dir, workdir)
    if smoke:
        train = head_lines(train, os.path.join(workdir, f"{name}.smoke.train.jsonl"), 300)
        test = head_lines(test, os.path.join(workdir, f"{name}.smoke.test.jsonl"), 100)
    return Data(train, test, task)


def run_corpus(name, corpora_dir, workdir, smoke=False):
    data = corpus_data(name, corpora_dir, workdir, smoke)
    stop = search(data)
    plain = search(data, halving=False)
    whole = search(data, early_stopping=False, halving=False)
    stop["points"] = whole["points"]  # of the whole search
    return {"corpus": name, "n_train": len(data.train), "task": data.task,
            "early_stopping": stop, "without_halving": plain, "whole_grid": whole,
            "same_choice": stop["chosen"] == whole["chosen"] == plain["chosen"],
            "time_ratio": stop["seconds"] / whole["seconds"],
            "halving_ratio": stop["seconds"] / plain["seconds"]}


def show(r):
    s, p, w = r["early_stopping"], r["without_halving"], r["whole_grid"]
    chosen = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                       for k, v in s["chosen"].items())
    dropped = "; ".join(f"{' '.join(f'{k}={v}' for k, v in d['params'].items())} after "
                        f"{d['folds']}" for d in s["dropped"]) or "none"
    print(f"{r['corpus']:18}{r['n_train']:>7}  {w['seconds']:8.1f}{p['seconds']:8.1f}"
          f"{s['seconds']:8.1f}{r['time_ratio']:7.2f}{r['halving_ratio']:7.2f}  "
          f"{s['points_scored']:>3}/{s['points']:<4}"
          f"{100 * s['cv_score']:7.2f}{100 * w['cv_score']:7.2f}  "
          f"{'yes' if r['same_choice'] else 'NO':5}{chosen}; dropped: {dropped}", flush=True)


def run_on_corpora(description, header, run, show, prefix):
    """The command of a benchmark over the corpora (``--corpora``, ``--corpora-dir``,
    ``--json``, ``--smoke``): ``run(args, name, workdir)`` on each,
    ``show`` each result as it comes, the results and the machine to ``--json``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--corpora", nargs="+", default=list(CORPORA), choices=CORPORA)
    parser.add_argument("--corpora-dir", default=None,
                        help="the folder holding agnews-small/ and germeval2018/ "
                             "(default $TEXTWIN_DATA_HOME/corpora)")
    parser.add_argument("--json", metavar="PATH")
    add_smoke_arg(parser)
    args = parser.parse_args()
    if args.smoke and args.corpora == list(CORPORA):  # one single-label, one multi-label
        args.corpora = ["agnews-small", "reuters10"]
    if args.corpora_dir is None:
        home = os.environ.get("TEXTWIN_DATA_HOME", os.path.expanduser("~/textwin_data"))
        args.corpora_dir = os.path.join(home, "corpora")
    info = print_machine()
    print(header)
    results = []
    with tempfile.TemporaryDirectory(prefix=prefix) as workdir:
        for name in args.corpora:
            results.append(run(args, name, workdir))
            show(results[-1])
    info["load_average_end"] = machine_info()["load_average"]
    emit_json(args.json, {"machine": info, "results": results})


def main():
    run_on_corpora(__doc__.splitlines()[0],
                   f"{'corpus':18}{'train':>7}  {'whole s':>8}{'no halv':>8}{'stop s':>8}"
                   f"{'ratio':>7}{'/ halv':>7}  {'scored':<8}{'CV':>7}{'CV all':>7}  "
                   f"{'same':5}chosen (early stops)", (lambda args, name, workdir:
                    run_corpus(name, args.corpora_dir, workdir, args.smoke)),
                   show, "bench_early_stop")


if __name__ == "__main__":
    main()
