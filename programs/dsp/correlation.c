/* Autocorrelation (with a Hamming-like integer window and scaling), cross-correlation, and a
   lag search for the best-matching delay between two signals.
   Ranges: samples within +-2^11, window within 2^8 (>> 8): 240 products of at most 2^22 stay
   below 2^30. */
#include "ssalab.h"

#define N 240
#define MAXLAG 12

static short sig[N], other[N], windowed[N];
static int acf[MAXLAG + 1], xcf[2 * MAXLAG + 1];

void apply_window(const short *x, short *y, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        /* Triangular window in Q8: 0 at the ends, 256 in the middle. */
        int wgt = i < n / 2 ? (i * 512) / n : ((n - 1 - i) * 512) / n;
        y[i] = (short)((x[i] * wgt) >> 8);
    }
}

void autocorr(const short *x, int n, int *r, int maxlag)
{
    int lag, i;
    for (lag = 0; lag <= maxlag; lag++) {
        int s = 0;
        const short *p = x, *q = x + lag;
        for (i = lag; i < n; i++)
            s += *p++ * *q++;
        r[lag] = s;
    }
}

/* Normalises r so that r[0] fits in 15 bits, as speech codecs do before Levinson. */
int autocorr_norm(int *r, int maxlag)
{
    int shift = 0, k;
    while (r[0] >= 32768) {
        for (k = 0; k <= maxlag; k++)
            r[k] >>= 1;
        shift++;
    }
    return shift;
}

void crosscorr(const short *x, const short *y, int n, int *c, int maxlag)
{
    int lag, i;
    for (lag = -maxlag; lag <= maxlag; lag++) {
        int s = 0;
        for (i = 0; i < n; i++) {
            int j = i + lag;
            if (j >= 0 && j < n)
                s += x[i] * y[j];
        }
        c[lag + maxlag] = s;
    }
}

int best_lag(const int *c, int maxlag)
{
    int best = -maxlag, k;
    for (k = -maxlag + 1; k <= maxlag; k++)
        if (c[k + maxlag] > c[best + maxlag])
            best = k;
    return best;
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

int main(void)
{
    unsigned int seed = 55u;
    int i, shift;
    for (i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        /* Periodic component (period 16) plus noise. */
        sig[i] = (short)(((i & 15) < 8 ? 1000 : -1000) + (int)((seed >> 16) & 0x3ffu) - 512);
    }
    /* other = sig delayed by 5 samples. */
    for (i = 0; i < N; i++)
        other[i] = i >= 5 ? sig[i - 5] : 0;
    apply_window(sig, windowed, N);
    autocorr(windowed, N, acf, MAXLAG);
    for (i = 0; i <= MAXLAG; i += 4)
        put_line(acf[i]);
    shift = autocorr_norm(acf, MAXLAG);
    put_line(shift);
    put_line(acf[0]);
    put_line(acf[8]);
    crosscorr(sig, other, N, xcf, MAXLAG);
    put_line(best_lag(xcf, MAXLAG));
    put_line(xcf[MAXLAG]);
    autocorr(sig, N, acf, MAXLAG);
    put_line(acf[0] - xcf[MAXLAG + 5] > 0);
    return 0;
}
