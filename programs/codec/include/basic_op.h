/* basic_op.h -- types, limits and prototypes of the ETSI-style fixed-point basic operators
   used by the speech-codec programs in programs/codec/.

   Word16 is `short` and Word32 is `int`: both are 16 and 32 bits under ILP32 (ssalab's data
   model) and under the host's LP64, so every program prints the same on both.  `long` is not
   used for Word32 because it is 64 bits on an LP64 host.

   The operators follow the published semantics of the ETSI/3GPP basic operator set
   (saturating 16- and 32-bit arithmetic, a global `Overflow` flag that saturation sets and only
   callers clear); the code in basic_op.c is ours.  Not a header in the library sense: each
   program includes basic_op.c (which includes this file), so the whole codec is one
   translation unit. */
#ifndef CODEC_BASIC_OP_H
#define CODEC_BASIC_OP_H

typedef short Word16;
typedef int Word32;
typedef int Flag;

#define MAX_16 ((Word16)32767)
#define MIN_16 ((Word16)-32768)
#define MAX_32 ((Word32)2147483647)
#define MIN_32 ((Word32)(-2147483647 - 1))

/* Set to 1 by every operator that saturates; never cleared by an operator. */
extern Flag Overflow;

/* 16-bit operators. */
Word16 saturate(Word32 L_var1);
Word16 add(Word16 var1, Word16 var2);
Word16 sub(Word16 var1, Word16 var2);
Word16 abs_s(Word16 var1);
Word16 negate(Word16 var1);
Word16 shl(Word16 var1, Word16 var2);
Word16 shr(Word16 var1, Word16 var2);
Word16 shr_r(Word16 var1, Word16 var2);
Word16 mult(Word16 var1, Word16 var2);
Word16 mult_r(Word16 var1, Word16 var2);
Word16 norm_s(Word16 var1);
Word16 div_s(Word16 var1, Word16 var2);

/* Conversions between 16 and 32 bits. */
Word16 extract_h(Word32 L_var1);
Word16 extract_l(Word32 L_var1);
Word16 round_fx(Word32 L_var1);
Word32 L_deposit_h(Word16 var1);
Word32 L_deposit_l(Word16 var1);

/* 32-bit operators. */
Word32 L_add(Word32 L_var1, Word32 L_var2);
Word32 L_sub(Word32 L_var1, Word32 L_var2);
Word32 L_negate(Word32 L_var1);
Word32 L_abs(Word32 L_var1);
Word32 L_mult(Word16 var1, Word16 var2);
Word32 L_mac(Word32 L_var3, Word16 var1, Word16 var2);
Word32 L_msu(Word32 L_var3, Word16 var1, Word16 var2);
Word32 L_shl(Word32 L_var1, Word16 var2);
Word32 L_shr(Word32 L_var1, Word16 var2);
Word32 L_shr_r(Word32 L_var1, Word16 var2);
Word16 norm_l(Word32 L_var1);

/* Double-precision format ("DPF"): a 32-bit value x held as hi = x >> 16 and
   lo = (x - hi * 2^16) >> 1, so x = hi * 2^16 + lo * 2. */
void L_Extract(Word32 L_32, Word16 *hi, Word16 *lo);
Word32 L_Comp(Word16 hi, Word16 lo);
Word32 Mpy_32(Word16 hi1, Word16 lo1, Word16 hi2, Word16 lo2);
Word32 Mpy_32_16(Word16 hi, Word16 lo, Word16 n);
Word32 Div_32(Word32 L_num, Word16 denom_hi, Word16 denom_lo);

#endif /* CODEC_BASIC_OP_H */
