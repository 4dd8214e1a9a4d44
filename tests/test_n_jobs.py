"""n_jobs = 0 means nothing (joblib's convention): refused on every path that takes it."""
import numpy as np
import pytest
import scipy.sparse as sp

from textwin.cli import EXIT_USAGE
from textwin.experiments import METHODS, fit_method

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
