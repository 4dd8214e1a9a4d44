"""Nothing silently wrong, nothing lost: the cases a new user met after the first battery.

Numeric labels ordered as numbers in every layout, a figure of the user's never
replaced by --plot, a closed stdout, an all-zero model, words that name real
options. Each test runs the command as users do (``main`` or a subprocess).
"""
import json
import random

import pytest

from test_cli import assert_one_line_error, run  # noqa: E402 (tests/ on sys.path)


def _texts(vocabulary, n, rng):
    return [" ".join(rng.choices(vocabulary.split(), k=6)) for _ in range(n)]


def write_jsonl(path, classes, n=30, seed=0):
    """``classes``: {label as written in the file: its words}."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as fh:
        for label, words in classes.items():
            for text in _texts(words, n, rng):
                fh.write(json.dumps({"text": text, "labels": [label]}) + "\n")
    return path


def write_svmlight(path, classes, n=30, seed=0):
    """``classes``: {label: the feature ids of its documents}."""
    rng = random.Random(seed)
    with open(path, "w") as fh:
        for label, features in classes.items():
            for _ in range(n):
                ids = sorted(set(rng.choices(features, k=4)))
                fh.write(f"{label} " + " ".join(f"{j}:1" for j in ids) + "\n")
    return path


def _report(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json", "-q")
    assert code == 0, err
    return json.loads(out)


# -- numeric labels are numbers in every layout --------------------------------------------

@pytest.mark.parametrize("layout", ["jsonl-int", "jsonl-str", "svmlight"])
def test_the_positive_class_of_numeric_labels_is_the_larger_in_every_layout(capsys, tmp_path,
                                                                            layout):
    if layout == "svmlight":
        path = write_svmlight(tmp_path / "c.svm", {2: [1, 2, 3, 4], 10: [5, 6, 7, 8]})
    else:
        cast = int if layout == "jsonl-int" else str
        path = write_jsonl(tmp_path / "c.jsonl", {cast(2): "alpha beta gamma",
                                                  cast(10): "one two three"})
    report = _report(capsys, "train", "--corpus", path)
    assert report["positive_label"] == "10"  # as LinearSVC: the larger (string order: "2")
    assert [c["category"] for c in report["categories"]] == ["2", "10"]
    # --positive-label names the other one when the user wants it
    report = _report(capsys, "train", "--corpus", path, "--positive-label", "2")
    assert report["positive_label"] == "2"


def test_numeric_classes_are_reported_in_numeric_order(capsys, tmp_path):
    path = write_jsonl(tmp_path / "c.jsonl", {"10": "one two three", "1": "alpha beta gamma",
                                              "2": "red green blue", "x": "up down left"})
    report = _report(capsys, "train", "--corpus", path)
    assert [c["category"] for c in report["categories"]] == ["1", "2", "10", "x"]
    code, out, _ = run(capsys, "train", "--corpus", path, "-q")
    rows = [line.split()[0] for line in out.splitlines()]
    assert rows.index("1") < rows.index("2") < rows.index("10") < rows.index("x")


# -- --plot replaces only a figure textwin drew ----------------------------------------------

CLASSES = {"north": "alpha beta gamma delta", "south": "one two three four",
           "east": "red green blue black"}


@pytest.fixture
def corpus(tmp_path):
    return write_jsonl(tmp_path / "c.jsonl", CLASSES, n=20)


def _users_figure(path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], [3, 1, 2])
    fig.savefig(path)  # matplotlib's own metadata, as any user's figure has
    plt.close(fig)
    return path.read_bytes()


@pytest.mark.parametrize("suffix", [".png", ".pdf", ".svg"])
def test_plot_never_replaces_a_users_figure_without_force(capsys, tmp_path, corpus, suffix):
    pytest.importorskip("matplotlib")
    thesis = tmp_path / f"thesis{suffix}"
    before = _users_figure(thesis)
    argv = ["train", "--corpus", corpus, "--lam", "auto", "--plot", thesis, "-q"]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert_one_line_error(err, str(thesis), "not a textwin plot", "--force")
    assert thesis.read_bytes() == before
    # textwin's own figure is marked: drawn again without --force
    assert run(capsys, *argv, "--force")[0] == 0 and thesis.read_bytes() != before
    ours = thesis.read_bytes()
    assert run(capsys, *argv)[0] == 0
    assert thesis.read_bytes() != before and thesis.stat().st_size > 0
    assert len(ours) > 0


def test_a_plot_that_cannot_be_written_fails_the_command_even_under_quiet(capsys, tmp_path,
                                                                         corpus, monkeypatch):
    pytest.importorskip("matplotlib")
    import textwin.cli.report as report

    def full_disk(path, mode="wb"):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(report, "atomic_write", full_disk)
    model = tmp_path / "m.npz"
    code, out, err = run(capsys, "train", "--corpus", corpus, "--lam", "auto", "--plot",
                         tmp_path / "cv.png", "-o", model, "-q", "--json")
    assert code != 0
    assert json.loads(out)["model"] == str(model) and model.exists()  # the rest is kept
    assert_one_line_error(err, "cannot write the plot", "No space left",
                          "the model are unaffected")


# -- a closed stdout, and inputs of another kind than the model's ------------------------------

def _command():
    import sys

    return [sys.executable, "-c",
            "import sys; del sys.path[0]; from textwin.cli import main; sys.exit(main())"]


def _env():
    import os
    from pathlib import Path

    import textwin

    where = str(Path(textwin.__file__).resolve().parents[1])
    return dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (where, os.environ.get("PYTHONPATH")) if p))


def test_a_closed_stdout_fails_before_any_work(corpus, tmp_path):
    import subprocess

    model = tmp_path / "m.npz"
    proc = subprocess.run([*_command(), "train", "--corpus", str(corpus), "-o", str(model),
                           "-q"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          env=_env(), timeout=300, check=False,
                          preexec_fn=lambda: __import__("os").close(1))
    assert proc.returncode == 2 and not model.exists()
    assert proc.stderr.count("\n") == 1 and "stdout is closed" in proc.stderr, proc.stderr


def test_a_reader_that_left_ends_the_command_non_zero_with_one_line(corpus):
    import os
    import subprocess

    r, w = os.pipe()
    os.close(r)  # the reader is gone before the first write
    try:
        proc = subprocess.run([*_command(), "train", "--corpus", str(corpus), "-q"], stdout=w,
                              stderr=subprocess.PIPE, text=True, env=_env(), timeout=300,
                              check=False)
    finally:
        os.close(w)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "broken pipe" in proc.stderr, proc.stderr


def test_a_full_stdout_ends_the_command_non_zero_with_one_line(corpus):
    import os
    import subprocess

    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with open("/dev/full", "w") as full:
        proc = subprocess.run([*_command(), "train", "--corpus", str(corpus), "-q"],
                              stdout=full, stderr=subprocess.PIPE, text=True, env=_env(),
                              timeout=300, check=False)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "No space left" in proc.stderr, proc.stderr


def test_results_held_in_a_large_buffer_that_cannot_be_written_end_with_one_line(corpus):
    # the whole result fits in stdout's buffer, so the write succeeds and the flush at the
    # command's end fails: the buffer must not be flushed again at the interpreter's exit
    # (which would print "Exception ignored" and turn the status into 120)
    import os
    import subprocess
    import sys

    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    big_buffer = ("import io, sys; del sys.path[0]; sys.stdout = io.TextIOWrapper(open(1, 'wb', "
                  "buffering=1 << 22, closefd=False), encoding='utf-8'); from textwin.cli "
                  "import main; sys.exit(main())")
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-c", big_buffer, "train", "--corpus",
                               str(corpus), "-q"], stdout=full, stderr=subprocess.PIPE,
                              text=True, env=_env(), timeout=300, check=False)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "No space left" in proc.stderr, proc.stderr


def test_a_text_model_refuses_an_svmlight_file(capsys, corpus, tmp_path):
    model = tmp_path / "m.npz"
    assert run(capsys, "train", "--corpus", corpus, "-o", model, "-q")[0] == 0
    vectors = write_svmlight(tmp_path / "test.svm", {1: [1, 2, 3], 2: [4, 5, 6]}, n=3)
    code, out, err = run(capsys, "predict", model, vectors)
    assert code == 2 and out == ""
    assert_one_line_error(err, "test.svm is an svmlight file", "trained on texts")
    # a text that happens to hold a pair like 1:2 is still a text
    (tmp_path / "note.txt").write_text("meet at 10:30 in room 4\n")
    assert run(capsys, "predict", model, tmp_path / "note.txt")[0] == 0


# -- a lam so large that every weight is about 0 is said ------------------------------------

def test_a_huge_lam_is_said_to_leave_every_weight_about_zero(capsys, corpus):
    code, _, err = run(capsys, "train", "--corpus", corpus, "--lam", "1e300")
    assert code == 0
    (line,) = [ln for ln in err.splitlines() if "degenerate" in ln]
    assert "lam is so large that every weight is about 0" in line
    assert "Lower --lam (now 1e+300)" in line and "--lam auto" in line
    # the default lam, and a search's large lams, say nothing of the kind
    for argv in ([], ["--lam", "auto"]):
        assert "degenerate" not in run(capsys, "train", "--corpus", corpus, *argv)[2]


def test_a_huge_lam_warns_in_the_python_api_too():
    import numpy as np
    import scipy.sparse as sp

    from textwin import DualSVM
    from textwin._scale import DegenerateSolutionWarning

    rng = np.random.default_rng(0)
    X = sp.random(60, 20, density=0.3, format="csr", random_state=rng)
    y = (X @ rng.normal(size=20) > 0).astype(int)
    with pytest.warns(DegenerateSolutionWarning, match="every weight is about 0"):
        DualSVM(lam=1e300).fit(X, y)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateSolutionWarning)
        DualSVM(lam=1.0).fit(X, y)  # heavily regularized, not degenerate


# -- a long search says so before it runs long --------------------------------------------------

def test_a_long_auto_says_its_estimate_and_the_option_that_bounds_it(capsys, corpus,
                                                                     monkeypatch):
    import textwin.model_selection._budget as budget

    code, _, err = run(capsys, "train", "--corpus", corpus, "--auto")
    assert code == 0 and "this search may take" not in err  # a short one says nothing
    monkeypatch.setattr(budget, "LONG_SEARCH_SECONDS", 0.0)  # every search is long now
    code, _, err = run(capsys, "train", "--corpus", corpus, "--auto")
    assert code == 0
    (line,) = [ln for ln in err.splitlines() if "this search may take" in ln]
    assert line.startswith("textwin: warning: TextClassifierCV: this search may take about ")
    assert "settings" in line and line.endswith("--time-budget SECONDS bounds it")
    # under a budget the search is bounded already: nothing to say
    code, _, err = run(capsys, "train", "--corpus", corpus, "--auto", "--time-budget", "600")
    assert code == 0 and "this search may take" not in err
    # --lam auto's search: its own estimate, and the way around it
    code, _, err = run(capsys, "train", "--corpus", corpus, "--lam", "auto")
    assert code == 0
    (line,) = [ln for ln in err.splitlines() if "this search may take" in ln]
    assert "DualGaussSeidelClassifierCV: this search may take about" in line
    assert "lams on every fold" in line and line.endswith("--lam VALUE (a number) needs no search")


def test_the_estimate_covers_the_settings_still_to_run():
    from textwin.model_selection._budget import LongSearchWarning, TimeBudget

    b = TimeBudget(None, "S")
    b.solved(10.0, size=1000, n_lams=3, first=True)  # the first piece: 10 s for 3 lams
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        b.say_if_long(1000, 20, 3, 8)
        b.say_if_long(1000, 20, 3, 8)  # once
    (w,) = [c.message for c in caught]
    assert isinstance(w, LongSearchWarning)
    # each setting: its first piece (10 s), the 17 other lams at 1.5 times the rate
    assert w.seconds == pytest.approx(8 * (10 + 17 * 10 / 3 * 1.5))
    assert "about 13 min" in str(w) and "time_budget=SECONDS bounds it" in str(w)


# -- messages name options that exist; nothing read is left unsaid ------------------------------

def test_lam_auto_on_a_tiny_corpus_names_this_command_lines_options(capsys, tmp_path):
    train = write_jsonl(tmp_path / "train.jsonl", {"a": "x y", "b": "z w"}, n=2)
    test = write_jsonl(tmp_path / "test.jsonl", {"a": "x y", "b": "z w"}, n=1)
    for command in ("train", "eval"):
        code, _, err = run(capsys, command, "--corpus", train, "--test-corpus", test,
                           "--lam", "auto", "-q")
        assert code == 2
        assert_one_line_error(err, "--lam auto: the 4 training documents are fewer than the 5 "
                                   "folds", "give --lam a value")
        assert "cv" not in err.replace("cross-validation", "")  # no option of the API's


def _folder_corpus(root):
    for name, words in (("a", "alpha beta"), ("b", "one two"), ("sports, games", "ball game")):
        (root / name).mkdir(parents=True)
        for i in range(8):
            (root / name / f"{i}.txt").write_text(f"{words} {i}\n")
    (root / "empty").mkdir()
    return root


def test_an_empty_category_folder_is_reported(capsys, tmp_path):
    root = _folder_corpus(tmp_path / "corpus")
    report = _report(capsys, "train", "--corpus", root)
    assert [c["category"] for c in report["categories"]] == ["a", "b", "sports, games"]
    assert report["corpus_report"]["skipped"] == {"empty_folder": ["empty/"]}
    code, _, err = run(capsys, "train", "--corpus", root)
    assert code == 0
    assert "skipped 1 folder: 1 empty category folder" in err and "(empty/)" in err


def test_a_category_with_a_comma_can_be_selected(capsys, tmp_path):
    root = _folder_corpus(tmp_path / "corpus")
    for argv in (["--category", "sports, games"], ["--category", r"a,sports\, games"]):
        report = _report(capsys, "train", "--corpus", root, *argv)
        assert "sports, games" in [c["category"] for c in report["categories"]]
    code, _, err = run(capsys, "train", "--corpus", root, "--category", "sports", "-q")
    assert code == 2 and "unknown category 'sports'" in err


@pytest.mark.corpus
@pytest.mark.parametrize("grams", [["--ngrams", "2"], ["--chars", "2-4"]])
def test_ngrams_on_reuters_are_refused_with_the_way_to_get_them(capsys, grams,
                                                               reuters_data_home):
    code, out, err = run(capsys, "train", "--category", "acq", *grams, "--offline", "-q")
    assert code == 2 and out == ""
    assert_one_line_error(err, grams[0], "leave the paper's protocol",
                          "--weighting tfidf --features all")


def test_a_model_without_format_version_says_what_it_is(capsys, corpus, tmp_path):
    import zipfile

    import numpy as np

    model = tmp_path / "m.npz"
    assert run(capsys, "train", "--corpus", corpus, "-o", model, "-q")[0] == 0
    broken = tmp_path / "broken.npz"
    with zipfile.ZipFile(model) as src, zipfile.ZipFile(broken, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "__metadata__.npy":
                import io

                meta = json.loads(np.load(io.BytesIO(data)).tobytes().decode())
                del meta["format_version"]
                buf = io.BytesIO()
                np.save(buf, np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
                data = buf.getvalue()
            dst.writestr(item, data)
    code, _, err = run(capsys, "predict", broken, corpus)
    assert code == 4
    assert_one_line_error(err, "no format_version", "damaged or made by another program")
    assert "upgrade" not in err


def test_eval_prints_its_results_before_a_plot_that_cannot_be_written_fails_it(
        capsys, tmp_path, corpus, monkeypatch):
    pytest.importorskip("matplotlib")
    import textwin.cli.report as report

    def full_disk(path, mode="wb"):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(report, "atomic_write", full_disk)
    code, out, err = run(capsys, "eval", "--corpus", corpus, "--methods", "svm", "--lam",
                         "auto", "--plot", tmp_path / "cv.png", "-q", "--json")
    assert code == 2
    assert json.loads(out)["methods"][0]["method"] == "svm"  # the results are out
    assert_one_line_error(err, "cannot write the plot", "the results are unaffected")
