//! Lowering of expressions: values, lvalues, conditions (short-circuit branches), effects.

use super::{ir_ty, string_symbol, FnLower, Loc};
use crate::front::tast::*;
use crate::front::types::*;
use crate::ir::{BinOp, BlockId, CmpOp, MemTy, Op, Terminator, Ty, UnOp, Value};

/// Where an lvalue is: a variable's register or a memory address.
pub(super) enum LVal {
    Reg(Value),
    Mem(Value),
}

fn mem_ty(t: &Type) -> MemTy {
    match t {
        Type::Int(k) => k.mem_ty(),
        _ => MemTy::I32,
    }
}

/// The IR operation for an arithmetic node computing in a type of the given signedness.
fn bin_op(op: ArithOp, signed: bool) -> BinOp {
    match op {
        ArithOp::Add => BinOp::Add,
        ArithOp::Sub => BinOp::Sub,
        ArithOp::Mul => BinOp::Mul,
        ArithOp::Div if signed => BinOp::DivS,
        ArithOp::Div => BinOp::DivU,
        ArithOp::Rem if signed => BinOp::RemS,
        ArithOp::Rem => BinOp::RemU,
        ArithOp::Shl => BinOp::Shl,
        ArithOp::Shr if signed => BinOp::ShrS,
        ArithOp::Shr => BinOp::ShrU,
        ArithOp::And => BinOp::And,
        ArithOp::Or => BinOp::Or,
        ArithOp::Xor => BinOp::Xor,
    }
}

fn cmp_op(k: CmpKind, signed: bool) -> CmpOp {
    match (k, signed) {
        (CmpKind::Eq, _) => CmpOp::Eq,
        (CmpKind::Ne, _) => CmpOp::Ne,
        (CmpKind::Lt, true) => CmpOp::LtS,
        (CmpKind::Le, true) => CmpOp::LeS,
        (CmpKind::Gt, true) => CmpOp::GtS,
        (CmpKind::Ge, true) => CmpOp::GeS,
        (CmpKind::Lt, false) => CmpOp::LtU,
        (CmpKind::Le, false) => CmpOp::LeU,
        (CmpKind::Gt, false) => CmpOp::GtU,
        (CmpKind::Ge, false) => CmpOp::GeU,
    }
}

/// True if evaluating `e` has an observable effect (writes, calls, volatile reads).
pub(super) fn has_side_effects(e: &TExpr) -> bool {
    match &e.kind {
        TKind::Assign(..)
        | TKind::StructAssign(..)
        | TKind::CompoundAssign { .. }
        | TKind::IncDec { .. }
        | TKind::Call(..) => true,
        TKind::Load(x) => x.ty.cv.is_volatile || has_side_effects(x),
        TKind::Const(_) | TKind::Var(_) | TKind::Str(_) | TKind::FuncName(_) => false,
        TKind::Deref(x)
        | TKind::Member(x, _)
        | TKind::AddrOf(x)
        | TKind::Conv(x)
        | TKind::Neg(x)
        | TKind::BitNot(x)
        | TKind::LogNot(x) => has_side_effects(x),
        TKind::Arith(_, a, b)
        | TKind::Cmp(_, a, b)
        | TKind::PtrAdd(a, b, _)
        | TKind::PtrDiff(a, b, _)
        | TKind::LogAnd(a, b)
        | TKind::LogOr(a, b)
        | TKind::Comma(a, b) => has_side_effects(a) || has_side_effects(b),
        TKind::Cond(c, a, b) => has_side_effects(c) || has_side_effects(a) || has_side_effects(b),
    }
}

impl FnLower<'_> {
    /// True for operands cheap and safe to evaluate unconditionally (for `select`).
    fn is_cheap(&self, e: &TExpr) -> bool {
        match &e.kind {
            TKind::Const(_) => true,
            TKind::Load(x) => {
                matches!(&x.kind, TKind::Var(v) if matches!(self.vars.get(v), Some(Loc::Reg(_))))
            }
            _ => false,
        }
    }

    /// Converts a value from one C type to another, keeping the register invariant (narrow
    /// types extended).
    pub(super) fn conv_value(&mut self, v: Value, from: &Type, to: &Type) -> Value {
        match to {
            Type::Int(k) => {
                let src_is_ptr = !from.is_int();
                if k.size() == 4 {
                    if src_is_ptr || self.f.value_ty(v) == Ty::Ptr {
                        return self.emit(Ty::I32, Op::Copy(v));
                    }
                    return v;
                }
                if let Type::Int(j) = from {
                    let fits = (j.size() < k.size() && (!j.signed() || k.signed()))
                        || (j.size() == k.size() && j.signed() == k.signed());
                    if fits {
                        return v;
                    }
                }
                let op = match (k.size(), k.signed()) {
                    (1, true) => UnOp::Sext8,
                    (1, false) => UnOp::Zext8,
                    (2, true) => UnOp::Sext16,
                    _ => UnOp::Zext16,
                };
                self.emit(Ty::I32, Op::Un(op, v))
            }
            Type::Ptr(_) => {
                if self.f.value_ty(v) == Ty::Ptr {
                    v
                } else {
                    self.emit(Ty::Ptr, Op::Copy(v))
                }
            }
            _ => v,
        }
    }

    pub(super) fn lvalue(&mut self, e: &TExpr) -> LVal {
        if let TKind::Var(v) = &e.kind {
            if let Loc::Reg(r) = self.loc(*v) {
                return LVal::Reg(r);
            }
        }
        LVal::Mem(self.addr_of(e))
    }

    /// Address of an object-designating expression (or of a struct value).
    pub(super) fn addr_of(&mut self, e: &TExpr) -> Value {
        match &e.kind {
            TKind::Var(v) => match self.loc(*v) {
                Loc::Slot(s) => self.emit(Ty::Ptr, Op::SlotAddr(s)),
                Loc::Global(sym) => self.emit(Ty::Ptr, Op::SymAddr(sym, 0)),
                // Sema sends every address-taken variable to memory; a register here would be
                // an internal inconsistency. Give a null address rather than crash.
                Loc::Reg(_) => self.konst(0, Ty::Ptr),
            },
            TKind::Str(s) => self.emit(Ty::Ptr, Op::SymAddr(string_symbol(*s), 0)),
            TKind::Deref(p) => self.expr(p),
            TKind::Member(b, off) => {
                let base = self.addr_of(b);
                self.add_offset(base, *off as i32)
            }
            _ => self.expr(e),
        }
    }

    fn add_offset(&mut self, base: Value, off: i32) -> Value {
        if off == 0 {
            return base;
        }
        let c = self.konst(off, Ty::I32);
        self.emit(Ty::Ptr, Op::Bin(BinOp::Add, base, c))
    }

    pub(super) fn load(&mut self, lv: &LVal, ty: &QualType) -> Value {
        match lv {
            LVal::Reg(r) => *r,
            LVal::Mem(addr) => self.emit(
                ir_ty(&ty.ty),
                Op::Load {
                    ty: mem_ty(&ty.ty),
                    addr: *addr,
                    volatile: ty.cv.is_volatile,
                },
            ),
        }
    }

    /// Stores `v` (already of the lvalue's type) to an lvalue.
    pub(super) fn store(&mut self, lv: &LVal, ty: &QualType, v: Value) {
        match lv {
            LVal::Reg(r) => self.assign_reg(*r, v),
            LVal::Mem(addr) => self.store_mem(*addr, ty, v),
        }
    }

    pub(super) fn store_mem(&mut self, addr: Value, ty: &QualType, v: Value) {
        self.push(
            None,
            Op::Store {
                ty: mem_ty(&ty.ty),
                addr,
                value: v,
                volatile: ty.cv.is_volatile,
            },
        );
    }

    /// `r = v` for a variable register: the instruction that just computed a temporary `v`
    /// is made to write `r` directly instead of adding a copy.
    pub(super) fn assign_reg(&mut self, r: Value, v: Value) {
        if r == v {
            return;
        }
        let retarget = !self.var_regs.contains(&v)
            && !self.f.params.contains(&v)
            && self.f.value_ty(v) == self.f.value_ty(r)
            && matches!(self.f.block(self.cur).insts.last(), Some(i) if i.dst == Some(v));
        if retarget {
            let cur = self.cur;
            self.f
                .block_mut(cur)
                .insts
                .last_mut()
                .expect("instruction")
                .dst = Some(r);
        } else {
            self.push(Some(r), Op::Copy(v));
        }
    }

    /// Evaluates `e` for its effects only.
    pub(super) fn effect(&mut self, e: &TExpr) {
        match &e.kind {
            TKind::Conv(x) if e.ty.ty.is_void() => self.effect(x),
            TKind::Comma(a, b) => {
                self.effect(a);
                self.effect(b);
            }
            TKind::Cond(c, a, b) if has_side_effects(a) || has_side_effects(b) => {
                let (ta, tb, join) = (self.new_block(), self.new_block(), self.new_block());
                self.cond_branch(c, ta, tb);
                self.cur = ta;
                self.effect(a);
                self.enter(join);
                self.cur = tb;
                self.effect(b);
                self.enter(join);
            }
            TKind::LogAnd(..) | TKind::LogOr(..) if has_side_effects(e) => {
                let join = self.new_block();
                self.cond_branch(e, join, join);
                self.cur = join;
            }
            TKind::Assign(..)
            | TKind::StructAssign(..)
            | TKind::CompoundAssign { .. }
            | TKind::IncDec { .. }
            | TKind::Call(..) => {
                self.expr_value(e, false);
            }
            _ if has_side_effects(e) => {
                self.expr(e);
            }
            _ => {}
        }
    }

    /// Branches to `t` if `e` is true (non-zero), else to `f`; `&&`, `||`, `!` short-circuit.
    pub(super) fn cond_branch(&mut self, e: &TExpr, t: BlockId, f: BlockId) {
        match &e.kind {
            TKind::LogAnd(a, b) => {
                let mid = self.new_block();
                self.cond_branch(a, mid, f);
                self.cur = mid;
                self.cond_branch(b, t, f);
            }
            TKind::LogOr(a, b) => {
                let mid = self.new_block();
                self.cond_branch(a, t, mid);
                self.cur = mid;
                self.cond_branch(b, t, f);
            }
            TKind::LogNot(x) => self.cond_branch(x, f, t),
            TKind::Const(c) => self.jump(if *c != 0 { t } else { f }),
            TKind::Comma(a, b) => {
                self.effect(a);
                self.cond_branch(b, t, f);
            }
            _ => {
                let v = self.expr(e);
                self.terminate(Terminator::Branch {
                    cond: v,
                    then_: t,
                    else_: f,
                });
            }
        }
    }

    /// The value of an expression (the address for struct-typed ones).
    pub(super) fn expr(&mut self, e: &TExpr) -> Value {
        self.expr_value(e, true)
    }

    /// `want` is false when the value is discarded (post-increments then need no copy).
    fn expr_value(&mut self, e: &TExpr, want: bool) -> Value {
        let ty = ir_ty(&e.ty.ty);
        match &e.kind {
            TKind::Const(c) => self.konst(*c, ty),
            TKind::Var(_) | TKind::Str(_) | TKind::Deref(_) | TKind::Member(..) => {
                if e.ty.ty.is_scalar() {
                    let lv = self.lvalue(e);
                    self.load(&lv, &e.ty)
                } else {
                    self.addr_of(e)
                }
            }
            TKind::Load(x) => {
                let lv = self.lvalue(x);
                self.load(&lv, &x.ty)
            }
            TKind::AddrOf(x) => self.addr_of(x),
            TKind::Conv(x) => {
                if e.ty.ty.is_void() {
                    self.effect(x);
                    return self.konst(0, Ty::I32);
                }
                let v = self.expr(x);
                self.conv_value(v, &x.ty.ty, &e.ty.ty)
            }
            TKind::Neg(x) => {
                let v = self.expr(x);
                self.emit(ty, Op::Un(UnOp::Neg, v))
            }
            TKind::BitNot(x) => {
                let v = self.expr(x);
                self.emit(ty, Op::Un(UnOp::Not, v))
            }
            TKind::LogNot(x) => {
                let v = self.expr(x);
                let z = self.konst(0, self.f.value_ty(v));
                self.emit(Ty::I32, Op::Cmp(CmpOp::Eq, v, z))
            }
            TKind::Arith(op, a, b) => {
                let x = self.expr(a);
                let y = self.expr(b);
                let signed = e.ty.ty.is_signed();
                self.emit(ty, Op::Bin(bin_op(*op, signed), x, y))
            }
            TKind::Cmp(k, a, b) => {
                let x = self.expr(a);
                let y = self.expr(b);
                self.emit(Ty::I32, Op::Cmp(cmp_op(*k, a.ty.ty.is_signed()), x, y))
            }
            TKind::PtrAdd(p, i, size) => {
                let pv = self.expr(p);
                let iv = self.expr(i);
                self.ptr_offset(pv, iv, *size)
            }
            TKind::PtrDiff(a, b, size) => {
                let x = self.expr(a);
                let y = self.expr(b);
                let d = self.emit(Ty::I32, Op::Bin(BinOp::Sub, x, y));
                if *size <= 1 {
                    return d;
                }
                // The difference is an exact multiple of the size: a shift divides exactly.
                if size.is_power_of_two() {
                    let s = self.konst(size.trailing_zeros() as i32, Ty::I32);
                    self.emit(Ty::I32, Op::Bin(BinOp::ShrS, d, s))
                } else {
                    let s = self.konst(*size as i32, Ty::I32);
                    self.emit(Ty::I32, Op::Bin(BinOp::DivS, d, s))
                }
            }
            TKind::LogAnd(..) | TKind::LogOr(..) => {
                let r = self.f.new_value(Ty::I32);
                let (tb, fb, join) = (self.new_block(), self.new_block(), self.new_block());
                self.cond_branch(e, tb, fb);
                self.cur = tb;
                self.push(Some(r), Op::Const(1));
                self.enter(join);
                self.cur = fb;
                self.push(Some(r), Op::Const(0));
                self.enter(join);
                r
            }
            TKind::Cond(c, a, b) => self.conditional(e, c, a, b),
            TKind::Comma(a, b) => {
                self.effect(a);
                self.expr(b)
            }
            TKind::Assign(lv, rv) => {
                let v = self.expr(rv);
                let l = self.lvalue(lv);
                self.store(&l, &lv.ty, v);
                match l {
                    // The temporary may have been retargeted to the register.
                    LVal::Reg(r) => r,
                    LVal::Mem(_) => v,
                }
            }
            TKind::StructAssign(lv, rv) => {
                let src = self.expr(rv);
                let dst = self.addr_of(lv);
                let size = self.prog.types.size_of(&lv.ty.ty).unwrap_or(0);
                let align = self.prog.types.align_of(&lv.ty.ty);
                let vol = lv.ty.cv.is_volatile || rv.ty.cv.is_volatile;
                self.copy_bytes(dst, src, size, align, vol);
                dst
            }
            TKind::CompoundAssign { op, lv, rv, op_ty } => {
                let r = self.expr(rv);
                let l = self.lvalue(lv);
                let old = self.load(&l, &lv.ty);
                let new = match op {
                    CompoundOp::PtrAdd { elem_size, negate } => {
                        let idx = if *negate {
                            self.emit(Ty::I32, Op::Un(UnOp::Neg, r))
                        } else {
                            r
                        };
                        self.ptr_offset(old, idx, *elem_size)
                    }
                    CompoundOp::Arith(aop) => {
                        let x = self.conv_value(old, &lv.ty.ty, &op_ty.ty);
                        let res =
                            self.emit(Ty::I32, Op::Bin(bin_op(*aop, op_ty.ty.is_signed()), x, r));
                        self.conv_value(res, &op_ty.ty, &lv.ty.ty)
                    }
                };
                self.store(&l, &lv.ty, new);
                match l {
                    LVal::Reg(reg) => reg,
                    LVal::Mem(_) => new,
                }
            }
            TKind::IncDec { lv, delta, post } => {
                let l = self.lvalue(lv);
                let loaded = self.load(&l, &lv.ty);
                // A register variable is overwritten below: keep its old value if needed.
                let old = match l {
                    LVal::Reg(_) if *post && want => {
                        self.emit(self.f.value_ty(loaded), Op::Copy(loaded))
                    }
                    _ => loaded,
                };
                let new = if lv.ty.ty.is_ptr() {
                    let d = self.konst(*delta, Ty::I32);
                    self.emit(Ty::Ptr, Op::Bin(BinOp::Add, loaded, d))
                } else {
                    let d = self.konst(*delta, Ty::I32);
                    let sum = self.emit(Ty::I32, Op::Bin(BinOp::Add, loaded, d));
                    self.conv_value(sum, &Type::Int(IntKind::Int), &lv.ty.ty)
                };
                self.store(&l, &lv.ty, new);
                match (post, &l) {
                    (true, _) => old,
                    (false, LVal::Reg(reg)) => *reg,
                    (false, LVal::Mem(_)) => new,
                }
            }
            TKind::Call(fid, args) => {
                let mut argv: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
                let info = &self.prog.funcs[*fid as usize];
                let mut callee = info.name.clone();
                if let Type::Struct(_) = info.ty.ret.ty {
                    // A struct result goes to a temporary of the caller's frame, whose
                    // address is the hidden first argument and the call's value.
                    let ret_ty = info.ty.ret.ty.clone();
                    let size = self.prog.types.size_of(&ret_ty).unwrap_or(4).max(1);
                    let align = self.prog.types.stack_align_of(&ret_ty);
                    let slot = self.f.new_slot(size, align, "struct result");
                    let tmp = self.emit(Ty::Ptr, Op::SlotAddr(slot));
                    argv.insert(0, tmp);
                    self.push(None, Op::Call { callee, args: argv });
                    return tmp;
                }
                if callee == "fprintf" && !info.defined && !argv.is_empty() {
                    // The runtime has one output stream: `fprintf(stream, ...)` (stdout or
                    // stderr) is `printf(...)`, the stream evaluated for its side effects.
                    argv.remove(0);
                    callee = "printf".to_string();
                }
                if info.ty.ret.ty.is_void() {
                    self.push(None, Op::Call { callee, args: argv });
                    self.konst(0, Ty::I32)
                } else {
                    self.emit(ir_ty(&info.ty.ret.ty), Op::Call { callee, args: argv })
                }
            }
            TKind::FuncName(_) => self.konst(0, Ty::Ptr),
        }
    }

    /// `p + i * size` as a pointer.
    fn ptr_offset(&mut self, p: Value, i: Value, size: u32) -> Value {
        let scaled = match size {
            0 | 1 => i,
            s if s.is_power_of_two() => {
                let k = self.konst(s.trailing_zeros() as i32, Ty::I32);
                self.emit(Ty::I32, Op::Bin(BinOp::Shl, i, k))
            }
            s => {
                let k = self.konst(s as i32, Ty::I32);
                self.emit(Ty::I32, Op::Bin(BinOp::Mul, i, k))
            }
        };
        self.emit(Ty::Ptr, Op::Bin(BinOp::Add, p, scaled))
    }

    fn conditional(&mut self, e: &TExpr, c: &TExpr, a: &TExpr, b: &TExpr) -> Value {
        let ty = ir_ty(&e.ty.ty);
        if e.ty.ty.is_void() {
            self.effect(e);
            return self.konst(0, Ty::I32);
        }
        if self.is_cheap(a) && self.is_cheap(b) && !has_side_effects(c) {
            let cv = self.expr(c);
            let av = self.expr(a);
            let bv = self.expr(b);
            return self.emit(ty, Op::Select(cv, av, bv));
        }
        let r = self.f.new_value(ty);
        let (ta, tb, join) = (self.new_block(), self.new_block(), self.new_block());
        self.cond_branch(c, ta, tb);
        self.cur = ta;
        let av = self.expr(a);
        self.push(Some(r), Op::Copy(av));
        self.enter(join);
        self.cur = tb;
        let bv = self.expr(b);
        self.push(Some(r), Op::Copy(bv));
        self.enter(join);
        r
    }

    /// Copies `size` bytes in units the alignment allows (a loop beyond 16 units).
    pub(super) fn copy_bytes(
        &mut self,
        dst: Value,
        src: Value,
        size: u32,
        align: u32,
        volatile: bool,
    ) {
        let unit = match align.min(4) {
            4 if size.is_multiple_of(4) => MemTy::I32,
            2 | 4 if size.is_multiple_of(2) => MemTy::U16,
            _ => MemTy::U8,
        };
        let u = unit.size();
        let count = size / u;
        if count <= 16 {
            for k in 0..count {
                let s = self.add_offset(src, (k * u) as i32);
                let v = self.emit(
                    Ty::I32,
                    Op::Load {
                        ty: unit,
                        addr: s,
                        volatile,
                    },
                );
                let d = self.add_offset(dst, (k * u) as i32);
                self.push(
                    None,
                    Op::Store {
                        ty: unit,
                        addr: d,
                        value: v,
                        volatile,
                    },
                );
            }
            return;
        }
        self.byte_loop(dst, Some(src), size, unit, volatile);
    }

    /// Stores zero over `size` bytes at `dst`.
    pub(super) fn zero_bytes(&mut self, dst: Value, size: u32, align: u32) {
        let unit = match align.min(4) {
            4 if size.is_multiple_of(4) => MemTy::I32,
            2 | 4 if size.is_multiple_of(2) => MemTy::U16,
            _ => MemTy::U8,
        };
        let u = unit.size();
        let count = size / u;
        if count <= 16 {
            let z = self.konst(0, Ty::I32);
            for k in 0..count {
                let d = self.add_offset(dst, (k * u) as i32);
                self.push(
                    None,
                    Op::Store {
                        ty: unit,
                        addr: d,
                        value: z,
                        volatile: false,
                    },
                );
            }
            return;
        }
        self.byte_loop(dst, None, size, unit, false);
    }

    /// A loop over `size` bytes in units of `unit`: copies from `src`, or stores zero.
    fn byte_loop(
        &mut self,
        dst: Value,
        src: Option<Value>,
        size: u32,
        unit: MemTy,
        volatile: bool,
    ) {
        let i = self.f.new_value(Ty::I32);
        self.push(Some(i), Op::Const(0));
        let end = self.konst(size as i32, Ty::I32);
        let step = self.konst(unit.size() as i32, Ty::I32);
        let body = self.new_block();
        let exit = self.new_block();
        self.enter(body);
        let d = self.emit(Ty::Ptr, Op::Bin(BinOp::Add, dst, i));
        let v = match src {
            Some(src) => {
                let s = self.emit(Ty::Ptr, Op::Bin(BinOp::Add, src, i));
                self.emit(
                    Ty::I32,
                    Op::Load {
                        ty: unit,
                        addr: s,
                        volatile,
                    },
                )
            }
            None => self.konst(0, Ty::I32),
        };
        self.push(
            None,
            Op::Store {
                ty: unit,
                addr: d,
                value: v,
                volatile,
            },
        );
        self.push(Some(i), Op::Bin(BinOp::Add, i, step));
        let more = self.emit(Ty::I32, Op::Cmp(CmpOp::LtU, i, end));
        self.terminate(Terminator::Branch {
            cond: more,
            then_: body,
            else_: exit,
        });
        self.cur = exit;
    }
}
