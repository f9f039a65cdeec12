/* Struct-based complex arithmetic in Q15: element-wise complex multiply on arrays of structs,
   a complex dot product accumulating into a struct of ints, and one radix-2 decimation-in-time
   butterfly stage applied through struct pointers (->).
   Ranges: input components are within +-2^13.  A butterfly never increases the largest
   magnitude (|(p +- w q) / 2| <= max(|p|, |q|) since |w| <= 1), so every component stays below
   2^14 and every cmul sum below 2^30; cdot scales each product before accumulating. */
#include "ssalab.h"

#define N 64

typedef struct {
    short re;
    short im;
} cplx16;

typedef struct {
    int re;
    int im;
} cplx32;

struct signal {
    int len;
    cplx16 s[N];
};

static struct signal xa, xb, prod;
static cplx16 twiddle[N / 2];

/* Q15 cos/sin for k/64 of a turn, k = 0..15 (first quadrant; the others by symmetry). */
static const short cos_q15[17] = {
    32767, 32610, 32138, 31357, 30274, 28898, 27246, 25330, 23170,
    20788, 18205, 15447, 12540, 9512, 6393, 3212, 0
};

static unsigned int seed = 1234567u;

static short rnd13(void)
{
    seed = seed * 1103515245u + 12345u;
    return (short)((int)((seed >> 16) & 0x3fffu) - 8192);
}

/* |a.re * b.re - a.im * b.im| <= 2 * 2^14 * 2^15 = 2^30 for a within 2^14 and b within 2^15. */
void cmul(const cplx16 *a, const cplx16 *b, cplx16 *r)
{
    int re = a->re * b->re - a->im * b->im;
    int im = a->re * b->im + a->im * b->re;
    r->re = (short)((re + (1 << 14)) >> 15);
    r->im = (short)((im + (1 << 14)) >> 15);
}

void cmul_vec(const struct signal *a, const struct signal *b, struct signal *r)
{
    int i;
    r->len = a->len;
    for (i = 0; i < a->len; i++)
        cmul(&a->s[i], &b->s[i], &r->s[i]);
}

/* sum a[i] * conj(b[i]), each product scaled by 2^-8: |term| <= 2^27 / 2^8 = 2^19. */
cplx32 *cdot(const cplx16 *a, const cplx16 *b, int n, cplx32 *acc)
{
    acc->re = 0;
    acc->im = 0;
    while (n-- > 0) {
        acc->re += (a->re * b->re + a->im * b->im) >> 8;
        acc->im += (a->im * b->re - a->re * b->im) >> 8;
        a++;
        b++;
    }
    return acc;
}

void make_twiddles(cplx16 *w, int n)
{
    int k;
    for (k = 0; k < n; k++) {
        /* w[k] = exp(-2 pi i k / 64), k < 32 */
        int q = k & 15;
        short c = cos_q15[q], s = cos_q15[16 - q];
        if (k < 16) {
            w[k].re = c;
            w[k].im = (short)-s;
        } else {
            w[k].re = (short)-s;
            w[k].im = (short)-c;
        }
    }
}

/* One butterfly stage: pairs (i, i + half) inside groups of 2 * half; outputs halved to keep
   the range (the usual block-floating scaling of fixed-point FFTs). */
void butterfly_stage(cplx16 *x, int n, int half, const cplx16 *w, int wstride)
{
    int g, j;
    for (g = 0; g < n; g += 2 * half)
        for (j = 0; j < half; j++) {
            cplx16 *p = x + g + j;
            cplx16 *q = p + half;
            cplx16 t;
            cmul(q, &w[j * wstride], &t);
            q->re = (short)((p->re - t.re) >> 1);
            q->im = (short)((p->im - t.im) >> 1);
            p->re = (short)((p->re + t.re) >> 1);
            p->im = (short)((p->im + t.im) >> 1);
        }
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

static int hash(const cplx16 *s, int n)
{
    unsigned int h = 0;
    int i;
    for (i = 0; i < n; i++)
        h = (h ^ (unsigned int)(unsigned short)s[i].re) * 16777619u ^ (unsigned int)(unsigned short)s[i].im;
    return (int)(h >> 1);
}

int main(void)
{
    cplx32 d, *pd;
    struct signal copy;
    int i, half;
    xa.len = xb.len = N;
    for (i = 0; i < N; i++) {
        xa.s[i].re = rnd13();
        xa.s[i].im = rnd13();
        xb.s[i].re = rnd13();
        xb.s[i].im = rnd13();
    }
    cmul_vec(&xa, &xb, &prod);
    put_line(hash(prod.s, N));
    put_line(prod.s[0].re);
    put_line(prod.s[N - 1].im);
    pd = cdot(xa.s, xb.s, N, &d);
    put_line(pd->re);
    put_line(d.im);
    cdot(xa.s, xa.s, N, &d);
    put_line(d.re);
    put_line(d.im);
    make_twiddles(twiddle, N / 2);
    put_line(twiddle[5].re);
    put_line(twiddle[20].im);
    copy = xa; /* struct assignment, array member included */
    for (half = 1; half < N; half *= 2)
        butterfly_stage(copy.s, N, half, twiddle, N / (2 * half));
    put_line(hash(copy.s, N));
    put_line(copy.s[0].re);
    put_line(copy.s[1].im);
    put_line(hash(xa.s, N) != hash(copy.s, N));
    return 0;
}
