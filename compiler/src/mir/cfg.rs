//! Control-flow analyses of a machine-level function: the CFG, dominator tree and loop
//! forest of [`crate::analysis`], computed from the blocks' control operations, with
//! accessors in machine-level block ids. Loop depth gives the `5^depth` weights of the
//! papers' weighted copy counts (Rastello et al. 2004 §5; SSA book ch. 21 §21.5).
//!
//! Complexity: O(blocks + edges) plus the analyses' own costs (near-linear).

use super::function::{BlockId, Function};
use crate::analysis::{cfg::Cfg, dom::DomTree, loops::LoopForest};
use crate::ir;

/// CFG, dominators and loops of one machine-level function.
#[derive(Clone, Debug)]
pub struct CfgInfo {
    pub cfg: Cfg,
    pub dom: DomTree,
    pub loops: LoopForest,
}

fn to_ir(b: BlockId) -> ir::BlockId {
    ir::BlockId(b.0)
}

fn from_ir(b: ir::BlockId) -> BlockId {
    BlockId(b.0)
}

impl CfgInfo {
    /// Analyses `f`. Branch targets outside the function are ignored (the verifier reports
    /// them).
    pub fn compute(f: &Function) -> CfgInfo {
        let n = f.blocks.len() as u32;
        let cfg = Cfg::from_successors(f.blocks.iter().map(|b| {
            b.successors()
                .into_iter()
                .filter(|s| s.0 < n)
                .map(to_ir)
                .collect::<Vec<_>>()
        }));
        let dom = DomTree::compute(&cfg);
        let loops = LoopForest::compute(&cfg, &dom);
        CfgInfo { cfg, dom, loops }
    }

    pub fn succs(&self, b: BlockId) -> impl Iterator<Item = BlockId> + '_ {
        self.cfg.succs(to_ir(b)).iter().map(|&s| from_ir(s))
    }

    pub fn preds(&self, b: BlockId) -> impl Iterator<Item = BlockId> + '_ {
        self.cfg.preds(to_ir(b)).iter().map(|&s| from_ir(s))
    }

    /// Reachable blocks in reverse post-order.
    pub fn rpo(&self) -> impl Iterator<Item = BlockId> + '_ {
        self.cfg.rpo().iter().map(|&s| from_ir(s))
    }

    pub fn is_reachable(&self, b: BlockId) -> bool {
        self.cfg.is_reachable(to_ir(b))
    }

    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.dom.dominates(to_ir(a), to_ir(b))
    }

    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        self.dom.idom(to_ir(b)).map(from_ir)
    }

    /// Loop nesting depth of `b` (0 outside loops).
    pub fn loop_depth(&self, b: BlockId) -> u32 {
        self.loops.depth(to_ir(b))
    }

    /// `5^depth`, saturating: the weight of an operation in block `b`.
    pub fn weight(&self, b: BlockId) -> u64 {
        self.loops.weight(to_ir(b))
    }

    pub fn is_critical_edge(&self, from: BlockId, to: BlockId) -> bool {
        self.cfg.is_critical_edge(to_ir(from), to_ir(to))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::{Imm, Inst, Opc, Operand, RegClass};
    use simulator::isa::{st231::Opcode as O, Target};

    #[test]
    fn loop_depth_of_a_simple_loop() {
        // b0 -> b1; b1 -> b1 | b2
        let mut f = Function::new("f", Target::St231);
        let b1 = f.new_block();
        let b2 = f.new_block();
        let c = f.new_vreg(RegClass::B);
        let goto = |b| Inst::new(Opc::St231(O::Goto), vec![], vec![], Imm::Block(b));
        f.push(BlockId(0), goto(b1));
        f.push(
            b1,
            Inst::new(
                Opc::St231(O::Br),
                vec![],
                vec![Operand::new(c)],
                Imm::Block(b1),
            ),
        );
        f.push(b1, goto(b2));
        f.push(
            b2,
            Inst::new(Opc::St231(O::Igoto), vec![], vec![], Imm::None),
        );
        let info = CfgInfo::compute(&f);
        assert_eq!(info.loop_depth(b1), 1);
        assert_eq!(info.loop_depth(b2), 0);
        assert_eq!(info.weight(b1), 5);
        assert_eq!(info.preds(b1).collect::<Vec<_>>(), vec![BlockId(0), b1]);
        assert!(info.dominates(b1, b2));
    }
}
