//! ssalab's built-in headers: the thin C library of the C-DSP subset.
//!
//! They are found by `#include` after the `-I` directories, so a program's own header of the
//! same name wins. Functions the IR interpreter and simulator provide (`print_int`,
//! `print_char`, `putchar`, `printf`, `exit`, `abort`) are only declared; the rest of the
//! library (`abs`, `memcpy`, `strlen`, a static-pool `malloc`, …) is defined here as
//! `static` C functions, which the lowering drops when a program does not use them.

/// The text of a built-in header, if `name` is one.
pub fn builtin(name: &str) -> Option<&'static str> {
    Some(match name {
        "ssalab.h" => SSALAB_H,
        "stdio.h" => STDIO_H,
        "stdlib.h" => STDLIB_H,
        "string.h" => STRING_H,
        "limits.h" => LIMITS_H,
        "stddef.h" => STDDEF_H,
        "stdint.h" => STDINT_H,
        "assert.h" => ASSERT_H,
        _ => return None,
    })
}

/// Names of all built-in headers.
pub const NAMES: [&str; 8] = [
    "ssalab.h", "stdio.h", "stdlib.h", "string.h", "limits.h", "stddef.h", "stdint.h", "assert.h",
];

const SSALAB_H: &str = "\
#ifndef __SSALAB_H
#define __SSALAB_H
void print_int(int x);
void print_char(int c);
#endif
";

const STDDEF_H: &str = "\
#ifndef __SSALAB_STDDEF_H
#define __SSALAB_STDDEF_H
typedef unsigned int size_t;
typedef int ptrdiff_t;
#ifndef NULL
#define NULL ((void *)0)
#endif
#define offsetof(type, member) ((size_t)&((type *)0)->member)
#endif
";

const STDIO_H: &str = "\
#ifndef __SSALAB_STDIO_H
#define __SSALAB_STDIO_H
#include <stddef.h>
#define EOF (-1)
int printf(const char *format, ...);
int putchar(int c);
static int puts(const char *s)
{
    while (*s)
        putchar(*s++);
    putchar('\\n');
    return 0;
}
#endif
";

const STDLIB_H: &str = "\
#ifndef __SSALAB_STDLIB_H
#define __SSALAB_STDLIB_H
#include <stddef.h>
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
void exit(int status);
void abort(void);
static int abs(int x) { return x < 0 ? -x : x; }
static long labs(long x) { return x < 0 ? -x : x; }
#define __SSALAB_HEAP_SIZE 65536
static unsigned char __ssalab_heap[__SSALAB_HEAP_SIZE];
static size_t __ssalab_heap_top;
/* A bump allocator over a static pool; free() does nothing. */
static void *malloc(size_t n)
{
    size_t start = (__ssalab_heap_top + 7u) & ~7u;
    if (n > __SSALAB_HEAP_SIZE || start > __SSALAB_HEAP_SIZE - n)
        return NULL;
    __ssalab_heap_top = start + n;
    return &__ssalab_heap[start];
}
static void *calloc(size_t count, size_t size)
{
    unsigned char *p;
    size_t n = count * size, k;
    if (size != 0 && n / size != count)
        return NULL;
    p = malloc(n);
    if (p)
        for (k = 0; k < n; k++)
            p[k] = 0;
    return p;
}
static void free(void *p) { (void)p; }
#endif
";

const STRING_H: &str = "\
#ifndef __SSALAB_STRING_H
#define __SSALAB_STRING_H
#include <stddef.h>
static void *memcpy(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n--)
        *d++ = *s++;
    return dst;
}
static void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d < s) {
        while (n--)
            *d++ = *s++;
    } else {
        while (n--)
            d[n] = s[n];
    }
    return dst;
}
static void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    while (n--)
        *d++ = (unsigned char)c;
    return dst;
}
static int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *p = a, *q = b;
    for (; n; n--, p++, q++)
        if (*p != *q)
            return *p - *q;
    return 0;
}
static size_t strlen(const char *s)
{
    const char *p = s;
    while (*p)
        p++;
    return p - s;
}
static int strcmp(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}
static int strncmp(const char *a, const char *b, size_t n)
{
    for (; n; n--, a++, b++) {
        if (*a != *b)
            return (unsigned char)*a - (unsigned char)*b;
        if (!*a)
            return 0;
    }
    return 0;
}
static char *strcpy(char *dst, const char *src)
{
    char *d = dst;
    while ((*d++ = *src++) != 0)
        ;
    return dst;
}
#endif
";

const LIMITS_H: &str = "\
#ifndef __SSALAB_LIMITS_H
#define __SSALAB_LIMITS_H
#define CHAR_BIT 8
#define SCHAR_MIN (-128)
#define SCHAR_MAX 127
#define UCHAR_MAX 255
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#define SHRT_MIN (-32768)
#define SHRT_MAX 32767
#define USHRT_MAX 65535
#define INT_MIN (-2147483647 - 1)
#define INT_MAX 2147483647
#define UINT_MAX 4294967295U
#define LONG_MIN (-2147483647L - 1)
#define LONG_MAX 2147483647L
#define ULONG_MAX 4294967295UL
#endif
";

const STDINT_H: &str = "\
#ifndef __SSALAB_STDINT_H
#define __SSALAB_STDINT_H
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef int intptr_t;
typedef unsigned int uintptr_t;
typedef int intmax_t;
typedef unsigned int uintmax_t;
#define INT8_MIN (-128)
#define INT8_MAX 127
#define UINT8_MAX 255
#define INT16_MIN (-32768)
#define INT16_MAX 32767
#define UINT16_MAX 65535
#define INT32_MIN (-2147483647 - 1)
#define INT32_MAX 2147483647
#define UINT32_MAX 4294967295U
#define INT8_C(c) c
#define INT16_C(c) c
#define INT32_C(c) c
#define UINT8_C(c) c
#define UINT16_C(c) c
#define UINT32_C(c) c##U
#endif
";

const ASSERT_H: &str = "\
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
void abort(void);
#define assert(e) ((e) ? (void)0 : abort())
#endif
";
