//! The recolouring heuristic for Perm optimisation: Hack, Grund & Goos §5.3 and the
//! pseudo-code of their Appendix C (`COALESCE`, `TEST`, `TRYCOLOR`).
//!
//! Starting from Algorithm 1's colouring (a valid colouring is kept at every step), each
//! optimisation unit `(p, a_1, ..., a_k)` of [`PermProblem`] — heaviest first — tries to give
//! its result and as many of its arguments as possible one register:
//!
//! * **Init**: for each register `c` allowed for `p`, an entry `(c, C_c, S_c)` with the
//!   conflict graph `C_c` (initially the interference among the unit's nodes) and a
//!   maximum-weight stable set `S_c` of it that contains `p`; entries ordered by the weight
//!   of their stable set.
//! * **Test**: the best entry's nodes are recoloured to `c` one after the other (`p` first)
//!   by `TRYCOLOR`, which hands `c`'s current holders among a node's neighbours the node's
//!   old register, recursively. A failure adds an edge to the conflict graph (case 2,
//!   forbidden register, and case 3, a node pinned by an earlier unit: the node is excluded;
//!   case 4, a candidate of this unit: the two cannot share `c`), and the entry goes back into
//!   the queue with a new stable set. Changes are virtual until the test succeeds.
//! * **Apply**: when at least two nodes (`p` and an argument) could take `c`, they are
//!   pinned and the changes kept.
//!
//! Additions to the pseudo-code, for termination and speed: a node already being recoloured
//! further up the `TRYCOLOR` recursion counts as a forbidden register (the pseudo-code can
//! loop there), the recursion is cut at [`MAX_DEPTH`] and each test at [`MAX_STEPS`] calls
//! (both counted in the pass detail as `recolour_capped`), and an entry whose stable set is
//! `{p}` alone ends the unit (it cannot lower the cost). Stable sets are exact up to
//! [`EXACT_MWIS`] arguments (branch and bound), greedy beyond.
//!
//! Preconditions: `f` is the output of `ssa-constraints`. Output: the allocated-SSA form,
//! as `ssa-colour` gives it. Complexity: per unit, O(registers × tests × steps); the steps
//! are capped, so the pass is linear in the number of units times a constant.

use super::colour;
use super::perm_problem::{PermProblem, Unit};
use super::Budget;
use crate::mir::{Function, PReg};
use crate::pipeline::PassDetail;
use crate::regalloc::RegallocOptions;

/// Depth of the `TRYCOLOR` recursion beyond which a recolouring gives up.
pub const MAX_DEPTH: u32 = 64;
/// `TRYCOLOR` calls one test may make.
pub const MAX_STEPS: u32 = 4_096;
/// Unit sizes up to which the maximum-weight stable set is exact.
pub const EXACT_MWIS: usize = 24;

/// The `ssa-recolour` pass: Algorithm 1, then §5.3's recolouring, then the allocated-SSA form.
pub fn run(f: &mut Function, opts: &RegallocOptions) -> Result<PassDetail, String> {
    let colours = colour::colour_program(f, opts)?;
    let budget = Budget::new(f.target, opts);
    let Some(mut problem) = PermProblem::build(f, &colours, &budget, false)? else {
        let used = colour::apply_colours(f, &colours)?;
        return Ok(vec![("regs_used", used as u64), ("coalesce_capped", 1)]);
    };
    let before = problem.cost(&problem.colour);
    let stats = coalesce(&mut problem);
    problem.validate(&problem.colour)?;
    let after = problem.cost(&problem.colour);
    let used = colour::apply_colours(f, &problem.per_vreg(&problem.colour))?;
    Ok(vec![
        ("regs_used", used as u64),
        ("affinity_units", problem.units.len() as u64),
        ("affinity_cost_before", before),
        ("affinity_cost_after", after),
        ("units_improved", stats.units_applied),
        ("recolour_capped", stats.capped),
    ])
}

/// Counts of one `COALESCE` run.
#[derive(Clone, Copy, Debug, Default)]
pub struct RecolourStats {
    pub units_applied: u64,
    pub capped: u64,
}

/// `COALESCE`: every unit in turn (heaviest first), on `p.colour`.
pub fn coalesce(p: &mut PermProblem) -> RecolourStats {
    let mut r = Recolourer::new(p.nodes.len());
    let units = std::mem::take(&mut p.units);
    for u in &units {
        if r.optimise_unit(p, u) {
            r.stats.units_applied += 1;
        }
    }
    p.units = units;
    r.stats
}

/// Why `TRYCOLOR` failed, and at which node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Conflict {
    Pinned(u32),
    Candidate(u32),
    Forbidden(u32),
}

/// One entry of a unit's priority queue.
#[derive(Clone, Debug)]
struct Entry {
    colour: PReg,
    /// Conflict edges among the unit's members (bit masks, member 0 is `p`).
    conflicts: Vec<u64>,
    /// Members that may not take `colour` at all.
    excluded: u64,
    stable: u64,
    weight: u64,
}

struct Recolourer {
    pinned: Vec<bool>,
    candidate: Vec<bool>,
    on_stack: Vec<bool>,
    undo: Vec<(u32, PReg)>,
    steps: u32,
    stats: RecolourStats,
}

impl Recolourer {
    fn new(n: usize) -> Recolourer {
        Recolourer {
            pinned: vec![false; n],
            candidate: vec![false; n],
            on_stack: vec![false; n],
            undo: Vec::new(),
            steps: 0,
            stats: RecolourStats::default(),
        }
    }

    /// Init, Test and Apply for one unit; true when its changes were applied.
    fn optimise_unit(&mut self, p: &mut PermProblem, u: &Unit) -> bool {
        // Member 0 is the result; at most 63 arguments fit the masks (the heaviest).
        let mut args = u.args.clone();
        args.sort_by_key(|&(_, w)| std::cmp::Reverse(w));
        args.truncate(63);
        let members: Vec<u32> = std::iter::once(u.result)
            .chain(args.iter().map(|&(a, _)| a))
            .collect();
        let weights: Vec<u64> = std::iter::once(0)
            .chain(args.iter().map(|&(_, w)| w))
            .collect();
        let mut queue = self.init(p, &members, &weights);
        while let Some(i) = best_entry(&queue, p.colour[u.result as usize]) {
            let mut e = queue.swap_remove(i);
            if e.stable == 1 {
                // Only `p` left: nothing to gain.
                return false;
            }
            match self.test(p, &members, &e) {
                Ok(()) => {
                    let n = self.candidates(&members);
                    let applied = n > 1;
                    if applied {
                        for &m in &members {
                            if self.candidate[m as usize] {
                                self.pinned[m as usize] = true;
                            }
                        }
                        self.undo.clear();
                    } else {
                        self.rollback(p);
                    }
                    self.clear_candidates(&members);
                    return applied;
                }
                Err((failed, conflict)) => {
                    self.rollback(p);
                    self.clear_candidates(&members);
                    if !add_conflict(&mut e, &members, failed, conflict) {
                        continue; // `p` cannot take the colour: entry discarded
                    }
                    e.stable = max_weight_stable_set(&e, &weights);
                    e.weight = set_weight(e.stable, &weights);
                    queue.push(e);
                }
            }
        }
        false
    }

    /// Init: an entry per register allowed for the result.
    fn init(&self, p: &PermProblem, members: &[u32], weights: &[u64]) -> Vec<Entry> {
        let n = members.len();
        let mut conflicts = vec![0u64; n];
        for i in 0..n {
            for j in i + 1..n {
                if p.interferes(members[i], members[j]) {
                    conflicts[i] |= 1 << j;
                    conflicts[j] |= 1 << i;
                }
            }
        }
        p.allowed_regs(members[0])
            .into_iter()
            .map(|c| {
                let mut e = Entry {
                    colour: c,
                    conflicts: conflicts.clone(),
                    excluded: 0,
                    stable: 0,
                    weight: 0,
                };
                for (i, &m) in members.iter().enumerate() {
                    if !p.allowed(m, c) || (self.pinned[m as usize] && p.colour[m as usize] != c) {
                        e.excluded |= 1 << i;
                    }
                }
                e.stable = max_weight_stable_set(&e, weights);
                e.weight = set_weight(e.stable, weights);
                e
            })
            .filter(|e| e.excluded & 1 == 0)
            .collect()
    }

    /// `TEST`: recolour the stable set's members to the entry's colour, `p` first.
    fn test(
        &mut self,
        p: &mut PermProblem,
        members: &[u32],
        e: &Entry,
    ) -> Result<(), (usize, Conflict)> {
        self.undo.clear();
        for (i, &m) in members.iter().enumerate() {
            if e.stable & (1 << i) == 0 {
                continue;
            }
            self.steps = 0;
            self.try_colour(p, m, None, e.colour, 0)
                .map_err(|c| (i, c))?;
            self.candidate[m as usize] = true;
        }
        Ok(())
    }

    /// `TRYCOLOR(v, u, c)`: give `v` the register `c`, moving its neighbours that hold `c`
    /// (except `from`, which is giving `c` up) to `v`'s old register.
    fn try_colour(
        &mut self,
        p: &mut PermProblem,
        v: u32,
        from: Option<u32>,
        c: PReg,
        depth: u32,
    ) -> Result<(), Conflict> {
        let old = p.colour[v as usize];
        if old == c {
            return Ok(());
        }
        if self.pinned[v as usize] {
            return Err(Conflict::Pinned(v));
        }
        if self.candidate[v as usize] {
            return Err(Conflict::Candidate(v));
        }
        if !p.allowed(v, c) || self.on_stack[v as usize] {
            return Err(Conflict::Forbidden(v));
        }
        self.steps += 1;
        if depth >= MAX_DEPTH || self.steps > MAX_STEPS {
            self.stats.capped += 1;
            return Err(Conflict::Forbidden(v));
        }
        self.on_stack[v as usize] = true;
        let result = self.move_holders(p, v, from, c, old, depth);
        self.on_stack[v as usize] = false;
        result?;
        self.undo.push((v, old));
        p.colour[v as usize] = c;
        Ok(())
    }

    /// Moves every neighbour of `v` holding `c` to `old`, until none holds `c` (a move can
    /// hand `c` to another neighbour of `v`).
    fn move_holders(
        &mut self,
        p: &mut PermProblem,
        v: u32,
        from: Option<u32>,
        c: PReg,
        old: PReg,
        depth: u32,
    ) -> Result<(), Conflict> {
        loop {
            let holder = p.adj[v as usize]
                .iter()
                .copied()
                .find(|&n| Some(n) != from && p.colour[n as usize] == c);
            let Some(n) = holder else { return Ok(()) };
            self.try_colour(p, n, Some(v), old, depth + 1)?;
        }
    }

    fn rollback(&mut self, p: &mut PermProblem) {
        while let Some((n, c)) = self.undo.pop() {
            p.colour[n as usize] = c;
        }
    }

    fn candidates(&self, members: &[u32]) -> usize {
        members
            .iter()
            .filter(|&&m| self.candidate[m as usize])
            .count()
    }

    fn clear_candidates(&mut self, members: &[u32]) {
        for &m in members {
            self.candidate[m as usize] = false;
        }
    }
}

/// The entry to test next: heaviest stable set; ties go to the result's current register,
/// then to the budget's order (the queue keeps it).
fn best_entry(queue: &[Entry], current: PReg) -> Option<usize> {
    (0..queue.len()).max_by(|&a, &b| {
        let key = |i: usize| (queue[i].weight, queue[i].colour == current);
        key(a).cmp(&key(b)).then(b.cmp(&a))
    })
}

/// Cases 2-4 of the Test phase as a conflict-graph update; false when the entry is dead.
fn add_conflict(e: &mut Entry, members: &[u32], failed: usize, conflict: Conflict) -> bool {
    if let Conflict::Candidate(v) = conflict {
        if let Some(j) = members.iter().position(|&m| m == v).filter(|&j| j != 0) {
            e.conflicts[failed] |= 1 << j;
            e.conflicts[j] |= 1 << failed;
            return true;
        }
    }
    e.excluded |= 1 << failed;
    failed != 0
}

fn set_weight(set: u64, weights: &[u64]) -> u64 {
    (0..weights.len())
        .filter(|&i| set & (1 << i) != 0)
        .fold(0u64, |s, i| s.saturating_add(weights[i]))
}

/// A maximum-weight stable set of the entry's conflict graph that contains member 0 (the
/// result): exact by branch and bound up to [`EXACT_MWIS`] members, greedy beyond.
fn max_weight_stable_set(e: &Entry, weights: &[u64]) -> u64 {
    let n = weights.len();
    if e.excluded & 1 != 0 {
        return 0;
    }
    // Arguments compatible with the result, heaviest first.
    let mut cand: Vec<usize> = (1..n)
        .filter(|&i| e.excluded & (1 << i) == 0 && e.conflicts[0] & (1 << i) == 0)
        .collect();
    cand.sort_by_key(|&i| std::cmp::Reverse(weights[i]));
    if cand.len() > EXACT_MWIS {
        let mut set = 1u64;
        for &i in &cand {
            if e.conflicts[i] & set == 0 {
                set |= 1 << i;
            }
        }
        return set;
    }
    let mut best = (0u64, 1u64);
    branch(&cand, 0, 1, 0, e, weights, &mut best);
    best.1
}

fn branch(
    cand: &[usize],
    k: usize,
    set: u64,
    w: u64,
    e: &Entry,
    weights: &[u64],
    best: &mut (u64, u64),
) {
    if w > best.0 {
        *best = (w, set);
    }
    if k == cand.len() {
        return;
    }
    let rest: u64 = cand[k..]
        .iter()
        .filter(|&&i| e.conflicts[i] & set == 0)
        .map(|&i| weights[i])
        .sum();
    if w + rest <= best.0 {
        return;
    }
    let i = cand[k];
    if e.conflicts[i] & set == 0 {
        branch(
            cand,
            k + 1,
            set | (1 << i),
            w + weights[i],
            e,
            weights,
            best,
        );
    }
    branch(cand, k + 1, set, w, e, weights, best);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(n: usize, edges: &[(usize, usize)]) -> Entry {
        let mut conflicts = vec![0u64; n];
        for &(a, b) in edges {
            conflicts[a] |= 1 << b;
            conflicts[b] |= 1 << a;
        }
        Entry {
            colour: PReg::new(crate::mir::RegClass::R, 0),
            conflicts,
            excluded: 0,
            stable: 0,
            weight: 0,
        }
    }

    #[test]
    fn stable_set_prefers_the_heavier_side_of_a_conflict() {
        // p, a1 (w 5), a2 (w 3), a3 (w 3); a1 conflicts with a2 and a3.
        let e = entry(4, &[(1, 2), (1, 3)]);
        let s = max_weight_stable_set(&e, &[0, 5, 3, 3]);
        assert_eq!(s, 0b1101, "{{p, a2, a3}} weighs 6 > 5");
    }

    #[test]
    fn excluded_result_kills_the_entry() {
        let mut e = entry(2, &[]);
        assert!(!add_conflict(&mut e, &[7, 8], 0, Conflict::Forbidden(7)));
        let mut e = entry(3, &[]);
        assert!(add_conflict(&mut e, &[7, 8, 9], 1, Conflict::Candidate(9)));
        assert_eq!(max_weight_stable_set(&e, &[0, 1, 2]), 0b101);
    }
}
