//! ST120 (ST100-family DSP-MCU) machine description, GP32 mode only.
//!
//! Source: `docs/isa.md` section B. What is modelled:
//!
//! * register files (§B1): 16 × 40-bit data registers `R0..R15` (32 bits plus 8 guard bits),
//!   16 × 32-bit pointer registers `P0..P15` (`P15` = SP, `P13` = GP, `P11` = link,
//!   `P3` = target of `JUMP`/`LINK`), 16 guards `G0..G15` (`G15` always true, writes to it are
//!   ignored);
//! * the minimal GP32 opcode set of §B6 ([`opcode`]): every operation is guarded (`Gx?`),
//!   conditional branches are taken on FALSE (`Gx! GOTO`), compares write guards, guard logic,
//!   packed 16-bit arithmetic, 16×16 multiplies and multiply-accumulates with a separate
//!   accumulator input, make/more constants, post-modify addressing with scaled offsets;
//! * pure semantic functions ([`semantics`]) that the simulator and the compiler's
//!   register-transfer interpreter share;
//! * the project's own 32-bit encoding of §B7 ([`encoding`]) and the issue-group rules of §B2
//!   ([`issue`]).
//!
//! ASSUMPTION (isa.md §B2): GP32 only; GP16, SLIW, hardware loops, control registers and the
//! circular-buffer addressing modes are not modelled.

pub mod encoding;
pub mod issue;
pub mod opcode;
pub mod semantics;

use std::fmt;

pub use opcode::{
    AddrMode, AuOp, BinOp, CmpCond, CmpKind, GuardOp, Imm, Inst, LoadKind, MulFamily, MulVariant,
    OpInfo, OpProps, Opcode, Operand, StoreKind, UnOp, Unit,
};

/// Number of registers in each file.
pub const NUM_REGS: usize = 16;
/// Stack pointer (isa.md §B1).
pub const SP: u8 = 15;
/// Global pointer.
pub const GP: u8 = 13;
/// Link register: return address written by `CALL`/`LINK`, read by `RTS`.
pub const LINK: u8 = 11;
/// Target register of the indirect `JUMP` and `LINK`.
pub const JUMP_TARGET: u8 = 3;
/// The always-true guard.
pub const GUARD_TRUE: u8 = 15;
/// Mask of a 40-bit data register value.
pub const MASK40: i64 = (1 << 40) - 1;

/// A register class (register file).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegClass {
    /// 40-bit data registers `R0..R15` (DU).
    R,
    /// 32-bit pointer registers `P0..P15` (AU).
    P,
    /// 1-bit guards `G0..G15`.
    G,
}

impl RegClass {
    /// Assembly prefix letter.
    pub fn letter(self) -> char {
        match self {
            RegClass::R => 'R',
            RegClass::P => 'P',
            RegClass::G => 'G',
        }
    }
}

/// One architectural register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg {
    pub class: RegClass,
    /// 0..15.
    pub num: u8,
}

impl Reg {
    pub const fn r(num: u8) -> Reg {
        Reg {
            class: RegClass::R,
            num,
        }
    }
    pub const fn p(num: u8) -> Reg {
        Reg {
            class: RegClass::P,
            num,
        }
    }
    pub const fn g(num: u8) -> Reg {
        Reg {
            class: RegClass::G,
            num,
        }
    }

    /// Dense index over all three files (R 0..15, P 16..31, G 32..47), used by scoreboards.
    pub fn index(self) -> usize {
        let base = match self.class {
            RegClass::R => 0,
            RegClass::P => 16,
            RegClass::G => 32,
        };
        base + usize::from(self.num & 15)
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.class.letter(), self.num)
    }
}

/// Canonical form of a 40-bit data value: the low 40 bits, sign-extended into the i64.
#[inline(always)]
pub fn wrap40(v: i64) -> i64 {
    (v << 24) >> 24
}

/// Sign-extend bit 31 into the guard bits (the result of a signed 32-bit-typed operation).
#[inline(always)]
pub fn sext32(v: i64) -> i64 {
    i64::from(v as i32)
}

/// Zero-extend the low 32 bits (the result of an unsigned `..U` operation).
#[inline(always)]
pub fn zext32(v: i64) -> i64 {
    i64::from(v as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forty_bit_helpers() {
        assert_eq!(wrap40(1 << 39), -(1 << 39));
        assert_eq!(wrap40((1 << 40) + 5), 5);
        assert_eq!(sext32(0x8000_0000), -0x8000_0000);
        assert_eq!(zext32(-1), 0xFFFF_FFFF);
        assert_eq!(Reg::g(15).index(), 47);
        assert_eq!(Reg::p(11).to_string(), "P11");
    }
}
