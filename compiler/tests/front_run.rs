//! End-to-end tests of the C front end: small C programs are compiled to IR and run by the
//! reference interpreter; the printed output is compared with values worked out by hand
//! from the C standard's rules (ILP32, plain char signed).

use compiler::front::{compile_source_to_ir, FrontOptions};
use compiler::interp;

fn run(src: &str) -> (String, i32) {
    let m = match compile_source_to_ir("t.c", src, &FrontOptions::default()) {
        Ok(m) => m,
        Err(d) => panic!("compile errors:\n{}", d.render()),
    };
    let out = interp::run(&m, "main", &interp::Options::default()).expect("loads");
    if let Some(t) = &out.trap {
        panic!("trap: {t}\n{}", m);
    }
    (out.output_string(), out.exit_code)
}

fn prints(src: &str, expected: &str) {
    let full = format!("void print_int(int); void print_char(int);\n#define P(x) (print_int(x), print_char(' '))\n{src}");
    let (out, _) = run(&full);
    assert_eq!(out.trim_end(), expected, "program:\n{src}");
}

#[test]
fn hello() {
    prints("int main(void) { P(1 + 2 * 3); return 0; }", "7");
}
