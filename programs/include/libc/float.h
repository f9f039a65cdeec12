/* float.h -- ssalab's freestanding header.  The subset has no floating-point types yet, so only
   the integer-valued characteristics of IEEE 754 binary32 (float) and binary64 (double, and
   long double as double) are given; they are the values of the host's float.h on the targets'
   ABI.  FLT_MAX, FLT_MIN, FLT_EPSILON and the other floating constants are left out: they
   need a floating type; so are FLT_EVAL_METHOD, DECIMAL_DIG and LDBL_*, which the host's i386
   ABI sets for the x87 (80-bit long double) and ssalab's targets would not. */
#ifndef _SSALAB_FLOAT_H
#define _SSALAB_FLOAT_H

#define FLT_RADIX 2
#define FLT_ROUNDS 1

#define FLT_MANT_DIG 24
#define FLT_DIG 6
#define FLT_MIN_EXP (-125)
#define FLT_MIN_10_EXP (-37)
#define FLT_MAX_EXP 128
#define FLT_MAX_10_EXP 38

#define DBL_MANT_DIG 53
#define DBL_DIG 15
#define DBL_MIN_EXP (-1021)
#define DBL_MIN_10_EXP (-307)
#define DBL_MAX_EXP 1024
#define DBL_MAX_10_EXP 308

#endif
