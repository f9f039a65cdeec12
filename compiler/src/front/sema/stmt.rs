//! Statements (C99 §6.8): blocks and scopes, selection with switch/case checks (integer
//! controlling expression, constant case labels converted to its promoted type, duplicate
//! values, one default), loops, jumps (`break`/`continue` validity, `goto` to labels of the
//! same function, checked at the end of the function), `return` with conversion to the
//! return type.

use super::conv::err_expr;
use super::{Breakable, LabelInfo, Sema, SwitchCtx};
use crate::front::ast::{self, ForInit, Label, StmtKind};
use crate::front::diag::{Diag, Span};
use crate::front::lexer::Sym;
use crate::front::tast::*;
use crate::front::types::*;

impl Sema<'_> {
    pub(super) fn block_items(&mut self, items: &[ast::Stmt]) -> Vec<TStmt> {
        let mut out = Vec::with_capacity(items.len());
        for s in items {
            if self.diags.should_stop() {
                break;
            }
            out.push(self.statement(s));
        }
        out
    }

    fn fctx(&mut self) -> &mut super::FnCtx {
        self.fctx.as_mut().expect("inside a function")
    }

    fn label_id(&mut self, name: Sym) -> LabelId {
        let f = self.fctx();
        if let Some(l) = f.labels.get(&name) {
            return l.id;
        }
        let id = f.num_labels;
        f.num_labels += 1;
        f.labels.insert(
            name,
            LabelInfo {
                id,
                defined: false,
                first_use: None,
            },
        );
        id
    }

    pub(super) fn statement(&mut self, s: &ast::Stmt) -> TStmt {
        match &s.kind {
            StmtKind::Empty => TStmt::Empty,
            StmtKind::Expr(e) => {
                let t = self.expr(e);
                TStmt::Expr(self.rvalue(t))
            }
            StmtKind::Decl(d) => {
                let mut v = self.declaration(d, false);
                if v.len() == 1 {
                    v.pop().expect("one")
                } else {
                    TStmt::Block(v)
                }
            }
            StmtKind::Compound(items) => {
                self.push_scope();
                let b = self.block_items(items);
                self.pop_scope();
                TStmt::Block(b)
            }
            StmtKind::If(arms, otherwise) => {
                let arms = arms
                    .iter()
                    .map(|(c, st)| {
                        let c = self.condition(c);
                        (c, self.statement(st))
                    })
                    .collect();
                let otherwise = otherwise.as_ref().map(|st| Box::new(self.statement(st)));
                TStmt::If(arms, otherwise)
            }
            StmtKind::While(c, body) => {
                let c = self.condition(c);
                let body = self.loop_body(body);
                TStmt::While(c, Box::new(body))
            }
            StmtKind::DoWhile(body, c) => {
                let body = self.loop_body(body);
                let c = self.condition(c);
                TStmt::DoWhile(Box::new(body), c)
            }
            StmtKind::For(init, cond, step, body) => {
                self.push_scope();
                let init = match &**init {
                    ForInit::None => None,
                    ForInit::Expr(e) => {
                        let t = self.expr(e);
                        Some(Box::new(TStmt::Expr(self.rvalue(t))))
                    }
                    ForInit::Decl(d) => {
                        if let Some((st, span)) = d.specs.storage {
                            if !matches!(st, ast::Storage::Auto | ast::Storage::Register) {
                                self.error(
                                    span,
                                    "only auto or register variables may be declared in a for loop",
                                );
                            }
                        }
                        Some(Box::new(TStmt::Block(self.declaration(d, false))))
                    }
                };
                let cond = cond.as_ref().map(|c| self.condition(c));
                let step = step.as_ref().map(|e| {
                    let t = self.expr(e);
                    self.rvalue(t)
                });
                let body = self.loop_body(body);
                self.pop_scope();
                TStmt::For(init, cond, step, Box::new(body))
            }
            StmtKind::Switch(c, body) => self.switch(c, body),
            StmtKind::Labeled(labels, st) => {
                let mut tl = Vec::with_capacity(labels.len());
                for l in labels {
                    if let Some(x) = self.label(l) {
                        tl.push(x);
                    }
                }
                let st = self.statement(st);
                TStmt::Labeled(tl, Box::new(st))
            }
            StmtKind::Goto(name, span) => {
                let id = self.label_id(*name);
                let l = self.fctx().labels.get_mut(name).expect("label");
                if l.first_use.is_none() {
                    l.first_use = Some(*span);
                }
                TStmt::Goto(id)
            }
            StmtKind::Break => {
                if self.fctx().breakables.is_empty() {
                    self.error(s.span, "break statement not within a loop or switch");
                }
                TStmt::Break
            }
            StmtKind::Continue => {
                if !self.fctx().breakables.contains(&Breakable::Loop) {
                    self.error(s.span, "continue statement not within a loop");
                }
                TStmt::Continue
            }
            StmtKind::Return(e) => self.return_stmt(e.as_ref(), s.span),
        }
    }

    fn loop_body(&mut self, body: &ast::Stmt) -> TStmt {
        self.fctx().breakables.push(Breakable::Loop);
        let b = self.statement(body);
        self.fctx().breakables.pop();
        b
    }

    fn return_stmt(&mut self, e: Option<&ast::Expr>, span: Span) -> TStmt {
        let ret = self.fctx().ret.clone();
        let Some(e) = e else {
            return TStmt::Return(None);
        };
        let v = self.value_expr(e);
        if ret.ty.is_void() {
            if !v.ty.ty.is_void() && !v.ty.ty.is_error() {
                self.error(span, "void function should not return a value");
            }
            return TStmt::Expr(v);
        }
        let v = self.assign_convert(v, &ret, "return");
        TStmt::Return(Some(v))
    }

    fn switch(&mut self, c: &ast::Expr, body: &ast::Stmt) -> TStmt {
        let v = self.value_expr(c);
        let v = if v.ty.ty.is_int() || v.ty.ty.is_error() {
            self.promote(v)
        } else {
            let msg = format!(
                "switch quantity is not an integer (type `{}`)",
                self.show(&v.ty)
            );
            self.error(v.span, msg);
            err_expr(v.span)
        };
        let kind = v.ty.ty.int_kind().unwrap_or(IntKind::Int);
        let f = self.fctx();
        f.switches.push(SwitchCtx {
            cases: Vec::new(),
            default: None,
            kind,
        });
        f.breakables.push(Breakable::Switch);
        let body = self.statement(body);
        let f = self.fctx();
        f.breakables.pop();
        let ctx = f.switches.pop().expect("switch");
        TStmt::Switch {
            cond: v,
            cases: ctx.cases.iter().map(|&(v, id, _)| (v, id)).collect(),
            default: ctx.default.map(|d| d.0),
            body: Box::new(body),
        }
    }

    fn label(&mut self, l: &Label) -> Option<TLabel> {
        match l {
            Label::Named(name, span) => {
                let id = self.label_id(*name);
                let info = self.fctx().labels.get_mut(name).expect("label");
                if info.defined {
                    self.error(*span, format!("duplicate label `{}`", self.name(*name)));
                    return None;
                }
                info.defined = true;
                Some(TLabel::Named(id))
            }
            Label::Case(e, span) => {
                if self.fctx().switches.is_empty() {
                    self.error(*span, "case label not within a switch statement");
                    return None;
                }
                let (v, _) = self.ice(e)?;
                let f = self.fctx();
                let sw = f.switches.last().expect("switch");
                let v = sw.kind.wrap(v);
                if let Some(&(_, _, prev)) = sw.cases.iter().find(|c| c.0 == v) {
                    let shown = if sw.kind.signed() {
                        v.to_string()
                    } else {
                        (v as u32).to_string()
                    };
                    let d = Diag::error(*span, format!("duplicate case value {shown}"))
                        .with_secondary(prev, "previous case is here");
                    self.diags.report(d);
                    return None;
                }
                let f = self.fctx();
                let id = f.num_cases;
                f.num_cases += 1;
                f.switches
                    .last_mut()
                    .expect("switch")
                    .cases
                    .push((v, id, *span));
                Some(TLabel::Case(id))
            }
            Label::Default(span) => {
                let f = self.fctx();
                let Some(sw) = f.switches.last_mut() else {
                    self.error(*span, "default label not within a switch statement");
                    return None;
                };
                if let Some((_, prev)) = sw.default {
                    let d = Diag::error(*span, "multiple default labels in one switch")
                        .with_secondary(prev, "previous default is here");
                    self.diags.report(d);
                    return None;
                }
                let id = f.num_cases;
                f.num_cases += 1;
                f.switches.last_mut().expect("switch").default = Some((id, *span));
                Some(TLabel::Case(id))
            }
        }
    }
}
