"""Tokenizer, memoized Porter stemmers (NLTK's, PyStemmer's) and TextVectorizer."""
import functools
import pickle
import random
import re
import sys
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from nltk.stem.porter import PorterStemmer as NLTKPorter
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer

import textwin.text as text_module
from textwin.text import TOKEN_PATTERN, PorterStemmer, TextVectorizer, tokenize

DOCS = [
    "Grain exports rose 1.5 pct, the U.S. Agriculture Department said.",
    "SHIPPING: ships and shippers; the ship's crew went on strike.",
    "",
    "1987 12,500 -- ...",  # no letters at all: an empty row
    "Wheat and CORN prices rose; corn, wheat, grain: rising, rises.",
    "Müller said the Zürich bank's earnings rose",
]


def _sklearn_counts(docs, stem=True, stem_one=None):
    """The same pipeline by scikit-learn's CountVectorizer and NLTK (or
    ``stem_one``) directly."""
    stem_one = functools.lru_cache(maxsize=None)(stem_one or NLTKPorter().stem)

    def analyzer(doc):
        tokens = tokenize(doc)
        return [stem_one(t) for t in tokens] if stem else tokens

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


def test_combining_marks_inside_a_character_class_of_ones_own_pattern():
    # \p{M} became a bracketed class inside the user's brackets: [\w[...]]+, a
    # pattern that silently found no word at all
    from textwin.text import compile_token_pattern

    text = "ọ̀rọ̀ a]\u0300 x-y"
    assert compile_token_pattern(r"[\w\p{M}]+").findall(text) == ["ọ̀rọ̀", "a", "\u0300", "x", "y"]
    assert compile_token_pattern(r"[^\p{M}\s]+").findall("ọ̀rọ̀ x") == ["ọ", "rọ", "x"]
    assert compile_token_pattern(r"[]\p{M}a]+").findall("a]\u0300 b") == ["a]\u0300"]
    assert compile_token_pattern(r"\\p{M}").findall(r"a\p{M}") == [r"\p{M}"]  # escaped
    vec = TextVectorizer(token_pattern=r"[\w\p{M}]+", stem=False).fit(["ọ̀rọ̀ wọ́n"])
    assert sorted(vec.vocabulary_) == ["wọ́n", "ọ̀rọ̀"]


def test_a_word_keeps_its_combining_marks():
    # a mark is no letter to Python's re: Hindi fell apart into consonants, a Yoruba
    # tone on a dotted vowel cut the word in two
    assert tokenize("हिन्दी भाषा में") == ["हिन्दी", "भाषा", "में"]
    assert tokenize("Ọ̀rọ̀ wọ́n àjọ") == ["ọ̀rọ̀", "wọ́n", "àjọ"]
    assert tokenize("தமிழ் மொழி ที่นี่") == ["தமிழ்", "மொழி", "ที่นี่"]
    assert tokenize("\u0301a 1\u0301b") == ["a", "b"]  # a mark alone starts no word
    assert tokenize("x\u0303\u0301_y") == ["x\u0303\u0301", "y"]


def test_model_files_of_letters_only_read_their_words():
    # earlier model files name LETTERS_PATTERN: their words, on any text
    from textwin.text import LETTERS_PATTERN

    docs = ["Ọ̀rọ̀ wọ́n grain", "wheat naïve grain", "हिन्दी grain"]
    old = TextVectorizer(token_pattern=LETTERS_PATTERN, weighting="count").fit(docs)
    assert "rọ" in old.vocabulary_ and "ọ̀rọ̀" not in old.vocabulary_
    new = TextVectorizer(weighting="count").fit(docs)
    assert "ọ̀rọ̀" in new.vocabulary_ and "हिन्दी" in new.vocabulary_
    latin1 = ["wheat naïve grain", "Zürich corn"]  # the same words either way
    a = TextVectorizer(token_pattern=LETTERS_PATTERN).fit_transform(latin1)
    b = TextVectorizer().fit_transform(latin1)
    assert (a != b).nnz == 0


def test_tokenize_rejects_non_strings():
    with pytest.raises(TypeError, match="expects a str, got bytes"):
        tokenize(b"bytes")
    with pytest.raises(TypeError, match="got NoneType"):
        tokenize(None)


WORDS = ["caresses", "ponies", "running", "generalization", "shipping", "ships", "earnings",
         "rose", "rising", "rises", "a", "u", "s", "as", "aged", "always", "arrays", "useful"]


@pytest.fixture
def without_pystemmer(monkeypatch):
    """An interpreter where ``import Stemmer`` fails, as without PyStemmer installed."""
    monkeypatch.setitem(sys.modules, "Stemmer", None)


@pytest.mark.parametrize("backend", ["nltk", "pystemmer"])
def test_porter_stemmer_memoizes_each_distinct_token(backend):
    pytest.importorskip("Stemmer") if backend == "pystemmer" else None
    stemmer = PorterStemmer(backend=backend)
    calls = []
    inner = stemmer._stem_words
    stemmer._stem_words = lambda words: calls.append(list(words)) or inner(words)
    stemmer._memo.clear()
    out = stemmer.stem_many(["ponies", "ponies", "running", "ponies", "running"])
    assert out == ["poni", "poni", "run", "poni", "run"]
    assert calls == [["ponies", "running"]]  # each distinct token stemmed once
    assert len(stemmer) == 2
    assert stemmer.stem("ponies") == "poni" and len(calls) == 1
    # the memo is shared by the stemmers of the process: a new one stems nothing
    again = PorterStemmer(backend=backend)
    again._stem_words = stemmer._stem_words
    assert again.stem_many(["running", "ponies"]) == ["run", "poni"] and len(calls) == 1


def test_nltk_backend_is_nltks_default_porter():
    reference = NLTKPorter()
    assert PorterStemmer().stem_many(WORDS) == [reference.stem(w) for w in WORDS]
    original = NLTKPorter(mode="ORIGINAL_ALGORITHM")
    assert PorterStemmer("ORIGINAL_ALGORITHM").stem_many(WORDS) == [
        original.stem(w) for w in WORDS]


def test_pystemmer_backend_is_snowballs_original_porter():
    Stemmer = pytest.importorskip("Stemmer")
    snowball = Stemmer.Stemmer("porter")
    stems = PorterStemmer(backend="pystemmer").stem_many(WORDS)
    # words of one or two letters are kept (Snowball stems "s" to "", "as" to "a")
    assert stems == [w if len(w) <= 2 else snowball.stemWord(w) for w in WORDS]
    assert stems[WORDS.index("s")] == "s" and stems[WORDS.index("as")] == "as"
    # where the two backends differ: NLTK's extensions
    nltk_stems = dict(zip(WORDS, PorterStemmer().stem_many(WORDS)))
    ours = dict(zip(WORDS, stems))
    assert (nltk_stems["aged"], ours["aged"]) == ("age", "ag")
    assert (nltk_stems["always"], ours["always"]) == ("alway", "alwai")
    assert PorterStemmer(backend="auto").backend == "pystemmer"
    with pytest.raises(ValueError, match="original algorithm"):
        PorterStemmer("NLTK_EXTENSIONS", backend="pystemmer")


def test_without_pystemmer_auto_falls_back_to_nltk(without_pystemmer):
    assert not text_module.pystemmer_installed()
    assert PorterStemmer(backend="auto").backend == "nltk"
    vec = TextVectorizer(weighting="count")
    X = vec.fit_transform(DOCS)
    assert vec.stemmer_ == "nltk" and vec.get_params()["stemmer"] == "auto"
    X_ref, names_ref = _sklearn_counts(DOCS)
    assert vec.get_feature_names_out().tolist() == names_ref.tolist()
    np.testing.assert_array_equal(X.toarray(), X_ref.toarray())
    with pytest.raises(ImportError, match=r"PyStemmer, which is not installed: pip install PyStemmer; or use stemmer='nltk'"):
        TextVectorizer(stemmer="pystemmer").fit(DOCS)
    with pytest.raises(ImportError, match="PyStemmer"):
        PorterStemmer(backend="pystemmer")


def test_pystemmer_vectorizer_and_its_model_elsewhere(monkeypatch):
    Stemmer = pytest.importorskip("Stemmer")
    snowball = Stemmer.Stemmer("porter")
    vec = TextVectorizer(weighting="count")  # stemmer="auto": PyStemmer, installed
    X = vec.fit_transform(DOCS)
    assert vec.stemmer_ == "pystemmer"
    X_ref, names_ref = _sklearn_counts(
        DOCS, stem_one=lambda w: w if len(w) <= 2 else snowball.stemWord(w))
    assert vec.get_feature_names_out().tolist() == names_ref.tolist()
    np.testing.assert_array_equal(X.toarray(), X_ref.toarray())
    assert "ag" in TextVectorizer().fit(["aged"]).vocabulary_
    assert "age" in TextVectorizer(stemmer="nltk").fit(["aged"]).vocabulary_
    # unpickled where PyStemmer is missing: a clear error, not NLTK's other stems
    restored = pickle.loads(pickle.dumps(vec))
    monkeypatch.setitem(sys.modules, "Stemmer", None)
    with pytest.raises(ImportError, match="fitted with PyStemmer.*cannot stand in"):
        restored.transform(DOCS)
    # a vectorizer fitted with NLTK keeps NLTK's stems when PyStemmer comes back
    nltk_vec = TextVectorizer(weighting="count").fit(DOCS + ["aged always"])
    assert nltk_vec.stemmer_ == "nltk"
    monkeypatch.delitem(sys.modules, "Stemmer")
    assert text_module.pystemmer_installed()
    assert nltk_vec.transform(["aged always"]).nnz == 2  # "age", "alway"; not "ag", "alwai"


@pytest.mark.parametrize("stem", [True, False])
def test_counts_equal_sklearn_countvectorizer(stem):
    X_ref, names_ref = _sklearn_counts(DOCS, stem=stem)
    vec = TextVectorizer(weighting="count", stem=stem, stemmer="nltk")
    X = vec.fit_transform(DOCS)
    assert sp.isspmatrix_csr(X) and X.dtype == np.float64
    assert X.has_sorted_indices
    assert vec.get_feature_names_out().tolist() == names_ref.tolist()
    np.testing.assert_array_equal(X.toarray(), X_ref.toarray())
    assert vec.vocabulary_ == {t: j for j, t in enumerate(names_ref)}


def test_binary_and_tfidf_weightings():
    X_counts, _ = _sklearn_counts(DOCS)
    Xb = TextVectorizer(weighting="binary", stemmer="nltk").fit_transform(DOCS)
    np.testing.assert_array_equal(Xb.toarray(), (X_counts.toarray() > 0).astype(float))

    vec = TextVectorizer(weighting="tfidf", stemmer="nltk")
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
    vec = TextVectorizer(min_df=2, stemmer="nltk").fit(DOCS)
    X_counts, names = _sklearn_counts(DOCS)
    df = np.asarray((X_counts > 0).sum(axis=0)).ravel()
    assert vec.get_feature_names_out().tolist() == names[df >= 2].tolist()
    np.testing.assert_array_equal(vec.document_frequency_, df[df >= 2])
    assert TextVectorizer(min_df=0.5, stemmer="nltk").fit(DOCS).get_feature_names_out().tolist() == names[df >= 3].tolist()
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
    vec = TextVectorizer(weighting="tfidf", min_df=2, stemmer="nltk")
    assert clone(vec).get_params() == vec.get_params()
    assert vec.get_params()["stemmer"] == "nltk"
    vec.fit(DOCS)
    restored = pickle.loads(pickle.dumps(vec))
    np.testing.assert_array_equal(restored.transform(DOCS).toarray(), vec.transform(DOCS).toarray())
    restored.partial_fit(["more grain"])  # the counts travel with the pickle
    assert restored.n_documents_ == len(DOCS) + 1
    # pickled by a textwin without the choice of stemmer: NLTK's stems, transform works
    old = TextVectorizer(weighting="count", stemmer="nltk").fit(DOCS)
    state = old.__getstate__()
    for key in ("stemmer", "stemmer_", "n_features"):
        del state[key]
    state["_fitted_settings"] = dict(state["_fitted_settings"])
    for key in ("stemmer", "n_features"):
        del state["_fitted_settings"][key]
    unpickled = TextVectorizer.__new__(TextVectorizer)
    unpickled.__setstate__(state)
    assert unpickled.stemmer_ == "nltk" and unpickled.get_params()["stemmer"] == "nltk"
    np.testing.assert_array_equal(unpickled.transform(DOCS).toarray(), old.transform(DOCS).toarray())


def test_latin1_fast_path_equals_general_path(monkeypatch):
    # The default pattern on latin-1 text takes the numpy path; the same regex
    # spelled differently, or a non-latin-1 corpus, takes the per-document
    # regex path. All must give the same words.
    numpy_path = []
    inner = text_module._latin1_words
    monkeypatch.setattr(text_module, "_latin1_words", lambda raw: numpy_path.append(1) or inner(raw))
    docs = DOCS + ["Superscript x² ½ and Straße", "ÀÉÎÕÜ àéîõü ÿ µ\ttab",
                   "internationalization internationalisation " * 3 + "x" * 70000,
                   " ".join(chr(b) * 2 for b in range(256) if chr(b).isalpha())]
    fast = TextVectorizer(weighting="count", stemmer="nltk").fit(docs)
    assert numpy_path
    numpy_path.clear()
    general = TextVectorizer(weighting="count", stemmer="nltk",
                             token_pattern=r"(?:[^\W\d_]+)").fit(docs)
    assert not numpy_path
    assert fast.vocabulary_ == general.vocabulary_
    np.testing.assert_array_equal(fast.transform(docs).toarray(), general.transform(docs).toarray())
    X_ref, names_ref = _sklearn_counts(docs)
    assert fast.get_feature_names_out().tolist() == names_ref.tolist()
    np.testing.assert_array_equal(fast.transform(docs).toarray(), X_ref.toarray())
    # A NUL inside a document, or text beyond latin-1 (Greek, a euro sign):
    # the regex path.
    numpy_path.clear()
    nul = ["nul\x00inside", "inside"]
    assert TextVectorizer(weighting="count").fit_transform(nul).toarray().tolist() == [[1, 1], [1, 0]]
    greek = ["Ωμέγα € alpha", "βήτα alpha"]
    X_ref, names_ref = _sklearn_counts(greek)
    vec = TextVectorizer(weighting="count", stemmer="nltk")
    np.testing.assert_array_equal(vec.fit_transform(greek).toarray(), X_ref.toarray())
    assert vec.get_feature_names_out().tolist() == names_ref.tolist()
    assert not numpy_path


def test_text_beyond_latin1_takes_no_string_per_word_nor_a_lower_cased_copy():
    # such a chunk was lower-cased whole (str.lower() takes 12 bytes a character beyond
    # ASCII) and its words held as one str each: 16 bytes a character at the peak
    rng = random.Random(0)
    words = ["".join(rng.choices("abcdefghijklmnopÉÄ", k=rng.randint(4, 9)))
             for _ in range(2000)]
    docs = ["✓ " + " ".join(rng.choices(words, k=200)) for _ in range(1000)]
    tracemalloc.start()
    try:
        vec = TextVectorizer(stem=False).fit(docs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 12 * sum(map(len, docs))
    assert all(term == term.lower() for term in vec.vocabulary_)


def _random_corpus(n_docs, seed=0):
    """Documents of random words over a Zipf-like vocabulary of words of 1 to 30 letters."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyzé"
    vocabulary = ["".join(rng.choice(letters) for _ in range(rng.choice([1, 2, 3, 5, 8, 9, 16, 17, 30])))
                  for _ in range(3000)]
    weights = [1 / (k + 1) for k in range(len(vocabulary))]
    return [" ".join(rng.choices(vocabulary, weights, k=rng.randint(0, 60))) + " 12.5, done."
            if i % 17 else "" for i in range(n_docs)]


def test_words_of_equal_length_are_grouped_exactly_even_when_keys_collide(monkeypatch):
    # Words longer than 8 bytes are grouped by a mixed 64-bit key, then checked
    # byte for byte; with a mixing constant of 0 every word that shares its
    # last 8 bytes collides, and the check must catch it.
    docs = ["abcdefgh12345678 zzzzzzzz12345678 abcdefgh12345678".replace("1", "q").replace(
        "2", "r").replace("3", "s").replace("4", "t").replace("5", "u").replace(
        "6", "v").replace("7", "w").replace("8", "x")] + _random_corpus(300)
    reference = TextVectorizer(weighting="count", stem=False, token_pattern="(?:[^\\W\\d_]+)")
    X_ref = reference.fit_transform(docs)
    for mix in (text_module._MIX, np.uint64(0)):
        monkeypatch.setattr(text_module, "_MIX", mix)
        vec = TextVectorizer(weighting="count", stem=False)
        X = vec.fit_transform(docs)
        assert vec.vocabulary_ == reference.vocabulary_
        assert (X != X_ref).nnz == 0
        assert X[0, vec.vocabulary_["abcdefghqrstuvwx"]] == 2


@pytest.mark.parametrize("weighting, min_df", [("count", 1), ("tfidf", 3), ("tfidf", 0.02)])
def test_chunked_and_partial_fits_equal_the_one_shot_fit(monkeypatch, weighting, min_df):
    docs = _random_corpus(1200)
    one_shot = TextVectorizer(weighting=weighting, min_df=min_df, stemmer="nltk")
    X_one = one_shot.fit_transform(docs)
    assert text_module.CHUNK_CHARACTERS > sum(map(len, docs))  # one chunk so far
    # Chunks of about 20,000 characters inside each call (a dozen) ...
    monkeypatch.setattr(text_module, "CHUNK_CHARACTERS", 20000)
    chunked = TextVectorizer(weighting=weighting, min_df=min_df, stemmer="nltk")
    assert (chunked.fit_transform(iter(docs)) != X_one).nnz == 0
    # ... and batches of unequal sizes given to partial_fit one after another.
    partial = TextVectorizer(weighting=weighting, min_df=min_df, stemmer="nltk")
    for start, stop in ((0, 1), (1, 400), (400, 401), (401, 1000), (1000, 1200)):
        partial.partial_fit(docs[start:stop])
    generator = TextVectorizer(weighting=weighting, min_df=min_df, stemmer="nltk")
    generator.fit(doc for doc in docs)
    for vec in (chunked, partial, generator):
        assert vec.vocabulary_ == one_shot.vocabulary_
        np.testing.assert_array_equal(vec.document_frequency_, one_shot.document_frequency_)
        assert (vec.n_documents_, vec.n_empty_) == (1200, one_shot.n_empty_)
        if weighting == "tfidf":
            np.testing.assert_array_equal(vec.idf_, one_shot.idf_)
        assert (vec.transform(docs) != X_one).nnz == 0
    assert one_shot.n_empty_ == len(range(0, 1200, 17))
    # the one-shot matrix is the plain CountVectorizer's
    X_ref, names = _sklearn_counts(docs)
    df = np.asarray((X_ref > 0).sum(axis=0)).ravel()
    keep = df >= (min_df if isinstance(min_df, int) else np.ceil(min_df * len(docs)))
    assert one_shot.get_feature_names_out().tolist() == names[keep].tolist()
    if weighting == "count":
        np.testing.assert_array_equal(X_one.toarray(), X_ref[:, keep].toarray())


def test_partial_fit_continues_a_fit_and_refuses_changed_settings():
    docs = _random_corpus(200)
    vec = TextVectorizer(weighting="tfidf", stemmer="nltk").fit(docs[:100])
    first, first_items = vec.vocabulary_, list(vec.vocabulary_.items())
    vec.partial_fit(docs[100:])
    whole = TextVectorizer(weighting="tfidf", stemmer="nltk").fit(docs)
    assert vec.vocabulary_ == whole.vocabulary_ and len(whole.vocabulary_) > len(first_items)
    assert list(first.items()) == first_items  # the first fit's vocabulary left as it was
    np.testing.assert_array_equal(vec.idf_, whole.idf_)
    vec.fit(docs[:100])  # fit starts again
    assert vec.n_documents_ == 100
    with pytest.raises(ValueError, match="fit again after set_params"):
        vec.set_params(stem=False).partial_fit(docs)
    with pytest.raises(ValueError, match="stemmer='porter2' is not one of"):
        TextVectorizer(stemmer="porter2").fit(docs)


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


def test_a_saved_model_keeps_the_stemmer_it_was_fitted_with(tmp_path, monkeypatch, capsys):
    pytest.importorskip("Stemmer")
    from sklearn.pipeline import Pipeline

    from textwin.linear import DualSVM
    from textwin.persistence import TextModel, load_model, save_model

    docs = ["aged wine always ages", "young wine", "aged cheese", "always young"] * 5
    y = np.array([1, 0, 1, 0] * 5)
    pipe = Pipeline([("vec", TextVectorizer(weighting="count")),
                     ("svm", DualSVM(lam=1e-2, random_state=0))]).fit(docs, y)
    assert pipe[0].stemmer_ == "pystemmer" and pipe[0].get_params()["stemmer"] == "auto"
    save_model(tmp_path / "m.npz", pipe)
    model = load_model(tmp_path / "m.npz")
    assert model.preprocessing["stemmer"] == "pystemmer"  # not "auto"
    assert model.vectorizer().stemmer_ == "pystemmer"
    np.testing.assert_array_equal(model.decision_function(docs), pipe.decision_function(docs))
    # `textwin predict` where PyStemmer is missing: one line that says what to install
    from textwin.cli import EXIT_BAD_MODEL, main

    (tmp_path / "doc.txt").write_text("aged wine")
    with monkeypatch.context() as patch:
        patch.setitem(sys.modules, "Stemmer", None)
        code = main(["predict", str(tmp_path / "m.npz"), str(tmp_path / "doc.txt")])
    err = capsys.readouterr().err.strip()
    assert code == EXIT_BAD_MODEL and len(err.splitlines()) == 1
    assert "fitted with PyStemmer" in err and "pip install PyStemmer" in err
    assert main(["predict", str(tmp_path / "m.npz"), str(tmp_path / "doc.txt")]) == 0
    # A file written before the choice of stemmer existed has no "stemmer": its
    # vocabulary is NLTK's stems, and so are those of the texts it scores.
    old = TextModel(np.ones((1, 2)), np.zeros(1), ["aged"], vocabulary=["age", "alway"],
                    preprocessing={"weighting": "binary"})
    assert old.vectorizer().stemmer_ == "nltk"
    assert old.transform(["aged always"]).toarray().tolist() == [[1.0, 1.0]]


def test_hashed_columns_are_scikit_learns_hashing_vectorizer(tmp_path):
    from sklearn.feature_extraction.text import HashingVectorizer

    docs = _random_corpus(300) + DOCS
    stem_one = functools.lru_cache(maxsize=None)(NLTKPorter().stem)
    peer = HashingVectorizer(analyzer=lambda d: [stem_one(t) for t in tokenize(d)],
                             n_features=64, alternate_sign=False, norm=None)
    C_ref = peer.transform(docs)  # 64 columns: many terms share one
    vec = TextVectorizer(weighting="count", stemmer="nltk", n_features=64)
    X = vec.fit_transform(docs)
    assert X.shape == (len(docs), 64) and X.has_sorted_indices
    np.testing.assert_array_equal(X.toarray(), C_ref.toarray())
    assert not hasattr(vec, "vocabulary_")
    np.testing.assert_array_equal(vec.document_frequency_,
                                  np.asarray((C_ref > 0).sum(axis=0)).ravel())
    # unseen terms count too (no vocabulary to drop them)
    np.testing.assert_array_equal(vec.transform(["zebra quagga"]).toarray(),
                                  peer.transform(["zebra quagga"]).toarray())
    # tf-idf over the hashed columns, in batches as in one fit
    tfidf = TextVectorizer(weighting="tfidf", stemmer="nltk", n_features=64)
    for start in range(0, len(docs), 70):
        tfidf.partial_fit(docs[start:start + 70])
    ref = TfidfTransformer(sublinear_tf=True).fit(C_ref)
    np.testing.assert_allclose(tfidf.idf_, ref.idf_)
    np.testing.assert_allclose(tfidf.transform(docs).toarray(), ref.transform(C_ref).toarray())
    # what hashed columns cannot do, said plainly
    with pytest.raises(ValueError, match="no names"):
        vec.get_feature_names_out()
    with pytest.raises(ValueError, match="min_df=2 filters a vocabulary"):
        TextVectorizer(n_features=64, min_df=2).fit(docs)
    for bad in (0, 2**31, 1.5, True):
        with pytest.raises(ValueError, match="n_features"):
            TextVectorizer(n_features=bad).fit(docs)
    from sklearn.pipeline import Pipeline

    from textwin.linear import DualSVM
    from textwin.persistence import save_model

    pipe = Pipeline([("vec", TextVectorizer(n_features=256)),
                     ("svm", DualSVM(lam=1e-2, random_state=0))])
    pipe.fit(docs, np.arange(len(docs)) % 2)
    with pytest.raises(ValueError, match="joblib.dump"):
        save_model(tmp_path / "m.npz", pipe)
    assert not (tmp_path / "m.npz").exists()


def test_the_command_lines_models_record_the_stemmer(tmp_path, capsys):
    import json

    from textwin.cli import main
    from textwin.persistence import load_model

    corpus = tmp_path / "c.jsonl"
    texts = ["aged wheat always", "young oil", "aged corn", "oil prices"] * 10
    corpus.write_text("".join(json.dumps({"text": t, "labels": ["grain"] if i % 2 == 0 else
                                          ["crude"]}) + "\n" for i, t in enumerate(texts)))
    assert main(["train", "--corpus", str(corpus), "--category", "grain", "--features", "5",
                 "-o", str(tmp_path / "m.npz")]) == 0
    model = load_model(tmp_path / "m.npz")
    assert model.preprocessing["stemmer"] == text_module.resolve_stemmer("auto")  # not "auto"
    aged = "ag" if model.preprocessing["stemmer"] == "pystemmer" else "age"
    assert aged in model.vocabulary.tolist()


def test_decomposed_accents_are_one_word():
    # Text from macOS or a PDF may spell "é" as "e" and a combining accent (NFD); the
    # accent is no letter, and "médecin" was read as "me" and "decin".
    import unicodedata

    nfc = "Le médecin de l'hôpital: épidémie, Größe"
    nfd = unicodedata.normalize("NFD", nfc)
    assert nfd != nfc
    assert tokenize(nfd) == tokenize(nfc) == ["le", "médecin", "de", "l", "hôpital",
                                              "épidémie", "größe"]
    vec = TextVectorizer(stemmer="nltk").fit([nfd, nfc + " ∑"])  # beyond latin-1: regex path
    assert "decin" not in vec.vocabulary_ and "médecin" in vec.vocabulary_
    X = vec.transform([nfd, nfc])
    assert (X[0] != X[1]).nnz == 0


FRENCH = ("Les médecins continuellement sollicités par les nationalités économiques des "
          "marchés financiers travaillaient et travaillent encore")


@pytest.mark.parametrize("backend", ["nltk", "pystemmer"])
def test_a_language_other_than_english_takes_snowballs_stemmer_of_it(backend):
    from nltk.stem.snowball import SnowballStemmer

    if backend == "pystemmer":
        pytest.importorskip("Stemmer")
    words = tokenize(FRENCH)
    got = PorterStemmer(backend=backend, language="french").stem_many(words)
    french = SnowballStemmer("french")
    assert got == [w if len(w) <= 2 else french.stem(w) for w in words]
    assert "médecin" in got and "travaill" in got
    # not the English stemmer's stems, and not its memo
    assert got != PorterStemmer(backend=backend).stem_many(words)


def test_the_vectorizers_language_reaches_transform_pickles_and_clones():
    vec = TextVectorizer(language="german", stemmer="nltk").fit(
        ["Die Häuser der Städte", "Ein Haus in der Stadt"])
    # Häuser and Haus, Städte and Stadt: one stem each
    assert {"haus", "stadt"} <= set(vec.vocabulary_) and "häus" not in vec.vocabulary_
    assert vec.transform(["Häuser Städte"]).nnz == 2
    again = pickle.loads(pickle.dumps(vec))
    np.testing.assert_array_equal(again.transform(["Häuser"]).toarray(),
                                  vec.transform(["Häuser"]).toarray())
    assert clone(vec).get_params()["language"] == "german"
    with pytest.raises(ValueError, match=r"language='klingon' has no stemmer here; choose "
                                         r"one of arabic, .*french.*stem=False"):
        TextVectorizer(language="klingon").fit(["a b"])
    with pytest.raises(ValueError, match="fit again after set_params"):
        vec.set_params(language="french").transform(["Häuser"])


# ---------------------------------------------------------------------------
# Word n-grams
# ---------------------------------------------------------------------------

def _sklearn_ngrams(docs, ngram_range, min_df=1, stem_one=None):
    """scikit-learn's word n-grams over textwin's tokens and NLTK's stems: the counts
    and the names."""
    stem_one = functools.lru_cache(maxsize=None)(stem_one or NLTKPorter().stem)
    cv = CountVectorizer(tokenizer=lambda d: [stem_one(t) for t in tokenize(d)],
                         token_pattern=None, lowercase=False, ngram_range=ngram_range,
                         min_df=min_df)
    return cv.fit_transform(docs), cv.get_feature_names_out()


def _digest(vec, X, docs):
    import hashlib

    h = hashlib.sha256()
    for a in (X.data, X.indices.astype(np.int64), X.indptr.astype(np.int64),
              vec.transform(docs[::-1]).data):
        h.update(np.ascontiguousarray(a).tobytes())
    h.update("\n".join(vec.get_feature_names_out()).encode())
    return h.hexdigest()[:32]


@pytest.mark.parametrize("weighting, digest", [
    ("binary", "f5975676811a8220ab3d49da1d856490"),
    ("count", "81acf5eb5c7d7bc7db03802d335c1301"),
    ("tfidf", "4aabf94097cbf4407e07486128694d05")])
def test_the_default_is_words_only_bit_for_bit_as_before_ngrams(weighting, digest):
    # The digests are those of the words-only vectorizer before n-grams existed
    # (latin-1 and regex paths, every weighting): the default changes no bit.
    docs = _random_corpus(400, seed=1) + DOCS + ["Grüße, naïve café; Ελληνικά λόγια"]
    assert TextVectorizer().get_params()["ngram_range"] == (1, 1)
    for vec in (TextVectorizer(weighting=weighting, stemmer="nltk"),
                TextVectorizer(weighting=weighting, stemmer="nltk", ngram_range=[1, 1])):
        assert _digest(vec, vec.fit_transform(docs), docs) == digest


@pytest.mark.parametrize("ngram_range", [(1, 2), (1, 3), (2, 2), (2, 4)])
def test_ngrams_are_scikit_learns_over_the_stems(ngram_range, monkeypatch):
    # words with one stem make one n-gram ("rates rising", "Rate rises": "rate rise");
    # the fast latin-1 path, the regex path (Greek) and chunks of 4,000 / (4 max_n) characters
    docs = DOCS + _random_corpus(200) + ["Ελληνικά λόγια, Ελληνικά", "rates rising. Rate rises"]
    X_ref, names = _sklearn_ngrams(docs, ngram_range)
    monkeypatch.setattr(text_module, "CHUNK_CHARACTERS", 4000)
    vec = TextVectorizer(weighting="count", stemmer="nltk", ngram_range=ngram_range)
    X = vec.fit_transform(docs)
    assert vec.get_feature_names_out().tolist() == names.tolist()
    assert (X != X_ref).nnz == 0 and X.has_sorted_indices
    assert (vec.transform(docs) != X_ref).nnz == 0
    if ngram_range == (1, 2):
        assert X[len(docs) - 1, vec.vocabulary_["rate rise"]] == 2
        # an n-gram spans punctuation and numbers, never two documents
        assert "pct the" in vec.vocabulary_ and "said ship" not in vec.vocabulary_


def test_the_words_of_an_ngram_vocabulary_are_the_words_only_vocabulary():
    docs = _random_corpus(300) + DOCS
    words = TextVectorizer(weighting="tfidf", stemmer="nltk")
    X1 = words.fit_transform(docs)
    both = TextVectorizer(weighting="count", stemmer="nltk", ngram_range=(1, 2))
    X2 = both.fit_transform(docs)
    unigrams = [j for t, j in sorted(both.vocabulary_.items()) if " " not in t]
    assert both.get_feature_names_out()[unigrams].tolist() == words.get_feature_names_out().tolist()
    assert (X2[:, unigrams] != TextVectorizer(weighting="count", stemmer="nltk")
            .fit_transform(docs)).nnz == 0
    assert X2.shape[1] > 2 * X1.shape[1]


@pytest.mark.parametrize("weighting, min_df", [("count", 2), ("tfidf", 3), ("tfidf", 0.01)])
def test_ngrams_in_chunks_and_batches_with_min_df_equal_one_fit(monkeypatch, weighting, min_df):
    docs = _random_corpus(600) + ["grain exports rose"] * 8
    one_shot = TextVectorizer(weighting=weighting, min_df=min_df, stemmer="nltk",
                              ngram_range=(1, 2))
    X_one = one_shot.fit_transform(docs)
    X_ref, names = _sklearn_ngrams(docs, (1, 2), min_df=min_df)
    assert one_shot.get_feature_names_out().tolist() == names.tolist()
    assert "export rose" in one_shot.vocabulary_
    if weighting == "count":
        assert (X_one != X_ref).nnz == 0
    else:
        ref = TfidfTransformer(sublinear_tf=True).fit(X_ref)
        np.testing.assert_array_equal(one_shot.idf_, ref.idf_)
        np.testing.assert_array_equal(X_one.toarray(), ref.transform(X_ref).toarray())
    monkeypatch.setattr(text_module, "CHUNK_CHARACTERS", 6000)
    partial = TextVectorizer(weighting=weighting, min_df=min_df, stemmer="nltk",
                             ngram_range=(1, 2))
    for start in range(0, len(docs), 130):
        partial.partial_fit(iter(docs[start:start + 130]))
    assert partial.vocabulary_ == one_shot.vocabulary_
    np.testing.assert_array_equal(partial.document_frequency_, one_shot.document_frequency_)
    assert (partial.transform(docs) != X_one).nnz == 0


def test_hashed_ngrams_are_scikit_learns_hashing_vectorizer():
    from sklearn.feature_extraction.text import HashingVectorizer

    docs = _random_corpus(300) + DOCS
    stem_one = functools.lru_cache(maxsize=None)(NLTKPorter().stem)
    peer = HashingVectorizer(tokenizer=lambda d: [stem_one(t) for t in tokenize(d)],
                             token_pattern=None, lowercase=False, ngram_range=(1, 3),
                             n_features=512, alternate_sign=False, norm=None)
    vec = TextVectorizer(weighting="count", stemmer="nltk", n_features=512, ngram_range=(1, 3))
    np.testing.assert_array_equal(vec.fit_transform(docs).toarray(),
                                  peer.transform(docs).toarray())


def test_ngrams_of_another_language_are_of_its_stems():
    vec = TextVectorizer(language="german", stemmer="nltk", ngram_range=(1, 2)).fit(
        ["Die Häuser der Städte", "Ein Haus in der Stadt"])
    assert {"haus", "der stadt", "die haus", "haus der"} <= set(vec.vocabulary_)
    assert vec.transform(["die Häuser, die Häuser"]).nnz == 3  # die, haus, die haus


def test_an_ngram_range_is_checked_and_kept_by_clones_and_pickles():
    for bad in ((0, 1), (1, 0), (1, 9), (3, 2), (1.0, 2), (1, 2.5), (True, 2), "12", (1,),
                (1, 2, 3), 2, None):
        with pytest.raises(ValueError, match="ngram_range"):
            TextVectorizer(ngram_range=bad).fit(DOCS)
    with pytest.raises(ValueError, match=f"max_n <= {text_module.MAX_NGRAM}"):
        TextVectorizer(ngram_range=(1, text_module.MAX_NGRAM + 1)).fit(DOCS)
    TextVectorizer(ngram_range=(1, text_module.MAX_NGRAM)).fit(DOCS)
    TextVectorizer(ngram_range=(np.int64(1), np.int64(2))).fit(DOCS)
    vec = TextVectorizer(ngram_range=(1, 2)).fit(DOCS)
    assert clone(vec).get_params()["ngram_range"] == (1, 2)
    again = pickle.loads(pickle.dumps(vec))
    assert (again.transform(DOCS) != vec.transform(DOCS)).nnz == 0
    with pytest.raises(ValueError, match=r"ngram_range=\(1, 3\) \(fitted with \(1, 2\)\)"):
        vec.set_params(ngram_range=(1, 3)).transform(DOCS)
    # pickled before n-grams existed: words only
    old = TextVectorizer(stemmer="nltk").fit(DOCS)
    state = old.__getstate__()
    del state["ngram_range"]
    state["_fitted_settings"] = {k: v for k, v in state["_fitted_settings"].items()
                                 if k != "ngram_range"}
    unpickled = TextVectorizer.__new__(TextVectorizer)
    unpickled.__setstate__(state)
    assert unpickled.get_params()["ngram_range"] == (1, 1)
    assert (unpickled.transform(DOCS) != old.transform(DOCS)).nnz == 0


def test_a_model_file_records_the_ngrams_and_an_older_file_reads_as_words(tmp_path):
    import json

    from sklearn.pipeline import Pipeline

    from textwin.linear import DualSVM
    from textwin.persistence import load_model, save_model

    docs = ["interest rates rose", "rates of interest fell", "oil prices rose",
            "prices of oil fell"] * 5
    y = np.array([1, 1, 0, 0] * 5)
    pipe = Pipeline([("vec", TextVectorizer(weighting="tfidf", ngram_range=(1, 2))),
                     ("svm", DualSVM(lam=1e-2, random_state=0))]).fit(docs, y)
    save_model(tmp_path / "m.npz", pipe)
    model = load_model(tmp_path / "m.npz")
    assert model.preprocessing["ngram_range"] == [1, 2]  # JSON has lists
    assert "interest rate" in model.vocabulary.tolist()
    np.testing.assert_array_equal(model.decision_function(docs), pipe.decision_function(docs))

    def rewrite(name, change):
        """The model file, its preprocessing changed by ``change``, saved as ``name``
        (the same arrays in np.savez_compressed's archive, the layout save_model writes)."""
        with np.load(tmp_path / "m.npz") as npz:
            arrays = dict(npz)
        meta = json.loads(arrays["__metadata__"].tobytes())
        change(meta["preprocessing"])
        arrays["__metadata__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
        np.savez_compressed(tmp_path / name, **arrays)
        return tmp_path / name

    # written before n-grams existed: no ngram_range, words only
    words = TextVectorizer(weighting="tfidf").fit(docs)
    old_pipe = Pipeline([("vec", words), ("svm", DualSVM(lam=1e-2, random_state=0))]).fit(docs, y)
    save_model(tmp_path / "m.npz", old_pipe)
    old = load_model(rewrite("old.npz", lambda p: p.pop("ngram_range")))
    assert "ngram_range" not in old.preprocessing
    assert old.vectorizer().get_params()["ngram_range"] == (1, 1)
    np.testing.assert_array_equal(old.decision_function(docs), old_pipe.decision_function(docs))


def _same_csr(P, Q):
    return P.shape == Q.shape and all(
        np.array_equal(getattr(P, a), getattr(Q, a)) and getattr(P, a).dtype == getattr(Q, a).dtype
        for a in ("data", "indices", "indptr"))


@pytest.mark.parametrize("params", [
    dict(weighting="tfidf"),
    dict(weighting="tfidf", stem=False, ngram_range=(1, 2), min_df=2),
    dict(weighting="binary", min_df=0.1, ngram_range=(1, 3)),
    dict(weighting="count", n_features=64),
    dict(weighting="tfidf", ngram_range=None, char_ngrams=(2, 5), min_df=2),
    dict(weighting="tfidf", ngram_range=(1, 2), char_ngrams=(1, 3)),
])
def test_fold_matrices_are_each_folds_own_vectorizer_bit_for_bit(params):
    """Counted once, each fold's matrices are those of a vectorizer fitted on its training
    part: its own vocabulary (terms only its held-out part has are dropped, min_df
    counted in its training part) and its own idf."""
    rng = random.Random(0)
    words = ["grain", "grains", "wheat", "corn", "ship", "shipping", "rose", "rises",
             "Müller", "Zürich", "ọ̀rọ̀", "ẹ̀kọ́", "bank", "oil"]
    texts = [" ".join(rng.choice(words[:rng.randint(3, len(words))])
                      for _ in range(rng.randint(0, 12))) for _ in range(40)]
    order = np.random.default_rng(0).permutation(40)
    folds = [(np.setdiff1d(order, order[k::3]), order[k::3]) for k in range(3)]
    matrices = text_module.fold_matrices(TextVectorizer(**params), texts, folds)
    assert matrices.counts.data.dtype == np.uint8  # kept small, built in float64
    got = list(matrices)
    assert len(got) == 3
    for (train, test), (A, B) in zip(folds, got):
        vec = TextVectorizer(**params)
        assert _same_csr(A, vec.fit_transform([texts[i] for i in train]))
        assert _same_csr(B, vec.transform([texts[i] for i in test]))


@pytest.mark.parametrize("repeats, kept", [(255, np.uint8), (300, np.uint16),
                                            (70_000, np.float32)])
def test_fold_matrices_keep_counts_too_large_for_a_byte_exactly(repeats, kept):
    """A word counted more often than the smallest type holds: the counts are kept in the
    next type, and the folds' matrices are still their own vectorizer's."""
    texts = ["grain wheat", "corn " + "oil " * repeats, "wheat oil", "corn grain",
             "oil oil wheat", "grain"]
    folds = [([0, 1, 2, 3], [4, 5]), ([2, 3, 4, 5], [0, 1])]
    for params in (dict(weighting="count"), dict(weighting="tfidf", char_ngrams=(2, 3))):
        matrices = text_module.fold_matrices(TextVectorizer(**params), texts, folds)
        assert matrices.counts.data.dtype == kept
        for (train, test), (A, B) in zip(folds, matrices):
            vec = TextVectorizer(**params)
            assert _same_csr(A, vec.fit_transform([texts[i] for i in train]))
            assert _same_csr(B, vec.transform([texts[i] for i in test]))


def test_fold_matrices_refuse_a_fold_without_words_as_the_vectorizer_does():
    texts = ["grain wheat", "1987", "12,500", "corn"]
    with pytest.raises(ValueError, match="contain no word at all"):
        list(text_module.fold_matrices(TextVectorizer(), texts, [([1, 2], [0, 3])]))


@pytest.mark.parametrize("texts, language", [
    (['Ich sage es dir: der Hund und die Katze sind nicht auf dem Dach, das ist ein Bericht des Tages mit einer Frage zu den Kindern, die sich auch von ihr eine Antwort wünschen, sagt sie.'] * 3, "german"),
    (['The dog and the cat are not in the house; it is said by the man that this was for you to have with him at home from now on, and it will be one of those days.'] * 3,
     "english"),
    (['Le chat est sur la table et il ne dort pas dans le lit avec les enfants qui sont au parc pour une heure, ce que des amis du village disent un jour.'] * 3,
     "french"),
    (['Я сказал, что он и она не были в доме, как то это было по дороге из города к морю у реки за мостом для друга от брата, но потом а на работе с ним.'] * 3,
     "russian"),
    # a few English words quoted in text of a language without a stemmer here
    (["Ọ̀rọ̀ àjọ ìjọba ní ìlú Èkó ti ṣàlàyé pé wọ́n ń ṣe iṣẹ́ náà " * 5
      + "the news of the day"] * 5, None),
    (["हिन्दी भाषा में लिखा गया यह एक वाक्य है"] * 5, None),
    (["", "123 456"], None),
])
def test_detect_language_reads_the_function_words(texts, language):
    from textwin.text import detect_language

    assert detect_language(texts) == language


def test_words_found_once_count_as_each_vectorizer_finds_them(monkeypatch):
    """Words shared by several settings (stemming, n-grams, weighting, min_df) give each
    the matrices it gets by finding them itself, chunk by chunk; a vectorizer that finds
    other words (another case, longer n-grams than the chunks were cut for) finds its own."""
    monkeypatch.setattr(text_module, "CHUNK_CHARACTERS", 400)  # several chunks
    rng = random.Random(1)
    vocab = ["Grain", "grains", "WHEAT", "corn", "Shipping", "ships", "rose", "Müller",
             "ọ̀rọ̀", "bank", "banks", "oil"]
    texts = [" ".join(rng.choice(vocab) for _ in range(rng.randint(0, 9))) for _ in range(60)]
    order = np.random.default_rng(1).permutation(60)
    folds = [(np.setdiff1d(order, order[k::4]), order[k::4]) for k in range(4)]
    words = text_module.Words(texts, max_n=2)
    assert len(words.chunks) > 1
    for params in [dict(weighting="tfidf"), dict(weighting="tfidf", stem=False),
                   dict(ngram_range=(1, 2), min_df=2), dict(stem=False, ngram_range=(1, 2)),
                   dict(lowercase=False), dict(ngram_range=(1, 3))]:
        vec = TextVectorizer(**params)
        shared = text_module.fold_matrices(vec, texts, folds, words)
        for (A, B), (A0, B0) in zip(shared, text_module.fold_matrices(vec, texts, folds)):
            assert _same_csr(A, A0) and _same_csr(B, B0), params
