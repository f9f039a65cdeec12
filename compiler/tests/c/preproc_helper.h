#ifndef PREPROC_HELPER_H
#define PREPROC_HELPER_H
#define HELPER_VALUE 99
static int helper_twice(int x) { return 2 * x; }
#endif
