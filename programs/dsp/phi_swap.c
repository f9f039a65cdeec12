/* Loops whose SSA phis permute values: the classic "swap problem" and "lost copy problem" of
   out-of-SSA translation (Briggs et al.), Fibonacci-style rotations of two and three variables,
   conditional swaps, and values that stay live across loop exits.  After copy propagation these
   loops keep phis whose arguments are other phis of the same block. */
#include "ssalab.h"

/* Swap problem: a and b exchange every iteration. */
int swap_loop(int a, int b, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        int t = a;
        a = b;
        b = t;
    }
    return a * 100 + b;
}

/* Lost-copy problem: y is the value of x before the last increment, used after the loop. */
int lost_copy(int n)
{
    int x = 1, y;
    do {
        y = x;
        x = x + 1;
    } while (x < n);
    return y * 1000 + x;
}

/* Fibonacci with unsigned wrap-around: (a, b) <- (b, a + b). */
unsigned int fib(int n)
{
    unsigned int a = 0, b = 1;
    while (n-- > 0) {
        unsigned int t = a + b;
        a = b;
        b = t;
    }
    return a;
}

/* Tribonacci modulo 2^32: a three-way rotation. */
unsigned int trib(int n)
{
    unsigned int a = 0, b = 0, c = 1, i;
    for (i = 0; i < (unsigned int)n; i++) {
        unsigned int d = a + b + c;
        a = b;
        b = c;
        c = d;
    }
    return a ^ (b << 1) ^ (c << 2);
}

/* Rotation of four values by one place per iteration; after 4k iterations nothing moved. */
int rotate4(int n)
{
    int a = 1, b = 2, c = 3, d = 4;
    while (n--) {
        int t = a;
        a = b;
        b = c;
        c = d;
        d = t;
    }
    return ((a * 10 + b) * 10 + c) * 10 + d;
}

/* Conditional swap inside the loop: keeps (lo, hi) ordered while folding in new values. */
int minmax_fold(const int *v, int n)
{
    int lo = v[0], hi = v[0], i;
    for (i = 1; i < n; i++) {
        int x = v[i];
        if (x < lo) {
            int t = lo;
            lo = x;
            x = t;
        }
        if (x > hi) {
            int t = hi;
            hi = x;
            x = t;
        }
    }
    return hi - lo;
}

/* Euclid with a swap of the two operands on every step; both values live out of the loop. */
int gcd_swap(int a, int b, int *steps)
{
    int s = 0;
    while (b != 0) {
        int r = a % b;
        a = b;
        b = r;
        s++;
    }
    *steps = s;
    return a;
}

/* Values defined in different iterations and live across an early loop exit. */
int last_two_before(const int *v, int n, int limit)
{
    int prev = -1, prev2 = -1, i;
    for (i = 0; i < n; i++) {
        if (v[i] > limit)
            break;
        prev2 = prev;
        prev = v[i];
    }
    return prev2 * 1000 + prev + i * 1000000;
}

/* Parallel-copy cycle across two nested loops: (x, y, z) <- (z, x, y) in the inner loop and
   (x, y) <- (y, x) in the outer one. */
int nested_rotations(int n, int m)
{
    int x = 1, y = 2, z = 3, i, j;
    for (i = 0; i < n; i++) {
        for (j = 0; j < m; j++) {
            int t = z;
            z = y;
            y = x;
            x = t;
        }
        {
            int t = x;
            x = y;
            y = t + i;
        }
    }
    return x * 10000 + y * 100 + z;
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

int main(void)
{
    static const int vals[] = { 5, 9, -3, 12, 7, 7, 40, -8, 2, 30, 1, 0 };
    int steps = 0, g, k;
    put_line(swap_loop(3, 8, 7));
    put_line(swap_loop(3, 8, 10));
    put_line(swap_loop(3, 8, 0));
    put_line(lost_copy(10));
    put_line(lost_copy(0));
    put_line((int)fib(30));
    put_line((int)(fib(100) >> 1));
    put_line((int)(trib(60) >> 1));
    for (k = 0; k < 6; k++)
        put_line(rotate4(k));
    put_line(minmax_fold(vals, 12));
    g = gcd_swap(1071, 462, &steps);
    put_line(g);
    put_line(steps);
    g = gcd_swap(17, 1000000, &steps);
    put_line(g * 100 + steps);
    put_line(last_two_before(vals, 12, 20));
    put_line(last_two_before(vals, 12, 100));
    put_line(nested_rotations(5, 4));
    put_line(nested_rotations(7, 2));
    return 0;
}
