//! Machine-level SSA: the data structures.
//!
//! One [`Function`] is a list of basic blocks of [`Inst`]s. An instruction is either a target
//! operation taken from the machine description (`simulator::isa::st231::Opcode` or
//! `simulator::isa::st120::Opcode`) or one of the pseudo-operations the SSA algorithms need
//! (phi, parallel copy, psi, copy, the `.input`/`.output` markers of Rastello et al.).
//!
//! Operands are [`Reg`]s: virtual registers ([`VReg`], one definition each while the function
//! is in SSA form) or physical registers ([`PReg`], e.g. the stack pointer). Every operand
//! may carry a **pin** ([`Pin`]), the renaming constraint of Rastello, de Ferrière and
//! Guillon, "Optimizing translation out of SSA using renaming constraints" (CGO 2004), §2.1:
//! the operand must live in the given *resource* — a physical register, or the resource of
//! another variable. A tied (2-operand) form is a use pinned to its definition's variable.
//!
//! Invariants (checked by `mir::verify`):
//! * phis come first in a block, then ordinary instructions, then the block's control
//!   operations (conditional branch, then an unconditional `goto`/return); every block ends
//!   with an unconditional control transfer (no fall-through in the IR; emission drops a
//!   `goto` to the next block in layout);
//! * phi `uses[i]` flows in from `Imm::Blocks[i]`;
//! * ST120 guarded operations carry their guard as the **last** use and the flag
//!   [`InstFlags::GUARDED`];
//! * a parallel copy writes `defs[i] := uses[i]` for all `i` at once.
//!
//! Operand order for target operations (what the encoders expect):
//! * ST231 — `defs`: `[dest]` or `[dest, bdest]` (addcg/divs), `[]` for stores/branches;
//!   `call` has the result(s) pinned to `$r16..`. `uses`: Binary `[s1, s2?]` (`s2` absent when
//!   the immediate is used), Monadic `[s1]`, Select `[b, s1, s2?]`, Carry `[b, s1, s2]`,
//!   Load `[base]`, Store `[base, value]`, Branch `[b]`, call: the arguments pinned to the
//!   ABI registers. Implicit registers (`$r63` for call/return) are not operands; clobbers of
//!   calls come from [`super::target`].
//! * ST120 — operands in the order of `OpInfo::operands()`: a `Def` goes to `defs`, a `Use` to
//!   `uses`, a `Tied` operand to both (the use pinned to the definition's variable); then
//!   the guard (if [`InstFlags::GUARDED`]) as the last use.
//!
//! Complexity: plain vectors indexed by `VReg`/`BlockId`; nothing here is superlinear.

use super::target::RegClass;
use bitflags::bitflags;
use simulator::isa::{st120, st231, Target};
use std::fmt;

/// A virtual register. Printed `%N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VReg(pub u32);

impl VReg {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A physical register of the target: class and number (`$r12`, `$b0`, `R3`, `P15`, `G0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PReg {
    pub class: RegClass,
    pub num: u8,
}

impl PReg {
    pub const fn new(class: RegClass, num: u8) -> PReg {
        PReg { class, num }
    }
}

/// A register operand: virtual or physical.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reg {
    V(VReg),
    P(PReg),
}

impl Reg {
    pub fn vreg(self) -> Option<VReg> {
        match self {
            Reg::V(v) => Some(v),
            Reg::P(_) => None,
        }
    }
    pub fn preg(self) -> Option<PReg> {
        match self {
            Reg::P(p) => Some(p),
            Reg::V(_) => None,
        }
    }
}

impl From<VReg> for Reg {
    fn from(v: VReg) -> Reg {
        Reg::V(v)
    }
}

impl From<PReg> for Reg {
    fn from(p: PReg) -> Reg {
        Reg::P(p)
    }
}

/// A renaming constraint (Rastello et al. 2004, §2.1): the resource an operand must occupy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pin {
    /// A physical register (ABI argument/result registers, SP, dedicated registers).
    Phys(PReg),
    /// The resource of another variable (tied operands: a use pinned to its definition).
    Var(VReg),
}

/// One register operand with its optional pin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Operand {
    pub reg: Reg,
    pub pin: Option<Pin>,
}

impl Operand {
    /// An unpinned operand.
    pub fn new(reg: impl Into<Reg>) -> Operand {
        Operand {
            reg: reg.into(),
            pin: None,
        }
    }
    /// An operand pinned to `pin`.
    pub fn pinned(reg: impl Into<Reg>, pin: Pin) -> Operand {
        Operand {
            reg: reg.into(),
            pin: Some(pin),
        }
    }
    pub fn vreg(&self) -> Option<VReg> {
        self.reg.vreg()
    }
}

impl From<VReg> for Operand {
    fn from(v: VReg) -> Operand {
        Operand::new(v)
    }
}

impl From<PReg> for Operand {
    fn from(p: PReg) -> Operand {
        Operand::new(p)
    }
}

/// A basic block index. The entry block is `BlockId(0)`. Printed `bN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

impl BlockId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A stack-frame object. Printed `fN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FrameIdx(pub u32);

/// Which 16-bit half of a symbol address a `make`/`more` pair materialises (ST120).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SymPart {
    /// The whole 32-bit address (ST231 long immediates, data relocations).
    Full,
    /// Bits 31..16 (`MAKE`/`MAKEA`).
    Hi16,
    /// Bits 15..0 (`MORE`/`MOREA`).
    Lo16,
}

/// The non-register operand of an instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Imm {
    #[default]
    None,
    /// An integer immediate, as the machine operation reads it (ST120 memory offsets and
    /// `ADDxA` immediates are stored unscaled, as written in assembly).
    Int(i32),
    /// The address of a global or function, plus a byte offset.
    Sym {
        name: String,
        offset: i32,
        part: SymPart,
    },
    /// A branch target.
    Block(BlockId),
    /// A call target (a function of the module, or a runtime routine).
    Func(String),
    /// The byte offset from SP of a frame object plus `offset`; resolved to `Int` once the
    /// frame is laid out (after register allocation).
    Frame { idx: FrameIdx, offset: i32 },
    /// The predecessor of each phi operand, in operand order.
    Blocks(Vec<BlockId>),
}

/// What an instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opc {
    /// An ST231 operation.
    St231(st231::Opcode),
    /// An ST120 operation.
    St120(st120::Opcode),
    /// `d = phi(u_1 from b_1, ..., u_n from b_n)`.
    Phi,
    /// `(d_1, ..., d_n) = (u_1, ..., u_n)`, all reads before all writes.
    ParCopy,
    /// A register copy `d = u` of one class (lowered to the target's move at emission).
    Copy,
    /// `d = psi(g_1 ? u_1, ..., g_n ? u_n)` (psi-SSA, Stoutchinin & de Ferrière 2001): uses
    /// are `(guard, value)` pairs; the last pair whose guard is true gives the value. A first
    /// pair guarded by the always-true guard gives the default.
    Psi,
    /// `.input`: the function's incoming values (parameters, pinned to ABI registers) are
    /// defined here; first instruction of the entry block.
    Input,
    /// `.output`: the values live out of the function (the result, pinned to the result
    /// register) are used here; just before the return operation.
    Output,
}

impl Opc {
    pub fn is_pseudo(self) -> bool {
        !matches!(self, Opc::St231(_) | Opc::St120(_))
    }
}

bitflags! {
    /// Per-instruction properties that survive to the object's annotation table.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct InstFlags: u16 {
        /// ST120: the last use is the guard.
        const GUARDED = 1 << 0;
        /// A register-to-register copy (counted as a move).
        const COPY = 1 << 1;
        /// Spill code inserted by the register allocator.
        const SPILL_LOAD = 1 << 2;
        const SPILL_STORE = 1 << 3;
        /// Part of a swap sequence.
        const SWAP = 1 << 4;
        /// Prologue/epilogue code (callee-saved and link register saves, SP adjustment).
        const FRAME = 1 << 5;
        /// A rematerialisation by the register allocator: the defining instruction of a
        /// value executed again instead of a reload (not a memory access, not a move).
        const REMAT = 1 << 6;
        /// Inserted by road 2's register allocation (reloads, spill stores, Perms, phi
        /// copies and their moves and swaps, copies of tied operands): not an instruction of
        /// the allocator's input. The value-flow checker matches every other instruction to
        /// one of the input, in order.
        const INSERTED = 1 << 7;
        /// An operand was pinned to a physical register (ABI or explicit constraint) in the
        /// register allocator's input: copy elimination after allocation must not rename
        /// it (set by `mark-pinned`, issue 21; on `.input` it also says the function was
        /// marked).
        const PINNED = 1 << 8;
    }
}

/// One instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inst {
    pub opc: Opc,
    pub defs: Vec<Operand>,
    pub uses: Vec<Operand>,
    pub imm: Imm,
    pub flags: InstFlags,
}

impl Inst {
    pub fn new(opc: Opc, defs: Vec<Operand>, uses: Vec<Operand>, imm: Imm) -> Inst {
        Inst {
            opc,
            defs,
            uses,
            imm,
            flags: InstFlags::empty(),
        }
    }

    /// A copy `dst = src`.
    pub fn copy(dst: impl Into<Operand>, src: impl Into<Operand>) -> Inst {
        let mut i = Inst::new(Opc::Copy, vec![dst.into()], vec![src.into()], Imm::None);
        i.flags |= InstFlags::COPY;
        i
    }

    /// A phi.
    pub fn phi(dst: VReg, incoming: Vec<(BlockId, VReg)>) -> Inst {
        let (blocks, uses): (Vec<_>, Vec<_>) = incoming
            .into_iter()
            .map(|(b, v)| (b, Operand::new(v)))
            .unzip();
        Inst::new(Opc::Phi, vec![Operand::new(dst)], uses, Imm::Blocks(blocks))
    }

    /// A parallel copy of `(dst, src)` pairs.
    pub fn par_copy(pairs: Vec<(Operand, Operand)>) -> Inst {
        let (defs, uses) = pairs.into_iter().unzip();
        let mut i = Inst::new(Opc::ParCopy, defs, uses, Imm::None);
        i.flags |= InstFlags::COPY;
        i
    }

    pub fn with_flags(mut self, f: InstFlags) -> Inst {
        self.flags |= f;
        self
    }

    pub fn is_phi(&self) -> bool {
        self.opc == Opc::Phi
    }

    /// The phi's predecessor blocks (empty for other instructions).
    pub fn phi_blocks(&self) -> &[BlockId] {
        match &self.imm {
            Imm::Blocks(b) if self.is_phi() => b,
            _ => &[],
        }
    }

    /// The guard operand of a guarded ST120 operation.
    pub fn guard(&self) -> Option<&Operand> {
        if self.flags.contains(InstFlags::GUARDED) {
            self.uses.last()
        } else {
            None
        }
    }

    /// Control-transfer properties of this instruction.
    pub fn control(&self) -> Control {
        match self.opc {
            Opc::St231(o) => {
                let p = o.props();
                if p.contains(st231::OpProps::COND_BRANCH) {
                    Control::CondBranch
                } else if p.contains(st231::OpProps::CALL) {
                    Control::Call
                } else if o == st231::Opcode::Goto {
                    Control::Jump
                } else if o == st231::Opcode::Igoto {
                    Control::Return
                } else {
                    Control::None
                }
            }
            Opc::St120(o) => {
                use st120::Opcode as O;
                match o {
                    O::GotoF | O::JumpF => Control::CondBranch,
                    O::Goto | O::Jump => {
                        if self.flags.contains(InstFlags::GUARDED) {
                            Control::CondBranch
                        } else {
                            Control::Jump
                        }
                    }
                    O::Call | O::Link => Control::Call,
                    O::Rts => Control::Return,
                    _ => Control::None,
                }
            }
            _ => Control::None,
        }
    }

    /// True for operations that end a block's straight-line part (branches, jumps, returns;
    /// calls are not terminators).
    pub fn is_terminator(&self) -> bool {
        matches!(
            self.control(),
            Control::CondBranch | Control::Jump | Control::Return
        )
    }

    /// The block this instruction branches to, if it is a direct branch or jump.
    pub fn branch_target(&self) -> Option<BlockId> {
        match (&self.imm, self.control()) {
            (Imm::Block(b), Control::CondBranch | Control::Jump) => Some(*b),
            _ => None,
        }
    }

    /// Virtual registers defined.
    pub fn def_vregs(&self) -> impl Iterator<Item = VReg> + '_ {
        self.defs.iter().filter_map(|o| o.vreg())
    }

    /// Virtual registers used.
    pub fn use_vregs(&self) -> impl Iterator<Item = VReg> + '_ {
        self.uses.iter().filter_map(|o| o.vreg())
    }
}

/// Control-flow role of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    None,
    /// Conditional branch to `Imm::Block`.
    CondBranch,
    /// Unconditional jump to `Imm::Block`.
    Jump,
    /// Call (control comes back to the next operation).
    Call,
    /// Function return.
    Return,
}

/// A basic block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Block {
    pub insts: Vec<Inst>,
}

impl Block {
    /// Successor blocks in terminator order (conditional target first), without duplicates.
    pub fn successors(&self) -> Vec<BlockId> {
        let mut out = Vec::with_capacity(2);
        for i in self.insts.iter().rev().take_while(|i| i.is_terminator()) {
            if let Some(b) = i.branch_target() {
                if !out.contains(&b) {
                    out.insert(0, b);
                }
            }
        }
        out
    }

    /// Index of the first terminator (= `insts.len()` if there is none).
    pub fn terminator_start(&self) -> usize {
        let n = self
            .insts
            .iter()
            .rev()
            .take_while(|i| i.is_terminator())
            .count();
        self.insts.len() - n
    }

    /// Index of the first non-phi instruction.
    pub fn phi_end(&self) -> usize {
        self.insts.iter().take_while(|i| i.is_phi()).count()
    }
}

/// Per-virtual-register information.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VRegInfo {
    pub class: RegClass,
}

/// What a frame object holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrameKind {
    /// A local variable whose address is taken (from an IR stack slot).
    Local,
    /// A spill slot created by the register allocator.
    Spill,
    /// Save slot of a callee-saved register or the link register.
    Save,
    /// Incoming stack argument number `n` (beyond the argument registers): lives in the
    /// caller's frame, at a fixed offset above this function's frame.
    IncomingArg(u32),
}

/// A stack-frame object: laid out after register allocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameObject {
    pub size: u32,
    pub align: u32,
    pub kind: FrameKind,
    pub name: String,
}

/// The stack frame of a function, before and after layout.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    pub objects: Vec<FrameObject>,
    /// Bytes reserved at the bottom of the frame for outgoing stack arguments (including the
    /// ST231 16-byte scratch area when the function makes calls).
    pub outgoing_size: u32,
    /// Set by frame layout: offset from SP of each object, and total frame size.
    pub offsets: Vec<i32>,
    pub size: u32,
    /// True once the frame is laid out, the prologue/epilogue inserted and every
    /// `Imm::Frame` resolved (after register allocation): SP then moves explicitly.
    pub finalized: bool,
}

/// A machine-level function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    pub target: Target,
    pub blocks: Vec<Block>,
    pub vregs: Vec<VRegInfo>,
    pub frame: Frame,
}

impl Function {
    /// An empty function with an empty entry block.
    pub fn new(name: &str, target: Target) -> Function {
        Function {
            name: name.to_string(),
            target,
            blocks: vec![Block::default()],
            vregs: Vec::new(),
            frame: Frame::default(),
        }
    }

    pub fn new_vreg(&mut self, class: RegClass) -> VReg {
        let v = VReg(self.vregs.len() as u32);
        self.vregs.push(VRegInfo { class });
        v
    }

    pub fn class_of(&self, v: VReg) -> RegClass {
        self.vregs[v.index()].class
    }

    /// Class of any register operand.
    pub fn reg_class(&self, r: Reg) -> RegClass {
        match r {
            Reg::V(v) => self.class_of(v),
            Reg::P(p) => p.class,
        }
    }

    pub fn new_block(&mut self) -> BlockId {
        self.blocks.push(Block::default());
        BlockId(self.blocks.len() as u32 - 1)
    }

    pub fn block(&self, b: BlockId) -> &Block {
        &self.blocks[b.index()]
    }

    pub fn block_mut(&mut self, b: BlockId) -> &mut Block {
        &mut self.blocks[b.index()]
    }

    pub fn push(&mut self, b: BlockId, i: Inst) {
        self.blocks[b.index()].insts.push(i);
    }

    pub fn new_frame_object(
        &mut self,
        size: u32,
        align: u32,
        kind: FrameKind,
        name: &str,
    ) -> FrameIdx {
        self.frame.objects.push(FrameObject {
            size,
            align,
            kind,
            name: name.to_string(),
        });
        FrameIdx(self.frame.objects.len() as u32 - 1)
    }

    pub fn block_ids(&self) -> impl Iterator<Item = BlockId> {
        (0..self.blocks.len() as u32).map(BlockId)
    }

    /// Successors of every block.
    pub fn successors(&self) -> Vec<Vec<BlockId>> {
        self.blocks.iter().map(|b| b.successors()).collect()
    }

    /// Predecessors of every block, in increasing block order (duplicates removed).
    pub fn predecessors(&self) -> Vec<Vec<BlockId>> {
        let mut preds = vec![Vec::new(); self.blocks.len()];
        for (i, b) in self.blocks.iter().enumerate() {
            for s in b.successors() {
                if s.index() < preds.len() {
                    preds[s.index()].push(BlockId(i as u32));
                }
            }
        }
        preds
    }

    /// Number of instructions.
    pub fn num_insts(&self) -> usize {
        self.blocks.iter().map(|b| b.insts.len()).sum()
    }
}

impl Module {
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }
}

/// A machine-level module: functions plus the data of the source module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Module {
    pub target: Target,
    pub functions: Vec<Function>,
    /// Global data, unchanged from the mid-level IR.
    pub globals: Vec<crate::ir::Global>,
}

impl fmt::Display for VReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}

impl fmt::Display for BlockId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "b{}", self.0)
    }
}

impl fmt::Display for FrameIdx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "f{}", self.0)
    }
}
