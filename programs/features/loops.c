/* Loop forms: do-while with continue (which jumps to the condition), while with break, for with
   empty clauses, for with the comma operator in its clauses, nested loops with labelled-style
   exits through flags, count-down loops on unsigned counters that stop at zero, loops whose
   condition has side effects, loops that run zero times, and infinite loops left by return. */
#include "ssalab.h"

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

static int first_square_above(int limit)
{
    int i;
    for (i = 0;; i++)
        if (i * i > limit)
            return i;
}

static int digits(unsigned int v)
{
    int n = 0;
    do {
        n++;
        v /= 10u;
    } while (v != 0u);
    return n;
}

int main(void)
{
    int i, j, s;
    unsigned int u;
    /* continue in do-while evaluates the condition. */
    i = 0;
    s = 0;
    do {
        i++;
        if (i % 3 == 0)
            continue;
        s += i;
    } while (i < 10);
    put(s);
    put(i);
    /* A do-while whose body runs once although the condition is false. */
    i = 100;
    do
        i++;
    while (i < 50);
    put(i);
    /* while with break and continue. */
    i = 0;
    s = 0;
    while (1) {
        i++;
        if (i > 20)
            break;
        if (i & 1)
            continue;
        s += i;
    }
    put(s);
    /* for with empty clauses. */
    i = 0;
    for (;;) {
        if (++i >= 7)
            break;
    }
    put(i);
    for (i = 0; i < 5;)
        i += 2;
    put(i);
    /* comma operator in the clauses. */
    for (i = 0, j = 20, s = 0; i < j; i++, j -= 2)
        s += j - i;
    put(s * 100 + i);
    /* Nested loops with an exit flag. */
    {
        int found = 0, fi = -1, fj = -1;
        for (i = 1; i < 30 && !found; i++)
            for (j = i; j < 30; j++)
                if (i * i + j * j == 25 * 25) {
                    found = 1;
                    fi = i;
                    fj = j;
                    break;
                }
        put(fi * 100 + fj);
        put(i);
    }
    /* Unsigned count-down loops. */
    s = 0;
    for (u = 10u; u > 0u; u--)
        s += (int)u;
    put(s);
    s = 0;
    u = 5u;
    while (u--)
        s = s * 2 + (int)u;
    put(s);
    put((int)u);
    /* Side effects in the condition. */
    i = 0;
    s = 0;
    while (i++ < 5)
        s += i;
    put(s * 10 + i);
    i = 10;
    s = 0;
    while (--i)
        s += i;
    put(s);
    /* Zero-trip loops. */
    s = 0;
    for (i = 5; i < 5; i++)
        s = -1;
    while (s > 0)
        s = -2;
    put(s);
    put(first_square_above(1000));
    put(digits(0u) + digits(9u) * 10 + digits(4294967295u) * 100);
    /* Loop-carried values through several nested levels. */
    s = 0;
    for (i = 0; i < 4; i++) {
        j = 0;
        do {
            int k = 0;
            while (k < j) {
                s += i * j + k;
                k++;
            }
            j++;
        } while (j < i + 2);
    }
    put(s);
    return 0;
}
