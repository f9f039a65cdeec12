/* Binary search over a sorted table of 512 ints: classic (returns index or -1), lower bound
   with a half-open interval, and a branch-light version that halves a length. */
#include "ssalab.h"

#define N 512
#define NQ 2000

static int table[N];

int bsearch_int(const int *a, int n, int key)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = lo + ((hi - lo) >> 1);
        if (a[mid] == key)
            return mid;
        if (a[mid] < key)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

int lower_bound(const int *a, int n, int key)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (a[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int lower_bound_len(const int *a, int n, int key)
{
    const int *base = a;
    while (n > 1) {
        int half = n / 2;
        base = base[half - 1] < key ? base + half : base;
        n -= half;
    }
    return (int)(base - a) + (n == 1 && *base < key);
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

int main(void)
{
    unsigned int seed = 8u, h = 0;
    int i, found = 0, agree = 1, v = -3000;
    for (i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        v += 1 + (int)((seed >> 16) % 23u);
        table[i] = v;
    }
    for (i = 0; i < NQ; i++) {
        int key, r, lb;
        seed = seed * 1103515245u + 12345u;
        key = (int)((seed >> 12) % 6500u) - 3200;
        r = bsearch_int(table, N, key);
        lb = lower_bound(table, N, key);
        if (r >= 0) {
            found++;
            if (table[r] != key || lb != r)
                agree = 0;
        } else if (lb < N && table[lb] == key) {
            agree = 0;
        }
        if (lower_bound_len(table, N, key) != lb)
            agree = 0;
        h = h * 7u + (unsigned int)lb;
    }
    put_line(found);
    put_line(agree);
    put_line((int)(h >> 3));
    put_line(bsearch_int(table, N, table[0]));
    put_line(bsearch_int(table, N, table[N - 1]));
    put_line(bsearch_int(table, N, table[N - 1] + 1));
    put_line(lower_bound(table, N, -100000));
    put_line(lower_bound(table, N, 100000));
    put_line(lower_bound_len(table, N, 100000));
    put_line(lower_bound_len(table, 0, 5));
    return 0;
}
