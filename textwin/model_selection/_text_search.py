"""The cross-validated search of raw texts: :class:`TextClassifierCV`.

Every combination of the searched settings of the words is tried on the same folds of
the training texts, then bigrams and character n-grams beside the best (:func:`~textwin.model_selection._split.text_folds`): each fold's matrices are
derived from the words found once (:func:`textwin.text.fold_matrices`), the one
out-of-fold engine (:class:`~textwin.model_selection._validation.FoldPaths`) solves the
warm-started paths, in threads or on a cluster, and the scores are judged at the
model's own decision rule (docs/mathematics.md §13); the best setting is refitted as a
:class:`~textwin.TextClassifier`.
"""
import itertools
import math
import sys
import time
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted
from tqdm import tqdm

from textwin._ovr import check_class_weight, store_params
from textwin._tuning import OBJECTIVES
from textwin.calibration import calibrate
from textwin.model_selection._budget import BAR_FORMAT, TimeBudget
from textwin.model_selection._choice import (FoldJudge, at_the_choices, check_choice,
                                             choice_of, descend, mean_and_se, rule_for,
                                             shared_choice)
from textwin.model_selection._results import cv_results, result_rows, search_summary
from textwin.model_selection._split import (SmallClassWarning, fold_of, search_sample,
                                             text_folds)
from textwin.model_selection._validation import FoldPaths, matrix_folds
from textwin.persistence import save_model
from textwin.tasks import label_accuracy, problem_positives
from textwin.text import UNSPACED_CHARS, Words, detect_unspaced_script, fold_matrices
from textwin.text_classifier import (DEFAULT_LAM_N, TextClassifier, column_classes,
                                     intercept_params, make_vectorizer, resolve_language,
                                     training_data)

__all__ = ["TextClassifierCV", "SmallClassWarning"]

#: ``TextClassifierCV`` tries character n-grams (beside the best words) on training texts
#: of at most this many characters: about 8 million nonzeros a matrix, 100 MB.
CHAR_SEARCH_CHARACTERS = 2_000_000
#: ... and of at most this many characters times the binary problems each fit solves (1 for
#: two classes, else one per class or category): the character trial's paths cost about
#: that many entries per epoch on every fold. On Reuters 90's titles (0.35 million
#: characters, 90 categories) it took more than half of the search and moved no figure.
CHAR_SEARCH_WORK = 8_000_000
#: A challenger of the best setting so far (bigrams, character n-grams, another class
#: weight) is first solved on this many of the folds, then on one more, and on the others
#: only if it did not lose there (``TextClassifierCV(halving=True)``): two, so that a
#: tuned rule's thresholds for each fold are tuned on another.
FIRST_ROUND_FOLDS = 2
#: Folds whose training matrices hold more stored values than this are solved one at a
#: time, their problems in threads (12 MB as float64 values and int32 columns): two at
#: once were the peak of ``--auto`` on two threads where character n-grams are searched.
FOLD_VALUES_IN_PARALLEL = 1_000_000


#: The searched parameters of a combination, in the order of its key.
_NAMES = ("stem", "ngrams", "chars", "loss", "nb_scaling", "fit_intercept", "class_weight")


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


class _Weights(dict):
    """A ``class_weight`` dict as a searched setting: hashable by its items, so that it can
    key a combination (a dict as such cannot)."""

    def __hash__(self):
        return hash(tuple(sorted(map(repr, self.items()))))


def _weight_candidates(value):
    """The ``class_weight`` searched: None, "balanced", a dict of classes, or a list of
    them."""
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    if not values or not all(v is None or v == "balanced" or isinstance(v, dict)
                             for v in values):
        raise ValueError(f"class_weight={value!r}: give None, 'balanced', a dict of classes "
                         "or a list of them")
    return [_Weights(v) if isinstance(v, dict) else v for v in values]


class TextClassifierCV(ClassifierMixin, BaseEstimator):
    """:class:`TextClassifier` with its features and ``lam`` chosen by cross-validation.

    Every combination of the searched settings (``stem``, ``ngrams``,
    ``nb_scaling``, ``loss``, ``fit_intercept``: each a value, fixed, or a list of candidates) is
    tried on the same folds of the training texts. Each fold's vectorizer is
    fitted on the fold's training texts and its two matrices built once per
    feature setting; a warm-started regularization path over ``lam_grid`` (the
    searches' one out-of-fold engine, in threads or, inside
    ``joblib.parallel_config(backend="dask")`` or ``"ray"``, as tasks on the cluster)
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
    max_search_texts : int or None, default=50_000
        The search runs on at most this many of the training texts, drawn at random
        with ``random_state`` (stratified for one class per text, every class kept),
        and the refit on all of them, at the chosen ``lam`` times ``n_sample / n``
        (the same ``C``): on a larger corpus the search costs what it costs on this
        many texts, and only the refit grows with the corpus. None: every text.
        Ignored when ``cv`` gives the folds' indices.
    stem : bool or list of bool, default=(True, False)
    ngrams : int or list of int, default=(1, 2)
        Words alone (1), or with their bigrams (2). With 1 among the candidates,
        words alone are searched first (every stem, loss, scaling and bias), and each
        other length is then tried beside the best combination (its stem, loss,
        scaling and bias) on the same folds: bigram matrices hold two to three times
        the words' entries and their paths take more epochs, so that trying them
        with every combination cost R52's search four fifths of its time, where the
        words won.
    chars : None, a pair of lengths, or a list of them, default=(None, (2, 5))
        Character n-grams inside words (``TextVectorizer(char_ngrams=...)``).
        With None among the candidates the words are searched first, and each
        other candidate is then tried beside the best combination's words (and
        bigrams, if it has them; with its loss, scaling and bias), on the same
        folds: beside the bigrams or instead of them, as the folds chose those;
        only on training texts of at most ``CHAR_SEARCH_CHARACTERS`` (2 million)
        characters, where their matrices (about four entries a character, ten
        times the words') stay small, and of at most ``CHAR_SEARCH_WORK`` (8
        million) characters times the binary problems (1 for two classes, one per
        class or category otherwise), where their paths stay cheap. Without None,
        every combination has them.
    nb_scaling : bool, list of bool or "auto", default="auto"
        "auto": searched (``[False, True]``) for one class per text, off for
        multi-label categories.
    loss : str or list of str, default="hinge"
    fit_intercept : bool or list of bool, default=True
        A bias, as a constant feature.
    class_weight : None, "balanced", dict or a list of them, default=None
        As in :class:`~textwin.TextClassifier` (a dict weights the classes it names, the
        others 1, as scikit-learn's). A list with None: the combinations are
        searched unweighted, and the best one is then tried with each other
        weight on the same folds (``textwin train --auto`` tries "balanced" so when
        it maximises macro-F1).
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
        False never (0). One class of several is the argmax, never tuned here.
    thresholds : {None, "f1", "accuracy"}, default=None
        One class of several: the refitted model tunes an offset per class before
        the argmax for macro-F1 or accuracy, on folds of its own
        (``TextClassifier(thresholds=...)``, ``textwin train --auto
        --tune-thresholds``); None: the argmax. The other tasks' rule is the
        search's (``tune_thresholds``).
    one_se : bool, default=True
        The one-standard-error rule for ``lam`` (see ``select_lam``): the largest
        ``lam`` whose mean score is within one standard error of the best's. On
        the corpora of docs/benchmarks.md it chooses as the plain maximum does,
        but on GermEval 2018, where the folds' figures are noisy (test accuracy
        73.41 against 71.80 at ``random_state=0``, 73.8 against 73.1 over seeds 0-3).
    early_stopping : bool, default=True
        Solve a combination's paths a few ``lam`` at a time on every fold, and stop
        them once each rule's choice is a ``lam`` back: its best mean score (the last
        neither beat it nor tied it), or with ``one_se`` the largest ``lam``
        within one standard error of the best (the last did not move it): the
        paths are past their optimum or have flattened, and the smallest
        ``lam``, the costliest to solve, are left out (NaN in ``cv_results_``).
        A path solved in pieces gives the points of one solved whole, so the
        choice differs only where a curve would rise above its best again (by more
        than a standard error, with ``one_se``).
        False solves the whole grid.
    halving : bool, default=True
        Successive halving of the settings tried beside the best (bigrams, character
        n-grams, another class weight), as scikit-learn's ``HalvingGridSearchCV`` halves
        its candidates: each is first solved on the first ``FIRST_ROUND_FOLDS`` (2)
        folds alone, then on one more, each time compared there with the best setting
        so far, both judged on those folds alone (a tuned rule's thresholds for each
        tuned on the others); one whose best mean there (at any ``lam`` and rule) is
        below the best setting's (at its choice) by more than the standard error of a
        mean over those folds (the best setting's spread over every fold) goes no
        further (``dropped_``), the others go on to every fold (their paths continued)
        and are compared as any setting is. On Reuters 90 the bigrams, which lose,
        were two thirds of the search. False: every setting on every fold.
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
    dropped_ : list of dict
        The settings stopped after their first folds (``halving``): their ``params``,
        the ``folds`` they were solved on, of how many (``of``), their best mean
        ``score`` there and the best setting's (``best_score``) on the same folds.
    best_params_ : dict
        The chosen ``stem``, ``ngrams``, ``chars``, ``nb_scaling``, ``loss``, ``fit_intercept``,
        ``rule`` (the decision: "zero", "f1", "accuracy" or "macro-f1", as in
        :func:`~textwin.model_selection.select_lam`) and ``lam``.
    best_score_ : float
        The cross-validated score of the choice, a fraction.
    scoring_ : str
    n_splits_ : int
        The number of folds.
    n_search_texts_ : int
        The training texts the search ran on (all of them, or ``max_search_texts``).
    time_budget_ : dict or None
        With a ``time_budget``: ``seconds``, ``spent``, the settings ``not_tried``
        and those ``cut_short`` (stopped above their smallest ``lam``).
    cv_results_ : dict of lists
        One entry per combination and ``lam``: ``params``, ``lam_n``,
        ``mean_test_score`` and ``std_test_score`` (over the folds),
        ``rank_test_score`` (the settings dropped after their first folds last),
        ``n_folds`` (the folds of the scores: fewer for those) and ``fit_seconds`` per
        combination.
    classes_, task_
        As in :class:`TextClassifier`.
    """

    def __init__(self, weighting="tfidf", stem=(True, False), ngrams=(1, 2),
                 chars=(None, (2, 5)), language="auto", min_df=1, nb_scaling="auto", loss="hinge",
                 fit_intercept=True, class_weight=None, lam=None,
                 lam_grid=None,
                 scoring=None, tune_thresholds="auto", thresholds=None, one_se=True,
                 early_stopping=True,
                 halving=True, cv=5,
                 task=None, tol=1e-3, fold_tol=None, max_epochs=1000, time_budget=None,
                 max_search_texts=50_000, random_state=0, n_jobs=None, verbose=0):
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
        weights = _weight_candidates(self.class_weight)
        if None in weights:  # unweighted first; the others beside the best (_other_weights)
            weights = [None]
        variants = list(itertools.product(_candidates(self.loss, "loss"), nb,
                                          _candidates(self.fit_intercept, "fit_intercept"),
                                          weights))
        if script:  # no words to search: the characters of an unspaced script
            return [(False, 0, UNSPACED_CHARS)], variants
        if None in chars:  # the words first; character n-grams beside the best (_chars_beside)
            chars = [None]
        ngrams = _candidates(self.ngrams, "ngrams")
        if 1 in ngrams:  # words alone first; longer n-grams beside the best (_longer_ngrams)
            ngrams = [1]
        features = list(itertools.product(_candidates(self.stem, "stem"), ngrams, chars))
        return features, variants

    def _search_sample(self, Y, task):
        """The indices of the texts the search runs on, or None for all of them."""
        limit = self.max_search_texts
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, Integral)
                                  or limit < 2 * (self.cv if isinstance(self.cv, Integral)
                                                  else 1)):
            raise ValueError(f"{type(self).__name__}: max_search_texts={limit!r} must be a "
                             "whole number of texts, at least twice the folds (or None: all)")
        if not isinstance(self.cv, Integral):  # the folds index every text
            return None
        return search_sample(limit, Y, task, self.random_state)

    def _folds(self, Y, task, classes=None):
        return text_folds(type(self).__name__, self.cv, Y, task, classes, self.random_state)

    # -- fit ----------------------------------------------------------------------
    def fit(self, X, y, classes=None):
        """Search the settings by cross-validation, then refit the best on all the texts.

        Parameters
        ----------
        X : iterable of str
        y : array-like of shape (n_texts,), list of label lists, or an indicator matrix
        classes : sequence, default=None
            The classes (categories) of the columns of an indicator matrix ``y``, in
            order (default: 0, 1, ...), as :meth:`TextClassifier.fit` takes them.

        Returns
        -------
        self : TextClassifierCV
        """
        texts, (Y, found, task) = training_data(X, y, self.task, type(self).__name__)
        named = classes  # the refit's TextClassifier names its columns alike
        classes = found if classes is None else column_classes(classes, found, y)
        for name in ("early_stopping", "halving"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"{type(self).__name__}: {name}={getattr(self, name)!r} "
                                 "is not True or False")
        self._fold_tol()  # checked before the search
        if self.thresholds is not None and (task != "multiclass" or self.thresholds
                                            not in OBJECTIVES["multiclass"]):
            raise ValueError(f"{type(self).__name__}: thresholds={self.thresholds!r}: give "
                             f"{' or '.join(map(repr, OBJECTIVES['multiclass']))}, the class "
                             "offsets of one class per text (another task's rule is the "
                             "search's own: tune_thresholds), or None")
        for weight in _weight_candidates(self.class_weight):
            check_class_weight(weight, np.asarray(classes))
        self._classes = classes  # a class_weight dict weights the folds' problems by them
        sample = self._search_sample(Y, task)
        every_text = texts
        if sample is not None:  # the search on a sample; the refit on every text
            texts, Y = [texts[i] for i in sample], Y[sample]
        self.n_search_texts_ = len(texts)
        budget = TimeBudget(self.time_budget, type(self).__name__)  # the words count too
        scoring = check_choice(task, self.scoring, "zero", type(self).__name__)
        rules = self._rules(task, scoring)
        self.script_ = (detect_unspaced_script(texts) if None in _char_candidates(self.chars)
                        else None)
        features, variants = self._settings(task, self.script_)
        grid = self._grid(len(texts))
        folds = self._folds(Y, task, classes)
        self.language_ = resolve_language(self.language, texts)
        longest = max(_candidates(self.ngrams, "ngrams")) if not self.script_ else 0
        words = Words(texts, max(longest, 1))  # found once for all
        judge = FoldJudge(rules, Y, task, scoring, fold_of(folds, len(texts)))
        if budget.seconds is not None:  # the cheapest first: words alone, then bigrams
            features.sort(key=lambda f: f[1])
        oof, whole, seconds, dropped = self._out_of_fold(texts, Y, task, folds, features,
                                                         variants, grid, words, judge, budget)
        self._choose(grid, oof, whole, seconds, dropped, judge)

        def beside_best(trials):
            """``trials`` (features, variants) on the same folds, challengers of the best
            so far (each stopped after its first round if it lost there), added to the
            search and chosen again; whether any was solved (the budget may leave none)."""
            if trials is None:
                return False
            best = self._best_key
            more = self._out_of_fold(texts, Y, task, folds, *trials, grid, words, judge,
                                     budget, incumbent=(oof[best], whole[best]))
            for done, new in zip((oof, whole, seconds, dropped), more):
                done.update(new)
            if more[0] or more[3]:
                self._choose(grid, oof, whole, seconds, dropped, judge)
            return bool(more[0] or more[3])

        beside_best(self._longer_ngrams())
        chars = self._chars_beside(texts, 1 if task == "binary" else Y.shape[1])
        if chars is not None:
            self.chars_searched_ = (beside_best(chars)
                                    or "not searched: the time budget was spent")
        beside_best(self._other_weights())
        self.time_budget_ = budget.report(len(oof))
        self.scoring_, self.classes_, self.task_ = scoring, classes, task
        self.n_splits_ = len(folds)
        if sample is not None:  # the sample's words serve the refit of every text no more
            words = None
        # each setting's scores at its choices (the refit keeps the best's): not beside
        # the refit's matrix and weights (Reuters 90 titles: 37 MB)
        oof.clear()
        whole.clear()
        self.best_estimator_ = self._refit(every_text, y, Y, words, named)
        return self

    # -- the settings tried beside the best combination so far -------------------------
    def _best_variant(self, class_weight=None):
        best = self.best_params_
        return (best["loss"], best["nb_scaling"], best["fit_intercept"],
                best["class_weight"] if class_weight is None else class_weight)

    def _longer_ngrams(self):
        """With ``ngrams`` a choice of words alone (1) and longer n-grams: the best
        combination of the words' search (its stem, loss, scaling and bias) with each
        longer n-gram length, as (features, variants), or None. Their matrices hold two
        to three times the words' entries, their paths take more epochs, and the settings
        of the words rank the same with them (R52: 4 of 5 of the search's seconds went to
        the bigrams of every stem and scaling, and the words won)."""
        ngrams = _candidates(self.ngrams, "ngrams")
        if self.script_ or 1 not in ngrams or len(set(ngrams)) == 1:
            return None
        best = self.best_params_
        return ([(best["stem"], n, best["chars"]) for n in dict.fromkeys(ngrams) if n != 1],
                [self._best_variant()])

    def _chars_beside(self, texts, problems):
        """With ``chars`` a choice (None among its candidates): the best combination of the
        words' search with the character n-grams beside its words (and bigrams, if it
        has them), as (features, variants), or None. Their matrices hold about four
        entries a character of text, ten times the words', so they are tried once,
        beside the best words, and only on training texts of at most
        :data:`CHAR_SEARCH_CHARACTERS` characters and, times the binary ``problems``,
        :data:`CHAR_SEARCH_WORK`. Sets ``chars_searched_`` to False, or to the reason they
        are not tried (a string)."""
        candidates = [c for c in _char_candidates(self.chars) if c is not None]
        self.chars_searched_ = False
        if None not in _char_candidates(self.chars) or not candidates or self.script_:
            return None
        size = sum(map(len, texts))
        if size > CHAR_SEARCH_CHARACTERS:
            self.chars_searched_ = (f"not searched: {size / 1e6:.1f} million characters of "
                                    f"training text, above {CHAR_SEARCH_CHARACTERS / 1e6:g} "
                                    "million")
            return None
        if size * problems > CHAR_SEARCH_WORK:
            self.chars_searched_ = (f"not searched: {size / 1e6:.2f} million characters of "
                                    f"training text times {problems} binary problems, above "
                                    f"{CHAR_SEARCH_WORK / 1e6:g} million")
            return None
        best = self.best_params_
        return [(best["stem"], best["ngrams"], c) for c in candidates], [self._best_variant()]

    def _other_weights(self):
        """With ``class_weight`` a choice (None among its candidates): the best combination
        so far with each other class weight, as (features, variants), or None."""
        weights = _weight_candidates(self.class_weight)
        if None not in weights or len(weights) == 1:
            return None
        best = self.best_params_
        return ([(best["stem"], best["ngrams"], best["chars"])],
                [self._best_variant(w) for w in weights if w is not None])

    def _out_of_fold(self, texts, Y, task, folds, features, variants, grid, words, judge,
                     budget, incumbent=None):
        """Per combination (stem, ngrams, loss, nb_scaling, fit_intercept): its out-of-fold
        scores, each rule's folds' scores (``judge``) and its seconds (paths and share of
        the vectorizing); those the ``budget`` left no time for are left out, and those
        that lost to the ``incumbent`` in their first round (:meth:`_paths`) are in the
        fourth dict, with what that round showed."""
        oof, whole, seconds, dropped = {}, {}, {}, {}
        bar = tqdm(total=len(features) * len(variants) * len(folds) * grid.size,
                   desc="TextClassifierCV (settings x folds x lams)", unit="fit",
                   bar_format=BAR_FORMAT, file=sys.stderr, leave=False,
                   disable=not self.verbose or not sys.stderr.isatty())
        self._unconverged = 0
        self._n_settings = len(features) * len(variants)  # for the search's estimate
        keys = [(*f, *v) for f in features for v in variants]
        varied = [len(set(values)) > 1 for values in zip(*keys)]  # what a setting's name says
        with bar:
            for stem, ngrams, chars in features:
                described = {v: " ".join(f"{name}={x}" for name, x, searched in zip(
                    _NAMES, (stem, ngrams, chars, *v), varied)
                    if searched or (name == "chars" and x) or (name == "ngrams" and x != 1)) for v in variants}
                if budget.exhausted():  # no time left: not even the matrices
                    budget.not_tried.extend(described.values())
                    continue
                start = time.perf_counter()
                vec = make_vectorizer(self.weighting, stem, ngrams, self.language_, self.min_df,
                                      chars)
                matrices = None  # the last setting's counts go before these are made
                matrices = fold_matrices(vec, texts, folds, words)  # counted once, built per fold
                shared = (time.perf_counter() - start) / len(variants)
                for variant in variants:
                    start = time.perf_counter()
                    key = (stem, ngrams, chars, *variant)
                    S, W, lost = self._paths(matrices, Y, task, folds, grid, variant, judge,
                                             bar, budget, described[variant],
                                             len(keys) - keys.index(key) - 1, incumbent)
                    if S is not None:
                        oof[key], whole[key] = at_the_choices(S, W, self.one_se), W
                    if lost is not None:
                        dropped[key] = lost
                    if S is not None or lost is not None:
                        seconds[key] = shared + time.perf_counter() - start
                    # texts x problems x lams (Reuters 90 titles: 39 MB): not beside the next's
                    S = None
                    budget.check_first()
        if self._unconverged:  # one line for the search, not one per path
            warnings.warn(
                f"{type(self).__name__}: {self._unconverged} paths had points that stopped at "
                f"max_epochs={self.max_epochs} before the relative duality gap reached "
                f"fold_tol={self._fold_tol():g} (the smallest lams are the hardest); their "
                "scores are those of the solutions reached", ConvergenceWarning, stacklevel=3)
        return oof, whole, seconds, dropped

    def _paths(self, matrices, Y, task, folds, grid, variant, judge, bar, budget, described,
               settings_left, incumbent=None):
        """One combination's out-of-fold scores (n_texts, n_problems, n_lams; NaN below a
        stop), each rule's folds' scores, and what its first folds showed if it lost there
        (else None), on the engine (threads or a cluster), with ``early_stopping`` in
        pieces (:func:`~textwin.model_selection._choice.descend`), each started only if the
        ``budget`` allows it ((None, None, None): not even the first).

        A challenger of the best setting so far (``incumbent``: its out-of-fold scores at
        each rule's choice and its folds' scores) is first solved on the first
        :data:`FIRST_ROUND_FOLDS` folds alone, then on one more, each time compared there
        with the incumbent (:meth:`_lost`); one that loses goes no further, one that does
        not goes on to the other folds (the paths solved so far continued where they
        stopped) and is then compared on every fold as any setting is."""
        K = 1 if task == "binary" else Y.shape[1]
        scores = np.full((Y.shape[0], K, grid.size), np.nan)
        loss, nb, fit_intercept, class_weight = variant
        if isinstance(class_weight, dict):  # a weight per class, keyed for each fold's problems
            class_weight = [class_weight.get(c, 1.0) for c in np.asarray(self._classes).tolist()]
        parts = matrix_folds(matrices, Y, task, folds, nb, scores, dict(
            loss=loss, **intercept_params(fit_intercept), class_weight=class_weight,
            tol=self._fold_tol(),
            max_epochs=self.max_epochs, random_state=self.random_state, n_jobs=self.n_jobs))
        F = len(folds)
        m = FIRST_ROUND_FOLDS if incumbent is not None and self.halving else F
        # the first round on m folds, the second on one more, the last on the rest
        stops = sorted({min(m, F), min(m + 1, F), F})
        rounds = [range(a, b) for a, b in zip([0] + stops, stops)]
        one_fold = max(matrices.train_nnz) > FOLD_VALUES_IN_PARALLEL
        runs = [FoldPaths([q for q in parts if q.p in r], None, True, Y.shape[0], K, self.n_jobs,
                          label="textwin-auto", out=scores, one_fold_at_a_time=one_fold)
                for r in rounds]
        values = [K * sum(matrices.train_nnz[p] for p in r) for r in rounds]  # read per lam
        solved = [0] * len(runs)  # the lams each round's paths reached
        ticks = 0

        def descend_rounds(n, judge, whole):
            """The grid descended on the folds of the first ``n`` rounds, each round's
            paths continued from the lams they reached; (the end of the lams solved, the
            gate)."""
            gate = budget.gate(values[n - 1])

            def allows(l, end):  # the values a lam of this piece reads, on average
                gate.size = sum(v * max(0, end - max(l, s))
                                for v, s in zip(values[:n], solved)) / (end - l)
                return gate.allows(l, end)

            def piece(l, end):
                nonlocal ticks
                with gate.piece(l, end):
                    for i in range(n):
                        if end > solved[i]:
                            if runs[i].folds:
                                self._unconverged += runs[i].extend(grid[solved[i]:end])
                            bar.update(len(rounds[i]) * (end - solved[i]))
                            ticks += len(rounds[i]) * (end - solved[i])
                            solved[i] = end
                budget.say_if_long(gate.size, grid.size, end - l, self._n_settings)
                bar.set_postfix_str(budget.progress_note(gate.size, grid.size, grid.size - end,
                                                         settings_left))
                for rule in judge.rules:
                    whole[rule][:, l:end] = judge(scores[:, :, l:end], rule)
                return whole

            # naive Bayes pieces count each class's ratios again, yet cost less than the
            # smallest lams left out (R52's 52 classes: a scaled setting 18-26 % less time)
            return descend(grid.size, piece, self.early_stopping, allows=allows,
                           one_se=self.one_se), gate

        whole = {rule: np.full((F, grid.size), np.nan) for rule in judge.rules}
        past = described  # what the budget may leave out
        try:
            for n in range(1, len(rounds)):  # each round but the last: can it still win?
                k = rounds[n - 1].stop
                judged = judge.first(k)
                shown = {rule: np.full((k, grid.size), np.nan) for rule in judge.rules}
                end, gate = descend_rounds(n, judged, shown)
                if gate.refused is not None:  # the budget is spent: not tried on every fold
                    budget.not_tried.append(past)
                    return None, None, None
                lost = self._lost(incumbent, judged, {r: w[:, :end] for r, w in shown.items()})
                if lost["lost"]:
                    return None, None, {"whole": shown, "folds": k, **lost}
                past = f"{described} (past its first {k} folds)"
            end, gate = descend_rounds(len(runs), judge, whole)
            scores[:, :, end:] = np.nan  # an earlier round may have gone further
        finally:
            for run in runs:
                run.close()
            bar.total -= F * grid.size - ticks
        return (scores, whole, None) if gate.close(past) else (None, None, None)

    def _lost(self, incumbent, judged, shown):
        """Has a challenger lost to the ``incumbent`` (its out-of-fold scores at each
        rule's choice, and its folds' scores) on the folds it was solved on so far
        (``shown``: rule -> their scores, by ``judged``, the judge of those folds)? Its
        best mean there below the incumbent's by more than the standard error of a mean
        over those k folds, the incumbent's spread over all F folds at its choice (its
        standard error times sqrt(F / k): a curve of more folds estimates it better).
        Returns the two means and the difference in those units (``deficit``), and
        whether that is below -1 (``lost``). ``benchmarks/bench_halving.py`` judges every
        window of folds so, on the corpora of docs/benchmarks.md."""
        at_choice, incumbent_whole = incumbent
        there = {rule: judged(S[:, :, :1], rule)[:, 0] for rule, S in at_choice.items()}
        index, _, se = max((shared_choice(w, self.one_se) for w in incumbent_whole.values()),
                           key=lambda c: c[1][c[0]])
        F, k = next(iter(incumbent_whole.values())).shape[0], next(iter(there.values())).size
        score = max((float(np.max(mean_and_se(w)[0])) for w in shown.values()),
                    default=-np.inf)
        best = max(float(np.mean(w)) for w in there.values())
        margin = se[index] * math.sqrt(F / k)
        deficit = (score - best) / margin if margin > 0 else (
            0.0 if score == best else math.copysign(math.inf, score - best))
        return {"score": score, "best_score": best, "deficit": deficit, "lost": deficit < -1}

    def _choose(self, grid, oof, whole, seconds, dropped, judge):
        """cv_results_, best_params_, best_score_, dropped_ and the choice's lam and
        thresholds, by :func:`textwin.model_selection.select_lam`'s rule on each
        combination's folds' scores at each rule (on a tie the earlier combination, and
        score > 0 before a tuned rule); the combinations ``dropped`` after their first
        folds are rows of those folds' scores, never chosen."""
        rows, best = [], None
        n_folds = int(np.max(judge.fold_of)) + 1
        for key, at_choice in oof.items():
            for rule, scores in whole[key].items():
                params = dict(zip(_NAMES, key), rule=rule)
                S = at_choice[rule]
                choice = choice_of(scores, S, judge.T, judge.fold_of,
                                   task=judge.task, scoring=judge.scoring, rule=rule,
                                   one_se=self.one_se)
                rows += result_rows(params, grid, choice.mean, choice.fold_scores,
                                    fit_seconds=seconds[key], n_folds=n_folds)
                if best is None or choice.score > best[0]:
                    thresholds = choice.thresholds if rule != "zero" else None
                    best = (choice.score, params, grid[choice.index], thresholds,
                            S[:, :, choice.index], key)
        self.dropped_ = []
        for key, lost in dropped.items():
            for rule, scores in lost["whole"].items():
                rows += result_rows(dict(zip(_NAMES, key), rule=rule), grid,
                                    mean_and_se(scores)[0], scores, fit_seconds=seconds[key],
                                    n_folds=lost["folds"])
            self.dropped_.append({"params": dict(zip(_NAMES, key)), "folds": lost["folds"],
                                  "of": n_folds, "score": lost["score"],
                                  "best_score": lost["best_score"]})
        score, params, lam_n, thresholds, self._best_oof, self._best_key = best
        self.cv_results_ = cv_results(rows)
        self.best_score_ = float(score)
        self.best_params_ = {**params, "lam_n": lam_n}
        self._best_thresholds = thresholds

    def _refit(self, texts, y, Y_searched, words, classes):
        """The best setting fitted on ``texts`` (every training text), calibrated on the
        out-of-fold scores of the texts searched (``Y_searched``: their labels)."""
        n = len(texts)
        p = dict(self.best_params_)
        lam_n = p.pop("lam_n")
        rule = p.pop("rule")
        lam = float(lam_n / n if self.lam is None else self.lam)
        self.best_params_ = {**p, "rule": rule, "lam": lam}
        clf = TextClassifier(
            weighting=self.weighting, language=self.language_, min_df=self.min_df, lam=lam,
            thresholds=(self._best_thresholds if self.thresholds is None
                        else self.thresholds), task=self.task, tol=self.tol,
            max_epochs=self.max_epochs, random_state=self.random_state, n_jobs=self.n_jobs,
            **p)
        clf.fit(texts, y, words=words, classes=classes)
        # Platt's sigmoids on the chosen setting's out-of-fold scores, which cost nothing more
        clf.calibration_ = calibrate(self._best_oof, problem_positives(Y_searched, self.task_),
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

    def score(self, X, y, sample_weight=None):
        """As :meth:`TextClassifier.score` (label lists too)."""
        return label_accuracy(self, X, y, sample_weight)

    def predict_proba(self, X):
        """As :meth:`TextClassifier.predict_proba` of ``best_estimator_``: the logistic
        loss's probabilities, or Platt's sigmoids fitted on the chosen setting's
        out-of-fold scores (the search's own, at the chosen ``lam``)."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict_proba(X)

    def save(self, path):
        """Write ``best_estimator_`` to a model file, with what the search chose."""
        save_model(path, self.to_model())
        return self

    def to_model(self, metadata=None):
        """``best_estimator_`` as a :class:`textwin.persistence.TextModel`
        (:meth:`TextClassifier.to_model`, with ``metadata``), and what the search chose
        (``search``: :meth:`search_summary`)."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.to_model({**(metadata or {}),
                                              "search": self.search_summary()})

    def search_summary(self):
        """What the search chose and its score, JSON-ready: ``scoring``, ``folds``,
        ``cv_score``, ``chosen`` (``best_params_``), ``lam_n`` (the grid of ``lam * n``,
        descending), ``curves``: per combination, its ``params`` and its mean
        ``scores`` at each ``lam_n``, and ``dropped`` (``dropped_``: the combinations
        stopped after their first folds, whose curves are those folds' means)."""
        check_is_fitted(self, "best_estimator_")
        return {**search_summary(self.cv_results_, self.scoring_, self.n_splits_,
                                 self.best_score_, self.best_params_),
                "dropped": self.dropped_}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        return tags
