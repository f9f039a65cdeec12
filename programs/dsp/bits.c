/* Bit manipulation: bit reversal (loop, mask swaps, of an n-bit index for FFT addressing),
   population count (loop, Kernighan, SWAR, 4-bit table), count leading and trailing zeros,
   parity, rotation, and rounding up to a power of two.  All on unsigned int: no shift reaches
   the word width. */
#include "ssalab.h"

static const unsigned char nibble_pop[16] = { 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4 };

unsigned int bitrev_loop(unsigned int x)
{
    unsigned int r = 0;
    int i;
    for (i = 0; i < 32; i++) {
        r = (r << 1) | (x & 1u);
        x >>= 1;
    }
    return r;
}

unsigned int bitrev_swap(unsigned int x)
{
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
    return (x >> 16) | (x << 16);
}

/* Reverse the low `bits` bits of i (1 <= bits <= 31). */
int bitrev_index(int i, int bits)
{
    return (int)(bitrev_swap((unsigned int)i) >> (32 - bits));
}

int popcount_loop(unsigned int x)
{
    int n = 0;
    while (x) {
        n += (int)(x & 1u);
        x >>= 1;
    }
    return n;
}

int popcount_kernighan(unsigned int x)
{
    int n = 0;
    for (; x; n++)
        x &= x - 1u;
    return n;
}

int popcount_swar(unsigned int x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (int)((x * 0x01010101u) >> 24);
}

int popcount_table(unsigned int x)
{
    int n = 0;
    do {
        n += nibble_pop[x & 15u];
        x >>= 4;
    } while (x != 0);
    return n;
}

/* Leading zeros by binary search; clz(0) = 32. */
int clz32(unsigned int x)
{
    int n = 0;
    if (x == 0)
        return 32;
    if ((x & 0xffff0000u) == 0) { n += 16; x <<= 16; }
    if ((x & 0xff000000u) == 0) { n += 8; x <<= 8; }
    if ((x & 0xf0000000u) == 0) { n += 4; x <<= 4; }
    if ((x & 0xc0000000u) == 0) { n += 2; x <<= 2; }
    if ((x & 0x80000000u) == 0) n += 1;
    return n;
}

int ctz32(unsigned int x)
{
    int n = 0;
    if (x == 0)
        return 32;
    while (!(x & 1u)) {
        x >>= 1;
        n++;
    }
    return n;
}

int parity32(unsigned int x)
{
    x ^= x >> 16;
    x ^= x >> 8;
    x ^= x >> 4;
    return (int)((0x6996u >> (x & 15u)) & 1u);
}

unsigned int rotl32(unsigned int x, int r)
{
    r &= 31;
    return (x << r) | (x >> ((32 - r) & 31));
}

unsigned int next_pow2(unsigned int x)
{
    if (x <= 1u)
        return 1u;
    x--;
    x |= x >> 1;
    x |= x >> 2;
    x |= x >> 4;
    x |= x >> 8;
    x |= x >> 16;
    return x + 1u; /* 0 if x > 2^31 */
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

int main(void)
{
    static const unsigned int samples[] = {
        0u, 1u, 0x80000000u, 0xffffffffu, 0x12345678u, 0xdeadbeefu, 0x00f000f0u, 4294967295u - 6u,
    };
    unsigned int seed = 77777u, h = 0;
    int i, agree = 1, total = 0;
    for (i = 0; i < (int)(sizeof(samples) / sizeof(samples[0])); i++) {
        unsigned int x = samples[i];
        print_int((int)(bitrev_swap(x) >> 1));
        print_char(' ');
        print_int(popcount_swar(x));
        print_char(' ');
        print_int(clz32(x));
        print_char(' ');
        print_int(ctz32(x));
        print_char(' ');
        put_line(parity32(x));
    }
    for (i = 0; i < 600; i++) {
        unsigned int x;
        int p;
        seed = seed * 1664525u + 1013904223u;
        x = seed ^ (seed >> 13);
        p = popcount_loop(x);
        if (bitrev_loop(x) != bitrev_swap(x) || popcount_kernighan(x) != p ||
            popcount_swar(x) != p || popcount_table(x) != p || parity32(x) != (p & 1) ||
            rotl32(rotl32(x, i), 32 - (i & 31)) != x)
            agree = 0;
        total += p;
        h = h * 31u + (unsigned int)clz32(x >> (i & 31)) + (unsigned int)ctz32(x << (i & 31));
    }
    put_line(agree);
    put_line(total);
    put_line((int)(h >> 1));
    for (i = 0; i < 16; i++)
        total = total * 3 % 100003 + bitrev_index(i, 4);
    put_line(total);
    put_line(bitrev_index(1, 7));
    put_line((int)next_pow2(1000u));
    put_line((int)next_pow2(1024u));
    put_line((int)next_pow2(0x80000001u));
    put_line((int)(rotl32(0x80000001u, 4) >> 1));
    return 0;
}
