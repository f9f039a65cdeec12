//! Control-flow graph: successor and predecessor lists, reverse post-order, reachability, and
//! the CFG edits the SSA passes need (removing unreachable blocks, splitting critical edges,
//! giving the entry block no predecessors, renumbering blocks compactly).
//!
//! Representation: compressed adjacency lists (one flat vector plus offsets per direction), so
//! a [`Cfg`] costs four allocations whatever the size of the function, and
//! [`Cfg::recompute`] reuses them. Predecessors are listed in block order; because a `Branch`
//! never has two equal targets, no edge appears twice.
//!
//! Edits keep phi instructions consistent: a removed predecessor loses its phi arguments, a
//! split edge renames the predecessor in the successor's phis.
//!
//! Complexity: everything here is O(blocks + edges), plus O(instructions) for the edits that
//! rewrite phis.

use crate::ir::{BlockId, Function, Op, Terminator};

/// Marker for "no number" in the dense `u32` tables of the analyses.
pub const NONE: u32 = u32::MAX;

/// Successors, predecessors and a reverse post-order of one function.
#[derive(Clone, Debug, Default)]
pub struct Cfg {
    succ_start: Vec<u32>,
    succ_list: Vec<BlockId>,
    pred_start: Vec<u32>,
    pred_list: Vec<BlockId>,
    rpo: Vec<BlockId>,
    rpo_number: Vec<u32>,
    dfs_stack: Vec<(BlockId, u8)>,
}

impl Cfg {
    /// An empty CFG, to be filled by [`Cfg::recompute`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Computes the CFG of `f`.
    pub fn compute(f: &Function) -> Self {
        let mut cfg = Cfg::new();
        cfg.recompute(f);
        cfg
    }

    /// Recomputes the CFG of `f`, reusing this object's memory.
    pub fn recompute(&mut self, f: &Function) {
        self.recompute_from(f.blocks.iter().map(|b| b.term.successors()));
    }

    /// A CFG given by the successor list of every block (block `i` = `BlockId(i)`, entry =
    /// block 0). Used for other IRs (the machine-level IR) so that they share the analyses.
    /// Successor indices must be in range and no successor may appear twice in one list.
    pub fn from_successors<I, S>(succs: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: IntoIterator<Item = BlockId>,
    {
        let mut cfg = Cfg::new();
        cfg.recompute_from(succs);
        cfg
    }

    fn recompute_from<I, S>(&mut self, succs: I)
    where
        I: IntoIterator<Item = S>,
        S: IntoIterator<Item = BlockId>,
    {
        self.succ_start.clear();
        self.succ_list.clear();
        self.pred_start.clear();
        self.pred_start.push(0);
        for block_succs in succs {
            self.succ_start.push(self.succ_list.len() as u32);
            self.pred_start.push(0);
            for s in block_succs {
                self.succ_list.push(s);
            }
        }
        let n = self.succ_start.len();
        for &s in &self.succ_list {
            self.pred_start[s.index() + 1] += 1;
        }
        self.succ_start.push(self.succ_list.len() as u32);
        for b in 0..n {
            self.pred_start[b + 1] += self.pred_start[b];
        }
        self.pred_list.clear();
        self.pred_list.resize(self.succ_list.len(), BlockId(0));
        // Fill predecessors in block order using a moving cursor per target.
        let mut cursor: Vec<u32> = self.pred_start[..n].to_vec();
        for b in 0..n {
            for k in self.succ_start[b]..self.succ_start[b + 1] {
                let s = self.succ_list[k as usize].index();
                self.pred_list[cursor[s] as usize] = BlockId(b as u32);
                cursor[s] += 1;
            }
        }
        self.compute_rpo(n);
    }

    /// Iterative depth-first search from the entry; successors are visited in terminator order.
    fn compute_rpo(&mut self, n: usize) {
        self.rpo.clear();
        self.rpo_number.clear();
        self.rpo_number.resize(n, NONE);
        if n == 0 {
            return;
        }
        // `rpo_number` doubles as the visited mark during the search (0 = visited).
        let mut postorder = std::mem::take(&mut self.rpo);
        let mut stack = std::mem::take(&mut self.dfs_stack);
        stack.clear();
        stack.push((BlockId::ENTRY, 0));
        self.rpo_number[0] = 0;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            let succs = self.succs(b);
            if let Some(&s) = succs.get(*next as usize) {
                *next += 1;
                if self.rpo_number[s.index()] == NONE {
                    self.rpo_number[s.index()] = 0;
                    stack.push((s, 0));
                }
            } else {
                postorder.push(b);
                stack.pop();
            }
        }
        postorder.reverse();
        for (k, b) in postorder.iter().enumerate() {
            self.rpo_number[b.index()] = k as u32;
        }
        self.rpo = postorder;
        self.dfs_stack = stack;
    }

    pub fn num_blocks(&self) -> usize {
        self.rpo_number.len()
    }

    #[inline]
    pub fn succs(&self, b: BlockId) -> &[BlockId] {
        let i = b.index();
        &self.succ_list[self.succ_start[i] as usize..self.succ_start[i + 1] as usize]
    }

    #[inline]
    pub fn preds(&self, b: BlockId) -> &[BlockId] {
        let i = b.index();
        &self.pred_list[self.pred_start[i] as usize..self.pred_start[i + 1] as usize]
    }

    /// Reachable blocks in reverse post-order (the entry first).
    pub fn rpo(&self) -> &[BlockId] {
        &self.rpo
    }

    /// Position of `b` in [`Cfg::rpo`], or `None` if `b` is unreachable.
    #[inline]
    pub fn rpo_number(&self, b: BlockId) -> Option<usize> {
        match self.rpo_number[b.index()] {
            NONE => None,
            k => Some(k as usize),
        }
    }

    #[inline]
    pub fn is_reachable(&self, b: BlockId) -> bool {
        self.rpo_number[b.index()] != NONE
    }

    /// An edge is critical if its source has several successors and its target several
    /// predecessors: no copy can be placed on it without a new block.
    pub fn is_critical_edge(&self, from: BlockId, to: BlockId) -> bool {
        self.succs(from).len() > 1 && self.preds(to).len() > 1
    }

    /// All critical edges, in source block order.
    pub fn critical_edges(&self) -> Vec<(BlockId, BlockId)> {
        let mut out = Vec::new();
        for b in 0..self.num_blocks() {
            let b = BlockId(b as u32);
            for &s in self.succs(b) {
                if self.is_critical_edge(b, s) {
                    out.push((b, s));
                }
            }
        }
        out
    }

    /// True if an edge `from -> to` exists.
    pub fn has_edge(&self, from: BlockId, to: BlockId) -> bool {
        self.succs(from).contains(&to)
    }
}

/// Renumbers blocks: `new_of_old[b]` is the new number of block `b`, or [`NONE`] to delete it.
/// The kept blocks must receive the numbers `0..kept` (a permutation); the entry must stay `b0`.
/// Edges into deleted blocks must not exist in kept blocks; phi arguments coming from deleted
/// blocks are dropped.
///
/// # Panics
/// If the mapping is not a permutation of the kept blocks or moves the entry (a caller bug).
pub fn renumber_blocks(f: &mut Function, new_of_old: &[u32]) {
    assert_eq!(new_of_old.len(), f.num_blocks());
    assert_eq!(new_of_old[0], 0, "the entry block must stay b0");
    let kept = new_of_old.iter().filter(|&&k| k != NONE).count();
    let mut slots: Vec<Option<crate::ir::Block>> = (0..kept).map(|_| None).collect();
    let old_blocks = std::mem::take(&mut f.blocks);
    for (old, mut block) in old_blocks.into_iter().enumerate() {
        let new = new_of_old[old];
        if new == NONE {
            continue;
        }
        remap_block(&mut block, new_of_old);
        let slot = &mut slots[new as usize];
        assert!(slot.is_none(), "two blocks renumbered to b{new}");
        *slot = Some(block);
    }
    f.blocks = slots
        .into_iter()
        .map(|b| b.expect("block numbers must be dense"))
        .collect();
}

fn remap_block(block: &mut crate::ir::Block, new_of_old: &[u32]) {
    let map = |b: BlockId| BlockId(new_of_old[b.index()]);
    match &mut block.term {
        Terminator::Jump(t) => *t = map(*t),
        Terminator::Branch { then_, else_, .. } => {
            *then_ = map(*then_);
            *else_ = map(*else_);
        }
        Terminator::Return(_) | Terminator::Unreachable => {}
    }
    for inst in &mut block.insts {
        let Op::Phi(args) = &mut inst.op else { break };
        args.retain(|(p, _)| new_of_old[p.index()] != NONE);
        for (p, _) in args.iter_mut() {
            *p = map(*p);
        }
    }
}

/// Deletes the blocks marked `false` in `keep` (the entry must be kept), renumbering the others
/// compactly in their original order. Returns the old-to-new mapping.
pub fn compact_blocks(f: &mut Function, keep: &[bool]) -> Vec<u32> {
    let mut next = 0u32;
    let map: Vec<u32> = keep
        .iter()
        .map(|&k| {
            if k {
                next += 1;
                next - 1
            } else {
                NONE
            }
        })
        .collect();
    renumber_blocks(f, &map);
    map
}

/// Removes the blocks not reachable from the entry (and their phi arguments in reachable
/// blocks). Returns the number of blocks removed.
pub fn remove_unreachable_blocks(f: &mut Function) -> usize {
    let cfg = Cfg::compute(f);
    let keep: Vec<bool> = f.block_ids().map(|b| cfg.is_reachable(b)).collect();
    let removed = keep.iter().filter(|&&k| !k).count();
    if removed > 0 {
        compact_blocks(f, &keep);
    }
    removed
}

/// Puts a new block on the edge `from -> to` and returns it: `from` now jumps to the new block,
/// which jumps to `to`; `to`'s phis take their argument for `from` from the new block.
pub fn split_edge(f: &mut Function, from: BlockId, to: BlockId) -> BlockId {
    let mid = f.new_block();
    f.set_term(mid, Terminator::Jump(to));
    f.block_mut(from).term.replace_successor(to, mid);
    rename_phi_pred(f, to, from, mid);
    mid
}

/// In the phis of `block`, the arguments from predecessor `old` now come from `new`.
pub fn rename_phi_pred(f: &mut Function, block: BlockId, old: BlockId, new: BlockId) {
    for inst in &mut f.block_mut(block).insts {
        let Op::Phi(args) = &mut inst.op else { break };
        for (p, _) in args.iter_mut() {
            if *p == old {
                *p = new;
            }
        }
    }
}

/// Splits every critical edge; returns the number of blocks inserted (appended after the
/// existing blocks).
pub fn split_critical_edges(f: &mut Function) -> usize {
    let edges = Cfg::compute(f).critical_edges();
    for &(from, to) in &edges {
        split_edge(f, from, to);
    }
    edges.len()
}

/// Makes sure the entry block has no predecessors (a loop back to `b0` would otherwise need
/// phis in the entry, which has no incoming edge for the function's own entry). If `b0` has
/// predecessors, its contents move to a new block that `b0` jumps to. Returns true if it
/// changed the function.
pub fn ensure_entry_has_no_preds(f: &mut Function) -> bool {
    let has_preds = f
        .blocks
        .iter()
        .any(|b| b.term.successors().into_iter().any(|s| s == BlockId::ENTRY));
    if !has_preds {
        return false;
    }
    let body = f.new_block();
    let entry = std::mem::take(&mut f.blocks[0]);
    f.blocks[body.index()] = entry;
    f.set_term(BlockId::ENTRY, Terminator::Jump(body));
    for b in 1..f.num_blocks() {
        let b = BlockId(b as u32);
        f.block_mut(b).term.replace_successor(BlockId::ENTRY, body);
        // The old entry's code now lives in `body`: phi arguments that came from `b0` (only
        // possible in SSA input) now come from `body`, including those of a `b0 -> b0` loop.
        rename_phi_pred(f, b, BlockId::ENTRY, body);
    }
    true
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::ir::parse::parse_function;

    pub(crate) fn func(src: &str) -> Function {
        parse_function(src).unwrap_or_else(|e| panic!("{e}"))
    }

    const DIAMOND: &str = "func @f(%0:i32) -> i32 {
b0:
  br %0, b1, b2
b1:
  %1:i32 = const 1
  jmp b3
b2:
  %2:i32 = const 2
  jmp b3
b3:
  %3:i32 = phi [b1: %1], [b2: %2]
  ret %3
}";

    #[test]
    fn diamond_edges_and_rpo() {
        let f = func(DIAMOND);
        let cfg = Cfg::compute(&f);
        assert_eq!(cfg.succs(BlockId(0)), &[BlockId(1), BlockId(2)]);
        assert_eq!(cfg.preds(BlockId(3)), &[BlockId(1), BlockId(2)]);
        assert_eq!(cfg.preds(BlockId(0)), &[]);
        assert_eq!(cfg.rpo()[0], BlockId(0));
        assert_eq!(*cfg.rpo().last().unwrap(), BlockId(3));
        assert_eq!(cfg.rpo().len(), 4);
        assert!(cfg.critical_edges().is_empty());
        // Every edge goes forward in RPO in an acyclic graph.
        for b in f.block_ids() {
            for &s in cfg.succs(b) {
                assert!(cfg.rpo_number(b) < cfg.rpo_number(s));
            }
        }
    }

    #[test]
    fn unreachable_blocks_are_removed_with_their_phi_args() {
        let mut f = func(
            "func @f() -> i32 {
b0:
  %0:i32 = const 0
  jmp b2
b1:
  %1:i32 = const 1
  jmp b2
b2:
  %2:i32 = phi [b0: %0], [b1: %1]
  ret %2
}",
        );
        assert!(!Cfg::compute(&f).is_reachable(BlockId(1)));
        assert_eq!(remove_unreachable_blocks(&mut f), 1);
        assert_eq!(f.num_blocks(), 2);
        assert_eq!(f.block(BlockId(0)).term, Terminator::Jump(BlockId(1)));
        assert_eq!(
            f.block(BlockId(1)).insts[0].op,
            Op::Phi(vec![(BlockId(0), crate::ir::Value(0))])
        );
    }

    #[test]
    fn critical_edge_splitting_updates_phis() {
        // b0 -> b2 is critical: b0 has two successors and b2 two predecessors.
        let mut f = func(
            "func @f(%0:i32) -> i32 {
b0:
  %1:i32 = const 1
  br %0, b1, b2
b1:
  %2:i32 = const 2
  jmp b2
b2:
  %3:i32 = phi [b0: %1], [b1: %2]
  ret %3
}",
        );
        let cfg = Cfg::compute(&f);
        assert_eq!(cfg.critical_edges(), vec![(BlockId(0), BlockId(2))]);
        assert_eq!(split_critical_edges(&mut f), 1);
        let cfg = Cfg::compute(&f);
        assert!(cfg.critical_edges().is_empty());
        assert_eq!(cfg.preds(BlockId(2)), &[BlockId(1), BlockId(3)]);
        let Op::Phi(args) = &f.block(BlockId(2)).insts[0].op else {
            panic!()
        };
        assert_eq!(args[0].0, BlockId(3));
        assert_eq!(f.block(BlockId(3)).term, Terminator::Jump(BlockId(2)));
    }

    #[test]
    fn entry_with_predecessors_gets_a_fresh_entry() {
        let mut f = func(
            "func @f(%0:i32) {
b0:
  %1:i32 = add %0, %0
  br %1, b0, b1
b1:
  ret
}",
        );
        assert!(ensure_entry_has_no_preds(&mut f));
        let cfg = Cfg::compute(&f);
        assert!(cfg.preds(BlockId::ENTRY).is_empty());
        assert_eq!(f.block(BlockId(0)).term, Terminator::Jump(BlockId(2)));
        assert_eq!(cfg.preds(BlockId(2)), &[BlockId(0), BlockId(2)]);
        assert!(!ensure_entry_has_no_preds(&mut f));
    }

    #[test]
    fn renumbering_permutes_blocks() {
        let mut f = func(DIAMOND);
        // Swap b1 and b2.
        renumber_blocks(&mut f, &[0, 2, 1, 3]);
        assert_eq!(
            f.block(BlockId(0)).term,
            Terminator::Branch {
                cond: crate::ir::Value(0),
                then_: BlockId(2),
                else_: BlockId(1)
            }
        );
        assert_eq!(f.block(BlockId(1)).insts[0].op, Op::Const(2));
        let Op::Phi(args) = &f.block(BlockId(3)).insts[0].op else {
            panic!()
        };
        assert_eq!(
            args,
            &vec![
                (BlockId(2), crate::ir::Value(1)),
                (BlockId(1), crate::ir::Value(2))
            ]
        );
    }
}
