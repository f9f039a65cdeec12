/* Structs passed and returned by value (issue 24): small and large structs as parameters and
   results, results used as arguments, as operands of member access and of assignment (also to
   an argument of the same call), a callee modifying its parameter copy.  The ABI (both
   targets): a struct argument is passed as the address of the caller's object, which the callee
   copies into its own frame on entry; a struct result is written through a hidden first
   argument, the address of a temporary in the caller's frame (docs/c-coverage.md). */
#include "ssalab.h"
struct vec { int x, y, z; };
struct pair { short a; char tag[3]; };
struct big { int w[10]; char name[8]; };

static struct vec add(struct vec a, struct vec b)
{
    struct vec r;
    r.x = a.x + b.x;
    r.y = a.y + b.y;
    r.z = a.z + b.z;
    a.x = 999;              /* the callee's copy: the caller's object is unchanged */
    return r;
}

static struct vec scale(struct vec v, int k)
{
    v.x *= k;
    v.y *= k;
    v.z *= k;
    return v;
}

static int dot(struct vec a, struct vec b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

static struct pair mkpair(int a, int c)
{
    struct pair p = { (short)a, { (char)c, (char)(c + 1), 0 } };
    return p;
}

static struct big fill(int seed)
{
    struct big b;
    int i;
    for (i = 0; i < 10; i++)
        b.w[i] = seed * (i + 1) - i * i;
    for (i = 0; i < 7; i++)
        b.name[i] = (char)('a' + (seed + i) % 26);
    b.name[7] = 0;
    return b;
}

static int sum_big(struct big b, int from)
{
    int s = 0;
    int i;
    for (i = from; i < 10; i++)
        s += b.w[i];
    return s + b.name[from % 7];
}

static struct vec gv = { 1, 2, 3 };

int main(void)
{
    struct vec a = { 4, -5, 6 };
    struct vec c;
    struct big b;
    struct pair p;
    int i;
    c = add(a, gv);
    print_int(c.x); print_char(' '); print_int(c.y); print_char(' '); print_int(c.z); print_char('\n');
    print_int(a.x); print_char('\n');
    c = scale(add(c, c), -3);
    print_int(c.x); print_char(' '); print_int(c.y); print_char(' '); print_int(c.z); print_char('\n');
    print_int(dot(scale(a, 2), add(a, gv))); print_char('\n');
    print_int(add(a, a).y); print_char('\n');
    a = add(a, a);
    a = scale(a, 2);
    print_int(a.x + a.y + a.z); print_char('\n');
    p = mkpair(300, 'k');
    print_int(p.a); print_char(' '); print_char(p.tag[0]); print_char(p.tag[1]); print_char('\n');
    for (i = 0; i < 4; i++) {
        b = fill(i * 7 + 3);
        print_int(sum_big(b, i)); print_char(' ');
        print_int(sum_big(fill(i), 9 - i)); print_char('\n');
    }
    print_int((int)sizeof(struct pair)); print_char('\n');
    return 0;
}
