/* Signed and unsigned division and remainder, including negative operands (C99: the quotient
   truncates toward zero and (a / b) * b + a % b == a), division by powers of two and by other
   constants (which compilers strength-reduce), by variables, on narrow types, and compound
   /= and %=.  INT_MIN / -1 is undefined and is not done. */
#include "ssalab.h"

#define INT_MIN_ (-2147483647 - 1)
#define INT_MAX_ 2147483647

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

static void pair(int q, int r)
{
    print_int(q);
    print_char(' ');
    print_int(r);
    print_char('\n');
}

static int divv(int a, int b) { return a / b; }
static int modv(int a, int b) { return a % b; }
static unsigned int udivv(unsigned int a, unsigned int b) { return a / b; }
static unsigned int umodv(unsigned int a, unsigned int b) { return a % b; }

int main(void)
{
    static const int nums[] = { 7, -7, 0, 1, -1, 13, -13, 100, -100, INT_MAX_, INT_MIN_, INT_MIN_ + 1 };
    static const int dens[] = { 2, -2, 3, -3, 4, -4, 7, -7, 8, 10, -16, 1 };
    unsigned int h = 0;
    int i, j, ok = 1;
    pair(7 / 2, 7 % 2);
    pair(-7 / 2, -7 % 2);
    pair(7 / -2, 7 % -2);
    pair(-7 / -2, -7 % -2);
    pair(divv(-7, 2), modv(-7, 2));
    pair(divv(7, -2), modv(7, -2));
    pair(divv(INT_MIN_, 2), modv(INT_MIN_, 2));
    pair(divv(INT_MIN_, 7), modv(INT_MIN_, 7));
    pair(divv(INT_MIN_, INT_MIN_), modv(INT_MIN_, INT_MAX_));
    pair(divv(INT_MAX_, -1), modv(INT_MAX_, -1));
    for (i = 0; i < (int)(sizeof(nums) / sizeof(nums[0])); i++)
        for (j = 0; j < (int)(sizeof(dens) / sizeof(dens[0])); j++) {
            int a = nums[i], b = dens[j];
            int q = divv(a, b), r = modv(a, b);
            /* q * b + r == a, |r| < |b|, r has the sign of a (or is 0) */
            if ((unsigned int)q * (unsigned int)b + (unsigned int)r != (unsigned int)a)
                ok = 0;
            if (r != 0 && (r < 0) != (a < 0))
                ok = 0;
            h = h * 31u + (unsigned int)q * 7u + (unsigned int)r;
        }
    put(ok);
    put((int)(h >> 1));
    /* Constant divisors: power-of-two and "magic number" cases. */
    ok = 1;
    h = 0;
    for (i = -40; i <= 40; i++) {
        h = h * 3u + (unsigned int)(i / 4) + (unsigned int)(i % 4) * 5u;
        h = h * 3u + (unsigned int)(i / 8) + (unsigned int)(i % 8) * 5u;
        h = h * 3u + (unsigned int)(i / 7) + (unsigned int)(i % 7) * 5u;
        h = h * 3u + (unsigned int)(i / -3) + (unsigned int)(i % -3) * 5u;
        h = h * 3u + (unsigned int)(i / 10) + (unsigned int)(i % 10) * 5u;
        if (i / 4 != divv(i, 4) || i % 10 != modv(i, 10) || i / -3 != divv(i, -3))
            ok = 0;
    }
    put(ok);
    put((int)(h >> 1));
    put(INT_MIN_ / 4);
    put(INT_MIN_ % 4);
    put(INT_MAX_ / 10);
    put(INT_MIN_ / 10);
    put(INT_MIN_ % 10);
    /* Unsigned. */
    put((int)(0xffffffffu / 7u));
    put((int)(0xffffffffu % 7u));
    put((int)udivv(0xfffffff0u, 16u));
    put((int)umodv(0x80000000u, 3u));
    put((int)udivv(5u, 0xffffffffu));
    put((int)(udivv(0xffffffffu, 0xfffffffeu) + umodv(0xffffffffu, 0xfffffffeu) * 10u));
    put((int)((unsigned int)-7 / 2u > 0x7fffffffu));
    /* Narrow operands promote to int. */
    {
        short s = -7, t = 2;
        signed char c = -128;
        unsigned char uc = 255;
        unsigned short us = 65535;
        put(s / t);
        put(s % t);
        put(c / -1);       /* 128: int division, no overflow */
        put(c % 3);
        put(uc / -2);      /* unsigned char promotes to int: -127 */
        put(us / -1);
        put((short)(us / 3));
    }
    /* Compound forms. */
    {
        int x = -1000;
        unsigned int y = 1000000u;
        short z = -30000;
        x /= 7;
        put(x);
        x %= -9;
        put(x);
        y /= 3u;
        y %= 1000u;
        put((int)y);
        z /= 4;
        put(z);
        z %= 13;
        put(z);
    }
    return 0;
}
