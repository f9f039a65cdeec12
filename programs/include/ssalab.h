/*
 * ssalab.h -- the one header every program in programs/ includes.
 *
 * Output:   print_int(v)  prints v in decimal, no newline.
 *           print_char(c) prints the byte (unsigned char)c.
 * Under ssalab (__SSALAB__ defined) these two are compiler intrinsics, so this header only
 * declares them.  Under the host compiler they are defined with printf/putchar, so the very
 * same source runs natively and serves as the oracle for differential tests.
 *
 * DSP intrinsics (ST120 packed / multiply-accumulate operations, isa.md B4).  They have
 * plain-C definitions usable by both compilers; ssalab may recognise them by name and map them
 * to single machine operations.  Every definition is free of undefined behaviour: lane and
 * accumulator arithmetic goes through unsigned int, and the only implementation-defined step is
 * the final unsigned -> int conversion, which is modulo 2^32 on gcc and on ssalab (docs/c-subset.md).
 *
 *   __st_addp(a, b)     two 16-bit lanes, lane-wise a + b modulo 2^16      (ADDP)
 *   __st_subp(a, b)     two 16-bit lanes, lane-wise a - b modulo 2^16      (SUBP)
 *   __st_mpy(a, b)      (short)a * (short)b, exact 32-bit product          (MPSSLL)
 *   __st_mpyhh(a, b)    (a >> 16) * (b >> 16) of the signed high halves     (MPSSHH)
 *   __st_mac(c, a, b)   c + (short)a * (short)b, modulo 2^32               (MASSLL)
 *   __st_msu(c, a, b)   c - (short)a * (short)b, modulo 2^32               (MSSSLL)
 *   __st_machh(c, a, b) c + high(a) * high(b), modulo 2^32                 (MASSHH)
 *   __st_pack(hi, lo)   (hi << 16) | (lo & 0xffff) as an int               (MAKEP-like)
 *   __st_lo(x)          the signed low half of x                           (EXTH)
 *   __st_hi(x)          the signed high half of x                          (SHRW 16)
 */
#ifndef SSALAB_H
#define SSALAB_H

#ifdef __SSALAB__
/* ssalab: output intrinsics, served by the compiler and the simulator. */
void print_int(int v);
void print_char(int c);
/* ssalab's C subset has no `inline`; a static function is equivalent for one translation unit. */
#define SSALAB_FN static
#else
#include <stdio.h>
#define SSALAB_FN static inline
SSALAB_FN void print_int(int v) { printf("%d", v); }
SSALAB_FN void print_char(int c) { putchar((unsigned char)c); }
#endif

/* The signed value of the 16-bit pattern h (0 <= h <= 0xffff), without implementation-defined
   conversions. */
SSALAB_FN int __st_sext16(unsigned int h)
{
    return h >= 0x8000u ? (int)h - 0x10000 : (int)h;
}

SSALAB_FN int __st_lo(int x)
{
    return __st_sext16((unsigned int)x & 0xffffu);
}

SSALAB_FN int __st_hi(int x)
{
    return __st_sext16(((unsigned int)x >> 16) & 0xffffu);
}

SSALAB_FN int __st_pack(int hi, int lo)
{
    return (int)((((unsigned int)hi & 0xffffu) << 16) | ((unsigned int)lo & 0xffffu));
}

SSALAB_FN int __st_addp(int a, int b)
{
    unsigned int ua = (unsigned int)a, ub = (unsigned int)b;
    unsigned int lo = (ua + ub) & 0xffffu;
    unsigned int hi = ((ua >> 16) + (ub >> 16)) & 0xffffu;
    return (int)((hi << 16) | lo);
}

SSALAB_FN int __st_subp(int a, int b)
{
    unsigned int ua = (unsigned int)a, ub = (unsigned int)b;
    unsigned int lo = (ua - ub) & 0xffffu;
    unsigned int hi = ((ua >> 16) - (ub >> 16)) & 0xffffu;
    return (int)((hi << 16) | lo);
}

/* |product| <= 2^30, so the int multiplication cannot overflow. */
SSALAB_FN int __st_mpy(int a, int b)
{
    return __st_lo(a) * __st_lo(b);
}

SSALAB_FN int __st_mpyhh(int a, int b)
{
    return __st_hi(a) * __st_hi(b);
}

SSALAB_FN int __st_mac(int acc, int a, int b)
{
    return (int)((unsigned int)acc + (unsigned int)__st_mpy(a, b));
}

SSALAB_FN int __st_msu(int acc, int a, int b)
{
    return (int)((unsigned int)acc - (unsigned int)__st_mpy(a, b));
}

SSALAB_FN int __st_machh(int acc, int a, int b)
{
    return (int)((unsigned int)acc + (unsigned int)__st_mpyhh(a, b));
}

#endif /* SSALAB_H */
