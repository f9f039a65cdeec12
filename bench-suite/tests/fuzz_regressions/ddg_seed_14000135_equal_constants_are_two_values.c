/* ssalab fuzz program: generator v1, seed 14000135 */
#include "ssalab.h"

struct S0 {
    unsigned m0;
    short m1;
    int m2;
    signed char m3;
};

struct S1 {
    struct S0 m0[4];
    int m1[2];
    signed char m2;
    unsigned short m3[4];
    struct S0 m4[2];
};

struct S2 {
    int m0;
    unsigned char m1;
    unsigned short m2[2];
    unsigned char m3;
};

static unsigned short g0 = 65527;
static short g1[8] = { (-6), 32271, (-2) };
static int g2;

static void f0(unsigned char p0, unsigned p1, short *p2, int *p3, short p4, unsigned short p5, int p6, unsigned short p7, unsigned short *p8, signed char p9);
static signed char f1(unsigned p10, unsigned p11, short *p12, unsigned short *p13, unsigned char p14);

static void f0(unsigned char p0, unsigned p1, short *p2, int *p3, short p4, unsigned short p5, int p6, unsigned short p7, unsigned short *p8, signed char p9) {
    unsigned short l0 = (p5 % 1024);
    int l1 = ('x' && p3[0]);
    unsigned l2 = (4294967123u >> 5);
    unsigned char l3 = (unsigned char)((l0 >> (2147483647 & 31)));
    signed char l4 = (-1);
    unsigned short l5 = 20616;
    signed char l6 = (signed char)((l2 / 255u));
    signed char l7 = 127;
    int l8 = (-6);
    short l9 = (short)((l8 | l2));
    unsigned char l10 = 179;
    signed char l11 = (2147483646 == l9);
    unsigned char l12 = (unsigned char)(p9);
    signed char l13 = 0;
    p4 = (short)((unsigned)(p4) * (unsigned)(((int)((unsigned)(p6) + (unsigned)((p8[0] + p8[0]))))));
    for (unsigned i3 = 5; i3 > 0; i3--) {
        l4 += l7;
        l5 -= l7;
        l6 ^= l8;
        l7 += l10;
        l8 = (int)((unsigned)(l8) + (unsigned)(l10));
        l9 += l10;
        l10 += l11;
        l11 += l4;
        l12 -= l5;
        l13 += l5;
    }
    l13 ^= ((int)((unsigned)(((int)((unsigned)(((int)((unsigned)(((int)((unsigned)(((int)((unsigned)(((int)((unsigned)((((l4 + l5) + l6) + l7)) + (unsigned)(l8)))) + (unsigned)(l9)))) + (unsigned)(l10)))) + (unsigned)(l11)))) + (unsigned)(l12)))) + (unsigned)(l13)));
    p1 = (unsigned)(p9);
    for (unsigned char i0 = 2; i0 > 0; i0--) {
        {
            short *q0 = p2;
            for (int i1 = 0; i1 < 3; i1++, q0++) {
                p1 |= (((int)((unsigned)(g2) - (unsigned)(p6))) / (((p0 ^ l3) & 255) + 1));
            }
        }
        for (int i2 = 0; i2 < 8; i2++) {
            p6 = (int)(((0x7fffu | p9) + i2));
            if ((l1 ^ p8[0]) > 0) p3[0] = (g0 / (l1 ^ p8[0]));
        }
    }
}

static signed char f1(unsigned p10, unsigned p11, short *p12, unsigned short *p13, unsigned char p14) {
    signed char l14 = 123;
    signed char l15 = (signed char)(p13[0]);
    unsigned char l16 = 0;
    signed char l17 = 0;
    unsigned l18 = (1 % (-2));
    unsigned short l19 = (unsigned short)(((((0xff / (p10 != 0u ? p10 : 1u)) * (l15 % (g2 != 0 ? g2 : 1))) > (unsigned)(((int)((unsigned)(g1[1]) + (unsigned)(g2))))) ? p14 : g1[((int)((unsigned)(0x73) << (l16 & 31))) & 7]));
    unsigned l20 = (unsigned)(l17);
    signed char l21 = (p13[0] % 0x7u);
    signed char l22 = (signed char)((127 ^ l18));
    signed char l23 = (signed char)(l20);
    {
        short i7 = 0;
        while (i7 < 13) {
            i7++;
            l18 -= l19;
            l19 -= l20;
            l20 -= l21;
            l21 -= l23;
            l22 += l19;
            l23 ^= l19;
        }
    }
    l17 ^= (((((l18 + l19) + l20) + l21) + l22) + l23);
    for (unsigned i4 = 0; i4 < 26; i4++) {
        g1[i4 & 7] += 668576696u;
        {
            short *q1 = g1;
            for (int i5 = 0; i5 < 1; i5++, q1++) {
                (*q1) /= ((~(i5 - p10)) != 0u ? (~(i5 - p10)) : 1u);
                l17 = (signed char)(65024);
            }
        }
    }
    for (unsigned i6 = 0; i6 < 11; i6++) {
        p12[0] = (short)((p13[0] / ((l16 & 255) + 1)));
        l16 >>= (((l17 >> (p10 & 31)) + (p11 / (l14 != 0u ? l14 : 1u))) & 31);
    }
    return ((signed char)(((((((((((((((((((((((((((43u * 33u) ^ p10) * 33u) ^ p11) * 33u) ^ p14) * 33u) ^ l14) * 33u) ^ l15) * 33u) ^ l16) * 33u) ^ l17) * 33u) ^ l18) * 33u) ^ l19) * 33u) ^ l20) * 33u) ^ l21) * 33u) ^ l22) * 33u) ^ l23)));
}

int main(void) {
    unsigned l24 = (unsigned)(g1[3]);
    int l25 = ((short)(g2));
    unsigned short l26 = ((unsigned)(g1[((unsigned short)(l24)) & 7]) == 4294967290u);
    unsigned l27 = (l24 << ((-0x3) & 31));
    unsigned l28 = 0u;
    unsigned l29 = ((int)(0x11u));
    unsigned char l30 = (unsigned char)(g0);
    unsigned short l31 = (unsigned short)((l26 | g1[l30 & 7]));
    signed char l32 = (signed char)(((int)((unsigned)(g2) << 23)));
    int l33 = l30;
    short l34 = 13;
    int l35 = (-6);
    int l36 = (l32 >> 18);
    if ((((((1 + l24) == (unsigned)(l25)) == ((int)((unsigned)(l25) << (0xff & 31)))) ? l26 : ((int)((unsigned)(g2) + (unsigned)(g2)))) < ((int)((unsigned)(g0) * (unsigned)(g2))))) {
        l24 ^= l25;
        l24 = l27;
        l26 ^= l27;
    } else {
        {
            short *q2 = g1;
            for (int i8 = 0; i8 < 3; i8++) {
                l26 = (unsigned short)(*q2++);
                (*q2) = (short)((unsigned)((*q2)) * (unsigned)((('*' * g0) >> i8)));
                (*q2) = (short)(((l28 << (g1[i8] & 31)) ^ (!0x11u)));
            }
        }
    }
    for (short i9 = 0; i9 < 4; i9 += 2) {
        l29 -= l31;
        l30 ^= l31;
        l31 ^= l33;
        l32 = (signed char)((unsigned)(l32) + (unsigned)(l33));
        l33 = (int)((unsigned)(l33) - (unsigned)(l36));
        l34 ^= l29;
        l35 ^= l30;
        l36 = (int)((unsigned)(l36) - (unsigned)(l30));
    }
    l33 ^= (((((((l29 + l30) + l31) + l32) + l33) + l34) + l35) + l36);
    f0((unsigned char)(g1[(g1[5] & l28) & 7]), (((int)((unsigned)(g2) * (unsigned)(g1[(g1[5] - l28) & 7]))) * (g2 ^ l27)), g1, &g2, (short)(((g0 < 14) | (((((unsigned char)(l25)) & (2049 * 1u)) <= ((unsigned short)(l28))) ? l25 : g0))), ((l27 % 1024) * (!l25)), (int)(((l27 - l28) * l28)), (!l27), &g0, ((g1[2] & 127) / 'd'));
    l24 = f1(((369 & l24) / (((-0x3) ^ l25) != 0u ? ((-0x3) ^ l25) : 1u)), (unsigned)(((int)((unsigned)((g2 / 16)) - (unsigned)((-1600970365))))), &g1[(127 | g2) & 7], &l26, (unsigned char)((-6)));
    print_int((int)(l24));
    print_char('\n');
    l28 = ((l28 * 33u) ^ ((unsigned)(g0)));
    print_int((int)(l28));
    print_char('\n');
    for (int i10 = 0; i10 < 8; i10++) {
        l28 = ((l28 * 33u) ^ ((unsigned)(g1[i10])));
    }
    print_int((int)(l28));
    print_char('\n');
    l28 = ((l28 * 33u) ^ ((unsigned)(g2)));
    print_int((int)(l28));
    print_char('\n');
    l28 = ((l28 * 33u) ^ ((unsigned)(l24)));
    l28 = ((l28 * 33u) ^ ((unsigned)(l25)));
    l28 = ((l28 * 33u) ^ ((unsigned)(l26)));
    l28 = ((l28 * 33u) ^ ((unsigned)(l27)));
    l28 = ((l28 * 33u) ^ ((unsigned)(l29)));
    l28 = ((l28 * 33u) ^ ((unsigned)(l30)));
    l28 = ((l28 * 33u) ^ ((unsigned)(l31)));
    l28 = ((l28 * 33u) ^ ((unsigned)(l32)));
    l28 = ((l28 * 33u) ^ ((unsigned)(l33)));
    l28 = ((l28 * 33u) ^ ((unsigned)(l34)));
    l28 = ((l28 * 33u) ^ ((unsigned)(l35)));
    l28 = ((l28 * 33u) ^ ((unsigned)(l36)));
    print_int((int)(l28));
    print_char('\n');
    return ((int)((l28 & 0x7fu)));
}

