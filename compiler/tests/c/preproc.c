/* Preprocessor features in real code: function-like macros with # and ##, conditional
   compilation, include guards (through stdio.h), multi-line macros. */
#include <stdio.h>
#include "preproc_helper.h"

#define SQUARE(x) ((x) * (x))
#define CAT(a, b) a##b
#define STR(x) #x
#define XSTR(x) STR(x)
#define VERSION 3
#define SWAP(t, a, b) \
    do {              \
        t tmp_ = (a); \
        (a) = (b);    \
        (b) = tmp_;   \
    } while (0)

#if VERSION >= 3 && defined(HELPER_VALUE)
#define MODE "new"
#elif VERSION == 2
#define MODE "old"
#else
#define MODE "none"
#endif

#ifndef HELPER_VALUE
#error helper header not included
#endif

int CAT(glob, al) = 5;

int main(void)
{
    int a = 1, b = 2;
    int CAT(x, 1) = SQUARE(a + 2);
    SWAP(int, a, b);
    printf("%d %d %d %d\n", x1, a, b, global);
    printf("%s %s %s\n", STR(a + b), XSTR(VERSION), MODE);
    printf("%d %d\n", HELPER_VALUE, helper_twice(21));
    printf("%d\n", __LINE__);
    return 0;
}
