//! Robustness of the C front end: nesting limits through the whole pipeline, deep but legal
//! programs, and property tests that no input (random text, mutated valid programs) makes
//! the front end panic or overflow its stack. A panic would surface as the "internal error"
//! diagnostic; a stack overflow would abort this test process.

use compiler::front::{compile_source, compile_source_to_ir, FrontOptions};
use compiler::interp;
use proptest::prelude::*;

fn errors(src: &str) -> String {
    match compile_source_to_ir("t.c", src, &FrontOptions::default()) {
        Ok(_) => String::new(),
        Err(d) => d.short(),
    }
}

fn run_output(src: &str) -> String {
    let m = compile_source_to_ir("t.c", src, &FrontOptions::default())
        .unwrap_or_else(|d| panic!("{}", d.render()));
    let out = interp::run(&m, "main", &interp::Options::default()).expect("loads");
    assert!(out.trap.is_none(), "{:?}", out.trap);
    out.output_string()
}

#[test]
fn hundred_thousand_parentheses() {
    let src = format!(
        "int main(void) {{ return {}1{}; }}",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    let e = errors(&src);
    assert!(e.starts_with("t.c:1:"), "{e}");
    assert!(
        e.contains("nesting too deep: more than 256 nested levels"),
        "{e}"
    );
}

#[test]
fn hundred_thousand_braces() {
    let src = format!(
        "int main(void) {{{}{} return 0; }}",
        "{".repeat(100_000),
        "}".repeat(100_000)
    );
    let e = errors(&src);
    assert!(e.contains("nesting too deep"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
}

#[test]
fn other_deep_inputs_are_refused_cleanly() {
    let cases = [
        format!("int x = {}1;", "!".repeat(100_000)),
        format!("int x = {}1;", "(int)".repeat(100_000)),
        format!("int {}x;", "*".repeat(100_000)),
        format!("int x{};", "[1]".repeat(100_000)),
        format!("int x = {}1{};", "{".repeat(100_000), "}".repeat(100_000)),
        format!("int x = 1{};", "+1".repeat(100_000)),
        format!("int f(void) {{ return {}1; }}", "x = ".repeat(100_000)),
        format!("int f(int x) {{ {} return x; }}", "if (x) ".repeat(100_000)),
        format!(
            "#if {}1{}\n#endif\n",
            "(".repeat(100_000),
            ")".repeat(100_000)
        ),
        format!(
            "#define F(x) x\nint x = {}1{};",
            "F(".repeat(100_000),
            ")".repeat(100_000)
        ),
    ];
    for src in &cases {
        let e = errors(src);
        assert!(
            e.contains("too deep") || e.contains("too complex") || e.contains("nested too deeply"),
            "{}…: {e}",
            &src[..40.min(src.len())]
        );
    }
}

#[test]
fn many_nested_conditionals_are_fine() {
    let src = format!(
        "{}int x = 3;\n{}",
        "#if 1\n".repeat(50_000),
        "#endif\n".repeat(50_000)
    );
    assert_eq!(errors(&src), "");
}

#[test]
fn deep_but_legal_programs_compile_and_run() {
    // 200 nested parentheses, a 4000-term sum, 120 nested blocks, a 500-arm else-if chain
    // and a 2000-case switch.
    let parens = format!("{}1{}", "(".repeat(200), ")".repeat(200));
    let sum = format!("0{}", " + 1".repeat(4000));
    let blocks = format!("{}s += 1;{}", "{".repeat(120), "}".repeat(120));
    let mut chain = String::from("if (k == 0) s += 0;");
    for i in 1..500 {
        chain += &format!(" else if (k == {i}) s += {i};");
    }
    let mut cases = String::new();
    for i in 0..2000 {
        cases += &format!("case {}: s += {i}; break; ", i * 3);
    }
    let src = format!(
        "void print_int(int);
         int main(void) {{ int s = {parens}; int k = 499;
           s += {sum};
           {blocks}
           {chain}
           switch (k * 3) {{ {cases} }}
           print_int(s); return 0; }}"
    );
    // 1 + 4000 + 1 + 499 + 499
    assert_eq!(run_output(&src), "5000");
}

/// True if the front end handled `src` without an internal error (a caught panic).
fn handled(src: &str) -> bool {
    let c = compile_source("fuzz.c", src, &FrontOptions::default());
    !c.diagnostics.render().contains("internal error")
}

const SEED_PROGRAMS: [&str; 4] = [
    include_str!("c/arith.c"),
    include_str!("c/control.c"),
    include_str!("c/structs.c"),
    include_str!("c/globals.c"),
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_crashes(s in "\\PC{0,400}") {
        prop_assert!(handled(&s));
    }

    #[test]
    fn c_like_token_soup_never_crashes(
        toks in prop::collection::vec(prop::sample::select(vec![
            "int", "char", "unsigned", "struct", "s", "{", "}", "(", ")", "[", "]", ";", ",",
            "*", "&", "x", "y", "=", "+", "-", "<<", "?", ":", "if", "else", "while", "for",
            "return", "switch", "case", "default", "break", "1", "0x10", "'a'", "\"s\"", "#",
            "#define", "#if", "#endif", "\n", "...", "typedef", "sizeof", "->", ".", "goto",
            "static", "const", "volatile", "enum", "do", "void", "long", "short", "##",
        ]), 0..200)
    ) {
        prop_assert!(handled(&toks.join(" ")));
    }

    #[test]
    fn mutated_programs_never_crash(
        which in 0usize..SEED_PROGRAMS.len(),
        edits in prop::collection::vec((any::<u16>(), 0u8..3, any::<u8>()), 1..8)
    ) {
        let mut b: Vec<u8> = SEED_PROGRAMS[which].as_bytes().to_vec();
        for (pos, kind, byte) in edits {
            if b.is_empty() { break; }
            let p = pos as usize % b.len();
            let table = b"(){}[];,*&=+-<>'\"#\\/ \nxi0";
            let c = table[byte as usize % table.len()];
            match kind {
                0 => { b.remove(p); }
                1 => b.insert(p, c),
                _ => b[p] = c,
            }
        }
        prop_assert!(handled(&String::from_utf8_lossy(&b)));
    }

    #[test]
    fn truncated_programs_never_crash(which in 0usize..SEED_PROGRAMS.len(), cut in any::<u16>()) {
        let s = SEED_PROGRAMS[which];
        let mut k = cut as usize % (s.len() + 1);
        while !s.is_char_boundary(k) { k -= 1; }
        prop_assert!(handled(&s[..k]));
    }
}
