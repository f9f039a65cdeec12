//! The colour assignment phase (Pereira §4.5): registers are given to values in a single
//! pre-order walk of the dominance tree, with preferences, and **spilling is decided
//! during the walk** when no register is left.
//!
//! * **Order**: live ranges of an SSA program are contiguous along dominance-tree paths,
//!   so a block starts with the registers of its live-in values (coloured at their
//!   definitions, which dominate it), frees a register at a value's last use and gives one
//!   to each definition (phi results first, at the block's entry).
//! * **Preferences** ([`Colouring::preference`], Figure 6's `ComputePreference`): a phi
//!   result prefers the registers of its operands already located; an operand of a phi
//!   (after lifting: the value copied at the end of a predecessor) prefers the register of
//!   the phi's result when located. Local coalescing: the destination of a copy prefers
//!   the register of its source (which dies there, or the two interfere anyway), and a
//!   value later copied into a pinned register prefers that register. Counts give the
//!   order; the first free and safe register of the list is taken, otherwise the first
//!   free and safe register of the budget.
//! * **Weights** (Figure 6's `ComputeWeight`): `w(v) = Σ 10^L(I) / s` over the definition
//!   and uses of `v` (a phi operand counted at its predecessor), `s` the size of its live
//!   range in instructions (`intervals`). Pinned values, operands tied to a definition and
//!   values of classes without spill code are never spilled.
//! * **Spilling**: before an instruction, the values it reads from memory each need a
//!   register: while the free registers do not suffice, the lightest value in a register
//!   that the instruction does not read is spilled. For a definition with no free safe
//!   register, the lightest value in a register safe for it that the instruction does not
//!   read is spilled if it is lighter than the definition; otherwise the definition itself
//!   is spilled: it is written to a free register (its *temporary*) and stored at once. A
//!   phi result that finds no register is simply located in memory (the deconstruction
//!   stores its operands there).
//! * A spilled value is in memory for its whole life (`l(v) = m`, §4.5): stored after its
//!   definition and reloaded before each use. A value spilled after part of its range was
//!   walked keeps its register there: the spill code of those uses reloads into it (it was
//!   the value's, so it is free), and every use walked afterwards gets a register found at
//!   that point ([`Allocation::temps`]).
//! * **Pre-coloured values** (§4.5): a value pinned to `r` gets `r`; any other value gets
//!   `r` only if its live range overlaps no value pre-coloured with `r` and no call that
//!   clobbers `r` (`intervals::Precoloured`).
//!
//! Complexity: O(instructions × registers) for the walk (free-register scans and spill
//! choices look at the ≤ 64 registers of a class), plus O(intervals × log) for the
//! pre-colouring tests.

use super::super::liveness::Liveness;
use super::super::Budget;
use super::intervals::{reg_index, reg_of_index, Intervals, Precoloured};
use crate::mir::cfg::CfgInfo;
use crate::mir::{BlockId, Function, Inst, InstFlags, Opc, PReg, Pin, RegClass, VReg};
use crate::regalloc::spill::can_spill;
use std::collections::HashMap;

/// Where every value is.
#[derive(Clone, Debug, Default)]
pub struct Allocation {
    /// The register of each value (for a spilled one: the register it had while walked
    /// before it was spilled, at least its definition's temporary).
    pub colour: Vec<Option<PReg>>,
    /// Values located in memory.
    pub spilled: Vec<bool>,
    /// Registers of reloads at uses walked while the value was already in memory:
    /// (block, instruction index, vreg) → register.
    pub temps: HashMap<(u32, u32, u32), PReg>,
    pub evictions: u64,
    pub spilled_at_definition: u64,
}

/// Whether `inst` is a parallel copy in the allocator's sense: the phi-lifting copies and
/// the copies around pinned operands (all `INSERTED`). Their operands in memory are
/// loaded and stored by the deconstruction directly, without temporaries.
pub fn is_copy_like(inst: &Inst) -> bool {
    matches!(inst.opc, Opc::ParCopy | Opc::Copy) && inst.flags.contains(InstFlags::INSERTED)
}

struct Colouring<'a> {
    f: &'a Function,
    budget: &'a Budget,
    iv: &'a Intervals,
    pre: &'a Precoloured,
    live: &'a Liveness,
    weight: Vec<f64>,
    /// A register the value is later copied into (pinned destination of a copy).
    hint: Vec<Option<PReg>>,
    /// For a value read by a phi: (block of the phi, phi index).
    phi_use: Vec<Option<(BlockId, usize)>>,
    a: Allocation,
    occ: Vec<Option<VReg>>,
}

/// Colours `f` (lifted SSA). `order` is the dominance pre-order.
pub fn colour_program(
    f: &Function,
    budget: &Budget,
    info: &CfgInfo,
    live: &Liveness,
    iv: &Intervals,
    pre: &Precoloured,
) -> Result<Allocation, String> {
    let nv = f.vregs.len();
    let mut c = Colouring {
        f,
        budget,
        iv,
        pre,
        live,
        weight: compute_weights(f, info, iv, pre),
        hint: vec![None; nv],
        phi_use: vec![None; nv],
        a: Allocation {
            colour: vec![None; nv],
            spilled: vec![false; nv],
            ..Allocation::default()
        },
        occ: vec![None; 256],
    };
    for b in f.block_ids() {
        for (k, inst) in f.block(b).insts.iter().enumerate() {
            if inst.is_phi() {
                for u in inst.use_vregs() {
                    c.phi_use[u.index()] = Some((b, k));
                }
            } else if inst.opc == Opc::Copy {
                if let (Some(u), Some(Pin::Phys(p))) = (inst.uses[0].vreg(), inst.defs[0].pin) {
                    c.hint[u.index()] = Some(p);
                }
            }
        }
    }
    let order: Vec<BlockId> = info.dom.preorder().iter().map(|b| BlockId(b.0)).collect();
    for b in order {
        c.colour_block(b)?;
    }
    Ok(c.a)
}

/// Figure 6's `ComputeWeight` for every value; `INFINITY` for values that must stay in
/// registers.
fn compute_weights(f: &Function, info: &CfgInfo, iv: &Intervals, pre: &Precoloured) -> Vec<f64> {
    let nv = f.vregs.len();
    let mut w = vec![0f64; nv];
    let ten = |b: BlockId| 10f64.powi(info.loop_depth(b).min(30) as i32);
    let mut pinned = vec![false; nv];
    for b in f.block_ids() {
        let tb = ten(b);
        for inst in &f.block(b).insts {
            for d in inst.def_vregs() {
                w[d.index()] += tb;
            }
            if inst.is_phi() {
                for (u, &p) in inst.use_vregs().zip(inst.phi_blocks()) {
                    w[u.index()] += ten(p);
                }
                continue;
            }
            for o in &inst.uses {
                let Some(u) = o.vreg() else { continue };
                w[u.index()] += tb;
                if matches!(o.pin, Some(Pin::Var(_))) {
                    pinned[u.index()] = true;
                }
            }
        }
    }
    for v in 0..nv {
        let unspillable =
            pinned[v] || pre.pin[v].is_some() || !can_spill(f.target, f.vregs[v].class);
        w[v] = if unspillable {
            f64::INFINITY
        } else {
            w[v] / f64::from(iv.size(VReg(v as u32)).max(1))
        };
    }
    w
}

impl Colouring<'_> {
    fn free(&self, p: PReg) -> bool {
        self.occ[reg_index(p)].is_none()
    }

    fn take(&mut self, p: PReg, v: VReg) {
        self.occ[reg_index(p)] = Some(v);
    }

    fn release(&mut self, p: PReg, v: VReg) {
        if self.occ[reg_index(p)] == Some(v) {
            self.occ[reg_index(p)] = None;
        }
    }

    /// Whether `p` is safe for `v` over its whole live range (§4.5).
    fn safe(&self, v: VReg, p: PReg) -> bool {
        !self.pre.conflicts(p, &self.iv.ranges[v.index()])
    }

    /// Spills `u` (from now on it is in memory); frees its register.
    fn evict(&mut self, u: VReg) {
        if let Some(p) = self.a.colour[u.index()] {
            self.release(p, u);
        }
        self.a.spilled[u.index()] = true;
        self.a.evictions += 1;
    }

    /// The lightest value of class `c` in a register, spillable, not read by `inst`, whose
    /// register satisfies `ok`.
    fn lightest(
        &self,
        c: RegClass,
        reads: &[VReg],
        ok: &dyn Fn(PReg) -> bool,
    ) -> Option<(VReg, f64)> {
        let mut best: Option<(VReg, f64)> = None;
        for (i, o) in self.occ.iter().enumerate() {
            let Some(u) = *o else { continue };
            let p = reg_of_index(i);
            if p.class != c || reads.contains(&u) || !ok(p) || self.a.spilled[u.index()] {
                continue;
            }
            let w = self.weight[u.index()];
            if w.is_finite() && best.is_none_or(|(_, bw)| w < bw) {
                best = Some((u, w));
            }
        }
        best
    }

    fn first_free(&self, c: RegClass, ok: &dyn Fn(PReg) -> bool) -> Option<PReg> {
        self.budget
            .regs(c)
            .iter()
            .map(|&n| PReg::new(c, n))
            .find(|&p| self.free(p) && ok(p))
    }

    /// Figure 6's `ComputePreference` with local coalescing: preferred registers of `v`,
    /// best first.
    fn preference(&self, v: VReg, def: Option<&Inst>, operand: usize) -> Vec<PReg> {
        let mut p: Vec<(PReg, u32)> = Vec::new();
        let mut add = |r: PReg| match p.iter_mut().find(|(x, _)| *x == r) {
            Some(e) => e.1 += 1,
            None => p.push((r, 1)),
        };
        let located = |u: VReg| {
            if self.a.spilled[u.index()] {
                None
            } else {
                self.a.colour[u.index()]
            }
        };
        match def {
            Some(inst) if inst.is_phi() => {
                for u in inst.use_vregs() {
                    if let Some(r) = located(u) {
                        add(r);
                    }
                }
            }
            Some(inst) if matches!(inst.opc, Opc::Copy | Opc::ParCopy) => {
                if let Some((b, k)) = self.phi_use[v.index()] {
                    if let Some(r) = self.f.block(b).insts[k].defs[0].vreg().and_then(located) {
                        add(r);
                    }
                }
                if let Some(r) = inst.uses.get(operand).and_then(|u| match u.reg {
                    crate::mir::Reg::V(u) => located(u),
                    crate::mir::Reg::P(p) => Some(p),
                }) {
                    add(r);
                }
            }
            _ => {}
        }
        if let Some(h) = self.hint[v.index()] {
            add(h);
        }
        // Stable sort: ties keep the order above (phi-related preferences first).
        p.sort_by_key(|e| std::cmp::Reverse(e.1));
        p.into_iter().map(|(r, _)| r).collect()
    }

    /// A register for the new value `v`, honouring preferences; `None` if no free safe
    /// register of the budget is left.
    fn choose(&self, v: VReg, def: Option<&Inst>, operand: usize) -> Option<PReg> {
        let c = self.f.class_of(v);
        let ok = |p: PReg| self.budget.contains(p) && self.safe(v, p);
        for p in self.preference(v, def, operand) {
            if p.class == c && self.free(p) && ok(p) {
                return Some(p);
            }
        }
        self.first_free(c, &ok)
    }

    /// Gives `v` (defined by `def`, operand `operand`) a location; `reads` are the values
    /// the instruction reads (never spilled to make room). With `temporary`, a value that
    /// is spilled still needs a register at its definition.
    fn assign(
        &mut self,
        v: VReg,
        def: Option<&Inst>,
        operand: usize,
        reads: &[VReg],
        temporary: bool,
    ) -> Result<(), String> {
        let c = self.f.class_of(v);
        if let Some(p) = self.pre.pin[v.index()] {
            if let Some(u) = self.occ[reg_index(p)] {
                if u != v {
                    if !self.weight[u.index()].is_finite() {
                        return Err(format!("{v} and {u} are both pinned to {p:?} at once"));
                    }
                    self.evict(u);
                }
            }
            self.a.colour[v.index()] = Some(p);
            self.take(p, v);
            return Ok(());
        }
        if let Some(p) = self.choose(v, def, operand) {
            self.a.colour[v.index()] = Some(p);
            self.take(p, v);
            return Ok(());
        }
        let wv = self.weight[v.index()];
        let safe_for_v = |p: PReg| self.budget.contains(p) && self.safe(v, p);
        if let Some((u, wu)) = self.lightest(c, reads, &safe_for_v) {
            if wu < wv {
                let p = self.a.colour[u.index()].ok_or("evicted value without register")?;
                self.evict(u);
                self.a.colour[v.index()] = Some(p);
                self.take(p, v);
                return Ok(());
            }
        }
        if !wv.is_finite() {
            return Err(format!("no register left for {v} (class {c:?})"));
        }
        self.a.spilled[v.index()] = true;
        self.a.spilled_at_definition += 1;
        if !temporary {
            return Ok(());
        }
        let any = |p: PReg| self.budget.contains(p);
        let p = match self.first_free(c, &any) {
            Some(p) => p,
            None => {
                let (u, _) = self
                    .lightest(c, reads, &any)
                    .ok_or_else(|| format!("no register left for {v} (class {c:?})"))?;
                let p = self.a.colour[u.index()].ok_or("evicted value without register")?;
                self.evict(u);
                p
            }
        };
        self.a.colour[v.index()] = Some(p);
        // The temporary is held until the end of the instruction.
        self.take(p, v);
        Ok(())
    }

    fn colour_block(&mut self, b: BlockId) -> Result<(), String> {
        self.occ.iter_mut().for_each(|o| *o = None);
        for &v in &self.live.live_in[b.index()] {
            if self.a.spilled[v.index()] {
                continue;
            }
            let p = self.a.colour[v.index()].ok_or_else(|| {
                format!("{v} is live into {b} but its definition was not coloured")
            })?;
            self.take(p, v);
        }
        let f = self.f;
        let block = f.block(b);
        let (dies, dead) = crate::regalloc::ssa::colour::last_uses(f, self.live, b);
        let nphi = block.phi_end();
        for inst in &block.insts[..nphi] {
            if let Some(d) = inst.defs[0].vreg() {
                self.assign(d, Some(inst), 0, &[], false)?;
            }
        }
        for d in dead[..nphi].iter().flatten() {
            if let Some(p) = self.a.colour[d.index()] {
                self.release(p, *d);
            }
        }
        for (k, inst) in block.insts.iter().enumerate().skip(nphi) {
            let reads: Vec<VReg> = inst.use_vregs().collect();
            let copy_like = is_copy_like(inst);
            // Registers for the values read from memory.
            let mut temps: Vec<(VReg, PReg)> = Vec::new();
            if !copy_like {
                let mut mem: Vec<VReg> = reads
                    .iter()
                    .copied()
                    .filter(|u| self.a.spilled[u.index()])
                    .collect();
                mem.sort_unstable();
                mem.dedup();
                for u in mem {
                    let c = f.class_of(u);
                    let any = |p: PReg| self.budget.contains(p);
                    let p = match self.first_free(c, &any) {
                        Some(p) => p,
                        None => {
                            let (x, _) = self.lightest(c, &reads, &any).ok_or_else(|| {
                                format!("no register to reload {u} in {b} (class {c:?})")
                            })?;
                            let p = self.a.colour[x.index()].ok_or("no register")?;
                            self.evict(x);
                            p
                        }
                    };
                    self.take(p, u);
                    self.a.temps.insert((b.0, k as u32, u.0), p);
                    temps.push((u, p));
                }
            }
            let late = inst.opc == Opc::Psi;
            if !late {
                self.free_dying(&dies[k], &temps);
            }
            // Pinned definitions first, then tied ones, then the others.
            let tied_reg = |v: VReg, this: &Self| -> Option<PReg> {
                let u = inst.uses.iter().find(|u| u.pin == Some(Pin::Var(v)))?;
                match u.reg {
                    crate::mir::Reg::V(x) => {
                        if this.a.spilled[x.index()] {
                            this.a
                                .temps
                                .get(&(b.0, k as u32, x.0))
                                .copied()
                                .or(this.a.colour[x.index()])
                        } else {
                            this.a.colour[x.index()]
                        }
                    }
                    crate::mir::Reg::P(p) => Some(p),
                }
            };
            let mut order: Vec<usize> = (0..inst.defs.len()).collect();
            order.sort_by_key(|&i| match inst.defs[i].vreg() {
                Some(v) if self.pre.pin[v.index()].is_some() => 0,
                Some(v) if tied_reg(v, self).is_some() => 1,
                _ => 2,
            });
            let mut spilled_defs: Vec<VReg> = Vec::new();
            for i in order {
                let Some(d) = inst.defs[i].vreg() else {
                    continue;
                };
                if self.pre.pin[d.index()].is_none() {
                    if let Some(p) = tied_reg(d, self) {
                        if let Some(u) = self.occ[reg_index(p)] {
                            if u != d {
                                return Err(format!("tied register of {d} still holds {u}"));
                            }
                        }
                        self.a.colour[d.index()] = Some(p);
                        self.take(p, d);
                        if !self.safe(d, p) && self.weight[d.index()].is_finite() {
                            self.a.spilled[d.index()] = true;
                            self.a.spilled_at_definition += 1;
                        }
                        if self.a.spilled[d.index()] {
                            spilled_defs.push(d);
                        }
                        continue;
                    }
                }
                // A copy's destination spilled at once needs no register: the
                // deconstruction stores its source directly.
                self.assign(d, Some(inst), i, &reads, !copy_like)?;
                if self.a.spilled[d.index()] {
                    spilled_defs.push(d);
                }
            }
            if late {
                self.free_dying(&dies[k], &temps);
            }
            // A spilled definition holds its register only at the instruction; a dead one
            // not even after it.
            for d in spilled_defs.iter().chain(&dead[k]) {
                if let Some(p) = self.a.colour[d.index()] {
                    self.release(p, *d);
                }
            }
        }
        Ok(())
    }

    fn free_dying(&mut self, dying: &[VReg], temps: &[(VReg, PReg)]) {
        for &v in dying {
            if let Some(p) = self.a.colour[v.index()] {
                self.release(p, v);
            }
        }
        for &(u, p) in temps {
            self.release(p, u);
        }
    }
}
