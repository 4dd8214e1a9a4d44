"""What `textwin train` and `textwin eval` print of a fit beside their tables: the task
and the example order in words, the summary's names, the constant models, the lines of
``--lam auto``, ``--auto`` and ``--tune-thresholds`` and the plot of the first two.
"""
from __future__ import annotations

import importlib.util
import io
from pathlib import Path

from .._io import atomic_write, figure_metadata, is_textwin_figure
from .common import SHOWN_ROWS, CLIError, check_destination, fail, first_names, logger


def order_text(order):
    """The example ``order`` (:func:`~textwin.cli.training.example_order`) in words."""
    if not order:
        return "the method's own example order"
    if order["shuffle"]:
        return f"a random example order each epoch (seed {order['random_state']})"
    return "examples in data order"


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


def tuning_line(tuning, task, rows):
    """One line: the thresholds tuned, and for what."""
    what = ("class thresholds (subtracted from the scores before the argmax)"
            if task == "multiclass" else "thresholds")
    return (f"precision, recall and F1 at {what} tuned for {tuning['metric']} by "
            f"{tuning['folds']}-fold cross-validation on the training set: "
            + first_names([f"{r['category']} {r['threshold']:.3g}" for r in rows],
                          shown=SHOWN_ROWS))


def setting_text(params):
    """A combination of settings in words: 'stems and bigrams, naive Bayes scaling, bias'."""
    chars = params.get("chars")
    parts = [("stems" if params["stem"] else "words")
             + (" and bigrams" if params["ngrams"] == 2 else "")
             + (f" and character {chars[0]}-{chars[1]}-grams" if chars else "")]
    if params["nb_scaling"]:
        parts.append("naive Bayes scaling")
    if params["fit_intercept"]:
        parts.append("bias")
    if params.get("class_weight"):
        parts.append(f"{params['class_weight']} class weights")
    if params["loss"] != "hinge":
        parts.append(f"{params['loss']} loss")
    if params.get("rule", "zero") != "zero":
        parts.append(_RULE_TEXT[params["rule"]])
    return ", ".join(parts)


_RULE_TEXT = {"f1": "thresholds tuned for F1", "accuracy": "a cut tuned for accuracy",
              "macro-f1": "a cut tuned for macro-F1"}


def auto_curves(summary):
    """``summary``'s curves as ``--lam auto``'s plot takes them: the score of every
    combination against lambda (None where its paths stopped), the chosen combination's
    lambda starred."""
    n = summary["n_train"]
    lams = [x / n for x in summary["lam_n"]]
    curves = {setting_text(c["params"]): c["scores"] for c in summary["curves"]}
    chosen = summary["chosen"]
    lam = min(lams, key=lambda x: abs(x - chosen["lam"]))
    return {"scoring": summary["scoring"], "lams": lams, "curves": curves,
            "lam": {setting_text(chosen): lam}}


def auto_line(summary):
    """One line: what --auto chose and its cross-validated score."""
    c = summary["chosen"]
    lam = f"lambda {c['lam']:.3g} (C = {c['C']:.3g})"
    why_not = summary.get("chars_searched")
    return (f"--auto chose by {summary['folds']}-fold cross-validation on the training set "
            f"({summary['scoring']} {100 * summary['cv_score']:.2f}): "
            f"{setting_text(c)}, {lam}"
            + (f"; searched on a sample of {summary['n_searched']:,} of the "
               f"{summary['n_train']:,} training documents (--search-texts), fitted on all"
               if summary.get("n_searched", summary["n_train"]) < summary["n_train"] else "")
            + (f"; character n-grams {why_not} (--chars 2-5 adds them)"
               if isinstance(why_not, str) else "")
            + "".join(f"; dropped after {d['folds']} of {d['of']} folds (at most "
                      f"{100 * d['score']:.2f} there, against {100 * d['best_score']:.2f}): "
                      f"{setting_text(d['params'])}" for d in summary.get("dropped", ())))


def check_outputs(args):
    """The files a command writes, checked before any training: --plot (matplotlib
    present, the file writable), then --output's model file (new, empty, or a model file
    textwin wrote, unless --force)."""
    _check_plot(args)
    if getattr(args, "output", None) is not None:
        from ..persistence import is_model_file

        check_destination(args.output, "model", is_model_file, args)


def _check_plot(args):
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
