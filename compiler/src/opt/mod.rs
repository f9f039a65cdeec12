//! SSA optimisations that real compilers run before leaving SSA, one module per pass. Every pass
//! takes strict SSA and returns strict SSA (checked by the verifier after every pass in tests).
//!
//! * [`copy_prop`] — copy propagation / folding, trivial-phi removal (makes SSA
//!   non-conventional: the situation the out-of-SSA papers are about);
//! * [`sccp`] — sparse conditional constant propagation (Wegman–Zadeck);
//! * [`gvn`] — dominator-based value numbering (scoped CSE) with commutativity;
//! * [`dce`] — mark-sweep dead-code elimination (dead phi cycles included);
//! * [`licm`] — loop-invariant code motion of pure instructions to the preheader;
//! * [`strength_reduce`] — induction-variable strength reduction of address computations into
//!   pointer induction variables (feeds ST120 post-increment addressing);
//! * [`peephole`] — algebraic simplification (`x+0`, `x*1`, `x*2^n -> shl`, ...);
//! * [`simplify_cfg`] — forwarding of empty blocks and merging of straight-line blocks.
//!
//! Shared helpers live here: a value substitution with chain resolution ([`Subst`]), marks
//! for deleting instructions ([`InstMarks`]), and the constant table ([`const_values`]).

pub mod copy_prop;
pub mod dce;
pub mod gvn;
pub mod licm;
pub mod peephole;
pub mod sccp;
pub mod simplify_cfg;
pub mod strength_reduce;

use crate::analysis::bitset::BitSet;
use crate::analysis::cfg::NONE;
use crate::ir::{Function, Op, Value};

/// A substitution of values by values ("replace all uses of `x` by `y`"), resolved through
/// chains (`x -> y -> z` gives `z`) with path compression.
#[derive(Clone, Debug)]
pub struct Subst {
    map: Vec<u32>,
    changed: bool,
}

impl Subst {
    pub fn new(num_values: usize) -> Self {
        Subst {
            map: vec![NONE; num_values],
            changed: false,
        }
    }

    /// Records that every use of `from` must become a use of `to`.
    pub fn set(&mut self, from: Value, to: Value) {
        debug_assert_ne!(self.resolve(to), from, "substitution cycle");
        if from.index() >= self.map.len() {
            self.map.resize(from.index() + 1, NONE);
        }
        self.map[from.index()] = to.0;
        self.changed = true;
    }

    /// True if no substitution was recorded.
    pub fn is_empty(&self) -> bool {
        !self.changed
    }

    /// The final replacement of `v` (itself if none).
    pub fn resolve(&mut self, v: Value) -> Value {
        let mut root = v.0;
        while let Some(&next) = self.map.get(root as usize) {
            if next == NONE {
                break;
            }
            root = next;
        }
        // Path compression.
        let mut x = v.0;
        while let Some(&next) = self.map.get(x as usize) {
            if next == NONE || next == root {
                break;
            }
            self.map[x as usize] = root;
            x = next;
        }
        Value(root)
    }

    /// Rewrites every operand of `f` (phi arguments and terminators included); returns the
    /// number of operands changed.
    pub fn apply(&mut self, f: &mut Function) -> usize {
        if !self.changed {
            return 0;
        }
        let mut n = 0;
        for block in &mut f.blocks {
            for inst in &mut block.insts {
                inst.op.for_each_use_mut(|v| {
                    let r = self.resolve(*v);
                    if r != *v {
                        *v = r;
                        n += 1;
                    }
                });
            }
            block.term.for_each_use_mut(|v| {
                let r = self.resolve(*v);
                if r != *v {
                    *v = r;
                    n += 1;
                }
            });
        }
        n
    }
}

/// One mark per instruction of a function, for deleting instructions in one sweep.
pub struct InstMarks {
    start: Vec<usize>,
    marks: BitSet,
}

impl InstMarks {
    pub fn new(f: &Function) -> Self {
        let mut start = Vec::with_capacity(f.num_blocks() + 1);
        let mut total = 0;
        for b in &f.blocks {
            start.push(total);
            total += b.insts.len();
        }
        start.push(total);
        InstMarks {
            start,
            marks: BitSet::new(total),
        }
    }

    pub fn mark(&mut self, block: usize, inst: usize) {
        self.marks.insert(self.start[block] + inst);
    }

    pub fn is_marked(&self, block: usize, inst: usize) -> bool {
        self.marks.contains(self.start[block] + inst)
    }

    pub fn count(&self) -> usize {
        self.marks.count()
    }

    /// Deletes the marked instructions (the function's shape must be unchanged since
    /// [`InstMarks::new`]). Returns how many were deleted.
    pub fn delete_marked(&self, f: &mut Function) -> usize {
        let mut deleted = 0;
        for (b, block) in f.blocks.iter_mut().enumerate() {
            let base = self.start[b];
            debug_assert_eq!(self.start[b + 1] - base, block.insts.len());
            let mut k = 0;
            block.insts.retain(|_| {
                let keep = !self.marks.contains(base + k);
                k += 1;
                deleted += usize::from(!keep);
                keep
            });
        }
        deleted
    }
}

/// For every value defined by `const c`, `Some(c)`.
pub fn const_values(f: &Function) -> Vec<Option<i32>> {
    let mut c = vec![None; f.num_values()];
    for block in &f.blocks {
        for inst in &block.insts {
            if let (Some(d), Op::Const(k)) = (inst.dst, &inst.op) {
                c[d.index()] = Some(*k);
            }
        }
    }
    c
}

/// Number of `copy` instructions in `f`.
pub fn count_copies(f: &Function) -> usize {
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| matches!(i.op, Op::Copy(_)))
        .count()
}

#[cfg(test)]
mod tests;
