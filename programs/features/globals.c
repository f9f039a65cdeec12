/* Global initialisers: scalars (negative, constant expressions, character constants), arrays
   fully and partially initialised (the rest is zero), 2-D arrays with nested braces, char arrays
   from strings (exact size, larger size, size from the string), pointers to string literals,
   pointers to globals and to array elements (address constants with offsets), arrays of
   pointers, structs with nested aggregates, const tables, and zero-initialised globals. */
#include "ssalab.h"

struct cfg {
    const char *name;
    short limits[2];
    struct {
        unsigned char on;
        int level;
    } mode;
};

int g_int = -42;
int g_expr = 3 * 4 + (1 << 5) - 'A' % 10;
unsigned int g_unsigned = 0xdeadbeefu;
short g_short = -32768;
unsigned char g_uchar = 'z';
int g_zero;
int g_array[8] = { 1, 2, 3 };
int g_uninit_array[5];
static const short g_table[] = { 10, -20, 30, -40, 50 };
int g_matrix[3][3] = { { 1, 2, 3 }, { 4 }, { 7, 8, 9 } };
char g_str_exact[] = "hello";
char g_str_big[16] = "hi";
char g_chars[4] = { 'a', 'b', 'c', 'd' }; /* no terminator */
const char *g_ptr_to_literal = "literal";
const char *g_words[] = { "alpha", "beta", "", "delta" };
int *g_ptr = &g_int;
int *g_elem_ptr = &g_array[2];
int *g_offset_ptr = g_array + 5;
int *g_ptrs[3] = { &g_zero, &g_array[1], &g_matrix[2][1] };
short *g_table_end = (short *)0;
struct cfg g_cfg = { "cfg", { -5, 5 }, { 1, 99 } };
/* Members left out of a brace list are zero; gcc's -Wmissing-field-initializers would flag the
   omission this test is about (ssalab ignores the pragma). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
struct cfg g_cfgs[2] = { { "one", { 1, 2 }, { 0, 3 } }, { "two", { 3 }, { 1 } } };
#pragma GCC diagnostic pop
unsigned char g_bytes[3] = { 255, 0x80, 7 };
signed char g_sbytes[3] = { -1, -128, 127 };

static void put(int v)
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

int main(void)
{
    int i, s;
    put(g_int);
    put(g_expr);
    put((int)(g_unsigned >> 16));
    put(g_short);
    put(g_uchar);
    put(g_zero);
    s = 0;
    for (i = 0; i < 8; i++)
        s = s * 10 + g_array[i];
    put(s);
    s = 0;
    for (i = 0; i < 5; i++)
        s += g_uninit_array[i] + g_table[i];
    put(s);
    put((int)(sizeof(g_table) / sizeof(g_table[0])));
    s = 0;
    for (i = 0; i < 9; i++)
        s = s * 10 + g_matrix[i / 3][i % 3];
    put(s);
    put_str(g_str_exact);
    put((int)sizeof(g_str_exact));
    put_str(g_str_big);
    put(g_str_big[2] + g_str_big[15]);
    put(g_chars[3] - g_chars[0]);
    put_str(g_ptr_to_literal);
    for (i = 0; i < 4; i++)
        print_int((int)sizeof(g_words[i][0]) + g_words[i][0]);
    print_char('\n');
    put_str(g_words[3]);
    put(*g_ptr);
    *g_ptr = 7;
    put(g_int);
    put(*g_elem_ptr + g_elem_ptr[-1]);
    put((int)(g_offset_ptr - g_array));
    *g_offset_ptr = 66;
    put(g_array[5]);
    put(*g_ptrs[0] + *g_ptrs[1] + *g_ptrs[2]);
    put(g_table_end == 0);
    put_str(g_cfg.name);
    put(g_cfg.limits[0] * g_cfg.limits[1] + g_cfg.mode.on + g_cfg.mode.level);
    put_str(g_cfgs[1].name);
    put(g_cfgs[0].limits[1] + g_cfgs[1].limits[0] + g_cfgs[1].limits[1] + g_cfgs[0].mode.level +
        g_cfgs[1].mode.on + g_cfgs[1].mode.level);
    put(g_bytes[0] + g_bytes[1] + g_bytes[2]);
    put(g_sbytes[0] + g_sbytes[1] + g_sbytes[2]);
    return 0;
}
