//! Expressions (C99 §6.5): comma, assignment, conditional, binary operators by precedence
//! climbing, casts, unary operators, `sizeof`, postfix operators, primary expressions.
//!
//! Each function leaves the height of the tree it returns in `last_h`, so that chains built
//! by loops are bounded as well as recursion.

use super::{PResult, Parser};
use crate::front::ast::*;
use crate::front::ctoken::{CTok, Kw, P};

fn binary_op(p: P) -> Option<(BinaryOp, u8)> {
    Some(match p {
        P::OrOr => (BinaryOp::LogOr, 1),
        P::AndAnd => (BinaryOp::LogAnd, 2),
        P::Pipe => (BinaryOp::BitOr, 3),
        P::Caret => (BinaryOp::BitXor, 4),
        P::Amp => (BinaryOp::BitAnd, 5),
        P::EqEq => (BinaryOp::Eq, 6),
        P::Ne => (BinaryOp::Ne, 6),
        P::Lt => (BinaryOp::Lt, 7),
        P::Gt => (BinaryOp::Gt, 7),
        P::Le => (BinaryOp::Le, 7),
        P::Ge => (BinaryOp::Ge, 7),
        P::Shl => (BinaryOp::Shl, 8),
        P::Shr => (BinaryOp::Shr, 8),
        P::Plus => (BinaryOp::Add, 9),
        P::Minus => (BinaryOp::Sub, 9),
        P::Star => (BinaryOp::Mul, 10),
        P::Slash => (BinaryOp::Div, 10),
        P::Percent => (BinaryOp::Rem, 10),
        _ => return None,
    })
}

fn assign_op(p: P) -> Option<Option<BinaryOp>> {
    Some(match p {
        P::Assign => None,
        P::MulAssign => Some(BinaryOp::Mul),
        P::DivAssign => Some(BinaryOp::Div),
        P::ModAssign => Some(BinaryOp::Rem),
        P::AddAssign => Some(BinaryOp::Add),
        P::SubAssign => Some(BinaryOp::Sub),
        P::ShlAssign => Some(BinaryOp::Shl),
        P::ShrAssign => Some(BinaryOp::Shr),
        P::AndAssign => Some(BinaryOp::BitAnd),
        P::XorAssign => Some(BinaryOp::BitXor),
        P::OrAssign => Some(BinaryOp::BitOr),
        _ => return None,
    })
}

fn node(kind: ExprKind, span: crate::front::diag::Span) -> Expr {
    Expr { kind, span }
}

impl Parser<'_> {
    /// expression: assignment-expressions separated by commas.
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        let mut e = self.assign_expr()?;
        let mut h = self.last_h;
        while self.eat(P::Comma) {
            let r = self.assign_expr()?;
            h = h.max(self.last_h) + 1;
            let span = e.span.to(r.span);
            e = node(ExprKind::Comma(Box::new(e), Box::new(r)), span);
            self.set_height(h)?;
        }
        self.last_h = h;
        Ok(e)
    }

    pub(super) fn assign_expr(&mut self) -> PResult<Expr> {
        let lhs = self.cond_expr()?;
        let h = self.last_h;
        let CTok::P(p) = self.tok() else {
            return Ok(lhs);
        };
        let Some(op) = assign_op(*p) else {
            return Ok(lhs);
        };
        self.bump();
        let rhs = self.nested(|p| p.assign_expr())?;
        let h = h.max(self.last_h) + 1;
        let span = lhs.span.to(rhs.span);
        self.set_height(h)?;
        Ok(node(
            ExprKind::Assign(op, Box::new(lhs), Box::new(rhs)),
            span,
        ))
    }

    pub(super) fn cond_expr(&mut self) -> PResult<Expr> {
        let c = self.binary(1)?;
        if !self.is(P::Question) {
            return Ok(c);
        }
        let hc = self.last_h;
        self.bump();
        let (a, b, h) = self.nested(|p| {
            let a = p.expr()?;
            let ha = p.last_h;
            p.expect(P::Colon, "`:` in conditional expression")?;
            let b = p.cond_expr()?;
            Ok((a, b, ha.max(p.last_h)))
        })?;
        let span = c.span.to(b.span);
        self.set_height(hc.max(h) + 1)?;
        Ok(node(
            ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
            span,
        ))
    }

    /// Binary operators of precedence `min_prec` and higher (precedence climbing).
    fn binary(&mut self, min_prec: u8) -> PResult<Expr> {
        let mut lhs = self.cast_expr()?;
        let mut h = self.last_h;
        while let CTok::P(p) = self.tok() {
            let Some((op, prec)) = binary_op(*p) else {
                break;
            };
            if prec < min_prec {
                break;
            }
            self.bump();
            let rhs = self.nested(|p| p.binary(prec + 1))?;
            h = h.max(self.last_h) + 1;
            let span = lhs.span.to(rhs.span);
            lhs = node(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), span);
            self.set_height(h)?;
        }
        self.last_h = h;
        Ok(lhs)
    }

    /// True at `(` that starts a type name (a cast, or `sizeof (type)`).
    fn paren_type_follows(&self) -> bool {
        if !self.is(P::LParen) {
            return false;
        }
        match self.tok_at(1) {
            CTok::Kw(k) => {
                starts_declaration(*k)
                    && !matches!(
                        k,
                        Kw::Typedef
                            | Kw::Extern
                            | Kw::Static
                            | Kw::Auto
                            | Kw::Register
                            | Kw::Inline
                    )
            }
            CTok::Ident(s) => self.is_typedef_name(*s),
            _ => false,
        }
    }

    fn cast_expr(&mut self) -> PResult<Expr> {
        if !self.paren_type_follows() {
            return self.unary_expr();
        }
        let start = self.span();
        self.nested(|p| {
            p.bump(); // (
            let tn = p.type_name()?;
            p.expect(P::RParen, "`)` after type name")?;
            if p.is(P::LBrace) {
                return p.unsupported("compound literals");
            }
            let e = p.cast_expr()?;
            let span = start.to(e.span);
            let h = p.last_h + 1;
            p.set_height(h)?;
            Ok(node(ExprKind::Cast(Box::new(tn), Box::new(e)), span))
        })
    }

    fn unary_expr(&mut self) -> PResult<Expr> {
        let start = self.span();
        let op = match self.tok() {
            CTok::P(P::Inc) => Some(UnaryOp::PreInc),
            CTok::P(P::Dec) => Some(UnaryOp::PreDec),
            CTok::P(P::Amp) => Some(UnaryOp::AddrOf),
            CTok::P(P::Star) => Some(UnaryOp::Deref),
            CTok::P(P::Plus) => Some(UnaryOp::Plus),
            CTok::P(P::Minus) => Some(UnaryOp::Neg),
            CTok::P(P::Tilde) => Some(UnaryOp::BitNot),
            CTok::P(P::Bang) => Some(UnaryOp::LogNot),
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            return self.nested(|p| {
                let e = if matches!(op, UnaryOp::PreInc | UnaryOp::PreDec) {
                    p.unary_expr()?
                } else {
                    p.cast_expr()?
                };
                let span = start.to(e.span);
                let h = p.last_h + 1;
                p.set_height(h)?;
                Ok(node(ExprKind::Unary(op, Box::new(e)), span))
            });
        }
        if self.is_kw(Kw::Sizeof) {
            self.bump();
            return self.nested(|p| {
                if p.paren_type_follows() {
                    p.bump();
                    let tn = p.type_name()?;
                    p.expect(P::RParen, "`)` after type name")?;
                    if p.is(P::LBrace) {
                        return p.unsupported("compound literals");
                    }
                    p.set_height(1)?;
                    let span = start.to(p.prev_span());
                    Ok(node(ExprKind::SizeofType(Box::new(tn)), span))
                } else {
                    let e = p.unary_expr()?;
                    let span = start.to(e.span);
                    let h = p.last_h + 1;
                    p.set_height(h)?;
                    Ok(node(ExprKind::SizeofExpr(Box::new(e)), span))
                }
            });
        }
        if self.is_kw(Kw::Alignof) {
            return self.unsupported("_Alignof");
        }
        if self.is_kw(Kw::Extension) {
            self.bump();
            return self.cast_expr();
        }
        self.postfix_expr()
    }

    fn postfix_expr(&mut self) -> PResult<Expr> {
        let mut e = self.primary_expr()?;
        let mut h = self.last_h;
        loop {
            let kind = match self.tok() {
                CTok::P(P::LBracket) => {
                    self.bump();
                    let idx = self.nested(|p| p.expr())?;
                    h = h.max(self.last_h);
                    self.expect(P::RBracket, "`]`")?;
                    ExprKind::Index(Box::new(e), Box::new(idx))
                }
                CTok::P(P::LParen) => {
                    self.bump();
                    let args = self.nested(|p| p.call_args())?;
                    h = h.max(self.last_h);
                    ExprKind::Call(Box::new(e), args)
                }
                CTok::P(p @ (P::Dot | P::Arrow)) => {
                    let arrow = *p == P::Arrow;
                    self.bump();
                    let CTok::Ident(m) = self.tok() else {
                        return self.error_here("expected a member name");
                    };
                    let m = (*m, self.span());
                    self.bump();
                    ExprKind::Member(Box::new(e), m.0, m.1, arrow)
                }
                CTok::P(P::Inc) => {
                    self.bump();
                    ExprKind::Unary(UnaryOp::PostInc, Box::new(e))
                }
                CTok::P(P::Dec) => {
                    self.bump();
                    ExprKind::Unary(UnaryOp::PostDec, Box::new(e))
                }
                _ => break,
            };
            let span = match &kind {
                ExprKind::Index(b, _)
                | ExprKind::Call(b, _)
                | ExprKind::Member(b, ..)
                | ExprKind::Unary(_, b) => b.span.to(self.prev_span()),
                _ => self.prev_span(),
            };
            e = node(kind, span);
            h += 1;
            self.set_height(h)?;
        }
        self.last_h = h;
        Ok(e)
    }

    /// Arguments after `(` up to and including `)`; `last_h` is their greatest height.
    fn call_args(&mut self) -> PResult<Vec<Expr>> {
        let mut args = Vec::new();
        let mut h = 0;
        if !self.eat(P::RParen) {
            loop {
                args.push(self.assign_expr()?);
                h = h.max(self.last_h);
                if !self.eat(P::Comma) {
                    break;
                }
            }
            self.expect(P::RParen, "`)` or `,` in argument list")?;
        }
        self.last_h = h;
        Ok(args)
    }

    fn primary_expr(&mut self) -> PResult<Expr> {
        let span = self.span();
        self.last_h = 1;
        let kind = match self.tok() {
            CTok::Ident(s) => ExprKind::Ident(*s),
            CTok::Int(l) => ExprKind::Int(*l),
            CTok::Char(c) => ExprKind::Char(*c),
            CTok::Str(_) => {
                // Adjacent string literals are one (C99 translation phase 6).
                let mut bytes = Vec::new();
                let mut end = span;
                while let CTok::Str(b) = self.tok() {
                    bytes.extend_from_slice(b);
                    end = self.span();
                    self.bump();
                }
                return Ok(node(ExprKind::Str(bytes), span.to(end)));
            }
            CTok::P(P::LParen) => {
                if *self.tok_at(1) == CTok::P(P::LBrace) {
                    return self.unsupported("statement expressions");
                }
                self.bump();
                let e = self.nested(|p| p.expr())?;
                let h = self.last_h;
                self.expect(P::RParen, "`)`")?;
                self.last_h = h;
                // Keep the parentheses in the span (for messages about the whole operand).
                return Ok(Expr {
                    kind: e.kind,
                    span: span.to(self.prev_span()),
                });
            }
            _ => return self.error_here("expected an expression"),
        };
        self.bump();
        Ok(node(kind, span))
    }
}
