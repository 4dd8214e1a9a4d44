"""What every textwin command shares: exit codes and the user-fixable error, the
output helpers (a table on stdout, or JSON), logging and the rendering of library
warnings, the shared option groups, the cluster a command runs on.

Results go to stdout (a table, or JSON with ``--json``); logs and progress bars
go to stderr (progress bars only on a terminal; ``-q`` silences both). Every
failure the user can fix prints one line on stderr, ``textwin: error: ...``,
saying what is wrong and what to do, and exits with a code that tells failures
apart (see :data:`EXIT_CODES`); there is never a traceback for those.
"""
from __future__ import annotations

import contextlib
import io
import json
import logging
import math
import os
import sys
import warnings
from pathlib import Path

from .._distributed import ClusterError, connect, connect_ray
from .._io import NotARegularFileError, OverwriteRefusedError, check_overwrite
from .._messages import first_line, first_names  # noqa: F401 (the commands')
from ..datasets import (
    CacheDirError,
    ReutersFormatError,
    get_data_home,
)

logger = logging.getLogger("textwin")

#: Exit status of each kind of failure.
EXIT_OK = 0
EXIT_INTERNAL = 1   # a bug: please report it (the traceback is printed)
EXIT_USAGE = 2      # bad command line or bad input (argparse uses 2 as well)
EXIT_NO_DATA = 3    # the Reuters-21578 corpus (or a user file) is missing or damaged
EXIT_BAD_MODEL = 4  # a model file is corrupted, truncated, foreign or too new
EXIT_INTERRUPTED = 130
EXIT_CODES = {
    "ok": EXIT_OK,
    "usage or bad input": EXIT_USAGE,
    "missing or damaged data": EXIT_NO_DATA,
    "unusable model file": EXIT_BAD_MODEL,
    "internal error (please report it)": EXIT_INTERNAL,
    "interrupted": EXIT_INTERRUPTED,
}


#: Rows of a per-category table or report shown on a terminal; --json has them all.
SHOWN_ROWS = 50


class CLIError(Exception):
    """A failure the user can fix: one line on stderr and an exit code."""

    def __init__(self, message, code=EXIT_USAGE):
        super().__init__(message)
        self.code = code


def missing_data(exc, data_home):
    if isinstance(exc, (CacheDirError, NotADirectoryError)):
        # no usable cache folder, a data home that is a file: the message names the fix
        return CLIError(first_line(exc), EXIT_NO_DATA)
    where = get_data_home(data_home) / "reuters21578"
    reason = first_line(exc)
    return CLIError(
        f"the Reuters-21578 corpus is not available ({reason}); put the 22 reut2-*.sgm files in "
        f"{where}, or run `textwin data --fetch`, or point --data-home / TEXTWIN_DATA_HOME at "
        "a folder that holds reuters21578/", EXIT_NO_DATA)


def damaged_corpus(exc, data_home):
    where = get_data_home(data_home) / "reuters21578"
    return CLIError(
        f"the Reuters-21578 corpus in {where} is damaged ({first_line(exc)}); replace that "
        "file from reuters21578.tar.gz, or run `textwin data --fetch` into an empty data home",
        EXIT_NO_DATA)


@contextlib.contextmanager
def reading_reuters(data_home):
    """Inside: a damaged Reuters-21578 corpus (:func:`damaged_corpus`), or a missing one
    (:func:`missing_data`), is one line that names the fix."""
    try:
        yield
    except ReutersFormatError as exc:
        raise damaged_corpus(exc, data_home) from None
    except OSError as exc:
        raise missing_data(exc, data_home) from None


def n_jobs_error(n_jobs):
    """The one-line complaint about ``--n-jobs`` (shared with `textwin reproduce`), or None."""
    if n_jobs is not None and n_jobs < 1 and n_jobs != -1:
        return f"--n-jobs must be a positive number of threads or -1, got {n_jobs}"
    return None


def fail(message, code):
    print(f"textwin: error: {message}", file=sys.stderr)
    return code


def open_model(path):
    """The :class:`~textwin.persistence.TextModel` of a model file, or a one-line
    CLIError saying what is wrong with the path or the file."""
    from ..persistence import ModelFormatError, load_model

    if Path(path).is_dir():
        raise CLIError(f"{path} is a folder: the first argument is the model file "
                       "(MODEL.npz, written by `textwin train --output MODEL.npz`)")
    try:
        return load_model(path)
    except FileNotFoundError as exc:
        raise CLIError(f"{exc}; train one with `textwin train --category CAT --output MODEL.npz`",
                       EXIT_NO_DATA) from None
    except ModelFormatError as exc:
        raise CLIError(str(exc), EXIT_BAD_MODEL) from None
    except OSError as exc:  # unreadable: permissions, an I/O error
        raise CLIError(f"cannot read the model file {path}: "
                       f"{exc.strerror or exc}", EXIT_NO_DATA) from None


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------

def out(text=""):
    # rstrip: table cells without a paper figure would leave trailing blanks
    _write(text.rstrip() + "\n")


def print_json(obj):
    # the whole document is built before anything is written: an error cannot
    # leave half a document on stdout
    _write(json_text(obj, indent=2) + "\n")


def _write(text):
    try:
        sys.stdout.write(text)
    except BrokenPipeError:
        raise
    except OSError as exc:  # a full disk (> /dev/full), an I/O error: the results are lost
        _stdout_to_devnull()  # what stays buffered must not fail again at the exit
        raise CLIError(f"cannot write the results to stdout: {exc.strerror or exc}") from None


def json_text(obj, indent=None):
    """``obj`` as standard JSON text (infinities as strings, NaN as null)."""
    return json.dumps(_finite_json(obj), indent=indent, allow_nan=False, default=_json_default)


def _finite_json(obj):
    """``obj`` with +-inf as the strings "inf"/"-inf" (a threshold never/always
    met) and NaN as null: standard JSON has no such numbers."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, dict):
        return {k: _finite_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite_json(v) for v in obj]
    return obj


def _json_default(obj):
    import numpy as np

    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return str(obj)


def pct(x, width=5):
    return "-".rjust(width) if x is None or not math.isfinite(x) else f"{100 * x:{width}.1f}"


def num(x):
    return None if x is None or not math.isfinite(x) else round(float(x), 4)


def fmt(x, width=7):
    return "-".rjust(width) if x is None else f"{x:{width}.1f}"


# ---------------------------------------------------------------------------
# Logging and library warnings
# ---------------------------------------------------------------------------

class _StderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is at the time (pipes, tests' capture)."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value):  # StreamHandler.__init__ assigns it; always use sys.stderr
        pass


def setup_logging(args):
    level = logging.WARNING if args.quiet else (logging.DEBUG if args.verbose else logging.INFO)
    logger.setLevel(level)
    if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("textwin: %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False


def progress_enabled(args):
    return not args.quiet and sys.stderr.isatty()


def estimator_verbosity(args):
    """2 (-v): a line per binary problem; 1: a progress bar over them (on a terminal)."""
    return 2 if args.verbose else (1 if progress_enabled(args) else 0)


# The solvers' parameters by the flags of this command line (a convergence
# warning's advice; Algorithm 2 to convergence is a method of its own here).
_FLAGS = {
    "max_epochs": "--epochs",
    "tol": "--tol",
    "lam": "--lam",
    "converged": "--method svm-alg2-converged",
}

# --lam auto's warnings: the grid comes from the data, and no option moves its bottom
_LAM_SEARCH_FLAGS = {
    "max_epochs": "--epochs", "tol": "--tol",
    "search_lower": "a smaller --lam given by hand",
    "search_given": "a smaller --lam given by hand",
    "avoid_smallest": "",
}

# what bounds a long search, in this command line's options (by the estimator searching)
_LONG_SEARCH_OPTIONS = {"TextClassifierCV": "--time-budget SECONDS bounds it",
                        "DualGaussSeidelClassifierCV": "--lam VALUE (a number) needs no search"}

# the degenerate-solution warning's advice in this command line's options
_DEGENERATE_FLAGS = {"lam": "--lam", "by_cv": "choose it by cross-validation (--lam auto)",
                     "smaller_lam": "a smaller --lam given by hand"}


def _log_lines(problems=(), method=None):
    """A ``warnings.showwarning`` that logs a library warning as one line: the solvers'
    convergence warning worded with the flags of this command line, its "problem k"
    named as the categories ``problems``; the degenerate-solution warning naming the
    method ``method`` instead of an estimator's class."""
    names = list(problems)

    def show(message, category, filename, lineno, file=None, line=None):
        from .._ovr import SolverConvergenceWarning
        from .._scale import DegenerateSolutionWarning

        if isinstance(message, DegenerateSolutionWarning):
            text = message.render(_DEGENERATE_FLAGS,
                                  describe=lambda k: names[k] if k < len(names) else None,
                                  estimator=method)
        elif isinstance(message, SolverConvergenceWarning):
            text = message.render(_FLAGS, resume=False, estimator=method,
                                  describe=lambda k: names[k] if k < len(names) else None)
        elif category.__name__ == "LongSearchWarning":  # the option that bounds it here
            text = message.render(_LONG_SEARCH_OPTIONS.get(message.name, ""))
        elif category.__name__ in ("LamGridWarning", "PathConvergenceWarning"):
            # --lam auto's: the categories and this command line's options
            text = message.render(_LAM_SEARCH_FLAGS, estimator=method and f"{method}, --lam auto",
                                  describe=lambda k: names[k] if k < len(names) else k)
        else:
            text = str(message)
        logger.warning("warning: %s", text)

    show.as_log_line = True
    return show


@contextlib.contextmanager
def warnings_as_log_lines(args):
    """Inside: library warnings (ConvergenceWarning, ...) as one log line each, not a
    source excerpt (:func:`_log_lines`); silenced by -q. A command names the
    categories and the method it fits with :func:`warnings_naming`."""
    with warnings.catch_warnings():
        warnings.showwarning = _log_lines()
        if args.quiet:
            warnings.simplefilter("ignore")
            # -q silences progress, not a corpus that differs from the published one
            warnings.filterwarnings("always", message=r".*differ from the published")
        yield


@contextlib.contextmanager
def warnings_naming(problems, method=None):
    """Inside :func:`warnings_as_log_lines`: the estimators' "problem k" named as the
    categories ``problems`` (in the order of the binary problems), and the method
    ``method`` (its key) instead of an estimator's class."""
    shown = warnings.showwarning
    if getattr(shown, "as_log_line", False):
        warnings.showwarning = _log_lines(problems, method)
    try:
        yield
    finally:
        warnings.showwarning = shown


def run_command(args):
    """``args.func(args)`` with what every command shares: library warnings as log
    lines, the cluster of ``--scheduler``, and its failures as one line and an exit code."""
    try:
        try:  # first: an unbuilt checkout fails here, not deep inside a long run
            import textwin._kernels  # noqa: F401
        except ImportError as exc:
            raise CLIError(str(exc), EXIT_USAGE) from None
        check_stdout()
        with warnings_as_log_lines(args), on_cluster(getattr(args, "scheduler", None)):
            code = args.func(args)
        flush_stdout()
        return code
    except CLIError as exc:
        return fail(str(exc), exc.code)
    except KeyboardInterrupt:
        return fail("interrupted", EXIT_INTERRUPTED)
    except BrokenPipeError:
        # `textwin ... | head`: the reader went away; what was not written is lost, which
        # the exit status says (as grep's does), and no later flush may fail again
        _stdout_to_devnull()
        return fail("stdout was closed by its reader (broken pipe): the rest of the "
                    "results were not written", EXIT_USAGE)


def check_stdout():
    """A command whose stdout is closed (``>&-``) stops before any work: its results
    would be lost (Python makes a closed stdout None, and print to None writes nothing)."""
    if sys.stdout is None:
        raise CLIError("stdout is closed, so the results would be lost: redirect it to a "
                       "file (> FILE) or to /dev/null (> /dev/null)")


def flush_stdout():
    """Flush stdout now, so that a failing write (a full disk, a closed pipe) is this
    command's error, not an exception ignored at the interpreter's exit."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as exc:
        # the buffer keeps what it could not write: the interpreter's exit would flush it
        # again, fail, and turn the exit status into 120
        _stdout_to_devnull()
        raise CLIError(f"cannot write the results to stdout: "
                       f"{getattr(exc, 'strerror', None) or exc}") from None


def _stdout_to_devnull():
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass  # not a real file (a test's capture): nothing is flushed at exit


def check_destination(path, what, ours, args, inputs=()):
    """Before any work: ``path`` may be written (a new file, an empty one, one of ours,
    or anything with --force) and is not an input of the command."""
    inputs = [*inputs, getattr(args, "corpus", None), getattr(args, "test_corpus", None)]
    try:
        check_overwrite(path, ours=ours, what=what, force=getattr(args, "force", False),
                        inputs=inputs)
    except (NotARegularFileError, OverwriteRefusedError) as exc:
        raise CLIError(f"cannot write the {what} to {path}: {exc}") from None


# ---------------------------------------------------------------------------
# The cluster a command runs on (--scheduler)
# ---------------------------------------------------------------------------

@contextlib.contextmanager
def on_cluster(address, timeout=5):
    """Inside: joblib's Dask backend on the scheduler at ``address``, or Ray's backend when
    ``address`` is "ray" or ray://... (nothing when None)."""
    if not address:
        yield
        return
    if address == "ray" or address.startswith("ray://"):
        try:
            ray = connect_ray(None if address == "ray" else address)
        except ClusterError as exc:
            raise CLIError(str(exc), EXIT_USAGE) from None
        import joblib

        logger.info("on the Ray cluster: %d CPUs", int(ray.cluster_resources().get("CPU", 0)))
        try:
            with joblib.parallel_config(backend="ray"):
                yield
        except ClusterError as exc:
            raise CLIError(str(exc), EXIT_USAGE) from None
        return

    try:
        client = connect(address, timeout=timeout)
    except ClusterError as exc:
        raise CLIError(str(exc), EXIT_USAGE) from None
    import joblib

    workers = client.scheduler_info().get("workers", {})
    logger.info("on the Dask cluster at %s: %d workers, %d threads", address, len(workers),
                sum(w.get("nthreads", 0) for w in workers.values()))
    try:
        with joblib.parallel_config(backend="dask", client=client):
            yield
    except ClusterError as exc:
        raise CLIError(str(exc), EXIT_USAGE) from None
    finally:
        client.close()
