"""Exploration (test-set figures, never used to choose anything shipped): the
entropies' scale on single-label corpora (R8, R52, R52 with bigrams)."""
import sys
import time
import warnings

import numpy as np

from textwin import DualGaussSeidelClassifier, RegularizedWinnow

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from winnow_corpora import cached, single_label  # noqa: E402

warnings.simplefilter("ignore")
name = sys.argv[1]
args = {"r8": ("r8", 1), "r52": ("r52", 1), "r52bi2": ("r52", 2, None, 2)}[name]
Xtr, ytr, Xte, yte = cached(name, lambda: single_label(*args))
n, d = Xtr.shape
print(name, Xtr.shape)


def run(label, est):
    t = time.time()
    m = est.set_params(n_jobs=2, random_state=0).fit(Xtr, ytr)
    acc = 100 * np.mean(m.predict(Xte) == yte)
    sc = m.decision_function(Xte)
    l1 = np.abs(m.coef_).sum(1)
    print(f"{label:55s} acc {acc:5.1f} score-std {np.median(sc.std(0)):.2g} |w|_1 med {np.median(l1):8.3g}"
          f"  gap {m.duality_gap_.max():.1e} ep {m.n_iter_.max()} {time.time()-t:.1f}s", flush=True)
    return m


for spec in sys.argv[2:]:
    kind, *vals = [s for s in spec.split(":") if s]
    kw = dict(v.split("=") for v in vals)
    kw = {k: (float(v) if k not in ("loss", "regularizer", "mass") else v) for k, v in kw.items()}
    if "mass" in kw and kw["mass"] != "prior":
        kw["mass"] = float(kw["mass"])
    if "lam_r" in kw:  # ridge-equivalent lam: lam = lam_r * A / d
        kw["lam"] = kw.pop("lam_r") * kw.get("mass", 1.0) / d
    est = RegularizedWinnow(**kw) if kind == "rw" else DualGaussSeidelClassifier(**kw)
    run(spec, est)
