/* ssalab fuzz reproducer
 * generator v1, seed 7700202, size tiny (ssalab fuzz gen --seed 7700202 --size tiny)
 * first failing stage: st231/hack-r4/ssa-spill (pass error)
 *   pass `ssa-spill` on @f0: SSA reconstruction: no definition of %35 reaches b2
 * also failing: st120/hack-r4/ssa-spill (pass error)
 * reduced from 108 to 47 lines (220 tests, 8 statements left)
 * check: ssalab fuzz check THIS_FILE
 */
/* ssalab fuzz program: generator v1, seed 7700202 */
#include "ssalab.h"

struct S0 {
    int m0[4];
    short m1[8];
    int m2[2];
    int m3[4];
};

struct S1 {
    signed char m0;
    struct S0 m1[2];
    signed char m2[8];
};

struct S2 {
    short m0[4];
    unsigned short m1[2];
};


static short f0(void);

static short f0(void) {
    signed char p0 = 0;
    signed char p3 = 0;
    unsigned p4 = 0;
    int l1 = 0;
    unsigned l2[8] = { 0, 0, 0, 0, 0, 0, 0 };
    signed char l3 = 1;
    for (int i0 = 0; i0 < 1; i0++) {
        p3 = (signed char)(l2[l3 & 7]);
        l3 = p0;
        p0 = p3;
        p3 = (signed char)(p4);
        p4 = (unsigned)(l1);
        l1 = l3;
    }
    return p3;
}

int main(void) {
    f0();
    return 0;
}

