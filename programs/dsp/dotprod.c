/* Dot products of 16-bit vectors, five ways: indexed, pointer walking, unrolled by 4, with the
   multiply-accumulate intrinsic, and on packed pairs (two shorts per int) with the low/high
   MAC intrinsics.  Overflow argument: x, y in [-2047, 2048], so each product is <= 2^22 and the sum
   of 256 products is <= 2^30. */
#include "ssalab.h"

#define N 256

static short xs[N], ys[N];
static int xp[N / 2], yp[N / 2];

static unsigned int seed = 5u;

static int rnd12(void)
{
    seed = seed * 1103515245u + 12345u;
    return (int)((seed >> 16) & 0xfffu) - 2048 + 1;
}

int dot_index(const short *a, const short *b, int n)
{
    int s = 0, i;
    for (i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

int dot_ptr(const short *a, const short *b, int n)
{
    int s = 0;
    const short *end = a + n;
    while (a < end)
        s += *a++ * *b++;
    return s;
}

int dot_unroll4(const short *a, const short *b, int n)
{
    int s0 = 0, s1 = 0, s2 = 0, s3 = 0, i;
    for (i = 0; i + 3 < n; i += 4) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    for (; i < n; i++)
        s0 += a[i] * b[i];
    return (s0 + s1) + (s2 + s3);
}

int dot_mac(const short *a, const short *b, int n)
{
    int s = 0;
    do {
        s = __st_mac(s, *a++, *b++);
    } while (--n > 0);
    return s;
}

/* Two lanes per word: lane 0 in the low half, lane 1 in the high half. */
int dot_packed(const int *a, const int *b, int npairs)
{
    int s = 0, i;
    for (i = 0; i < npairs; i++) {
        s = __st_mac(s, a[i], b[i]);
        s = __st_machh(s, a[i], b[i]);
    }
    return s;
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

int main(void)
{
    int i, r;
    for (i = 0; i < N; i++) {
        xs[i] = (short)rnd12();
        ys[i] = (short)rnd12();
    }
    for (i = 0; i < N / 2; i++) {
        xp[i] = __st_pack(xs[2 * i + 1], xs[2 * i]);
        yp[i] = __st_pack(ys[2 * i + 1], ys[2 * i]);
    }
    r = dot_index(xs, ys, N);
    put_line(r);
    put_line(dot_ptr(xs, ys, N) == r);
    put_line(dot_unroll4(xs, ys, N) == r);
    put_line(dot_unroll4(xs, ys, N - 3));
    put_line(dot_mac(xs, ys, N) == r);
    put_line(dot_packed(xp, yp, N / 2) == r);
    put_line(dot_index(xs, xs, N));
    put_line(dot_ptr(xs + 7, ys + 100, 33));
    return 0;
}
