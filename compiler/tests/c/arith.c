/* Integer promotions, usual arithmetic conversions, truncation, signed and unsigned
   division, remainder and shifts (ILP32, plain char signed). No undefined behaviour. */
#include <stdio.h>

static int id(int x) { return x; }

int main(void)
{
    signed char c = -1;
    unsigned char uc = 200;
    short s = -3;
    unsigned short us = 65535;
    unsigned u = 1;
    int i = -1;
    char ch = (char)300;
    short sh = (short)70000;
    unsigned char b = (unsigned char)-5;
    unsigned char k;
    int n = 0;
    unsigned int big = 0xfffffff0u;
    long l = -5L;
    unsigned long ul = 3UL;

    printf("%d %d %d\n", c + uc, uc * uc, s * us);
    printf("%d %d\n", i < u, c < uc);
    printf("%u %u\n", u - 2, big + 0x20u);
    printf("%d %d %d %d\n", -7 / 2, -7 % 2, 7 / -2, 7 % -2);
    printf("%d %d\n", id(-7) / id(2), id(-7) % id(2));
    printf("%u %u %u\n", 0xffffffffu / 3u, 0xfffffff0u % 7u, big / id(16));
    printf("%d %d %d\n", -16 >> 2, id(-16) >> 2, (int)(0x80000000u >> 31));
    printf("%u\n", (unsigned)id(-16) >> 2);
    printf("%d %d %d\n", ch, sh, b);
    for (k = 250; k != 4; k++)
        n++;
    printf("%d\n", n);
    c = 127;
    c++;
    printf("%d\n", c);
    uc = 255;
    uc += 10;
    printf("%d\n", uc);
    s = 32767;
    s += 1;
    printf("%d\n", s);
    us = 0;
    us--;
    printf("%d\n", us);
    printf("%d %d\n", sizeof(char) + sizeof(short) * 10 + sizeof(int) * 100, (int)sizeof(u));
    printf("%d %u\n", l < ul, l + ul);
    printf("%d %d\n", -1 < 0u, (unsigned char)-1 < 0);
    printf("%x %x\n", 0x12345678 << 4, 0x12345678u >> 28);
    printf("%d %d %d\n", ~0, ~0u == 0xffffffffu, !5);
    printf("%d %d\n", (short)0x18000, (unsigned short)-2);
    printf("%d\n", 'a' + '\n' + '\x41' + '\101' + '\0');
    printf("%d %d\n", (char)'\xff', (unsigned char)'\xff');
    i = 10;
    i <<= 2;
    i |= 1;
    i ^= 0xff;
    i &= 0x7f;
    i %= 7;
    printf("%d\n", i);
    u = 7;
    u -= 10;
    u >>= 1;
    printf("%u\n", u);
    i = -20;
    i >>= 2;
    i /= 2;
    printf("%d\n", i);
    ch = 100;
    ch *= 3;
    printf("%d\n", ch);
    uc = 3;
    uc -= 4;
    printf("%d\n", uc);
    uc = 200;
    printf("%d\n", (uc << 24) < 0);
    return 0;
}
