//! Parallel Copy Motion: **Edge Motion** (`pcm-edge`) and **Block Motion** (`pcm-block`),
//! after Bouchez, Colombet, Darte, Rastello & Guillon ("Parallel copy motion", SCOPES 2010)
//! as Brandner & Colombet (RR-7735, 2011) summarise it in §2.3, and as §4 uses it: the
//! parallel copies that the register assignment leaves at phis (`ssa-destruct` puts one at
//! the end of each predecessor of a phi block, splitting the edges from blocks with several
//! successors) are turned into register **permutations** ([`Perm::from_parcopy`]); a
//! permutation costs only its projection onto the registers live where it stands
//! ([`Perm::cost`]).
//!
//! **Edge Motion** works on the permutations of the edges around one block:
//! * into a merge block `v` (every predecessor `p_i` has `v` as its only successor and
//!   carries the permutation `P_i`, the identity when it has no copy): a permutation `Q` at
//!   the head of `v` leaves `R_i = P_i ; Q⁻¹` on each edge (`R_i` then `Q` is `P_i`). With
//!   `Q = P_j` the edge `j` becomes the identity and the others cancel where they agree;
//! * out of a branch block `u` (every successor `s_i` has `u` as its only predecessor):
//!   `Q` at the end of `u` (fixing the registers its branch reads) leaves `R_i = Q⁻¹ ; P_i`
//!   at the head of `s_i`.
//!
//! Candidates are the identity (no change) and each `P_j`; the choice minimises
//! `Σ 5^depth × (copies of the projection)` and is applied only when strictly cheaper. The
//! merge blocks are treated first (one liveness), then the branch blocks (a fresh one):
//! each treatment keeps the liveness at the other blocks' boundaries, so one liveness per
//! phase is exact.
//!
//! **Block Motion** places each parallel copy of a block (those Edge Motion put at block
//! heads, the phi copies at block ends, the Perms in front of constrained instructions) at
//! the point between its neighbouring non-renamable instructions
//! ([`super::renamable`]) where its projection onto the live registers has the fewest
//! copies: moving a permutation `π` up past an instruction renames that instruction's
//! registers by `π`, moving it down renames by `π⁻¹`, so the values every live register
//! holds are unchanged at both ends of the range (ties keep the copy where it is).
//!
//! Preconditions: `Form::Allocated` with parallel copies (after `ssa-destruct`, before
//! `seq-parcopy`). A parallel copy that is not a permutation on the live registers (a value
//! duplicated, a register outside the budget, ST231 branch registers) stays where it is.
//! Complexity: Edge Motion O(instructions + Σ edges × candidates × registers), candidates ≤
//! edges of the block (capped at [`MAX_CANDIDATES`]); Block Motion O(instructions ×
//! registers): the motion ranges of a block's copies are disjoint.

use super::{count_copies, live_after_each, live_in_out, renamable, rename, transfer, Perm, Regs};
use crate::mir::cfg::CfgInfo;
use crate::mir::{BlockId, Function, Inst, Opc, Reg};
use crate::pipeline::PassDetail;
use crate::regalloc::ssa::Budget;
use crate::regalloc::RegallocOptions;

/// At most this many candidate permutations per block (the others are not tried; counted in
/// `candidates_capped`).
pub const MAX_CANDIDATES: usize = 16;

#[derive(Default)]
struct EdgeStats {
    into_blocks: u64,
    out_of_blocks: u64,
    candidates_capped: u64,
}

/// What Edge Motion reads about the function: the CFG, block weights, registers live on
/// entry to each block (recomputed between the two directions) and the register budget.
struct EdgeContext {
    preds: Vec<Vec<BlockId>>,
    succs: Vec<Vec<BlockId>>,
    weights: Vec<u64>,
    live_in: Vec<Regs>,
    budget: Budget,
}

/// The `pcm-edge` pass.
pub fn edge_motion(f: &mut Function, opts: &RegallocOptions) -> Result<PassDetail, String> {
    let (copies_before, cost_before) = count_copies(f);
    let mut st = EdgeStats::default();
    let info = CfgInfo::compute(f);
    let order: Vec<BlockId> = info.rpo().collect();
    let mut cx = EdgeContext {
        preds: f.predecessors(),
        succs: f.successors(),
        weights: f.block_ids().map(|b| info.weight(b)).collect(),
        live_in: live_in_out(f).0,
        budget: Budget::new(f.target, opts),
    };
    for &v in &order {
        if motion_into(f, v, &cx, &mut st) {
            st.into_blocks += 1;
        }
    }
    cx.live_in = live_in_out(f).0;
    for &u in &order {
        if motion_out_of(f, u, &cx, &mut st) {
            st.out_of_blocks += 1;
        }
    }
    let (copies_after, cost_after) = count_copies(f);
    Ok(vec![
        ("copies_before", copies_before),
        ("copies_after", copies_after),
        ("weighted_before", cost_before),
        ("weighted_after", cost_after),
        ("moved_into_blocks", st.into_blocks),
        ("moved_out_of_blocks", st.out_of_blocks),
        ("candidates_capped", st.candidates_capped),
    ])
}

/// The index of the parallel copy right before the terminators of `insts`, if any.
fn tail_copy(insts: &[Inst], terminator_start: usize) -> Option<usize> {
    let k = terminator_start.checked_sub(1)?;
    (insts[k].opc == Opc::ParCopy).then_some(k)
}

/// The registers the terminators of `b` read or write.
fn terminator_regs(f: &Function, b: BlockId) -> Regs {
    let blk = f.block(b);
    let mut r = Regs::default();
    for i in &blk.insts[blk.terminator_start()..] {
        for o in i.defs.iter().chain(&i.uses) {
            if let Reg::P(p) = o.reg {
                r.add(p);
            }
        }
    }
    r
}

/// The distinct non-identity permutations among `perms`, at most [`MAX_CANDIDATES`].
fn candidates(perms: &[Perm], st: &mut EdgeStats) -> Vec<Perm> {
    let mut out: Vec<Perm> = Vec::new();
    for p in perms {
        if p.is_identity() || out.contains(p) {
            continue;
        }
        if out.len() == MAX_CANDIDATES {
            st.candidates_capped += 1;
            break;
        }
        out.push(p.clone());
    }
    out
}

/// Edge Motion into the merge block `v`; tells whether something moved.
fn motion_into(f: &mut Function, v: BlockId, cx: &EdgeContext, st: &mut EdgeStats) -> bool {
    let (preds, succs, w, live_in, budget) =
        (&cx.preds, &cx.succs, &cx.weights, &cx.live_in, &cx.budget);
    let ps = &preds[v.index()];
    if v.index() == 0 || ps.len() < 2 {
        return false;
    }
    let l = live_in[v.index()];
    let mut edges: Vec<(BlockId, Option<usize>, Perm)> = Vec::new();
    for &p in ps {
        if p == v || succs[p.index()].as_slice() != [v] || terminator_regs(f, p) != Regs::default()
        {
            return false;
        }
        let blk = f.block(p);
        match tail_copy(&blk.insts, blk.terminator_start()) {
            Some(k) => match Perm::from_parcopy(f.target, &blk.insts[k], &l, budget) {
                Some(perm) => edges.push((p, Some(k), perm)),
                None => return false,
            },
            None => edges.push((p, None, Perm::identity())),
        }
    }
    let current: u64 = edges
        .iter()
        .map(|(p, _, e)| w[p.index()] * e.cost(&l))
        .sum();
    let perms: Vec<Perm> = edges.iter().map(|e| e.2.clone()).collect();
    let mut best: Option<(u64, Perm)> = None;
    for q in candidates(&perms, st) {
        let qinv = q.inverse();
        let before_q = l.map(&qinv);
        let mut cost = w[v.index()] * q.cost(&l);
        for (p, _, e) in &edges {
            cost += w[p.index()] * e.then(&qinv).cost(&before_q);
        }
        if cost < best.as_ref().map_or(current, |b| b.0) {
            best = Some((cost, q));
        }
    }
    let Some((_, q)) = best else { return false };
    let qinv = q.inverse();
    let before_q = l.map(&qinv);
    for (p, k, e) in &edges {
        let r = e.then(&qinv);
        let blk = f.block_mut(*p);
        if let Some(k) = k {
            blk.insts.remove(*k);
        }
        if let Some(pc) = r.to_parcopy(&before_q) {
            let at = blk.terminator_start();
            blk.insts.insert(at, pc);
        }
    }
    if let Some(pc) = q.to_parcopy(&l) {
        f.block_mut(v).insts.insert(0, pc);
    }
    true
}

/// Edge Motion out of the branch block `u`; tells whether something moved.
fn motion_out_of(f: &mut Function, u: BlockId, cx: &EdgeContext, st: &mut EdgeStats) -> bool {
    let (preds, succs, w, live_in, budget) =
        (&cx.preds, &cx.succs, &cx.weights, &cx.live_in, &cx.budget);
    let ss = &succs[u.index()];
    if ss.len() < 2 {
        return false;
    }
    let t = f.target;
    // (successor, has a head copy, its permutation, live after it)
    let mut edges: Vec<(BlockId, bool, Perm, Regs)> = Vec::new();
    for &s in ss {
        if s == u || preds[s.index()].as_slice() != [u] {
            return false;
        }
        let blk = f.block(s);
        if blk.insts.first().is_some_and(|i| i.opc == Opc::ParCopy) {
            let after = live_after_each(t, &blk.insts[..1], &live_after_head(f, s, live_in));
            match Perm::from_parcopy(t, &blk.insts[0], &after[0], budget) {
                Some(perm) => edges.push((s, true, perm, after[0])),
                None => return false,
            }
        } else {
            edges.push((s, false, Perm::identity(), live_in[s.index()]));
        }
    }
    let fixed = terminator_regs(f, u);
    let term_uses = {
        let blk = f.block(u);
        let mut r = Regs::default();
        for i in &blk.insts[blk.terminator_start()..] {
            for o in &i.uses {
                if let Reg::P(p) = o.reg {
                    r.add(p);
                }
            }
        }
        r
    };
    let current: u64 = edges
        .iter()
        .map(|(s, _, e, a)| w[s.index()] * e.cost(a))
        .sum();
    let perms: Vec<Perm> = edges.iter().map(|e| e.2.clone()).collect();
    let mut best: Option<(u64, Perm, Regs)> = None;
    for q in candidates(&perms, st) {
        if fixed.iter().any(|r| q.apply(r) != r) {
            continue;
        }
        let qinv = q.inverse();
        let mut cost = 0;
        let mut after_q = term_uses;
        for (s, _, e, a) in &edges {
            let r = qinv.then(e);
            cost += w[s.index()] * r.cost(a);
            after_q.union(&a.map(&r.inverse()));
        }
        cost += w[u.index()] * q.cost(&after_q);
        if cost < best.as_ref().map_or(current, |b| b.0) {
            best = Some((cost, q, after_q));
        }
    }
    let Some((_, q, after_q)) = best else {
        return false;
    };
    let qinv = q.inverse();
    for (s, had, e, a) in &edges {
        let r = qinv.then(e);
        let blk = f.block_mut(*s);
        if *had {
            blk.insts.remove(0);
        }
        if let Some(pc) = r.to_parcopy(a) {
            blk.insts.insert(0, pc);
        }
    }
    if let Some(pc) = q.to_parcopy(&after_q) {
        let blk = f.block_mut(u);
        let at = blk.terminator_start();
        blk.insts.insert(at, pc);
    }
    true
}

/// The registers live after the first instruction of `s`.
fn live_after_head(f: &Function, s: BlockId, live_in: &[Regs]) -> Regs {
    // Backward from the block's end: the live-out is the union of the successors' live-in.
    let blk = f.block(s);
    let mut out = Regs::default();
    for x in blk.successors() {
        out.union(&live_in[x.index()]);
    }
    let after = live_after_each(f.target, &blk.insts, &out);
    after.first().copied().unwrap_or(out)
}

/// The `pcm-block` pass.
pub fn block_motion(f: &mut Function, opts: &RegallocOptions) -> Result<PassDetail, String> {
    let budget = Budget::new(f.target, opts);
    let (copies_before, cost_before) = count_copies(f);
    let (_, live_out) = live_in_out(f);
    let t = f.target;
    let marked = super::is_marked(f);
    let mut moved = 0u64;
    let mut renamed = 0u64;
    for (b, lo) in f.blocks.iter_mut().zip(&live_out) {
        if !b.insts.iter().any(|i| i.opc == Opc::ParCopy) {
            continue;
        }
        let insts = std::mem::take(&mut b.insts);
        let (out, m, r) = block_motion_in_block(t, &budget, insts, lo, marked);
        b.insts = out;
        moved += m;
        renamed += r;
    }
    let (copies_after, cost_after) = count_copies(f);
    Ok(vec![
        ("copies_before", copies_before),
        ("copies_after", copies_after),
        ("weighted_before", cost_before),
        ("weighted_after", cost_after),
        ("copies_moved", moved),
        ("insts_renamed", renamed),
    ])
}

/// One instruction of a block being rebuilt, or a permutation still to project.
enum Item {
    I(Inst),
    P(Perm),
}

/// Block Motion in one block: returns the new instructions, the number of copies moved and
/// of instructions renamed.
fn block_motion_in_block(
    t: simulator::isa::Target,
    budget: &Budget,
    insts: Vec<Inst>,
    live_out: &Regs,
    marked: bool,
) -> (Vec<Inst>, u64, u64) {
    let n = insts.len();
    let after = live_after_each(t, &insts, live_out);
    let before: Vec<Regs> = (0..n)
        .map(|k| {
            let mut l = after[k];
            transfer(t, &insts[k], &mut l);
            l
        })
        .collect();
    // Decisions: (copy index, new position, permutation). Position q < k: before
    // instruction q; q > k: after instruction q.
    let mut decisions: Vec<(usize, usize, Perm)> = Vec::new();
    // The first position the next copy may move up to: the instructions a previous copy
    // moved past (down) are not renamed twice.
    let mut floor = 0;
    for k in 0..n {
        if insts[k].opc != Opc::ParCopy {
            continue;
        }
        let Some(pi) = Perm::from_parcopy(t, &insts[k], &after[k], budget) else {
            continue;
        };
        let mut lo = k;
        while lo > floor && renamable(t, &insts[lo - 1], marked) {
            lo -= 1;
        }
        let mut hi = k;
        while hi + 1 < n && renamable(t, &insts[hi + 1], marked) {
            hi += 1;
        }
        let moved_at = |l: &Regs| l.iter().filter(|&r| pi.apply(r) != r).count() as u64;
        let mut best = (pi.cost(&after[k]), k);
        for (q, b) in before.iter().enumerate().take(k).skip(lo) {
            let c = moved_at(b);
            if c < best.0 {
                best = (c, q);
            }
        }
        for (q, a) in after.iter().enumerate().take(hi + 1).skip(k + 1) {
            let c = pi.cost(a);
            if c < best.0 {
                best = (c, q);
            }
        }
        floor = if best.1 > k { best.1 + 1 } else { k + 1 };
        if best.1 != k {
            decisions.push((k, best.1, pi));
        }
    }
    if decisions.is_empty() {
        return (insts, 0, 0);
    }
    let moved = decisions.len() as u64;
    let mut renamed = 0u64;
    let mut rename_by: Vec<Option<Perm>> = vec![None; n];
    let mut put_before: Vec<Vec<Perm>> = vec![Vec::new(); n + 1];
    let mut drop = vec![false; n];
    for (k, q, pi) in decisions {
        drop[k] = true;
        if q < k {
            for r in rename_by.iter_mut().take(k).skip(q) {
                *r = Some(pi.clone());
            }
            put_before[q].push(pi);
        } else {
            let inv = pi.inverse();
            for r in rename_by.iter_mut().take(q + 1).skip(k + 1) {
                *r = Some(inv.clone());
            }
            put_before[q + 1].push(pi);
        }
    }
    let mut items: Vec<Item> = Vec::with_capacity(n + 2);
    for (k, mut inst) in insts.into_iter().enumerate() {
        for p in std::mem::take(&mut put_before[k]) {
            push_perm(&mut items, p);
        }
        if drop[k] {
            continue;
        }
        if let Some(p) = &rename_by[k] {
            rename(&mut inst, p);
            renamed += 1;
        }
        items.push(Item::I(inst));
    }
    for p in std::mem::take(&mut put_before[n]) {
        push_perm(&mut items, p);
    }
    // Project each permutation onto the registers live after it, backwards.
    let mut cur = *live_out;
    let mut out_rev: Vec<Inst> = Vec::with_capacity(items.len());
    for item in items.into_iter().rev() {
        match item {
            Item::I(inst) => {
                transfer(t, &inst, &mut cur);
                out_rev.push(inst);
            }
            Item::P(p) => {
                if let Some(pc) = p.to_parcopy(&cur) {
                    out_rev.push(pc);
                }
                cur = cur.map(&p.inverse());
            }
        }
    }
    out_rev.reverse();
    (out_rev, moved, renamed)
}

/// Appends a permutation; two adjacent ones combine into one (Block Motion's cancelling:
/// the projection of the composition never has more copies than the two projections).
fn push_perm(items: &mut Vec<Item>, p: Perm) {
    if let Some(Item::P(prev)) = items.last_mut() {
        *prev = prev.then(&p);
        return;
    }
    items.push(Item::P(p));
}
