"""Where data and caches live, and how archives are downloaded and unpacked.

Nothing here touches the network at import. Every file written goes through
:func:`textwin._io.atomic_write`, so an interrupted download or extraction
never leaves a half-written file that a later run would trust.
"""
import hashlib
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
import zlib
from collections import namedtuple
from pathlib import Path, PurePosixPath

from .._io import atomic_write

__all__ = ["CacheDirError", "get_data_home", "get_cache_dir", "clear_data_home",
           "RemoteFileMetadata"]

DATA_HOME_ENV = "TEXTWIN_DATA_HOME"
CACHE_DIR_ENV = "TEXTWIN_CACHE_DIR"

#: A file to download: its name once saved, where from, and (if known) its
#: SHA-256. The archive digest may be ``None`` when only the digests of its
#: members are recorded.
RemoteFileMetadata = namedtuple("RemoteFileMetadata", ["filename", "url", "checksum"])

_CHUNK = 1 << 16


class CacheDirError(OSError):
    """No usable cache folder: ``TEXTWIN_CACHE_DIR`` names one that cannot be
    written, or none of the default places can be."""


def get_data_home(data_home=None):
    """Return the folder that holds textwin's data sets.

    Parameters
    ----------
    data_home : str or path-like, default=None
        The folder. When ``None`` or empty, the environment variable
        ``TEXTWIN_DATA_HOME`` is used if set and not empty, else
        ``~/textwin_data``. ``~`` is expanded.

    Returns
    -------
    data_home : pathlib.Path
        The folder. It is not created here, but when a file is first written
        there (a download, a cache), so that a mistyped path leaves nothing
        behind; a folder that exists read-only is fine (see :func:`get_cache_dir`).

    Raises
    ------
    NotADirectoryError
        If the path exists and is not a folder.
    """
    path = data_home_path(data_home)
    if path.exists() and not path.is_dir():
        raise NotADirectoryError(
            f"the data home {path} is a file, not a folder; give a folder (--data-home, "
            f"{DATA_HOME_ENV}) that holds or will hold reuters21578/")
    return path


def data_home_path(data_home):
    """The data home's path; an empty one (``--data-home ""``) is no choice, as an
    empty ``TEXTWIN_DATA_HOME`` is not (it was the current folder)."""
    if data_home is None or (isinstance(data_home, str) and not data_home):
        data_home = os.environ.get(DATA_HOME_ENV) or Path("~") / "textwin_data"
    return Path(data_home).expanduser()


def _cache_candidates(data_home):
    """The cache folders in the order :func:`get_cache_dir` tries them."""
    candidates = []
    if os.environ.get(CACHE_DIR_ENV):
        candidates.append(Path(os.environ[CACHE_DIR_ENV]).expanduser())
    candidates.append(data_home_path(data_home) / "cache")
    xdg = os.environ.get("XDG_CACHE_HOME") or Path("~") / ".cache"
    candidates.append(Path(xdg).expanduser() / "textwin")
    return candidates


def _read_only(path):
    """Whether the permission bits of ``path`` deny writing to everyone (``r-x``):
    read-only even for root, who could write there anyway (a shared corpus)."""
    return not path.stat().st_mode & 0o222


def _writable_dir(path):
    """Create ``path`` if needed and return it if files can be written there.

    A :func:`_read_only` folder counts as read-only even for root: a shared,
    read-only corpus must not collect caches.
    """
    existing = path
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if existing.exists() and _read_only(existing):
        return None
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return path if os.access(path, os.W_OK | os.X_OK) else None


def get_cache_dir(data_home=None):
    """Return the folder for derived caches (parsed and vectorized corpora).

    The environment variable ``TEXTWIN_CACHE_DIR`` if set (an explicit choice:
    an error if it cannot be used, never a fallback that could write next to a
    shared corpus); otherwise the first writable one of ``<data_home>/cache``
    and the user cache folder
    (``$XDG_CACHE_HOME/textwin``, default ``~/.cache/textwin``). A read-only
    data home (a shared corpus, a CI fixture) therefore works: the caches go
    elsewhere.

    Parameters
    ----------
    data_home : str or path-like, default=None
        As for :func:`get_data_home`.

    Returns
    -------
    cache_dir : pathlib.Path

    Raises
    ------
    CacheDirError
        If ``TEXTWIN_CACHE_DIR`` is set to a folder that cannot be written, or
        no candidate is writable.
    """
    chosen = os.environ.get(CACHE_DIR_ENV)
    if chosen:
        # An explicit choice is used or refused, never replaced: falling back to
        # the data home would write caches into what may be a shared corpus.
        path = Path(chosen).expanduser()
        if _writable_dir(path) is None:
            raise CacheDirError(
                f"{CACHE_DIR_ENV}={chosen} is not a writable folder"
                + (" (it is a file)" if path.is_file() else "")
                + f"; point {CACHE_DIR_ENV} at a folder you can write to, or unset it")
        return path
    get_data_home(data_home)  # refuse a data home that is a file
    candidates = _cache_candidates(data_home)
    for path in candidates:
        if _writable_dir(path) is not None:
            return path
    raise CacheDirError(
        "no writable cache folder among "
        + ", ".join(str(p) for p in candidates)
        + f"; set {CACHE_DIR_ENV} to a writable folder"
    )


#: Names of the cache files textwin writes (``reuters21578_modapte_<key>.npz``
#: and ``.json``): what :func:`clear_data_home` removes from a cache folder
#: that may also hold other programs' files.
_CACHE_PATTERNS = ("reuters21578_*.npz", "reuters21578_*.json")


# What each fetcher keeps in the data home (folders and archives, relative
# names): clear_data_home removes these and nothing else. Fetchers add theirs
# at import through register_dataset_files, so this module needs none of them.
_DATASET_FILES = []


def register_dataset_files(*names):
    """Declare a fetcher's files in the data home (removed by :func:`clear_data_home`)."""
    _DATASET_FILES.extend(name for name in names if name not in _DATASET_FILES)


def clear_data_home(data_home=None, *, keep_corpus=False):
    """Delete what textwin keeps in the data home (the corpus, its archives, the
    caches) and textwin's cache files elsewhere, as scikit-learn's
    ``clear_data_home`` does; the data home folder goes too if nothing else is
    left in it.

    Parameters
    ----------
    data_home : str or path-like, default=None
        As for :func:`get_data_home`.
    keep_corpus : bool, default=False
        ``False``: remove the Reuters-21578 files too (a later
        ``fetch_reuters21578`` downloads them again). ``True``: keep the
        corpus and remove only the derived caches, which the next load
        rebuilds (a few seconds).

    Returns
    -------
    removed : list of pathlib.Path
        What was deleted.

    Raises
    ------
    PermissionError
        ``keep_corpus=False`` and the data home is read-only for everyone
        (``r-x``, a shared corpus): it is not deleted, even by root.

    Notes
    -----
    Only textwin's own files are removed: other files in the data home, and
    caches outside it (``$TEXTWIN_CACHE_DIR``, ``~/.cache/textwin``) that may
    sit in folders shared with other programs, stay.
    """
    home = data_home_path(data_home)
    removed = []
    if not keep_corpus and home.is_dir():
        if _read_only(home):
            raise PermissionError(
                f"the data home {home} is read-only (a shared corpus?): not deleting it; "
                "clear_data_home(keep_corpus=True) removes only textwin's caches")
        for path in [home / "cache", *(home / name for name in _DATASET_FILES)]:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            elif path.exists() or path.is_symlink():
                path.unlink()
            else:
                continue
            removed.append(path)
        if not any(home.iterdir()):
            home.rmdir()
            removed.append(home)
    for folder in _cache_candidates(data_home):
        if not folder.is_dir():
            continue
        for pattern in _CACHE_PATTERNS:
            for path in sorted(folder.glob(pattern)):
                path.unlink()
                removed.append(path)
    return removed


def sha256_file(path):
    """Hex SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _progress(total, desc):
    """A tqdm bar on stderr, switched off when stderr is not a terminal."""
    from tqdm.auto import tqdm

    return tqdm(
        total=total,
        desc=desc,
        unit="B",
        unit_scale=True,
        unit_divisor=1024,
        file=sys.stderr,
        disable=not sys.stderr.isatty(),
        leave=False,
    )


# Indirection so that tests can serve a file without a network.
_urlopen = urllib.request.urlopen


def fetch_remote(remote, dirname, *, timeout=60):
    """Download ``remote.url`` to ``dirname / remote.filename`` atomically.

    Shows a progress bar on stderr (when it is a terminal). If
    ``remote.checksum`` is set, the file's SHA-256 must match, otherwise the
    download is deleted and :class:`OSError` says so.

    Returns
    -------
    path : pathlib.Path
    """
    path = Path(dirname) / remote.filename
    digest = hashlib.sha256()
    with _urlopen(remote.url, timeout=timeout) as response:
        length = response.headers.get("Content-Length") if response.headers else None
        total = int(length) if length and str(length).isdigit() else None
        with atomic_write(path, "wb") as out, _progress(total, remote.filename) as bar:
            for chunk in iter(lambda: response.read(_CHUNK), b""):
                out.write(chunk)
                digest.update(chunk)
                bar.update(len(chunk))
            if remote.checksum is not None and digest.hexdigest() != remote.checksum:
                # Raising inside atomic_write discards the temporary file.
                raise OSError(
                    f"the file downloaded from {remote.url} has SHA-256 "
                    f"{digest.hexdigest()}, expected {remote.checksum}; it was "
                    "deleted. The server may have changed the file: download it "
                    "by hand (see the message below) or retry later."
                )
    return path


def _check_member_name(name, archive):
    """Refuse a member name that is absolute or climbs out of the target."""
    pure = PurePosixPath(name.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts or (pure.parts and ":" in pure.parts[0]):
        raise OSError(
            f"refusing to unpack {archive}: its member {name!r} would be written "
            "outside the target folder. The archive is not the published one; "
            "delete it and download it again."
        )
    return pure


def iter_archive_members(archive, wanted):
    """Yield ``(basename, bytes)`` for the members of ``archive`` named in ``wanted``.

    ``archive`` is a ``.tar.gz``/``.tgz``/``.tar`` or a ``.zip``; a zip may
    itself contain the tar.gz (that is how the UCI repository serves
    Reuters-21578), which is then opened in memory. Members are matched by
    their base name, wherever they sit in the archive. Every member name is
    checked first: an absolute path, a ``..`` component, a link or a device
    makes the whole archive refused, so nothing can be written outside the
    target folder.
    """
    archive = Path(archive)
    try:
        yield from _iter_members(archive, wanted)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, zlib.error) as exc:
        # An HTML error page saved under the archive's name, a cut download...
        raise OSError(
            f"{archive} is damaged or not a tar.gz/zip archive ({exc.__class__.__name__}: "
            f"{exc}); delete it and download it again"
        ) from None


def _iter_members(archive, wanted):
    name = archive.name.lower()
    if name.endswith(".zip"):
        with zipfile.ZipFile(archive) as zf:
            infos = zf.infolist()
            for info in infos:
                _check_member_name(info.filename, archive)
            inner = [i for i in infos if i.filename.lower().endswith((".tar.gz", ".tgz"))]
            found = False
            for info in infos:
                base = PurePosixPath(info.filename).name
                if base in wanted and not info.is_dir():
                    found = True
                    yield base, zf.read(info)
            if not found:
                for info in inner:
                    with tempfile.TemporaryDirectory() as tmp:
                        tmp_path = Path(tmp) / PurePosixPath(info.filename).name
                        with zf.open(info) as src, open(tmp_path, "wb") as dst:
                            shutil.copyfileobj(src, dst, _CHUNK)
                        yield from _iter_members(tmp_path, wanted)
        return
    with tarfile.open(archive, "r:*") as tf:
        members = tf.getmembers()
        for member in members:
            _check_member_name(member.name, archive)
            if not (member.isfile() or member.isdir()):
                raise OSError(
                    f"refusing to unpack {archive}: its member {member.name!r} is a "
                    "link or a special file. The archive is not the published one; "
                    "delete it and download it again."
                )
        for member in members:
            base = PurePosixPath(member.name).name
            if member.isfile() and base in wanted:
                yield base, tf.extractfile(member).read()
