"""Peak memory and first-result delay of ``textwin predict`` on a long stdin.

A model is trained by the command line on AG News small (``--corpus``, default
``$TEXTWIN_DATA_HOME/corpora/agnews-small``, its ``train.jsonl``), then its
training texts, one per line and repeated, are piped into ``python -m textwin.cli
predict MODEL`` (the table, ``--jsonl`` and ``--json``) for each number of
lines of ``--lines`` (default 10,000, 100,000 and 1,000,000), each run in a child
process of its own. For each it prints:

* the peak resident set of the child (``ru_maxrss`` from ``os.wait4``): the
  interpreter, the libraries, the model and what is held while scoring; memory
  does not depend on the load, and a reader that held every line would grow with
  the number of lines;
* the seconds from the child's start to its first line of output, and the total;
  under load both lie (``uptime`` is printed beside them), and they are no speed
  claim against a peer, only that the first result comes before the input is read.

``--smoke`` runs 1,000 and 10,000 lines, the table only.

    python benchmarks/bench_predict_stream.py [--lines 10000 1000000] [--smoke] [--json out.json]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import emit_json, load_average, print_machine  # noqa: E402
from bench_corpora import _child_env  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = _child_env()  # this checkout's textwin when it is built in place, else the installed one
# from a folder of no package: `python -m` puts the working folder first on sys.path
CWD = tempfile.gettempdir()
TEXTWIN = [sys.executable, "-m", "textwin.cli"]


def _default_corpus():
    home = os.environ.get("TEXTWIN_DATA_HOME") or os.path.expanduser("~/textwin_data")
    return os.path.join(home, "corpora", "agnews-small")


def write_lines(texts, n, path):
    """``n`` lines of ``texts`` (each on one line), repeated as needed."""
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(" ".join(texts[i % len(texts)].split()) + "\n")


def run(argv, stdin_path):
    """``(peak RSS in MiB, seconds to the first output line, seconds in all, lines out)``."""
    first = []
    with open(stdin_path, "rb") as fin:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, env=ENV, cwd=CWD, stdin=fin, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)
        count = [0]

        def drain():
            for _ in proc.stdout:
                if not first:
                    first.append(time.perf_counter() - start)
                count[0] += 1

        reader = threading.Thread(target=drain)
        reader.start()
        _, status, usage = os.wait4(proc.pid, 0)
        total = time.perf_counter() - start
        reader.join()
        proc.stdout.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(argv)} failed")
    return usage.ru_maxrss / 1024, first[0] if first else None, total, count[0]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=_default_corpus(),
                    help="a folder holding train.jsonl (default: AG News small)")
    ap.add_argument("--lines", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--smoke", action="store_true", help="1,000 and 10,000 lines, the table only")
    ap.add_argument("--json", metavar="PATH", default=None)
    args = ap.parse_args(argv)
    outputs = {"table": [], "--jsonl": ["--jsonl"], "--json": ["--json"]}
    if args.smoke:
        args.lines, outputs = [1_000, 10_000], {"table": []}
    train = os.path.join(args.corpus, "train.jsonl")
    if not os.path.exists(train):
        sys.exit(f"{train} not found: give --corpus DIR holding train.jsonl")
    with open(train, encoding="utf-8") as fh:
        texts = [json.loads(line)["text"] for line in fh if line.strip()]
    info = print_machine()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "model.npz")
        subprocess.run([*TEXTWIN, "train", "--corpus", train, "--output", model, "-q"],
                       env=ENV, cwd=CWD, check=True, stdout=subprocess.DEVNULL)
        print(f"{'lines':>10} {'output':>8} {'peak MiB':>9} {'first s':>8} {'total s':>8}")
        for n in args.lines:
            path = os.path.join(tmp, f"{n}.txt")
            write_lines(texts, n, path)
            for name, extra in outputs.items():
                peak, first, total, out_lines = run([*TEXTWIN, "predict", model, *extra], path)
                rows.append({"lines": n, "output": name, "peak_rss_mib": round(peak, 1),
                             "first_line_s": None if first is None else round(first, 2),
                             "total_s": round(total, 2), "output_lines": out_lines,
                             "load_average": load_average()})
                print(f"{n:>10} {name:>8} {peak:>9.1f} {first:>8.2f} {total:>8.1f}",
                      flush=True)
    emit_json(args.json, {"machine": info, "rows": rows})


if __name__ == "__main__":
    main()
