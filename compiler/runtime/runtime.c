/* ssalab runtime routines, compiled with every program for the machine targets.
 *
 * Neither target divides in hardware (isa.md §A5: the ST231 has only the `divs` step;
 * ST120 has no divider), so instruction selection turns `/` and `%` into calls to these
 * routines. They use only shifts, compares, additions and subtractions (restoring
 * shift-subtract division, one quotient bit per iteration), never `/` or `%`.
 * Semantics are C99's with ssalab's wrap-around: the quotient truncates toward zero,
 * INT_MIN / -1 == INT_MIN and INT_MIN % -1 == 0. Division by zero returns 0 here (the
 * interpreter traps; C leaves it undefined, and the test programs never do it). */

unsigned __ssalab_divu(unsigned n, unsigned d)
{
    unsigned q = 0;
    unsigned r = 0;
    int i;
    if (d == 0)
        return 0;
    for (i = 31; i >= 0; i--) {
        r = (r << 1) | ((n >> i) & 1u);
        if (r >= d) {
            r = r - d;
            q = q | (1u << i);
        }
    }
    return q;
}

unsigned __ssalab_modu(unsigned n, unsigned d)
{
    unsigned r = 0;
    int i;
    if (d == 0)
        return 0;
    for (i = 31; i >= 0; i--) {
        r = (r << 1) | ((n >> i) & 1u);
        if (r >= d)
            r = r - d;
    }
    return r;
}

int __ssalab_divs(int n, int d)
{
    unsigned un = n < 0 ? 0u - (unsigned)n : (unsigned)n;
    unsigned ud = d < 0 ? 0u - (unsigned)d : (unsigned)d;
    unsigned q = __ssalab_divu(un, ud);
    if ((n < 0) != (d < 0))
        q = 0u - q;
    return (int)q;
}

int __ssalab_mods(int n, int d)
{
    unsigned un = n < 0 ? 0u - (unsigned)n : (unsigned)n;
    unsigned ud = d < 0 ? 0u - (unsigned)d : (unsigned)d;
    unsigned r = __ssalab_modu(un, ud);
    if (n < 0)
        r = 0u - r;
    return (int)r;
}

/* printf conversions with flags, a width, a precision or an h/hh length, and %o: the
 * targets expand a literal format at compile time and call these for such conversions
 * (the plain ones are expanded inline). `spec` holds the conversion character in bits 0..7
 * and the flags of compiler/src/isel/printf_spec.rs above (256 '-', 512 '0', 1024 '+',
 * 2048 ' ', 4096 '#', 8192 h, 16384 hh); `width` >= 0; `prec` < 0 when absent. The rules are
 * C99 7.19.6.1's, as the reference formatter in printf_spec.rs implements them. The driver
 * adds these routines only to modules that call printf. */
void print_char(int c);

void __ssalab_printf_pad(int c, int n)
{
    while (n > 0) {
        print_char(c);
        n--;
    }
}

void __ssalab_printf_int(int value, int spec, int width, int prec)
{
    char digits[12];
    char prefix[2];
    int conv = spec & 255;
    unsigned u = (unsigned)value;
    int n = 0;
    int npre = 0;
    int zeros;
    int body;
    int fill;
    if (conv == 'c') {
        fill = width - 1;
        if ((spec & 256) == 0)
            __ssalab_printf_pad(' ', fill);
        print_char(value);
        if ((spec & 256) != 0)
            __ssalab_printf_pad(' ', fill);
        return;
    }
    if ((spec & 16384) != 0) {
        u = u & 255u;
        if ((conv == 'd' || conv == 'i') && u >= 128u)
            u = u | 0xffffff00u;
    } else if ((spec & 8192) != 0) {
        u = u & 65535u;
        if ((conv == 'd' || conv == 'i') && u >= 32768u)
            u = u | 0xffff0000u;
    }
    if (conv == 'd' || conv == 'i') {
        if ((int)u < 0) {
            prefix[npre++] = '-';
            u = 0u - u;
        } else if ((spec & 1024) != 0) {
            prefix[npre++] = '+';
        } else if ((spec & 2048) != 0) {
            prefix[npre++] = ' ';
        }
    }
    if (conv == 'x' || conv == 'X' || conv == 'p') {
        int letter = conv == 'X' ? 'A' - 10 : 'a' - 10;
        if ((u != 0u && (spec & 4096) != 0) || conv == 'p') {
            prefix[npre++] = '0';
            prefix[npre++] = conv == 'X' ? 'X' : 'x';
        }
        while (u != 0u) {
            int d = (int)(u & 15u);
            digits[n++] = (char)(d < 10 ? '0' + d : letter + d);
            u = u >> 4;
        }
    } else if (conv == 'o') {
        while (u != 0u) {
            digits[n++] = (char)('0' + (int)(u & 7u));
            u = u >> 3;
        }
    } else {
        while (u != 0u) {
            unsigned q = u / 10u;
            digits[n++] = (char)('0' + (int)(u - q * 10u));
            u = q;
        }
    }
    zeros = (prec < 0 ? 1 : prec) - n;
    if (zeros < 0)
        zeros = 0;
    if (conv == 'o' && (spec & 4096) != 0 && zeros == 0)
        zeros = 1;
    body = npre + zeros + n;
    if ((spec & 512) != 0 && (spec & 256) == 0 && prec < 0 && width > body) {
        zeros = zeros + width - body;
        body = width;
    }
    fill = width - body;
    if ((spec & 256) == 0)
        __ssalab_printf_pad(' ', fill);
    if (npre > 0)
        print_char(prefix[0]);
    if (npre > 1)
        print_char(prefix[1]);
    __ssalab_printf_pad('0', zeros);
    while (n > 0) {
        n--;
        print_char(digits[n]);
    }
    if ((spec & 256) != 0)
        __ssalab_printf_pad(' ', fill);
}

void __ssalab_printf_str(const char *s, int spec, int width, int prec)
{
    int n = 0;
    int k;
    while ((prec < 0 || n < prec) && s[n] != 0)
        n++;
    if ((spec & 256) == 0)
        __ssalab_printf_pad(' ', width - n);
    for (k = 0; k < n; k++)
        print_char(s[k]);
    if ((spec & 256) != 0)
        __ssalab_printf_pad(' ', width - n);
}
