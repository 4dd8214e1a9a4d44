/* Character n-grams inside word boundaries: see charngrams.h. */
#include <stdlib.h>
#include <string.h>

#include "charngrams.h"
#include "fmix64.h"
#include "resize.h"

#define TW_HASH_SEED 0x84222325CBF29CE4ULL
#define TW_HASH_MUL 0x100000001B3ULL

/* Python's str.isspace: ASCII tab to carriage return, the separators 0x1C-0x1F,
   space; above 127 the sorted list given. */
static inline int tw_is_space(uint32_t c, const uint32_t *spaces, int n_spaces)
{
    if (c < 128)
        return (c >= 9 && c <= 13) || (c >= 28 && c <= 32);
    if (n_spaces == 0 || c < spaces[0] || c > spaces[n_spaces - 1])
        return 0;
    int lo = 0, hi = n_spaces - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (spaces[mid] == c)
            return 1;
        if (spaces[mid] < c)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return 0;
}

/* Room for one more distinct n-gram in the per-id arrays (capacities doubled). */
static int tw_grow_distinct(tw_char_counts *o)
{
    if (o->n_distinct < o->distinct_cap)
        return 0;
    int64_t cap = o->distinct_cap > 0 ? 2 * o->distinct_cap : 4096;
    if (tw_resize((void **)&o->first, cap, sizeof(int64_t))
        || tw_resize((void **)&o->length, cap, sizeof(int32_t))
        || tw_resize((void **)&o->hash, cap, sizeof(uint64_t))
        || tw_resize((void **)&o->stamp, cap, sizeof(int64_t))
        || tw_resize((void **)&o->pos, cap, sizeof(int64_t)))
        return -1;
    o->distinct_cap = cap;
    return 0;
}

/* Room for one more entry of the count matrix. */
static int tw_grow_nnz(tw_char_counts *o)
{
    if (o->nnz < o->nnz_cap)
        return 0;
    int64_t cap = o->nnz_cap > 0 ? 2 * o->nnz_cap : 4096;
    if (tw_resize((void **)&o->indices, cap, sizeof(int32_t))
        || tw_resize((void **)&o->counts, cap, sizeof(int32_t)))
        return -1;
    o->nnz_cap = cap;
    return 0;
}

/* The hash of n-gram id (ctx: the counts), for the table's growth. */
static uint64_t tw_hash_of(const void *ctx, int64_t id)
{
    return ((const tw_char_counts *)ctx)->hash[id];
}

/* An n-gram sought: padded[start : start + n], of hash h. */
typedef struct {
    const tw_char_counts *o;
    uint64_t h;
    int64_t start;
    int n;
} tw_gram;

/* Whether n-gram id is the one sought (ctx: a tw_gram): its hash first, then its
   characters. */
static int tw_same_gram(const void *ctx, int32_t id)
{
    const tw_gram *g = ctx;
    const tw_char_counts *o = g->o;
    return o->hash[id] == g->h && o->length[id] == g->n
           && memcmp(o->padded + o->first[id], o->padded + g->start,
                     (size_t)g->n * sizeof(uint32_t)) == 0;
}

/* Count one occurrence of padded[start : start + n] (hash h) in document d. */
static inline int tw_count(tw_char_counts *o, uint64_t h, int64_t start, int n, int64_t d)
{
    tw_gram gram = {o, h, start, n};
    uint64_t slot = tw_slots_find(&o->table, h, tw_same_gram, &gram);
    int32_t id = o->table.ids[slot];
    if (id < 0) {
        if (o->n_distinct >= INT32_MAX || tw_grow_distinct(o))
            return -1;
        id = (int32_t)o->n_distinct++;
        o->first[id] = start;
        o->length[id] = n;
        o->hash[id] = h;
        o->stamp[id] = -1;
        if (tw_slots_insert(&o->table, slot, id, tw_hash_of, o))
            return -1;
    }
    if (o->stamp[id] == d) {
        o->counts[o->pos[id]] += 1;
        return 0;
    }
    if (tw_grow_nnz(o))
        return -1;
    o->stamp[id] = d;
    o->pos[id] = o->nnz;
    o->indices[o->nnz] = id;
    o->counts[o->nnz] = 1;
    o->nnz++;
    return 0;
}

/* The n-grams of the padded word padded[p : p + len] of document d (see charngrams.h). */
static int tw_word_ngrams(tw_char_counts *o, int64_t p, int64_t len, int min_n, int max_n,
                          int64_t d)
{
    const uint32_t *w = o->padded + p;
    int64_t last = len - min_n > 0 ? len - min_n : 0;
    for (int64_t off = 0; off <= last; off++) {
        uint64_t h = TW_HASH_SEED;
        int64_t top = len - off < max_n ? len - off : max_n;
        for (int64_t k = 0; k < top; k++) {
            h = (h ^ w[off + k]) * TW_HASH_MUL;
            int64_t n = k + 1;
            /* every n-gram shorter than the padded word, and the whole word once */
            if ((n >= min_n && n < len) || (off == 0 && n == len)) {
                if (tw_count(o, tw_fmix64(h ^ (uint64_t)n), p + off, (int)n, d))
                    return -1;
            }
        }
    }
    return 0;
}

/* Release the hash table and the per-id work arrays, and shrink the arrays returned to
   their lengths: the capacities doubled as they grew. */
static void tw_char_counts_trim(tw_char_counts *o)
{
    tw_slots_free(&o->table);
    free(o->hash);
    free(o->stamp);
    free(o->pos);
    o->hash = NULL;
    o->stamp = NULL;
    o->pos = NULL;
    /* a failed shrink keeps the larger block, which is as good */
    if (o->nnz > 0) {
        tw_resize((void **)&o->indices, o->nnz, sizeof(int32_t));
        tw_resize((void **)&o->counts, o->nnz, sizeof(int32_t));
        o->nnz_cap = o->nnz;
    }
    if (o->n_distinct > 0) {
        tw_resize((void **)&o->first, o->n_distinct, sizeof(int64_t));
        tw_resize((void **)&o->length, o->n_distinct, sizeof(int32_t));
        o->distinct_cap = o->n_distinct;
    }
}

int tw_count_char_ngrams(const uint32_t *text, const int64_t *doc_end, int64_t n_docs,
                         int min_n, int max_n, const uint32_t *spaces, int n_spaces,
                         tw_char_counts *out)
{
    tw_char_counts *o = out;
    memset(o, 0, sizeof(*o));
    /* the padded words: each character once, plus two spaces per word */
    int64_t padded_len = 0;
    int in_word = 0;
    for (int64_t d = 0, i = 0; d < n_docs; d++) {
        in_word = 0;
        for (; i < doc_end[d]; i++) {
            int space = tw_is_space(text[i], spaces, n_spaces);
            if (!space && !in_word)
                padded_len += 2;
            padded_len += !space;
            in_word = !space;
        }
    }
    o->padded = malloc((size_t)(padded_len + 1) * sizeof(uint32_t));
    o->indptr = malloc((size_t)(n_docs + 1) * sizeof(int64_t));
    if (o->padded == NULL || o->indptr == NULL || tw_slots_alloc(&o->table, 1024))
        goto fail;
    o->indptr[0] = 0;
    int64_t p = 0;
    for (int64_t d = 0, i = 0; d < n_docs; d++) {
        while (i < doc_end[d]) {
            while (i < doc_end[d] && tw_is_space(text[i], spaces, n_spaces))
                i++;
            if (i == doc_end[d])
                break;
            int64_t start = p;
            o->padded[p++] = ' ';
            while (i < doc_end[d] && !tw_is_space(text[i], spaces, n_spaces))
                o->padded[p++] = text[i++];
            o->padded[p++] = ' ';
            if (tw_word_ngrams(o, start, p - start, min_n, max_n, d))
                goto fail;
        }
        o->indptr[d + 1] = o->nnz;
    }
    o->padded_len = p;
    tw_char_counts_trim(o);
    return 0;
fail:
    tw_char_counts_free(o);
    return -1;
}

void tw_char_counts_free(tw_char_counts *o)
{
    free(o->indptr);
    free(o->indices);
    free(o->counts);
    free(o->first);
    free(o->length);
    free(o->padded);
    tw_slots_free(&o->table);
    free(o->hash);
    free(o->stamp);
    free(o->pos);
    memset(o, 0, sizeof(*o));
}
