"""The command line never clobbers a user's file, never drops data without a word,
and ends every everyday failure in one line.

Each test is a case a new user met: a corpus overwritten by ``-o``, a plot that
cost the model, a threshold that broke the one-class-per-document promise, a
traceback for a negative seed, joblib's chatter between the progress bars.
"""
import json
import os
import random
import zipfile

import pytest

from textwin.cli import EXIT_OK, EXIT_USAGE

from test_cli import assert_one_line_error, run  # noqa: E402 (tests/ on sys.path)

WORDS = {"a": "alpha beta gamma delta".split(), "b": "one two three four".split(),
         "c": "red green blue black".split()}


def write_corpus(path, classes=WORDS, per_class=40, seed=0):
    """A small single-label JSON Lines corpus: 40 documents of 8 words per class."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as fh:
        for label, vocabulary in classes.items():
            for _ in range(per_class):
                text = " ".join(rng.choices(vocabulary, k=8))
                fh.write(json.dumps({"text": text, "labels": [label]}) + "\n")
    return path


@pytest.fixture
def corpus(tmp_path):
    return write_corpus(tmp_path / "c.jsonl")


# -- -o and --plot never destroy a user's file ------------------------------------------

def test_the_model_is_never_written_over_the_corpus(capsys, corpus):
    before = corpus.read_bytes()
    code, _, err = run(capsys, "train", "--corpus", corpus, "-o", corpus, "-q")
    assert code == EXIT_USAGE
    assert_one_line_error(err, str(corpus), "input of this command")
    assert corpus.read_bytes() == before


def test_the_model_is_never_written_over_a_file_inside_a_folder_corpus(capsys, tmp_path):
    for label, words in WORDS.items():
        (tmp_path / "corpus" / label).mkdir(parents=True)
        for i in range(12):
            (tmp_path / "corpus" / label / f"{i}.txt").write_text(" ".join(words[i % 4:] * 2))
    inside = tmp_path / "corpus" / "a" / "0.txt"
    before = inside.read_bytes()
    code, _, err = run(capsys, "train", "--corpus", tmp_path / "corpus", "-o", inside, "-q",
                       "--force")
    assert code == EXIT_USAGE
    assert_one_line_error(err, "input of this command")
    assert inside.read_bytes() == before


def test_a_user_file_is_refused_without_force_and_replaced_with_it(capsys, tmp_path, corpus):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    code, _, err = run(capsys, "train", "--corpus", corpus, "-o", notes, "-q")
    assert code == EXIT_USAGE
    assert_one_line_error(err, str(notes), "not a textwin model", "--force")
    assert notes.read_text() == "my notes\n"
    code, _, _ = run(capsys, "train", "--corpus", corpus, "-o", notes, "-q", "--force")
    assert code == EXIT_OK and zipfile.is_zipfile(notes)


def test_a_model_of_ours_and_an_empty_file_are_replaced(capsys, tmp_path, corpus):
    model = tmp_path / "m.npz"
    assert run(capsys, "train", "--corpus", corpus, "-o", model, "-q")[0] == EXIT_OK
    assert run(capsys, "train", "--corpus", corpus, "-o", model, "-q")[0] == EXIT_OK
    empty = tmp_path / "empty.npz"
    empty.touch()
    assert run(capsys, "train", "--corpus", corpus, "-o", empty, "-q")[0] == EXIT_OK
    assert zipfile.is_zipfile(empty)


def test_a_plot_is_never_written_over_a_user_file(capsys, tmp_path, corpus):
    pytest.importorskip("matplotlib")
    picture = tmp_path / "holiday.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n" + b"a photograph, not ours" * 10)
    before = picture.read_bytes()
    code, _, err = run(capsys, "train", "--corpus", corpus, "--lam", "auto", "--plot",
                       picture, "-q")
    assert code == EXIT_USAGE
    assert_one_line_error(err, str(picture), "--force")
    assert picture.read_bytes() == before


def test_the_plot_never_replaces_the_model_of_the_same_command(capsys, tmp_path, corpus):
    pytest.importorskip("matplotlib")
    # -o and --plot to one path: the model was written, then the figure over it
    same = tmp_path / "run.png"
    code, _, err = run(capsys, "train", "--corpus", corpus, "--lam", "auto", "-o", same,
                       "--plot", tmp_path / "." / "run.png", "-q")
    assert code == EXIT_USAGE
    assert_one_line_error(err, "--plot", "the same file")
    assert not same.exists()


# -- everyday mistakes: one line ---------------------------------------------------------

@pytest.mark.parametrize("command", [["train"], ["eval"]])
def test_a_negative_seed_is_one_line(capsys, corpus, command):
    with pytest.raises(SystemExit) as exc:  # argparse's usage line and error
        run(capsys, *command, "--corpus", corpus, "--seed", "-1", "-q")
    err = capsys.readouterr().err
    assert exc.value.code == EXIT_USAGE and "Traceback" not in err
    assert "argument --seed: must be between 0 and 4294967295, got -1" in err


def test_a_one_class_corpus_says_a_classifier_needs_other_documents(capsys, tmp_path):
    one = write_corpus(tmp_path / "one.jsonl", {"a": WORDS["a"]}, per_class=20)
    code, _, err = run(capsys, "train", "--corpus", one, "-q")
    assert code != EXIT_OK
    assert_one_line_error(err, "'a'", "negative examples")
    assert "np.uint8" not in err
    assert "folder" not in err  # the hint about folder corpora is for folders only


# -- what is printed -----------------------------------------------------------------------

def test_a_single_label_model_gives_one_class_whatever_the_threshold(capsys, tmp_path, corpus):
    model = tmp_path / "m.npz"
    assert run(capsys, "train", "--corpus", corpus, "-o", model, "-q")[0] == EXIT_OK
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in (("x.txt", "alpha beta"), ("y.txt", "red blue"), ("z.txt", "nothing")):
        (docs / name).write_text(text)
    for threshold in ("-5", "5"):
        code, out, _ = run(capsys, "predict", model, docs, "--threshold", threshold, "--json")
        assert code == EXIT_OK
        rows = json.loads(out)
        rows = rows["documents"] if isinstance(rows, dict) else rows
        assert len(rows) == 3
        assert all(len(r["labels"]) == 1 for r in rows), rows


def test_joblib_says_nothing_between_the_progress_bars(capsys, corpus):
    code, _, err = run(capsys, "eval", "--corpus", corpus, "--methods", "linearsvc,smo", "-v")
    assert code == EXIT_OK
    assert "[Parallel(" not in err


# -- unreadable files ----------------------------------------------------------------------

def _unreadable(monkeypatch, victim):
    """Make ``victim`` unreadable, as chmod 000 does for a user who is not root."""
    import builtins
    import pathlib

    real_open, real_read_bytes = builtins.open, pathlib.Path.read_bytes

    def guarded_open(file, *args, **kwargs):
        if str(file) == str(victim):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    def guarded_read_bytes(self):
        if str(self) == str(victim):
            raise PermissionError(13, "Permission denied", str(self))
        return real_read_bytes(self)

    monkeypatch.setattr(builtins, "open", guarded_open)
    monkeypatch.setattr(pathlib.Path, "read_bytes", guarded_read_bytes)


@pytest.mark.parametrize("which", ["model", "input"])
def test_an_unreadable_model_or_input_is_one_line(capsys, tmp_path, corpus, monkeypatch, which):
    model = tmp_path / "m.npz"
    assert run(capsys, "train", "--corpus", corpus, "-o", model, "-q")[0] == EXIT_OK
    doc = tmp_path / "doc.txt"
    doc.write_text("alpha beta")
    _unreadable(monkeypatch, model if which == "model" else doc)
    code, _, err = run(capsys, "predict", model, doc)
    assert code == 3
    assert_one_line_error(err, str(model if which == "model" else doc), "Permission denied")


def test_a_corpus_of_many_classes_prints_a_short_report(capsys, tmp_path):
    from textwin.cli.common import SHOWN_ROWS

    n = SHOWN_ROWS + 12
    letters = "abcdefghijklmnopqrstuvwxyz"
    classes = {f"class{i:03d}": [f"{letters[i % 26]}{letters[i // 26]}word", "shared", "common"]
               for i in range(n)}
    many = write_corpus(tmp_path / "many.jsonl", classes, per_class=6)
    code, out, err = run(capsys, "train", "--corpus", many)
    assert code == EXIT_OK
    assert sum(line.startswith("class0") for line in out.splitlines()) == SHOWN_ROWS
    assert "... and 12 more classes (--json lists them all)" in out
    assert sum(line.startswith("  class0") for line in err.splitlines()) == SHOWN_ROWS
    assert "... and 12 more categories" in err
    code, out, _ = run(capsys, "train", "--corpus", many, "--json")
    result = json.loads(out)
    assert len(result["categories"]) == n and len(result["corpus_report"]["categories"]) == n


def test_ctrl_c_while_the_libraries_load_is_one_line(capsys, monkeypatch):
    import textwin.cli

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(textwin.cli, "build_parser", interrupted)  # it imports the methods
    code, _, err = run(capsys, "train", "--corpus", "c.jsonl")
    assert code == 130
    assert_one_line_error(err, "interrupted")


@pytest.mark.parametrize("option, reason", [
    (["--language", "german"], "Reuters-21578 is English, stemmed by Porter's stemmer"),
    (["--no-stem"], "Reuters-21578 is English, stemmed by Porter's stemmer"),
    (["--task", "multiclass"], "Reuters-21578 is multi-label"),
    (["--test-size", "0.5"], "Reuters-21578 has its own ModApte split"),
])
def test_a_corpus_option_on_reuters_says_why_it_does_not_apply(capsys, option, reason):
    code, _, err = run(capsys, "train", "--category", "acq", *option, "--offline")
    assert code == EXIT_USAGE
    assert_one_line_error(err, f"{option[0]} is for --corpus: {reason}")
    assert "multi-label" not in err or "--task" in option


@pytest.mark.parametrize("size", ["1.5", "0", "nan", "a"])
def test_a_test_size_outside_0_1_names_the_option(capsys, corpus, size):
    # it was the reader's 'test_size must be ...', a Python name, after the corpus was read
    with pytest.raises(SystemExit) as exc:
        run(capsys, "train", "--corpus", corpus, "--test-size", size, "-q")
    err = capsys.readouterr().err
    assert exc.value.code == EXIT_USAGE and "Traceback" not in err
    assert "argument --test-size: " in err and "test_size" not in err


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_is_no_corpus_and_no_input(capsys, tmp_path, corpus):
    # /dev/zero never ends: reading it as a corpus or a document took all the memory
    model = tmp_path / "m.npz"
    assert run(capsys, "train", "--corpus", corpus, "-o", model, "-q")[0] == EXIT_OK
    for command in (["train", "--corpus", "/dev/zero"],
                    ["train", "--corpus", corpus, "--test-corpus", "/dev/zero"],
                    ["predict", model, "/dev/zero"]):
        code, _, err = run(capsys, *command, "-q")
        assert code == EXIT_USAGE
        assert_one_line_error(err, "/dev/zero is a character device")


def test_predict_help_says_a_binary_model_decides_at_its_threshold(capsys):
    # a binary model keeps --tune-thresholds' threshold and predict applies it; the
    # help said the class came from the score against 0
    with pytest.raises(SystemExit):
        run(capsys, "predict", "--help")
    text = " ".join(capsys.readouterr().out.split())
    assert "score against 0" not in text
    assert "above the model's threshold (0 unless tuned)" in text


def test_auto_takes_every_ngrams_the_option_takes(capsys, corpus):
    # --ngrams accepts up to the vectorizer's cap; --auto refused 4 and 5 after reading
    # the corpus and starting the search
    from textwin.text import MAX_NGRAM

    code, out, err = run(capsys, "train", "--corpus", corpus, "--auto", "--ngrams",
                         MAX_NGRAM, "--json", "-q")
    assert code == EXIT_OK, err
    assert json.loads(out)["auto"]
