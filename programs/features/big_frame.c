/* Large stack frames: every frame access beyond every immediate range.
   ST120 loads/stores reach SP + 511 bytes (byte), 1022 (half), 2044 (word) and ADDBA/ADDHA/
   ADDWA.i the same; ST231 takes 32-bit offsets. Here:
   - `bytes600`: a 600-byte char array: byte loads and stores at SP + 512..600;
   - `halves5000`: a 5000-byte short array: half accesses beyond 1022 and 2044 bytes;
   - `words70000`: a 70000-byte int array (beyond 64 KiB and beyond the 16-bit MAKE range
     in words when scaled by 1), with address-taking at both ends;
   - `all_three`: char, short and int arrays of 600, 5000 and 70000 bytes in one frame, small
     address-taken scalars, 20 values live across calls (callee-saved registers and spill
     slots), and seven arguments (the stack-passed ones sit above the 75 KiB frame);
   - `deep`: recursion through a big frame (every activation at its own SP). */
#include "ssalab.h"

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

/* Sums first and last element through a pointer (address-taking of both ends). */
static int ends_c(const signed char *p, int n)
{
    return p[0] * 1000 + p[n - 1];
}

static int ends_s(const short *p, int n)
{
    return p[0] * 3 + p[n - 1];
}

static int ends_i(const int *p, int n)
{
    return p[0] - p[n - 1];
}

static void set_i(int *p, int v)
{
    *p = v;
}

int bytes600(int seed)
{
    signed char c[600];
    unsigned char u[600];
    int i;
    unsigned s = 0;
    for (i = 0; i < 600; i++) {
        c[i] = (signed char)(i * 7 + seed);
        u[i] = (unsigned char)(i * 13 + seed);
    }
    c[0] = 1;
    c[511] = 9;
    c[512] = -10;
    c[599] = (signed char)(seed + 3);
    u[599] = 250;
    s = (unsigned)(c[0] + c[511] * 3 + c[512] * 5 + c[599] * 7) + u[599] + u[598] + u[0];
    for (i = 0; i < 600; i += 37)
        s = s * 31u + (unsigned)c[i] + u[599 - i];
    s += (unsigned)ends_c(&c[0], 600);
    s += (unsigned)ends_c(&c[500], 100);
    return (int)(s & 0x7fffffff);
}

int halves5000(int seed)
{
    short h[2500];
    unsigned short uh[2500];
    int i;
    unsigned s = 0;
    for (i = 0; i < 2500; i++) {
        h[i] = (short)(i * 11 - seed);
        uh[i] = (unsigned short)(i * 29 + seed);
    }
    h[0] = -7;
    h[511] = 511;
    h[512] = 512;
    h[1022] = -1022;
    h[1023] = 1023;
    h[2499] = (short)(seed * 3);
    uh[2499] = 65000;
    s = (unsigned)(h[0] + h[511] + h[512] + h[1022] + h[1023] + h[2499]) + uh[2499] + uh[0];
    for (i = 0; i < 2500; i += 101)
        s = s * 17u + (unsigned)h[i] + uh[2499 - i];
    s += (unsigned)ends_s(&h[0], 2500);
    s += (unsigned)ends_s(&h[2000], 500);
    return (int)(s & 0x7fffffff);
}

int words70000(int seed)
{
    int w[17500];
    int i;
    unsigned s = 0;
    for (i = 0; i < 17500; i++)
        w[i] = i * 3 + seed;
    w[0] = 5;
    w[511] = 511;
    w[512] = -512;
    w[8191] = 8191;
    w[8192] = 8192;
    w[17499] = seed - 1;
    set_i(&w[17498], 42);
    set_i(&w[1], 43);
    s = (unsigned)(w[0] + w[1] + w[511] + w[512] + w[8191] + w[8192] + w[17498] + w[17499]);
    for (i = 0; i < 17500; i += 997)
        s = s * 7u + (unsigned)w[i];
    s += (unsigned)ends_i(&w[0], 17500);
    s += (unsigned)ends_i(&w[17000], 500);
    return (int)(s & 0x7fffffff);
}

int all_three(int a, int b, int c, int d, int e, int f, int g)
{
    signed char cs[600];
    short hs[2500];
    int ws[17500];
    int x = a, y = b;
    int v0 = a + 1, v1 = b * 2, v2 = c - 3, v3 = d ^ 4, v4 = e + 5, v5 = f * 6, v6 = g - 7;
    int v7 = a * b, v8 = c + d, v9 = e - f, v10 = g + a, v11 = b - c, v12 = d + e;
    int v13 = f - g, v14 = a ^ c, v15 = b + d, v16 = e * 3, v17 = f + 9, v18 = g * 5, v19 = a - g;
    int i;
    unsigned s;
    for (i = 0; i < 600; i++)
        cs[i] = (signed char)(i + a);
    for (i = 0; i < 2500; i++)
        hs[i] = (short)(i - b);
    for (i = 0; i < 17500; i++)
        ws[i] = i ^ c;
    set_i(&x, ends_c(&cs[0], 600));
    set_i(&y, ends_s(&hs[0], 2500) + ends_i(&ws[0], 17500));
    cs[599] = (signed char)(v0 + v19);
    hs[2499] = (short)(v1 + v18);
    ws[17499] = v2 + v17;
    s = (unsigned)(x + y) + (unsigned)cs[599] + (unsigned)hs[2499] + (unsigned)ws[17499];
    s += (unsigned)(cs[0] + hs[0] + ws[0]);
    s += (unsigned)(v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9);
    s += (unsigned)(v10 + v11 + v12 + v13 + v14 + v15 + v16 + v17 + v18 + v19);
    s += (unsigned)(e * 100 + f * 10 + g);
    return (int)(s & 0x7fffffff);
}

int deep(int n)
{
    short buf[1200];
    int i;
    for (i = 0; i < 1200; i++)
        buf[i] = (short)(n * 100 + i);
    if (n > 0)
        buf[1199] = (short)(buf[1199] + deep(n - 1));
    return buf[0] + buf[1199] + buf[600];
}

int main(void)
{
    put(bytes600(3));
    put(bytes600(-100));
    put(halves5000(5));
    put(halves5000(-300));
    put(words70000(7));
    put(words70000(-70000));
    put(all_three(1, 2, 3, 4, 5, 6, 7));
    put(all_three(-9, 8, -7, 6, -5, 4, -3));
    put(deep(4));
    return 0;
}
