"""textwin.reproduction: the written document's numbers are the library's numbers.

The corpus test runs ``main(["--quick", ...])`` into a temporary folder and
recomputes some of the document's figures independently (estimators built
here, not through the registry), then checks the PNGs.
"""
import errno
import os
import re
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

from textwin import reproduction as reproduce
from textwin.reproduction import command, runs, tables
from textwin.cli import EXIT_NO_DATA, EXIT_USAGE
from textwin.cli import main as cli_main
from textwin.cli.reproduce import build_parser


def _forbid_downloads(monkeypatch):
    """Make any attempt to download the corpus fail the test."""
    def fetch(remote, *args, **kwargs):
        raise AssertionError(f"tried to download {remote.url}")

    monkeypatch.setattr("textwin.datasets._reuters.fetch_remote", fetch)


def _run(capsys, *argv):
    """``textwin reproduce ARGV``: (exit code, stdout, stderr)."""
    try:
        code = cli_main(["reproduce", *map(str, argv)])
    except SystemExit as exc:  # --help, a bad option
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(err, *fragments):
    """The one ``textwin: error:`` line of ``err``, which holds every fragment."""
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("textwin: error: "), err
    for f in fragments:
        assert f in lines[0], (f, lines[0])
    return lines[0]


def _table(doc, heading):
    """The first Markdown table after ``heading``: (column names, {row label: cells})."""
    start = doc.index(heading)
    lines = doc[start:].splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("|"))
    header = [c.strip().strip("`") for c in lines[i].strip("|").split("|")]
    rows = {}
    for line in lines[i + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0].strip("*")] = cells[1:]
    return header[1:], rows


def _number(cell):
    """The first number of a cell such as ``**90.1 (91.2)**`` or ``82.3 ± 0.5 (82.2)``."""
    return float(re.search(r"-?\d+(?:\.\d+)?", cell).group())


def _cell(doc, heading, row, column):
    header, rows = _table(doc, heading)
    return rows[row][header.index(column)]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory, reuters_data_home):
    """``textwin reproduce --quick --offline`` into a temporary folder (about 10 s)."""
    out = tmp_path_factory.mktemp("reproduction")
    doc_path, fig_dir = out / "reproduction.md", out / "figures"
    argv = ["reproduce", "--quick", "-q", "--offline", "--output", str(doc_path),
            "--figures", str(fig_dir), "--data-home", str(reuters_data_home)]
    with pytest.MonkeyPatch.context() as mp:
        _forbid_downloads(mp)
        assert cli_main(argv) == 0
    return doc_path.read_text(), fig_dir, reuters_data_home


@pytest.mark.corpus
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_quick_reuters_numbers_equal_the_library(quick_run):
    from textwin.experiments import load_protocol_data
    from textwin.linear import DualSVM, RegularizedWinnow
    from textwin.metrics import breakeven_points, micro_breakeven_point
    from textwin.online import Perceptron

    doc, _, data_home = quick_run
    plan = reproduce.quick_plan()
    data = load_protocol_data(plan.categories, data_home)
    cap = plan.epoch_cap
    ests = {
        # Algorithm 2 with the paper's 4 x 50 budget (no epochs setting to cap)
        ("### Table 2", "svm-alg2"): DualSVM(lam=1e-3, fit_intercept=True,
                                             intercept_solver="paper", shuffle=False),
        ("### Table 2", "perceptron"): Perceptron(eta=0.001, n_epochs=cap,
                                                        shuffle=False),
        ("### Table 1", "rwinnow"): RegularizedWinnow(theta=0.1, gamma=0.1, lam=1e-4,
                                                      mass=1.0, max_epochs=cap,
                                                      shuffle=False),
    }
    for (heading, key), est in ests.items():
        est.fit(data.X_train, data.Y_train)
        scores = est.decision_function(data.X_test)
        micro = 100 * micro_breakeven_point(data.Y_test, scores)
        assert _number(_cell(doc, heading, "micro-average", key)) == pytest.approx(micro, abs=0.051)
        for cat, bep in zip(data.categories, breakeven_points(data.Y_test, scores)):
            assert _number(_cell(doc, heading, cat, key)) == pytest.approx(100 * bep, abs=0.051)
    # the paper's figure printed beside ours comes from the registry
    assert "(95.0)" in _cell(doc, "### Table 2", "acq", "svm-alg2")


@pytest.mark.corpus
def test_quick_synthetic_numbers_equal_the_library(quick_run):
    from textwin.datasets import make_winnow_data
    from textwin.online import Perceptron

    doc, _, _ = quick_run
    plan = reproduce.quick_plan()
    d = plan.dims[0]
    accs = []
    for draw in range(plan.draws):  # the documented seeding: SeedSequence([d, draw])
        s_train, _, s_test = np.random.SeedSequence([d, draw]).generate_state(3)
        X, y = make_winnow_data(plan.n_samples, d, add_constant=False, random_state=int(s_train))
        Xt, yt = make_winnow_data(plan.n_samples, d, add_constant=False, random_state=int(s_test))
        est = Perceptron(eta=0.01, n_epochs=plan.synth_epochs, renormalize=False, shuffle=False,
                         fit_intercept=True).fit(X, y)
        accs.append(100 * np.mean(est.predict(Xt) == yt))
    cell = _cell(doc, "**Best lambda on test", str(d), "Perceptron")
    mean, std = map(float, re.findall(r"\d+\.\d+", cell)[:2])
    assert mean == pytest.approx(np.mean(accs), abs=0.051)
    assert std == pytest.approx(np.std(accs, ddof=1), abs=0.051)


@pytest.mark.corpus
def test_quick_document_header_and_figures(quick_run):
    import matplotlib.pyplot as plt

    doc, fig_dir, _ = quick_run
    assert doc.startswith("# Reproduction of the papers' experiments")
    # -q is left out of the recorded command (it changes no figure)
    assert "Command: `textwin reproduce --quick --offline --output" in doc
    assert " -q" not in doc.split("Command: ")[1].split("\n")[0]
    assert "Quick mode" in doc and "Total run time:" in doc
    # the text describes the methods that ran (no theta = 0.3 rows, no smo here)
    assert "regularized Winnow (update (28)), theta = 0.1\n" in doc
    assert "`smo` is libsvm's SMO" not in doc and "`linearsvc` (liblinear" in doc
    for name in ("regularized_winnow_lambda.png", "precision_recall.png"):
        path = fig_dir / name
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        image = plt.imread(path)
        assert image.ndim == 3 and image.shape[0] > 200 and image.shape[1] > 200
        assert image.std() > 0.01  # not a blank canvas
        assert f"figures/{name}" in doc
    # the single-category precision-recall fits reproduce the table's BEPs
    assert re.search(r"Check: for (\d+) of \1 methods", doc)


def test_lambda_protocols():
    """Best lambda on test is one grid point for all draws; validation picks per draw."""
    res = reproduce.SyntheticResult(lams=np.array([1.0, 0.1, 0.01]))
    res.curves[500, "LM-Perc"] = np.array([[0.80, 0.90, 0.70],
                                           [0.80, 0.86, 0.96]])
    res.val_curves[500, "LM-Perc"] = np.array([[0.9, 0.1, 0.1],
                                               [0.1, 0.1, 0.9]])
    s = reproduce.synthetic_summary(res, 500, "LM-Perc")
    assert s["lam"] == 0.1  # mean test accuracy 0.88 beats 0.80 and 0.83
    assert s["mean"] == pytest.approx(88.0)
    assert s["std"] == pytest.approx(np.std([90.0, 86.0], ddof=1))
    assert list(s["val_lams"]) == [1.0, 0.01]
    assert s["val_mean"] == pytest.approx((80.0 + 96.0) / 2)


def test_synthetic_target_rule():
    assert tables.synthetic_ok(94.5, 0.2, 94.0)       # within 1 point
    assert not tables.synthetic_ok(92.0, 0.5, 94.0)   # 2 points, std 0.5
    assert tables.synthetic_ok(92.0, 1.2, 94.0)       # within 2 std


@pytest.mark.parametrize("argv, message", [
    (["--draws", "1"], "--draws must be at least 2"),
    (["--bogus"], "unrecognized arguments"),
])
def test_bad_options(argv, message, capsys):
    code, _, err = _run(capsys, *argv)
    assert code == 2
    assert err.startswith("usage: textwin reproduce") and message in err


def test_help_shows_how_to_regenerate_and_a_quick_run(capsys):
    code, out, _ = _run(capsys, "--help")
    assert code == 0 and out.startswith("usage: textwin reproduce")
    examples = out[out.index("examples:"):]
    assert ("textwin reproduce --n-jobs 2 --output docs/reproduction.md\n      regenerate "
            "docs/reproduction.md") in examples
    assert "textwin reproduce --quick --output" in examples
    assert "--offline" in out and "never download" in out


def test_the_default_output_is_the_current_folder():
    args = build_parser().parse_args([])
    assert args.output == "reproduction.md" and args.figures is None and not args.force


def test_offline_without_the_data_home_names_where_to_put_the_files(tmp_path, capsys,
                                                                   monkeypatch):
    _forbid_downloads(monkeypatch)
    home = tmp_path / "no_such_home"
    code, out, err = _run(capsys, "--quick", "--offline", "--data-home", home,
                          "--output", tmp_path / "out" / "r.md")
    assert code == EXIT_NO_DATA and out == ""
    _one_line_error(err, f"the data home {home} does not exist",
                    f"put reuters21578.tar.gz, unopened, in {home}",
                    f"{home / 'reuters21578'}/", "drop --offline")
    assert not home.exists()  # offline, nothing is created for files that cannot come
    assert not (tmp_path / "out" / "r.md").exists()


def test_offline_with_an_empty_data_home(tmp_path, capsys, monkeypatch):
    _forbid_downloads(monkeypatch)
    monkeypatch.setenv("TEXTWIN_DATA_HOME", str(tmp_path))
    code, _, err = _run(capsys, "--quick", "--offline", "--output", tmp_path / "r.md")
    assert code == EXIT_NO_DATA
    # the loader's reason, then where the files go; the data home came from the environment
    _one_line_error(err, f"Reuters-21578 was not found in {tmp_path}",
                    f"{tmp_path / 'reuters21578'}/", "--data-home (or TEXTWIN_DATA_HOME)")


def test_failed_download_names_the_fix(tmp_path, capsys, monkeypatch):
    calls = []

    def fetch(remote, *args, **kwargs):
        calls.append(remote.url)
        raise OSError("Network is unreachable")

    monkeypatch.setattr("textwin.datasets._reuters.fetch_remote", fetch)
    code, _, err = _run(capsys, "--quick", "--data-home", tmp_path, "--output", tmp_path / "r.md")
    assert code == EXIT_NO_DATA and calls  # without --offline it does try
    line = _one_line_error(err, "could not download Reuters-21578", "Network is unreachable",
                           f"put reuters21578.tar.gz, unopened, in {tmp_path}")
    assert "drop --offline" not in line


def test_data_home_that_is_a_file(tmp_path, capsys):
    home = tmp_path / "home"
    home.write_text("")
    code, _, err = _run(capsys, "--quick", "--data-home", home, "--output", tmp_path / "r.md")
    assert code == EXIT_NO_DATA
    _one_line_error(err, f"the data home {home} is a file", "pass --data-home a folder")


@pytest.mark.parametrize("where, fragments", [
    (lambda tmp: ["--output", tmp / "a_file" / "r.md"], ["a_file is a file, not a folder",
                                                          "pass a writable --output"]),
    (lambda tmp: ["--figures", tmp / "a_file"], ["--figures", "pass --figures a folder"]),
    (lambda tmp: ["--output", tmp], ["is a folder", "pass --output a file name"]),
    # a FIFO (or a device) would have been replaced by a file after the whole run
    (lambda tmp: ["--output", (os.mkfifo(tmp / "p.md"), tmp / "p.md")[1]],
     ["is a named pipe (FIFO), not a regular file"]),
])
def test_unwritable_output_fails_before_the_run(where, fragments, tmp_path, capsys,
                                                monkeypatch):
    (tmp_path / "a_file").write_text("not a folder")
    # the corpus is not even looked at: the check comes first
    monkeypatch.setattr(command, "load_protocol_data",
                        lambda *a, **k: pytest.fail("loaded the corpus"))
    argv = {"--output": tmp_path / "fine" / "r.md", "--figures": tmp_path / "figs"}
    args = where(tmp_path)
    argv[args[0]] = args[1]
    code, _, err = _run(capsys, "--quick", *[x for kv in argv.items() for x in kv])
    assert code == EXIT_USAGE
    _one_line_error(err, *fragments)
    assert not (tmp_path / "fine").exists() and not (tmp_path / "figs").exists()


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="root writes into read-only folders")
def test_read_only_output_folder(tmp_path, capsys):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        code, _, err = _run(capsys, "--quick", "--output", folder / "sub" / "r.md")
    finally:
        folder.chmod(0o700)
    assert code == EXIT_USAGE
    _one_line_error(err, f"{folder} is not writable", "pass a writable --output")


def test_a_warning_is_one_line_not_a_source_excerpt(tmp_path, capsys, monkeypatch):
    # e.g. the corpus differs from the published one: the user sees one
    # "textwin: warning:" line, not Python's file:line and source line
    def load(*args, **kwargs):
        warnings.warn("2 SGML file(s) differ from the published distribution", UserWarning)
        raise FileNotFoundError("no corpus")

    monkeypatch.setattr(command, "load_protocol_data", load)
    code, _, err = _run(capsys, "--quick", "--data-home", tmp_path, "--output", tmp_path / "r.md")
    assert code != 0
    lines = err.splitlines()
    assert "textwin: warning: 2 SGML file(s) differ from the published distribution" in lines
    assert not any("warnings.warn" in ln or "UserWarning" in ln for ln in lines), err


@pytest.mark.corpus
def test_cross_validated_rows_keep_the_categories_order(reuters_data_home):
    # the loaders order their columns by name; the table's rows follow the plan's
    # categories (earn before acq), so the columns must be taken in that order
    from textwin.datasets import fetch_reuters21578

    categories = ("earn", "acq", "money-fx")
    _, Y_train, _, Y_test = runs.tfidf_data("stems", categories, reuters_data_home)
    for j, c in enumerate(categories):
        for Y, subset in ((Y_train, "train"), (Y_test, "test")):
            one = fetch_reuters21578(data_home=reuters_data_home, subset=subset,
                                     categories=[c], download_if_missing=False)
            assert Y[:, j].sum() == one.target.sum(), (c, subset)


# --- what a run may replace: judged by what the destination holds -----------------

REPO = Path(__file__).resolve().parent.parent


def _checkout(tmp_path):
    """A copy of the repository's committed report and figures, away from the textwin
    that is imported (as for an installed textwin run from a checkout)."""
    docs = tmp_path / "checkout" / "docs"
    (docs / "figures").mkdir(parents=True)
    shutil.copy(REPO / "docs" / "reproduction.md", docs / "reproduction.md")
    for name in ("regularized_winnow_lambda.png", "precision_recall.png"):
        shutil.copy(REPO / "docs" / "figures" / name, docs / "figures" / name)
    return docs


def _snapshot(folder):
    return {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _never_load(monkeypatch):
    monkeypatch.setattr(command, "load_protocol_data",
                        lambda *a, **k: pytest.fail("loaded the corpus"))


def _no_corpus(monkeypatch):
    """Past the checks, the run stops at the corpus (exit 3): the checks let it through."""
    def load(*args, **kwargs):
        raise FileNotFoundError("no corpus here")

    monkeypatch.setattr(command, "load_protocol_data", load)


@pytest.mark.parametrize("argv", [
    ["--output", "docs/reproduction.md"],
    ["--output", "docs/../docs/reproduction.md", "--figures", "elsewhere"],
    ["--output", "{tmp}/r.md", "--figures", "docs/figures"],
])
def test_quick_never_replaces_a_full_runs_report_or_figures(argv, tmp_path, capsys,
                                                           monkeypatch):
    docs = _checkout(tmp_path)
    before = _snapshot(docs)
    monkeypatch.chdir(docs.parent)
    _never_load(monkeypatch)
    code, out, err = _run(capsys, "--quick", *[a.format(tmp=tmp_path) for a in argv])
    assert code == EXIT_USAGE and out == ""
    _one_line_error(err, "--quick does not replace", "a full run's", "--force")
    assert _snapshot(docs) == before
    assert not (tmp_path / "r.md").exists() and not (docs.parent / "elsewhere").exists()


def test_quick_with_force_and_a_full_run_may_replace_the_full_report(tmp_path, capsys,
                                                                     monkeypatch):
    docs = _checkout(tmp_path)
    monkeypatch.chdir(docs.parent)
    _no_corpus(monkeypatch)
    for argv in (["--quick", "--force"], []):
        code, _, err = _run(capsys, *argv, "--offline", "--output", "docs/reproduction.md")
        assert code == EXIT_NO_DATA, err
        _one_line_error(err, "no corpus here")


@pytest.mark.parametrize("quick", [True, False])
@pytest.mark.parametrize("where", ["report", "figure"])
def test_a_file_textwin_did_not_write_is_never_replaced(where, quick, tmp_path, capsys,
                                                        monkeypatch):
    theirs = tmp_path / ("notes.md" if where == "report" else "figures/precision_recall.png")
    theirs.parent.mkdir(exist_ok=True)
    theirs.write_text("the user's own file")
    _never_load(monkeypatch)
    code, _, err = _run(capsys, *(["--quick"] if quick else []), "--offline",
                        "--output", tmp_path / "notes.md", "--figures", tmp_path / "figures")
    assert code == EXIT_USAGE
    _one_line_error(err, f"{theirs} exists and is not a textwin {where}", "--force")
    assert theirs.read_text() == "the user's own file"
    # --force is the user's say-so
    _no_corpus(monkeypatch)
    code, _, err = _run(capsys, *(["--quick"] if quick else []), "--offline", "--force",
                        "--output", tmp_path / "notes.md", "--figures", tmp_path / "figures")
    assert code == EXIT_NO_DATA, err


@pytest.mark.parametrize("output", ["docs", "out/"])
def test_an_output_that_names_a_folder_is_refused_before_the_run(output, tmp_path, capsys,
                                                                 monkeypatch):
    monkeypatch.chdir(tmp_path)
    _never_load(monkeypatch)
    code, _, err = _run(capsys, "--offline", "--output", output)
    assert code == EXIT_USAGE
    _one_line_error(err, f"--output {output} has no file suffix",
                    "pass --output a file name, such as")
    assert list(tmp_path.iterdir()) == []  # no file named docs, no figures/


@pytest.mark.corpus
def test_a_quick_run_replaces_its_own_report_and_figures(quick_run, capsys, monkeypatch):
    from textwin.reproduction.figures import figure_run
    from textwin.reproduction.report import report_run

    _, fig_dir, _ = quick_run
    doc_path = fig_dir.parent / "reproduction.md"
    assert report_run(doc_path) == "quick"
    assert {figure_run(fig_dir / n) for n in ("precision_recall.png",
                                              "regularized_winnow_lambda.png")} == {"quick"}
    assert report_run(REPO / "docs" / "reproduction.md") == "full"
    # a full run's figure: marked so, or drawn before figures carried the mark
    assert figure_run(REPO / "docs" / "figures" / "precision_recall.png") in ("full", "unmarked")
    _no_corpus(monkeypatch)
    for argv in (["--quick"], []):  # a full run replaces a quick one's too
        code, _, err = _run(capsys, *argv, "--offline", "--output", doc_path,
                            "--figures", fig_dir)
        assert code == EXIT_NO_DATA, err


def _tiny_plan():
    return reproduce.Plan(
        name="quick", categories=("earn", "acq"), epoch_cap=2, pr_category="acq",
        pr_methods=("perceptron",), alternatives=(), dims=(50,), draws=2, n_samples=60,
        synth_epochs=2, lams=(0.1, 0.01), methods=("perceptron",))


@pytest.mark.corpus
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("failing_write, name, option", [
    (1, "figures/regularized_winnow_lambda.png", "--figures"),
    (3, "reproduction.md", "--output"),
])
def test_a_full_disk_names_the_file_being_written(failing_write, name, option, tmp_path,
                                                   capsys, monkeypatch, reuters_data_home):
    monkeypatch.setattr(command, "quick_plan", _tiny_plan)
    measure, fsync, calls = command.measure, os.fsync, []

    def full_disk_after_the_run(*args, **kwargs):
        result = measure(*args, **kwargs)

        def fsync_on_a_full_disk(fd):
            calls.append(fd)
            if len(calls) == failing_write:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return fsync(fd)

        monkeypatch.setattr(os, "fsync", fsync_on_a_full_disk)
        return result

    monkeypatch.setattr(command, "measure", full_disk_after_the_run)
    code, _, err = _run(capsys, "--quick", "-q", "--offline", "--data-home", reuters_data_home,
                        "--output", tmp_path / "reproduction.md")
    assert code == EXIT_USAGE
    _one_line_error(err, f"cannot write {tmp_path / name}: the disk is full",
                    "No space left on device", f"pass {option} a path on another disk")
    assert not (tmp_path / "reproduction.md").exists()
    assert not [p for p in tmp_path.rglob(".*.tmp")]  # no temporary left behind
