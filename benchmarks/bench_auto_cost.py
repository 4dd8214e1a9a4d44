"""What ``--auto`` costs: the whole ``textwin train --corpus X --auto`` process against the
whole default ``textwin train --corpus X`` process, side by side on each corpus.

Each corpus of ``benchmarks/bench_corpora.py`` is written as two JSON Lines files,
then the two commands run on it one after the other (paired: they share the load
of the same minute), each as a process of its own, timed by the wall clock from
start to exit, its peak RSS its ``ru_maxrss`` (``os.wait4``): the interpreter, the
imports, reading the corpus, the fit (for ``--auto``: the search and the refit)
and the test figures. The table gives the time and peak-RSS ratios, ``--auto``'s
test figures beside the default's, and what ``--auto`` chose.

Run from the repository root (Reuters needs ``TEXTWIN_DATA_HOME``)::

    python benchmarks/bench_auto_cost.py --json auto_cost.json
    python benchmarks/bench_auto_cost.py --corpora r52 --auto-args="--time-budget 30"
    python benchmarks/bench_auto_cost.py --n-jobs 1     # both commands on one thread

Both commands use every core unless ``--n-jobs`` is given (the commands' default).

The ratios are only comparable within one run; the load average is printed at the
start and the end. ``--repeats N`` runs each pair N times and keeps the medians.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # _common, bench_corpora

from bench_corpora import (
    ROOT,
    SMOKE_CORPORA,
    _child_env,
    add_corpora_options,
    corpora_chosen,
    corpus_files,
    wait_with_usage,
)


def train_command(train, test, task, extra=()):
    """``textwin train`` on the two files, --json on stdout, no progress."""
    cmd = [sys.executable, "-m", "textwin.cli", "train", "--corpus", train, "--test-corpus", test,
           "--json", "-q", *extra]
    if task == "multilabel":
        cmd += ["--task", "multilabel", "--allow-unlabeled"]
    return cmd


def run_process(cmd, timeout):
    """``(seconds, peak RSS in MiB, --json output)`` of one command run to its end."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=_child_env(), cwd=ROOT)
        ended = wait_with_usage(proc, timeout)
        if ended is None:
            return {"error": f"timed out after {timeout:.0f} s"}
        status, usage = ended
        seconds = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            lines = err.read().decode(errors="replace").strip().splitlines()
            return {"error": lines[-1] if lines else f"exit {code}"}
        report = json.loads(out.read().decode())
    return {"seconds": seconds, "peak_rss_mib": usage.ru_maxrss / 1024, "report": report}


def figures(report):
    """The two test figures of a --json report: accuracy or micro-F1, and macro-F1."""
    first = "micro_f1" if report.get("task") == "multilabel" else "accuracy"
    return report.get(first), report.get("macro_f1")


def chosen(report):
    c = (report.get("auto") or {}).get("chosen")
    if not c:
        return None
    words = (("stems" if c.get("stem") else "words") + ("+bigrams" if c.get("ngrams") == 2 else "")
             + ("+chars{}-{}".format(*c["chars"]) if c.get("chars") else ""))
    extra = [x for x, on in (("nb", c.get("nb_scaling")), ("bias", c.get("fit_intercept")))
             if on]
    rule = c.get("rule", "zero")
    return " ".join([words, *extra, f"C={c.get('C', float('nan')):.3g}",
                     *([rule] if rule != "zero" else [])])


def median_of(runs):
    ok = [r for r in runs if "seconds" in r]
    if not ok:
        return runs[0]
    ok.sort(key=lambda r: r["seconds"])
    best = dict(ok[len(ok) // 2])
    best["peak_rss_mib"] = max(r["peak_rss_mib"] for r in ok)
    return best


def parse_args(argv=None):
    from _common import JsonPath, add_smoke_arg

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_corpora_options(ap)
    add_smoke_arg(ap)
    ap.add_argument("--auto-args", default="",
                    help="more options for the --auto command (e.g. '--time-budget 30')")
    ap.add_argument("--n-jobs", type=int, default=None, metavar="N",
                    help="threads of both commands (default: theirs, one per core)")
    ap.add_argument("--repeats", type=int, default=1,
                    help="pairs run per corpus; the median time is kept (default 1)")
    ap.add_argument("--timeout", type=float, default=3600,
                    help="seconds a command may take (default 3600)")
    ap.add_argument("--json", metavar="PATH", default=None, action=JsonPath,
                    help="also write the results as JSON to PATH")
    args = ap.parse_args(argv)
    if args.smoke and args.corpora == ap.get_default("corpora"):
        args.corpora = ",".join(SMOKE_CORPORA)
    return corpora_chosen(args)


def main(argv=None):
    from _common import emit_json, head_lines, machine_info, print_machine

    args = parse_args(argv)
    info = print_machine()
    jobs = [] if args.n_jobs is None else ["--n-jobs", str(args.n_jobs)]
    auto_args = ["--auto", *args.auto_args.split(), *jobs]
    print(f"the default: textwin train --corpus TRAIN --test-corpus TEST --json -q"
          f"{''.join(' ' + a for a in jobs)}; --auto: the same with {' '.join(auto_args)}")
    header = (f"{'corpus':<17} {'default s':>9} {'auto s':>8} {'time x':>7} "
              f"{'default MiB':>11} {'auto MiB':>8} {'RSS x':>6}  "
              f"{'default figures':>15}  {'auto figures':>13}  chosen")
    results, lines = {}, [header]
    print(header, flush=True)
    with tempfile.TemporaryDirectory(prefix="bench_auto_cost") as workdir:
        for corpus in args.corpora:
            train, test, task = corpus_files(corpus, args.corpora_dir, workdir)
            if args.smoke:  # the corpus's first lines
                train = head_lines(train, os.path.join(workdir, f"{corpus}.smoke.train.jsonl"), 300)
                test = head_lines(test, os.path.join(workdir, f"{corpus}.smoke.test.jsonl"), 100)
            runs = {"default": [], "auto": []}
            for _ in range(args.repeats):
                for key, extra in (("default", jobs), ("auto", auto_args)):
                    print(f"{corpus} / {key} ...", end="", file=sys.stderr, flush=True)
                    r = run_process(train_command(train, test, task, extra), args.timeout)
                    runs[key].append(r)
                    print(f" {r.get('seconds', float('nan')):.1f} s "
                          f"{r.get('peak_rss_mib', float('nan')):.0f} MiB {r.get('error', '')}",
                          file=sys.stderr, flush=True)
            d, a = median_of(runs["default"]), median_of(runs["auto"])
            row = {"default": d, "auto": a, "load_average": machine_info()["load_average"]}
            if "seconds" in d and "seconds" in a:
                row["time_ratio"] = a["seconds"] / d["seconds"]
                row["rss_ratio"] = a["peak_rss_mib"] / d["peak_rss_mib"]
                fd, fa = figures(d["report"]), figures(a["report"])
                line = (f"{corpus:<17} {d['seconds']:9.1f} {a['seconds']:8.1f} "
                        f"{row['time_ratio']:7.1f} {d['peak_rss_mib']:11.0f} "
                        f"{a['peak_rss_mib']:8.0f} {row['rss_ratio']:6.2f}  "
                        f"{fd[0]:7.2f}/{fd[1]:6.2f}  {fa[0]:6.2f}/{fa[1]:6.2f}  "
                        f"{chosen(a['report'])}")
            else:
                line = f"{corpus:<17} {d.get('error') or a.get('error')}"
            for r in (d, a):  # the figures above; the per-category rows are not kept
                rep = r.get("report") or {}
                r["report"] = {k: v for k, v in rep.items()
                               if k not in ("categories", "features", "corpus_report")}
            results[corpus] = row
            lines.append(line)
            print(line, flush=True)
    end = machine_info()["load_average"]
    print(f"load average at the end: {end}")
    emit_json(args.json, {"machine": info, "load_average_end": end,
                          "auto_args": auto_args, "results": results})


if __name__ == "__main__":
    main()
