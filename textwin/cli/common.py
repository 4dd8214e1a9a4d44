"""What every textwin command shares: exit codes and the user-fixable error, the
output helpers (a table on stdout, or JSON), logging and the rendering of library
warnings, the shared option groups, the cluster a command runs on.

Results go to stdout (a table, or JSON with ``--json``); logs and progress bars
go to stderr (progress bars only on a terminal; ``-q`` silences both). Every
failure the user can fix prints one line on stderr, ``textwin: error: ...``,
saying what is wrong and what to do, and exits with a code that tells failures
apart (see :data:`EXIT_CODES`); there is never a traceback for those.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import math
import os
import sys
import warnings
from pathlib import Path

from .._distributed import ClusterError, connect, connect_ray
from .._io import NotARegularFileError, OverwriteRefusedError, check_overwrite
from .._languages import LANGUAGES
from .._messages import first_line
from ..datasets import (CacheDirError, ReutersFormatError, describe_layouts,
                        get_data_home)

logger = logging.getLogger("textwin")

#: Exit status of each kind of failure.
EXIT_OK = 0
EXIT_INTERNAL = 1   # a bug: please report it (the traceback is printed)
EXIT_USAGE = 2      # bad command line or bad input (argparse uses 2 as well)
EXIT_NO_DATA = 3    # the Reuters-21578 corpus (or a user file) is missing or damaged
EXIT_BAD_MODEL = 4  # a model file is corrupted, truncated, foreign or too new
EXIT_INTERRUPTED = 130
EXIT_CODES = {
    "ok": EXIT_OK,
    "usage or bad input": EXIT_USAGE,
    "missing or damaged data": EXIT_NO_DATA,
    "unusable model file": EXIT_BAD_MODEL,
    "internal error (please report it)": EXIT_INTERNAL,
    "interrupted": EXIT_INTERRUPTED,
}


#: Rows of a per-category table or report shown on a terminal; --json has them all.
SHOWN_ROWS = 50


class CLIError(Exception):
    """A failure the user can fix: one line on stderr and an exit code."""

    def __init__(self, message, code=EXIT_USAGE):
        super().__init__(message)
        self.code = code


def missing_data(exc, data_home):
    if isinstance(exc, (CacheDirError, NotADirectoryError)):
        # no usable cache folder, a data home that is a file: the message names the fix
        return CLIError(first_line(exc), EXIT_NO_DATA)
    where = get_data_home(data_home) / "reuters21578"
    reason = first_line(exc)
    return CLIError(
        f"the Reuters-21578 corpus is not available ({reason}); put the 22 reut2-*.sgm files in "
        f"{where}, or run `textwin data --fetch`, or point --data-home / TEXTWIN_DATA_HOME at "
        "a folder that holds reuters21578/", EXIT_NO_DATA)


def damaged_corpus(exc, data_home):
    where = get_data_home(data_home) / "reuters21578"
    return CLIError(
        f"the Reuters-21578 corpus in {where} is damaged ({first_line(exc)}); replace that "
        "file from reuters21578.tar.gz, or run `textwin data --fetch` into an empty data home",
        EXIT_NO_DATA)


@contextlib.contextmanager
def reading_reuters(data_home):
    """Inside: a damaged Reuters-21578 corpus (:func:`damaged_corpus`), or a missing one
    (:func:`missing_data`), is one line that names the fix."""
    try:
        yield
    except ReutersFormatError as exc:
        raise damaged_corpus(exc, data_home) from None
    except OSError as exc:
        raise missing_data(exc, data_home) from None


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the epilog's examples as written; wraps the description."""

    def _fill_text(self, text, width, indent):
        if "\n" in text:  # an epilog laid out by hand
            return super()._fill_text(text, width, indent)
        return argparse.HelpFormatter._fill_text(self, text, width, indent)


def n_jobs_error(n_jobs):
    """The one-line complaint about ``--n-jobs`` (shared with `textwin reproduce`), or None."""
    if n_jobs is not None and n_jobs < 1 and n_jobs != -1:
        return f"--n-jobs must be a positive number of threads or -1, got {n_jobs}"
    return None


def fail(message, code):
    print(f"textwin: error: {message}", file=sys.stderr)
    return code


def open_model(path):
    """The :class:`~textwin.persistence.TextModel` of a model file, or a one-line
    CLIError saying what is wrong with the path or the file."""
    from ..persistence import ModelFormatError, load_model

    if Path(path).is_dir():
        raise CLIError(f"{path} is a folder: the first argument is the model file "
                       "(MODEL.npz, written by `textwin train --output MODEL.npz`)")
    try:
        return load_model(path)
    except FileNotFoundError as exc:
        raise CLIError(f"{exc}; train one with `textwin train --category CAT --output MODEL.npz`",
                       EXIT_NO_DATA) from None
    except ModelFormatError as exc:
        raise CLIError(str(exc), EXIT_BAD_MODEL) from None
    except OSError as exc:  # unreadable: permissions, an I/O error
        raise CLIError(f"cannot read the model file {path}: "
                       f"{exc.strerror or exc}", EXIT_NO_DATA) from None


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------

def out(text=""):
    # rstrip: table cells without a paper figure would leave trailing blanks
    _write(text.rstrip() + "\n")


def print_json(obj):
    # the whole document is built before anything is written: an error cannot
    # leave half a document on stdout
    _write(json_text(obj, indent=2) + "\n")


def _write(text):
    try:
        sys.stdout.write(text)
    except BrokenPipeError:
        raise
    except OSError as exc:  # a full disk (> /dev/full), an I/O error: the results are lost
        raise CLIError(f"cannot write the results to stdout: {exc.strerror or exc}") from None


def json_text(obj, indent=None):
    """``obj`` as standard JSON text (infinities as strings, NaN as null)."""
    return json.dumps(_finite_json(obj), indent=indent, allow_nan=False, default=_json_default)


def _finite_json(obj):
    """``obj`` with +-inf as the strings "inf"/"-inf" (a threshold never/always
    met) and NaN as null: standard JSON has no such numbers."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, dict):
        return {k: _finite_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite_json(v) for v in obj]
    return obj


def _json_default(obj):
    import numpy as np

    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return str(obj)


def pct(x, width=5):
    return "-".rjust(width) if x is None or not math.isfinite(x) else f"{100 * x:{width}.1f}"


def num(x):
    return None if x is None or not math.isfinite(x) else round(float(x), 4)


def fmt(x, width=7):
    return "-".rjust(width) if x is None else f"{x:{width}.1f}"


def first_names(names, shown=10):
    """``names`` joined by commas, the first ``shown`` of them and how many more: a
    corpus of hundreds of rare categories keeps its warnings to a line."""
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more (--json names them)" if more > 0
                                       else "")


# ---------------------------------------------------------------------------
# Logging and library warnings
# ---------------------------------------------------------------------------

class _StderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is at the time (pipes, tests' capture)."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value):  # StreamHandler.__init__ assigns it; always use sys.stderr
        pass


def setup_logging(args):
    level = logging.WARNING if args.quiet else (logging.DEBUG if args.verbose else logging.INFO)
    logger.setLevel(level)
    if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("textwin: %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False


def progress_enabled(args):
    return not args.quiet and sys.stderr.isatty()


def estimator_verbosity(args):
    """2 (-v): a line per binary problem; 1: a progress bar over them (on a terminal)."""
    return 2 if args.verbose else (1 if progress_enabled(args) else 0)


# The solvers' parameters by the flags of this command line (a convergence
# warning's advice; Algorithm 2 to convergence is a method of its own here).
_FLAGS = {
    "max_epochs": "--epochs",
    "tol": "--tol",
    "lam": "--lam",
    "converged": "--method svm-alg2-converged",
}

# --lam auto's warnings: the grid comes from the data, and no option moves its bottom
_LAM_SEARCH_FLAGS = {
    "max_epochs": "--epochs", "tol": "--tol",
    "search_lower": "a smaller --lam given by hand",
    "search_given": "a smaller --lam given by hand",
    "avoid_smallest": "",
}

# what bounds a long search, in this command line's options (by the estimator searching)
_LONG_SEARCH_OPTIONS = {"TextClassifierCV": "--time-budget SECONDS bounds it",
                        "DualGaussSeidelClassifierCV": "--lam VALUE (a number) needs no search"}

# the degenerate-solution warning's advice in this command line's options
_DEGENERATE_FLAGS = {"lam": "--lam", "by_cv": "choose it by cross-validation (--lam auto)",
                     "smaller_lam": "a smaller --lam given by hand"}


def _log_lines(problems=(), method=None):
    """A ``warnings.showwarning`` that logs a library warning as one line: the solvers'
    convergence warning worded with the flags of this command line, its "problem k"
    named as the categories ``problems``; the degenerate-solution warning naming the
    method ``method`` instead of an estimator's class."""
    names = list(problems)

    def show(message, category, filename, lineno, file=None, line=None):
        from .._ovr import SolverConvergenceWarning
        from .._scale import DegenerateSolutionWarning

        if isinstance(message, DegenerateSolutionWarning):
            text = message.render(_DEGENERATE_FLAGS,
                                  describe=lambda k: names[k] if k < len(names) else None,
                                  estimator=method)
        elif isinstance(message, SolverConvergenceWarning):
            text = message.render(_FLAGS, resume=False, estimator=method,
                                  describe=lambda k: names[k] if k < len(names) else None)
        elif category.__name__ == "LongSearchWarning":  # the option that bounds it here
            text = message.render(_LONG_SEARCH_OPTIONS.get(message.name, ""))
        elif category.__name__ in ("LamGridWarning", "PathConvergenceWarning"):
            # --lam auto's: the categories and this command line's options
            text = message.render(_LAM_SEARCH_FLAGS, estimator=method and f"{method}, --lam auto",
                                  describe=lambda k: names[k] if k < len(names) else k)
        else:
            text = str(message)
        logger.warning("warning: %s", text)

    show.as_log_line = True
    return show


@contextlib.contextmanager
def warnings_as_log_lines(args):
    """Inside: library warnings (ConvergenceWarning, ...) as one log line each, not a
    source excerpt (:func:`_log_lines`); silenced by -q. A command names the
    categories and the method it fits with :func:`warnings_naming`."""
    with warnings.catch_warnings():
        warnings.showwarning = _log_lines()
        if args.quiet:
            warnings.simplefilter("ignore")
            # -q silences progress, not a corpus that differs from the published one
            warnings.filterwarnings("always", message=r".*differ from the published")
        yield


@contextlib.contextmanager
def warnings_naming(problems, method=None):
    """Inside :func:`warnings_as_log_lines`: the estimators' "problem k" named as the
    categories ``problems`` (in the order of the binary problems), and the method
    ``method`` (its key) instead of an estimator's class."""
    shown = warnings.showwarning
    if getattr(shown, "as_log_line", False):
        warnings.showwarning = _log_lines(problems, method)
    try:
        yield
    finally:
        warnings.showwarning = shown


def run_command(args):
    """``args.func(args)`` with what every command shares: library warnings as log
    lines, the cluster of ``--scheduler``, and its failures as one line and an exit code."""
    try:
        try:  # first: an unbuilt checkout fails here, not deep inside a long run
            import textwin._kernels  # noqa: F401
        except ImportError as exc:
            raise CLIError(str(exc), EXIT_USAGE) from None
        check_stdout()
        with warnings_as_log_lines(args), on_cluster(getattr(args, "scheduler", None)):
            code = args.func(args)
        flush_stdout()
        return code
    except CLIError as exc:
        return fail(str(exc), exc.code)
    except KeyboardInterrupt:
        return fail("interrupted", EXIT_INTERRUPTED)
    except BrokenPipeError:
        # `textwin ... | head`: the reader went away; what was not written is lost, which
        # the exit status says (as grep's does), and no later flush may fail again
        _stdout_to_devnull()
        return fail("stdout was closed by its reader (broken pipe): the rest of the "
                    "results were not written", EXIT_USAGE)


def check_stdout():
    """A command whose stdout is closed (``>&-``) stops before any work: its results
    would be lost (Python makes a closed stdout None, and print to None writes nothing)."""
    if sys.stdout is None:
        raise CLIError("stdout is closed, so the results would be lost: redirect it to a "
                       "file (> FILE) or to /dev/null (> /dev/null)")


def flush_stdout():
    """Flush stdout now, so that a failing write (a full disk, a closed pipe) is this
    command's error, not an exception ignored at the interpreter's exit."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as exc:
        raise CLIError(f"cannot write the results to stdout: "
                       f"{getattr(exc, 'strerror', None) or exc}") from None


def _stdout_to_devnull():
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass  # not a real file (a test's capture): nothing is flushed at exit


# ---------------------------------------------------------------------------
# Option groups
# ---------------------------------------------------------------------------

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


def check_destination(path, what, ours, args, inputs=()):
    """Before any work: ``path`` may be written (a new file, an empty one, one of ours,
    or anything with --force) and is not an input of the command."""
    inputs = [*inputs, getattr(args, "corpus", None), getattr(args, "test_corpus", None)]
    try:
        check_overwrite(path, ours=ours, what=what, force=getattr(args, "force", False),
                        inputs=inputs)
    except (NotARegularFileError, OverwriteRefusedError) as exc:
        raise CLIError(f"cannot write the {what} to {path}: {exc}") from None


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


# ---------------------------------------------------------------------------
# The cluster a command runs on (--scheduler)
# ---------------------------------------------------------------------------

@contextlib.contextmanager
def on_cluster(address, timeout=5):
    """Inside: joblib's Dask backend on the scheduler at ``address``, or Ray's backend when
    ``address`` is "ray" or ray://... (nothing when None)."""
    if not address:
        yield
        return
    if address == "ray" or address.startswith("ray://"):
        try:
            ray = connect_ray(None if address == "ray" else address)
        except ClusterError as exc:
            raise CLIError(str(exc), EXIT_USAGE) from None
        import joblib

        logger.info("on the Ray cluster: %d CPUs", int(ray.cluster_resources().get("CPU", 0)))
        try:
            with joblib.parallel_config(backend="ray"):
                yield
        except ClusterError as exc:
            raise CLIError(str(exc), EXIT_USAGE) from None
        return

    try:
        client = connect(address, timeout=timeout)
    except ClusterError as exc:
        raise CLIError(str(exc), EXIT_USAGE) from None
    import joblib

    workers = client.scheduler_info().get("workers", {})
    logger.info("on the Dask cluster at %s: %d workers, %d threads", address, len(workers),
                sum(w.get("nthreads", 0) for w in workers.values()))
    try:
        with joblib.parallel_config(backend="dask", client=client):
            yield
    except ClusterError as exc:
        raise CLIError(str(exc), EXIT_USAGE) from None
    finally:
        client.close()
