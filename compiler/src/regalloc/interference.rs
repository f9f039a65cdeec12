//! The interference graph of one register class, with the move (copy) graph and spill
//! costs: the `Build` step of George & Appel, "Iterated Register Coalescing" (TOPLAS 18(3),
//! 1996), §4 and the `Build`/`AddEdge` procedures of their Appendix A.
//!
//! Nodes: `0 .. n_phys` are the physical registers of the class (precoloured); every vreg of
//! the class that appears in the function gets a node after them — except vregs pinned to a
//! physical register (`Pin::Phys(r)`), which *are* node `r` (a pin is a precolouring, and
//! out-of-SSA guarantees that two vregs pinned to the same register never overlap; the build
//! checks this and reports a conflict instead of producing a wrong allocation).
//!
//! Edges: at every instruction each definition interferes with everything live after it
//! (G&A: `live := live ∪ def(I)` first, so dead definitions also occupy a register); for a
//! copy `d := s`, `s` is first removed from the live set so that `d` and `s` may coalesce. A
//! call additionally defines every register of `mir::target::call_clobbers`, so values live
//! across it interfere with all caller-saved registers (they get callee-saved registers or
//! are spilled). Physical definitions (other than the stack pointer) behave the same way.
//! Edges to physical registers outside the allowed colours (`--regs N`, reserved registers)
//! are dropped: such a colour can never be chosen for a vreg node, and moves into such a
//! register are never coalesced (see `irc`), so the edge would only inflate degrees.
//!
//! Representation: `adj_set` is a triangular bit matrix for up to [`BITMATRIX_MAX`] nodes and
//! a hash set above (memory O(n²/16) bytes vs O(edges)); `adj_list` holds the neighbours of
//! vreg nodes only (precoloured nodes have "infinite" degree and no list, as in G&A).
//!
//! Complexity: O(Σ over instructions of |live| × |defs|) edge insertions.

use super::liveness::Liveness;
use crate::mir::{target, Control, Function, InstFlags, Opc, PReg, Pin, Reg, RegClass, VReg};
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// Largest node count for the bit-matrix adjacency set.
pub const BITMATRIX_MAX: usize = 4_096;
/// "No node".
pub const NO_NODE: u32 = u32::MAX;

/// A copy `dst := src` between two nodes, with its execution weight (5^loop depth).
#[derive(Clone, Copy, Debug)]
pub struct Move {
    pub dst: u32,
    pub src: u32,
    pub weight: u64,
}

enum AdjSet {
    Bits(Vec<u64>),
    Hash(HashSet<u64, BuildHasherDefault<PairHasher>>),
}

/// A multiplicative hasher for packed node pairs (the default SipHash dominates the build
/// time of large graphs).
#[derive(Default)]
struct PairHasher(u64);

impl Hasher for PairHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (x ^ (x >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        self.0 ^= self.0 >> 32;
    }
}

/// Interference and move graph of one class.
pub struct Graph {
    pub class: RegClass,
    pub n_phys: usize,
    /// Allowed colour of each physical node (`allocatable(t, c)[..N]`).
    pub allowed_phys: Vec<bool>,
    adj: AdjSet,
    pub adj_list: Vec<Vec<u32>>,
    pub degree: Vec<u32>,
    pub moves: Vec<Move>,
    pub move_list: Vec<Vec<u32>>,
    /// Spill cost: Σ 5^depth over the node's defs and uses; `u64::MAX` = never spill.
    pub cost: Vec<u64>,
    /// The vreg of each vreg node (`node - n_phys`).
    pub node_vreg: Vec<VReg>,
    /// Number of edges.
    pub edges: usize,
    /// The build stopped because the graph exceeded `BuildInput::max_edges` (the graph is
    /// then incomplete and must not be coloured).
    pub too_dense: bool,
    /// Node of each vreg of the class (NO_NODE for other classes / absent vregs).
    pub vreg_node: Vec<u32>,
}

impl Graph {
    pub fn num_nodes(&self) -> usize {
        self.n_phys + self.node_vreg.len()
    }

    pub fn is_precolored(&self, n: u32) -> bool {
        (n as usize) < self.n_phys
    }

    fn pair_key(&self, a: u32, b: u32) -> (usize, u64) {
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        let hi = hi as usize;
        (
            hi * (hi - 1) / 2 + lo as usize,
            (u64::from(hi as u32) << 32) | u64::from(lo),
        )
    }

    pub fn interferes(&self, a: u32, b: u32) -> bool {
        if a == b {
            return false;
        }
        let (bit, key) = self.pair_key(a, b);
        match &self.adj {
            AdjSet::Bits(v) => v[bit / 64] >> (bit % 64) & 1 != 0,
            AdjSet::Hash(h) => h.contains(&key),
        }
    }

    /// G&A `AddEdge`: records `a — b` unless present, self or to a disallowed colour.
    pub fn add_edge(&mut self, a: u32, b: u32) {
        if a == b || self.interferes(a, b) {
            return;
        }
        for n in [a, b] {
            if self.is_precolored(n) && !self.allowed_phys[n as usize] {
                return;
            }
        }
        let (bit, key) = self.pair_key(a, b);
        match &mut self.adj {
            AdjSet::Bits(v) => v[bit / 64] |= 1 << (bit % 64),
            AdjSet::Hash(h) => {
                h.insert(key);
            }
        }
        self.edges += 1;
        if !self.is_precolored(a) {
            self.adj_list[a as usize].push(b);
            self.degree[a as usize] += 1;
        }
        if !self.is_precolored(b) {
            self.adj_list[b as usize].push(a);
            self.degree[b as usize] += 1;
        }
    }
}

/// A plain copy of one class's graph as `Build` made it, before colouring changes it (the
/// worklist phase adds the edges of coalesced nodes): what `viz` draws (issue 26).
#[derive(Clone, Debug)]
pub struct Picture {
    pub class: RegClass,
    pub n_phys: usize,
    pub allowed_phys: Vec<bool>,
    /// The vreg of each vreg node (`node - n_phys`).
    pub node_vreg: Vec<VReg>,
    /// Interference edges with at least one vreg end, `(a, b)` with `a < b`, sorted.
    pub edges: Vec<(u32, u32)>,
    pub moves: Vec<Move>,
}

impl Graph {
    /// The graph as it stands, for display. Edges between two registers are left out (every
    /// register interferes with every other; the drawing would only be cluttered).
    pub fn picture(&self) -> Picture {
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for (a, list) in self.adj_list.iter().enumerate() {
            for &b in list {
                let a = a as u32;
                // A vreg–vreg edge is listed at both ends; keep it once.
                if self.is_precolored(b) || a < b {
                    edges.push((a.min(b), a.max(b)));
                }
            }
        }
        edges.sort_unstable();
        edges.dedup();
        Picture {
            class: self.class,
            n_phys: self.n_phys,
            allowed_phys: self.allowed_phys.clone(),
            node_vreg: self.node_vreg.clone(),
            edges,
            moves: self.moves.clone(),
        }
    }
}

/// A set of nodes with O(1) insert/remove/contains and iteration over members.
struct SparseSet {
    pos: Vec<u32>,
    members: Vec<u32>,
}

impl SparseSet {
    fn new(n: usize) -> SparseSet {
        SparseSet {
            pos: vec![NO_NODE; n],
            members: Vec::new(),
        }
    }
    fn contains(&self, x: u32) -> bool {
        self.pos[x as usize] != NO_NODE
    }
    fn insert(&mut self, x: u32) {
        if !self.contains(x) {
            self.pos[x as usize] = self.members.len() as u32;
            self.members.push(x);
        }
    }
    fn remove(&mut self, x: u32) {
        let p = self.pos[x as usize];
        if p == NO_NODE {
            return;
        }
        let last = self.members.pop().expect("non-empty");
        if last != x {
            self.members[p as usize] = last;
            self.pos[last as usize] = p;
        }
        self.pos[x as usize] = NO_NODE;
    }
    fn clear(&mut self) {
        for &m in &self.members {
            self.pos[m as usize] = NO_NODE;
        }
        self.members.clear();
    }
}

/// What the builder needs to know besides the function.
pub struct BuildInput<'a> {
    pub class: RegClass,
    /// Allowed colours in preference order.
    pub allowed: &'a [u8],
    /// Physical register each vreg is pinned to.
    pub pin_of: &'a [Option<PReg>],
    /// Spill temporaries (infinite spill cost).
    pub is_temp: &'a [bool],
    /// 5^loop-depth of each block.
    pub weights: &'a [u64],
    /// Never spill anything of this class (ST231 `$b`, ST120 guards).
    pub unspillable: bool,
    /// Stop building (and set `too_dense`) beyond this many edges.
    pub max_edges: usize,
}

/// Node numbering of the class: pinned vregs map to their register.
fn number_nodes(f: &Function, inp: &BuildInput, n_phys: usize) -> (Vec<u32>, Vec<VReg>) {
    let mut vreg_node = vec![NO_NODE; f.vregs.len()];
    let mut node_vreg = Vec::new();
    for block in &f.blocks {
        for inst in &block.insts {
            for v in inst.def_vregs().chain(inst.use_vregs()) {
                if f.class_of(v) != inp.class || vreg_node[v.index()] != NO_NODE {
                    continue;
                }
                vreg_node[v.index()] = match inp.pin_of[v.index()] {
                    Some(p) => u32::from(p.num),
                    None => {
                        node_vreg.push(v);
                        (n_phys + node_vreg.len() - 1) as u32
                    }
                };
            }
        }
    }
    (vreg_node, node_vreg)
}

/// Builds the graph of `inp.class` from the liveness `live` (computed over that class).
pub fn build(f: &Function, live: &Liveness, inp: &BuildInput) -> Result<Graph, String> {
    let t = f.target;
    let c = inp.class;
    let n_phys = usize::from(target::num_regs(t, c));
    let (vreg_node, node_vreg) = number_nodes(f, inp, n_phys);
    let n = n_phys + node_vreg.len();
    let mut allowed_phys = vec![false; n_phys];
    for &r in inp.allowed {
        allowed_phys[usize::from(r)] = true;
    }
    let adj = if n <= BITMATRIX_MAX {
        AdjSet::Bits(vec![0; (n * n / 2).div_ceil(64) + 1])
    } else {
        AdjSet::Hash(HashSet::default())
    };
    let mut g = Graph {
        class: c,
        n_phys,
        allowed_phys,
        adj,
        adj_list: vec![Vec::new(); n],
        degree: vec![0; n],
        moves: Vec::new(),
        move_list: vec![Vec::new(); n],
        cost: vec![0; n],
        node_vreg,
        vreg_node,
        edges: 0,
        too_dense: false,
    };
    for (i, &v) in g.node_vreg.iter().enumerate() {
        if inp.is_temp.get(v.index()).copied().unwrap_or(false) || inp.unspillable {
            g.cost[n_phys + i] = u64::MAX;
        }
    }
    let sp = target::stack_pointer(t);
    let clobbers: Vec<u32> = target::call_clobbers(t)
        .iter()
        .filter(|p| p.class == c)
        .map(|p| u32::from(p.num))
        .collect();
    let mut live_set = SparseSet::new(n);
    // Which vreg currently occupies each live physical node (pin conflict detection).
    let mut owner = vec![NO_NODE; n_phys];
    let mut defs: Vec<u32> = Vec::new();
    let mut def_vregs: Vec<Option<VReg>> = Vec::new();
    let mut uses: Vec<(u32, VReg)> = Vec::new();
    for (bi, block) in f.blocks.iter().enumerate() {
        let w = inp.weights.get(bi).copied().unwrap_or(1);
        live_set.clear();
        for v in live.live_out(bi) {
            let node = g.vreg_node[v.index()];
            if node != NO_NODE {
                live_set.insert(node);
                if (node as usize) < n_phys {
                    owner[node as usize] = v.0;
                }
            }
        }
        for (ii, inst) in block.insts.iter().enumerate().rev() {
            let guarded = inst.flags.contains(InstFlags::GUARDED);
            defs.clear();
            def_vregs.clear();
            uses.clear();
            for o in &inst.defs {
                match o.reg {
                    Reg::V(v) if f.class_of(v) == c => {
                        defs.push(g.vreg_node[v.index()]);
                        def_vregs.push(Some(v));
                        add_cost(&mut g, v, w);
                    }
                    Reg::P(p) if p.class == c && p != sp => {
                        defs.push(u32::from(p.num));
                        def_vregs.push(None);
                    }
                    _ => {}
                }
            }
            for o in &inst.uses {
                if let Reg::V(v) = o.reg {
                    if f.class_of(v) == c {
                        uses.push((g.vreg_node[v.index()], v));
                        add_cost(&mut g, v, w);
                    }
                }
            }
            if guarded {
                for (d, v) in defs.iter().zip(&def_vregs) {
                    if let Some(v) = v {
                        uses.push((*d, *v));
                    }
                }
            }
            let is_move = inst.opc == Opc::Copy
                && inst.defs.len() == 1
                && inst.uses.len() == 1
                && def_vregs.len() == 1
                && def_vregs[0].is_some()
                && uses.len() == 1;
            if is_move {
                live_set.remove(uses[0].0);
                let m = g.moves.len() as u32;
                g.moves.push(Move {
                    dst: defs[0],
                    src: uses[0].0,
                    weight: w,
                });
                g.move_list[defs[0] as usize].push(m);
                if uses[0].0 != defs[0] {
                    g.move_list[uses[0].0 as usize].push(m);
                }
            }
            // Pin conflicts: a definition of a physical node while another value occupies it.
            for (d, v) in defs.iter().zip(&def_vregs) {
                let d = *d as usize;
                if d < n_phys && live_set.contains(d as u32) && owner[d] != NO_NODE {
                    if let Some(v) = v {
                        if owner[d] != v.0 {
                            return Err(pin_conflict(f, bi, ii, VReg(owner[d]), d, c));
                        }
                    } else {
                        return Err(pin_conflict(f, bi, ii, VReg(owner[d]), d, c));
                    }
                }
            }
            let is_call = inst.control() == Control::Call;
            if is_call {
                for &r in &clobbers {
                    if live_set.contains(r) && !defs.contains(&r) && owner[r as usize] != NO_NODE {
                        return Err(format!(
                            "regalloc: function {}: block b{bi} instruction {ii}: %{} is pinned \
                             to {} and live across a call that clobbers it",
                            f.name,
                            owner[r as usize],
                            target::reg_name(f.target, PReg::new(c, r as u8))
                        ));
                    }
                }
            }
            let n_defs = defs.len();
            if is_call {
                defs.extend(clobbers.iter().copied());
            }
            for &d in &defs {
                live_set.insert(d);
            }
            for &d in &defs {
                for k in 0..live_set.members.len() {
                    let l = live_set.members[k];
                    g.add_edge(l, d);
                }
            }
            if g.edges > inp.max_edges {
                g.too_dense = true;
                return Ok(g);
            }
            if !guarded {
                for &d in &defs {
                    live_set.remove(d);
                }
            } else {
                for &d in &defs[n_defs..] {
                    live_set.remove(d);
                }
            }
            for &(u, v) in &uses {
                if (u as usize) < n_phys {
                    let o = owner[u as usize];
                    if live_set.contains(u) && o != NO_NODE && o != v.0 {
                        return Err(pin_conflict(f, bi, ii, VReg(o), u as usize, c));
                    }
                    owner[u as usize] = v.0;
                }
                live_set.insert(u);
            }
        }
    }
    Ok(g)
}

fn add_cost(g: &mut Graph, v: VReg, w: u64) {
    let n = g.vreg_node[v.index()] as usize;
    if n >= g.n_phys && g.cost[n] != u64::MAX {
        g.cost[n] = g.cost[n].saturating_add(w).min(u64::MAX - 1);
    }
}

fn pin_conflict(f: &Function, b: usize, i: usize, other: VReg, r: usize, c: RegClass) -> String {
    let reg = target::reg_name(f.target, PReg::new(c, r as u8));
    format!(
        "regalloc: function {}: block b{b} instruction {i}: {reg} is defined while %{} (pinned \
         to {reg}) is live; out-of-SSA must isolate pinned operands",
        f.name, other.0
    )
}

/// The physical register each vreg is pinned to (`Pin::Phys` on any def or use); an error if
/// a vreg carries two different physical pins or a pin of another class.
pub fn pins(f: &Function) -> Result<Vec<Option<PReg>>, String> {
    let mut pin_of: Vec<Option<PReg>> = vec![None; f.vregs.len()];
    for (bi, block) in f.blocks.iter().enumerate() {
        for (ii, inst) in block.insts.iter().enumerate() {
            for o in inst.defs.iter().chain(&inst.uses) {
                let (Reg::V(v), Some(Pin::Phys(p))) = (o.reg, o.pin) else {
                    continue;
                };
                if v.index() >= f.vregs.len() {
                    return Err(format!(
                        "regalloc: function {}: block b{bi} instruction {ii}: unknown vreg %{}",
                        f.name, v.0
                    ));
                }
                if f.class_of(v) != p.class {
                    return Err(format!(
                        "regalloc: function {}: block b{bi} instruction {ii}: %{} pinned to a \
                         register of another class",
                        f.name, v.0
                    ));
                }
                match pin_of[v.index()] {
                    Some(q) if q != p => {
                        return Err(format!(
                            "regalloc: function {}: block b{bi} instruction {ii}: %{} pinned to \
                             both {} and {}",
                            f.name,
                            v.0,
                            target::reg_name(f.target, q),
                            target::reg_name(f.target, p)
                        ))
                    }
                    _ => pin_of[v.index()] = Some(p),
                }
            }
        }
    }
    Ok(pin_of)
}
