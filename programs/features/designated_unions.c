/* Unions (declaration, member access, sizeof/alignment, initialisation of the first member
   or a designated one) and designated initialisers (C99 6.7.8): array designators [i] in any
   order (arrays of unknown size sized by the largest), member designators .m, nested ones
   (.a.y, [0].y, .u.p), positional initialisers continuing after a designated member, static
   and automatic objects. */
#include "ssalab.h"
union word { int i; unsigned char b[4]; short h[2]; };
struct point { int x, y; };
struct shape { int kind; union { struct point p; int r; } u; char name[6]; };
union word gw = { 0x01020304 };
static int table[12] = { [3] = 7, 8, [10] = 1, [0] = -1 };
static int sparse[] = { [5] = 9, [2] = 4 };
static struct point pts[4] = { [2] = { .y = 5, .x = 6 }, [0].y = 3, 4, 5, [3] = { 1, 2 } };
static struct shape shapes[2] = { { .kind = 1, .u.p = { 10, 20 }, "ab" }, [1] = { 2, .name = "hello", .u.r = 9 } };
union word uw = { .b = { 1, 2, 3, 4 } };
struct nest { struct point a; int b[3]; int c; } gn = { .a.y = 1, 2, .b[1] = 5, 6, 7 };
int main(void)
{
    int i;
    union word w;
    union word lw = { .h = { -1, 7 } };
    struct nest ln = { .b = { [2] = 3 }, .a = { .x = 9 }, .c = 4 };
    int lt[6] = { [4] = 1, [1] = 2, 3 };
    w.i = 0x11223344;
    print_int(w.b[0] + w.b[3] * 1000); print_char('\n');
    print_int((int)sizeof(union word)); print_char(' ');
    print_int((int)sizeof(struct shape)); print_char(' ');
    print_int(gw.b[0]); print_char(' '); print_int(gw.h[1]); print_char('\n');
    for (i = 0; i < 12; i++) { print_int(table[i]); print_char(' '); }
    print_char('\n');
    print_int((int)(sizeof sparse / sizeof sparse[0])); print_char(' ');
    for (i = 0; i < 6; i++) { print_int(sparse[i]); print_char(' '); }
    print_char('\n');
    for (i = 0; i < 4; i++) { print_int(pts[i].x); print_char(','); print_int(pts[i].y); print_char(' '); }
    print_char('\n');
    for (i = 0; i < 2; i++) { print_int(shapes[i].kind); print_char(' '); print_int(shapes[i].u.p.x); print_char(' '); print_int(shapes[i].u.p.y); print_char(' '); print_int(shapes[i].u.r); print_char(' '); print_int(shapes[i].name[0]); print_char(' '); print_int(shapes[i].name[4]); print_char('\n'); }
    print_int(uw.i); print_char(' '); print_int(lw.i); print_char(' '); print_int(lw.h[0]); print_char('\n');
    print_int(gn.a.x); print_int(gn.a.y); print_int(gn.b[0]); print_int(gn.b[1]); print_int(gn.b[2]); print_int(gn.c); print_char('\n');
    print_int(ln.a.x); print_int(ln.a.y); print_int(ln.b[0]); print_int(ln.b[1]); print_int(ln.b[2]); print_int(ln.c); print_char('\n');
    for (i = 0; i < 6; i++) { print_int(lt[i]); print_char(' '); }
    print_char('\n');
    return 0;
}
