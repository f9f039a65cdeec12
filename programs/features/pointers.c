/* Pointers: arithmetic with ints, comparison, difference, pointer to pointer, arrays of
   pointers, pointers into structs, void * round trips, walking backwards with *--p, *p++ = *q++
   copies, byte access to the little-endian representation of an int through unsigned char *,
   pointer compound assignment and increments, and null pointer tests. */
#include "ssalab.h"

struct pair {
    int a;
    short b;
};

static int arr[10] = { 5, 3, 8, 1, 9, 2, 7, 4, 6, 0 };
static int *parr[3] = { &arr[0], &arr[4], &arr[9] };

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

static void swap(int *x, int *y)
{
    int t = *x;
    *x = *y;
    *y = t;
}

static void advance(int **pp, int n)
{
    *pp += n;
}

static int count_until(const int *p, const int *end, int stop)
{
    const int *start = p;
    while (p < end && *p != stop)
        p++;
    return (int)(p - start);
}

static void copy(int *dst, const int *src, int n)
{
    while (n-- > 0)
        *dst++ = *src++;
}

static int *find_max(int *p, int n)
{
    int *best = p;
    for (; n > 0; n--, p++)
        if (*p > *best)
            best = p;
    return best;
}

static void set_via(int ***ppp, int v)
{
    ***ppp = v;
}

int main(void)
{
    int buf[10];
    int *p = arr, *q = &arr[9], **pp = &p, ***ppp = &pp;
    int x = 1, y = 2, i, s;
    struct pair pr = { 10, 20 }, *ps = &pr;
    int *pa = &ps->a;
    short *pb = &pr.b;
    void *v;
    unsigned int word = 0x11223344u;
    unsigned char *bytes = (unsigned char *)&word;

    swap(&x, &y);
    put(x * 10 + y);
    put(*p + *q);
    put((int)(q - p));
    put(p < q);
    put(q <= p);
    put(p + 9 == q);
    put(*(p + 2) + p[3] + 4[p]);
    put(**pp);
    advance(&p, 4);
    put(*p);
    put(**pp);
    set_via(ppp, 42);
    put(arr[4]);
    put((int)(*pp - arr));
    p = arr;
    put(count_until(p, p + 10, 9));
    put(count_until(p, p + 10, 100));
    put(*find_max(arr, 10));
    put((int)(find_max(arr + 5, 5) - arr));
    copy(buf, arr, 10);
    s = 0;
    for (p = buf + 10; p != buf;)
        s = s * 2 + *--p; /* walk backwards */
    put(s);
    p = buf;
    q = arr;
    for (i = 0; i < 10; i++)
        *p++ = *q++ * 2;
    put(buf[9] + buf[4]);
    put((int)(p - buf) + (int)(q - arr) * 100);
    p -= 3;
    put(*p);
    p += 2;
    put(*p);
    put(*p--);
    put(*p);
    put(*++p);
    put(++*p);
    put((*p)++);
    put(*p);
    put(*parr[0] + *parr[1] + *parr[2]);
    put((int)(parr[2] - parr[1]));
    *pa += 5;
    *pb = (short)(*pb * 3);
    put(pr.a + ps->b);
    v = &arr[3];
    p = (int *)v;
    put(*p);
    v = bytes;
    put(*(unsigned char *)v);
    put(bytes[0] + bytes[1] * 1000 + bytes[3] * 1000000);
    bytes[2] = 0xff;
    put((int)(word >> 16));
    p = 0;
    put(p == 0);
    put(!p);
    p = arr;
    put(p != 0 && *p == 5);
    {
        const char *str = "pointer";
        const char *e = str;
        while (*e)
            e++;
        put((int)(e - str));
        put(*(e - 1));
        put(str[3] - *str);
    }
    {
        short sh[4] = { 1, 2, 3, 4 };
        short *sp = sh;
        char *cp = (char *)sh;
        sp++;
        put(*sp);
        put((int)((char *)sp - cp));
        put(*(sp + 2));
    }
    return 0;
}
