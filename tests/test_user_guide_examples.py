"""The user guide's Python examples print what the guide shows.

Each ```python block that the guide follows with "It printed" and a ```text block
is run as it stands, in a scratch folder, under the install that README gives
(`pip install ".[test]"`, which brings PyStemmer: its stems are what a reader gets),
and its output must equal the text block. `maint_tools/rerun_user_guide.py`
rewrites those blocks when the output changes on purpose.
"""
import contextlib
import io
import re
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "user_guide.md"
_EXAMPLE = re.compile(r"```python\n(?P<code>(?:(?!```).)*)```\n\nIt printed[^\n]*\n\n```text\n"
                      r"(?P<out>.*?)```", re.S)


def printed_examples(text):
    """[(line number, code, what the guide says it printed)] of the guide's examples."""
    return [(text[:m.start()].count("\n") + 1, m["code"], m["out"])
            for m in _EXAMPLE.finditer(text)]


EXAMPLES = printed_examples(GUIDE.read_text(encoding="utf-8"))


def test_the_guide_has_printed_examples():
    # the pattern must find them, or the test below checks nothing
    assert len(EXAMPLES) >= 3


@pytest.mark.corpus
@pytest.mark.slow
@pytest.mark.parametrize("line, code, printed", EXAMPLES,
                         ids=[f"line{line}" for line, _, _ in EXAMPLES])
def test_a_guide_example_prints_what_the_guide_shows(line, code, printed, reuters_data_home,
                                                     tmp_path, monkeypatch):
    pytest.importorskip("Stemmer", reason="the guide shows PyStemmer's stems (the test extra)")
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"docs/user_guide.md:{line}", "exec"), {"__name__": "__guide__"})
    assert out.getvalue() == printed
