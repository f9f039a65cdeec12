/* ssalab fuzz reproducer
 * generator v1, seed 600057, size medium (ssalab fuzz gen --seed 600057 --size medium)
 * first failing stage: st231/baseline/isel (machine verifier)
 *   pass `isel` on @f0: machine-IR verifier (Ssa form):
 * reduced from 173 to 18 lines (127 tests, 1 statements left)
 * check: ssalab fuzz check THIS_FILE
 */
/* ssalab fuzz program: generator v1, seed 600057 */
#include "ssalab.h"

static unsigned char g1[4][2] = { { 0, 0 } };
static signed char g5;

static unsigned char f0(unsigned depth);

static unsigned char f0(unsigned depth) {
    if (depth == 0u) return ((0 << (g1[0][0] & 31)) ? 0 : g5);
    return 0;
}

int main(void) {
    f0(0u);
    return 0;
}

