/* Two-dimensional arrays: global and local, initialised with nested and with elided braces,
   2-D array parameters with a constant inner dimension (`int m[][4]` and `int (*m)[4]`), row
   pointers and pointer arithmetic on rows, arrays of strings, sizeof of an array and a row. */
#include "ssalab.h"

#define R 3
#define C 4

static int g[R][C] = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, { 9, 10, 11, 12 } };
/* Brace elision is valid C; gcc's -Wmissing-braces would flag it (ssalab ignores the pragma). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-braces"
static int elided[R][C] = { 1, 2, 3, 4, 5, 6 }; /* brace elision, rest zero */
#pragma GCC diagnostic pop
static short partial[R][C] = { { 1 }, { 2, 3 } };
static char names[4][6] = { "zero", "one", "two", "three" };
static unsigned char grid[8][8];

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

static int sum(int m[][C], int rows)
{
    int i, j, s = 0;
    for (i = 0; i < rows; i++)
        for (j = 0; j < C; j++)
            s += m[i][j];
    return s;
}

static int trace_like(int (*m)[C], int rows)
{
    int i, s = 0;
    for (i = 0; i < rows && i < C; i++)
        s += m[i][i] * (i + 1);
    return s;
}

static void scale_rows(int m[R][C], int k)
{
    int (*row)[C];
    for (row = m; row < m + R; row++) {
        int *p;
        for (p = *row; p < *row + C; p++)
            *p *= k;
    }
}

static void transpose(int src[R][C], int dst[C][R])
{
    int i, j;
    for (i = 0; i < R; i++)
        for (j = 0; j < C; j++)
            dst[j][i] = src[i][j];
}

static int row_sum(const int *row, int n)
{
    int s = 0;
    while (n--)
        s += *row++;
    return s;
}

int main(void)
{
    int local[R][C];
    int t[C][R];
    int i, j, s;
    put(sum(g, R));
    put(trace_like(g, R));
    put(sum(elided, R));
    put(elided[1][1] * 100 + elided[2][3]);
    put(partial[0][0] + partial[1][1] * 10 + partial[2][2] * 100 + partial[0][3]);
    put(names[3][0] + names[1][2] + names[0][4]);
    print_char(names[2][0]);
    print_char(names[2][1]);
    print_char(names[2][2]);
    print_char('\n');
    for (i = 0; i < R; i++)
        for (j = 0; j < C; j++)
            local[i][j] = g[i][j] * (i - j);
    put(sum(local, R));
    scale_rows(local, -3);
    put(sum(local, R));
    put(local[2][0]);
    transpose(g, t);
    put(t[3][2] * 100 + t[0][1]);
    put(row_sum(g[1], C));
    put(row_sum(&g[0][0], R * C));
    put(row_sum(*(g + 2), C));
    put(*(*(g + 1) + 2));
    put((int)(&g[2][0] - &g[0][0]));
    put((int)(g[2] - g[1]));
    put((int)sizeof(g) + (int)sizeof(g[0]) * 1000 + (int)sizeof(g[0][0]) * 100000);
    put((int)(sizeof(names) / sizeof(names[0])));
    for (i = 0; i < 8; i++)
        for (j = 0; j < 8; j++)
            grid[i][j] = (unsigned char)((i * 8 + j) * 5);
    s = 0;
    for (i = 0; i < 8; i++)
        s = s * 3 % 100003 + grid[7 - i][i] + grid[i][i];
    put(s);
    {
        unsigned char *flat = &grid[0][0];
        put(flat[63] + flat[8 * 3 + 1]);
    }
    return 0;
}
