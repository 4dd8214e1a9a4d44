"""The options of `textwin reproduce` (and ``python -m textwin.reproduce``)."""
from __future__ import annotations

import argparse

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


def build_parser(prog="python -m textwin.reproduce"):
    """The argument parser; its --help is what `textwin reproduce --help` prints."""
    from .._cli_common import HelpFormatter

    p = argparse.ArgumentParser(
        prog=prog, formatter_class=HelpFormatter, epilog=_EPILOG.format(prog=prog),
        description="Run the papers' experiments and write docs/reproduction.md with its "
                    "figures (every number measured by this run).")
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
    p.add_argument("--draws", type=int, default=None,
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
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress bars or log lines on stderr")
    return p
