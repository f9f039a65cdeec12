//! Dominator tree, dominance frontiers and iterated dominance frontiers.
//!
//! * Immediate dominators by Lengauer and Tarjan (1979), the "simple" variant: a depth-first
//!   numbering, semidominators computed in reverse pre-order with a path-compressed forest,
//!   then one forward pass turning semidominators into immediate dominators. O(m log n), no
//!   recursion. (The iterative algorithm of Cooper, Harvey and Kennedy used before is
//!   quadratic on a long `else if` chain: every arm joins the same block, and intersecting
//!   each arm walks the whole chain of tests above it — 50,000 arms took minutes.)
//! * O(1) dominance queries: a depth-first walk of the dominator tree numbers every block on
//!   entry (`pre`) and exit (`post`); `a` dominates `b` iff `pre[a] <= pre[b]` and
//!   `post[b] <= post[a]`.
//! * Dominance frontiers with the CHK frontier algorithm: for each join block `b` and each
//!   predecessor `p`, walk from `p` up the dominator tree until `idom(b)`, adding `b` to the
//!   frontier of every block passed. O(sum of frontier sizes).
//! * Iterated dominance frontier DF+(S) of a set of blocks (Cytron et al. 1991), by a worklist
//!   over the frontiers, with a reusable scratch that needs no clearing between queries.
//!
//! Unreachable blocks have no immediate dominator, dominate nothing and are dominated by
//! nothing (except themselves).

use super::cfg::{Cfg, NONE};
use crate::ir::BlockId;

/// Immediate dominators and the dominator tree of the reachable blocks.
#[derive(Clone, Debug, Default)]
pub struct DomTree {
    /// Immediate dominator per block; the entry's is itself; `NONE` if unreachable.
    idom: Vec<u32>,
    /// Tree children, compressed: children of `b` are `child_list[child_start[b]..child_start[b+1]]`.
    child_start: Vec<u32>,
    child_list: Vec<BlockId>,
    pre: Vec<u32>,
    post: Vec<u32>,
    depth: Vec<u32>,
    preorder: Vec<BlockId>,
}

impl DomTree {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn compute(cfg: &Cfg) -> Self {
        let mut d = DomTree::new();
        d.recompute(cfg);
        d
    }

    /// Recomputes the tree for `cfg`, reusing this object's memory.
    pub fn recompute(&mut self, cfg: &Cfg) {
        let n = cfg.num_blocks();
        self.compute_idoms(cfg);
        self.build_children(n);
        self.number_tree(n);
    }

    fn compute_idoms(&mut self, cfg: &Cfg) {
        let n = cfg.num_blocks();
        let lt = LengauerTarjan::run(cfg);
        self.idom.clear();
        self.idom.resize(n, NONE);
        for (k, &b) in lt.vertex.iter().enumerate() {
            self.idom[b.index()] = lt.vertex[lt.idom[k] as usize].0;
        }
    }

    fn build_children(&mut self, n: usize) {
        self.child_start.clear();
        self.child_start.resize(n + 1, 0);
        for b in 1..n {
            if self.idom[b] != NONE && self.idom[b] as usize != b {
                self.child_start[self.idom[b] as usize + 1] += 1;
            }
        }
        for b in 0..n {
            self.child_start[b + 1] += self.child_start[b];
        }
        self.child_list.clear();
        self.child_list
            .resize(self.child_start[n] as usize, BlockId(0));
        let mut cursor: Vec<u32> = self.child_start[..n].to_vec();
        for b in 1..n {
            let d = self.idom[b];
            if d != NONE && d as usize != b {
                self.child_list[cursor[d as usize] as usize] = BlockId(b as u32);
                cursor[d as usize] += 1;
            }
        }
    }

    /// Iterative DFS over the tree assigning pre/post numbers and depths.
    fn number_tree(&mut self, n: usize) {
        self.pre.clear();
        self.pre.resize(n, NONE);
        self.post.clear();
        self.post.resize(n, NONE);
        self.depth.clear();
        self.depth.resize(n, NONE);
        self.preorder.clear();
        if n == 0 || self.idom[0] == NONE {
            return;
        }
        let mut stack: Vec<(BlockId, u32)> = vec![(BlockId::ENTRY, 0)];
        let (mut pre_n, mut post_n) = (0u32, 0u32);
        self.pre[0] = 0;
        self.depth[0] = 0;
        self.preorder.push(BlockId::ENTRY);
        pre_n += 1;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            let start = self.child_start[b.index()] + *next;
            if start < self.child_start[b.index() + 1] {
                *next += 1;
                let c = self.child_list[start as usize];
                self.pre[c.index()] = pre_n;
                pre_n += 1;
                self.depth[c.index()] = self.depth[b.index()] + 1;
                self.preorder.push(c);
                stack.push((c, 0));
            } else {
                self.post[b.index()] = post_n;
                post_n += 1;
                stack.pop();
            }
        }
    }

    /// The immediate dominator of `b`; `None` for the entry and for unreachable blocks.
    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        match self.idom[b.index()] {
            NONE => None,
            d if d as usize == b.index() => None,
            d => Some(BlockId(d)),
        }
    }

    pub fn is_reachable(&self, b: BlockId) -> bool {
        self.idom[b.index()] != NONE
    }

    /// Does `a` dominate `b` (every path from the entry to `b` passes through `a`)? Reflexive.
    #[inline]
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        if a == b {
            return true;
        }
        let (pa, pb) = (self.pre[a.index()], self.pre[b.index()]);
        pa != NONE && pb != NONE && pa <= pb && self.post[b.index()] <= self.post[a.index()]
    }

    #[inline]
    pub fn strictly_dominates(&self, a: BlockId, b: BlockId) -> bool {
        a != b && self.dominates(a, b)
    }

    /// Children of `b` in the dominator tree.
    pub fn children(&self, b: BlockId) -> &[BlockId] {
        let i = b.index();
        &self.child_list[self.child_start[i] as usize..self.child_start[i + 1] as usize]
    }

    /// Reachable blocks in a depth-first pre-order of the dominator tree (dominators first).
    pub fn preorder(&self) -> &[BlockId] {
        &self.preorder
    }

    /// Pre-order number of `b` in the dominator tree (`None` if unreachable).
    pub fn pre_number(&self, b: BlockId) -> Option<u32> {
        match self.pre[b.index()] {
            NONE => None,
            k => Some(k),
        }
    }

    /// Depth in the dominator tree (entry = 0; `None` if unreachable).
    pub fn depth(&self, b: BlockId) -> Option<u32> {
        match self.depth[b.index()] {
            NONE => None,
            k => Some(k),
        }
    }

    /// The nearest block dominating both `a` and `b` (both must be reachable).
    pub fn nearest_common_dominator(&self, mut a: BlockId, mut b: BlockId) -> BlockId {
        debug_assert!(self.is_reachable(a) && self.is_reachable(b));
        while self.depth[a.index()] > self.depth[b.index()] {
            a = BlockId(self.idom[a.index()]);
        }
        while self.depth[b.index()] > self.depth[a.index()] {
            b = BlockId(self.idom[b.index()]);
        }
        while a != b {
            a = BlockId(self.idom[a.index()]);
            b = BlockId(self.idom[b.index()]);
        }
        a
    }
}

/// The state of one Lengauer-Tarjan run. Every array is indexed by depth-first pre-order
/// number (the entry is 0); only reachable blocks are numbered.
struct LengauerTarjan {
    /// Block of each pre-order number.
    vertex: Vec<BlockId>,
    /// Parent in the depth-first spanning tree.
    parent: Vec<u32>,
    /// Semidominator (a pre-order number), then, after [`Self::run`], the immediate dominator.
    semi: Vec<u32>,
    idom: Vec<u32>,
    /// The path-compressed forest of processed vertices (`NONE`: a root) and, per vertex, the
    /// vertex of smallest semidominator on its compressed path.
    ancestor: Vec<u32>,
    label: Vec<u32>,
    /// Scratch of [`Self::eval`] (the path to compress), kept to avoid an allocation per call.
    path: Vec<u32>,
}

impl LengauerTarjan {
    /// Immediate dominators of the reachable blocks of `cfg` (the entry's is itself).
    fn run(cfg: &Cfg) -> LengauerTarjan {
        let mut lt = LengauerTarjan::number(cfg);
        let count = lt.vertex.len();
        let mut number = vec![NONE; cfg.num_blocks()];
        for (k, b) in lt.vertex.iter().enumerate() {
            number[b.index()] = k as u32;
        }
        // Vertices whose semidominator is the key, waiting for it to be linked.
        let mut bucket_head = vec![NONE; count];
        let mut bucket_next = vec![NONE; count];
        for w in (1..count).rev() {
            for p in cfg.preds(lt.vertex[w]) {
                let v = number[p.index()];
                if v != NONE {
                    let u = lt.eval(v);
                    lt.semi[w] = lt.semi[w].min(lt.semi[u as usize]);
                }
            }
            let s = lt.semi[w] as usize;
            bucket_next[w] = bucket_head[s];
            bucket_head[s] = w as u32;
            let parent = lt.parent[w];
            lt.ancestor[w] = parent;
            // Every vertex whose semidominator is `parent` gets its immediate dominator, or a
            // vertex whose immediate dominator is the same, now that `parent`'s subtree is done.
            let mut v = std::mem::replace(&mut bucket_head[parent as usize], NONE);
            while v != NONE {
                let u = lt.eval(v);
                lt.idom[v as usize] = if lt.semi[u as usize] < lt.semi[v as usize] {
                    u
                } else {
                    parent
                };
                v = bucket_next[v as usize];
            }
        }
        // Pre-order: a vertex's deferred immediate dominator is final before it is read.
        for w in 1..count {
            if lt.idom[w] != lt.semi[w] {
                lt.idom[w] = lt.idom[lt.idom[w] as usize];
            }
        }
        if count > 0 {
            lt.idom[0] = 0;
        }
        lt
    }

    /// Depth-first pre-order numbering from the entry (iterative), with tree parents.
    fn number(cfg: &Cfg) -> LengauerTarjan {
        let n = cfg.num_blocks();
        let mut seen = vec![false; n];
        let mut vertex = Vec::with_capacity(n);
        let mut parent = Vec::with_capacity(n);
        // (block's pre-order number, next successor to look at)
        let mut stack: Vec<(u32, usize)> = Vec::new();
        if n > 0 {
            seen[0] = true;
            vertex.push(BlockId::ENTRY);
            parent.push(NONE);
            stack.push((0, 0));
        }
        while let Some(top) = stack.last_mut() {
            let (k, next) = *top;
            let succs = cfg.succs(vertex[k as usize]);
            match succs.get(next) {
                Some(&s) => {
                    top.1 += 1;
                    if !seen[s.index()] {
                        seen[s.index()] = true;
                        stack.push((vertex.len() as u32, 0));
                        vertex.push(s);
                        parent.push(k);
                    }
                }
                None => {
                    stack.pop();
                }
            }
        }
        let count = vertex.len();
        LengauerTarjan {
            vertex,
            parent,
            semi: (0..count as u32).collect(),
            idom: vec![NONE; count],
            ancestor: vec![NONE; count],
            label: (0..count as u32).collect(),
            path: Vec::new(),
        }
    }

    /// The vertex of smallest semidominator on the forest path from `v` up to (not including)
    /// its root; `v` itself when it is a root. Compresses the path on the way.
    fn eval(&mut self, v: u32) -> u32 {
        if self.ancestor[v as usize] == NONE {
            return v;
        }
        self.path.clear();
        let mut x = v;
        while self.ancestor[self.ancestor[x as usize] as usize] != NONE {
            self.path.push(x);
            x = self.ancestor[x as usize];
        }
        // From the top down, so that each vertex's ancestor is already compressed.
        while let Some(y) = self.path.pop() {
            let a = self.ancestor[y as usize] as usize;
            if self.semi[self.label[a] as usize] < self.semi[self.label[y as usize] as usize] {
                self.label[y as usize] = self.label[a];
            }
            self.ancestor[y as usize] = self.ancestor[a];
        }
        self.label[v as usize]
    }
}

/// Dominance frontiers: DF(x) = blocks `y` such that `x` dominates a predecessor of `y` but
/// does not strictly dominate `y`.
#[derive(Clone, Debug, Default)]
pub struct DomFrontiers {
    start: Vec<u32>,
    list: Vec<BlockId>,
}

impl DomFrontiers {
    /// CHK frontier algorithm. Unreachable predecessors are ignored.
    pub fn compute(cfg: &Cfg, dom: &DomTree) -> Self {
        let n = cfg.num_blocks();
        // Collect (runner, join) pairs; duplicates of one join for one runner are consecutive
        // because each join is finished before the next one starts.
        let mut pairs: Vec<(u32, BlockId)> = Vec::new();
        let mut last_join = vec![NONE; n];
        for b in 0..n {
            let b = BlockId(b as u32);
            let preds = cfg.preds(b);
            // The entry also has the implicit edge from the function's caller.
            let joins = preds.len() + usize::from(b == BlockId::ENTRY);
            if joins < 2 || !dom.is_reachable(b) {
                continue;
            }
            // The entry has no immediate dominator: walks from its predecessors go up to the
            // root inclusive (the entry is in its own frontier when it is a loop head).
            let stop = if b == BlockId::ENTRY {
                NONE
            } else {
                dom.idom[b.index()]
            };
            for &p in preds {
                if !dom.is_reachable(p) {
                    continue;
                }
                let mut runner = p.0;
                while runner != stop {
                    if last_join[runner as usize] == b.0 {
                        // An earlier walk for `b` passed here and went on up to `stop`: the
                        // blocks above already have `b` (without this stop, `n` arms of an
                        // `else if` chain joining one block cost O(n^2)).
                        break;
                    }
                    last_join[runner as usize] = b.0;
                    pairs.push((runner, b));
                    if runner == BlockId::ENTRY.0 {
                        break;
                    }
                    runner = dom.idom[runner as usize];
                }
            }
        }
        let mut start = vec![0u32; n + 1];
        for &(r, _) in &pairs {
            start[r as usize + 1] += 1;
        }
        for b in 0..n {
            start[b + 1] += start[b];
        }
        let mut list = vec![BlockId(0); pairs.len()];
        let mut cursor: Vec<u32> = start[..n].to_vec();
        for &(r, j) in &pairs {
            list[cursor[r as usize] as usize] = j;
            cursor[r as usize] += 1;
        }
        DomFrontiers { start, list }
    }

    pub fn frontier(&self, b: BlockId) -> &[BlockId] {
        let i = b.index();
        &self.list[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

/// Reusable scratch space for iterated dominance frontier queries. Marks are generation
/// stamps, so a query costs O(size of the answer and the frontiers visited), never O(blocks).
#[derive(Clone, Debug, Default)]
pub struct IdfScratch {
    in_result: Vec<u32>,
    queued: Vec<u32>,
    generation: u32,
    worklist: Vec<BlockId>,
}

impl IdfScratch {
    pub fn new() -> Self {
        Self::default()
    }

    /// Computes DF+(`defs`) into `out` (cleared first), in discovery order.
    pub fn iterated_frontier(
        &mut self,
        df: &DomFrontiers,
        defs: &[BlockId],
        out: &mut Vec<BlockId>,
    ) {
        let n = df.start.len() - 1;
        if self.in_result.len() != n {
            self.in_result.clear();
            self.in_result.resize(n, 0);
            self.queued.clear();
            self.queued.resize(n, 0);
            self.generation = 0;
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Stamps wrapped around: start over with clean marks.
            self.in_result.iter_mut().for_each(|x| *x = 0);
            self.queued.iter_mut().for_each(|x| *x = 0);
            self.generation = 1;
        }
        let g = self.generation;
        out.clear();
        self.worklist.clear();
        for &d in defs {
            if self.queued[d.index()] != g {
                self.queued[d.index()] = g;
                self.worklist.push(d);
            }
        }
        while let Some(x) = self.worklist.pop() {
            for &y in df.frontier(x) {
                if self.in_result[y.index()] != g {
                    self.in_result[y.index()] = g;
                    out.push(y);
                    if self.queued[y.index()] != g {
                        self.queued[y.index()] = g;
                        self.worklist.push(y);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cfg::tests::func;
    use crate::ssa::random::{random_cfg_function, Rng};

    fn b(i: u32) -> BlockId {
        BlockId(i)
    }

    /// Dominators by the textbook definition: `a` dominates `b` iff `b` is unreachable once `a`
    /// is removed (and `b` is reachable at all).
    fn dominates_by_definition(cfg: &Cfg, a: BlockId, x: BlockId) -> bool {
        if !cfg.is_reachable(x) || !cfg.is_reachable(a) {
            return a == x;
        }
        if a == x {
            return true;
        }
        let n = cfg.num_blocks();
        let mut seen = vec![false; n];
        let mut stack = vec![];
        if a != BlockId::ENTRY {
            seen[0] = true;
            stack.push(BlockId::ENTRY);
        }
        while let Some(y) = stack.pop() {
            for &s in cfg.succs(y) {
                if s != a && !seen[s.index()] {
                    seen[s.index()] = true;
                    stack.push(s);
                }
            }
        }
        !seen[x.index()]
    }

    #[test]
    fn nested_loops() {
        // b0 -> b1 (outer head) -> b2 (inner head) <-> b3 ; b2 -> b4 (outer latch) -> b1 ; b1 -> b5
        let f = func(
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
        let cfg = Cfg::compute(&f);
        let dom = DomTree::compute(&cfg);
        assert_eq!(dom.idom(b(0)), None);
        assert_eq!(dom.idom(b(1)), Some(b(0)));
        assert_eq!(dom.idom(b(2)), Some(b(1)));
        assert_eq!(dom.idom(b(3)), Some(b(2)));
        assert_eq!(dom.idom(b(4)), Some(b(2)));
        assert_eq!(dom.idom(b(5)), Some(b(1)));
        assert!(dom.dominates(b(1), b(4)));
        assert!(!dom.dominates(b(3), b(4)));
        assert_eq!(dom.children(b(2)), &[b(3), b(4)]);
        let df = DomFrontiers::compute(&cfg, &dom);
        assert_eq!(df.frontier(b(3)), &[b(2)]);
        assert_eq!(df.frontier(b(2)), &[b(1), b(2)]);
        assert_eq!(df.frontier(b(4)), &[b(1)]);
        assert_eq!(df.frontier(b(5)), &[]);
        let mut idf = IdfScratch::new();
        let mut out = vec![];
        idf.iterated_frontier(&df, &[b(3)], &mut out);
        out.sort();
        assert_eq!(out, vec![b(1), b(2)]);
        assert_eq!(dom.nearest_common_dominator(b(3), b(5)), b(1));
    }

    #[test]
    fn diamond_frontier() {
        let f = func(
            "func @f(%0:i32) {
b0:
  br %0, b1, b2
b1:
  jmp b3
b2:
  jmp b3
b3:
  ret
}",
        );
        let cfg = Cfg::compute(&f);
        let dom = DomTree::compute(&cfg);
        assert_eq!(dom.idom(b(3)), Some(b(0)));
        let df = DomFrontiers::compute(&cfg, &dom);
        assert_eq!(df.frontier(b(1)), &[b(3)]);
        assert_eq!(df.frontier(b(2)), &[b(3)]);
        assert_eq!(df.frontier(b(0)), &[]);
    }

    #[test]
    fn irreducible_and_unreachable() {
        // b1 <-> b2 entered from both sides; b4 unreachable.
        let f = func(
            "func @f(%0:i32) {
b0:
  br %0, b1, b2
b1:
  br %0, b2, b3
b2:
  jmp b1
b3:
  ret
b4:
  jmp b3
}",
        );
        let cfg = Cfg::compute(&f);
        let dom = DomTree::compute(&cfg);
        assert_eq!(dom.idom(b(1)), Some(b(0)));
        assert_eq!(dom.idom(b(2)), Some(b(0)));
        assert_eq!(dom.idom(b(3)), Some(b(1)));
        assert_eq!(dom.idom(b(4)), None);
        assert!(!dom.is_reachable(b(4)));
        assert!(!dom.dominates(b(0), b(4)));
        assert!(dom.dominates(b(4), b(4)));
        let df = DomFrontiers::compute(&cfg, &dom);
        assert_eq!(df.frontier(b(1)), &[b(2)]);
        assert_eq!(df.frontier(b(2)), &[b(1)]);
    }

    /// An `else if` chain of `n` arms: test `k` (block `2k`) branches to arm `k` (block
    /// `2k + 1`) or to the next test; every arm, and the last test, jump to the join (block
    /// `2n`).
    fn else_if_chain(n: usize) -> Cfg {
        let join = b(2 * n as u32);
        let mut succs: Vec<Vec<BlockId>> = Vec::with_capacity(2 * n + 1);
        for k in 0..n as u32 {
            let next = if k + 1 == n as u32 {
                join
            } else {
                b(2 * k + 2)
            };
            succs.push(vec![b(2 * k + 1), next]);
            succs.push(vec![join]);
        }
        succs.push(vec![]);
        Cfg::from_successors(succs)
    }

    /// Seconds to compute the tree and the frontiers of [`else_if_chain`]`(n)`, checking them.
    fn time_else_if_chain(n: usize) -> f64 {
        let cfg = else_if_chain(n);
        let t = std::time::Instant::now();
        let dom = DomTree::compute(&cfg);
        let df = DomFrontiers::compute(&cfg, &dom);
        let seconds = t.elapsed().as_secs_f64();
        let join = b(2 * n as u32);
        assert_eq!(dom.idom(join), Some(b(0)));
        for k in 0..n as u32 {
            assert_eq!(dom.idom(b(2 * k + 1)), Some(b(2 * k)));
            assert_eq!(df.frontier(b(2 * k + 1)), &[join]);
            if k > 0 {
                assert_eq!(dom.idom(b(2 * k)), Some(b(2 * k - 2)));
                assert_eq!(df.frontier(b(2 * k)), &[join]);
            }
        }
        assert_eq!(df.frontier(b(0)), &[]);
        seconds
    }

    /// A long `else if` chain: every arm joins one block. The iterative algorithm used before
    /// walked the whole chain of tests for each arm (O(n^2): 100,000 arms took seconds, and a
    /// tenfold chain a hundredfold time); the frontiers walked it too. Bound: 100,000 arms in
    /// under 2 s (they take milliseconds), and a tenfold chain in at most 40 times the time
    /// (linear: 10; quadratic: 100) — both generous for a loaded machine.
    #[test]
    fn a_long_else_if_chain_is_near_linear() {
        let small = time_else_if_chain(10_000);
        let large = time_else_if_chain(100_000);
        assert!(large < 2.0, "100,000 arms: {large:.3} s");
        assert!(
            large < 40.0 * small.max(0.005),
            "10,000 arms {small:.4} s, 100,000 arms {large:.4} s"
        );
    }

    /// Random CFGs (reducible or not): the Lengauer-Tarjan tree and O(1) query agree with the definition,
    /// and frontiers agree with theirs.
    #[test]
    fn random_graphs_match_definitions() {
        let mut rng = Rng::new(7);
        for _ in 0..300 {
            let n = 1 + rng.below(14) as usize;
            let f = random_cfg_function(&mut rng, n);
            let cfg = Cfg::compute(&f);
            let dom = DomTree::compute(&cfg);
            let df = DomFrontiers::compute(&cfg, &dom);
            for x in f.block_ids() {
                for y in f.block_ids() {
                    assert_eq!(
                        dom.dominates(x, y),
                        dominates_by_definition(&cfg, x, y),
                        "{x} dom {y} in\n{f}"
                    );
                }
                if !cfg.is_reachable(x) {
                    continue;
                }
                let mut expect: Vec<BlockId> = f
                    .block_ids()
                    .filter(|&y| {
                        cfg.is_reachable(y)
                            && cfg
                                .preds(y)
                                .iter()
                                .any(|&p| cfg.is_reachable(p) && dom.dominates(x, p))
                            && !dom.strictly_dominates(x, y)
                    })
                    .collect();
                let mut got = df.frontier(x).to_vec();
                got.sort();
                expect.sort();
                assert_eq!(got, expect, "DF({x}) in\n{f}");
            }
        }
    }
}
