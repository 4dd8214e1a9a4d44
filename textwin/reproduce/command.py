"""``textwin reproduce``: check the destinations and the corpus, run the plan, draw the
figures and write the report (the options are :mod:`textwin.cli.reproduce`'s)."""
from __future__ import annotations

import contextlib
import datetime
import logging
import os
import sys
import time
from pathlib import Path

from ..experiments import load_protocol_data
from .destinations import check_destinations, write_error
from .figures import FIGURE_NAMES, figure_lambda, figure_pr
from .plan import Plan, full_plan, quick_plan
from .report import write_document
from .runs import measure

logger = logging.getLogger("textwin")


def _load_data(plan, data_home, offline):
    """The protocol's data; a missing or damaged corpus is a :class:`textwin.cli.CLIError`."""
    from .._cli_common import EXIT_NO_DATA, CLIError, damaged_corpus, first_line
    from ..datasets import ReutersFormatError
    from ..datasets._base import DATA_HOME_ENV, data_home_path
    from ..datasets._reuters import ARCHIVES, CORPUS_DIR, SGML_FILES

    home = data_home_path(data_home)  # as the loader resolves it
    corpus = home / CORPUS_DIR
    option = "--data-home" if data_home else f"--data-home (or {DATA_HOME_ENV})"
    where = (f"put {ARCHIVES[0].filename}, unopened, in {home} or extract its 22 reut2-*.sgm "
             f"files into {corpus}/, or pass {option} the folder that holds {CORPUS_DIR}/")
    if offline:
        where += ", or drop --offline to download it"
    if home.exists() and not home.is_dir():
        raise CLIError(f"the data home {home} is a file; pass {option} a folder", EXIT_NO_DATA)
    if offline and not home.exists():
        raise CLIError(f"the data home {home} does not exist (--offline); {where}",
                       EXIT_NO_DATA)
    try:
        return load_protocol_data(plan.categories, data_home, download_if_missing=not offline)
    except ReutersFormatError as exc:
        raise damaged_corpus(exc, data_home) from None
    except OSError as exc:
        if all((corpus / f).is_file() for f in SGML_FILES):
            # The corpus is there; something else failed (no writable cache, ...),
            # and the loader's message names the fix.
            raise CLIError(first_line(exc), EXIT_NO_DATA) from None
        raise CLIError(f"{first_line(exc)}; {where}", EXIT_NO_DATA) from None


def _setup_logging(quiet):
    if quiet:
        logger.setLevel(logging.WARNING)
        return
    logger.setLevel(logging.INFO)
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("textwin: %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False


def _relative(target, start):
    try:
        return Path(os.path.relpath(target, start)).as_posix()
    except ValueError:  # another drive on Windows
        return Path(target).resolve().as_posix()


def run(args, command):
    """Run the reproduction that the parsed options ``args`` ask for; ``command`` is the
    command line the report records. Returns the exit status."""
    from .._cli_common import EXIT_USAGE, CLIError, n_jobs_error
    from .._ovr import effective_n_jobs

    if n_jobs_error(args.n_jobs):
        # the same one line as `textwin train --n-jobs 0`, not argparse's usage block
        print(f"textwin: error: {n_jobs_error(args.n_jobs)}", file=sys.stderr)
        return EXIT_USAGE
    plan = quick_plan() if args.quick else full_plan()
    if args.draws is not None:
        plan = Plan(**{**plan.__dict__, "draws": args.draws})
    _setup_logging(args.quiet)
    try:
        _run(args, command, plan, effective_n_jobs(args.n_jobs))  # -1: one thread per core
    except CLIError as exc:
        print(f"textwin: error: {exc}", file=sys.stderr)
        return exc.code
    return 0


def _run(args, command, plan, n_jobs):
    started = datetime.datetime.now(datetime.timezone.utc)
    t0 = time.perf_counter()
    output = Path(args.output)
    figures = output.parent / "figures" if args.figures is None else Path(args.figures)
    # Fail before the long run, not after it, if the results cannot be written.
    check_destinations(args.output, figures, quick=args.quick, force=args.force)
    data = _load_data(plan, args.data_home, args.offline)
    logger.info("ModApte: %d training, %d test documents, %d features, %d categories",
                data.X_train.shape[0], data.X_test.shape[0], data.X_train.shape[1],
                len(data.categories))
    progress = not args.quiet and sys.stderr.isatty()
    m = measure(plan, data, data_home=args.data_home, n_jobs=n_jobs, progress=progress)
    lambda_png, pr_png = (figures / name for name in FIGURE_NAMES)
    with _writing(lambda_png, "--figures"):
        figure_lambda(m.synth, plan, lambda_png)
    with _writing(pr_png, "--figures"):
        figure_pr(m.y_pr, m.curves, plan, pr_png)
    with _writing(output, "--output"):
        write_document(output, m, command=command, plan=plan, started=started,
                       seconds=time.perf_counter() - t0,
                       figures_rel=_relative(figures, output.parent))
    logger.info("wrote %s and 2 figures in %s (%.0f s)", output, figures,
                time.perf_counter() - t0)


@contextlib.contextmanager
def _writing(path, option):
    """An OSError while writing ``path`` (a full disk, ...) is one line naming it."""
    from .._cli_common import EXIT_USAGE, CLIError

    try:
        yield
    except OSError as exc:
        raise CLIError(write_error(path, option, exc), EXIT_USAGE) from None
