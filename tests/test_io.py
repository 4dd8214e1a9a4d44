"""atomic_write: what it replaces, what it refuses, and the modes it leaves."""
import os
import stat

import pytest

from textwin._io import NotARegularFileError, atomic_write

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX modes, links and FIFOs")


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    try:
        yield 0o022
    finally:
        os.umask(old)


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@posix_only
def test_a_symlink_stays_and_its_target_gets_the_content(tmp_path):
    target = tmp_path / "models" / "v1.npz"
    target.parent.mkdir()
    target.write_bytes(b"old")
    link = tmp_path / "link.npz"
    link.symlink_to(target)
    with atomic_write(link) as fh:
        fh.write(b"new")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == b"new"
    # no temporary file left, beside the link or beside the target
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.npz", "models"]
    assert [p.name for p in target.parent.iterdir()] == ["v1.npz"]


@posix_only
def test_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link.npz"
    link.symlink_to(tmp_path / "new.npz")
    with atomic_write(link, "w") as fh:
        fh.write("x")
    assert link.is_symlink() and (tmp_path / "new.npz").read_text() == "x"


@posix_only
def test_a_fifo_is_refused_and_left_in_place(tmp_path):
    fifo = tmp_path / "pipe.npz"
    os.mkfifo(fifo)
    with pytest.raises(NotARegularFileError,
                       match=r"pipe\.npz is a named pipe \(FIFO\), not a regular file: "
                             "give the path of a regular file"):
        with atomic_write(fifo) as fh:
            fh.write(b"never")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe.npz"]


@posix_only
def test_a_link_to_a_device_is_refused(tmp_path):
    link = tmp_path / "full.npz"
    link.symlink_to("/dev/null")
    with pytest.raises(NotARegularFileError, match="a link to /dev/null.*character device"):
        with atomic_write(link) as fh:
            fh.write(b"never")
    assert link.is_symlink() and stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_directory_is_refused(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "keep").write_text("x")
    with pytest.raises(NotARegularFileError, match="is a directory, not a regular file"):
        with atomic_write(folder) as fh:
            fh.write(b"never")
    assert folder.is_dir() and [p.name for p in folder.iterdir()] == ["keep"]
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
    # an OSError: the command line reports it as one line ("cannot write ...")
    assert issubclass(NotARegularFileError, OSError)


@posix_only
def test_a_new_file_gets_the_umask_mode(tmp_path, umask_022):
    path = tmp_path / "sub" / "new.md"
    with atomic_write(path, "w") as fh:
        fh.write("x")
    assert _mode(path) == 0o666 & ~umask_022 == 0o644


@posix_only
def test_an_existing_file_keeps_its_mode(tmp_path, umask_022):
    path = tmp_path / "m.npz"
    path.write_bytes(b"old")
    os.chmod(path, 0o640)
    with atomic_write(path) as fh:
        fh.write(b"new")
    assert path.read_bytes() == b"new" and _mode(path) == 0o640


def test_a_failed_write_keeps_the_old_file(tmp_path):
    path = tmp_path / "m.npz"
    path.write_bytes(b"old")
    with pytest.raises(RuntimeError):
        with atomic_write(path) as fh:
            fh.write(b"half")
            raise RuntimeError
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["m.npz"]


def _dead_pid():
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid  # reaped: no process has it (until the kernel reuses it)


def test_stale_temporaries_of_killed_writes_are_removed_by_the_next_write(tmp_path):
    import subprocess
    import sys
    import time

    from textwin._io import STALE_SECONDS, _machine_tag

    here, elsewhere = _machine_tag(), "zzzz"  # another machine's (a shared folder)
    target = tmp_path / "model.npz"
    old = time.time() - STALE_SECONDS - 5
    dead = tmp_path / f".model.npz.{_dead_pid()}-{here}0badc0de.tmp"  # removed at once
    alive = tmp_path / f".model.npz.{os.getpid()}-{here}1234abcd.tmp"  # a write in progress
    fresh = tmp_path / f".model.npz.{_dead_pid()}-{elsewhere}feedf00d.tmp"
    gone = tmp_path / f".model.npz.{_dead_pid()}-{elsewhere}0badc0de.tmp"  # and old
    unmarked = tmp_path / f".model.npz.{_dead_pid()}-feedf00d.tmp"  # an older textwin's
    ancient = tmp_path / f".model.npz.{os.getpid()}-{here}00000000.tmp"
    other = tmp_path / f".other.npz.{_dead_pid()}-{here}0badc0de.tmp"  # another destination
    for p in (dead, alive, fresh, gone, unmarked, ancient, other):
        p.write_bytes(b"half a model")
    for p in (alive, gone, other):
        os.utime(p, (old, old))
    os.utime(ancient, (time.time() - 2 * 86400,) * 2)
    with atomic_write(target) as fh:
        fh.write(b"whole")
    assert target.read_bytes() == b"whole"
    assert not dead.exists() and not gone.exists() and not ancient.exists()
    assert alive.exists() and fresh.exists() and unmarked.exists() and other.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".model")) == sorted(
        [alive.name, fresh.name, unmarked.name])

    # a write killed for real (SIGKILL) leaves its temporary; the next write removes it
    # at once; a write stopped by SIGTERM in the command removes its own
    code = ("import sys, os, signal; sys.path.insert(0, sys.argv[2]);"
            "from textwin._io import atomic_write\n"
            "from textwin.cli import sigterm_as_interrupt\n"
            "with sigterm_as_interrupt(), atomic_write(sys.argv[1]) as fh:\n"
            "    fh.write(b'x'); fh.flush(); os.kill(os.getpid(), int(sys.argv[3]))")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    mine = [alive, fresh, unmarked]
    subprocess.run([sys.executable, "-c", code, str(target), root, "9"], check=False)
    (left,) = [p for p in tmp_path.glob(".model.npz.*.tmp") if p not in mine]
    with atomic_write(target) as fh:
        fh.write(b"again")
    assert not left.exists() and target.read_bytes() == b"again"
    proc = subprocess.run([sys.executable, "-c", code, str(target), root, "15"],
                          capture_output=True, check=False)
    assert proc.returncode != 0 and b"KeyboardInterrupt" in proc.stderr
    assert [p for p in tmp_path.glob(".model.npz.*.tmp") if p not in mine] == []
    assert target.read_bytes() == b"again"
