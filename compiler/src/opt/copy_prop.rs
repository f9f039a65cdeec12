//! Copy propagation (copy folding) on SSA, with trivial-phi removal.
//!
//! * `x = copy y` (same register type): every use of `x` — phi arguments included — becomes a
//!   use of `y`, and the copy is deleted. Chains `x = copy y; z = copy x` resolve to `y`.
//! * A *trivial* phi, whose arguments are all one value `v` or the phi itself
//!   (`x = phi [b1: v], [b2: x]`), is replaced by `v` (Braun et al. 2013, "Simple and
//!   Efficient Construction of SSA Form", §3.1 — `v`'s definition then dominates the phi's
//!   block). Removing one can make others trivial; a worklist over phi users catches them.
//!
//! This is exactly what makes SSA **non-conventional** (Sreedhar et al.; Rastello, SSA book
//! ch. 21): after folding, phi-related values have overlapping live ranges (the lost-copy and
//! swap problems), so out-of-SSA can no longer just rename each phi web to one register.
//!
//! Copies between `i32` and `ptr` registers are kept: they are register-class moves
//! (data to address register on ST120), not source-level assignments.
//!
//! Preserves strict SSA: `y`'s definition dominates `x`'s, which dominates the uses of `x`.
//! Complexity: O(instructions + operands) (near-linear with the substitution's path
//! compression).

use super::{InstMarks, Subst};
use crate::analysis::defuse::DefUse;
use crate::ir::{Function, Op, Value};

/// What copy propagation did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CopyPropStats {
    pub copies_removed: usize,
    pub phis_removed: usize,
}

/// Folds copies and trivial phis of `f` (see the module doc).
pub fn copy_propagate(f: &mut Function) -> CopyPropStats {
    let mut subst = Subst::new(f.num_values());
    let mut marks = InstMarks::new(f);
    let mut stats = CopyPropStats::default();
    // Phi locations, by result value.
    let mut phi_at: Vec<(u32, u32)> = vec![(u32::MAX, 0); f.num_values()];
    let mut worklist: Vec<Value> = Vec::new();
    for (b, block) in f.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            match (&inst.op, inst.dst) {
                (Op::Copy(src), Some(d)) if f.value_ty(*src) == f.value_ty(d) => {
                    subst.set(d, *src);
                    marks.mark(b, i);
                    stats.copies_removed += 1;
                }
                (Op::Phi(_), Some(d)) => {
                    phi_at[d.index()] = (b as u32, i as u32);
                    worklist.push(d);
                }
                _ => {}
            }
        }
    }
    let du = if worklist.is_empty() {
        None
    } else {
        Some(DefUse::compute(f))
    };
    let mut removed = vec![false; f.num_values()];
    while let Some(x) = worklist.pop() {
        if removed[x.index()] {
            continue;
        }
        let (b, i) = phi_at[x.index()];
        let Op::Phi(args) = &f.blocks[b as usize].insts[i as usize].op else {
            unreachable!("phi_at points at a phi")
        };
        let Some(v) = trivial_value(x, args, &mut subst) else {
            continue;
        };
        if f.value_ty(v) != f.value_ty(x) {
            continue;
        }
        subst.set(x, v);
        removed[x.index()] = true;
        marks.mark(b as usize, i as usize);
        stats.phis_removed += 1;
        // Phis that used `x` may have become trivial.
        let du = du.as_ref().expect("computed when there are phis");
        for u in du.uses(x) {
            if u.phi_pred.is_some() {
                let user = f.blocks[u.block.index()].insts[u.inst as usize].dst;
                if let Some(user) = user {
                    if !removed[user.index()] {
                        worklist.push(user);
                    }
                }
            }
        }
    }
    marks.delete_marked(f);
    subst.apply(f);
    stats
}

/// The single value other than `x` itself among the (resolved) arguments, if there is exactly
/// one.
fn trivial_value(
    x: Value,
    args: &[(crate::ir::BlockId, Value)],
    subst: &mut Subst,
) -> Option<Value> {
    let mut only: Option<Value> = None;
    for &(_, a) in args {
        let a = subst.resolve(a);
        if a == x || Some(a) == only {
            continue;
        }
        if only.is_some() {
            return None;
        }
        only = Some(a);
    }
    only
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse::parse_function;

    fn run(src: &str) -> (String, CopyPropStats) {
        let mut f = parse_function(src).expect("parse");
        let stats = copy_propagate(&mut f);
        crate::ssa::verify_function(&f).expect("still SSA");
        (f.to_string(), stats)
    }

    #[test]
    fn folds_copy_chains_into_phi_arguments() {
        let (text, stats) = run("func @f(%0:i32) -> i32 {
b0:
  %1:i32 = copy %0
  %2:i32 = copy %1
  jmp b1
b1:
  %3:i32 = phi [b0: %2], [b1: %4]
  %4:i32 = copy %3
  %5:i32 = cmp.lt %4, %2
  br %5, b1, b2
b2:
  ret %4
}");
        assert_eq!(
            stats,
            CopyPropStats {
                copies_removed: 3,
                phis_removed: 1
            }
        );
        // %3 = phi(%0, %3) is trivial once the copies are folded.
        assert_eq!(
            text,
            parse_function(
                "func @f(%0:i32) -> i32 {
b0:
  jmp b1
b1:
  %5:i32 = cmp.lt %0, %0
  br %5, b1, b2
b2:
  ret %0
}"
            )
            .unwrap()
            .to_string()
        );
    }

    #[test]
    fn keeps_register_class_moves() {
        let (text, stats) = run("func @f(%0:i32) -> ptr {
b0:
  %1:ptr = copy %0
  ret %1
}");
        assert_eq!(stats.copies_removed, 0);
        assert!(text.contains("copy %0"));
    }
}
