//! Fig. 5 of Rastello et al. (incorrect pinnings) as checker tests, one per case, on
//! hand-built pinnings; and `pinning_SP` on SP versions (§2.2, Fig. 3, Appendix A).
//!
//! The figure's code is not in our copy of the paper; the cases are rebuilt from the text of
//! §2.2: "Case 1 and Case 2 are correct if and only if x and y are the same variable [two
//! values at the exit (1) or at the entry (2) of one instruction in one resource] ... two
//! different ϕ definitions in the same block cannot be pinned to the same resource [3] ...
//! Case 4 is a correct pinning [a use pinned to s, the def to r, s ≠ r]. But the
//! corresponding scheme on a ϕ instruction (Case 5) is forbidden when s ≠ r ... Case 6
//! corresponds to a more subtle incorrect pinning, similar to the problem stressed in
//! Figure 3" (two phi writes of one resource with different values at one block end).

use super::super::liveness::Liveness;
use super::*;
use crate::mir::parse::parse_module;
use crate::mir::{Function, PReg, RegClass};

fn func(text: &str) -> Function {
    let m = parse_module(text).expect("test input parses");
    m.functions.into_iter().next().expect("one function")
}

fn r(n: u8) -> PReg {
    PReg::new(RegClass::R, n)
}

/// The diagnoses of `p` on `f` that name `case`.
fn diagnosed(f: &Function, p: &Pinning, case: &str) -> bool {
    check_pinning(f, p).iter().any(|e| e.contains(case))
}

const CALL: &str = "mfunc @t st231 {
b0:
  %0:r^$r16, %1:r^$r17 = .input
  %2:r = add %0, #1
  %3:r = add %1, #2
  %4:r^$r16 = call %2^$r16, %3^$r17, fn @t
  %5:r = add %4, %0
  .output %5^$r16
  return
}";

/// Case 1: `x, y = op` with x and y in one resource. Our one operation with two defs is
/// `.input`: %0 and %1 forced into one resource.
#[test]
fn case1_two_defs_in_one_resource() {
    let f = func(CALL);
    let mut p = Pinning::new(&f);
    assert!(!diagnosed(&f, &p, "case 1"));
    assert!(p.try_union(0, 1));
    assert!(diagnosed(&f, &p, "case 1"));
}

/// Case 2: `op(x↑R, y↑R)`: the call reads %2 and %3 in R16 and R17; forcing R17's operand
/// to R16 (the pins are the figure's) puts two values in one resource at its entry.
#[test]
fn case2_two_uses_in_one_resource() {
    let mut f = func(CALL);
    let p = Pinning::new(&f);
    assert!(!diagnosed(&f, &p, "case 2"));
    f.blocks[0].insts[3].uses[1].pin = Some(Pin::Phys(r(16)));
    assert!(diagnosed(&f, &p, "case 2"));
    // Same variable twice in one register: correct ("iff x and y are the same variable").
    f.blocks[0].insts[3].uses[1].reg = f.blocks[0].insts[3].uses[0].reg;
    assert!(!diagnosed(&f, &p, "case 2"));
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

/// Case 3: two phis of one block in one resource (their definitions are parallel).
#[test]
fn case3_two_phis_of_one_block() {
    let f = func(TWO_PHIS);
    let mut p = Pinning::new(&f);
    assert!(!p.try_union(3, 4), "try_union refuses it");
    p.phi_blocks_clear_for_test();
    assert!(p.try_union(3, 4));
    assert!(diagnosed(&f, &p, "case 3"));
}

/// Case 4 (correct): `y↑r = op(x↑s)` with s ≠ r — the call reads %2 in R16 and %3 in R17
/// and defines %4 in R16; the `.input` values in R16 and R17. pinning_ABI's result and a
/// pinning with the use's variable in R17 and the def in R16 are both accepted.
#[test]
fn case4_use_and_def_pinned_differently_is_correct() {
    let f = func(CALL);
    let live = Liveness::compute(&f);
    let mut p = Pinning::new(&f);
    pinning_abi(&f, &live, &mut p);
    assert_eq!(check_pinning(&f, &p), Vec::<String>::new());
    let mut q = Pinning::new(&f);
    // The `.input` def pins, then %3 (read in R17) and %4 (defined in R16) by hand.
    assert!(q.try_union(0, q.phys_node(r(16)).unwrap()));
    assert!(q.try_union(1, q.phys_node(r(17)).unwrap()));
    assert!(q.try_union(3, q.phys_node(r(17)).unwrap()));
    assert!(q.try_union(4, q.phys_node(r(16)).unwrap()));
    assert_eq!(check_pinning(&f, &q), Vec::<String>::new());
}

/// Case 5: the same scheme on a phi: an argument pinned to s ≠ r, the phi's resource.
#[test]
fn case5_phi_argument_pinned_elsewhere() {
    let mut f = func(TWO_PHIS);
    let mut p = Pinning::new(&f);
    let r16 = p.phys_node(r(16)).unwrap();
    assert!(p.try_union(3, r16));
    assert!(!diagnosed(&f, &p, "case 5"));
    // %3 = phi [b0: %0↑R17], ... with %3 in R16.
    f.blocks[2].insts[0].uses[0].pin = Some(Pin::Phys(r(17)));
    assert!(diagnosed(&f, &p, "case 5"));
    // Pinned to the phi's own resource it is the phi semantics itself: correct.
    f.blocks[2].insts[0].uses[0].pin = Some(Pin::Phys(r(16)));
    assert!(!diagnosed(&f, &p, "case 5"));
}

/// Case 6: phis of two successors of b0 in one resource, fed with different values from
/// b0: that resource would hold two values at b0's end.
#[test]
fn case6_two_phi_writes_at_one_block_end() {
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
    assert!(!diagnosed(&f, &p, "case 6"));
    assert!(!p.try_union(3, 4), "try_union refuses it");
    p.phi_blocks_clear_for_test();
    assert!(p.try_union(3, 4));
    assert!(diagnosed(&f, &p, "case 6"));
}

// ---------------------------------------------------------------------------------------
// pinning_SP
// ---------------------------------------------------------------------------------------

/// SP versions through a phi: %0 = SP at entry, %2 = SP - 16 on one path, %3 = phi(%2, %0).
/// Every version is pinned to $r12 (4 variables: %0, %2, %4 = %2 + 16, %3), correctly.
const SP_PHI: &str = "mfunc @t st231 {
b0:
  %0:r^$r12, %1:r^$r16 = .input
  %5:b = cmpgt %1, #0
  br %5, b1
  goto b2
b1:
  %2:r^$r12 = add %0, #-16
  stw %2, %1, #0
  %4:r^$r12 = add %2, #16
  goto b2
b2:
  %3:r = phi [b1: %4], [b0: %0]
  .output %1^$r16
  return
}";

#[test]
fn pinning_sp_pins_the_web_through_phis() {
    let f = func(SP_PHI);
    let mut p = Pinning::new(&f);
    assert_eq!(pinning_sp(&f, &mut p), Ok(4));
    let sp = p.phys_node(r(12)).unwrap();
    for v in [0, 2, 3, 4] {
        assert_eq!(p.res(VReg(v)), sp, "%{v}");
    }
    assert_ne!(p.res(VReg(1)), sp);
    // With the other def pins collected (the driver's order: SP, then ABI), correct.
    pinning_abi(&f, &Liveness::compute(&f), &mut p);
    assert_eq!(check_pinning(&f, &p), Vec::<String>::new());
}

/// Fig. 3: after copy folding, the old SP version %0 is still used after a new one is
/// defined (both would have to be in SP at once): the pinning is reported, naming the
/// operation.
#[test]
fn pinning_sp_reports_two_live_versions() {
    let f = func(
        "mfunc @t st231 {
b0:
  %0:r^$r12, %1:r^$r16 = .input
  %2:r^$r12 = add %0, #-16
  stw %2, %1, #0
  %3:r = ldw %0, #-16
  .output %3^$r16
  return
}",
    );
    let mut p = Pinning::new(&f);
    let e = pinning_sp(&f, &mut p).unwrap_err();
    assert!(
        e.contains("b0") && e.contains("%0") && e.contains("Fig. 3"),
        "{e}"
    );
}

/// Fig. 3 through a phi: the phi joins %2 and %0, but %0 is used after the join too, so
/// at b1's end SP would be written with %2 while %0 is live.
#[test]
fn pinning_sp_reports_a_phi_conflict() {
    let f = func(
        "mfunc @t st231 {
b0:
  %0:r^$r12, %1:r^$r16 = .input
  %5:b = cmpgt %1, #0
  br %5, b1
  goto b2
b1:
  %2:r^$r12 = add %0, #-16
  goto b2
b2:
  %3:r = phi [b1: %2], [b0: %0]
  %4:r = ldw %0, #-4
  .output %4^$r16
  return
}",
    );
    let mut p = Pinning::new(&f);
    let e = pinning_sp(&f, &mut p).unwrap_err();
    assert!(e.contains("Fig. 3"), "{e}");
}
