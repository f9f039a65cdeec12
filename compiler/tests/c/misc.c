/* Volatile locals, block scopes and shadowing, typedefs, casts between integers and
   pointers, sizeof expressions that are not evaluated, comma in for, nested ?: */
#include <stdio.h>

typedef unsigned short u16;
typedef u16 *u16p;

static int side;

static int bump(void)
{
    return ++side;
}

int main(void)
{
    volatile int v = 0;
    int i, x = 1;
    u16 arr[3] = {65535, 2, 3};
    u16p p = arr;
    unsigned long addr_diff;

    for (i = 0; i < 5; i++)
        v += i;
    printf("%d\n", v);
    {
        int x = 10;
        {
            int x = 100;
            printf("%d ", x);
        }
        printf("%d ", x);
    }
    printf("%d\n", x);
    printf("%d %d\n", p[0] + 1, (short)p[0]);
    addr_diff = (unsigned long)(char *)(p + 2) - (unsigned long)(char *)p;
    printf("%d\n", (int)addr_diff);
    side = 0;
    i = sizeof(bump());
    printf("%d %d\n", i, side);
    x = 5;
    i = x > 3 ? x > 4 ? 1 : 2 : 3;
    printf("%d\n", i);
    for (i = 0, x = 0; i < 4; ++i)
        x += i == 2 ? 10 : i;
    printf("%d\n", x);
    return 0;
}
