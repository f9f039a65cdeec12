/* Shifts: arithmetic right shift of negative signed values (implementation-defined; gcc and
   ssalab's subset both shift arithmetically), logical right shift of unsigned values, shift
   counts in variables over the whole range 0..31, shifts of promoted narrow operands, and
   compound <<= / >>=.  No shift count reaches 32 and no negative value is shifted left. */
#include "ssalab.h"

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

static int sar(int x, int n) { return x >> n; }
static unsigned int shr(unsigned int x, int n) { return x >> n; }
static unsigned int shl(unsigned int x, int n) { return x << n; }

int main(void)
{
    unsigned int h = 0;
    int n;
    put(-1 >> 1);
    put(-2 >> 1);
    put(-3 >> 1);
    put(-7 >> 2);
    put((-2147483647 - 1) >> 31);
    put((-2147483647 - 1) >> 1);
    put(2147483647 >> 30);
    put(1 << 30);
    put((int)(1u << 31));
    put((int)(0x80000000u >> 31));
    put((int)(0xffffffffu >> 16));
    put(-100 >> 0);
    for (n = 0; n < 32; n++) {
        h = h * 31u + (unsigned int)sar(-123456789, n);
        h = h * 31u + shr(0xdeadbeefu, n);
        h = h * 31u + shl(0x12345u, n);
        h = h * 31u + (unsigned int)sar(0x7edcba98, n);
    }
    put((int)(h >> 1));
    put(sar(-1, 31) + sar(-2147483647 - 1, 31) * 10 + sar(1073741824, 30) * 100);
    /* Narrow operands are promoted before shifting. */
    {
        signed char c = -128;
        unsigned char uc = 0x81;
        short s = -32768;
        unsigned short us = 0x8001;
        put(c >> 3);           /* -16 */
        put(uc >> 3);          /* 16 */
        put(uc << 4);          /* 0x810: int, not truncated */
        put(s >> 15);          /* -1 */
        put(us >> 15);         /* 1 */
        put(us << 8);          /* 0x800100 */
        put((unsigned char)(uc << 1));
        put((short)(us << 1)); /* 0x10002 truncated: 2 */
        put((int)((unsigned int)uc << 24 >> 24));
        put((signed char)(uc << 1) >> 1); /* (signed char)0x02 >> 1 */
    }
    /* Shift count of another type; shifts inside expressions. */
    {
        unsigned char k = 5;
        short m = 3;
        int x = 1000;
        put(x << k);
        put(x >> m);
        put(x >> k << m);
        put((x << 2) + (x >> 2));
        put(-x >> k);
    }
    /* Compound forms on several types. */
    {
        int a = -1000;
        unsigned int b = 0xf0000000u;
        short s = 0x0ff0;
        unsigned char uc = 0xff;
        signed char sc = -64;
        a >>= 3;
        put(a);
        b >>= 4;
        put((int)b);
        b <<= 3;
        put((int)(b >> 1));
        s <<= 4;               /* 0xff00 stored into short: -256 */
        put(s);
        s >>= 2;
        put(s);
        uc <<= 1;              /* 0x1fe truncated: 0xfe */
        put(uc);
        uc >>= 7;
        put(uc);
        sc >>= 3;
        put(sc);
    }
    /* Rotate and field extraction built from shifts. */
    {
        unsigned int v = 0x89abcdefu;
        int r;
        for (r = 1; r < 32; r += 7)
            put((int)(((v << r) | (v >> (32 - r))) >> 4));
        put((int)((v >> 8) & 0xffu));
        put((int)(v << 28 >> 28));
        put((int)v >> 28);     /* implementation-defined conversion, then arithmetic shift */
    }
    return 0;
}
