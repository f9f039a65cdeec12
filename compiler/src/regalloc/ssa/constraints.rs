//! Register constraints on SSA form, Hack, Grund & Goos §6 (Figures 7–8): a Perm — a
//! parallel copy of every value live in front of the instruction — right before each
//! instruction with register constraints, so that "all variables live in front of the
//! constrained instruction are able to change their register there": the interference
//! graph falls apart into components in which each constraint colour occurs once, colouring
//! stays optimal, and the register demand never exceeds the budget.
//!
//! Constrained instructions ([`super::needs_perm`]): calls (the ABI argument and result
//! registers, and the clobbers: the values live across the call are the Perm's results,
//! coloured outside the clobbered registers), `.output` (the result register), and any
//! other operand pinned to a physical register. Each constrained use gets its own Perm
//! result, pinned to the use's register; each value that stays live after the instruction
//! (or is also read by an unconstrained operand) gets one more result, which later uses
//! read (SSA reconstruction renames them).
//!
//! Tied (two-address) operands outside a Perm — ST120 post-increment, `MORE`, guarded
//! partial definitions — need only their use to die at the instruction, so that the
//! definition can take its register: when the value stays live, one `copy` is placed in
//! front and the tied operand reads the copy.
//!
//! The values of ST231 branch registers (no copy instruction) are never copied: they are
//! block-local and must not live across a call (the colouring reports it if they do).
//!
//! Preconditions: SSA after spilling (the spiller already counted the duplicates made
//! here, `super::duplicates_at`). Postcondition: SSA; each constrained instruction is
//! preceded by its Perm. Complexity: O(instructions + Σ live values at constrained
//! instructions) plus the reconstruction.

use super::liveness::Liveness;
use super::needs_perm;
use super::reconstruct::Reconstruction;
use crate::mir::{BlockId, Function, Inst, InstFlags, Operand, Pin, RegClass, VReg};
use crate::pipeline::PassDetail;
use simulator::isa::Target;

/// Whether values of class `c` can be copied on target `t`.
pub fn copyable(t: Target, c: RegClass) -> bool {
    !(t == Target::St231 && c == RegClass::B)
}

/// The `ssa-constraints` pass.
pub fn run(f: &mut Function) -> Result<PassDetail, String> {
    let preds = f.predecessors();
    let live = Liveness::compute(f, &preds);
    let mut recon = Reconstruction::new();
    let mut perms = 0u64;
    let mut perm_copies = 0u64;
    let mut tied_copies = 0u64;
    for b in f.block_ids() {
        let live_after = live_after_each(f, &live, b);
        let old = std::mem::take(&mut f.block_mut(b).insts);
        let mut out = Vec::with_capacity(old.len());
        for (k, mut inst) in old.into_iter().enumerate() {
            let after = &live_after[k];
            if needs_perm(&inst) {
                let perm = build_perm(f, &mut inst, after, &mut recon);
                perms += 1;
                perm_copies += perm.defs.len() as u64;
                if !perm.defs.is_empty() {
                    out.push(perm);
                }
            } else if let Some(copies) = tied_copies_for(f, &mut inst, after) {
                tied_copies += copies.len() as u64;
                out.extend(copies);
            }
            out.push(inst);
        }
        f.block_mut(b).insts = out;
    }
    let phis = recon.run(f)?;
    Ok(vec![
        ("perms", perms),
        ("perm_results", perm_copies),
        ("tied_copies", tied_copies),
        ("reconstruct_phis", phis as u64),
    ])
}

/// The live set after each instruction of block `b` that has constraints (sorted; empty for
/// the others, which need none — keeping every set would cost instructions × live values).
fn live_after_each(f: &Function, live: &Liveness, b: BlockId) -> Vec<Vec<VReg>> {
    let block = f.block(b);
    let mut cur: Vec<VReg> = live.live_out[b.index()].clone();
    let mut out = vec![Vec::new(); block.insts.len()];
    for (k, inst) in block.insts.iter().enumerate().rev() {
        let tied = inst.uses.iter().any(|u| matches!(u.pin, Some(Pin::Var(_))));
        if tied || needs_perm(inst) {
            out[k] = cur.clone();
        }
        for d in inst.def_vregs() {
            if let Ok(i) = cur.binary_search(&d) {
                cur.remove(i);
            }
        }
        if !inst.is_phi() {
            for u in inst.use_vregs() {
                if let Err(i) = cur.binary_search(&u) {
                    cur.insert(i, u);
                }
            }
        }
    }
    out
}

/// The Perm in front of `inst`: rewrites the constrained uses of `inst` to fresh results
/// and registers the results standing for the values live across it with `recon`.
fn build_perm(
    f: &mut Function,
    inst: &mut Inst,
    after: &[VReg],
    recon: &mut Reconstruction,
) -> Inst {
    let t = f.target;
    // Values live in front of `inst`.
    let mut before: Vec<VReg> = after.to_vec();
    for u in inst.use_vregs() {
        if let Err(i) = before.binary_search(&u) {
            before.insert(i, u);
        }
    }
    for d in inst.def_vregs() {
        if let Ok(i) = before.binary_search(&d) {
            before.remove(i);
        }
    }
    let mut pairs: Vec<(Operand, Operand)> = Vec::new();
    // One result per constrained use.
    for j in 0..inst.uses.len() {
        let o = inst.uses[j];
        let Some(v) = o.vreg() else { continue };
        if o.pin.is_none() || !copyable(t, f.class_of(v)) {
            continue;
        }
        let r = f.new_vreg(f.class_of(v));
        let def = match o.pin {
            Some(Pin::Phys(p)) => Operand::pinned(r, Pin::Phys(p)),
            _ => Operand::new(r),
        };
        pairs.push((def, Operand::new(v)));
        inst.uses[j].reg = r.into();
    }
    // One result per value still needed after the constrained uses took theirs.
    for &v in &before {
        if !copyable(t, f.class_of(v)) {
            continue;
        }
        let still_read = inst.uses.iter().any(|u| u.reg == v.into());
        if after.binary_search(&v).is_err() && !still_read {
            continue;
        }
        let r = f.new_vreg(f.class_of(v));
        pairs.push((Operand::new(r), Operand::new(v)));
        recon.add_definition(r, v);
    }
    Inst::par_copy(pairs).with_flags(InstFlags::INSERTED)
}

/// Copies in front of `inst` for its tied uses whose value stays live (or is read twice).
fn tied_copies_for(f: &mut Function, inst: &mut Inst, after: &[VReg]) -> Option<Vec<Inst>> {
    let mut copies = Vec::new();
    for j in 0..inst.uses.len() {
        let o = inst.uses[j];
        let (Some(v), Some(Pin::Var(_))) = (o.vreg(), o.pin) else {
            continue;
        };
        let read_elsewhere = inst
            .uses
            .iter()
            .enumerate()
            .any(|(i, u)| i != j && u.reg == v.into());
        if after.binary_search(&v).is_err() && !read_elsewhere {
            continue;
        }
        let r = f.new_vreg(f.class_of(v));
        copies.push(Inst::copy(r, v).with_flags(InstFlags::INSERTED));
        inst.uses[j].reg = r.into();
    }
    (!copies.is_empty()).then_some(copies)
}
