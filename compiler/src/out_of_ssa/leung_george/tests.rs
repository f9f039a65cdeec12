//! Unit tests: the pinning phases, the incorrect-pinning checker (Fig. 5) and the mark phase
//! on small hand-written functions.

use super::liveness::Liveness;
use super::*;
use crate::mir::parse::parse_module;
use crate::mir::Function;
use crate::out_of_ssa::fixtures::class3;

fn func(text: &str) -> Function {
    let m = parse_module(text).expect("test input parses");
    m.functions.into_iter().next().expect("one function")
}

const TIED: &str = "mfunc @t st231 {
b0:
  %0:r^$r16 = .input
  %1:r = add %0^%1, #4
  %2:r = add %1, %0
  .output %2^$r16
  return
}";

#[test]
fn tied_use_joins_only_at_its_last_use() {
    // %0 is used again after the tied `add`: it keeps R16 and the tie gets a copy.
    let f = func(TIED);
    let live = Liveness::compute(&f);
    let mut p = Pinning::new(&f);
    pinning_abi(&f, &live, &mut p);
    assert_ne!(p.res(VReg(0)), p.res(VReg(1)));
    assert!(check_pinning(&f, &p).is_empty());
    let mut g = f.clone();
    let s = translate_abi(&mut g).unwrap();
    // One copy for the tie (R1 := R16), none elsewhere: %2 joins R16 at `.output`.
    assert_eq!(s.use_copies, 1, "{g}");
    assert_eq!(s.copies, 1, "{g}");
}

#[test]
fn tied_use_at_last_use_costs_nothing() {
    let f = func(
        "mfunc @t st231 {
b0:
  %0:r^$r16 = .input
  %1:r = add %0^%1, #4
  .output %1^$r16
  return
}",
    );
    let mut g = f.clone();
    let s = translate_abi(&mut g).unwrap();
    assert_eq!(s.copies, 0, "{g}");
    assert!(
        crate::mir::verify::verify_function(&g, crate::mir::verify::Form::Allocation).is_empty()
    );
}

#[test]
fn checker_reports_two_defs_and_two_uses_in_one_resource() {
    // Fig. 5 case 1 and case 2, forced by merging by hand.
    let f = func(
        "mfunc @t st231 {
b0:
  %0:r^$r16, %1:r^$r17 = .input
  %2:r^$r16 = call %0^$r16, %1^$r17, fn @t
  .output %2^$r16
  return
}",
    );
    let mut p = Pinning::new(&f);
    let r16 = p.phys_node(PReg::new(RegClass::R, 16)).unwrap();
    let r17 = p.phys_node(PReg::new(RegClass::R, 17)).unwrap();
    assert!(p.try_union(0, r16));
    assert!(p.try_union(1, r16));
    assert!(!p.try_union(1, r17), "a set holds one physical register");
    let errs = check_pinning(&f, &p);
    assert!(errs.iter().any(|e| e.contains("case 1")), "{errs:?}");
    assert!(
        errs.iter().any(|e| e.contains("not in its def pin")),
        "{errs:?}"
    );
    // %1 used pinned to $r17 but in R16: the use copy is fine; %0 and %1 both *pinned* to
    // R16 at one operation would be case 2.
    let g = func(
        "mfunc @t st231 {
b0:
  %0:r^$r16, %1:r^$r17 = .input
  %2:r^$r16 = call %0^$r16, %1^$r16, fn @t
  .output %2^$r16
  return
}",
    );
    let q = Pinning::new(&g);
    let errs = check_pinning(&g, &q);
    assert!(errs.iter().any(|e| e.contains("case 2")), "{errs:?}");
}

const TWO_PHIS: &str = "mfunc @t st231 {
b0:
  %0:r^$r16, %1:r^$r17 = .input
  %2:b = cmpne %1, #0
  br %2, b2
  goto b1
b1:
  goto b2
b2:
  %3:r = phi [b0: %0], [b1: %1]
  %4:r = phi [b0: %1], [b1: %0]
  %5:r = add %3, %4
  .output %5^$r16
  return
}";

#[test]
fn two_phis_of_one_block_never_share_a_resource() {
    let f = func(TWO_PHIS);
    let mut p = Pinning::new(&f);
    assert!(!p.try_union(3, 4), "Fig. 5 case 3 refused");
    pinning_cssa(&f, &mut p);
    assert_ne!(p.res(VReg(3)), p.res(VReg(4)));
    // Forced anyway: the checker reports case 3 (a fresh pinning without the phi records).
    let mut q = Pinning::new(&f);
    q.phi_blocks_clear_for_test();
    assert!(q.try_union(3, 4));
    let errs = check_pinning(&f, &q);
    assert!(errs.iter().any(|e| e.contains("case 3")), "{errs:?}");
}

#[test]
fn lost_copy_marks_the_phi_result() {
    let f = func(
        "mfunc @t st231 {
b0:
  %0:r^$r16 = .input
  goto b1
b1:
  %1:r = phi [b0: %0], [b1: %2]
  %2:r = add %1, #1
  %3:b = cmplt %2, #10
  br %3, b1
  goto b2
b2:
  .output %1^$r16
  return
}",
    );
    let live = Liveness::compute(&f);
    let p = Pinning::new(&f);
    let kills = mark(&f, &live, &p);
    // With every variable alone, the only kill is the end-of-b1 write of %1's resource
    // (%2 flows into it while %1 is live out to b2): at b1, position 8 * 3 - 2.
    assert_eq!(kills[1], vec![(1, 22)]);
    assert!(kills
        .iter()
        .enumerate()
        .all(|(v, k)| v == 1 || k.is_empty()));
}

#[test]
fn two_phi_writes_at_one_block_end_are_reported() {
    // b0 branches to b1 and b2, each starting with a phi fed from b0 by different values:
    // one resource for both phis would need two values in it at b0's end (Fig. 5 case 6 /
    // §3 Class 3). `try_union` refuses it; forced, the checker reports it.
    let f = func(
        "mfunc @t st231 {
b0:
  %0:r^$r16, %1:r^$r17 = .input
  %2:b = cmpne %1, #0
  br %2, b2
  goto b1
b1:
  %3:r = phi [b0: %0]
  .output %3^$r16
  return
b2:
  %4:r = phi [b0: %1]
  .output %4^$r16
  return
}",
    );
    let mut p = Pinning::new(&f);
    assert!(!p.try_union(3, 4));
    p.phi_blocks_clear_for_test();
    assert!(p.try_union(3, 4));
    let errs = check_pinning(&f, &p);
    assert!(errs.iter().any(|e| e.contains("case 6")), "{errs:?}");
    // The translation refuses an incorrect pinning instead of producing wrong code.
    let mut g = f.clone();
    let live = Liveness::compute(&g);
    assert!(out_of_pinned_ssa(&mut g, &live, &p).is_err());
    // Correctly pinned, it translates. pinning_CSSA leaves the def-pinned arguments out;
    // pinning_ABI puts %3 into R16 at its `.output` (with %0), but not %4 (its phi write at
    // b0's end would clash with %3's). Copies: b0's end R4 := R17 (1), the self copy
    // R16 := %0 vanishes; b2's `.output %4` needs R16 := R4 (1). Total 2.
    let mut h = f.clone();
    translate_cssa_abi(&mut h).unwrap();
    let copies = h
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| i.flags.contains(InstFlags::COPY))
        .count();
    assert_eq!(copies, 2, "{h}");
}

#[test]
fn phis_of_two_blocks_share_a_resource_only_with_identical_arguments() {
    let same = func(&class3("%1"));
    let mut p = Pinning::new(&same);
    assert!(
        p.try_union(4, 8),
        "identical arguments on b0 and b1: Class 3 exempt"
    );
    assert!(
        !p.try_union(3, 8),
        "Class 4: %3 and %4 are phis of one block"
    );
    let diff = func(&class3("%0"));
    let mut q = Pinning::new(&diff);
    assert!(
        !q.try_union(4, 8),
        "b0's end would write %1 and %0 into one resource"
    );
    assert!(
        !q.try_union(3, 8),
        "b1's end would write %5 and %6 into one resource"
    );
}

#[test]
fn identical_phi_arguments_are_written_once_at_the_block_end() {
    // pinning_ABI ($r16 = {%0, %9}), then S = {%4, %1, %6, %8} by hand. b0's end writes
    // %3 := $r16 (1) and S := %1, S := %1 for both phis: in place, one write; b1's end
    // %3 := %5 (1) and S := %6 twice, in place. Two copies, no repair.
    let f = func(&class3("%1"));
    let live = Liveness::compute(&f);
    let mut p = Pinning::new(&f);
    pinning_abi(&f, &live, &mut p);
    for x in [1, 6, 8] {
        assert!(p.try_union(4, x));
    }
    assert!(
        check_pinning(&f, &p).is_empty(),
        "{:?}",
        check_pinning(&f, &p)
    );
    let mut g = f.clone();
    let s = out_of_pinned_ssa(&mut g, &live, &p).unwrap();
    assert_eq!((s.repairs, s.phi_copies, s.copies), (0, 2, 2), "{g}");
    assert!(
        crate::mir::verify::verify_function(&g, crate::mir::verify::Form::Allocation).is_empty()
    );
}

/// Fig. 9 with the killed variable passed to g in another block: %1 (z, in $r16) is killed
/// by g's call in b1 (it is read again in b2), but g's argument in b1 still finds it in
/// $r16 (no write of $r16 on the path from %1's definition).
const FIG9_ARG: &str = "mfunc @fig9 st231 {
b0:
  %0:r^$r16 = .input
  %1:r^$r16 = call %0^$r16, fn @f
  %2:b = cmplt %1, #10
  br %2, b2
  goto b1
b1:
  %3:r^$r16 = call %1^$r16, fn @g
  goto b2
b2:
  %4:r = phi [b0: %1], [b1: %3]
  %5:r = add %4, %1
  .output %5^$r16
  return
}";

#[test]
fn a_killed_variable_is_read_in_place_where_no_kill_reaches() {
    // Kills of %1: g's call in b1 only. Reads: b0 (its block, before), g's argument in b1
    // (before the kill, and b1's entry is reached from b0 only): in place; `add` in b2
    // (reached through b1's kill): the repair. Copies: the repair, %4 := $r16 at the ends
    // of b0 and b1: 3 (the dataflow saves `$r16 := %1'` before g).
    let f = func(FIG9_ARG);
    let mut g = f.clone();
    let s = translate_abi(&mut g).unwrap();
    assert_eq!((s.repairs, s.use_copies, s.copies), (1, 0, 3), "{g}");
    assert_eq!(s.avail_fallbacks, 0);
    assert!(
        crate::mir::verify::verify_function(&g, crate::mir::verify::Form::Allocation).is_empty()
    );
    // g's call reads the resource itself, the add in b2 the repair vreg.
    let call = g.blocks[1]
        .insts
        .iter()
        .find(|i| i.control() == Control::Call)
        .unwrap();
    let def_r16 = g.blocks[0].insts[1].defs[0].reg;
    assert_eq!(call.uses[0].reg, def_r16, "{g}");
    let add = g.blocks[2]
        .insts
        .iter()
        .find(|i| !i.flags.contains(InstFlags::COPY) && i.uses.len() == 2)
        .unwrap();
    assert_ne!(add.uses[1].reg, def_r16, "{g}");
}

#[test]
fn mark_kills_the_variable_only_where_its_register_is_overwritten() {
    // The kill points the availability dataflow starts from: g's call in b1 (defining and
    // clobbering $r16 while %1 is live), nothing in b0 (f's call defines %1 itself).
    let f = func(FIG9_ARG);
    let live = Liveness::compute(&f);
    let mut p = Pinning::new(&f);
    pinning_abi(&f, &live, &mut p);
    let kills = mark(&f, &live, &p);
    assert!(kills[1].iter().all(|&(b, _)| b == 1), "{kills:?}");
    assert!(!kills[1].is_empty());
}

/// Rastello et al. Fig. 13 on ST120: x = f() in P0, y = g(x) in P0 kills x, then the
/// post-increment load's base use x is tied to the new base x1 = %4.
const FIG13: &str = "mfunc @fig13 st120 {
b0:
  .input
  %0:p^P0 = CALL fn @f
  %1:p^P0 = CALL %0^P0, fn @g
  %2:r = LDW+i %1, #0
  %3:r, %4:p = LDW!+i %0^%4, #1
  %5:r = LDW+i %4, #0
  %6:r = ADD %2, %3
  %7:r = ADD %6, %5
  .output %7^R0
  RTS
}";

#[test]
fn a_tied_def_is_not_pinned_to_the_register_of_a_repaired_use() {
    let f = func(FIG13);
    let live = Liveness::compute(&f);
    let mut p = Pinning::new(&f);
    pinning_abi(&f, &live, &mut p);
    assert!(p.is_phys(p.res(VReg(0))));
    assert_ne!(
        p.res(VReg(4)),
        p.res(VReg(0)),
        "x is killed in P0: x1 stays apart"
    );
    // Repair x' := P0 after f, x1 := x' before the load: 2 (C then coalesces the second).
    let mut g = f.clone();
    let s = translate_abi(&mut g).unwrap();
    assert_eq!((s.repairs, s.use_copies, s.copies), (1, 1, 2), "{g}");
    assert!(
        crate::mir::verify::verify_function(&g, crate::mir::verify::Form::Allocation).is_empty()
    );
}

#[test]
fn a_tied_def_joins_the_register_of_a_use_that_is_not_repaired() {
    // Without g's call, x stays in P0 until the tied use: the tie rule puts x1 in P0 too
    // and nothing is copied.
    let f = func(
        "mfunc @t st120 {
b0:
  .input
  %0:p^P0 = CALL fn @f
  %3:r, %4:p = LDW!+i %0^%4, #1
  %5:r = LDW+i %4, #0
  %7:r = ADD %3, %5
  .output %7^R0
  RTS
}",
    );
    let live = Liveness::compute(&f);
    let mut p = Pinning::new(&f);
    pinning_abi(&f, &live, &mut p);
    assert_eq!(p.res(VReg(4)), p.res(VReg(0)));
    let mut g = f.clone();
    assert_eq!(translate_abi(&mut g).unwrap().copies, 0, "{g}");
}
