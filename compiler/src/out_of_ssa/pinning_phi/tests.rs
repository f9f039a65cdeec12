//! Unit tests of `pinning_phi` on small hand-written functions (`mir::parse` text): the
//! pinning it produces, the copies out-of-pinned-SSA then needs, and that the result is a
//! correct pinning that runs.

use super::*;
use crate::mir::parse::parse_module;
use crate::out_of_ssa::leung_george::{pinning_abi, translate, Phases};

fn func(text: &str) -> Function {
    let m = parse_module(text).expect("test input parses");
    m.functions.into_iter().next().expect("one function")
}

/// pinning_ABI then pinning_phi; returns the pinning and the counts.
fn pin(f: &Function, variant: PhiVariant) -> (Pinning, Counts) {
    let live = Liveness::compute(f);
    let mut p = Pinning::new(f);
    pinning_abi(f, &live, &mut p);
    let c = pinning_phi_counts(f, &live, &mut p, variant).expect("pinning_phi runs");
    assert!(
        check_pinning(f, &p).is_empty(),
        "{:?}",
        check_pinning(f, &p)
    );
    (p, c)
}

/// Copies emitted by out-of-pinned-SSA after pinning_ABI + pinning_phi(variant).
fn copies(f: &Function, variant: PhiVariant) -> u64 {
    let mut g = f.clone();
    let (s, _) = translate(
        &mut g,
        Phases {
            cssa: false,
            abi: true,
            phi: Some(variant),
        },
    )
    .expect("translates");
    let errs = crate::mir::verify::verify_function(&g, crate::mir::verify::Form::Allocation);
    assert!(errs.is_empty(), "{errs:?}\n{g}");
    s.copies
}

/// Rastello et al. Fig. 6: x = phi(x1, x2) with x1 live after the phi.
const FIG6: &str = "mfunc @fig6 st231 {
b0:
  %0:r^$r16, %1:r^$r17 = .input
  %2:b = cmpne %1, #0
  br %2, b2
  goto b1
b1:
  %3:r = add %0, #5
  goto b2
b2:
  %4:r = phi [b0: %0], [b1: %3]
  %5:r = add %4, %0
  .output %5^$r16
  return
}";

#[test]
fn fig6_pins_only_the_argument_that_does_not_interfere() {
    // x1 = %0 is live after the phi (used by %5): pinning it to x = %4 would kill it
    // (Fig. 6(b)); x2 = %3 dies at the phi: pinned to x (Fig. 6(c)).
    let f = func(FIG6);
    for v in [
        PhiVariant::Base,
        PhiVariant::Depth,
        PhiVariant::Opt,
        PhiVariant::Pess,
    ] {
        let (p, c) = pin(&f, v);
        assert_eq!(p.res(VReg(3)), p.res(VReg(4)), "{v:?}");
        assert_ne!(p.res(VReg(0)), p.res(VReg(4)), "{v:?}");
        assert_eq!(c.merged, 1, "{v:?}");
        assert_eq!(c.check_fallbacks, 0);
        // The one move of Fig. 6(c): R(x) := x1 at the end of b0.
        assert_eq!(copies(&f, v), 1, "{v:?}");
    }
}

/// A loop: i = phi(i0, i1), i1 = i + 1; the exit uses i1 only: everything coalesces.
const LOOP: &str = "mfunc @l st231 {
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
  .output %2^$r16
  return
}";

#[test]
fn loop_counter_is_fully_coalesced() {
    let f = func(LOOP);
    let (p, c) = pin(&f, PhiVariant::Base);
    assert_eq!(p.res(VReg(1)), p.res(VReg(2)));
    // %0 is in $r16 (.input) and %2 joins $r16 at `.output` (its last use): the whole
    // web ends in $r16, the physical reference resource of its component.
    assert_eq!(p.res(VReg(0)), p.res(VReg(1)));
    // One union: %0 and %2 already share $r16 (pinning_ABI), the phi joins them.
    assert_eq!(c.merged, 1);
    assert_eq!(copies(&f, PhiVariant::Base), 0);
}

/// The lost-copy shape: x2 = phi(x1, x3), x3 = x2 + 1, x2 used after the loop. Pinning x3
/// to x2 would kill x2 at the back edge (Class 2): not done.
const LOST_COPY: &str = "mfunc @lc st231 {
b0:
  .input
  %0:r = add $r0, #1
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
}";

#[test]
fn lost_copy_argument_is_not_pinned() {
    let f = func(LOST_COPY);
    let (p, c) = pin(&f, PhiVariant::Base);
    assert_ne!(p.res(VReg(1)), p.res(VReg(2)));
    assert_eq!(p.res(VReg(0)), p.res(VReg(1)));
    assert_eq!(c.initially_pruned, 1);
    // Without pinning_phi: R(x2) := x1 at the end of b0, R(x2) := x3 at the end of b1,
    // x2 is killed by that write while live out of the loop (repair x2' := R(x2) after
    // the phi), and `.output` copies x2' into $r16: 4. pinning_phi saves the b0 move.
    let mut g = f.clone();
    let base = translate(
        &mut g,
        Phases {
            cssa: false,
            abi: true,
            phi: None,
        },
    )
    .unwrap()
    .0;
    assert_eq!(base.copies, 4, "{g}");
    assert_eq!(copies(&f, PhiVariant::Base), 3);
}

/// Two phis of one block swapping two values around a loop (the swap problem): the phi
/// results strongly interfere and each argument is the other phi's result.
const SWAP: &str = "mfunc @sw st231 {
b0:
  %0:r^$r16, %1:r^$r17 = .input
  goto b1
b1:
  %2:r = phi [b0: %0], [b1: %3]
  %3:r = phi [b0: %1], [b1: %2]
  %4:r = add %2, #1
  %5:b = cmplt %4, %3
  br %5, b1
  goto b2
b2:
  %6:r = sub %2, %3
  .output %6^$r16
  return
}";

#[test]
fn swap_phis_stay_apart_and_the_result_is_correct() {
    let f = func(SWAP);
    let (p, _) = pin(&f, PhiVariant::Base);
    assert_ne!(p.res(VReg(2)), p.res(VReg(3)));
    copies(&f, PhiVariant::Base);
}

#[test]
fn depth_variant_only_takes_arguments_defined_at_the_current_depth() {
    // In LOST_COPY, x1 = %0 is defined at depth 0 and x3 = %2 at depth 1. At depth 1 the
    // header's graph has the one edge (x2, x3), pruned (Class 2); at depth 0 the edge
    // (x2, x1), merged.
    let f = func(LOST_COPY);
    let (p, c) = pin(&f, PhiVariant::Depth);
    assert_eq!(p.res(VReg(0)), p.res(VReg(1)));
    assert_ne!(p.res(VReg(2)), p.res(VReg(1)));
    assert_eq!(c.blocks, 2, "the header is visited once per depth level");
    assert_eq!(c.affinity_edges, 2);
    assert_eq!(c.initially_pruned, 1);
}
