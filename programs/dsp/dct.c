/* Integer 8x8 DCT-II and its inverse by separable matrix products with a Q12 cosine table,
   quantisation with a JPEG-like step table, a zig-zag scan, and 8x8 transposes (in place and
   out of place).  Ranges: pixels - 128 within +-128, |C| <= 2009: a row pass sums 8 products
   below 2^19 and yields at most 363 after >> 12; the column pass then stays below 2^22. */
#include "ssalab.h"

#define B 8
#define CBITS 12
#define ROUND(x) (((x) + (1 << (CBITS - 1))) >> CBITS)

/* round(4096 * c(u) * cos((2x + 1) u pi / 16)), c(0) = sqrt(1/8), c(u) = 1/2 */
static const short dct_c[B][B] = {
    { 1448, 1448, 1448, 1448, 1448, 1448, 1448, 1448 },
    { 2009, 1703, 1138, 400, -400, -1138, -1703, -2009 },
    { 1892, 784, -784, -1892, -1892, -784, 784, 1892 },
    { 1703, -400, -2009, -1138, 1138, 2009, 400, -1703 },
    { 1448, -1448, -1448, 1448, 1448, -1448, -1448, 1448 },
    { 1138, -2009, 400, 1703, -1703, -400, 2009, -1138 },
    { 784, -1892, 1892, -784, -784, 1892, -1892, 784 },
    { 400, -1138, 1703, -2009, 2009, -1703, 1138, -400 },
};

static const unsigned char qstep[B][B] = {
    { 16, 11, 10, 16, 24, 40, 51, 61 },
    { 12, 12, 14, 19, 26, 58, 60, 55 },
    { 14, 13, 16, 24, 40, 57, 69, 56 },
    { 14, 17, 22, 29, 51, 87, 80, 62 },
    { 18, 22, 37, 56, 68, 109, 103, 77 },
    { 24, 35, 55, 64, 81, 104, 113, 92 },
    { 49, 64, 78, 87, 103, 121, 120, 101 },
    { 72, 92, 95, 98, 112, 100, 103, 99 },
};

static unsigned char pixels[B][B];
static int coef[B][B], back[B][B], quant[B][B];

/* out = C * in * C^T */
void dct8x8(int in[B][B], int out[B][B])
{
    int tmp[B][B];
    int u, v, x, y;
    for (u = 0; u < B; u++) /* tmp = C * in */
        for (y = 0; y < B; y++) {
            int s = 0;
            for (x = 0; x < B; x++)
                s += dct_c[u][x] * in[x][y];
            tmp[u][y] = ROUND(s);
        }
    for (u = 0; u < B; u++) /* out = tmp * C^T */
        for (v = 0; v < B; v++) {
            int s = 0;
            for (y = 0; y < B; y++)
                s += tmp[u][y] * dct_c[v][y];
            out[u][v] = ROUND(s);
        }
}

/* out = C^T * in * C */
void idct8x8(int in[B][B], int out[B][B])
{
    int tmp[B][B];
    int u, v, x, y;
    for (x = 0; x < B; x++) /* tmp = C^T * in */
        for (v = 0; v < B; v++) {
            int s = 0;
            for (u = 0; u < B; u++)
                s += dct_c[u][x] * in[u][v];
            tmp[x][v] = ROUND(s);
        }
    for (x = 0; x < B; x++)
        for (y = 0; y < B; y++) {
            int s = 0;
            const int *t = tmp[x];
            for (v = 0; v < B; v++)
                s += *t++ * dct_c[v][y];
            out[x][y] = ROUND(s);
        }
}

/* Division rounding to nearest, half away from zero, for a positive step. */
int quantise(int in[B][B], int out[B][B])
{
    int u, v, nonzero = 0;
    for (u = 0; u < B; u++)
        for (v = 0; v < B; v++) {
            int q = qstep[u][v];
            int c = in[u][v];
            out[u][v] = c >= 0 ? (c + q / 2) / q : -((-c + q / 2) / q);
            nonzero += out[u][v] != 0;
        }
    return nonzero;
}

void transpose8(int m[B][B])
{
    int i, j;
    for (i = 0; i < B; i++)
        for (j = 0; j < i; j++) {
            int t = m[i][j];
            m[i][j] = m[j][i];
            m[j][i] = t;
        }
}

void transpose8_copy(int src[B][B], int dst[B][B])
{
    int *d = &dst[0][0];
    int i, j;
    for (j = 0; j < B; j++)
        for (i = 0; i < B; i++)
            *d++ = src[i][j];
}

/* Zig-zag scan of an 8x8 block along anti-diagonals d = row + col, alternating direction:
   odd diagonals run with the row increasing, even ones with the row decreasing.  Returns the
   scan position of the last non-zero coefficient (-1 if none). */
int zigzag(int m[B][B], int *out)
{
    int d, n = 0, last_nz = -1;
    for (d = 0; d < 2 * B - 1; d++) {
        int lo = d < B ? 0 : d - B + 1;
        int hi = d < B ? d : B - 1;
        int k;
        for (k = lo; k <= hi; k++) {
            int r = (d & 1) ? k : d - k;
            out[n] = m[r][d - r];
            if (out[n])
                last_nz = n;
            n++;
        }
    }
    return last_nz;
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

int main(void)
{
    static int centred[B][B], t1[B][B], zz[B * B];
    unsigned int seed = 64u, h = 0;
    int x, y, maxerr = 0, same = 1;
    for (x = 0; x < B; x++)
        for (y = 0; y < B; y++) {
            seed = seed * 1103515245u + 12345u;
            pixels[x][y] = (unsigned char)(100 + 12 * x - 5 * y + (int)((seed >> 16) % 21u));
            centred[x][y] = pixels[x][y] - 128;
        }
    dct8x8(centred, coef);
    put_line(coef[0][0]);
    put_line(coef[1][0]);
    put_line(coef[0][1]);
    put_line(coef[7][7]);
    idct8x8(coef, back);
    for (x = 0; x < B; x++)
        for (y = 0; y < B; y++) {
            int e = back[x][y] - centred[x][y];
            if (e < 0)
                e = -e;
            if (e > maxerr)
                maxerr = e;
        }
    put_line(maxerr);
    put_line(quantise(coef, quant));
    put_line(quant[0][0]);
    put_line(quant[1][0]);
    put_line(zigzag(quant, zz));
    for (x = 0; x < B * B; x++)
        h = h * 7u + (unsigned int)zz[x];
    put_line((int)h);
    transpose8_copy(coef, t1);
    transpose8(coef);
    for (x = 0; x < B; x++)
        for (y = 0; y < B; y++)
            if (t1[x][y] != coef[x][y])
                same = 0;
    put_line(same);
    put_line(coef[0][1]);
    return 0;
}
