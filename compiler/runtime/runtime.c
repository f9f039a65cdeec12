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
