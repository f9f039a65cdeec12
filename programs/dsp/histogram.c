/* Histograms and order statistics: a 256-bin histogram of 8-bit data, a 16-bin histogram of
   16-bit samples, cumulative histogram and median from it, histogram equalisation of an image
   row, and median filters (3-tap with ?: and 5-tap with a sorting network via a swap macro). */
#include "ssalab.h"

#define NPIX 1024
#define NS 500
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define SORT2(a, b)              \
    do {                         \
        if ((a) > (b)) {         \
            short t_ = (a);      \
            (a) = (b);           \
            (b) = t_;            \
        }                        \
    } while (0)

static unsigned char img[NPIX], eq[NPIX];
static unsigned short hist[256];
static unsigned int cum[256];
static short samples[NS], med3[NS], med5[NS];

void histogram8(const unsigned char *p, int n, unsigned short *h)
{
    int i;
    for (i = 0; i < 256; i++)
        h[i] = 0;
    while (n-- > 0)
        h[*p++]++;
}

/* 16 bins over the signed 16-bit range: bin = (x + 32768) >> 12. */
void histogram16(const short *x, int n, int *bins)
{
    int i;
    for (i = 0; i < 16; i++)
        bins[i] = 0;
    for (i = 0; i < n; i++)
        bins[(x[i] + 32768) >> 12] += 1;
}

int median_from_hist(const unsigned short *h, unsigned int *c, int n)
{
    unsigned int run = 0;
    int i, med = -1;
    for (i = 0; i < 256; i++) {
        run += h[i];
        c[i] = run;
        if (med < 0 && 2u * run >= (unsigned int)n)
            med = i;
    }
    return med;
}

void equalise(const unsigned char *in, unsigned char *out, int n, const unsigned int *c)
{
    unsigned int cmin = 0;
    int i;
    for (i = 0; i < 256; i++)
        if (c[i] != 0) {
            cmin = c[i];
            break;
        }
    for (i = 0; i < n; i++) {
        unsigned int num = (c[in[i]] - cmin) * 255u;
        unsigned int den = (unsigned int)n - cmin;
        out[i] = (unsigned char)(den ? (num + den / 2) / den : 0u);
    }
}

void median3(const short *x, short *y, int n)
{
    int i;
    y[0] = x[0];
    y[n - 1] = x[n - 1];
    for (i = 1; i < n - 1; i++) {
        short a = x[i - 1], b = x[i], c = x[i + 1];
        y[i] = (short)MAX(MIN(a, b), MIN(MAX(a, b), c));
    }
}

void median5(const short *x, short *y, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        if (i < 2 || i >= n - 2) {
            y[i] = x[i];
            continue;
        }
        {
            short a = x[i - 2], b = x[i - 1], c = x[i], d = x[i + 1], e = x[i + 2];
            /* Partial sorting network: enough exchanges to put the median in c. */
            SORT2(a, b);
            SORT2(d, e);
            SORT2(a, d);
            SORT2(b, e);
            SORT2(b, c);
            SORT2(c, d);
            SORT2(b, c);
            y[i] = c;
        }
    }
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

/* Reference median of 5 by full insertion sort. */
static short median5_ref(const short *x)
{
    short v[5];
    int i, j;
    for (i = 0; i < 5; i++) {
        short t = x[i];
        for (j = i; j > 0 && v[j - 1] > t; j--)
            v[j] = v[j - 1];
        v[j] = t;
    }
    return v[2];
}

int main(void)
{
    static int bins[16];
    unsigned int seed = 123u, h = 0;
    int i, med, agree = 1;
    for (i = 0; i < NPIX; i++) {
        seed = seed * 1103515245u + 12345u;
        /* Skewed: mostly dark pixels. */
        img[i] = (unsigned char)(((seed >> 16) & 0xffu) * ((seed >> 24) & 0xffu) >> 8);
    }
    histogram8(img, NPIX, hist);
    put_line(hist[0]);
    put_line(hist[17]);
    med = median_from_hist(hist, cum, NPIX);
    put_line(med);
    put_line((int)cum[255]);
    equalise(img, eq, NPIX, cum);
    for (i = 0; i < NPIX; i++)
        h = h * 31u + eq[i];
    put_line((int)(h >> 1));
    histogram8(eq, NPIX, hist);
    put_line(median_from_hist(hist, cum, NPIX));
    for (i = 0; i < NS; i++) {
        seed = seed * 1103515245u + 12345u;
        samples[i] = (short)(seed >> 16);
        if ((i % 7) == 3)
            samples[i] = (short)(i & 1 ? 32767 : -32768); /* impulses */
    }
    histogram16(samples, NS, bins);
    for (i = 0; i < 16; i += 5)
        put_line(bins[i]);
    median3(samples, med3, NS);
    median5(samples, med5, NS);
    for (i = 2; i < NS - 2; i++)
        if (med5[i] != median5_ref(samples + i - 2))
            agree = 0;
    put_line(agree);
    h = 0;
    for (i = 0; i < NS; i++)
        h = h * 17u + (unsigned int)(unsigned short)med3[i] + (unsigned int)(unsigned short)med5[i];
    put_line((int)(h >> 1));
    put_line(med3[3]);
    put_line(med5[10]);
    return 0;
}
