/* printf conversions beyond the plain ones: %ld %lu %li, field widths, precisions for
   integers, the flags - 0 + space #, %o, %hd/%hhu, * widths and precisions (also negative),
   %s with width and precision, %c with width, fprintf to stdout; and the headers <ctype.h>,
   <float.h> (its integer constants), <stdint.h> limits, and realloc.  Values come from a small
   LCG so the targets format them at run time, not from constants. */
#include <ctype.h>
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "ssalab.h"

static unsigned int seed = 12345u;

static int next(void)
{
    seed = seed * 1103515245u + 12345u;
    return (int)(seed >> 8) - (1 << 22);
}

static void numbers(int v)
{
    long l = v;
    unsigned long ul = (unsigned long)v;
    printf("[%ld] [%lu] [%li]\n", l, ul, l);
    printf("[%8d] [%-8d] [%08d] [%+d] [% d] [%+08d]\n", v, v, v, v, v, v);
    printf("[%.5d] [%8.5d] [%-8.5d|] [%.0d]\n", v, v, v, v);
    printf("[%x] [%8X] [%-8x|] [%08x] [%#x] [%#010X]\n", v, v, v, v, v, v);
    printf("[%o] [%#o] [%12o] [%u] [%12u] [%-12u|]\n", v, v, v, v, v, v);
    printf("[%hd] [%hu] [%hhd] [%hhu] [%hx]\n", v, v, v, v, v);
}

int main(void)
{
    int i;
    int *grow;
    const char *words[4] = { "alpha", "be", "", "gamma-delta" };
    const char *text = "Hello, World 42!\t\n";
    numbers(0);
    numbers(-1);
    numbers(2147483647);
    numbers(-2147483647 - 1);
    for (i = 0; i < 6; i++)
        numbers(next());
    printf("[%.0d] [%5.0d] [%#.0o] [%#x] [%.3x]\n", 0, 0, 0, 0, 0);
    for (i = 0; i < 4; i++) {
        printf("[%s] [%8s] [%-8s|] [%.3s] [%6.2s] [%-6.1s|]\n", words[i], words[i], words[i],
               words[i], words[i], words[i]);
        printf("[%*d] [%-*d] [%.*d] [%*.*s]\n", i * 3 - 4, i, i + 2, i, i, i, i + 4, i, words[i]);
    }
    printf("[%c] [%3c] [%-3c|] [%%]\n", 'a', 'b', 'c');
    fprintf(stdout, "fprintf %d %s %05u\n", 12, "to stdout", 34u);
    for (i = 0; text[i] != 0; i++)
        printf("%c:%d%d%d%d%d%d%c ", isprint(text[i]) ? text[i] : '.', !!isdigit(text[i]),
               !!isalpha(text[i]), !!isspace(text[i]), !!isupper(text[i]), !!ispunct(text[i]),
               !!isxdigit(text[i]), isprint(text[i]) ? toupper(tolower(text[i])) : 46);
    printf("\n%d %d %d %d %d\n", toupper('q'), tolower('Q'), toupper('1'), tolower(200),
           isalnum(-1));
    printf("%d %d %d %d %d %d\n", FLT_RADIX, FLT_MANT_DIG, DBL_MANT_DIG, FLT_DIG, DBL_DIG,
           DBL_MAX_EXP);
    printf("%d %d %d %d\n", FLT_MIN_EXP, FLT_MAX_10_EXP, DBL_MIN_EXP, DBL_MIN_10_EXP);
    printf("%d %d %u %d %u\n", INT_LEAST8_MIN, INT_LEAST16_MAX, UINT_LEAST32_MAX,
           (int)INT8_C(-5), (unsigned)UINT32_C(7));
    grow = (int *)malloc(4 * sizeof(int));
    for (i = 0; i < 4; i++)
        grow[i] = i * i;
    grow = (int *)realloc(grow, 100 * sizeof(int));
    for (i = 4; i < 100; i++)
        grow[i] = i * i;
    grow = (int *)realloc(grow, 10 * sizeof(int));
    for (i = 0; i < 10; i++)
        printf("%d ", grow[i]);
    printf("\n");
    free(grow);
    grow = (int *)realloc(NULL, 8);
    grow[1] = 77;
    printf("%d\n", grow[1]);
    free(grow);
    return 0;
}
