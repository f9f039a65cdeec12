//! If-conversion of small diamonds and triangles into guarded code with psi merges
//! (isa.md §B4 "Full predication"; psi-SSA of Stoutchinin & de Ferrière 2001, the form
//! the LAO's out-of-SSA handles, Rastello et al. 2004 §1).
//!
//! Shapes (IR blocks): a head `h` ending in `br c, t, e`, and
//! * a **diamond**: `t` and `e` each have `h` as only predecessor and jump to the same `j`,
//!   whose predecessors are exactly `t` and `e`;
//! * a **triangle**: one arm `a ∈ {t, e}` has `h` as only predecessor and jumps to the other
//!   successor `j`, whose predecessors are exactly `h` and `a`.
//!
//! Conditions: `j` has phis, `j` is neither `h` nor the entry, and each arm holds at most
//! [`MAX_ARM_OPS`] operations that are side-effect free and cannot trap (no loads, stores,
//! calls, divisions, compares or selects; constants, copies and addresses are free).
//!
//! Code: the condition into `g` and the opposite condition into `g'` (the inverted compare,
//! or `EQW/NEW.i c, 0`), the arms' operations guarded by `g` / `g'` (flag `GUARDED`, guard =
//! last use), then each phi of `j` becomes `psi [g: a], [g': b]` (diamond) or
//! `psi [G15: a], [g: b]` (triangle, `a` from the head) — values not defined by the arm are
//! brought in by a guarded `MOVE` (`MAKE` for constants). `h`, the arms and `j` become one
//! machine block.
//!
//! Complexity: O(blocks + instructions).

use super::{class_of, Selector};
use crate::ir::{self, BlockId, Op, Value};
use crate::isel::IselError;
use crate::mir::{Reg, RegClass, VReg};
use std::collections::{HashMap, HashSet};

/// Largest number of (non-free) operations per arm.
pub const MAX_ARM_OPS: usize = 4;

/// One region to convert.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct IfConv {
    pub head: BlockId,
    /// The arm executed when the condition holds, and the one executed when it does not.
    pub on_true: Option<BlockId>,
    pub on_false: Option<BlockId>,
    pub join: BlockId,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Plans {
    pub by_head: HashMap<BlockId, IfConv>,
    /// Arms and joins: selected together with their head.
    pub absorbed: HashSet<BlockId>,
}

/// Whether `b` can be executed under a guard.
fn convertible_arm(f: &ir::Function, b: BlockId) -> bool {
    let blk = f.block(b);
    let mut ops = 0;
    for inst in &blk.insts {
        match &inst.op {
            Op::Const(_) | Op::Copy(_) | Op::SymAddr(..) | Op::SlotAddr(_) => {}
            Op::Bin(op, ..) if !op.can_trap() => ops += if *op == ir::BinOp::Mul { 3 } else { 1 },
            Op::Un(..) => ops += 1,
            _ => return false,
        }
    }
    ops <= MAX_ARM_OPS
}

fn jumps_to(f: &ir::Function, b: BlockId) -> Option<BlockId> {
    match f.block(b).term {
        ir::Terminator::Jump(t) => Some(t),
        _ => None,
    }
}

pub(crate) fn plan(s: &Selector<'_>, rpo: &[BlockId], preds: &[Vec<BlockId>]) -> Plans {
    let f = s.f;
    let mut out = Plans::default();
    let only = |b: BlockId, p: BlockId| preds[b.index()] == [p];
    let same_set = |b: BlockId, x: BlockId, y: BlockId| {
        let p = &preds[b.index()];
        p.len() == 2 && p.contains(&x) && p.contains(&y)
    };
    for &h in rpo {
        if out.absorbed.contains(&h) {
            continue;
        }
        let ir::Terminator::Branch { then_, else_, .. } = f.block(h).term else {
            continue;
        };
        let ok_join = |j: BlockId| {
            j != h
                && j != BlockId::ENTRY
                && f.block(j).phi_count() > 0
                && !out.absorbed.contains(&j)
        };
        let arm_ok =
            |a: BlockId| a != h && a != BlockId::ENTRY && only(a, h) && convertible_arm(f, a);
        let mut region = None;
        if arm_ok(then_) && arm_ok(else_) {
            if let (Some(j1), Some(j2)) = (jumps_to(f, then_), jumps_to(f, else_)) {
                if j1 == j2 && ok_join(j1) && same_set(j1, then_, else_) {
                    region = Some(IfConv {
                        head: h,
                        on_true: Some(then_),
                        on_false: Some(else_),
                        join: j1,
                    });
                }
            }
        }
        if region.is_none()
            && arm_ok(then_)
            && jumps_to(f, then_) == Some(else_)
            && ok_join(else_)
            && same_set(else_, h, then_)
        {
            region = Some(IfConv {
                head: h,
                on_true: Some(then_),
                on_false: None,
                join: else_,
            });
        }
        if region.is_none()
            && arm_ok(else_)
            && jumps_to(f, else_) == Some(then_)
            && ok_join(then_)
            && same_set(then_, h, else_)
        {
            region = Some(IfConv {
                head: h,
                on_true: None,
                on_false: Some(else_),
                join: then_,
            });
        }
        if let Some(r) = region {
            out.absorbed.extend(r.on_true);
            out.absorbed.extend(r.on_false);
            out.absorbed.insert(r.join);
            out.by_head.insert(h, r);
        }
    }
    out
}

impl Selector<'_> {
    /// Emits the converted region after the head's body; returns the join, whose body the
    /// caller selects next into the same machine block.
    pub(crate) fn convert(&mut self, r: &IfConv) -> Result<BlockId, IselError> {
        let cond = match self.f.block(r.head).term {
            ir::Terminator::Branch { cond, .. } => cond,
            _ => return Err(self.error("if-conversion of a block without a branch")),
        };
        // A triangle needs one guard, a diamond both (the opposite compare, not NOTG, so
        // that both guards are ready at once).
        let g_true = match r.on_true {
            Some(_) => self.cond_guard(cond, false)?,
            None => self.g15_vreg(),
        };
        let g_false = match r.on_false {
            Some(_) => self.cond_guard(cond, true)?,
            None => self.g15_vreg(),
        };
        for (arm, g) in [(r.on_true, g_true), (r.on_false, g_false)] {
            if let Some(a) = arm {
                self.mblock[a.index()] = Some(self.cur);
                self.guard = Some(g);
                self.select_body(a)?;
                self.guard = None;
            }
        }
        self.mblock[r.join.index()] = Some(self.cur);
        let f = self.f;
        let phis = f.block(r.join).insts.iter().take_while(|i| i.op.is_phi());
        for inst in phis {
            let (Some(d), Op::Phi(args)) = (inst.dst, &inst.op) else {
                continue;
            };
            let c = class_of(self.ty(d));
            let fname = &self.f.name;
            let arg = |from: BlockId| -> Result<Value, IselError> {
                args.iter()
                    .find(|(p, _)| *p == from)
                    .map(|&(_, v)| v)
                    .ok_or_else(|| IselError {
                        function: fname.clone(),
                        message: format!("phi of {} lacks {from}", r.join),
                    })
            };
            let pairs = match (r.on_true, r.on_false) {
                (Some(t), Some(e)) => {
                    let a = self.arm_value(arg(t)?, t, c, g_true)?;
                    let b = self.arm_value(arg(e)?, e, c, g_false)?;
                    vec![(g_true, a), (g_false, b)]
                }
                (Some(t), None) => {
                    let a = self.get(arg(r.head)?, c)?;
                    let b = self.arm_value(arg(t)?, t, c, g_true)?;
                    vec![(self.g15_vreg(), a), (g_true, b)]
                }
                (None, Some(e)) => {
                    let a = self.get(arg(r.head)?, c)?;
                    let b = self.arm_value(arg(e)?, e, c, g_false)?;
                    vec![(self.g15_vreg(), a), (g_false, b)]
                }
                (None, None) => return Err(self.error("if-conversion without arms")),
            };
            let v = self.psi_pairs(c, &pairs);
            self.define_here(d, c, v);
        }
        self.stats.if_conversions += 1;
        Ok(r.join)
    }

    /// A guarded definition of `v` for the psi: the arm's own guarded value if the arm
    /// computes it, else a guarded `MOVE`/`MAKE`.
    fn arm_value(
        &mut self,
        v: Value,
        arm: BlockId,
        c: RegClass,
        g: VReg,
    ) -> Result<VReg, IselError> {
        let root = self.resolve(v);
        let in_arm = self.def_at[root.index()].is_some_and(|(b, _)| b == arm);
        if in_arm && self.const_of(root).is_none() {
            return self.get(root, c);
        }
        self.guarded_copy(root, c, g)
    }

    /// Marker for the always-true guard in psi pairs (replaced by `G15` in [`psi_pairs`]).
    fn g15_vreg(&self) -> VReg {
        VReg(u32::MAX)
    }

    /// `psi` with the `G15` marker turned into the physical always-true guard.
    fn psi_pairs(&mut self, c: RegClass, pairs: &[(VReg, VReg)]) -> VReg {
        let d = self.psi(c, pairs);
        let marker = self.g15_vreg();
        let blk = self.mf.block_mut(self.cur);
        if let Some(inst) = blk.insts.last_mut() {
            for u in inst.uses.iter_mut() {
                if u.reg == Reg::V(marker) {
                    u.reg = Reg::P(Self::g15());
                }
            }
        }
        d
    }
}
