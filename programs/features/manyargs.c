/* Calls with many arguments: 7 and 8 (the register limit of the subset's ABIs) and 9 and 10
   (the rest go on the stack), with mixed types (char, short, unsigned, pointers) in every
   position, arguments that are themselves calls, recursion through a many-argument function,
   and a caller that forwards its own parameters in a rotated order (parallel copies at the
   call site). */
#include "ssalab.h"

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

/* Prototypes with unnamed parameters. */
int f7(int, int, int, int, int, int, int);
int f8(int, int, int, int, int, int, int, int);
unsigned int f10(unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
                 unsigned int, unsigned int, unsigned int, unsigned int, unsigned int);

int f7(int a, int b, int c, int d, int e, int f, int g)
{
    return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g;
}

int f8(int a, int b, int c, int d, int e, int f, int g, int h)
{
    return ((((((a * 3 + b) * 3 + c) * 3 + d) * 3 + e) * 3 + f) * 3 + g) * 3 + h;
}

int f9(char a, short b, unsigned char c, unsigned short d, int e, unsigned int f, const int *g,
       signed char h, int i)
{
    return a + b * 10 + c * 100 + d * 1000 + e + (int)(f >> 28) + *g + h * 7 + i * 11;
}

unsigned int f10(unsigned int a, unsigned int b, unsigned int c, unsigned int d, unsigned int e,
                 unsigned int f, unsigned int g, unsigned int h, unsigned int i, unsigned int j)
{
    return a ^ (b << 1) ^ (c << 2) ^ (d << 3) ^ (e << 4) ^ (f << 5) ^ (g << 6) ^ (h << 7) ^
           (i << 8) ^ (j << 9);
}

/* Ten parameters, the last ones from the stack, recursing with rotated arguments. */
int rot10(int n, int a, int b, int c, int d, int e, int f, int g, int h, int i)
{
    if (n == 0)
        return a * 1 + b * 2 + c * 3 + d * 4 + e * 5 + f * 6 + g * 7 + h * 8 + i * 9;
    return rot10(n - 1, i, a, b, c, d, e, f, g, h);
}

/* Pointer arguments in several positions: writes through the 8th and 10th. */
void outputs(int *p1, int v2, short *p3, int v4, char *p5, int v6, int v7, int *p8, int v9,
             int *p10)
{
    *p1 = v2 + v4;
    *p3 = (short)(v6 - v7);
    *p5 = (char)(v9 & 0x7f);
    *p8 = v2 * v9;
    *p10 = v4 + v6 + v7 + v9;
}

int forward8(int a, int b, int c, int d, int e, int f, int g, int h)
{
    return f8(h, a, b, c, d, e, f, g) - f8(b, a, d, c, f, e, h, g);
}

static int sq(int x) { return x * x; }

int main(void)
{
    int k = 1000, r1 = 0, r8 = 0, r10 = 0, i;
    short r3 = 0;
    char r5 = 0;
    put(f7(1, 2, 3, 4, 5, 6, 7));
    put(f7(-1, -2, -3, -4, -5, -6, -7));
    put(f8(1, 0, 2, 0, 1, 2, 1, 0));
    put(f8(2, 2, 2, 2, 2, 2, 2, 2));
    put(f9('A', -3, 200, 60000, -5, 0xf0000000u, &k, -100, 9));
    put((int)f10(1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 10u));
    put((int)f10(0xffffffffu, 0, 0, 0, 0, 0, 0, 0, 0, 0x80000000u) >> 1);
    for (i = 0; i <= 10; i++)
        put(rot10(i, 1, 2, 3, 4, 5, 6, 7, 8, 9));
    outputs(&r1, 11, &r3, 22, &r5, 33, 44, &r8, 300, &r10);
    put(r1);
    put(r3);
    put(r5);
    put(r8);
    put(r10);
    put(forward8(1, 2, 3, 4, 5, 6, 7, 8));
    put(f8(sq(1), sq(2), f7(1, 1, 1, 1, 1, 1, 1), sq(-1), 0, -sq(2), sq(3) % 4, f8(0, 0, 0, 0, 0, 0, 0, 5)));
    put(f7(f7(1, 0, 0, 0, 0, 0, 0), f7(0, 1, 0, 0, 0, 0, 0), f7(0, 0, 1, 0, 0, 0, 0), 1, 1, 1, 1));
    return 0;
}
