/* FIR filter in Q15 fixed point: a 16-tap symmetric low-pass over 256 samples, written three
   ways (indexed, pointer walking, multiply-accumulate intrinsic).
   Overflow argument: sum |coef| = 27440 < 32768 and |x| <= 32767, so
   |acc| <= 27440 * 32767 + 2^14 < 2^31. */
#include "ssalab.h"

#define NTAPS 16
#define NSAMP 256
#define Q15_ROUND (1 << 14)

static const short coef[NTAPS] = {
    -120, -300, -200, 500, 1500, 2800, 3900, 4400,
    4400, 3900, 2800, 1500, 500, -200, -300, -120
};

static short input[NSAMP + NTAPS - 1];
static short out_a[NSAMP], out_b[NSAMP], out_c[NSAMP];

static unsigned int seed = 2024u;

static int rnd15(void)
{
    seed = seed * 1103515245u + 12345u;
    return (int)((seed >> 16) & 0x7fffu) - 16384;
}

static short sat16(int v)
{
    return (short)(v > 32767 ? 32767 : v < -32768 ? -32768 : v);
}

/* Indexed form: y[n] = sum_k h[k] * x[n + k]. */
void fir_q15(const short x[], const short h[], short y[], int n, int ntaps)
{
    int i, k;
    for (i = 0; i < n; i++) {
        int acc = Q15_ROUND;
        for (k = 0; k < ntaps; k++)
            acc += x[i + k] * h[k];
        y[i] = sat16(acc >> 15);
    }
}

/* Pointer-walking form, as hand-written DSP code does it. */
void fir_q15_ptr(const short *x, const short *h, short *y, int n, int ntaps)
{
    while (n-- > 0) {
        const short *px = x++;
        const short *ph = h;
        int acc = Q15_ROUND;
        int k = ntaps;
        do {
            acc += *px++ * *ph++;
        } while (--k);
        *y++ = sat16(acc >> 15);
    }
}

/* Multiply-accumulate intrinsic form. */
void fir_q15_mac(const short *x, const short *h, short *y, int n, int ntaps)
{
    int i, k;
    for (i = 0; i < n; i++) {
        int acc = Q15_ROUND;
        for (k = 0; k < ntaps; k++)
            acc = __st_mac(acc, x[i + k], h[k]);
        y[i] = sat16(acc >> 15);
    }
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

static int checksum(const short *y, int n)
{
    unsigned int h = 0;
    int i;
    for (i = 0; i < n; i++)
        h = h * 31u + (unsigned int)(unsigned short)y[i];
    return (int)(h & 0x7fffffffu);
}

int main(void)
{
    int i, same = 1;
    for (i = 0; i < NSAMP + NTAPS - 1; i++)
        input[i] = (short)(rnd15() * 2);
    /* A full-scale step in the middle exercises saturation-free large sums. */
    for (i = 100; i < 120; i++)
        input[i] = 32767;
    fir_q15(input, coef, out_a, NSAMP, NTAPS);
    fir_q15_ptr(input, coef, out_b, NSAMP, NTAPS);
    fir_q15_mac(input, coef, out_c, NSAMP, NTAPS);
    for (i = 0; i < NSAMP; i++)
        if (out_a[i] != out_b[i] || out_a[i] != out_c[i])
            same = 0;
    put_line(checksum(out_a, NSAMP));
    put_line(same);
    put_line(out_a[0]);
    put_line(out_a[110]);
    put_line(out_a[NSAMP - 1]);
    return 0;
}
