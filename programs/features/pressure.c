/* Register pressure and calling-convention corners for the back ends:
   - `fir16`: a 16-tap FIR with every coefficient and all 16 delayed samples kept in local
     variables across the loop (34 values live in the loop body: spills at --regs 8, and on
     the ST120's 16 data registers);
   - `across_calls`: 20 values live across calls (callee-saved registers, then spills);
   - `mixed`: pointer and integer arguments interleaved, 4 pointers and 5 integers (ST120
     passes integers in R0-R3 and pointers in P0-P2, separately: both spill to the stack);
   - `swap_loop`: values rotated every iteration (the swap problem of out-of-SSA);
   - recursion with a division (and a remainder) in every activation. */
#include "ssalab.h"

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

int fir16(const short *x, int n, const short *h)
{
    int h0 = h[0], h1 = h[1], h2 = h[2], h3 = h[3], h4 = h[4], h5 = h[5], h6 = h[6], h7 = h[7];
    int h8 = h[8], h9 = h[9], h10 = h[10], h11 = h[11], h12 = h[12], h13 = h[13], h14 = h[14],
        h15 = h[15];
    int d0 = 0, d1 = 0, d2 = 0, d3 = 0, d4 = 0, d5 = 0, d6 = 0, d7 = 0;
    int d8 = 0, d9 = 0, d10 = 0, d11 = 0, d12 = 0, d13 = 0, d14 = 0, d15 = 0;
    int acc = 0, i;
    for (i = 0; i < n; i++) {
        d15 = d14; d14 = d13; d13 = d12; d12 = d11; d11 = d10; d10 = d9; d9 = d8; d8 = d7;
        d7 = d6; d6 = d5; d5 = d4; d4 = d3; d3 = d2; d2 = d1; d1 = d0; d0 = x[i];
        acc += (h0 * d0 + h1 * d1 + h2 * d2 + h3 * d3 + h4 * d4 + h5 * d5 + h6 * d6 + h7 * d7 +
                h8 * d8 + h9 * d9 + h10 * d10 + h11 * d11 + h12 * d12 + h13 * d13 +
                h14 * d14 + h15 * d15) >> 8;
    }
    return acc;
}

static int g_calls;

int bump(int v)
{
    g_calls++;
    return v * 3 + 1;
}

int across_calls(int s)
{
    int a = s + 1, b = s + 2, c = s * 3, d = s - 4, e = s ^ 5, f = s * 4, g = s >> 1;
    int h = s * s, i = s + 100, j = s - 100, k = ~s, l = s & 255, m = s | 4096, n = s * 7;
    int o = s + 11, p = s + 13, q = s * 17, r = s - 19, t = s + 23, u = s * 29;
    int x = bump(a) + bump(b);
    int y = bump(x) - bump(c);
    return a + b + c + d + e + f + g + h + i + j + k + l + m + n + o + p + q + r + t + u + x +
           y;
}

int mixed(int *p0, int i0, int *p1, int i1, int *p2, int i2, int *p3, int i3, int i4)
{
    *p0 += i0;
    *p1 += i1 * 2;
    *p2 += i2 * 3;
    *p3 += i3 * 4 + i4;
    return *p0 + *p1 + *p2 + *p3;
}

int swap_loop(int n)
{
    int a = 1, b = 2, c = 3, t;
    while (n-- > 0) {
        t = a;
        a = b;
        b = c;
        c = t + a;
    }
    return a * 100 + b * 10 + c;
}

int digits(int v)
{
    if (v < 10 && v > -10)
        return 1;
    return 1 + digits(v / 10);
}

int digit_sum(int v)
{
    return v == 0 ? 0 : v % 10 + digit_sum(v / 10);
}

int main(void)
{
    short x[40];
    short h[16];
    int cells[4] = {1, 2, 3, 4};
    int i;
    for (i = 0; i < 40; i++)
        x[i] = (short)((i * 37) % 23 - 11);
    for (i = 0; i < 16; i++)
        h[i] = (short)(i * 5 - 40);
    put(fir16(x, 40, h));
    put(across_calls(9));
    put(across_calls(-3000));
    put(g_calls);
    put(mixed(&cells[0], 5, &cells[1], 6, &cells[2], 7, &cells[3], 8, 9));
    put(cells[0] * 1000 + cells[1] * 100 + cells[2] * 10 + cells[3]);
    put(swap_loop(10));
    put(digits(-2147483647 - 1));
    put(digits(1000000007));
    put(digit_sum(-2147483647 - 1));
    put(digit_sum(987654321));
    return 17;
}
