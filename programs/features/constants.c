/* Constant typing and values: hexadecimal constants that do not fit int (unsigned int),
   suffixes, octal, character constants and escapes (simple, octal, hexadecimal), character
   constants have type int, and integer constant expressions in array sizes, case labels and
   enums.  Long-suffixed constants are only used where ILP32 and the host's LP64 agree. */
#include "ssalab.h"

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

enum { E1 = 0x10, E2 = 'a' - 'A', E3 = (1 << 4) | 3, E4 = -E3, E5 = 010 + 0x10 + 10 };

static int table[E3 - E1 + 1 + sizeof(int)];

int main(void)
{
    /* 0x80000000 does not fit int: it is unsigned int, so these comparisons are unsigned. */
    put(0x80000000 > 0);
    put(0x80000000 > 0x7fffffff);
    put((int)(0x80000000 >> 31));
    put((int)(0xffffffff / 2));
    put(0xffffffff == 4294967295u);
    put(0x7fffffff + 0 > 0);     /* fits int */
    put((int)(4294967295u % 1000u));
    put((int)(4294967295U >> 20));
    put((int)(0x80000000L >> 31));
    put((int)(0x7fffffffL / 3L));
    put((int)(100UL / 7ul));
    put((int)(123lu + 1Lu + 2uL));
    put(0777);
    put(010 + 0 + 00);
    put(0xFf + 0XaB);
    put(2147483647);
    put(-2147483647 - 1);
    /* Character constants: type int, plain char signed for '\377'-style values. */
    put('a');
    put('\n');
    put('\x41');
    put('\101');
    put('\0');
    put('\t' + '\v' * 100 + '\f' * 10000);
    put('\r' + '\b' * 100 + '\a' * 10000);
    put('\'' + '\\' * 1000);
    put('\"' + '\?' * 1000);
    put('\377');
    put('\x7f');
    put('\12');
    put((int)sizeof('a'));
    put((int)sizeof((char)'a'));
    put('0' + 7 == '7');
    /* Constant expressions everywhere. */
    put(E1 + E2 * 10 + E3 * 100);
    put(E4);
    put(E5);
    put((int)(sizeof(table) / sizeof(table[0])));
    {
        int k, s = 0;
        for (k = 0; k < 6; k++)
            switch (k * 16) {
            case 0x10 - 16:
                s += 1;
                break;
            case E1:
                s += 10;
                break;
            case 'A' - 33:
                s += 100;
                break;
            case (3 * 16) ? 48 : 0:
                s += 1000;
                break;
            case -1 + 65:
                s += 10000;
                break;
            default:
                s += 100000;
            }
        put(s);
    }
    put(1 ? 2 : 3);
    put((5 > 3) + (5 < 3) * 10 + (5 == 5) * 100 + !0 * 1000 + !7 * 10000);
    put(~0);
    put((int)~0u);
    put(-(-5));
    put(- -5);
    put(+5);
    return 0;
}
