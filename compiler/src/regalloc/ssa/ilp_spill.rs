//! Optimal spilling on SSA form by integer linear programming: Hack, Grund & Goos §3.2
//! (§3.2.1 reloads, §3.2.2 rematerialisation, §3.2.3 stores), as a reference for small
//! functions, with Belady's method (§3.1, [`super::belady`]) as the fallback.
//!
//! The paper's decision is, for every use of a value, whether it reaches the use in memory
//! (and is reloaded there) or in a register, under `p_ℓ`, the number of values that may pass
//! a label in registers. We state the same problem over the *gaps* between the instructions
//! of a block, per register class `c` with budget `k`:
//!
//! * `x[g][v]` binary: live value `v` is in a register at gap `g` (before instruction `g`; the
//!   last gap is the block end). A value not used by an instruction cannot come back into a
//!   register across it (`x[g+1][v] ≤ x[g][v]`): only a use reloads.
//! * `r[ℓ][v] ≥ 1 − x[ℓ][v]` for every use: the reload of §3.2.1 (`m_{v,ℓ}`), in front of the
//!   use (a use pinned to a register outside the budget is reloaded straight into it).
//! * At every instruction, `p_ℓ`'s two inequalities: the uses, the values kept across the
//!   instruction and the copies the constraint handling will make of them fit in `k`
//!   (`|U_ℓ| + Σ x[ℓ+1][v ∉ U_ℓ] + dup ≤ k`), and the definitions (a call: the clobbered
//!   registers) beside the kept values (`|D_ℓ| + Σ x[ℓ+1][v] ≤ k`).
//! * Block borders: the paper forbids a value to change its place on an edge; we allow it at
//!   a price, `e[P→B][v] ≥ x[start B][v] − x[end P][v]` (a reload on the edge), so that
//!   Belady's own decisions are a solution of the model. A phi result in a register needs its
//!   operand in one at the end of the predecessor (`e` again); a phi result not in a register
//!   at the start of its block is a **memory phi**: each operand is stored into its slot on
//!   the edge (`w_P`), loaded first when it is itself in memory (`l ≥ 1 − x[start][y] −
//!   x[end P][x]`).
//! * §3.2.3 stores: `s_v ≥` every reload of `v` (a memory phi's own result excepted, its
//!   slot is written on the edges), unless `v` is rematerialisable (§3.2.2: a constant or a
//!   stack address is recomputed instead of reloaded, and never stored).
//!
//! Objective: reloads, edge reloads, memory-phi stores and loads, each weighted by the
//! `5^loop-depth` of the block that holds it, and spill stores weighted by their
//! definition's block.
//!
//! The solution is turned into the per-block decisions of `BELADY-BLOCK` (values in
//! registers at the block's start and end, reloads at uses) and placed by the same code as
//! Belady's (`belady::apply_decisions`: edges, memory phis, stores, rematerialisation, SSA
//! reconstruction). Both placements are made and the one with fewer weighted spill
//! operations is kept, so the result is never worse than Belady's in the model's measure.
//!
//! **Caps** (counted in the pass details, Belady's result stays): more than
//! [`MAX_GAP_VARS`] `x` variables or [`MAX_ROWS`] rows (`ilp_spill_over_cap`); a branch and
//! bound stopped by its node limit with no solution (`ilp_spill_failed`) or with one
//! (`ilp_spill_node_limit`, used if better); `ilp_spill_optimal` counts the classes solved to
//! proven optimality. Complexity: the model is linear in Σ live values per gap; the solve is
//! bounded by the node limit `NODE_WORK / (rows × vars)`.
//!
//! Preconditions: SSA; run instead of `ssa-spill`. Postcondition: as `ssa-spill`'s.

use super::belady::{self, BlockDecision, SpillContext};
use super::{duplicates_at, is_call, Budget, SsaRaStats};
use crate::mir::{BlockId, Function, Inst, InstFlags, Pin, RegClass, VReg};
use crate::pipeline::PassDetail;
use crate::regalloc::RegallocOptions;
use microlp::Variable;
use microlp::{ComparisonOp, OptimizationDirection, Problem, SolveOptions, TerminationReason};

/// `x` variables beyond which a class of a function is not solved.
pub const MAX_GAP_VARS: usize = 4_000;
/// Constraints beyond which a class of a function is not solved.
pub const MAX_ROWS: usize = 12_000;
/// Work budget of one solve: node limit × rows × variables.
pub const NODE_WORK: u64 = 20_000_000;
const MIN_NODES: u64 = 1;
const MAX_NODES: u64 = 2_000;

/// Counts of the ILP spiller.
#[derive(Clone, Copy, Debug, Default)]
struct IlpCounts {
    optimal: u64,
    node_limit: u64,
    over_cap: u64,
    failed: u64,
    belady_kept: u64,
    vars: u64,
    rows: u64,
    cost_belady: u64,
    cost_final: u64,
}

/// The `ssa-spill-ilp` pass.
pub fn run(f: &mut Function, opts: &RegallocOptions) -> Result<PassDetail, String> {
    let mut counts = IlpCounts::default();
    let mut details = belady::spill_function(f, opts, &mut |f, c, budget, stats| {
        spill_class(f, c, budget, stats, &mut counts)
    })?;
    details.extend([
        ("ilp_spill_optimal", counts.optimal),
        ("ilp_spill_node_limit", counts.node_limit),
        ("ilp_spill_over_cap", counts.over_cap),
        ("ilp_spill_failed", counts.failed),
        ("ilp_spill_belady_kept", counts.belady_kept),
        ("ilp_spill_vars", counts.vars),
        ("ilp_spill_rows", counts.rows),
        ("spill_cost_belady", counts.cost_belady),
        ("spill_cost_final", counts.cost_final),
    ]);
    Ok(details)
}

/// Belady's decisions and (within the caps) the ILP's for class `c`, each placed on a copy
/// of `f`; the cheaper one becomes `f`.
fn spill_class(
    f: &mut Function,
    c: RegClass,
    budget: &Budget,
    stats: &mut SsaRaStats,
    counts: &mut IlpCounts,
) -> Result<(), String> {
    let ctx = SpillContext::compute(f, c, budget, stats);
    let belady = belady::belady_decisions(f, &ctx, budget)?;
    let mut by_belady = f.clone();
    let mut belady_stats = *stats;
    belady::apply_decisions(&mut by_belady, &ctx, &belady, &mut belady_stats)?;
    let belady_cost = spill_cost(&by_belady, &ctx);
    counts.cost_belady += belady_cost;
    let mut keep = (by_belady, belady_stats, belady_cost);
    if belady_cost > 0 {
        if let Some(decisions) = ilp_decisions(f, &ctx, budget, counts) {
            let mut by_ilp = f.clone();
            let mut ilp_stats = *stats;
            let placed = belady::apply_decisions(&mut by_ilp, &ctx, &decisions, &mut ilp_stats);
            let cost = placed.map(|()| spill_cost(&by_ilp, &ctx)).ok();
            match cost {
                Some(cost) if cost <= belady_cost => keep = (by_ilp, ilp_stats, cost),
                _ => counts.belady_kept += 1,
            }
        }
    }
    counts.cost_final += keep.2;
    *f = keep.0;
    *stats = keep.1;
    Ok(())
}

/// Spill operations (reloads, rematerialisations, stores) weighted by 5^loop-depth.
fn spill_cost(f: &Function, ctx: &SpillContext) -> u64 {
    let spill = InstFlags::SPILL_LOAD | InstFlags::SPILL_STORE | InstFlags::REMAT;
    f.block_ids()
        .map(|b| {
            let n = f
                .block(b)
                .insts
                .iter()
                .filter(|i| i.flags.intersects(spill))
                .count();
            (n as u64).saturating_mul(ctx.info.weight(b))
        })
        .fold(0u64, u64::saturating_add)
}

/// The live values of one gap of a block with their `x` variables, sorted by value.
type Gap = Vec<(VReg, Variable)>;

fn var_of(gap: &Gap, v: VReg) -> Option<Variable> {
    gap.binary_search_by_key(&v, |&(x, _)| x)
        .ok()
        .map(|i| gap[i].1)
}

/// One instruction's uses as the model sees them.
struct InstUses {
    /// Values read in a budget register.
    regs: Vec<VReg>,
    /// Values every occurrence of which is pinned outside the budget (reloaded straight into
    /// the pinned register when in memory).
    outside: Vec<VReg>,
}

/// The ILP and the variables needed to read its solution back.
struct Model {
    problem: Problem,
    rows: usize,
    /// Per block, its gaps from the first non-phi instruction to the end.
    gaps: Vec<Vec<Gap>>,
    /// Reloads to read back: (block, instruction, value, variable `x` before it).
    uses: Vec<(BlockId, usize, VReg, Variable, bool)>,
    /// Store variable per value (`None`: rematerialisable or never in the model).
    store: Vec<Option<Variable>>,
}

impl Model {
    fn row(&mut self, terms: &[(Variable, f64)], op: ComparisonOp, rhs: f64) {
        self.problem.add_constraint(terms.iter().copied(), op, rhs);
        self.rows += 1;
    }

    /// `s_v ≥ r` (plus `− (1 − x_y)` for a phi result `y = v`, whose slot the edges fill
    /// when it is a memory phi).
    fn needs_store(&mut self, v: VReg, r: Variable, phi_start: Option<Variable>) {
        let Some(s) = self.store[v.index()] else {
            return;
        };
        match phi_start {
            // s ≥ r − (1 − x)  ⇔  s − r − x ≥ −1
            Some(x) => self.row(&[(s, 1.0), (r, -1.0), (x, -1.0)], ComparisonOp::Ge, -1.0),
            None => self.row(&[(s, 1.0), (r, -1.0)], ComparisonOp::Ge, 0.0),
        }
    }
}

/// Builds and solves the model; the per-block decisions on success.
fn ilp_decisions(
    f: &Function,
    ctx: &SpillContext,
    budget: &Budget,
    counts: &mut IlpCounts,
) -> Option<Vec<BlockDecision>> {
    let live_sets = gap_live_sets(f, ctx);
    let nvars: usize = live_sets.iter().flatten().map(Vec::len).sum();
    if nvars > MAX_GAP_VARS {
        counts.over_cap += 1;
        return None;
    }
    let mut m = build(f, ctx, budget, &live_sets);
    counts.vars += nvars as u64;
    counts.rows += m.rows as u64;
    if m.rows > MAX_ROWS {
        counts.over_cap += 1;
        return None;
    }
    let mut options = SolveOptions::default();
    let work = (m.rows as u64).max(1) * (nvars as u64).max(1);
    options.node_limit = Some((NODE_WORK / work).clamp(MIN_NODES, MAX_NODES));
    let problem = std::mem::replace(
        &mut m.problem,
        Problem::new(OptimizationDirection::Minimize),
    );
    let Ok(outcome) = problem.solve_with(options) else {
        counts.failed += 1;
        return None;
    };
    if outcome.termination_reason() == TerminationReason::ProvenOptimal {
        counts.optimal += 1;
    } else {
        counts.node_limit += 1;
    }
    let Ok(sol) = outcome.into_solution() else {
        counts.failed += 1;
        return None;
    };
    let on = |v: Variable| sol.var_value(v) > 0.5;
    Some(read_decisions(f, &m, &on))
}

/// Live values of class `c` (outside-budget definitions excepted) at every gap of every
/// reachable block; the first gap also holds the block's phi results, dead ones included.
fn gap_live_sets(f: &Function, ctx: &SpillContext) -> Vec<Vec<Vec<VReg>>> {
    let c = ctx.class;
    let wanted = |v: &VReg| f.class_of(*v) == c && !ctx.outside(*v);
    f.block_ids()
        .map(|b| {
            if !ctx.info.is_reachable(b) {
                return Vec::new();
            }
            let block = f.block(b);
            let start = block.phi_end();
            let n = block.insts.len();
            let mut live: Vec<VReg> = ctx.live.live_out[b.index()]
                .iter()
                .copied()
                .filter(wanted)
                .collect();
            live.sort_unstable();
            live.dedup();
            let mut gaps = vec![Vec::new(); n - start + 1];
            gaps[n - start] = live.clone();
            for idx in (start..n).rev() {
                let inst = &block.insts[idx];
                live.retain(|v| !inst.def_vregs().any(|d| d == *v));
                live.extend(inst.use_vregs().filter(wanted));
                live.sort_unstable();
                live.dedup();
                gaps[idx - start] = live.clone();
            }
            for phi in &block.insts[..start] {
                gaps[0].extend(phi.def_vregs().filter(wanted));
            }
            gaps[0].sort_unstable();
            gaps[0].dedup();
            gaps
        })
        .collect()
}

fn uses_of(f: &Function, inst: &Inst, ctx: &SpillContext, budget: &Budget) -> InstUses {
    let mut regs: Vec<VReg> = inst
        .use_vregs()
        .filter(|v| f.class_of(*v) == ctx.class && !ctx.outside(*v))
        .collect();
    regs.sort_unstable();
    regs.dedup();
    let all_outside = |v: VReg| {
        inst.uses
            .iter()
            .filter(|u| u.reg == v.into())
            .all(|u| matches!(u.pin, Some(Pin::Phys(p)) if !budget.contains(p)))
    };
    let outside: Vec<VReg> = regs.iter().copied().filter(|&v| all_outside(v)).collect();
    regs.retain(|v| !outside.contains(v));
    InstUses { regs, outside }
}

fn build(f: &Function, ctx: &SpillContext, budget: &Budget, live_sets: &[Vec<Vec<VReg>>]) -> Model {
    let mut m = Model {
        problem: Problem::new(OptimizationDirection::Minimize),
        rows: 0,
        gaps: Vec::with_capacity(live_sets.len()),
        uses: Vec::new(),
        store: vec![None; f.vregs.len()],
    };
    for sets in live_sets {
        let gaps: Vec<Gap> = sets
            .iter()
            .map(|set| {
                set.iter()
                    .map(|&v| (v, m.problem.add_binary_var(0.0)))
                    .collect()
            })
            .collect();
        m.gaps.push(gaps);
    }
    store_vars(f, ctx, &mut m);
    for b in f.block_ids() {
        if ctx.info.is_reachable(b) {
            block_rows(f, ctx, budget, b, &mut m);
        }
    }
    for b in f.block_ids() {
        if ctx.info.is_reachable(b) {
            edge_rows(f, ctx, b, &mut m);
        }
    }
    m
}

/// `s_v` for every value of the class that is not rematerialisable, weighted by its
/// definition's block.
fn store_vars(f: &Function, ctx: &SpillContext, m: &mut Model) {
    for b in f.block_ids() {
        if !ctx.info.is_reachable(b) {
            continue;
        }
        let w = ctx.info.weight(b) as f64;
        for inst in &f.block(b).insts {
            if belady::is_rematerialisable(inst) {
                continue;
            }
            for v in inst.def_vregs() {
                if f.class_of(v) == ctx.class && !ctx.outside(v) {
                    m.store[v.index()] = Some(m.problem.add_var(w, (0.0, 1.0)));
                }
            }
        }
    }
}

/// The rows of one block: capacity at its start and at each instruction, reloads, and the
/// values' continuity between gaps.
fn block_rows(f: &Function, ctx: &SpillContext, budget: &Budget, b: BlockId, m: &mut Model) {
    let k = ctx.k as f64;
    let w = ctx.info.weight(b) as f64;
    let block = f.block(b);
    let start = block.phi_end();
    let first: Vec<(Variable, f64)> = m.gaps[b.index()][0]
        .iter()
        .map(|&(_, x)| (x, 1.0))
        .collect();
    m.row(&first, ComparisonOp::Le, k);
    let phi_results: Vec<VReg> = block.insts[..start]
        .iter()
        .flat_map(|i| i.def_vregs())
        .collect();
    for idx in start..block.insts.len() {
        let inst = &block.insts[idx];
        let before = m.gaps[b.index()][idx - start].clone();
        let after = m.gaps[b.index()][idx + 1 - start].clone();
        let u = uses_of(f, inst, ctx, budget);
        let defs: Vec<VReg> = inst
            .def_vregs()
            .filter(|v| f.class_of(*v) == ctx.class && !ctx.outside(*v))
            .collect();
        // Reloads: r ≥ 1 − x_before.
        for (&v, pinned) in u
            .regs
            .iter()
            .map(|v| (v, false))
            .chain(u.outside.iter().map(|v| (v, true)))
        {
            let Some(x) = var_of(&before, v) else {
                continue;
            };
            let r = m.problem.add_var(w, (0.0, 1.0));
            m.row(&[(r, 1.0), (x, 1.0)], ComparisonOp::Ge, 1.0);
            m.uses.push((b, idx, v, x, pinned));
            let phi_start = phi_results
                .contains(&v)
                .then(|| var_of(&m.gaps[b.index()][0], v))
                .flatten();
            m.needs_store(v, r, phi_start);
        }
        // Continuity: a value not read in a budget register here stays out of registers.
        for &(v, xa) in &after {
            if defs.contains(&v) || u.regs.contains(&v) {
                continue;
            }
            if let Some(xb) = var_of(&before, v) {
                m.row(&[(xa, 1.0), (xb, -1.0)], ComparisonOp::Le, 0.0);
            }
        }
        // Capacity at the instruction: uses + kept values + the constraint copies.
        let kept_after: Vec<(VReg, Variable)> = after
            .iter()
            .copied()
            .filter(|(v, _)| !defs.contains(v))
            .collect();
        let (dup_const, dup_terms) = duplicate_terms(f, inst, ctx.class, budget, &kept_after);
        let mut terms: Vec<(Variable, f64)> = Vec::new();
        for &v in &u.outside {
            if let Some(x) = var_of(&before, v) {
                terms.push((x, 1.0));
            }
        }
        for &(v, x) in &kept_after {
            if !u.regs.contains(&v) {
                terms.push((x, 1.0));
            }
        }
        terms.extend(dup_terms);
        let fixed = (u.regs.len() + dup_const) as f64;
        m.row(&terms, ComparisonOp::Le, k - fixed);
        // Capacity after it: definitions (a call: its clobbers) + kept values.
        let ndefs = if is_call(inst) {
            defs.len().max(ctx.clobbered)
        } else {
            defs.len()
        };
        let kept: Vec<(Variable, f64)> = kept_after.iter().map(|&(_, x)| (x, 1.0)).collect();
        m.row(&kept, ComparisonOp::Le, k - ndefs as f64);
    }
}

/// `duplicates_at` as a linear expression in the kept values: a constant and the terms.
fn duplicate_terms(
    f: &Function,
    inst: &Inst,
    c: RegClass,
    budget: &Budget,
    kept_after: &[(VReg, Variable)],
) -> (usize, Vec<(Variable, f64)>) {
    // duplicates_at with every value dropped gives the constant; each kept value adds the
    // difference it makes on its own (the function is a sum over values).
    let none = duplicates_at(f, inst, c, budget, &|_| false);
    let mut terms = Vec::new();
    for &(v, x) in kept_after {
        let with = duplicates_at(f, inst, c, budget, &|y| y == v);
        if with > none {
            terms.push((x, (with - none) as f64));
        }
    }
    (none, terms)
}

/// The rows of the edges into `b`: edge reloads, phi operands, memory phis.
fn edge_rows(f: &Function, ctx: &SpillContext, b: BlockId, m: &mut Model) {
    let block = f.block(b);
    let start = block.phi_end();
    let entry = m.gaps[b.index()][0].clone();
    let phis: Vec<&Inst> = block.insts[..start]
        .iter()
        .filter(|i| i.def_vregs().any(|v| f.class_of(v) == ctx.class))
        .collect();
    for &p in &ctx.preds[b.index()] {
        if !ctx.info.is_reachable(p) {
            continue;
        }
        let at = if f.block(p).successors().len() == 1 {
            p
        } else {
            b
        };
        let w_at = ctx.info.weight(at) as f64;
        let w_p = ctx.info.weight(p) as f64;
        let Some(end) = m.gaps[p.index()].last().cloned() else {
            continue;
        };
        // One edge reload per value needed in a register on this edge.
        let mut edge_reload: Vec<(VReg, Variable)> = Vec::new();
        let mut need = |m: &mut Model, v: VReg, x_start: Variable| {
            let Some(x_end) = var_of(&end, v) else { return };
            let e = match edge_reload.iter().find(|(y, _)| *y == v) {
                Some(&(_, e)) => e,
                None => {
                    let e = m.problem.add_var(w_at, (0.0, 1.0));
                    edge_reload.push((v, e));
                    m.needs_store(v, e, None);
                    e
                }
            };
            m.row(
                &[(e, 1.0), (x_start, -1.0), (x_end, 1.0)],
                ComparisonOp::Ge,
                0.0,
            );
        };
        for &(v, x) in &entry {
            if !phis.iter().any(|i| i.def_vregs().any(|d| d == v)) {
                need(m, v, x);
            }
        }
        for phi in &phis {
            let Some(y) = phi.def_vregs().next() else {
                continue;
            };
            let Some(x_y) = var_of(&entry, y) else {
                continue;
            };
            let Some(i) = phi.phi_blocks().iter().position(|&q| q == p) else {
                continue;
            };
            let Some(x) = phi.uses[i].vreg() else {
                continue;
            };
            need(m, x, x_y);
            // Memory phi: a store of the operand on the edge, and a load first when the
            // operand is in memory too.
            let memory_store = m.problem.add_var(w_p, (0.0, 1.0));
            m.row(&[(memory_store, 1.0), (x_y, 1.0)], ComparisonOp::Ge, 1.0);
            if let Some(x_end) = var_of(&end, x) {
                let l = m.problem.add_var(w_p, (0.0, 1.0));
                m.row(&[(l, 1.0), (x_y, 1.0), (x_end, 1.0)], ComparisonOp::Ge, 1.0);
                m.needs_store(x, l, None);
            }
        }
    }
}

/// The per-block decisions of a solution.
fn read_decisions(f: &Function, m: &Model, on: &dyn Fn(Variable) -> bool) -> Vec<BlockDecision> {
    let mut decisions: Vec<BlockDecision> = f
        .block_ids()
        .map(|b| {
            let gaps = &m.gaps[b.index()];
            let (Some(first), Some(last)) = (gaps.first(), gaps.last()) else {
                return BlockDecision::default();
            };
            BlockDecision {
                in_regs: first
                    .iter()
                    .filter(|&&(_, x)| on(x))
                    .map(|&(v, _)| v)
                    .collect(),
                out_regs: last
                    .iter()
                    .filter(|&&(_, x)| on(x))
                    .map(|&(v, _)| v)
                    .collect(),
                ..BlockDecision::default()
            }
        })
        .collect();
    for &(b, idx, v, x, pinned) in &m.uses {
        if on(x) {
            continue;
        }
        let d = &mut decisions[b.index()];
        if !pinned {
            d.reloads.push((idx, v));
            continue;
        }
        let inst = &f.block(b).insts[idx];
        for (j, u) in inst.uses.iter().enumerate() {
            if let (Some(w), Some(Pin::Phys(p))) = (u.vreg(), u.pin) {
                if w == v {
                    d.pinned_reloads.push((idx, j, v, p));
                }
            }
        }
    }
    decisions
}
