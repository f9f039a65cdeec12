/* goto and labels: a loop built from a backward goto, a forward goto that skips code, leaving
   nested loops, a jump into a labelled statement inside a block, the cleanup-on-error pattern,
   and labels that share names with variables (labels have their own name space). */
#include "ssalab.h"

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

static int sum_to(int n)
{
    int i = 0, s = 0;
top:
    if (i > n)
        goto done;
    s += i;
    i++;
    goto top;
done:
    return s;
}

static int find_pair(int target, int *pi, int *pj)
{
    int i, j;
    for (i = 1; i < 50; i++)
        for (j = i; j < 50; j++)
            if (i * j == target && i + j > 20)
                goto found;
    *pi = *pj = -1;
    return 0;
found:
    *pi = i;
    *pj = j;
    return 1;
}

static int stages(int fail_at)
{
    int log = 0;
    log = log * 10 + 1;
    if (fail_at == 1)
        goto undo1;
    log = log * 10 + 2;
    if (fail_at == 2)
        goto undo2;
    log = log * 10 + 3;
    if (fail_at == 3)
        goto undo3;
    return log;
undo3:
    log = log * 10 + 7;
undo2:
    log = log * 10 + 8;
undo1:
    log = log * 10 + 9;
    return -log;
}

static int into_block(int x)
{
    int r = 0;
    if (x > 0)
        goto inside;
    r = 100;
    {
        int k = 5;
        r += k;
    inside:
        r += 1;
    }
    return r;
}

static int collatz_steps(unsigned int n)
{
    int steps = 0;
again:
    if (n == 1u)
        return steps;
    steps++;
    if (n & 1u)
        goto odd;
    n /= 2u;
    goto again;
odd:
    n = 3u * n + 1u;
    goto again;
}

int main(void)
{
    int i = 0, j = 0, count = 0;
    put(sum_to(100));
    put(find_pair(144, &i, &j));
    put(i * 100 + j);
    put(find_pair(7, &i, &j));
    put(i + j);
    put(stages(0));
    put(stages(1));
    put(stages(2));
    put(stages(3));
    put(into_block(1));
    put(into_block(0));
    put(collatz_steps(27u));
    /* A label named like a variable, and an empty labelled statement at the end of a block. */
    {
        int count2 = 0;
    count:
        count2++;
        if (count2 < 5)
            goto count;
        count = count2;
        if (count == 5)
            goto end;
        count = -1;
    end:;
    }
    put(count);
    return 0;
}
