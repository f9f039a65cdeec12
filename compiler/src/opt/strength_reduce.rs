//! Induction-variable strength reduction of address computations (the classic reduction of
//! Allen, Cocke and Kennedy, "Reduction of Operator Strength", 1981, restricted to addresses):
//! `base + i*k` inside a loop, with `i` a basic induction variable, becomes a new pointer
//! induction variable `p = phi(base + init*k, p + step*k)`. The multiplication disappears and
//! each load/store address is a pointer bumped by a constant every iteration — the form the
//! ST120 back end turns into post-increment addressing.
//!
//! For each loop with a unique outside predecessor of the header (the preheader; loops
//! without one are skipped and counted):
//! 1. *Basic induction variables*: header phis `i = phi [pre: init], [latch: n], ...` whose
//!    argument on every back edge is the same `n = i + c` (or `c + i`, `i - c`), `c` a
//!    constant.
//! 2. *Affine values*: walking the loop's blocks in reverse post-order, values
//!    `m*i + k + s*w` (constants `m`, `k`, `s`, wrapping arithmetic; `w` an optional
//!    loop-invariant value, as the outer index in `x[i + j]`) built from `i` by `+`/`-` a
//!    constant or an invariant, `*` a constant, `<<` a constant, and sums/differences of
//!    affine values of the same `i`.
//! 3. *Candidates*: `a = add base, v` in the loop where `v` is affine with `m != 0`, `base` is
//!    loop-invariant (defined outside the loop), not a plain constant, and `a` or `base` has
//!    type `ptr`; increments of induction variables are not candidates (pointer induction
//!    variables are already reduced).
//! 4. Candidates with the same `(i, base, m, k, s, w)` share one new variable `p`: the start
//!    value `base + s*w + init*m + k` is computed at the end of the preheader (folded when
//!    `init` is a constant), `p` is a phi at the header, `p_next = p + c*m` is placed right after `n`
//!    (which dominates every back edge), and every use of `a` becomes a use of `p`.
//!
//! Correctness: `p = base + i*m + k + s*w` holds on entry to the header; both `i` and `p` change
//! only there, and a use dominated by `a`'s definition cannot see a header entry since that
//! definition (unless it is in the header itself, where both are fresh), so `p` equals `a`
//! wherever `a` is available. All inserted operations are non-trapping, so computing the start
//! value on a preheader path that skips the loop is harmless.
//!
//! Start values placed in an inner loop's preheader are themselves reduced in the enclosing
//! loop by a further round of the same planning (up to [`MAX_ROUNDS`] nesting levels); dead
//! candidates (those already replaced) are ignored.
//!
//! The old `i*k` and `base + ...` become dead when nothing else uses them: run DCE after.
//! Not done: linear-function test replacement (the exit test still uses `i`).
//!
//! Complexity: O(instructions in loops × nesting depth) plus one hash lookup per candidate.

use super::{const_values, Subst};
use crate::analysis::cfg::Cfg;
use crate::analysis::defuse::{Def, DefUse};
use crate::analysis::dom::DomTree;
use crate::analysis::loops::{LoopForest, LoopId};
use crate::ir::{BinOp, BlockId, Function, Inst, Op, Ty, Value};
use std::collections::HashMap;

/// What strength reduction did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StrengthReduceStats {
    pub ivs_created: usize,
    pub addresses_reduced: usize,
    pub loops_without_preheader: usize,
}

/// A basic induction variable `phi = phi [pre: init], [latch: incr]...`, `incr = phi + step`.
#[derive(Clone, Copy, Debug)]
struct Biv {
    phi: Value,
    init: Value,
    step: i32,
    incr: Value,
}

/// `m * biv + k + scale * inv`: `inv` is a loop-invariant value (e.g. the outer index of
/// `x[i + j]` in the inner loop over `j`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Affine {
    biv: u32,
    m: i32,
    k: i32,
    inv: Option<(Value, i32)>,
}

impl Affine {
    fn scaled(self, c: i32) -> Affine {
        Affine {
            biv: self.biv,
            m: self.m.wrapping_mul(c),
            k: self.k.wrapping_mul(c),
            inv: self.inv.map(|(v, s)| (v, s.wrapping_mul(c))),
        }
    }

    fn offset(self, c: i32) -> Affine {
        Affine {
            k: self.k.wrapping_add(c),
            ..self
        }
    }

    /// `self + sign * other` for two forms of the same induction variable (at most one
    /// invariant term between them).
    fn combine(self, other: Affine, sign: i32) -> Option<Affine> {
        if self.biv != other.biv {
            return None;
        }
        let inv = match (self.inv, other.inv) {
            (Some(_), Some(_)) => return None,
            (Some(t), None) => Some(t),
            (None, Some((v, s))) => Some((v, s.wrapping_mul(sign))),
            (None, None) => None,
        };
        Some(Affine {
            biv: self.biv,
            m: self.m.wrapping_add(other.m.wrapping_mul(sign)),
            k: self.k.wrapping_add(other.k.wrapping_mul(sign)),
            inv,
        })
    }

    /// `self + sign * w` for an invariant value `w`.
    fn plus_invariant(self, w: Value, sign: i32) -> Option<Affine> {
        match self.inv {
            Some(_) => None,
            None => Some(Affine {
                inv: Some((w, sign)),
                ..self
            }),
        }
    }
}

/// One new pointer induction variable to create.
#[derive(Clone, Debug)]
struct NewIv {
    header: BlockId,
    preheader: BlockId,
    biv: Biv,
    base: Value,
    form: Affine,
    ty: Ty,
    /// Old address values replaced by the new variable.
    members: Vec<Value>,
}

/// Runs strength reduction on `f` (see the module doc).
pub fn strength_reduce(f: &mut Function) -> StrengthReduceStats {
    let cfg = Cfg::compute(f);
    let dom = DomTree::compute(&cfg);
    let loops = LoopForest::compute(&cfg, &dom);
    let mut stats = StrengthReduceStats::default();
    if loops.num_loops() == 0 {
        return stats;
    }
    for round in 0..MAX_ROUNDS {
        let mut round_stats = StrengthReduceStats::default();
        let plan = Planner::new(f, &cfg, &loops).plan(&mut round_stats);
        if round == 0 {
            stats.loops_without_preheader = round_stats.loops_without_preheader;
        }
        if plan.is_empty() {
            break;
        }
        apply(f, &cfg, &plan);
        stats.ivs_created += plan.len();
        stats.addresses_reduced += plan.iter().map(|iv| iv.members.len()).sum::<usize>();
    }
    stats
}

/// Rounds of planning: each round can reduce, in an enclosing loop, the start values that the
/// previous round placed in an inner loop's preheader (one round per nesting level).
const MAX_ROUNDS: usize = 4;

struct Planner<'a> {
    f: &'a Function,
    cfg: &'a Cfg,
    loops: &'a LoopForest,
    du: DefUse,
    consts: Vec<Option<i32>>,
    /// Affine form per value, valid when the stamp equals the current loop's stamp.
    forms: Vec<(u32, Affine)>,
    reduced: Vec<bool>,
}

impl<'a> Planner<'a> {
    fn new(f: &'a Function, cfg: &'a Cfg, loops: &'a LoopForest) -> Self {
        Planner {
            f,
            cfg,
            loops,
            du: DefUse::compute(f),
            consts: const_values(f),
            forms: vec![
                (
                    0,
                    Affine {
                        biv: 0,
                        m: 0,
                        k: 0,
                        inv: None
                    }
                );
                f.num_values()
            ],
            reduced: vec![false; f.num_values()],
        }
    }

    fn plan(&mut self, stats: &mut StrengthReduceStats) -> Vec<NewIv> {
        let mut out = Vec::new();
        for l in 0..self.loops.num_loops() {
            let l = LoopId(l as u32);
            let header = self.loops.get(l).header;
            let outside: Vec<BlockId> = self
                .cfg
                .preds(header)
                .iter()
                .copied()
                .filter(|&p| !self.loops.contains(l, p))
                .collect();
            let [preheader] = outside[..] else {
                stats.loops_without_preheader += 1;
                continue;
            };
            let bivs = self.find_bivs(l, header, preheader);
            if bivs.is_empty() {
                continue;
            }
            let stamp = l.0 + 1;
            self.compute_forms(l, stamp, &bivs);
            self.find_candidates(l, stamp, header, preheader, &bivs, &mut out);
        }
        out
    }

    fn in_loop(&self, l: LoopId, v: Value) -> bool {
        match self.du.def(v) {
            Some(Def::Inst { block, .. }) => self.loops.contains(l, block),
            _ => false,
        }
    }

    fn find_bivs(&self, l: LoopId, header: BlockId, preheader: BlockId) -> Vec<Biv> {
        let mut bivs = Vec::new();
        for inst in &self.f.block(header).insts {
            let (Op::Phi(args), Some(phi)) = (&inst.op, inst.dst) else {
                break;
            };
            let mut init = None;
            let mut incr = None;
            let mut consistent = true;
            for &(p, v) in args {
                if p == preheader {
                    init = Some(v);
                } else if incr.is_none() || incr == Some(v) {
                    incr = Some(v);
                } else {
                    consistent = false;
                }
            }
            let (Some(init), Some(incr), true) = (init, incr, consistent) else {
                continue;
            };
            if !self.in_loop(l, incr) {
                continue;
            }
            if let Some(step) = self.step_of(incr, phi) {
                bivs.push(Biv {
                    phi,
                    init,
                    step,
                    incr,
                });
            }
        }
        bivs
    }

    /// `c` if `incr` is `phi + c`, `c + phi` or `phi - c` with `c` constant.
    fn step_of(&self, incr: Value, phi: Value) -> Option<i32> {
        let Some(Def::Inst { block, inst }) = self.du.def(incr) else {
            return None;
        };
        let k = |v: Value| self.consts[v.index()];
        match self.f.block(block).insts[inst as usize].op {
            Op::Bin(BinOp::Add, a, b) if a == phi => k(b),
            Op::Bin(BinOp::Add, a, b) if b == phi => k(a),
            Op::Bin(BinOp::Sub, a, b) if a == phi => k(b).map(i32::wrapping_neg),
            _ => None,
        }
    }

    fn form(&self, stamp: u32, v: Value) -> Option<Affine> {
        let (s, a) = self.forms[v.index()];
        (s == stamp).then_some(a)
    }

    fn compute_forms(&mut self, l: LoopId, stamp: u32, bivs: &[Biv]) {
        for (i, b) in bivs.iter().enumerate() {
            self.forms[b.phi.index()] = (
                stamp,
                Affine {
                    biv: i as u32,
                    m: 1,
                    k: 0,
                    inv: None,
                },
            );
        }
        let mut blocks = self.loops.blocks(l).to_vec();
        blocks.sort_by_key(|&b| self.cfg.rpo_number(b));
        for b in blocks {
            for inst in &self.f.block(b).insts {
                let (Op::Bin(op, x, y), Some(d)) = (&inst.op, inst.dst) else {
                    continue;
                };
                if let Some(a) = self.affine_of(l, stamp, *op, *x, *y) {
                    self.forms[d.index()] = (stamp, a);
                }
            }
        }
    }

    /// A loop-invariant value that is not a constant (constants fold into `k`).
    fn is_invariant_value(&self, l: LoopId, v: Value) -> bool {
        !self.in_loop(l, v) && self.consts[v.index()].is_none() && self.du.def(v).is_some()
    }

    fn affine_of(&self, l: LoopId, stamp: u32, op: BinOp, x: Value, y: Value) -> Option<Affine> {
        let (fx, fy) = (self.form(stamp, x), self.form(stamp, y));
        let (cx, cy) = (self.consts[x.index()], self.consts[y.index()]);
        let (ix, iy) = (self.is_invariant_value(l, x), self.is_invariant_value(l, y));
        match (op, fx, fy) {
            (BinOp::Add, Some(a), Some(b)) => a.combine(b, 1),
            (BinOp::Sub, Some(a), Some(b)) => a.combine(b, -1),
            (BinOp::Add, Some(a), None) if cy.is_some() => cy.map(|c| a.offset(c)),
            (BinOp::Add, None, Some(a)) if cx.is_some() => cx.map(|c| a.offset(c)),
            (BinOp::Add, Some(a), None) if iy => a.plus_invariant(y, 1),
            (BinOp::Add, None, Some(a)) if ix => a.plus_invariant(x, 1),
            (BinOp::Sub, Some(a), None) if cy.is_some() => cy.map(|c| a.offset(c.wrapping_neg())),
            (BinOp::Sub, Some(a), None) if iy => a.plus_invariant(y, -1),
            (BinOp::Mul, Some(a), None) => cy.map(|c| a.scaled(c)),
            (BinOp::Mul, None, Some(a)) => cx.map(|c| a.scaled(c)),
            (BinOp::Shl, Some(a), None) => cy.map(|c| a.scaled(1i32.wrapping_shl(c as u32 & 31))),
            _ => None,
        }
    }

    fn find_candidates(
        &mut self,
        l: LoopId,
        stamp: u32,
        header: BlockId,
        preheader: BlockId,
        bivs: &[Biv],
        out: &mut Vec<NewIv>,
    ) {
        let mut groups: HashMap<(Value, Affine), usize> = HashMap::new();
        let f = self.f;
        for &b in self.loops.blocks(l) {
            for inst in &f.block(b).insts {
                let (Op::Bin(BinOp::Add, x, y), Some(a)) = (&inst.op, inst.dst) else {
                    continue;
                };
                // Skip dead values (among them the addresses reduced by an earlier round).
                if self.reduced[a.index()]
                    || self.du.num_uses(a) == 0
                    || bivs.iter().any(|bv| bv.incr == a)
                {
                    continue;
                }
                let pick = |base: Value, v: Value| {
                    let form = self.form(stamp, v)?;
                    let invariant = self.is_invariant_value(l, base);
                    let address = f.value_ty(a) == Ty::Ptr || f.value_ty(base) == Ty::Ptr;
                    (invariant && address && form.m != 0).then_some((base, form))
                };
                let Some((base, form)) = pick(*x, *y).or_else(|| pick(*y, *x)) else {
                    continue;
                };
                self.reduced[a.index()] = true;
                let index = *groups.entry((base, form)).or_insert_with(|| {
                    out.push(NewIv {
                        header,
                        preheader,
                        biv: bivs[form.biv as usize],
                        base,
                        form,
                        ty: f.value_ty(a),
                        members: Vec::new(),
                    });
                    out.len() - 1
                });
                out[index].members.push(a);
            }
        }
    }
}

/// Instructions to add to one block.
#[derive(Default)]
struct Additions {
    phis: Vec<Inst>,
    /// `(original index, instruction)`: insert after that instruction.
    after: Vec<(usize, Inst)>,
    at_end: Vec<Inst>,
}

fn apply(f: &mut Function, cfg: &Cfg, plan: &[NewIv]) {
    if plan.is_empty() {
        return;
    }
    let du = DefUse::compute(f);
    let consts = const_values(f);
    let mut add: Vec<Additions> = (0..f.num_blocks()).map(|_| Additions::default()).collect();
    let mut subst = Subst::new(f.num_values());
    for iv in plan {
        let p = f.new_value(iv.ty);
        let p_next = f.new_value(iv.ty);
        let pre = &mut add[iv.preheader.index()].at_end;
        let start = emit_start(f, pre, iv, consts[iv.biv.init.index()]);
        let step = f.new_value(Ty::I32);
        pre.push(Inst {
            dst: Some(step),
            op: Op::Const(iv.biv.step.wrapping_mul(iv.form.m)),
        });
        let args = cfg
            .preds(iv.header)
            .iter()
            .map(|&pred| (pred, if pred == iv.preheader { start } else { p_next }))
            .collect();
        add[iv.header.index()].phis.push(Inst {
            dst: Some(p),
            op: Op::Phi(args),
        });
        let Some(Def::Inst { block, inst }) = du.def(iv.biv.incr) else {
            unreachable!("induction increments are instructions");
        };
        add[block.index()].after.push((
            inst as usize,
            Inst {
                dst: Some(p_next),
                op: Op::Bin(BinOp::Add, p, step),
            },
        ));
        for &a in &iv.members {
            subst.set(a, p);
        }
    }
    for (b, mut additions) in add.into_iter().enumerate() {
        let block = &mut f.blocks[b];
        if additions.phis.is_empty() && additions.after.is_empty() && additions.at_end.is_empty() {
            continue;
        }
        let old = std::mem::take(&mut block.insts);
        let nphi = old.iter().take_while(|i| i.op.is_phi()).count();
        let mut insts = Vec::with_capacity(old.len() + additions.after.len() + 8);
        additions.after.sort_by_key(|&(i, _)| i);
        let mut after = additions.after.into_iter().peekable();
        for (i, inst) in old.into_iter().enumerate() {
            if i == nphi {
                insts.append(&mut additions.phis);
            }
            insts.push(inst);
            while after.peek().is_some_and(|(k, _)| *k == i) {
                insts.push(after.next().expect("peeked").1);
            }
        }
        insts.append(&mut additions.phis); // blocks made only of phis
        insts.extend(additions.at_end);
        block.insts = insts;
    }
    subst.apply(f);
}

/// Emits `base + scale*inv + init*m + k` into the preheader's tail; returns the value.
fn emit_start(f: &mut Function, pre: &mut Vec<Inst>, iv: &NewIv, init_const: Option<i32>) -> Value {
    let mut tail = Tail { f, pre };
    let form = iv.form;
    let mut start = iv.base;
    if let Some((w, scale)) = form.inv {
        let t = tail.times(w, scale);
        start = tail.bin(iv.ty, BinOp::Add, start, t);
    }
    match init_const {
        Some(init) => {
            let offset = init.wrapping_mul(form.m).wrapping_add(form.k);
            if offset != 0 {
                let c = tail.konst(offset);
                start = tail.bin(iv.ty, BinOp::Add, start, c);
            }
        }
        None => {
            let t = tail.times(iv.biv.init, form.m);
            start = tail.bin(iv.ty, BinOp::Add, start, t);
            if form.k != 0 {
                let c = tail.konst(form.k);
                start = tail.bin(iv.ty, BinOp::Add, start, c);
            }
        }
    }
    start
}

/// Appends instructions to a preheader's tail.
struct Tail<'a> {
    f: &'a mut Function,
    pre: &'a mut Vec<Inst>,
}

impl Tail<'_> {
    fn push(&mut self, ty: Ty, op: Op) -> Value {
        let v = self.f.new_value(ty);
        self.pre.push(Inst { dst: Some(v), op });
        v
    }

    fn konst(&mut self, c: i32) -> Value {
        self.push(Ty::I32, Op::Const(c))
    }

    fn bin(&mut self, ty: Ty, op: BinOp, a: Value, b: Value) -> Value {
        self.push(ty, Op::Bin(op, a, b))
    }

    /// `v * c` (a shift for a positive power of two, nothing for 1).
    fn times(&mut self, v: Value, c: i32) -> Value {
        if c == 1 {
            v
        } else if c > 0 && (c as u32).is_power_of_two() {
            let s = self.konst(c.trailing_zeros() as i32);
            self.bin(Ty::I32, BinOp::Shl, v, s)
        } else {
            let k = self.konst(c);
            self.bin(Ty::I32, BinOp::Mul, v, k)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse::parse_function;

    fn run(src: &str) -> (Function, StrengthReduceStats) {
        let mut f = parse_function(src).expect("parse");
        let stats = strength_reduce(&mut f);
        if let Err(e) = crate::ssa::verify_function(&f) {
            panic!("{e:?}\n{f}");
        }
        (f, stats)
    }

    /// `for (i = 0; i < n; i++) s += a[i];` as a front end emits it, in SSA.
    const SUM: &str = "func @sum(%0:ptr, %1:i32) -> i32 {
b0:
  %2:i32 = const 0
  jmp b1
b1:
  %3:i32 = phi [b0: %2], [b2: %4]
  %5:i32 = phi [b0: %2], [b2: %6]
  %7:i32 = cmp.lt %3, %1
  br %7, b2, b3
b2:
  %8:i32 = const 2
  %9:i32 = shl %3, %8
  %10:ptr = add %0, %9
  %11:i32 = load.i32 %10
  %6:i32 = add %5, %11
  %12:i32 = const 1
  %4:i32 = add %3, %12
  jmp b1
b3:
  ret %5
}";

    #[test]
    fn array_walk_becomes_pointer_increment() {
        let (f, stats) = run(SUM);
        assert_eq!(
            stats,
            StrengthReduceStats {
                ivs_created: 1,
                addresses_reduced: 1,
                loops_without_preheader: 0
            }
        );
        let expect = parse_function(
            "func @sum(%0:ptr, %1:i32) -> i32 {
b0:
  %2:i32 = const 0
  %15:i32 = const 4
  jmp b1
b1:
  %3:i32 = phi [b0: %2], [b2: %4]
  %5:i32 = phi [b0: %2], [b2: %6]
  %13:ptr = phi [b0: %0], [b2: %14]
  %7:i32 = cmp.lt %3, %1
  br %7, b2, b3
b2:
  %8:i32 = const 2
  %9:i32 = shl %3, %8
  %10:ptr = add %0, %9
  %11:i32 = load.i32 %13
  %6:i32 = add %5, %11
  %12:i32 = const 1
  %4:i32 = add %3, %12
  %14:ptr = add %13, %15
  jmp b1
b3:
  ret %5
}",
        )
        .unwrap();
        assert_eq!(f.to_string(), expect.to_string());
    }

    #[test]
    fn offset_index_and_variable_start() {
        // for (i = s; i < n; i += 2) use(a[i + 1]) with 12-byte elements.
        let (f, stats) = run("func @g(%0:ptr, %1:i32, %2:i32) {
b0:
  jmp b1
b1:
  %3:i32 = phi [b0: %2], [b2: %4]
  %5:i32 = cmp.lt %3, %1
  br %5, b2, b3
b2:
  %6:i32 = const 1
  %7:i32 = add %3, %6
  %8:i32 = const 12
  %9:i32 = mul %7, %8
  %10:ptr = add %9, %0
  %11:i32 = load.i32 %10
  call @print_int(%11)
  %12:i32 = const 2
  %4:i32 = add %3, %12
  jmp b1
b3:
  ret
}");
        assert_eq!(stats.addresses_reduced, 1);
        let text = f.to_string();
        // start = a + s*12 + 12, step 24.
        assert!(
            text.contains("%15:i32 = const 12\n  %16:i32 = mul %2, %15"),
            "{text}"
        );
        assert!(text.contains("%17:ptr = add %0, %16"), "{text}");
        assert!(
            text.contains("%18:i32 = const 12\n  %19:ptr = add %17, %18"),
            "{text}"
        );
        assert!(text.contains("%20:i32 = const 24"), "{text}");
        assert!(
            text.contains("%13:ptr = phi [b0: %19], [b2: %14]"),
            "{text}"
        );
        assert!(text.contains("%14:ptr = add %13, %20"), "{text}");
        assert!(text.contains("load.i32 %13"), "{text}");
    }

    #[test]
    fn inner_loop_over_x_of_i_plus_j() {
        // for (j = 0; j < n; j++) acc += x[i + j] (16-bit elements), i invariant.
        let (f, stats) = run("func @h(%0:ptr, %1:i32, %2:i32) -> i32 {
b0:
  %3:i32 = const 0
  jmp b1
b1:
  %4:i32 = phi [b0: %3], [b2: %5]
  %6:i32 = phi [b0: %3], [b2: %7]
  %8:i32 = cmp.lt %4, %2
  br %8, b2, b3
b2:
  %9:i32 = add %1, %4
  %10:i32 = const 1
  %11:i32 = shl %9, %10
  %12:ptr = add %0, %11
  %13:i32 = load.i16 %12
  %7:i32 = add %6, %13
  %5:i32 = add %4, %10
  jmp b1
b3:
  ret %6
}");
        assert_eq!(stats.addresses_reduced, 1);
        let text = f.to_string();
        // start = x + (i << 1) (j starts at the constant 0), step 2.
        assert!(
            text.contains("%16:i32 = const 1\n  %17:i32 = shl %1, %16"),
            "{text}"
        );
        assert!(text.contains("%18:ptr = add %0, %17"), "{text}");
        assert!(text.contains("%19:i32 = const 2"), "{text}");
        assert!(
            text.contains("%14:ptr = phi [b0: %18], [b2: %15]"),
            "{text}"
        );
        assert!(text.contains("%13:i32 = load.i16 %14"), "{text}");
        assert!(
            text.contains("%5:i32 = add %4, %10\n  %15:ptr = add %14, %19"),
            "{text}"
        );
    }

    #[test]
    fn no_preheader_means_no_change() {
        let (f, stats) = run("func @h(%0:ptr, %1:i32) {
b0:
  %2:i32 = const 0
  br %1, b1, b2
b1:
  jmp b2
b2:
  %3:i32 = phi [b0: %2], [b1: %2], [b2: %4]
  %5:i32 = const 2
  %6:i32 = shl %3, %5
  %7:ptr = add %0, %6
  store.i32 %7, %3
  %8:i32 = const 1
  %4:i32 = add %3, %8
  %9:i32 = cmp.lt %4, %1
  br %9, b2, b3
b3:
  ret
}");
        assert_eq!(stats.loops_without_preheader, 1);
        assert_eq!(stats.ivs_created, 0);
        assert!(f.to_string().contains("store.i32 %7, %3"));
    }
}
