"""Where a run writes, checked before any work: --output and --figures must be
writable, and a file there is replaced only if this command wrote it (a quick run
never replaces a full run's report or figures); --force replaces any file.

The checks read what the destination holds, not where textwin is installed: an
installed textwin guards a checkout's docs/ as well as one run from the checkout.
"""
from __future__ import annotations

import errno
import os
from pathlib import Path

from .._io import NotARegularFileError, OverwriteRefusedError, check_overwrite
from .._messages import first_line
from .errors import DestinationError
from .figures import FIGURE_NAMES, figure_run
from .report import report_run


def check_destinations(output, figures, *, quick, force):
    """Raise :class:`~textwin.reproduction.DestinationError` if the report (``output``, as
    given) or the figures (folder ``figures``) may not be written. Nothing is created here."""
    _check_writable(Path(output), "--output", folder=False)
    _check_file_name(output)
    _check_writable(figures, "--figures", folder=True)
    _check_replace(Path(output), "--output", "report", report_run, quick, force)
    for name in FIGURE_NAMES:
        _check_replace(figures / name, "--figures", "figure", figure_run, quick, force)


def _check_file_name(output):
    """A name without a suffix (``--output docs``) is taken for a folder."""
    text, path = os.fspath(output), Path(output)
    if path.exists() or (path.suffix and not text.endswith(("/", os.sep))):
        return
    raise DestinationError(f"--output {text} has no file suffix, so it reads as a folder; "
                           f"pass --output a file name, such as {path / 'reproduction.md'}")


def _check_replace(path, option, what, run_of, quick, force):
    """An existing file at ``path`` must be one of ours (``run_of(path)`` is not None),
    and with --quick one of a quick run."""
    try:
        check_overwrite(path, ours=lambda p: run_of(p) is not None, what=what, force=force)
    except (NotARegularFileError, OverwriteRefusedError) as exc:
        raise DestinationError(f"{option}: {exc}") from None
    if quick and not force and path.is_file() and run_of(path) not in (None, "quick"):
        raise DestinationError(f"--quick does not replace {path}, a full run's {what}: a "
                               "quick run's numbers are not comparable with the papers'; pass "
                               f"{option} another path, or add --force to replace it")


def _check_writable(path, option, folder):
    """``path`` can be written: its nearest existing folder is a writable folder.

    ``folder``: whether ``path`` is a folder to write into (else a file). The
    missing folders are created when the results are written.
    """
    if folder and path.exists() and not path.is_dir():
        raise DestinationError(f"{option} {path} is a file, not a folder; pass {option} a "
                               "folder (it is created if missing)")
    if not folder and path.is_dir():
        raise DestinationError(f"{option} {path} is a folder; pass {option} a file name, "
                               f"such as {path / 'reproduction.md'}")
    existing = (path if folder else path.parent).absolute()
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        problem = f"{existing} is a file, not a folder"
    elif not os.access(existing, os.W_OK | os.X_OK):
        problem = f"{existing} is not writable"
    else:
        return
    raise DestinationError(f"cannot write {option} {path} ({problem}); pass a writable "
                           f"{option}")


def write_error(path, option, exc):
    """The one line for an OSError raised while writing ``path`` after the run."""
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return (f"cannot write {path}: the disk is full ({exc.strerror}); free some space, "
                f"or pass {option} a path on another disk, and run again")
    return f"cannot write {path}: {first_line(exc)}; pass a writable {option}"
