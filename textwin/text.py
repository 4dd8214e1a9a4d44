"""Tokenizing, Porter stemming and vectorizing raw text (docs/mathematics.md §11).

The Reuters-21578 protocol turns a document into the set of Porter stems of its
words: lower case, no stop-word removal. Three pieces do that here:

- :func:`tokenize` splits a text into words with one regular expression,
  :data:`TOKEN_PATTERN`;
- :class:`PorterStemmer` is NLTK's Porter stemmer (which needs no data
  download) memoized per distinct token: a corpus of a million tokens has only
  tens of thousands of distinct ones, so stemming each token once is the
  difference between seconds and minutes;
- :class:`TextVectorizer` is a scikit-learn transformer from raw texts to a CSR
  matrix of binary, count or L2-normalized tf-idf values.

The vectorizer never builds per-document Python dictionaries: it tokenizes
the whole corpus in one regex pass (over latin-1 bytes when it can, 2-3 times
faster than over str), maps every distinct token to a column once, and builds
the CSR matrix with numpy from the flat array of column ids.
"""
import math
import numbers
import re

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

__all__ = ["TOKEN_PATTERN", "tokenize", "PorterStemmer", "TextVectorizer"]

#: The words of a text: maximal runs of (Unicode) letters. Digits, punctuation,
#: white space and underscores separate words and are dropped, so ``"U.S."``
#: gives ``["u", "s"]``, ``"don't"`` gives ``["don", "t"]`` and ``"1,750 dlrs"``
#: gives ``["dlrs"]``. ``[^\W\d_]`` is "a word character that is neither a
#: digit nor an underscore", i.e. a letter, in any alphabet.
TOKEN_PATTERN = r"[^\W\d_]+"

_TOKEN_RE = re.compile(TOKEN_PATTERN)

# Fast path of TextVectorizer: the documents joined by _SEP, encoded as
# latin-1 and searched once with a bytes regex matching exactly the bytes
# whose character TOKEN_PATTERN matches (letters, and also the superscript
# digits and vulgar fractions that Python counts as word characters).
_SEP = "\x00"
_LATIN1_WORD_BYTES = bytes(b for b in range(256) if _TOKEN_RE.fullmatch(chr(b)))
_LATIN1_TOKEN_RE = re.compile(
    b"[" + b"".join(re.escape(bytes([b])) for b in _LATIN1_WORD_BYTES) + b"]+|\x00"
)


def _decode_latin1(token):
    return token.decode("latin-1")


_WEIGHTINGS = ("binary", "count", "tfidf")


def tokenize(text, *, lowercase=True):
    """Split ``text`` into words: lower case, no stop-word removal.

    A word is a maximal run of letters (see :data:`TOKEN_PATTERN`, the regular
    expression ``[^\\W\\d_]+``); everything else separates words.

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
    return _TOKEN_RE.findall(text.lower() if lowercase else text)


class PorterStemmer:
    """NLTK's Porter stemmer, memoized per distinct token.

    Stemming dominates text preprocessing (users.md row 21): NLTK's
    implementation handles about 50,000 tokens per second, but a corpus
    repeats its words, so each distinct token is stemmed once and looked up
    afterwards. The memo only grows; one instance per corpus is the intended
    use. Looking up the memo from several threads is safe (a dict read or a
    single assignment is atomic in CPython); at worst a token is stemmed twice.

    Parameters
    ----------
    mode : {"NLTK_EXTENSIONS", "MARTIN_EXTENSIONS", "ORIGINAL_ALGORITHM"}, \
default="NLTK_EXTENSIONS"
        Passed to :class:`nltk.stem.PorterStemmer`.

    Examples
    --------
    >>> stemmer = PorterStemmer()
    >>> stemmer.stem_many(["ponies", "running", "ponies"])
    ['poni', 'run', 'poni']
    """

    def __init__(self, mode="NLTK_EXTENSIONS"):
        from nltk.stem.porter import PorterStemmer as _NLTKPorter

        self.mode = mode
        # to_lowercase=False: the tokens are already lower case when they
        # should be, and a case-sensitive vectorizer must keep their case.
        self._stem = _NLTKPorter(mode=mode).stem
        self._memo = {}

    def stem(self, token):
        """Return the Porter stem of one token."""
        try:
            return self._memo[token]
        except KeyError:
            stem = self._memo[token] = self._stem(token, to_lowercase=False)
            return stem

    def stem_many(self, tokens):
        """Return the stems of ``tokens``, in order (repetitions kept)."""
        stem = self.stem
        return [stem(t) for t in tokens]

    def __len__(self):
        """Number of distinct tokens stemmed so far."""
        return len(self._memo)

    def __repr__(self):
        return f"PorterStemmer(mode={self.mode!r})"


def _check_documents(raw_documents):
    """Return ``raw_documents`` as a list of str, or raise a clear error."""
    if isinstance(raw_documents, (str, bytes)):
        raise TypeError(
            "TextVectorizer expects an iterable of texts (e.g. a list of str), got a "
            "single string; wrap it in a list: [text]"
        )
    try:
        docs = list(raw_documents)
    except TypeError:
        raise TypeError(
            "TextVectorizer expects an iterable of texts (e.g. a list of str), got "
            f"{type(raw_documents).__name__}"
        ) from None
    for i, doc in enumerate(docs):
        if not isinstance(doc, str):
            raise TypeError(
                f"document {i} is a {type(doc).__name__}, not a str; every document "
                "must be a text (use '' for an empty document, decode bytes first)"
            )
    return docs


class TextVectorizer(TransformerMixin, BaseEstimator):
    """Raw texts to a CSR matrix over a (stemmed) vocabulary.

    The pipeline of docs/mathematics.md §11: lower case, :func:`tokenize`, Porter
    stem (:class:`PorterStemmer`), no stop-word removal. The vocabulary is
    fitted on the training texts; words never seen in ``fit`` are ignored by
    ``transform``. An empty document (or one with no letters) is a valid,
    empty row.

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
          FAQ's advice, users.md row 23). Equal to scikit-learn's
          ``TfidfTransformer(sublinear_tf=True)``.
    stem : bool, default=True
        Replace each word by its Porter stem.
    lowercase : bool, default=True
        Lower-case the text before tokenizing.
    min_df : int or float, default=1
        Keep only terms that occur in at least ``min_df`` training documents
        (an int), or in at least the fraction ``min_df`` of them (a float in
        (0, 1]).
    token_pattern : str, default=TOKEN_PATTERN
        Regular expression whose matches are the words.

    Attributes
    ----------
    vocabulary_ : dict of str to int
        Term to column index; the columns are in sorted term order.
    document_frequency_ : ndarray of shape (n_features,), dtype int64
        Number of training documents containing each term.
    idf_ : ndarray of shape (n_features,)
        The idf weights (only when ``weighting="tfidf"``).
    n_empty_ : int
        Number of training documents that produced no term at all.

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
        lowercase=True,
        min_df=1,
        token_pattern=TOKEN_PATTERN,
    ):
        self.weighting = weighting
        self.stem = stem
        self.lowercase = lowercase
        self.min_df = min_df
        self.token_pattern = token_pattern

    # -- validation --------------------------------------------------------
    def _validate_params(self):
        if self.weighting not in _WEIGHTINGS:
            raise ValueError(
                f"weighting={self.weighting!r} is not one of {', '.join(_WEIGHTINGS)}"
            )
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
        try:
            token_re = re.compile(self.token_pattern)
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

    # -- the shared tokenizing pass ---------------------------------------
    def _tokens(self, docs, token_re):
        """Every token of every document, in order, with a separator between documents.

        Returns ``(tokens, separator, decode)``: ``separator`` is the item that
        stands between two documents in ``tokens`` and ``decode`` turns a token
        into a str. With the default pattern and a latin-1 corpus (Reuters is),
        the documents are joined and searched once as bytes, where the regex
        runs 2-3 times faster than on str; the bytes class is built from
        :data:`TOKEN_PATTERN` itself, so the words are the same.
        """
        text = _SEP.join(docs)
        if self.lowercase:
            text = text.lower()
        if self.token_pattern == TOKEN_PATTERN and text.count(_SEP) == max(len(docs) - 1, 0):
            try:
                raw = text.encode("latin-1")
            except UnicodeEncodeError:
                pass
            else:
                return _LATIN1_TOKEN_RE.findall(raw), _SEP.encode(), _decode_latin1
        # General path: one search per document, an object as the separator.
        separator = object()
        findall = token_re.findall
        tokens = []
        for i, doc in enumerate(docs):
            if i:
                tokens.append(separator)
            tokens.extend(findall(doc.lower() if self.lowercase else doc))
        return tokens, separator, str

    def _term_of(self, distinct_tokens, decode):
        """Dict from each distinct token to its term (its stem, or itself)."""
        if not self.stem:
            return {t: decode(t) for t in distinct_tokens}
        stem = self._stemmer.stem
        return {t: stem(decode(t)) for t in distinct_tokens}

    @staticmethod
    def _count_matrix(tokens, separator, col_of_token, n_docs, n_features):
        """CSR matrix of term counts.

        ``col_of_token`` maps each distinct token to its column (``-1`` for a
        token outside the vocabulary, dropped). The separators between
        documents give each token its row; one sort of the keys
        ``row * n_features + col`` both groups equal terms of a document
        (their count) and orders the columns of each row.
        """
        col_of_token[separator] = -2
        cols = np.fromiter(map(col_of_token.__getitem__, tokens), dtype=np.int64, count=len(tokens))
        is_sep = cols == -2
        rows = np.cumsum(is_sep)
        keep = cols >= 0
        keys = rows[keep] * n_features + cols[keep]
        keys, counts = np.unique(keys, return_counts=True)
        row_of = keys // n_features
        indptr = np.zeros(n_docs + 1, dtype=np.int64)
        np.cumsum(np.bincount(row_of, minlength=n_docs), out=indptr[1:])
        index_dtype = np.int32 if len(keys) < 2**31 and n_features < 2**31 else np.int64
        X = sp.csr_matrix(
            (
                counts.astype(np.float64),
                (keys % n_features).astype(index_dtype),
                indptr.astype(index_dtype),
            ),
            shape=(n_docs, n_features),
        )
        # Built sorted and without duplicates by construction.
        X.has_sorted_indices = True
        return X

    def _settings(self):
        """The parameters the fitted vocabulary depends on (min_df only filters it)."""
        return {"weighting": self.weighting, "stem": self.stem, "lowercase": self.lowercase,
                "token_pattern": self.token_pattern}

    def _weight(self, X):
        """Apply the weighting to a count matrix, in place."""
        return apply_weighting(X, self.weighting, getattr(self, "idf_", None))

    # -- public API --------------------------------------------------------
    def fit(self, raw_documents, y=None):
        """Learn the vocabulary (and idf) of the training texts.

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
        self.fit_transform(raw_documents)
        return self

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
        token_re = self._validate_params()
        docs = _check_documents(raw_documents)
        self._stemmer = PorterStemmer() if self.stem else None
        tokens, separator, decode = self._tokens(docs, token_re)

        # Every distinct token is stemmed once; the columns are the sorted
        # distinct terms, so each token maps to its column in one lookup.
        distinct = set(tokens)
        distinct.discard(separator)
        term_of = self._term_of(distinct, decode)
        terms = sorted(set(term_of.values()))
        if not terms:
            raise ValueError(
                f"the {len(docs)} training documents contain no word at all "
                f"(token_pattern={self.token_pattern!r}); there is no vocabulary "
                "to learn"
            )
        col_of_term = {term: j for j, term in enumerate(terms)}
        col_of_token = {t: col_of_term[term] for t, term in term_of.items()}
        X = self._count_matrix(tokens, separator, col_of_token, len(docs), len(terms))
        df = np.bincount(X.indices, minlength=len(terms)).astype(np.int64)

        min_df = self.min_df
        if not isinstance(min_df, numbers.Integral):
            min_df = math.ceil(min_df * len(docs))
        if min_df > 1:
            keep = np.flatnonzero(df >= min_df)
            if len(keep) == 0:
                raise ValueError(
                    f"min_df={self.min_df} removes every term: no term occurs in "
                    f"{min_df} of the {len(docs)} training documents; lower min_df"
                )
            X = X[:, keep]
            X.sort_indices()
            df = df[keep]
            terms = [terms[j] for j in keep]

        self.vocabulary_ = {term: j for j, term in enumerate(terms)}
        self._fitted_settings = self._settings()
        self.document_frequency_ = df
        self.n_empty_ = int(np.count_nonzero(np.diff(X.indptr) == 0))
        if self.weighting == "tfidf":
            self.idf_ = smooth_idf(df, len(docs))
        elif hasattr(self, "idf_"):  # left by an earlier fit with weighting="tfidf"
            del self.idf_
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
        check_is_fitted(self, "vocabulary_")
        token_re = self._validate_params()
        fitted = getattr(self, "_fitted_settings", None)  # None: rebuilt from a model file
        now = self._settings()
        if fitted is not None and fitted != now:
            changed = [f"{k}={v!r} (fitted with {fitted[k]!r})"
                       for k, v in now.items() if fitted[k] != v]
            raise ValueError(
                f"TextVectorizer: {', '.join(changed)}: the vocabulary and idf were learnt "
                "with the other setting; fit again after set_params"
            )
        docs = _check_documents(raw_documents)
        tokens, separator, decode = self._tokens(docs, token_re)
        distinct = set(tokens)
        distinct.discard(separator)
        vocab = self.vocabulary_
        col_of_token = {t: vocab.get(term, -1) for t, term in self._term_of(distinct, decode).items()}
        X = self._count_matrix(tokens, separator, col_of_token, len(docs), len(vocab))
        return self._weight(X)

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
        check_is_fitted(self, "vocabulary_")
        names = np.empty(len(self.vocabulary_), dtype=object)
        for term, j in self.vocabulary_.items():
            names[j] = term
        return names

    def __getstate__(self):
        # The stemmer memo is a cache: rebuilt lazily after unpickling.
        state = self.__dict__.copy()
        state.pop("_stemmer", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if self.__dict__.get("stem", False) and "vocabulary_" in state:
            self._stemmer = PorterStemmer()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        return tags


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
        X.data *= idf[X.indices]
        _l2_normalize_rows(X)
    elif weighting != "count":
        raise ValueError(f"weighting={weighting!r} is not one of {', '.join(_WEIGHTINGS)}")
    return X


def _l2_normalize_rows(X):
    """Scale each row of the CSR matrix ``X`` to unit Euclidean norm, in place.

    Empty rows stay empty (nothing is divided by their zero norm).
    """
    lengths = np.diff(X.indptr)
    rows = np.repeat(np.arange(X.shape[0]), lengths)
    norms = np.sqrt(np.bincount(rows, weights=X.data**2, minlength=X.shape[0]))
    X.data /= norms[rows]
    return X
