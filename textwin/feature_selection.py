"""Information-gain feature selection for sparse, multi-label text (docs/mathematics.md §11).

The information gain of a word ``t`` over classes ``c`` is (natural log)::

    IG(t) = -sum_c P(c) ln P(c)
            + P(t)    sum_c P(c|t)    ln P(c|t)
            + P(not t) sum_c P(c|not t) ln P(c|not t)

that is, the entropy of the class minus its entropy once the presence of ``t`` is
known (Yang & Pedersen 1997). Every probability is a ratio of document-frequency
counts, and all the counts come out of one sparse product ``Y.T @ X_bin`` over the
nonzeros of ``X``: the design matrix is never densified and never copied per
category.
"""
import warnings
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from scipy.special import xlogy
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from textwin._nb_scaling import document_counts, nb_ratios, scale_columns

__all__ = ["InformationGain", "information_gain", "top_columns", "nb_ratios",
           "document_counts", "scale_columns"]

_SCOPES = ("global", "per_category")
_AGGREGATES = ("max", "mean", "weighted")


def _binary_presence(X):
    """Return ``(X != 0)`` as a float64 sparse matrix (CSR, or CSC for CSC input).

    For canonical sparse input only the ``data`` array is rebuilt; ``indices`` and
    ``indptr`` are shared with ``X``. Duplicate entries are summed first (on a copy)
    so that a word stored twice in one document counts once; a stored zero, which
    the ``!= 0`` turns into a stored 0.0, adds nothing to the counts.
    """
    if not sp.issparse(X):
        return sp.csr_matrix(X != 0, dtype=np.float64)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    cls = sp.csr_matrix if X.format == "csr" else sp.csc_matrix
    data = (X.data != 0).astype(np.float64)
    return cls((data, X.indices, X.indptr), shape=X.shape)


def _indicator_from_target(Y, n_samples):
    """Validate a target and return ``(Y_ind, classes, multilabel)``.

    ``Y_ind`` is a CSR float64 indicator of shape (n_samples, n_classes). A 1-d label
    vector becomes a one-hot matrix over ``np.unique(y)``; a 2-d (dense or sparse)
    target must be a 0/1 indicator whose columns are the categories.
    """
    if Y is None:
        raise ValueError(
            "InformationGain requires y to be passed, but the target y is None: "
            "call fit(X, Y) with Y a multi-label indicator of shape "
            "(n_samples, n_categories) or a label vector y."
        )
    if sp.issparse(Y):
        Y = sp.csr_matrix(Y)
        if Y.ndim != 2:
            raise ValueError(f"Y must be 2-d when sparse, got shape {Y.shape}.")
        values = Y.data
    else:
        Y = np.asarray(Y)
        if Y.ndim == 2 and Y.shape[1] == 0:
            raise ValueError("Y has no category column (shape %r)." % (Y.shape,))
        if Y.ndim == 1:
            if Y.dtype.kind == "f" and np.isnan(Y).any():
                raise ValueError("y contains NaN; give every document a class label.")
            kind = type_of_target(Y, input_name="y", raise_unknown=True)
            if kind not in ("binary", "multiclass"):
                raise ValueError(
                    f"Unknown label type: InformationGain needs class labels, but y "
                    f"looks {kind!r}. "
                    "Pass integer or string labels, or a 0/1 indicator matrix for "
                    "multi-label data."
                )
            if Y.shape[0] != n_samples:
                raise ValueError(
                    f"X has {n_samples} samples but y has {Y.shape[0]}; they must match."
                )
            classes, y_idx = np.unique(Y, return_inverse=True)
            ones = np.ones(n_samples)
            Y_ind = sp.csr_matrix(
                (ones, (np.arange(n_samples), y_idx.ravel())),
                shape=(n_samples, len(classes)),
            )
            return Y_ind, classes, False
        if Y.ndim != 2:
            raise ValueError(
                f"Y must be 1-d labels or a 2-d indicator, got {Y.ndim} dimensions."
            )
        values = Y
    if Y.shape[1] == 0:
        raise ValueError("Y has no category column (shape %r)." % (Y.shape,))
    if Y.shape[0] != n_samples:
        raise ValueError(
            f"X has {n_samples} samples but Y has {Y.shape[0]} rows; they must match."
        )
    values = np.asarray(values)
    if values.dtype.kind == "f" and np.isnan(values).any():
        raise ValueError("Y contains NaN; a multi-label indicator holds only 0 and 1.")
    if (values.dtype.kind in "if" and not sp.issparse(Y) and np.isin(values, (-1, 1)).all()):
        Y = (Y > 0).astype(np.float64)  # a -1/+1 matrix, as the classifiers accept it
    elif values.dtype.kind not in "biuf" or not np.isin(values, (0, 1)).all():
        raise ValueError(
            "A 2-d Y must be a 0/1 (or -1/+1) multi-label indicator (documents x "
            "categories); it holds other values. Use MultiLabelBinarizer to build one."
        )
    Y_ind = sp.csr_matrix(Y, dtype=np.float64)
    Y_ind.eliminate_zeros()
    return Y_ind, np.arange(Y.shape[1]), True


def _xlnx(x):
    """``x ln x`` with ``0 ln 0 = 0``."""
    return xlogy(x, x)


def _class_terms(A, n_k):
    """``A ln A + (n_k - A) ln(n_k - A) - n_k ln n_k``: one class's share of ``N * IG``.

    It is exactly 0 where ``A == 0``, so it only needs evaluating on nonzero counts.
    """
    return _xlnx(A) + _xlnx(n_k - A) - _xlnx(n_k)


def _information_gain(sum_class_terms, n_t, N):
    """IG of every feature from ``sum_k _class_terms(A_k, n_k)``.

    With ``N`` events, ``n_k`` of class ``k``, ``n_t`` of them in documents holding
    ``t``, ``A_k`` of class ``k`` and holding ``t``, ``B_k = n_k - A_k``, the
    probabilities of docs/mathematics.md §11 are ``P(k) = n_k/N``, ``P(t) = n_t/N``,
    ``P(k|t) = A_k/n_t``, ``P(k|not t) = B_k/(N - n_t)``, and (using
    ``sum n_k = N``, ``sum A_k = n_t``, ``sum B_k = N - n_t``)::

        N * IG = N ln N - n_t ln n_t - (N - n_t) ln(N - n_t)
                 + sum_k [A_k ln A_k + B_k ln B_k - n_k ln n_k]

    No division by a possibly empty ``n_t``, and the bracket vanishes for ``A_k = 0``,
    so the sum runs over the nonzero joint counts only.
    """
    ig = (_xlnx(N) - _xlnx(n_t) - _xlnx(N - n_t) + sum_class_terms) / N
    # A word in every event or in none gets exactly 0 (every term cancels exactly);
    # elsewhere clip rounding noise below 0.
    return np.maximum(ig, 0.0)


def information_gain(X, Y, *, scope="global"):
    """Information gain of every feature (docs/mathematics.md §11), as a plain function.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Documents; a nonzero entry means the word is present.
    Y : {array-like, sparse matrix} of shape (n_samples, n_categories) or (n_samples,)
        0/1 multi-label indicator, or a vector of class labels.
    scope : {"global", "per_category"}, default="global"
        See :class:`InformationGain`.

    Returns
    -------
    scores : ndarray of shape (n_features,) for "global", else (n_classes, n_features)
        Information gain in nats.
    """
    selector = InformationGain(k="all", scope=scope).fit(X, Y)
    if scope == "global":
        return selector.scores_
    return selector.scores_per_category_


class InformationGain(SelectorMixin, BaseEstimator):
    """Keep the ``k`` features of highest information gain (Yang & Pedersen 1997).

    Information gain of word ``t`` over classes ``c`` (natural log, docs/mathematics.md §11)::

        IG(t) = -sum_c P(c) ln P(c) + P(t) sum_c P(c|t) ln P(c|t)
                + P(not t) sum_c P(c|not t) ln P(c|not t)

    ``X`` is read as binary presence: any nonzero entry (negative ones too) means
    the word occurs in the document. All probabilities are ratios of document counts
    obtained from one sparse product over the nonzeros of ``X``, which is never
    densified. Unlike :class:`sklearn.feature_selection.SelectKBest`, ``fit`` accepts
    a multi-label ``Y``, so this selector works inside a
    :class:`~sklearn.pipeline.Pipeline` whose final step is multi-label
    (scikit-learn issue #7628).

    Parameters
    ----------
    k : int or "all", default=1000
        Number of features to keep. If ``k`` exceeds the number of features, a
        warning is raised and every feature is kept (as ``SelectKBest`` does).
    scope : {"global", "per_category"}, default="global"
        ``"global"``: one multi-class IG over all categories. For a multi-label
        indicator ``Y`` the probabilities are estimated from (document, category)
        pairs: a document with three categories counts as three events, one per
        category, and a document with no category counts once under an extra
        "no category" class. For a label vector ``y`` each document is one event of
        its class.
        ``"per_category"``: for each category ``c`` the binary IG of ``c`` against
        "not ``c``" over documents, stored in ``scores_per_category_`` and
        aggregated into ``scores_`` by ``aggregate``.
    aggregate : {"max", "mean", "weighted"}, default="max"
        How per-category scores are combined when ``scope="per_category"``:
        the maximum over categories, their mean, or their mean weighted by the
        number of documents of each category (Yang & Pedersen's average, with
        weights normalised to sum to one). Ignored when ``scope="global"``.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Information gain of each feature, in nats.
    scores_per_category_ : ndarray of shape (n_classes, n_features)
        Binary IG of each feature for each class. Only with ``scope="per_category"``.
    classes_ : ndarray of shape (n_classes,)
        The class labels for a label vector ``y``; ``arange(n_categories)`` (the
        columns of ``Y``) for an indicator.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features, when ``X`` has string column names.

    Notes
    -----
    Ties: features are ranked by decreasing score and, among exactly equal scores,
    by increasing column index, so the lower index is kept when a tie straddles the
    ``k``-th place (``SelectKBest`` keeps the higher one). A feature present in every
    document or in none has IG exactly 0.

    Cost: ``O(nnz(X) * categories per document)`` for the counts. The global score
    then costs ``O(nonzero counts)``; the per-category one ``O(n_features *
    n_classes)`` time and memory, like ``chi2``.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> X = sp.csr_matrix(np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1], [0, 0, 1]]))
    >>> Y = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    >>> InformationGain(k=1).fit(X, Y).get_support()
    array([ True, False, False])
    """

    def __init__(self, k=1000, scope="global", aggregate="max"):
        self.k = k
        self.scope = scope
        self.aggregate = aggregate

    def _validate_params_(self):
        if not (
            (isinstance(self.k, str) and self.k == "all")
            or (isinstance(self.k, Integral) and not isinstance(self.k, bool) and self.k >= 0)
        ):
            raise ValueError(f'k must be a non-negative integer or "all", got {self.k!r}.')
        if self.scope not in _SCOPES:
            raise ValueError(f"scope must be one of {_SCOPES}, got {self.scope!r}.")
        if self.aggregate not in _AGGREGATES:
            raise ValueError(
                f"aggregate must be one of {_AGGREGATES}, got {self.aggregate!r}."
            )

    def fit(self, X, Y=None):
        """Compute the information gain of every feature.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Documents (rows) by words (columns); nonzero means present.
        Y : {array-like, sparse matrix} of shape (n_samples, n_categories) or \
(n_samples,)
            0/1 multi-label indicator, or a vector of class labels.

        Returns
        -------
        self : InformationGain
            The fitted selector.
        """
        self._validate_params_()
        X = validate_data(self, X, accept_sparse=("csr", "csc"))
        n_samples, n_features = X.shape
        if not isinstance(self.k, str) and self.k > n_features:
            warnings.warn(
                f"k={self.k} is greater than n_features={n_features}. "
                "All the features will be returned."
            )
        Y_ind, self.classes_, multilabel = _indicator_from_target(Y, n_samples)

        X_bin = _binary_presence(X)
        self.__dict__.pop("scores_per_category_", None)  # from an earlier per-category fit
        if self.scope == "global":
            # Events are (document, category) pairs, plus one "no category" event per
            # unlabelled document (multi-label only; a label vector has none).
            E = Y_ind
            if multilabel:
                no_category = (np.diff(Y_ind.indptr) == 0).astype(np.float64)
                E = sp.hstack([Y_ind, sp.csr_matrix(no_category[:, None])], format="csr")
            n_k = np.asarray(E.sum(axis=0)).ravel()
            # A[k, t]: events of class k whose document holds t. One pass over nnz(X).
            A = (E.T @ X_bin).tocoo()
            terms = np.bincount(A.col, _class_terms(A.data, n_k[A.row]), n_features)
            n_t = np.bincount(A.col, A.data, n_features)
            self.scores_ = _information_gain(terms, n_t, n_k.sum())
            return self

        # Binary IG per category over documents: classes "c" and "not c".
        # a[c, t]: documents of c holding t; df[t]: documents holding t.
        n_c = np.asarray(Y_ind.sum(axis=0)).ravel()
        a = (Y_ind.T @ X_bin).tocoo()
        df = np.asarray(X_bin.sum(axis=0)).ravel()
        terms = np.zeros((len(n_c), n_features))
        terms[a.row, a.col] = _class_terms(a.data, n_c[a.row])  # class c, sparse
        terms += _class_terms(df - a.toarray(), (n_samples - n_c)[:, None])  # not c
        self.scores_per_category_ = _information_gain(terms, df, float(n_samples))
        if self.aggregate == "max":
            self.scores_ = self.scores_per_category_.max(axis=0)
        elif self.aggregate == "mean":
            self.scores_ = self.scores_per_category_.mean(axis=0)
        else:
            if n_c.sum() == 0:
                raise ValueError(
                    'aggregate="weighted" needs at least one document with a category.'
                )
            self.scores_ = (n_c / n_c.sum()) @ self.scores_per_category_
        return self

    def _get_support_mask(self):
        check_is_fitted(self)
        n_features = self.scores_.shape[0]
        mask = np.zeros(n_features, dtype=bool)
        k = n_features if self.k == "all" else min(self.k, n_features)
        # Decreasing score, then increasing index (lexsort: last key is primary).
        order = np.lexsort((np.arange(n_features), -self.scores_))
        mask[order[:k]] = True
        return mask

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.input_tags.sparse = True
        return tags


# --------------------------------------------------------------------------- naive Bayes scaling
# Wang & Manning (2012): each feature scaled by its log-count ratio between a binary
# problem's positives and the other documents (NBSVM without interpolation).

def top_columns(X, Y, k):
    """The ``k`` columns of ``X`` of highest information gain on the labels ``Y``
    (:class:`InformationGain`), as increasing int64 indices: ``--features K``'s columns,
    of a corpus's matrix or of a :class:`~textwin.TextClassifier`'s."""
    selector = InformationGain(k=k)
    selector.fit(X, Y)
    return np.asarray(selector.get_support(indices=True), dtype=np.int64)
