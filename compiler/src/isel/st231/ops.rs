//! ST231 selection of the IR's arithmetic, compares, selects, constants, addresses and memory
//! accesses (isa.md §A3, §A5, §A7).
//!
//! * Any 32-bit constant is encodable as the second operand (RI form plus an extension
//!   syllable when it does not fit in 9 bits, isa.md §A3/§A5), so a constant second operand
//!   always becomes an `Imm::Int`; a constant first operand of a commutative operation or of
//!   a compare is swapped into second position; `imm - x` uses `sub %d = %x, #imm`.
//! * `x * 2^N` becomes `shl`; `(x << N) + y` (N = 1..4, also `x * 2^N + y`) becomes `shNadd`.
//! * Compares feeding a branch or a `slct` are re-emitted into a `$b` in the using block right
//!   before the use (isa.md §A5: `$b` written by compares, read by `br`/`slct`).
//! * Memory accesses fold `base + constant`, stack-slot addresses (`$r12, fN+off`) and
//!   global addresses (`$r0, @sym+off`, a long immediate) into the offset.

use super::{sp, zero, Sel, Src2};
use crate::ir::{BinOp, CmpOp, MemTy, Op, UnOp, Value};
use crate::isel::IselError;
use crate::mir::{Imm, Inst, Opc, Operand, SymPart, VReg};
use simulator::isa::st231::Opcode as O;

/// The ST231 compare for an IR comparison (the same opcode writes `$r` or `$b`).
pub(crate) fn cmp_opcode(op: CmpOp) -> O {
    match op {
        CmpOp::Eq => O::Cmpeq,
        CmpOp::Ne => O::Cmpne,
        CmpOp::LtS => O::Cmplt,
        CmpOp::LeS => O::Cmple,
        CmpOp::GtS => O::Cmpgt,
        CmpOp::GeS => O::Cmpge,
        CmpOp::LtU => O::Cmpltu,
        CmpOp::LeU => O::Cmpleu,
        CmpOp::GtU => O::Cmpgtu,
        CmpOp::GeU => O::Cmpgeu,
    }
}

/// `log2(c)` when `c` is a power of two (1, 2, 4, ..., 2^30).
fn log2_exact(c: i32) -> Option<u32> {
    (c > 0 && c & (c - 1) == 0).then(|| c.trailing_zeros())
}

impl<'a> Sel<'a> {
    /// Selects every non-call, non-phi, non-copy operation.
    pub(crate) fn select_op(&mut self, dst: Option<Value>, op: &Op) -> Result<(), IselError> {
        match op {
            Op::Const(c) => {
                let d = self.need_dst(dst)?;
                self.binary(O::Add, d, zero(), Src2::I(*c));
            }
            Op::Bin(bop, a, b) => {
                let d = self.need_dst(dst)?;
                self.select_bin(d, *bop, *a, *b)?;
            }
            Op::Un(uop, a) => {
                let d = self.need_dst(dst)?;
                self.select_un(d, *uop, *a);
            }
            Op::Cmp(cop, a, b) => {
                let d = self.need_dst(dst)?;
                self.compare(d, *cop, *a, *b);
            }
            Op::Select(c, a, b) => {
                let d = self.need_dst(dst)?;
                self.select_select(d, *c, *a, *b);
            }
            Op::SymAddr(name, off) => {
                let d = self.need_dst(dst)?;
                let imm = Imm::Sym {
                    name: name.clone(),
                    offset: *off,
                    part: SymPart::Full,
                };
                self.emit(Inst::new(
                    Opc::St231(O::Add),
                    vec![d.into()],
                    vec![zero()],
                    imm,
                ));
            }
            Op::SlotAddr(s) => {
                let d = self.need_dst(dst)?;
                let idx = self.slot_frame(*s)?;
                self.emit(Inst::new(
                    Opc::St231(O::Add),
                    vec![d.into()],
                    vec![sp()],
                    Imm::Frame { idx, offset: 0 },
                ));
            }
            Op::Load { ty, addr, .. } => {
                let d = self.need_dst(dst)?;
                let (base, imm) = self.address(*addr)?;
                self.emit(Inst::new(
                    Opc::St231(load_opcode(*ty)),
                    vec![d.into()],
                    vec![base],
                    imm,
                ));
            }
            Op::Store {
                ty, addr, value, ..
            } => {
                let (base, imm) = self.address(*addr)?;
                // Storing zero reads `$r0` instead of a register holding 0.
                let val = match self.const_of(*value) {
                    Some(0) => zero(),
                    _ => Operand::new(self.vreg(*value)),
                };
                self.emit(Inst::new(
                    Opc::St231(store_opcode(*ty)),
                    vec![],
                    vec![base, val],
                    imm,
                ));
            }
            Op::Copy(_) | Op::Phi(_) | Op::Call { .. } => {
                return Err(self.err("internal: operation routed to the wrong selector"))
            }
        }
        Ok(())
    }

    fn slot_frame(&self, s: crate::ir::SlotId) -> Result<crate::mir::FrameIdx, IselError> {
        self.slot_frames
            .get(s.index())
            .copied()
            .ok_or_else(|| self.err(format!("stack slot {s} does not exist")))
    }

    /// Base register and offset of a memory access at `addr`: stack slots become
    /// `$r12, fN+off`; `x + c` (and `x - c`) becomes `x, #c`.
    fn address(&mut self, addr: Value) -> Result<(Operand, Imm), IselError> {
        let (base, off) = self.split_offset(addr);
        match self.root_op(base) {
            Some(Op::SlotAddr(s)) => {
                let idx = self.slot_frame(*s)?;
                return Ok((sp(), Imm::Frame { idx, offset: off }));
            }
            // Absolute addressing: `$r0` plus the symbol as a long immediate (isa.md §A3:
            // any 32-bit offset with an extension syllable) saves the address register.
            Some(Op::SymAddr(name, o)) => {
                let imm = Imm::Sym {
                    name: name.clone(),
                    offset: o.wrapping_add(off),
                    part: SymPart::Full,
                };
                return Ok((zero(), imm));
            }
            _ => {}
        }
        Ok((Operand::new(self.vreg(base)), Imm::Int(off)))
    }

    /// `addr` as `base + constant offset` (the constant 0 when there is no foldable add).
    fn split_offset(&self, addr: Value) -> (Value, i32) {
        match self.root_op(addr) {
            Some(Op::Bin(BinOp::Add, x, y)) => {
                if let Some(c) = self.const_of(*y) {
                    return (*x, c);
                }
                if let Some(c) = self.const_of(*x) {
                    return (*y, c);
                }
            }
            Some(Op::Bin(BinOp::Sub, x, y)) => {
                if let Some(c) = self.const_of(*y) {
                    return (*x, c.wrapping_neg());
                }
            }
            _ => {}
        }
        (addr, 0)
    }

    fn select_bin(&mut self, d: VReg, op: BinOp, a: Value, b: Value) -> Result<(), IselError> {
        let (ca, cb) = (self.const_of(a), self.const_of(b));
        match op {
            BinOp::Add => self.select_add(d, a, b),
            BinOp::Sub => match (ca, cb) {
                (_, Some(c)) => {
                    let x = self.vreg(a);
                    self.binary(O::Add, d, x, Src2::I(c.wrapping_neg()));
                }
                (Some(c), None) => {
                    // sub %d = %b, #c computes c - b (isa.md §A3).
                    let y = self.vreg(b);
                    self.binary(O::Sub, d, y, Src2::I(c));
                }
                (None, None) => {
                    let (x, y) = (self.vreg(a), self.vreg(b));
                    self.binary(O::Sub, d, y, Src2::R(x));
                }
            },
            BinOp::Mul => self.select_mul(d, a, b),
            BinOp::And => self.commutative(d, O::And, a, b),
            BinOp::Or => self.commutative(d, O::Or, a, b),
            BinOp::Xor => self.commutative(d, O::Xor, a, b),
            BinOp::Shl => self.shift(d, O::Shl, a, b),
            BinOp::ShrS => self.shift(d, O::Shr, a, b),
            BinOp::ShrU => self.shift(d, O::Shru, a, b),
            BinOp::DivS | BinOp::DivU | BinOp::RemS | BinOp::RemU => {
                self.select_divrem(d, op, a, b)?
            }
        }
        Ok(())
    }

    /// `opc d = a, b` for a commutative operation: a constant goes second.
    fn commutative(&mut self, d: VReg, opc: O, a: Value, b: Value) {
        let (a, b) = if self.const_of(a).is_some() && self.const_of(b).is_none() {
            (b, a)
        } else {
            (a, b)
        };
        let x = self.vreg(a);
        let s2 = self.src2(b);
        self.binary(opc, d, x, s2);
    }

    /// `x << N` with N in 1..=4 (as a shift or a multiply by 2^N): the `shNadd` candidates.
    fn scaled(&self, v: Value) -> Option<(Value, u32)> {
        match self.root_op(v)? {
            Op::Bin(BinOp::Shl, x, n) => {
                let n = self.const_of(*n)?;
                (1..=4).contains(&n).then_some((*x, n as u32))
            }
            Op::Bin(BinOp::Mul, x, y) => {
                let (x, c) = match self.const_of(*y) {
                    Some(c) => (*x, c),
                    None => (*y, self.const_of(*x)?),
                };
                let n = log2_exact(c)?;
                (1..=4).contains(&n).then_some((x, n))
            }
            _ => None,
        }
    }

    fn select_add(&mut self, d: VReg, a: Value, b: Value) {
        const SHNADD: [O; 4] = [O::Sh1add, O::Sh2add, O::Sh3add, O::Sh4add];
        for (s, other) in [(a, b), (b, a)] {
            if self.const_of(s).is_some() {
                continue;
            }
            if let Some((x, n)) = self.scaled(s) {
                if self.const_of(x).is_some() {
                    continue;
                }
                let xr = self.vreg(x);
                let s2 = self.src2(other);
                self.binary(SHNADD[n as usize - 1], d, xr, s2);
                return;
            }
        }
        self.commutative(d, O::Add, a, b);
    }

    fn select_mul(&mut self, d: VReg, a: Value, b: Value) {
        let (a, b) = if self.const_of(a).is_some() && self.const_of(b).is_none() {
            (b, a)
        } else {
            (a, b)
        };
        if let Some(n) = self.const_of(b).and_then(log2_exact) {
            let x = self.vreg(a);
            self.binary(O::Shl, d, x, Src2::I(n as i32));
            return;
        }
        let x = self.vreg(a);
        let s2 = self.src2(b);
        self.binary(O::Mul32, d, x, s2);
    }

    /// Shifts. ASSUMPTION: a variable amount is below 32 (larger amounts are undefined in C;
    /// the IR takes the amount modulo 32, the ST231 the low 8 bits, isa.md §A7), so no mask
    /// is emitted; a constant amount is reduced modulo 32 as the IR defines.
    fn shift(&mut self, d: VReg, opc: O, a: Value, b: Value) {
        let x = self.vreg(a);
        let s2 = match self.src2(b) {
            Src2::I(c) => Src2::I(c & 31),
            r => r,
        };
        self.binary(opc, d, x, s2);
    }

    fn select_un(&mut self, d: VReg, op: UnOp, a: Value) {
        let x = self.vreg(a);
        let mono = |s: &mut Self, opc: O| {
            s.emit(Inst::new(
                Opc::St231(opc),
                vec![d.into()],
                vec![x.into()],
                Imm::None,
            ))
        };
        match op {
            // 0 - x: `sub %d = %x, #0` (isa.md §A3 operand order).
            UnOp::Neg => self.binary(O::Sub, d, x, Src2::I(0)),
            UnOp::Not => self.binary(O::Xor, d, x, Src2::I(-1)),
            UnOp::Sext8 => mono(self, O::Sxtb),
            UnOp::Zext8 => self.binary(O::And, d, x, Src2::I(255)),
            UnOp::Sext16 => mono(self, O::Sxth),
            UnOp::Zext16 => mono(self, O::Zxth),
        }
    }

    /// `cmpXX d = a, b|imm` into `d` (class R gives 0/1, class B a branch register).
    pub(crate) fn compare(&mut self, d: VReg, op: CmpOp, a: Value, b: Value) {
        let (op, a, b) = if self.const_of(a).is_some() && self.const_of(b).is_none() {
            (op.swapped(), b, a)
        } else {
            (op, a, b)
        };
        let x = self.vreg(a);
        let s2 = self.src2(b);
        self.binary(cmp_opcode(op), d, x, s2);
    }

    /// A fresh `$b` holding `cond != 0`, computed in the current block: an IR compare of the
    /// same block is re-emitted into the `$b`, anything else is tested with `cmpne #0`.
    pub(crate) fn condition(&mut self, cond: Value) -> VReg {
        let b = self.new_b();
        let root = self.root(cond);
        if let Some(Op::Cmp(op, x, y)) = self.def_op(root) {
            if self.def_block(root) == Some(self.ir_block) {
                self.compare(b, *op, *x, *y);
                return b;
            }
        }
        let c = self.vreg(cond);
        self.binary(O::Cmpne, b, c, Src2::I(0));
        b
    }

    /// `slct %d = $b, a, b|imm` (isa.md §A5), the compare right before it.
    fn select_select(&mut self, d: VReg, c: Value, a: Value, b: Value) {
        if let Some(k) = self.const_of(c) {
            let v = self.vreg(if k != 0 { a } else { b });
            self.emit(Inst::copy(d, v));
            return;
        }
        let (opc, s1, s2) = if self.const_of(a).is_some() && self.const_of(b).is_none() {
            (O::Slctf, b, a)
        } else {
            (O::Slct, a, b)
        };
        let x = self.vreg(s1);
        let y = self.src2(s2);
        let cond = self.condition(c);
        let (uses, imm) = match y {
            Src2::R(r) => (vec![cond.into(), x.into(), r.into()], Imm::None),
            Src2::I(k) => (vec![cond.into(), x.into()], Imm::Int(k)),
        };
        self.emit(Inst::new(Opc::St231(opc), vec![d.into()], uses, imm));
    }
}

/// The load for an IR access type (isa.md §A3 MEM opcodes).
pub(crate) fn load_opcode(ty: MemTy) -> O {
    match ty {
        MemTy::I8 => O::Ldb,
        MemTy::U8 => O::Ldbu,
        MemTy::I16 => O::Ldh,
        MemTy::U16 => O::Ldhu,
        MemTy::I32 => O::Ldw,
    }
}

/// The store for an IR access type.
pub(crate) fn store_opcode(ty: MemTy) -> O {
    match ty {
        MemTy::I8 | MemTy::U8 => O::Stb,
        MemTy::I16 | MemTy::U16 => O::Sth,
        MemTy::I32 => O::Stw,
    }
}
