"""Small file-system helpers shared by the data cache and the model files."""
import contextlib
import os
import secrets
import stat
from pathlib import Path

# What a path that is not a regular file is, for the error message.
_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
          (stat.S_ISSOCK, "a socket"))
# mkstemp's flags: no symlink followed, binary on Windows.
_TMP_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
              | getattr(os, "O_BINARY", 0))


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
        kind = next((name for test, name in _KINDS if test(st.st_mode)), "a special file")
        linked = str(target) != os.path.abspath(path)
        where = f"{path} (a link to {target})" if linked else str(path)
        raise NotARegularFileError(
            f"{where} is {kind}, not a regular file: give the path of a regular file "
            "to write to")
    return target, st


def _create_temporary(folder, name):
    """Create and open a new empty file beside ``name`` in ``folder``: ``(fd, path)``.

    Unlike ``tempfile.mkstemp`` (always mode 0600), the file is created with mode
    0o666 and the kernel applies the umask (and a folder's default ACL) itself, as
    for any ``open(path, "w")``: no need to read the process-wide umask, which
    only ``os.umask`` can do portably, and that briefly changes it for every thread.
    """
    for _ in range(100):
        tmp = folder / f".{name}.{secrets.token_hex(4)}.tmp"
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
    untouched. A symbolic link is kept and its target gets the content; an
    existing file keeps its permission bits, a new one gets ``0o666 & ~umask``.

    Raises
    ------
    NotARegularFileError
        ``path`` (or its link's target) is a device, a FIFO, a socket or a
        directory; nothing is written.
    """
    target, st = resolve_destination(path)
    target.parent.mkdir(parents=True, exist_ok=True)
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
