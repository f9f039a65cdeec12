//! Sparse conditional constant propagation (Wegman and Zadeck, "Constant Propagation with
//! Conditional Branches", TOPLAS 1991).
//!
//! Every value gets a lattice element: ⊤ (no information yet — optimistic), a constant, or ⊥
//! (varies). Two worklists drive the analysis: CFG edges that became executable, and SSA values
//! whose lattice element went down (their users are re-evaluated, if in executable blocks).
//! A phi meets only the arguments of *executable* incoming edges; a branch on a constant marks
//! only one edge executable. Parameters, loads, calls and addresses are ⊥.
//!
//! Rewriting afterwards: a branch on a constant becomes a jump (the other successor loses its
//! phi argument); blocks never found executable are deleted; every value found constant is
//! redefined in place by `const c` (a phi by a `const` placed after the block's phis). Trapping
//! divisions are only folded when the divisor is a non-zero constant (otherwise ⊥, so the trap
//! stays). Unused constants are left to DCE.
//!
//! Complexity: each value is lowered at most twice and each edge marked once, so
//! O(instructions + edges) evaluations. A phi with many arguments is not re-read whole when
//! one of its edges becomes executable or one of its arguments is lowered: only the arguments
//! concerned are met with its value (exact, since lattice values only go down), found through
//! an index of its arguments by predecessor and by value. Re-reading it whole made a phi of
//! `n` arguments cost O(n^2) — the join of a 50,000-arm `else if` chain took most of a minute.

use crate::analysis::cfg::{remove_unreachable_blocks, Cfg};
use crate::analysis::defuse::{DefUse, TERM};
use crate::ir::{BinOp, BlockId, Function, Inst, Op, Terminator, Value};
use std::collections::HashMap;

/// Phis with more arguments than this are re-evaluated argument by argument (see the module
/// doc); smaller ones are simply re-read.
const INDEXED_PHI_ARGS: usize = 16;

/// The arguments of the large phis (more than [`INDEXED_PHI_ARGS`]), keyed by the phi's
/// position (block, instruction) and by predecessor or by value.
#[derive(Default)]
struct PhiArgs {
    by_pred: HashMap<(BlockId, usize, BlockId), Vec<Value>>,
    by_value: HashMap<(BlockId, usize, Value), Vec<BlockId>>,
}

impl PhiArgs {
    fn compute(f: &Function) -> PhiArgs {
        let mut index = PhiArgs::default();
        for b in f.block_ids() {
            for (i, inst) in f.block(b).insts.iter().enumerate() {
                let Op::Phi(args) = &inst.op else { break };
                if args.len() <= INDEXED_PHI_ARGS {
                    continue;
                }
                for &(p, v) in args {
                    index.by_pred.entry((b, i, p)).or_default().push(v);
                    index.by_value.entry((b, i, v)).or_default().push(p);
                }
            }
        }
        index
    }

    fn is_indexed(f: &Function, b: BlockId, i: usize) -> bool {
        matches!(&f.block(b).insts[i].op, Op::Phi(args) if args.len() > INDEXED_PHI_ARGS)
    }
}

/// What SCCP did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SccpStats {
    pub values_folded: usize,
    pub branches_folded: usize,
    pub blocks_removed: usize,
}

/// Lattice element of one value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lat {
    Top,
    Const(i32),
    Bottom,
}

impl Lat {
    fn meet(self, other: Lat) -> Lat {
        match (self, other) {
            (Lat::Top, x) | (x, Lat::Top) => x,
            (Lat::Const(a), Lat::Const(b)) if a == b => Lat::Const(a),
            _ => Lat::Bottom,
        }
    }
}

struct Solver<'f> {
    f: &'f Function,
    cfg: Cfg,
    du: DefUse,
    lat: Vec<Lat>,
    block_exec: Vec<bool>,
    /// Per block, bit k set if the edge to its k-th successor is executable.
    edge_exec: Vec<u8>,
    edge_work: Vec<(BlockId, BlockId)>,
    value_work: Vec<Value>,
    phi_args: PhiArgs,
}

/// Runs SCCP on `f` (see the module doc).
pub fn sccp(f: &mut Function) -> SccpStats {
    let Some(lat) = analyse(f) else {
        return SccpStats::default();
    };
    rewrite(f, &lat.0, &lat.1)
}

/// The fixed point: lattice per value and executability per block. `None` if a branch of an
/// executable block still sees ⊤ (impossible on strict SSA; then nothing is changed).
fn analyse(f: &Function) -> Option<(Vec<Lat>, Vec<bool>)> {
    let cfg = Cfg::compute(f);
    let du = DefUse::compute(f);
    let n = f.num_blocks();
    let mut s = Solver {
        f,
        cfg,
        du,
        lat: vec![Lat::Top; f.num_values()],
        block_exec: vec![false; n],
        edge_exec: vec![0; n],
        edge_work: Vec::new(),
        value_work: Vec::new(),
        phi_args: PhiArgs::compute(f),
    };
    for p in &f.params {
        s.lat[p.index()] = Lat::Bottom;
    }
    s.mark_block(BlockId::ENTRY);
    loop {
        if let Some((from, to)) = s.edge_work.pop() {
            s.take_edge(from, to);
        } else if let Some(v) = s.value_work.pop() {
            s.revisit_users(v);
        } else {
            break;
        }
    }
    for b in f.block_ids() {
        if s.block_exec[b.index()] {
            if let Terminator::Branch { cond, .. } = f.block(b).term {
                if s.lat[cond.index()] == Lat::Top {
                    return None;
                }
            }
        }
    }
    Some((s.lat, s.block_exec))
}

impl Solver<'_> {
    fn take_edge(&mut self, from: BlockId, to: BlockId) {
        let k = self
            .cfg
            .succs(from)
            .iter()
            .position(|&s| s == to)
            .expect("edge exists");
        let bit = 1u8 << k;
        if self.edge_exec[from.index()] & bit != 0 {
            return;
        }
        self.edge_exec[from.index()] |= bit;
        if self.block_exec[to.index()] {
            // Only the phis see the new edge.
            let f = self.f;
            for (i, inst) in f.block(to).insts.iter().enumerate() {
                if !inst.op.is_phi() {
                    break;
                }
                if PhiArgs::is_indexed(f, to, i) {
                    // Only the arguments of the new edge join the phi's value.
                    let args = self.phi_args.by_pred.get(&(to, i, from));
                    let new = args
                        .into_iter()
                        .flatten()
                        .fold(Lat::Top, |acc, v| acc.meet(self.lat[v.index()]));
                    self.lower(inst.dst, new);
                } else {
                    self.visit_inst(to, i);
                }
            }
        } else {
            self.mark_block(to);
        }
    }

    fn mark_block(&mut self, b: BlockId) {
        self.block_exec[b.index()] = true;
        for i in 0..self.f.block(b).insts.len() {
            self.visit_inst(b, i);
        }
        self.visit_term(b);
    }

    fn revisit_users(&mut self, v: Value) {
        for k in 0..self.du.uses(v).len() {
            let u = self.du.uses(v)[k];
            if !self.block_exec[u.block.index()] {
                continue;
            }
            if u.inst == TERM {
                self.visit_term(u.block);
            } else if PhiArgs::is_indexed(self.f, u.block, u.inst as usize) {
                self.revisit_phi_argument(u.block, u.inst as usize, v);
            } else {
                self.visit_inst(u.block, u.inst as usize);
            }
        }
    }

    /// `v`, an argument of the large phi at (`b`, `i`), went down: the phi meets it if it
    /// comes through an executable edge.
    fn revisit_phi_argument(&mut self, b: BlockId, i: usize, v: Value) {
        let preds = self.phi_args.by_value.get(&(b, i, v));
        let live = preds
            .into_iter()
            .flatten()
            .any(|&p| self.is_edge_exec(p, b));
        if live {
            let dst = self.f.block(b).insts[i].dst;
            self.lower(dst, self.lat[v.index()]);
        }
    }

    /// Meets the value of `dst` (if any) with `new`; queues its users if it went down.
    fn lower(&mut self, dst: Option<Value>, new: Lat) {
        let Some(d) = dst else { return };
        let old = self.lat[d.index()];
        let new = old.meet(new);
        if new != old {
            self.lat[d.index()] = new;
            self.value_work.push(d);
        }
    }

    fn is_edge_exec(&self, from: BlockId, to: BlockId) -> bool {
        self.cfg
            .succs(from)
            .iter()
            .position(|&s| s == to)
            .is_some_and(|k| self.edge_exec[from.index()] & (1 << k) != 0)
    }

    fn visit_inst(&mut self, b: BlockId, i: usize) {
        let inst = &self.f.block(b).insts[i];
        let Some(d) = inst.dst else { return };
        let new = match &inst.op {
            Op::Phi(args) => args
                .iter()
                .filter(|(p, _)| self.is_edge_exec(*p, b))
                .fold(Lat::Top, |acc, (_, v)| acc.meet(self.lat[v.index()])),
            op => self.eval(op),
        };
        let old = self.lat[d.index()];
        let new = old.meet(new);
        if new != old {
            self.lat[d.index()] = new;
            self.value_work.push(d);
        }
    }

    fn eval(&self, op: &Op) -> Lat {
        let l = |v: &Value| self.lat[v.index()];
        match op {
            Op::Const(c) => Lat::Const(*c),
            Op::Copy(a) => l(a),
            Op::Un(u, a) => match l(a) {
                Lat::Const(x) => Lat::Const(u.eval(x)),
                other => other,
            },
            Op::Bin(op, a, b) => eval_bin(*op, l(a), l(b)),
            Op::Cmp(c, a, b) => {
                if a == b {
                    // Same SSA value on both sides.
                    Lat::Const(c.eval(0, 0) as i32)
                } else {
                    match (l(a), l(b)) {
                        (Lat::Const(x), Lat::Const(y)) => Lat::Const(c.eval(x, y) as i32),
                        (Lat::Top, _) | (_, Lat::Top) => Lat::Top,
                        _ => Lat::Bottom,
                    }
                }
            }
            Op::Select(c, a, b) => match l(c) {
                Lat::Top => Lat::Top,
                Lat::Const(0) => l(b),
                Lat::Const(_) => l(a),
                Lat::Bottom => l(a).meet(l(b)),
            },
            Op::SymAddr(..)
            | Op::SlotAddr(_)
            | Op::Load { .. }
            | Op::Store { .. }
            | Op::Call { .. }
            | Op::Phi(_) => Lat::Bottom,
        }
    }

    fn visit_term(&mut self, b: BlockId) {
        match self.f.block(b).term {
            Terminator::Jump(t) => self.edge_work.push((b, t)),
            Terminator::Branch { cond, then_, else_ } => match self.lat[cond.index()] {
                Lat::Top => {}
                Lat::Const(0) => self.edge_work.push((b, else_)),
                Lat::Const(_) => self.edge_work.push((b, then_)),
                Lat::Bottom => {
                    self.edge_work.push((b, then_));
                    self.edge_work.push((b, else_));
                }
            },
            Terminator::Return(_) | Terminator::Unreachable => {}
        }
    }
}

/// Binary operations, with the absorbing cases that hold whatever the other operand is.
fn eval_bin(op: BinOp, a: Lat, b: Lat) -> Lat {
    match (op, a, b) {
        (BinOp::Mul | BinOp::And, Lat::Const(0), _)
        | (BinOp::Mul | BinOp::And, _, Lat::Const(0)) => Lat::Const(0),
        (BinOp::Or, Lat::Const(-1), _) | (BinOp::Or, _, Lat::Const(-1)) => Lat::Const(-1),
        (_, Lat::Const(x), Lat::Const(y)) => match op.eval(x, y) {
            Some(r) => Lat::Const(r),
            None => Lat::Bottom, // division by zero: keep the trapping instruction
        },
        (_, Lat::Top, _) | (_, _, Lat::Top) => Lat::Top,
        _ => Lat::Bottom,
    }
}

fn rewrite(f: &mut Function, lat: &[Lat], block_exec: &[bool]) -> SccpStats {
    let mut stats = SccpStats::default();
    // 1. Branches on constants become jumps; the dropped successor loses its phi argument.
    for b in f.block_ids() {
        if !block_exec[b.index()] {
            continue;
        }
        if let Terminator::Branch { cond, then_, else_ } = f.block(b).term {
            if let Lat::Const(c) = lat[cond.index()] {
                let (taken, dropped) = if c != 0 {
                    (then_, else_)
                } else {
                    (else_, then_)
                };
                f.set_term(b, Terminator::Jump(taken));
                remove_phi_arg(f, dropped, b);
                stats.branches_folded += 1;
            }
        }
    }
    // 2. Blocks that never execute are now unreachable.
    stats.blocks_removed = remove_unreachable_blocks(f);
    // 3. Constant values are redefined by `const`.
    for block in &mut f.blocks {
        let nphi = block.phi_count();
        let mut phi_consts: Vec<Inst> = Vec::new();
        for inst in block.insts.iter_mut() {
            let Some(d) = inst.dst else { continue };
            let Lat::Const(c) = lat[d.index()] else {
                continue;
            };
            if matches!(inst.op, Op::Const(_)) || matches!(inst.op, Op::Call { .. }) {
                continue;
            }
            stats.values_folded += 1;
            if inst.op.is_phi() {
                phi_consts.push(Inst {
                    dst: Some(d),
                    op: Op::Const(c),
                });
                inst.dst = None; // marks the phi for removal below
            } else {
                inst.op = Op::Const(c);
            }
        }
        if !phi_consts.is_empty() {
            let rest = block.insts.split_off(nphi);
            block.insts.retain(|i| i.dst.is_some());
            block.insts.extend(phi_consts);
            block.insts.extend(rest);
        }
    }
    stats
}

fn remove_phi_arg(f: &mut Function, block: BlockId, pred: BlockId) {
    for inst in &mut f.block_mut(block).insts {
        let Op::Phi(args) = &mut inst.op else { break };
        args.retain(|(p, _)| *p != pred);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse::parse_function;

    fn run(src: &str) -> (Function, SccpStats) {
        let mut f = parse_function(src).expect("parse");
        let stats = sccp(&mut f);
        if let Err(e) = crate::ssa::verify_function(&f) {
            panic!("{e:?}\n{f}");
        }
        (f, stats)
    }

    #[test]
    fn folds_a_loop_invariant_constant_through_a_phi_and_branch() {
        // %3 stays 1 around the loop (phi of 1 and 1*1); the branch on %3 == 1 always exits
        // via b2, so b3 is dead.
        let (f, stats) = run("func @f(%0:i32) -> i32 {
b0:
  %1:i32 = const 1
  jmp b1
b1:
  %3:i32 = phi [b0: %1], [b2: %4]
  %5:i32 = cmp.eq %3, %1
  br %5, b2, b3
b2:
  %4:i32 = mul %3, %1
  %6:i32 = cmp.lt %0, %4
  br %6, b1, b4
b3:
  ret %0
b4:
  ret %3
}");
        assert_eq!(
            stats,
            SccpStats {
                values_folded: 3,
                branches_folded: 1,
                blocks_removed: 1
            }
        );
        let expect = parse_function(
            "func @f(%0:i32) -> i32 {
b0:
  %1:i32 = const 1
  jmp b1
b1:
  %3:i32 = const 1
  %5:i32 = const 1
  jmp b2
b2:
  %4:i32 = const 1
  %6:i32 = cmp.lt %0, %4
  br %6, b1, b3
b3:
  ret %3
}",
        )
        .unwrap();
        assert_eq!(f.to_string(), expect.to_string());
    }

    /// An `else if` chain of `n` arms on `%0`: arm `k` sets `values(k)`, the fall-through of
    /// the last test `5`; test `dead` branches on a constant 0, so its arm never runs. The
    /// join's phi is `%9`.
    fn else_if_chain(n: u32, dead: u32, values: impl Fn(u32) -> i32) -> String {
        let mut s = String::from("func @f(%0:i32) -> i32 {\n");
        let mut phi = Vec::new();
        for k in 0..n {
            let (c, t, a) = (10 + 3 * k, 11 + 3 * k, 12 + 3 * k);
            s.push_str(&format!("b{}:\n", 2 * k));
            if k == 0 {
                s.push_str("  %1:i32 = const 5\n");
            }
            s.push_str(&format!("  %{c}:i32 = const {k}\n"));
            if k == dead {
                s.push_str(&format!("  %{t}:i32 = const 0\n"));
            } else {
                s.push_str(&format!("  %{t}:i32 = cmp.eq %0, %{c}\n"));
            }
            let next = if k + 1 == n { 2 * n } else { 2 * k + 2 };
            s.push_str(&format!("  br %{t}, b{}, b{next}\n", 2 * k + 1));
            s.push_str(&format!(
                "b{}:\n  %{a}:i32 = const {}\n",
                2 * k + 1,
                values(k)
            ));
            s.push_str(&format!("  jmp b{}\n", 2 * n));
            phi.push(format!("[b{}: %{a}]", 2 * k + 1));
        }
        phi.push(format!("[b{}: %1]", 2 * n - 2));
        s.push_str(&format!(
            "b{}:\n  %9:i32 = phi {}\n  ret %9\n}}",
            2 * n,
            phi.join(", ")
        ));
        s
    }

    /// A phi with more than `INDEXED_PHI_ARGS` arguments is evaluated argument by argument:
    /// the same result as reading it whole (constant when every executable argument agrees,
    /// the dead arm ignored), whatever order its edges and arguments arrive in.
    #[test]
    fn large_phis_meet_only_executable_arguments() {
        for n in [3, 40] {
            let (f, _) = run(&else_if_chain(n, 1, |k| if k == 1 { 99 } else { 5 }));
            assert!(f.to_string().contains("%9:i32 = const 5"), "{n} arms:\n{f}");
            let (f, _) = run(&else_if_chain(n, 1, |k| if k == n - 1 { 6 } else { 5 }));
            assert!(!f.to_string().contains("%9:i32 = const"), "{n} arms:\n{f}");
        }
    }

    /// Time for a 50,000-arm chain (O(n^2) before: each arm's edge re-read the whole phi).
    /// Bound: under 5 s (it takes well under a second); the quadratic version needed minutes.
    #[test]
    fn a_phi_of_50000_arguments_is_solved_in_linear_time() {
        let src = else_if_chain(50_000, 1, |_| 5);
        let mut f = parse_function(&src).expect("parse");
        let t = std::time::Instant::now();
        let stats = sccp(&mut f);
        let seconds = t.elapsed().as_secs_f64();
        assert!(stats.branches_folded >= 1, "{stats:?}");
        assert!(seconds < 5.0, "{seconds:.2} s");
    }

    #[test]
    fn division_by_zero_is_not_folded() {
        let (f, stats) = run("func @f() -> i32 {
b0:
  %0:i32 = const 7
  %1:i32 = const 0
  %2:i32 = divs %0, %1
  %3:i32 = mul %2, %1
  ret %3
}");
        // The division stays (it traps); the product is 0 whatever the quotient.
        assert_eq!(stats.values_folded, 1);
        assert!(f.to_string().contains("divs %0, %1"));
        assert!(f.to_string().contains("%3:i32 = const 0"));
    }
}
