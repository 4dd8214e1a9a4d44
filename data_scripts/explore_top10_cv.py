"""Exploration: what DualGaussSeidelClassifierCV (5 folds of the ModApte training set,
lam per category) picks on Reuters top-10 tf-idf, for a few configurations, and the
test micro-BEP that follows (the test set is read once per configuration)."""
import sys
import time
import warnings

import numpy as np

from textwin import DualGaussSeidelClassifierCV
from textwin.metrics import micro_breakeven_point

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from winnow_corpora import cached, top10_ngrams, top10_tfidf  # noqa: E402

warnings.simplefilter("ignore")
corpus = sys.argv[1]
if corpus == "uni":
    Xtr, Ytr, Xte, Yte, _ = top10_tfidf()
else:
    Xtr, Ytr, Xte, Yte = cached("top10bi2", lambda: top10_ngrams(2, 2))
Ytr, Yte = np.asarray(Ytr), np.asarray(Yte)
for spec in sys.argv[2:]:
    kw = dict(v.split("=") for v in spec.split(":"))
    if "fit_intercept" in kw:
        kw["fit_intercept"] = kw["fit_intercept"] == "1"
    t = time.time()
    est = DualGaussSeidelClassifierCV(cv=5, random_state=0, n_jobs=2, **kw).fit(Xtr, Ytr)
    S = est.decision_function(Xte)
    cv = np.asarray(est.cv_scores_)
    print(f"{corpus} {spec:70s} test {100 * micro_breakeven_point(Yte, S):5.1f}  "
          f"lam {np.round(est.lam_, 6).tolist()}  {time.time() - t:.0f}s", flush=True)
    np.save(f"/tmp/top10_{corpus}_{abs(hash(spec))}.npy", S)
