//! `pereira-lift`: the static transformation of the control-flow graph that Pereira's
//! allocator starts with (§4.2, Figure 4, `PhiLifting`), preceded by the two preparations
//! its other phases rely on.
//!
//! 1. **Edge splitting** (`mir::split_edges::split_edges_for_edge_code`): Theorem 1 (phi
//!    lifting does not increase the register pressure) assumes no critical edges, and the
//!    copies at the end of a predecessor must run on that edge only.
//! 2. **Pre-coloured values as short ranges** (§4.5, "Handling Pre-colored Virtual
//!    Registers", following the LLVM setting the paper works in, where an ABI register is
//!    written by a copy right before the call and read by one right after): every use
//!    pinned to a physical register reads a fresh value copied right before the
//!    instruction, every definition pinned to a physical register writes a fresh value
//!    copied right after it, and a tied use (two-address operand) reads a fresh copy, so
//!    that it dies at the instruction. The pinned values then live only next to their
//!    instruction, and the colouring's rule — a register is safe for `v` when `v` overlaps
//!    no other value pre-coloured with it — leaves every other value free elsewhere. Phi
//!    operands lose their pins (the lifted copies below carry the values; no phi reaches
//!    the output). Values of a class without a copy (ST231 branch registers) keep pins.
//! 3. **PhiLifting**: for each phi `a_i = φ(a_i1 : B_1, …, a_im : B_m)`, a new value `v_ij`
//!    copied from `a_ij` at the end of `B_j` replaces the operand, and a new value `v_i`
//!    defined by the phi is copied into `a_i` right after the phis. The copies of one block
//!    end are one parallel copy (all the phis of a block read their operands at once), as
//!    are the copies after the phis. Afterwards φ-related values never interfere: each
//!    phi's class is `{v_i, v_i1, …, v_im}` (§4.3), the program is CSSA and still SSA.
//!
//! Every inserted instruction is flagged `INSERTED`. Complexity: O(instructions + phi
//! operands) plus the edge splitting (linear).

use super::super::constraints::copyable;
use crate::mir::split_edges::split_edges_for_edge_code;
use crate::mir::{BlockId, Function, Inst, InstFlags, Opc, Operand, Pin, Reg};
use crate::pipeline::PassDetail;

/// The `pereira-lift` pass.
pub fn run(f: &mut Function) -> Result<PassDetail, String> {
    let split = split_edges_for_edge_code(f) as u64;
    let isolation = isolate_precoloured(f);
    let lifted = phi_lifting(f)?;
    Ok(vec![
        ("edges_split", split),
        ("precolour_copies", isolation),
        ("lifted_copies", lifted),
    ])
}

/// Step 2: copies around pinned and tied operands. Returns the number of copies.
pub fn isolate_precoloured(f: &mut Function) -> u64 {
    let t = f.target;
    let mut n = 0u64;
    for b in f.block_ids().collect::<Vec<_>>() {
        let old = std::mem::take(&mut f.block_mut(b).insts);
        let mut out = Vec::with_capacity(old.len());
        for mut inst in old {
            if inst.is_phi() {
                for o in inst.defs.iter_mut().chain(inst.uses.iter_mut()) {
                    o.pin = None;
                }
                out.push(inst);
                continue;
            }
            let mut after = Vec::new();
            for k in 0..inst.uses.len() {
                let o = inst.uses[k];
                let Reg::V(v) = o.reg else { continue };
                if o.pin.is_none() || !copyable(t, f.class_of(v)) {
                    continue;
                }
                let c = f.new_vreg(f.class_of(v));
                let dst = match o.pin {
                    Some(Pin::Phys(p)) => Operand::pinned(c, Pin::Phys(p)),
                    _ => Operand::new(c),
                };
                out.push(Inst::copy(dst, v).with_flags(InstFlags::INSERTED));
                inst.uses[k].reg = Reg::V(c);
                n += 1;
            }
            if inst.opc != Opc::Copy || !inst.flags.contains(InstFlags::INSERTED) {
                for k in 0..inst.defs.len() {
                    let o = inst.defs[k];
                    let (Reg::V(v), Some(Pin::Phys(p))) = (o.reg, o.pin) else {
                        continue;
                    };
                    if !copyable(t, f.class_of(v)) {
                        continue;
                    }
                    let c = f.new_vreg(f.class_of(v));
                    inst.defs[k].reg = Reg::V(c);
                    for u in inst.uses.iter_mut() {
                        if u.pin == Some(Pin::Var(v)) {
                            u.pin = Some(Pin::Var(c));
                        }
                    }
                    after.push(
                        Inst::copy(v, Operand::pinned(c, Pin::Phys(p)))
                            .with_flags(InstFlags::INSERTED),
                    );
                    n += 1;
                }
            }
            out.push(inst);
            out.extend(after);
        }
        f.block_mut(b).insts = out;
    }
    n
}

/// Step 3, Figure 4's `PhiLifting` for every phi. Returns the number of copies created.
pub fn phi_lifting(f: &mut Function) -> Result<u64, String> {
    let mut n = 0u64;
    for s in f.block_ids().collect::<Vec<_>>() {
        let nphi = f.block(s).phi_end();
        if nphi == 0 {
            continue;
        }
        let mut preds: Vec<BlockId> = f.block(s).insts[0].phi_blocks().to_vec();
        preds.sort_unstable();
        preds.dedup();
        for p in preds {
            let mut pairs: Vec<(Operand, Operand)> = Vec::new();
            for i in 0..nphi {
                let phi = &f.block(s).insts[i];
                let idx: Vec<usize> = phi
                    .phi_blocks()
                    .iter()
                    .enumerate()
                    .filter(|(_, &b)| b == p)
                    .map(|(k, _)| k)
                    .collect();
                let Some(&first) = idx.first() else {
                    return Err(format!("phi in {s} has no operand from {p}"));
                };
                let o = phi.uses[first];
                let c = f.reg_class(o.reg);
                let v = f.new_vreg(c);
                pairs.push((Operand::new(v), Operand::new(o.reg)));
                for k in idx {
                    f.block_mut(s).insts[i].uses[k] = Operand::new(v);
                }
            }
            n += pairs.len() as u64;
            let pb = f.block_mut(p);
            let at = pb.terminator_start();
            pb.insts
                .insert(at, Inst::par_copy(pairs).with_flags(InstFlags::INSERTED));
        }
        let mut pairs: Vec<(Operand, Operand)> = Vec::new();
        for i in 0..nphi {
            let Some(a) = f.block(s).insts[i].defs[0].vreg() else {
                return Err(format!("phi in {s} defines no virtual register"));
            };
            let v = f.new_vreg(f.class_of(a));
            f.block_mut(s).insts[i].defs[0] = Operand::new(v);
            pairs.push((Operand::new(a), Operand::new(v)));
        }
        n += pairs.len() as u64;
        f.block_mut(s)
            .insts
            .insert(nphi, Inst::par_copy(pairs).with_flags(InstFlags::INSERTED));
    }
    Ok(n)
}
