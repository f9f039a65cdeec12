/* Preprocessor: object-like and function-like macros, macros calling macros, argument
   parenthesisation, `#` stringification (also of string and character literals), `##` pasting
   into identifiers and numbers, `\` line continuation, #undef and redefinition, a macro that
   names itself (expanded once), a function-like macro name used without arguments,
   #if/#elif/#else/#endif with defined(), integer arithmetic, ?: and logical operators in
   conditions, #ifdef/#ifndef, nested conditionals, #error inside a skipped group, and //
   line comments (also after a macro definition and inside an expression). */
#include "ssalab.h"

#define N 10
#define TWICE(x) ((x) * 2)
#define SQUARE(x) ((x) * (x))
#define BAD_SQUARE(x) x * x
#define QUAD(x) TWICE(TWICE(x))
#define STR(x) #x
#define XSTR(x) STR(x)
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define MAKE_GETTER(name, value) \
    static int get_##name(void)  \
    {                            \
        return value;            \
    }
#define SUM3(a, b, c) \
    ((a) +            \
     (b) +            \
     (c))
#define self self
#define put_twice(v) (put(v), put(v))
// A line comment: /* is not a block comment start here, and "quotes" are just text.
#define AFTER_LINE_COMMENT 5 // trailing line comment, not part of the macro
#define SLASHES "// inside a string is not a comment"
#define DIVIDE(a, b) ((a) / /* a block comment between operands */ (b))

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

MAKE_GETTER(alpha, 11)
MAKE_GETTER(beta, N * 3)

static int CAT(fun, 42)(void)
{
    return 4242;
}

static int identity(int v)
{
    return v;
}
#define identity(v) ((v) + 1000)

#define VERSION 3
#define FEATURE_A
#undef FEATURE_B

#if VERSION > 2 && defined(FEATURE_A) && !defined FEATURE_B
#define CONFIG 1
#elif VERSION == 2
#define CONFIG 2
#else
#define CONFIG 3
#endif

#if (1 << 10) == 1024 && (17 % 5) == 2 && (-7 / 2) == -3 && (0x10 | 0x01) == 17
#define ARITH_OK 1
#else
#define ARITH_OK 0
#endif

#if -1 < 0 && (3 > 2 ? 5 : 6) == 5 && !0 && ~0 == -1
#define LOGIC_OK 1
#else
#define LOGIC_OK 0
#endif

#if UNDEFINED_NAME == 0 && !defined(UNDEFINED_NAME)
#define UNDEF_IS_ZERO 1
#else
#define UNDEF_IS_ZERO 0
#endif

#ifdef FEATURE_A
#ifndef FEATURE_B
#if 0
#error "this group is skipped"
#else
#define NESTED 7
#endif
#else
#define NESTED 8
#endif
#else
#define NESTED 9
#endif

#ifndef __SSALAB__
#define COMPILER_KNOWN 1
#else
#define COMPILER_KNOWN 1
#endif

int main(void)
{
    int xy = 5, self = 77;
    put(N);
    put(TWICE(N + 1));
    put(SQUARE(N - 3));
    put(BAD_SQUARE(N - 3)); /* N - 3 * N - 3 */
    put(QUAD(3));
    put_str(STR(hello world));
    put_str(STR(a + b));
    put_str(XSTR(N));
    put_str(STR(N));
    put_str(STR("quoted\n" 'c'));
    put_str(XSTR(TWICE(1)));
    put(CAT(x, y));
    put(XCAT(1, 23) + 1);
    put(CAT(0x, 1F));
    put(get_alpha() + get_beta());
    put(fun42());
    put(SUM3(1, 2, 3) * SUM3(N, N, N));
    put(self);
    put_twice(8);
    put(identity(5));
    put((identity)(5));
    put(CONFIG);
    put(ARITH_OK);
    put(LOGIC_OK);
    put(UNDEF_IS_ZERO);
    put(NESTED);
    put(COMPILER_KNOWN);
    put(AFTER_LINE_COMMENT * 2); // 10
    put_str(SLASHES);
    put(DIVIDE(100, 7)); /* block */ // then line
    put(9 // comment in the middle of an expression
        + 1);
#undef N
#define N 20
    put(N);
#undef TWICE
#define TWICE(x) ((x) + (x) + 1)
    put(TWICE(N));
    return 0;
}
