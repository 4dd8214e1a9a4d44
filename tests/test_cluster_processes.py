"""The command line on clusters of separate processes, as docs/scaling.md starts them.

A ``dask scheduler`` and a ``dask worker --nworkers 2`` (and a Ray head, ``ray
start --head``, where Ray is installed) run as processes of their own, and
``textwin`` runs as a process of its own against them: no client of the test
process exists to stand in for the command's, so a step that asks Dask for the
process's default client fails here as it does for users. Each command's
figures must equal those of the same command run locally.

One cluster serves the whole module (it starts in a few seconds); the corpora
are small, so that the module stays within a minute or two on CI.
"""
import ctypes
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

# one pytest-xdist worker runs every test that starts a cluster: two at once
# would only compete for the machine's cores
pytestmark = pytest.mark.xdist_group("clusters")

distributed = pytest.importorskip("distributed")

import textwin  # noqa: E402 (after the skip)

# where this textwin is imported from: the cluster's processes import the same one
WHERE = str(Path(textwin.__file__).resolve().parents[1])
# the command as its console script runs it: the current directory not on the path
COMMAND = [sys.executable, "-c",
           "import sys; del sys.path[0]; from textwin.cli import main; sys.exit(main())"]


def _env(**extra):
    path = os.pathsep.join(p for p in (WHERE, os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, PYTHONPATH=path, MPLBACKEND="Agg")
    env.pop("DASK_SCHEDULER_ADDRESS", None)
    env.pop("RAY_ADDRESS", None)
    # no token in ~/.ray for the Ray head of these tests (Ray's default makes one)
    env["RAY_AUTH_MODE"] = "disabled"
    env.update(extra)
    return env


def textwin_json(*argv, cwd=None, env=None, timeout=600):
    """The JSON that ``textwin argv --json -q`` prints, without its timings."""
    proc = subprocess.run([*COMMAND, *map(str, argv), "--json", "-q"], cwd=cwd,
                          env=env or _env(), capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return _without_times(json.loads(proc.stdout))


def _without_times(obj):
    if isinstance(obj, dict):
        return {k: _without_times(v) for k, v in obj.items()
                if "seconds" not in k and "time" not in k}
    if isinstance(obj, list):
        return [_without_times(v) for v in obj]
    return obj


try:
    _LIBC = ctypes.CDLL(None, use_errno=True)
    _PR_SET_PDEATHSIG = 1
    _LIBC.prctl
except (OSError, AttributeError):  # not Linux
    _LIBC = None


def _die_with_parent():
    """In the child, before exec: SIGTERM when the process that started it dies.

    A pytest-xdist worker stopped without its fixtures' teardown (``-x``, a crash)
    left its cluster running, reparented to init, for good."""
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _start(argv, log, **kwargs):
    """A process in a session of its own (so that its children die with it), which
    also dies with the test process, however that ends."""
    return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True, preexec_fn=_die_with_parent, **kwargs)


def _stop(proc, grace=20):
    """SIGTERM to the process's group, then SIGKILL to what is left of it."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the workers a nanny left behind
    except ProcessLookupError:
        pass
    proc.wait(grace)


def _wait_for_line(path, marker, proc, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in Path(path).read_text(errors="replace").splitlines():
            if marker in line:
                return line
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    pytest.fail(f"no {marker!r} from {proc.args}:\n{Path(path).read_text(errors='replace')}")


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory):
    """The address of a ``dask scheduler`` with a ``dask worker --nworkers 2`` (one thread each)."""
    logs = tmp_path_factory.mktemp("dask")
    procs = []
    try:
        with open(logs / "scheduler.log", "w") as log:
            procs.append(_start([sys.executable, "-m", "distributed.cli.dask_scheduler",
                                 "--host", "127.0.0.1", "--port", "0", "--no-dashboard"],
                                log, env=_env(), cwd=logs))
        line = _wait_for_line(logs / "scheduler.log", "Scheduler at:", procs[0])
        address = line.split("Scheduler at:")[1].split()[0]
        with open(logs / "worker.log", "w") as log:
            procs.append(_start([sys.executable, "-m", "distributed.cli.dask_worker", address,
                                 "--nworkers", "2", "--nthreads", "1", "--no-dashboard"],
                                log, env=_env(), cwd=logs))
        client = distributed.Client(address, timeout="60s", set_as_default=False)
        try:
            client.wait_for_workers(2, timeout=120)
        finally:
            client.close()
        yield address
    finally:
        for proc in reversed(procs):
            _stop(proc)


def _alive(pid):
    """Running (a zombie, whose parent is gone and nobody reaps it, is not)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(_LIBC is None or not os.path.isdir("/proc"), reason="Linux only")
def test_a_cluster_process_dies_with_the_test_process_killed_without_teardown(tmp_path):
    script = (f"import sys, time; sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
              "from test_cluster_processes import _start\n"
              f"with open({str(tmp_path / 'child.log')!r}, 'w') as log:\n"
              "    child = _start([sys.executable, '-c', 'import time; time.sleep(300)'], log)\n"
              "print(child.pid, flush=True)\n"
              "time.sleep(300)\n")
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                              text=True, env=_env())
    child = int(parent.stdout.readline())
    parent.kill()  # as an xdist worker ends: no teardown
    parent.wait()
    deadline = time.monotonic() + 15
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    if _alive(child):
        os.kill(child, signal.SIGKILL)
        pytest.fail("the cluster's process outlived the test process that started it")


def write_corpus(path, n=60, seed=0):
    """A four-class JSON Lines corpus: each class's own words among shared ones."""
    rng = random.Random(seed)
    shared = [f"w{i}" for i in range(40)]
    with open(path, "w", encoding="utf-8") as fh:
        for label in ("north", "south", "east", "west"):
            own = [f"{label}{i}" for i in range(12)]
            for _ in range(n):
                words = rng.choices(own, k=3) + rng.choices(shared, k=9)
                fh.write(json.dumps({"text": " ".join(words), "labels": [label]}) + "\n")
    return path


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("corpus")
    return (write_corpus(folder / "train.jsonl"),
            write_corpus(folder / "test.jsonl", n=20, seed=1))


@pytest.fixture(scope="module")
def local():
    """``local(*argv)``: the figures of ``textwin argv`` without a cluster (each run once)."""
    runs = {}

    def result(*argv):
        key = tuple(map(str, argv))
        if key not in runs:
            runs[key] = textwin_json(*argv)
        return runs[key]

    return result


CORPUS_RUNS = {"defaults": [], "lam-auto": ["--lam", "auto"], "auto": ["--auto"]}


@pytest.mark.parametrize("run", list(CORPUS_RUNS))
def test_train_on_a_corpus_on_a_dask_cluster_of_processes_equals_local(dask_cluster, corpus,
                                                                       local, run):
    argv = ["train", "--corpus", corpus[0], "--test-corpus", corpus[1], *CORPUS_RUNS[run]]
    assert textwin_json(*argv, "--scheduler", dask_cluster) == local(*argv)


@pytest.mark.corpus
@pytest.mark.parametrize("argv", [
    ["train", "--category", "acq", "--offline"],
    ["eval", "--micro-breakeven", "--methods", "svm,winnow", "--categories", "acq,grain",
     "--offline"],
], ids=["train-acq", "eval-micro-breakeven"])
def test_reuters_commands_on_a_dask_cluster_of_processes_equal_local(dask_cluster, argv, local,
                                                                     reuters_data_home):
    assert textwin_json(*argv, "--scheduler", dask_cluster) == local(*argv)


# -- Ray: a head of its own, and the command run from a checkout's root ------------------

def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def ray_head():
    """``RAY_ADDRESS`` of a Ray head of 2 CPUs started by ``ray start --head --block``."""
    pytest.importorskip("ray")
    ray_script = Path(sys.executable).with_name("ray")
    if not ray_script.exists():
        pytest.skip("no `ray` command beside this Python")
    # short: Ray's socket paths live under it
    temp = tempfile.mkdtemp(prefix="twray")
    address = f"127.0.0.1:{_free_port()}"
    with open(os.path.join(temp, "head.log"), "w") as log:
        proc = _start([str(ray_script), "start", "--head", "--block", "--node-ip-address",
                       "127.0.0.1", "--port", address.split(":")[1], "--num-cpus", "2",
                       "--include-dashboard", "false", "--disable-usage-stats",
                       "--temp-dir", temp], log, env=_env(), cwd=temp)
    try:
        _wait_for_line(os.path.join(temp, "head.log"), "--block", proc)
        yield address
    finally:
        _stop(proc, grace=10)  # ray start --block takes 30 s to stop its processes itself
        shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture
def checkout_root(tmp_path):
    """A folder like a fresh checkout's root: textwin's sources without compiled kernels."""
    shutil.copytree(Path(textwin.__file__).parent, tmp_path / "textwin",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    return tmp_path


def test_train_on_ray_from_a_checkout_root_equals_local(ray_head, corpus, local,
                                                       checkout_root):
    """Ray puts the driver's current folder first on its workers' path: from a
    checkout's root they would import its uncompiled sources, not this textwin."""
    argv = ["train", "--corpus", corpus[0], "--test-corpus", corpus[1]]
    remote = textwin_json(*argv, "--scheduler", "ray", cwd=checkout_root,
                          env=_env(RAY_ADDRESS=ray_head))
    assert remote == local(*argv)


# -- --scheduler at something that is not a Dask scheduler --------------------------------

@pytest.fixture
def not_a_scheduler():
    """Addresses where something else answers: a web server (as the dashboard's port
    8787) that waits for a request, and a server that speaks first (as ssh)."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Status(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"<html>dashboard</html>")

        def log_message(self, *args):
            pass

    web = ThreadingHTTPServer(("127.0.0.1", 0), Status)
    banner = socket.socket()
    banner.bind(("127.0.0.1", 0))
    banner.listen(8)
    stop = threading.Event()

    def greet():
        banner.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = banner.accept()
            except OSError:
                continue
            conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")
            threading.Timer(30, conn.close).start()

    threads = [threading.Thread(target=web.serve_forever, daemon=True),
               threading.Thread(target=greet, daemon=True)]
    for t in threads:
        t.start()
    yield {"web": f"tcp://127.0.0.1:{web.server_address[1]}",
           "banner": f"tcp://127.0.0.1:{banner.getsockname()[1]}"}
    stop.set()
    web.shutdown()
    web.server_close()
    banner.close()


@pytest.mark.parametrize("kind", ["web", "banner"])
def test_scheduler_at_something_else_answers_in_one_line_within_the_timeout(
        not_a_scheduler, corpus, kind):
    address = not_a_scheduler[kind]
    t0 = time.monotonic()
    proc = subprocess.run([*COMMAND, "train", "--corpus", str(corpus[0]), "--scheduler",
                           address, "-q"], env=_env(), capture_output=True, text=True,
                          timeout=120)
    seconds = time.monotonic() - t0
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert lines[0].startswith("textwin: error:") and address in lines[0]
    assert "not a Dask scheduler" in lines[0] and "tcp://HOST:8786" in lines[0]
    # the command's timeout is 5 s; the rest is the interpreter's start (slow under load)
    assert seconds < 45, seconds
