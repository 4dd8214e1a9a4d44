"""Re-run the console transcripts and Python examples of docs/user_guide.md and write
their output back.

Every ``console`` block that starts with ``$ `` is re-run command by command
(``textwin reproduce`` blocks excepted: minutes long, and shown for their
messages) in a scratch folder holding ``reuters10.jsonl`` and ``r8/`` (written as
the guide shows) and a link to each JSON Lines corpus of ``$TEXTWIN_DATA_HOME/corpora``
(``germeval2018/``), with the ``textwin`` command first on PATH, and the lines after each
command are replaced by what it printed (stderr, then stdout, as a terminal
shows a short run). Each ``python`` example that the guide follows with "It printed" and
a ``text`` block runs in the same folder, and the block becomes what it printed
(tests/test_user_guide_examples.py checks that they agree). Run it under the install
README gives (``pip install ".[test]"``, with PyStemmer), whose stems a reader gets.
Times are the run's own; review the diff before committing.

    TEXTWIN_DATA_HOME=/path/holding/reuters21578 \\
        python maint_tools/rerun_user_guide.py [--guide docs/user_guide.md] [--work DIR]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_reuters10(path):
    """The guide's example corpus: Reuters' ten largest categories as JSON Lines."""
    from textwin.datasets import fetch_reuters21578

    with open(path, "w", encoding="utf-8") as fh:
        for subset in ("train", "test"):
            bunch = fetch_reuters21578(subset=subset, categories="top10")
            for text, row in zip(bunch.data, bunch.target):
                labels = [c for c, on in zip(bunch.target_names, row) if on]
                fh.write(json.dumps({"text": text, "labels": labels, "split": subset}) + "\n")


def write_r8_folder(root):
    """The guide's single-label example corpus: R8 as a folder per class."""
    from textwin.datasets import fetch_reuters_single_label

    for subset in ("train", "test"):
        bunch = fetch_reuters_single_label("r8", subset=subset)
        for text, k, newid in zip(bunch.data, bunch.target, bunch.ids):
            folder = Path(root) / subset / bunch.target_names[k]
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{newid}.txt").write_text(text, encoding="utf-8")


def link_shared_corpora(work):
    """The guide's JSON Lines corpora (``germeval2018/``), linked from the data home's
    ``corpora/``; one line on stderr for each that is not there (its commands will then
    print `corpus not found`)."""
    from textwin.datasets import get_data_home

    shared = Path(get_data_home()) / "corpora"
    for name in ("germeval2018", "agnews-small"):
        target, link = shared / name, Path(work) / name
        if not target.is_dir():
            print(f"note: {target} not found: the guide's commands on {name}/ will fail",
                  file=sys.stderr)
        elif not link.exists():
            link.symlink_to(target, target_is_directory=True)


def rerun_block(lines, work, env):
    """The block's lines with each command's output replaced by a fresh run."""
    out, last_rc = [], 0
    for line in lines:
        if not line.startswith("$ "):
            continue  # an old output line
        out.append(line)
        cmd = line[2:]
        if cmd.strip() == "echo $?":  # the status of the previous command
            out.append(str(last_rc))
            continue
        res = subprocess.run(["bash", "-c", cmd], cwd=work, env=env, capture_output=True,
                             text=True)
        last_rc = res.returncode
        printed = res.stderr + res.stdout
        if printed.strip():
            out.extend(printed.rstrip("\n").split("\n"))
    return out


# A ```python block, "It printed ..." and the ```text block of its output.
_PRINTED_EXAMPLE = re.compile(r"```python\n(?P<code>(?:(?!```).)*)```\n\nIt printed"
                              r"(?P<when>[^\n]*)\n\n```text\n(?P<out>.*?)```", re.S)


def rerun_python_examples(text, work, env):
    """``text`` with each printed Python example's output (and time) from a fresh run."""
    parts, pos = [], 0
    for m in _PRINTED_EXAMPLE.finditer(text):
        print(f"running the Python example at line {text[:m.start()].count(chr(10)) + 1}",
              file=sys.stderr)
        t0 = time.perf_counter()
        res = subprocess.run([sys.executable, "-c", m["code"]], cwd=work, env=env,
                             capture_output=True, text=True)
        if res.returncode:
            raise SystemExit(f"the example failed:\n{res.stderr}")
        when = re.sub(r"in (about )?\S+ (s|seconds?|minutes?)\b",
                      f"in {time.perf_counter() - t0:.0f} s", m["when"], count=1)
        parts += [text[pos:m.start("when")], when, text[m.end("when"):m.start("out")],
                  res.stdout]
        pos = m.end("out")
    return "".join(parts) + text[pos:]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--guide", type=Path, default=ROOT / "docs" / "user_guide.md")
    ap.add_argument("--work", type=Path, default=None, help="scratch folder (default: a new one)")
    args = ap.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="textwin-guide-"))
    work.mkdir(parents=True, exist_ok=True)
    bindir = work / "bin"
    bindir.mkdir(exist_ok=True)
    wrapper = bindir / "textwin"  # this checkout's textwin, whatever is installed
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m textwin.cli "$@"\n')
    wrapper.chmod(0o755)
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
               PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    sys.path.insert(0, str(ROOT))
    write_reuters10(work / "reuters10.jsonl")
    write_r8_folder(work / "r8")
    link_shared_corpora(work)
    text = args.guide.read_text(encoding="utf-8")
    parts, pos = [], 0
    for m in re.finditer(r"```console\n(.*?)```", text, flags=re.S):
        lines = m.group(1).rstrip("\n").split("\n")
        if not lines[0].startswith("$ ") or any("textwin reproduce" in ln for ln in lines):
            continue
        print(f"running: {lines[0][2:80]}", file=sys.stderr)
        parts += [text[pos:m.start(1)], "\n".join(rerun_block(lines, work, env)) + "\n"]
        pos = m.end(1)
    parts.append(text[pos:])
    text = rerun_python_examples("".join(parts), work, env)
    args.guide.write_text(text, encoding="utf-8")
    print(f"rewrote {args.guide}; review `git diff` (scratch folder: {work})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
