//! Register-level facts the target-independent passes (out-of-SSA, register allocation,
//! checkers) need about each target: register classes, names, allocatable and callee-saved
//! sets, ABI argument/result registers and call clobbers. Everything is derived from the
//! machine description in `simulator::isa` (isa.md §A1/§A6 for ST231, §B1/§B5 for ST120);
//! nothing here is a second copy of an encoding or a semantic.

use super::function::PReg;
use simulator::isa::{st120, st231, Target};
use std::collections::HashMap;
use std::sync::OnceLock;

/// A register class (register file).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegClass {
    /// General/data registers: ST231 `$r0..$r63`, ST120 40-bit `R0..R15`.
    R,
    /// ST231 branch registers `$b0..$b7`.
    B,
    /// ST120 pointer registers `P0..P15`.
    P,
    /// ST120 guards `G0..G15`.
    G,
}

impl RegClass {
    /// Suffix used in the text form (`%3:r`).
    pub fn suffix(self) -> &'static str {
        match self {
            RegClass::R => "r",
            RegClass::B => "b",
            RegClass::P => "p",
            RegClass::G => "g",
        }
    }

    pub fn from_suffix(s: &str) -> Option<RegClass> {
        Some(match s {
            "r" => RegClass::R,
            "b" => RegClass::B,
            "p" => RegClass::P,
            "g" => RegClass::G,
            _ => return None,
        })
    }
}

/// The register classes of a target.
pub fn classes(t: Target) -> &'static [RegClass] {
    match t {
        Target::St231 => &[RegClass::R, RegClass::B],
        Target::St120 => &[RegClass::R, RegClass::P, RegClass::G],
    }
}

/// Number of architectural registers in a class (0 if the target lacks the class).
pub fn num_regs(t: Target, c: RegClass) -> u8 {
    match (t, c) {
        (Target::St231, RegClass::R) => st231::NUM_GPR as u8,
        (Target::St231, RegClass::B) => st231::NUM_BR as u8,
        (Target::St120, RegClass::R | RegClass::P | RegClass::G) => st120::NUM_REGS as u8,
        _ => 0,
    }
}

/// Assembly name of a physical register.
pub fn reg_name(t: Target, r: PReg) -> String {
    match (t, r.class) {
        (Target::St231, RegClass::B) => format!("$b{}", r.num),
        (Target::St231, _) => format!("$r{}", r.num),
        (Target::St120, RegClass::R) => format!("R{}", r.num),
        (Target::St120, RegClass::P) => format!("P{}", r.num),
        (Target::St120, _) => format!("G{}", r.num),
    }
}

/// Parse a physical register name of target `t` (`$r5`, `$b1`, `R3`, `P15`, `G0`).
pub fn parse_reg(t: Target, s: &str) -> Option<PReg> {
    let (class, digits) = match t {
        Target::St231 => {
            let rest = s.strip_prefix('$')?;
            let class = match rest.as_bytes().first()? {
                b'r' => RegClass::R,
                b'b' => RegClass::B,
                _ => return None,
            };
            (class, &rest[1..])
        }
        Target::St120 => {
            let class = match s.as_bytes().first()? {
                b'R' => RegClass::R,
                b'P' => RegClass::P,
                b'G' => RegClass::G,
                _ => return None,
            };
            (class, &s[1..])
        }
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 2 {
        return None;
    }
    let num: u8 = digits.parse().ok()?;
    (num < num_regs(t, class)).then_some(PReg::new(class, num))
}

/// The stack pointer (ST231 `$r12`, ST120 `P15`).
pub fn stack_pointer(t: Target) -> PReg {
    match t {
        Target::St231 => PReg::new(RegClass::R, st231::SP),
        Target::St120 => PReg::new(RegClass::P, st120::SP),
    }
}

/// The link register (ST231 `$r63`, ST120 `P11`).
pub fn link_register(t: Target) -> PReg {
    match t {
        Target::St231 => PReg::new(RegClass::R, st231::LINK),
        Target::St120 => PReg::new(RegClass::P, st120::LINK),
    }
}

/// Registers of class `c` that a register allocator may hand out, in the order it should
/// prefer them (caller-saved first, so that leaf functions need no saves).
///
/// ST231: everything but `$r0`, SP, TP and the link register `$r63`; all eight `$b`.
/// ST120: R0..R15; P0..P14 without P11 (link), P13 (GP), P12 (static link) and P3 (the
/// indirect-jump target, ASSUMPTION: kept free for `JUMP`/`LINK`); G0..G14 (G15 is the
/// always-true guard).
pub fn allocatable(t: Target, c: RegClass) -> Vec<u8> {
    let all: Vec<u8> = match (t, c) {
        (Target::St231, RegClass::R) => (0..64u8).filter(|&r| st231::is_allocatable(r)).collect(),
        (Target::St231, RegClass::B) => (0..8).collect(),
        (Target::St120, RegClass::R) => (0..16).collect(),
        (Target::St120, RegClass::P) => (0..15)
            .filter(|&p| !matches!(p, st120::LINK | st120::GP | 12 | st120::JUMP_TARGET))
            .collect(),
        (Target::St120, RegClass::G) => (0..15).collect(),
        _ => Vec::new(),
    };
    let (mut caller, callee): (Vec<u8>, Vec<u8>) = all
        .into_iter()
        .partition(|&n| !is_callee_saved(t, PReg::new(c, n)));
    caller.extend(callee);
    caller
}

/// Whether a called function must preserve `r` (isa.md §A6, §B5).
pub fn is_callee_saved(t: Target, r: PReg) -> bool {
    match (t, r.class) {
        (Target::St231, RegClass::R) => st231::CALLEE_SAVED.contains(&r.num),
        (Target::St231, _) => false,
        (Target::St120, RegClass::R) => (4..=11).contains(&r.num),
        (Target::St120, RegClass::P) => (4..=10).contains(&r.num) || r.num == st120::GP,
        (Target::St120, RegClass::G) => (5..=14).contains(&r.num),
        (Target::St120, RegClass::B) => false,
    }
}

/// Registers a call may overwrite: every caller-saved register of every class, the link
/// register, and on ST120 G0 (isa.md §B5: CALL clobbers G0, already caller-saved).
pub fn call_clobbers(t: Target) -> &'static [PReg] {
    static ST231: OnceLock<Vec<PReg>> = OnceLock::new();
    static ST120: OnceLock<Vec<PReg>> = OnceLock::new();
    let cell = match t {
        Target::St231 => &ST231,
        Target::St120 => &ST120,
    };
    cell.get_or_init(|| {
        let mut v = Vec::new();
        for &c in classes(t) {
            for n in 0..num_regs(t, c) {
                let r = PReg::new(c, n);
                let special = r == stack_pointer(t)
                    || (t == Target::St231 && c == RegClass::R && matches!(n, 0 | 13))
                    || (t == Target::St120 && c == RegClass::G && n == st120::GUARD_TRUE);
                if !special && !is_callee_saved(t, r) {
                    v.push(r);
                }
            }
        }
        v
    })
}

/// Argument registers of class `c`, in order (ST231 `$r16..$r23`; ST120 `R0..R3` for
/// integers and `P0..P2` for pointers, separate sequences by C type, isa.md §B5).
pub fn arg_regs(t: Target, c: RegClass) -> &'static [u8] {
    match (t, c) {
        (Target::St231, RegClass::R) => &st231::ARG_REGS,
        (Target::St120, RegClass::R) => &[0, 1, 2, 3],
        (Target::St120, RegClass::P) => &[0, 1, 2],
        _ => &[],
    }
}

/// The register that returns a value of class `c` (ST231 `$r16`; ST120 `R0` or `P0`).
pub fn result_reg(t: Target, c: RegClass) -> Option<PReg> {
    match (t, c) {
        (Target::St231, RegClass::R) => Some(PReg::new(RegClass::R, 16)),
        (Target::St120, RegClass::R) => Some(PReg::new(RegClass::R, 0)),
        (Target::St120, RegClass::P) => Some(PReg::new(RegClass::P, 0)),
        _ => None,
    }
}

/// Size in bytes of a spill slot for class `c` (ST120 data registers are 40 bits wide but C
/// values live in the low 32 bits, so a word suffices).
pub fn spill_size(_t: Target, _c: RegClass) -> u32 {
    4
}

/// Unique text name of an ST120 opcode in the machine-level IR. The assembly mnemonic is
/// shared by the register and immediate forms and by all addressing modes, so the IR adds a
/// suffix: `.i` for immediate forms, the addressing mode for loads and stores
/// (`LDW+i`, `LDW!+r`, ...).
pub fn st120_op_name(op: st120::Opcode) -> String {
    use st120::{AddrMode as M, Opcode as O};
    let mode = |m: M| match m {
        M::PlusImm => "+i",
        M::MinusImm => "-i",
        M::PlusReg => "+r",
        M::MinusReg => "-r",
        M::PostIncImm => "!+i",
        M::PostDecImm => "!-i",
        M::PostIncReg => "!+r",
        M::PostDecReg => "!-r",
    };
    match op {
        O::BinI(_) | O::CmpI(..) | O::AuI(_) => format!("{}.i", op.mnemonic()),
        O::Load(_, m) | O::Store(_, m) => format!("{}{}", op.mnemonic(), mode(m)),
        O::GotoF => "GOTO.f".to_string(),
        O::JumpF => "JUMP.f".to_string(),
        _ => op.mnemonic().to_string(),
    }
}

/// Inverse of [`st120_op_name`].
pub fn st120_op_from_name(s: &str) -> Option<st120::Opcode> {
    static MAP: OnceLock<HashMap<String, st120::Opcode>> = OnceLock::new();
    MAP.get_or_init(|| {
        st120::Opcode::all()
            .into_iter()
            .filter(|o| o.is_valid())
            .map(|o| (st120_op_name(o), o))
            .collect()
    })
    .get(s)
    .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn st120_names_are_unique_and_round_trip() {
        let all: Vec<_> = st120::Opcode::all()
            .into_iter()
            .filter(|o| o.is_valid())
            .collect();
        let mut names: Vec<String> = all.iter().map(|&o| st120_op_name(o)).collect();
        for &o in &all {
            assert_eq!(st120_op_from_name(&st120_op_name(o)), Some(o), "{o:?}");
        }
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len());
    }

    #[test]
    fn register_names_round_trip() {
        for t in Target::ALL {
            for &c in classes(t) {
                for n in 0..num_regs(t, c) {
                    let r = PReg::new(c, n);
                    assert_eq!(parse_reg(t, &reg_name(t, r)), Some(r));
                }
            }
        }
        assert_eq!(parse_reg(Target::St231, "$r64"), None);
        assert_eq!(parse_reg(Target::St120, "P16"), None);
        assert_eq!(parse_reg(Target::St120, "$r1"), None);
    }

    #[test]
    fn abi_sets_are_consistent() {
        for t in Target::ALL {
            let clobbers = call_clobbers(t);
            assert!(!clobbers.contains(&stack_pointer(t)));
            assert!(clobbers.contains(&link_register(t)));
            for &c in classes(t) {
                for &a in arg_regs(t, c) {
                    assert!(clobbers.contains(&PReg::new(c, a)), "{t} {c:?} {a}");
                }
                let alloc = allocatable(t, c);
                assert!(!alloc.contains(&stack_pointer(t).num) || stack_pointer(t).class != c);
                // caller-saved registers come first
                let first_callee = alloc
                    .iter()
                    .position(|&n| is_callee_saved(t, PReg::new(c, n)));
                if let Some(i) = first_callee {
                    assert!(alloc[i..]
                        .iter()
                        .all(|&n| is_callee_saved(t, PReg::new(c, n))));
                }
            }
        }
        assert!(call_clobbers(Target::St120).contains(&PReg::new(RegClass::G, 0)));
    }
}
