/* Struct layout and padding, member access, struct assignment, arrays of structs, nested
   structs, pointers to structs, initialisers. */
#include <stdio.h>

struct pad {
    char a;
    int b;
    short c;
    char d[3];
};

struct point {
    short x, y;
};

struct rect {
    struct point lo, hi;
    char name[6];
};

typedef struct node {
    int value;
    struct node *next;
} node_t;

static struct rect global_rect = {{1, 2}, {30, 40}, "box"};
static struct point pts[3] = {{1, 2}, {3, 4}, {5, 6}};
static node_t n3 = {3, 0}, n2 = {2, &n3}, n1 = {1, &n2};

static int area(const struct rect *r)
{
    return (r->hi.x - r->lo.x) * (r->hi.y - r->lo.y);
}

static int list_sum(node_t *n)
{
    int s = 0;
    for (; n; n = n->next)
        s += n->value;
    return s;
}

int main(void)
{
    struct pad p;
    struct rect r, copy;
    struct point q[4] = {{7}, {8, 9}};
    struct point t;
    char *base = (char *)&p;
    int i;

    printf("%d %d %d %d %d\n", (int)sizeof(struct pad), (int)((char *)&p.b - base),
           (int)((char *)&p.c - base), (int)((char *)&p.d - base), (int)sizeof(struct rect));
    r = global_rect;
    r.hi.x += 5;
    copy = r;
    copy.lo.y = -7;
    printf("%d %d %d %s %s\n", area(&r), area(&global_rect), copy.lo.y, copy.name, r.name);
    printf("%d %d %d %d\n", q[0].x, q[0].y, q[1].y, q[3].x);
    t = pts[2];
    pts[2] = pts[0];
    pts[0] = t;
    for (i = 0; i < 3; i++)
        printf("(%d,%d)", pts[i].x, pts[i].y);
    printf("\n%d\n", list_sum(&n1));
    p.a = 'x';
    p.b = -1;
    p.c = 1000;
    p.d[2] = 5;
    printf("%c %d %d %d\n", p.a, p.b, p.c, p.d[2]);
    {
        struct point a = {1, 1}, b = {2, 2}, c;
        c = a = b;
        printf("%d %d ", a.x, c.y);
        printf("%d\n", (a = pts[1]).y);
    }
    return 0;
}
