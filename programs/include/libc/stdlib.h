/* stdlib.h -- ssalab's freestanding header.
   exit and abort are served by the compiler's runtime (they stop the simulated program; exit's
   argument becomes the exit status).  abs/labs and a first-fit static-pool malloc/free/calloc
   are defined here in plain subset C (one translation unit, no library). */
#ifndef _SSALAB_STDLIB_H
#define _SSALAB_STDLIB_H

#include <stddef.h>

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1

void exit(int status);
void abort(void);

static int abs(int x)
{
    return x < 0 ? -x : x;
}

static long labs(long x)
{
    return x < 0 ? -x : x;
}

/* Heap: SSALAB_HEAP_WORDS 32-bit words.  Each block starts with a header word holding its size
   in words (header included) times 2, plus 1 when the block is in use.  A zero header word means
   "pool not yet initialised".  malloc is first fit with splitting; free merges the freed block
   with the free blocks that follow it.  Deterministic and O(blocks) per call. */
#ifndef SSALAB_HEAP_WORDS
#define SSALAB_HEAP_WORDS 16384
#endif

static unsigned int __ssalab_heap[SSALAB_HEAP_WORDS];

static void *malloc(size_t n)
{
    unsigned int need = (unsigned int)((n + 3u) / 4u) + 1u;
    unsigned int i = 0;
    if (__ssalab_heap[0] == 0)
        __ssalab_heap[0] = (unsigned int)SSALAB_HEAP_WORDS * 2u;
    if (n == 0 || n > (size_t)SSALAB_HEAP_WORDS * 4u)
        return NULL;
    while (i < SSALAB_HEAP_WORDS) {
        unsigned int size = __ssalab_heap[i] >> 1;
        if ((__ssalab_heap[i] & 1u) == 0 && size >= need) {
            if (size - need >= 2u) {
                __ssalab_heap[i + need] = (size - need) * 2u;
                size = need;
            }
            __ssalab_heap[i] = size * 2u + 1u;
            return &__ssalab_heap[i + 1];
        }
        i += size;
    }
    return NULL;
}

static void free(void *p)
{
    unsigned int i, size;
    if (p == NULL)
        return;
    i = (unsigned int)((unsigned int *)p - __ssalab_heap) - 1u;
    size = __ssalab_heap[i] >> 1;
    while (i + size < SSALAB_HEAP_WORDS && (__ssalab_heap[i + size] & 1u) == 0)
        size += __ssalab_heap[i + size] >> 1;
    __ssalab_heap[i] = size * 2u;
}

/* realloc: a new block, the old contents copied (up to the smaller size, counted in the old
   block's words), the old block freed.  realloc(NULL, n) is malloc(n); realloc(p, 0) frees p
   and returns NULL.  On failure the old block is left untouched and NULL returned. */
static void *realloc(void *p, size_t n)
{
    unsigned int *src = (unsigned int *)p;
    unsigned int *dst;
    unsigned int old, k;
    if (p == NULL)
        return malloc(n);
    if (n == 0) {
        free(p);
        return NULL;
    }
    dst = (unsigned int *)malloc(n);
    if (dst == NULL)
        return NULL;
    old = (src[-1] >> 1) - 1u;
    for (k = 0; k < old && k < (unsigned int)((n + 3u) / 4u); k++)
        dst[k] = src[k];
    free(p);
    return dst;
}

static void *calloc(size_t count, size_t size)
{
    unsigned char *p;
    size_t n, k;
    if (size != 0 && count > (size_t)SSALAB_HEAP_WORDS * 4u / size)
        return NULL;
    n = count * size;
    p = (unsigned char *)malloc(n);
    if (p != NULL)
        for (k = 0; k < n; k++)
            p[k] = 0;
    return p;
}

#endif
