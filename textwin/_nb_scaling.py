"""The naive Bayes scaling of Wang & Manning (2012): each feature scaled by its log-count
ratio between a class's documents and the others' (NBSVM's feature map).

A module of its own, light to import: the searches' folds and the estimators' fits
compute the ratios and the solver applies them (``column_scale``), while
:mod:`textwin.feature_selection` (which hands these names on) loads scikit-learn's
feature selection, and with it much of scikit-learn (15 MiB).
"""
import numpy as np
import scipy.sparse as sp

from textwin.text import BLOCK, column_document_counts

__all__ = ["nb_ratios", "document_counts", "scale_columns"]


def nb_ratios(X, positive, alpha=1.0, counts=None):
    """Wang & Manning's log-count ratios ``r = log((p / |p|_1) / (q / |q|_1))`` of the
    binarized features, ``p = alpha + sum`` over the positive rows and ``q`` over the
    others: scaling column ``j`` by ``r_j`` is NBSVM's feature map. ``counts``: X's
    :func:`document_counts`, when already counted."""
    every = document_counts(X) if counts is None else counts
    p = column_document_counts(X, np.asarray(positive, dtype=bool))
    p, q = alpha + p, alpha + (every - p)
    return np.log(p / p.sum()) - np.log(q / q.sum())


def document_counts(X):
    """The rows of CSR ``X`` that hold each column."""
    return column_document_counts(X)


def scale_columns(X, r, out=None):
    """X with column j scaled by r[j]; its index arrays are X's own (never written).
    ``out=X``: X itself scaled in place. A block at a time: no ``r[X.indices]`` as long
    as the values."""
    data = np.empty_like(X.data) if out is None else out.data
    for start in range(0, X.nnz, BLOCK):
        np.multiply(X.data[start:start + BLOCK], r[X.indices[start:start + BLOCK]],
                    out=data[start:start + BLOCK])
    if out is not None:
        return out
    return sp.csr_matrix((data, X.indices, X.indptr), shape=X.shape)
