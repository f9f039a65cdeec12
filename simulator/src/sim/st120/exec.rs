//! Execution of pre-decoded ST120 operations on the architectural state: one flat `match`
//! per operation, guards as bit masks, branch-free compares, the read-before-write
//! sequencing of a group (in order, reversed, or buffered), and the control effects of
//! branches, calls, returns and TRAP. Semantics are those of
//! [`crate::isa::st120::semantics`] (called directly, or re-derived branch-free and tested
//! against it). O(1) per operation.

use super::predecode::*;
use crate::isa::st120::opcode::{BinOp, UnOp};
use crate::isa::st120::semantics as sem;
use crate::isa::st120::{wrap40, JUMP_TARGET, LINK, NUM_REGS};
use crate::machine::{Memory, TrapKind};

/// Architectural state: 40-bit R as canonical i64, 32-bit P, guards as a bit mask (bit 15
/// always set). The register arrays have 256 entries so that a `u8` register number indexes
/// them without a mask or a bounds check; only the first 16 are ever used (register numbers
/// come from 4-bit fields).
#[derive(Clone, Copy, Debug)]
pub(super) struct Regs {
    pub(super) r: [i64; 256],
    pub(super) p: [u32; 256],
    pub(super) g: u32,
}

/// Pending control effect of a group.
#[derive(Clone, Copy, Debug)]
pub(super) enum Ctl {
    Next,
    /// Static target: group index (or `NO_GROUP`) and address.
    To(u32, u32),
    Dynamic(u32),
    Call(u32, u32),
    Return(u32),
    Syscall(u8),
}

#[inline(always)]
pub(super) fn guard_on(regs: &Regs, op: &Op) -> bool {
    regs.g & u32::from(op.gmask) != 0
}

/// Execute the operations of a group in `order` (of storage), recording a control effect;
/// a trap comes with the slot (as encoded) of the operation that raised it.
pub(super) fn exec_slots(
    regs: &mut Regs,
    mem: &mut Memory,
    g: &Group,
    order: [usize; 2],
    ctl: &mut Ctl,
) -> Result<(), (TrapKind, usize)> {
    for &k in &order {
        if k < usize::from(g.n) {
            let op = &g.ops[k];
            exec_any(regs, mem, op, ctl).map_err(|e| (e, usize::from(op.slot)))?;
        }
    }
    Ok(())
}

/// The architectural part of [`Regs`]: the first `NUM_REGS` entries of each array, the only
/// ones a register number reaches. A buffered group saves and restores these 196 bytes
/// instead of the whole 3 KiB `Regs` (which made the buffered path a memory copy of about
/// 18 KiB per group).
#[derive(Clone, Copy)]
struct ArchRegs {
    r: [i64; NUM_REGS],
    p: [u32; NUM_REGS],
    g: u32,
}

impl ArchRegs {
    #[inline(always)]
    fn of(regs: &Regs) -> ArchRegs {
        let mut a = ArchRegs {
            r: [0; NUM_REGS],
            p: [0; NUM_REGS],
            g: regs.g,
        };
        a.r.copy_from_slice(&regs.r[..NUM_REGS]);
        a.p.copy_from_slice(&regs.p[..NUM_REGS]);
        a
    }

    #[inline(always)]
    fn restore(&self, regs: &mut Regs) {
        regs.r[..NUM_REGS].copy_from_slice(&self.r);
        regs.p[..NUM_REGS].copy_from_slice(&self.p);
        regs.g = self.g;
    }
}

/// Each operation on the old register file; results merged, slot 1 winning double writes.
/// When one slot stores and the other loads, the load runs first (reads before writes).
pub(super) fn exec_buffered(
    regs: &mut Regs,
    mem: &mut Memory,
    g: &Group,
    aux: Option<&Aux>,
    ctl: &mut Ctl,
) -> Result<(), (TrapKind, usize)> {
    let Some(Aux::Dests(dests)) = aux else {
        return Err((TrapKind::Unsupported("corrupt pre-decoded group"), 0));
    };
    let first = usize::from(ST_KINDS.iter().flatten().any(|&k| k == g.ops[0].kind));
    let old = ArchRegs::of(regs);
    let mut after = [old; 2];
    let mut active = [false; 2];
    for k in [first, 1 - first] {
        old.restore(regs);
        let op = &g.ops[k];
        active[k] = exec_any(regs, mem, op, ctl).map_err(|e| (e, usize::from(op.slot)))?;
        after[k] = ArchRegs::of(regs);
    }
    old.restore(regs);
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
pub(super) fn exec_any(
    regs: &mut Regs,
    mem: &mut Memory,
    op: &Op,
    ctl: &mut Ctl,
) -> Result<bool, TrapKind> {
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
pub(super) fn set_g(regs: &mut Regs, n: u8, v: bool) {
    let bit = 1u32 << n;
    regs.g = (regs.g & !bit) | (u32::from(v) << n);
}

/// Execute one non-control operation (a guarded-off one does nothing). Operations under
/// G15 dispatch directly on their kind; the others go through `K::Guarded`.
#[inline(always)]
pub(super) fn exec(regs: &mut Regs, mem: &mut Memory, op: &Op) -> Result<(), TrapKind> {
    exec_kind(regs, mem, op, op.k)
}

/// A `K::Guarded` operation: its own kind when the guard is true.
#[inline(never)]
fn exec_guarded(regs: &mut Regs, mem: &mut Memory, op: &Op) -> Result<(), TrapKind> {
    if !guard_on(regs, op) || op.kind == K::Guarded {
        return Ok(());
    }
    exec_kind(regs, mem, op, op.kind)
}

/// Execute `op` as kind `k` (its guard already known true unless `k` is `K::Guarded`).
#[inline(always)]
fn exec_kind(regs: &mut Regs, mem: &mut Memory, op: &Op, k: K) -> Result<(), TrapKind> {
    let (a, b, c) = (usize::from(op.a), usize::from(op.b), usize::from(op.c));
    // Signed compares by condition: both operands normalised by `d`, or an immediate.
    macro_rules! cmp_s {
        ($k:expr, $y:expr) => {{
            let v = signed_holds($k, sext(regs.r[b], op.d), sext($y, op.d));
            set_g(regs, op.a, v)
        }};
    }
    macro_rules! cmp_si {
        ($k:expr) => {{
            let v = signed_holds($k, sext(regs.r[b], op.d), i64::from(op.imm));
            set_g(regs, op.a, v)
        }};
    }
    let r = &mut regs.r;
    match k {
        K::Guarded => return exec_guarded(regs, mem, op),
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
        K::Mp => r[a] = product(op, r[c], r[usize::from(op.d)]),
        K::Ma => r[a] = wrap40(r[b].wrapping_add(product(op, r[c], r[usize::from(op.d)]))),
        K::Ms => r[a] = wrap40(r[b].wrapping_sub(product(op, r[c], r[usize::from(op.d)]))),
        K::MpLL => r[a] = product_ll(r[c], r[usize::from(op.d)]),
        K::MaLL => r[a] = wrap40(r[b].wrapping_add(product_ll(r[c], r[usize::from(op.d)]))),
        K::CmpSEq => cmp_s!(K::CmpSEq, regs.r[c]),
        K::CmpSNe => cmp_s!(K::CmpSNe, regs.r[c]),
        K::CmpSLt => cmp_s!(K::CmpSLt, regs.r[c]),
        K::CmpSLe => cmp_s!(K::CmpSLe, regs.r[c]),
        K::CmpSGt => cmp_s!(K::CmpSGt, regs.r[c]),
        K::CmpSGe => cmp_s!(K::CmpSGe, regs.r[c]),
        K::CmpSIEq => cmp_si!(K::CmpSIEq),
        K::CmpSINe => cmp_si!(K::CmpSINe),
        K::CmpSILt => cmp_si!(K::CmpSILt),
        K::CmpSILe => cmp_si!(K::CmpSILe),
        K::CmpSIGt => cmp_si!(K::CmpSIGt),
        K::CmpSIGe => cmp_si!(K::CmpSIGe),
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
        K::LdI0 => {
            let addr = regs.p[b].wrapping_add(op.imm as u32);
            regs.r[a] = extend(mem.load8(addr)?, op.sub);
        }
        K::LdR0 => {
            let addr = regs.p[b].wrapping_add(reg_delta(regs, op));
            regs.r[a] = extend(mem.load8(addr)?, op.sub);
        }
        K::LdPI0 => {
            let base = regs.p[b];
            let raw = mem.load8(base)?;
            // Base first: when the base is also the destination, the loaded value wins.
            regs.p[b] = base.wrapping_add(op.imm as u32);
            regs.r[a] = extend(raw, op.sub);
        }
        K::LdPR0 => {
            let base = regs.p[b];
            let raw = mem.load8(base)?;
            regs.p[b] = base.wrapping_add(reg_delta(regs, op));
            regs.r[a] = extend(raw, op.sub);
        }
        K::LdI1 => {
            let addr = regs.p[b].wrapping_add(op.imm as u32);
            regs.r[a] = extend(mem.load16(addr)?, op.sub);
        }
        K::LdR1 => {
            let addr = regs.p[b].wrapping_add(reg_delta(regs, op));
            regs.r[a] = extend(mem.load16(addr)?, op.sub);
        }
        K::LdPI1 => {
            let base = regs.p[b];
            let raw = mem.load16(base)?;
            // Base first: when the base is also the destination, the loaded value wins.
            regs.p[b] = base.wrapping_add(op.imm as u32);
            regs.r[a] = extend(raw, op.sub);
        }
        K::LdPR1 => {
            let base = regs.p[b];
            let raw = mem.load16(base)?;
            regs.p[b] = base.wrapping_add(reg_delta(regs, op));
            regs.r[a] = extend(raw, op.sub);
        }
        K::LdI2 => {
            let addr = regs.p[b].wrapping_add(op.imm as u32);
            regs.r[a] = extend(mem.load32(addr)?, op.sub);
        }
        K::LdR2 => {
            let addr = regs.p[b].wrapping_add(reg_delta(regs, op));
            regs.r[a] = extend(mem.load32(addr)?, op.sub);
        }
        K::LdPI2 => {
            let base = regs.p[b];
            let raw = mem.load32(base)?;
            // Base first: when the base is also the destination, the loaded value wins.
            regs.p[b] = base.wrapping_add(op.imm as u32);
            regs.r[a] = extend(raw, op.sub);
        }
        K::LdPR2 => {
            let base = regs.p[b];
            let raw = mem.load32(base)?;
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
        K::StI0 => {
            let addr = regs.p[b].wrapping_add(op.imm as u32);
            mem.store8(addr, store_value(regs, op))?;
        }
        K::StR0 => {
            let addr = regs.p[b].wrapping_add(reg_delta(regs, op));
            mem.store8(addr, store_value(regs, op))?;
        }
        K::StPI0 => {
            let base = regs.p[b];
            mem.store8(base, store_value(regs, op))?;
            regs.p[b] = base.wrapping_add(op.imm as u32);
        }
        K::StPR0 => {
            let base = regs.p[b];
            mem.store8(base, store_value(regs, op))?;
            regs.p[b] = base.wrapping_add(reg_delta(regs, op));
        }
        K::StI1 => {
            let addr = regs.p[b].wrapping_add(op.imm as u32);
            mem.store16(addr, store_value(regs, op))?;
        }
        K::StR1 => {
            let addr = regs.p[b].wrapping_add(reg_delta(regs, op));
            mem.store16(addr, store_value(regs, op))?;
        }
        K::StPI1 => {
            let base = regs.p[b];
            mem.store16(base, store_value(regs, op))?;
            regs.p[b] = base.wrapping_add(op.imm as u32);
        }
        K::StPR1 => {
            let base = regs.p[b];
            mem.store16(base, store_value(regs, op))?;
            regs.p[b] = base.wrapping_add(reg_delta(regs, op));
        }
        K::StI2 => {
            let addr = regs.p[b].wrapping_add(op.imm as u32);
            mem.store32(addr, store_value(regs, op))?;
        }
        K::StR2 => {
            let addr = regs.p[b].wrapping_add(reg_delta(regs, op));
            mem.store32(addr, store_value(regs, op))?;
        }
        K::StPI2 => {
            let base = regs.p[b];
            mem.store32(base, store_value(regs, op))?;
            regs.p[b] = base.wrapping_add(op.imm as u32);
        }
        K::StPR2 => {
            let base = regs.p[b];
            mem.store32(base, store_value(regs, op))?;
            regs.p[b] = base.wrapping_add(reg_delta(regs, op));
        }
        K::Goto | K::GotoF | K::Call | K::Jump | K::JumpF | K::Link | K::Rts | K::Trap => {}
    }
    Ok(())
}

/// 16x16 product of the halves selected by the operation's shifts (branch-free; same
/// results as [`sem::product`], checked in the tests).
#[inline(always)]
pub(super) fn product(op: &Op, x: i64, y: i64) -> i64 {
    let half = |v: i64, sh: u8, mask_shift: i32| -> i64 {
        ((v << (sh & 63)) >> 48) & (u64::MAX >> (mask_shift & 63)) as i64
    };
    half(x, op.sub, op.imm & 0xFF) * half(y, op.sub2, (op.imm >> 8) & 0xFF)
}

/// Product of the signed low halves (what [`product`] gives for MPSSLL / MASSLL).
#[inline(always)]
pub(super) fn product_ll(x: i64, y: i64) -> i64 {
    i64::from(x as i16) * i64::from(y as i16)
}

/// 1 if a < b, 2 if a == b, 4 if a > b (branch-free).
#[inline(always)]
pub(super) fn relation<T: Ord>(a: T, b: T) -> u8 {
    (2u8 << u8::from(a > b)) >> u8::from(a < b)
}

/// Signed compare of the operands sign-extended from bit `63 - d` (the generic form, a
/// reference for the per-condition kinds).
#[cfg(test)]
pub(super) fn cmp_signed(op: &Op, x: i64, y: i64) -> bool {
    let s = u32::from(op.d & 63);
    op.sub & relation((x << s) >> s, (y << s) >> s) != 0
}

/// `v` sign-extended from bit `63 - s` (`s` < 64).
#[inline(always)]
pub(super) fn sext(v: i64, s: u8) -> i64 {
    let s = u32::from(s & 63);
    (v << s) >> s
}

/// Whether the condition of signed compare kind `k` holds for normalised operands `x`, `y`
/// (same results as `cmp_signed` with the condition's mask; false for other kinds).
#[inline(always)]
pub(super) fn signed_holds(k: K, x: i64, y: i64) -> bool {
    match k {
        K::CmpSEq | K::CmpSIEq => x == y,
        K::CmpSNe | K::CmpSINe => x != y,
        K::CmpSLt | K::CmpSILt => x < y,
        K::CmpSLe | K::CmpSILe => x <= y,
        K::CmpSGt | K::CmpSIGt => x > y,
        K::CmpSGe | K::CmpSIGe => x >= y,
        _ => false,
    }
}

/// Unsigned compare of the operands zero-extended from bit `63 - d`.
#[inline(always)]
pub(super) fn cmp_unsigned(op: &Op, x: i64, y: i64) -> bool {
    let s = u32::from(op.d & 63);
    op.sub & relation(((x as u64) << s) >> s, ((y as u64) << s) >> s) != 0
}

/// Byte offset of a register-offset access: ±(Pq << log2 size).
#[inline(always)]
pub(super) fn reg_delta(regs: &Regs, op: &Op) -> u32 {
    (regs.p[usize::from(op.c)] << (op.d & 3)).wrapping_mul(op.imm as u32)
}

/// Zero-extended memory value of `1 << log_size` bytes.
#[inline(always)]
pub(super) fn load(mem: &Memory, log_size: u8, addr: u32) -> Result<u32, TrapKind> {
    match log_size {
        0 => mem.load8(addr),
        1 => mem.load16(addr),
        _ => mem.load32(addr),
    }
}

/// Loaded value in a data register: sign-extended from bit `63 - shift` (`shift` = 0:
/// zero-extended). Same results as [`sem::load_r`].
#[inline(always)]
pub(super) fn extend(raw: u32, shift: u8) -> i64 {
    (i64::from(raw) << (shift & 63)) >> (shift & 63)
}

#[inline(always)]
pub(super) fn store_value(regs: &Regs, op: &Op) -> u32 {
    if op.sub != 0 {
        regs.p[usize::from(op.a)]
    } else {
        regs.r[usize::from(op.a)] as u32
    }
}

#[inline(always)]
pub(super) fn un_op(c: u8) -> UnOp {
    UnOp::from_code(c).unwrap_or(UnOp::Move)
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::st120::opcode::{CmpCond, CmpKind, Inst, MulFamily, MulVariant, Opcode};

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
                            k @ (K::CmpSEq
                            | K::CmpSNe
                            | K::CmpSLt
                            | K::CmpSLe
                            | K::CmpSGt
                            | K::CmpSGe) => {
                                let want_generic = cmp_signed(&op, x, y);
                                let got = signed_holds(k, sext(x, op.d), sext(y, op.d));
                                assert_eq!(got, want_generic, "{k:?}");
                                got
                            }
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

    /// The immediate forms of the signed compares agree with the reference semantics
    /// (the i32 immediate compared as it is).
    #[test]
    fn signed_immediate_compares_match_semantics() {
        let vals = [
            0i64,
            1,
            -1,
            5,
            0x7FFF_FFFF,
            -0x8000_0000,
            0x1_0000_0005,
            -0x80_0000_0000,
        ];
        let imms = [0i32, 1, -1, 5, i32::MAX, i32::MIN, 0x8000];
        for kind in [CmpKind::W, CmpKind::E] {
            for &cond in CmpCond::ALL {
                for &imm in &imms {
                    let inst = Inst::new(Opcode::CmpI(kind, cond), &[1, 2], imm);
                    let op = lower(&inst, 0x1000);
                    for &x in &vals {
                        let x = wrap40(x);
                        let want = sem::compare(kind, cond, x, i64::from(imm));
                        let got = signed_holds(op.k, sext(x, op.d), i64::from(op.imm));
                        assert_eq!(got, want, "{kind:?} {cond:?} {x:#x} {imm}");
                    }
                }
            }
        }
    }

    /// The branch-free multiplies agree with the reference semantics.
    #[test]
    fn flattened_multiplies_match_semantics() {
        let vals = [
            0i64,
            1,
            -1,
            0x7FFF,
            0x8000,
            0xFFFF,
            0x1234_5678,
            -0x7654_3210,
            0x80_0000_0000,
        ];
        for fam in MulFamily::ALL {
            for v in MulVariant::all() {
                let inst = Inst::new(Opcode::Mul(fam, v), &[1, 2, 3, 4], 0);
                let op = lower(&inst, 0x1000);
                for &acc in &vals {
                    for &x in &vals {
                        for &y in &vals {
                            let (acc, x, y) = (wrap40(acc), wrap40(x), wrap40(y));
                            let want = sem::mul(fam, v, acc, x, y);
                            let p = product(&op, x, y);
                            let got = match op.k {
                                K::Mp => p,
                                K::Ma => wrap40(acc.wrapping_add(p)),
                                K::MpLL => {
                                    assert_eq!(product_ll(x, y), p);
                                    p
                                }
                                K::MaLL => wrap40(acc.wrapping_add(product_ll(x, y))),
                                K::Ms => wrap40(acc.wrapping_sub(p)),
                                other => panic!("{other:?}"),
                            };
                            assert_eq!(got, want, "{fam:?} {v:?} {acc:#x} {x:#x} {y:#x}");
                        }
                    }
                }
            }
        }
    }
}
