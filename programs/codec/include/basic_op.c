/* basic_op.c -- ETSI-style fixed-point basic operators and double-precision (DPF) helpers,
   written for ssalab.  Included (as a .c file) by every program in programs/codec/.

   Semantics (the published ETSI/3GPP basic-operator behaviour):
   * 16-bit results saturate to [-32768, 32767], 32-bit results to [-2^31, 2^31 - 1];
     every saturation sets the global `Overflow` to 1.
   * mult(a, b) = (a * b) >> 15, L_mult(a, b) = 2 * a * b; -32768 * -32768 saturates.
   * shl/shr (and L_shl/L_shr) with a negative count shift the other way; right shifts are
     arithmetic and saturate to 0 or -1 for large counts.
   * norm_s/norm_l give the left shift that normalises a value; div_s is the Q15 quotient of
     0 <= var1 <= var2.

   No undefined behaviour: every step that could overflow is guarded by an explicit range check
   before it is done in `int`, and left shifts are done by multiplication of values whose range
   is stated.  The only implementation-defined step is the narrowing in extract_l (modulo 2^16),
   which the C subset fixes.  Right shifts of negative values are arithmetic (also fixed). */
#include "basic_op.h"

Flag Overflow = 0;

Word16 saturate(Word32 L_var1)
{
    if (L_var1 > 32767) {
        Overflow = 1;
        return MAX_16;
    }
    if (L_var1 < -32768) {
        Overflow = 1;
        return MIN_16;
    }
    return (Word16)L_var1;
}

/* |var1 + var2| <= 2^16: no int overflow. */
Word16 add(Word16 var1, Word16 var2)
{
    return saturate((Word32)var1 + var2);
}

Word16 sub(Word16 var1, Word16 var2)
{
    return saturate((Word32)var1 - var2);
}

Word16 abs_s(Word16 var1)
{
    if (var1 == MIN_16)
        return MAX_16;
    return var1 < 0 ? (Word16)-var1 : var1;
}

Word16 negate(Word16 var1)
{
    return var1 == MIN_16 ? MAX_16 : (Word16)-var1;
}

/* Left shift by var2 (right shift for var2 < 0).  For 0 <= var2 <= 15 the product
   var1 * 2^var2 is at most 2^15 * 2^15 = 2^30 in magnitude. */
Word16 shl(Word16 var1, Word16 var2)
{
    if (var2 < 0) {
        if (var2 < -16)
            var2 = -16;
        return shr(var1, (Word16)-var2);
    }
    if (var2 > 15) {
        if (var1 == 0)
            return 0;
        Overflow = 1;
        return var1 > 0 ? MAX_16 : MIN_16;
    }
    return saturate((Word32)var1 * ((Word32)1 << var2));
}

/* Arithmetic right shift by var2 (left shift for var2 < 0). */
Word16 shr(Word16 var1, Word16 var2)
{
    if (var2 < 0) {
        if (var2 < -16)
            var2 = -16;
        return shl(var1, (Word16)-var2);
    }
    if (var2 >= 15)
        return var1 < 0 ? (Word16)-1 : (Word16)0;
    return (Word16)(var1 >> var2);
}

/* Right shift with rounding (adds the last bit shifted out). */
Word16 shr_r(Word16 var1, Word16 var2)
{
    Word16 out;
    if (var2 > 15)
        return 0;
    out = shr(var1, var2);
    if (var2 > 0 && (var1 & (1 << (var2 - 1))) != 0)
        out = (Word16)(out + 1); /* out <= 2^14 here: no overflow */
    return out;
}

/* (var1 * var2) >> 15; |product| <= 2^30. */
Word16 mult(Word16 var1, Word16 var2)
{
    return saturate(((Word32)var1 * var2) >> 15);
}

/* Rounded Q15 product: (var1 * var2 + 2^14) >> 15; the sum is at most 2^30 + 2^14. */
Word16 mult_r(Word16 var1, Word16 var2)
{
    return saturate(((Word32)var1 * var2 + 0x4000) >> 15);
}

/* Number of left shifts that bring a non-zero var1 into [2^14, 2^15) or [-2^15, -2^14);
   0 for 0 and 15 for -1.  The loop only shifts values below 2^14, so nothing overflows. */
Word16 norm_s(Word16 var1)
{
    Word16 n = 0;
    Word32 v = var1;
    if (v == 0)
        return 0;
    if (v == -1)
        return 15;
    if (v < 0)
        v = ~v;
    while (v < 0x4000) {
        v *= 2;
        n++;
    }
    return n;
}

/* Q15 quotient var1 / var2 for 0 <= var1 <= var2, var2 > 0, by 15 restoring steps.
   Inputs outside that domain (which the reference rejects) give 0 and set Overflow. */
Word16 div_s(Word16 var1, Word16 var2)
{
    Word16 out = 0, i;
    Word32 num, den;
    if (var2 <= 0 || var1 < 0 || var1 > var2) {
        Overflow = 1;
        return 0;
    }
    if (var1 == 0)
        return 0;
    if (var1 == var2)
        return MAX_16;
    num = var1;
    den = var2;
    for (i = 0; i < 15; i++) {
        out = (Word16)(out * 2); /* out < 2^14 before the doubling */
        num *= 2;                /* num < den < 2^15 before the doubling */
        if (num >= den) {
            num = L_sub(num, den);
            out = add(out, 1);
        }
    }
    return out;
}

Word16 extract_h(Word32 L_var1)
{
    return (Word16)(L_var1 >> 16);
}

/* Low 16 bits, modulo 2^16 (implementation-defined narrowing fixed by the subset). */
Word16 extract_l(Word32 L_var1)
{
    return (Word16)L_var1;
}

Word16 round_fx(Word32 L_var1)
{
    return extract_h(L_add(L_var1, 0x8000));
}

/* var1 * 2^16: the extreme -32768 * 65536 = -2^31 is representable. */
Word32 L_deposit_h(Word16 var1)
{
    return (Word32)var1 * 65536;
}

Word32 L_deposit_l(Word16 var1)
{
    return var1;
}

Word32 L_add(Word32 L_var1, Word32 L_var2)
{
    if (L_var2 > 0 && L_var1 > MAX_32 - L_var2) {
        Overflow = 1;
        return MAX_32;
    }
    if (L_var2 < 0 && L_var1 < MIN_32 - L_var2) {
        Overflow = 1;
        return MIN_32;
    }
    return L_var1 + L_var2;
}

Word32 L_sub(Word32 L_var1, Word32 L_var2)
{
    if (L_var2 < 0 && L_var1 > MAX_32 + L_var2) {
        Overflow = 1;
        return MAX_32;
    }
    if (L_var2 > 0 && L_var1 < MIN_32 + L_var2) {
        Overflow = 1;
        return MIN_32;
    }
    return L_var1 - L_var2;
}

Word32 L_negate(Word32 L_var1)
{
    return L_var1 == MIN_32 ? MAX_32 : -L_var1;
}

Word32 L_abs(Word32 L_var1)
{
    if (L_var1 == MIN_32)
        return MAX_32;
    return L_var1 < 0 ? -L_var1 : L_var1;
}

/* 2 * var1 * var2.  |var1 * var2| <= 2^30, and only 2^30 itself (-32768 * -32768) cannot be
   doubled. */
Word32 L_mult(Word16 var1, Word16 var2)
{
    Word32 p = (Word32)var1 * var2;
    if (p == 0x40000000) {
        Overflow = 1;
        return MAX_32;
    }
    return p * 2;
}

Word32 L_mac(Word32 L_var3, Word16 var1, Word16 var2)
{
    return L_add(L_var3, L_mult(var1, var2));
}

Word32 L_msu(Word32 L_var3, Word16 var1, Word16 var2)
{
    return L_sub(L_var3, L_mult(var1, var2));
}

/* Left shift by var2 (right shift for var2 <= 0), one doubling at a time so that each step
   can be checked against the range [-2^30, 2^30) before it is done. */
Word32 L_shl(Word32 L_var1, Word16 var2)
{
    if (var2 <= 0) {
        if (var2 < -32)
            var2 = -32;
        return L_shr(L_var1, (Word16)-var2);
    }
    for (; var2 > 0; var2--) {
        if (L_var1 > 0x3fffffff) {
            Overflow = 1;
            return MAX_32;
        }
        if (L_var1 < -0x40000000) {
            Overflow = 1;
            return MIN_32;
        }
        L_var1 *= 2;
    }
    return L_var1;
}

/* Arithmetic right shift by var2 (left shift for var2 < 0). */
Word32 L_shr(Word32 L_var1, Word16 var2)
{
    if (var2 < 0) {
        if (var2 < -32)
            var2 = -32;
        return L_shl(L_var1, (Word16)-var2);
    }
    if (var2 >= 31)
        return L_var1 < 0 ? -1 : 0;
    return L_var1 >> var2;
}

/* Right shift with rounding.  For 1 <= var2 <= 31, L_var1 >> var2 < 2^30, so the increment
   cannot overflow. */
Word32 L_shr_r(Word32 L_var1, Word16 var2)
{
    Word32 out;
    if (var2 > 31)
        return 0;
    out = L_shr(L_var1, var2);
    if (var2 > 0 && (L_var1 & ((Word32)1 << (var2 - 1))) != 0)
        out++;
    return out;
}

/* Left shifts that bring a non-zero L_var1 into [2^30, 2^31) or [-2^31, -2^30); 0 for 0 and
   31 for -1.  Only values below 2^30 are doubled. */
Word16 norm_l(Word32 L_var1)
{
    Word16 n = 0;
    if (L_var1 == 0)
        return 0;
    if (L_var1 == -1)
        return 31;
    if (L_var1 < 0)
        L_var1 = ~L_var1;
    while (L_var1 < 0x40000000) {
        L_var1 *= 2;
        n++;
    }
    return n;
}

/* ---- Double-precision format (DPF) ---- */

void L_Extract(Word32 L_32, Word16 *hi, Word16 *lo)
{
    Word32 rest;
    *hi = extract_h(L_32);
    rest = L_msu(L_shr(L_32, 1), *hi, 16384); /* (L_32 >> 1) - hi * 2^15 */
    *lo = extract_l(rest);
}

Word32 L_Comp(Word16 hi, Word16 lo)
{
    return L_mac(L_deposit_h(hi), lo, 1);
}

/* 32 x 32 -> 32 product of two DPF values (the lo x lo term is dropped). */
Word32 Mpy_32(Word16 hi1, Word16 lo1, Word16 hi2, Word16 lo2)
{
    Word32 acc;
    Word16 part;
    acc = L_mult(hi1, hi2);
    part = mult(hi1, lo2);
    acc = L_mac(acc, part, 1);
    part = mult(lo1, hi2);
    acc = L_mac(acc, part, 1);
    return acc;
}

/* 32 x 16 -> 32 product of a DPF value and a Q15 value. */
Word32 Mpy_32_16(Word16 hi, Word16 lo, Word16 n)
{
    Word32 acc;
    Word16 part;
    acc = L_mult(hi, n);
    part = mult(lo, n);
    acc = L_mac(acc, part, 1);
    return acc;
}

/* L_num / denom for 0 <= L_num < denom, denom a normalised DPF value (denom_hi >= 2^14).
   1/denom is approximated by a 16-bit quotient refined by one Newton step, then multiplied by
   L_num; the result is in Q31. */
Word32 Div_32(Word32 L_num, Word16 denom_hi, Word16 denom_lo)
{
    Word16 approx, hi, lo, n_hi, n_lo;
    Word32 L_32;

    approx = div_s((Word16)0x3fff, denom_hi); /* ~ 1 / denom in Q14 */

    /* 1/denom = approx * (2.0 - denom * approx) */
    L_32 = Mpy_32_16(denom_hi, denom_lo, approx);
    L_32 = L_sub(MAX_32, L_32);
    L_Extract(L_32, &hi, &lo);
    L_32 = Mpy_32_16(hi, lo, approx);

    /* L_num * (1/denom) */
    L_Extract(L_32, &hi, &lo);
    L_Extract(L_num, &n_hi, &n_lo);
    L_32 = Mpy_32(n_hi, n_lo, hi, lo);
    return L_shl(L_32, 2);
}
