/* Sorting kernels: selection sort, Shell sort (Ciura gaps from a const table), heap sort
   (sift-down, 0-based), merge sort (recursive top-down with a scratch buffer, and iterative
   bottom-up on shorts), and a stable merge sort of records by key, checked for stability. */
#include "ssalab.h"

#define MIN_INT(a, b) ((a) < (b) ? (a) : (b))

#define N 400
#define NR 120

struct rec {
    short key;
    short seq; /* original position, to check stability */
};

static int base[N], work[N], scratch[N];
static short sw[N], sscratch[N];
static struct rec recs[NR], rtmp[NR];

static const int gaps[] = { 701, 301, 132, 57, 23, 10, 4, 1 };

void selection_sort(int *a, int n)
{
    int i, j;
    for (i = 0; i < n - 1; i++) {
        int m = i;
        for (j = i + 1; j < n; j++)
            if (a[j] < a[m])
                m = j;
        if (m != i) {
            int t = a[i];
            a[i] = a[m];
            a[m] = t;
        }
    }
}

void shell_sort(int *a, int n)
{
    unsigned int g;
    for (g = 0; g < sizeof(gaps) / sizeof(gaps[0]); g++) {
        int gap = gaps[g], i;
        for (i = gap; i < n; i++) {
            int v = a[i], j = i;
            while (j >= gap && a[j - gap] > v) {
                a[j] = a[j - gap];
                j -= gap;
            }
            a[j] = v;
        }
    }
}

static void sift_down(int *a, int root, int n)
{
    int v = a[root];
    for (;;) {
        int child = 2 * root + 1;
        if (child >= n)
            break;
        if (child + 1 < n && a[child + 1] > a[child])
            child++;
        if (a[child] <= v)
            break;
        a[root] = a[child];
        root = child;
    }
    a[root] = v;
}

void heap_sort(int *a, int n)
{
    int i;
    for (i = n / 2 - 1; i >= 0; i--)
        sift_down(a, i, n);
    for (i = n - 1; i > 0; i--) {
        int t = a[0];
        a[0] = a[i];
        a[i] = t;
        sift_down(a, 0, i);
    }
}

static void merge(int *a, int lo, int mid, int hi, int *tmp)
{
    int i = lo, j = mid, k = lo;
    while (i < mid && j < hi)
        tmp[k++] = a[j] < a[i] ? a[j++] : a[i++];
    while (i < mid)
        tmp[k++] = a[i++];
    while (j < hi)
        tmp[k++] = a[j++];
    for (k = lo; k < hi; k++)
        a[k] = tmp[k];
}

/* Sorts a[lo, hi). */
void merge_sort(int *a, int lo, int hi, int *tmp)
{
    int mid;
    if (hi - lo < 2)
        return;
    mid = lo + (hi - lo) / 2;
    merge_sort(a, lo, mid, tmp);
    merge_sort(a, mid, hi, tmp);
    if (a[mid - 1] <= a[mid])
        return; /* already in order */
    merge(a, lo, mid, hi, tmp);
}

/* Bottom-up: runs of width 1, 2, 4, ... ping-ponging between the two buffers. */
void merge_sort_bu(short *a, short *tmp, int n)
{
    short *src = a, *dst = tmp;
    int width, i;
    for (width = 1; width < n; width *= 2) {
        short *t;
        for (i = 0; i < n; i += 2 * width) {
            int lo = i, mid = MIN_INT(i + width, n), hi = MIN_INT(i + 2 * width, n);
            int p = lo, q = mid, k = lo;
            while (k < hi)
                dst[k++] = (p < mid && (q >= hi || src[p] <= src[q])) ? src[p++] : src[q++];
        }
        t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        for (i = 0; i < n; i++)
            a[i] = src[i];
}

void merge_sort_records(struct rec *r, struct rec *tmp, int n)
{
    int mid, i, j, k;
    if (n < 2)
        return;
    mid = n / 2;
    merge_sort_records(r, tmp, mid);
    merge_sort_records(r + mid, tmp, n - mid);
    i = 0;
    j = mid;
    k = 0;
    while (i < mid && j < n) {
        if (r[j].key < r[i].key)
            tmp[k++] = r[j++];
        else
            tmp[k++] = r[i++]; /* ties take the left element: stable */
    }
    while (i < mid)
        tmp[k++] = r[i++];
    while (j < n)
        tmp[k++] = r[j++];
    for (k = 0; k < n; k++)
        r[k] = tmp[k];
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

static int check_and_hash(const int *a, int n)
{
    unsigned int h = 0;
    int i;
    for (i = 0; i < n; i++) {
        if (i > 0 && a[i - 1] > a[i])
            return -1;
        h = h * 31u + (unsigned int)a[i];
    }
    return (int)(h >> 1);
}

static void reload(void)
{
    int i;
    for (i = 0; i < N; i++)
        work[i] = base[i];
}

int main(void)
{
    unsigned int seed = 6502u;
    int i, ref, ok = 1;
    for (i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        base[i] = (int)((seed >> 10) % 200001u) - 100000;
        sw[i] = (short)(seed >> 16);
    }
    reload();
    selection_sort(work, N);
    ref = check_and_hash(work, N);
    put_line(ref);
    put_line(work[0]);
    put_line(work[N - 1]);
    reload();
    shell_sort(work, N);
    put_line(check_and_hash(work, N) == ref);
    reload();
    heap_sort(work, N);
    put_line(check_and_hash(work, N) == ref);
    reload();
    merge_sort(work, 0, N, scratch);
    put_line(check_and_hash(work, N) == ref);
    merge_sort(work, 0, N, scratch); /* sorted input: early exits */
    put_line(check_and_hash(work, N) == ref);
    merge_sort_bu(sw, sscratch, N);
    for (i = 1; i < N; i++)
        if (sw[i - 1] > sw[i])
            ok = 0;
    put_line(ok);
    put_line(sw[N / 3]);
    for (i = 0; i < NR; i++) {
        seed = seed * 1103515245u + 12345u;
        recs[i].key = (short)((seed >> 16) % 10u); /* many ties */
        recs[i].seq = (short)i;
    }
    merge_sort_records(recs, rtmp, NR);
    ok = 1;
    for (i = 1; i < NR; i++)
        if (recs[i - 1].key > recs[i].key ||
            (recs[i - 1].key == recs[i].key && recs[i - 1].seq > recs[i].seq))
            ok = 0;
    put_line(ok);
    put_line(recs[NR / 2].seq);
    return 0;
}
