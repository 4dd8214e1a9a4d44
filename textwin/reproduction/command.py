"""A reproduction run: check the destinations and the corpus, run the plan, draw the
figures and write the report. The command, its options and its exit codes are
:mod:`textwin.cli.reproduce`'s; what stops a run here is a
:class:`~textwin.reproduction.ReproductionError`."""
from __future__ import annotations

import contextlib
import datetime
import logging
import os
import time
from pathlib import Path

from .._messages import first_line
from ..experiments import load_protocol_data
from .destinations import check_destinations, write_error
from .errors import DataError, DestinationError
from .figures import FIGURE_NAMES, figure_lambda, figure_pr
from .plan import Plan, full_plan, quick_plan
from .report import write_document
from .runs import measure

logger = logging.getLogger("textwin")


def _load_data(plan, data_home, offline):
    """The protocol's data; a missing corpus is a :class:`DataError` (a damaged one, the
    loader's :class:`~textwin.datasets.ReutersFormatError`)."""
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
        raise DataError(f"the data home {home} is a file; pass {option} a folder")
    if offline and not home.exists():
        raise DataError(f"the data home {home} does not exist (--offline); {where}")
    try:
        return load_protocol_data(plan.categories, data_home, download_if_missing=not offline)
    except OSError as exc:
        if all((corpus / f).is_file() for f in SGML_FILES):
            # The corpus is there; something else failed (no writable cache, ...),
            # and the loader's message names the fix.
            raise DataError(first_line(exc)) from None
        raise DataError(f"{first_line(exc)}; {where}") from None


def _relative(target, start):
    try:
        return Path(os.path.relpath(target, start)).as_posix()
    except ValueError:  # another drive on Windows
        return Path(target).resolve().as_posix()


def run(output="reproduction.md", *, command, figures=None, quick=False, draws=None,
        data_home=None, offline=False, force=False, n_jobs=1, progress=False):
    """Measure the plan (:func:`quick_plan` with ``quick``, else :func:`full_plan`; ``draws``
    synthetic draws instead of its own), draw its figures into ``figures`` (default:
    figures/ beside ``output``) and write the report to ``output``, recording
    ``command`` as the command line that made it.

    Raises :class:`DestinationError` (before any work) where ``output`` or ``figures``
    cannot or may not be written, :class:`DataError` where the corpus is missing, and
    the loader's :class:`~textwin.datasets.ReutersFormatError` where it is damaged.
    """
    from .._ovr import effective_n_jobs

    plan = quick_plan() if quick else full_plan()
    if draws is not None:
        plan = Plan(**{**plan.__dict__, "draws": draws})
    started = datetime.datetime.now(datetime.timezone.utc)
    t0 = time.perf_counter()
    figures = Path(output).parent / "figures" if figures is None else Path(figures)
    # Fail before the long run, not after it, if the results cannot be written.
    check_destinations(output, figures, quick=quick, force=force)  # as given: "docs/"
    output = Path(output)
    data = _load_data(plan, data_home, offline)
    logger.info("ModApte: %d training, %d test documents, %d features, %d categories",
                data.X_train.shape[0], data.X_test.shape[0], data.X_train.shape[1],
                len(data.categories))
    m = measure(plan, data, data_home=data_home, n_jobs=effective_n_jobs(n_jobs),
                progress=progress)
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
    try:
        yield
    except OSError as exc:
        raise DestinationError(write_error(path, option, exc)) from None
