//! Copy elimination **after** register allocation (issue 21), on the `Form::Allocated`
//! output of road 2's `ssa-destruct` (parallel copies with physical registers, before
//! `seq-parcopy` turns them into moves).
//!
//! * [`pcm`] — Parallel Copy Motion (Bouchez, Colombet, Darte, Rastello & Guillon, SCOPES
//!   2010, as Brandner & Colombet, RR-7735, 2011, §2.3 summarise it): parallel copies are
//!   turned into register permutations; **Edge Motion** (`pcm-edge`) moves them between
//!   control-flow edges and blocks where neighbouring permutations cancel, **Block Motion**
//!   (`pcm-block`) places each one inside its block where its projection onto the live
//!   registers is smallest, renaming the instructions it passes.
//!
//! This module holds what both share: register permutations ([`Perm`]), sets of physical
//! registers ([`Regs`]), the backward liveness of physical registers, and the renaming
//! rules (which instructions may have their registers renamed, §3.3 of Brandner &
//! Colombet: calls, `.input`/`.output`, control operations and Perms keep theirs;
//! registers outside the allocator's budget — SP, `$r0`, the true guard, ABI registers
//! beyond `--regs N` — are never permuted).
//!
//! Invariant kept by every pass here: for each program point, the value each live register
//! holds is the value the input held in the register the permutations map it from, so
//! the value-flow checker (`regalloc::checker::value_flow`) accepts the result whenever it
//! accepted the input.

pub mod ddg;
pub mod pcm;

use crate::mir::{target, Control, Function, Inst, InstFlags, Opc, PReg, Reg, RegClass};
use crate::regalloc::ssa::Budget;

fn class_index(c: RegClass) -> usize {
    match c {
        RegClass::R => 0,
        RegClass::B => 1,
        RegClass::P => 2,
        RegClass::G => 3,
    }
}

const CLASSES: [RegClass; 4] = [RegClass::R, RegClass::B, RegClass::P, RegClass::G];

/// A set of physical registers: one 64-bit mask per class.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Regs([u64; 4]);

impl Regs {
    pub fn has(&self, r: PReg) -> bool {
        r.num < 64 && self.0[class_index(r.class)] & (1u64 << r.num) != 0
    }
    pub fn add(&mut self, r: PReg) {
        if r.num < 64 {
            self.0[class_index(r.class)] |= 1u64 << r.num;
        }
    }
    pub fn remove(&mut self, r: PReg) {
        if r.num < 64 {
            self.0[class_index(r.class)] &= !(1u64 << r.num);
        }
    }
    /// Adds every register of `o`; tells whether the set grew.
    pub fn union(&mut self, o: &Regs) -> bool {
        let before = *self;
        for i in 0..4 {
            self.0[i] |= o.0[i];
        }
        *self != before
    }
    /// The registers of the set.
    pub fn iter(&self) -> impl Iterator<Item = PReg> + '_ {
        CLASSES.iter().enumerate().flat_map(move |(i, &c)| {
            let m = self.0[i];
            (0..64u8)
                .filter(move |n| m & (1u64 << n) != 0)
                .map(move |n| PReg::new(c, n))
        })
    }
    /// The image of the set under `p`.
    pub fn map(&self, p: &Perm) -> Regs {
        let mut out = Regs::default();
        for r in self.iter() {
            out.add(p.apply(r));
        }
        out
    }
}

/// A permutation of the physical registers (each class onto itself): the value in `r`
/// before it is in `apply(r)` after it. Registers outside the budget are fixed points.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Perm([[u8; 64]; 4]);

impl Default for Perm {
    fn default() -> Perm {
        Perm::identity()
    }
}

impl Perm {
    pub fn identity() -> Perm {
        let mut m = [[0u8; 64]; 4];
        for row in &mut m {
            for (i, x) in row.iter_mut().enumerate() {
                *x = i as u8;
            }
        }
        Perm(m)
    }

    pub fn apply(&self, r: PReg) -> PReg {
        if r.num >= 64 {
            return r;
        }
        PReg::new(r.class, self.0[class_index(r.class)][r.num as usize])
    }

    pub fn inverse(&self) -> Perm {
        let mut inv = Perm::identity();
        for c in 0..4 {
            for i in 0..64 {
                inv.0[c][self.0[c][i] as usize] = i as u8;
            }
        }
        inv
    }

    /// `self` first, then `next`.
    pub fn then(&self, next: &Perm) -> Perm {
        let mut out = Perm::identity();
        for c in 0..4 {
            for i in 0..64 {
                out.0[c][i] = next.0[c][self.0[c][i] as usize];
            }
        }
        out
    }

    pub fn is_identity(&self) -> bool {
        *self == Perm::identity()
    }

    /// The registers of `live` (after the permutation) that receive another register's
    /// value: the copies of the projection onto `live` (Bouchez et al.: a permutation
    /// costs the copies of its live part only).
    pub fn cost(&self, live_after: &Regs) -> u64 {
        let inv = self.inverse();
        live_after.iter().filter(|&d| inv.apply(d) != d).count() as u64
    }

    /// The projection onto the registers live after it: `(destination, source)` pairs.
    pub fn project(&self, live_after: &Regs) -> Vec<(PReg, PReg)> {
        let inv = self.inverse();
        live_after
            .iter()
            .filter_map(|d| {
                let s = inv.apply(d);
                (s != d).then_some((d, s))
            })
            .collect()
    }

    /// A parallel copy as a permutation, if it is one on the live registers: no source
    /// read twice, every register in the budget, and no source that is not also a
    /// destination still live after the copy (its value would be duplicated). The
    /// destinations that are not sources are mapped onto the sources that are not
    /// destinations by following each chain of copies to its end (a regular copy becomes
    /// a cycle, Definition 2 of Brandner & Colombet); their values are dead either way.
    pub fn from_parcopy(
        t: simulator::isa::Target,
        inst: &Inst,
        live_after: &Regs,
        budget: &Budget,
    ) -> Option<Perm> {
        if inst.opc != Opc::ParCopy {
            return None;
        }
        let mut pairs: Vec<(PReg, PReg)> = Vec::new();
        for (d, u) in inst.defs.iter().zip(&inst.uses) {
            let (Reg::P(d), Reg::P(u)) = (d.reg, u.reg) else {
                return None;
            };
            if d.class != u.class || !budget.contains(d) || !budget.contains(u) {
                return None;
            }
            // ST231 branch registers have no copy instruction: never make new copies of them.
            if !crate::regalloc::ssa::constraints::copyable(t, d.class) {
                return None;
            }
            if d != u {
                pairs.push((d, u));
            }
        }
        let mut perm = Perm::identity();
        let mut srcs = Regs::default();
        let mut dsts = Regs::default();
        for &(d, s) in &pairs {
            if srcs.has(s) || dsts.has(d) {
                return None;
            }
            srcs.add(s);
            dsts.add(d);
        }
        for &(d, s) in &pairs {
            perm.0[class_index(s.class)][s.num as usize] = d.num;
        }
        // Close every chain: from a source that is no destination, follow the copies to
        // the destination that is no source, and map that one back to the chain's start.
        for &(_, s) in &pairs {
            if dsts.has(s) {
                continue;
            }
            if live_after.has(s) {
                return None;
            }
            let mut end = perm.apply(s);
            let mut steps = 0;
            while srcs.has(end) {
                end = perm.apply(end);
                steps += 1;
                if steps > 64 {
                    return None;
                }
            }
            perm.0[class_index(end.class)][end.num as usize] = s.num;
        }
        // A bijection by construction; check it anyway (never trust a malformed copy).
        let inv = perm.inverse();
        if perm.then(&inv) != Perm::identity() {
            return None;
        }
        Some(perm)
    }

    /// The parallel copy realising this permutation where `live_after` is live after it
    /// (`None` when no live register moves).
    pub fn to_parcopy(&self, live_after: &Regs) -> Option<Inst> {
        let pairs = self.project(live_after);
        if pairs.is_empty() {
            return None;
        }
        let ops = pairs
            .into_iter()
            .map(|(d, s)| (crate::mir::Operand::new(d), crate::mir::Operand::new(s)))
            .collect();
        Some(Inst::par_copy(ops).with_flags(InstFlags::INSERTED))
    }
}

/// Backward transfer of one instruction over physical registers (guarded definitions do not
/// kill; calls kill their clobbers).
pub fn transfer(t: simulator::isa::Target, inst: &Inst, live: &mut Regs) {
    for o in &inst.defs {
        if let Reg::P(p) = o.reg {
            if !inst.flags.contains(InstFlags::GUARDED) {
                live.remove(p);
            }
        }
    }
    if inst.control() == Control::Call {
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

/// Live-in and live-out registers of every block: a backward fixpoint over the blocks in
/// post-order (rounds bounded by the loop nesting; each round O(instructions)).
pub fn live_in_out(f: &Function) -> (Vec<Regs>, Vec<Regs>) {
    let n = f.blocks.len();
    let succs = f.successors();
    let info = crate::mir::cfg::CfgInfo::compute(f);
    let mut order: Vec<usize> = info.rpo().map(|b| b.index()).collect();
    order.reverse();
    let mut live_in = vec![Regs::default(); n];
    let mut live_out = vec![Regs::default(); n];
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &order {
            let mut out = Regs::default();
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
    (live_in, live_out)
}

/// The registers live after each instruction of `insts`, given those live at the end.
pub fn live_after_each(t: simulator::isa::Target, insts: &[Inst], live_out: &Regs) -> Vec<Regs> {
    let mut after = vec![Regs::default(); insts.len()];
    let mut cur = *live_out;
    for (k, inst) in insts.iter().enumerate().rev() {
        after[k] = cur;
        transfer(t, inst, &mut cur);
    }
    after
}

/// Whether a permutation may move past `inst`, renaming its registers (§3.3 of Brandner &
/// Colombet: registers that cannot be renamed are respected). Calls clobber and pass
/// arguments in fixed registers, `.input`/`.output` pin the ABI registers, control
/// operations end the block, `TRAP` reads fixed registers, the copies lowered from a psi
/// stand for operands they do not show, and parallel copies are motion candidates of their
/// own. An instruction whose operand was pinned in the allocator's input is flagged
/// `PINNED` by [`mark_pinned`]; in a function that pass did not mark (`marked` false) every
/// operand carries a `Pin::Phys` naming its own register after `ssa-destruct`, so an ABI
/// pin cannot be told from a colour: conservatively, an instruction touching an ABI
/// argument or result register is then not renamed either.
pub fn renamable(t: simulator::isa::Target, inst: &Inst, marked: bool) -> bool {
    if matches!(
        inst.opc,
        Opc::Phi | Opc::ParCopy | Opc::Input | Opc::Output | Opc::Psi
    ) || inst.control() != Control::None
        || inst.opc == Opc::St120(simulator::isa::st120::Opcode::Trap)
        || inst.flags.contains(InstFlags::PINNED)
    {
        return false;
    }
    if inst.opc == Opc::Copy && !inst.flags.contains(InstFlags::INSERTED) {
        return false;
    }
    inst.defs.iter().chain(&inst.uses).all(|o| match o.reg {
        Reg::P(r) => marked || !is_abi_register(t, r),
        Reg::V(_) => false,
    })
}

/// Whether [`mark_pinned`] ran on `f`.
pub fn is_marked(f: &Function) -> bool {
    f.blocks
        .first()
        .and_then(|b| b.insts.first())
        .is_some_and(|i| i.opc == Opc::Input && i.flags.contains(InstFlags::PINNED))
}

/// The `mark-pinned` pass (before `ssa-colour`, which overwrites the pins): flags `PINNED`
/// every instruction with an operand pinned to a physical register or naming an allocatable
/// physical register, and `.input`. A physical register an allocator could hand out (a register outside every budget, such
/// as SP or `$r0`, is never permuted anyway).
pub fn mark_pinned(f: &mut Function) -> Result<crate::pipeline::PassDetail, String> {
    let t = f.target;
    let allocatable = |r: PReg| target::allocatable(t, r.class).contains(&r.num);
    let mut n = 0u64;
    for inst in f.blocks.iter_mut().flat_map(|b| b.insts.iter_mut()) {
        let pinned = inst.opc == Opc::Input
            || inst.defs.iter().chain(&inst.uses).any(|o| {
                matches!(o.pin, Some(crate::mir::Pin::Phys(_)))
                    || o.reg.preg().is_some_and(allocatable)
            });
        if pinned {
            inst.flags |= InstFlags::PINNED;
            n += 1;
        }
    }
    Ok(vec![("pinned", n)])
}

/// An argument or result register of the calling convention.
pub fn is_abi_register(t: simulator::isa::Target, r: PReg) -> bool {
    target::arg_regs(t, r.class).contains(&r.num) || target::result_reg(t, r.class) == Some(r)
}

/// Renames every register operand of `inst` through `p` (pins follow their operand).
pub fn rename(inst: &mut Inst, p: &Perm) {
    for o in inst.defs.iter_mut().chain(inst.uses.iter_mut()) {
        if let Reg::P(r) = o.reg {
            let n = p.apply(r);
            o.reg = Reg::P(n);
            if let Some(crate::mir::Pin::Phys(_)) = o.pin {
                o.pin = Some(crate::mir::Pin::Phys(n));
            }
        }
    }
}

/// Register-to-register copies of a function and their `5^depth`-weighted cost, counting a
/// parallel copy as its moving components (what `seq-parcopy` needs at least).
pub fn count_copies(f: &Function) -> (u64, u64) {
    let info = crate::mir::cfg::CfgInfo::compute(f);
    let mut n = 0;
    let mut w = 0u64;
    for b in f.block_ids() {
        let weight = info.weight(b);
        for inst in &f.block(b).insts {
            let k = match inst.opc {
                Opc::ParCopy => inst
                    .defs
                    .iter()
                    .zip(&inst.uses)
                    .filter(|(d, u)| d.reg != u.reg)
                    .count() as u64,
                _ if inst.flags.contains(InstFlags::COPY) => 1,
                _ => 0,
            };
            n += k;
            w = w.saturating_add(k.saturating_mul(weight));
        }
    }
    (n, w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::Operand;
    use crate::regalloc::RegallocOptions;
    use simulator::isa::Target;

    fn r(n: u8) -> PReg {
        PReg::new(RegClass::R, n)
    }

    fn pc(pairs: &[(u8, u8)]) -> Inst {
        Inst::par_copy(
            pairs
                .iter()
                .map(|&(d, s)| (Operand::new(r(d)), Operand::new(r(s))))
                .collect(),
        )
    }

    #[test]
    fn a_chain_closes_into_a_cycle() {
        // (r9, r10) := (r8, r9): the chain r8 -> r9 -> r10; r10 maps back to r8.
        let budget = Budget::new(Target::St231, &RegallocOptions::default());
        let mut live = Regs::default();
        live.add(r(9));
        live.add(r(10));
        let p = Perm::from_parcopy(Target::St231, &pc(&[(9, 8), (10, 9)]), &live, &budget).unwrap();
        assert_eq!(p.apply(r(8)), r(9));
        assert_eq!(p.apply(r(9)), r(10));
        assert_eq!(p.apply(r(10)), r(8));
        assert_eq!(p.apply(r(11)), r(11));
        assert_eq!(p.cost(&live), 2);
        assert_eq!(p.project(&live), vec![(r(9), r(8)), (r(10), r(9))]);
        assert!(p.then(&p.inverse()).is_identity());
    }

    #[test]
    fn a_duplicated_value_is_no_permutation() {
        let budget = Budget::new(Target::St231, &RegallocOptions::default());
        let mut live = Regs::default();
        live.add(r(8));
        live.add(r(9));
        // r8 is read and still live after: r9 := r8 duplicates it.
        assert!(Perm::from_parcopy(Target::St231, &pc(&[(9, 8)]), &live, &budget).is_none());
        // r8 read twice.
        assert!(Perm::from_parcopy(
            Target::St231,
            &pc(&[(9, 8), (10, 8)]),
            &Regs::default(),
            &budget
        )
        .is_none());
    }
}
