//! End-to-end tests of the C front end: small C programs are compiled to IR and run by the
//! reference interpreter; the printed output is compared with values worked out by hand
//! from the C standard's rules (ILP32, plain char signed). Comments give the reasoning.

use compiler::front::{compile_source_to_ir, FrontOptions};
use compiler::interp;

fn run(src: &str) -> (String, i32) {
    let m = match compile_source_to_ir("t.c", src, &FrontOptions::default()) {
        Ok(m) => m,
        Err(d) => panic!("compile errors:\n{}", d.render()),
    };
    let out = interp::run(&m, "main", &interp::Options::default()).expect("loads");
    if let Some(t) = &out.trap {
        panic!("trap: {t}\n{m}");
    }
    (out.output_string(), out.exit_code)
}

/// Runs `src` (with a `P(x)` macro that prints an int and a space) and compares.
fn prints(src: &str, expected: &str) {
    let full = format!(
        "void print_int(int); void print_char(int);\n\
         #define P(x) (print_int(x), print_char(' '))\n{src}"
    );
    let (out, _) = run(&full);
    assert_eq!(out.trim_end(), expected, "program:\n{src}");
}

#[test]
fn arithmetic_and_precedence() {
    prints(
        "int main(void) { int a = 7, b = -3;
           P(1 + 2 * 3); P((1 + 2) * 3); P(a / b); P(a % b); P(-a / 2); P(-a % 2);
           P(a << 2 | 1); P(a & 6 ^ 3); P(a > b == 1); P(~a); P(!a); P(-b);
           return 0; }",
        // 7/-3 = -2 rem 1; -7/2 = -3 rem -1; 28|1 = 29; (7&6)^3 = 6^3 = 5; (7>-3)==1 -> 1
        "7 9 -2 1 -3 -1 29 5 1 -8 0 3",
    );
}

#[test]
fn unsigned_and_narrow_semantics() {
    prints(
        "int main(void) {
           unsigned u = 0; unsigned char c = 250; signed char s = 100; short h = 30000;
           u = u - 1; P(u > 5); P(u / 65536 / 65536 == 0);
           c = c + 10; P(c);
           s = s + s; P(s);
           h = h + h; P(h);
           P((unsigned short)-1); P((unsigned)-1 >> 31); P(-1 >> 31);
           P(0x80000000 == -2147483647 - 1);
           return 0; }",
        // c: 260 mod 256 = 4; s: 200 -> -56; h: 60000 - 65536 = -5536
        "1 1 4 -56 -5536 65535 1 -1 1",
    );
}

#[test]
fn increments_and_compound_assignment() {
    prints(
        "int main(void) {
           int i = 5, a[4] = {10, 20, 30, 40}, *p = a; char c = 127;
           P(i++); P(i); P(++i); P(i--); P(--i);
           P(*p++); P(*p); P(*++p); P((*p)++); P(*p);
           p[1] += 5; P(a[3]); c++; P(c); c -= 1; P(c);
           i = 10; i *= 2 + 3; P(i); i >>= 1; P(i); i %= 7; P(i);
           return 0; }",
        // i: 5, 6, 7, 7, 5; *p: 10, 20, 30, 30 (then 31); a[3] = 45; c wraps to -128, back 127
        "5 6 7 7 5 10 20 30 30 31 45 -128 127 50 25 4",
    );
}

#[test]
fn short_circuit_and_conditional() {
    prints(
        "int n;
         int t(int v) { n++; return v; }
         int main(void) {
           int r;
           n = 0; r = t(0) && t(1); P(r); P(n);
           n = 0; r = t(2) || t(3); P(r); P(n);
           n = 0; r = t(1) ? t(5) : t(6); P(r); P(n);
           n = 0; r = (t(0) || t(0)) ? 1 : (t(4), 9); P(r); P(n);
           if (!(t(0) && t(1)) && (t(1) || t(0))) P(77);
           return 0; }",
        "0 1 1 1 5 2 9 3 77",
    );
}

#[test]
fn switch_fallthrough_and_duff() {
    prints(
        "int classify(int x) {
           int r = 0;
           switch (x) { case 1: r += 1; case 2: r += 10; break; case 3: r = 3; default: r += 100; case 9: r += 1000; }
           return r; }
         int main(void) {
           short from[11], to[11]; int i, n = 11, count, sum = 0;
           P(classify(1)); P(classify(2)); P(classify(3)); P(classify(4)); P(classify(9));
           for (i = 0; i < 11; i++) { from[i] = i + 1; to[i] = 0; }
           { short *f = from, *t = to; count = (n + 7) / 8;
             switch (n % 8) {
             case 0: do { *t++ = *f++;
             case 7: *t++ = *f++;
             case 6: *t++ = *f++;
             case 5: *t++ = *f++;
             case 4: *t++ = *f++;
             case 3: *t++ = *f++;
             case 2: *t++ = *f++;
             case 1: *t++ = *f++;
                     } while (--count > 0);
             } }
           for (i = 0; i < 11; i++) sum += to[i];
           P(sum); return 0; }",
        // classify: 1 -> 11; 2 -> 10; 3 -> 3+100+1000; 4 -> 1100; 9 -> 1000; sum 1..11 = 66
        "11 10 1103 1100 1000 66",
    );
}

#[test]
fn binary_search_switch() {
    // More than four cases: dispatched by binary search; unsigned ordering for unsigned.
    prints(
        "int f(int x) { switch (x) { case -5: return 1; case 0: return 2; case 3: return 3;
           case 100: return 4; case 7: return 5; case -100: return 6; case 2000000000: return 7; }
           return 0; }
         int g(unsigned x) { switch (x) { case 1: return 1; case 0x80000000u: return 2; case 5: return 3;
           case 0xffffffffu: return 4; case 9: return 5; case 2: return 6; } return 0; }
         int main(void) { int i;
           int xs[9] = {-100, -5, 0, 3, 7, 100, 2000000000, 1, -6};
           for (i = 0; i < 9; i++) P(f(xs[i]));
           P(g(1)); P(g(0x80000000u)); P(g(5)); P(g(-1)); P(g(9)); P(g(2)); P(g(3));
           return 0; }",
        "6 1 2 3 5 4 7 0 0 1 2 3 4 5 6 0",
    );
}

#[test]
fn goto_and_loops() {
    prints(
        "int main(void) { int i = 0, j, s = 0;
           top: if (i < 3) { i++; goto top; }
           P(i);
           for (i = 0; i < 5; i++) { if (i == 1) continue; if (i == 4) break; s += i; }
           P(s);
           i = 0; do { i += 2; } while (i < 7); P(i);
           s = 0; for (i = 0; i < 3; i++) for (j = 0; j < 3; j++) { if (j == i) continue; s += 10 * i + j; }
           P(s);
           i = 0; while (1) { if (++i == 4) break; } P(i);
           return 0; }",
        // s = 0 + 2 + 3 = 5; pairs i != j: (0,1)(0,2)(1,0)(1,2)(2,0)(2,1) = 1+2+10+12+20+21 = 66
        "3 5 8 66 4",
    );
}

#[test]
fn structs_and_arrays() {
    prints(
        "struct v { short x; char tag; int w; };
         struct pair { struct v a, b; };
         int m[3][4];
         int sum(int (*r)[4], int n) { int i, j, s = 0; for (i = 0; i < n; i++) for (j = 0; j < 4; j++) s += r[i][j]; return s; }
         int main(void) {
           struct pair p, q; struct v *pv = &p.b; int i, j;
           P(sizeof(struct v)); P(sizeof p); P((char *)&p.b.w - (char *)&p);
           p.a.x = -2; p.a.tag = 'z'; p.a.w = 1000; *pv = p.a; pv->w += 1;
           q = p; q.a.x = 5;
           P(q.b.x); P(q.b.tag); P(q.b.w); P(p.a.x); P(q.a.x);
           for (i = 0; i < 3; i++) for (j = 0; j < 4; j++) m[i][j] = i * 4 + j;
           P(sum(m, 3)); P(sum(m + 1, 2)); P(m[2][1]); P(*(m[1] + 3));
           return 0; }",
        // struct v: x@0 (2), tag@2, w@4 -> 8; pair 16; b.w at 8 + 4 = 12; 0..11 sums to 66;
        // rows 1-2: 4..11 = 60; m[2][1] = 9; m[1][3] = 7
        "8 16 12 -2 122 1001 -2 5 66 60 9 7",
    );
}

#[test]
fn strings_and_printf() {
    let (out, code) = run(
        "int printf(const char *, ...);
         char msg[] = \"ab\" \"c\";
         const char *words[] = {\"x\", \"yy\", \"zzz\"};
         int main(void) {
           char local[8] = \"hi\";
           printf(\"%s %d %s|%5d|%-3d|%x %c%c\\n\", msg, (int)sizeof msg, words[2], 42, 7, 255, local[0], local[1]);
           printf(\"%u %d\\n\", 3000000000u, local[5]);
           return 4;
         }",
    );
    assert_eq!(out, "abc 4 zzz|   42|7  |ff hi\n3000000000 0\n");
    assert_eq!(code, 4);
}

#[test]
fn static_locals_and_globals() {
    prints(
        "int g = 5; int *gp = &g; int arr[3] = {1, 2};
         int next(void) { static int n = 100; return n++; }
         int main(void) { int a = next(); int b = next();
           P(a); P(b); P(next()); *gp = 9; P(g); P(arr[1] + arr[2]);
           return 0; }",
        "100 101 102 9 2",
    );
}

#[test]
fn calls_with_many_and_narrow_arguments() {
    prints(
        "int many(int a, int b, int c, int d, int e, int f, int g, int h, int i, int j)
           { return a - b + c - d + e - f + g - h + i - j * 100; }
         int narrow(char c, unsigned char u, short s) { return c * 1000000 + u * 1000 + s; }
         int kr(c) char c; { return c; }
         char ret_char(int x) { return x; }
         int main(void) {
           P(many(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
           P(narrow(258, -1, 65537));
           P(kr(511)); P(ret_char(384));
           return 0; }",
        // many: (1-2+3-4+5-6+7-8+9) - 1000 = 5 - 1000 = -995
        // narrow: c = 2, u = 255, s = 1 -> 2000000 + 255000 + 1
        // kr: 511 converted to char in the callee = -1; ret_char(384) = -128
        "-995 2255001 -1 -128",
    );
}

#[test]
fn recursion() {
    prints(
        "int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
         int even(int); int odd(int n) { return n == 0 ? 0 : even(n - 1); }
         int even(int n) { return n == 0 ? 1 : odd(n - 1); }
         int main(void) { P(fact(10)); P(even(100)); P(odd(7)); return 0; }",
        "3628800 1 1",
    );
}

#[test]
fn main_result_and_exit() {
    let (_, code) = run("int main(void) { return 42; }");
    assert_eq!(code, 42);
    let (_, code) = run("int main(void) { }");
    assert_eq!(code, 0);
    let (out, code) = run("void exit(int); void print_int(int);
         int main(void) { print_int(1); exit(7); print_int(2); return 0; }");
    assert_eq!((out.as_str(), code), ("1", 7));
}

#[test]
fn volatile_and_address_taken_locals() {
    prints(
        "void set(int *p, int v) { *p = v; }
         int main(void) { int x = 1; volatile int v = 2; int y;
           set(&x, 10); v = v + x; y = v;
           P(x); P(y); return 0; }",
        "10 12",
    );
}

#[test]
fn pointer_comparison_and_difference() {
    prints(
        "int main(void) { int a[10]; int *p = a + 2, *q = &a[7]; char *c = (char *)q;
           P(q - p); P(p - q); P(p < q); P(q <= p); P(c - (char *)p); P(p + 5 == q);
           return 0; }",
        "5 -5 1 0 20 1",
    );
}

#[test]
fn func_name_and_byte_order_mark() {
    let (out, _) = run("\u{feff}int printf(const char *, ...);\nint the_name(void) { printf(\"%s %d\", __func__, (int)sizeof __func__); return 0; }\nint main(void) { return the_name(); }");
    assert_eq!(out, "the_name 9");
}
