/* LMS adaptive filter (Q15): identifies an unknown 8-tap FIR from its input and output, and a
   sign-error LMS variant.  Every coefficient update and every product is saturated or kept in
   range: inputs |x| <= 2^12, weights clamped to +-2^15, so |filter sum| <= 8 * 2^27 = 2^30. */
#include "ssalab.h"

#define NT 8
#define NS 600
#define MU_SHIFT 6

static const short unknown[NT] = { 3000, -6000, 12000, 9000, -2000, 1000, 500, -250 };

static short xin[NS + NT];
static short w[NT], w2[NT];

static int sat_w(int v)
{
    return v > 32767 ? 32767 : v < -32768 ? -32768 : v;
}

int fir8(const short *coef, const short *x)
{
    int acc = 0, k;
    for (k = 0; k < NT; k++)
        acc += coef[k] * x[-k];
    return acc >> 15;
}

/* Returns the sum of |error| over the last 100 samples. */
int lms(short *wt, const short *x, int n)
{
    int i, k, tail = 0;
    for (i = 0; i < n; i++) {
        const short *px = x + NT - 1 + i;
        int d = fir8(unknown, px);
        int yv = fir8(wt, px);
        int e = d - yv; /* |d| <= 4220, |yv| <= 2^15: |e| < 2^16 */
        int mu_e = e >> MU_SHIFT;
        for (k = 0; k < NT; k++)
            wt[k] = (short)sat_w(wt[k] + ((mu_e * px[-k]) >> 9));
        if (i >= n - 100)
            tail += e < 0 ? -e : e;
    }
    return tail;
}

int sign_lms(short *wt, const short *x, int n)
{
    int i, k, tail = 0;
    for (i = 0; i < n; i++) {
        const short *px = x + NT - 1 + i;
        int e = fir8(unknown, px) - fir8(wt, px);
        for (k = 0; k < NT; k++) {
            int step = px[-k] >> 7;
            int upd = e > 0 ? step : e < 0 ? -step : 0;
            wt[k] = (short)sat_w(wt[k] + upd);
        }
        if (i >= n - 100)
            tail += e < 0 ? -e : e;
    }
    return tail;
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

int main(void)
{
    unsigned int seed = 2718u;
    int i, e1, e2, dist = 0;
    for (i = 0; i < NS + NT; i++) {
        seed = seed * 1103515245u + 12345u;
        xin[i] = (short)((int)((seed >> 16) & 0x1fffu) - 4096);
    }
    e1 = lms(w, xin, NS);
    e2 = sign_lms(w2, xin, NS);
    for (i = 0; i < NT; i++) {
        int d = w[i] - unknown[i];
        dist += d < 0 ? -d : d;
        put_line(w[i]);
    }
    put_line(dist);
    put_line(e1);
    put_line(e2);
    put_line(w2[2]);
    return 0;
}
