"""What `textwin train` and `textwin eval` fit and test on: Reuters-21578 (the paper's
features, or its texts read as a corpus), R8 and R52, or a user's ``--corpus``, read,
split, its categories chosen and checked (:class:`TrainingData`): a text corpus's texts
with how they become rows (the TextClassifier that fits on them vectorizes them), or
feature values as matrices.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

from .common import (
    EXIT_NO_DATA,
    EXIT_USAGE,
    SHOWN_ROWS,
    CLIError,
    first_names,
    logger,
    reading_reuters,
)
from .options import columns_of


#: The built-in single-label corpora that ``--corpus`` takes by name (when no file
#: or folder has that name).
BUILTIN_CORPORA = ("r8", "r52")


def protocol_data(categories, args):
    from ..experiments import load_protocol_data

    with reading_reuters(args.data_home):
        return load_protocol_data(categories, args.data_home, n_features=args.features or 1000,
                                  download_if_missing=not args.offline)


def _builtin_corpus(args):
    """R8 or R52 as a :class:`textwin.corpora.CustomCorpus` (ModApte's own split)."""
    from ..corpora import corpus_from_labels
    from ..datasets import fetch_reuters_single_label

    name = str(args.corpus).lower()
    if args.test_corpus is not None or args.test_size is not None:
        raise CLIError(f"--corpus {args.corpus} is split already (ModApte): drop "
                       "--test-corpus / --test-size")
    parts = {}
    with reading_reuters(args.data_home):
        for subset in ("train", "test"):
            parts[subset] = fetch_reuters_single_label(
                name, data_home=args.data_home, subset=subset,
                download_if_missing=not args.offline)
    tr, te = parts["train"], parts["test"]
    names = tr.target_names
    return corpus_from_labels(
        tr.data, [[names[k]] for k in tr.target], te.data, [[names[k]] for k in te.target],
        source=f"Reuters-21578 {name.upper()}", ids_train=[str(i) for i in tr.ids],
        ids_test=[str(i) for i in te.ids])


def _load_user_corpus(args):
    from ..corpora import CorpusError, load_corpus

    if str(args.corpus).lower() in BUILTIN_CORPORA and not Path(args.corpus).exists():
        corpus = _builtin_corpus(args)
        logger.info("%s", "\n".join(corpus.describe(SHOWN_ROWS)))
        return corpus
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            corpus = load_corpus(args.corpus, test_path=args.test_corpus,
                                 test_size=0.25 if args.test_size is None else args.test_size,
                                 random_state=0 if args.seed is None else args.seed,
                                 allow_unlabeled=args.allow_unlabeled,
                                 columns=columns_of(args))
    except CorpusError as exc:
        code = EXIT_NO_DATA if "not found" in str(exc) else EXIT_USAGE
        raise CLIError(str(exc), code) from None
    except OSError as exc:
        raise CLIError(f"cannot read corpus {args.corpus}: {exc}", EXIT_NO_DATA) from None
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


def text_settings(args, language, stem, chars, script):
    """How a text corpus's texts become rows, as :class:`textwin.TextClassifier` takes it: in ``language``, stemmed or not, with the
    character n-grams ``chars``, in place of the words for a ``script`` without spaces
    (unless --ngrams)."""
    return {"weighting": args.weighting or "tfidf", "stem": stem,
            "ngrams": 0 if script and not args.ngrams else args.ngrams or 1,
            "language": language, "min_df": 1, "chars": chars}


def _selected_features(args, corpus):
    """The feature values of a corpus that holds them (svmlight), their --features K
    columns of highest information gain selected: ``(X_train, X_test, support)``, ``support``
    None when every feature is kept (``--features all``, the default on a user's corpus).
    (A text corpus's texts are the TextClassifier's to vectorize and select.)"""
    X_train, X_test = corpus.train, corpus.test
    if args.features in (None, "all") or args.features >= X_train.shape[1]:
        return X_train.tocsr(), X_test.tocsr(), None
    from ..feature_selection import top_columns  # here: it imports scipy.stats, 10 MB

    support = top_columns(X_train, corpus.Y_train, args.features)
    return X_train[:, support].tocsr(), X_test[:, support].tocsr(), support


def text_language(args, texts, said=False):
    """``(language, stem)`` of a text corpus: --language and --no-stem as given, else
    the language of the training texts' function words (:func:`textwin.text.
    detect_language`); English (Porter's stemmer) when none is recognised, as short
    texts and titles have few function words, said in the log unless ``said`` (texts
    without words to stem, which :func:`text_chars` named)."""
    if args.no_stem:
        return "english", False
    if args.language:
        return args.language, True
    from ..text import detect_language

    detected = detect_language(texts)
    if not said:
        logger.info("%s; --language LANG for another, --no-stem for none", (
            f"{detected} texts (by their function words): "
            f"{'Porter' if detected == 'english' else 'Snowball'}'s {detected} stemmer"
            if detected else "no language recognised by its function words: Porter's "
            "English stemmer"))
    return detected or "english", True


def text_chars(args, texts):
    """``(chars, script)`` of a text corpus: --chars as given, else for texts in a script
    without spaces between words (``script``, :func:`textwin.text.detect_unspaced_script`)
    the character n-grams of ``UNSPACED_CHARS`` in place of the words, said in the
    log."""
    if args.chars:
        return args.chars, None
    from ..text import resolve_chars

    chars, script = resolve_chars("auto", texts)
    if script:
        logger.info("%s texts, without spaces between words: character %d-%d-grams in place of "
                    "words (--chars MIN-MAX for others)", script, *chars)
    return chars, script


NO_TRAINING_DOCUMENT = "no training document"


def constant_models(categories, Y_train):
    """``{category: why}`` for the categories that cannot be learned and get a constant
    model: no training document, or every one."""
    import numpy as np

    Y_train = np.asarray(Y_train)
    return {c: NO_TRAINING_DOCUMENT if not Y_train[:, j].any() else "in every training document"
            for j, c in enumerate(categories) if not Y_train[:, j].any() or Y_train[:, j].all()}


def check_trainable(categories, Y_train, source, everything):
    """A category needs positive and negative training documents.

    Named explicitly, a category without them is an error; with ``--category all``
    such categories are kept (a constant model, no break-even point) and named in
    one warning, unless no category at all can be learned. Returns those categories,
    ``{category: why}`` (:func:`constant_models`).
    """
    constant = constant_models(categories, Y_train)
    no_pos = [c for c, why in constant.items() if why == NO_TRAINING_DOCUMENT]
    no_neg = [c for c, why in constant.items() if why != NO_TRAINING_DOCUMENT]
    if everything and len(constant) < len(categories):
        if constant:
            n = len(constant)
            names = [*(f"{c} (no training document)" for c in no_pos),
                     *(f"{c} (in every training document)" for c in no_neg)]
            # A warning, not a log line: -q silences it as it does the estimators'.
            warnings.warn(f"{n} categor{'y' if n == 1 else 'ies'} of {source} cannot be "
                          f"learned and get a constant model: {first_names(names)}",
                          stacklevel=2)
        return constant
    if no_pos and not no_neg:
        raise CLIError(f"category {no_pos[0]!r} has no training document in {source}; a "
                       "classifier needs positive examples")
    if no_neg:
        folder = Path(str(source)).is_dir()  # where same-named files become one document
        raise CLIError(
            f"every training document of {source} is in category {no_neg[0]!r}; a "
            "classifier needs negative examples too" + (
                " (in a folder corpus, files of the same name and identical bytes in "
                "several category folders are one document with all their labels)"
                if folder else ""))
    return constant


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


@dataclass
class TrainingData:
    """What `train` and `eval` fit and test on, and what a model file keeps of it."""

    categories: list      # in column order
    X_train: object       # CSR matrices
    X_test: object
    Y_train: object       # indicator matrices, a column per category
    Y_test: object
    vocabulary: object    # every term: {term: column} or in column order (None: svmlight)
    support: object       # the selected columns of the vocabulary (None: all)
    preprocessing: dict   # how texts become rows (TextVectorizer's parameters)
    idf: object
    source: str           # the corpus, as messages name it
    task: str             # "multilabel", "multiclass" or "binary"
    report: object        # the corpus report (None on Reuters-21578)
    texts_train: object = None  # the raw texts of a text corpus (the estimator's)
    texts_test: object = None
    as_corpus: bool = False     # a user's corpus, or Reuters-21578's texts read as one
    language: str = None        # a text corpus's language, resolved once (None: no texts)
    stem: bool = True           # stems (or words, --no-stem)
    text: dict = None           # how its texts become rows (text_settings; None: no texts)
    constant: dict = field(default_factory=dict)  # {category: why} of the constant models

    @property
    def problem_names(self):
        """The categories of the binary problems, in order (a two-class corpus has one,
        its positive class's)."""
        return self.categories[1:] if self.task == "binary" else self.categories

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
    return _corpus_training_data(args, categories_arg)


def _reuters_training_data(args, categories_arg):
    from ..experiments import UnknownCategoryError

    if categories_arg is None and args.command == "train":
        raise CLIError("give --category: one of the 118 Reuters-21578 categories (e.g. acq, "
                       "earn, grain), a comma-separated list, or all")
    _refuse_corpus_options(args)
    if _reuters_as_corpus(args):
        return _corpus_training_data(args, categories_arg, corpus=_reuters_corpus(args),
                                     task="multilabel")
    try:
        data = protocol_data(categories_arg, args)
    except UnknownCategoryError as exc:
        raise CLIError(str(exc)) from None
    constant = check_trainable(data.categories, data.Y_train, "the ModApte training set",
                               categories_arg in (None, "top10", "all"))
    # The cached corpus is vectorized with TextVectorizer's defaults (title and body)
    # and NLTK's stemmer.
    return TrainingData(
        categories=data.categories, X_train=data.X_train, X_test=data.X_test,
        Y_train=data.Y_train, Y_test=data.Y_test, vocabulary=data.vocabulary,
        support=data.support, preprocessing={"weighting": "binary", "stemmer": "nltk"},
        idf=None, source="Reuters-21578 ModApte", task="multilabel", report=None,
        constant=constant)


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


def _reuters_corpus(args):
    """The ModApte split's texts and topics as a :class:`textwin.corpora.CustomCorpus`."""
    import numpy as np

    from ..corpora import corpus_from_labels
    from ..datasets import fetch_reuters21578

    with reading_reuters(args.data_home):
        tr, te = (fetch_reuters21578(data_home=args.data_home, subset=subset,
                                     download_if_missing=not args.offline)
                  for subset in ("train", "test"))
    names = np.asarray(tr.target_names)

    def labels(part):
        return [names[np.flatnonzero(row)].tolist() for row in np.asarray(part.target)]

    return corpus_from_labels(tr.data, labels(tr), te.data, labels(te),
                              source="Reuters-21578 ModApte",
                              ids_train=[str(i) for i in tr.ids], ids_test=[str(i) for i in te.ids])


def _refuse_corpus_options(args):
    """The options of a user's corpus, given with Reuters-21578: say why they do not apply."""
    given = [(opt, why) for opt, key, why in CORPUS_ONLY if getattr(args, key, None)]
    if args.seed is not None and not args.shuffle:
        given.append(("--seed", "on it, --seed seeds the order of --shuffle"))
    if given:
        reasons = "; ".join(dict.fromkeys(why for _, why in given))
        raise CLIError(f"{', '.join(opt for opt, _ in given)} "
                       f"{'is' if len(given) == 1 else 'are'} for --corpus: {reasons}")


def _corpus_training_data(args, categories_arg, corpus=None, task=None):
    """A user's corpus (``corpus``: one read already, and its ``task``)."""
    from ..experiments import UnknownCategoryError, resolve_categories
    from ..tasks import detect_task

    everything = categories_arg in (None, "all") or (corpus is not None
                                                     and categories_arg == "top10")
    corpus = corpus or _load_user_corpus(args)
    available = corpus.target_names
    if categories_arg in (None, "all"):
        categories = available
    else:
        try:
            categories = resolve_categories(categories_arg, available)
        except UnknownCategoryError as exc:
            raise CLIError(str(exc)) from None
    cols = [available.index(c) for c in categories]
    Y_train, Y_test = corpus.Y_train[:, cols], corpus.Y_test[:, cols]
    try:
        task = detect_task(Y_train, Y_test, task or args.task)
    except ValueError as exc:
        raise CLIError(f"{corpus.source}: {exc} (--task multilabel)") from None
    categories, Y_train, Y_test = _positive_last(getattr(args, "positive_label", None), task,
                                                 categories, Y_train, Y_test, corpus.source)
    language, stem, text = None, True, None
    if corpus.is_text:
        chars, script = text_chars(args, corpus.train)
        language, stem = text_language(args, corpus.train, said=bool(script) and not args.ngrams)
        text = text_settings(args, language, stem, chars, script)
    else:
        _refuse_text_options(args, corpus)
    X_train = X_test = support = None
    if not corpus.is_text:
        X_train, X_test, support = _selected_features(args, corpus)
    constant = check_trainable(categories, Y_train, corpus.source, everything)
    return TrainingData(
        categories=categories, X_train=X_train, X_test=X_test, Y_train=Y_train,
        Y_test=Y_test, vocabulary=None, support=support, preprocessing={}, idf=None,
        source=corpus.source, task=task,
        report=corpus.report, texts_train=corpus.train if corpus.is_text else None,
        texts_test=corpus.test if corpus.is_text else None, as_corpus=True,
        language=language, stem=stem, text=text, constant=constant)


def _positive_last(positive, task, categories, Y_train, Y_test, source):
    """--positive-label: the classes of a two-class corpus in the order (other, positive);
    one line refuses a name that is not one of them, or a corpus of another task."""
    if positive is None:
        return categories, Y_train, Y_test
    if task != "binary":
        raise CLIError(f"--positive-label is for a two-class corpus; {source} is {task} "
                       f"({len(categories)} categories)")
    if positive not in categories:
        raise CLIError(f"--positive-label {positive!r} is not a class of {source}: give "
                       f"{categories[0]} or {categories[1]}")
    if categories[1] == positive:
        return categories, Y_train, Y_test
    return [categories[1], categories[0]], Y_train[:, [1, 0]], Y_test[:, [1, 0]]
