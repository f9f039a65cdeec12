//! Constant expressions (C99 §6.6): integer constant expressions (array sizes, case labels,
//! enumerators) and the constants of static initialisers, which may also be address
//! constants — the address of a static object or string literal plus an offset, such as
//! `&arr[3]`, `"text"`, `&s.field` or `(char *)buf + 4`.
//!
//! Evaluation follows the typed tree, so conversions and pointer scaling are already
//! explicit; integer arithmetic uses the same 32-bit rules as the IR. Recursion follows the
//! tree (bounded by the parser).

use super::conv::{fold_arith, fold_cmp};
use super::Sema;
use crate::front::ast;
use crate::front::diag::Span;
use crate::front::tast::*;
use crate::front::types::*;

/// Value of a constant expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CVal {
    Int(i32),
    /// Address of a symbol plus a byte offset.
    Addr(SymRef, i32),
}

/// Why an expression is not constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NotConst {
    DivZero(Span),
    Other(Span),
}

impl Sema<'_> {
    pub(super) fn eval_const(&self, e: &TExpr) -> Result<CVal, NotConst> {
        let other = Err(NotConst::Other(e.span));
        let int = |x: &TExpr| -> Result<i32, NotConst> {
            match self.eval_const(x)? {
                CVal::Int(v) => Ok(v),
                CVal::Addr(..) => Err(NotConst::Other(x.span)),
            }
        };
        Ok(match &e.kind {
            TKind::Const(v) => CVal::Int(*v),
            TKind::AddrOf(lv) => return self.eval_addr(lv),
            TKind::Conv(x) => {
                let v = self.eval_const(x)?;
                match (&e.ty.ty, v) {
                    (Type::Int(k), CVal::Int(v)) => CVal::Int(k.wrap(v)),
                    (Type::Int(k), a @ CVal::Addr(..)) if k.size() == 4 => a,
                    (Type::Ptr(_), v) => v,
                    _ => return other,
                }
            }
            TKind::Neg(x) => CVal::Int(self.wrap_to(e, int(x)?.wrapping_neg())),
            TKind::BitNot(x) => CVal::Int(self.wrap_to(e, !int(x)?)),
            TKind::LogNot(x) => CVal::Int(match self.eval_const(x)? {
                CVal::Int(v) => (v == 0) as i32,
                CVal::Addr(..) => 0,
            }),
            TKind::Arith(op, a, b) => {
                let k = e.ty.ty.int_kind().unwrap_or(IntKind::Int);
                match (self.eval_const(a)?, self.eval_const(b)?) {
                    (CVal::Int(x), CVal::Int(y)) => match fold_arith(*op, k, x, y) {
                        Some(v) => CVal::Int(v),
                        None => return Err(NotConst::DivZero(e.span)),
                    },
                    (CVal::Addr(s, off), CVal::Int(y))
                        if matches!(op, ArithOp::Add | ArithOp::Sub) =>
                    {
                        let y = if *op == ArithOp::Sub {
                            y.wrapping_neg()
                        } else {
                            y
                        };
                        CVal::Addr(s, off.wrapping_add(y))
                    }
                    (CVal::Int(x), CVal::Addr(s, off)) if *op == ArithOp::Add => {
                        CVal::Addr(s, off.wrapping_add(x))
                    }
                    _ => return other,
                }
            }
            TKind::PtrAdd(p, i, size) => {
                let i = int(i)?.wrapping_mul(*size as i32);
                match self.eval_const(p)? {
                    CVal::Int(v) => CVal::Int(v.wrapping_add(i)),
                    CVal::Addr(s, off) => CVal::Addr(s, off.wrapping_add(i)),
                }
            }
            TKind::PtrDiff(a, b, size) => {
                let d = match (self.eval_const(a)?, self.eval_const(b)?) {
                    (CVal::Int(x), CVal::Int(y)) => x.wrapping_sub(y),
                    (CVal::Addr(s, x), CVal::Addr(t, y)) if s == t => x.wrapping_sub(y),
                    _ => return other,
                };
                CVal::Int(d.wrapping_div((*size).max(1) as i32))
            }
            TKind::Cmp(op, a, b) => {
                let signed = a.ty.ty.is_signed();
                let r = match (self.eval_const(a)?, self.eval_const(b)?) {
                    (CVal::Int(x), CVal::Int(y)) => fold_cmp(*op, signed, x, y),
                    (CVal::Addr(s, x), CVal::Addr(t, y)) if s == t => fold_cmp(*op, false, x, y),
                    // A static object's address is never null.
                    (CVal::Addr(..), CVal::Int(0)) | (CVal::Int(0), CVal::Addr(..))
                        if matches!(op, CmpKind::Eq | CmpKind::Ne) =>
                    {
                        *op == CmpKind::Ne
                    }
                    _ => return other,
                };
                CVal::Int(r as i32)
            }
            TKind::LogAnd(a, b) => {
                if !self.truthy(a)? {
                    CVal::Int(0)
                } else {
                    CVal::Int(self.truthy(b)? as i32)
                }
            }
            TKind::LogOr(a, b) => {
                if self.truthy(a)? {
                    CVal::Int(1)
                } else {
                    CVal::Int(self.truthy(b)? as i32)
                }
            }
            TKind::Cond(c, a, b) => {
                if self.truthy(c)? {
                    self.eval_const(a)?
                } else {
                    self.eval_const(b)?
                }
            }
            _ => return other,
        })
    }

    fn truthy(&self, e: &TExpr) -> Result<bool, NotConst> {
        Ok(match self.eval_const(e)? {
            CVal::Int(v) => v != 0,
            CVal::Addr(..) => true,
        })
    }

    fn wrap_to(&self, e: &TExpr, v: i32) -> i32 {
        match e.ty.ty {
            Type::Int(k) => k.wrap(v),
            _ => v,
        }
    }

    /// The address of an lvalue, if it is an address constant.
    fn eval_addr(&self, lv: &TExpr) -> Result<CVal, NotConst> {
        match &lv.kind {
            TKind::Var(v) => match self.prog.vars[*v as usize].kind {
                VarKind::Global { .. } => Ok(CVal::Addr(SymRef::Var(*v), 0)),
                _ => Err(NotConst::Other(lv.span)),
            },
            TKind::Str(s) => Ok(CVal::Addr(SymRef::Str(*s), 0)),
            TKind::Deref(p) => self.eval_const(p),
            TKind::Member(b, off) => match self.eval_addr(b)? {
                CVal::Int(v) => Ok(CVal::Int(v.wrapping_add(*off as i32))),
                CVal::Addr(s, o) => Ok(CVal::Addr(s, o.wrapping_add(*off as i32))),
            },
            _ => Err(NotConst::Other(lv.span)),
        }
    }

    /// Checks and evaluates an integer constant expression; reports and returns `None` if it
    /// is not one. The value comes with its (promoted) type.
    pub(super) fn ice(&mut self, e: &ast::Expr) -> Option<(i32, IntKind)> {
        let t = self.value_expr(e);
        let k = match &t.ty.ty {
            Type::Error => return None,
            Type::Int(k) => *k,
            _ => {
                self.error(e.span, "integer constant expression required");
                return None;
            }
        };
        match self.eval_const(&t) {
            Ok(CVal::Int(v)) => Some((v, k)),
            Ok(CVal::Addr(..)) | Err(NotConst::Other(_)) => {
                self.error(e.span, "expression is not an integer constant expression");
                None
            }
            Err(NotConst::DivZero(span)) => {
                self.error(span, "division by zero in constant expression");
                None
            }
        }
    }
}
