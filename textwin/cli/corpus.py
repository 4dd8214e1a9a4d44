"""What `textwin train` and `textwin eval` fit and test on: the corpus that the options
name, opened (Reuters-21578's paper features or its texts read as a corpus, R8 and R52, a
user's ``--corpus``) and resolved once by the library as a
:class:`~textwin.datasets.TrainingSet` (the categories, the task, a two-class corpus's
positive class, the constant models, how texts become rows); here, the options that do
not apply are refused, the library's errors said in one line (:func:`corpus_errors`) and
what it resolved said in the log. :class:`TrainingData` is that set with what a fit made
of it.
"""
from __future__ import annotations

import contextlib
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from .common import (
    EXIT_NO_DATA,
    EXIT_USAGE,
    SHOWN_ROWS,
    CLIError,
    logger,
    reading_reuters,
)
from .options import columns_of

#: The built-in single-label corpora that ``--corpus`` takes by name (when no file
#: or folder has that name).
BUILTIN_CORPORA = ("r8", "r52")

# Options of a user's corpus, each with why Reuters-21578 has no use for it.
_SPLIT = "Reuters-21578 has its own ModApte split"


_ENGLISH = "Reuters-21578 is English, stemmed by Porter's stemmer as in the paper"


CORPUS_ONLY = (("--test-corpus", "test_corpus", _SPLIT), ("--test-size", "test_size", _SPLIT),
               ("--task", "task", "Reuters-21578 is multi-label"),
               ("--allow-unlabeled", "allow_unlabeled",
                "every Reuters-21578 document of the split is read, with or without topics"),
               ("--language", "language", _ENGLISH), ("--no-stem", "no_stem", _ENGLISH),
               ("--positive-label", "positive_label", "Reuters-21578 is multi-label"),
               *((opt, opt[2:].replace("-", "_"), "Reuters-21578 is no table")
                 for opt in ("--text-column", "--label-column")))


def _of_the_set(name, doc=None):
    """What :class:`TrainingData` reads of its set as its own."""
    return property(lambda self: getattr(self.training_set, name), doc=doc)


@dataclass
class TrainingData:
    """What `train` and `eval` fit and test on: the library's
    :class:`~textwin.datasets.TrainingSet` (``training_set``), and the matrices and
    model parts that a model file keeps: a corpus's feature values as given, or what the
    fit of a text corpus made of its texts."""

    training_set: object
    X_train: object = None      # CSR matrices (None: texts not vectorized yet)
    X_test: object = None
    vocabulary: object = None   # every term: {term: column} or in column order (None: svmlight)
    support: object = None      # the selected columns of the vocabulary (None: all)
    preprocessing: dict = field(default_factory=dict)  # how texts became rows (TextVectorizer's)
    idf: object = None
    as_corpus: bool = False     # a user's corpus, or Reuters-21578's texts read as one

    @classmethod
    def of(cls, training_set, **parts):
        """``training_set`` with the model ``parts``; feature values are its matrices."""
        if not training_set.is_text:
            parts = {"X_train": training_set.train, "X_test": training_set.test,
                     "support": training_set.support, **parts}
        return cls(training_set, **parts)

    categories = _of_the_set("categories", "in column order (a two-class corpus's positive last)")
    Y_train = _of_the_set("Y_train", "indicator matrices, a column per category")
    Y_test = _of_the_set("Y_test")
    source = _of_the_set("source", "the corpus, as messages name it")
    task = _of_the_set("task", '"multilabel", "multiclass" or "binary"')
    report = _of_the_set("report", "the corpus report (None on the paper's features)")
    constant = _of_the_set("constant", "{category: why} of the constant models")
    problem_names = _of_the_set("problem_names", "the categories of the binary problems")

    @property
    def texts_train(self):
        """A text corpus's training texts (None: feature values)."""
        return self.training_set.train if self.training_set.is_text else None

    @property
    def texts_test(self):
        return self.training_set.test if self.training_set.is_text else None

    @property
    def text(self):
        """How a text corpus's texts become rows, as TextClassifier's parameters (None:
        feature values)."""
        rows = self.training_set.rows
        return None if rows is None else rows.params()

    @property
    def language(self):
        rows = self.training_set.rows
        return None if rows is None else rows.language

    @property
    def stem(self):
        rows = self.training_set.rows
        return True if rows is None else rows.stem

    @property
    def n_train(self):
        return len(self.texts_train) if self.X_train is None else self.X_train.shape[0]

    @property
    def n_test(self):
        return len(self.texts_test) if self.X_test is None else self.X_test.shape[0]

    @property
    def n_features(self):
        if self.X_train is not None:
            return self.X_train.shape[1]
        return len(self.vocabulary if self.support is None else self.support)


def training_data(args, categories_arg):
    """Categories, task and the training and test documents (Reuters or ``--corpus``): the
    paper's cached features or a corpus's feature values as matrices (with model parts),
    a text corpus's texts as they are, with how they become rows (``text``: the
    TextClassifier that fits on them vectorizes them)."""
    if args.corpus is None:
        return _reuters_training_data(args, categories_arg)
    return _corpus_training_data(args, categories_arg, _load_user_corpus(args))


@contextlib.contextmanager
def corpus_errors(args):
    """Inside: the library's errors of a corpus as one line and an exit code: a corpus
    not found or unreadable, ``EXIT_NO_DATA``; what it holds not fitting the options
    (:class:`~textwin.datasets.CorpusError`, an unknown category), ``EXIT_USAGE``."""
    from ..datasets._corpus import CorpusError
    from ..datasets._training_set import UnknownCategoryError

    try:
        yield
    except (CorpusError, UnknownCategoryError) as exc:
        found = not str(exc).startswith(("corpus not found", "test corpus not found"))
        raise CLIError(str(exc), EXIT_USAGE if found else EXIT_NO_DATA) from None
    except OSError as exc:
        raise CLIError(f"cannot read corpus {args.corpus}: {exc}", EXIT_NO_DATA) from None


def paper_set(args, categories_arg):
    """Reuters-21578 with the paper's features (the ModApte split, --features words of
    highest information gain, binary values): its :func:`~textwin.experiments.
    load_protocol_data` and that as a :class:`~textwin.datasets.TrainingSet`, not
    checked yet (:func:`checked`). "top10" and "all" keep the categories that cannot be
    learned; named ones must be learnable."""
    from ..datasets._training_set import TrainingSet
    from ..experiments import load_protocol_data

    with corpus_errors(args), reading_reuters(args.data_home):
        data = load_protocol_data(categories_arg, args.data_home,
                                  n_features=args.features or 1000,
                                  download_if_missing=not args.offline)
    return data, TrainingSet("Reuters-21578 ModApte", data.categories, "multilabel",
                             data.X_train, data.X_test, data.Y_train, data.Y_test,
                             named=categories_arg not in (None, "top10", "all"))


def checked(args, training_set, name=None):
    """``training_set``'s categories that cannot be learned: an error if named, else
    kept and named in one warning (:meth:`~textwin.datasets.TrainingSet.
    check_trainable`)."""
    with corpus_errors(args):
        return training_set.check_trainable(name)


def _reuters_training_data(args, categories_arg):
    if categories_arg is None and args.command == "train":
        raise CLIError("give --category: one of the 118 Reuters-21578 categories (e.g. acq, "
                       "earn, grain), a comma-separated list, or all")
    _refuse_corpus_options(args)
    if _reuters_as_corpus(args):
        return _corpus_training_data(args, categories_arg, _reuters_corpus(args, "modapte"),
                                     task="multilabel")
    data, training_set = paper_set(args, categories_arg)
    checked(args, training_set, "the ModApte training set")
    # The cached corpus is vectorized with TextVectorizer's defaults (title and body)
    # and NLTK's stemmer.
    return TrainingData.of(training_set, vocabulary=data.vocabulary, support=data.support,
                           preprocessing={"weighting": "binary", "stemmer": "nltk"})


def _reuters_as_corpus(args):
    """Reuters-21578 read as a user's corpus: its texts vectorized as the options say
    (--weighting, --features all, --auto, and with one of them --ngrams or --chars), not
    the paper's cached features. --ngrams or --chars alone is refused: the paper's 1,000
    binary features are of single words, and leaving them is said, not implied."""
    leaves = (args.weighting not in (None, "binary") or args.features == "all"
              or bool(getattr(args, "auto", False)))
    grams = [f"--ngrams {args.ngrams}"] * ((getattr(args, "ngrams", None) or 1) > 1) + [
        f"--chars {args.chars}"] * bool(getattr(args, "chars", None))
    if grams and not leaves:
        raise CLIError(f"{' and '.join(grams)} would leave the paper's protocol (1,000 binary "
                       f"information-gain features of single words): to train on "
                       f"Reuters-21578's texts with them, add --weighting tfidf --features all")
    return leaves


def _reuters_corpus(args, name):
    """Reuters-21578's texts as a :class:`textwin.corpora.CustomCorpus`: the ModApte
    split (``name`` "modapte") or R8 / R52 (:func:`~textwin.datasets.
    load_reuters_corpus`), from the data home of the options."""
    from ..datasets._reuters import load_reuters_corpus

    with reading_reuters(args.data_home):
        return load_reuters_corpus(name, data_home=args.data_home,
                                   download_if_missing=not args.offline)


def _refuse_corpus_options(args):
    """The options of a user's corpus, given with Reuters-21578: say why they do not apply."""
    given = [(opt, why) for opt, key, why in CORPUS_ONLY if getattr(args, key, None)]
    if args.seed is not None and not args.shuffle:
        given.append(("--seed", "on it, --seed seeds the order of --shuffle"))
    if given:
        reasons = "; ".join(dict.fromkeys(why for _, why in given))
        raise CLIError(f"{', '.join(opt for opt, _ in given)} "
                       f"{'is' if len(given) == 1 else 'are'} for --corpus: {reasons}")


def _load_user_corpus(args):
    """The corpus of --corpus: a file or folder in one of the layouts, split as the
    options say, its skipped files and its report in the log; or R8 / R52 by name."""
    from ..corpora import load_corpus

    if str(args.corpus).lower() in BUILTIN_CORPORA and not Path(args.corpus).exists():
        if args.test_corpus is not None or args.test_size is not None:
            raise CLIError(f"--corpus {args.corpus} is split already (ModApte): drop "
                           "--test-corpus / --test-size")
        corpus = _reuters_corpus(args, str(args.corpus))
        logger.info("%s", "\n".join(corpus.describe(SHOWN_ROWS)))
        return corpus
    with corpus_errors(args), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        corpus = load_corpus(args.corpus, test_path=args.test_corpus,
                             test_size=0.25 if args.test_size is None else args.test_size,
                             random_state=0 if args.seed is None else args.seed,
                             allow_unlabeled=args.allow_unlabeled,
                             columns=columns_of(args))
    split = corpus.report["split"]
    if args.test_size is not None and not split.startswith("random split"):
        raise CLIError(f"--test-size holds out part of a corpus without a split, and "
                       f"{args.corpus} comes with one ({split}): drop --test-size")
    for w in caught:  # the skipped files: one warning line, even with -q
        logger.warning("warning: %s", w.message)
    logger.info("%s", "\n".join(corpus.describe(SHOWN_ROWS)))
    return corpus


def _refuse_text_options(args, corpus):
    """The options of texts, given with a corpus of feature values: say so."""
    text_only = [opt for opt, given in (("--weighting", args.weighting),
                                        ("--language", args.language),
                                        ("--no-stem", args.no_stem),
                                        ("--ngrams", args.ngrams),
                                        ("--chars", args.chars)) if given]
    if text_only:
        raise CLIError(f"{', '.join(text_only)} {'is' if len(text_only) == 1 else 'are'} "
                       f"for text corpora; {corpus.source} holds feature values "
                       "(svmlight), which are used as given")


def _corpus_training_data(args, categories_arg, corpus, task=None):
    """A corpus read (``task``: the one it has, if not read from its labels), resolved by
    the library with the options, what it resolved said, then its categories checked."""
    from ..datasets._training_set import TrainingSet

    if not corpus.is_text:
        _refuse_text_options(args, corpus)
    with corpus_errors(args):
        training_set = TrainingSet.of(
            corpus, categories_arg, task=task or args.task,
            positive_label=getattr(args, "positive_label", None), features=args.features,
            weighting=args.weighting or "tfidf", stem=not args.no_stem,
            language=args.language or "auto", ngrams=args.ngrams, chars=args.chars or "auto")
        _say_rows(training_set.rows)  # before the warning or error of the check
        training_set.check_trainable()
    return TrainingData.of(training_set, as_corpus=True)


def _say_rows(rows):
    """How a text corpus's texts become rows, where read from them: the script without
    spaces whose character n-grams replace the words, and the language of the stemmer
    (unless no words are stemmed)."""
    if rows is None:
        return
    if rows.script:
        logger.info("%s texts, without spaces between words: character %d-%d-grams in place "
                    "of words (--chars MIN-MAX for others)", rows.script, *rows.chars)
    if rows.language_from != "given" and rows.ngrams:
        logger.info("%s; --language LANG for another, --no-stem for none", (
            f"{rows.language} texts (by their function words): "
            f"{'Porter' if rows.language == 'english' else 'Snowball'}'s {rows.language} "
            "stemmer" if rows.language_from == "texts" else "no language recognised by its "
            "function words: Porter's English stemmer"))
