"""Tokenizing, Porter stemming and vectorizing raw text (docs/mathematics.md §11).

The Reuters-21578 protocol turns a document into the set of Porter stems of its
words: lower case, no stop-word removal. Three pieces do that here:

- :func:`tokenize` splits a text into words with one regular expression,
  :data:`TOKEN_PATTERN`;
- :class:`PorterStemmer` is a Porter stemmer memoized per distinct token:
  NLTK's (pure Python) or PyStemmer's (Snowball's C implementation) when that
  optional package is installed. A corpus of millions of tokens has only tens
  of thousands of distinct ones, so each is stemmed once;
- :class:`TextVectorizer` is a scikit-learn transformer from raw texts to a CSR
  matrix of binary, count or L2-normalized tf-idf values over words and,
  optionally, word n-grams of their stems, fitted in one call or chunk by
  chunk (:meth:`TextVectorizer.partial_fit`).

The vectorizer builds no per-document Python objects. With the default token
pattern and a latin-1 corpus (Reuters is one), a chunk of documents is joined
into one byte string and its words are found with numpy: a table of word
bytes, the edges of the runs of word bytes, and the distinct words found by
grouping the runs by length and sorting their bytes as integers. N-grams are
pairs of integer ids (an (n-1)-gram's and a stem's), grouped by sorting them
as integers too: Python builds one string per distinct n-gram of a chunk,
never one per occurrence. The CSR matrix is then built with numpy from the
flat arrays of rows and columns.
"""
import array
import functools
import collections
import itertools
import math
import numbers
import re
import unicodedata

import numpy as np
import scipy.sparse as sp
from numpy.lib.stride_tricks import sliding_window_view

from textwin._kernels._chars import count_char_ngrams
from textwin._kernels._vocabulary import Vocabulary
from textwin._memory import release_free_memory
from textwin._languages import FUNCTION_WORDS, LANGUAGES, UNSPACED_SCRIPTS, check_language
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import murmurhash3_32
from sklearn.utils.sparsefuncs_fast import inplace_csr_row_normalize_l2
from sklearn.utils.validation import check_is_fitted

__all__ = ["TOKEN_PATTERN", "LETTERS_PATTERN", "STEMMERS", "LANGUAGES", "MAX_NGRAM",
           "MAX_CHAR_NGRAM", "CHAR_PREFIX", "tokenize",
           "compile_token_pattern", "PorterStemmer", "TextVectorizer", "Words", "fit_transform",
           "fold_matrices", "FoldMatrices", "detect_language", "detect_unspaced_script",
           "resolve_chars", "UNSPACED_CHARS", "check_char_ngrams", "make_vectorizer",
           "pystemmer_installed", "resolve_stemmer", "clear_stem_cache"]

#: The words of a text: maximal runs of (Unicode) letters, each letter with the
#: combining marks that follow it (``\\p{M}``, expanded by
#: :func:`compile_token_pattern`). Digits, punctuation, white space and
#: underscores separate words and are dropped, so ``"U.S."`` gives
#: ``["u", "s"]``, ``"don't"`` gives ``["don", "t"]`` and ``"1,750 dlrs"`` gives
#: ``["dlrs"]``. ``[^\W\d_]`` is "a word character that is neither a digit nor
#: an underscore", i.e. a letter, in any alphabet. The marks keep a word whole
#: where no composed letter exists: Devanagari's vowel signs (``"हिन्दी"``, not
#: ``["ह", "न", "द"]``), Yorùbá's tones on a dotted vowel (``"ọ̀rọ̀"``).
TOKEN_PATTERN = r"[^\W\d_]+(?:\p{M}+[^\W\d_]*)*"

#: The words before combining marks were part of them (model files of earlier
#: versions name it): on latin-1 text, which has no combining marks, the same words.
LETTERS_PATTERN = r"[^\W\d_]+"


@functools.cache
def _combining_marks():
    """The ranges of Unicode's combining marks (categories Mn, Mc, Me), for a character
    class. Planes 0, 1 and 14 hold all of them; the scan takes about 40 ms, once."""
    ranges = []
    for cp in itertools.chain(range(0x300, 0x20000), range(0xE0000, 0xE1000)):
        if unicodedata.category(chr(cp))[0] == "M":
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1][1] = cp
            else:
                ranges.append([cp, cp])
    return "".join(re.escape(chr(a)) + (f"-{re.escape(chr(b))}" if b > a else "")
                   for a, b in ranges)


@functools.cache
def compile_token_pattern(pattern):
    """``re.compile(pattern)``, with ``\\p{M}`` (a combining mark, which Python's
    ``re`` has no name for) read as Unicode's combining marks: their class, or inside
    a class (``[\\w\\p{M}]``) their ranges."""
    out, i, in_class = [], 0, False
    while i < len(pattern):
        if pattern.startswith(r"\p{M}", i):
            out.append(_combining_marks() if in_class else f"[{_combining_marks()}]")
            i += 5
            continue
        step = 2 if pattern[i] == "\\" else 1  # an escape is not a bracket
        if step == 1 and pattern[i] == "[" and not in_class:
            in_class = True
            step += pattern.startswith("^", i + 1)
            step += pattern.startswith("]", i + step)  # a leading ] is a member
        elif step == 1 and pattern[i] == "]" and in_class:
            in_class = False
        out.append(pattern[i:i + step])
        i += step
    return re.compile("".join(out))


# Fast path of TextVectorizer: the documents of a chunk joined by _SEP, encoded
# as latin-1, and the bytes whose character TOKEN_PATTERN matches (letters, and
# also the superscript digits and vulgar fractions that Python counts as word
# characters) looked up in a table of 256 flags.
_SEP = "\x00"
_LATIN1_WORD_BYTES = bytes(b for b in range(256)
                           if re.fullmatch(LETTERS_PATTERN, chr(b)))  # latin-1 has no marks
_IS_WORD_BYTE = np.zeros(256, dtype=bool)
_IS_WORD_BYTE[list(_LATIN1_WORD_BYTES)] = True
# str.lower() of latin-1 text, byte for byte (every latin-1 character's lower case is one
# latin-1 character): str.lower() takes 12 bytes a character of text beyond ASCII.
_LATIN1_LOWER = bytes(ord(chr(b).lower()) for b in range(256))

#: Documents are read and counted in chunks of about this many characters (this
#: over ``4 max_n`` with n-grams up to ``max_n`` words), so that the working arrays
#: (about 15 bytes per character of text) stay bounded whatever the corpus size.
CHUNK_CHARACTERS = 2**23

_WEIGHTINGS = ("binary", "count", "tfidf")

#: The longest word n-gram ``TextVectorizer(ngram_range=...)`` builds. Longer
#: n-grams rarely repeat, so they add columns that hardly ever help a classifier.
MAX_NGRAM = 5

#: The longest character n-gram ``TextVectorizer(char_ngrams=...)`` builds (fastText's
#: default ``maxn`` is 6; beyond 10 characters an n-gram is most of a word).
MAX_CHAR_NGRAM = 10

#: What the name of every character n-gram term begins with: ``"char: ab"`` is the
#: n-gram " ab" (the start of a word "ab..."). Words never begin with it: the default
#: token pattern's are letters only, and a vectorizer whose own token pattern finds
#: a word that does refuses to fit.
CHAR_PREFIX = "char:"

# The code points above ASCII that Python's str.split() takes for white space, which
# separates the words of character n-grams as in scikit-learn's char_wb.
_UNICODE_SPACES = np.array([c for c in range(128, 0x3001) if chr(c).isspace()],
                           dtype=np.uint32)

#: The values of ``TextVectorizer(stemmer=...)`` and ``PorterStemmer(backend=...)``.
STEMMERS = ("auto", "nltk", "pystemmer")



_PYSTEMMER_HINT = 'pip install PyStemmer'


def tokenize(text, *, lowercase=True):
    """Split ``text`` into words: lower case, no stop-word removal.

    A word is a maximal run of letters and the combining marks that follow them
    (see :data:`TOKEN_PATTERN`); everything else separates words.

    Parameters
    ----------
    text : str
        The text. An empty string gives an empty list.
    lowercase : bool, default=True
        Lower-case the text first.

    Returns
    -------
    tokens : list of str
        The words in order of occurrence, repetitions kept.

    Examples
    --------
    >>> tokenize("U.S. grain exports rose 1.5 pct, Reuter")
    ['u', 's', 'grain', 'exports', 'rose', 'pct', 'reuter']
    """
    if not isinstance(text, str):
        raise TypeError(
            f"tokenize expects a str, got {type(text).__name__}; decode bytes first "
            "(the Reuters-21578 files are latin-1)"
        )
    text = _composed(text)
    return compile_token_pattern(TOKEN_PATTERN).findall(text.lower() if lowercase else text)


def detect_language(texts, *, max_documents=2000):
    """The language of :data:`LANGUAGES` that ``texts`` are written in, or None.

    Read from the first ``max_documents`` texts' function words (the
    ``FUNCTION_WORDS`` of ``textwin._languages``): a language is a candidate when
    its texts use at least 60 % of its list and those words are at least 5 % of
    all words (text in another language quotes a few); of the candidates, the
    one whose words are the most frequent. None: no language of the table (Hindi,
    Yoruba; or texts too short to show their function words, such as titles); the
    command line and ``TextClassifier(language="auto")`` then stem as English, as
    they did before they read the language (``--no-stem``, ``stem=False`` keep the
    words as they are).

    Examples
    --------
    >>> detect_language(["Ich sage es dir: der Hund und die Katze sind nicht auf dem Dach, "
    ...                  "das ist ein Bericht des Tages mit einer Frage zu den Kindern."])
    'german'
    """
    listed = {w for words in FUNCTION_WORDS.values() for w in words.split()}
    counts, total = collections.Counter(), 0
    for text in itertools.islice(texts, max_documents):
        words = tokenize(text)
        total += len(words)
        counts.update(w for w in words if w in listed)  # only the lists' words count
    best, best_share = None, 0.05
    for language, words in FUNCTION_WORDS.items():
        words = words.split()
        used = sum(1 for w in words if w in counts) / len(words)
        share = sum(counts.get(w, 0) for w in words) / max(total, 1)
        if used >= 0.6 and share >= best_share:
            best, best_share = language, share
    return best


_NOT_LETTER = re.compile(r"[\W\d_]+")


@functools.cache
def _script_patterns():
    return {name: re.compile("[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in ranges) + "]")
            for name, ranges in UNSPACED_SCRIPTS.items()}


def detect_unspaced_script(texts, *, max_documents=2000):
    """The script written without spaces between words (Chinese or Japanese, Thai, Lao,
    Tibetan, Burmese, Khmer: ``UNSPACED_SCRIPTS`` of ``textwin._languages``) that at
    least half the letters of the first ``max_documents`` ``texts`` are in, or None.

    A word of :func:`tokenize` is then a whole clause; character n-grams
    (``TextVectorizer(char_ngrams=...)``) are what such texts can be learnt from.

    Examples
    --------
    >>> detect_unspaced_script(["今天天气很好，我们去公园散步。", "The weather"])
    'Chinese or Japanese'
    >>> detect_unspaced_script(["The weather is fine today."]) is None
    True
    """
    sample = "\n".join(itertools.islice(texts, max_documents))
    letters = len(_NOT_LETTER.sub("", sample))
    counts = {name: len(pattern.findall(sample)) for name, pattern in _script_patterns().items()}
    name = max(counts, key=counts.get)
    return name if letters and counts[name] >= 0.5 * letters else None


#: The character n-grams of texts in a script without spaces between words, in place of
#: the words (whole clauses there): the characters, their pairs and their triples.
UNSPACED_CHARS = (1, 3)


def resolve_chars(chars, texts):
    """``(chars, script)``: for "auto", :data:`UNSPACED_CHARS` when the texts are written in
    a script without spaces between words (``script`` names it:
    :func:`detect_unspaced_script`), else None; another value as it is."""
    if isinstance(chars, str) and chars == "auto":
        script = detect_unspaced_script(texts)
        return (UNSPACED_CHARS if script else None), script
    return chars, None


def _composed(text):
    """``text`` in Unicode's composed form (NFC): an accent written as a combining
    mark after its letter (macOS, PDFs) is no letter, and would cut the word."""
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


# ---------------------------------------------------------------------------
# Stemmers
# ---------------------------------------------------------------------------

def pystemmer_installed():
    """Whether PyStemmer (Snowball's C stemmers, ``import Stemmer``) can be imported."""
    try:
        import Stemmer  # noqa: F401
    except ImportError:
        return False
    return True


def resolve_stemmer(stemmer):
    """The stemmer ``stemmer`` stands for: ``"nltk"`` or ``"pystemmer"``.

    ``"auto"`` is PyStemmer when it is installed, else NLTK. Asking for
    ``"pystemmer"`` without it installed is an ``ImportError`` that says how
    to install it.
    """
    if stemmer not in STEMMERS:
        raise ValueError(f"stemmer={stemmer!r} is not one of {', '.join(map(repr, STEMMERS))}")
    if stemmer == "auto":
        return "pystemmer" if pystemmer_installed() else "nltk"
    if stemmer == "pystemmer" and not pystemmer_installed():
        raise ImportError(f"stemmer='pystemmer' needs PyStemmer, which is not installed: "
                          f"{_PYSTEMMER_HINT}; or use stemmer='nltk'")
    return stemmer


# One memo per (backend, mode, language), shared by every stemmer of the process: a
# stem depends on nothing else, and refitting (cross-validation clones a
# pipeline per fold) then stems nothing twice. Cleared past this many tokens,
# so that it holds at most about 150 MB.
_MEMOS = {}
_MEMO_LIMIT = 2**20


def clear_stem_cache():
    """Empty the memos of every :class:`PorterStemmer` of the process (to time a
    cold start, or to free their memory)."""
    for memo in _MEMOS.values():
        memo.clear()


class PorterStemmer:
    """A Porter stemmer, memoized per distinct token: NLTK's or PyStemmer's.

    Stemming dominates text preprocessing, and a corpus
    repeats its words, so each distinct token is stemmed once and looked up
    afterwards. The memo is shared by all the stemmers of a process with the
    same ``backend`` and ``mode`` and is cleared when it passes about a
    million tokens. Looking it up from several threads is safe.

    The two backends mostly agree, not always: PyStemmer's ``"porter"`` is
    Porter's original algorithm, NLTK's default mode adds NLTK's own
    extensions (``aged`` gives ``age`` where the original gives ``ag``,
    ``always`` gives ``alway`` where the original gives ``alwai``). On the
    43,010 distinct words of Reuters-21578, 848 (2 %) stem differently
    (``benchmarks/bench_vectorizer.py`` counts them).

    For a ``language`` other than English, both backends run Snowball's
    stemmer of that language (NLTK's ``SnowballStemmer``, PyStemmer's C one).

    Parameters
    ----------
    mode : str, default=None
        For ``backend="nltk"``: ``"NLTK_EXTENSIONS"`` (the default),
        ``"MARTIN_EXTENSIONS"`` or ``"ORIGINAL_ALGORITHM"``, passed to
        :class:`nltk.stem.PorterStemmer`. PyStemmer has only the original
        algorithm: ``None`` or ``"ORIGINAL_ALGORITHM"``.
    backend : {"nltk", "pystemmer", "auto"}, default="nltk"
        ``"nltk"``: NLTK's implementation, pure Python (needs no data
        download). ``"pystemmer"``: Snowball's C implementation (``pip install
        PyStemmer``). ``"auto"``: PyStemmer when installed, else NLTK.
    language : str, default="english"
        One of :data:`LANGUAGES`.

    Examples
    --------
    >>> stemmer = PorterStemmer()
    >>> stemmer.stem_many(["ponies", "running", "ponies"])
    ['poni', 'run', 'poni']
    """

    def __init__(self, mode=None, *, backend="nltk", language="english"):
        backend = resolve_stemmer(backend)
        self.language = check_language(language)
        if language != "english":
            if mode is not None:
                raise ValueError(f"mode={mode!r} is for Porter's English stemmer, not "
                                 f"language={language!r}")
            if backend == "nltk":
                from nltk.stem.snowball import SnowballStemmer

                self._nltk_stem = SnowballStemmer(language).stem
            else:
                import Stemmer

                self._snowball = Stemmer.Stemmer(language, 0)
        elif backend == "nltk":
            from nltk.stem.porter import PorterStemmer as _NLTKPorter

            mode = mode or "NLTK_EXTENSIONS"
            # to_lowercase=False: the tokens are already lower case when they
            # should be, and a case-sensitive vectorizer must keep their case.
            self._nltk_stem = _NLTKPorter(mode=mode).stem
        else:
            import Stemmer

            if mode not in (None, "ORIGINAL_ALGORITHM"):
                raise ValueError(f"mode={mode!r} is NLTK's; PyStemmer's Porter stemmer is "
                                 "the original algorithm (mode=None or 'ORIGINAL_ALGORITHM')")
            mode = "ORIGINAL_ALGORITHM"
            # No cache of its own: the memo here is one.
            self._snowball = Stemmer.Stemmer("porter", 0)
        self.backend = backend
        self.mode = mode
        self._memo = _MEMOS.setdefault((backend, mode, language), {})

    def _stem_words(self, words):
        """Stem every word, without the memo."""
        if self.backend == "pystemmer":
            # Words of one or two letters are kept as they are, as in Porter's
            # own C implementation and NLTK's (Snowball stems "s" to "").
            stems = self._snowball.stemWords(words)
            return [w if len(w) <= 2 else s for w, s in zip(words, stems)]
        stem = self._nltk_stem
        if self.language != "english":  # the same rule for short words as PyStemmer's
            return [w if len(w) <= 2 else stem(w) for w in words]
        return [stem(w, to_lowercase=False) for w in words]

    def stem(self, token):
        """Return the Porter stem of one token."""
        stem = self._memo.get(token)
        return stem if stem is not None else self.stem_many([token])[0]

    def stem_many(self, tokens):
        """Return the stems of ``tokens``, in order (repetitions kept)."""
        memo = self._memo
        missing = [t for t in dict.fromkeys(tokens) if t not in memo]
        if missing:
            if len(memo) + len(missing) > _MEMO_LIMIT:
                memo.clear()
            memo.update(zip(missing, self._stem_words(missing)))
        try:
            return [memo[t] for t in tokens]
        except KeyError:  # another thread cleared the shared memo meanwhile
            return self._stem_words(list(tokens))

    def __len__(self):
        """Number of distinct tokens in the (shared) memo."""
        return len(self._memo)

    def __repr__(self):
        return (f"PorterStemmer(mode={self.mode!r}, backend={self.backend!r}, "
                f"language={self.language!r})")


# ---------------------------------------------------------------------------
# Documents to arrays of words
# ---------------------------------------------------------------------------

def _chunks(raw_documents, characters):
    """The documents in lists of about ``characters`` characters, each checked to be
    a str (a clear error otherwise)."""
    if isinstance(raw_documents, (str, bytes)):
        raise TypeError(
            "TextVectorizer expects an iterable of texts (e.g. a list of str), got a "
            "single string; wrap it in a list: [text]"
        )
    try:
        documents = iter(raw_documents)
    except TypeError:
        raise TypeError(
            "TextVectorizer expects an iterable of texts (e.g. a list of str), got "
            f"{type(raw_documents).__name__}"
        ) from None
    chunk, size = [], 0
    for i, doc in enumerate(documents):
        if not isinstance(doc, str):
            raise TypeError(
                f"document {i} is a {type(doc).__name__}, not a str; every document "
                "must be a text (use '' for an empty document, decode bytes first)"
            )
        chunk.append(doc)
        size += len(doc) + 1
        if size >= characters:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


_MIX = np.uint64(0x9E3779B97F4A7C15)  # odd: multiplying by it is a bijection mod 2**64


def _group_equal_rows(M):
    """Group the equal rows of the uint8 matrix ``M`` (words of one length).

    Returns ``(first, inverse)`` as :func:`numpy.unique` does: the index of one
    row of each group, and each row's group. The rows, zero-padded to a
    multiple of 8 bytes, are read as uint64 words: one word is an exact key;
    several are mixed into one key, and the grouping is then checked exactly
    (every row equal to its group's first), falling back to sorting the raw
    bytes in the astronomically rare case of a collision.
    """
    n, length = M.shape
    width = -(-length // 8)
    padded = np.zeros((n, 8 * width), dtype=np.uint8)
    padded[:, :length] = M
    words = padded.view(np.uint64)
    if width == 1:
        _, first, inverse = np.unique(words[:, 0], return_index=True, return_inverse=True)
        return first, inverse.ravel()
    keys = words[:, 0].copy()
    for j in range(1, width):
        keys *= _MIX
        keys ^= words[:, j]
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    if not np.array_equal(words, words[first][inverse]):
        exact = np.ascontiguousarray(M).view(np.dtype((np.void, length))).ravel()
        _, first, inverse = np.unique(exact, return_index=True, return_inverse=True)
        inverse = inverse.ravel()
    return first, inverse


def _latin1_words(raw):
    """The words of NUL-separated latin-1 documents, found with numpy.

    Returns ``(ids, rows, distinct)``: for each word in order of occurrence its
    index in ``distinct`` (the distinct words, as str) and its document.
    """
    text = np.frombuffer(raw, dtype=np.uint8)
    in_word = np.zeros(text.size + 2, dtype=bool)
    np.take(_IS_WORD_BYTE, text, out=in_word[1:-1])
    edges = np.flatnonzero(in_word[1:] != in_word[:-1])
    starts, ends = edges[0::2], edges[1::2]
    rows = np.searchsorted(np.flatnonzero(text == 0), starts)
    lengths = ends - starts
    # Words grouped by length (a radix sort when lengths fit in 16 bits).
    small = lengths.size == 0 or lengths.max() < 2**16
    order = np.argsort(lengths.astype(np.uint16) if small else lengths, kind="stable")
    cuts = np.flatnonzero(np.diff(lengths[order])) + 1
    ids = np.empty(starts.size, dtype=np.int64)
    distinct = []
    for group in np.split(order, cuts) if order.size else []:
        length = int(lengths[group[0]])
        M = sliding_window_view(text, length)[starts[group]]
        first, inverse = _group_equal_rows(M)
        ids[group] = inverse + len(distinct)
        blob = M[first].tobytes().decode("latin-1")
        distinct.extend(blob[k:k + length] for k in range(0, len(blob), length))
    return ids, rows, distinct


def _latin1_chunk(docs):
    """The documents joined by NULs as latin-1 bytes; None when a character is beyond
    latin-1 or a document holds a NUL."""
    text = _SEP.join(docs)
    if text.count(_SEP) != len(docs) - 1:
        return None
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError:
        return None


def _pattern_words(docs, token_re, lowercase):
    """:func:`_latin1_words` for any pattern and text: one regex search per document.

    Each document's words become ids at once, so that the chunk holds one string per
    distinct word, not one per occurrence (8 bytes an occurrence, not about 60).
    """
    findall = token_re.findall
    index = {}
    setdefault = index.setdefault
    ids, counts = array.array("q"), []
    for doc in docs:
        doc = _composed(doc)  # latin-1 text (the fast path's) is composed already
        words = findall(doc.lower() if lowercase else doc)
        ids.extend([setdefault(w, len(index)) for w in words])
        counts.append(len(words))
    rows = np.repeat(np.arange(len(docs), dtype=np.int64), counts)
    return np.frombuffer(ids, dtype=np.int64), rows, list(index)


def _ngrams(ids, rows, terms, min_n, max_n):
    """The word n-grams, ``min_n <= n <= max_n``, of one chunk's words.

    Takes and returns ``(ids, rows, terms)`` as :func:`_latin1_words` gives
    them: each occurrence's index in ``terms`` and its document. An n-gram is
    ``n`` consecutive words of one document, named by their terms (stems)
    joined by spaces, as scikit-learn names them. Words with one stem share an
    id, and an n-gram is the pair (its first ``n - 1`` words' id, its last
    stem's id), grouped by sorting the pairs as integers: Python builds one
    string per distinct n-gram, never one per occurrence.
    """
    index = {}
    stem_of_id = np.fromiter((index.setdefault(t, len(index)) for t in terms),
                             dtype=np.int64, count=len(terms))
    stems = list(index)
    n_stems = max(len(stems), 1)
    stem = stem_of_id[ids]
    size = sum(rows.size if n == 1 else _ngram_starts(rows, n).size
               for n in range(min_n, max_n + 1))
    out_ids = np.empty(size, dtype=np.int32)  # a chunk has fewer than 2**31 words
    out_rows = np.empty(size, dtype=np.int32)
    out_terms, filled = [], 0
    gram, names = stem, stems  # the n-grams starting at each position, and their names
    for n in range(1, max_n + 1):
        at = slice(None)
        if n > 1:
            at = _ngram_starts(rows, n)
            distinct, inverse = np.unique(gram[at] * n_stems + stem[at + n - 1],
                                          return_inverse=True)
            first = map(names.__getitem__, (distinct // n_stems).tolist())
            last = map(stems.__getitem__, (distinct % n_stems).tolist())
            names = [f"{a} {b}" for a, b in zip(first, last)]
            gram = np.full(max(rows.size - n + 1, 0), -1, dtype=np.int64)
            gram[at] = inverse.ravel()
            del distinct, inverse
        if n >= min_n:
            count = rows.size if n == 1 else at.size
            out_ids[filled:filled + count] = gram[at] + len(out_terms)
            out_rows[filled:filled + count] = rows[at]
            out_terms.extend(names)
            filled += count
    return out_ids, out_rows, out_terms


def _ngram_starts(rows, n):
    """Where ``n`` consecutive words of one document start. ``rows`` (each word's
    document) never decreases: the ``n`` words are in one document when the first
    and the last are."""
    return np.flatnonzero(rows[n - 1:] == rows[:max(rows.size - n + 1, 0)])


def _count_matrix(rows, cols, n_docs, n_cols):
    """CSR matrix of the counts of the (row, column) pairs; columns < 0 are dropped.

    One sort of the keys ``row * n_cols + col`` both groups the repeats of a
    term in a document (its count) and orders the columns of each row.
    """
    keep = cols >= 0
    if not keep.all():
        rows, cols = rows[keep], cols[keep]
    width = max(n_cols, 1)
    keys = np.multiply(rows, width, dtype=np.int64)
    keys += cols
    keys.sort()  # np.unique's work, without its copy of the keys
    new = np.ones(keys.size, dtype=bool)
    np.not_equal(keys[1:], keys[:-1], out=new[1:])
    first = np.flatnonzero(new)
    counts = np.diff(np.append(first, keys.size))
    keys = keys[first]
    indptr = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys // width, minlength=n_docs), out=indptr[1:])
    X = _csr(counts.astype(np.float64), keys % width, indptr, n_cols)
    X.has_sorted_indices = True  # sorted and without duplicates by construction
    return X


def _hashed_columns(terms, n_features):
    """The columns of ``terms`` in ``n_features`` hashed columns: ``|h| mod n_features`` with
    ``h`` the signed 32-bit MurmurHash3 of the term's UTF-8 bytes, seed 0, as scikit-learn's
    ``HashingVectorizer(alternate_sign=False)`` numbers them."""
    return [abs(murmurhash3_32(term, 0)) % n_features for term in terms]


def _csr(data, indices, indptr, n_cols):
    """A CSR matrix with int32 indices when they fit."""
    small = len(data) < 2**31 and n_cols < 2**31
    index_dtype = np.int32 if small else np.int64
    return sp.csr_matrix(
        (data, np.asarray(indices, dtype=index_dtype), np.asarray(indptr, dtype=index_dtype)),
        shape=(len(indptr) - 1, n_cols),
    )


def _smallest_counts(counts):
    """Integer counts as uint8 (or uint16) when every one fits, as they nearly always do
    for one document's n-gram: a chunk's character n-gram counts, kept until the chunks
    are stacked, take a byte each instead of four."""
    top = counts.max(initial=0)
    for dtype in (np.uint8, np.uint16):
        if top <= np.iinfo(dtype).max:
            return counts.astype(dtype)
    return counts


def _stack_rows(parts, n_cols, dtype=np.float64):
    """The CSR matrices ``parts`` (possibly narrower) one above the other, ``n_cols`` wide,
    their values as ``dtype``.

    Empties the list ``parts``, each part freed once copied: the rows are never in
    memory twice.
    """
    nnz = sum(X.nnz for X in parts)
    data = np.empty(nnz, dtype=dtype)
    indices = np.empty(nnz, dtype=np.int32 if nnz < 2**31 and n_cols < 2**31 else np.int64)
    indptr = np.zeros(sum(X.shape[0] for X in parts) + 1, dtype=np.int64)
    at = row = 0
    sorted_indices = True
    parts.reverse()
    while parts:
        X = parts.pop()
        data[at:at + X.nnz] = X.data
        indices[at:at + X.nnz] = X.indices
        indptr[row + 1:row + 1 + X.shape[0]] = X.indptr[1:] + at
        sorted_indices &= bool(X.has_sorted_indices)
        at, row = at + X.nnz, row + X.shape[0]
    X = _csr(data, indices, indptr, n_cols)
    X.has_sorted_indices = sorted_indices
    return X


def _side_by_side(X, C):
    """The sum of the count matrices ``X`` and ``C`` (CSR, the same rows, ``C`` the
    wider), canonical, counts int32: each row's entries of ``X``, then of ``C``, sorted
    and added up in place (a column in both only with hashed columns). scipy's ``X + C``
    made float64 copies of both and a third for the sum, which was a chunk's peak with
    character n-grams."""
    indptr = X.indptr.astype(np.int64) + C.indptr
    is_x = np.zeros(indptr[-1], dtype=bool)
    is_x[np.arange(X.nnz) + np.repeat(C.indptr[:-1], np.diff(X.indptr))] = True
    data = np.empty(is_x.size, dtype=np.int32)
    indices = np.empty(is_x.size, dtype=C.indices.dtype)
    data[is_x], indices[is_x] = X.data, X.indices
    np.logical_not(is_x, out=is_x)
    data[is_x], indices[is_x] = C.data, C.indices
    del is_x
    out = _csr(data, indices, indptr, C.shape[1])
    out.has_canonical_format = False
    out.sum_duplicates()
    return out


# entries a block of the blockwise passes over a CSR matrix reads at once: their
# temporaries stay about a megabyte (an index or mask array as long as the entries of a
# fold with character n-grams was a search's peak; blocks of 2**20 made 8 MB ones)
BLOCK = 2**17


def column_document_counts(X, rows=None):
    """The rows of CSR ``X`` (those where the mask ``rows`` is true; all: None) that hold
    each column, int64, a block of rows at a time: no mask or index array as long as
    the entries (bincount counts an int64 copy of what it is given). A block holds
    about as many entries as the columns at least, each block's count costing as much
    as them."""
    out = np.zeros(X.shape[1], dtype=np.int64)
    indptr, n, block = X.indptr, X.shape[0], max(BLOCK, X.shape[1])
    start = 0
    while start < n:
        # the rows from start holding about a block of entries (one row at least)
        end = min(max(int(np.searchsorted(indptr, indptr[start] + block, side="right")) - 1,
                      start + 1), n)
        indices = X.indices[indptr[start]:indptr[end]]
        if rows is not None:
            if not rows[start:end].any():
                start = end
                continue
            indices = indices[np.repeat(rows[start:end], np.diff(indptr[start:end + 1]))]
        out += np.bincount(indices, minlength=X.shape[1])
        start = end
    return out


def _renumber_columns(X, new_column, n_cols):
    """``X`` with column ``j`` moved to ``new_column[j]`` (dropped where < 0), rows sorted."""
    cols = new_column.astype(X.indices.dtype)[X.indices]  # no wider than the indices
    keep = cols >= 0
    if keep.all():
        X = _csr(X.data, cols, X.indptr, n_cols)
    else:  # each row's kept entries counted in place: no array as long as the entries
        kept = np.zeros(X.shape[0], dtype=np.int64)
        filled = np.diff(X.indptr) > 0
        kept[filled] = np.add.reduceat(keep, X.indptr[:-1][filled], dtype=np.int64)
        indptr = np.zeros(X.shape[0] + 1, dtype=np.int64)
        np.cumsum(kept, out=indptr[1:])
        X = _csr(X.data[keep], cols[keep], indptr, n_cols)
    X.has_sorted_indices = False
    X.sort_indices()
    return X


# ---------------------------------------------------------------------------
# The vectorizer
# ---------------------------------------------------------------------------

class TextVectorizer(TransformerMixin, BaseEstimator):
    """Raw texts to a CSR matrix over a (stemmed) vocabulary.

    The pipeline of docs/mathematics.md §11: lower case, :func:`tokenize`, Porter
    stem (:class:`PorterStemmer`), no stop-word removal; optionally the word
    n-grams of the stems too (``ngram_range``). The vocabulary is
    fitted on the training texts; words never seen in ``fit`` are ignored by
    ``transform``. An empty document (or one with no letters) is a valid,
    empty row.

    The documents may be any iterable of str (a generator reading files, for
    instance): they are read in chunks of about :data:`CHUNK_CHARACTERS`
    characters, so that ``fit`` holds one chunk of text and the vocabulary,
    never the whole corpus, and ``transform`` one chunk and the matrix it
    returns. :meth:`partial_fit` learns the vocabulary from one batch of
    documents after another; the result equals one ``fit`` on all of them.

    Parameters
    ----------
    weighting : {"binary", "count", "tfidf"}, default="binary"
        The value stored for term ``j`` in document ``i`` with count
        ``c_ij >= 1``:

        - ``"binary"``: 1 (the paper's features: present or not);
        - ``"count"``: ``c_ij``;
        - ``"tfidf"``: ``(1 + ln c_ij) * idf_j`` with the smoothed
          ``idf_j = ln((1 + n) / (1 + df_j)) + 1`` of the ``n`` training
          documents, each row then scaled to unit Euclidean norm (the LIBLINEAR
          FAQ's advice). Equal to scikit-learn's
          ``TfidfTransformer(sublinear_tf=True)``.
    stem : bool, default=True
        Replace each word by its Porter stem.
    stemmer : {"auto", "nltk", "pystemmer"}, default="auto"
        Which Porter stemmer (see :class:`PorterStemmer`): ``"pystemmer"``,
        Snowball's C implementation of Porter's original algorithm (``pip
        install PyStemmer``); ``"nltk"``, NLTK's pure-Python one in its
        default mode (the Reuters-21578 reproduction's); ``"auto"``,
        PyStemmer when it is installed, else NLTK. The two give different
        stems for about 2 % of English words, so a fitted vectorizer keeps
        the one it was fitted with (``stemmer_``) for ``transform``, on any
        machine.
    language : str, default="english"
        The language of the texts, for the stemmer: English takes Porter's,
        the others of :data:`LANGUAGES` Snowball's stemmer of the language
        (from the same backend).
    lowercase : bool, default=True
        Lower-case the text before tokenizing.
    min_df : int or float, default=1
        Keep only terms that occur in at least ``min_df`` training documents
        (an int), or in at least the fraction ``min_df`` of them (a float in
        (0, 1]).
    token_pattern : str, default=TOKEN_PATTERN
        Regular expression whose matches are the words; ``\\p{M}`` in it is a
        combining mark.
    n_features : int or None, default=None
        ``None``: one column per term of the fitted vocabulary. An int: no
        vocabulary, the feature hashing of scikit-learn's
        ``HashingVectorizer(alternate_sign=False)``: term ``t`` counts in column
        ``|murmurhash3_32(t)| mod n_features``, terms that share a column add
        up, and the fitted state is ``n_features`` document frequencies
        whatever the number of distinct terms (8 MB for ``2**20``). Terms
        never seen in training count too. Needs ``min_df=1``; the columns have
        no names.
    ngram_range : tuple (min_n, max_n), default=(1, 1)
        The terms are the word n-grams for every ``n`` from ``min_n`` to
        ``max_n`` (ints, ``1 <= min_n <= max_n <=`` :data:`MAX_NGRAM`):
        ``(1, 1)`` words only, ``(1, 2)`` words and pairs of consecutive
        words. An n-gram is ``n`` consecutive words of one document, each
        stemmed as a word is, named by the stems joined by one space
        (``"interest rate"`` from "interest rates"). Nothing is removed
        between words (there is no stop-word list), so an n-gram may span
        punctuation and numbers, which the token pattern skips, but never
        two documents. ``min_df``, ``n_features`` and the other options apply
        to n-grams as to words; scikit-learn's ``ngram_range`` means the same.
        ``None``: no word terms at all (only ``char_ngrams``).
    char_ngrams : tuple (min_n, max_n) or None, default=None
        Also (or, with ``ngram_range=None``, only) the character n-grams inside
        word boundaries, for every ``n`` from ``min_n`` to ``max_n`` (``1 <=
        min_n <= max_n <=`` :data:`MAX_CHAR_NGRAM`): scikit-learn's
        ``analyzer="char_wb"``. A word here is a run of characters between
        white space (punctuation and digits included), padded with one space
        on either side; a padded word no longer than ``max_n`` also counts
        once, whole. Neither stemmed nor found by ``token_pattern``; lower-cased
        with ``lowercase``. Named :data:`CHAR_PREFIX` followed by the n-gram
        (``"char: ab"``), so they never share a column with a word. Weighted,
        filtered by ``min_df`` and hashed as the words are: ``min_df=2`` or
        ``n_features`` bound their number, which (2, 5) makes several times the
        words' (see docs/user_guide.md). Counted in C (``_kernels/_chars.pyx``).

    Attributes
    ----------
    vocabulary_ : Vocabulary (a mapping of str to int)
        Term to column index; the columns are in sorted term order (not with
        ``n_features``). Read as a dict is (``vocabulary_[term]``, ``get``,
        ``in``, ``items()``, equal to the dict of the same terms), held as the
        terms' UTF-8 bytes, their offsets and a table of their columns
        (``_kernels/_vocabulary.pyx``): about 16 bytes a term beside the
        text, where a dict of str takes about 100.
    document_frequency_ : ndarray of shape (n_features,), dtype int64
        Number of training documents containing each term (each hashed column).
    idf_ : ndarray of shape (n_features,)
        The idf weights (only when ``weighting="tfidf"``).
    stemmer_ : {"nltk", "pystemmer"} or None
        The stemmer used (``None`` when ``stem=False``).
    n_documents_ : int
        Number of training documents (over all :meth:`partial_fit` calls).
    n_empty_ : int
        Number of training documents without any word.

    Examples
    --------
    >>> vec = TextVectorizer()
    >>> X = vec.fit_transform(["Ponies running.", "A pony runs"])
    >>> vec.get_feature_names_out().tolist()
    ['a', 'poni', 'run']
    >>> X.toarray()
    array([[0., 1., 1.],
           [1., 1., 1.]])
    """

    def __init__(
        self,
        weighting="binary",
        stem=True,
        stemmer="auto",
        language="english",
        lowercase=True,
        min_df=1,
        token_pattern=TOKEN_PATTERN,
        n_features=None,
        ngram_range=(1, 1),
        char_ngrams=None,
    ):
        self.weighting = weighting
        self.stem = stem
        self.stemmer = stemmer
        self.language = language
        self.lowercase = lowercase
        self.min_df = min_df
        self.token_pattern = token_pattern
        self.n_features = n_features
        self.ngram_range = ngram_range
        self.char_ngrams = char_ngrams

    # -- validation --------------------------------------------------------
    def check_params(self):
        """Raise a ValueError (TypeError for a min_df of no number) naming a setting this
        vectorizer cannot use; return the compiled token pattern."""
        if self.weighting not in _WEIGHTINGS:
            raise ValueError(
                f"weighting={self.weighting!r} is not one of {', '.join(_WEIGHTINGS)}"
            )
        if self.stemmer not in STEMMERS:
            raise ValueError(
                f"stemmer={self.stemmer!r} is not one of {', '.join(map(repr, STEMMERS))}")
        check_language(self.language)
        min_df = self.min_df
        if isinstance(min_df, numbers.Integral) and not isinstance(min_df, bool):
            if min_df < 1:
                raise ValueError(f"min_df={min_df} must be >= 1 (a document count)")
        elif isinstance(min_df, numbers.Real) and not isinstance(min_df, bool):
            if not 0.0 < min_df <= 1.0:
                raise ValueError(
                    f"min_df={min_df} must be an int >= 1 or a fraction in (0, 1]"
                )
        else:
            raise TypeError(f"min_df must be an int or a float, got {min_df!r}")
        n_features = self.n_features
        if n_features is not None:
            if not isinstance(n_features, numbers.Integral) or isinstance(n_features, bool) \
                    or not 1 <= n_features < 2**31:
                raise ValueError(f"n_features={n_features!r} must be None (a vocabulary) or "
                                 "an int from 1 to 2**31 - 1 (hashed columns), e.g. 2**20")
            if min_df != 1:
                raise ValueError(f"min_df={min_df!r} filters a vocabulary, and with "
                                 f"n_features={n_features} there is none; use min_df=1")
        self._ngram_bounds()
        self._char_bounds()
        try:
            token_re = compile_token_pattern(self.token_pattern)
        except (re.error, TypeError) as exc:
            raise ValueError(
                f"token_pattern={self.token_pattern!r} is not a valid regular "
                f"expression: {exc}"
            ) from None
        if token_re.groups > 1:  # findall would return tuples, not words
            raise ValueError(
                f"token_pattern={self.token_pattern!r} has {token_re.groups} capturing "
                "groups; use at most one (the token), e.g. (?:...) for the others"
            )
        return token_re

    def _ngram_bounds(self):
        """``(min_n, max_n)`` of ``ngram_range``, checked; a list (a model file's JSON) is
        taken as the tuple. None: no word terms (only with ``char_ngrams``)."""
        bounds = self.ngram_range
        if bounds is None:
            if self.char_ngrams is None:
                raise ValueError("ngram_range=None leaves no terms at all: give char_ngrams, "
                                 "e.g. (2, 5), or ngram_range=(1, 1) for words")
            return None
        return _length_range(bounds, "ngram_range", MAX_NGRAM, "",
                             "(1, 2) for words and pairs of words")

    def _char_bounds(self):
        """``(min_n, max_n)`` of ``char_ngrams``, checked (a list taken as the tuple), or
        None."""
        return check_char_ngrams(self.char_ngrams)

    def _max_ngram(self):
        """The longest word n-gram (0 without word terms)."""
        bounds = self._ngram_bounds()
        return 0 if bounds is None else bounds[1]

    def _settings(self):
        """The parameters the fitted vocabulary depends on (min_df only filters it)."""
        return {"weighting": self.weighting, "stem": self.stem, "stemmer": self.stemmer,
                "language": self.language, "lowercase": self.lowercase, "token_pattern": self.token_pattern,
                "n_features": self.n_features, "ngram_range": self._ngram_bounds(),
                "char_ngrams": self._char_bounds()}

    def _check_fitted_settings(self):
        fitted = getattr(self, "_fitted_settings", None)  # None: rebuilt from a model file
        now = self._settings()
        if fitted is not None and fitted != now:
            changed = [f"{k}={v!r} (fitted with {fitted.get(k)!r})"
                       for k, v in now.items() if fitted.get(k) != v]
            raise ValueError(
                f"TextVectorizer: {', '.join(changed)}: the vocabulary and idf were learnt "
                "with the other setting; fit again after set_params"
            )

    def _term_stemmer(self):
        """The fitted stemmer (built again after unpickling), or None without stemming."""
        if self.stemmer_ is None:
            return None
        stemmer = getattr(self, "_stemmer", None)
        if stemmer is None:
            if self.stemmer_ == "pystemmer" and not pystemmer_installed():
                raise ImportError(
                    "this TextVectorizer was fitted with PyStemmer's Porter stemmer, which "
                    f"is not installed here: {_PYSTEMMER_HINT}. NLTK's stems differ for "
                    "about 2 % of words, so it cannot stand in")
            stemmer = self._stemmer = PorterStemmer(backend=self.stemmer_,
                                                    language=self.language)
        return stemmer

    # -- documents to counts -----------------------------------------------
    def _chunk_counts(self, docs, token_re, column_of_term, grow):
        """Count matrix of one chunk of documents.

        ``column_of_term`` maps terms to columns; with ``grow``, a new term gets
        the next column (and is added to it), else it is dropped. The matrix
        is ``len(column_of_term)`` wide; with ``n_features``, the columns are
        hashed and the matrix ``n_features`` wide.
        """
        X = None
        if self.ngram_range is not None:
            X = self._count_words(self._words(docs, token_re), len(docs), column_of_term, grow)
        if self.char_ngrams is not None:
            C = self._count_chars(docs, column_of_term, grow)
            # the words' columns come first; the chars' are new ones
            X = C if X is None else _side_by_side(X, C)
        return X

    def _count_chars(self, docs, column_of_term, grow):
        """The count matrix of the character n-grams of a chunk (see ``char_ngrams``):
        counted in C and looked up in the vocabulary from their code points (a Python
        string each only for hashed columns, whose hash is scikit-learn's of the str)."""
        min_n, max_n = self._char_bounds()
        docs = [_composed(doc) for doc in docs]
        text = "".join(docs)
        if self.lowercase:
            lowered = text.lower()
            if len(lowered) != len(text):  # a letter whose lower case is longer
                docs = [doc.lower() for doc in docs]
                lowered = "".join(docs)
            text = lowered
        ends = np.cumsum(np.fromiter(map(len, docs), dtype=np.int64, count=len(docs)))
        codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        del text
        indptr, ids, counts, first, length, padded = count_char_ngrams(
            codes, ends, min_n, max_n, _UNICODE_SPACES)
        del codes
        X = _csr(counts, ids, indptr, first.size)
        del counts, ids, indptr
        if self.n_features is not None:
            words = padded.tobytes().decode("utf-32-le", "surrogatepass")
            terms = [CHAR_PREFIX + words[a:a + n] for a, n in zip(first.tolist(), length.tolist())]
            del words, padded, first, length
            X = _renumber_columns(
                X, np.array(_hashed_columns(terms, self.n_features), dtype=np.int64),
                self.n_features)
            X.sum_duplicates()  # n-grams hashed to one column add up
            return X
        if isinstance(column_of_term, Vocabulary):
            columns = column_of_term.columns_of_codes(CHAR_PREFIX, padded, first, length, grow)
        else:  # a dict given as vocabulary_
            words = padded.tobytes().decode("utf-32-le", "surrogatepass")
            columns = self._columns([CHAR_PREFIX + words[a:a + n] for a, n in
                                     zip(first.tolist(), length.tolist())], column_of_term, grow)
            del words
        del padded, first, length
        X.data = _smallest_counts(X.data)  # hashed columns add up counts: not there
        return _renumber_columns(X, columns, len(column_of_term))

    def _columns(self, terms, column_of_term, grow):
        """The column of each term (with ``grow``, a new term gets the next column and
        is added to ``column_of_term``; else -1)."""
        if isinstance(column_of_term, Vocabulary):
            return column_of_term.columns(terms if isinstance(terms, list) else list(terms),
                                          grow)
        if grow:
            setdefault = column_of_term.setdefault
            columns = (setdefault(term, len(column_of_term)) for term in terms)
        else:
            get = column_of_term.get
            columns = (get(term, -1) for term in terms)
        return np.fromiter(columns, dtype=np.int64, count=len(terms))

    def _count_words(self, words, n_docs, column_of_term, grow):
        """:meth:`_chunk_counts` of the words ``(ids, rows, distinct)`` of ``n_docs``
        documents (:meth:`_words`; read, never changed)."""
        ids, rows, distinct = words
        stemmer = self._term_stemmer()
        terms = stemmer.stem_many(distinct) if stemmer is not None else distinct
        min_n, max_n = self._ngram_bounds()
        if max_n > 1:
            ids, rows, terms = _ngrams(ids, rows, terms, min_n, max_n)
        if self.char_ngrams is not None and self.token_pattern not in (TOKEN_PATTERN,
                                                                       LETTERS_PATTERN):
            clash = next((t for t in terms if t.startswith(CHAR_PREFIX)), None)
            if clash is not None:
                raise ValueError(
                    f"token_pattern={self.token_pattern!r} finds the word {clash!r}, which "
                    f"begins as character n-grams' names do ({CHAR_PREFIX!r}); use a "
                    "pattern without ':' or char_ngrams=None")
        if self.n_features is not None:
            column_of_id = np.array(_hashed_columns(terms, self.n_features), dtype=np.int64)
            return _count_matrix(rows, column_of_id[ids], n_docs, self.n_features)
        column_of_id = self._columns(terms, column_of_term, grow)
        return _count_matrix(rows, column_of_id[ids], n_docs, len(column_of_term))

    def _words(self, docs, token_re):
        """``(ids, rows, distinct)`` of one chunk (see :func:`_latin1_words`).

        With the default pattern and a latin-1 chunk (Reuters is), the
        documents are joined and their words found with numpy; the table of
        word bytes is built from :data:`TOKEN_PATTERN` itself, so the words
        are the same as the regular expression's.
        """
        fast = self.token_pattern in (TOKEN_PATTERN, LETTERS_PATTERN)  # the same on latin-1
        raw = _latin1_chunk(docs) if fast else None
        if raw is not None:
            return _latin1_words(raw.translate(_LATIN1_LOWER) if self.lowercase else raw)
        return _pattern_words(docs, token_re, self.lowercase)

    def _chunks(self, raw_documents):
        """The documents in chunks; smaller with n-grams, whose arrays and strings take
        several times the words' (4 max_n: the peak of a bigram chunk of AG News's 1.8
        million characters stays below scikit-learn's bigram vectorizer's)."""
        max_n = self._max_ngram()
        if self.char_ngrams is not None:
            # counting takes about 90 bytes a character (its C tables, the chunk's n-grams
            # named as strings, the counts renumbered): 256k characters, 23 MB, at a time
            return _chunks(raw_documents, CHUNK_CHARACTERS // 32)
        return _chunks(raw_documents, CHUNK_CHARACTERS // (1 if max_n == 1 else 4 * max_n))

    # -- learning the vocabulary -------------------------------------------
    def _start(self):
        """Forget any earlier fit; check the parameters; return the token regex."""
        token_re = self.check_params()
        self.stemmer_ = resolve_stemmer(self.stemmer) if self.stem else None
        self._stemmer = None
        self._fitted_settings = self._settings()
        self._column_of_term = Vocabulary()  # every term seen, in order of first occurrence
        self._df = np.zeros(self.n_features or 0, dtype=np.int64)
        self.n_documents_ = 0
        self.n_empty_ = 0
        return token_re

    def _learn(self, X):
        """Add a chunk's count matrix (columns of ``_column_of_term``) to the counts."""
        df = column_document_counts(X)
        df[:self._df.size] += self._df
        self._df = df
        self.n_documents_ += X.shape[0]
        self.n_empty_ += int(np.count_nonzero(np.diff(X.indptr) == 0))

    def _finish(self, strict=True):
        """Set the vocabulary, document frequencies and idf from the counts.

        Returns the new column of each term of ``_column_of_term`` (-1 where
        min_df removes it). An empty vocabulary is an error when ``strict``;
        else (a first batch of :meth:`partial_fit` without words, say) it is
        the vocabulary so far.
        """
        if self.n_features is not None:
            return self._finish_hashed(strict)
        n_terms = len(self._column_of_term)
        if not n_terms and strict:
            raise ValueError(
                f"the {self.n_documents_} training documents contain no word at all "
                f"(token_pattern={self.token_pattern!r}); there is no vocabulary "
                "to learn"
            )
        min_df = _min_count(self.min_df, self.n_documents_)
        # the column each term had, the terms in sorted order
        keep = self._column_of_term.sorted_columns()
        if min_df > 1:
            keep = keep[self._df[keep] >= min_df]
            if keep.size == 0 and strict:
                raise ValueError(
                    f"min_df={self.min_df} removes every term: no term occurs in "
                    f"{min_df} of the {self.n_documents_} training documents; lower min_df"
                )
        self._set_document_frequency(self._df[keep])
        if keep.size == n_terms:
            # Every term kept: the terms seen, in column order, are the vocabulary (one
            # such table kept, not two); partial_fit copies it before adding terms.
            self._df = self._df[keep]
            self._column_of_term = self._column_of_term.take(keep)
            self.vocabulary_ = self._column_of_term
        else:
            self.vocabulary_ = self._column_of_term.take(keep)
        new_column = np.full(n_terms, -1, dtype=np.int64)
        new_column[keep] = np.arange(keep.size)
        return new_column

    def _finish_hashed(self, strict):
        """:meth:`_finish` for hashed columns: no vocabulary, the columns stay."""
        if strict and not self._df.any():
            raise ValueError(
                f"the {self.n_documents_} training documents contain no word at all "
                f"(token_pattern={self.token_pattern!r}); there is nothing to learn")
        if hasattr(self, "vocabulary_"):  # left by an earlier fit without n_features
            del self.vocabulary_
        self._set_document_frequency(self._df.copy())
        return None

    def _set_document_frequency(self, df):
        self.document_frequency_ = df
        if self.weighting == "tfidf":
            self.idf_ = smooth_idf(df, self.n_documents_)
        elif hasattr(self, "idf_"):  # left by an earlier fit with weighting="tfidf"
            del self.idf_

    def _width(self):
        return self.n_features if self.n_features is not None else len(self.vocabulary_)

    def _check_is_fitted(self):
        # a vocabulary, or (hashed columns) only document frequencies
        check_is_fitted(self, ["vocabulary_", "document_frequency_"], all_or_any=any)

    # -- public API --------------------------------------------------------
    def fit(self, raw_documents, y=None):
        """Learn the vocabulary (and idf) of the training texts.

        Holds one chunk of text at a time, the vocabulary and its counts:
        ``raw_documents`` may be a generator over a corpus larger than memory.

        Parameters
        ----------
        raw_documents : iterable of str
            The training texts.
        y : None
            Ignored.

        Returns
        -------
        self : TextVectorizer
        """
        token_re = self._start()
        self._learn_batch(raw_documents, token_re)
        self._finish()
        return self

    def partial_fit(self, raw_documents, y=None):
        """Learn from one more batch of training texts.

        The vocabulary, document frequencies and idf are those of all the
        documents given to :meth:`partial_fit` so far (since the last
        :meth:`fit`): fitting batch after batch equals one :meth:`fit` on
        their concatenation, exactly. Memory: the vocabulary with the document
        frequency of every term ever seen (also those ``min_df`` drops), and
        one chunk of text.

        Parameters
        ----------
        raw_documents : iterable of str
            A batch of training texts.
        y : None
            Ignored.

        Returns
        -------
        self : TextVectorizer
        """
        if not hasattr(self, "_column_of_term"):
            if hasattr(self, "vocabulary_"):
                raise ValueError(
                    "this TextVectorizer was rebuilt from a saved vocabulary, without the "
                    "counts that partial_fit adds to; call fit to start again")
            token_re = self._start()
        else:
            token_re = self.check_params()
            self._check_fitted_settings()
        self._learn_batch(raw_documents, token_re)
        self._finish(strict=False)
        return self

    def _learn_batch(self, raw_documents, token_re):
        if getattr(self, "vocabulary_", None) is self._column_of_term:  # see _finish
            self._column_of_term = self._column_of_term.copy()
        for docs in self._chunks(raw_documents):
            self._learn(self._chunk_counts(docs, token_re, self._column_of_term, grow=True))

    def fit_transform(self, raw_documents, y=None):
        """Learn the vocabulary and return the training matrix.

        Parameters
        ----------
        raw_documents : iterable of str
            The training texts.
        y : None
            Ignored.

        Returns
        -------
        X : scipy.sparse.csr_matrix of shape (n_documents, n_features), float64
        """
        return self._fit_texts(raw_documents)

    def _fit_texts(self, raw_documents, small_counts=False):
        """:meth:`fit_transform`; ``small_counts``: see :meth:`_fit_chunks`."""
        token_re = self._start()
        return self._fit_chunks((self._chunk_counts(docs, token_re, self._column_of_term, True)
                                 for docs in self._chunks(raw_documents)), small_counts)

    def _fit_words(self, words, small_counts=False):
        """:meth:`fit_transform` of the texts whose words ``words`` (a :class:`Words`)
        holds, without finding them again; ``small_counts``: see :meth:`_fit_chunks`."""
        self._start()
        return self._fit_chunks((self._count_words(found, n_docs, self._column_of_term, True)
                                 for found, n_docs in words.chunks), small_counts)

    def _fit_chunks(self, counts, small_counts=False):
        """Learn from the chunks' count matrices ``counts`` (each made after the one
        before is learnt: new terms get the next columns) and return the training
        matrix. ``small_counts`` (with ``weighting="count"``): its values in the
        smallest of uint8, uint16 and float32 that holds every count exactly (text's
        counts nearly always fit a byte: an eighth of the float64 values). The counts
        are stacked and renumbered in that type either way, float64 only at the end
        (with character n-grams a float64 matrix beside its renumbered indices was the
        refit's peak)."""
        parts = []
        for X in counts:
            parts.append(X)
            self._learn(X)
        most = max((X.data.max() for X in parts if X.nnz), default=0)
        dtype = next(t for t, top in ((np.uint8, 2**8), (np.uint16, 2**16),
                                      (np.float32, 2**24), (np.float64, np.inf))
                     if most < top)
        X = _stack_rows(parts, self.n_features or len(self._column_of_term), dtype)
        del parts
        new_column = self._finish()
        if new_column is not None:
            # The columns were numbered in order of first occurrence: sorted now.
            X = _renumber_columns(X, new_column, len(self.vocabulary_))
        if not small_counts:
            X.data = X.data.astype(np.float64)
        return self._weight(X)

    def transform(self, raw_documents):
        """Map texts to the fitted vocabulary.

        Parameters
        ----------
        raw_documents : iterable of str
            The texts. Words outside the vocabulary are ignored; a document
            with none of its words in the vocabulary gives an empty row.

        Returns
        -------
        X : scipy.sparse.csr_matrix of shape (n_documents, n_features), float64
        """
        self._check_is_fitted()
        token_re = self.check_params()
        self._check_fitted_settings()
        vocabulary = getattr(self, "vocabulary_", None)
        parts = [self._chunk_counts(docs, token_re, vocabulary, grow=False)
                 for docs in self._chunks(raw_documents)]
        return self._weight(_stack_rows(parts, self._width()))

    def occurrences(self, text):
        """Where each vocabulary term of one text occurs, as the text writes it:
        ``{column: [the words of each occurrence]}`` (an n-gram's occurrence is the
        text from its first word to its last), in order of appearance.

        Examples
        --------
        >>> vec = TextVectorizer(ngram_range=(1, 2)).fit(["interest rates rose"])
        >>> found = vec.occurrences("Interest RATES, rates")
        >>> {vec.get_feature_names_out()[j]: words for j, words in found.items()}
        {'interest': ['Interest'], 'rate': ['RATES', 'rates'], 'interest rate': ['Interest RATES']}
        """
        self._check_is_fitted()
        if getattr(self, "vocabulary_", None) is None:
            raise ValueError("a TextVectorizer with n_features (hashed columns) has no terms "
                             "to find in a text")
        token_re = self.check_params()
        doc = _composed(text)
        lowered = doc.lower() if self.lowercase else doc
        # the words are found in the lower-cased text, as fit found them; their places
        # are the text's own where lower-casing keeps the length (it nearly always does)
        source = doc if len(lowered) == len(doc) else lowered
        group = 1 if token_re.groups else 0
        spans = [m.span(group) for m in token_re.finditer(lowered)]
        words = [lowered[a:b] for a, b in spans]
        stemmer = self._term_stemmer()
        terms = stemmer.stem_many(words) if stemmer is not None else words
        found = {}
        min_n, max_n = self._ngram_bounds() or (1, 0)  # None: no word terms
        for n in range(min_n, max_n + 1):
            for i in range(len(terms) - n + 1):
                column = self.vocabulary_.get(" ".join(terms[i:i + n]))
                if column is not None:
                    found.setdefault(column, []).append(source[spans[i][0]:spans[i + n - 1][1]])
        if self.char_ngrams is not None:
            self._char_occurrences(lowered, source, found)
        return found

    def _char_occurrences(self, lowered, source, found):
        """:meth:`occurrences` of the character n-grams: each as the text writes it, the
        padding spaces left out (``" ab"`` at the start of "Abc" is "Ab")."""
        min_n, max_n = self._char_bounds()
        for word in re.finditer(r"\S+", lowered):  # \s is str.isspace, as split() reads it
            a, b = word.span()
            padded = f" {word.group()} "
            for off, n in _char_wb_spans(len(padded), min_n, max_n):
                column = self.vocabulary_.get(CHAR_PREFIX + padded[off:off + n])
                if column is not None:
                    start, end = max(a, a + off - 1), min(b, a + off + n - 1)
                    found.setdefault(column, []).append(source[start:end])

    def _weight(self, X):
        """Apply the weighting to a count matrix, in place."""
        return apply_weighting(X, self.weighting, getattr(self, "idf_", None))

    def get_feature_names_out(self, input_features=None):
        """The terms, one per column.

        Parameters
        ----------
        input_features : None
            Ignored (the input is raw text).

        Returns
        -------
        feature_names : ndarray of str objects, shape (n_features,)
        """
        self._check_is_fitted()
        if self.n_features is not None:
            raise ValueError(f"with n_features={self.n_features} the columns are hashed terms, "
                             "which have no names; use n_features=None for a vocabulary")
        vocabulary = self.vocabulary_
        names = np.empty(len(vocabulary), dtype=object)
        if isinstance(vocabulary, Vocabulary):
            names[:] = vocabulary.tolist()
        else:
            for term, j in vocabulary.items():
                names[j] = term
        return names

    def preprocessing_params(self):
        """The parameters that rebuild this fitted vectorizer's ``transform``.

        :meth:`get_params` with ``stemmer`` set to the stemmer actually used
        (``stemmer_``) rather than ``"auto"``, which may mean another stemmer
        on another machine. A saved model stores these.
        """
        self._check_is_fitted()
        params = self.get_params()
        if self.stemmer_ is not None:
            params["stemmer"] = self.stemmer_
        return params

    def __getstate__(self):
        # The stemmer (and its memo) is a cache: rebuilt when next needed.
        state = self.__dict__.copy()
        state.pop("_stemmer", None)
        return state

    def __setstate__(self, state):
        # Fitted before the choice of stemmer existed, or rebuilt from a model
        # file's vocabulary with stemmer="auto" (what files written before the
        # choice existed give): those stems are NLTK's.
        state = dict(state)
        state.setdefault("stemmer", "nltk")
        state.setdefault("n_features", None)
        state.setdefault("language", "english")
        state.setdefault("ngram_range", (1, 1))
        state.setdefault("char_ngrams", None)
        if state.get("_fitted_settings") is not None:  # settings then, as named now
            state["_fitted_settings"] = {"stemmer": state["stemmer"], "n_features": None,
                                         "language": "english", "ngram_range": (1, 1),
                                         "char_ngrams": None,
                                         **state["_fitted_settings"]}
        # a vocabulary pickled as a dict (before it was held compactly) becomes one
        if isinstance(state.get("vocabulary_"), dict):
            shared = state.get("_column_of_term") is state["vocabulary_"]
            state["vocabulary_"] = Vocabulary.of(state["vocabulary_"])
            if shared:
                state["_column_of_term"] = state["vocabulary_"]
        if isinstance(state.get("_column_of_term"), dict):
            state["_column_of_term"] = Vocabulary.of(state["_column_of_term"])
        if "vocabulary_" in state and "stemmer_" not in state:
            fitted = "nltk" if state["stemmer"] == "auto" else state["stemmer"]
            state["stemmer_"] = fitted if state.get("stem", True) else None
        self.__dict__.update(state)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        return tags


class Words:
    """The words of a list of texts, found once (lower-cased or not, by one token
    pattern) for vectorizers that share those settings and differ in stemming, n-grams
    (up to ``max_n`` words), weighting or ``min_df``; see :func:`fold_matrices`. Held
    in the chunks a vectorizer of ``max_n``-grams reads."""

    def __init__(self, texts, max_n=1, token_pattern=TOKEN_PATTERN, lowercase=True):
        finder = TextVectorizer(token_pattern=token_pattern, lowercase=lowercase,
                                ngram_range=(1, max_n))
        token_re = finder.check_params()
        self.settings = {"token_pattern": token_pattern, "lowercase": lowercase}
        self.max_n = max_n
        self.chunks = [(finder._words(docs, token_re), len(docs))
                       for docs in finder._chunks(texts)]

    def fit(self, vectorizer):
        """True when ``vectorizer`` finds these words, in chunks small enough for it."""
        params = vectorizer.get_params()
        return (all(params[k] == v for k, v in self.settings.items())
                and vectorizer.char_ngrams is None
                and 0 < vectorizer._max_ngram() <= self.max_n)


def fit_transform(vectorizer, texts, words=None, small_counts=False):
    """``vectorizer.fit_transform(texts)``; with ``words`` (:class:`Words` of the same
    texts) that serve ``vectorizer``, without finding the words again. ``small_counts``
    (``weighting="count"``): the counts in the smallest type that holds them exactly
    (see ``TextVectorizer._fit_chunks``)."""
    if small_counts and vectorizer.weighting != "count":
        raise ValueError("small_counts is for weighting='count': weighted values need float64")
    if words is not None and words.fit(vectorizer):
        return vectorizer._fit_words(words, small_counts)
    return vectorizer._fit_texts(texts, small_counts)


class FoldMatrices:
    """``(X_train, X_test)`` of each ``(train, test)`` index pair of ``folds``, from one
    count matrix of all the ``texts`` (a list), each fold's built only when it is asked
    for (``matrices[p]``, or in turn by iterating) and kept by no one here: a search
    holds one fold's matrices at a time, not every fold's.

    Equal, bit for bit, to a fresh copy of ``vectorizer`` fitted on the fold's training
    texts (``fit_transform``) and applied to its held-out ones (``transform``): a fold's
    vocabulary is the terms of its training rows that reach ``min_df`` there, in the
    sorted order of all the terms, and its weights come from its own document
    frequencies. The texts are tokenized and stemmed once, not once per fold; with
    ``words`` (:class:`Words` of the texts), once for every setting that shares them. A
    fold without a term raises the vectorizer's own error here, before any is built.
    ``train_nnz``: the stored values of each fold's training matrix. The counts are
    kept in the smallest type that holds them (uint8 nearly always), the matrices built
    in float64.
    """

    def __init__(self, vectorizer, texts, folds, words=None):
        params = vectorizer.get_params()
        self.vectorizer = vectorizer
        counter = TextVectorizer(**{**params, "weighting": "count", "min_df": 1})
        # uint8 (or the next type that holds them) kept; float64 again when built
        self.counts = fit_transform(counter, texts, words, small_counts=True)
        del counter  # its vocabulary (character n-grams: a Python string each) and chunks
        release_free_memory()
        self.folds = [(np.asarray(train), np.asarray(test)) for train, test in folds]
        self.train_nnz = []
        for train, _ in self.folds:
            df = self._train_df(train)
            new_column, _ = _fold_columns(vectorizer, df, train.size)
            if new_column.max(initial=-1) < 0 or not df.any():  # the vectorizer's own error
                TextVectorizer(**params).fit([texts[i] for i in train])
            self.train_nnz.append(int(df[new_column >= 0].sum()))

    def _train_df(self, train):
        """The document frequencies of the count matrix's columns in the rows ``train``."""
        in_train = np.zeros(self.counts.shape[0], dtype=bool)
        in_train[train] = True
        return column_document_counts(self.counts, in_train)

    def __len__(self):
        return len(self.folds)

    def __getitem__(self, p):
        train, test = self.folds[p]
        new_column, idf = _fold_columns(self.vectorizer, self._train_df(train), train.size)
        return tuple(apply_weighting(self._rows(rows, new_column), self.vectorizer.weighting, idf)
                     for rows in (train, test))

    def _rows(self, rows, new_column):
        """The count matrix's rows ``rows`` in the columns ``new_column``, with float64
        counts (the vectorizer's), made float64 once the dropped columns are gone."""
        # scipy's row indexing: no index array as long as the entries beside the rows
        X = _renumber_columns(self.counts[rows], new_column, new_column.max() + 1)
        X.data = X.data.astype(np.float64, copy=False)
        return X

    def __iter__(self):
        return (self[p] for p in range(len(self)))


def fold_matrices(vectorizer, texts, folds, words=None):
    """Each fold's ``(X_train, X_test)``, built in turn: :class:`FoldMatrices`."""
    return FoldMatrices(vectorizer, texts, folds, words)


def _char_wb_spans(length, min_n, max_n):
    """``(offset, n)`` of the character n-grams of a padded word of ``length`` characters,
    scikit-learn's char_wb rule: every n-gram shorter than the word, and the word whole
    when it is no longer than ``max_n`` (the C kernel's loop, for one word in Python)."""
    for off in range(max(length - min_n, 0) + 1):
        for n in range(1, min(max_n, length - off) + 1):
            if (n >= min_n and n < length) or (off == 0 and n == length):
                yield off, n


def check_char_ngrams(bounds):
    """``(min_n, max_n)`` of a ``char_ngrams`` setting, checked (a list, as a model file's
    JSON holds it, taken as the tuple); None as it is."""
    if bounds is None:
        return None
    return _length_range(bounds, "char_ngrams", MAX_CHAR_NGRAM, " characters", "(2, 5)")


def make_vectorizer(weighting, stem, ngrams, language, min_df, chars=None):
    """The :class:`TextVectorizer` of these settings: word n-grams up to ``ngrams`` (0:
    none, only with ``chars``) and character n-grams ``chars`` ((min_n, max_n) or None).
    The one builder of a vectorizer from a classifier's settings: ``TextClassifier``'s,
    ``TextClassifierCV``'s and ``textwin train``'s."""
    params = dict(weighting=weighting, stem=stem, language=language, min_df=min_df,
                  char_ngrams=check_char_ngrams(chars))
    lowest = 0 if chars is not None else 1
    if not (isinstance(ngrams, numbers.Integral) and lowest <= ngrams <= MAX_NGRAM):
        raise ValueError(f"ngrams={ngrams!r}: word n-grams up to an integer from {lowest} to "
                         f"{MAX_NGRAM}" + ("" if lowest else " (0: none, with chars only)"))
    if ngrams != 1:
        params["ngram_range"] = (1, ngrams) if ngrams else None
    return TextVectorizer(**params)


def _length_range(bounds, name, most, unit, example):
    """``(min_n, max_n)`` of the n-gram lengths ``bounds`` (a pair of ints, a list taken as
    the tuple), ``1 <= min_n <= max_n <= most``; else a one-line ValueError."""
    if not (isinstance(bounds, (tuple, list)) and len(bounds) == 2
            and all(isinstance(n, numbers.Integral) and not isinstance(n, bool)
                    for n in bounds)):
        raise ValueError(f"{name}={bounds!r} must be a pair of ints (min_n, max_n), "
                         f"e.g. {example}")
    min_n, max_n = int(bounds[0]), int(bounds[1])
    if not 1 <= min_n <= max_n <= most:
        raise ValueError(f"{name}={bounds!r}: need 1 <= min_n <= max_n <= {most}{unit}, "
                         f"e.g. {example}")
    return min_n, max_n


def _fold_columns(vectorizer, df, n):
    """The new column of each counted one (-1: dropped) and the idf, for a vectorizer
    fitted on ``n`` texts whose document frequencies are ``df``."""
    if vectorizer.n_features is not None:  # hashed: every column stays
        keep = np.ones(df.size, dtype=bool)
    else:
        keep = df >= max(_min_count(vectorizer.min_df, n), 1)
    idf = smooth_idf(df[keep], n) if vectorizer.weighting == "tfidf" else None
    return np.where(keep, np.cumsum(keep) - 1, -1), idf


def _min_count(min_df, n_documents):
    """``min_df`` as a count of documents: an int as it is, a fraction of ``n_documents``
    rounded up."""
    return min_df if isinstance(min_df, numbers.Integral) else math.ceil(min_df * n_documents)


def smooth_idf(df, n_documents):
    """The smoothed idf ``ln((1 + n) / (1 + df)) + 1`` (scikit-learn's ``smooth_idf``)."""
    return np.log((1.0 + n_documents) / (1.0 + np.asarray(df, dtype=np.float64))) + 1.0


def apply_weighting(X, weighting, idf=None):
    """Turn the CSR count matrix ``X`` into binary / count / tf-idf values, in place.

    ``"tfidf"`` stores ``(1 + ln c) * idf[j]`` and scales each row to unit
    Euclidean norm (empty rows stay empty); it needs ``idf``.
    """
    if weighting == "binary":
        X.data[:] = 1.0
    elif weighting == "tfidf":
        np.log(X.data, out=X.data)
        X.data += 1.0
        for start in range(0, X.nnz, BLOCK):  # no idf[X.indices] as long as X.data
            X.data[start:start + BLOCK] *= idf[X.indices[start:start + BLOCK]]
        _l2_normalize_rows(X)
    elif weighting != "count":
        raise ValueError(f"weighting={weighting!r} is not one of {', '.join(_WEIGHTINGS)}")
    return X


def _l2_normalize_rows(X):
    """Scale each row of the CSR matrix ``X`` to unit Euclidean norm, in place.

    Empty rows stay empty (nothing is divided by their zero norm). scikit-learn's
    compiled loop needs no array as long as ``X.data`` (numpy's needed three), and
    sums each row's squares in order, as ``TfidfTransformer`` does: the same bits.
    """
    inplace_csr_row_normalize_l2(X)
    return X
