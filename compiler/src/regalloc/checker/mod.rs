//! Allocation checker, independent of the allocator (it shares no code with `irc`, `spill`,
//! `interference` or `liveness`; only the `mir` types). In the style of the symbolic checker
//! of regalloc2 (`src/checker.rs`): a forward dataflow over the lattice 𝒫(VReg) per location.
//!
//! Input: `before`, the allocation-form function given to the allocator, and `after`, the
//! allocated (or final) function. The instructions are matched one to one: `after` may
//! additionally contain spill code (`SPILL_LOAD`/`SPILL_STORE`) and frame code (`FRAME`),
//! and may lack copies of `before` (coalesced: source and destination got one register). A
//! missing copy is recognised greedily: a copy of `before` matches the next copy of `after`
//! when that copy's source register holds the copied vreg, otherwise it was deleted.
//!
//! State: for every location (physical register or stack slot) the set of vregs whose
//! current value it holds; callee-saved registers, the link register and SP start with a
//! symbolic *entry value*. Transfer functions:
//! * a definition of `v` in `L`: `L = {v}`, and `v` is removed everywhere else;
//! * a copy `v := u` (kept or coalesced): `v` is valid exactly where `u` is, the destination
//!   gets `state(src) ∪ {v}`;
//! * spill store / load (and frame saves / restores): the slot gets the register's set or
//!   vice versa; a frame SP adjustment moves the SP displacement (slots of a final frame are
//!   keyed by their offset from the entry SP);
//! * a call empties the registers it clobbers (`mir::target::call_clobbers`);
//! * at a merge, sets are intersected.
//!
//! Checks: every use of vreg `v` reads a location holding `v`; pinned operands sit in their
//! register; tied operands share the register of their definition; no vreg lives in a
//! register outside `allocatable(t, c)` unless pinned there; a `GUARDED` (partial) definition
//! writes the location that holds the old value; and when `after` is final: at every return
//! SP is back at its entry value and every callee-saved register and the link register hold
//! their entry values.
//!
//! Limits: unreachable blocks are not checked (they never run); the greedy copy matching can
//! in principle misattribute a deleted copy among several consecutive copies of one class
//! (reported as an error, never silently accepted).
//!
//! Complexity: O(iterations × instructions × locations) with small sets; iterations are
//! bounded by the lattice height (sets only shrink).

use crate::mir::cfg::CfgInfo;
use crate::mir::print::inst_to_string;
use crate::mir::{
    target, BlockId, Control, Function, Imm, Inst, InstFlags, Opc, PReg, Pin, Reg, RegClass, VReg,
};
use simulator::isa::{st120, Target};
use std::fmt;

mod pairs;
pub mod value_flow;
use pairs::Pairs;

/// An allocation error: where, and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckError {
    pub function: String,
    pub block: u32,
    /// Index of the instruction in the allocated function's block.
    pub inst: usize,
    /// The allocated instruction (text), if any.
    pub text: String,
    pub message: String,
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "allocation check: function {}: block b{} instruction {} `{}`: {}",
            self.function, self.block, self.inst, self.text, self.message
        )
    }
}

impl std::error::Error for CheckError {}

const ENTRY: u32 = 0x8000_0000;
/// Revisions of copy-matching choices per block before the first error is reported.
const MATCH_BUDGET: u32 = 256;

fn reg_index(p: PReg) -> usize {
    let c = match p.class {
        RegClass::R => 0,
        RegClass::B => 1,
        RegClass::P => 2,
        RegClass::G => 3,
    };
    c * 64 + usize::from(p.num)
}

fn entry_value(p: PReg) -> u32 {
    ENTRY | reg_index(p) as u32
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum SlotKey {
    /// A frame object (not yet laid out) and byte offset.
    Obj(u32, i32),
    /// Byte offset from the entry SP (final frames).
    Abs(i64),
}

/// Register locations are keyed by [`reg_index`].
type Loc = u16;

fn loc(p: PReg) -> Loc {
    reg_index(p) as Loc
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct State {
    regs: Pairs<Loc>,
    slots: Pairs<SlotKey>,
    /// SP minus the entry SP, in bytes.
    sp_disp: i64,
}

impl State {
    fn meet(&self, o: &State) -> State {
        State {
            regs: self.regs.meet(&o.regs),
            slots: self.slots.meet(&o.slots),
            sp_disp: self.sp_disp,
        }
    }

    fn holds(&self, p: PReg, v: u32) -> bool {
        self.regs.has(loc(p), v)
    }

    /// Removes `v` from every location.
    fn kill_everywhere(&mut self, v: u32) {
        self.regs.kill(v);
        self.slots.kill(v);
    }

    /// `v := u`: `v` is valid exactly where `u` is.
    fn alias_to(&mut self, v: u32, u: u32) {
        self.regs.alias(v, u);
        self.slots.alias(v, u);
    }

    /// A register holding `v` other than `except`.
    fn holder_of(&self, v: u32, except: PReg) -> Option<usize> {
        self.regs
            .holders(v)
            .find(|&k| k != loc(except))
            .map(usize::from)
    }
}

/// One step of a block: a matched pair, a coalesced copy of `before`, or extra code.
#[derive(Clone, Copy, Debug)]
enum Step {
    Pair(usize, usize),
    Deleted(usize),
    Extra(usize),
}

struct Checker<'a> {
    before: &'a Function,
    after: &'a Function,
    finalized: bool,
    pin_of: Vec<Option<PReg>>,
    allocatable: Vec<bool>,
    steps: Vec<Option<Vec<Step>>>,
}

/// Checks that `after` is a correct allocation of `before` (see the module documentation).
pub fn check(before: &Function, after: &Function) -> Result<(), CheckError> {
    let mut c = Checker::new(before, after)?;
    c.run()
}

fn show_set(s: &[u32]) -> String {
    let items: Vec<String> = s
        .iter()
        .map(|&v| {
            if v & ENTRY != 0 {
                format!("entry({})", v & !ENTRY)
            } else {
                format!("%{v}")
            }
        })
        .collect();
    format!("{{{}}}", items.join(", "))
}

fn is_extra(i: &Inst) -> bool {
    i.flags
        .intersects(InstFlags::SPILL_LOAD | InstFlags::SPILL_STORE | InstFlags::FRAME)
}

impl<'a> Checker<'a> {
    fn new(before: &'a Function, after: &'a Function) -> Result<Checker<'a>, CheckError> {
        let err = |m: String| CheckError {
            function: before.name.clone(),
            block: 0,
            inst: 0,
            text: String::new(),
            message: m,
        };
        if before.blocks.len() != after.blocks.len() || before.target != after.target {
            return Err(err(format!(
                "block count or target differ ({} vs {} blocks)",
                before.blocks.len(),
                after.blocks.len()
            )));
        }
        if before.frame.finalized {
            return Err(err("the reference function is already finalized".into()));
        }
        let t = before.target;
        let mut pin_of = vec![None; before.vregs.len()];
        for inst in before.blocks.iter().flat_map(|b| &b.insts) {
            for o in inst.defs.iter().chain(&inst.uses) {
                if let (Reg::V(v), Some(Pin::Phys(p))) = (o.reg, o.pin) {
                    if let Some(slot) = pin_of.get_mut(v.index()) {
                        *slot = Some(p);
                    }
                }
            }
        }
        let mut allocatable = vec![false; 256];
        for &c in target::classes(t) {
            for r in target::allocatable(t, c) {
                allocatable[reg_index(PReg::new(c, r))] = true;
            }
        }
        Ok(Checker {
            before,
            after,
            finalized: after.frame.finalized,
            pin_of,
            allocatable,
            steps: vec![None; before.blocks.len()],
        })
    }

    fn entry_state(&self) -> State {
        let t = self.before.target;
        let mut regs = Pairs::default();
        let sp = target::stack_pointer(t);
        let link = target::link_register(t);
        for &c in target::classes(t) {
            for n in 0..target::num_regs(t, c) {
                let p = PReg::new(c, n);
                if target::is_callee_saved(t, p) || p == sp || p == link {
                    regs.insert(loc(p), entry_value(p));
                }
            }
        }
        State {
            regs,
            slots: Pairs::default(),
            sp_disp: 0,
        }
    }

    fn error(&self, b: usize, ai: Option<usize>, message: String) -> CheckError {
        let (inst, text) = match ai {
            Some(i) => (
                i,
                self.after.blocks[b]
                    .insts
                    .get(i)
                    .map(|x| inst_to_string(self.after, x))
                    .unwrap_or_default(),
            ),
            None => (self.after.blocks[b].insts.len(), String::new()),
        };
        CheckError {
            function: self.before.name.clone(),
            block: b as u32,
            inst,
            text,
            message,
        }
    }

    fn run(&mut self) -> Result<(), CheckError> {
        if self.before.blocks.is_empty() {
            return Ok(());
        }
        let cfg = CfgInfo::compute(self.before);
        let rpo: Vec<BlockId> = cfg.rpo().collect();
        let mut order = vec![usize::MAX; self.before.blocks.len()];
        for (i, b) in rpo.iter().enumerate() {
            order[b.index()] = i;
        }
        let mut in_state: Vec<Option<State>> = vec![None; self.before.blocks.len()];
        if rpo.is_empty() {
            return Ok(());
        }
        in_state[0] = Some(self.entry_state());
        let mut work = std::collections::BTreeSet::new();
        work.insert(0usize);
        while let Some(pos) = work.pop_first() {
            let b = rpo[pos].index();
            let mut st = in_state[b].clone().expect("queued blocks have a state");
            self.transfer_block(b, &mut st)?;
            for s in self.before.blocks[b].successors() {
                let si = s.index();
                if si >= in_state.len() || order[si] == usize::MAX {
                    continue;
                }
                let new = match &in_state[si] {
                    None => st.clone(),
                    Some(old) => {
                        if old.sp_disp != st.sp_disp {
                            return Err(self.error(
                                b,
                                None,
                                format!(
                                    "SP displacement {} at the end differs from {} at the \
                                     start of b{si}",
                                    st.sp_disp, old.sp_disp
                                ),
                            ));
                        }
                        old.meet(&st)
                    }
                };
                if in_state[si].as_ref() != Some(&new) {
                    in_state[si] = Some(new);
                    work.insert(order[si]);
                }
            }
        }
        Ok(())
    }

    /// Matches the instructions of block `b` (once, with the state at the first visit).
    ///
    /// Each copy of `before` is either kept (matched with the next copy of `after`, when that
    /// copy's source holds the copied vreg and its registers respect the pins) or deleted.
    /// The choice is checked by simulating the block; when the simulation fails, the most
    /// recent "kept" choice is revised to "deleted" (depth-first search, bounded by
    /// [`MATCH_BUDGET`] revisions per block), so several consecutive copies of one class are
    /// attributed correctly. A deleted copy takes effect after the spill loads that precede
    /// it and before the spill stores that follow it.
    fn match_block(&self, b: usize, st: &State) -> Result<Vec<Step>, CheckError> {
        struct Choice {
            i: usize,
            j: usize,
            steps: usize,
            state: State,
        }
        let mut steps = Vec::new();
        let mut sim = st.clone();
        let (mut i, mut j) = (0usize, 0usize);
        let mut choices: Vec<Choice> = Vec::new();
        let mut first_err: Option<CheckError> = None;
        let mut budget = MATCH_BUDGET;
        let mut force_delete = false;
        loop {
            match self.advance(
                b,
                &mut i,
                &mut j,
                &mut steps,
                &mut sim,
                force_delete,
                &mut |c| {
                    choices.push(Choice {
                        i: c.0,
                        j: c.1,
                        steps: c.2,
                        state: c.3,
                    })
                },
            ) {
                Ok(()) => return Ok(steps),
                Err(e) => {
                    let e = first_err.get_or_insert(e).clone();
                    budget = budget.saturating_sub(1);
                    match choices.pop() {
                        Some(c) if budget > 0 => {
                            i = c.i;
                            j = c.j;
                            steps.truncate(c.steps);
                            sim = c.state;
                            force_delete = true;
                        }
                        _ => return Err(e),
                    }
                }
            }
        }
    }

    /// Simulates block `b` from before-instruction `*i` / after-instruction `*j`, recording
    /// a choice point at every copy that is kept. `force_delete` applies to the first copy.
    #[allow(clippy::too_many_arguments)]
    fn advance(
        &self,
        b: usize,
        i: &mut usize,
        j: &mut usize,
        steps: &mut Vec<Step>,
        sim: &mut State,
        mut force_delete: bool,
        choice: &mut dyn FnMut((usize, usize, usize, State)),
    ) -> Result<(), CheckError> {
        let bi = &self.before.blocks[b].insts;
        let ai = &self.after.blocks[b].insts;
        while *i < bi.len() {
            let binst = &bi[*i];
            if binst.opc == Opc::Copy {
                // Extras up to the first spill store that follows a spill load.
                let mut seen_load = false;
                let mut k = *j;
                while k < ai.len() && is_extra(&ai[k]) {
                    let load = ai[k].flags.contains(InstFlags::SPILL_LOAD);
                    if seen_load && !load {
                        break;
                    }
                    seen_load |= load;
                    k += 1;
                }
                let mut next = k;
                while next < ai.len() && is_extra(&ai[next]) {
                    next += 1;
                }
                // Keeping: every extra before the matched copy runs first.
                let mut keep_state = None;
                if !force_delete && next < ai.len() {
                    let mut s2 = sim.clone();
                    for x in *j..next {
                        self.apply_extra(b, x, &mut s2)?;
                    }
                    if self.copy_matches(binst, &ai[next], &s2) {
                        keep_state = Some(s2);
                    }
                }
                force_delete = false;
                if let Some(s2) = keep_state {
                    choice((*i, *j, steps.len(), sim.clone()));
                    for x in *j..next {
                        steps.push(Step::Extra(x));
                    }
                    *sim = s2;
                    steps.push(Step::Pair(*i, next));
                    self.apply_pair(b, *i, next, sim, false)?;
                    *j = next + 1;
                } else {
                    for x in *j..k {
                        steps.push(Step::Extra(x));
                        self.apply_extra(b, x, sim)?;
                    }
                    *j = k;
                    steps.push(Step::Deleted(*i));
                    self.apply_deleted(*i, b, sim);
                }
                *i += 1;
                continue;
            }
            while *j < ai.len() && is_extra(&ai[*j]) {
                steps.push(Step::Extra(*j));
                self.apply_extra(b, *j, sim)?;
                *j += 1;
            }
            if *j >= ai.len() {
                return Err(self.error(
                    b,
                    None,
                    format!(
                        "instruction `{}` of the original has no counterpart",
                        inst_to_string(self.before, binst)
                    ),
                ));
            }
            steps.push(Step::Pair(*i, *j));
            self.apply_pair(b, *i, *j, sim, false)?;
            *i += 1;
            *j += 1;
        }
        while *j < ai.len() {
            if !is_extra(&ai[*j]) {
                return Err(self.error(
                    b,
                    Some(*j),
                    "instruction without counterpart in the original".into(),
                ));
            }
            steps.push(Step::Extra(*j));
            self.apply_extra(b, *j, sim)?;
            *j += 1;
        }
        Ok(())
    }

    fn copy_matches(&self, binst: &Inst, a: &Inst, st: &State) -> bool {
        if a.opc != Opc::Copy
            || a.defs.len() != 1
            || a.uses.len() != binst.uses.len()
            || binst.defs.len() != 1
            || is_extra(a)
        {
            return false;
        }
        let (Some(src), Some(dst)) = (a.uses[0].reg.preg(), a.defs[0].reg.preg()) else {
            return false;
        };
        let fits = |bo: &crate::mir::Operand, p: PReg| match (bo.reg, bo.pin) {
            (_, Some(Pin::Phys(r))) => r == p,
            (Reg::P(q), _) => q == p,
            (Reg::V(v), _) => match self.pin_of.get(v.index()).copied().flatten() {
                Some(r) => r == p,
                None => {
                    self.allocatable[reg_index(p)]
                        && v.index() < self.before.vregs.len()
                        && self.before.class_of(v) == p.class
                }
            },
        };
        if !fits(&binst.defs[0], dst) || !fits(&binst.uses[0], src) {
            return false;
        }
        match binst.uses[0].reg {
            Reg::V(u) => st.holds(src, u.0),
            Reg::P(p) => p == src,
        }
    }

    /// Runs block `b` on `st`. The copy matching is computed at the first visit and
    /// recomputed if a later visit (with a smaller state: values that only coincided on
    /// the first path) fails with it; an error stands only if the fresh matching fails too.
    fn transfer_block(&mut self, b: usize, st: &mut State) -> Result<(), CheckError> {
        if let Some(steps) = self.steps[b].clone() {
            let mut trial = st.clone();
            if self.run_steps(b, &steps, &mut trial).is_ok() {
                *st = trial;
                return Ok(());
            }
        }
        let steps = self.match_block(b, st)?;
        self.run_steps(b, &steps, st)?;
        self.steps[b] = Some(steps);
        Ok(())
    }

    fn run_steps(&self, b: usize, steps: &[Step], st: &mut State) -> Result<(), CheckError> {
        for &s in steps {
            match s {
                Step::Pair(i, j) => self.apply_pair(b, i, j, st, true)?,
                Step::Deleted(i) => self.apply_deleted(i, b, st),
                Step::Extra(j) => self.apply_extra(b, j, st)?,
            }
        }
        Ok(())
    }

    fn apply_deleted(&self, i: usize, b: usize, st: &mut State) {
        let binst = &self.before.blocks[b].insts[i];
        let (Some(Reg::V(v)), Some(src)) = (binst.defs.first().map(|o| o.reg), binst.uses.first())
        else {
            return;
        };
        match src.reg {
            Reg::V(u) => st.alias_to(v.0, u.0),
            Reg::P(p) => {
                st.kill_everywhere(v.0);
                st.regs.insert(loc(p), v.0);
            }
        }
    }

    /// Byte scale of an instruction's immediate offset in a final frame.
    fn offset_scale(&self, inst: &Inst) -> i64 {
        match inst.opc {
            Opc::St120(op) => op
                .info()
                .imm()
                .map(|i| i64::from(i.scale.max(1)))
                .unwrap_or(1),
            _ => 1,
        }
    }

    fn slot_key(&self, b: usize, j: usize, inst: &Inst, st: &State) -> Result<SlotKey, CheckError> {
        match inst.imm {
            Imm::Frame { idx, offset } => Ok(SlotKey::Obj(idx.0, offset)),
            Imm::Int(n) if self.finalized => Ok(SlotKey::Abs(
                st.sp_disp + i64::from(n) * self.offset_scale(inst),
            )),
            _ => Err(self.error(
                b,
                Some(j),
                "spill/frame access without a slot offset".into(),
            )),
        }
    }

    fn apply_extra(&self, b: usize, j: usize, st: &mut State) -> Result<(), CheckError> {
        let inst = &self.after.blocks[b].insts[j];
        let sp = target::stack_pointer(self.after.target);
        let regs: Option<Vec<PReg>> = inst
            .defs
            .iter()
            .chain(&inst.uses)
            .map(|o| o.reg.preg())
            .collect();
        if regs.is_none() {
            return Err(self.error(b, Some(j), "virtual register left".into()));
        }
        let uses: Vec<PReg> = inst.uses.iter().filter_map(|o| o.reg.preg()).collect();
        let defs: Vec<PReg> = inst.defs.iter().filter_map(|o| o.reg.preg()).collect();
        match (defs.as_slice(), uses.as_slice()) {
            ([], [base, value]) if *base == sp => {
                let key = self.slot_key(b, j, inst, st)?;
                let v = st.regs.get(loc(*value));
                st.slots.set(key, &v);
            }
            ([d], [base]) if *base == sp && *d == sp => {
                st.sp_disp += self.sp_delta(b, j, inst)?;
            }
            ([d], [base, amount]) if *base == sp && *d == sp => {
                st.sp_disp += self.sp_delta_by_register(b, j, inst, *amount)?;
            }
            ([d], []) if inst.flags.contains(InstFlags::FRAME) => {
                // a frame constant (ST120 `MAKEA` of the frame pass's scratch register)
                st.regs.clear(loc(*d));
            }
            ([d], [base]) if *base == sp => {
                let key = self.slot_key(b, j, inst, st)?;
                let v = st.slots.get(key);
                st.regs.set(loc(*d), &v);
            }
            ([d], [s]) if inst.flags.contains(InstFlags::FRAME) => {
                let v = st.regs.get(loc(*s));
                st.regs.set(loc(*d), &v);
            }
            _ => {
                return Err(self.error(
                    b,
                    Some(j),
                    "unrecognised spill or frame instruction".into(),
                ))
            }
        }
        Ok(())
    }

    fn sp_delta(&self, b: usize, j: usize, inst: &Inst) -> Result<i64, CheckError> {
        let Imm::Int(n) = inst.imm else {
            return Err(self.error(b, Some(j), "SP adjustment without an integer".into()));
        };
        let n = i64::from(n);
        match inst.opc {
            Opc::St231(simulator::isa::st231::Opcode::Add) => Ok(n),
            Opc::St120(st120::Opcode::AuI(op)) => {
                let d = n * i64::from(op.scale());
                Ok(if op.is_sub() { -d } else { d })
            }
            _ => Err(self.error(b, Some(j), "unrecognised SP adjustment".into())),
        }
    }

    /// A frame SP adjustment by a register (ST120 `ADDWA/SUBWA P15, P15, Pq`): the amount is
    /// the constant the frame code of the same block put in `Pq` (`MAKEA`, then `MOREA`s),
    /// with no call and no other write of `Pq` in between.
    fn sp_delta_by_register(
        &self,
        b: usize,
        j: usize,
        inst: &Inst,
        amount: PReg,
    ) -> Result<i64, CheckError> {
        let Opc::St120(st120::Opcode::Au(op)) = inst.opc else {
            return Err(self.error(b, Some(j), "unrecognised SP adjustment".into()));
        };
        let insts = &self.after.blocks[b].insts;
        let mut lows = Vec::new();
        let mut k = j;
        let high = loop {
            if k == 0 || insts[k - 1].control() == Control::Call {
                return Err(self.error(
                    b,
                    Some(j),
                    "SP adjustment by a register the frame code did not set".into(),
                ));
            }
            k -= 1;
            let i = &insts[k];
            if !i.defs.iter().any(|o| o.reg.preg() == Some(amount)) {
                continue;
            }
            match (i.opc, &i.imm, i.flags.contains(InstFlags::FRAME)) {
                (Opc::St120(st120::Opcode::MakeA), Imm::Int(n), true) => break *n,
                (Opc::St120(st120::Opcode::MoreA), Imm::Int(n), true) => lows.push(*n),
                _ => {
                    return Err(self.error(
                        b,
                        Some(j),
                        "SP adjustment by a register the frame code did not set".into(),
                    ))
                }
            }
        };
        let value = lows
            .iter()
            .rev()
            .fold(high as u32, |v, &lo| (v << 16) | (lo as u32 & 0xFFFF));
        let d = i64::from(value as i32) * i64::from(op.scale());
        Ok(if op.is_sub() { -d } else { d })
    }

    fn same_shape(&self, bi: &Inst, ai: &Inst) -> bool {
        if bi.defs.len() != ai.defs.len() || bi.uses.len() != ai.uses.len() {
            return false;
        }
        let opc_ok = bi.opc == ai.opc
            || (self.finalized
                && matches!(bi.imm, Imm::Frame { .. })
                && matches!(
                    (bi.opc, ai.opc),
                    (
                        Opc::St120(st120::Opcode::AuI(_)),
                        Opc::St120(st120::Opcode::AuI(_))
                    )
                ));
        let imm_ok = bi.imm == ai.imm
            || (self.finalized
                && matches!(bi.imm, Imm::Frame { .. })
                && matches!(ai.imm, Imm::Int(_)));
        opc_ok && imm_ok && (bi.flags & !InstFlags::COPY) == (ai.flags & !InstFlags::COPY)
    }

    fn apply_pair(
        &self,
        b: usize,
        i: usize,
        j: usize,
        st: &mut State,
        final_pass: bool,
    ) -> Result<(), CheckError> {
        let binst = &self.before.blocks[b].insts[i];
        let ainst = &self.after.blocks[b].insts[j];
        let err = |m: String| self.error(b, Some(j), m);
        if !self.same_shape(binst, ainst) {
            return Err(err(format!(
                "does not match `{}` of the original",
                inst_to_string(self.before, binst)
            )));
        }
        let t = self.before.target;
        // Uses.
        for (k, (bo, ao)) in binst.uses.iter().zip(&ainst.uses).enumerate() {
            let Reg::P(p) = ao.reg else {
                return Err(err(format!("use {k} is still virtual")));
            };
            match bo.reg {
                Reg::P(q) if q != p => {
                    return Err(err(format!(
                        "use {k}: physical {} became {}",
                        target::reg_name(t, q),
                        target::reg_name(t, p)
                    )))
                }
                Reg::P(_) => {}
                Reg::V(v) => {
                    if !st.holds(p, v.0) {
                        return Err(err(format!(
                            "use {k} expects %{} but {} holds {}",
                            v.0,
                            target::reg_name(t, p),
                            show_set(&st.regs.get(loc(p)))
                        )));
                    }
                    self.check_placement(v, p, &err)?;
                }
            }
            match bo.pin {
                Some(Pin::Phys(r)) if r != p => {
                    return Err(err(format!(
                        "use {k} is pinned to {} but got {}",
                        target::reg_name(t, r),
                        target::reg_name(t, p)
                    )))
                }
                Some(Pin::Var(d)) => {
                    let tied = binst.defs.iter().position(|o| o.reg == Reg::V(d));
                    if let Some(di) = tied {
                        if ainst.defs[di].reg != ao.reg {
                            return Err(err(format!(
                                "tied use {k} and definition {di} (%{}) got different registers",
                                d.0
                            )));
                        }
                    }
                }
                _ => {}
            }
        }
        // Partial (guarded) definitions must write where the old value lives.
        if binst.flags.contains(InstFlags::GUARDED) {
            for (bo, ao) in binst.defs.iter().zip(&ainst.defs) {
                if let (Reg::V(v), Reg::P(p)) = (bo.reg, ao.reg) {
                    if !st.holds(p, v.0) && st.holder_of(v.0, p).is_some() {
                        return Err(err(format!(
                            "partial definition of %{} into {} but its old value is elsewhere",
                            v.0,
                            target::reg_name(t, p)
                        )));
                    }
                }
            }
        }
        // Returns of a final function.
        if self.finalized && binst.control() == Control::Return && final_pass {
            self.check_return(st, &err)?;
        }
        if binst.control() == Control::Call {
            for &r in target::call_clobbers(t) {
                st.regs.clear(loc(r));
            }
        }
        // Definitions.
        let is_copy = binst.opc == Opc::Copy && binst.defs.len() == 1 && binst.uses.len() == 1;
        for (k, (bo, ao)) in binst.defs.iter().zip(&ainst.defs).enumerate() {
            let Reg::P(p) = ao.reg else {
                return Err(err(format!("definition {k} is still virtual")));
            };
            if let Some(Pin::Phys(r)) = bo.pin {
                if r != p {
                    return Err(err(format!(
                        "definition {k} is pinned to {} but got {}",
                        target::reg_name(t, r),
                        target::reg_name(t, p)
                    )));
                }
            }
            match bo.reg {
                Reg::P(q) => {
                    if q != p {
                        return Err(err(format!("definition {k}: physical register changed")));
                    }
                    if self.finalized && q == target::stack_pointer(t) {
                        return Err(err("SP written outside the frame code".into()));
                    }
                    st.regs.clear(loc(p));
                }
                Reg::V(v) => {
                    self.check_placement(v, p, &err)?;
                    if is_copy {
                        let src = ainst.uses[0].reg.preg().expect("physical");
                        let mut s = st.regs.get(loc(src));
                        match binst.uses[0].reg {
                            Reg::V(u) => st.alias_to(v.0, u.0),
                            Reg::P(_) => st.kill_everywhere(v.0),
                        }
                        if let Err(at) = s.binary_search(&v.0) {
                            s.insert(at, v.0);
                        }
                        st.regs.set(loc(p), &s);
                    } else {
                        st.kill_everywhere(v.0);
                        st.regs.set(loc(p), &[v.0]);
                    }
                }
            }
        }
        Ok(())
    }

    fn check_placement(
        &self,
        v: VReg,
        p: PReg,
        err: &dyn Fn(String) -> CheckError,
    ) -> Result<(), CheckError> {
        let t = self.before.target;
        if v.index() < self.before.vregs.len() && self.before.class_of(v) != p.class {
            return Err(err(format!(
                "%{} of class {:?} is in {}",
                v.0,
                self.before.class_of(v),
                target::reg_name(t, p)
            )));
        }
        let pinned = self.pin_of.get(v.index()).copied().flatten();
        if let Some(r) = pinned {
            if r != p {
                return Err(err(format!(
                    "%{} is pinned to {} but is in {}",
                    v.0,
                    target::reg_name(t, r),
                    target::reg_name(t, p)
                )));
            }
        } else if !self.allocatable[reg_index(p)] {
            return Err(err(format!(
                "%{} is in the non-allocatable register {}",
                v.0,
                target::reg_name(t, p)
            )));
        }
        Ok(())
    }

    fn check_return(
        &self,
        st: &State,
        err: &dyn Fn(String) -> CheckError,
    ) -> Result<(), CheckError> {
        let t = self.before.target;
        if st.sp_disp != 0 {
            return Err(err(format!(
                "SP is {} bytes away from its entry value at return",
                st.sp_disp
            )));
        }
        let link = target::link_register(t);
        for &c in target::classes(t) {
            for n in 0..target::num_regs(t, c) {
                let p = PReg::new(c, n);
                if (target::is_callee_saved(t, p) || p == link) && !st.holds(p, entry_value(p)) {
                    return Err(err(format!(
                        "{} {} does not hold its entry value at return (holds {})",
                        if p == link {
                            "link register"
                        } else {
                            "callee-saved register"
                        },
                        target::reg_name(t, p),
                        show_set(&st.regs.get(loc(p)))
                    )));
                }
            }
        }
        let _ = Target::St231;
        Ok(())
    }
}
