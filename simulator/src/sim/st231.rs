//! Cycle-level ST231 simulator.
//!
//! Model (isa.md §A2/§A4 and their ASSUMPTIONs):
//! * the code is decoded once into a flat array of bundles ([`Bundle`]); an undecodable or
//!   rule-breaking bundle becomes a bundle that traps when (and only when) it is executed, so
//!   data or garbage in the code is harmless until reached;
//! * a whole bundle issues in one cycle; all its operations read their operands before any
//!   result is written (results go through a per-bundle result buffer);
//! * interlocks: a ready-time scoreboard over the 64 `$r` and 8 `$b` registers. A bundle
//!   issues at `max(cycle, ready[src] + extra)` over its sources, where `extra` is 2 for the
//!   `$b` read by `br`/`brf` and 1 for the `$r63` read by `icall`/`igoto`/`return` (§A4);
//!   the difference is counted as operand stall cycles. A result of latency L issued at t is
//!   ready at t + L. WAR/WAW need no stall (one bundle per cycle, in order);
//! * one load/store unit: a bundle with two memory operations is illegal (it traps), so the
//!   memory-port stall counter stays 0 on this target;
//! * a taken branch, `goto`, `call`, `icall`, `igoto`/`return` costs 1 bubble cycle
//!   (ASSUMPTION §A4); no delay slots;
//! * memory is ideal (no cache misses), little-endian; misaligned and out-of-range accesses
//!   trap (ASSUMPTION §A4). ASSUMPTION (ours): a dismissible load (`.d`) that would fault
//!   returns 0 instead of trapping; `pft` has no effect and never traps;
//! * `syscall n` (alone in its bundle; ASSUMPTION, project convention) reads `$r16`/`$r17`.
//!
//! Speed: one `match` per operation over the opcode, operands read branch-free (immediates
//! live in constant register slots), results written at once (operations ordered, or renamed
//! through temporaries, at decode time so that no operation overwrites a source another
//! operation of the bundle still has to read), static per-bundle counts (ops, nops, moves,
//! loads, stores, spills, swaps) added as one packed 128-bit word per bundle; that word, the
//! stall and taken-branch counts are the current calling context's tally (`Tally231`),
//! settled every 8192 cycles and swapped by the [`Profiler`] only at calls and returns, which
//! run on their own short paths (direct `call`, `return` to a bundle). Per bundle:
//! O(operations + sources); per call or return: O(1) (a cached context transition).
//!
//! Pre-timed blocks (`blocks.rs`): without tracing, a bundle that starts a block (a
//! straight-line run of bundles, closed by a direct branch, `goto`, direct `call` or
//! `return`, timed once at pre-decode) is run by one compare per register the block reads
//! from outside (its ready time against the block's slack) and one compare against the next
//! check cycle; then only the block's operations run, its summed static counts, inside
//! stalls and late ready times are added, and its exit is taken (a steady self-loop
//! iterates without checks). Otherwise, and always when tracing, bundles run one at a time
//! as above; both give the same counters, profiles, traps and trace (tested).

use crate::isa::st231::encoding::{decode_bundle, DecodeError, STOP};
use crate::isa::st231::{self as isa, Dest, Format, Op, OpProps, Opcode, Src};
use crate::isa::st231::{latency, semantics};
use crate::machine::output::SyscallOutcome;
use crate::machine::profile::Tally;
use crate::machine::{
    syscall, Counters, FunctionTable, Memory, Profiler, RunOptions, RunReport, Trap, TrapKind,
    HALT_ADDRESS,
};
use crate::object::{Object, OpFlags};
use blocks::{Blocks, Exit, NO_BLOCK};
use std::collections::HashMap;
use std::io::Write;
use std::time::Instant;

mod blocks;

/// Register slots: `$r0..$r63` (0..63), `$b0..$b7` (64..71), temporaries for bundles whose
/// operations cannot be ordered (240..247), a write sink (255) and an always-ready padding
/// slot (254). Slots from 256 up hold the program's distinct immediate operands, so that
/// every binary operation reads two slots (`regs[s2]` is the immediate) with no test; the
/// array has 65536 entries so that a `u16` slot index needs no bounds check.
const NREGS: usize = 256;
const NSLOTS: usize = 1 << 16;
const SINK: u8 = 255;
const PAD: u8 = 254;
const TEMP: u8 = 240;
const FIRST_CONST: usize = 256;
const MAX_OPS: usize = 4;
const MAX_SRCS: usize = 12;
const MAX_DSTS: usize = 8;
/// Unpack the static counters at least this often (in cycles) so that no 16-bit field of
/// the packed accumulator overflows (at most 4 per bundle, one bundle per cycle).
const FLUSH_INTERVAL: u64 = 8192;

/// One pre-decoded operation.
#[derive(Clone, Copy, Debug)]
struct DOp {
    opc: Opcode,
    /// Result slot ([`SINK`] for none or `$r0`).
    dst: u8,
    /// Second result slot (`$b` of addcg/divs), [`SINK`] otherwise.
    dst2: u8,
    /// `$b` operand as a slot index (64..71).
    bs: u8,
    s1: u8,
    /// Second operand: a register slot, or the constant slot holding the immediate.
    s2: u16,
    /// Position of its bundle in its pre-timed block (0 outside blocks; fills a padding
    /// byte).
    k: u8,
    /// Memory offset.
    imm: u32,
}

/// What ends a bundle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctl {
    /// Fall through.
    None,
    /// `br`/`brf` on slot `b` (64..71): taken when its value (0/1) equals `when`.
    Branch {
        b: u8,
        when: u32,
    },
    Goto,
    Call,
    Icall,
    Igoto,
    Syscall(u32),
    /// Executing this bundle traps (index into `Program::traps`).
    Trap(u32),
}

/// One pre-decoded bundle.
#[derive(Clone, Debug)]
struct Bundle {
    /// Operations other than control, `nop` and `pft`, in an execution order in which every
    /// operation runs before any other operation that overwrites one of its sources; when no
    /// such order exists (e.g. a swap), the operations write temporaries that `fix` copies
    /// into place afterwards.
    ops: [DOp; MAX_OPS],
    nops: u8,
    nfix: u8,
    fix: [(u8, u8); MAX_DSTS],
    /// Scoreboard sources (only registers that can ever be late, see `late_regs`) with the
    /// extra read delay of each.
    nsrc: u8,
    srcs: [u8; MAX_SRCS],
    extra: [u8; MAX_SRCS],
    /// Scoreboard destinations (same filter) with their latencies.
    ndst: u8,
    dsts: [u8; MAX_DSTS],
    lats: [u8; MAX_DSTS],
    ctl: Ctl,
    /// Direct branch/call target as a bundle index (`u32::MAX` when not a bundle start).
    target: u32,
    /// Direct target address (for trap messages and the profiler).
    target_addr: u32,
    addr: u32,
    /// Address of the following bundle (the return address of a call).
    next_addr: u32,
    /// Packed static counts, 16 bits each: ops, nops, moves, swaps, loads, stores,
    /// spill loads, spill stores.
    stat: u128,
}

const NOP_DOP: DOp = DOp {
    opc: Opcode::Nop,
    dst: SINK,
    dst2: SINK,
    bs: 64,
    s1: 0,
    s2: 0,
    k: 0,
    imm: 0,
};

/// The decoded program.
struct Program {
    bundles: Vec<Bundle>,
    /// Bundle index of each code word, `u32::MAX` for words that do not start a bundle.
    index: Vec<u32>,
    traps: Vec<TrapKind>,
    code_base: u32,
    /// Values of the constant slots (slot `FIRST_CONST + i` holds `consts[i]`).
    consts: Vec<u32>,
    /// The decoded operations of each bundle, for tracing.
    texts: Vec<Vec<Op>>,
    /// Function (index in the object's function table) of each bundle.
    func_of: Vec<u32>,
    /// Pre-timed blocks ([`blocks`]).
    blocks: Blocks,
}

/// Interning of immediate operands into constant slots.
#[derive(Default)]
struct Consts {
    values: Vec<u32>,
    slot_of: HashMap<u32, u16>,
}

impl Consts {
    /// The slot holding `v`, or `None` when the slots are exhausted.
    fn slot(&mut self, v: u32) -> Option<u16> {
        if let Some(&s) = self.slot_of.get(&v) {
            return Some(s);
        }
        let s = FIRST_CONST + self.values.len();
        if s >= NSLOTS {
            return None;
        }
        self.values.push(v);
        self.slot_of.insert(v, s as u16);
        Some(s as u16)
    }
}

impl Program {
    /// Bundle index of the bundle starting at `addr`.
    #[inline]
    fn lookup(&self, addr: u32) -> Option<usize> {
        let off = addr.wrapping_sub(self.code_base);
        if !off.is_multiple_of(4) {
            return None;
        }
        match self.index.get((off / 4) as usize) {
            Some(&i) if i != u32::MAX => Some(i as usize),
            _ => None,
        }
    }
}

fn pack(counts: [u64; 8]) -> u128 {
    counts.iter().enumerate().fold(0u128, |acc, (i, &c)| {
        acc | (u128::from(c as u16) << (16 * i))
    })
}

fn unpack(p: u128) -> [u64; 8] {
    std::array::from_fn(|i| ((p >> (16 * i)) & 0xFFFF) as u64)
}

fn slot(r: u8) -> u8 {
    if r == 0 {
        SINK
    } else {
        r
    }
}

/// Lower one operation to its pre-decoded form (`None` when the constant slots run out).
fn lower(op: &Op, consts: &mut Consts) -> Option<DOp> {
    let info = op.opc.info();
    let mut d = DOp {
        opc: op.opc,
        dst: SINK,
        dst2: SINK,
        bs: 64 + op.b,
        s1: op.s1,
        s2: 0,
        k: 0,
        imm: 0,
    };
    match op.dest {
        Dest::R(r) => d.dst = slot(r),
        Dest::B(b) => d.dst = 64 + b,
        Dest::None => {}
    }
    match op.s2 {
        Src::R(r) => d.s2 = u16::from(r),
        Src::Imm(v) => d.s2 = consts.slot(v as u32)?,
        Src::None => {}
    }
    match info.format {
        Format::Load | Format::Store | Format::Prefetch => d.imm = op.imm as u32,
        Format::Carry => d.dst2 = 64 + op.bdest,
        _ => {}
    }
    Some(d)
}

/// The extra read delay of source `s` of `op` (isa.md §A4).
fn read_extra(op: &Op, s: u8) -> u8 {
    match op.opc.info().format {
        Format::Branch if s >= 64 => latency::BRANCH_READS_B_EXTRA as u8,
        Format::Indirect if s == isa::LINK => latency::LINK_READ_EXTRA as u8,
        _ => 0,
    }
}

/// Registers that can ever make a consumer wait: those written by an operation of latency
/// above 1 and those read with an extra delay. Any other register is written only with
/// latency 1 and read without delay, so it is always ready by the next bundle and needs no
/// scoreboard entry.
fn late_regs(bundles: &[Option<Vec<(Op, usize)>>]) -> [bool; NREGS] {
    let mut late = [false; NREGS];
    for ops in bundles.iter().flatten() {
        for (op, _) in ops {
            if op.opc.info().latency > 1 {
                op.dests().for_each(|d| late[d as usize] = true);
            }
            op.sources()
                .filter(|&s| read_extra(op, s) > 0)
                .for_each(|s| late[s as usize] = true);
        }
    }
    late
}

/// An execution order for the (non-control) operations in which each runs before every other
/// operation that writes one of its sources; `None` when there is none (a cycle, e.g. a swap).
fn direct_order(ops: &[Op]) -> Option<Vec<usize>> {
    let n = ops.len();
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    while order.len() < n {
        // Pick an operation whose destinations no pending other operation still needs to read.
        let next = (0..n).find(|&j| {
            !done[j]
                && ops[j]
                    .dests()
                    .all(|d| (0..n).all(|i| i == j || done[i] || !ops[i].sources().any(|s| s == d)))
        })?;
        done[next] = true;
        order.push(next);
    }
    Some(order)
}

/// Build the bundle for decoded operations `ops` (with syllable positions) at `addr`.
fn build_bundle(
    ops: &[(Op, usize)],
    addr: u32,
    len: usize,
    flags: &HashMap<u32, OpFlags>,
    late: &[bool; NREGS],
    swap_prev: &mut bool,
    consts: &mut Consts,
) -> Option<Bundle> {
    let mut b = Bundle {
        ops: [NOP_DOP; MAX_OPS],
        nops: 0,
        nfix: 0,
        fix: [(SINK, SINK); MAX_DSTS],
        nsrc: 0,
        srcs: [PAD; MAX_SRCS],
        extra: [0; MAX_SRCS],
        ndst: 0,
        dsts: [SINK; MAX_DSTS],
        lats: [0; MAX_DSTS],
        ctl: Ctl::None,
        target: u32::MAX,
        target_addr: 0,
        addr,
        next_addr: addr.wrapping_add(4 * len as u32),
        stat: 0,
    };
    // ops, nops, moves, swaps, loads, stores, spill loads, spill stores
    let mut counts = [0u64; 8];
    let mut srcs: Vec<(u8, u8)> = Vec::with_capacity(MAX_SRCS);
    let mut plain: Vec<Op> = Vec::with_capacity(MAX_OPS);
    for (op, syl) in ops {
        let info = op.opc.info();
        let f = flags
            .get(&(addr + 4 * *syl as u32))
            .copied()
            .unwrap_or(OpFlags::empty());
        counts[0] += 1;
        counts[1] += u64::from(op.opc == Opcode::Nop);
        counts[2] += u64::from(f.contains(OpFlags::COPY));
        let swap = f.contains(OpFlags::SWAP_PART);
        counts[3] += u64::from(swap && !*swap_prev);
        *swap_prev = swap;
        if op.opc.is_load() {
            counts[if f.contains(OpFlags::SPILL_LOAD) {
                6
            } else {
                4
            }] += 1;
        }
        if op.opc.is_store() {
            counts[if f.contains(OpFlags::SPILL_STORE) {
                7
            } else {
                5
            }] += 1;
        }
        for s in op.sources().filter(|&s| late[s as usize]) {
            let extra = read_extra(op, s);
            match srcs.iter_mut().find(|(r, _)| *r == s) {
                Some(e) => e.1 = e.1.max(extra),
                None => srcs.push((s, extra)),
            }
        }
        for d in op.dests().filter(|&d| late[d as usize]) {
            if (b.ndst as usize) < MAX_DSTS {
                b.dsts[b.ndst as usize] = d;
                b.lats[b.ndst as usize] = info.latency.max(1);
                b.ndst += 1;
            }
        }
        match op.opc {
            Opcode::Br | Opcode::Brf => {
                b.ctl = Ctl::Branch {
                    b: 64 + op.b,
                    when: u32::from(op.opc == Opcode::Br),
                };
                b.target_addr = addr.wrapping_add(op.imm as u32);
            }
            Opcode::Goto | Opcode::Call => {
                b.ctl = if op.opc == Opcode::Goto {
                    Ctl::Goto
                } else {
                    Ctl::Call
                };
                b.target_addr = addr.wrapping_add(op.imm as u32);
            }
            Opcode::Icall => b.ctl = Ctl::Icall,
            Opcode::Igoto => b.ctl = Ctl::Igoto,
            Opcode::Syscall => b.ctl = Ctl::Syscall(op.imm as u32),
            Opcode::Nop | Opcode::Pft => {}
            _ => plain.push(*op),
        }
    }
    for (i, (r, e)) in srcs.into_iter().take(MAX_SRCS).enumerate() {
        b.srcs[i] = r;
        b.extra[i] = e;
        b.nsrc = i as u8 + 1;
    }
    let order = direct_order(&plain);
    let renamed = order.is_none();
    let order = order.unwrap_or_else(|| (0..plain.len()).collect());
    for (k, &i) in order.iter().enumerate().take(MAX_OPS) {
        let mut d = lower(&plain[i], consts)?;
        if renamed {
            // Write temporaries, copied into place after all operations have read.
            for dst in [&mut d.dst, &mut d.dst2] {
                if *dst != SINK {
                    b.fix[b.nfix as usize] = (*dst, TEMP + b.nfix);
                    *dst = TEMP + b.nfix;
                    b.nfix += 1;
                }
            }
        }
        b.ops[k] = d;
        b.nops = k as u8 + 1;
    }
    b.stat = pack(counts);
    Some(b)
}

fn trap_bundle(addr: u32, len: usize, trap: u32) -> Bundle {
    let mut b = build_bundle(
        &[],
        addr,
        len,
        &HashMap::new(),
        &[false; NREGS],
        &mut false,
        &mut Consts::default(),
    )
    .expect("an empty bundle needs no constant slot");
    b.ctl = Ctl::Trap(trap);
    b
}

/// The operations of a decoded bundle with their syllable positions, or why it is illegal.
type DecodedOps = Result<Vec<(Op, usize)>, TrapKind>;

/// Decode the whole code section once.
fn predecode(obj: &Object, table: &FunctionTable) -> Program {
    let words: Vec<u32> = obj
        .code
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let flags: HashMap<u32, OpFlags> = obj.annotations.iter().map(|a| (a.addr, a.flags)).collect();
    // Pass 1: split into bundles and decode.
    let mut decoded: Vec<(u32, usize, DecodedOps)> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let addr = obj.code_base + 4 * i as u32;
        match decode_bundle(&words[i..]) {
            Ok(db) => {
                decoded.push((addr, db.syllables, Ok(db.ops)));
                i += db.syllables;
            }
            Err(e) => {
                let kind = match e {
                    DecodeError::Illegal { word, .. } => TrapKind::IllegalEncoding { word },
                    DecodeError::Bundle(reason) => TrapKind::IllegalBundle { reason },
                };
                // Resynchronise after the next stop bit (or after one word).
                let len = words[i..]
                    .iter()
                    .take(4)
                    .position(|w| w & STOP != 0)
                    .map_or(1, |k| k + 1);
                decoded.push((addr, len, Err(kind)));
                i += len;
            }
        }
    }
    let ok: Vec<Option<Vec<(Op, usize)>>> =
        decoded.iter().map(|d| d.2.as_ref().ok().cloned()).collect();
    let late = late_regs(&ok);
    // Pass 2: build the bundles.
    let mut p = Program {
        bundles: Vec::new(),
        index: vec![u32::MAX; words.len()],
        traps: Vec::new(),
        code_base: obj.code_base,
        consts: Vec::new(),
        texts: Vec::new(),
        func_of: Vec::new(),
        blocks: Blocks::default(),
    };
    let mut swap_prev = false;
    let mut consts = Consts::default();
    for (addr, len, r) in decoded {
        p.index[((addr - obj.code_base) / 4) as usize] = p.bundles.len() as u32;
        p.texts.push(
            r.as_ref()
                .map_or(Vec::new(), |ops| ops.iter().map(|(o, _)| *o).collect()),
        );
        let built = match r {
            Ok(ops) => build_bundle(&ops, addr, len, &flags, &late, &mut swap_prev, &mut consts)
                .ok_or(TrapKind::Unsupported(
                    "more than 65280 distinct immediate operands",
                )),
            Err(kind) => Err(kind),
        };
        match built {
            Ok(b) => p.bundles.push(b),
            Err(kind) => {
                p.traps.push(kind);
                p.bundles
                    .push(trap_bundle(addr, len, p.traps.len() as u32 - 1));
            }
        }
    }
    p.consts = consts.values;
    // Running off the end of the code traps.
    let end = obj.code_base + 4 * words.len() as u32;
    p.traps.push(TrapKind::BadJump { addr: end });
    p.bundles
        .push(trap_bundle(end, 1, p.traps.len() as u32 - 1));
    p.func_of = p
        .bundles
        .iter()
        .map(|b| table.index_of(b.addr) as u32)
        .collect();
    // Resolve direct targets.
    for k in 0..p.bundles.len() {
        if matches!(p.bundles[k].ctl, Ctl::Branch { .. } | Ctl::Goto | Ctl::Call) {
            let t = p.bundles[k].target_addr;
            p.bundles[k].target = p.lookup(t).map_or(u32::MAX, |x| x as u32);
        }
    }
    p.blocks = blocks::build(&p.bundles);
    p
}

/// The counters of the current calling context, as the run loop keeps them: packed static
/// counts (see [`pack`]), elapsed cycles, stall cycles and taken branches. Bundles are
/// derived: every executed bundle adds 1 + its stall + its branch penalty to the cycles.
#[derive(Clone, Copy, Debug, Default)]
struct Tally231 {
    acc: u128,
    cycles: u64,
    stall: u64,
    taken: u64,
}

/// Bits 14 and 15 of the operations lane (the lowest) of the packed counts. Every other
/// lane counts a subset of the operations, so it never exceeds the operations lane; a
/// context's lanes are thus below 2^14 whenever it is saved or settled, and between two
/// settle points (at most [`FLUSH_INTERVAL`] bundles of at most 4 operations) a lane grows
/// by at most 2^15: no lane overflows.
const OPS_HIGH_BITS: u64 = 0xC000;

impl Tally for Tally231 {
    // Inlined so that the tally stays in registers at calls and returns (an out-of-line
    // call made the profiler store it in 64-bit halves and reload it in 128-bit words, a
    // store-forwarding stall per call and return).
    #[inline(always)]
    fn settle(&mut self, settled: &mut Counters) {
        if self.acc as u64 & OPS_HIGH_BITS != 0 {
            let u = unpack(self.acc);
            let s = settled;
            for (f, v) in [
                &mut s.ops,
                &mut s.nops,
                &mut s.moves,
                &mut s.swaps,
                &mut s.loads,
                &mut s.stores,
                &mut s.spill_loads,
                &mut s.spill_stores,
            ]
            .into_iter()
            .zip(u)
            {
                *f += v;
            }
            self.acc = 0;
        }
    }

    fn total(&self, settled: &Counters) -> Counters {
        let u = unpack(self.acc);
        let s = settled;
        Counters {
            cycles: self.cycles,
            stall_operand: self.stall,
            stall_memport: 0,
            bundles: self.cycles
                - self.stall
                - self.taken * u64::from(latency::TAKEN_BRANCH_PENALTY),
            ops: s.ops + u[0],
            nops: s.nops + u[1],
            moves: s.moves + u[2],
            swaps: s.swaps + u[3],
            loads: s.loads + u[4],
            stores: s.stores + u[5],
            spill_loads: s.spill_loads + u[6],
            spill_stores: s.spill_stores + u[7],
            taken_branches: self.taken,
        }
    }
}

/// Run an ST231 object.
pub fn run(obj: &Object, opts: &RunOptions, trace: &mut dyn Write) -> RunReport {
    let start = Instant::now();
    let mut report = if opts.trace {
        run_inner::<true>(obj, opts, trace)
    } else {
        run_inner::<false>(obj, opts, trace)
    };
    report.host_seconds = start.elapsed().as_secs_f64();
    report
}

/// How the run loop ended: an exit code, or a trap with the bundle index and the cycle at
/// which the trapping bundle would have issued.
enum End {
    Exit(i32),
    Trap(TrapKind, usize, u64),
}

/// Execute one (non-control) operation, writing its results.
#[inline(always)]
fn exec(o: &DOp, regs: &mut [u32; NSLOTS], mem: &mut Memory) -> Result<(), TrapKind> {
    let a = regs[o.s1 as usize];
    let v = regs[o.s2 as usize];
    let r = match o.opc {
        Opcode::Slct | Opcode::Slctf => semantics::select(o.opc, regs[o.bs as usize] != 0, a, v),
        Opcode::Addcg | Opcode::Divs => {
            let cin = regs[o.bs as usize] != 0;
            let (r, c) = if o.opc == Opcode::Addcg {
                semantics::addcg(a, v, cin)
            } else {
                semantics::divs(a, v, cin)
            };
            regs[o.dst2 as usize] = c as u32;
            r
        }
        Opcode::Ldw | Opcode::LdwD => match mem.load32(a.wrapping_add(o.imm)) {
            Ok(x) => x,
            Err(_) if o.opc.props().contains(OpProps::DISMISSIBLE) => 0,
            Err(e) => return Err(e),
        },
        Opcode::Ldh | Opcode::LdhD | Opcode::Ldhu | Opcode::LdhuD => {
            match mem.load16(a.wrapping_add(o.imm)) {
                Ok(x) => semantics::load_extend(o.opc, x),
                Err(_) if o.opc.props().contains(OpProps::DISMISSIBLE) => 0,
                Err(e) => return Err(e),
            }
        }
        Opcode::Ldb | Opcode::LdbD | Opcode::Ldbu | Opcode::LdbuD => {
            match mem.load8(a.wrapping_add(o.imm)) {
                Ok(x) => semantics::load_extend(o.opc, x),
                Err(_) if o.opc.props().contains(OpProps::DISMISSIBLE) => 0,
                Err(e) => return Err(e),
            }
        }
        Opcode::Stw => return mem.store32(a.wrapping_add(o.imm), v),
        Opcode::Sth => return mem.store16(a.wrapping_add(o.imm), v),
        Opcode::Stb => return mem.store8(a.wrapping_add(o.imm), v),
        Opcode::Sxtb | Opcode::Sxth | Opcode::Zxth | Opcode::Bswap | Opcode::Clz => {
            semantics::monadic(o.opc, a)
        }
        opc => alu(opc, a, v),
    };
    regs[o.dst as usize] = r;
    Ok(())
}

fn run_inner<const TRACE: bool>(
    obj: &Object,
    opts: &RunOptions,
    trace: &mut dyn Write,
) -> RunReport {
    let mut mem = match Memory::with_image(obj, opts.mem_size) {
        Ok(m) => m,
        Err(k) => return RunReport::failed(Trap::at_load(k)),
    };
    let table = FunctionTable::new(obj);
    let prog = predecode(obj, &table);
    let mut prof: Profiler<Tally231> = Profiler::new(
        table.clone(),
        obj.entry,
        HALT_ADDRESS,
        opts.max_call_depth,
        prog.bundles.len(),
    );
    let mut regs: Box<[u32; NSLOTS]> = vec![0u32; NSLOTS]
        .into_boxed_slice()
        .try_into()
        .expect("NSLOTS entries");
    regs[FIRST_CONST..FIRST_CONST + prog.consts.len()].copy_from_slice(&prog.consts);
    let mut ready = [0u64; NREGS];
    // ASSUMPTION (isa.md §A6, project start-up): SP starts at the top of memory minus the
    // 16-byte scratch area that a caller provides above its outgoing arguments, so that the
    // entry function may use it like any callee.
    regs[isa::SP as usize] = mem.initial_sp().saturating_sub(isa::STACK_ARG_OFFSET);
    regs[isa::LINK as usize] = HALT_ADDRESS;
    let mut output = Vec::new();
    // `cycle` is the machine's clock; `stall`, `taken_count` and `acc` belong to the current
    // calling context (swapped by the profiler at calls and returns), whose cycle count is
    // `cycle - cycle_off`.
    let (mut cycle, mut stall, mut taken_count, mut cycle_off) = (0u64, 0u64, 0u64, 0u64);
    let mut acc: u128 = 0;
    macro_rules! tally {
        () => {
            Tally231 {
                acc,
                cycles: cycle - cycle_off,
                stall,
                taken: taken_count,
            }
        };
    }
    macro_rules! untally {
        ($t:expr) => {
            let t = $t;
            acc = t.acc;
            stall = t.stall;
            taken_count = t.taken;
            cycle_off = cycle - t.cycles;
        };
    }
    let mut next_check = FLUSH_INTERVAL.min(opts.max_cycles);
    let Some(mut pc) = prog.lookup(obj.entry) else {
        return RunReport::failed(Trap::at_load(TrapKind::BadJump { addr: obj.entry }));
    };
    let bundles = &prog.bundles[..];
    // Execute the operations of a call or return bundle `b` issued at `t`, then copy renamed
    // results into place and set the ready times of the late destinations (the fast path
    // writes the same steps out with one dispatch site per operation position).
    macro_rules! run_ops {
        ($run:lifetime, $b:expr, $t:expr) => {
            let (b, t) = ($b, $t);
            for o in &b.ops[..b.nops as usize] {
                if let Err(e) = exec(o, &mut regs, &mut mem) {
                    break $run End::Trap(e, pc, t);
                }
            }
            for &(real, tmp) in &b.fix[..b.nfix as usize] {
                regs[real as usize] = regs[tmp as usize];
            }
            for k in 0..b.ndst as usize {
                ready[b.dsts[k] as usize] = t + u64::from(b.lats[k]);
            }
        };
    }

    let end = 'run: loop {
        if !TRACE {
            let bi = prog.blocks.block_of[pc];
            if bi != NO_BLOCK {
                // A pre-timed block (blocks.rs): when its outside operands are ready and it
                // ends before the next check cycle, run only its operations.
                let blk = &prog.blocks.blocks[bi as usize];
                if cycle + u64::from(blk.last) < next_check
                    && blocks::checks_pass(&prog.blocks, blk, &ready, cycle)
                {
                    let ops = &prog.blocks.ops[blk.ops as usize..blk.ops_end as usize];
                    let writes = &prog.blocks.writes[blk.writes as usize..blk.writes_end as usize];
                    loop {
                        // End the run with trap `kind` raised by bundle `k` of the block
                        // entered at `entry`: the bundles before it count, it does not issue.
                        macro_rules! stop_in_block {
                            ($kind:expr, $k:expr, $entry:expr) => {{
                                let (counts, stalls, clock, at, t) =
                                    blocks::trap_prefix(&prog.blocks, bundles, blk, $k, $entry);
                                acc += counts;
                                stall += stalls;
                                cycle = clock;
                                break 'run End::Trap($kind, at, t);
                            }};
                        }
                        macro_rules! block_op {
                            ($o:expr) => {
                                let o = $o;
                                if let Err(e) = exec(o, &mut regs, &mut mem) {
                                    let (e, k) =
                                        blocks::trap_in_block(&prog, blk, &regs[..], e, o.k);
                                    stop_in_block!(e, k, cycle);
                                }
                            };
                        }
                        // Two dispatch sites (even and odd operations): better indirect-branch
                        // prediction than one.
                        let mut pairs = ops.chunks_exact(2);
                        for pair in &mut pairs {
                            block_op!(&pair[0]);
                            block_op!(&pair[1]);
                        }
                        if let [o] = pairs.remainder() {
                            block_op!(o);
                        }
                        // Issue cycle of the last bundle.
                        let t = cycle + u64::from(blk.last);
                        if blk.exit == Exit::Branch {
                            if !writes.is_empty() {
                                for &(r, off) in writes {
                                    ready[r as usize] = cycle + u64::from(off);
                                }
                            }
                            stall += u64::from(blk.stalls);
                            acc += blk.counts;
                            cycle = t + 1;
                            if regs[blk.br_slot as usize] != blk.br_when {
                                pc = blk.next as usize;
                                break;
                            }
                            taken_count += 1;
                            cycle += u64::from(latency::TAKEN_BRANCH_PENALTY);
                            pc = blk.target as usize;
                            if blk.steady_loop && cycle + u64::from(blk.last) < next_check {
                                continue;
                            }
                            break;
                        }
                        // The last bundle does not write $r63 when it returns: this is the
                        // value the return read.
                        let target = regs[isa::LINK as usize];
                        let ret_next = if blk.exit == Exit::Return && target != HALT_ADDRESS {
                            match prog.lookup(target) {
                                Some(k) => Some(k),
                                None => {
                                    // Control first: the per-bundle path traps before the
                                    // bundle is counted.
                                    let k = (blk.next - 1 - blk.first) as u8;
                                    stop_in_block!(TrapKind::BadJump { addr: target }, k, cycle);
                                }
                            }
                        } else {
                            None
                        };
                        if !writes.is_empty() {
                            for &(r, off) in writes {
                                ready[r as usize] = cycle + u64::from(off);
                            }
                        }
                        stall += u64::from(blk.stalls);
                        acc += blk.counts;
                        taken_count += 1;
                        cycle = t + 1 + u64::from(latency::TAKEN_BRANCH_PENALTY);
                        let mut tl = tally!();
                        if blk.exit == Exit::Call {
                            regs[isa::LINK as usize] = blk.link;
                            let (at, next) = (blk.next as usize - 1, blk.target as usize);
                            if let Err(e) =
                                prof.call(at, prog.func_of[next] as usize, blk.link, &mut tl)
                            {
                                // A refused call does not issue: only the bundles before it
                                // count (the profiler refused before any change).
                                acc = acc.wrapping_sub(blk.counts);
                                stall -= u64::from(blk.stalls);
                                taken_count -= 1;
                                let k = (blk.next - 1 - blk.first) as u8;
                                stop_in_block!(e, k, t - u64::from(blk.last));
                            }
                            untally!(tl);
                            pc = next;
                        } else {
                            if prof.ret_to(target, &mut tl) {
                                untally!(tl);
                            }
                            match ret_next {
                                Some(k) => pc = k,
                                None => break 'run End::Exit(regs[16] as i32),
                            }
                        }
                        break;
                    }
                    continue;
                }
            }
        }
        let b = &bundles[pc];
        // Issue time: the latest operand.
        let mut t = cycle;
        for k in 0..b.nsrc as usize {
            t = t.max(ready[b.srcs[k] as usize] + u64::from(b.extra[k]));
        }
        if t >= next_check {
            if t >= opts.max_cycles {
                // At the budget, or at once when a taken branch's bubble crossed it.
                break 'run End::Trap(TrapKind::CycleBudget, pc, opts.max_cycles.max(cycle));
            }
            if crate::machine::interrupted() {
                break 'run End::Trap(TrapKind::Interrupted, pc, cycle);
            }
            let mut tl = tally!();
            prof.settle(&mut tl);
            acc = tl.acc;
            next_check = (t + FLUSH_INTERVAL).min(opts.max_cycles);
        }
        if let Ctl::None | Ctl::Branch { .. } = b.ctl {
            // Fast path: no control operation, or a conditional branch (which reads its $b
            // before the operations write).
            let mut next = pc + 1;
            let mut penalty = 0;
            if let Ctl::Branch { b: cb, when } = b.ctl {
                if regs[cb as usize] == when {
                    if b.target == u32::MAX {
                        break 'run End::Trap(
                            TrapKind::BadJump {
                                addr: b.target_addr,
                            },
                            pc,
                            t,
                        );
                    }
                    next = b.target as usize;
                    penalty = u64::from(latency::TAKEN_BRANCH_PENALTY);
                    taken_count += 1;
                }
            }
            // One dispatch site per operation position (better indirect-branch prediction
            // than a single loop).
            let n = b.nops;
            let r = (|| {
                if n > 0 {
                    exec(&b.ops[0], &mut regs, &mut mem)?;
                    if n > 1 {
                        exec(&b.ops[1], &mut regs, &mut mem)?;
                        if n > 2 {
                            exec(&b.ops[2], &mut regs, &mut mem)?;
                            if n > 3 {
                                exec(&b.ops[3], &mut regs, &mut mem)?;
                            }
                        }
                    }
                }
                Ok(())
            })();
            if let Err(e) = r {
                break 'run End::Trap(e, pc, t);
            }
            for &(real, tmp) in &b.fix[..b.nfix as usize] {
                regs[real as usize] = regs[tmp as usize];
            }
            for k in 0..b.ndst as usize {
                ready[b.dsts[k] as usize] = t + u64::from(b.lats[k]);
            }
            if TRACE {
                trace_bundle(trace, &prog, pc, t, t - cycle);
            }
            stall += t - cycle;
            acc += b.stat;
            cycle = t + 1 + penalty;
            pc = next;
            continue;
        }
        // Direct calls and returns (other than to the halt address) to a bundle start: the
        // operations, then the profiler event. Every other control bundle takes the
        // general path below.
        if b.ctl == Ctl::Call && b.target != u32::MAX {
            run_ops!('run, b, t);
            regs[isa::LINK as usize] = b.next_addr;
            let before = (acc, stall, taken_count, cycle);
            stall += t - cycle;
            acc += b.stat;
            taken_count += 1;
            cycle = t + 1 + u64::from(latency::TAKEN_BRANCH_PENALTY);
            let next = b.target as usize;
            let mut tl = tally!();
            if let Err(e) = prof.call(pc, prog.func_of[next] as usize, b.next_addr, &mut tl) {
                // A refused call does not issue (the profiler refused before any change).
                (acc, stall, taken_count, cycle) = before;
                break 'run End::Trap(e, pc, t);
            }
            untally!(tl);
            if TRACE {
                trace_bundle(trace, &prog, pc, t, t - before.3);
            }
            pc = next;
            continue;
        }
        if b.ctl == Ctl::Igoto {
            let target = regs[isa::LINK as usize];
            if let (true, Some(next)) = (target != HALT_ADDRESS, prog.lookup(target)) {
                run_ops!('run, b, t);
                if TRACE {
                    trace_bundle(trace, &prog, pc, t, t - cycle);
                }
                stall += t - cycle;
                acc += b.stat;
                taken_count += 1;
                cycle = t + 1 + u64::from(latency::TAKEN_BRANCH_PENALTY);
                let mut tl = tally!();
                if prof.ret_to(target, &mut tl) {
                    untally!(tl);
                }
                pc = next;
                continue;
            }
        }
        // Control first: it reads the old register values.
        let mut next = pc + 1;
        let mut halt: Option<i32> = None;
        let mut taken = false;
        let mut link: Option<u32> = None;
        match b.ctl {
            Ctl::None => {}
            Ctl::Branch { b: cb, when } => {
                if regs[cb as usize] == when {
                    taken = true;
                    if b.target == u32::MAX {
                        break 'run End::Trap(
                            TrapKind::BadJump {
                                addr: b.target_addr,
                            },
                            pc,
                            t,
                        );
                    }
                    next = b.target as usize;
                }
            }
            Ctl::Goto | Ctl::Call => {
                taken = true;
                if b.target == u32::MAX {
                    break 'run End::Trap(
                        TrapKind::BadJump {
                            addr: b.target_addr,
                        },
                        pc,
                        t,
                    );
                }
                next = b.target as usize;
                if b.ctl == Ctl::Call {
                    link = Some(b.next_addr);
                }
            }
            Ctl::Icall | Ctl::Igoto => {
                taken = true;
                let target = regs[isa::LINK as usize];
                if b.ctl == Ctl::Icall {
                    link = Some(b.next_addr);
                }
                if target == HALT_ADDRESS && b.ctl == Ctl::Igoto {
                    halt = Some(0);
                } else {
                    match prog.lookup(target) {
                        Some(k) => next = k,
                        None => break 'run End::Trap(TrapKind::BadJump { addr: target }, pc, t),
                    }
                }
            }
            Ctl::Syscall(n) => {
                let r16 = regs[16];
                match syscall(n, r16, r16, regs[17], &mem, &mut output, opts.max_output) {
                    Ok(SyscallOutcome::Continue) => {}
                    Ok(SyscallOutcome::Exit(code)) => halt = Some(code),
                    Err(e) => break 'run End::Trap(e, pc, t),
                }
            }
            Ctl::Trap(k) => break 'run End::Trap(prog.traps[k as usize].clone(), pc, t),
        }
        // Execute (operations are ordered or renamed so that writing at once is safe).
        for o in &b.ops[..b.nops as usize] {
            if let Err(e) = exec(o, &mut regs, &mut mem) {
                break 'run End::Trap(e, pc, t);
            }
        }
        for &(real, tmp) in &b.fix[..b.nfix as usize] {
            regs[real as usize] = regs[tmp as usize];
        }
        if let Some(l) = link {
            regs[isa::LINK as usize] = l;
        }
        for k in 0..b.ndst as usize {
            ready[b.dsts[k] as usize] = t + u64::from(b.lats[k]);
        }
        let before = (acc, stall, taken_count, cycle);
        stall += t - cycle;
        acc += b.stat;
        taken_count += taken as u64;
        cycle = t
            + 1
            + if taken {
                u64::from(latency::TAKEN_BRANCH_PENALTY)
            } else {
                0
            };
        // Calls and returns (rare): attribution.
        match b.ctl {
            Ctl::Call | Ctl::Icall => {
                let callee = prog.func_of[next] as usize;
                let mut tl = tally!();
                if let Err(e) = prof.call(pc, callee, b.next_addr, &mut tl) {
                    // A refused call does not issue (the profiler refused before any
                    // change): no count, no trace line.
                    (acc, stall, taken_count, cycle) = before;
                    break 'run End::Trap(e, pc, t);
                }
                untally!(tl);
            }
            Ctl::Igoto => {
                let target = if halt.is_some() {
                    HALT_ADDRESS
                } else {
                    bundles[next].addr
                };
                let mut tl = tally!();
                if prof.ret_to(target, &mut tl) {
                    untally!(tl);
                }
            }
            _ => {}
        }
        if TRACE {
            trace_bundle(trace, &prog, pc, t, t - before.3);
        }
        if let Some(code) = halt {
            // A return to the halt address exits with main's result ($r16, after the
            // bundle's own writes); `exit` with its argument.
            let code = if b.ctl == Ctl::Igoto {
                regs[16] as i32
            } else {
                code
            };
            break 'run End::Exit(code);
        }
        pc = next;
    };

    if let End::Trap(_, _, when) = end {
        // The machine stops at the trap's cycle (the faulting bundle's issue cycle, or the
        // budget): the cycles it waited until then count as stalls of the current context,
        // so that the totals' cycles are the trap's cycle.
        if when > cycle {
            stall += when - cycle;
            cycle = when;
        }
    }
    let (functions, totals) = prof.finish(tally!());
    let (exit_code, trap) = match end {
        End::Exit(c) => (c, None),
        End::Trap(kind, at, when) => {
            let addr = bundles[at].addr;
            (
                -1,
                Some(Trap {
                    kind,
                    pc: addr,
                    function: table.name_at(addr),
                    cycle: when,
                }),
            )
        }
    };
    RunReport {
        exit_code,
        output,
        totals,
        functions,
        trap,
        host_seconds: 0.0,
    }
}

/// Binary ALU/multiply/compare operations, one inlined arm per opcode.
#[inline(always)]
fn alu(opc: Opcode, a: u32, b: u32) -> u32 {
    macro_rules! arms {
        ($($o:ident)*) => {
            match opc {
                $(Opcode::$o => semantics::binary(Opcode::$o, a, b),)*
                _ => 0,
            }
        };
    }
    arms!(Add Sub Shl Shr Shru Sh1add Sh2add Sh3add Sh4add And Andc Or Orc Xor Max Maxu Min Minu
          Mullhus Mulhhs Mull Mullu Mulh Mulhu Mulll Mulllu Mullh Mullhu Mulhh Mulhhu Mulhs Mul32
          Mul64h Mul64hu Mulfrac Cmpeq Cmpne Cmpge Cmpgeu Cmpgt Cmpgtu Cmple Cmpleu Cmplt Cmpltu
          Andl Nandl Orl Norl)
}

fn trace_bundle(out: &mut dyn Write, prog: &Program, pc: usize, t: u64, stall: u64) {
    let b = &prog.bundles[pc];
    let text: Vec<String> = prog.texts[pc]
        .iter()
        .map(|o| crate::asm::st231::format_op(o, b.addr))
        .collect();
    let stall = if stall > 0 {
        format!("  (stall {stall})")
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "{t:>10} {:#010x}  {} ;;{stall}",
        b.addr,
        text.join(" ; ")
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::st231::assemble;

    fn run_src(src: &str) -> RunReport {
        let obj = assemble(src).unwrap_or_else(|e| panic!("{e}"));
        run(&obj, &RunOptions::default(), &mut std::io::sink())
    }

    #[test]
    fn returns_main_result() {
        let r = run_src("main:\n mov $r16 = 42 ;;\n return $r63 ;;\n");
        assert_eq!(r.trap, None);
        assert_eq!(r.exit_code, 42);
        // Bundle 1 at cycle 0; return reads $r63 (ready 0, +1 extra) at cycle 1: no stall;
        // taken return: +1 bubble -> 3 cycles.
        assert_eq!(r.totals.cycles, 3);
        assert_eq!(r.totals.bundles, 2);
        assert_eq!(r.totals.ops, 2);
        assert_eq!(r.totals.taken_branches, 1);
    }

    #[test]
    fn read_before_write_in_a_bundle() {
        // Swap in one bundle: both read the old values.
        let r = run_src("main:\n mov $r1 = 1\n mov $r2 = 2 ;;\n mov $r1 = $r2\n mov $r2 = $r1 ;;\n sub $r16 = $r1, $r2 ;;\n return $r63 ;;\n");
        assert_eq!(r.exit_code, 1);
    }

    /// Recursive Fibonacci: `main` calls `fib(n)`, which calls itself twice unless n < 2.
    const FIB: &str = "
main:
    add $r12 = $r12, -16
    mov $r16 = N ;;
    stw 0[$r12] = $r63 ;;
    call fib ;;
    ldw $r63 = 0[$r12] ;;
    add $r12 = $r12, 16 ;;
    return $r63 ;;
fib:
    cmplt $b0 = $r16, 2 ;;
    br $b0, .Lbase ;;
    add $r12 = $r12, -16 ;;
    stw 0[$r12] = $r63 ;;
    stw 4[$r12] = $r16 ;;
    add $r16 = $r16, -1 ;;
    call fib ;;
    stw 8[$r12] = $r16 ;;
    ldw $r16 = 4[$r12] ;;
    add $r16 = $r16, -2 ;;
    call fib ;;
    ldw $r17 = 8[$r12] ;;
    ldw $r63 = 0[$r12] ;;
    add $r16 = $r16, $r17
    add $r12 = $r12, 16 ;;
    return $r63 ;;
.Lbase:
    return $r63 ;;
";

    fn fibonacci(n: u64) -> u64 {
        (0..n).fold((0, 1), |(a, b), _| (b, a + b)).0
    }

    /// The profile of the recursion, counted by hand. fib(n) makes fib(n+1) leaf
    /// activations (n < 2) and fib(n+1) - 1 inner ones.
    /// Leaf: cmplt; br (taken; it reads $b0 with 2 extra cycles after the 1-cycle compare:
    /// stall 2); return (taken) = 3 bundles, 3 ops, 2 taken, 2 stall cycles.
    /// Inner: 15 bundles, 16 ops (the bundle `add; add` has 2), 3 stores, 3 loads, 3 taken
    /// (2 calls, the return; the br falls through), stalls: br 2, `add $r16` after the
    /// 3-cycle `ldw $r16` 2, `add $r16, $r17` after `ldw $r17` (one bundle between) 1, the
    /// return after `ldw $r63` (latency 3, +1 extra read delay, one bundle between) 1 = 6.
    /// main: 6 bundles, 7 ops, 1 store, 1 load, 2 taken, 2 stall cycles (its return right
    /// after `add $r12` after `ldw $r63`). Cycles = bundles + stalls + taken (1 bubble each).
    #[test]
    fn recursion_profile_counted_by_hand() {
        for n in [0u64, 1, 2, 5, 10] {
            let r = run_src(&FIB.replace(" N ", &format!(" {n} ")));
            assert_eq!(r.trap, None);
            assert_eq!(r.exit_code as u64, fibonacci(n));
            let leaves = fibonacci(n + 1);
            let inner = leaves - 1;
            let fib = Counters {
                bundles: 3 * leaves + 15 * inner,
                ops: 3 * leaves + 16 * inner,
                stores: 3 * inner,
                loads: 3 * inner,
                taken_branches: 2 * leaves + 3 * inner,
                stall_operand: 2 * leaves + 6 * inner,
                cycles: (3 + 2 + 2) * leaves + (15 + 3 + 6) * inner,
                ..Counters::default()
            };
            let main_excl = Counters {
                bundles: 6,
                ops: 7,
                stores: 1,
                loads: 1,
                taken_branches: 2,
                stall_operand: 2,
                cycles: 6 + 2 + 2,
                ..Counters::default()
            };
            let f = &r.functions;
            assert_eq!(f.len(), 2);
            assert_eq!((f[0].name.as_str(), f[0].calls), ("main", 1));
            assert_eq!((f[1].name.as_str(), f[1].calls), ("fib", 2 * leaves - 1));
            assert_eq!(f[0].exclusive, main_excl, "n = {n}");
            assert_eq!(f[0].inclusive, main_excl + fib, "n = {n}");
            assert_eq!(f[1].exclusive, fib, "n = {n}");
            assert_eq!(f[1].inclusive, fib, "n = {n}");
            assert_eq!(r.totals, main_excl + fib);
        }
    }

    #[test]
    fn bundle_stays_small() {
        // Hot-loop data: keep a bundle within three cache lines.
        assert!(
            std::mem::size_of::<Bundle>() <= 192,
            "{}",
            std::mem::size_of::<Bundle>()
        );
        assert_eq!(std::mem::size_of::<DOp>(), 12);
    }

    #[test]
    fn pack_round_trip() {
        let c = [1, 2, 3, 4, 5, 6, 7, 32767];
        assert_eq!(unpack(pack(c)), c);
        assert_eq!(unpack(pack(c) + pack(c)), [2, 4, 6, 8, 10, 12, 14, 65534]);
    }
}
