/* ssalab fuzz reproducer
 * generator v1, seed 500012, size medium (ssalab fuzz gen --seed 500012 --size medium)
 * first failing stage: st120/baseline-r8/frame (pass error)
 *   pass `frame` on @main: frame: function main: block b0 instruction 94: frame offset 512 (= 512 × 1) is out of the range of SDB+i (frame too large for ST120 SP-re…
 * reduced from 439 to 130 lines (1500 tests, 59 statements left)
 * check: ssalab fuzz check THIS_FILE
 */
/* ssalab fuzz program: generator v1, seed 500012 */
#include "ssalab.h"

struct S0 {
    unsigned short m0[2];
    unsigned m1;
    unsigned m2;
    unsigned short m3;
    short m4[4];
};

static unsigned short g0[2][4] = { { 0, 0, 0 } };
static signed char g1;
static short g2[2][2] = { { 0 }, { 0, 0 } };
static unsigned g3[4] = { 0 };
static short g4 = 0;
static unsigned char g5;
static short g6 = 0;

static short f1(signed char p5);

static short f1(signed char p5) {
    return 0;
}

int main(void) {
    signed char l57 = 0;
    int l58 = g1;
    unsigned char l59 = 0;
    unsigned l60 = g0[0][0];
    unsigned char l61 = 20;
    unsigned short l62 = 0;
    unsigned char l63[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    unsigned l64 = 0u;
    int l65 = (-0x27ea6499);
    signed char l66 = 0;
    signed char l67 = 0;
    unsigned char l68 = 1;
    short l69 = 0;
    unsigned short l70 = 0;
    short l71 = 0;
    unsigned l72 = 0;
    signed char l73 = 0;
    unsigned short l74 = 0;
    signed char l75 = 0;
    int l76 = 0;
    short l77 = 0;
    signed char l78 = 0;
    unsigned short l79 = (unsigned short)(l58);
    unsigned short l80 = 1;
    signed char l81 = 0;
    unsigned char l82 = 0;
    signed char l83 = 0;
    int l84 = g0[0][0];
    int l85 = g5;
    if (g1 > 0) l57 = (signed char)((0 / g1));
    for (int i20 = 0; i20 < 1; i20++) {
        l66 = 1;
        l67 = (signed char)(l69);
        l68 = (unsigned char)(l69);
        l69 = (short)(l70);
        l70 = (unsigned short)(l73);
        l71 = (short)(l74);
        --l72;
        l73 = (signed char)(l76);
        l74 = (unsigned short)(l75);
        --l75;
        l76 = l79;
        l77 = (short)(l79);
        l78 = (signed char)(l79);
        l79 = 0;
        l80 = 0;
        l81 = (signed char)(l84);
        l82 = (unsigned char)(l85);
        l83 = (signed char)(l85);
        l84 = 1;
        l85 = (int)((unsigned)(l85) + (unsigned)(1));
    }
    l79 = (unsigned short)(((l80 + l81) + l83));
    f1(1);
    print_int((int)(l61));
    print_char('\n');
    print_int(l65);
    print_char('\n');
    for (int i15 = 0; i15 < 1; i15++) {
        {
            unsigned i16 = 0;
            do {
                i16++;
                l61 = (unsigned char)(l62);
                if (l65) {
                    break;
                }
                l58 = (int)((1 ^ (l60 * 9)));
            } while (i16 < 1);
        }
        l64 = (unsigned)((0 - 1));
        l60 = (g0[((int)((unsigned)(l58) << (g4 & 31))) & 1][(i15 + 1)] + (((g2[1][i15] / 20367) + (l60 % 1024)) ? 1 : 0));
        for (int i18 = 0; i18 < 1; i18++) {
            l59 = (unsigned char)((((l59 - (-909)) + ((l60 ^ (-1770721212)) ? 0 : g6)) & ((11 * i15) | (l57 * g5))));
            if (l59) {
                goto L0;
            }
            l58 = (11 * l62);
        L0: ;
            for (int i19 = 0; i19 < 1; i19++) {
                l65 = (l61 - g0[1][i15]);
                g2[i18][(2 - i18) & 1] = (g1 - (l59 + 512));
                l62 = ((i15 * l64) * (0 / (g3[i18] | 1u)));
            }
        }
    }
    l64 = (unsigned)(l66);
    l64 = (l64 ^ l67);
    l64 = (l64 ^ l68);
    l64 = (l64 ^ l69);
    l64 = (l64 ^ l70);
    l64 = (l64 ^ l71);
    l64 = (l64 ^ l72);
    l64 = (l64 ^ l73);
    l64 = (l64 ^ l74);
    l64 = (l64 ^ l75);
    l64 = (l64 ^ l76);
    l64 = (l64 ^ l77);
    l64 = (l64 ^ l78);
    l64 = (l64 ^ l79);
    l64 = (l64 ^ l82);
    return l64;
}

