"""Shared fixtures: where the Reuters-21578 corpus is, and a private cache folder.

Tests that need the corpus are marked ``@pytest.mark.corpus`` and take the
``reuters_data_home`` fixture. Without the corpus they are skipped, except
under CI (the environment variable ``CI`` set), where a missing corpus is a
failure: a CI run that silently skipped the corpus tests would prove nothing.
"""
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path

import pytest

_CHECKOUT = Path(__file__).resolve().parents[1]


def _kernels_built_in(checkout):
    """Whether every kernel of ``checkout``'s textwin has its compiled module."""
    kernels = checkout / "textwin" / "_kernels"
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    built = {p.name.split(".")[0] for p in kernels.iterdir() if p.name.endswith(suffixes)}
    return {p.stem for p in kernels.glob("*.pyx")} <= built


def _test_the_installed_textwin_unless_built_here():
    """``python -m pytest`` puts the checkout first on sys.path, in front of an
    installed textwin; without an in-place build its kernels cannot import.
    Then the checkout leaves sys.path and the installed textwin is tested."""
    if not (_CHECKOUT / "textwin").is_dir() or _kernels_built_in(_CHECKOUT):
        return
    sys.path[:] = [p for p in sys.path if Path(p or os.curdir).resolve() != _CHECKOUT]
    spec = importlib.util.find_spec("textwin")
    # the checkout's own package, not one installed into a venv inside the checkout
    if spec is None or Path(spec.origin).resolve().is_relative_to(_CHECKOUT / "textwin"):
        raise pytest.UsageError(
            "textwin is not installed and this checkout's kernels are not built: run "
            "`pip install .`, or `pip install \".[build]\" && python setup.py build_ext --inplace`, first")


def _in_every_core(config):
    """With pytest-xdist (the test extra has it) and no ``-n``: the tests in a process per
    core, those of one ``xdist_group`` (the clusters') in one of them. ``-n 0`` or
    ``-p no:xdist`` runs them in this process."""
    if (config.pluginmanager.hasplugin("xdist") and config.option.numprocesses is None
            and config.option.dist == "no" and "PYTEST_XDIST_WORKER" not in os.environ):
        n = os.cpu_count() or 1
        config.option.numprocesses, config.option.tx = n, ["popen"] * n
        config.option.dist = "loadgroup"


def pytest_configure(config):
    _test_the_installed_textwin_unless_built_here()
    _in_every_core(config)

# ../shared next to the repository root (the team's read-only copy).
_DEFAULT_DATA_HOME = Path(__file__).resolve().parents[2] / "shared"


@pytest.fixture(scope="session")
def textwin_cache_dir(tmp_path_factory):
    """A per-session cache folder, so that no test writes to the user's home."""
    return tmp_path_factory.mktemp("textwin_cache")


@pytest.fixture(scope="session")
def reuters_data_home(textwin_cache_dir):
    """The data home holding ``reuters21578/reut2-000.sgm`` ... ``reut2-021.sgm``.

    Taken from ``TEXTWIN_DATA_HOME``, else ``../shared`` next to the repository.
    For the rest of the session ``TEXTWIN_DATA_HOME`` points there and
    ``TEXTWIN_CACHE_DIR`` at a temporary folder,
    so the vectorized cache is built at most once per session and never lands
    in the (possibly read-only, possibly shared) data home or in ``~``.
    """
    data_home = Path(os.environ.get("TEXTWIN_DATA_HOME") or _DEFAULT_DATA_HOME)
    if not (data_home / "reuters21578" / "reut2-000.sgm").is_file():
        message = (
            f"Reuters-21578 not found in {data_home}/reuters21578/; set "
            "TEXTWIN_DATA_HOME to the folder that holds reuters21578/"
        )
        if os.environ.get("CI"):
            pytest.fail(message + " (CI is set, so this is a failure, not a skip)")
        pytest.skip(message)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TEXTWIN_CACHE_DIR", str(textwin_cache_dir))
        mp.setenv("TEXTWIN_DATA_HOME", str(data_home))
        yield data_home
