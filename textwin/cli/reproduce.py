"""`textwin reproduce`: rerun the papers' experiments and write their report."""
from __future__ import annotations

import argparse
import importlib.util

from .common import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_NO_DATA,
    EXIT_OK,
    EXIT_USAGE,
    fail,
    first_line,
    setup_logging,
)


def add_parser(sub):
    """`reproduce` in `textwin --help`; its own options are parsed by
    :mod:`textwin.reproduce` (:func:`textwin.cli.main` forwards everything after the word)."""
    sub.add_parser(
        "reproduce", add_help=False,
        help="rerun the papers' experiments and write their report (reproduction.md in "
             "the current folder; see `textwin reproduce --help`)")


def cmd_reproduce(argv):
    """Forward ``argv`` to :func:`textwin.reproduce.main` (imported only now)."""
    setup_logging(argparse.Namespace(quiet="-q" in argv or "--quiet" in argv, verbose=False))
    try:
        from .. import reproduce
    except ImportError as exc:
        return fail(f"`textwin reproduce` is not available in this installation ({exc}); "
                    "reinstall textwin (`pip install .`)", EXIT_INTERNAL)
    if not {"-h", "--help"} & set(argv):
        # Checked first: the figures come at the end of a long run.
        if importlib.util.find_spec("matplotlib") is None:
            return fail("`textwin reproduce` draws its figures with matplotlib, which is not "
                        "installed: pip install 'textwin[plot]' (or pip install matplotlib)",
                        EXIT_NO_DATA)
    try:
        return reproduce.main(argv, prog="textwin reproduce") or EXIT_OK
    except SystemExit as exc:  # its argparse: --help (0) or a bad option (2)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except (FileNotFoundError, OSError) as exc:
        return fail(f"{first_line(exc)}; the reproduction needs the Reuters-21578 corpus "
                    "(see `textwin data --help`) and a writable --output folder",
                    EXIT_NO_DATA)
    except KeyboardInterrupt:
        return fail("interrupted", EXIT_INTERRUPTED)
