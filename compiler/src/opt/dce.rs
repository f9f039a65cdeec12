//! Dead-code elimination by mark and sweep (the "useful instruction" formulation of Cytron et
//! al. 1991, §7.1, without control dependence: branches are always kept).
//!
//! Roots are the instructions whose effect is not their result — stores, calls, volatile
//! loads, divisions that may trap — and the operands of terminators. Marking follows operands
//! backwards through definitions; everything unmarked is deleted. Because phis are only marked
//! when something live uses them, dead phis and whole dead phi cycles (`x = phi(.., y)`,
//! `y = x + 1`, nothing else using them) disappear, which a use-count-based cleanup misses.
//!
//! A division or remainder by a constant other than 0 cannot trap and is removed when unused.
//!
//! Complexity: O(instructions + operands).

use super::{const_values, InstMarks};
use crate::analysis::defuse::{Def, DefUse};
use crate::ir::{Function, Op, Value};

/// What DCE did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DceStats {
    pub insts_removed: usize,
    pub phis_removed: usize,
}

/// Removes dead instructions from `f` (see the module doc).
pub fn dce(f: &mut Function) -> DceStats {
    let du = DefUse::compute(f);
    let consts = const_values(f);
    let mut live = vec![false; f.num_values()];
    let mut work: Vec<Value> = Vec::new();
    let mut mark = |v: Value, work: &mut Vec<Value>| {
        if !std::mem::replace(&mut live[v.index()], true) {
            work.push(v);
        }
    };
    for block in &f.blocks {
        for inst in &block.insts {
            if is_root(&inst.op, &consts) {
                inst.op.for_each_use(|v| mark(v, &mut work));
                if let Some(d) = inst.dst {
                    mark(d, &mut work);
                }
            }
        }
        block.term.for_each_use(|v| mark(v, &mut work));
    }
    while let Some(v) = work.pop() {
        if let Some(Def::Inst { block, inst }) = du.def(v) {
            f.blocks[block.index()].insts[inst as usize]
                .op
                .for_each_use(|u| mark(u, &mut work));
        }
    }
    let mut dead = InstMarks::new(f);
    let mut stats = DceStats::default();
    for (b, block) in f.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            let needed = is_root(&inst.op, &consts) || inst.dst.is_some_and(|d| live[d.index()]);
            if !needed {
                dead.mark(b, i);
                if inst.op.is_phi() {
                    stats.phis_removed += 1;
                } else {
                    stats.insts_removed += 1;
                }
            }
        }
    }
    dead.delete_marked(f);
    stats
}

/// Must the instruction stay whatever happens to its result?
fn is_root(op: &Op, consts: &[Option<i32>]) -> bool {
    match op {
        Op::Bin(o, _, divisor) if o.can_trap() => {
            !matches!(consts[divisor.index()], Some(c) if c != 0)
        }
        _ => op.has_side_effects(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse::parse_function;

    #[test]
    fn removes_dead_phi_cycle_and_keeps_effects() {
        let mut f = parse_function(
            "func @f(%0:ptr, %1:i32) {
b0:
  %2:i32 = const 0
  %3:i32 = const 3
  %4:i32 = divs %1, %3
  %5:i32 = divs %1, %2
  jmp b1
b1:
  %6:i32 = phi [b0: %2], [b1: %7]
  %7:i32 = add %6, %3
  %8:i32 = load.i32.volatile %0
  %9:i32 = load.i32 %0
  store.i32 %0, %1
  br %1, b1, b2
b2:
  ret
}",
        )
        .unwrap();
        let stats = dce(&mut f);
        assert_eq!(
            stats,
            DceStats {
                insts_removed: 4,
                phis_removed: 1
            }
        );
        let expect = parse_function(
            "func @f(%0:ptr, %1:i32) {
b0:
  %2:i32 = const 0
  %5:i32 = divs %1, %2
  jmp b1
b1:
  %8:i32 = load.i32.volatile %0
  store.i32 %0, %1
  br %1, b1, b2
b2:
  ret
}",
        )
        .unwrap();
        assert_eq!(f.to_string(), expect.to_string());
    }
}
