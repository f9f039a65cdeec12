//! Algebraic simplification, one instruction at a time (a peephole pass on SSA).
//!
//! Identities (`x+0`, `x-0`, `x*1`, `x/1`, `x&-1`, `x|0`, `x^0`, `x<<0`, `x&x`, `x|x`,
//! `select c, x, x`) replace the result by `x` everywhere; annihilators (`x*0`, `x&0`, `x-x`,
//! `x^x`, `x%1`, `0<<n`, `cmp x, x`) and all-constant operations become `const`;
//! multiplication by `2^n` becomes `shl x, n`, unsigned division by `2^n` a `shru`, unsigned
//! remainder by `2^n` an `and` (the new shift amount or mask is a new `const` just before).
//! Signed division is left alone (it rounds towards zero, a shift does not).
//! A replacement by `x` is only done when `x` has the result's register type.
//!
//! Blocks are visited in reverse post-order and operands are resolved through earlier
//! replacements as they are met, so chains simplify in one pass.
//! Complexity: O(instructions).

use super::Subst;
use crate::analysis::cfg::Cfg;
use crate::ir::{BinOp, Function, Inst, Op, Value};

/// What the peephole pass did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PeepholeStats {
    pub simplified: usize,
}

/// The outcome of simplifying one instruction.
enum Rewrite {
    Keep,
    /// Uses of the result become uses of this value; the instruction goes.
    Value(Value),
    Const(i32),
    /// `op x, const k` for a strength-reduced operation.
    WithConst(BinOp, Value, i32),
}

/// Simplifies `f` (see the module doc).
pub fn peephole(f: &mut Function) -> PeepholeStats {
    let cfg = Cfg::compute(f);
    let mut consts: Vec<Option<i32>> = super::const_values(f);
    let mut subst = Subst::new(f.num_values());
    let mut stats = PeepholeStats::default();
    for &b in cfg.rpo() {
        let old = std::mem::take(&mut f.blocks[b.index()].insts);
        let mut out: Vec<Inst> = Vec::with_capacity(old.len());
        for mut inst in old {
            inst.op.for_each_use_mut(|v| *v = subst.resolve(*v));
            let Some(d) = inst.dst else {
                out.push(inst);
                continue;
            };
            match simplify(&inst.op, &consts) {
                Rewrite::Keep => out.push(inst),
                Rewrite::Value(x) if f.value_ty(x) == f.value_ty(d) => {
                    subst.set(d, x);
                    stats.simplified += 1;
                }
                Rewrite::Value(_) => out.push(inst),
                Rewrite::Const(c) => {
                    inst.op = Op::Const(c);
                    set_const(&mut consts, d, c);
                    out.push(inst);
                    stats.simplified += 1;
                }
                Rewrite::WithConst(op, x, k) => {
                    let kv = f.new_value(crate::ir::Ty::I32);
                    set_const(&mut consts, kv, k);
                    out.push(Inst {
                        dst: Some(kv),
                        op: Op::Const(k),
                    });
                    inst.op = Op::Bin(op, x, kv);
                    out.push(inst);
                    stats.simplified += 1;
                }
            }
        }
        f.blocks[b.index()].insts = out;
    }
    subst.apply(f);
    stats
}

fn set_const(consts: &mut Vec<Option<i32>>, v: Value, c: i32) {
    if consts.len() <= v.index() {
        consts.resize(v.index() + 1, None);
    }
    consts[v.index()] = Some(c);
}

fn simplify(op: &Op, consts: &[Option<i32>]) -> Rewrite {
    let k = |v: &Value| consts.get(v.index()).copied().flatten();
    match op {
        Op::Bin(o, a, b) => simplify_bin(*o, *a, *b, k(a), k(b)),
        Op::Un(u, a) => match k(a) {
            Some(x) => Rewrite::Const(u.eval(x)),
            None => Rewrite::Keep,
        },
        Op::Cmp(c, a, b) => match (k(a), k(b)) {
            _ if a == b => Rewrite::Const(c.eval(0, 0) as i32),
            (Some(x), Some(y)) => Rewrite::Const(c.eval(x, y) as i32),
            _ => Rewrite::Keep,
        },
        Op::Select(c, a, b) => match k(c) {
            _ if a == b => Rewrite::Value(*a),
            Some(0) => Rewrite::Value(*b),
            Some(_) => Rewrite::Value(*a),
            None => Rewrite::Keep,
        },
        _ => Rewrite::Keep,
    }
}

fn simplify_bin(op: BinOp, a: Value, b: Value, ka: Option<i32>, kb: Option<i32>) -> Rewrite {
    use Rewrite::*;
    if let (Some(x), Some(y)) = (ka, kb) {
        return match op.eval(x, y) {
            Some(r) => Const(r),
            None => Keep, // division by zero traps at run time
        };
    }
    let pow2 = |c: Option<i32>| match c {
        Some(c) if c != 1 && (c as u32).is_power_of_two() => {
            Some((c as u32).trailing_zeros() as i32)
        }
        _ => None,
    };
    match op {
        BinOp::Add if kb == Some(0) => Value(a),
        BinOp::Add if ka == Some(0) => Value(b),
        BinOp::Sub if kb == Some(0) => Value(a),
        BinOp::Sub | BinOp::Xor if a == b => Const(0),
        BinOp::Mul if kb == Some(1) => Value(a),
        BinOp::Mul if ka == Some(1) => Value(b),
        BinOp::Mul if ka == Some(0) || kb == Some(0) => Const(0),
        BinOp::Mul if pow2(kb).is_some() => WithConst(BinOp::Shl, a, pow2(kb).unwrap_or(0)),
        BinOp::Mul if pow2(ka).is_some() => WithConst(BinOp::Shl, b, pow2(ka).unwrap_or(0)),
        BinOp::DivS | BinOp::DivU if kb == Some(1) => Value(a),
        BinOp::RemS | BinOp::RemU if kb == Some(1) => Const(0),
        BinOp::DivU if pow2(kb).is_some() => WithConst(BinOp::ShrU, a, pow2(kb).unwrap_or(0)),
        BinOp::RemU if pow2(kb).is_some() => {
            WithConst(BinOp::And, a, kb.unwrap_or(1).wrapping_sub(1))
        }
        BinOp::And if kb == Some(-1) => Value(a),
        BinOp::And if ka == Some(-1) => Value(b),
        BinOp::And if ka == Some(0) || kb == Some(0) => Const(0),
        BinOp::And | BinOp::Or if a == b => Value(a),
        BinOp::Or | BinOp::Xor if kb == Some(0) => Value(a),
        BinOp::Or | BinOp::Xor if ka == Some(0) => Value(b),
        BinOp::Or if ka == Some(-1) || kb == Some(-1) => Const(-1),
        BinOp::Shl | BinOp::ShrS | BinOp::ShrU if kb.is_some_and(|s| s & 31 == 0) => Value(a),
        BinOp::Shl | BinOp::ShrS | BinOp::ShrU if ka == Some(0) => Const(0),
        _ => Keep,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse::parse_function;

    #[test]
    fn identities_and_strength_reduction() {
        let mut f = parse_function(
            "func @f(%0:i32, %1:i32) -> i32 {
b0:
  %2:i32 = const 0
  %3:i32 = const 8
  %4:i32 = add %0, %2
  %5:i32 = mul %4, %3
  %6:i32 = sub %5, %5
  %7:i32 = divu %1, %3
  %8:i32 = remu %1, %3
  %9:i32 = xor %7, %2
  %10:i32 = add %9, %8
  %11:i32 = add %10, %6
  %12:i32 = add %11, %5
  ret %12
}",
        )
        .unwrap();
        let stats = peephole(&mut f);
        crate::ssa::verify_function(&f).unwrap();
        // %4, %9 and %11 (plus the constant %6 = x - x) disappear into their operands.
        assert_eq!(stats.simplified, 7);
        let expect = parse_function(
            "func @f(%0:i32, %1:i32) -> i32 {
b0:
  %2:i32 = const 0
  %3:i32 = const 8
  %13:i32 = const 3
  %5:i32 = shl %0, %13
  %6:i32 = const 0
  %14:i32 = const 3
  %7:i32 = shru %1, %14
  %15:i32 = const 7
  %8:i32 = and %1, %15
  %10:i32 = add %7, %8
  %12:i32 = add %10, %5
  ret %12
}",
        )
        .unwrap();
        assert_eq!(f.to_string(), expect.to_string());
    }
}
