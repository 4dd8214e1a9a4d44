"""Binary problems as tasks on a cluster, through joblib's "dask" or "ray" backend.

Inside ``joblib.parallel_config(backend="dask")`` (with a
``dask.distributed.Client``) or ``backend="ray"`` (after
``ray.util.joblib.register_ray()``), the estimators hand their binary problems
to :func:`map_on_cluster` instead of their thread pool: the data every
problem reads (the CSR matrix, the labels, the settings) goes to the cluster
once, as one :class:`Shipment`, and each problem is one task that reads it
there.

* Dask: the shipment is scattered to each worker once. A worker runs as many
  tasks at once as it has threads, and the kernels release the GIL, so a
  worker with several cores solves several problems at once over its one copy.
* Ray: the shipment is put in the object store once; each node holds one copy
  in shared memory, which every worker process of the node maps without
  copying, one task per CPU.

This module imports neither at import time: :func:`active_cluster` only looks
at joblib's active backend (joblib comes with scikit-learn), and Dask or Ray
is only touched once that backend is theirs, which has imported it.
"""
import contextlib
import os
import sys
import threading
import time
import uuid
import warnings
import weakref

# The oldest dask.distributed whose API this module was written against
# (Client.scatter(broadcast=, hash=), as_completed, KilledWorker); joblib's
# own dask backend needs about as much.
MIN_DISTRIBUTED = (2023, 1)

_INSTALL_HINT = 'pip install -U "dask[distributed]>=2023.1"'
# The oldest Ray whose API the Ray engine was written against (the scheduling
# strategies, RayTaskError.cause)
MIN_RAY = (2, 9)


class ClusterError(RuntimeError):
    """A cluster fit or prediction that could not run or finish (nothing was changed)."""


def _version_tuple(text):
    parts = []
    for piece in str(text).split(".")[:2]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def check_distributed(module=None):
    """Refuse a dask.distributed too old for textwin, in one sentence.

    ``module`` is the imported ``distributed`` package (imported here if None).
    """
    if module is None:
        try:
            import distributed as module
        except ImportError as exc:
            raise ClusterError(
                f"running on a Dask cluster needs dask.distributed, which is not "
                f"installed ({exc}): {_INSTALL_HINT}") from None
    version = getattr(module, "__version__", "0")
    missing = [name for name in ("Client", "as_completed", "KilledWorker", "get_worker")
               if not hasattr(module, name)]
    if _version_tuple(version) < MIN_DISTRIBUTED or missing:
        need = ".".join(str(v) for v in MIN_DISTRIBUTED)
        detail = f" (it lacks {', '.join(missing)})" if missing else ""
        raise ClusterError(
            f"textwin on a Dask cluster needs dask.distributed >= {need}; this one is "
            f"{version}{detail}: {_INSTALL_HINT}")
    return module


def active_cluster():
    """The cluster of joblib's active backend when it is Dask's or Ray's, else None.

    Costs one look at joblib's configuration: neither is imported (when the
    backend is theirs, joblib has imported it already).
    """
    try:
        from joblib.parallel import get_active_backend
    except ImportError:  # pragma: no cover - joblib comes with scikit-learn
        return None
    backend, _ = get_active_backend()
    name = type(backend).__name__
    if name == "DaskDistributedBackend":
        return DaskCluster.of_backend(backend)
    if name == "RayBackend":
        return RayCluster.current()
    return None


def connect(address, timeout=10):
    """A ``dask.distributed.Client`` connected to the scheduler at ``address``.

    Unreachable within ``timeout`` seconds, or workers that cannot run
    textwin: a :class:`ClusterError` that says what to do.
    """
    distributed = check_distributed()
    _check_dask_address(address)
    _probe_dask_scheduler(address, timeout)
    try:
        # not the process's default client: one that fails to connect would stay
        # registered as the default and capture later dask backends (joblib's
        # takes the default one); the caller passes this one to the backend
        client = distributed.Client(address, timeout=f"{timeout}s", set_as_default=False)
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ClusterError(_unreachable(address, timeout, first)) from None
    try:
        check_workers(client)
    except BaseException:
        client.close()
        raise
    return client


def _check_dask_address(address):
    """Refuse a malformed address before a Client exists: a Client whose constructor
    fails on one is still closed at garbage collection, which times out 10 s later
    with a traceback of its own."""
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        if scheme in ("tcp", "tls", "ws", "wss"):
            parse_host_port(location)
    except (ValueError, TypeError) as exc:
        raise ClusterError(
            f"{address!r} is not a Dask scheduler address ({exc}); give one as "
            f"tcp://HOST:PORT, as `dask scheduler` prints it (port 8786 by default)") from None


def _probe_dask_scheduler(address, timeout):
    """Refuse, within ``timeout`` seconds, a TCP address where something other than a
    Dask scheduler answers (its dashboard's port 8787, a web server, ssh).

    A Dask scheduler speaks first: its handshake, one short framed message. Given
    anything else, the Client would wait well past its timeout, or read the bytes
    of an HTTP reply as the sizes of frames and fail with a traceback of its own.
    What cannot be reached at all is left to the Client (it retries until the
    timeout: a scheduler may be starting). The handshake read is sent back, so
    the scheduler sees a complete handshake and logs nothing.
    """
    import socket
    import struct

    from distributed.comm.addressing import parse_address, parse_host_port

    scheme, location = parse_address(address)
    if scheme != "tcp":
        return
    host, port = parse_host_port(location)
    deadline = time.monotonic() + timeout
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except TimeoutError:
        raise ClusterError(_unreachable(address, timeout, "no answer to the connection")) from None
    except OSError:
        return
    try:
        data = b""
        while len(data) < 8 or len(data) < 8 + struct.unpack("<Q", data[:8])[0]:
            if len(data) >= 8 and struct.unpack("<Q", data[:8])[0] > 2 ** 16:
                break  # no handshake is that long: the bytes of something else
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                chunk = sock.recv(4096)
            except OSError:  # a timeout included
                break
            if not chunk:
                break
            data += chunk
        if len(data) >= 8 and 0 < struct.unpack("<Q", data[:8])[0] <= 2 ** 16:
            if len(data) == 8 + struct.unpack("<Q", data[:8])[0]:
                try:
                    sock.sendall(data)
                except OSError:
                    pass
            return
    finally:
        sock.close()
    said = data[:40].decode("ascii", "replace").strip().splitlines()[0] if data.strip() else ""
    what = f"it answered {said!r}" if said else f"it said nothing within {timeout:g} s"
    raise ClusterError(
        f"{address} is not a Dask scheduler ({what}; a scheduler speaks first): give the "
        f"address that `dask scheduler` prints as 'Scheduler at', tcp://HOST:8786 by "
        f"default, not its dashboard's (http://HOST:8787)")


def _unreachable(address, timeout, why):
    return (f"cannot reach a Dask scheduler at {address!r} within {timeout:g} s ({why}); "
            f"start one with `dask scheduler` (it prints its address, e.g. "
            f"tcp://HOST:8786) and workers with `dask worker tcp://HOST:8786`, "
            f"then pass that address")


def connect_ray(address=None):
    """Ray, joined to a running cluster and registered as joblib's "ray" backend.

    ``address``: a Ray address (``HOST:6379``, ``ray://HOST:10001``); None:
    ``$RAY_ADDRESS``, else the cluster started on this machine by ``ray start
    --head``. Already initialized: as it is. A :class:`ClusterError` that says
    what to do when Ray is missing or no cluster answers.
    """
    try:
        import ray
        from ray.util.joblib import register_ray
    except ImportError as exc:
        raise ClusterError(f"running on Ray needs Ray, which is not installed ({exc}): "
                           f'pip install -U "ray[client]>=2.9"') from None
    if not ray.is_initialized():
        where = address or os.environ.get("RAY_ADDRESS") or "auto"
        try:
            with _in_the_folder_of_this_textwin():
                ray.init(address=where, log_to_driver=False)
        except (ConnectionError, TimeoutError, ValueError, RuntimeError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            if "ray[client]" in first:  # ray://: Ray Client, whose packages Ray leaves out
                raise ClusterError(
                    f"{where!r} is a Ray Client address, and Ray Client needs packages that "
                    f"this Ray was installed without: pip install -U \"ray[client]>=2.9\"") from None
            # a cluster with token authentication (Ray's default for `ray start` since
            # 2.5x) refuses a driver that was given its address without RAY_AUTH_MODE
            token = ("; if it uses token authentication, set RAY_AUTH_MODE=token"
                     if where != "auto" and not os.environ.get("RAY_AUTH_MODE") else "")
            raise ClusterError(
                f"cannot reach a Ray cluster at {where!r} ({first}){token}; start one "
                f"with `ray start --head` (it prints the address to join, HOST:6379) and "
                f"`ray start --address HOST:6379` on each other machine, or set "
                f"RAY_ADDRESS") from None
    register_ray()
    return ray


@contextlib.contextmanager
def _in_the_folder_of_this_textwin():
    """Inside: the current directory is the one this textwin was imported from.

    Ray puts the driver's current directory first on its workers' path: from a
    checkout's root, whose ``textwin/`` has no compiled kernels, the workers would
    import that folder instead of the installed textwin the driver runs.
    """
    import textwin

    here = os.getcwd()
    os.chdir(os.path.dirname(os.path.dirname(os.path.abspath(textwin.__file__))))
    try:
        yield
    finally:
        os.chdir(here)


def _worker_textwin():
    """Run on each worker: textwin's version there, or why it cannot be imported."""
    try:
        import textwin
        from textwin._kernels import _dual_gs  # noqa: F401  (the compiled kernels)
    except ImportError as exc:
        return f"no textwin ({exc})"
    return textwin.__version__


def _refuse_other_textwin(found, what, each):
    """``found``: {worker: textwin version there, or why it cannot be imported}."""
    from textwin._version import __version__

    bad = {addr: v for addr, v in found.items() if v != __version__}
    if bad:
        addr, v = next(iter(bad.items()))
        raise ClusterError(
            f"{len(bad)} of {len(found)} {what} cannot run this textwin "
            f"{__version__} ({each} {addr}: {v}); install the same textwin in the "
            f"workers' environment")


def check_workers(client):
    """Refuse Dask workers without this textwin (a task would fail there, later and less clearly)."""
    _refuse_other_textwin(client.run(_worker_textwin), "Dask workers", "worker")


# ---------------------------------------------------------------------------
# What travels: one Shipment per map (or per fit), to each worker once
# ---------------------------------------------------------------------------

# (label, bytes, process id) of each Shipment this process received (its first
# copy of it): on a worker, the evidence that a fit's data arrived there once.
_ARRIVALS = []
# token -> what this process derived from a Shipment (the kernels' checked views,
# which hold its arrays), shared by its copies here while one is alive (Dask keeps
# a worker's one copy until the map ends) and, for a shipment read again for each
# task (Ray maps its object store's copy per task), while it is the newest: the
# data of a finished map is not kept alive (on Ray: pinned in the object store)
# by more than the last shipment each worker process read
_RECEIVED = weakref.WeakValueDictionary()
_NEWEST = [None]  # the entry of the last shipment read per task, kept between its tasks
_RECEIVED_LOCK = threading.Lock()


class _Derived:
    """What a process derived from one shipment, under a lock (a worker's threads share it)."""

    __slots__ = ("cache", "lock", "__weakref__")

    def __init__(self):
        self.cache, self.lock = {}, threading.Lock()


def arrivals():
    """The Shipments this process has received: a list of (label, bytes, pid).

    Run it on the workers (``client.run(arrivals)`` on Dask) to see what
    reached them: one entry per shipment and process, however many tasks
    read it there.
    """
    return list(_ARRIVALS)


def _nbytes(obj, seen=None):
    """Bytes of the numpy arrays in obj (dicts, lists, objects' attributes), each object once."""
    import numpy as np

    seen = set() if seen is None else seen
    if id(obj) in seen:  # shared, or a cycle (a scoring object that refers back to itself)
        return 0
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if isinstance(obj, dict):
        return sum(_nbytes(v, seen) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(_nbytes(v, seen) for v in obj)
    if hasattr(obj, "__dict__"):
        return sum(_nbytes(v, seen) for v in vars(obj).values())
    return 0


class Shipment:
    """The read-only data every task of one map reads, sent to each worker once.

    ``payload`` is any picklable object (arrays travel out of band, without a
    copy into the pickle). :meth:`cached` keeps what a worker derives from it
    once for all its tasks (the kernels' checked view of the matrix), under a
    lock since a worker's threads run tasks at once. ``read_per_task``: each
    task reads its own copy (Ray), which share that cache.
    """

    def __init__(self, payload, label, read_per_task=False):
        self.payload = payload
        self.label = label
        self.nbytes = _nbytes(payload)
        self.token = uuid.uuid4().hex
        self.read_per_task = read_per_task
        self._derived = _Derived()

    def cached(self, key, make):
        derived = self._derived
        with derived.lock:
            if key not in derived.cache:
                derived.cache[key] = make(self.payload)
            return derived.cache[key]

    def __getstate__(self):
        return {"payload": self.payload, "label": self.label, "nbytes": self.nbytes,
                "token": self.token, "read_per_task": self.read_per_task}

    def __setstate__(self, state):
        self.__dict__.update(state)
        with _RECEIVED_LOCK:
            derived = _RECEIVED.get(self.token)
            if derived is None:
                derived = _RECEIVED[self.token] = _Derived()
                _ARRIVALS.append((self.label, self.nbytes, os.getpid()))
            if self.read_per_task:
                _NEWEST[0] = derived
        self._derived = derived


def _run_task(task, shipment, k, extra):
    """What a worker runs: ``task(shipment, k, *extra)``."""
    return task(shipment, k, *extra)


def _died_too_often(cluster, what, data):
    return ClusterError(
        f"the {cluster.name} workers running {what} died too often ({cluster.name} ran it "
        f"again after each death, up to {cluster.retries_setting}); nothing was fitted. "
        f"Give each worker memory for the shared data ({data.nbytes / 2 ** 20:.0f} MiB) "
        f"plus the O(n + d) arrays of each of its threads, or use fewer threads per worker")


def _lost(cluster, what, exc, doing="running"):
    return ClusterError(
        f"lost the {cluster.name} cluster while {doing} {what} ({type(exc).__name__}: "
        f"{str(exc).strip().splitlines()[0] if str(exc).strip() else ''}); nothing was "
        f"fitted: check the cluster and run again")


# ---------------------------------------------------------------------------
# The engines: Dask's Client, Ray's object store and tasks
# ---------------------------------------------------------------------------


class DaskCluster:
    """The Client of joblib's dask backend."""

    name = "Dask"
    retries_setting = "distributed.scheduler.allowed-failures times"
    read_per_task = False  # a worker keeps the one copy it received until it is released
    failures = (OSError,)  # what the Client raises when it cannot reach the cluster

    def __init__(self, client):
        self.client = client

    @classmethod
    def of_backend(cls, backend):
        distributed = check_distributed()
        try:  # a fit that is itself a task (GridSearchCV's, under the same backend) runs
            distributed.get_worker()  # where it is, in threads: waiting there for tasks of
            return None  # its own could hold every worker thread (a deadlock)
        except ValueError:
            pass
        client = getattr(backend, "client", None)
        if client is None:  # pragma: no cover - joblib's backend always holds one
            raise ClusterError("joblib's dask backend has no Client; create one with "
                               "dask.distributed.Client(address) before parallel_config")
        return cls(client)

    def check(self):
        if not self.client.nthreads():  # Dask would wait for a worker, forever
            address = self.client.scheduler.address
            raise ClusterError(f"the Dask cluster at {address} has no workers; start some "
                               f"with `dask worker {address}`")
        check_workers(self.client)

    def threads(self):
        return max(1, sum(self.client.nthreads().values()))

    def put(self, shipment, broadcast):
        [future] = self.client.scatter([shipment], broadcast=broadcast, hash=False)
        if broadcast:
            self._wait_until_everywhere(future)
        return future

    def _wait_until_everywhere(self, future, timeout=60.0):
        """Wait until every worker holds ``future``'s data (at most ``timeout`` seconds).

        The broadcast can still be under way when the first tasks start: a worker
        then fetches the data a second time, and a worker that dies meanwhile can
        take the only copy with it (its tasks could not run again elsewhere).
        """
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            holders = set(self.client.who_has([future]).get(future.key, ()))
            if set(self.client.nthreads()) <= holders:
                return
            time.sleep(0.02)

    def release(self, ref):
        ref.release()

    def submit(self, task, ref, k, extra, key):
        with warnings.catch_warnings():
            # a task's own arguments are its alone (a block of coef_ rows to score, a
            # warm start): Dask's advice against large graphs is for repeated data
            warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
            return self.client.submit(_run_task, task, ref, k, extra, pure=False, key=key)

    def as_completed(self, futures):
        import distributed

        # this Client's loop: it need not be the process's default client (the command
        # line's is not), and as_completed would otherwise ask Dask for that one
        return distributed.as_completed(futures, loop=self.client.loop)

    def result(self, future, what, data):
        import concurrent.futures

        import distributed

        # renamed over the versions; either means the task was cancelled under us
        cancelled = (concurrent.futures.CancelledError,
                     getattr(distributed.client, "FutureCancelledError",
                             concurrent.futures.CancelledError))
        try:
            out = future.result()
        except distributed.KilledWorker:
            raise _died_too_often(self, what, data) from None
        except (OSError, *cancelled) as exc:
            raise _lost(self, what, exc) from None
        future.release()  # its memory on the worker
        return out

    def cancel(self, futures):
        self.client.cancel(futures)


def _ray_worker_textwin():
    return os.uname().nodename, _worker_textwin()


class RayCluster:
    """Ray, under joblib's ray backend (``ray.util.joblib.register_ray()``).

    Connects as the backend does: to ``RAY_ADDRESS`` (or ``ray.init``'s
    choice) when Ray is not initialized yet.
    """

    name = "Ray"
    retries_setting = "max_retries times"
    read_per_task = True  # each task maps the object store's copy again
    _checked_nodes = set()  # nodes whose workers run this textwin
    _run = None  # the remote _run_task, made once

    def __init__(self, ray):
        self.ray = ray
        # what Ray raises when it cannot reach the cluster or store the data
        self.failures = (ray.exceptions.RayError, ConnectionError)

    @classmethod
    def current(cls):
        import ray

        if _version_tuple(ray.__version__) < MIN_RAY:
            need = ".".join(str(v) for v in MIN_RAY)
            raise ClusterError(f"textwin on Ray needs ray >= {need}; this one is "
                               f"{ray.__version__}: pip install -U \"ray[client]>=2.9\"")
        if not ray.is_initialized():
            with _in_the_folder_of_this_textwin():
                ray.init()
        if ray.get_runtime_context().worker.mode != ray.SCRIPT_MODE:
            return None  # a fit that is itself a task runs in its worker's threads
        return cls(ray)

    def check(self):
        ray = self.ray
        if self.threads() < 1:
            raise ClusterError("the Ray cluster has no CPUs; start a worker node with "
                               "`ray start --address HEAD:6379`")
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        # the nodes where textwin's tasks (one CPU each) can run: not a head started
        # with --num-cpus=0, which need not have textwin
        nodes = [n["NodeID"] for n in ray.nodes()
                 if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) >= 1]
        new = [node for node in nodes if node not in self._checked_nodes]
        if not new:
            return
        probe = ray.remote(num_cpus=0)(_ray_worker_textwin)
        answers = ray.get([probe.options(scheduling_strategy=NodeAffinitySchedulingStrategy(
            node, soft=False)).remote() for node in new])
        # by node: several nodes may share a host name (containers on one machine)
        found = {f"{host} ({node[:8]})": version for node, (host, version) in zip(new, answers)}
        _refuse_other_textwin(found, "Ray nodes", "node")
        self._checked_nodes.update(new)

    def threads(self):
        return int(self.ray.cluster_resources().get("CPU", 0))

    def put(self, shipment, broadcast):
        # one copy per node that runs a task, fetched by the first of them
        return self.ray.put(shipment)

    def release(self, ref):
        pass  # freed by Ray once no task or handle refers to it

    def submit(self, task, ref, k, extra, key):
        if RayCluster._run is None:
            RayCluster._run = self.ray.remote(num_cpus=1, max_retries=3)(_run_task)
        return RayCluster._run.options(name=key).remote(task, ref, k, extra)

    def as_completed(self, refs):
        pending = list(refs)
        while pending:
            ready, pending = self.ray.wait(pending, num_returns=1)
            yield ready[0]

    def result(self, ref, what, data):
        exceptions = self.ray.exceptions
        try:
            return self.ray.get(ref)
        except exceptions.RayTaskError as exc:  # the task's own exception, as itself
            cause = getattr(exc, "cause", None)
            if isinstance(cause, Exception):
                raise cause from None
            raise
        except (exceptions.WorkerCrashedError, exceptions.NodeDiedError,
                getattr(exceptions, "OutOfMemoryError", exceptions.WorkerCrashedError)):
            raise _died_too_often(self, what, data) from None
        except exceptions.RayError as exc:
            raise _lost(self, what, exc) from None

    def cancel(self, refs):
        for ref in refs:
            try:
                self.ray.cancel(ref)
            except Exception:  # finished or gone already
                pass


# ---------------------------------------------------------------------------
# Maps over the cluster
# ---------------------------------------------------------------------------


class Scattered:
    """A :class:`Shipment` already on the cluster, for one map or several.

    A fit that maps several times over the same data (a cross-validation's
    steps down its grid, then its refit) sends it once,
    ``data = Scattered(cluster, payload, label)``, passes ``data`` to each
    :func:`map_on_cluster` in place of the payload, and calls
    ``data.release()`` when done. ``broadcast``: a copy on every Dask worker
    now (else the first task that needs it fetches it).
    """

    def __init__(self, cluster, payload, label, broadcast=True):
        self.cluster, self.label = cluster, label
        shipment = Shipment(payload, label, cluster.read_per_task)
        self.nbytes = shipment.nbytes
        try:
            cluster.check()
            self.ref = cluster.put(shipment, broadcast)
        except cluster.failures as exc:  # a lost scheduler, a full object store
            raise _lost(cluster, f"the data of {label}", exc, doing="sending") from None
        # only the reference is kept: what the client made for the cluster alone (a
        # CV's fold matrices for Ray) is freed once the caller drops the payload

    def release(self):
        if self.ref is not None:
            self.cluster.release(self.ref)
            self.ref = None


def map_on_cluster(cluster, task, payload, n_tasks, extra=None, on_result=None, label=None,
                   describe=None, desc=None, verbose=0):
    """``[on_result(k, task(shipment, k, *extra(k))) for k in range(n_tasks)]`` on the cluster.

    ``cluster``: :func:`active_cluster`'s. ``payload`` is sent to the cluster
    once (a :class:`Shipment`, released when the map ends), or is a
    :class:`Scattered` already there (kept); ``extra(k)`` gives task ``k``'s
    own (small) arguments. ``label`` names the tasks (default: the
    shipment's label). Results come back as the tasks finish and go through
    ``on_result`` at once (their memory on the worker is released then), in
    any order; the list returned is in task order. ``describe(k)`` names
    task ``k`` in errors. With ``verbose``, a progress bar over the tasks
    goes to stderr (only when it is a terminal).

    A worker that dies takes its running tasks with it: the cluster runs
    them again elsewhere (Dask: up to ``distributed.scheduler.allowed-failures``
    times; Ray: up to 3 times). Whatever fails for good -- a task's
    exception, a task that killed its workers too often, a lost cluster --
    cancels every other task and is raised before any result is used by the
    caller's object (``on_result`` must only fill the caller's own buffers).
    """
    from tqdm import tqdm

    extra = extra or (lambda k: ())
    describe = describe or (lambda k: f"task {k}")
    if isinstance(payload, Scattered):
        data, own = payload, None
        try:
            cluster.check()
        except cluster.failures as exc:
            raise _lost(cluster, "its workers", exc, doing="checking") from None
    else:  # every worker needs the data when there are tasks for all of them
        data = own = Scattered(cluster, payload, label or "textwin", broadcast=n_tasks > 1)
    label = label or data.label
    bar = tqdm(total=n_tasks, desc=desc, unit="problem", file=sys.stderr, leave=False,
               disable=not verbose or n_tasks < 2 or not sys.stderr.isatty())
    token = uuid.uuid4().hex
    pending = {}  # handle -> task index, until its result is in
    try:
        for k in range(n_tasks):
            handle = cluster.submit(task, data.ref, k, tuple(extra(k)), f"{label}-{k}-{token}")
            pending[handle] = k
        results = [None] * n_tasks
        for handle in cluster.as_completed(list(pending)):
            k = pending.pop(handle)
            out = cluster.result(handle, describe(k), data)
            results[k] = out if on_result is None else on_result(k, out)
            bar.update(1)
        return results
    finally:
        bar.close()
        if pending:
            cluster.cancel(list(pending))
        pending.clear()
        if own is not None:
            own.release()


def _scores_task(shipment, k, coef, intercept):
    """Scores of one block of problems: ``X @ coef.T + intercept`` (as locally, bit for bit)."""
    import numpy as np

    return np.asarray(shipment.payload @ coef.T) + intercept


def scores_on_cluster(cluster, X, coef, intercept):
    """``X @ coef.T + intercept`` with one task per block of rows of ``coef`` (problems).

    ``X`` goes to every worker once; each worker thread gets about one block.
    A score is the same sum in the same order as in one product, so the
    result equals the local one bit for bit.
    """
    import numpy as np

    # at least one block: a cluster without threads is refused by the map, in one sentence
    blocks = np.array_split(np.arange(coef.shape[0]),
                            max(1, min(cluster.threads(), coef.shape[0])))
    scores = np.empty((X.shape[0], coef.shape[0]))

    def collect(b, block_scores):
        scores[:, blocks[b]] = block_scores

    map_on_cluster(cluster, _scores_task, X, len(blocks),
                   extra=lambda b: (coef[blocks[b]], intercept[blocks[b]]),
                   on_result=collect, label="textwin-scores",
                   describe=lambda b: f"the scores of problems {blocks[b][0]}-{blocks[b][-1]}")
    return scores
