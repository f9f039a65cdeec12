//! Pre-timed blocks for the ST231 hot loop: straight-line runs of bundles whose issue
//! cycles are worked out once, at pre-decode time (isa.md §A2, §A4).
//!
//! **Why the timing is static.** On the ST231 model a bundle issues at
//! `max(previous issue + 1, ready[src] + extra)` over its scoreboarded sources, where the
//! latencies (1, or 3 for loads and multiplies) and the extra read delays (2 for the `$b` of
//! `br`/`brf`, 1 for `$r63`) depend on the opcode only; there is no WAW/WAR stall (one
//! bundle per cycle, in order), a bundle with two memory operations is illegal (it traps and
//! never belongs to a block), and the only other cycle cost is the taken-branch bubble.
//! Memory is ideal. So the issue cycles of a run of bundles with no control transfer inside
//! depend only on the ready times of the registers the run reads before writing them
//! ("outside" reads). Let `s_k` be the issue offset of bundle `k` computed with every
//! outside register ready (`s_0 = 0`, `s_k >= s_{k-1} + 1`, later when an operand written
//! inside the block is not ready yet). The real issue cycle is
//! `a_k = max(a_{k-1} + 1, inside constraints, outside constraints)`; if every outside read
//! `(r, extra)` of bundle `k` satisfies `ready[r] + extra <= entry + s_k`, then by
//! induction on `k` the outside constraints never bind and `a_k = entry + s_k`. Per
//! register the outside reads fold into one *slack* `min(s_k - extra)` (possibly negative):
//! the block runs on its static timing iff `ready[r] <= entry + slack[r]` for each of them.
//! What stays dynamic is kept exact at run time: the branch direction (the block's exit),
//! memory faults (a trap inside a block reports the bundle, its issue cycle and the counters
//! of the bundles before it, see [`trap_prefix`]), the cycle budget and the counter settle
//! points (a block runs only when it ends before the next check cycle, otherwise its bundles
//! take the per-bundle path, which makes the check exactly where it did before).
//!
//! **Blocks.** Basic blocks of the pre-decoded bundles: a block starts at the entry bundle,
//! at direct branch, `goto` and `call` targets, after any bundle that is not part of a
//! block and after a block's closing branch, and every [`MAX_BUNDLES`] bundles. It holds
//! bundles without control operations and without renamed results (`nfix == 0`), and may
//! end with a bundle closing with a direct `br`/`brf`/`goto` to a known bundle, provided
//! that bundle's operations do not write the branch's `$b` (the branch reads the old value;
//! the block evaluates its exit after all its operations). Calls, returns, indirect jumps,
//! syscalls and trapping bundles never belong to a block. Blocks are disjoint, so the
//! per-bundle offsets (`t_off`) are indexed by bundle.
//!
//! **Steady self-loops.** A block whose branch goes back to itself, and whose every checked
//! register it writes is ready again by the next entry (`ready offset <= period + slack`,
//! period = issue cycles + taken-branch bubble; a register it does not write keeps its
//! ready time while the clock advances), passes its checks on the next iteration whenever
//! it passed them on this one: it iterates without checks.
//!
//! Cost: O(code) to build; per block execution O(operations + checks + late writes).

use super::{Bundle, Ctl, DOp, Program, PAD};
use crate::isa::st231::latency;
use crate::machine::{TrapKind, HALT_ADDRESS};

/// Bundles per block at most (keeps the position byte `DOp::k` in range).
pub(super) const MAX_BUNDLES: usize = 64;
/// Slack of the inline check when a block has none: `ready[PAD]` (always 0) is within it.
const NO_CHECK_SLACK: i64 = i64::MAX / 4;
/// `Blocks::block_of` entry of a bundle that does not start a block.
pub(super) const NO_BLOCK: u32 = u32::MAX;

/// How a block ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Exit {
    /// Falls through, or `br`/`brf`/`goto` (see `Block::br_slot`).
    Branch,
    /// A direct `call` to `Block::target` (its link `Block::link`).
    Call,
    /// `return`/`igoto` through `$r63`, which the last bundle does not write.
    Return,
}

/// One pre-timed block (see the module documentation).
#[derive(Clone, Copy, Debug)]
pub(super) struct Block {
    /// Sum of the packed static counts of its bundles.
    pub(super) counts: u128,
    /// Its operations in execution order: `Blocks::ops[ops..ops_end]`.
    pub(super) ops: u32,
    pub(super) ops_end: u32,
    /// Outside checks `Blocks::checks[checks..writes]` as `(register, slack)`, then its
    /// late writes `Blocks::writes[writes..writes_end]` as `(register, ready offset)`.
    pub(super) checks: u32,
    pub(super) checks_end: u32,
    /// The first outside check again, inline (the always-ready padding slot with a slack
    /// that always holds when there is none): most blocks have at most one.
    pub(super) chk: u8,
    pub(super) chk_slack: i64,
    pub(super) writes: u32,
    pub(super) writes_end: u32,
    /// Inside stall cycles (`s_last - (bundles - 1)`).
    pub(super) stalls: u32,
    /// Issue offset of the last bundle (`s_last`).
    pub(super) last: u32,
    /// First bundle.
    pub(super) first: u32,
    /// Fall-through successor (the bundle after the last one).
    pub(super) next: u32,
    /// Target bundle of the closing branch (`next` when the block falls through).
    pub(super) target: u32,
    /// The exit is taken when `regs[br_slot] == br_when`: the branch's `$b` and sense; for
    /// `goto` the always-zero padding slot and 0; for a fall-through block that slot and 1.
    pub(super) br_slot: u8,
    pub(super) br_when: u32,
    /// How it ends.
    pub(super) exit: Exit,
    /// The return address a closing `call` writes to `$r63`.
    pub(super) link: u32,
    /// See "Steady self-loops" in the module documentation.
    pub(super) steady_loop: bool,
}

/// The blocks of a program.
#[derive(Default)]
pub(super) struct Blocks {
    pub(super) blocks: Vec<Block>,
    /// Block starting at each bundle, or [`NO_BLOCK`].
    pub(super) block_of: Vec<u32>,
    pub(super) ops: Vec<DOp>,
    pub(super) checks: Vec<(u8, i64)>,
    pub(super) writes: Vec<(u8, u32)>,
    /// Issue offset of each bundle in its block (0 outside blocks).
    pub(super) t_off: Vec<u32>,
}

/// Whether bundle `b` may belong to a block (as its last bundle when it branches).
fn eligible(b: &Bundle) -> bool {
    if b.nfix != 0 {
        return false;
    }
    match b.ctl {
        Ctl::None => true,
        Ctl::Goto | Ctl::Call => b.target != u32::MAX,
        Ctl::Branch { b: cb, .. } => b.target != u32::MAX && !writes(b, cb),
        Ctl::Igoto => !writes(b, crate::isa::st231::LINK),
        _ => false,
    }
}

/// Whether an operation of bundle `b` writes slot `r` (which its control operation reads
/// before the operations write).
fn writes(b: &Bundle, r: u8) -> bool {
    b.ops[..usize::from(b.nops)]
        .iter()
        .any(|o| o.dst == r || o.dst2 == r)
}

/// Build the blocks of `bundles`.
pub(super) fn build(bundles: &[Bundle]) -> Blocks {
    let n = bundles.len();
    let mut leader = vec![false; n + 1];
    if n > 0 {
        leader[0] = true;
    }
    for (i, b) in bundles.iter().enumerate() {
        if matches!(b.ctl, Ctl::Branch { .. } | Ctl::Goto | Ctl::Call) && b.target != u32::MAX {
            leader[b.target as usize] = true;
        }
        if !eligible(b) || b.ctl != Ctl::None {
            leader[i + 1] = true;
        }
    }
    let mut out = Blocks {
        block_of: vec![NO_BLOCK; n],
        t_off: vec![0; n],
        ..Blocks::default()
    };
    let mut i = 0;
    while i < n {
        if !eligible(&bundles[i]) {
            i += 1;
            continue;
        }
        let first = i;
        let mut end = i + 1;
        while end < n
            && end - first < MAX_BUNDLES
            && !leader[end]
            && eligible(&bundles[end])
            && bundles[end - 1].ctl == Ctl::None
        {
            end += 1;
        }
        let blk = time_block(&mut out, bundles, first, end);
        out.block_of[first] = out.blocks.len() as u32;
        out.blocks.push(blk);
        i = end;
    }
    for bi in 0..out.blocks.len() {
        let b = out.blocks[bi];
        // A fall-through block's `target` is the bundle after it, never its first.
        let self_loop = b.exit == Exit::Branch && b.target == b.first;
        let period = i64::from(b.last) + 1 + i64::from(latency::TAKEN_BRANCH_PENALTY);
        let writes = &out.writes[b.writes as usize..b.writes_end as usize];
        let steady = self_loop
            && out.checks[b.checks as usize..b.checks_end as usize]
                .iter()
                .all(|&(r, slack)| {
                    writes
                        .iter()
                        .all(|&(w, off)| w != r || i64::from(off) <= period + slack)
                });
        out.blocks[bi].steady_loop = steady;
    }
    out
}

/// The static timing and the contents of the block of bundles `first..end`.
fn time_block(out: &mut Blocks, bundles: &[Bundle], first: usize, end: usize) -> Block {
    // Ready offset of each late register written so far in the block (last write wins, as
    // on the scoreboard), and the smallest slack of each register read before it is written.
    let mut local: [Option<i64>; 256] = [None; 256];
    let mut slack: [Option<i64>; 256] = [None; 256];
    let mut written_order: Vec<u8> = Vec::new();
    let mut checked_order: Vec<u8> = Vec::new();
    let mut counts = 0u128;
    let mut t: i64 = -1;
    let ops = out.ops.len() as u32;
    let last = &bundles[end - 1];
    let (target, br_slot, br_when, exit) = match last.ctl {
        Ctl::Branch { b, when } => (last.target, b, when, Exit::Branch),
        Ctl::Goto => (last.target, PAD, 0, Exit::Branch),
        Ctl::Call => (last.target, PAD, 0, Exit::Call),
        Ctl::Igoto => (u32::MAX, PAD, 0, Exit::Return),
        _ => (end as u32, PAD, 1, Exit::Branch),
    };
    for (k, b) in bundles.iter().enumerate().take(end).skip(first) {
        t += 1;
        let srcs = || (0..usize::from(b.nsrc)).map(|j| (b.srcs[j], i64::from(b.extra[j])));
        for (r, e) in srcs() {
            if let Some(w) = local[usize::from(r)] {
                t = t.max(w + e);
            }
        }
        for (r, e) in srcs() {
            let i = usize::from(r);
            if local[i].is_none() {
                if slack[i].is_none() {
                    checked_order.push(r);
                }
                slack[i] = Some(slack[i].map_or(t - e, |x| x.min(t - e)));
            }
        }
        for j in 0..usize::from(b.ndst) {
            let i = usize::from(b.dsts[j]);
            if local[i].is_none() {
                written_order.push(b.dsts[j]);
            }
            local[i] = Some(t + i64::from(b.lats[j]));
        }
        out.t_off[k] = t as u32;
        counts = counts.wrapping_add(b.stat);
        for o in &b.ops[..usize::from(b.nops)] {
            let mut o = *o;
            o.k = (k - first) as u8;
            out.ops.push(o);
        }
    }
    let checks = out.checks.len() as u32;
    let (chk, chk_slack) = checked_order.first().map_or((PAD, NO_CHECK_SLACK), |&r| {
        (r, slack[usize::from(r)].unwrap_or(0))
    });
    out.checks.extend(
        checked_order
            .iter()
            .map(|&r| (r, slack[usize::from(r)].unwrap_or(0))),
    );
    let writes = out.writes.len() as u32;
    out.writes.extend(
        written_order
            .iter()
            .map(|&r| (r, local[usize::from(r)].unwrap_or(0) as u32)),
    );
    Block {
        counts,
        ops,
        ops_end: out.ops.len() as u32,
        checks,
        checks_end: out.checks.len() as u32,
        chk,
        chk_slack,
        writes,
        writes_end: out.writes.len() as u32,
        stalls: (t - (end - first - 1) as i64) as u32,
        last: t as u32,
        first: first as u32,
        next: end as u32,
        target,
        br_slot,
        br_when,
        exit,
        link: last.next_addr,
        steady_loop: false,
    }
}

/// Whether block `b` entered at cycle `entry` runs on its static timing.
#[inline(always)]
pub(super) fn checks_pass(blocks: &Blocks, b: &Block, ready: &[u64], entry: u64) -> bool {
    ready[usize::from(b.chk)] as i64 <= entry as i64 + b.chk_slack
        && (b.checks_end - b.checks <= 1
            || blocks.checks[b.checks as usize + 1..b.checks_end as usize]
                .iter()
                .all(|&(r, slack)| ready[usize::from(r)] as i64 <= entry as i64 + slack))
}

/// The trap an operation of bundle `k` of block `b` raised with `e`, as the per-bundle path
/// reports it: a closing return to an address outside the code traps first (control before
/// the operations; the last bundle does not write `$r63`, so `regs` holds the value the
/// return reads).
#[cold]
pub(super) fn trap_in_block(
    prog: &Program,
    b: &Block,
    regs: &[u32],
    e: TrapKind,
    k: u8,
) -> (TrapKind, u8) {
    let target = regs[usize::from(crate::isa::st231::LINK)];
    let last = (b.next - 1 - b.first) as u8;
    if b.exit == Exit::Return
        && k == last
        && target != HALT_ADDRESS
        && prog.lookup(target).is_none()
    {
        (TrapKind::BadJump { addr: target }, k)
    } else {
        (e, k)
    }
}

/// What a trap raised by an operation of bundle `k` of block `b` entered at `entry` must
/// leave behind, as the per-bundle path would have: the packed counts and the stall
/// cycles of the bundles before it, the clock after them, the trapping bundle and its issue
/// cycle.
pub(super) fn trap_prefix(
    blocks: &Blocks,
    bundles: &[Bundle],
    b: &Block,
    k: u8,
    entry: u64,
) -> (u128, u64, u64, usize, u64) {
    let first = b.first as usize;
    let at = first + usize::from(k);
    let counts = bundles[first..at]
        .iter()
        .fold(0u128, |a, x| a.wrapping_add(x.stat));
    let (stalls, clock) = if k == 0 {
        (0, entry)
    } else {
        let prev = u64::from(blocks.t_off[at - 1]);
        (prev - (u64::from(k) - 1), entry + prev + 1)
    };
    (
        counts,
        stalls,
        clock,
        at,
        entry + u64::from(blocks.t_off[at]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::st231::assemble;
    use crate::machine::{FunctionTable, RunOptions, RunReport};
    use crate::sim::st231::{predecode, run, Program};
    use crate::sim::testutil::prop_same_run;
    use proptest::prelude::*;

    fn program(src: &str) -> Program {
        let obj = assemble(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        predecode(&obj, &FunctionTable::new(&obj))
    }

    /// Run `src` on the hot loop (blocks) and on the traced per-bundle path.
    fn run_both(src: &str, opts: &RunOptions) -> (RunReport, RunReport) {
        let obj = assemble(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let fast = run(&obj, opts, &mut std::io::sink());
        let traced_opts = RunOptions {
            trace: true,
            ..opts.clone()
        };
        let traced = run(&obj, &traced_opts, &mut std::io::sink());
        (fast, traced)
    }

    fn assert_same(fast: &RunReport, traced: &RunReport) {
        assert_eq!(fast.trap, traced.trap);
        assert_eq!(fast.totals, traced.totals);
        assert_eq!(fast.functions, traced.functions);
        assert_eq!(fast.exit_code, traced.exit_code);
        assert_eq!(fast.output, traced.output);
    }

    /// A loop reading `$r5`, loaded before it (ready 3 cycles after the load).
    const OUTSIDE_LOAD: &str = "
main:
    mov $r1 = val
    mov $r3 = 10 ;;
    ldbu $r5 = 0[$r1] ;;
loop:
    add $r6 = $r6, $r5
    add $r3 = $r3, -1 ;;
    cmpgt $b0 = $r3, 0 ;;
    br $b0, loop ;;
    mov $r16 = $r6 ;;
    return $r63 ;;
.data
val: .space 4, 3
";

    /// Timed by hand. Blocks: [0, 1] (falls through), the loop [2, 3, 4], [5]; the return
    /// is no block. Loop block: `add` at 0 reads `$r5` from outside (slack 0); `cmpgt` at 1
    /// writes `$b0` (ready 2); `br` reads it 2 cycles late: issues at 4 (2 inside stalls);
    /// `$r5` is not written in the loop: steady.
    /// Run: bundles 0, 1 at cycles 0, 1 (`$r5` ready at 4); the loop's first entry at 2
    /// fails its check (per-bundle path: `add` stalls 2, `br` 2, taken at 8: next 10);
    /// the 9 other iterations run as the block, 5 cycles each plus 1 bubble for the 8
    /// taken ones: 10 + 48 + 5 = 63; `mov` at 63, `return` at 64 (+1 bubble) = 66 cycles,
    /// 34 bundles, 4 + 9 * 2 = 22 stall cycles, 10 taken.
    #[test]
    fn outside_load_timed_by_hand() {
        let p = program(OUTSIDE_LOAD);
        let bl = &p.blocks;
        let first = &bl.blocks[bl.block_of[0] as usize];
        assert_eq!((first.last, first.stalls, first.next), (1, 0, 2));
        assert_eq!(
            &bl.writes[first.writes as usize..first.writes_end as usize],
            &[(5, 4)]
        );
        let lp = &bl.blocks[bl.block_of[2] as usize];
        assert_eq!(bl.block_of[1], NO_BLOCK);
        assert_eq!((lp.last, lp.stalls, lp.next, lp.target), (4, 2, 5, 2));
        assert_eq!(
            &bl.checks[lp.checks as usize..lp.checks_end as usize],
            &[(5, 0)]
        );
        assert_eq!((lp.chk, lp.chk_slack), (5, 0));
        assert_eq!(
            &bl.writes[lp.writes as usize..lp.writes_end as usize],
            &[(64, 2)]
        );
        assert_eq!((lp.br_slot, lp.br_when), (64, 1));
        assert!(lp.steady_loop);
        assert_eq!(lp.ops_end - lp.ops, 3);
        assert_eq!(bl.block_of[6], NO_BLOCK);
        let (fast, traced) = run_both(OUTSIDE_LOAD, &RunOptions::default());
        assert_same(&fast, &traced);
        assert_eq!(fast.exit_code, 30);
        let t = &fast.totals;
        assert_eq!(
            (t.cycles, t.bundles, t.stall_operand, t.taken_branches),
            (66, 34, 22, 10)
        );
    }

    /// The loop loads `$r5` in its last bundle (at 4: ready 7 after entry) and reads it in
    /// its first; the next entry is 6 cycles later, so every iteration after the first
    /// stalls 1 cycle on the per-bundle path: not steady. Stalls: 2 inside per iteration
    /// (the `br`) + 4 = 14; exit 0 + 3 * 4 = 12.
    #[test]
    fn loop_that_stalls_itself_is_not_steady() {
        let src = "
main:
    mov $r1 = val
    mov $r3 = 5 ;;
loop:
    add $r6 = $r6, $r5
    add $r3 = $r3, -1 ;;
    cmpgt $b0 = $r3, 0 ;;
    br $b0, loop
    ldbu $r5 = 0[$r1] ;;
    mov $r16 = $r6 ;;
    return $r63 ;;
.data
val: .space 4, 3
";
        let p = program(src);
        let lp = &p.blocks.blocks[p.blocks.block_of[1] as usize];
        assert_eq!((lp.last, lp.stalls, lp.target), (4, 2, 1));
        assert!(!lp.steady_loop);
        let (fast, traced) = run_both(src, &RunOptions::default());
        assert_same(&fast, &traced);
        assert_eq!(fast.exit_code, 12);
        assert_eq!(fast.totals.stall_operand, 14);
    }

    /// A trap in the first bundle of a block and in a later one (after a 2-cycle load-use
    /// stall): same bundle, cycle and counters as the per-bundle path.
    #[test]
    fn traps_inside_blocks_are_exact() {
        let late = "
main:
    mov $r2 = 3 ;;
    ldw $r4 = 0[$r12] ;;
    mul32 $r5 = $r4, $r2 ;;
    ldw $r6 = 1[$r12] ;;
    return $r63 ;;
";
        let p = program(late);
        assert_eq!(p.blocks.blocks.len(), 1);
        let (fast, traced) = run_both(late, &RunOptions::default());
        assert_same(&fast, &traced);
        let trap = fast.trap.expect("misaligned load");
        // mov 0, ldw 1 (ready 4), mul32 4, the trapping ldw 5.
        assert_eq!((trap.pc, trap.cycle), (p.bundles[3].addr, 5));
        let t = &fast.totals;
        assert_eq!((t.cycles, t.bundles, t.stall_operand), (5, 3, 2));
        let first = "main:\n ldw $r6 = 1[$r12] ;;\n return $r63 ;;\n";
        let (fast, traced) = run_both(first, &RunOptions::default());
        assert_same(&fast, &traced);
        assert_eq!(fast.trap.expect("misaligned").cycle, 0);
        assert_eq!(fast.totals.bundles, 0);
    }

    /// Blocks ending with a return: a return outside the code traps before the bundle's
    /// operations (even one that would fault), with the counters of the bundles before it;
    /// a return to a bundle or to the halt address ends the block like the per-bundle path.
    #[test]
    fn returns_closing_blocks_are_exact() {
        for (src, kind) in [
            ("main:\n mov $r63 = 12345 ;;\n return $r63 ;;\n", "BadJump"),
            (
                "main:\n mov $r63 = 12345 ;;\n return $r63\n ldw $r6 = 1[$r12] ;;\n",
                "BadJump",
            ),
            (
                "main:\n add $r2 = $r2, 1 ;;\n return $r63\n ldw $r6 = 1[$r12] ;;\n",
                "Misaligned",
            ),
            ("main:\n add $r16 = $r16, 7 ;;\n return $r63 ;;\n", ""),
        ] {
            let p = program(src);
            assert_eq!(p.blocks.blocks[0].exit, Exit::Return, "{src}");
            let (fast, traced) = run_both(src, &RunOptions::default());
            assert_same(&fast, &traced);
            let got = fast
                .trap
                .map(|t| format!("{:?}", t.kind))
                .unwrap_or_default();
            assert!(got.starts_with(kind), "{got} {src}");
        }
        // mov at 0 ($r63 ready 1, read 1 cycle late): the return issues at 2, traps there
        // with one bundle counted and the cycle it waited as a stall (the totals' cycles
        // are the trap's cycle).
        let (fast, _) = run_both(
            "main:\n mov $r63 = 12345 ;;\n return $r63 ;;\n",
            &RunOptions::default(),
        );
        assert_eq!(fast.trap.unwrap().cycle, 2);
        let t = &fast.totals;
        assert_eq!((t.bundles, t.cycles, t.stall_operand), (1, 2, 1));
    }

    /// Recursion through a call closing a block: the call-depth trap and the cycle budget
    /// stop both paths alike.
    #[test]
    fn calls_closing_blocks_trap_like_the_per_bundle_path() {
        let src =
            "main:\n add $r1 = $r1, 1 ;;\n call main\n add $r2 = $r2, 1 ;;\n return $r63 ;;\n";
        let p = program(src);
        assert_eq!(p.blocks.blocks[0].exit, Exit::Call);
        for max_call_depth in [1, 2, 50] {
            let opts = RunOptions {
                max_call_depth,
                ..RunOptions::default()
            };
            let (fast, traced) = run_both(src, &opts);
            assert_eq!(fast.trap.as_ref().unwrap().kind, TrapKind::CallDepth);
            assert_same(&fast, &traced);
        }
        // Counted by hand: each activation issues `add` and `call` (1 bubble); the call that
        // would exceed the depth does not issue. Depth 1: add at 0, the call refused at 1
        // (1 bundle, 1 cycle). Depth 2: add 0, call 1, add 3, call refused at 4 (3 bundles,
        // 4 cycles). The trace shows the issued bundles only.
        for (depth, bundles, cycle) in [(1, 1, 1), (2, 3, 4)] {
            let obj = assemble(src).unwrap();
            let opts = RunOptions {
                max_call_depth: depth,
                trace: true,
                ..RunOptions::default()
            };
            let mut lines = Vec::new();
            let r = run(&obj, &opts, &mut lines);
            let t = r.trap.expect("call depth");
            assert_eq!((t.pc, t.cycle), (0x1004, cycle));
            assert_eq!((r.totals.bundles, r.totals.cycles), (bundles, cycle));
            let n = String::from_utf8(lines).unwrap().lines().count() as u64;
            assert_eq!(n, bundles);
        }
        for max_cycles in 1..40 {
            let opts = RunOptions {
                max_cycles,
                ..RunOptions::default()
            };
            let (fast, traced) = run_both(src, &opts);
            assert_same(&fast, &traced);
        }
    }

    /// Every cycle budget stops the hot loop exactly where it stops the per-bundle path
    /// (a block runs only when it ends before the next check cycle).
    #[test]
    fn budgets_stop_exactly() {
        for max_cycles in 1..80 {
            let opts = RunOptions {
                max_cycles,
                ..RunOptions::default()
            };
            let (fast, traced) = run_both(OUTSIDE_LOAD, &opts);
            assert_same(&fast, &traced);
        }
    }

    /// Random operation `[kind, x, y]` (its own bundle or two): `$r2..$r7` data registers,
    /// `$r1` the data pointer, `$b0..$b2`; `$r10`/`$b3` belong to the loop, `$r12` to the
    /// stack. Forward `br`s skip one bundle; `ldw` through a data register usually traps.
    fn op_text(op: [u8; 3], label: usize) -> String {
        let [kind, x, y] = op;
        let d = 2 + x % 6;
        let s = 2 + y % 6;
        let t = 2 + (x / 6) % 6;
        let e = 2 + (d - 2 + 1 + y % 5) % 6;
        let off = 4 * (y % 8);
        let b = x % 3;
        match kind % 12 {
            0 => format!("add $r{d} = $r{s}, $r{t} ;;"),
            1 => format!("mul32 $r{d} = $r{s}, $r{t} ;;"),
            2 => format!("ldw $r{d} = {off}[$r1] ;;"),
            3 => format!("stw {off}[$r1] = $r{s} ;;"),
            4 => format!("cmpgt $b{b} = $r{s}, $r{t} ;;"),
            5 => format!("slct $r{d} = $b{}, $r{s}, $r{t} ;;", y % 3),
            6 => format!("add $r{d} = $r{s}, 1\n xor $r{e} = $r{t}, $r{d} ;;"),
            7 if d != s => format!("mov $r{d} = $r{s}\n mov $r{s} = $r{d} ;;"),
            8 if x % 4 == 0 => format!("ldw $r{d} = 0[$r{s}] ;;"),
            9 => format!("br $b{b}, .Lskip{label} ;;\n add $r{d} = $r{d}, 3 ;;\n.Lskip{label}:"),
            10 => format!("ldbu $r{d} = {}[$r1] ;;\n", y % 32),
            _ => format!("shr $r{d} = $r{s}, 1\n sub $r{e} = $r{e}, $r{t} ;;"),
        }
    }

    fn ops() -> impl Strategy<Value = Vec<[u8; 3]>> {
        prop::collection::vec(any::<[u8; 3]>(), 0..8)
    }

    /// `main` loops `n` times over `head`, a call of `leaf` (when `call`), `tail`, and a
    /// branch bundle that may also load or multiply (`late`: a result ready after the next
    /// entry); exits with `$r2`.
    fn random_program(
        n: u8,
        call: bool,
        late: [u8; 2],
        head: &[[u8; 3]],
        tail: &[[u8; 3]],
        leaf: &[[u8; 3]],
    ) -> String {
        let mut label = 0;
        let mut text = |ops: &[[u8; 3]]| {
            ops.iter()
                .map(|&o| {
                    label += 1;
                    format!(" {}\n", op_text(o, label))
                })
                .collect::<String>()
        };
        let head = text(head);
        let tail = text(tail);
        let leaf = text(leaf);
        let call = if call { " call leaf ;;\n" } else { "" };
        let d = 2 + late[1] % 6;
        let late = match late[0] % 3 {
            0 => String::new(),
            1 => format!("\n ldw $r{d} = 0[$r1]"),
            _ => format!("\n mul32 $r{d} = $r{d}, $r{d}"),
        };
        format!(
            "main:\n add $r12 = $r12, -16\n mov $r1 = data ;;\n stw 0[$r12] = $r63\n mov $r10 = {n} ;;\n\
             loop:\n{head} add $r10 = $r10, -1 ;;\n cmpgt $b3 = $r10, 0 ;;\n{call}{tail} br $b3, loop{late} ;;\n\
             ldw $r63 = 0[$r12] ;;\n add $r12 = $r12, 16\n mov $r16 = $r2 ;;\n return $r63 ;;\n\
             leaf:\n{leaf} return $r63 ;;\n.data\ndata: .space 64, 5\n"
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// Blocks (static timing, steady loops, fallbacks, traps inside blocks) give the
        /// same counters, profiles, traps, exit code and output as the traced per-bundle
        /// path.
        #[test]
        fn blocks_match_the_per_bundle_path(n in 1u8..30, call: bool, late: [u8; 2], head in ops(), tail in ops(), leaf in ops()) {
            let src = random_program(n, call, late, &head, &tail, &leaf);
            let (fast, traced) = run_both(&src, &RunOptions::default());
            prop_same_run(&fast, &traced, &src)?;
        }

        /// The same under small cycle budgets: both stop at the same bundle and cycle.
        #[test]
        fn blocks_stop_on_the_budget_exactly(call: bool, late: [u8; 2], head in ops(), tail in ops(), leaf in ops(), budget in 1u64..400) {
            let src = random_program(100, call, late, &head, &tail, &leaf);
            let opts = RunOptions { max_cycles: budget, ..RunOptions::default() };
            let (fast, traced) = run_both(&src, &opts);
            prop_same_run(&fast, &traced, &src)?;
        }
    }
}
