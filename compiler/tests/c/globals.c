/* Global initialisers: scalars, arrays with nested braces and brace elision, partial
   initialisation, address constants, enums, sizeof in constant expressions, tentative
   definitions, extern declarations. */
#include <stdio.h>

enum color { RED, GREEN = 5, BLUE, LAST = BLUE + 10 };
enum sign { NEG = -2, POS = 2 };

int tentative;
int tentative;
extern int later;
int table[2][3] = {{1, 2, 3}, {4, 5, 6}};
int elided[2][3] = {1, 2, 3, 4};
short partial[5] = {9, 8};
int *ptr_into = &table[1][1];
int *ptr_end = table[0] + 3;
char sizes[] = {sizeof(int), sizeof(short), sizeof(table), sizeof table[0]};
unsigned mask = ~0u >> 4;
int colors[LAST + 1];
int later = 77;
static const int consts[] = {10, 20, 30};
const int *cp = consts + 1;
struct pair {
    char tag;
    int value;
} pairs[] = {{'a', 1}, 'b', 2, {'c'}};
int neg_init = -5 * 3 + (7 % 3);
unsigned char wrapped = 257;

int main(void)
{
    int i, s = 0;
    for (i = 0; i < 6; i++)
        s = s * 10 + elided[i / 3][i % 3];
    printf("%d %d %d %d\n", RED, GREEN, BLUE, LAST);
    printf("%d %d %d\n", (int)sizeof(colors) / (int)sizeof(colors[0]), NEG < POS, (enum color)BLUE);
    printf("%d %d %d\n", tentative, later, s);
    printf("%d %d %d %d %d\n", partial[0], partial[1], partial[2], partial[4], (int)sizeof partial);
    printf("%d %d\n", *ptr_into, ptr_end[0]);
    printf("%d %d %d %d %d\n", sizes[0], sizes[1], sizes[2], sizes[3], (int)sizeof sizes);
    printf("%x %d %d\n", mask, *cp, cp[1]);
    printf("%c%d %c%d %c%d %d\n", pairs[0].tag, pairs[0].value, pairs[1].tag, pairs[1].value,
           pairs[2].tag, pairs[2].value, (int)(sizeof pairs / sizeof pairs[0]));
    printf("%d %d\n", neg_init, wrapped);
    tentative = 4;
    printf("%d\n", tentative);
    return 0;
}
