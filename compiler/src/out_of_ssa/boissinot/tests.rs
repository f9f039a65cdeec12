//! Unit tests of the Boissinot et al. translations on the chapter's examples (the file tests
//! `tests/mir/boissinot-*.mir`, whose comments derive every count by hand, and the SSA
//! book's lost-copy and swap problems), under all three variants. Every module runs under
//! `mir::interp` before and after the pass (same output and exit status), verifies in
//! allocation form and passes `isolation::check_output`.

use super::*;
use crate::mir::interp::run_module;
use crate::mir::parse::parse_module;
use crate::mir::verify::{verify_module, Form};
use crate::mir::Module;

const VALUE_COPIES: &str = include_str!("../../../tests/mir/boissinot-value-copies.mir");
const DECOALESCING: &str = include_str!("../../../tests/mir/boissinot-decoalescing.mir");
const VIRTUAL: &str = include_str!("../../../tests/mir/boissinot-virtual-copies.mir");
const LOST_COPY: &str = include_str!("../../../tests/mir/ssa-book-lost-copy.mir");
const SWAP: &str = include_str!("../../../tests/mir/ssa-book-swap.mir");
const EARLY_LATE: &str = include_str!("../../../tests/mir/boissinot-early-late-points.mir");

/// The module text of a file test, `#` directive lines blanked (as the harness does).
fn module_text(src: &str) -> String {
    src.lines()
        .map(|l| {
            if l.trim_start().starts_with('#') {
                ""
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn copies(f: &Function) -> usize {
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| i.flags.contains(InstFlags::COPY))
        .count()
}

/// Runs the variant on every function; checks behaviour and form; returns per function
/// (name, copies, stats, vregs created before the pin isolation).
fn check_variant(src: &str, v: Variant) -> Vec<(String, usize, Stats, usize)> {
    let mut m: Module = parse_module(&module_text(src)).expect("parses");
    assert!(verify_module(&m, Form::Ssa).is_empty());
    let before = run_module(&m, "main", &Default::default()).expect("input runs");
    let mut out = Vec::new();
    for f in &mut m.functions {
        let n0 = f.vregs.len();
        let mut s = Stats::default();
        coalesce_and_rename(f, v, &mut s).unwrap_or_else(|e| panic!("{e}"));
        let created = f.vregs.len() - n0;
        isolation::translate(f).unwrap_or_else(|e| panic!("{e}"));
        isolation::check_output(f).unwrap_or_else(|e| panic!("{e}\n{f}"));
        assert_eq!(s.repair_uncolours, 0, "{v:?} @{}", f.name);
        assert_eq!(s.budget_fallbacks, 0, "{v:?} @{}", f.name);
        out.push((f.name.clone(), copies(f), s, created));
    }
    let errs = verify_module(&m, Form::Allocation);
    assert!(errs.is_empty(), "{errs:#?}\n{m}");
    let after = run_module(&m, "main", &Default::default()).expect("output runs");
    assert_eq!(
        (&after.output, after.exit_code),
        (&before.output, before.exit_code),
        "{v:?}\n{m}"
    );
    out
}

fn of<'a>(r: &'a [(String, usize, Stats, usize)], name: &str) -> &'a (String, usize, Stats, usize) {
    r.iter().find(|x| x.0 == name).expect("function")
}

const ALL: [Variant; 4] = [
    Variant::Int,
    Variant::Val,
    Variant::ValVirt,
    Variant::ValVirtDecoalesce,
];

#[test]
fn value_based_interference_removes_both_copies_of_a() {
    // Counts derived in boissinot-value-copies.mir.
    for v in ALL {
        let r = check_variant(VALUE_COPIES, v);
        let (_, n, s, _) = of(&r, "vals");
        let want = if v == Variant::Int { 4 } else { 2 };
        assert_eq!(*n, want, "{v:?}");
        assert_eq!(s.copies_removed, 4 - want as u64, "{v:?}");
        assert_eq!(s.uncoloured, 0, "{v:?}");
        assert_eq!(of(&r, "main").1, 5);
    }
}

#[test]
fn decoalescing_of_the_lost_copy_loop() {
    // Counts derived in boissinot-decoalescing.mir: de-coalescing uncolours %1 only.
    let dc = check_variant(DECOALESCING, Variant::ValVirtDecoalesce);
    let (_, n, s, created) = of(&dc, "lost_copy");
    assert_eq!(*n, 3);
    assert_eq!(s.uncoloured, 1);
    assert_eq!(s.phi_copies, 3);
    assert_eq!(s.phi_copies_left, 1);
    assert_eq!(
        *created, 0,
        "the class of the web is named by %0: no fresh variable"
    );
    // Class merging, heaviest affinity first: (%1, a0') refused, the two others merge.
    for v in [Variant::Int, Variant::Val, Variant::ValVirt] {
        let r = check_variant(DECOALESCING, v);
        let (_, n, s, created) = of(&r, "lost_copy");
        assert_eq!(*n, 3, "{v:?}");
        assert_eq!(s.phi_copies_left, 1, "{v:?}");
        assert_eq!(s.class_checks, 3, "{v:?}");
        let real_primes = if v == Variant::ValVirt { 0 } else { 3 };
        assert_eq!(
            *created, real_primes,
            "{v:?}: a0', p0', p1' as real variables"
        );
        assert_eq!(of(&r, "main").1, 9);
    }
}

#[test]
fn virtualised_copies_create_nothing_when_all_coalesce() {
    // Counts derived in boissinot-virtual-copies.mir.
    for v in [Variant::ValVirt, Variant::ValVirtDecoalesce] {
        let r = check_variant(VIRTUAL, v);
        let (_, n, s, created) = of(&r, "diamond");
        assert_eq!(
            (*n, s.phi_copies, s.phi_copies_left, *created),
            (2, 3, 0, 0)
        );
    }
    let val = check_variant(VIRTUAL, Variant::Val);
    let (_, n, s, created) = of(&val, "diamond");
    assert_eq!(
        (*n, s.phi_copies, s.phi_copies_left, *created),
        (2, 3, 0, 3)
    );
}

#[test]
fn fuzz_seed_7000169_early_point_comes_before_late_point() {
    // Counts derived in boissinot-early-late-points.mir: three phi copies stay, the class
    // of %0 does not absorb %12; `check_variant` also runs the module before and after.
    let r = check_variant(EARLY_LATE, Variant::ValVirt);
    let (_, n, s, _) = of(&r, "f");
    assert_eq!((*n, s.phi_copies_left), (5, 3));
    assert_eq!(of(&r, "main").1, 13);
    for v in ALL {
        check_variant(EARLY_LATE, v);
    }
}

#[test]
fn lost_copy_and_swap_problems_run_alike_under_every_variant() {
    for src in [LOST_COPY, SWAP] {
        for v in ALL {
            check_variant(src, v);
        }
    }
}

#[test]
fn value_numbering_follows_copies_and_interference_needs_a_value_difference() {
    let m = parse_module(&module_text(VALUE_COPIES)).expect("parses");
    let f = &m.functions[0];
    let info = CfgInfo::compute(f);
    let vars = Variables::build(f, &info, &[], 0, false, true);
    assert_eq!(vars.value[2], 1);
    assert_eq!(vars.value[3], 1);
    assert!(vars.intersect(1, 2) && vars.intersect(2, 3) && vars.intersect(1, 3));
    assert!(!vars.interfere(1, 2) && !vars.interfere(2, 3));
    // %4 = add %2, %3 has its own value and intersects %1 (used by %5).
    assert!(vars.interfere(1, 4));
    let int = Variables::build(f, &info, &[], 0, false, false);
    assert!(int.interfere(1, 2));
}
