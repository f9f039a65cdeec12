//! Cycle-level simulator of the ST120 in GP32 mode (isa.md §B) on the shared guest memory,
//! traps, system calls and per-function profiler.
//!
//! **Pre-decoding.** The code is decoded once into a flat array of issue groups (1 or 2
//! operations up to a stop bit, one 64-byte cache line each). Each operation becomes a
//! compact [`Op`] (16 bytes: a flat kind, register numbers, a pre-scaled immediate or a
//! resolved branch target, the guard as a bit mask). Operations under G15 dispatch directly
//! on their kind; other guarded non-control operations dispatch on `K::Guarded`, which tests
//! the guard and then runs the operation's own kind, so the common case tests no guard.
//! Frequent forms have kinds of their own (signed compares per condition, MPSSLL/MASSLL),
//! and GOTO carries no guard bits, so one test (`guards & mask == 0`) decides both direct
//! branches. Undecodable words and groups that break
//! the issue rules become *illegal groups* that trap only if executed; a sentinel group after
//! the code traps when execution falls off the end. Direct branch targets are resolved to
//! group indices; indirect ones (`JUMP`, `LINK`, `RTS`) are looked up in a word -> group
//! table at run time.
//!
//! **Hot loop.** Without tracing, the whole run is one loop (`run_fast`). Where a
//! pre-timed block starts (`blocks.rs`: a straight-line run of in-order groups up to a
//! direct branch, timed once at pre-decode), `run_blocks` takes over: one compare per
//! register the block reads (or overwrites) before writing it decides whether the block
//! runs on its static timing; then only its operations run (one `match` each), its summed
//! counters are added, its slow registers' ready times are set and its closing branch is
//! taken or not; a steady self-loop iterates without ready checks; lone direct `CALL`s and
//! `RTS`es between blocks run in `fast_call` / `fast_return` (their profiler events
//! included). When a block's check fails, or at a group outside blocks, `run_fast` runs
//! groups one at a time: plain groups, check points and in-order groups that end with a
//! direct `GOTO` / `Gx! GOTO` inline (scoreboard, counters and operations, the packed
//! counters in a local); a lone direct `CALL` or `RTS` in `fast_call` / `fast_return`;
//! everything else (other calls and returns, indirect jumps, TRAP, buffered or illegal
//! groups) in `general_group`, the general path. Tracing runs every group through the
//! general path (the tests check that all paths give the same counters, traps and
//! profiles).
//!
//! **Traps and the cycle budget** (the convention of the ST231 model). A trap raised by a
//! group (illegal group or encoding, memory fault, bad system call, `TRAP n` failing, a
//! jump, branch, call or return to an address that starts no group — the first address
//! after the code included —, running off the end of the code, the call depth) names the
//! faulting operation's address (the transfer's for control) and its function, at the
//! group's issue cycle: its operand stalls are counted, the group itself is not (no bundle,
//! operations, counts or taken transfer, no trace line), so the totals' cycles are the
//! trap's cycle. As on the ST231, a bad transfer is found before any operation of its
//! group runs (control first), while operations that ran before a faulting memory access
//! or system call keep their register and memory effects. The budget `max_cycles` = N stops the run
//! at the first group that would issue at a cycle >= N, naming it at cycle `max(N, clock)`
//! (the clock passes N only by the bubbles of a taken transfer), its stalls counted up to
//! there. The general path checks this before every group; the hot paths check only at
//! check points, taken branches, calls and returns, and stop there (handing the run to the
//! general path) as soon as the clock is within `CAREFUL_MARGIN` cycles of the budget, more
//! than the groups between two such checks can take; so the stop is exact on every path.
//! Register files have 256 entries so that `u8` register numbers index them without masks
//! or bounds checks.
//!
//! **Execution.** One group per cycle: all operations read their operands before any writes.
//! The pre-decoder finds the order that gives that result in place: slot 0 then slot 1,
//! or slot 1 then slot 0 when slot 1 reads what slot 0 writes (such a group is stored with
//! its operations swapped, each keeping its slot for trap addresses, and made a check
//! point, as it was when the general path ran it); genuinely crossed groups (a swap in one
//! group) run through a buffered path that executes each operation on the old register
//! file and merges the results (slot 1 wins a double write). Every operation is guarded:
//! it takes effect when its guard is true (`Gx!` branches: false).
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
//! a 128-bit accumulator (one add per group, 14-bit lanes), flushed into the current calling
//! context's 64-bit counters on taken branches, at check points (every 2048th group, and
//! reversed groups) and in the general path, before any lane can overflow. Counters count *issued*
//! operations, including guarded-off ones (ASSUMPTION: a predicated operation still occupies
//! its slot). Per-function counters come from the shared [`Profiler`]: the accumulator, the
//! stall and taken-branch counts are the current calling context's tally, swapped only at
//! calls and returns, and the clock is the bundles lane plus a base (see `Run`).
//!
//! **Safety.** No guest input can panic the host: every memory access is checked, every
//! jump target is looked up, the cycle budget and the call depth are bounded. Cost: O(code)
//! pre-decoding, O(1) per group.

mod blocks;
mod exec;
mod predecode;

use crate::asm::st120::format_inst;
use crate::isa::st120::opcode::TAKEN_BRANCH_BUBBLES;
use crate::isa::st120::{GUARD_TRUE, JUMP_TARGET, LINK};
use crate::machine::profile::Tally;
use crate::machine::{
    syscall, Counters, FunctionTable, Memory, Profiler, RunOptions, RunReport, SyscallOutcome,
    Trap, TrapKind, HALT_ADDRESS,
};
use crate::object::Object;
use blocks::{trap_prefix, Block, NO_BLOCK};
use exec::*;
use predecode::*;
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
// The machine

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
        let prog = predecode::predecode(obj);
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
        let func_of = self
            .prog
            .groups
            .iter()
            .map(|g| table.index_of(g.addr) as u32)
            .collect();
        let sites = self.prog.groups.len();
        let mut prof = Prof {
            p: Profiler::new(table, entry_addr, 0, self.opts.max_call_depth, sites),
            func_of,
        };
        let mut c = Run {
            stalls: 0,
            taken: 0,
            acc: 0,
            base: 0,
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
        let (exit_code, trap) = match end {
            End::Exit(code) => (code, None),
            End::Trap(kind, pc) => {
                let function = prof.p.table().name_at(pc);
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
        let (functions, totals) = prof.p.finish(c.tally());
        RunReport {
            exit_code,
            output: std::mem::take(&mut self.core.output),
            totals,
            functions,
            trap,
            host_seconds: 0.0,
        }
    }
}

/// The interpreter loop. Without tracing, the run starts in [`run_fast`], which hands it
/// back to the general path ([`general_group`], one group at a time) once the clock is
/// within [`CAREFUL_MARGIN`] cycles of the budget; with tracing, every group goes through
/// the general path and is printed.
fn execute<const TRACE: bool>(
    prog: &Program,
    core: &mut Core,
    c: &mut Run,
    prof: &mut Prof,
    trace: &mut dyn Write,
    entry: usize,
    max_cycles: u64,
) -> End {
    let mut gi = entry;
    if !TRACE {
        match run_fast(prog, core, c, prof, entry, max_cycles) {
            Flow::Go(next) => gi = next,
            Flow::Stop(end) => return end,
        }
    }
    loop {
        let Some(g) = prog.groups.get(gi) else {
            return End::Trap(TrapKind::BadJump { addr: 0 }, 0);
        };
        if crate::machine::interrupted() {
            return End::Trap(TrapKind::Interrupted, g.addr);
        }
        let now = c.cycle();
        let t = issue_time(prog, core, g, now);
        match general_group::<TRACE>(prog, core, c, prof, trace, gi, now, t, max_cycles) {
            Flow::Go(n) => gi = n,
            Flow::Stop(e) => return e,
        }
    }
}

/// Flags of the groups the hot loop hands to [`general_group`].
const F_SPECIAL: u8 = F_CONTROL | F_ILLEGAL | F_REORDER;

/// How close (in cycles) to the cycle budget the hot paths may run: from a budget check
/// (check point, taken branch, call, return, general-path group) the hot paths run at most
/// `FLUSH_EVERY` groups sequentially before the next one (every `FLUSH_EVERY`-th group is a
/// check point), each taking at most `MAX_GROUP_CYCLES` cycles (one issue cycle plus
/// operand stalls shorter than the longest latency), plus the bubbles of the transfer that
/// made the check. So when a check finds the clock at least this far from the budget, no
/// group can reach the budget before the next check, and the hot paths need no per-group
/// budget test; otherwise the run goes on on the general path, which tests every group
/// exactly as the traced run does.
pub(super) const CAREFUL_MARGIN: u64 =
    (FLUSH_EVERY as u64 + 2) * MAX_GROUP_CYCLES + TAKEN_BRANCH_BUBBLES as u64 + 1;

/// Cycles one group can take at most without a taken transfer: its issue cycle and its
/// operand stalls (a stall is shorter than the longest latency, which the opcode table
/// keeps below this; checked in the tests).
const MAX_GROUP_CYCLES: u64 = 16;

/// The hot loop, from group `gi` while the clock stays far from the budget (see
/// [`CAREFUL_MARGIN`]); returns the group from which the general path takes over, or the
/// end of the run. Plain groups, check points (`F_FLUSH`) and in-order groups that end with
/// a direct branch run inline, with the running counters in locals; lone direct calls and
/// returns run in [`fast_call`] / [`fast_return`]; the others (other control, buffered and
/// illegal groups) run in [`general_group`], and the loop goes on. Per group: a flag test,
/// the scoreboard when flagged, one `match` per operation, one 128-bit add. A trap raised
/// by a group is reported at its issue cycle, with its stalls counted and the group itself
/// not (it did not issue).
#[inline(never)]
fn run_fast(
    prog: &Program,
    core: &mut Core,
    c: &mut Run,
    prof: &mut Prof,
    mut gi: usize,
    max_cycles: u64,
) -> Flow {
    let groups = &prog.groups[..];
    // The packed counters live in a local (two registers); the rest of the running counters
    // stay in `c`, touched only at scoreboard groups and taken branches. `acc` is written
    // back to `c` before anything reads it there.
    let mut acc = c.acc;
    macro_rules! trap {
        ($kind:expr, $pc:expr) => {{
            c.acc = acc;
            return Flow::Stop(End::Trap($kind, $pc));
        }};
    }
    // An operation of group `$g`, which has not been counted yet: a trap leaves it out.
    macro_rules! run_op {
        ($g:expr, $op:expr) => {
            if let Err(e) = exec(&mut core.regs, &mut core.mem, $op) {
                trap!(e, $g.addr + 4 * u32::from($op.slot));
            }
        };
    }
    // The flush and budget checks before group `$next` (at a group boundary): flush the
    // packed counters when due; leave for the general path near the budget.
    macro_rules! check {
        ($next:expr) => {
            if flush_due(acc) {
                c.acc = acc;
                c.flush(prof.p.settled_mut());
                acc = c.acc;
                if crate::machine::interrupted() {
                    let at = groups.get($next).map_or(0, |g| g.addr);
                    return Flow::Stop(End::Trap(TrapKind::Interrupted, at));
                }
            }
            if c.clock(acc) + CAREFUL_MARGIN >= max_cycles {
                c.acc = acc;
                return Flow::Go($next);
            }
        };
    }
    check!(gi);
    loop {
        // A pre-timed block starts here: run blocks on their static timing for as long as
        // they can (see `blocks.rs`); the group they stop at takes the path below.
        let bi = prog.block_of.get(gi).copied().unwrap_or(NO_BLOCK);
        if bi != NO_BLOCK {
            c.acc = acc;
            match run_blocks(prog, core, c, prof, bi as usize, max_cycles) {
                Flow::Go(next) => gi = next,
                Flow::Stop(end) => return Flow::Stop(end),
            }
            acc = c.acc;
            if c.clock(acc) + CAREFUL_MARGIN >= max_cycles {
                return Flow::Go(gi);
            }
        }
        // The sentinel group after the code is illegal (special), so `gi` stays in range.
        let Some(g) = groups.get(gi) else {
            trap!(TrapKind::BadJump { addr: 0 }, 0);
        };
        let flags = g.flags;
        if flags != 0 {
            if flags & F_SPECIAL != 0 {
                c.acc = acc;
                let now = c.cycle();
                let t = issue_time(prog, core, g, now);
                let mut next = FALLBACK;
                if flags & F_CALLRET != 0 {
                    next = if g.ops[0].k == K::Call {
                        fast_call(core, c, prof, g, gi, now, t, max_cycles)
                    } else {
                        fast_return(prog, core, c, prof, g, now, t, max_cycles)
                    };
                }
                if next == FALLBACK {
                    let sink = &mut std::io::sink();
                    match general_group::<false>(prog, core, c, prof, sink, gi, now, t, max_cycles)
                    {
                        Flow::Go(n) => next = n,
                        Flow::Stop(end) => return Flow::Stop(end),
                    }
                    if c.cycle() + CAREFUL_MARGIN >= max_cycles {
                        return Flow::Go(next);
                    }
                }
                gi = next;
                acc = c.acc;
                continue;
            }
            if flags & F_FLUSH != 0 {
                // A check point, before the group issues.
                check!(gi);
            }
            if flags & F_SB != 0 {
                // Scoreboard: the group issues when its operands are ready.
                let now = c.clock(acc);
                let t = scoreboard_issue(prog, core, g, now);
                if t != now {
                    c.stall(t - now);
                }
            }
            if flags & F_BRANCH != 0 {
                // In-order group ending with a direct branch to a group (never empty).
                let two = g.n == 2;
                if two {
                    run_op!(g, &g.ops[0]);
                }
                acc = acc.wrapping_add(g.counts);
                let br = &g.ops[usize::from(two)];
                // Taken when no guard bit of the branch is set (GOTO has none).
                if core.regs.g & u32::from(br.gmask) == 0 {
                    gi = br.imm as u32 as usize;
                    c.take_branch();
                    check!(gi);
                } else {
                    gi += 1;
                }
                continue;
            }
        }
        // Plain operations in (stored) order, fall through.
        run_op!(g, &g.ops[0]);
        if g.n == 2 {
            run_op!(g, &g.ops[1]);
        }
        acc = acc.wrapping_add(g.counts);
        gi += 1;
    }
}

/// Run pre-timed blocks from block `bi` for as long as each next group starts a block
/// that no outside operand makes stall and the clock stays far from the budget (see
/// [`CAREFUL_MARGIN`]); returns the first group that does not (it runs on the per-group
/// path), or the end of the run. Counter flushes and traps are those the per-group path
/// would make; the running counters are in `c` on return.
#[inline(never)]
fn run_blocks(
    prog: &Program,
    core: &mut Core,
    c: &mut Run,
    prof: &mut Prof,
    mut bi: usize,
    max_cycles: u64,
) -> Flow {
    let blocks = &prog.blocks[..];
    // The running counters in locals: `clock` is `c.cycle()` kept up to date directly.
    let (mut acc, mut stalls, mut taken, mut clock) = (c.acc, c.stalls, c.taken, c.cycle());
    macro_rules! sync {
        () => {
            c.acc = acc;
            c.stalls = stalls;
            c.taken = taken;
            c.base = clock.wrapping_sub((acc & LANE_MASK) as u64);
        };
    }
    macro_rules! trap {
        ($kind:expr, $pc:expr) => {{
            sync!();
            return Flow::Stop(End::Trap($kind, $pc));
        }};
    }
    // As in `run_fast`, at a group boundary: flush when due; near the budget, hand the run
    // back from group `$next` (after `$before`, which settles what the block left pending).
    macro_rules! check {
        ($next:expr, $before:expr) => {
            if flush_due(acc) {
                sync!();
                c.flush(prof.p.settled_mut());
                acc = c.acc;
                if crate::machine::interrupted() {
                    $before;
                    sync!();
                    let at = prog.groups.get($next).map_or(0, |g| g.addr);
                    return Flow::Stop(End::Trap(TrapKind::Interrupted, at));
                }
            }
            if clock + CAREFUL_MARGIN >= max_cycles {
                $before;
                sync!();
                return Flow::Go($next);
            }
        };
    }
    loop {
        let Some(b) = blocks.get(bi) else {
            sync!();
            break Flow::Go(0);
        };
        if !block_ready(prog, &core.ready, b, clock) {
            sync!();
            break Flow::Go(b.first as usize);
        }
        if b.flush_first {
            // A check point (later iterations of a steady loop are checked at its branch).
            check!(b.first as usize, {});
        }
        let ops = prog
            .block_ops
            .get(b.ops as usize..b.ops_end as usize)
            .unwrap_or(&[]);
        // Iterations of the block: one, or as many as a steady loop makes.
        let (next, next_block) = loop {
            let entry = clock;
            if let Err((op, e)) = run_block_ops(&mut core.regs, &mut core.mem, ops) {
                let (counts, more_stalls, pc) = trap_prefix(prog, b, op);
                acc = acc.wrapping_add(counts);
                stalls += more_stalls;
                clock += (counts & LANE_MASK) as u64 + more_stalls;
                trap!(e, pc);
            }
            acc = acc.wrapping_add(b.counts);
            stalls += u64::from(b.stalls);
            clock += u64::from(b.cycles);
            if core.regs.g & u32::from(b.br_gmask) != 0 {
                block_writes(prog, &mut core.ready, b, entry);
                break (b.next, b.next_block);
            }
            taken += 1;
            clock += u64::from(TAKEN_BRANCH_BUBBLES);
            check!(
                b.target as usize,
                block_writes(prog, &mut core.ready, b, entry)
            );
            if !b.steady_loop {
                block_writes(prog, &mut core.ready, b, entry);
                break (b.target, b.target_block);
            }
        };
        if next_block != NO_BLOCK {
            bi = next_block as usize;
            continue;
        }
        // A lone call or return between blocks, done on the locals as `fast_call` and
        // `fast_return` do it on `c` (the same checks and effects), and on to the next
        // block; anything they would leave to the general path goes back to `run_fast`.
        let gi = next as usize;
        let Some(g) = prog.groups.get(gi) else {
            sync!();
            break Flow::Go(gi);
        };
        let op = &g.ops[0];
        let target = if g.flags & F_CALLRET == 0 || g.flags & F_SB != 0 {
            None
        } else if op.k == K::Call {
            Some(op.imm as u32 as usize)
        } else {
            let addr = core.regs.p[usize::from(LINK)];
            (addr != HALT_ADDRESS)
                .then(|| prog.group_at(addr))
                .flatten()
        };
        let Some(to) =
            target.filter(|_| guard_on(&core.regs, op) && clock + CAREFUL_MARGIN < max_cycles)
        else {
            sync!();
            break Flow::Go(gi);
        };
        if flush_due(acc) {
            add_lanes(acc, prof.p.settled_mut());
            acc = 0;
        }
        let mut t = Tally120 {
            acc: acc.wrapping_add(g.counts),
            stalls,
            taken: taken + 1,
        };
        if op.k == K::Call {
            let callee = prof.func_of.get(to).map_or(usize::MAX, |&f| f as usize);
            if prof.p.call(gi, callee, 0, &mut t).is_err() {
                // Refused before any effect: the general path traps on it.
                sync!();
                break Flow::Go(gi);
            }
            core.regs.p[usize::from(LINK)] = g.addr.wrapping_add(4);
        } else {
            prof.p.ret(&mut t);
        }
        clock += (g.counts & LANE_MASK) as u64 + u64::from(TAKEN_BRANCH_BUBBLES);
        (acc, stalls, taken) = (t.acc, t.stalls, t.taken);
        match prog.block_of.get(to) {
            Some(&b) if b != NO_BLOCK => bi = b as usize,
            _ => {
                sync!();
                break Flow::Go(to);
            }
        }
    }
}

/// Whether block `b` entered at cycle `entry` runs on its static timing: every register it
/// checks before writing it is ready by then (`ready[r] <= entry + slack`). Signed, as in
/// `scoreboard_issue`: cycle counts stay far below 2^63.
#[inline(always)]
fn block_ready(prog: &Program, ready: &[u64; 256], b: &Block, entry: u64) -> bool {
    let ok = |idx: u8, slack: u32| {
        (ready[usize::from(idx)].wrapping_sub(u64::from(slack)) as i64) <= entry as i64
    };
    if !b.has_checks {
        return true;
    }
    ok(b.chk[0], b.slack[0])
        && ok(b.chk[1], b.slack[1])
        && (b.more_checks == 0 || {
            let m = b.more as usize;
            let more = prog
                .block_sb
                .get(m..m + usize::from(b.more_checks))
                .unwrap_or(&[]);
            more.iter().all(|&(idx, slack)| ok(idx, slack))
        })
}

/// The ready times of the slow registers block `b` (entered at `entry`) writes.
#[inline(always)]
fn block_writes(prog: &Program, ready: &mut [u64; 256], b: &Block, entry: u64) {
    if !b.has_writes {
        return;
    }
    ready[usize::from(b.wr[0])] = entry + u64::from(b.wr_off[0]);
    ready[usize::from(b.wr[1])] = entry + u64::from(b.wr_off[1]);
    if b.more_writes != 0 {
        let m = b.more as usize + usize::from(b.more_checks);
        let more = prog
            .block_sb
            .get(m..m + usize::from(b.more_writes))
            .unwrap_or(&[]);
        for &(idx, off) in more {
            ready[usize::from(idx)] = entry + u64::from(off);
        }
    }
}

/// The operations of a block, in order; a trap comes with the operation that raised it.
#[inline(always)]
fn run_block_ops<'a>(
    regs: &mut Regs,
    mem: &mut Memory,
    ops: &'a [Op],
) -> Result<(), (&'a Op, TrapKind)> {
    for op in ops {
        if let Err(e) = exec(regs, mem, op) {
            return Err((op, e));
        }
    }
    Ok(())
}

/// What [`fast_call`] and [`fast_return`] return instead of a group index: nothing done,
/// the group needs the general path.
const FALLBACK: usize = usize::MAX;

/// A lone, guarded-on direct CALL to a group (`F_CALLRET` groups) at clock `now`, issuing
/// at `t`, run as the general path would run it but with cheaper checks and no result in
/// memory; returns the callee's group. A guarded-off call, one near the cycle budget or
/// one that exceeds the call depth is left untouched (`FALLBACK`): the general path runs
/// it (and traps).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn fast_call(
    core: &mut Core,
    c: &mut Run,
    prof: &mut Prof,
    g: &Group,
    gi: usize,
    now: u64,
    t: u64,
    max_cycles: u64,
) -> usize {
    let op = &g.ops[0];
    let next = op.imm as u32 as usize;
    if !guard_on(&core.regs, op) || t + CAREFUL_MARGIN >= max_cycles {
        return FALLBACK;
    }
    if flush_due(c.acc) {
        c.flush(prof.p.settled_mut());
    }
    let before = *c;
    commit_transfer(c, g, now, t);
    if prof.call(gi, next, c).is_err() {
        // Nothing else changed: the profiler refuses a call before any effect.
        *c = before;
        return FALLBACK;
    }
    core.regs.p[usize::from(LINK)] = g.addr.wrapping_add(4);
    next
}

/// A lone, guarded-on RTS to a group (`F_CALLRET` groups), like [`fast_call`]; a return to
/// the halt address or to no group is left to the general path.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn fast_return(
    prog: &Program,
    core: &mut Core,
    c: &mut Run,
    prof: &mut Prof,
    g: &Group,
    now: u64,
    t: u64,
    max_cycles: u64,
) -> usize {
    let addr = core.regs.p[usize::from(LINK)];
    if !guard_on(&core.regs, &g.ops[0]) || addr == HALT_ADDRESS || t + CAREFUL_MARGIN >= max_cycles
    {
        return FALLBACK;
    }
    let Some(next) = prog.group_at(addr) else {
        return FALLBACK;
    };
    if flush_due(c.acc) {
        c.flush(prof.p.settled_mut());
    }
    commit_transfer(c, g, now, t);
    prof.ret(c);
    next
}

/// Count a call or return group issued at `t` (clock `now` before its stalls) and its
/// taken transfer.
#[inline(always)]
fn commit_transfer(c: &mut Run, g: &Group, now: u64, t: u64) {
    if t != now {
        c.stall(t - now);
    }
    c.acc = c.acc.wrapping_add(g.counts);
    c.take_branch();
}

/// Issue cycle of group `g` at clock `now`: later when its scoreboard entries say so (and
/// then the ready times of its slow destinations are set).
#[inline(always)]
fn issue_time(prog: &Program, core: &mut Core, g: &Group, now: u64) -> u64 {
    if g.flags & F_SB != 0 {
        scoreboard_issue(prog, core, g, now)
    } else {
        now
    }
}

/// Issue cycle of a group with scoreboard entries (at or after `t`), and the ready times
/// of its slow destinations.
#[inline(always)]
fn scoreboard_issue(prog: &Program, core: &mut Core, g: &Group, mut t: u64) -> u64 {
    let ready = &mut core.ready;
    // `t.max(ready.saturating_sub(adj))` without the saturation: cycle counts stay far
    // below 2^63, so a ready time below `adj` wraps to a negative i64 that `max` drops.
    let need = ready[usize::from(g.check_idx)].wrapping_sub(u64::from(g.check_adj));
    t = (t as i64).max(need as i64) as u64;
    if g.more != 0 {
        return scoreboard_more(prog, ready, g, t);
    }
    ready[usize::from(g.slow_idx)] = t + u64::from(g.slow_lat);
    t
}

/// The scoreboard of a group with entries beyond the inline ones (rare: groups with
/// several long-latency operands or results). Slow writes are made in slot order, the
/// inline one first, so that when both operations write one register the ready time is
/// slot 1's, whose value stays (as the block timing in `blocks.rs` assumes).
#[inline(never)]
fn scoreboard_more(prog: &Program, ready: &mut [u64; 256], g: &Group, mut t: u64) -> u64 {
    let sb = g.sb as usize;
    let n = usize::from(g.more >> 4);
    let m = n + usize::from(g.more & 15);
    for &(idx, adj) in prog.sb.get(sb..sb + n).unwrap_or(&[]) {
        t = t.max(ready[usize::from(idx)].saturating_sub(u64::from(adj)));
    }
    ready[usize::from(g.slow_idx)] = t + u64::from(g.slow_lat);
    for &(idx, lat) in prog.sb.get(sb + n..sb + m).unwrap_or(&[]) {
        ready[usize::from(idx)] = t + u64::from(lat);
    }
    t
}

/// The general path: group `gi` at clock `now`, issuing at `t` (its scoreboard done by
/// [`issue_time`]), with every check. The convention for traps (the one of the ST231
/// model): the cycle budget stops the run at the first group that would issue at or after
/// `max_cycles`, naming it, at cycle `max(max_cycles, now)` (its stalls up to there
/// counted); any other trap raised by the group (illegal group or encoding, memory fault,
/// bad system call, jump, call or return to no group start, running off the code, call
/// depth) names it (the operation's address, the transfer's for control) at its issue
/// cycle `t`, its operand stalls counted and the group itself not (no bundle, operations
/// or taken transfer): the totals' cycles are the trap's cycle. As on the ST231, a bad
/// transfer traps before any operation of the group runs; registers and memory written by
/// operations that ran before a faulting one keep their values. With `TRACE`, an issued
/// group is printed.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn general_group<const TRACE: bool>(
    prog: &Program,
    core: &mut Core,
    c: &mut Run,
    prof: &mut Prof,
    trace: &mut dyn Write,
    gi: usize,
    now: u64,
    t: u64,
    max_cycles: u64,
) -> Flow {
    use Flow::Stop;
    let g = &prog.groups[gi];
    if t >= max_cycles {
        // At the budget, or at once when a taken transfer's bubbles crossed it.
        c.stall(max_cycles.max(now) - now);
        return Stop(End::Trap(TrapKind::CycleBudget, g.addr));
    }
    c.stall(t - now);
    if c.acc >= FLUSH_THRESHOLD {
        c.flush(prof.p.settled_mut());
    }
    if g.flags & F_ILLEGAL != 0 {
        let kind = match prog.aux.get(&gi) {
            Some(Aux::Trap(k)) => k.clone(),
            _ => TrapKind::Unsupported("corrupt pre-decoded group"),
        };
        return Stop(End::Trap(kind, g.addr));
    }
    let ctl_pc = g.addr + 4 * (u32::from(g.n).max(1) - 1);
    if g.flags & F_CONTROL != 0 {
        if let Some(addr) = bad_transfer(prog, &core.regs, g) {
            // Control first (as on the ST231): no operation of the group takes effect.
            return Stop(End::Trap(TrapKind::BadJump { addr }, ctl_pc));
        }
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
    let bad_jump = |addr| Stop(End::Trap(TrapKind::BadJump { addr }, ctl_pc));
    // Control first: every way the transfer can fail traps before the group is counted.
    let mut exit = None;
    let to = match ctl {
        Ctl::Next => next,
        Ctl::To(idx, addr) => match idx {
            NO_GROUP => return bad_jump(addr),
            _ => idx as usize,
        },
        Ctl::Dynamic(addr) | Ctl::Return(addr) | Ctl::Call(NO_GROUP, addr) => {
            if matches!(ctl, Ctl::Return(_)) && addr == HALT_ADDRESS {
                exit = Some(regs.r[0] as i32);
                next
            } else {
                match prog.group_at(addr) {
                    Some(x) => x,
                    None => return bad_jump(addr),
                }
            }
        }
        Ctl::Call(idx, _) => idx as usize,
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
                Ok(SyscallOutcome::Exit(code)) => {
                    exit = Some(code);
                    next
                }
                Err(k) => return Stop(End::Trap(k, ctl_pc)),
            }
        }
    };
    // The group issues.
    let before = *c;
    c.acc = c.acc.wrapping_add(g.counts);
    let taken = !matches!(ctl, Ctl::Next | Ctl::Syscall(_));
    if taken {
        c.take_branch();
    }
    match ctl {
        Ctl::Call(..) => {
            if let Err(k) = prof.call(gi, to, c) {
                // The profiler refuses a call before any effect: the call does not issue.
                *c = before;
                return Stop(End::Trap(k, ctl_pc));
            }
            regs.p[usize::from(LINK)] = next_addr;
        }
        Ctl::Return(_) => prof.ret(c),
        _ => {}
    }
    if TRACE {
        trace_group(trace, prog, gi, t);
    }
    match exit {
        Some(code) => Stop(End::Exit(code)),
        None => Flow::Go(to),
    }
}

/// The target of the transfer group `g` is about to take when it starts no group (a jump,
/// branch, call or return there traps), read from the registers before the group writes
/// any; `None` when the group takes no transfer or a valid one (the halt address included).
fn bad_transfer(prog: &Program, regs: &Regs, g: &Group) -> Option<u32> {
    let valid = |addr: u32| prog.group_at(addr).is_some();
    for op in &g.ops[..usize::from(g.n)] {
        let on = guard_on(regs, op);
        let target = match op.k {
            K::Goto | K::Call if op.imm as u32 != NO_GROUP => None,
            K::Goto => Some(op.target_addr()),
            K::GotoF if !on && op.imm as u32 == NO_GROUP => Some(op.target_addr()),
            K::Call if on => Some(op.target_addr()).filter(|&a| !valid(a)),
            // JUMP always, `Gx! JUMP` when the guard is false, LINK when it is true.
            K::Jump => Some(regs.p[usize::from(JUMP_TARGET)]).filter(|&a| !valid(a)),
            K::JumpF if !on => Some(regs.p[usize::from(JUMP_TARGET)]).filter(|&a| !valid(a)),
            K::Link if on => Some(regs.p[usize::from(JUMP_TARGET)]).filter(|&a| !valid(a)),
            K::Rts if on => {
                Some(regs.p[usize::from(LINK)]).filter(|&a| a != HALT_ADDRESS && !valid(a))
            }
            _ => None,
        };
        if target.is_some() {
            return target;
        }
    }
    None
}

/// The profiler and the function of each group (for the callee of a call).
struct Prof {
    p: Profiler<Tally120>,
    func_of: Vec<u32>,
}

impl Prof {
    /// A call from group `gi` to group `target`.
    #[inline(always)]
    fn call(&mut self, gi: usize, target: usize, c: &mut Run) -> Result<(), TrapKind> {
        let clock = c.cycle();
        let mut t = c.tally();
        let callee = self.func_of.get(target).map_or(usize::MAX, |&f| f as usize);
        self.p.call(gi, callee, 0, &mut t)?;
        c.load(t, clock);
        Ok(())
    }

    #[inline(always)]
    fn ret(&mut self, c: &mut Run) {
        let clock = c.cycle();
        let mut t = c.tally();
        self.p.ret(&mut t);
        c.load(t, clock);
    }
}

/// The counters of a calling context as the interpreter keeps them (see [`Run`]).
#[derive(Clone, Copy, Debug, Default)]
struct Tally120 {
    acc: u128,
    stalls: u64,
    taken: u64,
}

/// Add the lanes of a packed counter vector to `c`.
fn add_lanes(acc: u128, c: &mut Counters) {
    let mask = (1u128 << LANE_BITS) - 1;
    let lane = |l: Lane| ((acc >> (LANE_BITS * l as u32)) & mask) as u64;
    c.bundles += lane(Lane::Bundles);
    c.ops += lane(Lane::Ops);
    c.nops += lane(Lane::Nops);
    c.moves += lane(Lane::Moves);
    c.swaps += lane(Lane::Swaps);
    c.loads += lane(Lane::Loads);
    c.stores += lane(Lane::Stores);
    c.spill_loads += lane(Lane::SpillLoads);
    c.spill_stores += lane(Lane::SpillStores);
}

impl Tally for Tally120 {
    /// Same rule as the interpreter's flushes (see `FLUSH_THRESHOLD`).
    #[inline(always)]
    fn settle(&mut self, settled: &mut Counters) {
        if self.acc >= FLUSH_THRESHOLD {
            add_lanes(self.acc, settled);
            self.acc = 0;
        }
    }

    fn total(&self, settled: &Counters) -> Counters {
        let mut c = *settled;
        add_lanes(self.acc, &mut c);
        c.stall_operand = self.stalls;
        c.taken_branches = self.taken;
        c.cycles = c.bundles + self.stalls + self.taken * u64::from(TAKEN_BRANCH_BUBBLES);
        c
    }
}

/// Running counters of the interpreter loop: the current calling context's tally (packed
/// static counts, stalls, taken branches) and `base`, the elapsed cycles not counted by the
/// bundles lane of `acc` (stalls and bubbles included, kept in step by [`Run::stall`] and
/// [`Run::take_branch`]), so that the clock is `base` plus one lane and the hot loop need
/// not count cycles.
#[derive(Clone, Copy)]
struct Run {
    stalls: u64,
    taken: u64,
    acc: u128,
    base: u64,
}

/// `acc >= FLUSH_THRESHOLD`, on the high word only (the threshold's low word is 0).
#[inline(always)]
fn flush_due(acc: u128) -> bool {
    const _: () = assert!(FLUSH_THRESHOLD as u64 == 0);
    (acc >> 64) as u64 >= (FLUSH_THRESHOLD >> 64) as u64
}

/// Mask of one lane of the packed counters.
const LANE_MASK: u128 = (1u128 << LANE_BITS) - 1;

impl Run {
    /// Move the packed counts into the current context's `settled` counters.
    #[inline]
    fn flush(&mut self, settled: &mut Counters) {
        let clock = self.cycle();
        add_lanes(self.acc, settled);
        self.acc = 0;
        self.base = clock;
    }

    /// A taken branch, call or return (its bubbles advance the clock).
    #[inline(always)]
    fn take_branch(&mut self) {
        self.taken += 1;
        self.base += u64::from(TAKEN_BRANCH_BUBBLES);
    }

    /// `d` operand-stall cycles.
    #[inline(always)]
    fn stall(&mut self, d: u64) {
        self.stalls += d;
        self.base += d;
    }

    /// Elapsed cycles: one per issued group, plus stalls, plus the bubbles of taken
    /// branches.
    #[inline(always)]
    fn cycle(&self) -> u64 {
        self.clock(self.acc)
    }

    /// The clock when the packed counters read `acc` (the hot loop keeps them in a local).
    #[inline(always)]
    fn clock(&self, acc: u128) -> u64 {
        self.base + (acc & LANE_MASK) as u64
    }

    #[inline(always)]
    fn tally(&self) -> Tally120 {
        Tally120 {
            acc: self.acc,
            stalls: self.stalls,
            taken: self.taken,
        }
    }

    /// Make `t` the current tally, the clock reading `clock`.
    #[inline(always)]
    fn load(&mut self, t: Tally120, clock: u64) {
        self.acc = t.acc;
        self.stalls = t.stalls;
        self.taken = t.taken;
        self.base = clock - (t.acc & LANE_MASK) as u64;
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::st120::assemble;

    /// Recursive Fibonacci: `main` calls `fib(n)` (argument and result in R0), which calls
    /// itself twice unless n < 2, saving P11 and n on the stack.
    const FIB: &str = "
main:   COPYD R2, P11 ;;
        SDW @(SP - 1), R2 ;;
        MAKE R0, N ;;
        SUBWA SP, SP, 2 ;;
        CALL fib ;;
        ADDWA SP, SP, 2 ;;
        LDW R2, @(SP - 1) ;;
        COPYA P11, R2 ;;
        RTS ;;
fib:    LTW G0, R0, 2 ;;
        G0? RTS ;;
        COPYD R2, P11 ;;
        SDW @(SP - 1), R2 ;;
        SDW @(SP - 2), R0 ;;
        SUBWA SP, SP, 4 ;;
        SUB R0, R0, 1 ;;
        CALL fib ;;
        SDW @(SP + 1), R0
        LDW R0, @(SP + 2) ;;
        SUB R0, R0, 2 ;;
        CALL fib ;;
        LDW R1, @(SP + 1) ;;
        ADDWA SP, SP, 4 ;;
        LDW R2, @(SP - 1)
        ADD R0, R0, R1 ;;
        COPYA P11, R2 ;;
        RTS ;;
";

    fn fibonacci(n: u64) -> u64 {
        (0..n).fold((0, 1), |(a, b), _| (b, a + b)).0
    }

    /// The profile of the recursion, counted by hand (static counts; cycles are checked to
    /// add up). fib(n) makes fib(n+1) leaf activations (n < 2: LTW, `G0? RTS` taken = 2
    /// groups, 2 operations, 1 taken) and fib(n+1) - 1 inner ones (16 groups, 18 operations,
    /// 3 stores, 3 loads, 3 taken: two calls and the final RTS; the guarded RTS is not
    /// taken). main: 9 groups, 9 operations, 1 store, 1 load, 2 taken.
    #[test]
    fn recursion_profile_counted_by_hand() {
        for n in [0u64, 1, 2, 5, 10] {
            let obj = assemble(&FIB.replace(" N ", &format!(" {n} "))).unwrap();
            let r = run(&obj, &RunOptions::default(), &mut std::io::sink());
            assert_eq!(r.trap, None);
            assert_eq!(r.exit_code as u64, fibonacci(n));
            let leaves = fibonacci(n + 1);
            let inner = leaves - 1;
            let f = &r.functions;
            assert_eq!(f.len(), 2);
            assert_eq!((f[0].name.as_str(), f[0].calls), ("main", 1));
            assert_eq!((f[1].name.as_str(), f[1].calls), ("fib", 2 * leaves - 1));
            let (fib, main) = (&f[1], &f[0]);
            let static_counts =
                |c: &Counters| (c.bundles, c.ops, c.stores, c.loads, c.taken_branches);
            let fib_counts = (
                2 * leaves + 16 * inner,
                2 * leaves + 18 * inner,
                3 * inner,
                3 * inner,
                leaves + 3 * inner,
            );
            assert_eq!(static_counts(&fib.exclusive), fib_counts, "n = {n}");
            assert_eq!(fib.inclusive, fib.exclusive, "n = {n}");
            assert_eq!(static_counts(&main.exclusive), (9, 9, 1, 1, 2), "n = {n}");
            assert_eq!(main.inclusive, main.exclusive + fib.exclusive, "n = {n}");
            assert_eq!(r.totals, main.inclusive);
            for c in [&fib.exclusive, &main.exclusive] {
                let bubbles = u64::from(TAKEN_BRANCH_BUBBLES) * c.taken_branches;
                assert_eq!(c.cycles, c.bundles + c.stall_operand + bubbles);
            }
        }
    }

    /// Run `src` without tracing and with tracing: both must give the same report
    /// (counters, profile, trap, exit code), and a trap must end the counters at its cycle.
    /// Returns the untraced machine and report.
    fn run_both(src: &str, opts: &RunOptions) -> (Machine, RunReport) {
        let obj = assemble(src).unwrap_or_else(|e| panic!("{e}"));
        let mut fast = Machine::load(&obj, opts).unwrap();
        let r = fast.run::<false>(&mut std::io::sink());
        let traced = RunOptions {
            trace: true,
            ..opts.clone()
        };
        let mut lines = Vec::new();
        let t = Machine::load(&obj, &traced)
            .unwrap()
            .run::<true>(&mut lines);
        assert_eq!(r.totals, t.totals);
        assert_eq!(r.functions, t.functions);
        assert_eq!(r.trap, t.trap);
        assert_eq!(r.exit_code, t.exit_code);
        assert_eq!(
            lines.iter().filter(|&&b| b == b'\n').count() as u64,
            r.totals.bundles
        );
        if let Some(trap) = &r.trap {
            assert_eq!(r.totals.cycles, trap.cycle, "{trap}");
        }
        (fast, r)
    }

    /// The bound behind `CAREFUL_MARGIN`: a group's operand stall is shorter than the
    /// longest latency, so one group takes fewer than `MAX_GROUP_CYCLES` cycles.
    #[test]
    fn latencies_fit_the_careful_margin() {
        use crate::isa::st120::opcode::{Opcode, POST_MODIFY_LATENCY};
        let longest = Opcode::all()
            .iter()
            .map(|o| o.info().latency)
            .chain([POST_MODIFY_LATENCY])
            .max()
            .unwrap();
        assert!(u64::from(longest) < MAX_GROUP_CYCLES, "{longest}");
    }

    /// The cycle budget on a loop of 5 cycles per iteration (ADD at 5k, GOTO at 5k + 1, 3
    /// bubbles), counted by hand: the first group that would issue at or after N stops the
    /// run. N = 5k: the ADD at N; N = 5k + 1: the GOTO at N; N = 5k + 2..4: the clock is
    /// already 5k + 5 > N after the GOTO's bubbles, so the ADD stops there, at 5k + 5. The
    /// totals end at the trap's cycle. Budgets far below and around the hand-over margin.
    #[test]
    fn budget_stops_a_loop_where_counted_by_hand() {
        let src = "main:\nL: ADD R0, R0, 1 ;;\n GOTO L ;;\n";
        let small = (1..40).chain(995..1005);
        for n in small.chain(CAREFUL_MARGIN - 10..CAREFUL_MARGIN + 12) {
            let opts = RunOptions {
                max_cycles: n,
                ..RunOptions::default()
            };
            let (_, r) = run_both(src, &opts);
            let t = r.trap.unwrap();
            let (pc, cycle) = match n % 5 {
                0 => (0x1000, n),
                1 => (0x1004, n),
                _ => (0x1000, n + 5 - n % 5),
            };
            assert_eq!(
                (t.kind, t.pc, t.cycle),
                (TrapKind::CycleBudget, pc, cycle),
                "N = {n}"
            );
            // Whole iterations before the trap, plus the ADD when the GOTO stops the run.
            let whole = cycle / 5;
            assert_eq!(
                r.totals.bundles,
                2 * whole + u64::from(n % 5 == 1),
                "N = {n}"
            );
            assert_eq!(r.totals.taken_branches, whole, "N = {n}");
        }
    }

    /// Control first, as on the ST231: a group whose jump, call or return goes to no group
    /// start traps at its issue cycle before any of its operations takes effect (the ADD
    /// beside it leaves R1 as it was); the group is not counted.
    #[test]
    fn bad_transfers_trap_before_their_group_acts() {
        let cases = [
            ("MAKEA P3, 0x1006", "ADD R1, R1, 1\n JUMP"),
            ("MAKEA P3, 0x1006", "ADD R1, R1, 1\n LINK"),
            ("MAKEA P11, 0x7770", "ADD R1, R1, 1\n RTS"),
            ("MAKE R1, 5", "ADD R1, R1, 1\n GOTO 0x2000"),
        ];
        for (setup, group) in cases {
            // MAKE R1 at 0, the setup at 1, the transfer group at 2 (0x1008, slot 1 0x100C).
            let src = format!("main: MAKE R1, 5 ;;\n {setup} ;;\n {group} ;;\n RTS ;;\n");
            let (m, r) = run_both(&src, &RunOptions::default());
            let t = r.trap.unwrap();
            assert!(matches!(t.kind, TrapKind::BadJump { .. }), "{src}: {t}");
            assert_eq!((t.pc, t.cycle, m.r(1)), (0x100C, 2, 5), "{src}");
            assert_eq!((r.totals.bundles, r.totals.taken_branches), (2, 0), "{src}");
        }
    }

    /// Groups stored in reversed order (slot 1 reads what slot 0 writes): slot 1 runs
    /// first, and a trap names the address of the operation that raised it.
    #[test]
    fn reversed_groups_trap_at_their_own_slot() {
        // Slot 1 (the store to address 0) traps first: slot 0's ADD has not run.
        let src =
            "main: MAKEA P0, 0\n MAKE R1, 5 ;;\n ADD R1, R1, 1\n SDW @(P0 + 0), R1 ;;\n RTS ;;\n";
        let (m, r) = run_both(src, &RunOptions::default());
        let t = r.trap.unwrap();
        assert_eq!((t.kind, t.pc), (TrapKind::BadAddress { addr: 0 }, 0x100C));
        assert_eq!(m.r(1), 5);
        // Slot 0 (the load from address 0) traps after slot 1 has read the old R1.
        let src =
            "main: MAKEA P0, 0\n MAKE R1, 5 ;;\n LDW R1, @(P0 + 0)\n ADD R2, R1, 1 ;;\n RTS ;;\n";
        let (m, r) = run_both(src, &RunOptions::default());
        let t = r.trap.unwrap();
        assert_eq!((t.kind, t.pc), (TrapKind::BadAddress { addr: 0 }, 0x1008));
        assert_eq!((m.r(1), m.r(2)), (5, 6));
    }

    /// Calls, returns, reversed groups and check points in a loop: the hot loop and the
    /// traced general path agree, to completion and when the cycle budget or the call
    /// depth stops the run inside the loop.
    #[test]
    fn hot_loop_matches_the_general_path() {
        let src = "
main:   MAKE R5, 300
        MOVEA P10, P11 ;;
loop:   MOVE R0, R5
        ADD R7, R7, 1 ;;
        CALL leaf ;;
        ADD R8, R8, R0
        SUB R5, R5, 1 ;;
        EQW G0, R5, 0 ;;
        G0! GOTO loop ;;
        MOVE R0, R8
        MOVEA P11, P10 ;;
        RTS ;;
leaf:   ADD R0, R0, R0
        XOR R1, R0, 5 ;;
        ADD R0, R0, R1 ;;
        RTS ;;
";
        let (_, r) = run_both(src, &RunOptions::default());
        assert_eq!(r.trap, None);
        assert_eq!(r.totals.taken_branches, 3 * 300);
        assert_eq!(r.functions[1].calls, 300);
        // The same loop long enough to cross the margin within which the hot paths hand the
        // run to the general path: budgets below it, at it and after it.
        let long = src.replace("MAKE R5, 300", "MAKE R5, 4000");
        // The final RTS (to the halt address) issues at `total - 4`.
        let total = run_both(&long, &RunOptions::default()).1.totals.cycles;
        assert!(total > CAREFUL_MARGIN + 2000, "{total}");
        let budgets = [7, 100, 1001, 2222, CAREFUL_MARGIN + 1001, total - 4]
            .into_iter()
            .chain((0..24).map(|k| CAREFUL_MARGIN - 4 + k));
        for max_cycles in budgets {
            let opts = RunOptions {
                max_cycles,
                ..RunOptions::default()
            };
            let (_, r) = run_both(&long, &opts);
            let trap = r.trap.unwrap();
            assert_eq!(trap.kind, TrapKind::CycleBudget);
            // At the budget, or up to 3 bubble cycles later when a taken transfer crossed it.
            assert!((max_cycles..max_cycles + 4).contains(&trap.cycle), "{trap}");
            let c = &r.totals;
            assert_eq!(c.cycles, c.bundles + 3 * c.taken_branches);
        }
        let deep = "main: CALL main ;;\n RTS ;;\n";
        for max_call_depth in [1, 2, 50] {
            let opts = RunOptions {
                max_call_depth,
                ..RunOptions::default()
            };
            let (_, r) = run_both(deep, &opts);
            assert_eq!(r.trap.unwrap().kind, TrapKind::CallDepth);
        }
    }
}
