/* Type qualifiers and storage hints: const objects and tables, pointers to const and const
   pointers, volatile objects whose every access must happen (a volatile loop counter, repeated
   volatile reads and writes, a volatile array), and register locals (ignored by ssalab). */
#include "ssalab.h"

static const int primes[8] = { 2, 3, 5, 7, 11, 13, 17, 19 };
static volatile int vcount;
static volatile unsigned char vbuf[4];
const char *const greeting = "hey";

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

static int sum_const(const int *p, int n)
{
    int s = 0;
    while (n--)
        s += *p++;
    return s;
}

static void fill(int *const p, int n)
{
    int i;
    for (i = 0; i < n; i++)
        p[i] = i * 3;
}

int main(void)
{
    const int k = 12;
    int arr[5];
    volatile int v = 0;
    register int r, acc = 0;
    int i;
    const int *pc = primes;
    int *const cp = arr;
    put(k * 2);
    put(sum_const(primes, 8));
    put(pc[7] - *pc);
    pc++;
    put(*pc);
    fill(cp, 5);
    cp[0] = 100;
    put(arr[0] + arr[4]);
    for (r = 0; r < 10; r++)
        acc += r * r;
    put(acc);
    for (vcount = 0; vcount < 7; vcount++)
        v = v + vcount;
    put(v);
    put(vcount);
    v = 1;
    v = 2; /* both stores happen */
    i = v + v; /* two loads */
    put(i);
    for (i = 0; i < 4; i++)
        vbuf[i] = (unsigned char)(i * 70);
    acc = 0;
    for (i = 0; i < 4; i++)
        acc = acc * 256 + vbuf[i];
    put(acc);
    put(greeting[1]);
    return 0;
}
