/* Growing and shrinking the C kernels' arrays (vocabulary.c, charngrams.c). */
#ifndef TEXTWIN_RESIZE_H
#define TEXTWIN_RESIZE_H

#include <stdint.h>
#include <stdlib.h>

/* realloc *p to cap items of item bytes (at least one item: realloc of 0 bytes may
   free the block); 0, or -1 when memory ran out, the old block kept. */
static inline int tw_resize(void **p, int64_t cap, size_t item)
{
    void *q = realloc(*p, (size_t)(cap > 0 ? cap : 1) * item);
    if (q == NULL)
        return -1;
    *p = q;
    return 0;
}

#endif
