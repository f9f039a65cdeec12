//! ST120 SP-relative offsets of any size (isa.md §B4, §B6): SP adjustments and the
//! resolution of a byte frame offset into an operation's scaled immediate.
//!
//! The ST120 reaches memory only through `@(Pn ± u9)` (scaled by the access size: LDB/SDB
//! reach 511 bytes, LDH/SDH 1 022, LDW/SDW/LAW/SAW 2 044) and `@(Pn ± Pq)`; `ADDBA/ADDHA/
//! ADDWA.i` take a `u9` scaled by 1/2/4. A frame offset beyond the reach of its operation is
//! handled in two steps:
//! 1. `ADDBA.i` → `ADDHA.i` → `ADDWA.i` when the offset is a multiple of the larger scale
//!    (same cost, reach up to 2 044 bytes);
//! 2. otherwise a **temporary SP displacement**: `SP += k; op @(SP + (byte − k)); SP −= k`,
//!    with `k` a multiple of 4 chosen so that `byte − k` is the largest offset within the
//!    operation's reach. The operation keeps its opcode, operands and shape, so the
//!    allocation checker matches it unchanged and tracks the displacement like any other
//!    frame SP adjustment (slots are keyed by their offset from the entry SP).
//!
//! SP adjustments (prologue, epilogue, displacements) of at most [`MAX_IMM_CHUNKS`] × 511
//! words are `ADDWA.i`/`SUBWA.i` chunks; larger ones materialise the word count in the scratch
//! pointer register P12 (`MAKEA`, plus `MOREA` above 32 767 words) and use the register form
//! `ADDWA/SUBWA P15, P15, P12` (the restore of a displacement reuses P12, which nothing else
//! writes in between). So any frame size costs O(1) operations per access.
//!
//! Why this design rather than the alternatives:
//! * an offset register (`MAKEA P12, off; LDB R, @(P15 + P12)`) would change the shape of
//!   the matched (allocated) instruction, so the allocation checker, the scheduler's address
//!   disambiguation and spill-code recognition would all need new cases; the displacement
//!   leaves every instruction as it was and costs two AU operations (1 cycle each);
//! * aligning or reordering locals only moves the limit (a 600-byte `char` array is
//!   addressed beyond 511 bytes whatever the layout); the layout still keeps spill slots,
//!   save slots and small objects near SP (see `layout`) so that displacements stay rare;
//! * reserving an allocatable register would cost every function a register; P12 (the
//!   static-link register, isa.md §B1) is already outside `allocatable` and unused by C.
//!
//! ASSUMPTION (isa.md §B5 says nothing about asynchronous stack use): nothing writes below
//! SP asynchronously (the simulator has no interrupts), so raising SP over live frame data
//! for one operation is safe. ASSUMPTION (isa.md §B1/§B5): P12, the static-link register,
//! is caller-saved and unused by the C subset, so the frame pass may use it as scratch.
//!
//! Complexity: O(1) per operation.

use crate::mir::{target, Imm, Inst, InstFlags, Opc, Operand, PReg, RegClass};
use simulator::isa::st120::{AuOp, Opcode as O};

/// Largest word count one `ADDWA.i`/`SUBWA.i` moves SP by (u9 immediate).
pub const SP_CHUNK_WORDS: i64 = 511;
/// Adjustments of more chunks than this go through the scratch register.
pub const MAX_IMM_CHUNKS: i64 = 2;
/// The frame pass's scratch pointer register (static link, not allocatable).
pub const SCRATCH_P: u8 = 12;

fn sp() -> Operand {
    Operand::new(target::stack_pointer(simulator::isa::Target::St120))
}

fn scratch_reg() -> Operand {
    Operand::new(PReg::new(RegClass::P, SCRATCH_P))
}

fn frame_inst(opc: O, defs: Vec<Operand>, uses: Vec<Operand>, imm: i64) -> Inst {
    Inst::new(Opc::St120(opc), defs, uses, Imm::Int(imm as i32)).with_flags(InstFlags::FRAME)
}

/// `SP += delta` bytes (`delta` a multiple of 4). `scratch`: the word count P12 is known to
/// hold (updated when P12 is loaded), so that a restore reuses it instead of loading it again.
pub fn sp_adjust(delta: i64, scratch: &mut Option<i64>) -> Result<Vec<Inst>, String> {
    if delta % 4 != 0 {
        return Err(format!(
            "SP adjustment of {delta} bytes is not a multiple of 4"
        ));
    }
    let words = delta.abs() / 4;
    if words > i64::from(i32::MAX) {
        return Err(format!("SP adjustment of {delta} bytes is too large"));
    }
    let op = if delta < 0 { AuOp::SubW } else { AuOp::AddW };
    let mut out = Vec::new();
    if words <= MAX_IMM_CHUNKS * SP_CHUNK_WORDS {
        let mut left = words;
        while left > 0 {
            let n = left.min(SP_CHUNK_WORDS);
            out.push(frame_inst(O::AuI(op), vec![sp()], vec![sp()], n));
            left -= n;
        }
        return Ok(out);
    }
    if *scratch != Some(words) {
        out.extend(materialise_scratch(words));
        *scratch = Some(words);
    }
    out.push(frame_inst(O::Au(op), vec![sp()], vec![sp(), scratch_reg()], 0).with_imm_none());
    Ok(out)
}

/// The SP displacement in force while the frame accesses of one block are resolved: a run
/// of consecutive far accesses shares one displacement (or moves it by the difference), and
/// SP is moved back before any other instruction, which must see the real SP.
#[derive(Debug, Default)]
pub struct Displacer {
    /// Bytes SP is currently above its real value.
    current: i64,
    /// Word count P12 holds, if known (forgotten at every other instruction: calls clobber it).
    scratch: Option<i64>,
    /// Frame accesses executed under a displacement.
    pub displaced: u64,
}

impl Displacer {
    /// Resolves `inst`, a frame access at byte offset `byte` from the real SP, and appends
    /// the SP moves it needs and the resolved instruction to `out`.
    pub fn access(&mut self, mut inst: Inst, byte: i64, out: &mut Vec<Inst>) -> Result<(), String> {
        let Opc::St120(op) = inst.opc else {
            return Err(format!(
                "frame offset on a non-ST120 operation {:?}",
                inst.opc
            ));
        };
        if check_displaceable(&inst).is_err() {
            self.settle(out)?;
        }
        if self.current != 0 {
            if let Ok((op, imm)) = scaled(op, byte - self.current) {
                inst.opc = Opc::St120(op);
                inst.imm = Imm::Int(imm);
                out.push(inst);
                self.displaced += 1;
                return Ok(());
            }
        }
        let r =
            resolve(&inst, byte).map_err(|e| format!("{e} (on {})", target::st120_op_name(op)))?;
        if r.displacement != self.current {
            out.extend(sp_adjust(r.displacement - self.current, &mut self.scratch)?);
            self.current = r.displacement;
        }
        if r.displacement != 0 {
            self.displaced += 1;
        }
        inst.opc = Opc::St120(r.op);
        inst.imm = Imm::Int(r.imm);
        out.push(inst);
        Ok(())
    }

    /// Moves SP back to its real value (before any instruction but a frame access, and at
    /// the end of a block) and forgets P12.
    pub fn settle(&mut self, out: &mut Vec<Inst>) -> Result<(), String> {
        if self.current != 0 {
            out.extend(sp_adjust(-self.current, &mut self.scratch)?);
            self.current = 0;
        }
        self.scratch = None;
        Ok(())
    }
}

/// `P12 = value` (0 ≤ value < 2³¹): `MAKEA` (signed 16 bits), then `MOREA` for the low half
/// when the value needs more (isa.md §B4: MOREA Pm = (Pm << 16) | u16).
fn materialise_scratch(value: i64) -> Vec<Inst> {
    if value <= i64::from(i16::MAX) {
        return vec![frame_inst(O::MakeA, vec![scratch_reg()], vec![], value)];
    }
    vec![
        frame_inst(O::MakeA, vec![scratch_reg()], vec![], value >> 16),
        frame_inst(
            O::MoreA,
            vec![scratch_reg()],
            vec![scratch_reg()],
            value & 0xFFFF,
        ),
    ]
}

trait WithImmNone {
    fn with_imm_none(self) -> Self;
}

impl WithImmNone for Inst {
    fn with_imm_none(mut self) -> Inst {
        self.imm = Imm::None;
        self
    }
}

/// The operations an immediate frame offset of `op` may be rewritten to: `op` itself, and
/// for `ADDBA.i`/`ADDHA.i` the wider-scaled forms.
fn candidates(op: O) -> Vec<O> {
    match op {
        O::AuI(AuOp::AddB) => vec![op, O::AuI(AuOp::AddH), O::AuI(AuOp::AddW)],
        O::AuI(AuOp::AddH) => vec![op, O::AuI(AuOp::AddW)],
        _ => vec![op],
    }
}

/// `(scale, largest immediate)` of `op`'s immediate field.
fn field(op: O) -> Result<(i64, i64), String> {
    let imm = op.info().imm().ok_or_else(|| {
        format!(
            "{} takes no immediate for a frame offset",
            target::st120_op_name(op)
        )
    })?;
    Ok((i64::from(imm.scale.max(1)), imm.range().1))
}

/// The immediate for byte offset `byte` on `op`, possibly widening ADDBA → ADDHA → ADDWA
/// to reach it. Errors when no candidate fits (misaligned, or out of range).
/// ASSUMPTION (isa.md §B4): store offsets are scaled by the access size like load offsets.
pub fn scaled(op: O, byte: i64) -> Result<(O, i32), String> {
    let mut why = String::new();
    for cand in candidates(op) {
        let (scale, max) = field(cand)?;
        if byte % scale != 0 {
            why = format!(
                "frame offset {byte} is not a multiple of the scale {scale} of {}",
                target::st120_op_name(cand)
            );
            continue;
        }
        let v = byte / scale;
        if !cand.info().imm().is_some_and(|f| f.contains(v)) || v > max {
            why = format!(
                "frame offset {byte} (= {v} × {scale}) is out of the range of {}",
                target::st120_op_name(cand)
            );
            continue;
        }
        return Ok((cand, v as i32));
    }
    Err(why)
}

/// How an out-of-reach frame offset is resolved: the rewritten operation and its immediate,
/// reached after displacing SP by `displacement` bytes (0: no displacement needed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resolved {
    pub op: O,
    pub imm: i32,
    pub displacement: i64,
}

/// Resolves byte offset `byte` (from SP) on `inst` (an ST120 operation with SP as its base,
/// use 0): the direct immediate if some candidate reaches it, else a displacement.
pub fn resolve(inst: &Inst, byte: i64) -> Result<Resolved, String> {
    let Opc::St120(op) = inst.opc else {
        return Err(format!(
            "frame offset on a non-ST120 operation {:?}",
            inst.opc
        ));
    };
    if byte < 0 {
        return Err(format!("negative frame offset {byte}"));
    }
    let direct = scaled(op, byte);
    if let Ok((op, imm)) = direct {
        return Ok(Resolved {
            op,
            imm,
            displacement: 0,
        });
    }
    // The candidate with the largest reach among the aligned ones.
    let mut best: Option<(O, i64)> = None;
    for cand in candidates(op) {
        let (scale, max) = field(cand)?;
        if byte % scale == 0 && best.is_none_or(|(_, r)| max * scale > r) {
            best = Some((cand, max * scale));
        }
    }
    let Some((cand, reach)) = best else {
        return Err(direct.unwrap_err());
    };
    check_displaceable(inst)?;
    let displacement = round_up4(byte - reach).max(4);
    let (op, imm) = scaled(cand, byte - displacement)?;
    Ok(Resolved {
        op,
        imm,
        displacement,
    })
}

fn round_up4(x: i64) -> i64 {
    (x + 3).div_euclid(4) * 4
}

/// A displacement moves SP under the operation: SP must be its base (use 0) and nothing else.
fn check_displaceable(inst: &Inst) -> Result<(), String> {
    let sp = target::stack_pointer(simulator::isa::Target::St120);
    let base_is_sp = inst.uses.first().and_then(|o| o.reg.preg()) == Some(sp);
    let sp_elsewhere = inst
        .uses
        .iter()
        .skip(1)
        .chain(&inst.defs)
        .any(|o| o.reg.preg() == Some(sp));
    let scratch_used = inst
        .uses
        .iter()
        .chain(&inst.defs)
        .any(|o| o.reg.preg() == Some(PReg::new(RegClass::P, SCRATCH_P)));
    if !base_is_sp || sp_elsewhere || scratch_used {
        return Err(
            "frame offset out of reach on an operation whose base is not SP alone (cannot \
             displace SP under it)"
                .into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use simulator::isa::st120::{AddrMode::PlusImm, LoadKind, StoreKind};

    fn load(kind: LoadKind) -> Inst {
        Inst::new(
            Opc::St120(O::Load(kind, PlusImm)),
            vec![Operand::new(PReg::new(RegClass::R, 1))],
            vec![sp()],
            Imm::None,
        )
    }

    fn total_words(v: &[Inst]) -> i64 {
        v.iter()
            .map(|i| match (i.opc, &i.imm) {
                (Opc::St120(O::AuI(op)), Imm::Int(n)) if op.is_sub() => -i64::from(*n),
                (Opc::St120(O::AuI(_)), Imm::Int(n)) => i64::from(*n),
                _ => 0,
            })
            .sum()
    }

    #[test]
    fn offsets_are_scaled_and_checked() {
        let ldw = O::Load(LoadKind::W, PlusImm);
        assert_eq!(scaled(ldw, 8).unwrap(), (ldw, 2));
        assert!(scaled(ldw, 6).is_err());
        assert!(scaled(ldw, 2048).is_err());
        assert_eq!(scaled(ldw, 2044).unwrap(), (ldw, 511));
        assert_eq!(
            scaled(O::AuI(AuOp::AddB), 600).unwrap(),
            (O::AuI(AuOp::AddH), 300)
        );
        assert_eq!(
            scaled(O::AuI(AuOp::AddB), 12).unwrap(),
            (O::AuI(AuOp::AddB), 12)
        );
        assert!(scaled(O::AuI(AuOp::AddB), 601).is_err());
    }

    #[test]
    fn byte_access_beyond_511_is_displaced() {
        let r = resolve(&load(LoadKind::B), 572).unwrap();
        assert_eq!(r.op, O::Load(LoadKind::B, PlusImm));
        assert_eq!(r.displacement % 4, 0);
        assert_eq!(i64::from(r.imm) + r.displacement, 572);
        assert!((0..=511).contains(&r.imm));
        // exactly at the edge: no displacement
        assert_eq!(resolve(&load(LoadKind::B), 511).unwrap().displacement, 0);
        assert_eq!(resolve(&load(LoadKind::B), 512).unwrap().displacement, 4);
    }

    #[test]
    fn every_offset_of_every_width_resolves_exactly() {
        for (kind, size) in [(LoadKind::B, 1), (LoadKind::H, 2), (LoadKind::W, 4)] {
            for byte in (0..20_000i64)
                .step_by(size)
                .chain([70_000, 1 << 20, 1 << 28])
            {
                let r = resolve(&load(kind), byte).unwrap();
                assert_eq!(i64::from(r.imm) * size as i64 + r.displacement, byte);
                assert!((0..=511).contains(&r.imm), "{kind:?} {byte}");
                assert_eq!(r.displacement % 4, 0);
            }
        }
        let st = Inst::new(
            Opc::St120(O::Store(StoreKind::H, PlusImm)),
            vec![],
            vec![sp(), Operand::new(PReg::new(RegClass::R, 2))],
            Imm::None,
        );
        assert!(resolve(&st, 1023).is_err(), "misaligned half");
        let r = resolve(&st, 5000).unwrap();
        assert_eq!(i64::from(r.imm) * 2 + r.displacement, 5000);
    }

    #[test]
    fn address_of_a_far_object_is_displaced() {
        let add = Inst::new(
            Opc::St120(O::AuI(AuOp::AddB)),
            vec![Operand::new(PReg::new(RegClass::P, 1))],
            vec![sp()],
            Imm::None,
        );
        let r = resolve(&add, 3001).unwrap();
        assert_eq!(r.op, O::AuI(AuOp::AddB));
        assert_eq!(i64::from(r.imm) + r.displacement, 3001);
        let r = resolve(&add, 70_000).unwrap();
        assert_eq!(r.op, O::AuI(AuOp::AddW));
        assert_eq!(i64::from(r.imm) * 4 + r.displacement, 70_000);
    }

    #[test]
    fn displacement_needs_sp_as_the_only_base() {
        let mut i = load(LoadKind::B);
        i.uses[0] = Operand::new(PReg::new(RegClass::P, 2));
        assert!(resolve(&i, 4000).is_err());
        let st = Inst::new(
            Opc::St120(O::Store(StoreKind::Aw, PlusImm)),
            vec![],
            vec![sp(), sp()],
            Imm::None,
        );
        assert!(resolve(&st, 4000).is_err());
        assert!(resolve(&load(LoadKind::B), -4).is_err());
    }

    #[test]
    fn sp_adjust_small_in_chunks_large_through_scratch() {
        let v = sp_adjust(-4000, &mut None).unwrap();
        assert_eq!(total_words(&v) * 4, -4000);
        assert_eq!(v.len(), 2);
        assert_eq!(total_words(&sp_adjust(4088, &mut None).unwrap()), 1022);
        // one word more than two chunks: through the scratch register
        assert_eq!(
            sp_adjust(4092, &mut None).unwrap()[0].opc,
            Opc::St120(O::MakeA)
        );
        assert!(v.iter().all(|i| i.flags.contains(InstFlags::FRAME)));
        assert!(sp_adjust(0, &mut None).unwrap().is_empty());
        assert!(sp_adjust(6, &mut None).is_err());
        // 70 000 bytes = 17 500 words: MAKEA P12, 17500; SUBWA P15, P15, P12
        let mut p12 = None;
        let v = sp_adjust(-70_000, &mut p12).unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].opc, Opc::St120(O::MakeA));
        assert_eq!(v[0].imm, Imm::Int(17_500));
        assert_eq!(v[1].opc, Opc::St120(O::Au(AuOp::SubW)));
        // restoring with P12 already loaded
        assert_eq!(p12, Some(17_500));
        let v = sp_adjust(70_000, &mut p12).unwrap();
        assert_eq!(v.len(), 1);
        // beyond 32 767 words: MAKEA hi, MOREA lo
        let v = sp_adjust(4 * 100_000, &mut None).unwrap();
        assert_eq!(v.len(), 3);
        assert_eq!(v[0].imm, Imm::Int(100_000 >> 16));
        assert_eq!(v[1].imm, Imm::Int(100_000 & 0xFFFF));
    }

    /// Simulates SP moves and returns the real-SP byte offset each access touches.
    fn touched(out: &[Inst]) -> Vec<i64> {
        let (mut sp_off, mut p12, mut seen) = (0i64, 0i64, Vec::new());
        for i in out {
            match (i.opc, &i.imm) {
                (Opc::St120(O::MakeA), Imm::Int(n)) => p12 = i64::from(*n),
                (Opc::St120(O::MoreA), Imm::Int(n)) => p12 = (p12 << 16) | i64::from(*n),
                (Opc::St120(O::AuI(op)), Imm::Int(n)) if i.defs[0] == sp() => {
                    let d = i64::from(*n) * 4;
                    sp_off += if op.is_sub() { -d } else { d };
                }
                (Opc::St120(O::Au(op)), _) => {
                    sp_off += if op.is_sub() { -4 * p12 } else { 4 * p12 };
                }
                (Opc::St120(O::Load(kind, PlusImm)), Imm::Int(n)) => {
                    let size = match kind {
                        LoadKind::B => 1,
                        LoadKind::H => 2,
                        _ => 4,
                    };
                    seen.push(sp_off + i64::from(*n) * size);
                }
                _ => seen.push(-1 - sp_off), // any other instruction: SP must be real
            }
        }
        assert_eq!(sp_off, 0, "SP not restored");
        seen
    }

    #[test]
    fn consecutive_far_accesses_share_one_displacement() {
        let mut d = Displacer::default();
        let mut out = Vec::new();
        for byte in [600, 700, 650] {
            d.access(load(LoadKind::B), byte, &mut out).unwrap();
        }
        d.access(load(LoadKind::W), 40, &mut out).unwrap();
        d.settle(&mut out).unwrap();
        out.push(Inst::new(Opc::St120(O::Nop), vec![], vec![], Imm::None));
        for (byte, kind) in [
            (90_000, LoadKind::H),
            (90_100, LoadKind::W),
            (300_000, LoadKind::B),
        ] {
            d.access(load(kind), byte, &mut out).unwrap();
        }
        d.settle(&mut out).unwrap();
        assert_eq!(
            touched(&out),
            vec![600, 700, 650, 40, -1, 90_000, 90_100, 300_000]
        );
        // 600/700/650 under one displacement; 40 after moving back; one shared far one.
        let sp_moves = out
            .iter()
            .filter(|i| matches!(i.opc, Opc::St120(O::AuI(_) | O::Au(_))))
            .count();
        assert!(sp_moves <= 6, "{sp_moves} SP moves");
        assert_eq!(d.displaced, 6);
    }
}
