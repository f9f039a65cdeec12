/* Enums and typedefs: enumerators with implicit and explicit (also negative and repeated)
   values, enum variables in arithmetic and switch, enumerators as array sizes, typedefs of
   scalars, pointers, arrays, structs and of other typedefs, typedef'd function parameters, and
   a typedef name redeclared as a variable in an inner scope. */
#include "ssalab.h"

enum colour { RED, GREEN, BLUE, NCOLOURS };
enum level { LOW = -1, MID, HIGH = 10, HIGHER, SAME = HIGH, LAST = HIGHER * 2 };
enum { ANON_A = 3, ANON_B = ANON_A << 2 };

typedef int q15_t;
typedef unsigned char byte;
typedef byte *byte_ptr;
typedef q15_t vec3[3];
typedef struct point {
    q15_t x, y;
} point_t;
typedef point_t *point_ptr;
typedef enum colour colour_t;
typedef byte_ptr byte_ptr2;

static int counts[NCOLOURS];
static const char *colour_names[NCOLOURS] = { "red", "green", "blue" };

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

static int weight(colour_t c)
{
    switch (c) {
    case RED:
        return 1;
    case GREEN:
        return 10;
    case BLUE:
        return 100;
    default:
        return -1;
    }
}

static q15_t dot3(const q15_t *a, const q15_t *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void move(point_ptr p, q15_t dx, q15_t dy)
{
    p->x += dx;
    p->y += dy;
}

static int sum_bytes(byte_ptr2 p, int n)
{
    int s = 0;
    while (n--)
        s += *p++;
    return s;
}

int main(void)
{
    enum colour c;
    colour_t d = BLUE;
    enum level lv = HIGHER;
    vec3 a = { 1, 2, 3 }, b = { 4, 5, 6 };
    point_t pt = { 10, 20 };
    byte data[4] = { 200, 100, 50, 25 };
    int i, s = 0;
    put(RED + GREEN * 10 + BLUE * 100 + NCOLOURS * 1000);
    put(LOW + MID + HIGH + HIGHER + SAME + LAST);
    put(ANON_B);
    put(lv - LOW);
    for (i = 0; i < 10; i++) {
        c = (enum colour)(i % NCOLOURS);
        counts[c]++;
        s += weight(c);
    }
    put(s);
    put(counts[RED] * 100 + counts[GREEN] * 10 + counts[BLUE]);
    put(weight(d) + weight((colour_t)7));
    d = (colour_t)(d - 1);
    print_char(colour_names[d][0]);
    print_char('\n');
    put(dot3(a, b));
    put((int)(sizeof(vec3) / sizeof(q15_t)));
    move(&pt, -3, 4);
    put(pt.x * 100 + pt.y);
    put(sum_bytes(data, 4));
    {
        int q15_t = 5; /* the typedef name as a variable in an inner scope */
        put(q15_t * 2);
    }
    {
        q15_t again = 7; /* the typedef is visible again */
        put(again);
    }
    put((int)sizeof(point_t) / (int)sizeof(q15_t));
    return 0;
}
