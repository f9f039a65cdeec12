//! The project's own 32-bit ST120 GP32 encoding (ASSUMPTION, isa.md §B7: the real layout is
//! not public). Little-endian words, one operation per word:
//!
//! ```text
//!  31  30..27  26..20   19 ........................................ 0
//! stop  guard  opcode7  operands (format chosen by opcode7)
//! ```
//!
//! * `stop` is set on the last operation of an issue group (a group has 1 or 2 operations).
//! * `guard` is the guard register number; 15 (G15, always true) for unguarded operations
//!   (`GOTO`, `JUMP`, `NOP` require 15). For `Gx! GOTO` / `Gx! JUMP` it is the guard whose
//!   FALSE value makes the branch taken.
//!
//! Operand formats (`fN` = 4-bit register number of the N-th register operand in assembly
//! order, `minor` selects the operation inside an opcode7 family; every bit not listed must
//! be 0, otherwise the word is an illegal encoding):
//!
//! ```text
//! REG   [19:16] f0  [15:12] f1  [11:8] f2  [7:4] f3  [3:0] minor   (unused fN = 0)
//! RI8   [19:16] f0  [15:12] f1  [11:4] imm8                [3:0] minor
//! PI9   [19:16] f0  [15:12] f1  [11:3] imm9                [2:0] minor
//! RI16  [19:16] f0  [15:0] imm16
//! MEM   [19:16] value reg  [15:12] base Pn  [11:9] mode  [8:0] offset
//!         mode: 0 +u9, 1 -u9, 2 +Pq, 3 -Pq, 4 !+u5, 5 !-u5, 6 !+Pq, 7 !-Pq
//!         offset: u9 in [8:0]; u5 in [4:0]; Pq in [3:0] (higher offset bits 0)
//! BR    [19:0] signed word offset, target = address of the operation + 4 * offset
//! TRAP  [7:0] system-call number
//! NONE  all operand bits 0
//! ```
//!
//! opcode7 assignment:
//!
//! | opcode7 | format | operations (minor) |
//! |---|---|---|
//! | 0x00 | NONE | NOP |
//! | 0x01 | REG | ADD ADDU SUB SUBU AND OR XOR ANDN ORN NAND NOR XNOR (0..11) `Rm,Rn,Rp` |
//! | 0x02 | REG | SHL SHLU SHR SHRU SHRW SHRUW (0..5), ADDP SUBP ADDUP SUBUP ANDP ORP XORP (6..12) |
//! | 0x03 | RI8 | ADD .. XNOR `Rm,Rn,u8` (0..11) |
//! | 0x04 | RI8 | SHL .. SHRUW `Rm,Rn,u5` (0..5; imm8 bits 7:5 = 0) |
//! | 0x05 | REG | NEG NEGU MOVE EXTB EXTUB EXTH EXTUH EXTW EXTUW CLAMPW LZCW MOVEP (0..11) `Rm,Rn` |
//! | 0x06 / 0x07 / 0x08 | REG | MP / MA / MS, minor = variant: bit 3 op1 U, bit 2 op2 U, bit 1 op1 H, bit 0 op2 H |
//! | 0x09 | REG | EQW NEW LTW LEW GTW GEW (0..5), EQUW .. GEUW (6..11) `Gy,Rn,Rp` |
//! | 0x0A | RI8 | the same with `Gy,Rn,u8` |
//! | 0x0B | REG | EQE .. GEE (0..5) `Gy,Rn,Rp`, EQA .. GEA (6..11) `Gy,Pn,Pq` |
//! | 0x0C | RI8 | the same with u8 |
//! | 0x0D | REG | ANDG ORG XORG NANDG NORG ANDNG ORNG (0..6), NOTG (7), MOVEG (8), SETG (9), CLRG (10) |
//! | 0x0E | REG | BOOL (0), COPYA (1), COPYD (2), MOVEA (3) |
//! | 0x0F | REG | ADDBA ADDHA ADDWA SUBBA SUBHA SUBWA (0..5) `Pm,Pn,Pq` |
//! | 0x10 | PI9 | the same with u9 |
//! | 0x11..0x15 | RI16 | MAKE, MORE, MAKEP, MAKEA, MOREA |
//! | 0x20..0x27 | MEM | LDB LDUB LDH LDUH LDW LDP LAW LAH |
//! | 0x28..0x2D | MEM | SDB SDH SDW SDP SAW SAH |
//! | 0x30 / 0x31 / 0x32 | BR | GOTO, `Gx! GOTO`, `Gx? CALL` |
//! | 0x33 / 0x34 / 0x35 / 0x36 | NONE | JUMP, `Gx! JUMP`, `Gx? LINK`, `Gx? RTS` |
//! | 0x37 | TRAP | `Gx? TRAP n` |
//!
//! Every other opcode7 is illegal. Decoding is injective: a word decodes only if
//! re-encoding the result gives the same word (tested exhaustively per opcode and by random
//! words). Encoding and decoding are O(1).

use super::opcode::{
    AddrMode, AuOp, BinOp, CmpCond, CmpKind, GuardOp, Inst, InstError, LoadKind, MulFamily,
    MulVariant, Opcode, StoreKind, UnOp, BRANCH_OFFSET_BITS,
};
use std::fmt;

/// Bit 31: last operation of its issue group.
pub const STOP_BIT: u32 = 1 << 31;

/// Operand format of an opcode7 family (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    /// Register fields (how many) and a 4-bit minor.
    Reg(u8),
    RegImm8,
    RegImm9,
    RegImm16,
    Mem,
    Branch,
    Trap,
    None,
}

/// Why a word is not a valid ST120 operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    pub word: u32,
    pub reason: &'static str,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "illegal ST120 encoding {:#010x}: {}",
            self.word, self.reason
        )
    }
}

impl std::error::Error for DecodeError {}

const fn op7_load(k: LoadKind) -> u8 {
    0x20 + k as u8
}
const fn op7_store(k: StoreKind) -> u8 {
    0x28 + k as u8
}

/// opcode7, minor and format of an opcode.
fn layout(op: Opcode) -> (u8, u8, Format) {
    use Format::*;
    match op {
        Opcode::Nop => (0x00, 0, None),
        Opcode::Bin(b) if b.code() < 12 => (0x01, b.code(), Reg(3)),
        Opcode::Bin(b) => (0x02, b.code() - 12, Reg(3)),
        Opcode::BinI(b) if b.code() < 12 => (0x03, b.code(), RegImm8),
        Opcode::BinI(b) => (0x04, b.code() - 12, RegImm8),
        Opcode::Un(u) => (0x05, u.code(), Reg(2)),
        Opcode::Mul(MulFamily::Mp, v) => (0x06, v.code(), Reg(3)),
        Opcode::Mul(MulFamily::Ma, v) => (0x07, v.code(), Reg(4)),
        Opcode::Mul(MulFamily::Ms, v) => (0x08, v.code(), Reg(4)),
        Opcode::Cmp(k, c) => (
            0x09 + 2 * (k.code() / 2),
            6 * (k.code() % 2) + c.code(),
            Reg(3),
        ),
        Opcode::CmpI(k, c) => (
            0x0A + 2 * (k.code() / 2),
            6 * (k.code() % 2) + c.code(),
            RegImm8,
        ),
        Opcode::Guard(g) => (0x0D, g.code(), Reg(3)),
        Opcode::NotG => (0x0D, 7, Reg(1)),
        Opcode::MoveG => (0x0D, 8, Reg(2)),
        Opcode::SetG => (0x0D, 9, Reg(1)),
        Opcode::ClrG => (0x0D, 10, Reg(1)),
        Opcode::Bool => (0x0E, 0, Reg(2)),
        Opcode::CopyA => (0x0E, 1, Reg(2)),
        Opcode::CopyD => (0x0E, 2, Reg(2)),
        Opcode::MoveA => (0x0E, 3, Reg(2)),
        Opcode::Au(a) => (0x0F, a.code(), Reg(3)),
        Opcode::AuI(a) => (0x10, a.code(), RegImm9),
        Opcode::Make => (0x11, 0, RegImm16),
        Opcode::More => (0x12, 0, RegImm16),
        Opcode::MakeP => (0x13, 0, RegImm16),
        Opcode::MakeA => (0x14, 0, RegImm16),
        Opcode::MoreA => (0x15, 0, RegImm16),
        Opcode::Load(k, _) => (op7_load(k), 0, Mem),
        Opcode::Store(k, _) => (op7_store(k), 0, Mem),
        Opcode::Goto => (0x30, 0, Branch),
        Opcode::GotoF => (0x31, 0, Branch),
        Opcode::Call => (0x32, 0, Branch),
        Opcode::Jump => (0x33, 0, None),
        Opcode::JumpF => (0x34, 0, None),
        Opcode::Link => (0x35, 0, None),
        Opcode::Rts => (0x36, 0, None),
        Opcode::Trap => (0x37, 0, Trap),
    }
}

/// The opcode of an opcode7 / minor pair (memory operations: minor ignored, mode
/// `PlusImm` as a placeholder), with its format.
fn opcode_of(op7: u8, minor: u8) -> Option<(Opcode, Format)> {
    use Format::*;
    let low = |n: u8| (minor < n).then_some(minor);
    let cmp = |base: u8, m: u8| -> Option<(CmpKind, CmpCond)> {
        if m >= 12 {
            return Option::None;
        }
        Some((
            CmpKind::from_code(base + m / 6)?,
            CmpCond::from_code(m % 6)?,
        ))
    };
    Some(match op7 {
        0x00 => (Opcode::Nop, None),
        0x01 => (Opcode::Bin(BinOp::from_code(low(12)?)?), Reg(3)),
        0x02 => (Opcode::Bin(BinOp::from_code(low(13)? + 12)?), Reg(3)),
        0x03 => (Opcode::BinI(BinOp::from_code(low(12)?)?), RegImm8),
        0x04 => (Opcode::BinI(BinOp::from_code(low(6)? + 12)?), RegImm8),
        0x05 => (Opcode::Un(UnOp::from_code(minor)?), Reg(2)),
        0x06 => (
            Opcode::Mul(MulFamily::Mp, MulVariant::from_code(minor)?),
            Reg(3),
        ),
        0x07 => (
            Opcode::Mul(MulFamily::Ma, MulVariant::from_code(minor)?),
            Reg(4),
        ),
        0x08 => (
            Opcode::Mul(MulFamily::Ms, MulVariant::from_code(minor)?),
            Reg(4),
        ),
        0x09 | 0x0B => {
            let (k, c) = cmp(if op7 == 0x09 { 0 } else { 2 }, minor)?;
            (Opcode::Cmp(k, c), Reg(3))
        }
        0x0A | 0x0C => {
            let (k, c) = cmp(if op7 == 0x0A { 0 } else { 2 }, minor)?;
            (Opcode::CmpI(k, c), RegImm8)
        }
        0x0D => match minor {
            0..=6 => (Opcode::Guard(GuardOp::from_code(minor)?), Reg(3)),
            7 => (Opcode::NotG, Reg(1)),
            8 => (Opcode::MoveG, Reg(2)),
            9 => (Opcode::SetG, Reg(1)),
            10 => (Opcode::ClrG, Reg(1)),
            _ => return Option::None,
        },
        0x0E => match minor {
            0 => (Opcode::Bool, Reg(2)),
            1 => (Opcode::CopyA, Reg(2)),
            2 => (Opcode::CopyD, Reg(2)),
            3 => (Opcode::MoveA, Reg(2)),
            _ => return Option::None,
        },
        0x0F => (Opcode::Au(AuOp::from_code(minor)?), Reg(3)),
        0x10 => (Opcode::AuI(AuOp::from_code(minor & 7)?), RegImm9),
        0x11 => (Opcode::Make, RegImm16),
        0x12 => (Opcode::More, RegImm16),
        0x13 => (Opcode::MakeP, RegImm16),
        0x14 => (Opcode::MakeA, RegImm16),
        0x15 => (Opcode::MoreA, RegImm16),
        0x20..=0x27 => (
            Opcode::Load(LoadKind::from_code(op7 - 0x20)?, AddrMode::PlusImm),
            Mem,
        ),
        0x28..=0x2D => (
            Opcode::Store(StoreKind::from_code(op7 - 0x28)?, AddrMode::PlusImm),
            Mem,
        ),
        0x30 => (Opcode::Goto, Branch),
        0x31 => (Opcode::GotoF, Branch),
        0x32 => (Opcode::Call, Branch),
        0x33 => (Opcode::Jump, None),
        0x34 => (Opcode::JumpF, None),
        0x35 => (Opcode::Link, None),
        0x36 => (Opcode::Rts, None),
        0x37 => (Opcode::Trap, Trap),
        _ => return Option::None,
    })
}

/// Encode one operation; `stop` marks the last operation of its issue group.
pub fn encode(inst: &Inst, stop: bool) -> Result<u32, InstError> {
    inst.validate()?;
    let (op7, minor, format) = layout(inst.opcode);
    let r = |i: usize| u32::from(inst.regs[i] & 15);
    let imm = inst.imm as u32;
    let operands = match format {
        Format::Reg(n) => {
            let mut w = u32::from(minor);
            for i in 0..usize::from(n) {
                w |= r(i) << (16 - 4 * i);
            }
            w
        }
        Format::RegImm8 => (r(0) << 16) | (r(1) << 12) | ((imm & 0xFF) << 4) | u32::from(minor),
        Format::RegImm9 => (r(0) << 16) | (r(1) << 12) | ((imm & 0x1FF) << 3) | u32::from(minor),
        Format::RegImm16 => (r(0) << 16) | (imm & 0xFFFF),
        Format::Mem => {
            let (value, base, off_reg, mode) = mem_fields(inst);
            let off = if mode.is_reg_offset() {
                off_reg
            } else {
                imm & 0x1FF
            };
            (value << 16) | (base << 12) | (u32::from(mode.code()) << 9) | off
        }
        Format::Branch => imm & ((1 << BRANCH_OFFSET_BITS) - 1),
        Format::Trap => imm & 0xFF,
        Format::None => 0,
    };
    let stop_bit = if stop { STOP_BIT } else { 0 };
    Ok(stop_bit | (u32::from(inst.guard) << 27) | (u32::from(op7) << 20) | operands)
}

/// (value register, base register, offset register, mode) of a memory operation.
fn mem_fields(inst: &Inst) -> (u32, u32, u32, AddrMode) {
    let r = |i: usize| u32::from(inst.regs[i] & 15);
    match inst.opcode {
        // LDx Rm, @(Pn op Pq|imm): regs = [Rm, Pn, Pq?]
        Opcode::Load(_, mode) => (r(0), r(1), r(2), mode),
        // SDx @(Pn op Pq|imm), Rm: regs = [Pn, Pq, Rm] or [Pn, Rm]
        Opcode::Store(_, mode) if mode.is_reg_offset() => (r(2), r(0), r(1), mode),
        Opcode::Store(_, mode) => (r(1), r(0), 0, mode),
        _ => (0, 0, 0, AddrMode::PlusImm),
    }
}

/// Decode one word into the operation and its stop bit.
pub fn decode(word: u32) -> Result<(Inst, bool), DecodeError> {
    let bad = |reason| DecodeError { word, reason };
    let stop = word & STOP_BIT != 0;
    let guard = ((word >> 27) & 15) as u8;
    let op7 = ((word >> 20) & 0x7F) as u8;
    let ops = word & 0xF_FFFF;
    let field = |i: u32| ((ops >> (16 - 4 * i)) & 15) as u8;
    let minor = (ops & 15) as u8;
    let (mut opcode, format) = match opcode_of(op7, minor) {
        Some(x) => x,
        None => return Err(bad("unknown opcode")),
    };
    let mut regs = [0u8; 4];
    let mut imm = 0i32;
    let mut used_mask: u32 = 0xF_FFFF;
    match format {
        Format::Reg(n) => {
            for (i, r) in regs.iter_mut().enumerate().take(usize::from(n)) {
                *r = field(i as u32);
            }
            used_mask = 0xF | (0xF_FFF0 & !((1u32 << (20 - 4 * u32::from(n))) - 1));
        }
        Format::RegImm8 => {
            regs[0] = field(0);
            regs[1] = field(1);
            imm = ((ops >> 4) & 0xFF) as i32;
            if matches!(opcode, Opcode::BinI(b) if b.is_shift()) && imm > 31 {
                return Err(bad("shift amount beyond u5"));
            }
        }
        Format::RegImm9 => {
            regs[0] = field(0);
            regs[1] = field(1);
            imm = ((ops >> 3) & 0x1FF) as i32;
        }
        Format::RegImm16 => {
            regs[0] = field(0);
            let raw = (ops & 0xFFFF) as i32;
            imm = if matches!(opcode, Opcode::Make | Opcode::MakeA) {
                i32::from(raw as u16 as i16)
            } else {
                raw
            };
        }
        Format::Mem => {
            let mode = AddrMode::from_code(((ops >> 9) & 7) as u8).unwrap_or(AddrMode::PlusImm);
            let value = field(0);
            let base = field(1);
            let off = ops & 0x1FF;
            let (off_reg, off_imm) = if mode.is_reg_offset() {
                used_mask = !0x1F0;
                ((off & 15) as u8, 0)
            } else if mode.is_post_modify() {
                used_mask = !0x1E0;
                (0, off as i32)
            } else {
                (0, off as i32)
            };
            imm = off_imm;
            opcode = match opcode {
                Opcode::Load(k, _) => {
                    regs = [value, base, off_reg, 0];
                    Opcode::Load(k, mode)
                }
                Opcode::Store(k, _) => {
                    regs = if mode.is_reg_offset() {
                        [base, off_reg, value, 0]
                    } else {
                        [base, value, 0, 0]
                    };
                    Opcode::Store(k, mode)
                }
                other => other,
            };
        }
        Format::Branch => {
            imm = ((ops << 12) as i32) >> 12;
        }
        Format::Trap => {
            imm = (ops & 0xFF) as i32;
            used_mask = 0xFF;
        }
        Format::None => used_mask = 0,
    }
    if ops & !used_mask & 0xF_FFFF != 0 {
        return Err(bad("non-zero unused operand bits"));
    }
    let inst = Inst {
        opcode,
        guard,
        regs,
        imm,
    };
    inst.validate()
        .map_err(|_| bad("operands out of range or guard not allowed"))?;
    // Injectivity: the canonical encoding of what we decoded must be this very word.
    match encode(&inst, stop) {
        Ok(w) if w == word => Ok((inst, stop)),
        _ => Err(bad("non-canonical encoding")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::st120::opcode::Operand;

    /// An instance of `op` with every register field and immediate non-trivial.
    fn sample(op: Opcode, seed: u32) -> Inst {
        let info = op.info();
        let mut regs = [0u8; 4];
        let mut k = 0;
        for o in info.operands() {
            if o.is_reg() {
                // Avoid G15 as a written guard.
                regs[k] = ((seed as usize + 3 * k + 1) % 15) as u8;
                k += 1;
            }
        }
        let imm = match info.imm() {
            Some(i) => {
                let (lo, hi) = i.range();
                (lo + i64::from(seed) % (hi - lo + 1)) as i32
            }
            None if info.has_target() => -(seed as i32) - 1,
            None => 0,
        };
        let guard = if info.props.contains(super::super::OpProps::UNGUARDED) {
            15
        } else {
            (seed % 16) as u8
        };
        Inst {
            opcode: op,
            guard,
            regs,
            imm,
        }
    }

    #[test]
    fn every_opcode_round_trips() {
        for (i, op) in Opcode::all().into_iter().enumerate() {
            for seed in [0u32, 7, 100 + i as u32] {
                let inst = sample(op, seed);
                for stop in [false, true] {
                    let w = encode(&inst, stop).unwrap_or_else(|e| panic!("{op:?}: {e}"));
                    assert_eq!(decode(w), Ok((inst, stop)), "{op:?} {w:#010x}");
                }
            }
        }
    }

    #[test]
    fn layouts_are_distinct() {
        let mut seen = std::collections::HashMap::new();
        for op in Opcode::all() {
            let key = match op {
                Opcode::Load(k, _) => (op7_load(k), 0),
                Opcode::Store(k, _) => (op7_store(k), 0),
                _ => {
                    let (a, b, _) = layout(op);
                    (a, b)
                }
            };
            if let Some(prev) = seen.insert(key, op) {
                let same_mem = matches!(
                    (prev, op),
                    (Opcode::Load(..), Opcode::Load(..)) | (Opcode::Store(..), Opcode::Store(..))
                );
                assert!(same_mem, "{prev:?} and {op:?} share {key:?}");
            }
        }
    }

    #[test]
    fn bit_layout_by_hand() {
        // G3? ADD R1, R2, R3: guard 3 -> bits 30:27 = 0011, opcode7 0x01, fields 1,2,3, minor 0.
        let add = Inst::new(Opcode::Bin(BinOp::Add), &[1, 2, 3], 0).guarded(3);
        assert_eq!(
            encode(&add, true).unwrap(),
            0x8000_0000 | (3 << 27) | (0x01 << 20) | 0x1_2300
        );
        // MAKE R1, 0x00A1 (G15): 0x7800_0000 | 0x11 << 20 | R1 << 16 | 0xA1, no stop bit.
        let make = Inst::new(Opcode::Make, &[1], 0xA1);
        assert_eq!(encode(&make, false).unwrap(), 0x7911_00A1);
        // LDW R1, @(P2 !+ 1): opcode7 0x24, value 1, base 2, mode 4, offset 1.
        let ld = Inst::new(Opcode::Load(LoadKind::W, AddrMode::PostIncImm), &[1, 2], 1);
        assert_eq!(
            encode(&ld, false).unwrap(),
            (15 << 27) | (0x24 << 20) | 0x1_2801
        );
        // SDW @(P2 + 2), R1: opcode7 0x2A, value 1, base 2, mode 0, offset 2.
        let st = Inst::new(Opcode::Store(StoreKind::W, AddrMode::PlusImm), &[2, 1], 2);
        assert_eq!(
            encode(&st, false).unwrap(),
            (15 << 27) | (0x2A << 20) | 0x1_2002
        );
        // G0! GOTO -1: guard 0, opcode7 0x31, offset 0xFFFFF.
        let br = Inst::new(Opcode::GotoF, &[], -1).guarded(0);
        assert_eq!(
            encode(&br, true).unwrap(),
            0x8000_0000 | (0x31 << 20) | 0xF_FFFF
        );
        // MAUSLH R4, R5, R6, R7: opcode7 0x07, minor = 0b1001.
        let mac = Inst::new(
            Opcode::Mul(MulFamily::Ma, MulVariant::new(true, false, false, true)),
            &[4, 5, 6, 7],
            0,
        );
        assert_eq!(
            encode(&mac, false).unwrap(),
            (15 << 27) | (0x07 << 20) | 0x4_5679
        );
    }

    #[test]
    fn illegal_words() {
        // All-zero memory is not code: NOP with guard G0 is illegal.
        assert!(decode(0).is_err());
        assert!(decode(0x7800_0000).is_ok()); // G15 NOP
        assert!(decode(0x7800_0001).is_err()); // NOP with operand bits
        assert!(decode(0x7FF0_0000).is_err()); // opcode7 0x7F
                                               // SETG G15 is illegal (G15 cannot be written).
        let setg = (15 << 27) | (0x0D << 20) | (15 << 16) | 9;
        assert!(decode(setg).is_err());
        // Shift immediate 32 does not fit u5.
        let shl = (15 << 27) | (0x04 << 20) | (1 << 16) | (2 << 12) | (32 << 4);
        assert!(decode(shl).is_err());
        // Post-modify offset 16..511 does not fit u5.
        let ld = (15 << 27) | (0x24 << 20) | (1 << 16) | (2 << 12) | (4 << 9) | 0x20;
        assert!(decode(ld).is_err());
        // Guarded GOTO (guard != 15) is illegal.
        assert!(decode((3 << 27) | (0x30 << 20) | 5).is_err());
    }

    #[test]
    fn random_words_never_panic_and_are_canonical() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut legal = 0;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let w = x as u32;
            if let Ok((inst, stop)) = decode(w) {
                legal += 1;
                assert_eq!(encode(&inst, stop), Ok(w));
                assert!(inst.opcode.info().operands().len() <= 4);
                let _ = Operand::Target;
            }
        }
        assert!(legal > 1000, "only {legal} legal words");
    }
}
