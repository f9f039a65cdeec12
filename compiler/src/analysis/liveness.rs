//! Liveness as sets: for every block, the values live on entry and on exit, by backward
//! data-flow over bit sets.
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
//! definitions; SSA construction uses this to prune phis).
//!
//! Only *non-local* values get a bit: values upward-exposed in some block, phi arguments and
//! phi results. Every other value is used only after its definition in the same block and is
//! never live at a block boundary, so the matrices stay small (on front-end code: the promoted
//! C variables, not the temporaries).
//!
//! Complexity: O(instructions) to build the local sets, then a worklist iteration whose cost is
//! O(blocks × tracked values / 64) per round; a handful of rounds on structured code.

use super::bitset::BitMatrix;
use super::cfg::{Cfg, NONE};
use crate::ir::{BlockId, Function, Op, Value};

/// Live-in and live-out sets of every block.
#[derive(Clone, Debug, Default)]
pub struct Liveness {
    index_of: Vec<u32>,
    tracked: Vec<Value>,
    live_in: BitMatrix,
    live_out: BitMatrix,
}

/// Per-block local sets over the tracked values.
struct LocalSets {
    upward: BitMatrix,
    defs: BitMatrix,
    phi_defs: BitMatrix,
    phi_uses: BitMatrix,
}

impl Liveness {
    pub fn compute(f: &Function, cfg: &Cfg) -> Self {
        let mut lv = Liveness::default();
        lv.find_tracked(f);
        let local = lv.local_sets(f);
        lv.solve(cfg, &local);
        lv
    }

    /// Decides which values can be live at a block boundary and numbers them densely.
    fn find_tracked(&mut self, f: &Function) {
        let n = f.num_values();
        self.index_of = vec![NONE; n];
        self.tracked.clear();
        // def_stamp[v] == b + 1 iff v has been defined earlier in block b.
        let mut def_stamp = vec![0u32; n];
        let track = |v: Value, index_of: &mut Vec<u32>, tracked: &mut Vec<Value>| {
            if index_of[v.index()] == NONE {
                index_of[v.index()] = tracked.len() as u32;
                tracked.push(v);
            }
        };
        for p in &f.params {
            def_stamp[p.index()] = 1;
        }
        for (b, block) in f.blocks.iter().enumerate() {
            let stamp = b as u32 + 1;
            for inst in &block.insts {
                if let Op::Phi(args) = &inst.op {
                    for &(_, v) in args {
                        track(v, &mut self.index_of, &mut self.tracked);
                    }
                    if let Some(d) = inst.dst {
                        track(d, &mut self.index_of, &mut self.tracked);
                        def_stamp[d.index()] = stamp;
                    }
                    continue;
                }
                inst.op.for_each_use(|v| {
                    if def_stamp[v.index()] != stamp {
                        track(v, &mut self.index_of, &mut self.tracked);
                    }
                });
                if let Some(d) = inst.dst {
                    def_stamp[d.index()] = stamp;
                }
            }
            block.term.for_each_use(|v| {
                if def_stamp[v.index()] != stamp {
                    track(v, &mut self.index_of, &mut self.tracked);
                }
            });
        }
    }

    fn local_sets(&self, f: &Function) -> LocalSets {
        let (nb, nt) = (f.num_blocks(), self.tracked.len());
        let mut s = LocalSets {
            upward: BitMatrix::new(nb, nt),
            defs: BitMatrix::new(nb, nt),
            phi_defs: BitMatrix::new(nb, nt),
            phi_uses: BitMatrix::new(nb, nt),
        };
        for p in &f.params {
            if let Some(i) = self.index(*p) {
                s.defs.insert(0, i);
            }
        }
        for (b, block) in f.blocks.iter().enumerate() {
            for inst in &block.insts {
                if let Op::Phi(args) = &inst.op {
                    for &(pred, v) in args {
                        if pred.index() < nb {
                            s.phi_uses
                                .insert(pred.index(), self.index_of[v.index()] as usize);
                        }
                    }
                    if let Some(d) = inst.dst {
                        let i = self.index_of[d.index()] as usize;
                        s.phi_defs.insert(b, i);
                        s.defs.insert(b, i);
                    }
                    continue;
                }
                inst.op.for_each_use(|v| {
                    if let Some(i) = self.index(v) {
                        if !s.defs.contains(b, i) {
                            s.upward.insert(b, i);
                        }
                    }
                });
                if let Some(i) = inst.dst.and_then(|d| self.index(d)) {
                    s.defs.insert(b, i);
                }
            }
            block.term.for_each_use(|v| {
                if let Some(i) = self.index(v) {
                    if !s.defs.contains(b, i) {
                        s.upward.insert(b, i);
                    }
                }
            });
        }
        s
    }

    /// Backward worklist iteration to the least fixed point.
    fn solve(&mut self, cfg: &Cfg, s: &LocalSets) {
        let (nb, nt) = (cfg.num_blocks(), self.tracked.len());
        self.live_in = BitMatrix::new(nb, nt);
        self.live_out = BitMatrix::new(nb, nt);
        if nt == 0 {
            return;
        }
        let words = self.live_in.row_words();
        // Post-order first (successors before predecessors), then unreachable blocks.
        let mut order: Vec<BlockId> = cfg.rpo().iter().rev().copied().collect();
        order.extend(
            (0..nb as u32)
                .map(BlockId)
                .filter(|&b| !cfg.is_reachable(b)),
        );
        let mut queued = vec![true; nb];
        let mut queue: std::collections::VecDeque<BlockId> = order.into_iter().collect();
        let mut out_row = vec![0u64; words];
        while let Some(b) = queue.pop_front() {
            let bi = b.index();
            queued[bi] = false;
            out_row.copy_from_slice(s.phi_uses.row(bi));
            for &succ in cfg.succs(b) {
                let live_in = self.live_in.row(succ.index());
                let phi_defs = s.phi_defs.row(succ.index());
                for w in 0..words {
                    out_row[w] |= live_in[w] & !phi_defs[w];
                }
            }
            self.live_out.row_mut(bi).copy_from_slice(&out_row);
            let (up, defs, phi_defs) = (s.upward.row(bi), s.defs.row(bi), s.phi_defs.row(bi));
            let mut changed = false;
            let live_in = self.live_in.row_mut(bi);
            for w in 0..words {
                let new = phi_defs[w] | up[w] | (out_row[w] & !defs[w]);
                changed |= new != live_in[w];
                live_in[w] = new;
            }
            if changed {
                for &p in cfg.preds(b) {
                    if !queued[p.index()] {
                        queued[p.index()] = true;
                        queue.push_back(p);
                    }
                }
            }
        }
    }

    #[inline]
    fn index(&self, v: Value) -> Option<usize> {
        match self.index_of.get(v.index()) {
            Some(&i) if i != NONE => Some(i as usize),
            _ => None,
        }
    }

    /// Is `v` live on entry to `b`? (True for a phi defined in `b`.)
    pub fn is_live_in(&self, v: Value, b: BlockId) -> bool {
        self.index(v)
            .is_some_and(|i| self.live_in.contains(b.index(), i))
    }

    /// Is `v` live on exit from `b`? (True for an argument of a successor's phi for `b`.)
    pub fn is_live_out(&self, v: Value, b: BlockId) -> bool {
        self.index(v)
            .is_some_and(|i| self.live_out.contains(b.index(), i))
    }

    /// The values live on entry to `b`, in increasing tracked order.
    pub fn live_in(&self, b: BlockId) -> impl Iterator<Item = Value> + '_ {
        self.live_in.iter_row(b.index()).map(|i| self.tracked[i])
    }

    /// The values live on exit from `b`.
    pub fn live_out(&self, b: BlockId) -> impl Iterator<Item = Value> + '_ {
        self.live_out.iter_row(b.index()).map(|i| self.tracked[i])
    }

    /// Values that can be live at some block boundary (all others never are).
    pub fn tracked_values(&self) -> &[Value] {
        &self.tracked
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cfg::tests::func;

    fn sorted(it: impl Iterator<Item = Value>) -> Vec<u32> {
        let mut v: Vec<u32> = it.map(|v| v.0).collect();
        v.sort();
        v
    }

    #[test]
    fn loop_with_phis_follows_the_ssa_convention() {
        let f = func(
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
        );
        let cfg = Cfg::compute(&f);
        let lv = Liveness::compute(&f, &cfg);
        // %1 is used by the phi only: live-out of b0, not live-in of b1.
        assert_eq!(sorted(lv.live_out(BlockId(0))), vec![0, 1]);
        // The phi result is live-in of its block.
        assert_eq!(sorted(lv.live_in(BlockId(1))), vec![0, 2]);
        assert_eq!(sorted(lv.live_out(BlockId(1))), vec![0, 2]);
        assert_eq!(sorted(lv.live_in(BlockId(2))), vec![0, 2]);
        // %3 feeds the phi from b2: live-out of b2 only.
        assert_eq!(sorted(lv.live_out(BlockId(2))), vec![0, 3]);
        assert_eq!(sorted(lv.live_in(BlockId(3))), vec![2]);
        assert!(!lv.is_live_in(Value(5), BlockId(2)));
        assert!(!lv.is_live_in(Value(0), BlockId(0)));
    }

    #[test]
    fn non_ssa_variables() {
        // %1 is assigned in b0 and b1, read in b2 (a promoted C variable before SSA).
        let f = func(
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
        );
        let cfg = Cfg::compute(&f);
        let lv = Liveness::compute(&f, &cfg);
        assert!(lv.is_live_out(Value(1), BlockId(0)));
        assert!(!lv.is_live_in(Value(1), BlockId(1)));
        assert!(lv.is_live_out(Value(1), BlockId(1)));
        assert!(lv.is_live_in(Value(1), BlockId(2)));
        assert!(!lv.is_live_in(Value(1), BlockId(0)));
    }
}
