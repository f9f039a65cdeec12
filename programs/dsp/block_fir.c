/* Block FIR with a delay line: the filter state (the last NTAPS-1 inputs) persists between
   blocks in a circular buffer, so filtering a signal block by block must equal filtering it in
   one go.  Also a 2:1 decimating FIR.  Q15 data and coefficients.
   Overflow argument: sum |h| = 21320 < 2^15 (printed first) and |x| < 2^15, so
   |acc| < 2^30 + 2^14. */
#include "ssalab.h"

#define NTAPS 24
#define BLOCK 40
#define NBLOCKS 8
#define TOTAL (BLOCK * NBLOCKS)
#define MASK 31 /* circular buffer of 32 >= NTAPS entries */

static short h[NTAPS];
static short x[TOTAL], y_block[TOTAL], y_direct[TOTAL], y_dec[TOTAL / 2];

struct fir_state {
    short delay[MASK + 1];
    int pos; /* index of the newest sample */
};

static struct fir_state st;

void fir_init(struct fir_state *s)
{
    int i;
    for (i = 0; i <= MASK; i++)
        s->delay[i] = 0;
    s->pos = 0;
}

/* Filters one block; the delay line is addressed modulo 32 with a mask. */
void fir_block(struct fir_state *s, const short *coef, const short *in, short *out, int n)
{
    int i, k;
    for (i = 0; i < n; i++) {
        int acc = 1 << 14;
        int p;
        s->pos = (s->pos + 1) & MASK;
        s->delay[s->pos] = in[i];
        p = s->pos;
        for (k = 0; k < NTAPS; k++) {
            acc += coef[k] * s->delay[p];
            p = (p - 1) & MASK;
        }
        out[i] = (short)(acc >> 15);
    }
}

/* Reference: direct convolution with zero history. */
void fir_direct(const short *coef, const short *in, short *out, int n)
{
    int i, k;
    for (i = 0; i < n; i++) {
        int acc = 1 << 14;
        for (k = 0; k < NTAPS && k <= i; k++)
            acc += coef[k] * in[i - k];
        out[i] = (short)(acc >> 15);
    }
}

/* Decimate by 2: only every other output is computed. */
int fir_decimate2(const short *coef, const short *in, short *out, int n)
{
    int i, k, m = 0;
    for (i = NTAPS - 1; i < n; i += 2) {
        const short *px = in + i;
        int acc = 1 << 14;
        for (k = 0; k < NTAPS; k++)
            acc += coef[k] * *px--;
        out[m++] = (short)(acc >> 15);
    }
    return m;
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

int main(void)
{
    unsigned int seed = 17u, hs = 0;
    int i, b, same = 1, m;
    /* Windowed-sinc-like integer taps, positive in the middle. */
    for (i = 0; i < NTAPS; i++) {
        int d = i < NTAPS / 2 ? i : NTAPS - 1 - i;
        h[i] = (short)(d * d * 20 + 50 - (d == 3 ? 400 : 0));
    }
    {
        int s = 0;
        for (i = 0; i < NTAPS; i++)
            s += h[i] < 0 ? -h[i] : h[i];
        put_line(s);
    }
    for (i = 0; i < TOTAL; i++) {
        seed = seed * 1103515245u + 12345u;
        x[i] = (short)((int)((seed >> 16) & 0xffffu) - 32768);
        if (x[i] == -32768)
            x[i] = -32767;
    }
    fir_init(&st);
    for (b = 0; b < NBLOCKS; b++)
        fir_block(&st, h, x + b * BLOCK, y_block + b * BLOCK, BLOCK);
    fir_direct(h, x, y_direct, TOTAL);
    for (i = 0; i < TOTAL; i++) {
        if (y_block[i] != y_direct[i])
            same = 0;
        hs = hs * 31u + (unsigned int)(y_block[i] + 32768);
    }
    put_line(same);
    put_line((int)(hs >> 1));
    put_line(st.pos);
    put_line(y_block[TOTAL - 1]);
    m = fir_decimate2(h, x, y_dec, TOTAL);
    put_line(m);
    same = 1;
    for (i = 0; i < m; i++)
        if (y_dec[i] != y_direct[NTAPS - 1 + 2 * i])
            same = 0;
    put_line(same);
    return 0;
}
