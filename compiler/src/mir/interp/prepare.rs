//! Pre-resolution of a machine module for the interpreter: every function becomes a flat
//! array of [`PInst`]s whose operands are register-file locations, whose immediates are
//! resolved to numbers (symbol addresses, frame offsets in the operation's units, block
//! positions, callee indices), plus the per-function facts the run loop needs (vreg count,
//! block starts, provisional frame layout). Globals are laid out here too.
//!
//! Nothing in here fails: what cannot be resolved (an unknown callee or symbol, a frame
//! offset that is not a multiple of the access size, an unsupported operation) becomes a
//! [`Kind::Bad`] instruction that traps only if it executes.
//!
//! Complexity: O(module size) plus a hash lookup per symbol.

use super::{FUNC_BASE, FUNC_STRIDE};
use crate::mir::target::{call_clobbers, is_callee_saved, num_regs, stack_pointer, RegClass};
use crate::mir::{
    Control, FrameKind, Function, Imm, Inst, InstFlags, Module, Opc, PReg, Pin, Reg, SymPart,
};
use simulator::isa::{st120, st231, Target};
use simulator::machine::{align_up, CODE_BASE};
use std::collections::HashMap;

/// Size of the unified physical register file: R at 0 (64 on ST231, 16 on ST120), B at 64,
/// P at 72, G at 88.
pub const NUM_PHYS: usize = 104;

/// Index of a physical register in the unified file.
#[inline]
pub fn phys_index(p: PReg) -> u8 {
    // Masks keep out-of-range numbers (which the verifier reports) inside the file.
    match p.class {
        RegClass::R => p.num & 63,
        RegClass::B => 64 + (p.num & 7),
        RegClass::P => 72 + (p.num & 15),
        RegClass::G => 88 + (p.num & 15),
    }
}

/// Where an operand lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loc {
    /// A virtual register of the current activation.
    V(u32),
    /// A physical register (unified index).
    P(u8),
}

/// One operand: its location and, if pinned to a physical register, that register.
#[derive(Clone, Copy, Debug)]
pub struct POp {
    pub loc: Loc,
    pub pin: Option<u8>,
}

/// How the run loop executes an instruction.
#[derive(Clone, Debug)]
pub enum Kind {
    /// ST231 Binary format through `st231::semantics::binary`.
    Bin231(st231::Opcode),
    /// ST231 Monadic/Select/Carry through `st231::semantics::execute`.
    Alu231(st231::Opcode),
    Load231(st231::Opcode),
    Store231(u8),
    Nop,
    /// `br` (taken on true) / `brf` (taken on false) to a block.
    Br231 {
        on_true: bool,
        target: u32,
    },
    /// Unconditional jump to a block.
    Jump(u32),
    /// Direct call of function `index`.
    Call(u32),
    /// ST231 `icall` through `$r63`.
    Icall231,
    /// Return to the caller (`igoto`/`return`, an unguarded `RTS`).
    Return,
    Syscall231(u32),
    /// An ST120 operation through `st120::semantics::execute`.
    Op120(Box<Op120>),
    Phi,
    ParCopy,
    Copy,
    Psi,
    Input,
    Output,
    /// Cannot execute: traps with this message.
    Bad(String),
}

/// What the run loop does after an executed ST120 operation that transfers control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ctl120 {
    None,
    /// Jump to a block.
    Jump(u32),
    Call(u32),
    /// `LINK`: indirect call through P3.
    Link,
    Return,
    Syscall,
}

/// A pre-resolved ST120 operation.
#[derive(Clone, Debug)]
pub struct Op120 {
    pub inst: st120::Inst,
    /// For each operand slot (in `OpInfo::operands()` register order): the use that gives its
    /// input value and the definition that takes its output.
    pub slot_use: [Option<u8>; 4],
    pub slot_def: [Option<u8>; 4],
    pub nslots: u8,
    /// Executes when the guard is false (`GOTO.f`, `JUMP.f`).
    pub on_false: bool,
    pub ctl: Ctl120,
}

/// A pre-resolved instruction.
#[derive(Clone, Debug)]
pub struct PInst {
    pub kind: Kind,
    /// Operand ranges in [`PFunc::ops`].
    pub defs: (u32, u32),
    pub uses: (u32, u32),
    /// The immediate as a number in the operation's units (0 when there is none).
    pub imm: i64,
    pub flags: InstFlags,
    /// Some use carries a physical pin (written before the operation).
    pub pinned_uses: bool,
    /// Some definition carries a physical pin (written after the operation).
    pub pinned_defs: bool,
    /// Phi: predecessor block index of each use (positions into `PFunc::phi_preds`).
    pub phi_preds: (u32, u32),
}

/// A pre-resolved function.
#[derive(Clone, Debug)]
pub struct PFunc {
    pub name: String,
    pub insts: Vec<PInst>,
    pub ops: Vec<crate::mir::interp::prepare::POp>,
    pub phi_preds: Vec<u32>,
    /// Position of the first instruction of each block (plus one past the end).
    pub block_start: Vec<u32>,
    /// Position of the first non-phi instruction of each block.
    pub block_body: Vec<u32>,
    pub num_vregs: u32,
    /// The frame moves SP itself (prologue/epilogue).
    pub finalized: bool,
    /// Provisional frame size (non-finalized functions).
    pub frame_size: u32,
}

impl PFunc {
    /// Block containing position `pc`.
    pub fn block_of(&self, pc: u32) -> usize {
        self.block_start
            .partition_point(|&s| s <= pc)
            .saturating_sub(1)
    }
}

/// The whole pre-resolved program.
pub struct Program {
    pub target: Target,
    pub funcs: Vec<PFunc>,
    pub func_index: HashMap<String, u32>,
    /// Global data: (address, bytes) to copy into memory.
    pub data: Vec<(u32, Vec<u8>)>,
    pub data_end: u32,
    /// Unified indices of the call-clobbered registers, the callee-saved registers (SP
    /// included), SP, link, result.
    pub clobbers: Vec<u8>,
    pub callee_saved: Vec<u8>,
    pub sp: u8,
    pub link: u8,
    pub result: u8,
    /// Registers that read a constant and ignore writes: (index, value).
    pub constant_regs: Vec<(u8, i64)>,
}

/// Pre-resolves `m`. Globals are laid out from `CODE_BASE` in module order (no code image in
/// the interpreter); functions get fake addresses `FUNC_BASE + FUNC_STRIDE * index`.
pub fn prepare(m: &Module) -> Program {
    let t = m.target;
    let mut symbols: HashMap<&str, u32> = HashMap::new();
    let mut addr = CODE_BASE;
    let mut placed = Vec::new();
    for g in &m.globals {
        addr = align_up(addr, g.align.max(1));
        symbols.insert(&g.name, addr);
        placed.push(addr);
        addr = addr.saturating_add(g.size);
    }
    let data_end = addr;
    let mut func_index = HashMap::new();
    for (i, f) in m.functions.iter().enumerate() {
        func_index.insert(f.name.clone(), i as u32);
        symbols
            .entry(&f.name)
            .or_insert(FUNC_BASE + FUNC_STRIDE * i as u32);
    }
    let mut data = Vec::new();
    for (g, &base) in m.globals.iter().zip(&placed) {
        let mut bytes = g.init.clone();
        bytes.resize(g.size as usize, 0);
        for r in &g.relocs {
            let v = symbols
                .get(r.symbol.as_str())
                .map_or(0, |&a| a.wrapping_add(r.addend as u32));
            if let Some(dst) = bytes.get_mut(r.offset as usize..r.offset as usize + 4) {
                dst.copy_from_slice(&v.to_le_bytes());
            }
        }
        data.push((base, bytes));
    }
    let funcs = m
        .functions
        .iter()
        .map(|f| prepare_function(f, &symbols, &func_index))
        .collect();
    let all_regs = |pred: &dyn Fn(PReg) -> bool| -> Vec<u8> {
        let mut v = Vec::new();
        for &c in crate::mir::target::classes(t) {
            for n in 0..num_regs(t, c) {
                let r = PReg::new(c, n);
                if pred(r) {
                    v.push(phys_index(r));
                }
            }
        }
        v
    };
    let (link, result, constant_regs) = match t {
        Target::St231 => (
            PReg::new(RegClass::R, st231::LINK),
            PReg::new(RegClass::R, 16),
            vec![(phys_index(PReg::new(RegClass::R, 0)), 0)],
        ),
        Target::St120 => (
            PReg::new(RegClass::P, st120::LINK),
            PReg::new(RegClass::R, 0),
            vec![(phys_index(PReg::new(RegClass::G, st120::GUARD_TRUE)), 1)],
        ),
    };
    Program {
        target: t,
        funcs,
        func_index,
        data,
        data_end,
        clobbers: call_clobbers(t).iter().map(|&r| phys_index(r)).collect(),
        // SP is preserved across calls like a callee-saved register.
        callee_saved: all_regs(&|r| is_callee_saved(t, r) || r == stack_pointer(t)),
        sp: phys_index(stack_pointer(t)),
        link: phys_index(link),
        result: phys_index(result),
        constant_regs,
    }
}

/// Provisional frame layout of a function whose frame is not finalized: the outgoing area
/// at offset 0 (ST231: at least the 16-byte scratch area when the function calls, isa.md
/// §A6), then the objects in order with their alignment; size rounded up to 8 (ASSUMPTION,
/// isa.md §A6/§B5: 8-byte stack alignment). Incoming argument `k` at `size + 16 + 4k`
/// (ST231) / `size + 4k` (ST120; ASSUMPTION, isa.md §B5 and docs/design.md: no scratch
/// area), i.e. in the caller's outgoing area.
pub fn provisional_layout(f: &Function) -> (u32, Vec<i64>) {
    let has_call = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .any(|i| i.control() == Control::Call);
    let mut off = f.frame.outgoing_size;
    if f.target == Target::St231 && has_call {
        off = off.max(st231::STACK_ARG_OFFSET);
    }
    let mut offsets = vec![0i64; f.frame.objects.len()];
    for (i, o) in f.frame.objects.iter().enumerate() {
        if let FrameKind::IncomingArg(_) = o.kind {
            continue;
        }
        off = align_up(off, o.align.max(1));
        offsets[i] = i64::from(off);
        off = off.saturating_add(o.size);
    }
    let size = align_up(off, 8);
    let scratch = match f.target {
        Target::St231 => i64::from(st231::STACK_ARG_OFFSET),
        Target::St120 => 0,
    };
    for (i, o) in f.frame.objects.iter().enumerate() {
        if let FrameKind::IncomingArg(k) = o.kind {
            offsets[i] = i64::from(size) + scratch + 4 * i64::from(k);
        }
    }
    (size, offsets)
}

/// The scale of the immediate of an operation (ST120 memory offsets and `ADDxA`/`SUBxA`).
fn imm_scale(opc: Opc) -> i64 {
    match opc {
        Opc::St120(st120::Opcode::Load(k, m)) if !m.is_reg_offset() => i64::from(k.size()),
        Opc::St120(st120::Opcode::Store(k, m)) if !m.is_reg_offset() => i64::from(k.size()),
        Opc::St120(st120::Opcode::AuI(op)) => i64::from(op.scale()),
        _ => 1,
    }
}

struct Ctx<'a> {
    symbols: &'a HashMap<&'a str, u32>,
    funcs: &'a HashMap<String, u32>,
    frame_offsets: Vec<i64>,
}

fn prepare_function(
    f: &Function,
    symbols: &HashMap<&str, u32>,
    funcs: &HashMap<String, u32>,
) -> PFunc {
    let (frame_size, provisional) = provisional_layout(f);
    let frame_offsets = if f.frame.finalized {
        // Any frame immediate left in a finalized function uses the final layout.
        (0..f.frame.objects.len())
            .map(|i| f.frame.offsets.get(i).map_or(0, |&o| i64::from(o)))
            .collect()
    } else {
        provisional
    };
    let cx = Ctx {
        symbols,
        funcs,
        frame_offsets,
    };
    let mut pf = PFunc {
        name: f.name.clone(),
        insts: Vec::with_capacity(f.num_insts()),
        ops: Vec::new(),
        phi_preds: Vec::new(),
        block_start: Vec::with_capacity(f.blocks.len() + 1),
        block_body: Vec::with_capacity(f.blocks.len()),
        num_vregs: f.vregs.len() as u32,
        finalized: f.frame.finalized,
        frame_size,
    };
    // Block start positions first (branches resolve to them).
    let mut pos = 0u32;
    for b in &f.blocks {
        pf.block_start.push(pos);
        pf.block_body.push(pos + b.phi_end() as u32);
        pos += b.insts.len() as u32;
    }
    pf.block_start.push(pos);
    for b in &f.blocks {
        for inst in &b.insts {
            let p = prepare_inst(f, inst, &cx, &mut pf);
            pf.insts.push(p);
        }
    }
    pf
}

fn push_ops(f: &Function, ops: &[crate::mir::Operand], pf: &mut PFunc) -> ((u32, u32), bool) {
    let start = pf.ops.len() as u32;
    let mut pinned = false;
    for o in ops {
        let loc = match o.reg {
            Reg::V(v) => {
                pf.num_vregs = pf.num_vregs.max(v.0 + 1);
                Loc::V(v.0)
            }
            Reg::P(p) => Loc::P(phys_index(p)),
        };
        let pin = match o.pin {
            Some(Pin::Phys(p)) => {
                pinned = true;
                Some(phys_index(p))
            }
            _ => None,
        };
        pf.ops.push(POp { loc, pin });
    }
    let _ = f;
    ((start, pf.ops.len() as u32), pinned)
}

fn prepare_inst(f: &Function, inst: &Inst, cx: &Ctx<'_>, pf: &mut PFunc) -> PInst {
    let (defs, pinned_defs) = push_ops(f, &inst.defs, pf);
    let (uses, pinned_uses) = push_ops(f, &inst.uses, pf);
    let pstart = pf.phi_preds.len() as u32;
    if inst.is_phi() {
        pf.phi_preds.extend(inst.phi_blocks().iter().map(|b| b.0));
    }
    let phi_preds = (pstart, pf.phi_preds.len() as u32);
    let (imm, imm_err) = resolve_imm(inst, cx);
    let nblocks = f.blocks.len();
    let kind = match imm_err {
        Some(e) => Kind::Bad(e),
        None => match inst.opc {
            Opc::St231(o) => kind_231(o, inst, cx, nblocks),
            Opc::St120(o) => kind_120(o, inst, imm, cx, nblocks),
            Opc::Phi => Kind::Phi,
            Opc::ParCopy => Kind::ParCopy,
            Opc::Copy => Kind::Copy,
            Opc::Psi => Kind::Psi,
            Opc::Input => Kind::Input,
            Opc::Output => Kind::Output,
        },
    };
    PInst {
        kind,
        defs,
        uses,
        imm,
        flags: inst.flags,
        pinned_uses,
        pinned_defs,
        phi_preds,
    }
}

/// The immediate as a number in the operation's units, or why it cannot be resolved.
fn resolve_imm(inst: &Inst, cx: &Ctx<'_>) -> (i64, Option<String>) {
    match &inst.imm {
        Imm::Int(v) => (i64::from(*v), None),
        Imm::Sym { name, offset, part } => match cx.symbols.get(name.as_str()) {
            Some(&a) => {
                let a = a.wrapping_add(*offset as u32);
                let v = match part {
                    SymPart::Full => i64::from(a as i32),
                    SymPart::Hi16 => i64::from(a >> 16),
                    SymPart::Lo16 => i64::from(a & 0xFFFF),
                };
                (v, None)
            }
            None => (0, Some(format!("unknown symbol @{name}"))),
        },
        Imm::Frame { idx, offset } => match cx.frame_offsets.get(idx.0 as usize) {
            Some(&o) => {
                let bytes = o + i64::from(*offset);
                let scale = imm_scale(inst.opc);
                if bytes % scale != 0 {
                    (
                        0,
                        Some(format!(
                            "frame offset {bytes} bytes is not a multiple of the operation's scale {scale}"
                        )),
                    )
                } else {
                    (bytes / scale, None)
                }
            }
            None => (0, Some(format!("frame object {idx} does not exist"))),
        },
        Imm::None | Imm::Block(_) | Imm::Func(_) | Imm::Blocks(_) => (0, None),
    }
}

/// The target block index of a branch.
fn jump_target(inst: &Inst, nblocks: usize) -> Result<u32, String> {
    match inst.imm {
        Imm::Block(b) if b.index() < nblocks => Ok(b.0),
        Imm::Block(b) => Err(format!("bad branch to missing block {b}")),
        _ => Err("branch without a block target".into()),
    }
}

fn callee(inst: &Inst, cx: &Ctx<'_>) -> Result<u32, String> {
    match &inst.imm {
        Imm::Func(n) => cx
            .funcs
            .get(n)
            .copied()
            .ok_or_else(|| format!("call to unknown function @{n}")),
        _ => Err("call without a function target".into()),
    }
}

fn kind_231(o: st231::Opcode, inst: &Inst, cx: &Ctx<'_>, nblocks: usize) -> Kind {
    use st231::Format as F;
    let info = o.info();
    let r = match info.format {
        F::Binary => Ok(Kind::Bin231(o)),
        F::Monadic | F::Select | F::Carry => Ok(Kind::Alu231(o)),
        F::Load => Ok(Kind::Load231(o)),
        F::Store => Ok(Kind::Store231(info.mem_width)),
        F::Prefetch | F::Nop => Ok(Kind::Nop),
        F::Branch => jump_target(inst, nblocks).map(|target| Kind::Br231 {
            on_true: o == st231::Opcode::Br,
            target,
        }),
        F::Jump if o == st231::Opcode::Call => callee(inst, cx).map(Kind::Call),
        F::Jump => jump_target(inst, nblocks).map(Kind::Jump),
        F::Indirect if o == st231::Opcode::Icall => Ok(Kind::Icall231),
        F::Indirect => Ok(Kind::Return),
        F::Syscall => match inst.imm {
            Imm::Int(n) if n >= 0 => Ok(Kind::Syscall231(n as u32)),
            _ => Err("syscall without a number".into()),
        },
    };
    r.unwrap_or_else(Kind::Bad)
}

fn kind_120(o: st120::Opcode, inst: &Inst, imm: i64, cx: &Ctx<'_>, nblocks: usize) -> Kind {
    use st120::opcode::Operand as O;
    let info = o.info();
    if !o.is_valid() {
        return Kind::Bad("operation does not exist".into());
    }
    let guarded = inst.flags.contains(InstFlags::GUARDED);
    let nuses = inst.uses.len() - usize::from(guarded && !inst.uses.is_empty());
    let mut slot_use = [None; 4];
    let mut slot_def = [None; 4];
    let (mut di, mut ui, mut slot) = (0usize, 0usize, 0usize);
    for op in info.operands() {
        match op {
            O::Def(_) => {
                slot_def[slot] = Some(di as u8);
                di += 1;
                slot += 1;
            }
            O::Use(_) => {
                slot_use[slot] = Some(ui as u8);
                ui += 1;
                slot += 1;
            }
            O::Tied(_) => {
                slot_def[slot] = Some(di as u8);
                slot_use[slot] = Some(ui as u8);
                di += 1;
                ui += 1;
                slot += 1;
            }
            O::Imm(_) | O::Target => {}
        }
    }
    let is_call = info.props.contains(st120::OpProps::CALL);
    let is_syscall = info.props.contains(st120::OpProps::SYSCALL);
    // Calls and system calls carry extra argument/result operands (pinned, not slots).
    let counts_ok = if is_call || is_syscall {
        inst.defs.len() >= di && nuses >= ui
    } else {
        inst.defs.len() == di && nuses == ui
    };
    if !counts_ok {
        return Kind::Bad(format!(
            "operand count: {} definitions and {nuses} uses, the operation has {di} and {ui}",
            inst.defs.len()
        ));
    }
    if guarded && inst.uses.is_empty() {
        return Kind::Bad("guarded operation without a guard".into());
    }
    let ctl = match o {
        st120::Opcode::Goto | st120::Opcode::GotoF => match jump_target(inst, nblocks) {
            Ok(t) => Ctl120::Jump(t),
            Err(e) => return Kind::Bad(e),
        },
        st120::Opcode::Call => match callee(inst, cx) {
            Ok(c) => Ctl120::Call(c),
            Err(e) => return Kind::Bad(e),
        },
        st120::Opcode::Link => Ctl120::Link,
        st120::Opcode::Rts => Ctl120::Return,
        st120::Opcode::Trap => Ctl120::Syscall,
        st120::Opcode::Jump | st120::Opcode::JumpF => {
            return Kind::Bad(
                "indirect jumps through P3 are not supported by the interpreter".into(),
            )
        }
        _ => Ctl120::None,
    };
    let st_inst = st120::Inst {
        opcode: o,
        // Guard activity is decided by the run loop; the semantics see an always-true guard.
        guard: st120::GUARD_TRUE,
        regs: [0; 4],
        imm: imm as i32,
    };
    Kind::Op120(Box::new(Op120 {
        inst: st_inst,
        slot_use,
        slot_def,
        nslots: slot as u8,
        on_false: info.props.contains(st120::OpProps::ON_FALSE),
        ctl,
    }))
}
