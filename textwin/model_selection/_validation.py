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

from textwin._binary import solve_binary_problem
from textwin._distributed import Scattered, active_cluster, map_on_cluster
from textwin._memory import release_free_memory
from textwin._nb_scaling import nb_ratios
from textwin._ovr import as_canonical_csr, map_problems
from textwin.linear import DualGaussSeidelClassifier
from textwin.metrics import breakeven_points
from textwin.tasks import ABSENT_SCORE, problem_positives, problem_weights
from textwin.model_selection._choice import SCORINGS, check_choice
from textwin.model_selection._paths import PathStop, Problems, solve_path

__all__ = ["Scoring", "FoldPaths", "RowsFold", "MatrixFold", "MICRO_BEP", "FLOOR",
           "FEW_POSITIVES", "matrix_folds", "refit_problem", "refit_task", "held_out_path", "held_out_path_task"]

# the default scorer of multi-label targets: micro-averaged break-even point
MICRO_BEP = "micro_breakeven_point"

# ---------------------------------------------------------------------------
# Scoring a path point
# ---------------------------------------------------------------------------


class Scoring:
    """How a held-out fold is scored: micro break-even point or a scikit-learn scorer."""

    def __init__(self, scoring, estimator):
        self.name = scoring
        task = estimator.task_
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
            # scikit-learn's scorers only when asked for: sklearn.metrics is 15 MiB of
            # imports (textwin's own scorings do without it)
            from sklearn.metrics import check_scoring, get_scorer

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
        est = DualGaussSeidelClassifier.holding(coef, intercept, classes, mode, **self.params)
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


class RowsFold:
    """A fold of one prepared set of problems: the training rows ``train`` of
    ``problems`` (a :class:`~textwin.model_selection._paths.Problems`) and its held-out
    rows ``test``, scored by the models of every problem (columns ``0..K-1``).
    ``X_train``: the training rows cut already (on Ray, cut once by the client).

    A fold's matrices are made in two steps, each shared by the tasks that read them:
    :meth:`base` (here the training rows; a :class:`MatrixFold`'s two matrices, which
    its ``key`` names) and :meth:`build` on it (the problems and the kernels' views)."""

    cache = True  # its built matrices serve every problem of the fold

    def __init__(self, problems, train, test):
        self.problems, self.train, self.test = problems, train, test
        self.columns = np.arange(problems.n_problems)
        self.X_train = None
        self.key = id(self)

    def cut(self):
        """Cut the training rows here (on the client), once, for the workers to read."""
        self.X_train = as_canonical_csr(self.problems.X[self.train])

    def lams(self, lams):
        return lams

    def y_test(self, k):
        return self.problems.labels.column(k)[self.test]

    def base(self):
        """The training rows, as canonical CSR."""
        if self.X_train is not None:
            return self.X_train
        return as_canonical_csr(self.problems.X[self.train])

    def build(self, base=None):
        """``(problems, train, matrices)``: the matrices are the training CSR's kernel
        views, the training CSR and the held-out rows."""
        X_train = self.base() if base is None else base
        return (self.problems, self.train,
                (self.problems.views(X_train), X_train, self.problems.X_user[self.test]))


class MatrixFold:
    """A fold given by its own matrices: ``matrices[p]``, the training matrix ``A`` (in
    the fold's own features, ``n_train`` rows) and the held-out matrix ``B`` of the rows
    ``test`` (``matrices``: a list of pairs, or :class:`~textwin.text.FoldMatrices`,
    which builds them when asked), labels ``y`` and the
    :class:`~textwin.DualGaussSeidelClassifier` parameters ``params``. Its problems fill
    the output ``columns``. ``nb_positive``: the naive Bayes scaling of Wang & Manning by
    those positives, the solver's per-feature scale on ``A`` (docs/mathematics.md §5: no
    scaled copy of either matrix, the model scores ``B`` as it is; its problems are made
    again for each task and step rather than kept, a scan of ``A`` and its ratios). A
    ``lam`` is per training text (``lam * n``), as a search over folds of other sizes
    gives it. The folds of one
    ``p`` (one per class with the scaling) share its matrices (``key``)."""

    def __init__(self, matrices, p, n_train, y, params, test, columns, nb_positive=None):
        self.matrices, self.p, self.n_train = matrices, p, n_train
        self.y, self.params = y, params
        self.test, self.columns, self.nb_positive = test, np.asarray(columns), nb_positive
        self.cache = nb_positive is None
        self.key = (id(matrices), p)

    def cut(self):
        pass

    def lams(self, lam_n):
        return lam_n / self.n_train

    def base(self):
        """``(A, B)``, built now if ``matrices`` builds them."""
        return self.matrices[self.p]

    def build(self, base=None):
        A, B = self.base() if base is None else base
        r = None if self.nb_positive is None else nb_ratios(A, self.nb_positive)
        problems = Problems(DualGaussSeidelClassifier(**self.params), A, self.y, None,
                            column_scale=r)
        if problems.X is not problems.X_user:  # a copy with the constant feature is solved
            problems.X_user = None
        return problems, None, (problems.own_views(), problems.X, as_canonical_csr(B))


def held_out_path(fold, built, scoring, shared, k, lams, start):
    """Problem k's path on one fold along ``lams``, each point scored on the held-out rows.

    ``built``: the fold's ``build()``. Returns ``(points, state)``: per lam, ``(epochs,
    constant, converged, gap, value)`` with ``value`` the held-out scores (lam shared),
    the break-even counts ``(tp, npos)`` or the scorer's value; ``state``: where the
    path stopped (see :func:`~textwin.model_selection._paths.solve_path`).
    """
    problems, train, (views, X_train, X_test) = built
    theta, d = problems.settings.theta, problems.d_user
    y_k, weight = problems.rows(k, train)
    y_test = None if shared else fold.y_test(k)
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

    state = solve_path(problems, views, X_train, y_k, weight, fold.lams(lams),
                       int(problems.seeds[k]), record, start)
    return points, state


def held_out_path_task(shipment, i, p, k, start, lams):
    """Path (fold p, problem k) along ``lams``, run as a task on a cluster's worker.

    ``shipment.payload`` (on this worker once per search): ``folds``, ``scoring`` and
    ``shared``. A fold's matrices are made once per worker, shared by its tasks at every
    step (a fold that keeps none builds its problems for each task, on its shared
    ``base``). ``start``: where the path stopped before.
    """
    P = shipment.payload
    fold = P["folds"][p]
    built = (shipment.cached(("fold", p), lambda P: fold.build()) if fold.cache
             else fold.build(shipment.cached(("base", fold.key), lambda P: fold.base())))
    return held_out_path(fold, built, P["scoring"], P["shared"], k, lams, start)


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


def matrix_folds(matrices, Y, task, folds, nb, scores, params):
    """The folds' binary problems as the engine solves them, from each fold's training
    and held-out matrices (``matrices[p]``: a list of pairs, or
    :class:`~textwin.text.FoldMatrices`), the labels ``Y`` (an indicator: texts x
    classes) and the classifier's ``params`` (a :class:`MatrixFold` each: all the problems
    of a fold on its matrices, or with naive Bayes scaling each problem on them with its own
    ratios); a problem without one (its class in every training text of the
    fold or in none) has a constant score, written into ``scores`` here: 1 for a
    class in every text, else -1, or -inf for one class of several (never the
    argmax: a fold whose training part lacks a class never predicts it). A
    ``class_weight`` given as a list (a weight per class) is keyed for each part's
    problems (:func:`textwin.tasks.problem_weights`)."""
    absent = ABSENT_SCORE if task == "multiclass" else -1.0
    parts = []
    weight = params.get("class_weight")

    def fold_part(matrices, p, n_train, y, params, test, cols, **kw):
        if isinstance(weight, list):  # per class: keyed as this part's problems read labels
            params = dict(params, class_weight=problem_weights(weight, cols, task, nb))
        return MatrixFold(matrices, p, n_train, y, params, test, cols, **kw)

    for p, (train, test) in enumerate(folds):
        train = np.asarray(train)
        Yf = Y[train]
        if nb:
            for k, y in enumerate(problem_positives(Yf, task).T):
                if y.all() or not y.any():  # no problem to solve in this fold
                    scores[test, k] = 1.0 if y.all() else absent
                else:
                    parts.append(fold_part(matrices, p, train.size, y.astype(int), params,
                                           test, [k], nb_positive=y))
            continue
        if task == "multilabel":
            parts.append(fold_part(matrices, p, train.size, Yf, params, test,
                                   np.arange(Y.shape[1])))
            continue
        present = Yf.any(axis=0)
        if present.all():
            parts.append(fold_part(matrices, p, train.size, np.argmax(Yf, axis=1), params, test,
                                   np.arange(scores.shape[1])))
        elif task == "binary":  # the class it has always wins
            scores[test] = 1.0 if present[1] else -1.0
        else:
            scores[test] = ABSENT_SCORE
            if present.sum() == 1:
                scores[np.ix_(test, np.flatnonzero(present))] = 1.0
            else:
                parts.append(fold_part(matrices, p, train.size, Yf[:, present], params, test,
                                       np.flatnonzero(present)))
    return parts


class FoldPaths:
    """The warm-started paths of every (fold, binary problem), scored on the held-out fold:
    the one engine of out-of-fold path scores, for every search.

    ``folds``: :class:`RowsFold` or :class:`MatrixFold` objects; their problems fill
    ``n_columns`` output columns over ``n_rows`` samples. :meth:`extend` solves the next
    lams of every path in the thread pool (on joblib's Dask or Ray cluster, as tasks:
    docs/scaling.md), continuing from where each stopped; the scores and epochs grow by
    as many columns. On a cluster, the folds go to the workers once for every step
    (``data``, released by :meth:`close`), with ``payload``, what else the workers will
    need (the refit's problems). ``shared``: keep the held-out scores (the
    choice reads them all at once); otherwise each point's ``scoring`` of its column.
    ``out`` (``n_rows`` x ``n_columns`` x the lams to come): with ``shared``, where the
    held-out scores go as they come, instead of kept here (:meth:`out_of_fold`'s).

    In threads, a fold's matrices are built when its first task of a step starts and
    dropped when its last one ends (the tasks run fold after fold): a step holds the
    matrices of the folds being solved, never of every fold at once (each step builds
    them again, a small part of its solves). With ``one_fold_at_a_time``, the threads
    share one fold's tasks and the next fold's start when they are all done: one fold's
    matrices at a time, for folds large enough that two of them would be the search's
    peak (two threads starting a second fold while the first one's last problem runs).
    """

    def __init__(self, folds, scoring, shared, n_rows, n_columns, n_jobs, label="textwin-cv",
                 payload=None, out=None, one_fold_at_a_time=False):
        self.folds, self.scoring, self.shared, self.n_jobs = folds, scoring, shared, n_jobs
        self.out, self.one_fold_at_a_time = out, one_fold_at_a_time
        self.n_rows, self.n_columns = n_rows, n_columns
        F, K = len(folds), n_columns
        self.tasks = [(p, k) for p, fold in enumerate(folds) for k in range(fold.columns.size)]
        self.n_tasks = len(self.tasks)
        self.lams = np.zeros(0)
        self.path_iter = np.zeros((F, K, 0), dtype=int)
        self.held = [np.zeros((fold.test.size, fold.columns.size, 0)) for fold in folds]
        self.col_scores, self.tp = np.zeros((K, F, 0)), np.zeros((K, F, 0))
        self.npos = np.zeros((K, F))
        self.solved = np.zeros((K, 0), dtype=bool)  # the columns' paths reached that lam
        self.fold_scores = np.zeros((F, 0))  # shared lam: the whole model's score per fold
        self.failures, self.constant = [], set()
        self.state = [None] * self.n_tasks  # a PathStop: where each path stopped
        self.cluster = active_cluster()
        self.data, self._built, self._bases = None, {}, {}
        self._lock = threading.Lock()
        self._locks = {fold.key: threading.Lock() for fold in folds}
        if self.cluster is not None:
            if self.cluster.read_per_task:  # Ray: one copy of each fold per machine
                for fold in folds:
                    fold.cut()
            payload = dict(payload or {}, folds=folds, scoring=scoring, shared=shared)
            self.data = Scattered(self.cluster, payload, label)

    def _build(self, p):
        """Fold p's problems and matrices: made once a step when the fold keeps them, on
        its matrices (``base``) made once a step for every fold that shares them."""
        fold = self.folds[p]
        with self._locks[fold.key]:
            if fold.cache:  # the built problems hold what they read of the base
                if p not in self._built:
                    self._built[p] = fold.build(fold.base())
                return self._built[p]
            if fold.key not in self._bases:
                self._bases[fold.key] = fold.base()
            base = self._bases[fold.key]
        return fold.build(base)

    def _release(self, p, left):
        """Fold p's task ended: drop its matrices once no task of this step needs them
        (``left``: the tasks left per key, counted down here)."""
        key = self.folds[p].key
        with self._lock:
            left[key] -= 1
            done = left[key] == 0
        if done:
            with self._locks[key]:
                self._bases.pop(key, None)
                for q, fold in enumerate(self.folds):
                    if fold.key == key:
                        self._built.pop(q, None)
            release_free_memory()  # the next fold's matrices are built on a trimmed heap

    def extend(self, lams, bar=None, active=None):
        """Solve ``lams`` on every path of the ``active`` columns (default: all); the
        others' scores at these lams are NaN and their paths end. Returns how many folds
        had a point that stopped before ``tol``."""
        scoring, shared = self.scoring, self.shared
        F, K, L = len(self.folds), self.n_columns, lams.size
        all_lams = np.concatenate([self.lams, lams])
        path_iter = np.zeros((F, K, L), dtype=int)
        direct = self.out is not None
        held = [np.empty((fold.test.size, fold.columns.size, 0 if direct else L))
                for fold in self.folds]
        before = self.lams.size
        col_scores, tp = np.full((K, F, L), np.nan), np.zeros((K, F, L))
        lock = threading.Lock()
        failed = set()

        tasks = [j for j, (p, k) in enumerate(self.tasks)
                 if active is None or active[self.folds[p].columns[k]]]

        def start(j):
            if self.state[j] is None:
                return None
            stop = self.state[j]
            fold = self.folds[self.tasks[j][0]]
            return stop.alpha() * (fold.lams(lams)[0] / fold.lams(self.lams)[-1]), stop.sigma

        def store(i, result):
            j = tasks[i]
            p, k = self.tasks[j]
            c = self.folds[p].columns[k]
            points, self.state[j] = result[0], PathStop(*result[1])
            for l, (epochs, constant, converged, gap, value) in enumerate(points):
                path_iter[p, c, l] = epochs
                if constant:
                    self.constant.add(c)
                elif not converged:
                    self.failures.append((lams[l], c, gap))
                    failed.add(p)
                if shared and direct:
                    self.out[self.folds[p].test, c, before + l] = value
                elif shared:
                    held[p][:, k, l] = value
                elif scoring.bep:
                    tp[c, p, l], self.npos[c, p] = value
                    if self.npos[c, p]:
                        col_scores[c, p, l] = tp[c, p, l] / self.npos[c, p]
                else:
                    col_scores[c, p, l] = value
            if bar is not None:
                with lock:
                    bar.update(L)

        if self.cluster is None:  # threads over each fold's one matrix
            left = {}
            for j in tasks:
                key = self.folds[self.tasks[j][0]].key
                left[key] = left.get(key, 0) + 1

            def task(i):
                p, k = self.tasks[tasks[i]]
                try:
                    store(i, held_out_path(self.folds[p], self._build(p), scoring, shared, k,
                                           lams, start(tasks[i])))
                finally:
                    self._release(p, left)

            batches = [range(len(tasks))]
            if self.one_fold_at_a_time:
                keys = [self.folds[self.tasks[j][0]].key for j in tasks]
                batches = [[i for i, key in enumerate(keys) if key == one]
                           for one in dict.fromkeys(keys)]
            for batch in batches:
                map_problems(lambda b, batch=batch: task(batch[b]), len(batch), self.n_jobs)
        else:  # one task per path on joblib's Dask or Ray cluster (docs/scaling.md)
            map_on_cluster(self.cluster, held_out_path_task, self.data, len(tasks),
                           extra=lambda i: (*self.tasks[tasks[i]], start(tasks[i]), lams),
                           on_result=store,
                           describe=lambda i: "fold %d's path of problem %d" % self.tasks[tasks[i]])
        self.lams = all_lams
        self.path_iter = np.concatenate([self.path_iter, path_iter], axis=2)
        self.held = [np.concatenate([a, b], axis=2) for a, b in zip(self.held, held)]
        self.col_scores = np.concatenate([self.col_scores, col_scores], axis=2)
        self.tp = np.concatenate([self.tp, tp], axis=2)
        reached = np.ones(K, dtype=bool) if active is None else active.copy()
        self.solved = np.concatenate([self.solved, np.repeat(reached[:, None], L, axis=1)], axis=1)
        return len(failed)

    def out_of_fold(self, lams, out=None):
        """(n_rows, n_columns, lams) held-out scores at the lams ``lams`` (a slice): each
        sample's by the model of its fold, written into ``out`` (default: zeros) where
        some fold's problem scores it (with the engine's own ``out``: a view of it)."""
        if self.out is not None:
            return self.out[:, :, lams]
        L = len(range(*lams.indices(self.lams.size)))
        if out is None:
            out = np.zeros((self.n_rows, self.n_columns, L))
        for fold, held in zip(self.folds, self.held):
            out[fold.test[:, None], fold.columns[None, :]] = held[:, :, lams]
        return out

    def close(self):
        """Release the data on the cluster's workers and the folds' matrices."""
        self._built, self._bases = {}, {}
        if self.data is not None:
            self.data.release()
            self.data = None
