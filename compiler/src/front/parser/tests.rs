//! Parser tests: declarator shapes, statements, located errors, recovery, nesting caps.

use crate::front::ast::*;
use crate::front::{FrontOptions, Session};

fn parse(src: &str) -> (TranslationUnit, String, Session) {
    let mut s = Session::new();
    let id = s.sm.add("t.c".into(), None, src.to_string());
    let (tu, _) = s.parse(id, &FrontOptions::default());
    let mut short = String::new();
    for d in s.diags.list() {
        short += &format!("{}: {}\n", s.sm.describe(d.span), d.message);
    }
    (tu, short, s)
}

fn ok(src: &str) -> TranslationUnit {
    let (tu, e, _) = parse(src);
    assert_eq!(e, "", "unexpected errors in:\n{src}");
    tu
}

fn first_decl(tu: &TranslationUnit) -> &Declaration {
    match &tu.items[0] {
        ExternalDecl::Decl(d) => d,
        _ => panic!("not a declaration"),
    }
}

fn shape(d: &Declarator) -> String {
    d.derived
        .iter()
        .map(|x| match x {
            Derived::Pointer(cv) if cv.is_const => "P(const)".to_string(),
            Derived::Pointer(_) => "P".to_string(),
            Derived::Array(Some(_), _) => "A(n)".to_string(),
            Derived::Array(None, _) => "A()".to_string(),
            Derived::Function(f) => format!("F{}", f.params.len()),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn declarator_shapes() {
    let tu = ok("int *a[3], (*b)[3], **c, *const d, e[2][3], *f(int, char*), (*g)(void);");
    let d = first_decl(&tu);
    let shapes: Vec<String> = d.declarators.iter().map(|i| shape(&i.declarator)).collect();
    assert_eq!(
        shapes,
        [
            "A(n) P",
            "P A(n)",
            "P P",
            "P(const)",
            "A(n) A(n)",
            "F2 P",
            "P F0"
        ]
    );
}

#[test]
fn specifiers_in_any_order_and_typedefs() {
    let tu = ok(
        "long unsigned int const static x; typedef unsigned char u8; u8 y; \
                 int f(void) { u8 u8v; { int u8; u8 = 1; } return u8v; }",
    );
    let d = first_decl(&tu);
    assert_eq!(d.specs.base, BaseType::Int(IntSpec::ULong));
    assert!(d.specs.cv.is_const);
    assert!(matches!(d.specs.storage, Some((Storage::Static, _))));
    assert_eq!(tu.items.len(), 4);
}

#[test]
fn kr_definitions_and_prototypes() {
    let tu = ok(
        "int f(); int g(int, ...); int h(a, b) int a; char *b; { return a; } \
                 main() { return 0; }",
    );
    match &tu.items[2] {
        ExternalDecl::Func(f) => {
            assert_eq!(f.kr_decls.len(), 2);
            let Derived::Function(fd) = &f.declarator.derived[0] else {
                panic!()
            };
            assert_eq!(fd.kr_names.len(), 2);
            assert!(!fd.prototype);
        }
        _ => panic!(),
    }
    assert!(matches!(&tu.items[3], ExternalDecl::Func(f) if f.specs.implicit_int));
}

#[test]
fn statements_parse() {
    ok("void f(int n, int *p) {
          int i = 0, s = 0;
          for (int j = 0; j < n; j++) s += j;
          while (i < n) { if (i & 1) continue; else if (i > 5) break; else i++; }
          do { i--; } while (i);
          switch (n) { case 0: case 1: s = 1; break; default: s = 2; }
          goto done;
        done:
          s = sizeof(int) + sizeof s + sizeof(int[3]) + (int)(char)s;
          p[0] = s ? *p : -s;
          return;
        }");
}

#[test]
fn string_concatenation_and_initializers() {
    let tu = ok("char s[] = \"ab\" \"cd\"; int m[2][2] = {{1, 2}, {3, 4},}; struct P { int x, y; } pt = {1, 2};");
    let d = first_decl(&tu);
    match &d.declarators[0].init {
        Some(Initializer::Expr(Expr {
            kind: ExprKind::Str(b),
            ..
        })) => assert_eq!(b, b"abcd"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn located_errors_and_recovery() {
    let (_, e, _) = parse("int f(void) {\n  int x = ;\n  x = 1 +;\n  return x\n}\nint g;");
    assert_eq!(
        e,
        "t.c:2:11: expected an expression before `;`\n\
         t.c:3:10: expected an expression before `;`\n\
         t.c:5:1: expected `;` after return before `}`\n"
    );
    let (_, e, _) = parse("int a[3] = {1, 2;\nint b;");
    assert!(
        e.starts_with("t.c:1:17: expected `}` or `,` in initializer list"),
        "{e}"
    );
}

#[test]
fn unsupported_constructs_are_named() {
    for (src, what) in [
        ("float x;", "float"),
        ("double f(void);", "double"),
        ("long long x;", "long long"),
        ("struct s { int a : 3; };", "bit-fields"),
        ("int x = ({ 1; });", "statement expressions"),
    ] {
        let (_, e, _) = parse(src);
        assert!(
            e.contains(&format!("not supported by ssalab: {what}")),
            "{src}: {e}"
        );
    }
}

#[test]
fn nesting_caps() {
    let deep_parens = format!("int x = {}1{};", "(".repeat(100_000), ")".repeat(100_000));
    let (_, e, _) = parse(&deep_parens);
    assert!(e.contains("nesting too deep"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    let deep_braces = format!(
        "void f(void) {}{} int y;",
        "{".repeat(100_000),
        "}".repeat(100_000)
    );
    let (tu, e, _) = parse(&deep_braces);
    assert!(e.contains("nesting too deep"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert_eq!(tu.items.len(), 1); // int y survives
    let deep_unary = format!("int x = {}1;", "-".repeat(100_000));
    assert!(parse(&deep_unary).1.contains("nesting too deep"));
    let deep_ptr = format!("int {}p;", "*".repeat(100_000));
    assert!(parse(&deep_ptr).1.contains("nesting too deep"));
    let deep_decl = format!("int {}p{};", "(".repeat(100_000), ")".repeat(100_000));
    assert!(parse(&deep_decl).1.contains("nesting too deep"));
    let deep_init = format!("int x = {}1{};", "{".repeat(100_000), "}".repeat(100_000));
    assert!(parse(&deep_init).1.contains("nesting too deep"));
    let long_chain = format!("int x = 1{};", "+1".repeat(100_000));
    assert!(parse(&long_chain).1.contains("expression too complex"));
    // 200 levels are fine.
    ok(&format!("int x = {}1{};", "(".repeat(200), ")".repeat(200)));
    ok(&format!("int x = 1{};", "+1".repeat(3000)));
}
