"""Exploration (test-set figures, never used to choose anything shipped): the
automatic scale -- prior mass A = ||w_sq||_1 of the same problem under the square
regularizer at the same lam, kernel lam = lam * A / d -- against the SVM, per lam."""
import sys
import time
import warnings

import numpy as np

from textwin import DualGaussSeidelClassifier
from textwin.metrics import micro_breakeven_point

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from winnow_corpora import cached, single_label, top10_tfidf  # noqa: E402

warnings.simplefilter("ignore")
name = sys.argv[1]
if name == "top10":
    Xtr, Ytr, Xte, Yte, _ = top10_tfidf()
    cols = [Ytr[:, k] for k in range(Ytr.shape[1])]
else:
    args = {"r8": ("r8", 1), "r52": ("r52", 1), "r52bi2": ("r52", 2, None, 2)}[name]
    Xtr, ytr, Xte, yte = cached(name, lambda: single_label(*args))
    classes = np.unique(ytr)
    cols = [(ytr == c).astype(int) for c in classes]
n, d = Xtr.shape
loss = sys.argv[2]
regs = sys.argv[3].split(",")
lams = [float(x) for x in sys.argv[4].split(",")]


def fit_scores(reg, lam):
    S = np.empty((Xte.shape[0], len(cols)))
    epochs = 0
    for k, y in enumerate(cols):
        sq = DualGaussSeidelClassifier(loss=loss, lam=lam, random_state=0).fit(Xtr, y)
        if reg == "square":
            m = sq
        else:
            A = np.abs(sq.coef_).sum()
            kw = dict(mass=A) if "normalized" in reg else dict(
                prior=A / (2 * d) if reg.startswith("balanced") else A / d)
            m = DualGaussSeidelClassifier(loss=loss, regularizer=reg, lam=lam * A / d,
                                          random_state=0, **kw).fit(Xtr, y)
        epochs = max(epochs, m.n_iter_.max())
        S[:, k] = m.decision_function(Xte)
    return S, epochs


for lam in lams:
    for reg in regs:
        t = time.time()
        S, ep = fit_scores(reg, lam)
        if name == "top10":
            score = 100 * micro_breakeven_point(Yte, S)
        else:
            score = 100 * np.mean(classes[S.argmax(1)] == yte)
        print(f"{name} {loss} {reg:30s} lam={lam:g}  {score:5.1f}  max epochs {ep}  {time.time()-t:.1f}s",
              flush=True)
