/* stdio.h -- ssalab's freestanding header.
   printf is a declared variadic function served by the compiler (the interpreter formats it;
   the targets expand a literal format at compile time): conversions d i u o x X c s p %, flags
   - + space # 0, width and precision (also *), lengths hh h l j z t.  Its output goes to the
   simulator's output like print_int/print_char.  There is one output stream: fprintf to
   stdout or stderr is printf to it (the stream is evaluated and ignored).
   putchar and puts are defined here on top of the print_char intrinsic. */
#ifndef _SSALAB_STDIO_H
#define _SSALAB_STDIO_H

#include <stddef.h>
#include "ssalab.h"

#define EOF (-1)

typedef struct __ssalab_file FILE;
#define stdout ((FILE *)1)
#define stderr ((FILE *)2)

int printf(const char *fmt, ...);
int fprintf(FILE *stream, const char *fmt, ...);

static int putchar(int c)
{
    print_char(c);
    return (unsigned char)c;
}

static int puts(const char *s)
{
    while (*s)
        print_char(*s++);
    print_char('\n');
    return 1;
}

#endif
