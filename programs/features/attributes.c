/* Things ssalab parses and ignores: #pragma lines, _Pragma("...") operators (at file scope,
   inside a function and between declaration specifiers and the declarator) and
   __attribute__((...)) on functions, variables, parameters and types.  Only pragmas and
   attributes gcc knows are used, so gcc with -Wall -Werror accepts the file too; none of them
   changes what the program prints. */
#include "ssalab.h"

#define TABLE_LEN 4

#pragma GCC diagnostic push
_Pragma("GCC diagnostic ignored \"-Wunused-parameter\"")

struct __attribute__((aligned(8))) aligned_pair {
    int a, b;
};

static int __attribute__((noinline)) twice(int x)
{
    return 2 * x;
}

__attribute__((unused)) static int never_called(int x)
{
    return x;
}

static int ignore_second(int used, int unused_param __attribute__((unused)))
{
    return used + 1;
}

static int takes_unused(int a, int b)
{
    return a; /* b is unused: the _Pragma above silences gcc */
}

#pragma GCC diagnostic pop

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

int main(void)
{
    /* push_macro/pop_macro are handled entirely by gcc's preprocessor, so gcc accepts them
       where the subset allows any _Pragma: between specifiers and declarator. */
    int _Pragma("push_macro(\"TABLE_LEN\")") between = 5;
    static _Pragma("pop_macro(\"TABLE_LEN\")") int table_len = TABLE_LEN;
    static int table[4] __attribute__((aligned(16))) = { 1, 2, 3, 4 };
    struct aligned_pair p = { 3, 4 };
    int unused_local __attribute__((unused)) = 9;
#pragma GCC diagnostic push
#pragma GCC diagnostic pop
    put(twice(between));
    put(table_len);
    put(table[0] + table[3]);
    put(p.a * p.b);
    put(ignore_second(41, 0));
    put(takes_unused(7, 8));
    return 0;
}
