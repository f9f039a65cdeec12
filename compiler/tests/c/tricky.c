/* Assorted corners: _Pragma and __attribute__ in declarations, struct arrays with strings,
   pointers to arrays, large local aggregates (zero-filled and copied by loops), unsigned
   loops counting down, mixed-signedness conditionals, static local arrays, bit tricks. */
#include <stdio.h>
#include <string.h>

enum op { ADD, SUB, MUL, NOP = 10 };

struct entry {
    char name[6];
    enum op op;
    short args[2];
};

static const struct entry prog[] = {
    {"add", ADD, {3, 4}},
    {"sub", SUB, {10, 3}},
    {"mul", MUL, {-6, 7}},
    {"nop", NOP},
};

struct big {
    int data[40];
    char tag;
};

int _Pragma("unused") __attribute__((unused)) counter_global;

static int eval(const struct entry *e)
{
    switch (e->op) {
    case ADD:
        return e->args[0] + e->args[1];
    case SUB:
        return e->args[0] - e->args[1];
    case MUL:
        return e->args[0] * e->args[1];
    default:
        return -1;
    }
}

static char *itoa_static(int v)
{
    static char buf[12];
    char *p = buf + sizeof buf - 1;
    unsigned u = v < 0 ? -(unsigned)v : (unsigned)v;
    *p = 0;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    return p;
}

static int lowest_bit(int x) { return x & -x; }

int main(void)
{
    int grid[3][3] = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
    int (*row)[3] = &grid[1];
    int zeros[1000] = {0};
    struct big a, b;
    unsigned u;
    int i, n = 0, s = 0;
    char with_nul[] = "ab\0cd";

    for (i = 0; i < (int)(sizeof prog / sizeof prog[0]); i++)
        printf("%s=%d ", prog[i].name, eval(&prog[i]));
    printf("\n%d %d %d\n", (*row)[2], row[1][0], (int)sizeof(*row));
    for (i = 0; i < 1000; i++)
        s += zeros[i];
    printf("%d\n", s);
    for (i = 0; i < 40; i++)
        a.data[i] = i * i;
    a.tag = 'q';
    b = a;
    a.data[5] = 0;
    printf("%d %d %c\n", b.data[5], b.data[39], b.tag);
    for (u = 10; u-- > 0;)
        n++;
    printf("%d %u\n", n, u);
    printf("%u %d\n", 1 ? 1u : -1, (int)(0 ? 1u : -1));
    printf("%s ", itoa_static(-1234));
    printf("%s ", itoa_static(0));
    printf("%s\n", itoa_static(2147483647));
    printf("%d %d %d\n", lowest_bit(12), lowest_bit(-8), (5 ^ -3) < 0);
    printf("%d %d %d\n", (int)sizeof with_nul, (int)strlen(with_nul), with_nul[4]);
    printf("%d\n", memcmp(grid[0], grid[1], sizeof grid[0]) < 0);
    memset(zeros, 1, 8);
    printf("%x\n", zeros[1]);
    {
        char c = 'b';
        switch (c) {
        case 'a':
            printf("a\n");
            break;
        case 'b':
            printf("b\n");
        case 'c':
            printf("c\n");
        }
    }
    counter_global += 3;
    printf("%d\n", counter_global);
    return 0;
}
