/* MurmurHash3's 64-bit finalizer, for the hash tables of charngrams.c and vocabulary.c:
   they index the low bits of a hash, which an FNV-style product alone leaves poorly
   mixed. */
#ifndef TEXTWIN_FMIX64_H
#define TEXTWIN_FMIX64_H

#include <stdint.h>

static inline uint64_t tw_fmix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ULL;
    h ^= h >> 33;
    return h;
}

#endif
