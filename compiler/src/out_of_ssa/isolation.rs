//! Baseline out-of-SSA translation: machine SSA with pins → allocation form, by isolation.
//!
//! Sources: Rastello, "SSA destruction for machine code", SSA book ch. 21 §21.1 (phi isolation
//! with parallel copies, Algorithm 21.1 — Sreedhar et al.'s method I, as revisited by
//! Boissinot et al.; operand pinning turned into short live-range pinning, Fig. 21.4) and
//! §21.3 (sequentialisation); Rastello, de Ferrière and Guillon, "Optimizing translation out
//! of SSA using renaming constraints" (CGO 2004 / LIP RR-2005-34), §2.1 (pins) and §5 (the
//! "Naive_ABI" configuration: moves added locally around every renaming-constrained
//! operation); Stoutchinin and de Ferrière, "Efficient static single assignment form for
//! predication" (MICRO 2001) for psi.
//!
//! This is the configuration the later algorithms are compared against: it inserts every copy
//! that isolation needs and leaves all coalescing to the register allocator.
//!
//! # What it does, in order
//! 1. **Psi lowering** (ST120 if-converted code). `d = psi [g1: a1], ..., [gn: an]` becomes
//!    "psi-conventional": every argument is written into the one resource `d`, in operand
//!    order, so that the last argument whose guard is true wins, as the psi says. A prefix of
//!    the arguments is handled without copies: the guarded operation that defines `ai` is
//!    made to write `d` directly when `ai` has no other use, is defined in the psi's block after
//!    the previous argument's definition, its operation is guarded by exactly `gi` (or is
//!    unguarded and `gi` is the always-true guard `G15`) and has no pinned or tied def. From
//!    the first argument that does not qualify on, every argument gets a copy `gi? d := ai`
//!    placed right before the psi, in operand order: a `copy` guarded by `gi` (ST120 only;
//!    emission makes it the guarded `MOVE`/`MOVEA`/`MOVEG`), or a plain `copy` when `gi` is
//!    `G15`. A psi whose guards are all false leaves `d` undefined, as in psi-SSA.
//! 2. **Phi isolation** (§21.1, Algorithm 21.1): for `d = phi(a1 from b1, ..., an from bn)`
//!    a copy `d' := ai` at the end of every `bi` (after its ordinary operations, before its
//!    control operations — the copies define fresh variables, so they cannot clobber what a
//!    branch reads) and `d := d'` at the start of the phi's block, with one fresh `d'` for the
//!    whole phi (conventional SSA: all primed names coalesced, the phi deleted).
//! 3. **Pin isolation** (§21.1, Fig. 21.4): around every operation with pinned operands, a
//!    parallel copy before it moves each pinned use into a fresh variable carrying the pin
//!    (one per distinct (variable, register) pair), and the operation defines fresh pinned
//!    variables that a parallel copy after it moves into the original ones. `.input` and
//!    `.output` are handled alike. A tied use `u` pinned to its def `d` (`Pin::Var(d)`)
//!    becomes `d := u` in the copy before the operation, which then reads and writes `d`
//!    (no longer SSA, as the allocation form allows).
//! 4. **Parallel copies**: all copies at one program point form one parallel copy; copies of
//!    successive steps at the same point are *composed* (a source written earlier at the
//!    point is replaced by the value written), which preserves the sequential meaning. Then
//!    each parallel copy is sequentialised by [`super::parallel_copy::Sequentializer`] with a
//!    temporary (the targets have no swap); a temporary vreg of the right class is created
//!    when a cycle needs one. Copies between different register classes are an error.
//!
//! # Preconditions (SSA form, `docs/design.md`)
//! Single definitions, phis first, control operations last; phi predecessors given by
//! `Imm::Blocks`; pins only on virtual registers (`Pin::Phys`) or tied uses (`Pin::Var` naming
//! a def of the same operation); no pins on psis, parallel copies or phi arguments (a pinned
//! phi result is first isolated by `super::isolate_pinned_phi_results`).
//!
//! # Result (allocation form)
//! No `Phi`, `ParCopy` or `Psi`; every copy is an `Opc::Copy` flagged COPY (psi copies may
//! be guarded, ST120); every vreg carrying a `Pin::Phys` is defined and used only between its isolation
//! copy and its constrained operation (or `.input`/`.output`), so precolouring is always
//! feasible; every tied use reads the vreg its def writes.
//!
//! # Complexity
//! O(instructions + operands + phi arguments) with hash maps for the per-point copy
//! composition; sequentialisation is linear in each parallel copy.

use super::parallel_copy::{CycleBreaker, Move, Sequentializer};
use crate::mir::print::inst_to_string;
use crate::mir::{
    BlockId, Function, Inst, InstFlags, Opc, Operand, PReg, Pin, Reg, RegClass, VReg,
};
use crate::pipeline::PassDetail;
use simulator::isa::{st120, Target};
use std::collections::HashMap;

/// What the pass did (reported as its `PassDetail`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Phis isolated.
    pub phis: u64,
    /// Copies inserted for phis (one per distinct incoming edge, one per phi result).
    pub phi_copies: u64,
    /// Operands pinned to a physical register that were isolated (one copy each).
    pub pins_isolated: u64,
    /// Tied uses (`Pin::Var`) turned into a copy plus a two-address operation.
    pub ties: u64,
    /// Psis lowered, the copies they needed and the arguments written in place.
    pub psis: u64,
    pub psi_copies: u64,
    pub psi_in_place: u64,
    /// Non-empty parallel copies sequentialised.
    pub parallel_copies: u64,
    /// `copy` instructions emitted in total (parallel copies + psi copies).
    pub copies: u64,
    /// Cycles broken through a temporary, and temporaries created.
    pub cycles: u64,
    pub temporaries: u64,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.phis += o.phis;
        self.phi_copies += o.phi_copies;
        self.pins_isolated += o.pins_isolated;
        self.ties += o.ties;
        self.psis += o.psis;
        self.psi_copies += o.psi_copies;
        self.psi_in_place += o.psi_in_place;
        self.parallel_copies += o.parallel_copies;
        self.copies += o.copies;
        self.cycles += o.cycles;
        self.temporaries += o.temporaries;
    }
}

impl Stats {
    pub fn detail(&self) -> PassDetail {
        vec![
            ("phis_isolated", self.phis),
            ("phi_copies", self.phi_copies),
            ("pins_isolated", self.pins_isolated),
            ("tied_operands", self.ties),
            ("psis_lowered", self.psis),
            ("psi_copies", self.psi_copies),
            ("psi_args_in_place", self.psi_in_place),
            ("parallel_copies", self.parallel_copies),
            ("copies_emitted", self.copies),
            ("cycles", self.cycles),
            ("temporaries", self.temporaries),
        ]
    }
}

/// The pass entry point: translates `f` out of SSA (see the module doc).
pub fn run(f: &mut Function) -> Result<PassDetail, String> {
    Ok(translate(f)?.detail())
}

/// Same as [`run`], with the statistics as a struct.
pub fn translate(f: &mut Function) -> Result<Stats, String> {
    super::isolate_pinned_phi_results(f)?;
    check_operands(f)?;
    let mut stats = Stats::default();
    lower_psis(f, &mut stats)?;
    let edge_copies = isolate_phis(f, &mut stats)?;
    isolate_pins(f, edge_copies, &mut stats)?;
    sequentialize_all(f, &mut stats)?;
    Ok(stats)
}

/// Operand sanity the steps below rely on (the verifier checks much more): every vreg has a
/// class, every pin names a vreg that exists.
fn check_operands(f: &Function) -> Result<(), String> {
    let n = f.vregs.len();
    for (bi, b) in f.blocks.iter().enumerate() {
        for i in &b.insts {
            for o in i.defs.iter().chain(&i.uses) {
                let bad_reg = o.vreg().is_some_and(|v| v.index() >= n);
                let bad_pin = matches!(o.pin, Some(Pin::Var(v)) if v.index() >= n);
                if bad_reg || bad_pin {
                    let b = BlockId(bi as u32);
                    return Err(err_at(f, b, i, "virtual register without a class"));
                }
            }
        }
    }
    Ok(())
}

fn err_at(f: &Function, b: BlockId, inst: &Inst, msg: &str) -> String {
    format!(
        "out-of-ssa: @{} {b}: `{}`: {msg}",
        f.name,
        inst_to_string(f, inst)
    )
}

// ---------------------------------------------------------------------------------------
// Step 1: psi lowering
// ---------------------------------------------------------------------------------------

/// Number of uses of every vreg (phi, psi and ordinary uses alike).
fn use_counts(f: &Function) -> Vec<u32> {
    let mut n = vec![0u32; f.vregs.len()];
    for b in &f.blocks {
        for i in &b.insts {
            for v in i.use_vregs() {
                if let Some(c) = n.get_mut(v.index()) {
                    *c += 1;
                }
            }
        }
    }
    n
}

/// True if `r` is the ST120 always-true guard `G15`.
fn is_true_guard(t: Target, r: Reg) -> bool {
    t == Target::St120 && r == Reg::P(PReg::new(RegClass::G, st120::GUARD_TRUE))
}

/// Lowers every psi of `f` into in-place guarded definitions and guarded copies.
fn lower_psis(f: &mut Function, stats: &mut Stats) -> Result<(), String> {
    if !f
        .blocks
        .iter()
        .any(|b| b.insts.iter().any(|i| i.opc == Opc::Psi))
    {
        return Ok(());
    }
    let uses = use_counts(f);
    for bi in 0..f.blocks.len() {
        let mut k = 0;
        while k < f.blocks[bi].insts.len() {
            if f.blocks[bi].insts[k].opc != Opc::Psi {
                k += 1;
                continue;
            }
            let copies = lower_one_psi(f, BlockId(bi as u32), k, &uses, stats)?;
            let n = copies.len();
            f.blocks[bi].insts.splice(k..k + 1, copies);
            k += n;
        }
    }
    Ok(())
}

/// Lowers the psi at `block[k]`; returns the copies that replace it.
fn lower_one_psi(
    f: &mut Function,
    b: BlockId,
    k: usize,
    uses: &[u32],
    stats: &mut Stats,
) -> Result<Vec<Inst>, String> {
    let psi = f.block(b).insts[k].clone();
    let target = f.target;
    let bad = |f: &Function, m: &str| err_at(f, b, &psi, m);
    if psi.defs.len() != 1 || !psi.uses.len().is_multiple_of(2) || psi.uses.is_empty() {
        return Err(bad(f, "a psi needs one def and (guard, value) pairs"));
    }
    if psi.defs.iter().chain(&psi.uses).any(|o| o.pin.is_some()) {
        return Err(bad(f, "pinned psi operands are not supported"));
    }
    let d = psi.defs[0]
        .vreg()
        .ok_or_else(|| bad(f, "psi defines a physical register"))?;
    let class = f.class_of(d);
    stats.psis += 1;
    // Definition sites in this block, before the psi.
    let mut def_pos: HashMap<VReg, usize> = HashMap::new();
    for (p, i) in f.block(b).insts[..k].iter().enumerate() {
        for v in i.def_vregs() {
            def_pos.insert(v, p);
        }
    }
    let mut out = Vec::new();
    let mut last_pos: Option<usize> = None;
    let mut in_place = true;
    for pair in psi.uses.chunks(2) {
        let (g, a) = (pair[0].reg, pair[1].reg);
        if f.reg_class(a) != class {
            return Err(bad(f, "psi argument of another register class"));
        }
        let always = is_true_guard(target, g);
        if in_place {
            if let Some(p) = in_place_site(f, b, a, g, always, uses, &def_pos, last_pos) {
                rename_def(&mut f.block_mut(b).insts[p], a.vreg().expect("checked"), d);
                last_pos = Some(p);
                stats.psi_in_place += 1;
                continue;
            }
            in_place = false;
        }
        let c = if always {
            Inst::copy(d, Operand::new(a))
        } else {
            guarded_copy(target, d, a, g).ok_or_else(|| {
                bad(
                    f,
                    "a guarded psi argument on a target without guarded moves",
                )
            })?
        };
        out.push(c);
        stats.psi_copies += 1;
        stats.copies += 1;
    }
    Ok(out)
}

/// `g? d := a`: a `copy` guarded by `g` (the guard is its last use). Only ST120 has guarded
/// operations; emission lowers it to the guarded move of the class (`MOVE`/`MOVEA`/`MOVEG`).
fn guarded_copy(t: Target, d: VReg, a: Reg, g: Reg) -> Option<Inst> {
    if t != Target::St120 {
        return None;
    }
    let mut c = Inst::copy(d, Operand::new(a));
    c.uses.push(Operand::new(g));
    c.flags |= InstFlags::GUARDED;
    Some(c)
}

/// Where argument `a` (guard `g`) of a psi can be written in place, if it can: its defining
/// operation in the psi's block, after `after`, guarded by `g` (or unguarded when `g` is the
/// true guard), `a` used by the psi only, and no pinned def or tied use on that operation.
#[allow(clippy::too_many_arguments)]
fn in_place_site(
    f: &Function,
    b: BlockId,
    a: Reg,
    g: Reg,
    always: bool,
    uses: &[u32],
    def_pos: &HashMap<VReg, usize>,
    after: Option<usize>,
) -> Option<usize> {
    let v = a.vreg()?;
    if uses.get(v.index()).copied() != Some(1) {
        return None;
    }
    let p = *def_pos.get(&v)?;
    if after.is_some_and(|q| p <= q) {
        return None;
    }
    let inst = &f.block(b).insts[p];
    if !matches!(inst.opc, Opc::St120(_) | Opc::St231(_) | Opc::Copy) || inst.is_terminator() {
        return None;
    }
    if inst.defs.iter().any(|o| o.pin.is_some()) || inst.uses.iter().any(|o| o.pin.is_some()) {
        return None;
    }
    match inst.guard() {
        Some(og) => (og.reg == g && !always).then_some(p),
        None => always.then_some(p),
    }
}

fn rename_def(inst: &mut Inst, from: VReg, to: VReg) {
    for o in &mut inst.defs {
        if o.reg == Reg::V(from) {
            o.reg = Reg::V(to);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Step 2: phi isolation
// ---------------------------------------------------------------------------------------

/// A parallel copy under construction: `(dst, src)` pairs.
type Copies = Vec<(Reg, Reg)>;

/// Copies to place at the start and at the end of every block.
struct EdgeCopies {
    start: Vec<Copies>,
    end: Vec<Copies>,
}

/// Removes every phi, returning the isolation copies of each block's start and end.
fn isolate_phis(f: &mut Function, stats: &mut Stats) -> Result<EdgeCopies, String> {
    let n = f.blocks.len();
    let mut ec = EdgeCopies {
        start: vec![Vec::new(); n],
        end: vec![Vec::new(); n],
    };
    for bi in 0..n {
        let b = BlockId(bi as u32);
        let nphi = f.block(b).phi_end();
        let phis: Vec<Inst> = f.blocks[bi].insts.drain(..nphi).collect();
        for phi in &phis {
            isolate_one_phi(f, b, phi, &mut ec, stats)?;
        }
    }
    Ok(ec)
}

fn isolate_one_phi(
    f: &mut Function,
    b: BlockId,
    phi: &Inst,
    ec: &mut EdgeCopies,
    stats: &mut Stats,
) -> Result<(), String> {
    let bad = |f: &Function, m: &str| err_at(f, b, phi, m);
    if phi.defs.len() != 1 || phi.phi_blocks().len() != phi.uses.len() {
        return Err(bad(f, "malformed phi"));
    }
    if phi.defs.iter().chain(&phi.uses).any(|o| o.pin.is_some()) {
        return Err(bad(
            f,
            "pinned phi operands are not supported by the baseline",
        ));
    }
    let d = phi.defs[0]
        .vreg()
        .ok_or_else(|| bad(f, "phi defines a physical register"))?;
    let class = f.class_of(d);
    let resource = f.new_vreg(class);
    let mut seen: Vec<(BlockId, Reg)> = Vec::with_capacity(phi.uses.len());
    for (u, &pred) in phi.uses.iter().zip(phi.phi_blocks()) {
        if pred.index() >= f.blocks.len() {
            return Err(bad(f, &format!("phi predecessor {pred} does not exist")));
        }
        if f.reg_class(u.reg) != class {
            return Err(bad(f, "phi argument of another register class"));
        }
        if let Some(&(_, prev)) = seen.iter().find(|(p, _)| *p == pred) {
            if prev != u.reg {
                return Err(bad(
                    f,
                    &format!("two different values flow in from {pred} (needs an edge split)"),
                ));
            }
            continue;
        }
        seen.push((pred, u.reg));
        ec.end[pred.index()].push((Reg::V(resource), u.reg));
        stats.phi_copies += 1;
    }
    ec.start[b.index()].push((Reg::V(d), Reg::V(resource)));
    stats.phi_copies += 1;
    stats.phis += 1;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Step 3: pin isolation and per-point parallel copies
// ---------------------------------------------------------------------------------------

/// The copies accumulated at the current program point. Appending a later step composes it
/// with what is already there, so the one parallel copy means the same as the sequence.
#[derive(Default)]
struct Point {
    copies: Copies,
    /// Index in `copies` of each destination.
    dst_index: HashMap<Reg, usize>,
}

impl Point {
    /// Appends copies that execute after the current ones.
    fn then(&mut self, later: &[(Reg, Reg)]) {
        // Sources are read before any write of `later`: forward them first.
        let forwarded: Vec<(Reg, Reg)> = later
            .iter()
            .map(|&(d, s)| match self.dst_index.get(&s) {
                Some(&i) => (d, self.copies[i].1),
                None => (d, s),
            })
            .collect();
        for (d, s) in forwarded {
            match self.dst_index.get(&d) {
                // A later write to the same destination wins.
                Some(&i) => self.copies[i].1 = s,
                None => {
                    self.dst_index.insert(d, self.copies.len());
                    self.copies.push((d, s));
                }
            }
        }
    }

    /// Emits the parallel copy (if any) into `out` and empties the point.
    fn flush(&mut self, out: &mut Vec<Inst>) {
        self.dst_index.clear();
        let pairs: Vec<(Operand, Operand)> = self
            .copies
            .drain(..)
            .filter(|(d, s)| d != s)
            .map(|(d, s)| (Operand::new(d), Operand::new(s)))
            .collect();
        if !pairs.is_empty() {
            out.push(Inst::par_copy(pairs));
        }
    }
}

/// Copies needed before and after one operation, and the operation rewritten.
struct Isolated {
    before: Copies,
    inst: Inst,
    after: Copies,
}

fn isolate_pins(f: &mut Function, mut ec: EdgeCopies, stats: &mut Stats) -> Result<(), String> {
    for bi in 0..f.blocks.len() {
        let b = BlockId(bi as u32);
        let insts = std::mem::take(&mut f.blocks[bi].insts);
        let term_start = insts.len() - insts.iter().rev().take_while(|i| i.is_terminator()).count();
        let mut out = Vec::with_capacity(insts.len() + 4);
        let mut point = Point::default();
        point.then(&std::mem::take(&mut ec.start[bi]));
        for (k, inst) in insts.into_iter().enumerate() {
            if k == term_start {
                point.then(&std::mem::take(&mut ec.end[bi]));
            }
            if inst.opc == Opc::ParCopy {
                if inst.defs.iter().chain(&inst.uses).any(|o| o.pin.is_some()) {
                    return Err(err_at(f, b, &inst, "pinned parallel copy operands"));
                }
                let pairs: Copies = inst
                    .defs
                    .iter()
                    .zip(&inst.uses)
                    .map(|(d, s)| (d.reg, s.reg))
                    .collect();
                point.then(&pairs);
                continue;
            }
            let iso = isolate_inst(f, b, inst, stats)?;
            point.then(&iso.before);
            if k >= term_start && !iso.after.is_empty() {
                return Err(err_at(
                    f,
                    b,
                    &iso.inst,
                    "a control operation with pinned defs",
                ));
            }
            point.flush(&mut out);
            out.push(iso.inst);
            point.then(&iso.after);
        }
        // A block without control operations (not SSA form): its end copies go last.
        point.then(&std::mem::take(&mut ec.end[bi]));
        point.flush(&mut out);
        f.blocks[bi].insts = out;
    }
    Ok(())
}

/// Rewrites one operation's pinned operands into fresh pinned vregs and returns the copies.
fn isolate_inst(
    f: &mut Function,
    b: BlockId,
    mut inst: Inst,
    stats: &mut Stats,
) -> Result<Isolated, String> {
    let mut before = Copies::new();
    let mut after = Copies::new();
    if inst.defs.iter().chain(&inst.uses).all(|o| o.pin.is_none()) {
        return Ok(Isolated {
            before,
            inst,
            after,
        });
    }
    if matches!(inst.opc, Opc::Phi | Opc::Psi) {
        return Err(err_at(f, b, &inst, "pinned phi/psi operands"));
    }
    let original = inst.clone();
    let bad = |f: &Function, m: &str| err_at(f, b, &original, m);
    // Defs: fresh pinned vregs, copied into the original ones after the operation.
    let mut new_def: HashMap<VReg, VReg> = HashMap::new();
    let mut def_regs: Vec<PReg> = Vec::new();
    for o in &mut inst.defs {
        let Some(v) = o.vreg() else {
            if o.pin
                .is_some_and(|p| p != Pin::Phys(o.reg.preg().expect("physical")))
            {
                return Err(bad(f, "physical register def pinned elsewhere"));
            }
            continue;
        };
        match o.pin {
            None => {}
            Some(Pin::Var(w)) if w == v => o.pin = None,
            Some(Pin::Var(_)) => return Err(bad(f, "def pinned to another variable")),
            Some(Pin::Phys(r)) => {
                if f.class_of(v) != r.class {
                    return Err(bad(f, "def pinned to a register of another class"));
                }
                if def_regs.contains(&r) {
                    return Err(bad(f, "two defs pinned to the same register"));
                }
                def_regs.push(r);
                let p = f.new_vreg(r.class);
                new_def.insert(v, p);
                o.reg = Reg::V(p);
                after.push((Reg::V(v), Reg::V(p)));
                stats.pins_isolated += 1;
            }
        }
    }
    // Uses pinned to registers: one fresh vreg per (value, register).
    let mut fresh_use: Vec<((Reg, PReg), VReg)> = Vec::new();
    let mut tied_defs: Vec<VReg> = Vec::new();
    for j in 0..inst.uses.len() {
        let o = inst.uses[j];
        match o.pin {
            None => {}
            Some(Pin::Phys(r)) => {
                if let Reg::P(p) = o.reg {
                    if p != r {
                        return Err(bad(f, "physical register use pinned elsewhere"));
                    }
                    continue;
                }
                if f.reg_class(o.reg) != r.class {
                    return Err(bad(f, "use pinned to a register of another class"));
                }
                if fresh_use.iter().any(|((x, q), _)| *q == r && *x != o.reg) {
                    return Err(bad(f, "two values pinned to one register"));
                }
                let t = match fresh_use.iter().find(|(k, _)| *k == (o.reg, r)) {
                    Some(&(_, t)) => t,
                    None => {
                        let t = f.new_vreg(r.class);
                        fresh_use.push(((o.reg, r), t));
                        before.push((Reg::V(t), o.reg));
                        stats.pins_isolated += 1;
                        t
                    }
                };
                inst.uses[j] = Operand::pinned(t, Pin::Phys(r));
            }
            Some(Pin::Var(d)) => {
                if !original.defs.iter().any(|x| x.reg == Reg::V(d)) {
                    return Err(bad(
                        f,
                        "use tied to a variable this operation does not define",
                    ));
                }
                let td = new_def.get(&d).copied().unwrap_or(d);
                if tied_defs.contains(&td) {
                    return Err(bad(f, "two uses tied to the same def"));
                }
                if f.reg_class(o.reg) != f.class_of(td) {
                    return Err(bad(f, "use tied to a def of another class"));
                }
                tied_defs.push(td);
                if o.reg != Reg::V(td) {
                    before.push((Reg::V(td), o.reg));
                }
                inst.uses[j] = Operand::pinned(td, Pin::Var(td));
                stats.ties += 1;
            }
        }
    }
    Ok(Isolated {
        before,
        inst,
        after,
    })
}

// ---------------------------------------------------------------------------------------
// Step 4: sequentialisation
// ---------------------------------------------------------------------------------------

/// The physical register of every vreg that carries a `Pin::Phys` (after isolation each such
/// vreg is local to one constrained operation, so it has exactly one).
fn pinned_registers(f: &Function) -> HashMap<VReg, PReg> {
    let mut pins = HashMap::new();
    for i in f.blocks.iter().flat_map(|b| &b.insts) {
        for o in i.defs.iter().chain(&i.uses) {
            if let (Reg::V(v), Some(Pin::Phys(p))) = (o.reg, o.pin) {
                pins.insert(v, p);
            }
        }
    }
    pins
}

/// Sequentialises one class's part of a parallel copy. Locations are *registers*: a vreg
/// pinned to `r` lives in `r`, so a pinned source dying here and a pinned destination born
/// here share the location `r`, and the sequentialiser orders their copies as the
/// register-level parallel copy requires (reading `r` before overwriting it) — otherwise
/// two values could need `r` at once and precolouring would be infeasible.
struct ClassCopy<'a> {
    /// Location key of each register operand.
    key: HashMap<Reg, Reg>,
    locs: HashMap<Reg, u32>,
    /// Per location: the vreg read from it, the vreg written to it, and whether the write
    /// has been emitted yet.
    src: Vec<Option<Reg>>,
    dst: Vec<Option<Reg>>,
    written: Vec<bool>,
    pins: &'a HashMap<VReg, PReg>,
}

impl<'a> ClassCopy<'a> {
    fn new(pins: &'a HashMap<VReg, PReg>) -> Self {
        ClassCopy {
            key: HashMap::new(),
            locs: HashMap::new(),
            src: Vec::new(),
            dst: Vec::new(),
            written: Vec::new(),
            pins,
        }
    }

    fn location(&mut self, r: Reg) -> u32 {
        let key = match r {
            Reg::V(v) => self.pins.get(&v).map_or(r, |&p| Reg::P(p)),
            Reg::P(_) => r,
        };
        self.key.insert(r, key);
        let n = self.locs.len() as u32;
        let l = *self.locs.entry(key).or_insert(n);
        if l == n {
            self.src.push(None);
            self.dst.push(None);
            self.written.push(false);
        }
        l
    }

    /// Emits `pairs` (dst, src) as copies; returns the number of cycles broken.
    fn run(
        &mut self,
        f: &mut Function,
        class: RegClass,
        pairs: &[(Reg, Reg)],
        seq: &mut Sequentializer,
        out: &mut Vec<Inst>,
        stats: &mut Stats,
    ) -> Result<(), String> {
        let mut copies = Vec::with_capacity(pairs.len());
        for &(d, s) in pairs {
            let (ld, ls) = (self.location(d), self.location(s));
            if self.dst[ld as usize].is_some_and(|x| x != d) {
                return Err(format!("two values written to one register ({d:?})"));
            }
            if self.src[ls as usize].is_some_and(|x| x != s) {
                return Err(format!("two values read from one register ({s:?})"));
            }
            self.dst[ld as usize] = Some(d);
            self.src[ls as usize] = Some(s);
            copies.push((ld, ls));
        }
        // A source and a destination of one register: the value is already in place, but
        // the destination vreg still needs its definition (a copy the allocator deletes).
        for &(d, s) in pairs {
            if d != s && self.key[&d] == self.key[&s] {
                let l = self.locs[&self.key[&d]] as usize;
                self.written[l] = true;
                out.push(Inst::copy(Operand::new(d), Operand::new(s)));
                stats.copies += 1;
            }
        }
        let temp = self.locs.len() as u32;
        let mut moves = Vec::new();
        seq.sequentialize(&copies, CycleBreaker::Temp(temp), &mut moves)
            .map_err(|e| format!("bad parallel copy: {e:?}"))?;
        let mut temp_vreg = None;
        for m in moves {
            let Move::Copy { dst, src } = m else {
                unreachable!("the temporary breaker emits copies only")
            };
            let s = if src == temp {
                Reg::V(temp_vreg.expect("temporary written before it is read"))
            } else if self.written[src as usize] {
                self.dst[src as usize].expect("written location has a destination")
            } else {
                self.src[src as usize].expect("read location has a source")
            };
            let d = if dst == temp {
                stats.cycles += 1;
                Reg::V(*temp_vreg.get_or_insert_with(|| f.new_vreg(class)))
            } else {
                self.written[dst as usize] = true;
                self.dst[dst as usize].expect("destination location")
            };
            out.push(Inst::copy(Operand::new(d), Operand::new(s)));
            stats.copies += 1;
        }
        if temp_vreg.is_some() {
            stats.temporaries += 1;
        }
        Ok(())
    }
}

fn sequentialize_all(f: &mut Function, stats: &mut Stats) -> Result<(), String> {
    let mut seq = Sequentializer::new();
    let pins = pinned_registers(f);
    for bi in 0..f.blocks.len() {
        if !f.blocks[bi].insts.iter().any(|i| i.opc == Opc::ParCopy) {
            continue;
        }
        let insts = std::mem::take(&mut f.blocks[bi].insts);
        let mut out = Vec::with_capacity(insts.len() * 2);
        for inst in insts {
            if inst.opc != Opc::ParCopy {
                out.push(inst);
                continue;
            }
            stats.parallel_copies += 1;
            let at = |f: &Function, m: &str| err_at(f, BlockId(bi as u32), &inst, m);
            let pairs: Vec<(Reg, Reg)> = inst
                .defs
                .iter()
                .zip(&inst.uses)
                .map(|(d, s)| (d.reg, s.reg))
                .collect();
            if let Some(&(d, s)) = pairs
                .iter()
                .find(|&&(d, s)| f.reg_class(d) != f.reg_class(s))
            {
                let msg = format!(
                    "copy between register classes ({:?} := {:?})",
                    f.reg_class(d),
                    f.reg_class(s)
                );
                return Err(at(f, &msg));
            }
            let mut handled = 0;
            for &class in crate::mir::target::classes(f.target) {
                let part: Vec<(Reg, Reg)> = pairs
                    .iter()
                    .copied()
                    .filter(|&(d, _)| f.reg_class(d) == class)
                    .collect();
                if part.is_empty() {
                    continue;
                }
                handled += part.len();
                ClassCopy::new(&pins)
                    .run(f, class, &part, &mut seq, &mut out, stats)
                    .map_err(|e| at(f, &e))?;
            }
            if handled != pairs.len() {
                return Err(at(f, "copy of a register class the target does not have"));
            }
        }
        f.blocks[bi].insts = out;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The output checker
// ---------------------------------------------------------------------------------------

/// Checks what this pass guarantees beyond `mir::verify` in allocation form, so that tests
/// and `--verify` can rely on it: no phi/psi/parallel copy; copies within one class; tied
/// uses read their def's vreg; every vreg carrying a physical pin lives in one block, only
/// between its isolation copies and the one constrained operation, where it is pinned; and
/// two vregs pinned to one register overlap only where one is a copy of the other (the
/// same value), so precolouring is feasible. O(operands + p log p) for p pinned vregs (the
/// sweep keeps only the ranges still open, normally one or two).
pub fn check_output(f: &Function) -> Result<(), String> {
    let fail = |b: usize, i: &Inst, m: &str| err_at(f, BlockId(b as u32), i, m);
    // vreg -> (block, index, pinned register if pinned there)
    let mut sites: HashMap<VReg, Vec<(usize, usize, Option<PReg>)>> = HashMap::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        for (k, i) in b.insts.iter().enumerate() {
            if matches!(i.opc, Opc::Phi | Opc::Psi | Opc::ParCopy) {
                return Err(fail(bi, i, "left over after out-of-SSA"));
            }
            if i.opc == Opc::Copy
                && (i.defs.len() != 1
                    || i.uses.is_empty()
                    || f.reg_class(i.defs[0].reg) != f.reg_class(i.uses[0].reg))
            {
                return Err(fail(bi, i, "malformed copy"));
            }
            for o in &i.uses {
                if let Some(Pin::Var(d)) = o.pin {
                    if o.reg != Reg::V(d) || !i.defs.iter().any(|x| x.reg == Reg::V(d)) {
                        return Err(fail(bi, i, "tied use is not its def's vreg"));
                    }
                }
            }
            for o in i.defs.iter().chain(&i.uses) {
                if let Reg::V(v) = o.reg {
                    let p = match o.pin {
                        Some(Pin::Phys(p)) => Some(p),
                        _ => None,
                    };
                    sites.entry(v).or_default().push((bi, k, p));
                }
            }
        }
    }
    type Ranges = HashMap<(usize, PReg), Vec<(usize, usize, VReg)>>;
    let mut ranges: Ranges = HashMap::new();
    for (&v, s) in &sites {
        let Some(p) = s.iter().find_map(|x| x.2) else {
            continue;
        };
        let bi = s[0].0;
        let first = &f.blocks[bi].insts[s[0].1];
        if s.iter().any(|x| x.0 != bi) {
            return Err(fail(
                bi,
                first,
                &format!("pinned {v} lives in several blocks"),
            ));
        }
        let lo = s.iter().map(|x| x.1).min().expect("non-empty");
        let hi = s.iter().map(|x| x.1).max().expect("non-empty");
        let window = &f.blocks[bi].insts[lo..=hi];
        if window.iter().filter(|i| i.opc != Opc::Copy).count() > 1 {
            return Err(fail(
                bi,
                first,
                &format!("pinned {v} spans several operations"),
            ));
        }
        for &(_, k, pin) in s {
            let i = &f.blocks[bi].insts[k];
            if i.opc != Opc::Copy && pin != Some(p) {
                return Err(fail(bi, i, &format!("{v} not pinned to {p:?} here")));
            }
        }
        ranges.entry((bi, p)).or_default().push((lo, hi, v));
    }
    // Sweep each register's ranges in order of definition, keeping those still open.
    let mut open: Vec<(usize, usize, VReg)> = Vec::new();
    for ((bi, p), rs) in &mut ranges {
        rs.sort_unstable();
        open.clear();
        for &b in rs.iter() {
            open.retain(|a| a.1 > b.0);
            for a in &open {
                let def = &f.blocks[*bi].insts[b.0];
                let same_value = def.opc == Opc::Copy && def.uses[0].reg == Reg::V(a.2);
                if a.0 < b.0 && !same_value {
                    let m = format!("{} and {} both need {p:?}", a.2, b.2);
                    return Err(fail(*bi, def, &m));
                }
            }
            open.push(b);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
