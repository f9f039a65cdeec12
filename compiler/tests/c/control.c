/* Control flow: switch with fall-through and defaults, Duff's device, goto, nested loops
   with break/continue, comma, conditional and short-circuit operators with side effects. */
#include <stdio.h>

static int calls;

static int f(int x)
{
    calls++;
    return x;
}

static int classify(int c)
{
    switch (c) {
    case 'a':
    case 'e':
    case 'i':
    case 'o':
    case 'u':
        return 1;
    case ' ':
        return 2;
    default:
        if (c >= '0' && c <= '9')
            return 3;
        return 0;
    case '\n':
        return 4;
    }
}

static void duff(short *to, const short *from, int count)
{
    int n = (count + 7) / 8;
    switch (count % 8) {
    case 0: do { *to++ = *from++;
    case 7:      *to++ = *from++;
    case 6:      *to++ = *from++;
    case 5:      *to++ = *from++;
    case 4:      *to++ = *from++;
    case 3:      *to++ = *from++;
    case 2:      *to++ = *from++;
    case 1:      *to++ = *from++;
            } while (--n > 0);
    }
}

static int many_cases(unsigned x)
{
    switch (x) {
    case 1: return 10;
    case 3: return 30;
    case 5: return 50;
    case 7: return 70;
    case 100: return 1000;
    case 0xffffffffu: return -1;
    case 9: return 90;
    case 11: return 110;
    }
    return 0;
}

int main(void)
{
    const char *s = "hi 42 you\n";
    short src[19], dst[19];
    int i, j, n, total = 0;

    for (; *s; s++)
        printf("%d", classify(*s));
    printf("\n");
    for (i = 0; i < 19; i++) {
        src[i] = (short)(i * 3);
        dst[i] = 0;
    }
    for (n = 0; n <= 19; n += 19) {
        if (n == 0)
            continue;
        duff(dst, src, n);
    }
    for (i = 0; i < 19; i++)
        total += dst[i];
    printf("%d\n", total);
    total = 0;
    for (i = 0; i < 10; i++) {
        if (i == 2)
            continue;
        for (j = 0; j < 10; j++) {
            if (j > i)
                break;
            total += j;
        }
        if (total > 100)
            break;
    }
    printf("%d %d\n", i, total);
    i = 0;
again:
    i++;
    if (i < 5)
        goto again;
    printf("%d\n", i);
    calls = 0;
    n = f(0) && f(1);
    n += f(1) || f(2);
    n += (f(0) || f(3)) && f(4);
    printf("%d %d\n", n, calls);
    n = (f(1), f(2), 7);
    i = n > 5 ? f(10) : f(20);
    printf("%d %d %d\n", n, i, calls);
    j = 0;
    do {
        j += 3;
    } while (j < 10);
    printf("%d\n", j);
    for (i = 0, j = 10; i < j; i++, j--)
        ;
    printf("%d %d\n", i, j);
    printf("%d %d %d %d\n", many_cases(7), many_cases(0xffffffffu), many_cases(8), many_cases(100));
    {
        int k = 3;
        int r = 0;
        while (k--)
            r += k;
        printf("%d %d\n", r, k);
    }
    return 0;
}
