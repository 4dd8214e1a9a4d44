"""TextClassifierCV's early stop against the whole grid: the same choice, in less time?

On each corpus of ``bench_corpora.py`` (the same training files), in one run and on the
same folds, ``TextClassifierCV()`` as ``--auto`` runs it, with ``early_stopping=True``
(the default: a setting's paths stop once every decision rule's cross-validated score has
been below its best at two lams in a row) and ``early_stopping=False`` (every lam of the
grid). It prints each one's time, the share of the grid's (setting, rule, lam) points
scored, the chosen settings and CV score, and whether the two choose alike. One thread.

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


def search(data, early_stopping):
    from textwin import TextClassifierCV

    y = data.Y_train if data.multilabel else np.asarray(data.classes)[data.y_train]
    est = TextClassifierCV(early_stopping=early_stopping, n_jobs=1)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(data.train, y)
    seconds = time.perf_counter() - start
    scores = np.asarray(est.cv_results_["mean_test_score"], dtype=float)
    chosen = {k: (round(v, 10) if isinstance(v, float) else v)
              for k, v in est.best_params_.items()}
    return {"seconds": seconds, "cv_score": est.best_score_, "chosen": chosen,
            "points_scored": int(np.isfinite(scores).sum()), "points": int(scores.size)}


def run_corpus(name, corpora_dir, workdir, smoke=False):
    train, test, task = corpus_files(name, corpora_dir, workdir)
    if smoke:
        train = head_lines(train, os.path.join(workdir, f"{name}.smoke.train.jsonl"), 300)
        test = head_lines(test, os.path.join(workdir, f"{name}.smoke.test.jsonl"), 100)
    data = Data(train, test, task)
    stop, whole = search(data, True), search(data, False)
    return {"corpus": name, "n_train": len(data.train), "task": data.task,
            "early_stopping": stop, "whole_grid": whole,
            "same_choice": stop["chosen"] == whole["chosen"],
            "time_ratio": stop["seconds"] / whole["seconds"]}


def show(r):
    s, w = r["early_stopping"], r["whole_grid"]
    chosen = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                       for k, v in s["chosen"].items())
    print(f"{r['corpus']:18}{r['n_train']:>7}  {w['seconds']:8.1f}{s['seconds']:8.1f}"
          f"{r['time_ratio']:7.2f}  {s['points_scored']:>3}/{s['points']:<4}"
          f"{100 * s['cv_score']:7.2f}{100 * w['cv_score']:7.2f}  "
          f"{'yes' if r['same_choice'] else 'NO':5}{chosen}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
    print(f"{'corpus':18}{'train':>7}  {'whole s':>8}{'stop s':>8}{'ratio':>7}  "
          f"{'scored':<8}{'CV':>7}{'CV all':>7}  {'same':5}chosen (early stop)")
    results = []
    with tempfile.TemporaryDirectory(prefix="bench_early_stop") as workdir:
        for name in args.corpora:
            results.append(run_corpus(name, args.corpora_dir, workdir, args.smoke))
            show(results[-1])
    info["load_average_end"] = machine_info()["load_average"]
    emit_json(args.json, {"machine": info, "results": results})


if __name__ == "__main__":
    main()
