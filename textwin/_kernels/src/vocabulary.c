/* A compact vocabulary: see vocabulary.h. */
#include <stdlib.h>
#include <string.h>

#include "fmix64.h"
#include "resize.h"
#include "vocabulary.h"

/* FNV-1a over the bytes, then MurmurHash3's finalizer (fmix64.h). */
static inline uint64_t tw_vocab_hash(const uint8_t *s, int64_t len)
{
    uint64_t h = 0xCBF29CE484222325ULL;
    for (int64_t i = 0; i < len; i++)
        h = (h ^ s[i]) * 0x100000001B3ULL;
    return tw_fmix64(h ^ (uint64_t)len);
}

/* The hash of term id (ctx: the vocabulary), for the table's growth. */
static uint64_t tw_vocab_hash_of(const void *ctx, int64_t id)
{
    const tw_vocab *v = ctx;
    int64_t a = v->offsets[id];
    return tw_vocab_hash(v->bytes + a, v->offsets[id + 1] - a);
}

/* A term sought: s[0:len] in the vocabulary v. */
typedef struct {
    const tw_vocab *v;
    const uint8_t *s;
    int64_t len;
} tw_vocab_key;

/* Whether term id is the term sought (ctx: a tw_vocab_key). */
static int tw_vocab_same(const void *ctx, int32_t id)
{
    const tw_vocab_key *key = ctx;
    int64_t a = key->v->offsets[id];
    return key->v->offsets[id + 1] - a == key->len
           && memcmp(key->v->bytes + a, key->s, (size_t)key->len) == 0;
}

static int tw_vocab_alloc(tw_vocab *v, int64_t terms, int64_t bytes)
{
    memset(v, 0, sizeof(*v));
    v->terms_cap = terms > 16 ? terms : 16;
    v->bytes_cap = bytes > 64 ? bytes : 64;
    v->offsets = malloc((size_t)(v->terms_cap + 1) * sizeof(int64_t));
    v->bytes = malloc((size_t)v->bytes_cap);
    if (v->offsets == NULL || v->bytes == NULL
        || tw_slots_alloc(&v->table, tw_slots_for(terms, 16))) {
        tw_vocab_free(v);
        return -1;
    }
    v->offsets[0] = 0;
    return 0;
}

int tw_vocab_init(tw_vocab *v)
{
    return tw_vocab_alloc(v, 0, 0);
}

void tw_vocab_free(tw_vocab *v)
{
    free(v->bytes);
    free(v->offsets);
    tw_slots_free(&v->table);
    memset(v, 0, sizeof(*v));
}

/* The slot holding the term s[0:len], or the empty slot where it would go. */
static inline uint64_t tw_vocab_slot(const tw_vocab *v, const uint8_t *s, int64_t len)
{
    tw_vocab_key key = {v, s, len};
    return tw_slots_find(&v->table, tw_vocab_hash(s, len), tw_vocab_same, &key);
}

int64_t tw_vocab_find(const tw_vocab *v, const uint8_t *s, int64_t len)
{
    return v->table.ids[tw_vocab_slot(v, s, len)];
}

/* Append the term s[0:len] as the next id into the empty slot `slot`. */
static int64_t tw_vocab_append(tw_vocab *v, const uint8_t *s, int64_t len, uint64_t slot)
{
    if (v->n_terms >= INT32_MAX)
        return -2;
    if (v->n_terms + 1 > v->terms_cap) {
        int64_t cap = 2 * v->terms_cap;
        if (tw_resize((void **)&v->offsets, cap + 1, sizeof(int64_t)))
            return -2;
        v->terms_cap = cap;
    }
    if (v->n_bytes + len > v->bytes_cap) {
        int64_t cap = 2 * v->bytes_cap;
        while (cap < v->n_bytes + len)
            cap *= 2;
        if (tw_resize((void **)&v->bytes, cap, 1))
            return -2;
        v->bytes_cap = cap;
    }
    memcpy(v->bytes + v->n_bytes, s, (size_t)len);
    v->n_bytes += len;
    int64_t id = v->n_terms++;
    v->offsets[v->n_terms] = v->n_bytes;
    if (tw_slots_insert(&v->table, slot, (int32_t)id, tw_vocab_hash_of, v))
        return -2;
    return id;
}

int64_t tw_vocab_add(tw_vocab *v, const uint8_t *s, int64_t len)
{
    uint64_t slot = tw_vocab_slot(v, s, len);
    int32_t id = v->table.ids[slot];
    return id >= 0 ? id : tw_vocab_append(v, s, len, slot);
}

/* UTF-8 of code point c at out (at most 4 bytes); returns the bytes written. */
static inline int tw_utf8(uint32_t c, uint8_t *out)
{
    if (c < 0x80) {
        out[0] = (uint8_t)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (uint8_t)(0xC0 | (c >> 6));
        out[1] = (uint8_t)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {  /* surrogates too, as surrogatepass writes them */
        out[0] = (uint8_t)(0xE0 | (c >> 12));
        out[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (uint8_t)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | (c >> 18));
    out[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (uint8_t)(0x80 | (c & 0x3F));
    return 4;
}

int tw_vocab_codes(tw_vocab *v, const uint8_t *prefix, int prefix_len, const uint32_t *codes,
                   const int64_t *first, const int32_t *length, int64_t n, int grow,
                   int64_t *out)
{
    int64_t cap = 0;
    uint8_t *term = NULL;
    for (int64_t k = 0; k < n; k++) {
        int64_t need = prefix_len + 4 * (int64_t)length[k];
        if (need > cap) {
            cap = need > 2 * cap ? need : 2 * cap;
            if (tw_resize((void **)&term, cap, 1)) {
                free(term);
                return -1;
            }
        }
        memcpy(term, prefix, (size_t)prefix_len);
        int64_t len = prefix_len;
        const uint32_t *c = codes + first[k];
        for (int32_t i = 0; i < length[k]; i++)
            len += tw_utf8(c[i], term + len);
        uint64_t slot = tw_vocab_slot(v, term, len);
        int64_t id = v->table.ids[slot];
        if (id < 0 && grow) {
            id = tw_vocab_append(v, term, len, slot);
            if (id == -2) {
                free(term);
                return -1;
            }
        }
        out[k] = id;
    }
    free(term);
    return 0;
}

/* memcmp order of terms a and b: negative, 0 or positive. */
static inline int tw_vocab_cmp(const tw_vocab *v, int64_t a, int64_t b)
{
    int64_t la = v->offsets[a + 1] - v->offsets[a], lb = v->offsets[b + 1] - v->offsets[b];
    int c = memcmp(v->bytes + v->offsets[a], v->bytes + v->offsets[b],
                   (size_t)(la < lb ? la : lb));
    return c != 0 ? c : (la > lb) - (la < lb);
}

int tw_vocab_sorted(const tw_vocab *v, int64_t *order)
{
    /* bottom-up merge sort of the ids (qsort has no portable context argument) */
    int64_t n = v->n_terms;
    int64_t *tmp = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    if (tmp == NULL)
        return -1;
    for (int64_t k = 0; k < n; k++)
        order[k] = k;
    int64_t *src = order, *dst = tmp;
    for (int64_t width = 1; width < n; width *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * width) {
            int64_t mid = lo + width < n ? lo + width : n;
            int64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = tw_vocab_cmp(v, src[i], src[j]) <= 0 ? src[i++] : src[j++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        int64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != order)
        memcpy(order, src, (size_t)n * sizeof(int64_t));
    free(tmp);
    return 0;
}

/* *dst: a new vocabulary of the terms bytes[offsets[j] : offsets[j + 1]] for j = ids[k]
   (ids NULL: j = k), k = 0 to n - 1, in that order.  0; -1 when memory ran out (then
   *dst is empty); or 1 + k when the k-th repeats an earlier one (*dst then holds the
   terms before it). */
static int64_t tw_vocab_build(const uint8_t *bytes, const int64_t *offsets, const int64_t *ids,
                              int64_t n, tw_vocab *dst)
{
    int64_t n_bytes = 0;
    for (int64_t k = 0; k < n; k++) {
        int64_t j = ids != NULL ? ids[k] : k;
        n_bytes += offsets[j + 1] - offsets[j];
    }
    if (tw_vocab_alloc(dst, n, n_bytes))
        return -1;
    for (int64_t k = 0; k < n; k++) {
        int64_t j = ids != NULL ? ids[k] : k;
        int64_t a = offsets[j], len = offsets[j + 1] - a;
        uint64_t slot = tw_vocab_slot(dst, bytes + a, len);
        if (dst->table.ids[slot] >= 0)
            return 1 + k;
        if (tw_vocab_append(dst, bytes + a, len, slot) < 0) {
            tw_vocab_free(dst);
            tw_vocab_init(dst);
            return -1;
        }
    }
    return 0;
}

int64_t tw_vocab_take(const tw_vocab *src, const int64_t *ids, int64_t n, tw_vocab *dst)
{
    return tw_vocab_build(src->bytes, src->offsets, ids, n, dst);
}

int64_t tw_vocab_from_buffers(const uint8_t *bytes, const int64_t *offsets, int64_t n,
                              tw_vocab *dst)
{
    return tw_vocab_build(bytes, offsets, NULL, n, dst);
}
