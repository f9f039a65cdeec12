/* CRC-32 (IEEE 802.3, reflected, poly 0xedb88320, init and final xor 0xffffffff): bit-serial,
   a 256-entry table built at start-up, and a 16-entry nibble table from a const initialiser.
   The check value of "123456789" is 0xcbf43926; also Adler-32 and Fletcher-16 checksums
   (Adler-32 of "Wikipedia" is 0x11e60398). */
#include "ssalab.h"

#define POLY 0xedb88320u

static unsigned int table[256];

static const unsigned int nibble_table[16] = {
    0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu, 0x76dc4190u, 0x6b6b51f4u,
    0x4db26158u, 0x5005713cu, 0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
    0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu
};

unsigned int crc32_bitwise(const unsigned char *p, int n)
{
    unsigned int crc = 0xffffffffu;
    int k;
    while (n--) {
        crc ^= *p++;
        for (k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (POLY & (0u - (crc & 1u)));
    }
    return ~crc;
}

void crc32_make_table(void)
{
    unsigned int i;
    for (i = 0; i < 256; i++) {
        unsigned int c = i;
        int k;
        for (k = 0; k < 8; k++)
            c = c & 1u ? (c >> 1) ^ POLY : c >> 1;
        table[i] = c;
    }
}

unsigned int crc32_table(const unsigned char *p, int n)
{
    unsigned int crc = 0xffffffffu;
    const unsigned char *end = p + n;
    while (p != end)
        crc = table[(crc ^ *p++) & 0xffu] ^ (crc >> 8);
    return crc ^ 0xffffffffu;
}

unsigned int crc32_nibble(const unsigned char *p, int n)
{
    unsigned int crc = ~0u;
    int i;
    for (i = 0; i < n; i++) {
        crc ^= p[i];
        crc = nibble_table[crc & 15u] ^ (crc >> 4);
        crc = nibble_table[crc & 15u] ^ (crc >> 4);
    }
    return ~crc;
}

unsigned int adler32(const unsigned char *p, int n)
{
    unsigned int a = 1, b = 0;
    while (n-- > 0) {
        a = (a + *p++) % 65521u;
        b = (b + a) % 65521u;
    }
    return (b << 16) | a;
}

unsigned short fletcher16(const unsigned char *p, int n)
{
    unsigned short s1 = 0, s2 = 0;
    int i;
    for (i = 0; i < n; i++) {
        s1 = (unsigned short)((s1 + p[i]) % 255);
        s2 = (unsigned short)((s2 + s1) % 255);
    }
    return (unsigned short)((s2 << 8) | s1);
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

static void put_hex(unsigned int v)
{
    int shift;
    for (shift = 28; shift >= 0; shift -= 4)
        print_char("0123456789abcdef"[(v >> shift) & 15u]);
    print_char('\n');
}

int main(void)
{
    static const unsigned char check[] = "123456789";
    static const unsigned char wiki[] = "Wikipedia";
    static unsigned char buf[2048];
    unsigned int seed = 11u, c;
    int i;
    crc32_make_table();
    c = crc32_bitwise(check, 9);
    put_hex(c);
    put_line(c == 0xcbf43926u);
    put_line(crc32_table(check, 9) == c);
    put_line(crc32_nibble(check, 9) == c);
    put_line(table[128] == nibble_table[8]);
    put_hex(adler32(wiki, 9));
    put_line(adler32(wiki, 9) == 0x11e60398u);
    put_line(fletcher16((const unsigned char *)"abcde", 5)); /* 0xc8f0 = 51440 */
    for (i = 0; i < 2048; i++) {
        seed = seed * 1103515245u + 12345u;
        buf[i] = (unsigned char)(seed >> 16);
    }
    c = crc32_table(buf, 2048);
    put_hex(c);
    put_line(crc32_bitwise(buf, 2048) == c);
    put_line(crc32_nibble(buf, 2048) == c);
    put_hex(adler32(buf, 2048));
    put_line(fletcher16(buf, 2048));
    return 0;
}
