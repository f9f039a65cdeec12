//! The IR text form round-trips: printing a module, parsing the text and printing again gives
//! the same text (the text holds everything but the types of values no instruction mentions),
//! and the parsed module runs like the original — on random programs before
//! and after SSA construction and the -O2 passes, and on the output of the C front end.
//! Malformed text gets a located error, never a panic.

use compiler::ir::{parse_module, Module};
use compiler::pipeline::{mid_level_passes, run_passes, OptLevel};
use compiler::ssa::random::{random_cfg_program, random_program, ProgramShape, Rng};
use proptest::prelude::*;

fn assert_round_trip(m: &Module) {
    let text = m.to_string();
    let parsed = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(parsed.to_string(), text);
    assert_eq!(parsed.globals, m.globals);
    for (p, f) in parsed.functions.iter().zip(&m.functions) {
        assert_eq!(
            (&p.blocks, &p.slots, &p.params),
            (&f.blocks, &f.slots, &f.params)
        );
    }
    if m.function("main").is_some() {
        let opts = compiler::interp::Options::default();
        let a = compiler::interp::run(m, "main", &opts).expect("load");
        let b = compiler::interp::run(&parsed, "main", &opts).expect("load");
        assert_eq!(a, b, "the parsed module behaves differently");
    }
}

#[test]
fn random_programs_round_trip_at_every_stage() {
    for seed in 0..60 {
        let mut rng = Rng::new(seed);
        let mut m = if seed % 2 == 0 {
            random_program(&mut rng, &ProgramShape::small())
        } else {
            random_cfg_program(&mut rng, 8, 20)
        };
        assert_round_trip(&m);
        let passes = mid_level_passes(OptLevel::O2);
        run_passes(&mut m, &passes, &mut |_, m| {
            assert_round_trip(m);
            Ok(())
        })
        .expect("passes");
    }
}

#[test]
fn front_end_output_round_trips() {
    let src = r#"
        struct P { short x; char tag[3]; };
        struct P table[2] = { { 1, "ab" }, { -2, "c" } };
        const char *msg = "hi\n";
        int f(int *a, int n) { int s = 0; while (n--) s += *a++; return s; }
        int main(void) { int v[3] = { 1, 2, 3 }; return f(v, 3) + table[1].x + msg[0]; }
    "#;
    let m = compiler::front::compile_source_to_ir("t.c", src, &Default::default())
        .unwrap_or_else(|d| panic!("{}", d.render()));
    assert_round_trip(&m);
}

#[test]
fn malformed_text_is_a_located_error() {
    let cases = [
        ("func @f() {\nb0:\n  %0:i32 = frob %1\n  ret\n}\n", 3),
        ("func @f() {\nb0:\n  ret\nb2:\n  ret\n}\n", 4),
        ("global @g size 4 align 3 = zero\n", 1),
        ("func @f() {\nb0:\n  jmp b7\n}\n", 3),
        (
            "func @f() {\nb0:\n  %0:i32 = const 99999999999\n  ret\n}\n",
            3,
        ),
    ];
    for (text, line) in cases {
        let e = parse_module(text).expect_err(text);
        assert_eq!(e.line, line, "{text}: {e}");
    }
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,200}") {
        let _ = parse_module(&s);
    }

    #[test]
    fn mutated_valid_text_never_panics(seed in 0u64..1000, cut in 0usize..2000, junk in "[ -~]{0,8}") {
        let mut rng = Rng::new(seed);
        let text = random_program(&mut rng, &ProgramShape::small()).to_string();
        let at = cut.min(text.len());
        let at = (0..=at).rev().find(|&k| text.is_char_boundary(k)).unwrap_or(0);
        let mutated = format!("{}{}{}", &text[..at], junk, &text[at..]);
        let _ = parse_module(&mutated);
    }
}
