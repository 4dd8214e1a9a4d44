"""The halving's margin against every window of folds: would it drop a challenger that wins?

On each corpus of ``bench_corpora.py``, ``TextClassifierCV(halving=False)`` (every setting
on every fold, as ``--auto`` searches otherwise) keeps each setting's out-of-fold scores;
then every challenger (a setting tried beside the best so far: bigrams, character
n-grams) is judged as the halving judges it (``TextClassifierCV._lost``), not only on the
first 2 and 3 folds, where the search looks, but on every window of 2 and 3 consecutive
folds: its deficit there (its best mean at any lam and rule, minus the best setting's at
its choice), in units of the margin (the standard error of a mean over those folds), and
whether it drops there. A challenger that wins on all the folds should drop on no window;
one that loses may. One thread.

    python benchmarks/bench_halving.py [--corpora r52 reuters90 ...] [--json PATH]
"""
import copy
import sys
import warnings

import numpy as np
from bench_corpora import ROOT, _built_in_place
from bench_early_stop import corpus_data, run_on_corpora

if _built_in_place():
    sys.path.insert(0, ROOT)


def settings_scores(data):
    """Every setting's described name, out-of-fold scores (all lams), folds' scores and
    the search's judge, in the order the search tried them; and the search."""
    from textwin import TextClassifierCV
    from textwin.model_selection import _text_search

    kept = []
    paths = _text_search.TextClassifierCV._paths

    def keeping(self, matrices, Y, task, folds, grid, variant, judge, bar, budget, described,
                *rest):
        S, W, lost = paths(self, matrices, Y, task, folds, grid, variant, judge, bar, budget,
                           described, *rest)
        kept.append((described, S.copy(), W, judge))
        return S, W, lost

    y = data.Y_train if data.multilabel else np.asarray(data.classes)[data.y_train]
    _text_search.TextClassifierCV._paths = keeping
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            search = TextClassifierCV(halving=False, n_jobs=1).fit(data.train, y)
    finally:
        _text_search.TextClassifierCV._paths = paths
    return kept, search


def windows(kept, search, n_challengers):
    """Each challenger's deficit on every window of 2 and 3 consecutive folds."""
    from textwin.model_selection._choice import shared_choice
    from textwin.model_selection._choice import at_the_choices

    def score(W):  # the setting's score at its choice, as the search compares them
        return max(mean[i] for i, mean, _ in (shared_choice(w, True) for w in W.values()))

    out = []
    first = len(kept) - n_challengers
    for j in range(first, len(kept)):
        name, S, W, judge = kept[j]
        inc = max(range(j), key=lambda i: (score(kept[i][2]), -i))  # the best so far
        _, S_inc, W_inc, _ = kept[inc]
        incumbent = (at_the_choices(S_inc, W_inc, True), W_inc)
        F = next(iter(W.values())).shape[0]
        rows = []
        for k in (2, 3):
            for start in range(F - k + 1):
                order = np.roll(np.arange(F), -start)  # the window's folds first
                renumbered = copy.copy(judge)
                renumbered.fold_of = np.argsort(order)[judge.fold_of]
                judged = renumbered.first(k)
                reached = ~np.isnan(S).all(axis=(0, 1))  # the lams the search solved
                shown = {r: judged(S[:, :, reached], r) for r in judge.rules}
                lost = search._lost(incumbent, judged, shown)
                rows.append({"folds": [int(f) for f in order[:k]], "deficit": lost["deficit"],
                             "drops": lost["lost"]})
        out.append({"challenger": name, "incumbent": kept[inc][0],
                    "wins": bool(score(W) > score(W_inc)),
                    "full_difference": float(score(W) - score(W_inc)), "windows": rows})
    return out


def run_corpus(name, corpora_dir, workdir, smoke=False):
    data = corpus_data(name, corpora_dir, workdir, smoke)
    kept, search = settings_scores(data)
    tried = [p for p in search.cv_results_["params"]]
    words = {(p["stem"], p["nb_scaling"]) for p in tried if p["ngrams"] == 1 and not p["chars"]}
    n_challengers = len(kept) - len(words)
    return {"corpus": name, "n_train": len(data.train),
            "challengers": windows(kept, search, n_challengers)}


def show(r):
    for c in r["challengers"]:
        worst = min(w["deficit"] for w in c["windows"])
        first = [w for w in c["windows"] if w["folds"][0] == 0]
        print(f"{r['corpus']:18}{c['challenger']:34}{'wins' if c['wins'] else 'loses':6}"
              f"{100 * c['full_difference']:+7.2f}  first 2 / 3 folds: "
              + " / ".join(f"{w['deficit']:+.2f}{' drop' if w['drops'] else ''}"
                           for w in first)
              + f"; worst window {worst:+.2f}, drops on "
              f"{sum(w['drops'] for w in c['windows'])} of {len(c['windows'])}", flush=True)


def main():
    run_on_corpora(__doc__.splitlines()[0],
                   f"{'corpus':18}{'challenger':34}{'':6}{'CV diff':>7}  deficits in margins "
                   "(the standard error of a mean over the window's folds; drops below -1)",
                   (lambda args, name, workdir:
                    run_corpus(name, args.corpora_dir, workdir, args.smoke)),
                   show, "bench_halving")


if __name__ == "__main__":
    main()
