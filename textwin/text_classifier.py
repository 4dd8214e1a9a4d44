"""Raw texts in, categories out: :class:`TextClassifier` and :class:`TextClassifierCV`.

:class:`TextClassifier` is a :class:`~textwin.text.TextVectorizer` and a
:class:`~textwin.DualGaussSeidelClassifier` in one scikit-learn estimator, with
the command line's defaults on a user's corpus: tf-idf over every stem, the
hinge loss, ``lam = 1/n`` (scikit-learn's ``C = 1``). The task is read from the
labels (:func:`textwin.tasks.detect_task`): a 1-d ``y`` is single-label, label
lists or an indicator matrix are multi-label unless every document has exactly
one label. It saves to and loads from textwin's model files
(:mod:`textwin.persistence`), never a pickle.

:class:`TextClassifierCV` chooses the features and ``lam`` together by
cross-validation on the training texts alone: each fold's matrices are derived from
the words found once (:func:`textwin.text.fold_matrices`), the out-of-fold engine of
:mod:`textwin.model_selection` solves the paths and judges their scores at the
model's own decision rule (docs/mathematics.md §13), and the best setting is refitted.
"""
import itertools
import sys
import time
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted
from tqdm import tqdm

from textwin._losses_and_regularizers import loss_named
from textwin._ovr import store_params
from textwin.calibration import Calibration, calibrate
from textwin.linear import DualGaussSeidelClassifier
from textwin.feature_selection import document_counts, nb_ratios, scale_columns  # noqa: F401
from textwin.model_selection._budget import TimeBudget
from textwin.model_selection._choice import FoldJudge, check_choice, choice_of, descend, rule_for
from textwin.model_selection._results import cv_results, result_rows, search_summary
from textwin.model_selection._split import SmallClassWarning, fold_of, text_folds
from textwin.model_selection._validation import FoldPaths, matrix_folds
from textwin.persistence import TextModel, load_model, save_model
from textwin.tasks import (decide, encode_labels, never_given,  # noqa: F401 (public)
                           problem_positives)
from textwin.text import (MAX_NGRAM, TextVectorizer, Words, check_char_ngrams, detect_language,
                          detect_unspaced_script, fold_matrices)

__all__ = ["TextClassifier", "TextClassifierCV", "SmallClassWarning"]

#: ``TextClassifierCV`` tries character n-grams (beside the best words) on training texts
#: of at most this many characters: about 8 million nonzeros a matrix, 100 MB.
CHAR_SEARCH_CHARACTERS = 2_000_000

#: The default grid of ``lam * n`` (lam in units of 1/n, the default lam; scikit-learn's
#: ``C = 1 / (lam n)`` from 0.1 to 100).
DEFAULT_LAM_N = np.logspace(1, -2, 7)

# ---------------------------------------------------------------------------
# Labels
# ---------------------------------------------------------------------------

def _training_data(X, y, task, name):
    """The training texts as a list, and :func:`encode_labels` of ``y``."""
    texts = _texts(X, name)
    labels = encode_labels(y, task)
    if len(texts) != labels[0].shape[0]:
        raise ValueError(f"{name}: {len(texts)} texts but {labels[0].shape[0]} labels")
    return texts, labels


def _texts(X, name):
    """``X`` as a list of str, or a ValueError that names the first text that is not one."""
    if isinstance(X, (str, bytes)):
        raise TypeError(f"{name} expects a list of texts, got a single string; wrap it: [text]")
    columns = getattr(X, "columns", None)
    if columns is not None and getattr(X, "ndim", 1) == 2:  # a DataFrame: list() gives its names
        raise ValueError(f"{name} expects texts, got a table of {len(columns)} column"
                         f"{'' if len(columns) == 1 else 's'} ({', '.join(map(str, columns))}); "
                         f"give its column of texts, e.g. X[{str(columns[0])!r}]")
    if getattr(X, "ndim", 1) != 1:
        raise ValueError(f"{name} expects a 1-d sequence of texts, got an array of shape "
                         f"{X.shape}")
    texts = X if isinstance(X, list) else list(X)
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            what = "None" if text is None else f"a {type(text).__name__}"
            advice = ("decode it first (text.decode(encoding))" if isinstance(text, bytes)
                      else "give every text as a str (an empty one is allowed)")
            raise ValueError(f"{name}: text {i} is {what}, not a str: {advice}")
    return texts


# ---------------------------------------------------------------------------
# The estimator
# ---------------------------------------------------------------------------

def intercept_params(fit_intercept):
    """The DualGaussSeidelClassifier parameters of a bias as a constant feature (or none)."""
    return ({"fit_intercept": True, "intercept_solver": "constant_feature"} if fit_intercept
            else {"fit_intercept": False})


def resolve_language(language, texts):
    """``language``, or for "auto" the language of the texts' function words
    (:func:`~textwin.text.detect_language`), English when none is recognised."""
    return (detect_language(texts) or "english") if language == "auto" else language


#: The character n-grams of texts in a script without spaces between words, in place of
#: the words (whole clauses there): the characters, their pairs and their triples.
UNSPACED_CHARS = (1, 3)


def resolve_chars(chars, texts):
    """``(chars, script)``: for "auto", :data:`UNSPACED_CHARS` when the texts are written in
    a script without spaces between words (``script`` names it:
    :func:`~textwin.text.detect_unspaced_script`), else None; another value as it is."""
    if isinstance(chars, str) and chars == "auto":
        script = detect_unspaced_script(texts)
        return (UNSPACED_CHARS if script else None), script
    return chars, None


def make_vectorizer(weighting, stem, ngrams, language, min_df, chars=None):
    """The :class:`TextVectorizer` of these settings: word n-grams up to ``ngrams`` (0:
    none, only with ``chars``) and character n-grams ``chars`` ((min_n, max_n) or None)."""
    params = dict(weighting=weighting, stem=stem, language=language, min_df=min_df,
                  char_ngrams=check_char_ngrams(chars))
    lowest = 0 if chars is not None else 1
    if not (isinstance(ngrams, Integral) and lowest <= ngrams <= MAX_NGRAM):
        raise ValueError(f"ngrams={ngrams!r}: word n-grams up to an integer from {lowest} to "
                         f"{MAX_NGRAM}" + ("" if lowest else " (0: none, with chars only)"))
    if ngrams != 1:
        params["ngram_range"] = (1, ngrams) if ngrams else None
    return TextVectorizer(**params)


class TextClassifier(ClassifierMixin, BaseEstimator):
    """A text classifier on raw texts: :class:`~textwin.text.TextVectorizer` then
    :class:`~textwin.DualGaussSeidelClassifier`.

    Parameters
    ----------
    weighting : {"tfidf", "count", "binary"}, default="tfidf"
    stem : bool, default=True
        Porter (or ``language``'s Snowball) stems instead of words.
    ngrams : int, default=1
        Word n-grams up to this length (2: words and pairs of adjacent words; 0: no
        words, only ``chars``).
    chars : tuple (min_n, max_n), None or "auto", default="auto"
        Character n-grams inside word boundaries too, as scikit-learn's
        ``analyzer="char_wb"`` (``TextVectorizer(char_ngrams=...)``): (2, 5) is
        the usual choice for tweets and languages without a stemmer. "auto": none,
        but for texts in a script without spaces between words (Chinese,
        Japanese, Thai: :func:`~textwin.text.detect_unspaced_script`)
        :data:`UNSPACED_CHARS`, (1, 3), in place of the words (``chars_`` and
        ``script_`` after fit).
    language : str, default="auto"
        As in :class:`~textwin.text.TextVectorizer`; "auto": the language whose
        function words the training texts use (:func:`~textwin.text.
        detect_language`), English when none is recognised, as the command line
        reads it (``language_`` after fit).
    min_df : int or float, default=1
        As in :class:`~textwin.text.TextVectorizer`.
    nb_scaling : bool, default=False
        Scale each feature by its naive Bayes log-count ratio (Wang & Manning 2012,
        NBSVM without interpolation), for each binary problem its own (one-vs-rest
        for several classes). The scaling is folded into ``coef_``, so a saved model
        scores as a plain linear one.
    loss : {"hinge", "squared_hinge", "least_squares", "logistic"}, default="hinge"
    fit_intercept : bool, default=False
        A bias, as a constant feature of value 1 (regularized as the weights are, as in
        liblinear).
    lam : float, array of shape (n_classes,) or None, default=None
        The regularization; None is ``1/n`` for ``n`` training texts
        (scikit-learn's ``C = 1``). An array (multi-label only) gives each
        category its own.
    thresholds : float, array of shape (n_classes,) or None, default=None
        Multi-label: a text is in a category where its score is above the
        category's threshold (None: 0). Single-label: subtracted from the scores
        before the argmax.
    task : {None, "multiclass", "multilabel"}, default=None
        Force the task (see :func:`textwin.tasks.detect_task`).
    probability : bool, default=False
        Calibrate probabilities for :meth:`predict_proba`, as
        ``sklearn.svm.SVC(probability=True)`` and scikit-learn's
        ``CalibratedClassifierCV(method="sigmoid")`` do: 5 stratified folds of the
        texts (fewer for a class of fewer than 5 texts), each fold's vectorizer and
        model fitted on its training part, give every text an out-of-fold score, and
        Platt's sigmoid fitted on them per class turns the final model's scores into
        probabilities (:mod:`textwin.calibration`). About 4 more fits. Without it
        the logistic loss's scores are log-odds already (at the default ``lam``,
        too timid ones: on AG News their log-loss is 0.57, against 0.38 calibrated).
    tol, max_epochs, random_state, n_jobs, verbose
        As in :class:`~textwin.DualGaussSeidelClassifier`.

    Attributes
    ----------
    vectorizer_ : TextVectorizer
    coef_ : ndarray of shape (n_problems, n_features)
        One row per binary problem (one for two classes), the naive Bayes scaling
        folded in.
    intercept_ : ndarray of shape (n_problems,)
    thresholds_ : ndarray of shape (n_problems,)
    classes_ : ndarray
        The classes (single-label) or categories (multi-label, the columns of
        ``predict``'s indicator matrix).
    task_ : {"binary", "multiclass", "multilabel"}
    lam_ : ndarray of shape (n_problems,)
    duality_gap_, n_iter_ : ndarray of shape (n_problems,)
    calibration_ : textwin.calibration.Calibration
        How :meth:`predict_proba` turns scores into probabilities (the logistic
        loss, ``probability=True``, or a :class:`TextClassifierCV`'s choice).

    Examples
    --------
    >>> from textwin import TextClassifier
    >>> texts = ["wheat and corn harvest", "corn prices rise", "bank rates fall",
    ...          "central bank loans", "grain harvest up", "bank profits fall"]
    >>> clf = TextClassifier().fit(texts, ["grain", "grain", "money", "money", "grain", "money"])
    >>> clf.predict(["a bank", "the corn harvest"]).tolist()
    ['money', 'grain']
    """

    def __init__(self, weighting="tfidf", stem=True, ngrams=1, chars="auto", language="auto",
                 min_df=1, nb_scaling=False, loss="hinge", fit_intercept=False, lam=None,
                 thresholds=None, task=None, probability=False, tol=1e-3, max_epochs=1000,
                 random_state=0, n_jobs=None, verbose=0):
        store_params(self, locals())

    def _vectorizer(self, language):
        chars, script = getattr(self, "chars_", self.chars), getattr(self, "script_", None)
        return make_vectorizer(self.weighting, self.stem, 0 if script else self.ngrams,
                               language, self.min_df, chars)

    def _model(self, lam):
        return DualGaussSeidelClassifier(
            loss=self.loss, lam=lam, **intercept_params(self.fit_intercept), tol=self.tol, max_epochs=self.max_epochs,
            random_state=self.random_state, n_jobs=self.n_jobs, verbose=self.verbose)

    def fit(self, X, y):
        """Learn the vocabulary and the weights from raw texts.

        Parameters
        ----------
        X : iterable of str
        y : array-like of shape (n_texts,), list of label lists, or an indicator
            matrix of shape (n_texts, n_categories)

        Returns
        -------
        self : TextClassifier
        """
        return self._fit(X, y)

    def _fit(self, X, y, words=None):
        """:meth:`fit`; with ``words`` (:class:`~textwin.text.Words` of the texts), the
        words are not found again."""
        texts, (Y, classes, task) = _training_data(X, y, self.task, type(self).__name__)
        self.language_ = resolve_language(self.language, texts)
        self.chars_, self.script_ = resolve_chars(self.chars, texts)
        vectorizer = self._vectorizer(self.language_)
        Xm = (vectorizer._fit_words(words) if words is not None and words.fit(vectorizer)
              else vectorizer.fit_transform(texts))
        self._fit_matrix(Xm, Y, task)
        self.vectorizer_, self.classes_, self.task_ = vectorizer, classes, task
        self.n_features_in_ = Xm.shape[1]
        self.__dict__.pop("calibration_", None)
        if self.probability:
            self.calibration_ = self._calibrate(texts, Y, task, classes, vectorizer, words)
        elif loss_named(self.loss).probabilistic:
            self.calibration_ = Calibration("logistic")
        return self

    def _calibrate(self, texts, Y, task, classes, vectorizer, words):
        """Platt's sigmoids on out-of-fold scores: on each fold, a vectorizer and a model
        fitted on its training texts score its held-out ones."""
        name = type(self).__name__
        n = len(texts)
        smallest = n if task == "multilabel" else int(Y.sum(axis=0).min())
        if min(smallest, n) < 2:
            raise ValueError(f"{name}: probability=True calibrates on held-out scores, and a "
                             f"class has {smallest} text; give every class 2 or more")
        folds = text_folds(name, min(5, smallest, n), Y, task, classes, self.random_state)
        scores = np.empty((n, 1 if task == "binary" else Y.shape[1]))
        fold = clone(self).set_params(probability=False, verbose=0)
        for (train, test), (A, B) in zip(folds, fold_matrices(vectorizer, texts, folds, words)):
            with warnings.catch_warnings():  # the final fit says what the folds' would
                warnings.simplefilter("ignore")
                fold._fit_matrix(A, Y[train], task)
            scores[test] = np.asarray(B @ fold.coef_.T) + fold.intercept_
        return calibrate(scores, problem_positives(Y, task), folds=len(folds))

    def _checked_lam(self, default):
        """``lam`` as float64 (``default`` for None), or a ValueError that says what it takes."""
        if self.lam is None:
            return np.float64(default)
        what = (f"lam={self.lam!r}: TextClassifier takes a positive number, one per class "
                f"(multi-label), or None (1/n)")
        if isinstance(self.lam, str):
            raise ValueError(what + ("; lam='auto' is TextClassifierCV's (or textwin train "
                                     "--lam auto)" if self.lam == "auto" else ""))
        try:
            lam = np.asarray(self.lam, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(what) from None
        if lam.ndim > 1 or not (np.isfinite(lam) & (lam > 0)).all():
            raise ValueError(what)
        return lam

    def _targets(self, Y, task):
        """The labels the linear model learns: an index for one class per text, the
        indicator otherwise (also for classes without a text, as in a fold that lacks
        one: the index would drop their rows; the indicator fits the same one-vs-rest
        problems and gives them a constant model)."""
        single = task != "multilabel" and bool(Y.any(axis=0).all())
        return np.argmax(Y, axis=1) if single else Y

    def _fit_matrix(self, X, Y, task):
        n, K = X.shape[0], (1 if task == "binary" else Y.shape[1])
        lam = np.broadcast_to(self._checked_lam(1.0 / n), (K,))
        if np.unique(lam).size > 1 and task != "multilabel":
            raise ValueError("a lam per class is for multi-label categories; single-label "
                             "classes share one lam (their scores meet in the argmax)")
        coef, intercept = np.empty((K, X.shape[1])), np.empty(K)
        gap, n_iter = np.empty(K), np.empty(K, dtype=int)
        if self.nb_scaling:  # each problem on its own scaled matrix
            groups = [([k], positives[:, None]) for k, positives
                      in enumerate(problem_positives(Y, task).T)]
        else:  # the problems of one lam in one fit
            target = self._targets(Y, task)
            groups = [(cols, target if cols.size == K else target[:, cols])
                      for cols in (np.flatnonzero(lam == v) for v in np.unique(lam))]
        for cols, part in groups:
            r = nb_ratios(X, part[:, 0]) if self.nb_scaling else None
            if part.ndim == 2 and part.shape[1] == 1:  # one category: its binary problem
                part = part[:, 0].astype(int)
                if np.unique(part).size == 1:  # in every text or none: a constant model
                    coef[cols], intercept[cols] = 0.0, 1.0 if part[0] else -1.0
                    gap[cols], n_iter[cols] = 0.0, 0
                    continue
            model = self._model(float(lam[cols[0]]))
            model.fit(X if r is None else scale_columns(X, r), part)
            coef[cols] = model.coef_ if r is None else model.coef_ * r
            intercept[cols], gap[cols], n_iter[cols] = (model.intercept_, model.duality_gap_,
                                                        model.n_iter_)
        self.coef_, self.intercept_, self.lam_ = coef, intercept, np.array(lam)
        self.duality_gap_, self.n_iter_ = gap, n_iter
        given = np.broadcast_to(np.asarray(0.0 if self.thresholds is None else self.thresholds,
                                           dtype=np.float64), (K,))
        # a class without training texts is never given (a constant model could win an argmax)
        self.thresholds_ = given.copy() if task == "binary" else never_given(Y, given)

    # -- prediction -----------------------------------------------------------
    def decision_function(self, X):
        """Scores of raw texts: (n_texts,) for two classes (of ``classes_[1]``), else
        (n_texts, n_classes). Thresholds are not subtracted."""
        check_is_fitted(self, "coef_")
        Xm = self.vectorizer_.transform(_texts(X, type(self).__name__))
        scores = np.asarray(Xm @ self.coef_.T) + self.intercept_
        return scores[:, 0] if self.task_ == "binary" else scores

    def predict(self, X):
        """A class per text (single-label) or an indicator matrix of categories
        (multi-label: every category whose score is above its threshold)."""
        labels = decide(self.task_, self.decision_function(X), self.thresholds_)
        if self.task_ == "multilabel":
            return labels.astype(np.uint8)
        return self.classes_[labels.astype(np.intp)]

    def _has_probabilities(self):
        if not (loss_named(self.loss).probabilistic or self.probability
                or hasattr(self, "calibration_")):
            raise AttributeError(
                f"predict_proba needs calibrated scores: loss={self.loss!r} gives margins; "
                "fit with probability=True (or loss='logistic', or TextClassifierCV)")
        return True

    @available_if(_has_probabilities)
    def predict_proba(self, X):
        """Probabilities of each class, normalized over the classes (single-label: of
        shape (n_texts, n_classes), a binary model's too), or of each category
        (multi-label): the logistic loss's own, or Platt's sigmoids fitted on
        out-of-fold scores (``probability=True``, or those of a
        :class:`TextClassifierCV`)."""
        check_is_fitted(self, "coef_")
        if not hasattr(self, "calibration_"):
            raise AttributeError("this model holds no calibration: fit it with "
                                 "probability=True for probabilities")
        return self.calibration_.predict_proba(self.decision_function(X), self.task_)

    def explain(self, X, n_terms=5, labels=None):
        """Why each text got its labels: for each label, the ``n_terms`` terms of the
        text that contributed most to its score, with the words the text writes them
        in (not their stems).

        Parameters
        ----------
        X : list of str
        n_terms : int, default=5
        labels : list of lists of labels, one per text, or None
            The labels to explain; None: those :meth:`predict` gives.

        Returns
        -------
        list (one per text) of dict
            ``{label: {"score", "intercept", "terms", "rest"}}``: ``terms`` the
            strongest first, each ``{"words", "term", "contribution", "weight",
            "value"}`` (the contribution is ``weight * value``, ``w_j x_j``);
            ``rest`` the other terms' contributions, so that ``intercept`` plus
            every contribution plus ``rest`` is the score of
            :meth:`decision_function` (a binary model's first class is explained
            by the second's score: its terms are the most negative).

        Examples
        --------
        >>> from textwin import TextClassifier
        >>> clf = TextClassifier().fit(["wheat harvest", "corn prices", "bank rates",
        ...                             "bank loans"], ["grain", "grain", "money", "money"])
        >>> why = clf.explain(["Banks raise rates"], n_terms=2)[0]
        >>> [t["words"] for t in why["money"]["terms"]]
        [['Banks'], ['rates']]
        """
        from textwin.explanations import explain

        check_is_fitted(self, "coef_")
        texts = _texts(X, type(self).__name__)
        if not (isinstance(n_terms, Integral) and n_terms >= 1):
            raise ValueError(f"n_terms={n_terms!r}: give a number of terms >= 1")
        if labels is None:
            predicted = self.predict(texts)
            labels = ([list(self.classes_[np.flatnonzero(row)]) for row in predicted]
                      if self.task_ == "multilabel" else [[c] for c in predicted])
        classes = list(self.classes_)
        requests = []
        for row in labels:
            asked = []
            for label in row:
                if label not in classes:
                    raise ValueError(f"{label!r} is not one of the classes {classes}")
                j = classes.index(label)
                asked.append((label, 0, 1 if j == 1 else -1) if self.task_ == "binary"
                             else (label, j, 1))
            requests.append(asked)
        return explain(self.vectorizer_, self.coef_, self.intercept_, texts, requests,
                       n_terms, self.vectorizer_.get_feature_names_out())

    # -- model files ----------------------------------------------------------
    def to_model(self):
        """The fitted classifier as a :class:`textwin.persistence.TextModel`."""
        check_is_fitted(self, "coef_")
        names = [str(c) for c in (self.classes_[1:] if self.task_ == "binary" else self.classes_)]
        single = self.task_ != "multilabel"
        params = {k: v for k, v in self.get_params().items() if k not in ("lam", "thresholds")}
        return TextModel(
            self.coef_, self.intercept_, names,
            vocabulary=self.vectorizer_.vocabulary_,
            preprocessing=self.vectorizer_.preprocessing_params(),
            idf=getattr(self.vectorizer_, "idf_", None), thresholds=self.thresholds_,
            task=self.task_, classes=list(self.classes_) if single else None,
            metadata={"estimator": "textwin.TextClassifier", "params": params,
                      "lam": self.lam_.tolist(), "duality_gap": self.duality_gap_.tolist(),
                      "n_iter": self.n_iter_.tolist()},
            calibration=getattr(self, "calibration_", None))

    def save(self, path):
        """Write a model file (``.npz``: plain arrays and JSON) that :meth:`load` and
        ``textwin predict`` read."""
        save_model(path, self.to_model())
        return self

    @classmethod
    def load(cls, path):
        """A fitted :class:`TextClassifier` from a model file of raw texts (written by
        :meth:`save` or ``textwin train``)."""
        return cls.from_model(load_model(path))

    @classmethod
    def from_model(cls, model):
        """A fitted :class:`TextClassifier` holding a :class:`TextModel`'s weights."""
        if model.vocabulary is None:
            raise ValueError("this model was trained on numeric features (svmlight), not on "
                             "texts; load it with textwin.persistence.load_model")
        known = cls().get_params()
        params = {k: v for k, v in model.metadata.get("params", {}).items() if k in known}
        clf = cls(**params)
        vectorizer = model.vectorizer()
        coef, intercept = model.coef, model.intercept
        if model.selected is not None:  # feature selection: weights over the whole vocabulary
            coef = np.zeros((coef.shape[0], len(vectorizer.vocabulary_)))
            coef[:, model.selected] = model.coef
        clf.vectorizer_, clf.coef_, clf.intercept_ = vectorizer, coef, intercept
        clf.language_ = vectorizer.language
        clf.chars_, clf.script_ = vectorizer.char_ngrams, None
        clf.thresholds_ = model.thresholds.copy()
        if model.calibration is not None:
            clf.calibration_ = model.calibration
        clf.task_ = model.task
        clf.classes_ = np.asarray(model.classes if model.task != "multilabel"
                                  else model.target_names)
        clf.n_features_in_ = coef.shape[1]
        clf.lam_ = np.asarray(model.metadata.get("lam", [np.nan] * coef.shape[0]))
        for attr, key in (("duality_gap_", "duality_gap"), ("n_iter_", "n_iter")):
            setattr(clf, attr, np.asarray(model.metadata.get(key, [np.nan] * coef.shape[0])))
        return clf

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        return tags


# ---------------------------------------------------------------------------
# The cross-validated search
# ---------------------------------------------------------------------------

#: The most naive Bayes problems (classes) solved in pieces, to stop early (bench_early_stop:
#: AG News's four classes pay; R8's eight and R52's 52 cost more than the lams left out).
_MAX_RESCALED = 4


#: The searched parameters of a combination, in the order of its key.
_NAMES = ("stem", "ngrams", "chars", "loss", "nb_scaling", "fit_intercept")


def _candidates(value, name):
    """A searched parameter's candidates: a list or tuple of values, or one value."""
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    if not values:
        raise ValueError(f"{name}: no value to search; give one value or a list")
    return values


def _char_candidates(value):
    """The ``chars`` searched: one setting (None, or a pair of lengths such as (2, 5)) or a
    list of them ((None, (2, 5)): without character n-grams and with them)."""
    def one(v):
        return v is None or (isinstance(v, (tuple, list)) and len(v) == 2
                             and all(isinstance(n, Integral) for n in v))
    values = [value] if one(value) else _candidates(value, "chars")
    if not all(one(v) for v in values):
        raise ValueError(f"chars={value!r}: give None, a pair of lengths such as (2, 5), or a "
                         "list of them")
    return [None if v is None else tuple(v) for v in values]


class TextClassifierCV(ClassifierMixin, BaseEstimator):
    """:class:`TextClassifier` with its features and ``lam`` chosen by cross-validation.

    Every combination of the searched settings (``stem``, ``ngrams``,
    ``nb_scaling``, ``loss``, ``fit_intercept``: each a value, fixed, or a list of candidates) is
    tried on the same folds of the training texts. Each fold's vectorizer is
    fitted on the fold's training texts and its two matrices built once per
    feature setting; a warm-started regularization path
    (:func:`textwin.model_selection.held_out_path_scores`) over ``lam_grid``
    then scores the held-out texts at every ``lam``, so that every text gets an
    out-of-fold score at every ``lam``. These are judged at the decision rule of
    the model that will be fitted, by :func:`textwin.model_selection.select_lam`
    (docs/mathematics.md §13): the class of the highest score for one class per
    text; for two classes, a score above 0 or above a cut tuned for
    ``scoring`` (accuracy or macro-F1); for multi-label categories, a score
    above 0 or above each category's threshold tuned for F1. A tuned cut or
    threshold is tuned for each fold on the other folds' out-of-fold scores,
    never on the fold it decides, so that the folds compare 0 and the tuned
    rule honestly and choose between them (``tune_thresholds="auto"``); in-sample
    tuning always looks better than it is. ``scoring`` per fold, averaged. One
    ``lam`` for every category or class, the best mean (the largest on ties;
    with ``one_se``, the largest within one standard error of it). The best
    combination and rule are refitted on all the texts (``best_estimator_``), at
    ``lam = lam_grid[i] / n``, with the thresholds tuned on all the out-of-fold
    scores.

    Parameters
    ----------
    weighting, language, min_df, task, tol, max_epochs, random_state, n_jobs
        As in :class:`TextClassifier` (fixed); ``tol`` is the refit's.
    fold_tol : float or None, default=None
        The relative duality gap of the folds' paths, which only rank the settings
        and ``lam``: None is ``10 * tol``.
    time_budget : float or None, default=None
        Seconds for the search (the refit comes after), words alone tried before
        bigrams; the choice is the best of what fitted in it, and one warning line
        says what was not tried (:mod:`textwin.model_selection._budget`). None: no
        bound.
    stem : bool or list of bool, default=(True, False)
    ngrams : int or list of int, default=(1, 2)
        Words alone (1), or with their bigrams (2).
    chars : None, a pair of lengths, or a list of them, default=(None, (2, 5))
        Character n-grams inside words (``TextVectorizer(char_ngrams=...)``).
        With None among the candidates the words are searched first, and each
        other candidate is then tried beside the best combination's words (and
        bigrams, if it has them; with its loss, scaling and bias), on the same
        folds: beside the bigrams or instead of them, as the folds chose those;
        only on training texts of at most ``CHAR_SEARCH_CHARACTERS`` (2 million)
        characters, where their matrices (about four entries a character, ten
        times the words') stay small. Without None, every combination has them.
    nb_scaling : bool, list of bool or "auto", default="auto"
        "auto": searched (``[False, True]``) for one class per text, off for
        multi-label categories.
    loss : str or list of str, default="hinge"
    fit_intercept : bool or list of bool, default=True
        A bias, as a constant feature.
    lam : float or None, default=None
        A fixed ``lam`` (only the other settings are searched); None searches
        ``lam_grid``.
    lam_grid : array-like of float or None, default=None
        The values of ``lam * n`` searched (``n`` the training texts of the fit, a
        fold's in the folds; scikit-learn's ``C = 1 / (lam n)``). None:
        ``logspace(1, -2, 7)``, ``C`` from 0.1 to 100.
    scoring : {"accuracy", "macro-f1", "micro-f1", "breakeven"} or None, default=None
        As :func:`~textwin.model_selection.select_lam`'s: None is accuracy for one
        class per text, micro-F1 for multi-label categories.
    tune_thresholds : {"auto", True, False}, default="auto"
        Two classes and multi-label categories: "auto" lets the folds choose between
        the score 0 and a tuned rule (two classes: a cut tuned for ``scoring``;
        multi-label: a threshold per category tuned for F1); True always tunes,
        False never (0). One class of several is the argmax, never tuned.
    one_se : bool, default=True
        The one-standard-error rule for ``lam`` (see ``select_lam``): the largest
        ``lam`` whose mean score is within one standard error of the best's. On
        the corpora of docs/benchmarks.md it chooses as the plain maximum does,
        but on GermEval 2018, where the folds' figures are noisy (test accuracy
        73.41 against 71.80 at ``random_state=0``, 73.8 against 73.1 over seeds 0-3).
    early_stopping : bool, default=True
        Solve a combination's paths a few ``lam`` at a time on every fold, and stop
        them once each rule's best mean score is two ``lam`` back (the last two
        neither beat it nor tied it): the paths are past their optimum or have
        flattened, and the smallest
        ``lam``, the costliest to solve, are left out (NaN in ``cv_results_``).
        A path solved in pieces gives the points of one solved whole, so the
        choice differs only where a curve would rise above its best again; on
        the seven corpora of docs/benchmarks.md it is the whole grid's choice.
        The naive Bayes scaling of more than four classes is solved whole (each
        piece would scale every class's matrices again). False solves the whole
        grid.
    cv : int or list of (train, test) index arrays, default=5
        An int: as many folds, stratified for one class per text, plain
        otherwise, shuffled with ``random_state``. Pairs (a splitter's
        ``split``, to share folds with another search): held-out parts that
        cover every text once. A class with fewer texts than the folds gets a
        :class:`SmallClassWarning` and the search goes on, as
        :class:`~sklearn.model_selection.StratifiedKFold` does: a fold whose
        training part lacks a class never predicts it (a ValueError only when
        every class is smaller than the folds).
    verbose : int, default=0
        1: a progress bar over the feature settings and folds on stderr, when it
        is a terminal.

    Attributes
    ----------
    best_estimator_ : TextClassifier
        Refitted on all the texts with the best settings.
    script_ : str or None
        The script without spaces between words that the texts are written in
        (:func:`~textwin.text.detect_unspaced_script`, read when ``chars`` has
        None among its candidates): then the words are not searched, and the
        features are the characters' n-grams :data:`UNSPACED_CHARS` alone.
    chars_searched_ : bool or str
        Whether character n-grams were tried beside the best words (a string: why
        not).
    best_params_ : dict
        The chosen ``stem``, ``ngrams``, ``chars``, ``nb_scaling``, ``loss``, ``fit_intercept``,
        ``rule`` (the decision: "zero", "f1", "accuracy" or "macro-f1", as in
        :func:`~textwin.model_selection.select_lam`) and ``lam``.
    best_score_ : float
        The cross-validated score of the choice, a fraction.
    scoring_ : str
    n_splits_ : int
        The number of folds.
    time_budget_ : dict or None
        With a ``time_budget``: ``seconds``, ``spent``, the settings ``not_tried``
        and those ``cut_short`` (stopped above their smallest ``lam``).
    cv_results_ : dict of lists
        One entry per combination and ``lam``: ``params``, ``lam_n``,
        ``mean_test_score`` and ``std_test_score`` (over the folds),
        ``rank_test_score``; ``fit_seconds`` per combination.
    classes_, task_
        As in :class:`TextClassifier`.
    """

    def __init__(self, weighting="tfidf", stem=(True, False), ngrams=(1, 2),
                 chars=(None, (2, 5)), language="auto", min_df=1, nb_scaling="auto", loss="hinge", fit_intercept=True, lam=None,
                 lam_grid=None,
                 scoring=None, tune_thresholds="auto", one_se=True, early_stopping=True, cv=5,
                 task=None, tol=1e-3, fold_tol=None, max_epochs=1000, time_budget=None,
                 random_state=0, n_jobs=None, verbose=0):
        store_params(self, locals())

    def _fold_tol(self):
        tol = 10 * self.tol if self.fold_tol is None else self.fold_tol
        if not (isinstance(tol, Real) and tol > 0):
            raise ValueError(f"{type(self).__name__}: fold_tol={self.fold_tol!r} must be a "
                             "number > 0 (or None: 10 * tol)")
        return float(tol)

    # -- the search space ---------------------------------------------------------
    def _grid(self, n):
        name = type(self).__name__
        if self.lam is not None:
            if not (isinstance(self.lam, Real) and self.lam > 0):
                raise ValueError(f"{name}: lam={self.lam!r} must be a number > 0 (or None)")
            return np.array([float(self.lam) * n])
        grid = DEFAULT_LAM_N if self.lam_grid is None else np.ravel(
            np.asarray(self.lam_grid, dtype=np.float64))
        if grid.size == 0 or not np.all(np.isfinite(grid) & (grid > 0)):
            raise ValueError(f"{name}: lam_grid must hold numbers > 0, got {self.lam_grid!r}")
        return np.unique(grid)[::-1]

    def _rules(self, task, scoring):
        """The decisions the folds compare: score > 0 ("zero"; the argmax for one class of
        several) and, with ``tune_thresholds``, the tuned rule of the task and scoring."""
        if self.tune_thresholds not in ("auto", True, False):
            raise ValueError(f"{type(self).__name__}: tune_thresholds="
                             f"{self.tune_thresholds!r} is not 'auto', True or False")
        tuned = rule_for(task, scoring)
        if tuned is None or self.tune_thresholds is False:
            return ["zero"]
        return [tuned] if self.tune_thresholds is True else ["zero", tuned]

    def _settings(self, task, script=None):
        """The feature settings (stem, ngrams) and model variants (loss, nb_scaling,
        fit_intercept)."""
        nb = _candidates(self.nb_scaling, "nb_scaling")
        if self.nb_scaling == "auto":
            nb = [False, True] if task != "multilabel" else [False]
        chars = _char_candidates(self.chars)
        for n, c in itertools.product(_candidates(self.ngrams, "ngrams"), chars):
            make_vectorizer(self.weighting, True, n, "english", self.min_df, c)  # checks them
        variants = list(itertools.product(_candidates(self.loss, "loss"), nb,
                                          _candidates(self.fit_intercept, "fit_intercept")))
        if script:  # no words to search: the characters of an unspaced script
            return [(False, 0, UNSPACED_CHARS)], variants
        if None in chars:  # the words first; character n-grams beside the best (_add_chars)
            chars = [None]
        features = list(itertools.product(_candidates(self.stem, "stem"),
                                          _candidates(self.ngrams, "ngrams"), chars))
        return features, variants

    def _folds(self, Y, task, classes=None):
        return text_folds(type(self).__name__, self.cv, Y, task, classes, self.random_state)

    # -- fit ----------------------------------------------------------------------
    def fit(self, X, y):
        """Search the settings by cross-validation, then refit the best on all the texts.

        Parameters
        ----------
        X : iterable of str
        y : array-like of shape (n_texts,), list of label lists, or an indicator matrix

        Returns
        -------
        self : TextClassifierCV
        """
        texts, (Y, classes, task) = _training_data(X, y, self.task, type(self).__name__)
        if not isinstance(self.early_stopping, (bool, np.bool_)):
            raise ValueError(f"{type(self).__name__}: early_stopping={self.early_stopping!r} "
                             "is not True or False")
        self._fold_tol()  # checked before the search
        budget = TimeBudget(self.time_budget, type(self).__name__)  # the words count too
        scoring = check_choice(task, self.scoring, "zero", type(self).__name__)
        rules = self._rules(task, scoring)
        self.script_ = (detect_unspaced_script(texts) if None in _char_candidates(self.chars)
                        else None)
        features, variants = self._settings(task, self.script_)
        grid = self._grid(len(texts))
        folds = self._folds(Y, task, classes)
        self.language_ = resolve_language(self.language, texts)
        words = Words(texts, max(max(n for _, n, _ in features), 1))  # found once for all
        judge = FoldJudge(rules, Y, task, scoring, fold_of(folds, len(texts)))
        if budget.seconds is not None:  # the cheapest first: words alone, then bigrams
            features.sort(key=lambda f: f[1])
        oof, whole, seconds = self._out_of_fold(texts, Y, task, folds, features, variants,
                                                grid, words, judge, budget)
        self._choose(grid, oof, whole, seconds, judge)
        if self._add_chars(texts, Y, task, folds, grid, words, judge, oof, whole, seconds,
                           budget):
            self._choose(grid, oof, whole, seconds, judge)
        self.time_budget_ = budget.report(len(oof))
        self.scoring_, self.classes_, self.task_ = scoring, classes, task
        self.n_splits_ = len(folds)
        self.best_estimator_ = self._refit(texts, y, Y, words)
        return self

    def _add_chars(self, texts, Y, task, folds, grid, words, judge, oof, whole, seconds,
                   budget):
        """With ``chars`` a choice (None among its candidates): the best combination of the
        words' search with the character n-grams beside its words (and bigrams, if it
        has them), on the same folds, added to ``oof``, ``whole`` and ``seconds``. Their
        matrices hold about four entries a character of text, ten times the words', so
        they are tried once, beside the best words, and only on training texts of at
        most :data:`CHAR_SEARCH_CHARACTERS` characters. Sets ``chars_searched_`` (or the
        reason they were not, a string); returns whether they were."""
        candidates = [c for c in _char_candidates(self.chars) if c is not None]
        self.chars_searched_ = False
        if None not in _char_candidates(self.chars) or not candidates or self.script_:
            return False
        size = sum(map(len, texts))
        if size > CHAR_SEARCH_CHARACTERS:
            self.chars_searched_ = (f"not searched: {size / 1e6:.1f} million characters of "
                                    f"training text, above {CHAR_SEARCH_CHARACTERS / 1e6:g} "
                                    "million")
            return False
        best = self.best_params_
        features = [(best["stem"], best["ngrams"], c) for c in candidates]
        variant = (best["loss"], best["nb_scaling"], best["fit_intercept"])
        more = self._out_of_fold(texts, Y, task, folds, features, [variant], grid, words, judge,
                                 budget)
        if not more[0]:
            self.chars_searched_ = "not searched: the time budget was spent"
            return False
        for done, new in zip((oof, whole, seconds), more):
            done.update(new)
        self.chars_searched_ = True
        return True

    def _out_of_fold(self, texts, Y, task, folds, features, variants, grid, words, judge,
                     budget):
        """Per combination (stem, ngrams, loss, nb_scaling, fit_intercept): its out-of-fold
        scores, each rule's folds' scores (``judge``) and its seconds (paths and share of
        the vectorizing); those the ``budget`` left no time for are left out."""
        oof, whole, seconds = {}, {}, {}
        bar = tqdm(total=len(features) * len(variants) * len(folds) * grid.size,
                   desc="TextClassifierCV (settings x folds x lams)", unit="fit",
                   file=sys.stderr, leave=False,
                   disable=not self.verbose or not sys.stderr.isatty())
        self._unconverged = 0
        self._n_settings = len(features) * len(variants)  # for the search's estimate
        keys = [(*f, *v) for f in features for v in variants]
        varied = [len(set(values)) > 1 for values in zip(*keys)]  # what a setting's name says
        with bar:
            for stem, ngrams, chars in features:
                described = {v: " ".join(f"{name}={x}" for name, x, searched in zip(
                    _NAMES, (stem, ngrams, chars, *v), varied)
                    if searched or (name == "chars" and x)) for v in variants}
                if budget.exhausted():  # no time left: not even the matrices
                    budget.not_tried.extend(described.values())
                    continue
                start = time.perf_counter()
                vec = make_vectorizer(self.weighting, stem, ngrams, self.language_, self.min_df,
                                      chars)
                matrices = list(fold_matrices(vec, texts, folds, words))  # counted once
                shared = (time.perf_counter() - start) / len(variants)
                for variant in variants:
                    start = time.perf_counter()
                    key = (stem, ngrams, chars, *variant)
                    S, W = self._paths(matrices, Y, task, folds, grid, variant, judge, bar,
                                       budget, described[variant])
                    if S is not None:
                        oof[key], whole[key] = S, W
                        seconds[key] = shared + time.perf_counter() - start
                    budget.check_first()
        if self._unconverged:  # one line for the search, not one per path
            warnings.warn(
                f"{type(self).__name__}: {self._unconverged} paths had points that stopped at "
                f"max_epochs={self.max_epochs} before the relative duality gap reached "
                f"fold_tol={self._fold_tol():g} (the smallest lams are the hardest); their "
                "scores are those of the solutions reached", ConvergenceWarning, stacklevel=3)
        return oof, whole, seconds

    def _paths(self, matrices, Y, task, folds, grid, variant, judge, bar, budget, described):
        """One combination's out-of-fold scores (n_texts, n_problems, n_lams; NaN below a
        stop) and each rule's folds' scores, on the engine (threads or a cluster), with
        ``early_stopping`` in pieces (:func:`~textwin.model_selection._choice.descend`),
        each started only if the ``budget`` allows it (None, None: not even the first)."""
        K = 1 if task == "binary" else Y.shape[1]
        scores = np.full((Y.shape[0], K, grid.size), np.nan)
        whole = {rule: np.full((len(folds), grid.size), np.nan) for rule in judge.rules}
        loss, nb, fit_intercept = variant
        parts = matrix_folds(matrices, Y, task, folds, nb, scores, dict(
            loss=loss, **intercept_params(fit_intercept), tol=self._fold_tol(),
            max_epochs=self.max_epochs, random_state=self.random_state, n_jobs=self.n_jobs))
        run = FoldPaths(parts, None, True, Y.shape[0], K, self.n_jobs, label="textwin-auto")

        gate = budget.gate(K * sum(A.nnz for A, _ in matrices))  # values a lam's solves read

        def piece(l, end):
            with gate.piece(l, end, bar):
                if parts:
                    self._unconverged += run.extend(grid[l:end])
                    run.out_of_fold(slice(l, end), out=scores[:, :, l:end])
            budget.say_if_long(gate.size, grid.size, end - l, self._n_settings)
            bar.update(len(folds) * (end - l))
            for rule in judge.rules:
                whole[rule][:, l:end] = judge(scores[:, :, l:end], rule)
            return whole

        try:  # naive Bayes pieces scale every class's matrices again: many cost more
            end = descend(grid.size, piece, self.early_stopping and not (nb and K > _MAX_RESCALED),
                          allows=gate.allows)
            bar.total -= len(folds) * (grid.size - end)
        finally:
            run.close()
        return (scores, whole) if gate.close(described) else (None, None)

    def _choose(self, grid, oof, whole, seconds, judge):
        """cv_results_, best_params_, best_score_ and the choice's lam and thresholds, by
        :func:`textwin.model_selection.select_lam`'s rule on each combination's folds'
        scores at each rule (on a tie the earlier combination, and score > 0 before a
        tuned rule)."""
        rows, best = [], None
        for key, S in oof.items():
            for rule, scores in whole[key].items():
                params = dict(zip(_NAMES, key), rule=rule)
                choice = choice_of(scores, S, judge.T, judge.fold_of,
                                   task=judge.task, scoring=judge.scoring, rule=rule,
                                   one_se=self.one_se)
                rows += result_rows(params, grid, choice.mean, choice.fold_scores,
                                    fit_seconds=seconds[key])
                if best is None or choice.score > best[0]:
                    thresholds = choice.thresholds if rule != "zero" else None
                    best = (choice.score, params, grid[choice.index], thresholds,
                            S[:, :, choice.index])
        score, params, lam_n, thresholds, self._best_oof = best
        self.cv_results_ = cv_results(rows)
        self.best_score_ = float(score)
        self.best_params_ = {**params, "lam_n": lam_n}
        self._best_thresholds = thresholds

    def _refit(self, texts, y, Y, words):
        n = len(texts)
        p = dict(self.best_params_)
        lam_n = p.pop("lam_n")
        rule = p.pop("rule")
        lam = float(lam_n / n if self.lam is None else self.lam)
        self.best_params_ = {**p, "rule": rule, "lam": lam}
        clf = TextClassifier(
            weighting=self.weighting, language=self.language_, min_df=self.min_df, lam=lam,
            thresholds=self._best_thresholds, task=self.task, tol=self.tol,
            max_epochs=self.max_epochs, random_state=self.random_state, n_jobs=self.n_jobs,
            **p)
        clf._fit(texts, y, words)
        # Platt's sigmoids on the chosen setting's out-of-fold scores, which cost nothing more
        clf.calibration_ = calibrate(self._best_oof, problem_positives(Y, self.task_),
                                     folds=self.n_splits_)
        del self._best_oof
        return clf

    # -- the refitted model ---------------------------------------------------------
    def decision_function(self, X):
        """As :meth:`TextClassifier.decision_function` of ``best_estimator_``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.decision_function(X)

    def predict(self, X):
        """As :meth:`TextClassifier.predict` of ``best_estimator_``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict(X)

    def predict_proba(self, X):
        """As :meth:`TextClassifier.predict_proba` of ``best_estimator_``: the logistic
        loss's probabilities, or Platt's sigmoids fitted on the chosen setting's
        out-of-fold scores (the search's own, at the chosen ``lam``)."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict_proba(X)

    def save(self, path):
        """Write ``best_estimator_`` to a model file, with what the search chose."""
        check_is_fitted(self, "best_estimator_")
        model = self.best_estimator_.to_model()
        model.metadata["search"] = self.search_summary()
        save_model(path, model)
        return self

    def search_summary(self):
        """What the search chose and its score, JSON-ready: ``scoring``, ``folds``,
        ``cv_score``, ``chosen`` (``best_params_``), ``lam_n`` (the grid of ``lam * n``,
        descending) and ``curves``: per combination, its ``params`` and its mean
        ``scores`` at each ``lam_n``."""
        check_is_fitted(self, "best_estimator_")
        return search_summary(self.cv_results_, self.scoring_, self.n_splits_,
                              self.best_score_, self.best_params_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        return tags
