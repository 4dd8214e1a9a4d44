/* A vocabulary of terms held compactly: their UTF-8 bytes one after the other, where
   each starts, and an open-addressing hash table of their ids (slots.h).  A term is
   found by its bytes, compared exactly after the hash matches: two terms never share an
   id.  About the size of the terms' text plus 16 bytes a term, where a Python dict of
   str takes about 100.

   Ids are 0 to n_terms - 1 in order of insertion.  UTF-8 bytes in memcmp order are the
   code points in order, so tw_vocab_sorted orders terms as Python sorts str. */
#ifndef TEXTWIN_VOCABULARY_H
#define TEXTWIN_VOCABULARY_H

#include <stdint.h>

#include "slots.h"

typedef struct {
    uint8_t *bytes;    /* term j: bytes[offsets[j] : offsets[j + 1]] */
    int64_t n_bytes, bytes_cap;
    int64_t *offsets;  /* n_terms + 1 of them (offsets[0] = 0) */
    int64_t n_terms, terms_cap;
    tw_slots table;    /* the ids, by their terms' hashes (slots.h) */
} tw_vocab;

/* An empty vocabulary; 0, or -1 when memory ran out. */
int tw_vocab_init(tw_vocab *v);
void tw_vocab_free(tw_vocab *v);

/* The id of the term s[0:len], or -1. */
int64_t tw_vocab_find(const tw_vocab *v, const uint8_t *s, int64_t len);

/* The id of the term s[0:len], added as the next id when new; -2 when memory ran out
   (or the ids would pass INT32_MAX). */
int64_t tw_vocab_add(tw_vocab *v, const uint8_t *s, int64_t len);

/* The ids (grow: added when new; else -1 when absent) of n terms given as code points:
   prefix (UTF-8, prefix_len bytes) followed by codes[first[k] : first[k] + length[k]],
   encoded as UTF-8 (a lone surrogate as Python's surrogatepass writes it).  0, or -1
   when memory ran out. */
int tw_vocab_codes(tw_vocab *v, const uint8_t *prefix, int prefix_len, const uint32_t *codes,
                   const int64_t *first, const int32_t *length, int64_t n, int grow,
                   int64_t *out);

/* order[0:n_terms]: the ids with their terms in increasing byte order.  0, or -1 when
   memory ran out. */
int tw_vocab_sorted(const tw_vocab *v, int64_t *order);

/* *dst: a new vocabulary of the terms ids[0:n] of src, in that order.  0; -1 when memory
   ran out (then *dst is empty); or 1 + k when ids[k] repeats an earlier id (*dst then
   holds the terms before it). */
int64_t tw_vocab_take(const tw_vocab *src, const int64_t *ids, int64_t n, tw_vocab *dst);

/* *dst: the n terms bytes[offsets[j] : offsets[j + 1]] (offsets checked by the caller:
   from 0, never decreasing).  0; -1 when memory ran out; or 1 + j when term j repeats an
   earlier one (*dst then holds the terms before it). */
int64_t tw_vocab_from_buffers(const uint8_t *bytes, const int64_t *offsets, int64_t n,
                              tw_vocab *dst);

#endif
