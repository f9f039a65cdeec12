/* Structs: nested structs, arrays of structs, struct members that are arrays, `.` and `->`
   chains, struct assignment (also chained and through pointers), self-referential structs
   linked through an array, struct initialisers (global and local, nested braces), and sizeof of
   structs made of char/short/int members (the same layout on ILP32 and on the host). */
#include "ssalab.h"

struct point {
    short x, y;
};

struct rect {
    struct point lo, hi;
    unsigned char colour;
};

struct node {
    int value;
    struct node *next;
};

typedef struct {
    char tag;
    int data[3];
    struct point where;
} record;

static struct rect rects[3] = {
    { { 0, 0 }, { 10, 5 }, 1 },
    { { -3, -4 }, { 3, 4 }, 2 },
    { { 100, 200 }, { 150, 260 }, 255 },
};

static record recs[2] = { { 'a', { 1, 2, 3 }, { 7, 8 } }, { 'b', { 4 }, { -1, -2 } } };

static struct node pool[8];

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

static int area(const struct rect *r)
{
    return (r->hi.x - r->lo.x) * (r->hi.y - r->lo.y);
}

static void grow(struct rect *r, int d)
{
    r->lo.x = (short)(r->lo.x - d);
    r->lo.y -= (short)d;
    r->hi.x += (short)d;
    r->hi.y = (short)(r->hi.y + d);
}

static struct node *build_list(int n)
{
    int i;
    for (i = 0; i < n; i++) {
        pool[i].value = i * i;
        pool[i].next = i + 1 < n ? &pool[i + 1] : 0;
    }
    return n > 0 ? &pool[0] : 0;
}

static int sum_list(const struct node *p)
{
    int s = 0;
    for (; p; p = p->next)
        s += p->value;
    return s;
}

static struct node *reverse_list(struct node *p)
{
    struct node *prev = 0;
    while (p) {
        struct node *next = p->next;
        p->next = prev;
        prev = p;
        p = next;
    }
    return prev;
}

int main(void)
{
    struct rect a, b, c;
    struct rect *pr = &rects[1];
    record r, *prec = &recs[0];
    struct node *head;
    int i;

    put(area(&rects[0]) + area(&rects[1]) * 100);
    put(rects[2].colour);
    put(pr->lo.y + pr[1].hi.y);
    put((pr + 1)->lo.x - (*pr).hi.x);

    a = rects[0];          /* struct assignment */
    grow(&a, 2);
    put(area(&a));
    put(area(&rects[0])); /* the original is unchanged */
    c = b = a;             /* chained */
    c.hi.x = 99;
    put(b.hi.x + c.hi.x * 1000);
    *pr = rects[2];        /* through a pointer */
    put(rects[1].lo.x + rects[1].colour);
    rects[0].lo = rects[2].hi; /* nested member assignment */
    put(rects[0].lo.x + rects[0].lo.y);

    r = *prec;
    r.data[1] = 20;
    put(r.tag + r.data[0] + r.data[1] + r.data[2] + r.where.x + r.where.y);
    put(prec->data[1]);
    put(recs[1].data[0] + recs[1].data[1] + recs[1].data[2] + recs[1].where.y);
    put(recs[1].tag - prec->tag);

    {
        struct point pts[4] = { { 1, 2 }, { 3, 4 } };
        struct point *pp = pts;
        int s = 0;
        pts[3] = pts[1];
        pts[2].x = (short)(pts[0].x + pts[3].y);
        for (i = 0; i < 4; i++, pp++)
            s = s * 10 + pp->x + pp->y;
        put(s);
    }

    head = build_list(6);
    put(sum_list(head));
    head = reverse_list(head);
    put(head->value);
    put(head->next->next->value);
    put(sum_list(head));
    put(pool[0].next == 0);

    put((int)sizeof(struct point));
    put((int)sizeof(struct rect));
    put((int)sizeof(record));
    put((int)(sizeof(rects) / sizeof(rects[0])));
    put((int)sizeof(a.lo) + (int)sizeof(r.data));
    return 0;
}
