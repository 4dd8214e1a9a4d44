"""What every textwin command shares: exit codes, the user-fixable error, help layout.

Used by :mod:`textwin.cli` and by the reproduction's command line
(:mod:`textwin.reproduce`), so that neither imports the other's internals.
"""
import argparse
import sys

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


class CLIError(Exception):
    """A failure the user can fix: one line on stderr and an exit code."""

    def __init__(self, message, code=EXIT_USAGE):
        super().__init__(message)
        self.code = code


def first_line(exc):
    """The first line of a library error, without the API-only advice."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()] or [type(exc).__name__]
    text = lines[0]
    if text.endswith(":") and len(lines) > 1:  # "could not download ...:" then the reason
        text = f"{text} {lines[1]}"
    return text.replace(" and download_if_missing=False", "").rstrip(".")


def missing_data(exc, data_home):
    from .datasets import CacheDirError, get_data_home

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
    from .datasets import get_data_home

    where = get_data_home(data_home) / "reuters21578"
    return CLIError(
        f"the Reuters-21578 corpus in {where} is damaged ({first_line(exc)}); replace that "
        "file from reuters21578.tar.gz, or run `textwin data --fetch` into an empty data home",
        EXIT_NO_DATA)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the epilog's examples as written; wraps the description."""

    def _fill_text(self, text, width, indent):
        if "\n" in text:  # an epilog laid out by hand
            return super()._fill_text(text, width, indent)
        return argparse.HelpFormatter._fill_text(self, text, width, indent)


def n_jobs_error(n_jobs):
    """The one-line complaint about ``--n-jobs`` (shared with `textwin reproduce`), or None."""
    if n_jobs is not None and n_jobs < 1 and n_jobs != -1:
        return f"--n-jobs must be a positive number of threads or -1, got {n_jobs}"
    return None


def fail(message, code):
    print(f"textwin: error: {message}", file=sys.stderr)
    return code
