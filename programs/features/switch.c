/* switch: fall-through, default in the middle, negative and sparse case values (a compiler may
   use a jump table or compares), nested switches, switch on char, break and continue inside a
   switch inside a loop, and Duff's device (a do-while interleaved with case labels). */
#include "ssalab.h"

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

static int classify(int x)
{
    int r = 0;
    switch (x) {
    case 0:
        r += 1;
    /* fall through */
    case 1:
        r += 10;
    /* fall through */
    case 2:
        r += 100;
        break;
    default:
        r = -1;
    /* fall through */
    case 5:
        r += 1000;
        break;
    case -3:
        r = 7;
        break;
    case 1000000:
        r = 8;
    }
    return r;
}

static int dense(int x)
{
    switch (x) {
    case 0: return 11;
    case 1: return 22;
    case 2: return 33;
    case 3: return 44;
    case 4: return 55;
    case 5: return 66;
    case 6: return 77;
    case 7: return 88;
    case 8: return 99;
    default: return 0;
    }
}

static int sparse(unsigned int x)
{
    switch (x) {
    case 1u: return 1;
    case 100u: return 2;
    case 0x80000000u: return 3;
    case 0xffffffffu: return 4;
    case 65536u: return 5;
    }
    return 0;
}

static int vowel_kind(char c)
{
    switch (c) {
    case 'a': case 'e': case 'i': case 'o': case 'u':
        return 1;
    case 'y':
        return 2;
    case '\0':
        return -1;
    default:
        switch (c >= 'a' && c <= 'z') {
        case 1:
            return 0;
        default:
            return 3;
        }
    }
}

/* Copies count shorts, eight per loop trip, entering the unrolled body in the middle. */
static void duff_copy(short *to, const short *from, int count)
{
    int n = (count + 7) / 8;
    if (count <= 0)
        return;
    switch (count % 8) {
    case 0: do { *to++ = *from++;
    /* fall through */
    case 7:      *to++ = *from++;
    /* fall through */
    case 6:      *to++ = *from++;
    /* fall through */
    case 5:      *to++ = *from++;
    /* fall through */
    case 4:      *to++ = *from++;
    /* fall through */
    case 3:      *to++ = *from++;
    /* fall through */
    case 2:      *to++ = *from++;
    /* fall through */
    case 1:      *to++ = *from++;
            } while (--n > 0);
    }
}

int main(void)
{
    static short src[40], dst[40];
    int i, s = 0, n;
    static const char word[] = "syzygy bouquet";
    {
        unsigned int h = 0;
        for (i = -4; i <= 6; i++)
            h = h * 7u + (unsigned int)classify(i);
        put((int)(h >> 1));
    }
    put(classify(1000000) + classify(-3) * 10);
    s = 0;
    for (i = -2; i < 12; i++)
        s += dense(i) * (i + 3);
    put(s);
    put(sparse(1u) + sparse(100u) * 10 + sparse(0x80000000u) * 100 + sparse(0xffffffffu) * 1000 +
        sparse(65536u) * 10000 + sparse(7u) * 100000);
    s = 0;
    for (i = 0; word[i] != '\0'; i++)
        s = s * 4 + vowel_kind(word[i]) + 1;
    put(s);
    put(vowel_kind('\0'));
    /* break leaves the switch, continue goes to the loop. */
    s = 0;
    for (i = 0; i < 20; i++) {
        switch (i % 5) {
        case 0:
            continue;
        case 1:
            s += 1;
            break;
        case 4:
            if (i > 10)
                break;
            s += 100;
        /* fall through */
        default:
            s += 10;
        }
        s += 1000;
    }
    put(s);
    for (n = 0; n <= 17; n++) {
        int ok = 1;
        for (i = 0; i < 40; i++) {
            src[i] = (short)(i * 3 + n);
            dst[i] = -1;
        }
        duff_copy(dst, src, n);
        for (i = 0; i < 40; i++)
            if (dst[i] != (i < n ? src[i] : -1))
                ok = 0;
        print_int(ok);
    }
    print_char('\n');
    {
        int state = 0, steps = 0;
        while (state != 4) {
            switch (state) {
            case 0: state = 2; break;
            case 2: state = steps > 3 ? 3 : 1; break;
            case 1: state = 2; break;
            case 3: state = 4; break;
            }
            steps++;
        }
        put(steps);
    }
    return 0;
}
