//! Parallel-copy elimination on data-dependence graphs: Brandner & Colombet, "Parallel Copy
//! Elimination on Data Dependence Graphs" (INRIA RR-7735, 2011), §3, pass `ddg`.
//!
//! Per basic block, after allocation (`Form::Allocated`, parallel copies still whole), a DDG
//! (Definition 1) is built ([`Ddg::build`]): one node per instruction, register-labelled
//! true, anti and output edges, `Other` edges for memory order (every memory access after
//! the previous one) and for barriers (calls, control, pseudo operations, `TRAP`, the
//! copies lowered from a psi: nothing crosses them), and an artificial **exit** node that
//! reads every register live out of the block (§3.2: uses outside the DDG are not movable).
//! Each parallel copy is decomposed (Definition 2 and the remark after it) into its
//! connected components, each a **regular** copy (a chain `a1 → d1 → … → dn`, stored in
//! chain order so that `d_i = a_(i+1)`) or a **cyclic** one; a component duplicating a value
//! stays a plain, immovable node.
//!
//! Transformations, tried for every copy node until none applies or the step threshold
//! [`MAX_STEPS`] is reached (§3.4):
//! * [`Ddg::def_motion_down`] — Algorithm 1: the only use of the definition `def` of `r` is
//!   the copy; [`Ddg::exists_path_from_def`] (Algorithms 2 and 4) rejects the motion when it
//!   would close a cycle; `def` is renamed to write `u = ResultOfArgument(copy, r)`, the copy
//!   split by [`Ddg::split`] (`SplitAtArgument`, cyclic copies: one non-empty regular piece),
//!   and the edges updated by [`Ddg::update_def_dependencies`] (Algorithms 3 and 5);
//! * [`Ddg::use_motion_up`] — Algorithm 6: every use of the copy's result `r` is movable;
//!   [`Ddg::exists_path_to_uses`] (Algorithms 7 and 9) checks, the uses are renamed to read
//!   `u = ArgumentOfResult(copy, r)`, the copy split (`SplitAtResult`), the edges updated by
//!   [`Ddg::update_use_dependencies`] (Algorithm 8).
//!
//! The instructions are then re-emitted in a topological order of the updated graph (Kahn's
//! algorithm, ties broken by the old position), empty copies dropped. §3.3 (registers that
//! cannot be renamed): only instructions [`super::renamable`] accepts are renamed, never to
//! an ABI register, never a guarded (conditional) definition.
//!
//! Checking: the figures' arrow kinds did not survive in our copy of the paper's algorithm
//! listings, so each update is our reading of the text. Every step is therefore validated
//! before it is kept: the block before and after is executed symbolically
//! ([`same_effect`]: value numbers for registers, one token threading the memory and barrier
//! operations) and must leave the same values in every live-out register and the same
//! token; a step whose graph has a cycle or whose order fails that comparison is undone and
//! counted (`rejected`). The value-flow checker checks the whole function afterwards.
//!
//! Complexity: building a block's graph is O(n · r); each attempt is a graph search
//! O(n + e); each successful step removes one copy component pair, so the attempts per
//! block are at most (pairs + 1) × pairs, capped by [`MAX_ATTEMPTS`] (counted in
//! `attempts_capped`).

use super::{count_copies, is_abi_register, live_in_out, renamable, Regs};
use crate::mir::{target, Control, Function, Inst, InstFlags, Opc, Operand, PReg, Pin, Reg};
use crate::pipeline::PassDetail;
use crate::regalloc::checker::value_flow::is_pure;
use simulator::isa::Target;
use std::collections::{BTreeSet, BinaryHeap, HashMap, HashSet};

/// At most this many successful transformations per block (the paper's threshold).
pub const MAX_STEPS: usize = 256;
/// At most this many transformation attempts per block.
pub const MAX_ATTEMPTS: usize = 4096;

/// A dependence label (Definition 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Label {
    True(PReg),
    Anti(PReg),
    Output(PReg),
    Other,
}

/// What a DDG node is (also what `viz` draws it as).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A pure instruction: may move and be renamed (if `renamable`).
    Plain,
    /// A memory access: ordered after the previous one.
    Memory,
    /// Nothing crosses it.
    Barrier,
    /// A regular or cyclic parallel copy, pairs in chain order.
    Copy { cyclic: bool },
    /// A parallel copy that duplicates a value: not a motion candidate.
    OtherCopy,
    /// The artificial node reading the registers live out of the block.
    Exit,
}

#[derive(Clone, Debug)]
struct Node {
    inst: Inst,
    kind: Kind,
    /// Tie-breaking priority of the topological order (old position, sub-position).
    pos: (usize, usize),
}

#[derive(Clone, Debug)]
struct Edge {
    from: usize,
    to: usize,
    label: Label,
    alive: bool,
}

/// The DDG of one block.
#[derive(Clone, Debug)]
pub struct Ddg {
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    out: Vec<Vec<usize>>,
    inn: Vec<Vec<usize>>,
    target: Target,
    /// `mark-pinned` ran: `PINNED` flags the instructions that must keep their registers.
    marked: bool,
}

fn kind_of(inst: &Inst) -> Kind {
    if inst.opc == Opc::ParCopy {
        return Kind::OtherCopy; // refined by the decomposition
    }
    if inst.opc == Opc::Copy && !inst.flags.contains(InstFlags::INSERTED) {
        return Kind::Barrier; // a psi's lowering: the checker wants the run whole
    }
    if inst.control() != Control::None || inst.opc.is_pseudo() && inst.opc != Opc::Copy {
        return Kind::Barrier;
    }
    if inst.opc == Opc::St120(simulator::isa::st120::Opcode::Trap) {
        return Kind::Barrier;
    }
    if is_pure(inst) {
        Kind::Plain
    } else {
        Kind::Memory
    }
}

/// Registers read by a node (a guarded definition also reads its old value).
fn reads(n: &Node) -> Vec<PReg> {
    let mut v: Vec<PReg> = n.inst.uses.iter().filter_map(|o| o.reg.preg()).collect();
    if n.inst.flags.contains(InstFlags::GUARDED) {
        v.extend(n.inst.defs.iter().filter_map(|o| o.reg.preg()));
    }
    v
}

/// Registers written by a node (a call also writes its clobbers).
fn writes(t: Target, n: &Node) -> Vec<PReg> {
    let mut v: Vec<PReg> = n.inst.defs.iter().filter_map(|o| o.reg.preg()).collect();
    if n.inst.control() == Control::Call {
        v.extend(target::call_clobbers(t).iter().copied());
    }
    v
}

/// Splits a parallel copy into its components, each in chain order: `(pairs, cyclic)`;
/// `None` when a source is read twice (a duplication).
fn components(inst: &Inst) -> Option<Vec<Component>> {
    let mut pairs: Vec<(PReg, PReg)> = Vec::new();
    for (d, s) in inst.defs.iter().zip(&inst.uses) {
        let (Some(d), Some(s)) = (d.reg.preg(), s.reg.preg()) else {
            return None;
        };
        if d != s {
            pairs.push((d, s));
        }
    }
    let mut by_src: HashMap<PReg, PReg> = HashMap::new();
    let dsts: HashSet<PReg> = pairs.iter().map(|p| p.0).collect();
    if dsts.len() != pairs.len() {
        return None;
    }
    for &(d, s) in &pairs {
        if by_src.insert(s, d).is_some() {
            return None;
        }
    }
    let mut done: HashSet<PReg> = HashSet::new();
    let mut out = Vec::new();
    // Chains start at a source that is no destination.
    for &(_, s) in &pairs {
        if dsts.contains(&s) {
            continue;
        }
        let mut chain = Vec::new();
        let mut cur = s;
        while let Some(&d) = by_src.get(&cur) {
            chain.push((d, cur));
            done.insert(cur);
            cur = d;
        }
        out.push((chain, false));
    }
    // What remains are cycles.
    for &(_, s) in &pairs {
        if done.contains(&s) {
            continue;
        }
        let mut cycle = Vec::new();
        let mut cur = s;
        while !done.contains(&cur) {
            let d = by_src[&cur];
            cycle.push((d, cur));
            done.insert(cur);
            cur = d;
        }
        out.push((cycle, true));
    }
    Some(out)
}

/// A connected component of a parallel copy: its `(destination, source)` pairs in chain
/// order, and whether it is cyclic.
type Component = (Vec<(PReg, PReg)>, bool);

fn copy_inst(pairs: &[(PReg, PReg)], flags: InstFlags) -> Inst {
    let mut i = Inst::par_copy(
        pairs
            .iter()
            .map(|&(d, s)| (Operand::new(d), Operand::new(s)))
            .collect(),
    );
    i.flags |= flags;
    i
}

fn pairs_of(inst: &Inst) -> Vec<(PReg, PReg)> {
    inst.defs
        .iter()
        .zip(&inst.uses)
        .filter_map(|(d, s)| Some((d.reg.preg()?, s.reg.preg()?)))
        .collect()
}

impl Ddg {
    /// The DDG of `insts` (one block) whose live-out registers are `live_out`.
    pub fn build(t: Target, marked: bool, insts: Vec<Inst>, live_out: &Regs) -> Ddg {
        let mut nodes: Vec<Node> = Vec::new();
        for (k, inst) in insts.into_iter().enumerate() {
            if inst.opc == Opc::ParCopy {
                if let Some(comps) = components(&inst) {
                    for (j, (pairs, cyclic)) in comps.into_iter().enumerate() {
                        nodes.push(Node {
                            inst: copy_inst(&pairs, inst.flags),
                            kind: Kind::Copy { cyclic },
                            pos: (k, j),
                        });
                    }
                    continue;
                }
            }
            let kind = kind_of(&inst);
            nodes.push(Node {
                inst,
                kind,
                pos: (k, 0),
            });
        }
        let mut exit = Inst::new(Opc::Output, vec![], vec![], crate::mir::Imm::None);
        exit.uses = live_out.iter().map(Operand::new).collect();
        nodes.push(Node {
            inst: exit,
            kind: Kind::Exit,
            pos: (usize::MAX, 0),
        });
        Ddg::from_nodes(t, marked, nodes)
    }

    /// The DDG of `nodes` in this order.
    fn from_nodes(t: Target, marked: bool, nodes: Vec<Node>) -> Ddg {
        let n = nodes.len();
        let mut g = Ddg {
            nodes,
            edges: Vec::new(),
            out: vec![Vec::new(); n],
            inn: vec![Vec::new(); n],
            target: t,
            marked,
        };
        let mut last_def: HashMap<PReg, usize> = HashMap::new();
        let mut readers: HashMap<PReg, Vec<usize>> = HashMap::new();
        let mut last_barrier: Option<usize> = None;
        let mut since_barrier: Vec<usize> = Vec::new();
        let mut last_mem: Option<usize> = None;
        // Instructions of the same operation and immediate keep their order: the
        // value-flow checker matches reordered instructions to the input's by shape, in
        // order, and two `MAKE #0` swapped would name the wrong values.
        let mut last_same: HashMap<(Opc, crate::mir::Imm), usize> = HashMap::new();
        for k in 0..n {
            let node = g.nodes[k].clone();
            if matches!(node.kind, Kind::Plain | Kind::Memory) {
                let key = (node.inst.opc, node.inst.imm.clone());
                if let Some(p) = last_same.insert(key, k) {
                    g.add(p, k, Label::Other);
                }
            }
            for r in reads(&node) {
                if let Some(&d) = last_def.get(&r) {
                    g.add(d, k, Label::True(r));
                }
                readers.entry(r).or_default().push(k);
            }
            for r in writes(t, &node) {
                for u in readers.remove(&r).unwrap_or_default() {
                    if u != k {
                        g.add(u, k, Label::Anti(r));
                    }
                }
                if let Some(&d) = last_def.get(&r) {
                    if d != k {
                        g.add(d, k, Label::Output(r));
                    }
                }
                last_def.insert(r, k);
            }
            match node.kind {
                Kind::Barrier | Kind::Exit => {
                    for &p in &since_barrier {
                        g.add(p, k, Label::Other);
                    }
                    if let Some(b) = last_barrier {
                        g.add(b, k, Label::Other);
                    }
                    since_barrier.clear();
                    last_barrier = Some(k);
                    last_mem = Some(k);
                }
                _ => {
                    if let Some(b) = last_barrier {
                        g.add(b, k, Label::Other);
                    }
                    since_barrier.push(k);
                    if node.kind == Kind::Memory {
                        if let Some(m) = last_mem {
                            g.add(m, k, Label::Other);
                        }
                        last_mem = Some(k);
                    }
                }
            }
        }
        g
    }

    fn add(&mut self, from: usize, to: usize, label: Label) {
        if from == to || self.has(from, to, label) {
            return;
        }
        let e = self.edges.len();
        self.edges.push(Edge {
            from,
            to,
            label,
            alive: true,
        });
        self.out[from].push(e);
        self.inn[to].push(e);
    }

    fn has(&self, from: usize, to: usize, label: Label) -> bool {
        self.out[from].iter().any(|&e| {
            let e = &self.edges[e];
            e.alive && e.to == to && e.label == label
        })
    }

    fn remove_where(&mut self, pred: impl Fn(&Edge) -> bool) {
        for e in self.edges.iter_mut() {
            if e.alive && pred(e) {
                e.alive = false;
            }
        }
    }

    /// Redirects the edges matching `pred` to `(from, to)` computed from the old edge.
    fn redirect(&mut self, pred: impl Fn(&Edge) -> bool, to: impl Fn(&Edge) -> (usize, usize)) {
        let moved: Vec<Edge> = self
            .edges
            .iter()
            .filter(|e| e.alive && pred(e))
            .cloned()
            .collect();
        self.remove_where(&pred);
        for e in moved {
            let (a, b) = to(&e);
            self.add(a, b, e.label);
        }
    }

    fn in_edges(&self, n: usize) -> Vec<Edge> {
        self.inn[n]
            .iter()
            .map(|&e| self.edges[e].clone())
            .filter(|e| e.alive)
            .collect()
    }

    fn out_edges(&self, n: usize) -> Vec<Edge> {
        self.out[n]
            .iter()
            .map(|&e| self.edges[e].clone())
            .filter(|e| e.alive)
            .collect()
    }

    /// Nodes reachable from `start` (itself included).
    fn reachable_from(&self, start: &[usize]) -> Vec<bool> {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack: Vec<usize> = start.to_vec();
        for &s in start {
            seen[s] = true;
        }
        while let Some(n) = stack.pop() {
            for &e in &self.out[n] {
                let e = &self.edges[e];
                if e.alive && !seen[e.to] {
                    seen[e.to] = true;
                    stack.push(e.to);
                }
            }
        }
        seen
    }

    /// Nodes from which one of `targets` is reachable (themselves included).
    fn reaching(&self, targets: &[usize]) -> Vec<bool> {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack: Vec<usize> = targets.to_vec();
        for &s in targets {
            seen[s] = true;
        }
        while let Some(n) = stack.pop() {
            for &e in &self.inn[n] {
                let e = &self.edges[e];
                if e.alive && !seen[e.from] {
                    seen[e.from] = true;
                    stack.push(e.from);
                }
            }
        }
        seen
    }

    fn pairs(&self, c: usize) -> Vec<(PReg, PReg)> {
        pairs_of(&self.nodes[c].inst)
    }

    fn is_cyclic(&self, c: usize) -> bool {
        matches!(self.nodes[c].kind, Kind::Copy { cyclic: true })
    }

    /// `ArgIndex` (0-based).
    fn arg_index(&self, c: usize, r: PReg) -> Option<usize> {
        self.pairs(c).iter().position(|p| p.1 == r)
    }

    /// `ResIndex` (0-based).
    fn res_index(&self, c: usize, r: PReg) -> Option<usize> {
        self.pairs(c).iter().position(|p| p.0 == r)
    }

    /// Whether `n` may be renamed (§3.3).
    fn movable(&self, n: usize) -> bool {
        let node = &self.nodes[n];
        node.kind == Kind::Plain
            && renamable(self.target, &node.inst, self.marked)
            && !node.inst.flags.contains(InstFlags::GUARDED)
            // A tied operand shares one register field with its definition: renaming only
            // the definition or only the use would untie them.
            && !node.inst.uses.iter().any(|o| matches!(o.pin, Some(Pin::Var(_))))
    }

    /// `ExistsPathFromDef`, Algorithms 2 (regular) and 4 (cyclic).
    pub fn exists_path_from_def(&self, def: usize, r: PReg, copy: usize) -> bool {
        let from_def = self.reachable_from(&[def]);
        let Some(i) = self.arg_index(copy, r) else {
            return true;
        };
        let cyclic = self.is_cyclic(copy);
        let u = self.pairs(copy)[i].0;
        for e in self.in_edges(copy) {
            if !from_def[e.from] {
                continue;
            }
            let direct = e.from == def;
            // def reads u, which the removed pair `u := r` wrote: Algorithm 3 line 5 drops
            // that anti dependence (the pieces no longer write u), so it closes no cycle.
            if direct && e.label == Label::Anti(u) {
                continue;
            }
            if cyclic {
                if !(direct && matches!(e.label, Label::True(x) | Label::Output(x) if x == r)) {
                    return true;
                }
                continue;
            }
            match e.label {
                Label::True(x) | Label::Output(x) | Label::Anti(x) if direct && x == r => {}
                Label::Anti(rd) | Label::Output(rd) => match self.res_index(copy, rd) {
                    Some(j) if i > j => {}
                    _ => return true,
                },
                Label::True(ru) => match self.arg_index(copy, ru) {
                    Some(k) if i >= k => {}
                    _ => return true,
                },
                Label::Other => return true,
            }
        }
        false
    }

    /// `ExistsPathToUses`, Algorithms 7 (regular) and 9 (cyclic).
    pub fn exists_path_to_uses(&self, uses: &[usize], r: PReg, copy: usize) -> bool {
        let to_uses = self.reaching(uses);
        let Some(j) = self.res_index(copy, r) else {
            return true;
        };
        let cyclic = self.is_cyclic(copy);
        for e in self.out_edges(copy) {
            if !to_uses[e.to] {
                continue;
            }
            let direct = uses.contains(&e.to);
            if cyclic {
                if e.label != Label::True(r) {
                    return true;
                }
                continue;
            }
            match e.label {
                Label::True(x) | Label::Output(x) | Label::Anti(x) if direct && x == r => {}
                Label::True(rd) | Label::Output(rd) => match self.res_index(copy, rd) {
                    Some(k) if k > j => {}
                    _ => return true,
                },
                Label::Anti(ru) => match self.arg_index(copy, ru) {
                    Some(k) if k > j => {}
                    _ => return true,
                },
                Label::Other => return true,
            }
        }
        false
    }

    /// `SplitAtArgument` / `SplitAtResult`: removes pair `i` of copy `c`; returns the new
    /// nodes `(lcopy, rcopy)`. A regular copy gives pairs `..i` and `i+1..`; a cyclic one
    /// gives one regular piece (pairs `i+1..` then `..i`), the right piece when
    /// `nonempty_right`, else the left. Each piece inherits the old node's edges that carry
    /// one of its registers, `Other` edges go to both; an edge on a register of the removed
    /// pair that neither piece holds goes to the right piece for its destination, to the
    /// left for its source (§3.2: `rcopy` inherits the original register, `lcopy` the new).
    fn split(&mut self, c: usize, i: usize, nonempty_right: bool) -> (usize, usize) {
        let pairs = self.pairs(c);
        let cyclic = self.is_cyclic(c);
        let (left, right): (Vec<_>, Vec<_>) = if cyclic {
            let mut piece: Vec<(PReg, PReg)> = pairs[i + 1..].to_vec();
            piece.extend_from_slice(&pairs[..i]);
            if nonempty_right {
                (Vec::new(), piece)
            } else {
                (piece, Vec::new())
            }
        } else {
            (pairs[..i].to_vec(), pairs[i + 1..].to_vec())
        };
        let flags = self.nodes[c].inst.flags;
        let pos = self.nodes[c].pos;
        let mk = |p: &[(PReg, PReg)], sub: usize| Node {
            inst: copy_inst(p, flags),
            kind: Kind::Copy { cyclic: false },
            pos: (pos.0, pos.1 * 2 + sub),
        };
        let l = self.push_node(mk(&left, 0));
        let rr = self.push_node(mk(&right, 1));
        let regs =
            |p: &[(PReg, PReg)]| -> HashSet<PReg> { p.iter().flat_map(|&(d, s)| [d, s]).collect() };
        let (lr, rrg) = (regs(&left), regs(&right));
        let removed = pairs[i];
        for e in self.in_edges(c).into_iter().chain(self.out_edges(c)) {
            let targets: Vec<usize> = match e.label {
                Label::Other => vec![l, rr],
                Label::True(x) | Label::Anti(x) | Label::Output(x) => {
                    let mut v = Vec::new();
                    if lr.contains(&x) {
                        v.push(l);
                    }
                    if rrg.contains(&x) {
                        v.push(rr);
                    }
                    if v.is_empty() && (x == removed.0 || x == removed.1) {
                        // The removed pair's destination goes with the right piece, its
                        // source with the left one (the non-empty piece if one is empty).
                        let want_left = x == removed.1 && x != removed.0;
                        let side = match (want_left, left.is_empty(), right.is_empty()) {
                            (true, false, _) | (false, false, true) => l,
                            _ => rr,
                        };
                        v.push(side);
                    }
                    v
                }
            };
            for t in targets {
                if e.to == c {
                    self.add(e.from, t, e.label);
                } else {
                    self.add(t, e.to, e.label);
                }
            }
        }
        self.remove_where(|e| e.from == c || e.to == c);
        self.nodes[c].inst = copy_inst(&[], flags);
        (l, rr)
    }

    fn push_node(&mut self, n: Node) -> usize {
        self.nodes.push(n);
        self.out.push(Vec::new());
        self.inn.push(Vec::new());
        self.nodes.len() - 1
    }

    /// `DefMotionDown`, Algorithm 1: moves the definition of argument `r` of `copy` below
    /// it. Returns whether the graph changed.
    pub fn def_motion_down(&mut self, copy: usize, r: PReg) -> bool {
        let defs: Vec<usize> = self
            .in_edges(copy)
            .iter()
            .filter(|e| e.label == Label::True(r))
            .map(|e| e.from)
            .collect();
        let [def] = defs.as_slice() else { return false };
        let def = *def;
        if !self.movable(def)
            || self.nodes[def]
                .inst
                .defs
                .iter()
                .filter(|o| o.reg == Reg::P(r))
                .count()
                != 1
        {
            return false;
        }
        // Lines 1-4: no other use of r than the copy.
        let uses: Vec<usize> = self
            .out_edges(def)
            .iter()
            .filter(|e| e.label == Label::True(r))
            .map(|e| e.to)
            .collect();
        if uses.iter().any(|&u| u != copy) || uses.is_empty() {
            return false;
        }
        let Some(i) = self.arg_index(copy, r) else {
            return false;
        };
        let u = self.pairs(copy)[i].0;
        if (!self.marked && is_abi_register(self.target, u))
            || self.exists_path_from_def(def, r, copy)
        {
            return false;
        }
        let cyclic = self.is_cyclic(copy);
        // RenameResult.
        for o in self.nodes[def].inst.defs.iter_mut() {
            if o.reg == Reg::P(r) {
                o.reg = Reg::P(u);
                if let Some(Pin::Phys(_)) = o.pin {
                    o.pin = Some(Pin::Phys(u));
                }
            }
        }
        let (l, rc) = self.split(copy, i, true);
        self.update_def_dependencies(def, r, u, l, rc, cyclic);
        true
    }

    /// `UpdateDefDependencies`, Algorithms 3 and 5.
    fn update_def_dependencies(
        &mut self,
        def: usize,
        r: PReg,
        u: PReg,
        l: usize,
        rc: usize,
        cyclic: bool,
    ) {
        // The piece that still writes r: the left one of a regular copy, the right one
        // of a cyclic copy (Algorithm 5).
        let writer_of_r = if cyclic { rc } else { l };
        // Line 2: def writes u after the right piece reads it.
        self.add(rc, def, Label::Anti(u));
        // Line 4: true and output dependencies of def on r into the copy are resolved.
        self.remove_where(|e| {
            e.from == def
                && (e.to == l || e.to == rc)
                && matches!(e.label, Label::True(x) | Label::Output(x) if x == r)
        });
        // Line 5: def's read of u (if any) no longer orders it before the copy.
        self.remove_where(|e| e.from == def && e.to == rc && e.label == Label::Anti(u));
        // Line 6: the right piece no longer orders the later writers of u itself.
        let reads_u = self.nodes[def].inst.uses.iter().any(|o| o.reg == Reg::P(u));
        // Line 8: ordering against the write of r moves to the piece writing r.
        self.redirect(
            |e| e.to == def && matches!(e.label, Label::Output(x) | Label::Anti(x) if x == r),
            |e| (e.from, writer_of_r),
        );
        // Line 12: readers and writers of u after the copy now follow def.
        self.redirect(
            |e| e.from == rc && matches!(e.label, Label::True(x) | Label::Output(x) if x == u),
            |e| (def, e.to),
        );
        // Line 16: readers and writers of u before the copy now precede def.
        self.redirect(
            |e| {
                e.to == rc
                    && e.from != def
                    && matches!(e.label, Label::Output(x) | Label::Anti(x) if x == u)
            },
            |e| (e.from, def),
        );
        // Line 20: def reads and writes u: its anti dependencies on u become output ones.
        if reads_u {
            let anti: Vec<usize> = self
                .out_edges(def)
                .iter()
                .filter(|e| e.label == Label::Anti(u))
                .map(|e| e.to)
                .collect();
            for n in anti {
                self.add(def, n, Label::Output(u));
            }
        }
    }

    /// `UseMotionUp`, Algorithm 6: moves every use of the copy's result `r` above it.
    pub fn use_motion_up(&mut self, copy: usize, r: PReg) -> bool {
        let all_uses: Vec<usize> = self
            .out_edges(copy)
            .iter()
            .filter(|e| e.label == Label::True(r))
            .map(|e| e.to)
            .collect();
        if all_uses.iter().any(|&n| !self.movable(n)) {
            return false;
        }
        let Some(j) = self.res_index(copy, r) else {
            return false;
        };
        let u = self.pairs(copy)[j].1;
        if (!self.marked && is_abi_register(self.target, u))
            || self.exists_path_to_uses(&all_uses, r, copy)
        {
            return false;
        }
        // A use that also writes r keeps writing r; only its reads are renamed.
        for &n in &all_uses {
            for o in self.nodes[n].inst.uses.iter_mut() {
                if o.reg == Reg::P(r) {
                    o.reg = Reg::P(u);
                    if let Some(Pin::Phys(_)) = o.pin {
                        o.pin = Some(Pin::Phys(u));
                    }
                }
            }
        }
        let (l, rc) = self.split(copy, j, false);
        self.update_use_dependencies(&all_uses, r, u, l, rc);
        true
    }

    /// `UpdateUseDependencies`, Algorithm 8.
    fn update_use_dependencies(&mut self, uses: &[usize], r: PReg, u: PReg, l: usize, rc: usize) {
        // Lines 2-5: the right piece no longer writes r.
        let preds: Vec<usize> = self
            .in_edges(rc)
            .iter()
            .filter(|e| e.label == Label::Output(r))
            .map(|e| e.from)
            .collect();
        let succs: Vec<usize> = self
            .out_edges(rc)
            .iter()
            .filter(|e| e.label == Label::Output(r))
            .map(|e| e.to)
            .collect();
        for &a in &preds {
            for &b in &succs {
                self.add(a, b, Label::Output(r));
            }
        }
        // Readers of r after the copy that are not among the uses read the old
        // definition now: order them after it as a true dependence would.
        self.remove_where(|e| (e.from == rc || e.to == rc) && e.label == Label::Output(r));
        // Lines 7-8: the uses no longer read r.
        self.remove_where(|e| {
            e.from == rc
                && uses.contains(&e.to)
                && matches!(e.label, Label::True(x) | Label::Output(x) if x == r)
        });
        self.remove_where(|e| uses.contains(&e.from) && e.label == Label::Anti(r));
        // Lines 10-15: anti dependencies on u.
        let l_empty = self.pairs(l).is_empty();
        if !l_empty {
            for &n in uses {
                self.add(n, l, Label::Anti(u));
            }
            self.remove_where(|e| e.from == l && uses.contains(&e.to) && matches!(e.label, Label::Anti(x) | Label::Output(x) | Label::True(x) if x == u));
        } else {
            let later: Vec<usize> = self
                .out_edges(l)
                .iter()
                .filter(|e| e.label == Label::Output(u))
                .map(|e| e.to)
                .collect();
            for n1 in later {
                for &n2 in uses {
                    self.add(n2, n1, Label::Anti(u));
                }
            }
            self.remove_where(|e| e.from == l && e.label == Label::Output(u));
        }
        // Lines 17-19: the definition of u reaches the uses.
        let defs: Vec<usize> = self
            .in_edges(l)
            .iter()
            .filter(|e| e.label == Label::True(u))
            .map(|e| e.from)
            .collect();
        for n1 in defs {
            for &n2 in uses {
                self.add(n1, n2, Label::True(u));
            }
            self.remove_where(|e| e.from == n1 && e.to == l && e.label == Label::True(u));
        }
    }

    /// A topological order of the live nodes (Kahn, ties by old position); `None` on a
    /// cycle.
    fn topological_order(&self) -> Option<Vec<usize>> {
        let n = self.nodes.len();
        let mut indeg = vec![0usize; n];
        for e in self.edges.iter().filter(|e| e.alive) {
            indeg[e.to] += 1;
        }
        let mut heap: BinaryHeap<std::cmp::Reverse<((usize, usize), usize)>> = BinaryHeap::new();
        for (k, d) in indeg.iter().enumerate() {
            if *d == 0 {
                heap.push(std::cmp::Reverse((self.nodes[k].pos, k)));
            }
        }
        let mut order = Vec::with_capacity(n);
        while let Some(std::cmp::Reverse((_, k))) = heap.pop() {
            order.push(k);
            for &e in &self.out[k] {
                let e = &self.edges[e];
                if !e.alive {
                    continue;
                }
                indeg[e.to] -= 1;
                if indeg[e.to] == 0 {
                    heap.push(std::cmp::Reverse((self.nodes[e.to].pos, e.to)));
                }
            }
        }
        (order.len() == n).then_some(order)
    }

    /// The nodes in `order`, renumbered by position, empty copies dropped, the exit last.
    fn reordered(&self, order: &[usize]) -> Vec<Node> {
        order
            .iter()
            .map(|&k| &self.nodes[k])
            .filter(|n| !(matches!(n.kind, Kind::Copy { .. }) && n.inst.defs.is_empty()))
            .enumerate()
            .map(|(p, n)| Node {
                inst: n.inst.clone(),
                kind: n.kind,
                pos: if n.kind == Kind::Exit {
                    (usize::MAX, 0)
                } else {
                    (p, 0)
                },
            })
            .collect()
    }

    /// The block's instructions (without the exit node).
    fn instructions(nodes: &[Node]) -> Vec<Inst> {
        nodes
            .iter()
            .filter(|n| n.kind != Kind::Exit)
            .map(|n| n.inst.clone())
            .collect()
    }

    fn copy_nodes(&self) -> Vec<usize> {
        (0..self.nodes.len())
            .filter(|&k| {
                matches!(self.nodes[k].kind, Kind::Copy { .. })
                    && !self.nodes[k].inst.defs.is_empty()
            })
            .collect()
    }
}

/// The key of a computed value: operation, immediate, input values, result index.
type ValueKey = (Opc, crate::mir::Imm, Vec<u32>, u32);

/// Symbolic execution of a block: value numbers of the live-out registers and the final
/// memory/effect token. The `k`-th operation of a run with a given operation, immediate
/// and input values gets the same number in both runs (`table` is shared between the runs
/// compared): two equal computations are still two values, as the value-flow checker sees
/// them (fuzz seed 14000135: a use renamed to read another `MAKE #0` than its own). The
/// occurrence index is stable because operations with the same operation and immediate
/// keep their relative order.
fn effect(
    t: Target,
    insts: &[Inst],
    live_out: &Regs,
    table: &mut HashMap<(ValueKey, u32), u32>,
) -> (Vec<u32>, u32) {
    let mut regs: HashMap<PReg, u32> = HashMap::new();
    let mut occurrences: HashMap<ValueKey, u32> = HashMap::new();
    let mut intern = |key: ValueKey, table: &mut HashMap<(ValueKey, u32), u32>| {
        let occ = occurrences.entry(key.clone()).or_insert(0);
        let k = *occ;
        *occ += 1;
        let next = table.len() as u32 + 1_000_000;
        *table.entry((key, k)).or_insert(next)
    };
    // Initial register values: one number per register.
    let init = |r: PReg| u32::from(r.num) + 1000 * (r.class as u32);
    let mut token = u32::MAX - 1;
    // Every value an instruction computes, dead ones included: the value-flow checker
    // wants each instruction to read its own operands, not just the same live-out state.
    let mut computed: Vec<u32> = Vec::new();
    for inst in insts {
        let val =
            |regs: &HashMap<PReg, u32>, r: PReg| regs.get(&r).copied().unwrap_or_else(|| init(r));
        if inst.opc == Opc::ParCopy
            || (inst.opc == Opc::Copy
                && inst.flags.contains(InstFlags::INSERTED)
                && !inst.flags.contains(InstFlags::GUARDED))
        {
            let moved: Vec<(PReg, u32)> = pairs_of(inst)
                .iter()
                .map(|&(d, s)| (d, val(&regs, s)))
                .collect();
            for (d, v) in moved {
                regs.insert(d, v);
            }
            continue;
        }
        let mut inputs: Vec<u32> = inst
            .uses
            .iter()
            .map(|o| o.reg.preg().map_or(u32::MAX, |r| val(&regs, r)))
            .collect();
        if inst.flags.contains(InstFlags::GUARDED) {
            inputs.extend(
                inst.defs
                    .iter()
                    .map(|o| o.reg.preg().map_or(u32::MAX, |r| val(&regs, r))),
            );
        }
        let effectful = !is_pure(inst) || kind_of(inst) != Kind::Plain;
        if effectful {
            inputs.push(token);
        }
        for (j, d) in inst.defs.iter().enumerate() {
            if let Some(r) = d.reg.preg() {
                let v = intern(
                    (inst.opc, inst.imm.clone(), inputs.clone(), j as u32),
                    table,
                );
                regs.insert(r, v);
                computed.push(v);
            }
        }
        if inst.control() == Control::Call {
            for &c in target::call_clobbers(t) {
                let v = intern(
                    (
                        inst.opc,
                        inst.imm.clone(),
                        inputs.clone(),
                        1000 + u32::from(c.num) + 100_000 * c.class as u32,
                    ),
                    table,
                );
                regs.insert(c, v);
            }
        }
        if effectful {
            token = intern(
                (inst.opc, inst.imm.clone(), inputs.clone(), u32::MAX),
                table,
            );
        }
    }
    let mut outs: Vec<u32> = live_out
        .iter()
        .map(|r| regs.get(&r).copied().unwrap_or_else(|| init(r)))
        .collect();
    computed.sort_unstable();
    outs.extend(computed);
    (outs, token)
}

/// Whether two versions of a block leave the same values in the live-out registers,
/// compute the same values (dead ones included) and perform the same effects on the same
/// values.
pub fn same_effect(t: Target, a: &[Inst], b: &[Inst], live_out: &Regs) -> bool {
    let mut table = HashMap::new();
    effect(t, a, live_out, &mut table) == effect(t, b, live_out, &mut table)
}

#[derive(Default, Debug)]
struct DdgStats {
    def_motions: u64,
    use_motions: u64,
    rejected: u64,
    attempts_capped: u64,
    steps_capped: u64,
}

/// The `ddg` pass.
pub fn run(f: &mut Function) -> Result<PassDetail, String> {
    let (copies_before, cost_before) = count_copies(f);
    let (_, live_out) = live_in_out(f);
    let t = f.target;
    let marked = super::is_marked(f);
    let mut st = DdgStats::default();
    for (block, lo) in f.blocks.iter_mut().zip(&live_out) {
        if !block.insts.iter().any(|i| i.opc == Opc::ParCopy) {
            continue;
        }
        let insts = std::mem::take(&mut block.insts);
        block.insts = eliminate_in_block(t, marked, insts, lo, &mut st);
    }
    let (copies_after, cost_after) = count_copies(f);
    Ok(vec![
        ("copies_before", copies_before),
        ("copies_after", copies_after),
        ("weighted_before", cost_before),
        ("weighted_after", cost_after),
        ("def_motions", st.def_motions),
        ("use_motions", st.use_motions),
        ("rejected", st.rejected),
        ("attempts_capped", st.attempts_capped),
        ("steps_capped", st.steps_capped),
    ])
}

/// A node for display: the instruction and its role.
#[derive(Clone, Debug)]
pub struct NodeView {
    pub inst: Inst,
    pub role: Kind,
}

/// One block's DDG for display: the block, its nodes in order, its edges `(from, to, label)`.
pub type BlockGraph = (
    crate::mir::BlockId,
    Vec<NodeView>,
    Vec<(usize, usize, Label)>,
);

/// The DDG of every block the pass works on (those holding a parallel copy), built exactly as
/// the pass builds them from `f` (for `viz`, issue 26).
pub fn block_graphs(f: &Function) -> Vec<BlockGraph> {
    let (_, live_out) = live_in_out(f);
    let marked = super::is_marked(f);
    let mut out = Vec::new();
    for (bi, (block, lo)) in f.blocks.iter().zip(&live_out).enumerate() {
        if !block.insts.iter().any(|i| i.opc == Opc::ParCopy) {
            continue;
        }
        let g = Ddg::build(f.target, marked, block.insts.clone(), lo);
        let nodes = g
            .nodes
            .iter()
            .map(|n| NodeView {
                inst: n.inst.clone(),
                role: n.kind,
            })
            .collect();
        let edges = g
            .edges
            .iter()
            .filter(|e| e.alive)
            .map(|e| (e.from, e.to, e.label))
            .collect();
        out.push((crate::mir::BlockId(bi as u32), nodes, edges));
    }
    out
}

/// The motions tried on a copy: (downward?, register, the copy's pairs).
type Attempt = (bool, PReg, Vec<(PReg, PReg)>);

/// The DDG method on one block (§3.4: transformations until none applies or the
/// threshold).
fn eliminate_in_block(
    t: Target,
    marked: bool,
    insts: Vec<Inst>,
    live_out: &Regs,
    st: &mut DdgStats,
) -> Vec<Inst> {
    let original = insts.clone();
    let mut g = Ddg::build(t, marked, insts, live_out);
    let mut failed: BTreeSet<String> = BTreeSet::new();
    let mut attempts = 0usize;
    let mut steps = 0usize;
    'outer: loop {
        if steps >= MAX_STEPS {
            st.steps_capped += 1;
            break;
        }
        for c in g.copy_nodes() {
            let pairs = g.pairs(c);
            let tries: Vec<Attempt> = pairs
                .iter()
                .map(|&(_, s)| (true, s, pairs.clone()))
                .chain(pairs.iter().map(|&(d, _)| (false, d, pairs.clone())))
                .collect();
            for (down, r, pairs) in tries {
                let key = format!("{down}{r:?}{pairs:?}");
                if failed.contains(&key) {
                    continue;
                }
                attempts += 1;
                if attempts > MAX_ATTEMPTS {
                    st.attempts_capped += 1;
                    break 'outer;
                }
                let mut trial = g.clone();
                let changed = if down {
                    trial.def_motion_down(c, r)
                } else {
                    trial.use_motion_up(c, r)
                };
                if !changed {
                    failed.insert(key);
                    continue;
                }
                let accepted = trial.topological_order().and_then(|order| {
                    let nodes = trial.reordered(&order);
                    let before = Ddg::instructions(&g.nodes_in_order());
                    let after = Ddg::instructions(&nodes);
                    same_effect(t, &before, &after, live_out).then_some(nodes)
                });
                match accepted {
                    Some(nodes) => {
                        if down {
                            st.def_motions += 1;
                        } else {
                            st.use_motions += 1;
                        }
                        steps += 1;
                        g = Ddg::from_nodes(t, marked, nodes);
                        continue 'outer;
                    }
                    None => {
                        st.rejected += 1;
                        failed.insert(key);
                    }
                }
            }
        }
        break;
    }
    let result = Ddg::instructions(&g.nodes_in_order());
    // Belt and braces: the whole block against its input.
    if same_effect(t, &original, &result, live_out) {
        result
    } else {
        st.rejected += 1;
        original
    }
}

impl Ddg {
    /// The nodes in their current (valid) order: `from_nodes` keeps the order it was given.
    fn nodes_in_order(&self) -> Vec<Node> {
        self.nodes.clone()
    }
}

#[cfg(test)]
mod tests {
    //! Hand-derived cases after the paper's figures (§3.1-§3.2): each block is written in
    //! physical registers (`Form::Allocated`, as after `ssa-destruct`); `b1` reads what must
    //! stay live, so uses there are the exit node's (not movable). Registers r1..r4 of the
    //! paper are `$r8..$r11`; the parallel copy `(r2, r3, r4) := (r1, r2, r3)` is the chain
    //! r1 → r2 → r3 → r4 of Figure 2.
    use super::*;
    use crate::mir::parse::parse_function;
    use crate::mir::print::inst_to_string;

    /// Runs the pass on `body` (the instructions of b0 after `.input`) and returns b0
    /// after `.input` as text, one instruction per line.
    fn run_b0(body: &str) -> (String, PassDetail) {
        let src = format!(
            "mfunc @f st231 {{\nb0:\n  .input !pinned\n{body}  goto b1\nb1:\n  \
             $r16 = add $r8, $r9\n  $r16 = add $r16, $r10\n  $r16 = add $r16, $r11\n  \
             $r16 = add $r16, $r20\n  .output $r16^$r16\n  igoto\n}}\n"
        );
        let mut f = parse_function(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let detail = run(&mut f).expect("ddg runs");
        let text: Vec<String> = f.blocks[0].insts[1..]
            .iter()
            .map(|i| inst_to_string(&f, i))
            .collect();
        (text.join("\n"), detail)
    }

    fn detail(d: &PassDetail, k: &str) -> u64 {
        d.iter().find(|(n, _)| *n == k).map_or(u64::MAX, |x| x.1)
    }

    /// Figure 3 / Algorithms 1-3: the definition of r2, whose only use is the copy, moves
    /// below it and writes r3; the copy splits into r1 → r2 and r3 → r4, and r2 → r3 is
    /// gone. r1's and r3's definitions have other uses (b1, `$r20`), so nothing else moves.
    /// Order (Kahn, ties by old position): the pieces come first (`$r9 := $r8` has no
    /// predecessor left; `$r11 := $r10` reads r3 before the moved definition writes it,
    /// line 2), then the definition (line 16 moved `$r20`'s anti dependence on r3 to it).
    #[test]
    fn figure3_downward_motion_of_a_definition() {
        let (text, d) = run_b0(
            "  $r8 = add $r0, #1\n  $r10 = add $r0, #3\n  $r20 = add $r10, #5\n  \
             $r9 = add $r0, #2\n  $r9, $r10, $r11 = parcopy $r8, $r9, $r10 !copy !inserted\n",
        );
        assert_eq!(
            text,
            "$r8 = add $r0, #1\n$r10 = add $r0, #3\n$r20 = add $r10, #5\n\
             $r9 = parcopy $r8 !copy !inserted\n$r11 = parcopy $r10 !copy !inserted\n\
             $r10 = add $r0, #2\ngoto b1"
        );
        assert_eq!(detail(&d, "copies_before"), 3);
        assert_eq!(detail(&d, "copies_after"), 2);
        assert_eq!(detail(&d, "def_motions"), 1);
    }

    /// Figure 5 (red) / Algorithm 2 line 4: r2's definition reads r4, which the copy writes
    /// after the split point (ArgIndex(r2) = 2 ≤ ResIndex(r4) = 3): moving it would close a
    /// cycle, so the block stays as it is.
    #[test]
    fn figure5_anti_dependence_after_the_split_point_blocks_the_motion() {
        let body = "  $r8 = add $r0, #1\n  $r10 = add $r0, #3\n  $r20 = add $r10, #5\n  \
                    $r11 = add $r0, #4\n  $r9 = add $r11, #2\n  \
                    $r9, $r10, $r11 = parcopy $r8, $r9, $r10 !copy !inserted\n";
        let (text, d) = run_b0(body);
        assert_eq!(
            text,
            "$r8 = add $r0, #1\n$r10 = add $r0, #3\n$r20 = add $r10, #5\n\
             $r11 = add $r0, #4\n$r9 = add $r11, #2\n\
             $r9, $r10, $r11 = parcopy $r8, $r9, $r10 !copy !inserted\ngoto b1"
        );
        assert_eq!(detail(&d, "copies_after"), 3);
        assert_eq!(detail(&d, "def_motions"), 0);
    }

    /// Figure 5 (green) / Algorithm 2 line 4: r3's definition reads r2, written by the copy
    /// before the split point (ArgIndex(r3) = 3 > ResIndex(r2) = 1): allowed. The definition
    /// then writes r4; the left piece (r1 → r2 → r3) keeps the anti dependence on r2, so the
    /// definition comes first; the right piece is empty (dropped).
    #[test]
    fn figure5_anti_dependence_before_the_split_point_is_harmless() {
        let (text, d) = run_b0(
            "  $r8 = add $r0, #1\n  $r9 = add $r0, #2\n  $r20 = add $r9, #0\n  \
             $r10 = add $r9, #3\n  $r9, $r10, $r11 = parcopy $r8, $r9, $r10 !copy !inserted\n",
        );
        assert_eq!(
            text,
            "$r8 = add $r0, #1\n$r9 = add $r0, #2\n$r20 = add $r9, #0\n\
             $r11 = add $r9, #3\n$r9, $r10 = parcopy $r8, $r9 !copy !inserted\ngoto b1"
        );
        assert_eq!(detail(&d, "copies_after"), 2);
    }

    /// §3.1.2 / Algorithms 4-5: the cyclic copy (r1, r2) := (r2, r1) (a swap, which
    /// `seq-parcopy` would make three moves or a swap); each definition has the copy as
    /// only use and only the direct true and output dependencies on its register lead to
    /// the copy, so the cycle is broken and then eliminated.
    #[test]
    fn cyclic_copy_broken_by_a_downward_motion() {
        let (text, d) = run_b0(
            "  $r11 = add $r0, #4\n  $r10 = add $r0, #3\n  $r20 = add $r0, #0\n  \
             $r9 = add $r10, #2\n  $r8 = add $r0, #1\n  \
             $r8, $r9 = parcopy $r9, $r8 !copy !inserted\n",
        );
        // The cycle is stored from the first pair's source: (r1, r2) := (r2, r1) with
        // a1 = r2, so r2's definition ($r9 = $r10 + 2, only use the copy) is tried first:
        // it writes r1 and the cycle leaves the regular right piece r2 := r1, which reads
        // r1 before the moved definition writes it. Order after this step: ...,
        // `$r8 = 1`, `$r9 := $r8`, `$r8 = $r10 + 2`. Then r1's definition ($r8 = 1, only
        // use the piece) moves below the piece (Algorithm 1 on a regular copy), writing
        // r2; the piece dies. It keeps its place before `$r8 = $r10 + 2` (old output
        // dependence on r1; ties by position).
        assert_eq!(
            text,
            "$r11 = add $r0, #4\n$r10 = add $r0, #3\n$r20 = add $r0, #0\n\
             $r9 = add $r0, #1\n$r8 = add $r10, #2\ngoto b1"
        );
        assert_eq!(detail(&d, "copies_before"), 2);
        assert_eq!(detail(&d, "copies_after"), 0);
        assert_eq!(detail(&d, "def_motions"), 2);
    }

    /// Figure 7 / Algorithm 4: in the 3-cycle r1 → r2 → r3 → r1, r1's definition reads r3,
    /// which the copy writes: an anti dependence into a cyclic copy is never ignored, so
    /// the motion is rejected (the block is unchanged).
    #[test]
    fn figure7_cyclic_copy_with_an_anti_dependence_stays() {
        let body = "  $r11 = add $r0, #4\n  $r20 = add $r0, #0\n  $r9 = add $r0, #2\n  \
                    $r20 = add $r9, $r20\n  $r10 = add $r0, #3\n  $r20 = add $r10, $r20\n  \
                    $r8 = add $r10, #1\n  $r9, $r10, $r8 = parcopy $r8, $r9, $r10 !copy !inserted\n";
        let (text, d) = run_b0(body);
        assert_eq!(
            text,
            "$r11 = add $r0, #4\n$r20 = add $r0, #0\n$r9 = add $r0, #2\n$r20 = add $r9, $r20\n\
             $r10 = add $r0, #3\n$r20 = add $r10, $r20\n$r8 = add $r10, #1\n\
             $r9, $r10, $r8 = parcopy $r8, $r9, $r10 !copy !inserted\ngoto b1"
        );
        assert_eq!(detail(&d, "copies_after"), 3);
        assert_eq!(detail(&d, "def_motions"), 0);
    }

    /// Figure 8 / Algorithms 6-8: every use of r2 (defined by the copy r1 → r2) is movable:
    /// the uses read r1 instead and move above the copy, which disappears (both pieces
    /// empty). Algorithm 8 line 17 gives the uses the true dependence on r1's definition.
    #[test]
    fn figure8_upward_motion_of_uses() {
        let src = "mfunc @f st231 {\nb0:\n  .input !pinned\n  $r8 = add $r0, #1\n  \
                   $r10 = add $r0, #3\n  $r9 = parcopy $r8 !copy !inserted\n  \
                   $r20 = add $r9, #7\n  $r11 = add $r9, $r10\n  goto b1\nb1:\n  \
                   $r16 = add $r8, $r20\n  $r16 = add $r16, $r11\n  .output $r16^$r16\n  \
                   igoto\n}\n";
        let mut f = parse_function(src).expect("parses");
        let d = run(&mut f).expect("ddg runs");
        let text: Vec<String> = f.blocks[0].insts[1..]
            .iter()
            .map(|i| inst_to_string(&f, i))
            .collect();
        assert_eq!(
            text.join("\n"),
            "$r8 = add $r0, #1\n$r10 = add $r0, #3\n$r20 = add $r8, #7\n\
             $r11 = add $r8, $r10\ngoto b1"
        );
        assert_eq!(detail(&d, "use_motions"), 1);
        assert_eq!(detail(&d, "copies_after"), 0);
    }

    /// Algorithms 1 then 6 on the chain r1 → r2 → r3 ((r2, r3) := (r1, r2)): a use of r2
    /// and r3 after the copy, r1 and r3 live out. First r2's definition (only use: the
    /// copy) moves down and writes r3, leaving the copy r2 := r1; then the use of r2, now
    /// reading r2 (from the copy) and r3 (from the moved definition, a true dependence
    /// Algorithm 7 allows: it does not come from the copy), reads r1 and moves above it
    /// (Algorithm 8 line 17), and the copy's last pair goes.
    #[test]
    fn upward_motion_past_the_left_piece_only() {
        let src = "mfunc @f st231 {\nb0:\n  .input !pinned\n  $r8 = add $r0, #1\n  \
                   $r9 = add $r0, #2\n  $r9, $r10 = parcopy $r8, $r9 !copy !inserted\n  \
                   $r20 = add $r9, $r10\n  goto b1\nb1:\n  $r16 = add $r8, $r20\n  \
                   $r16 = add $r16, $r10\n  .output $r16^$r16\n  igoto\n}\n";
        let mut f = parse_function(src).expect("parses");
        let d = run(&mut f).expect("ddg runs");
        let text: Vec<String> = f.blocks[0].insts[1..]
            .iter()
            .map(|i| inst_to_string(&f, i))
            .collect();
        // r2's definition: its only use is the copy, so Algorithm 1 runs first (sources are
        // tried before results): it writes r3, and the copy keeps r1 → r2; then the use of
        // r2 ($r20 = $r9 + $r10) reads r1 and moves above it (Algorithm 6), the copy dies.
        assert_eq!(
            text.join("\n"),
            "$r8 = add $r0, #1\n$r10 = add $r0, #2\n$r20 = add $r8, $r10\ngoto b1"
        );
        assert_eq!(detail(&d, "def_motions"), 1);
        assert_eq!(detail(&d, "use_motions"), 1);
    }
}
