/* stdio.h -- ssalab's freestanding header.
   printf is a declared variadic function served by the compiler's runtime stub, which knows
   %d %u %x %c %s (and %%); its output goes to the simulator's output like print_int/print_char.
   putchar and puts are defined here on top of the print_char intrinsic. */
#ifndef _SSALAB_STDIO_H
#define _SSALAB_STDIO_H

#include <stddef.h>
#include "ssalab.h"

#define EOF (-1)

int printf(const char *fmt, ...);

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
