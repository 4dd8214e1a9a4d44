"""Exploration behind docs/reproduction.md's notes on the Reuters misses (not part of the report run).

Runs alternatives to the reconstructed settings and prints micro-BEPs:
per-category information gain, Winnow/regularized-Winnow norm A, Perceptron rescaling,
Algorithm 2's rho0. Usage: python data_scripts/explore_reuters_misses.py
"""
import sys
import time

import numpy as np

from textwin.datasets import load_reuters_vectorized
from textwin.experiments import METHODS, TOP10, load_protocol_data, run_micro_breakeven, score_matrix
from textwin.feature_selection import InformationGain
from textwin.metrics import micro_breakeven_point


def per_category(keys, k=1000, overrides=None):
    data = load_reuters_vectorized(weighting="binary")
    names = list(data.target_names)
    Ytr = np.asarray(data.Y_train.toarray() if hasattr(data.Y_train, "toarray") else data.Y_train)
    Yte = np.asarray(data.Y_test.toarray() if hasattr(data.Y_test, "toarray") else data.Y_test)
    sel = InformationGain(k=k, scope="per_category").fit(data.X_train, Ytr)
    S = sel.scores_per_category_
    out = {}
    for key in keys:
        scores = np.zeros((Yte.shape[0], len(TOP10)))
        t0 = time.perf_counter()
        for j, cat in enumerate(TOP10):
            c = names.index(cat)
            cols = np.argsort(-S[c], kind="stable")[:k]
            est = METHODS[key].build(data.X_train.shape[0], **(overrides or {}).get(key, {}))
            est.fit(data.X_train[:, cols].tocsr(), Ytr[:, c])
            scores[:, j] = score_matrix(est, data.X_test[:, cols].tocsr())[:, 0]
        Y = Yte[:, [names.index(c) for c in TOP10]]
        out[key] = 100 * micro_breakeven_point(Y, scores)
        print(f"per-category IG {key}: {out[key]:.1f} ({time.perf_counter()-t0:.1f}s)", flush=True)
    return out


if __name__ == "__main__":
    data = load_protocol_data()
    for key, ov in [("winnow", {}), ("winnow", {"theta": 0.05}), ("winnow", {"theta": 0.2}),
                    ("winnow", {"eta": 0.01}), ("winnow", {"eta": 0.0001}),
                    ("rwinnow", {"epochs": 1000}), ("rwinnow", {"gamma": 0.05}),
                    ("perceptron", {}), ("svm-alg2", {}), ("mls", {"epochs": 1000})]:
        r = run_micro_breakeven([key], data=data, overrides={key: ov})[0]
        print(key, ov, f"{100*r.micro_breakeven:.1f}", flush=True)
    from textwin.online import Perceptron, Winnow
    from textwin.linear import RegularizedWinnow
    for name, est in [("perceptron no-renorm", Perceptron(renormalize=False, shuffle=False)),
                      ("winnow A=2", Winnow(mass=2.0, shuffle=False)),
                      ("winnow A=0.5", Winnow(mass=0.5, shuffle=False)),
                      ("rwinnow A=2", RegularizedWinnow(mass=2.0, shuffle=False)),
                      ("rwinnow A=0.5", RegularizedWinnow(mass=0.5, shuffle=False)),
                      ("rwinnow A=2 theta=.2", RegularizedWinnow(mass=2.0, theta=0.2, shuffle=False)),
                      ("rwinnow A=4 theta=.4", RegularizedWinnow(mass=4.0, theta=0.4, shuffle=False))]:
        est.fit(data.X_train, data.Y_train)
        print(name, f"{100*micro_breakeven_point(data.Y_test, score_matrix(est, data.X_test)):.1f}", flush=True)
    per_category(["winnow", "rwinnow", "perceptron", "svm-alg2", "mls", "winnow-0.3", "rwinnow-0.3"])
