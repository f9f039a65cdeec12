//! Loop nesting forest: natural loops, the innermost loop and loop depth of every block, and the
//! copy weight `5^depth` the papers use (Rastello et al.; Boissinot et al.) to weigh a static
//! copy by how often it is likely to run.
//!
//! Algorithm: every *retreating* edge `u -> t` (an edge that does not go forward in reverse
//! post-order, i.e. whose target is an ancestor of its source in the depth-first tree) closes a
//! cycle. If `t` dominates `u` it is a back edge and `t` the header of a natural loop. Loops are
//! discovered from the innermost header outwards (decreasing RPO number); each walks
//! predecessors backwards from its back-edge sources to the header, jumping over loops already
//! found (whose outermost ancestor becomes a child of the new loop), as in the classic
//! loop-nesting construction (union-find "outermost loop so far" with path halving). Loops
//! with the same header are merged. Near-linear time.
//!
//! **Irreducible control flow** (a retreating edge `u -> t` whose target does not dominate its
//! source — a cycle with several entries) cannot crash this analysis and is handled
//! *conservatively*: the edge is treated as a back edge to `h = ncd(u, t)`, the nearest common
//! dominator of its ends. `h` dominates the whole cycle (every block reached backwards from `u`
//! without crossing `h` is dominated by `h`), so the result is still a proper forest of
//! dominator-headed loops; the loop is flagged [`Loop::irreducible`]. It over-approximates:
//! `h` and the blocks between `h` and the cycle count as in the loop, so their depth — and the
//! weight of copies there — can be too high, never too low.
//!
//! Unreachable blocks belong to no loop (depth 0).

use super::cfg::{Cfg, NONE};
use super::dom::DomTree;
use crate::ir::BlockId;

/// Index of a loop in a [`LoopForest`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoopId(pub u32);

impl LoopId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One loop of the forest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// The single entry block; it dominates every block of the loop.
    pub header: BlockId,
    /// The enclosing loop, if any.
    pub parent: Option<LoopId>,
    /// 1 for an outermost loop.
    pub depth: u32,
    /// True if an irreducible cycle was folded into this loop (see the module doc).
    pub irreducible: bool,
}

/// The loops of a function and the innermost loop of each block.
#[derive(Clone, Debug, Default)]
pub struct LoopForest {
    loops: Vec<Loop>,
    block_loop: Vec<u32>,
    /// Pre-order number of each loop in the forest, and one past its last descendant.
    loop_pre: Vec<u32>,
    loop_end: Vec<u32>,
    /// Blocks of loops sorted by the pre-order of their innermost loop, so that the blocks of a
    /// loop (nested ones included) form one slice.
    sorted_blocks: Vec<BlockId>,
    /// For each loop pre-order number, where its blocks start in `sorted_blocks` (+ sentinel).
    pre_block_start: Vec<u32>,
    has_irreducible: bool,
}

impl LoopForest {
    pub fn compute(cfg: &Cfg, dom: &DomTree) -> Self {
        let n = cfg.num_blocks();
        let mut lf = LoopForest {
            block_loop: vec![NONE; n],
            ..Default::default()
        };
        let back_edges = lf.find_back_edges(cfg, dom);
        lf.discover_loops(cfg, &back_edges);
        lf.compute_depths();
        lf.number_forest();
        lf
    }

    /// Groups the back edges by header: returns `(header, source)` pairs sorted by decreasing
    /// RPO number of the header (innermost headers first).
    fn find_back_edges(&mut self, cfg: &Cfg, dom: &DomTree) -> Vec<(BlockId, BlockId, bool)> {
        let mut edges = Vec::new();
        for &u in cfg.rpo() {
            let ru = cfg.rpo_number(u).expect("reachable");
            for &t in cfg.succs(u) {
                let rt = cfg.rpo_number(t).expect("successor of a reachable block");
                if rt > ru {
                    continue; // forward or cross edge
                }
                if dom.dominates(t, u) {
                    edges.push((t, u, false));
                } else {
                    self.has_irreducible = true;
                    edges.push((dom.nearest_common_dominator(t, u), u, true));
                }
            }
        }
        edges.sort_by_key(|&(h, _, _)| std::cmp::Reverse(cfg.rpo_number(h)));
        edges
    }

    fn discover_loops(&mut self, cfg: &Cfg, back_edges: &[(BlockId, BlockId, bool)]) {
        // `outer[l]`: union-find link towards the outermost loop found so far containing `l`.
        let mut outer: Vec<u32> = Vec::new();
        let mut work: Vec<BlockId> = Vec::new();
        let mut k = 0;
        while k < back_edges.len() {
            let header = back_edges[k].0;
            let id = self.loops.len() as u32;
            let mut irreducible = false;
            self.loops.push(Loop {
                header,
                parent: None,
                depth: 0,
                irreducible: false,
            });
            outer.push(id);
            self.block_loop[header.index()] = id;
            work.clear();
            while k < back_edges.len() && back_edges[k].0 == header {
                work.push(back_edges[k].1);
                irreducible |= back_edges[k].2;
                k += 1;
            }
            self.loops[id as usize].irreducible = irreducible;
            while let Some(x) = work.pop() {
                let l = self.block_loop[x.index()];
                if l == NONE {
                    self.block_loop[x.index()] = id;
                    work.extend(cfg.preds(x).iter().filter(|p| cfg.is_reachable(**p)));
                    continue;
                }
                let top = find_outermost(&mut outer, l);
                if top == id {
                    continue;
                }
                // An inner loop: nest it here and continue from its header's predecessors.
                outer[top as usize] = id;
                self.loops[top as usize].parent = Some(LoopId(id));
                let h = self.loops[top as usize].header;
                work.extend(cfg.preds(h).iter().filter(|p| cfg.is_reachable(**p)));
            }
        }
    }

    fn compute_depths(&mut self) {
        // Parents are created after their children, so a reverse sweep sees parents first.
        for l in (0..self.loops.len()).rev() {
            self.loops[l].depth = match self.loops[l].parent {
                Some(p) => self.loops[p.index()].depth + 1,
                None => 1,
            };
        }
    }

    /// Numbers the forest in pre-order and sorts the blocks of loops by their innermost loop's
    /// number, making "blocks of a loop" a contiguous slice and containment an interval test.
    fn number_forest(&mut self) {
        let m = self.loops.len();
        let mut child_start = vec![0u32; m + 1];
        for l in &self.loops {
            if let Some(p) = l.parent {
                child_start[p.index() + 1] += 1;
            }
        }
        for i in 0..m {
            child_start[i + 1] += child_start[i];
        }
        let mut children = vec![0u32; child_start[m] as usize];
        let mut cursor = child_start[..m].to_vec();
        for (i, l) in self.loops.iter().enumerate() {
            if let Some(p) = l.parent {
                children[cursor[p.index()] as usize] = i as u32;
                cursor[p.index()] += 1;
            }
        }
        self.loop_pre = vec![NONE; m];
        self.loop_end = vec![NONE; m];
        let mut counter = 0u32;
        let mut stack: Vec<(u32, u32)> = Vec::new();
        // Roots in reverse creation order: outer loops of the whole function, earlier first.
        for root in (0..m as u32).rev() {
            if self.loops[root as usize].parent.is_some() {
                continue;
            }
            self.loop_pre[root as usize] = counter;
            counter += 1;
            stack.push((root, 0));
            while let Some(&mut (l, ref mut next)) = stack.last_mut() {
                let at = child_start[l as usize] + *next;
                if at < child_start[l as usize + 1] {
                    *next += 1;
                    let c = children[at as usize];
                    self.loop_pre[c as usize] = counter;
                    counter += 1;
                    stack.push((c, 0));
                } else {
                    self.loop_end[l as usize] = counter;
                    stack.pop();
                }
            }
        }
        // Counting sort of the blocks by the pre-order number of their innermost loop.
        self.pre_block_start = vec![0u32; m + 1];
        for &l in &self.block_loop {
            if l != NONE {
                self.pre_block_start[self.loop_pre[l as usize] as usize + 1] += 1;
            }
        }
        for i in 0..m {
            self.pre_block_start[i + 1] += self.pre_block_start[i];
        }
        let mut cursor = self.pre_block_start[..m].to_vec();
        self.sorted_blocks = vec![BlockId(0); self.pre_block_start[m] as usize];
        for (b, &l) in self.block_loop.iter().enumerate() {
            if l != NONE {
                let p = self.loop_pre[l as usize] as usize;
                self.sorted_blocks[cursor[p] as usize] = BlockId(b as u32);
                cursor[p] += 1;
            }
        }
    }

    /// All loops; a [`LoopId`] indexes this slice. Inner loops come before their parents.
    pub fn loops(&self) -> &[Loop] {
        &self.loops
    }

    pub fn get(&self, l: LoopId) -> &Loop {
        &self.loops[l.index()]
    }

    pub fn num_loops(&self) -> usize {
        self.loops.len()
    }

    /// True if some cycle had several entries (see the module doc).
    pub fn has_irreducible(&self) -> bool {
        self.has_irreducible
    }

    /// The innermost loop containing `b`.
    pub fn loop_of(&self, b: BlockId) -> Option<LoopId> {
        match self.block_loop[b.index()] {
            NONE => None,
            l => Some(LoopId(l)),
        }
    }

    /// Number of loops containing `b` (0 outside loops).
    pub fn depth(&self, b: BlockId) -> u32 {
        self.loop_of(b).map_or(0, |l| self.loops[l.index()].depth)
    }

    /// `5^depth(b)`, saturating: the static weight of one instruction in `b`.
    pub fn weight(&self, b: BlockId) -> u64 {
        weight_of_depth(self.depth(b))
    }

    pub fn is_header(&self, b: BlockId) -> bool {
        self.loop_of(b)
            .is_some_and(|l| self.loops[l.index()].header == b)
    }

    /// Is loop `inner` equal to or nested in loop `outer`? O(1).
    pub fn loop_contains_loop(&self, outer: LoopId, inner: LoopId) -> bool {
        let (o, i) = (outer.index(), inner.index());
        self.loop_pre[o] <= self.loop_pre[i] && self.loop_pre[i] < self.loop_end[o]
    }

    /// Is block `b` in loop `l` (possibly in a nested loop)? O(1).
    pub fn contains(&self, l: LoopId, b: BlockId) -> bool {
        self.loop_of(b)
            .is_some_and(|inner| self.loop_contains_loop(l, inner))
    }

    /// The blocks of `l`, nested loops included (no particular order inside).
    pub fn blocks(&self, l: LoopId) -> &[BlockId] {
        let (lo, hi) = (self.loop_pre[l.index()], self.loop_end[l.index()]);
        &self.sorted_blocks
            [self.pre_block_start[lo as usize] as usize..self.pre_block_start[hi as usize] as usize]
    }

    /// The sources of the back edges of `l` (predecessors of the header inside the loop).
    pub fn latches<'a>(&'a self, cfg: &'a Cfg, l: LoopId) -> impl Iterator<Item = BlockId> + 'a {
        let h = self.loops[l.index()].header;
        cfg.preds(h)
            .iter()
            .copied()
            .filter(move |&p| self.contains(l, p))
    }
}

/// `5^depth`, saturating at `u64::MAX`.
pub fn weight_of_depth(depth: u32) -> u64 {
    5u64.checked_pow(depth).unwrap_or(u64::MAX)
}

/// Union-find lookup with path halving.
fn find_outermost(outer: &mut [u32], mut l: u32) -> u32 {
    while outer[l as usize] != l {
        let up = outer[outer[l as usize] as usize];
        outer[l as usize] = up;
        l = up;
    }
    l
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cfg::tests::func;
    use crate::ssa::random::{random_cfg_function, Rng};

    fn b(i: u32) -> BlockId {
        BlockId(i)
    }

    fn forest(src: &str) -> (Cfg, LoopForest) {
        let f = func(src);
        let cfg = Cfg::compute(&f);
        let dom = DomTree::compute(&cfg);
        let lf = LoopForest::compute(&cfg, &dom);
        (cfg, lf)
    }

    #[test]
    fn nested_loops_depths_and_weights() {
        let (cfg, lf) = forest(
            "func @f(%0:i32) {
b0:
  jmp b1
b1:
  br %0, b2, b5
b2:
  br %0, b3, b4
b3:
  jmp b2
b4:
  jmp b1
b5:
  ret
}",
        );
        assert_eq!(lf.num_loops(), 2);
        assert_eq!(
            (0..6).map(|i| lf.depth(b(i))).collect::<Vec<_>>(),
            vec![0, 1, 2, 2, 1, 0]
        );
        assert_eq!(lf.weight(b(3)), 25);
        assert_eq!(lf.weight(b(5)), 1);
        assert!(lf.is_header(b(1)) && lf.is_header(b(2)) && !lf.is_header(b(3)));
        let inner = lf.loop_of(b(3)).unwrap();
        let outer = lf.loop_of(b(4)).unwrap();
        assert_eq!(lf.get(inner).parent, Some(outer));
        assert!(lf.contains(outer, b(3)));
        assert!(!lf.contains(inner, b(4)));
        let mut blocks = lf.blocks(outer).to_vec();
        blocks.sort();
        assert_eq!(blocks, vec![b(1), b(2), b(3), b(4)]);
        assert_eq!(lf.latches(&cfg, outer).collect::<Vec<_>>(), vec![b(4)]);
        assert_eq!(lf.latches(&cfg, inner).collect::<Vec<_>>(), vec![b(3)]);
        assert!(!lf.has_irreducible());
    }

    #[test]
    fn two_back_edges_one_loop_and_self_loop() {
        let (_, lf) = forest(
            "func @f(%0:i32) {
b0:
  jmp b1
b1:
  br %0, b2, b3
b2:
  jmp b1
b3:
  br %0, b1, b4
b4:
  br %0, b4, b5
b5:
  ret
}",
        );
        // b1 has back edges from b2 and b3: one loop {b1,b2,b3}; b4 is a self loop.
        assert_eq!(lf.num_loops(), 2);
        assert_eq!(lf.depth(b(2)), 1);
        assert_eq!(lf.depth(b(3)), 1);
        assert_eq!(lf.depth(b(4)), 1);
        assert_ne!(lf.loop_of(b(4)), lf.loop_of(b(1)));
    }

    #[test]
    fn irreducible_loop_is_conservative() {
        // Cycle b1 <-> b2 with entries from b0 into both: folded into a loop headed by b0.
        let (_, lf) = forest(
            "func @f(%0:i32) {
b0:
  br %0, b1, b2
b1:
  br %0, b2, b3
b2:
  jmp b1
b3:
  ret
}",
        );
        assert!(lf.has_irreducible());
        assert_eq!(lf.num_loops(), 1);
        let l = lf.loop_of(b(1)).unwrap();
        assert!(lf.get(l).irreducible);
        assert_eq!(lf.get(l).header, b(0));
        assert_eq!(lf.depth(b(1)), 1);
        assert_eq!(lf.depth(b(2)), 1);
        assert_eq!(lf.depth(b(3)), 0);
    }

    #[test]
    fn unreachable_block_has_depth_zero() {
        let (_, lf) = forest(
            "func @f() {
b0:
  ret
b1:
  jmp b1
}",
        );
        assert_eq!(lf.num_loops(), 0);
        assert_eq!(lf.depth(b(1)), 0);
    }

    #[test]
    fn weight_saturates() {
        assert_eq!(weight_of_depth(0), 1);
        assert_eq!(weight_of_depth(3), 125);
        assert_eq!(weight_of_depth(27), 5u64.pow(27));
        assert_eq!(weight_of_depth(28), u64::MAX);
    }

    /// On random graphs: every block in a cycle through itself is in some loop, every block of a
    /// loop is dominated by its header, and each loop's blocks can reach a latch.
    #[test]
    fn random_graphs_are_sound() {
        let mut rng = Rng::new(11);
        for _ in 0..300 {
            let n = 1 + rng.below(14) as usize;
            let f = random_cfg_function(&mut rng, n);
            let cfg = Cfg::compute(&f);
            let dom = DomTree::compute(&cfg);
            let lf = LoopForest::compute(&cfg, &dom);
            for &x in cfg.rpo() {
                // Is x on a cycle? (reaches itself by a non-empty path)
                let mut seen = vec![false; n];
                let mut stack: Vec<BlockId> = cfg.succs(x).to_vec();
                let mut cyclic = false;
                while let Some(y) = stack.pop() {
                    if y == x {
                        cyclic = true;
                        break;
                    }
                    if !seen[y.index()] {
                        seen[y.index()] = true;
                        stack.extend(cfg.succs(y));
                    }
                }
                if cyclic {
                    assert!(lf.depth(x) >= 1, "{x} is on a cycle\n{f}");
                }
            }
            for (i, l) in lf.loops().iter().enumerate() {
                let blocks = lf.blocks(LoopId(i as u32));
                assert!(blocks.contains(&l.header));
                for &x in blocks {
                    assert!(dom.dominates(l.header, x));
                }
                if let Some(p) = l.parent {
                    assert!(lf.contains(p, l.header));
                    assert_eq!(lf.get(p).depth + 1, l.depth);
                }
            }
        }
    }
}
