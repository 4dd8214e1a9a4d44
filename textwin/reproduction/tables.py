"""The report's tables in Markdown: the Reuters tables, the alternatives, the
synthetic tables and the summary, with the targets they are judged by."""
from __future__ import annotations

import numpy as np

from ..experiments import METHODS
from .plan import (CATEGORY_TARGET, MICRO_TARGET, SYNTHETIC_ORDER, SYNTHETIC_PAPER,
                   SYNTHETIC_REGULARIZED)
from .synthetic import synthetic_summary


def _diff(ours, paper):
    return None if ours is None or paper is None else ours - paper


def _signed(x):
    return "-" if x is None else f"{x:+.1f}"


def _yes(ok):
    return "yes" if ok else "**no**"


def pct(x):
    """A fraction in percent; None for a missing or undefined figure."""
    return None if x is None or not np.isfinite(x) else 100.0 * x


def reuters_table(results, categories, with_paper=True):
    """Break-even points per category (rows) and method (columns), paper in parentheses."""
    head = "| category | " + " | ".join(f"`{r.method}`" for r in results) + " |"
    lines = [head, "|---|" + "---:|" * len(results)]

    def cell(ours, paper):
        if ours is None:
            return "-"
        return f"{ours:.1f} ({paper:.1f})" if (with_paper and paper is not None) else f"{ours:.1f}"

    for c in categories:
        lines.append(f"| {c} | " + " | ".join(
            cell(pct(r.breakeven[c]), r.paper_breakeven.get(c)) for r in results) + " |")
    lines.append("| **micro-average** | " + " | ".join(
        "**" + cell(pct(r.micro_breakeven), r.paper_micro_breakeven) + "**"
        for r in results) + " |")
    lines.append("| training + test time (s) | " + " | ".join(
        f"{r.seconds:.1f}" for r in results) + " |")
    return "\n".join(lines)


def category_misses(result):
    """[(category, ours, paper, diff)] for categories outside the 3-point target."""
    out = []
    for c, paper in result.paper_breakeven.items():
        ours = pct(result.breakeven.get(c))
        if ours is not None and abs(ours - paper) > CATEGORY_TARGET:
            out.append((c, ours, paper, ours - paper))
    return out


def _categories_within(result):
    pairs = [(c, p) for c, p in result.paper_breakeven.items()
             if pct(result.breakeven.get(c)) is not None]
    hit = sum(abs(pct(result.breakeven[c]) - p) <= CATEGORY_TARGET for c, p in pairs)
    return hit, len(pairs)


def alternatives_table(alternatives, results):
    """One row per alternative setting: its micro-average against the table row's and the paper's."""
    by_key = {r.method: r for r in results}
    lines = ["| method | alternative | micro-BEP | vs table row | vs paper | categories "
             "within 3 | time (s) |", "|---|---|---:|---:|---:|---:|---:|"]
    for a in alternatives:
        r = by_key.get(a.method)
        ours = pct(r.micro_breakeven) if r else None
        paper = r.paper_micro_breakeven if r else None
        hit = ["-"]
        if r and r.paper_breakeven:
            pairs = [(c, p) for c, p in r.paper_breakeven.items() if c in a.breakeven]
            hit = [f"{sum(abs(100 * a.breakeven[c] - p) <= CATEGORY_TARGET for c, p in pairs)}"
                   f"/{len(pairs)}"]
        lines.append(f"| `{a.method}` | {a.label} | {100 * a.micro:.1f} | "
                     f"{_signed(_diff(100 * a.micro, ours))} | "
                     f"{_signed(_diff(100 * a.micro, paper))} | {hit[0]} | {a.seconds:.1f} |")
    return "\n".join(lines)


def synthetic_table(result, plan, protocol):
    """Mean ± std accuracy per dimension and method; lambda by ``protocol`` ("test" or
    "validation")."""
    lines = ["| d | " + " | ".join(SYNTHETIC_ORDER) + " |", "|---|" + "---:|" * 6]
    for d in plan.dims:
        cells = []
        for name in SYNTHETIC_ORDER:
            s = synthetic_summary(result, d, name)
            paper = SYNTHETIC_PAPER.get(d, {}).get(name)
            mean, std = ((s["val_mean"], s["val_std"]) if protocol == "validation"
                         and name in SYNTHETIC_REGULARIZED else (s["mean"], s["std"]))
            cell = f"{mean:.1f} ± {std:.1f}"
            if paper is not None:
                cell += f" ({paper:.1f})"
            if name in SYNTHETIC_REGULARIZED:
                if protocol == "validation":
                    lo, hi = min(s["val_lams"]), max(s["val_lams"])
                    cell += (f"<br>lambda {lo:.3g}" if lo == hi else
                             f"<br>lambda {lo:.3g} to {hi:.3g}")
                else:
                    cell += f"<br>lambda {s['lam']:.3g}"
            cells.append(cell)
        lines.append(f"| {d} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def grid_edges(results, plan):
    """The best lambdas that sit at an end of the grid (the optimum may lie beyond)."""
    out = []
    for res in results:
        for d in plan.dims:
            for name in SYNTHETIC_REGULARIZED:
                lam = synthetic_summary(res, d, name)["lam"]
                if lam in (max(plan.lams), min(plan.lams)):
                    out.append(f"{name}, d = {d}, {res.reading}: lambda {lam:.3g}")
    return out


def target_table(results, plan):
    """Test accuracy of the target hyperplane itself, per reading of the noise."""
    lines = ["| reading | d | w'x >= 2 (the target) | w'x >= 3 |", "|---|---|---:|---:|"]
    for res in results:
        for d in plan.dims:
            lines.append(f"| {res.reading} | {d} | "
                         f"{100 * res.targets[d, 'target 2'].mean():.1f} | "
                         f"{100 * res.targets[d, 'target 3'].mean():.1f} |")
    return "\n".join(lines)


def synthetic_ok(mean, std, paper):
    """On target: the paper's figure within max(1 point, 2 std) of our mean."""
    return abs(mean - paper) <= max(MICRO_TARGET, 2 * std)


def summary_table(results, synths, plan):
    """Every paper figure against ours, with whether it is on target."""
    lines = ["| figure | paper | ours | difference | within target |",
             "|---|---:|---:|---:|:---:|"]
    for r in results:
        hit, n = _categories_within(r)
        if r.paper_micro_breakeven is not None:
            ours = pct(r.micro_breakeven)
            dm = ours - r.paper_micro_breakeven
            lines.append(f"| Reuters micro-BEP, `{r.method}` | {r.paper_micro_breakeven:.1f} | "
                         f"{ours:.1f} | {dm:+.1f} | {_yes(abs(dm) <= MICRO_TARGET)} |")
        if n:
            lines.append(f"| Reuters per-category BEP, `{r.method}` | {n} figures | "
                         f"{hit} within {CATEGORY_TARGET:.0f} points | - | {_yes(hit == n)} |")
    for d in plan.dims:
        for name in SYNTHETIC_ORDER:
            paper = SYNTHETIC_PAPER.get(d, {}).get(name)
            if paper is None:
                continue
            cells = [synthetic_summary(res, d, name) for res in synths]
            lines.append(
                f"| synthetic d = {d}, {name} (mean ± std of {plan.draws} draws; "
                + " / ".join(res.reading for res in synths) + f") | {paper:.1f} | "
                + " / ".join(f"{c['mean']:.1f} ± {c['std']:.1f}" for c in cells) + " | "
                + " / ".join(f"{c['mean'] - paper:+.1f}" for c in cells) + " | "
                + " / ".join(_yes(synthetic_ok(c["mean"], c["std"], paper)) for c in cells)
                + " |")
    return "\n".join(lines)


def settings_line(key):
    """A registry method's settings on one line."""
    m = METHODS[key]
    return f"`{key}`: " + ", ".join(f"{k} = {v}" for k, v in m.settings.items())
