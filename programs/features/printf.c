/* printf through <stdio.h>: %d %u %x %c %s and %%, mixed with print_int/print_char on the same
   output.  Under ssalab, printf is the runtime's stub for a declared variadic function; under
   the host compiler it is the C library's.  Only the conversions the subset lists are used, with
   no width, precision or flags. */
#include <stdio.h>
#include "ssalab.h"

int main(void)
{
    int i;
    unsigned int u = 4000000000u;
    const char *names[3] = { "zero", "one", "two" };
    printf("hello, world\n");
    printf("%d %d %d\n", 0, -1, 2147483647);
    printf("%d\n", -2147483647 - 1);
    printf("%u %u\n", u, 0u);
    printf("%x %x %x\n", 255u, 0xdeadbeefu, 0u);
    printf("%c%c%c\n", 'a', 66, '0' + 7);
    printf("[%s] [%s]\n", "text", "");
    printf("100%%\n");
    for (i = 0; i < 3; i++)
        printf("%d=%s%c", i, names[i], i < 2 ? ',' : '\n');
    print_int(12);
    printf("%d", 34);
    print_char('\n');
    printf("%s has %d chars, first %c, hex %x, unsigned %u\n", names[1], 3, names[1][0], 300u, 7u);
    putchar('!');
    putchar('\n');
    return 0;
}
