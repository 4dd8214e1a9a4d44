"""The options the commands share, as argparse reads them: the output and data options
of every command (:func:`common_options`), the corpus, features and method settings of
`train` and `eval` (:func:`training_options`), a table's columns (:func:`table_options`,
:func:`columns_of`), the types that check each value as it is parsed, and the help's
layout (:class:`HelpFormatter`). Nothing here loads scikit-learn or SciPy: `--help`
builds every parser.
"""
from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

from .._languages import LANGUAGES
from ..datasets import describe_layouts


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the epilog's examples as written; wraps the description."""

    def _fill_text(self, text, width, indent):
        if "\n" in text:  # an epilog laid out by hand
            return super()._fill_text(text, width, indent)
        return argparse.HelpFormatter._fill_text(self, text, width, indent)



def common_options(p, data=True, json_help="print results as JSON on stdout", stream=False):
    g = p.add_argument_group("output")
    g.add_argument("--json", action="store_true", help=json_help)
    if stream:  # `predict`: results as documents are read
        g.add_argument("--jsonl", action="store_true",
                       help="print one JSON object per document and line, written as each "
                            "is scored: for pipes and large inputs")
    g.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                   help="no logs or progress bars on stderr")
    g.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                   help="more logs on stderr")
    if data == "download":  # the commands that train
        p.add_argument("--n-jobs", type=int, default=-1, metavar="N",
                       help="threads over the categories and --auto's folds (default -1: "
                            "one per core, as fastText; 1: one thread); the results do not "
                            "depend on it")
        p.add_argument("--scheduler", metavar="ADDRESS",
                       default=os.environ.get("DASK_SCHEDULER_ADDRESS") or None,
                       help="train the categories as tasks on the Dask cluster of this "
                            "scheduler (e.g. tcp://HOST:8786, from `dask scheduler`; "
                            "default: $DASK_SCHEDULER_ADDRESS), or on Ray: `ray` for the "
                            "Ray cluster of $RAY_ADDRESS or of this machine (`ray start "
                            "--head`), ray://HOST:10001 for Ray Client; same results as "
                            "locally (docs/scaling.md)")
    if data:
        p.add_argument("--data-home", metavar="DIR", default=None,
                       help="folder holding reuters21578/ (default: $TEXTWIN_DATA_HOME or "
                            "~/textwin_data)")
    if data == "download":
        p.add_argument("--offline", action="store_true",
                       help="never download the corpus; fail (exit 3) if it is missing")


def _fraction(text):
    """--test-size: a fraction strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"give a fraction, not {text!r}") from None
    if not 0 < value < 1:  # also nan
        raise argparse.ArgumentTypeError(f"must be between 0 and 1 (exclusive), got {text}")
    return value


def _feature_count(text):
    """--features: a number of information-gain features, or all."""
    if text == "all":
        return "all"
    try:
        k = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"give a number or all, not {text!r}") from None
    if k < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {k}")
    return k


#: The longest n-gram of --ngrams: textwin.text.MAX_NGRAM (not imported, so that --help
#: loads no scikit-learn; a test holds them equal).
MAX_NGRAM = 5


def _ngram_count(text):
    """--ngrams: word n-grams up to N words, 1 <= N <= MAX_NGRAM."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of words, got {text!r}") from None
    if not 1 <= n <= MAX_NGRAM:
        raise argparse.ArgumentTypeError(f"must be from 1 (words only) to {MAX_NGRAM}, got {n}; "
                                         "2 adds pairs of consecutive words")
    return n


#: The longest character n-gram of --chars: textwin.text.MAX_CHAR_NGRAM (a test holds
#: them equal).
MAX_CHAR_NGRAM = 10


def char_range(text):
    """--chars MIN-MAX: character n-grams of MIN to MAX characters, 1 <= MIN <= MAX <=
    MAX_CHAR_NGRAM."""
    lo, dash, hi = text.strip().partition("-")
    try:
        bounds = (int(lo), int(hi)) if dash else (int(lo), int(lo))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected MIN-MAX characters, e.g. 2-5, got {text!r}") from None
    if not 1 <= bounds[0] <= bounds[1] <= MAX_CHAR_NGRAM:
        raise argparse.ArgumentTypeError(
            f"{text!r} is no range of n-gram lengths: need 1 <= MIN <= MAX <= "
            f"{MAX_CHAR_NGRAM} characters, e.g. 2-5")
    return bounds


def _seed(text):
    """--seed: an integer in [0, 2**32 - 1], as numpy's generators take."""
    try:
        seed = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not 0 <= seed < 2 ** 32:
        raise argparse.ArgumentTypeError(f"must be between 0 and {2 ** 32 - 1}, got {seed}")
    return seed


def table_options(g, labels):
    """--text-column (and, to train, --label-column, --label-separator): the columns of a
    CSV, TSV or Parquet corpus."""
    from ..datasets._table import LABEL_COLUMNS, TEXT_COLUMNS

    g.add_argument("--text-column", metavar="NAME", default=None,
                   help="CSV, TSV, Parquet: the column of the texts (default: the first "
                        "named, in any case, " + ", ".join(TEXT_COLUMNS) + ")")
    if not labels:
        return
    g.add_argument("--label-column", metavar="NAME", default=None,
                   help="CSV, TSV, Parquet: the column of the labels (default: the first "
                        "named " + ", ".join(LABEL_COLUMNS) + ")")
    g.add_argument("--label-separator", metavar="SEP", default=",",
                   help="CSV, TSV, Parquet: what separates several labels in one cell "
                        "(default: ',', as in \"sport,news\"; '' reads a cell as one "
                        "label); a cell may also hold a list, [\"sport\", \"news\"]")


def columns_of(args):
    """The :class:`~textwin.datasets._table.Columns` of the table options given."""
    from ..datasets._table import Columns

    return Columns(getattr(args, "text_column", None), getattr(args, "label_column", None),
                   getattr(args, "label_separator", ","))


def training_options(p):
    """What `train` and `eval` share: corpus, features, method settings, output, data."""
    g = p.add_argument_group(
        "your own corpus (defaults: tf-idf, every feature, lam = 1/n, a random example "
        "order each epoch)")
    g.add_argument("--corpus", metavar="PATH",
                   help=describe_layouts() + ", or r8 / r52 (the single-label subsets of "
                        "Reuters-21578)")
    g.add_argument("--test-corpus", metavar="PATH",
                   help="the test set, read apart (--corpus is then the training set): a "
                        "file or folder in any of those layouts, text if --corpus is text")
    g.add_argument("--test-size", type=_fraction, default=None,
                   help="fraction held out for testing when the corpus has no split "
                        "(default: 0.25)")
    g.add_argument("--seed", type=_seed, default=None,
                   help="seed of the held-out split and of the example order (default: 0)")
    g.add_argument("--weighting", choices=("binary", "count", "tfidf"), default=None,
                   help="feature values of a text corpus (default: tfidf, sublinear tf, "
                        "unit-length rows)")
    g.add_argument("--language", choices=LANGUAGES, default=None, metavar="LANG",
                   help="the language of a text corpus, for the stemmer (default: the one "
                        "whose function words the training texts use, else english; english "
                        "takes Porter's stemmer, the others Snowball's): "
                        + ", ".join(LANGUAGES))
    g.add_argument("--no-stem", action="store_true",
                   help="keep the words of a text corpus as they are (no stemming)")
    g.add_argument("--ngrams", type=_ngram_count, default=None, metavar="N",
                   help="the features of a text corpus are its word n-grams up to N words, "
                        "stemmed as words are (default: 1, words only; 2 adds pairs of "
                        f"consecutive words; at most {MAX_NGRAM})")
    g.add_argument("--chars", type=char_range, default=None, metavar="MIN-MAX",
                   help="also the character n-grams of MIN to MAX characters inside words "
                        "(each word padded with a space, as scikit-learn's char_wb), e.g. "
                        "2-5: they win on tweets, misspellings and languages without a "
                        "stemmer (default: none; the unspaced scripts, Chinese, Japanese, "
                        "Thai, get 1-3 alone)")
    g.add_argument("--task", choices=("multiclass", "multilabel"), default=None,
                   help="single- or multi-label (default: read from the labels: exactly one "
                        "per document is multi-class, two classes binary)")
    g.add_argument("--positive-label", metavar="NAME", default=None,
                   help="a two-class corpus: the positive class, whose score decides and "
                        "whose F1 is pos-F1 (default: the second in sorted order, as "
                        "scikit-learn's LinearSVC)")
    g.add_argument("--allow-unlabeled", action="store_true",
                   help="JSON Lines, CSV, TSV, Parquet, fastText: read a document without "
                        "labels (no \"labels\", an empty label cell, no __label__ word) as "
                        "a document in no category (otherwise an error)")
    table_options(g, labels=True)
    g.add_argument("--shuffle", action=argparse.BooleanOptionalAction, default=None,
                   help="visit the examples in a fresh random order each epoch (default on "
                        "your corpus; on Reuters-21578 each method keeps the paper's order)")
    p.add_argument("--features", type=_feature_count, default=None, metavar="K",
                   help="keep the K words of highest information gain, or all (default: "
                        "1000 on Reuters-21578, the paper's; all on your corpus)")
    _settings_options(p)
    common_options(p, data="download")


def _lam_option(text):
    """--lam: a number, or 'auto' (chosen by cross-validation)."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'auto', got {text!r}") from None


def _seconds_option(text):
    """--time-budget: a number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return value


def _texts_option(text):
    """--search-texts: a whole number of texts >= 10, or 'all'."""
    if text == "all":
        return text
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 10:
        raise argparse.ArgumentTypeError(f"expected a number of texts >= 10 (twice the folds) "
                                         f"or 'all', got {text!r}")
    return value


def _settings_options(p):
    g = p.add_argument_group(
        "method settings (default: each method's own, the paper's; the methods are listed below)")
    g.add_argument("--lam", type=_lam_option, metavar="LAM|auto",
                   help="regularization parameter lambda > 0, or 'auto': chosen by 5-fold "
                        "cross-validation on the training set over a grid from the data "
                        "through lam = 1/n, judged at the model's own decision (score > 0, "
                        "the argmax of a multi-class task, or --tune-thresholds) (dual "
                        "Gauss-Seidel methods)")
    g.add_argument("--auto", action="store_true",
                   help="a text corpus: choose stemming, word bigrams, the naive Bayes "
                        "scaling of single-label classes and lambda together by 5-fold "
                        "cross-validation on the training set (multi-label: and a "
                        "threshold per category), then character n-grams of 2-5 "
                        "characters beside the best (training texts of at most 2 million "
                        "characters, and 8 million times the binary problems), with the SVM; --no-stem, --ngrams, --chars and --lam "
                        "fix theirs, --scoring names what it maximises")
    g.add_argument("--time-budget", type=_seconds_option, metavar="SECONDS", default=None,
                   help="with --auto: stop the search after this many seconds and keep the "
                        "best choice so far (words alone are tried before bigrams; one line "
                        "says what was not tried); the final fit comes after")
    g.add_argument("--search-texts", type=_texts_option, metavar="N|all", default=None,
                   help="with --auto: search on a random sample of at most N training "
                        "documents (stratified by class), then fit the choice on all of "
                        "them, so that only that last fit grows with a larger corpus; 'all' "
                        "searches on every document (default: 50000)")
    g.add_argument("--class-weight", choices=["balanced"], default=None,
                   help="weight each class's documents so that every binary problem's two "
                        "sides weigh the same, as scikit-learn's class_weight='balanced' "
                        "(method svm; --auto tries it itself when --scoring is macro-f1)")
    g.add_argument("--scoring", choices=["micro-f1", "macro-f1", "breakeven", "accuracy"],
                   default=None,
                   help="with --lam auto or --auto: what the cross-validation maximises "
                        "(default: micro-f1 for multi-label categories, accuracy for a "
                        "single-label corpus; --lam auto on Reuters-21578's --category: "
                        "each category's break-even point)")
    g.add_argument("--plot", metavar="FILE.png", type=Path, default=None,
                   help="with --lam auto or --auto: draw the cross-validated score against "
                        "lambda (needs matplotlib: pip install matplotlib)")
    g.add_argument("--force", action="store_true",
                   help="replace an existing file at --output or --plot that textwin did "
                        "not write (never a file the command reads)")
    g.add_argument("--epochs", type=int,
                   help="passes over the data: at most this many for the dual methods (per "
                        "inner solve for Algorithm 2), exactly this many for Perceptron and "
                        "Winnow")
    g.add_argument("--tol", type=float, help="stop when the relative duality gap "
                                             "gap/max(P(w), eps) is at most tol")
    g.add_argument("--eta", type=float, help="learning rate (Winnow, Perceptron)")
    g.add_argument("--theta", type=float, help="threshold theta (Winnows)")
    g.add_argument("--gamma", type=float, help="margin gamma (regularized Winnow)")
