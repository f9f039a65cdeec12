//! Instruction selection for the ST231 (ST2xx-class VLIW): mid-level SSA IR ([`crate::ir`])
//! to machine-level SSA ([`crate::mir`]) in the **SSA form** of `docs/design.md`.
//!
//! Sources: isa.md §A (A3 operand order and immediates, A5 compares/`slct`/constants, A6 ABI,
//! A7 opcode set); the pins are the renaming constraints of Rastello, de Ferrière and Guillon,
//! "Optimizing translation out of SSA using renaming constraints", §2.1 (`.input`/`.output`,
//! call arguments and results pinned to dedicated registers).
//!
//! What the selector produces:
//! * one MIR block per IR block, same numbering (`b0` = entry). A `printf` conversion that
//!   needs a loop (`%s`, `%u`, `%x`, see `printf`) splits its block: the rest of the IR
//!   block continues in a new MIR block numbered after all IR blocks, and phis of the
//!   successors name that new block as their predecessor;
//! * `.input` first in `b0`, defining parameters 0..8 pinned to `$r16..$r23`; parameters
//!   beyond the eighth are loaded from `FrameKind::IncomingArg(k)` objects;
//! * every block ends with `goto`, `br`+`goto`, or `.output`+`return`; an IR `Unreachable`
//!   becomes `exit(134)` (system call 1) followed by a `goto` to the block itself
//!   (ASSUMPTION: reaching `unreachable` is a program error reported like `abort()`);
//! * values of IR type `I32` and `Ptr` are class `R`; branch conditions and `slct` conditions
//!   are class `B`, computed by a compare in the same block right before their only use
//!   (no `B` value crosses a block, no `B` phi, no `B` copy);
//! * IR copies are not selected: a copied value is renamed to its source.
//!
//! MIR operand order (`mir::function` module doc): ST231 binary operations list their uses
//! in syllable-field order `[src1, src2]`, the immediate replacing `src2`. For `sub` the
//! result is `src2 - src1` (isa.md §A3), so `x - y` is `sub %d = %y, %x` in the MIR text and
//! `imm - x` is `sub %d = %x, #imm`.
//!
//! Submodules: `ops` (arithmetic, compares, `slct`, constants, addresses, loads/stores),
//! `calls` (ABI, builtins as system calls, runtime division), `divconst` (division by
//! constants), `printf` (compile-time `printf` expansion), `cleanup` (dead-code sweep).
//!
//! After selection a small dead-code sweep (`cleanup`) deletes pure operations whose
//! results are unused: constants that every user took as an immediate, compares folded into
//! branches, address additions folded into memory offsets.
//!
//! Complexity: linear in the IR size (plus the sweep, linear per round, rounds bounded by the
//! length of the longest dead chain, capped).

mod calls;
mod cleanup;
mod divconst;
mod ops;
mod printf;

#[cfg(test)]
mod tests;

use super::{IselError, IselOptions};
use crate::ir::{self, Op, Terminator, Ty, Value};
use crate::mir::{
    self, BlockId, FrameIdx, FrameKind, Imm, Inst, Opc, Operand, PReg, Pin, RegClass, VReg,
};
use simulator::isa::st231::{self as isa, Opcode as O};
use simulator::isa::Target;

/// Selects one function.
pub fn select_function(
    module: &ir::Module,
    f: &ir::Function,
    _opts: &IselOptions,
) -> Result<mir::Function, IselError> {
    let mut sel = Sel::new(module, f)?;
    sel.select_all()?;
    let mut out = sel.finish();
    cleanup::remove_dead(&mut out);
    Ok(out)
}

/// Cap on the length of copy chains followed when renaming IR copies (input-driven).
const COPY_CHAIN_CAP: usize = 10_000;

/// The physical general register `$rN`.
pub(crate) fn gpr(n: u8) -> PReg {
    PReg::new(RegClass::R, n)
}

/// `$r0` (reads zero) as an operand.
pub(crate) fn zero() -> Operand {
    Operand::new(gpr(isa::ZERO))
}

/// The stack pointer `$r12` as an operand (never pinned, backend.md).
pub(crate) fn sp() -> Operand {
    Operand::new(gpr(isa::SP))
}

/// An operand pinned to argument/result register `k` (`$r16 + k`), isa.md §A6.
pub(crate) fn pinned_arg(v: VReg, k: usize) -> Operand {
    Operand::pinned(v, Pin::Phys(gpr(isa::ARG_REGS[k])))
}

/// A second source operand: a register or an immediate (RI form).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Src2 {
    R(VReg),
    I(i32),
}

/// The selector's state for one function.
pub(crate) struct Sel<'a> {
    pub(crate) module: &'a ir::Module,
    pub(crate) f: &'a ir::Function,
    pub(crate) out: mir::Function,
    /// IR value (after copy renaming) -> its virtual register, created on first mention.
    vmap: Vec<Option<VReg>>,
    /// IR value -> the value it is a copy of (itself if not a copy).
    alias: Vec<Value>,
    /// IR value -> (block, instruction index) of its definition (`None` for parameters).
    def_at: Vec<Option<(ir::BlockId, usize)>>,
    /// IR value -> number of uses (instructions, phis and terminators).
    pub(crate) use_count: Vec<u32>,
    /// Frame object of each IR stack slot.
    pub(crate) slot_frames: Vec<FrameIdx>,
    /// The MIR block instructions are appended to.
    pub(crate) cur: BlockId,
    /// The IR block being selected.
    pub(crate) ir_block: ir::BlockId,
    /// IR block -> the MIR block that holds its terminator (differs after splits).
    tail_of: Vec<BlockId>,
}

impl<'a> Sel<'a> {
    fn new(module: &'a ir::Module, f: &'a ir::Function) -> Result<Sel<'a>, IselError> {
        let n = f.num_values();
        let mut out = mir::Function::new(&f.name, Target::St231);
        for _ in 1..f.num_blocks() {
            out.new_block();
        }
        let slot_frames = f
            .slots
            .iter()
            .map(|s| out.new_frame_object(s.size, s.align, FrameKind::Local, &s.name))
            .collect();
        let mut sel = Sel {
            module,
            f,
            out,
            vmap: vec![None; n],
            alias: (0..n as u32).map(Value).collect(),
            def_at: vec![None; n],
            use_count: vec![0; n],
            slot_frames,
            cur: BlockId(0),
            ir_block: ir::BlockId::ENTRY,
            tail_of: (0..f.num_blocks() as u32).map(BlockId).collect(),
        };
        sel.index_definitions()?;
        sel.check_uses_defined()?;
        sel.resolve_copies()?;
        Ok(sel)
    }

    /// Records where each value is defined and how often each is used.
    fn index_definitions(&mut self) -> Result<(), IselError> {
        let n = self.f.num_values();
        for b in self.f.block_ids() {
            let block = self.f.block(b);
            for (i, inst) in block.insts.iter().enumerate() {
                if let Some(d) = inst.dst {
                    if d.index() >= n {
                        return Err(self.err(format!("value {d} out of range")));
                    }
                    self.def_at[d.index()] = Some((b, i));
                }
                let mut bad = None;
                inst.op
                    .for_each_use(|u| match self.use_count.get_mut(u.index()) {
                        Some(c) => *c += 1,
                        None => bad = Some(u),
                    });
                if let Some(u) = bad {
                    return Err(self.err(format!("value {u} out of range")));
                }
            }
            let mut bad = None;
            block
                .term
                .for_each_use(|u| match self.use_count.get_mut(u.index()) {
                    Some(c) => *c += 1,
                    None => bad = Some(u),
                });
            if let Some(u) = bad {
                return Err(self.err(format!("value {u} out of range")));
            }
        }
        Ok(())
    }

    /// Every used value is a parameter or has a definition (SSA construction gives
    /// uninitialised variables an explicit `const 0`, so a miss is malformed input).
    fn check_uses_defined(&self) -> Result<(), IselError> {
        let mut defined: Vec<bool> = self.def_at.iter().map(Option::is_some).collect();
        for p in &self.f.params {
            match defined.get_mut(p.index()) {
                Some(d) => *d = true,
                None => return Err(self.err(format!("parameter {p} out of range"))),
            }
        }
        match (0..defined.len()).find(|&v| self.use_count[v] > 0 && !defined[v]) {
            Some(v) => Err(self.err(format!("value %{v} is used but never defined"))),
            None => Ok(()),
        }
    }

    /// Renames every IR copy to the value it copies (chains followed with a cap).
    fn resolve_copies(&mut self) -> Result<(), IselError> {
        for v in 0..self.alias.len() {
            let mut x = Value(v as u32);
            let mut steps = 0;
            while let Some(Op::Copy(src)) = self.def_op(x) {
                x = *src;
                steps += 1;
                if steps > COPY_CHAIN_CAP {
                    return Err(self.err(format!("copy chain through {x} too long or cyclic")));
                }
            }
            self.alias[v] = x;
        }
        Ok(())
    }

    pub(crate) fn err(&self, message: impl Into<String>) -> IselError {
        IselError {
            function: self.f.name.clone(),
            message: message.into(),
        }
    }

    /// The operation defining `v` (`None` for parameters and undefined values).
    pub(crate) fn def_op(&self, v: Value) -> Option<&'a Op> {
        let (b, i) = (*self.def_at.get(v.index())?)?;
        let f: &'a ir::Function = self.f;
        Some(&f.block(b).insts[i].op)
    }

    /// The IR block defining `v`.
    pub(crate) fn def_block(&self, v: Value) -> Option<ir::BlockId> {
        self.def_at
            .get(v.index())
            .copied()
            .flatten()
            .map(|(b, _)| b)
    }

    /// `v` with copies looked through.
    pub(crate) fn root(&self, v: Value) -> Value {
        self.alias.get(v.index()).copied().unwrap_or(v)
    }

    /// The constant value of `v`, if it is (a copy of) a constant.
    pub(crate) fn const_of(&self, v: Value) -> Option<i32> {
        match self.def_op(self.root(v)) {
            Some(Op::Const(c)) => Some(*c),
            _ => None,
        }
    }

    /// The defining operation of `v` with copies looked through.
    pub(crate) fn root_op(&self, v: Value) -> Option<&'a Op> {
        self.def_op(self.root(v))
    }

    /// The virtual register holding IR value `v` (class R), created on first mention.
    pub(crate) fn vreg(&mut self, v: Value) -> VReg {
        let r = self.root(v);
        if let Some(x) = self.vmap.get(r.index()).copied().flatten() {
            return x;
        }
        let x = self.out.new_vreg(RegClass::R);
        if let Some(slot) = self.vmap.get_mut(r.index()) {
            *slot = Some(x);
        }
        x
    }

    /// `v` as a second source operand: an immediate when it is a constant.
    pub(crate) fn src2(&mut self, v: Value) -> Src2 {
        match self.const_of(v) {
            Some(c) => Src2::I(c),
            None => Src2::R(self.vreg(v)),
        }
    }

    pub(crate) fn new_r(&mut self) -> VReg {
        self.out.new_vreg(RegClass::R)
    }

    pub(crate) fn new_b(&mut self) -> VReg {
        self.out.new_vreg(RegClass::B)
    }

    /// Appends an instruction to the current block.
    pub(crate) fn emit(&mut self, i: Inst) {
        self.out.push(self.cur, i);
    }

    /// Appends `opc d = s1, s2|imm` (Binary format, field order).
    pub(crate) fn binary(&mut self, opc: O, d: VReg, s1: impl Into<Operand>, s2: Src2) {
        let (uses, imm) = match s2 {
            Src2::R(r) => (vec![s1.into(), Operand::new(r)], Imm::None),
            Src2::I(c) => (vec![s1.into()], Imm::Int(c)),
        };
        self.emit(Inst::new(Opc::St231(opc), vec![d.into()], uses, imm));
    }

    /// A fresh R register holding constant `c` (`add %d = $r0, #c`).
    pub(crate) fn constant(&mut self, c: i32) -> VReg {
        let d = self.new_r();
        self.binary(O::Add, d, zero(), Src2::I(c));
        d
    }

    fn select_all(&mut self) -> Result<(), IselError> {
        if self.f.block(ir::BlockId::ENTRY).phi_count() > 0 {
            return Err(self.err("the entry block has phis"));
        }
        for b in self.f.block_ids() {
            self.ir_block = b;
            self.cur = BlockId(b.0);
            if b == ir::BlockId::ENTRY {
                self.select_input();
            }
            let block = self.f.block(b);
            for inst in &block.insts {
                self.select_inst(inst)?;
            }
            self.select_terminator(&block.term)?;
            self.tail_of[b.index()] = self.cur;
        }
        Ok(())
    }

    /// `.input` defining the parameters (isa.md §A6; Rastello et al. §2.1), then loads of the
    /// stack-passed ones from their incoming-argument frame objects.
    fn select_input(&mut self) {
        let nregs = isa::ARG_REGS.len();
        let params = self.f.params.clone();
        let mut defs = Vec::new();
        let mut stacked = Vec::new();
        for (k, &p) in params.iter().enumerate() {
            let v = self.vreg(p);
            if k < nregs {
                defs.push(pinned_arg(v, k));
            } else {
                stacked.push((k - nregs, v));
            }
        }
        self.emit(Inst::new(Opc::Input, defs, vec![], Imm::None));
        for (k, v) in stacked {
            let idx = self.out.new_frame_object(
                4,
                4,
                FrameKind::IncomingArg(k as u32),
                &format!("arg{}", k + nregs),
            );
            self.emit(Inst::new(
                Opc::St231(O::Ldw),
                vec![v.into()],
                vec![sp()],
                Imm::Frame { idx, offset: 0 },
            ));
        }
    }

    fn select_inst(&mut self, inst: &'a ir::Inst) -> Result<(), IselError> {
        let dst = inst.dst;
        match &inst.op {
            Op::Copy(_) => Ok(()),
            Op::Phi(args) => {
                let d = self.need_dst(dst)?;
                let incoming = args
                    .iter()
                    .map(|&(b, v)| (BlockId(b.0), self.vreg(v)))
                    .collect();
                self.emit(Inst::phi(d, incoming));
                Ok(())
            }
            Op::Call { callee, args } => self.select_call(dst, callee, args),
            op => {
                if let Some(d) = dst {
                    if self.f.value_ty(d) != Ty::I32 && self.f.value_ty(d) != Ty::Ptr {
                        return Err(self.err(format!("value {d} has an unknown type")));
                    }
                }
                self.select_op(dst, op)
            }
        }
    }

    /// The register of an instruction's result, which must exist.
    pub(crate) fn need_dst(&mut self, dst: Option<Value>) -> Result<VReg, IselError> {
        match dst {
            Some(d) => Ok(self.vreg(d)),
            None => Err(self.err("an operation without a result register")),
        }
    }

    fn select_terminator(&mut self, t: &Terminator) -> Result<(), IselError> {
        match *t {
            Terminator::Jump(b) => {
                self.goto(BlockId(b.0));
                Ok(())
            }
            Terminator::Branch { cond, then_, else_ } => {
                let (then_, else_) = (BlockId(then_.0), BlockId(else_.0));
                // A condition known to be constant here still gets a real branch: folding it
                // would drop a CFG edge that the successors' phis still name (found by the
                // fuzzer: tests/fuzz_regressions/st231_isel_phi_keeps_edge_of_folded_branch.c).
                let b = self.condition(cond);
                self.emit(Inst::new(
                    Opc::St231(O::Br),
                    vec![],
                    vec![b.into()],
                    Imm::Block(then_),
                ));
                self.goto(else_);
                Ok(())
            }
            Terminator::Return(v) => {
                let uses = match v {
                    Some(v) => vec![pinned_arg(self.vreg(v), 0)],
                    None => vec![],
                };
                self.emit(Inst::new(Opc::Output, vec![], uses, Imm::None));
                self.emit(Inst::new(Opc::St231(O::Igoto), vec![], vec![], Imm::None));
                Ok(())
            }
            Terminator::Unreachable => {
                // ASSUMPTION (module doc): unreachable = exit(134), then a self-loop so the
                // block still ends with an unconditional control operation.
                let c = self.constant(134);
                self.syscall(1, &[c]);
                self.goto(self.cur);
                Ok(())
            }
        }
    }

    pub(crate) fn goto(&mut self, b: BlockId) {
        self.emit(Inst::new(
            Opc::St231(O::Goto),
            vec![],
            vec![],
            Imm::Block(b),
        ));
    }

    /// `syscall n` with the arguments pinned to `$r16`, `$r17`. ASSUMPTION (project
    /// convention, `simulator::machine::output`, backend.md): 1 exit, 2 print_int,
    /// 3 print_char, 4 write; the system call preserves every register.
    pub(crate) fn syscall(&mut self, n: i32, args: &[VReg]) {
        let uses = args
            .iter()
            .enumerate()
            .map(|(k, &v)| pinned_arg(v, k))
            .collect();
        self.emit(Inst::new(Opc::St231(O::Syscall), vec![], uses, Imm::Int(n)));
    }

    /// Rewrites phi predecessors named after IR blocks whose tail moved to a split-off block.
    fn finish(mut self) -> mir::Function {
        let tails = std::mem::take(&mut self.tail_of);
        let n = self.f.num_blocks();
        for b in 0..n {
            for inst in &mut self.out.blocks[b].insts {
                if !inst.is_phi() {
                    break;
                }
                if let Imm::Blocks(preds) = &mut inst.imm {
                    for p in preds.iter_mut() {
                        if let Some(&t) = tails.get(p.index()) {
                            *p = t;
                        }
                    }
                }
            }
        }
        self.out
    }
}
