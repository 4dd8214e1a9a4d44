# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Character n-grams inside word boundaries (scikit-learn's ``analyzer="char_wb"``),
counted in C (``src/charngrams.c``) without the GIL: one pass over a chunk's code
points gives the CSR counts of its distinct n-grams and where each first occurs. The
arrays C filled become numpy's as they are (no copy: a chunk's counts are about twelve
bytes a character of text)."""
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_New
from libc.stdint cimport int32_t, int64_t, uint32_t
from libc.stdlib cimport free

import numpy as np
cimport numpy as cnp

cnp.import_array()

cdef extern from "charngrams.h" nogil:
    ctypedef struct tw_char_counts:
        int64_t *indptr
        int32_t *indices
        int32_t *counts
        int64_t nnz
        int64_t *first
        int32_t *length
        int64_t n_distinct
        uint32_t *padded
        int64_t padded_len

    int tw_count_char_ngrams(const uint32_t *text, const int64_t *doc_end, int64_t n_docs,
                             int min_n, int max_n, const uint32_t *spaces, int n_spaces,
                             tw_char_counts *out)
    void tw_char_counts_free(tw_char_counts *out)


cdef void _free_block(object capsule) noexcept:
    free(PyCapsule_GetPointer(capsule, NULL))


cdef object _own(void **block, Py_ssize_t n, int typenum):
    """A numpy array of the n items C allocated at ``*block``, which it now owns (freed
    with it); ``*block`` is set to NULL."""
    cdef cnp.npy_intp size = n
    cdef void *p = block[0]
    if p == NULL or n == 0:
        free(p)
        block[0] = NULL
        return cnp.PyArray_EMPTY(1, &size, typenum, 0)
    owner = PyCapsule_New(p, NULL, _free_block)
    block[0] = NULL
    out = cnp.PyArray_SimpleNewFromData(1, &size, typenum, p)
    cnp.set_array_base(out, owner)
    return out


def count_char_ngrams(const uint32_t[::1] text, const int64_t[::1] doc_end, int min_n,
                      int max_n, const uint32_t[::1] spaces):
    """The character n-grams, ``min_n <= n <= max_n``, of the documents
    ``text[doc_end[d - 1]:doc_end[d]]`` (code points; ``spaces``: the white-space
    code points above 127, sorted).

    Returns ``(indptr, indices, counts, first, length, padded)``: the CSR counts
    (columns: the distinct n-grams in order of first occurrence; int32 counts), where each
    distinct n-gram is in ``padded`` (the words, each between two spaces, as code
    points) and its length.
    """
    cdef tw_char_counts out
    cdef int status
    cdef int64_t n_docs = doc_end.shape[0]
    cdef uint32_t dummy = 0
    cdef const uint32_t *text_p = &text[0] if text.shape[0] else &dummy
    cdef const uint32_t *spaces_p = &spaces[0] if spaces.shape[0] else &dummy
    cdef const int64_t *ends_p = &doc_end[0] if n_docs else NULL
    with nogil:
        status = tw_count_char_ngrams(text_p, ends_p, n_docs, min_n, max_n, spaces_p,
                                      <int>spaces.shape[0], &out)
    if status:
        raise MemoryError("out of memory counting character n-grams")
    try:
        return (_own(<void **>&out.indptr, n_docs + 1, cnp.NPY_INT64),
                _own(<void **>&out.indices, out.nnz, cnp.NPY_INT32),
                _own(<void **>&out.counts, out.nnz, cnp.NPY_INT32),
                _own(<void **>&out.first, out.n_distinct, cnp.NPY_INT64),
                _own(<void **>&out.length, out.n_distinct, cnp.NPY_INT32),
                _own(<void **>&out.padded, out.padded_len, cnp.NPY_UINT32))
    finally:
        tw_char_counts_free(&out)  # what no array took
