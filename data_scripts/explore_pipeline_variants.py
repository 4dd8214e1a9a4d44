"""Which pipeline and baseline details explain the Reuters misses (docs/reproduction.md)?

Builds the ModApte matrices under variants of the text pipeline, the
information-gain selection and the training/test sets, and reruns, for each
variant, the SVM (scikit-learn LinearSVC, hinge, lam = 1e-3: the converged SVM
equals libsvm and this is the fast probe), the Perceptron, Winnow and regularized
Winnow with the paper's settings from ``textwin.experiments.METHODS``. Then the
online baselines are rerun under readings of the paper's text that textwin does
not offer (Perceptron rescaled to another norm, Winnow renormalized at the end
of each epoch, prediction rule ``>`` instead of ``>=``), with kernels compiled
from ``_explore_online_variants.pyx`` by pyximport. Last, the interest category.

Usage::

    TEXTWIN_DATA_HOME=/work/shared python data_scripts/explore_pipeline_variants.py \
        [--json out.json] [--only base,text,ig,sets,sets2,online,order,combo,interest]

Each row prints the micro-BEP per method, the paper's beside it, and the number
of categories within 3 points. Not part of the report run.
"""
import argparse
import hashlib
import json
import os
import re
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from textwin.datasets import load_reuters_vectorized
from textwin.datasets import _reuters as R
from textwin.experiments import METHODS, TOP10
from textwin.feature_selection import InformationGain
from textwin.metrics import breakeven_points, micro_breakeven_point
from textwin.text import TextVectorizer

HERE = Path(__file__).resolve().parent
PAPER = {
    "svm": (91.0, METHODS["smo"].paper_breakeven),
    "svm-alg2": (91.2, METHODS["svm-alg2"].paper_breakeven),
    "perceptron": (88.5, METHODS["perceptron"].paper_breakeven),
    "winnow": (83.0, METHODS["winnow"].paper_breakeven),
    "rwinnow": (86.3, METHODS["rwinnow"].paper_breakeven),
}
MAIN_METHODS = ("svm", "perceptron", "winnow", "rwinnow")
CACHE = Path(os.environ.get("TEXTWIN_CACHE_DIR", "/tmp/textwin-cache-inv")) / "explore_variants"


# ---------------------------------------------------------------------------
# Text variants: count matrices over the 118 categories
# ---------------------------------------------------------------------------

_REUTERS = re.compile(r"<REUTERS([^>]*)>(.*?)</REUTERS>", re.S)
_NEWID = re.compile(r'NEWID="(\d+)"')
_TEXT = re.compile(r"<TEXT[^>]*>(.*?)</TEXT>", re.S)
_DATELINE = re.compile(r"<DATELINE>(.*?)</DATELINE>", re.S)
_TAG = re.compile(r"<[^>]+>")


def raw_fields():
    """NEWID -> (dateline, whole TEXT without tags), read straight from the SGML."""
    corpus = R._locate_corpus(None, False)
    out = {}
    for name in R.SGML_FILES:
        text = (corpus / name).read_bytes().decode("latin-1")
        for attrs, content in _REUTERS.findall(text):
            newid = int(_NEWID.search(attrs).group(1))
            t = _TEXT.search(content)
            inside = t.group(1) if t else ""
            d = _DATELINE.search(inside)
            whole = _TAG.sub(" ", inside).replace("&lt;", "<").replace("&amp;", "&")
            whole = re.sub(r"&#\d+;", " ", whole)
            out[newid] = (d.group(1).strip() if d else "", whole)
    return out


def modapte_docs():
    corpus = R._locate_corpus(None, False)
    docs = R._documents(corpus, R._corpus_digest(corpus))
    return R._modapte(docs)


TEXT_VARIANTS = {
    # name: (text field, token pattern, stem, lower-case before stemming)
    "default (title+body, letters)": ("title+body", r"[^\W\d_]+", True, True),
    "alnum tokens [a-z0-9]+": ("title+body", r"[^\W_]+", True, True),
    "tokens keep internal . and -": ("title+body", r"[^\W\d_]+(?:[.\-][^\W\d_]+)*", True, True),
    "title+dateline+body": ("title+dateline+body", r"[^\W\d_]+", True, True),
    "whole <TEXT> (author, dateline)": ("whole", r"[^\W\d_]+", True, True),
    "lower-case after stemming": ("title+body", r"[^\W\d_]+", True, False),
    "no stemming": ("title+body", r"[^\W\d_]+", False, True),
}


def build_text_variant(name):
    """(X_train counts, X_test counts, Y_train (118), Y_test, category names)."""
    field, pattern, stem, lower_first = TEXT_VARIANTS[name]
    key = hashlib.sha256(repr(TEXT_VARIANTS[name]).encode()).hexdigest()[:16]
    path = CACHE / f"{key}.npz"
    train, test = modapte_docs()
    names = sorted(set(R._category_counts(train)) | set(R._category_counts(test)))
    Ytr, Yte = R._indicator(train, names), R._indicator(test, names)
    if path.exists():
        z = np.load(path)
        Xtr = sp.csr_matrix((z["trd"], z["tri"], z["trp"]), shape=tuple(z["trs"]))
        Xte = sp.csr_matrix((z["ted"], z["tei"], z["tep"]), shape=tuple(z["tes"]))
        return Xtr, Xte, Ytr, Yte, names
    raw = raw_fields() if field != "title+body" else None

    def text(d):
        if field == "title+body":
            return R._text(d)
        dateline, whole = raw[d.newid]
        if field == "whole":
            return whole
        return f"{d.title}\n{dateline}\n{d.body}"

    vec = TextVectorizer(weighting="count", token_pattern=pattern, stem=stem,
                         lowercase=lower_first)
    Xtr = vec.fit_transform([text(d) for d in train]).tocsr()
    Xte = vec.transform([text(d) for d in test]).tocsr()
    if not lower_first:  # merge the columns whose stems differ only by case
        terms = [t.lower() for t in vec.get_feature_names_out()]
        uniq, inv = np.unique(terms, return_inverse=True)
        M = sp.csr_matrix((np.ones(len(terms)), (np.arange(len(terms)), inv)),
                          shape=(len(terms), len(uniq)))
        Xtr, Xte = (Xtr @ M).tocsr(), (Xte @ M).tocsr()
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, trd=Xtr.data, tri=Xtr.indices, trp=Xtr.indptr, trs=Xtr.shape,
             ted=Xte.data, tei=Xte.indices, tep=Xte.indptr, tes=Xte.shape)
    os.replace(tmp, path)
    return Xtr, Xte, Ytr, Yte, names


def default_counts():
    d = load_reuters_vectorized(weighting="count")
    return (d.X_train.tocsr(), d.X_test.tocsr(), np.asarray(d.Y_train), np.asarray(d.Y_test),
            list(d.target_names))


# ---------------------------------------------------------------------------
# Feature selection variants
# ---------------------------------------------------------------------------

def binary(X):
    X = X.tocsr(copy=True)
    X.data[:] = 1.0
    return X


def select(Xtr, Ytr, names, scheme, k=1000):
    """Global support (array) or, for per-category schemes, a dict cat -> support."""
    top = [names.index(c) for c in TOP10]
    B = binary(Xtr)
    if scheme == "global-118":  # default: (doc, category) pairs + "no category"
        return InformationGain(k=k).fit(B, Ytr).get_support(indices=True)
    if scheme == "global-118, no 'no category' docs":
        keep = Ytr.sum(1) > 0
        return InformationGain(k=k).fit(B[keep], Ytr[keep]).get_support(indices=True)
    if scheme == "global-top10":
        return InformationGain(k=k).fit(B, Ytr[:, top]).get_support(indices=True)
    if scheme == "global-top10, no 'no category' docs":
        keep = Ytr[:, top].sum(1) > 0
        return InformationGain(k=k).fit(B[keep], Ytr[keep][:, top]).get_support(indices=True)
    if scheme in ("max binary IG over 118", "weighted-mean binary IG over 118 (Y&P avg)"):
        agg = "max" if scheme.startswith("max") else "weighted"
        sel = InformationGain(k=k, scope="per_category", aggregate=agg).fit(B, Ytr)
        return sel.get_support(indices=True)
    if scheme == "per-category binary IG":
        S = InformationGain(k="all", scope="per_category").fit(B, Ytr[:, top]).scores_per_category_
        return {c: np.sort(np.argsort(-S[j], kind="stable")[:k]) for j, c in enumerate(TOP10)}
    if scheme == "IG over word counts (count bins 0,1,2,3+)":
        # 'word-count features': a word's value is its count, binned; IG of the binned
        # variable against the (document, category) classes of global-118.
        return count_ig_support(Xtr, Ytr, k)
    raise ValueError(scheme)


def count_ig_support(Xtr, Ytr, k):
    """Global IG where the feature is the count bin (0, 1, 2, 3+) instead of presence."""
    X = Xtr.tocsc()
    n = X.shape[0]
    nocat = (Ytr.sum(1) == 0).astype(float)
    Yf = np.column_stack([Ytr.astype(float), nocat])  # events: (doc, class) pairs
    w = Yf.sum(1)  # events per document
    N = w.sum()
    pc = Yf.sum(0) / N
    H = -np.sum(pc[pc > 0] * np.log(pc[pc > 0]))
    tot_class = Yf.sum(0)
    ig = np.zeros(X.shape[1])
    for j in range(X.shape[1]):
        rows = X.indices[X.indptr[j]:X.indptr[j + 1]]
        vals = X.data[X.indptr[j]:X.indptr[j + 1]]
        if rows.size == 0:
            continue
        bins = np.minimum(vals, 3).astype(int)
        cond = 0.0
        seen = np.zeros_like(tot_class)
        for b in (1, 2, 3):
            r = rows[bins == b]
            if r.size == 0:
                continue
            counts = Yf[r].sum(0)
            seen += counts
            nb = counts.sum()
            p = counts[counts > 0] / nb
            cond += nb / N * -np.sum(p * np.log(p))
        rest = tot_class - seen
        nb = rest.sum()
        if nb > 0:
            p = rest[rest > 0] / nb
            cond += nb / N * -np.sum(p * np.log(p))
        ig[j] = H - cond
    return np.sort(np.argsort(-ig, kind="stable")[:k])


# ---------------------------------------------------------------------------
# Methods and evaluation
# ---------------------------------------------------------------------------

def build(method, n):
    if method == "svm":
        from sklearn.svm import LinearSVC
        return LinearSVC(C=1.0 / (1e-3 * n), loss="hinge", dual=True, tol=1e-4,
                         max_iter=10000, random_state=0)
    return METHODS[method].build(n)


def scores_for(method, Xtr, ytr, Xte):
    est = build(method, Xtr.shape[0])
    est.fit(Xtr, ytr)
    s = np.asarray(est.decision_function(Xte), dtype=float)
    return s.ravel()


def evaluate(method, Xtr_bin, Xte_bin, Ytr, Yte, names, support, train_rows=None, test_rows=None):
    """Per-category BEPs (percent) and the micro-BEP over TOP10."""
    top = [names.index(c) for c in TOP10]
    tr = slice(None) if train_rows is None else train_rows
    te = slice(None) if test_rows is None else test_rows
    S = np.zeros((Yte[te].shape[0], len(TOP10)))
    for j, (c, col) in enumerate(zip(TOP10, top)):
        cols = support[c] if isinstance(support, dict) else support
        Xa = Xtr_bin[tr][:, cols].tocsr()
        Xb = Xte_bin[te][:, cols].tocsr()
        S[:, j] = scores_for(method, Xa, Ytr[tr][:, col], Xb)
    Y = Yte[te][:, top]
    per = 100 * breakeven_points(Y, S)
    return 100 * micro_breakeven_point(Y, S), dict(zip(TOP10, per.tolist())), pooled(Y, S)


def pooled(Y, S):
    """Micro-BEP read as one threshold shared by every category: the BEP of the pooled
    (document, category) scores (the paper's 'overall confusion matrix' with a common cut)."""
    from textwin.metrics import breakeven_point
    return 100 * breakeven_point(Y.ravel(), S.ravel())


RESULTS = []


#: Positive test documents of each category (the same in every variant: the test
#: documents a variant may drop have no topic).
TEST_POSITIVES = dict(earn=1087, acq=719, **{"money-fx": 179}, grain=149, crude=189, trade=117,
                      interest=131, ship=89, wheat=71, corn=56)


def micro9(per):
    """Micro-BEP over the nine categories the paper's tables kept (earn excluded)."""
    cats = TOP10[1:]
    return sum(per[c] * TEST_POSITIVES[c] for c in cats) / sum(TEST_POSITIVES[c] for c in cats)


def record(section, variant, method, micro, per, seconds, pooled_micro=None):
    paper_micro, paper_per = PAPER.get(method, (None, {}))
    within = sum(abs(per[c] - v) <= 3 for c, v in paper_per.items())
    RESULTS.append(dict(section=section, variant=variant, method=method, micro=round(micro, 2),
                        micro9=round(micro9(per), 2),
                        paper=paper_micro, within3=within, pooled=None if pooled_micro is None else round(pooled_micro, 2),
                        per_category={
                            c: round(v, 1) for c, v in per.items()}, seconds=round(seconds, 1)))
    d = "" if paper_micro is None else f"{micro - paper_micro:+5.1f}"
    print(f"{section:7s} | {variant:48s} | {method:26s} | {micro:5.1f} ({d}) | "
          f"{within}/9 | {' '.join(f'{per[c]:5.1f}' for c in TOP10)} | 9-cat {micro9(per):.1f} | pooled "
          f"{'-' if pooled_micro is None else f'{pooled_micro:.1f}'}", flush=True)


def run_rows(section, variant, Xtr, Xte, Ytr, Yte, names, support, methods=MAIN_METHODS,
             train_rows=None, test_rows=None):
    Btr, Bte = binary(Xtr), binary(Xte)
    for m in methods:
        t0 = time.perf_counter()
        micro, per, pool = evaluate(m, Btr, Bte, Ytr, Yte, names, support, train_rows,
                                    test_rows)
        record(section, variant, m, micro, per, time.perf_counter() - t0, pool)


# ---------------------------------------------------------------------------
# Sections
# ---------------------------------------------------------------------------

def section_text():
    for name in TEXT_VARIANTS:
        t0 = time.perf_counter()
        Xtr, Xte, Ytr, Yte, names = build_text_variant(name)
        support = select(Xtr, Ytr, names, "global-118")
        print(f"# {name}: {Xtr.shape[1]} terms ({time.perf_counter() - t0:.0f}s)", flush=True)
        run_rows("text", name, Xtr, Xte, Ytr, Yte, names, support)


IG_SCHEMES = ("global-118", "global-118, no 'no category' docs", "global-top10",
              "global-top10, no 'no category' docs", "max binary IG over 118",
              "weighted-mean binary IG over 118 (Y&P avg)", "per-category binary IG",
              "IG over word counts (count bins 0,1,2,3+)")


def section_ig(counts):
    Xtr, Xte, Ytr, Yte, names = counts
    for scheme in IG_SCHEMES:
        support = select(Xtr, Ytr, names, scheme)
        run_rows("ig", scheme, Xtr, Xte, Ytr, Yte, names, support)


def section_sets(counts):
    """Documents with no topic: in or out of training / test."""
    Xtr, Xte, Ytr, Yte, names = counts
    has_tr = np.flatnonzero(Ytr.sum(1) > 0)
    has_te = np.flatnonzero(Yte.sum(1) > 0)
    print(f"# training documents with a topic: {has_tr.size}/{Ytr.shape[0]}; "
          f"test: {has_te.size}/{Yte.shape[0]}", flush=True)
    support = select(Xtr, Ytr, names, "global-118")
    run_rows("sets", "no-topic docs out of training", Xtr, Xte, Ytr, Yte, names, support,
             train_rows=has_tr)
    run_rows("sets", "no-topic docs out of test", Xtr, Xte, Ytr, Yte, names, support,
             test_rows=has_te)
    keep = Ytr.sum(1) > 0
    support2 = InformationGain(k=1000).fit(binary(Xtr)[keep], Ytr[keep]).get_support(indices=True)
    run_rows("sets", "no-topic docs out of IG, training and test", Xtr, Xte, Ytr, Yte, names,
             support2, train_rows=has_tr, test_rows=has_te)


def section_sets2(counts):
    """Decompose the no-topic effect and combine it with the feature schemes."""
    Xtr, Xte, Ytr, Yte, names = counts
    has_tr = np.flatnonzero(Ytr.sum(1) > 0)
    has_te = np.flatnonzero(Yte.sum(1) > 0)
    keep = Ytr.sum(1) > 0
    support_out = InformationGain(k=1000).fit(binary(Xtr)[keep], Ytr[keep]).get_support(
        indices=True)
    run_rows("sets", "no-topic docs out of IG and training (test: all 3299)", Xtr, Xte, Ytr,
             Yte, names, support_out, train_rows=has_tr)
    run_rows("sets", "no-topic docs out of IG only", Xtr, Xte, Ytr, Yte, names, support_out)
    for scheme in ("per-category binary IG", "global-top10"):
        support = select(Xtr, Ytr, names, scheme)
        run_rows("sets", f"no-topic docs out of test + {scheme}", Xtr, Xte, Ytr, Yte, names,
                 support, test_rows=has_te)


def _variants_module():
    import pyximport
    pyximport.install(language_level=3, build_dir=str(CACHE / "pyxbld"),
                      setup_args={"include_dirs": []})
    sys.path.insert(0, str(HERE))
    import _explore_online_variants as V
    return V


def _with_bias(X, bias):
    X = sp.hstack([X, np.ones((X.shape[0], 1))]).tocsr() if bias else X.tocsr()
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    return X


def run_online(label, method, fit_one, A, B, Ytr, Yte, top, bias=False, section="online",
               per_category=None):
    """Fit ``fit_one(X, y) -> w`` per category on A (binary CSR), score B, record.

    ``per_category``: optional dict category -> columns of A and B to use for it.
    """
    t0 = time.perf_counter()
    S = np.zeros((B.shape[0], len(top)))
    for j, col in enumerate(top):
        cols = slice(None) if per_category is None else per_category[TOP10[j]]
        Xa, Xb = _with_bias(A[:, cols], bias), _with_bias(B[:, cols], bias)
        y = np.where(Ytr[:, col] > 0, 1.0, -1.0)
        S[:, j] = Xb @ fit_one(Xa, y)
    Y = Yte[:, top]
    per = 100 * breakeven_points(Y, S)
    record(section, label, method, 100 * micro_breakeven_point(Y, S),
           dict(zip(TOP10, per.tolist())), time.perf_counter() - t0, pooled(Y, S))


def perc(V, eta=1e-3, epochs=100, norm=2, radius=1.0, strict=True):
    def fit(X, y):
        w = np.zeros(X.shape[1])
        V.perceptron(X.data, X.indices, X.indptr, y, w, eta, epochs, norm, radius, strict)
        return w
    return fit


def win(V, eta=1e-3, theta=0.1, epochs=100, mass=1.0, renorm=1, strict=False, init=None):
    def fit(X, y):
        d = X.shape[1]
        w = np.full(d, mass / d) if init is None else init(X, y, mass)
        V.winnow(X.data, X.indices, X.indptr, y, w, eta, theta, epochs, mass, renorm, strict)
        return w
    return fit


def section_online(counts):
    V = _variants_module()
    Xtr, Xte, Ytr, Yte, names = counts
    support = select(Xtr, Ytr, names, "global-118")
    top = [names.index(c) for c in TOP10]
    A = binary(Xtr)[:, support].tocsr()
    B = binary(Xte)[:, support].tocsr()

    def run(label, method, fit_one, bias=False):
        run_online(label, method, fit_one, A, B, Ytr, Yte, top, bias)

    run("L2 = 1 after each epoch (textwin; check)", "perceptron", perc(V))
    run("no rescaling", "perceptron", perc(V, norm=0))
    run("L1 = 1 after each epoch", "perceptron", perc(V, norm=1))
    run("Linf = 1 after each epoch", "perceptron", perc(V, norm=3))
    run("L2 = 1, predict in iff w.x >= 0", "perceptron", perc(V, strict=False))
    run("L1 = 1, predict in iff w.x >= 0", "perceptron", perc(V, norm=1, strict=False))
    run("L2 = 1, constant feature (bias)", "perceptron", perc(V), bias=True)
    run("L1 = 1, constant feature (bias)", "perceptron", perc(V, norm=1), bias=True)
    for eta in (1e-4, 1e-2):
        run(f"L1 = 1, eta = {eta:g}", "perceptron", perc(V, norm=1, eta=eta))
    run("L2 = 1, 1000 epochs", "perceptron", perc(V, epochs=1000))

    run("renormalize after each mistake (textwin; check)", "winnow", win(V))
    run("renormalize at the end of each epoch", "winnow", win(V, renorm=2))
    run("never renormalize", "winnow", win(V, renorm=0))
    run("predict in iff w.x > theta", "winnow", win(V, strict=True))
    for eta in (0.003, 0.01, 0.03):
        run(f"end-of-epoch renormalization, eta = {eta:g}", "winnow", win(V, renorm=2, eta=eta))
    for eta in (0.01, 0.03, 0.1):
        run(f"after each mistake, eta = {eta:g}", "winnow", win(V, eta=eta))
    run("after each mistake, 1000 epochs", "winnow", win(V, epochs=1000))
    run("after each mistake, eta = 0.01, 1000 epochs", "winnow", win(V, eta=0.01, epochs=1000))
    for mass in (0.5, 0.75, 1.5):
        run(f"A = {mass:g} (theta = 0.1)", "winnow", win(V, mass=mass))

    def theta_init(X, y, mass):
        # initial weights such that the average document sits at the threshold
        avg = X.getnnz(axis=1).mean()
        return np.full(X.shape[1], 0.1 / avg)

    run("initial weights theta/avg nnz (unnormalized start)", "winnow", win(V, init=theta_init))
    run("constant feature (bias), after each mistake", "winnow", win(V), bias=True)


def section_order(counts):
    """Online methods see the data in order: how much does the order move the BEPs?"""
    Xtr, Xte, Ytr, Yte, names = counts
    support = select(Xtr, Ytr, names, "global-118")
    n = Xtr.shape[0]
    orders = [("reversed document order", np.arange(n)[::-1])]
    orders += [(f"random document order, seed {s}", np.random.default_rng(s).permutation(n))
               for s in range(3)]
    for label, rows in orders:
        run_rows("order", label, Xtr, Xte, Ytr, Yte, names, support,
                 methods=("perceptron", "winnow", "rwinnow"), train_rows=rows)


def section_combo(counts):
    """The best single changes together: no-topic documents out of IG, training and test."""
    V = _variants_module()
    Xtr, Xte, Ytr, Yte, names = counts
    top = [names.index(c) for c in TOP10]
    keep_tr = Ytr.sum(1) > 0
    keep_te = Yte.sum(1) > 0
    support = InformationGain(k=1000).fit(binary(Xtr)[keep_tr], Ytr[keep_tr]).get_support(
        indices=True)
    A = binary(Xtr)[keep_tr][:, support].tocsr()
    B = binary(Xte)[keep_te][:, support].tocsr()
    a, b = Ytr[keep_tr], Yte[keep_te]
    lab = "no-topic out + "
    run_online(lab + "Perceptron L2 = 1 + constant feature", "perceptron", perc(V), A, B, a, b,
               top, bias=True, section="combo")
    run_online(lab + "Perceptron Linf = 1", "perceptron", perc(V, norm=3), A, B, a, b, top,
               section="combo")
    run_online(lab + "Winnow eta = 0.01", "winnow", win(V, eta=0.01), A, B, a, b, top,
               section="combo")
    run_online(lab + "Winnow eta = 0.1", "winnow", win(V, eta=0.1), A, B, a, b, top,
               section="combo")
    support_pc = select(Xtr[keep_tr], Ytr[keep_tr], names, "per-category binary IG")
    run_rows("combo", lab + "per-category IG", Xtr, Xte, Ytr, Yte, names, support_pc,
             train_rows=np.flatnonzero(keep_tr), test_rows=np.flatnonzero(keep_te))
    support_t10 = InformationGain(k=1000).fit(binary(Xtr)[keep_tr], Ytr[keep_tr][:, top])
    run_rows("combo", lab + "global-top10 IG", Xtr, Xte, Ytr, Yte, names,
             support_t10.get_support(indices=True),
             train_rows=np.flatnonzero(keep_tr), test_rows=np.flatnonzero(keep_te))


def section_interest(counts):
    """Is interest a positive-weights problem? Which features does IG pick?"""
    Xtr, Xte, Ytr, Yte, names = counts
    vocab = np.asarray(load_reuters_vectorized(weighting="binary").feature_names)
    B = binary(Xtr)
    support = select(Xtr, Ytr, names, "global-118")
    c = names.index("interest")
    Si = InformationGain(k="all", scope="per_category").fit(B, Ytr[:, [c]]).scores_per_category_[0]
    own = np.argsort(-Si, kind="stable")
    print("# interest: its 30 best words by binary IG:",
          ", ".join(f"{vocab[j]}{'' if j in set(support) else '*'}" for j in own[:30]),
          "(* = not among the global 1000)")
    print(f"# interest: of its own top 100 / 1000 words, {np.isin(own[:100], support).sum()} / "
          f"{np.isin(own[:1000], support).sum()} are in the global 1000")
    from sklearn.svm import LinearSVC
    A = B[:, support].tocsr()
    y = Ytr[:, c]
    svm = LinearSVC(C=1 / (1e-3 * A.shape[0]), loss="hinge", tol=1e-4, max_iter=10000).fit(A, y)
    w = svm.coef_.ravel()
    order = np.argsort(w)
    print("# interest SVM: most negative weights:",
          ", ".join(f"{vocab[support[j]]} {w[j]:.2f}" for j in order[:12]))
    print("# interest SVM: most positive weights:",
          ", ".join(f"{vocab[support[j]]} {w[j]:.2f}" for j in order[::-1][:12]))
    # score with the positive part only, and with the negative weights zeroed
    Bt = binary(Xte)[:, support]
    yt = Yte[:, c]
    from textwin.metrics import breakeven_point
    print(f"# interest SVM BEP {100*breakeven_point(yt, Bt @ w + svm.intercept_[0]):.1f}; "
          f"positive weights only {100*breakeven_point(yt, Bt @ np.maximum(w, 0)):.1f}; "
          f"negative mass / positive mass {-w[w < 0].sum() / w[w > 0].sum():.2f}")
    mf = names.index("money-fx")
    both = (Ytr[:, c] > 0) & (Ytr[:, mf] > 0)
    print(f"# interest training docs {int(Ytr[:, c].sum())}, also money-fx {int(both.sum())}; "
          f"money-fx docs not interest {int(((Ytr[:, mf] > 0) & (Ytr[:, c] == 0)).sum())}")
    from textwin.linear import RegularizedWinnow
    for mass in (0.5, 1.0, 2.0, 4.0):
        for theta in (0.1, 0.3):
            if mass != 1.0 and theta == 0.3:
                continue
            est = RegularizedWinnow(mass=mass, theta=theta * mass, gamma=0.1 * mass,
                                    lam=1e-4, max_epochs=100, tol=1e-3, shuffle=False)
            est.fit(A, y)
            s = np.asarray(est.decision_function(Bt)).ravel()
            print(f"# interest rwinnow A={mass} theta={theta * mass:g} gamma={0.1 * mass:g}: "
                  f"BEP {100*breakeven_point(yt, s):.1f}", flush=True)
    # per-category features for interest only
    cols = np.sort(own[:1000])
    est = METHODS["rwinnow"].build(A.shape[0]).fit(B[:, cols].tocsr(), y)
    s = np.asarray(est.decision_function(binary(Xte)[:, cols].tocsr())).ravel()
    print(f"# interest rwinnow on interest's own 1000 IG words: BEP {100*breakeven_point(yt, s):.1f}")


def print_table():
    print("\n## Micro-BEP per variant (paper: svm 91.0 (SMO) / 91.2 (Alg. 2), perceptron 88.5, "
          "winnow 83.0, rwinnow 86.3)\n")
    rows = {}
    for r in RESULTS:
        rows.setdefault((r["section"], r["variant"]), {})[r["method"]] = r
    methods = [m for m in ("svm", "perceptron", "winnow", "rwinnow")]
    print("| section | variant | " + " | ".join(methods) + " | "
          + " | ".join(f"{m} pooled" for m in methods) + " |")
    print("|---|---|" + "---:|" * (2 * len(methods)))
    for (sec, var), d in rows.items():
        cells = [f"{d[m]['micro']:.1f} ({d[m]['within3']}/9)" if m in d else "" for m in methods]
        cells += [f"{d[m]['pooled']:.1f}" if m in d and d[m].get("pooled") is not None else ""
                  for m in methods]
        print(f"| {sec} | {var} | " + " | ".join(cells) + " |")


def section_combo2(counts):
    """Training set as the paper's (9,603), test documents without a topic left out."""
    V = _variants_module()
    Xtr, Xte, Ytr, Yte, names = counts
    top = [names.index(c) for c in TOP10]
    keep_te = Yte.sum(1) > 0
    A, B, b = binary(Xtr), binary(Xte)[keep_te], Yte[keep_te]
    glob = select(Xtr, Ytr, names, "global-118")
    pc = select(Xtr, Ytr, names, "per-category binary IG")
    lab = "topic test + "
    for feats, name in ((None, "global IG"), (pc, "per-category IG")):
        sub = {c: glob for c in TOP10} if feats is None else feats
        run_online(f"{lab}{name} + Perceptron L2 = 1 + constant feature", "perceptron",
                   perc(V), A, B, Ytr, b, top, bias=True, section="combo2", per_category=sub)
        run_online(f"{lab}{name} + Perceptron Linf = 1", "perceptron", perc(V, norm=3), A, B,
                   Ytr, b, top, section="combo2", per_category=sub)
        for eta in (0.01, 0.1):
            run_online(f"{lab}{name} + Winnow eta = {eta:g}", "winnow", win(V, eta=eta), A, B,
                       Ytr, b, top, section="combo2", per_category=sub)


def section_base(counts):
    Xtr, Xte, Ytr, Yte, names = counts
    run_rows("base", "textwin pipeline (global-118 IG, all 9603/3299 documents)",
             Xtr, Xte, Ytr, Yte, names, select(Xtr, Ytr, names, "global-118"),
             methods=MAIN_METHODS + ("svm-alg2",))


SECTIONS = {
    "base": section_base, "ig": section_ig, "sets": section_sets, "sets2": section_sets2,
    "online": section_online, "order": section_order, "combo": section_combo,
    "interest": section_interest, "combo2": section_combo2, "text": lambda counts: section_text(),
}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", help="write the results here")
    p.add_argument("--only", default=",".join(SECTIONS),
                   help=f"comma-separated sections (default: all): {', '.join(SECTIONS)}")
    args = p.parse_args(argv)
    sections = args.only.split(",")
    counts = default_counts()
    print(f"{'section':7s} | {'variant':48s} | {'method':26s} | micro (vs paper) | within 3 | "
          + " ".join(f"{c[:5]:>5s}" for c in TOP10), flush=True)
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown:
        p.error(f"unknown section(s) {', '.join(unknown)}; known: {', '.join(SECTIONS)}")
    for s in sections:
        SECTIONS[s](counts)
    print_table()
    if args.json:
        Path(args.json).write_text(json.dumps(RESULTS, indent=1))


if __name__ == "__main__":
    main()
