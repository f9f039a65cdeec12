/* Pointer arithmetic, differences and comparisons, 2-D arrays and 2-D array parameters,
   pointers to pointers, increments on pointers. */
#include <stdio.h>

#define ROWS 3
#define COLS 4

static int sum2d(int m[][COLS], int rows)
{
    int r, c, s = 0;
    for (r = 0; r < rows; r++)
        for (c = 0; c < COLS; c++)
            s += m[r][c] * (r + 1);
    return s;
}

static void fill(int (*m)[COLS], int rows)
{
    int r, c;
    for (r = 0; r < rows; r++)
        for (c = 0; c < COLS; c++)
            m[r][c] = r * 10 + c;
}

static void swap(int *a, int *b)
{
    int t = *a;
    *a = *b;
    *b = t;
}

static int count_until(const short *p, short stop)
{
    const short *q = p;
    while (*q != stop)
        q++;
    return q - p;
}

int main(void)
{
    int m[ROWS][COLS];
    int a[10], *p, *q, **pp;
    short sh[6] = {5, 4, 3, 2, 1, 0};
    char text[8] = "abcdefg";
    char *cp;
    int i, x = 3, y = 9;

    fill(m, ROWS);
    printf("%d %d %d\n", m[2][3], *(*(m + 1) + 2), sum2d(m, ROWS));
    printf("%d %d\n", (int)sizeof(m), (int)sizeof(m[0]));
    for (i = 0; i < 10; i++)
        a[i] = i * i;
    p = a + 3;
    q = &a[8];
    printf("%d %d %d %d\n", *p, q - p, p - q, *(q - 2));
    printf("%d %d %d\n", p < q, p == a + 3, q >= p + 5);
    printf("%d ", *p++);
    printf("%d ", *++p);
    printf("%d ", (*p)++);
    printf("%d\n", *p);
    p += 2;
    p -= 1;
    printf("%d %d\n", *p, p[-1]);
    pp = &p;
    **pp = 100;
    printf("%d %d\n", a[6], *(*pp + 1));
    swap(&x, &y);
    printf("%d %d\n", x, y);
    printf("%d\n", count_until(sh, 1));
    cp = text + 6;
    while (cp > text)
        putchar(*--cp);
    putchar('\n');
    printf("%c %c\n", *(text + 2), 3[text]);
    p = 0;
    printf("%d %d\n", p == 0, !p);
    return 0;
}
