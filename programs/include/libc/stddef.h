/* stddef.h -- ssalab's freestanding header (ILP32).  Only ssalab puts programs/include/libc on
   its include path; the host compiler uses its own system headers (see programs/README.md). */
#ifndef _SSALAB_STDDEF_H
#define _SSALAB_STDDEF_H

/* sizeof yields unsigned int and pointer differences are int on both ILP32 targets. */
typedef unsigned int size_t;
typedef int ptrdiff_t;

#define NULL ((void *)0)

/* The implementation's own classic form: the address of the member in an object placed at
   address 0.  Uses only casts, `->`, `&` and pointer subtraction, all in the subset. */
#define offsetof(type, member) ((size_t)((char *)&((type *)0)->member - (char *)0))

#endif
