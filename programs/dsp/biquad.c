/* Biquad IIR cascade, direct form I, Q14 coefficients, 3 stages over 256 samples.
   Overflow argument: inputs are within +-8192 and every stage clamps its output (which is
   also its state) to [-16384, 16383]; the largest stage has sum |coef| = 58982, so
   |acc| <= 58982 * 16384 + 2^13 < 2^31. */
#include "ssalab.h"

#define NSTAGE 3
#define NSAMP 256
#define QBITS 14

/* Per stage: b0, b1, b2, a1, a2 (y = b.x - a.y). */
static const short coefs[NSTAGE][5] = {
    { 410, 819, 410, -26214, 11469 },
    { 1229, 2458, 1229, -19661, 8192 },
    { 9830, -19661, 9830, -14746, 4915 },
};

/* Per stage: x[n-1], x[n-2], y[n-1], y[n-2]. */
static int state[NSTAGE][4];

static short in[NSAMP], out[NSAMP];

static int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

int biquad_stage(const short c[5], int s[4], int x)
{
    int acc = 1 << (QBITS - 1);
    int y;
    acc += c[0] * x;
    acc += c[1] * s[0];
    acc += c[2] * s[1];
    acc -= c[3] * s[2];
    acc -= c[4] * s[3];
    y = clamp(acc >> QBITS, -16384, 16383);
    s[1] = s[0];
    s[0] = x;
    s[3] = s[2];
    s[2] = y;
    return y;
}

void biquad_cascade(const short *x, short *y, int n)
{
    int i, st;
    for (i = 0; i < n; i++) {
        int v = x[i];
        for (st = 0; st < NSTAGE; st++)
            v = biquad_stage(coefs[st], state[st], v);
        y[i] = (short)v;
    }
}

/* The same cascade with the state in locals: the delays rotate through loop phis. */
void biquad_one(const short *x, short *y, int n, const short *c)
{
    int x1 = 0, x2 = 0, y1 = 0, y2 = 0;
    while (n--) {
        int x0 = *x++;
        int acc = (1 << (QBITS - 1)) + c[0] * x0 + c[1] * x1 + c[2] * x2 - c[3] * y1 - c[4] * y2;
        int y0 = clamp(acc >> QBITS, -16384, 16383);
        x2 = x1;
        x1 = x0;
        y2 = y1;
        y1 = y0;
        *y++ = (short)y0;
    }
}

static unsigned int seed = 77u;

static int noise(void)
{
    seed = seed * 1664525u + 1013904223u;
    return (int)((seed >> 18) & 0x3fffu) - 8192;
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

int main(void)
{
    static short t1[NSAMP], t2[NSAMP], t3[NSAMP];
    unsigned int h = 0;
    int i, same = 1;
    for (i = 0; i < NSAMP; i++)
        in[i] = (short)((i & 32) ? 6000 + noise() / 4 : noise());
    biquad_cascade(in, out, NSAMP);
    for (i = 0; i < NSAMP; i++)
        h = h * 33u ^ (unsigned int)(out[i] & 0xffff);
    put_line((int)(h >> 1));
    biquad_one(in, t1, NSAMP, coefs[0]);
    biquad_one(t1, t2, NSAMP, coefs[1]);
    biquad_one(t2, t3, NSAMP, coefs[2]);
    for (i = 0; i < NSAMP; i++)
        if (t3[i] != out[i])
            same = 0;
    put_line(same);
    put_line(out[10]);
    put_line(out[200]);
    put_line(state[0][2]);
    put_line(state[2][3]);
    return 0;
}
