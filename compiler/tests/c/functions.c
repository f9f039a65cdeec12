/* Functions: recursion, mutual recursion, many arguments, K&R definitions, argument and
   return conversions to narrow types, static locals. */
#include <stdio.h>

static int is_even(unsigned n);
static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }
static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static int nine(int a, int b, int c, int d, int e, int f, int g, int h, int i)
{
    return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i;
}

static int seven(char a, short b, unsigned char c, int d, unsigned short e, signed char f, int g)
{
    return a + b + c + d + e + f + g;
}

int old_style(a, b, c)
    char a;
    short b;
{
    return a * 1000 + b + c;
}

static char narrow(int x) { return x; }

static unsigned char unarrow(int x) { return x; }

static int counter(void)
{
    static int count = 10;
    return count++;
}

static int ackermann(int m, int n)
{
    if (m == 0)
        return n + 1;
    if (n == 0)
        return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

void nothing(void) { }

int main()
{
    int x;
    printf("%d %d %d\n", is_even(10), is_odd(7), fib(15));
    printf("%d\n", nine(1, 2, 3, 4, 5, 6, 7, 8, 9));
    printf("%d\n", seven(300, 70000, 257, -1, 65537, 129, 5));
    printf("%d\n", old_style(2, 3, 4));
    printf("%d %d %d\n", narrow(200), unarrow(-1), narrow(-129));
    x = counter();
    x += counter();
    printf("%d %d\n", x, counter());
    printf("%d\n", ackermann(2, 3));
    nothing();
    return 3;
}
