//! Conversions (C99 §6.3): integer promotions, the usual arithmetic conversions, the
//! conversion "as if by assignment" with its constraint checks (§6.5.16.1), and constant
//! folding of conversions and arithmetic with exactly the 32-bit semantics the IR has.

use super::Sema;
use crate::front::diag::Span;
use crate::front::tast::*;
use crate::front::types::*;

/// Evaluates `a op b` in type `kind` (a promoted type) with the IR's 32-bit semantics;
/// `None` on division by zero.
pub(super) fn fold_arith(op: ArithOp, kind: IntKind, a: i32, b: i32) -> Option<i32> {
    let signed = kind.signed();
    let (ua, ub) = (a as u32, b as u32);
    let v = match op {
        ArithOp::Add => a.wrapping_add(b),
        ArithOp::Sub => a.wrapping_sub(b),
        ArithOp::Mul => a.wrapping_mul(b),
        ArithOp::Div | ArithOp::Rem if b == 0 => return None,
        ArithOp::Div if signed => a.wrapping_div(b),
        ArithOp::Div => (ua / ub) as i32,
        ArithOp::Rem if signed => a.wrapping_rem(b),
        ArithOp::Rem => (ua % ub) as i32,
        ArithOp::Shl => ua.wrapping_shl(ub & 31) as i32,
        ArithOp::Shr if signed => a.wrapping_shr(ub & 31),
        ArithOp::Shr => ua.wrapping_shr(ub & 31) as i32,
        ArithOp::And => a & b,
        ArithOp::Or => a | b,
        ArithOp::Xor => a ^ b,
    };
    Some(kind.wrap(v))
}

/// Compares two values of a type with the given signedness.
pub(super) fn fold_cmp(op: CmpKind, signed: bool, a: i32, b: i32) -> bool {
    let ord = if signed {
        a.cmp(&b)
    } else {
        (a as u32).cmp(&(b as u32))
    };
    match op {
        CmpKind::Eq => ord.is_eq(),
        CmpKind::Ne => ord.is_ne(),
        CmpKind::Lt => ord.is_lt(),
        CmpKind::Le => ord.is_le(),
        CmpKind::Gt => ord.is_gt(),
        CmpKind::Ge => ord.is_ge(),
    }
}

pub(super) fn mk(kind: TKind, ty: QualType, span: Span) -> TExpr {
    TExpr { kind, ty, span }
}

pub(super) fn konst(v: i32, k: IntKind, span: Span) -> TExpr {
    mk(TKind::Const(k.wrap(v)), QualType::int(k), span)
}

pub(super) fn err_expr(span: Span) -> TExpr {
    mk(TKind::Const(0), QualType::error(), span)
}

/// An integer constant expression with value 0 (optionally cast to `void *`): a null
/// pointer constant (C99 §6.3.2.3p3).
pub(super) fn is_null_constant(e: &TExpr) -> bool {
    match (&e.kind, &e.ty.ty) {
        (TKind::Const(0), Type::Int(_)) => true,
        (TKind::Const(0), Type::Ptr(p)) => p.ty.is_void(),
        _ => false,
    }
}

impl Sema<'_> {
    /// Converts the value of `e` to type `to` (no constraint checks).
    pub(super) fn convert(&mut self, e: TExpr, to: &QualType) -> TExpr {
        let to = to.unqual();
        if e.ty.ty.is_error() || to.ty.is_error() {
            return TExpr {
                ty: QualType::error(),
                ..e
            };
        }
        if e.ty.ty == to.ty {
            return TExpr { ty: to, ..e };
        }
        let span = e.span;
        match (&to.ty, &e.kind) {
            (Type::Int(k), TKind::Const(v)) if e.ty.ty.is_scalar() => konst(*v, *k, span),
            (Type::Ptr(_), TKind::Const(v)) if e.ty.ty.is_scalar() => {
                mk(TKind::Const(*v), to, span)
            }
            _ => mk(TKind::Conv(Box::new(e)), to, span),
        }
    }

    /// Integer promotion of an integer rvalue (others unchanged).
    pub(super) fn promote(&mut self, e: TExpr) -> TExpr {
        match e.ty.ty {
            Type::Int(k) if k.promote() != k => self.convert(e, &QualType::int(k.promote())),
            _ => e,
        }
    }

    /// The usual arithmetic conversions of two integer rvalues.
    pub(super) fn usual(&mut self, a: TExpr, b: TExpr) -> (TExpr, TExpr, IntKind) {
        let (Some(ka), Some(kb)) = (a.ty.ty.int_kind(), b.ty.ty.int_kind()) else {
            return (a, b, IntKind::Int);
        };
        let k = usual_arith(ka, kb);
        let t = QualType::int(k);
        (self.convert(a, &t), self.convert(b, &t), k)
    }

    /// Arithmetic node in promoted type `k`, folded when both operands are constants.
    pub(super) fn arith(
        &mut self,
        op: ArithOp,
        k: IntKind,
        a: TExpr,
        b: TExpr,
        span: Span,
    ) -> TExpr {
        if let (Some(x), Some(y)) = (a.as_const(), b.as_const()) {
            if let Some(v) = fold_arith(op, k, x, y) {
                return konst(v, k, span);
            }
        }
        mk(
            TKind::Arith(op, Box::new(a), Box::new(b)),
            QualType::int(k),
            span,
        )
    }

    /// Converts a value for assignment to an object of type `to` (also argument passing,
    /// return, initialisation), checking the constraints of §6.5.16.1. `ctx` names the
    /// operation for messages.
    pub(super) fn assign_convert(&mut self, e: TExpr, to: &QualType, ctx: &str) -> TExpr {
        let span = e.span;
        let ok = match (&to.ty, &e.ty.ty) {
            (Type::Error, _) | (_, Type::Error) => true,
            (Type::Int(_), Type::Int(_)) => true,
            (Type::Ptr(p), Type::Ptr(q)) => {
                let compatible =
                    p.ty.is_void() || q.ty.is_void() || self.prog.types.compatible(&p.ty, &q.ty);
                if !compatible {
                    let msg = format!(
                        "incompatible pointer types in {ctx}: `{}` from `{}`",
                        self.show(to),
                        self.show(&e.ty)
                    );
                    self.diags.warning(span, msg);
                }
                true
            }
            (Type::Ptr(_), Type::Int(_)) => {
                if !is_null_constant(&e) {
                    self.diags.warning(
                        span,
                        format!("{ctx} makes a pointer from an integer without a cast"),
                    );
                }
                true
            }
            (Type::Int(_), Type::Ptr(_)) => {
                self.diags.warning(
                    span,
                    format!("{ctx} makes an integer from a pointer without a cast"),
                );
                true
            }
            (Type::Struct(a), Type::Struct(b)) if a == b => return e,
            _ => false,
        };
        if !ok {
            let msg = format!(
                "incompatible types in {ctx}: cannot convert `{}` to `{}`",
                self.show(&e.ty),
                self.show(to)
            );
            self.error(span, msg);
            return err_expr(span);
        }
        self.convert(e, to)
    }
}
