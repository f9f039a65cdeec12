/* sizeof on types and on expressions: the basic types of the data model that ILP32 and the host
   share (char 1, short 2, int 4), arrays, 2-D arrays and rows, structs of char/short/int members
   with padding, expressions whose type comes from promotions (sizeof(c + c) is sizeof(int)),
   string literals, character constants, type names such as int[6], and the fact that the
   operand is not evaluated. */
#include "ssalab.h"

struct s1 {
    char c;
    int i;
};

struct s2 {
    char a, b;
    short s;
    char tail;
};

typedef short vec4[4];

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

int main(void)
{
    char c = 1;
    short s = 2;
    int i = 3, arr[7], m[3][5];
    unsigned char uc = 4;
    vec4 v;
    struct s1 x;
    struct s2 y[3];
    put((int)sizeof(char) + (int)sizeof(short) * 10 + (int)sizeof(int) * 100);
    put((int)sizeof(signed char) + (int)sizeof(unsigned char) + (int)sizeof(unsigned short) +
        (int)sizeof(unsigned int) + (int)sizeof(unsigned));
    put((int)sizeof c + (int)sizeof s * 10 + (int)sizeof i * 100);
    put((int)sizeof(c + c));
    put((int)sizeof(uc << 1));
    put((int)sizeof(s * s));
    put((int)sizeof(-c));
    put((int)sizeof((char)i));
    put((int)sizeof(c = 100));
    put(c);           /* not evaluated: still 1 */
    put((int)sizeof(i++));
    put(i);           /* still 3 */
    put((int)sizeof arr);
    put((int)(sizeof arr / sizeof arr[0]));
    put((int)sizeof m + (int)sizeof m[0] * 1000 + (int)sizeof m[0][0] * 100000);
    put((int)sizeof(vec4) + (int)sizeof v[1] * 100);
    put((int)sizeof(struct s1) + (int)sizeof x.c * 100);
    put((int)sizeof(struct s2) + (int)sizeof y * 100);
    put((int)sizeof("hello"));
    put((int)sizeof('x'));
    put((int)sizeof(1 ? c : s));
    put((int)sizeof(0x7fffffff) + (int)sizeof(0xffffffff) + (int)sizeof(1u));
    {
        int n = (int)sizeof(int[6]);
        put(n);
    }
    put((int)sizeof(int) * 3 - 1 > 0);
    return 0;
}
