//! Post-increment planning (isa.md §B4 "post-modify `@(Pn !+ u5)`"; Rastello et al. 2004
//! Fig. 2 S1: the incremented pointer is a new SSA variable whose definition is tied to the
//! base — a renaming constraint the out-of-SSA translation must honour).
//!
//! Pattern: `p2 = add p1, c` (or `sub`) with pointer type, `c` a constant multiple of the
//! access size `s` with `1 <= |c|/s <= 31` (`u5`), and a load or store through exactly `p1`
//! in the same block. The access becomes `LDx %x, %p2 = %p1^%p2, #k` and the add disappears.
//! Legality: the access defines `p2`, so if it comes after the add, no use of `p2` may lie
//! between them (the access included). `p1` may stay live afterwards: SSA keeps both
//! values, and out-of-SSA inserts the copy the tie then needs.
//!
//! Choice: the last access through `p1` before the add, else the first one after it. Each
//! access folds at most one add.
//!
//! Complexity: O(n) per block to index accesses, plus a capped scan per candidate.

use super::Selector;
use crate::ir::{self, BinOp, Op, Ty, Value};
use std::collections::{HashMap, HashSet};

/// Scan limit between an add and a later access (keeps the planner linear).
const SCAN_CAP: usize = 64;

/// Which accesses fold which pointer increments.
#[derive(Clone, Debug, Default)]
pub(crate) struct Plan {
    /// Access `(block, inst index)` → (the incremented pointer `p2`, byte increment).
    pub accesses: HashMap<(ir::BlockId, usize), (Value, i32)>,
    /// The increments folded into an access (no code at their own definition).
    pub folded_adds: HashSet<Value>,
}

fn access_of(op: &Op) -> Option<(Value, u32)> {
    match op {
        Op::Load { ty, addr, .. } => Some((*addr, ty.size())),
        Op::Store { ty, addr, .. } => Some((*addr, ty.size())),
        _ => None,
    }
}

pub(crate) fn plan(s: &Selector<'_>) -> Plan {
    let f = s.f;
    let mut out = Plan::default();
    for b in f.block_ids() {
        let insts = &f.block(b).insts;
        // Accesses of the block by resolved base, in order.
        let mut by_base: HashMap<Value, Vec<usize>> = HashMap::new();
        for (i, inst) in insts.iter().enumerate() {
            if let Some((addr, _)) = access_of(&inst.op) {
                by_base.entry(s.resolve(addr)).or_default().push(i);
            }
        }
        if by_base.is_empty() {
            continue;
        }
        for (ai, inst) in insts.iter().enumerate() {
            let (Some(p2), Op::Bin(op @ (BinOp::Add | BinOp::Sub), x, y)) = (inst.dst, &inst.op)
            else {
                continue;
            };
            if f.value_ty(p2) != Ty::Ptr || f.value_ty(*x) != Ty::Ptr {
                continue;
            }
            let Some(c) = s.const_of(*y) else {
                continue;
            };
            let c = if *op == BinOp::Sub {
                c.checked_neg()
            } else {
                Some(c)
            };
            let Some(c) = c else {
                continue;
            };
            let p1 = s.resolve(*x);
            let Some(list) = by_base.get(&p1) else {
                continue;
            };
            let fits = |i: usize| {
                let (_, size) = access_of(&insts[i].op).expect("an access");
                let size = size as i32;
                c % size == 0 && (1..=31).contains(&(c / size).abs())
            };
            let free = |i: usize| !out.accesses.contains_key(&(b, i));
            let before = list
                .iter()
                .rev()
                .copied()
                .find(|&i| i < ai && fits(i) && free(i));
            let chosen = before.or_else(|| {
                let i = list.iter().copied().find(|&i| i > ai)?;
                (fits(i) && free(i) && i - ai <= SCAN_CAP && !used_between(s, insts, ai, i, p2))
                    .then_some(i)
            });
            if let Some(i) = chosen {
                out.accesses.insert((b, i), (p2, c));
                out.folded_adds.insert(p2);
            }
        }
    }
    out
}

/// Whether `v` is used by an instruction in `(from, to]`.
fn used_between(s: &Selector<'_>, insts: &[ir::Inst], from: usize, to: usize, v: Value) -> bool {
    insts[from + 1..=to].iter().any(|inst| {
        let mut hit = false;
        inst.op.for_each_use(|u| hit |= s.resolve(u) == v);
        hit
    })
}
