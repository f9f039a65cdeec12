//! Out-of-SSA translation after Boissinot et al. (SSA book ch. 21 §21.2–21.3, F. Rastello,
//! "SSA destruction for machine code"; B. Boissinot, A. Darte, F. Rastello, B. Dupont de
//! Dinechin, C. Guillon, "Revisiting Out-of-SSA Translation for Correctness, Code Quality,
//! and Efficiency", CGO 2009): phi isolation, aggressive coalescing of the phi- and
//! copy-related variables into congruence classes tested for *value-based* interference
//! without an interference graph nor liveness sets, and — in the virtualised variant —
//! copies that exist only where coalescing failed.
//!
//! # Variants (configurations)
//! * `Bo_int` ([`Variant::Int`]): phis isolated with real parallel copies (Alg. 21.1), then
//!   the copies are coalesced one by one in decreasing `5^depth` weight, two classes merging
//!   when their union is interference-free by the linear dominance-ordered check
//!   ([`congruence::Walk::check`]); interference = intersection of live ranges.
//! * `Bo_val` ([`Variant::Val`]): the same with value-based interference (§21.2: variables of
//!   one value — by value numbering along the dominator tree — do not interfere).
//! * `Bo_val_virt` ([`Variant::ValVirt`]): virtualised copies (§21.3, "Virtualizing
//!   phi-related copies"): no copy and no variable is created up front; each phi operand has a
//!   *virtual* copy variable with its local live range emulated (Alg. 21.5's cases, see
//!   `variables::Variables::live_after`); the same class merging as `Bo_val`, and the copies
//!   whose two sides ended in different classes are materialised in a single final
//!   traversal of the phis (Alg. 21.4).
//! * `Bo_val_virt/dc` ([`Variant::ValVirtDecoalesce`]): the chapter's overall scheme — all
//!   copy-related variables merged first (each phi web atomic), each merged set
//!   de-coalesced in one dominance-ordered pass (Alg. 21.3, [`congruence::Walk::decoalesce`]),
//!   then materialisation. Fastest, but on loop-heavy code it keeps many more copies than
//!   class merging: when two phi webs meet in one merged set and interfere, a whole web is
//!   uncoloured and all its copies come back (measured in `docs/out-of-ssa-boissinot.md`).
//!
//! # What it does, in order
//! 1. A pinned phi result is isolated first (`super::isolate_pinned_phi_results`, as for
//!    Sreedhar III); the phis are checked (`super::sreedhar3::check_phis`).
//! 2. Phi isolation, real (`Bo_int`, `Bo_val`: `a0' = phi(a1', ...)`, `ai' = ai` in a
//!    parallel copy at the late point of each distinct predecessor, `a0 = a0'` at the early
//!    point) or virtual (`Bo_val_virt*`, copy mode of Def. 21.2).
//! 3. Variables, definition points, use sites, values ([`variables`]) and the machine-IR
//!    liveness check ([`crate::mir::livecheck`]).
//! 4. Coalescing: each phi web `{a0', a1', ...}` is an atomic set (interference-free by
//!    construction: the primed variables are local); affinities are the phi copies and the
//!    function's own copies (unguarded `copy` and parallel-copy pairs between virtual
//!    registers). Class merging (`Bo_int`, `Bo_val`, `Bo_val_virt`) or optimistic merging +
//!    de-coalescing (`Bo_val_virt/dc`).
//! 5. A verification pass re-runs the de-coalescing traversal over every final class; it
//!    must uncolour nothing (`repair_uncolours`, expected 0; anything it finds is fixed, so
//!    the output stays correct even if a heuristic were wrong).
//! 6. Renaming of every class to one variable (its smallest real vreg, or a fresh one),
//!    removal of the phis, of the copies whose two sides coalesced and of empty parallel
//!    copies; materialisation of the virtual copies left.
//! 7. Pins (ABI registers, SP, tied operands), psis and the sequentialisation of the parallel
//!    copies: the baseline's [`super::isolation::translate`] on the phi-free function, as for
//!    `S3` (its counts follow ours in the pass detail).
//!
//! Pins are respected, not coalesced: a pinned operand keeps its pin through the renaming and
//! the isolation step moves it locally (Fig. 21.4 turned into short live-range pinning), so
//! no atomic set contains a physical register. A def tied to a use is defined just *before*
//! its operation (see [`variables`]); psi operands and guarded definitions are never
//! coalesced (the psi lowering writes a psi's result early).
//!
//! # Preconditions
//! Machine SSA (strict: every use dominated by its definition), phis first, no pinned phi
//! argument, no two different values from one predecessor in a phi.
//!
//! # Complexity
//! Isolation, variables, values, renaming: O(instructions + operands). Each interference
//! query costs O(loop depth + uses) with the reachability matrix (O(blocks²/64) words,
//! built below [`crate::mir::livecheck::MAX_MATRIX_BLOCKS`] blocks; above, or on irreducible
//! CFGs, backward exploration with a cache). De-coalescing is one traversal per merged set.
//! Class merging costs O(|A| + |B|) per affinity; its total work, and the `eanc` chain steps
//! of every traversal, are capped ([`WORK_PER_VARIABLE`] × variables): past the cap an
//! affinity is left uncoalesced (a copy stays) — counted as `budget_fallbacks`. The live
//! check's exploration mode has its own linear budget: past it a query answers *live* (the
//! copy stays), counted as `livecheck_cap_fallbacks`.

mod congruence;
mod variables;

use super::isolation;
use crate::mir::cfg::CfgInfo;
use crate::mir::{BlockId, Function, Inst, InstFlags, Opc, Operand, Pin, Reg, VReg};
use crate::pipeline::PassDetail;
use congruence::{Colouring, Walk};
use variables::{Kind, PhiCopies, Variables, NONE};

/// Work allowed per variable (class-merge list lengths and `eanc` chain steps).
pub const WORK_PER_VARIABLE: i64 = 64;

/// Which translation of the family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `Bo_int`: intersection-based interference, real copies, class merging.
    Int,
    /// `Bo_val`: value-based interference, real copies, class merging.
    Val,
    /// `Bo_val_virt`: value-based, virtualised copies, class merging.
    ValVirt,
    /// `Bo_val_virt/dc`: value-based, virtualised copies, optimistic merging then
    /// de-coalescing (Alg. 21.3).
    ValVirtDecoalesce,
}

/// What the pass did (reported as its `PassDetail`, before the isolation step's counts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub phis: u64,
    /// Copies of the phi isolation (real or virtual): one per result, one per distinct
    /// (phi, predecessor).
    pub phi_copies: u64,
    /// Copy affinities considered (phi copies + the function's own copies).
    pub affinities: u64,
    /// Affinities whose two sides ended in one class.
    pub coalesced: u64,
    /// Class-merge interference checks (class merging only).
    pub class_checks: u64,
    /// Atomic sets uncoloured by de-coalescing (Alg. 21.3).
    pub uncoloured: u64,
    /// Atomic sets the final verification had to uncolour (expected 0).
    pub repair_uncolours: u64,
    /// Affinities given up or answers made conservative because a work cap was reached.
    pub budget_fallbacks: u64,
    /// Intersection queries answered.
    pub intersect_queries: u64,
    /// 1 if the liveness check explored backwards (irreducible or very large CFG).
    pub livecheck_exploring: u64,
    /// Liveness queries answered *live* because the exploration budget ran out
    /// ([`crate::mir::livecheck`]): their copies stay.
    pub livecheck_cap_fallbacks: u64,
    /// Blocks the live check's exploration mode visited (0 with the reachability matrix).
    pub livecheck_steps: u64,
    /// The function's own copies deleted because both sides coalesced.
    pub copies_removed: u64,
    /// Parallel-copy pairs left after renaming (phi copies that coalescing did not remove).
    pub phi_copies_left: u64,
}

impl Stats {
    pub fn detail(&self) -> PassDetail {
        vec![
            ("bo_phis", self.phis),
            ("bo_phi_copies", self.phi_copies),
            ("bo_affinities", self.affinities),
            ("bo_coalesced", self.coalesced),
            ("bo_class_checks", self.class_checks),
            ("bo_uncoloured", self.uncoloured),
            ("bo_repair_uncolours", self.repair_uncolours),
            ("bo_budget_fallbacks", self.budget_fallbacks),
            ("bo_intersect_queries", self.intersect_queries),
            ("bo_livecheck_exploring", self.livecheck_exploring),
            ("bo_livecheck_cap_fallbacks", self.livecheck_cap_fallbacks),
            ("bo_livecheck_exploring_steps", self.livecheck_steps),
            ("bo_copies_removed", self.copies_removed),
            ("bo_phi_copies_left", self.phi_copies_left),
        ]
    }
}

/// The pass entry point: the variant's phi translation, then pin isolation and
/// sequentialisation.
pub fn run(f: &mut Function, variant: Variant) -> Result<PassDetail, String> {
    let (s, iso) = translate(f, variant)?;
    let mut d = s.detail();
    d.extend(iso.detail());
    Ok(d)
}

/// Same as [`run`], with both steps' statistics as structs.
pub fn translate(f: &mut Function, variant: Variant) -> Result<(Stats, isolation::Stats), String> {
    let mut stats = Stats::default();
    coalesce_and_rename(f, variant, &mut stats)?;
    let iso = isolation::translate(f)?;
    Ok((stats, iso))
}

/// Steps 1–6: phis → congruence classes → renamed variables and parallel copies (no phis
/// left; pins, psis and parallel copies remain for [`isolation::translate`]).
pub fn coalesce_and_rename(
    f: &mut Function,
    variant: Variant,
    stats: &mut Stats,
) -> Result<(), String> {
    coalesce_traced(f, variant, stats, None)
}

/// [`translate`], recording the final classes and the affinities in `trace` (for `viz`,
/// issue 26; the translation is the same as without the record).
pub fn translate_traced(
    f: &mut Function,
    variant: Variant,
    trace: &mut super::CongruenceTrace,
) -> Result<(Stats, isolation::Stats), String> {
    let mut stats = Stats::default();
    coalesce_traced(f, variant, &mut stats, Some(trace))?;
    let iso = isolation::translate(f)?;
    Ok((stats, iso))
}

fn coalesce_traced(
    f: &mut Function,
    variant: Variant,
    stats: &mut Stats,
    trace: Option<&mut super::CongruenceTrace>,
) -> Result<(), String> {
    super::isolate_pinned_phi_results(f)?;
    super::sreedhar3::check_phis(f)?;
    let virt = matches!(variant, Variant::ValVirt | Variant::ValVirtDecoalesce);
    let (phis, nvirtual) = if virt {
        virtual_phi_copies(f)
    } else {
        (insert_isolation_copies(f), 0)
    };
    let nreal = f.vregs.len();
    stats.phis = phis.len() as u64;
    stats.phi_copies = phis.iter().map(|p| 1 + p.args.len() as u64).sum();
    let info = CfgInfo::compute(f);
    let vars = Variables::build(f, &info, &phis, nvirtual, virt, variant != Variant::Int);
    stats.livecheck_exploring = u64::from(!vars.live.uses_reachability());
    let affinities = collect_affinities(f, &info, &phis, virt, &vars);
    stats.affinities = affinities.len() as u64;
    let mut col = Colours::new(&vars, &phis);
    let budget = WORK_PER_VARIABLE * (vars.len() + affinities.len()) as i64 + 4096;
    let mut walk = Walk::new(vars.len(), budget);
    let mut classes = Classes::new(vars.len());
    if variant == Variant::ValVirtDecoalesce {
        classes.merge_optimistically(&vars, &col, &affinities);
        for g in 0..classes.members.len() {
            stats.uncoloured += walk.decoalesce(&vars, &mut col, &classes.members[g]);
        }
    } else {
        classes.merge_checked(&vars, &col, &affinities, &mut walk, budget, stats);
    }
    for g in 0..classes.members.len() {
        stats.repair_uncolours += walk.decoalesce(&vars, &mut col, &classes.members[g]);
    }
    stats.budget_fallbacks += walk.budget_fallbacks;
    stats.intersect_queries = vars.intersect_queries.get();
    stats.livecheck_cap_fallbacks = vars.live.budget_fallbacks();
    stats.livecheck_steps = vars.live.explore_steps();
    let roots = final_roots(&vars, &col, &classes);
    stats.coalesced = affinities
        .iter()
        .filter(|a| roots[a.a as usize] == roots[a.b as usize])
        .count() as u64;
    if let Some(t) = trace {
        *t = congruence_trace(&phis, &affinities, &roots, nreal);
    }
    let names = Names::new(&vars, &roots, nreal);
    drop(vars);
    rename_and_materialise(f, &phis, virt, names, stats)
}

/// The classes of the variables that take part in an affinity (by their final root) and
/// every affinity, split when its ends have different roots.
fn congruence_trace(
    phis: &[PhiCopies],
    affinities: &[Affinity],
    roots: &[u32],
    nreal: usize,
) -> super::CongruenceTrace {
    // Names of the virtual copy variables (their numbers follow the real vregs').
    let mut virt: std::collections::HashMap<u32, String> = Default::default();
    for p in phis {
        virt.insert(p.res_prime, format!("%{}'", p.result.0));
        for &(pred, _, prime) in &p.args {
            virt.insert(prime, format!("%{}'{pred}", p.result.0));
        }
    }
    let name = |x: u32| match virt.get(&x) {
        Some(n) if x as usize >= nreal => n.clone(),
        _ => format!("%{x}"),
    };
    let mut by_root: Vec<(u32, Vec<u32>)> = Vec::new();
    let mut add = |x: u32| {
        let r = roots[x as usize];
        match by_root.iter_mut().find(|(k, _)| *k == r) {
            Some((_, m)) if !m.contains(&x) => m.push(x),
            Some(_) => {}
            None => by_root.push((r, vec![x])),
        }
    };
    for a in affinities {
        add(a.a);
        add(a.b);
    }
    let classes = by_root
        .into_iter()
        .map(|(_, m)| m.into_iter().map(name).collect())
        .collect();
    let affinities = affinities
        .iter()
        .map(|a| super::TracedAffinity {
            dst: name(a.a),
            src: name(a.b),
            weight: a.weight,
            place: String::new(),
            split: roots[a.a as usize] != roots[a.b as usize],
        })
        .collect();
    super::CongruenceTrace {
        classes,
        affinities,
    }
}

// ---------------------------------------------------------------------------------------
// Step 2: phi isolation, real or virtual
// ---------------------------------------------------------------------------------------

/// Alg. 21.1: `a0' = phi(ai' ...)`, `ai' = ai` in a parallel copy at the late point of each
/// distinct predecessor, `a0 = a0'` in a parallel copy at the early point of the block.
fn insert_isolation_copies(f: &mut Function) -> Vec<PhiCopies> {
    let nb = f.blocks.len();
    let mut start: Vec<Vec<(Operand, Operand)>> = vec![Vec::new(); nb];
    let mut end: Vec<Vec<(Operand, Operand)>> = vec![Vec::new(); nb];
    let mut phis = Vec::new();
    for (bi, starts) in start.iter_mut().enumerate() {
        for k in 0..f.blocks[bi].phi_end() {
            let phi = f.blocks[bi].insts[k].clone();
            let a0 = phi.defs[0].vreg().expect("checked: phi results are vregs");
            let class = f.class_of(a0);
            let a0p = f.new_vreg(class);
            starts.push((Operand::new(a0), Operand::new(a0p)));
            f.blocks[bi].insts[k].defs[0] = Operand::new(a0p);
            let mut args: Vec<(BlockId, Reg, u32)> = Vec::new();
            for (j, (u, &p)) in phi.uses.iter().zip(phi.phi_blocks()).enumerate() {
                let prime = match args.iter().find(|a| a.0 == p) {
                    Some(a) => VReg(a.2),
                    None => {
                        let v = f.new_vreg(class);
                        end[p.index()].push((Operand::new(v), Operand::new(u.reg)));
                        args.push((p, u.reg, v.0));
                        v
                    }
                };
                f.blocks[bi].insts[k].uses[j] = Operand::new(prime);
            }
            phis.push(PhiCopies {
                block: BlockId(bi as u32),
                result: a0,
                res_prime: a0p.0,
                args,
            });
        }
    }
    for bi in 0..nb {
        let blk = &mut f.blocks[bi];
        let e = std::mem::take(&mut end[bi]);
        if !e.is_empty() {
            let at = blk.terminator_start();
            blk.insts.insert(at, Inst::par_copy(e));
        }
        let s = std::mem::take(&mut start[bi]);
        if !s.is_empty() {
            let at = blk.phi_end();
            blk.insts.insert(at, Inst::par_copy(s));
        }
    }
    phis
}

/// Copy mode (Def. 21.2): one virtual variable per phi result and per (phi, distinct
/// predecessor), numbered after the vregs. Returns the phis and the number of variables.
fn virtual_phi_copies(f: &Function) -> (Vec<PhiCopies>, usize) {
    let mut next = f.vregs.len() as u32;
    let mut phis = Vec::new();
    for (bi, blk) in f.blocks.iter().enumerate() {
        for phi in blk.insts.iter().take_while(|i| i.is_phi()) {
            let a0 = phi.defs[0].vreg().expect("checked: phi results are vregs");
            let res_prime = next;
            next += 1;
            let mut args: Vec<(BlockId, Reg, u32)> = Vec::new();
            for (u, &p) in phi.uses.iter().zip(phi.phi_blocks()) {
                if !args.iter().any(|a| a.0 == p) {
                    args.push((p, u.reg, next));
                    next += 1;
                }
            }
            phis.push(PhiCopies {
                block: BlockId(bi as u32),
                result: a0,
                res_prime,
                args,
            });
        }
    }
    (phis, next as usize - f.vregs.len())
}

// ---------------------------------------------------------------------------------------
// Step 4: affinities, atomic sets, classes
// ---------------------------------------------------------------------------------------

/// A copy between two variables, weighted by `5^depth` of its block.
#[derive(Clone, Copy, Debug)]
struct Affinity {
    a: u32,
    b: u32,
    weight: u64,
}

/// The phi copies (virtual mode; in explicit mode they are parallel-copy pairs) and the
/// function's own copies between virtual registers, heaviest first (stable).
fn collect_affinities(
    f: &Function,
    info: &CfgInfo,
    phis: &[PhiCopies],
    virt: bool,
    vars: &Variables,
) -> Vec<Affinity> {
    let mut out = Vec::new();
    let mut push = |a: u32, b: u32, weight: u64| {
        if !vars.excluded[a as usize] && !vars.excluded[b as usize] && a != b {
            out.push(Affinity { a, b, weight });
        }
    };
    for (bi, blk) in f.blocks.iter().enumerate() {
        let w = info.weight(BlockId(bi as u32));
        for i in &blk.insts {
            let is_copy =
                matches!(i.opc, Opc::Copy | Opc::ParCopy) && !i.flags.contains(InstFlags::GUARDED);
            if !is_copy {
                continue;
            }
            for (d, s) in i.defs.iter().zip(&i.uses) {
                if let (Some(d), Some(s)) = (d.vreg(), s.vreg()) {
                    push(d.0, s.0, w);
                }
            }
        }
    }
    if virt {
        for p in phis {
            push(p.result.0, p.res_prime, info.weight(p.block));
            for &(pred, a, prime) in &p.args {
                if let Some(a) = a.vreg() {
                    push(a.0, prime, info.weight(pred));
                }
            }
        }
    }
    out.sort_by_key(|x| std::cmp::Reverse(x.weight));
    out
}

/// Colours of Alg. 21.3: a variable is coloured while it belongs to its merged set; the
/// atomic sets are the phi webs (uncoloured together) and single variables.
struct Colours {
    coloured: Vec<bool>,
    /// Web of each variable (`NONE`: a set of its own), and the webs' members.
    web_of: Vec<u32>,
    web_start: Vec<u32>,
    web_members: Vec<u32>,
}

impl Colours {
    fn new(vars: &Variables, phis: &[PhiCopies]) -> Colours {
        let n = vars.len();
        let mut web_of = vec![NONE; n];
        let mut web_start = vec![0u32];
        let mut web_members = Vec::new();
        for (w, p) in phis.iter().enumerate() {
            web_of[p.res_prime as usize] = w as u32;
            web_members.push(p.res_prime);
            for &(_, _, a) in &p.args {
                web_of[a as usize] = w as u32;
                web_members.push(a);
            }
            web_start.push(web_members.len() as u32);
        }
        let coloured = (0..n)
            .map(|x| web_of[x] != NONE || !vars.excluded[x])
            .collect();
        Colours {
            coloured,
            web_of,
            web_start,
            web_members,
        }
    }

    fn web(&self, w: u32) -> &[u32] {
        &self.web_members
            [self.web_start[w as usize] as usize..self.web_start[w as usize + 1] as usize]
    }

    /// The variable standing for `x`'s atomic set (its web's first member, or itself).
    fn atomic_root(&self, x: u32) -> u32 {
        match self.web_of[x as usize] {
            NONE => x,
            w => self.web(w)[0],
        }
    }
}

impl Colouring for Colours {
    fn coloured(&self, x: u32) -> bool {
        self.coloured[x as usize]
    }
    fn uncolour(&mut self, x: u32) {
        match self.web_of[x as usize] {
            NONE => self.coloured[x as usize] = false,
            w => {
                for k in self.web_start[w as usize]..self.web_start[w as usize + 1] {
                    let m = self.web_members[k as usize];
                    self.coloured[m as usize] = false;
                }
            }
        }
    }
    fn atomic_size(&self, x: u32) -> usize {
        match self.web_of[x as usize] {
            NONE => 1,
            w => self.web(w).len(),
        }
    }
}

/// Merged sets (classes), each sorted in dominance order.
struct Classes {
    class_of: Vec<u32>,
    members: Vec<Vec<u32>>,
}

impl Classes {
    fn new(n: usize) -> Classes {
        Classes {
            class_of: vec![NONE; n],
            members: Vec::new(),
        }
    }

    /// The class of `x`, created (with `x`'s atomic set) if `x` has none yet.
    fn class(&mut self, vars: &Variables, col: &Colours, x: u32) -> u32 {
        if self.class_of[x as usize] == NONE {
            let c = self.members.len() as u32;
            let mut m: Vec<u32> = match col.web_of[x as usize] {
                NONE => vec![x],
                w => col.web(w).to_vec(),
            };
            m.sort_by_key(|&v| vars.key(v));
            for &v in &m {
                self.class_of[v as usize] = c;
            }
            self.members.push(m);
        }
        self.class_of[x as usize]
    }

    /// Class merging (`Bo_int`, `Bo_val`): affinities heaviest first; two classes merge when
    /// their union is interference-free ([`Walk::check`]).
    fn merge_checked(
        &mut self,
        vars: &Variables,
        col: &Colours,
        affinities: &[Affinity],
        walk: &mut Walk,
        budget: i64,
        stats: &mut Stats,
    ) {
        for w in 0..col.web_start.len() - 1 {
            self.class(vars, col, col.web(w as u32)[0]);
        }
        let mut work = 0i64;
        for a in affinities {
            let (ca, cb) = (self.class(vars, col, a.a), self.class(vars, col, a.b));
            if ca == cb {
                continue;
            }
            let (la, lb) = (&self.members[ca as usize], &self.members[cb as usize]);
            work += (la.len() + lb.len()) as i64;
            if work > budget || walk.steps_left < 0 {
                stats.budget_fallbacks += 1;
                continue;
            }
            stats.class_checks += 1;
            if walk.check(vars, la, lb) {
                continue;
            }
            // Keep the larger class's id: relabelling the smaller one is O(n log n) overall.
            let (keep, gone) = if la.len() >= lb.len() {
                (ca, cb)
            } else {
                (cb, ca)
            };
            let moved = std::mem::take(&mut self.members[gone as usize]);
            for &v in &moved {
                self.class_of[v as usize] = keep;
            }
            let kept = std::mem::take(&mut self.members[keep as usize]);
            self.members[keep as usize] = merge_sorted(vars, &kept, &moved);
        }
    }

    /// Optimistic merging (`Bo_val_virt/dc`, §21.3 step (1)): every affinity and every web
    /// merged by union-find, then each set listed in dominance order.
    fn merge_optimistically(&mut self, vars: &Variables, col: &Colours, affinities: &[Affinity]) {
        let n = vars.len();
        let mut parent: Vec<u32> = (0..n as u32).collect();
        fn find(p: &mut [u32], mut x: u32) -> u32 {
            while p[x as usize] != x {
                p[x as usize] = p[p[x as usize] as usize];
                x = p[x as usize];
            }
            x
        }
        let mut size = vec![1u32; n];
        let mut union = |p: &mut Vec<u32>, a: u32, b: u32| {
            let (ra, rb) = (find(p, a), find(p, b));
            if ra != rb {
                let (big, small) = if size[ra as usize] >= size[rb as usize] {
                    (ra, rb)
                } else {
                    (rb, ra)
                };
                p[small as usize] = big;
                size[big as usize] += size[small as usize];
            }
        };
        for w in 0..col.web_start.len() - 1 {
            let m = col.web(w as u32);
            for &x in &m[1..] {
                union(&mut parent, m[0], x);
            }
        }
        for a in affinities {
            union(&mut parent, a.a, a.b);
        }
        let mut order: Vec<u32> = (0..n as u32)
            .filter(|&x| find(&mut parent, x) != x || size[x as usize] > 1)
            .collect();
        order.sort_by_key(|&v| vars.key(v));
        let mut class_of_root = vec![NONE; n];
        for &x in &order {
            let r = find(&mut parent, x) as usize;
            if class_of_root[r] == NONE {
                class_of_root[r] = self.members.len() as u32;
                self.members.push(Vec::new());
            }
            let c = class_of_root[r];
            self.class_of[x as usize] = c;
            self.members[c as usize].push(x);
        }
    }
}

/// Merges two lists sorted in dominance order.
fn merge_sorted(vars: &Variables, a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if vars.key(a[i]) < vars.key(b[j]) {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The variable standing for each variable's final class: the first coloured member of its
/// merged set if it is still coloured, else its atomic set's root.
fn final_roots(vars: &Variables, col: &Colours, classes: &Classes) -> Vec<u32> {
    let mut group_root = vec![NONE; classes.members.len()];
    for (g, m) in classes.members.iter().enumerate() {
        group_root[g] = m.iter().copied().find(|&x| col.coloured(x)).unwrap_or(NONE);
    }
    (0..vars.len() as u32)
        .map(|x| {
            let c = classes.class_of[x as usize];
            if col.coloured(x) && c != NONE && group_root[c as usize] != NONE {
                group_root[c as usize]
            } else {
                col.atomic_root(x)
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Step 6: renaming and materialisation
// ---------------------------------------------------------------------------------------

/// The name of each final class: its smallest real vreg, or a fresh vreg (made on demand).
struct Names {
    nreal: usize,
    roots: Vec<u32>,
    name_of_root: Vec<u32>,
}

impl Names {
    fn new(vars: &Variables, roots: &[u32], nreal: usize) -> Names {
        let mut name_of_root = vec![NONE; vars.len()];
        for (x, &r) in roots.iter().enumerate().take(nreal) {
            if vars.kind[x] == Kind::Real {
                let r = r as usize;
                name_of_root[r] = name_of_root[r].min(x as u32);
            }
        }
        Names {
            nreal,
            roots: roots.to_vec(),
            name_of_root,
        }
    }

    fn name(&mut self, f: &mut Function, x: u32, like: VReg) -> VReg {
        let r = self.roots[x as usize] as usize;
        if self.name_of_root[r] == NONE {
            self.name_of_root[r] = f.new_vreg(f.class_of(like)).0;
        }
        VReg(self.name_of_root[r])
    }

    fn rename(&mut self, f: &mut Function, r: Reg) -> Reg {
        match r {
            Reg::V(v) if v.index() < self.nreal => Reg::V(self.name(f, v.0, v)),
            other => other,
        }
    }
}

fn rename_and_materialise(
    f: &mut Function,
    phis: &[PhiCopies],
    virt: bool,
    mut names: Names,
    stats: &mut Stats,
) -> Result<(), String> {
    let nb = f.blocks.len();
    let mut start: Vec<Vec<(Operand, Operand)>> = vec![Vec::new(); nb];
    let mut end: Vec<Vec<(Operand, Operand)>> = vec![Vec::new(); nb];
    if virt {
        // §21.3 step (3): one traversal of the phis; a copy wherever the two sides of a
        // virtual copy ended in different classes.
        for p in phis {
            let n0 = names.name(f, p.result.0, p.result);
            let n0p = names.name(f, p.res_prime, p.result);
            if n0 != n0p {
                start[p.block.index()].push((Operand::new(n0), Operand::new(n0p)));
            }
            for &(pred, a, prime) in &p.args {
                let np = names.name(f, prime, p.result);
                let src = names.rename(f, a);
                if src != Reg::V(np) {
                    end[pred.index()].push((Operand::new(np), Operand::new(src)));
                }
            }
        }
    }
    for bi in 0..nb {
        let insts = std::mem::take(&mut f.blocks[bi].insts);
        let mut out = Vec::with_capacity(insts.len());
        for mut inst in insts {
            for o in inst.defs.iter_mut().chain(inst.uses.iter_mut()) {
                o.reg = names.rename(f, o.reg);
                if let Some(Pin::Var(v)) = o.pin {
                    let r = names.rename(f, Reg::V(v));
                    o.pin = Some(Pin::Var(r.vreg().expect("a vreg renames to a vreg")));
                }
            }
            match inst.opc {
                Opc::Phi => {
                    let d = inst.defs[0].reg;
                    if !virt && inst.uses.iter().any(|u| u.reg != d) {
                        return Err(format!(
                            "boissinot: @{} b{bi}: a phi web was split (internal error)",
                            f.name
                        ));
                    }
                }
                Opc::ParCopy => {
                    let pairs: Vec<(Operand, Operand)> = dedup_destinations(
                        inst.defs
                            .iter()
                            .zip(&inst.uses)
                            .filter(|(d, s)| d.reg != s.reg)
                            .map(|(d, s)| (*d, *s))
                            .collect(),
                    );
                    stats.phi_copies_left += pairs.len() as u64;
                    if !pairs.is_empty() {
                        out.push(Inst::par_copy(pairs));
                    }
                }
                Opc::Copy
                    if !inst.flags.contains(InstFlags::GUARDED)
                        && inst.defs[0].reg == inst.uses[0].reg
                        && inst.defs[0].pin.is_none()
                        && inst.uses[0].pin.is_none() =>
                {
                    stats.copies_removed += 1;
                }
                _ => out.push(inst),
            }
        }
        f.blocks[bi].insts = out;
    }
    for bi in 0..nb {
        let e = dedup_destinations(std::mem::take(&mut end[bi]));
        let s = std::mem::take(&mut start[bi]);
        stats.phi_copies_left += (e.len() + s.len()) as u64;
        let blk = &mut f.blocks[bi];
        if !e.is_empty() {
            let at = blk.terminator_start();
            blk.insts.insert(at, Inst::par_copy(e));
        }
        if !s.is_empty() {
            blk.insts.insert(0, Inst::par_copy(s));
        }
    }
    Ok(())
}

/// Keeps the first copy into each destination (two copies into one class at one point
/// carry one value, or they would interfere).
/// Equal destinations carry equal values (they coalesced). O(pairs).
fn dedup_destinations(mut pairs: Vec<(Operand, Operand)>) -> Vec<(Operand, Operand)> {
    let mut seen = std::collections::HashSet::with_capacity(pairs.len());
    pairs.retain(|p| seen.insert(p.0.reg));
    pairs
}

#[cfg(test)]
mod tests;
