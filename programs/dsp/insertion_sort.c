/* Insertion sort of 300 ints (random, then already sorted, then reversed) and of an array of
   unsigned short keys with a sentinel-free pointer formulation. */
#include "ssalab.h"

#define N 300

static int data[N];
static unsigned short keys[N];

static unsigned int seed = 4242u;

static unsigned int rnd(void)
{
    seed = seed * 22695477u + 1u;
    return seed >> 8;
}

void insertion_sort(int *a, int n)
{
    int i, j;
    for (i = 1; i < n; i++) {
        int v = a[i];
        for (j = i - 1; j >= 0 && a[j] > v; j--)
            a[j + 1] = a[j];
        a[j + 1] = v;
    }
}

void insertion_sort_u16(unsigned short *first, unsigned short *last)
{
    unsigned short *p, *q;
    if (first == last)
        return;
    for (p = first + 1; p != last; p++) {
        unsigned short v = *p;
        q = p;
        while (q != first && q[-1] > v) {
            *q = q[-1];
            --q;
        }
        *q = v;
    }
}

static int is_sorted(const int *a, int n)
{
    int i;
    for (i = 1; i < n; i++)
        if (a[i - 1] > a[i])
            return 0;
    return 1;
}

static int weighted(const int *a, int n)
{
    unsigned int s = 0;
    int i;
    for (i = 0; i < n; i++)
        s += (unsigned int)a[i] * (unsigned int)(i + 1);
    return (int)(s >> 1);
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

int main(void)
{
    int i, ok = 1;
    unsigned int h = 0;
    for (i = 0; i < N; i++)
        data[i] = (int)(rnd() % 20001u) - 10000;
    insertion_sort(data, N);
    put_line(is_sorted(data, N));
    put_line(weighted(data, N));
    put_line(data[0]);
    put_line(data[N / 2]);
    put_line(data[N - 1]);
    insertion_sort(data, N); /* already sorted */
    put_line(is_sorted(data, N));
    for (i = 0; i < N; i++)
        data[i] = N - i;
    insertion_sort(data, N); /* reversed: worst case */
    for (i = 0; i < N; i++)
        if (data[i] != i + 1)
            ok = 0;
    put_line(ok);
    for (i = 0; i < N; i++)
        keys[i] = (unsigned short)rnd();
    insertion_sort_u16(keys, keys + N);
    ok = 1;
    for (i = 1; i < N; i++)
        if (keys[i - 1] > keys[i])
            ok = 0;
    for (i = 0; i < N; i++)
        h = h * 65599u + keys[i];
    put_line(ok);
    put_line((int)(h >> 1));
    put_line(keys[N - 1]);
    return 0;
}
