//! Emission: final-form machine functions → target operations → encoded, linked
//! [`simulator::object::Object`] (or assembly text in the simulator assembler's syntax).
//!
//! The stages, one module each:
//! * [`lower`]: the pseudo-operations still present in final form are lowered — `copy`
//!   becomes the target move (ST231 `add $d = $r0, $s`, printed `mov`, isa.md §A3; ST120
//!   `MOVE`/`MOVEA`/`MOVEG` by register class, §B6), `.input`/`.output` markers are dropped,
//!   a `goto` to the next block in layout is dropped; anything that must not survive to
//!   this point (phi, parallel copy, psi, a virtual register, an unresolved frame offset) is
//!   an [`EmitError`];
//! * [`st231`] / [`st120`]: one machine-IR instruction → one simulator operation
//!   ([`MachOp`]) plus the symbolic part resolved at link time ([`Fixup`]);
//! * `crate::sched` groups the lowered operations of each block into bundles;
//! * [`link`]: layout (functions in module order, blocks in index order, data after the
//!   code aligned to 16, bss after the data aligned to 8 — the conventions of
//!   `simulator::asm::driver`), branch/call/symbol resolution, encoding with the
//!   simulator's encoders, symbols and the copy/spill annotation table;
//! * [`asm`]: the same program as assembly text; `simulator::asm::assemble` of that text
//!   gives an identical object (tested).
//!
//! Invariant: every bundle the linker encodes passed `st231::issue::check_bundle` /
//! `st120::issue::check_group` (the scheduler checks when it forms bundles; the linker
//! checks again with the final syllable positions).

pub mod asm;
pub mod link;
pub mod lower;
pub mod st120;
pub mod st231;

use crate::mir::{BlockId, InstFlags, SymPart};
use simulator::isa::{st120 as isa120, st231 as isa231};
use simulator::object::OpFlags;
use std::fmt;

pub use asm::asm_text;
pub use link::{link_mir_module, link_module, link_module_stats, LinkStats};

/// Why emission failed: the function and block (when known) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmitError {
    pub function: Option<String>,
    pub block: Option<BlockId>,
    pub message: String,
}

impl EmitError {
    /// An error not tied to a function.
    pub fn new(message: impl Into<String>) -> EmitError {
        EmitError {
            function: None,
            block: None,
            message: message.into(),
        }
    }

    /// An error in `function`, block `block`.
    pub fn at(function: &str, block: Option<BlockId>, message: impl Into<String>) -> EmitError {
        EmitError {
            function: Some(function.to_string()),
            block,
            message: message.into(),
        }
    }
}

impl fmt::Display for EmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.function, self.block) {
            (Some(func), Some(b)) => write!(f, "@{func} {b}: {}", self.message),
            (Some(func), None) => write!(f, "@{func}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for EmitError {}

/// One target operation, with placeholder values (0) in the fields a [`Fixup`] fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MachOp {
    St231(isa231::Op),
    St120(isa120::Inst),
}

/// The part of an operation resolved when addresses are known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fixup {
    None,
    /// Branch/jump target: a block of the same function.
    Block(BlockId),
    /// Call target: a function of the module.
    Func(String),
    /// An immediate (ALU operand or memory offset) that is the address of a symbol plus an
    /// offset, or one 16-bit half of it (ST120 `MAKE`/`MORE`).
    Sym {
        name: String,
        offset: i32,
        part: SymPart,
    },
}

/// One lowered operation: what the scheduler orders and the linker encodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoweredOp {
    pub op: MachOp,
    pub fixup: Fixup,
    /// The machine-IR flags (COPY, SPILL_LOAD, SPILL_STORE, SWAP become annotations).
    pub flags: InstFlags,
}

impl LoweredOp {
    /// The annotation-table flags of this operation.
    pub fn annotation(&self) -> OpFlags {
        let mut a = OpFlags::empty();
        for (i, o) in [
            (InstFlags::COPY, OpFlags::COPY),
            (InstFlags::SPILL_LOAD, OpFlags::SPILL_LOAD),
            (InstFlags::SPILL_STORE, OpFlags::SPILL_STORE),
            (InstFlags::SWAP, OpFlags::SWAP_PART),
        ] {
            if self.flags.contains(i) {
                a |= o;
            }
        }
        a
    }

    /// ST231: whether the operation takes an extension syllable whatever its final value
    /// (an immediate naming a symbol; the simulator's assembler does the same, so that the
    /// size is fixed before addresses are known).
    pub fn force_extension(&self) -> bool {
        match self.op {
            MachOp::St231(op) => {
                matches!(self.fixup, Fixup::Sym { .. }) && op.extendable_imm().is_some()
            }
            MachOp::St120(_) => false,
        }
    }

    /// ST231 syllables this operation occupies (1 or 2); ST120 words (1).
    pub fn syllables(&self) -> usize {
        match self.op {
            MachOp::St231(op) => {
                if self.force_extension() {
                    2
                } else {
                    op.syllables()
                }
            }
            MachOp::St120(_) => 1,
        }
    }

    /// The ST231 operation, if this is one.
    pub fn st231(&self) -> Option<isa231::Op> {
        match self.op {
            MachOp::St231(o) => Some(o),
            MachOp::St120(_) => None,
        }
    }

    /// The ST120 operation, if this is one.
    pub fn st120(&self) -> Option<isa120::Inst> {
        match self.op {
            MachOp::St120(i) => Some(i),
            MachOp::St231(_) => None,
        }
    }

    /// True for a control transfer (branch, jump, call, return).
    pub fn is_control(&self) -> bool {
        match self.op {
            MachOp::St231(o) => o.opc.is_control(),
            MachOp::St120(i) => i.opcode.info().props.intersects(isa120::OpProps::CONTROL),
        }
    }
}
