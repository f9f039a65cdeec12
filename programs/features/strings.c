/* String literals and char arrays: adjacent-literal concatenation, escapes inside strings,
   indexing a literal, sizeof of a literal, embedded NUL, char arrays initialised from literals
   and modified, arrays of char arrays, copying and comparing by hand, and character arithmetic
   (case conversion, digit values). */
#include "ssalab.h"

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

static void put_str(const char *s)
{
    while (*s)
        print_char(*s++);
}

static int length(const char *s)
{
    int n = 0;
    while (s[n])
        n++;
    return n;
}

static void upcase(char *s)
{
    for (; *s; s++)
        if (*s >= 'a' && *s <= 'z')
            *s = (char)(*s - 'a' + 'A');
}

static int same(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

int main(void)
{
    char buf[32] = "mutable";
    char copy[32];
    char table[3][8] = { "red", "green", "blue" };
    const char *joined = "con" "cat" "enated";
    const char *esc = "tab\there\nquote\" backslash\\ hex\x41 oct\102 nul";
    char *d;
    const char *s;
    int i, h = 0;
    put_str(joined);
    print_char('\n');
    put(length(joined));
    put_str(esc);
    print_char('\n');
    put(length(esc));
    put("abc"[1]);
    put(*("xyz" + 2));
    put((int)sizeof("abc"));
    put((int)sizeof("a\0b"));
    put(length("a\0b"));
    put((int)sizeof(buf) + length(buf));
    buf[0] = 'M';
    buf[7] = '!';
    buf[8] = '\0';
    put_str(buf);
    print_char('\n');
    for (d = copy, s = buf; (*d = *s) != '\0'; d++, s++)
        ;
    upcase(copy);
    put_str(copy);
    print_char('\n');
    put(same(buf, copy));
    put(same("same", "same"));
    put(same("", ""));
    put(same("ab", "abc"));
    for (i = 0; i < 3; i++) {
        put_str(table[i]);
        print_char(i < 2 ? ',' : '\n');
    }
    table[1][0] = 'G';
    table[2][4] = 's';
    put_str(table[1]);
    put_str(table[2]);
    print_char('\n');
    for (s = "0123456789"; *s; s++)
        h = h * 10 + (*s - '0') % 7;
    put(h);
    put('z' - 'a' + 1);
    {
        char c = 'q';
        c -= 'a' - 'A';
        put(c);
        print_char(c);
        print_char('\n');
    }
    {
        static const char hexdigits[] = "0123456789abcdef";
        unsigned int v = 0xc0ffeeu;
        char out[9];
        int k;
        for (k = 7; k >= 0; k--) {
            out[k] = hexdigits[v & 15u];
            v >>= 4;
        }
        out[8] = 0;
        put_str(out);
        print_char('\n');
    }
    return 0;
}
