//! The value-flow allocation checker of road 2 (register allocation on SSA), independent of
//! the allocator: it shares no code with `regalloc::ssa`, only the `mir` types. Like
//! regalloc2's checker it does not compare instructions with their allocated versions one
//! by one; it tracks symbolically which SSA values every location holds and checks that each
//! operand reads the value the SSA program reads there.
//!
//! Input: `before`, the SSA function given to road 2 (phis, virtual registers, pins), and
//! `after`, its allocated version (physical registers only, before frame layout). In
//! `after`, the instructions flagged `INSERTED` are the allocator's (reloads, spill stores,
//! rematerialisations, Perms and phi copies and their sequentialised moves and swaps,
//! copies of tied operands); every other instruction of original block `b` must be, in
//! order, the non-phi instructions of `before`'s block `b`, with registers in place of
//! virtual registers and branch targets that reach the same original block through
//! inserted blocks (blocks `>= before.blocks.len()`, which hold inserted code and a jump).
//!
//! Abstract state: for every location (physical register, spill slot) the set of `before`
//! values it holds. Transfer functions:
//! * an original instruction: each use must find its value in its register (a physical
//!   operand of `before` must be that very register; a pinned operand its pin); a call then
//!   empties the clobbered registers; each definition `v` goes into its register, which
//!   then holds `{v}`, and `v` leaves every other location (a new dynamic instance);
//! * a copy or parallel copy: the destinations get the sources' sets (all read first);
//! * a swap (three `SWAP`-flagged operations on the same two registers): exchanges sets;
//! * a spill store / reload: slot ← register / register ← slot;
//! * a rematerialisation (`REMAT`): the register holds the values of every instruction of
//!   `before` that computes the same constant (same operation, immediate and physical uses);
//! * the edge into a block with phis: along the edge from original predecessor `P`, every
//!   location holding the phi operand from `P` also holds the phi's result (all phis read
//!   their operands first), and no location keeps an older instance of a phi result;
//! * at merges the sets are intersected.
//!
//! Limits: unreachable blocks are not checked; frame code is not (road 1's checker covers
//! `frame`, which both roads share).
//! Complexity: O(rounds × instructions × locations), the sets being small.

use crate::mir::cfg::CfgInfo;
use crate::mir::print::inst_to_string;
use crate::mir::{
    target, BlockId, Function, Imm, Inst, InstFlags, Opc, PReg, Pin, Reg, RegClass, VReg,
};
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// A violated expectation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowError {
    pub function: String,
    pub block: u32,
    pub inst: usize,
    pub text: String,
    pub message: String,
}

impl fmt::Display for FlowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "value-flow check: @{} b{}[{}] `{}`: {}",
            self.function, self.block, self.inst, self.text, self.message
        )
    }
}

impl std::error::Error for FlowError {}

/// A location: a register or a spill slot (frame object index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Loc {
    Reg(PReg),
    Slot(u32),
}

/// Which values each location holds; `None` = not yet reached (the top element).
type State = BTreeMap<Loc, Vec<VReg>>;

fn meet(a: &State, b: &State) -> State {
    let mut out = State::new();
    for (l, va) in a {
        if let Some(vb) = b.get(l) {
            let both: Vec<VReg> = va.iter().copied().filter(|v| vb.contains(v)).collect();
            if !both.is_empty() {
                out.insert(*l, both);
            }
        }
    }
    out
}

/// Checks `after` against `before` (see the module doc).
pub fn check(before: &Function, after: &Function) -> Result<(), FlowError> {
    let mut c = Checker::new(before, after);
    c.run()
}

struct Checker<'a> {
    before: &'a Function,
    after: &'a Function,
    n_orig: usize,
    info: CfgInfo,
    preds: Vec<Vec<BlockId>>,
    /// The values of `before` computed from an immediate and physical registers only, by
    /// (operation, immediate, registers read): what a rematerialisation can stand for.
    constants: HashMap<(Opc, Imm, Vec<Reg>), Vec<VReg>>,
}

impl<'a> Checker<'a> {
    fn new(before: &'a Function, after: &'a Function) -> Checker<'a> {
        Checker {
            before,
            after,
            n_orig: before.blocks.len(),
            info: CfgInfo::compute(after),
            preds: after.predecessors(),
            constants: constant_computations(before),
        }
    }

    fn error(&self, b: BlockId, k: usize, message: String) -> FlowError {
        let text = self
            .after
            .blocks
            .get(b.index())
            .and_then(|blk| blk.insts.get(k))
            .map(|i| inst_to_string(self.after, i))
            .unwrap_or_default();
        FlowError {
            function: self.after.name.clone(),
            block: b.0,
            inst: k,
            text,
            message,
        }
    }

    /// The original block an edge out of `b` stands for (through inserted blocks).
    fn original_target(&self, mut b: BlockId) -> Option<BlockId> {
        for _ in 0..self.after.blocks.len() {
            if b.index() < self.n_orig {
                return Some(b);
            }
            let s = self.after.blocks.get(b.index())?.successors();
            if s.len() != 1 {
                return None;
            }
            b = s[0];
        }
        None
    }

    /// The original block an edge into an original block comes from.
    fn original_source(&self, mut b: BlockId) -> Option<BlockId> {
        for _ in 0..self.after.blocks.len() {
            if b.index() < self.n_orig {
                return Some(b);
            }
            let p = self.preds.get(b.index())?;
            if p.len() != 1 {
                return None;
            }
            b = p[0];
        }
        None
    }

    fn run(&mut self) -> Result<(), FlowError> {
        if self.after.blocks.len() < self.n_orig {
            return Err(self.error(BlockId(0), 0, "blocks were removed".into()));
        }
        let n = self.after.blocks.len();
        let mut entry: Vec<Option<State>> = vec![None; n];
        entry[0] = Some(State::new());
        let order: Vec<BlockId> = self.info.rpo().collect();
        let mut changed = true;
        let mut rounds = 0;
        while changed {
            changed = false;
            rounds += 1;
            if rounds > 4 * n + 8 {
                return Err(self.error(BlockId(0), 0, "no fixpoint".into()));
            }
            for &b in &order {
                let Some(state) = entry[b.index()].clone() else {
                    continue;
                };
                let out = self.block(b, state)?;
                for s in self.after.block(b).successors() {
                    let incoming = self.edge(b, s, &out)?;
                    let new = match &entry[s.index()] {
                        None => incoming,
                        Some(old) => meet(old, &incoming),
                    };
                    if entry[s.index()].as_ref() != Some(&new) {
                        entry[s.index()] = Some(new);
                        changed = true;
                    }
                }
            }
        }
        Ok(())
    }

    /// The phi semantics on the edge `from -> to` (only when `to` is original with phis).
    fn edge(&self, from: BlockId, to: BlockId, state: &State) -> Result<State, FlowError> {
        if to.index() >= self.n_orig {
            return Ok(state.clone());
        }
        let phis: Vec<&Inst> = self
            .before
            .block(to)
            .insts
            .iter()
            .take_while(|i| i.is_phi())
            .collect();
        if phis.is_empty() {
            return Ok(state.clone());
        }
        let p = self.original_source(from).ok_or_else(|| {
            self.error(from, 0, format!("edge to b{} from no original block", to.0))
        })?;
        let mut flows: Vec<(VReg, VReg)> = Vec::new();
        for phi in &phis {
            let y = phi.defs[0].vreg().expect("phi result");
            let i = phi.phi_blocks().iter().position(|&q| q == p);
            if let Some(x) = i.and_then(|i| phi.uses[i].vreg()) {
                flows.push((x, y));
            }
        }
        let results: Vec<VReg> = phis.iter().filter_map(|p| p.defs[0].vreg()).collect();
        let mut out = State::new();
        for (l, vs) in state {
            let mut nv: Vec<VReg> = vs
                .iter()
                .copied()
                .filter(|v| !results.contains(v))
                .collect();
            for &(x, y) in &flows {
                if vs.contains(&x) && !nv.contains(&y) {
                    nv.push(y);
                }
            }
            if !nv.is_empty() {
                out.insert(*l, nv);
            }
        }
        Ok(out)
    }

    /// Runs block `b` from `state`, checking its original instructions.
    fn block(&self, b: BlockId, mut state: State) -> Result<State, FlowError> {
        let insts = &self.after.block(b).insts;
        let originals: Vec<&Inst> = if b.index() < self.n_orig {
            self.before
                .block(b)
                .insts
                .iter()
                .filter(|i| !i.is_phi())
                .collect()
        } else {
            Vec::new()
        };
        // Originals matched so far; `first` is the first unmatched one. Instructions may
        // come out of order (the post-allocation copy elimination of issue 21 reorders a
        // block's data-dependence graph), but only pure ones (no memory access, call,
        // control or pseudo operation) may pass each other or an impure one: the impure
        // instructions keep their relative order.
        let mut matched = vec![false; originals.len()];
        let mut first = 0;
        let mut k = 0;
        while k < insts.len() {
            let inst = &insts[k];
            if inst.flags.contains(InstFlags::SWAP) {
                self.swap(b, k, &mut state)?;
                k += 3;
                continue;
            }
            if inst.flags.contains(InstFlags::INSERTED) {
                self.inserted(b, k, inst, &mut state)?;
            } else if b.index() >= self.n_orig {
                if inst.control() != crate::mir::Control::Jump {
                    return Err(self.error(
                        b,
                        k,
                        "an inserted block holds an original instruction".into(),
                    ));
                }
            } else {
                while first < originals.len() && matched[first] {
                    first += 1;
                }
                if first >= originals.len() {
                    return Err(self.error(
                        b,
                        k,
                        "more instructions than the original block".into(),
                    ));
                }
                let (j, consumed) =
                    self.match_original(b, k, &originals, &matched, first, &mut state)?;
                matched[j] = true;
                k += consumed;
                continue;
            }
            k += 1;
        }
        if let Some(j) = matched.iter().position(|m| !m) {
            return Err(self.error(
                b,
                insts.len().saturating_sub(1),
                format!(
                    "original instruction `{}` is missing",
                    inst_to_string(self.before, originals[j])
                ),
            ));
        }
        Ok(state)
    }

    /// The original that instruction `k` of `b` stands for: the first unmatched one
    /// (`first`) when it has the same shape (operation and immediate; the reordering pass
    /// keeps such instructions in order), else a later unmatched one of the same operation
    /// that it fits, provided the instruction is pure or every unmatched original it passes
    /// is. Updates `state`; returns the original's index and the instructions consumed.
    fn match_original(
        &self,
        b: BlockId,
        k: usize,
        originals: &[&Inst],
        matched: &[bool],
        first: usize,
        state: &mut State,
    ) -> Result<(usize, usize), FlowError> {
        let inst = &self.after.block(b).insts[k];
        let run = |j: usize, st: &mut State| -> Result<usize, FlowError> {
            let orig = originals[j];
            if orig.opc == Opc::Psi && inst.opc == Opc::Copy {
                return self.psi(b, k, orig, st);
            }
            self.original(b, k, orig, inst, st)?;
            Ok(1)
        };
        let o = originals[first];
        let same_shape = (o.opc == inst.opc && self.same_imm(&o.imm, &inst.imm))
            || (o.opc == Opc::Psi && inst.opc == Opc::Copy);
        if same_shape {
            return Ok((first, run(first, state)?));
        }
        let first_err = {
            let mut st = state.clone();
            match run(first, &mut st) {
                Ok(n) => {
                    *state = st;
                    return Ok((first, n));
                }
                Err(e) => e,
            }
        };
        let inst_pure = is_pure(inst);
        let mut passed_impure = !is_pure(o);
        for j in first + 1..originals.len() {
            if matched[j] {
                continue;
            }
            if passed_impure && !inst_pure {
                break;
            }
            let oj = originals[j];
            if oj.opc == inst.opc || (oj.opc == Opc::Psi && inst.opc == Opc::Copy) {
                let mut st = state.clone();
                if let Ok(n) = run(j, &mut st) {
                    *state = st;
                    return Ok((j, n));
                }
            }
            passed_impure |= !is_pure(oj);
        }
        Err(first_err)
    }

    fn swap(&self, b: BlockId, k: usize, state: &mut State) -> Result<(), FlowError> {
        let insts = &self.after.block(b).insts;
        let regs = |i: &Inst| -> Option<(PReg, PReg, PReg)> {
            Some((
                i.defs.first()?.reg.preg()?,
                i.uses.first()?.reg.preg()?,
                i.uses.get(1)?.reg.preg()?,
            ))
        };
        let three: Vec<(PReg, PReg, PReg)> = (k..k + 3)
            .filter_map(|j| insts.get(j))
            .filter(|i| i.flags.contains(InstFlags::SWAP))
            .filter_map(regs)
            .collect();
        if three.len() != 3 {
            return Err(self.error(b, k, "malformed swap sequence".into()));
        }
        // xor: a = a^b; b = a^b; a = a^b (operands in either order);
        // add/sub: a = a+b; b = a-b; a = a-b.
        let (a, x0, y0) = three[0];
        let other = if x0 == a { y0 } else { x0 };
        let same = |p: (PReg, PReg), q: (PReg, PReg)| p == q || (p.0 == q.1 && p.1 == q.0);
        let xor_like = insts[k].opc == insts[k + 1].opc && insts[k].opc == insts[k + 2].opc;
        let ok = other != a
            && (x0 == a || y0 == a)
            && three[1].0 == other
            && three[2].0 == a
            && if xor_like {
                same((three[1].1, three[1].2), (a, other))
                    && same((three[2].1, three[2].2), (a, other))
            } else {
                (three[1].1, three[1].2) == (a, other) && (three[2].1, three[2].2) == (a, other)
            };
        if !ok {
            return Err(self.error(b, k, "malformed swap sequence".into()));
        }
        let va = state.remove(&Loc::Reg(a));
        let vb = state.remove(&Loc::Reg(other));
        if let Some(v) = va {
            state.insert(Loc::Reg(other), v);
        }
        if let Some(v) = vb {
            state.insert(Loc::Reg(a), v);
        }
        Ok(())
    }

    fn slot_of(&self, b: BlockId, k: usize, inst: &Inst) -> Result<Loc, FlowError> {
        match inst.imm {
            Imm::Frame { idx, offset: 0 } => Ok(Loc::Slot(idx.0)),
            _ => Err(self.error(b, k, "spill code without a frame slot".into())),
        }
    }

    fn preg(&self, b: BlockId, k: usize, r: Reg) -> Result<PReg, FlowError> {
        r.preg()
            .ok_or_else(|| self.error(b, k, "virtual register after allocation".into()))
    }

    fn inserted(
        &self,
        b: BlockId,
        k: usize,
        inst: &Inst,
        state: &mut State,
    ) -> Result<(), FlowError> {
        if inst.flags.contains(InstFlags::SPILL_STORE) {
            let slot = self.slot_of(b, k, inst)?;
            let src = self.preg(b, k, inst.uses.last().expect("stored value").reg)?;
            set(
                state,
                slot,
                state.get(&Loc::Reg(src)).cloned().unwrap_or_default(),
            );
            return Ok(());
        }
        if inst.flags.contains(InstFlags::SPILL_LOAD) {
            let slot = self.slot_of(b, k, inst)?;
            let dst = self.preg(b, k, inst.defs[0].reg)?;
            set(
                state,
                Loc::Reg(dst),
                state.get(&slot).cloned().unwrap_or_default(),
            );
            return Ok(());
        }
        if inst.flags.contains(InstFlags::REMAT) {
            let dst = self.preg(b, k, inst.defs[0].reg)?;
            let values = self.same_computation(inst);
            if values.is_empty() {
                return Err(self.error(b, k, "rematerialises nothing of the original".into()));
            }
            set(state, Loc::Reg(dst), values);
            return Ok(());
        }
        if matches!(inst.opc, Opc::Copy | Opc::ParCopy) {
            let mut moved = Vec::new();
            for (d, u) in inst.defs.iter().zip(&inst.uses) {
                let (d, u) = (self.preg(b, k, d.reg)?, self.preg(b, k, u.reg)?);
                moved.push((d, state.get(&Loc::Reg(u)).cloned().unwrap_or_default()));
            }
            for (d, vs) in moved {
                set(state, Loc::Reg(d), vs);
            }
            return Ok(());
        }
        Err(self.error(
            b,
            k,
            "inserted instruction that only moves values expected".into(),
        ))
    }

    /// A psi of `before` lowered to copies `gi? R := ai` in operand order into one register
    /// `R` (the copy of an operand already in `R` omitted — only the first can be).
    /// Returns the number of instructions consumed.
    fn psi(
        &self,
        b: BlockId,
        k: usize,
        orig: &Inst,
        state: &mut State,
    ) -> Result<usize, FlowError> {
        let insts = &self.after.block(b).insts;
        let pairs: Vec<&[crate::mir::Operand]> = orig.uses.chunks(2).collect();
        let dst = self.preg(b, k, insts[k].defs[0].reg)?;
        let run = insts[k..]
            .iter()
            .take(pairs.len())
            .take_while(|i| {
                i.opc == Opc::Copy
                    && !i.flags.contains(InstFlags::INSERTED)
                    && i.defs[0].reg == Reg::P(dst)
            })
            .count();
        let skip = pairs.len() - run;
        if skip > 1 {
            return Err(self.error(
                b,
                k,
                format!("psi lowered to {run} copies for {} operands", pairs.len()),
            ));
        }
        let holds = |state: &State, r: PReg, v: Option<VReg>| match v {
            Some(v) => state.get(&Loc::Reg(r)).is_some_and(|vs| vs.contains(&v)),
            None => true,
        };
        if skip == 1 && !holds(state, dst, pairs[0][1].vreg()) {
            return Err(self.error(
                b,
                k,
                "psi: the omitted first copy's operand is not in place".into(),
            ));
        }
        let true_guard = PReg::new(RegClass::G, simulator::isa::st120::GUARD_TRUE);
        for (i, pair) in pairs[skip..].iter().enumerate() {
            let c = &insts[k + i];
            let src = self.preg(b, k + i, c.uses[0].reg)?;
            if !holds(state, src, pair[1].vreg()) {
                return Err(self.error(b, k + i, "psi copy reads the wrong value".into()));
            }
            let guard_ok = match (pair[0].reg, c.guard()) {
                (Reg::P(p), None) => p == true_guard,
                (g, Some(cg)) => {
                    let r = self.preg(b, k + i, cg.reg)?;
                    match g {
                        Reg::P(p) => p == r,
                        Reg::V(v) => holds(state, r, Some(v)),
                    }
                }
                (Reg::V(_), None) => false,
            };
            if !guard_ok {
                return Err(self.error(b, k + i, "psi copy under the wrong guard".into()));
            }
        }
        if let Some(d) = orig.defs[0].vreg() {
            for vs in state.values_mut() {
                vs.retain(|x| *x != d);
            }
            state.retain(|_, vs| !vs.is_empty());
            state.insert(Loc::Reg(dst), vec![d]);
        }
        Ok(run)
    }

    /// Values of `before` computed by an instruction identical to the rematerialisation.
    fn same_computation(&self, remat: &Inst) -> Vec<VReg> {
        let key = (
            remat.opc,
            remat.imm.clone(),
            remat.uses.iter().map(|u| u.reg).collect(),
        );
        self.constants.get(&key).cloned().unwrap_or_default()
    }

    fn original(
        &self,
        b: BlockId,
        k: usize,
        orig: &Inst,
        inst: &Inst,
        state: &mut State,
    ) -> Result<(), FlowError> {
        if orig.opc != inst.opc
            || orig.defs.len() != inst.defs.len()
            || orig.uses.len() != inst.uses.len()
            || !self.same_imm(&orig.imm, &inst.imm)
        {
            return Err(self.error(
                b,
                k,
                format!(
                    "does not match `{}` of the original",
                    inst_to_string(self.before, orig)
                ),
            ));
        }
        for (j, (ou, au)) in orig.uses.iter().zip(&inst.uses).enumerate() {
            let r = self.preg(b, k, au.reg)?;
            if let Some(Pin::Phys(p)) = ou.pin {
                if p != r {
                    return Err(self.error(b, k, format!("use {j} is not in its pinned register")));
                }
            }
            match ou.reg {
                Reg::P(p) if p != r => {
                    return Err(self.error(b, k, format!("use {j} must read {p:?}")));
                }
                Reg::P(_) => {}
                Reg::V(v) => {
                    let holds = state.get(&Loc::Reg(r)).is_some_and(|vs| vs.contains(&v));
                    if !holds {
                        return Err(self.error(
                            b,
                            k,
                            format!(
                                "use {j} reads {} but {r:?} does not hold it (it holds {:?})",
                                v,
                                state.get(&Loc::Reg(r))
                            ),
                        ));
                    }
                }
            }
        }
        if inst.control() == crate::mir::Control::Call {
            for &r in target::call_clobbers(self.after.target) {
                state.remove(&Loc::Reg(r));
            }
        }
        for (j, (od, ad)) in orig.defs.iter().zip(&inst.defs).enumerate() {
            let r = self.preg(b, k, ad.reg)?;
            if let Some(Pin::Phys(p)) = od.pin {
                if p != r {
                    return Err(self.error(
                        b,
                        k,
                        format!("definition {j} is not in its pinned register"),
                    ));
                }
            }
            match od.reg {
                Reg::P(p) if p != r => {
                    return Err(self.error(b, k, format!("definition {j} must write {p:?}")));
                }
                Reg::P(_) => {
                    state.remove(&Loc::Reg(r));
                }
                Reg::V(v) => {
                    for vs in state.values_mut() {
                        vs.retain(|x| *x != v);
                    }
                    state.retain(|_, vs| !vs.is_empty());
                    state.insert(Loc::Reg(r), vec![v]);
                }
            }
        }
        Ok(())
    }

    /// Immediates agree, branch targets up to inserted blocks.
    fn same_imm(&self, a: &Imm, b: &Imm) -> bool {
        match (a, b) {
            (Imm::Block(x), Imm::Block(y)) => self.original_target(*y) == Some(*x),
            _ => a == b,
        }
    }
}

/// Every single-result instruction of `f` that reads physical registers only, by (operation,
/// immediate, registers read), with the values it defines.
fn constant_computations(f: &Function) -> HashMap<(Opc, Imm, Vec<Reg>), Vec<VReg>> {
    let mut m: HashMap<(Opc, Imm, Vec<Reg>), Vec<VReg>> = HashMap::new();
    for i in f.blocks.iter().flat_map(|b| &b.insts) {
        let (true, Some(v)) = (i.defs.len() == 1, i.defs.first().and_then(|d| d.vreg())) else {
            continue;
        };
        if i.uses.iter().all(|u| u.reg.preg().is_some()) {
            let key = (i.opc, i.imm.clone(), i.uses.iter().map(|u| u.reg).collect());
            m.entry(key).or_default().push(v);
        }
    }
    m
}

fn set(state: &mut State, l: Loc, vs: Vec<VReg>) {
    if vs.is_empty() {
        state.remove(&l);
    } else {
        state.insert(l, vs);
    }
}

/// Whether an instruction only computes registers from registers (no memory access, call,
/// control transfer, system call or pseudo operation): such instructions may be reordered.
pub fn is_pure(inst: &Inst) -> bool {
    use simulator::isa::st120::Opcode as O;
    match inst.opc {
        Opc::St231(o) => {
            !o.is_mem()
                && !o.is_control()
                && !o.props().contains(simulator::isa::st231::OpProps::CALL)
                && o.info().format != simulator::isa::st231::Format::Syscall
        }
        Opc::St120(o) => matches!(
            o,
            O::Bin(_)
                | O::BinI(_)
                | O::Un(_)
                | O::Make
                | O::More
                | O::MakeP
                | O::MakeA
                | O::MoreA
                | O::Mul(..)
                | O::Cmp(..)
                | O::CmpI(..)
                | O::Guard(_)
                | O::NotG
                | O::MoveG
                | O::SetG
                | O::ClrG
                | O::Bool
                | O::CopyA
                | O::CopyD
        ),
        Opc::Copy => true,
        _ => false,
    }
}
