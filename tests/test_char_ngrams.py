"""Character n-grams inside word boundaries: TextVectorizer(char_ngrams=...) against
scikit-learn's analyzer="char_wb", alone and beside words."""
import collections
import random
import unicodedata

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import (
    CountVectorizer,
    HashingVectorizer,
    TfidfVectorizer,
)

from textwin.text import CHAR_PREFIX, MAX_CHAR_NGRAM, TextVectorizer
from _textwin_process import run_textwin  # tests/ on sys.path

TEXTS = [
    "Hello World, hello!  Über-Straße 12,5 %",
    "",
    "   ",
    "a\tb\u3000ccc  dd\u00a0e\u2028f\x1cg ",  # white space of many kinds, short words
    "日本語のテキストです。東京",              # one "word" to white-space splitting
    "x" * 12 + " ab abc abcd abcde abcdef",
    "İstanbul ŞEHİR ΣΊΣΥΦΟΣ",                 # lower case longer than the letter (İ)
    "cafe\u0301 naïve",                        # a decomposed accent: composed first
    "@user #hashtag :-) https://t.co/xyz",
]


def _lower(text):
    return unicodedata.normalize("NFC", text).lower()


def _our_counts(vec, X, i):
    names = vec.get_feature_names_out()
    row = X.getrow(i)
    return {names[j][len(CHAR_PREFIX):]: v for j, v in zip(row.indices, row.data)
            if names[j].startswith(CHAR_PREFIX)}


@pytest.mark.parametrize("bounds", [(2, 5), (1, 1), (3, 3), (4, 6), (1, 3), (5, 8)])
def test_each_documents_ngrams_are_char_wbs(bounds):
    """The n-grams of each document and their counts are scikit-learn's char_wb analyzer's
    after the same lower-casing (NFC, then str.lower)."""
    vec = TextVectorizer(ngram_range=None, char_ngrams=bounds, weighting="count")
    X = vec.fit_transform(TEXTS)
    analyze = CountVectorizer(analyzer="char_wb", ngram_range=bounds,
                              preprocessor=_lower).build_analyzer()
    for i, text in enumerate(TEXTS):
        assert _our_counts(vec, X, i) == collections.Counter(analyze(text)), text


@pytest.mark.parametrize("params", [{"sublinear_tf": True}, {"min_df": 2, "sublinear_tf": True}])
def test_tfidf_alone_is_tfidfvectorizers_char_wb(params):
    """Columns, idf and values of TfidfVectorizer(analyzer="char_wb", sublinear_tf=True);
    fitted on some texts and applied to others (unseen n-grams dropped)."""
    rng = random.Random(0)
    pool = ["Grain", "grains", "wheat", "Zürich", "Müller's", "corn,", "rose", "ships",
            "12.5", "日本語", "ọ̀rọ̀", "a", "I"]
    texts = [" ".join(rng.choice(pool) for _ in range(rng.randint(0, 10))) for _ in range(80)]
    ours = TextVectorizer(ngram_range=None, char_ngrams=(2, 5), weighting="tfidf",
                          min_df=params.get("min_df", 1))
    theirs = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), **params)
    A, B = ours.fit_transform(texts[:60]), theirs.fit_transform(texts[:60])
    assert [n[len(CHAR_PREFIX):] for n in ours.get_feature_names_out()] == \
        theirs.get_feature_names_out().tolist()
    np.testing.assert_allclose(ours.idf_, theirs.idf_, rtol=1e-12)
    np.testing.assert_allclose(A.toarray(), B.toarray(), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ours.transform(texts[60:]).toarray(),
                               theirs.transform(texts[60:]).toarray(), rtol=1e-12, atol=1e-15)


def test_beside_words_and_bigrams_each_part_is_its_own():
    """Words, bigrams and character n-grams side by side: the word columns are the words'
    vectorizer's, the character columns the characters', none shared."""
    words = TextVectorizer(ngram_range=(1, 2), weighting="count")
    chars = TextVectorizer(ngram_range=None, char_ngrams=(2, 4), weighting="count")
    both = TextVectorizer(ngram_range=(1, 2), char_ngrams=(2, 4), weighting="count")
    X, W, C = both.fit_transform(TEXTS), words.fit_transform(TEXTS), chars.fit_transform(TEXTS)
    names = both.get_feature_names_out().tolist()
    assert sorted(names) == names and len(set(names)) == len(names)
    assert X.shape[1] == W.shape[1] + C.shape[1]
    column = both.vocabulary_
    for part, vec in ((W, words), (C, chars)):
        cols = [column[t] for t in vec.get_feature_names_out()]
        np.testing.assert_array_equal(X[:, cols].toarray(), part.toarray())
    assert X.has_sorted_indices
    np.testing.assert_array_equal(both.transform(TEXTS).toarray(), X.toarray())


@pytest.mark.parametrize("weighting", ["binary", "count", "tfidf"])
def test_weighted_as_words_are(weighting):
    counted = TextVectorizer(ngram_range=(1, 1), char_ngrams=(2, 5), weighting="count")
    C = counted.fit_transform(TEXTS)
    vec = TextVectorizer(ngram_range=(1, 1), char_ngrams=(2, 5), weighting=weighting)
    X = vec.fit_transform(TEXTS)
    if weighting == "binary":
        np.testing.assert_array_equal(X.toarray(), (C.toarray() > 0).astype(float))
    elif weighting == "count":
        np.testing.assert_array_equal(X.toarray(), C.toarray())
    else:
        D = C.toarray()
        df = (D > 0).sum(0)
        idf = np.log((1 + len(TEXTS)) / (1 + df)) + 1
        V = np.where(D > 0, (1 + np.log(np.where(D > 0, D, 1))) * idf, 0.0)
        norms = np.linalg.norm(V, axis=1, keepdims=True)
        np.testing.assert_allclose(X.toarray(), V / np.where(norms > 0, norms, 1), rtol=1e-12)


def test_hashed_as_hashingvectorizer_hashes_their_names():
    """n_features: each n-gram, named with its prefix, in scikit-learn's hashed column."""
    inner = CountVectorizer(analyzer="char_wb", ngram_range=(2, 5),
                            preprocessor=_lower).build_analyzer()

    def analyze(text):
        return [CHAR_PREFIX + g for g in inner(text)]

    ours = TextVectorizer(ngram_range=None, char_ngrams=(2, 5), n_features=2**8,
                          weighting="count").fit_transform(TEXTS)
    theirs = HashingVectorizer(analyzer=analyze, n_features=2**8, alternate_sign=False,
                               norm=None).transform(TEXTS)
    np.testing.assert_array_equal(ours.toarray(), theirs.toarray())


def test_hashed_words_and_ngrams_in_one_column_add_up():
    """Hashed into few columns, a word and a character n-gram of one document meet in a
    column: the matrix of both is the sum of the words' and the n-grams' matrices."""
    params = dict(n_features=2**4, weighting="count")
    both = TextVectorizer(char_ngrams=(2, 4), **params).fit_transform(TEXTS)
    words = TextVectorizer(**params).fit_transform(TEXTS)
    chars = TextVectorizer(ngram_range=None, char_ngrams=(2, 4), **params).fit_transform(TEXTS)
    assert both.has_canonical_format
    assert ((words > 0).multiply(chars > 0)).nnz > 0  # columns shared: the case tested
    np.testing.assert_array_equal(both.toarray(), (words + chars).toarray())


def test_texts_with_unseen_ngrams_keep_their_rows():
    """transform drops the n-grams never seen in fit: empty texts, texts of unseen
    n-grams only (first, in the middle, last) and the others keep their rows and counts,
    those of scikit-learn's char_wb counter over the fitted vocabulary."""
    vec = TextVectorizer(ngram_range=None, char_ngrams=(2, 3), weighting="count")
    vec.fit(["grain wheat", "corn ships", "wheat corn"])
    texts = ["zzz qqq", "", "grain corn", "qq", "wheat xx grain", "", "xyz"]
    names = [n[len(CHAR_PREFIX):] for n in vec.get_feature_names_out()]
    theirs = CountVectorizer(analyzer="char_wb", ngram_range=(2, 3), vocabulary=names,
                             preprocessor=_lower).transform(texts)
    ours = vec.transform(texts)
    assert ours.shape == theirs.shape and ours.has_sorted_indices
    np.testing.assert_array_equal(ours.toarray(), theirs.toarray())
    np.testing.assert_array_equal(np.diff(ours.indptr), np.diff(theirs.indptr))


def test_min_df_bounds_the_columns_and_batches_equal_one_fit(monkeypatch):
    import textwin.text as text_module

    monkeypatch.setattr(text_module, "CHUNK_CHARACTERS", 800)  # several chunks
    rng = random.Random(2)
    pool = ["grain", "Wheat", "corn", "ships", "shipping", "Müller", "日本語", "rose"]
    pool += ["".join(rng.choice("abcdefghüé") for _ in range(rng.randint(1, 9)))
             for _ in range(30)]  # rare words, rare n-grams
    texts = [" ".join(rng.choice(pool) for _ in range(rng.randint(0, 12))) for _ in range(200)]
    full = TextVectorizer(char_ngrams=(2, 5))
    X = full.fit_transform(texts)
    bounded = TextVectorizer(char_ngrams=(2, 5), min_df=40)
    assert 0 < bounded.fit_transform(texts).shape[1] < X.shape[1]
    assert (bounded.document_frequency_ >= 40).all()
    batches = TextVectorizer(char_ngrams=(2, 5))
    for k in range(0, 200, 37):
        batches.partial_fit(texts[k:k + 37])
    assert batches.vocabulary_ == full.vocabulary_
    assert (batches.transform(texts) != X).nnz == 0


@pytest.mark.parametrize("bounds, message", [
    ((5, 2), r"1 <= min_n <= max_n"), ((0, 3), r"1 <= min_n"),
    ((2, 40), f"max_n <= {MAX_CHAR_NGRAM}"), ("2-5", "pair of ints"), ((2.0, 5), "pair of ints"),
])
def test_a_bad_range_is_refused_in_one_line(bounds, message):
    with pytest.raises(ValueError, match=message) as info:
        TextVectorizer(char_ngrams=bounds).fit(TEXTS)
    assert "\n" not in str(info.value)


def test_no_terms_at_all_is_refused():
    with pytest.raises(ValueError, match="no terms at all"):
        TextVectorizer(ngram_range=None).fit(TEXTS)


def test_a_word_named_like_a_char_ngram_is_refused():
    with pytest.raises(ValueError, match="begins as character n-grams"):
        TextVectorizer(token_pattern=r"\S+", char_ngrams=(2, 3)).fit(["char:x is a word"])
    TextVectorizer(token_pattern=r"\S+").fit(["char:x is a word"])  # no chars: no clash


def test_a_saved_model_with_char_ngrams_predicts_as_fitted(tmp_path):
    from sklearn.pipeline import make_pipeline

    from textwin import DualGaussSeidelClassifier
    from textwin.persistence import load_model, save_model

    texts = ["grain wheat corn", "corn harvest", "bank rates", "central banking",
             "wheaten grains", "bankers' rates"] * 3
    y = [0, 0, 1, 1, 0, 1] * 3
    pipe = make_pipeline(TextVectorizer(ngram_range=None, char_ngrams=(2, 5), weighting="tfidf"),
                         DualGaussSeidelClassifier()).fit(texts, y)
    save_model(tmp_path / "m.npz", pipe)
    model = load_model(tmp_path / "m.npz")
    assert model.preprocessing["char_ngrams"] in ([2, 5], (2, 5))
    new = ["wheatfields", "the banker", "grain banks"]
    np.testing.assert_allclose(model.decision_function(new), pipe.decision_function(new),
                               rtol=1e-12)
    assert sp.issparse(model.transform(new))


def test_occurrences_of_char_ngrams_are_the_texts_own_characters():
    """Each n-gram found where char_wb counts it (as many times), written as the text
    writes it, without the padding spaces."""
    vec = TextVectorizer(ngram_range=None, char_ngrams=(2, 5), weighting="count")
    X = vec.fit_transform(TEXTS)
    names = vec.get_feature_names_out()
    for i, text in enumerate(TEXTS):
        found = vec.occurrences(text)
        assert {j: len(v) for j, v in found.items()} == dict(
            zip(X[i].indices.tolist(), X[i].data.astype(int).tolist()))
        for j, written in found.items():
            gram = names[j][len(CHAR_PREFIX):]
            composed = unicodedata.normalize("NFC", text)
            assert all(w and (w in composed or w in composed.lower()) for w in written), \
                (gram, written)
            assert all(w.lower() == gram.strip() for w in written
                       if len(w) == len(w.lower())), (gram, written)
    found = TextVectorizer(char_ngrams=(2, 3)).fit(["Abc abd"]).occurrences("Abc")
    assert sorted(w for v in found.values() for w in v) == [
        "A", "Ab", "Ab", "Abc", "Abc", "bc", "bc", "c"]  # the word, " a", "ab", " ab", "abc", ...


def unspaced_corpus(n_per_class=60, script="han", seed=0):
    """Texts of two classes written without spaces between words, as Chinese, Japanese
    and Thai are: each class's words drawn from its own characters and a shared pool,
    every text a new sequence of them (a word tokenizer sees each as one new word).
    Returns ``(texts, labels)``, the classes alternating."""
    rng = random.Random(seed)
    base = {"han": 0x4E00, "thai": 0x0E01}[script]
    pool = [chr(base + k) for k in range(40)]
    shared, own = pool[:20], {"a": pool[20:30], "b": pool[30:40]}

    def word(label):
        return "".join(rng.choice(own[label] if rng.random() < 0.5 else shared)
                       for _ in range(rng.randint(2, 3)))

    texts, labels = [], []
    for _ in range(n_per_class):
        for label in ("a", "b"):
            texts.append("".join(word(label) for _ in range(rng.randint(6, 12))) + "。")
            labels.append(label)
    return texts, labels


@pytest.mark.parametrize("script, name", [("han", "Chinese or Japanese"), ("thai", "Thai")])
def test_unspaced_scripts_are_detected_and_learnt_from_their_characters(script, name):
    from textwin import TextClassifier
    from textwin.text import detect_unspaced_script

    texts, labels = unspaced_corpus(script=script)
    assert detect_unspaced_script(texts) == name
    assert detect_unspaced_script(["Ein deutscher Satz", "an English one"]) is None
    train, test = slice(0, 80), slice(80, None)
    clf = TextClassifier().fit(texts[train], labels[train])
    assert clf.script_ == name and clf.chars_ == (1, 3)
    assert not any(not t.startswith("char:") for t in clf.vectorizer_.vocabulary_)  # no words
    accuracy = np.mean(clf.predict(texts[test]) == np.array(labels[test]))
    words = TextClassifier(chars=None).fit(texts[train], labels[train])
    chance = np.mean(words.predict(texts[test]) == np.array(labels[test]))
    assert accuracy >= 0.9 and chance <= 0.65, (accuracy, chance)


def test_train_on_an_unspaced_corpus_says_so_in_one_line(tmp_path):
    """`textwin train` as a user runs it: the report says the texts have no spaces and
    that character n-grams stand in for the words; the model file records them."""
    import json

    from textwin.persistence import load_model

    texts, labels = unspaced_corpus()
    corpus = tmp_path / "zh.jsonl"
    with open(corpus, "w", encoding="utf-8") as fh:
        for i, (text, label) in enumerate(zip(texts, labels)):
            fh.write(json.dumps({"text": text, "labels": [label],
                                 "split": "train" if i < 80 else "test"}) + "\n")
    run = run_textwin("train", "--corpus", corpus, "-o", tmp_path / "m.npz", "--json")
    assert run.returncode == 0, run.stderr
    said = [line for line in run.stderr.splitlines() if "without spaces" in line]
    assert said == ["textwin: Chinese or Japanese texts, without spaces between words: "
                    "character 1-3-grams in place of words (--chars MIN-MAX for others)"], \
        run.stderr
    assert "stemmer" not in run.stderr  # no words, no stemmer to speak of
    assert json.loads(run.stdout)["accuracy"] >= 90.0
    model = load_model(tmp_path / "m.npz")
    assert model.preprocessing["char_ngrams"] == [1, 3]
    assert model.preprocessing["ngram_range"] is None


def test_the_search_on_an_unspaced_script_searches_its_characters_alone():
    from textwin import TextClassifierCV
    from textwin.text import UNSPACED_CHARS

    texts, labels = unspaced_corpus()
    search = TextClassifierCV(cv=3, lam_grid=[1.0, 0.1]).fit(texts[:80], labels[:80])
    assert search.script_ == "Chinese or Japanese" and search.chars_searched_ is False
    assert {(p["chars"], p["ngrams"]) for p in search.cv_results_["params"]} == {
        (UNSPACED_CHARS, 0)}
    assert np.mean(search.predict(texts[80:]) == np.array(labels[80:])) >= 0.9


def test_training_matrix_is_stacked_and_renumbered_as_small_counts():
    # The chunks' counts are stacked and renumbered in a byte a value and made float64
    # at the end: stacked as float64 beside the renumbered indices, they held about 0.65
    # of the training matrix's bytes above it (the refit's peak with character n-grams)
    import tracemalloc

    rng = np.random.default_rng(0)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words = ["".join(rng.choice(letters, 6)) for _ in range(3000)]
    texts = [" ".join(rng.choice(words, 40)) for _ in range(4000)]
    vec = TextVectorizer(weighting="tfidf", char_ngrams=(2, 5))
    tracemalloc.start()
    try:
        X = vec.fit_transform(texts)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    size = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    assert X.dtype == np.float64 and X.nnz > 3_000_000
    assert peak - held < 0.3 * size, f"{(peak - held) / size:.2f} of the matrix above it"
    np.testing.assert_array_equal(X.toarray()[:50],
                                  TextVectorizer(weighting="tfidf", char_ngrams=(2, 5)).fit(
                                      texts).transform(texts[:50]).toarray())


def test_the_kernels_table_keeps_every_ngram_through_its_growth():
    """The counting kernel (src/charngrams.c) alone, its hash table (src/slots.h) grown
    from 1,024 slots past 262,144 by about 130,000 distinct n-grams of random words:
    each document's n-grams and counts are scikit-learn's char_wb analyzer's, each
    column one distinct n-gram, numbered in order of first occurrence. A rehash that
    lost an id splits an n-gram into two columns; one that misplaced it merges two."""
    from textwin.text import _UNICODE_SPACES, count_char_ngrams

    rng = random.Random(5)
    letters = "abcdefghijklmnopqrstuvwxyzäöüß日本語中文"
    docs = [" ".join("".join(rng.choice(letters) for _ in range(rng.randint(1, 9)))
                     for _ in range(rng.randint(0, 30)))
            for _ in range(2500)]
    codes = np.array([ord(c) for c in "".join(docs)], dtype=np.uint32)
    ends = np.cumsum([len(d) for d in docs]).astype(np.int64)
    indptr, ids, counts, first, length, padded = count_char_ngrams(
        codes, ends, 1, 5, _UNICODE_SPACES)
    chars = "".join(map(chr, padded))
    grams = [chars[a:a + n] for a, n in zip(first.tolist(), length.tolist())]
    assert len(set(grams)) == len(grams) > 130_000
    assert (ids[np.sort(np.unique(ids, return_index=True)[1])] == np.arange(len(grams))).all()
    analyze = CountVectorizer(analyzer="char_wb", ngram_range=(1, 5),
                              lowercase=False).build_analyzer()
    for d, doc in enumerate(docs):
        row = slice(indptr[d], indptr[d + 1])
        ours = {grams[j]: c for j, c in zip(ids[row].tolist(), counts[row].tolist())}
        assert len(ours) == indptr[d + 1] - indptr[d]
        assert ours == collections.Counter(analyze(doc)), d
