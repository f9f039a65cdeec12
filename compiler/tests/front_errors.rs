//! Diagnostics of the C front end as a user sees them: `file:line:col`, the source line and
//! a caret; places inside headers and macro expansions; several errors per run.

use compiler::front::{compile_source_to_ir, FrontOptions};

fn diagnose(src: &str, opts: &FrontOptions) -> (String, String) {
    match compile_source_to_ir("prog.c", src, opts) {
        Ok(_) => panic!("expected errors for:\n{src}"),
        Err(d) => (d.short(), d.render()),
    }
}

#[test]
fn rendering_shows_place_line_and_caret() {
    let (short, full) = diagnose(
        "int main(void)\n{\n    int x = 1;\n    x = x +* ;\n    return x;\n}\n",
        &FrontOptions::default(),
    );
    assert_eq!(
        short,
        "prog.c:4:14: error: expected an expression before `;`\n"
    );
    assert!(
        full.contains("error: expected an expression before `;`"),
        "{full}"
    );
    assert!(full.contains("prog.c:4:14"), "{full}");
    assert!(full.contains("    x = x +* ;"), "{full}");
    let caret_line = full
        .lines()
        .find(|l| l.trim_end().ends_with('^'))
        .expect("caret");
    // The caret is under column 14 of the source line.
    let src_line = full.lines().find(|l| l.contains("x = x +* ;")).unwrap();
    let col_src = src_line.find("x = x").unwrap() + 9;
    assert_eq!(caret_line.find('^').unwrap(), col_src, "{full}");
}

#[test]
fn errors_inside_headers_and_macros_point_at_the_right_file() {
    let opts = FrontOptions {
        virtual_files: vec![(
            "bad.h".into(),
            "int ok;\nint broken = undefined_name;\n".into(),
        )],
        ..Default::default()
    };
    let (short, _) = diagnose("#include \"bad.h\"\nint main(void) { return 0; }\n", &opts);
    assert_eq!(short, "bad.h:2:14: error: `undefined_name` undeclared\n");
    let (short, _) = diagnose(
        "#define GET(p) ((p)->missing)\nstruct s { int a; };\nint f(struct s *q) {\n  return GET(q);\n}\n",
        &FrontOptions::default(),
    );
    // The member name comes from the macro body: the use site is reported.
    assert!(
        short.starts_with("prog.c:4:10: error: no member named `missing`"),
        "{short}"
    );
}

#[test]
fn many_errors_are_collected_up_to_the_limit() {
    let mut src = String::from("int main(void) {\n");
    for i in 0..30 {
        src += &format!("  int v{i} = undeclared{i};\n");
    }
    src += "  return 0;\n}\n";
    let (short, full) = diagnose(&src, &FrontOptions::default());
    assert_eq!(short.lines().count(), 20, "{short}");
    assert!(short
        .lines()
        .next()
        .unwrap()
        .starts_with("prog.c:2:12: error: `undeclared0` undeclared"));
    assert!(full.contains("too many errors"), "{full}");
}

#[test]
fn preprocessor_and_syntax_errors_together() {
    let (short, _) = diagnose(
        "#if 1 +\n#endif\n#error custom stop\nint x = 08;\nfloat f;\n",
        &FrontOptions::default(),
    );
    let lines: Vec<&str> = short.lines().collect();
    assert_eq!(lines.len(), 4, "{short}");
    assert!(
        lines[0].starts_with("prog.c:1:7: error: expected a value"),
        "{short}"
    );
    assert!(
        lines[1].starts_with("prog.c:3:2: error: #error custom stop"),
        "{short}"
    );
    assert!(
        lines[2].starts_with("prog.c:4:9: error: invalid digit `8` in octal constant"),
        "{short}"
    );
    assert!(
        lines[3].starts_with("prog.c:5:1: error: not supported by ssalab: float"),
        "{short}"
    );
}

#[test]
fn missing_input_file_is_an_error_not_a_panic() {
    let e = compiler::front::compile_to_ir(
        std::path::Path::new("/nonexistent/dir/x.c"),
        &FrontOptions::default(),
    )
    .unwrap_err();
    assert!(
        e.render().contains("cannot read `/nonexistent/dir/x.c`"),
        "{}",
        e.render()
    );
}
