"""Reuters-21578 corpora for the Winnow-scale study: top-10 (multi-label), R8, R52.

R8 and R52 follow Cardoso-Cachopo's definition: the ModApte stories with exactly
one topic; R8 keeps those whose topic is one of the ten largest categories, R52
those whose topic has at least one training and one test story among them.
Features: Porter stems of title + body (textwin's tokenizer), optionally with
stem bigrams; tf-idf as textwin's (sublinear tf, smoothed idf of the training
set, unit rows).
"""
import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer

from textwin.datasets import REUTERS_TOP10, fetch_reuters21578, load_reuters_vectorized
from textwin.text import PorterStemmer, apply_weighting, smooth_idf, tokenize


def top10_tfidf(data_home=None):
    """ModApte top-10, tf-idf over all training stems: (X_train, Y_train, X_test, Y_test, names)."""
    b = load_reuters_vectorized(data_home=data_home, weighting="tfidf", categories="top10",
                                download_if_missing=False)
    return b.X_train, b.Y_train, b.X_test, b.Y_test, list(b.target_names)


def _analyzer(ngrams):
    stemmer = PorterStemmer()

    def analyze(text):
        stems = stemmer.stem_many(tokenize(text))
        if ngrams == 1:
            return stems
        return stems + [a + " " + b for a, b in zip(stems, stems[1:])]
    return analyze


def tfidf(train_texts, test_texts, ngrams=1, min_df=1):
    """tf-idf matrices over stems (ngrams=2: stems and stem bigrams) of the training texts."""
    vec = CountVectorizer(analyzer=_analyzer(ngrams), min_df=min_df, dtype=np.float64)
    Xtr = sp.csr_matrix(vec.fit_transform(train_texts), dtype=np.float64)
    Xte = sp.csr_matrix(vec.transform(test_texts), dtype=np.float64)
    df = np.bincount(Xtr.indices, minlength=Xtr.shape[1])
    idf = smooth_idf(df, Xtr.shape[0])
    return apply_weighting(Xtr, "tfidf", idf), apply_weighting(Xte, "tfidf", idf)


def single_label(kind="r8", ngrams=1, data_home=None, min_df=1):
    """R8 or R52 (single-topic ModApte stories): (X_train, y_train, X_test, y_test)."""
    tr = fetch_reuters21578(data_home=data_home, subset="train", download_if_missing=False)
    te = fetch_reuters21578(data_home=data_home, subset="test", download_if_missing=False)
    names = np.array(tr.target_names)
    one_tr = tr.target.sum(axis=1) == 1
    one_te = te.target.sum(axis=1) == 1
    lab_tr = names[tr.target.argmax(axis=1)]
    lab_te = names[te.target.argmax(axis=1)]
    if kind == "r8":
        keep = set(REUTERS_TOP10)
    elif kind == "r52":
        keep = set(lab_tr[one_tr]) & set(lab_te[one_te])
    else:
        raise ValueError(kind)
    m_tr = one_tr & np.isin(lab_tr, list(keep))
    m_te = one_te & np.isin(lab_te, list(keep))
    texts_tr = [t for t, m in zip(tr.data, m_tr) if m]
    texts_te = [t for t, m in zip(te.data, m_te) if m]
    Xtr, Xte = tfidf(texts_tr, texts_te, ngrams, min_df)
    return Xtr, lab_tr[m_tr], Xte, lab_te[m_te]


if __name__ == "__main__":
    for kind in ("r8", "r52"):
        for ng in (1, 2):
            Xtr, ytr, Xte, yte = single_label(kind, ng)
            print(kind, ng, Xtr.shape, Xte.shape, len(set(ytr)), len(set(yte)))


def cached(name, build, cache_dir=None):
    """build() once, then from an .npz in the cache folder (X_train, y_train, X_test, y_test)."""
    import os
    from pathlib import Path
    folder = Path(cache_dir or os.environ.get("TEXTWIN_CACHE_DIR", "/tmp"))
    path = folder / f"winnow_{name}.npz"
    if path.exists():
        z = np.load(path, allow_pickle=False)
        Xtr = sp.csr_matrix((z["tr_data"], z["tr_ind"], z["tr_ptr"]), shape=tuple(z["tr_shape"]))
        Xte = sp.csr_matrix((z["te_data"], z["te_ind"], z["te_ptr"]), shape=tuple(z["te_shape"]))
        return Xtr, z["ytr"], Xte, z["yte"]
    Xtr, ytr, Xte, yte = build()[:4]
    np.savez(path, tr_data=Xtr.data, tr_ind=Xtr.indices, tr_ptr=Xtr.indptr, tr_shape=Xtr.shape,
             te_data=Xte.data, te_ind=Xte.indices, te_ptr=Xte.indptr, te_shape=Xte.shape,
             ytr=np.asarray(ytr).astype(str) if np.asarray(ytr).ndim == 1 else ytr,
             yte=np.asarray(yte).astype(str) if np.asarray(yte).ndim == 1 else yte)
    return Xtr, ytr, Xte, yte


def top10_ngrams(ngrams=2, min_df=1, data_home=None):
    """ModApte top-10 (multi-label) with tf-idf over stems (and stem bigrams)."""
    tr = fetch_reuters21578(data_home=data_home, subset="train", categories="top10",
                            download_if_missing=False)
    te = fetch_reuters21578(data_home=data_home, subset="test", categories="top10",
                            download_if_missing=False)
    Xtr, Xte = tfidf(tr.data, te.data, ngrams, min_df)
    return Xtr, tr.target, Xte, te.target
