"""Binary problems as tasks on a Dask cluster: a LocalCluster of two worker processes.

Each test checks what a wrong implementation would get wrong: coefficients
that differ from the threads' by a bit, tasks that ran in the client
instead of the workers, a matrix sent once per task, a dead worker that
leaves a partial model.
"""
import os
import re
import subprocess
import sys
import types

import numpy as np
import pytest
import scipy.sparse as sp

# one pytest-xdist worker runs every test that starts a cluster: two at once
# would only compete for the machine's cores
pytestmark = pytest.mark.xdist_group("clusters")

distributed = pytest.importorskip("distributed")
joblib = pytest.importorskip("joblib")

from textwin import DualSVM, RegularizedWinnow  # noqa: E402
from textwin._distributed import ClusterError, arrivals, check_distributed  # noqa: E402

from _cluster_common import cluster_data, svmlight_train_argv, train_result  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def cluster():
    """Two worker processes with one thread each (the workers import this checkout)."""
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    client = distributed.Client(cluster)
    client.run(__import__, "textwin.linear")  # the workers' imports, once, before any timing
    yield cluster, client
    client.close()
    cluster.close()




def _task_workers(ts, prefix):
    """{task key: worker address} of the task stream's records whose key starts with prefix."""
    return {r["key"]: r["worker"] for r in ts.data if str(r["key"]).startswith(prefix)}


def test_fit_runs_each_problem_on_the_workers_bit_identical_to_threads(cluster):
    cl, client = cluster
    X, Y = cluster_data(labels=8)
    local = DualSVM(lam=1e-3, random_state=3, n_jobs=2).fit(X, Y)
    before = {w: len(a) for w, a in client.run(arrivals).items()}
    remote = DualSVM(lam=1e-3, random_state=3)
    with joblib.parallel_config(backend="dask"), distributed.get_task_stream(client) as ts:
        remote.fit(X, Y)
    for attr in ("coef_", "intercept_", "dual_coef_", "duality_gap_", "n_iter_"):
        np.testing.assert_array_equal(getattr(remote, attr), getattr(local, attr), err_msg=attr)
    # one task per category, each run by one of the two worker processes
    ran = _task_workers(ts, "textwin-fit")
    assert len(ran) == Y.shape[1]
    assert set(ran.values()) <= set(cl.scheduler_info["workers"])
    # the shared data reached each worker for this fit, once (per task would be 8 times;
    # Dask may fetch it a second time when a task overtakes the broadcast)
    after = client.run(arrivals)
    new = {w: a[before.get(w, 0):] for w, a in after.items()}
    assert all(len(a) >= 1 and {lbl for lbl, _, _ in a} == {"textwin-fit"} for a in new.values())
    assert sum(len(a) for a in new.values()) <= len(new) + 1, new
    assert all(a[0][1] >= X.data.nbytes for a in new.values())
    assert all(a[0][2] != os.getpid() for a in new.values())  # unpickled in other processes


def test_decision_function_on_the_cluster_equals_local(cluster):
    _, client = cluster
    X, Y = cluster_data(labels=6, seed=1)
    est = DualSVM(lam=1e-3, random_state=0).fit(X, Y)
    local = est.decision_function(X)
    with joblib.parallel_config(backend="dask"), distributed.get_task_stream(client) as ts:
        remote = est.decision_function(X)
    np.testing.assert_array_equal(remote, local)
    assert len(_task_workers(ts, "textwin-scores")) >= 2


def test_scoring_a_large_model_on_the_cluster_gives_no_dask_warning(cluster):
    import warnings

    X = sp.random(60, 1_500_000, density=2e-5, format="csr", random_state=0)
    Y = (np.arange(240).reshape(60, 4) % 3 == 0).astype(int)
    model = DualSVM(lam=1e-2, random_state=0).fit(X, Y)  # coef_: 48 MB, 24 MB per block
    with joblib.parallel_config(backend="dask"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scores = model.decision_function(X)
    np.testing.assert_array_equal(scores, np.asarray(X @ model.coef_.T) + model.intercept_)
    assert not [w for w in caught if "large graph" in str(w.message)], caught


def test_multiclass_entropy_and_warm_start_match_threads(cluster):
    X, Y = cluster_data(labels=4, seed=2)
    y = np.argmax(Y + np.arange(4) * 0.1, axis=1)  # four classes
    local = RegularizedWinnow(random_state=1, max_epochs=30).fit(X, y)
    with joblib.parallel_config(backend="dask"):
        remote = RegularizedWinnow(random_state=1, max_epochs=30).fit(X, y)
    np.testing.assert_array_equal(remote.coef_, local.coef_)
    # a warm start sends each problem its previous dual variables
    local.set_params(warm_start=True, lam=5e-5).fit(X, y)
    with joblib.parallel_config(backend="dask"):
        remote.set_params(warm_start=True, lam=5e-5).fit(X, y)
    np.testing.assert_array_equal(remote.coef_, local.coef_)
    np.testing.assert_array_equal(remote.dual_coef_, local.dual_coef_)


def test_a_grid_search_on_the_cluster_fits_each_candidate_where_it_runs(cluster):
    # GridSearchCV's fits are tasks already: textwin's problems then run in the
    # worker's threads (tasks of tasks could hold every worker thread waiting)
    from sklearn.model_selection import GridSearchCV

    _, client = cluster
    X, Y = cluster_data(labels=3, seed=7)
    y = np.argmax(Y + np.arange(3) * 0.1, axis=1)
    grid = dict(lam=[1e-3, 1e-2])
    local = GridSearchCV(DualSVM(random_state=0), grid, cv=2).fit(X, y)
    with joblib.parallel_config(backend="dask"), distributed.get_task_stream(client) as ts:
        remote = GridSearchCV(DualSVM(random_state=0), grid, cv=2, n_jobs=-1).fit(X, y)
    np.testing.assert_array_equal(remote.cv_results_["mean_test_score"],
                                  local.cv_results_["mean_test_score"])
    np.testing.assert_array_equal(remote.best_estimator_.coef_, local.best_estimator_.coef_)
    # the four cross-validation fits ran inside joblib's tasks, in the workers' threads;
    # only the final refit, in this process, sent its three problems as tasks
    assert len(_task_workers(ts, "textwin-fit")) == 3


# multi-class and multi-label with one lam (the held-out scores come back), multi-label with
# a lam per problem (the break-even counts come back)
@pytest.mark.parametrize("labels, scoring", [(3, None), (4, None), (4, "micro_breakeven_point")])
def test_the_cross_validation_runs_each_fold_path_on_the_workers_bit_identical(cluster, labels,
                                                                              scoring):
    from textwin import DualGaussSeidelClassifierCV

    cl, client = cluster
    X, Y = cluster_data(n=300, labels=labels, seed=11)
    y = np.argmax(Y + np.arange(3) * 0.1, axis=1) if labels == 3 else Y
    params = dict(lams=4, lam_min_ratio=1e-2, cv=3, early_stopping=False, random_state=5,
                  scoring=scoring)
    local = DualGaussSeidelClassifierCV(n_jobs=2, **params).fit(X, y)
    before = {w: len(a) for w, a in client.run(arrivals).items()}
    with joblib.parallel_config(backend="dask"), distributed.get_task_stream(client) as ts:
        remote = DualGaussSeidelClassifierCV(**params).fit(X, y)
    for attr in ("lams_", "lam_", "cv_scores_", "path_n_iter_", "coef_", "intercept_"):
        np.testing.assert_array_equal(getattr(remote, attr), getattr(local, attr), err_msg=attr)
    # every (fold, problem) path ran as a task of a worker at each lam (one task per step),
    # and so did the refit of each problem
    ran = _task_workers(ts, "textwin-cv")
    assert len(ran) == local.path_n_iter_.size, len(ran)
    refit = _task_workers(ts, "textwin-refit")
    assert len(refit) == local.coef_.shape[0]
    workers = set(cl.scheduler_info["workers"])
    assert set(ran.values()) <= workers and set(refit.values()) <= workers
    # the data reached each worker once for the whole fit: not per step, not for the refit
    new = [a for w, arr in client.run(arrivals).items() for a in arr[before.get(w, 0):]]
    assert {label for label, _, _ in new} == {"textwin-cv"}, new
    assert len(before) <= len(new) <= len(before) + 1 < remote.lams_.size, len(new)
    assert all(nbytes >= X.data.nbytes for _, nbytes, _ in new)


def _topic_texts(n_per_class, seed):
    """Short texts of three topics, each text a few of its topic's words among noise."""
    rng = np.random.default_rng(seed)
    topics = {"grain": "wheat corn harvest bushel crop grain", "money": "bank rate loan dollar "
              "fed money", "oil": "crude barrel opec refinery oil gas"}
    noise = "the a market price week said year new report".split()
    texts, y = [], []
    for name, words in topics.items():
        for _ in range(n_per_class):
            chosen = list(rng.choice(words.split(), 3)) + list(rng.choice(noise, 4))
            texts.append(" ".join(rng.permutation(chosen)))
            y.append(name)
    return texts, np.array(y)


def test_the_text_search_runs_its_paths_on_the_workers_bit_identical(cluster):
    # TextClassifierCV's paths go through the same engine as DualGaussSeidelClassifierCV's:
    # on the cluster, one task per (fold, problem) and step, the choice that of the threads
    from textwin import TextClassifierCV

    cl, client = cluster
    texts, y = _topic_texts(20, seed=4)
    params = dict(stem=False, ngrams=[1, 2], lam_grid=[10.0, 1.0, 0.1], cv=3, random_state=0)
    local = TextClassifierCV(n_jobs=2, **params).fit(texts, y)
    with joblib.parallel_config(backend="dask"), distributed.get_task_stream(client) as ts:
        remote = TextClassifierCV(**params).fit(texts, y)
    for key in ("params", "lam_n", "mean_test_score", "std_test_score", "rank_test_score"):
        assert remote.cv_results_[key] == local.cv_results_[key], key
    assert remote.best_params_ == local.best_params_
    np.testing.assert_array_equal(remote.best_estimator_.coef_, local.best_estimator_.coef_)
    ran = _task_workers(ts, "textwin-auto")
    # two n-gram settings x naive Bayes off and on x 3 folds x 3 classes, at least one step
    assert len(ran) >= 2 * 2 * 3 * 3, len(ran)
    assert set(ran.values()) <= set(cl.scheduler_info["workers"])


def test_a_shipment_read_again_in_a_process_is_one_arrival_with_one_cache():
    import pickle

    from textwin._distributed import Shipment

    sent = Shipment({"x": np.arange(5.0)}, "textwin-test")
    before = len(arrivals())
    first, again = pickle.loads(pickle.dumps(sent)), pickle.loads(pickle.dumps(sent))
    made = []
    assert first.cached("v", lambda p: made.append(1) or p["x"].sum()) == 10.0
    assert again.cached("v", lambda p: made.append(1) or -1.0) == 10.0
    assert made == [1]
    assert arrivals()[before:] == [("textwin-test", 40, os.getpid())]


def test_what_a_process_derived_from_a_shipment_goes_with_it():
    import gc
    import pickle
    import weakref

    from textwin._distributed import Shipment

    def derived_from(sent):
        copy = pickle.loads(pickle.dumps(sent))
        return weakref.ref(copy.cached("v", lambda p: p["x"] * 2))

    # a worker's one copy (Dask): the checked views go with it, not kept for later fits
    derived = derived_from(Shipment({"x": np.arange(5.0)}, "textwin-test"))
    gc.collect()
    assert derived() is None
    # a copy per task (Ray): kept for the next task's copy, until another shipment comes
    sent = Shipment({"x": np.arange(5.0)}, "textwin-test", read_per_task=True)
    derived = derived_from(sent)
    gc.collect()
    assert derived() is not None
    assert pickle.loads(pickle.dumps(sent)).cached("v", lambda p: None) is derived()
    derived_from(Shipment({"x": np.arange(3.0)}, "textwin-test", read_per_task=True))
    gc.collect()
    assert derived() is None

def test_a_shipment_counts_each_array_once_and_survives_a_cycle():
    from textwin._distributed import Shipment

    x = np.zeros(10)
    scorer = types.SimpleNamespace(weights=x)
    scorer.me = scorer  # a user's scoring object that refers back to itself
    assert Shipment({"X": x, "again": x, "scoring": scorer}, "textwin-test").nbytes == 80

def test_an_old_or_incomplete_distributed_is_one_clear_error():
    old = types.SimpleNamespace(__version__="2022.2.1", Client=1, as_completed=1, KilledWorker=1,
                                get_worker=1)
    with pytest.raises(ClusterError, match=r"needs dask.distributed >= 2023.1; this one is "
                                           r"2022.2.1: pip install"):
        check_distributed(old)
    partial = types.SimpleNamespace(__version__="2099.1.0", Client=1)
    with pytest.raises(ClusterError, match="lacks as_completed, KilledWorker, get_worker"):
        check_distributed(partial)
    assert check_distributed(distributed) is distributed


@pytest.mark.parametrize("address", ["foo", "tcp://foo", "tcp://host:port", "nonsense::"])
def test_a_malformed_address_is_refused_before_a_client_exists(capsys, monkeypatch, address):
    # a Client whose constructor failed still closes itself at garbage collection,
    # 10 s later, with a traceback of its own after the one-line error
    from textwin import cli

    def no_client(*args, **kwargs):
        raise AssertionError("a Client was made for a malformed address")

    monkeypatch.setattr(distributed, "Client", no_client)
    code = cli.main(["train", "-c", "acq", "--scheduler", address, "--offline"])
    err = capsys.readouterr().err
    assert code == cli.EXIT_USAGE
    assert err.count("\n") == 1 and "is not a Dask scheduler address" in err
    assert "tcp://HOST:PORT" in err


def _ray_runs_on_this_machine():
    """Is a Ray head (its gcs_server process) running here?"""
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/comm") as fh:
                if fh.read().strip() == "gcs_server":
                    return True
        except OSError:
            continue
    return False


def test_no_ray_cluster_is_one_line_from_the_command_line(capsys, monkeypatch, tmp_path):
    pytest.importorskip("ray")
    import ray

    from textwin import cli

    if ray.is_initialized():  # pragma: no cover - the Ray tests shut theirs down
        pytest.skip("a Ray is running in this process")
    if _ray_runs_on_this_machine():  # pragma: no cover - "auto" would join it
        pytest.skip("a Ray cluster runs on this machine")
    # "auto", and no Ray found (nor the address files of an earlier one, which Ray
    # keeps in its temporary folder)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setenv("RAY_TMPDIR", str(tmp_path))
    code = cli.main(["train", "-c", "acq", "--scheduler", "ray", "--offline"])
    err = capsys.readouterr().err
    assert code == cli.EXIT_USAGE
    assert err.count("\n") == 1 and "cannot reach a Ray cluster at 'auto'" in err
    assert "ray start --head" in err


def test_a_ray_client_address_without_ray_client_is_one_line_naming_the_extra(capsys):
    pytest.importorskip("ray")
    import importlib.util

    import ray

    from textwin import cli

    if ray.is_initialized():  # pragma: no cover - the Ray tests shut theirs down
        pytest.skip("a Ray is running in this process")
    if importlib.util.find_spec("grpc") is not None:  # pragma: no cover
        pytest.skip("Ray Client is installed: ray:// would try to connect")
    code = cli.main(["train", "-c", "acq", "--scheduler", "ray://127.0.0.1:1", "--offline"])
    err = capsys.readouterr().err
    assert code == cli.EXIT_USAGE and err.count("\n") == 1
    assert "Ray Client" in err and 'pip install -U "ray[client]>=2.9"' in err
    assert "ray start" not in err  # not: start a cluster, which would not help



def test_the_command_line_trains_on_the_scheduler_of_dask_scheduler_address(
        cluster, tmp_path, capsys, monkeypatch):
    _, client = cluster
    argv = svmlight_train_argv(tmp_path)
    local = train_result(capsys, argv)
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", client.scheduler.address)
    with distributed.get_task_stream(client) as ts:
        remote = train_result(capsys, argv)
    assert len(_task_workers(ts, "textwin-fit")) == 3  # three categories, three tasks
    assert remote == local


def test_workers_with_another_textwin_are_refused_before_any_work(cluster, monkeypatch):
    import textwin._version

    _, client = cluster
    real = textwin._version.__version__  # what the workers run
    monkeypatch.setattr(textwin._version, "__version__", "0.0-elsewhere")
    est = DualSVM()
    with joblib.parallel_config(backend="dask"), distributed.get_task_stream(client) as ts:
        with pytest.raises(ClusterError, match=r"2 of 2 Dask workers cannot run this textwin "
                                               r"0.0-elsewhere \(worker tcp://.*: "
                                               + re.escape(real)):
            est.fit(*cluster_data(labels=3))
    assert not _task_workers(ts, "textwin-fit") and not hasattr(est, "coef_")


def test_a_cluster_without_workers_is_an_error_not_a_wait():
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cl, \
            distributed.Client(cl) as client, joblib.parallel_config(backend="dask"):
        est = DualSVM()
        with pytest.raises(ClusterError, match="has no workers; start some with `dask worker"):
            est.fit(*cluster_data(labels=3))
    assert not hasattr(est, "coef_") and not hasattr(est, "classes_")


def test_connect_gives_up_quickly_on_a_silent_port():
    from textwin._distributed import connect

    with pytest.raises(ClusterError, match=r"cannot reach a Dask scheduler.*within 1 s"):
        connect("tcp://127.0.0.1:1", timeout=1)


def test_outside_a_dask_or_ray_context_neither_is_imported():
    code = ("import sys, numpy as np, scipy.sparse as sp, textwin\n"
            "X = sp.random(50, 20, density=0.3, format='csr', random_state=0)\n"
            "Y = (np.arange(150).reshape(50, 3) % 4 == 0).astype(int)\n"
            "m = textwin.DualSVM(n_jobs=2).fit(X, Y); m.decision_function(X)\n"
            "textwin.DualGaussSeidelClassifierCV(lams=2, cv=2, n_jobs=2).fit(X, Y)\n"
            "print(sorted(m for m in sys.modules\n"
            "             if m.split('.')[0] in ('dask', 'distributed', 'ray')))")
    # the textwin these tests import (the installed one in CI, the source tree in a
    # development build), not a clean clone's source tree without its kernels
    import textwin

    where = os.path.dirname(os.path.dirname(os.path.abspath(textwin.__file__)))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=os.path.dirname(where), env={**os.environ, "PYTHONPATH": where},
                         check=True)
    assert out.stdout.strip() == "[]"


# Last: these kill worker processes (the nanny restarts them)

def _die():
    os._exit(1)


def _install_fault(once=None):
    """Make this worker process die at its next textwin task (a restarted worker is clean);
    with ``once`` (a path), only the first such task of all the workers dies."""
    import textwin._distributed as D

    run = D._run_task

    def faulty(*args):
        if once is not None:
            try:
                os.close(os.open(once, os.O_CREAT | os.O_EXCL))
            except FileExistsError:
                return run(*args)
        _die()

    D._run_task = faulty


@pytest.mark.slow
def test_a_worker_that_dies_mid_fit_is_replaced_and_the_model_is_the_same(cluster, tmp_path):
    cl, client = cluster
    X, Y = cluster_data(labels=4, seed=4)
    local = DualSVM(lam=1e-3, random_state=0).fit(X, Y)
    pids = client.run(os.getpid)
    # the first task to start dies with its worker, wherever the scheduler put it
    client.run(_install_fault, str(tmp_path / "died"))
    remote = DualSVM(lam=1e-3, random_state=0)
    with joblib.parallel_config(backend="dask"):
        remote.fit(X, Y)
    np.testing.assert_array_equal(remote.coef_, local.coef_)
    np.testing.assert_array_equal(remote.dual_coef_, local.dual_coef_)
    assert (tmp_path / "died").exists()
    client.wait_for_workers(2, timeout=60)
    now = client.run(os.getpid).values()
    assert len(set(pids.values()) - set(now)) == 1  # one did die, and was replaced



@pytest.mark.slow
def test_a_problem_that_kills_its_workers_fails_the_fit_and_keeps_the_old_model(cluster):
    cl, client = cluster
    X, Y = cluster_data(labels=3, seed=5)
    est = DualSVM(lam=1e-3, random_state=0).fit(X, Y)
    coef, classes = est.coef_.copy(), est.classes_.copy()
    scheduler = cl.scheduler
    allowed = scheduler.allowed_failures
    scheduler.allowed_failures = 0  # the first death is fatal
    try:
        client.wait_for_workers(2, timeout=60)
        client.run(_install_fault)
        X2, Y2 = cluster_data(labels=5, seed=6)
        with joblib.parallel_config(backend="dask"):
            with pytest.raises(ClusterError, match=r"died too often.*nothing was fitted"):
                est.fit(X2, Y2)
    finally:
        scheduler.allowed_failures = allowed
        client.wait_for_workers(2, timeout=60)
    np.testing.assert_array_equal(est.coef_, coef)  # the earlier model, whole
    np.testing.assert_array_equal(est.classes_, classes)
    assert est.dual_coef_.shape == (X.shape[0], Y.shape[1])[::-1]
