//! `.word` in `.text`: raw code words, on both targets. A program assembled from the words of
//! another assembles to the same code and runs the same; a word that encodes nothing traps
//! as an illegal encoding where it stands; misuse gives a located error.

use simulator::asm::assemble;
use simulator::machine::{RunOptions, TrapKind};
use simulator::sim::run;
use simulator::Target;

/// The code of `src` as a `.word` list.
fn words_of(src: &str, target: Target) -> String {
    let obj = assemble(src, Some(target)).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let words: Vec<String> = obj
        .code
        .chunks_exact(4)
        .map(|c| format!("{:#010x}", u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
        .collect();
    words.join(", ")
}

fn round_trip(src: &str, target: Target, tag: &str, exit: i32) {
    let raw = format!("{tag}\nmain:\n    .word {}\n", words_of(src, target));
    let a = assemble(src, Some(target)).unwrap();
    let b = assemble(&raw, Some(target)).unwrap_or_else(|e| panic!("{e}\n{raw}"));
    assert_eq!(a.code, b.code, "{raw}");
    let (ra, rb) = (
        run(&a, &RunOptions::default()),
        run(&b, &RunOptions::default()),
    );
    assert_eq!(ra.exit_code, exit);
    assert_eq!((rb.exit_code, rb.totals), (ra.exit_code, ra.totals));
}

#[test]
fn st231_words_of_a_program_are_the_program() {
    // Includes a long immediate (imml syllable) and a branch.
    let src = ".target st231\nmain:\n    mov $r16 = 100000 ;;\n    add $r16 = $r16, -99993 ;;\n    return $r63 ;;\n";
    round_trip(src, Target::St231, ".target st231", 7);
}

#[test]
fn st120_words_of_a_program_are_the_program() {
    let src = ".target st120\nmain:\n    MAKE R0, 3 ;;\n    ADD R0, R0, 4 ;;\n    RTS ;;\n";
    round_trip(src, Target::St120, ".target st120", 7);
}

#[test]
fn words_mix_with_operations_and_an_illegal_word_traps_where_it_stands() {
    // ST231: one bundle, then an all-ones word (reserved bits set: no such syllable).
    let src =
        ".target st231\nmain:\n    mov $r16 = 1 ;;\n    .word 0xffffffff\n    return $r63 ;;\n";
    let obj = assemble(src, Some(Target::St231)).unwrap();
    assert_eq!(obj.code.len(), 12);
    let r = run(&obj, &RunOptions::default());
    let t = r.trap.expect("illegal encoding traps");
    assert!(matches!(t.kind, TrapKind::IllegalEncoding { .. }), "{t:?}");
    assert_eq!((t.pc, t.cycle, r.totals.bundles), (0x1004, 1, 1));
    // ST120: opcode 127 with a stop bit is not an operation.
    let src = ".target st120\nmain:\n    MAKE R0, 1 ;;\n    .word 0xffffffff\n    RTS ;;\n";
    let obj = assemble(src, Some(Target::St120)).unwrap();
    let r = run(&obj, &RunOptions::default());
    let t = r.trap.expect("illegal encoding traps");
    assert!(matches!(t.kind, TrapKind::IllegalEncoding { .. }), "{t:?}");
    assert_eq!((t.pc, t.cycle, r.totals.bundles), (0x1004, 1, 1));
}

#[test]
fn misuse_is_a_located_error() {
    for (src, line, msg) in [
        (
            ".target st231\nmain:\n    mov $r1 = 1\n    .word 5\n    return $r63 ;;\n",
            4,
            "open bundle",
        ),
        (".target st231\nmain:\n    .half 5\n", 3, "32-bit words"),
        (".target st231\nmain:\n    .byte 5\n", 3, "32-bit words"),
        (".target st231\nmain:\n    .word main\n", 3, "constant"),
        (
            ".target st231\nmain:\n    .word 0x100000000\n",
            3,
            "32 bits",
        ),
        (
            ".target st120\nmain:\n    MAKE R0, 1\n    .word 5\n",
            4,
            "open bundle",
        ),
    ] {
        let e = assemble(src, None).expect_err(src).to_string();
        assert!(
            e.starts_with(&format!("{line}:")) && e.contains(msg),
            "{src}\n{e}"
        );
    }
}
