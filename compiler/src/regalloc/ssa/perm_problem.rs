//! The Perm-optimisation problem of Hack, Grund & Goos §5.2 (SSA-MAXIMIZE-FIXED-POINTS),
//! built from a coloured SSA program: the interference graph the colouring of
//! [`super::colour`] respects, the registers each value may take, and the *optimisation
//! units* — a phi or copy result with the arguments that would like its register. The
//! recolouring heuristic of §5.3 ([`super::recolour`]) and the ILP of §5.4
//! ([`super::ilp_coalesce`]) both solve it.
//!
//! **Nodes.** One per value, except that a tied (two-address) definition and its tied use
//! must share a register: they form one node (union-find; the use dies at the definition,
//! so the two never interfere).
//!
//! **Edges** mirror Algorithm 1 exactly as [`super::colour`] runs it, so the colouring it
//! produced is a valid colouring of the graph (checked on construction): a definition
//! interferes with every value live after its instruction and with the instruction's other
//! definitions (dead ones included); a psi's result also with its operands (it is written
//! before they are read); a phi result with the block's live-in values and with the live
//! results of the phis before it (live phi results pairwise). Every edge lies inside one of
//! these *cliques* (the values in registers at one definition point), which the ILP uses as
//! its clique cover.
//!
//! **Allowed registers.** A value pinned to a register anywhere (ABI operands, a reload
//! into an argument register) is *fixed*; a free value may take any register of its
//! class's budget except those the instructions it lives across overwrite (call clobbers,
//! physical-register definitions).
//!
//! **Optimisation units** (§5.3): for each phi, the result and its arguments that do not
//! interfere with it, each weighted `5^depth` of its incoming edge (the loop depth of the
//! loops containing both ends); for each row of a Perm and each copy, the result and its
//! source, weighted `5^depth` of the block. The cost of a colouring is the sum of the
//! weights of the arguments whose register differs from their unit's result (equation 1).
//!
//! Complexity: O(instructions + edges), edges ≤ Σ over definitions of the values live
//! there (the chordal graph's size). A counted cap ([`EDGE_CAP`]) gives up on larger
//! functions (the caller keeps Algorithm 1's colouring).

use super::liveness::Liveness;
use super::{is_call, Budget, RegMask};
use crate::analysis::loops::weight_of_depth;
use crate::mir::cfg::CfgInfo;
use crate::mir::{target, BlockId, Function, Opc, PReg, Pin, Reg, RegClass, VReg};

/// Interference edges beyond which the problem is not built (the colouring stays
/// Algorithm 1's; counted by the callers as `coalesce_capped`).
pub const EDGE_CAP: usize = 4_000_000;

const NONE: u32 = u32::MAX;

/// One node of the interference graph: a value, or a tied definition with its tied uses.
#[derive(Clone, Debug)]
pub struct Node {
    pub class: RegClass,
    /// The register the node must have (pinned somewhere), if any.
    pub fixed: Option<PReg>,
    /// Registers the node may not take (clobbered while it is live).
    pub forbidden: RegMask,
}

/// An optimisation unit: a result and the arguments that want its register.
#[derive(Clone, Debug)]
pub struct Unit {
    pub result: u32,
    /// (node, weight), distinct nodes, none interfering with `result`.
    pub args: Vec<(u32, u64)>,
}

impl Unit {
    pub fn weight(&self) -> u64 {
        self.args
            .iter()
            .fold(0u64, |s, &(_, w)| s.saturating_add(w))
    }
}

/// The problem: nodes, sorted adjacency lists, units, the starting colouring and (when
/// asked for) the definition-point cliques.
#[derive(Clone, Debug, Default)]
pub struct PermProblem {
    pub node_of: Vec<u32>,
    pub nodes: Vec<Node>,
    pub adj: Vec<Vec<u32>>,
    pub units: Vec<Unit>,
    pub colour: Vec<PReg>,
    pub cliques: Vec<Vec<u32>>,
    budget_regs: [Vec<u8>; 4],
}

impl PermProblem {
    /// Builds the problem of `f` (SSA with constraint pins, the input of `ssa-colour`) under
    /// the colouring `colour` (per vreg, from `colour::colour_program`). `None` when the
    /// graph would exceed [`EDGE_CAP`].
    pub fn build(
        f: &Function,
        colour: &[Option<PReg>],
        budget: &Budget,
        with_cliques: bool,
    ) -> Result<Option<PermProblem>, String> {
        let mut b = Builder::new(f, colour, budget, with_cliques);
        if !b.walk()? {
            return Ok(None);
        }
        let mut p = b.finish();
        p.units = units(f, &p);
        p.check_colouring()?;
        Ok(Some(p))
    }

    pub fn interferes(&self, a: u32, b: u32) -> bool {
        self.adj[a as usize].binary_search(&b).is_ok()
    }

    /// Whether node `n` may take register `r`.
    pub fn allowed(&self, n: u32, r: PReg) -> bool {
        let node = &self.nodes[n as usize];
        if let Some(p) = node.fixed {
            return p == r;
        }
        r.class == node.class
            && self.budget_regs[class_slot(r.class)].contains(&r.num)
            && !node.forbidden.has(r)
    }

    /// The registers node `n` may take, in the budget's preference order.
    pub fn allowed_regs(&self, n: u32) -> Vec<PReg> {
        let node = &self.nodes[n as usize];
        if let Some(p) = node.fixed {
            return vec![p];
        }
        self.budget_regs[class_slot(node.class)]
            .iter()
            .map(|&r| PReg::new(node.class, r))
            .filter(|&r| !node.forbidden.has(r))
            .collect()
    }

    /// Equation (1): the summed weight of the unit arguments not in their result's register.
    pub fn cost(&self, colour: &[PReg]) -> u64 {
        self.units
            .iter()
            .flat_map(|u| {
                u.args
                    .iter()
                    .filter(move |&&(a, _)| colour[a as usize] != colour[u.result as usize])
                    .map(|&(_, w)| w)
            })
            .fold(0u64, |s, w| s.saturating_add(w))
    }

    /// A lower bound of [`Self::cost`] over every valid colouring: the affinities whose two
    /// nodes have no allowed register in common (e.g. both fixed, to different registers)
    /// are never satisfied.
    pub fn forced_cost(&self) -> u64 {
        let share = |a: u32, b: u32| self.allowed_regs(a).into_iter().any(|r| self.allowed(b, r));
        self.units
            .iter()
            .flat_map(|u| {
                u.args
                    .iter()
                    .filter(move |&&(a, _)| !share(u.result, a))
                    .map(|&(_, w)| w)
            })
            .fold(0u64, |s, w| s.saturating_add(w))
    }

    /// A colouring is valid when neighbours differ and every node has an allowed register.
    pub fn validate(&self, colour: &[PReg]) -> Result<(), String> {
        for (n, nbrs) in self.adj.iter().enumerate() {
            if !self.allowed(n as u32, colour[n]) {
                return Err(format!(
                    "node {n} got {:?}, which it may not take",
                    colour[n]
                ));
            }
            if let Some(&m) = nbrs.iter().find(|&&m| colour[m as usize] == colour[n]) {
                return Err(format!(
                    "interfering nodes {n} and {m} share {:?}",
                    colour[n]
                ));
            }
        }
        Ok(())
    }

    fn check_colouring(&self) -> Result<(), String> {
        self.validate(&self.colour)
            .map_err(|e| format!("internal: Algorithm 1's colouring breaks the Perm problem: {e}"))
    }

    /// The colouring `colour` (per node) as a colour per vreg, for `colour::apply_colours`.
    pub fn per_vreg(&self, colour: &[PReg]) -> Vec<Option<PReg>> {
        self.node_of
            .iter()
            .map(|&n| (n != NONE).then(|| colour[n as usize]))
            .collect()
    }
}

fn class_slot(c: RegClass) -> usize {
    match c {
        RegClass::R => 0,
        RegClass::B => 1,
        RegClass::P => 2,
        RegClass::G => 3,
    }
}

/// Union-find over vregs, joining tied definitions with their tied uses.
fn tied_groups(f: &Function) -> Vec<u32> {
    let mut parent: Vec<u32> = (0..f.vregs.len() as u32).collect();
    fn find(p: &mut [u32], mut x: u32) -> u32 {
        while p[x as usize] != x {
            p[x as usize] = p[p[x as usize] as usize];
            x = p[x as usize];
        }
        x
    }
    for block in &f.blocks {
        for inst in &block.insts {
            for u in &inst.uses {
                if let (Some(Pin::Var(d)), Some(v)) = (u.pin, u.vreg()) {
                    let (a, b) = (find(&mut parent, d.0), find(&mut parent, v.0));
                    if a != b {
                        parent[a.max(b) as usize] = a.min(b);
                    }
                }
            }
        }
    }
    (0..parent.len() as u32)
        .map(|v| find(&mut parent, v))
        .collect()
}

struct Builder<'a> {
    f: &'a Function,
    info: CfgInfo,
    live: Liveness,
    node_of: Vec<u32>,
    nodes: Vec<Node>,
    colour: Vec<PReg>,
    edges: Vec<(u32, u32)>,
    cliques: Option<Vec<Vec<u32>>>,
    budget_regs: [Vec<u8>; 4],
    clobbers: RegMask,
}

impl<'a> Builder<'a> {
    fn new(
        f: &'a Function,
        colour: &[Option<PReg>],
        budget: &Budget,
        with_cliques: bool,
    ) -> Builder<'a> {
        let groups = tied_groups(f);
        let mut node_of = vec![NONE; f.vregs.len()];
        let mut root_node = vec![NONE; f.vregs.len()];
        let mut nodes = Vec::new();
        let mut node_colour = Vec::new();
        for v in 0..f.vregs.len() {
            let Some(c) = colour.get(v).copied().flatten() else {
                continue;
            };
            let root = groups[v] as usize;
            if root_node[root] == NONE {
                root_node[root] = nodes.len() as u32;
                let fixed = (!budget.contains(c)).then_some(c);
                nodes.push(Node {
                    class: c.class,
                    fixed,
                    forbidden: RegMask::default(),
                });
                node_colour.push(c);
            }
            node_of[v] = root_node[root];
        }
        // Every value with a pinned occurrence keeps its register.
        for block in &f.blocks {
            for inst in &block.insts {
                for o in inst.defs.iter().chain(&inst.uses) {
                    if let (Some(Pin::Phys(_)), Some(v)) = (o.pin, o.vreg()) {
                        let n = node_of[v.index()];
                        if n != NONE {
                            nodes[n as usize].fixed = Some(node_colour[n as usize]);
                        }
                    }
                }
            }
        }
        let mut clobbers = RegMask::default();
        for &r in target::call_clobbers(f.target) {
            clobbers.add(r);
        }
        let preds = f.predecessors();
        Builder {
            f,
            info: CfgInfo::compute(f),
            live: Liveness::compute(f, &preds),
            node_of,
            nodes,
            colour: node_colour,
            edges: Vec::new(),
            cliques: with_cliques.then(Vec::new),
            budget_regs: [RegClass::R, RegClass::B, RegClass::P, RegClass::G]
                .map(|c| budget.regs(c).to_vec()),
            clobbers,
        }
    }

    fn node(&self, v: VReg) -> Option<u32> {
        self.node_of.get(v.index()).copied().filter(|&n| n != NONE)
    }

    /// Records the clique `members` (the values in registers at one definition point): all
    /// pairs become edges. Returns false past the cap.
    fn clique(&mut self, defs: &[u32], others: &[u32]) -> bool {
        for (i, &d) in defs.iter().enumerate() {
            for &o in others.iter().chain(&defs[i + 1..]) {
                if o != d {
                    self.edges.push((d.min(o), d.max(o)));
                }
            }
        }
        if let Some(cl) = &mut self.cliques {
            let mut c: Vec<u32> = defs.iter().chain(others).copied().collect();
            c.sort_unstable();
            c.dedup();
            if c.len() > 1 {
                cl.push(c);
            }
        }
        self.edges.len() <= EDGE_CAP
    }

    /// Walks every reachable block backwards; false when the edge cap was hit.
    fn walk(&mut self) -> Result<bool, String> {
        let order: Vec<BlockId> = self
            .info
            .dom
            .preorder()
            .iter()
            .map(|b| BlockId(b.0))
            .collect();
        let mut live = LiveSet::new(self.nodes.len());
        for b in order {
            live.clear();
            for &v in &self.live.live_out[b.index()] {
                if let Some(n) = self.node(v) {
                    live.insert(n);
                }
            }
            if !self.walk_block(b, &mut live)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn walk_block(&mut self, b: BlockId, live: &mut LiveSet) -> Result<bool, String> {
        let f = self.f;
        let block = f.block(b);
        let mut defs: Vec<u32> = Vec::new();
        let mut others: Vec<u32> = Vec::new();
        for inst in block.insts.iter().rev() {
            if inst.is_phi() {
                continue;
            }
            defs.clear();
            defs.extend(inst.def_vregs().filter_map(|v| self.node(v)));
            defs.sort_unstable();
            defs.dedup();
            others.clear();
            others.extend(live.items().iter().filter(|n| !defs.contains(n)));
            self.forbid_across(inst, &others);
            if inst.opc == Opc::Psi {
                // Written before the later operands are read.
                for u in inst.use_vregs().filter_map(|v| self.node(v)) {
                    if !defs.contains(&u) && !others.contains(&u) {
                        others.push(u);
                    }
                }
            }
            if !defs.is_empty() && !self.clique(&defs.clone(), &others.clone()) {
                return Ok(false);
            }
            for d in &defs {
                live.remove(*d);
            }
            for u in inst.use_vregs().filter_map(|v| self.node(v)) {
                live.insert(u);
            }
        }
        self.phi_cliques(b, live)
    }

    /// Values live across `inst` may not take what it overwrites.
    fn forbid_across(&mut self, inst: &crate::mir::Inst, across: &[u32]) {
        let mut m = RegMask::default();
        if is_call(inst) {
            m = self.clobbers;
        }
        for o in &inst.defs {
            if let Reg::P(p) = o.reg {
                m.add(p);
            }
        }
        if m == RegMask::default() {
            return;
        }
        for &n in across {
            self.nodes[n as usize].forbidden.union(&m);
        }
    }

    /// The phis of `b`: results are defined at the entry with the live-in values in
    /// registers; a dead result is freed at once, so later results may take its register.
    fn phi_cliques(&mut self, b: BlockId, live: &LiveSet) -> Result<bool, String> {
        let f = self.f;
        let live_in: Vec<u32> = self.live.live_in[b.index()]
            .iter()
            .filter_map(|&v| self.node(v))
            .collect();
        let mut held: Vec<u32> = live_in;
        for inst in f.block(b).insts.iter().take_while(|i| i.is_phi()) {
            let Some(r) = inst.def_vregs().next().and_then(|v| self.node(v)) else {
                continue;
            };
            if !self.clique(&[r], &held.clone()) {
                return Ok(false);
            }
            // `live` now holds the values live after the phis.
            if live.contains(r) {
                held.push(r);
            }
        }
        Ok(true)
    }

    fn finish(mut self) -> PermProblem {
        self.edges.sort_unstable();
        self.edges.dedup();
        let mut adj = vec![Vec::new(); self.nodes.len()];
        for &(a, b) in &self.edges {
            adj[a as usize].push(b);
            adj[b as usize].push(a);
        }
        for l in &mut adj {
            l.sort_unstable();
        }
        let mut cliques = self.cliques.take().unwrap_or_default();
        cliques.sort_unstable();
        cliques.dedup();
        PermProblem {
            node_of: self.node_of,
            nodes: self.nodes,
            adj,
            units: Vec::new(),
            colour: self.colour,
            cliques,
            budget_regs: self.budget_regs,
        }
    }
}

/// A set of nodes with O(1) insert/remove and a dense list of members.
struct LiveSet {
    pos: Vec<u32>,
    items: Vec<u32>,
}

impl LiveSet {
    fn new(n: usize) -> LiveSet {
        LiveSet {
            pos: vec![NONE; n],
            items: Vec::new(),
        }
    }
    fn clear(&mut self) {
        for &i in &self.items {
            self.pos[i as usize] = NONE;
        }
        self.items.clear();
    }
    fn insert(&mut self, n: u32) {
        if self.pos[n as usize] == NONE {
            self.pos[n as usize] = self.items.len() as u32;
            self.items.push(n);
        }
    }
    fn remove(&mut self, n: u32) {
        let p = self.pos[n as usize];
        if p == NONE {
            return;
        }
        let last = *self.items.last().unwrap();
        self.items.swap_remove(p as usize);
        if last != n {
            self.pos[last as usize] = p;
        }
        self.pos[n as usize] = NONE;
    }
    fn contains(&self, n: u32) -> bool {
        self.pos[n as usize] != NONE
    }
    fn items(&self) -> &[u32] {
        &self.items
    }
}

/// The optimisation units of §5.3 (phis, Perm rows, copies), heaviest first.
fn units(f: &Function, p: &PermProblem) -> Vec<Unit> {
    let info = CfgInfo::compute(f);
    let node = |v: VReg| p.node_of.get(v.index()).copied().filter(|&n| n != NONE);
    let mut out: Vec<Unit> = Vec::new();
    let push = |result: u32, arg: u32, w: u64, out: &mut Vec<Unit>, new_unit: bool| {
        if new_unit {
            out.push(Unit {
                result,
                args: Vec::new(),
            });
        }
        if arg == result || p.interferes(result, arg) {
            return;
        }
        let u = out.last_mut().unwrap();
        match u.args.iter_mut().find(|(a, _)| *a == arg) {
            Some((_, old)) => *old = old.saturating_add(w),
            None => u.args.push((arg, w)),
        }
    };
    for b in f.block_ids() {
        let depth_b = info.loop_depth(b);
        for inst in &f.block(b).insts {
            match inst.opc {
                Opc::Phi => {
                    let Some(r) = inst.def_vregs().next().and_then(node) else {
                        continue;
                    };
                    out.push(Unit {
                        result: r,
                        args: Vec::new(),
                    });
                    for (o, &pred) in inst.uses.iter().zip(inst.phi_blocks()) {
                        let Some(a) = o.vreg().and_then(node) else {
                            continue;
                        };
                        let w = weight_of_depth(depth_b.min(info.loop_depth(pred)));
                        push(r, a, w, &mut out, false);
                    }
                }
                Opc::ParCopy | Opc::Copy => {
                    let w = weight_of_depth(depth_b);
                    for (d, u) in inst.defs.iter().zip(&inst.uses) {
                        if let (Some(d), Some(u)) =
                            (d.vreg().and_then(node), u.vreg().and_then(node))
                        {
                            push(d, u, w, &mut out, true);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out.retain(|u| !u.args.is_empty());
    // Heaviest first; the sort is stable, so ties keep program order.
    out.sort_by_key(|u| std::cmp::Reverse(u.weight()));
    out
}
