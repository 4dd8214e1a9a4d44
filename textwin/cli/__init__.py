"""The ``textwin`` command: train, evaluate, score and manage data from a shell.

One module per command (:mod:`.train`, :mod:`.eval`, :mod:`.predict`, :mod:`.inspect`,
:mod:`.data`, :mod:`.reproduce`), each with its options (``add_parser``) and its output; what they
share is in :mod:`.common` (exit codes, errors, output, logging, option groups), and
what `train` and `eval` share in :mod:`.corpus` (the data), :mod:`.training` (the fit)
and :mod:`.report` (what they print of it). Results go to stdout (a table,
or JSON with ``--json``), logs and progress bars to stderr; every failure the user
can fix is one line, ``textwin: error: ...``, with an exit code of
:data:`EXIT_CODES`.

Importing this package loads the standard library and a few small modules only:
numpy and the modules that use it are imported inside the functions that need
them, so that they load within :func:`main` (a Ctrl-C then is one line, not a
traceback), and scikit-learn and scipy only in the commands that fit or read
data, never for ``--help`` (``tests/test_cli.py`` checks both).
"""
from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import textwrap
import threading

from .._version import __version__
from . import data, predict, reproduce, train
from . import inspect as inspect_model
from . import eval as evaluate
from .common import (
    EXIT_BAD_MODEL,
    EXIT_CODES,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_NO_DATA,
    EXIT_OK,
    EXIT_USAGE,
    CLIError,
    fail,
    n_jobs_error,
    run_command,
    setup_logging,
)
from .options import HelpFormatter
from .eval import CORPUS_METHODS
from .tuning import TUNING_FOLDS
from .corpus import BUILTIN_CORPORA
from .training import LAM_ONE_OVER_N, default_lam

__all__ = ["BUILTIN_CORPORA", "CORPUS_METHODS", "EXIT_BAD_MODEL", "EXIT_CODES", "EXIT_INTERNAL",
           "EXIT_INTERRUPTED", "EXIT_NO_DATA", "EXIT_OK", "EXIT_USAGE", "LAM_ONE_OVER_N",
           "TUNING_FOLDS", "CLIError", "build_parser", "default_lam", "main"]

MAIN_EPILOG = """\
examples:
  textwin data --verify                      where the corpus is, and its ModApte counts
  textwin train --category acq               SVM (Algorithm 1) on 'acq', test break-even point
  textwin train --category acq --method rwinnow --output acq.npz
  echo "cargo ship collides with tanker" | textwin predict acq.npz
  textwin inspect acq.npz                    what the model is, and its terms of most weight
  textwin eval --micro-breakeven             the paper's methods on its ten categories
  textwin eval --micro-breakeven --methods svm-alg2,smo --json
  textwin reproduce --quick --output /tmp/repro.md   a small run of the reproduction report

{exit_codes}
The corpus is looked for in <data home>/reuters21578/, the data home being --data-home,
else $TEXTWIN_DATA_HOME, else ~/textwin_data; train, eval and reproduce download it there
when it is missing (not with --offline).
"""


def build_parser():
    """The argument parser of the ``textwin`` command."""
    from ..experiments import METHODS, PAPER_METHODS

    parser = argparse.ArgumentParser(
        prog="textwin", formatter_class=HelpFormatter,
        description="Sparse text categorization by the dual Gauss-Seidel method: SVMs, "
                    "regularized Winnows and their baselines on Reuters-21578 or your corpus.",
        epilog=MAIN_EPILOG.format(exit_codes=textwrap.fill("exit codes: " + ", ".join(
            f"{code} {meaning}" for meaning, code in EXIT_CODES.items()) + ".", 88)))
    parser.add_argument("--version", action="version", version=f"textwin {__version__}")
    parser.add_argument("-q", "--quiet", action="store_true", help="no logs or progress bars")
    parser.add_argument("-v", "--verbose", action="store_true", help="more logs on stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    methods_help = "\n".join(
        f"  {k:<20}{m.paper_name}" + ("" if m.paper_micro is None
                                      else f" (paper: {m.paper_micro})")
        for k, m in METHODS.items())

    train.add_parser(sub, methods_help, list(METHODS))
    evaluate.add_parser(sub, methods_help, PAPER_METHODS)
    predict.add_parser(sub)
    inspect_model.add_parser(sub)
    data.add_parser(sub)
    reproduce.add_parser(sub)
    parser.commands = sub.choices  # each command's parser: which has an option given amiss
    return parser


def main(argv=None):
    """Run the ``textwin`` command; return its exit status."""
    from textwin._memory import map_large_blocks

    map_large_blocks()  # the folds' matrices, freed in threads, go back to the system
    try:
        with sigterm_as_interrupt():
            return _parse_and_run(sys.argv[1:] if argv is None else list(argv))
    except KeyboardInterrupt:  # Ctrl-C while the libraries load, before the command runs
        return fail("interrupted", EXIT_INTERRUPTED)


@contextlib.contextmanager
def sigterm_as_interrupt():
    """Inside: SIGTERM (``kill``, a batch system's time limit) stops the command as
    Ctrl-C does, so that a file being written is removed, not left as a temporary.
    Only where SIGTERM still has its default action, in the main thread."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):
        yield
        return

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _options_elsewhere(parser, extra, command):
    """``" (--proba is an option of textwin train)"`` for the options of ``extra`` that
    another command's usage lists, else ``""``."""
    import re

    found = []
    for option in dict.fromkeys(e.split("=")[0] for e in extra if e.startswith("--")):
        listed = re.compile(rf"(?<![\w-]){re.escape(option)}(?![\w-])")
        others = [name for name, sub in parser.commands.items()
                  if name != command and listed.search(sub.format_usage())]
        if others:
            found.append(f"{option} is an option of "
                         + " and ".join(f"textwin {name}" for name in others))
    return f" ({'; '.join(found)})" if found else ""


def _parse_and_run(argv):
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    # argparse leaves inputs given after an option (`predict M --json - a.txt`) over.
    if extra and getattr(args, "command", None) == "predict" and all(
            e == "-" or not e.startswith("-") for e in extra):
        args.inputs = [*args.inputs, *extra]
    elif extra:  # with the usage of the command that has its own (reproduce), else textwin's
        getattr(args, "usage_error", parser.error)(
            f"unrecognized arguments: {' '.join(extra)}"
            + _options_elsewhere(parser, extra, getattr(args, "command", None)))
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    # -q/-v may come before or after the subcommand.
    args.quiet = getattr(args, "quiet", False)
    args.verbose = getattr(args, "verbose", False)
    args.words = argv[argv.index(args.command) + 1:]  # what followed the command's name
    setup_logging(args)
    if n_jobs_error(getattr(args, "n_jobs", None)):
        return fail(n_jobs_error(args.n_jobs), EXIT_USAGE)
    return run_command(args)
