//! Static block timing for the ST120 hot loop: straight-line runs of issue groups whose
//! timing is worked out once, at pre-decode time.
//!
//! **Why it is exact.** On the ST120 model the scoreboard interlocks operands whether or
//! not the guard turns out true (ASSUMPTION, isa.md §B3: operands are interlocked before
//! the guard is known), the unit limits are per group and the latencies are static. So
//! the issue cycles of a straight-line run of groups (no control transfer inside) depend
//! only on the ready times of the registers the run checks before writing them
//! ("upward-exposed" checks). Let `s_k` be the issue offset of group `k` computed with
//! every outside register ready (offset 0 for the first group, `s_{k-1} + 1` at least,
//! later when an operand written inside the block is not ready yet). The real issue cycle
//! `a_k` is `max(a_{k-1} + 1, inside constraints, outside constraints)`. If every outside
//! check `(r, adj)` of group `k` holds at `entry + s_k` (`ready[r] - adj <= entry + s_k`),
//! then by induction on `k` the outside constraints never bind and `a_k = entry + s_k`.
//! Per register the outside checks fold into one *slack*: the block runs on its static
//! timing iff `ready[r] <= entry + slack[r]` for each of them (one compare per register,
//! usually zero or one or two per block).
//!
//! **Blocks.** Basic blocks of the pre-decoded groups: a block starts at the entry group,
//! at direct branch and call targets, after any group that is not part of a block, after
//! a block's branch, at check points (`F_FLUSH`, which may only open a block) and every
//! `MAX_GROUPS` groups; it holds plain groups (in-order, no control) and may end with an
//! in-order group closing with a direct `GOTO` / `Gx! GOTO` (`F_BRANCH`). Calls, returns,
//! other control, reordered and illegal groups never belong to a block. Blocks are
//! disjoint, so the per-group data (`t_off`) is indexed by group.
//!
//! **What a block stores.** Its non-NOP operations in execution order (each knowing its
//! position in the block, for trap addresses), the sum of its groups' packed counters, its
//! inside stall cycles, the outside checks `(r, slack)`, the ready offsets of the slow
//! registers it writes (last write wins, as on the scoreboard), and its exit (fall-through
//! group, branch target, branch guard mask, branch address).
//!
//! **Fallback.** When an outside check fails, the hot loop runs the block's groups through
//! the exact per-group path (a non-leading group has no block of its own). A trap inside
//! the fast path is reported exactly: the counters of the groups before the trapping one
//! and the inside stalls up to its issue cycle are added before the trap is returned (see
//! `trap_prefix`), so that it names the trapping group's issue cycle as the per-group path
//! does. Near the cycle budget the hot loop hands the run to the per-group path (see
//! `CAREFUL_MARGIN` in `sim/st120.rs`), so a block never runs past the budget.
//!
//! Cost: O(code) to build; per block execution O(operations + checks + slow writes).

use super::predecode::*;
use crate::isa::st120::opcode::TAKEN_BRANCH_BUBBLES;

/// Groups per block at most (keeps the `gpos` byte of the operations in range).
pub(super) const MAX_GROUPS: usize = 64;
/// `Program::block_of` entry of a group that does not start a block.
pub(super) const NO_BLOCK: u32 = u32::MAX;

/// One pre-timed block (see the module documentation).
#[derive(Clone, Copy, Debug)]
pub(super) struct Block {
    /// Sum of the packed counters of its groups.
    pub(super) counts: u128,
    /// Its operations: `Program::block_ops[ops..ops_end]`.
    pub(super) ops: u32,
    pub(super) ops_end: u32,
    /// The first two outside checks: `ready[chk[i]] <= entry + slack[i]` (`NO_CHECK`, a
    /// register that is never written, fills unused entries).
    pub(super) chk: [u8; 2],
    /// The first two slow writes: `ready[wr[i]] = entry + wr_off[i]` (`NO_SLOW`, never
    /// read, fills unused entries).
    pub(super) wr: [u8; 2],
    pub(super) slack: [u32; 2],
    pub(super) wr_off: [u32; 2],
    /// Further checks `Program::block_sb[more..more + more_checks]` as `(register,
    /// slack)`, then further writes `[.. + more_writes]` as `(register, ready offset)`.
    pub(super) more: u32,
    pub(super) more_checks: u16,
    pub(super) more_writes: u16,
    /// Inside stall cycles (`s_last - (groups - 1)`).
    pub(super) stalls: u32,
    /// Cycles from entry to the end of the last group, bubbles excluded (`s_last + 1`).
    pub(super) cycles: u32,
    /// First group.
    pub(super) first: u32,
    /// Fall-through successor: group after the last one, and the block it starts.
    pub(super) next: u32,
    pub(super) next_block: u32,
    /// Target group of the closing branch and the block it starts (`NO_BLOCK` when
    /// none).
    pub(super) target: u32,
    pub(super) target_block: u32,
    /// Guard mask of the closing branch: taken when `guards & mask == 0` (0 for GOTO;
    /// `1 << 15`, never taken since G15 is always true, when the block falls through).
    pub(super) br_gmask: u16,
    /// The first group is a check point (`F_FLUSH`).
    pub(super) flush_first: bool,
    /// The block has outside checks / slow writes (most have neither).
    pub(super) has_checks: bool,
    pub(super) has_writes: bool,
    /// The closing branch goes back to this block, and when one iteration passed its
    /// outside checks the next one passes them too: every checked register the block
    /// writes is ready by the next entry (`wr_off <= cycles + bubbles + slack`; registers
    /// it does not write keep their ready times while the clock advances). Its iterations
    /// then run without ready checks (the branch still makes the flush and budget checks),
    /// and its slow writes are made once, when it is left.
    pub(super) steady_loop: bool,
}

/// Scoreboard entries: (register index, adj / latency / slack / ready offset).
type Entries<T> = Vec<(u8, T)>;

/// Whether group `g` may belong to a block.
fn eligible(g: &Group) -> bool {
    g.flags & (F_CONTROL | F_ILLEGAL | F_REORDER) == 0 && g.order == Order::Seq
}

/// The scoreboard checks `(register, adj)` and slow writes `(register, latency)` of a group.
fn group_sb(prog: &Program, g: &Group) -> (Entries<u8>, Entries<u8>) {
    let mut checks = Vec::new();
    let mut writes = Vec::new();
    if g.check_idx != NO_CHECK {
        checks.push((g.check_idx, g.check_adj));
    }
    if g.slow_idx != NO_SLOW {
        writes.push((g.slow_idx, g.slow_lat));
    }
    let sb = g.sb as usize;
    let n = usize::from(g.more >> 4);
    let m = n + usize::from(g.more & 15);
    if g.more != 0 {
        checks.extend_from_slice(&prog.sb[sb..sb + n]);
        writes.extend_from_slice(&prog.sb[sb + n..sb + m]);
    }
    (checks, writes)
}

/// Build the blocks of `prog` (fills `blocks`, `block_of`, `block_ops`, `block_sb`,
/// `t_off`). `entry` is the entry group.
pub(super) fn build_blocks(prog: &mut Program) {
    let n = prog.groups.len();
    let mut leader = vec![false; n + 1];
    if n > 0 {
        leader[0] = true;
    }
    for (gi, g) in prog.groups.iter().enumerate() {
        for op in &g.ops[..usize::from(g.n)] {
            if matches!(op.k, K::Goto | K::GotoF | K::Call) && op.imm as u32 != NO_GROUP {
                leader[op.imm as u32 as usize] = true;
            }
        }
        if !eligible(g) || g.flags & F_BRANCH != 0 {
            leader[gi + 1] = true;
        }
        if g.flags & F_FLUSH != 0 {
            leader[gi] = true;
        }
    }
    prog.block_of = vec![NO_BLOCK; n];
    prog.t_off = vec![0; n];
    let mut gi = 0;
    while gi < n {
        if !eligible(&prog.groups[gi]) {
            gi += 1;
            continue;
        }
        // Extend to the end of the basic block.
        let first = gi;
        let mut end = gi + 1;
        while end < n
            && end - first < MAX_GROUPS
            && !leader[end]
            && eligible(&prog.groups[end])
            && prog.groups[end - 1].flags & F_BRANCH == 0
        {
            end += 1;
        }
        let b = time_block(prog, first, end);
        prog.block_of[first] = prog.blocks.len() as u32;
        prog.blocks.push(b);
        gi = end;
    }
    let block_at = |g: u32| prog.block_of.get(g as usize).copied().unwrap_or(NO_BLOCK);
    let succ: Vec<(u32, u32)> = prog
        .blocks
        .iter()
        .map(|b| (block_at(b.next), block_at(b.target)))
        .collect();
    for (bi, (next, target)) in succ.into_iter().enumerate() {
        let b = prog.blocks[bi];
        let steady = target == bi as u32 && {
            let (checks, writes) = block_entries(prog, &b);
            let period = u64::from(b.cycles) + u64::from(TAKEN_BRANCH_BUBBLES);
            checks.iter().all(|&(r, slack)| {
                writes
                    .iter()
                    .all(|&(w, off)| w != r || u64::from(off) <= period + u64::from(slack))
            })
        };
        let b = &mut prog.blocks[bi];
        (b.next_block, b.target_block, b.steady_loop) = (next, target, steady);
    }
}

/// All outside checks `(register, slack)` and slow writes `(register, ready offset)` of
/// block `b`.
pub(super) fn block_entries(prog: &Program, b: &Block) -> (Entries<u32>, Entries<u32>) {
    let more = b.more as usize;
    let (nc, nw) = (usize::from(b.more_checks), usize::from(b.more_writes));
    let mut checks: Vec<(u8, u32)> = (0..2)
        .filter(|&i| b.chk[i] != NO_CHECK)
        .map(|i| (b.chk[i], b.slack[i]))
        .collect();
    checks.extend_from_slice(&prog.block_sb[more..more + nc]);
    let mut writes: Vec<(u8, u32)> = (0..2)
        .filter(|&i| b.wr[i] != NO_SLOW)
        .map(|i| (b.wr[i], b.wr_off[i]))
        .collect();
    writes.extend_from_slice(&prog.block_sb[more + nc..more + nc + nw]);
    (checks, writes)
}

/// The static timing and the contents of the block of groups `first..end`.
fn time_block(prog: &mut Program, first: usize, end: usize) -> Block {
    // Ready offset of each slow register written so far in the block.
    // Scoreboard indices stop at 47 (`NO_CHECK` / `NO_SLOW` never get here).
    let mut local: [Option<i64>; MEM_IDX] = [None; MEM_IDX];
    // Smallest slack per register checked before it is written.
    let mut slack: [Option<i64>; MEM_IDX] = [None; MEM_IDX];
    let mut written_order: Vec<u8> = Vec::new();
    let mut checked_order: Vec<u8> = Vec::new();
    let mut counts = 0u128;
    let mut t: i64 = -1;
    let ops = prog.block_ops.len() as u32;
    let mut target = NO_GROUP;
    // A block that falls through "branches" on G15 being false: never.
    let mut br_gmask = 1u16 << crate::isa::st120::GUARD_TRUE;
    for k in first..end {
        let g = prog.groups[k];
        let (checks, writes) = group_sb(prog, &g);
        t += 1;
        for &(idx, adj) in &checks {
            if let Some(r) = local[usize::from(idx)] {
                t = t.max(r - i64::from(adj));
            }
        }
        for &(idx, adj) in &checks {
            let i = usize::from(idx);
            if local[i].is_none() {
                let s = t + i64::from(adj);
                if slack[i].is_none() {
                    checked_order.push(idx);
                }
                slack[i] = Some(slack[i].map_or(s, |x| x.min(s)));
            }
        }
        for &(idx, lat) in &writes {
            let i = usize::from(idx);
            if local[i].is_none() {
                written_order.push(idx);
            }
            local[i] = Some(t + i64::from(lat));
        }
        prog.t_off[k] = t as u32;
        counts = counts.wrapping_add(g.counts);
        let gpos = (k - first) as u8;
        let nops = usize::from(g.n);
        let body = if g.flags & F_BRANCH != 0 {
            let br = g.ops[nops - 1];
            target = br.imm as u32;
            br_gmask = br.gmask;
            &g.ops[..nops - 1]
        } else {
            &g.ops[..nops]
        };
        for op in body {
            if op.kind != K::Nop {
                let mut op = *op;
                op.gpos = gpos;
                prog.block_ops.push(op);
            }
        }
    }
    let checks: Vec<(u8, u32)> = checked_order
        .iter()
        .map(|&idx| (idx, slack[usize::from(idx)].unwrap_or(0) as u32))
        .collect();
    let writes: Vec<(u8, u32)> = written_order
        .iter()
        .map(|&idx| (idx, local[usize::from(idx)].unwrap_or(0) as u32))
        .collect();
    let mut b = Block {
        counts,
        ops,
        ops_end: prog.block_ops.len() as u32,
        chk: [NO_CHECK; 2],
        wr: [NO_SLOW; 2],
        slack: [0; 2],
        wr_off: [0; 2],
        more: prog.block_sb.len() as u32,
        more_checks: checks.len().saturating_sub(2) as u16,
        more_writes: writes.len().saturating_sub(2) as u16,
        stalls: (t - (end - first - 1) as i64) as u32,
        cycles: (t + 1) as u32,
        first: first as u32,
        next: end as u32,
        next_block: NO_BLOCK,
        target,
        target_block: NO_BLOCK,
        br_gmask,
        flush_first: prog.groups[first].flags & F_FLUSH != 0,
        steady_loop: false,
        has_checks: !checks.is_empty(),
        has_writes: !writes.is_empty(),
    };
    for (i, &(idx, s)) in checks.iter().take(2).enumerate() {
        (b.chk[i], b.slack[i]) = (idx, s);
    }
    for (i, &(idx, off)) in writes.iter().take(2).enumerate() {
        (b.wr[i], b.wr_off[i]) = (idx, off);
    }
    prog.block_sb
        .extend_from_slice(checks.get(2..).unwrap_or(&[]));
    prog.block_sb
        .extend_from_slice(writes.get(2..).unwrap_or(&[]));
    b
}

/// What a trap raised by operation `op` of block `b` must add before it is reported, as
/// the per-group path would have: the packed counters of the groups before the trapping
/// one (which does not issue), the inside stall cycles up to its issue cycle, and the
/// operation's address. Bundles plus stalls then give the trapping group's issue offset
/// `t_off`: the trap's cycle.
pub(super) fn trap_prefix(prog: &Program, b: &Block, op: &Op) -> (u128, u64, u32) {
    let k = b.first as usize + usize::from(op.gpos);
    let counts = prog.groups[b.first as usize..k]
        .iter()
        .fold(0u128, |a, g| a.wrapping_add(g.counts));
    let stalls = u64::from(prog.t_off[k]) - u64::from(op.gpos);
    (counts, stalls, prog.groups[k].addr + 4 * u32::from(op.slot))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::st120::assemble;
    use crate::isa::st120::encoding::decode;
    use crate::isa::st120::issue::check_group;
    use crate::machine::{RunOptions, RunReport, TrapKind};
    use crate::sim::st120::Machine;
    use crate::sim::testutil::prop_same_run;
    use proptest::prelude::*;

    const DOT: &str = "
main:   MAKEA P0, 4096
        MAKEA P1, 4096 ;;
        MAKE R4, 256
        MAKE R3, 0 ;;
loop:   LDH R1, @(P0 !+ 1)
        LDH R2, @(P1 !+ 1) ;;
        MASSLL R3, R3, R1, R2
        SUB R4, R4, 1 ;;
        ADD R6, R6, R1
        EQW G0, R4, 0 ;;
        XOR R7, R7, R2
        G0! GOTO loop ;;
        RTS ;;
";

    /// The dot-product loop, timed by hand: 4 groups, no inside stall; the MAC reads R3 in
    /// group 1 (slack 1 + 0) and writes it with latency 2 (WAW check: slack 1 + 2, ready
    /// offset 1 + 2 = 3); one iteration takes 4 cycles + 3 bubbles, and R3 is ready 3
    /// cycles after entry, before the next entry + 1: a steady loop.
    #[test]
    fn dot_loop_timed_by_hand() {
        let prog = predecode(&assemble(DOT).unwrap());
        let bi = prog.block_of[2] as usize;
        let b = &prog.blocks[bi];
        let (checks, writes) = block_entries(&prog, b);
        assert_eq!(checks, vec![(3, 1)]);
        assert_eq!(writes, vec![(3, 3)]);
        assert_eq!((b.cycles, b.stalls, b.first, b.next), (4, 0, 2, 6));
        assert_eq!((b.target, b.target_block as usize), (2, bi));
        assert!(b.steady_loop);
        // 7 operations: the branch is the block's exit, not an operation.
        assert_eq!(b.ops_end - b.ops, 7);
        // The first block (the two MAKE groups) falls through into the loop block.
        let first = &prog.blocks[prog.block_of[0] as usize];
        assert_eq!((first.next_block as usize, first.cycles), (bi, 2));
        assert_eq!(first.br_gmask, 1 << crate::isa::st120::GUARD_TRUE);
    }

    /// A multiply read by the next group: an inside stall of 1 cycle (MP latency 2),
    /// counted by the block and equal to what the per-group path counts.
    #[test]
    fn inside_stall_counted_by_hand() {
        let src = "
main:   MAKE R2, 3
        MAKE R3, 5 ;;
        MAKE R5, 10 ;;
loop:   MPSSLL R1, R2, R3 ;;
        ADD R4, R4, R1 ;;
        SUB R5, R5, 1 ;;
        EQW G0, R5, 0 ;;
        G0! GOTO loop ;;
        MOVE R0, R4 ;;
        RTS ;;
";
        let prog = predecode(&assemble(src).unwrap());
        let b = &prog.blocks[prog.block_of[2] as usize];
        // MP at 0 (R1 ready at 2), ADD at 2 (1 stall), SUB 3, EQW 4, branch 5.
        assert_eq!((b.cycles, b.stalls), (6, 1));
        let (fast, traced) = run_both(src, &RunOptions::default());
        assert_eq!(fast.exit_code, 150);
        assert_eq!(fast.totals.stall_operand, 10);
        assert_eq!(fast.totals, traced.totals);
    }

    /// A loop whose last group writes P4 with latency 5 (COPYA) and whose first group
    /// reads it: the next iteration stalls 1 cycle (ready 3 + 5 = 8 cycles after entry,
    /// next entry 4 + 3 bubbles = 7 cycles after it), so the loop is not steady and each
    /// iteration after the first falls back to the per-group path for its first group.
    #[test]
    fn loop_that_stalls_itself_is_not_steady() {
        let src = "
main:   MAKE R15, 5 ;;
        MAKE R2, 7 ;;
inner:  COPYD R1, P4 ;;
        SUB R15, R15, 1 ;;
        EQW G5, R15, 0 ;;
        COPYA P4, R2
        G5! GOTO inner ;;
        MOVE R0, R1 ;;
        RTS ;;
";
        let prog = predecode(&assemble(src).unwrap());
        let b = &prog.blocks[prog.block_of[2] as usize];
        assert_eq!(b.target_block, prog.block_of[2]);
        assert_eq!((b.cycles, b.stalls), (4, 0));
        assert!(!b.steady_loop);
        let (fast, traced) = run_both(src, &RunOptions::default());
        assert_eq!(fast.exit_code, 7);
        // 4 iterations stall 1 cycle each on P4.
        assert_eq!(fast.totals.stall_operand, 4);
        assert_eq!(fast.totals, traced.totals);
    }

    /// Recursion through a call that follows a block (the block loop's own call path): the
    /// call-depth trap and the cycle budget stop both paths alike.
    #[test]
    fn calls_between_blocks_trap_like_the_per_group_path() {
        let src = "main: ADD R1, R1, 1 ;;\n CALL main ;;\n RTS ;;\n";
        for max_call_depth in [1, 2, 50] {
            let opts = RunOptions {
                max_call_depth,
                ..RunOptions::default()
            };
            let (fast, traced) = run_both(src, &opts);
            assert_eq!(fast.trap.as_ref().unwrap().kind, TrapKind::CallDepth);
            assert_eq!(fast.trap, traced.trap);
            assert_eq!(fast.totals, traced.totals);
            assert_eq!(fast.functions, traced.functions);
        }
        let opts = RunOptions {
            max_cycles: 100,
            ..RunOptions::default()
        };
        let (fast, traced) = run_both(src, &opts);
        assert_eq!(fast.trap, traced.trap);
        assert_eq!(fast.totals, traced.totals);
    }

    /// Both operations of a group write P6 (COPYA, latency 5, then LAW, latency 6, in slot
    /// 1, whose value stays): P6 is ready 6 cycles after the group issues, on the block and
    /// on the per-group path alike. MAKEA 0, MOREA 1, the pair at 2 (P6 ready at 8), COPYD
    /// at 8 (5 stall cycles), RTS at 9, then 3 bubbles: 13 cycles. (Found by the random
    /// test above: the per-group path used to keep slot 0's latency.)
    #[test]
    fn double_slow_write_takes_slot_1_latency() {
        let src =
            ".data\nbuf: .word 0\n.text\nmain: MAKEA P2, %hi(buf) ;;\n MOREA P2, %lo(buf) ;;\n \
                   COPYA P6, R0\n LAW P6, @(P2 + 0) ;;\n COPYD R0, P6 ;;\n RTS ;;\n";
        let (fast, traced) = run_both(src, &RunOptions::default());
        let c = &fast.totals;
        assert_eq!((c.cycles, c.stall_operand, c.bundles), (13, 5, 5));
        assert_eq!(fast.totals, traced.totals);
    }

    /// Run `src` on the hot loop (blocks) and on the traced per-group path.
    fn run_both(src: &str, opts: &RunOptions) -> (RunReport, RunReport) {
        let obj = assemble(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let fast = Machine::load(&obj, opts)
            .unwrap()
            .run::<false>(&mut std::io::sink());
        let traced_opts = RunOptions {
            trace: true,
            ..opts.clone()
        };
        let traced = Machine::load(&obj, &traced_opts)
            .unwrap()
            .run::<true>(&mut std::io::sink());
        (fast, traced)
    }

    /// Operation templates of the random programs: `d`/`s`/`t` data registers (R5 is the
    /// loop counter and stays out), `b` a base P0..P3, `q` a slow P register P4..P7 (COPYA
    /// latency 5, LAW latency 6), `g` a guard G1..G4, `i` a small immediate.
    const TEMPLATES: &[&str] = &[
        "ADD Rd, Rs, Rt",
        "SUB Rd, Rs, i",
        "XOR Rd, Rs, Rt",
        "SHL Rd, Rs, 3",
        "MOVE Rd, Rs",
        "MAKE Rd, i",
        "MPSSLL Rd, Rs, Rt",
        "MASSLL Rd, Rd, Rs, Rt",
        "BOOL Rd, Gg",
        "EQW Gg, Rs, Rt",
        "LTW Gg, Rs, i",
        "Gg? ADD Rd, Rs, Rt",
        "Gg? MASSLL Rd, Rd, Rs, Rt",
        "LDH Rd, @(Pb !+ 1)",
        "LDW Rd, @(Pb + 2)",
        "SDW @(Pb + 1), Rs",
        "SDH @(Pb !+ 1), Rs",
        "COPYA Pq, Rs",
        "COPYD Rd, Pq",
        "LAW Pq, @(Pb + 0)",
        "ADDWA Pq, Pq, 1",
        "MOVEA Pq, Pb",
    ];

    /// One random operation as text.
    fn op_text(pick: &[u8; 6]) -> String {
        let data = [0u8, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14];
        let r = |x: u8| format!("R{}", data[usize::from(x) % data.len()]);
        TEMPLATES[usize::from(pick[0]) % TEMPLATES.len()]
            .replace("Rd", &r(pick[1]))
            .replace("Rs", &r(pick[2]))
            .replace("Rt", &r(pick[3]))
            .replace("Pb", &format!("P{}", pick[4] % 4))
            .replace("Pq", &format!("P{}", 4 + pick[4] % 4))
            .replace("Gg", &format!("G{}", 1 + pick[5] % 4))
            .replace(", i", &format!(", {}", pick[5] % 9))
    }

    /// Whether `a` and `b` may share an issue group (and read before write in order).
    fn pairable(a: &str, b: &str) -> bool {
        let inst = |t: &str| {
            let o = assemble(&format!("x: {t} ;;\n")).ok()?;
            let w = u32::from_le_bytes([o.code[0], o.code[1], o.code[2], o.code[3]]);
            decode(w).ok().map(|(i, _)| i)
        };
        match (inst(a), inst(b)) {
            (Some(x), Some(y)) => check_group(&[x, y]).is_ok(),
            _ => false,
        }
    }

    /// Random groups of operations (pairs when the issue rules allow), with an occasional
    /// forward conditional branch.
    fn body(ops: &[([u8; 6], bool)], label: &str) -> String {
        let mut s = String::new();
        let mut i = 0;
        let mut fwd = 0;
        while i < ops.len() {
            let (pick, pair) = ops[i];
            let a = op_text(&pick);
            if pick[0] % 11 == 10 {
                s += &format!(" G{}! GOTO {label}{fwd} ;;\n", 1 + pick[5] % 4);
                let skip = (i + 1 + usize::from(pick[1] % 3)).min(ops.len());
                for (p, _) in &ops[i + 1..skip] {
                    s += &format!(" {} ;;\n", op_text(p));
                }
                s += &format!("{label}{fwd}:\n");
                fwd += 1;
                i = skip;
                continue;
            }
            if pair && i + 1 < ops.len() {
                let b = op_text(&ops[i + 1].0);
                if pairable(&a, &b) {
                    s += &format!(" {a}\n {b} ;;\n");
                    i += 2;
                    continue;
                }
            }
            s += &format!(" {a} ;;\n");
            i += 1;
        }
        s
    }

    /// A loop of random groups around a call of a leaf of random groups and an inner loop
    /// of random groups (R15 and G5 count it).
    fn program(
        n: u16,
        head: &[([u8; 6], bool)],
        tail: &[([u8; 6], bool)],
        leaf: &[([u8; 6], bool)],
    ) -> String {
        let mut s = String::from(".data\nbuf: .space 4096\n.text\nmain:\n MOVEA P10, P11 ;;\n");
        for p in 0..4 {
            s += &format!(" MAKEA P{p}, %hi(buf + 1024) ;;\n MOREA P{p}, %lo(buf + 1024) ;;\n");
        }
        s += &format!(" MAKE R5, {n} ;;\nloop:\n");
        s += &body(head, "h");
        s += " CALL leaf ;;\n";
        // The inner loop closes with a random operation beside its branch, so that a slow
        // write there may be read early in the next iteration (a loop that is not steady).
        s += &format!(
            " MAKE R15, {} ;;\ninner:\n EQW G5, R15, 1\n SUB R15, R15, 1 ;;\n",
            1 + n % 7
        );
        let (last, rest) = tail
            .split_last()
            .map_or((None, tail), |(l, r)| (Some(l), r));
        s += &body(rest, "t");
        match last.map(|l| op_text(&l.0)) {
            Some(op) if pairable(&op, "G5! GOTO x") => s += &format!(" {op}\n G5! GOTO inner ;;\n"),
            _ => s += " G5! GOTO inner ;;\n",
        }
        s += &body(head, "u");
        s += " SUB R5, R5, 1 ;;\n EQW G0, R5, 0 ;;\n G0! GOTO loop ;;\n";
        s += " MOVEA P11, P10 ;;\n MOVE R0, R3 ;;\n RTS ;;\nleaf:\n";
        s += &body(leaf, "l");
        s + " RTS ;;\n"
    }

    /// Long-latency templates on few registers (`a`: R1..R3, `q`: P4/P5), for loops whose
    /// slow writes feed their next iteration.
    const SLOW: &[&str] = &[
        "COPYA Pq, Ra",
        "LAW Pq, @(P0 + 0)",
        "COPYD Ra, Pq",
        "ADDWA Pq, Pq, 4",
        "MASSLL Ra, Ra, Ra, Ra",
        "MPSSLL Ra, Ra, Ra",
        "BOOL Ra, G1",
        "ADD Ra, Ra, Ra",
    ];

    /// A one-block loop of `ops` (slow templates) closing with its last operation beside
    /// the branch; R15 counts the iterations.
    fn slow_loop(n: u8, ops: &[[u8; 3]]) -> String {
        let text = |p: &[u8; 3]| {
            SLOW[usize::from(p[0]) % SLOW.len()]
                .replacen("Ra", &format!("R{}", 1 + p[1] % 3), 1)
                .replace("Ra", &format!("R{}", 1 + p[2] % 3))
                .replace("Pq", &format!("P{}", 4 + p[1] % 2))
        };
        let mut s = String::from(".data\nbuf: .space 64\n.text\nmain:\n MAKEA P0, %hi(buf) ;;\n");
        s += " MOREA P0, %lo(buf) ;;\n";
        s += &format!(" MAKE R15, {n} ;;\nloop:\n");
        let (last, rest) = ops.split_last().map_or((None, ops), |(l, r)| (Some(l), r));
        for p in rest {
            s += &format!(" {} ;;\n", text(p));
        }
        s += " SUB R15, R15, 1 ;;\n EQW G5, R15, 0 ;;\n";
        match last.map(text) {
            Some(op) if pairable(&op, "G5! GOTO x") => s += &format!(" {op}\n G5! GOTO loop ;;\n"),
            _ => s += " G5! GOTO loop ;;\n",
        }
        s + " MOVE R0, R1 ;;\n RTS ;;\n"
    }

    fn ops() -> impl Strategy<Value = Vec<([u8; 6], bool)>> {
        prop::collection::vec((any::<[u8; 6]>(), any::<bool>()), 0..14)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Blocks (static timing, steady loops, fallbacks, traps in blocks) give the same
        /// counters, profiles, traps, exit code and output as the traced per-group path.
        #[test]
        fn blocks_match_the_per_group_path(n in 1u8..40, head in ops(), tail in ops(), leaf in ops()) {
            let src = program(u16::from(n), &head, &tail, &leaf);
            let opts = RunOptions { max_cycles: 1_000_000, ..RunOptions::default() };
            let (fast, traced) = run_both(&src, &opts);
            prop_same_run(&fast, &traced, &src)?;
        }

        /// One-block loops whose long-latency results feed the next iteration (steady or
        /// not) agree with the per-group path.
        #[test]
        fn slow_loops_match_the_per_group_path(n in 1u8..20, ops in prop::collection::vec(any::<[u8; 3]>(), 1..5)) {
            let src = slow_loop(n, &ops);
            let (fast, traced) = run_both(&src, &RunOptions::default());
            prop_same_run(&fast, &traced, &src)?;
        }

        /// The same with a small cycle budget: both paths stop exactly on it (the hot paths
        /// hand the run to the per-group path near the budget).
        #[test]
        fn blocks_stop_on_the_budget(head in ops(), tail in ops(), leaf in ops(), budget in 5u64..400) {
            let src = program(200, &head, &tail, &leaf);
            let opts = RunOptions { max_cycles: budget, ..RunOptions::default() };
            let (fast, traced) = run_both(&src, &opts);
            prop_same_run(&fast, &traced, &src)?;
            if let Some(t) = &fast.trap {
                if t.kind == TrapKind::CycleBudget {
                    prop_assert!((budget..budget + 4).contains(&t.cycle), "{:?}\n{}", t, src);
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(40))]

        /// Budgets around the point where the hot paths hand the run to the per-group path
        /// (`CAREFUL_MARGIN` cycles before the budget): blocks, steady loops, calls and
        /// returns run fast up to there and stop exactly where the traced run stops.
        #[test]
        fn budgets_near_the_handover_are_exact(head in ops(), tail in ops(), leaf in ops(), extra in 0u64..3000) {
            let budget = crate::sim::st120::CAREFUL_MARGIN - 40 + extra;
            let src = program(6000, &head, &tail, &leaf);
            let opts = RunOptions { max_cycles: budget, ..RunOptions::default() };
            let (fast, traced) = run_both(&src, &opts);
            prop_same_run(&fast, &traced, &src)?;
        }
    }
}
