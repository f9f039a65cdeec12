/* ssalab fuzz reproducer
 * generator v2, seed 8600004, size tiny (ssalab fuzz gen --seed 8600004 --size tiny)
 * first failing stage: st120/C-r4/irc (pass error)
 *   pass `irc` on @main: regalloc: function main: cannot colour %288 of class R with 4 registers (spill temporaries); values of this class cannot be spilled
 * also failing: st120/C-r4-O0/irc (pass error)
 * also failing: st120/L_phi,ABI+C-r4/irc (pass error)
 * also failing: st120/L_phi,ABI+C-r4-O0/irc (pass error)
 * check: ssalab fuzz check THIS_FILE
 */
/* ssalab fuzz program: generator v2, seed 8600004 */
#include "ssalab.h"

struct S0 {
    int m0;
    short m1[4];
};

static short g0[4] = { [1] = (-32767), [2] = (-128), [3] = (-222), [0] = (-3099) };
static int g1;
static unsigned g2[16] = { 0x70add603u };

static unsigned short f0(unsigned char p0, unsigned short p1, unsigned char p2, unsigned p3, unsigned p4, unsigned char p5, int p6);
static unsigned char f1(short p7, unsigned short p8, int p9, unsigned short p10, unsigned char p11, unsigned short p12, short p13, short p14, unsigned p15);

static unsigned short f0(unsigned char p0, unsigned short p1, unsigned char p2, unsigned p3, unsigned p4, unsigned char p5, int p6) {
    signed char l0 = (g0[p4 & 3] % (-0x3));
    unsigned short l1 = 5;
    signed char l2 = (signed char)((127 * p0));
    int l3 = (-2);
    signed char l4 = 'n';
    int l5 = (int)(g2[3]);
    p1 = (unsigned short)(((4294966426u * l5) % ((p2 - 4294967295u) != 0u ? (p2 - 4294967295u) : 1u)));
    p5 = (unsigned char)(((0 || p5) | (p4 >> 2)));
    l4 = (signed char)(p5);
    l5 = l4;
    l2 = (signed char)(l5);
    l5 ^= ((int)((unsigned)(((int)((unsigned)((p5 + l4)) + (unsigned)(l5)))) + (unsigned)(l2)));
    if (l0 > 0) p6 = (8 / l0);
    l3 = ((0x1f0a81b9 | g1) | ((int)((unsigned)(16) * (unsigned)((-1178694269)))));
    print_int((int)(((((((((((((((((((((((((((0x2d2u * 33u) ^ p0) * 33u) ^ p1) * 33u) ^ p2) * 33u) ^ p3) * 33u) ^ p4) * 33u) ^ p5) * 33u) ^ p6) * 33u) ^ l0) * 33u) ^ l1) * 33u) ^ l2) * 33u) ^ l3) * 33u) ^ l4) * 33u) ^ l5)));
    print_char('\n');
    return ((unsigned short)(((((((((((((((((((((((((((764u * 33u) ^ p0) * 33u) ^ p1) * 33u) ^ p2) * 33u) ^ p3) * 33u) ^ p4) * 33u) ^ p5) * 33u) ^ p6) * 33u) ^ l0) * 33u) ^ l1) * 33u) ^ l2) * 33u) ^ l3) * 33u) ^ l4) * 33u) ^ l5)));
}

static unsigned char f1(short p7, unsigned short p8, int p9, unsigned short p10, unsigned char p11, unsigned short p12, short p13, short p14, unsigned p15) {
    short l6 = (-4);
    unsigned short l7 = 15;
    static short l8 = (-0x3eee);
    unsigned l9 = ((-0x7a98) / 100u);
    if (((((p12 & (p13 - 20)) != ((signed char)(p14))) ? 0x80000001 : p12) + (l6 % 256))) {
        p10 %= ((((((((unsigned char)(0x802B7C99)) - (p8 || 0)) == (p14 % ((p8 & 255) + 1))) ? p8 : p9) <= p12) ? (unsigned)(((int)((unsigned)(p12) * (unsigned)(l7)))) : (103101698u - 1)) | 1u);
        p10 >>= ((p11 % ((p7 + p7) != 0 ? (p7 + p7) : 1)) & 31);
    } else {
        if ((l9 | p14) != 0u) l8 = (short)(((unsigned)((l8 - (p8 & p9))) / (l9 | p14)));
        p7 = (p11 >> 4);
        g2[((((int)(0x26)) <= p8) ? 0x2u : p15) & 15] -= (!(1 > g1));
    }
    l9 %= (((int)((unsigned)((~g1)) + (unsigned)((l6 == p11)))) | 1u);
    for (short i0 = 0; i0 < 13; i0++) {
    }
    print_int((int)(((((((((((((((((((((((((((364u * 33u) ^ p7) * 33u) ^ p8) * 33u) ^ p9) * 33u) ^ p10) * 33u) ^ p11) * 33u) ^ p12) * 33u) ^ p13) * 33u) ^ p14) * 33u) ^ p15) * 33u) ^ l6) * 33u) ^ l7) * 33u) ^ l8) * 33u) ^ l9)));
    print_char('\n');
    return ((unsigned char)((p15 - l6)));
}

int main(void) {
    static signed char l10 = (-102);
    static unsigned l11 = 0xfffffffcu;
    unsigned l12 = g2[(7 - l10) & 15];
    short l13 = (g0[(g0[1] ^ g1) & 3] >> (l10 & 31));
    unsigned l14 = 0u;
    switch ((127 & 3)) {
    case 0:
        {
            unsigned *q0 = g2;
            for (int i1 = 0; i1 < 12; i1++) {
                l11 = ((((249 || g2[(i1 + 1)]) - ((*q0) % 4)) > (29 % 1024)) ? ((int)(i1)) : (11 + i1));
                l14 = (((unsigned)(l13)) >> 14);
                l13 = (short)(l14);
                l11 = (unsigned)(l13);
                l12 = l11;
                l14 ^= (((l14 + l13) + l11) + l12);
            }
        }
        if ((((l12 - (-44)) * (l12 * l13)) > 65535)) {
            g0[3] |= (g0[(l13 ^ l11) & 3] != l13);
            l14 -= (((unsigned)((-8))) | (g1 % (-8)));
        }
        /* fall through */
    case 2:
        l11 |= ((l11 - 99) % ((-8) != 0u ? (-8) : 1u));
        break;
    case 1:
        break;
    case 34:
        break;
    default:
        break;
    }
    l14 = f0((unsigned char)(((l11 - g1) + (g1 * 694204318u))), ((unsigned)((l13 * l10)) > (l11 >> 11)), (unsigned char)(((((l10 - g2[g1 & 15]) + (127 <= g2[2])) >= (unsigned)(g0[((((l11 & (-968)) | (g0[0] / 2)) >= (g0[0] / 8u)) ? l14 : l12) & 3])) ? (128u * 32768) : l11)), (unsigned)(l13), (unsigned)(((int)((unsigned)((l13 ^ '~')) << ((5u - l14) & 31)))), (1 < (g2[3] + l14)), (int)((0x5f55 | (l11 ^ l10))));
    print_int((int)(l14));
    print_char('\n');
    l11 = f1((short)(g2[0x3eu & 15]), (unsigned short)((l12 - (35000 != g1))), ((l10 - 6959) * (-7)), (unsigned short)(((g2[((-1) ^ g1) & 15] * 2034314368) - g1)), (unsigned char)(g2[15]), (unsigned short)(((l12 * l10) - g0[0])), (((unsigned short)(5)) < (l14 % 0x460113a7u)), ((13 >> (g2[(l10 + g0[3]) & 15] & 31)) || g2[11]), (unsigned)(l13));
    print_int((int)(l11));
    print_char('\n');
    for (int i2 = 0; i2 < 4; i2++) {
        l14 = ((l14 * 33u) ^ ((unsigned)(g0[i2])));
    }
    print_int((int)(l14));
    print_char('\n');
    l14 = ((l14 * 33u) ^ ((unsigned)(g1)));
    print_int((int)(l14));
    print_char('\n');
    for (int i3 = 0; i3 < 16; i3++) {
        l14 = ((l14 * 33u) ^ ((unsigned)(g2[i3])));
    }
    print_int((int)(l14));
    print_char('\n');
    l14 = ((l14 * 33u) ^ ((unsigned)(l10)));
    l14 = ((l14 * 33u) ^ ((unsigned)(l11)));
    l14 = ((l14 * 33u) ^ ((unsigned)(l12)));
    l14 = ((l14 * 33u) ^ ((unsigned)(l13)));
    print_int((int)(l14));
    print_char('\n');
    return ((int)((l14 & 0x7fu)));
}

