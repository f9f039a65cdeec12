//! Expressions (C99 §6.5): typing, lvalues, implicit conversions, pointer arithmetic,
//! constant folding of integer operations.
//!
//! [`Sema::expr`] returns an expression that may still designate an object (an lvalue,
//! array or function); [`Sema::rvalue`] applies lvalue conversion, array decay and the
//! function-designator rule; [`Sema::value_expr`] does both.

use super::conv::{err_expr, fold_cmp, is_null_constant, konst, mk};
use super::{Ordinary, Sema};
use crate::front::ast::{self, BinaryOp, ExprKind, UnaryOp};
use crate::front::diag::Span;
use crate::front::literals::IntLit;
use crate::front::tast::*;
use crate::front::types::*;

/// True if the expression designates an object in memory (so its value is loaded from
/// there).
fn denotes_object(e: &TExpr) -> bool {
    matches!(
        e.kind,
        TKind::Var(_) | TKind::Str(_) | TKind::Deref(_) | TKind::Member(..)
    )
}

impl Sema<'_> {
    pub(super) fn value_expr(&mut self, e: &ast::Expr) -> TExpr {
        let t = self.expr(e);
        self.rvalue(t)
    }

    /// Lvalue conversion, array-to-pointer decay; rejects function designators.
    pub(super) fn rvalue(&mut self, e: TExpr) -> TExpr {
        match &e.ty.ty {
            Type::Error | Type::Void | Type::Struct(_) => e,
            Type::Array(elem, _) => {
                let ty = QualType::new(Type::Ptr(elem.clone()));
                let span = e.span;
                mk(TKind::AddrOf(Box::new(e)), ty, span)
            }
            Type::Func(_) => {
                self.error(
                    e.span,
                    "not supported by ssalab: function pointers (a function name can only be called)",
                );
                err_expr(e.span)
            }
            _ if denotes_object(&e) => {
                let ty = e.ty.unqual();
                let span = e.span;
                mk(TKind::Load(Box::new(e)), ty, span)
            }
            _ => e,
        }
    }

    /// A controlling expression (`if`, loops, `?:`, `!`, `&&`, `||`): a scalar value.
    pub(super) fn condition(&mut self, e: &ast::Expr) -> TExpr {
        let t = self.value_expr(e);
        self.require_scalar(t, "condition")
    }

    fn require_scalar(&mut self, t: TExpr, what: &str) -> TExpr {
        if t.ty.ty.is_scalar() || t.ty.ty.is_error() {
            return t;
        }
        let msg = format!(
            "{what} requires a scalar value, but it has type `{}`",
            self.show(&t.ty)
        );
        self.error(t.span, msg);
        err_expr(t.span)
    }

    fn require_int(&mut self, t: TExpr, what: &str) -> TExpr {
        if t.ty.ty.is_int() || t.ty.ty.is_error() {
            return t;
        }
        let msg = format!(
            "{what} requires an integer operand, but it has type `{}`",
            self.show(&t.ty)
        );
        self.error(t.span, msg);
        err_expr(t.span)
    }

    pub(super) fn expr(&mut self, e: &ast::Expr) -> TExpr {
        let span = e.span;
        match &e.kind {
            ExprKind::Int(lit) => self.int_literal(lit, span),
            ExprKind::Char(v) => konst(*v, IntKind::Int, span),
            ExprKind::Str(bytes) => {
                let id = self.string_literal(bytes);
                let n = bytes.len() as u32 + 1;
                let ty = QualType::new(Type::Array(
                    std::rc::Rc::new(QualType::int(IntKind::Char)),
                    Some(n),
                ));
                mk(TKind::Str(id), ty, span)
            }
            ExprKind::Ident(name) => self.ident(*name, span),
            ExprKind::Unary(op, x) => self.unary(*op, x, span),
            ExprKind::Binary(op, l, r) => self.binary(*op, l, r, span),
            ExprKind::Assign(op, l, r) => self.assign(*op, l, r, span),
            ExprKind::Cond(c, a, b) => self.cond(c, a, b, span),
            ExprKind::Comma(a, b) => {
                let a = self.expr(a);
                let a = self.rvalue(a);
                let b = self.value_expr(b);
                let ty = b.ty.clone();
                mk(TKind::Comma(Box::new(a), Box::new(b)), ty, span)
            }
            ExprKind::Call(callee, args) => self.call(callee, args, span),
            ExprKind::Index(a, i) => {
                let a = self.value_expr(a);
                let i = self.value_expr(i);
                let p = match (&a.ty.ty, &i.ty.ty) {
                    (Type::Error, _) | (_, Type::Error) => return err_expr(span),
                    (Type::Ptr(_), Type::Int(_)) => self.ptr_add(a, i, false, span),
                    (Type::Int(_), Type::Ptr(_)) => self.ptr_add(i, a, false, span),
                    _ => {
                        let msg = format!(
                            "subscripted value is not an array or pointer (types `{}` and `{}`)",
                            self.show(&a.ty),
                            self.show(&i.ty)
                        );
                        self.error(span, msg);
                        return err_expr(span);
                    }
                };
                self.deref(p, span)
            }
            ExprKind::Member(base, m, mspan, arrow) => self.member(base, *m, *mspan, *arrow, span),
            ExprKind::Cast(tn, x) => self.cast(tn, x, span),
            ExprKind::SizeofType(tn) => {
                let t = self.type_name(tn);
                self.size_const(&t, span)
            }
            ExprKind::SizeofExpr(x) => {
                self.in_sizeof += 1;
                let t = self.expr(x);
                self.in_sizeof -= 1;
                if let TKind::FuncName(_) = t.kind {
                    self.error(span, "invalid application of sizeof to a function");
                    return err_expr(span);
                }
                self.size_const(&t.ty, span)
            }
        }
    }

    fn size_const(&mut self, t: &QualType, span: Span) -> TExpr {
        match &t.ty {
            Type::Error => err_expr(span),
            Type::Void => konst(1, IntKind::UInt, span), // gcc extension
            ty => match self.prog.types.size_of(ty) {
                Some(n) => konst(n as i32, IntKind::UInt, span),
                None => {
                    let msg = format!(
                        "invalid application of sizeof to incomplete type `{}`",
                        self.show(t)
                    );
                    self.error(span, msg);
                    err_expr(span)
                }
            },
        }
    }

    /// Type of an integer constant (C99 §6.4.4.1 for ILP32, without long long: a decimal
    /// constant that does not fit in `long` becomes `unsigned long`, as in C90).
    fn int_literal(&mut self, lit: &IntLit, span: Span) -> TExpr {
        if lit.longs == 2 {
            self.error(span, "not supported by ssalab: long long");
            return err_expr(span);
        }
        if lit.overflow || lit.value > u32::MAX as u64 {
            self.error(
                span,
                "integer constant is too large (ssalab has no long long)",
            );
            return err_expr(span);
        }
        let v = lit.value as u32;
        let fits = v <= i32::MAX as u32;
        let c90 = |s: &mut Self| {
            s.diags.warning(
                span,
                format!("integer constant {v} is so large that it is unsigned long (C90 rule; ssalab has no long long)"),
            );
        };
        let kind = match (lit.unsigned, lit.longs, lit.decimal) {
            (false, 0, true) if fits => IntKind::Int,
            (false, 0, false) if fits => IntKind::Int,
            (false, 0, false) => IntKind::UInt,
            (false, 1, _) if fits => IntKind::Long,
            (false, _, true) => {
                c90(self);
                IntKind::ULong
            }
            (false, _, false) => IntKind::ULong,
            (true, 0, _) => IntKind::UInt,
            (true, _, _) => IntKind::ULong,
        };
        konst(v as i32, kind, span)
    }

    fn ident(&mut self, name: crate::front::lexer::Sym, span: Span) -> TExpr {
        match self.lookup(name).cloned() {
            Some(Ordinary::Var(v)) => {
                let info = &mut self.prog.vars[v as usize];
                info.used = true;
                let ty = info.ty.clone();
                if matches!(info.kind, VarKind::Global { .. }) {
                    self.note_use(SymRef::Var(v), span);
                }
                mk(TKind::Var(v), ty, span)
            }
            Some(Ordinary::Func(f)) => {
                let ty = QualType::new(Type::Func(self.prog.funcs[f as usize].ty.clone()));
                mk(TKind::FuncName(f), ty, span)
            }
            Some(Ordinary::Enum(v, _)) => konst(v, IntKind::Int, span),
            Some(Ordinary::Typedef(..)) => {
                self.error(
                    span,
                    format!("unexpected type name `{}` in expression", self.name(name)),
                );
                err_expr(span)
            }
            None => {
                let n = self.name(name);
                if let (Some(f), "__func__" | "__FUNCTION__") = (&self.fctx, n) {
                    // C99 §6.4.2.2: the name of the enclosing function, as a string.
                    let bytes = f.name.clone().into_bytes();
                    let id = self.string_literal(&bytes);
                    let len = bytes.len() as u32 + 1;
                    let elem = QualType::int(IntKind::Char).with_cv(crate::front::ast::Cv {
                        is_const: true,
                        is_volatile: false,
                    });
                    let ty = QualType::new(Type::Array(std::rc::Rc::new(elem), Some(len)));
                    return mk(TKind::Str(id), ty, span);
                }
                self.error(span, format!("`{n}` undeclared"));
                err_expr(span)
            }
        }
    }

    fn deref(&mut self, p: TExpr, span: Span) -> TExpr {
        match &p.ty.ty {
            Type::Error => err_expr(span),
            Type::Ptr(t) => {
                if t.ty.is_void() {
                    self.error(span, "dereferencing a `void *` pointer");
                    return err_expr(span);
                }
                let ty = (**t).clone();
                mk(TKind::Deref(Box::new(p)), ty, span)
            }
            _ => {
                let msg = format!(
                    "indirection requires a pointer operand (`{}` given)",
                    self.show(&p.ty)
                );
                self.error(span, msg);
                err_expr(span)
            }
        }
    }

    /// `p + i` (or `p - i`) scaled by the size of `*p`.
    fn ptr_add(&mut self, p: TExpr, i: TExpr, negate: bool, span: Span) -> TExpr {
        let Some(size) = self.elem_size(&p.ty, span) else {
            return err_expr(span);
        };
        let i = self.promote(i);
        let i = if negate { self.negate(i) } else { i };
        let ty = p.ty.unqual();
        mk(TKind::PtrAdd(Box::new(p), Box::new(i), size), ty, span)
    }

    fn negate(&mut self, i: TExpr) -> TExpr {
        let ty = i.ty.clone();
        match (&ty.ty, i.as_const()) {
            (Type::Int(k), Some(v)) => konst(v.wrapping_neg(), *k, i.span),
            _ => {
                let span = i.span;
                mk(TKind::Neg(Box::new(i)), ty, span)
            }
        }
    }

    /// Size of the element a pointer of type `t` points to (void counts as 1, like gcc).
    fn elem_size(&mut self, t: &QualType, span: Span) -> Option<u32> {
        let Type::Ptr(e) = &t.ty else { return Some(1) };
        match &e.ty {
            Type::Void => Some(1),
            Type::Func(_) => {
                self.error(span, "arithmetic on a pointer to a function");
                None
            }
            ty => match self.prog.types.size_of(ty) {
                Some(n) => Some(n),
                None => {
                    let msg = format!(
                        "arithmetic on a pointer to incomplete type `{}`",
                        self.show(e)
                    );
                    self.error(span, msg);
                    None
                }
            },
        }
    }

    /// Reports unless `lv` is a modifiable lvalue.
    fn check_modifiable(&mut self, lv: &TExpr, what: &str) -> bool {
        if lv.ty.ty.is_error() {
            return false;
        }
        if !lv.is_lvalue() {
            self.error(
                lv.span,
                format!("the operand of {what} is not assignable (not an lvalue)"),
            );
            return false;
        }
        if let Type::Array(..) = lv.ty.ty {
            self.error(
                lv.span,
                format!("the operand of {what} is an array, which is not assignable"),
            );
            return false;
        }
        if lv.ty.cv.is_const || self.has_const_member(&lv.ty.ty) {
            self.error(
                lv.span,
                format!("the operand of {what} is read-only (const)"),
            );
            return false;
        }
        if let TKind::Str(_) = lv.kind {
            self.error(lv.span, "string literals are not assignable");
            return false;
        }
        true
    }

    fn has_const_member(&self, t: &Type) -> bool {
        let Type::Struct(id) = t else { return false };
        self.prog
            .types
            .get(*id)
            .fields
            .iter()
            .any(|f| f.ty.cv.is_const || matches!(&f.ty.ty, Type::Array(e, _) if e.cv.is_const))
    }

    /// Marks the variable at the root of an lvalue as address-taken.
    fn mark_addr_taken(&mut self, lv: &TExpr) -> bool {
        let mut cur = lv;
        loop {
            match &cur.kind {
                TKind::Member(b, _) => cur = b,
                TKind::Var(v) => {
                    if self.register_vars.contains(v) {
                        self.error(lv.span, "address of a register variable requested");
                        return false;
                    }
                    if self.in_sizeof == 0 {
                        self.prog.vars[*v as usize].addr_taken = true;
                    }
                    return true;
                }
                _ => return true,
            }
        }
    }

    fn unary(&mut self, op: UnaryOp, x: &ast::Expr, span: Span) -> TExpr {
        match op {
            UnaryOp::AddrOf => {
                let t = self.expr(x);
                if t.ty.ty.is_error() {
                    return t;
                }
                if let TKind::FuncName(_) = t.kind {
                    self.error(span, "not supported by ssalab: function pointers");
                    return err_expr(span);
                }
                if let TKind::Deref(p) = t.kind {
                    // &*p is p (C99 §6.5.3.2p3), but not an lvalue.
                    let ty = QualType::new(Type::ptr_to(t.ty));
                    return mk(p.kind, ty, span);
                }
                if !denotes_object(&t) {
                    self.error(span, "cannot take the address of an rvalue");
                    return err_expr(span);
                }
                if !self.mark_addr_taken(&t) {
                    return err_expr(span);
                }
                let ty = QualType::new(Type::ptr_to(t.ty.clone()));
                mk(TKind::AddrOf(Box::new(t)), ty, span)
            }
            UnaryOp::Deref => {
                let p = self.value_expr(x);
                self.deref(p, span)
            }
            UnaryOp::Plus | UnaryOp::Neg | UnaryOp::BitNot => {
                let v = self.value_expr(x);
                let v = self.require_int(v, "a unary arithmetic operator");
                let v = self.promote(v);
                if v.ty.ty.is_error() {
                    return v;
                }
                let ty = v.ty.clone();
                let k = ty.ty.int_kind().unwrap_or(IntKind::Int);
                match (op, v.as_const()) {
                    (UnaryOp::Plus, _) => TExpr { span, ..v },
                    (UnaryOp::Neg, Some(c)) => konst(c.wrapping_neg(), k, span),
                    (UnaryOp::BitNot, Some(c)) => konst(!c, k, span),
                    (UnaryOp::Neg, None) => mk(TKind::Neg(Box::new(v)), ty, span),
                    _ => mk(TKind::BitNot(Box::new(v)), ty, span),
                }
            }
            UnaryOp::LogNot => {
                let v = self.condition(x);
                if v.ty.ty.is_error() {
                    return v;
                }
                match v.as_const() {
                    Some(c) => konst((c == 0) as i32, IntKind::Int, span),
                    None => mk(
                        TKind::LogNot(Box::new(v)),
                        QualType::int(IntKind::Int),
                        span,
                    ),
                }
            }
            UnaryOp::PreInc | UnaryOp::PreDec | UnaryOp::PostInc | UnaryOp::PostDec => {
                let what = match op {
                    UnaryOp::PreInc | UnaryOp::PostInc => "`++`",
                    _ => "`--`",
                };
                let lv = self.expr(x);
                if !self.check_modifiable(&lv, what) {
                    return err_expr(span);
                }
                let unit = match &lv.ty.ty {
                    Type::Int(_) => 1,
                    Type::Ptr(_) => match self.elem_size(&lv.ty, span) {
                        Some(n) => n as i32,
                        None => return err_expr(span),
                    },
                    _ => {
                        let msg = format!(
                            "cannot increment or decrement a value of type `{}`",
                            self.show(&lv.ty)
                        );
                        self.error(span, msg);
                        return err_expr(span);
                    }
                };
                let delta = if matches!(op, UnaryOp::PreInc | UnaryOp::PostInc) {
                    unit
                } else {
                    -unit
                };
                let post = matches!(op, UnaryOp::PostInc | UnaryOp::PostDec);
                let ty = lv.ty.unqual();
                mk(
                    TKind::IncDec {
                        lv: Box::new(lv),
                        delta,
                        post,
                    },
                    ty,
                    span,
                )
            }
        }
    }

    fn invalid_operands(&mut self, op: &str, a: &TExpr, b: &TExpr, span: Span) -> TExpr {
        if a.ty.ty.is_error() || b.ty.ty.is_error() {
            return err_expr(span);
        }
        let msg = format!(
            "invalid operands to binary `{op}` (`{}` and `{}`)",
            self.show(&a.ty),
            self.show(&b.ty)
        );
        self.error(span, msg);
        err_expr(span)
    }

    fn binary(&mut self, op: BinaryOp, l: &ast::Expr, r: &ast::Expr, span: Span) -> TExpr {
        use BinaryOp::*;
        if matches!(op, LogAnd | LogOr) {
            let a = self.condition(l);
            let b = self.condition(r);
            let int = QualType::int(IntKind::Int);
            return match (a.as_const(), b.as_const(), op) {
                (Some(0), _, LogAnd) => konst(0, IntKind::Int, span),
                (Some(x), _, LogOr) if x != 0 && a.ty.ty.is_int() => konst(1, IntKind::Int, span),
                (Some(_), Some(y), _) if a.ty.ty.is_int() && b.ty.ty.is_int() => {
                    konst((y != 0) as i32, IntKind::Int, span)
                }
                _ if op == LogAnd => mk(TKind::LogAnd(Box::new(a), Box::new(b)), int, span),
                _ => mk(TKind::LogOr(Box::new(a), Box::new(b)), int, span),
            };
        }
        let a = self.value_expr(l);
        let b = self.value_expr(r);
        let sym = binary_symbol(op);
        match op {
            Add | Sub => match (&a.ty.ty, &b.ty.ty) {
                (Type::Int(_), Type::Int(_)) => {
                    let (a, b, k) = self.usual(a, b);
                    let aop = if op == Add {
                        ArithOp::Add
                    } else {
                        ArithOp::Sub
                    };
                    self.arith(aop, k, a, b, span)
                }
                (Type::Ptr(_), Type::Int(_)) => self.ptr_add(a, b, op == Sub, span),
                (Type::Int(_), Type::Ptr(_)) if op == Add => self.ptr_add(b, a, false, span),
                (Type::Ptr(p), Type::Ptr(q)) if op == Sub => {
                    let compatible = self.prog.types.compatible(&p.ty, &q.ty);
                    if !compatible {
                        return self.invalid_operands(sym, &a, &b, span);
                    }
                    let Some(size) = self.elem_size(&a.ty, span) else {
                        return err_expr(span);
                    };
                    mk(
                        TKind::PtrDiff(Box::new(a), Box::new(b), size),
                        QualType::int(IntKind::Int),
                        span,
                    )
                }
                _ => self.invalid_operands(sym, &a, &b, span),
            },
            Mul | Div | Rem | BitAnd | BitOr | BitXor => {
                if !(a.ty.ty.is_int() && b.ty.ty.is_int()) {
                    return self.invalid_operands(sym, &a, &b, span);
                }
                let (a, b, k) = self.usual(a, b);
                let aop = match op {
                    Mul => ArithOp::Mul,
                    Div => ArithOp::Div,
                    Rem => ArithOp::Rem,
                    BitAnd => ArithOp::And,
                    BitOr => ArithOp::Or,
                    _ => ArithOp::Xor,
                };
                if matches!(aop, ArithOp::Div | ArithOp::Rem) && b.as_const() == Some(0) {
                    self.diags.warning(span, "division by zero");
                }
                self.arith(aop, k, a, b, span)
            }
            Shl | Shr => {
                if !(a.ty.ty.is_int() && b.ty.ty.is_int()) {
                    return self.invalid_operands(sym, &a, &b, span);
                }
                let a = self.promote(a);
                let b = self.promote(b);
                let k = a.ty.ty.int_kind().unwrap_or(IntKind::Int);
                let aop = if op == Shl {
                    ArithOp::Shl
                } else {
                    ArithOp::Shr
                };
                self.arith(aop, k, a, b, span)
            }
            Lt | Gt | Le | Ge | Eq | Ne => self.comparison(op, a, b, span),
            LogAnd | LogOr => unreachable!("handled above"),
        }
    }

    fn comparison(&mut self, op: BinaryOp, a: TExpr, b: TExpr, span: Span) -> TExpr {
        let kind = match op {
            BinaryOp::Lt => CmpKind::Lt,
            BinaryOp::Gt => CmpKind::Gt,
            BinaryOp::Le => CmpKind::Le,
            BinaryOp::Ge => CmpKind::Ge,
            BinaryOp::Eq => CmpKind::Eq,
            _ => CmpKind::Ne,
        };
        let equality = matches!(kind, CmpKind::Eq | CmpKind::Ne);
        let (a, b) = match (&a.ty.ty, &b.ty.ty) {
            (Type::Int(_), Type::Int(_)) => {
                let (a, b, _) = self.usual(a, b);
                (a, b)
            }
            (Type::Ptr(p), Type::Ptr(q)) => {
                let ok = self.prog.types.compatible(&p.ty, &q.ty)
                    || (equality && (p.ty.is_void() || q.ty.is_void()));
                if !ok {
                    let msg = format!(
                        "comparison of distinct pointer types (`{}` and `{}`)",
                        self.show(&a.ty),
                        self.show(&b.ty)
                    );
                    self.diags.warning(span, msg);
                }
                (a, b)
            }
            (Type::Ptr(_), Type::Int(_)) => {
                if !is_null_constant(&b) {
                    self.diags
                        .warning(span, "comparison between a pointer and an integer");
                }
                let t = a.ty.clone();
                let b = self.convert(b, &t);
                (a, b)
            }
            (Type::Int(_), Type::Ptr(_)) => {
                if !is_null_constant(&a) {
                    self.diags
                        .warning(span, "comparison between a pointer and an integer");
                }
                let t = b.ty.clone();
                let a = self.convert(a, &t);
                (a, b)
            }
            _ => return self.invalid_operands(binary_symbol(op), &a, &b, span),
        };
        if let (Some(x), Some(y), true) = (a.as_const(), b.as_const(), a.ty.ty.is_int()) {
            let r = fold_cmp(kind, a.ty.ty.is_signed(), x, y);
            return konst(r as i32, IntKind::Int, span);
        }
        mk(
            TKind::Cmp(kind, Box::new(a), Box::new(b)),
            QualType::int(IntKind::Int),
            span,
        )
    }

    fn assign(&mut self, op: Option<BinaryOp>, l: &ast::Expr, r: &ast::Expr, span: Span) -> TExpr {
        let lv = self.expr(l);
        let rv = self.value_expr(r);
        let what = if op.is_none() {
            "assignment"
        } else {
            "compound assignment"
        };
        if !self.check_modifiable(&lv, what) {
            return err_expr(span);
        }
        let ty = lv.ty.unqual();
        let Some(op) = op else {
            if let Type::Struct(_) = lv.ty.ty {
                let rv = self.assign_convert(rv, &lv.ty, "assignment");
                if rv.ty.ty.is_error() {
                    return err_expr(span);
                }
                return mk(TKind::StructAssign(Box::new(lv), Box::new(rv)), ty, span);
            }
            let rv = self.assign_convert(rv, &lv.ty, "assignment");
            return mk(TKind::Assign(Box::new(lv), Box::new(rv)), ty, span);
        };
        use BinaryOp::*;
        let (cop, rv, op_ty) = match (&lv.ty.ty, &rv.ty.ty) {
            (Type::Ptr(_), Type::Int(_)) if matches!(op, Add | Sub) => {
                let Some(size) = self.elem_size(&lv.ty, span) else {
                    return err_expr(span);
                };
                let rv = self.promote(rv);
                (
                    CompoundOp::PtrAdd {
                        elem_size: size,
                        negate: op == Sub,
                    },
                    rv,
                    ty.clone(),
                )
            }
            (Type::Int(lk), Type::Int(rk)) => {
                let aop = match op {
                    Add => ArithOp::Add,
                    Sub => ArithOp::Sub,
                    Mul => ArithOp::Mul,
                    Div => ArithOp::Div,
                    Rem => ArithOp::Rem,
                    Shl => ArithOp::Shl,
                    Shr => ArithOp::Shr,
                    BitAnd => ArithOp::And,
                    BitOr => ArithOp::Or,
                    _ => ArithOp::Xor,
                };
                let (op_kind, rv) = if matches!(aop, ArithOp::Shl | ArithOp::Shr) {
                    (lk.promote(), self.promote(rv))
                } else {
                    let k = usual_arith(*lk, *rk);
                    (k, self.convert(rv, &QualType::int(k)))
                };
                (CompoundOp::Arith(aop), rv, QualType::int(op_kind))
            }
            _ => return self.invalid_operands(binary_symbol(op), &lv, &rv, span),
        };
        mk(
            TKind::CompoundAssign {
                op: cop,
                lv: Box::new(lv),
                rv: Box::new(rv),
                op_ty,
            },
            ty,
            span,
        )
    }

    fn cond(&mut self, c: &ast::Expr, a: &ast::Expr, b: &ast::Expr, span: Span) -> TExpr {
        let c = self.condition(c);
        let a = self.value_expr(a);
        let b = self.value_expr(b);
        let (a, b, ty) = match (&a.ty.ty, &b.ty.ty) {
            (Type::Error, _) | (_, Type::Error) => return err_expr(span),
            (Type::Int(_), Type::Int(_)) => {
                let (a, b, k) = self.usual(a, b);
                (a, b, QualType::int(k))
            }
            (Type::Void, Type::Void) => (a, b, QualType::new(Type::Void)),
            (Type::Struct(x), Type::Struct(y)) if x == y => {
                let t = a.ty.unqual();
                (a, b, t)
            }
            (Type::Ptr(p), Type::Ptr(q)) => {
                let t = if p.ty.is_void() {
                    a.ty.clone()
                } else if q.ty.is_void() {
                    b.ty.clone()
                } else {
                    if !self.prog.types.compatible(&p.ty, &q.ty) {
                        self.diags
                            .warning(span, "pointer type mismatch in conditional expression");
                    }
                    a.ty.clone()
                };
                (a, b, t)
            }
            (Type::Ptr(_), Type::Int(_)) if is_null_constant(&b) => {
                let t = a.ty.clone();
                let b = self.convert(b, &t);
                (a, b, t)
            }
            (Type::Int(_), Type::Ptr(_)) if is_null_constant(&a) => {
                let t = b.ty.clone();
                let a = self.convert(a, &t);
                (a, b, t)
            }
            _ => {
                let msg = format!(
                    "incompatible operand types in conditional expression (`{}` and `{}`)",
                    self.show(&a.ty),
                    self.show(&b.ty)
                );
                self.error(span, msg);
                return err_expr(span);
            }
        };
        if let (Some(cv), true) = (c.as_const(), c.ty.ty.is_int()) {
            let chosen = if cv != 0 { a } else { b };
            return TExpr { span, ..chosen };
        }
        mk(
            TKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
            ty.unqual(),
            span,
        )
    }

    fn call(&mut self, callee: &ast::Expr, args: &[ast::Expr], span: Span) -> TExpr {
        let f = match &callee.kind {
            ExprKind::Ident(name) => match self.lookup(*name).cloned() {
                Some(Ordinary::Func(f)) => f,
                None => {
                    let n = self.name(*name);
                    let hint = match n {
                        "print_int" | "print_char" => " (include \"ssalab.h\")",
                        "printf" | "putchar" => " (include <stdio.h>)",
                        "exit" | "abort" | "malloc" | "abs" => " (include <stdlib.h>)",
                        _ => "",
                    };
                    let msg = format!(
                        "call to undeclared function `{n}`; ssalab requires a declaration{hint}"
                    );
                    self.error(callee.span, msg);
                    for a in args {
                        self.value_expr(a);
                    }
                    return err_expr(span);
                }
                Some(_) => {
                    let t = self.expr(callee);
                    return self.not_callable(&t, span);
                }
            },
            _ => {
                let t = self.expr(callee);
                return self.not_callable(&t, span);
            }
        };
        let info = self.prog.funcs[f as usize].clone();
        let ft = info.ty.clone();
        let mut targs = Vec::with_capacity(args.len());
        if ft.prototype {
            let n = ft.params.len();
            if args.len() < n || (!ft.variadic && args.len() > n) {
                let msg = format!(
                    "too {} arguments to function `{}` (expected {}{n}, have {})",
                    if args.len() < n { "few" } else { "many" },
                    info.name,
                    if ft.variadic { "at least " } else { "" },
                    args.len()
                );
                self.error(span, msg);
            }
        }
        for (k, a) in args.iter().enumerate() {
            let v = self.value_expr(a);
            let v = match ft.params.get(k) {
                Some(pty) if ft.prototype => {
                    let ctx = format!("argument {} of `{}`", k + 1, info.name);
                    self.assign_convert(v, pty, &ctx)
                }
                _ => self.default_promotion(v),
            };
            targs.push(v);
        }
        if !ft.prototype {
            self.unprototyped_calls.push((f, args.len(), span));
        }
        self.prog.funcs[f as usize].used = true;
        self.note_use(SymRef::Func(f), callee.span);
        mk(TKind::Call(f, targs), ft.ret.unqual(), span)
    }

    fn not_callable(&mut self, t: &TExpr, span: Span) -> TExpr {
        if !t.ty.ty.is_error() {
            let is_fp = matches!(&t.ty.ty, Type::Ptr(p) if matches!(p.ty, Type::Func(_)))
                || matches!(t.kind, TKind::Deref(_));
            if is_fp {
                self.error(
                    span,
                    "not supported by ssalab: calls through function pointers",
                );
            } else {
                let msg = format!(
                    "called object of type `{}` is not a function",
                    self.show(&t.ty)
                );
                self.error(span, msg);
            }
        }
        err_expr(span)
    }

    /// Default argument promotions (C99 §6.5.2.2p6) for unprototyped and variadic calls.
    fn default_promotion(&mut self, v: TExpr) -> TExpr {
        match &v.ty.ty {
            Type::Int(_) => self.promote(v),
            Type::Struct(_) => {
                self.error(v.span, "not supported by ssalab: passing structs by value");
                err_expr(v.span)
            }
            Type::Void => {
                self.error(v.span, "void value used as a function argument");
                err_expr(v.span)
            }
            _ => v,
        }
    }

    fn member(
        &mut self,
        base: &ast::Expr,
        m: crate::front::lexer::Sym,
        mspan: Span,
        arrow: bool,
        span: Span,
    ) -> TExpr {
        let b = if arrow {
            let p = self.value_expr(base);
            match &p.ty.ty {
                Type::Error => return err_expr(span),
                Type::Ptr(t) if matches!(t.ty, Type::Struct(_)) => {
                    let ty = (**t).clone();
                    let pspan = p.span;
                    mk(TKind::Deref(Box::new(p)), ty, pspan)
                }
                _ => {
                    let msg = format!(
                        "member reference type `{}` is not a pointer to a structure",
                        self.show(&p.ty)
                    );
                    self.error(span, msg);
                    return err_expr(span);
                }
            }
        } else {
            self.expr(base)
        };
        let Type::Struct(id) = b.ty.ty else {
            if !b.ty.ty.is_error() {
                let msg = format!(
                    "member reference base type `{}` is not a structure",
                    self.show(&b.ty)
                );
                self.error(span, msg);
            }
            return err_expr(span);
        };
        if !self.prog.types.get(id).complete {
            let msg = format!("incomplete definition of type `{}`", self.show(&b.ty));
            self.error(span, msg);
            return err_expr(span);
        }
        let Some(field) = self.prog.types.field(id, m).cloned() else {
            if self.prog.types.get(id).rejected.contains(&m) {
                return err_expr(span);
            }
            let msg = format!(
                "no member named `{}` in `{}`",
                self.name(m),
                self.show(&b.ty.unqual())
            );
            self.error(mspan, msg);
            return err_expr(span);
        };
        let ty = field.ty.with_cv(b.ty.cv);
        mk(TKind::Member(Box::new(b), field.offset), ty, span)
    }

    fn cast(&mut self, tn: &ast::TypeName, x: &ast::Expr, span: Span) -> TExpr {
        let t = self.type_name(tn);
        let v = self.value_expr(x);
        if t.ty.is_error() || v.ty.ty.is_error() {
            return err_expr(span);
        }
        match (&t.ty, &v.ty.ty) {
            (Type::Void, _) => {
                let ty = QualType::new(Type::Void);
                mk(TKind::Conv(Box::new(v)), ty, span)
            }
            (Type::Int(_) | Type::Ptr(_), Type::Int(_) | Type::Ptr(_)) => {
                let c = self.convert(v, &t);
                TExpr { span, ..c }
            }
            _ => {
                let msg = format!("cannot cast `{}` to `{}`", self.show(&v.ty), self.show(&t));
                self.error(span, msg);
                err_expr(span)
            }
        }
    }
}

fn binary_symbol(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Mul => "*",
        BinaryOp::Div => "/",
        BinaryOp::Rem => "%",
        BinaryOp::Add => "+",
        BinaryOp::Sub => "-",
        BinaryOp::Shl => "<<",
        BinaryOp::Shr => ">>",
        BinaryOp::Lt => "<",
        BinaryOp::Gt => ">",
        BinaryOp::Le => "<=",
        BinaryOp::Ge => ">=",
        BinaryOp::Eq => "==",
        BinaryOp::Ne => "!=",
        BinaryOp::BitAnd => "&",
        BinaryOp::BitXor => "^",
        BinaryOp::BitOr => "|",
        BinaryOp::LogAnd => "&&",
        BinaryOp::LogOr => "||",
    }
}
