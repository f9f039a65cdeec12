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
//! operation. When it stops, groups whose slot 1 must run first (it reads what slot 0
//! writes), lone direct `CALL`s and `RTS`s (with their profiler events) run in
//! `side_group`, which does what the slow path would, more cheaply; everything else
//! (other calls and returns, indirect jumps, TRAP, crossed or illegal groups, flush points)
//! goes through `slow_group`. Tracing runs every group through the general path (the tests
//! check that both paths give the same counters).
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
//! a 128-bit accumulator (one add per group, 14-bit lanes), flushed into the current calling
//! context's 64-bit counters on taken branches and in the slow path (control groups, plus a
//! flush point every 2048 groups) before any lane can overflow. Counters count *issued*
//! operations, including guarded-off ones (ASSUMPTION: a predicated operation still occupies
//! its slot). Per-function counters come from the shared [`Profiler`]: the accumulator, the
//! stall and taken-branch counts are the current calling context's tally, swapped only at
//! calls and returns, and the clock is derived from them plus a base (see `Run`).
//!
//! **Safety.** No guest input can panic the host: every memory access is checked, every
//! jump target is looked up, the cycle budget and the call depth are bounded. Cost: O(code)
//! pre-decoding, O(1) per group.

mod exec;
mod predecode;

use crate::asm::st120::format_inst;
use crate::isa::st120::opcode::TAKEN_BRANCH_BUBBLES;
use crate::isa::st120::{GUARD_TRUE, LINK};
use crate::machine::profile::Tally;
use crate::machine::{
    syscall, Counters, FunctionTable, Memory, Profiler, RunOptions, RunReport, SyscallOutcome,
    Trap, TrapKind, HALT_ADDRESS,
};
use crate::object::Object;
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

/// The interpreter loop: scoreboard, counters and plain operations inline; everything else
/// (control, reordered and illegal groups, flushes, the budget) in [`slow_group`].
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
    loop {
        if !TRACE {
            gi = match run_fast(prog, core, c, prof.p.settled_mut(), gi, max_cycles) {
                Ok(next) => next,
                Err(end) => return end,
            };
            if let Some(g) = prog.groups.get(gi) {
                match side_group(prog, core, c, prof, g, gi, max_cycles) {
                    Ok(Some(next)) => {
                        gi = next;
                        continue;
                    }
                    Ok(None) => {}
                    Err(end) => return end,
                }
            }
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
    settled: &mut Counters,
    gi: usize,
    max_cycles: u64,
) -> Result<usize, End> {
    // Work on a local copy of the counters (kept in registers), written back on exit.
    let mut k = c.clone();
    let r = run_fast_local(prog, core, &mut k, settled, gi, max_cycles);
    *c = k;
    r
}

#[inline(always)]
fn run_fast_local(
    prog: &Program,
    core: &mut Core,
    c: &mut Run,
    settled: &mut Counters,
    mut gi: usize,
    max_cycles: u64,
) -> Result<usize, End> {
    let groups = &prog.groups[..];
    let mut acc = c.acc;
    let mut taken = c.taken;
    macro_rules! sync {
        () => {
            c.acc = acc;
            c.taken = taken;
        };
    }
    loop {
        let Some(g) = groups.get(gi) else {
            sync!();
            return Ok(gi);
        };
        if g.flags == 0 {
            // The common case first: plain operations in order, no scoreboard entry.
            acc = acc.wrapping_add(g.counts);
            if let Err(e) = exec(&mut core.regs, &mut core.mem, &g.ops[0]) {
                sync!();
                return Err(End::Trap(e, g.addr));
            }
            if g.n == 2 {
                if let Err(e) = exec(&mut core.regs, &mut core.mem, &g.ops[1]) {
                    sync!();
                    return Err(End::Trap(e, g.addr + 4));
                }
            }
            gi += 1;
            continue;
        }
        let flags = g.flags & !F_SB;
        if flags != 0 && flags != F_BRANCH {
            sync!();
            return Ok(gi);
        }
        if g.flags & F_SB != 0 {
            // Scoreboard: the group issues when its operands are ready.
            sync!();
            let now = c.cycle();
            let t = scoreboard_issue(prog, core, g, now);
            c.stalls += t - now;
        }
        acc = acc.wrapping_add(g.counts);
        if flags == 0 {
            // Plain operations in order, fall through.
            if let Err(e) = exec(&mut core.regs, &mut core.mem, &g.ops[0]) {
                sync!();
                return Err(End::Trap(e, g.addr));
            }
            if g.n == 2 {
                if let Err(e) = exec(&mut core.regs, &mut core.mem, &g.ops[1]) {
                    sync!();
                    return Err(End::Trap(e, g.addr + 4));
                }
            }
            gi += 1;
            continue;
        }
        // In-order group ending with a direct branch.
        let last = usize::from(g.n.max(1)) - 1;
        if last == 1 {
            if let Err(e) = exec(&mut core.regs, &mut core.mem, &g.ops[0]) {
                sync!();
                return Err(End::Trap(e, g.addr));
            }
        }
        let br = &g.ops[last];
        if br.k == K::Goto || !guard_on(&core.regs, br) {
            gi = br.imm as u32 as usize;
            taken += 1;
            if acc >= FLUSH_THRESHOLD {
                sync!();
                c.flush(settled);
                acc = c.acc;
            }
            sync!();
            if c.cycle() >= max_cycles {
                return Err(End::Trap(TrapKind::CycleBudget, g.addr + 4 * last as u32));
            }
        } else {
            gi += 1;
        }
    }
}

/// Groups run outside the hot loop but more cheaply than by `slow_group`, exactly as
/// `execute` and `slow_group` would run them (scoreboard, counts, flush, cycle budget, then
/// the operations): a group whose slot 1 must run first (it reads what slot 0 writes), a
/// lone direct CALL, an RTS to a group (with their profiler events). Returns the next group, or `None` (nothing done) for any other group.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn side_group(
    prog: &Program,
    core: &mut Core,
    c: &mut Run,
    prof: &mut Prof,
    g: &Group,
    gi: usize,
    max_cycles: u64,
) -> Result<Option<usize>, End> {
    let flags = g.flags & !F_SB;
    let reversed = flags == F_REORDER && g.order == Order::Rev;
    let next = if reversed {
        gi + 1
    } else if flags == F_CONTROL {
        match call_or_return(prog, core, g) {
            Some(next) => next,
            None => return Ok(None),
        }
    } else {
        return Ok(None);
    };
    if g.flags & F_SB != 0 {
        let now = c.cycle();
        let t = scoreboard_issue(prog, core, g, now);
        c.stalls += t - now;
    }
    c.acc = c.acc.wrapping_add(g.counts);
    if c.acc >= FLUSH_THRESHOLD {
        c.flush(prof.p.settled_mut());
    }
    if c.cycle() >= max_cycles {
        return Err(End::Trap(TrapKind::CycleBudget, g.addr));
    }
    if reversed {
        exec(&mut core.regs, &mut core.mem, &g.ops[1]).map_err(|e| End::Trap(e, g.addr + 4))?;
        exec(&mut core.regs, &mut core.mem, &g.ops[0]).map_err(|e| End::Trap(e, g.addr))?;
        return Ok(Some(next));
    }
    c.take_branch();
    if g.ops[0].k == K::Call {
        core.regs.p[usize::from(LINK)] = g.addr.wrapping_add(4);
        prof.call(gi, next, c).map_err(|k| End::Trap(k, g.addr))?;
    } else {
        prof.ret(c);
    }
    Ok(Some(next))
}

/// The next group when `g` is a lone, guarded-on direct CALL to a group or RTS to a group
/// (other than the halt address), before it runs; `None` for anything else.
#[inline(always)]
fn call_or_return(prog: &Program, core: &Core, g: &Group) -> Option<usize> {
    let op = &g.ops[0];
    if g.n != 1 || !guard_on(&core.regs, op) {
        return None;
    }
    match op.k {
        K::Call if op.imm as u32 != NO_GROUP => Some(op.imm as u32 as usize),
        K::Rts => {
            let addr = core.regs.p[usize::from(LINK)];
            if addr == HALT_ADDRESS {
                None
            } else {
                prog.group_at(addr)
            }
        }
        _ => None,
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
    prof: &mut Prof,
    g: &Group,
    gi: usize,
    max_cycles: u64,
) -> Flow {
    use Flow::Stop;
    if c.acc >= FLUSH_THRESHOLD {
        c.flush(prof.p.settled_mut());
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
            if let Err(k) = prof.call(gi, x, c) {
                return Stop(End::Trap(k, ctl_pc));
            }
            x
        }
        Ctl::Return(addr) => {
            c.take_branch();
            if addr == HALT_ADDRESS {
                prof.ret(c);
                return Stop(End::Exit(regs.r[0] as i32));
            }
            let Some(x) = prog.group_at(addr) else {
                return bad_jump(addr);
            };
            prof.ret(c);
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
/// static counts, stalls, taken branches) and `base`, the elapsed cycles not accounted for
/// by it (other contexts', and this context's flushed groups), so that the clock is
/// derived and the hot loop need not count cycles.
#[derive(Clone)]
struct Run {
    stalls: u64,
    taken: u64,
    acc: u128,
    base: u64,
}

impl Run {
    /// Move the packed counts into the current context's `settled` counters.
    #[inline]
    fn flush(&mut self, settled: &mut Counters) {
        let clock = self.cycle();
        add_lanes(self.acc, settled);
        self.acc = 0;
        self.rebase(clock);
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
        self.base + self.local_cycles((self.acc & mask) as u64)
    }

    #[inline(always)]
    fn local_cycles(&self, bundles: u64) -> u64 {
        bundles + self.stalls + self.taken * u64::from(TAKEN_BRANCH_BUBBLES)
    }

    /// Set `base` so that the clock reads `clock`.
    #[inline(always)]
    fn rebase(&mut self, clock: u64) {
        let mask = (1u128 << LANE_BITS) - 1;
        self.base = clock - self.local_cycles((self.acc & mask) as u64);
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
        self.rebase(clock);
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
}
