/* Static storage: static locals that count calls, a static local array kept between calls, a
   static local with a constant initialiser used as a once-only flag, static locals in a
   recursive function (shared by every activation), two functions with static locals of the
   same name, and file-scope static variables. */
#include "ssalab.h"

static int file_counter = 100;
static int file_table[4];

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

static int next_id(void)
{
    static int id = 0;
    return ++id;
}

static int other_next(void)
{
    static int id = 50; /* same name, different object */
    id += 2;
    return id;
}

static int running_mean(int x)
{
    static int history[4];
    static int pos, count;
    int i, s = 0;
    history[pos] = x;
    pos = (pos + 1) & 3;
    if (count < 4)
        count++;
    for (i = 0; i < count; i++)
        s += history[i];
    return s / count;
}

static int init_once(void)
{
    static int initialised;
    static int value;
    if (!initialised) {
        value = 12345;
        initialised = 1;
        return -value;
    }
    return value;
}

static int depth_tracker(int n)
{
    static int max_depth = 0, calls = 0;
    static int depth;
    int r;
    calls++;
    depth++;
    if (depth > max_depth)
        max_depth = depth;
    if (n <= 1) {
        r = calls * 1000 + max_depth;
    } else {
        /* Two statements: the order of the calls matters for the statics. */
        r = depth_tracker(n - 1);
        r += depth_tracker(n - 2);
    }
    depth--;
    return r;
}

static unsigned int lcg(void)
{
    static unsigned int state = 1u;
    state = state * 1103515245u + 12345u;
    return (state >> 16) & 0x7fffu;
}

static void bump(int i)
{
    file_table[i & 3] += i;
    file_counter--;
}

int main(void)
{
    int i, s = 0;
    for (i = 0; i < 5; i++)
        s = s * 10 + next_id();
    put(s);
    put(other_next() + other_next());
    put(next_id());
    s = 0;
    for (i = 1; i <= 10; i++)
        s = s * 3 + running_mean(i * i);
    put(s);
    put(init_once());
    put(init_once());
    put(init_once());
    put(depth_tracker(6));
    put(depth_tracker(2));
    s = 0;
    for (i = 0; i < 10; i++)
        s ^= (int)lcg() << (i & 7);
    put(s);
    for (i = 0; i < 10; i++)
        bump(i);
    put(file_counter);
    put(file_table[0] + file_table[1] * 100 + file_table[2] * 10000 + file_table[3] * 1000000);
    return 0;
}
