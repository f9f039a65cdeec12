//! Text form of the machine-level IR: the printer. `mir::parse` reads the same form back
//! (print → parse gives an equal function).
//!
//! ```text
//! mfunc @dot st231 {
//!   frame f0 size 40 align 4 local "buf"
//!   outgoing 16
//!   layout size 64 offsets [16]
//! b0:
//!   %0:r^$r16, %1:r^$r17 = .input
//!   %2:r = add %0, #5
//!   %3:b = cmplt %2, %1
//!   br %3, b2
//!   goto b1
//! b1:
//!   %4:r = ldw %0, f0+4 !spill_load
//!   %5:r = copy %4 !copy
//!   %6:r, %7:r = parcopy %5, %4 !copy
//!   %8:r^$r16 = call %6^$r16, fn @g
//!   goto b2
//! b2:
//!   %9:r = phi [b0: %2], [b1: %8]
//!   .output %9^$r16
//!   return
//! }
//! ```
//!
//! Grammar of an instruction line: `[DEFS =] [GUARD?] NAME [USES] [, IMM] {!flag}` where a def
//! is `%N:class[^PIN]` or a physical register, a use is `%N[^PIN]` or a physical register,
//! a pin is a physical register or `%N`, GUARD is the guard use of a guarded ST120 operation,
//! NAME is the ST231 mnemonic, the ST120 IR name (`mir::target::st120_op_name`) or a pseudo
//! (`phi`, `parcopy`, `copy`, `psi`, `.input`, `.output`), and IMM is `#int`, `@sym+off`,
//! `hi(@sym+off)`, `lo(@sym+off)`, `bN`, `fn @name` or `fN+off`. Phi uses are written
//! `[bN: %u]`; psi uses `[%guard: %value]`. The `layout` line (frame size, object offsets and
//! the word `finalized`) appears only once the frame pass has laid out the frame.

use super::function::*;
use super::target::{reg_name, st120_op_name};
use simulator::isa::Target;
use std::fmt::{self, Write};

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for g in &self.globals {
            crate::ir::print::write_global(f, g)?;
        }
        for (i, func) in self.functions.iter().enumerate() {
            if i > 0 || !self.globals.is_empty() {
                writeln!(f)?;
            }
            write!(f, "{func}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "mfunc @{} {} {{", self.name, self.target)?;
        for (i, o) in self.frame.objects.iter().enumerate() {
            write!(f, "  frame f{i} size {} align {} ", o.size, o.align)?;
            match o.kind {
                FrameKind::Local => write!(f, "local")?,
                FrameKind::Spill => write!(f, "spill")?,
                FrameKind::Save => write!(f, "save")?,
                FrameKind::IncomingArg(n) => write!(f, "incoming {n}")?,
            }
            writeln!(f, " {:?}", o.name)?;
        }
        if self.frame.outgoing_size != 0 {
            writeln!(f, "  outgoing {}", self.frame.outgoing_size)?;
        }
        write_layout(f, &self.frame)?;
        for b in self.block_ids() {
            writeln!(f, "{b}:")?;
            for inst in &self.block(b).insts {
                write!(f, "  ")?;
                write_inst(f, self, inst)?;
                writeln!(f)?;
            }
        }
        writeln!(f, "}}")
    }
}

/// The frame layout line `layout size N offsets [o0, o1, ...] [finalized]`, printed once the
/// frame pass has set any of these (so that final-form functions round-trip through text).
fn write_layout(f: &mut impl Write, frame: &Frame) -> fmt::Result {
    if !frame.finalized && frame.size == 0 && frame.offsets.is_empty() {
        return Ok(());
    }
    write!(f, "  layout size {} offsets [", frame.size)?;
    for (i, o) in frame.offsets.iter().enumerate() {
        if i > 0 {
            write!(f, ", ")?;
        }
        write!(f, "{o}")?;
    }
    write!(f, "]")?;
    if frame.finalized {
        write!(f, " finalized")?;
    }
    writeln!(f)
}

/// The IR name of an instruction's operation.
pub fn opc_name(opc: Opc) -> String {
    match opc {
        Opc::St231(o) => o.mnemonic().to_string(),
        Opc::St120(o) => st120_op_name(o),
        Opc::Phi => "phi".into(),
        Opc::ParCopy => "parcopy".into(),
        Opc::Copy => "copy".into(),
        Opc::Psi => "psi".into(),
        Opc::Input => ".input".into(),
        Opc::Output => ".output".into(),
    }
}

fn write_reg(f: &mut impl Write, t: Target, r: Reg) -> fmt::Result {
    match r {
        Reg::V(v) => write!(f, "{v}"),
        Reg::P(p) => f.write_str(&reg_name(t, p)),
    }
}

fn write_pin(f: &mut impl Write, t: Target, pin: Option<Pin>) -> fmt::Result {
    match pin {
        None => Ok(()),
        Some(Pin::Phys(p)) => write!(f, "^{}", reg_name(t, p)),
        Some(Pin::Var(v)) => write!(f, "^{v}"),
    }
}

fn write_def(f: &mut impl Write, func: &Function, o: &Operand) -> fmt::Result {
    write_reg(f, func.target, o.reg)?;
    if let Reg::V(v) = o.reg {
        if v.index() < func.vregs.len() {
            write!(f, ":{}", func.class_of(v).suffix())?;
        }
    }
    write_pin(f, func.target, o.pin)
}

fn write_use(f: &mut impl Write, t: Target, o: &Operand) -> fmt::Result {
    write_reg(f, t, o.reg)?;
    write_pin(f, t, o.pin)
}

fn write_sym(f: &mut impl Write, name: &str, offset: i32) -> fmt::Result {
    write!(f, "@{name}")?;
    if offset != 0 {
        write!(f, "{offset:+}")?;
    }
    Ok(())
}

/// Prints an immediate (nothing for `Imm::None` and `Imm::Blocks`).
pub fn write_imm(f: &mut impl Write, imm: &Imm) -> fmt::Result {
    match imm {
        Imm::None | Imm::Blocks(_) => Ok(()),
        Imm::Int(v) => write!(f, "#{v}"),
        Imm::Sym { name, offset, part } => match part {
            SymPart::Full => write_sym(f, name, *offset),
            SymPart::Hi16 => {
                write!(f, "hi(")?;
                write_sym(f, name, *offset)?;
                write!(f, ")")
            }
            SymPart::Lo16 => {
                write!(f, "lo(")?;
                write_sym(f, name, *offset)?;
                write!(f, ")")
            }
        },
        Imm::Block(b) => write!(f, "{b}"),
        Imm::Func(name) => write!(f, "fn @{name}"),
        Imm::Frame { idx, offset } => {
            write!(f, "{idx}")?;
            if *offset != 0 {
                write!(f, "{offset:+}")?;
            }
            Ok(())
        }
    }
}

/// Prints one instruction without indentation or newline.
pub fn write_inst(f: &mut impl Write, func: &Function, inst: &Inst) -> fmt::Result {
    let t = func.target;
    for (i, d) in inst.defs.iter().enumerate() {
        if i > 0 {
            write!(f, ", ")?;
        }
        write_def(f, func, d)?;
    }
    if !inst.defs.is_empty() {
        write!(f, " = ")?;
    }
    let guard = inst.guard();
    let uses: &[Operand] = if guard.is_some() {
        &inst.uses[..inst.uses.len() - 1]
    } else {
        &inst.uses
    };
    if let Some(g) = guard {
        write_use(f, t, g)?;
        write!(f, "? ")?;
    }
    f.write_str(&opc_name(inst.opc))?;
    let mut sep = " ";
    match inst.opc {
        Opc::Phi => {
            let blocks = inst.phi_blocks();
            for (i, u) in uses.iter().enumerate() {
                write!(f, "{sep}[")?;
                match blocks.get(i) {
                    Some(b) => write!(f, "{b}")?,
                    None => write!(f, "b?")?,
                }
                write!(f, ": ")?;
                write_use(f, t, u)?;
                write!(f, "]")?;
                sep = ", ";
            }
        }
        Opc::Psi => {
            for pair in uses.chunks(2) {
                write!(f, "{sep}[")?;
                write_use(f, t, &pair[0])?;
                if let Some(v) = pair.get(1) {
                    write!(f, ": ")?;
                    write_use(f, t, v)?;
                }
                write!(f, "]")?;
                sep = ", ";
            }
        }
        _ => {
            for u in uses {
                write!(f, "{sep}")?;
                write_use(f, t, u)?;
                sep = ", ";
            }
        }
    }
    if !matches!(inst.imm, Imm::None | Imm::Blocks(_)) {
        write!(f, "{sep}")?;
        write_imm(f, &inst.imm)?;
    }
    for (flag, name) in [
        (InstFlags::COPY, "copy"),
        (InstFlags::SPILL_LOAD, "spill_load"),
        (InstFlags::SPILL_STORE, "spill_store"),
        (InstFlags::SWAP, "swap"),
        (InstFlags::FRAME, "frame"),
        (InstFlags::REMAT, "remat"),
        (InstFlags::INSERTED, "inserted"),
        (InstFlags::PINNED, "pinned"),
    ] {
        if inst.flags.contains(flag) {
            write!(f, " !{name}")?;
        }
    }
    Ok(())
}

/// One instruction as a string (for diagnostics).
pub fn inst_to_string(func: &Function, inst: &Inst) -> String {
    let mut s = String::new();
    let _ = write_inst(&mut s, func, inst);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::target::RegClass;
    use simulator::isa::st231::Opcode as O;

    #[test]
    fn prints_the_documented_form() {
        let mut f = Function::new("f", Target::St231);
        let a = f.new_vreg(RegClass::R);
        let b = f.new_vreg(RegClass::R);
        let c = f.new_vreg(RegClass::B);
        let r16 = PReg::new(RegClass::R, 16);
        let b1 = f.new_block();
        f.push(
            BlockId(0),
            Inst::new(
                Opc::Input,
                vec![Operand::pinned(a, Pin::Phys(r16))],
                vec![],
                Imm::None,
            ),
        );
        f.push(
            BlockId(0),
            Inst::new(
                Opc::St231(O::Add),
                vec![b.into()],
                vec![a.into()],
                Imm::Int(5),
            ),
        );
        f.push(
            BlockId(0),
            Inst::new(
                Opc::St231(O::Cmplt),
                vec![c.into()],
                vec![b.into(), a.into()],
                Imm::None,
            ),
        );
        f.push(
            BlockId(0),
            Inst::new(Opc::St231(O::Br), vec![], vec![c.into()], Imm::Block(b1)),
        );
        f.push(
            BlockId(0),
            Inst::new(Opc::St231(O::Goto), vec![], vec![], Imm::Block(b1)),
        );
        f.push(
            b1,
            Inst::new(
                Opc::Output,
                vec![],
                vec![Operand::pinned(b, Pin::Phys(r16))],
                Imm::None,
            ),
        );
        let text = f.to_string();
        assert!(text.contains("%0:r^$r16 = .input"), "{text}");
        assert!(text.contains("%1:r = add %0, #5"), "{text}");
        assert!(text.contains("%2:b = cmplt %1, %0"), "{text}");
        assert!(text.contains("br %2, b1"), "{text}");
        assert!(text.contains(".output %1^$r16"), "{text}");
        assert_eq!(f.block(BlockId(0)).successors(), vec![b1]);
    }
}
