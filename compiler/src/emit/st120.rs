//! ST120: one final-form machine-IR instruction → one [`isa120::Inst`] (operands in the
//! order of `OpInfo::operands()`, isa.md §B6/§B7), and the assembly text of a lowered
//! operation.
//!
//! Operand mapping (the `mir::function` contract): a `Def` operand comes from `defs`, a
//! `Use` from `uses`, a `Tied` one from `defs` (its use, in `uses`, must be the same
//! register), the guard is the last use of a `GUARDED` instruction (and of `GOTO.f` /
//! `JUMP.f`, whose guard is taken on FALSE, §B4). Immediates are as written in assembly
//! (memory offsets unscaled); `hi(@sym)` / `lo(@sym)` are resolved by the linker (MAKE takes
//! the signed upper half, MORE the lower half, §B4). Calls, `TRAP`, `RTS` and jumps may
//! carry extra ABI operands (pinned arguments): not encoded, dropped here. O(1) per
//! instruction.

use super::{Fixup, LoweredOp, MachOp};
use crate::mir::{Function, Imm, Inst, InstFlags, Opc, Operand, Reg, RegClass, SymPart};
use simulator::isa::st120::{self as isa120, Opcode, Operand as Kind, UnOp, GUARD_TRUE};
use simulator::isa::Target;

fn class_of(c: isa120::RegClass) -> RegClass {
    match c {
        isa120::RegClass::R => RegClass::R,
        isa120::RegClass::P => RegClass::P,
        isa120::RegClass::G => RegClass::G,
    }
}

fn phys(o: &Operand, want: RegClass) -> Result<u8, String> {
    match o.reg {
        Reg::P(p) if p.class == want => Ok(p.num),
        Reg::P(p) => Err(format!(
            "operand {} has the wrong register class (expected {want:?})",
            crate::mir::target::reg_name(Target::St120, p)
        )),
        Reg::V(v) => Err(format!(
            "virtual register {v} left after register allocation"
        )),
    }
}

/// Whether extra uses beyond the encoded operands are allowed (ABI operands of control
/// transfers and system calls).
fn takes_abi_operands(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Call
            | Opcode::Link
            | Opcode::Rts
            | Opcode::Trap
            | Opcode::Jump
            | Opcode::JumpF
            | Opcode::Goto
            | Opcode::GotoF
    )
}

/// Convert one ST120 target instruction.
pub fn convert(opc: Opcode, inst: &Inst) -> Result<LoweredOp, String> {
    let info = opc.info();
    let on_false = info.props.contains(isa120::OpProps::ON_FALSE);
    let guarded = inst.flags.contains(InstFlags::GUARDED) || on_false;
    let mut uses: &[Operand] = &inst.uses;
    let mut guard = GUARD_TRUE;
    if guarded {
        let (g, rest) = uses
            .split_last()
            .ok_or("a guarded operation needs its guard as the last operand")?;
        guard = phys(g, RegClass::G)?;
        uses = rest;
    }
    let mut regs = [0u8; 4];
    let (mut di, mut ui, mut k) = (0, 0, 0);
    let mut imm = 0i32;
    let mut fixup = Fixup::None;
    for kind in info.operands() {
        match *kind {
            Kind::Def(c) => {
                let d = inst.defs.get(di).ok_or("missing result")?;
                regs[k] = phys(d, class_of(c))?;
                di += 1;
                k += 1;
            }
            Kind::Use(c) => {
                let u = uses.get(ui).ok_or("missing operand")?;
                regs[k] = phys(u, class_of(c))?;
                ui += 1;
                k += 1;
            }
            Kind::Tied(c) => {
                let d = inst.defs.get(di).ok_or("missing tied result")?;
                let u = uses.get(ui).ok_or("missing tied operand")?;
                let r = phys(d, class_of(c))?;
                if phys(u, class_of(c))? != r {
                    return Err("tied operand and result are in different registers".into());
                }
                regs[k] = r;
                di += 1;
                ui += 1;
                k += 1;
            }
            Kind::Imm(_) => match &inst.imm {
                Imm::Int(v) => imm = *v,
                Imm::Sym { name, offset, part } => {
                    if info.mem.is_some() {
                        return Err("a symbol cannot be a memory offset on ST120".into());
                    }
                    fixup = Fixup::Sym {
                        name: name.clone(),
                        offset: *offset,
                        part: *part,
                    };
                }
                Imm::Frame { .. } => {
                    return Err("unresolved frame offset (run the frame pass first)".into())
                }
                _ => return Err("expected an integer or symbol immediate".into()),
            },
            Kind::Target => {
                fixup = match (&inst.imm, opc) {
                    (Imm::Func(name), Opcode::Call) => Fixup::Func(name.clone()),
                    (Imm::Block(b), Opcode::Goto | Opcode::GotoF) => Fixup::Block(*b),
                    _ => return Err("`GOTO` needs a block target, `CALL` a function".into()),
                }
            }
        }
    }
    if di != inst.defs.len() && !takes_abi_operands(opc) {
        return Err(format!("expected {di} results, found {}", inst.defs.len()));
    }
    if ui != uses.len() && !takes_abi_operands(opc) {
        return Err(format!(
            "expected {ui} register operands, found {}",
            uses.len()
        ));
    }
    let mut mi = isa120::Inst::new(opc, &regs[..k], imm);
    mi.guard = guard;
    mi.validate().map_err(|e| e.to_string())?;
    Ok(LoweredOp {
        op: MachOp::St120(mi),
        fixup,
        flags: inst.flags,
    })
}

/// The target move of a `copy` by register class: `MOVE` (R), `MOVEA` (P), `MOVEG` (G)
/// (isa.md §B6); a `GUARDED` copy keeps its guard (last use).
pub fn lower_copy(f: &Function, inst: &Inst) -> Result<LoweredOp, String> {
    let (Some(d), Some(s)) = (inst.defs.first(), inst.uses.first()) else {
        return Err("copy needs one result and one operand".into());
    };
    let class = f.reg_class(d.reg);
    if f.reg_class(s.reg) != class {
        return Err("copy between register classes (use COPYA/COPYD)".into());
    }
    let opc = match class {
        RegClass::R => Opcode::Un(UnOp::Move),
        RegClass::P => Opcode::MoveA,
        RegClass::G => Opcode::MoveG,
        RegClass::B => return Err("no B registers on ST120".into()),
    };
    let mut tmp = inst.clone();
    tmp.opc = Opc::St120(opc);
    convert(opc, &tmp)
}

/// Dispatch for one instruction of an ST120 function.
pub fn lower_inst(f: &Function, inst: &Inst) -> Result<LoweredOp, String> {
    match inst.opc {
        Opc::St120(o) => convert(o, inst),
        Opc::Copy => lower_copy(f, inst),
        Opc::St231(_) => Err("an ST231 operation in an ST120 function".into()),
        _ => Err("pseudo-operation left at emission".into()),
    }
}

/// The immediate value of a symbol part (isa.md §B4: MAKE sign-extends the upper half, MORE
/// appends the lower one), or an error when it does not fit the operand.
pub fn sym_part_value(addr: i64, part: SymPart) -> i64 {
    match part {
        SymPart::Full => addr,
        SymPart::Hi16 => i64::from((addr >> 16) as i16),
        SymPart::Lo16 => addr & 0xFFFF,
    }
}

/// Assembly text of one lowered operation; `target` names a `Block`/`Func` fixup.
pub fn op_text(l: &LoweredOp, target: &dyn Fn(&Fixup) -> String) -> String {
    let MachOp::St120(inst) = l.op else {
        return String::new();
    };
    let info = inst.opcode.info();
    let mut prefix = String::new();
    if info.props.contains(isa120::OpProps::ON_FALSE) {
        prefix = format!("G{}! ", inst.guard);
    } else if inst.guard != GUARD_TRUE {
        prefix = format!("G{}? ", inst.guard);
    }
    let imm_text = match &l.fixup {
        Fixup::None => {
            return simulator::asm::st120::format_inst(&inst, 0, &|_| None);
        }
        Fixup::Block(_) | Fixup::Func(_) => target(&l.fixup),
        Fixup::Sym { name, offset, part } => {
            let s = super::st231::sym_text(name, *offset);
            match part {
                SymPart::Full => s,
                SymPart::Hi16 => format!("%hi({s})"),
                SymPart::Lo16 => format!("%lo({s})"),
            }
        }
    };
    let mut parts = Vec::new();
    let mut k = 0;
    for o in info.operands() {
        match o {
            Kind::Def(c) | Kind::Use(c) | Kind::Tied(c) => {
                parts.push(format!("{}{}", c.letter(), inst.regs[k]));
                k += 1;
            }
            Kind::Imm(_) | Kind::Target => parts.push(imm_text.clone()),
        }
    }
    format!("{prefix}{} {}", info.mnemonic, parts.join(", "))
}
