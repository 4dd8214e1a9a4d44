"""The report's two figures: Figure 1 of *Regularized Winnow methods* (test accuracy
against lambda) and the precision-recall curves of one Reuters category."""
from __future__ import annotations

import io
import struct

from .._io import atomic_write, is_matplotlib_figure
from ..metrics import breakeven_point
from .plan import SYNTHETIC_ONLINE, SYNTHETIC_REGULARIZED

#: The figures a run draws, in the --figures folder.
FIGURE_NAMES = ("regularized_winnow_lambda.png", "precision_recall.png")

# Each PNG says which run drew it (a tEXt chunk), so that --quick never replaces
# a full run's figure.
_MARK_KEY = "Description"
_MARK = "textwin reproduce, {} run"


def figure_run(path):
    """Which run drew the figure at ``path``: "quick" or "full" (its mark says so),
    "unmarked" for another matplotlib figure (such as a full run's before the mark),
    None for any other file."""
    mark = _png_text(path).get(_MARK_KEY)
    for run in ("quick", "full"):
        if mark == _MARK.format(run):
            return run
    return "unmarked" if is_matplotlib_figure(path) else None


def _png_text(path, limit=65536):
    """The tEXt chunks before a PNG's image data, as {keyword: text}; {} if not a PNG."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(limit)
    except OSError:
        return {}
    if not head.startswith(b"\x89PNG\r\n\x1a\n"):
        return {}
    text, i = {}, 8
    while i + 8 <= len(head):
        length, kind = struct.unpack(">I4s", head[i:i + 8])
        if kind == b"IDAT":
            break
        if kind == b"tEXt":
            key, _, value = head[i + 8:i + 8 + length].partition(b"\0")
            text[key.decode("latin-1")] = value.decode("latin-1")
        i += 12 + length
    return text


def _save_png(fig, path, run):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight",
                metadata={_MARK_KEY: _MARK.format(run)})
    with atomic_write(path) as fh:
        fh.write(buf.getvalue())


def figure_lambda(result, plan, path):
    """Figure 1 of *Regularized Winnow methods*: test accuracy against lambda."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(plan.dims), figsize=(5.2 * len(plan.dims), 4), squeeze=False)
    for ax, d in zip(axes[0], plan.dims):
        for name, style in zip(SYNTHETIC_REGULARIZED, ("-o", "-s", "-^")):
            acc = 100 * result.curves[d, name]
            mean, std = acc.mean(axis=0), acc.std(axis=0)
            line, = ax.semilogx(result.lams, mean, style, ms=4, label=name)
            ax.fill_between(result.lams, mean - std, mean + std, alpha=0.15,
                            color=line.get_color())
        for name, style in zip(SYNTHETIC_ONLINE, (":", "--", "-.")):
            ax.axhline(100 * result.online[d, name].mean(), ls=style, lw=1, color="gray",
                       label=f"{name} (no lambda)")
        ax.set_xlabel("lambda = 1/(n C)")
        ax.set_ylabel("test accuracy (%)")
        ax.set_title(f"d = {d}, mean over {plan.draws} draws (band: +/- std)")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8, loc="lower left")
    _save_png(fig, path, plan.name)
    plt.close(fig)


def figure_pr(y_test, curves, plan, path):
    """Precision against recall on the plan's category, one curve per method."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.metrics import precision_recall_curve

    fig, ax = plt.subplots(figsize=(6, 5))
    for key, scores in curves.items():
        precision, recall, _ = precision_recall_curve(y_test, scores)
        bep = breakeven_point(y_test, scores)
        ax.plot(recall, precision, lw=1.3, label=f"{key} (BEP {100 * bep:.1f})")
    ax.plot([0, 1], [0, 1], color="gray", lw=0.6, ls=":")
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.set_xlim(0, 1.01)
    ax.set_ylim(0, 1.01)
    ax.set_title(f"Reuters ModApte, category {plan.pr_category}: precision against recall")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower left")
    _save_png(fig, path, plan.name)
    plt.close(fig)
