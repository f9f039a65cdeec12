/* The ETSI-style basic operators of the speech-codec set (include/basic_op.c), checked
   against independent plain-C references on edge values and LCG-random operands:
   16-bit add/sub/mult/mult_r/L_mult with their saturation and Overflow flag, shl/shr and
   L_shl/L_shr over counts -40..40, norm_s/norm_l, div_s against the exact quotient, the DPF
   round trip L_Extract/L_Comp, Mpy_32 against an exact 32x32->64-bit product built from 16-bit
   halves, and Div_32 against exact restoring division.
   Prints an agreement flag per operator (1 = every case agreed), overflow counts, result
   hashes and the largest DPF errors.
   Ranges: the references work in int only where |value| <= 2^31 - 1 is shown in a comment,
   otherwise in unsigned int. */
#include "ssalab.h"
#include "include/basic_op.c"
#include "include/harness.c"

#define N16 20
#define N32 14
#define NRANDOM 150

static const Word16 edge16[N16] = {
    0, 1, -1, 2, -2, 100, -100, 16383, 16384, -16384,
    -16385, 32767, -32768, 32766, -32767, 12345, -12345, 255, -256, 4096
};

static const Word32 edge32[N32] = {
    0, 1, -1, 2147483647, -2147483647 - 1, 0x3fffffff, -0x40000000, 0x40000000,
    123456789, -987654321, 65536, -65536, 0x7fff0000, 0x00008000
};

static unsigned int rng = 777u;

static unsigned int next_rand(void)
{
    rng = rng * 1103515245u + 12345u;
    return rng;
}

static Word16 rand16(void)
{
    unsigned int r = next_rand() >> 16; /* 0..65535 */
    return (Word16)((int)r - 32768);
}

static Word32 rand32(void)
{
    unsigned int hi = next_rand() >> 16, lo = next_rand() >> 16;
    unsigned int u = (hi << 16) | lo;
    /* two's complement value of u without an out-of-range conversion */
    return u >= 0x80000000u ? -(Word32)(0xffffffffu - u) - 1 : (Word32)u;
}

/* ---- plain references ---- */

static Word32 ref_clamp16(Word32 v)
{
    return v > 32767 ? 32767 : v < -32768 ? -32768 : v;
}

static Word16 ref_shr16(Word16 a, int n)
{
    if (n >= 15)
        return (Word16)(a < 0 ? -1 : 0);
    return (Word16)(a >> n);
}

/* shl: |a| * 2^n <= 2^30 for n <= 15. */
static Word16 ref_shl16(Word16 a, int n)
{
    if (n < 0)
        return ref_shr16(a, -n > 16 ? 16 : -n);
    if (n > 15)
        return (Word16)(a == 0 ? 0 : a > 0 ? 32767 : -32768);
    return (Word16)ref_clamp16((Word32)a * (1 << n));
}

static Word32 ref_shr32(Word32 a, int n)
{
    if (n >= 31)
        return a < 0 ? -1 : 0;
    return a >> n;
}

/* a * 2^n with saturation: compared against the shifted limits, then shifted as unsigned. */
static Word32 ref_shl32(Word32 a, int n)
{
    unsigned int u;
    if (n <= 0)
        return ref_shr32(a, -n > 32 ? 32 : -n);
    if (a == 0)
        return 0;
    if (n >= 32)
        return a > 0 ? MAX_32 : MIN_32;
    if (a > (MAX_32 >> n))
        return MAX_32;
    if (a < (MIN_32 >> n))
        return MIN_32;
    u = (unsigned int)a << n;
    return u >= 0x80000000u ? -(Word32)(0xffffffffu - u) - 1 : (Word32)u;
}

/* Saturating a + b detected from the unsigned sum's sign. */
static Word32 ref_add32(Word32 a, Word32 b, int *ovf)
{
    unsigned int s = (unsigned int)a + (unsigned int)b;
    int sa = a < 0, sb = b < 0, ss = s >= 0x80000000u;
    if (sa == sb && ss != sa) {
        *ovf = 1;
        return sa ? MIN_32 : MAX_32;
    }
    *ovf = 0;
    return ss ? -(Word32)(0xffffffffu - s) - 1 : (Word32)s;
}

static int ref_norm32(Word32 a)
{
    unsigned int u;
    int n = 0;
    if (a == 0)
        return 0;
    u = a < 0 ? ~(unsigned int)a : (unsigned int)a;
    while ((u & 0x40000000u) == 0u && n < 31) {
        u <<= 1;
        n++;
    }
    return n;
}

/* floor(|a| * |b| / 2^31) with the sign of a * b, the magnitude capped at 2^31 - 1: the exact
   product from four 16 x 16 partial products in unsigned int (|a|, |b| <= 2^31). */
static Word32 ref_mul_q31(Word32 a, Word32 b)
{
    unsigned int ua = a < 0 ? 0u - (unsigned int)a : (unsigned int)a;
    unsigned int ub = b < 0 ? 0u - (unsigned int)b : (unsigned int)b;
    unsigned int ah = ua >> 16, al = ua & 0xffffu, bh = ub >> 16, bl = ub & 0xffffu;
    unsigned int p0 = al * bl, p1 = ah * bl, p2 = al * bh, p3 = ah * bh;
    unsigned int mid = (p0 >> 16) + (p1 & 0xffffu) + (p2 & 0xffffu);
    unsigned int lo = (p0 & 0xffffu) | (mid << 16);
    unsigned int hi = p3 + (p1 >> 16) + (p2 >> 16) + (mid >> 16);
    unsigned int q = (hi << 1) | (lo >> 31); /* < 2^31 unless both are -2^31 */
    if (q > 0x7fffffffu)
        q = 0x7fffffffu;
    return (a < 0) != (b < 0) ? -(Word32)q : (Word32)q;
}

/* floor(num * 2^31 / den) for 0 <= num < den, by restoring division (num, den < 2^31). */
static Word32 ref_div_q31(Word32 num, Word32 den)
{
    unsigned int r = (unsigned int)num, d = (unsigned int)den, q = 0u;
    int i;
    for (i = 0; i < 31; i++) {
        r <<= 1;
        q <<= 1;
        if (r >= d) {
            r -= d;
            q |= 1u;
        }
    }
    return (Word32)q;
}

/* |a - b|, computed in unsigned int and capped at 2^31 - 1. */
static int abs_diff(Word32 a, Word32 b)
{
    unsigned int d = a > b ? (unsigned int)a - (unsigned int)b : (unsigned int)b - (unsigned int)a;
    return d > 0x7fffffffu ? 0x7fffffff : (int)d;
}

/* ---- tests ---- */

static Word16 pick16(int i)
{
    return i < N16 * N16 ? edge16[i % N16] : rand16();
}

static Word16 pick16b(int i)
{
    return i < N16 * N16 ? edge16[i / N16] : rand16();
}

static void test_16bit(void)
{
    int i, ok_add = 1, ok_mult = 1, ok_lmult = 1, ok_flag = 1, ovf_count = 0;
    unsigned int h = 0u;
    for (i = 0; i < N16 * N16 + NRANDOM; i++) {
        Word16 a = pick16(i), b = pick16b(i), r;
        Word32 exact = (Word32)a + b, p = (Word32)a * b, L;
        Overflow = 0;
        r = add(a, b);
        if (r != ref_clamp16(exact) || Overflow != (exact != ref_clamp16(exact)))
            ok_add = 0;
        ovf_count += Overflow;
        Overflow = 0;
        r = sub(a, b);
        exact = (Word32)a - b;
        if (r != ref_clamp16(exact) || Overflow != (exact != ref_clamp16(exact)))
            ok_flag = 0;
        ovf_count += Overflow;
        if (mult(a, b) != ref_clamp16(p >> 15) || mult_r(a, b) != ref_clamp16((p + 16384) >> 15))
            ok_mult = 0;
        L = L_mult(a, b);
        if (L != (p == 0x40000000 ? MAX_32 : p * 2))
            ok_lmult = 0;
        h = h * 31u + (unsigned int)(mult_r(a, b) & 0xffff);
        h = h * 31u + (unsigned int)L;
        h = h * 31u + (unsigned int)(abs_s(a) & 0xffff) + (unsigned int)(negate(b) & 0xffff);
    }
    put_line(ok_add);
    put_line(ok_flag);
    put_line(ok_mult);
    put_line(ok_lmult);
    put_line(ovf_count);
    put_line((int)(h >> 1));
}

static void test_shifts(void)
{
    int i, n, ok16 = 1, ok32 = 1, ok_r = 1;
    unsigned int h = 0u;
    for (i = 0; i < N16 + 20; i++) {
        Word16 a = i < N16 ? edge16[i] : rand16();
        for (n = -20; n <= 20; n++) {
            if (shl(a, (Word16)n) != ref_shl16(a, n) || shr(a, (Word16)n) != ref_shl16(a, -n))
                ok16 = 0;
            if (n >= 0 && n <= 15) {
                /* shr_r: the rounding bit added back; the sum is at most 2^15. */
                Word32 expect = (Word32)ref_shr16(a, n) + (n > 0 ? (a >> (n - 1)) & 1 : 0);
                if (shr_r(a, (Word16)n) != expect)
                    ok_r = 0;
            }
            h = h * 31u + (unsigned int)(shr_r(a, (Word16)n) & 0xffff);
        }
    }
    for (i = 0; i < N32 + 4; i++) {
        Word32 a = i < N32 ? edge32[i] : rand32();
        for (n = -40; n <= 40; n++) {
            if (L_shl(a, (Word16)n) != ref_shl32(a, n) || L_shr(a, (Word16)n) != ref_shl32(a, -n))
                ok32 = 0;
            h = h * 31u + (unsigned int)L_shr_r(a, (Word16)n);
        }
    }
    put_line(ok16);
    put_line(ok32);
    put_line(ok_r);
    put_line((int)(h >> 1));
}

static void test_32bit(void)
{
    int i, j, ok_add = 1, ok_sub = 1, ok_mac = 1, ovf;
    unsigned int h = 0u;
    for (i = 0; i < N32 + 30; i++) {
        for (j = 0; j < N32 + 30; j += 3) {
            Word32 a = i < N32 ? edge32[i] : rand32();
            Word32 b = j < N32 ? edge32[j] : rand32();
            Word32 r, ref;
            Overflow = 0;
            r = L_add(a, b);
            ref = ref_add32(a, b, &ovf);
            if (r != ref || Overflow != ovf)
                ok_add = 0;
            Overflow = 0;
            r = L_sub(a, b);
            /* a - b = a + (-b) except for b = MIN_32, where -b is not representable. */
            if (b != MIN_32) {
                ref = ref_add32(a, -b, &ovf);
                if (r != ref || Overflow != ovf)
                    ok_sub = 0;
            } else if (r != (a >= 0 ? MAX_32 : a - b)) {
                ok_sub = 0;
            }
            h = h * 31u + (unsigned int)r;
            h = h * 31u + (unsigned int)round_fx(a);
            h = h * 31u + (unsigned int)L_abs(a) + (unsigned int)L_negate(b);
        }
    }
    for (i = 0; i < NRANDOM; i++) {
        Word32 acc = rand32();
        Word16 x = rand16(), y = rand16();
        Word32 ref = ref_add32(acc, x == -32768 && y == -32768 ? MAX_32 : 2 * x * y, &ovf);
        if (L_mac(acc, x, y) != ref)
            ok_mac = 0;
        ref = ref_add32(acc, x == -32768 && y == -32768 ? -MAX_32 : -2 * x * y, &ovf);
        if (L_msu(acc, x, y) != ref)
            ok_mac = 0;
    }
    put_line(ok_add);
    put_line(ok_sub);
    put_line(ok_mac);
    put_line((int)(h >> 1));
}

static void test_norm_div(void)
{
    int i, ok_norm = 1, ok_div = 1, ok_dep = 1;
    unsigned int h = 0u;
    for (i = 0; i < N16 + NRANDOM; i++) {
        Word16 a = i < N16 ? edge16[i] : rand16();
        Word16 b = rand16(), q;
        if (norm_s(a) != (a == 0 ? 0 : ref_norm32((Word32)a * 65536)))
            ok_norm = 0;
        if (L_deposit_h(a) != (Word32)a * 65536 || L_deposit_l(a) != a ||
            extract_h(L_deposit_h(a)) != a || extract_l(L_deposit_l(a)) != a)
            ok_dep = 0;
        /* div_s on 0 <= num <= den, den > 0 */
        if (a < 0)
            a = negate(a);
        if (b < 0)
            b = negate(b);
        if (b == 0)
            b = 1;
        if (a > b) {
            Word16 t = a;
            a = b;
            b = t;
        }
        /* exact floor(a * 32768 / b): a * 32768 <= 2^30 */
        q = div_s(a, b);
        if (q != (a == b ? 32767 : (Word32)a * 32768 / b))
            ok_div = 0;
        h = h * 31u + (unsigned int)q;
    }
    for (i = 0; i < N32 + NRANDOM; i++) {
        Word32 a = i < N32 ? edge32[i] : rand32();
        if (norm_l(a) != ref_norm32(a))
            ok_norm = 0;
        h = h * 31u + (unsigned int)norm_l(a);
    }
    put_line(ok_norm);
    put_line(ok_dep);
    put_line(ok_div);
    put_line((int)(h >> 1));
}

static void test_dpf(void)
{
    int i, ok_rt = 1, max_mpy = 0, max_mpy16 = 0, max_div = 0, d;
    unsigned int h = 0u;
    for (i = 0; i < N32 + NRANDOM; i++) {
        Word32 a = i < N32 ? edge32[i] : rand32();
        Word32 b = rand32();
        Word16 ah, al, bh, bl;
        Word32 p, num, den;
        L_Extract(a, &ah, &al);
        if (L_Comp(ah, al) != (a & ~1))
            ok_rt = 0;
        L_Extract(b, &bh, &bl);
        p = Mpy_32(ah, al, bh, bl);
        if (!(a == MIN_32 && b == MIN_32)) {
            d = abs_diff(p, ref_mul_q31(a, b));
            if (d > max_mpy)
                max_mpy = d;
        }
        p = Mpy_32_16(ah, al, bh);
        d = abs_diff(p, ref_mul_q31(a, L_deposit_h(bh)));
        if (d > max_mpy16)
            max_mpy16 = d;
        h = h * 31u + (unsigned int)p;

        /* Div_32: normalised denominator, numerator below it. */
        den = b < 0 ? -(b + 1) : b;
        den = den | 0x40000000;
        num = a < 0 ? -(a + 1) : a;
        num = num % den;
        L_Extract(den, &bh, &bl);
        p = Div_32(num, bh, bl);
        d = abs_diff(p, ref_div_q31(num, den));
        if (d > max_div)
            max_div = d;
        h = h * 31u + (unsigned int)p;
    }
    put_line(ok_rt);
    put_line(max_mpy);
    /* Mpy_32 drops lo1 * lo2 (< 2 units of the result) and truncates two mult() terms
       (< 2 units each): the error is below 8. */
    put_line(max_mpy <= 8);
    put_line(max_mpy16);
    put_line(max_div);
    put_line((int)(h >> 1));
}

/* A saturating energy and a dot product of the synthetic signal, as codecs compute them. */
static void test_signal(void)
{
    Word16 x[L_FRAME], xs[L_FRAME];
    Word32 energy = 0, dot = 0;
    int i;
    gen_speech(x, L_FRAME);
    gen_speech(x, L_FRAME);
    gen_speech(x, L_FRAME); /* the clipping frame */
    Overflow = 0;
    for (i = 0; i < L_FRAME; i++)
        energy = L_mac(energy, x[i], x[i]);
    put_line(Overflow);
    put_line(energy);
    for (i = 0; i < L_FRAME; i++)
        xs[i] = shr(x[i], 2);
    for (i = 1; i < L_FRAME; i++)
        dot = L_msu(dot, xs[i], xs[i - 1]);
    put_line(dot);
    put_line(checksum16(x, L_FRAME));
}

int main(void)
{
    test_16bit();
    test_shifts();
    test_32bit();
    test_norm_div();
    test_dpf();
    test_signal();
    return 0;
}
