//! Hostile assembler inputs (issue 27): constants that do not fit their 64-bit evaluation or
//! their field, and directives that would make the memory image huge, are located errors,
//! never panics, wrapped values or gigabyte allocations.

use simulator::asm::assemble;
use simulator::isa::Target;
use simulator::object::{Object, DEFAULT_MAX_IMAGE_BYTES};

fn err(target: Target, src: &str) -> String {
    match assemble(src, Some(target)) {
        Ok(_) => panic!("accepted:\n{src}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn constants_that_overflow_64_bits_are_rejected() {
    for (target, op) in [
        (Target::St231, "mov $r16 = 1 << 200"),
        (Target::St231, "mov $r16 = 9223372036854775807 + 1"),
        (Target::St231, "mov $r16 = 4611686018427387904 * 4"),
        (Target::St120, "make R0, 1 << 200"),
    ] {
        let src = format!("main:\n {op} ;;\n return $r63 ;;\n");
        let e = err(target, &src);
        assert!(e.contains("64-bit evaluation"), "{op}: {e}");
        assert!(e.starts_with("2:"), "located: {e}");
    }
    for d in [
        ".word 1 << 64",
        ".equ x, 9223372036854775807 + 1\n.word x",
        ".space 1 << 70",
    ] {
        let e = err(
            Target::St231,
            &format!("main:\n return $r63 ;;\n.data\n{d}\n"),
        );
        assert!(e.contains("64-bit evaluation"), "{d}: {e}");
    }
}

#[test]
fn constants_that_do_not_fit_their_field_are_rejected() {
    for (src, want) in [
        ("main:\n mov $r16 = 1 << 40 ;;\n", "does not fit in 32 bits"),
        ("main: ;;\n.data\n.byte 256\n", "does not fit in 1 bytes"),
        ("main: ;;\n.data\n.space 4, 300\n", "does not fit in a byte"),
        (
            "main: ;;\n.data\nx: .word 0\n.size x, 1 << 33\n",
            "does not fit in 32 bits",
        ),
    ] {
        let e = err(Target::St231, src);
        assert!(e.contains(want), "{src}: {e}");
    }
}

#[test]
fn huge_space_is_refused_before_allocating() {
    // One directive beyond the limit, and many within it that add up beyond it.
    let one = format!(
        "main:\n return $r63 ;;\n.data\n.space {}\n",
        DEFAULT_MAX_IMAGE_BYTES + 1
    );
    let e = err(Target::St231, &one);
    assert!(
        e.contains("beyond the limit") && e.contains("SSALAB_MAX_IMAGE_BYTES"),
        "{e}"
    );
    let many = format!(
        "main:\n return $r63 ;;\n.bss\n{}",
        ".space 268435455\n".repeat(20)
    );
    let e = err(Target::St231, &many);
    assert!(e.contains("beyond the limit"), "{e}");
    assert!(
        e.starts_with("4:"),
        "the first directive past the limit: {e}"
    );
    assert!(err(Target::St231, "main: ;;\n.data\n.space -1\n").contains("negative"));
}

#[test]
fn objects_with_huge_sections_are_refused() {
    let mut obj = assemble("main:\n return $r63 ;;\n", Some(Target::St231)).unwrap();
    obj.bss_size = u32::MAX - 0x10000;
    obj.data_base = 0x2000;
    let e = Object::from_bytes(&obj.to_bytes()).unwrap_err().to_string();
    assert!(e.contains("beyond the limit"), "{e}");
}

#[test]
fn many_symbols_assemble_in_linear_time() {
    // 10^5 data labels: the symbol sizes used to be found by a quadratic scan.
    let mut src = String::from("main:\n return $r63 ;;\n.data\n");
    for i in 0..100_000 {
        src.push_str(&format!("v{i}: .word {i}\n"));
    }
    let t = std::time::Instant::now();
    let obj = assemble(&src, Some(Target::St231)).unwrap();
    assert_eq!(obj.symbols.len(), 100_001);
    assert!(obj.symbols.iter().skip(1).all(|s| s.size == 4));
    assert!(t.elapsed().as_secs() < 20, "{:?}", t.elapsed());
}
