//! Arithmetic, comparisons and selects (isa.md §B4 "40-bit data", "Predication", §B6).
//!
//! * `i32` arithmetic uses the word-typed DU operations (`ADD`, `SUB`, `SHL`, `SHRW`, whose
//!   results are sign-extended from bit 31) and the 40-bit logic operations (canonical in,
//!   canonical out); `.i` forms when the constant fits `u8` (`u5` shift amounts, taken
//!   modulo 32 like the IR). A register shift amount is masked with `AND.i 31` (ASSUMPTION,
//!   simulator semantics: the machine uses the low 8 bits; the IR uses the low 5). `SHRUW` by a register is followed by `EXTW`
//!   (a zero shift leaves a zero-extended, non-canonical value).
//! * multiplication: one 16×16 `MP..LL` when both operands are known to be 16-bit (sign- or
//!   zero-extended loads and conversions, `__st_lo/__st_hi`, small constants); otherwise the
//!   32×32 sequence of isa.md §B4 `MPSUHL t; MAUSLH t2,t,a,b; SHLU t3,t2,16; MAUULL d,t3,a,b`
//!   plus `EXTW` (the accumulation is 40-bit);
//! * pointer `±` integer in the AU (`ADDxA`/`SUBxA`, the index converted with `COPYA`; a
//!   `shl x, 1|2` index uses the scaled `ADDHA`/`ADDWA` on `x`);
//! * comparisons write guards: `..W` (signed), `..UW` (unsigned), `..A` (pointers, AU;
//!   ASSUMPTION isa.md: unsigned); a compare used as data goes through `BOOL`;
//! * `select c, a, b` (no select instruction, isa.md §B4): the condition into `g`, the opposite
//!   condition into `g'`, `g? MOVE a'`, `g'? MOVE b'` (`MAKE` for constants), then
//!   `psi [g: a'], [g': b']`.

use super::{class_of, Selector, Site};
use crate::ir::{BinOp, CmpOp, MemTy, Op, Ty, UnOp, Value};
use crate::isel::IselError;
use crate::mir::{Imm, Inst, Opc, Operand, RegClass, VReg};
use simulator::isa::st120::{
    AuOp, BinOp as MB, CmpCond, CmpKind, MulFamily, MulVariant, Opcode as O, UnOp as MU,
};

/// Which 16-bit multiply operand form a value fits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Half {
    /// Fits a signed 16-bit half.
    Signed,
    /// Fits an unsigned 16-bit half only.
    Unsigned,
}

/// The ST120 condition and whether the comparison is unsigned.
pub(crate) fn cond_of(c: CmpOp) -> (CmpCond, bool) {
    match c {
        CmpOp::Eq => (CmpCond::Eq, false),
        CmpOp::Ne => (CmpCond::Ne, false),
        CmpOp::LtS => (CmpCond::Lt, false),
        CmpOp::LeS => (CmpCond::Le, false),
        CmpOp::GtS => (CmpCond::Gt, false),
        CmpOp::GeS => (CmpCond::Ge, false),
        CmpOp::LtU => (CmpCond::Lt, true),
        CmpOp::LeU => (CmpCond::Le, true),
        CmpOp::GtU => (CmpCond::Gt, true),
        CmpOp::GeU => (CmpCond::Ge, true),
    }
}

/// The 16×16 multiply variant for operand halves `a`, `b` (low halves), and whether its
/// result needs `EXTW` to be canonical (an unsigned×unsigned product may reach 2^32).
pub(crate) fn mp_variant(a: Half, b: Half) -> (MulVariant, bool) {
    let (au, bu) = (a == Half::Unsigned, b == Half::Unsigned);
    (MulVariant::new(au, bu, false, false), au && bu)
}

impl Selector<'_> {
    /// Compares `a cc b` (or its negation) into a new guard at `at`.
    pub(crate) fn compare(
        &mut self,
        at: Site,
        cc: CmpOp,
        a: Value,
        b: Value,
        negate: bool,
    ) -> Result<VReg, IselError> {
        let cc = if negate { cc.inverted() } else { cc };
        let ptrs = self.ty(a) == Ty::Ptr || self.ty(b) == Ty::Ptr;
        let (cond, unsigned) = cond_of(cc);
        // Pointers compare in the AU (unsigned); a signed order on pointers goes to the DU.
        let (kind, class) = if ptrs && (unsigned || matches!(cc, CmpOp::Eq | CmpOp::Ne)) {
            (CmpKind::A, RegClass::P)
        } else if unsigned {
            (CmpKind::Uw, RegClass::R)
        } else {
            (CmpKind::W, RegClass::R)
        };
        let u8c = |s: &Self, v: Value| s.const_of(v).filter(|k| (0..=255).contains(k));
        if let Some(k) = u8c(self, b) {
            let ar = self.get(a, class)?;
            return Ok(self.emit_def(at, O::CmpI(kind, cond), RegClass::G, &[ar], Imm::Int(k)));
        }
        if let Some(k) = u8c(self, a) {
            let (sc, _) = cond_of(cc.swapped());
            let br = self.get(b, class)?;
            return Ok(self.emit_def(at, O::CmpI(kind, sc), RegClass::G, &[br], Imm::Int(k)));
        }
        let ar = self.get(a, class)?;
        let br = self.get(b, class)?;
        Ok(self.emit_def(at, O::Cmp(kind, cond), RegClass::G, &[ar, br], Imm::None))
    }

    /// A guard that holds `v != 0` (or `v == 0` when `negate`), computed at the current point.
    pub(crate) fn cond_guard(&mut self, v: Value, negate: bool) -> Result<VReg, IselError> {
        let at = self.here();
        let root = self.resolve(v);
        if let Some(Op::Cmp(cc, a, b)) = self.def_op(root) {
            let (cc, a, b) = (*cc, *a, *b);
            return self.compare(at, cc, a, b, negate);
        }
        if let Some(k) = self.const_of(root) {
            // A constant condition: SETG/CLRG.
            let o = if (k != 0) != negate { O::SetG } else { O::ClrG };
            return Ok(self.emit_def(at, o, RegClass::G, &[], Imm::None));
        }
        let cond = if negate { CmpCond::Eq } else { CmpCond::Ne };
        let (kind, class) = match self.ty(root) {
            Ty::Ptr => (CmpKind::A, RegClass::P),
            Ty::I32 => (CmpKind::W, RegClass::R),
        };
        let r = self.get(root, class)?;
        Ok(self.emit_def(at, O::CmpI(kind, cond), RegClass::G, &[r], Imm::Int(0)))
    }

    pub(crate) fn select_bin(
        &mut self,
        dst: Option<Value>,
        op: BinOp,
        a: Value,
        b: Value,
    ) -> Result<(), IselError> {
        let Some(d) = dst else {
            return Ok(());
        };
        let (ta, tb) = (self.ty(a), self.ty(b));
        if self.ty(d) == Ty::Ptr
            && (op == BinOp::Add && (ta == Ty::Ptr) != (tb == Ty::Ptr)
                || op == BinOp::Sub && ta == Ty::Ptr && tb == Ty::I32)
        {
            let (base, idx) = if ta == Ty::Ptr { (a, b) } else { (b, a) };
            let r = self.pointer_offset(base, idx, op == BinOp::Sub)?;
            self.define_here(d, RegClass::P, r);
            return Ok(());
        }
        if op == BinOp::Sub && ta == Ty::Ptr && tb == Ty::Ptr {
            // Pointer difference: in the AU, then to the DU.
            let (ap, bp) = (self.get(a, RegClass::P)?, self.get(b, RegClass::P)?);
            let t = self.emit_here(O::Au(AuOp::SubB), RegClass::P, &[ap, bp], Imm::None);
            self.stats.conversions += 1;
            let r = self.emit_here(O::CopyD, RegClass::R, &[t], Imm::None);
            self.define_here(d, RegClass::R, r);
            return Ok(());
        }
        let r = match op {
            BinOp::Mul => self.mul(a, b)?,
            BinOp::DivS | BinOp::DivU | BinOp::RemS | BinOp::RemU => self.divide(op, a, b)?,
            _ => self.alu(op, a, b)?,
        };
        self.define_here(d, RegClass::R, r);
        Ok(())
    }

    /// `base ± idx` in the AU; a `shl x, 1|2` index uses the scaled form on `x`.
    fn pointer_offset(&mut self, base: Value, idx: Value, sub: bool) -> Result<VReg, IselError> {
        let bp = self.get(base, RegClass::P)?;
        if let Some(k) = self.const_of(idx) {
            let k = if sub { k.wrapping_neg() } else { k };
            let at = self.here();
            return Ok(self.au_add_imm(at, bp, k));
        }
        let (x, scale) = match self.def_op(self.resolve(idx)) {
            Some(Op::Bin(BinOp::Shl, x, s)) => match self.const_of(*s) {
                Some(1) => (*x, 2),
                Some(2) => (*x, 4),
                _ => (idx, 1),
            },
            _ => (idx, 1),
        };
        let o = match (scale, sub) {
            (4, false) => AuOp::AddW,
            (2, false) => AuOp::AddH,
            (_, false) => AuOp::AddB,
            (4, true) => AuOp::SubW,
            (2, true) => AuOp::SubH,
            (_, true) => AuOp::SubB,
        };
        let xp = self.get(x, RegClass::P)?;
        Ok(self.emit_here(O::Au(o), RegClass::P, &[bp, xp], Imm::None))
    }

    /// Add, subtract, logic and shifts in the DU.
    fn alu(&mut self, op: BinOp, a: Value, b: Value) -> Result<VReg, IselError> {
        let (a, b) = match (self.const_of(a), self.const_of(b)) {
            (Some(_), None) if op.is_commutative() => (b, a),
            _ => (a, b),
        };
        if let Some(k) = self.const_of(b) {
            if let Some(r) = self.alu_imm(op, a, k)? {
                return Ok(r);
            }
        }
        let ar = self.get(a, RegClass::R)?;
        let br = self.get(b, RegClass::R)?;
        let mop = match op {
            BinOp::Add => MB::Add,
            BinOp::Sub => MB::Sub,
            BinOp::And => MB::And,
            BinOp::Or => MB::Or,
            BinOp::Xor => MB::Xor,
            BinOp::Shl | BinOp::ShrS | BinOp::ShrU => {
                let amount = self.emit_here(O::BinI(MB::And), RegClass::R, &[br], Imm::Int(31));
                let (o, fix) = match op {
                    BinOp::Shl => (MB::Shl, false),
                    BinOp::ShrS => (MB::Shrw, false),
                    _ => (MB::Shruw, true),
                };
                let r = self.emit_here(O::Bin(o), RegClass::R, &[ar, amount], Imm::None);
                return Ok(if fix { self.extw(r) } else { r });
            }
            _ => return Err(self.error(format!("no ALU operation for {}", op.name()))),
        };
        Ok(self.emit_here(O::Bin(mop), RegClass::R, &[ar, br], Imm::None))
    }

    /// The immediate form of `a op k`, if there is one.
    fn alu_imm(&mut self, op: BinOp, a: Value, k: i32) -> Result<Option<VReg>, IselError> {
        let k64 = i64::from(k);
        let (o, imm) = match op {
            BinOp::Add | BinOp::Sub => {
                let k = if op == BinOp::Sub { -k64 } else { k64 };
                if (0..=255).contains(&k) {
                    (MB::Add, k)
                } else if (-255..0).contains(&k) {
                    (MB::Sub, -k)
                } else {
                    return Ok(None);
                }
            }
            BinOp::And | BinOp::Or | BinOp::Xor if (0..=255).contains(&k64) => (
                match op {
                    BinOp::And => MB::And,
                    BinOp::Or => MB::Or,
                    _ => MB::Xor,
                },
                k64,
            ),
            BinOp::Shl => (MB::Shl, k64 & 31),
            BinOp::ShrS => (MB::Shrw, k64 & 31),
            // A zero shift must stay canonical: SHRW by 0 is the identity on a C int.
            BinOp::ShrU if k & 31 == 0 => (MB::Shrw, 0),
            BinOp::ShrU => (MB::Shruw, k64 & 31),
            _ => return Ok(None),
        };
        let ar = self.get(a, RegClass::R)?;
        Ok(Some(self.emit_here(
            O::BinI(o),
            RegClass::R,
            &[ar],
            Imm::Int(imm as i32),
        )))
    }

    /// `EXTW r`: sign-extend bit 31 (restores the canonical form).
    pub(crate) fn extw(&mut self, r: VReg) -> VReg {
        self.emit_here(O::Un(MU::Extw), RegClass::R, &[r], Imm::None)
    }

    /// What kind of 16-bit half `v` is known to fit, if any.
    pub(crate) fn half_of(&self, v: Value) -> Option<Half> {
        let fits = |k: i64| {
            if (-32768..=32767).contains(&k) {
                Some(Half::Signed)
            } else if (0..=65535).contains(&k) {
                Some(Half::Unsigned)
            } else {
                None
            }
        };
        let v = self.resolve(v);
        match self.def_op(v)? {
            Op::Const(k) => fits(i64::from(*k)),
            Op::Load { ty, .. } => match ty {
                MemTy::I8 | MemTy::U8 | MemTy::I16 => Some(Half::Signed),
                MemTy::U16 => Some(Half::Unsigned),
                MemTy::I32 => None,
            },
            Op::Un(UnOp::Sext8 | UnOp::Zext8 | UnOp::Sext16, _) => Some(Half::Signed),
            Op::Un(UnOp::Zext16, _) => Some(Half::Unsigned),
            Op::Bin(BinOp::And, x, y) => {
                let k = self.const_of(*y).or_else(|| self.const_of(*x))?;
                (0..=65535).contains(&k).then(|| fits(i64::from(k)))?
            }
            Op::Bin(BinOp::ShrS, _, s) => (self.const_of(*s)? & 31 >= 16).then_some(Half::Signed),
            Op::Bin(BinOp::ShrU, _, s) => {
                let n = self.const_of(*s)? & 31;
                if n >= 17 {
                    Some(Half::Signed)
                } else if n == 16 {
                    Some(Half::Unsigned)
                } else {
                    None
                }
            }
            Op::Call { callee, args } => super::intrinsics::result_half(self, callee, args.len()),
            _ => None,
        }
    }

    /// `a * b` modulo 2^32.
    fn mul(&mut self, a: Value, b: Value) -> Result<VReg, IselError> {
        for (x, y) in [(a, b), (b, a)] {
            if let Some(k) = self.const_of(y) {
                if k > 0 && (k as u32).is_power_of_two() {
                    let s = k.trailing_zeros() as i32;
                    let xr = self.get(x, RegClass::R)?;
                    return Ok(self.emit_here(O::BinI(MB::Shl), RegClass::R, &[xr], Imm::Int(s)));
                }
            }
        }
        let ar = self.get(a, RegClass::R)?;
        let br = self.get(b, RegClass::R)?;
        if let (Some(ha), Some(hb)) = (self.half_of(a), self.half_of(b)) {
            let (v, fix) = mp_variant(ha, hb);
            let p = self.emit_here(O::Mul(MulFamily::Mp, v), RegClass::R, &[ar, br], Imm::None);
            return Ok(if fix { self.extw(p) } else { p });
        }
        Ok(self.mul32(ar, br))
    }

    /// The 32×32 multiply of isa.md §B4, plus `EXTW`.
    pub(crate) fn mul32(&mut self, a: VReg, b: VReg) -> VReg {
        let mpsuhl = MulVariant::new(false, true, true, false);
        let mauslh = MulVariant::new(true, false, false, true);
        let mauull = MulVariant::new(true, true, false, false);
        let t = self.emit_here(
            O::Mul(MulFamily::Mp, mpsuhl),
            RegClass::R,
            &[a, b],
            Imm::None,
        );
        let t2 = self.emit_here(
            O::Mul(MulFamily::Ma, mauslh),
            RegClass::R,
            &[t, a, b],
            Imm::None,
        );
        let t3 = self.emit_here(O::BinI(MB::Shlu), RegClass::R, &[t2], Imm::Int(16));
        let d = self.emit_here(
            O::Mul(MulFamily::Ma, mauull),
            RegClass::R,
            &[t3, a, b],
            Imm::None,
        );
        self.extw(d)
    }

    /// Division and remainder: by a power of two inline (unsigned: shift or mask; signed:
    /// biased shift), else a runtime call.
    fn divide(&mut self, op: BinOp, a: Value, b: Value) -> Result<VReg, IselError> {
        if let Some(k) = self.const_of(b) {
            if k > 1 && (k as u32).is_power_of_two() && matches!(op, BinOp::DivS | BinOp::RemS) {
                let ar = self.get(a, RegClass::R)?;
                return Ok(self.signed_pow2(op, ar, k.trailing_zeros() as i32));
            }
            let ku = k as u32;
            if ku.is_power_of_two() && matches!(op, BinOp::DivU | BinOp::RemU) {
                let ar = self.get(a, RegClass::R)?;
                if op == BinOp::DivU {
                    let s = ku.trailing_zeros() as i32;
                    return Ok(if s == 0 {
                        self.emit_here(O::BinI(MB::Shrw), RegClass::R, &[ar], Imm::Int(0))
                    } else {
                        self.emit_here(O::BinI(MB::Shruw), RegClass::R, &[ar], Imm::Int(s))
                    });
                }
                let mask = ku.wrapping_sub(1) as i32;
                if (0..=255).contains(&mask) {
                    return Ok(self.emit_here(
                        O::BinI(MB::And),
                        RegClass::R,
                        &[ar],
                        Imm::Int(mask),
                    ));
                }
                let at = self.here();
                let m = self.const_into(at, RegClass::R, mask);
                return Ok(self.emit_here(O::Bin(MB::And), RegClass::R, &[ar, m], Imm::None));
            }
        }
        let name = match op {
            BinOp::DivS => crate::isel::RUNTIME_DIVS,
            BinOp::DivU => crate::isel::RUNTIME_DIVU,
            BinOp::RemS => crate::isel::RUNTIME_MODS,
            _ => crate::isel::RUNTIME_MODU,
        };
        let ar = self.get(a, RegClass::R)?;
        let br = self.get(b, RegClass::R)?;
        Ok(super::calls::call_runtime(self, name, &[ar, br]))
    }

    /// `x / 2^s` or `x % 2^s` for signed `x` and `1 <= s <= 30`, rounding toward zero as C
    /// does: a negative dividend is biased by `2^s - 1` before the arithmetic shift
    /// (`bias = (x >> 31) >>u (32 - s)`); the remainder is `x - (q << s)`. Every step is a
    /// 32-bit-typed operation, so results stay sign-extended from bit 31.
    fn signed_pow2(&mut self, op: BinOp, x: VReg, s: i32) -> VReg {
        let sign = self.emit_here(O::BinI(MB::Shrw), RegClass::R, &[x], Imm::Int(31));
        let bias = self.emit_here(O::BinI(MB::Shruw), RegClass::R, &[sign], Imm::Int(32 - s));
        let biased = self.emit_here(O::Bin(MB::Add), RegClass::R, &[x, bias], Imm::None);
        let q = self.emit_here(O::BinI(MB::Shrw), RegClass::R, &[biased], Imm::Int(s));
        if op == BinOp::DivS {
            return q;
        }
        let back = self.emit_here(O::BinI(MB::Shl), RegClass::R, &[q], Imm::Int(s));
        self.emit_here(O::Bin(MB::Sub), RegClass::R, &[x, back], Imm::None)
    }

    pub(crate) fn select_un(
        &mut self,
        dst: Option<Value>,
        u: UnOp,
        a: Value,
    ) -> Result<(), IselError> {
        let Some(d) = dst else {
            return Ok(());
        };
        let ar = self.get(a, RegClass::R)?;
        let r = match u {
            UnOp::Neg => self.emit_here(O::Un(MU::Neg), RegClass::R, &[ar], Imm::None),
            // No NOT: NOR a, a (40-bit, canonical in and out).
            UnOp::Not => self.emit_here(O::Bin(MB::Nor), RegClass::R, &[ar, ar], Imm::None),
            UnOp::Sext8 => self.emit_here(O::Un(MU::Extb), RegClass::R, &[ar], Imm::None),
            UnOp::Zext8 => self.emit_here(O::Un(MU::Extub), RegClass::R, &[ar], Imm::None),
            UnOp::Sext16 => self.emit_here(O::Un(MU::Exth), RegClass::R, &[ar], Imm::None),
            UnOp::Zext16 => self.emit_here(O::Un(MU::Extuh), RegClass::R, &[ar], Imm::None),
        };
        self.define_here(d, RegClass::R, r);
        Ok(())
    }

    /// `g? MOVE v` (`MAKE` for a constant) in class `c`: a guarded definition for a psi.
    pub(crate) fn guarded_copy(
        &mut self,
        v: Value,
        c: RegClass,
        g: VReg,
    ) -> Result<VReg, IselError> {
        let at = Site {
            guard: Some(g),
            ..self.here()
        };
        if let Some(k) = self.const_of(v) {
            return Ok(self.const_into(at, c, k));
        }
        let src = self.get(v, c)?;
        let mv = match c {
            RegClass::P => O::MoveA,
            _ => O::Un(MU::Move),
        };
        Ok(self.emit_def(at, mv, c, &[src], Imm::None))
    }

    /// `d = psi [g1: a], [g2: b]` at the current point.
    pub(crate) fn psi(&mut self, c: RegClass, pairs: &[(VReg, VReg)]) -> VReg {
        let d = self.mf.new_vreg(c);
        let uses = pairs
            .iter()
            .flat_map(|&(g, v)| [Operand::new(g), Operand::new(v)])
            .collect();
        let at = self.here();
        self.put(
            at,
            Inst::new(Opc::Psi, vec![Operand::new(d)], uses, Imm::None),
        );
        self.stats.psis += 1;
        d
    }

    pub(crate) fn select_select(
        &mut self,
        dst: Option<Value>,
        cond: Value,
        a: Value,
        b: Value,
    ) -> Result<(), IselError> {
        let Some(d) = dst else {
            return Ok(());
        };
        let c = class_of(self.ty(d));
        let g = self.cond_guard(cond, false)?;
        let g2 = self.cond_guard(cond, true)?;
        let av = self.guarded_copy(a, c, g)?;
        let bv = self.guarded_copy(b, c, g2)?;
        let r = self.psi(c, &[(g, av), (g2, bv)]);
        self.define_here(d, c, r);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simulator::isa::st120::semantics::{bin, mul, un};
    use simulator::isa::st120::{sext32, wrap40};

    const EDGES: [i32; 16] = [
        0,
        1,
        -1,
        2,
        -2,
        255,
        256,
        32767,
        -32768,
        65535,
        65536,
        0x1234_5678,
        -0x1234_5678,
        i32::MAX,
        i32::MIN,
        i32::MIN + 1,
    ];

    #[test]
    fn logic_of_canonical_values_is_canonical() {
        for &a in &EDGES {
            for &b in &EDGES {
                let (x, y) = (i64::from(a), i64::from(b));
                for (op, want) in [
                    (MB::And, a & b),
                    (MB::Or, a | b),
                    (MB::Xor, a ^ b),
                    (MB::Nor, !(a | b)),
                ] {
                    assert_eq!(bin(op, x, y), i64::from(want), "{op:?} {a} {b}");
                }
                assert_eq!(bin(MB::Add, x, y), i64::from(a.wrapping_add(b)));
                assert_eq!(bin(MB::Sub, x, y), i64::from(a.wrapping_sub(b)));
            }
        }
    }

    #[test]
    fn shifts_match_the_ir_after_masking() {
        for &a in &EDGES {
            for n in [0i32, 1, 5, 15, 16, 31, 32, 33, 63, 255, 256, -1] {
                let amount = bin(MB::And, i64::from(n), 31);
                let ir = |op: crate::ir::BinOp| op.eval(a, n).unwrap();
                let x = i64::from(a);
                assert_eq!(bin(MB::Shl, x, amount), i64::from(ir(BinOp::Shl)));
                assert_eq!(bin(MB::Shrw, x, amount), i64::from(ir(BinOp::ShrS)));
                let u = un(MU::Extw, bin(MB::Shruw, x, amount));
                assert_eq!(u, i64::from(ir(BinOp::ShrU)), "{a} >>> {n}");
                // The immediate forms.
                let k = i64::from(n & 31);
                let shru = if k == 0 {
                    bin(MB::Shrw, x, 0)
                } else {
                    bin(MB::Shruw, x, k)
                };
                assert_eq!(shru, i64::from(ir(BinOp::ShrU)));
            }
        }
    }

    #[test]
    fn mul32_sequence_is_exact_modulo_2_32() {
        let mpsuhl = MulVariant::new(false, true, true, false);
        let mauslh = MulVariant::new(true, false, false, true);
        let mauull = MulVariant::new(true, true, false, false);
        for &a in &EDGES {
            for &b in &EDGES {
                let (x, y) = (i64::from(a), i64::from(b));
                let t = mul(MulFamily::Mp, mpsuhl, 0, x, y);
                let t2 = mul(MulFamily::Ma, mauslh, t, x, y);
                let t3 = bin(MB::Shlu, t2, 16);
                let d = un(MU::Extw, mul(MulFamily::Ma, mauull, t3, x, y));
                assert_eq!(d, i64::from(a.wrapping_mul(b)), "{a} * {b}");
            }
        }
    }

    #[test]
    fn mp16_variants_are_exact_on_16_bit_operands() {
        let s = [0i32, 1, -1, 32767, -32768, 12345, -255];
        let u = [0i32, 1, 65535, 32768, 40000];
        let cases: [(&[i32], Half, &[i32], Half); 4] = [
            (&s, Half::Signed, &s, Half::Signed),
            (&s, Half::Signed, &u, Half::Unsigned),
            (&u, Half::Unsigned, &s, Half::Signed),
            (&u, Half::Unsigned, &u, Half::Unsigned),
        ];
        for (xs, hx, ys, hy) in cases {
            let (v, fix) = mp_variant(hx, hy);
            for &a in xs {
                for &b in ys {
                    let mut p = mul(MulFamily::Mp, v, 0, i64::from(a), i64::from(b));
                    if fix {
                        p = un(MU::Extw, p);
                    }
                    assert_eq!(p, i64::from(a.wrapping_mul(b)), "{a} * {b} {hx:?} {hy:?}");
                    assert_eq!(p, sext32(p), "canonical");
                }
            }
        }
        assert_eq!(wrap40(0), 0);
    }
}
