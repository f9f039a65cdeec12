/* Quicksort of 1000 ints: recursive (Hoare partition, median of three, recursion on the smaller
   part, insertion sort for short ranges) and iterative with an explicit stack (Lomuto). */
#include "ssalab.h"

#define N 1000
#define CUTOFF 8
#define SWAP(x, y)     \
    do {               \
        int t_ = (x);  \
        (x) = (y);     \
        (y) = t_;      \
    } while (0)

static int a1[N], a2[N];

static unsigned int seed = 1u;

static int rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (int)((seed >> 16) & 0x7fffu) - 16384;
}

static void small_sort(int *a, int lo, int hi)
{
    int i, j;
    for (i = lo + 1; i <= hi; i++) {
        int v = a[i];
        for (j = i; j > lo && a[j - 1] > v; j--)
            a[j] = a[j - 1];
        a[j] = v;
    }
}

void quicksort(int *a, int lo, int hi)
{
    while (hi - lo > CUTOFF) {
        int mid = lo + (hi - lo) / 2;
        int pivot, i, j;
        if (a[mid] < a[lo])
            SWAP(a[mid], a[lo]);
        if (a[hi] < a[lo])
            SWAP(a[hi], a[lo]);
        if (a[hi] < a[mid])
            SWAP(a[hi], a[mid]);
        pivot = a[mid];
        i = lo - 1;
        j = hi + 1;
        for (;;) {
            do
                i++;
            while (a[i] < pivot);
            do
                j--;
            while (a[j] > pivot);
            if (i >= j)
                break;
            SWAP(a[i], a[j]);
        }
        /* [lo, j] and [j + 1, hi]; recurse on the smaller one. */
        if (j - lo < hi - j) {
            quicksort(a, lo, j);
            lo = j + 1;
        } else {
            quicksort(a, j + 1, hi);
            hi = j;
        }
    }
    small_sort(a, lo, hi);
}

void quicksort_iter(int *a, int n)
{
    int stack[64];
    int sp = 0;
    stack[sp++] = 0;
    stack[sp++] = n - 1;
    while (sp > 0) {
        int hi = stack[--sp];
        int lo = stack[--sp];
        int pivot, i, k;
        if (lo >= hi)
            continue;
        pivot = a[hi];
        i = lo;
        for (k = lo; k < hi; k++)
            if (a[k] < pivot) {
                SWAP(a[i], a[k]);
                i++;
            }
        SWAP(a[i], a[hi]);
        /* Push the larger part first so the smaller is processed next: depth <= log2(n). */
        if (i - lo > hi - i) {
            stack[sp++] = lo;
            stack[sp++] = i - 1;
            stack[sp++] = i + 1;
            stack[sp++] = hi;
        } else {
            stack[sp++] = i + 1;
            stack[sp++] = hi;
            stack[sp++] = lo;
            stack[sp++] = i - 1;
        }
    }
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

int main(void)
{
    int i, ok = 1, same = 1;
    unsigned int h = 0;
    for (i = 0; i < N; i++)
        a1[i] = a2[i] = rnd() % 3000; /* many duplicates */
    quicksort(a1, 0, N - 1);
    quicksort_iter(a2, N);
    for (i = 1; i < N; i++)
        if (a1[i - 1] > a1[i])
            ok = 0;
    for (i = 0; i < N; i++) {
        if (a1[i] != a2[i])
            same = 0;
        h = h * 31u + (unsigned int)a1[i];
    }
    put_line(ok);
    put_line(same);
    put_line((int)(h & 0x3fffffffu));
    put_line(a1[0]);
    put_line(a1[N - 1]);
    put_line(a1[123]);
    for (i = 0; i < N; i++)
        a1[i] = (i * 7919) % N; /* a permutation */
    quicksort(a1, 0, N - 1);
    ok = 1;
    for (i = 0; i < N; i++)
        if (a1[i] != i)
            ok = 0;
    put_line(ok);
    return 0;
}
