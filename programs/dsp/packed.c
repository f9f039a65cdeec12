/* Packed 16-bit vector arithmetic through the ST120 intrinsics of ssalab.h: vector add and
   subtract two lanes at a time, scaling by a Q15 gain with the multiply intrinsics, an energy
   computation with the low/high MACs, and a packed butterfly (sum and difference).  Each packed
   result is checked against the same computation done lane by lane on shorts. */
#include "ssalab.h"

#define N 128 /* shorts; N / 2 packed words */

static short a[N], b[N], ref[N];
static int pa[N / 2], pb[N / 2], pr[N / 2], ps[N / 2];

void vadd_packed(const int *x, const int *y, int *z, int npairs)
{
    while (npairs-- > 0)
        *z++ = __st_addp(*x++, *y++);
}

void vsub_packed(const int *x, const int *y, int *z, int npairs)
{
    int i;
    for (i = 0; i < npairs; i++)
        z[i] = __st_subp(x[i], y[i]);
}

/* z = (x * g) >> 15 on both lanes, g in Q15. */
void vscale_packed(const int *x, int g, int *z, int npairs)
{
    int i;
    for (i = 0; i < npairs; i++) {
        int lo = __st_mpy(x[i], g) >> 15;
        int hi = __st_mpy(__st_hi(x[i]), g) >> 15;
        z[i] = __st_pack(hi, lo);
    }
}

/* Sum of squares of all lanes, scaled by 2^-6 per pair.  For lanes within +-23170 (the
   1/sqrt(2)-scaled data of main) a pair's sum of squares is below 2^30, so 64 terms stay
   below 2^30. */
int energy_packed(const int *x, int npairs)
{
    int e = 0, i;
    for (i = 0; i < npairs; i++)
        e += __st_machh(__st_mac(0, x[i], x[i]), x[i], x[i]) >> 6;
    return e;
}

/* (s, d) = (x + y, x - y) lane-wise, the core of a packed Hadamard/FFT butterfly. */
void butterfly_packed(int *x, int *y, int npairs)
{
    int i;
    for (i = 0; i < npairs; i++) {
        int s = __st_addp(x[i], y[i]);
        int d = __st_subp(x[i], y[i]);
        x[i] = s;
        y[i] = d;
    }
}

static void pack_all(const short *s, int *p, int n)
{
    int i;
    for (i = 0; i < n; i += 2)
        p[i / 2] = __st_pack(s[i + 1], s[i]);
}

static int check(const int *p, const short *s, int n)
{
    int i;
    for (i = 0; i < n; i += 2)
        if (__st_lo(p[i / 2]) != s[i] || __st_hi(p[i / 2]) != s[i + 1])
            return 0;
    return 1;
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

int main(void)
{
    unsigned int seed = 424242u, h = 0;
    int i, e_ref = 0;
    for (i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        a[i] = (short)(seed >> 16); /* full 16-bit range: lane additions wrap */
        seed = seed * 1103515245u + 12345u;
        b[i] = (short)(seed >> 16);
    }
    pack_all(a, pa, N);
    pack_all(b, pb, N);

    vadd_packed(pa, pb, pr, N / 2);
    for (i = 0; i < N; i++)
        ref[i] = (short)(unsigned short)((unsigned int)(unsigned short)a[i] + (unsigned short)b[i]);
    put_line(check(pr, ref, N));
    for (i = 0; i < N / 2; i++)
        h = h * 31u + (unsigned int)pr[i];
    put_line((int)(h >> 1));

    vsub_packed(pa, pb, pr, N / 2);
    for (i = 0; i < N; i++)
        ref[i] = (short)(unsigned short)((unsigned int)(unsigned short)a[i] - (unsigned short)b[i]);
    put_line(check(pr, ref, N));
    put_line(__st_lo(pr[3]));

    vscale_packed(pa, 23170, ps, N / 2); /* 1/sqrt(2) */
    for (i = 0; i < N; i++)
        ref[i] = (short)((a[i] * 23170) >> 15);
    put_line(check(ps, ref, N));
    put_line(__st_hi(ps[10]));

    put_line(energy_packed(ps, N / 2));
    for (i = 0; i < N; i += 2)
        e_ref += (ref[i] * ref[i] + ref[i + 1] * ref[i + 1]) >> 6;
    put_line(e_ref == energy_packed(ps, N / 2));

    butterfly_packed(pa, pb, N / 2);
    vsub_packed(pa, pb, pr, N / 2); /* (x + y) - (x - y) = 2y modulo 2^16 */
    for (i = 0; i < N; i++)
        ref[i] = (short)(unsigned short)(2u * (unsigned short)b[i]);
    put_line(check(pr, ref, N));
    put_line(__st_addp(0x7fff7fff, 0x00010001));
    put_line(__st_subp(0, 0x00010001));
    put_line(__st_mac(2147483647, 1, 1));
    put_line(__st_msu(-2147483647 - 1, 1, 1));
    put_line(__st_mpy(-32768, -32768));
    put_line(__st_mpyhh(0x7fff0000, -65536));
    return 0;
}
