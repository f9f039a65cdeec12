//! Optimal Perm optimisation by integer linear programming: Hack, Grund & Goos §5.4
//! (formalisation §5.4.1, improvements §5.4.2), solved by the pure-Rust `microlp` branch and
//! bound. (microlp is `good_lp`'s pure-Rust back end; it is called directly because the
//! solve needs both a warm start and microlp's deterministic node limit, and `good_lp`'s
//! interface offers only a wall-clock time limit, under which the same function could get a
//! different answer on a loaded machine.)
//!
//! The model, over the [`PermProblem`] of the function (same interference graph, allowed
//! registers and optimisation units as the heuristic of §5.3):
//!
//! * `x[n][c]` binary: node `n` has register `c` (only the registers `n` may take);
//!   `Σ_c x[n][c] = 1`;
//! * **clique constraints**: for every definition-point clique `K` (the values in registers
//!   at one definition; every interference edge lies in one, and in a chordal graph they
//!   include the maximal cliques) and register `c`: `Σ_{n∈K} x[n][c] ≤ 1`;
//! * `y[a][b] ∈ [0,1]` for every affinity (unit result `a`, argument `b`), with
//!   `y ≥ x[a][c] − x[b][c]` and `y ≥ x[b][c] − x[a][c]` for every `c`; minimise `Σ w·y`
//!   (equation 1). The `y` need not be declared integer: with binary `x` they are 0 or 1 at
//!   the optimum;
//! * **path inequalities**: for an interference edge `ab` joined by an affinity path whose
//!   inner nodes interfere with no other node of the path, `Σ y ≥ 1` along the path (paths
//!   of two and three affinity edges are generated);
//! * **clique-path inequalities**: for a clique `{v_1..v_n}` whose members all have an
//!   affinity with one node `a`: `Σ y[v_i][a] ≥ n − 1`.
//!
//! §5.4.2's size reduction: nodes without affinities that can always be coloured afterwards
//! are removed first and coloured after the solve in reverse order of removal. The paper
//! removes simplicial nodes; with register constraints (fixed and clobbered registers) we
//! remove nodes with fewer neighbours than allowed registers, which keeps the guarantee
//! (for an unconstrained node of a chordal graph, simplicial implies it).
//!
//! **Caps** (counted in the pass detail, the heuristic's colouring stays): more than
//! [`MAX_COLOUR_VARS`] `x` variables or [`MAX_ROWS`] constraints (`ilp_over_cap`); a
//! branch and bound stopped by its node limit ([`NODE_WORK`], `ilp_node_limit`: the best
//! solution found is used, never worse than the heuristic's, which is the warm start).
//! `ilp_optimal` is 1 when the optimum was proved (a function whose heuristic pays only for
//! affinities between nodes with no allowed register in common — 0 in most functions —
//! counts as optimal without a solve); the bench's `ilp_optimal` column carries it.
//!
//! **Symmetry** (not in the paper, see [`Symmetry`]): registers that no constraint tells
//! apart are offered to the nodes in a canonical order, which leaves the optimum unchanged
//! and spares the branch and bound the renamings of each colouring.
//!
//! Preconditions: `f` is the output of `ssa-constraints`. Output: the allocated-SSA form.
//! Complexity: building the model is linear in the cliques and affinities times the registers
//! (bounded by the caps); the branch and bound is exponential in general, which is why it
//! runs under a node limit that shrinks as the model grows (`NODE_WORK / (rows × x)`), so
//! the solve's work per function is bounded by a constant.

use super::colour;
use super::perm_problem::PermProblem;
use super::recolour;
use super::Budget;
use crate::mir::{Function, PReg};
use crate::pipeline::PassDetail;
use crate::regalloc::RegallocOptions;
use microlp::{
    ComparisonOp, OptimizationDirection, Problem, SolveOptions, TerminationReason, Variable,
};
use std::collections::HashMap;

/// Colour variables (`x`) beyond which a function is not solved.
pub const MAX_COLOUR_VARS: usize = 2_000;
/// Constraints beyond which a function is not solved.
pub const MAX_ROWS: usize = 6_000;
/// Path and clique-path inequalities generated at most (the model stays exact without them).
pub const MAX_CUTS: usize = 4_000;
/// Work of one solve, as branch-and-bound nodes × constraints × colour variables (a node
/// re-solves an LP of that size): the node limit of a model with `r` rows and `x` colour
/// variables is `NODE_WORK / (r·x)`, between [`MIN_NODES`] and [`MAX_NODES`]. A node limit
/// is deterministic: the same function always gets the same answer, whatever the machine's
/// speed or load (a time limit would not).
pub const NODE_WORK: u64 = 20_000_000;
pub const MIN_NODES: u64 = 1;
pub const MAX_NODES: u64 = 2_000;

/// How the ILP ended for one function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The heuristic's cost was 0, or the solver proved its solution optimal.
    Optimal,
    /// The node limit stopped the solver; its best solution is used (it is no worse than
    /// the heuristic's, the objective being bounded by it).
    NodeLimit,
    /// The model was larger than the caps; the heuristic's colouring stays.
    OverCap,
    /// The solver failed or returned an invalid colouring; the heuristic's stays.
    Failed,
}

/// The `ssa-ilp-coalesce` pass: Algorithm 1, §5.3's heuristic (the warm start and the
/// fallback), then the ILP of §5.4.
pub fn run(f: &mut Function, opts: &RegallocOptions) -> Result<PassDetail, String> {
    let colours = colour::colour_program(f, opts)?;
    let budget = Budget::new(f.target, opts);
    let Some(mut p) = PermProblem::build(f, &colours, &budget, true)? else {
        let used = colour::apply_colours(f, &colours)?;
        return Ok(vec![("regs_used", used as u64), ("coalesce_capped", 1)]);
    };
    let before = p.cost(&p.colour);
    let rstats = recolour::coalesce(&mut p);
    p.validate(&p.colour)?;
    let heuristic = p.cost(&p.colour);
    // The heuristic is optimal when it pays only for affinities no colouring can satisfy.
    let (outcome, stats) = if heuristic == p.forced_cost() {
        (Outcome::Optimal, ModelSize::default())
    } else {
        optimise(&mut p)
    };
    let after = p.cost(&p.colour);
    let used = colour::apply_colours(f, &p.per_vreg(&p.colour))?;
    let flag = |o: Outcome| u64::from(outcome == o);
    Ok(vec![
        ("regs_used", used as u64),
        ("affinity_units", p.units.len() as u64),
        ("affinity_cost_before", before),
        ("affinity_cost_heuristic", heuristic),
        ("affinity_cost_after", after),
        ("recolour_capped", rstats.capped),
        ("ilp_optimal", flag(Outcome::Optimal)),
        ("ilp_node_limit", flag(Outcome::NodeLimit)),
        ("ilp_over_cap", flag(Outcome::OverCap)),
        ("ilp_failed", flag(Outcome::Failed)),
        ("ilp_colour_vars", stats.colour_vars as u64),
        ("ilp_rows", stats.rows as u64),
        ("ilp_cuts", stats.cuts as u64),
    ])
}

/// Sizes of the model, for the pass detail.
#[derive(Clone, Copy, Debug, Default)]
pub struct ModelSize {
    pub colour_vars: usize,
    pub rows: usize,
    pub cuts: usize,
}

/// Solves the problem from `p.colour` (a valid colouring, the warm start); on success
/// `p.colour` becomes the ILP's colouring when it costs no more.
pub fn optimise(p: &mut PermProblem) -> (Outcome, ModelSize) {
    let (core, removed) = reduce(p);
    let sym = Symmetry::compute(p);
    sym.canonicalise(p);
    let regs = sym.model_regs(p, &core);
    let colour_vars: usize = regs.iter().map(Vec::len).sum();
    if colour_vars > MAX_COLOUR_VARS {
        let size = ModelSize {
            colour_vars,
            ..ModelSize::default()
        };
        return (Outcome::OverCap, size);
    }
    let model = Model::build(p, &core, regs);
    let size = model.size();
    if size.colour_vars > MAX_COLOUR_VARS || size.rows > MAX_ROWS {
        return (Outcome::OverCap, size);
    }
    let Some((proved, mut colour)) = model.solve(p) else {
        return (Outcome::Failed, size);
    };
    colour_removed(p, &removed, &mut colour);
    if p.validate(&colour).is_err() || p.cost(&colour) > p.cost(&p.colour) {
        // microlp "may lose precision on hard problems": never trust an invalid answer.
        return (Outcome::Failed, size);
    }
    p.colour = colour;
    let outcome = if proved {
        Outcome::Optimal
    } else {
        Outcome::NodeLimit
    };
    (outcome, size)
}

/// §5.4.2: removes nodes without affinities that have fewer neighbours (among the nodes
/// left) than registers they may take, repeatedly. Returns the core (a flag per node) and
/// the removed nodes in order of removal.
fn reduce(p: &PermProblem) -> (Vec<bool>, Vec<u32>) {
    let n = p.nodes.len();
    let mut in_unit = vec![false; n];
    for u in &p.units {
        in_unit[u.result as usize] = true;
        for &(a, _) in &u.args {
            in_unit[a as usize] = true;
        }
    }
    let allowed: Vec<usize> = (0..n as u32).map(|v| p.allowed_regs(v).len()).collect();
    let mut degree: Vec<usize> = p.adj.iter().map(|a| a.len()).collect();
    let mut core = vec![true; n];
    let mut removed = Vec::new();
    let mut work: Vec<u32> = (0..n as u32)
        .filter(|&v| !in_unit[v as usize] && degree[v as usize] < allowed[v as usize])
        .collect();
    while let Some(v) = work.pop() {
        if !core[v as usize] {
            continue;
        }
        core[v as usize] = false;
        removed.push(v);
        for &m in &p.adj[v as usize] {
            let m = m as usize;
            if core[m] {
                degree[m] -= 1;
                if !in_unit[m] && degree[m] < allowed[m] {
                    work.push(m as u32);
                }
            }
        }
    }
    (core, removed)
}

/// Colours the removed nodes in reverse order of removal: each had fewer neighbours left
/// than registers it may take, so one is always free.
fn colour_removed(p: &PermProblem, removed: &[u32], colour: &mut [PReg]) {
    let mut done = vec![true; p.nodes.len()];
    for &v in removed {
        done[v as usize] = false;
    }
    for &v in removed.iter().rev() {
        let taken: Vec<PReg> = p.adj[v as usize]
            .iter()
            .filter(|&&m| done[m as usize])
            .map(|&m| colour[m as usize])
            .collect();
        if let Some(c) = p.allowed_regs(v).into_iter().find(|c| !taken.contains(c)) {
            colour[v as usize] = c;
        }
        done[v as usize] = true;
    }
}

/// Registers no constraint tells apart are interchangeable: renaming them in a colouring
/// keeps it valid and keeps its cost. Breaking that symmetry (not in the paper; without it
/// the branch and bound explores every renaming of each colouring): the nodes are ordered
/// (a largest clique first) and the `i`-th node that may take a group's registers is offered
/// only the group's first `i + 1` — every colouring has a renaming of this form (number the
/// group's registers by first appearance in the order), so the optimum is unchanged.
struct Symmetry {
    /// Groups of interchangeable registers (two or more), in budget order.
    groups: Vec<Vec<PReg>>,
    /// The node order (every node once).
    order: Vec<u32>,
}

impl Symmetry {
    fn compute(p: &PermProblem) -> Symmetry {
        // A register's signature: the nodes that may take it (fixed registers are unique).
        let mut sig: HashMap<PReg, Vec<u32>> = HashMap::new();
        let mut fixed: Vec<PReg> = Vec::new();
        let mut all: Vec<PReg> = Vec::new();
        for v in 0..p.nodes.len() as u32 {
            if let Some(f) = p.nodes[v as usize].fixed {
                fixed.push(f);
                continue;
            }
            for r in p.allowed_regs(v) {
                let e = sig.entry(r).or_default();
                if e.is_empty() {
                    all.push(r);
                }
                e.push(v);
            }
        }
        let mut groups: Vec<Vec<PReg>> = Vec::new();
        for r in all {
            if fixed.contains(&r) {
                continue;
            }
            match groups
                .iter_mut()
                .find(|g| g[0].class == r.class && sig[&g[0]] == sig[&r])
            {
                Some(g) => g.push(r),
                None => groups.push(vec![r]),
            }
        }
        groups.retain(|g| g.len() > 1);
        let largest = p.cliques.iter().max_by_key(|k| k.len());
        let mut seen = vec![false; p.nodes.len()];
        let mut order = Vec::with_capacity(p.nodes.len());
        for &v in largest.into_iter().flatten() {
            seen[v as usize] = true;
            order.push(v);
        }
        order.extend((0..p.nodes.len() as u32).filter(|&v| !seen[v as usize]));
        Symmetry { groups, order }
    }

    /// Renames each group's registers in `p.colour` by first appearance in the order, so
    /// the warm start obeys the symmetry breaking (same validity, same cost).
    fn canonicalise(&self, p: &mut PermProblem) {
        for g in &self.groups {
            let mut map: Vec<(PReg, PReg)> = Vec::new();
            for &v in &self.order {
                let c = p.colour[v as usize];
                if g.contains(&c) && !map.iter().any(|&(from, _)| from == c) {
                    map.push((c, g[map.len()]));
                }
            }
            let unused_to: Vec<PReg> = g
                .iter()
                .copied()
                .filter(|r| !map.iter().any(|&(_, to)| to == *r))
                .collect();
            let unused_from: Vec<PReg> = g
                .iter()
                .copied()
                .filter(|r| !map.iter().any(|&(from, _)| from == *r))
                .collect();
            map.extend(unused_from.into_iter().zip(unused_to));
            for c in p.colour.iter_mut() {
                if let Some(&(_, to)) = map.iter().find(|&&(from, _)| from == *c) {
                    *c = to;
                }
            }
        }
    }

    /// The registers the model offers each core node.
    fn model_regs(&self, p: &PermProblem, core: &[bool]) -> Vec<Vec<PReg>> {
        let mut regs = vec![Vec::new(); p.nodes.len()];
        let mut seen_in_group = vec![0usize; self.groups.len()];
        for &v in &self.order {
            let allowed = p.allowed_regs(v);
            let mut offer = Vec::with_capacity(allowed.len());
            for (gi, g) in self.groups.iter().enumerate() {
                if allowed.contains(&g[0]) {
                    let n = (seen_in_group[gi] + 1).min(g.len());
                    seen_in_group[gi] += 1;
                    if core[v as usize] {
                        offer.extend_from_slice(&g[..n]);
                    }
                }
            }
            if core[v as usize] {
                offer.extend(
                    allowed
                        .into_iter()
                        .filter(|r| !self.groups.iter().any(|g| g.contains(r))),
                );
                regs[v as usize] = offer;
            }
        }
        regs
    }
}

/// The ILP of §5.4.1 with the inequalities of §5.4.2, built in the solver.
struct Model {
    problem: Problem,
    /// (node, register) → x variable.
    x: HashMap<(u32, PReg), Variable>,
    /// (result, argument) → y variable, sorted.
    y: Vec<((u32, u32), Variable)>,
    rows: usize,
    cuts: usize,
    core_nodes: Vec<u32>,
    /// The registers offered to each node (empty for nodes outside the core).
    regs: Vec<Vec<PReg>>,
}

impl Model {
    fn build(p: &PermProblem, core: &[bool], regs: Vec<Vec<PReg>>) -> Model {
        let mut m = Model {
            problem: Problem::new(OptimizationDirection::Minimize),
            x: HashMap::new(),
            y: Vec::new(),
            rows: 0,
            cuts: 0,
            core_nodes: (0..p.nodes.len() as u32)
                .filter(|&v| core[v as usize])
                .collect(),
            regs,
        };
        m.colour_rows();
        m.clique_rows(p, core);
        m.affinity_rows(p);
        m.path_cuts(p);
        m.clique_path_cuts(p, core);
        m
    }

    fn size(&self) -> ModelSize {
        ModelSize {
            colour_vars: self.x.len(),
            rows: self.rows,
            cuts: self.cuts,
        }
    }

    fn row(&mut self, terms: &[(Variable, f64)], op: ComparisonOp, rhs: f64) {
        self.problem.add_constraint(terms.iter().copied(), op, rhs);
        self.rows += 1;
    }

    /// `x` variables and `Σ_c x[n][c] = 1`.
    fn colour_rows(&mut self) {
        for v in self.core_nodes.clone() {
            let mut terms = Vec::new();
            for c in self.regs[v as usize].clone() {
                let var = self.problem.add_binary_var(0.0);
                self.x.insert((v, c), var);
                terms.push((var, 1.0));
            }
            self.row(&terms, ComparisonOp::Eq, 1.0);
        }
    }

    /// `Σ_{n∈K} x[n][c] ≤ 1` for every clique and every register two members may take.
    fn clique_rows(&mut self, p: &PermProblem, core: &[bool]) {
        for k in &p.cliques {
            let members: Vec<u32> = k.iter().copied().filter(|&v| core[v as usize]).collect();
            if members.len() < 2 {
                continue;
            }
            let mut by_reg: Vec<(PReg, Vec<(Variable, f64)>)> = Vec::new();
            for &v in &members {
                for &c in &self.regs[v as usize] {
                    let var = self.x[&(v, c)];
                    match by_reg.iter_mut().find(|(r, _)| *r == c) {
                        Some((_, l)) => l.push((var, 1.0)),
                        None => by_reg.push((c, vec![(var, 1.0)])),
                    }
                }
            }
            for (_, l) in by_reg {
                if l.len() > 1 {
                    self.row(&l, ComparisonOp::Le, 1.0);
                }
            }
            if self.rows > MAX_ROWS {
                return;
            }
        }
    }

    /// `y` per affinity (its weight in the objective) and the two rows per register linking
    /// it to the `x`: `x[a][c] − x[b][c] − y ≤ 0` and `x[b][c] − x[a][c] − y ≤ 0`.
    fn affinity_rows(&mut self, p: &PermProblem) {
        let mut pairs: HashMap<(u32, u32), u64> = HashMap::new();
        for u in &p.units {
            for &(a, w) in &u.args {
                let key = (u.result.min(a), u.result.max(a));
                let e = pairs.entry(key).or_insert(0);
                *e = e.saturating_add(w);
            }
        }
        let mut pairs: Vec<((u32, u32), u64)> = pairs.into_iter().collect();
        pairs.sort_unstable();
        for ((a, b), w) in pairs {
            let y = self.problem.add_var(w as f64, (0.0, 1.0));
            let mut regs = self.regs[a as usize].clone();
            for &c in &self.regs[b as usize] {
                if !regs.contains(&c) {
                    regs.push(c);
                }
            }
            for c in regs {
                let xa = self.x.get(&(a, c)).copied();
                let xb = self.x.get(&(b, c)).copied();
                for (plus, minus) in [(xa, xb), (xb, xa)] {
                    let Some(plus) = plus else { continue };
                    let mut t = vec![(plus, 1.0), (y, -1.0)];
                    if let Some(minus) = minus {
                        t.push((minus, -1.0));
                    }
                    self.row(&t, ComparisonOp::Le, 0.0);
                }
            }
            self.y.push(((a, b), y));
            if self.rows > MAX_ROWS {
                return;
            }
        }
    }

    fn y_of(&self, a: u32, b: u32) -> Option<Variable> {
        let key = (a.min(b), a.max(b));
        self.y
            .binary_search_by_key(&key, |&(k, _)| k)
            .ok()
            .map(|i| self.y[i].1)
    }

    /// Affinity neighbours of every node (sorted).
    fn affinity_adj(&self, n: usize) -> Vec<Vec<u32>> {
        let mut adj = vec![Vec::new(); n];
        for &((a, b), _) in &self.y {
            adj[a as usize].push(b);
            adj[b as usize].push(a);
        }
        for l in &mut adj {
            l.sort_unstable();
        }
        adj
    }

    /// `Σ y ≥ rhs` over the affinities `pairs`, when all of them have a variable.
    fn cut(&mut self, pairs: &[(u32, u32)], rhs: f64) {
        let terms: Option<Vec<(Variable, f64)>> = pairs
            .iter()
            .map(|&(a, b)| self.y_of(a, b).map(|v| (v, 1.0)))
            .collect();
        if let Some(t) = terms {
            self.row(&t, ComparisonOp::Ge, rhs);
            self.cuts += 1;
        }
    }

    /// Path inequalities over affinity paths of two and three edges between interfering
    /// nodes.
    fn path_cuts(&mut self, p: &PermProblem) {
        let aff = self.affinity_adj(p.nodes.len());
        for a in 0..p.nodes.len() as u32 {
            if aff[a as usize].is_empty() {
                continue;
            }
            for &b in p.adj[a as usize].iter().filter(|&&b| b > a) {
                if aff[b as usize].is_empty() {
                    continue;
                }
                for &q in &aff[a as usize] {
                    if self.cuts >= MAX_CUTS {
                        return;
                    }
                    if aff[b as usize].binary_search(&q).is_ok() {
                        self.cut(&[(a, q), (q, b)], 1.0);
                    }
                    for &r in &aff[q as usize] {
                        let inner_ok = r != a
                            && r != b
                            && q != b
                            && aff[b as usize].binary_search(&r).is_ok()
                            && !p.interferes(q, b)
                            && !p.interferes(r, a);
                        if inner_ok && self.cuts < MAX_CUTS {
                            self.cut(&[(a, q), (q, r), (r, b)], 1.0);
                        }
                    }
                }
            }
        }
    }

    /// Clique-path inequalities: the members of a clique with an affinity to one node `a`.
    fn clique_path_cuts(&mut self, p: &PermProblem, core: &[bool]) {
        let aff = self.affinity_adj(p.nodes.len());
        let mut seen: std::collections::HashSet<(u32, Vec<u32>)> = Default::default();
        for k in &p.cliques {
            let mut by_a: HashMap<u32, Vec<u32>> = HashMap::new();
            for &v in k.iter().filter(|&&v| core[v as usize]) {
                for &a in &aff[v as usize] {
                    by_a.entry(a).or_default().push(v);
                }
            }
            let mut groups: Vec<(u32, Vec<u32>)> =
                by_a.into_iter().filter(|(_, m)| m.len() >= 2).collect();
            groups.sort_unstable();
            for (a, mut members) in groups {
                if self.cuts >= MAX_CUTS {
                    return;
                }
                members.sort_unstable();
                if !seen.insert((a, members.clone())) {
                    continue;
                }
                let pairs: Vec<(u32, u32)> = members.iter().map(|&v| (v, a)).collect();
                self.cut(&pairs, members.len() as f64 - 1.0);
            }
        }
    }

    /// Solves from the warm start `p.colour` (the heuristic's colouring) under the node
    /// limit; returns whether optimality was proved and the colouring of the core nodes
    /// (the others keep `p.colour` until [`colour_removed`]).
    fn solve(self, p: &PermProblem) -> Option<(bool, Vec<PReg>)> {
        let mut start: Vec<(Variable, f64)> = Vec::with_capacity(self.x.len() + self.y.len());
        let mut xs: Vec<(&(u32, PReg), &Variable)> = self.x.iter().collect();
        xs.sort_unstable_by_key(|(k, _)| **k);
        for &(&(v, c), &var) in &xs {
            start.push((var, f64::from(u8::from(p.colour[v as usize] == c))));
        }
        for &((a, b), var) in &self.y {
            let differ = p.colour[a as usize] != p.colour[b as usize];
            start.push((var, f64::from(u8::from(differ))));
        }
        let mut options = SolveOptions::default();
        let work = (self.rows as u64).max(1) * (self.x.len() as u64).max(1);
        options.node_limit = Some((NODE_WORK / work).clamp(MIN_NODES, MAX_NODES));
        options.warm_start = Some(start);
        let outcome = self.problem.solve_with(options).ok()?;
        let proved = outcome.termination_reason() == TerminationReason::ProvenOptimal;
        let sol = outcome.into_solution().ok()?;
        let mut colour = p.colour.clone();
        for &v in &self.core_nodes {
            let chosen = self.regs[v as usize].iter().copied().find(|&c| {
                self.x
                    .get(&(v, c))
                    .is_some_and(|&var| sol.var_value(var) > 0.5)
            })?;
            colour[v as usize] = chosen;
        }
        Some((proved, colour))
    }
}
