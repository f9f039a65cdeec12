//! ST231: one final-form machine-IR instruction → one [`isa231::Op`] (isa.md §A3 field
//! use, `simulator::isa::st231::opcode::Op`), and the assembly text of a lowered operation.
//!
//! Operand order (the `mir::function` contract): `uses[0]` is the `src1` field and
//! `uses[1]` the `src2` field, so `sub` keeps the syllable's order (`src2 - src1`, isa.md
//! §A3). Immediates: `Imm::Int` as is, `Imm::Sym` (whole address) resolved by the linker
//! with a forced extension syllable. Calls, `syscall` and `return` may carry extra ABI
//! operands (pinned arguments/results): they are not fields of the syllable and are
//! dropped here (the scheduler treats calls and system calls as barriers). O(1) per
//! instruction.

use super::{Fixup, LoweredOp, MachOp};
use crate::mir::{Function, Imm, Inst, Opc, Operand, Reg, RegClass, SymPart};
use simulator::isa::st231::{self as isa231, Dest, Format, Op, Opcode, Src};

/// A physical register of class `want`, or an error naming the problem.
fn phys(o: &Operand, want: RegClass) -> Result<u8, String> {
    match o.reg {
        Reg::P(p) if p.class == want => Ok(p.num),
        Reg::P(p) => Err(format!(
            "operand {} has the wrong register class (expected {want:?})",
            crate::mir::target::reg_name(simulator::isa::Target::St231, p)
        )),
        Reg::V(v) => Err(format!(
            "virtual register {v} left after register allocation"
        )),
    }
}

fn use_at(inst: &Inst, i: usize, class: RegClass) -> Result<u8, String> {
    let o = inst
        .uses
        .get(i)
        .ok_or_else(|| format!("missing operand {}", i + 1))?;
    phys(o, class)
}

fn def_at(inst: &Inst, i: usize, class: RegClass) -> Result<u8, String> {
    let o = inst
        .defs
        .get(i)
        .ok_or_else(|| format!("missing result {}", i + 1))?;
    phys(o, class)
}

/// The value of an immediate field: an integer, or a placeholder 0 with a symbol fixup.
fn imm_value(imm: &Imm) -> Result<(i32, Fixup), String> {
    match imm {
        Imm::Int(v) => Ok((*v, Fixup::None)),
        Imm::Sym {
            name,
            offset,
            part: SymPart::Full,
        } => Ok((
            0,
            Fixup::Sym {
                name: name.clone(),
                offset: *offset,
                part: SymPart::Full,
            },
        )),
        Imm::Sym { .. } => Err("ST231 immediates take the whole symbol address".into()),
        Imm::Frame { .. } => Err("unresolved frame offset (run the frame pass first)".into()),
        _ => Err("expected an integer or symbol immediate".into()),
    }
}

/// The second source of a binary/select operation: `uses[k]` or the immediate.
fn second_source(inst: &Inst, k: usize) -> Result<(Src, Fixup), String> {
    match (inst.uses.get(k), &inst.imm) {
        (Some(o), Imm::None) => Ok((Src::R(phys(o, RegClass::R)?), Fixup::None)),
        (None, Imm::None) => Err("missing second operand".into()),
        (Some(_), _) => Err("both a second register and an immediate".into()),
        (None, imm) => {
            let (v, fx) = imm_value(imm)?;
            Ok((Src::Imm(v), fx))
        }
    }
}

fn expect_uses(inst: &Inst, n: usize) -> Result<(), String> {
    if inst.uses.len() == n {
        Ok(())
    } else {
        Err(format!(
            "expected {n} register operands, found {}",
            inst.uses.len()
        ))
    }
}

/// Convert one target instruction (not a pseudo) of an ST231 function.
pub fn convert(opc: Opcode, inst: &Inst) -> Result<LoweredOp, String> {
    let info = opc.info();
    let (op, fixup) = match info.format {
        Format::Nop => (Op::nop(), Fixup::None),
        Format::Binary => {
            let dest = match inst.defs.first().map(|d| d.reg) {
                Some(Reg::P(p)) if p.class == RegClass::B => Dest::B(p.num),
                Some(_) => Dest::R(def_at(inst, 0, RegClass::R)?),
                None => return Err("missing result".into()),
            };
            let s1 = use_at(inst, 0, RegClass::R)?;
            let (s2, fx) = second_source(inst, 1)?;
            if inst.uses.len() > 2 {
                return Err("too many operands".into());
            }
            (Op::binary(opc, dest, s1, s2), fx)
        }
        Format::Monadic => {
            expect_uses(inst, 1)?;
            let d = def_at(inst, 0, RegClass::R)?;
            (
                Op::monadic(opc, d, use_at(inst, 0, RegClass::R)?),
                Fixup::None,
            )
        }
        Format::Select => {
            let d = def_at(inst, 0, RegClass::R)?;
            let b = use_at(inst, 0, RegClass::B)?;
            let s1 = use_at(inst, 1, RegClass::R)?;
            let (s2, fx) = second_source(inst, 2)?;
            if inst.uses.len() > 3 {
                return Err("too many operands".into());
            }
            (Op::select(opc, d, b, s1, s2), fx)
        }
        Format::Carry => {
            expect_uses(inst, 3)?;
            let d = def_at(inst, 0, RegClass::R)?;
            let bd = def_at(inst, 1, RegClass::B)?;
            let b = use_at(inst, 0, RegClass::B)?;
            let s1 = use_at(inst, 1, RegClass::R)?;
            let s2 = use_at(inst, 2, RegClass::R)?;
            (Op::carry(opc, d, bd, b, s1, s2), Fixup::None)
        }
        Format::Load => {
            expect_uses(inst, 1)?;
            let d = def_at(inst, 0, RegClass::R)?;
            let (off, fx) = imm_value(&inst.imm)?;
            (Op::load(opc, d, use_at(inst, 0, RegClass::R)?, off), fx)
        }
        Format::Store => {
            expect_uses(inst, 2)?;
            let (off, fx) = imm_value(&inst.imm)?;
            let base = use_at(inst, 0, RegClass::R)?;
            (Op::store(opc, base, off, use_at(inst, 1, RegClass::R)?), fx)
        }
        Format::Prefetch => {
            expect_uses(inst, 1)?;
            let (off, fx) = imm_value(&inst.imm)?;
            (Op::prefetch(use_at(inst, 0, RegClass::R)?, off), fx)
        }
        Format::Branch => {
            expect_uses(inst, 1)?;
            let Imm::Block(t) = inst.imm else {
                return Err("a branch needs a block target".into());
            };
            (
                Op::branch(opc, use_at(inst, 0, RegClass::B)?, 0),
                Fixup::Block(t),
            )
        }
        Format::Jump => {
            let fx = match (&inst.imm, opc) {
                (Imm::Block(t), Opcode::Goto) => Fixup::Block(*t),
                (Imm::Func(name), Opcode::Call) => Fixup::Func(name.clone()),
                _ => return Err("`goto` needs a block target, `call` a function".into()),
            };
            (Op::jump(opc, 0), fx)
        }
        Format::Indirect => (Op::jump(opc, 0), Fixup::None),
        Format::Syscall => match inst.imm {
            Imm::Int(n) if (0..1 << 21).contains(&n) => (Op::syscall(n as u32), Fixup::None),
            _ => return Err("syscall needs a number 0..2^21-1".into()),
        },
    };
    if info.props.contains(isa231::OpProps::NOLINK) && op.dest == Dest::R(isa231::LINK) {
        return Err(format!("{opc} may not write $r63"));
    }
    Ok(LoweredOp {
        op: MachOp::St231(op),
        fixup,
        flags: inst.flags,
    })
}

/// The target move for a `copy` (isa.md §A3: `mov $d = $s` is `add $d = $r0, $s`).
pub fn lower_copy(f: &Function, inst: &Inst) -> Result<LoweredOp, String> {
    let (Some(d), Some(s)) = (inst.defs.first(), inst.uses.first()) else {
        return Err("copy needs one result and one operand".into());
    };
    if f.reg_class(d.reg) != RegClass::R || f.reg_class(s.reg) != RegClass::R {
        return Err("ST231 has no branch-register copy (`$b` values must not be copied)".into());
    }
    let op = Op::binary(
        Opcode::Add,
        Dest::R(phys(d, RegClass::R)?),
        0,
        Src::R(phys(s, RegClass::R)?),
    );
    Ok(LoweredOp {
        op: MachOp::St231(op),
        fixup: Fixup::None,
        flags: inst.flags,
    })
}

/// Dispatch for one instruction of an ST231 function (pseudos other than `copy` are the
/// caller's business).
pub fn lower_inst(f: &Function, inst: &Inst) -> Result<LoweredOp, String> {
    match inst.opc {
        Opc::St231(o) => convert(o, inst),
        Opc::Copy => lower_copy(f, inst),
        Opc::St120(_) => Err("an ST120 operation in an ST231 function".into()),
        _ => Err("pseudo-operation left at emission".into()),
    }
}

/// `sym`, `sym+4`, `sym-4`.
pub fn sym_text(name: &str, offset: i32) -> String {
    match offset {
        0 => name.to_string(),
        o if o > 0 => format!("{name}+{o}"),
        o => format!("{name}{o}"),
    }
}

/// Assembly text of one lowered operation; `target` names the label of a `Block` or
/// `Func` fixup.
pub fn op_text(l: &LoweredOp, target: &dyn Fn(&Fixup) -> String) -> String {
    let MachOp::St231(op) = l.op else {
        return String::new();
    };
    let mn = op.opc.mnemonic();
    let dest = match op.dest {
        Dest::R(r) => format!("$r{r}"),
        Dest::B(b) => format!("$b{b}"),
        Dest::None => String::new(),
    };
    match &l.fixup {
        Fixup::None => simulator::asm::st231::format_op(&op, 0),
        Fixup::Block(_) | Fixup::Func(_) => match op.opc.info().format {
            Format::Branch => format!("{mn} $b{}, {}", op.b, target(&l.fixup)),
            _ => format!("{mn} {}", target(&l.fixup)),
        },
        Fixup::Sym { name, offset, .. } => {
            let s = sym_text(name, *offset);
            match op.opc.info().format {
                Format::Binary if op.opc == Opcode::Sub => {
                    format!("sub {dest} = {s}, $r{}", op.s1)
                }
                Format::Binary => format!("{mn} {dest} = $r{}, {s}", op.s1),
                Format::Select => format!("{mn} {dest} = $b{}, $r{}, {s}", op.b, op.s1),
                Format::Load => format!("{mn} {dest} = {s}[$r{}]", op.s1),
                Format::Store => match op.s2 {
                    Src::R(v) => format!("{mn} {s}[$r{}] = $r{v}", op.s1),
                    _ => String::new(),
                },
                Format::Prefetch => format!("pft {s}[$r{}]", op.s1),
                _ => simulator::asm::st231::format_op(&op, 0),
            }
        }
    }
}
