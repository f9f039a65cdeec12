//! Lowering of a final-form function (backend.md "Final form") to target operations, block
//! by block, in layout order (= block index order; the entry block is block 0).
//!
//! * `copy` → the target move (ST231 `add $d = $r0, $s`; ST120 `MOVE`/`MOVEA`/`MOVEG`),
//!   keeping the COPY flag so that the simulator counts it as a move;
//! * `.input` / `.output` markers are dropped;
//! * a trailing unconditional `goto` to the next block in layout is dropped (fall-through);
//!   on ST231, `br $b, NEXT; goto X` becomes `brf $b, X` (and `brf` → `br`), which saves the
//!   `goto` bundle and a taken branch when the condition holds;
//! * phi, parallel copy, psi, virtual registers and `Imm::Frame` are errors;
//! * jump threading: a branch or jump to a block that only jumps on (a lone `goto X`, or
//!   nothing at all, falling through) is retargeted to the final destination, which saves
//!   a bundle and a taken-branch penalty each time it is taken (the forwarding block stays,
//!   possibly unreachable).
//!
//! Linear in the number of instructions (threading follows each chain at most once per
//! block, with a step cap against cycles of empty blocks).

use super::{st120, st231, EmitError, Fixup, LoweredOp, MachOp};
use crate::mir::print::inst_to_string;
use crate::mir::{BlockId, Control, Function, Imm, Inst, Opc};
use simulator::isa::Target;

/// The lowered operations of each block of `f`, in block order.
pub fn lower_function(f: &Function) -> Result<Vec<Vec<LoweredOp>>, EmitError> {
    let mut out = Vec::with_capacity(f.blocks.len());
    for (bi, block) in f.blocks.iter().enumerate() {
        let b = BlockId(bi as u32);
        let mut ops = Vec::with_capacity(block.insts.len());
        let n = block.insts.len();
        for (ii, inst) in block.insts.iter().enumerate() {
            let err = |m: String| {
                EmitError::at(
                    &f.name,
                    Some(b),
                    format!("{m} in `{}`", inst_to_string(f, inst)),
                )
            };
            match inst.opc {
                Opc::Input | Opc::Output => continue,
                Opc::Phi | Opc::ParCopy | Opc::Psi => {
                    return Err(err(
                        "pseudo-operation left at emission (run out-of-SSA)".into()
                    ))
                }
                _ => {}
            }
            if ii + 1 == n && is_goto_next(inst, bi, f.blocks.len()) {
                continue;
            }
            if ii + 2 == n && f.target == Target::St231 {
                if let Some(inverted) = invert_branch_to_next(inst, &block.insts[n - 1], bi) {
                    ops.push(st231::lower_inst(f, &inverted).map_err(err)?);
                    break;
                }
            }
            let lowered = match f.target {
                Target::St231 => st231::lower_inst(f, inst),
                Target::St120 => st120::lower_inst(f, inst),
            };
            ops.push(lowered.map_err(err)?);
        }
        out.push(ops);
    }
    thread_jumps(&mut out);
    Ok(out)
}

/// Where control that enters block `b` first does something: follows lone `goto`s and
/// empty blocks (which fall through to the next one).
fn forward_of(blocks: &[Vec<LoweredOp>], b: usize) -> Option<usize> {
    match blocks[b].as_slice() {
        [] if b + 1 < blocks.len() => Some(b + 1),
        [only] if only.is_control() && only.flags.is_empty() => match only.fixup {
            Fixup::Block(t) if is_jump(only) && t.index() < blocks.len() => Some(t.index()),
            _ => None,
        },
        _ => None,
    }
}

fn is_jump(l: &LoweredOp) -> bool {
    use simulator::isa::{st120::Opcode as O120, st231::Opcode as O231};
    match l.op {
        MachOp::St231(op) => op.opc == O231::Goto,
        MachOp::St120(i) => i.opcode == O120::Goto,
    }
}

/// Retarget branches and jumps through forwarding blocks; returns how many were changed.
pub fn thread_jumps(blocks: &mut [Vec<LoweredOp>]) -> usize {
    let n = blocks.len();
    let mut dest: Vec<usize> = (0..n).collect();
    for (b, d) in dest.iter_mut().enumerate() {
        let mut cur = b;
        for _ in 0..n {
            match forward_of(blocks, cur) {
                Some(next) if next != b => cur = next,
                _ => break,
            }
        }
        *d = cur;
    }
    let mut changed = 0;
    for ops in blocks.iter_mut() {
        for l in ops.iter_mut() {
            if let Fixup::Block(t) = l.fixup {
                let d = dest[t.index().min(n.saturating_sub(1))];
                if t.index() < n && d != t.index() {
                    l.fixup = Fixup::Block(BlockId(d as u32));
                    changed += 1;
                }
            }
        }
    }
    changed
}

/// ST231 `br $b, NEXT; goto X` → `brf $b, X` (and the `brf` form → `br`), where NEXT
/// follows block `bi` in layout.
fn invert_branch_to_next(cond: &Inst, last: &Inst, bi: usize) -> Option<Inst> {
    use simulator::isa::st231::Opcode as O;
    let Opc::St231(o @ (O::Br | O::Brf)) = cond.opc else {
        return None;
    };
    let (Imm::Block(t), Opc::St231(O::Goto), Imm::Block(x)) = (&cond.imm, last.opc, &last.imm)
    else {
        return None;
    };
    if t.index() != bi + 1 {
        return None;
    }
    let mut inv = cond.clone();
    inv.opc = Opc::St231(if o == O::Br { O::Brf } else { O::Br });
    inv.imm = Imm::Block(*x);
    Some(inv)
}

/// An unconditional jump to the block that follows `bi` in layout.
fn is_goto_next(inst: &Inst, bi: usize, nblocks: usize) -> bool {
    inst.control() == Control::Jump
        && matches!(inst.imm, Imm::Block(t) if t.index() == bi + 1 && t.index() < nblocks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::{Operand, PReg, RegClass};
    use simulator::isa::st231::Opcode as O;

    fn r(n: u8) -> Operand {
        Operand::new(PReg::new(RegClass::R, n))
    }

    #[test]
    fn copies_become_moves_and_markers_vanish() {
        let mut f = Function::new("f", Target::St231);
        let b1 = f.new_block();
        f.push(
            BlockId(0),
            Inst::new(Opc::Input, vec![r(16)], vec![], Imm::None),
        );
        f.push(BlockId(0), Inst::copy(r(5), r(16)));
        f.push(
            BlockId(0),
            Inst::new(Opc::St231(O::Goto), vec![], vec![], Imm::Block(b1)),
        );
        f.push(b1, Inst::new(Opc::Output, vec![], vec![r(16)], Imm::None));
        f.push(
            b1,
            Inst::new(Opc::St231(O::Igoto), vec![], vec![], Imm::None),
        );
        let l = lower_function(&f).unwrap();
        assert_eq!(
            l[0].len(),
            1,
            "input dropped, goto to the next block dropped"
        );
        let op = l[0][0].st231().unwrap();
        assert_eq!(op.opc, O::Add);
        assert_eq!(op.s1, 0);
        assert!(l[0][0]
            .annotation()
            .contains(simulator::object::OpFlags::COPY));
        assert_eq!(l[1].len(), 1);
    }

    #[test]
    fn branch_to_next_block_is_inverted() {
        let mut f = Function::new("f", Target::St231);
        let b1 = f.new_block();
        let b2 = f.new_block();
        let c = Operand::new(PReg::new(RegClass::B, 0));
        f.push(
            BlockId(0),
            Inst::new(Opc::St231(O::Br), vec![], vec![c], Imm::Block(b1)),
        );
        f.push(
            BlockId(0),
            Inst::new(Opc::St231(O::Goto), vec![], vec![], Imm::Block(b2)),
        );
        for b in [b1, b2] {
            f.push(
                b,
                Inst::new(Opc::St231(O::Igoto), vec![], vec![], Imm::None),
            );
        }
        let l = lower_function(&f).unwrap();
        assert_eq!(l[0].len(), 1);
        assert_eq!(l[0][0].st231().unwrap().opc, O::Brf);
        assert_eq!(l[0][0].fixup, crate::emit::Fixup::Block(b2));
    }

    #[test]
    fn jumps_are_threaded_through_forwarding_blocks() {
        // b0: br b2 / goto b4; b1: return; b2: goto b3; b3: goto b4 (dropped: empty, falls
        // through); b4: return; b5: goto b5 (a cycle must not hang)
        let mut f = Function::new("f", Target::St231);
        let ids: Vec<BlockId> = (0..5).map(|_| f.new_block()).collect();
        let (b1, b2, b3, b4, b5) = (ids[0], ids[1], ids[2], ids[3], ids[4]);
        let c = Operand::new(PReg::new(RegClass::B, 0));
        let goto = |t| Inst::new(Opc::St231(O::Goto), vec![], vec![], Imm::Block(t));
        let ret = || Inst::new(Opc::St231(O::Igoto), vec![], vec![], Imm::None);
        f.push(
            BlockId(0),
            Inst::new(Opc::St231(O::Br), vec![], vec![c], Imm::Block(b2)),
        );
        f.push(BlockId(0), goto(b4));
        f.push(b1, ret());
        f.push(b2, goto(b3));
        f.push(b3, goto(b4));
        f.push(b4, ret());
        f.push(b5, goto(b5));
        let l = lower_function(&f).unwrap();
        assert!(l[3].is_empty());
        assert_eq!(
            l[0][0].fixup,
            Fixup::Block(b4),
            "through b2 and the empty b3"
        );
        assert_eq!(l[0][1].fixup, Fixup::Block(b4));
        assert_eq!(l[5][0].fixup, Fixup::Block(b5));
        assert_eq!(thread_jumps(&mut l.clone()), 0, "threading is idempotent");
    }

    #[test]
    fn leftovers_are_errors() {
        let mut f = Function::new("f", Target::St231);
        let v = f.new_vreg(RegClass::R);
        f.push(
            BlockId(0),
            Inst::new(
                Opc::St231(O::Add),
                vec![Operand::new(v)],
                vec![r(1)],
                Imm::Int(1),
            ),
        );
        let e = lower_function(&f).unwrap_err();
        assert!(e.to_string().contains("virtual register"), "{e}");
        let mut g = Function::new("g", Target::St231);
        g.push(BlockId(0), Inst::phi(v, vec![]));
        assert!(lower_function(&g).is_err());
        let mut h = Function::new("h", Target::St231);
        h.push(
            BlockId(0),
            Inst::new(
                Opc::St231(O::Ldw),
                vec![r(1)],
                vec![r(12)],
                Imm::Frame {
                    idx: crate::mir::FrameIdx(0),
                    offset: 0,
                },
            ),
        );
        let e = lower_function(&h).unwrap_err();
        assert!(e.to_string().contains("frame"), "{e}");
    }
}
