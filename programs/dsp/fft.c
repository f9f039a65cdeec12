/* Fixed-point radix-2 decimation-in-time FFT (128 points, Q15 twiddles from a quarter-wave sine
   table, bit-reversal permutation, scaling by 1/2 per stage), a power spectrum and a peak-bin
   search.  Range: inputs within +-2^14; a scaled butterfly never increases the largest
   magnitude by more than its rounding, so every product stays below 2^30. */
#include "ssalab.h"

#define NFFT 128
#define LOG2N 7
#define QUARTER (NFFT / 4)

/* round(32767 * sin(2 pi k / 128)), k = 0..32 */
static const short sin_q15[QUARTER + 1] = {
    0, 1608, 3212, 4808, 6393, 7962, 9512, 11039, 12539, 14010, 15446,
    16846, 18204, 19519, 20787, 22005, 23170, 24279, 25329, 26319, 27245, 28105,
    28898, 29621, 30273, 30852, 31356, 31785, 32137, 32412, 32609, 32728, 32767
};

static short re[NFFT], im[NFFT];
static int power[NFFT / 2];

/* cos and sin of 2 pi k / NFFT for 0 <= k < NFFT / 2. */
static int cos_tw(int k)
{
    return k <= QUARTER ? sin_q15[QUARTER - k] : -sin_q15[k - QUARTER];
}

static int sin_tw(int k)
{
    return k <= QUARTER ? sin_q15[k] : sin_q15[NFFT / 2 - k];
}

void bit_reverse_permute(short *xr, short *xi, int n)
{
    int i, j = 0;
    for (i = 0; i < n - 1; i++) {
        int k;
        if (i < j) {
            short t = xr[i];
            xr[i] = xr[j];
            xr[j] = t;
            t = xi[i];
            xi[i] = xi[j];
            xi[j] = t;
        }
        k = n >> 1;
        while (k <= j) {
            j -= k;
            k >>= 1;
        }
        j += k;
    }
}

void fft_q15(short *xr, short *xi, int n, int log2n)
{
    int stage, j, i;
    bit_reverse_permute(xr, xi, n);
    for (stage = 1; stage <= log2n; stage++) {
        int half = 1 << (stage - 1);
        int step = n >> stage;
        for (j = 0; j < half; j++) {
            int wr = cos_tw(j * step);
            int wi = -sin_tw(j * step);
            for (i = j; i < n; i += 2 * half) {
                int k = i + half;
                int tr = (wr * xr[k] - wi * xi[k] + (1 << 14)) >> 15;
                int ti = (wr * xi[k] + wi * xr[k] + (1 << 14)) >> 15;
                int ar = xr[i], ai = xi[i];
                xr[k] = (short)((ar - tr) >> 1);
                xi[k] = (short)((ai - ti) >> 1);
                xr[i] = (short)((ar + tr) >> 1);
                xi[i] = (short)((ai + ti) >> 1);
            }
        }
    }
}

void power_spectrum(const short *xr, const short *xi, int *p, int nbins)
{
    int k;
    for (k = 0; k < nbins; k++)
        p[k] = xr[k] * xr[k] + xi[k] * xi[k];
}

int peak_bin(const int *p, int nbins)
{
    int k, best = 1;
    for (k = 2; k < nbins; k++) /* skip DC */
        if (p[k] > p[best])
            best = k;
    return best;
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

/* cos(2 pi m / NFFT) for any m >= 0. */
static int cos_full(int m)
{
    m &= NFFT - 1;
    return m < NFFT / 2 ? cos_tw(m) : -cos_tw(m - NFFT / 2);
}

static void tone(int bin, int amp, int noise_amp)
{
    unsigned int seed = 5u;
    int i;
    for (i = 0; i < NFFT; i++) {
        int v = (amp * cos_full(i * bin)) >> 15;
        seed = seed * 1103515245u + 12345u;
        if (noise_amp)
            v += (int)((seed >> 16) % (unsigned int)(2 * noise_amp)) - noise_amp;
        re[i] = (short)v;
        im[i] = 0;
    }
}

int main(void)
{
    unsigned int h = 0;
    int i;
    /* Impulse: flat spectrum of value 16384 / 128 = 128. */
    for (i = 0; i < NFFT; i++)
        re[i] = im[i] = 0;
    re[0] = 16384;
    fft_q15(re, im, NFFT, LOG2N);
    {
        int flat = 1;
        for (i = 0; i < NFFT; i++)
            if (re[i] != 128 || im[i] != 0)
                flat = 0;
        put_line(flat);
    }
    /* A cosine at bin 9 plus noise: the peak must be at bin 9. */
    tone(9, 12000, 800);
    put_line(re[1]);
    fft_q15(re, im, NFFT, LOG2N);
    power_spectrum(re, im, power, NFFT / 2);
    put_line(peak_bin(power, NFFT / 2));
    put_line(re[9]);
    put_line(im[9]);
    put_line(re[NFFT - 9]);
    for (i = 0; i < NFFT; i++)
        h = h * 31u + (unsigned int)(unsigned short)re[i] * 7u + (unsigned int)(unsigned short)im[i];
    put_line((int)(h >> 1));
    tone(21, 14000, 0);
    fft_q15(re, im, NFFT, LOG2N);
    power_spectrum(re, im, power, NFFT / 2);
    put_line(peak_bin(power, NFFT / 2));
    put_line(power[21]);
    return 0;
}
