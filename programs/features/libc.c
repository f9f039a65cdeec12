/* The freestanding headers: <limits.h> and <stdint.h> values and type widths, <stddef.h>
   (size_t, NULL, offsetof on a struct of char/short/int members), <string.h> (memcpy, memmove,
   memset, memcmp, strlen, strcmp, strncmp, strcpy, strchr; only the sign of comparisons is
   printed, since the magnitude is unspecified), and <stdlib.h> (abs, malloc/calloc/free with
   contents but never addresses printed, exit).  Under gcc these are the system headers; under
   ssalab, its own programs/include/libc. */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ssalab.h"

struct layout {
    char c;
    short s;
    int i;
    char tail[3];
};

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

static int sign(int v)
{
    return (v > 0) - (v < 0);
}

static void finish(int code)
{
    put(code);
    exit(code);
}

int main(void)
{
    char buf[32], other[32];
    int i;
    int *heap, *more;
    unsigned char *zeros;
    int8_t i8 = INT8_MIN;
    uint8_t u8 = UINT8_MAX;
    int16_t i16 = INT16_MIN;
    uint16_t u16 = UINT16_MAX;
    int32_t i32 = INT32_MIN;
    uint32_t u32 = UINT32_MAX;
    size_t n;

    put(CHAR_BIT);
    put(SCHAR_MIN + SCHAR_MAX + UCHAR_MAX);
    put(CHAR_MIN);
    put(SHRT_MIN + SHRT_MAX + USHRT_MAX);
    put(INT_MIN);
    put(INT_MAX);
    put((int)(UINT_MAX >> 1));
    put(i8 + u8 + i16 + u16);
    put(i32);
    put((int)(u32 >> 4));
    put((int)sizeof(int8_t) + (int)sizeof(int16_t) * 10 + (int)sizeof(int32_t) * 100 +
        (int)sizeof(uint32_t) * 1000);
    put((int)offsetof(struct layout, c) + (int)offsetof(struct layout, s) * 10 +
        (int)offsetof(struct layout, i) * 100 + (int)offsetof(struct layout, tail) * 1000);
    put(NULL == (void *)0);

    memset(buf, 'x', sizeof(buf));
    buf[31] = '\0';
    n = strlen(buf);
    put((int)n);
    strcpy(buf, "memory");
    put((int)strlen(buf));
    memcpy(other, buf, strlen(buf) + 1);
    put(strcmp(other, buf) == 0);
    other[0] = 'n';
    put(sign(strcmp(buf, other)));
    put(sign(strcmp(other, buf)));
    put(sign(strncmp("abcdef", "abcxyz", 3)));
    put(sign(strncmp("abcdef", "abcxyz", 4)));
    put(sign(memcmp(buf, other, 6)));
    put(sign(memcmp("\x01\xff", "\x01\x01", 2)));
    memmove(buf + 2, buf, 6); /* overlapping, forward */
    buf[8] = '\0';
    for (i = 0; buf[i]; i++)
        print_char(buf[i]);
    print_char('\n');
    memmove(buf, buf + 3, 6); /* overlapping, backward */
    for (i = 0; buf[i]; i++)
        print_char(buf[i]);
    print_char('\n');
    {
        const char *text = "find the x here";
        put((int)(strchr(text, 'x') - text));
    }
    put(strchr("abc", 'z') == NULL);

    put(abs(-17) + abs(17) + abs(0));
    heap = (int *)malloc(100 * sizeof(int));
    if (heap == NULL)
        finish(2);
    for (i = 0; i < 100; i++)
        heap[i] = i * i;
    more = (int *)malloc(10 * sizeof(int));
    if (more == NULL)
        finish(3);
    for (i = 0; i < 10; i++)
        more[i] = heap[99 - i];
    put(more[0] + more[9]);
    put(more != heap);
    free(heap);
    zeros = (unsigned char *)calloc(64, 1);
    if (zeros == NULL)
        finish(4);
    n = 0;
    for (i = 0; i < 64; i++)
        n += zeros[i];
    put((int)n);
    free(zeros);
    free(more);
    free(NULL);
    finish(0);
    put(-1); /* not reached */
    return 1;
}
