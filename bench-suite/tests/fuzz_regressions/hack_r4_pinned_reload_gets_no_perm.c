/* ssalab fuzz reproducer
 * generator v1, seed 7700000, size tiny (ssalab fuzz gen --seed 7700000 --size tiny)
 * first failing stage: st231/hack-r4/ssa-colour (pass error)
 *   pass `ssa-colour` on @main: no register left for %404 in b4 (colouring failed)
 * also failing: st231/hack-r4-O0/ssa-colour (pass error)
 * reduced from 153 to 31 lines (75 tests, 1 statements left)
 * check: ssalab fuzz check THIS_FILE
 */
/* ssalab fuzz program: generator v1, seed 7700000 */
#include "ssalab.h"

struct S0 {
    signed char m0;
    signed char m1;
    unsigned char m2[4];
    unsigned m3;
};

struct S1 {
    unsigned char m0;
    short m1;
    struct S0 m2;
};

static struct S0 g1[2];
static signed char g2[32];

static signed char f1(short p4, unsigned *p5, signed char p6, unsigned short p7, signed char *p8, struct S0 *p9);

static signed char f1(short p4, unsigned *p5, signed char p6, unsigned short p7, signed char *p8, struct S0 *p9) {
    return 0;
}

int main(void) {
    unsigned l22 = 0u;
    f1(0, &l22, 0, 0, g2, g1);
    return 0;
}
