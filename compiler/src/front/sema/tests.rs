//! Semantic-analysis tests: constant typing, conversions and promotions (observed through
//! static initialisers, which the constant evaluator computes), struct layout, address
//! constants, and located diagnostics.

use crate::front::sema::check;
use crate::front::tast::*;
use crate::front::{FrontOptions, Session};

struct Checked {
    prog: Program,
    diags: String,
}

fn check_src(src: &str) -> Checked {
    let mut s = Session::new();
    let id = s.sm.add("t.c".into(), None, src.to_string());
    let (tu, recovered) = s.parse(id, &FrontOptions::default());
    assert!(!recovered, "syntax errors in test source");
    let prog = check(&tu, &s.interner, &mut s.diags);
    let mut diags = String::new();
    for d in s.diags.list() {
        let sev = match d.severity {
            crate::front::diag::Severity::Error => "error",
            _ => "warning",
        };
        diags += &format!("{}: {sev}: {}\n", s.sm.describe(d.span), d.message);
    }
    Checked { prog, diags }
}

/// The initial value of global `name` as a little-endian 32-bit integer.
fn global_int(c: &Checked, name: &str) -> i32 {
    let v = c
        .prog
        .vars
        .iter()
        .position(|v| v.name == name)
        .unwrap_or_else(|| panic!("no global {name}")) as VarId;
    let g = c.prog.globals.iter().find(|g| g.var == v).expect("data");
    let mut b = [0u8; 4];
    for (k, x) in g.init.iter().take(4).enumerate() {
        b[k] = *x;
    }
    match g.size {
        1 => b[0] as i8 as i32,
        2 => i16::from_le_bytes([b[0], b[1]]) as i32,
        _ => i32::from_le_bytes(b),
    }
}

fn errors_of(src: &str) -> String {
    check_src(src).diags
}

#[test]
fn constant_typing() {
    let c = check_src(
        "int t1 = -1 < 0x7fffffff;
         int t2 = -1 < 0x80000000;
         int t3 = -1 < 2147483648;
         int t4 = -1L < 1UL;
         int t5 = -1 < 1u;
         int t6 = 0x7fffffffL + 0 > 0;
         int t7 = 4294967295 == -1;
         int t8 = sizeof 'a' + sizeof(short) * 10;
         int t9 = 07 + 0x10 + 10u + 10l + 0XaBcU;
         int t10 = 'ab';
         unsigned t11 = -1 >> 1;
         unsigned t12 = -1u >> 1;
         int t13 = 0x80000000 >> 31;
         int t14 = (int)0x80000000 >> 31;",
    );
    let expect = [
        ("t1", 1),
        ("t2", 0),
        ("t3", 0),
        ("t4", 0),
        ("t5", 0),
        ("t6", 1),
        ("t7", 1),
        ("t8", 24),
        ("t9", 7 + 16 + 10 + 10 + 0xabc),
        ("t10", 0x6162),
        ("t11", -1),
        ("t12", 0x7fff_ffff),
        ("t13", 1),
        ("t14", -1),
    ];
    for (n, v) in expect {
        assert_eq!(global_int(&c, n), v, "{n}");
    }
    // 2147483648 and 4294967295 are unsigned long by the C90 rule, with a warning.
    assert_eq!(c.diags.matches("C90 rule").count(), 2, "{}", c.diags);
}

#[test]
fn promotions_and_conversions() {
    let c = check_src(
        "int a = (unsigned char)-1;
         int b = (signed char)200;
         int c = (char)-129;
         int d = (unsigned short)-1 * 2;
         int e = (short)40000;
         int f = (unsigned char)200 + (unsigned char)100;
         int g = (unsigned char)200 * (signed char)-1;
         int h = -1 < (unsigned short)1;
         int i = -1 < (unsigned int)1;
         int j = (unsigned char)255 + 1 == 256;
         int k = ~(unsigned char)0;
         int l = -7 / 2 * 2 + -7 % 2;
         int m = 7u / -2;
         int n = -8 >> 1;
         short o = 70000;
         char p = 255;
         unsigned char q = -2;",
    );
    let expect = [
        ("a", 255),
        ("b", -56),
        ("c", 127),
        ("d", 131070),
        ("e", -25536),
        ("f", 300),
        ("g", -200),
        ("h", 1),
        ("i", 0),
        ("j", 1),
        ("k", -1),
        ("l", -7),
        ("m", 0),
        ("n", -4),
        ("o", 4464),
        ("p", -1),
        ("q", -2), // the byte 0xfe, read back as signed by the helper
    ];
    for (n, v) in expect {
        assert_eq!(global_int(&c, n), v, "{n}");
    }
    assert_eq!(c.diags, "");
}

#[test]
fn enum_types_follow_gcc() {
    let c = check_src(
        "enum pos { A, B = 10, C };
         enum neg { M = -1, N };
         int a = (enum pos)0 - 1 < 0;
         int b = (enum neg)0 - 1 < 0;
         int c = C;
         int d = N;",
    );
    assert_eq!(global_int(&c, "a"), 0);
    assert_eq!(global_int(&c, "b"), 1);
    assert_eq!(global_int(&c, "c"), 11);
    assert_eq!(global_int(&c, "d"), 0);
}

#[test]
fn struct_layout_and_offsets() {
    let c = check_src(
        "struct s { char a; int b; short c; char d[3]; };
         struct t { char x; struct s inner; short y; };
         struct u { short a; char b; };
         int s_size = sizeof(struct s);
         int t_size = sizeof(struct t);
         int u_size = sizeof(struct u);
         int u3 = sizeof(struct u[3]);
         int off_c = (int)&((struct s *)0)->c;
         int off_d = (int)&((struct s *)0)->d[1];
         int off_inner_c = (int)&((struct t *)0)->inner.c;
         int off_y = (int)&((struct t *)0)->y;",
    );
    let expect = [
        ("s_size", 16),
        ("t_size", 24),
        ("u_size", 4),
        ("u3", 12),
        ("off_c", 8),
        ("off_d", 11),
        ("off_inner_c", 12),
        ("off_y", 20),
    ];
    for (n, v) in expect {
        assert_eq!(global_int(&c, n), v, "{n}");
    }
}

#[test]
fn address_constants_become_relocations() {
    let c = check_src(
        "int arr[10];
         int *pa = &arr[3];
         int *pe = arr + 10;
         char *ps = \"hi\" + 1;
         struct p { int x, y; } pt;
         int *py = &pt.y;
         int (*row)[10] = &arr;",
    );
    let relocs = |name: &str| {
        let v = c.prog.vars.iter().position(|v| v.name == name).unwrap() as VarId;
        c.prog
            .globals
            .iter()
            .find(|g| g.var == v)
            .unwrap()
            .relocs
            .clone()
    };
    let arr = c.prog.vars.iter().position(|v| v.name == "arr").unwrap() as VarId;
    let pt = c.prog.vars.iter().position(|v| v.name == "pt").unwrap() as VarId;
    assert_eq!(relocs("pa"), vec![(0, SymRef::Var(arr), 12)]);
    assert_eq!(relocs("pe"), vec![(0, SymRef::Var(arr), 40)]);
    assert_eq!(relocs("ps"), vec![(0, SymRef::Str(0), 1)]);
    assert_eq!(relocs("py"), vec![(0, SymRef::Var(pt), 4)]);
    assert_eq!(relocs("row"), vec![(0, SymRef::Var(arr), 0)]);
    assert_eq!(c.diags, "");
}

#[test]
fn located_semantic_errors() {
    let cases: &[(&str, &str)] = &[
        (
            "int f(void) { return y; }",
            "t.c:1:22: error: `y` undeclared",
        ),
        (
            "int f(int a) { return a; }\nint g(void) { return f(1, 2); }",
            "t.c:2:22: error: too many arguments to function `f` (expected 1, have 2)",
        ),
        (
            "struct S { int x; };\nint g(struct S *s) { return s->z; }",
            "t.c:2:32: error: no member named `z` in `struct S`",
        ),
        (
            "int g(void) { int a[3]; a = 0; return 0; }",
            "t.c:1:25: error: the operand of assignment is an array, which is not assignable",
        ),
        (
            "int g(void) { const int c = 1; c++; return c; }",
            "t.c:1:32: error: the operand of `++` is read-only (const)",
        ),
        (
            "void g(void) { break; }",
            "t.c:1:16: error: break statement not within a loop or switch",
        ),
        (
            "void g(void) { continue; }",
            "t.c:1:16: error: continue statement not within a loop",
        ),
        (
            "int g(int x) { switch (x) { case 1: case 2: case 1: return 0; } return 1; }",
            "t.c:1:45: error: duplicate case value 1",
        ),
        (
            "int g(void) { goto out; }",
            "t.c:1:20: error: label `out` used but not defined",
        ),
        (
            "int g(void) { return h(); }",
            "t.c:1:22: error: call to undeclared function `h`; ssalab requires a declaration",
        ),
        ("int x[-1];", "t.c:1:7: error: array size is negative"),
        (
            "int g(int n) { int a[n]; return 0; }",
            "t.c:1:22: error: expression is not an integer constant expression",
        ),
        (
            "int g(int x) { switch (x) { case x: return 0; } return 1; }",
            "t.c:1:34: error: expression is not an integer constant expression",
        ),
        ("int x = 1 / 0;", "t.c:1:9: warning: division by zero"),
        (
            "int g(void) { int *p; return *p * p; }",
            "t.c:1:30: error: invalid operands to binary `*` (`int` and `int *`)",
        ),
        (
            "int f(int); int f(char);",
            "t.c:1:17: error: conflicting types for `f`",
        ),
        (
            "int g(void) { int x; int x; return 0; }",
            "t.c:1:26: error: redefinition of `x`",
        ),
        (
            "int g(void) { register int r; return *&r; }",
            "t.c:1:40: error: address of a register variable requested",
        ),
        (
            "int g(int (*f)(int));",
            "t.c:1:11: error: not supported by ssalab: function pointers",
        ),
        (
            // Structs pass by value to prototyped parameters, not through `...`.
            "struct S { int a; };\nint g(int, ...);\nint h(struct S s) { return g(1, s); }",
            "t.c:3:33: error: not supported by ssalab: passing structs by value",
        ),
        (
            "int g(int x, ...) { return x; }",
            "t.c:1:6: error: not supported by ssalab: variadic function definitions",
        ),
        (
            "extern int e; int g(void) { return e; }",
            "t.c:1:36: error: `e` is declared `extern` but never defined",
        ),
        (
            "int h(void); int g(void) { return h(); }",
            "t.c:1:35: error: function `h` is used but never defined",
        ),
        (
            "int g(void) { return sizeof(struct nope); }",
            "t.c:1:22: error: invalid application of sizeof to incomplete type `struct nope`",
        ),
        (
            "char s[2] = \"abc\";",
            "t.c:1:13: error: initializer string is too long for `char [2]`",
        ),
        (
            "int a[2] = {1, 2, 3};",
            "t.c:1:19: error: excess elements in initializer",
        ),
        (
            "int x; int *p = &x + 1; int y = x;",
            "t.c:1:33: error: initializer element is not a constant",
        ),
    ];
    for (src, expected) in cases {
        let d = errors_of(src);
        assert!(
            d.lines().any(|l| l.starts_with(expected)),
            "source: {src}\nexpected: {expected}\ngot:\n{d}"
        );
    }
}

#[test]
fn several_errors_in_one_run() {
    let d = errors_of("int f(void) {\n  int a = b;\n  int c = d;\n  return e;\n}\nlong long z;\n");
    let errors: Vec<&str> = d.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(errors.len(), 4, "{d}");
    assert!(
        errors[0].starts_with("t.c:6:1: error: not supported by ssalab: long long"),
        "{d}"
    );
    assert!(
        errors[1].starts_with("t.c:2:11: error: `b` undeclared"),
        "{d}"
    );
    assert!(
        errors[2].starts_with("t.c:3:11: error: `d` undeclared"),
        "{d}"
    );
    assert!(
        errors[3].starts_with("t.c:4:10: error: `e` undeclared"),
        "{d}"
    );
}

#[test]
fn unsupported_constructs_are_diagnosed_not_crashed() {
    for (src, what) in [
        ("float f;", "float"),
        ("int g(void) { double d = 1.5; return 0; }", "double"),
        ("int x = 1.5;", "floating-point constants"),
        ("long long x;", "long long"),
        ("int x = 1LL;", "long long"),
        ("struct s { int a : 2; };", "bit-fields"),
        ("int (*fp)(void);", "function pointers"),
        (
            "int f(void); int g(void) { return (*f)(); }",
            "function pointers",
        ),
        ("int f(void); int *p = (int *)f;", "function pointers"),
        ("struct s { int n; int d[]; };", "flexible array members"),
        ("_Bool b;", "_Bool"),
        ("wchar = L'x';", "wide"),
    ] {
        let d = errors_of(src);
        assert!(
            d.contains(&format!("not supported by ssalab: {what}")) || d.contains(what),
            "{src}: {d}"
        );
    }
}

/// Issue 24: a rejected `float`/`double` member, typedef or variable is diagnosed once, where
/// its type is written; no "struct has no members", no "no member named", nothing at the uses.
#[test]
fn rejected_declarations_have_no_follow_on_errors() {
    let d = errors_of(
        "struct s { float f; };\nstruct t { int a; double d; int b; };\ntypedef float real;\n\
         real g;\nfloat h;\n\
         int f(struct t *p, struct s *q) { real x; x = 1; h = 2; p->d = 3; q->f = 4;\n\
         return p->a + p->b + g; }\n",
    );
    let errors: Vec<&str> = d.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(errors.len(), 4, "{d}");
    assert!(
        errors[0].starts_with("t.c:1:12: error: not supported by ssalab: float"),
        "{d}"
    );
    assert!(
        errors[1].starts_with("t.c:2:19: error: not supported by ssalab: double"),
        "{d}"
    );
    assert!(
        errors[2].starts_with("t.c:3:1: error: not supported by ssalab: float"),
        "{d}"
    );
    assert!(
        errors[3].starts_with("t.c:5:1: error: not supported by ssalab: float"),
        "{d}"
    );
    // A definition whose return type is rejected: no "undeclared function" at its calls.
    let d = errors_of("double twice(int y) { return y * 2; }\nint g(void) { return twice(1); }\n");
    assert_eq!(d.lines().count(), 1, "{d}");
    assert!(
        d.starts_with("t.c:1:1: error: not supported by ssalab: double"),
        "{d}"
    );
}

/// GCC's i386 data alignment (what `gcc -m32 -O1 -S` prints as `.align`): aggregates of 32
/// bytes or more to 32, of 4 bytes or more to at least 4; scalars and types unchanged.
#[test]
fn static_objects_follow_gcc_data_alignment() {
    use crate::front::types::{IntKind, QualType, Type};
    let c = check_src(
        "char a3[3]; char a5[5]; char a31[31]; char a32[32]; short s6[3]; char c;\n\
         struct big { char b[40]; } sb; int w[8];\n\
         int f(void) { static char loc[64]; return loc[0] + (int)sizeof(struct big); }\n",
    );
    assert_eq!(c.diags, "");
    let align = |name: &str| {
        let v = c.prog.vars.iter().position(|v| v.name == name).expect(name) as VarId;
        c.prog
            .globals
            .iter()
            .find(|g| g.var == v)
            .expect(name)
            .align
    };
    assert_eq!(align("a3"), 1);
    assert_eq!(align("a5"), 4);
    assert_eq!(align("a31"), 4);
    assert_eq!(align("a32"), 32);
    assert_eq!(align("s6"), 4);
    assert_eq!(align("c"), 1);
    assert_eq!(align("sb"), 32);
    assert_eq!(align("w"), 32);
    assert_eq!(align("loc"), 32);
    let t = &c.prog.types;
    let char_arr = |n| {
        Type::Array(
            std::rc::Rc::new(QualType::new(Type::Int(IntKind::Char))),
            Some(n),
        )
    };
    // The type's own alignment is unchanged; the stack caps at 8.
    assert_eq!(t.align_of(&char_arr(64)), 1);
    assert_eq!(t.stack_align_of(&char_arr(3)), 1);
    assert_eq!(t.stack_align_of(&char_arr(15)), 4);
    assert_eq!(t.stack_align_of(&char_arr(16)), 8);
}

/// Unions: every member at offset 0, size the largest member rounded to the alignment; a
/// static union initialised through its first member or a designated one.
#[test]
fn union_layout_and_designated_initialisers() {
    let c = check_src(
        "union u { char c; short s[3]; int i; };\n\
         int size = sizeof(union u);\n\
         union u a = { 5 };\n\
         union u b = { .s = { 1, 2 } };\n\
         int t[] = { [3] = 7, 8, [1] = 2 };\n\
         int n = sizeof t / sizeof t[0];\n\
         int t4 = 0;\n",
    );
    assert_eq!(c.diags, "");
    assert_eq!(global_int(&c, "size"), 8);
    assert_eq!(global_int(&c, "a"), 5);
    assert_eq!(global_int(&c, "b"), 0x0002_0001);
    assert_eq!(global_int(&c, "t"), 0);
    assert_eq!(global_int(&c, "n"), 5);
    let d = errors_of(
        "struct p { int x; };\nstruct p a = { .y = 1 };\nint b[2] = { [2] = 1 };\n\
         int c[2] = { .x = 1 };\nstruct p d = { [0] = 1 };\nunion q { int a; };\nstruct q *e;\n",
    );
    let errors: Vec<&str> = d.lines().collect();
    assert_eq!(errors.len(), 5, "{d}");
    assert!(
        errors[0].starts_with("t.c:2:17: error: no member named `y` in `struct p`"),
        "{d}"
    );
    assert!(
        errors[1].starts_with("t.c:3:15: error: array designator index 2 is out of bounds"),
        "{d}"
    );
    assert!(
        errors[2].starts_with("t.c:4:15: error: member designator"),
        "{d}"
    );
    assert!(
        errors[3].starts_with("t.c:5:17: error: array designator in the initializer of a struct"),
        "{d}"
    );
    assert!(
        errors[4].starts_with("t.c:7:8: error: `q` was defined as a union, not a struct"),
        "{d}"
    );
}
