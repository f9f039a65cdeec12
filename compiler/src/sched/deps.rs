//! The dependence graph of one basic block of lowered operations.
//!
//! Nodes are the block's operations in program order; an edge `a → b` with latency `l`
//! means `b` may issue no earlier than `l` cycles after `a` (`l = 0`: same bundle allowed).
//! Register facts come from the simulator's machine description (`Op::sources`/`dests` on
//! ST231, `Inst::uses`/`defs` on ST120), so implicit registers (`$r63`, `P11`, the system-call
//! argument registers) are included. Edges:
//! * RAW: producer latency (isa.md §A4 / §B3 tables as encoded in the opcode tables), plus
//!   the ST231 read delays: +2 when `br`/`brf` read a `$b` (compare → branch = 3), +1 when
//!   `icall`/`igoto`/`return` read `$r63` (§A4); at least 1;
//! * WAR: 0 (all operations of a bundle read before any writes, §A2 / §B2 issue rules);
//! * WAW: 1;
//! * memory: a store is ordered (latency 1) after every earlier load or store, a load after
//!   every earlier store, unless both addresses are `base + constant` on the same, unchanged
//!   base register and the byte ranges are disjoint; loads reorder freely among themselves
//!   (ASSUMPTION, ours: the memory operations of one ST120 group may execute in either
//!   order, so dependent memory operations never share a group — hence latency 1);
//! * calls, indirect calls and system calls are barriers: every earlier operation issues in
//!   the same bundle or before (latency 0; 1 for a `syscall`/`TRAP`, which is alone in its
//!   bundle), every later one strictly after (latency 1);
//! * block-ending control operations (branch, jump, return): every earlier operation issues
//!   in the same bundle or before; a `goto` after a conditional branch comes strictly after.
//!
//! Complexity: O(n · r) for registers (r = registers per operation) plus O(m²) for the m
//! memory operations of the block; above [`MAX_DISAMBIGUATED`] memory operations the
//! builder falls back to the O(m) chain (each load after the last store, each store after
//! the loads since the last store and the last store).

use crate::emit::{Fixup, LoweredOp, MachOp};
use simulator::isa::st120::{self as isa120, AddrMode};
use simulator::isa::st231::{self as isa231, latency, Format, OpProps};

/// Above this many memory operations in a block, addresses are not disambiguated.
pub const MAX_DISAMBIGUATED: usize = 512;

/// Number of register slots in the unified numbering (ST231 72, ST120 48).
const NREGS: usize = 72;

/// What kind of node an operation is for ordering purposes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Plain,
    /// Call or system call: nothing crosses it. `alone`: must be alone in its bundle.
    Barrier {
        alone: bool,
    },
    /// Branch, jump or return (ends the block's straight-line part).
    Control,
}

/// A memory access: base register (unified index), the version of that register (number
/// of writes seen before the access), constant byte offset if known, and width.
#[derive(Clone, Copy, Debug)]
struct MemRef {
    store: bool,
    base: u8,
    version: u32,
    offset: Option<i64>,
    width: i64,
}

/// Register and memory behaviour of one operation.
#[derive(Clone, Debug, Default)]
pub struct OpFacts {
    /// (register, extra read delay).
    pub reads: Vec<(u8, u32)>,
    /// (register, latency).
    pub writes: Vec<(u8, u32)>,
    pub kind: Option<NodeKind>,
    mem: Option<(bool, u8, Option<i64>, i64)>,
}

/// Facts of an ST231 operation.
fn facts_231(op: &isa231::Op, fixup: &Fixup) -> OpFacts {
    let info = op.opc.info();
    let mut f = OpFacts::default();
    let is_branch = info.props.contains(OpProps::COND_BRANCH);
    let uses_link = info.props.contains(OpProps::USES_LINK);
    for r in op.sources() {
        let extra = if is_branch && r >= 64 {
            latency::BRANCH_READS_B_EXTRA
        } else if uses_link && r == isa231::LINK {
            latency::LINK_READ_EXTRA
        } else {
            0
        };
        f.reads.push((r, extra));
    }
    for d in op.dests() {
        f.writes.push((d, u32::from(info.latency).max(1)));
    }
    if op.opc.is_load() || op.opc.is_store() {
        let offset = match fixup {
            Fixup::None => Some(i64::from(op.imm)),
            _ => None,
        };
        f.mem = Some((op.opc.is_store(), op.s1, offset, i64::from(info.mem_width)));
    }
    f.kind = Some(
        if info.props.contains(OpProps::CALL) || info.format == Format::Syscall {
            NodeKind::Barrier {
                alone: info.props.contains(OpProps::ALONE),
            }
        } else if op.opc.is_control() {
            NodeKind::Control
        } else {
            NodeKind::Plain
        },
    );
    f
}

/// Facts of an ST120 operation.
fn facts_120(inst: &isa120::Inst) -> OpFacts {
    let info = inst.opcode.info();
    let mut f = OpFacts::default();
    for r in inst.uses() {
        f.reads.push((r.index() as u8, 0));
    }
    for (r, lat) in inst.defs() {
        f.writes.push((r.index() as u8, u32::from(lat).max(1)));
    }
    if let Some(m) = info.mem {
        let base = isa120::Reg::p(
            inst.regs[if matches!(inst.opcode, isa120::Opcode::Load(..)) {
                1
            } else {
                0
            }],
        );
        let scaled = i64::from(inst.imm) * i64::from(m.size);
        let offset = match m.mode {
            AddrMode::PlusImm => Some(scaled),
            AddrMode::MinusImm => Some(-scaled),
            AddrMode::PlusReg | AddrMode::MinusReg => None,
            // post-modify: the access is at the base before the update
            _ => Some(0),
        };
        f.mem = Some((
            info.props.contains(isa120::OpProps::STORE),
            base.index() as u8,
            offset,
            i64::from(m.size),
        ));
    }
    let p = info.props;
    f.kind = Some(
        if p.intersects(isa120::OpProps::CALL | isa120::OpProps::SYSCALL) {
            NodeKind::Barrier {
                alone: p.contains(isa120::OpProps::SYSCALL),
            }
        } else if p.intersects(isa120::OpProps::CONTROL) {
            NodeKind::Control
        } else {
            NodeKind::Plain
        },
    );
    f
}

/// Facts of any lowered operation.
pub fn facts(l: &LoweredOp) -> OpFacts {
    match &l.op {
        MachOp::St231(op) => facts_231(op, &l.fixup),
        MachOp::St120(inst) => facts_120(inst),
    }
}

/// The dependence graph of a block.
#[derive(Clone, Debug, Default)]
pub struct DepGraph {
    /// Successors with latencies, per node.
    pub succs: Vec<Vec<(usize, u32)>>,
    /// Number of incoming edges per node.
    pub npreds: Vec<u32>,
    pub kinds: Vec<NodeKind>,
    /// Longest write latency of each node (0 if it writes nothing).
    pub max_latency: Vec<u32>,
}

impl DepGraph {
    fn edge(&mut self, from: usize, to: usize, lat: u32) {
        debug_assert!(from < to);
        self.succs[from].push((to, lat));
        self.npreds[to] += 1;
    }

    /// Build the graph of `ops` (one block, program order).
    pub fn build(ops: &[LoweredOp]) -> DepGraph {
        let n = ops.len();
        let mut g = DepGraph {
            succs: vec![Vec::new(); n],
            npreds: vec![0; n],
            kinds: Vec::with_capacity(n),
            max_latency: Vec::with_capacity(n),
        };
        let mut last_writer: [Option<(usize, u32)>; NREGS] = [None; NREGS];
        let mut readers: Vec<Vec<usize>> = vec![Vec::new(); NREGS];
        let mut version = [0u32; NREGS];
        let mut mems: Vec<(usize, MemRef)> = Vec::new();
        let total_mem = ops.iter().filter(|o| facts(o).mem.is_some()).count();
        let disambiguate = total_mem <= MAX_DISAMBIGUATED;
        let mut last_store: Option<usize> = None;
        let mut loads_since_store: Vec<usize> = Vec::new();
        let mut last_barrier: Option<usize> = None;
        let mut since_barrier: Vec<usize> = Vec::new();
        let mut controls: Vec<usize> = Vec::new();
        for (i, op) in ops.iter().enumerate() {
            let f = facts(op);
            let kind = f.kind.unwrap_or(NodeKind::Plain);
            g.kinds.push(kind);
            g.max_latency
                .push(f.writes.iter().map(|w| w.1).max().unwrap_or(0));
            // registers: reads first (an operation may read and write the same register)
            for &(r, extra) in &f.reads {
                let r = usize::from(r);
                if let Some((w, lat)) = last_writer[r] {
                    g.edge(w, i, (lat + extra).max(1));
                }
                readers[r].push(i);
            }
            // memory
            if let Some((store, base, offset, width)) = f.mem {
                let m = MemRef {
                    store,
                    base,
                    version: version[usize::from(base)],
                    offset,
                    width,
                };
                if disambiguate {
                    for &(j, p) in &mems {
                        if (m.store || p.store) && may_alias(&m, &p) {
                            g.edge(j, i, 1);
                        }
                    }
                    mems.push((i, m));
                } else {
                    if let Some(s) = last_store {
                        g.edge(s, i, 1);
                    }
                    if store {
                        for &l in &loads_since_store {
                            g.edge(l, i, 1);
                        }
                        loads_since_store.clear();
                        last_store = Some(i);
                    } else {
                        loads_since_store.push(i);
                    }
                }
            }
            for &(r, lat) in &f.writes {
                let r = usize::from(r);
                for &j in &readers[r] {
                    if j != i {
                        g.edge(j, i, 0);
                    }
                }
                readers[r].clear();
                if let Some((w, _)) = last_writer[r] {
                    if w != i {
                        g.edge(w, i, 1);
                    }
                }
                last_writer[r] = Some((i, lat));
                version[r] += 1;
            }
            // barriers and control
            match kind {
                NodeKind::Barrier { alone } => {
                    for &j in &since_barrier {
                        g.edge(j, i, u32::from(alone));
                    }
                    if let Some(b) = last_barrier {
                        g.edge(b, i, 1);
                    }
                    since_barrier.clear();
                    last_barrier = Some(i);
                }
                _ => {
                    if let Some(b) = last_barrier {
                        g.edge(b, i, 1);
                    }
                    since_barrier.push(i);
                }
            }
            if kind == NodeKind::Control {
                for j in 0..i {
                    let lat = u32::from(controls.contains(&j));
                    g.edge(j, i, lat);
                }
                controls.push(i);
            } else if let Some(&c) = controls.last() {
                // nothing follows a control operation in a block but another control
                // operation; keep order anyway if malformed input puts something there
                g.edge(c, i, 1);
            }
        }
        g
    }

    /// Critical-path priority of each node: the longest latency-weighted path from the
    /// node to the end of the block (a leaf counts its own result latency). O(edges).
    pub fn priorities(&self) -> Vec<u32> {
        let n = self.succs.len();
        let mut prio = vec![0u32; n];
        for i in (0..n).rev() {
            let mut p = self.max_latency[i];
            for &(s, lat) in &self.succs[i] {
                p = p.max(lat + prio[s]);
            }
            prio[i] = p;
        }
        prio
    }
}

/// Whether two accesses may touch the same bytes.
fn may_alias(a: &MemRef, b: &MemRef) -> bool {
    match (a.offset, b.offset) {
        (Some(x), Some(y)) if a.base == b.base && a.version == b.version => {
            x < y + b.width.max(1) && y < x + a.width.max(1)
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::InstFlags;
    use simulator::isa::st231::{Dest, Op, Opcode, Src};

    fn l(op: Op) -> LoweredOp {
        LoweredOp {
            op: MachOp::St231(op),
            fixup: Fixup::None,
            flags: InstFlags::empty(),
        }
    }

    fn lat(g: &DepGraph, a: usize, b: usize) -> Option<u32> {
        g.succs[a].iter().filter(|e| e.0 == b).map(|e| e.1).max()
    }

    #[test]
    fn register_and_memory_edges() {
        let ops = vec![
            l(Op::load(Opcode::Ldw, 1, 12, 0)),                       // 0
            l(Op::binary(Opcode::Add, Dest::R(2), 1, Src::Imm(1))),   // 1 RAW 3 on r1
            l(Op::store(Opcode::Stw, 12, 4, 2)),                      // 2 RAW 1; disjoint from 0
            l(Op::store(Opcode::Stw, 12, 0, 2)),                      // 3 aliases 0
            l(Op::binary(Opcode::Cmplt, Dest::B(0), 2, Src::Imm(5))), // 4
            l(Op::binary(Opcode::Add, Dest::R(1), 0, Src::Imm(0))),   // 5 WAR on r1 vs 1
            l(Op::branch(Opcode::Br, 0, 0)),                          // 6 compare->br 3
        ];
        let g = DepGraph::build(&ops);
        assert_eq!(lat(&g, 0, 1), Some(3));
        assert_eq!(lat(&g, 1, 2), Some(1));
        assert_eq!(lat(&g, 0, 2), None, "disjoint SP offsets");
        assert_eq!(lat(&g, 0, 3), Some(1));
        assert_eq!(lat(&g, 2, 3), None, "disjoint stores are independent");
        assert_eq!(lat(&g, 1, 5), Some(0), "WAR");
        assert_eq!(lat(&g, 0, 5), Some(1), "WAW");
        assert_eq!(lat(&g, 4, 6), Some(3), "compare -> branch");
        assert_eq!(lat(&g, 5, 6), Some(0));
        let p = g.priorities();
        assert!(p[0] > 3 + 1);
    }

    #[test]
    fn unknown_addresses_alias() {
        let ops = vec![
            l(Op::store(Opcode::Stw, 3, 0, 2)),
            l(Op::store(Opcode::Stw, 4, 8, 2)), // other base: may alias
            l(Op::load(Opcode::Ldw, 5, 3, 0)),
            l(Op::binary(Opcode::Add, Dest::R(3), 3, Src::Imm(4))),
            l(Op::load(Opcode::Ldw, 6, 3, 0)), // base changed: may alias node 0
            l(Op::load(Opcode::Ldw, 7, 4, 0)), // loads never depend on loads
        ];
        let g = DepGraph::build(&ops);
        assert_eq!(lat(&g, 0, 1), Some(1));
        assert_eq!(lat(&g, 0, 2), Some(1));
        assert_eq!(lat(&g, 0, 4), Some(1));
        assert_eq!(lat(&g, 2, 5), None);
        assert_eq!(lat(&g, 2, 4), None);
    }

    #[test]
    fn calls_are_barriers() {
        let ops = vec![
            l(Op::binary(Opcode::Add, Dest::R(16), 0, Src::Imm(1))),
            l(Op::jump(Opcode::Call, 0)),
            l(Op::binary(Opcode::Add, Dest::R(20), 0, Src::Imm(1))),
            l(Op::syscall(2)),
            l(Op::binary(Opcode::Add, Dest::R(21), 0, Src::Imm(1))),
        ];
        let g = DepGraph::build(&ops);
        assert_eq!(lat(&g, 0, 1), Some(0));
        assert_eq!(lat(&g, 1, 2), Some(1));
        assert_eq!(lat(&g, 2, 3), Some(1), "syscall is alone");
        assert_eq!(lat(&g, 3, 4), Some(1));
    }
}
