"""`textwin train`: one method on Reuters-21578 categories or a corpus, tested,
and optionally saved as a model file."""
from __future__ import annotations

import math

from .common import (
    EXIT_INTERNAL,
    EXIT_OK,
    CLIError,
    SHOWN_ROWS,
    fmt,
    logger,
    num,
    out,
    print_json,
    progress_enabled,
)
from .options import HelpFormatter, training_options
from .auto import AUTO_FOLDS, check_auto, fit_auto, warn_small_classes
from .tuning import TUNING_FOLDS, check_tuning, tuning_summary, warn_rare_classes
from .corpus import training_data
from .report import (SUMMARY_NAMES, auto_curves, auto_line, check_outputs, constant_note, cv_line,
                     order_text, plot_failed, positive_label, task_text, try_plot,
                     tuning_line)
from .training import (class_thresholds, cv_summary, fit_options, fit_task, fit_texts,
                       checked_methods, method_settings, summarize)


def add_parser(sub, methods_help, method_names):
    """The `train` subcommand's options."""
    p = sub.add_parser(
        "train", formatter_class=HelpFormatter,
        help="train a classifier on Reuters-21578 categories or your corpus, and test it",
        description="Train on the ModApte training set (or your corpus) and report, on the "
                    "test set, each category's break-even point, precision, recall and F1, "
                    "the duality gap reached, the epochs and the time, with the summary: "
                    "micro/macro break-even points and F1 for multi-label categories; "
                    "accuracy, macro- and micro-F1 for a single-label corpus (each document "
                    "gets the class of its highest score).",
        epilog="methods:\n" + methods_help + """

examples:
  textwin train --category acq
  textwin train --category acq --method svm-alg2 --output acq.npz
  textwin train --category grain,wheat,corn --method mls --json
  textwin train --corpus news/ --output news.npz        every class of news/<class>/<file>
  textwin train --corpus r8 --method mls                 R8, single-label Reuters
  textwin train --corpus mail.jsonl --category spam --output spam.npz
  textwin train --corpus train.svm --test-corpus test.svm
  textwin train --corpus tweets.jsonl --positive-label offensive --tune-thresholds f1
  textwin train --corpus r52 --tune-thresholds f1       an offset per class, for macro-F1
news/, mail.jsonl, tweets.jsonl and train.svm stand for your own corpora, in the layouts
of --corpus (a JSON Lines file holds one {"text": ..., "labels": [...]} per line); r8 and
r52 are read from the data home's Reuters-21578.
""")
    p.add_argument("--category", "-c", metavar="NAME",
                   help="categories to train: a name, a comma-separated list, or all "
                        "(Reuters-21578: required, any of the 118; your corpus: default all)")
    p.add_argument("--method", "-m", default="svm", metavar="METHOD",
                   help="one of: " + ", ".join(method_names) + " (default: %(default)s)")
    p.add_argument("--output", "-o", metavar="MODEL.npz",
                   help="save the model (weights, vocabulary, selected features, settings)")
    p.add_argument("--tune-thresholds", choices=["f1", "breakeven", "accuracy"], default=None,
                   help=f"choose the decision thresholds by {TUNING_FOLDS}-fold "
                        "cross-validation on the training set (default: none, score > 0 or "
                        "the highest score): multi-label, each category's, for its F1 or at "
                        "its break-even point; two-class, the positive class's, for its F1, "
                        "the break-even point or accuracy; multi-class, an offset per class "
                        "before the argmax, for macro-F1 (f1) or accuracy (also with "
                        "--auto, which tunes the others itself). With --lam auto at its "
                        "chosen lambda. The model keeps them and `textwin predict` applies "
                        "them")
    p.add_argument("--proba", action="store_true",
                   help="calibrate probabilities for `textwin predict --proba`: Platt's "
                        "sigmoid per class, fitted on 5-fold out-of-fold scores of the "
                        "training set (5 more fits; --auto has them from its own folds), "
                        "kept in the model; the report adds the test set's log-loss")
    training_options(p)
    p.set_defaults(func=cmd_train)


def cmd_train(args):
    (method,), given = checked_methods([args.method], args)
    check_outputs(args)  # before the training, not after it
    opts = fit_options(args)  # what every fit takes of the options
    d = training_data(args, args.category)  # texts: the estimator's
    check_tuning(opts, d)
    fit = _fit_auto(args, method, d) if opts.auto else _fit_method(opts, method, d, given)
    d, cv = fit.data, fit.cv
    summary, per = summarize(d, fit.scores, fit.thresholds)
    result = {
        "method": method.key, "paper_name": method.paper_name, "corpus": d.source,
        "task": d.task, **positive_label(d), "settings": {**method.settings, **fit.settings},
        "order": order_text(opts.order),
        "n_train": int(d.n_train), "n_test": int(d.n_test),
        "n_features": int(d.n_features), **summary, "seconds": round(fit.seconds, 3),
        "categories": _category_rows(fit, per),
    }
    if d.constant:  # categories without a break-even point, and why
        result["constant_models"] = d.constant
    if cv is not None:
        result["auto" if opts.auto else "lam_by_cv"] = cv
    if opts.tune:
        result["tuning"] = tuning_summary(opts.tune, d.task, cv)
    if d.preprocessing and d.as_corpus:  # how the texts became rows: language, stems, n-grams
        result["features"] = d.preprocessing
    if d.report is not None:
        result["corpus_report"] = d.report
    if opts.proba:
        result["log_loss"] = test_log_loss(fit.calibration, d, fit.scores)
    if args.output is not None:
        _save_model(args.output, fit, method, result, summary)
        result["model"] = str(args.output)
    plot_error = None
    if cv is not None and args.plot is not None:  # after the model: a plot is not worth it
        plot_error = try_plot({"": auto_curves(cv) if opts.auto else cv}, args.plot)
        if plot_error is None:
            result["plot"] = str(args.plot)
    if args.json:
        print_json(result)
    else:
        _print_result(opts, method, fit, result, summary)
    if plot_error is not None:
        return plot_failed(plot_error, "the results and the model" if args.output is not None
                           else "the results")
    return EXIT_OK


def _fit_method(opts, method, d, given):
    """``method`` at the settings given (``--lam auto``: chosen by cross-validation), and
    thresholds tuned if asked: a :class:`~textwin.cli.training.Fit`."""
    from dataclasses import replace

    settings = method_settings(method, d, given)
    if settings.get("lam") == "auto":
        warn_small_classes(d, "--lam auto")
    if d.text is not None:  # texts: a TextClassifier of the options, which tunes its own
        fit = fit_texts(method, d, settings, opts)
        d = fit.data
        _log_training(method, d, fit.estimator.n_empty_texts_)
        if opts.tune and fit.estimator.thresholds is not None:  # not --lam auto's folds'
            warn_rare_classes(opts.tune, d)
        return replace(fit, cv=cv_summary(fit.estimator, list(d.problem_names)))
    _log_training(method, d)  # a matrix: feature values, or the paper's cached features
    fit = fit_task(method, d, settings, opts)  # its estimator tunes and calibrates itself
    if opts.tune and getattr(fit.estimator, "thresholds_", None) is None:  # not the search's
        warn_rare_classes(opts.tune, d)
    return replace(fit, cv=cv_summary(fit.estimator, list(d.problem_names)))


def _fit_auto(args, method, d):
    """--auto: the features, the bias and lam chosen together by cross-validation (the
    fit's data has the chosen features); a :class:`~textwin.cli.training.Fit`."""
    check_auto(args, d, method.key)
    logger.info("searching the features and lambda of %s by %d-fold cross-validation on %d "
                "documents, %d categor%s (%s)", method.key, AUTO_FOLDS, len(d.texts_train),
                len(d.categories), "y" if len(d.categories) == 1 else "ies", d.task)
    fit = fit_auto(args, d, progress_enabled(args))
    if args.tune_thresholds:  # multi-class (check_auto refused the others): class offsets
        warn_rare_classes(args.tune_thresholds, d)
    return fit


def _log_training(method, d, empty_train=None):
    """What is trained, and the documents without any feature (``empty_train``: the
    training documents', counted by the fit; else from the matrix)."""
    logger.info("training %s on %d documents, %d features, %d categor%s (%s)", method.key,
                d.n_train, d.n_features, len(d.categories),
                "y" if len(d.categories) == 1 else "ies", d.task)
    if empty_train is None:
        empty_train = int((d.X_train.getnnz(axis=1) == 0).sum())
    empty = [empty_train, int((d.X_test.getnnz(axis=1) == 0).sum())]
    if any(empty):  # valid documents, but a user wants to know they carry no feature
        logger.info("%d training and %d test documents have none of the %d features; "
                    "they score the bias", *empty, d.n_features)


def _category_rows(fit, per):
    """One row per category: its test figures, positives, and what the solve reached."""
    d, thresholds, cv = fit.data, fit.thresholds, fit.cv
    gap = getattr(fit.estimator, "duality_gap_", None)
    n_iter = getattr(fit.estimator, "n_iter_", None)
    constant = d.constant
    rows = []
    for j, cat in enumerate(d.categories):
        k = 0 if d.task == "binary" else j  # the binary problem serves both classes
        rows.append({
            "category": cat,
            "breakeven": num(100 * per["breakeven"][j]),
            "precision": num(100 * per["precision"][j]),
            "recall": num(100 * per["recall"][j]),
            "f1": num(100 * per["f1"][j]),
            "train_positives": int(d.Y_train[:, j].sum()),
            "test_positives": int(d.Y_test[:, j].sum()),
            "duality_gap": _pick(gap, k, float),
            "epochs": _pick(n_iter, k, int),
        })
        if cat in constant:  # why its break-even point is null
            rows[-1]["constant_model"] = constant[cat]
        if thresholds is not None:
            rows[-1]["threshold"] = float(thresholds[j])  # +-inf: never / always
        if cv is not None:
            # a two-class corpus: both classes are the one problem's
            rows[-1]["lam"] = cv["lam"][d.categories[-1] if d.task == "binary" else cat]
    return rows


def test_log_loss(calibration, d, scores):
    """The mean log-loss of the calibrated probabilities of the test documents' labels
    (multi-label: of each category's yes or no, averaged over the categories)."""
    import numpy as np

    own = scores[:, 1:] if d.task == "binary" else scores
    P = np.clip(calibration.predict_proba(own, d.task), 1e-15, 1 - 1e-15)
    Y = np.asarray(d.Y_test, dtype=bool)
    if d.task == "multilabel":
        return float(-np.mean(np.where(Y, np.log(P), np.log(1 - P))))
    return float(-np.mean(np.log(P[Y])))


def _save_model(path, fit, method, result, summary):
    """Write the model file: the estimator's model (a TextClassifier's, with its
    thresholds and calibration; --auto: the search's, with what it chose; a method
    fitted on a matrix: :func:`_matrix_model`), with what it was tested on."""
    from ..persistence import save_model

    d, est = fit.data, fit.estimator
    metadata = {"method": method.key, "settings": result["settings"], "corpus": d.source,
                "task": d.task, **positive_label(d), "test": result["categories"],
                "summary": summary}
    if hasattr(est, "vectorizer_"):  # a TextClassifier
        model = (est if fit.search is None else fit.search).to_model(metadata)
    else:
        thresholds = fit.thresholds
        thresholds = (class_thresholds(d) if thresholds is None  # binary: the second class's
                      else thresholds[-1:] if d.task == "binary" else thresholds)
        model = _matrix_model(fit, thresholds, metadata, fit.calibration)
    try:
        save_model(path, model)
    except OSError as exc:
        raise CLIError(f"cannot write the model to {path}: {exc}") from None
    logger.info("model written to %s", path)


def _matrix_model(fit, thresholds, metadata, calibration):
    """The model file of an estimator fitted on a matrix (feature values, or the paper's
    cached features: no TextClassifier holds them): :meth:`TextModel.of_estimator
    <textwin.persistence.TextModel.of_estimator>`, whose weights must give the
    estimator's own test scores."""
    from ..persistence import ModelFormatError, TextModel

    d, est = fit.data, fit.estimator
    single = d.task != "multilabel"
    own = fit.scores[:, 1:] if d.task == "binary" else fit.scores
    try:
        return TextModel.of_estimator(
            est, d.categories[1:] if d.task == "binary" else d.categories, metadata=metadata,
            check=(d.X_test, own), vocabulary=d.vocabulary, selected=d.support,
            preprocessing=d.preprocessing, idf=d.idf, thresholds=thresholds, task=d.task,
            classes=list(d.categories) if single else None, calibration=calibration)
    except ModelFormatError:
        raise
    except ValueError as exc:  # weights that do not give its scores
        raise CLIError(f"internal error: {exc}", EXIT_INTERNAL) from None


def _print_result(opts, method, fit, result, summary):
    """The table: a heading line, a row per category, the summary, then what was chosen
    and written."""
    d, overrides, seconds = fit.data, fit.settings, fit.seconds
    rows = result["categories"]
    changed = ", ".join(_chosen_lam(result) if k == "lam" and _lam_searched(result)
                        else f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                        for k, v in overrides.items() if method.settings.get(k) != v)
    out(f"{method.paper_name}{f' (here {changed})' if changed else ''}  [{d.source}: "
        f"{result['n_train']} train / {result['n_test']} test documents, "
        f"{result['n_features']} features]")
    if opts.corpus:
        out(f"task: {task_text(d)}; {result['order']}")
    width = max(16, max(len(c) for c in d.categories) + 2)
    out(f"{'class' if d.task != 'multilabel' else 'category':<{width}}{'BEP':>7}"
        f"{'prec':>7}{'recall':>7}{'F1':>7}{'gap':>11}{'epochs':>8}")
    for r in rows[:SHOWN_ROWS]:
        gap_s = "-" if r["duality_gap"] is None else f"{r['duality_gap']:.2e}"
        ep_s = "-" if r["epochs"] is None else str(r["epochs"])
        out(f"{r['category']:<{width}}{fmt(r['breakeven'])}{fmt(r['precision'])}"
            f"{fmt(r['recall'])}{fmt(r['f1'])}{gap_s:>11}{ep_s:>8}")
    if len(rows) > SHOWN_ROWS:
        kind = "classes" if d.task != "multilabel" else "categories"
        out(f"... and {len(rows) - SHOWN_ROWS} more {kind} (--json lists them all)")
    out("  ".join(f"{SUMMARY_NAMES[k]} {fmt(v, 0)}" for k, v in summary.items()))
    if "log_loss" in result:
        out(f"log-loss {result['log_loss']:.4f} (the calibrated probabilities of the test "
            "documents' labels)")
    if constant_note(d):
        out(constant_note(d))
    if "tuning" in result:
        out(tuning_line(result["tuning"], d.task, rows))
    if "lam_by_cv" in result:
        out(cv_line(result["lam_by_cv"]))
    if "auto" in result:
        out(auto_line(result["auto"]))
    out(f"time: {seconds:.2f} s ({'search and ' if 'auto' in result else ''}training)")
    if "plot" in result:
        out(f"plot: {result['plot']}")
    if "model" in result:
        out(f"model: {result['model']}")


def _lam_searched(result):
    return "lam_by_cv" in result or "auto" in result


def _chosen_lam(result):
    """The heading's lam of --lam auto or --auto: the value chosen and its C = 1/(lam n),
    or, where each category has its own (the break-even point on Reuters-21578), that
    (the line below the table names them)."""
    if "auto" in result:
        lam, c = result["auto"]["chosen"]["lam"], result["auto"]["chosen"]["C"]
    else:
        lams = set(result["lam_by_cv"]["lam"].values())
        if len(lams) > 1:
            return "lam per category by cross-validation"
        (lam,) = lams
        c = 1 / (lam * result["n_train"])
    return f"lam={lam:g} (C = {c:.3g}) by cross-validation"


def _pick(values, j, kind):
    """Entry ``j`` of a per-problem attribute (``None`` if absent or not finite)."""
    import numpy as np

    if values is None:
        return None
    arr = np.atleast_1d(np.asarray(values, dtype=float))
    v = arr[j] if arr.size > j else arr[0]
    return kind(v) if math.isfinite(v) else None
