//! Text form of the IR: the printer. The grammar is documented in [`super::parse`]; printing
//! then parsing gives back an equal module.

use super::*;
use std::fmt::{self, Write};

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for g in &self.globals {
            write_global(f, g)?;
            first = false;
        }
        for func in &self.functions {
            if !first {
                writeln!(f)?;
            }
            write!(f, "{func}")?;
            first = false;
        }
        Ok(())
    }
}

pub(crate) fn write_global(f: &mut impl Write, g: &Global) -> fmt::Result {
    write!(f, "global @{} size {} align {}", g.name, g.size, g.align)?;
    if g.readonly {
        write!(f, " const")?;
    }
    if g.init.is_empty() {
        writeln!(f, " = zero")?;
    } else {
        write!(f, " = x\"")?;
        for b in &g.init {
            write!(f, "{b:02x}")?;
        }
        writeln!(f, "\"")?;
    }
    for r in &g.relocs {
        writeln!(f, "  reloc {} @{}{:+}", r.offset, r.symbol, r.addend)?;
    }
    Ok(())
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "func @{}(", self.name)?;
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{}:{}", p, self.value_ty(*p).name())?;
        }
        write!(f, ")")?;
        if let Some(t) = self.ret {
            write!(f, " -> {}", t.name())?;
        }
        writeln!(f, " {{")?;
        for (i, s) in self.slots.iter().enumerate() {
            writeln!(
                f,
                "  slot s{} size {} align {} {:?}",
                i, s.size, s.align, s.name
            )?;
        }
        for b in self.block_ids() {
            writeln!(f, "{b}:")?;
            let block = self.block(b);
            for inst in &block.insts {
                write!(f, "  ")?;
                write_inst(f, self, inst)?;
                writeln!(f)?;
            }
            write!(f, "  ")?;
            write_term(f, &block.term)?;
            writeln!(f)?;
        }
        writeln!(f, "}}")
    }
}

/// Prints one instruction (without indentation or newline).
pub fn write_inst(f: &mut impl Write, func: &Function, inst: &Inst) -> fmt::Result {
    if let Some(d) = inst.dst {
        write!(f, "{}:{} = ", d, func.value_ty(d).name())?;
    }
    match &inst.op {
        Op::Const(c) => write!(f, "const {c}"),
        Op::Copy(a) => write!(f, "copy {a}"),
        Op::Bin(op, a, b) => write!(f, "{} {a}, {b}", op.name()),
        Op::Un(op, a) => write!(f, "{} {a}", op.name()),
        Op::Cmp(op, a, b) => write!(f, "cmp.{} {a}, {b}", op.name()),
        Op::Select(c, a, b) => write!(f, "select {c}, {a}, {b}"),
        Op::SymAddr(s, off) => write!(f, "addr @{s}{off:+}"),
        Op::SlotAddr(s) => write!(f, "slot {s}"),
        Op::Load { ty, addr, volatile } => {
            write!(f, "load.{}{} {addr}", ty.name(), vol(*volatile))
        }
        Op::Store {
            ty,
            addr,
            value,
            volatile,
        } => write!(f, "store.{}{} {addr}, {value}", ty.name(), vol(*volatile)),
        Op::Call { callee, args } => {
            write!(f, "call @{callee}(")?;
            write_list(f, args.iter())?;
            write!(f, ")")
        }
        Op::Phi(args) => {
            write!(f, "phi ")?;
            for (i, (b, v)) in args.iter().enumerate() {
                if i > 0 {
                    write!(f, ", ")?;
                }
                write!(f, "[{b}: {v}]")?;
            }
            Ok(())
        }
    }
}

fn vol(v: bool) -> &'static str {
    if v {
        ".volatile"
    } else {
        ""
    }
}

fn write_list<T: fmt::Display>(f: &mut impl Write, items: impl Iterator<Item = T>) -> fmt::Result {
    for (i, x) in items.enumerate() {
        if i > 0 {
            write!(f, ", ")?;
        }
        write!(f, "{x}")?;
    }
    Ok(())
}

/// Prints a terminator (without indentation or newline).
pub fn write_term(f: &mut impl Write, t: &Terminator) -> fmt::Result {
    match t {
        Terminator::Jump(b) => write!(f, "jmp {b}"),
        Terminator::Branch { cond, then_, else_ } => write!(f, "br {cond}, {then_}, {else_}"),
        Terminator::Return(Some(v)) => write!(f, "ret {v}"),
        Terminator::Return(None) => write!(f, "ret"),
        Terminator::Unreachable => write!(f, "unreachable"),
    }
}

/// One instruction as a string, for diagnostics and traces.
pub fn inst_to_string(func: &Function, inst: &Inst) -> String {
    let mut s = String::new();
    let _ = write_inst(&mut s, func, inst);
    s
}
