"""Exploration (test-set figures, never used to choose anything shipped): how the
entropies' scale (prior mu, mass A) and lam interact on Reuters top-10 tf-idf."""
import sys
import time
import warnings

import numpy as np

from textwin import DualGaussSeidelClassifier
from textwin.metrics import micro_breakeven_point

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from winnow_corpora import top10_tfidf  # noqa: E402

warnings.simplefilter("ignore")
Xtr, Ytr, Xte, Yte, names = top10_tfidf()
n, d = Xtr.shape
print("top10 tfidf", Xtr.shape)


def run(label, **kw):
    t = time.time()
    m = DualGaussSeidelClassifier(n_jobs=2, random_state=0, **kw).fit(Xtr, Ytr)
    S = m.decision_function(Xte)
    bep = 100 * micro_breakeven_point(Yte, S)
    l1 = np.abs(m.coef_).sum(1)
    print(f"{label:60s} BEP {bep:5.1f}  |w|_1 med {np.median(l1):8.3g}  max|w| {np.abs(m.coef_).max():.3g}"
          f"  gap {m.duality_gap_.max():.1e} ep {m.n_iter_.max()} {time.time()-t:.1f}s", flush=True)
    return m


mode = sys.argv[1] if len(sys.argv) > 1 else "svm"
if mode == "svm":
    for lam in (1e-3, 3e-4, 1e-4, 3e-5, 1e-5):
        run(f"svm hinge lam={lam:g}", loss="hinge", lam=lam)
        run(f"sq_hinge square lam={lam:g}", loss="squared_hinge", lam=lam)
elif mode == "bal":
    loss = sys.argv[2]
    for s in [float(x) for x in sys.argv[3].split(",")]:  # prior per feature
        for lam_r in [float(x) for x in sys.argv[4].split(",")]:  # ridge-equivalent lam
            run(f"{loss} balanced_entropy mu={s:g} lam_r={lam_r:g}", loss=loss,
                regularizer="balanced_entropy", prior=s, lam=2 * s * lam_r)
elif mode == "baln":
    loss = sys.argv[2]
    for A in [float(x) for x in sys.argv[3].split(",")]:
        for lam_r in [float(x) for x in sys.argv[4].split(",")]:
            run(f"{loss} bal_norm A={A:g} lam_r={lam_r:g}", loss=loss,
                regularizer="balanced_normalized_entropy", mass=A, lam=A / d * lam_r)
