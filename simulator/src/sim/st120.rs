//! Cycle-level simulator of the ST120 in GP32 mode (isa.md §B) on the shared guest memory,
//! traps, system calls and per-function profiler.
//!
//! **Pre-decoding.** The code is decoded once into a flat array of issue groups (1 or 2
//! operations up to a stop bit, one 64-byte cache line each). Each operation becomes a
//! compact [`Op`] (16 bytes: a flat kind, register numbers, a pre-scaled immediate or a
//! resolved branch target, the guard as a bit mask). Undecodable words and groups that break
//! the issue rules become *illegal groups* that trap only if executed; a sentinel group after
//! the code traps when execution falls off the end. Direct branch targets are resolved to
//! group indices; indirect ones (`JUMP`, `LINK`, `RTS`) are looked up in a word -> group
//! table at run time.
//!
//! **Hot loop.** `run_fast` runs plain groups and in-order groups that end with a direct
//! `GOTO` / `Gx! GOTO`: scoreboard, counters and operations inline, one `match` per
//! operation. Everything else (calls, returns, indirect jumps, TRAP, reordered or illegal
//! groups, flush points) returns to `execute`, which calls `slow_group`. Tracing runs every
//! group through the general path (the tests check that both paths give the same counters).
//! Register files have 256 entries so that `u8` register numbers index them without masks
//! or bounds checks.
//!
//! **Execution.** One group per cycle: all operations read their operands before any writes.
//! The pre-decoder finds the order that gives that result in place: slot 0 then slot 1,
//! or slot 1 then slot 0 when slot 1 reads what slot 0 writes; genuinely crossed groups (a
//! swap in one group) run through a buffered path that executes each operation on the old
//! register file and merges the results (slot 1 wins a double write). Every operation is
//! guarded: it takes effect when its guard is true (`Gx!` branches: false).
//!
//! **Timing.** `cycle` advances by 1 per group, plus operand stalls, plus 3 bubble cycles
//! after a taken branch, call or return (ASSUMPTION, isa.md §B3). The scoreboard keeps the
//! cycle at which each register's pending value becomes usable; a group issues when every
//! source is ready and no destination has an older write still pending (WAW, ASSUMPTION),
//! whether or not the guards are true (ASSUMPTION: operands are interlocked before the guard
//! is known). Latencies are those of the opcode table (§B3 ASSUMPTION list). Only registers
//! that some operation writes with a latency of 2 or more can ever stall, so the pre-decoder
//! lists scoreboard checks for those registers only: most groups check nothing. Memory-port
//! stalls never happen in GP32 mode (the issue rules allow 2 memory operations per group),
//! so `stall_memport` stays 0.
//!
//! **Counters.** Bundles, operations, nops, moves (COPY annotations), swaps, loads, stores
//! and spill loads/stores are static per group; each group adds its packed 9-lane vector to
//! a 128-bit accumulator (one add per group, 14-bit lanes), flushed into 64-bit totals on
//! taken branches and in the slow path (control groups, plus a flush point every 2048
//! groups) before any lane can overflow, and at every call and return. Counters count *issued*
//! operations, including guarded-off ones (ASSUMPTION: a predicated operation still occupies
//! its slot). Per-function counters come from the shared [`Profiler`], called only at calls
//! and returns.
//!
//! **Safety.** No guest input can panic the host: every memory access is checked, every
//! jump target is looked up, the cycle budget and the call depth are bounded. Cost: O(code)
//! pre-decoding, O(1) per group.

use crate::asm::st120::format_inst;
use crate::isa::st120::encoding::decode;
use crate::isa::st120::issue::check_group;
use crate::isa::st120::opcode::{
    AddrMode, BinOp, CmpCond, CmpKind, Inst, MulFamily, MulVariant, OpProps, Opcode, UnOp,
    TAKEN_BRANCH_BUBBLES,
};
use crate::isa::st120::semantics as sem;
use crate::isa::st120::{GUARD_TRUE, JUMP_TARGET, LINK};
use crate::machine::{
    syscall, Counters, FunctionTable, Memory, Profiler, RunOptions, RunReport, SyscallOutcome,
    Trap, TrapKind, HALT_ADDRESS,
};
use crate::object::{Object, OpFlags};
use std::collections::HashMap;
use std::io::Write;
use std::time::Instant;

/// Run an ST120 object to completion, a trap, or the cycle budget.
pub fn run(obj: &Object, opts: &RunOptions, trace: &mut dyn Write) -> RunReport {
    let start = Instant::now();
    let mut report = match Machine::load(obj, opts) {
        Ok(mut m) => {
            if opts.trace {
                m.run::<true>(trace)
            } else {
                m.run::<false>(trace)
            }
        }
        Err(t) => RunReport::failed(t),
    };
    report.host_seconds = start.elapsed().as_secs_f64();
    report
}

// ---------------------------------------------------------------------------------------
// Pre-decoded form

/// Flat operation kinds of the simulator (one `match` arm each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum K {
    // Two-input DU operations, one kind per BinOp (same order): register form a = b op c,
    // then immediate form a = b op imm.
    Add,
    Addu,
    Sub,
    Subu,
    And,
    Or,
    Xor,
    Andn,
    Orn,
    Nand,
    Nor,
    Xnor,
    Shl,
    Shlu,
    Shr,
    Shru,
    Shrw,
    Shruw,
    Addp,
    Subp,
    Addup,
    Subup,
    Andp,
    Orp,
    Xorp,
    AddI,
    AdduI,
    SubI,
    SubuI,
    AndI,
    OrI,
    XorI,
    AndnI,
    OrnI,
    NandI,
    NorI,
    XnorI,
    ShlI,
    ShluI,
    ShrI,
    ShruI,
    ShrwI,
    ShruwI,
    Nop,
    Un,
    Move,
    SetR,
    More,
    SetP,
    MoreA,
    Mul,
    /// Compares into guard a: operands normalised by `d` (a shift amount: 32 for the ..W /
    /// ..UW word compares, 0 for ..E and pointers), arithmetically (`CmpS`) or logically
    /// (`CmpU`); `sub` = condition mask over {1: less, 2: equal, 4: greater}.
    CmpS,
    CmpSI,
    CmpU,
    CmpUI,
    CmpP,
    CmpPI,
    /// Guard logic through a 4-entry truth table in `imm`: Ga = tt[Gb, Gc].
    GLogic,
    Bool,
    CopyA,
    CopyD,
    MoveA,
    /// Pa = Pb + Pc * imm (imm = ±scale).
    AuR,
    /// Pa = Pb + imm (pre-scaled, signed).
    AuI,
    /// Loads into R: a = value register, b = base, c = offset register, d = log2(size),
    /// sub = sign-extension shift (64 - bits for signed loads, 0 for unsigned ones), imm =
    /// pre-scaled signed offset (immediate modes) or ±1 (register modes). `I`: @(Pb ± imm),
    /// `R`: @(Pb ± Pc), `PI`/`PR`: access at Pb, then Pb ± imm / Pc.
    LdI,
    LdR,
    LdPI,
    LdPR,
    /// Loads into P (LAW, LAH), same fields.
    LaI,
    LaR,
    LaPI,
    LaPR,
    /// Stores: a = value register (sub = 1: a P register), the rest as for loads.
    StI,
    StR,
    StPI,
    StPR,
    Goto,
    GotoF,
    Call,
    Jump,
    JumpF,
    Link,
    Rts,
    Trap,
}

/// Kinds of the register forms of the two-input operations, by BinOp code.
const BIN_KINDS: [K; 25] = [
    K::Add,
    K::Addu,
    K::Sub,
    K::Subu,
    K::And,
    K::Or,
    K::Xor,
    K::Andn,
    K::Orn,
    K::Nand,
    K::Nor,
    K::Xnor,
    K::Shl,
    K::Shlu,
    K::Shr,
    K::Shru,
    K::Shrw,
    K::Shruw,
    K::Addp,
    K::Subp,
    K::Addup,
    K::Subup,
    K::Andp,
    K::Orp,
    K::Xorp,
];
/// Kinds of the immediate forms, by BinOp code.
const BINI_KINDS: [K; 18] = [
    K::AddI,
    K::AdduI,
    K::SubI,
    K::SubuI,
    K::AndI,
    K::OrI,
    K::XorI,
    K::AndnI,
    K::OrnI,
    K::NandI,
    K::NorI,
    K::XnorI,
    K::ShlI,
    K::ShluI,
    K::ShrI,
    K::ShruI,
    K::ShrwI,
    K::ShruwI,
];

/// One pre-decoded operation (16 bytes).
#[derive(Clone, Copy, Debug)]
struct Op {
    k: K,
    /// Register numbers. Direct branches keep their target address here instead
    /// (little-endian in a, b, c, d).
    a: u8,
    b: u8,
    c: u8,
    d: u8,
    /// Sub-operation: UnOp / CmpKind / multiply family, extension shift of loads, ...
    sub: u8,
    sub2: u8,
    /// Pre-scaled immediate; the target group index of a direct branch (-1: none).
    imm: i32,
    /// `1 << g`: the operation acts when `guards & gmask != 0`.
    gmask: u32,
}

impl Op {
    /// Target address of a direct branch.
    fn target_addr(&self) -> u32 {
        u32::from_le_bytes([self.a, self.b, self.c, self.d])
    }
}

const NOP_OP: Op = Op {
    k: K::Nop,
    gmask: 1 << GUARD_TRUE,
    a: 0,
    b: 0,
    c: 0,
    d: 0,
    sub: 0,
    sub2: 0,
    imm: 0,
};

/// How the operations of a group are sequenced so that reads precede writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    /// Slot 0 then slot 1.
    Seq,
    /// Slot 1 then slot 0 (slot 1 reads what slot 0 writes).
    Rev,
    /// Each operation on the old register file, results merged (slot 1 wins).
    Buffered,
}

/// Group flag bits: anything other than "execute in order and fall through".
const F_CONTROL: u8 = 1;
const F_FLUSH: u8 = 2;
const F_ILLEGAL: u8 = 4;
const F_REORDER: u8 = 8;
/// The group ends with a direct GOTO or `Gx! GOTO` to a valid group and runs in order: the
/// hot loop handles it inline. Set instead of `F_CONTROL`.
const F_BRANCH: u8 = 16;
/// The group has scoreboard checks or slow destinations (not a reason for the slow path).
const F_SB: u8 = 32;

/// One issue group, one cache line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Group {
    ops: [Op; 2],
    /// Packed static counters (see `Lane`).
    counts: u128,
    /// Address of the first operation.
    addr: u32,
    /// Start of this group's further entries in `Program::sb` (see `more`).
    sb: u32,
    n: u8,
    flags: u8,
    order: Order,
    /// First scoreboard check, inline: the group issues at `ready[check_idx] - check_adj`
    /// or later (`NO_CHECK` when none).
    check_idx: u8,
    check_adj: u8,
    /// First destination written with latency >= 2, inline: `ready[slow_idx] = issue +
    /// slow_lat` (`NO_SLOW` when none).
    slow_idx: u8,
    slow_lat: u8,
    /// Further checks (high nibble) and slow destinations (low nibble) in `Program::sb`.
    more: u8,
}

/// Dummy scoreboard slots (register indices stop at 47): `NO_CHECK` is never written, so a
/// check of it never stalls; `NO_SLOW` is never read.
const NO_CHECK: u8 = 254;
const NO_SLOW: u8 = 255;

/// Lanes of the packed per-group counter vector (14 bits each).
#[derive(Clone, Copy)]
enum Lane {
    Bundles,
    Nops,
    Moves,
    Swaps,
    Loads,
    Stores,
    SpillLoads,
    SpillStores,
    /// The largest lane, on top: the accumulator is flushed when it reaches half its range.
    Ops,
}
const LANES: usize = 9;
const LANE_BITS: u32 = 14;
/// Every this many groups is a flush point (slow path), so that between two slow-path
/// checks no lane grows by more than 2 * 2048.
const FLUSH_EVERY: usize = 2048;
/// The slow path flushes when the top (ops) lane reaches 2^13; every other lane is at most
/// the ops lane, so no lane can reach 2^14 = 2^13 + 2 * 2048 before the next check.
const FLUSH_THRESHOLD: u128 = 1 << (LANE_BITS * Lane::Ops as u32 + LANE_BITS - 1);

fn lane(l: Lane, v: u128) -> u128 {
    v << (LANE_BITS * l as u32)
}

#[derive(Clone, Debug)]
enum Aux {
    Trap(TrapKind),
    /// Register-file indices written by slot 0 and slot 1 (0..16 R, 16..32 P, 32..48 G).
    Dests([Vec<u8>; 2]),
}

/// Scoreboard index of the memory pseudo-register used by the ordering analysis.
const MEM_IDX: usize = 48;
const NO_GROUP: u32 = u32::MAX;

struct Program {
    groups: Vec<Group>,
    /// The decoded operations of each group, for tracing and the buffered path.
    insts: Vec<[Inst; 2]>,
    /// Traps of illegal groups and destinations of buffered groups, by group index.
    aux: HashMap<usize, Aux>,
    /// Scoreboard entries `(register index, adj or latency)` of all groups.
    sb: Vec<(u8, u8)>,
    /// Word index (from `code_base`) -> group index, `NO_GROUP` when not a group start.
    start_of: Vec<u32>,
    code_base: u32,
}

impl Program {
    /// The group starting at `addr`, if any.
    #[inline]
    fn group_at(&self, addr: u32) -> Option<usize> {
        let off = addr.wrapping_sub(self.code_base);
        if !off.is_multiple_of(4) {
            return None;
        }
        match self.start_of.get((off / 4) as usize) {
            Some(&g) if g != NO_GROUP => Some(g as usize),
            _ => None,
        }
    }
}

/// Decode the code into groups (see the module documentation).
fn predecode(obj: &Object) -> Program {
    let words: Vec<u32> = obj
        .code
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let flags: HashMap<u32, OpFlags> = obj.annotations.iter().map(|a| (a.addr, a.flags)).collect();
    let flags_at = |i: usize| {
        flags
            .get(&(obj.code_base.wrapping_add(4 * i as u32)))
            .copied()
            .unwrap_or_default()
    };
    // 1. Split into raw groups: (first word, decoded ops or the trap).
    let mut raw: Vec<(usize, Result<Vec<Inst>, TrapKind>)> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let start = i;
        let mut ops = Vec::with_capacity(2);
        let mut err = None;
        loop {
            match decode(words[i]) {
                Ok((inst, stop)) => {
                    ops.push(inst);
                    i += 1;
                    if stop {
                        break;
                    }
                    if ops.len() == 2 || i == words.len() {
                        err = Some(TrapKind::IllegalBundle {
                            reason: if ops.len() == 2 {
                                "more than 2 operations in an issue group"
                            } else {
                                "issue group not closed by a stop bit"
                            },
                        });
                        break;
                    }
                }
                Err(e) => {
                    // An undecodable word ends the group it is in.
                    err = Some(TrapKind::IllegalEncoding { word: e.word });
                    i += 1;
                    break;
                }
            }
        }
        let r = match err {
            Some(t) => Err(t),
            None => check_group(&ops)
                .map(|_| ops)
                .map_err(|reason| TrapKind::IllegalBundle { reason }),
        };
        raw.push((start, r));
    }
    let mut start_of = vec![NO_GROUP; words.len() + 1];
    for (gi, (w, _)) in raw.iter().enumerate() {
        start_of[*w] = gi as u32;
    }
    start_of[words.len()] = raw.len() as u32; // the sentinel
                                              // 2. Registers that can ever be late: written with latency >= 2 somewhere.
    let mut slow_reg = [false; 49];
    for (_, r) in &raw {
        for inst in r.iter().flatten() {
            for (reg, lat) in inst.defs() {
                if lat >= 2 {
                    slow_reg[reg.index()] = true;
                }
            }
        }
    }
    // 3. Lower every group.
    let code_base = obj.code_base;
    let mut prog = Program {
        groups: Vec::new(),
        insts: Vec::new(),
        aux: HashMap::new(),
        sb: Vec::new(),
        start_of,
        code_base,
    };
    for (gi, (w, r)) in raw.iter().enumerate() {
        let addr = code_base.wrapping_add(4 * *w as u32);
        let mut g = Group {
            ops: [NOP_OP; 2],
            counts: 0,
            addr,
            sb: 0,
            n: 0,
            flags: 0,
            order: Order::Seq,
            check_idx: NO_CHECK,
            check_adj: 0,
            slow_idx: NO_SLOW,
            slow_lat: 0,
            more: 0,
        };
        let mut insts = [nop_inst(); 2];
        match r {
            Err(t) => {
                g.flags = F_ILLEGAL;
                prog.aux.insert(gi, Aux::Trap(t.clone()));
            }
            Ok(ops) => {
                for (k, inst) in ops.iter().enumerate() {
                    let pc = addr.wrapping_add(4 * k as u32);
                    g.ops[k] = lower(inst, pc);
                    insts[k] = *inst;
                    let p = inst.opcode.info().props;
                    if p.intersects(OpProps::CONTROL | OpProps::SYSCALL) {
                        g.flags |= F_CONTROL;
                    }
                    g.counts += static_counts(
                        inst,
                        flags_at(*w + k),
                        *w + k > 0 && flags_at(*w + k - 1).contains(OpFlags::SWAP_PART),
                    );
                }
                g.n = ops.len() as u8;
                g.counts += lane(Lane::Bundles, 1);
                scoreboard(&mut g, ops, &slow_reg, &mut prog.sb);
                if g.check_idx != NO_CHECK || g.slow_idx != NO_SLOW {
                    g.flags |= F_SB;
                }
                g.order = order_of(ops);
                if g.order != Order::Seq {
                    g.flags |= F_REORDER;
                }
                if g.order == Order::Buffered {
                    let dests = |x: &Inst| x.defs().iter().map(|(r, _)| r.index() as u8).collect();
                    prog.aux
                        .insert(gi, Aux::Dests([dests(&ops[0]), dests(&ops[1])]));
                }
            }
        }
        if gi % FLUSH_EVERY == 0 {
            g.flags |= F_FLUSH;
        }
        prog.groups.push(g);
        prog.insts.push(insts);
    }
    // Resolve direct branch targets (now that every group index is known).
    for gi in 0..prog.groups.len() {
        for k in 0..usize::from(prog.groups[gi].n) {
            let op = prog.groups[gi].ops[k];
            if matches!(op.k, K::Goto | K::GotoF | K::Call) {
                let target = op.target_addr();
                let idx = prog.group_at(target).map_or(NO_GROUP, |x| x as u32);
                prog.groups[gi].ops[k].imm = idx as i32;
                let g = &mut prog.groups[gi];
                if op.k != K::Call && idx != NO_GROUP && g.flags & !F_SB == F_CONTROL {
                    g.flags = (g.flags & F_SB) | F_BRANCH;
                }
            }
        }
    }
    // Sentinel: execution that runs past the last group traps.
    let end = code_base.wrapping_add(obj.code.len() as u32);
    let mut s = prog.groups.last().copied().unwrap_or(Group {
        ops: [NOP_OP; 2],
        counts: 0,
        addr: end,
        sb: 0,
        n: 0,
        flags: 0,
        order: Order::Seq,
        check_idx: NO_CHECK,
        check_adj: 0,
        slow_idx: NO_SLOW,
        slow_lat: 0,
        more: 0,
    });
    s.n = 0;
    (s.check_idx, s.slow_idx, s.more) = (NO_CHECK, NO_SLOW, 0);
    s.counts = 0;
    s.addr = end;
    s.flags = F_ILLEGAL;
    prog.aux.insert(
        prog.groups.len(),
        Aux::Trap(TrapKind::BadJump { addr: end }),
    );
    prog.groups.push(s);
    prog.insts.push([nop_inst(); 2]);
    prog
}

fn nop_inst() -> Inst {
    Inst::new(Opcode::Nop, &[], 0)
}

/// Static counter contributions of one operation.
fn static_counts(inst: &Inst, f: OpFlags, prev_swap: bool) -> u128 {
    let p = inst.opcode.info().props;
    let mut c = lane(Lane::Ops, 1);
    if p.contains(OpProps::NOP) {
        c += lane(Lane::Nops, 1);
    }
    if f.contains(OpFlags::COPY) {
        c += lane(Lane::Moves, 1);
    }
    if f.contains(OpFlags::SWAP_PART) && !prev_swap {
        c += lane(Lane::Swaps, 1);
    }
    if p.contains(OpProps::LOAD) {
        c += lane(
            if f.contains(OpFlags::SPILL_LOAD) {
                Lane::SpillLoads
            } else {
                Lane::Loads
            },
            1,
        );
    }
    if p.contains(OpProps::STORE) {
        c += lane(
            if f.contains(OpFlags::SPILL_STORE) {
                Lane::SpillStores
            } else {
                Lane::Stores
            },
            1,
        );
    }
    c
}

/// Scoreboard checks and slow destinations of a group, appended to `sb`.
fn scoreboard(g: &mut Group, ops: &[Inst], slow_reg: &[bool; 49], sb: &mut Vec<(u8, u8)>) {
    // Earliest issue requirement per register: ready - adj, keep the smallest adj.
    let mut need: [Option<u8>; 48] = [None; 48];
    let mut require = |idx: usize, adj: u8| {
        if slow_reg[idx] {
            need[idx] = Some(need[idx].map_or(adj, |a| a.min(adj)));
        }
    };
    for inst in ops {
        for r in inst.uses() {
            require(r.index(), 0);
        }
        for (r, lat) in inst.defs() {
            // ASSUMPTION (WAW): a new write may not complete before an older pending one.
            require(r.index(), lat);
        }
    }
    let checks: Vec<(u8, u8)> = need
        .iter()
        .enumerate()
        .filter_map(|(idx, adj)| adj.map(|a| (idx as u8, a)))
        .collect();
    let slows: Vec<(u8, u8)> = ops
        .iter()
        .flat_map(|inst| inst.defs())
        .filter(|&(_, lat)| lat >= 2)
        .map(|(r, lat)| (r.index() as u8, lat))
        .collect();
    if let Some(&(idx, adj)) = checks.first() {
        (g.check_idx, g.check_adj) = (idx, adj);
    }
    if let Some(&(idx, lat)) = slows.first() {
        (g.slow_idx, g.slow_lat) = (idx, lat);
    }
    // Two operations name at most 12 distinct registers (two MACs: 4 registers and a guard
    // each) and write at most 4 with latency >= 2, so both counts fit a nibble.
    debug_assert!(checks.len() <= 16 && slows.len() <= 16);
    let (more_checks, more_slows) = (&checks[checks.len().min(1)..], &slows[slows.len().min(1)..]);
    g.sb = sb.len() as u32;
    g.more = ((more_checks.len() as u8 & 15) << 4) | (more_slows.len() as u8 & 15);
    sb.extend_from_slice(more_checks);
    sb.extend_from_slice(more_slows);
}

/// Read and write sets (register indices, `MEM_IDX` for memory) of an operation.
fn rw_sets(inst: &Inst) -> (Vec<usize>, Vec<usize>) {
    let p = inst.opcode.info().props;
    let mut reads: Vec<usize> = inst.uses().iter().map(|r| r.index()).collect();
    let mut writes: Vec<usize> = inst.defs().iter().map(|(r, _)| r.index()).collect();
    if p.intersects(OpProps::LOAD | OpProps::SYSCALL) {
        reads.push(MEM_IDX);
    }
    if p.contains(OpProps::STORE) {
        writes.push(MEM_IDX);
    }
    (reads, writes)
}

fn order_of(ops: &[Inst]) -> Order {
    if ops.len() < 2 {
        return Order::Seq;
    }
    let (ra, wa) = rw_sets(&ops[0]);
    let (rb, wb) = rw_sets(&ops[1]);
    let meets = |x: &[usize], y: &[usize]| x.iter().any(|i| y.contains(i));
    let ab = meets(&rb, &wa);
    let ba = meets(&ra, &wb);
    let waw = meets(&wa, &wb);
    if !ab {
        Order::Seq
    } else if !ba && !waw {
        Order::Rev
    } else {
        Order::Buffered
    }
}

/// Lower one decoded operation at address `pc`.
fn lower(inst: &Inst, pc: u32) -> Op {
    let r = inst.regs;
    let mut op = Op {
        k: K::Nop,
        a: r[0],
        b: r[1],
        c: r[2],
        d: r[3],
        sub: 0,
        sub2: 0,
        imm: inst.imm,
        gmask: 1 << (inst.guard & 15),
    };
    let target = pc.wrapping_add((inst.imm as u32).wrapping_mul(4));
    op.k = match inst.opcode {
        Opcode::Nop => K::Nop,
        Opcode::Bin(b) => BIN_KINDS[usize::from(b.code())],
        Opcode::BinI(b) => BINI_KINDS
            .get(usize::from(b.code()))
            .copied()
            .unwrap_or(K::Nop),
        Opcode::Un(UnOp::Move) => K::Move,
        Opcode::Un(u) => {
            op.sub = u.code();
            K::Un
        }
        Opcode::Make => {
            op.imm = sem::make(inst.imm) as i32;
            K::SetR
        }
        Opcode::MakeP => {
            op.imm = sem::makep(inst.imm) as i32;
            K::SetR
        }
        Opcode::More => K::More,
        Opcode::MakeA => {
            op.imm = sem::make_a(inst.imm) as i32;
            K::SetP
        }
        Opcode::MoreA => K::MoreA,
        Opcode::Mul(fam, v) => {
            op.sub = fam as u8;
            op.sub2 = v.code();
            if fam == MulFamily::Mp {
                // MP has no accumulator: operands are in b, c.
                op.d = op.c;
                op.c = op.b;
            }
            K::Mul
        }
        Opcode::Cmp(kind, cond) | Opcode::CmpI(kind, cond) => {
            let imm = matches!(inst.opcode, Opcode::CmpI(..));
            op.sub = cond_mask(cond);
            op.d = if matches!(kind, CmpKind::W | CmpKind::Uw) {
                32
            } else {
                0
            };
            match (kind, imm) {
                (CmpKind::W | CmpKind::E, false) => K::CmpS,
                (CmpKind::W | CmpKind::E, true) => K::CmpSI,
                (CmpKind::Uw, false) => K::CmpU,
                (CmpKind::Uw, true) => K::CmpUI,
                (CmpKind::A, false) => K::CmpP,
                (CmpKind::A, true) => K::CmpPI,
            }
        }
        Opcode::Guard(gop) => {
            op.imm = (0..4).fold(0i32, |tt, i| {
                tt | (i32::from(sem::guard_op(gop, i & 2 != 0, i & 1 != 0)) << i)
            });
            K::GLogic
        }
        Opcode::NotG => {
            (op.b, op.c, op.imm) = (op.a, op.a, 0b0001);
            K::GLogic
        }
        Opcode::MoveG => {
            (op.c, op.imm) = (op.b, 0b1000);
            K::GLogic
        }
        Opcode::SetG => {
            op.imm = 0b1111;
            K::GLogic
        }
        Opcode::ClrG => {
            op.imm = 0;
            K::GLogic
        }
        Opcode::Bool => K::Bool,
        Opcode::CopyA => K::CopyA,
        Opcode::CopyD => K::CopyD,
        Opcode::MoveA => K::MoveA,
        Opcode::Au(a) => {
            let s = i32::from(a.scale());
            op.imm = if a.is_sub() { -s } else { s };
            K::AuR
        }
        Opcode::AuI(a) => {
            let s = inst.imm * i32::from(a.scale());
            op.imm = if a.is_sub() { -s } else { s };
            K::AuI
        }
        Opcode::Load(kind, mode) => {
            lower_mem(&mut op, mode, kind.size(), inst.imm);
            let to_p = kind.class() == crate::isa::st120::RegClass::P;
            op.sub = if kind.signed() {
                64 - 8 * kind.size()
            } else {
                0
            };
            match (to_p, mode_class(mode)) {
                (false, 0) => K::LdI,
                (false, 1) => K::LdR,
                (false, 2) => K::LdPI,
                (false, _) => K::LdPR,
                (true, 0) => K::LaI,
                (true, 1) => K::LaR,
                (true, 2) => K::LaPI,
                (true, _) => K::LaPR,
            }
        }
        Opcode::Store(kind, mode) => {
            // Stores keep the value register in `a`, like loads.
            let (base, q, v) = if mode.is_reg_offset() {
                (r[0], r[1], r[2])
            } else {
                (r[0], 0, r[1])
            };
            (op.a, op.b, op.c) = (v, base, q);
            lower_mem(&mut op, mode, kind.size(), inst.imm);
            op.sub = u8::from(kind.class() == crate::isa::st120::RegClass::P);
            match mode_class(mode) {
                0 => K::StI,
                1 => K::StR,
                2 => K::StPI,
                _ => K::StPR,
            }
        }
        Opcode::Goto => {
            [op.a, op.b, op.c, op.d] = target.to_le_bytes();
            K::Goto
        }
        Opcode::GotoF => {
            [op.a, op.b, op.c, op.d] = target.to_le_bytes();
            K::GotoF
        }
        Opcode::Call => {
            [op.a, op.b, op.c, op.d] = target.to_le_bytes();
            K::Call
        }
        Opcode::Jump => K::Jump,
        Opcode::JumpF => K::JumpF,
        Opcode::Link => K::Link,
        Opcode::Rts => K::Rts,
        Opcode::Trap => K::Trap,
    };
    op
}

fn lower_mem(op: &mut Op, mode: AddrMode, size: u8, imm: i32) {
    op.d = size.trailing_zeros() as u8;
    let sign = if mode.is_minus() { -1 } else { 1 };
    op.imm = if mode.is_reg_offset() {
        sign
    } else {
        sign * imm * i32::from(size)
    };
}

/// 0: @(P ± imm), 1: @(P ± Pq), 2: post-modify by imm, 3: post-modify by Pq.
fn mode_class(mode: AddrMode) -> u8 {
    u8::from(mode.is_reg_offset()) + 2 * u8::from(mode.is_post_modify())
}

// ---------------------------------------------------------------------------------------
// The machine

/// Architectural state: 40-bit R as canonical i64, 32-bit P, guards as a bit mask (bit 15
/// always set). The register arrays have 256 entries so that a `u8` register number indexes
/// them without a mask or a bounds check; only the first 16 are ever used (register numbers
/// come from 4-bit fields).
#[derive(Clone, Copy, Debug)]
struct Regs {
    r: [i64; 256],
    p: [u32; 256],
    g: u32,
}

/// Mutable machine state.
struct Core {
    regs: Regs,
    mem: Memory,
    /// Scoreboard: cycle from which each register's pending value can be read.
    ready: [u64; 256],
    output: Vec<u8>,
    max_output: usize,
}

/// A loaded ST120 program ready to run (public for tests and tools).
pub struct Machine {
    prog: Program,
    core: Core,
    entry: usize,
    table: Option<FunctionTable>,
    opts: RunOptions,
}

/// How a run ended.
enum End {
    Exit(i32),
    Trap(TrapKind, u32),
}

/// What the slow path decided.
enum Flow {
    Go(usize),
    Stop(End),
}

impl Machine {
    /// Load `obj` into a fresh memory and pre-decode it.
    pub fn load(obj: &Object, opts: &RunOptions) -> Result<Machine, Trap> {
        let mem = Memory::with_image(obj, opts.mem_size).map_err(Trap::at_load)?;
        let prog = predecode(obj);
        let entry = prog
            .group_at(obj.entry)
            .ok_or_else(|| Trap::at_load(TrapKind::BadJump { addr: obj.entry }))?;
        let mut regs = Regs {
            r: [0; 256],
            p: [0; 256],
            g: 1 << GUARD_TRUE,
        };
        // ASSUMPTION (project start-up): SP = top of memory, P11 = halt address.
        regs.p[usize::from(crate::isa::st120::SP)] = mem.initial_sp();
        regs.p[usize::from(LINK)] = HALT_ADDRESS;
        Ok(Machine {
            prog,
            core: Core {
                regs,
                mem,
                ready: [0; 256],
                output: Vec::new(),
                max_output: opts.max_output,
            },
            entry,
            table: Some(FunctionTable::new(obj)),
            opts: opts.clone(),
        })
    }

    /// Value of data register `n` (canonical 40-bit).
    pub fn r(&self, n: usize) -> i64 {
        self.core.regs.r[n & 15]
    }
    /// Value of pointer register `n`.
    pub fn p(&self, n: usize) -> u32 {
        self.core.regs.p[n & 15]
    }
    /// Value of guard `n`.
    pub fn g(&self, n: usize) -> bool {
        self.core.regs.g >> (n & 15) & 1 != 0
    }
    /// Guest memory.
    pub fn memory(&self) -> &Memory {
        &self.core.mem
    }

    /// Run to the end; `TRACE` prints every issued group to `trace`.
    pub fn run<const TRACE: bool>(&mut self, trace: &mut dyn Write) -> RunReport {
        let table = self
            .table
            .take()
            .unwrap_or_else(|| FunctionTable::new(&Object::new(crate::isa::Target::St120)));
        let entry_addr = self.prog.groups[self.entry].addr;
        let mut prof = Profiler::new(table, entry_addr, self.opts.max_call_depth);
        let mut c = Run {
            stalls: 0,
            taken: 0,
            acc: 0,
            flushed: [0; LANES],
        };
        let end = execute::<TRACE>(
            &self.prog,
            &mut self.core,
            &mut c,
            &mut prof,
            trace,
            self.entry,
            self.opts.max_cycles,
        );
        let now = c.now();
        let (exit_code, trap) = match end {
            End::Exit(code) => (code, None),
            End::Trap(kind, pc) => {
                let function = prof.table().name_at(pc);
                (
                    -1,
                    Some(Trap {
                        kind,
                        pc,
                        function,
                        cycle: c.cycle(),
                    }),
                )
            }
        };
        let functions = prof.finish(now);
        RunReport {
            exit_code,
            output: std::mem::take(&mut self.core.output),
            totals: now,
            functions,
            trap,
            host_seconds: 0.0,
        }
    }
}

/// The interpreter loop: scoreboard, counters and plain operations inline; everything else
/// (control, reordered and illegal groups, flushes, the budget) in [`slow_group`].
fn execute<const TRACE: bool>(
    prog: &Program,
    core: &mut Core,
    c: &mut Run,
    prof: &mut Profiler,
    trace: &mut dyn Write,
    entry: usize,
    max_cycles: u64,
) -> End {
    let mut gi = entry;
    loop {
        if !TRACE {
            gi = match run_fast(prog, core, c, gi, max_cycles) {
                Ok(next) => next,
                Err(end) => return end,
            };
        }
        let Some(g) = prog.groups.get(gi) else {
            return End::Trap(TrapKind::BadJump { addr: 0 }, 0);
        };
        let now = c.cycle();
        let mut t = now;
        if g.flags & F_SB != 0 {
            t = scoreboard_issue(prog, core, g, t);
            c.stalls += t - now;
        }
        c.acc = c.acc.wrapping_add(g.counts);
        if TRACE {
            trace_group(trace, prog, gi, t);
        }
        match slow_group(prog, core, c, prof, g, gi, max_cycles) {
            Flow::Go(n) => gi = n,
            Flow::Stop(e) => return e,
        }
    }
}

/// The hot loop: runs plain groups and in-order groups ending with a direct branch, from
/// group `gi`, until a group that needs [`slow_group`] (whose index it returns, not yet
/// issued). Scoreboard, counters and plain operations are inline.
#[inline(never)]
fn run_fast(
    prog: &Program,
    core: &mut Core,
    c: &mut Run,
    mut gi: usize,
    max_cycles: u64,
) -> Result<usize, End> {
    let groups = &prog.groups[..];
    loop {
        let Some(g) = groups.get(gi) else {
            return Ok(gi);
        };
        let flags = g.flags & !F_SB;
        if flags != 0 && flags != F_BRANCH {
            return Ok(gi);
        }
        // Scoreboard: the group issues when its operands are ready.
        let now = c.cycle();
        let mut t = now;
        if g.flags & F_SB != 0 {
            t = scoreboard_issue(prog, core, g, t);
            c.stalls += t - now;
        }
        c.acc = c.acc.wrapping_add(g.counts);
        if flags == 0 {
            // Plain operations in order, fall through.
            if let Err(k) = exec(&mut core.regs, &mut core.mem, &g.ops[0]) {
                return Err(End::Trap(k, g.addr));
            }
            if g.n == 2 {
                if let Err(k) = exec(&mut core.regs, &mut core.mem, &g.ops[1]) {
                    return Err(End::Trap(k, g.addr + 4));
                }
            }
            gi += 1;
            continue;
        }
        // In-order group ending with a direct branch.
        let last = usize::from(g.n.max(1)) - 1;
        if last == 1 {
            if let Err(k) = exec(&mut core.regs, &mut core.mem, &g.ops[0]) {
                return Err(End::Trap(k, g.addr));
            }
        }
        let br = &g.ops[last];
        if br.k == K::Goto || !guard_on(&core.regs, br) {
            gi = br.imm as u32 as usize;
            c.taken += 1;
            if c.acc >= FLUSH_THRESHOLD {
                c.flush();
            }
            if c.cycle() >= max_cycles {
                return Err(End::Trap(TrapKind::CycleBudget, g.addr + 4 * last as u32));
            }
        } else {
            gi += 1;
        }
    }
}

/// Issue cycle of a group with scoreboard entries (at or after `t`), and the ready times
/// of its slow destinations.
#[inline(always)]
fn scoreboard_issue(prog: &Program, core: &mut Core, g: &Group, mut t: u64) -> u64 {
    let ready = &mut core.ready;
    t = t.max(ready[usize::from(g.check_idx)].saturating_sub(u64::from(g.check_adj)));
    if g.more != 0 {
        t = scoreboard_more(prog, ready, g, t);
    }
    ready[usize::from(g.slow_idx)] = t + u64::from(g.slow_lat);
    t
}

/// The scoreboard entries beyond the inline ones (rare: groups with several long-latency
/// operands or results).
#[inline(never)]
fn scoreboard_more(prog: &Program, ready: &mut [u64; 256], g: &Group, mut t: u64) -> u64 {
    let sb = g.sb as usize;
    let n = usize::from(g.more >> 4);
    let m = n + usize::from(g.more & 15);
    for &(idx, adj) in prog.sb.get(sb..sb + n).unwrap_or(&[]) {
        t = t.max(ready[usize::from(idx)].saturating_sub(u64::from(adj)));
    }
    for &(idx, lat) in prog.sb.get(sb + n..sb + m).unwrap_or(&[]) {
        ready[usize::from(idx)] = t + u64::from(lat);
    }
    t
}

/// Control, reordering, illegal groups, counter flushes and the cycle budget.
#[inline(never)]
fn slow_group(
    prog: &Program,
    core: &mut Core,
    c: &mut Run,
    prof: &mut Profiler,
    g: &Group,
    gi: usize,
    max_cycles: u64,
) -> Flow {
    use Flow::Stop;
    if c.acc >= FLUSH_THRESHOLD {
        c.flush();
    }
    if c.cycle() >= max_cycles {
        return Stop(End::Trap(TrapKind::CycleBudget, g.addr));
    }
    if g.flags & F_ILLEGAL != 0 {
        let kind = match prog.aux.get(&gi) {
            Some(Aux::Trap(k)) => k.clone(),
            _ => TrapKind::Unsupported("corrupt pre-decoded group"),
        };
        // The illegal group does not issue (its counters are 0: no bundle, no cycle).
        return Stop(End::Trap(kind, g.addr));
    }
    let regs = &mut core.regs;
    let mem = &mut core.mem;
    let mut ctl = Ctl::Next;
    let res = match g.order {
        Order::Seq => exec_slots(regs, mem, g, [0, 1], &mut ctl),
        Order::Rev => exec_slots(regs, mem, g, [1, 0], &mut ctl),
        Order::Buffered => exec_buffered(regs, mem, g, prog.aux.get(&gi), &mut ctl),
    };
    if let Err((k, slot)) = res {
        return Stop(End::Trap(k, g.addr + 4 * slot as u32));
    }
    let next = gi + 1;
    let next_addr = g.addr.wrapping_add(4 * u32::from(g.n));
    let ctl_pc = g.addr + 4 * (u32::from(g.n).max(1) - 1);
    let bad_jump = |addr| Stop(End::Trap(TrapKind::BadJump { addr }, ctl_pc));
    Flow::Go(match ctl {
        Ctl::Next => next,
        Ctl::To(idx, addr) => {
            c.take_branch();
            if idx == NO_GROUP {
                return bad_jump(addr);
            }
            idx as usize
        }
        Ctl::Dynamic(addr) => {
            c.take_branch();
            match prog.group_at(addr) {
                Some(x) => x,
                None => return bad_jump(addr),
            }
        }
        Ctl::Call(idx, addr) => {
            regs.p[usize::from(LINK)] = next_addr;
            c.take_branch();
            let target = if idx == NO_GROUP {
                prog.group_at(addr)
            } else {
                Some(idx as usize)
            };
            let Some(x) = target else {
                return bad_jump(addr);
            };
            if let Err(k) = prof.call(addr, c.now()) {
                return Stop(End::Trap(k, ctl_pc));
            }
            x
        }
        Ctl::Return(addr) => {
            c.take_branch();
            if addr == HALT_ADDRESS {
                prof.ret(c.now());
                return Stop(End::Exit(regs.r[0] as i32));
            }
            let Some(x) = prog.group_at(addr) else {
                return bad_jump(addr);
            };
            prof.ret(c.now());
            x
        }
        Ctl::Syscall(n) => {
            let arg = regs.r[0] as u32;
            let ptr = regs.p[0];
            match syscall(
                u32::from(n),
                arg,
                ptr,
                arg,
                mem,
                &mut core.output,
                core.max_output,
            ) {
                Ok(SyscallOutcome::Continue) => next,
                Ok(SyscallOutcome::Exit(code)) => return Stop(End::Exit(code)),
                Err(k) => return Stop(End::Trap(k, ctl_pc)),
            }
        }
    })
}

/// Running counters of the interpreter loop.
struct Run {
    stalls: u64,
    taken: u64,
    acc: u128,
    flushed: [u64; LANES],
}

impl Run {
    #[inline]
    fn flush(&mut self) {
        let mask = (1u128 << LANE_BITS) - 1;
        for (l, f) in self.flushed.iter_mut().enumerate() {
            *f += ((self.acc >> (LANE_BITS * l as u32)) & mask) as u64;
        }
        self.acc = 0;
    }

    #[inline]
    fn take_branch(&mut self) {
        self.taken += 1;
    }

    /// Elapsed cycles: one per issued group, plus stalls, plus the bubbles of taken
    /// branches (derived, so the hot loop need not count them).
    #[inline(always)]
    fn cycle(&self) -> u64 {
        let mask = (1u128 << LANE_BITS) - 1;
        let bundles = self.flushed[Lane::Bundles as usize] + (self.acc & mask) as u64;
        bundles + self.stalls + self.taken * u64::from(TAKEN_BRANCH_BUBBLES)
    }

    /// Totals so far.
    fn now(&mut self) -> Counters {
        self.flush();
        let f = &self.flushed;
        Counters {
            cycles: self.cycle(),
            stall_operand: self.stalls,
            stall_memport: 0,
            bundles: f[Lane::Bundles as usize],
            ops: f[Lane::Ops as usize],
            nops: f[Lane::Nops as usize],
            moves: f[Lane::Moves as usize],
            swaps: f[Lane::Swaps as usize],
            loads: f[Lane::Loads as usize],
            stores: f[Lane::Stores as usize],
            spill_loads: f[Lane::SpillLoads as usize],
            spill_stores: f[Lane::SpillStores as usize],
            taken_branches: self.taken,
        }
    }
}

/// Pending control effect of a group.
#[derive(Clone, Copy, Debug)]
enum Ctl {
    Next,
    /// Static target: group index (or `NO_GROUP`) and address.
    To(u32, u32),
    Dynamic(u32),
    Call(u32, u32),
    Return(u32),
    Syscall(u8),
}

fn trace_group(trace: &mut dyn Write, prog: &Program, gi: usize, issue: u64) {
    let g = &prog.groups[gi];
    let text: Vec<String> = (0..usize::from(g.n))
        .map(|k| format_inst(&prog.insts[gi][k], g.addr + 4 * k as u32, &|_| None))
        .collect();
    let _ = writeln!(
        trace,
        "{issue:>10}  {:08x}:  {} ;;",
        g.addr,
        text.join(" ; ")
    );
}

#[inline(always)]
fn guard_on(regs: &Regs, op: &Op) -> bool {
    regs.g & op.gmask != 0
}

/// Execute the operations of a group in `order`, recording a control effect.
fn exec_slots(
    regs: &mut Regs,
    mem: &mut Memory,
    g: &Group,
    order: [usize; 2],
    ctl: &mut Ctl,
) -> Result<(), (TrapKind, usize)> {
    for &k in &order {
        if k < usize::from(g.n) {
            exec_any(regs, mem, &g.ops[k], ctl).map_err(|e| (e, k))?;
        }
    }
    Ok(())
}

/// Each operation on the old register file; results merged, slot 1 winning double writes.
/// When one slot stores and the other loads, the load runs first (reads before writes).
fn exec_buffered(
    regs: &mut Regs,
    mem: &mut Memory,
    g: &Group,
    aux: Option<&Aux>,
    ctl: &mut Ctl,
) -> Result<(), (TrapKind, usize)> {
    let Some(Aux::Dests(dests)) = aux else {
        return Err((TrapKind::Unsupported("corrupt pre-decoded group"), 0));
    };
    let first = usize::from(matches!(g.ops[0].k, K::StI | K::StR | K::StPI | K::StPR));
    let old = *regs;
    let mut after = [old; 2];
    let mut active = [false; 2];
    for k in [first, 1 - first] {
        *regs = old;
        active[k] = exec_any(regs, mem, &g.ops[k], ctl).map_err(|e| (e, k))?;
        after[k] = *regs;
    }
    *regs = old;
    for k in 0..2 {
        if !active[k] {
            continue;
        }
        for &d in &dests[k] {
            let d = usize::from(d);
            match d {
                0..=15 => regs.r[d] = after[k].r[d],
                16..=31 => regs.p[d - 16] = after[k].p[d - 16],
                _ => {
                    let bit = 1u32 << (d - 32);
                    regs.g = (regs.g & !bit) | (after[k].g & bit);
                }
            }
        }
    }
    Ok(())
}

/// Execute any operation (control ones only record their effect); returns whether the
/// guard let it act.
#[inline]
fn exec_any(regs: &mut Regs, mem: &mut Memory, op: &Op, ctl: &mut Ctl) -> Result<bool, TrapKind> {
    let on = guard_on(regs, op);
    match op.k {
        K::Goto => *ctl = Ctl::To(op.imm as u32, op.target_addr()),
        K::GotoF => {
            if !on {
                *ctl = Ctl::To(op.imm as u32, op.target_addr());
            }
            return Ok(!on);
        }
        K::Call if on => *ctl = Ctl::Call(op.imm as u32, op.target_addr()),
        K::Jump => *ctl = Ctl::Dynamic(regs.p[usize::from(JUMP_TARGET)]),
        K::JumpF => {
            if !on {
                *ctl = Ctl::Dynamic(regs.p[usize::from(JUMP_TARGET)]);
            }
            return Ok(!on);
        }
        K::Link if on => *ctl = Ctl::Call(NO_GROUP, regs.p[usize::from(JUMP_TARGET)]),
        K::Rts if on => *ctl = Ctl::Return(regs.p[usize::from(LINK)]),
        K::Trap if on => *ctl = Ctl::Syscall(op.imm as u8),
        K::Call | K::Link | K::Rts | K::Trap => {}
        _ => exec(regs, mem, op)?,
    }
    Ok(on)
}

#[inline(always)]
fn set_g(regs: &mut Regs, n: u8, v: bool) {
    let bit = 1u32 << n;
    regs.g = (regs.g & !bit) | (u32::from(v) << n);
}

/// Execute one non-control operation (a guarded-off one does nothing).
#[inline(always)]
fn exec(regs: &mut Regs, mem: &mut Memory, op: &Op) -> Result<(), TrapKind> {
    if !guard_on(regs, op) {
        return Ok(());
    }
    let (a, b, c) = (usize::from(op.a), usize::from(op.b), usize::from(op.c));
    let r = &mut regs.r;
    match op.k {
        K::Nop => {}
        K::Add => r[a] = sem::bin(BinOp::Add, r[b], r[c]),
        K::Addu => r[a] = sem::bin(BinOp::Addu, r[b], r[c]),
        K::Sub => r[a] = sem::bin(BinOp::Sub, r[b], r[c]),
        K::Subu => r[a] = sem::bin(BinOp::Subu, r[b], r[c]),
        K::And => r[a] = sem::bin(BinOp::And, r[b], r[c]),
        K::Or => r[a] = sem::bin(BinOp::Or, r[b], r[c]),
        K::Xor => r[a] = sem::bin(BinOp::Xor, r[b], r[c]),
        K::Andn => r[a] = sem::bin(BinOp::Andn, r[b], r[c]),
        K::Orn => r[a] = sem::bin(BinOp::Orn, r[b], r[c]),
        K::Nand => r[a] = sem::bin(BinOp::Nand, r[b], r[c]),
        K::Nor => r[a] = sem::bin(BinOp::Nor, r[b], r[c]),
        K::Xnor => r[a] = sem::bin(BinOp::Xnor, r[b], r[c]),
        K::Shl => r[a] = sem::bin(BinOp::Shl, r[b], r[c]),
        K::Shlu => r[a] = sem::bin(BinOp::Shlu, r[b], r[c]),
        K::Shr => r[a] = sem::bin(BinOp::Shr, r[b], r[c]),
        K::Shru => r[a] = sem::bin(BinOp::Shru, r[b], r[c]),
        K::Shrw => r[a] = sem::bin(BinOp::Shrw, r[b], r[c]),
        K::Shruw => r[a] = sem::bin(BinOp::Shruw, r[b], r[c]),
        K::Addp => r[a] = sem::bin(BinOp::Addp, r[b], r[c]),
        K::Subp => r[a] = sem::bin(BinOp::Subp, r[b], r[c]),
        K::Addup => r[a] = sem::bin(BinOp::Addup, r[b], r[c]),
        K::Subup => r[a] = sem::bin(BinOp::Subup, r[b], r[c]),
        K::Andp => r[a] = sem::bin(BinOp::Andp, r[b], r[c]),
        K::Orp => r[a] = sem::bin(BinOp::Orp, r[b], r[c]),
        K::Xorp => r[a] = sem::bin(BinOp::Xorp, r[b], r[c]),
        K::AddI => r[a] = sem::bin(BinOp::Add, r[b], i64::from(op.imm)),
        K::AdduI => r[a] = sem::bin(BinOp::Addu, r[b], i64::from(op.imm)),
        K::SubI => r[a] = sem::bin(BinOp::Sub, r[b], i64::from(op.imm)),
        K::SubuI => r[a] = sem::bin(BinOp::Subu, r[b], i64::from(op.imm)),
        K::AndI => r[a] = sem::bin(BinOp::And, r[b], i64::from(op.imm)),
        K::OrI => r[a] = sem::bin(BinOp::Or, r[b], i64::from(op.imm)),
        K::XorI => r[a] = sem::bin(BinOp::Xor, r[b], i64::from(op.imm)),
        K::AndnI => r[a] = sem::bin(BinOp::Andn, r[b], i64::from(op.imm)),
        K::OrnI => r[a] = sem::bin(BinOp::Orn, r[b], i64::from(op.imm)),
        K::NandI => r[a] = sem::bin(BinOp::Nand, r[b], i64::from(op.imm)),
        K::NorI => r[a] = sem::bin(BinOp::Nor, r[b], i64::from(op.imm)),
        K::XnorI => r[a] = sem::bin(BinOp::Xnor, r[b], i64::from(op.imm)),
        K::ShlI => r[a] = sem::bin(BinOp::Shl, r[b], i64::from(op.imm)),
        K::ShluI => r[a] = sem::bin(BinOp::Shlu, r[b], i64::from(op.imm)),
        K::ShrI => r[a] = sem::bin(BinOp::Shr, r[b], i64::from(op.imm)),
        K::ShruI => r[a] = sem::bin(BinOp::Shru, r[b], i64::from(op.imm)),
        K::ShrwI => r[a] = sem::bin(BinOp::Shrw, r[b], i64::from(op.imm)),
        K::ShruwI => r[a] = sem::bin(BinOp::Shruw, r[b], i64::from(op.imm)),
        K::Move => r[a] = r[b],
        K::Un => r[a] = sem::un(un_op(op.sub), r[b]),
        K::SetR => r[a] = i64::from(op.imm),
        K::More => r[a] = sem::more(r[a], op.imm),
        K::SetP => regs.p[a] = op.imm as u32,
        K::MoreA => regs.p[a] = sem::more_a(regs.p[a], op.imm),
        K::Mul => {
            let d = usize::from(op.d);
            r[a] = sem::mul(mul_family(op.sub), mul_variant(op.sub2), r[b], r[c], r[d]);
        }
        K::CmpS => set_g(regs, op.a, cmp_signed(op, regs.r[b], regs.r[c])),
        K::CmpSI => set_g(regs, op.a, cmp_signed(op, regs.r[b], i64::from(op.imm))),
        K::CmpU => set_g(regs, op.a, cmp_unsigned(op, regs.r[b], regs.r[c])),
        K::CmpUI => set_g(regs, op.a, cmp_unsigned(op, regs.r[b], i64::from(op.imm))),
        K::CmpP => {
            let rel = relation(regs.p[b], regs.p[c]);
            set_g(regs, op.a, op.sub & rel != 0);
        }
        K::CmpPI => {
            let rel = relation(regs.p[b], op.imm as u32);
            set_g(regs, op.a, op.sub & rel != 0);
        }
        K::GLogic => {
            let i = ((regs.g >> op.b & 1) << 1) | (regs.g >> op.c & 1);
            set_g(regs, op.a, op.imm >> i & 1 != 0);
        }
        K::Bool => r[a] = sem::bool_value(regs.g >> op.b & 1 != 0),
        K::CopyA => regs.p[a] = sem::copy_a(r[b]),
        K::CopyD => r[a] = sem::copy_d(regs.p[b]),
        K::MoveA => regs.p[a] = regs.p[b],
        K::AuR => regs.p[a] = regs.p[b].wrapping_add(regs.p[c].wrapping_mul(op.imm as u32)),
        K::AuI => regs.p[a] = regs.p[b].wrapping_add(op.imm as u32),
        K::LdI => {
            let addr = regs.p[b].wrapping_add(op.imm as u32);
            regs.r[a] = extend(load(mem, op.d, addr)?, op.sub);
        }
        K::LdR => {
            let addr = regs.p[b].wrapping_add(reg_delta(regs, op));
            regs.r[a] = extend(load(mem, op.d, addr)?, op.sub);
        }
        K::LdPI => {
            let base = regs.p[b];
            let raw = load(mem, op.d, base)?;
            // Base first: when the base is also the destination, the loaded value wins.
            regs.p[b] = base.wrapping_add(op.imm as u32);
            regs.r[a] = extend(raw, op.sub);
        }
        K::LdPR => {
            let base = regs.p[b];
            let raw = load(mem, op.d, base)?;
            regs.p[b] = base.wrapping_add(reg_delta(regs, op));
            regs.r[a] = extend(raw, op.sub);
        }
        K::LaI => {
            let addr = regs.p[b].wrapping_add(op.imm as u32);
            regs.p[a] = sem::load_p(load(mem, op.d, addr)?);
        }
        K::LaR => {
            let addr = regs.p[b].wrapping_add(reg_delta(regs, op));
            regs.p[a] = sem::load_p(load(mem, op.d, addr)?);
        }
        K::LaPI => {
            let base = regs.p[b];
            let raw = load(mem, op.d, base)?;
            regs.p[b] = base.wrapping_add(op.imm as u32);
            regs.p[a] = sem::load_p(raw);
        }
        K::LaPR => {
            let base = regs.p[b];
            let raw = load(mem, op.d, base)?;
            regs.p[b] = base.wrapping_add(reg_delta(regs, op));
            regs.p[a] = sem::load_p(raw);
        }
        K::StI => {
            let addr = regs.p[b].wrapping_add(op.imm as u32);
            store(mem, op.d, addr, store_value(regs, op))?;
        }
        K::StR => {
            let addr = regs.p[b].wrapping_add(reg_delta(regs, op));
            store(mem, op.d, addr, store_value(regs, op))?;
        }
        K::StPI => {
            let base = regs.p[b];
            store(mem, op.d, base, store_value(regs, op))?;
            regs.p[b] = base.wrapping_add(op.imm as u32);
        }
        K::StPR => {
            let base = regs.p[b];
            store(mem, op.d, base, store_value(regs, op))?;
            regs.p[b] = base.wrapping_add(reg_delta(regs, op));
        }
        K::Goto | K::GotoF | K::Call | K::Jump | K::JumpF | K::Link | K::Rts | K::Trap => {}
    }
    Ok(())
}

/// Condition as a mask over the relation bits of [`relation`]. Same results as
/// [`sem::compare`] (checked by the differential test).
fn cond_mask(c: CmpCond) -> u8 {
    match c {
        CmpCond::Eq => 2,
        CmpCond::Ne => 5,
        CmpCond::Lt => 1,
        CmpCond::Le => 3,
        CmpCond::Gt => 4,
        CmpCond::Ge => 6,
    }
}

/// 1 if a < b, 2 if a == b, 4 if a > b (branch-free).
#[inline(always)]
fn relation<T: Ord>(a: T, b: T) -> u8 {
    (2u8 << u8::from(a > b)) >> u8::from(a < b)
}

/// Signed compare of the operands sign-extended from bit `63 - d`.
#[inline(always)]
fn cmp_signed(op: &Op, x: i64, y: i64) -> bool {
    let s = u32::from(op.d & 63);
    op.sub & relation((x << s) >> s, (y << s) >> s) != 0
}

/// Unsigned compare of the operands zero-extended from bit `63 - d`.
#[inline(always)]
fn cmp_unsigned(op: &Op, x: i64, y: i64) -> bool {
    let s = u32::from(op.d & 63);
    op.sub & relation(((x as u64) << s) >> s, ((y as u64) << s) >> s) != 0
}

/// Byte offset of a register-offset access: ±(Pq << log2 size).
#[inline(always)]
fn reg_delta(regs: &Regs, op: &Op) -> u32 {
    (regs.p[usize::from(op.c)] << (op.d & 3)).wrapping_mul(op.imm as u32)
}

/// Zero-extended memory value of `1 << log_size` bytes.
#[inline(always)]
fn load(mem: &Memory, log_size: u8, addr: u32) -> Result<u32, TrapKind> {
    match log_size {
        0 => mem.load8(addr),
        1 => mem.load16(addr),
        _ => mem.load32(addr),
    }
}

#[inline(always)]
fn store(mem: &mut Memory, log_size: u8, addr: u32, v: u32) -> Result<(), TrapKind> {
    match log_size {
        0 => mem.store8(addr, v),
        1 => mem.store16(addr, v),
        _ => mem.store32(addr, v),
    }
}

/// Loaded value in a data register: sign-extended from bit `63 - shift` (`shift` = 0:
/// zero-extended). Same results as [`sem::load_r`].
#[inline(always)]
fn extend(raw: u32, shift: u8) -> i64 {
    (i64::from(raw) << (shift & 63)) >> (shift & 63)
}

#[inline(always)]
fn store_value(regs: &Regs, op: &Op) -> u32 {
    if op.sub != 0 {
        regs.p[usize::from(op.a)]
    } else {
        regs.r[usize::from(op.a)] as u32
    }
}

#[inline(always)]
fn un_op(c: u8) -> UnOp {
    UnOp::from_code(c).unwrap_or(UnOp::Move)
}
#[inline(always)]
fn mul_family(c: u8) -> MulFamily {
    match c {
        0 => MulFamily::Mp,
        1 => MulFamily::Ma,
        _ => MulFamily::Ms,
    }
}
#[inline(always)]
fn mul_variant(c: u8) -> MulVariant {
    MulVariant::from_code(c & 15).unwrap_or(MulVariant::new(false, false, false, false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::st120::wrap40;

    /// The branch-free compares agree with the reference semantics on interesting values.
    #[test]
    fn flattened_compares_match_semantics() {
        let vals: Vec<i64> = [
            0i64,
            1,
            -1,
            0x7FFF_FFFF,
            -0x8000_0000,
            0x8000_0000,
            0x1_0000_0005,
            5,
            0x7F_FFFF_FFFF,
            -0x80_0000_0000,
            200,
        ]
        .iter()
        .map(|&v| wrap40(v))
        .collect();
        for &kind in CmpKind::ALL {
            for &cond in CmpCond::ALL {
                let inst = Inst::new(Opcode::Cmp(kind, cond), &[1, 2, 3], 0);
                let op = lower(&inst, 0x1000);
                for &x in &vals {
                    for &y in &vals {
                        let want = sem::compare(kind, cond, x, y);
                        let got = match op.k {
                            K::CmpS => cmp_signed(&op, x, y),
                            K::CmpU => cmp_unsigned(&op, x, y),
                            K::CmpP => op.sub & relation(x as u32, y as u32) != 0,
                            other => panic!("{other:?}"),
                        };
                        assert_eq!(got, want, "{kind:?} {cond:?} {x:#x} {y:#x}");
                    }
                }
            }
        }
    }
}
