"""Mistake-driven online baselines: Perceptron and Winnows (docs/mathematics.md §9).

=================  =============================================================
class              paper name
=================  =============================================================
Perceptron         Perceptron (Reuters Table 2); "Perceptron" of the
                   *Regularized Winnow* paper's section 4 with ``eta=0.01``,
                   ``n_epochs=200``, ``renormalize=False``
Winnow             normalized positive Winnow (Reuters Table 1) by default;
                   any of the four Winnows through ``balanced``/``normalized``
BalancedWinnow     UWin (``normalized=False``) and NWin (``normalized=True``)
                   of the *Regularized Winnow* paper's section 4
=================  =============================================================

Each binary problem (one per class, or per label column of a multi-label y) is
trained by a Cython loop without the GIL over one shared CSR matrix, one pass
per epoch; problems run in threads with ``n_jobs``. With ``shuffle=True`` (the
default, as scikit-learn's ``Perceptron``) every epoch visits the examples in a
fresh random order drawn from ``random_state``, the same order for every
problem (the rows are permuted once per epoch and the permuted matrix shared);
with ``shuffle=False`` they are visited in data order, as in the papers, and
the result depends only on the data and its order. Data sorted by class (as a
folder per category reads) stalls a mistake-driven learner in data order.
``partial_fit`` makes one pass, shuffled in the same way.
"""
import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import type_of_target

from textwin._kernels import _online
from textwin._ovr import (
    MAX_EPOCHS,
    OneVsRestLinearMixin,
    append_constant,
    check_positive,
    check_sample_weight,
    effective_n_jobs,
    map_problems,
    problem_seeds,
    store_params,
)

__all__ = ["Perceptron", "Winnow", "BalancedWinnow"]


class _OnlineBase(OneVsRestLinearMixin, ClassifierMixin, BaseEstimator):
    """fit / partial_fit over binary problems; subclasses define the weights and the kernel call."""

    def _check_params(self):
        name = type(self).__name__
        check_positive(name, "eta", self.eta)
        if (not isinstance(self.n_epochs, (int, np.integer))
                or not 1 <= self.n_epochs <= MAX_EPOCHS):  # the kernel counts in a C int
            raise ValueError(f"{name}: n_epochs must be an integer in [1, {MAX_EPOCHS}], "
                             f"got {self.n_epochs!r}.")
        # before any data is read or weight allocated, as DualGaussSeidelClassifier.fit
        try:
            effective_n_jobs(self.n_jobs)
        except ValueError as exc:
            raise ValueError(f"{name}: {exc}") from None

    def fit(self, X, y, sample_weight=None):
        """Train from scratch for ``n_epochs`` passes (in a random order each, or in
        data order with ``shuffle=False``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_labels)
            Class labels, or a multi-label 0/1 indicator matrix.
        sample_weight : array-like of shape (n_samples,), default=None
            A mistake on example ``i`` moves the weights ``s_i`` times as far
            (the learning rate times ``s_i``); a weight of 0 leaves the example
            out. Not the same as repeating the example, which is visited again.

        Returns
        -------
        self : object
        """
        self._check_params()
        X = self._validate_X(X, reset=True)
        sw = self._sample_weight(sample_weight, X.shape[0])
        Y = self._encode_targets(y, X.shape[0])
        if self.fit_intercept:
            X = append_constant(X)
        self._init_weights(Y.shape[1], X.shape[1])
        self._weights_have_bias = bool(self.fit_intercept)
        self.mistakes_ = [np.zeros(0, dtype=np.int32) for _ in range(Y.shape[1])]
        self._train(X, Y, self.n_epochs, sw)
        return self

    def _sample_weight(self, sample_weight, n):
        """None (every weight 1: the kernels' unweighted loop), or checked weights."""
        if sample_weight is None:
            return None
        try:
            return check_sample_weight(sample_weight, n)
        except ValueError as exc:
            raise ValueError(f"{type(self).__name__}: {exc}") from None

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One pass over (X, y), continuing from the current weights.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_labels)
        classes : array-like of shape (n_classes,), default=None
            Every class that will ever occur; required on the first call for
            class labels (not for a multi-label indicator y, whose columns are
            the labels).
        sample_weight : array-like of shape (n_samples,), default=None
            As in :meth:`fit`.

        Returns
        -------
        self : object
        """
        first = not hasattr(self, "coef_")
        self._check_params()  # every call: set_params may have changed them
        if first:
            X = self._validate_X(X, reset=True)
            Yk = self._encode_partial(y, X.shape[0], classes)
            if self.fit_intercept:
                X = append_constant(X)
            self._init_weights(Yk.shape[1], X.shape[1])
            self._weights_have_bias = bool(self.fit_intercept)
            self.mistakes_ = [np.zeros(0, dtype=np.int32) for _ in range(Yk.shape[1])]
        else:
            # the weights have one column per feature (+1 for the constant one)
            # since the first call: another width would misaddress the kernel
            started = self._weights_have_bias
            if bool(self.fit_intercept) != started:
                raise ValueError(
                    f"{type(self).__name__}: fit_intercept is {self.fit_intercept} but "
                    f"partial_fit started with fit_intercept={started}; set it back, or "
                    f"call fit (or partial_fit on a fresh estimator) to start over."
                )
            X = self._validate_X(X, reset=False)
            Yk = self._encode_partial(y, X.shape[0], None)
            if self.fit_intercept:
                X = append_constant(X)
        self._train(X, Yk, 1, self._sample_weight(sample_weight, X.shape[0]))
        return self

    def _encode_partial(self, y, n, classes):
        """Y (n, n_problems) in {-1, +1} against the classes fixed by the first call."""
        first = not hasattr(self, "classes_")
        if type_of_target(y, input_name="y") == "multilabel-indicator":
            if first:
                return self._encode_targets(y, n)
            Y = y.toarray() if sp.issparse(y) else np.asarray(y)
            if self.task_ != "multilabel" or Y.shape[1] != self.classes_.size:
                raise ValueError(
                    f"partial_fit got a {Y.shape[1]}-column label indicator after being "
                    f"started on {self.task_} labels {self.classes_.tolist()}."
                )
            return np.where(Y > 0, 1.0, -1.0)
        y = np.asarray(y).ravel()
        if first:
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit (every "
                    "class that will ever occur)."
                )
            self.classes_ = np.unique(classes)
            self._sparse_labels = False
            if self.classes_.size < 2:
                raise ValueError("classes must hold at least two labels.")
            self.task_ = "binary" if self.classes_.size == 2 else "multiclass"
        elif self.task_ == "multilabel":
            raise ValueError(
                "partial_fit got class labels after being started on a multi-label "
                "indicator matrix."
            )
        unseen = np.setdiff1d(y, self.classes_)
        if unseen.size:
            raise ValueError(
                f"y contains labels {unseen.tolist()} that are not in classes "
                f"{self.classes_.tolist()} given on the first partial_fit call."
            )
        if self.task_ == "binary":
            return np.where(y == self.classes_[1], 1.0, -1.0)[:, None]
        return np.where(y[:, None] == self.classes_[None, :], 1.0, -1.0)

    def _train(self, X, Y, n_epochs, sample_weight=None):
        def run(k, X, Y, n_epochs, sample_weight):
            mistakes = np.zeros(n_epochs, dtype=np.int32)
            self._run_kernel(X, np.ascontiguousarray(Y[:, k]), k, n_epochs, mistakes,
                             sample_weight)
            return mistakes

        if not self.shuffle:
            runs = map_problems(lambda k: run(k, X, Y, n_epochs, sample_weight), Y.shape[1],
                                self.n_jobs)
        else:
            # one draw from random_state, as the dual estimators' seed
            rng = np.random.default_rng(problem_seeds(self.random_state, 1)[0])
            per_epoch = []
            for _ in range(n_epochs):
                # one permuted copy of the rows per epoch, shared by every problem
                order = rng.permutation(X.shape[0])
                Xe, Ye = X[order], Y[order]
                swe = None if sample_weight is None else sample_weight[order]
                per_epoch.append(map_problems(lambda k: run(k, Xe, Ye, 1, swe), Y.shape[1],
                                              self.n_jobs))
            runs = [np.concatenate([epoch[k] for epoch in per_epoch])
                    for k in range(Y.shape[1])]
        self.mistakes_ = [np.concatenate([old, new]) for old, new in zip(self.mistakes_, runs)]
        self.n_iter_ = np.array([m.size for m in self.mistakes_])
        self._set_coef()
        if not (np.isfinite(self.coef_).all() and np.isfinite(self.intercept_).all()):
            # Winnow's factors e^(eta x) or the Perceptron's steps overflowed
            raise ValueError(
                f"{type(self).__name__}: the weights overflowed to inf or NaN with "
                f"eta={self.eta:g}; lower eta (or scale the features down).")

    def _split(self, w):
        """coef_ and the bias from a weight over the (possibly augmented) features."""
        if self.fit_intercept:
            return w[:, :-1], w[:, -1]
        return w, np.zeros(w.shape[0])


class Perceptron(_OnlineBase):
    """The Perceptron, mistake-driven (docs/mathematics.md §9).

    Start from ``w = 0``; predict "in class" iff ``w @ x > 0``; on a mistake
    ``w += eta * y * x``. With ``renormalize=True`` the weight is rescaled to
    ``||w||_2 = 1`` after each epoch (reconstructed: the paper's normalization
    was lost). Defaults are the Reuters experiment's (paper Table 2):
    ``eta=0.001``, 100 epochs. The *Regularized Winnow* paper's section 4 used
    ``eta=0.01``, 200 epochs and a constant feature.

    Parameters
    ----------
    eta : float > 0, default=0.001
        Learning rate.
    n_epochs : int >= 1, default=100
        Passes over the data.
    renormalize : bool, default=True
        Rescale ``w`` to unit Euclidean norm after every epoch.
    fit_intercept : bool, default=False
        Append a constant feature 1 (its weight is ``intercept_``).
    shuffle : bool, default=True
        Visit the examples in a fresh random order every epoch (``False``: in
        data order, as the papers).
    random_state : None, int, RandomState or Generator, default=None
        Seed of those orders; an int gives the same model on every fit.
    n_jobs : int or None, default=None
        Threads over the binary problems.

    Attributes
    ----------
    classes_, coef_, intercept_, n_features_in_
        As in :class:`textwin.DualGaussSeidelClassifier`.
    mistakes_ : list of ndarray
        Mistakes per epoch, per binary problem.
    n_iter_ : ndarray of shape (n_problems,)
        Epochs run per problem.
    """

    def __init__(self, eta=0.001, n_epochs=100, renormalize=True, fit_intercept=False,
                 shuffle=True, random_state=None, n_jobs=None):
        store_params(self, locals())

    def _init_weights(self, K, d):
        self._w = np.zeros((K, d))

    def _run_kernel(self, X, yk, k, n_epochs, mistakes, sample_weight):
        w = self._w[k]  # a contiguous row, updated in place
        _online.perceptron(X.data, X.indices, X.indptr, yk, w, float(self.eta),
                           int(n_epochs), bool(self.renormalize), mistakes, sample_weight)

    def _set_coef(self):
        self.coef_, self.intercept_ = self._split(self._w)
        self.coef_ = self.coef_.copy()


class Winnow(_OnlineBase):
    """Winnow, mistake-driven (docs/mathematics.md §9).

    Positive weights start at the prior ``mu`` (uniform: ``mass / d``); the
    score is ``w @ x`` (``(w+ - w-) @ x`` when ``balanced``) and the prediction
    "in class" iff ``score >= theta``. On a mistake, for each nonzero
    ``x_j``: ``w_j *= exp(eta y x_j)`` (and ``w-_j *= exp(-eta y x_j)``); a
    ``normalized`` Winnow then rescales so that the total weight stays at its
    initial value. A mistake costs O(nnz(x)), the rescaling being one scalar.

    The defaults are the paper's normalized positive Winnow (Reuters Table 1):
    ``w_j = 1/d`` (reconstructed: uniform), ``theta=0.1`` (0.3 also reported),
    ``eta=0.001``, 100 epochs.

    Parameters
    ----------
    theta : float, default=0.1
        Prediction threshold.
    eta : float > 0, default=0.001
        Learning rate.
    n_epochs : int >= 1, default=100
        Passes over the data.
    balanced : bool, default=False
        Use ``w = w+ - w-`` (both halves start at the prior).
    normalized : bool, default=True
        Keep the total weight ``sum(w+) (+ sum(w-))`` at its initial value.
    prior : None, float or array of shape (n_features,), default=None
        Initial weight of each half. None: ``mass / d`` for a positive Winnow,
        ``mass / (2 d)`` for a balanced one (``d`` counting the constant
        feature); a float fills every entry (then ``mass`` is not used).
    mass : float > 0, default=1.0
        Initial (and, if normalized, kept) total weight when ``prior`` is None.
    fit_intercept : bool, default=False
        Append a constant feature 1; ``intercept_`` is its weight minus theta.
    shuffle : bool, default=True
        Visit the examples in a fresh random order every epoch (``False``: in
        data order, as the papers).
    random_state : None, int, RandomState or Generator, default=None
        Seed of those orders; an int gives the same model on every fit.
    n_jobs : int or None, default=None
        Threads over the binary problems.

    Attributes
    ----------
    classes_, coef_, intercept_, n_features_in_
        As in :class:`textwin.DualGaussSeidelClassifier`; ``coef_`` is
        ``w+ - w-`` for a balanced Winnow and ``decision_function`` is
        ``score - theta``.
    mistakes_ : list of ndarray
        Mistakes per epoch, per binary problem.
    n_iter_ : ndarray of shape (n_problems,)
        Epochs run per problem.
    """

    def __init__(self, theta=0.1, eta=0.001, n_epochs=100, balanced=False, normalized=True,
                 prior=None, mass=1.0, fit_intercept=False, shuffle=True, random_state=None,
                 n_jobs=None):
        store_params(self, locals())

    def _in_class(self, scores):
        return scores >= 0  # the training rule: score >= theta

    def _check_params(self):
        super()._check_params()
        check_positive(type(self).__name__, "mass", self.mass)
        if not np.isfinite(self.theta):
            raise ValueError(f"{type(self).__name__}: theta must be finite.")

    def _init_weights(self, K, d):
        if self.prior is None:
            mu = np.full(d, self.mass / (2 * d if self.balanced else d))
        else:
            mu = np.asarray(self.prior, dtype=np.float64)
            if mu.ndim == 0:
                mu = np.full(d, float(mu))
            elif self.fit_intercept and mu.shape == (d - 1,):
                mu = np.append(mu, mu.mean())
            if mu.shape != (d,) or not np.all(np.isfinite(mu)) or np.any(mu <= 0):
                raise ValueError(
                    f"{type(self).__name__}: prior must be positive and finite, a float or "
                    f"an array of shape ({d},)."
                )
        self._w_pos = np.tile(mu, (K, 1))
        self._w_neg = np.tile(mu, (K, 1)) if self.balanced else np.zeros((K, 0))
        # the total a normalized Winnow keeps
        self._mass = float(mu.sum() * (2 if self.balanced else 1))

    def _run_kernel(self, X, yk, k, n_epochs, mistakes, sample_weight):
        _online.winnow(X.data, X.indices, X.indptr, yk, self._w_pos[k], self._w_neg[k],
                       bool(self.balanced), bool(self.normalized), self._mass,
                       float(self.eta), float(self.theta), int(n_epochs), mistakes,
                       sample_weight)

    def _set_coef(self):
        w = self._w_pos - self._w_neg if self.balanced else self._w_pos.copy()
        coef, bias = self._split(w)
        self.coef_ = np.ascontiguousarray(coef)
        self.intercept_ = bias - self.theta


class BalancedWinnow(Winnow):
    """UWin / NWin of *Regularized Winnow methods* (section 4).

    Balanced Winnow (``w = w+ - w-``), both halves starting at ``mu_j = 0.01``,
    prediction ``sign((w+ - w-) @ x)`` (threshold 0, "in class" at 0) with a
    constant feature appended, ``eta=0.01``, 200 epochs. ``normalized=False``
    is UWin; ``normalized=True`` is NWin, which keeps ``||w+||_1 + ||w-||_1`` at
    its initial value.

    Parameters
    ----------
    normalized : bool, default=False
        NWin instead of UWin.
    eta, n_epochs, prior, theta, fit_intercept, shuffle, random_state, n_jobs
        As in :class:`Winnow` (the paper's runs: ``shuffle=False``).
    """

    def __init__(self, normalized=False, eta=0.01, n_epochs=200, prior=0.01, theta=0.0,
                 fit_intercept=True, shuffle=True, random_state=None, n_jobs=None):
        store_params(self, locals())

    # Winnow's other parameters, fixed for this preset
    balanced = True
    mass = 1.0  # unused: the prior is a float
