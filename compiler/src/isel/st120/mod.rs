//! Instruction selection for the ST120 (isa.md §B): mid-level SSA IR to machine-level SSA with
//! the renaming constraints of Rastello, de Ferrière and Guillon, "Optimizing translation out
//! of SSA using renaming constraints" (CGO 2004), §2.1 and Fig. 2, as operand pins.
//!
//! What the output looks like (the "SSA form" of `docs/design.md`):
//! * three register classes (isa.md §B1): IR values of type `ptr` live in the address unit
//!   (`P`), `i32` values in the 40-bit data unit (`R`), conditions in guards (`G`). A value
//!   that crosses files is converted explicitly at its definition: `COPYA` (R→P), `COPYD`
//!   (P→R), `BOOL` (G→R) — real operations, not coalescable copies;
//! * `.input` defines the parameters pinned to `R0..R3` / `P0..P2` (separate sequences by C
//!   type, isa.md §B5), further parameters are loaded from `IncomingArg` frame objects;
//!   `.output` uses the result pinned to `R0`/`P0` before `RTS`; calls pin their arguments
//!   and result the same way ([`calls`]);
//! * tied operands are uses pinned to their definition's variable: `MORE`/`MOREA` after
//!   `MAKE`/`MAKEA` ([`consts`], Rastello Fig. 2 S5–S6), the post-modified base of
//!   auto-increment accesses ([`postinc`], Fig. 2 S1), `NOTG`;
//! * branches: the condition is compared into a guard `g`, `g? GOTO.f else` (taken when `g`
//!   is false, isa.md §B4), then `GOTO then`;
//! * if-conversion ([`ifconv`]) and `select` produce guarded operations merged by `psi`.
//!
//! **Value invariant** (isa.md §B4 "40-bit data", ASSUMPTION: 32-bit-typed operations
//! sign-extend bit 31, `..U` ones zero-extend; ASSUMPTION: `COPYD` sign-extends bit 31): an
//! `i32` value in an `R` register is always canonical — bit 31 sign-extended into the 8
//! guard bits. Operations whose machine
//! result is not canonical (multiply-accumulates, unsigned `..U` results, `SHRUW` by a
//! register amount, `MPUULL`) are followed by `EXTW`. Logic operations act on 40 bits, and of
//! canonical inputs give canonical results (tested in [`arith`]).
//!
//! **Lazy values.** Constants, symbol and stack-slot addresses, `pointer ± constant` and
//! comparisons have no code at their definition: they are materialised on demand, in the
//! register class the use asks for, at the definition point (so that the result dominates
//! every use), or folded into the using operation (immediates, `@(P + u9)` offsets,
//! guards). Conversions between classes are placed the same way. The placement works with
//! "pending" instructions recorded per block and position and spliced in at the end.
//!
//! Complexity: linear in the size of the function, plus O(block length²) in the
//! post-increment planner's use scan (bounded by a cap).

mod arith;
mod calls;
mod consts;
mod ifconv;
mod intrinsics;
mod memory;
mod postinc;
mod printf;
#[cfg(test)]
mod tests;

use super::{IselError, IselOptions};
use crate::ir::{self, Op, Ty, Value};
use crate::mir::{self, BlockId, Imm, Inst, InstFlags, Opc, Operand, PReg, Pin, RegClass, VReg};
use simulator::isa::st120::Opcode as O;
use simulator::isa::Target;
use std::collections::HashMap;

/// What instruction selection did to one function (for `pipeline::PassDetail`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Pointer increments folded into post-modify loads/stores.
    pub post_increments: u64,
    /// Diamonds and triangles turned into guarded code.
    pub if_conversions: u64,
    /// `psi` operations created (from if-conversion and `select`).
    pub psis: u64,
    /// Cross-file conversions (`COPYA`, `COPYD`, `BOOL`).
    pub conversions: u64,
    /// Intrinsic calls mapped to machine operations.
    pub intrinsics: u64,
}

impl Stats {
    /// As a pass detail list.
    pub fn detail(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("post_increments", self.post_increments),
            ("if_conversions", self.if_conversions),
            ("psis", self.psis),
            ("conversions", self.conversions),
            ("intrinsics", self.intrinsics),
        ]
    }
}

/// Selects one function.
pub fn select_function(
    module: &ir::Module,
    f: &ir::Function,
    opts: &IselOptions,
) -> Result<mir::Function, IselError> {
    select_function_with_stats(module, f, opts).map(|(m, _)| m)
}

/// Selects one function and reports what the selection did.
pub fn select_function_with_stats(
    module: &ir::Module,
    f: &ir::Function,
    opts: &IselOptions,
) -> Result<(mir::Function, Stats), IselError> {
    let mut s = Selector::new(module, f, opts);
    s.run()?;
    Ok((s.mf, s.stats))
}

/// Where an instruction goes: a block, a position in the block's directly emitted list, and
/// the guard in force there (inside an if-converted arm).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Site {
    block: BlockId,
    pos: usize,
    guard: Option<VReg>,
    /// The current end of the current block: emit directly (a stored definition point has
    /// `now == false` and goes through the pending list, even if nothing followed it yet).
    now: bool,
}

/// The machine registers that hold one IR value, per class, and where it is defined.
#[derive(Clone, Debug, Default)]
struct ValState {
    r: Option<VReg>,
    p: Option<VReg>,
    site: Option<Site>,
}

/// A mir phi waiting for its operands (filled once every block is selected).
struct PendingPhi {
    block: BlockId,
    index: usize,
    class: RegClass,
    args: Vec<(ir::BlockId, Value)>,
}

/// Maximum depth of the walks through `pointer ± constant` chains.
const CHAIN_CAP: usize = 32;
/// Maximum length of a chain of copies.
const COPY_CAP: usize = 1 << 16;
/// Every this many links of a `pointer ± constant` chain, one is computed eagerly, so that
/// materialising a lazy address never recurses deeper than this.
const LAZY_ADDR_RUN: u8 = 16;
/// Maximum nesting of on-demand materialisations (each level is a few frames).
const GET_DEPTH_CAP: u32 = 256;

pub(crate) struct Selector<'a> {
    module: &'a ir::Module,
    f: &'a ir::Function,
    opts: &'a IselOptions,
    mf: mir::Function,
    stats: Stats,
    /// Current block of direct emission and the guard in force.
    cur: BlockId,
    guard: Option<VReg>,
    vals: Vec<ValState>,
    /// Defining instruction of each value: (block, index); parameters have none.
    def_at: Vec<Option<(ir::BlockId, usize)>>,
    /// Number of uses of each value (instructions, phis, terminators).
    use_count: Vec<u32>,
    /// `shl x, 1|2` values used only as the index of pointer additions: they fold into the
    /// scaled `ADDHA`/`ADDWA` and have no code of their own unless asked for.
    scaled_index: Vec<bool>,
    /// Instructions to splice in per block: (position, instruction), in request order.
    pending: Vec<Vec<(usize, Inst)>>,
    /// Mir block of each IR block (its first instructions) and where its terminator went.
    mblock: Vec<Option<BlockId>>,
    term_site: Vec<Option<Site>>,
    phis: Vec<PendingPhi>,
    postinc: postinc::Plan,
    ifconv: ifconv::Plans,
    /// Stack-slot frame objects, by IR slot.
    slot_frame: Vec<mir::FrameIdx>,
    /// Position of each lazy `pointer ± constant` value in its run of lazy links (1..=run),
    /// 0 for values that are not lazy addresses (see [`LAZY_ADDR_RUN`]).
    addr_run: Vec<u8>,
    /// Current nesting of [`Selector::get`].
    get_depth: u32,
    /// `p + idx` values whose only use is the address of one access of `size` bytes and whose
    /// index is `x << log2(size)` (or any index for bytes): the access uses the register
    /// offset mode `@(p + Pq)` with `Pq = x` (scaled by the access size) — value → (p, x,
    /// size).
    pub(crate) reg_addr: HashMap<Value, (Value, Value, u32)>,
}

fn err(f: &ir::Function, message: impl Into<String>) -> IselError {
    IselError {
        function: f.name.clone(),
        message: message.into(),
    }
}

/// Register class of an IR type.
pub(crate) fn class_of(t: Ty) -> RegClass {
    match t {
        Ty::Ptr => RegClass::P,
        Ty::I32 => RegClass::R,
    }
}

/// An ST120 operation.
pub(crate) fn op(o: O, defs: Vec<Operand>, uses: Vec<Operand>, imm: Imm) -> Inst {
    Inst::new(Opc::St120(o), defs, uses, imm)
}

fn uses_of(v: &[VReg]) -> Vec<Operand> {
    v.iter().map(|&x| Operand::new(x)).collect()
}

impl<'a> Selector<'a> {
    fn new(module: &'a ir::Module, f: &'a ir::Function, opts: &'a IselOptions) -> Self {
        let n = f.num_values();
        let mut def_at = vec![None; n];
        let mut use_count = vec![0u32; n];
        for b in f.block_ids() {
            let blk = f.block(b);
            for (i, inst) in blk.insts.iter().enumerate() {
                if let Some(d) = inst.dst {
                    def_at[d.index()] = Some((b, i));
                }
                inst.op.for_each_use(|u| use_count[u.index()] += 1);
            }
            blk.term.for_each_use(|u| use_count[u.index()] += 1);
        }
        let scaled_index = scaled_index_values(f, &use_count);
        Selector {
            module,
            f,
            opts,
            mf: mir::Function::new(&f.name, Target::St120),
            stats: Stats::default(),
            cur: BlockId(0),
            guard: None,
            vals: vec![ValState::default(); n],
            def_at,
            use_count,
            scaled_index,
            pending: Vec::new(),
            mblock: vec![None; f.num_blocks()],
            term_site: vec![None; f.num_blocks()],
            phis: Vec::new(),
            postinc: postinc::Plan::default(),
            ifconv: ifconv::Plans::default(),
            slot_frame: Vec::new(),
            addr_run: vec![0; n],
            get_depth: 0,
            reg_addr: HashMap::new(),
        }
    }

    pub(crate) fn error(&self, message: impl Into<String>) -> IselError {
        err(self.f, message)
    }

    // ---------------------------------------------------------------------------------
    // Values

    /// The defining operation of `v`, if it is defined by an instruction.
    pub(crate) fn def_op(&self, v: Value) -> Option<&'a Op> {
        let (b, i) = self.def_at.get(v.index()).copied().flatten()?;
        let f: &'a ir::Function = self.f;
        Some(&f.block(b).insts[i].op)
    }

    /// `v` with copies looked through (a copy cycle, possible only in unreachable code, or
    /// an absurdly long chain stops the walk; `get` then reports an error).
    pub(crate) fn resolve(&self, mut v: Value) -> Value {
        for _ in 0..COPY_CAP {
            match self.def_op(v) {
                Some(Op::Copy(a)) => v = *a,
                _ => break,
            }
        }
        v
    }

    /// The constant `v` holds, if it is defined by `const`.
    pub(crate) fn const_of(&self, v: Value) -> Option<i32> {
        match self.def_op(self.resolve(v)) {
            Some(Op::Const(c)) => Some(*c),
            _ => None,
        }
    }

    pub(crate) fn ty(&self, v: Value) -> Ty {
        self.f.value_ty(v)
    }

    /// `base ± constant` with a pointer result: such values are lazy (folded into addressing
    /// modes or materialised with one AU operation). Returns the base and the byte offset.
    pub(crate) fn addr_imm(&self, v: Value) -> Option<(Value, i32)> {
        let v = self.resolve(v);
        if self.addr_run[v.index()] == 0 {
            return None;
        }
        self.addr_imm_pattern(v)
    }

    /// The `pointer ± constant` shape of `v` (resolved), whether lazy or not.
    fn addr_imm_pattern(&self, v: Value) -> Option<(Value, i32)> {
        if self.postinc.folded_adds.contains(&v) || self.ty(v) != Ty::Ptr {
            return None;
        }
        match self.def_op(v)? {
            Op::Bin(op @ (ir::BinOp::Add | ir::BinOp::Sub), a, b) => {
                let (a, b) = (*a, *b);
                if let (Some(c), true) = (self.const_of(b), self.ty(a) == Ty::Ptr) {
                    let c = if *op == ir::BinOp::Sub {
                        c.wrapping_neg()
                    } else {
                        c
                    };
                    return Some((a, c));
                }
                if *op == ir::BinOp::Add && self.ty(b) == Ty::Ptr {
                    if let Some(c) = self.const_of(a) {
                        return Some((b, c));
                    }
                }
                None
            }
            _ => None,
        }
    }

    /// Whether `v` (resolved) has no code at its definition (see the module doc).
    fn is_lazy(&self, v: Value) -> bool {
        match self.def_op(v) {
            Some(Op::Const(_) | Op::SymAddr(..) | Op::SlotAddr(_) | Op::Cmp(..) | Op::Copy(_)) => {
                true
            }
            Some(Op::Bin(..)) => {
                self.addr_imm(v).is_some()
                    || self.scaled_index[v.index()]
                    || self.reg_addr.contains_key(&v)
            }
            _ => false,
        }
    }

    fn cached(&self, v: Value, c: RegClass) -> Option<VReg> {
        let s = &self.vals[v.index()];
        match c {
            RegClass::R => s.r,
            RegClass::P => s.p,
            _ => None,
        }
    }

    pub(crate) fn set_val(&mut self, v: Value, c: RegClass, r: VReg) {
        let s = &mut self.vals[v.index()];
        match c {
            RegClass::P => s.p = Some(r),
            _ => s.r = Some(r),
        }
    }

    /// Records that `v` is defined here (after what was emitted so far).
    pub(crate) fn define_here(&mut self, v: Value, c: RegClass, r: VReg) {
        self.set_val(v, c, r);
        self.vals[v.index()].site = Some(self.point());
    }

    /// The register of class `c` (R or P) that holds `v`, materialising or converting it at
    /// its definition if needed.
    pub(crate) fn get(&mut self, v: Value, c: RegClass) -> Result<VReg, IselError> {
        if self.get_depth >= GET_DEPTH_CAP {
            return Err(self.error(format!(
                "expression nesting deeper than {GET_DEPTH_CAP} at value {v}"
            )));
        }
        self.get_depth += 1;
        let r = self.get_inner(v, c);
        self.get_depth -= 1;
        r
    }

    fn get_inner(&mut self, v: Value, c: RegClass) -> Result<VReg, IselError> {
        let v = self.resolve(v);
        if let Some(Op::Copy(_)) = self.def_op(v) {
            return Err(self.error(format!("copy chain too long or cyclic at {v}")));
        }
        if let Some(r) = self.cached(v, c) {
            return Ok(r);
        }
        let site = self.vals[v.index()]
            .site
            .ok_or_else(|| self.error(format!("value {v} used before its definition")))?;
        let r = match self.def_op(v) {
            Some(Op::Const(k)) => self.const_into(site, c, *k),
            Some(Op::SymAddr(name, off)) => self.sym_into(site, c, name, *off),
            Some(Op::SlotAddr(s)) if c == RegClass::P => self.slot_addr(site, *s),
            Some(Op::Cmp(cc, a, b)) if c == RegClass::R => {
                let (cc, a, b) = (*cc, *a, *b);
                let g = self.compare(site, cc, a, b, false)?;
                self.stats.conversions += 1;
                self.emit_def(site, O::Bool, RegClass::R, &[g], Imm::None)
            }
            Some(Op::Bin(ir::BinOp::Shl, x, k))
                if c == RegClass::R && self.scaled_index[v.index()] =>
            {
                let (x, k) = (*x, self.const_of(*k).unwrap_or(0));
                let xr = self.get(x, RegClass::R)?;
                self.emit_def(
                    site,
                    O::BinI(simulator::isa::st120::BinOp::Shl),
                    RegClass::R,
                    &[xr],
                    Imm::Int(k & 31),
                )
            }
            Some(Op::Bin(..)) if c == RegClass::P && self.reg_addr.contains_key(&v) => {
                let (base, x, size) = self.reg_addr[&v];
                let (bp, xp) = (self.get(base, RegClass::P)?, self.get(x, RegClass::P)?);
                let o = match size {
                    4 => simulator::isa::st120::AuOp::AddW,
                    2 => simulator::isa::st120::AuOp::AddH,
                    _ => simulator::isa::st120::AuOp::AddB,
                };
                self.emit_def(site, O::Au(o), RegClass::P, &[bp, xp], Imm::None)
            }
            Some(Op::Bin(..)) if c == RegClass::P && self.addr_imm(v).is_some() => {
                let (base, k) = self.addr_imm(v).expect("checked");
                let b = self.get(base, RegClass::P)?;
                self.au_add_imm(site, b, k)
            }
            _ => {
                let other = match c {
                    RegClass::R => RegClass::P,
                    _ => RegClass::R,
                };
                let src = match self.cached(v, other) {
                    Some(s) => s,
                    None if self.is_lazy(v) => self.get(v, other)?,
                    None => return Err(self.error(format!("value {v} has no register (internal)"))),
                };
                let conv = if c == RegClass::P { O::CopyA } else { O::CopyD };
                self.stats.conversions += 1;
                self.emit_def(site, conv, c, &[src], Imm::None)
            }
        };
        self.set_val(v, c, r);
        Ok(r)
    }

    // ---------------------------------------------------------------------------------
    // Emission

    /// The current emission point.
    pub(crate) fn here(&self) -> Site {
        Site {
            block: self.cur,
            pos: self.mf.block(self.cur).insts.len(),
            guard: self.guard,
            now: true,
        }
    }

    /// The current point as a stored definition point (see [`Site::now`]).
    pub(crate) fn point(&self) -> Site {
        Site {
            now: false,
            ..self.here()
        }
    }

    /// Emits `inst` at `at` (guarded by the site's guard).
    pub(crate) fn put(&mut self, at: Site, mut inst: Inst) {
        if let (Some(g), Opc::St120(_)) = (at.guard, inst.opc) {
            if !inst.flags.contains(InstFlags::GUARDED) {
                inst.flags |= InstFlags::GUARDED;
                inst.uses.push(Operand::new(g));
            }
        }
        if at.now {
            self.mf.blocks[at.block.index()].insts.push(inst);
        } else {
            let bi = at.block.index();
            if self.pending.len() <= bi {
                self.pending.resize_with(bi + 1, Vec::new);
            }
            self.pending[bi].push((at.pos, inst));
        }
    }

    /// Emits `o` defining a new register of class `c` from `uses`.
    pub(crate) fn emit_def(
        &mut self,
        at: Site,
        o: O,
        c: RegClass,
        uses: &[VReg],
        imm: Imm,
    ) -> VReg {
        let d = self.mf.new_vreg(c);
        self.put(at, op(o, vec![Operand::new(d)], uses_of(uses), imm));
        d
    }

    /// Emits `o` at the current point.
    pub(crate) fn emit_here(&mut self, o: O, c: RegClass, uses: &[VReg], imm: Imm) -> VReg {
        let at = self.here();
        self.emit_def(at, o, c, uses, imm)
    }

    /// A tied operation `d = o s^d, imm` (`MORE`, `MOREA`, `NOTG`).
    pub(crate) fn emit_tied(&mut self, at: Site, o: O, c: RegClass, src: VReg, imm: Imm) -> VReg {
        let d = self.mf.new_vreg(c);
        self.put(
            at,
            op(
                o,
                vec![Operand::new(d)],
                vec![Operand::pinned(src, Pin::Var(d))],
                imm,
            ),
        );
        d
    }

    pub(crate) fn sp() -> PReg {
        mir::target::stack_pointer(Target::St120)
    }

    pub(crate) fn g15() -> PReg {
        PReg::new(RegClass::G, simulator::isa::st120::GUARD_TRUE)
    }

    fn goto(&mut self, target: BlockId) {
        let at = self.here();
        self.put(at, op(O::Goto, vec![], vec![], Imm::Block(target)));
    }

    // ---------------------------------------------------------------------------------
    // Driver

    fn run(&mut self) -> Result<(), IselError> {
        let f = self.f;
        if f.blocks.is_empty() {
            return Err(self.error("function has no blocks"));
        }
        let cfg = crate::analysis::cfg::Cfg::compute(f);
        let rpo: Vec<ir::BlockId> = cfg.rpo().to_vec();
        let preds = f.predecessors();
        self.postinc = if self.opts.post_increment {
            postinc::plan(self)
        } else {
            postinc::Plan::default()
        };
        self.number_lazy_addresses(&rpo);
        self.reg_addr = memory::plan_reg_offsets(self);
        self.ifconv = if self.opts.if_convert {
            ifconv::plan(self, &rpo, &preds)
        } else {
            ifconv::Plans::default()
        };
        for s in &f.slots {
            let idx = self.mf.new_frame_object(
                s.size.max(1),
                s.align.max(1),
                mir::FrameKind::Local,
                &s.name,
            );
            self.slot_frame.push(idx);
        }
        // Block numbering: the entry first; a separate `.input` block if the IR entry is a
        // branch target (phis must come first in their block).
        let entry_has_preds = !preds[0].is_empty();
        let mut next = if entry_has_preds { 1 } else { 0 };
        for &b in &rpo {
            if self.ifconv.absorbed.contains(&b) {
                continue;
            }
            self.mblock[b.index()] = Some(BlockId(next));
            next += 1;
        }
        while self.mf.blocks.len() < next as usize {
            self.mf.new_block();
        }
        self.cur = BlockId(0);
        calls::select_input(self)?;
        if entry_has_preds {
            let b0 = self.mblock[0].expect("entry is reachable");
            self.goto(b0);
        }
        for &b in &rpo {
            if self.ifconv.absorbed.contains(&b) {
                continue;
            }
            self.cur = self.mblock[b.index()].expect("numbered");
            self.guard = None;
            self.select_chain(b)?;
        }
        self.fill_phis()?;
        self.splice_pending();
        Ok(())
    }

    /// Fills [`Selector::addr_run`] in reverse post-order (bases before their uses).
    fn number_lazy_addresses(&mut self, rpo: &[ir::BlockId]) {
        let f = self.f;
        for &b in rpo {
            for inst in &f.block(b).insts {
                let Some(d) = inst.dst else { continue };
                let Some((base, _)) = self.addr_imm_pattern(d) else {
                    continue;
                };
                let below = self.addr_run[self.resolve(base).index()];
                self.addr_run[d.index()] = if below >= LAZY_ADDR_RUN { 0 } else { below + 1 };
            }
        }
    }

    /// Selects block `b` and, when `b` heads an if-converted region, its arms and join into
    /// the same machine block.
    fn select_chain(&mut self, mut b: ir::BlockId) -> Result<(), IselError> {
        let mut first = true;
        loop {
            self.mblock[b.index()] = Some(self.cur);
            if first {
                // A join's phis became psis in `convert`.
                self.select_phis(b)?;
                first = false;
            }
            self.select_body(b)?;
            if let Some(plan) = self.ifconv.by_head.get(&b).cloned() {
                let join = self.convert(&plan)?;
                b = join;
                continue;
            }
            self.select_term(b)?;
            return Ok(());
        }
    }

    fn select_phis(&mut self, b: ir::BlockId) -> Result<(), IselError> {
        let blk = self.f.block(b);
        for inst in blk.insts.iter().take_while(|i| i.op.is_phi()) {
            let (Some(d), Op::Phi(args)) = (inst.dst, &inst.op) else {
                continue;
            };
            let c = class_of(self.ty(d));
            let r = self.mf.new_vreg(c);
            let index = self.mf.block(self.cur).insts.len();
            let phi = Inst::new(Opc::Phi, vec![Operand::new(r)], vec![], Imm::Blocks(vec![]));
            self.mf.block_mut(self.cur).insts.push(phi);
            self.phis.push(PendingPhi {
                block: self.cur,
                index,
                class: c,
                args: args.clone(),
            });
            self.set_val(d, c, r);
        }
        // Phi values are defined after all phis.
        let here = self.point();
        for inst in blk.insts.iter().take_while(|i| i.op.is_phi()) {
            if let Some(d) = inst.dst {
                self.vals[d.index()].site = Some(here);
            }
        }
        Ok(())
    }

    /// Selects the non-phi instructions of `b` at the current point.
    pub(crate) fn select_body(&mut self, b: ir::BlockId) -> Result<(), IselError> {
        let f: &'a ir::Function = self.f;
        let blk = f.block(b);
        for (i, inst) in blk.insts.iter().enumerate() {
            if inst.op.is_phi() {
                continue;
            }
            self.select_inst(b, i, inst)?;
        }
        Ok(())
    }

    fn select_inst(&mut self, b: ir::BlockId, i: usize, inst: &ir::Inst) -> Result<(), IselError> {
        let dst = inst.dst;
        if let Some(d) = dst {
            if self.is_lazy(d) {
                self.vals[d.index()].site = Some(self.point());
                return Ok(());
            }
            if self.postinc.folded_adds.contains(&d) {
                return Ok(()); // defined by its post-modify access
            }
        }
        match &inst.op {
            Op::Bin(bop, a, c) => self.select_bin(dst, *bop, *a, *c),
            Op::Un(u, a) => self.select_un(dst, *u, *a),
            Op::Select(c, a, x) => self.select_select(dst, *c, *a, *x),
            Op::Load { ty, addr, .. } => self.select_load(b, i, dst, *ty, *addr),
            Op::Store {
                ty, addr, value, ..
            } => self.select_store(b, i, *ty, *addr, *value),
            Op::Call { callee, args } => calls::select_call(self, dst, callee, args),
            Op::Const(_)
            | Op::Copy(_)
            | Op::SymAddr(..)
            | Op::SlotAddr(_)
            | Op::Cmp(..)
            | Op::Phi(_) => Ok(()),
        }
    }

    fn select_term(&mut self, b: ir::BlockId) -> Result<(), IselError> {
        let term = self.f.block(b).term.clone();
        self.term_site[b.index()] = Some(self.point());
        match term {
            ir::Terminator::Jump(t) => {
                let mt = self.target_block(t)?;
                self.goto(mt);
            }
            ir::Terminator::Branch { cond, then_, else_ } => {
                let (mt, me) = (self.target_block(then_)?, self.target_block(else_)?);
                let g = self.cond_guard(cond, false)?;
                let at = self.here();
                self.put(
                    at,
                    op(O::GotoF, vec![], vec![], Imm::Block(me)).with_flags(InstFlags::GUARDED),
                );
                // `put` does not add a guard to an already guarded instruction: add it here.
                let blk = self.mf.block_mut(self.cur);
                blk.insts
                    .last_mut()
                    .expect("just pushed")
                    .uses
                    .push(Operand::new(g));
                self.goto(mt);
            }
            ir::Terminator::Return(v) => calls::select_return(self, v)?,
            ir::Terminator::Unreachable => {
                // Undefined behaviour if reached: return without a value.
                let at = self.here();
                self.put(at, Inst::new(Opc::Output, vec![], vec![], Imm::None));
                let at = self.here();
                self.put(at, op(O::Rts, vec![], vec![], Imm::None));
            }
        }
        Ok(())
    }

    fn target_block(&self, b: ir::BlockId) -> Result<BlockId, IselError> {
        self.mblock[b.index()].ok_or_else(|| self.error(format!("branch to unselected {b}")))
    }

    /// Fills the operands of every phi: constants are materialised at the end of the
    /// predecessor, other values in the phi's class at their definition.
    fn fill_phis(&mut self) -> Result<(), IselError> {
        let phis = std::mem::take(&mut self.phis);
        for p in &phis {
            let mut blocks = Vec::with_capacity(p.args.len());
            let mut uses = Vec::with_capacity(p.args.len());
            for &(pred, v) in &p.args {
                let Some(site) = self.term_site[pred.index()] else {
                    continue; // unreachable predecessor
                };
                let r = match self.const_of(v) {
                    Some(k) => {
                        let at = Site {
                            guard: None,
                            ..site
                        };
                        self.const_into(at, p.class, k)
                    }
                    None => self.get(v, p.class)?,
                };
                blocks.push(site.block);
                uses.push(Operand::new(r));
            }
            let inst = &mut self.mf.block_mut(p.block).insts[p.index];
            inst.uses = uses;
            inst.imm = Imm::Blocks(blocks);
        }
        Ok(())
    }

    /// Splices the pending instructions into their blocks (stable by position).
    fn splice_pending(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        for (bi, mut list) in pending.into_iter().enumerate() {
            if list.is_empty() {
                continue;
            }
            list.sort_by_key(|(pos, _)| *pos);
            let old = std::mem::take(&mut self.mf.blocks[bi].insts);
            let mut out = Vec::with_capacity(old.len() + list.len());
            let mut it = list.into_iter().peekable();
            for (i, inst) in old.into_iter().enumerate() {
                while let Some((_, p)) = it.next_if(|(pos, _)| *pos <= i) {
                    out.push(p);
                }
                out.push(inst);
            }
            out.extend(it.map(|(_, p)| p));
            self.mf.blocks[bi].insts = out;
        }
    }

    /// Number of uses of `v` in the IR function.
    pub(crate) fn uses_of_value(&self, v: Value) -> u32 {
        self.use_count[v.index()]
    }

    pub(crate) fn module(&self) -> &'a ir::Module {
        self.module
    }
}

/// The `shl x, 1|2` values (`i32`) whose every use is the integer operand of a pointer
/// addition (see [`Selector::scaled_index`]).
fn scaled_index_values(f: &ir::Function, use_count: &[u32]) -> Vec<bool> {
    let n = f.num_values();
    let mut index_uses = vec![0u32; n];
    for b in f.block_ids() {
        for inst in &f.block(b).insts {
            if let (Some(d), Op::Bin(ir::BinOp::Add, a, x)) = (inst.dst, &inst.op) {
                if f.value_ty(d) != Ty::Ptr {
                    continue;
                }
                match (f.value_ty(*a), f.value_ty(*x)) {
                    (Ty::Ptr, Ty::I32) => index_uses[x.index()] += 1,
                    (Ty::I32, Ty::Ptr) => index_uses[a.index()] += 1,
                    _ => {}
                }
            }
        }
    }
    let mut out = vec![false; n];
    let consts: HashMap<Value, i32> = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| match (i.dst, &i.op) {
            (Some(d), Op::Const(k)) => Some((d, *k)),
            _ => None,
        })
        .collect();
    for b in f.block_ids() {
        for inst in &f.block(b).insts {
            if let (Some(d), Op::Bin(ir::BinOp::Shl, _, k)) = (inst.dst, &inst.op) {
                let scalable = matches!(consts.get(k), Some(1 | 2));
                out[d.index()] = scalable
                    && f.value_ty(d) == Ty::I32
                    && index_uses[d.index()] > 0
                    && index_uses[d.index()] == use_count[d.index()];
            }
        }
    }
    out
}

/// For tests and statistics: counts of each ST120 opcode in a function.
pub fn opcode_histogram(f: &mir::Function) -> HashMap<String, usize> {
    let mut h = HashMap::new();
    for b in &f.blocks {
        for i in &b.insts {
            *h.entry(mir::print::opc_name(i.opc)).or_insert(0) += 1;
        }
    }
    h
}
