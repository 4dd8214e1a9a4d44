"""n_jobs = 0 means nothing (joblib's convention): refused on every path that takes it."""
import numpy as np
import pytest
import scipy.sparse as sp

from textwin.cli import EXIT_NO_DATA, EXIT_USAGE
from textwin.experiments import METHODS, fit_method
from textwin.online import BalancedWinnow, Perceptron, Winnow

from test_cli import assert_one_line_error as one_line_error  # noqa: E402 (tests/ on sys.path)
from test_cli import run


@pytest.mark.parametrize("command", ["train", "eval"])
@pytest.mark.parametrize("value", ["0", "-2"])
def test_bad_n_jobs_on_the_command_line_is_one_line(capsys, command, value):
    # refused before any data is read, whatever else the command needs
    code, out, err = run(capsys, command, "--n-jobs", value)
    assert code == EXIT_USAGE and out == ""
    one_line_error(err, f"--n-jobs must be a positive number of threads or -1, got {value}")
    assert "Traceback" not in err


def test_n_jobs_zero_through_the_experiment_helpers_is_refused():
    X = sp.random(30, 5, density=0.5, random_state=0, format="csr")
    Y = (np.arange(60).reshape(30, 2) % 3 == 0).astype(int)
    with pytest.raises(ValueError, match="n_jobs == 0 has no meaning"):
        fit_method(METHODS["svm-alg2"], X, Y, n_jobs=0)


@pytest.mark.parametrize("value", ["0", "-2"])
def test_bad_n_jobs_on_reproduce_is_the_same_one_line(capsys, value):
    code, out, err = run(capsys, "reproduce", "--n-jobs", value, "--offline",
                         "--data-home", "/nonexistent/textwin-data")
    assert code == EXIT_USAGE and out == ""
    one_line_error(err, f"--n-jobs must be a positive number of threads or -1, got {value}")
    assert "usage:" not in err


def test_reproduce_takes_minus_one_like_train(capsys, tmp_path):
    # -1 passes the option check and the run goes on to look for the corpus (exit 3),
    # where an unaccepted value would stop at the usage check (exit 2)
    code, out, err = run(capsys, "reproduce", "--n-jobs", "-1", "--offline",
                         "--data-home", tmp_path / "missing",
                         "--output", tmp_path / "r.md", "--figures", tmp_path / "fig")
    assert code == EXIT_NO_DATA, err
    one_line_error(err, "does not exist")


@pytest.mark.parametrize("est", [Perceptron(), Winnow(), BalancedWinnow()])
@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_online_estimators_refuse_n_jobs_zero_up_front_by_name(est, method):
    name = type(est).__name__
    # refused before X is looked at: even an unusable X gets the n_jobs message
    with pytest.raises(ValueError, match=rf"^{name}: n_jobs == 0 has no meaning"):
        getattr(est.set_params(n_jobs=0), method)("not a matrix", None)
    with pytest.raises(ValueError, match=rf"^{name}: n_jobs must be None or an integer"):
        est.set_params(n_jobs=1.5).fit("not a matrix", None)


def test_online_partial_fit_checks_n_jobs_on_later_calls_too():
    X = sp.random(30, 5, density=0.5, random_state=0, format="csr")
    y = np.arange(30) % 2
    est = Perceptron().partial_fit(X, y, classes=[0, 1])
    est.set_params(n_jobs=0)
    with pytest.raises(ValueError, match=r"^Perceptron: n_jobs == 0"):
        est.partial_fit(X, y)
    # -1 (all cores) is accepted and changes nothing
    w = Perceptron(n_jobs=1, random_state=0).fit(X, y).coef_
    assert np.array_equal(Perceptron(n_jobs=-1, random_state=0).fit(X, y).coef_, w)


@pytest.mark.skipif(not hasattr(__import__("os"), "sched_setaffinity"), reason="Linux")
def test_minus_one_counts_the_cores_this_process_may_use():
    # -1 (the command line's default) is one thread per core the process may run on, as
    # scikit-learn counts them: a process pinned to one core gets one thread, not the
    # machine's count
    import os
    import subprocess
    import sys

    code = ("import os; os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]}); "
            "from textwin._ovr import effective_n_jobs; "
            "print(effective_n_jobs(-1), effective_n_jobs(-2), effective_n_jobs(None))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, env={k: v for k, v in os.environ.items()
                                              if k != "LOKY_MAX_CPU_COUNT"}).stdout
    assert out.split() == ["1", "1", "1"]


def test_the_commands_use_every_core_by_default_with_the_same_model(tmp_path):
    # train's default is -1; the model does not depend on the threads (the search's
    # folds and the categories run in threads, each problem with its own seed)
    import json
    import subprocess
    import sys

    from _text_corpora import corpus

    from textwin.persistence import load_model

    texts, labels = corpus(n_per_class=25)
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps({"text": t, "label": str(c)}) + "\n"
                            for t, c in zip(texts, labels)))
    models = {}
    for jobs in ([], ["--n-jobs", "1"]):
        out = tmp_path / f"m{len(jobs)}.npz"
        subprocess.run([sys.executable, "-m", "textwin.cli", "train", "--corpus", str(path),
                        "--auto", "-q", "-o", str(out), *jobs], check=True, cwd=tmp_path)
        models[len(jobs)] = load_model(out)
        assert models[len(jobs)].metadata["params"]["n_jobs"] == (1 if jobs else -1)
    assert np.array_equal(models[0].coef, models[2].coef)
    assert np.array_equal(models[0].intercept, models[2].intercept)
