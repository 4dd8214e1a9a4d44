"""Raw texts in, categories out: :class:`TextClassifier` and :class:`TextClassifierCV`.

:class:`TextClassifier` is a :class:`~textwin.text.TextVectorizer` and a
:class:`~textwin.DualGaussSeidelClassifier` in one scikit-learn estimator, with
the command line's defaults on a user's corpus (``textwin train --corpus``'s model):
tf-idf over every stem, the hinge loss, a bias (a constant feature), ``lam = 1/n``
(scikit-learn's ``C = 1``). The task is read from the labels
(:func:`textwin.tasks.detect_task`): a 1-d ``y`` is single-label, label
lists or an indicator matrix are multi-label unless every document has exactly
one label. It saves to and loads from textwin's model files
(:mod:`textwin.persistence`), never a pickle.

:class:`TextClassifierCV` chooses the features and ``lam`` together by
cross-validation on the training texts alone: each fold's matrices are derived from
the words found once (:func:`textwin.text.fold_matrices`), the out-of-fold engine of
:mod:`textwin.model_selection` solves the paths and judges their scores at the
model's own decision rule (docs/mathematics.md §13), and the best setting is refitted.
"""
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from textwin._losses_and_regularizers import loss_named
from textwin._memory import release_free_memory
from textwin._nb_scaling import (document_counts, nb_ratios,  # noqa: F401 (the old import
                                 scale_columns)                # path of the two others)
from textwin._ovr import check_class_weight, store_params
from textwin._tuning import OBJECTIVES, thresholds_of_scores, tuning_folds
from textwin.calibration import Calibration, calibrate
from textwin.linear import DualGaussSeidelClassifier
from textwin._folds import SmallClassWarning, calibration_fold_count, text_folds
from textwin.persistence import (STOPPING_RULE, TextModel, estimator_metadata, linear_weights,
                                 load_model, save_model, times_transposed,
                                 weights_give_scores)
from textwin.tasks import (decide, encode_labels, label_accuracy, never_given,  # noqa: F401
                           problem_positives, problem_weights)
from textwin.text import (MAX_NGRAM, UNSPACED_CHARS, TextVectorizer,  # noqa: F401 (public)
                          check_char_ngrams, detect_language, fit_transform, fold_matrices,
                          make_vectorizer, resolve_chars)

__all__ = ["TextClassifier", "TextClassifierCV", "SmallClassWarning"]  # noqa: F822


def __getattr__(name):
    # TextClassifierCV lives with the other searches (textwin/model_selection/), which
    # build on this module: this old import path hands it on from the package's lazy table
    if name == "TextClassifierCV":
        import textwin

        return textwin.TextClassifierCV
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: The default grid of ``lam * n`` (lam in units of 1/n, the default lam; scikit-learn's
#: ``C = 1 / (lam n)`` from 0.1 to 100).
DEFAULT_LAM_N = np.logspace(1, -2, 7)

# ---------------------------------------------------------------------------
# Labels
# ---------------------------------------------------------------------------

def training_data(X, y, task, name):
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

def _per_problem(values, K, task, what, allow_inf=False, single_label_each=True):
    """``values`` (one number, or one per binary problem) as ``K`` float64 values, or a
    ValueError that starts with ``what`` and says how many it takes (a single-label task
    takes one per class only if ``single_label_each``)."""
    per = ("" if task != "multilabel" and not single_label_each
           else "(the positive class's)" if task == "binary"
           else f"or one per {'category' if task == 'multilabel' else 'class'} ({K} here)")
    try:
        values = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{what}: give one number {per}".rstrip()) from None
    if values.ndim > 1 or (values.ndim == 1 and values.shape != (K,)):
        got = f"{values.size}" if values.ndim == 1 else f"an array of shape {values.shape}"
        raise ValueError(f"{what}: give one number {per}".rstrip() + f", not {got}")
    if np.isnan(values).any() or not (allow_inf or np.isfinite(values).all()):
        raise ValueError(f"{what}: give numbers, not NaN")
    return np.broadcast_to(values, (K,))


def intercept_params(fit_intercept):
    """The DualGaussSeidelClassifier parameters of a bias as a constant feature (or none)."""
    return ({"fit_intercept": True, "intercept_solver": "constant_feature"} if fit_intercept
            else {"fit_intercept": False})


def resolve_language(language, texts):
    """``language``, or for "auto" the language of the texts' function words
    (:func:`~textwin.text.detect_language`), English when none is recognised."""
    return (detect_language(texts) or "english") if language == "auto" else language


def column_classes(classes, found, y):
    """``classes``, the names of the columns of an indicator ``y``, as an array."""
    named = np.empty(len(classes), dtype=object)
    named[:] = list(classes)
    if np.ndim(y) != 2 or named.size != found.size:
        raise ValueError(f"classes names the {named.size} columns of an indicator matrix y; "
                         f"y has {found.size} classes" + ("" if np.ndim(y) == 2 else
                                                         " and is no indicator matrix"))
    return named


def chosen_model(search, lam):
    """The unfitted :class:`~textwin.DualGaussSeidelClassifier` of a search's settings
    (``DualGaussSeidelClassifierCV``'s) at ``lam``."""
    known = DualGaussSeidelClassifier().get_params()
    return DualGaussSeidelClassifier(**{k: v for k, v in search.get_params().items()
                                        if k in known and k != "lam"}, lam=lam)


def model_at_scale(estimator, fitted, scale):
    """An unfitted copy of ``estimator`` (fitted as ``fitted``) for ``1 / scale`` of its
    rows at the same ``C``: its ``lam`` times ``scale`` when it has a number there; a
    search that chose ``lam`` (``DualGaussSeidelClassifierCV``) the model of its choice
    times ``scale``; quiet."""
    if hasattr(fitted, "cv_summary"):  # lam chosen by cross-validation
        model = chosen_model(fitted, float(fitted.lam_[0]) * scale)
    else:
        model = clone(estimator)
        lam = model.get_params().get("lam")
        if isinstance(lam, Real) and not isinstance(lam, bool):
            model.set_params(lam=lam * scale)
    if "verbose" in model.get_params():
        model.set_params(verbose=0)
    return model


def problem_class_weight(class_weight, classes, cols, task, alone):
    """``class_weight`` (None, "balanced" or a dict of ``classes``) as the model fitted for
    the problems ``cols`` reads its labels (:func:`textwin.tasks.problem_weights`)."""
    if not isinstance(class_weight, dict):
        return class_weight
    return problem_weights([class_weight.get(c, 1.0) for c in np.asarray(classes).tolist()],
                           cols, task, alone)


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
    features : int, "all" or None, default=None
        The ``features`` terms of highest information gain on the training texts'
        labels (:class:`~textwin.feature_selection.InformationGain`, as ``textwin train
        --features K``), the others left out (``selected_``); None or "all": every term.
    nb_scaling : bool, default=False
        Scale each feature by its naive Bayes log-count ratio (Wang & Manning 2012,
        NBSVM without interpolation), for each binary problem its own (one-vs-rest
        for several classes). The scaling is folded into ``coef_``, so a saved model
        scores as a plain linear one.
    loss : {"hinge", "squared_hinge", "least_squares", "logistic"}, default="hinge"
    class_weight : None, "balanced" or dict, default=None
        Multiplies the loss of each class's texts, as in scikit-learn: a dict maps a
        class (a category) to the weight of its texts (in a one-vs-rest or
        multi-label problem, of its positives); "balanced" weights each binary
        problem's two sides to carry half the total weight each
        (:class:`~textwin.DualGaussSeidelClassifier`'s ``class_weight``). Raises
        the recall of small classes: macro-F1's choice.
    fit_intercept : bool, default=True
        A bias, as a constant feature of value 1 (regularized as the weights are, as in
        liblinear), as ``textwin train`` and scikit-learn's ``LinearSVC`` fit one.
    lam : float, array of shape (n_classes,) or None, default=None
        The regularization; None is ``1/n`` for ``n`` training texts
        (scikit-learn's ``C = 1``). An array (multi-label only) gives each
        category its own.
    thresholds : float, array of shape (n_classes,), str or None, default=None
        Multi-label: a text is in a category where its score is above the
        category's threshold (None: 0). Single-label: subtracted from the scores
        before the argmax. A name tunes them on out-of-fold scores, as
        scikit-learn's ``TunedThresholdsClassifierCV`` does (``textwin train
        --tune-thresholds``): ``threshold_folds`` unshuffled folds (stratified for
        one class per text), each fold's vectorizer and model fitted on its training
        texts at the final model's ``C``, score every text, and the thresholds that
        maximise the objective on those scores are kept
        (:func:`textwin.model_selection.task_thresholds` on the same folds gives the
        same): "f1" (a category's F1, the positive class's, or macro-F1 over
        classes), "breakeven" (multi-label and two classes: precision = recall) or
        "accuracy" (two classes, or one class per text). A category or class with
        fewer texts than the folds keeps 0. With a ``classifier`` that tunes its own
        (``DualGaussSeidelClassifierCV(thresholds=...)``), None keeps its.
    threshold_folds : int, default=3
        The folds of tuned ``thresholds`` (``textwin train --tune-thresholds``'s).
    task : {None, "multiclass", "multilabel"}, default=None
        Force the task (see :func:`textwin.tasks.detect_task`).
    probability : bool, default=False
        Calibrate probabilities for :meth:`predict_proba`, as
        ``sklearn.svm.SVC(probability=True)`` and scikit-learn's
        ``CalibratedClassifierCV(method="sigmoid")`` do: 5 stratified folds of the
        texts (fewer for a class of fewer than 5 texts), each fold's vectorizer and
        model fitted on its training part, give every text an out-of-fold score, and
        Platt's sigmoid fitted on them per class turns the final model's scores into
        probabilities (:mod:`textwin.calibration`); each fold's model is at the
        final model's ``C`` (a ``lam`` given, a classifier's too, scaled by the texts
        over the fold's; a classifier that chose its ``lam``, the model of its choice).
        About 4 more fits. Without it
        the logistic loss's scores are log-odds already (at the default ``lam``,
        too timid ones: on AG News their log-loss is 0.57, against 0.38 calibrated).
    tol, max_epochs, random_state, n_jobs, verbose
        As in :class:`~textwin.DualGaussSeidelClassifier`.
    classifier : estimator or None, default=None
        The linear model fitted on the texts' matrix, unfitted (a preset of
        :mod:`textwin.linear`, a learner of :mod:`textwin.online`, a
        :class:`~textwin.DualGaussSeidelClassifierCV`, a scikit-learn linear model:
        ``textwin train --method``'s), in place of the
        :class:`~textwin.DualGaussSeidelClassifier` that ``loss``, ``fit_intercept``,
        ``lam``, ``class_weight``, ``tol``, ``max_epochs``, ``random_state``,
        ``n_jobs`` and ``verbose`` describe (with a classifier, they are its own; ``lam``,
        ``class_weight`` and ``nb_scaling`` are refused). It is fitted on every problem
        at once (the binary problem's labels, the class of each text when every class
        has texts, else the indicator), and scores as fitted (``classifier_``).

    Attributes
    ----------
    vectorizer_ : TextVectorizer
    selected_ : ndarray of int or None
        The columns of ``vectorizer_``'s matrix that ``coef_`` weighs (``features``);
        None: every column.
    n_empty_texts_ : int
        The training texts with none of those columns' terms (they score the intercept).
    classifier_ : estimator
        ``classifier`` fitted (only with one).
    search_ : estimator
        A ``classifier`` that chooses ``lam`` by cross-validation, fitted on the classes
        of the texts when some single-label class has none (``classifier_`` is then the
        model of its choice, fitted on every class).
    coef_ : ndarray of shape (n_problems, n_features)
        One row per binary problem (one for two classes), the naive Bayes scaling
        folded in; its columns are the ``selected_`` ones.
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
                 min_df=1, nb_scaling=False, loss="hinge", fit_intercept=True,
                 class_weight=None, lam=None,
                 thresholds=None, task=None, probability=False, tol=1e-3, max_epochs=1000,
                 random_state=0, n_jobs=None, verbose=0, features=None, classifier=None,
                 threshold_folds=3):
        store_params(self, locals())

    def _vectorizer(self, language):
        chars, script = getattr(self, "chars_", self.chars), getattr(self, "script_", None)
        return make_vectorizer(self.weighting, self.stem, 0 if script else self.ngrams,
                               language, self.min_df, chars)

    def _model(self, lam, class_weight=None):
        return DualGaussSeidelClassifier(
            loss=self.loss, lam=lam, **intercept_params(self.fit_intercept), tol=self.tol,
            max_epochs=self.max_epochs, random_state=self.random_state, n_jobs=self.n_jobs,
            class_weight=class_weight, verbose=self.verbose)

    def fit(self, X, y, words=None, classes=None):
        """Learn the vocabulary and the weights from raw texts.

        Parameters
        ----------
        X : iterable of str
        y : array-like of shape (n_texts,), list of label lists, or an indicator
            matrix of shape (n_texts, n_categories)
        words : textwin.text.Words, default=None
            The words of ``X`` found already (as a search that fits several
            settings on the same texts holds them): they are not found again.
        classes : sequence, default=None
            The classes (categories) of the columns of an indicator matrix ``y``, in
            order (default: 0, 1, ...); a class may have no text.

        Returns
        -------
        self : TextClassifier
        """
        texts, (Y, found, task) = training_data(X, y, self.task, type(self).__name__)
        classes = found if classes is None else column_classes(classes, found, y)
        self._check_objective(task)
        self.language_ = resolve_language(self.language, texts)
        self.chars_, self.script_ = resolve_chars(self.chars, texts)
        vectorizer = self._vectorizer(self.language_)
        release_free_memory()  # a search's matrices, dropped before its refit
        Xm = fit_transform(vectorizer, texts, words)
        release_free_memory()  # the chunks' counts and names
        self._fit_matrix(Xm, Y, task, classes)
        self.vectorizer_, self.classes_, self.task_ = vectorizer, classes, task
        self.n_features_in_ = Xm.shape[1]
        if isinstance(self.thresholds, str):  # tuned on out-of-fold scores
            self.thresholds_ = self._tuned_thresholds(texts, Y, task, classes, vectorizer,
                                                      words)
        self.__dict__.pop("calibration_", None)
        own = getattr(getattr(self, "classifier_", None), "calibration_", None)
        if self.probability:
            self.calibration_ = self._calibrate(texts, Y, task, classes, vectorizer, words)
        elif own is not None:  # the classifier's own (its logistic loss's link)
            self.calibration_ = own
        elif self.classifier is None and loss_named(self.loss).probabilistic:
            self.calibration_ = Calibration("logistic")
        return self

    def _calibrate(self, texts, Y, task, classes, vectorizer, words):
        """Platt's sigmoids on out-of-fold scores (:meth:`_out_of_fold`) of shuffled
        folds, stratified for one class per text."""
        name = type(self).__name__
        n = len(texts)
        counts = None if task == "multilabel" else Y.sum(axis=0)
        k = calibration_fold_count(f"{name}: probability=True", counts, n, "texts", classes)
        folds = text_folds(name, k, Y, task, classes, self.random_state)
        scores = self._out_of_fold(texts, Y, task, classes, vectorizer, words, folds)
        return calibrate(scores, problem_positives(Y, task), folds=len(folds))

    def _check_objective(self, task):
        """A ``thresholds`` name that ``task`` can tune, and ``threshold_folds``."""
        if not isinstance(self.thresholds, str):
            return
        takes = OBJECTIVES[task]
        if self.thresholds not in takes:
            raise ValueError(f"thresholds={self.thresholds!r} is not an objective of a "
                             f"{task} task: give one of {', '.join(map(repr, takes))}, or "
                             "the thresholds themselves")
        folds = self.threshold_folds
        if not (isinstance(folds, Integral) and folds >= 2):
            raise ValueError(f"threshold_folds={folds!r}: give a number of folds >= 2")

    def _tuned_thresholds(self, texts, Y, task, classes, vectorizer, words):
        """The thresholds of the objective ``thresholds`` on out-of-fold scores
        (:meth:`_out_of_fold`) of :func:`~textwin._tuning.tuning_folds`, as
        :func:`~textwin._tuning.thresholds_of_scores` tunes them."""
        k = self.threshold_folds
        target = Y[:, 1:] if task == "binary" else Y  # a two-class task: the positive's
        folds = tuning_folds(target, task, k)
        scores = (None if folds is None
                  else self._out_of_fold(texts, Y, task, classes, vectorizer, words, folds))
        tuned, _ = thresholds_of_scores(scores, target, task, self.thresholds, k)
        return tuned if task == "binary" else never_given(Y, tuned)

    def _out_of_fold(self, texts, Y, task, classes, vectorizer, words, folds):
        """Every text's scores (n_texts, n_problems) by a model that did not see it: on
        each of ``folds``, a vectorizer and a model fitted on its training texts (the
        final model's ``C``: :meth:`_fold_model`) score its held-out ones."""
        n = len(texts)
        scores = np.empty((n, 1 if task == "binary" else Y.shape[1]))
        for (train, test), (A, B) in zip(folds, fold_matrices(vectorizer, texts, folds, words)):
            fold = self._fold_model(n / train.size)
            with warnings.catch_warnings():  # the final fit says what the folds' would
                warnings.simplefilter("ignore")
                fold._fit_matrix(A, Y[train], task, classes)
            scores[test] = fold.scores_of(fold._selected(B))
        return scores

    def _fold_model(self, scale):
        """An unfitted copy that fits a fold of ``1 / scale`` of the texts at the final
        model's ``C``: a ``lam`` given, and a classifier's, times ``scale`` (None is
        1/n of the fold's texts already); a classifier that chose its ``lam`` (a search)
        is the model of its choice. Neither tunes nor calibrates."""
        fold = clone(self).set_params(probability=False, thresholds=None, verbose=0)
        if self.lam is not None:
            fold.set_params(lam=np.asarray(self.lam, dtype=np.float64) * scale
                            if np.ndim(self.lam) else float(self.lam) * scale)
        if self.classifier is not None:
            fold.set_params(classifier=model_at_scale(
                self.classifier, getattr(self, "search_", self.classifier_), scale))
        return fold

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

    def _selection(self, X, Y):
        """The columns of ``X`` that ``features`` keeps (None: every one)."""
        if self.features in (None, "all") or self.features >= X.shape[1]:
            return None
        from textwin.feature_selection import top_columns  # it imports scipy.stats

        return top_columns(X, Y, self.features)

    def _selected(self, X):
        """``X``'s ``selected_`` columns."""
        return X if self.selected_ is None else X[:, self.selected_].tocsr()

    def _fit_matrix(self, X, Y, task, classes):
        """Fit the problems on the matrix ``X`` (with ``nb_scaling``, each on its own
        log-count ratios as the solver's per-feature scale: no scaled copy of ``X``)."""
        self.selected_ = self._selection(X, Y)
        X = self._selected(X)
        self.n_empty_texts_ = int(np.count_nonzero(X.getnnz(axis=1) == 0))
        self.__dict__.pop("classifier_", None)
        if self.classifier is not None:
            return self._fit_classifier(X, Y, task)
        n, K = X.shape[0], (1 if task == "binary" else Y.shape[1])
        check_class_weight(self.class_weight, np.asarray(classes))
        lam = _per_problem(self._checked_lam(1.0 / n), K, task, f"lam={self.lam!r}",
                           single_label_each=False)
        if np.unique(lam).size > 1 and task != "multilabel":
            raise ValueError("a lam per class is for multi-label categories; single-label "
                             "classes share one lam (their scores meet in the argmax)")
        # coef: the one fit's own rows when it solves every problem, else filled per group
        # (a second K x d array beside the fit's would double the model's memory)
        coef, intercept = None, np.empty(K)
        gap, n_iter = np.empty(K), np.empty(K, dtype=int)
        if self.nb_scaling:  # each problem on its own ratios
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
                    coef = np.empty((K, X.shape[1])) if coef is None else coef
                    coef[cols], intercept[cols] = 0.0, 1.0 if part[0] else -1.0
                    gap[cols], n_iter[cols] = 0.0, 0
                    continue
            model = self._model(float(lam[cols[0]]),
                                problem_class_weight(self.class_weight, classes, cols, task,
                                                     r is not None or task == "multilabel"
                                                     and part.ndim == 1))
            model.fit(X, part, column_scale=r)  # coef_: the weights on X's own columns
            if coef is None and len(cols) == K:
                coef = model.coef_
            else:
                coef = np.empty((K, X.shape[1])) if coef is None else coef
                coef[cols] = model.coef_
            intercept[cols], gap[cols], n_iter[cols] = (model.intercept_, model.duality_gap_,
                                                        model.n_iter_)
        self.coef_, self.intercept_, self.lam_ = coef, intercept, np.array(lam)
        self.duality_gap_, self.n_iter_ = gap, n_iter
        given = self._given_thresholds(K, task)
        # a class without training texts is never given (a constant model could win an argmax)
        self.thresholds_ = given.copy() if task == "binary" else never_given(Y, given)

    def _fit_classifier(self, X, Y, task):
        """``classifier`` fitted on every problem at once: the binary problem's labels,
        the class of each text when every class has some, else the indicator."""
        given = [k for k in ("lam", "class_weight") if getattr(self, k) is not None]
        if given or self.nb_scaling:
            raise ValueError(f"{', '.join(given + ['nb_scaling'] * bool(self.nb_scaling))}: "
                             "with a classifier, give its settings to the classifier")
        K = 1 if task == "binary" else Y.shape[1]
        present = Y.any(axis=0)
        competing = task == "multiclass" and K > 2 and int(present.sum()) > 2
        self.__dict__.pop("search_", None)
        if task == "binary":
            model = clone(self.classifier).fit(X, Y[:, 1])
        elif competing and present.all():
            model = clone(self.classifier).fit(X, np.argmax(Y, axis=1))
        elif competing and hasattr(self.classifier, "cv_summary"):
            # a search chooses its lam among the classes of the texts (they compete); the
            # model of that lam is fitted on every class, those without texts included
            self.search_ = clone(self.classifier).fit(X, np.argmax(Y, axis=1))
            model = chosen_model(self.search_, float(self.search_.lam_[0])).fit(X, Y)
        else:
            model = clone(self.classifier).fit(X, Y[:, 0] if K == 1 else Y)
        self.classifier_ = model
        self.coef_, self.intercept_ = linear_weights(model)
        # a model file keeps the weights: they must give the classifier's own scores (a
        # threshold or bias kept outside coef_ and intercept_ would be lost); checked on a
        # few rows: all of them cost a train x problems array several times over (Reuters
        # 90 titles' default process: 14 MiB of its peak)
        rows = X[:_CHECKED_ROWS]
        if not weights_give_scores(self.coef_, self.intercept_, rows,
                                   model.decision_function(rows)) or self.coef_.shape[0] != K:
            raise ValueError(f"classifier {type(model).__name__}'s scores are not "
                             f"coef_ @ x + intercept_ for the {K} problems of the texts")
        self.lam_ = np.broadcast_to(np.asarray(getattr(model, "lam_", getattr(
            model, "lam", np.nan)), dtype=np.float64), (K,)).copy()
        for attr in ("duality_gap_", "n_iter_"):  # where the classifier reports them
            if hasattr(model, attr):
                setattr(self, attr, getattr(model, attr))
            else:
                self.__dict__.pop(attr, None)
        own = getattr(model, "thresholds_", None)  # tuned in its own folds (a search's)
        given = (np.broadcast_to(np.asarray(own, dtype=np.float64), (K,))
                 if self.thresholds is None and own is not None
                 else self._given_thresholds(K, task))
        self.thresholds_ = given.copy() if task == "binary" else never_given(Y, given)

    def _given_thresholds(self, K, task):
        """The ``thresholds`` given, one per problem (0 for None, and for a name until they
        are tuned), or a ValueError that says what they take."""
        if self.thresholds is None or isinstance(self.thresholds, str):
            return np.zeros(K)
        return _per_problem(self.thresholds, K, task, f"thresholds={self.thresholds!r}",
                            allow_inf=True)

    # -- prediction -----------------------------------------------------------
    def features_of(self, X):
        """The rows of raw texts that the weights score: ``vectorizer_``'s matrix, its
        ``selected_`` columns (a CSR matrix of shape (n_texts, n_weights))."""
        check_is_fitted(self, "coef_")
        return self._selected(self.vectorizer_.transform(_texts(X, type(self).__name__)))

    def scores_of(self, X):
        """Scores of rows of :meth:`features_of`: (n_rows, n_problems)."""
        model = getattr(self, "classifier_", None)
        if model is None:
            return times_transposed(X, self.coef_) + self.intercept_
        scores = np.asarray(model.decision_function(X), dtype=np.float64)
        return scores[:, None] if scores.ndim == 1 else scores

    def decision_function(self, X):
        """Scores of raw texts: (n_texts,) for two classes (of ``classes_[1]``), else
        (n_texts, n_classes). Thresholds are not subtracted."""
        check_is_fitted(self, "coef_")
        scores = self.scores_of(self.features_of(X))
        return scores[:, 0] if self.task_ == "binary" else scores

    def predict(self, X):
        """A class per text (single-label) or an indicator matrix of categories
        (multi-label: every category whose score is above its threshold)."""
        labels = decide(self.task_, self.decision_function(X), self.thresholds_)
        if self.task_ == "multilabel":
            return labels.astype(np.uint8)
        return self.classes_[labels.astype(np.intp)]

    def score(self, X, y, sample_weight=None):
        """Accuracy of :meth:`predict`, ``y`` as :meth:`fit` takes it (label lists too;
        multi-label: every category right): :func:`~textwin.tasks.label_accuracy`."""
        return label_accuracy(self, X, y, sample_weight)

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
        coef = self.coef_
        if self.selected_ is not None:  # the weights of every column, 0 where none is kept
            coef = np.zeros((coef.shape[0], len(self.vectorizer_.vocabulary_)))
            coef[:, self.selected_] = self.coef_
        return explain(self.vectorizer_, coef, self.intercept_, texts, requests,
                       n_terms, self.vectorizer_.get_feature_names_out())

    # -- model files ----------------------------------------------------------
    def to_model(self, metadata=None):
        """The fitted classifier as a :class:`textwin.persistence.TextModel`, with
        ``metadata`` (a dict: what the model was tested on, ...) added to its own
        (with a ``classifier``, the classifier's: its class, parameters, duality gaps)."""
        check_is_fitted(self, "coef_")
        names = [str(c) for c in (self.classes_[1:] if self.task_ == "binary" else self.classes_)]
        single = self.task_ != "multilabel"
        model = getattr(self, "classifier_", None)
        if model is not None:
            own = estimator_metadata(model)
        else:
            params = {k: v for k, v in self.get_params().items()
                      if k not in ("lam", "thresholds", "classifier", "threshold_folds")
                      and not (k == "features" and v is None)}
            own = {"estimator": "textwin.TextClassifier", "params": params,
                   "lam": self.lam_.tolist(), "duality_gap": self.duality_gap_.tolist(),
                   "n_iter": self.n_iter_.tolist(), "stopping_rule": STOPPING_RULE}
        return TextModel(
            self.coef_, self.intercept_, names,
            vocabulary=self.vectorizer_.vocabulary_, selected=self.selected_,
            preprocessing=self.vectorizer_.preprocessing_params(),
            idf=getattr(self.vectorizer_, "idf_", None), thresholds=self.thresholds_,
            task=self.task_, classes=list(self.classes_) if single else None,
            metadata={**own, **(metadata or {})},
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
        clf.vectorizer_, clf.coef_, clf.intercept_ = vectorizer, coef, intercept
        clf.selected_ = None if model.selected is None else model.selected.copy()
        clf.language_ = vectorizer.language
        clf.chars_, clf.script_ = vectorizer.char_ngrams, None
        clf.thresholds_ = model.thresholds.copy()
        if model.calibration is not None:
            clf.calibration_ = model.calibration
        clf.task_ = model.task
        clf.classes_ = np.asarray(model.classes if model.task != "multilabel"
                                  else model.target_names)
        clf.n_features_in_ = len(vectorizer.vocabulary_)
        clf.lam_ = np.asarray(model.metadata.get("lam", [np.nan] * coef.shape[0]))
        for attr, key in (("duality_gap_", "duality_gap"), ("n_iter_", "n_iter")):
            setattr(clf, attr, np.asarray(model.metadata.get(key, [np.nan] * coef.shape[0])))
        return clf

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        return tags


#: The training rows on which a classifier's scores are checked to be its weights'.
_CHECKED_ROWS = 512
