//! Pre-decoding of ST120 machine code for the simulator (see `sim/st120.rs` for the
//! overall design): words -> issue groups -> compact [`Op`]s with flat kinds, resolved
//! branch targets, scoreboard entries (only registers that some operation writes with a
//! latency of 2 or more), read-before-write ordering of the two slots, and packed static
//! counters. Illegal words and groups become groups that trap when executed.
//!
//! Everything here runs once per load and is O(code size).

use super::blocks::{build_blocks, Block};
use crate::isa::st120::encoding::decode;
use crate::isa::st120::issue::check_group;
use crate::isa::st120::opcode::{
    AddrMode, CmpCond, CmpKind, Inst, MulFamily, OpProps, Opcode, UnOp,
};
use crate::isa::st120::semantics as sem;
use crate::isa::st120::GUARD_TRUE;
use crate::machine::TrapKind;
use crate::object::{Object, OpFlags};
use std::collections::HashMap;

/// Flat operation kinds of the simulator (one `match` arm each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum K {
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
    /// Multiplies: a = dest, b = accumulator (MA, MS), c and d = the multiplied registers;
    /// the half of operand 1 is bits `63 - sub .. 48 - sub` after a left shift by `sub`
    /// (48: low half, 32: high half), then a right shift by 48, arithmetic, masked to 16
    /// bits when `imm & 0xFF` is 48 (unsigned); operand 2 likewise with `sub2` and
    /// `imm >> 8`.
    Mp,
    Ma,
    Ms,
    /// MP and MA of the signed low halves (same fields).
    MpLL,
    MaLL,
    /// Compares into guard a: operands normalised by `d` (a shift amount: 32 for the ..W /
    /// ..UW word compares, 0 for ..E and pointers), arithmetically (`CmpS*`) or logically
    /// (`CmpU`); `sub` = condition mask over {1: less, 2: equal, 4: greater}.
    /// Signed compares (..W / ..E) by condition, the hot ones: register form, then
    /// immediate form (the i32 immediate needs no normalisation: sign-extending it from
    /// bit 31 or 63 gives itself).
    CmpSEq,
    CmpSNe,
    CmpSLt,
    CmpSLe,
    CmpSGt,
    CmpSGe,
    CmpSIEq,
    CmpSINe,
    CmpSILt,
    CmpSILe,
    CmpSIGt,
    CmpSIGe,
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
    // ... one kind per addressing mode and log2(size) (0: byte, 1: half, 2: word).
    LdI0,
    LdI1,
    LdI2,
    LdR0,
    LdR1,
    LdR2,
    LdPI0,
    LdPI1,
    LdPI2,
    LdPR0,
    LdPR1,
    LdPR2,
    /// Loads into P (LAW, LAH), same fields.
    LaI,
    LaR,
    LaPI,
    LaPR,
    /// Stores: a = value register (sub = 1: a P register), the rest as for loads.
    StI0,
    StI1,
    StI2,
    StR0,
    StR1,
    StR2,
    StPI0,
    StPI1,
    StPI2,
    StPR0,
    StPR1,
    StPR2,
    Goto,
    GotoF,
    Call,
    Jump,
    JumpF,
    Link,
    Rts,
    Trap,
    /// A non-control operation under a guard other than G15: `Op::kind` holds its own kind.
    /// Operations under G15 (the common case) carry their own kind here, so the hot loop
    /// tests no guard for them.
    Guarded,
}

/// Kinds of the register forms of the two-input operations, by BinOp code.
pub(super) const BIN_KINDS: [K; 25] = [
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
pub(super) const BINI_KINDS: [K; 18] = [
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

/// Load-into-R kinds by addressing-mode class (see `mode_class`) and log2(size).
pub(super) const LD_KINDS: [[K; 3]; 4] = [
    [K::LdI0, K::LdI1, K::LdI2],
    [K::LdR0, K::LdR1, K::LdR2],
    [K::LdPI0, K::LdPI1, K::LdPI2],
    [K::LdPR0, K::LdPR1, K::LdPR2],
];
/// Store kinds, likewise.
pub(super) const ST_KINDS: [[K; 3]; 4] = [
    [K::StI0, K::StI1, K::StI2],
    [K::StR0, K::StR1, K::StR2],
    [K::StPI0, K::StPI1, K::StPI2],
    [K::StPR0, K::StPR1, K::StPR2],
];

/// One pre-decoded operation (16 bytes).
#[derive(Clone, Copy, Debug)]
pub(super) struct Op {
    /// What the interpreter dispatches on: the operation's kind, or `K::Guarded`.
    pub(super) k: K,
    /// The operation's own kind (never `K::Guarded`).
    pub(super) kind: K,
    /// Register numbers. Direct branches keep their target address here instead
    /// (little-endian in a, b, c, d).
    pub(super) a: u8,
    pub(super) b: u8,
    pub(super) c: u8,
    pub(super) d: u8,
    /// Sub-operation: UnOp / CmpKind / multiply family, extension shift of loads, ...
    pub(super) sub: u8,
    pub(super) sub2: u8,
    /// Slot of the operation in its group as encoded (0 or 1): the pre-decoder may store a
    /// group's operations in execution order, and a trap names the operation's own address.
    pub(super) slot: u8,
    /// Position of the operation's group in its block (`blocks.rs`; 0 outside blocks).
    pub(super) gpos: u8,
    /// Pre-scaled immediate; the target group index of a direct branch (-1: none).
    pub(super) imm: i32,
    /// `1 << g`: the operation acts when `guards & gmask != 0`.
    pub(super) gmask: u16,
}

impl Op {
    /// Target address of a direct branch.
    pub(super) fn target_addr(&self) -> u32 {
        u32::from_le_bytes([self.a, self.b, self.c, self.d])
    }
}

pub(super) const NOP_OP: Op = Op {
    k: K::Nop,
    kind: K::Nop,
    gmask: 1 << GUARD_TRUE,
    a: 0,
    b: 0,
    c: 0,
    d: 0,
    sub: 0,
    sub2: 0,
    slot: 0,
    gpos: 0,
    imm: 0,
};

/// How the operations of a group are sequenced so that reads precede writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Order {
    /// Slot 0 then slot 1.
    Seq,
    /// Slot 1 then slot 0 (slot 1 reads what slot 0 writes). Only groups with a control
    /// operation keep this order; the pre-decoder stores the others reversed, as `Seq`.
    Rev,
    /// Each operation on the old register file, results merged (slot 1 wins).
    Buffered,
}

/// Group flag bits: anything other than "execute in order and fall through".
pub(super) const F_CONTROL: u8 = 1;
/// A check point: before its operations run, the packed counters are flushed when due and
/// the cycle budget is checked (every `FLUSH_EVERY`-th group, and the groups stored in
/// reversed order, which the general path used to run and check). The hot loop handles it.
pub(super) const F_FLUSH: u8 = 2;
pub(super) const F_ILLEGAL: u8 = 4;
pub(super) const F_REORDER: u8 = 8;
/// The group ends with a direct GOTO or `Gx! GOTO` to a valid group and runs in order: the
/// hot loop handles it inline. Set instead of `F_CONTROL`.
pub(super) const F_BRANCH: u8 = 16;
/// The group has scoreboard checks or slow destinations (not a reason for the general path).
pub(super) const F_SB: u8 = 32;
/// A lone direct CALL to a group or a lone RTS (with `F_CONTROL`): the hot loop tries its
/// fast call/return path first.
pub(super) const F_CALLRET: u8 = 64;

/// One issue group, one cache line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(super) struct Group {
    pub(super) ops: [Op; 2],
    /// Packed static counters (see `Lane`).
    pub(super) counts: u128,
    /// Address of the first operation.
    pub(super) addr: u32,
    /// Start of this group's further entries in `Program::sb` (see `more`).
    pub(super) sb: u32,
    pub(super) n: u8,
    pub(super) flags: u8,
    pub(super) order: Order,
    /// First scoreboard check, inline: the group issues at `ready[check_idx] - check_adj`
    /// or later (`NO_CHECK` when none).
    pub(super) check_idx: u8,
    pub(super) check_adj: u8,
    /// First destination written with latency >= 2, inline: `ready[slow_idx] = issue +
    /// slow_lat` (`NO_SLOW` when none).
    pub(super) slow_idx: u8,
    pub(super) slow_lat: u8,
    /// Further checks (high nibble) and slow destinations (low nibble) in `Program::sb`.
    pub(super) more: u8,
}

/// Dummy scoreboard slots (register indices stop at 47): `NO_CHECK` is never written, so a
/// check of it never stalls; `NO_SLOW` is never read.
pub(super) const NO_CHECK: u8 = 254;
pub(super) const NO_SLOW: u8 = 255;

/// Lanes of the packed per-group counter vector (14 bits each).
#[derive(Clone, Copy)]
pub(super) enum Lane {
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
pub(super) const LANE_BITS: u32 = 14;
/// Every this many groups is a check point (`F_FLUSH`), so that between two flush checks
/// (taken branches, check points, groups of the general path) no lane grows by more than
/// 2 * 2048.
pub(super) const FLUSH_EVERY: usize = 2048;
/// A flush check flushes when the top (ops) lane has reached 2^13; every other lane is at most
/// the ops lane, so no lane can reach 2^14 = 2^13 + 2 * 2048 before the next check.
pub(super) const FLUSH_THRESHOLD: u128 = 1 << (LANE_BITS * Lane::Ops as u32 + LANE_BITS - 1);

pub(super) fn lane(l: Lane, v: u128) -> u128 {
    v << (LANE_BITS * l as u32)
}

#[derive(Clone, Debug)]
pub(super) enum Aux {
    Trap(TrapKind),
    /// Register-file indices written by slot 0 and slot 1 (0..16 R, 16..32 P, 32..48 G).
    Dests([Vec<u8>; 2]),
}

/// Scoreboard index of the memory pseudo-register used by the ordering analysis.
pub(super) const MEM_IDX: usize = 48;
pub(super) const NO_GROUP: u32 = u32::MAX;

pub(super) struct Program {
    pub(super) groups: Vec<Group>,
    /// The decoded operations of each group, for tracing and the buffered path.
    pub(super) insts: Vec<[Inst; 2]>,
    /// Traps of illegal groups and destinations of buffered groups, by group index.
    pub(super) aux: HashMap<usize, Aux>,
    /// Scoreboard entries `(register index, adj or latency)` of all groups.
    pub(super) sb: Vec<(u8, u8)>,
    /// Word index (from `code_base`) -> group index, `NO_GROUP` when not a group start.
    pub(super) start_of: Vec<u32>,
    pub(super) code_base: u32,
    /// Pre-timed blocks (`blocks.rs`) and, per group, the block it starts (`NO_BLOCK`).
    pub(super) blocks: Vec<Block>,
    pub(super) block_of: Vec<u32>,
    /// Operations of all blocks, in execution order.
    pub(super) block_ops: Vec<Op>,
    /// Outside checks and slow writes of all blocks (see `Block::sb`).
    pub(super) block_sb: Vec<(u8, u32)>,
    /// Per group: its static issue offset in its block.
    pub(super) t_off: Vec<u32>,
}

impl Program {
    /// The group starting at `addr`, if any.
    #[inline]
    pub(super) fn group_at(&self, addr: u32) -> Option<usize> {
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
pub(super) fn predecode(obj: &Object) -> Program {
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
    // The first address after the code is no group start: a branch, jump, call or return
    // there is a bad jump naming the transfer. Only running off the end (the group after
    // the last) reaches the sentinel group that traps.
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
        blocks: Vec::new(),
        block_of: Vec::new(),
        block_ops: Vec::new(),
        block_sb: Vec::new(),
        t_off: Vec::new(),
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
                    g.ops[k].slot = k as u8;
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
                if g.order == Order::Rev && g.flags & F_CONTROL == 0 {
                    // Store the operations in execution order: slot 1 first (each keeps
                    // its own slot for trap addresses); the group then runs in order.
                    g.ops.swap(0, 1);
                    g.order = Order::Seq;
                    g.flags |= F_FLUSH;
                }
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
                if op.k == K::Call && idx != NO_GROUP && g.n == 1 && g.flags & !F_SB == F_CONTROL {
                    g.flags |= F_CALLRET;
                }
            }
        }
    }
    for g in &mut prog.groups {
        if g.n == 1 && g.ops[0].k == K::Rts && g.flags & !F_SB == F_CONTROL {
            g.flags |= F_CALLRET;
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
    build_blocks(&mut prog);
    prog
}

pub(super) fn nop_inst() -> Inst {
    Inst::new(Opcode::Nop, &[], 0)
}

/// Static counter contributions of one operation.
pub(super) fn static_counts(inst: &Inst, f: OpFlags, prev_swap: bool) -> u128 {
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
pub(super) fn scoreboard(
    g: &mut Group,
    ops: &[Inst],
    slow_reg: &[bool; 49],
    sb: &mut Vec<(u8, u8)>,
) {
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
pub(super) fn rw_sets(inst: &Inst) -> (Vec<usize>, Vec<usize>) {
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

pub(super) fn order_of(ops: &[Inst]) -> Order {
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
pub(super) fn lower(inst: &Inst, pc: u32) -> Op {
    let r = inst.regs;
    let mut op = Op {
        k: K::Nop,
        kind: K::Nop,
        a: r[0],
        b: r[1],
        c: r[2],
        d: r[3],
        sub: 0,
        sub2: 0,
        slot: 0,
        gpos: 0,
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
            op.sub = if v.op1_high() { 32 } else { 48 };
            op.sub2 = if v.op2_high() { 32 } else { 48 };
            op.imm = i32::from(48 * u8::from(v.op1_unsigned()))
                | (i32::from(48 * u8::from(v.op2_unsigned())) << 8);
            if fam == MulFamily::Mp {
                // MP has no accumulator: operands are in b, c.
                op.d = op.c;
                op.c = op.b;
            }
            // Signed low half by signed low half (MPSSLL, MASSLL), the usual DSP form,
            // has kinds of its own.
            let ll = v.code() == 0;
            match fam {
                MulFamily::Mp if ll => K::MpLL,
                MulFamily::Ma if ll => K::MaLL,
                MulFamily::Mp => K::Mp,
                MulFamily::Ma => K::Ma,
                MulFamily::Ms => K::Ms,
            }
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
                (CmpKind::W | CmpKind::E, false) => signed_cmp_kind(cond, false),
                (CmpKind::W | CmpKind::E, true) => signed_cmp_kind(cond, true),
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
                (false, m) => LD_KINDS[usize::from(m & 3)][usize::from(op.d.min(2))],
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
            ST_KINDS[usize::from(mode_class(mode) & 3)][usize::from(op.d.min(2))]
        }
        Opcode::Goto => {
            [op.a, op.b, op.c, op.d] = target.to_le_bytes();
            // GOTO is taken whatever its guard: with no guard bits, "taken when
            // `guards & gmask == 0`" holds for it as for `Gx! GOTO`.
            op.gmask = 0;
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
    op.kind = op.k;
    if inst.guard & 15 != GUARD_TRUE && !is_control(op.k) {
        op.k = K::Guarded;
    }
    op
}

/// Control kinds test their guard themselves (`exec_any`, the hot loop's branches).
pub(super) fn is_control(k: K) -> bool {
    matches!(
        k,
        K::Goto | K::GotoF | K::Call | K::Jump | K::JumpF | K::Link | K::Rts | K::Trap
    )
}

pub(super) fn lower_mem(op: &mut Op, mode: AddrMode, size: u8, imm: i32) {
    op.d = size.trailing_zeros() as u8;
    let sign = if mode.is_minus() { -1 } else { 1 };
    op.imm = if mode.is_reg_offset() {
        sign
    } else {
        sign * imm * i32::from(size)
    };
}

/// 0: @(P ± imm), 1: @(P ± Pq), 2: post-modify by imm, 3: post-modify by Pq.
pub(super) fn mode_class(mode: AddrMode) -> u8 {
    u8::from(mode.is_reg_offset()) + 2 * u8::from(mode.is_post_modify())
}

/// The kind of a signed compare (..W or ..E) with condition `c`, immediate form or not.
pub(super) fn signed_cmp_kind(c: CmpCond, imm: bool) -> K {
    match (c, imm) {
        (CmpCond::Eq, false) => K::CmpSEq,
        (CmpCond::Ne, false) => K::CmpSNe,
        (CmpCond::Lt, false) => K::CmpSLt,
        (CmpCond::Le, false) => K::CmpSLe,
        (CmpCond::Gt, false) => K::CmpSGt,
        (CmpCond::Ge, false) => K::CmpSGe,
        (CmpCond::Eq, true) => K::CmpSIEq,
        (CmpCond::Ne, true) => K::CmpSINe,
        (CmpCond::Lt, true) => K::CmpSILt,
        (CmpCond::Le, true) => K::CmpSILe,
        (CmpCond::Gt, true) => K::CmpSIGt,
        (CmpCond::Ge, true) => K::CmpSIGe,
    }
}

/// Condition as a mask over the relation bits of [`relation`]. Same results as
/// [`sem::compare`] (checked by the differential test).
pub(super) fn cond_mask(c: CmpCond) -> u8 {
    match c {
        CmpCond::Eq => 2,
        CmpCond::Ne => 5,
        CmpCond::Lt => 1,
        CmpCond::Le => 3,
        CmpCond::Gt => 4,
        CmpCond::Ge => 6,
    }
}
