//! Statements (C99 §6.8): labels, compound statements with mixed declarations, selection,
//! iteration and jump statements. `else if` chains are collected into one `If` node and
//! labels into the statement they label, so neither costs nesting depth.

use super::{Fatal, PResult, Parser};
use crate::front::ast::*;
use crate::front::ctoken::{CTok, Kw, P};

impl Parser<'_> {
    /// `{ … }` with its own scope. Errors inside are reported and skipped.
    pub(super) fn compound_statement(&mut self) -> PResult<Stmt> {
        let start = self.span();
        self.expect(P::LBrace, "`{`")?;
        self.push_scope();
        // The enclosing statement already counted this nesting level.
        let r = self.block_items();
        self.pop_scope();
        let items = r?;
        Ok(Stmt {
            kind: StmtKind::Compound(items),
            span: start.to(self.prev_span()),
        })
    }

    fn block_items(&mut self) -> PResult<Vec<Stmt>> {
        let mut items = Vec::new();
        loop {
            if self.eat(P::RBrace) {
                return Ok(items);
            }
            if self.at_eof() {
                return self.error_here("expected `}` at end of block");
            }
            if self.diags.should_stop() {
                return Err(Fatal);
            }
            let start = self.pos;
            match self.block_item() {
                Ok(s) => items.push(s),
                Err(Fatal) => {
                    self.recovered = true;
                    if self.depth_reported {
                        // Past the nesting limit: give up on this function.
                        return Err(Fatal);
                    }
                    self.recover_statement();
                    if self.pos == start {
                        self.bump();
                    }
                }
            }
        }
    }

    fn is_label_here(&self) -> bool {
        matches!(self.tok(), CTok::Ident(_)) && *self.tok_at(1) == CTok::P(P::Colon)
    }

    fn block_item(&mut self) -> PResult<Stmt> {
        if self.starts_decl_specs() && !self.is_label_here() {
            let d = self.declaration()?;
            let span = d.span;
            return Ok(Stmt {
                kind: StmtKind::Decl(d),
                span,
            });
        }
        self.statement()
    }

    pub(super) fn statement(&mut self) -> PResult<Stmt> {
        self.nested(|p| p.statement_inner())
    }

    fn labels(&mut self) -> PResult<Vec<Label>> {
        let mut labels = Vec::new();
        loop {
            let span = self.span();
            if self.is_label_here() {
                let CTok::Ident(s) = self.tok() else {
                    unreachable!()
                };
                labels.push(Label::Named(*s, span));
                self.bump();
                self.bump();
            } else if self.eat_kw(Kw::Case) {
                let e = self.cond_expr()?;
                if self.is(P::Ellipsis) {
                    return self.unsupported("case ranges");
                }
                self.expect(P::Colon, "`:` after case label")?;
                labels.push(Label::Case(e, span.to(self.prev_span())));
            } else if self.eat_kw(Kw::Default) {
                self.expect(P::Colon, "`:` after default")?;
                labels.push(Label::Default(span.to(self.prev_span())));
            } else {
                return Ok(labels);
            }
        }
    }

    fn statement_inner(&mut self) -> PResult<Stmt> {
        let start = self.span();
        let labels = self.labels()?;
        if !labels.is_empty() {
            // A label may end a block (accepted as labelling an empty statement).
            let s = if self.is(P::RBrace) {
                Stmt {
                    kind: StmtKind::Empty,
                    span: self.prev_span(),
                }
            } else if self.starts_decl_specs() && !self.is_label_here() {
                let d = self.declaration()?;
                let span = d.span;
                Stmt {
                    kind: StmtKind::Decl(d),
                    span,
                }
            } else {
                self.statement()?
            };
            let span = start.to(s.span);
            return Ok(Stmt {
                kind: StmtKind::Labeled(labels, Box::new(s)),
                span,
            });
        }
        let kind = match self.tok() {
            CTok::P(P::LBrace) => return self.compound_statement(),
            CTok::P(P::Semi) => {
                self.bump();
                StmtKind::Empty
            }
            CTok::Kw(Kw::If) => self.if_statement()?,
            CTok::Kw(Kw::While) => {
                self.bump();
                let c = self.paren_expr()?;
                let body = self.statement()?;
                StmtKind::While(c, Box::new(body))
            }
            CTok::Kw(Kw::Do) => {
                self.bump();
                let body = self.statement()?;
                if !self.eat_kw(Kw::While) {
                    return self.error_here("expected `while` after do body");
                }
                let c = self.paren_expr()?;
                self.expect(P::Semi, "`;` after do-while")?;
                StmtKind::DoWhile(Box::new(body), c)
            }
            CTok::Kw(Kw::For) => {
                self.bump();
                self.push_scope();
                let r = self.for_rest();
                self.pop_scope();
                r?
            }
            CTok::Kw(Kw::Switch) => {
                self.bump();
                let c = self.paren_expr()?;
                let body = self.statement()?;
                StmtKind::Switch(c, Box::new(body))
            }
            CTok::Kw(Kw::Goto) => {
                self.bump();
                let CTok::Ident(s) = self.tok() else {
                    if self.is(P::Star) {
                        return self.unsupported("computed goto");
                    }
                    return self.error_here("expected a label name after goto");
                };
                let k = StmtKind::Goto(*s, self.span());
                self.bump();
                self.expect(P::Semi, "`;` after goto")?;
                k
            }
            CTok::Kw(Kw::Break) => {
                self.bump();
                self.expect(P::Semi, "`;` after break")?;
                StmtKind::Break
            }
            CTok::Kw(Kw::Continue) => {
                self.bump();
                self.expect(P::Semi, "`;` after continue")?;
                StmtKind::Continue
            }
            CTok::Kw(Kw::Return) => {
                self.bump();
                let e = if self.is(P::Semi) {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.expect(P::Semi, "`;` after return")?;
                StmtKind::Return(e)
            }
            CTok::Kw(Kw::Asm) => return self.unsupported("asm statements"),
            CTok::Kw(Kw::Else) => return self.error_here("`else` without a previous `if`"),
            _ => {
                let e = self.expr()?;
                self.expect(P::Semi, "`;` after expression")?;
                StmtKind::Expr(e)
            }
        };
        Ok(Stmt {
            kind,
            span: start.to(self.prev_span()),
        })
    }

    fn paren_expr(&mut self) -> PResult<Expr> {
        self.expect(P::LParen, "`(`")?;
        let e = self.expr()?;
        self.expect(P::RParen, "`)`")?;
        Ok(e)
    }

    fn if_statement(&mut self) -> PResult<StmtKind> {
        let mut arms = Vec::new();
        let mut otherwise = None;
        loop {
            self.bump(); // if
            let c = self.paren_expr()?;
            let s = self.statement()?;
            arms.push((c, s));
            if !self.eat_kw(Kw::Else) {
                break;
            }
            if !self.is_kw(Kw::If) {
                otherwise = Some(Box::new(self.statement()?));
                break;
            }
        }
        Ok(StmtKind::If(arms, otherwise))
    }

    fn for_rest(&mut self) -> PResult<StmtKind> {
        self.expect(P::LParen, "`(` after for")?;
        let init = if self.eat(P::Semi) {
            ForInit::None
        } else if self.starts_decl_specs() {
            ForInit::Decl(self.declaration()?)
        } else {
            let e = self.expr()?;
            self.expect(P::Semi, "`;` in for")?;
            ForInit::Expr(e)
        };
        let cond = if self.is(P::Semi) {
            None
        } else {
            Some(self.expr()?)
        };
        self.expect(P::Semi, "`;` in for")?;
        let step = if self.is(P::RParen) {
            None
        } else {
            Some(self.expr()?)
        };
        self.expect(P::RParen, "`)` after for clauses")?;
        let body = self.statement()?;
        Ok(StmtKind::For(Box::new(init), cond, step, Box::new(body)))
    }
}
