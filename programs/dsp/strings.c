/* String kernels on char arrays: length, comparison, copy/concatenate, reversal, substring search
   (naive strstr), Knuth-Morris-Pratt with a failure table, Boyer-Moore-Horspool with a
   256-entry skip table, decimal conversion both ways.  Names avoid the standard ones so no libc
   declaration is involved. */
#include "ssalab.h"

#define MAXPAT 32

int str_len(const char *s)
{
    const char *p = s;
    while (*p)
        ++p;
    return (int)(p - s);
}

int str_cmp(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

char *str_cpy(char *dst, const char *src)
{
    char *d = dst;
    while ((*d++ = *src++))
        ;
    return dst;
}

char *str_cat(char *dst, const char *src)
{
    str_cpy(dst + str_len(dst), src);
    return dst;
}

void str_reverse(char *s)
{
    char *e = s + str_len(s) - 1;
    while (s < e) {
        char t = *s;
        *s++ = *e;
        *e-- = t;
    }
}

/* Naive search: pointer to the first occurrence, or 0. */
const char *str_str(const char *hay, const char *needle)
{
    if (!*needle)
        return hay;
    for (; *hay; hay++) {
        const char *h = hay, *n = needle;
        while (*h && *n && *h == *n) {
            h++;
            n++;
        }
        if (!*n)
            return hay;
    }
    return 0;
}

/* Counts all (overlapping) occurrences of pat in text with KMP. m <= MAXPAT. */
int kmp_count(const char *text, int n, const char *pat, int m)
{
    int fail[MAXPAT];
    int i, k = 0, count = 0;
    fail[0] = 0;
    for (i = 1; i < m; i++) {
        while (k > 0 && pat[i] != pat[k])
            k = fail[k - 1];
        if (pat[i] == pat[k])
            k++;
        fail[i] = k;
    }
    k = 0;
    for (i = 0; i < n; i++) {
        while (k > 0 && text[i] != pat[k])
            k = fail[k - 1];
        if (text[i] == pat[k])
            k++;
        if (k == m) {
            count++;
            k = fail[k - 1];
        }
    }
    return count;
}

/* Boyer-Moore-Horspool: index of the first occurrence or -1. */
int bmh_search(const char *text, int n, const char *pat, int m)
{
    int skip[256];
    int i, pos = 0;
    if (m == 0)
        return 0;
    for (i = 0; i < 256; i++)
        skip[i] = m;
    for (i = 0; i < m - 1; i++)
        skip[(unsigned char)pat[i]] = m - 1 - i;
    while (pos <= n - m) {
        int j = m - 1;
        while (j >= 0 && text[pos + j] == pat[j])
            j--;
        if (j < 0)
            return pos;
        pos += skip[(unsigned char)text[pos + m - 1]];
    }
    return -1;
}

/* Decimal with optional sign; at most 9 digits are read so no overflow. */
int str_to_int(const char *s, const char **end)
{
    int sign = 1, v = 0, digits = 0;
    while (*s == ' ')
        s++;
    if (*s == '-' || *s == '+')
        sign = *s++ == '-' ? -1 : 1;
    while (*s >= '0' && *s <= '9' && digits < 9) {
        v = v * 10 + (*s++ - '0');
        digits++;
    }
    *end = s;
    return sign * v;
}

/* Writes v in decimal; handles INT_MIN through unsigned arithmetic. */
char *int_to_str(int v, char *buf)
{
    char *p = buf;
    unsigned int u = v < 0 ? 0u - (unsigned int)v : (unsigned int)v;
    do {
        *p++ = (char)('0' + u % 10u);
        u /= 10u;
    } while (u);
    if (v < 0)
        *p++ = '-';
    *p = '\0';
    str_reverse(buf);
    return buf;
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

static void put_str(const char *s)
{
    while (*s)
        print_char(*s++);
    print_char('\n');
}

static const char text[] =
    "In signal processing, a finite impulse response filter is a filter whose impulse "
    "response is of finite duration, because it settles to zero in finite time. This is in "
    "contrast to infinite impulse response filters, which may have internal feedback. "
    "abracadabra abracadabra cadabra";

int main(void)
{
    static char buf[128], num[16];
    static const char *const pats[] = { "filter", "impulse response", "finite", "abra", "zebra", "a", "response filters" };
    const char *end;
    int n = str_len(text), k;
    put_line(n);
    for (k = 0; k < (int)(sizeof(pats) / sizeof(pats[0])); k++) {
        const char *hit = str_str(text, pats[k]);
        int m = str_len(pats[k]);
        int b = bmh_search(text, n, pats[k], m);
        print_int(hit ? (int)(hit - text) : -1);
        print_char(' ');
        print_int(b);
        print_char(' ');
        put_line(kmp_count(text, n, pats[k], m));
    }
    put_line(kmp_count("aaaaaaaaaa", 10, "aaa", 3));
    put_line(str_cmp("apple", "apply") < 0);
    put_line(str_cmp("apple", "apple"));
    put_line(str_cmp("b", "abc") > 0);
    put_line(str_cmp("", "x") < 0);
    str_cpy(buf, "ssa");
    str_cat(buf, "lab");
    str_cat(buf, "-");
    str_cat(buf, int_to_str(-2147483647 - 1, num));
    put_str(buf);
    put_line(str_len(buf));
    str_reverse(buf);
    put_str(buf);
    put_str(int_to_str(0, num));
    put_str(int_to_str(907, num));
    k = str_to_int("  -12345xyz", &end);
    put_line(k);
    put_str(end);
    k = str_to_int("+77", &end);
    put_line(k + str_to_int("123456789012", &end));
    put_str(end);
    return 0;
}
