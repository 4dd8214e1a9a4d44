# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""A vectorizer's vocabulary held compactly (``src/vocabulary.c``): the terms' UTF-8
bytes one after the other, where each starts, and an open-addressing table of their
ids, looked up by the bytes exactly (never by hash alone). A ``{term: column}``
mapping as a dict is, at about 16 bytes a term beside the text where a dict of str
takes about 100; character n-grams are looked up from the code points the counting
kernel found, without a Python string each."""
from collections.abc import ItemsView, KeysView, Mapping, ValuesView

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t
from libc.string cimport memcmp, memcpy

import numpy as np
cimport numpy as cnp

cnp.import_array()

cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object)
    void *PyUnicode_DATA(object)
    Py_ssize_t PyUnicode_GET_LENGTH(object)
    object PyUnicode_DecodeUTF8(const char *, Py_ssize_t, const char *)

cdef extern from "vocabulary.h" nogil:
    ctypedef struct tw_slots:
        int64_t n_slots
    ctypedef struct tw_vocab:
        uint8_t *bytes
        int64_t n_bytes
        int64_t *offsets
        int64_t n_terms
        tw_slots table
    int tw_vocab_init(tw_vocab *v)
    void tw_vocab_free(tw_vocab *v)
    int64_t tw_vocab_find(const tw_vocab *v, const uint8_t *s, int64_t length)
    int64_t tw_vocab_add(tw_vocab *v, const uint8_t *s, int64_t length)
    int tw_vocab_codes(tw_vocab *v, const uint8_t *prefix, int prefix_len,
                       const uint32_t *codes, const int64_t *first, const int32_t *length,
                       int64_t n, int grow, int64_t *out)
    int tw_vocab_sorted(const tw_vocab *v, int64_t *order)
    int64_t tw_vocab_take(const tw_vocab *src, const int64_t *ids, int64_t n, tw_vocab *dst)
    int64_t tw_vocab_from_buffers(const uint8_t *data, const int64_t *offsets, int64_t n,
                                  tw_vocab *dst)


cdef inline object _utf8(term, const uint8_t **s, Py_ssize_t *length):
    """Point ``*s`` at the UTF-8 bytes of the str ``term``, ``*length`` of them (a lone
    surrogate as surrogatepass writes it): its own when ASCII, else an encoded copy.
    Returns what holds them, to keep while ``*s`` is read."""
    if PyUnicode_IS_ASCII(term):
        s[0] = <const uint8_t *>PyUnicode_DATA(term)
        length[0] = PyUnicode_GET_LENGTH(term)
        return term
    raw = (<str>term).encode("utf-8", "surrogatepass")
    s[0] = <const uint8_t *><const char *>raw
    length[0] = len(raw)
    return raw


cdef class Vocabulary:
    """``{term: column}`` for str terms, the columns 0 to n - 1 in order of insertion
    (see the module's docstring). Reads as a dict does (``v[term]``, ``get``, ``in``,
    ``len``, iteration in column order, ``items``, equality with any mapping); grows
    only through :meth:`columns` and :meth:`columns_of_codes`, in bulk."""

    cdef tw_vocab v

    def __cinit__(self):
        if tw_vocab_init(&self.v):
            raise MemoryError("out of memory for a vocabulary")

    def __dealloc__(self):
        tw_vocab_free(&self.v)

    @staticmethod
    def from_buffers(utf8, offsets):
        """The vocabulary of the terms ``utf8[offsets[j]:offsets[j + 1]]`` (uint8 bytes,
        int64 offsets from 0 to ``utf8.size``, never decreasing), term ``j`` in column
        ``j``. A term given twice raises ValueError(message, j) (j: the repeat)."""
        cdef const uint8_t[::1] data = np.ascontiguousarray(utf8, dtype=np.uint8)
        cdef const int64_t[::1] bounds = np.ascontiguousarray(offsets, dtype=np.int64)
        cdef int64_t n = bounds.shape[0] - 1
        cdef uint8_t empty = 0
        if n < 0 or bounds[0] != 0 or bounds[n] != data.shape[0] or (
                n > 0 and np.any(np.diff(offsets) < 0)):
            raise ValueError("the offsets do not cut the bytes into terms")
        out = Vocabulary()
        tw_vocab_free(&out.v)
        cdef int64_t status = tw_vocab_from_buffers(
            &data[0] if data.shape[0] else &empty, &bounds[0], n, &out.v)
        if status < 0:
            raise MemoryError("out of memory for a vocabulary")
        if status > 0:
            raise ValueError(f"term {status - 1} repeats an earlier term", status - 1)
        return out

    @staticmethod
    def of(terms):
        """The vocabulary of a ``{term: column}`` mapping (its columns 0 to n - 1) or of
        str terms in column order; ValueError for other columns or a term given twice."""
        if isinstance(terms, Vocabulary):
            return terms.copy()
        if isinstance(terms, Mapping):
            order = sorted(terms.items(), key=lambda item: item[1])
            if [column for _, column in order] != list(range(len(order))):
                raise ValueError(f"the vocabulary's {len(order)} columns are not numbered 0 "
                                 f"to {len(order) - 1}")
            terms = [term for term, _ in order]
        terms = list(terms)
        out = Vocabulary()
        columns = out.columns(terms, True)
        if len(out) != len(terms):
            j = int(np.flatnonzero(columns != np.arange(len(terms)))[0])
            raise ValueError(f"the term {terms[j]!r} is given twice", j)
        return out

    # -- reading, as a dict ------------------------------------------------
    def __len__(self):
        return self.v.n_terms

    cdef int64_t _find(self, term) except -2:
        """The column of ``term`` (a str; anything else is absent), or -1."""
        cdef const uint8_t *s
        cdef Py_ssize_t length
        if not isinstance(term, str):
            return -1
        held = _utf8(term, &s, &length)
        return tw_vocab_find(&self.v, s, length)

    def __getitem__(self, term):
        cdef int64_t j = self._find(term)
        if j < 0:
            raise KeyError(term)
        return j

    def get(self, term, default=None):
        cdef int64_t j = self._find(term)
        return default if j < 0 else j

    def __contains__(self, term):
        return self._find(term) >= 0

    def term(self, Py_ssize_t j):
        """The term of column ``j`` (0 <= j < len)."""
        if not 0 <= j < self.v.n_terms:
            raise IndexError(f"column {j} of a vocabulary of {self.v.n_terms} terms")
        cdef int64_t a = self.v.offsets[j]
        return PyUnicode_DecodeUTF8(<const char *>self.v.bytes + a,
                                    self.v.offsets[j + 1] - a, "surrogatepass")

    def tolist(self):
        """The terms in column order, as a list of str."""
        return [self.term(j) for j in range(self.v.n_terms)]

    def __iter__(self):
        cdef Py_ssize_t j
        for j in range(self.v.n_terms):
            yield self.term(j)

    def keys(self):
        return KeysView(self)

    def items(self):
        return ItemsView(self)

    def values(self):
        return ValuesView(self)

    def __eq__(self, other):
        if isinstance(other, Vocabulary):
            return self._same(other)
        if isinstance(other, Mapping):
            return len(self) == len(other) and dict(self.items()) == dict(other.items())
        return NotImplemented

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None

    cdef bint _same(self, Vocabulary other):
        return (self.v.n_terms == other.v.n_terms and self.v.n_bytes == other.v.n_bytes
                and memcmp(self.v.offsets, other.v.offsets,
                           (self.v.n_terms + 1) * sizeof(int64_t)) == 0
                and memcmp(self.v.bytes, other.v.bytes, self.v.n_bytes) == 0)

    def __repr__(self):
        return "{" + ", ".join(f"{t!r}: {j}" for j, t in enumerate(self)) + "}"

    @property
    def utf8(self):
        """The terms' UTF-8 bytes one after the other (a uint8 copy)."""
        cdef cnp.npy_intp n = self.v.n_bytes
        out = cnp.PyArray_EMPTY(1, &n, cnp.NPY_UINT8, 0)
        if n:
            memcpy(cnp.PyArray_DATA(out), self.v.bytes, n)
        return out

    @property
    def offsets(self):
        """Where each term's bytes start, and their end (int64, len + 1; a copy)."""
        cdef cnp.npy_intp n = self.v.n_terms + 1
        out = cnp.PyArray_EMPTY(1, &n, cnp.NPY_INT64, 0)
        memcpy(cnp.PyArray_DATA(out), self.v.offsets, n * sizeof(int64_t))
        return out

    def nbytes(self):
        """The bytes it holds (the terms, their offsets, the table)."""
        return self.v.n_bytes + 8 * (self.v.n_terms + 1) + 4 * self.v.table.n_slots

    def __reduce__(self):
        return Vocabulary.from_buffers, (self.utf8, self.offsets)

    # -- growing and reordering, in bulk ---------------------------------
    def columns(self, terms, bint grow):
        """The column of each str of the list ``terms`` (int64); with ``grow`` a new
        term gets the next column, else its column is -1."""
        cdef Py_ssize_t k, n = len(terms)
        out = np.empty(n, dtype=np.int64)
        cdef int64_t[::1] col = out
        cdef int64_t j
        cdef const uint8_t *s
        cdef Py_ssize_t length
        for k in range(n):
            held = _utf8(terms[k], &s, &length)
            j = tw_vocab_add(&self.v, s, length) if grow else tw_vocab_find(&self.v, s, length)
            if j == -2:
                raise MemoryError("out of memory for a vocabulary")
            col[k] = j
        return out

    def columns_of_codes(self, prefix, const uint32_t[::1] codes, const int64_t[::1] first,
                         const int32_t[::1] length, bint grow):
        """The column of each term ``prefix + codes[first[k]:first[k] + length[k]]``
        (code points, as the character n-gram kernel gives them), int64; with ``grow`` a
        new term gets the next column, else its column is -1. No Python string each."""
        cdef bytes head = prefix.encode("utf-8")
        cdef int64_t n = first.shape[0]
        cdef uint32_t dummy = 0
        out = np.empty(n, dtype=np.int64)
        cdef int64_t[::1] col = out
        cdef int status
        cdef const uint8_t *head_p = <const uint8_t *><const char *>head
        cdef int head_len = len(head)
        if n == 0:
            return out
        with nogil:
            status = tw_vocab_codes(&self.v, head_p, head_len,
                                    &codes[0] if codes.shape[0] else &dummy, &first[0],
                                    &length[0], n, grow, &col[0])
        if status:
            raise MemoryError("out of memory for a vocabulary")
        return out

    def sorted_columns(self):
        """The columns with their terms in sorted order (as Python sorts str: UTF-8's
        byte order is the code points')."""
        out = np.empty(self.v.n_terms, dtype=np.int64)
        cdef int64_t[::1] order = out
        cdef int64_t dummy = 0
        if tw_vocab_sorted(&self.v, &order[0] if self.v.n_terms else &dummy):
            raise MemoryError("out of memory sorting a vocabulary")
        return out

    def take(self, columns):
        """A new vocabulary of the terms of ``columns`` (each in range), the k-th in
        column k. A column given twice raises ValueError(message, k) (k: the repeat)."""
        cdef const int64_t[::1] ids = np.ascontiguousarray(columns, dtype=np.int64)
        cdef int64_t n = ids.shape[0], dummy = 0
        if n and (np.min(columns) < 0 or np.max(columns) >= self.v.n_terms):
            raise IndexError("a column out of the vocabulary's range")
        out = Vocabulary()
        tw_vocab_free(&out.v)
        cdef int64_t status = tw_vocab_take(&self.v, &ids[0] if n else &dummy, n, &out.v)
        if status < 0:
            raise MemoryError("out of memory for a vocabulary")
        if status > 0:
            raise ValueError(f"column {ids[status - 1]} is given twice", status - 1)
        return out

    def copy(self):
        return self.take(np.arange(self.v.n_terms))


Mapping.register(Vocabulary)
