//! Repeated aggressive coalescing of copies outside register allocation — the pass "C" of
//! Rastello, de Ferrière and Guillon, "Optimizing translation out of SSA using renaming
//! constraints" (LIP RR-2005-34), §5 ("a repeated register coalescer [...] outside of the
//! register allocation context like here, it is an aggressive coalescing that does not take
//! care of the colorability of the interference graph"); interference with Chaitin's copy
//! rule (Chaitin 1982; George & Appel 1996 §2: the source and the destination of a copy do
//! not interfere through that copy — they hold the same value there).
//!
//! # One round
//! 1. Liveness of all vregs ([`crate::regalloc::liveness`], read-only reuse: guarded defs
//!    are partial and count as reads).
//! 2. [`build_graph`]: a backward scan of every block; at each write of `d`, `d` interferes
//!    with every vreg of its class live after the instruction, except the source of an
//!    unguarded copy `d := s` (the copy rule); the defs of one instruction interfere with each
//!    other. It also records, for every vreg, the registers of its class it must not occupy:
//!    those a call clobbers while the vreg is live across it, and physical registers written
//!    while it is live (`forbidden`).
//! 3. [`coalesce_copies`]: the unguarded copies `d := s` between vregs, by decreasing weight
//!    `5^loop depth` (ties: program order), are coalesced when `d` and `s` (their current
//!    classes) do not interfere and the pins allow it: two different physical pins never
//!    merge; a pinned and an unpinned class merge into the pinned one, provided the merged
//!    class does not interfere with another class pinned to the same register and the
//!    register is not forbidden for it (so precolouring stays feasible, as the allocation
//!    form requires). Interference of a merged class is the union of its parts'.
//! 4. [`rewrite`]: every operand (and `Pin::Var`) renamed to its class's name (the pinned
//!    member if any, else the root), and copies that became self-copies deleted.
//!
//! Rounds repeat until one coalesces nothing (or [`MAX_ROUNDS`]): rebuilding the graph on
//! the rewritten code can expose new opportunities (the union of interferences is
//! conservative).
//!
//! # Preconditions / result
//! Allocation form (`docs/design.md`): no phi, psi or parallel copy. The result is in
//! allocation form too: every vreg carrying a `Pin::Phys(r)` can be precoloured `r` (no two
//! classes pinned to `r` interfere, none is live across a clobber of `r`); tied uses still
//! read their def's vreg (renamed together). Colourability is ignored on purpose.
//!
//! # Complexity
//! Per round O(instructions × live) to build the graph (edges in hash sets, capped at
//! [`MAX_EDGES`]: above it the round is abandoned and nothing is coalesced — counted as
//! `graph_cap`), O(copies × degree) to coalesce, O(operands) to rewrite.

use crate::mir::cfg::CfgInfo;
use crate::mir::{target, Control, Function, InstFlags, Opc, PReg, Pin, Reg, VReg};
use crate::pipeline::PassDetail;
use crate::regalloc::fasthash::{FastMap, FastSet};
use crate::regalloc::interference::pins;
use crate::regalloc::liveness::{for_each_kill, for_each_read, Liveness};

/// At most this many rounds.
pub const MAX_ROUNDS: u32 = 16;
/// Interference edges per round above which the round is abandoned.
pub const MAX_EDGES: usize = 4_000_000;

/// What the pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub rounds: u64,
    /// Pairs of classes merged.
    pub merges: u64,
    /// Copies deleted because they became self-copies.
    pub copies_removed: u64,
    /// Copies left because their ends interfere, or because of pins.
    pub blocked_interference: u64,
    pub blocked_pins: u64,
    /// Rounds abandoned at the edge cap.
    pub graph_cap: u64,
}

impl Stats {
    pub fn detail(&self) -> PassDetail {
        vec![
            ("coalesce_rounds", self.rounds),
            ("coalesce_merges", self.merges),
            ("copies_removed", self.copies_removed),
            ("blocked_interference", self.blocked_interference),
            ("blocked_pins", self.blocked_pins),
            ("graph_cap", self.graph_cap),
        ]
    }
}

/// The pass entry point (configuration suffix `+C`).
pub fn run(f: &mut Function) -> Result<PassDetail, String> {
    Ok(coalesce(f)?.detail())
}

/// Same as [`run`], with the statistics as a struct.
pub fn coalesce(f: &mut Function) -> Result<Stats, String> {
    coalesce_with(f, |_| 0).map(|(s, _)| s)
}

/// The rounds of [`coalesce`], with `precolour` applied to each round's fresh graph before
/// the copies are coalesced (the Chaitin variant folds every register's pinned vregs into one
/// node there, [`super::chaitin`]); returns the statistics and the sum of what `precolour`
/// returned.
pub(super) fn coalesce_with(
    f: &mut Function,
    precolour: impl FnMut(&mut Graph) -> u64,
) -> Result<(Stats, u64), String> {
    coalesce_named(f, precolour, None)
}

/// [`coalesce`], recording in `class` the vreg each input vreg was renamed to (equal
/// entries: one coalesced web), for `viz` (issue 26). The result is the same as without.
pub fn coalesce_traced(f: &mut Function, class: &mut Vec<VReg>) -> Result<Stats, String> {
    coalesce_named(f, |_| 0, Some(class)).map(|(s, _)| s)
}

/// [`coalesce_with`]; with `class`, the final name of every input vreg.
pub(super) fn coalesce_named(
    f: &mut Function,
    mut precolour: impl FnMut(&mut Graph) -> u64,
    mut class: Option<&mut Vec<VReg>>,
) -> Result<(Stats, u64), String> {
    if let Some(c) = class.as_deref_mut() {
        *c = (0..f.vregs.len() as u32).map(VReg).collect();
    }
    let (nb, nv) = (f.blocks.len(), f.vregs.len());
    for (bi, b) in f.blocks.iter().enumerate() {
        for i in &b.insts {
            let bad = i.defs.iter().chain(&i.uses).any(|o| {
                o.vreg().is_some_and(|v| v.index() >= nv)
                    || matches!(o.pin, Some(Pin::Var(v)) if v.index() >= nv)
            }) || i.branch_target().is_some_and(|t| t.index() >= nb);
            if bad {
                return Err(format!(
                    "coalesce: @{} b{bi}: an operand without a class or a branch to a missing block",
                    f.name
                ));
            }
        }
        if let Some(i) = b
            .insts
            .iter()
            .find(|i| matches!(i.opc, Opc::Phi | Opc::Psi | Opc::ParCopy))
        {
            return Err(format!(
                "coalesce: @{} b{bi}: {:?} left: the input must be in allocation form",
                f.name, i.opc
            ));
        }
    }
    let cfg = CfgInfo::compute(f);
    let mut stats = Stats::default();
    let mut folded = 0;
    for _ in 0..MAX_ROUNDS {
        stats.rounds += 1;
        let Some(mut g) = build_graph(f)? else {
            stats.graph_cap += 1;
            break;
        };
        folded += precolour(&mut g);
        let mut last = Stats::default();
        coalesce_copies(f, &cfg, &mut g, &mut last);
        stats.blocked_interference = last.blocked_interference;
        stats.blocked_pins = last.blocked_pins;
        if last.merges == 0 {
            break;
        }
        stats.merges += last.merges;
        if let Some(c) = class.as_deref_mut() {
            // A round renames every vreg to its root: compose with the earlier rounds.
            for v in c.iter_mut() {
                *v = VReg(g.find(v.0));
            }
        }
        stats.copies_removed += rewrite(f, &mut g);
    }
    Ok((stats, folded))
}

/// The interference graph and the coalescing state over vreg indices (union-find).
pub(super) struct Graph {
    parent: Vec<u32>,
    /// Neighbours of each root (roots only, kept up to date on merges).
    adj: Vec<FastSet<u32>>,
    pub(super) pin: Vec<Option<PReg>>,
    /// Register numbers (of the vreg's class) the class must not occupy.
    forbidden: Vec<u64>,
    /// `(root, r)` ↦ how many neighbours of `root` are pinned to `r` (absent: none), kept
    /// up to date by [`Graph::add_edge`] and [`Graph::merge`], so that the pin test of a
    /// merge is O(1) instead of a scan of both neighbour sets (quadratic on a class pinned
    /// to a register that many merges grow, issue 27).
    pinned_nbrs: FastMap<(u32, PReg), u32>,
}

impl Graph {
    pub(super) fn find(&mut self, v: u32) -> u32 {
        let mut r = v;
        while self.parent[r as usize] != r {
            r = self.parent[r as usize];
        }
        let mut x = v;
        while self.parent[x as usize] != r {
            let next = self.parent[x as usize];
            self.parent[x as usize] = r;
            x = next;
        }
        r
    }

    fn add_edge(&mut self, a: u32, b: u32) {
        if a != b && self.adj[a as usize].insert(b) {
            self.adj[b as usize].insert(a);
            self.count_pinned_neighbour(a, b, 1);
            self.count_pinned_neighbour(b, a, 1);
        }
    }

    /// Adds `delta` to the count of `x`'s neighbours pinned to `n`'s register, if `n` is
    /// pinned.
    fn count_pinned_neighbour(&mut self, x: u32, n: u32, delta: i32) {
        if let Some(r) = self.pin[n as usize] {
            let c = self.pinned_nbrs.entry((x, r)).or_insert(0);
            *c = c.checked_add_signed(delta).expect("pinned-neighbour count");
        }
    }

    /// True if some neighbour of `a` or `b` is pinned to `r`.
    fn neighbour_pinned(&self, a: u32, b: u32, r: PReg) -> bool {
        let has = |x: u32| self.pinned_nbrs.get(&(x, r)).is_some_and(|&c| c > 0);
        has(a) || has(b)
    }

    /// Merges root `from` into root `into` (an edge between them disappears: only register
    /// nodes, [`super::chaitin`], merge interfering vregs — all of them are the register).
    pub(super) fn merge(&mut self, into: u32, from: u32) {
        self.parent[from as usize] = into;
        if self.pin[into as usize].is_none() && self.pin[from as usize].is_some() {
            // `into` takes `from`'s pin: its own neighbours now have one more pinned one.
            self.pin[into as usize] = self.pin[from as usize];
            let old: Vec<u32> = self.adj[into as usize].iter().copied().collect();
            for n in old {
                self.count_pinned_neighbour(n, into, 1);
            }
        }
        let moved = std::mem::take(&mut self.adj[from as usize]);
        for n in moved {
            self.count_pinned_neighbour(n, from, -1);
            if n == into {
                self.adj[into as usize].remove(&from);
                continue;
            }
            self.adj[n as usize].remove(&from);
            if self.adj[n as usize].insert(into) {
                self.adj[into as usize].insert(n);
                self.count_pinned_neighbour(n, into, 1);
                self.count_pinned_neighbour(into, n, 1);
            }
        }
        self.forbidden[into as usize] |= self.forbidden[from as usize];
    }
}

fn bit(r: PReg) -> u64 {
    1u64 << (r.num % 64)
}

/// Liveness + backward scan; `None` above the edge cap.
fn build_graph(f: &Function) -> Result<Option<Graph>, String> {
    let nv = f.vregs.len();
    let mut g = Graph {
        parent: (0..nv as u32).collect(),
        adj: vec![FastSet::default(); nv],
        pin: pins(f).map_err(|e| format!("coalesce: {e}"))?,
        forbidden: vec![0; nv],
        pinned_nbrs: FastMap::default(),
    };
    let mut lv = Liveness::new();
    lv.compute(f, |_| true);
    let clobbers = target::call_clobbers(f.target);
    let mut edges = 0usize;
    let mut live: FastSet<u32> = FastSet::default();
    let mut defs: Vec<u32> = Vec::new();
    for (b, blk) in f.blocks.iter().enumerate() {
        live.clear();
        live.extend(lv.live_out(b).map(|v| v.0));
        for inst in blk.insts.iter().rev() {
            defs.clear();
            defs.extend(inst.def_vregs().map(|v| v.0));
            let copy_src = (inst.opc == Opc::Copy && !inst.flags.contains(InstFlags::GUARDED))
                .then(|| inst.uses.first().and_then(|o| o.vreg()))
                .flatten()
                .map(|v| v.0);
            // Registers written here that live vregs must not be in.
            let mut written: Vec<PReg> = inst.defs.iter().filter_map(|o| o.reg.preg()).collect();
            if inst.control() == Control::Call {
                written.extend_from_slice(clobbers);
            }
            for &v in &live {
                if defs.contains(&v) {
                    continue;
                }
                let c = f.class_of(VReg(v));
                for r in written.iter().filter(|r| r.class == c) {
                    g.forbidden[v as usize] |= bit(*r);
                }
            }
            for (k, &d) in defs.iter().enumerate() {
                let c = f.class_of(VReg(d));
                for &e in &defs[k + 1..] {
                    if f.class_of(VReg(e)) == c {
                        g.add_edge(d, e);
                    }
                }
                for &u in &live {
                    if u != d && Some(u) != copy_src && f.class_of(VReg(u)) == c {
                        g.add_edge(d, u);
                        edges += 1;
                    }
                }
                if edges > MAX_EDGES {
                    return Ok(None);
                }
            }
            for_each_kill(inst, |v| {
                live.remove(&v.0);
            });
            for_each_read(inst, |v| {
                live.insert(v.0);
            });
        }
    }
    Ok(Some(g))
}

/// One pass over the copies by decreasing weight; returns nothing, counts in `stats`.
fn coalesce_copies(f: &Function, cfg: &CfgInfo, g: &mut Graph, stats: &mut Stats) {
    let mut copies: Vec<(u64, u32, u32)> = Vec::new();
    for (b, blk) in f.blocks.iter().enumerate() {
        let w = cfg.weight(crate::mir::BlockId(b as u32));
        for i in &blk.insts {
            if i.opc != Opc::Copy || i.flags.contains(InstFlags::GUARDED) {
                continue;
            }
            if let (Some(d), Some(s)) = (
                i.defs.first().and_then(|o| o.vreg()),
                i.uses.first().and_then(|o| o.vreg()),
            ) {
                if d != s {
                    copies.push((w, d.0, s.0));
                }
            }
        }
    }
    copies.sort_by_key(|c| std::cmp::Reverse(c.0));
    for (_, d, s) in copies {
        let (a, b) = (g.find(d), g.find(s));
        if a == b {
            continue;
        }
        if g.adj[a as usize].contains(&b) {
            stats.blocked_interference += 1;
            continue;
        }
        let (pa, pb) = (g.pin[a as usize], g.pin[b as usize]);
        if pa.is_some() && pb.is_some() && pa != pb {
            stats.blocked_pins += 1;
            continue;
        }
        if let Some(r) = pa.or(pb) {
            let forbidden = (g.forbidden[a as usize] | g.forbidden[b as usize]) & bit(r) != 0;
            if forbidden || g.neighbour_pinned(a, b, r) {
                stats.blocked_pins += 1;
                continue;
            }
        }
        // The pinned class names the result; otherwise the one with more neighbours.
        let into_a =
            pa.is_some() || (pb.is_none() && g.adj[a as usize].len() >= g.adj[b as usize].len());
        if into_a {
            g.merge(a, b);
        } else {
            g.merge(b, a);
        }
        stats.merges += 1;
    }
}

/// Renames every operand to its class root and deletes self-copies; returns how many.
fn rewrite(f: &mut Function, g: &mut Graph) -> u64 {
    let mut removed = 0;
    for blk in &mut f.blocks {
        for inst in &mut blk.insts {
            for o in inst.defs.iter_mut().chain(inst.uses.iter_mut()) {
                if let Reg::V(v) = o.reg {
                    o.reg = Reg::V(VReg(g.find(v.0)));
                }
                if let Some(Pin::Var(v)) = o.pin {
                    o.pin = Some(Pin::Var(VReg(g.find(v.0))));
                }
            }
        }
        let before = blk.insts.len();
        blk.insts.retain(|i| {
            !(i.opc == Opc::Copy
                && !i.flags.contains(InstFlags::GUARDED)
                && i.defs.len() == 1
                && i.uses.len() == 1
                && i.defs[0].reg == i.uses[0].reg)
        });
        removed += (before - blk.insts.len()) as u64;
    }
    removed
}

#[cfg(test)]
mod tests;
