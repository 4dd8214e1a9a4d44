"""A labelled corpus resolved once for a fit: :class:`TrainingSet`.

``TrainingSet.of(corpus, categories, ...)`` takes a :class:`~textwin.datasets.CustomCorpus`
(or the paper's matrices, ``TrainingSet(...)``) and resolves, once, what every fit on it
shares: the categories asked for (:func:`resolve_categories`: a name, a comma-separated
list, a list, ``"all"`` or the paper's ``"top10"``; an :class:`UnknownCategoryError`
names the closest), the task (:func:`textwin.tasks.detect_task`), the order of a
two-class corpus's classes (the positive last), the categories that get a constant
model and why (:meth:`TrainingSet.check_trainable` applies the rule), and how the
texts become rows (:class:`TextRows`: the language and stemming, the character n-grams
of a script without spaces) or, for feature values, the columns of ``features=K``.
Errors are :class:`~textwin.datasets.CorpusError` or :class:`UnknownCategoryError`;
the command line says them in one line each.
"""
from __future__ import annotations

import difflib
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._messages import first_names
from ._corpus import CorpusError

#: The paper's categories in its table order (earn is in the experiment; its row was
#: lost in the extracted tables, so it has no per-category paper figure): the ten most
#: frequent of ModApte.
TOP10 = ("earn", "acq", "money-fx", "grain", "crude", "trade", "interest", "ship", "wheat",
         "corn")


class UnknownCategoryError(ValueError):
    """A category name that the corpus does not have."""


def closest_names(name, choices, n=5):
    """Up to ``n`` of ``choices`` close to ``name``: by spelling, else those that hold it
    (short names like "gr")."""
    close = difflib.get_close_matches(name, choices, n=n, cutoff=0.5)
    if not close:  # prefix or substring matches for short names like "gr"
        close = [c for c in choices if name.lower() in c.lower()][:n]
    return close


def resolve_categories(categories, available):
    """Turn ``"top10"``, ``"all"``, a comma-separated string or a list into names.

    Raises :class:`UnknownCategoryError` naming the closest valid names.
    """
    available = list(available)
    if categories is None or categories == "top10":
        names = list(TOP10)
    elif categories == "all":
        return available
    elif isinstance(categories, str) and categories.strip() in available:
        names = [categories.strip()]  # one name, commas and all ("sports, games")
    elif isinstance(categories, str):  # a comma inside a name is written "\,"
        names = [c.strip().replace("\0", ",")
                 for c in categories.replace("\\,", "\0").split(",") if c.strip()]
    else:
        names = list(categories)
    if not names:
        raise UnknownCategoryError("no category given")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UnknownCategoryError(f"category {twice[0]!r} is listed more than once")
    known = set(available)
    for name in names:
        if name not in known:
            close = closest_names(name, available)
            hint = (f"closest: {', '.join(close)}" if close
                    else f"{len(available)} categories exist, e.g. {', '.join(available[:5])}")
            raise UnknownCategoryError(f"unknown category {name!r} ({hint})")
    return names


# ---------------------------------------------------------------------------
# Categories without a model to learn
# ---------------------------------------------------------------------------

#: Why a category gets a constant model: it has no training document, or every one.
NO_TRAINING_DOCUMENT = "no training document"
IN_EVERY_TRAINING_DOCUMENT = "in every training document"


def constant_models(categories, Y_train):
    """``{category: why}`` for the categories that cannot be learned and get a constant
    model: no training document, or every one."""
    Y_train = np.asarray(Y_train)
    return {c: NO_TRAINING_DOCUMENT if not Y_train[:, j].any() else IN_EVERY_TRAINING_DOCUMENT
            for j, c in enumerate(categories) if not Y_train[:, j].any() or Y_train[:, j].all()}


# ---------------------------------------------------------------------------
# How texts become rows
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class TextRows:
    """How a text corpus's texts become rows, as :class:`textwin.TextClassifier` takes it
    (:meth:`params`), with what was read from the texts to choose it.

    ``language_from`` says where ``language`` came from: ``"given"`` (or no stemming),
    ``"texts"`` (their function words: :func:`textwin.text.detect_language`) or
    ``"default"`` (none recognised: English, Porter's stemmer, as short texts and titles
    have few function words). ``script``: the script without spaces between words
    (:func:`textwin.text.detect_unspaced_script`) that chose the character n-grams
    ``chars`` in place of the words (``ngrams`` 0, unless n-grams were given); None when
    ``chars`` was given or none are used."""

    weighting: str
    stem: bool
    ngrams: int
    language: str
    chars: tuple | None
    language_from: str = "given"
    script: str | None = None

    @classmethod
    def of(cls, texts, *, weighting="tfidf", stem=True, language="auto", ngrams=None,
           chars="auto"):
        """The rows of ``texts`` (the training texts): ``language="auto"`` and
        ``chars="auto"`` read from them; ``ngrams`` None: words (1), or none beside the
        character n-grams of a script without spaces."""
        from ..text import detect_language, resolve_chars

        chars, script = resolve_chars(chars, texts)
        language_from = "given"
        if not stem:
            language = "english"
        elif language == "auto":
            language = detect_language(texts)
            language_from = "texts" if language else "default"
            language = language or "english"
        return cls(weighting, bool(stem), 0 if script and not ngrams else ngrams or 1,
                   language, chars, language_from, script)

    def params(self):
        """:class:`textwin.TextClassifier`'s parameters of these rows."""
        return {"weighting": self.weighting, "stem": self.stem, "ngrams": self.ngrams,
                "language": self.language, "min_df": 1, "chars": self.chars}


# ---------------------------------------------------------------------------
# The training set
# ---------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class TrainingSet:
    """A labelled corpus's training and test documents over the categories asked for,
    resolved once (:meth:`of`).

    ``train``/``test`` are a text corpus's texts (lists of str) or feature values (CSR
    matrices, of the columns ``support`` when ``features=K`` selected some);
    ``Y_train``/``Y_test`` indicator matrices, a column per category of
    ``categories`` (a two-class corpus's positive class last); ``rows`` how the texts
    become rows (:class:`TextRows`; None for feature values); ``constant`` the
    categories that get a constant model, ``{category: why}``; ``named``: the categories
    were named one by one, so that one of them that cannot be learned is an error
    (:meth:`check_trainable`), not a warning. ``constant``, if not given, is read from
    ``Y_train`` (:func:`constant_models`)."""

    source: str
    categories: list
    task: str
    train: object
    test: object
    Y_train: object
    Y_test: object
    report: dict | None = None
    rows: TextRows | None = None
    support: object = None
    named: bool = False
    constant: dict = None

    def __post_init__(self):
        if self.constant is None:
            object.__setattr__(self, "constant", constant_models(self.categories,
                                                                 self.Y_train))

    @classmethod
    def of(cls, corpus, categories="all", *, task=None, positive_label=None, features=None,
           weighting="tfidf", stem=True, language="auto", ngrams=None, chars="auto"):
        """``corpus`` (a :class:`~textwin.datasets.CustomCorpus`) over ``categories``.

        Parameters
        ----------
        categories : None, "all", "top10", str or list
            :func:`resolve_categories`; None and "all" are every category, and they
            and "top10" keep those that cannot be learned (a constant model, named in
            one warning by :meth:`check_trainable`).
        task : None, "multiclass" or "multilabel"
            :func:`textwin.tasks.detect_task`; None reads it from the labels.
        positive_label : str, default=None
            A two-class corpus's positive class, put last (default: the second of the
            two in :func:`~textwin.datasets._corpus.label_order`).
        features : None, "all" or int
            Feature values (svmlight): keep the ``features`` columns of highest
            information gain (:func:`textwin.feature_selection.top_columns`). A text
            corpus's are the estimator's to select.
        weighting, stem, language, ngrams, chars
            A text corpus's rows: :meth:`TextRows.of`.
        """
        from ..tasks import detect_task

        available = list(corpus.target_names)
        names = available if categories in (None, "all") else resolve_categories(
            categories, available)
        cols = [available.index(c) for c in names]
        Y_train, Y_test = corpus.Y_train[:, cols], corpus.Y_test[:, cols]
        try:
            task = detect_task(Y_train, Y_test, task)
        except ValueError as exc:
            raise CorpusError(f"{corpus.source}: {exc} (--task multilabel)") from None
        if positive_label is not None:
            names, Y_train, Y_test = _positive_last(positive_label, task, names, Y_train,
                                                    Y_test, corpus.source)
        rows = support = None
        train, test = corpus.train, corpus.test
        if corpus.is_text:
            rows = TextRows.of(train, weighting=weighting, stem=stem, language=language,
                               ngrams=ngrams, chars=chars)
        else:
            train, test, support = _selected_features(train, test, corpus.Y_train, features)
        return cls(corpus.source, names, task, train, test, Y_train, Y_test,
                   report=corpus.report, rows=rows, support=support,
                   named=categories not in (None, "all", "top10"))

    @property
    def is_text(self):
        return self.rows is not None

    @property
    def problem_names(self):
        """The categories of the binary problems, in order (a two-class corpus has one,
        its positive class's)."""
        return self.categories[1:] if self.task == "binary" else self.categories

    def check_trainable(self, name=None):
        """A category needs positive and negative training documents: ``constant``
        checked. Named one by one (``named``), a category without them is a
        :class:`~textwin.datasets.CorpusError`; otherwise such categories are kept (a
        constant model, no break-even point) and named in one warning, unless none at
        all can be learned. ``name``: how the messages name the training documents
        (default: the source). Returns ``constant``."""
        name = self.source if name is None else name
        constant = self.constant
        no_pos = [c for c, why in constant.items() if why == NO_TRAINING_DOCUMENT]
        no_neg = [c for c, why in constant.items() if why != NO_TRAINING_DOCUMENT]
        if not self.named and len(constant) < len(self.categories):
            if constant:
                n = len(constant)
                names = [*(f"{c} ({NO_TRAINING_DOCUMENT})" for c in no_pos),
                         *(f"{c} ({IN_EVERY_TRAINING_DOCUMENT})" for c in no_neg)]
                # A warning, not a log line: -q silences it as it does the estimators'.
                warnings.warn(f"{n} categor{'y' if n == 1 else 'ies'} of {name} cannot be "
                              f"learned and get a constant model: {first_names(names)}",
                              stacklevel=2)
            return constant
        if no_pos and not no_neg:
            raise CorpusError(f"category {no_pos[0]!r} has no training document in {name}; "
                              "a classifier needs positive examples")
        if no_neg:
            folder = Path(str(self.source)).is_dir()  # same-named files: one document
            raise CorpusError(
                f"every training document of {name} is in category {no_neg[0]!r}; a "
                "classifier needs negative examples too" + (
                    " (in a folder corpus, files of the same name and identical bytes in "
                    "several category folders are one document with all their labels)"
                    if folder else ""))
        return constant


def _positive_last(positive, task, categories, Y_train, Y_test, source):
    """A two-class corpus's classes in the order (other, ``positive``); an error for a
    name that is not one of them, or a corpus of another task."""
    if task != "binary":
        raise CorpusError(f"--positive-label is for a two-class corpus; {source} is {task} "
                          f"({len(categories)} categories)")
    if positive not in categories:
        raise CorpusError(f"--positive-label {positive!r} is not a class of {source}: give "
                          f"{categories[0]} or {categories[1]}")
    if categories[1] == positive:
        return categories, Y_train, Y_test
    return [categories[1], categories[0]], Y_train[:, [1, 0]], Y_test[:, [1, 0]]


def _selected_features(X_train, X_test, Y_train, k):
    """Feature values with their ``k`` columns of highest information gain on every
    category's labels ``Y_train``: ``(X_train, X_test, support)``, ``support`` None when
    every column is kept."""
    if k in (None, "all") or k >= X_train.shape[1]:
        return X_train.tocsr(), X_test.tocsr(), None
    from ..feature_selection import top_columns  # here: it imports scipy.stats, 10 MB

    support = top_columns(X_train, Y_train, k)
    return X_train[:, support].tocsr(), X_test[:, support].tocsr(), support
