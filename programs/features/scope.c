/* Block scope and shadowing: a local shadowing a global, nested blocks redeclaring the same
   name, for-loop declarations (C99) shadowing an outer variable, mixed declarations and
   statements, a block-scope static shadowing a file-scope variable, an extern declaration in a
   block, and an inner initialiser that reads the outer variable of the same name before the
   inner one is declared (through a copy made in the enclosing block). */
#include "ssalab.h"

int x = 1;
static int y = 1000;

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

static int use_global(void)
{
    return x * 10;
}

static int shadow_static(void)
{
    static int y = 5; /* shadows the file-scope y */
    y++;
    return y;
}

static int four(void)
{
    return 4;
}

int main(void)
{
    int total = 0;
    put(x);
    int x = 2; /* mixed declaration after a statement, shadows the global */
    put(x);
    put(use_global());
    {
        int x = 3;
        put(x);
        {
            int x = four();
            put(x);
        }
        put(x);
        x += 10;
        put(x);
    }
    put(x);
    int i = 100;
    for (int i = 0; i < 3; i++) { /* shadows the outer i */
        int x = i * 7;
        total += x;
        for (int i = 10; i < 12; i++)
            total += i;
    }
    put(total);
    put(i);
    {
        extern int x; /* refers to the global again */
        put(x);
        x = 50;
    }
    put(x);
    put(use_global());
    put(shadow_static());
    put(shadow_static() * 100);
    put(y);
    {
        int outer_y = y;
        int y = outer_y + 1;
        put(y);
    }
    {
        int k;
        for (k = 0; k < 3; k++) {
            int fresh = 0; /* re-initialised on every iteration */
            fresh += k;
            total += fresh;
        }
    }
    put(total);
    return 0;
}
