"""What `textwin train` and `textwin eval` share: the data (Reuters-21578 or
``--corpus``), the method settings given on the command line, the example order,
fitting a method, scoring its test predictions, and ``--lam auto``'s line and plot.
"""
from __future__ import annotations

import importlib.util
import io
import math
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from .._io import atomic_write, figure_metadata, is_textwin_figure
from .common import (
    EXIT_NO_DATA,
    EXIT_USAGE,
    SHOWN_ROWS,
    CLIError,
    check_destination,
    columns_of,
    damaged_corpus,
    estimator_verbosity,
    fail,
    first_line,
    first_names,
    logger,
    missing_data,
    num,
    warnings_naming,
)
from .tuning import in_lam_folds

# Method settings that may be given on the command line: option -> setting name.
SETTING_OPTIONS = ("lam", "epochs", "tol", "eta", "theta", "gamma")


#: The built-in single-label corpora that ``--corpus`` takes by name (when no file
#: or folder has that name).
BUILTIN_CORPORA = ("r8", "r52")


#: Methods whose ``lam`` defaults to :func:`default_lam` on a user's corpus: those
#: with a squared-norm regularizer, and the Winnow whose scale comes from the data
#: (its lam is then on the SVM's scale, docs/mathematics.md §14).
LAM_ONE_OVER_N = ("svm", "svm-alg2", "svm-alg2-converged", "mls", "smo", "linearsvc",
                  "rwinnow-auto")


def default_lam(n_train):
    """lam on a user's corpus when --lam is not given: 1/n, scikit-learn's C = 1
    (C = 1/(lam n)), the baseline a LinearSVC() user knows."""
    return 1.0 / n_train


def protocol_data(categories, args):
    from ..datasets import ReutersFormatError
    from ..experiments import load_protocol_data

    try:
        return load_protocol_data(categories, args.data_home, n_features=args.features or 1000,
                                  download_if_missing=not args.offline)
    except ReutersFormatError as exc:
        raise damaged_corpus(exc, args.data_home) from None
    except (FileNotFoundError, OSError) as exc:
        raise missing_data(exc, args.data_home) from None


def given_settings(args):
    """The method settings given on the command line, their values checked."""
    given = {k: getattr(args, k) for k in SETTING_OPTIONS if getattr(args, k, None) is not None}
    searched = given.get("lam") == "auto" or getattr(args, "auto", False)
    if getattr(args, "plot", None) is not None and not searched:
        raise CLIError("--plot draws the cross-validated score against lambda: add --lam auto "
                       "or --auto")
    if getattr(args, "time_budget", None) is not None and not getattr(args, "auto", False):
        raise CLIError("--time-budget bounds the search of --auto: add --auto")
    if getattr(args, "scoring", None) is not None and not searched:
        raise CLIError("--scoring is what the cross-validation maximises: add --lam auto "
                       "or --auto")
    numbers = {k: v for k, v in given.items() if not (k == "lam" and v == "auto")}
    for key in ("lam", "eta", "tol", "theta", "gamma"):
        if key in numbers and not math.isfinite(given[key]):
            raise CLIError(f"--{key} must be a finite number, got {given[key]}")
    for key in ("lam", "eta", "tol"):
        if key in numbers and not given[key] > 0:
            raise CLIError(f"--{key} must be positive, got {given[key]}")
    if "tol" in given and not given["tol"] < 1:
        raise CLIError(f"--tol is a relative duality gap: give a value below 1 (e.g. 1e-3), "
                       f"got {given['tol']}")
    if "gamma" in given and given["gamma"] < 0:
        raise CLIError(f"--gamma is a margin: give a value >= 0, got {given['gamma']}")
    from .._ovr import MAX_EPOCHS  # the kernels count epochs in a C int

    if "epochs" in given and not 1 <= given["epochs"] <= MAX_EPOCHS:
        raise CLIError(f"--epochs must be an integer from 1 to {MAX_EPOCHS}, got "
                       f"{given['epochs']}")
    return given


def _train_problem(method, X_train, Y_train, overrides, n_jobs=None, verbose=0, order=None,
                   single_label=False, cv_params=None):
    """Fit ``method`` on the columns of ``Y_train``; return the fitted estimator and time."""
    from .._ovr import ConstantModelWarning
    from ..experiments import fit_method

    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            # check_trainable named these categories already; the estimators can
            # only give column numbers.
            warnings.filterwarnings("ignore", category=ConstantModelWarning)
            est = fit_method(method, X_train, Y_train, overrides, n_jobs=n_jobs,
                             verbose=verbose, order=order, single_label=single_label,
                             cv_params=cv_params)
    except ValueError as exc:
        # The estimators validate their settings and data in fit, with messages
        # that name the parameter; they are the user's to fix.
        raise CLIError(first_line(exc)) from None
    return est, time.perf_counter() - t0


def _builtin_corpus(args):
    """R8 or R52 as a :class:`textwin.corpora.CustomCorpus` (ModApte's own split)."""
    from ..corpora import corpus_from_labels
    from ..datasets import ReutersFormatError, fetch_reuters_single_label

    name = str(args.corpus).lower()
    if args.test_corpus is not None or args.test_size is not None:
        raise CLIError(f"--corpus {args.corpus} is split already (ModApte): drop "
                       "--test-corpus / --test-size")
    parts = {}
    try:
        for subset in ("train", "test"):
            parts[subset] = fetch_reuters_single_label(
                name, data_home=args.data_home, subset=subset,
                download_if_missing=not args.offline)
    except ReutersFormatError as exc:
        raise damaged_corpus(exc, args.data_home) from None
    except OSError as exc:
        raise missing_data(exc, args.data_home) from None
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


def _prepare_user_corpus(args, corpus, language, stem, chars, script):
    """Vectorize (text corpora, in ``language``, stemmed or not, with the character
    n-grams ``chars``, in place of the words for a ``script`` without spaces) and select
    features; return matrices and model parts.

    ``support`` is None when every feature is kept (``--features all``, the
    default on a user's corpus).
    """
    import numpy as np

    vectorizer = None
    if corpus.is_text:
        from ..text import TextVectorizer

        words = None if script and not args.ngrams else (1, args.ngrams or 1)
        vectorizer = TextVectorizer(weighting=args.weighting or "tfidf", stem=stem,
                                    language=language, ngram_range=words, char_ngrams=chars)
        try:
            X_train = vectorizer.fit_transform(corpus.train)
        except ValueError as exc:
            raise CLIError(f"{corpus.source}: {exc}") from None
        X_test = vectorizer.transform(corpus.test)
    else:
        X_train, X_test = corpus.train, corpus.test
    if args.features in (None, "all") or args.features >= X_train.shape[1]:
        return X_train.tocsr(), X_test.tocsr(), vectorizer, None
    from ..feature_selection import InformationGain  # here: it imports scipy.stats, 10 MB

    selector = InformationGain(k=args.features).fit(X_train, corpus.Y_train)
    support = selector.get_support(indices=True)
    return (X_train[:, support].tocsr(), X_test[:, support].tocsr(), vectorizer,
            np.asarray(support, dtype=np.int64))


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
    from ..text_classifier import resolve_chars

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
    texts_train: object = None  # the raw texts of a text corpus (for --auto)
    texts_test: object = None
    as_corpus: bool = False     # a user's corpus, or Reuters-21578's texts read as one
    language: str = None        # a text corpus's language, resolved once (None: no texts)
    stem: bool = True           # stems (or words, --no-stem)
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
        return len(self.vocabulary) if self.X_train is None else self.X_train.shape[1]


@dataclass
class Fit:
    """A method fitted on :class:`TrainingData` and tested: what `train` and `eval` report,
    and what a model file keeps."""

    data: TrainingData    # what it was fitted on (--auto: its chosen features)
    estimator: object     # the fitted estimator (--auto: the search's refitted best)
    seconds: float        # the fit's (--auto: the search's and the refit's)
    scores: object        # the test scores, a column per category
    settings: dict        # the method's settings as given (with lam = 1/n, or as chosen)
    thresholds: object = None  # a threshold per category (None: 0, or the argmax)
    cv: dict = None       # what --lam auto or --auto chose, and their curves


def training_data(args, categories_arg, vectorize=True):
    """Matrices, categories, task and model parts (Reuters or ``--corpus``); without
    ``vectorize``, a text corpus's texts alone (--auto vectorizes them itself)."""
    if args.corpus is None:
        return _reuters_training_data(args, categories_arg, vectorize)
    return _corpus_training_data(args, categories_arg, vectorize=vectorize)


def _reuters_training_data(args, categories_arg, vectorize=True):
    from ..experiments import UnknownCategoryError

    if categories_arg is None and args.command == "train":
        raise CLIError("give --category: one of the 118 Reuters-21578 categories (e.g. acq, "
                       "earn, grain), a comma-separated list, or all")
    _refuse_corpus_options(args)
    if _reuters_as_corpus(args):
        return _corpus_training_data(args, categories_arg, corpus=_reuters_corpus(args),
                                     task="multilabel", vectorize=vectorize)
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
    from ..datasets import ReutersFormatError, fetch_reuters21578

    try:
        tr, te = (fetch_reuters21578(data_home=args.data_home, subset=subset,
                                     download_if_missing=not args.offline)
                  for subset in ("train", "test"))
    except ReutersFormatError as exc:
        raise damaged_corpus(exc, args.data_home) from None
    except OSError as exc:
        raise missing_data(exc, args.data_home) from None
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


def _corpus_training_data(args, categories_arg, corpus=None, task=None, vectorize=True):
    """A user's corpus (``corpus``: one read already, and its ``task``), vectorized
    unless not to ``vectorize``."""
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
    language, stem, chars, script = None, True, None, None
    if corpus.is_text:
        chars, script = text_chars(args, corpus.train)
        language, stem = text_language(args, corpus.train, said=bool(script) and not args.ngrams)
    else:
        _refuse_text_options(args, corpus)
    X_train = X_test = vectorizer = support = None
    if vectorize or not corpus.is_text:
        X_train, X_test, vectorizer, support = _prepare_user_corpus(args, corpus, language, stem,
                                                                    chars, script)
    constant = check_trainable(categories, Y_train, corpus.source, everything)
    return TrainingData(
        categories=categories, X_train=X_train, X_test=X_test, Y_train=Y_train,
        Y_test=Y_test,
        vocabulary=None if vectorizer is None else vectorizer.vocabulary_,
        support=support,
        preprocessing={} if vectorizer is None else vectorizer.preprocessing_params(),
        idf=getattr(vectorizer, "idf_", None), source=corpus.source, task=task,
        report=corpus.report, texts_train=corpus.train if corpus.is_text else None,
        texts_test=corpus.test if corpus.is_text else None, as_corpus=True,
        language=language, stem=stem, constant=constant)


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


def method_settings(args, method, d, given):
    """The settings given, plus lam = :func:`default_lam` on a user's corpus for
    the methods of :data:`LAM_ONE_OVER_N` (Reuters-21578's protocol keeps the paper's; its
    texts read as a corpus, with --weighting tfidf or --features all, take 1/n)."""
    settings = dict(given)
    if (d.as_corpus and method.key in LAM_ONE_OVER_N
            and "lam" not in settings):
        settings["lam"] = default_lam(d.X_train.shape[0])
    return settings


def example_order(args):
    """How the examples are visited: a fresh random order every epoch on a user's
    corpus (and with --shuffle), each method's own on Reuters (the paper's)."""
    shuffle = args.shuffle if args.shuffle is not None else (args.corpus is not None or None)
    if shuffle is None:
        return {}
    seed = 0 if args.seed is None else args.seed
    return {"shuffle": True, "random_state": seed} if shuffle else {"shuffle": False}


def order_text(args, method):
    order = example_order(args)
    if not order:
        return "the method's own example order"
    if order["shuffle"]:
        return f"a random example order each epoch (seed {order['random_state']})"
    return "examples in data order"


def cv_settings(args, d, settings):
    """--lam auto's cross-validation: the scoring (on a user's corpus, or with
    --tune-thresholds, the task's default; else each category's break-even point,
    the paper's figure), the thresholds the model will apply, and a grid through
    the default lam."""
    from ..model_selection._choice import default_scoring

    if settings.get("lam") != "auto":
        return None
    from ..model_selection import DualGaussSeidelClassifierCV

    folds, n = DualGaussSeidelClassifierCV().cv, d.X_train.shape[0]
    if n < folds:  # in this command line's words: it has no cv option to lower
        raise CLIError(f"--lam auto: the {n} training documents are fewer than the {folds} "
                       f"folds of its cross-validation; add documents, or give --lam a value")
    user, tune = args.corpus is not None, getattr(args, "tune_thresholds", None)
    scoring = getattr(args, "scoring", None) or (
        default_scoring(d.task) if user or tune else None)
    return {"scoring": scoring,
            "thresholds": tune if tune and in_lam_folds(args, d.task) else None,
            "lam_anchor": default_lam(d.X_train.shape[0]) if d.as_corpus else None}


def fit_task(method, d, settings, order, args):
    """Fit ``method`` for ``d.task`` and score the test set: a :class:`Fit`, whose
    scores have one column per category (a binary problem's ``s`` becomes ``[-s, s]``)."""
    from ..experiments import score_matrix

    from ..model_selection._split import SmallClassWarning  # light: no scikit-learn search

    Y = d.Y_train[:, [1]] if d.task == "binary" else d.Y_train
    # the warnings name the method, not the estimator's class, and the categories
    with warnings_naming(d.problem_names, method.key), warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=SmallClassWarning)  # said once, before
        est, seconds = _train_problem(method, d.X_train, Y, settings, n_jobs=args.n_jobs,
                                      verbose=estimator_verbosity(args), order=order,
                                      single_label=d.task == "multiclass",
                                      cv_params=cv_settings(args, d, settings))
    scores = score_matrix(est, d.X_test)
    if d.task == "binary":
        scores = two_class_scores(scores)
    return Fit(d, est, seconds, scores, settings)


def two_class_scores(scores):
    """A two-class corpus's one score ``s`` (documents x 1) as the classes' ``[-s, s]``."""
    import numpy as np

    return np.hstack([-scores, scores])


def two_class_thresholds(cut):
    """The one problem decides ``s > cut``: the classes' thresholds ``[-cut, cut]``
    (0, never -0.0, at a cut of 0)."""
    return [0.0 - float(cut), float(cut)]


def class_thresholds(d):
    """A multi-class task's thresholds: +inf for a class without training documents,
    which no document can be given (a constant score, 0 for the Perceptron, would
    win the argmax over classes scoring below it); None when every class has some."""
    import numpy as np

    from ..tasks import never_given

    if d.task != "multiclass" or np.asarray(d.Y_train).any(axis=0).all():
        return None
    return never_given(d.Y_train)


def summarize(d, scores, thresholds=None):
    """Summary (percent) and per-category figures of the test scores."""
    from ..tasks import score_task

    if thresholds is None:
        thresholds = class_thresholds(d)
    constant = d.constant
    summary, per = score_task(d.task, d.Y_test, scores,
                              0.0 if thresholds is None else thresholds,
                              constant=[c in constant for c in d.categories])
    return {k: num(100 * v) for k, v in summary.items()}, per


def constant_note(d):
    """The line under a table that says which categories have no break-even point (a
    constant model ranks nothing) and how the averages count them; None if none."""
    constant = d.constant
    if not constant:
        return None
    names = list(constant)
    if len(names) == 1:
        (name, why), = constant.items()
        line = f"{name}: a constant model ({why}) ranks nothing: no break-even point"
    else:
        line = (f"{len(names)} categories have a constant model, which ranks nothing: no "
                f"break-even point for {first_names([f'{c} ({w})' for c, w in constant.items()])}")
    missed = int(sum(d.Y_test[:, d.categories.index(c)].sum() for c in names))
    if d.task == "multilabel" and missed:
        line += (f"; micro-BEP and macro-BEP count {'its' if len(names) == 1 else 'their'} "
                 f"{missed} test positive{'s' if missed != 1 else ''} as missed")
    return line


SUMMARY_NAMES = {"accuracy": "accuracy", "micro_breakeven": "micro-BEP",
                 "macro_breakeven": "macro-BEP", "micro_f1": "micro-F1",
                 "macro_f1": "macro-F1", "positive_f1": "pos-F1"}


TASK_TEXT = {
    "multiclass": "multi-class: one label per document, the class of the highest score "
                  "(ties: the first class in sorted order)",
    "binary": "binary: one of two labels per document, the positive class (pos-F1's) "
              "where its score is above its threshold, 0 unless tuned, else the other",
    "multilabel": "multi-label: every category whose score is above its threshold",
}


def positive_label(d):
    """``{"positive_label": name}`` for a two-class corpus, for reports and model files."""
    return {"positive_label": d.categories[1]} if d.task == "binary" else {}


def task_text(d):
    """The task in words, naming a two-class corpus's positive class."""
    if d.task == "binary":
        return f"{TASK_TEXT[d.task]}; positive class: {d.categories[1]}"
    return TASK_TEXT[d.task]


def cv_line(cv, method=None):
    """The lambda chosen by --lam auto and its cross-validated score, in one line."""
    lams = cv["lam"]
    chosen = (f"{next(iter(lams.values())):.3g} for every class" if cv["shared"] and len(lams) > 1
              else ", ".join(f"{c} {lam:.3g}" for c, lam in lams.items()))
    who = f"{method}: " if method else ""
    return (f"{who}lambda by {cv['folds']}-fold cross-validation on the training set over "
            f"{len(cv['lams'])} values from {cv['lams'][0]:.3g} to {cv['lams'][-1]:.3g} "
            f"({cv['scoring']} {100 * cv['cv_score']:.2f}): {chosen}")


def check_plot(args):
    """--plot: matplotlib present and the file writable, before any training."""
    if getattr(args, "plot", None) is None:
        return
    if importlib.util.find_spec("matplotlib") is None:
        raise CLIError("--plot draws with matplotlib, which is not installed: "
                       "pip install matplotlib")
    if args.plot.suffix.lower() not in (".png", ".pdf", ".svg"):
        raise CLIError(f"--plot {args.plot}: give a .png, .pdf or .svg file")
    output = getattr(args, "output", None)
    if output is not None and Path(output).resolve() == Path(args.plot).resolve():
        # the model is written first: the figure would replace it
        raise CLIError(f"--plot {args.plot} and --output name the same file: the plot "
                       "would replace the model; give them different paths")
    # only a figure textwin drew is replaced without --force (not any matplotlib figure)
    check_destination(args.plot, "plot", is_textwin_figure, args)


def try_plot(summaries, path):
    """:func:`plot_cv`, its failure kept for after the results are out: the CLIError,
    or None when the plot was written (see :func:`plot_failed`)."""
    try:
        plot_cv(summaries, path)
    except CLIError as exc:
        return exc
    return None


def plot_failed(error, kept="the results"):
    """A plot asked for and not written: one error line, even under -q, after the
    results, and the command's exit status."""
    return fail(f"{error}; {kept} are unaffected", error.code)


def plot_cv(summaries, path):
    """Cross-validated score against lambda: a curve per category (or the shared one)
    of every ``{method: cv_summary}``, the chosen lambda marked; written atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    scoring = set()
    for method, cv in summaries.items():
        scoring.add(cv["scoring"])
        for name, values in cv["curves"].items():
            y = [float("nan") if v is None else 100 * v for v in values]
            label = " ".join(x for x in (method, "" if name == "all" else name) if x) or "mean"
            line, = ax.semilogx(cv["lams"], y, "-o", ms=3, lw=1.2, label=label)
            lam = next(iter(cv["lam"].values())) if name == "all" else cv["lam"].get(name)
            if lam is not None:  # --auto: only the chosen setting's curve
                ax.semilogx([lam], [y[cv["lams"].index(lam)]], "*", ms=11,
                            color=line.get_color())
    ax.set_xlabel("lambda (star: chosen)")
    ax.set_ylabel(f"cross-validated {' / '.join(sorted(scoring))} (%)")
    ax.grid(alpha=0.3)
    if sum(len(cv["curves"]) for cv in summaries.values()) > 6:  # --auto's: below the axes
        ax.legend(fontsize=7, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.15))
    else:
        ax.legend(fontsize=7, ncol=2)
    buf = io.BytesIO()
    fig.savefig(buf, format=path.suffix.lower().lstrip("."), dpi=110, bbox_inches="tight",
                metadata=figure_metadata())
    plt.close(fig)
    try:
        with atomic_write(path) as fh:
            fh.write(buf.getvalue())
    except OSError as exc:
        raise CLIError(f"cannot write the plot to {path}: {exc}") from None
    logger.info("plot written to %s", path)
