"""``textwin reproduce``: check the destinations and the corpus, run the plan, draw the
figures and write the report (the options are in :mod:`.options`)."""
from __future__ import annotations

import datetime
import logging
import os
import shlex
import sys
import time
from pathlib import Path

from ..experiments import load_protocol_data
from .figures import figure_lambda, figure_pr
from .options import build_parser
from .plan import Plan, full_plan, quick_plan
from .report import write_document
from .runs import measure

logger = logging.getLogger("textwin")


#: The repository's committed report and figures (in a source checkout).
_COMMITTED = (Path(__file__).resolve().parents[2] / "docs" / "reproduction.md",
              Path(__file__).resolve().parents[2] / "docs" / "figures")


def _refuse_committed(output, figures):
    """--quick's small, incomparable figures never replace the committed report."""
    from .._cli_common import EXIT_USAGE, CLIError

    for path, committed, option in ((output, _COMMITTED[0], "--output"),
                                    (figures, _COMMITTED[1], "--figures")):
        if path.resolve() == committed:
            raise CLIError(f"--quick does not write the repository's {committed.parent.name}/"
                           f"{committed.name}: its figures are not comparable with the "
                           f"papers'; pass {option} another path", EXIT_USAGE)


def _check_writable(path, option, folder):
    """Raise :class:`textwin.cli.CLIError` now, not after the run, if ``path`` is unwritable.

    ``folder``: whether ``path`` is a folder to write into (else a file). Nothing
    is created here; the missing folders are created when the results are written.
    """
    from .._cli_common import EXIT_USAGE, CLIError

    path = Path(path)
    if folder and path.exists() and not path.is_dir():
        raise CLIError(f"{option} {path} is a file, not a folder; pass {option} a folder "
                       "(it is created if missing)", EXIT_USAGE)
    if not folder and path.is_dir():
        raise CLIError(f"{option} {path} is a folder; pass {option} a file name, such as "
                       f"{path / 'reproduction.md'}", EXIT_USAGE)
    if not folder:
        from .._io import NotARegularFileError, resolve_destination

        try:
            resolve_destination(path)  # a device or a FIFO would be replaced by a file
        except NotARegularFileError as exc:
            raise CLIError(f"{option}: {exc}", EXIT_USAGE) from None
    existing = path if folder else path.parent
    existing = existing.absolute()
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        problem = f"{existing} is a file, not a folder"
    elif not os.access(existing, os.W_OK | os.X_OK):
        problem = f"{existing} is not writable"
    else:
        return
    raise CLIError(f"cannot write {option} {path} ({problem}); pass a writable {option}",
                   EXIT_USAGE)


def _load_data(plan, data_home, offline):
    """The protocol's data; a missing or damaged corpus is a :class:`textwin.cli.CLIError`."""
    from .._cli_common import EXIT_NO_DATA, CLIError, damaged_corpus, first_line
    from ..datasets import ReutersFormatError
    from ..datasets._base import DATA_HOME_ENV
    from ..datasets._reuters import ARCHIVES, CORPUS_DIR, SGML_FILES

    # Resolved as the loader does, without get_data_home, which creates the folder:
    # offline, nothing can arrive in a new one.
    home = Path(data_home or os.environ.get(DATA_HOME_ENV) or "~/textwin_data").expanduser()
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


def main(argv=None, prog="python -m textwin.reproduce"):
    """Run the reproduction and write the document; return the exit status.

    0 on success; 2 on an unwritable ``--output`` or ``--figures`` (argparse exits
    with 2 on a bad option); 3 on a missing or damaged corpus. A failure the user
    can fix prints one line, ``textwin: error: ...``, naming the fix; a warning
    (a corpus that differs from the published one, ...) one ``textwin: warning:`` line.
    """
    import warnings

    def show(message, category, filename, lineno, file=None, line=None):
        print(f"textwin: warning: {message}", file=sys.stderr)  # not a source excerpt

    args_list = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(prog)
    args = parser.parse_args(args_list)
    if args.draws is not None and args.draws < 2:
        parser.error("--draws must be at least 2 (the spread needs two draws)")
    # -q / --quiet only silence stderr: the document is the same, so the
    # recorded command leaves them out
    command = shlex.join(shlex.split(prog)
                         + [a for a in args_list if a not in ("-q", "--quiet")])
    with warnings.catch_warnings():
        warnings.showwarning = show
        return run(args, command)


def run(args, command):
    """Run the reproduction that the parsed options ``args`` ask for; ``command`` is the
    command line the report records. Returns the exit status."""
    from .._cli_common import EXIT_USAGE, CLIError, n_jobs_error
    from .._ovr import effective_n_jobs

    if n_jobs_error(args.n_jobs):
        # the same one line as `textwin train --n-jobs 0`, not argparse's usage block
        print(f"textwin: error: {n_jobs_error(args.n_jobs)}", file=sys.stderr)
        return EXIT_USAGE
    n_jobs = effective_n_jobs(args.n_jobs)  # -1: one thread per core
    plan = quick_plan() if args.quick else full_plan()
    if args.draws is not None:
        plan = Plan(**{**plan.__dict__, "draws": args.draws})
    _setup_logging(args.quiet)
    progress = not args.quiet and sys.stderr.isatty()
    started = datetime.datetime.now(datetime.timezone.utc)
    t0 = time.perf_counter()
    output = Path(args.output)
    figures = output.parent / "figures" if args.figures is None else Path(args.figures)
    try:
        if args.quick:
            _refuse_committed(output, figures)
        # Fail before the long run, not after it, if the results cannot be written.
        _check_writable(output, "--output", folder=False)
        _check_writable(figures, "--figures", folder=True)
        data = _load_data(plan, args.data_home, args.offline)
    except CLIError as exc:
        print(f"textwin: error: {exc}", file=sys.stderr)
        return exc.code
    logger.info("ModApte: %d training, %d test documents, %d features, %d categories",
                data.X_train.shape[0], data.X_test.shape[0], data.X_train.shape[1],
                len(data.categories))
    m = measure(plan, data, data_home=args.data_home, n_jobs=n_jobs, progress=progress)
    figure_lambda(m.synth, plan, figures / "regularized_winnow_lambda.png")
    figure_pr(m.y_pr, m.curves, plan.pr_category, figures / "precision_recall.png")
    write_document(output, m, command=command, plan=plan, started=started,
                   seconds=time.perf_counter() - t0,
                   figures_rel=_relative(figures, output.parent))
    logger.info("wrote %s and 2 figures in %s (%.0f s)", output, figures,
                time.perf_counter() - t0)
    return 0


def console():  # pragma: no cover - `python -m textwin.reproduce`
    """``python -m textwin.reproduce``: :func:`main` with the command line's last resorts."""
    from .._cli_common import EXIT_NO_DATA, first_line

    try:
        return main()
    except OSError as exc:
        # Failures main() does not foresee, such as a full disk when the document is
        # written: one line, as `textwin reproduce` prints it, not a traceback.
        print(f"textwin: error: {first_line(exc)}", file=sys.stderr)
        return EXIT_NO_DATA
    except KeyboardInterrupt:
        print("textwin: error: interrupted", file=sys.stderr)
        return 130
