//! Out-of-SSA translation by Sreedhar et al.'s **method III**: conversion of the phis to
//! conventional SSA (CSSA) with liveness and the interference graph, then renaming of every
//! phi congruence class to one variable and removal of the phis.
//!
//! Sources: V. C. Sreedhar, R. D.-C. Ju, D. M. Gillies, V. Santhanam, "Translating out of
//! static single assignment form", SAS 1999, §4.3 (method III: "phi congruence classes",
//! the four cases of interfering candidate resources, "process the unresolved resources",
//! insertion of copies for the selected resources only, with liveness and interference
//! updates); Rastello, de Ferrière, Guillon, "Optimizing translation out of SSA using
//! renaming constraints" (LIP RR-2005-34), §4.2 and §5 (the configuration `S_phi`: Sreedhar
//! for the phis + the naive handling `Naive_ABI` of renaming constraints); SSA book ch. 21
//! §21.2 (CSSA, phi congruence classes).
//!
//! # What it does, in order
//! 1. [`live_sets`]: liveness of the *phi resources* (every vreg that is a phi operand) with
//!    phi semantics: a phi argument is used at the end of its predecessor (`LiveOut`), a phi
//!    result is defined at the block's entry (not in `LiveIn`).
//! 2. [`interference_graph`]: a bit matrix over the phi resources (and the copies created
//!    later): `a` and `b` interfere if one is live where the other is written (no copy
//!    exception: conservative). All phi results of one block interfere with each other.
//! 3. For each phi `x0 = phi(x1 from L1, ..., xn from Ln)`, in block order
//!    ([`process_phi`]):
//!    * [`find_candidates`]: for every pair of operands whose *phi congruence classes*
//!      interfere, the four cases of the paper, with `S(x0) = LiveIn[L0]` and
//!      `S(xi) = LiveOut[Li]`: (1) `class(xi) ∩ S(xj) ≠ ∅` only → `xi` is a candidate,
//!      (2) the reverse → `xj`, (3) both → both, (4) neither → the pair is *unresolved*;
//!    * [`process_unresolved_resources`]: the unresolved pairs not already resolved by a
//!      candidate form a graph; greedily the resource with the most unresolved neighbours
//!      (ties: cheaper copy, i.e. smaller `5^loop depth` of its block, then operand order) is
//!      made a candidate until no unresolved pair is left;
//!    * [`insert_copies`]: a copy `xi' := xi` at the end of `Li` (before its control
//!      operations) for a candidate argument, `x0 := x0'` at the start of `L0` for a
//!      candidate result; the new variable replaces the operand, its interferences are
//!      `LiveOut[Li]` (+ what the control operations read) resp. `LiveIn[L0]` + the block's
//!      phi results, and `LiveOut[Li]` is updated (`xi'` added, `xi` removed when nothing
//!      else needs it there);
//!    * [`merge_phi_classes`]: the classes of all operands are merged. A final check that the
//!      merged class is interference-free backs the heuristics: if it is not (the paper's
//!      case analysis is local), the phi is isolated completely (a copy for every operand
//!      not yet copied — method I), which is always interference-free. Counted as
//!      `isolation_fallbacks`.
//! 4. [`rename_classes`]: every class is renamed to one variable (its smallest vreg), the
//!    phis are deleted, and the copies become parallel copies at block ends / starts.
//! 5. Renaming constraints (`Naive_ABI`) and the rest: [`super::isolation::translate`] is run
//!    on the phi-free function. It lowers psis, isolates every pinned operand with local
//!    copies (exactly the baseline's pin handling) and sequentialises all parallel copies
//!    (ours included). Its counts are reported after ours.
//!
//! Psis (ST120 if-conversion): the baseline's psi lowering may write the psi's result in
//! place of an argument's earlier definition in the same block, so here a psi result is
//! treated as defined right after the block's phis (conservative). A guarded definition is
//! partial: it is a read as well (as in `regalloc::liveness`). A def tied to a use
//! (`Pin::Var`) interferes with every other use of its operation (the baseline copies the
//! tied use into the def's variable before the operation).
//!
//! # Preconditions
//! SSA form (`docs/design.md`), no pinned phi arguments (a pinned phi result is first isolated
//! by `super::isolate_pinned_phi_results`, as in the baseline), no two different
//! values from one predecessor in a phi.
//!
//! # Invariants
//! After step 3 every phi congruence class is interference-free (checked per phi); the
//! output is in allocation form (no phi, psi or parallel copy; sequentialised copies) and
//! satisfies [`super::isolation::check_output`].
//!
//! # Complexity
//! With `n` = phi resources + copies (at most twice the phi operands): liveness
//! O(blocks × n/64 × iterations), interference O(instructions × n/64), per phi O(k² c²) for
//! `k` operands and classes of size `c`. Above [`MAX_RESOURCES`] resources the bit matrix
//! would be too large: the function is then translated by isolation alone (method I),
//! counted as `resource_cap_fallback`.

use super::isolation;
use crate::mir::cfg::CfgInfo;
use crate::mir::print::inst_to_string;
use crate::mir::{BlockId, Function, Inst, InstFlags, Opc, Operand, Pin, Reg, VReg};
use crate::pipeline::PassDetail;

/// Above this many phi resources (+ copies) the pass leaves the phis to isolation.
pub const MAX_RESOURCES: usize = 8192;

/// What the pass did (reported as its `PassDetail`, before the isolation step's counts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Phis converted.
    pub phis: u64,
    /// Interfering operand pairs by case of the paper (1 and 2 counted together).
    pub case_one_side: u64,
    pub case_both: u64,
    pub case_unresolved: u64,
    /// Resources chosen by "process the unresolved resources".
    pub resolved_greedily: u64,
    /// Copies inserted for phi arguments (end of predecessor) and results (block start).
    pub arg_copies: u64,
    pub result_copies: u64,
    /// Phis whose merged class still interfered and that were isolated completely.
    pub isolation_fallbacks: u64,
    /// 1 if the function had too many resources and was translated by isolation alone.
    pub resource_cap_fallback: u64,
    /// Temporaries breaking a cycle of classes among the copies of one point
    /// ([`convert_to_cssa`] only).
    pub temporaries: u64,
}

impl Stats {
    pub fn detail(&self) -> PassDetail {
        vec![
            ("sreedhar_phis", self.phis),
            ("case_one_side", self.case_one_side),
            ("case_both", self.case_both),
            ("case_unresolved", self.case_unresolved),
            ("resolved_greedily", self.resolved_greedily),
            ("sreedhar_arg_copies", self.arg_copies),
            ("sreedhar_result_copies", self.result_copies),
            ("isolation_fallbacks", self.isolation_fallbacks),
            ("resource_cap_fallback", self.resource_cap_fallback),
            ("cssa_temporaries", self.temporaries),
        ]
    }
}

/// The pass entry point: Sreedhar III for the phis, then the baseline's pin isolation and
/// sequentialisation (configuration `S_phi`).
pub fn run(f: &mut Function) -> Result<PassDetail, String> {
    let (s, iso) = translate(f)?;
    let mut d = s.detail();
    d.extend(iso.detail());
    Ok(d)
}

/// Same as [`run`], with both steps' statistics as structs.
pub fn translate(f: &mut Function) -> Result<(Stats, isolation::Stats), String> {
    let mut stats = Stats::default();
    convert_to_cssa_and_rename(f, &mut stats)?;
    let iso = isolation::translate(f)?;
    Ok((stats, iso))
}

/// Steps 1–4: phis → CSSA → renamed classes and parallel copies (no phis left).
pub fn convert_to_cssa_and_rename(f: &mut Function, stats: &mut Stats) -> Result<(), String> {
    convert_and_rename(f, stats, None)
}

/// [`translate`], recording the phi congruence classes and the copies between them in
/// `trace` (for `viz`, issue 26; the translation is the same as without the record).
pub fn translate_traced(
    f: &mut Function,
    trace: &mut super::CongruenceTrace,
) -> Result<(Stats, isolation::Stats), String> {
    let mut stats = Stats::default();
    convert_and_rename(f, &mut stats, Some(trace))?;
    let iso = isolation::translate(f)?;
    Ok((stats, iso))
}

fn convert_and_rename(
    f: &mut Function,
    stats: &mut Stats,
    trace: Option<&mut super::CongruenceTrace>,
) -> Result<(), String> {
    super::isolate_pinned_phi_results(f)?;
    check_phis(f)?;
    let Some(mut st) = State::new(f) else {
        if f.blocks.iter().any(|b| b.insts.iter().any(Inst::is_phi)) {
            stats.resource_cap_fallback = 1;
        }
        return Ok(());
    };
    let cfg = CfgInfo::compute(f);
    for bi in 0..f.blocks.len() {
        let b = BlockId(bi as u32);
        for k in 0..f.blocks[bi].phi_end() {
            process_phi(f, &mut st, &cfg, b, k, stats)?;
        }
    }
    if let Some(t) = trace {
        *t = congruence_trace(f, &st, &cfg);
    }
    rename_classes(f, &st);
    Ok(())
}

/// The classes of `st` and the affinities of the CSSA function `f` (before renaming): every
/// phi operand pair joins its class; every inserted copy splits two classes.
fn congruence_trace(f: &Function, st: &State, cfg: &CfgInfo) -> super::CongruenceTrace {
    let name = |r: Reg| reg_label(f, r);
    let classes = st
        .members
        .iter()
        .filter(|m| !m.is_empty())
        .map(|m| {
            m.iter()
                .map(|&r| name(Reg::V(st.vreg_of[r as usize])))
                .collect()
        })
        .collect();
    let mut affinities = Vec::new();
    for (bi, blk) in f.blocks.iter().enumerate() {
        for phi in blk.insts.iter().take_while(|i| i.is_phi()) {
            for (u, &p) in phi.uses.iter().zip(phi.phi_blocks()) {
                affinities.push(super::TracedAffinity {
                    dst: name(phi.defs[0].reg),
                    src: name(u.reg),
                    weight: cfg.weight(p),
                    place: format!("phi of b{bi} from {p}"),
                    split: false,
                });
            }
        }
    }
    for &(b, d, s) in &st.start_copies {
        affinities.push(super::TracedAffinity {
            dst: name(Reg::V(d)),
            src: name(Reg::V(s)),
            weight: cfg.weight(b),
            place: format!("start of {b}"),
            split: true,
        });
    }
    for &(b, d, s) in &st.end_copies {
        affinities.push(super::TracedAffinity {
            dst: name(Reg::V(d)),
            src: name(s),
            weight: cfg.weight(b),
            place: format!("end of {b}"),
            split: true,
        });
    }
    super::CongruenceTrace {
        classes,
        affinities,
    }
}

/// `%N` for a vreg, the register's name for a physical register.
fn reg_label(f: &Function, r: Reg) -> String {
    match r {
        Reg::V(v) => format!("%{}", v.0),
        Reg::P(p) => crate::mir::target::reg_name(f.target, p),
    }
}

fn err_at(f: &Function, b: BlockId, inst: &Inst, msg: &str) -> String {
    format!(
        "sreedhar3: @{} {b}: `{}`: {msg}",
        f.name,
        inst_to_string(f, inst)
    )
}

/// The preconditions that the steps below rely on: every vreg operand (and `Pin::Var`)
/// has a class, every branch target exists, phis are well formed.
pub(super) fn check_phis(f: &Function) -> Result<(), String> {
    let nb = f.blocks.len();
    let nv = f.vregs.len();
    for (bi, blk) in f.blocks.iter().enumerate() {
        for i in &blk.insts {
            let bad_reg = i.defs.iter().chain(&i.uses).any(|o| {
                o.vreg().is_some_and(|v| v.index() >= nv)
                    || matches!(o.pin, Some(Pin::Var(v)) if v.index() >= nv)
            });
            if bad_reg {
                return Err(err_at(
                    f,
                    BlockId(bi as u32),
                    i,
                    "virtual register without a class",
                ));
            }
            if i.branch_target().is_some_and(|t| t.index() >= nb) {
                return Err(err_at(
                    f,
                    BlockId(bi as u32),
                    i,
                    "branch to a missing block",
                ));
            }
        }
        if let Some(i) = blk.insts[blk.phi_end()..].iter().find(|i| i.is_phi()) {
            return Err(err_at(f, BlockId(bi as u32), i, "phi after a non-phi"));
        }
    }
    for (bi, blk) in f.blocks.iter().enumerate() {
        let b = BlockId(bi as u32);
        for phi in blk.insts.iter().take_while(|i| i.is_phi()) {
            let bad = |m: &str| err_at(f, b, phi, m);
            if phi.defs.len() != 1 || phi.phi_blocks().len() != phi.uses.len() {
                return Err(bad("malformed phi"));
            }
            if phi.defs.iter().chain(&phi.uses).any(|o| o.pin.is_some()) {
                return Err(bad("pinned phi operands are not supported"));
            }
            let Some(d) = phi.defs[0].vreg() else {
                return Err(bad("phi defines a physical register"));
            };
            if d.index() >= f.vregs.len() {
                return Err(bad("virtual register without a class"));
            }
            let class = f.class_of(d);
            for (k, (u, p)) in phi.uses.iter().zip(phi.phi_blocks()).enumerate() {
                if p.index() >= nb {
                    return Err(bad(&format!("phi predecessor {p} does not exist")));
                }
                if u.vreg().is_some_and(|v| v.index() >= f.vregs.len()) {
                    return Err(bad("virtual register without a class"));
                }
                if f.reg_class(u.reg) != class {
                    return Err(bad("phi argument of another register class"));
                }
                let dup = phi.phi_blocks()[..k]
                    .iter()
                    .zip(&phi.uses)
                    .any(|(q, w)| q == p && w.reg != u.reg);
                if dup {
                    return Err(bad(&format!(
                        "two different values flow in from {p} (needs an edge split)"
                    )));
                }
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Resources, bitsets, classes
// ---------------------------------------------------------------------------------------

const NONE: u32 = u32::MAX;

fn set_bit(s: &mut [u64], i: usize) {
    s[i / 64] |= 1 << (i % 64);
}
fn clear_bit(s: &mut [u64], i: usize) {
    s[i / 64] &= !(1 << (i % 64));
}
fn has_bit(s: &[u64], i: usize) -> bool {
    s[i / 64] >> (i % 64) & 1 != 0
}

/// The whole state of the conversion: dense numbering of the resources, live sets,
/// interference matrix, congruence classes and the copies to materialise.
struct State {
    /// Dense index of each vreg (`NONE` if not a resource); grows with new vregs.
    dense: Vec<u32>,
    vreg_of: Vec<VReg>,
    /// Capacity in resources and words per set.
    cap: usize,
    words: usize,
    live_in: Vec<u64>,
    live_out: Vec<u64>,
    /// Row `a` has bit `b` when `a` was seen written while `b` was live (or conversely);
    /// interference is the symmetric closure (see [`State::interfere`]).
    matrix: Vec<u64>,
    /// Class id of each resource, and the members of each class.
    class_of: Vec<u32>,
    members: Vec<Vec<u32>>,
    /// Copies to materialise: `(block, dst, src)` at block starts and block ends.
    start_copies: Vec<(BlockId, VReg, VReg)>,
    end_copies: Vec<(BlockId, VReg, Reg)>,
    /// Resources read by each block's control operations.
    term_reads: Vec<Vec<u32>>,
    /// Per original vreg: a phi operand that must be copied whatever the interferences
    /// (see [`convert_to_cssa`]); empty for [`convert_to_cssa_and_rename`].
    forced: Vec<bool>,
}

impl State {
    /// Numbers the phi resources and computes liveness and interference; `None` above the cap.
    fn new(f: &Function) -> Option<State> {
        let mut dense = vec![NONE; f.vregs.len()];
        let mut vreg_of = Vec::new();
        let mut operands = 0usize;
        for phi in f
            .blocks
            .iter()
            .flat_map(|b| b.insts.iter().take_while(|i| i.is_phi()))
        {
            operands += phi.uses.len() + 1;
            for v in phi.def_vregs().chain(phi.use_vregs()) {
                if dense[v.index()] == NONE {
                    dense[v.index()] = vreg_of.len() as u32;
                    vreg_of.push(v);
                }
            }
        }
        if vreg_of.is_empty() {
            return None;
        }
        let cap = vreg_of.len() + operands;
        if cap > MAX_RESOURCES {
            return None;
        }
        let words = cap.div_ceil(64);
        let n = vreg_of.len();
        let mut st = State {
            dense,
            vreg_of,
            cap,
            words,
            live_in: Vec::new(),
            live_out: Vec::new(),
            matrix: vec![0; cap * words],
            class_of: (0..n as u32).collect(),
            members: (0..n as u32).map(|i| vec![i]).collect(),
            start_copies: Vec::new(),
            end_copies: Vec::new(),
            term_reads: Vec::new(),
            forced: Vec::new(),
        };
        live_sets(f, &mut st);
        interference_graph(f, &mut st);
        Some(st)
    }

    fn res(&self, v: VReg) -> Option<usize> {
        match self.dense.get(v.index()) {
            Some(&d) if d != NONE => Some(d as usize),
            _ => None,
        }
    }

    fn res_of(&self, r: Reg) -> Option<usize> {
        r.vreg().and_then(|v| self.res(v))
    }

    fn interfere(&self, a: usize, b: usize) -> bool {
        has_bit(&self.matrix[a * self.words..(a + 1) * self.words], b)
            || has_bit(&self.matrix[b * self.words..(b + 1) * self.words], a)
    }

    /// Records that `a` is written while every resource of `live` is live.
    fn add_row(&mut self, a: usize, live: &[u64]) {
        let row = &mut self.matrix[a * self.words..(a + 1) * self.words];
        row.iter_mut().zip(live).for_each(|(r, l)| *r |= l);
        clear_bit(row, a);
    }

    /// A new resource for the fresh vreg `v` (its own class).
    fn new_resource(&mut self, v: VReg) -> usize {
        let i = self.vreg_of.len();
        debug_assert!(i < self.cap, "capacity counts one copy per operand");
        if self.dense.len() <= v.index() {
            self.dense.resize(v.index() + 1, NONE);
        }
        self.dense[v.index()] = i as u32;
        self.vreg_of.push(v);
        self.class_of.push(self.members.len() as u32);
        self.members.push(vec![i as u32]);
        i
    }

    fn class_members(&self, r: usize) -> &[u32] {
        &self.members[self.class_of[r] as usize]
    }

    /// Two classes interfere if any of their members do.
    fn classes_interfere(&self, a: usize, b: usize) -> bool {
        let (ca, cb) = (self.class_members(a), self.class_members(b));
        ca.iter()
            .any(|&x| cb.iter().any(|&y| self.interfere(x as usize, y as usize)))
    }

    /// `class(r) ∩ set ≠ ∅` for one of the live sets.
    fn class_meets(&self, r: usize, set: &[u64]) -> bool {
        self.class_members(r)
            .iter()
            .any(|&m| has_bit(set, m as usize))
    }
}

// ---------------------------------------------------------------------------------------
// Step 1: liveness of the phi resources
// ---------------------------------------------------------------------------------------

/// Reads of `inst` among the resources (uses, and partial guarded defs).
fn reads(st: &State, inst: &Inst, mut f: impl FnMut(usize)) {
    for v in inst.use_vregs() {
        if let Some(r) = st.res(v) {
            f(r);
        }
    }
    if inst.flags.contains(InstFlags::GUARDED) {
        for v in inst.def_vregs() {
            if let Some(r) = st.res(v) {
                f(r);
            }
        }
    }
}

/// `LiveIn`/`LiveOut` of every block over the resources, with phi semantics.
fn live_sets(f: &Function, st: &mut State) {
    let nb = f.blocks.len();
    let w = st.words;
    let mut gen = vec![0u64; nb * w];
    let mut kill = vec![0u64; nb * w];
    let mut phi_out = vec![0u64; nb * w];
    st.term_reads = vec![Vec::new(); nb];
    for (b, blk) in f.blocks.iter().enumerate() {
        let (g, k) = (&mut gen[b * w..(b + 1) * w], &mut kill[b * w..(b + 1) * w]);
        let term = blk.terminator_start();
        for (idx, inst) in blk.insts.iter().enumerate().rev() {
            if inst.is_phi() {
                for v in inst.def_vregs() {
                    let r = st.res(v).expect("phi results are resources");
                    clear_bit(g, r);
                    set_bit(k, r);
                }
                for (u, p) in inst.uses.iter().zip(inst.phi_blocks()) {
                    if let Some(r) = st.res_of(u.reg) {
                        set_bit(&mut phi_out[p.index() * w..(p.index() + 1) * w], r);
                    }
                }
                continue;
            }
            if !inst.flags.contains(InstFlags::GUARDED) {
                for v in inst.def_vregs() {
                    if let Some(r) = st.res(v) {
                        clear_bit(g, r);
                        set_bit(k, r);
                    }
                }
            }
            reads(st, inst, |r| set_bit(g, r));
            if idx >= term {
                let mut t = std::mem::take(&mut st.term_reads[b]);
                reads(st, inst, |r| t.push(r as u32));
                st.term_reads[b] = t;
            }
        }
    }
    let succs = f.successors();
    let preds = f.predecessors();
    st.live_in = vec![0; nb * w];
    st.live_out = vec![0; nb * w];
    let mut queued = vec![true; nb];
    let mut work: Vec<usize> = (0..nb).collect();
    let mut out = vec![0u64; w];
    while let Some(b) = work.pop() {
        queued[b] = false;
        out.copy_from_slice(&phi_out[b * w..(b + 1) * w]);
        for s in &succs[b] {
            if s.index() < nb {
                let si = &st.live_in[s.index() * w..(s.index() + 1) * w];
                out.iter_mut().zip(si).for_each(|(o, i)| *o |= i);
            }
        }
        st.live_out[b * w..(b + 1) * w].copy_from_slice(&out);
        let mut changed = false;
        for k in 0..w {
            let new_in = gen[b * w + k] | (out[k] & !kill[b * w + k]);
            if new_in != st.live_in[b * w + k] {
                st.live_in[b * w + k] = new_in;
                changed = true;
            }
        }
        if changed {
            for p in &preds[b] {
                if !queued[p.index()] {
                    queued[p.index()] = true;
                    work.push(p.index());
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Step 2: the interference graph of the phi resources
// ---------------------------------------------------------------------------------------

/// Scans every block backwards from `LiveOut` and records, at each write of a resource, the
/// resources live there.
fn interference_graph(f: &Function, st: &mut State) {
    let w = st.words;
    let mut live = vec![0u64; w];
    let mut defs: Vec<usize> = Vec::new();
    for (b, blk) in f.blocks.iter().enumerate() {
        live.copy_from_slice(&st.live_out[b * w..(b + 1) * w]);
        // Psi results, treated as written right after the phis (see the module doc).
        let mut deferred: Vec<usize> = Vec::new();
        let nphi = blk.phi_end();
        for inst in blk.insts[nphi..].iter().rev() {
            defs.clear();
            defs.extend(inst.def_vregs().filter_map(|v| st.res(v)));
            if inst.opc == Opc::Psi {
                for &d in &defs {
                    set_bit(&mut live, d);
                    deferred.push(d);
                }
                reads(st, inst, |r| set_bit(&mut live, r));
                continue;
            }
            // All defs of one operation are written together.
            for &d in &defs {
                for &e in &defs {
                    set_bit(&mut live, e);
                }
                st.add_row(d, &live);
            }
            tied_def_interference(st, inst);
            if !inst.flags.contains(InstFlags::GUARDED) {
                for &d in &defs {
                    clear_bit(&mut live, d);
                }
            }
            reads(st, inst, |r| set_bit(&mut live, r));
        }
        for &d in &deferred {
            st.add_row(d, &live);
            clear_bit(&mut live, d);
        }
        // Phi results: written together at the block's entry.
        let phi_defs: Vec<usize> = blk.insts[..nphi]
            .iter()
            .flat_map(|i| i.def_vregs())
            .filter_map(|v| st.res(v))
            .collect();
        for &d in &phi_defs {
            set_bit(&mut live, d);
        }
        for &d in &phi_defs {
            st.add_row(d, &live);
        }
    }
}

/// A def tied to a use (`Pin::Var`) is written by a copy *before* its operation once the
/// constraint is isolated, so it also interferes with the operation's other uses.
fn tied_def_interference(st: &mut State, inst: &Inst) {
    for o in &inst.uses {
        let Some(Pin::Var(d)) = o.pin else { continue };
        let Some(rd) = st.res(d) else { continue };
        let tied = o.reg;
        for u in &inst.uses {
            if u.reg == tied {
                continue;
            }
            if let Some(ru) = st.res_of(u.reg) {
                if ru != rd {
                    let w = st.words;
                    set_bit(&mut st.matrix[rd * w..(rd + 1) * w], ru);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Step 3: one phi
// ---------------------------------------------------------------------------------------

/// One operand of the phi being processed: position 0 is the result.
#[derive(Clone, Copy)]
struct Resource {
    /// The resource index (None for a physical-register argument: always copied).
    res: Option<usize>,
    /// The block of the copy that would isolate it (L0 for the result, Li for an argument).
    block: BlockId,
    weight: u64,
    /// Copied whatever the interferences (a forced operand of [`convert_to_cssa`]).
    forced: bool,
}

fn process_phi(
    f: &mut Function,
    st: &mut State,
    cfg: &CfgInfo,
    b: BlockId,
    k: usize,
    stats: &mut Stats,
) -> Result<(), String> {
    stats.phis += 1;
    let phi = f.blocks[b.index()].insts[k].clone();
    let mut ops = Vec::with_capacity(phi.uses.len() + 1);
    let forced = |r: Reg| {
        r.vreg()
            .is_some_and(|v| st.forced.get(v.index()) == Some(&true))
    };
    ops.push(Resource {
        res: st.res_of(phi.defs[0].reg),
        block: b,
        weight: cfg.weight(b),
        forced: forced(phi.defs[0].reg),
    });
    for (u, &p) in phi.uses.iter().zip(phi.phi_blocks()) {
        ops.push(Resource {
            res: st.res_of(u.reg),
            block: p,
            weight: cfg.weight(p),
            forced: forced(u.reg),
        });
    }
    let sets = case_sets(f, st, b, &ops);
    let (mut candidate, unresolved) = find_candidates(st, &ops, &sets, stats);
    process_unresolved_resources(&ops, &mut candidate, unresolved, stats);
    insert_copies(f, st, b, k, &ops, &candidate, stats);
    if merge_phi_classes(f, st, b, k) {
        return Ok(());
    }
    // The merged class would interfere: isolate every operand not copied yet (method I).
    stats.isolation_fallbacks += 1;
    let all: Vec<bool> = candidate.iter().map(|c| !c).collect();
    insert_copies(f, st, b, k, &ops, &all, stats);
    if merge_phi_classes(f, st, b, k) {
        Ok(())
    } else {
        let phi = f.blocks[b.index()].insts[k].clone();
        Err(err_at(
            f,
            b,
            &phi,
            "isolated phi still interferes (internal error)",
        ))
    }
}

/// The sets `S(x)` of the case analysis: for the result, what is live right after the
/// phis of `L0` (`LiveIn[L0]` and the block's phi results, which the paper counts as
/// live-in: they are written together at the entry); `LiveOut[Li]` for an argument.
fn case_sets(f: &Function, st: &State, b: BlockId, ops: &[Resource]) -> Vec<Vec<u64>> {
    let w = st.words;
    ops.iter()
        .enumerate()
        .map(|(j, op)| {
            let l = op.block.index();
            if j > 0 {
                return st.live_out[l * w..(l + 1) * w].to_vec();
            }
            let mut s = st.live_in[l * w..(l + 1) * w].to_vec();
            let blk = &f.blocks[b.index()];
            for v in blk.insts[..blk.phi_end()]
                .iter()
                .flat_map(|i| i.def_vregs())
            {
                if let Some(x) = st.res(v) {
                    set_bit(&mut s, x);
                }
            }
            s
        })
        .collect()
}

/// The four cases of the paper for every interfering pair; returns the candidates and the
/// unresolved pairs.
fn find_candidates(
    st: &State,
    ops: &[Resource],
    sets: &[Vec<u64>],
    stats: &mut Stats,
) -> (Vec<bool>, Vec<(usize, usize)>) {
    let mut candidate: Vec<bool> = ops.iter().map(|o| o.res.is_none() || o.forced).collect();
    let mut unresolved = Vec::new();
    for i in 0..ops.len() {
        for j in i + 1..ops.len() {
            let (Some(ri), Some(rj)) = (ops[i].res, ops[j].res) else {
                continue;
            };
            if st.class_of[ri] == st.class_of[rj] || !st.classes_interfere(ri, rj) {
                continue;
            }
            let i_meets_sj = st.class_meets(ri, &sets[j]);
            let j_meets_si = st.class_meets(rj, &sets[i]);
            match (i_meets_sj, j_meets_si) {
                (true, false) => {
                    candidate[i] = true;
                    stats.case_one_side += 1;
                }
                (false, true) => {
                    candidate[j] = true;
                    stats.case_one_side += 1;
                }
                (true, true) => {
                    candidate[i] = true;
                    candidate[j] = true;
                    stats.case_both += 1;
                }
                (false, false) => {
                    unresolved.push((i, j));
                    stats.case_unresolved += 1;
                }
            }
        }
    }
    (candidate, unresolved)
}

/// "Process the unresolved resources": pairs with a candidate end are resolved; then the
/// resource with the most unresolved neighbours (ties: smaller copy weight, then operand
/// order) becomes a candidate, until no pair is left (a greedy vertex cover).
fn process_unresolved_resources(
    ops: &[Resource],
    candidate: &mut [bool],
    mut pairs: Vec<(usize, usize)>,
    stats: &mut Stats,
) {
    loop {
        pairs.retain(|&(i, j)| !candidate[i] && !candidate[j]);
        if pairs.is_empty() {
            return;
        }
        let mut degree = vec![0usize; ops.len()];
        for &(i, j) in &pairs {
            degree[i] += 1;
            degree[j] += 1;
        }
        let best = (0..ops.len())
            .filter(|&x| degree[x] > 0)
            .min_by_key(|&x| (std::cmp::Reverse(degree[x]), ops[x].weight, x))
            .expect("a pair is left");
        candidate[best] = true;
        stats.resolved_greedily += 1;
    }
}

/// Inserts the copies of the candidates and updates liveness and interference.
fn insert_copies(
    f: &mut Function,
    st: &mut State,
    b: BlockId,
    k: usize,
    ops: &[Resource],
    candidate: &[bool],
    stats: &mut Stats,
) {
    let w = st.words;
    for (j, op) in ops.iter().enumerate() {
        if !candidate[j] {
            continue;
        }
        let phi = &f.blocks[b.index()].insts[k];
        let old = if j == 0 {
            phi.defs[0].reg
        } else {
            phi.uses[j - 1].reg
        };
        let class = f.reg_class(old);
        let v = f.new_vreg(class);
        let r = st.new_resource(v);
        let lb = op.block.index();
        if j == 0 {
            // x0 := x0' at the start of L0; x0' is live from the phis to that copy.
            let mut live: Vec<u64> = st.live_in[lb * w..(lb + 1) * w].to_vec();
            for d in f.blocks[b.index()].insts[..f.blocks[b.index()].phi_end()]
                .iter()
                .flat_map(|i| i.def_vregs())
            {
                if let Some(x) = st.res(d) {
                    set_bit(&mut live, x);
                }
            }
            st.add_row(r, &live);
            let x0 = old.vreg().expect("phi results are vregs");
            st.start_copies.push((b, x0, v));
            f.blocks[b.index()].insts[k].defs[0] = Operand::new(v);
            stats.result_copies += 1;
        } else {
            // xi' := xi at the end of Li, before its control operations.
            let mut live: Vec<u64> = st.live_out[lb * w..(lb + 1) * w].to_vec();
            for &t in &st.term_reads[lb] {
                set_bit(&mut live, t as usize);
            }
            st.add_row(r, &live);
            st.end_copies.push((op.block, v, old));
            f.blocks[b.index()].insts[k].uses[j - 1] = Operand::new(v);
            set_bit(&mut st.live_out[lb * w..(lb + 1) * w], r);
            if let Some(x) = st.res_of(old) {
                if !still_live_out(f, st, op.block, old, x) {
                    clear_bit(&mut st.live_out[lb * w..(lb + 1) * w], x);
                }
            }
            stats.arg_copies += 1;
        }
    }
}

/// Whether `old` (resource `x`) is still needed at the end of `l`: live into a successor,
/// or an argument from `l` of some phi.
fn still_live_out(f: &Function, st: &State, l: BlockId, old: Reg, x: usize) -> bool {
    let w = st.words;
    f.blocks[l.index()].successors().iter().any(|s| {
        has_bit(&st.live_in[s.index() * w..(s.index() + 1) * w], x)
            || f.blocks[s.index()]
                .insts
                .iter()
                .take_while(|i| i.is_phi())
                .any(|phi| {
                    phi.uses
                        .iter()
                        .zip(phi.phi_blocks())
                        .any(|(u, p)| *p == l && u.reg == old)
                })
    })
}

/// Merges the classes of all the phi's operands if the union is interference-free; returns
/// false (and merges nothing) otherwise.
fn merge_phi_classes(f: &Function, st: &mut State, b: BlockId, k: usize) -> bool {
    let phi = &f.blocks[b.index()].insts[k];
    let mut classes: Vec<u32> = phi
        .defs
        .iter()
        .chain(&phi.uses)
        .filter_map(|o| st.res_of(o.reg))
        .map(|r| st.class_of[r])
        .collect();
    classes.sort_unstable();
    classes.dedup();
    let merged: Vec<u32> = classes
        .iter()
        .flat_map(|&c| st.members[c as usize].iter().copied())
        .collect();
    for (n, &a) in merged.iter().enumerate() {
        for &c in &merged[n + 1..] {
            if st.interfere(a as usize, c as usize) {
                return false;
            }
        }
    }
    let target = classes[0];
    for &c in &classes[1..] {
        let moved = std::mem::take(&mut st.members[c as usize]);
        for &m in &moved {
            st.class_of[m as usize] = target;
        }
        st.members[target as usize].extend(moved);
    }
    true
}

// ---------------------------------------------------------------------------------------
// Step 4: renaming and removal of the phis
// ---------------------------------------------------------------------------------------

/// Renames every class to its smallest vreg, deletes the phis and materialises the copies as
/// parallel copies (block start: after the phis' place; block end: before the control
/// operations).
fn rename_classes(f: &mut Function, st: &State) {
    let mut name: Vec<Option<VReg>> = vec![None; f.vregs.len()];
    for m in st.members.iter().filter(|m| m.len() > 1) {
        let rep = m
            .iter()
            .map(|&r| st.vreg_of[r as usize])
            .min()
            .expect("non-empty");
        for &r in m {
            name[st.vreg_of[r as usize].index()] = Some(rep);
        }
    }
    let rn = |r: Reg| match r {
        Reg::V(v) => Reg::V(name[v.index()].unwrap_or(v)),
        p => p,
    };
    let nb = f.blocks.len();
    let mut starts: Vec<Vec<(Operand, Operand)>> = vec![Vec::new(); nb];
    let mut ends: Vec<Vec<(Operand, Operand)>> = vec![Vec::new(); nb];
    for &(b, d, s) in &st.start_copies {
        let (d, s) = (rn(Reg::V(d)), rn(Reg::V(s)));
        if d != s {
            starts[b.index()].push((Operand::new(d), Operand::new(s)));
        }
    }
    for &(b, d, s) in &st.end_copies {
        let (d, s) = (rn(Reg::V(d)), rn(s));
        if d != s {
            ends[b.index()].push((Operand::new(d), Operand::new(s)));
        }
    }
    for (bi, blk) in f.blocks.iter_mut().enumerate() {
        blk.insts.retain(|i| !i.is_phi());
        for inst in &mut blk.insts {
            for o in inst.defs.iter_mut().chain(inst.uses.iter_mut()) {
                o.reg = rn(o.reg);
                if let Some(Pin::Var(v)) = o.pin {
                    o.pin = Some(Pin::Var(name[v.index()].unwrap_or(v)));
                }
            }
        }
        let end = std::mem::take(&mut ends[bi]);
        if !end.is_empty() {
            let at = blk.terminator_start();
            blk.insts.insert(at, Inst::par_copy(end));
        }
        let start = std::mem::take(&mut starts[bi]);
        if !start.is_empty() {
            blk.insts.insert(0, Inst::par_copy(start));
        }
    }
}

#[cfg(test)]
mod tests;

// ---------------------------------------------------------------------------------------
// Conversion to CSSA only (configurations `S_phi`, `S_phi+C`, `S_phi+L_ABI+C`)
// ---------------------------------------------------------------------------------------

/// Sreedhar III's conversion to CSSA only (steps 1–3), SSA → SSA: the phis stay, the copies
/// become SSA `copy` instructions defining fresh variables — `xi' := xi` at the end of `Li`
/// before its control operations for a candidate argument, `x0 := x0'` right after the phis
/// of `L0` for a candidate result — so that the operands of every phi form one
/// interference-free congruence class. `pinning_CSSA` then pins each phi completely and
/// out-of-pinned-SSA removes the phis without further copies (Rastello et al. §5: "the
/// pinning_CSSA phase pins all the operands of a ϕ to a same resource, and allows the
/// out-of-pinned-SSA phase to be used as an out-of-CSSA algorithm").
///
/// Operands `pinning_CSSA` never pins whatever the other phases do (a value defined by a
/// guarded operation or a psi, a psi argument, a physical register) are copied whatever the
/// interferences ("forced"), so that the fresh copy joins the class instead. A phi operand
/// defined by an operand pinned to a register (a call result, an `.input` parameter) is not
/// forced: `Naive_ABI` (configurations `S_phi`, `S_phi+C`) turns it into a copy of a fresh
/// pinned variable, after which it joins the class; under `pinning_ABI` (`S_phi+L_ABI+C`)
/// its def pin wins and out-of-pinned-SSA copies it out of its register at the end of the
/// predecessor — the copy a forced Sreedhar copy would be, and forcing it would double the
/// copy under `Naive_ABI`. Above [`MAX_RESOURCES`] every phi operand is copied (method I,
/// always CSSA).
///
/// Besides Sreedhar's counts the pass reports two checks: `phis_not_fully_pinned`, the
/// phis that `pinning_CSSA` cannot pin completely once `Naive_ABI` has run (computed on a
/// copy of the result; expected 0), and `phis_not_fully_pinned_abi`, the same without
/// `Naive_ABI` (the `pinning_ABI` configurations): the phis with an operand whose def is
/// pinned to a register (each such operand costs one copy there).
pub fn convert_to_cssa(f: &mut Function) -> Result<PassDetail, String> {
    cssa_with(f, None)
}

/// [`convert_to_cssa`], recording the phi congruence classes and the copies between them in
/// `trace` (for `viz`, issue 26; the conversion is the same as without the record).
pub fn convert_to_cssa_traced(
    f: &mut Function,
    trace: &mut super::CongruenceTrace,
) -> Result<PassDetail, String> {
    cssa_with(f, Some(trace))
}

fn cssa_with(
    f: &mut Function,
    trace: Option<&mut super::CongruenceTrace>,
) -> Result<PassDetail, String> {
    let mut stats = Stats::default();
    super::isolate_pinned_phi_results(f)?;
    check_phis(f)?;
    let forced = cssa_exclusions(f);
    match State::new(f) {
        Some(mut st) => {
            st.forced = forced;
            let cfg = CfgInfo::compute(f);
            for bi in 0..f.blocks.len() {
                let b = BlockId(bi as u32);
                for k in 0..f.blocks[bi].phi_end() {
                    process_phi(f, &mut st, &cfg, b, k, &mut stats)?;
                }
            }
            if let Some(t) = trace {
                *t = congruence_trace(f, &st, &cfg);
            }
            let class = |r: Reg| st.res_of(r).map(|x| st.class_of[x]);
            stats.temporaries += materialise_copies(f, &st.start_copies, &st.end_copies, &class);
        }
        None => {
            if f.blocks.iter().any(|b| b.insts.iter().any(Inst::is_phi)) {
                stats.resource_cap_fallback = 1;
                isolate_every_phi(f, &mut stats);
            }
        }
    }
    let mut d = stats.detail();
    d.push(("phis_not_fully_pinned_abi", phis_not_fully_pinned(f)));
    let mut g = f.clone();
    super::naive_abi::naive_abi(&mut g)?;
    d.push(("phis_not_fully_pinned", phis_not_fully_pinned(&g)));
    Ok(d)
}

/// Phi operands that `pinning_CSSA` leaves out of a phi's resource whatever the ABI phase
/// (mirrors its exclusions, `leung_george::pinning`): defined by a guarded operation or a
/// psi, or read by a psi.
fn cssa_exclusions(f: &Function) -> Vec<bool> {
    let mut x = vec![false; f.vregs.len()];
    for i in f.blocks.iter().flat_map(|b| &b.insts) {
        let partial = i.flags.contains(InstFlags::GUARDED) || i.opc == Opc::Psi;
        for o in &i.defs {
            if let Some(v) = o.vreg() {
                x[v.index()] |= partial;
            }
        }
        if i.opc == Opc::Psi {
            for v in i.use_vregs() {
                x[v.index()] = true;
            }
        }
    }
    x
}

/// Method I over the whole function: every phi operand gets its copy.
fn isolate_every_phi(f: &mut Function, stats: &mut Stats) {
    let mut starts = Vec::new();
    let mut ends = Vec::new();
    for bi in 0..f.blocks.len() {
        for k in 0..f.blocks[bi].phi_end() {
            stats.phis += 1;
            let phi = f.blocks[bi].insts[k].clone();
            let x0 = phi.defs[0].vreg().expect("phi results are vregs");
            let v = f.new_vreg(f.class_of(x0));
            starts.push((BlockId(bi as u32), x0, v));
            f.blocks[bi].insts[k].defs[0] = Operand::new(v);
            stats.result_copies += 1;
            for (j, (u, &p)) in phi.uses.iter().zip(phi.phi_blocks()).enumerate() {
                let a = f.new_vreg(f.reg_class(u.reg));
                ends.push((p, a, u.reg));
                f.blocks[bi].insts[k].uses[j] = Operand::new(a);
                stats.arg_copies += 1;
            }
        }
    }
    // Every copy has a fresh variable on one side: no class is shared, no ordering needed.
    stats.temporaries += materialise_copies(f, &starts, &ends, &|_| None);
}

/// Inserts the copies as SSA `copy` instructions: `x0 := x0'` right after the phis of its
/// block, `xi' := xi` at the end of `Li` before its control operations. `class` maps a
/// register to its congruence class (None: a class of its own). Sreedhar's copies of one
/// point are parallel; as SSA copies they are ordered so that no copy writes a class that a
/// later copy of the point still reads (else a member would be live across a write of its
/// own class, an interference), a cycle of classes being broken by a fresh temporary
/// (`t := s` first, then `d := t` in place of `d := s`), as a parallel copy is
/// sequentialised. Returns the number of temporaries.
fn materialise_copies(
    f: &mut Function,
    starts: &[(BlockId, VReg, VReg)],
    ends: &[(BlockId, VReg, Reg)],
    class: &dyn Fn(Reg) -> Option<u32>,
) -> u64 {
    let nb = f.blocks.len();
    let mut at_start: Vec<Vec<(Reg, Reg)>> = vec![Vec::new(); nb];
    let mut at_end: Vec<Vec<(Reg, Reg)>> = vec![Vec::new(); nb];
    for &(b, x0, v) in starts {
        at_start[b.index()].push((Reg::V(x0), Reg::V(v)));
    }
    for &(b, v, old) in ends {
        at_end[b.index()].push((Reg::V(v), old));
    }
    let mut temps = 0;
    for bi in 0..nb {
        let end = order_copies(f, std::mem::take(&mut at_end[bi]), class, &mut temps);
        let start = order_copies(f, std::mem::take(&mut at_start[bi]), class, &mut temps);
        let blk = &mut f.blocks[bi];
        if !end.is_empty() {
            let t = blk.terminator_start();
            blk.insts.splice(t..t, end);
        }
        if !start.is_empty() {
            let p = blk.phi_end();
            blk.insts.splice(p..p, start);
        }
    }
    temps
}

/// Sequential copies for the parallel copy `pairs` (dst, src) over congruence classes (see
/// [`materialise_copies`]). O(n²) for n copies at one point.
fn order_copies(
    f: &mut Function,
    mut pending: Vec<(Reg, Reg)>,
    class: &dyn Fn(Reg) -> Option<u32>,
    temps: &mut u64,
) -> Vec<Inst> {
    let mut out = Vec::with_capacity(pending.len());
    while !pending.is_empty() {
        let free = (0..pending.len()).find(|&k| {
            let d = class(pending[k].0);
            d.is_none()
                || !pending
                    .iter()
                    .enumerate()
                    .any(|(j, &(_, s))| j != k && class(s) == d)
        });
        match free {
            Some(k) => {
                let (d, s) = pending.remove(k);
                out.push(Inst::copy(Operand::new(d), Operand::new(s)));
            }
            None => {
                // A cycle of classes: save the first source in a temporary of its own.
                let (_, s) = pending[0];
                let t = f.new_vreg(f.reg_class(s));
                out.push(Inst::copy(t, Operand::new(s)));
                pending[0].1 = Reg::V(t);
                *temps += 1;
            }
        }
    }
    out
}

/// The phis whose operands `pinning_CSSA` does not put into one resource.
fn phis_not_fully_pinned(f: &Function) -> u64 {
    use super::leung_george::{pinning_cssa, Pinning};
    let mut p = Pinning::new(f);
    pinning_cssa(f, &mut p);
    f.blocks
        .iter()
        .flat_map(|b| b.insts.iter().take_while(|i| i.is_phi()))
        .filter(|phi| {
            let r = phi.defs[0].vreg().map(|d| p.res(d));
            phi.uses
                .iter()
                .any(|u| u.vreg().map(|v| p.res(v)) != r || r.is_none())
        })
        .count() as u64
}
