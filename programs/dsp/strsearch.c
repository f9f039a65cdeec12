/* String search: naive substring search counting (possibly overlapping) occurrences of several
   patterns in a text built from string literals, plus a character-class scan. */
#include "ssalab.h"

static const char text[] =
    "the quick brown fox jumps over the lazy dog; the dog barks back at the fox. "
    "then the fox and the dog agree: there is a theory that the theme is the thesis. "
    "aaaaaaaaaaaaaaaaaab abababababababc mississippi missing misses";

static const char *const patterns[] = {
    "the", "fox", "dog", "aab", "abababc", "issi", "miss", "zzz", "s", "the theme",
};

#define NPAT ((int)(sizeof(patterns) / sizeof(patterns[0])))

/* Index of the first occurrence of pat in s at or after from, or -1. */
int find_from(const char *s, const char *pat, int from)
{
    int i, j;
    for (i = from; s[i] != '\0'; i++) {
        for (j = 0; pat[j] != '\0' && s[i + j] == pat[j]; j++)
            ;
        if (pat[j] == '\0')
            return i;
    }
    return -1;
}

int count_occurrences(const char *s, const char *pat)
{
    int n = 0, pos = 0;
    while ((pos = find_from(s, pat, pos)) >= 0) {
        n++;
        pos++;
    }
    return n;
}

int count_words(const char *s)
{
    int words = 0, inword = 0;
    char c;
    while ((c = *s++) != 0) {
        int letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (letter && !inword)
            words++;
        inword = letter;
    }
    return words;
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

int main(void)
{
    int k;
    unsigned int h = 0;
    for (k = 0; k < NPAT; k++) {
        int c = count_occurrences(text, patterns[k]);
        int first = find_from(text, patterns[k], 0);
        print_int(c);
        print_char(' ');
        put_line(first);
        h = h * 101u + (unsigned int)c + (unsigned int)first;
    }
    put_line(count_words(text));
    put_line((int)h);
    return 0;
}
