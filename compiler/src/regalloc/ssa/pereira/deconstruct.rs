//! SSA deconstruction (Pereira §4.6, Figure 7) and spill code insertion (§4.7).
//!
//! Once every value has a location `l(v)` — a register, or the stack slot of its φ-class
//! (`phi_classes`) — each phi becomes, on each incoming edge `B_j -> B`, a transfer of the
//! parallel copy `(l(a_1), …, l(a_n)) := (l(a_1j), …, l(a_nj))`, placed at the end of `B_j`
//! (which has that single successor: `pereira-lift` split the edges). The lifted copies
//! and the copies around pinned operands are parallel copies of the same kind, lowered in
//! place. [`sequentialise`] does it the paper's way:
//!
//! 1. **Safe copies** while any is left: `l(a_i) := l(a_ij)` is safe when no remaining copy
//!    reads `l(a_i)`; the table of §4.6: register ← memory is a load, memory ← register a
//!    store, equal locations nothing (register coalescing, or the shared slot of a class),
//!    register ← register a move. A memory ← memory transfer between two different slots
//!    (possible only in a lifted copy once PhiMemCoalesce has merged classes) goes through
//!    a register that is free there, or one borrowed: saved in a scratch slot and restored
//!    after the copy (around the transfer alone when every register of the class is a
//!    location of the copy).
//! 2. What is left are cycles. Each cycle of registers of length `n` becomes `n - 1`
//!    **swaps**: three `xor`s (ST120 pointer registers: add/sub), flagged `SWAP` so that the
//!    simulator counts one swap per sequence (`regalloc::ssa::destruct::swap`). Under
//!    `pereira-noswap`, for a class without a swap sequence, or for a cycle through a slot
//!    (two φ-classes merged by PhiMemCoalesce can exchange a slot and a register), one
//!    location of the cycle is first saved in a free register (one extra move), else in a
//!    scratch slot, else in a borrowed register.
//!
//! **Spill code**: a spilled value is stored right after its definition (from the register
//! it was written to) and loaded before each other instruction that reads it, into the
//! register the colouring chose there (`colour::Allocation::temps`) or, at uses walked
//! before it was spilled, into its own former register.
//!
//! Postcondition: `Form::Allocated` (no phi, no vreg); the psis are lowered to guarded
//! copies as road 2 does. Every inserted instruction is flagged `INSERTED` (the value-flow
//! checker's contract). Complexity: O(instructions + operands) for the rewrite, plus
//! O(live values × registers) per parallel copy for its free registers; a parallel copy of
//! `n` transfers is sequentialised with a ready queue in O(n) plus O(n) per broken cycle,
//! and cycles need distinct registers, so there are at most as many as the class has
//! registers (≤ 64): linear in `n`.

use super::super::liveness::Liveness;
use super::super::Budget;
use super::colour::{is_copy_like, Allocation};
use super::phi_classes::PhiClasses;
use crate::mir::cfg::CfgInfo;
use crate::mir::split_edges::goto;
use crate::mir::{
    target, BlockId, FrameIdx, Function, Inst, InstFlags, Operand, PReg, Reg, RegClass, VReg,
};
use crate::regalloc::spill;
use std::collections::HashMap;

/// A location: a register or a stack slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Loc {
    Reg(PReg),
    Slot(FrameIdx),
}

/// One transfer of a parallel copy; `via` is the register a slot-to-slot transfer uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transfer {
    pub dst: Loc,
    pub src: Loc,
    pub via: Option<PReg>,
    pub class: RegClass,
}

/// Counts of the deconstruction and spill code.
#[derive(Clone, Copy, Debug, Default)]
pub struct DeconStats {
    pub moves: u64,
    pub loads: u64,
    pub stores: u64,
    pub swaps: u64,
    pub temp_cycles: u64,
    pub slot_cycles: u64,
    pub borrowed: u64,
    pub reloads: u64,
    pub reloads_recycled: u64,
    pub spill_stores: u64,
    pub slots: u64,
    pub spilled_values: u64,
}

/// How cycles are broken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Breaker {
    /// xor swaps (a free register only for classes without a swap sequence).
    Swap,
    /// A free register, else a scratch stack slot.
    NoSwap,
}

struct Emitter<'a> {
    f: &'a mut Function,
    stats: DeconStats,
    scratch: HashMap<(RegClass, String), FrameIdx>,
}

impl Emitter<'_> {
    fn load(&mut self, r: PReg, s: FrameIdx) -> Result<Inst, String> {
        let mut i = spill::spill_load(self.f.target, r.class, VReg(0), s)?;
        i.defs[0] = Operand::new(r);
        Ok(i.with_flags(InstFlags::INSERTED))
    }

    fn store(&mut self, r: PReg, s: FrameIdx) -> Result<Inst, String> {
        let mut i = spill::spill_store(self.f.target, r.class, VReg(0), s)?;
        if let Some(u) = i.uses.last_mut() {
            *u = Operand::new(r);
        }
        Ok(i.with_flags(InstFlags::INSERTED))
    }

    fn scratch_slot(&mut self, c: RegClass, name: &str) -> FrameIdx {
        let key = (c, name.to_string());
        if let Some(&s) = self.scratch.get(&key) {
            return s;
        }
        let size = target::spill_size(self.f.target, c);
        let s = self
            .f
            .new_frame_object(size, size, crate::mir::FrameKind::Spill, name);
        self.scratch.insert(key, s);
        s
    }

    fn transfer(&mut self, t: Transfer, out: &mut Vec<Inst>) -> Result<(), String> {
        match (t.dst, t.src) {
            (a, b) if a == b => {}
            (Loc::Reg(d), Loc::Reg(s)) => {
                out.push(Inst::copy(d, s).with_flags(InstFlags::INSERTED));
                self.stats.moves += 1;
            }
            (Loc::Reg(d), Loc::Slot(s)) => {
                out.push(self.load(d, s)?);
                self.stats.loads += 1;
            }
            (Loc::Slot(d), Loc::Reg(s)) => {
                out.push(self.store(s, d)?);
                self.stats.stores += 1;
            }
            (Loc::Slot(d), Loc::Slot(s)) => {
                let r = t
                    .via
                    .ok_or("memory-to-memory transfer without a register")?;
                out.push(self.load(r, s)?);
                out.push(self.store(r, d)?);
                self.stats.loads += 1;
                self.stats.stores += 1;
            }
        }
        Ok(())
    }
}

/// Lowers one parallel copy (§4.6): safe copies first, then the cycles. `free` gives a
/// free register of a class at this point (not a location of the copy).
fn sequentialise(
    em: &mut Emitter<'_>,
    transfers: Vec<Transfer>,
    breaker: Breaker,
    free: Vec<PReg>,
    out: &mut Vec<Inst>,
) -> Result<(), String> {
    let mut scratch = Scratch {
        free,
        locations: transfers
            .iter()
            .flat_map(|t| [t.dst, t.src])
            .filter_map(|l| match l {
                Loc::Reg(r) => Some(r),
                Loc::Slot(_) => None,
            })
            .collect(),
        held: Vec::new(),
        via: Vec::new(),
        restore: Vec::new(),
    };
    let mut pending: Vec<Option<Transfer>> = transfers
        .into_iter()
        .filter(|t| t.dst != t.src)
        .map(Some)
        .collect();
    // Readers of each location among the pending transfers (a `via` register counts: it
    // must not be overwritten before it is read either).
    let mut readers: HashMap<Loc, usize> = HashMap::new();
    let mut by_dst: HashMap<Loc, usize> = HashMap::new();
    for (i, t) in pending.iter().flatten().enumerate() {
        *readers.entry(t.src).or_default() += 1;
        if by_dst.insert(t.dst, i).is_some() {
            return Err(format!("parallel copy writes {:?} twice", t.dst));
        }
    }
    let ready = |t: &Transfer, readers: &HashMap<Loc, usize>| {
        readers.get(&t.dst).copied().unwrap_or(0) == 0
    };
    let mut queue: Vec<usize> = (0..pending.len())
        .filter(|&i| pending[i].is_some_and(|t| ready(&t, &readers)))
        .collect();
    let mut left = pending.len();
    loop {
        while let Some(i) = queue.pop() {
            let Some(t) = pending[i] else { continue };
            if !ready(&t, &readers) {
                continue;
            }
            pending[i] = None;
            left -= 1;
            let mut t = t;
            let mut around: Option<(PReg, FrameIdx)> = None;
            if matches!((t.dst, t.src), (Loc::Slot(x), Loc::Slot(y)) if x != y) && t.via.is_none() {
                t.via = match scratch.get(em, t.class, true, out) {
                    Ok(r) => Some(r),
                    Err(_) => {
                        // Every register of the class is a location of the copy: one is
                        // saved and restored around this transfer alone.
                        let r = target::allocatable(em.f.target, t.class)
                            .first()
                            .map(|&n| PReg::new(t.class, n))
                            .ok_or("parallel copy: a class without registers")?;
                        let s = em.scratch_slot(t.class, "pereira borrowed around");
                        out.push(em.store(r, s)?);
                        em.stats.borrowed += 1;
                        around = Some((r, s));
                        Some(r)
                    }
                };
            }
            em.transfer(t, out)?;
            if let Some((r, s)) = around {
                out.push(em.load(r, s)?);
            }
            let n = readers.entry(t.src).or_default();
            *n = n.saturating_sub(1);
            if *n == 0 {
                if let Some(&j) = by_dst.get(&t.src) {
                    queue.push(j);
                }
            }
        }
        if left == 0 {
            out.append(&mut scratch.restore);
            return Ok(());
        }
        // Only cycles are left: break one (a transfer whose destination is still read).
        let blocked = |t: &Transfer| readers.get(&t.dst).copied().unwrap_or(0) > 0;
        let Some(i) = (0..pending.len())
            .filter(|&i| pending[i].is_some_and(|t| blocked(&t)))
            .min_by_key(|&i| {
                !matches!(
                    pending[i],
                    Some(Transfer {
                        dst: Loc::Reg(_),
                        src: Loc::Reg(_),
                        ..
                    })
                )
            })
        else {
            return Err("parallel copy: blocked transfers without a cycle".into());
        };
        let t = pending[i].ok_or("parallel copy: lost transfer")?;
        let class = t.class;
        let a = t.dst;
        let swap_pair = match (t.dst, t.src) {
            (Loc::Reg(x), Loc::Reg(y)) if breaker == Breaker::Swap => {
                super::super::destruct::swap(em.f.target, x, y)
                    .ok()
                    .map(|s| (s, y))
            }
            _ => None,
        };
        let readers_in_memory = pending
            .iter()
            .flatten()
            .any(|r| r.src == a && matches!(r.dst, Loc::Slot(_)));
        // The location that now holds `a`'s old value, read by the rest of the cycle.
        let saved = if let Some((seq, y)) = swap_pair {
            out.extend(seq);
            em.stats.swaps += 1;
            // `a` has its value; `y` now holds `a`'s old value.
            pending[i] = None;
            left -= 1;
            let n = readers.entry(Loc::Reg(y)).or_default();
            *n = n.saturating_sub(1);
            Loc::Reg(y)
        } else if let Some(r) = scratch.get_free(class) {
            em.transfer(
                Transfer {
                    dst: Loc::Reg(r),
                    src: a,
                    via: None,
                    class,
                },
                out,
            )?;
            em.stats.temp_cycles += 1;
            Loc::Reg(r)
        } else if let (Loc::Reg(ar), false) = (a, readers_in_memory) {
            let s = em.scratch_slot(class, "pereira cycle scratch");
            out.push(em.store(ar, s)?);
            em.stats.stores += 1;
            em.stats.slot_cycles += 1;
            Loc::Slot(s)
        } else {
            // A cycle through memory and no free register: borrow one, saved around.
            let r = scratch.get(em, class, false, out)?;
            em.transfer(
                Transfer {
                    dst: Loc::Reg(r),
                    src: a,
                    via: None,
                    class,
                },
                out,
            )?;
            em.stats.slot_cycles += 1;
            Loc::Reg(r)
        };
        // Readers of `a` now read `saved`.
        let mut moved = 0;
        for t in pending.iter_mut().flatten() {
            if t.src == a {
                t.src = saved;
                moved += 1;
            }
        }
        readers.insert(a, 0);
        *readers.entry(saved).or_default() += moved;
        // Transfers that became trivial (swapped into place).
        for slot in pending.iter_mut() {
            if let Some(t) = *slot {
                if t.dst == t.src {
                    *slot = None;
                    left -= 1;
                    let n = readers.entry(t.src).or_default();
                    *n = n.saturating_sub(1);
                }
            }
        }
        queue.extend((0..pending.len()).filter(|&j| pending[j].is_some()));
    }
}

/// Rewrites the coloured, lifted SSA function into `Form::Allocated`.
pub fn rewrite(
    f: &mut Function,
    a: &Allocation,
    classes: &mut PhiClasses,
    live: &Liveness,
    info: &CfgInfo,
    budget: &Budget,
    breaker: Breaker,
) -> Result<DeconStats, String> {
    let nv = a.colour.len();
    // One slot per φ-class with a spilled member.
    let mut slot_of_class: HashMap<VReg, FrameIdx> = HashMap::new();
    let mut slot: Vec<Option<FrameIdx>> = vec![None; nv];
    let mut stats = DeconStats::default();
    for v in 0..nv {
        if !a.spilled[v] {
            continue;
        }
        let v = VReg(v as u32);
        let rep = classes.find(v);
        let s = match slot_of_class.get(&rep) {
            Some(&s) => s,
            None => {
                let s = spill::new_slot(f, rep);
                slot_of_class.insert(rep, s);
                stats.slots += 1;
                s
            }
        };
        slot[v.index()] = Some(s);
        stats.spilled_values += 1;
    }
    let reg = |v: VReg| -> Result<PReg, String> {
        a.colour
            .get(v.index())
            .copied()
            .flatten()
            .ok_or_else(|| format!("{v} has no register"))
    };
    let loc_use = |r: Reg| -> Result<Option<Loc>, String> {
        Ok(match r {
            Reg::P(p) => Some(Loc::Reg(p)),
            Reg::V(v) => match (a.spilled[v.index()], slot[v.index()], a.colour[v.index()]) {
                (true, Some(s), _) => Some(Loc::Slot(s)),
                (false, _, Some(p)) => Some(Loc::Reg(p)),
                // An operand never defined (undefined value): nothing to move.
                _ => None,
            },
        })
    };
    // The phis of every block, read before any rewriting.
    let phis: Vec<Vec<Inst>> = f
        .blocks
        .iter()
        .map(|b| b.insts[..b.phi_end()].to_vec())
        .collect();
    let mut em = Emitter {
        f,
        stats,
        scratch: HashMap::new(),
    };
    for b in em.f.block_ids().collect::<Vec<_>>() {
        if !info.is_reachable(b) {
            let g = goto(em.f.target, b);
            em.f.block_mut(b).insts = vec![g];
            continue;
        }
        let live_after = live_after_each(em.f, live, b);
        let succs = em.f.block(b).successors();
        let old = std::mem::take(&mut em.f.block_mut(b).insts);
        let term = old
            .iter()
            .position(|i| i.is_terminator())
            .unwrap_or(old.len());
        let mut out = Vec::with_capacity(old.len() + 8);
        for (k, mut inst) in old.into_iter().enumerate() {
            if k == term {
                // Phi transfers into the successor (a single one, edges being split).
                for &s in &succs {
                    let sp = &phis[s.index()];
                    if sp.is_empty() {
                        continue;
                    }
                    let mut ts = Vec::new();
                    for phi in sp {
                        let Some(i) = phi.phi_blocks().iter().position(|&p| p == b) else {
                            return Err(format!("phi in {s} has no operand from {b}"));
                        };
                        let Some(d) = phi.defs[0].vreg() else {
                            continue;
                        };
                        let dst = if a.spilled[d.index()] {
                            Loc::Slot(slot[d.index()].ok_or("spilled phi without slot")?)
                        } else {
                            Loc::Reg(reg(d)?)
                        };
                        if let Some(src) = loc_use(phi.uses[i].reg)? {
                            ts.push(Transfer {
                                dst,
                                src,
                                via: None,
                                class: em.f.class_of(d),
                            });
                        }
                    }
                    let busy = occupied(&live.live_out[b.index()], a, &ts);
                    let free = free_regs(em.f, budget, &busy);
                    sequentialise(&mut em, ts, breaker, free, &mut out)?;
                }
            }
            if inst.is_phi() {
                continue;
            }
            if is_copy_like(&inst) {
                let mut ts = Vec::new();
                for (d, u) in inst.defs.iter().zip(&inst.uses) {
                    let Some(dv) = d.vreg() else {
                        return Err("copy into a physical register".into());
                    };
                    let dst = if a.spilled[dv.index()] {
                        Loc::Slot(slot[dv.index()].ok_or("spilled value without slot")?)
                    } else {
                        Loc::Reg(reg(dv)?)
                    };
                    if let Some(src) = loc_use(u.reg)? {
                        ts.push(Transfer {
                            dst,
                            src,
                            via: None,
                            class: em.f.class_of(dv),
                        });
                    }
                }
                let busy = occupied(&live_after[k], a, &ts);
                let free = free_regs(em.f, budget, &busy);
                sequentialise(&mut em, ts, breaker, free, &mut out)?;
                continue;
            }
            // An ordinary instruction: reloads before, stores after.
            let mut loaded: Vec<VReg> = Vec::new();
            for o in inst.uses.iter_mut() {
                let Reg::V(u) = o.reg else { continue };
                let r = if a.spilled[u.index()] {
                    let r = a
                        .temps
                        .get(&(b.0, k as u32, u.0))
                        .copied()
                        .map_or_else(|| reg(u), Ok)?;
                    if !loaded.contains(&u) {
                        loaded.push(u);
                        let s = slot[u.index()].ok_or("spilled value without slot")?;
                        out.push(em.load(r, s)?);
                        em.stats.reloads += 1;
                    }
                    r
                } else {
                    reg(u)?
                };
                o.reg = Reg::P(r);
            }
            let mut stores = Vec::new();
            for o in inst.defs.iter_mut() {
                let Reg::V(d) = o.reg else { continue };
                let r = reg(d)?;
                o.reg = Reg::P(r);
                if a.spilled[d.index()] {
                    let s = slot[d.index()].ok_or("spilled value without slot")?;
                    stores.push(em.store(r, s)?);
                    em.stats.spill_stores += 1;
                }
            }
            out.push(inst);
            out.extend(stores);
        }
        let t = em.f.target;
        em.stats.reloads_recycled += recycle_reloads(t, &mut out);
        em.f.block_mut(b).insts = out;
    }
    Ok(em.stats)
}

/// §4.7's recycling of loads, within a block: a reload (or phi load) of slot `s` into `r`
/// is dropped when `r` already holds `s`'s value — it was loaded from `s` or stored into
/// it, and neither `r` nor `s` was written since. Returns the number of loads dropped.
fn recycle_reloads(t: simulator::isa::Target, insts: &mut Vec<Inst>) -> u64 {
    let slot_of = |i: &Inst| match i.imm {
        crate::mir::Imm::Frame { idx, offset: 0 } => Some(idx),
        _ => None,
    };
    // Register -> the slot whose value it holds.
    let mut holds: HashMap<PReg, FrameIdx> = HashMap::new();
    let mut dropped = 0;
    insts.retain(|i| {
        let spill = i.flags.contains(InstFlags::INSERTED);
        if spill && i.flags.contains(InstFlags::SPILL_LOAD) {
            if let (Some(s), Some(r)) = (slot_of(i), i.defs.first().and_then(|d| d.reg.preg())) {
                if holds.get(&r) == Some(&s) {
                    dropped += 1;
                    return false;
                }
                holds.insert(r, s);
                return true;
            }
        }
        if spill && i.flags.contains(InstFlags::SPILL_STORE) {
            if let (Some(s), Some(r)) = (slot_of(i), i.uses.last().and_then(|u| u.reg.preg())) {
                holds.retain(|_, x| *x != s);
                holds.insert(r, s);
                return true;
            }
        }
        for d in &i.defs {
            if let Reg::P(p) = d.reg {
                holds.remove(&p);
            }
        }
        if super::super::is_call(i) {
            for r in target::call_clobbers(t) {
                holds.remove(r);
            }
        }
        if i.flags.contains(InstFlags::SPILL_STORE) {
            // A store we do not understand: forget every slot.
            holds.clear();
        }
        true
    });
    dropped
}

/// Registers held at a point: those of the located values live there and of the copy.
fn occupied(live: &[VReg], a: &Allocation, ts: &[Transfer]) -> Vec<PReg> {
    let mut busy: Vec<PReg> = live
        .iter()
        .filter(|v| !a.spilled[v.index()])
        .filter_map(|v| a.colour[v.index()])
        .collect();
    for t in ts {
        for l in [t.dst, t.src] {
            if let Loc::Reg(r) = l {
                busy.push(r);
            }
        }
        busy.extend(t.via);
    }
    busy
}

/// Registers a parallel copy may use besides its locations: free ones (no live value, no
/// location of the copy) and, when none is left, borrowed ones (saved at once, restored
/// after the whole copy). A register handed out stays held until the copy is done, so a
/// saved value is never overwritten by another transfer's temporary.
struct Scratch {
    free: Vec<PReg>,
    locations: Vec<PReg>,
    held: Vec<PReg>,
    /// Registers held for slot-to-slot transfers (reused by each).
    via: Vec<PReg>,
    restore: Vec<Inst>,
}

impl Scratch {
    fn get_free(&mut self, c: RegClass) -> Option<PReg> {
        let r = self
            .free
            .iter()
            .copied()
            .find(|r| r.class == c && !self.held.contains(r))?;
        self.held.push(r);
        Some(r)
    }

    /// A register of class `c`; with `reuse`, one already held for slot transfers.
    fn get(
        &mut self,
        em: &mut Emitter<'_>,
        c: RegClass,
        reuse: bool,
        out: &mut Vec<Inst>,
    ) -> Result<PReg, String> {
        if reuse {
            if let Some(&r) = self.via.iter().find(|r| r.class == c) {
                return Ok(r);
            }
        }
        let r = self.get_or_borrow(em, c, out)?;
        if reuse {
            self.via.push(r);
        }
        Ok(r)
    }

    fn get_or_borrow(
        &mut self,
        em: &mut Emitter<'_>,
        c: RegClass,
        out: &mut Vec<Inst>,
    ) -> Result<PReg, String> {
        if let Some(r) = self.get_free(c) {
            return Ok(r);
        }
        let busy: Vec<PReg> = self.locations.iter().chain(&self.held).copied().collect();
        let r = borrowable(em.f.target, c, &busy)
            .ok_or_else(|| format!("parallel copy: no register of class {c:?} for a memory transfer (locations {:?}, held {:?})", self.locations, self.held))?;
        let s = em.scratch_slot(c, &format!("pereira borrowed {r:?}"));
        out.push(em.store(r, s)?);
        self.restore.push(em.load(r, s)?);
        self.held.push(r);
        em.stats.borrowed += 1;
        Ok(r)
    }
}

/// A register of class `c` outside `busy` that may be saved and restored around a use.
fn borrowable(t: simulator::isa::Target, c: RegClass, busy: &[PReg]) -> Option<PReg> {
    target::allocatable(t, c)
        .into_iter()
        .map(|n| PReg::new(c, n))
        .find(|p| !busy.contains(p))
}

/// The registers of the budget outside `busy`, every class.
fn free_regs(f: &Function, budget: &Budget, busy: &[PReg]) -> Vec<PReg> {
    target::classes(f.target)
        .iter()
        .flat_map(|&c| budget.regs(c).iter().map(move |&n| PReg::new(c, n)))
        .filter(|p| !busy.contains(p))
        .collect()
}

/// The values live after each instruction of `b` (sorted).
fn live_after_each(f: &Function, live: &Liveness, b: BlockId) -> Vec<Vec<VReg>> {
    let block = f.block(b);
    let mut cur: Vec<VReg> = live.live_out[b.index()].clone();
    let mut after = vec![Vec::new(); block.insts.len()];
    for (k, inst) in block.insts.iter().enumerate().rev() {
        if is_copy_like(inst) {
            after[k] = cur.clone();
        }
        for d in inst.def_vregs() {
            if let Ok(i) = cur.binary_search(&d) {
                cur.remove(i);
            }
        }
        if inst.is_phi() {
            continue;
        }
        for u in inst.use_vregs() {
            if let Err(i) = cur.binary_search(&u) {
                cur.insert(i, u);
            }
        }
    }
    after
}

#[cfg(test)]
mod tests {
    use super::*;
    use simulator::isa::Target;

    fn r(n: u8) -> Loc {
        Loc::Reg(PReg::new(RegClass::R, n))
    }

    fn run(
        f: &mut Function,
        ts: &[(Loc, Loc)],
        breaker: Breaker,
        free: Vec<PReg>,
    ) -> (Vec<Inst>, DeconStats) {
        let mut em = Emitter {
            f,
            stats: DeconStats::default(),
            scratch: HashMap::new(),
        };
        let ts = ts
            .iter()
            .map(|&(dst, src)| Transfer {
                dst,
                src,
                via: None,
                class: RegClass::R,
            })
            .collect();
        let mut out = Vec::new();
        sequentialise(&mut em, ts, breaker, free, &mut out).unwrap();
        (out, em.stats)
    }

    /// Figure 7, derived by hand. Five phis join blocks X and Y; their results live in
    /// (m1, R2, R3, R4, R5) — `m1` the slot of the first phi's class.
    /// From X the operands are (R1, R3, R4, R2, R5): `m1 := R1` is safe (a store; nothing
    /// reads m1), `R5 := R5` is nothing, and R2 := R3, R3 := R4, R4 := R2 is a 3-cycle of the
    /// register permutation: two swaps (swap R2,R3 puts R3's value in R2; then R3 must get
    /// R4's value and R4 the old R2, now in R3: swap R3,R4).
    /// From Y the operands are (m1, m2, R3, R2, R5) with `m2` a slot: `m1 := m1` and
    /// `R3 := R3`, `R5 := R5` are nothing; `R4 := R2` is safe (nobody reads R4); `R2 := m2`
    /// is a load, safe only once R2 has been read: the move comes first, then the load.
    #[test]
    fn figure7_safe_copies_then_swaps() {
        let mut f = Function::new("f", Target::St231);
        let m1 = Loc::Slot(f.new_frame_object(4, 4, crate::mir::FrameKind::Spill, "m1"));
        let m2 = Loc::Slot(f.new_frame_object(4, 4, crate::mir::FrameKind::Spill, "m2"));
        let results = [m1, r(2), r(3), r(4), r(5)];
        let from_x = [r(1), r(3), r(4), r(2), r(5)];
        let pairs: Vec<(Loc, Loc)> = results.iter().copied().zip(from_x).collect();
        let (out, st) = run(&mut f, &pairs, Breaker::Swap, vec![]);
        assert_eq!(st.swaps, 2);
        assert_eq!(st.stores, 1);
        assert_eq!(st.moves + st.loads, 0);
        assert_eq!(out.len(), 1 + 2 * 3);
        assert!(out[0].flags.contains(InstFlags::SPILL_STORE));
        assert!(out[1..].iter().all(|i| i.flags.contains(InstFlags::SWAP)));
        // The first swap exchanges R2 and R3, the second R3 and R4.
        let regs = |i: &Inst| (i.defs[0].reg, i.uses[0].reg, i.uses[1].reg);
        let p = |n| Reg::P(PReg::new(RegClass::R, n));
        assert_eq!(regs(&out[1]), (p(2), p(2), p(3)));
        assert_eq!(regs(&out[4]), (p(3), p(3), p(4)));

        let from_y = [m1, m2, r(3), r(2), r(5)];
        let pairs: Vec<(Loc, Loc)> = results.iter().copied().zip(from_y).collect();
        let (out, st) = run(&mut f, &pairs, Breaker::Swap, vec![]);
        assert_eq!((st.moves, st.loads, st.stores, st.swaps), (1, 1, 0, 0));
        assert_eq!(out[0].opc, crate::mir::Opc::Copy);
        assert_eq!(out[0].defs[0].reg, Reg::P(PReg::new(RegClass::R, 4)));
        assert!(out[1].flags.contains(InstFlags::SPILL_LOAD));
        assert_eq!(out[1].defs[0].reg, Reg::P(PReg::new(RegClass::R, 2)));
    }

    /// `pereira-noswap` on X's 3-cycle: with a free register R9, one extra move (4 moves);
    /// with none, through a scratch slot (a store, two moves, a load).
    #[test]
    fn figure7_without_swaps() {
        let mut f = Function::new("f", Target::St231);
        let pairs = [(r(2), r(3)), (r(3), r(4)), (r(4), r(2))];
        let (_, st) = run(
            &mut f,
            &pairs,
            Breaker::NoSwap,
            vec![PReg::new(RegClass::R, 9)],
        );
        assert_eq!((st.moves, st.swaps, st.temp_cycles), (4, 0, 1));
        let (out, st) = run(&mut f, &pairs, Breaker::NoSwap, vec![]);
        assert_eq!(
            (st.moves, st.loads, st.stores, st.slot_cycles),
            (2, 1, 1, 1)
        );
        assert_eq!(out.len(), 4);
    }

    /// Regression (fuzz seed 25, ST120 pointer registers): a lifted parallel copy in which
    /// every allocatable register of the class is a location, plus a transfer between two
    /// slots. No register is free or borrowable, so one is saved and restored around the
    /// slot transfer alone: store, load, store, load.
    #[test]
    fn fuzz_seed_25_slot_transfer_with_every_register_a_location() {
        let mut f = Function::new("f", Target::St120);
        let m1 = Loc::Slot(f.new_frame_object(4, 4, crate::mir::FrameKind::Spill, "m1"));
        let m2 = Loc::Slot(f.new_frame_object(4, 4, crate::mir::FrameKind::Spill, "m2"));
        let regs: Vec<Loc> = target::allocatable(Target::St120, RegClass::P)
            .into_iter()
            .map(|n| Loc::Reg(PReg::new(RegClass::P, n)))
            .collect();
        let mut ts: Vec<Transfer> = regs
            .iter()
            .map(|&l| Transfer {
                dst: l,
                src: l,
                via: None,
                class: RegClass::P,
            })
            .collect();
        ts.push(Transfer {
            dst: m1,
            src: m2,
            via: None,
            class: RegClass::P,
        });
        let mut em = Emitter {
            f: &mut f,
            stats: DeconStats::default(),
            scratch: HashMap::new(),
        };
        let mut out = Vec::new();
        sequentialise(&mut em, ts, Breaker::Swap, vec![], &mut out).unwrap();
        assert_eq!(em.stats.borrowed, 1);
        let flags: Vec<bool> = out
            .iter()
            .map(|i| i.flags.contains(InstFlags::SPILL_LOAD))
            .collect();
        assert_eq!(flags, vec![false, true, false, true]);
    }
}
