/* A .c file included by features/includes.c (a common way to share tables between kernels).
   It lives under a directory named include/ so the program lists skip it. */
static const short included_table[] = {
#include "table_data.h"
};

static int included_sum(void)
{
    int i, s = 0;
    for (i = 0; i < (int)(sizeof(included_table) / sizeof(included_table[0])); i++)
        s += included_table[i];
    return s;
}
