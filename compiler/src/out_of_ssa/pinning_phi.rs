//! `pinning_phi`: pinning-based coalescing of phi operands during the translation out of
//! SSA, aware of renaming constraints.
//!
//! Source: Rastello, de Ferrière, Guillon, "Optimizing the translation out-of-SSA with
//! renaming constraints", LIP RR-2005-34 (CGO 2004): §2.4 (the phi coalescing problem:
//! pin phi arguments to the result's resource without creating a new interference), §3
//! (the solution), Algorithm 1 (`Program_pinning`), Algorithm 2 (`Create_affinity_graph`,
//! `Graph_InitialPruning`, `BipartiteGraph_pruning`, `PrunedGraph_pinning`, and the
//! interference procedures, see [`interference`]), Algorithm 3 (the `depth` variant) and
//! Algorithm 4 (the `opt` / `pess` interference definitions); §5 Table 5 for the variants.
//!
//! # What it does
//! For each block holding phis, inner loops first (decreasing loop depth, then reverse
//! post-order), [`program_pinning`] runs the paper's four steps:
//! 1. [`create_affinity_graph`]: one vertex per resource of a phi result or argument, one
//!    edge (with multiplicity) per (result, argument) pair not already in one resource.
//! 2. [`graph_initial_pruning`]: edges between interfering resources are removed; what is
//!    left is bipartite (results / arguments).
//! 3. [`bipartite_graph_pruning`]: the weight of an edge `(x, x1)` counts the neighbours
//!    `x2` of `x` that interfere with `x1` (and symmetrically); the heaviest edge is removed
//!    and the weights of the edges it contributed to are decreased, until every weight is
//!    0. The pseudo-code decreases every edge sharing an endpoint; we decrease only those
//!    whose weight the removed edge had increased, which keeps the weights exact, so that
//!    weight 0 everywhere means no two interfering resources in a component.
//! 4. [`pruned_graph_pinning`]: each connected component is merged into one resource (the
//!    physical one if any) with [`Pinning::try_union`], which refuses any incorrect
//!    pinning (Fig. 5), after re-testing interference against the growing component (a
//!    backstop that costs nothing when the pruning is exact).
//!
//! Variant `Depth` (Algorithm 3): `Program_pinning` is called for depth = max … 0, and the
//! affinity graph keeps only the arguments defined in a block of that loop depth. Variants
//! `Opt` / `Pess` (Algorithm 4) change the Class 1 test of `Variable_kills`.
//!
//! # The "no new repair" guard
//! The paper merges only resources that do not interfere, i.e. it never adds a repair
//! copy. Our interference tests follow the write points of Leung and George's mark phase
//! (see [`interference`]), but to make the property hold exactly, `Base`, `Depth` and `Pess`
//! re-run `leung_george::mark` after each block's merges: if some variable is killed that
//! was not before, the block's merges are undone and its components retried one at a time
//! (a component that still adds a kill is dropped; counted as `guard_rejections`). `Opt`
//! runs without the guard: the optimistic tests are *meant* to admit some new kills (Table
//! 5), which Leung and George's repairing then pays for.
//!
//! # Preconditions, invariants
//! Input: SSA form with pins (`docs/design.md`), `live` computed on it, and `p` a correct
//! pinning (`pinning_SP` / `pinning_ABI` already applied). Every merge goes through
//! [`Pinning::try_union`]; at the end [`check_pinning`] must accept the result, otherwise
//! (which would be a bug) the input pinning is restored and `check_fallbacks` is 1 — the
//! result is never an incorrect pinning. Psi operands and guarded definitions are never
//! merged (as in `pinning_CSSA`).
//!
//! # Complexity
//! Facts: one backward walk per block (O(instructions × live) at calls and pinned uses).
//! Per block: E affinity edges, O(E²) for the pruning loop, O(deg²) interference tests for
//! the weights, each `Resource_interfere(A, B)` O(|A|·|B|) variable tests. Superlinear parts
//! are capped: a block with more than [`MAX_EDGES`] edges skips the bipartite pruning (the
//! incremental interference test of step 4 keeps the result correct), the variable-pair
//! tests have a budget ([`PAIR_BUDGET`]; when spent, resources count as interfering), and
//! the guard's mark runs have a budget of instructions visited ([`GUARD_BUDGET`]; when spent,
//! the guard is off). Every cap hit is counted in `cap_fallbacks`.

mod interference;

use super::leung_george::liveness::Liveness;
use super::leung_george::{check_pinning, mark, Pinning};
use crate::mir::{BlockId, Function, PReg, VReg};
use crate::pipeline::PassDetail;
use interference::{Facts, Interference, NONE};
use std::collections::HashMap;

/// The variants of the paper's §5 / Table 5.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PhiVariant {
    /// Algorithm 2: phis prioritised by the loop depth of their block.
    #[default]
    Base,
    /// Algorithm 3: affinity graph built with a depth constraint, `Program_pinning` called
    /// with decreasing depth.
    Depth,
    /// Algorithm 4, optimistic interferences.
    Opt,
    /// Algorithm 4, pessimistic interferences.
    Pess,
}

/// Affinity graphs with more edges skip the O(E²) bipartite pruning.
pub const MAX_EDGES: usize = 4096;
/// Variable-pair interference tests per function.
pub const PAIR_BUDGET: u64 = 4_000_000;
/// Instructions the guard's mark runs may visit per function.
pub const GUARD_BUDGET: u64 = 4_000_000;

/// What the pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Blocks with phis visited (per depth level for `Depth`).
    pub blocks: u64,
    /// Phis whose affinities were considered.
    pub phis_considered: u64,
    /// Affinity edges created (distinct resource pairs).
    pub affinity_edges: u64,
    /// Edges removed because their resources interfere.
    pub initially_pruned: u64,
    /// Edges removed by the bipartite pruning.
    pub bipartite_pruned: u64,
    /// Resource unions performed.
    pub merged: u64,
    /// Unions refused by the backstop interference test or by `try_union`.
    pub merge_refused: u64,
    /// Components whose merge the guard undid (it would add a repair).
    pub guard_rejections: u64,
    /// Caps hit (see the module doc).
    pub cap_fallbacks: u64,
    /// 1 if the final pinning check failed and the input pinning was restored.
    pub check_fallbacks: u64,
}

impl Counts {
    pub fn detail(&self) -> PassDetail {
        vec![
            ("phi_blocks", self.blocks),
            ("phis_considered", self.phis_considered),
            ("affinity_edges", self.affinity_edges),
            ("initially_pruned", self.initially_pruned),
            ("bipartite_pruned", self.bipartite_pruned),
            ("merged", self.merged),
            ("merge_refused", self.merge_refused),
            ("guard_rejections", self.guard_rejections),
            ("cap_fallbacks", self.cap_fallbacks),
            ("check_fallbacks", self.check_fallbacks),
        ]
    }
}

/// Pins phi operands to resources on top of the pinning `p` (which already holds the
/// `pinning_SP` / `pinning_ABI` pins). Returns the pass's own counts.
pub fn pinning_phi(
    f: &Function,
    live: &Liveness,
    p: &mut Pinning,
    variant: PhiVariant,
) -> Result<PassDetail, String> {
    let counts = pinning_phi_counts(f, live, p, variant)?;
    Ok(counts.detail())
}

/// [`pinning_phi`] with the counts as a struct.
pub fn pinning_phi_counts(
    f: &Function,
    live: &Liveness,
    p: &mut Pinning,
    variant: PhiVariant,
) -> Result<Counts, String> {
    run_pinning_phi(f, live, p, variant, None)
}

/// What happened to an affinity edge of a block's graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeFate {
    /// Removed by `Graph_InitialPruning`: its two resources interfere.
    Interfering,
    /// Removed by `BipartiteGraph_pruning` (its weight was the largest).
    Pruned,
    /// Left in the pruned graph: its component was offered to `PrunedGraph_pinning`.
    Kept,
}

/// One resource (vertex) of a block's affinity graph when the graph was created.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceVertex {
    /// Its root node in the pinning before the block (a variable index or a physical node).
    pub root: u32,
    pub members: Vec<VReg>,
    pub phys: Option<PReg>,
    /// Its root once the block's components were merged (equal roots: one merged web).
    pub merged_root: u32,
}

/// An affinity edge: vertex indices, multiplicity (phi operand pairs it stands for), fate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceEdge {
    pub x: usize,
    pub y: usize,
    pub multiplicity: u32,
    pub fate: EdgeFate,
}

/// The affinity graph of one block holding phis, as Algorithm 2 built and pruned it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockTrace {
    pub block: BlockId,
    /// Algorithm 3's depth level (the `Depth` variant only).
    pub depth: Option<u32>,
    pub vertices: Vec<TraceVertex>,
    pub edges: Vec<TraceEdge>,
}

/// [`pinning_phi_counts`], recording each block's affinity graph in `trace` (for `viz`,
/// issue 26; the pinning is the same as without the record).
pub fn pinning_phi_traced(
    f: &Function,
    live: &Liveness,
    p: &mut Pinning,
    variant: PhiVariant,
    trace: &mut Vec<BlockTrace>,
) -> Result<Counts, String> {
    run_pinning_phi(f, live, p, variant, Some(trace))
}

fn run_pinning_phi(
    f: &Function,
    live: &Liveness,
    p: &mut Pinning,
    variant: PhiVariant,
    trace: Option<&mut Vec<BlockTrace>>,
) -> Result<Counts, String> {
    if live.shape() != (f.blocks.len(), f.vregs.len()) {
        return Err(format!(
            "pinning_phi: @{}: liveness computed for another function",
            f.name
        ));
    }
    let input = p.clone();
    let facts = Facts::compute(f, live);
    let members = resource_members(f, p);
    let it = Interference::new(&facts, live, variant, &members, p, PAIR_BUDGET);
    let mut st = State {
        f,
        live,
        p,
        members,
        it,
        counts: Counts::default(),
        guard: (variant != PhiVariant::Opt).then(|| Guard::new(f, live, input.clone())),
        trace,
    };
    let order = blocks_inner_to_outer(f, &facts);
    if variant == PhiVariant::Depth {
        let max = order.iter().map(|&(_, d)| d).max().unwrap_or(0);
        for depth in (0..=max).rev() {
            program_pinning(&mut st, &order, Some(depth));
        }
    } else {
        program_pinning(&mut st, &order, None);
    }
    let mut counts = st.counts;
    counts.cap_fallbacks += st.it.cap_hits;
    if let Some(g) = &st.guard {
        counts.cap_fallbacks += u64::from(g.exhausted);
    }
    if !check_pinning(f, st.p).is_empty() {
        *st.p = input;
        counts.check_fallbacks = 1;
    }
    Ok(counts)
}

/// The variables of every resource, by root.
fn resource_members(f: &Function, p: &Pinning) -> HashMap<u32, Vec<VReg>> {
    let mut m: HashMap<u32, Vec<VReg>> = HashMap::new();
    for v in 0..f.vregs.len() as u32 {
        m.entry(p.res(VReg(v))).or_default().push(VReg(v));
    }
    m
}

/// Blocks holding phis, with their loop depth, inner loops first (stable on reverse
/// post-order): the "inner to outer loop traversal" of Algorithm 1.
fn blocks_inner_to_outer(f: &Function, facts: &Facts) -> Vec<(BlockId, u32)> {
    let mut order: Vec<(BlockId, u32)> = facts
        .info
        .rpo()
        .filter(|&b| f.block(b).insts.first().is_some_and(|i| i.is_phi()))
        .map(|b| (b, facts.info.loop_depth(b)))
        .collect();
    order.sort_by_key(|&(_, d)| std::cmp::Reverse(d));
    order
}

/// The pass's working state.
struct State<'a> {
    f: &'a Function,
    live: &'a Liveness,
    p: &'a mut Pinning,
    members: HashMap<u32, Vec<VReg>>,
    it: Interference<'a>,
    counts: Counts,
    guard: Option<Guard>,
    trace: Option<&'a mut Vec<BlockTrace>>,
}

impl State<'_> {
    fn vars(&self, r: u32) -> &[VReg] {
        self.members.get(&r).map(Vec::as_slice).unwrap_or(&[])
    }

    /// `Resource_interfere` on two resource roots.
    fn interfere(&mut self, a: u32, b: u32) -> bool {
        if a == b {
            return false;
        }
        let (pa, pb) = (self.p.phys(a), self.p.phys(b));
        let va = self.members.get(&a).map(Vec::as_slice).unwrap_or(&[]);
        let vb = self.members.get(&b).map(Vec::as_slice).unwrap_or(&[]);
        self.it.resources_interfere(va, pa, vb, pb)
    }

    /// A resource that pinning_phi may merge: all its variables mergeable.
    fn mergeable(&self, r: u32) -> bool {
        self.vars(r)
            .iter()
            .all(|v| self.it.facts.mergeable[v.index()])
    }

    /// Merges two roots if correct; keeps the member lists by root.
    fn union(&mut self, a: u32, b: u32) -> bool {
        if !self.p.try_union(a, b) {
            return false;
        }
        let root = self.p.find_root(a);
        let mut va = self.members.remove(&a).unwrap_or_default();
        let vb = self.members.remove(&b).unwrap_or_default();
        va.extend(vb);
        self.members.insert(root, va);
        true
    }
}

/// An affinity edge between two resources (indices into the vertex list).
#[derive(Clone, Copy, Debug)]
struct Edge {
    x: usize,
    y: usize,
    multiplicity: u32,
    weight: i64,
    alive: bool,
}

/// The affinity graph of one block: vertices are resource roots.
#[derive(Debug, Default)]
struct AffinityGraph {
    verts: Vec<u32>,
    edges: Vec<Edge>,
}

impl AffinityGraph {
    fn vertex(&mut self, r: u32) -> usize {
        match self.verts.iter().position(|&v| v == r) {
            Some(k) => k,
            None => {
                self.verts.push(r);
                self.verts.len() - 1
            }
        }
    }

    fn add_affinity(&mut self, x: u32, y: u32) {
        let (x, y) = (self.vertex(x), self.vertex(y));
        let same = |e: &&mut Edge| (e.x, e.y) == (x, y) || (e.x, e.y) == (y, x);
        match self.edges.iter_mut().find(same) {
            Some(e) => e.multiplicity += 1,
            None => self.edges.push(Edge {
                x,
                y,
                multiplicity: 1,
                weight: 0,
                alive: true,
            }),
        }
    }
}

/// Algorithm 1 over the blocks in `order`; `depth`: Algorithm 3's constraint.
fn program_pinning(st: &mut State, order: &[(BlockId, u32)], depth: Option<u32>) {
    for &(b, _) in order {
        let mut g = create_affinity_graph(st, b, depth);
        if g.edges.is_empty() {
            continue;
        }
        st.counts.blocks += 1;
        let created = st.trace.is_some().then(|| g.edges.clone());
        graph_initial_pruning(st, &mut g);
        let initially_kept = st.trace.is_some().then(|| g.edges.clone());
        if g.edges.len() > MAX_EDGES {
            st.counts.cap_fallbacks += 1;
        } else {
            bipartite_graph_pruning(st, &mut g);
        }
        let members: Vec<Vec<VReg>> = match st.trace {
            Some(_) => g.verts.iter().map(|&r| st.vars(r).to_vec()).collect(),
            None => Vec::new(),
        };
        pruned_graph_pinning(st, &g);
        if let (Some(created), Some(kept)) = (created, initially_kept) {
            record_block(st, b, depth, &g, members, &created, &kept);
        }
    }
}

/// Appends the block's graph to the trace: each created edge with its fate, each vertex with
/// its members (before the merges) and its root after them.
fn record_block(
    st: &mut State,
    b: BlockId,
    depth: Option<u32>,
    g: &AffinityGraph,
    members: Vec<Vec<VReg>>,
    created: &[Edge],
    initially_kept: &[Edge],
) {
    // Edges are unique per vertex pair, so a pair identifies an edge across the prunings.
    let has = |list: &[Edge], e: &Edge| list.iter().any(|k| (k.x, k.y) == (e.x, e.y));
    let edges = created
        .iter()
        .map(|e| TraceEdge {
            x: e.x,
            y: e.y,
            multiplicity: e.multiplicity,
            fate: if !has(initially_kept, e) {
                EdgeFate::Interfering
            } else if !has(&g.edges, e) {
                EdgeFate::Pruned
            } else {
                EdgeFate::Kept
            },
        })
        .collect();
    let vertices = g
        .verts
        .iter()
        .zip(members)
        .map(|(&root, members)| TraceVertex {
            root,
            members,
            phys: st.p.phys(root),
            merged_root: st.p.find_root(root),
        })
        .collect();
    if let Some(t) = st.trace.as_deref_mut() {
        t.push(BlockTrace {
            block: b,
            depth,
            vertices,
            edges,
        });
    }
}

/// `Create_affinity_graph` (Algorithm 2; with `depth`, Algorithm 3): an edge per
/// (result, argument) of the block's phis whose resources differ and may be merged.
fn create_affinity_graph(st: &mut State, b: BlockId, depth: Option<u32>) -> AffinityGraph {
    let mut g = AffinityGraph::default();
    let facts = st.it.facts;
    for phi in st.f.block(b).insts.iter().take_while(|i| i.is_phi()) {
        let Some(d) = phi.defs.first().and_then(|o| o.vreg()) else {
            continue;
        };
        st.counts.phis_considered += 1;
        let rd = st.p.res(d);
        if !st.mergeable(rd) {
            continue;
        }
        for a in phi.use_vregs() {
            let def_block = facts.def[a.index()].block;
            if def_block == NONE {
                continue;
            }
            if depth.is_some_and(|k| facts.info.loop_depth(BlockId(def_block)) != k) {
                continue;
            }
            let ra = st.p.res(a);
            if ra != rd && st.mergeable(ra) {
                g.add_affinity(rd, ra);
            }
        }
    }
    st.counts.affinity_edges += g.edges.len() as u64;
    g
}

/// `Graph_InitialPruning`: removes the edges between interfering resources.
fn graph_initial_pruning(st: &mut State, g: &mut AffinityGraph) {
    for e in g.edges.iter_mut() {
        if st.interfere(g.verts[e.x], g.verts[e.y]) {
            e.alive = false;
            st.counts.initially_pruned += 1;
        }
    }
    g.edges.retain(|e| e.alive);
}

/// `BipartiteGraph_pruning`: greedy removal of the heaviest edge (see the module doc).
fn bipartite_graph_pruning(st: &mut State, g: &mut AffinityGraph) {
    let nv = g.verts.len();
    let mut cache: HashMap<(usize, usize), bool> = HashMap::new();
    let mut interferes = |st: &mut State, a: usize, b: usize| -> bool {
        let key = (a.min(b), a.max(b));
        if let Some(&r) = cache.get(&key) {
            return r;
        }
        let r = st.interfere(g.verts[a], g.verts[b]);
        cache.insert(key, r);
        r
    };
    let mut incident: Vec<Vec<usize>> = vec![Vec::new(); nv];
    for (k, e) in g.edges.iter().enumerate() {
        incident[e.x].push(k);
        incident[e.y].push(k);
    }
    let other = |e: &Edge, v: usize| if e.x == v { e.y } else { e.x };
    // Weights: for the edges (v, x1), (v, x2) of one vertex with x1, x2 interfering.
    for (v, inc) in incident.iter().enumerate() {
        for (i, &e1) in inc.iter().enumerate() {
            for &e2 in &inc[i + 1..] {
                let (x1, x2) = (other(&g.edges[e1], v), other(&g.edges[e2], v));
                if x1 != x2 && interferes(st, x1, x2) {
                    let (m1, m2) = (g.edges[e1].multiplicity, g.edges[e2].multiplicity);
                    g.edges[e1].weight += i64::from(m2);
                    g.edges[e2].weight += i64::from(m1);
                }
            }
        }
    }
    while let Some((k, _)) = g
        .edges
        .iter()
        .enumerate()
        .filter(|(_, e)| e.alive && e.weight > 0)
        .max_by_key(|(k, e)| (e.weight, std::cmp::Reverse(*k)))
    {
        let ep = g.edges[k];
        g.edges[k].alive = false;
        st.counts.bipartite_pruned += 1;
        // The edges sharing an endpoint with ep whose other end interferes with ep's other
        // end lose ep's contribution.
        for (v, far) in [(ep.x, ep.y), (ep.y, ep.x)] {
            for &e in &incident[v] {
                if !g.edges[e].alive {
                    continue;
                }
                let o = other(&g.edges[e], v);
                if o != far && interferes(st, o, far) {
                    g.edges[e].weight -= i64::from(ep.multiplicity);
                }
            }
        }
    }
    g.edges.retain(|e| e.alive);
}

/// `PrunedGraph_pinning`: merges the resources of each connected component, the physical
/// one (if any) as the reference; with the guard (see the module doc).
fn pruned_graph_pinning(st: &mut State, g: &AffinityGraph) {
    let comps = components(g);
    let Some(snapshot) = st
        .guard
        .as_ref()
        .map(|_| (st.p.clone(), st.members.clone()))
    else {
        for c in &comps {
            merge_component(st, c);
        }
        return;
    };
    for c in &comps {
        merge_component(st, c);
    }
    if guard_accepts(st) {
        return;
    }
    // Undo the block, then retry each component alone.
    (*st.p, st.members) = snapshot;
    for c in &comps {
        let before = (st.p.clone(), st.members.clone());
        merge_component(st, c);
        if !guard_accepts(st) {
            (*st.p, st.members) = before;
            st.counts.guard_rejections += 1;
        }
    }
}

/// True if the guard is off or finds no new killed variable.
fn guard_accepts(st: &mut State) -> bool {
    match st.guard.as_mut() {
        Some(g) => g.accepts(st.f, st.live, st.p),
        None => true,
    }
}

/// Connected components of the pruned graph (vertex root lists, physical roots first).
fn components(g: &AffinityGraph) -> Vec<Vec<u32>> {
    let mut parent: Vec<usize> = (0..g.verts.len()).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for e in &g.edges {
        let (a, b) = (find(&mut parent, e.x), find(&mut parent, e.y));
        parent[a] = b;
    }
    let mut by_root: HashMap<usize, Vec<u32>> = HashMap::new();
    let mut order: Vec<usize> = Vec::new();
    for v in 0..g.verts.len() {
        let r = find(&mut parent, v);
        if !by_root.contains_key(&r) {
            order.push(r);
        }
        by_root.entry(r).or_default().push(g.verts[v]);
    }
    order
        .into_iter()
        .filter_map(|r| by_root.remove(&r))
        .filter(|c| c.len() > 1)
        .collect()
}

/// Merges one component into its reference resource (the physical one if any).
fn merge_component(st: &mut State, comp: &[u32]) {
    let mut comp: Vec<u32> = comp.iter().map(|&r| st.p.find_root(r)).collect();
    comp.sort_by_key(|&r| st.p.phys(r).is_none());
    let mut cur = comp[0];
    for &r in &comp[1..] {
        let r = st.p.find_root(r);
        if r == cur {
            continue;
        }
        if st.interfere(cur, r) || !st.union(cur, r) {
            st.counts.merge_refused += 1;
            continue;
        }
        st.counts.merged += 1;
        cur = st.p.find_root(cur);
    }
}

/// The "no new repair" guard: the variables the mark phase kills under the input pinning;
/// a merge is kept only if it kills no other variable.
struct Guard {
    killed: Vec<bool>,
    budget: u64,
    cost: u64,
    exhausted: bool,
}

impl Guard {
    fn new(f: &Function, live: &Liveness, input: Pinning) -> Guard {
        let killed = mark(f, live, &input)
            .iter()
            .map(|k| !k.is_empty())
            .collect();
        Guard {
            killed,
            budget: GUARD_BUDGET,
            cost: f.num_insts() as u64 + 1,
            exhausted: false,
        }
    }

    fn accepts(&mut self, f: &Function, live: &Liveness, p: &Pinning) -> bool {
        if self.budget < self.cost {
            self.exhausted = true;
            return true;
        }
        self.budget -= self.cost;
        let kills = mark(f, live, p);
        kills
            .iter()
            .zip(&self.killed)
            .all(|(k, &was)| was || k.is_empty())
    }
}

#[cfg(test)]
mod tests;
