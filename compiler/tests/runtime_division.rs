//! The C runtime's shift-subtract division (`compiler/runtime/runtime.c`, used by both
//! machine targets for `/` and `%`) agrees with Rust's wrapping division and remainder on
//! edge values, run by the reference interpreter.

use compiler::isel::{RUNTIME_DIVS, RUNTIME_DIVU, RUNTIME_MODS, RUNTIME_MODU, RUNTIME_SOURCE};

fn c_int(n: i32) -> String {
    if n == i32::MIN {
        "(-2147483647 - 1)".into()
    } else {
        format!("({n})")
    }
}

#[test]
fn runtime_division_matches_wrapping_semantics() {
    let vals: [i32; 13] = [
        0,
        1,
        -1,
        2,
        -2,
        7,
        -7,
        100,
        -100,
        65536,
        i32::MAX,
        i32::MIN,
        i32::MIN + 1,
    ];
    let mut body = String::new();
    let mut expected = String::new();
    for &n in &vals {
        for &d in vals.iter().filter(|&&d| d != 0) {
            let (cn, cd) = (c_int(n), c_int(d));
            body += &format!(
                "  print_int({RUNTIME_DIVS}({cn}, {cd})); print_char(' ');\n  print_int({RUNTIME_MODS}({cn}, {cd})); print_char(' ');\n  print_int((int){RUNTIME_DIVU}((unsigned){cn}, (unsigned){cd})); print_char(' ');\n  print_int((int){RUNTIME_MODU}((unsigned){cn}, (unsigned){cd})); print_char('\\n');\n"
            );
            let (un, ud) = (n as u32, d as u32);
            expected += &format!(
                "{} {} {} {}\n",
                n.wrapping_div(d),
                n.wrapping_rem(d),
                (un / ud) as i32,
                (un % ud) as i32
            );
        }
    }
    let src = format!(
        "{RUNTIME_SOURCE}\nvoid print_int(int);\nvoid print_char(int);\nint main(void) {{\n{body}  return 0;\n}}\n"
    );
    let m = compiler::front::compile_source_to_ir("runtime_test.c", &src, &Default::default())
        .unwrap_or_else(|d| panic!("{}", d.render()));
    let out = compiler::interp::run(&m, "main", &Default::default()).unwrap();
    assert!(out.trap.is_none(), "{:?}", out.trap);
    let got = String::from_utf8(out.output).unwrap();
    for (g, e) in got.lines().zip(expected.lines()) {
        assert_eq!(g, e);
    }
    assert_eq!(got.lines().count(), expected.lines().count());
}
