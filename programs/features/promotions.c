/* Integer promotions and conversions: char/short/unsigned mixes, truncation on narrow stores
   and casts, sign and zero extension on loads, comparisons between signed and unsigned operands,
   and the type of ?: with mixed operands.  Out-of-range conversions to signed types are
   implementation-defined (modulo 2^N on gcc and in ssalab's C subset); nothing here is
   undefined. */
#include "ssalab.h"

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

static signed char sbytes[4] = { -1, 127, -128, 5 };
static unsigned char ubytes[4] = { 255, 127, 128, 5 };
static short shorts[3] = { -1, 32767, -32768 };
static unsigned short ushorts[3] = { 65535, 32767, 32768 };

static int widen_char(char c) { return c; }
static int widen_uchar(unsigned char c) { return c; }
static unsigned int widen_to_unsigned(short s) { return (unsigned int)s; }
static short narrow_ret(int v) { return (short)v; }

int main(void)
{
    char c = 'A';
    unsigned char uc = 250;
    signed char sc = -100;
    short s = -300;
    unsigned short us = 65000;
    int i = -7;
    unsigned int u = 3;

    /* Arithmetic on narrow types happens in int. */
    put(c + 1);
    put(uc + 10);               /* 260, no wrap: promoted */
    put((unsigned char)(uc + 10));
    put(sc * 2);                /* -200 */
    put((signed char)(sc * 2)); /* 56 */
    put(s * s);                 /* 90000 */
    put((short)(s * s));        /* 24464 */
    put(us + us);               /* 130000 */
    put((unsigned short)(us + us));
    put(~uc);                   /* ~250 as int: -251 */
    put(-uc);                   /* -250 */
    put(uc >> 1);
    put(sc >> 1);               /* arithmetic: -50 */

    /* Truncating stores. */
    c = (char)200;
    put(c);                     /* -56 */
    uc = (unsigned char)-1;
    put(uc);                    /* 255 */
    s = (short)70000;
    put(s);                     /* 4464 */
    us = (unsigned short)-2;
    put(us);                    /* 65534 */
    {
        short acc = 0;
        int k;
        for (k = 0; k < 50; k++)
            acc = (short)(acc + 1000); /* wraps through the narrow store */
        put(acc);                      /* 50000 - 65536 */
        acc = 32767;
        acc++;                         /* computed in int, converted back */
        put(acc);
        uc = 0;
        uc--;
        put(uc);
        c = 127;
        c++;
        put(c);
    }

    /* Loads extend by the declared type. */
    put(sbytes[0] + sbytes[1] + sbytes[2] + sbytes[3]);
    put(ubytes[0] + ubytes[1] + ubytes[2] + ubytes[3]);
    put(shorts[0] + shorts[1] + shorts[2]);
    put(ushorts[0] + ushorts[1] + ushorts[2]);
    put(widen_char((char)0xf0));
    put(widen_uchar(0xf0));
    put((int)(widen_to_unsigned(-1) >> 16));
    put(narrow_ret(0x12345678));
    put(narrow_ret(0x0000ffff));

    /* Signed / unsigned mixes.  gcc's -Wsign-compare flags exactly the implicit conversions
       tested here, so it is silenced for this stretch (ssalab ignores the pragma). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
    put(-1 < 1u);               /* 0: -1 becomes UINT_MAX */
    put(-1 < (unsigned char)1); /* 1: unsigned char promotes to int */
    put(-1 < (unsigned short)1);
    put(i < (int)u);
    put(i < u);                 /* 0 */
    put((int)(i / u));          /* (2^32 - 7) / 3 = 1431655763 */
    put((int)(i % u));          /* (2^32 - 7) % 3 = 0 */
    put(i / (int)u);            /* -2 */
    put((int)((unsigned int)i >> 28));
    put((int)(0u - 1u == 4294967295u));
    put((unsigned char)200 > (signed char)-1);
    put((unsigned short)40000 > (short)-1);
    {
        unsigned int big = 3000000000u;
        int neg = -5;
        put((int)(big / 1000u));
        put(big > 2000000000);      /* int converted to unsigned */
        put((int)big < 0);          /* modulo conversion to int */
        put((int)(big + (unsigned int)neg) == (int)2999999995u);
        put(neg + u > 0);           /* -5 + 3u wraps: 1 */
    }
    /* ?: with mixed operand types. */
    put((i < 0 ? -1 : 1u) > 0);     /* unsigned result: 1 */
    put((i < 0 ? -1 : (unsigned char)1) > 0); /* int result: 0 */
    put((int)(sizeof(i < 0 ? (short)1 : (char)2)));
#pragma GCC diagnostic pop
    /* Casts between widths. */
    put((signed char)0x80);
    put((int)(unsigned char)-1);
    put((short)(unsigned short)40000);
    put((int)(unsigned short)(short)-40);
    put((char)'\xff' == -1);
    put((unsigned char)'\xff');
    /* Spelled-out type names, and long used only within the range where ILP32 and the host's
       LP64 agree (no overflow of 32 bits, no width-dependent conversion). */
    {
        signed sg = -3;
        signed int si = -4;
        short int shi = -5;
        unsigned short int usi = 6;
        long int li = -100000L;
        unsigned long ul = 3000000000UL;
        long l2 = 7;
        signed char sch = -6;
        put(sg + si + shi + usi + sch);
        put((int)(li * 20 / 3));
        put((int)(ul / 1000UL));
        put((int)(l2 << 20));
        put(li < l2);
        put((int)(li % 7L));
        put((int)((long)shi * usi));
        put(sizeof(long) >= sizeof(int));
    }
    return 0;
}
