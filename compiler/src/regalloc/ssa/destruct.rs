//! SSA destruction on registers, and the late sequentialisation of parallel copies.
//!
//! **`ssa-destruct`** (Hack, Grund & Goos §5.1, "Implementing Φ-operations"): on
//! allocated-SSA input every value already has its register, so the Φ-operation of a block
//! is, on each incoming edge, one parallel copy from the operands' registers to the
//! results' registers — a permutation when no value is duplicated. It is placed at the end
//! of the predecessor (the predecessor has one successor: edges into phi blocks from blocks
//! with several successors are split first, `mir::split_edges`); copies whose source and
//! destination registers agree are fixed points and vanish. Every virtual register is then
//! replaced by its register: `Form::Allocated`, parallel copies (these and the §6 Perms)
//! kept as first-class `ParCopy` instructions for later passes.
//!
//! **`seq-parcopy`**: each `ParCopy` becomes moves (SSA book ch. 21 §21.3, Algorithm 21.6,
//! via `out_of_ssa::parallel_copy`), the minimum number for a given breaker. A cycle of
//! the register permutation is broken with a register of the class that is free at that
//! point (one extra move per cycle) or, when none is free, with swaps: neither target has a
//! swap instruction, so a swap is the three-`xor` sequence (ST120 pointer registers, which
//! have no `xor`: `ADDBA`/`SUBBA`/`SUBBA`, exact modulo 2^32 — ASSUMPTION: pointer
//! arithmetic wraps at 32 bits), each flagged `SWAP` so the simulator counts the sequence as
//! one swap. Free registers come from a backward liveness of the physical registers (one
//! 64-bit mask per class and block).
//!
//! Complexity: O(instructions + phi operands) for the destruction; the liveness is a
//! fixpoint over per-block masks (O(blocks × depth) rounds of O(instructions)).

use super::{Budget, RegMask};
use crate::mir::split_edges::split_edges_into_phi_blocks;
use crate::mir::{
    target, BlockId, Function, Inst, InstFlags, Opc, Operand, PReg, Pin, Reg, RegClass,
};
use crate::out_of_ssa::parallel_copy::{CycleBreaker, Move, Sequentializer};
use crate::pipeline::PassDetail;
use crate::regalloc::RegallocOptions;
use simulator::isa::{st120, st231, Target};

/// The `ssa-destruct` pass.
pub fn run(f: &mut Function) -> Result<PassDetail, String> {
    let split = split_edges_into_phi_blocks(f);
    // Components of the §6 Perms that move a value to another register.
    let perm_copies: u64 = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| i.opc == Opc::ParCopy)
        .map(|i| {
            i.defs
                .iter()
                .zip(&i.uses)
                .filter(|(d, u)| register_of(d).ok() != register_of(u).ok())
                .count() as u64
        })
        .sum();
    let mut copies = 0u64;
    for s in f.block_ids().collect::<Vec<_>>() {
        let nphi = f.block(s).phi_end();
        if nphi == 0 {
            continue;
        }
        let phis: Vec<Inst> = f.block_mut(s).insts.drain(..nphi).collect();
        let mut preds: Vec<BlockId> = phis[0].phi_blocks().to_vec();
        preds.dedup();
        for p in preds {
            let mut pairs: Vec<(Operand, Operand)> = Vec::new();
            for phi in &phis {
                let i = phi
                    .phi_blocks()
                    .iter()
                    .position(|&b| b == p)
                    .ok_or_else(|| format!("phi in {s} has no operand from {p}"))?;
                let dst = register_of(&phi.defs[0])?;
                let src = register_of(&phi.uses[i])?;
                if dst != src {
                    pairs.push((Operand::new(dst), Operand::new(src)));
                }
            }
            if pairs.is_empty() {
                continue;
            }
            copies += pairs.len() as u64;
            let pb = f.block_mut(p);
            let at = pb.terminator_start();
            pb.insts
                .insert(at, Inst::par_copy(pairs).with_flags(InstFlags::INSERTED));
        }
    }
    devirtualise(f)?;
    let psi_copies = lower_psis(f)?;
    Ok(vec![
        ("edges_split", split as u64),
        ("phi_copies", copies),
        ("perm_copies", perm_copies),
        ("psi_copies", psi_copies),
    ])
}

/// The register of an operand in allocated-SSA form.
fn register_of(o: &Operand) -> Result<PReg, String> {
    match (o.reg, o.pin) {
        (Reg::P(p), _) => Ok(p),
        (Reg::V(_), Some(Pin::Phys(p))) => Ok(p),
        (Reg::V(v), _) => Err(format!("{v} has no register (not in allocated-SSA form)")),
    }
}

/// Replaces every virtual register by its register. Pins stay (each now names the
/// operand's own register; tied uses keep their `Pin::Var`).
fn devirtualise(f: &mut Function) -> Result<(), String> {
    // A tied use's register is its definition's.
    for block in &mut f.blocks {
        for inst in &mut block.insts {
            let def_regs: Vec<(crate::mir::VReg, PReg)> = inst
                .defs
                .iter()
                .filter_map(|o| Some((o.vreg()?, register_of(o).ok()?)))
                .collect();
            for o in inst.uses.iter_mut() {
                if let (Reg::V(_), Some(Pin::Var(d))) = (o.reg, o.pin) {
                    let r = def_regs
                        .iter()
                        .find(|(v, _)| *v == d)
                        .map(|(_, r)| *r)
                        .ok_or_else(|| format!("tied use pinned to {d}, not defined here"))?;
                    o.reg = Reg::P(r);
                }
            }
            for o in inst.defs.iter_mut().chain(inst.uses.iter_mut()) {
                if let Reg::V(_) = o.reg {
                    o.reg = Reg::P(register_of(o)?);
                }
            }
        }
    }
    Ok(())
}

/// Lowers each (allocated) psi `d = psi [g1: a1], ..., [gn: an]` to the copies `gi? d := ai`
/// in operand order (a plain copy for the always-true guard; none where `ai` is already in
/// `d`'s register): the last true guard wins, as the psi says. `ssa-colour` never gives `d`
/// the register of a later operand, so no copy overwrites an operand still to be read.
pub(crate) fn lower_psis(f: &mut Function) -> Result<u64, String> {
    let t = f.target;
    let mut n = 0;
    for block in &mut f.blocks {
        if !block.insts.iter().any(|i| i.opc == Opc::Psi) {
            continue;
        }
        let old = std::mem::take(&mut block.insts);
        for inst in old {
            if inst.opc != Opc::Psi {
                block.insts.push(inst);
                continue;
            }
            let d = register_of(&inst.defs[0])?;
            for pair in inst.uses.chunks(2) {
                let (g, a) = (register_of(&pair[0])?, register_of(&pair[1])?);
                if a == d {
                    continue;
                }
                let mut c = Inst::copy(d, a);
                if !(t == Target::St120 && g == PReg::new(RegClass::G, st120::GUARD_TRUE)) {
                    c.uses.push(Operand::new(g));
                    c.flags |= InstFlags::GUARDED;
                }
                block.insts.push(c);
                n += 1;
            }
        }
    }
    Ok(n)
}

/// Backward transfer of one instruction over physical registers.
fn transfer(t: Target, inst: &Inst, live: &mut RegMask) {
    for o in &inst.defs {
        if let Reg::P(p) = o.reg {
            if !inst.flags.contains(InstFlags::GUARDED) {
                live.remove(p);
            }
        }
    }
    if super::is_call(inst) {
        for &r in target::call_clobbers(t) {
            live.remove(r);
        }
    }
    for o in &inst.uses {
        if let Reg::P(p) = o.reg {
            live.add(p);
        }
    }
}

/// Live-out masks of every block: a backward fixpoint, blocks visited in post-order (so a
/// round costs O(instructions) and the number of rounds is bounded by the loop nesting).
fn live_out_masks(f: &Function) -> Vec<RegMask> {
    let n = f.blocks.len();
    let succs = f.successors();
    let info = crate::mir::cfg::CfgInfo::compute(f);
    let mut order: Vec<usize> = info.rpo().map(|b| b.index()).collect();
    order.reverse();
    let mut live_in = vec![RegMask::default(); n];
    let mut live_out = vec![RegMask::default(); n];
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &order {
            let mut out = RegMask::default();
            for s in &succs[b] {
                if let Some(i) = live_in.get(s.index()) {
                    out.union(i);
                }
            }
            live_out[b] = out;
            let mut cur = out;
            for inst in f.blocks[b].insts.iter().rev() {
                transfer(f.target, inst, &mut cur);
            }
            if live_in[b].union(&cur) {
                changed = true;
            }
        }
    }
    live_out
}

/// Counts of `seq-parcopy`.
#[derive(Clone, Copy, Debug, Default)]
pub struct SeqStats {
    pub moves: u64,
    pub swaps: u64,
    pub temp_cycles: u64,
}

/// The `seq-parcopy` pass.
pub fn sequentialise(f: &mut Function, opts: &RegallocOptions) -> Result<PassDetail, String> {
    let budget = Budget::new(f.target, opts);
    let live_out = live_out_masks(f);
    let mut seq = Sequentializer::new();
    let mut stats = SeqStats::default();
    let t = f.target;
    for (block, block_live_out) in f.blocks.iter_mut().zip(&live_out) {
        if !block.insts.iter().any(|i| i.opc == Opc::ParCopy) {
            continue;
        }
        // Live set after each instruction, backwards.
        let insts = std::mem::take(&mut block.insts);
        let mut after = vec![RegMask::default(); insts.len()];
        let mut cur = *block_live_out;
        for (k, inst) in insts.iter().enumerate().rev() {
            after[k] = cur;
            transfer(t, inst, &mut cur);
        }
        let mut out = Vec::with_capacity(insts.len() + 8);
        for (k, inst) in insts.into_iter().enumerate() {
            if inst.opc != Opc::ParCopy {
                out.push(inst);
                continue;
            }
            sequentialise_one(t, &budget, &inst, &after[k], &mut seq, &mut out, &mut stats)?;
        }
        block.insts = out;
    }
    Ok(vec![
        ("moves", stats.moves),
        ("swaps", stats.swaps),
        ("temp_cycles", stats.temp_cycles),
    ])
}

fn sequentialise_one(
    t: Target,
    budget: &Budget,
    inst: &Inst,
    live_after: &RegMask,
    seq: &mut Sequentializer,
    out: &mut Vec<Inst>,
    stats: &mut SeqStats,
) -> Result<(), String> {
    let mut pairs: Vec<(PReg, PReg)> = Vec::new();
    for (d, u) in inst.defs.iter().zip(&inst.uses) {
        let (Reg::P(d), Reg::P(u)) = (d.reg, u.reg) else {
            return Err("parallel copy on virtual registers after allocation".into());
        };
        pairs.push((d, u));
    }
    for &c in target::classes(t) {
        let copies: Vec<(u32, u32)> = pairs
            .iter()
            .filter(|(d, _)| d.class == c)
            .map(|(d, u)| (u32::from(d.num), u32::from(u.num)))
            .collect();
        if copies.is_empty() {
            continue;
        }
        let busy = |n: u8| {
            copies
                .iter()
                .any(|&(d, s)| d == u32::from(n) || s == u32::from(n))
        };
        let temp = budget
            .regs(c)
            .iter()
            .copied()
            .find(|&n| !live_after.has(PReg::new(c, n)) && !busy(n));
        let breaker = match temp {
            Some(n) => CycleBreaker::Temp(u32::from(n)),
            None => CycleBreaker::Swap,
        };
        let mut moves = Vec::new();
        seq.sequentialize(&copies, breaker, &mut moves)
            .map_err(|e| format!("parallel copy: {e:?}"))?;
        let mut temp_used = false;
        for m in moves {
            match m {
                Move::Copy { dst, src } => {
                    let (d, s) = (PReg::new(c, dst as u8), PReg::new(c, src as u8));
                    temp_used |= Some(dst as u8) == temp;
                    out.push(Inst::copy(d, s).with_flags(InstFlags::INSERTED));
                    stats.moves += 1;
                }
                Move::Swap { a, b } => {
                    let (a, b) = (PReg::new(c, a as u8), PReg::new(c, b as u8));
                    out.extend(swap(t, a, b)?);
                    stats.swaps += 1;
                }
            }
        }
        if temp_used {
            stats.temp_cycles += 1;
        }
    }
    Ok(())
}

/// The three-operation swap of two registers, each flagged `SWAP`.
pub fn swap(t: Target, a: PReg, b: PReg) -> Result<Vec<Inst>, String> {
    let op = |opc: Opc, d: PReg, x: PReg, y: PReg| {
        Inst::new(
            opc,
            vec![Operand::new(d)],
            vec![Operand::new(x), Operand::new(y)],
            crate::mir::Imm::None,
        )
        .with_flags(InstFlags::SWAP | InstFlags::INSERTED)
    };
    let xor3 = |opc: Opc| vec![op(opc, a, a, b), op(opc, b, a, b), op(opc, a, a, b)];
    Ok(match (t, a.class) {
        (Target::St231, RegClass::R) => xor3(Opc::St231(st231::Opcode::Xor)),
        (Target::St120, RegClass::R) => xor3(Opc::St120(st120::Opcode::Bin(st120::BinOp::Xor))),
        (Target::St120, RegClass::G) => xor3(Opc::St120(st120::Opcode::Guard(st120::GuardOp::Xor))),
        (Target::St120, RegClass::P) => {
            let add = Opc::St120(st120::Opcode::Au(st120::AuOp::AddB));
            let sub = Opc::St120(st120::Opcode::Au(st120::AuOp::SubB));
            // a = a + b; b = a - b; a = a - b
            vec![op(add, a, a, b), op(sub, b, a, b), op(sub, a, a, b)]
        }
        _ => return Err(format!("no swap sequence for class {:?} on {t}", a.class)),
    })
}
