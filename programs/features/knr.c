/* Old-style function definitions: K&R parameter lists (with the parameter declarations in any
   order, several per line, and narrow types that receive promoted arguments), `f()` definitions
   with an empty parameter list, and calls to them with no prototype in scope (so the default
   argument promotions apply). */
#include "ssalab.h"

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

int add3(a, b, c)
int a, c;
int b;
{
    return a + 10 * b + 100 * c;
}

int narrow(c, s, u)
char c;
short s;
unsigned char u;
{
    return c * 1000000 + s * 1000 + u;
}

unsigned int mix(p, n, scale)
const int *p;
int n;
unsigned int scale;
{
    unsigned int s = 0;
    while (n-- > 0)
        s = s * scale + (unsigned int)*p++;
    return s;
}

int answer()
{
    return 42;
}

int counter()
{
    static int n;
    return ++n;
}

int main()
{
    static const int v[4] = { 1, 2, 3, 4 };
    char c = -5;
    short s = 300;
    unsigned char u = 200;
    put(add3(1, 2, 3));
    put(add3(-1, -2, -3));
    put(narrow(c, s, u));
    put(narrow(7, -2, 255));
    put((int)mix(v, 4, 10u));
    put(answer());
    put(counter());
    put(counter() * 10);
    return 0;
}
