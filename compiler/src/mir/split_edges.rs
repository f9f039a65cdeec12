//! Critical-edge splitting in the machine IR, for every pass that must place code on an
//! edge (reloads and spill stores of the SSA spiller, the parallel copies of SSA
//! destruction on registers, copies placed on loop back edges).
//!
//! An edge `P -> S` is *critical* when `P` has several successors and `S` several
//! predecessors: code placed at the end of `P` would also run on `P`'s other edges, and
//! code at the start of `S` on `S`'s other edges. Splitting inserts a new block `N` holding
//! only `goto S`, retargets `P`'s branch (or jump) to `N`, and renames `P` into `N` in the
//! phis of `S`. New blocks are appended after the existing ones, so existing block ids stay
//! valid (passes and checkers rely on it: blocks `>= n_before` are the inserted ones).
//!
//! Preconditions: every block ends with its control operations (`mir::function`
//! invariants). A conditional branch and the `goto` that follows it may name the same
//! block; that double edge counts once (the IR has no edge multiplicity) and is split once:
//! both control operations are retargeted.
//!
//! Complexity: O(blocks + edges + phi operands of the targets).

use super::function::{BlockId, Function, Imm, Inst, Opc};
use simulator::isa::{st120, st231, Target};

/// An unconditional jump to `to` for the function's target.
pub fn goto(target: Target, to: BlockId) -> Inst {
    let opc = match target {
        Target::St231 => Opc::St231(st231::Opcode::Goto),
        Target::St120 => Opc::St120(st120::Opcode::Goto),
    };
    Inst::new(opc, vec![], vec![], Imm::Block(to))
}

/// Splits the edge `from -> to` (whether or not it is critical): a new block on the edge,
/// returned. Phis of `to` that name `from` now name the new block.
pub fn split_edge(f: &mut Function, from: BlockId, to: BlockId) -> BlockId {
    let mid = f.new_block();
    f.push(mid, goto(f.target, to));
    let src = f.block_mut(from);
    let start = src.terminator_start();
    for inst in &mut src.insts[start..] {
        if inst.branch_target() == Some(to) {
            inst.imm = Imm::Block(mid);
        }
    }
    for inst in f.block_mut(to).insts.iter_mut() {
        if !inst.is_phi() {
            break;
        }
        if let Imm::Blocks(bs) = &mut inst.imm {
            for b in bs.iter_mut().filter(|b| **b == from) {
                *b = mid;
            }
        }
    }
    mid
}

/// Splits every critical edge; returns the number of blocks added.
pub fn split_critical_edges(f: &mut Function) -> usize {
    split_edges_out_of_branches(f, |npreds, _| npreds > 1)
}

/// Splits the edges into blocks with phis from blocks with several successors (code for
/// the phis then goes at the end of a predecessor that has only that successor).
pub fn split_edges_into_phi_blocks(f: &mut Function) -> usize {
    split_edges_out_of_branches(f, |_, has_phis| has_phis)
}

/// Splits the critical edges and the edges into phi blocks out of blocks with several
/// successors: afterwards every edge has a place for its own code.
pub fn split_edges_for_edge_code(f: &mut Function) -> usize {
    split_edges_out_of_branches(f, |npreds, has_phis| npreds > 1 || has_phis)
}

/// Splits each edge `P -> S` where `P` has several successors and `split(number of
/// predecessors of S, S has phis)` holds; returns the number of blocks added.
fn split_edges_out_of_branches(f: &mut Function, split: impl Fn(usize, bool) -> bool) -> usize {
    let succs = f.successors();
    let mut npreds = vec![0usize; f.blocks.len()];
    for ss in &succs {
        for s in ss {
            if let Some(n) = npreds.get_mut(s.index()) {
                *n += 1;
            }
        }
    }
    let mut added = 0;
    for (p, ss) in succs.iter().enumerate() {
        if ss.len() < 2 {
            continue;
        }
        for &s in ss {
            let Some(target) = f.blocks.get(s.index()) else {
                continue;
            };
            let has_phis = target.insts.first().is_some_and(|i| i.is_phi());
            if split(npreds[s.index()], has_phis) {
                split_edge(f, BlockId(p as u32), s);
                added += 1;
            }
        }
    }
    added
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::{verify, Operand, RegClass, VReg};

    /// b0: br c -> b2 | goto b1;  b1: goto b2;  b2: x = phi [b0: a], [b1: b]
    /// The edge b0 -> b2 is critical (b0 has two successors, b2 two predecessors).
    fn diamond_with_critical_edge() -> Function {
        let mut f = Function::new("f", Target::St231);
        let b1 = f.new_block();
        let b2 = f.new_block();
        let a = f.new_vreg(RegClass::R);
        let b = f.new_vreg(RegClass::R);
        let c = f.new_vreg(RegClass::B);
        let x = f.new_vreg(RegClass::R);
        let r0 = crate::mir::PReg::new(RegClass::R, 0);
        let add = |d: VReg, k: i32| {
            Inst::new(
                Opc::St231(st231::Opcode::Add),
                vec![Operand::new(d)],
                vec![Operand::new(r0)],
                Imm::Int(k),
            )
        };
        f.push(BlockId(0), add(a, 1));
        f.push(BlockId(0), add(b, 2));
        f.push(
            BlockId(0),
            Inst::new(
                Opc::St231(st231::Opcode::Cmpeq),
                vec![Operand::new(c)],
                vec![Operand::new(a)],
                Imm::Int(1),
            ),
        );
        f.push(
            BlockId(0),
            Inst::new(
                Opc::St231(st231::Opcode::Br),
                vec![],
                vec![Operand::new(c)],
                Imm::Block(b2),
            ),
        );
        f.push(BlockId(0), goto(Target::St231, b1));
        f.push(b1, goto(Target::St231, b2));
        f.push(b2, Inst::phi(x, vec![(BlockId(0), a), (b1, b)]));
        f.push(
            b2,
            Inst::new(
                Opc::Output,
                vec![],
                vec![Operand::pinned(
                    x,
                    crate::mir::Pin::Phys(crate::mir::PReg::new(RegClass::R, 16)),
                )],
                Imm::None,
            ),
        );
        f.push(
            b2,
            Inst::new(Opc::St231(st231::Opcode::Igoto), vec![], vec![], Imm::None),
        );
        f
    }

    #[test]
    fn splits_only_the_critical_edge_and_renames_the_phi_operand() {
        let mut f = diamond_with_critical_edge();
        let e = verify::verify_function(&f, verify::Form::Ssa);
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(split_critical_edges(&mut f), 1);
        let n = BlockId(3);
        assert_eq!(f.blocks.len(), 4);
        assert_eq!(f.block(BlockId(0)).successors(), vec![n, BlockId(1)]);
        assert_eq!(f.block(n).successors(), vec![BlockId(2)]);
        assert_eq!(f.block(BlockId(2)).insts[0].phi_blocks(), &[n, BlockId(1)]);
        let errors = verify::verify_function(&f, verify::Form::Ssa);
        assert!(errors.is_empty(), "{errors:?}");
        // Nothing is critical any more.
        assert_eq!(split_critical_edges(&mut f), 0);
    }
}
