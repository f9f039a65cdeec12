//! Loop-invariant code motion: pure, non-trapping instructions whose operands are all defined
//! outside a loop move to the end of the loop's preheader.
//!
//! Hoisted: `const`, `addr`, `slot`, non-trapping arithmetic, unary operations, comparisons and
//! selects. Never hoisted: loads (memory may change, or the access may fault on a path that
//! skips it), stores, calls, divisions (may trap), phis.
//!
//! Loops are handled innermost first, and each loop's blocks in reverse post-order, so a chain
//! of invariant instructions moves together (operands first) and an instruction hoisted into an
//! inner loop's preheader can move on out of the enclosing loop. Loops whose header has several
//! outside predecessors (no preheader) are skipped.
//!
//! Why it is sound: an operand defined outside the loop that dominates a use inside strictly
//! dominates the header, hence the preheader (the only way in); the preheader dominates the
//! whole loop and everything the moved instruction dominated. Moving a non-trapping pure
//! instruction onto a path that skips the loop only costs time.
//!
//! The main customer is strength reduction, which needs loop-invariant bases: a front end
//! computes `addr @array` next to every access, inside the loop.
//!
//! Complexity: O(instructions in loops × nesting depth).

use crate::analysis::cfg::{Cfg, NONE};
use crate::analysis::dom::DomTree;
use crate::analysis::loops::{LoopForest, LoopId};
use crate::ir::{BlockId, Function, Op};

/// What LICM did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LicmStats {
    pub hoisted: usize,
    pub loops_without_preheader: usize,
}

/// Hoists loop-invariant instructions of `f` (see the module doc).
pub fn licm(f: &mut Function) -> LicmStats {
    let cfg = Cfg::compute(f);
    let dom = DomTree::compute(&cfg);
    let loops = LoopForest::compute(&cfg, &dom);
    let mut stats = LicmStats::default();
    if loops.num_loops() == 0 {
        return stats;
    }
    // Block of each value's definition (parameters: the entry).
    let mut def_block = vec![NONE; f.num_values()];
    for p in &f.params {
        def_block[p.index()] = BlockId::ENTRY.0;
    }
    for (b, block) in f.blocks.iter().enumerate() {
        for inst in &block.insts {
            if let Some(d) = inst.dst {
                def_block[d.index()] = b as u32;
            }
        }
    }
    for l in 0..loops.num_loops() {
        let l = LoopId(l as u32);
        let header = loops.get(l).header;
        let mut outside = cfg
            .preds(header)
            .iter()
            .copied()
            .filter(|&p| !loops.contains(l, p));
        let (Some(pre), None) = (outside.next(), outside.next()) else {
            stats.loops_without_preheader += 1;
            continue;
        };
        let mut blocks = loops.blocks(l).to_vec();
        blocks.sort_by_key(|&b| cfg.rpo_number(b));
        let invariant = |v: crate::ir::Value, def_block: &[u32]| {
            let d = def_block[v.index()];
            d != NONE && !loops.contains(l, BlockId(d))
        };
        for b in blocks {
            let old = std::mem::take(&mut f.blocks[b.index()].insts);
            let mut kept = Vec::with_capacity(old.len());
            for inst in old {
                let movable = inst.dst.is_some() && is_hoistable(&inst.op) && {
                    let mut all = true;
                    inst.op.for_each_use(|v| all &= invariant(v, &def_block));
                    all
                };
                if movable {
                    let d = inst.dst.expect("checked");
                    def_block[d.index()] = pre.0;
                    f.blocks[pre.index()].insts.push(inst);
                    stats.hoisted += 1;
                } else {
                    kept.push(inst);
                }
            }
            f.blocks[b.index()].insts = kept;
        }
    }
    stats
}

fn is_hoistable(op: &Op) -> bool {
    match op {
        Op::Const(_) | Op::SymAddr(..) | Op::SlotAddr(_) | Op::Un(..) | Op::Cmp(..) => true,
        Op::Select(..) => true,
        Op::Bin(o, ..) => !o.can_trap(),
        Op::Copy(_) | Op::Load { .. } | Op::Store { .. } | Op::Call { .. } | Op::Phi(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse::parse_function;

    #[test]
    fn hoists_address_chain_out_of_nested_loops() {
        let mut f = parse_function(
            "func @f(%0:i32) {
b0:
  %1:i32 = const 0
  jmp b1
b1:
  %2:i32 = phi [b0: %1], [b4: %3]
  %4:i32 = cmp.lt %2, %0
  br %4, b2, b5
b2:
  jmp b3
b3:
  %5:i32 = phi [b2: %1], [b3: %6]
  %7:ptr = addr @tab+0
  %8:i32 = const 4
  %9:ptr = add %7, %8
  %10:i32 = load.i32 %9
  %11:i32 = divs %0, %8
  %12:i32 = add %5, %2
  %6:i32 = add %5, %10
  %13:i32 = cmp.lt %6, %0
  br %13, b3, b4
b4:
  %14:i32 = const 1
  %3:i32 = add %2, %14
  jmp b1
b5:
  ret
}",
        )
        .unwrap();
        let stats = licm(&mut f);
        crate::ssa::verify_function(&f).unwrap();
        // %7, %8, %9 leave both loops (via b2, then b0); %14 leaves the outer loop. The load,
        // the division and anything using a phi stay.
        assert_eq!(stats.hoisted, 7);
        let expect = parse_function(
            "func @f(%0:i32) {
b0:
  %1:i32 = const 0
  %7:ptr = addr @tab+0
  %8:i32 = const 4
  %9:ptr = add %7, %8
  %14:i32 = const 1
  jmp b1
b1:
  %2:i32 = phi [b0: %1], [b4: %3]
  %4:i32 = cmp.lt %2, %0
  br %4, b2, b5
b2:
  jmp b3
b3:
  %5:i32 = phi [b2: %1], [b3: %6]
  %10:i32 = load.i32 %9
  %11:i32 = divs %0, %8
  %12:i32 = add %5, %2
  %6:i32 = add %5, %10
  %13:i32 = cmp.lt %6, %0
  br %13, b3, b4
b4:
  %3:i32 = add %2, %14
  jmp b1
b5:
  ret
}",
        )
        .unwrap();
        assert_eq!(f.to_string(), expect.to_string());
    }
}
