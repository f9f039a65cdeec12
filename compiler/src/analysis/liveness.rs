//! Liveness as sets: for every block, the values live on entry and on exit.
//!
//! Phi convention (the SSA book, ch. 9, and the *multiplexing mode* of ch. 21, Def. 21.1): a
//! phi's definition is at the entry of its block, so a phi-defined value is live-in of its
//! block; a phi argument is used at the *end of the corresponding predecessor*, so it is
//! live-out of that predecessor only (not of the other predecessors, not live-in of the phi's
//! block). Parameters are defined at the top of the entry block. The equations:
//!
//! ```text
//! LiveOut(B) = PhiUses(B) ∪ ⋃_{S ∈ succ(B)} (LiveIn(S) \ PhiDefs(S))
//! LiveIn(B)  = PhiDefs(B) ∪ UpwardExposed(B) ∪ (LiveOut(B) \ Defs(B))
//! ```
//!
//! Works on SSA and on non-SSA code (a value assigned several times simply has several
//! definitions).
//!
//! Two algorithms compute the same least solution (the tests check they agree):
//! * [`Liveness::compute_dataflow`] — the classic backward data-flow: a worklist over blocks
//!   (post-order first) with one bit set per block over the *non-local* values (values
//!   upward-exposed somewhere, phi arguments and phi results — every other value is used only
//!   after its definition in its own block and is never live at a block boundary). Cost per
//!   round O(blocks × tracked values / 64), a handful of rounds on structured code; memory
//!   O(blocks × tracked values) bits.
//! * [`Liveness::compute_by_exploration`] — per value, a backward walk from its uses to its
//!   definitions (the "path exploration" of the SSA book, ch. 9). Cost and memory
//!   O(total size of the live ranges): much cheaper on large functions, where most values are
//!   live in few blocks.
//!
//! [`Liveness::compute`] uses the data-flow while its bit matrices stay under
//! [`DENSE_LIMIT_BITS`] and exploration above. The result is stored the same way in both
//! cases: per block, the sorted list of live values; a membership query is a binary search.

use super::bitset::BitMatrix;
use super::cfg::{Cfg, NONE};
use crate::ir::{BlockId, Function, Op, Value};

/// Largest `blocks × tracked values` for which [`Liveness::compute`] uses bit matrices
/// (2 MiB per matrix).
pub const DENSE_LIMIT_BITS: usize = 1 << 24;

/// Live-in and live-out sets of every block, as sorted value lists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Liveness {
    in_start: Vec<u32>,
    in_list: Vec<Value>,
    out_start: Vec<u32>,
    out_list: Vec<Value>,
}

/// Local facts, as `(value, block)` pairs: upward-exposed uses, definitions (phis included),
/// phi definitions, and phi arguments (used at the end of the predecessor).
#[derive(Default)]
struct LocalFacts {
    upward: Vec<(u32, u32)>,
    defs: Vec<(u32, u32)>,
    phi_defs: Vec<(u32, u32)>,
    phi_uses: Vec<(u32, u32)>,
}

impl LocalFacts {
    /// One scan of the function; each pair is listed once.
    fn collect(f: &Function) -> Self {
        let nv = f.num_values();
        let nb = f.num_blocks() as u32;
        let mut facts = LocalFacts::default();
        // Last block where a value was seen defined / recorded as upward-exposed.
        let (mut defined_in, mut upward_in) = (vec![NONE; nv], vec![NONE; nv]);
        let mut phi_use_in = vec![NONE; nv];
        for p in &f.params {
            if defined_in[p.index()] != 0 {
                defined_in[p.index()] = 0;
                facts.defs.push((p.0, 0));
            }
        }
        for (b, block) in f.blocks.iter().enumerate() {
            let b = b as u32;
            for inst in &block.insts {
                if let Op::Phi(args) = &inst.op {
                    for &(pred, v) in args {
                        // An argument from a missing block cannot be live anywhere.
                        if pred.0 < nb && phi_use_in[v.index()] != pred.0 {
                            phi_use_in[v.index()] = pred.0;
                            facts.phi_uses.push((v.0, pred.0));
                        }
                    }
                    if let Some(d) = inst.dst {
                        facts.phi_defs.push((d.0, b));
                    }
                } else {
                    inst.op.for_each_use(|v| {
                        if defined_in[v.index()] != b && upward_in[v.index()] != b {
                            upward_in[v.index()] = b;
                            facts.upward.push((v.0, b));
                        }
                    });
                }
                if let Some(d) = inst.dst {
                    if defined_in[d.index()] != b {
                        defined_in[d.index()] = b;
                        facts.defs.push((d.0, b));
                    }
                }
            }
            block.term.for_each_use(|v| {
                if defined_in[v.index()] != b && upward_in[v.index()] != b {
                    upward_in[v.index()] = b;
                    facts.upward.push((v.0, b));
                }
            });
        }
        // Phi arguments were deduplicated per (value, predecessor) only when consecutive.
        facts.phi_uses.sort_unstable();
        facts.phi_uses.dedup();
        facts
    }
}

/// `(key, item)` pairs grouped by key, items in input order.
struct Grouped {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Grouped {
    fn new(keys: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> Self {
        let mut start = vec![0u32; keys + 1];
        for (k, _) in pairs.clone() {
            start[k as usize + 1] += 1;
        }
        for k in 0..keys {
            start[k + 1] += start[k];
        }
        let mut cursor = start[..keys].to_vec();
        let mut items = vec![0u32; start[keys] as usize];
        for (k, x) in pairs {
            items[cursor[k as usize] as usize] = x;
            cursor[k as usize] += 1;
        }
        Grouped { start, items }
    }

    fn of(&self, k: usize) -> &[u32] {
        &self.items[self.start[k] as usize..self.start[k + 1] as usize]
    }
}

impl Liveness {
    /// Computes liveness, by data-flow on small functions and by exploration on large ones.
    pub fn compute(f: &Function, cfg: &Cfg) -> Self {
        let facts = LocalFacts::collect(f);
        let tracked = tracked_values(f.num_values(), &facts);
        if f.num_blocks().saturating_mul(tracked.len()) <= DENSE_LIMIT_BITS {
            Self::dataflow(f, cfg, &facts, &tracked)
        } else {
            Self::exploration(f, cfg, &facts)
        }
    }

    /// The backward data-flow algorithm over bit sets (see the module doc).
    pub fn compute_dataflow(f: &Function, cfg: &Cfg) -> Self {
        let facts = LocalFacts::collect(f);
        let tracked = tracked_values(f.num_values(), &facts);
        Self::dataflow(f, cfg, &facts, &tracked)
    }

    /// The per-value backward exploration (see the module doc).
    pub fn compute_by_exploration(f: &Function, cfg: &Cfg) -> Self {
        let facts = LocalFacts::collect(f);
        Self::exploration(f, cfg, &facts)
    }

    fn dataflow(f: &Function, cfg: &Cfg, facts: &LocalFacts, tracked: &[Value]) -> Self {
        let (nb, nt) = (f.num_blocks(), tracked.len());
        let mut index_of = vec![NONE; f.num_values()];
        for (i, v) in tracked.iter().enumerate() {
            index_of[v.index()] = i as u32;
        }
        let matrix = |pairs: &[(u32, u32)]| {
            let mut m = BitMatrix::new(nb, nt);
            for &(v, b) in pairs {
                if index_of[v as usize] != NONE {
                    m.insert(b as usize, index_of[v as usize] as usize);
                }
            }
            m
        };
        let (upward, defs) = (matrix(&facts.upward), matrix(&facts.defs));
        let (phi_defs, phi_uses) = (matrix(&facts.phi_defs), matrix(&facts.phi_uses));
        let mut live_in = BitMatrix::new(nb, nt);
        let mut live_out = BitMatrix::new(nb, nt);
        if nt > 0 {
            let words = live_in.row_words();
            // Post-order first (successors before predecessors), then unreachable blocks.
            let mut queue: std::collections::VecDeque<BlockId> =
                cfg.rpo().iter().rev().copied().collect();
            queue.extend(
                (0..nb as u32)
                    .map(BlockId)
                    .filter(|&b| !cfg.is_reachable(b)),
            );
            let mut queued = vec![true; nb];
            let mut out_row = vec![0u64; words];
            while let Some(b) = queue.pop_front() {
                let bi = b.index();
                queued[bi] = false;
                out_row.copy_from_slice(phi_uses.row(bi));
                for &s in cfg.succs(b) {
                    let (li, pd) = (live_in.row(s.index()), phi_defs.row(s.index()));
                    for w in 0..words {
                        out_row[w] |= li[w] & !pd[w];
                    }
                }
                live_out.row_mut(bi).copy_from_slice(&out_row);
                let (up, df, pd) = (upward.row(bi), defs.row(bi), phi_defs.row(bi));
                let row = live_in.row_mut(bi);
                let mut changed = false;
                for w in 0..words {
                    let new = pd[w] | up[w] | (out_row[w] & !df[w]);
                    changed |= new != row[w];
                    row[w] = new;
                }
                if changed {
                    for &p in cfg.preds(b) {
                        if !std::mem::replace(&mut queued[p.index()], true) {
                            queue.push_back(p);
                        }
                    }
                }
            }
        }
        let lists = |m: &BitMatrix| {
            let mut start = Vec::with_capacity(nb + 1);
            let mut list = Vec::new();
            for b in 0..nb {
                start.push(list.len() as u32);
                let first = list.len();
                list.extend(m.iter_row(b).map(|i| tracked[i]));
                list[first..].sort_unstable();
            }
            start.push(list.len() as u32);
            (start, list)
        };
        let (in_start, in_list) = lists(&live_in);
        let (out_start, out_list) = lists(&live_out);
        Liveness {
            in_start,
            in_list,
            out_start,
            out_list,
        }
    }

    fn exploration(f: &Function, cfg: &Cfg, facts: &LocalFacts) -> Self {
        let (nb, nv) = (f.num_blocks(), f.num_values());
        let by_value = |pairs: &[(u32, u32)]| Grouped::new(nv, pairs.iter().copied());
        let (upward, defs) = (by_value(&facts.upward), by_value(&facts.defs));
        let (phi_defs, phi_uses) = (by_value(&facts.phi_defs), by_value(&facts.phi_uses));
        let (mut def_mark, mut in_mark, mut out_mark) =
            (vec![0u32; nb], vec![0u32; nb], vec![0u32; nb]);
        // (block, value) pairs, produced in increasing value order.
        let mut ins: Vec<(u32, u32)> = Vec::new();
        let mut outs: Vec<(u32, u32)> = Vec::new();
        let mut work: Vec<u32> = Vec::new();
        for v in 0..nv {
            let (up, pdefs, puses) = (upward.of(v), phi_defs.of(v), phi_uses.of(v));
            if up.is_empty() && pdefs.is_empty() && puses.is_empty() {
                continue;
            }
            let stamp = v as u32 + 1;
            for &b in defs.of(v) {
                def_mark[b as usize] = stamp;
            }
            let mut mark_in = |b: u32, ins: &mut Vec<(u32, u32)>| {
                let fresh = in_mark[b as usize] != stamp;
                if fresh {
                    in_mark[b as usize] = stamp;
                    ins.push((b, v as u32));
                }
                fresh
            };
            // Phi results are live-in of their block, without flowing to predecessors.
            for &b in pdefs {
                mark_in(b, &mut ins);
            }
            work.clear();
            for &b in up {
                if mark_in(b, &mut ins) {
                    work.push(b);
                }
            }
            let mut pending: Vec<u32> = puses.to_vec();
            loop {
                // Live-out of `p`, then live-in of `p` unless `p` defines the value.
                for p in pending.drain(..) {
                    if out_mark[p as usize] != stamp {
                        out_mark[p as usize] = stamp;
                        outs.push((p, v as u32));
                        if def_mark[p as usize] != stamp && mark_in(p, &mut ins) {
                            work.push(p);
                        }
                    }
                }
                let Some(b) = work.pop() else { break };
                pending.extend(cfg.preds(BlockId(b)).iter().map(|p| p.0));
            }
        }
        let (in_start, in_list) = by_block(nb, &ins);
        let (out_start, out_list) = by_block(nb, &outs);
        Liveness {
            in_start,
            in_list,
            out_start,
            out_list,
        }
    }

    /// Is `v` live on entry to `b`? (True for a phi defined in `b`.)
    pub fn is_live_in(&self, v: Value, b: BlockId) -> bool {
        self.live_in(b).binary_search(&v).is_ok()
    }

    /// Is `v` live on exit from `b`? (True for an argument of a successor's phi for `b`.)
    pub fn is_live_out(&self, v: Value, b: BlockId) -> bool {
        self.live_out(b).binary_search(&v).is_ok()
    }

    /// The values live on entry to `b`, in increasing order.
    pub fn live_in(&self, b: BlockId) -> &[Value] {
        let i = b.index();
        &self.in_list[self.in_start[i] as usize..self.in_start[i + 1] as usize]
    }

    /// The values live on exit from `b`, in increasing order.
    pub fn live_out(&self, b: BlockId) -> &[Value] {
        let i = b.index();
        &self.out_list[self.out_start[i] as usize..self.out_start[i + 1] as usize]
    }
}

/// Values that can be live at a block boundary (see the module doc), in increasing order.
fn tracked_values(nv: usize, facts: &LocalFacts) -> Vec<Value> {
    let mut seen = vec![false; nv];
    for &(v, _) in facts
        .upward
        .iter()
        .chain(&facts.phi_defs)
        .chain(&facts.phi_uses)
    {
        seen[v as usize] = true;
    }
    (0..nv as u32)
        .filter(|&v| seen[v as usize])
        .map(Value)
        .collect()
}

/// Groups `(block, value)` pairs by block; values keep their (increasing) order.
fn by_block(nb: usize, pairs: &[(u32, u32)]) -> (Vec<u32>, Vec<Value>) {
    let g = Grouped::new(nb, pairs.iter().copied());
    (g.start, g.items.into_iter().map(Value).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cfg::tests::func;
    use crate::ssa::random::{random_cfg_function, random_program, ProgramShape, Rng};

    fn ids(vs: &[Value]) -> Vec<u32> {
        vs.iter().map(|v| v.0).collect()
    }

    fn both(f: &Function) -> Liveness {
        let cfg = Cfg::compute(f);
        let a = Liveness::compute_dataflow(f, &cfg);
        let b = Liveness::compute_by_exploration(f, &cfg);
        assert_eq!(a, b, "the two algorithms disagree on\n{f}");
        a
    }

    #[test]
    fn loop_with_phis_follows_the_ssa_convention() {
        let lv = both(&func(
            "func @f(%0:i32) -> i32 {
b0:
  %1:i32 = const 0
  jmp b1
b1:
  %2:i32 = phi [b0: %1], [b2: %3]
  %4:i32 = cmp.lt %2, %0
  br %4, b2, b3
b2:
  %5:i32 = const 1
  %3:i32 = add %2, %5
  jmp b1
b3:
  ret %2
}",
        ));
        // %1 is used by the phi only: live-out of b0, not live-in of b1.
        assert_eq!(ids(lv.live_out(BlockId(0))), vec![0, 1]);
        // The phi result is live-in of its block.
        assert_eq!(ids(lv.live_in(BlockId(1))), vec![0, 2]);
        assert_eq!(ids(lv.live_out(BlockId(1))), vec![0, 2]);
        assert_eq!(ids(lv.live_in(BlockId(2))), vec![0, 2]);
        // %3 feeds the phi from b2: live-out of b2 only.
        assert_eq!(ids(lv.live_out(BlockId(2))), vec![0, 3]);
        assert_eq!(ids(lv.live_in(BlockId(3))), vec![2]);
        assert!(!lv.is_live_in(Value(5), BlockId(2)));
        assert!(!lv.is_live_in(Value(0), BlockId(0)));
    }

    #[test]
    fn non_ssa_variables() {
        // %1 is assigned in b0 and b1, read in b2 (a promoted C variable before SSA).
        let lv = both(&func(
            "func @f(%0:i32) -> i32 {
b0:
  %1:i32 = const 1
  br %0, b1, b2
b1:
  %1:i32 = const 2
  jmp b2
b2:
  ret %1
}",
        ));
        assert!(lv.is_live_out(Value(1), BlockId(0)));
        assert!(!lv.is_live_in(Value(1), BlockId(1)));
        assert!(lv.is_live_out(Value(1), BlockId(1)));
        assert!(lv.is_live_in(Value(1), BlockId(2)));
        assert!(!lv.is_live_in(Value(1), BlockId(0)));
    }

    #[test]
    fn diamond_and_irreducible_cycle() {
        // %1 defined before an irreducible cycle b1 <-> b2 and used in it: live around it.
        let lv = both(&func(
            "func @f(%0:i32) -> i32 {
b0:
  %1:i32 = const 1
  br %0, b1, b2
b1:
  %2:i32 = add %1, %0
  br %2, b2, b3
b2:
  br %0, b1, b3
b3:
  ret %0
}",
        ));
        for b in 1..3 {
            assert_eq!(ids(lv.live_in(BlockId(b))), vec![0, 1], "b{b}");
        }
        assert_eq!(ids(lv.live_in(BlockId(3))), vec![0]);
        assert_eq!(ids(lv.live_out(BlockId(1))), vec![0, 1]);
    }

    /// Random programs, before and after SSA, on structured and arbitrary CFGs (unreachable
    /// blocks and jumps to the entry included): the two algorithms give the same sets.
    #[test]
    fn algorithms_agree_on_random_programs() {
        let mut rng = Rng::new(77);
        for round in 0..300 {
            let mut f = if round % 2 == 0 {
                let n = 1 + rng.below(12) as usize;
                random_cfg_function(&mut rng, n)
            } else {
                let m = random_program(&mut rng, &ProgramShape::small());
                m.functions.into_iter().next().expect("one function")
            };
            both(&f);
            crate::ssa::construct::construct_ssa(&mut f).expect("SSA");
            both(&f);
        }
    }
}
