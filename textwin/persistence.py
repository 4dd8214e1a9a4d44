"""Safe model files: one ``.npz`` of plain arrays plus a JSON metadata string.

A model file holds everything needed to score raw text again:

* ``coef`` (problems x selected features) and ``intercept`` (problems,),
* the vectorizer's terms in column order, as ``terms_utf8`` (their UTF-8
  bytes, one after the other) and ``term_offsets`` (where each term starts in
  them, and the end: one more than the terms), and ``selected`` (the column
  indices kept by feature selection, in the order of ``coef``'s columns);
  format 1 files hold the terms as one fixed-width string array,
  ``vocabulary``, which took 4 bytes per character of the longest term for
  every term (16 times the UTF-8 text on AG News's bigrams),
* optionally ``idf`` (for a tf-idf vectorizer) and ``thresholds`` (one per
  problem; a document is in category ``c`` when its score is above
  ``thresholds[c]``; a multi-class document gets the class of the highest
  score less its threshold),
* a JSON document (stored as a ``uint8`` array under ``__metadata__``) with the
  format name and version, textwin's version, the category names, the task
  (``"multilabel"``: one yes/no decision per category; ``"binary"`` or
  ``"multiclass"``: one class per document, as the estimator predicted) and
  its classes (a binary model's positive class, whose score it holds, second),
  the preprocessing settings, the estimator's class and
  parameters and any training information (duality gap, epochs, test scores),
  and, when the model has one, its ``calibration``: how scores become
  probabilities (:class:`textwin.calibration.Calibration`: the logistic loss's
  link, or Platt's ``a`` and ``b`` per problem).

The file is read with ``allow_pickle=False``: loading never runs code from the
file. Before any array is read, the shapes that the arrays' headers declare are
checked against the archive's sizes, the category names and one another, and
their total against the memory free, so that a damaged header cannot make a
small file inflate gigabytes. It is written through :func:`textwin._io.atomic_write`, so a
reader sees either the old file or the complete new one. Anything that is not a
complete textwin model file (a truncated download, another program's ``.npz``,
random bytes, a file written by a newer, incompatible textwin) is refused with
a :class:`ModelFormatError` that says what is wrong.
"""
from __future__ import annotations

import json
import math
import os
import stat
import zipfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ._io import atomic_write, available_memory
from ._kernels._vocabulary import Vocabulary
from ._version import __version__

__all__ = ["ModelFormatError", "TextModel", "Terms", "save_model", "load_model", "FORMAT_VERSION"]

#: Name written into every model file; a file without it is not ours.
FORMAT_NAME = "textwin-model"
#: ``major.minor``: a reader refuses a file whose major version it does not know;
#: a newer minor version only adds optional fields (1.1: ``task`` and ``classes``;
#: a 1.0 file is read as ``task="multilabel"``). 2.0: the terms as UTF-8 bytes and
#: offsets (a format 1 reader would have taken a file without ``vocabulary`` for a
#: model of numeric features). 2.1: ``calibration``.
FORMAT_VERSION = "2.1"
#: The major versions this reader reads: 1 (``vocabulary``) and 2.
_READ_MAJORS = ("1", "2")
_TASKS = ("multilabel", "binary", "multiclass")
_META_KEY = "__metadata__"
_ARRAYS = ("coef", "intercept", "terms_utf8", "term_offsets", "vocabulary", "selected", "idf",
           "thresholds")
#: The most metadata a model file may hold (category names, settings, scores).
_MAX_METADATA_BYTES = 1 << 24
#: The rule behind a model file's ``duality_gap``, so that a reader of the file needs no docs.
STOPPING_RULE = (
    "relative duality gap (P(w) - D(alpha)) / max(P(w), 1e-300) <= tol, or "
    "max_epochs; Algorithm 2 (intercept_solver 'converged') also needs "
    "|sum alpha_i y_i| / (lam n) <= intercept_tol")


class ModelFormatError(ValueError):
    """A file is not a usable textwin model (corrupted, truncated, foreign or too new)."""


def _jsonable(value):
    """Return ``value`` if JSON can hold it exactly, else ``None`` (dropped)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        items = [_jsonable(v) for v in value]
        return None if any(i is None and v is not None for i, v in zip(items, value)) else items
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            j = _jsonable(v)
            if j is not None or v is None:
                out[str(k)] = j
        return out
    return None


def _plain_label(label):
    """A class label as JSON holds it: numbers, strings and booleans as they are, else str."""
    plain = _jsonable(label)
    return plain if isinstance(plain, (bool, int, float, str)) else str(label)


def _estimator_params(estimator):
    """The estimator's parameters that JSON can hold (arrays such as a prior are dropped)."""
    if not hasattr(estimator, "get_params"):
        return {}
    params = estimator.get_params(deep=False)
    if hasattr(estimator, "all_params"):  # a preset's fixed loss and regularizer, named too
        fixed = estimator.all_params()
        params.update({k: fixed[k] for k in ("loss", "regularizer") if k not in params})
    out = {}
    for key, value in params.items():
        j = _jsonable(value)
        if j is not None or value is None:
            out[key] = j
    return out


class Terms:
    """A vocabulary's terms in column order: their UTF-8 bytes one after the other
    (``utf8``, uint8) and where each starts (``offsets``, int64, one more than the
    terms: term ``j`` is ``utf8[offsets[j]:offsets[j + 1]]``).

    About the size of the text itself plus 8 bytes a term, where a numpy string
    array takes 4 bytes per character of the longest term for every term (AG
    News's 134,140 terms with bigrams: 2.4 MB against 22 MB). Build one with
    :meth:`of`; :meth:`columns` gives the ``{term: column}`` dict a
    :class:`textwin.text.TextVectorizer` uses. Terms of Python strings that UTF-8
    cannot hold (lone surrogates) are kept as ``surrogatepass`` writes them.
    """

    def __init__(self, utf8, offsets):
        self.utf8 = np.asarray(utf8)
        self.offsets = np.asarray(offsets)
        self._check()

    @classmethod
    def of(cls, terms):
        """The :class:`Terms` of a ``{term: column}`` dict (a vectorizer's
        ``vocabulary_``, its columns 0 to n - 1) or of a sequence of str in column
        order; a :class:`Terms` is returned as it is."""
        if isinstance(terms, Terms):
            return terms
        if isinstance(terms, Vocabulary):  # already these two arrays
            return cls(terms.utf8, terms.offsets)
        if isinstance(terms, dict):
            terms = _in_column_order(terms)
        elif isinstance(terms, np.ndarray):
            terms = terms.tolist()
        else:
            terms = list(terms)
        if not all(isinstance(t, str) for t in terms):
            raise ModelFormatError("the vocabulary holds terms that are not strings")
        text = "".join(terms)
        if text.isascii():
            lengths = map(len, terms)
        else:
            lengths = (len(t.encode("utf-8", "surrogatepass")) for t in terms)
        offsets = np.zeros(len(terms) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(lengths, dtype=np.int64, count=len(terms)), out=offsets[1:])
        utf8 = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
        return cls(utf8, offsets)

    def _check(self):
        """Refuse offsets that do not cut the bytes into terms (a damaged file)."""
        if self.utf8.ndim != 1 or self.utf8.dtype != np.uint8:
            raise ModelFormatError("the terms' bytes are not a 1-d array of uint8")
        offsets = self.offsets
        if offsets.ndim != 1 or offsets.dtype.kind not in "iu" or offsets.size == 0:
            raise ModelFormatError("the term offsets are not a non-empty 1-d array of integers")
        if offsets[0] != 0 or offsets[-1] != self.utf8.size:
            raise ModelFormatError(
                f"the term offsets run from {int(offsets[0])} to {int(offsets[-1])}; they "
                f"must run from 0 to the {self.utf8.size} bytes of the terms")
        if np.any(offsets[1:] < offsets[:-1]):
            j = int(np.flatnonzero(offsets[1:] < offsets[:-1])[0])
            raise ModelFormatError(
                f"the term offsets decrease at term {j} ({int(offsets[j])} then "
                f"{int(offsets[j + 1])})")

    @property
    def size(self):
        """The number of terms."""
        return self.offsets.size - 1

    def __len__(self):
        return self.size

    def tolist(self):
        """The terms, as a list of str."""
        raw = self.utf8.tobytes()
        bounds = self.offsets.tolist()
        if self.utf8.size and self.utf8.max() < 0x80:  # ASCII: slices of one str
            text = raw.decode("ascii")
            return [text[a:b] for a, b in zip(bounds, bounds[1:])]
        terms = []
        for j, (a, b) in enumerate(zip(bounds, bounds[1:])):
            try:
                terms.append(raw[a:b].decode("utf-8", "surrogatepass"))
            except UnicodeDecodeError as exc:
                raise ModelFormatError(
                    f"term {j} (bytes {a} to {b}) is not UTF-8 text: {exc.reason}") from None
        return terms

    def __iter__(self):
        return iter(self.tolist())

    def __getitem__(self, j):
        """Term ``j`` (negative: from the end), or a list of the terms of a slice."""
        if isinstance(j, slice):
            return self.tolist()[j]
        j = range(self.size)[j]
        a, b = int(self.offsets[j]), int(self.offsets[j + 1])
        return self.utf8[a:b].tobytes().decode("utf-8", "surrogatepass")

    def columns(self):
        """The ``{term: column}`` mapping of the terms (a compact
        :class:`~textwin._kernels._vocabulary.Vocabulary`, no Python string per term);
        a term given twice, or bytes that are not UTF-8, are refused."""
        raw = self.utf8
        if raw.size and raw.max() >= 0x80:
            # every term UTF-8 when the whole is and none begins inside a character
            starts = self.offsets[:-1][np.diff(self.offsets) > 0]
            try:
                raw.tobytes().decode("utf-8", "surrogatepass")
                whole = not np.any(raw[starts] & 0xC0 == 0x80)
            except UnicodeDecodeError:
                whole = False
            if not whole:
                self.tolist()  # raises, naming the term
        try:
            return Vocabulary.from_buffers(self.utf8, self.offsets)
        except ValueError as exc:
            twice = self[exc.args[1]]
            distinct = len(set(self.tolist()))
            raise ModelFormatError(
                f"the vocabulary holds the term {twice!r} twice ({self.size} terms, "
                f"{distinct} distinct)") from None

    def __repr__(self):
        return f"Terms({self.size} terms, {self.utf8.size} bytes of UTF-8)"


def _in_column_order(vocabulary):
    """The terms of a ``{term: column}`` dict in column order; its columns must be 0
    to n - 1 (a fitted vectorizer's are, and its dict is already in that order)."""
    columns = np.fromiter(vocabulary.values(), dtype=np.int64, count=len(vocabulary))
    terms = list(vocabulary)
    if np.array_equal(columns, np.arange(columns.size)):
        return terms
    if not np.array_equal(np.sort(columns), np.arange(columns.size)):
        raise ModelFormatError(
            f"the vocabulary's {columns.size} columns are not numbered 0 to {columns.size - 1}")
    return [terms[i] for i in np.argsort(columns).tolist()]


class TextModel:
    """A linear text classifier as stored in a model file.

    Scores are ``X[:, selected] @ coef.T + intercept`` where ``X`` is the
    document-term matrix built with the stored vocabulary and preprocessing.

    Parameters
    ----------
    coef : ndarray of shape (n_problems, n_selected)
    intercept : ndarray of shape (n_problems,)
    target_names : list of str, one per problem (row of ``coef``)
    vocabulary : dict of str to int, sequence of str, Terms or None
        The vectorizer's terms: its ``vocabulary_`` (``{term: column}``) or the
        terms in column order; ``None`` for a model trained on numeric features
        (svmlight), which then scores matrices only. Kept as :class:`Terms`.
    selected : ndarray of int or None
        Columns of the document-term matrix that ``coef``'s columns refer to;
        ``None`` means all columns in order.
    preprocessing : dict
        Keyword arguments of :class:`textwin.text.TextVectorizer`.
    idf : ndarray or None
        The vectorizer's ``idf_`` for tf-idf weighting.
    thresholds : ndarray of shape (n_problems,) or None
        Decision thresholds; default 0 (the sign of the score).
    metadata : dict
        Everything else (estimator, parameters, training information).
    task : {"multilabel", "binary", "multiclass"}, default="multilabel"
        What :meth:`predict` returns, as the saved estimator did:
        ``"multilabel"``, a 0/1 indicator per category (score above its
        threshold; the command line's models); ``"binary"`` (one problem), the
        class ``classes[1]`` where the score is above the threshold, else
        ``classes[0]``, and 1-d scores; ``"multiclass"`` (one-vs-rest), the
        class of the highest score less its threshold.
    classes : list or None
        The classes :meth:`predict` returns for ``"binary"`` (two) and
        ``"multiclass"`` (one per problem); default ``[0, 1]`` and
        ``target_names``.
    calibration : textwin.calibration.Calibration or None
        How :meth:`predict_proba` turns scores into probabilities; None: the
        model has none (a logistic model's scores are still log-odds).
    """

    def __init__(self, coef, intercept, target_names, *, vocabulary=None, selected=None,
                 preprocessing=None, idf=None, thresholds=None, metadata=None,
                 task="multilabel", classes=None, calibration=None):
        self.coef = np.atleast_2d(np.asarray(coef, dtype=np.float64))
        self.intercept = np.asarray(intercept, dtype=np.float64).reshape(-1)
        self.target_names = [str(t) for t in target_names]
        self.vocabulary = None if vocabulary is None else Terms.of(vocabulary)
        self.selected = None if selected is None else np.asarray(selected, dtype=np.int64)
        self.preprocessing = dict(preprocessing or {})
        self.idf = None if idf is None else np.asarray(idf, dtype=np.float64)
        n = self.coef.shape[0]
        self.thresholds = (np.zeros(n) if thresholds is None
                           else np.asarray(thresholds, dtype=np.float64).reshape(-1))
        self.metadata = dict(metadata or {})
        self.task = task
        if classes is None:
            classes = [0, 1] if task == "binary" else list(self.target_names)
        self.classes = list(classes)
        self.calibration = calibration
        self._vectorizer = None
        self._check()

    @classmethod
    def of_estimator(cls, estimator, target_names, *, metadata=None, check=None, **parts):
        """The model of a fitted linear estimator: its weights (:func:`linear_weights`),
        its metadata (:func:`estimator_metadata`, then ``metadata``), and ``parts``,
        the other keywords of :class:`TextModel` (what its columns are: ``vocabulary``,
        ``selected``, ``preprocessing``, ``idf``; ``thresholds``, ``task``, ``classes``,
        ``calibration``).

        ``check``: ``(X, scores)``, rows and the estimator's own scores of them (n_rows,
        n_problems), which the weights must give, or a ValueError (a threshold or bias
        kept outside ``coef_`` and ``intercept_`` would be lost in the file).
        """
        coef, intercept = linear_weights(estimator)
        if check is not None and not weights_give_scores(coef, intercept, *check):
            raise ValueError(f"{type(estimator).__name__}'s scores are not coef_ @ x + "
                             "intercept_; the model cannot be saved")
        return cls(coef, intercept, target_names,
                   metadata={**estimator_metadata(estimator), **(metadata or {})}, **parts)

    # -- validation -----------------------------------------------------
    def _check(self):
        n, d = self.coef.shape
        if self.intercept.shape != (n,):
            raise ModelFormatError(
                f"intercept has {self.intercept.size} values for {n} problems")
        if len(self.target_names) != n:
            raise ModelFormatError(
                f"{len(self.target_names)} category names for {n} problems")
        if self.thresholds.shape != (n,):
            raise ModelFormatError(f"thresholds has {self.thresholds.size} values for {n} problems")
        if self.task not in _TASKS:
            raise ModelFormatError(f"unknown task {self.task!r}; expected one of {list(_TASKS)}")
        if self.task == "binary" and (n != 1 or len(self.classes) != 2):
            raise ModelFormatError(
                f"a binary model has one problem and two classes, not {n} and "
                f"{len(self.classes)}")
        if self.task == "multiclass" and len(self.classes) != n:
            raise ModelFormatError(f"{len(self.classes)} classes for {n} one-vs-rest problems")
        for name in ("coef", "intercept"):
            if not np.all(np.isfinite(getattr(self, name))):
                raise ModelFormatError(f"{name} contains NaN or infinite values")
        calibrated = None if self.calibration is None else self.calibration.n_problems
        if calibrated is not None and calibrated != n:
            raise ModelFormatError(f"the calibration has {calibrated} sigmoids for {n} problems")
        # +inf: a category never predicted (tuned with no positives); -inf: always
        if np.isnan(self.thresholds).any():
            raise ModelFormatError("thresholds contains NaN")
        if self.selected is not None:
            if self.selected.shape != (d,):
                raise ModelFormatError(
                    f"{self.selected.size} selected features for {d} weights per problem")
            if d and self.selected.min() < 0:
                raise ModelFormatError("negative selected feature index")
        if self.vocabulary is not None:
            width = self.vocabulary.size
            if self.selected is None and width != d:
                raise ModelFormatError(f"vocabulary has {width} terms for {d} weights")
            if self.selected is not None and d and self.selected.max() >= width:
                raise ModelFormatError(
                    f"selected feature index {int(self.selected.max())} is beyond the "
                    f"vocabulary of {width} terms")
            if self.idf is not None and self.idf.shape != (width,):
                raise ModelFormatError(f"idf has {self.idf.size} values for {width} terms")
            self._check_preprocessing()

    def _check_preprocessing(self):
        """Refuse settings this textwin's vectorizer cannot apply now, not with a
        traceback (or, for a non-boolean flag, silently) at the first prediction."""
        from .text import TextVectorizer

        unknown = _unknown_options(self.preprocessing)
        if unknown:
            raise ModelFormatError(
                f"preprocessing option(s) {_names(unknown)} unknown to this textwin "
                f"{__version__}: upgrade textwin or re-train the model")
        vec = TextVectorizer(**self.preprocessing)
        for key in ("stem", "lowercase"):
            # the vectorizer only tests their truth: "no" would mean yes
            if not isinstance(getattr(vec, key), bool):
                raise ModelFormatError(
                    f"preprocessing: {key}={getattr(vec, key)!r} is not true or false")
        try:
            vec.check_params()
        except (ValueError, TypeError) as exc:
            raise ModelFormatError(f"preprocessing: {exc}") from None
        if vec.weighting == "tfidf" and self.idf is None:
            raise ModelFormatError("preprocessing: tf-idf weighting without the idf array")

    # -- scoring --------------------------------------------------------
    @property
    def n_features_in_(self):
        """Width of the matrix :meth:`decision_function` expects."""
        if self.vocabulary is not None:
            return int(self.vocabulary.size)
        if self.selected is not None:
            return int(self.selected.max()) + 1 if self.selected.size else 0
        return self.coef.shape[1]

    def vectorizer(self):
        """A :class:`textwin.text.TextVectorizer` rebuilt with the stored vocabulary."""
        if self.vocabulary is None:
            raise ValueError(
                "this model was trained on numeric features (svmlight), not on text: "
                "score a matrix with decision_function(X) instead of raw documents")
        if self._vectorizer is None:
            from .text import TextVectorizer

            vec = TextVectorizer(**self.preprocessing)
            state = dict(vec.__dict__)
            state["vocabulary_"] = self.vocabulary.columns()
            state["n_features_out_"] = int(self.vocabulary.size)
            if self.idf is not None:
                state["idf_"] = self.idf.copy()
            # The vectorizer's unpickling hook restores a fitted vectorizer from its
            # attributes (and rebuilds the stemmer); here the attributes come from
            # plain arrays, not from a pickle.
            vec.__setstate__(state)
            self._vectorizer = vec
        return self._vectorizer

    def transform(self, documents):
        """Document-term matrix of raw ``documents`` restricted to the selected features."""
        if isinstance(documents, str):
            raise TypeError("pass a list of documents, not one string")
        X = self.vectorizer().transform(list(documents))
        return self._select(X)

    def _select(self, X):
        X = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X, dtype=np.float64)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, the model expects {self.n_features_in_}: "
                "pass raw documents to a text model, or a matrix with the columns it was "
                "trained on")
        return X if self.selected is None else X[:, self.selected]

    def _scores(self, X):
        if isinstance(X, (list, tuple)) or (isinstance(X, np.ndarray) and X.dtype.kind in "UO"):
            Xs = self.transform(X)
        else:
            Xs = self._select(X)
        scores = Xs @ self.coef.T
        return np.asarray(scores, dtype=np.float64) + self.intercept

    def decision_function(self, X):
        """Scores of a document-term matrix ``X`` (all vocabulary columns) or of a
        list of raw documents: (n_documents, n_problems), or (n_documents,) for
        a binary model (as the estimator's)."""
        scores = self._scores(X)
        return scores[:, 0] if self.task == "binary" else scores

    def predict(self, X):
        """What the saved estimator predicted: for ``task="multilabel"`` a 0/1
        indicator matrix (1 where a score is above its category's threshold),
        else one class per document (see ``task``)."""
        from .tasks import decide

        labels = decide(self.task, self._scores(X), self.thresholds)
        if self.task == "multilabel":
            return labels.astype(np.uint8)
        return np.asarray(self.classes)[(labels[:, 0] if self.task == "binary"
                                         else labels).astype(np.intp)]

    def probability_calibration(self):
        """The model's :class:`~textwin.calibration.Calibration`; a model without one
        whose estimator had the logistic loss has the loss's link. ValueError, saying
        how to get one, for any other."""
        from .calibration import Calibration

        if self.calibration is not None:
            return self.calibration
        if self.trained_loss() == "logistic":
            return Calibration("logistic")
        raise ValueError(
            "this model holds no calibrated probabilities (its scores are margins); "
            "train it again with `textwin train --proba` (or --auto, which calibrates on "
            "its cross-validation), or TextClassifier(probability=True)")

    def trained_loss(self):
        """The loss the saved estimator was fitted with, when the metadata says it."""
        for meta in (self.metadata, self.metadata.get("wrapped") or {}):
            loss = (meta.get("params") or {}).get("loss") if isinstance(meta, dict) else None
            if loss is not None:
                return loss
        return None

    def predict_proba(self, X):
        """Probabilities of raw documents or a document-term matrix: (n_documents,
        n_classes) normalised over the classes for one label per document (a binary
        model's two classes too), (n_documents, n_categories) for multi-label.
        ValueError for a model without calibration (:meth:`probability_calibration`)."""
        calibration = self.probability_calibration()
        return calibration.predict_proba(self._scores(X), self.task)

    def explain(self, documents, n_terms=5, labels=None):
        """For each document, the ``n_terms`` terms that contributed most to each of its
        labels (:func:`textwin.explanations.explain`: ``{label: {"score", "intercept",
        "terms", "rest"}}``, each term with the words the document writes it in and its
        contribution ``w_j x_j``). ``labels``: one list of labels per document (default:
        those :meth:`predict` gives)."""
        from .explanations import explain

        documents = list(documents)
        if labels is None:
            predicted = self.predict(documents)
            if self.task == "multilabel":
                labels = [[self.target_names[k] for k in np.flatnonzero(row)]
                          for row in predicted]
            else:
                labels = [[c] for c in predicted]
        requests = [[(label, *self.problem_of(label)) for label in row] for row in labels]
        coef = self.coef
        if self.selected is not None:  # weights over the whole vocabulary
            coef = np.zeros((coef.shape[0], self.vocabulary.size))
            coef[:, self.selected] = self.coef
        return explain(self.vectorizer(), coef, self.intercept, documents, requests,
                       n_terms, self.vocabulary)

    def problem_of(self, label):
        """``(k, sign)``: the problem whose score gives ``label`` and the sign of the
        scores that give it (-1: a binary model's first class, given by low scores)."""
        names = ([str(c) for c in self.classes] if self.task == "binary"
                 else self.target_names)
        try:
            j = names.index(str(label))
        except ValueError:
            raise ValueError(f"{label!r} is not one of the model's labels "
                             f"{names}") from None
        if self.task == "binary":
            return 0, 1 if j == 1 else -1
        return j, 1

    def __repr__(self):
        n, d = self.coef.shape
        voc = "numeric features" if self.vocabulary is None else f"{self.vocabulary.size} terms"
        return f"TextModel({n} categories, {d} weights each, {voc})"


def _unknown_options(preprocessing):
    """The keys of ``preprocessing`` that are not :class:`textwin.text.TextVectorizer`'s
    parameters (a model file written by a newer textwin may have some)."""
    from .text import TextVectorizer

    known = TextVectorizer().get_params()
    return [key for key in preprocessing if key not in known]


def _names(keys):
    return ", ".join(repr(k) for k in keys)


def _qualified_name(obj):
    return type(obj).__module__ + "." + type(obj).__qualname__


def estimator_metadata(model):
    """What a model file records about a fitted estimator: its class, its
    parameters (those JSON can hold) and, when it has them, the lam chosen for each
    binary problem (a search's ``lam_``), their duality gaps and epochs."""
    meta = {"estimator": _qualified_name(model), "params": _estimator_params(model)}
    for attr, key in (("lam_", "lam"), ("duality_gap_", "duality_gap"), ("n_iter_", "n_iter")):
        if hasattr(model, attr):
            meta[key] = _jsonable(np.asarray(getattr(model, attr)).tolist())
    if hasattr(model, "duality_gap_"):
        meta["stopping_rule"] = STOPPING_RULE
    if hasattr(model, "estimator_"):  # a wrapper (TunedThresholdsClassifierCV): what it wraps
        meta["wrapped"] = estimator_metadata(model.estimator_)
    return meta


def linear_weights(model):
    """``(coef, intercept)`` of a fitted linear estimator, as dense float arrays.

    ``coef`` has one row per binary problem; ``intercept`` one value per row (0
    without ``intercept_``). A one-vs-rest wrapper (``estimators_``, e.g. around
    scikit-learn's ``SVC``) gives one row per wrapped estimator.
    """
    if not hasattr(model, "coef_") and hasattr(model, "estimators_"):
        parts = [linear_weights(e) for e in model.estimators_]
        return np.vstack([c for c, _ in parts]), np.concatenate([b for _, b in parts])
    coef = model.coef_
    coef = np.atleast_2d(coef.toarray() if sp.issparse(coef)
                         else np.asarray(coef, dtype=np.float64))
    intercept = np.broadcast_to(
        np.asarray(getattr(model, "intercept_", 0.0), dtype=np.float64).reshape(-1),
        (coef.shape[0],)).copy()
    return coef, intercept


def weights_give_scores(coef, intercept, X, scores):
    """Whether ``X @ coef.T + intercept`` are a linear estimator's own ``scores`` (n_rows,
    n_problems) on the rows ``X``: a model file keeps only the weights, so a threshold or
    bias kept outside them would be lost. ``coef`` is multiplied a block of rows at a
    time (:func:`times_transposed`)."""
    scores = np.asarray(scores, dtype=np.float64).reshape(X.shape[0], -1)
    if scores.shape[1] != coef.shape[0]:
        return False
    return bool(np.allclose(times_transposed(X, coef) + intercept, scores, rtol=1e-7,
                            atol=1e-9))


def times_transposed(X, coef):
    """``X @ coef.T`` (CSR X, dense coef), about 4 MB of ``coef``'s rows at a time: scipy
    copies ``coef.T`` whole into C order first (Reuters 90's titles with character
    n-grams: 90 x 101,529 weights, 70 MB). Each score sums its row's terms in the same
    order: the same bits."""
    out = np.empty((X.shape[0], coef.shape[0]))
    block = max(1, 2**19 // max(coef.shape[1], 1))
    for k in range(0, coef.shape[0], block):
        out[:, k:k + block] = X @ coef[k:k + block].T
    return out


def _task_and_classes(model, n_problems):
    """``(task, classes)`` of a fitted estimator: what its ``predict`` returns."""
    mode = getattr(model, "task_", None)  # textwin's estimators say it
    inner = getattr(model, "estimator_", None)  # a wrapper: what it wraps
    if mode is None and inner is not None:
        mode = getattr(inner, "task_", None)
    classes = getattr(model, "classes_", None)
    if mode is None:  # another library's estimator: from its classes and weights
        if classes is None or getattr(model, "multilabel_", False):
            mode = "multilabel"
        elif n_problems == 1 and len(classes) == 2:
            mode = "binary"
        elif len(classes) == n_problems > 2:
            mode = "multiclass"
        else:
            mode = "multilabel"
    if mode == "multilabel" or classes is None:
        return "multilabel", None
    return mode, [_plain_label(c) for c in classes]


def _from_parts(model, *, vectorizer=None, selector=None, target_names=None,
                thresholds=None, metadata=None):
    """Build a :class:`TextModel` from a fitted estimator and optional preprocessing."""
    n_problems = linear_weights(model)[0].shape[0]
    task, classes = _task_and_classes(model, n_problems)
    if target_names is None:
        classes = getattr(model, "classes_", None)
        if classes is not None and len(classes) == n_problems:
            target_names = [str(c) for c in classes]
        elif classes is not None and n_problems == 1 and len(classes) == 2:
            target_names = [str(classes[1])]
        else:
            target_names = [f"category_{i}" for i in range(n_problems)]
    vocabulary = preprocessing = idf = None
    if vectorizer is not None:
        _check_vectorizer(vectorizer)
        if getattr(vectorizer, "n_features", None) is not None:
            raise ValueError(
                "a model file stores the vectorizer's vocabulary, and a TextVectorizer with "
                f"n_features={vectorizer.n_features} (hashed columns) has none; save the "
                "pipeline with joblib.dump, or vectorize with n_features=None")
        vocabulary = vectorizer.vocabulary_
        preprocessing = {k: v for k, v in _estimator_params(vectorizer).items()}
        if hasattr(vectorizer, "preprocessing_params"):  # the stemmer it was fitted with
            preprocessing.update(vectorizer.preprocessing_params())
        idf = getattr(vectorizer, "idf_", None)
    selected = None
    if selector is not None:
        selected = np.asarray(selector.get_support(indices=True), dtype=np.int64)
    if thresholds is None and hasattr(model, "thresholds_"):
        thresholds = model.thresholds_
    meta = {}
    if selector is not None:
        meta["selector"] = _qualified_name(selector)
        meta["selector_params"] = _estimator_params(selector)
    meta.update(metadata or {})
    return TextModel.of_estimator(model, target_names, metadata=meta, vocabulary=vocabulary,
                                  selected=selected, preprocessing=preprocessing, idf=idf,
                                  thresholds=thresholds, task=task, classes=classes,
                                  calibration=getattr(model, "calibration_", None))


def _check_vectorizer(vectorizer):
    """A model file stores textwin's vectorizer as its settings and vocabulary; no other
    vectorizer's tokenizer, analyzer or options can be stored that way."""
    from .text import TextVectorizer

    if not isinstance(vectorizer, TextVectorizer):
        raise ValueError(
            f"a model file can hold only textwin's vectorizer (textwin.text.TextVectorizer), "
            f"not {_qualified_name(vectorizer)}: vectorize with TextVectorizer (its "
            f"weighting='tfidf' is tf-idf), or save this pipeline with joblib.dump")


def save_model(path, model, *, vectorizer=None, selector=None, target_names=None,
               thresholds=None, metadata=None):
    """Write a model file (atomically) and return the :class:`TextModel` written.

    Parameters
    ----------
    path : str or Path
        Destination; ``.npz`` is the conventional suffix.
    model : TextModel, sklearn Pipeline or fitted linear estimator
        A ``Pipeline`` is taken apart as (vectorizer, [selector,] estimator):
        its first step must have ``vocabulary_``, an optional middle step
        ``get_support``, its last step ``coef_``. A bare estimator needs
        ``coef_`` (and ``intercept_``); pass ``vectorizer``/``selector`` to make
        it score raw text.
    vectorizer, selector : fitted transformers, optional
    target_names : list of str, optional
        Category names (default: the estimator's ``classes_``).
    thresholds : array, optional
        Per-category decision thresholds (default 0).
    metadata : dict, optional
        Extra JSON-serialisable information (training scores, corpus, ...).
    """
    if isinstance(model, (str, os.PathLike)) and not isinstance(path, (str, os.PathLike)):
        # joblib.dump(value, filename) has the other order
        raise TypeError("save_model(path, model): the path comes first, got "
                        f"save_model({type(path).__name__}, {type(model).__name__})")
    if not isinstance(model, TextModel):
        steps = getattr(model, "steps", None)
        if steps is not None:
            parts = [step for _, step in steps if step not in (None, "passthrough")]
            estimator = parts[-1]
            for part in parts[:-1]:
                if hasattr(part, "vocabulary_") or hasattr(part, "document_frequency_"):
                    vectorizer = part  # (the latter: hashed columns, refused below)
                elif hasattr(part, "get_support"):
                    selector = part
                else:
                    raise ValueError(
                        f"cannot store pipeline step {type(part).__name__}: a model file "
                        "holds a vectorizer, a feature selector and a linear estimator")
            model = estimator
        if not hasattr(model, "coef_"):
            raise ValueError(
                f"{type(model).__name__} has no coef_: fit a linear estimator before saving it")
        model = _from_parts(model, vectorizer=vectorizer, selector=selector,
                            target_names=target_names, thresholds=thresholds, metadata=metadata)
    elif metadata:
        model.metadata.update(metadata)

    meta = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "textwin_version": __version__,
        "target_names": model.target_names,
        "task": model.task,
        "classes": [_plain_label(c) for c in model.classes],
        "preprocessing": _jsonable(model.preprocessing),
        "metadata": _jsonable(model.metadata) or {},
    }
    if model.calibration is not None:
        meta["calibration"] = model.calibration.to_json()
    arrays = {
        "coef": model.coef,
        "intercept": model.intercept,
        "thresholds": model.thresholds,
    }
    if model.vocabulary is not None:
        arrays["terms_utf8"] = model.vocabulary.utf8
        arrays["term_offsets"] = model.vocabulary.offsets
    if model.selected is not None:
        arrays["selected"] = model.selected
    if model.idf is not None:
        arrays["idf"] = model.idf
    arrays[_META_KEY] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    with atomic_write(path) as fh:
        _write_npz(fh, arrays)
    return model


#: How much of an array goes to the compressor at a time.
_WRITE_SLICE = 1 << 20


def _write_npz(fh, arrays):
    """The archive :func:`numpy.savez_compressed` writes (deflated ``.npy`` entries),
    each array passed to the compressor a slice at a time: numpy's writer copies an
    array twice, up to 16 MiB each, which was the peak of ``textwin train``."""
    with zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED) as archive:
        for key, array in arrays.items():
            array = np.ascontiguousarray(array)
            with archive.open(key + ".npy", "w", force_zip64=True) as entry:
                np.lib.format.write_array_header_1_0(
                    entry, np.lib.format.header_data_from_array_1_0(array))
                data = array.reshape(-1).view(np.uint8)
                for start in range(0, data.size, _WRITE_SLICE):
                    entry.write(data[start:start + _WRITE_SLICE])


def _bad(path, why):
    return ModelFormatError(
        f"{path} is not a usable textwin model file ({why}); re-create it with "
        "`textwin train --output MODEL.npz` or textwin.persistence.save_model")


def load_model(path):
    """Read a model file written by :func:`save_model`.

    Never unpickles: arrays are read with ``allow_pickle=False`` and the
    metadata is JSON. Every array's declared shape and size is checked before
    any array is read.

    Raises
    ------
    FileNotFoundError
        The file does not exist.
    ModelFormatError
        The path is not a regular file (a folder, a named pipe, a device), or
        the file is corrupted, truncated, not a textwin model, larger than the
        memory free, or written by a textwin whose major format version this
        one does not know.
    """
    path = Path(path)
    _check_regular_file(path)
    # Look at the first bytes before numpy does: for anything that is not a zip
    # archive, np.load would suggest unpickling it, which a model file never needs.
    with open(path, "rb") as fh:
        head = fh.read(6)
    if not head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        what = ("a bare .npy array" if head.startswith(b"\x93NUMPY")
                else "a Python pickle, which textwin never loads" if head[:1] == b"\x80"
                else "an empty file" if not head else "not a zip archive")
        raise _bad(path, f"{what}; a model file is an .npz archive")
    try:
        with zipfile.ZipFile(path) as archive:
            meta, version = _read_metadata(path, archive)
            declared = _declared_arrays(path, archive)
            _check_declared(path, declared, meta)
            arrays = {key: _read_array(archive, info) for key, (_, info) in declared.items()}
    except ModelFormatError:
        raise
    except Exception as exc:  # noqa: BLE001
        # A damaged archive fails in many ways (BadZipFile, zlib.error, EOFError,
        # a CRC mismatch, a bad .npy header, a refused object array): each one
        # means the same thing to the user.
        raise _bad(path, f"cannot be read as an .npz archive: {exc}") from None
    _check_arrays(path, arrays)
    return _model_from(path, arrays, meta, version)


_FILE_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
               (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
               (stat.S_ISSOCK, "a socket"))


def _check_regular_file(path):
    """FileNotFoundError if nothing is there; ModelFormatError, saying what it is, if
    it is not a regular file (opening a named pipe would wait for a writer, and a
    device such as /dev/zero never ends)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"model file not found: {path}") from None
    if not stat.S_ISREG(mode):
        what = next((name for test, name in _FILE_KINDS if test(mode)), "not a regular file")
        raise ModelFormatError(
            f"{path} is {what}, not a model file: give the .npz file that "
            "`textwin train --output MODEL.npz` wrote")


def _read_metadata(path, archive):
    """The metadata (a dict naming the format) and its format version, or ModelFormatError."""
    try:
        info = archive.getinfo(_META_KEY + ".npy")
    except KeyError:
        raise _bad(path, "no textwin metadata: another program's .npz") from None
    if info.file_size > _MAX_METADATA_BYTES:
        raise _bad(path, f"its metadata declares {_size(info.file_size)}, more than the "
                         f"{_size(_MAX_METADATA_BYTES)} a model's metadata may take")
    _declared_shape(path, archive, info, "metadata")
    raw = _read_array(archive, info)
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise _bad(path, "metadata is not a byte string")
    try:
        meta = json.loads(raw.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _bad(path, f"metadata is not valid JSON: {exc}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise _bad(path, "metadata does not name the textwin model format")
    version = str(meta.get("format_version", ""))
    if "format_version" not in meta or not version.strip():
        # no version at all: not an older or newer textwin's model (every one writes it),
        # but a file damaged or written by hand; no textwin reads it
        raise _bad(path, "its metadata has no format_version, which every textwin writes: "
                         "the file was damaged or made by another program")
    if version.split(".")[0] not in _READ_MAJORS:
        raise ModelFormatError(
            f"{path} uses model format {version!r} (written by textwin "
            f"{meta.get('textwin_version', '?')}); this textwin {__version__} reads formats "
            f"{' and '.join(m + '.x' for m in _READ_MAJORS)}: upgrade textwin or re-train "
            "the model")
    return meta, version


def _declared_arrays(path, archive):
    """{name: (shape, zip entry)} of the model's arrays, from their .npy headers alone."""
    declared = {}
    for key in _ARRAYS:
        try:
            info = archive.getinfo(key + ".npy")
        except KeyError:
            continue
        declared[key] = (_declared_shape(path, archive, info, key), info)
    return declared


def _declared_shape(path, archive, info, key):
    """The shape an entry's .npy header declares, checked to fill the entry exactly
    (the header and the archive's uncompressed size agree); no array data is read."""
    with archive.open(info) as fh:
        version = np.lib.format.read_magic(fh)
        if version not in ((1, 0), (2, 0)):
            raise _bad(path, f"the {key} array has .npy format version {version}")
        read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                       else np.lib.format.read_array_header_2_0)
        shape, _, dtype = read_header(fh)
        header = fh.tell()
    if dtype.hasobject:
        raise _bad(path, f"the {key} array holds Python objects, which textwin never loads")
    data = math.prod(shape) * dtype.itemsize
    if header + data != info.file_size:
        held = max(info.file_size - header, 0)
        declared, found = _size(data), _size(held)
        if declared == found:  # near sizes: the bytes tell them apart
            declared, found = f"{data:,} bytes", f"{held:,} bytes"
        raise _bad(path, f"the {key} array's header declares shape {shape} ({declared}), "
                         f"but its archive entry holds {found}")
    return shape


def _check_declared(path, declared, meta):
    """Refuse, before reading them, arrays whose declared shapes disagree with the
    category names or with one another, or that would not fit in the memory free."""
    shapes = {key: shape for key, (shape, _) in declared.items()}
    for key in ("coef", "intercept"):
        if key not in shapes:
            raise _bad(path, f"the {key!r} array is missing")
    if len(shapes["coef"]) != 2:
        raise _bad(path, f"coef has {len(shapes['coef'])} dimensions, expected 2")
    names = meta.get("target_names")
    n = len(names) if isinstance(names, list) else shapes["coef"][0]
    width = _declared_width(path, shapes)
    d = shapes["selected"][0] if len(shapes.get("selected", ())) == 1 else width
    expected = {"coef": (n, shapes["coef"][1] if d is None else d), "intercept": (n,),
                "thresholds": (n,), "idf": (width,) if width is not None else shapes.get("idf")}
    for key, shape in expected.items():
        if key in shapes and shapes[key] != shape:
            raise _bad(path, f"the {key} array's header declares shape {shapes[key]}, where "
                             f"the categories and the other arrays make it {shape}")
    total = sum(info.file_size for _, info in declared.values())
    free = available_memory()
    if free is not None and total > free:
        raise _bad(path, f"its arrays declare {_size(total)}, more than the {_size(free)} "
                         "of memory free")


def _declared_width(path, shapes):
    """The number of terms the arrays' headers declare (None: no vocabulary), with the
    terms' bytes and offsets declared together, 1-d, and no format 1 ``vocabulary``
    beside them."""
    if "vocabulary" in shapes:
        if "terms_utf8" in shapes or "term_offsets" in shapes:
            raise _bad(path, "it holds two vocabularies, the format 1 vocabulary array and "
                             "the terms' bytes and offsets")
        return shapes["vocabulary"][0] if len(shapes["vocabulary"]) == 1 else None
    given = [key for key in ("terms_utf8", "term_offsets") if key in shapes]
    if len(given) == 1:
        raise _bad(path, f"the {given[0]} array is there without "
                         f"{'term_offsets' if given == ['terms_utf8'] else 'terms_utf8'}")
    if not given:
        return None
    for key in given:
        if len(shapes[key]) != 1 or shapes[key] == (0,) and key == "term_offsets":
            raise _bad(path, f"the {key} array's header declares shape {shapes[key]}, where "
                             "a vocabulary's is one-dimensional (term_offsets: the terms "
                             "plus one)")
    return shapes["term_offsets"][0] - 1


def _size(nbytes):
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if nbytes >= scale:
            return f"{nbytes / scale:.1f} {unit}"
    return f"{nbytes} bytes"


def _read_array(archive, info):
    with archive.open(info) as fh:
        return np.lib.format.read_array(fh, allow_pickle=False)


def _check_arrays(path, arrays):
    for key, arr in arrays.items():
        if key == "vocabulary":
            if arr.dtype.kind != "U" or arr.ndim != 1:
                raise _bad(path, "vocabulary is not an array of strings")
        elif key == "terms_utf8":
            if arr.dtype != np.uint8:
                raise _bad(path, f"terms_utf8 is not an array of bytes (uint8) but {arr.dtype}")
        elif key == "term_offsets":
            if arr.dtype.kind not in "iu":
                raise _bad(path, f"term_offsets is not an array of integers but {arr.dtype}")
        elif key == "selected":
            if arr.dtype.kind not in "iu" or arr.ndim != 1:
                raise _bad(path, "selected is not an array of integers")
        elif arr.dtype.kind not in "fiu":
            raise _bad(path, f"{key} is not numeric")


def _model_from(path, arrays, meta, version):
    """The :class:`TextModel` of a file's checked arrays and metadata."""
    classes = meta.get("classes")
    if classes is not None and not isinstance(classes, list):
        raise _bad(path, "classes is not a list")
    preprocessing = meta.get("preprocessing") or {}
    if not isinstance(preprocessing, dict):
        raise _bad(path, "preprocessing is not a JSON object")
    calibration = None
    if meta.get("calibration") is not None:
        from .calibration import Calibration

        try:
            calibration = Calibration.from_json(meta["calibration"])
        except ValueError as exc:
            raise _bad(path, str(exc)) from None
    terms = _stored_terms(path, arrays)
    unknown = _unknown_options(preprocessing) if terms is not None else []
    if unknown:  # a newer minor format may add options: not a damaged file
        raise ModelFormatError(
            f"{path} uses preprocessing option(s) {_names(unknown)} (model format "
            f"{version!r}, written by textwin {meta.get('textwin_version', '?')}) that this "
            f"textwin {__version__} does not know: upgrade textwin or re-train the model")
    try:
        model = TextModel(
            arrays["coef"], arrays["intercept"], meta.get("target_names") or [],
            vocabulary=terms, selected=arrays.get("selected"),
            preprocessing=preprocessing, idf=arrays.get("idf"),
            thresholds=arrays.get("thresholds"),
            metadata=dict(meta.get("metadata") or {},
                          textwin_version=meta.get("textwin_version"),
                          format_version=version),
            task=meta.get("task", "multilabel"), classes=classes, calibration=calibration)
        if terms is not None:
            model.vectorizer()  # now: a term given twice is refused here, not at predict
    except ModelFormatError as exc:
        raise _bad(path, str(exc)) from None
    return model


def _stored_terms(path, arrays):
    """The file's :class:`Terms` (format 2: bytes and offsets; format 1: a string
    array, converted), or None for a model of numeric features."""
    try:
        if "term_offsets" in arrays:
            return Terms(arrays.pop("terms_utf8"), arrays.pop("term_offsets"))
        if "vocabulary" in arrays:
            return Terms.of(arrays.pop("vocabulary"))
    except ModelFormatError as exc:
        raise _bad(path, str(exc)) from None
    return None


def is_model_file(path, max_metadata_bytes=1 << 24):
    """True if ``path`` is a textwin model file (any format version): a zip archive
    whose metadata names the format. Reads the metadata only, so that a command
    may tell its own earlier output, which it may replace, from a user's file."""
    try:
        with zipfile.ZipFile(path) as archive:
            info = archive.getinfo(_META_KEY + ".npy")
            if info.file_size > max_metadata_bytes:
                return False
            _declared_shape(path, archive, info, "metadata")  # no allocation past the entry
            raw = _read_array(archive, info)
        meta = json.loads(raw.tobytes().decode("utf-8"))
    except Exception:  # noqa: BLE001 - whatever it is, it is not a model of ours
        return False
    return isinstance(meta, dict) and meta.get("format") == FORMAT_NAME
