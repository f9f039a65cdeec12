/* #include forms: an angle-bracket include found through -I (ssalab.h), quoted includes
   relative to this file's directory, a header included twice behind a guard, a .c file
   included for its table and function, and a nested include inside an initialiser. */
#include <ssalab.h>
#include "include/helpers.h"
#include "include/helpers.h"
#include "include/table.c"

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

int main(void)
{
    struct helper_pair p = { 4, 5 };
    put(helper_combine(&p));
    put(HELPER_SCALE);
    put(included_sum());
    put(included_table[11]);
    put((int)(sizeof(included_table) / sizeof(included_table[0])));
    return 0;
}
