/* Header included twice by features/includes.c: the include guard must make the second
   inclusion empty. */
#ifndef FEATURES_HELPERS_H
#define FEATURES_HELPERS_H

#define HELPER_SCALE 3

struct helper_pair {
    int first, second;
};

static int helper_combine(const struct helper_pair *p)
{
    return p->first * HELPER_SCALE + p->second;
}

#endif
