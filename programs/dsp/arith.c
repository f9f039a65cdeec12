/* Integer arithmetic kernels: greatest common divisor (Euclid by remainder, Euclid by
   subtraction, binary/Stein), least common multiple, integer square root (bit by bit and
   Newton), integer log2, and fixed-point saturating helpers in the style of the ETSI basic
   operators (16-bit add/sub/mult/abs/negate/shift, 32-bit add/sub/mult/mac, norm, div_s).
   Every saturating helper detects overflow before it happens: no signed overflow anywhere. */
#include "ssalab.h"

#define MAX_16 32767
#define MIN_16 (-32768)
#define MAX_32 2147483647
#define MIN_32 (-2147483647 - 1)

unsigned int gcd_mod(unsigned int a, unsigned int b)
{
    while (b) {
        unsigned int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int gcd_sub(int a, int b)
{
    if (a == 0)
        return b;
    while (b != 0) {
        if (a > b)
            a -= b;
        else
            b -= a;
    }
    return a;
}

unsigned int gcd_binary(unsigned int a, unsigned int b)
{
    int shift = 0;
    if (a == 0)
        return b;
    if (b == 0)
        return a;
    while (((a | b) & 1u) == 0) {
        a >>= 1;
        b >>= 1;
        shift++;
    }
    while ((a & 1u) == 0)
        a >>= 1;
    do {
        while ((b & 1u) == 0)
            b >>= 1;
        if (a > b) {
            unsigned int t = a;
            a = b;
            b = t;
        }
        b -= a;
    } while (b != 0);
    return a << shift;
}

unsigned int lcm(unsigned int a, unsigned int b)
{
    return a / gcd_mod(a, b) * b;
}

/* floor(sqrt(x)), one result bit per step. */
unsigned int isqrt_bits(unsigned int x)
{
    unsigned int r = 0, bit = 1u << 30;
    while (bit > x)
        bit >>= 2;
    while (bit != 0) {
        if (x >= r + bit) {
            x -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
        bit >>= 2;
    }
    return r;
}

unsigned int isqrt_newton(unsigned int x)
{
    unsigned int r, y;
    if (x < 2u)
        return x;
    r = x / 2u + 1u; /* > sqrt(x) for x >= 2 */
    y = (r + x / r) / 2u;
    while (y < r) {
        r = y;
        y = (r + x / r) / 2u;
    }
    return r;
}

int ilog2(unsigned int x)
{
    int n = -1;
    while (x) {
        x >>= 1;
        n++;
    }
    return n;
}

short sat16(int x)
{
    return (short)(x > MAX_16 ? MAX_16 : x < MIN_16 ? MIN_16 : x);
}

short add_s(short a, short b) { return sat16(a + b); }
short sub_s(short a, short b) { return sat16(a - b); }
short abs_s(short a) { return a == MIN_16 ? MAX_16 : (short)(a < 0 ? -a : a); }
short negate_s(short a) { return a == MIN_16 ? MAX_16 : (short)-a; }

/* Q15 product, rounded down; -1 * -1 saturates. */
short mult_s(short a, short b)
{
    return sat16((a * b) >> 15);
}

/* Saturating shift of a 16-bit value: left for n > 0, arithmetic right for n < 0. */
short shl_s(short a, int n)
{
    if (n < 0)
        return (short)(n <= -15 ? (a < 0 ? -1 : 0) : a >> -n);
    if (n > 15)
        return a == 0 ? 0 : a > 0 ? MAX_16 : MIN_16;
    return sat16(a * (1 << n));
}

int L_add(int a, int b)
{
    if (a > 0 && b > MAX_32 - a)
        return MAX_32;
    if (a < 0 && b < MIN_32 - a)
        return MIN_32;
    return a + b;
}

int L_sub(int a, int b)
{
    if (b > 0 && a < MIN_32 + b)
        return MIN_32;
    if (b < 0 && a > MAX_32 + b)
        return MAX_32;
    return a - b;
}

/* 2 * a * b; only -32768 * -32768 overflows. */
int L_mult(short a, short b)
{
    int p = a * b;
    return p == 0x40000000 ? MAX_32 : p * 2;
}

int L_mac(int acc, short a, short b)
{
    return L_add(acc, L_mult(a, b));
}

/* Left shifts needed to bring a non-zero a into [2^14, 2^15) or [-2^15, -2^14). */
int norm_s(short a)
{
    int n = 0, v = a;
    if (v == 0)
        return 0;
    if (v == -1)
        return 15;
    if (v < 0)
        v = ~v;
    while (v < 0x4000) {
        v <<= 1;
        n++;
    }
    return n;
}

int norm_l(int a)
{
    unsigned int v;
    int n = 0;
    if (a == 0)
        return 0;
    if (a == -1)
        return 31;
    v = a < 0 ? ~(unsigned int)a : (unsigned int)a;
    while (v < 0x40000000u) {
        v <<= 1;
        n++;
    }
    return n;
}

/* Q15 quotient num / den for 0 <= num <= den, den > 0: 15 restoring-division steps. */
short div_s(short num, short den)
{
    int q = 0, r = num, i;
    if (num == den)
        return MAX_16;
    for (i = 0; i < 15; i++) {
        r <<= 1;
        q <<= 1;
        if (r >= den) {
            r -= den;
            q |= 1;
        }
    }
    return (short)q;
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

int main(void)
{
    unsigned int seed = 31u, h = 0;
    int i, agree = 1;
    put_line((int)gcd_mod(1071u, 462u));
    put_line(gcd_sub(1071, 462));
    put_line((int)gcd_binary(1071u, 462u));
    put_line((int)gcd_binary(0u, 12u) + (int)gcd_binary(48u, 0u));
    put_line((int)lcm(21u, 6u));
    for (i = 0; i < 300; i++) {
        unsigned int a, b, g;
        seed = seed * 1103515245u + 12345u;
        a = (seed >> 8) % 50000u + 1u;
        seed = seed * 1103515245u + 12345u;
        b = ((seed >> 8) % 3000u + 1u) * (i % 7 + 1u);
        g = gcd_mod(a, b);
        if (g != gcd_binary(a, b) || (int)g != gcd_sub((int)a, (int)b) || a % g || b % g)
            agree = 0;
        h = h * 7u + g;
    }
    put_line(agree);
    put_line((int)(h >> 1));
    agree = 1;
    for (i = 0; i < 300; i++) {
        unsigned int x, r;
        seed = seed * 1664525u + 1013904223u;
        x = seed >> (i & 15);
        r = isqrt_bits(x);
        if (r != isqrt_newton(x) || r * r > x || (r < 65535u && (r + 1u) * (r + 1u) <= x))
            agree = 0;
    }
    put_line(agree);
    put_line((int)isqrt_bits(4294967295u));
    put_line((int)isqrt_newton(4294967295u));
    put_line((int)isqrt_bits(1000000u) + (int)isqrt_newton(99u));
    put_line(ilog2(1u) + ilog2(1024u) * 100 + ilog2(0xffffffffu) * 10000);
    put_line(add_s(30000, 30000));
    put_line(sub_s(-30000, 30000));
    put_line(add_s(-5, 7));
    put_line(abs_s(MIN_16) + negate_s(MIN_16) + abs_s(-7));
    put_line(mult_s(MIN_16, MIN_16));
    put_line(mult_s(16384, -16384));
    put_line(shl_s(1000, 5) + shl_s(-1000, 3));
    put_line(shl_s(-1000, 6));
    put_line(shl_s(-1000, -3));
    put_line(shl_s(12345, 20) + shl_s(-1, -40));
    put_line(L_add(MAX_32, 1));
    put_line(L_add(MIN_32, -1));
    put_line(L_add(-5, 3));
    put_line(L_sub(MIN_32, 1));
    put_line(L_sub(MAX_32, -1));
    put_line(L_sub(0, MIN_32));
    put_line(L_mult(MIN_16, MIN_16));
    put_line(L_mult(-3, 1000));
    {
        int acc = 0;
        for (i = 0; i < 10; i++)
            acc = L_mac(acc, 32767, 32767);
        put_line(acc);
    }
    put_line(norm_s(1) + norm_s(-2) * 100 + norm_s(0x4000) * 10000);
    put_line(norm_s(-32768) + norm_s(-1) * 100);
    put_line(norm_l(1) + norm_l(-1) * 100 + norm_l(0x12345) * 10000);
    put_line(norm_l(MIN_32));
    put_line(div_s(1, 2));
    put_line(div_s(1, 3));
    put_line(div_s(12345, 23456));
    put_line(div_s(100, 100));
    return 0;
}
