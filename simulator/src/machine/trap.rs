//! Traps: the ways a guest program can stop abnormally. A trap names its cause, the program
//! counter, the enclosing function (from the symbol table) and the cycle. The simulators
//! never panic on guest input; every fault becomes a [`Trap`].

use std::fmt;

/// Cause of a trap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TrapKind {
    /// Access outside mapped memory (below the code base or beyond `mem_size`).
    BadAddress { addr: u32 },
    /// Store into the code section (code is read-only; ASSUMPTION: no self-modifying code).
    WriteToCode { addr: u32 },
    /// Access of `size` bytes at an address not a multiple of `size` (isa.md A4 ASSUMPTION).
    Misaligned { addr: u32, size: u32 },
    /// The word at the program counter is not a valid operation.
    IllegalEncoding { word: u32 },
    /// A bundle / issue group that breaks the issue rules (too many syllables, two memory
    /// operations, a control operation not first, a dangling long immediate, ...).
    IllegalBundle { reason: &'static str },
    /// Control transfer to an address that is not the start of a bundle in the code.
    BadJump { addr: u32 },
    /// The cycle budget (`max_cycles`) ran out.
    CycleBudget,
    /// Calls nested deeper than `max_call_depth`.
    CallDepth,
    /// Unknown system-call number.
    BadSyscall { n: u32 },
    /// The program printed more than `max_output` bytes.
    OutputLimit,
    /// The object could not be loaded (does not fit in memory, bad layout ...).
    BadObject(String),
    /// Something this simulator does not model.
    Unsupported(&'static str),
    /// The run was stopped from outside ([`crate::machine::interrupt`], e.g. on Ctrl-C); the
    /// counters hold what ran until then.
    Interrupted,
}

impl fmt::Display for TrapKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrapKind::BadAddress { addr } => write!(f, "bad address {addr:#010x}"),
            TrapKind::WriteToCode { addr } => write!(f, "store into code at {addr:#010x}"),
            TrapKind::Misaligned { addr, size } => {
                write!(f, "misaligned {size}-byte access at {addr:#010x}")
            }
            TrapKind::IllegalEncoding { word } => write!(f, "illegal encoding {word:#010x}"),
            TrapKind::IllegalBundle { reason } => write!(f, "illegal bundle: {reason}"),
            TrapKind::BadJump { addr } => write!(f, "jump to {addr:#010x} outside the code"),
            TrapKind::CycleBudget => write!(f, "cycle budget exhausted"),
            TrapKind::CallDepth => write!(f, "call depth limit exceeded"),
            TrapKind::BadSyscall { n } => write!(f, "unknown system call {n}"),
            TrapKind::OutputLimit => write!(f, "output limit exceeded"),
            TrapKind::BadObject(why) => write!(f, "cannot load object: {why}"),
            TrapKind::Unsupported(what) => write!(f, "unsupported: {what}"),
            TrapKind::Interrupted => write!(f, "interrupted"),
        }
    }
}

/// A trap with its place: program counter, function and cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trap {
    pub kind: TrapKind,
    /// Address of the bundle / instruction that trapped.
    pub pc: u32,
    /// Name of the function symbol containing `pc`, if any.
    pub function: Option<String>,
    /// Cycle at which the trap happened.
    pub cycle: u64,
}

impl Trap {
    /// A trap that happened before execution started (loading, decoding).
    pub fn at_load(kind: TrapKind) -> Trap {
        Trap {
            kind,
            pc: 0,
            function: None,
            cycle: 0,
        }
    }
}

impl fmt::Display for Trap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "trap: {} at pc {:#010x}", self.kind, self.pc)?;
        match &self.function {
            Some(name) => write!(f, " in function `{name}`")?,
            None => write!(f, " (no function)")?,
        }
        write!(f, ", cycle {}", self.cycle)
    }
}

impl std::error::Error for Trap {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_place() {
        let t = Trap {
            kind: TrapKind::Misaligned {
                addr: 0x2002,
                size: 4,
            },
            pc: 0x1010,
            function: Some("main".into()),
            cycle: 42,
        };
        assert_eq!(
            t.to_string(),
            "trap: misaligned 4-byte access at 0x00002002 at pc 0x00001010 in function `main`, cycle 42"
        );
    }
}
