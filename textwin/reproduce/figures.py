"""The report's two figures: Figure 1 of *Regularized Winnow methods* (test accuracy
against lambda) and the precision-recall curves of one Reuters category."""
from __future__ import annotations

import io

from .._io import atomic_write
from ..metrics import breakeven_point
from .plan import SYNTHETIC_ONLINE, SYNTHETIC_REGULARIZED


def _save_png(fig, path):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    with atomic_write(path) as fh:
        fh.write(buf.getvalue())


def figure_lambda(result, plan, path):
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
    _save_png(fig, path)
    plt.close(fig)


def figure_pr(y_test, curves, category, path):
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
    ax.set_title(f"Reuters ModApte, category {category}: precision against recall")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower left")
    _save_png(fig, path)
    plt.close(fig)
