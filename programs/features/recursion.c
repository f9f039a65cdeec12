/* Recursion: factorial, naive Fibonacci, Ackermann on small arguments, mutual recursion
   (even/odd, Hofstadter female/male sequences), Towers of Hanoi move count, recursive
   permutation generation over an array, recursive binary-tree sums over an implicit heap, and a
   recursive descent expression evaluator over a string.  Depths stay below a few hundred. */
#include "ssalab.h"

static void put(int v)
{
    print_int(v);
    print_char('\n');
}

static int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static int ack(int m, int n)
{
    if (m == 0)
        return n + 1;
    if (n == 0)
        return ack(m - 1, 1);
    return ack(m - 1, ack(m, n - 1));
}

static int is_odd(unsigned int n);
static int is_even(unsigned int n) { return n == 0 ? 1 : is_odd(n - 1); }
static int is_odd(unsigned int n) { return n == 0 ? 0 : is_even(n - 1); }

static int hof_m(int n);
static int hof_f(int n) { return n == 0 ? 1 : n - hof_m(hof_f(n - 1)); }
static int hof_m(int n) { return n == 0 ? 0 : n - hof_f(hof_m(n - 1)); }

static int hanoi(int n, int from, int to, int via, int *checksum)
{
    int moves;
    if (n == 0)
        return 0;
    moves = hanoi(n - 1, from, via, to, checksum);
    *checksum = (*checksum * 7 + from * 3 + to) % 1000003;
    moves += 1 + hanoi(n - 1, via, to, from, checksum);
    return moves;
}

static int perm_count, perm_hash;

static void permute(int *a, int k, int n)
{
    int i;
    if (k == n) {
        int v = 0;
        for (i = 0; i < n; i++)
            v = v * 10 + a[i];
        perm_count++;
        perm_hash = (perm_hash * 31 + v) % 1000003;
        return;
    }
    for (i = k; i < n; i++) {
        int t = a[k];
        a[k] = a[i];
        a[i] = t;
        permute(a, k + 1, n);
        t = a[k];
        a[k] = a[i];
        a[i] = t;
    }
}

static int tree[63];

static int tree_sum(int node, int depth, int *maxdepth)
{
    if (node >= 63)
        return 0;
    if (depth > *maxdepth)
        *maxdepth = depth;
    return tree[node] + tree_sum(2 * node + 1, depth + 1, maxdepth) +
           tree_sum(2 * node + 2, depth + 1, maxdepth);
}

/* expr := term (('+'|'-') term)*; term := factor (('*'|'/') factor)*;
   factor := number | '(' expr ')' | '-' factor */
static const char *cur;
static int expr(void);

static int factor(void)
{
    int v = 0;
    if (*cur == '(') {
        cur++;
        v = expr();
        if (*cur == ')')
            cur++;
        return v;
    }
    if (*cur == '-') {
        cur++;
        return -factor();
    }
    while (*cur >= '0' && *cur <= '9')
        v = v * 10 + (*cur++ - '0');
    return v;
}

static int term(void)
{
    int v = factor();
    while (*cur == '*' || *cur == '/') {
        char op = *cur++;
        int r = factor();
        v = op == '*' ? v * r : (r != 0 ? v / r : 0);
    }
    return v;
}

static int expr(void)
{
    int v = term();
    while (*cur == '+' || *cur == '-') {
        char op = *cur++;
        int r = term();
        v = op == '+' ? v + r : v - r;
    }
    return v;
}

static int eval(const char *s)
{
    cur = s;
    return expr();
}

int main(void)
{
    int a[6] = { 1, 2, 3, 4, 5, 6 };
    int i, cs = 0, md = 0, s = 0;
    put(fact(10));
    put(fib(17));
    put(ack(2, 3));
    put(ack(3, 3));
    put(is_even(300u) * 10 + is_odd(301u));
    for (i = 0; i < 20; i++)
        s = s * 2 + hof_f(i) - hof_m(i);
    put(s);
    put(hof_f(30) * 100 + hof_m(30));
    put(hanoi(10, 1, 3, 2, &cs));
    put(cs);
    permute(a, 0, 6);
    put(perm_count);
    put(perm_hash);
    put(a[0] * 100000 + a[5]);
    for (i = 0; i < 63; i++)
        tree[i] = (i * 37) % 101 - 50;
    put(tree_sum(0, 0, &md));
    put(md);
    put(tree_sum(5, 0, &md));
    put(eval("1+2*3"));
    put(eval("(1+2)*3-4/(1+1)"));
    put(eval("-(7*-(2+3))/4"));
    put(eval("100/7*7+100-100/7*7-2*(3-(4-(5-6)))"));
    return 0;
}
