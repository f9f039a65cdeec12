/* Operators: the comma operator (in expressions, for headers and arguments), every compound
   assignment (+= -= *= /= %= <<= >>= &= |= ^=) on int, unsigned, char, signed char, unsigned
   char, short and unsigned short (the narrow ones truncate on the store), += and -= on pointers,
   pre/post ++ and -- on narrow types and pointers, short-circuit && and || with side effects,
   nested ?:, unary operators, and the value of an assignment expression. */
#include "ssalab.h"

static int calls;

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

static int side(int v)
{
    calls++;
    return v;
}

/* &= comes before <<= so that no negative value is shifted left. */
#define ALL_COMPOUND(T, x, h)                      \
    do {                                           \
        x += (T)7;    h = h * 31u + (unsigned int)x; \
        x -= (T)100;  h = h * 31u + (unsigned int)x; \
        x *= (T)3;    h = h * 31u + (unsigned int)x; \
        x /= (T)2;    h = h * 31u + (unsigned int)x; \
        x %= (T)50;   h = h * 31u + (unsigned int)x; \
        x &= (T)0x5d; h = h * 31u + (unsigned int)x; \
        x <<= 3;      h = h * 31u + (unsigned int)x; \
        x >>= 1;      h = h * 31u + (unsigned int)x; \
        x |= (T)0x22; h = h * 31u + (unsigned int)x; \
        x ^= (T)0x7f; h = h * 31u + (unsigned int)x; \
    } while (0)

int main(void)
{
    int i = 5, j, k;
    unsigned int h;

    /* Comma operator. */
    j = (i++, i * 10);
    put(j);
    k = (j = 3, j += 4, j * 2);
    put(k);
    for (i = 0, j = 10; i < j; i += 2, j--)
        ;
    put(i * 100 + j);
    calls = 0;
    k = (side(1), side(2), calls);
    put(k);
    put((side(5), 6) + (k++, 7));
    put(k);

    /* Compound assignment on every type. */
    {
        int xi = -40;
        unsigned int xu = 40u;
        char xc = 40;
        signed char xs = -40;
        unsigned char xuc = 200;
        short xsh = 3000;
        unsigned short xus = 60000;
        h = 0;
        ALL_COMPOUND(int, xi, h);
        put((int)(h >> 1));
        put(xi);
        h = 0;
        ALL_COMPOUND(unsigned int, xu, h);
        put((int)(h >> 1));
        put((int)xu);
        h = 0;
        ALL_COMPOUND(char, xc, h);
        put((int)(h >> 1));
        put(xc);
        h = 0;
        ALL_COMPOUND(signed char, xs, h);
        put((int)(h >> 1));
        put(xs);
        h = 0;
        ALL_COMPOUND(unsigned char, xuc, h);
        put((int)(h >> 1));
        put(xuc);
        h = 0;
        ALL_COMPOUND(short, xsh, h);
        put((int)(h >> 1));
        put(xsh);
        h = 0;
        ALL_COMPOUND(unsigned short, xus, h);
        put((int)(h >> 1));
        put(xus);
    }
    /* Narrow compound assignments whose int result does not fit. */
    {
        unsigned char uc = 250;
        signed char sc = 100;
        short s = 30000;
        unsigned short us = 65535;
        uc += 10;
        sc += 100;
        s += s;
        us *= 3;   /* 196605 in int, stored modulo 2^16 */
        put(uc + sc * 1000);
        put(s);
        put(us);
        uc = 3;
        uc -= 5;
        put(uc);
        sc = -128;
        sc /= -1;  /* 128 in int, stored as -128 */
        put(sc);
    }
    /* Increments and decrements. */
    {
        unsigned char uc = 255;
        signed char sc = -128;
        short s = 32767;
        unsigned short us = 0;
        char c = 'a';
        int a[5] = { 10, 20, 30, 40, 50 };
        int *p = a;
        short sa[3] = { 7, 8, 9 };
        short *sp = &sa[2];
        put(uc++);
        put(uc);
        put(--sc);
        put(s++);
        put(s);
        put(us--);
        put(us);
        put(++c);
        put(c--);
        put(c);
        put(*p++);
        put(*++p);
        put(++*p);
        put((*p)--);
        put(*p);
        put(p++ - a);
        put((int)(p - a));
        p += 1;
        put(*p);
        p -= 4;
        put(*p);
        put(*sp--);
        put(*sp);
        put(*--sp);
        put((int)(sp - sa));
    }
    /* Short-circuit evaluation. */
    calls = 0;
    put(side(0) && side(1));
    put(calls);
    put(side(2) || side(3));
    put(calls);
    put(side(0) || (side(0) && side(5)) || side(4));
    put(calls);
    i = 0;
    put(i != 0 && 10 / i > 1);
    /* Nested ?: and unary operators. */
    for (i = -2; i <= 2; i++)
        print_int(i < 0 ? (i < -1 ? -2 : -1) : i == 0 ? 0 : i > 1 ? 2 : 1);
    print_char('\n');
    i = 12;
    put(-i + ~i + !i + !!i + +i);
    put((int)-(unsigned int)i > 0);
    /* Assignment expressions have values. */
    {
        int a, b, c;
        a = b = c = 17;
        put(a + b + c);
        if ((a = 4) == 4 && (b += a) == 21)
            put(b);
        c = (a *= 2) + (b -= 1);
        put(c);
    }
    return 0;
}
