//! Out-of-pinned-SSA translation: Leung and George's collect / mark / reconstruct, with the
//! refinements and the phi semantics of Rastello, de Ferrière and Guillon.
//!
//! Sources: Leung and George, "Static single assignment form for machine code" (PLDI 1999),
//! as described and refined by Rastello, de Ferrière and Guillon, "Optimizing translation out
//! of SSA using renaming constraints" (CGO 2004 / LIP RR-2005-34): §2.1 (pinning, resources),
//! §2.2 and Fig. 5 (incorrect pinnings), §2.3 and Fig. 4 (mark and reconstruct), §4
//! (`pinning_ABI`, `pinning_CSSA`, the `L_ABI` configuration) and Appendix A (the phi
//! semantics: a phi `y^r = phi(x_i : B_i)` defines `y` in `r` at the entry of its block and
//! *uses* every `x_i` in `r` by a virtual instruction at the end of `B_i`, all those virtual
//! uses of one block end being parallel; a repaired variable is copied right after its
//! definition).
//!
//! # The three phases
//! 1. **Pinning** ([`Pinning`]): every variable gets a *resource* (union-find over variables
//!    and physical registers). `pinning_ABI` ([`pinning_abi`]) is Leung and George's collect
//!    phase for the renaming constraints isel put on operands: a def pinned to `r` puts its
//!    variable in `r`; a use pinned to `r` (ABI argument, `.output`, system call) puts its
//!    variable in `r` when this is its last use and the variable is alone in its resource; a
//!    tied use (`Pin::Var`) that dies at its operation shares one resource with the def when
//!    either is alone, unless the use's variable is killed in its register (Fig. 13: it
//!    will be repaired, and the def is better left to be coalesced with the repair copy).
//!    Otherwise the use gets a copy. A variable is never put into two physical registers,
//!    nor a whole phi web into a register.
//!    `pinning_CSSA` ([`pinning_cssa`]) puts the result and the arguments of each phi into one
//!    resource, except where that would be an incorrect pinning (Fig. 5 cases 3 and 5, and
//!    Class 3 "strong interference": two phis of one block, or two phis writing one resource
//!    with different values at the end of one block) or would mix a physical register in.
//!    Every phi result is in a resource (its own "virtual resource" `y` if nothing else,
//!    Appendix A's fix of the lost-copy problem).
//! 2. **Mark** ([`mark`]): walks every block backwards with liveness and visits the points
//!    where a resource `R` is written: the definition of a variable of `R`; the copy that
//!    brings a pinned use into `R` before its operation; the virtual phi uses at the end of
//!    each predecessor (Appendix A); the phi definitions at a block's entry; and the
//!    registers a call clobbers (`mir::target::call_clobbers`, a write of every clobbered
//!    physical resource). Every *other* variable of `R` live across such a point has lost its
//!    value there ("killed") and is marked for repair.
//! 3. **Reconstruct** ([`reconstruct`]): every operand is renamed to its resource (one vreg per
//!    resource; a physical resource gets one vreg, pinned to the register on its defs and
//!    constrained uses), a killed variable `x` that some use must read elsewhere gets a
//!    fresh vreg `x'` and the copy `x' := R(x)` right after its definition (the
//!    repair-after-definition of Appendix A; which uses read `x'`: see below); a
//!    pinned use not in its resource gets a copy into it before its operation; each block end
//!    gets the parallel copy `R(y) := loc(x_i)` of its successors' phis; psis become guarded
//!    copies into the psi's resource, as in the isolation baseline. Each parallel copy is
//!    sequentialised by [`super::parallel_copy::Sequentializer`] with a temporary vreg per
//!    cycle.
//!
//! # Which uses read the repair copy
//! The mark phase records, for every killed variable, the program points (block, position)
//! where it is killed. A use reads the variable's resource when no path from the
//! definition to it passes one of those kill points — Appendix A's `MARK`/`USE` with
//! `avail`, computed per killed variable by a forward bit-set dataflow over the blocks
//! ([`avail`]); every other use reads the repair copy, which is emitted only if some use
//! reads it. Beyond [`avail::MAX_BITS`] (blocks × killed variables) the dataflow is
//! skipped (`avail_fallbacks`) and a use outside the defining block always reads the
//! repair copy (never wrong: the repair copy right after the definition dominates every
//! use). Remaining difference: a pinned-use copy that writes a killed variable back into
//! its own resource does not make it available again for later uses.
//!
//! Positions within a block (`pos`): the parallel copy before instruction `k` (bringing
//! pinned uses into their resources) reads and writes at `8k + 1`, the instruction reads
//! its unpinned operands at `8k + 2` and writes its defs at `8k + 3`; a read sees a kill
//! only if the kill is strictly earlier; the phi entry
//! writes at `-1`; the virtual phi uses of the block end read at `8t - 3` and write at
//! `8t - 2` (`t` = first control operation).
//!
//! # Preconditions and result
//! Input: SSA form (`docs/design.md`) with pins. [`check_pinning`] reports incorrect
//! pinnings (Fig. 5) of a pinning. Output: allocation form — no phi, psi or parallel copy;
//! copies flagged COPY; a vreg pinned to `r` somewhere is the only vreg of resource `r`, is
//! never live across a write of `r` by another value nor across a call clobbering `r`
//! (that is what the mark phase guarantees), and carries the pin on all its operands; tied
//! uses read the vreg their def writes.
//!
//! # Complexity
//! Union-find with path halving for the pinning; liveness by iterative bit-set dataflow
//! O(blocks × vregs / 64) per iteration; the mark walk visits, at each write point of a
//! resource with two or more members (or a call), the live set: O(points × live) in the
//! worst case, in practice small. The availability of killed variables is a bit-set
//! dataflow, O(iterations × blocks × killed / 64), capped ([`avail`]). Reconstruct is
//! linear.

use super::naive_abi::naive_abi;
use super::parallel_copy::{CycleBreaker, Move, Sequentializer};
use super::pinning_phi::{pinning_phi, PhiVariant};
use crate::mir::print::inst_to_string;
use crate::mir::target::call_clobbers;
use crate::mir::{
    BlockId, Control, Function, Inst, InstFlags, Opc, Operand, PReg, Pin, Reg, RegClass, VReg,
};
use crate::pipeline::PassDetail;
use simulator::isa::{st120, Target};
use std::collections::HashMap;

mod avail;
pub mod liveness;
mod pinning;

pub use pinning::{check_pinning, pinning_abi, pinning_cssa, pinning_sp, Pinning};

/// What the pass did (reported as its `PassDetail`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Variables put into a resource shared with something else by the pinning phases.
    pub pinned_vars: u64,
    /// Variables marked for repair (one repair copy each).
    pub repairs: u64,
    /// Copies bringing a pinned use into its resource before its operation.
    pub use_copies: u64,
    /// Phi-argument copies at block ends (before sequentialisation).
    pub phi_copies: u64,
    /// Psi argument copies.
    pub psi_copies: u64,
    /// `copy` instructions emitted in total.
    pub copies: u64,
    /// Cycles broken through a temporary (= temporaries created).
    pub temporaries: u64,
    /// 1 if the function was too large for the availability dataflow ([`avail`]) and the
    /// uses of killed variables outside their defining blocks all read the repair copies.
    pub avail_fallbacks: u64,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.pinned_vars += o.pinned_vars;
        self.repairs += o.repairs;
        self.use_copies += o.use_copies;
        self.phi_copies += o.phi_copies;
        self.psi_copies += o.psi_copies;
        self.copies += o.copies;
        self.temporaries += o.temporaries;
        self.avail_fallbacks += o.avail_fallbacks;
    }
}

impl Stats {
    pub fn detail(&self) -> PassDetail {
        vec![
            ("pinned_vars", self.pinned_vars),
            ("repairs", self.repairs),
            ("use_copies", self.use_copies),
            ("phi_copies", self.phi_copies),
            ("psi_copies", self.psi_copies),
            ("copies_emitted", self.copies),
            ("temporaries", self.temporaries),
            ("avail_fallbacks", self.avail_fallbacks),
        ]
    }
}

/// Which pinning phases run before out-of-pinned-SSA: the columns of Rastello et al.'s
/// Table 1. `pinning_SP` always runs (the paper: "we choose to always execute
/// pinning_SP"). Without `abi`, the renaming constraints are first isolated by
/// [`super::naive_abi`] (`Naive_ABI`), after which `pinning_ABI` only collects the local
/// pins of the fresh variables that pass created.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Phases {
    pub cssa: bool,
    pub abi: bool,
    pub phi: Option<PhiVariant>,
}

/// Out-of-pinned-SSA after the pinning phases `phases`, as a pass.
pub fn run(f: &mut Function, phases: Phases) -> Result<PassDetail, String> {
    let (stats, mut extra) = translate(f, phases)?;
    let mut d = stats.detail();
    d.append(&mut extra);
    Ok(d)
}

/// `L_ABI`: `pinning_ABI`, then out-of-pinned-SSA (each phi result in its own virtual
/// resource, its arguments copied at the ends of the predecessors).
pub fn run_abi(f: &mut Function) -> Result<PassDetail, String> {
    run(
        f,
        Phases {
            abi: true,
            ..Phases::default()
        },
    )
}

/// `pinning_CSSA` + `pinning_ABI` + out-of-pinned-SSA.
pub fn run_cssa_abi(f: &mut Function) -> Result<PassDetail, String> {
    run(
        f,
        Phases {
            cssa: true,
            abi: true,
            phi: None,
        },
    )
}

/// [`run_abi`] with the statistics as a struct.
pub fn translate_abi(f: &mut Function) -> Result<Stats, String> {
    Ok(translate(
        f,
        Phases {
            abi: true,
            ..Phases::default()
        },
    )?
    .0)
}

/// [`run_cssa_abi`] with the statistics as a struct.
pub fn translate_cssa_abi(f: &mut Function) -> Result<Stats, String> {
    Ok(translate(
        f,
        Phases {
            cssa: true,
            abi: true,
            phi: None,
        },
    )?
    .0)
}

/// The pinning phases of `phases` in the paper's order (SP, [Naive_ABI], CSSA, ABI, phi),
/// then mark and reconstruct. Returns the out-of-pinned-SSA counts and those of the
/// phases (`Naive_ABI`, `pinning_SP`, `pinning_phi`).
pub fn translate(f: &mut Function, phases: Phases) -> Result<(Stats, PassDetail), String> {
    translate_with(f, phases, None)
}

/// [`translate`], recording pinning_phi's affinity graphs in `trace` (for `viz`, issue 26;
/// the translation is the same as without the record).
pub fn translate_traced(
    f: &mut Function,
    phases: Phases,
    trace: &mut Vec<super::pinning_phi::BlockTrace>,
) -> Result<(Stats, PassDetail), String> {
    translate_with(f, phases, Some(trace))
}

fn translate_with(
    f: &mut Function,
    phases: Phases,
    trace: Option<&mut Vec<super::pinning_phi::BlockTrace>>,
) -> Result<(Stats, PassDetail), String> {
    let mut extra = PassDetail::new();
    if !phases.abi {
        // Naive_ABI: a pinned phi result gets its local copy like any pinned definition.
        extra.push(("phi_pin_copies", super::isolate_pinned_phi_results(f)?));
    }
    check_input(f)?;
    if !phases.abi {
        extra.extend(naive_abi(f)?);
    }
    let live = liveness::Liveness::compute(f);
    let mut p = Pinning::new(f);
    extra.push(("sp_pinned_vars", pinning_sp(f, &mut p)?));
    if phases.cssa {
        pinning_cssa(f, &mut p);
    }
    // After Naive_ABI the only pinned operands are its fresh, local variables, which
    // pinning_ABI then pins trivially.
    pinning_abi(f, &live, &mut p);
    if let Some(variant) = phases.phi {
        match trace {
            Some(t) => {
                let c = super::pinning_phi::pinning_phi_traced(f, &live, &mut p, variant, t)?;
                extra.extend(c.detail());
            }
            None => extra.extend(pinning_phi(f, &live, &mut p, variant)?),
        }
    }
    Ok((out_of_pinned_ssa(f, &live, &p)?, extra))
}

/// Mark and reconstruct for the pinning `p` (computed on `f` with liveness `live`).
pub fn out_of_pinned_ssa(
    f: &mut Function,
    live: &liveness::Liveness,
    p: &Pinning,
) -> Result<Stats, String> {
    let errs = check_pinning(f, p);
    if let Some(e) = errs.first() {
        return Err(format!("leung-george: @{}: incorrect pinning: {e}", f.name));
    }
    let kills = mark(f, live, p);
    let mut stats = Stats {
        pinned_vars: p.shared_vars(f) as u64,
        ..Stats::default()
    };
    reconstruct(f, p, &kills, &mut stats)?;
    Ok(stats)
}

/// Operand sanity the phases rely on: vregs and pins name existing vregs; a phi may have its
/// result pinned to a register (Appendix A's COLLECT: `pinned_def(i, 1)`), nothing else of
/// a phi, psi or parallel copy is pinned.
fn check_input(f: &Function) -> Result<(), String> {
    let n = f.vregs.len();
    for (bi, b) in f.blocks.iter().enumerate() {
        for i in &b.insts {
            for o in i.defs.iter().chain(&i.uses) {
                let bad_reg = o.vreg().is_some_and(|v| v.index() >= n);
                let bad_pin = matches!(o.pin, Some(Pin::Var(v)) if v.index() >= n);
                if bad_reg || bad_pin {
                    return Err(err_at(f, bi, i, "virtual register without a class"));
                }
            }
            let phi_result_pin = i.opc == Opc::Phi
                && i.uses.iter().all(|o| o.pin.is_none())
                && i.defs
                    .iter()
                    .all(|o| matches!(o.pin, None | Some(Pin::Phys(_))));
            if matches!(i.opc, Opc::Phi | Opc::Psi | Opc::ParCopy)
                && i.defs.iter().chain(&i.uses).any(|o| o.pin.is_some())
                && !phi_result_pin
            {
                return Err(err_at(f, bi, i, "pinned phi/psi/parallel-copy operand"));
            }
            if i.opc == Opc::ParCopy {
                return Err(err_at(f, bi, i, "parallel copy in SSA input"));
            }
        }
    }
    Ok(())
}

fn err_at(f: &Function, b: usize, inst: &Inst, msg: &str) -> String {
    format!(
        "leung-george: @{} b{b}: `{}`: {msg}",
        f.name,
        inst_to_string(f, inst)
    )
}

// ---------------------------------------------------------------------------------------
// Mark
// ---------------------------------------------------------------------------------------

/// Kill points of each variable: `(block, pos)` (see the module doc for positions).
pub type Kills = Vec<Vec<(u32, i64)>>;

/// Position of the operand reads of instruction `k`.
fn read_pos(k: usize) -> i64 {
    8 * k as i64 + 2
}

/// Position where operand `o` of instruction `k` is read: a pinned use is read by the
/// parallel copy into its resource, at the same time that copy writes.
fn use_read_pos(k: usize, o: &Operand) -> i64 {
    if o.pin.is_some() {
        read_pos(k) - 1
    } else {
        read_pos(k)
    }
}

/// Position of the virtual phi uses at the end of a block whose control operations start
/// at `t`.
fn phi_read_pos(t: usize) -> i64 {
    8 * t as i64 - 3
}

/// The mark phase: for every vreg whose value is overwritten in its resource while it is
/// still live, the points where that happens (see the module doc for the write points).
pub fn mark(f: &Function, live: &liveness::Liveness, p: &Pinning) -> Kills {
    let mut repaired: Kills = vec![Vec::new(); f.vregs.len()];
    let clobbered: Vec<u32> = call_clobbers(f.target)
        .iter()
        .filter_map(|&r| p.phys_node(r))
        .collect();
    let mut set = live.empty_set();
    for (bi, b) in f.blocks.iter().enumerate() {
        // Virtual phi uses at the end of the block: each writes the phi's resource with its
        // argument; what is live after them is the successors' live-in (phi results and
        // phi arguments excluded) plus the uses of the control operations.
        let term = b.terminator_start();
        let at = |pos: i64| (bi as u32, pos);
        live.block_end_after_phi_uses(f, bi, &mut set);
        for s in &b.successors() {
            for phi in f.block(*s).insts.iter().take_while(|i| i.is_phi()) {
                let d = phi.defs[0].vreg().expect("phi defines a vreg");
                let arg = phi_arg(phi, BlockId(bi as u32)).and_then(|o| o.vreg());
                kill(
                    p,
                    &set,
                    p.res(d),
                    arg,
                    &[],
                    at(phi_read_pos(term) + 1),
                    &mut repaired,
                );
            }
        }
        // Ordinary operations, backwards from the end.
        live.block_live_out(bi, &mut set);
        for i in b.insts[term..].iter().rev() {
            liveness::step_back(i, &mut set);
        }
        for (k, i) in b
            .insts
            .iter()
            .enumerate()
            .take(term)
            .skip(b.phi_end())
            .rev()
        {
            let defs: Vec<VReg> = i.def_vregs().collect();
            for &d in &defs {
                kill(
                    p,
                    &set,
                    p.res(d),
                    Some(d),
                    &defs,
                    at(read_pos(k) + 1),
                    &mut repaired,
                );
            }
            if i.control() == Control::Call {
                for &r in &clobbered {
                    kill(p, &set, r, None, &defs, at(read_pos(k) + 1), &mut repaired);
                }
            }
            liveness::step_back(i, &mut set);
            for o in &i.uses {
                let (Some(v), Some(pin)) = (o.vreg(), o.pin) else {
                    continue;
                };
                let target = p.pin_resource(pin);
                kill(
                    p,
                    &set,
                    target,
                    Some(v),
                    &[],
                    at(read_pos(k) - 1),
                    &mut repaired,
                );
            }
        }
        // Phi definitions at the entry: `set` is live after the phis.
        let phi_defs: Vec<VReg> = b
            .insts
            .iter()
            .take_while(|i| i.is_phi())
            .filter_map(|i| i.defs[0].vreg())
            .collect();
        for &d in &phi_defs {
            kill(p, &set, p.res(d), Some(d), &phi_defs, at(-1), &mut repaired);
        }
    }
    repaired
}

/// Marks every variable of resource `r` live in `set`, other than `value` (the value
/// written) and `defs` (written by the same operation), as killed at `point`.
fn kill(
    p: &Pinning,
    set: &liveness::LiveSet,
    r: u32,
    value: Option<VReg>,
    defs: &[VReg],
    point: (u32, i64),
    repaired: &mut Kills,
) {
    let only_value = value.is_some_and(|v| p.res(v) == r);
    if p.members(r) == 0 || (p.members(r) == 1 && only_value) {
        return;
    }
    for v in set.iter() {
        if p.res(v) == r && Some(v) != value && !defs.contains(&v) {
            repaired[v.index()].push(point);
        }
    }
}

/// The phi operand flowing in from `b`.
fn phi_arg(phi: &Inst, b: BlockId) -> Option<&Operand> {
    let k = phi.phi_blocks().iter().position(|&x| x == b)?;
    phi.uses.get(k)
}

// ---------------------------------------------------------------------------------------
// Reconstruct
// ---------------------------------------------------------------------------------------

/// Renaming of variables to resources and locations of repaired variables.
struct Names<'k> {
    /// Vreg of each resource root (created on first use).
    resource: HashMap<u32, VReg>,
    /// Repair vreg of each variable some use of which reads its repair copy.
    repair: HashMap<VReg, VReg>,
    /// Kill points of each variable (mark phase).
    kills: &'k Kills,
    /// Definition point of each variable: (block, position).
    def_site: Vec<(u32, i64)>,
    /// Which blocks a kill of each variable may reach (None: too large, see [`avail`]).
    avail: Option<avail::Avail>,
}

impl Names<'_> {
    fn name(&mut self, f: &mut Function, p: &Pinning, r: u32) -> VReg {
        if let Some(&v) = self.resource.get(&r) {
            return v;
        }
        let v = match p.root_vreg(r) {
            Some(v) => v,
            None => f.new_vreg(p.class(r)),
        };
        self.resource.insert(r, v);
        v
    }

    /// True if a read of `v` in block `b` at position `q` finds `v` in its resource: no
    /// path from the definition passes a kill point of `v` (Appendix A's `avail`, see
    /// [`avail`]); without the dataflow, only in the defining block before any kill.
    fn in_resource(&self, v: VReg, b: u32, q: i64) -> bool {
        let kills = &self.kills[v.index()];
        if kills.is_empty() {
            return true;
        }
        let killed_here = kills.iter().any(|&(kb, kp)| kb == b && kp < q);
        let (db, dp) = self.def_site[v.index()];
        if db == b {
            return dp < q && !killed_here;
        }
        match &self.avail {
            Some(a) => !killed_here && !a.killed_on_entry(v, b),
            None => false,
        }
    }

    /// Where a read of `r` in block `b` at position `q` finds its value.
    fn loc_at(&mut self, f: &mut Function, p: &Pinning, r: Reg, b: u32, q: i64) -> Reg {
        let Reg::V(v) = r else { return r };
        if !self.in_resource(v, b, q) {
            if let Some(&x) = self.repair.get(&v) {
                return Reg::V(x);
            }
        }
        Reg::V(self.name(f, p, p.res(v)))
    }
}

/// Definition sites of every variable (positions as in the module doc).
fn def_sites(f: &Function) -> Vec<(u32, i64)> {
    let mut d = vec![(u32::MAX, 0); f.vregs.len()];
    for (bi, b) in f.blocks.iter().enumerate() {
        for (k, i) in b.insts.iter().enumerate() {
            let pos = if i.is_phi() { -1 } else { read_pos(k) + 1 };
            for v in i.def_vregs() {
                d[v.index()] = (bi as u32, pos);
            }
        }
    }
    d
}

/// Every (variable, block, position) read, phi arguments at their predecessors' ends.
fn for_each_read(f: &Function, mut g: impl FnMut(VReg, u32, i64)) {
    for (bi, b) in f.blocks.iter().enumerate() {
        for (k, i) in b.insts.iter().enumerate() {
            if i.is_phi() {
                for (pb, u) in i.phi_blocks().iter().zip(&i.uses) {
                    if let Some(v) = u.vreg() {
                        let t = f.block(*pb).terminator_start();
                        g(v, pb.0, phi_read_pos(t));
                    }
                }
            } else {
                for o in &i.uses {
                    if let Some(v) = o.vreg() {
                        g(v, bi as u32, use_read_pos(k, o));
                    }
                }
            }
        }
    }
}

/// The reconstruct phase (see the module doc).
pub fn reconstruct(
    f: &mut Function,
    p: &Pinning,
    kills: &Kills,
    stats: &mut Stats,
) -> Result<(), String> {
    let def_site = def_sites(f);
    let def_block: Vec<u32> = def_site.iter().map(|&(b, _)| b).collect();
    let avail = avail::Avail::compute(f, kills, &def_block);
    stats.avail_fallbacks += u64::from(avail.is_none());
    let mut names = Names {
        resource: HashMap::new(),
        repair: HashMap::new(),
        kills,
        def_site,
        avail,
    };
    let mut needs = vec![false; f.vregs.len()];
    for_each_read(f, |v, b, q| {
        if !names.in_resource(v, b, q) {
            needs[v.index()] = true;
        }
    });
    for (k, &n) in needs.iter().enumerate() {
        if n {
            let c = f.class_of(VReg(k as u32));
            let x = f.new_vreg(c);
            names.repair.insert(VReg(k as u32), x);
            stats.repairs += 1;
        }
    }
    let mut seq = Sequentializer::new();
    let preds_phis: Vec<Vec<(VReg, Reg)>> = phi_writes(f);
    #[allow(clippy::needless_range_loop)] // `f` is borrowed mutably inside
    for bi in 0..f.blocks.len() {
        let insts = std::mem::take(&mut f.blocks[bi].insts);
        let term = terminator_start(&insts);
        let mut out: Vec<Inst> = Vec::with_capacity(insts.len() + 4);
        let mut after_phis: Vec<(Reg, Reg)> = Vec::new();
        let n = insts.len();
        for (k, inst) in insts.into_iter().enumerate() {
            if inst.is_phi() {
                let d = inst.defs[0].vreg().expect("phi def");
                if let Some(&x) = names.repair.get(&d) {
                    let n = names.name(f, p, p.res(d));
                    after_phis.push((Reg::V(x), Reg::V(n)));
                }
                continue;
            }
            if !after_phis.is_empty() {
                emit_parallel(
                    f,
                    &mut seq,
                    &std::mem::take(&mut after_phis),
                    &mut out,
                    stats,
                )
                .map_err(|e| format!("@{} b{bi}: {e}", f.name))?;
            }
            if k == term {
                let w = &preds_phis[bi];
                emit_block_end(f, p, &mut names, &mut seq, bi, term, w, &mut out, stats)
                    .map_err(|e| format!("@{} b{bi}: {e}", f.name))?;
            }
            if inst.opc == Opc::Psi {
                lower_psi(f, p, &mut names, bi, k, inst, &mut out, stats)?;
                continue;
            }
            rewrite_inst(f, p, &mut names, &mut seq, bi, k, inst, &mut out, stats)?;
        }
        if !after_phis.is_empty() {
            emit_parallel(f, &mut seq, &after_phis, &mut out, stats)
                .map_err(|e| format!("@{} b{bi}: {e}", f.name))?;
        }
        if term == n && !preds_phis[bi].is_empty() {
            return Err(format!(
                "@{} b{bi}: phi uses at a block without control",
                f.name
            ));
        }
        f.blocks[bi].insts = out;
    }
    Ok(())
}

fn terminator_start(insts: &[Inst]) -> usize {
    insts.len() - insts.iter().rev().take_while(|i| i.is_terminator()).count()
}

/// For every block, the phi writes `(phi result, argument)` of its successors' phis.
fn phi_writes(f: &Function) -> Vec<Vec<(VReg, Reg)>> {
    let mut w = vec![Vec::new(); f.blocks.len()];
    for b in &f.blocks {
        for phi in b.insts.iter().take_while(|i| i.is_phi()) {
            let d = phi.defs[0].vreg().expect("phi def");
            for (pb, u) in phi.phi_blocks().iter().zip(&phi.uses) {
                let e: &mut Vec<(VReg, Reg)> = &mut w[pb.index()];
                if !e.contains(&(d, u.reg)) {
                    e.push((d, u.reg));
                }
            }
        }
    }
    w
}

/// The parallel copy of the virtual phi uses at the end of a block.
#[allow(clippy::too_many_arguments)]
fn emit_block_end(
    f: &mut Function,
    p: &Pinning,
    names: &mut Names,
    seq: &mut Sequentializer,
    bi: usize,
    term: usize,
    writes: &[(VReg, Reg)],
    out: &mut Vec<Inst>,
    stats: &mut Stats,
) -> Result<(), String> {
    let mut pairs: Vec<(Reg, Reg)> = Vec::with_capacity(writes.len());
    let mut written: HashMap<Reg, Reg> = HashMap::with_capacity(writes.len());
    for &(d, a) in writes {
        let dst = Reg::V(names.name(f, p, p.res(d)));
        let src = names.loc_at(f, p, a, bi as u32, phi_read_pos(term));
        if dst == src {
            continue;
        }
        // Two phis of different successors sharing a resource write it once here: their
        // arguments from this block are identical (Class 3's exemption, `try_union`).
        match written.insert(dst, src) {
            Some(s2) if s2 == src => {}
            Some(_) => return Err("two values for one resource at the block end".into()),
            None => {
                stats.phi_copies += 1;
                pairs.push((dst, src));
            }
        }
    }
    emit_parallel(f, seq, &pairs, out, stats)
}

/// Renames one ordinary operation, with its use copies before and repair copies after.
#[allow(clippy::too_many_arguments)]
fn rewrite_inst(
    f: &mut Function,
    p: &Pinning,
    names: &mut Names,
    seq: &mut Sequentializer,
    bi: usize,
    k: usize,
    mut inst: Inst,
    out: &mut Vec<Inst>,
    stats: &mut Stats,
) -> Result<(), String> {
    let mut before: Vec<(Reg, Reg)> = Vec::new();
    for u in 0..inst.uses.len() {
        let o = inst.uses[u];
        if o.vreg().is_none() {
            continue;
        }
        let src = names.loc_at(f, p, o.reg, bi as u32, use_read_pos(k, &o));
        let Some(pin) = o.pin else {
            inst.uses[u].reg = src;
            continue;
        };
        let target = Reg::V(names.name(f, p, p.pin_resource(pin)));
        if src != target {
            if let Some(&(_, s)) = before.iter().find(|(d, _)| *d == target) {
                if s != src {
                    return Err(err_at(f, bi, &inst, "two values pinned to one resource"));
                }
            } else {
                stats.use_copies += 1;
                before.push((target, src));
            }
        }
        inst.uses[u].reg = target;
        if let (Pin::Var(_), Reg::V(t)) = (pin, target) {
            inst.uses[u].pin = Some(Pin::Var(t));
        }
    }
    let mut after: Vec<(Reg, Reg)> = Vec::new();
    for o in &mut inst.defs {
        let Some(d) = o.vreg() else { continue };
        let r = p.res(d);
        if let Some(Pin::Phys(want)) = o.pin {
            if p.phys(r) != Some(want) {
                let msg = format!("{d} pinned to {want:?} on its def is not in that resource");
                return Err(format!("leung-george: @{} b{bi}: {msg}", f.name));
            }
        }
        let n = names.name(f, p, r);
        o.reg = Reg::V(n);
        if let (None, Some(preg)) = (o.pin, p.phys(r)) {
            o.pin = Some(Pin::Phys(preg));
        }
        if let Some(&x) = names.repair.get(&d) {
            after.push((Reg::V(x), Reg::V(n)));
        }
    }
    emit_parallel(f, seq, &before, out, stats).map_err(|e| err_at(f, bi, &inst, &e))?;
    out.push(inst);
    emit_parallel(f, seq, &after, out, stats).map_err(|e| format!("@{} b{bi}: {e}", f.name))
}

/// `d = psi [g1: a1], ...` → `g_i? R(d) := loc(a_i)` in operand order (plain copy for the
/// always-true guard), as the isolation baseline does.
#[allow(clippy::too_many_arguments)]
fn lower_psi(
    f: &mut Function,
    p: &Pinning,
    names: &mut Names,
    bi: usize,
    k: usize,
    inst: Inst,
    out: &mut Vec<Inst>,
    stats: &mut Stats,
) -> Result<(), String> {
    if inst.defs.len() != 1 || !inst.uses.len().is_multiple_of(2) {
        return Err(err_at(
            f,
            bi,
            &inst,
            "a psi needs one def and (guard, value) pairs",
        ));
    }
    let d = inst.defs[0].vreg().expect("psi defines a vreg");
    let dst = names.name(f, p, p.res(d));
    for pair in inst.uses.chunks(2) {
        let g = names.loc_at(f, p, pair[0].reg, bi as u32, read_pos(k));
        let a = names.loc_at(f, p, pair[1].reg, bi as u32, read_pos(k));
        let always =
            f.target == Target::St120 && g == Reg::P(PReg::new(RegClass::G, st120::GUARD_TRUE));
        let mut c = Inst::copy(dst, Operand::new(a));
        if !always {
            if f.target != Target::St120 {
                return Err(err_at(f, bi, &inst, "guarded psi argument off ST120"));
            }
            c.uses.push(Operand::new(g));
            c.flags |= InstFlags::GUARDED;
        }
        out.push(c);
        stats.psi_copies += 1;
        stats.copies += 1;
    }
    if let Some(&x) = names.repair.get(&d) {
        out.push(Inst::copy(x, dst));
        stats.copies += 1;
    }
    Ok(())
}

/// Sequentialises the parallel copy `pairs` (dst, src) into `out`, one class at a time,
/// with a fresh temporary vreg per cycle.
fn emit_parallel(
    f: &mut Function,
    seq: &mut Sequentializer,
    pairs: &[(Reg, Reg)],
    out: &mut Vec<Inst>,
    stats: &mut Stats,
) -> Result<(), String> {
    if pairs.is_empty() {
        return Ok(());
    }
    if let Some(&(d, s)) = pairs
        .iter()
        .find(|&&(d, s)| f.reg_class(d) != f.reg_class(s))
    {
        return Err(format!("copy between register classes ({d:?} := {s:?})"));
    }
    let mut locs: Vec<Reg> = Vec::new();
    let index = |r: Reg, locs: &mut Vec<Reg>| -> u32 {
        match locs.iter().position(|&x| x == r) {
            Some(k) => k as u32,
            None => {
                locs.push(r);
                locs.len() as u32 - 1
            }
        }
    };
    let copies: Vec<(u32, u32)> = pairs
        .iter()
        .map(|&(d, s)| (index(d, &mut locs), index(s, &mut locs)))
        .collect();
    let temp = locs.len() as u32;
    let mut moves = Vec::new();
    seq.sequentialize(&copies, CycleBreaker::Temp(temp), &mut moves)
        .map_err(|e| format!("bad parallel copy: {e:?}"))?;
    let mut temp_vreg: Option<VReg> = None;
    for m in moves {
        let Move::Copy { dst, src } = m else {
            unreachable!("the temporary breaker emits copies only")
        };
        let s = if src == temp {
            Reg::V(temp_vreg.expect("temporary written before it is read"))
        } else {
            locs[src as usize]
        };
        let d = if dst == temp {
            let class = f.reg_class(s);
            stats.temporaries += 1;
            Reg::V(*temp_vreg.insert(f.new_vreg(class)))
        } else {
            locs[dst as usize]
        };
        out.push(Inst::copy(Operand::new(d), Operand::new(s)));
        stats.copies += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
