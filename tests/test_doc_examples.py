"""The shell blocks and Python snippets of README.md, docs/ and benchmarks/README.md run.

Every fenced block of those pages is a ```text block (output, never run), one of the user
guide's printed examples (a ```python block followed by "It printed": run by
tests/test_user_guide_examples.py), or carries a marker on the line just above its fence:

    <!-- doc-test: run -->          run as written (the fast ones)
    <!-- doc-test: smoke -->        run with --smoke after each `python benchmarks/X.py`
    <!-- doc-test: transcript -->   a console transcript, rerun and rewritten by
                                    maint_tools/rerun_user_guide.py
    <!-- doc-test: skip REASON -->  not run, for the reason given (a cluster of machines,
                                    hours of measuring, the test suite itself)

A block with no marker fails `test_every_block_is_run_or_marked`. Whatever the marker, each
`textwin ...` command of a block must parse with the command line's parser, each
`python benchmarks/X.py ...` of a page (in a block or in running text) with the script's,
and each `pip install` must name extras that pyproject.toml defines.

A run block (under CI, or with TEXTWIN_DOC_RUNS=1: .ci/run sets it) runs in a scratch
folder laid out as a checkout (`benchmarks/` linked, `docs/` empty, `../shared` the data
home), the environment holding TEXTWIN_DATA_HOME: a shell
block line by line in bash (its `pip install`, `python setup.py build_ext` and `export`
lines are checked above rather than run: the test runs against the textwin it imports), a
Python block as a file of its own. Inputs a page names as the reader's own (README's
`my_corpus/`) are made from the shared corpora by `READERS_OWN` below.
"""
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = ["README.md", *sorted(str(p.relative_to(REPO)) for p in (REPO / "docs").glob("*.md")),
         "benchmarks/README.md"]
MARKER = re.compile(r"^<!-- doc-test: (?P<kind>\w+)(?: (?P<why>.*?))? -->$")
KINDS = ("run", "smoke", "transcript", "skip")
# The reader's own inputs that a page names, made for the run from the shared corpora
# (paths relative to the data home): README's "on your own corpus".
READERS_OWN = {"my_corpus": "corpora/agnews-small",
               "new_documents": "corpora/agnews-small/test.jsonl"}
# Lines of a shell block that are checked, not run.
_NOT_RUN = re.compile(r"^(pip install |python setup\.py |export )")
SECONDS = 900


def blocks(page):
    """[(line, language, marker kind, reason, text)] of a page's fenced blocks."""
    lines = (REPO / page).read_text(encoding="utf-8").split("\n")
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^```(\S*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        marker = MARKER.match(lines[i - 1]) if i else None
        body = "\n".join(lines[i + 1:end]) + "\n"
        after = "\n".join(lines[end + 1:end + 3])
        kind = marker["kind"] if marker else None
        if kind is None and m[1] == "python" and after.strip().startswith("It printed"):
            kind = "printed"  # tests/test_user_guide_examples.py runs it
        out.append((i + 1, m[1], kind, marker and marker["why"], body))
        i = end + 1
    return out


ALL = [(page, *b) for page in PAGES for b in blocks(page)]
RUN = [b for b in ALL if b[3] in ("run", "smoke")]


def test_every_block_is_run_or_marked():
    unmarked = [f"{page}:{line}" for page, line, lang, kind, _, _ in ALL
                if lang != "text" and kind is None]
    assert not unmarked, ("blocks neither run nor marked (add `<!-- doc-test: run -->`, "
                          "`smoke`, `transcript` or `skip REASON` on the line above the "
                          f"fence, or make an output block ```text): {unmarked}")
    unknown = [f"{page}:{line} {kind}" for page, line, _, kind, _, _ in ALL
               if kind not in (*KINDS, "printed", None)]
    assert not unknown, unknown
    reasonless = [f"{page}:{line}" for page, line, _, kind, why, _ in ALL
                  if kind == "skip" and not why]
    assert not reasonless, f"a skipped block says why: {reasonless}"
    assert len(RUN) >= 5  # the pattern finds the blocks, or the test below checks nothing


def commands(text):
    """The logical command lines of a shell or console block (continuations joined, a
    console's prompt dropped, its output lines left out), split at `&&`."""
    text = re.sub(r"\\\n\s*", " ", text)
    console = any(ln.startswith("$ ") for ln in text.split("\n"))
    out = []
    for line in text.split("\n"):
        if console:
            if not line.startswith("$ "):
                continue
            line = line[2:]
        line = line.strip()
        if line and not line.startswith("#"):
            out += [part.strip() for part in line.split("&&")]
    return out


def _words(command):
    return shlex.split(command, comments=True)


def test_the_pages_pip_installs_name_extras_that_exist():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11
    extras = set(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
                 ["optional-dependencies"])
    wrong = []
    for page, line, lang, _, _, text in ALL:
        if lang == "text":
            continue
        for command in commands(text):
            if not command.startswith("pip install "):
                continue
            for word in _words(command)[2:]:
                m = re.fullmatch(r"\.(?:\[([\w,-]+)\])?", word)
                if word.startswith("textwin["):  # textwin is installed from the checkout
                    wrong.append(f"{page}:{line}: {word}")
                elif m and m[1] and not set(m[1].split(",")) <= extras:
                    wrong.append(f"{page}:{line}: {word} (extras: {sorted(extras)})")
    assert not wrong, wrong


def test_the_pages_textwin_commands_parse():
    from textwin.cli import build_parser

    parser = build_parser()
    failed = []
    for page, line, lang, _, _, text in ALL:
        if lang == "text":
            continue
        for command in commands(text):
            words = _words(command.split("|")[0])
            if not words or words[0] != "textwin" or words[1:] in ([], ["--version"]):
                continue
            try:
                args, extra = parser.parse_known_args(words[1:])
            except SystemExit:
                failed.append(f"{page}:{line}: {command}")
                continue
            if extra and args.command != "predict":
                failed.append(f"{page}:{line}: {command} (unrecognized: {extra})")
    assert not failed, "\n".join(failed)


@pytest.fixture
def scratch_checkout(tmp_path, reuters_data_home):
    """A folder laid out as a checkout's root beside ../shared, and the run's env."""
    root = tmp_path / "textwin"
    root.mkdir()
    (root / "benchmarks").symlink_to(REPO / "benchmarks")
    (root / "docs" / "figures").mkdir(parents=True)
    (tmp_path / "shared").symlink_to(reuters_data_home)
    for name, source in READERS_OWN.items():
        (root / name).symlink_to(Path(reuters_data_home) / source)
    import textwin

    env = dict(os.environ, MPLBACKEND="Agg", TEXTWIN_DATA_HOME=str(reuters_data_home),
               PYTHONPATH=str(Path(textwin.__file__).parents[1]))
    git_dir = subprocess.run(["git", "rev-parse", "--absolute-git-dir"], cwd=REPO,
                             capture_output=True, text=True, check=False).stdout.strip()
    if git_dir:  # `git show REV:FILE` in a page's block reads this repository
        env["GIT_DIR"] = git_dir
    return root, env


def _smoke(command):
    return re.sub(r"(\bpython3? benchmarks/\S+\.py)", r"\1 --smoke", command)


def _shown_status(text, command):
    """The exit status a console transcript shows for ``command`` (`$ echo $?` after it),
    else None."""
    m = re.search(r"^\$ " + re.escape(command) + r"\n(?:(?!\$ ).*\n)*?\$ echo \$\?\n(\d+)$",
                  text, re.M)
    return int(m[1]) if m else None


def _run_block(lang, kind, text, root, env):
    """None, or what went wrong running one block."""
    if lang == "python":
        (root / "snippet.py").write_text(text, encoding="utf-8")
        run = subprocess.run([sys.executable, "snippet.py"], cwd=root, env=env, text=True,
                             capture_output=True, timeout=SECONDS, check=False)
        return run.returncode and run.stderr[-3000:]
    for command in commands(text):
        if _NOT_RUN.match(command) or command == "echo $?":
            continue
        shown = _shown_status(text, command) if lang == "console" else None
        run = subprocess.run(["bash", "-c", _smoke(command) if kind == "smoke" else command],
                             cwd=root, env=env, text=True, capture_output=True,
                             timeout=SECONDS, check=False)
        if run.returncode != (shown or 0):
            return f"{command}: exit status {run.returncode}\n{run.stderr[-3000:]}"
    return None


RUN_PAGES = sorted({b[0] for b in RUN})


@pytest.mark.corpus
@pytest.mark.slow
@pytest.mark.parametrize("page", RUN_PAGES)
def test_a_pages_blocks_run_in_order(page, scratch_checkout):
    """A page's run blocks, in its order, in one folder: a later block may read what an
    earlier one wrote, as a reader following the page would have it. Minutes of commands:
    they run under CI (CI=true) or with TEXTWIN_DOC_RUNS=1, which .ci/run sets."""
    if not (os.environ.get("CI") or os.environ.get("TEXTWIN_DOC_RUNS")):
        pytest.skip("the pages' commands take minutes: TEXTWIN_DOC_RUNS=1 runs them "
                    "(.ci/run sets it)")
    root, env = scratch_checkout
    for p, line, lang, kind, _, text in RUN:
        if p == page:
            failure = _run_block(lang, kind, text, root, env)
            assert not failure, f"{page}:{line}: {failure}"


class _Parsed(Exception):
    """Raised by the patched parse_args: the options parsed, nothing run."""


def benchmark_commands():
    """{(script, args)} of every `python benchmarks/X.py ...` a page names, in a block or
    in running text (a command over two lines of prose included); commands with a
    placeholder in capitals (`--data DATA`) and `[optional]` parts are left out."""
    found = set()
    for page in PAGES:
        text = re.sub(r"\\\n\s*", " ", (REPO / page).read_text(encoding="utf-8"))
        fenced = re.findall(r"^```[^\n]*\n(.*?)^```", text, re.M | re.S)
        prose = re.sub(r"^```[^\n]*\n.*?^```", "", text, flags=re.M | re.S)
        spans = [s.replace("\n", " ") for s in re.findall(r"`([^`]+)`", prose)]
        for code in [*fenced, *spans]:
            for m in re.finditer(r"python3? benchmarks/(\w+\.py)((?:[ \t]+[^\s|<>&;#]+)*)",
                                 code):
                args = m[2].split()
                if any(a.isupper() or a.startswith("[") for a in args):
                    continue
                found.add((m[1], tuple(args)))
    return sorted(found)


def test_the_pages_benchmark_commands_parse(monkeypatch, capsys):
    """Each script's own parser reads the options a page gives it (run to the parse only)."""
    import argparse
    import importlib.util

    commands = benchmark_commands()
    assert len(commands) >= 30
    original = argparse.ArgumentParser.parse_args

    def parse_only(self, args=None, namespace=None):
        raise _Parsed(original(self, args, namespace))

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_only)
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    failed = []
    for script, args in commands:
        spec = importlib.util.spec_from_file_location(f"_doc_{script[:-3]}",
                                                      REPO / "benchmarks" / script)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        monkeypatch.setattr(sys, "argv", [script, *args])
        try:
            module.main()
        except _Parsed:
            continue
        except SystemExit:
            pass
        failed.append(f"python benchmarks/{script} {' '.join(args)}: "
                      f"{capsys.readouterr().err.strip().splitlines()[-1:]}")
    assert not failed, "\n".join(failed)
