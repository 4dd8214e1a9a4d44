"""The compact vocabulary (textwin/_kernels/_vocabulary.pyx, src/vocabulary.c) against a
plain dict: the same columns for every term, present or absent, on random multi-script
text; the same sorted order as Python's; character n-grams looked up from code points
as their strings are; and a vectorizer's vocabulary through a model file and a pickle."""
import pickle
import random
import subprocess
import sys

import numpy as np
import pytest

from textwin._kernels._vocabulary import Vocabulary
from textwin.persistence import ModelFormatError, Terms, load_model, save_model
from textwin.text import CHAR_PREFIX, TextVectorizer
from _textwin_process import CWD, ENV  # tests/ on sys.path

# Latin with accents, Greek, Cyrillic, CJK, Devanagari, emoji (beyond the BMP),
# combining marks, a lone surrogate (what surrogatepass keeps), and ASCII.
ALPHABET = ("abcdexyz" + "éüßøñ" + "αβγΣ" + "жщы" + "日本語東京中文" + "हिन्दी"
            + "\U0001F600\U0001F44D\U0001F3FD\U00010348" + "\u0301\u0308\u20dd" + "\ud800"
            + " -:")


def _random_terms(rng, n, longest=7):
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, longest)))
            for _ in range(n)]


def test_lookups_agree_with_a_dict_on_random_multiscript_terms():
    rng = random.Random(0)
    vocab, ref = Vocabulary(), {}
    for _ in range(20):  # batches with repeats, across the table's growth
        batch = _random_terms(rng, 3000, longest=4)
        got = vocab.columns(batch, True)
        want = [ref.setdefault(t, len(ref)) for t in batch]
        assert got.tolist() == want
    assert len(vocab) == len(ref) > 10_000
    # terms present and absent (many absent ones as long as present ones), one by one
    # and in bulk
    probe = _random_terms(rng, 20_000, longest=5) + list(ref)[::7]
    assert vocab.columns(probe, False).tolist() == [ref.get(t, -1) for t in probe]
    assert [vocab.get(t) for t in probe] == [ref.get(t) for t in probe]
    assert [t in vocab for t in probe] == [t in ref for t in probe]
    assert list(vocab) == list(ref) and vocab == ref and dict(vocab.items()) == ref
    assert vocab.get(3) is None and 3 not in vocab
    with pytest.raises(KeyError):
        vocab["not there" * 3]


def test_sorted_columns_are_pythons_sorted_order():
    rng = random.Random(1)
    vocab = Vocabulary()
    terms = list(dict.fromkeys(_random_terms(rng, 5000)))
    vocab.columns(terms, True)
    assert [terms[j] for j in vocab.sorted_columns()] == sorted(terms)
    kept = vocab.sorted_columns()[::3]
    taken = vocab.take(kept)
    assert taken == {terms[j]: k for k, j in enumerate(kept)}
    with pytest.raises(ValueError, match=f"column {kept[1]} is given twice"):
        vocab.take([kept[0], kept[1], kept[2], kept[1]])


def test_char_ngrams_from_code_points_are_their_strings_columns():
    rng = random.Random(2)
    words = _random_terms(rng, 2000, longest=6)
    codes = np.array([ord(c) for c in "".join(words)], dtype=np.uint32)
    length = np.array([len(w) for w in words], dtype=np.int32)
    first = np.concatenate([[0], np.cumsum(length)[:-1]]).astype(np.int64)
    by_codes, by_strings = Vocabulary(), Vocabulary()
    by_strings.columns(["a word", CHAR_PREFIX + words[5]], True)
    by_codes.columns(["a word", CHAR_PREFIX + words[5]], True)
    got = by_codes.columns_of_codes(CHAR_PREFIX, codes, first, length, True)
    want = by_strings.columns([CHAR_PREFIX + w for w in words], True)
    assert got.tolist() == want.tolist() and by_codes == by_strings
    absent = Vocabulary()
    assert (absent.columns_of_codes(CHAR_PREFIX, codes, first, length, False) == -1).all()


def test_buffers_round_trip_and_a_repeat_is_refused():
    rng = random.Random(3)
    vocab = Vocabulary()
    vocab.columns(_random_terms(rng, 3000), True)
    again = Vocabulary.from_buffers(vocab.utf8, vocab.offsets)
    assert again == vocab and pickle.loads(pickle.dumps(vocab)) == vocab
    assert Terms.of(vocab).tolist() == vocab.tolist()
    terms = Terms.of(["ab", "c", "ab"])
    with pytest.raises(ModelFormatError, match="'ab' twice"):
        terms.columns()
    # each term's own bytes must be UTF-8: "é" cut between two terms is refused
    cut = Terms(np.frombuffer("xé".encode(), dtype=np.uint8), np.array([0, 2, 3]))
    with pytest.raises(ModelFormatError, match="term 0 .* not UTF-8"):
        cut.columns()


TEXTS = ["Über die Straße 日本語のテキスト \U0001F600\U0001F44D\U0001F3FD",
         "cafe\u0301 naïve ΣΊΣΥΦΟΣ hindi हिन्दी", "plain ascii words and words",
         "emoji \U0001F600 again, Straße"] * 3


def test_a_vectorizers_vocabulary_through_a_model_file_and_a_pickle(tmp_path):
    from sklearn.pipeline import make_pipeline

    from textwin import DualGaussSeidelClassifier

    vec = TextVectorizer(char_ngrams=(1, 4), ngram_range=(1, 2), weighting="tfidf")
    pipe = make_pipeline(vec, DualGaussSeidelClassifier()).fit(TEXTS, [0, 1, 0, 1] * 3)
    names = vec.get_feature_names_out().tolist()
    assert names == sorted(names) and vec.vocabulary_ == {t: j for j, t in enumerate(names)}
    save_model(tmp_path / "m.npz", pipe)
    loaded = load_model(tmp_path / "m.npz").vectorizer()
    assert isinstance(loaded.vocabulary_, Vocabulary) and loaded.vocabulary_ == vec.vocabulary_
    assert (loaded.transform(TEXTS) != vec.transform(TEXTS)).nnz == 0
    unpickled = pickle.loads(pickle.dumps(vec))
    assert (unpickled.transform(TEXTS) != vec.transform(TEXTS)).nnz == 0
    # a vectorizer pickled when its vocabulary was a dict still transforms
    state = vec.__getstate__()
    state["vocabulary_"] = dict(vec.vocabulary_.items())
    state["_column_of_term"] = state["vocabulary_"]
    old = TextVectorizer.__new__(TextVectorizer)
    old.__setstate__(state)
    assert isinstance(old.vocabulary_, Vocabulary)
    assert (old.transform(TEXTS) != vec.transform(TEXTS)).nnz == 0


def test_every_term_is_found_after_the_table_grew_many_times():
    """The open-addressing table (src/slots.h) from 16 slots past 262,144: 120,000
    distinct terms added in batches (each batch's repeats and earlier terms found, not
    added), then every term found again at its column, by bytes and by code points, in
    copies made by take, from_buffers and a pickle (tables sized up front), while as
    many absent terms sharing the present ones' text are not found. A rehash that lost
    or misplaced one id fails this."""
    rng = random.Random(4)
    terms = [f"{k:x}|{rng.choice(ALPHABET)}" for k in range(120_000)]
    vocab = Vocabulary()
    for start in range(0, len(terms), 10_000):
        batch = terms[start:start + 10_000]
        earlier = rng.sample(range(start), min(start, 100))
        got = vocab.columns(batch + batch[::-3] + [terms[j] for j in earlier], True)
        want = list(range(start, start + len(batch)))
        assert got.tolist() == want + want[::-3] + earlier
    assert len(vocab) == len(terms) and vocab.nbytes() > 4 * 262_144
    columns = np.arange(len(terms))
    absent = [t + "~" for t in terms[::3]] + [t[:-1] for t in terms[::3]]
    assert vocab.columns(absent, False).tolist() == [-1] * len(absent)
    for copy in (vocab, vocab.take(columns), Vocabulary.from_buffers(vocab.utf8, vocab.offsets),
                 pickle.loads(pickle.dumps(vocab))):
        assert (copy.columns(terms, False) == columns).all()
        assert all(copy[terms[j]] == j for j in range(0, len(terms), 97))
    codes = np.array([ord(c) for c in "".join(terms)], dtype=np.uint32)
    length = np.array([len(t) for t in terms], dtype=np.int32)
    first = np.concatenate([[0], np.cumsum(length)[:-1]]).astype(np.int64)
    assert (vocab.columns_of_codes("", codes, first, length, False) == columns).all()
    by_codes = Vocabulary()
    assert (by_codes.columns_of_codes("", codes, first, length, True) == columns).all()
    assert by_codes == vocab


# In a process whose address space is capped 64 MiB above what it holds: a vocabulary
# grown until its memory runs out, then character n-grams counted past it.
OUT_OF_MEMORY = """
import os, resource
import numpy as np
from textwin._kernels._chars import count_char_ngrams
from textwin._kernels._vocabulary import Vocabulary
from textwin.text import _UNICODE_SPACES

rng = np.random.default_rng(0)
codes = rng.integers(97, 97 + 26, size=4_000_000, dtype=np.uint32)
codes[::9] = 32
held = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
resource.setrlimit(resource.RLIMIT_AS, (held + 64 * 2**20, resource.RLIM_INFINITY))
vocab = Vocabulary()
try:
    for k in range(0, 10**8, 10**5):
        vocab.columns([f"t{j}" for j in range(k, k + 10**5)], True)
except MemoryError as e:
    print(e)
n = len(vocab)
for k in range(0, n, 10**5):
    ids = np.arange(k, min(k + 10**5, n))
    assert (vocab.columns([f"t{j}" for j in ids], False) == ids).all()
assert f"t{n}" not in vocab
del vocab
try:
    count_char_ngrams(codes, np.array([codes.size], dtype=np.int64), 1, 8, _UNICODE_SPACES)
except MemoryError as e:
    print(e)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="caps memory as Linux does")
def test_memory_running_out_raises_memoryerror_and_keeps_what_is_in():
    """The C kernels' allocation failures (src/slots.h's growth among them) reach Python
    as MemoryError, never a crash: the vocabulary keeps every term it took, each found
    at its column."""
    run = subprocess.run([sys.executable, "-c", OUT_OF_MEMORY], env=ENV, cwd=CWD,
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["out of memory for a vocabulary",
                                       "out of memory counting character n-grams"]
