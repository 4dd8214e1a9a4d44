"""`textwin eval`: the paper's micro-averaged break-even experiment on Reuters-21578,
or the methods compared on a corpus."""
from __future__ import annotations

import contextlib
import warnings

from .common import (
    EXIT_OK,
    CLIError,
    estimator_verbosity,
    first_line,
    fmt,
    logger,
    out,
    pct,
    print_json,
    progress_enabled,
    warnings_naming,
)
from .options import HelpFormatter, training_options
from .auto import check_auto, fit_auto, warn_small_classes
from .corpus import CORPUS_ONLY, checked, paper_set, training_data
from .report import (SUMMARY_NAMES, auto_curves, auto_line, check_outputs, constant_note, cv_line,
                     order_text, plot_failed, positive_label, task_text, try_plot)
from .training import (LAM_ONE_OVER_N, cv_summary, fit_options, fit_task, fit_texts,
                       checked_methods, method_settings, shared_words, summarize)

#: The methods `textwin eval --corpus` compares by default: one of each family.
#: (``winnow``, the paper's positive Winnow, scores near chance on tf-idf over a whole
#: vocabulary: ``--methods winnow`` still runs it.)
CORPUS_METHODS = ("svm", "mls", "rwinnow-auto", "perceptron", "linearsvc")


def add_parser(sub, methods_help, paper_methods):
    """The `eval` subcommand's options."""
    p = sub.add_parser(
        "eval", formatter_class=HelpFormatter,
        help="compare methods: the paper's break-even experiment, or on your corpus",
        description="--micro-breakeven: train every method on every category with the "
                    "paper's own settings (1,000 information-gain features, binary values, "
                    "ModApte) and print per-category and micro-averaged break-even points, "
                    "each beside the paper's figure, the macro-averages, and the time per "
                    "method (training and testing; the shared feature selection excluded). "
                    "--corpus PATH: train every method on your corpus (with its defaults: "
                    "tf-idf, every feature, lam = 1/n, a random order each epoch) and print "
                    "one row per method: accuracy, macro- and micro-F1 for a single-label "
                    "corpus, micro/macro break-even points and F1 for a multi-label one, "
                    "and the time (training and testing).",
        epilog="methods (default: the paper's: " + ", ".join(paper_methods) + "; with "
               "--corpus: " + ", ".join(CORPUS_METHODS) + "):\n"
               + methods_help + """

examples:
  textwin eval --micro-breakeven
  textwin eval --micro-breakeven --methods svm-alg2,smo,linearsvc --categories acq,grain
  textwin eval --micro-breakeven --categories all --json > all.json
  textwin eval --corpus r8                          the main methods on R8 (single-label)
  textwin eval --corpus news/ --methods svm,linearsvc --json
""")
    p.add_argument("--micro-breakeven", action="store_true",
                   help="run the micro-averaged break-even experiment")
    p.add_argument("--methods", metavar="M1,M2",
                   help="comma-separated method names, 'paper' or 'all'")
    p.add_argument("--categories", default=None, metavar="LIST",
                   help="top10, all, or a comma-separated list (default: top10 on "
                        "Reuters-21578, all on your corpus)")
    training_options(p)
    p.set_defaults(func=cmd_eval)


def cmd_eval(args):
    if args.corpus is not None:
        if args.micro_breakeven:
            raise CLIError("--micro-breakeven is the paper's Reuters-21578 protocol; with "
                           "--corpus, eval compares the methods on your corpus")
        return _eval_corpus(args)
    if args.auto:
        raise CLIError("--auto is for --corpus; --micro-breakeven runs the paper's protocol "
                       "as published")
    if not args.micro_breakeven:
        raise CLIError("choose an evaluation: --micro-breakeven (the paper's protocol on "
                       "Reuters-21578) or --corpus PATH (the methods compared on your corpus)")
    return _micro_breakeven(args)


def _micro_breakeven(args):
    """The paper's methods on its Reuters-21578 protocol, beside its figures."""
    from .._ovr import ConstantModelWarning
    from ..experiments import run_micro_breakeven

    methods, overrides = _paper_methods(args)
    data = _paper_data(args)
    with warnings_naming(data.categories), warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=ConstantModelWarning)  # named already
        try:
            results = run_micro_breakeven([m.key for m in methods], data=data,
                                          overrides=overrides, progress=progress_enabled(args),
                                          n_jobs=args.n_jobs, verbose=estimator_verbosity(args))
        except ValueError as exc:  # as in train: the estimators' checks name the setting
            raise CLIError(first_line(exc)) from None
    sizes = {"task": "multilabel", "n_train": int(data.X_train.shape[0]),
             "n_test": int(data.X_test.shape[0]), "n_features": int(data.X_train.shape[1])}
    dicts = [{**r.to_dict(), **sizes} for r in results]
    chosen = {r.method: r.extra["lam_by_cv"] for r in results if "lam_by_cv" in r.extra}
    plot_error = try_plot(chosen, args.plot) if args.plot is not None and chosen else None
    if args.json:
        print_json(dicts)
    else:
        _print_table(results, data.categories)
        for key, cv in chosen.items():
            out(cv_line(cv, key))
        if args.plot is not None and chosen and plot_error is None:
            out(f"plot: {args.plot}")
    return EXIT_OK if plot_error is None else plot_failed(plot_error)


def _paper_methods(args):
    """The methods of --micro-breakeven and the settings given for each, checked (and the
    options that are for --corpus refused) before any data is loaded."""
    methods, given = checked_methods(args.methods, args)
    overrides = {}
    for m in methods:
        mine = {k: v for k, v in given.items() if k in m.settings}
        if mine:
            overrides[m.key] = mine
        if mine.get("lam") == "auto":  # not every method can: say so before any training
            try:
                m.build(1, **mine)
            except ValueError as exc:
                raise CLIError(f"--methods {m.key}: {first_line(exc)}") from None
    check_outputs(args)
    given_corpus = [opt for opt, key, _ in CORPUS_ONLY if getattr(args, key, None)]
    for opt in ("ngrams", "chars"):  # train reads Reuters' texts for them; the protocol is words
        if getattr(args, opt):
            given_corpus.append(f"--{opt}")
    if given_corpus or args.weighting not in (None, "binary") or args.shuffle is not None:
        raise CLIError(f"{', '.join(given_corpus) or '--weighting/--shuffle'}: for --corpus; "
                       "--micro-breakeven runs the paper's protocol as published")
    if args.features == "all":
        raise CLIError("--features all is for --corpus; the paper's protocol selects features "
                       "by information gain: give a number (the paper: 1000)")
    return methods, overrides


def _paper_data(args):
    """The ModApte split with the paper's features; named categories must be learnable,
    'all' keeps the unlearnable ones with a warning."""
    data, training_set = paper_set(args, args.categories)
    logger.info("ModApte: %d training, %d test documents, %d features, %d categories",
                data.X_train.shape[0], data.X_test.shape[0], data.X_train.shape[1],
                len(data.categories))
    checked(args, training_set, "the ModApte training set")
    return data


def _eval_corpus(args):
    """Every method on the user's corpus: one row each, its summary and its time."""
    methods, given = checked_methods(
        CORPUS_METHODS if args.methods is None else args.methods, args)
    if given.get("lam") == "auto":  # not every method can choose lam: before any training
        methods = _able_to_choose_lam(args, methods)
    check_outputs(args)
    d = training_data(args, args.categories)  # texts: each method's TextClassifier's
    if args.auto:  # before any training
        check_auto(args, d)
    if given.get("lam") == "auto" and methods:
        warn_small_classes(d, "--lam auto")
    opts = fit_options(args)  # what every fit takes of the options
    rows, fitted = _method_rows(opts, methods, given, d, progress_enabled(args))
    if args.auto:
        row, auto_data = _auto_row(args, d)
        rows.append(row)
        fitted = fitted or auto_data
    d = fitted or d  # with the features of the methods' matrices
    chosen = {r["method"]: r["lam_by_cv"] for r in rows if "lam_by_cv" in r}
    if args.auto:
        chosen["auto"] = auto_curves(rows[-1]["auto"])
    plot_error = try_plot(chosen, args.plot) if args.plot is not None and chosen else None
    result = {"corpus": d.source, "task": d.task, **positive_label(d),
              "n_train": int(d.n_train), "n_test": int(d.n_test),
              "n_features": int(d.n_features),
              "categories": list(d.categories), "order": order_text(opts.order),
              "methods": rows, "corpus_report": d.report}
    if d.constant:  # categories without a break-even point, and why
        result["constant_models"] = d.constant
    if d.preprocessing:  # how the texts became rows: language, stems, n-grams
        result["features"] = d.preprocessing
    if args.json:
        print_json(result)
    else:
        _print_methods(d, result, chosen)
    return EXIT_OK if plot_error is None else plot_failed(plot_error)


def _able_to_choose_lam(args, methods):
    """The methods that can take --lam auto; one named in --methods that cannot is an
    error, one of the default list is left out."""
    able = []
    for m in methods:
        try:
            if "lam" in m.settings:
                m.build(1, lam="auto")
            able.append(m)
        except ValueError as exc:
            if args.methods is not None:
                raise CLIError(f"--methods {m.key}: {first_line(exc)}") from None
            logger.info("%s left out: it cannot choose lam by cross-validation", m.key)
    return able


def _method_rows(opts, methods, given, d, progress):
    """Each method fitted and tested on ``d``: its summary, settings and time; and ``d``
    with the features of the methods' (a text corpus's: the TextClassifier of the options
    that each method is the classifier of, fitted on the words found once)."""
    from .._ovr import ConstantModelWarning

    words = shared_words(d)
    rows = []
    with _progress_bar(progress, len(methods)) as bar:
        for method in methods:
            if bar is not None:
                bar.set_postfix_str(method.key)
            settings = method_settings(
                method, d, {k: v for k, v in given.items() if k in method.settings})
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", category=ConstantModelWarning)
                fit = (fit_task(method, d, settings, opts) if d.text is None
                       else fit_texts(method, d, settings, opts, words))
            if not rows:
                _log_data(fit.data)
            summary, _ = summarize(d, fit.scores)
            rows.append({"method": method.key, "paper_name": method.paper_name,
                         "settings": {**method.settings, **settings}, **summary,
                         "seconds": round(fit.seconds, 3)})
            cv = cv_summary(fit.estimator, list(d.problem_names))
            if cv is not None:  # --lam auto
                rows[-1]["lam_by_cv"] = cv
            logger.info("%s: %s in %.1f s", method.key, ", ".join(
                f"{SUMMARY_NAMES[k]} {fmt(v, 0)}" for k, v in summary.items()), fit.seconds)
            if bar is not None:
                bar.update()
    return rows, (fit.data if rows else None)


def _log_data(d):
    logger.info("%s: %d training, %d test documents, %d features, %d categories (%s)",
                d.source, d.n_train, d.n_test, d.n_features, len(d.categories), d.task)


def _auto_row(args, d):
    """The row of --auto: the SVM with its features and lambda chosen by cross-validation;
    and ``d`` with the features it chose."""
    fit = fit_auto(args, d, progress_enabled(args))
    summary, _ = summarize(fit.data, fit.scores, fit.thresholds)
    logger.info("auto: %s in %.1f s", ", ".join(
        f"{SUMMARY_NAMES[k]} {fmt(v, 0)}" for k, v in summary.items()), fit.seconds)
    return {"method": "auto", "paper_name": "SVM, features and lambda by cross-validation",
            "settings": fit.cv["chosen"], **summary, "seconds": round(fit.seconds, 3),
            "auto": fit.cv}, fit.data


@contextlib.contextmanager
def _progress_bar(progress, total):
    """A bar over the methods on a terminal (``progress``; None otherwise), closed on the
    way out."""
    if not progress:
        yield None
        return
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc="methods", unit="method", leave=False)
    try:
        yield bar
    finally:
        bar.close()


def _print_methods(d, result, chosen):
    """One row per method: its summary figures and its time."""
    rows = result["methods"]
    keys = [k for k in rows[0] if k in SUMMARY_NAMES]
    name_w = max(12, max(len(r["method"]) for r in rows) + 2)
    out(f"{d.source}: {result['n_train']} train / {result['n_test']} test documents, "
        f"{result['n_features']} features, {len(d.categories)} "
        f"{'classes' if d.task != 'multilabel' else 'categories'}; {task_text(d)}")
    out("method".ljust(name_w) + "".join(f"{SUMMARY_NAMES[k]:>11}" for k in keys)
        + f"{'time (s)':>10}")
    for r in rows:
        out(r["method"].ljust(name_w) + "".join(fmt(r[k], 11) for k in keys)
            + f"{r['seconds']:10.1f}")
    if constant_note(d):
        out(constant_note(d))
    for key, cv in chosen.items():
        out(auto_line(rows[-1]["auto"]) if key == "auto" else cv_line(cv, key))
    out(f"figures in percent on the test set; {result['order']}; lam = 1/n for "
        f"{', '.join(m for m in LAM_ONE_OVER_N if m in {r['method'] for r in rows})} "
        "unless --lam is given")


def _print_table(results, categories):
    """Categories down, methods across; each cell 'ours (paper)'."""
    name_w = max(14, max(len(c) for c in categories) + 2)
    col_w = max(14, max(len(r.method) for r in results) + 2)
    out("Break-even points (%) on the ModApte test set: ours (the paper's); then the "
        "macro-averaged break-even point and F1 at score > 0")
    out("".ljust(name_w) + "".join(r.method.rjust(col_w) for r in results))

    def cell(ours, paper):
        p = " " * 6 if paper is None else f"({paper:4.1f})"
        return f"{pct(ours)} {p}".rjust(col_w)

    for cat in categories:
        out(cat.ljust(name_w) + "".join(
            cell(r.breakeven.get(cat), r.paper_breakeven.get(cat)) for r in results))
    out("micro-average".ljust(name_w) + "".join(
        cell(r.micro_breakeven, r.paper_micro_breakeven) for r in results))
    for key, label in (("macro_breakeven", "macro-average"), ("micro_f1", "micro-F1"),
                       ("macro_f1", "macro-F1")):
        out(label.ljust(name_w) + "".join(
            (fmt(r.extra.get(key), 5) + " " * 7).rjust(col_w) for r in results))
    out("time (s)".ljust(name_w) + "".join(f"{r.seconds:.1f}".rjust(col_w - 7) + " " * 7
                                           for r in results))
