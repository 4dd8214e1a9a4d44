"""`textwin inspect`: what a saved model is, and the terms that weigh most in each class."""
from __future__ import annotations

from .common import (
    EXIT_OK,
    CLIError,
    open_model,
    out,
    print_json,
)
from .options import HelpFormatter, common_options

#: How many terms of each sign per class, unless --terms says.
DEFAULT_TERMS = 10

_TASKS = {
    "multiclass": "one class per document, that of the highest score less its threshold",
    "binary": "one of two classes per document, the second where the score is above the "
              "threshold, else the first",
    "multilabel": "any number of categories per document, each whose score is above its "
                  "threshold",
}
#: The estimator's settings worth a reader's eye, in this order (when the file has them).
_SETTINGS = ("loss", "regularizer", "fit_intercept", "intercept_solver", "nb_scaling",
             "class_weight", "tol", "max_epochs")


def add_parser(sub):
    """The `inspect` subcommand's options."""
    p = sub.add_parser(
        "inspect", formatter_class=HelpFormatter,
        help="what a saved model is: task, classes, features, settings, top terms",
        description="Describe a model file written by `textwin train --output` (or a "
                    "TextClassifier's save): its task (one class per document, or any "
                    "number of categories), its classes, the features it reads (how many "
                    "terms, tf-idf or counts, stems or words, n-grams), the estimator and "
                    "its settings, lam (the regularization: larger is smoother), the "
                    "decision thresholds, whether it has calibrated probabilities (for "
                    "`predict --proba`), and for each class the terms of largest positive "
                    "weight (they push a document into the class) and of largest negative "
                    "weight (they push it out). A term is what the model counts: a stem "
                    "(\"compani\" for company, companies) or a pair of stems with "
                    "--ngrams 2; `textwin predict --explain N` shows a document's own words.",
        epilog="""examples:
  textwin inspect model.npz                 the summary and 10 terms of each sign per class
  textwin inspect model.npz --terms 25
  textwin inspect model.npz --json | jq '.top_terms.Sports.positive[:5]'
""")
    p.add_argument("model", metavar="MODEL", help="model file (.npz)")
    p.add_argument("--terms", type=int, default=DEFAULT_TERMS, metavar="N",
                   help=f"terms of each sign per class (default {DEFAULT_TERMS}; 0: none)")
    common_options(p, data=False)
    p.set_defaults(func=cmd_inspect)


def cmd_inspect(args):
    if args.terms < 0:
        raise CLIError(f"--terms {args.terms}: give a number of terms >= 0")
    model = open_model(args.model)
    report = describe(args.model, model, args.terms)
    if args.json:
        print_json(report)
    else:
        _print_report(report)
    return EXIT_OK


def describe(path, model, n_terms):
    """What ``model`` is, JSON-ready."""
    import numpy as np

    from ..explanations import top_terms

    meta = model.metadata
    params = meta.get("params") or {}
    n_problems = model.coef.shape[0]
    report = {
        "model": str(path),
        "textwin_version": meta.get("textwin_version"),
        "format_version": meta.get("format_version"),
        "estimator": meta.get("estimator"),
        "method": meta.get("method"),
        "corpus": meta.get("corpus"),
        "task": model.task,
        "classes": [str(c) for c in model.classes] if model.task != "multilabel"
        else list(model.target_names),
        "features": _features(model),
        "settings": {k: params[k] for k in _SETTINGS if k in params},
        "lam": _lam(meta, params, n_problems),
        "thresholds": dict(zip(model.target_names, model.thresholds.tolist())),
        "calibration": None if model.calibration is None else model.calibration.to_json(),
    }
    if model.calibration is None and model.trained_loss() == "logistic":
        report["calibration"] = {"method": "logistic"}
    if "search" in meta:
        search = meta["search"]
        report["search"] = {k: search.get(k) for k in ("chosen", "scoring", "cv_score", "folds")}
    if "summary" in meta:
        report["test"] = meta["summary"]
    if model.vocabulary is not None:
        columns = np.arange(model.vocabulary.size) if model.selected is None else model.selected
        terms = _Columns(model.vocabulary, columns)
    else:
        terms = [f"feature {int(j)}" for j in (range(model.coef.shape[1]) if model.selected is None
                                               else model.selected)]
    top = top_terms(model.coef, terms, n_terms)
    report["top_terms"] = {
        name: {sign: [{"term": t, "weight": w} for t, w in row[sign]]
               for sign in ("positive", "negative")}
        for name, row in zip(model.target_names, top)}
    return report


class _Columns:
    """The terms of the columns ``coef`` refers to, read one at a time from the
    vocabulary (the top terms are few; the vocabulary may be large)."""

    def __init__(self, vocabulary, columns):
        self.vocabulary, self.columns = vocabulary, columns

    def __getitem__(self, j):
        return self.vocabulary[int(self.columns[j])]


def _features(model):
    """The features the model reads: how many, and how the vectorizer makes them."""
    pre = model.preprocessing
    info = {"weights": int(model.coef.shape[1])}
    if model.vocabulary is None:
        info["kind"] = "numeric (svmlight)"
        return info
    info["terms"] = int(model.vocabulary.size)
    if model.selected is not None:
        info["selected"] = int(model.selected.size)
        info["selector"] = model.metadata.get("selector")
    for key in ("weighting", "stem", "stemmer", "language", "ngram_range", "min_df",
                "lowercase"):
        if key in pre:
            info[key] = pre[key]
    return info


def _lam(meta, params, n_problems):
    """lam of each problem, from what the file records (None when it does not)."""
    lam = meta.get("lam")
    if isinstance(lam, list) and len(lam) == n_problems:
        return lam
    lam = params.get("lam", (meta.get("settings") or {}).get("lam"))
    # a number; "auto" in a file that did not record the choice is none
    return [lam] * n_problems if isinstance(lam, (int, float)) else None


def _one_or_each(values, names, fmt):
    """One value for every class, or each class's."""
    if len(set(values)) == 1:
        return f"{fmt(values[0])} (every class)" if len(values) > 1 else fmt(values[0])
    return ", ".join(f"{n} {fmt(v)}" for n, v in zip(names, values))


def _print_report(r):
    names = list(r["thresholds"])
    version = ", ".join(x for x in (r["textwin_version"] and f"textwin {r['textwin_version']}",
                                    r["format_version"] and f"model format {r['format_version']}")
                        if x)
    rows = [("model", r["model"] + (f" ({version})" if version else ""))]
    estimator = r["estimator"] or "?"
    if r["method"]:
        estimator += f" (method {r['method']})"
    rows.append(("estimator", estimator))
    if r["corpus"]:
        rows.append(("trained on", r["corpus"]))
    rows.append(("task", f"{r['task']}: {_TASKS[r['task']]}"))
    rows.append(("classes", f"{len(r['classes'])}: " + ", ".join(r["classes"])))
    rows.append(("features", _feature_line(r["features"])))
    if r["settings"]:
        rows.append(("settings", ", ".join(f"{k} {_value(v)}" for k, v in r["settings"].items())))
    rows.append(("lam", "not recorded" if r["lam"] is None
                 else _one_or_each(r["lam"], names, lambda v: f"{v:.3g}")))
    rows.append(("thresholds", _one_or_each(list(r["thresholds"].values()), names,
                                            lambda v: f"{v:.4g}")))
    cal = r["calibration"]
    rows.append(("probabilities",
                 "none: `predict --proba` needs a model trained with --proba (or --auto)"
                 if cal is None else
                 "the logistic loss's own: 1 / (1 + exp(-score))" if cal["method"] == "logistic"
                 else f"Platt's sigmoid per {'class' if r['task'] != 'multilabel' else 'category'}"
                      f", fitted on {cal.get('folds') or 'the'} folds' out-of-fold scores"))
    if "search" in r:
        s = r["search"]
        chosen = ", ".join(f"{k} {_value(v)}" for k, v in (s.get("chosen") or {}).items())
        score = s.get("cv_score")
        rows.append(("search", f"{chosen}" + (f"; {s.get('scoring')} {100 * score:.1f} over "
                                              f"{s.get('folds')} folds" if score is not None
                                              else "")))
    if "test" in r:
        rows.append(("test", "  ".join(f"{k} {v:.1f}" for k, v in r["test"].items()
                                       if isinstance(v, (int, float)))))
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        out(f"{key:<{width}}  {value}")
    if not any(t["positive"] or t["negative"] for t in r["top_terms"].values()):
        return
    out()
    binary = r["task"] == "binary"
    out("terms of largest weight" + (f" (+ towards {r['classes'][1]}, - towards "
                                     f"{r['classes'][0]})" if binary else
                                     " (+ into the class, - out of it)"))
    for name, top in r["top_terms"].items():
        out(name if not binary else f"{r['classes'][1]} against {r['classes'][0]}")
        for sign, mark in (("positive", "+"), ("negative", "-")):
            if top[sign]:
                out(f"  {mark} " + ", ".join(f"{t['term']} {abs(t['weight']):.3g}"
                                             for t in top[sign]))


def _feature_line(f):
    if "terms" not in f:
        return f"{f['weights']} numeric features (svmlight)"
    kept = (f"{f['selected']:,} of {f['terms']:,} terms ({f.get('selector') or 'selected'})"
            if "selected" in f else f"{f['terms']:,} terms")
    what = []
    if "weighting" in f:
        what.append({"tfidf": "tf-idf", "count": "counts", "binary": "presence (0/1)"}.get(
            f["weighting"], f["weighting"]))
    if f.get("stem"):
        what.append(f"stems ({f.get('language', 'english')}, {f.get('stemmer') or 'Porter'})")
    elif "stem" in f:
        what.append("words, not stemmed")
    n = f.get("ngram_range")
    if n and list(n) != [1, 1]:
        what.append(f"n-grams {n[0]} to {n[1]}")
    if f.get("min_df") not in (None, 1):
        what.append(f"in at least {f['min_df']} training documents")
    return kept + (": " + ", ".join(what) if what else "")


def _value(v):
    if isinstance(v, float):
        return f"{v:.3g}"
    return "true" if v is True else "false" if v is False else "none" if v is None else f"{v}"
