"""`textwin reproduce` (and ``python -m textwin.reproduce``): rerun the papers'
experiments and write their report. The options, and the exit code of each
:class:`~textwin.reproduction.ReproductionError`, are here; the runs are
:mod:`textwin.reproduction`'s."""
from __future__ import annotations

import argparse
import importlib.util
import shlex
import sys

from .common import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_NO_DATA,
    EXIT_OK,
    EXIT_USAGE,
    CLIError,
    damaged_corpus,
    fail,
    first_line,
    n_jobs_error,
    progress_enabled,
    run_command,
    setup_logging,
)
from .options import HelpFormatter

_DESCRIPTION = ("Run the papers' experiments and write docs/reproduction.md with its figures "
                "(every number measured by this run).")

_EPILOG = """\
examples:
  {prog} --n-jobs 2
      the full run: writes reproduction.md and figures/ in the current folder
      (several minutes on two cores)
  {prog} --n-jobs 2 --output docs/reproduction.md
      regenerate docs/reproduction.md and docs/figures/ (from the repository's root)
  {prog} --quick --output /tmp/repro/reproduction.md --figures /tmp/repro/figures
      a small run (3 categories, 5 epochs, a small synthetic set) to try the command;
      its numbers are not comparable with the papers'
  {prog} --offline --data-home /data
      use the corpus in /data/reuters21578/ and never download it

The corpus is looked for in <data home>/reuters21578/, the data home being --data-home,
else $TEXTWIN_DATA_HOME, else ~/textwin_data; it is downloaded there if missing, unless
--offline is given. An existing file at --output or in --figures is replaced only if
textwin reproduce wrote it, and by --quick only if a quick run did (--force replaces
any). Exit codes: 0 ok, 2 bad option, or an --output / --figures that cannot or may not
be written, 3 missing or damaged corpus.
"""


def add_parser(sub):
    """The `reproduce` subcommand's options."""
    p = sub.add_parser(
        "reproduce", formatter_class=HelpFormatter, description=_DESCRIPTION,
        epilog=_EPILOG.format(prog="textwin reproduce"),
        help="rerun the papers' experiments and write their report (reproduction.md in "
             "the current folder; see `textwin reproduce --help`)")
    _add_options(p)


def build_parser(prog="python -m textwin.reproduce"):
    """The parser of ``python -m textwin.reproduce``: the options of `textwin reproduce`."""
    p = argparse.ArgumentParser(prog=prog, formatter_class=HelpFormatter,
                                description=_DESCRIPTION, epilog=_EPILOG.format(prog=prog))
    _add_options(p)
    return p


class _AtLeastTwoDraws(argparse.Action):
    """--draws: the spread of the synthetic results needs two draws."""

    def __call__(self, parser, namespace, values, option_string=None):
        if values < 2:
            parser.error("--draws must be at least 2 (the spread needs two draws)")
        setattr(namespace, self.dest, values)


def _add_options(p):
    p.add_argument("--output", default="reproduction.md",
                   help="the Markdown document to write (default: %(default)s in the current "
                        "folder; the repository's is docs/reproduction.md, written only when "
                        "named here); an existing file is replaced only if it is a report "
                        "of this command, and by --quick only if it is a quick run's")
    p.add_argument("--figures", default=None,
                   help="folder for the PNG figures (default: figures/ beside --output)")
    p.add_argument("--quick", action="store_true",
                   help="a small version (3 categories, 5 epochs, a small synthetic set) "
                        "for tests; not comparable with the papers")
    p.add_argument("--draws", type=int, default=None, action=_AtLeastTwoDraws,
                   help="random draws of the synthetic data per dimension (default: 5, "
                        "quick: 2)")
    p.add_argument("--data-home", default=None,
                   help="folder holding reuters21578/ (default: TEXTWIN_DATA_HOME or "
                        "~/textwin_data)")
    p.add_argument("--offline", action="store_true",
                   help="never download the corpus; fail (exit 3), saying where to put the "
                        "files, if it is missing")
    p.add_argument("--n-jobs", type=int, default=1,
                   help="threads for the synthetic draws and the Reuters categories "
                        "(-1: one per core; default: %(default)s); the results do not "
                        "depend on it")
    p.add_argument("--force", action="store_true",
                   help="replace an existing --output or figure that this command did not "
                        "write, or a full run's with --quick")
    p.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                   help="no progress bars or log lines on stderr")
    # A bad option is reported with this command's usage, and the report records the
    # command as it was typed (`prog`, then the words after the command's name).
    p.set_defaults(func=cmd_reproduce, usage_error=p.error, prog=p.prog)


def main(argv=None, prog="python -m textwin.reproduce"):
    """``python -m textwin.reproduce``: what `textwin reproduce` does, with this ``prog``
    in its messages and in the report."""
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        args = build_parser(prog).parse_args(argv)
        args.words, args.quiet, args.verbose = argv, getattr(args, "quiet", False), False
        setup_logging(args)
        if n_jobs_error(args.n_jobs):
            return fail(n_jobs_error(args.n_jobs), EXIT_USAGE)
        return run_command(args)
    except KeyboardInterrupt:  # while the libraries load
        return fail("interrupted", EXIT_INTERRUPTED)


def cmd_reproduce(args):
    """The reproduction the options ask for, its errors mapped to exit codes."""
    try:
        from .. import reproduction
        from ..datasets import ReutersFormatError
    except ImportError as exc:
        raise CLIError(f"`textwin reproduce` is not available in this installation ({exc}); "
                       "reinstall textwin (`pip install .`)", EXIT_INTERNAL) from None
    # Checked first: the figures come at the end of a long run.
    if importlib.util.find_spec("matplotlib") is None:
        raise CLIError("`textwin reproduce` draws its figures with matplotlib, which is not "
                       "installed: pip install matplotlib",
                       EXIT_NO_DATA)
    # -q / --quiet only silence stderr: the document is the same, so the recorded
    # command leaves them out
    command = shlex.join(shlex.split(args.prog)
                         + [a for a in args.words if a not in ("-q", "--quiet")])
    try:
        reproduction.run(args.output, command=command, figures=args.figures, quick=args.quick,
                      draws=args.draws, data_home=args.data_home, offline=args.offline,
                      force=args.force, n_jobs=args.n_jobs, progress=progress_enabled(args))
    except reproduction.DestinationError as exc:
        raise CLIError(str(exc), EXIT_USAGE) from None
    except reproduction.DataError as exc:
        raise CLIError(str(exc), EXIT_NO_DATA) from None
    except ReutersFormatError as exc:
        raise damaged_corpus(exc, args.data_home) from None
    except OSError as exc:
        raise CLIError(f"{first_line(exc)}; the reproduction needs the Reuters-21578 corpus "
                       "(see `textwin data --help`) and a writable --output folder",
                       EXIT_NO_DATA) from None
    return EXIT_OK
