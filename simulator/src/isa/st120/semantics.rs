//! Pure semantics of the ST120 operations (isa.md §B4, §B6): results from operand values, no
//! machine state. The simulator inlines these functions; the compiler's register-transfer
//! interpreter calls [`execute`] on virtual registers, so both run the very same semantics.
//!
//! Value representation: a data register holds a 40-bit value kept in canonical form (the
//! low 40 bits, sign-extended into an `i64`, see [`wrap40`]); a pointer register a `u32`; a
//! guard a `bool`.
//!
//! ASSUMPTION (isa.md §B4, 40-bit data): after a 32-bit-typed operation (ADD, SUB, NEG, SHL,
//! SHRW, MORE, packed operations, word loads) bit 31 is sign-extended into the 8 guard bits;
//! after a `..U` operation (ADDU, SUBU, NEGU, SHLU, SHRUW, ADDUP, SUBUP) the guard bits are
//! cleared. Logic operations (AND ... XNOR) act on all 40 bits, SHR/SHRU shift all 40 bits,
//! multiplies give the exact product and multiply-accumulates wrap modulo 2^40.
//!
//! ASSUMPTION (shift amounts): a register shift amount is the low 8 bits of Rp, unsigned;
//! amounts beyond the operand width give 0 (the sign for arithmetic right shifts).
//!
//! Every function is O(1).

use super::opcode::{
    AddrMode, AuOp, BinOp, CmpCond, CmpKind, GuardOp, Inst, LoadKind, MulFamily, MulVariant,
    OpProps, Opcode, StoreKind, UnOp,
};
use super::{sext32, wrap40, zext32, GUARD_TRUE};

/// Two-input data-unit operation (`Rm = Rn op Rp`, or `Rn op u8` with `b` the immediate).
#[inline(always)]
pub fn bin(op: BinOp, a: i64, b: i64) -> i64 {
    match op {
        BinOp::Add => sext32(a.wrapping_add(b)),
        BinOp::Addu => zext32(a.wrapping_add(b)),
        BinOp::Sub => sext32(a.wrapping_sub(b)),
        BinOp::Subu => zext32(a.wrapping_sub(b)),
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        // ASSUMPTION: ANDN = Rn & ~Rp, ORN = Rn | ~Rp (the second operand is inverted).
        BinOp::Andn => a & !b,
        BinOp::Orn => a | !b,
        BinOp::Nand => !(a & b),
        BinOp::Nor => !(a | b),
        BinOp::Xnor => !(a ^ b),
        BinOp::Shl => sext32(shl32(a, b)),
        BinOp::Shlu => zext32(shl32(a, b)),
        BinOp::Shr => a >> shift_amount(b).min(39),
        BinOp::Shru => {
            let n = shift_amount(b);
            if n >= 40 {
                0
            } else {
                wrap40((a & super::MASK40) >> n)
            }
        }
        BinOp::Shrw => i64::from((a as i32) >> shift_amount(b).min(31)),
        BinOp::Shruw => {
            let n = shift_amount(b);
            if n >= 32 {
                0
            } else {
                i64::from((a as u32) >> n)
            }
        }
        BinOp::Addp => sext32(packed(a, b, u16::wrapping_add)),
        BinOp::Subp => sext32(packed(a, b, u16::wrapping_sub)),
        BinOp::Addup => zext32(packed(a, b, u16::wrapping_add)),
        BinOp::Subup => zext32(packed(a, b, u16::wrapping_sub)),
        BinOp::Andp => sext32(a & b),
        BinOp::Orp => sext32(a | b),
        BinOp::Xorp => sext32(a ^ b),
    }
}

#[inline(always)]
fn shift_amount(b: i64) -> u32 {
    (b & 0xFF) as u32
}

#[inline(always)]
fn shl32(a: i64, b: i64) -> i64 {
    let n = shift_amount(b);
    if n >= 32 {
        0
    } else {
        a << n
    }
}

/// Two 16-bit lanes of the low 32 bits, each computed modulo 2^16 (ASSUMPTION isa.md §B4:
/// lanes wrap, flags are not modelled).
#[inline(always)]
fn packed(a: i64, b: i64, f: fn(u16, u16) -> u16) -> i64 {
    let lo = f(a as u16, b as u16);
    let hi = f((a >> 16) as u16, (b >> 16) as u16);
    i64::from((u32::from(hi) << 16) | u32::from(lo))
}

/// One-input data-unit operation.
#[inline(always)]
pub fn un(op: UnOp, a: i64) -> i64 {
    match op {
        UnOp::Neg => sext32(a.wrapping_neg()),
        UnOp::Negu => zext32(a.wrapping_neg()),
        UnOp::Move => a,
        UnOp::Extb => i64::from(a as i8),
        UnOp::Extub => i64::from(a as u8),
        UnOp::Exth => i64::from(a as i16),
        UnOp::Extuh => i64::from(a as u16),
        UnOp::Extw | UnOp::Movep => sext32(a),
        UnOp::Extuw => zext32(a),
        UnOp::Clampw => a.clamp(i64::from(i32::MIN), i64::from(i32::MAX)),
        UnOp::Lzcw => i64::from((a as u32).leading_zeros()),
    }
}

/// `MAKE Rm, s16`.
#[inline(always)]
pub fn make(imm: i32) -> i64 {
    i64::from(imm as i16)
}

/// `MORE Rm, u16`: (Rm << 16) | u16, 32-bit typed (isa.md §B4: MAKE 0x00A1; MORE 0x2BFA
/// gives 0x00A12BFA).
#[inline(always)]
pub fn more(old: i64, imm: i32) -> i64 {
    sext32((old << 16) | i64::from(imm as u16))
}

/// `MAKEP Rm, u16`: both lanes = u16 (ASSUMPTION: the same constant in both halves).
#[inline(always)]
pub fn makep(imm: i32) -> i64 {
    let h = i64::from(imm as u16);
    sext32((h << 16) | h)
}

/// `MAKEA Pm, s16`.
#[inline(always)]
pub fn make_a(imm: i32) -> u32 {
    i32::from(imm as i16) as u32
}

/// `MOREA Pm, u16`.
#[inline(always)]
pub fn more_a(old: u32, imm: i32) -> u32 {
    (old << 16) | u32::from(imm as u16)
}

/// One 16-bit half of a data register as an operand of a multiply.
#[inline(always)]
fn half(x: i64, high: bool, unsigned: bool) -> i64 {
    let h = if high { (x >> 16) as u16 } else { x as u16 };
    if unsigned {
        i64::from(h)
    } else {
        i64::from(h as i16)
    }
}

/// 16x16 product selected by the variant letters (exact: at most 32 bits + sign).
#[inline(always)]
pub fn product(v: MulVariant, a: i64, b: i64) -> i64 {
    half(a, v.op1_high(), v.op1_unsigned()) * half(b, v.op2_high(), v.op2_unsigned())
}

/// `MPxxyy Rm, Rn, Rp` (`acc` ignored), `MAxxyy Rm, Rq, Rn, Rp` = Rq + product,
/// `MSxxyy` = Rq - product; accumulations wrap modulo 2^40.
#[inline(always)]
pub fn mul(fam: MulFamily, v: MulVariant, acc: i64, a: i64, b: i64) -> i64 {
    let p = product(v, a, b);
    match fam {
        MulFamily::Mp => p,
        MulFamily::Ma => wrap40(acc.wrapping_add(p)),
        MulFamily::Ms => wrap40(acc.wrapping_sub(p)),
    }
}

/// A comparison into a guard. For kind A, `a` and `b` are pointer values (`u32` as i64).
#[inline(always)]
pub fn compare(kind: CmpKind, cond: CmpCond, a: i64, b: i64) -> bool {
    match kind {
        CmpKind::W => cond_holds(cond, a as i32, b as i32),
        CmpKind::Uw | CmpKind::A => cond_holds(cond, a as u32, b as u32),
        CmpKind::E => cond_holds(cond, wrap40(a), wrap40(b)),
    }
}

#[inline(always)]
fn cond_holds<T: Ord>(cond: CmpCond, a: T, b: T) -> bool {
    match cond {
        CmpCond::Eq => a == b,
        CmpCond::Ne => a != b,
        CmpCond::Lt => a < b,
        CmpCond::Le => a <= b,
        CmpCond::Gt => a > b,
        CmpCond::Ge => a >= b,
    }
}

/// Two-input guard logic.
#[inline(always)]
pub fn guard_op(op: GuardOp, a: bool, b: bool) -> bool {
    match op {
        GuardOp::And => a & b,
        GuardOp::Or => a | b,
        GuardOp::Xor => a ^ b,
        GuardOp::Nand => !(a & b),
        GuardOp::Nor => !(a | b),
        // ASSUMPTION: the second guard is inverted, as for ANDN/ORN.
        GuardOp::Andn => a & !b,
        GuardOp::Orn => a | !b,
    }
}

/// AU arithmetic `Pm = Pn ± off * scale`, modulo 2^32. ASSUMPTION: the register form scales
/// Pq like the immediate form (isa.md §B6: "offset x1/x2/x4").
#[inline(always)]
pub fn au(op: AuOp, a: u32, off: u32) -> u32 {
    let d = off.wrapping_mul(u32::from(op.scale()));
    if op.is_sub() {
        a.wrapping_sub(d)
    } else {
        a.wrapping_add(d)
    }
}

/// Effective address and updated base of an access of `size` bytes: `(address, new base)`.
/// `off` is the immediate or the offset register's value; both are scaled by `size`
/// (isa.md §B4; ASSUMPTION: store offsets and register offsets are scaled too).
#[inline(always)]
pub fn address(mode: AddrMode, base: u32, off: u32, size: u8) -> (u32, u32) {
    let d = off.wrapping_mul(u32::from(size));
    let moved = if mode.is_minus() {
        base.wrapping_sub(d)
    } else {
        base.wrapping_add(d)
    };
    if mode.is_post_modify() {
        (base, moved)
    } else {
        (moved, base)
    }
}

/// Value loaded into a data register from the raw zero-extended memory value.
/// ASSUMPTION: LDP loads like LDW (32 bits, bit 31 sign-extended).
#[inline(always)]
pub fn load_r(kind: LoadKind, raw: u32) -> i64 {
    match kind {
        LoadKind::B => i64::from(raw as i8),
        LoadKind::H => i64::from(raw as i16),
        LoadKind::W | LoadKind::P => i64::from(raw as i32),
        _ => i64::from(raw),
    }
}

/// Value loaded into a pointer register. ASSUMPTION: LAH zero-extends.
#[inline(always)]
pub fn load_p(raw: u32) -> u32 {
    raw
}

/// `BOOL Rm, Gc`.
#[inline(always)]
pub fn bool_value(g: bool) -> i64 {
    i64::from(g)
}

/// `COPYA Pm, Rn`: the low 32 bits.
#[inline(always)]
pub fn copy_a(r: i64) -> u32 {
    r as u32
}

/// `COPYD Rm, Pn`. ASSUMPTION: bit 31 is sign-extended into the guard bits (a C `int` that
/// lived in a pointer register comes back with its sign; addresses are below 2^31).
#[inline(always)]
pub fn copy_d(p: u32) -> i64 {
    i64::from(p as i32)
}

// ---------------------------------------------------------------------------------------
// Generic execution for register-transfer interpreters

/// A register value of any class: R as its canonical 40-bit `i64`, P as `u32`, G as 0/1.
pub type Word = i64;

/// Data memory seen by [`execute`]. Sizes are 1, 2 or 4; loads return the value
/// zero-extended; stores take the low `size` bytes of `v`.
pub trait DataMemory {
    type Error;
    fn load(&mut self, addr: u32, size: u8) -> Result<u32, Self::Error>;
    fn store(&mut self, addr: u32, size: u8, v: u32) -> Result<(), Self::Error>;
}

/// Control effect of an executed operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// Fall through to the next issue group.
    Next,
    /// Transfer to this address (taken branch, goto, jump).
    Jump(u32),
    /// Call: transfer to `target`; P11 = `ret` (already in the outcome's writes).
    Call { target: u32 },
    /// Return to this address.
    Return(u32),
    /// System call `n` (arguments R0 and P0).
    Syscall(u8),
}

/// What [`execute`] produced: new values of the operation's written register operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// `writes[i]` is the new value of register operand `i` (operand order, as `Inst::regs`)
    /// when bit `i` of `written` is set.
    pub writes: [Word; 4],
    pub written: u8,
    /// New value of P11 (calls).
    pub link: Option<u32>,
    pub control: Control,
}

/// Inputs of [`execute`] besides the instruction itself.
#[derive(Clone, Copy, Debug)]
pub struct ExecIn {
    /// Values of the register operands in operand order (`Def` slots are ignored).
    pub regs: [Word; 4],
    /// Value of the guard register (`Inst::guard`).
    pub guard: bool,
    /// Value of P3 (JUMP, LINK), P11 (RTS), R0 and P0 are only needed by those operations.
    pub p3: u32,
    pub p11: u32,
    /// Address of this operation.
    pub pc: u32,
    /// Address of the next issue group (the return address of a call).
    pub next_group: u32,
}

/// Execute one operation on operand values: the single source of truth for the
/// register-transfer semantics. A guarded-off operation writes nothing and falls through
/// (for `Gx!` operations, the operation acts when the guard is false).
pub fn execute<M: DataMemory>(
    inst: &Inst,
    input: &ExecIn,
    mem: &mut M,
) -> Result<Outcome, M::Error> {
    let info = inst.opcode.info();
    let mut out = Outcome {
        writes: [0; 4],
        written: 0,
        link: None,
        control: Control::Next,
    };
    let active = if info.props.contains(OpProps::ON_FALSE) {
        !input.guard
    } else {
        input.guard || inst.guard == GUARD_TRUE
    };
    if !active {
        return Ok(out);
    }
    let r = &input.regs;
    let imm = inst.imm;
    let target = input.pc.wrapping_add((imm as u32).wrapping_mul(4));
    let mut set = |i: usize, v: Word| {
        out.writes[i] = v;
        out.written |= 1 << i;
    };
    match inst.opcode {
        Opcode::Nop => {}
        Opcode::Bin(op) => set(0, bin(op, r[1], r[2])),
        Opcode::BinI(op) => set(0, bin(op, r[1], i64::from(imm))),
        Opcode::Un(op) => set(0, un(op, r[1])),
        Opcode::Make => set(0, make(imm)),
        Opcode::More => set(0, more(r[0], imm)),
        Opcode::MakeP => set(0, makep(imm)),
        Opcode::MakeA => set(0, Word::from(make_a(imm))),
        Opcode::MoreA => set(0, Word::from(more_a(r[0] as u32, imm))),
        Opcode::Mul(MulFamily::Mp, v) => set(0, mul(MulFamily::Mp, v, 0, r[1], r[2])),
        Opcode::Mul(fam, v) => set(0, mul(fam, v, r[1], r[2], r[3])),
        Opcode::Cmp(k, c) => set(0, Word::from(compare(k, c, r[1], r[2]))),
        Opcode::CmpI(k, c) => set(0, Word::from(compare(k, c, r[1], i64::from(imm)))),
        Opcode::Guard(op) => set(0, Word::from(guard_op(op, r[1] != 0, r[2] != 0))),
        Opcode::NotG => set(0, Word::from(r[0] == 0)),
        Opcode::MoveG => set(0, Word::from(r[1] != 0)),
        Opcode::SetG => set(0, 1),
        Opcode::ClrG => set(0, 0),
        Opcode::Bool => set(0, bool_value(r[1] != 0)),
        Opcode::CopyA => set(0, Word::from(copy_a(r[1]))),
        Opcode::CopyD => set(0, copy_d(r[1] as u32)),
        Opcode::MoveA => set(0, r[1]),
        Opcode::Au(op) => set(0, Word::from(au(op, r[1] as u32, r[2] as u32))),
        Opcode::AuI(op) => set(0, Word::from(au(op, r[1] as u32, imm as u32))),
        Opcode::Load(kind, mode) => {
            let off = if mode.is_reg_offset() {
                r[2] as u32
            } else {
                imm as u32
            };
            let (addr, nb) = address(mode, r[1] as u32, off, kind.size());
            let raw = mem.load(addr, kind.size())?;
            let v = if kind.class() == super::RegClass::P {
                Word::from(load_p(raw))
            } else {
                load_r(kind, raw)
            };
            if mode.is_post_modify() {
                set(1, Word::from(nb));
            }
            // The loaded value wins if the destination is also the base (written last).
            set(0, v);
        }
        Opcode::Store(kind, mode) => {
            let (off, val) = if mode.is_reg_offset() {
                (r[1] as u32, r[2])
            } else {
                (imm as u32, r[1])
            };
            let (addr, nb) = address(mode, r[0] as u32, off, kind.size());
            mem.store(addr, kind.size(), store_bits(kind, val))?;
            if mode.is_post_modify() {
                set(0, Word::from(nb));
            }
        }
        Opcode::Goto | Opcode::GotoF => out.control = Control::Jump(target),
        Opcode::Call => {
            out.link = Some(input.next_group);
            out.control = Control::Call { target };
        }
        Opcode::Jump | Opcode::JumpF => out.control = Control::Jump(input.p3),
        Opcode::Link => {
            out.link = Some(input.next_group);
            out.control = Control::Call { target: input.p3 };
        }
        Opcode::Rts => out.control = Control::Return(input.p11),
        Opcode::Trap => out.control = Control::Syscall(imm as u8),
    }
    Ok(out)
}

/// Bits written to memory by a store of `val` (a data or pointer register value).
#[inline(always)]
pub fn store_bits(_kind: StoreKind, val: Word) -> u32 {
    val as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(op1u: bool, op2u: bool, op1h: bool, op2h: bool) -> MulVariant {
        MulVariant::new(op1u, op2u, op1h, op2h)
    }

    #[test]
    fn add_sub_guard_bits() {
        // 0x7FFF_FFFF + 1 overflows 32 bits: ADD sign-extends bit 31 into the guard bits,
        // ADDU zero-extends.
        assert_eq!(bin(BinOp::Add, 0x7FFF_FFFF, 1), -0x8000_0000);
        assert_eq!(bin(BinOp::Addu, 0x7FFF_FFFF, 1), 0x8000_0000);
        assert_eq!(bin(BinOp::Sub, 0, 1), -1);
        assert_eq!(bin(BinOp::Subu, 0, 1), 0xFFFF_FFFF);
        // A 40-bit value with guard bits set: ADD drops them (32-bit typed).
        assert_eq!(bin(BinOp::Add, 0x12_0000_0005, 1), 6);
    }

    #[test]
    fn logic_is_40_bit() {
        assert_eq!(bin(BinOp::And, 0x0F0F, 0xFF), 0x0F);
        assert_eq!(bin(BinOp::Andn, 0xFF, 0x0F), 0xF0);
        assert_eq!(bin(BinOp::Orn, 0, -2), 1);
        assert_eq!(bin(BinOp::Nand, -1, -1), 0);
        assert_eq!(bin(BinOp::Nor, 0, 0), -1);
        assert_eq!(bin(BinOp::Xnor, 5, 5), -1);
        // Guard bits take part: 0x80_0000_0000 (bit 39) XOR 0 stays negative in 40 bits.
        assert_eq!(bin(BinOp::Xor, wrap40(0x80_0000_0000), 0), -0x80_0000_0000);
    }

    #[test]
    fn shifts() {
        assert_eq!(bin(BinOp::Shl, 1, 31), -0x8000_0000);
        assert_eq!(bin(BinOp::Shlu, 1, 31), 0x8000_0000);
        assert_eq!(bin(BinOp::Shl, 1, 32), 0);
        assert_eq!(bin(BinOp::Shr, -8, 2), -2);
        assert_eq!(bin(BinOp::Shr, -8, 200), -1);
        // SHRU shifts all 40 bits: -1 (40 ones) >> 8 = 32 ones.
        assert_eq!(bin(BinOp::Shru, -1, 8), 0xFFFF_FFFF);
        assert_eq!(bin(BinOp::Shru, -1, 40), 0);
        assert_eq!(bin(BinOp::Shru, 5, 0), 5);
        // SHRW / SHRUW look at the low 32 bits only.
        assert_eq!(bin(BinOp::Shrw, 0x1_8000_0000, 4), -0x0800_0000);
        assert_eq!(bin(BinOp::Shruw, -16, 4), 0x0FFF_FFFF);
        assert_eq!(bin(BinOp::Shruw, -16, 32), 0);
        // Register amounts use the low 8 bits: 0x104 -> 4.
        assert_eq!(bin(BinOp::Shl, 1, 0x104), 16);
    }

    #[test]
    fn packed_lanes_wrap() {
        // 0x7FFF_FFFF + 0x0001_0001: low lane 0xFFFF + 1 wraps to 0 (no carry into the high
        // lane), high lane 0x7FFF + 1 = 0x8000.
        assert_eq!(bin(BinOp::Addup, 0x7FFF_FFFF, 0x0001_0001), 0x8000_0000);
        assert_eq!(bin(BinOp::Addp, 0x7FFF_FFFF, 0x0001_0001), -0x8000_0000);
        assert_eq!(bin(BinOp::Subup, 0x0000_0000, 0x0001_0001), 0xFFFF_FFFF);
        assert_eq!(bin(BinOp::Subp, 0x0005_0003, 0x0002_0004), 0x0003_FFFF);
        assert_eq!(bin(BinOp::Andp, 0xFFFF_0000, 0x1234_5678), 0x1234_0000);
        assert_eq!(makep(0x8001), -0x7FFE_7FFF);
    }

    #[test]
    fn unary() {
        assert_eq!(un(UnOp::Neg, 5), -5);
        assert_eq!(un(UnOp::Negu, 5), 0xFFFF_FFFB);
        assert_eq!(un(UnOp::Extb, 0x80), -128);
        assert_eq!(un(UnOp::Extub, -1), 255);
        assert_eq!(un(UnOp::Exth, 0x1_8000), -0x8000);
        assert_eq!(un(UnOp::Extuh, -1), 0xFFFF);
        assert_eq!(un(UnOp::Extw, 0x12_8000_0000), -0x8000_0000);
        assert_eq!(un(UnOp::Extuw, -1), 0xFFFF_FFFF);
        assert_eq!(un(UnOp::Clampw, 0x12_0000_0000), 0x7FFF_FFFF);
        assert_eq!(un(UnOp::Clampw, wrap40(0x80_0000_0000)), -0x8000_0000);
        assert_eq!(un(UnOp::Clampw, -7), -7);
        assert_eq!(un(UnOp::Lzcw, 1), 31);
        assert_eq!(un(UnOp::Lzcw, 0), 32);
        assert_eq!(un(UnOp::Move, 0x55_0000_0000), 0x55_0000_0000);
    }

    #[test]
    fn make_more() {
        // Rastello et al. Fig. 2: make 0x00A1; more 0x2BFA -> 0x00A12BFA.
        assert_eq!(more(make(0x00A1), 0x2BFA), 0x00A1_2BFA);
        assert_eq!(make(-1), -1);
        assert_eq!(more(make(-32768), 0), -0x8000_0000);
        assert_eq!(more_a(make_a(0x1234), 0x5678), 0x1234_5678);
        assert_eq!(make_a(-4), 0xFFFF_FFFC);
    }

    #[test]
    fn multiplies() {
        let a = 0x0003_FFFE; // high half 3, low half 0xFFFE (-2 signed, 65534 unsigned)
        let b = 0xFFFF_0005; // high half 0xFFFF (-1 / 65535), low half 5
        assert_eq!(product(v(false, false, false, false), a, b), -10);
        assert_eq!(product(v(true, false, false, false), a, b), 65534 * 5);
        assert_eq!(product(v(false, false, true, true), a, b), -3);
        assert_eq!(product(v(false, true, true, true), a, b), 3 * 65535);
        assert_eq!(product(v(true, true, false, true), a, b), 65534 * 65535);
        assert_eq!(
            product(v(false, false, false, true), 0x8000, 0x8000_0000),
            0x4000_0000
        );
        // MAC: separate accumulator; 40-bit wrap.
        let m = v(false, false, false, false);
        assert_eq!(mul(MulFamily::Ma, m, 100, 3, 4), 112);
        assert_eq!(mul(MulFamily::Ms, m, 100, 3, 4), 88);
        assert_eq!(mul(MulFamily::Ma, m, 0x7F_FFFF_FFFF, 1, 1), -0x80_0000_0000);
        // Accumulating past 32 bits keeps the guard bits.
        assert_eq!(
            mul(MulFamily::Ma, m, 0x7FFF_FFFF, 0x4000, 0x4000),
            0x8FFF_FFFF
        );
    }

    #[test]
    fn int_multiply_sequence() {
        // The compiler's 32-bit multiply (isa.md §B4): MPSUHL t; MAUSLH t2,t,a,b;
        // SHLU t3,t2,16; MAUULL d,t3,a,b gives a*b modulo 2^32 in the low 32 bits.
        for (a, b) in [
            (123_456i64, -789),
            (-1, -1),
            (0x7FFF_FFFF, 3),
            (65_537, 65_535),
        ] {
            let t = mul(MulFamily::Mp, v(false, true, true, false), 0, a, b);
            let t2 = mul(MulFamily::Ma, v(true, false, false, true), t, a, b);
            let t3 = bin(BinOp::Shlu, t2, 16);
            let d = mul(MulFamily::Ma, v(true, true, false, false), t3, a, b);
            assert_eq!(d as i32, (a as i32).wrapping_mul(b as i32), "{a} * {b}");
        }
    }

    #[test]
    fn compares() {
        assert!(compare(CmpKind::W, CmpCond::Lt, -1, 0));
        assert!(!compare(CmpKind::Uw, CmpCond::Lt, -1, 0));
        // W compares only the low 32 bits; E all 40.
        assert!(compare(CmpKind::W, CmpCond::Eq, 0x1_0000_0005, 5));
        assert!(!compare(CmpKind::E, CmpCond::Eq, 0x1_0000_0005, 5));
        assert!(compare(CmpKind::E, CmpCond::Gt, 0x1_0000_0000, 0x7FFF_FFFF));
        assert!(compare(CmpKind::A, CmpCond::Gt, 0x8000_0000, 1));
        assert!(compare(CmpKind::W, CmpCond::Ge, 3, 3) && compare(CmpKind::W, CmpCond::Le, 3, 3));
        assert!(compare(CmpKind::W, CmpCond::Ne, 3, 4));
        assert!(guard_op(GuardOp::Andn, true, false) && !guard_op(GuardOp::Nor, true, false));
        assert!(guard_op(GuardOp::Orn, false, false) && !guard_op(GuardOp::Nand, true, true));
    }

    #[test]
    fn addressing() {
        // LDW @(P + 2): +8 bytes; post-increment: access at base, base += 4*1.
        assert_eq!(address(AddrMode::PlusImm, 0x1000, 2, 4), (0x1008, 0x1000));
        assert_eq!(address(AddrMode::MinusImm, 0x1000, 2, 2), (0x0FFC, 0x1000));
        assert_eq!(
            address(AddrMode::PostIncImm, 0x1000, 1, 4),
            (0x1000, 0x1004)
        );
        assert_eq!(
            address(AddrMode::PostDecImm, 0x1000, 3, 2),
            (0x1000, 0x0FFA)
        );
        assert_eq!(address(AddrMode::PlusReg, 0x1000, 5, 1), (0x1005, 0x1000));
        assert_eq!(
            address(AddrMode::PostDecReg, 0x1000, 5, 4),
            (0x1000, 0x0FEC)
        );
        assert_eq!(au(AuOp::AddW, 0x1000, 3), 0x100C);
        assert_eq!(au(AuOp::SubH, 0x1000, 3), 0x0FFA);
        assert_eq!(load_r(LoadKind::B, 0xFF), -1);
        assert_eq!(load_r(LoadKind::Uh, 0xFFFF), 0xFFFF);
        assert_eq!(load_r(LoadKind::W, 0x8000_0000), -0x8000_0000);
        assert_eq!(copy_d(0xFFFF_FFFF), -1);
        assert_eq!(copy_a(0x12_3456_789A), 0x3456_789A);
    }

    struct Ram(Vec<u8>);
    impl DataMemory for Ram {
        type Error = u32;
        fn load(&mut self, addr: u32, size: u8) -> Result<u32, u32> {
            let a = addr as usize;
            let b = self.0.get(a..a + usize::from(size)).ok_or(addr)?;
            Ok(b.iter().rev().fold(0, |acc, &x| (acc << 8) | u32::from(x)))
        }
        fn store(&mut self, addr: u32, size: u8, v: u32) -> Result<(), u32> {
            let a = addr as usize;
            let b = self.0.get_mut(a..a + usize::from(size)).ok_or(addr)?;
            for (i, x) in b.iter_mut().enumerate() {
                *x = (v >> (8 * i)) as u8;
            }
            Ok(())
        }
    }

    fn input(regs: [Word; 4], guard: bool) -> ExecIn {
        ExecIn {
            regs,
            guard,
            p3: 0x40,
            p11: 0x80,
            pc: 0x100,
            next_group: 0x108,
        }
    }

    #[test]
    fn execute_guards_and_memory() {
        let mut ram = Ram(vec![0; 64]);
        let add = Inst::new(Opcode::Bin(BinOp::Add), &[1, 2, 3], 0).guarded(4);
        let o = execute(&add, &input([0, 5, 6, 0], true), &mut ram).unwrap();
        assert_eq!((o.writes[0], o.written), (11, 1));
        let o = execute(&add, &input([0, 5, 6, 0], false), &mut ram).unwrap();
        assert_eq!(o.written, 0);
        // Branches act on FALSE.
        let br = Inst::new(Opcode::GotoF, &[], -2).guarded(0);
        assert_eq!(
            execute(&br, &input([0; 4], false), &mut ram)
                .unwrap()
                .control,
            Control::Jump(0xF8)
        );
        assert_eq!(
            execute(&br, &input([0; 4], true), &mut ram)
                .unwrap()
                .control,
            Control::Next
        );
        // SDH @(P1 !+ 1), R2 then LDUH R3, @(P1 - 1).
        let st = Inst::new(
            Opcode::Store(StoreKind::H, AddrMode::PostIncImm),
            &[1, 2],
            1,
        );
        let o = execute(&st, &input([8, -1, 0, 0], true), &mut ram).unwrap();
        assert_eq!((o.writes[0], o.written), (10, 1));
        let ld = Inst::new(Opcode::Load(LoadKind::Uh, AddrMode::MinusImm), &[3, 1], 1);
        let o = execute(&ld, &input([0, 10, 0, 0], true), &mut ram).unwrap();
        assert_eq!((o.writes[0], o.written), (0xFFFF, 1));
        let call = Inst::new(Opcode::Call, &[], 4);
        let o = execute(&call, &input([0; 4], true), &mut ram).unwrap();
        assert_eq!(
            (o.control, o.link),
            (Control::Call { target: 0x110 }, Some(0x108))
        );
        assert!(execute(&ld, &input([0, 1000, 0, 0], true), &mut ram).is_err());
    }
}
