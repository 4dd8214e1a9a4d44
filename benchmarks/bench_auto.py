"""TextClassifierCV's search against scikit-learn's GridSearchCV over a text Pipeline.

On each corpus, in one run and on the same folds:

* ``GridSearchCV(Pipeline(TfidfVectorizer(sublinear_tf=True), LinearSVC()))`` over word
  n-grams (1, and 2 when textwin has them) x ``C = 1 / (lam n)`` for the ``lam * n`` grid
  of :class:`textwin.TextClassifierCV` (multi-label: ``OneVsRestClassifier(LinearSVC())``,
  scored by micro-F1 at the classifiers' own decision);
* ``TextClassifierCV`` over the same grid: words as they are (no stemming), no character
  n-grams, no naive Bayes scaling, thresholds 0, the same scoring;
* ``TextClassifierCV()`` as ``--auto`` runs it: stemming on and off, n-grams, character
  n-grams beside the best words (training texts of at most 2 million characters), the naive
  Bayes scaling of two-class corpora, and the decision (score 0, or thresholds tuned
  for multi-label categories, a cut for two classes);
* ``TextClassifier()``, the defaults, for reference.

It prints each one's time, its cross-validated score and its score on the test split
(accuracy, or micro-F1 and micro-BEP), and the ratios of the matched search's time and
of ``--auto``'s to GridSearchCV's (target: at most 1/3 at an equal or better CV score).
One thread each.

    python benchmarks/bench_auto.py [--corpora agnews germeval reuters] [--json PATH]
"""
import argparse
import json
import os
import time

import numpy as np
from _common import add_smoke_arg, emit_json, print_machine, smoke_cut
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import Pipeline
from sklearn.svm import LinearSVC

from textwin import TextClassifier, TextClassifierCV
from textwin.metrics import micro_breakeven_point, precision_recall_f1
from textwin.text import TextVectorizer
from textwin.text_classifier import DEFAULT_LAM_N

CORPORA = os.path.join(os.environ.get("TEXTWIN_DATA_HOME", os.path.expanduser("~/textwin_data")),
                       "corpora")


def _jsonl(path):
    texts, labels = [], []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            doc = json.loads(line)
            texts.append(doc["text"])
            labels.append(doc["labels"][0])
    return texts, np.array(labels)


def load(name):
    """(train texts, train y, test texts, test y, multi-label?)"""
    if name == "reuters":
        from textwin.datasets import REUTERS_TOP10, fetch_reuters21578

        parts = [fetch_reuters21578(subset=s, download_if_missing=False) for s in ("train", "test")]
        cols = [parts[0].target_names.index(c) for c in sorted(REUTERS_TOP10)]
        return (parts[0].data, np.asarray(parts[0].target)[:, cols].astype(int),
                parts[1].data, np.asarray(parts[1].target)[:, cols].astype(int), True)
    folder = {"agnews": "agnews-small", "germeval": "germeval2018"}[name]
    train, test = (_jsonl(os.path.join(CORPORA, folder, f"{s}.jsonl")) for s in ("train", "test"))
    return (*train, *test, False)


def test_scores(model, texts, y, multilabel):
    if not multilabel:
        return {"accuracy": float(np.mean(model.predict(texts) == y))}
    predicted = np.asarray(model.predict(texts))
    out = {"micro_f1": float(precision_recall_f1(y, Y_pred=predicted).micro_f1)}
    if hasattr(model, "decision_function"):
        out["micro_bep"] = float(micro_breakeven_point(y, model.decision_function(texts)))
    return out


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def run_corpus(name, n_jobs, smoke=False):
    X, y, X_test, y_test, multilabel = load(name)
    if smoke:
        (X, y), (X_test, y_test) = smoke_cut(300, 100, (X, y), (X_test, y_test))
    n = len(X)
    ngrams = [1, 2] if "ngram_range" in TextVectorizer().get_params() else [1]
    splitter = KFold if multilabel else StratifiedKFold
    folds = list(splitter(5, shuffle=True, random_state=0).split(np.zeros((n, 1)),
                                                                   None if multilabel else y))
    scoring = "f1_micro" if multilabel else "accuracy"
    rows = {}

    svm = OneVsRestClassifier(LinearSVC()) if multilabel else LinearSVC()
    C_key = "svm__estimator__C" if multilabel else "svm__C"
    grid = {"tfidf__ngram_range": [(1, k) for k in ngrams], C_key: list(1.0 / DEFAULT_LAM_N)}
    search = GridSearchCV(Pipeline([("tfidf", TfidfVectorizer(sublinear_tf=True)), ("svm", svm)]),
                          grid, cv=folds, scoring=scoring, n_jobs=n_jobs)
    _, seconds = timed(lambda: search.fit(X, y))
    rows["sklearn GridSearchCV"] = dict(
        seconds=seconds, cv_score=float(search.best_score_),
        chosen={k.split("__")[-1]: v for k, v in search.best_params_.items()},
        test=test_scores(search, X_test, y_test, multilabel))

    matched = TextClassifierCV(stem=False, ngrams=ngrams, chars=None, nb_scaling=False, cv=folds,
                               tune_thresholds=False, scoring="micro-f1" if multilabel else None,
                               n_jobs=n_jobs)
    _, seconds = timed(lambda: matched.fit(X, y))
    rows["TextClassifierCV, same grid"] = dict(
        seconds=seconds, cv_score=matched.best_score_, chosen=_chosen(matched),
        test=test_scores(matched, X_test, y_test, multilabel))

    auto = TextClassifierCV(ngrams=ngrams, cv=folds, n_jobs=n_jobs)
    _, seconds = timed(lambda: auto.fit(X, y))
    rows["TextClassifierCV (--auto)"] = dict(
        seconds=seconds, cv_score=auto.best_score_, chosen=_chosen(auto),
        test=test_scores(auto, X_test, y_test, multilabel))

    default, seconds = timed(lambda: TextClassifier(n_jobs=n_jobs).fit(X, y))
    rows["TextClassifier (defaults)"] = dict(seconds=seconds, cv_score=None, chosen={},
                                             test=test_scores(default, X_test, y_test, multilabel))
    peer = rows["sklearn GridSearchCV"]["seconds"]
    return {"corpus": name, "n_train": n, "n_test": len(X_test), "ngrams": ngrams,
            "grid": {"C": list(1.0 / DEFAULT_LAM_N)}, "scoring": scoring, "rows": rows,
            "time_ratio_same_grid": rows["TextClassifierCV, same grid"]["seconds"] / peer,
            "time_ratio_auto": rows["TextClassifierCV (--auto)"]["seconds"] / peer}


def _chosen(search):
    """The chosen settings, lam as scikit-learn's C = 1 / (lam n) (the median over the
    categories when each has its own)."""
    p = dict(search.best_params_)
    lam = np.asarray(p.pop("lam"))
    C = 1.0 / (lam * _n_train(search))
    p["C"] = float(C) if C.ndim == 0 else f"per category, median {np.median(C):.3g}"
    return p


def _n_train(search):
    return search.best_estimator_.vectorizer_.n_documents_


def show(result):
    print(f"\n{result['corpus']}: {result['n_train']} train / {result['n_test']} test texts, "
          f"n-grams {result['ngrams']}, C in {np.round(result['grid']['C'], 3).tolist()}, "
          f"5 folds, scoring {result['scoring']}")
    print(f"{'':30}{'seconds':>9}{'CV':>8}  {'test':<28}chosen")
    for name, r in result["rows"].items():
        cv = "-" if r["cv_score"] is None else f"{100 * r['cv_score']:.2f}"
        test = ", ".join(f"{k} {100 * v:.2f}" for k, v in r["test"].items())
        chosen = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                           for k, v in r["chosen"].items())
        print(f"{name:30}{r['seconds']:9.1f}{cv:>8}  {test:<28}{chosen}")
    print(f"time over GridSearchCV's: TextClassifierCV over the same grid "
          f"{result['time_ratio_same_grid']:.3f}, TextClassifierCV() (--auto) "
          f"{result['time_ratio_auto']:.3f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", nargs="+", default=["agnews", "germeval", "reuters"],
                        choices=["agnews", "germeval", "reuters"])
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--json", metavar="PATH")
    add_smoke_arg(parser)
    args = parser.parse_args()
    info = print_machine()
    results = []
    for name in args.corpora:
        results.append(run_corpus(name, args.n_jobs, args.smoke))
        show(results[-1])
    from _common import load_average

    info["load_average_end"] = load_average()
    emit_json(args.json, {"machine": info, "results": results})


if __name__ == "__main__":
    main()
