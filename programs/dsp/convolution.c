/* Convolution: full 1-D linear convolution of a 64-sample signal with a 16-tap kernel, and a
   3x3 2-D convolution (edge detector) over a 16x16 8-bit image with 2-D array parameters.
   Ranges: 1-D |x| <= 1023, |h| <= 255: |y| <= 16 * 1023 * 255 < 2^22.
   2-D: pixels 0..255, |k| <= 8: |sum| <= 9 * 8 * 255 < 2^15. */
#include "ssalab.h"

#define NX 64
#define NH 16
#define NY (NX + NH - 1)
#define W 16

static int sig[NX], ker[NH], res[NY];
static unsigned char image[W][W];
static int edges[W - 2][W - 2];

static const int sobel_x[3][3] = { { -1, 0, 1 }, { -2, 0, 2 }, { -1, 0, 1 } };
static const int laplace[3][3] = { { 0, 1, 0 }, { 1, -4, 1 }, { 0, 1, 0 } };

static unsigned int seed = 31337u;

static unsigned int rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) & 0x7fffu;
}

/* y[n] = sum_k x[k] * h[n - k], with explicit bounds on k. */
void conv1d(const int *x, int nx, const int *h, int nh, int *y)
{
    int n, k;
    for (n = 0; n < nx + nh - 1; n++) {
        int lo = n - nh + 1 > 0 ? n - nh + 1 : 0;
        int hi = n < nx - 1 ? n : nx - 1;
        int acc = 0;
        for (k = lo; k <= hi; k++)
            acc += x[k] * h[n - k];
        y[n] = acc;
    }
}

/* Scatter form: every input sample adds its scaled kernel into the output. */
void conv1d_scatter(const int *x, int nx, const int *h, int nh, int *y)
{
    int i, j;
    for (i = 0; i < nx + nh - 1; i++)
        y[i] = 0;
    for (i = 0; i < nx; i++) {
        int xi = x[i];
        int *py = y + i;
        const int *ph = h;
        for (j = 0; j < nh; j++)
            *py++ += xi * *ph++;
    }
}

void conv2d_3x3(unsigned char img[][W], const int k[3][3], int out[][W - 2])
{
    int r, c, i, j;
    for (r = 1; r < W - 1; r++)
        for (c = 1; c < W - 1; c++) {
            int acc = 0;
            for (i = -1; i <= 1; i++)
                for (j = -1; j <= 1; j++)
                    acc += k[i + 1][j + 1] * img[r + i][c + j];
            out[r - 1][c - 1] = acc;
        }
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

static int sum2d(int a[][W - 2])
{
    int r, c;
    unsigned int h = 0;
    for (r = 0; r < W - 2; r++)
        for (c = 0; c < W - 2; c++)
            h = h * 7u + (unsigned int)a[r][c];
    return (int)(h >> 2);
}

int main(void)
{
    static int res2[NY];
    int i, r, c, same = 1;
    for (i = 0; i < NX; i++)
        sig[i] = (int)(rnd() & 2047u) - 1023;
    for (i = 0; i < NH; i++)
        ker[i] = (int)(rnd() % 511u) - 255;
    conv1d(sig, NX, ker, NH, res);
    conv1d_scatter(sig, NX, ker, NH, res2);
    for (i = 0; i < NY; i++)
        if (res[i] != res2[i])
            same = 0;
    put_line(same);
    put_line(res[0]);
    put_line(res[NH]);
    put_line(res[NY - 1]);
    {
        unsigned int h = 0;
        for (i = 0; i < NY; i++)
            h = (h << 3) + (h >> 29) + (unsigned int)res[i];
        put_line((int)(h & 0xffffffu));
    }
    for (r = 0; r < W; r++)
        for (c = 0; c < W; c++)
            image[r][c] = (unsigned char)(r * 16 + ((c * c) & 15) + (rnd() & 3u));
    conv2d_3x3(image, sobel_x, edges);
    put_line(sum2d(edges));
    put_line(edges[3][4]);
    conv2d_3x3(image, laplace, edges);
    put_line(sum2d(edges));
    put_line(edges[13][0]);
    return 0;
}
