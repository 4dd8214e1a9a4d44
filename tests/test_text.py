"""Tokenizer, memoized Porter stemmer and TextVectorizer."""
import pickle
import re

import numpy as np
import pytest
import scipy.sparse as sp
from nltk.stem.porter import PorterStemmer as NLTKPorter
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer

from textwin.text import TOKEN_PATTERN, PorterStemmer, TextVectorizer, tokenize

DOCS = [
    "Grain exports rose 1.5 pct, the U.S. Agriculture Department said.",
    "SHIPPING: ships and shippers; the ship's crew went on strike.",
    "",
    "1987 12,500 -- ...",  # no letters at all: an empty row
    "Wheat and CORN prices rose; corn, wheat, grain: rising, rises.",
    "Müller said the Zürich bank's earnings rose",
]


def _sklearn_counts(docs, stem=True):
    """The same pipeline by scikit-learn's CountVectorizer and NLTK directly."""
    nltk_stem = NLTKPorter().stem

    def analyzer(doc):
        tokens = tokenize(doc)
        return [nltk_stem(t) for t in tokens] if stem else tokens

    cv = CountVectorizer(analyzer=analyzer)
    return cv.fit_transform(docs), cv.get_feature_names_out()


def test_tokenize_words_lowercase_no_stopword_removal():
    assert tokenize("The U.S. grain-exports ROSE 1.5 pct, don't!") == [
        "the", "u", "s", "grain", "exports", "rose", "pct", "don", "t",
    ]
    assert tokenize("") == []
    assert tokenize("12,500 -- 3.5") == []
    assert tokenize("Zürich Müller") == ["zürich", "müller"]
    assert tokenize("Snake_case word9word") == ["snake", "case", "word", "word"]
    assert tokenize("Mixed Case", lowercase=False) == ["Mixed", "Case"]
    assert TOKEN_PATTERN == r"[^\W\d_]+"


def test_tokenize_rejects_non_strings():
    with pytest.raises(TypeError, match="expects a str, got bytes"):
        tokenize(b"bytes")
    with pytest.raises(TypeError, match="got NoneType"):
        tokenize(None)


def test_porter_stemmer_agrees_with_nltk_and_memoizes():
    words = ["caresses", "ponies", "running", "generalization", "shipping",
             "ships", "earnings", "rose", "rising", "rises", "a", "u"]
    stemmer = PorterStemmer()
    reference = NLTKPorter()
    assert stemmer.stem_many(words) == [reference.stem(w) for w in words]

    calls = []
    inner = stemmer._stem
    stemmer._stem = lambda word, **kw: calls.append(word) or inner(word, **kw)
    stemmer._memo.clear()
    out = stemmer.stem_many(["ponies", "ponies", "running", "ponies", "running"])
    assert out == ["poni", "poni", "run", "poni", "run"]
    assert calls == ["ponies", "running"]  # each distinct token stemmed once
    assert len(stemmer) == 2


@pytest.mark.parametrize("stem", [True, False])
def test_counts_equal_sklearn_countvectorizer(stem):
    X_ref, names_ref = _sklearn_counts(DOCS, stem=stem)
    vec = TextVectorizer(weighting="count", stem=stem)
    X = vec.fit_transform(DOCS)
    assert sp.isspmatrix_csr(X) and X.dtype == np.float64
    assert X.has_sorted_indices
    assert vec.get_feature_names_out().tolist() == names_ref.tolist()
    np.testing.assert_array_equal(X.toarray(), X_ref.toarray())
    assert vec.vocabulary_ == {t: j for j, t in enumerate(names_ref)}


def test_binary_and_tfidf_weightings():
    X_counts, _ = _sklearn_counts(DOCS)
    Xb = TextVectorizer(weighting="binary").fit_transform(DOCS)
    np.testing.assert_array_equal(Xb.toarray(), (X_counts.toarray() > 0).astype(float))

    vec = TextVectorizer(weighting="tfidf")
    Xt = vec.fit_transform(DOCS)
    ref = TfidfTransformer(sublinear_tf=True).fit(X_counts)
    np.testing.assert_allclose(vec.idf_, ref.idf_)
    np.testing.assert_allclose(Xt.toarray(), ref.transform(X_counts).toarray())
    norms = np.sqrt(np.asarray(Xt.multiply(Xt).sum(axis=1)).ravel())
    np.testing.assert_allclose(norms, [1, 1, 0, 0, 1, 1])  # empty rows stay empty

    # transform uses the training idf, not the new documents' own
    new = ["corn corn wheat", "unknownword"]
    Xn = vec.transform(new)
    stemmer = PorterStemmer()
    Cn = CountVectorizer(
        vocabulary=vec.vocabulary_, analyzer=lambda d: stemmer.stem_many(tokenize(d))
    ).transform(new)
    np.testing.assert_allclose(Xn.toarray(), ref.transform(Cn).toarray())


def test_empty_documents_are_valid_rows():
    vec = TextVectorizer()
    X = vec.fit_transform(DOCS)
    assert X.shape[0] == len(DOCS)
    assert X[2].nnz == 0 and X[3].nnz == 0
    assert vec.n_empty_ == 2
    Xt = vec.transform(["", "zzz qqq", "said"])
    assert Xt.shape == (3, len(vec.vocabulary_))
    assert Xt[0].nnz == 0 and Xt[1].nnz == 0 and Xt[2].nnz == 1


def test_transform_ignores_unknown_words_and_matches_fit_transform():
    vec = TextVectorizer(weighting="count").fit(DOCS[:2])
    X = vec.transform(["grain grain bananas", ""])
    col = vec.vocabulary_["grain"]
    assert X[0, col] == 2 and X[0].nnz == 1
    np.testing.assert_array_equal(
        vec.transform(DOCS[:2]).toarray(),
        TextVectorizer(weighting="count").fit_transform(DOCS[:2]).toarray(),
    )


def test_min_df():
    vec = TextVectorizer(min_df=2).fit(DOCS)
    X_counts, names = _sklearn_counts(DOCS)
    df = np.asarray((X_counts > 0).sum(axis=0)).ravel()
    assert vec.get_feature_names_out().tolist() == names[df >= 2].tolist()
    np.testing.assert_array_equal(vec.document_frequency_, df[df >= 2])
    assert TextVectorizer(min_df=0.5).fit(DOCS).get_feature_names_out().tolist() == names[df >= 3].tolist()
    with pytest.raises(ValueError, match="removes every term"):
        TextVectorizer(min_df=100).fit(DOCS)
    for bad in (0, -1, 1.5):
        with pytest.raises(ValueError, match="min_df"):
            TextVectorizer(min_df=bad).fit(DOCS)


def test_bad_input_gives_clear_errors():
    with pytest.raises(TypeError, match="document 1 is a int"):
        TextVectorizer().fit(["fine", 3])
    with pytest.raises(TypeError, match="single string"):
        TextVectorizer().fit("a single text")
    with pytest.raises(TypeError, match="iterable of texts"):
        TextVectorizer().fit(42)
    with pytest.raises(ValueError, match="weighting='tf'"):
        TextVectorizer(weighting="tf").fit(DOCS)
    with pytest.raises(ValueError, match="no word at all"):
        TextVectorizer().fit(["", "123"])
    with pytest.raises(ValueError, match="token_pattern"):
        TextVectorizer(token_pattern="(").fit(DOCS)
    with pytest.raises(NotFittedError):
        TextVectorizer().transform(DOCS)
    vec = TextVectorizer().fit(DOCS)
    with pytest.raises(TypeError, match="document 0 is a bytes"):
        vec.transform([b"bytes"])


def test_lowercase_false_keeps_case():
    vec = TextVectorizer(lowercase=False, stem=False).fit(["Corn corn CORN"])
    assert vec.get_feature_names_out().tolist() == ["CORN", "Corn", "corn"]


def test_sklearn_api_clone_and_pickle():
    vec = TextVectorizer(weighting="tfidf", min_df=2)
    assert clone(vec).get_params() == vec.get_params()
    vec.fit(DOCS)
    restored = pickle.loads(pickle.dumps(vec))
    np.testing.assert_array_equal(restored.transform(DOCS).toarray(), vec.transform(DOCS).toarray())


def test_latin1_fast_path_equals_general_path():
    # The default pattern on latin-1 text takes the joined-bytes path; the same
    # regex spelled differently, or a non-latin-1 corpus, takes the per-document
    # str path. All must give the same words.
    docs = DOCS + ["Superscript x² ½ and Straße", "ÀÉÎÕÜ àéîõü ÿ µ\ttab"]
    token_re = re.compile(TOKEN_PATTERN)
    assert isinstance(TextVectorizer()._tokens(docs, token_re)[0][0], bytes)  # fast path taken
    fast = TextVectorizer(weighting="count").fit(docs)
    general = TextVectorizer(weighting="count", token_pattern=r"(?:[^\W\d_]+)").fit(docs)
    assert fast.vocabulary_ == general.vocabulary_
    np.testing.assert_array_equal(fast.transform(docs).toarray(), general.transform(docs).toarray())
    X_ref, names_ref = _sklearn_counts(docs)
    assert fast.get_feature_names_out().tolist() == names_ref.tolist()
    np.testing.assert_array_equal(fast.transform(docs).toarray(), X_ref.toarray())
    # A NUL inside a document, or text beyond latin-1 (Greek, a euro sign):
    # the str path.
    nul = ["nul\x00inside", "inside"]
    assert not isinstance(TextVectorizer()._tokens(nul, token_re)[1], bytes)
    assert TextVectorizer(weighting="count").fit_transform(nul).toarray().tolist() == [[1, 1], [1, 0]]
    greek = ["Ωμέγα € alpha", "βήτα alpha"]
    X_ref, names_ref = _sklearn_counts(greek)
    vec = TextVectorizer(weighting="count")
    np.testing.assert_array_equal(vec.fit_transform(greek).toarray(), X_ref.toarray())
    assert vec.get_feature_names_out().tolist() == names_ref.tolist()


def test_transform_after_set_params_is_a_clear_error():
    # the vocabulary (and idf) were learnt with the fitted settings: tf-idf
    # without an idf, or stems without a stemmer, crashed deep inside
    vec = TextVectorizer(weighting="count", stem=False).fit(["a b", "b c"])
    for change in (dict(weighting="tfidf"), dict(stem=True), dict(lowercase=False)):
        with pytest.raises(ValueError, match="fitted with .*fit again after set_params"):
            vec.set_params(**change).transform(["a"])
        vec.set_params(weighting="count", stem=False, lowercase=True)
    assert vec.set_params(min_df=2).transform(["a"]).shape == (1, 3)  # filters only
    assert vec.fit(["a b", "b c"]).transform(["b"]).nnz == 1          # refit: fine again


def test_token_pattern_with_several_groups_is_refused():
    with pytest.raises(ValueError, match="2 capturing groups"):
        TextVectorizer(token_pattern=r"(\w)(\w+)").fit(["hello world"])
    vec = TextVectorizer(token_pattern=r"(?:x)?(\w\w+)", stem=False).fit(["hello world"])
    assert sorted(vec.vocabulary_) == ["hello", "world"]
