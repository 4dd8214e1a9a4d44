"""The command line on a user's own corpus, and its data-path errors."""
import json

import pytest

from textwin.cli import EXIT_NO_DATA, EXIT_USAGE

from test_cli import assert_one_line_error as one_line_error  # noqa: E402 (tests/ on sys.path)
from test_cli import run


# -- data paths ------------------------------------------------------------------------

@pytest.mark.corpus
def test_unusable_cache_dir_is_a_data_error(capsys, tmp_path, monkeypatch, reuters_data_home):
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("TEXTWIN_CACHE_DIR", str(tmp_path / "file"))
    home = tmp_path / "home"
    (home / "reuters21578").mkdir(parents=True)
    for src in (reuters_data_home / "reuters21578").glob("reut2-*.sgm"):
        (home / "reuters21578" / src.name).symlink_to(src)
    code, out, err = run(capsys, "train", "--category", "acq", "--offline", "--data-home", home)
    assert code == EXIT_NO_DATA and out == ""
    one_line_error(err, "TEXTWIN_CACHE_DIR=", "is not a writable folder (it is a file)")
    assert sorted(p.name for p in home.iterdir()) == ["reuters21578"]  # no cache there


def test_data_home_that_is_a_file(capsys, tmp_path):
    (tmp_path / "f").write_text("")
    for argv in (["data"], ["train", "--category", "acq", "--offline"]):
        code, out, err = run(capsys, *argv, "--data-home", tmp_path / "f")
        assert code == EXIT_NO_DATA and out == ""
        one_line_error(err, "is a file, not a folder")


def test_missing_test_corpus_is_named(capsys, tmp_path):
    (tmp_path / "train.svm").write_text("1 1:1\n2 2:1\n1 1:1 3:1\n2 2:1 3:1\n")
    code, _, err = run(capsys, "train", "--corpus", tmp_path / "train.svm", "--test-corpus",
                       tmp_path / "nope.svm", "--category", "1")
    assert code == EXIT_NO_DATA
    one_line_error(err, "test corpus not found", "nope.svm")
    assert "train.svm" not in err
