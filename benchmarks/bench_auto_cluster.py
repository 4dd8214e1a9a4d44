"""`textwin train --auto` on a Dask cluster: its paths as tasks on two worker processes.

The same command runs twice on a JSON Lines corpus (default: the first
``--train-docs`` training documents of AG News small under ``$TEXTWIN_DATA_HOME/corpora``,
and its test set): on local
threads (``--n-jobs 2``) and with ``--scheduler`` on a ``LocalCluster`` of two worker
processes with one thread each, started here. Both run in their own process, one after
the other (the cluster's workers, idle, stay up during the local run), repeated
``--repeats`` times in turn. Reported: each run's seconds (median), the cluster's over
the threads' (paired, same load), the tasks the cluster ran (``textwin-auto`` paths and
the rest), and whether the two runs chose the same settings and scored the same test
figures (they must: the paths are the threads', bit for bit). Run from the repository
root:

    python benchmarks/bench_auto_cluster.py [--corpus DIR] [--train-docs 1500] [--repeats 1]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from bench_corpora import _child_env
from _common import add_smoke_arg, emit_json, head_lines, load_average, print_machine


def _run(argv):
    start = time.perf_counter()
    # from a folder of no package: `python -m` puts the working folder first on sys.path,
    # and a checkout's root holds a textwin without compiled kernels
    done = subprocess.run([sys.executable, "-m", "textwin.cli", *argv], capture_output=True,
                          text=True, check=False, env=_child_env(), cwd=tempfile.gettempdir())
    seconds = time.perf_counter() - start
    if done.returncode:
        sys.exit(f"textwin {' '.join(argv)} failed ({done.returncode}): {done.stderr[-2000:]}")
    result = json.loads(done.stdout)
    result.pop("seconds", None)
    return seconds, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    home = os.environ.get("TEXTWIN_DATA_HOME", os.path.expanduser("~/textwin_data"))
    parser.add_argument("--corpus", default=os.path.join(home, "corpora", "agnews-small"),
                        help="a folder of train.jsonl and test.jsonl (default "
                             "$TEXTWIN_DATA_HOME/corpora/agnews-small, as bench_corpora.py's)")
    parser.add_argument("--train-docs", type=int, default=1500)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--test-docs", type=int, default=1520)
    parser.add_argument("--json", metavar="PATH")
    add_smoke_arg(parser)
    args = parser.parse_args()
    if args.smoke:
        args.train_docs, args.test_docs, args.repeats = 200, 50, 1
    import distributed

    print_machine()
    with tempfile.TemporaryDirectory() as tmp:
        for split, n in (("train", args.train_docs), ("test", args.test_docs)):
            head_lines(os.path.join(args.corpus, f"{split}.jsonl"),
                       os.path.join(tmp, f"{split}.jsonl"), n)
        argv = ["train", "--corpus", os.path.join(tmp, "train.jsonl"), "--test-corpus",
                os.path.join(tmp, "test.jsonl"), "--auto", "--json", "-q"]
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=40)
        client = distributed.Client(cluster)
        try:
            times = {"threads": [], "cluster": []}
            results = {}
            for _ in range(args.repeats):
                times["threads"].append((s := _run([*argv, "--n-jobs", "2"]))[0])
                results["threads"] = s[1]
                with distributed.get_task_stream(client) as ts:
                    times["cluster"].append((s := _run([*argv, "--scheduler",
                                                        cluster.scheduler_address]))[0])
                results["cluster"] = s[1]
                keys = [str(r["key"]) for r in ts.data]
        finally:
            client.close()
            cluster.close()
    paths = sum(k.startswith("textwin-auto") for k in keys)
    median = {k: statistics.median(v) for k, v in times.items()}
    same = results["threads"] == results["cluster"]
    print(f"load average {load_average()}")
    print(f"--auto on {args.train_docs} training documents: threads {median['threads']:.1f} s, "
          f"2 Dask workers {median['cluster']:.1f} s (ratio {median['cluster'] / median['threads']:.2f}); "
          f"{paths} path tasks of {len(keys)} on the cluster; same choice and test figures: {same}")
    emit_json(args.json, {"train_docs": args.train_docs, "seconds": median,
                          "ratio": median["cluster"] / median["threads"],
                          "path_tasks": paths, "tasks": len(keys), "same": same,
                          "load_average": load_average()})
    if not same:
        sys.exit("the cluster's run differs from the threads'")


if __name__ == "__main__":
    main()
