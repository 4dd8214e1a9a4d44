"""Binary problems as tasks on a Dask cluster, through joblib's "dask" backend.

Inside ``joblib.parallel_config(backend="dask")`` (with a
``dask.distributed.Client``), the estimators hand their binary problems to
:func:`map_on_cluster` instead of their thread pool: the data every problem
reads (the CSR matrix, the labels, the settings) is scattered to each worker
once, as one :class:`Shipment`, and each problem is one task that reads it
there. A worker runs as many tasks at once as it has threads, and the kernels
release the GIL, so a worker with several cores solves several problems at
once over its one copy of the matrix.

This module imports nothing of Dask at import time: :func:`active_dask_client`
only looks at joblib's active backend (joblib comes with scikit-learn), and
Dask is only touched once that backend is Dask's, which has imported it.
"""
import os
import sys
import threading
import time
import uuid

# The oldest dask.distributed whose API this module was written against
# (Client.scatter(broadcast=, hash=), as_completed, KilledWorker); joblib's
# own dask backend needs about as much.
MIN_DISTRIBUTED = (2023, 1)

_INSTALL_HINT = 'pip install -U "textwin[dask]"'


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


def active_dask_client():
    """The Client of the active joblib backend when it is Dask's, else None.

    Costs one look at joblib's configuration: Dask is not imported (when the
    backend is Dask's, joblib has imported it already).
    """
    try:
        from joblib.parallel import get_active_backend
    except ImportError:  # pragma: no cover - joblib comes with scikit-learn
        return None
    backend, _ = get_active_backend()
    if type(backend).__name__ != "DaskDistributedBackend":
        return None
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
    return client


def connect(address, timeout=10):
    """A ``dask.distributed.Client`` connected to the scheduler at ``address``.

    Unreachable within ``timeout`` seconds, or workers that cannot run
    textwin: a :class:`ClusterError` that says what to do.
    """
    distributed = check_distributed()
    try:
        # not the process's default client: one that fails to connect would stay
        # registered as the default and capture later dask backends (joblib's
        # takes the default one); the caller passes this one to the backend
        client = distributed.Client(address, timeout=f"{timeout}s", set_as_default=False)
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ClusterError(
            f"cannot reach a Dask scheduler at {address!r} within {timeout:g} s ({first}); "
            f"start one with `dask scheduler` (it prints its address, e.g. "
            f"tcp://HOST:8786) and workers with `dask worker tcp://HOST:8786`, "
            f"then pass that address") from None
    try:
        check_workers(client)
    except BaseException:
        client.close()
        raise
    return client


def _worker_textwin():
    """Run on each worker: textwin's version there, or why it cannot be imported."""
    try:
        import textwin
        from textwin._kernels import _dual_gs  # noqa: F401  (the compiled kernels)
    except ImportError as exc:
        return f"no textwin ({exc})"
    return textwin.__version__


def check_workers(client):
    """Refuse workers without this textwin (a task would fail there, later and less clearly)."""
    from textwin._version import __version__

    found = client.run(_worker_textwin)
    bad = {addr: v for addr, v in found.items() if v != __version__}
    if bad:
        addr, v = next(iter(bad.items()))
        raise ClusterError(
            f"{len(bad)} of {len(found)} Dask workers cannot run this textwin "
            f"{__version__} (worker {addr}: {v}); install the same textwin in the "
            f"workers' environment")


# ---------------------------------------------------------------------------
# What travels: one Shipment per map, to each worker once
# ---------------------------------------------------------------------------

# (label, bytes, process id) of each Shipment unpickled in this process: on a
# worker, the evidence that a map's data arrived there once.
_ARRIVALS = []


def arrivals():
    """The Shipments this process has received: a list of (label, bytes, pid).

    Run it on the workers (``client.run(arrivals)``) to see what reached them.
    """
    return list(_ARRIVALS)


def _nbytes(obj):
    """Bytes of the numpy arrays in obj (dicts, lists, objects' attributes; one level of sparse)."""
    import numpy as np

    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if isinstance(obj, dict):
        return sum(_nbytes(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(_nbytes(v) for v in obj)
    if hasattr(obj, "__dict__"):
        return sum(_nbytes(v) for v in vars(obj).values())
    return 0


class Shipment:
    """The read-only data every task of one map reads, sent to each worker once.

    ``payload`` is any picklable object (arrays travel out of band, without a
    copy into the pickle). :meth:`cached` keeps what a worker derives from it
    once for all its tasks (the kernels' checked view of the matrix), under a
    lock since a worker's threads run tasks at once.
    """

    def __init__(self, payload, label):
        self.payload = payload
        self.label = label
        self.nbytes = _nbytes(payload)
        self._cache, self._lock = {}, threading.Lock()

    def cached(self, key, make):
        with self._lock:
            if key not in self._cache:
                self._cache[key] = make(self.payload)
            return self._cache[key]

    def __getstate__(self):
        return {"payload": self.payload, "label": self.label, "nbytes": self.nbytes}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._cache, self._lock = {}, threading.Lock()
        _ARRIVALS.append((self.label, self.nbytes, os.getpid()))


def _wait_until_everywhere(client, future, timeout=60.0):
    """Wait until every worker holds ``future``'s data (at most ``timeout`` seconds).

    The broadcast can still be under way when the first tasks start: a worker
    then fetches the data a second time, and a worker that dies meanwhile can
    take the only copy with it (its tasks could not run again elsewhere).
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        holders = set(client.who_has([future]).get(future.key, ()))
        if set(client.nthreads()) <= holders:
            return
        time.sleep(0.02)


def _run_task(task, shipment, k, extra):
    """What a worker runs: ``task(shipment, k, *extra)``."""
    return task(shipment, k, *extra)


def _check_cluster(client):
    if not client.nthreads():  # Dask would wait for a worker, forever
        raise ClusterError(f"the Dask cluster at {client.scheduler.address} has no workers; "
                           f"start some with `dask worker {client.scheduler.address}`")
    check_workers(client)


class Scattered:
    """A :class:`Shipment` already on the workers, for one map or several.

    A fit that maps several times over the same data (a cross-validation's
    steps down its grid, then its refit) scatters it once, as
    ``with Scattered(client, payload, label) as data:``, and passes ``data``
    to each :func:`map_on_cluster` in place of the payload; leaving the
    block releases it on the workers. ``broadcast``: a copy on every worker
    now (else the first task that needs it fetches it).
    """

    def __init__(self, client, payload, label, broadcast=True):
        _check_cluster(client)
        self.shipment = Shipment(payload, label)
        self.label = label
        [self.future] = client.scatter([self.shipment], broadcast=broadcast, hash=False)
        if broadcast:
            _wait_until_everywhere(client, self.future)

    def release(self):
        self.future.release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()


def map_on_cluster(client, task, payload, n_tasks, extra=None, on_result=None, label=None,
                   describe=None, desc=None, verbose=0):
    """``[on_result(k, task(shipment, k, *extra(k))) for k in range(n_tasks)]`` on the cluster.

    ``payload`` is scattered to every worker once (a :class:`Shipment`,
    released when the map ends), or is a :class:`Scattered` already there
    (kept); ``extra(k)`` gives task ``k``'s own (small) arguments. ``label``
    names the tasks (default: the shipment's label). Results come back as
    the tasks finish and go through ``on_result`` at once (their memory on the
    worker is released then), in any order; the list returned is in task
    order. ``describe(k)`` names task ``k`` in errors. With ``verbose``, a
    progress bar over the tasks goes to stderr (only when it is a terminal).

    A worker that dies takes its running tasks with it: the scheduler runs
    them again elsewhere (up to ``distributed.scheduler.allowed-failures``
    times). Whatever fails for good -- a task's exception, a task that
    killed its workers too often, a lost scheduler -- cancels every other
    task and is raised before any result is used by the caller's object
    (``on_result`` must only fill the caller's own buffers).
    """
    import concurrent.futures

    import distributed

    # renamed over the versions; either means the task was cancelled under us
    cancelled = (concurrent.futures.CancelledError,
                 getattr(distributed.client, "FutureCancelledError", concurrent.futures.CancelledError))
    extra = extra or (lambda k: ())
    describe = describe or (lambda k: f"task {k}")
    from tqdm import tqdm

    if isinstance(payload, Scattered):
        data, own = payload, None
        _check_cluster(client)
    else:  # every worker needs the data when there are tasks for all of them
        data = own = Scattered(client, payload, label or "textwin", broadcast=n_tasks > 1)
    label = label or data.label
    shipment, shared = data.shipment, data.future
    bar = tqdm(total=n_tasks, desc=desc, unit="problem", file=sys.stderr, leave=False,
               disable=not verbose or n_tasks < 2 or not sys.stderr.isatty())
    token = uuid.uuid4().hex
    futures, keys = [], {}
    try:
        for k in range(n_tasks):
            fut = client.submit(_run_task, task, shared, k, tuple(extra(k)), pure=False,
                                key=f"{label}-{k}-{token}")
            futures.append(fut)
            keys[fut.key] = k
        results = [None] * n_tasks
        for fut in distributed.as_completed(futures):
            k = keys[fut.key]
            try:
                out = fut.result()
            except distributed.KilledWorker:
                raise ClusterError(
                    f"the Dask workers running {describe(k)} died too often (Dask ran it "
                    f"again after each death, up to distributed.scheduler.allowed-failures "
                    f"times); nothing was fitted. Give each worker memory for the shared "
                    f"data ({shipment.nbytes / 2 ** 20:.0f} MiB) plus the O(n + d) arrays "
                    f"of each of its threads, or use fewer threads per worker") from None
            except (OSError, *cancelled) as exc:
                raise ClusterError(
                    f"lost the Dask cluster while running {describe(k)} ({type(exc).__name__}: "
                    f"{exc}); nothing was fitted: check the scheduler and run again") from None
            fut.release()
            results[k] = out if on_result is None else on_result(k, out)
            bar.update(1)
        return results
    finally:
        bar.close()
        pending = [f for f in futures if not f.done()]
        if pending:
            client.cancel(pending)
        futures.clear()
        if own is not None:
            own.release()


def _scores_task(shipment, k, coef, intercept):
    """Scores of one block of problems: ``X @ coef.T + intercept`` (as locally, bit for bit)."""
    import numpy as np

    return np.asarray(shipment.payload @ coef.T) + intercept


def scores_on_cluster(client, X, coef, intercept):
    """``X @ coef.T + intercept`` with one task per block of rows of ``coef`` (problems).

    ``X`` goes to every worker once; each worker thread gets about one block.
    A score is the same sum in the same order as in one product, so the
    result equals the local one bit for bit.
    """
    import numpy as np

    threads = max(1, sum(client.nthreads().values()))
    blocks = np.array_split(np.arange(coef.shape[0]), min(threads, coef.shape[0]))
    scores = np.empty((X.shape[0], coef.shape[0]))

    def collect(b, block_scores):
        scores[:, blocks[b]] = block_scores

    map_on_cluster(client, _scores_task, X, len(blocks),
                   extra=lambda b: (coef[blocks[b]], intercept[blocks[b]]),
                   on_result=collect, label="textwin-scores",
                   describe=lambda b: f"the scores of problems {blocks[b][0]}-{blocks[b][-1]}")
    return scores
