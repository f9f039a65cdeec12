//! Spilling on SSA form with Belady's method over the whole procedure: Hack, Grund & Goos
//! §3.1 and Appendix D (Algorithm 2, `BELADY-BLOCK` with `DISPLACE`; Algorithm 3,
//! `SPILL-BELADY`).
//!
//! Per register class with spill code, with `k` = the class's register budget:
//!
//! * **Next-use distances** ([`NextUse`]): `nextuse(ℓ, v)` counts instructions from `ℓ` to
//!   the next use of `v`; across blocks it is the minimum over the successors, a phi operand
//!   counting as a use at the end of its predecessor. Loop-aware, as the issue asks: an edge
//!   that leaves a loop adds [`LOOP_EXIT_DISTANCE`], so a value used only after the loop is
//!   far away from every label inside it. The distances at block ends are a shortest-path
//!   fixpoint, iterated in post-order at most [`MAX_ROUNDS`] times (capped runs are counted:
//!   the distances are then upper bounds, the spilling still correct).
//! * **`BELADY-BLOCK`** ([`belady_block`]): `I` = the `k` values of (live-in ∪ phi results)
//!   with the smallest next use at the entry; `Q := I`; at each instruction, reloads for the
//!   uses not in `Q`, `DISPLACE` of the values whose next use is farthest, then `DISPLACE`
//!   for the definitions with `nextuse'` (the uses at the instruction itself disregarded).
//!   A call counts as defining as many values as the budget has call-clobbered registers;
//!   the duplicates the constraint handling will create (`super::duplicates_at`) count as
//!   extra uses. `in_B` = the values of `I` used before being displaced; `out_B` = `Q` at
//!   the end.
//! * **`SPILL-BELADY`** ([`fix_edges`]): on each edge `P -> B`, reloads of `in_B \ out_P`.
//!   A phi result in `in_B` needs its operand from `P` in a register (reloaded on the edge
//!   if it is not in `out_P`). A phi result not in `in_B` (displaced before its first use)
//!   becomes a **memory phi**: the phi is deleted, each operand is stored into the result's
//!   stack slot on the incoming edge (through a temporary register when the operand itself
//!   is in memory; if that temporary would exceed `k`, one value kept in a register over the
//!   edge is reloaded after it instead), and every use of the result is a reload.
//! * **Spill stores and rematerialisation**: every value reloaded anywhere is stored once,
//!   right after its definition (after the phis for a phi result), unless it is
//!   *rematerialisable* (a constant or a stack-pointer offset computed from physical
//!   registers only): then each reload is a copy of the defining instruction flagged
//!   `REMAT`, and there is no store (§3.2.2's rematerialisation, applied to Belady's reloads).
//! * **SSA reconstruction** ([`super::reconstruct`]) of each reloaded value.
//!
//! Preconditions: SSA form; edges into phi blocks from blocks with several successors and
//! critical edges are split first (`mir::split_edges::split_edges_for_edge_code`), so every
//! edge has a place for its code (end of the predecessor or start of the successor).
//! Postcondition: at every label the values of a spillable class live in registers are at
//! most its budget (the constraint duplicates included), so `ssa-colour` never fails.
//!
//! Complexity: O(instructions × k) for the block walks (`DISPLACE` scans `Q`, `|Q| ≤ k`),
//! plus the next-use fixpoint O(rounds × Σ |live-out|) with `rounds ≤ MAX_ROUNDS`, plus the
//! reconstruction (near-linear).

use super::liveness::Liveness;
use super::reconstruct::Reconstruction;
use super::{duplicates_at, is_call, Budget, SsaRaStats};
use crate::mir::cfg::CfgInfo;
use crate::mir::split_edges::split_edges_for_edge_code;
use crate::mir::{
    target, BlockId, FrameIdx, Function, Inst, InstFlags, Opc, Operand, RegClass, VReg,
};
use crate::pipeline::PassDetail;
use crate::regalloc::fasthash::BuildFast;
use crate::regalloc::{spill, RegallocOptions};
use simulator::isa::{st120, st231};
use std::collections::HashMap;

/// Distance added when an edge leaves a loop.
pub const LOOP_EXIT_DISTANCE: u32 = 100_000;
/// Rounds of the next-use fixpoint before it is cut off (and counted).
pub const MAX_ROUNDS: u32 = 64;
/// "Never used again".
const INF: u32 = u32::MAX;

type Map<K, V> = HashMap<K, V, BuildFast>;

/// The `ssa-spill` pass.
pub fn run(f: &mut Function, opts: &RegallocOptions) -> Result<PassDetail, String> {
    spill_function(f, opts, &mut spill_class)
}

/// A spiller's decision for one register class of a function.
pub type ClassSpiller<'a> =
    dyn FnMut(&mut Function, RegClass, &Budget, &mut SsaRaStats) -> Result<(), String> + 'a;

/// The frame shared by the spillers: edge splitting, the isolation of definitions outside
/// the budget, `spill_one_class` per class with spill code (a pressure check for the others),
/// and the pass details.
pub fn spill_function(
    f: &mut Function,
    opts: &RegallocOptions,
    spill_one_class: &mut ClassSpiller<'_>,
) -> Result<PassDetail, String> {
    let budget = Budget::new(f.target, opts);
    let mut stats = SsaRaStats {
        edges_split: split_edges_for_edge_code(f) as u64,
        ..SsaRaStats::default()
    };
    let outside_copies = isolate_outside_definitions(f, &budget);
    for &c in target::classes(f.target) {
        if spill::can_spill(f.target, c) {
            spill_one_class(f, c, &budget, &mut stats)?;
        } else {
            check_unspillable_pressure(f, c, &budget)?;
        }
    }
    Ok(vec![
        ("edges_split", stats.edges_split),
        ("reloads", stats.reloads),
        ("remats", stats.remats),
        ("spill_stores", stats.spill_stores),
        ("memory_phis", stats.memory_phis),
        ("reconstruct_phis", stats.reconstruct_phis),
        ("nextuse_rounds_capped", stats.nextuse_rounds_capped),
        ("outside_budget_copies", outside_copies),
    ])
}

/// Under `--regs N` an ABI definition (a parameter at `.input`, a call result) may be pinned
/// to a register outside the budget. Such a value gets a copy right after its definition,
/// which every use reads: the pinned value then lives only there, outside the budget, and
/// the copy is an ordinary value (as road 1's isolation of pinned operands does for IRC).
/// With the whole register file every ABI register is in the budget and nothing is copied.
pub fn isolate_outside_definitions(f: &mut Function, budget: &Budget) -> u64 {
    let mut renamed: Vec<Option<VReg>> = vec![None; f.vregs.len()];
    let mut n = 0;
    for b in 0..f.blocks.len() {
        let mut k = 0;
        while k < f.blocks[b].insts.len() {
            let mut copies = Vec::new();
            for o in &f.blocks[b].insts[k].defs {
                let (Some(v), Some(crate::mir::Pin::Phys(p))) = (o.vreg(), o.pin) else {
                    continue;
                };
                if budget.contains(p) || !spill::can_spill(f.target, p.class) {
                    continue;
                }
                copies.push(v);
            }
            let at = k + 1;
            for (i, v) in copies.into_iter().enumerate() {
                let c = f.new_vreg(f.class_of(v));
                renamed.push(None);
                renamed[v.index()] = Some(c);
                f.blocks[b]
                    .insts
                    .insert(at + i, Inst::copy(c, v).with_flags(InstFlags::INSERTED));
                n += 1;
            }
            k += 1;
        }
    }
    if n == 0 {
        return 0;
    }
    for block in &mut f.blocks {
        for inst in &mut block.insts {
            let is_isolation = inst.opc == Opc::Copy && inst.flags.contains(InstFlags::INSERTED);
            if is_isolation {
                continue;
            }
            for u in &mut inst.uses {
                if let Some(c) = u.vreg().and_then(|v| renamed[v.index()]) {
                    u.reg = c.into();
                }
            }
        }
    }
    n
}

/// ST231 `$b` and ST120 guards have no spill code: their pressure must fit as it is.
fn check_unspillable_pressure(f: &Function, c: RegClass, budget: &Budget) -> Result<(), String> {
    let preds = f.predecessors();
    let live = Liveness::compute(f, &preds);
    let m = live.maxlive(f, &[c])[0] as usize;
    if m > budget.k(c) {
        return Err(format!(
            "{m} values of class {c:?} are live at once but the class has {} registers and no spill code",
            budget.k(c)
        ));
    }
    Ok(())
}

/// Global next-use distances at block ends, for one class.
pub struct NextUse {
    /// Per block: distance from the block's end to the next use of each live-out value.
    at_end: Vec<Map<VReg, u32>>,
    pub capped: bool,
}

impl NextUse {
    pub fn compute(f: &Function, info: &CfgInfo, live: &Liveness, c: RegClass) -> NextUse {
        let n = f.blocks.len();
        // Distance from a block's entry to the first use of each of its live-in values, when
        // the use is inside the block (otherwise: block length + distance at its end).
        let mut local_first: Vec<Map<VReg, u32>> = Vec::with_capacity(n);
        let mut len = vec![0u32; n];
        for b in f.block_ids() {
            let block = f.block(b);
            let start = block.phi_end();
            len[b.index()] = (block.insts.len() - start) as u32;
            let mut m: Map<VReg, u32> = Map::default();
            for (i, inst) in block.insts[start..].iter().enumerate() {
                for v in inst.use_vregs() {
                    if f.class_of(v) == c {
                        m.entry(v).or_insert(i as u32);
                    }
                }
            }
            local_first.push(m);
        }
        let mut at_end: Vec<Map<VReg, u32>> = (0..n)
            .map(|b| {
                live.live_out[b]
                    .iter()
                    .filter(|v| f.class_of(**v) == c)
                    .map(|&v| (v, INF))
                    .collect()
            })
            .collect();
        let order: Vec<BlockId> = {
            let mut o: Vec<BlockId> = info.rpo().collect();
            o.reverse();
            o
        };
        let mut rounds = 0;
        let mut changed = true;
        while changed && rounds < MAX_ROUNDS {
            changed = false;
            rounds += 1;
            for &b in &order {
                let mut updates: Vec<(VReg, u32)> = Vec::new();
                for s in info.succs(b) {
                    let exit = if leaves_loop(info, b, s) {
                        LOOP_EXIT_DISTANCE
                    } else {
                        0
                    };
                    // Phi operands flowing from b are used on the edge.
                    for inst in f.block(s).insts.iter().take_while(|i| i.is_phi()) {
                        for (o, &p) in inst.uses.iter().zip(inst.phi_blocks()) {
                            if p == b {
                                if let Some(v) = o.vreg() {
                                    if f.class_of(v) == c {
                                        updates.push((v, 1));
                                    }
                                }
                            }
                        }
                    }
                    for &v in &live.live_in[s.index()] {
                        if f.class_of(v) != c {
                            continue;
                        }
                        let d = match local_first[s.index()].get(&v) {
                            Some(&i) => i,
                            None => at_end[s.index()]
                                .get(&v)
                                .copied()
                                .unwrap_or(INF)
                                .saturating_add(len[s.index()]),
                        };
                        updates.push((v, d.saturating_add(1).saturating_add(exit)));
                    }
                }
                let m = &mut at_end[b.index()];
                for (v, d) in updates {
                    if let Some(cur) = m.get_mut(&v) {
                        if d < *cur {
                            *cur = d;
                            changed = true;
                        }
                    }
                }
            }
        }
        NextUse {
            at_end,
            capped: changed,
        }
    }

    /// Distance from the end of `b` to the next use of `v` (`INF` if `v` is dead there).
    pub fn at_end(&self, b: BlockId, v: VReg) -> u32 {
        self.at_end[b.index()].get(&v).copied().unwrap_or(INF)
    }
}

/// Whether the edge `from -> to` leaves a loop that contains `from`.
fn leaves_loop(info: &CfgInfo, from: BlockId, to: BlockId) -> bool {
    let to_ir = |b: BlockId| crate::ir::BlockId(b.0);
    let Some(l) = info.loops.loop_of(to_ir(from)) else {
        return false;
    };
    // `to` must be inside `from`'s innermost loop (or the edge leaves it).
    let target = info.loops.loop_of(to_ir(to));
    let mut t = target;
    while let Some(x) = t {
        if x == l {
            return false;
        }
        t = info.loops.get(x).parent;
    }
    true
}

/// What `BELADY-BLOCK` decided for one block.
#[derive(Clone, Debug, Default)]
pub struct BlockDecision {
    /// `in_B`: values that must be in a register on entry (live-in values and phi results).
    pub in_regs: Vec<VReg>,
    /// `out_B`: values in a register at the block end.
    pub out_regs: Vec<VReg>,
    /// Reloads inside the block: (instruction index, value).
    pub reloads: Vec<(usize, VReg)>,
    /// Reloads straight into a register outside the budget, for a use pinned there whose
    /// value is not in a register: (instruction index, use index, value, register).
    pub pinned_reloads: Vec<(usize, usize, VReg, crate::mir::PReg)>,
}

/// Use positions of the values of one class in one block (indices of non-phi instructions).
struct BlockUses {
    positions: Map<VReg, Vec<u32>>,
}

impl BlockUses {
    fn new(f: &Function, b: BlockId, c: RegClass) -> BlockUses {
        let mut positions: Map<VReg, Vec<u32>> = Map::default();
        let block = f.block(b);
        for (k, inst) in block.insts.iter().enumerate().skip(block.phi_end()) {
            for v in inst.use_vregs() {
                if f.class_of(v) == c {
                    let p = positions.entry(v).or_default();
                    if p.last() != Some(&(k as u32)) {
                        p.push(k as u32);
                    }
                }
            }
        }
        BlockUses { positions }
    }

    /// Next use of `v` at or after instruction `k` (`strict`: after `k`), as a distance.
    fn next(&self, v: VReg, k: usize, strict: bool, n: usize, end: u32) -> u32 {
        let from = if strict { k + 1 } else { k } as u32;
        if let Some(p) = self.positions.get(&v) {
            let i = p.partition_point(|&x| x < from);
            if let Some(&x) = p.get(i) {
                return x - k as u32;
            }
        }
        end.saturating_add((n - k) as u32)
    }
}

/// `BELADY-BLOCK` (Algorithm 2) for block `b` and class `c`.
#[allow(clippy::too_many_arguments)]
pub fn belady_block(
    f: &Function,
    b: BlockId,
    c: RegClass,
    budget: &Budget,
    clobbered: usize,
    live: &Liveness,
    nu: &NextUse,
    outside: &dyn Fn(VReg) -> bool,
) -> Result<BlockDecision, String> {
    let k = budget.k(c);
    let block = f.block(b);
    let n = block.insts.len();
    let uses = BlockUses::new(f, b, c);
    let end = |v: VReg| nu.at_end(b, v);
    let start = block.phi_end();
    // Candidates passed in from the predecessors: live-in values and phi results.
    let mut candidates: Vec<(u32, VReg)> = live.live_in[b.index()]
        .iter()
        .filter(|v| f.class_of(**v) == c)
        .map(|&v| (uses.next(v, start, false, n, end(v)), v))
        .collect();
    for inst in &block.insts[..start] {
        for v in inst.def_vregs() {
            if f.class_of(v) == c {
                candidates.push((uses.next(v, start, false, n, end(v)), v));
            }
        }
    }
    candidates.sort_unstable();
    candidates.truncate(k);
    let mut q: Vec<VReg> = candidates.iter().map(|&(_, v)| v).collect();
    let mut d = BlockDecision {
        in_regs: q.clone(),
        ..BlockDecision::default()
    };
    let mut used: std::collections::HashSet<VReg, BuildFast> = Default::default();
    for idx in start..n {
        let inst = &block.insts[idx];
        let mut inst_uses: Vec<VReg> = inst
            .use_vregs()
            .filter(|v| f.class_of(*v) == c && !outside(*v))
            .collect();
        inst_uses.sort_unstable();
        inst_uses.dedup();
        // A value read only by operands pinned outside the budget, and not in a register,
        // is reloaded into the pinned register itself: it needs no budget register (between
        // instructions the registers outside the budget hold nothing).
        let all_outside = |v: VReg| {
            inst.uses
                .iter()
                .filter(|u| u.reg == v.into())
                .all(|u| matches!(u.pin, Some(crate::mir::Pin::Phys(p)) if !budget.contains(p)))
        };
        let mut pinned_only: Vec<VReg> = inst_uses
            .iter()
            .copied()
            .filter(|&v| !q.contains(&v) && all_outside(v))
            .collect();
        // When the operands alone exceed the budget, values in a register that only such
        // operands read are reloaded into their pinned registers as well (no register of
        // the budget is then needed for them at the instruction).
        let in_q_outside: Vec<VReg> = inst_uses
            .iter()
            .copied()
            .filter(|&v| q.contains(&v) && all_outside(v))
            .collect();
        let mut over = (inst_uses.len() - pinned_only.len()).saturating_sub(k);
        for v in in_q_outside {
            if over == 0 {
                break;
            }
            q.retain(|x| *x != v);
            pinned_only.push(v);
            over -= 1;
        }
        for (j, u) in inst.uses.iter().enumerate() {
            if let (Some(v), Some(crate::mir::Pin::Phys(p))) = (u.vreg(), u.pin) {
                if pinned_only.contains(&v) {
                    d.pinned_reloads.push((idx, j, v, p));
                }
            }
        }
        inst_uses.retain(|v| !pinned_only.contains(v));
        let missing: Vec<VReg> = inst_uses
            .iter()
            .copied()
            .filter(|v| !q.contains(v))
            .collect();
        // A call also "defines" the clobbered registers of the budget.
        let defs: Vec<VReg> = inst
            .def_vregs()
            .filter(|v| f.class_of(*v) == c && !outside(*v))
            .collect();
        let ndefs = if is_call(inst) {
            defs.len().max(clobbered)
        } else {
            defs.len()
        };
        // The values that stay in a register across the instruction: the nearest next uses
        // (`nextuse'`) that fit beside the definitions. Fewer when the copies the
        // constraint handling makes for the survivors (`duplicates_at`) would not fit.
        let next_after = |v: VReg| uses.next(v, idx, true, n, end(v));
        let mut candidates: Vec<(u32, VReg)> = q
            .iter()
            .chain(&missing)
            .map(|&v| (next_after(v), v))
            .filter(|&(d, _)| d != INF)
            .collect();
        candidates.sort_unstable();
        let mut cap = k.saturating_sub(ndefs).min(candidates.len());
        let mut extra;
        loop {
            let survivors = &candidates[..cap];
            let live_after = |v: VReg| survivors.iter().any(|&(_, s)| s == v);
            extra = duplicates_at(f, inst, c, budget, &live_after);
            if inst_uses.len() + extra <= k || cap == 0 {
                break;
            }
            cap -= 1;
        }
        if inst_uses.len() + extra > k {
            return Err(format!(
                "`{}` in {b} needs {} registers of class {c:?} at once, the budget is {k}",
                crate::mir::print::inst_to_string(f, inst),
                inst_uses.len() + extra
            ));
        }
        let survivors: Vec<VReg> = candidates[..cap].iter().map(|&(_, v)| v).collect();
        // Reloads for the uses not in Q, then DISPLACE(Q, ℓ, nextuse, uses) — values that
        // will not survive the instruction go first.
        for &v in &missing {
            d.reloads.push((idx, v));
        }
        let excess = (missing.len() + q.len() + extra).saturating_sub(k);
        let displaced = displace(&mut q, excess, &inst_uses, |v| {
            let d = uses.next(v, idx, false, n, end(v));
            (!survivors.contains(&v), d)
        });
        for x in displaced {
            if !used.contains(&x) {
                d.in_regs.retain(|&y| y != x);
            }
        }
        q.extend(missing);
        used.extend(inst_uses.iter().copied());
        // DISPLACE(Q, ℓ, nextuse', defs): only the survivors stay.
        let mut gone = Vec::new();
        q.retain(|v| {
            let keep = survivors.contains(v);
            if !keep {
                gone.push(*v);
            }
            keep
        });
        for x in gone {
            if !used.contains(&x) {
                d.in_regs.retain(|&y| y != x);
            }
        }
        q.extend(defs);
    }
    d.out_regs = q;
    Ok(d)
}

/// `DISPLACE`: removes from `q` the `count` values with the farthest next use (never one of
/// `keep`), returning them.
fn displace<K: Ord>(
    q: &mut Vec<VReg>,
    count: usize,
    keep: &[VReg],
    next: impl Fn(VReg) -> K,
) -> Vec<VReg> {
    let mut out = Vec::new();
    for _ in 0..count {
        let victim = q
            .iter()
            .enumerate()
            .filter(|(_, v)| !keep.contains(v))
            .max_by_key(|(_, v)| (next(**v), std::cmp::Reverse(v.0)))
            .map(|(i, _)| i);
        match victim {
            Some(i) => out.push(q.swap_remove(i)),
            None => break,
        }
    }
    out
}

const RANK_EDGE_RELOAD_IN: u8 = 1;
const RANK_PHI_STORE: u8 = 2;
const RANK_EDGE_RELOAD_OUT: u8 = 4;
const RANK_USE_RELOAD: u8 = 5;

/// Where an inserted instruction goes, and in which order among insertions at one place.
#[derive(Clone, Debug)]
struct Insertion {
    block: BlockId,
    /// Index of the instruction it goes before.
    before: usize,
    /// Order among insertions at one index (the start and the end of a block that holds only
    /// a jump are one index): 0 = spill stores after a definition, 1 = reloads on the edge
    /// into the block (at its start), 2 = memory-phi stores from registers and 3 through a
    /// temporary (one sequence, rank 2), 4 = reloads on the edge out of the block (at its end), 5 = reloads for a
    /// use.
    rank: u8,
    inst: Inst,
}

/// Spills values of class `c` so that its pressure fits the budget.
fn spill_class(
    f: &mut Function,
    c: RegClass,
    budget: &Budget,
    stats: &mut SsaRaStats,
) -> Result<(), String> {
    let ctx = SpillContext::compute(f, c, budget, stats);
    let decisions = belady_decisions(f, &ctx, budget)?;
    apply_decisions(f, &ctx, &decisions, stats)
}

/// What the spilling of one class needs to know about the function before deciding.
pub struct SpillContext {
    pub class: RegClass,
    pub k: usize,
    pub clobbered: usize,
    pub info: CfgInfo,
    pub preds: Vec<Vec<BlockId>>,
    pub live: Liveness,
    pub nu: NextUse,
    /// Values defined in a register outside the budget (read only by their isolation copy).
    outside_v: Vec<bool>,
}

impl SpillContext {
    pub fn compute(
        f: &Function,
        c: RegClass,
        budget: &Budget,
        stats: &mut SsaRaStats,
    ) -> SpillContext {
        let info = CfgInfo::compute(f);
        let preds = f.predecessors();
        let live = Liveness::compute(f, &preds);
        let nu = NextUse::compute(f, &info, &live, c);
        if nu.capped {
            stats.nextuse_rounds_capped += 1;
        }
        let mut outside_v = vec![false; f.vregs.len()];
        for block in &f.blocks {
            for inst in &block.insts {
                for o in &inst.defs {
                    if let (Some(v), Some(crate::mir::Pin::Phys(p))) = (o.vreg(), o.pin) {
                        outside_v[v.index()] = !budget.contains(p);
                    }
                }
            }
        }
        SpillContext {
            class: c,
            k: budget.k(c),
            clobbered: budget.clobbered(c),
            info,
            preds,
            live,
            nu,
            outside_v,
        }
    }

    /// Whether `v` is defined in a register outside the budget.
    pub fn outside(&self, v: VReg) -> bool {
        self.outside_v.get(v.index()).copied().unwrap_or(false)
    }
}

/// `BELADY-BLOCK` for every reachable block.
pub fn belady_decisions(
    f: &Function,
    ctx: &SpillContext,
    budget: &Budget,
) -> Result<Vec<BlockDecision>, String> {
    let outside = |v: VReg| ctx.outside(v);
    let mut decisions: Vec<BlockDecision> = Vec::with_capacity(f.blocks.len());
    for b in f.block_ids() {
        if !ctx.info.is_reachable(b) {
            decisions.push(BlockDecision::default());
            continue;
        }
        decisions.push(belady_block(
            f,
            b,
            ctx.class,
            budget,
            ctx.clobbered,
            &ctx.live,
            &ctx.nu,
            &outside,
        )?);
    }
    Ok(decisions)
}

/// `SPILL-BELADY`'s placement for per-block decisions (Belady's or another spiller's):
/// reloads at uses and on edges, memory phis, spill stores, rematerialisation, SSA
/// reconstruction.
pub fn apply_decisions(
    f: &mut Function,
    ctx: &SpillContext,
    decisions: &[BlockDecision],
    stats: &mut SsaRaStats,
) -> Result<(), String> {
    let c = ctx.class;
    let defs = DefSites::compute(f);
    let mut plan = Plan::new(f.vregs.len());
    for (b, d) in decisions.iter().enumerate() {
        for &(idx, v) in &d.reloads {
            plan.reload(BlockId(b as u32), idx, RANK_USE_RELOAD, v);
        }
        for &(idx, j, v, p) in &d.pinned_reloads {
            plan.pinned_reloads.push((BlockId(b as u32), idx, j, v, p));
            plan.in_memory[v.index()] = true;
        }
    }
    fix_edges(f, c, ctx.k, &ctx.info, &ctx.preds, decisions, &mut plan)?;
    if plan.is_empty() {
        return Ok(());
    }
    apply_plan(f, c, &defs, plan, stats)
}

/// Definition site of every vreg: (block, instruction index).
struct DefSites {
    site: Vec<Option<(BlockId, usize)>>,
}

impl DefSites {
    fn compute(f: &Function) -> DefSites {
        let mut site = vec![None; f.vregs.len()];
        for b in f.block_ids() {
            for (k, inst) in f.block(b).insts.iter().enumerate() {
                for v in inst.def_vregs() {
                    site[v.index()] = Some((b, k));
                }
            }
        }
        DefSites { site }
    }
}

/// The spill decisions before they are applied.
struct Plan {
    /// Reload requests: (block, before index, rank, value).
    reloads: Vec<(BlockId, usize, u8, VReg)>,
    /// Reloads into a pinned register outside the budget: (block, instruction, use index,
    /// value, register).
    pinned_reloads: Vec<(BlockId, usize, usize, VReg, crate::mir::PReg)>,
    /// Memory phis: (block of the phi, index of the phi).
    memory_phis: Vec<(BlockId, usize)>,
    /// The memory phis' parallel copies into their slots, sequentialised: (pred, before
    /// index, move), in order.
    mem_moves: Vec<(BlockId, usize, MemMove)>,
    /// Whether a value needs a slot (it is reloaded somewhere or a memory-phi operand in
    /// memory).
    in_memory: Vec<bool>,
}

impl Plan {
    fn new(n: usize) -> Plan {
        Plan {
            reloads: Vec::new(),
            pinned_reloads: Vec::new(),
            memory_phis: Vec::new(),
            mem_moves: Vec::new(),
            in_memory: vec![false; n],
        }
    }
    fn reload(&mut self, b: BlockId, before: usize, rank: u8, v: VReg) {
        self.reloads.push((b, before, rank, v));
        self.in_memory[v.index()] = true;
    }
    fn is_empty(&self) -> bool {
        self.reloads.is_empty() && self.memory_phis.is_empty() && self.pinned_reloads.is_empty()
    }
}

/// `SPILL-BELADY`'s second loop: code on the edges so that every value of `in_B` reaches
/// `B` in a register, and the memory phis.
#[allow(clippy::too_many_arguments)]
fn fix_edges(
    f: &Function,
    c: RegClass,
    k: usize,
    info: &CfgInfo,
    preds: &[Vec<BlockId>],
    decisions: &[BlockDecision],
    plan: &mut Plan,
) -> Result<(), String> {
    for s in f.block_ids() {
        if !info.is_reachable(s) {
            continue;
        }
        let block = f.block(s);
        let d = &decisions[s.index()];
        let phis: Vec<(usize, &Inst)> = block
            .insts
            .iter()
            .enumerate()
            .take_while(|(_, i)| i.is_phi())
            .filter(|(_, i)| i.def_vregs().any(|v| f.class_of(v) == c))
            .collect();
        for &(idx, phi) in &phis {
            let y = phi.def_vregs().next().expect("a phi defines its result");
            if !d.in_regs.contains(&y) {
                plan.memory_phis.push((s, idx));
            }
        }
        for &p in &preds[s.index()] {
            if !info.is_reachable(p) {
                continue;
            }
            let out = &decisions[p.index()].out_regs;
            let single_succ = f.block(p).successors().len() == 1;
            let (at_block, at) = if single_succ {
                (p, f.block(p).terminator_start())
            } else {
                (s, block.phi_end())
            };
            // The value each register of in_B comes from on this edge.
            let mut needed: Vec<VReg> = Vec::new();
            let mut memory: Vec<(VReg, VReg)> = Vec::new();
            for &v in &d.in_regs {
                let is_phi = phis.iter().any(|(_, i)| i.def_vregs().any(|y| y == v));
                needed.push(if is_phi {
                    phi_operand(&phis, v, p).ok_or_else(|| {
                        format!("phi operand of {v} from {p} is not a register value")
                    })?
                } else {
                    v
                });
            }
            for &(_, phi) in &phis {
                let y = phi.def_vregs().next().expect("phi result");
                if d.in_regs.contains(&y) {
                    continue;
                }
                let x = phi_operand(&phis, y, p).ok_or_else(|| {
                    format!("phi operand of {y} from {p} is not a register value")
                })?;
                memory.push((x, y));
            }
            if !memory.is_empty() && !single_succ {
                return Err(format!("edge {p} -> {s} into a phi block was not split"));
            }
            needed.sort_unstable();
            needed.dedup();
            let mut in_reg: Vec<VReg> =
                needed.iter().copied().filter(|v| out.contains(v)).collect();
            let mut from_reg: Vec<VReg> = memory
                .iter()
                .map(|&(x, _)| x)
                .filter(|x| out.contains(x))
                .collect();
            from_reg.sort_unstable();
            from_reg.dedup();
            // A value needed in a register that is itself one of these memory phis (its old
            // value, in the slot that the copies overwrite) is reloaded within the copies.
            let results: Vec<VReg> = memory.iter().map(|&(_, y)| y).collect();
            let early: Vec<VReg> = needed
                .iter()
                .copied()
                .filter(|v| !out.contains(v) && results.contains(v))
                .collect();
            // The memory phis' operands go into the results' slots as one parallel copy
            // (operands may be other memory phis' slots, even a cycle of them), sequentialised;
            // a slot-to-slot move needs a register for the moment, a cycle one more. Make
            // room by reloading a kept value after the copies, or by taking an operand from
            // its own slot instead of its register.
            let moves = loop {
                let moves = memory_moves(&memory, &from_reg, &early, f.vregs.len())?;
                let transient =
                    usize::from(moves.iter().any(|m| !matches!(m, MemMove::RegToSlot(..))));
                let held = usize::from(moves.iter().any(|m| matches!(m, MemMove::SlotToTemp(_))));
                let mut live: Vec<VReg> = in_reg
                    .iter()
                    .chain(&from_reg)
                    .chain(&early)
                    .copied()
                    .collect();
                live.sort_unstable();
                live.dedup();
                if live.len() + transient + held <= k || live.is_empty() {
                    break moves;
                }
                if let Some(i) = in_reg
                    .iter()
                    .position(|v| !from_reg.contains(v) && !results.contains(v))
                {
                    in_reg.remove(i);
                } else if let Some(x) = from_reg.pop() {
                    in_reg.retain(|v| *v != x);
                    plan.in_memory[x.index()] = true;
                } else {
                    break moves;
                }
            };
            for m in moves {
                if let MemMove::SlotToSlot(x, _) | MemMove::SlotToTemp(x) = m {
                    plan.in_memory[x.index()] = true;
                }
                plan.mem_moves.push((p, at, m));
            }
            for &v in &needed {
                if !in_reg.contains(&v) && !early.contains(&v) {
                    let rank = if single_succ {
                        RANK_EDGE_RELOAD_OUT
                    } else {
                        RANK_EDGE_RELOAD_IN
                    };
                    plan.reload(at_block, at, rank, v);
                }
            }
        }
    }
    Ok(())
}

/// One step of the memory phis' parallel copy on an edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MemMove {
    /// Store operand `.0` (in a register) into the slot of memory phi `.1`.
    RegToSlot(VReg, VReg),
    /// Copy `.0`'s slot (or rematerialisation) into the slot of `.1` through a register.
    SlotToSlot(VReg, VReg),
    /// Load `.0`'s slot into the cycle-breaking temporary, held.
    SlotToTemp(VReg),
    /// Store the temporary into the slot of `.0`.
    TempToSlot(VReg),
    /// Reload value `.0` (a memory phi's old value, needed in a register) before its slot
    /// is overwritten, from the slot of `.1` (its own, or one the value was copied to).
    SlotToReg(VReg, VReg),
}

/// Sequentialises the parallel copy `slot(y) := x` for the `(x, y)` of `memory`, `x` read
/// from its register when in `from_reg`, else from its slot (SSA book §21.3's algorithm,
/// on locations "slot of v" and "register of v").
fn memory_moves(
    memory: &[(VReg, VReg)],
    from_reg: &[VReg],
    early: &[VReg],
    nv: usize,
) -> Result<Vec<MemMove>, String> {
    use crate::out_of_ssa::parallel_copy::{sequentialize, CycleBreaker, Move};
    let mem = |v: VReg| 2 * v.0;
    let reg = |v: VReg| 2 * v.0 + 1;
    let temp = 2 * nv as u32 + 2;
    let copies: Vec<(u32, u32)> = memory
        .iter()
        .map(|&(x, y)| {
            (
                mem(y),
                if from_reg.contains(&x) {
                    reg(x)
                } else {
                    mem(x)
                },
            )
        })
        .chain(early.iter().map(|&x| (reg(x), mem(x))))
        .collect();
    let moves = sequentialize(&copies, CycleBreaker::Temp(temp))
        .map_err(|e| format!("memory phis: {e:?}"))?;
    let vreg = |l: u32| VReg(l / 2);
    moves
        .into_iter()
        .map(|m| match m {
            Move::Copy { dst, src } if dst == temp => Ok(MemMove::SlotToTemp(vreg(src))),
            Move::Copy { dst, src } if src == temp => Ok(MemMove::TempToSlot(vreg(dst))),
            Move::Copy { dst, src } if dst % 2 == 1 => Ok(MemMove::SlotToReg(vreg(dst), vreg(src))),
            Move::Copy { dst, src } if src % 2 == 1 => Ok(MemMove::RegToSlot(vreg(src), vreg(dst))),
            Move::Copy { dst, src } => Ok(MemMove::SlotToSlot(vreg(src), vreg(dst))),
            Move::Swap { .. } => Err("memory phis: unexpected swap".into()),
        })
        .collect()
}

/// The operand from `p` of the phi (among `phis`) defining `y`, if `y` is a phi result.
fn phi_operand(phis: &[(usize, &Inst)], y: VReg, p: BlockId) -> Option<VReg> {
    let (_, phi) = phis.iter().find(|(_, i)| i.def_vregs().any(|d| d == y))?;
    let i = phi.phi_blocks().iter().position(|&b| b == p)?;
    phi.uses[i].vreg()
}

/// Whether the value defined by `inst` can be recomputed anywhere instead of reloaded: a
/// single unpinned result computed from an immediate and physical registers only (the
/// zero register, the stack pointer), with no memory access or control.
pub fn is_rematerialisable(inst: &Inst) -> bool {
    if inst.defs.len() != 1 || inst.defs[0].pin.is_some() || inst.defs[0].vreg().is_none() {
        return false;
    }
    if inst
        .uses
        .iter()
        .any(|u| u.vreg().is_some() || u.pin.is_some())
        || !inst.flags.is_empty()
    {
        return false;
    }
    match inst.opc {
        Opc::St231(o) => {
            matches!(
                o,
                st231::Opcode::Add | st231::Opcode::Or | st231::Opcode::Sub
            ) && inst.uses.len() == 1
        }
        Opc::St120(o) => matches!(o, st120::Opcode::Make),
        _ => false,
    }
}

/// Applies the plan: slots, reload and store instructions, memory phis, then SSA
/// reconstruction of every value that got reload definitions.
fn apply_plan(
    f: &mut Function,
    c: RegClass,
    defs: &DefSites,
    plan: Plan,
    stats: &mut SsaRaStats,
) -> Result<(), String> {
    let t = f.target;
    let nv = f.vregs.len();
    let mut remat_of: Vec<Option<Inst>> = vec![None; nv];
    let mut slot: Vec<Option<FrameIdx>> = vec![None; nv];
    let memory_phi_results: Vec<VReg> = plan
        .memory_phis
        .iter()
        .map(|&(b, i)| f.block(b).insts[i].defs[0].vreg().expect("phi result"))
        .collect();
    for v in (0..nv).map(|i| VReg(i as u32)) {
        if !plan.in_memory[v.index()] && !memory_phi_results.contains(&v) {
            continue;
        }
        let def = defs.site[v.index()].map(|(b, i)| &f.block(b).insts[i]);
        match def {
            Some(d) if is_rematerialisable(d) && !memory_phi_results.contains(&v) => {
                remat_of[v.index()] = Some(d.clone());
            }
            _ => slot[v.index()] = Some(spill::new_slot(f, v)),
        }
    }
    let mut ins: Vec<Insertion> = Vec::new();
    // Spill stores right after the definitions of values in memory.
    for v in (0..nv).map(|i| VReg(i as u32)) {
        let Some(s) = slot[v.index()] else { continue };
        if memory_phi_results.contains(&v) {
            continue;
        }
        let Some((b, i)) = defs.site[v.index()] else {
            return Err(format!("spiller: {v} is used but never defined"));
        };
        let block = f.block(b);
        let after = if block.insts[i].is_phi() {
            block.phi_end()
        } else {
            i + 1
        };
        ins.push(Insertion {
            block: b,
            before: after,
            rank: 0,
            inst: spill::spill_store(t, c, v, s)?.with_flags(InstFlags::INSERTED),
        });
        stats.spill_stores += 1;
    }
    // Reloads (new vregs, reconstructed below).
    let mut recon = Reconstruction::new();
    let reload_inst = |f: &mut Function, v: VReg, stats: &mut SsaRaStats| -> Result<Inst, String> {
        let nv = f.new_vreg(c);
        if let Some(d) = &remat_of[v.index()] {
            let mut i = d.clone();
            i.defs[0] = Operand::new(nv);
            i.flags |= InstFlags::REMAT | InstFlags::INSERTED;
            stats.remats += 1;
            Ok(i)
        } else {
            let s = slot[v.index()].ok_or_else(|| format!("spiller: {v} has no slot"))?;
            stats.reloads += 1;
            Ok(spill::spill_load(f.target, c, nv, s)?.with_flags(InstFlags::INSERTED))
        }
    };
    for &(b, before, rank, v) in &plan.reloads {
        let inst = reload_inst(f, v, stats)?;
        recon.add_definition(inst.defs[0].vreg().expect("reload result"), v);
        ins.push(Insertion {
            block: b,
            before,
            rank,
            inst,
        });
    }
    // Reloads into pinned registers: read only by their operand (not reconstructed).
    for &(b, idx, j, v, p) in &plan.pinned_reloads {
        let mut inst = reload_inst(f, v, stats)?;
        let r = inst.defs[0].vreg().expect("reload result");
        inst.defs[0].pin = Some(crate::mir::Pin::Phys(p));
        f.block_mut(b).insts[idx].uses[j].reg = r.into();
        ins.push(Insertion {
            block: b,
            before: idx,
            rank: RANK_USE_RELOAD,
            inst,
        });
    }
    let mut temp: Option<VReg> = None;
    for &(p, before, m) in &plan.mem_moves {
        let slot_of = |y: VReg| slot[y.index()].ok_or_else(|| format!("spiller: {y} has no slot"));
        let mut push = |inst: Inst| {
            ins.push(Insertion {
                block: p,
                before,
                rank: RANK_PHI_STORE,
                inst,
            })
        };
        match m {
            MemMove::RegToSlot(x, y) => {
                push(spill::spill_store(t, c, x, slot_of(y)?)?.with_flags(InstFlags::INSERTED));
                stats.spill_stores += 1;
            }
            MemMove::SlotToSlot(x, y) => {
                let load = reload_inst(f, x, stats)?;
                let tv = load.defs[0].vreg().expect("temp");
                push(load);
                push(spill::spill_store(t, c, tv, slot_of(y)?)?.with_flags(InstFlags::INSERTED));
                stats.spill_stores += 1;
            }
            MemMove::SlotToTemp(x) => {
                let load = reload_inst(f, x, stats)?;
                temp = load.defs[0].vreg();
                push(load);
            }
            MemMove::SlotToReg(x, from) => {
                let load = reload_inst(f, from, stats)?;
                recon.add_definition(load.defs[0].vreg().expect("reload result"), x);
                push(load);
            }
            MemMove::TempToSlot(y) => {
                let tv = temp.ok_or("memory phis: temporary used before it is loaded")?;
                push(spill::spill_store(t, c, tv, slot_of(y)?)?.with_flags(InstFlags::INSERTED));
                stats.spill_stores += 1;
            }
        }
    }
    stats.memory_phis += plan.memory_phis.len() as u64;
    // Memory phis disappear (their blocks' indices shift, so remove them after insertion).
    insert_all(f, ins);
    remove_memory_phis(f, &memory_phi_results);
    for v in memory_phi_results {
        recon.forget_original(v);
    }
    stats.reconstruct_phis += recon.run(f)? as u64;
    Ok(())
}

/// Inserts every planned instruction, keeping the order (before index, rank, plan order).
fn insert_all(f: &mut Function, mut ins: Vec<Insertion>) {
    ins.sort_by_key(|i| (i.block, i.before, i.rank));
    let mut it = ins.into_iter().peekable();
    while let Some(first) = it.peek() {
        let b = first.block;
        let old = std::mem::take(&mut f.block_mut(b).insts);
        let mut out = Vec::with_capacity(old.len() + 4);
        for (k, inst) in old.into_iter().enumerate() {
            while let Some(i) = it.next_if(|i| i.block == b && i.before == k) {
                out.push(i.inst);
            }
            out.push(inst);
        }
        while let Some(i) = it.next_if(|i| i.block == b) {
            out.push(i.inst);
        }
        f.block_mut(b).insts = out;
    }
}

fn remove_memory_phis(f: &mut Function, results: &[VReg]) {
    if results.is_empty() {
        return;
    }
    for block in &mut f.blocks {
        block
            .insts
            .retain(|i| !(i.is_phi() && i.def_vregs().any(|d| results.contains(&d))));
    }
}
