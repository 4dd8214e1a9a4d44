"""The README's results are the generated documents' results.

README.md quotes docs/reproduction.md (written by ``textwin reproduce``) and
docs/performance.md; when either is regenerated, these tests say which README
figure has gone stale. The user guide's `textwin reproduce` examples are rerun.
"""
import os
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _read(name):
    return (REPO / name).read_text(encoding="utf-8")


def _section(doc, heading):
    """The text from ``heading`` to the next heading of the same or a higher level."""
    start = doc.index(heading + "\n")
    body = start + len(heading) + 1
    level = len(heading.split()[0])
    end = re.search(r"^#{1,%d} " % level, doc[body:], re.M)
    return doc[start:body + end.start()] if end else doc[start:]


def _table_rows(text):
    """The cells of every row of the first Markdown table in ``text`` (header excluded)."""
    lines = [ln for ln in text.splitlines() if ln.startswith("|")]
    if len(lines) < 2:
        raise AssertionError("no Markdown table found")
    first = text.splitlines().index(lines[0])
    rows = []
    for line in text.splitlines()[first + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


def _key(label):
    """The registry key in backquotes of a row label such as ``Perceptron (`perceptron`)``."""
    found = re.findall(r"`([^`]+)`", label)
    return found[0] if found else None


def _readme_results():
    rows = _table_rows(_section(_read("README.md"), "## Results"))
    return {_key(r[0]): dict(paper=r[1], ours=r[2], diff=r[3], ok=r[4]) for r in rows}


def _reproduction_summary():
    """{method key: paper, ours, difference, within target} from the Summary table."""
    doc = _read("docs/reproduction.md")
    out = {}
    for cells in _table_rows(_section(doc, "## Summary")):
        m = re.fullmatch(r"Reuters micro-BEP, `([^`]+)`", cells[0])
        if m:
            out[m.group(1)] = dict(paper=cells[1], ours=cells[2], diff=cells[3],
                                   ok="yes" if cells[4] == "yes" else "no")
    return out


def _table_micro_averages():
    """{method key: (ours, paper)} from the micro-average rows of Tables 1 and 2."""
    doc = _read("docs/reproduction.md")
    out = {}
    for heading in ("### Table 1", "### Table 2"):
        start = doc.index(heading)
        text = doc[start:]
        header = next(ln for ln in text.splitlines() if ln.startswith("|"))
        keys = [c.strip().strip("`") for c in header.strip("|").split("|")][1:]
        micro = next(r for r in _table_rows(text) if r[0] == "**micro-average**")
        for key, cell in zip(keys, micro[1:]):
            m = re.fullmatch(r"\*\*(\d+\.\d)(?: \((\d+\.\d)\))?\*\*", cell)
            assert m, f"unexpected micro-average cell {cell!r} for {key}"
            out[key] = m.groups()
    return out


def test_readme_results_table_equals_reproduction_md():
    readme, summary = _readme_results(), _reproduction_summary()
    # every paper method of the report is in the README, and nothing else
    assert set(readme) == set(summary), (set(readme) ^ set(summary))
    for key, row in summary.items():
        assert readme[key] == row, f"README row {key}: {readme[key]} but reproduction.md {row}"
    # the Summary agrees with the tables it summarizes (so the README does too)
    tables = _table_micro_averages()
    for key, row in summary.items():
        assert tables[key] == (row["ours"], row["paper"]), key


def test_readme_claims_about_the_misses_hold():
    readme = _read("README.md")
    summary = _reproduction_summary()
    if "falls short of the paper for every method" in readme:
        assert all(float(r["diff"]) < 0 for r in summary.values())
    within = sorted(k for k, r in summary.items() if r["ok"] == "yes")
    m = re.search(r"only ((?:`[^`]+`(?:,| and)?\s*)+)meets? the\s+reproduction's\s+target of "
                  r"1 point", readme)
    assert m and sorted(re.findall(r"`([^`]+)`", m.group(1))) == within, within
    doc = _read("docs/reproduction.md")
    assert re.search(r"Targets: each Reuters micro-average within 1\.0 point", doc)
    if "bring most methods within 1 point" in readme:
        misses = [k for k, r in summary.items() if r["ok"] == "no"]
        rescued = re.findall(r"^\*\*`([^`]+)`\*\*.*?The best, [^\n]*\(within the micro target\)",
                             doc, re.M | re.S)
        assert len(set(rescued) & set(misses)) > len(misses) / 2, rescued


def test_readme_quotes_the_command_of_reproduction_md():
    readme, doc = _read("README.md"), _read("docs/reproduction.md")
    command = re.search(r"^\* Command: `([^`]+)`", doc, re.M).group(1)
    results = _section(readme, "## Results")
    assert f"```bash\n{command}\n```" in results, command


def test_readme_speed_line_equals_performance_md():
    perf = _read("docs/performance.md")
    m = re.search(r"median ratio textwin / liblinear over (\d+) problems: (\d\.\d+)", perf)
    assert m, "performance.md no longer prints the liblinear median ratio"
    problems, ratio = m.groups()
    results = _section(_read("README.md"), "## Results")
    line = results[results.index("Speed:"):]
    assert f"takes {ratio} times liblinear's time" in line
    assert f"median over {problems} problems" in line
    command = re.search(r"`(python benchmarks/bench_liblinear\.py[^`]*)`", line).group(1)
    assert f"`{command}`" in perf  # the command performance.md ran


def test_readme_first_screen_is_install_and_run():
    readme = _read("README.md")
    first = readme[:readme.index("## What is inside")]
    assert "pip install . && textwin eval --micro-breakeven" in first
    assert 'pip install ".[test]" && pytest' in first
    assert readme.index("## What is inside") < readme.index("## Results")


def test_user_guide_reproduce_errors_are_what_the_command_prints(tmp_path, capsys,
                                                                monkeypatch):
    """The guide's example errors of `textwin reproduce`, rerun here."""
    from textwin.cli import main

    guide = _section(_read("docs/user_guide.md"), "## `textwin reproduce`: the reproduction report")
    examples = re.findall(r"^\$ textwin (reproduce [^\n]*)\n(textwin: error: [^\n]*)\n"
                          r"\$ echo \$\?\n(\d+)$", guide, re.M)
    assert len(examples) == 3, examples
    empty = tmp_path / "empty"
    empty.mkdir()
    (tmp_path / "docs").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("textwin.datasets._reuters.fetch_remote",
                        lambda *a, **k: pytest.fail("tried to download"))
    for command, message, code in examples:
        argv = command.replace("/tmp/empty", str(empty)).split()
        assert main(argv) == int(code), command
        err = capsys.readouterr().err.strip()
        assert err.replace(str(empty), "/tmp/empty") == message


def test_readme_reproduce_command_in_an_unbuilt_checkout_says_what_to_do(tmp_path):
    """`python -m textwin.reproduce` from a checkout's root imports the checkout; unbuilt,
    that was an ImportError traceback after the corpus had loaded."""
    import shutil
    import subprocess
    import sys

    command = re.search(r"^\* Command: `([^`]+)`", _read("docs/reproduction.md"), re.M).group(1)
    assert command.startswith("python -m textwin.reproduce ")
    shutil.copytree(REPO / "textwin", tmp_path / "textwin",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    (tmp_path / "docs").mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["TEXTWIN_DATA_HOME"] = str(tmp_path / "no_data")  # never reached
    run = subprocess.run([sys.executable, *command.split()[1:]], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120, check=False)
    options = command.split(" ", 3)[3]
    assert run.returncode == 2, run.stderr
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr
    assert f"`textwin reproduce {options}`" in run.stderr
    assert 'pip install ".[build]" && python setup.py build_ext --inplace' in run.stderr
    assert not (tmp_path / "docs" / "reproduction.md").exists()


def test_user_guide_regenerate_command_is_the_recorded_one():
    command = re.search(r"^\* Command: `([^`]+)`", _read("docs/reproduction.md"), re.M).group(1)
    guide = _section(_read("docs/user_guide.md"), "## `textwin reproduce`: the reproduction report")
    assert f"`{command}`" in guide


# --- docs/mathematics.md: the code's references resolve ----------------------------------

# Where the repository's text lives (build output and generated Cython C excluded).
_TEXT_ROOTS = ("textwin", "tests", "benchmarks", "data_scripts", "maint_tools", "docs")
_TEXT_FILES = ("README.md", "setup.py", "pyproject.toml")
_TEXT_SUFFIXES = {".py", ".pyx", ".pxd", ".c", ".h", ".md", ".txt", ".toml", ".cfg"}
# "docs/mathematics.md §3", "docs/mathematics.md §1-§8, §10", "docs/mathematics.md's
# scaling (§10)": the section list that follows a mention within a few words.
_MATH_REF = re.compile(r"mathematics\.md(?:'s)?(?:[^§\n.;]|\n[ \t#*]*){0,30}?"
                       r"(§\d+(?:\s*[-–]\s*§?\d+)?(?:(?:,\s*|\s+and\s+)§\d+(?:\s*[-–]\s*§?\d+)?)*)")


def _repo_text_files():
    for name in _TEXT_FILES:
        if (REPO / name).is_file():
            yield REPO / name
    for root in _TEXT_ROOTS:
        for path in sorted((REPO / root).rglob("*")):
            if path.suffix not in _TEXT_SUFFIXES or not path.is_file():
                continue
            if {"build", "__pycache__"} & set(path.parts) or ".egg-info" in str(path):
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            if path.suffix == ".c" and text.startswith("/* Generated by Cython"):
                continue
            yield path


def _math_sections():
    """{N: heading} of the numbered sections of docs/mathematics.md."""
    doc = _read("docs/mathematics.md")
    return {int(m.group(1)): m.group(0) for m in re.finditer(r"^## (\d+)\. .+$", doc, re.M)}


def _cited_sections(text):
    """The section numbers that ``text`` cites in docs/mathematics.md (ranges expanded)."""
    cited = []
    for m in _MATH_REF.finditer(text):
        for a, b in re.findall(r"§(\d+)(?:\s*[-–]\s*§?(\d+))?", m.group(1)):
            cited.extend(range(int(a), int(b or a) + 1))
    return cited


def _unresolved_math_refs(files, sections):
    """(file, line, §N) for every reference to a section that docs/mathematics.md lacks."""
    bad = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        own = path == REPO / "docs" / "mathematics.md"
        for m in _MATH_REF.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            bad += [(path.name, line, n) for n in _cited_sections(m.group(0))
                    if n not in sections]
        if own:  # the page's own cross-references are bare: "(§5)"
            for m in re.finditer(r"§(\d+)", text):
                if int(m.group(1)) not in sections:
                    bad.append((path.name, text.count("\n", 0, m.start()) + 1,
                                int(m.group(1))))
    return bad


def test_mathematics_sections_are_numbered_in_order():
    sections = _math_sections()
    assert list(sections) == list(range(1, len(sections) + 1)), list(sections)
    assert len(sections) >= 12, sections


def test_every_mathematics_reference_resolves():
    files = list(_repo_text_files())
    assert any(p.name == "linear.py" for p in files)
    n_refs = sum(len(_cited_sections(p.read_text(encoding="utf-8", errors="replace")))
                 for p in files)
    assert n_refs > 50, n_refs  # the pattern still finds the code's references
    assert _unresolved_math_refs(files, _math_sections()) == []


def test_no_reference_to_a_design_file_outside_the_repository():
    stale = []
    for path in _repo_text_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in re.finditer(r"\bmath\.md", text):
            stale.append((str(path.relative_to(REPO)), text.count("\n", 0, m.start()) + 1))
    assert stale == [], "cite docs/mathematics.md §N instead: " + repr(stale)


def test_a_reference_to_a_missing_section_is_reported(tmp_path):
    sections = _math_sections()
    missing = max(sections) + 1
    src = tmp_path / "example.py"
    src.write_text(f"# the step (docs/mathematics.md §6), the bias (docs/mathematics.md "
                   f"§2-§{missing}, §3)\n# docs/mathematics.md's scaling (§{missing + 1})\n"
                   f"# the cap (docs/mathematics.md\n# §{missing + 2})\n", encoding="utf-8")
    assert _unresolved_math_refs([src], sections) == [
        ("example.py", 1, missing), ("example.py", 2, missing + 1), ("example.py", 3, missing + 2)]


# --- docs/performance.md: a current-state page whose figures say where they come from ------

def _performance_figures():
    return _table_rows(_section(_read("docs/performance.md"), "## Figures"))


def test_performance_page_is_short_and_every_figure_carries_command_date_commit():
    assert len(_read("docs/performance.md").splitlines()) <= 300
    rows = _performance_figures()
    assert len(rows) >= 8, rows
    for what, figure, command, date, commit in rows:
        assert re.search(r"`python benchmarks/\w+\.py[^`]*`|bench_\w+\.py", command), what
        assert re.fullmatch(r"(?:\d{1,2} [A-Z][a-z]{2} )?\d\d:\d\d(?:–\d\d:\d\d)?"
                            r"(?:, load \d+(?:–\d+)?)?", date), (what, date)
        assert re.fullmatch(r"`[0-9a-f]{7,40}`", commit), (what, commit)
        assert re.search(r"\d", figure), what


def test_readme_reproduction_time_equals_performance_md():
    row = next(r for r in _performance_figures() if r[0].startswith("the paper reproduction"))
    seconds = float(re.match(r"(\d+\.\d+) CPU s", row[1]).group(1))
    command = row[2].strip("`")
    results = _section(_read("README.md"), "## Results")
    assert f"in {seconds:.1f} CPU seconds" in results, seconds
    assert f"`{command}`" in results


def test_named_sections_of_performance_md_exist():
    """Code that points at a part of docs/performance.md by its title finds it."""
    headings = set(re.findall(r"^#{2,4} (.+)$", _read("docs/performance.md"), re.M))
    cited = []
    for path in _repo_text_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        cited += [(path.name, t) for t in
                  re.findall(r"performance\.md(?:,\s*|\s*\()\"([A-Z][^\"\n]+)\"", text)]
    assert len(cited) >= 2, cited  # the pattern still finds them
    missing = [(name, title) for name, title in cited if title not in headings]
    assert missing == []


def test_benchmarks_readme_lists_every_script():
    readme = _read("benchmarks/README.md")
    scripts = sorted(p.name for p in (REPO / "benchmarks").glob("*.py")
                     if not p.name.startswith("_"))
    assert [s for s in scripts if f"`{s}`" not in readme] == []


# --- docs/architecture.md: the map matches the territory ---------------------------------

_PATH = re.compile(r"(?<![\w./-])((?:textwin|tests|benchmarks|docs|data_scripts|maint_tools)/[\w./-]*|"
                   r"[\w-]+\.(?:py|pyx|pxd|c|h|md|toml))(?![\w/-])")


def _architecture_code():
    """Every `quoted` token of docs/architecture.md, and the text of its code blocks."""
    doc = _read("docs/architecture.md")
    blocks = re.findall(r"^```\n(.*?)^```", doc, re.M | re.S)
    return re.findall(r"`([^`\n]+)`", re.sub(r"^```\n.*?^```", "", doc, flags=re.M | re.S)), \
        "\n".join(blocks)


def _missing_paths(tokens, blocks):
    named = {m.group(1).rstrip(".") for t in tokens for m in _PATH.finditer(t)}
    named |= {m.group(1).rstrip(".") for m in _PATH.finditer(blocks)}
    missing = []
    for name in sorted(named):
        if "/" in name:
            if not (REPO / name).exists():
                missing.append(name)
        elif not any(REPO.glob(f"**/{name}")):
            missing.append(name)
    return named, missing


def test_every_file_the_architecture_names_exists():
    tokens, blocks = _architecture_code()
    named, missing = _missing_paths(tokens, blocks)
    assert len(named) >= 20, named  # the pattern still finds the page's paths
    assert missing == []
    # and a wrong one is caught
    assert _missing_paths(["textwin/no_such_module.py"], "")[1] == ["textwin/no_such_module.py"]


def test_every_name_the_architecture_says_to_grep_for_is_in_the_source():
    tokens, _ = _architecture_code()
    source = "\n".join(p.read_text(encoding="utf-8", errors="replace")
                       for p in _repo_text_files() if p.parts[len(REPO.parts)] == "textwin")
    names = {t.split(".")[-1].rstrip("()") for t in tokens
             if re.fullmatch(r"[A-Za-z_][\w.]*(?:\(\))?", t) and "/" not in t
             and not _PATH.fullmatch(t)}
    assert len(names) >= 30, names
    absent = sorted(n for n in names if not re.search(rf"\b{re.escape(n)}\b", source))
    assert absent == []


# --- the repository speaks of the product ------------------------------------------------

# Who wrote what, this project's issue numbers, the rounds in which work was done, and
# design notes that are not in the repository: git history keeps them, files do not.
_HISTORY = [
    (re.compile(r"(?<!scikit-learn )(?<!sklearn )(?<!numpy )(?<!scipy )\bissues? #?\d+\b",
                re.I), "an issue number"),
    (re.compile(r"\bthe issue'?s\b", re.I), "an issue"),
    (re.compile(r"\b(?:the|another|an?|other) (?:\w+ )?engineers?'?s?\b", re.I), "a role"),
    (re.compile(r"\bthe lead\b|\breviewers?\b", re.I), "a role"),
    (re.compile(r"\b(?:users|aesthetics|math)\.md\b"), "a design note outside the repository"),
    (re.compile(r"mathematics\.md(?:'s)?[\s#*(]*section \d"), "a section not cited as §N"),
    (re.compile(r"\b(?:this|that|the previous|the next|an earlier|a later|first|second|third|"
                r"fourth|fifth) session\b|\brounds? of work\b", re.I), "a round of work"),
]


def test_no_file_names_authors_issue_numbers_or_rounds_of_work():
    found = []
    for path in _repo_text_files():
        if path == Path(__file__).resolve():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for pattern, what in _HISTORY:
            for m in pattern.finditer(text):
                found.append(f"{path.relative_to(REPO)}:{text.count(chr(10), 0, m.start()) + 1}: "
                             f"{what} ({m.group(0)!r})")
    assert found == [], "\n".join(found)
