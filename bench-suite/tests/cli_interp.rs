//! `ssalab interp` as a user meets it: located diagnostics and exit status 1 on bad C, the
//! program's own output on stdout, `main`'s value as the exit status, traps as errors.

use std::io::Write;
use std::process::{Command, Output};

fn ssalab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ssalab"))
        .args(args)
        .output()
        .expect("run ssalab")
}

/// Writes `text` to a fresh file named `name` in a temporary directory.
fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ssalab-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    let mut f = std::fs::File::create(&path).expect("create");
    f.write_all(text.as_bytes()).expect("write");
    path
}

#[test]
fn malformed_c_gets_located_diagnostics_and_status_1() {
    let src = "int main(void) {\n  int x = 1;\n  x = x + ;\n  return y;\n}\n";
    let path = temp_file("bad.c", src);
    let out = ssalab(&["interp", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "exit status");
    assert!(out.stdout.is_empty(), "nothing on stdout");
    let err = String::from_utf8_lossy(&out.stderr);
    // The syntax error is on line 3, at the `;` (column 11).
    assert!(
        err.contains("bad.c:3:11"),
        "located syntax error in:\n{err}"
    );
    // The source line and a caret are shown.
    assert!(err.contains("x = x + ;"), "source line in:\n{err}");
    assert!(err.contains('^'), "caret in:\n{err}");
}

#[test]
fn several_errors_are_reported_in_one_run() {
    let src = "int f(void) { return undefined_a; }\nint g(void) { return undefined_b; }\nint main(void) { return f() + g(); }\n";
    let path = temp_file("two.c", src);
    let out = ssalab(&["interp", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("two.c:1:"), "first error in:\n{err}");
    assert!(err.contains("two.c:2:"), "second error in:\n{err}");
}

#[test]
fn absurd_nesting_is_an_error_not_a_crash() {
    let depth = 100_000;
    let src = format!(
        "int main(void) {{ return {}1{}; }}\n",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    let path = temp_file("deep.c", &src);
    let out = ssalab(&["interp", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("deep.c:1:"),
        "located nesting error in:\n{err}"
    );
    assert!(
        err.contains("nest"),
        "the error names the nesting limit:\n{err}"
    );
}

#[test]
fn output_and_exit_status_are_the_programs() {
    let src =
        "#include \"ssalab.h\"\nint main(void) { print_int(-12); print_char('\\n'); return 42; }\n";
    let path = temp_file("ok.c", src);
    for opt in ["-O0", "-O2"] {
        let out = ssalab(&["interp", path.to_str().unwrap(), opt]);
        assert_eq!(out.stdout, b"-12\n");
        assert_eq!(out.status.code(), Some(42));
    }
}

#[test]
fn a_trap_is_reported_with_its_place() {
    let src = "int main(void) { int *p = 0; return *p; }\n";
    let path = temp_file("trap.c", src);
    let out = ssalab(&["interp", path.to_str().unwrap(), "-O0"]);
    assert_eq!(out.status.code(), Some(125));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("@main"), "function named in:\n{err}");
    assert!(err.contains("0x00000000"), "address named in:\n{err}");
}

#[test]
fn text_ir_runs_and_print_after_shows_each_pass() {
    let ir = "func @main() -> i32 {\nb0:\n  %0:i32 = const 5\n  %1:i32 = copy %0\n  %2:i32 = add %1, %1\n  ret %2\n}\n";
    let path = temp_file("five.ir", ir);
    let out = ssalab(&[
        "interp",
        path.to_str().unwrap(),
        "-O2",
        "--print-after",
        "copyprop",
    ]);
    assert_eq!(out.status.code(), Some(10));
    // The program prints nothing: the dump is on stderr.
    assert!(out.stdout.is_empty());
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("// after copyprop"), "{text}");
    // After copy propagation the add reads %0 directly.
    assert!(text.contains("add %0, %0"), "{text}");
}

#[test]
fn unknown_print_after_pass_is_rejected() {
    let ir = "func @main() -> i32 {\nb0:\n  %0:i32 = const 0\n  ret %0\n}\n";
    let path = temp_file("zero.ir", ir);
    let out = ssalab(&[
        "interp",
        path.to_str().unwrap(),
        "--print-after",
        "nosuchpass",
    ]);
    // Bad usage: exit 2.
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nosuchpass"), "{err}");
}

#[test]
fn warnings_are_shown_and_the_program_still_runs() {
    // 3000000000 does not fit `long` on ILP32: C90 typing makes it unsigned long, with a warning.
    let src = "int main(void) { unsigned long x = 3000000000; return (int)(x / 1000000000); }\n";
    let path = temp_file("warn.c", src);
    let out = ssalab(&["interp", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warn.c:1:"), "located warning in:\n{err}");
}
