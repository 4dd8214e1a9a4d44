/* Character n-grams inside word boundaries (scikit-learn's analyzer="char_wb").

   A word is a maximal run of characters that are not white space; each word is
   padded with one space on either side, and its n-grams are the substrings of n
   consecutive characters of the padded word, for every n from min_n to max_n.
   A padded word no longer than some n of the range counts once, whole (also
   when shorter than min_n), and ends its n-grams: scikit-learn's rule.

   tw_count_char_ngrams counts them for a chunk of documents (Unicode code
   points, the documents one after the other): a CSR matrix of counts whose
   columns are the chunk's distinct n-grams, numbered in order of first
   occurrence, and for each distinct n-gram where it first occurs in the
   padded words.  The n-grams are found in one hash table (slots.h) keyed by
   their characters (compared exactly, never by hash alone); each document's counts
   are gathered with a per-n-gram stamp of the last document that held it, so
   the work is linear in the number of n-grams. */
#ifndef TEXTWIN_CHARNGRAMS_H
#define TEXTWIN_CHARNGRAMS_H

#include <stdint.h>

#include "slots.h"

typedef struct {
    /* the counts, CSR: n_docs + 1 row pointers, nnz columns (n-gram ids) and counts */
    int64_t *indptr;
    int32_t *indices;
    int32_t *counts;
    int64_t nnz, nnz_cap;
    /* the distinct n-grams: padded[first[k] : first[k] + length[k]] */
    int64_t *first;
    int32_t *length;
    int64_t n_distinct, distinct_cap;
    /* the words, each padded with a space on either side, one after the other */
    uint32_t *padded;
    int64_t padded_len;
    /* private: the hash table of the ids (slots.h) and per-id hash, stamp and position */
    tw_slots table;
    uint64_t *hash;
    int64_t *stamp;
    int64_t *pos;
} tw_char_counts;

/* Count the n-grams, min_n <= n <= max_n, of the documents text[doc_end[d-1]:doc_end[d]]
   (doc_end[-1] read as 0).  spaces: the n_spaces white-space code points above 127,
   sorted (those of Python's str.isspace); below 128 the ASCII ones are built in.
   Returns 0, or -1 when memory ran out (then *out is freed).  On success only the
   arrays returned are left, each exactly as long as it is filled (indptr, indices,
   counts, first, length, padded; the caller may take them over and free each with
   free()).  No Python inside. */
int tw_count_char_ngrams(const uint32_t *text, const int64_t *doc_end, int64_t n_docs,
                         int min_n, int max_n, const uint32_t *spaces, int n_spaces,
                         tw_char_counts *out);

/* Free what tw_count_char_ngrams allocated (idempotent). */
void tw_char_counts_free(tw_char_counts *out);

#endif
