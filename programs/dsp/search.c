/* Searches: maximum and minimum with their index (several styles: index, pointer, absolute
   maximum on shorts, both at once), linear search (plain and with a sentinel), and
   interpolation search on a nearly uniform sorted table. */
#include "ssalab.h"

#define N 400

static int v[N + 1]; /* one spare slot for the sentinel */
static short sv[N];
static int sorted[N];

int max_index(const int *a, int n, int *value)
{
    int best = 0, i;
    for (i = 1; i < n; i++)
        if (a[i] > a[best])
            best = i;
    *value = a[best];
    return best;
}

/* Index of the first minimum, pointer style. */
int min_index(const int *a, int n)
{
    const int *p = a, *best = a, *end = a + n;
    while (++p < end)
        if (*p < *best)
            best = p;
    return (int)(best - a);
}

/* Largest |x| among shorts: |-32768| = 32768 fits in int. */
int absmax_index(const short *a, int n, int *value)
{
    int i, idx = -1, m = -1;
    for (i = 0; i < n; i++) {
        int x = a[i] < 0 ? -a[i] : a[i];
        if (x > m) {
            m = x;
            idx = i;
        }
    }
    *value = m;
    return idx;
}

/* Minimum and maximum together, two elements per step (3n/2 comparisons). */
void minmax_pairs(const int *a, int n, int *mn, int *mx)
{
    int lo, hi, i;
    if (n & 1) {
        lo = hi = a[0];
        i = 1;
    } else {
        lo = a[0] < a[1] ? a[0] : a[1];
        hi = a[0] < a[1] ? a[1] : a[0];
        i = 2;
    }
    for (; i + 1 < n; i += 2) {
        int x = a[i], y = a[i + 1];
        if (x > y) {
            int t = x;
            x = y;
            y = t;
        }
        if (x < lo)
            lo = x;
        if (y > hi)
            hi = y;
    }
    *mn = lo;
    *mx = hi;
}

int linear_search(const int *a, int n, int key)
{
    int i;
    for (i = 0; i < n; i++)
        if (a[i] == key)
            return i;
    return -1;
}

/* Needs a writable slot a[n]. */
int sentinel_search(int *a, int n, int key)
{
    int i = 0;
    a[n] = key;
    while (a[i] != key)
        i++;
    return i < n ? i : -1;
}

int interpolation_search(const int *a, int n, int key)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi && key >= a[lo] && key <= a[hi]) {
        int pos;
        if (a[hi] == a[lo])
            return a[lo] == key ? lo : -1;
        /* (key - a[lo]) * (hi - lo) <= 2^20 * 2^9 for this table: no overflow. */
        pos = lo + (key - a[lo]) * (hi - lo) / (a[hi] - a[lo]);
        if (a[pos] == key)
            return pos;
        if (a[pos] < key)
            lo = pos + 1;
        else
            hi = pos - 1;
    }
    return -1;
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

int main(void)
{
    unsigned int seed = 90210u, h = 0;
    int i, val, mn, mx, hits = 0, agree = 1, q;
    for (i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        v[i] = (int)((seed >> 8) % 100000u) - 50000;
        sv[i] = (short)(seed >> 13);
        sorted[i] = i * 2500 + (int)((seed >> 20) % 2000u); /* strictly increasing */
    }
    sv[77] = -32768;
    put_line(max_index(v, N, &val));
    put_line(val);
    put_line(min_index(v, N));
    put_line(v[min_index(v, N)]);
    put_line(absmax_index(sv, N, &val));
    put_line(val);
    minmax_pairs(v, N, &mn, &mx);
    put_line(mn);
    put_line(mx);
    minmax_pairs(v, N - 1, &mn, &mx);
    put_line(mn + mx);
    put_line(linear_search(v, N, v[123]));
    put_line(linear_search(v, N, 1000000));
    put_line(sentinel_search(v, N, v[399]));
    put_line(sentinel_search(v, N, -1000000));
    for (q = 0; q < 300; q++) {
        int key, r;
        seed = seed * 1103515245u + 12345u;
        key = (q & 1) ? sorted[(seed >> 16) % N] : (int)((seed >> 12) % 1000000u);
        r = interpolation_search(sorted, N, key);
        if (r >= 0) {
            hits++;
            if (sorted[r] != key)
                agree = 0;
        } else if (linear_search(sorted, N, key) >= 0) {
            agree = 0;
        }
        h = h * 3u + (unsigned int)(r + 1);
    }
    put_line(hits);
    put_line(agree);
    put_line((int)(h >> 2));
    return 0;
}
