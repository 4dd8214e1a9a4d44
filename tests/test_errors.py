"""Bad input, from the API and from the command line: a clear error, nothing lost.

Each test feeds one kind of bad input and checks that the message says what is
wrong (and, on the command line, that it is one ``textwin: error:`` line with the
right exit code and no traceback), that no wrong answer comes out silently, and
that no partial file is left behind.
"""
import json
import os
import re
import stat

import numpy as np
import pytest
import scipy.sparse as sp

from textwin import DualSVM, Perceptron, RegularizedWinnow, Winnow
from textwin.cli import EXIT_BAD_MODEL, EXIT_INTERRUPTED, EXIT_NO_DATA, EXIT_USAGE, main
from textwin.corpora import CorpusError, read_jsonl
from textwin.metrics import breakeven_point
from textwin.persistence import ModelFormatError, TextModel, load_model, save_model

from test_cli import assert_one_line_error as one_line_error  # noqa: E402 (tests/ on sys.path)
from test_cli import run


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def corpus(tmp_path):
    """A tiny two-category JSON Lines corpus with a fixed split and a document of no word."""
    recs = []
    for i in range(40):
        spam = i % 2 == 0
        words = "cheap pills offer free" if spam else "meeting project lunch report"
        recs.append({"text": f"{words} the {i % 5}", "labels": ["spam"] if spam else ["ham"],
                     "split": "test" if i % 4 == 3 else "train"})
    recs.append({"text": "12 34 !!", "labels": ["ham"], "split": "train"})
    return write_jsonl(tmp_path / "mail.jsonl", recs)


@pytest.fixture
def sparse_problem():
    X = sp.random(40, 12, density=0.4, format="csr", random_state=0)
    y = np.arange(40) % 2
    return X, y


# -- solver settings -----------------------------------------------------------------

@pytest.mark.parametrize("est, fragment", [
    (DualSVM(lam=0.0), "lam must be a finite number > 0"),
    (DualSVM(lam=-1e-3), "lam must be a finite number > 0"),
    (DualSVM(lam=np.inf), "lam must be a finite number > 0"),
    (DualSVM(tol=-1e-3), "tol must be a finite number >= 0"),
    (DualSVM(max_epochs=0), "max_epochs must be an integer in [1, 2147483647]"),
    (DualSVM(max_epochs=10 ** 20), "max_epochs must be an integer in [1, 2147483647]"),
    (RegularizedWinnow(lam=0.0), "lam must be a finite number > 0"),
    (Perceptron(n_epochs=0), "n_epochs must be an integer in [1, 2147483647]"),
    (Perceptron(n_epochs=10 ** 20), "n_epochs must be an integer in [1, 2147483647]"),
    (Winnow(theta=np.nan), "theta"),
])
def test_bad_solver_settings_name_the_parameter(sparse_problem, est, fragment):
    with pytest.raises(ValueError, match=re.escape(fragment)):
        est.fit(*sparse_problem)


@pytest.mark.parametrize("argv, fragment", [
    (["--lam", "0"], "--lam must be positive"),
    (["--lam", "inf"], "--lam must be a finite number"),
    (["--tol", "-1"], "--tol must be positive"),
    (["--epochs", "0"], "--epochs must be an integer from 1 to 2147483647"),
    (["--method", "rwinnow", "--theta", "nan"], "--theta must be a finite number"),
    (["--n-jobs", "0"], "--n-jobs must be a positive number of threads or -1"),
])
def test_bad_solver_settings_on_the_command_line(capsys, corpus, argv, fragment):
    code, out, err = run(capsys, "train", "--corpus", corpus, "--category", "spam", *argv)
    assert code == EXIT_USAGE and out == ""
    one_line_error(err, fragment)


def test_an_estimator_refusal_is_one_line_not_a_traceback(capsys, corpus, monkeypatch):
    # Whatever the estimator refuses in fit reaches the user as its own message.
    import textwin.linear

    def refuse(self, X, y, sample_weight=None):
        raise ValueError("DualSVM: something about the data\nsecond line of detail.")

    monkeypatch.setattr(textwin.linear.DualGaussSeidelClassifier, "fit", refuse)
    code, _, err = run(capsys, "train", "--corpus", corpus, "--category", "spam")
    assert code == EXIT_USAGE
    one_line_error(err, "DualSVM: something about the data")


def test_convergence_warning_names_the_category(capsys, corpus):
    code, _, err = run(capsys, "train", "--corpus", corpus, "--category", "all", "--epochs",
                       "1", "--tol", "1e-12")
    assert code == 0, err
    (line,) = [ln for ln in err.splitlines() if "did not converge" in ln]
    assert re.search(r"the worst \(problem [01]: (ham|spam)\) stopped after 1 epochs", line)
    assert "warm_start" not in line  # the API's hint; the command line has no warm start
    # the command line's flags, not the API's parameters
    assert "Raise --epochs, loosen --tol," in line and "max_epochs" not in line
    assert "a larger --lam also helps" in line


# -- NaN and infinity ------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("bad", [np.nan, np.inf])
@pytest.mark.parametrize("est", [DualSVM(), RegularizedWinnow(), Perceptron(), Winnow()])
def test_nan_or_inf_in_the_matrix_is_refused(sparse_problem, est, bad):
    X, y = sparse_problem
    X = X.copy()
    X.data[3] = bad
    with pytest.raises(ValueError, match="NaN|infinity"):
        est.fit(X, y)
    fitted = type(est)().fit(*sparse_problem)
    with pytest.raises(ValueError, match="NaN|infinity"):
        fitted.decision_function(X)


def test_nan_score_is_refused_by_the_metrics():
    with pytest.raises(ValueError, match="NaN"):
        breakeven_point([1, 0, 1], [0.5, np.nan, 0.1])


def test_nan_in_an_svmlight_corpus_is_one_line(capsys, tmp_path):
    train = tmp_path / "train.svm"
    train.write_text("".join(f"{i % 2} {1 + i % 2}:1 3:{'nan' if i == 5 else 0.5}\n"
                             for i in range(30)))
    code, _, err = run(capsys, "train", "--corpus", train, "--category", "1")
    assert code == EXIT_USAGE
    one_line_error(err, "train.svm:6: feature 3 has the value nan", "finite number")


# -- empty documents, empty corpora -------------------------------------------------

def test_empty_document_trains_and_scores_the_bias(capsys, tmp_path, corpus, monkeypatch):
    model_path = tmp_path / "m.npz"
    code, _, err = run(capsys, "train", "--corpus", corpus, "--category", "spam",
                       "--method", "svm-alg2-converged", "--output", model_path)
    assert code == 0, err
    assert "1 training and 0 test documents have none of the" in err  # counted, not dropped
    model = load_model(model_path)
    assert model.intercept[0] != 0.0  # else "score = bias" would prove nothing
    np.testing.assert_array_equal(model.decision_function(["", "12 34 !!"]),
                                  [model.intercept, model.intercept])
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    code, out, err = run(capsys, "predict", model_path, empty, "--json")
    assert code == 0, err
    (doc,) = json.loads(out)
    assert doc["scores"]["spam"] == pytest.approx(model.intercept[0], abs=0, rel=1e-15)


def test_stdin_bytes_that_are_not_utf8(capsys, tmp_path, corpus, monkeypatch):
    import io
    import sys

    model_path = tmp_path / "m.npz"
    assert run(capsys, "train", "--corpus", corpus, "--category", "spam", "--output",
               model_path, "-q")[0] == 0
    raw = b"cheap pills caf\xe9 offer\r\n\nmeeting lunch report\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8"))
    code, out, err = run(capsys, "predict", model_path, "--json")
    assert code == 0, err
    docs = json.loads(out)
    assert [d["id"] for d in docs] == ["line 1", "line 3"]  # the blank line is skipped
    expected = load_model(model_path).decision_function(
        ["cheap pills caf\xe9 offer", "meeting lunch report"])[:, 0]
    assert [d["scores"]["spam"] for d in docs] == pytest.approx(expected, rel=1e-12)
    assert docs[0]["labels"] == ["spam"] and docs[1]["labels"] == []


@pytest.mark.parametrize("records, fragment", [
    ([], "no documents found"),
    ([{"text": "a", "labels": []}, {"text": "b", "labels": []}], "no document has a label"),
    ([{"text": "a", "labels": ["x"]}, {"text": "b"}], "c.jsonl:2: no \"labels\" field"),
    ([{"text": "12", "labels": ["x"]}, {"text": " !! ", "labels": ["y"]}] * 4,
     "contain no word at all"),
    ([{"text": "", "labels": ["x"]}, {"text": "  ", "labels": ["y"]}] * 4,
     "c.jsonl: no documents found (skipped 8 rows with an empty text"),
])
def test_empty_corpus_or_no_usable_labels(capsys, tmp_path, records, fragment):
    path = write_jsonl(tmp_path / "c.jsonl", records)
    code, out, err = run(capsys, "train", "--corpus", path, "--category", "all")
    assert code == EXIT_USAGE and out == ""
    one_line_error(err, fragment)


def test_category_in_every_training_document(capsys, tmp_path):
    # In a folder corpus, files of the same name and identical bytes in two folders are
    # one document with both labels: here "sport" covers every document, so no negative
    # example is left.
    for cat in ("sport", "politics"):
        (tmp_path / cat).mkdir()
        for i in range(8):
            (tmp_path / cat / f"{i}.txt").write_text(f"words {i}")
    code, _, err = run(capsys, "train", "--corpus", tmp_path, "--category", "sport")
    assert code == EXIT_USAGE
    one_line_error(err, "every training document", "'sport'", "negative examples",
                   "files of the same name")


def test_category_without_training_documents(capsys, tmp_path, corpus):
    recs = [json.loads(line) for line in corpus.read_text().splitlines()]
    recs.append({"text": "rare words only in the test part", "labels": ["rare"],
                 "split": "test"})
    path = write_jsonl(tmp_path / "rare.jsonl", recs)
    code, _, err = run(capsys, "train", "--corpus", path, "--category", "rare")
    assert code == EXIT_USAGE
    one_line_error(err, "category 'rare' has no training document")
    # With `all` it is kept (a constant model) and named once, by name, not by column.
    code, out, err = run(capsys, "train", "--corpus", path, "--category", "all")
    assert code == 0, err
    assert "1 category of" in err and "rare (no training document)" in err
    assert "column" not in err
    assert run(capsys, "train", "--corpus", path, "--category", "all", "-q")[2] == ""


# -- custom corpus files -----------------------------------------------------------------

def test_folder_corpus_with_train_but_no_test(capsys, tmp_path):
    (tmp_path / "train" / "sport").mkdir(parents=True)
    (tmp_path / "train" / "sport" / "a.txt").write_text("football")
    code, _, err = run(capsys, "train", "--corpus", tmp_path, "--category", "sport")
    assert code == EXIT_USAGE
    one_line_error(err, "has a train/ folder but no test/ folder")


def test_non_utf8_jsonl_names_file_line_and_byte(capsys, tmp_path):
    path = tmp_path / "latin.jsonl"
    path.write_bytes(b'{"text": "ok", "labels": ["a"]}\n{"text": "caf\xe9", "labels": ["b"]}\n')
    with pytest.raises(CorpusError, match=r"latin\.jsonl:2: not UTF-8 \(byte 0xe9"):
        read_jsonl(path)
    code, _, err = run(capsys, "train", "--corpus", path, "--category", "a")
    assert code == EXIT_USAGE
    one_line_error(err, "latin.jsonl:2", "UTF-8")


def test_jsonl_line_that_is_not_json(capsys, tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "a", "labels": ["x"]}\n\n{"text": "b", labels: ["y"]}\n')
    code, _, err = run(capsys, "train", "--corpus", path, "--category", "x")
    assert code == EXIT_USAGE
    one_line_error(err, "c.jsonl:3: not valid JSON")


@pytest.mark.parametrize("line, fragment", [
    ("1 1:1 2:x", "c.svm:3: value 'x' of feature 2 is not a number"),
    ("1 0:1", "c.svm:3: feature index 0 is below 1; svmlight indices start at 1"),
    ("one 1:1", "c.svm:3: label 'one' is not a number"),
])
def test_svmlight_bad_lines(capsys, tmp_path, line, fragment):
    path = tmp_path / "c.svm"
    path.write_text("0 1:1\n1 2:1\n" + line + "\n0 3:1\n")
    code, _, err = run(capsys, "train", "--corpus", path, "--category", "1")
    assert code == EXIT_USAGE
    one_line_error(err, fragment)


def test_weighting_of_an_svmlight_corpus_is_refused(capsys, tmp_path):
    path = tmp_path / "c.svm"
    path.write_text("".join(f"{i % 2} {1 + i % 2}:1\n" for i in range(20)))
    code, _, err = run(capsys, "train", "--corpus", path, "--category", "1",
                       "--weighting", "tfidf")
    assert code == EXIT_USAGE
    one_line_error(err, "--weighting is for text corpora")


def test_corpus_options_without_a_corpus_are_refused(capsys):
    # Checked before the corpus is read: no data needed.
    code, _, err = run(capsys, "train", "--category", "acq", "--test-size", "0.5", "--seed",
                       "3")
    assert code == EXIT_USAGE
    one_line_error(err, "--test-size, --seed are for --corpus", "ModApte split")


# -- model files -------------------------------------------------------------------------

@pytest.fixture
def text_model(tmp_path):
    model = TextModel(np.array([[1.0, -2.0]]), [0.5], ["spam"], vocabulary=["a", "b", "c"],
                      selected=[0, 2])
    path = tmp_path / "m.npz"
    save_model(path, model)
    return path


@pytest.mark.parametrize("content, fragment", [
    (b"", "an empty file"),
    (b"hello, I am text\n", "not a zip archive"),
    (b"\x80\x04\x95 pickled", "a Python pickle, which textwin never loads"),
    (b"\x93NUMPY\x01\x00", "a bare .npy array"),
])
def test_non_archive_model_files_never_suggest_unpickling(capsys, tmp_path, content, fragment):
    path = tmp_path / "m.npz"
    path.write_bytes(content)
    with pytest.raises(ModelFormatError, match=fragment) as exc:
        load_model(path)
    assert "allow_pickle" not in str(exc.value) and "pickle.load" not in str(exc.value)
    code, _, err = run(capsys, "predict", path, "-")
    assert code == EXIT_BAD_MODEL
    one_line_error(err, fragment)


def test_model_with_a_newer_preprocessing_option(capsys, tmp_path, text_model):
    # a format 1.2 file with a vectorizer option this textwin lacks: one line and
    # "upgrade", not a TypeError traceback from the first prediction
    with np.load(text_model, allow_pickle=False) as npz:
        arrays = dict(npz)
    meta = json.loads(arrays["__metadata__"].tobytes())
    meta.update(format_version="1.2", preprocessing={**meta["preprocessing"],
                                                     "stop_words": "english"})
    arrays["__metadata__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    newer = tmp_path / "newer.npz"
    np.savez(newer, **arrays)
    doc = tmp_path / "doc.txt"
    doc.write_text("a b c")
    code, out, err = run(capsys, "predict", newer, doc)
    assert code == EXIT_BAD_MODEL and out == ""
    one_line_error(err, "'stop_words'", "upgrade textwin")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_output_that_is_not_a_regular_file(capsys, tmp_path, corpus):
    # a FIFO (or a device such as /dev/full) must not be replaced by a regular file
    fifo = tmp_path / "pipe.npz"
    os.mkfifo(fifo)
    folder = tmp_path / "models"
    folder.mkdir()
    for output in (fifo, folder):
        code, _, err = run(capsys, "train", "--corpus", corpus, "--category", "spam",
                           "--output", output, "-q")
        assert code == EXIT_USAGE
        one_line_error(err, f"cannot write the model to {output}", "not a regular file")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert list(folder.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mail.jsonl", "models", "pipe.npz"]


def test_non_finite_threshold(capsys, text_model):
    code, _, err = run(capsys, "predict", text_model, "--threshold", "nan", "-")
    assert code == EXIT_USAGE
    one_line_error(err, "--threshold must be a finite number")


def test_wrong_number_of_features(capsys, tmp_path, text_model):
    model = load_model(text_model)
    with pytest.raises(ValueError, match="X has 5 features, the model expects 3"):
        model.decision_function(sp.csr_matrix((2, 5)))
    fitted = DualSVM().fit(sp.random(20, 4, density=0.5, random_state=0), np.arange(20) % 2)
    with pytest.raises(ValueError, match="4 features"):
        fitted.decision_function(sp.csr_matrix((2, 6)))


def test_svmlight_input_wider_than_the_model(capsys, tmp_path):
    train = tmp_path / "train.svm"
    train.write_text("".join(f"{i % 2} {1 + i % 2}:1 3:0.5\n" for i in range(30)))
    model = tmp_path / "m.npz"
    code, _, err = run(capsys, "train", "--corpus", train, "--category", "1", "--output",
                       model, "-q")
    assert code == 0, err
    wide = tmp_path / "wide.svm"
    wide.write_text("0 1:1\n0 1:1 9:1\n")
    code, out, err = run(capsys, "predict", model, wide)
    assert code == EXIT_USAGE and out == ""
    one_line_error(err, "wide.svm:2: feature index 9 is beyond the 3 features of the model")
    wide.write_text("0 1:1\n0 x:1\n")
    code, out, err = run(capsys, "predict", model, wide)
    assert code == EXIT_USAGE and out == ""
    one_line_error(err, "wide.svm:2: feature index 'x' is not an integer")


# -- interruption ------------------------------------------------------------------------

@pytest.mark.parametrize("when", ["training", "saving"])
def test_ctrl_c_exits_130_and_leaves_no_model_file(capsys, tmp_path, corpus, monkeypatch,
                                                     when):
    import textwin.linear
    import textwin.persistence

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    if when == "training":
        monkeypatch.setattr(textwin.linear.DualGaussSeidelClassifier, "fit", interrupt)
    else:  # in the middle of writing the archive
        def half_written(entry, header):  # the archive's first entry has begun
            entry.write(b"\x93NUMPY half an entry")
            raise KeyboardInterrupt

        monkeypatch.setattr(textwin.persistence.np.lib.format, "write_array_header_1_0",
                            half_written)
    out_dir = tmp_path / "models"
    out_dir.mkdir()
    code, out, err = run(capsys, "train", "--corpus", corpus, "--category", "spam",
                         "--output", out_dir / "m.npz")
    assert code == EXIT_INTERRUPTED
    one_line_error(err, "interrupted")
    assert list(out_dir.iterdir()) == []  # neither the model nor a temporary file


def test_ctrl_c_during_save_keeps_the_previous_model(tmp_path, text_model, monkeypatch):
    import textwin.persistence

    before = text_model.read_bytes()

    def interrupted(entry, header):
        entry.write(b"garbage")
        raise KeyboardInterrupt

    monkeypatch.setattr(textwin.persistence.np.lib.format, "write_array_header_1_0",
                        interrupted)
    with pytest.raises(KeyboardInterrupt):
        save_model(text_model, TextModel(np.ones((1, 2)), [0.0], ["x"]))
    assert text_model.read_bytes() == before
    assert sorted(p.name for p in text_model.parent.iterdir()) == ["m.npz"]


# -- unknown category in the API -------------------------------------------------------

@pytest.mark.corpus
def test_unknown_category_in_the_api_lists_the_closest(reuters_data_home):
    from textwin.experiments import UnknownCategoryError, load_protocol_data

    with pytest.raises(UnknownCategoryError, match=r"'aqc'.*closest: acq"):
        load_protocol_data("aqc", reuters_data_home)


@pytest.mark.corpus
def test_malformed_sgml_on_the_command_line(capsys, tmp_path, reuters_data_home, monkeypatch):
    corpus = tmp_path / "home" / "reuters21578"
    corpus.mkdir(parents=True)
    for src in sorted((reuters_data_home / "reuters21578").glob("reut2-*.sgm")):
        if src.name == "reut2-000.sgm":
            payload = src.read_bytes()
            (corpus / src.name).write_bytes(payload[: len(payload) // 3])
        else:
            (corpus / src.name).symlink_to(src)
    monkeypatch.setenv("TEXTWIN_CACHE_DIR", str(tmp_path / "cache"))
    for argv in (["train", "--category", "acq", "--offline"], ["data", "--verify"]):
        code, out, err = run(capsys, *argv, "--data-home", tmp_path / "home")
        assert code == EXIT_NO_DATA and out == ""
        one_line_error(err, "is damaged", "reut2-000.sgm, line", "never closed",
                       "textwin data --fetch")


@pytest.mark.corpus
def test_read_only_data_home_works_and_stays_clean(capsys, tmp_path, reuters_data_home,
                                                   monkeypatch):
    home = tmp_path / "ro"
    (home / "reuters21578").mkdir(parents=True)
    for src in (reuters_data_home / "reuters21578").glob("reut2-*.sgm"):
        (home / "reuters21578" / src.name).symlink_to(src)
    monkeypatch.delenv("TEXTWIN_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    home.chmod(0o555)
    try:
        code, out, err = run(capsys, "data", "--verify", "--json", "-q", "--data-home", home)
        assert code == 0, err
        assert json.loads(out)["verified"] is True
        assert sorted(p.name for p in home.iterdir()) == ["reuters21578"]  # no cache here
        assert any((tmp_path / "xdg" / "textwin").iterdir())              # but there
    finally:
        home.chmod(0o755)
