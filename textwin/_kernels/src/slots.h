/* The open-addressing hash table of vocabulary.c and charngrams.c: int32 ids in a
   power-of-two array of slots (-1 empty), found by linear probing from a hash's low
   bits and kept at most half full (doubled, every id reinserted, when an insertion
   passes half).  The ids are 0 to n - 1, each an entry of its owner's arrays; the
   owner knows an entry's hash and compares its key, through the callbacks given (calls
   of static functions the compiler inlines).  No Python inside, no global state. */
#ifndef TEXTWIN_SLOTS_H
#define TEXTWIN_SLOTS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int32_t *ids;     /* n_slots of them, -1 empty */
    int64_t n_slots;  /* a power of two */
} tw_slots;

/* Whether the entry `id` has the key sought (ctx: the owner's key). */
typedef int (*tw_slots_same)(const void *ctx, int32_t id);
/* The hash of the entry `id` (ctx: the owner). */
typedef uint64_t (*tw_slots_hash)(const void *ctx, int64_t id);

/* The fewest slots, a power of two and at least `least`, that keep n_ids at most half
   of them with room for one more. */
static inline int64_t tw_slots_for(int64_t n_ids, int64_t least)
{
    int64_t n = least;
    while (n < 2 * n_ids + 2)
        n *= 2;
    return n;
}

/* n_slots (a power of two) ids of -1 in a new block: 0, or -1 when memory ran out. */
static inline int tw_slots_alloc(tw_slots *t, int64_t n_slots)
{
    t->ids = malloc((size_t)n_slots * sizeof(int32_t));
    if (t->ids == NULL) {
        t->n_slots = 0;
        return -1;
    }
    memset(t->ids, 0xFF, (size_t)n_slots * sizeof(int32_t));
    t->n_slots = n_slots;
    return 0;
}

static inline void tw_slots_free(tw_slots *t)
{
    free(t->ids);
    t->ids = NULL;
    t->n_slots = 0;
}

/* The slot holding the entry of hash h whose key `same` accepts, or the empty slot
   where it would go (the table is never full). */
static inline uint64_t tw_slots_find(const tw_slots *t, uint64_t h, tw_slots_same same,
                                     const void *ctx)
{
    uint64_t mask = (uint64_t)t->n_slots - 1;
    for (uint64_t i = h & mask;; i = (i + 1) & mask) {
        int32_t id = t->ids[i];
        if (id < 0 || same(ctx, id))
            return i;
    }
}

/* The table doubled, with the ids 0 to n_ids - 1 reinserted in order by their hashes.
   0, or -1 when memory ran out (the table then stays as it was). */
static inline int tw_slots_grow(tw_slots *t, int64_t n_ids, tw_slots_hash hash,
                                const void *ctx)
{
    tw_slots bigger;
    if (tw_slots_alloc(&bigger, 2 * t->n_slots))
        return -1;
    uint64_t mask = (uint64_t)bigger.n_slots - 1;
    for (int64_t k = 0; k < n_ids; k++) {
        uint64_t i = hash(ctx, k) & mask;
        while (bigger.ids[i] >= 0)
            i = (i + 1) & mask;
        bigger.ids[i] = (int32_t)k;
    }
    free(t->ids);
    *t = bigger;
    return 0;
}

/* Put the new id (the next: ids 0 to id - 1 are in, its entry filled so that `hash`
   answers for it) into the empty slot `slot` found for it, then grow the table when
   more than half full.  0, or -1 when memory ran out growing (the id is in, the table
   as it was, still with empty slots). */
static inline int tw_slots_insert(tw_slots *t, uint64_t slot, int32_t id, tw_slots_hash hash,
                                  const void *ctx)
{
    t->ids[slot] = id;
    int64_t n_ids = (int64_t)id + 1;
    if (2 * n_ids > t->n_slots)
        return tw_slots_grow(t, n_ids, hash, ctx);
    return 0;
}

#endif
