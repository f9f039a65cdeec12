/* ssalab fuzz reproducer
 * generator v1, seed 7000169, size tiny (ssalab fuzz gen --seed 7000169 --size tiny)
 * first failing stage: st231/Bo_val_virt/boissinot-val-virt (then named Bo_val_virt/cm) (wrong output)
 *   output line 3: expected "785526235", got "808059435"
 * also failing: st231/Bo_val_virt-r8/boissinot-val-virt (wrong output)
 * also failing: st231/Bo_val_virt-O0/boissinot-val-virt (wrong output)
 * also failing: st231/Bo_val_virt-r8-O0/boissinot-val-virt (wrong output)
 * reduced from 138 to 32 lines (422 tests, 6 statements left)
 * check: ssalab fuzz check THIS_FILE
 */
/* ssalab fuzz program: generator v1, seed 7000169 */
#include "ssalab.h"

struct S0 {
    unsigned char m0[4];
    unsigned m1[8];
    short m2;
};

static short g0[8];

static short f0(unsigned short p4, int p6);

static short f0(unsigned short p4, int p6) {
    return p6;
}

int main(void) {
    unsigned short l18 = (unsigned short)(3386738563u);
    unsigned l20 = 0u;
    if ((0 <= g0[0])) {
        l20 = l18;
        if ((g0[0] - 3u)) {
            l18 = f0(0, 0);
        }
    }
    l18 = f0(l18, (int)(l20));
    print_int((int)(l18));
    print_char('\n');
    return 0;
}

