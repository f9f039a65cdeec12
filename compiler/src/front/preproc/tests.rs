//! Preprocessor tests: the integer examples of C99 §6.10.3.5, `#`/`##`, hide sets,
//! conditionals, includes and errors.

use crate::front::{FrontOptions, Session};

fn pp_with(src: &str, opts: &FrontOptions) -> (String, String) {
    let mut s = Session::new();
    let id = s.sm.add("t.c".into(), None, src.to_string());
    let toks = s.preprocess(id, opts);
    let text = s.spell(&toks);
    let errs = std::mem::take(&mut s.diags)
        .finish(std::sync::Arc::new(std::mem::take(&mut s.sm)))
        .short();
    (text, errs)
}

fn pp(src: &str) -> String {
    let (t, e) = pp_with(src, &FrontOptions::default());
    assert_eq!(e, "", "unexpected diagnostics for:\n{src}");
    t
}

fn pp_err(src: &str) -> String {
    let (_, e) = pp_with(src, &FrontOptions::default());
    assert!(!e.is_empty(), "expected an error for:\n{src}");
    e
}

#[test]
fn object_and_function_macros() {
    assert_eq!(pp("#define N 10\nint a[N];"), "int a [ 10 ] ;");
    assert_eq!(
        pp("#define MAX(a,b) ((a)>(b)?(a):(b))\nMAX(x+1, y)"),
        "( ( x + 1 ) > ( y ) ? ( x + 1 ) : ( y ) )"
    );
    assert_eq!(pp("#define F(x) x\nF (1) F"), "1 F");
    assert_eq!(pp("#define E()  e\nE() E ( )"), "e e");
    assert_eq!(pp("#define L \\\n  1 + \\\n  2\nL"), "1 + 2");
}

#[test]
fn recursion_stops_by_hide_sets() {
    assert_eq!(pp("#define x x + 1\nx"), "x + 1");
    assert_eq!(pp("#define a b\n#define b a\na b"), "a b");
    // f(f(1)): the inner f is expanded in the argument first.
    assert_eq!(pp("#define f(x) (x*2)\nf(f(1))"), "( ( 1 * 2 ) * 2 )");
}

/// C99 §6.10.3.5 example 3 (the parts that use only integers and identifiers).
#[test]
fn standard_example_3() {
    let defs = "#define x 3\n#define f(a) f(x * (a))\n#undef x\n#define x 2\n#define g f\n\
                #define z z[0]\n#define h g(~\n#define m(a) a(w)\n#define w 0,1\n\
                #define t(a) a\n#define p() int\n#define q(x) x\n#define r(x,y) x ## y\n\
                #define str(x) # x\n";
    let line1 = format!("{defs}f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);");
    assert_eq!(
        pp(&line1),
        "f ( 2 * ( y + 1 ) ) + f ( 2 * ( f ( 2 * ( z [ 0 ] ) ) ) ) % f ( 2 * ( 0 ) ) + t ( 1 ) ;"
    );
    let line2 = format!("{defs}g(x+(3,4)-w) | h 5) & m\n(f)^m(m);");
    assert_eq!(
        pp(&line2),
        "f ( 2 * ( 2 + ( 3 , 4 ) - 0 , 1 ) ) | f ( 2 * ( ~ 5 ) ) & f ( 2 * ( 0 , 1 ) ) ^ m ( 0 , 1 ) ;"
    );
    let line3 = format!("{defs}p() i[q()] = {{ q(1), r(2,3), r(4,), r(,5), r(,) }};");
    assert_eq!(pp(&line3), "int i [ ] = { 1 , 23 , 4 , 5 , } ;");
    let line4 = format!("{defs}char c[2][6] = {{ str(hello), str() }};");
    assert_eq!(pp(&line4), "char c [ 2 ] [ 6 ] = { \"hello\" , \"\" } ;");
}

/// C99 §6.10.3.5 example 4: `#` and `##` with the xstr indirection.
#[test]
fn standard_example_4() {
    let src = "#define str(s) # s\n#define xstr(s) str(s)\n\
               #define INCFILE(n) vers ## n\n\
               xstr(INCFILE(2).h)\nstr(  a   +   b  )\nstr(\"a\\n\" 'b')";
    assert_eq!(pp(src), "\"vers2.h\" \"a + b\" \"\\\"a\\\\n\\\" 'b'\"");
}

/// C99 §6.10.3.5 example 5: placemarkers.
#[test]
fn standard_example_5() {
    let src = "#define t(x,y,z) x ## y ## z\n\
               int j[] = { t(1,2,3), t(,4,5), t(6,,7), t(8,9,),\n\
               t(10,,), t(,11,), t(,,12), t(,,) };";
    assert_eq!(
        pp(src),
        "int j [ ] = { 123 , 45 , 67 , 89 , 10 , 11 , 12 , } ;"
    );
}

/// C99 §6.10.3.5 example 7: variable arguments.
#[test]
fn variadic_macros() {
    let src = "#define debug(...) f(__VA_ARGS__)\n#define showlist(...) puts(#__VA_ARGS__)\n\
               #define report(test, ...) ((test)?g(#test):g(__VA_ARGS__))\n\
               debug(\"Flag\");\ndebug(\"X = %d\\n\", x);\nshowlist(The first, second, and third items.);\n\
               report(x>y, \"x is %d but y is %d\", x, y);";
    assert_eq!(
        pp(src),
        "f ( \"Flag\" ) ; f ( \"X = %d\\n\" , x ) ; \
         puts ( \"The first, second, and third items.\" ) ; \
         ( ( x > y ) ? g ( \"x>y\" ) : g ( \"x is %d but y is %d\" , x , y ) ) ;"
    );
    assert_eq!(
        pp("#define P(fmt, ...) p(fmt, ## __VA_ARGS__)\nP(a) P(a, b)"),
        "p ( a ) p ( a , b )"
    );
}

#[test]
fn paste_forms_new_tokens() {
    assert_eq!(
        pp("#define CAT(a,b) a##b\nCAT(x,1) CAT(+,=) CAT(<<,=) CAT(0x,1f)"),
        "x1 += <<= 0x1f"
    );
    // The pasted name is rescanned and expanded.
    assert_eq!(pp("#define CAT(a,b) a##b\n#define xy 7\nCAT(x,y)"), "7");
    // Operands of ## are not expanded first.
    assert_eq!(pp("#define CAT(a,b) a##b\n#define x 1\nCAT(x,x)"), "xx");
    let e = pp_err("#define CAT(a,b) a##b\nCAT(+,-)");
    assert!(e.contains("t.c:2:1: error: pasting \"+\" and \"-\""), "{e}");
}

#[test]
fn conditionals() {
    let src = "#define A 2\n#if A == 2 && defined(A) && !defined B\nyes\n#else\nno\n#endif\n\
               #ifdef A\na\n#elif 1/0\n#endif\n#ifndef A\nx\n#elif A > 1\nb\n#else\nc\n#endif";
    assert_eq!(pp(src), "yes a b");
    assert_eq!(
        pp("#if 0\n#if 1/0\n#error no\n#endif\n'unterminated\n#else\nok\n#endif"),
        "ok"
    );
    assert_eq!(pp("#if UNKNOWN + 1 == 1\nok\n#endif"), "ok");
    assert_eq!(pp("#if (2 || 1/0) && (0 && 1/0 ? 1 : 2)\nok\n#endif"), "ok");
    assert_eq!(pp("#if -1 < 0u\nno\n#else\nok\n#endif"), "ok");
    assert_eq!(pp("#if 0xffffffff + 1 == 0x100000000\nok\n#endif"), "ok");
    assert_eq!(
        pp("#if (-1 >> 63) == -1 && 1 << 2 == 4 && 7 % -2 == 1 && -7 / 2 == -3\nok\n#endif"),
        "ok"
    );
    assert_eq!(pp("#if 'a' == 97 && '\\377' < 0\nok\n#endif"), "ok");
    assert_eq!(pp("#if 1 ? 2 : (1/0)\nok\n#endif"), "ok");
    assert_eq!(
        pp("#define D defined(X)\n#define X\n#if D\nok\n#endif"),
        "ok"
    );
}

#[test]
fn conditional_errors() {
    assert!(pp_err("#if 1/0\n#endif").contains("t.c:1:6: error: division by zero in #if"));
    assert!(pp_err("#if 1 +\n#endif").contains("expected a value"));
    assert!(pp_err("#if (1\n#endif").contains("missing ')'"));
    assert!(pp_err("#if 1 2\n#endif").contains("missing binary operator"));
    assert!(pp_err("#if 1\n").contains("t.c:1:1: error: unterminated conditional directive"));
    assert!(pp_err("#endif").contains("#endif without #if"));
    assert!(pp_err("#if 1\n#else\n#else\n#endif").contains("#else after #else"));
    assert!(pp_err("#if 1.0\n#endif").contains("floating"));
    assert!(pp_err("#error stop here\n").contains("t.c:1:2: error: #error stop here"));
    assert!(pp_err("#foo\n").contains("invalid preprocessing directive #foo"));
    let deep = format!(
        "#if {}1{}\n#endif",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    assert!(pp_err(&deep).contains("nested too deeply"));
}

#[test]
fn directive_errors() {
    assert!(pp_err("#define 3 x").contains("macro names must be identifiers"));
    assert!(pp_err("#define F(x) #y").contains("'#' is not followed by a macro parameter"));
    assert!(pp_err("#define F(x) ## x").contains("'##' cannot appear"));
    assert!(pp_err("#define F(x,x) x").contains("duplicate macro parameter"));
    assert!(pp_err("#define F(x) x\nF(1,2)").contains("requires 1 argument(s), but 2 given"));
    assert!(pp_err("#define F(x) x\nF(1").contains("t.c:2:1: error: unterminated argument list"));
    assert!(pp_err("#include \"nonexistent.h\"").contains("cannot find include file"));
    let (_, w) = pp_with("#define A 1\n#define A 2\n", &FrontOptions::default());
    assert!(w.contains("warning: `A` redefined"), "{w}");
    // Identical redefinitions are fine.
    assert_eq!(pp("#define A (1 + 2)\n#define A (1 + 2)\nA"), "( 1 + 2 )");
}

#[test]
fn builtin_and_command_line_macros() {
    assert_eq!(pp("__LINE__\n\n__LINE__ __FILE__"), "1 3 \"t.c\"");
    assert_eq!(pp("__SSALAB__"), "1");
    let opts = FrontOptions {
        defines: vec![
            ("N".into(), Some("4".into())),
            ("FLAG".into(), None),
            ("G".into(), None),
        ],
        undefines: vec!["G".into()],
        target: Some("st231".into()),
        ..Default::default()
    };
    let (t, e) = pp_with("N FLAG G __st231__ defined(__st120__)", &opts);
    assert_eq!(e, "");
    assert_eq!(t, "4 1 G 1 defined ( __st120__ )");
    // A macro that expands to __LINE__ gives the line of its use.
    assert_eq!(pp("#define L __LINE__\n\nL"), "3");
}

#[test]
fn includes_and_pragmas() {
    let opts = FrontOptions {
        virtual_files: vec![
            (
                "a.h".into(),
                "#pragma once\nint a;\n#define FROM_A 5\n".into(),
            ),
            ("b.h".into(), "#include \"a.h\"\nint b = FROM_A;\n".into()),
            ("self.h".into(), "#include \"self.h\"\n".into()),
        ],
        ..Default::default()
    };
    let (t, e) = pp_with(
        "#include \"a.h\"\n#include <b.h>\n#define H \"a.h\"\n#include H\nx",
        &opts,
    );
    assert_eq!(e, "");
    assert_eq!(t, "int a ; int b = 5 ; x");
    let (_, e) = pp_with("#include \"self.h\"\n", &opts);
    assert!(e.contains("nested too deeply"), "{e}");
    assert_eq!(
        pp("#pragma anything here\n_Pragma(\"omp parallel\") x #pragma"),
        "x # pragma"
    );
    assert_eq!(pp("#include <limits.h>\nINT_MAX CHAR_BIT"), "2147483647 8");
}

#[test]
fn includes_from_disk_search_the_including_directory() {
    let dir = std::env::temp_dir().join(format!("ssalab-pp-{}", std::process::id()));
    let sub = dir.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("inner.h"), "int inner;\n").unwrap();
    std::fs::write(sub.join("outer.h"), "#include \"inner.h\"\nint outer;\n").unwrap();
    std::fs::write(dir.join("lib.c"), "int from_c_file;\n").unwrap();
    let mut s = Session::new();
    let main = dir.join("main.c");
    std::fs::write(&main, "#include \"lib.c\"\n#include <outer.h>\n").unwrap();
    let id = s.sm.add(
        "main.c".into(),
        Some(main),
        std::fs::read_to_string(dir.join("main.c")).unwrap(),
    );
    let opts = FrontOptions {
        include_dirs: vec![sub.clone()],
        ..Default::default()
    };
    let toks = s.preprocess(id, &opts);
    assert!(!s.diags.has_errors(), "{:?}", s.diags.list());
    assert_eq!(s.spell(&toks), "int from_c_file ; int inner ; int outer ;");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn expansion_points_at_use_site() {
    let mut s = Session::new();
    let id = s.sm.add(
        "t.c".into(),
        None,
        "#define Z (1 + \\\n 2)\nint x = Z;".into(),
    );
    let toks = s.preprocess(id, &FrontOptions::default());
    let plus = toks.iter().find(|t| s.interner.get(t.sym) == "+").unwrap();
    assert_eq!(s.sm.describe(plus.span), "t.c:3:9");
}

#[test]
fn exponential_macros_are_stopped() {
    let mut src = String::from("#define A0 x\n");
    for k in 1..40 {
        src += &format!("#define A{k} A{} A{}\n", k - 1, k - 1);
    }
    src += "A39\n";
    assert!(pp_err(&src).contains("macro expansion too large"));
    let deep = format!("#define F(x) x\n{}1{}", "F(".repeat(5000), ")".repeat(5000));
    assert!(pp_err(&deep).contains("nested too deeply"));
}
