//! Frame layout, prologue and epilogue (allocated form → final form, `docs/design.md`).
//!
//! Layout (offsets from SP after the prologue, growing upwards; isa.md §A6, §B5):
//! `[0, outgoing)` outgoing stack arguments (ST231: at least the 16-byte scratch area when
//! the function calls anything), then spill slots, then save slots (callee-saved registers
//! the allocation defines, and the link register in non-leaf functions), then locals sorted
//! by size (small objects stay near SP, within the short scaled offsets of ST120); the size
//! is rounded up to 8 (ASSUMPTION, isa.md §A6/§B5: 8-byte stack alignment). Incoming stack
//! argument `k` lives at `size + 16 + 4k` on ST231 (above the caller's scratch area) and
//! at `size + 4k` on ST120 (ASSUMPTION, isa.md §B5: no scratch area).
//!
//! Prologue (right after `.input`): SP adjustment, then one store per saved register;
//! epilogue (right before every return operation, after `.output`): the loads, then the
//! SP adjustment back. All are flagged `FRAME`. Saves and restores carry `Imm::Frame` like
//! every other frame access and are resolved with them.
//! * ST231: `add $r12 = $r12, #-size` and `stw`/`ldw` take any 32-bit immediate (isa.md §A5:
//!   long immediates), so every frame size is reachable directly.
//! * ST120: see [`st120`]: `SUBWA.i`/`ADDWA.i` chunks, or `MAKEA`/`MOREA` into the scratch
//!   P12 and the register form for large frames; offsets beyond an operation's scaled `u9`
//!   reach are resolved by widening `ADDBA.i` or by a temporary SP displacement around the
//!   operation. Registers are saved with `SDW+i`/`LDW+i` (R: ASSUMPTION, the callee-saved
//!   data registers are preserved as 32-bit words — their guard bits come back as the sign
//!   of bit 31, see `spill`) and `SAW+i`/`LAW+i` (P). Callee-saved guards (G5–G14) go
//!   through R12, caller-saved and never an argument or result register, so free at entry
//!   and exit: `BOOL R12, Gk; SDW` and `LDW R12; NEW Gk, R12, #0`.
//!
//! `Imm::Frame { idx, offset }` becomes `Imm::Int` in the operation's units: ST231 byte
//! offsets; ST120 byte offset divided by the immediate's scale. Misaligned offsets, negative
//! offsets and frames beyond 2³¹ bytes are errors, never panics; every other frame size
//! works on both targets.
//!
//! Complexity: O(instructions + frame objects × log).

pub mod st120;

use crate::mir::{
    target, Control, FrameIdx, FrameKind, Function, Imm, Inst, InstFlags, Opc, Operand, PReg, Reg,
    RegClass,
};
use crate::pipeline::PassDetail;
use simulator::isa::{st231, Target};

/// ST120 scratch data register for guard saves (caller-saved, not an ABI register).
const ST120_GUARD_SCRATCH: u8 = 12;

fn round_up(x: u64, a: u64) -> u64 {
    let a = a.max(1);
    x.div_ceil(a) * a
}

/// Lays out the frame of `f`, inserts prologue and epilogue, and resolves frame immediates.
pub fn finalize(f: &mut Function) -> Result<PassDetail, String> {
    if f.frame.finalized {
        return Err(format!("frame: function {}: already finalized", f.name));
    }
    check_allocated(f)?;
    let t = f.target;
    let has_call = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .any(|i| i.control() == Control::Call);
    let saved = registers_to_save(f, has_call);
    if t == Target::St231 && has_call {
        f.frame.outgoing_size = f.frame.outgoing_size.max(st231::STACK_ARG_OFFSET);
    }
    let save_slots: Vec<(PReg, u32)> = saved
        .iter()
        .map(|&r| {
            let name = format!("save {}", target::reg_name(t, r));
            (r, f.new_frame_object(4, 4, FrameKind::Save, &name).0)
        })
        .collect();
    layout(f)?;
    let size = f.frame.size;
    let prologue = prologue(f, &save_slots)?;
    let epilogue = epilogue(f, &save_slots)?;
    let (n_pro, n_epi) = (prologue.len() as u64, epilogue.len() as u64);
    let mut epilogues = 0u64;
    for b in 0..f.blocks.len() {
        let insts = std::mem::take(&mut f.blocks[b].insts);
        let mut out = Vec::with_capacity(insts.len() + 8);
        let mut placed_prologue = b != 0;
        if b == 0 && !insts.iter().any(|i| i.opc == Opc::Input) {
            out.extend(prologue.iter().cloned());
            placed_prologue = true;
        }
        for inst in insts {
            let is_input = inst.opc == Opc::Input;
            if inst.control() == Control::Return {
                out.extend(epilogue.iter().cloned());
                epilogues += 1;
            }
            out.push(inst);
            if is_input && !placed_prologue {
                out.extend(prologue.iter().cloned());
                placed_prologue = true;
            }
        }
        f.blocks[b].insts = out;
    }
    let displaced = resolve_frame_immediates(f)?;
    f.frame.finalized = true;
    Ok(vec![
        ("frame_size", u64::from(size)),
        ("saved_regs", saved.len() as u64),
        ("prologue_insts", n_pro),
        ("epilogue_insts", n_epi * epilogues),
        ("sp_displacements", displaced),
    ])
}

fn check_allocated(f: &Function) -> Result<(), String> {
    for (bi, block) in f.blocks.iter().enumerate() {
        for (ii, inst) in block.insts.iter().enumerate() {
            if inst.control() == Control::Return && inst.flags.contains(InstFlags::GUARDED) {
                return Err(format!(
                    "frame: function {}: block b{bi} instruction {ii}: conditional return \
                     (the epilogue cannot be placed before it)",
                    f.name
                ));
            }
            if inst
                .defs
                .iter()
                .chain(&inst.uses)
                .any(|o| matches!(o.reg, Reg::V(_)))
            {
                return Err(format!(
                    "frame: function {}: block b{bi} instruction {ii}: virtual register left \
                     (run the register allocator first)",
                    f.name
                ));
            }
        }
    }
    Ok(())
}

/// Callee-saved registers written anywhere, plus the link register if the function calls.
fn registers_to_save(f: &Function, has_call: bool) -> Vec<PReg> {
    let t = f.target;
    let sp = target::stack_pointer(t);
    let mut regs: Vec<PReg> = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| !i.flags.contains(InstFlags::FRAME))
        .flat_map(|i| &i.defs)
        .filter_map(|o| o.reg.preg())
        .filter(|&p| p != sp && target::is_callee_saved(t, p))
        .collect();
    if has_call {
        regs.push(target::link_register(t));
    }
    regs.sort();
    regs.dedup();
    regs
}

/// Assigns offsets: outgoing area, spills, saves, locals (by size), incoming arguments.
/// Errors when the frame does not fit 2³¹ bytes (offsets are `i32`).
fn layout(f: &mut Function) -> Result<(), String> {
    let objs = &f.frame.objects;
    let mut offsets = vec![0u64; objs.len()];
    let mut off = round_up(u64::from(f.frame.outgoing_size), 4);
    let mut place = |i: usize, off: &mut u64| {
        *off = round_up(*off, u64::from(objs[i].align));
        offsets[i] = *off;
        *off += u64::from(objs[i].size);
    };
    for kind in [FrameKind::Spill, FrameKind::Save] {
        let of_kind: Vec<usize> = (0..objs.len()).filter(|&i| objs[i].kind == kind).collect();
        for i in of_kind {
            place(i, &mut off);
        }
    }
    let mut locals: Vec<usize> = (0..objs.len())
        .filter(|&i| objs[i].kind == FrameKind::Local)
        .collect();
    locals.sort_by_key(|&i| (objs[i].size, i));
    for i in locals {
        place(i, &mut off);
    }
    let size = round_up(off, 8);
    let above = if f.target == Target::St231 {
        u64::from(st231::STACK_ARG_OFFSET)
    } else {
        0
    };
    for (i, o) in objs.iter().enumerate() {
        if let FrameKind::IncomingArg(k) = o.kind {
            offsets[i] = size + above + 4 * u64::from(k);
        }
    }
    let limit = i32::MAX as u64;
    if size > limit || offsets.iter().any(|&o| o > limit) {
        return Err(format!(
            "frame: function {}: frame of {size} bytes is larger than 2^31 bytes",
            f.name
        ));
    }
    f.frame.offsets = offsets.iter().map(|&o| o as i32).collect();
    f.frame.size = size as u32;
    Ok(())
}

fn frame_inst(opc: Opc, defs: Vec<Operand>, uses: Vec<Operand>, imm: i32) -> Inst {
    Inst::new(opc, defs, uses, Imm::Int(imm)).with_flags(InstFlags::FRAME)
}

/// SP += delta bytes.
fn sp_adjust(t: Target, delta: i64) -> Result<Vec<Inst>, String> {
    if delta == 0 {
        return Ok(Vec::new());
    }
    match t {
        Target::St231 => {
            let sp = Operand::new(target::stack_pointer(t));
            let delta = i32::try_from(delta)
                .map_err(|_| format!("SP adjustment of {delta} bytes is too large"))?;
            Ok(vec![frame_inst(
                Opc::St231(st231::Opcode::Add),
                vec![sp],
                vec![sp],
                delta,
            )])
        }
        Target::St120 => st120::sp_adjust(delta, &mut None),
    }
}

/// The save (or restore) of `r` in frame object `slot`; the offset stays `Imm::Frame` and
/// is resolved with every other frame access.
fn save_or_restore(t: Target, r: PReg, slot: u32, save: bool) -> Vec<Inst> {
    let sp = Operand::new(target::stack_pointer(t));
    let reg = Operand::new(r);
    let at = Imm::Frame {
        idx: FrameIdx(slot),
        offset: 0,
    };
    let access = |opc: Opc, defs: Vec<Operand>, uses: Vec<Operand>| {
        Inst::new(opc, defs, uses, at).with_flags(InstFlags::FRAME)
    };
    match t {
        Target::St231 => vec![if save {
            access(Opc::St231(st231::Opcode::Stw), vec![], vec![sp, reg])
        } else {
            access(Opc::St231(st231::Opcode::Ldw), vec![reg], vec![sp])
        }],
        Target::St120 => {
            use simulator::isa::st120::{AddrMode::PlusImm, LoadKind, Opcode as O, StoreKind};
            let scratch = Operand::new(PReg::new(RegClass::R, ST120_GUARD_SCRATCH));
            let store = |k| Opc::St120(O::Store(k, PlusImm));
            let load = |k| Opc::St120(O::Load(k, PlusImm));
            match (r.class, save) {
                (RegClass::R, true) => vec![access(store(StoreKind::W), vec![], vec![sp, reg])],
                (RegClass::R, false) => vec![access(load(LoadKind::W), vec![reg], vec![sp])],
                (RegClass::P, true) => vec![access(store(StoreKind::Aw), vec![], vec![sp, reg])],
                (RegClass::P, false) => vec![access(load(LoadKind::Aw), vec![reg], vec![sp])],
                (_, true) => vec![
                    frame_inst(Opc::St120(O::Bool), vec![scratch], vec![reg], 0)
                        .with_imm(Imm::None),
                    access(store(StoreKind::W), vec![], vec![sp, scratch]),
                ],
                (_, false) => vec![
                    access(load(LoadKind::W), vec![scratch], vec![sp]),
                    frame_inst(
                        Opc::St120(O::CmpI(
                            simulator::isa::st120::CmpKind::W,
                            simulator::isa::st120::CmpCond::Ne,
                        )),
                        vec![reg],
                        vec![scratch],
                        0,
                    ),
                ],
            }
        }
    }
}

trait WithImm {
    fn with_imm(self, imm: Imm) -> Self;
}

impl WithImm for Inst {
    fn with_imm(mut self, imm: Imm) -> Inst {
        self.imm = imm;
        self
    }
}

fn prologue(f: &Function, saves: &[(PReg, u32)]) -> Result<Vec<Inst>, String> {
    let mut out = sp_adjust(f.target, -i64::from(f.frame.size))?;
    for &(r, slot) in saves {
        out.extend(save_or_restore(f.target, r, slot, true));
    }
    Ok(out)
}

fn epilogue(f: &Function, saves: &[(PReg, u32)]) -> Result<Vec<Inst>, String> {
    let mut out = Vec::new();
    for &(r, slot) in saves {
        out.extend(save_or_restore(f.target, r, slot, false));
    }
    out.extend(sp_adjust(f.target, i64::from(f.frame.size))?);
    Ok(out)
}

/// Replaces every `Imm::Frame` by its offset in the operation's units; on ST120 an offset
/// beyond the operation's reach gets a temporary SP displacement around it ([`st120`]).
fn resolve_frame_immediates(f: &mut Function) -> Result<u64, String> {
    let t = f.target;
    let offsets = f.frame.offsets.clone();
    let name = f.name.clone();
    let mut displaced = 0u64;
    for (bi, block) in f.blocks.iter_mut().enumerate() {
        if !block
            .insts
            .iter()
            .any(|i| matches!(i.imm, Imm::Frame { .. }))
        {
            continue;
        }
        let insts = std::mem::take(&mut block.insts);
        let mut out = Vec::with_capacity(insts.len());
        let mut displacer = st120::Displacer::default();
        for (ii, mut inst) in insts.into_iter().enumerate() {
            let here = || format!("frame: function {name}: block b{bi} instruction {ii}");
            let Imm::Frame { idx, offset } = inst.imm else {
                displacer
                    .settle(&mut out)
                    .map_err(|e| format!("{}: {e}", here()))?;
                out.push(inst);
                continue;
            };
            let Some(&base) = offsets.get(idx.0 as usize) else {
                return Err(format!("{}: unknown frame object f{}", here(), idx.0));
            };
            let byte = i64::from(base) + i64::from(offset);
            match (t, inst.opc) {
                (Target::St231, _) => {
                    let v = i32::try_from(byte)
                        .map_err(|_| format!("{}: frame offset {byte} overflows", here()))?;
                    inst.imm = Imm::Int(v);
                    out.push(inst);
                }
                (Target::St120, Opc::St120(_)) => {
                    displacer
                        .access(inst, byte, &mut out)
                        .map_err(|e| format!("{}: {e}", here()))?;
                }
                _ => {
                    return Err(format!(
                        "{}: frame offset on a pseudo-operation {:?}",
                        here(),
                        inst.opc
                    ))
                }
            }
        }
        displacer
            .settle(&mut out)
            .map_err(|e| format!("frame: function {name}: block b{bi}: {e}"))?;
        displaced += displacer.displaced;
        block.insts = out;
    }
    Ok(displaced)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::BlockId;

    #[test]
    fn layout_order_and_incoming_args() {
        let mut f = Function::new("f", Target::St231);
        let big = f.new_frame_object(400, 4, FrameKind::Local, "big");
        let small = f.new_frame_object(4, 4, FrameKind::Local, "small");
        let sp = f.new_frame_object(4, 4, FrameKind::Spill, "s");
        let inc = f.new_frame_object(4, 4, FrameKind::IncomingArg(1), "a");
        f.frame.outgoing_size = 16;
        layout(&mut f).unwrap();
        let o = &f.frame.offsets;
        assert_eq!(o[sp.0 as usize], 16);
        assert_eq!(o[small.0 as usize], 20);
        assert_eq!(o[big.0 as usize], 24);
        assert_eq!(f.frame.size, 424);
        assert_eq!(o[inc.0 as usize], 424 + 16 + 4);
        let _ = BlockId(0);
    }

    /// A 70 000-byte ST120 frame: prologue and epilogue go through P12 (`MAKEA` +
    /// register-form `SUBWA`/`ADDWA`), the checker accepts it and tracks SP through P12, and
    /// a wrong constant in the epilogue is caught (SP not back at return).
    #[test]
    fn st120_large_frame_through_the_scratch_register_is_checked() {
        use crate::regalloc::checker;
        use simulator::isa::st120::Opcode as O;
        let mut before = Function::new("big", Target::St120);
        before.new_frame_object(70_000, 4, FrameKind::Local, "buf");
        before.push(
            BlockId(0),
            Inst::new(Opc::St120(O::Rts), vec![], vec![], Imm::None),
        );
        let mut fin = before.clone();
        finalize(&mut fin).unwrap();
        assert_eq!(fin.frame.size, 70_000);
        let insts = &fin.blocks[0].insts;
        let makea: Vec<usize> = (0..insts.len())
            .filter(|&k| insts[k].opc == Opc::St120(O::MakeA))
            .collect();
        assert_eq!(makea.len(), 2, "prologue and epilogue each load P12");
        assert_eq!(insts[makea[0]].imm, Imm::Int(17_500));
        checker::check(&before, &fin).unwrap();
        let mut bad = fin.clone();
        bad.blocks[0].insts[makea[1]].imm = Imm::Int(17_499);
        let e = checker::check(&before, &bad).unwrap_err();
        assert!(e.message.contains("SP is"), "{e}");
        // a P12 load that is not frame code is rejected
        let mut bad = fin.clone();
        bad.blocks[0].insts[makea[1]].flags = InstFlags::empty();
        assert!(checker::check(&before, &bad).is_err());
    }
}
