/* ssalab fuzz reproducer
 * generator v1, seed 500015, size medium (ssalab fuzz gen --seed 500015 --size medium)
 * first failing stage: st120/baseline-r8/frame (pass error)
 *   pass `frame` on @f1: frame: function f1: block b2 instruction 1: frame offset 572 (= 572 × 1) is out of the range of SDB+i (frame too large for ST120 SP-relativ…
 * reduced from 492 to 99 lines (1500 tests, 35 statements left)
 * check: ssalab fuzz check THIS_FILE
 */
/* ssalab fuzz program: generator v1, seed 500015 */
#include "ssalab.h"

struct S0 {
    unsigned char m0;
    signed char m1;
    int m2;
};

static signed char g2[4] = { 0, 0, 0 };
static int g4;
static unsigned g7 = 0;

static unsigned char f1(unsigned char p9);

static unsigned char f1(unsigned char p9) {
    unsigned p8 = 0;
    unsigned char l5 = (unsigned char)(g4);
    signed char l8[32] = { 0 };
    unsigned l9 = (4u && p9);
    unsigned l12 = (unsigned)(g2[0]);
    int l14 = 0;
    unsigned l15 = 0;
    int l16 = 0;
    unsigned l17 = 0;
    unsigned short l18 = 0;
    signed char l19 = 0;
    int l20 = 0;
    unsigned char l21 = 0;
    signed char l22 = 0;
    unsigned short l23 = 0;
    unsigned l24 = 0;
    unsigned short l25 = 0;
    unsigned char l26 = 0;
    signed char l27 = 0;
    unsigned short l28 = 0;
    unsigned short l29 = 0;
    unsigned l30 = 0;
    unsigned char l31 = 0;
    unsigned short l32 = 0;
    short l33 = 0;
    signed char l34 = 0;
    short l35 = 0;
    signed char l36 = 0;
    unsigned l37 = 0;
    unsigned short l38 = 0;
    int l39 = 0;
    unsigned char l40 = 0;
    short l41 = 0;
    signed char l42 = (signed char)(l5);
    if (g4) {
    }
    for (int i2 = 0; i2 < 1; i2++) {
        l14 = (int)((unsigned)(l14) - (unsigned)(1));
        l15 ^= 1;
        l16 = (int)((unsigned)(l16) - (unsigned)(1));
        l17 -= l20;
        l18 = 1;
        l19 = (signed char)(l20);
        l20 = (int)((unsigned)(l20) - (unsigned)(1));
        l21 = (unsigned char)(l22);
        l22 = (signed char)(l25);
        l23 -= l26;
        ++l24;
        l25 ^= 1;
        l26 = (unsigned char)(l28);
        l27 = (signed char)(l29);
        l28 ^= 1;
        l29 = (unsigned short)(l30);
        l30 -= l32;
        l31 = (unsigned char)(l33);
        l32 = (unsigned short)(l35);
        l33 -= l34;
        l34 ^= 1;
        ++l35;
        l36 = (signed char)(l39);
        l37 -= l40;
        ++l38;
        l39 ^= 1;
        l40 = (unsigned char)(l42);
        l41 -= l12;
        l42 += 0;
    }
    for (int i1 = 0; i1 < 1; i1++) {
        p8 = (0 % (g7 | 1u));
    }
    return ((((((((((((((((((((((((((p9 ^ l5) ^ l9) ^ l14) ^ l15) ^ l16) ^ l17) ^ l18) ^ l19) ^ l20) ^ l21) ^ l22) ^ l23) ^ l24) ^ l25) ^ l26) ^ l27) ^ l28) ^ l29) ^ l30) ^ l31) ^ l32) ^ l33) ^ l36) ^ l37) ^ l38) ^ l41);
}

int main(void) {
    {
        signed char *q6 = g2;
        for (int i15 = 0; i15 < 1; i15++) {
            f1(0);
        }
    }
    return 0;
}

