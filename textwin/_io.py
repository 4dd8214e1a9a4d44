"""Small file-system helpers shared by the data cache and the model files."""
import contextlib
import glob
import os
import re
import secrets
import stat
import time
from pathlib import Path

# What a path that is not a regular file is, for the error message.
_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
          (stat.S_ISSOCK, "a socket"))
# mkstemp's flags: no symlink followed, binary on Windows.
_TMP_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
              | getattr(os, "O_BINARY", 0))


def file_kind(mode):
    """What a file of ``st_mode`` ``mode`` that is not a regular file is, for a message
    ("a named pipe (FIFO)"); ``None`` for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "a special file")


class NotARegularFileError(OSError):
    """The destination of a write exists and is not a regular file (a device, a FIFO,
    a socket, a directory): replacing it with a file is never what was meant."""


def resolve_destination(path):
    """Return ``(target, st)``: where writing ``path`` puts the content, and its
    ``os.stat`` result (``None`` if it does not exist yet).

    A symbolic link is followed, so that the link stays and its target gets the
    content. Raises :class:`NotARegularFileError` if the target exists and is
    not a regular file.
    """
    path = Path(path)
    target = Path(os.path.realpath(path))
    try:
        st = os.stat(target)
    except (FileNotFoundError, NotADirectoryError):  # the write itself will say why
        return target, None
    if not stat.S_ISREG(st.st_mode):
        kind = file_kind(st.st_mode)
        linked = str(target) != os.path.abspath(path)
        where = f"{path} (a link to {target})" if linked else str(path)
        raise NotARegularFileError(
            f"{where} is {kind}, not a regular file: give the path of a regular file "
            "to write to")
    return target, st


# A temporary file left by a write that was killed (SIGKILL, power loss) is removed
# by the next write to the same destination: at once when this machine wrote it and
# the process named in it is gone; when another machine (a shared folder) or an
# older textwin wrote it, once it is STALE_SECONDS old and no process here has its
# pid; a day old, whatever its process.
STALE_SECONDS = 60
_DAY = 86400


def _machine_tag():
    """4 hex digits of this machine's name: the start of a temporary's random part, so
    that a later write can tell its own machine's temporaries (pids mean something
    here) from another machine's on a shared folder."""
    import hashlib
    import socket

    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:4]


def _process_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, OverflowError):
        return True  # someone else's process, or we cannot tell: keep its file
    return True


def remove_stale_temporaries(folder, name, now=None):
    """Remove the temporary files that killed writes of ``name`` left in ``folder``.

    They are named ``.<name>.<pid>-<machine><random>.tmp``. One is stale when
    this machine wrote it and process ``pid`` no longer runs; when another
    machine wrote it (a shared folder), once it was last modified
    :data:`STALE_SECONDS` ago and no process here has that pid (a write in
    progress keeps its file fresh); a day after, in any case (the pid may have
    been reused). Returns the paths removed.
    """
    now = time.time() if now is None else now
    here = _machine_tag()
    removed = []
    for tmp in Path(folder).glob(f".{glob.escape(name)}.*.tmp"):
        pid_part, _, rest = tmp.name[len(name) + 2:-len(".tmp")].partition("-")
        try:
            age = now - tmp.lstat().st_mtime
        except FileNotFoundError:
            continue
        pid = int(pid_part) if pid_part.isdigit() else None
        dead = pid is None or not _process_alive(pid)
        ours = len(rest) == 12 and rest.startswith(here)
        if (dead and (ours or age > STALE_SECONDS)) or age > _DAY:
            with contextlib.suppress(FileNotFoundError, PermissionError):
                tmp.unlink()
                removed.append(tmp)
    return removed


def _create_temporary(folder, name):
    """Create and open a new empty file beside ``name`` in ``folder``: ``(fd, path)``.

    Unlike ``tempfile.mkstemp`` (always mode 0600), the file is created with mode
    0o666 and the kernel applies the umask (and a folder's default ACL) itself, as
    for any ``open(path, "w")``: no need to read the process-wide umask, which
    only ``os.umask`` can do portably, and that briefly changes it for every thread.
    """
    for _ in range(100):
        tmp = folder / f".{name}.{os.getpid()}-{_machine_tag()}{secrets.token_hex(4)}.tmp"
        try:
            return os.open(tmp, _TMP_FLAGS, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary file name for {name} in {folder}")


@contextlib.contextmanager
def atomic_write(path, mode="wb"):
    """Open a temporary file beside ``path``; on success rename it over ``path``.

    A reader never sees a half-written file: either the old content or the new
    one. On any exception the temporary file is removed and ``path`` is left
    untouched; one left by a killed process is removed by a later write (see
    :func:`remove_stale_temporaries`). A symbolic link is kept and its target gets the content; an
    existing file keeps its permission bits, a new one gets ``0o666 & ~umask``.

    Raises
    ------
    NotARegularFileError
        ``path`` (or its link's target) is a device, a FIFO, a socket or a
        directory; nothing is written.
    """
    target, st = resolve_destination(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(target.parent, target.name)
    fd, tmp = _create_temporary(target.parent, target.name)
    try:
        with os.fdopen(fd, mode) as fh:
            if st is not None:  # the file replaced keeps its permissions
                os.chmod(fh.fileno() if os.chmod in os.supports_fd else tmp,
                         stat.S_IMODE(st.st_mode))
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


class OverwriteRefusedError(OSError):
    """Writing would replace a file that is not ours, or an input of the same command."""


def _same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def check_overwrite(path, *, ours, what, inputs=(), force=False):
    """Refuse to write ``path`` over a file that is not ours, before any work is done.

    ``ours(path)`` tells whether an existing regular file is one this tool wrote
    (a model, a figure) and may be replaced. An empty file holds nothing to lose.
    Any other existing file is refused unless ``force``; an input of the same
    command (``inputs``: paths of files or folders read) is refused even then, as
    the command would destroy what it reads. A destination that is not a regular
    file raises :class:`NotARegularFileError` (see :func:`resolve_destination`).

    Raises :class:`OverwriteRefusedError` with a message that names the option
    to change.
    """
    target, st = resolve_destination(path)
    for source in inputs:
        if source is None:
            continue
        source = os.fspath(source)
        if os.path.exists(source) and (
                _same_file(target, source)
                or (os.path.isdir(source) and _is_inside(target, source) and st is not None)):
            raise OverwriteRefusedError(
                f"{path} is an input of this command: writing the {what} there would "
                f"destroy it; give the {what} another path")
    if st is None or st.st_size == 0 or force or ours(target):
        return target
    raise OverwriteRefusedError(
        f"{path} exists and is not a textwin {what}: refusing to replace it; give "
        f"another path, or add --force to replace it")


def _is_inside(path, folder):
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return os.path.commonpath([path, folder]) == folder


# What matplotlib writes into each format it saves: a figure of ours carries it.
_FIGURE_MARKS = {b"\x89PNG": b"matplotlib", b"%PDF": b"Matplotlib", b"<?xm": b"matplotlib"}


def is_matplotlib_figure(path, head_bytes=65536):
    """True if ``path`` is a PNG, PDF or SVG file that matplotlib wrote."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(head_bytes)
    except OSError:
        return False
    mark = _FIGURE_MARKS.get(head[:4])
    return mark is not None and mark in head


#: The Creator that textwin writes into the metadata of a figure it draws (PNG, PDF, SVG).
FIGURE_CREATOR = "textwin"
_TEXTWIN_MARKS = {
    b"\x89PNG": re.compile(rb"tEXtCreator\x00textwin\b"),
    b"%PDF": re.compile(rb"/Creator \(textwin\b"),
    b"<?xm": re.compile(rb"<dc:creator>\s*<cc:Agent>\s*<dc:title>textwin\b"),
}


def figure_metadata():
    """``savefig``'s metadata that marks a figure as textwin's (its Creator, in each format)."""
    from ._version import __version__

    return {"Creator": f"{FIGURE_CREATOR} {__version__}"}


def is_textwin_figure(path, edge_bytes=65536):
    """True if ``path`` is a PNG, PDF or SVG figure that textwin drew (the Creator of
    :func:`figure_metadata`): only those may be replaced without --force. The mark is
    near the start (PNG, SVG) or in the trailer (PDF): both ends are read."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(edge_bytes)
            fh.seek(max(len(head), os.fstat(fh.fileno()).st_size - edge_bytes))
            tail = fh.read(edge_bytes)
    except OSError:
        return False
    mark = _TEXTWIN_MARKS.get(head[:4])
    return mark is not None and bool(mark.search(head) or mark.search(tail))


def available_memory():
    """Bytes of memory available to this process (MemAvailable on Linux, else the
    physical memory; ``None`` if unknown)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
