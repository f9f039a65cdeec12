//! Fast liveness *checking* on strict SSA: answers "is `v` live-in / live-out at block `q`?"
//! without liveness sets, from a precomputation that depends only on the CFG (so it stays valid
//! while passes add, remove or rewrite instructions, as long as the CFG does not change) and
//! the def-use chains of the value.
//!
//! Method (Boissinot, Hack, Grund, Dupont de Dinechin, Rastello, "Fast Liveness Checking for
//! SSA-Form Programs", CGO 2008; in the loop-forest form of the SSA book, ch. 9): let `d` be
//! the block defining `v`. On a reducible CFG, for `q` strictly dominated by `d`, `v` is
//! live-in at `q` iff some use of `v` is reachable in the *forward CFG* (back edges removed)
//! from `h`, the header of the outermost loop that contains `q` but not `d` (`h = q` if there
//! is none). Reason: every block of that loop reaches `h` inside the loop (avoiding `d`, which
//! is outside), and any `d`-avoiding path from `q` to a use only takes back edges of loops
//! that contain `q` and not `d`, i.e. loops nested in that outermost one.
//! Forward reachability is one bit matrix (blocks × blocks), so a query costs
//! O(loop depth + number of uses).
//!
//! Live-out is derived: `v` is live-out of `q` iff a successor phi uses it for `q`, or it is
//! live-in (not merely as a phi result) at some successor; for `q = d`, iff it has a use in
//! another reachable block or at the end of `d`.
//!
//! Fallback (documented cap): if the CFG is irreducible, or has more than
//! [`MAX_MATRIX_BLOCKS`] blocks (the matrix would exceed 8 MiB), a query computes the value's
//! whole live-in set by exploring the CFG backwards from its uses up to its definition —
//! correct on any CFG, O(size of the live range) — and keeps it in a small LRU cache
//! ([`CACHED_VALUES`] values, keyed by the [`DefUse`] snapshot), so further queries about
//! the same value cost O(1).
//!
//! Conventions are those of [`super::liveness`] (phi results live-in of their block, phi
//! arguments live-out of the predecessor), and answers are equal to it on reachable blocks;
//! the tests check this on random programs, reducible and irreducible. Unreachable blocks:
//! nothing is live there. Requires strict SSA (every use dominated by its definition).

use super::bitset::BitMatrix;
use super::bitset::BitSet;
use super::cfg::Cfg;
use super::defuse::DefUse;
use super::dom::DomTree;
use super::loops::LoopForest;
use crate::ir::{BlockId, Value};
use std::cell::RefCell;
use std::collections::HashMap;

/// Above this many blocks, the forward-reachability matrix is not built.
pub const MAX_MATRIX_BLOCKS: usize = 8192;

/// Number of values whose live-in sets the exploration mode keeps.
pub const CACHED_VALUES: usize = 256;

/// Liveness queries on strict SSA (see the module doc).
pub struct LiveCheck<'a> {
    cfg: &'a Cfg,
    dom: &'a DomTree,
    loops: &'a LoopForest,
    /// Forward reachability (`None` in exploration mode).
    reach: Option<BitMatrix>,
    scratch: RefCell<Scratch>,
}

/// Live-in sets of recently queried values (exploration mode), least recently used out.
#[derive(Default)]
struct Scratch {
    entries: Vec<CacheEntry>,
    index: HashMap<(u64, Value), usize>,
    clock: u64,
    stack: Vec<BlockId>,
}

struct CacheEntry {
    key: (u64, Value),
    last_used: u64,
    live_in: BitSet,
}

impl<'a> LiveCheck<'a> {
    /// Precomputes forward reachability (or chooses exploration mode, see the module doc).
    pub fn new(cfg: &'a Cfg, dom: &'a DomTree, loops: &'a LoopForest) -> Self {
        let n = cfg.num_blocks();
        let reach = if loops.has_irreducible() || n > MAX_MATRIX_BLOCKS {
            None
        } else {
            Some(forward_reachability(cfg))
        };
        LiveCheck {
            cfg,
            dom,
            loops,
            reach,
            scratch: RefCell::new(Scratch::default()),
        }
    }

    /// True if queries use the precomputed matrix (false: backward exploration).
    pub fn uses_reachability(&self) -> bool {
        self.reach.is_some()
    }

    /// Is `v` live on entry to `q`? A phi result is live-in of its own block.
    pub fn is_live_in(&self, du: &DefUse, v: Value, q: BlockId) -> bool {
        let Some(d) = du.def_block(v) else {
            return false;
        };
        if !self.cfg.is_reachable(q) {
            return false;
        }
        if d == q {
            return du.is_phi(v);
        }
        self.live_in_strict(du, v, d, q)
    }

    /// Live-in at `q`, for `q` different from the defining block `d`.
    fn live_in_strict(&self, du: &DefUse, v: Value, d: BlockId, q: BlockId) -> bool {
        if !self.dom.strictly_dominates(d, q) {
            return false;
        }
        match &self.reach {
            Some(reach) => {
                let h = self.outermost_header_excluding(q, d);
                du.uses(v).iter().any(|u| {
                    let b = u.live_block();
                    self.cfg.is_reachable(b) && reach.contains(h.index(), b.index())
                })
            }
            None => self.explore(du, v, d, q),
        }
    }

    /// Header of the outermost loop containing `q` but not `d`, or `q` itself.
    fn outermost_header_excluding(&self, q: BlockId, d: BlockId) -> BlockId {
        let mut h = q;
        let mut l = self.loops.loop_of(q);
        while let Some(id) = l {
            if self.loops.contains(id, d) {
                break;
            }
            let lp = self.loops.get(id);
            h = lp.header;
            l = lp.parent;
        }
        h
    }

    /// Exploration mode: is `q` in the live-in set of `v`? The set (all blocks reached
    /// backwards from the uses without entering `d`) is computed once per value and cached,
    /// keyed by the def-use snapshot, so repeated queries about a value cost O(1).
    fn explore(&self, du: &DefUse, v: Value, d: BlockId, q: BlockId) -> bool {
        let mut s = self.scratch.borrow_mut();
        let s = &mut *s;
        s.clock += 1;
        let key = (du.stamp(), v);
        if let Some(&k) = s.index.get(&key) {
            s.entries[k].last_used = s.clock;
            return s.entries[k].live_in.contains(q.index());
        }
        let k = if s.entries.len() < CACHED_VALUES {
            s.entries.push(CacheEntry {
                key,
                last_used: 0,
                live_in: BitSet::new(self.cfg.num_blocks()),
            });
            s.entries.len() - 1
        } else {
            let k = (0..s.entries.len())
                .min_by_key(|&k| s.entries[k].last_used)
                .expect("cache is full");
            s.index.remove(&s.entries[k].key);
            s.entries[k].live_in.clear();
            k
        };
        s.index.insert(key, k);
        let entry = &mut s.entries[k];
        entry.key = key;
        entry.last_used = s.clock;
        let set = &mut entry.live_in;
        s.stack.clear();
        for u in du.uses(v) {
            let b = u.live_block();
            if b != d && self.cfg.is_reachable(b) && set.insert(b.index()) {
                s.stack.push(b);
            }
        }
        while let Some(b) = s.stack.pop() {
            for &p in self.cfg.preds(b) {
                if p != d
                    && self.cfg.is_reachable(p)
                    && self.dom.strictly_dominates(d, p)
                    && set.insert(p.index())
                {
                    s.stack.push(p);
                }
            }
        }
        set.contains(q.index())
    }

    /// Is `v` live on exit from `q`? An argument of a successor's phi for `q` is.
    pub fn is_live_out(&self, du: &DefUse, v: Value, q: BlockId) -> bool {
        let Some(d) = du.def_block(v) else {
            return false;
        };
        if !self.cfg.is_reachable(q) {
            return false;
        }
        if d == q {
            return du.uses(v).iter().any(|u| {
                let b = u.live_block();
                self.cfg.is_reachable(b) && (b != d || u.phi_pred == Some(d))
            });
        }
        if !self.dom.strictly_dominates(d, q) {
            return false;
        }
        if du.uses(v).iter().any(|u| u.phi_pred == Some(q)) {
            return true;
        }
        self.cfg
            .succs(q)
            .iter()
            .any(|&s| s != d && self.live_in_strict(du, v, d, s))
    }
}

/// `R[b]` = blocks reachable from `b` without back edges (retreating edges of the DFS), `b`
/// included. Computed in post-order, so successors are complete before their predecessors.
fn forward_reachability(cfg: &Cfg) -> BitMatrix {
    let n = cfg.num_blocks();
    let mut r = BitMatrix::new(n, n);
    for &b in cfg.rpo().iter().rev() {
        r.insert(b.index(), b.index());
        let rb = cfg.rpo_number(b).expect("reachable");
        for &s in cfg.succs(b) {
            if cfg.rpo_number(s).is_some_and(|rs| rs > rb) {
                r.union_rows(b.index(), s.index());
            }
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cfg::tests::func;
    use crate::analysis::liveness::Liveness;
    use crate::ir::Function;
    use crate::ssa::random::{random_cfg_function, random_program, ProgramShape, Rng};

    /// Checks every (value, reachable block) pair against the set-based liveness.
    fn cross_check(f: &Function, force_explore: bool) -> bool {
        let cfg = Cfg::compute(f);
        let dom = DomTree::compute(&cfg);
        let loops = LoopForest::compute(&cfg, &dom);
        let du = DefUse::compute(f);
        let sets = Liveness::compute(f, &cfg);
        let mut check = LiveCheck::new(&cfg, &dom, &loops);
        if force_explore {
            check.reach = None;
        }
        for v in 0..f.num_values() {
            let v = Value(v as u32);
            for &b in cfg.rpo() {
                assert_eq!(
                    check.is_live_in(&du, v, b),
                    sets.is_live_in(v, b),
                    "live-in {v} at {b} (matrix: {})\n{f}",
                    check.uses_reachability()
                );
                assert_eq!(
                    check.is_live_out(&du, v, b),
                    sets.is_live_out(v, b),
                    "live-out {v} at {b} (matrix: {})\n{f}",
                    check.uses_reachability()
                );
            }
        }
        check.uses_reachability()
    }

    #[test]
    fn hand_written_loop() {
        let f = func(
            "func @f(%0:i32) -> i32 {
b0:
  %1:i32 = const 0
  jmp b1
b1:
  %2:i32 = phi [b0: %1], [b3: %3]
  %4:i32 = cmp.lt %2, %0
  br %4, b2, b4
b2:
  %5:i32 = const 1
  jmp b3
b3:
  %3:i32 = add %2, %5
  jmp b1
b4:
  ret %2
}",
        );
        assert!(cross_check(&f, false));
        cross_check(&f, true);
    }

    /// Random SSA programs from random (often irreducible) CFGs and from structured code.
    #[test]
    fn random_programs_agree_with_sets() {
        let mut rng = Rng::new(2024);
        let mut matrix_runs = 0;
        for round in 0..400 {
            let mut f = if round % 2 == 0 {
                let n = 1 + rng.below(12) as usize;
                random_cfg_function(&mut rng, n)
            } else {
                let m = random_program(&mut rng, &ProgramShape::small());
                m.functions.into_iter().next().expect("one function")
            };
            crate::ssa::construct::construct_ssa(&mut f).expect("SSA construction");
            if cross_check(&f, false) {
                matrix_runs += 1;
            }
            cross_check(&f, true);
        }
        assert!(
            matrix_runs > 100,
            "matrix mode exercised {matrix_runs} times"
        );
    }
}
