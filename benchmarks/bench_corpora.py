"""textwin against its peers on real corpora: accuracy or F1, time and peak memory.

Every method runs on every corpus in one run, each (corpus, method) in a fresh
child process, so that its peak RSS (``ru_maxrss`` of that child, read with
``os.wait4``) is its own: the interpreter, the libraries the method imports,
the corpus's texts and the fit and prediction. The time is the wall time of
fit + predict, from the texts in memory and the method's libraries imported
(vectorizing and writing the peers' input files included); it is only
comparable within one run (the table prints each method's time as a ratio
to textwin's defaults).

Methods (``--methods``, comma-separated; default all):

* ``textwin``: what ``textwin train --corpus`` gives: ``TextVectorizer(weighting=
  "tfidf")`` (words stemmed in the language of ``detect_language``, English when it
  finds none; sublinear tf, idf, rows of unit length) and the
  ``svm`` method at ``lam = 1/n``, examples in a random order (seed 0); a
  multi-class corpus takes the class of the highest score, a two-class one is
  one binary problem, a multi-label one takes every category scoring above 0.
* ``textwin-auto``: ``textwin.TextClassifierCV()`` (``textwin train --auto``; the
  language read off the texts as for ``textwin``):
  features and ``lam`` chosen by cross-validation on the training set.
* scikit-learn over ``TfidfVectorizer()`` (words): ``linearsvc`` (``LinearSVC()``),
  ``sgd`` (``SGDClassifier()``), ``complementnb`` (``ComplementNB()``), ``logreg``
  (``LogisticRegression()``); ``linearsvc-bigrams``: ``LinearSVC()`` over
  ``TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)``; ``linearsvc-chars``:
  ``LinearSVC()`` over ``TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5),
  sublinear_tf=True)`` (character n-grams inside words), ``linearsvc-words-chars``:
  over those and the sublinear words side by side (a ``FeatureUnion``). Multi-label:
  ``OneVsRestClassifier`` of each. ``random_state=0`` where the estimator has one.
  Named only: ``linearsvc-sublinear``, ``sgd-sublinear``, ``complementnb-sublinear``,
  ``logreg-sublinear``, the same over ``TfidfVectorizer(sublinear_tf=True)``.
* ``fasttext``: ``fasttext.train_supervised`` with its defaults, and
  ``fasttext-bigrams`` with ``wordNgrams=2, epoch=25, lr=0.5``, ``fasttext-chars``
  with its subwords, ``minn=2, maxn=5, epoch=25, lr=0.5``; one thread and
  seed 0 (repeatable), on a training file in a random order (seed 0), the texts
  lower-cased with punctuation split off as fastText's examples prepare them.
  Multi-label: ``loss="ova"``, every label of probability 0.5 or more.
* ``vw``: Vowpal Wabbit ``--oaa K`` (one pass, its defaults), ``vw-bigrams``:
  ``--oaa K --ngram 2``, the same shuffled examples and text; multi-label:
  ``--multilabel_oaa K``.

A method whose library is not installed is reported as not available, with the
reason, and the others run. The peers are not dependencies of textwin; install
them into the same environment with::

    pip install fasttext-numpy2   # fastText (fasttext-wheel's predict fails under numpy 2)
    pip install vowpalwabbit

Corpora (``--corpora``, comma-separated; default all):

* ``agnews-small``, ``germeval2018``: the JSON Lines corpora of ``--corpora-dir``
  (default ``$TEXTWIN_DATA_HOME/corpora``), their own train/test split;
  accuracy and macro-F1 (GermEval 2018 reports macro-F1 over its two classes);
* ``r8``, ``r52``: the single-label Reuters-21578 subsets
  (:func:`textwin.datasets.fetch_reuters_single_label`), accuracy and macro-F1;
* ``reuters90``: Reuters-21578 ModApte with the 90 categories that have at least
  one training and one test story, the stories in at least one of them (7,770 /
  3,019, the corpus as Yang & Liu 1999 cut it), multi-label: micro- and macro-F1;
* ``reuters10``: every ModApte story (9,603 / 3,299) and the ten largest
  categories, the paper's protocol, multi-label;
* ``reuters90-titles``: ``reuters90``'s stories by their titles alone (short
  texts, about 7 words), those without a title left out, multi-label.

Run from the repository root (Reuters needs ``TEXTWIN_DATA_HOME``)::

    python benchmarks/bench_corpora.py --json corpora.json
    python benchmarks/bench_corpora.py --corpora agnews-small --methods textwin,fasttext

The table goes to stdout, progress to stderr.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # _common, from anywhere

# This repository's textwin when it is built in place (the children import it too),
# else the installed one. The children import nothing else of the benchmarks, so
# that a peer's peak memory holds only its own libraries.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _built_in_place():
    kernels = os.path.join(ROOT, "textwin", "_kernels")
    return os.path.isdir(kernels) and any(
        f.startswith("_dual_gs") and f.endswith((".so", ".pyd")) for f in os.listdir(kernels))


def _child_env():
    """The environment of a child: this repository's textwin first when it is built."""
    env = dict(os.environ)
    if _built_in_place():
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    return env

CORPORA = ("agnews-small", "germeval2018", "r8", "r52", "reuters90", "reuters10",
           "reuters90-titles")
METHODS = ("textwin", "textwin-auto", "linearsvc", "linearsvc-bigrams", "linearsvc-chars",
           "linearsvc-words-chars", "sgd", "complementnb", "logreg", "fasttext",
           "fasttext-bigrams", "fasttext-chars", "vw", "vw-bigrams")
#: Not run unless named: the words rows with sublinear tf (1 + log tf, as textwin's tf-idf)
EXTRA_METHODS = ("linearsvc-sublinear", "sgd-sublinear", "complementnb-sublinear",
                 "logreg-sublinear")
SHARED_CORPORA = ("agnews-small", "germeval2018")
#: --smoke: a single-label and a multi-label corpus, cut to their first lines, and a method
#: of each family (textwin, its search, scikit-learn, fastText, Vowpal Wabbit)
SMOKE_CORPORA = ("agnews-small", "reuters10")
SMOKE_METHODS = ("textwin", "textwin-auto", "linearsvc", "fasttext", "vw")


class NotAvailable(Exception):
    """A method that cannot run here (its library is missing); the message says why."""


# ---------------------------------------------------------------------------
# Corpora: each one as two JSON Lines files, {"text": ..., "labels": [...]}
# ---------------------------------------------------------------------------

def _reuters(kind, subset):
    from _common import corpus_or_exit
    from textwin.datasets import fetch_reuters21578, fetch_reuters_single_label

    if kind in ("r8", "r52"):
        b = corpus_or_exit(fetch_reuters_single_label, kind, subset=subset,
                           download_if_missing=False)
        return b.data, [[b.target_names[k]] for k in b.target]
    categories = "top10" if kind == "reuters10" else "apte90"
    b = corpus_or_exit(fetch_reuters21578, subset=subset, categories=categories,
                       download_if_missing=False)
    labels = [[b.target_names[j] for j in np.flatnonzero(row)] for row in b.target]
    if kind == "reuters10":
        return b.data, labels
    # the 90 categories' corpus as it is usually cut: the stories in at least one of them
    texts = b.titles if kind == "reuters90-titles" else b.data
    kept = [i for i, t in enumerate(texts) if labels[i] and t.strip()]
    return [texts[i] for i in kept], [labels[i] for i in kept]


def _write_jsonl(path, texts, labels):
    with open(path, "w", encoding="utf-8") as fh:
        for text, labs in zip(texts, labels):
            fh.write(json.dumps({"text": text, "labels": labs}, ensure_ascii=False) + "\n")


def corpus_files(name, corpora_dir, workdir):
    """``(train.jsonl, test.jsonl, task)`` of corpus ``name``; Reuters written to ``workdir``."""
    if name in SHARED_CORPORA:
        folder = os.path.join(corpora_dir, name)
        paths = [os.path.join(folder, f"{s}.jsonl") for s in ("train", "test")]
        missing = [p for p in paths if not os.path.isfile(p)]
        if missing:
            raise SystemExit(f"error: {missing[0]} is missing: give --corpora-dir, the folder "
                             f"holding {name}/train.jsonl and test.jsonl")
        return paths[0], paths[1], None
    paths = []
    for subset in ("train", "test"):
        path = os.path.join(workdir, f"{name}.{subset}.jsonl")
        _write_jsonl(path, *_reuters(name, subset))
        paths.append(path)
    return paths[0], paths[1], "multilabel" if name.startswith("reuters") else None


def read_jsonl(path):
    texts, labels = [], []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rec = json.loads(line)
                texts.append(rec["text"])
                labels.append(sorted(set(rec["labels"])))
    return texts, labels


class Data:
    """A corpus in a child process: texts, the label indicator matrices, the task."""

    def __init__(self, train_path, test_path, task=None):
        self.train, train_labels = read_jsonl(train_path)
        self.test, test_labels = read_jsonl(test_path)
        self.classes = sorted({c for labs in train_labels + test_labels for c in labs})
        self.Y_train = self._indicator(train_labels)
        self.Y_test = self._indicator(test_labels)
        single = all(len(labs) == 1 for labs in train_labels + test_labels)
        self.task = task or (("binary" if len(self.classes) == 2 else "multiclass")
                             if single else "multilabel")
        self.y_train = self.Y_train.argmax(axis=1)  # class indices (single-label tasks)

    def _indicator(self, label_lists):
        column = {c: j for j, c in enumerate(self.classes)}
        Y = np.zeros((len(label_lists), len(self.classes)), dtype=np.int64)
        for i, labs in enumerate(label_lists):
            Y[i, [column[c] for c in labs]] = 1
        return Y

    @property
    def multilabel(self):
        return self.task == "multilabel"


def scores_of(task, Y_true, Y_pred):
    """Percent figures of a 0/1 prediction matrix: accuracy and macro-F1 for a
    single-label task, micro- and macro-F1 for a multi-label one (a category
    neither in the test set nor predicted is left out of the macro average)."""
    from sklearn.metrics import accuracy_score, f1_score

    if task == "multilabel":
        return {"micro_f1": 100 * f1_score(Y_true, Y_pred, average="micro", zero_division=0),
                "macro_f1": 100 * f1_score(Y_true, Y_pred, average="macro",
                                           zero_division=np.nan)}
    y_true, y_pred = Y_true.argmax(axis=1), Y_pred.argmax(axis=1)
    return {"accuracy": 100 * accuracy_score(y_true, y_pred),
            "macro_f1": 100 * f1_score(y_true, y_pred, average="macro")}


def one_hot(classes, k):
    Y = np.zeros((len(classes), k), dtype=np.int64)
    Y[np.arange(len(classes)), classes] = 1
    return Y


# ---------------------------------------------------------------------------
# The methods: each takes a Data and returns the test set's 0/1 prediction matrix
# ---------------------------------------------------------------------------

def textwin_scores(data):
    """The test set's scores (documents x classes) of ``textwin train --corpus``'s
    defaults, through the command line's own path."""
    from textwin.experiments import fit_method, resolve_methods, score_matrix
    from textwin.text import TextVectorizer

    vectorizer = TextVectorizer(weighting="tfidf", language=_language(data))
    X_train = vectorizer.fit_transform(data.train)
    X_test = vectorizer.transform(data.test)
    Y = data.Y_train[:, [1]] if data.task == "binary" else data.Y_train
    (method,) = resolve_methods(["svm"])
    est = fit_method(method, X_train, Y, {"lam": 1.0 / X_train.shape[0]},
                     order={"shuffle": True, "random_state": 0},
                     single_label=data.task == "multiclass")
    scores = score_matrix(est, X_test)
    return np.hstack([-scores, scores]) if data.task == "binary" else scores


def _language(data):
    """The stemmer's language, as the command line reads it off the training texts."""
    from textwin.text import detect_language

    return detect_language(data.train) or "english"


def run_textwin(data):
    scores = textwin_scores(data)
    if data.multilabel:
        return (scores > 0).astype(np.int64)
    return one_hot(scores.argmax(axis=1), len(data.classes))


def run_textwin_auto(data):
    try:
        from textwin import TextClassifierCV
    except ImportError:
        raise NotAvailable("textwin.TextClassifierCV is not in this revision") from None
    est = TextClassifierCV().fit(data.train, data.Y_train if data.multilabel else
                                 np.asarray(data.classes)[data.y_train])
    predicted = est.predict(data.test)
    if data.multilabel:
        return np.asarray(predicted.toarray() if hasattr(predicted, "toarray") else predicted,
                          dtype=np.int64)
    column = {c: j for j, c in enumerate(data.classes)}
    return one_hot(np.array([column[str(c)] for c in predicted]), len(data.classes))


SKLEARN = {
    "linearsvc": ("LinearSVC", {}),
    "linearsvc-bigrams": ("LinearSVC", {"ngram_range": (1, 2), "sublinear_tf": True}),
    "linearsvc-chars": ("LinearSVC", {"analyzer": "char_wb", "ngram_range": (2, 5),
                                      "sublinear_tf": True}),
    "linearsvc-words-chars": ("LinearSVC", {"union": True}),
    "sgd": ("SGDClassifier", {}),
    "complementnb": ("ComplementNB", {}),
    "logreg": ("LogisticRegression", {}),
    **{f"{key}-sublinear": (name, {"sublinear_tf": True}) for key, name in (
        ("linearsvc", "LinearSVC"), ("sgd", "SGDClassifier"), ("complementnb", "ComplementNB"),
        ("logreg", "LogisticRegression"))},
}


def run_sklearn(data, key):
    import sklearn.linear_model
    import sklearn.naive_bayes
    import sklearn.svm
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.multiclass import OneVsRestClassifier

    name, vectorizer_args = SKLEARN[key]
    cls = next(getattr(m, name) for m in (sklearn.svm, sklearn.linear_model,
                                           sklearn.naive_bayes) if hasattr(m, name))
    est = cls(**({"random_state": 0} if "random_state" in cls().get_params() else {}))
    if vectorizer_args.get("union"):  # words and character n-grams side by side
        from sklearn.pipeline import FeatureUnion

        vectorizer = FeatureUnion([
            ("words", TfidfVectorizer(sublinear_tf=True)),
            ("chars", TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5),
                                      sublinear_tf=True))])
    else:
        vectorizer = TfidfVectorizer(**vectorizer_args)
    X_train = vectorizer.fit_transform(data.train)
    X_test = vectorizer.transform(data.test)
    if data.multilabel:
        return OneVsRestClassifier(est).fit(X_train, data.Y_train).predict(X_test)
    return one_hot(est.fit(X_train, data.y_train).predict(X_test), len(data.classes))


_PUNCT = re.compile(r"([.,!?()'\"])")
_DROP = re.compile(r"[;:|]")  # ':' and '|' are Vowpal Wabbit's syntax


def fasttext_text(text):
    """Lower case, punctuation split off, one line (fastText's examples' preparation)."""
    return " ".join(_PUNCT.sub(r" \1 ", _DROP.sub(" ", text.lower())).split())


def shuffled(n, seed=0):
    order = list(range(n))
    random.Random(seed).shuffle(order)
    return order


def run_fasttext(data, bigrams, subwords=False):
    try:
        import fasttext
    except ImportError:
        raise NotAvailable("fastText is not installed (pip install fasttext-numpy2)") from None
    with tempfile.NamedTemporaryFile("w", suffix=".txt", encoding="utf-8") as fh:
        for i in shuffled(len(data.train)):
            labels = " ".join(f"__label__{j}" for j in np.flatnonzero(data.Y_train[i]))
            fh.write(f"{labels} {fasttext_text(data.train[i])}\n")
        fh.flush()
        settings = {"wordNgrams": 2, "epoch": 25, "lr": 0.5} if bigrams else {}
        if subwords:  # character n-grams 2-5 of each word, with the tutorial's epochs and rate
            settings = {"minn": 2, "maxn": 5, "epoch": 25, "lr": 0.5}
        if data.multilabel:
            settings["loss"] = "ova"
        model = fasttext.train_supervised(fh.name, thread=1, seed=0, verbose=0, **settings)
    texts = [fasttext_text(t) for t in data.test]
    Y = np.zeros(data.Y_test.shape, dtype=np.int64)
    if data.multilabel:
        labels, _ = model.predict(texts, k=-1, threshold=0.5)
    else:
        labels, _ = model.predict(texts)
    for i, labs in enumerate(labels):
        Y[i, [int(lab[len("__label__"):]) for lab in labs]] = 1
    return Y


def run_vw(data, bigrams):
    try:
        import vowpalwabbit
    except ImportError:
        raise NotAvailable("Vowpal Wabbit is not installed (pip install vowpalwabbit)") from None
    k = len(data.classes)
    reduction = f"--multilabel_oaa {k}" if data.multilabel else f"--oaa {k}"
    vw = vowpalwabbit.Workspace(f"{reduction}{' --ngram 2' if bigrams else ''} --quiet")

    def label(i):  # --oaa counts classes from 1, --multilabel_oaa from 0
        cols = np.flatnonzero(data.Y_train[i])
        return ",".join(map(str, cols)) if data.multilabel else str(cols[0] + 1)

    for i in shuffled(len(data.train)):
        vw.learn(f"{label(i)} | {fasttext_text(data.train[i])}")
    Y = np.zeros(data.Y_test.shape, dtype=np.int64)
    for i, text in enumerate(data.test):
        predicted = vw.predict(f" | {fasttext_text(text)}")
        Y[i, list(predicted) if data.multilabel else [predicted - 1]] = 1
    vw.finish()
    return Y


#: What each method imports, done before its clock starts (and before "RSS before")
LIBRARIES = {
    "textwin": ("textwin.experiments", "textwin.text"),
    "textwin-auto": ("textwin",),
    **{key: ("sklearn.svm", "sklearn.linear_model", "sklearn.naive_bayes",
             "sklearn.feature_extraction.text", "sklearn.multiclass") for key in SKLEARN},
    "fasttext": ("fasttext",), "fasttext-bigrams": ("fasttext",), "fasttext-chars": ("fasttext",),
    "vw": ("vowpalwabbit",), "vw-bigrams": ("vowpalwabbit",),
}

RUNNERS = {
    "textwin": run_textwin,
    "textwin-auto": run_textwin_auto,
    **{key: (lambda data, key=key: run_sklearn(data, key)) for key in SKLEARN},
    "fasttext": lambda data: run_fasttext(data, bigrams=False),
    "fasttext-bigrams": lambda data: run_fasttext(data, bigrams=True),
    "fasttext-chars": lambda data: run_fasttext(data, bigrams=False, subwords=True),
    "vw": lambda data: run_vw(data, bigrams=False),
    "vw-bigrams": lambda data: run_vw(data, bigrams=True),
}


# ---------------------------------------------------------------------------
# One (corpus, method) in a child process
# ---------------------------------------------------------------------------

def _rss_mib():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return None


def child(method, train_path, test_path, task, out):
    """Run ``method`` on the corpus; write its figures as JSON to ``out``. The clock
    runs from the texts in memory, the libraries imported, to the test predictions."""
    import warnings

    warnings.simplefilter("ignore")  # convergence warnings of the peers' defaults
    import importlib

    for name in LIBRARIES[method]:
        try:
            importlib.import_module(name)
        except ImportError:
            pass  # the method says it is not available
    data = Data(train_path, test_path, task)
    result = {"task": data.task, "n_train": len(data.train), "n_test": len(data.test),
              "classes": len(data.classes), "rss_before_mib": _rss_mib()}
    t0 = time.perf_counter()
    try:
        Y_pred = RUNNERS[method](data)
    except NotAvailable as exc:
        result["not_available"] = str(exc)
    else:
        result["seconds"] = time.perf_counter() - t0
        result.update(scores_of(data.task, data.Y_test, np.asarray(Y_pred)))
    with open(out, "w") as fh:
        json.dump(result, fh)


def wait_with_usage(proc, timeout):
    """``(wait status, resource usage)`` of ``proc`` once it ends (its ``ru_maxrss`` is its
    own peak RSS), or None after killing it at ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            return status, usage
        if time.monotonic() > deadline:
            proc.kill()
            os.wait4(proc.pid, 0)
            return None
        time.sleep(0.02)


def run_in_child(method, train_path, test_path, task, timeout):
    """The child's figures plus its peak RSS (MiB); an error or timeout is a row too."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cmd = [sys.executable, os.path.abspath(__file__), "--child", method, train_path,
               test_path, task or "", out.name]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                env=_child_env())
        ended = wait_with_usage(proc, timeout)
        if ended is None:
            return {"error": f"timed out after {timeout:.0f} s"}
        status, usage = ended
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read().decode(errors="replace").strip()
        if proc.returncode != 0:
            return {"error": (err.splitlines() or [f"exit {proc.returncode}"])[-1]}
        with open(out.name) as fh:
            result = json.load(fh)
    result["peak_rss_mib"] = usage.ru_maxrss / 1024  # KiB on Linux
    return result


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------

def _cell(value, fmt):
    return "-" if value is None else format(value, fmt)


def format_table(corpus, rows):
    """One corpus's rows as text lines: figures, seconds, ratio to textwin, peak RSS."""
    task = next((r["task"] for r in rows.values() if "task" in r), "?")
    first, second = (("micro-F1", "micro_f1") if task == "multilabel"
                     else ("accuracy", "accuracy"))
    base = rows.get("textwin", {}).get("seconds")
    some = next((r for r in rows.values() if "n_train" in r), {})
    lines = [f"{corpus} ({task}, {some.get('classes', '?')} categories, "
             f"{some.get('n_train', '?')} / {some.get('n_test', '?')} documents)",
             f"  {'method':<22} {first:>8} {'macro-F1':>8} {'seconds':>8} {'x textwin':>9} "
             f"{'peak MiB':>8}"]
    for method, r in rows.items():
        if "seconds" not in r:
            lines.append(f"  {method:<22} {r.get('not_available') or r.get('error')}")
            continue
        ratio = r["seconds"] / base if base else None
        lines.append(f"  {method:<22} {r[second]:8.2f} {r['macro_f1']:8.2f} "
                     f"{r['seconds']:8.1f} {_cell(ratio, '9.2f')} {r['peak_rss_mib']:8.0f}")
    return lines


def _names(text, known, what):
    names = [s.strip() for s in text.split(",") if s.strip()]
    unknown = [s for s in names if s not in known]
    if unknown or not names:
        raise SystemExit(f"error: unknown {what} {', '.join(unknown) or '(none given)'}; "
                         f"choose from {', '.join(known)}")
    return names


def add_corpora_options(ap):
    """--corpora and --corpora-dir (read by :func:`corpora_chosen`)."""
    ap.add_argument("--corpora", default=",".join(CORPORA),
                    help=f"comma-separated (default all: {','.join(CORPORA)})")
    ap.add_argument("--corpora-dir", default=None,
                    help="the folder holding agnews-small/ and germeval2018/ "
                         "(default $TEXTWIN_DATA_HOME/corpora)")


def corpora_chosen(args):
    """``args`` with --corpora as a list of names and --corpora-dir resolved."""
    args.corpora = _names(args.corpora, CORPORA, "corpus")
    if args.corpora_dir is None:
        home = os.environ.get("TEXTWIN_DATA_HOME", os.path.expanduser("~/textwin_data"))
        args.corpora_dir = os.path.join(home, "corpora")
    return args


def parse_args(argv=None):
    from _common import JsonPath, add_smoke_arg

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_corpora_options(ap)
    ap.add_argument("--methods", default=None,
                    help=f"comma-separated (default: {','.join(METHODS)}; also "
                         f"{','.join(EXTRA_METHODS)}; with --smoke {','.join(SMOKE_METHODS)})")
    add_smoke_arg(ap)
    ap.add_argument("--timeout", type=float, default=3600,
                    help="seconds a method may take on a corpus (default 3600)")
    ap.add_argument("--json", metavar="PATH", default=None, action=JsonPath,
                    help="also write the results as JSON to PATH ('-': the JSON alone on "
                         "stdout, the tables on stderr)")
    args = ap.parse_args(argv)
    if args.smoke and args.corpora == ap.get_default("corpora"):
        args.corpora = ",".join(SMOKE_CORPORA)
    args = corpora_chosen(args)
    args.methods = _names(args.methods or ",".join(SMOKE_METHODS if args.smoke else METHODS),
                          METHODS + EXTRA_METHODS, "method")
    return args


def main(argv=None):
    from _common import emit_json, head_lines, machine_info, print_machine
    import textwin

    args = parse_args(argv)
    info = print_machine()
    print(f"textwin from {os.path.dirname(textwin.__file__)}")
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench_corpora") as workdir:
        for corpus in args.corpora:
            train, test, task = corpus_files(corpus, args.corpora_dir, workdir)
            if args.smoke:
                train = head_lines(train, os.path.join(workdir, f"{corpus}.smoke.train.jsonl"), 300)
                test = head_lines(test, os.path.join(workdir, f"{corpus}.smoke.test.jsonl"), 100)
            results[corpus] = {}
            for method in args.methods:
                print(f"{corpus} / {method} ...", end="", file=sys.stderr, flush=True)
                t0 = time.perf_counter()
                results[corpus][method] = r = run_in_child(method, train, test, task,
                                                           args.timeout)
                print(f" {time.perf_counter() - t0:.1f} s"
                      f"{'' if 'seconds' in r else ': ' + str(r.get('not_available') or r.get('error'))}",
                      file=sys.stderr, flush=True)
            print("\n".join(format_table(corpus, results[corpus])), flush=True)
    end = machine_info()["load_average"]
    print(f"load average at the end: {end}")
    emit_json(args.json, {"machine": info, "load_average_end": end, "results": results})


if __name__ == "__main__":
    if _built_in_place():
        sys.path.insert(0, ROOT)
    if len(sys.argv) == 7 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5] or None, sys.argv[6])
    else:
        main()
