//! Lowering of statements: declarations with initialisers, selection, loops, switch
//! dispatch, labels and jumps.

use super::{FnLower, Loc};
use crate::front::tast::*;
use crate::ir::{BlockId, CmpOp, Op, Terminator, Ty, Value};

impl FnLower<'_> {
    pub(super) fn stmt(&mut self, s: &TStmt) {
        match s {
            TStmt::Empty => {}
            TStmt::Expr(e) => self.effect(e),
            TStmt::Decl(v, init) => self.decl(*v, init.as_ref()),
            TStmt::Block(items) => {
                for st in items {
                    self.stmt(st);
                }
            }
            TStmt::If(arms, otherwise) => {
                let join = self.new_block();
                for (c, body) in arms {
                    let (t, next) = (self.new_block(), self.new_block());
                    self.cond_branch(c, t, next);
                    self.cur = t;
                    self.stmt(body);
                    self.jump(join);
                    self.cur = next;
                }
                if let Some(o) = otherwise {
                    self.stmt(o);
                }
                self.enter(join);
            }
            TStmt::While(c, body) => {
                let (head, b, exit) = (self.new_block(), self.new_block(), self.new_block());
                self.enter(head);
                self.cond_branch(c, b, exit);
                self.cur = b;
                self.loop_body(body, exit, head);
                self.jump(head);
                self.cur = exit;
            }
            TStmt::DoWhile(body, c) => {
                let (b, test, exit) = (self.new_block(), self.new_block(), self.new_block());
                self.enter(b);
                self.loop_body(body, exit, test);
                self.enter(test);
                self.cond_branch(c, b, exit);
                self.cur = exit;
            }
            TStmt::For(init, cond, step, body) => {
                if let Some(i) = init {
                    self.stmt(i);
                }
                let (head, b, next, exit) = (
                    self.new_block(),
                    self.new_block(),
                    self.new_block(),
                    self.new_block(),
                );
                self.enter(head);
                match cond {
                    Some(c) => self.cond_branch(c, b, exit),
                    None => self.jump(b),
                }
                self.cur = b;
                self.loop_body(body, exit, next);
                self.enter(next);
                if let Some(st) = step {
                    self.effect(st);
                }
                self.jump(head);
                self.cur = exit;
            }
            TStmt::Switch {
                cond,
                cases,
                default,
                body,
            } => self.switch(cond, cases, *default, body),
            TStmt::Labeled(labels, st) => {
                for l in labels {
                    let b = match l {
                        TLabel::Named(id) => self.label_block(*id),
                        TLabel::Case(id) => match self.cases[*id as usize] {
                            Some(b) => b,
                            None => {
                                let b = self.new_block();
                                self.cases[*id as usize] = Some(b);
                                b
                            }
                        },
                    };
                    self.enter(b);
                }
                self.stmt(st);
            }
            TStmt::Goto(id) => {
                let b = self.label_block(*id);
                self.jump(b);
            }
            TStmt::Break => {
                if let Some(&b) = self.breaks.last() {
                    self.jump(b);
                }
            }
            TStmt::Continue => {
                if let Some(&b) = self.continues.last() {
                    self.jump(b);
                }
            }
            TStmt::Return(e) => {
                if let (Some(dst), Some(e)) = (self.sret, e) {
                    // A struct result is copied to the caller's object (hidden parameter).
                    let src = self.expr(e);
                    let size = self.prog.types.size_of(&e.ty.ty).unwrap_or(0);
                    let align = self.prog.types.align_of(&e.ty.ty);
                    self.copy_bytes(dst, src, size, align, false);
                    self.terminate(Terminator::Return(None));
                    return;
                }
                let v = match (e, self.ret) {
                    (Some(e), Some(_)) => Some(self.expr(e)),
                    (Some(e), None) => {
                        self.effect(e);
                        None
                    }
                    // `return;` in a function returning a value (C89): return 0.
                    (None, Some(t)) => Some(self.konst(0, t)),
                    (None, None) if self.is_main => Some(self.konst(0, Ty::I32)),
                    (None, None) => None,
                };
                self.terminate(Terminator::Return(v));
            }
        }
    }

    fn loop_body(&mut self, body: &TStmt, exit: BlockId, cont: BlockId) {
        self.breaks.push(exit);
        self.continues.push(cont);
        self.stmt(body);
        self.breaks.pop();
        self.continues.pop();
    }

    fn label_block(&mut self, id: LabelId) -> BlockId {
        match self.labels[id as usize] {
            Some(b) => b,
            None => {
                let b = self.new_block();
                self.labels[id as usize] = Some(b);
                b
            }
        }
    }

    fn decl(&mut self, v: VarId, init: Option<&LocalInit>) {
        let loc = self.loc(v);
        let Some(init) = init else { return };
        let ty = self.prog.vars[v as usize].ty.clone();
        match loc {
            Loc::Reg(r) => {
                if let Some(InitItem::Scalar { expr, .. }) = init.items.first() {
                    let val = self.expr(expr);
                    self.assign_reg(r, val);
                }
            }
            Loc::Slot(s) => {
                let base = self.emit(Ty::Ptr, Op::SlotAddr(s));
                if init.zero_fill {
                    let size = self.prog.types.size_of(&ty.ty).unwrap_or(0);
                    let align = self.prog.types.align_of(&ty.ty);
                    self.zero_bytes(base, size, align);
                }
                for item in &init.items {
                    match item {
                        InitItem::Scalar { offset, expr } => {
                            let val = self.expr(expr);
                            let addr = self.offset_addr(base, *offset);
                            let ety = expr.ty.clone().with_cv(ty.cv);
                            self.store_mem(addr, &ety, val);
                        }
                        InitItem::Bytes { offset, bytes } => {
                            for (k, &b) in bytes.iter().enumerate() {
                                let addr = self.offset_addr(base, offset + k as u32);
                                let val = self.konst(b as i8 as i32, Ty::I32);
                                self.push(
                                    None,
                                    Op::Store {
                                        ty: crate::ir::MemTy::I8,
                                        addr,
                                        value: val,
                                        volatile: ty.cv.is_volatile,
                                    },
                                );
                            }
                        }
                        InitItem::Struct { offset, expr, size } => {
                            let src = self.expr(expr);
                            let dst = self.offset_addr(base, *offset);
                            let align = self.prog.types.align_of(&expr.ty.ty);
                            self.copy_bytes(dst, src, *size, align, ty.cv.is_volatile);
                        }
                    }
                }
            }
            Loc::Global(_) => {}
        }
    }

    fn offset_addr(&mut self, base: Value, off: u32) -> Value {
        if off == 0 {
            return base;
        }
        let c = self.konst(off as i32, Ty::I32);
        self.emit(Ty::Ptr, Op::Bin(crate::ir::BinOp::Add, base, c))
    }

    fn switch(
        &mut self,
        cond: &TExpr,
        cases: &[(i32, CaseId)],
        default: Option<CaseId>,
        body: &TStmt,
    ) {
        let v = self.expr(cond);
        let signed = cond.ty.ty.is_signed();
        let exit = self.new_block();
        let mut targets: Vec<(i32, BlockId)> = Vec::with_capacity(cases.len());
        for &(val, id) in cases {
            let b = self.new_block();
            self.cases[id as usize] = Some(b);
            targets.push((val, b));
        }
        let default_block = match default {
            Some(id) => {
                let b = self.new_block();
                self.cases[id as usize] = Some(b);
                b
            }
            None => exit,
        };
        if signed {
            targets.sort_by_key(|t| t.0);
        } else {
            targets.sort_by_key(|t| t.0 as u32);
        }
        self.dispatch(v, signed, &targets, default_block);
        self.breaks.push(exit);
        self.stmt(body);
        self.breaks.pop();
        self.enter(exit);
    }

    /// Jumps to the block of the case equal to `v` (sorted `cases`), else to `default`: a
    /// compare chain for a few cases, a balanced binary search otherwise.
    fn dispatch(&mut self, v: Value, signed: bool, cases: &[(i32, BlockId)], default: BlockId) {
        if cases.len() <= 4 {
            for &(val, target) in cases {
                let c = self.konst(val, Ty::I32);
                let eq = self.emit(Ty::I32, Op::Cmp(CmpOp::Eq, v, c));
                let next = self.new_block();
                self.terminate(Terminator::Branch {
                    cond: eq,
                    then_: target,
                    else_: next,
                });
                self.cur = next;
            }
            self.jump(default);
            return;
        }
        let mid = cases.len() / 2;
        let (pivot, target) = cases[mid];
        let c = self.konst(pivot, Ty::I32);
        let eq = self.emit(Ty::I32, Op::Cmp(CmpOp::Eq, v, c));
        let not_eq = self.new_block();
        self.terminate(Terminator::Branch {
            cond: eq,
            then_: target,
            else_: not_eq,
        });
        self.cur = not_eq;
        let lt = if signed { CmpOp::LtS } else { CmpOp::LtU };
        let less = self.emit(Ty::I32, Op::Cmp(lt, v, c));
        let (lo, hi) = (self.new_block(), self.new_block());
        self.terminate(Terminator::Branch {
            cond: less,
            then_: lo,
            else_: hi,
        });
        self.cur = lo;
        self.dispatch(v, signed, &cases[..mid], default);
        self.cur = hi;
        self.dispatch(v, signed, &cases[mid + 1..], default);
    }
}
