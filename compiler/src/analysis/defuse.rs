//! Definition and use sites of every value (def-use chains), in compressed form.
//!
//! For SSA code each value has one definition: a parameter (defined at the top of the entry
//! block) or an instruction. Uses are listed per value with their block and instruction index
//! ([`TERM`] for the terminator); a phi use also records the predecessor it comes from, since
//! the SSA liveness convention places it at the end of that predecessor.
//!
//! The structure also works on non-SSA code: [`DefUse::num_defs`] counts definitions, and
//! [`DefUse::def`] gives the first one found.
//!
//! Complexity: O(instructions + operands) to build; it is a snapshot — rebuild after edits.

use super::cfg::NONE;
use crate::ir::{BlockId, Function, Value};

/// Instruction index used for a block's terminator.
pub const TERM: u32 = u32::MAX;

/// Where a value is defined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Def {
    /// Function parameter number `k` (defined at the top of the entry block).
    Param(u32),
    /// Instruction `inst` of `block`.
    Inst { block: BlockId, inst: u32 },
}

impl Def {
    /// The block of the definition (the entry for parameters).
    pub fn block(self) -> BlockId {
        match self {
            Def::Param(_) => BlockId::ENTRY,
            Def::Inst { block, .. } => block,
        }
    }
}

/// One use of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Use {
    pub block: BlockId,
    /// Index of the using instruction in `block`, or [`TERM`].
    pub inst: u32,
    /// For a phi argument: the predecessor the argument comes from.
    pub phi_pred: Option<BlockId>,
}

impl Use {
    /// The block where the use makes the value live: the phi predecessor (at its end) for a
    /// phi argument, otherwise the using block.
    #[inline]
    pub fn live_block(&self) -> BlockId {
        self.phi_pred.unwrap_or(self.block)
    }
}

const PARAM_BLOCK: u32 = NONE - 1;

/// Def-use chains of one function.
#[derive(Clone, Debug, Default)]
pub struct DefUse {
    def_block: Vec<u32>,
    def_inst: Vec<u32>,
    num_defs: Vec<u32>,
    def_is_phi: Vec<bool>,
    use_start: Vec<u32>,
    uses: Vec<Use>,
    stamp: u64,
}

/// Source of [`DefUse::stamp`] values.
static NEXT_STAMP: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl DefUse {
    pub fn compute(f: &Function) -> Self {
        let mut du = DefUse::default();
        du.recompute(f);
        du
    }

    /// Recomputes for `f`, reusing memory.
    pub fn recompute(&mut self, f: &Function) {
        self.stamp = NEXT_STAMP.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let n = f.num_values();
        self.def_block.clear();
        self.def_block.resize(n, NONE);
        self.def_inst.clear();
        self.def_inst.resize(n, NONE);
        self.num_defs.clear();
        self.num_defs.resize(n, 0);
        self.def_is_phi.clear();
        self.def_is_phi.resize(n, false);
        self.use_start.clear();
        self.use_start.resize(n + 1, 0);
        for (k, p) in f.params.iter().enumerate() {
            self.note_def(*p, PARAM_BLOCK, k as u32);
        }
        for (b, block) in f.blocks.iter().enumerate() {
            for (i, inst) in block.insts.iter().enumerate() {
                if let Some(d) = inst.dst {
                    self.note_def(d, b as u32, i as u32);
                    if inst.op.is_phi() && self.num_defs[d.index()] == 1 {
                        self.def_is_phi[d.index()] = true;
                    }
                }
                inst.op.for_each_use(|v| self.use_start[v.index() + 1] += 1);
            }
            block
                .term
                .for_each_use(|v| self.use_start[v.index() + 1] += 1);
        }
        for v in 0..n {
            self.use_start[v + 1] += self.use_start[v];
        }
        self.uses.clear();
        self.uses.resize(
            self.use_start[n] as usize,
            Use {
                block: BlockId(0),
                inst: 0,
                phi_pred: None,
            },
        );
        let mut cursor: Vec<u32> = self.use_start[..n].to_vec();
        let mut put = |v: Value, u: Use| {
            self.uses[cursor[v.index()] as usize] = u;
            cursor[v.index()] += 1;
        };
        for (b, block) in f.blocks.iter().enumerate() {
            let block_id = BlockId(b as u32);
            for (i, inst) in block.insts.iter().enumerate() {
                if let crate::ir::Op::Phi(args) = &inst.op {
                    for &(p, v) in args {
                        put(
                            v,
                            Use {
                                block: block_id,
                                inst: i as u32,
                                phi_pred: Some(p),
                            },
                        );
                    }
                } else {
                    inst.op.for_each_use(|v| {
                        put(
                            v,
                            Use {
                                block: block_id,
                                inst: i as u32,
                                phi_pred: None,
                            },
                        )
                    });
                }
            }
            block.term.for_each_use(|v| {
                put(
                    v,
                    Use {
                        block: block_id,
                        inst: TERM,
                        phi_pred: None,
                    },
                )
            });
        }
    }

    fn note_def(&mut self, v: Value, block: u32, inst: u32) {
        let k = v.index();
        if self.num_defs[k] == 0 {
            self.def_block[k] = block;
            self.def_inst[k] = inst;
        }
        self.num_defs[k] += 1;
    }

    /// A number unique to this computation (process-wide): caches keyed by it are never
    /// confused by a later [`DefUse::recompute`].
    pub fn stamp(&self) -> u64 {
        self.stamp
    }

    pub fn num_values(&self) -> usize {
        self.def_block.len()
    }

    /// The (first) definition of `v`, or `None` if `v` is never defined.
    #[inline]
    pub fn def(&self, v: Value) -> Option<Def> {
        match self.def_block[v.index()] {
            NONE => None,
            PARAM_BLOCK => Some(Def::Param(self.def_inst[v.index()])),
            b => Some(Def::Inst {
                block: BlockId(b),
                inst: self.def_inst[v.index()],
            }),
        }
    }

    /// The block defining `v` (the entry for parameters).
    #[inline]
    pub fn def_block(&self, v: Value) -> Option<BlockId> {
        match self.def_block[v.index()] {
            NONE => None,
            PARAM_BLOCK => Some(BlockId::ENTRY),
            b => Some(BlockId(b)),
        }
    }

    /// True if the (first) definition of `v` is a phi.
    #[inline]
    pub fn is_phi(&self, v: Value) -> bool {
        self.def_is_phi[v.index()]
    }

    /// Number of definitions of `v` (exactly 1 for every defined value in SSA).
    pub fn num_defs(&self, v: Value) -> u32 {
        self.num_defs[v.index()]
    }

    /// The uses of `v`, grouped by block in block order.
    #[inline]
    pub fn uses(&self, v: Value) -> &[Use] {
        let k = v.index();
        &self.uses[self.use_start[k] as usize..self.use_start[k + 1] as usize]
    }

    pub fn num_uses(&self, v: Value) -> usize {
        let k = v.index();
        (self.use_start[k + 1] - self.use_start[k]) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cfg::tests::func;

    #[test]
    fn defs_and_uses() {
        let f = func(
            "func @f(%0:i32) -> i32 {
b0:
  %1:i32 = add %0, %0
  br %1, b1, b2
b1:
  jmp b2
b2:
  %2:i32 = phi [b0: %0], [b1: %1]
  ret %2
}",
        );
        let du = DefUse::compute(&f);
        assert_eq!(du.def(Value(0)), Some(Def::Param(0)));
        assert_eq!(
            du.def(Value(2)),
            Some(Def::Inst {
                block: BlockId(2),
                inst: 0
            })
        );
        assert_eq!(du.num_uses(Value(0)), 3);
        let phi_use = du.uses(Value(1))[1];
        assert_eq!(phi_use.block, BlockId(2));
        assert_eq!(phi_use.live_block(), BlockId(1));
        assert_eq!(du.uses(Value(2))[0].inst, TERM);
    }
}
