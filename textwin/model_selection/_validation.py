"""Out-of-fold path scores: the warm-started paths of every (fold, binary problem),
each point scored on the held-out fold, in the thread pool or on a Dask or Ray cluster
(docs/scaling.md).

:class:`FoldPaths` runs them a few lams at a time, continuing each path where it
stopped; :class:`Scoring` says how a held-out fold is scored (textwin's scorings of the
model's decision, the micro break-even point, or a scikit-learn scorer).
"""
import threading
import warnings

import numpy as np
from sklearn.metrics import check_scoring, get_scorer

from textwin._binary import solve_binary_problem
from textwin._distributed import Scattered, active_cluster, map_on_cluster
from textwin._ovr import as_canonical_csr, map_problems
from textwin.linear import DualGaussSeidelClassifier
from textwin.metrics import breakeven_points
from textwin.model_selection._choice import SCORINGS, check_choice
from textwin.model_selection._paths import solve_path
from textwin.model_selection._split import fold_of

__all__ = ["Scoring", "FoldPaths", "MICRO_BEP", "FLOOR", "FEW_POSITIVES", "refit_problem",
           "refit_task", "fold_matrices", "held_out_path", "held_out_path_task"]

# the default scorer of multi-label targets: micro-averaged break-even point
MICRO_BEP = "micro_breakeven_point"

# ---------------------------------------------------------------------------
# Scoring a path point
# ---------------------------------------------------------------------------


def _snapshot(params, coef, intercept, classes, mode):
    """A fitted DualGaussSeidelClassifier holding given weights (for scikit-learn scorers)."""
    est = DualGaussSeidelClassifier(**params)
    est.coef_, est.intercept_ = coef, intercept
    est.classes_, est._label_mode, est._sparse_labels = classes, mode, False
    est.n_features_in_ = coef.shape[1]
    return est


class Scoring:
    """How a held-out fold is scored: micro break-even point or a scikit-learn scorer."""

    def __init__(self, scoring, estimator):
        self.name = scoring
        task = estimator._label_mode
        # textwin's own scorings, of the decision the model makes (textwin._lam_choice)
        self.native = scoring is None or (isinstance(scoring, str) and scoring in SCORINGS)
        self.rule = estimator.thresholds or "zero"
        if self.native:
            self.name = check_choice(task, scoring, self.rule, type(estimator).__name__)
        elif self.rule != "zero":
            raise ValueError(f"{type(estimator).__name__}: thresholds={estimator.thresholds!r} "
                             f"is scored by textwin's own scorings; use scoring=None or one "
                             f"of {', '.join(SCORINGS)}.")
        self.bep = self.name == MICRO_BEP
        self.scorer = None
        if not self.bep and not self.native:
            self.scorer = (check_scoring(estimator, scoring=scoring) if callable(self.name)
                           else get_scorer(self.name))
        self.params = {k: v for k, v in estimator.get_params(deep=False).items()
                       if k in DualGaussSeidelClassifier().get_params(deep=False)}

    def binary_counts(self, y_true, scores):
        """(TP at the break-even cutoff, positives) of one binary problem on one fold."""
        pos = y_true > 0
        npos = int(pos.sum())
        if npos == 0:
            return 0.0, 0
        return float(breakeven_points(pos, scores, zero_division=0.0)[0]) * npos, npos

    def score(self, X, y, coef, intercept, classes, mode):
        """A scorer's value of the model (coef, intercept) on (X, y); NaN if undefined."""
        est = _snapshot(self.params, coef, intercept, classes, mode)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # undefined metrics: NaN, reported by the caller
                value = float(self.scorer(est, X, y))
        except ValueError:  # e.g. ROC AUC of a fold with one class
            return np.nan
        return value if np.isfinite(value) else np.nan


# ---------------------------------------------------------------------------
# Paths on every fold and problem
# ---------------------------------------------------------------------------

FLOOR = 1e-8  # an automatic grid extends down to lam_max * FLOOR at most
# Below this many held-out positives (all folds together), a label column's break-even
# point moves in steps of a tenth or more: too coarse to tell lams apart
FEW_POSITIVES = 10


def fold_matrices(problems, train, test, X_train=None):
    """A fold's training CSR (cut here unless given), its kernel views (shared by its
    problems) and held-out rows."""
    if X_train is None:
        X_train = as_canonical_csr(problems.X[train])
    return problems.views(X_train), X_train, problems.X_user[test]


def held_out_path(problems, scoring, shared, fold, matrices, k, lams, start):
    """Problem k's path on one fold along ``lams``, each point scored on the held-out rows.

    Returns ``(points, state)``: per lam, ``(epochs, constant, converged,
    gap, value)`` with ``value`` the held-out scores (lam shared), the
    break-even counts ``(tp, npos)`` or the scorer's value; ``state``: where
    the path stopped (see :func:`solve_path`).
    """
    train, test = fold
    views, X_train, X_test = matrices
    theta, d = problems.settings.theta, problems.d_user
    y_k, weight = problems.rows(k, train)
    y_test = problems.labels.column(k)[test]
    points = []

    def record(l, out, alpha, bias):
        scores = X_test @ out["w"][:d] + (bias - theta)
        if shared:
            value = scores
        elif scoring.bep:
            value = scoring.binary_counts(y_test, scores)
        else:
            value = scoring.score(X_test, (y_test > 0).astype(int), out["w"][None, :d],
                                  np.array([bias - theta]), np.array([0, 1]), "binary")
        points.append((out["n_epochs"], out["constant"], out["converged"], out["gap"], value))

    state = solve_path(problems, views, X_train, y_k, weight, lams, int(problems.seeds[k]),
                        record, start)
    return points, state


def held_out_path_task(shipment, i, f, k, start, lams):
    """Path (fold f, problem k) along ``lams``, run as a task on a cluster's worker.

    ``shipment.payload`` (on this worker once per fit): ``problems``,
    ``scoring``, ``shared`` and ``folds``, and on Ray ``fold_X``, the folds'
    training matrices (cut once by the client and mapped from the object
    store, rather than cut again by every worker process); a fold's matrices
    are made once per worker, shared by its tasks at every step. ``start``:
    where the path stopped before.
    """
    P = shipment.payload
    given = P.get("fold_X")
    matrices = shipment.cached(("fold", f), lambda P: fold_matrices(
        P["problems"], *P["folds"][f], X_train=None if given is None else given[f]))
    return held_out_path(P["problems"], P["scoring"], P["shared"], P["folds"][f], matrices, k,
                          lams, start)


def refit_problem(problems, views, k, lam, alpha):
    """Problem k on all the data at ``lam``, from alpha = 0 (``alpha`` receives the solution)."""
    y, weight = problems.rows(k)
    alpha[:] = 0.0
    return solve_binary_problem(views[0], y, weight, alpha, problems.at(lam, problems.n),
                                int(problems.seeds[k]), X_square=views[1])


def refit_task(shipment, k, lam):
    """The cross-validation's refit of problem k, run as a task on a Dask worker."""
    problems = shipment.payload["problems"]
    views = shipment.cached("all", lambda P: problems.views(problems.X))
    alpha = np.empty(problems.n)
    out = refit_problem(problems, views, k, lam, alpha)
    out["alpha"] = alpha
    return out


class FoldPaths:
    """The warm-started paths of every (fold, binary problem), scored on the held-out fold.

    :meth:`extend` solves the next lams of every path in the thread pool (on
    joblib's Dask cluster, as tasks: docs/scaling.md), continuing from where
    each stopped; the scores and epochs grow by as many columns. On a
    cluster, the data goes to the workers once for every step (``data``,
    released by :meth:`close`).
    """

    def __init__(self, estimator, problems, scoring, folds):
        self.estimator, self.problems, self.scoring, self.folds = estimator, problems, scoring, folds
        # the held-out scores are kept where the choice reads them: a shared lam, or
        # textwin's scorings of the model's decision (every problem's scores at once)
        self.shared = problems.mode != "multilabel" or scoring.native
        F, K = len(folds), problems.n_problems
        self.n_tasks = F * K
        self.lams = np.zeros(0)
        self.path_iter = np.zeros((F, K, 0), dtype=int)
        self.held = [np.zeros((test.size, K, 0)) for _, test in folds]  # shared: scores
        self.col_scores, self.tp = np.zeros((K, F, 0)), np.zeros((K, F, 0))
        self.npos = np.zeros((K, F))
        self.solved = np.zeros((K, 0), dtype=bool)  # the problems' paths reached that lam
        self.fold_scores = np.zeros((F, 0))  # shared lam: the whole model's score per fold
        self.failures, self.constant = [], set()
        self.truth = np.column_stack([problems.labels.column(k) > 0 for k in range(K)])
        self.fold_of = fold_of(folds, problems.n)
        self.cluster = active_cluster()
        if self.cluster is None:
            self.data, self.matrices = None, [fold_matrices(problems, *fold) for fold in folds]
        else:
            self.matrices = None
            payload = dict(problems=problems, scoring=scoring, shared=self.shared, folds=folds)
            if self.cluster.read_per_task:  # Ray: one copy of each fold per machine
                payload["fold_X"] = [as_canonical_csr(problems.X[train]) for train, _ in folds]
            self.data = Scattered(self.cluster, payload, "textwin-cv")
        self.state = [None] * self.n_tasks  # (alpha, sigma) where each path stopped

    def extend(self, lams, bar, active=None):
        """Solve ``lams`` on every path of the ``active`` problems (default: all);
        the others' scores at these lams are NaN and their paths end."""
        problems, scoring, shared = self.problems, self.scoring, self.shared
        F, K, L = len(self.folds), problems.n_problems, lams.size
        all_lams = np.concatenate([self.lams, lams])
        path_iter = np.zeros((F, K, L), dtype=int)
        held = [np.empty((test.size, K, L)) for _, test in self.folds]
        col_scores, tp = np.full((K, F, L), np.nan), np.zeros((K, F, L))
        lock = threading.Lock()

        tasks = [j for j in range(self.n_tasks) if active is None or active[j % K]]

        def start(j):
            if self.state[j] is None:
                return None
            alpha, sigma = self.state[j]
            return alpha * (lams[0] / self.lams[-1]), sigma

        def store(i, result):
            j = tasks[i]
            f, k = divmod(j, K)
            points, self.state[j] = result
            for l, (epochs, constant, converged, gap, value) in enumerate(points):
                path_iter[f, k, l] = epochs
                if constant:
                    self.constant.add(k)
                elif not converged:
                    self.failures.append((lams[l], k, gap))
                if shared:
                    held[f][:, k, l] = value
                elif scoring.bep:
                    tp[k, f, l], self.npos[k, f] = value
                    if self.npos[k, f]:
                        col_scores[k, f, l] = tp[k, f, l] / self.npos[k, f]
                else:
                    col_scores[k, f, l] = value
            with lock:
                bar.update(L)

        if self.cluster is None:  # threads over each fold's one matrix
            def task(i):
                f, k = divmod(tasks[i], K)
                store(i, held_out_path(problems, scoring, shared, self.folds[f],
                                        self.matrices[f], k, lams, start(tasks[i])))

            map_problems(task, len(tasks), self.estimator.n_jobs)
        else:  # one task per path on joblib's Dask or Ray cluster (docs/scaling.md)
            map_on_cluster(self.cluster, held_out_path_task, self.data, len(tasks),
                           extra=lambda i: (*divmod(tasks[i], K), start(tasks[i]), lams),
                           on_result=store,
                           describe=lambda i: "fold %d's path of problem %d" % divmod(tasks[i], K))
        self.lams = all_lams
        self.path_iter = np.concatenate([self.path_iter, path_iter], axis=2)
        self.held = [np.concatenate([a, b], axis=2) for a, b in zip(self.held, held)]
        self.col_scores = np.concatenate([self.col_scores, col_scores], axis=2)
        self.tp = np.concatenate([self.tp, tp], axis=2)
        reached = np.ones(K, dtype=bool) if active is None else active.copy()
        self.solved = np.concatenate([self.solved, np.repeat(reached[:, None], L, axis=1)], axis=1)

    def close(self):
        """Release the data on the cluster's workers."""
        if self.data is not None:
            self.data.release()
            self.data = None

