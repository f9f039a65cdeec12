/* ctype.h -- ssalab's freestanding header: the character classes of the "C" locale (ASCII),
   defined here as static functions in plain subset C.  Each takes an int holding an unsigned
   char value or EOF, as C99 7.4 requires; every value outside 0..127 belongs to no class and
   is returned unchanged by tolower/toupper, as in the host's "C" locale. */
#ifndef _SSALAB_CTYPE_H
#define _SSALAB_CTYPE_H

static int isdigit(int c)
{
    return c >= '0' && c <= '9';
}

static int isupper(int c)
{
    return c >= 'A' && c <= 'Z';
}

static int islower(int c)
{
    return c >= 'a' && c <= 'z';
}

static int isalpha(int c)
{
    return isupper(c) || islower(c);
}

static int isalnum(int c)
{
    return isalpha(c) || isdigit(c);
}

static int isxdigit(int c)
{
    return isdigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int isspace(int c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

static int isblank(int c)
{
    return c == ' ' || c == '\t';
}

static int iscntrl(int c)
{
    return (c >= 0 && c < 32) || c == 127;
}

static int isprint(int c)
{
    return c >= 32 && c < 127;
}

static int isgraph(int c)
{
    return c > 32 && c < 127;
}

static int ispunct(int c)
{
    return isgraph(c) && !isalnum(c);
}

static int tolower(int c)
{
    return isupper(c) ? c + ('a' - 'A') : c;
}

static int toupper(int c)
{
    return islower(c) ? c - ('a' - 'A') : c;
}

#endif
