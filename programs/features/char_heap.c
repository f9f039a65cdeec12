/* GCC's data alignment (issue 24): a static char array of 32 bytes or more is aligned like
   gcc -m32 aligns it (to 32 bytes; 4 from 4 bytes up), and so is a large local char array (to
   8 on the targets' 8-byte-aligned stack), so a program may carve words out of a char pool.
   Under ssalab the targets trap on a misaligned word access: this program would trap if the
   pools were byte-aligned.  A bump allocator hands out word-aligned blocks of a static char
   heap; a local char buffer is used as an int array. */
#include "ssalab.h"

#define HEAP_BYTES 2048

static char heap[HEAP_BYTES];
static unsigned int heap_used;
char tail_pad;                /* a char global between the pools: they must not follow it */
char second_pool[64];

static void *carve(unsigned int bytes)
{
    unsigned int at = (heap_used + 3u) & ~3u;
    if (at + bytes > HEAP_BYTES)
        return 0;
    heap_used = at + bytes;
    return &heap[at];
}

static int sum_words(const int *p, int n)
{
    int s = 0;
    int i;
    for (i = 0; i < n; i++)
        s += p[i] * (i + 1);
    return s;
}

int main(void)
{
    int k;
    char local[40];
    int *w = (int *)local;
    unsigned int *second = (unsigned int *)second_pool;
    tail_pad = 'x';
    for (k = 0; k < 10; k++) {
        int n = 3 + k * 5;
        char *tag = (char *)carve(1 + (unsigned int)k);   /* odd sizes: rounding matters */
        int *block = (int *)carve((unsigned int)n * sizeof(int));
        int i;
        if (block == 0 || tag == 0) {
            print_int(-1);
            print_char('\n');
            return 1;
        }
        tag[0] = (char)('a' + k);
        for (i = 0; i < n; i++)
            block[i] = i * i - k;
        print_char(tag[0]);
        print_char(' ');
        print_int(sum_words(block, n));
        print_char('\n');
    }
    for (k = 0; k < 10; k++)
        w[k] = k * 1000 + 7;
    print_int(sum_words(w, 10));
    print_char('\n');
    for (k = 0; k < 16; k++)
        second[k] = 0x01010101u * (unsigned int)k;
    print_int((int)(second[15] >> 8));
    print_char(' ');
    print_int(second_pool[63] + tail_pad);
    print_char('\n');
    print_int((int)heap_used);
    print_char('\n');
    return 0;
}
