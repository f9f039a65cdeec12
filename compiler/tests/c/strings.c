/* String literals: arrays initialised by strings, adjacent concatenation, escapes, pointers
   into literals, arrays of string pointers, a small strlen/strcmp. */
#include <stdio.h>

static const char *names[] = {"zero", "one", "two", "three"};
static char greeting[] = "hello, " "world";
static char exact[5] = "abcde";
static const char *tail = "abcdef" + 2;
static char matrix[2][4] = {"ab", "xyz"};

static int my_strlen(const char *s)
{
    int n = 0;
    while (s[n])
        n++;
    return n;
}

static int my_strcmp(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

int main(void)
{
    char local[] = "t\ta\\b\"q\'";
    char buf[16] = "x";
    const char *p = "same";
    const char *q = "same";
    int i;

    printf("%s|%d|%d\n", greeting, (int)sizeof(greeting), my_strlen(greeting));
    for (i = 0; i < 4; i++)
        printf("%s ", names[i]);
    printf("\n%c%c%c%c%c %s\n", exact[0], exact[1], exact[2], exact[3], exact[4], tail);
    printf("%s %d %d\n", local, (int)sizeof(local), local[1]);
    printf("%d %d %d\n", buf[0], buf[1], buf[15]);
    printf("%d %d\n", my_strcmp("abc", "abd") < 0, my_strcmp(p, q));
    printf("%s %s %d\n", matrix[0], matrix[1], matrix[0][3]);
    printf("%c\n", "xyz"[1]);
    printf("%d\n", (int)sizeof("four"));
    printf("A\x42\103\n");
    return 0;
}
