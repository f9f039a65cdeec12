/* Matrix multiply: 12x12 int matrices with 2-D array parameters, a Q15 16-bit variant written
   with pointer walking, and an in-place transpose.  Ranges: int entries in [-100, 100], so a
   sum of 12 products is at most 12 * 10^4 in magnitude; Q15 entries in [-2^13, 2^13], so
   |acc| <= 12 * 2^26 + 2^14 < 2^30. */
#include "ssalab.h"

#define N 12

static int a[N][N], b[N][N], c[N][N], d[N][N];
static short qa[N * N], qb[N * N], qc[N * N];

static unsigned int seed = 99u;

static int rnd(int lo, int hi)
{
    seed = seed * 1103515245u + 12345u;
    return lo + (int)(((seed >> 16) & 0x7fffu) % (unsigned int)(hi - lo + 1));
}

void matmul(int x[][N], int y[][N], int z[][N], int n)
{
    int i, j, k;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            int s = 0;
            for (k = 0; k < n; k++)
                s += x[i][k] * y[k][j];
            z[i][j] = s;
        }
}

/* i-k-j loop order: row of z accumulated from scaled rows of y. */
void matmul_ikj(int x[][N], int y[][N], int z[][N], int n)
{
    int i, j, k;
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++)
            z[i][j] = 0;
        for (k = 0; k < n; k++) {
            int xik = x[i][k];
            for (j = 0; j < n; j++)
                z[i][j] += xik * y[k][j];
        }
    }
}

void matmul_q15(const short *x, const short *y, short *z, int n)
{
    int i, j, k;
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            const short *px = x + i * n;
            const short *py = y + j;
            int acc = 1 << 14;
            for (k = 0; k < n; k++) {
                acc += *px++ * *py;
                py += n;
            }
            *z++ = (short)(acc >> 15);
        }
    }
}

void transpose(int m[][N], int n)
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++) {
            int t = m[i][j];
            m[i][j] = m[j][i];
            m[j][i] = t;
        }
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

static int trace_hash(int m[][N])
{
    unsigned int h = 0;
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            h = h * 131u + (unsigned int)m[i][j];
    return (int)(h % 1000000007u);
}

int main(void)
{
    int i, j, same = 1;
    unsigned int h = 0;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            a[i][j] = rnd(-100, 100);
            b[i][j] = rnd(-100, 100);
        }
    for (i = 0; i < N * N; i++) {
        qa[i] = (short)rnd(-8192, 8192);
        qb[i] = (short)rnd(-8192, 8192);
    }
    matmul(a, b, c, N);
    matmul_ikj(a, b, d, N);
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            if (c[i][j] != d[i][j])
                same = 0;
    put_line(same);
    put_line(trace_hash(c));
    put_line(c[0][0]);
    put_line(c[N - 1][3]);
    /* (A B)^T = B^T A^T */
    transpose(a, N);
    transpose(b, N);
    matmul(b, a, d, N);
    transpose(d, N);
    same = 1;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            if (c[i][j] != d[i][j])
                same = 0;
    put_line(same);
    put_line(a[2][7]);
    matmul_q15(qa, qb, qc, N);
    for (i = 0; i < N * N; i++)
        h = h * 17u + (unsigned int)(unsigned short)qc[i];
    put_line((int)(h >> 4));
    put_line(qc[5]);
    return 0;
}
