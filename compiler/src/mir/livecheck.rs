//! Fast liveness *checking* on the machine-level SSA IR: "is variable `v` live-in / live-out
//! of block `q`?" without liveness sets, from a precomputation that depends only on the CFG
//! plus each variable's definition block and use sites, which the caller supplies (so the
//! same check serves real virtual registers and the *virtual* variables of an algorithm that
//! never materialises them, e.g. Boissinot et al.'s virtualised phi copies).
//!
//! Method: Boissinot, Hack, Grund, Dupont de Dinechin, Rastello, "Fast Liveness Checking for
//! SSA-Form Programs" (CGO 2008), in the loop-forest form of the SSA book, ch. 9 — the same
//! method as the mid-level [`crate::analysis::livecheck`], re-typed for machine-level use
//! sites. On a reducible CFG, for `q` strictly dominated by the defining block `d`, `v` is
//! live-in at `q` iff some use block of `v` is reachable in the *forward CFG* (back edges
//! removed) from `h`, the header of the outermost loop that contains `q` but not `d` (`q`
//! itself if none). A query costs O(loop depth + uses of `v`).
//!
//! Use sites are `(block, position)` pairs. Position [`EXIT`] is a use *at the end* of the
//! block, after its control operations: a phi argument in multiplexing mode (SSA book
//! Def. 21.1), which makes the value live-out of that predecessor. Any other position is a
//! use inside the block (the caller's numbering; only `EXIT` is special here).
//!
//! Fallback (documented cap): if the CFG is irreducible or has more than
//! [`MAX_MATRIX_BLOCKS`] blocks (the bit matrix would exceed 8 MiB), a query explores the
//! variable's live-in blocks backwards from its uses up to its definition — correct on any
//! CFG, O(size of the live range), kept as a sorted list so that neither time nor memory
//! depends on the number of blocks — and caches the sets of the variables queried, oldest
//! dropped first once they hold more than [`CACHED_BLOCKS_PER_BLOCK`] blocks per block of the
//! function (and more than [`CACHED_VARIABLES`] sets), so repeated queries about a variable
//! cost O(log) after the first and memory stays linear. (A cache of a fixed number of
//! variables thrashed on a 10^5-instruction function: each set was explored again and again,
//! and the time grew 27× for 10× the instructions.) Reported by
//! [`LiveCheck::uses_reachability`].
//! The explorations of one `LiveCheck` share a counted budget of
//! [`EXPLORE_STEPS_PER_BLOCK`] × blocks + [`EXPLORE_STEPS_MIN`] visited blocks, so that the
//! whole check stays linear in the function: past it, a query not in the cache answers
//! *live* — the conservative answer for a coalescer (it keeps a copy) — and is counted
//! ([`LiveCheck::budget_fallbacks`]).
//!
//! Preconditions: strict SSA (every use dominated by its definition); unreachable blocks
//! have nothing live. The answers equal those of set-based liveness with phi arguments live
//! out of the predecessor and phi results not live-in of their block (checked by the tests
//! against a data-flow solution on random CFGs).

use super::cfg::CfgInfo;
use super::BlockId;
use crate::analysis::bitset::{BitMatrix, BitSet};
use crate::ir;
use std::cell::RefCell;
use std::collections::HashMap;

/// Above this many blocks the forward-reachability matrix is not built.
pub const MAX_MATRIX_BLOCKS: usize = 8192;

/// Variables whose live-in sets the exploration mode keeps.
pub const CACHED_VARIABLES: usize = 1024;

/// The cache keeps sets while they hold fewer than this many blocks per block of the
/// function (plus [`CACHED_VARIABLES`]); beyond, the oldest sets are dropped.
pub const CACHED_BLOCKS_PER_BLOCK: usize = 64;

/// Exploration budget: visited blocks allowed per block of the function ...
pub const EXPLORE_STEPS_PER_BLOCK: u64 = 256;

/// ... plus this many (small functions never reach the cap).
pub const EXPLORE_STEPS_MIN: u64 = 1 << 16;

/// Position of a use at the very end of a block (a phi argument in multiplexing mode).
pub const EXIT: u32 = u32::MAX;

/// One use of a variable: its block and its position in the block (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UseSite {
    pub block: BlockId,
    pub pos: u32,
}

/// Liveness queries on machine-level strict SSA (see the module doc).
pub struct LiveCheck<'a> {
    info: &'a CfgInfo,
    reach: Option<BitMatrix>,
    cache: RefCell<Cache>,
}

/// Exploration budget and what running out of it cost.
#[derive(Default)]
struct Budget {
    steps_left: u64,
    steps_used: u64,
    fallbacks: u64,
}

#[derive(Default)]
struct Cache {
    /// Live-in blocks of each cached variable, sorted (sparse: exploring must cost the size
    /// of the live range, not the number of blocks).
    sets: HashMap<u32, Vec<u32>>,
    order: std::collections::VecDeque<u32>,
    /// Blocks held by the cached sets.
    cached_blocks: usize,
    stack: Vec<ir::BlockId>,
    /// Scratch marks over the blocks, all clear between explorations.
    mark: Option<BitSet>,
    budget: Budget,
}

impl Cache {
    fn with_budget(blocks: usize) -> Cache {
        Cache {
            budget: Budget {
                steps_left: EXPLORE_STEPS_PER_BLOCK * blocks as u64 + EXPLORE_STEPS_MIN,
                steps_used: 0,
                fallbacks: 0,
            },
            ..Cache::default()
        }
    }
}

fn ir_block(b: BlockId) -> ir::BlockId {
    ir::BlockId(b.0)
}

impl<'a> LiveCheck<'a> {
    /// Precomputes forward reachability, or chooses exploration mode (see the module doc).
    pub fn new(info: &'a CfgInfo) -> Self {
        let n = info.cfg.num_blocks();
        let reach = if info.loops.has_irreducible() || n > MAX_MATRIX_BLOCKS {
            None
        } else {
            Some(forward_reachability(info))
        };
        LiveCheck {
            info,
            reach,
            cache: RefCell::new(Cache::with_budget(n)),
        }
    }

    /// Exploration mode only, whatever the CFG (for tests).
    pub fn new_exploring(info: &'a CfgInfo) -> Self {
        LiveCheck {
            info,
            reach: None,
            cache: RefCell::new(Cache::with_budget(info.cfg.num_blocks())),
        }
    }

    /// Queries answered *live* because the exploration budget ran out (see the module doc).
    pub fn budget_fallbacks(&self) -> u64 {
        self.cache.borrow().budget.fallbacks
    }

    /// Blocks visited by the explorations so far.
    pub fn explore_steps(&self) -> u64 {
        self.cache.borrow().budget.steps_used
    }

    /// Test hook: sets the exploration budget to `steps` visited blocks.
    #[cfg(test)]
    fn set_budget(&self, steps: u64) {
        self.cache.borrow_mut().budget.steps_left = steps;
    }

    /// True if queries use the reachability matrix (false: backward exploration).
    pub fn uses_reachability(&self) -> bool {
        self.reach.is_some()
    }

    /// Is variable `key` (defined in `d`, used at `uses`) live on exit from `q`?
    pub fn is_live_out(&self, key: u32, d: BlockId, uses: &[UseSite], q: BlockId) -> bool {
        let cfg = &self.info.cfg;
        if !cfg.is_reachable(ir_block(q)) || !cfg.is_reachable(ir_block(d)) {
            return false;
        }
        if d == q {
            // Live-out of its own block: a use elsewhere (reachable), or at the end of it.
            return uses
                .iter()
                .any(|u| cfg.is_reachable(ir_block(u.block)) && (u.block != d || u.pos == EXIT));
        }
        if !self.info.dom.strictly_dominates(ir_block(d), ir_block(q)) {
            return false;
        }
        if uses.iter().any(|u| u.block == q && u.pos == EXIT) {
            return true;
        }
        cfg.succs(ir_block(q))
            .iter()
            .any(|&s| BlockId(s.0) != d && self.live_in_strict(key, d, uses, BlockId(s.0)))
    }

    /// Is the variable live on entry to `q` (`q` different from its defining block `d`)?
    pub fn is_live_in(&self, key: u32, d: BlockId, uses: &[UseSite], q: BlockId) -> bool {
        let cfg = &self.info.cfg;
        if d == q || !cfg.is_reachable(ir_block(q)) {
            return false;
        }
        self.live_in_strict(key, d, uses, q)
    }

    fn live_in_strict(&self, key: u32, d: BlockId, uses: &[UseSite], q: BlockId) -> bool {
        if !self.info.dom.strictly_dominates(ir_block(d), ir_block(q)) {
            return false;
        }
        match &self.reach {
            Some(reach) => {
                let h = self.outermost_header_excluding(ir_block(q), ir_block(d));
                uses.iter().any(|u| {
                    self.info.cfg.is_reachable(ir_block(u.block))
                        && reach.contains(h.index(), u.block.index())
                })
            }
            None => self.explore(key, d, uses, q),
        }
    }

    /// Header of the outermost loop containing `q` but not `d`, or `q` itself.
    fn outermost_header_excluding(&self, q: ir::BlockId, d: ir::BlockId) -> ir::BlockId {
        let loops = &self.info.loops;
        let mut h = q;
        let mut l = loops.loop_of(q);
        while let Some(id) = l {
            if loops.contains(id, d) {
                break;
            }
            let lp = loops.get(id);
            h = lp.header;
            l = lp.parent;
        }
        h
    }

    /// Exploration mode: the live-in blocks of the variable (reached backwards from its use
    /// blocks without entering `d`), computed once per variable and cached.
    fn explore(&self, key: u32, d: BlockId, uses: &[UseSite], q: BlockId) -> bool {
        let mut c = self.cache.borrow_mut();
        let c = &mut *c;
        if let Some(s) = c.sets.get(&key) {
            return s.binary_search(&q.0).is_ok();
        }
        let capacity = CACHED_BLOCKS_PER_BLOCK * self.info.cfg.num_blocks() + CACHED_VARIABLES;
        while c.order.len() >= CACHED_VARIABLES && c.cached_blocks >= capacity {
            let Some(old) = c.order.pop_front() else {
                break;
            };
            if let Some(s) = c.sets.remove(&old) {
                c.cached_blocks -= s.len();
            }
        }
        let cfg = &self.info.cfg;
        let dom = &self.info.dom;
        let dd = ir_block(d);
        let mark = c.mark.get_or_insert_with(|| BitSet::new(cfg.num_blocks()));
        let mut set: Vec<u32> = Vec::new();
        c.stack.clear();
        for u in uses {
            let b = ir_block(u.block);
            if b != dd && cfg.is_reachable(b) && mark.insert(b.index()) {
                c.stack.push(b);
                set.push(b.0);
            }
        }
        let mut out_of_budget = false;
        while let Some(b) = c.stack.pop() {
            if c.budget.steps_left == 0 {
                out_of_budget = true;
                break;
            }
            c.budget.steps_left -= 1;
            c.budget.steps_used += 1;
            for &p in cfg.preds(b) {
                if p != dd
                    && cfg.is_reachable(p)
                    && dom.strictly_dominates(dd, p)
                    && mark.insert(p.index())
                {
                    c.stack.push(p);
                    set.push(p.0);
                }
            }
        }
        for &b in &set {
            mark.remove(b as usize);
        }
        if out_of_budget {
            // Conservative and not cached: the set is incomplete.
            c.budget.fallbacks += 1;
            return true;
        }
        set.sort_unstable();
        let live = set.binary_search(&q.0).is_ok();
        c.cached_blocks += set.len();
        c.sets.insert(key, set);
        c.order.push_back(key);
        live
    }
}

/// `R[b]` = blocks reachable from `b` without back edges, `b` included (post-order).
fn forward_reachability(info: &CfgInfo) -> BitMatrix {
    let cfg = &info.cfg;
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
    use crate::analysis::bitset::BitSet;

    /// A random CFG (`n` blocks, entry 0) as successor lists, often irreducible.
    fn random_succs(seed: &mut u64, n: usize) -> Vec<Vec<u32>> {
        let mut next = || {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *seed
        };
        (0..n)
            .map(|_| {
                let k = next() % 3;
                let mut s: Vec<u32> = (0..k).map(|_| (next() % n as u64) as u32).collect();
                s.sort_unstable();
                s.dedup();
                s
            })
            .collect()
    }

    fn info_of(succs: &[Vec<u32>]) -> CfgInfo {
        use crate::analysis::{cfg::Cfg, dom::DomTree, loops::LoopForest};
        let cfg = Cfg::from_successors(
            succs
                .iter()
                .map(|s| s.iter().map(|&b| ir::BlockId(b)).collect::<Vec<_>>()),
        );
        let dom = DomTree::compute(&cfg);
        let loops = LoopForest::compute(&cfg, &dom);
        CfgInfo { cfg, dom, loops }
    }

    /// Set-based reference: live-in blocks of a variable defined in `d` at the top of
    /// the block (uses inside `d` are after the definition), by backward data flow.
    fn reference_live_in(info: &CfgInfo, d: BlockId, uses: &[UseSite]) -> BitSet {
        let n = info.cfg.num_blocks();
        let mut live = BitSet::new(n);
        let mut stack: Vec<ir::BlockId> = Vec::new();
        for u in uses {
            let b = ir_block(u.block);
            if u.block != d && info.cfg.is_reachable(b) && live.insert(b.index()) {
                stack.push(b);
            }
        }
        while let Some(b) = stack.pop() {
            for &p in info.cfg.preds(b) {
                if BlockId(p.0) != d && info.cfg.is_reachable(p) && live.insert(p.index()) {
                    stack.push(p);
                }
            }
        }
        live
    }

    #[test]
    fn random_cfgs_agree_with_backward_dataflow() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut matrix = 0;
        for round in 0..300 {
            let n = 2 + round % 14;
            let succs = random_succs(&mut seed, n);
            let info = info_of(&succs);
            let reachable: Vec<BlockId> = info.rpo().collect();
            for (k, &d) in reachable.iter().enumerate() {
                // Uses: blocks dominated by d (strictness), some at the exit.
                let dominated: Vec<BlockId> = reachable
                    .iter()
                    .copied()
                    .filter(|&b| info.dominates(d, b))
                    .collect();
                let uses: Vec<UseSite> = dominated
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| (j + k + round) % 3 == 0)
                    .map(|(j, &b)| UseSite {
                        block: b,
                        pos: if j % 2 == 0 { EXIT } else { 5 },
                    })
                    .collect();
                let reference = reference_live_in(&info, d, &uses);
                for check in [LiveCheck::new(&info), LiveCheck::new_exploring(&info)] {
                    matrix += usize::from(check.uses_reachability());
                    for &q in &reachable {
                        let want_in = q != d && reference.contains(q.index());
                        assert_eq!(check.is_live_in(0, d, &uses, q), want_in, "{succs:?}");
                        let want_out = uses.iter().any(|u| u.block == q && u.pos == EXIT)
                            || (q == d && uses.iter().any(|u| u.block != d))
                            || info
                                .succs(q)
                                .any(|s| s != d && reference.contains(s.index()));
                        assert_eq!(
                            check.is_live_out(0, d, &uses, q),
                            want_out,
                            "live-out at {q:?}, def {d:?}, uses {uses:?}, {succs:?}"
                        );
                    }
                }
            }
        }
        assert!(matrix > 100, "matrix mode exercised {matrix} times");
    }

    #[test]
    fn exploration_past_its_budget_answers_live_and_counts() {
        // 0 -> 1 -> 2 -> 3; the variable is defined in 0 and used in 1 only: dead in 2, 3.
        let info = info_of(&[vec![1], vec![2], vec![3], vec![]]);
        let uses = [UseSite {
            block: BlockId(1),
            pos: 4,
        }];
        let exact = LiveCheck::new_exploring(&info);
        assert!(!exact.is_live_in(7, BlockId(0), &uses, BlockId(3)));
        assert_eq!(exact.budget_fallbacks(), 0);
        let capped = LiveCheck::new_exploring(&info);
        capped.set_budget(0);
        assert!(capped.is_live_in(7, BlockId(0), &uses, BlockId(3)));
        assert!(capped.is_live_in(7, BlockId(0), &uses, BlockId(2)));
        assert_eq!(
            capped.budget_fallbacks(),
            2,
            "not cached: counted per query"
        );
        // The matrix mode never explores.
        let matrix = LiveCheck::new(&info);
        assert!(matrix.uses_reachability());
        assert!(!matrix.is_live_in(7, BlockId(0), &uses, BlockId(3)));
        assert_eq!(matrix.budget_fallbacks(), 0);
    }
}
