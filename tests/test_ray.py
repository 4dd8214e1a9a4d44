"""Binary problems as tasks on Ray, through joblib's "ray" backend (a local Ray of 2 CPUs).

Skipped where Ray is not installed (the ``ray`` extra; the test extra has
it). Each test checks what a wrong implementation would get wrong:
coefficients that differ from the threads' by a bit, tasks that ran in the
driver instead of Ray's worker processes, a matrix put in the object store
once per task, a dead worker that leaves a partial model.
"""
import os
import sys

import numpy as np
import pytest

# one pytest-xdist worker runs every test that starts a cluster: two at once
# would only compete for the machine's cores
pytestmark = pytest.mark.xdist_group("clusters")

ray = pytest.importorskip("ray")
joblib = pytest.importorskip("joblib")

from textwin import DualGaussSeidelClassifierCV, DualSVM  # noqa: E402
from textwin._distributed import ClusterError, RayCluster, map_on_cluster  # noqa: E402

from _cluster_common import cluster_data, svmlight_train_argv, train_result  # noqa: E402


@pytest.fixture(scope="module")
def local_ray():
    from ray.util.joblib import register_ray

    from textwin._distributed import _in_the_folder_of_this_textwin

    # as the library starts Ray (RayCluster.current): the workers import the textwin
    # these tests import, wherever pytest runs (a checkout's root included)
    with _in_the_folder_of_this_textwin():
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    # this module's task functions travel by value (the workers cannot import tests/)
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    register_ray()
    yield
    ray.shutdown()


@pytest.fixture
def sent(monkeypatch):
    """What went to Ray: the labels of the shipments put and of the tasks submitted."""
    import textwin._distributed as D

    record = {"put": [], "tasks": [], "fold_rows": []}
    put, submit = D.RayCluster.put, D.RayCluster.submit

    def put_and_record(self, shipment, broadcast):
        record["put"].append(shipment.label)
        if isinstance(shipment.payload, dict) and "folds" in shipment.payload:
            record["fold_rows"].append([getattr(fold, "X_train", None) is not None
                                        and fold.X_train.shape[0]
                                        for fold in shipment.payload["folds"]])
        return put(self, shipment, broadcast)

    def submit_and_record(self, task, ref, k, extra, key):
        record["tasks"].append(key.rsplit("-", 2)[0])
        return submit(self, task, ref, k, extra, key)

    monkeypatch.setattr(D.RayCluster, "put", put_and_record)
    monkeypatch.setattr(D.RayCluster, "submit", submit_and_record)
    return record




def _where(shipment, k):
    """A task that reports where it ran and how its shipment's matrix arrived there."""
    X = shipment.payload["X"]
    return os.getpid(), bool(X.data.flags.writeable), k


def test_fit_and_scores_on_ray_are_bit_identical_to_threads(local_ray, sent):
    X, Y = cluster_data(labels=8)
    local = DualSVM(lam=1e-3, random_state=3, n_jobs=2).fit(X, Y)
    remote = DualSVM(lam=1e-3, random_state=3)
    with joblib.parallel_config(backend="ray"):
        remote.fit(X, Y)
        scores = remote.decision_function(X)
    for attr in ("coef_", "intercept_", "dual_coef_", "duality_gap_", "n_iter_"):
        np.testing.assert_array_equal(getattr(remote, attr), getattr(local, attr), err_msg=attr)
    np.testing.assert_array_equal(scores, local.decision_function(X))
    # one task per problem and per block of scores; the data put once for each
    assert sent["tasks"].count("textwin-fit") == Y.shape[1]
    assert sent["tasks"].count("textwin-scores") == 2  # one block per CPU
    assert sent["put"] == ["textwin-fit", "textwin-scores"]


def test_tasks_run_in_ray_workers_reading_one_copy_of_the_matrix(local_ray):
    X, _ = cluster_data()
    with joblib.parallel_config(backend="ray"):
        cluster = RayCluster.current()
    ran = map_on_cluster(cluster, _where, {"X": X}, 12)
    pids = {pid for pid, _, _ in ran}
    assert [k for _, _, k in ran] == list(range(12))
    assert os.getpid() not in pids  # in Ray's worker processes, not here
    # each task maps the object store's one copy (read-only, no copy per task)
    assert not any(writeable for _, writeable, _ in ran)


def test_the_cross_validation_on_ray_equals_the_threads(local_ray, sent):
    X, Y = cluster_data(n=300, labels=4, seed=11)
    params = dict(lams=4, lam_min_ratio=1e-2, cv=3, early_stopping=False, random_state=5)
    local = DualGaussSeidelClassifierCV(n_jobs=2, **params).fit(X, Y)
    with joblib.parallel_config(backend="ray"):
        remote = DualGaussSeidelClassifierCV(**params).fit(X, Y)
    for attr in ("lams_", "lam_", "cv_scores_", "path_n_iter_", "coef_", "intercept_"):
        np.testing.assert_array_equal(getattr(remote, attr), getattr(local, attr), err_msg=attr)
    # every (fold, problem) path at every step, then every refit, as tasks; the data
    # put once for all of them
    assert sent["tasks"].count("textwin-cv") == local.path_n_iter_.size
    assert sent["tasks"].count("textwin-refit") == Y.shape[1]
    assert sent["put"] == ["textwin-cv"]
    # with the folds' training rows cut once here, not in every worker process
    assert sent["fold_rows"] == [[200, 200, 200]]


def _shipments_held():
    import gc

    import textwin._distributed as D

    gc.collect()
    return os.getpid(), len(D._RECEIVED)


def test_a_worker_keeps_no_more_than_the_last_fitscluster_data(local_ray):
    for seed in (0, 1, 2):  # each fit's matrix, which the workers' checked views hold
        with joblib.parallel_config(backend="ray"):
            DualSVM(lam=1e-3).fit(*cluster_data(labels=4, seed=seed))
    probe = ray.remote(num_cpus=1)(_shipments_held)
    held = dict(ray.get([probe.remote() for _ in range(8)]))
    # not pinned in the object store by every worker process for later fits
    assert max(held.values()) <= 1, held


def test_a_second_cross_validation_does_not_send_the_first_ones_model(local_ray, monkeypatch):
    import pickle

    import textwin._distributed as D

    sizes = []
    put = D.RayCluster.put

    def put_and_measure(self, shipment, broadcast):
        sizes.append(len(pickle.dumps(shipment.payload, protocol=5)))
        return put(self, shipment, broadcast)

    monkeypatch.setattr(D.RayCluster, "put", put_and_measure)
    X, Y = cluster_data(n=300, labels=4, seed=12)
    est = DualGaussSeidelClassifierCV(lams=2, cv=2, early_stopping=False, random_state=0)
    with joblib.parallel_config(backend="ray"):
        est.fit(X, Y)
        est.fit(X, Y)  # now holding coef_ and dual_coef_ (4 x 300 floats)
    assert len(sizes) == 2 and sizes[1] == sizes[0], sizes



def test_the_command_line_trains_on_ray(local_ray, sent, tmp_path, capsys):
    argv = svmlight_train_argv(tmp_path)
    local = train_result(capsys, argv)
    remote = train_result(capsys, argv + ["--scheduler", "ray"])
    assert sent["tasks"].count("textwin-fit") == 3  # three categories, three Ray tasks
    assert remote == local


def test_data_the_object_store_cannot_take_is_one_line_from_the_command_line(
        local_ray, tmp_path, capsys, monkeypatch):
    from textwin import cli

    def full(value, *args, **kwargs):
        raise ray.exceptions.ObjectStoreFullError("Failed to put object: the store is full")

    monkeypatch.setattr(ray, "put", full)
    code = cli.main(svmlight_train_argv(tmp_path) + ["--scheduler", "ray"])
    err = capsys.readouterr().err
    assert code == cli.EXIT_USAGE and err.count("\n") == 1, err
    assert "while sending the data of textwin-fit (ObjectStoreFullError" in err

def test_a_ray_cluster_without_cpus_is_a_cluster_error_for_fit_and_scores(local_ray,
                                                                         monkeypatch):
    X, Y = cluster_data(labels=3, seed=9)
    est = DualSVM(lam=1e-3).fit(X, Y)
    monkeypatch.setattr(ray, "cluster_resources", lambda: {"memory": 1e9})  # no CPU yet
    with joblib.parallel_config(backend="ray"):
        with pytest.raises(ClusterError, match="has no CPUs"):
            est.decision_function(X)
        with pytest.raises(ClusterError, match="has no CPUs"):
            DualSVM().fit(X, Y)

def test_nodes_with_another_textwin_are_refused_before_any_work(local_ray, sent, monkeypatch):
    import textwin._distributed as D
    import textwin._version

    monkeypatch.setattr(D.RayCluster, "_checked_nodes", set())  # ask the nodes again
    monkeypatch.setattr(textwin._version, "__version__", "0.0-elsewhere")
    est = DualSVM()
    with joblib.parallel_config(backend="ray"):
        with pytest.raises(ClusterError, match=r"1 of 1 Ray nodes cannot run this textwin "
                                               r"0.0-elsewhere \(node .* \(\w{8}\): 0\."):
            est.fit(*cluster_data(labels=3))
    assert sent["put"] == sent["tasks"] == [] and not hasattr(est, "coef_")

def test_a_node_without_cpus_runs_no_task_and_is_not_asked_for_textwin(local_ray, monkeypatch):
    # a head started with --num-cpus=0 (a common layout): nothing of textwin's runs there
    real = ray.nodes
    head = {"NodeID": "ab" * 28, "Alive": True, "Resources": {"memory": 1e9},
            "NodeManagerHostname": "head"}
    monkeypatch.setattr(ray, "nodes", lambda: real() + [head])
    X, Y = cluster_data(labels=3, seed=10)
    with joblib.parallel_config(backend="ray"):
        est = DualSVM(lam=1e-3, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(est.coef_, DualSVM(lam=1e-3, random_state=0).fit(X, Y).coef_)

def _fails(shipment, k):
    if k == 2:
        raise ValueError("problem 2 is bad")
    return k


def _dies(shipment, k, *extra):
    os._exit(1)


def test_a_task_error_is_raised_as_itself_and_a_dying_task_is_a_cluster_error(local_ray):
    with joblib.parallel_config(backend="ray"):
        cluster = RayCluster.current()
    with pytest.raises(ValueError, match="problem 2 is bad"):
        map_on_cluster(cluster, _fails, {"x": np.zeros(3)}, 4)
    with pytest.raises(ClusterError, match=r"Ray workers running task 0 died too often.*"
                                           r"nothing was fitted"):
        map_on_cluster(cluster, _dies, {"x": np.zeros(3)}, 1)


def test_an_old_ray_is_one_clear_error(local_ray, monkeypatch):
    monkeypatch.setattr(ray, "__version__", "2.3.1")
    with joblib.parallel_config(backend="ray"):
        with pytest.raises(ClusterError, match=r"needs ray >= 2\.9; this one is 2\.3\.1: "
                                               r"pip install -U \"ray\[client\]>=2\.9\""):
            DualSVM().fit(*cluster_data(labels=3))


def test_a_fit_that_fails_on_ray_keeps_the_old_model(local_ray, monkeypatch):
    import textwin._distributed as D

    X, Y = cluster_data(labels=3, seed=5)
    est = DualSVM(lam=1e-3, random_state=0).fit(X, Y)
    coef = est.coef_.copy()
    real = D.RayCluster.submit

    def submit_dying_third(self, task, ref, k, extra, key):
        return real(self, _dies if k == 2 else task, ref, k, extra, key)

    monkeypatch.setattr(D.RayCluster, "submit", submit_dying_third)
    X2, Y2 = cluster_data(labels=5, seed=6)
    with joblib.parallel_config(backend="ray"):
        with pytest.raises(ClusterError, match="died too often"):
            est.fit(X2, Y2)
    np.testing.assert_array_equal(est.coef_, coef)  # the earlier model, whole



@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_cross_validation_whose_refit_fails_on_ray_keeps_the_old_model(local_ray, monkeypatch):
    import textwin._distributed as D

    params = dict(lams=3, lam_min_ratio=1e-2, cv=2, early_stopping=False, random_state=0)
    X, Y = cluster_data(n=200, labels=3, seed=7)
    est = DualGaussSeidelClassifierCV(**params).fit(X, Y)
    before = {a: getattr(est, a).copy() for a in ("lams_", "lam_", "cv_scores_", "coef_")}
    real = D.RayCluster.submit

    def submit_dying_refit(self, task, ref, k, extra, key):  # the refit of problem 0 dies
        dies = key.startswith("textwin-refit") and k == 0
        return real(self, _dies if dies else task, ref, k, extra, key)

    monkeypatch.setattr(D.RayCluster, "submit", submit_dying_refit)
    X2, Y2 = cluster_data(n=240, labels=3, seed=8)
    with joblib.parallel_config(backend="ray"):
        with pytest.raises(ClusterError, match="died too often"):
            est.fit(X2, Y2)
    for attr, value in before.items():  # the earlier model, whole: not the new choice of lam
        np.testing.assert_array_equal(getattr(est, attr), value, err_msg=attr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
