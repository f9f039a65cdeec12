//! Frame layout, prologue and epilogue (allocated form → final form, `notes/backend.md`).
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
//! SP adjustment back. All are flagged `FRAME`.
//! * ST231: `add $r12 = $r12, #-size` (any 32-bit immediate), `stw`/`ldw`.
//! * ST120: `SUBWA.i P15, P15, #n` / `ADDWA.i` in chunks of at most 511 words (ASSUMPTION,
//!   isa.md §B4/§B6: the `u9` immediate of ADDWA/SUBWA is scaled by 4, so one operation moves
//!   SP by at most 2044 bytes; the 8-aligned size is always a multiple of 4). Registers are
//!   saved with `SDW+i`/`LDW+i` (R: ASSUMPTION, the callee-saved data registers are preserved
//!   as 32-bit words — their guard bits come back as the sign of bit 31, see `spill`) and
//!   `SAW+i`/`LAW+i` (P). Callee-saved guards (G5–G14) go through R12, caller-saved and never
//!   an argument or result register, so free at entry and exit: `BOOL R12, Gk; SDW` and
//!   `LDW R12; NEW Gk, R12, #0`.
//!
//! `Imm::Frame { idx, offset }` becomes `Imm::Int` in the operation's units: ST231 byte
//! offsets; ST120 byte offset divided by the immediate's scale (memory access size, ADDHA /
//! ADDWA scale); an `ADDBA.i` whose offset does not fit 9 bits becomes `ADDHA.i`/`ADDWA.i`
//! when the offset is aligned. Misaligned or out-of-range offsets are errors, never panics.
//!
//! Complexity: O(instructions + frame objects × log).

use crate::mir::{
    target, Control, FrameKind, Function, Imm, Inst, InstFlags, Opc, Operand, PReg, Reg, RegClass,
};
use crate::pipeline::PassDetail;
use simulator::isa::{st120, st231, Target};

/// Largest word count one ST120 `ADDWA.i`/`SUBWA.i` moves SP by.
const ST120_SP_CHUNK_WORDS: i32 = 511;
/// ST120 scratch data register for guard saves (caller-saved, not an ABI register).
const ST120_GUARD_SCRATCH: u8 = 12;

fn round_up(x: u32, a: u32) -> u32 {
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
    layout(f);
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
    resolve_frame_immediates(f)?;
    f.frame.finalized = true;
    Ok(vec![
        ("frame_size", u64::from(size)),
        ("saved_regs", saved.len() as u64),
        ("prologue_insts", n_pro),
        ("epilogue_insts", n_epi * epilogues),
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
fn layout(f: &mut Function) {
    let objs = &f.frame.objects;
    let mut offsets = vec![0i32; objs.len()];
    let mut off = round_up(f.frame.outgoing_size, 4);
    let mut place = |i: usize, off: &mut u32| {
        *off = round_up(*off, objs[i].align);
        offsets[i] = *off as i32;
        *off += objs[i].size;
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
        st231::STACK_ARG_OFFSET
    } else {
        0
    };
    for (i, o) in objs.iter().enumerate() {
        if let FrameKind::IncomingArg(k) = o.kind {
            offsets[i] = (size + above + 4 * k) as i32;
        }
    }
    f.frame.offsets = offsets;
    f.frame.size = size;
}

fn frame_inst(opc: Opc, defs: Vec<Operand>, uses: Vec<Operand>, imm: i32) -> Inst {
    Inst::new(opc, defs, uses, Imm::Int(imm)).with_flags(InstFlags::FRAME)
}

/// SP += delta bytes.
fn sp_adjust(t: Target, delta: i32) -> Vec<Inst> {
    let sp = Operand::new(target::stack_pointer(t));
    if delta == 0 {
        return Vec::new();
    }
    match t {
        Target::St231 => vec![frame_inst(
            Opc::St231(st231::Opcode::Add),
            vec![sp],
            vec![sp],
            delta,
        )],
        Target::St120 => {
            let op = if delta < 0 {
                st120::AuOp::SubW
            } else {
                st120::AuOp::AddW
            };
            let mut words = delta.unsigned_abs() as i32 / 4;
            let mut out = Vec::new();
            while words > 0 {
                let n = words.min(ST120_SP_CHUNK_WORDS);
                out.push(frame_inst(
                    Opc::St120(st120::Opcode::AuI(op)),
                    vec![sp],
                    vec![sp],
                    n,
                ));
                words -= n;
            }
            out
        }
    }
}

fn st120_word_offset(f: &Function, byte: i32) -> Result<i32, String> {
    if byte % 4 != 0 || !(0..=511 * 4).contains(&byte) {
        return Err(format!(
            "frame: function {}: save slot at byte offset {byte} is out of the range of a \
             scaled 9-bit ST120 offset (frame too large)",
            f.name
        ));
    }
    Ok(byte / 4)
}

fn save_or_restore(f: &Function, r: PReg, slot: u32, save: bool) -> Result<Vec<Inst>, String> {
    let t = f.target;
    let sp = Operand::new(target::stack_pointer(t));
    let byte = f.frame.offsets[slot as usize];
    let reg = Operand::new(r);
    Ok(match t {
        Target::St231 => vec![if save {
            frame_inst(Opc::St231(st231::Opcode::Stw), vec![], vec![sp, reg], byte)
        } else {
            frame_inst(Opc::St231(st231::Opcode::Ldw), vec![reg], vec![sp], byte)
        }],
        Target::St120 => {
            use st120::{AddrMode::PlusImm, LoadKind, Opcode as O, StoreKind};
            let w = st120_word_offset(f, byte)?;
            let scratch = Operand::new(PReg::new(RegClass::R, ST120_GUARD_SCRATCH));
            match (r.class, save) {
                (RegClass::R, true) => vec![frame_inst(
                    Opc::St120(O::Store(StoreKind::W, PlusImm)),
                    vec![],
                    vec![sp, reg],
                    w,
                )],
                (RegClass::R, false) => vec![frame_inst(
                    Opc::St120(O::Load(LoadKind::W, PlusImm)),
                    vec![reg],
                    vec![sp],
                    w,
                )],
                (RegClass::P, true) => vec![frame_inst(
                    Opc::St120(O::Store(StoreKind::Aw, PlusImm)),
                    vec![],
                    vec![sp, reg],
                    w,
                )],
                (RegClass::P, false) => vec![frame_inst(
                    Opc::St120(O::Load(LoadKind::Aw, PlusImm)),
                    vec![reg],
                    vec![sp],
                    w,
                )],
                (_, true) => vec![
                    frame_inst(Opc::St120(O::Bool), vec![scratch], vec![reg], 0)
                        .with_imm(Imm::None),
                    frame_inst(
                        Opc::St120(O::Store(StoreKind::W, PlusImm)),
                        vec![],
                        vec![sp, scratch],
                        w,
                    ),
                ],
                (_, false) => vec![
                    frame_inst(
                        Opc::St120(O::Load(LoadKind::W, PlusImm)),
                        vec![scratch],
                        vec![sp],
                        w,
                    ),
                    frame_inst(
                        Opc::St120(O::CmpI(st120::CmpKind::W, st120::CmpCond::Ne)),
                        vec![reg],
                        vec![scratch],
                        0,
                    ),
                ],
            }
        }
    })
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
    let mut out = sp_adjust(f.target, -(f.frame.size as i32));
    for &(r, slot) in saves {
        out.extend(save_or_restore(f, r, slot, true)?);
    }
    Ok(out)
}

fn epilogue(f: &Function, saves: &[(PReg, u32)]) -> Result<Vec<Inst>, String> {
    let mut out = Vec::new();
    for &(r, slot) in saves {
        out.extend(save_or_restore(f, r, slot, false)?);
    }
    out.extend(sp_adjust(f.target, f.frame.size as i32));
    Ok(out)
}

/// Replaces every `Imm::Frame` by its offset in the operation's units.
fn resolve_frame_immediates(f: &mut Function) -> Result<(), String> {
    let t = f.target;
    let offsets = f.frame.offsets.clone();
    let name = f.name.clone();
    for (bi, block) in f.blocks.iter_mut().enumerate() {
        for (ii, inst) in block.insts.iter_mut().enumerate() {
            let Imm::Frame { idx, offset } = inst.imm else {
                continue;
            };
            let here = || format!("frame: function {name}: block b{bi} instruction {ii}");
            let Some(&base) = offsets.get(idx.0 as usize) else {
                return Err(format!("{}: unknown frame object f{}", here(), idx.0));
            };
            let byte = i64::from(base) + i64::from(offset);
            let value = match (t, inst.opc) {
                (Target::St231, _) => i32::try_from(byte)
                    .map_err(|_| format!("{}: frame offset {byte} overflows", here()))?,
                (Target::St120, Opc::St120(op)) => {
                    let (op, v) = st120_scaled(op, byte).map_err(|e| format!("{}: {e}", here()))?;
                    inst.opc = Opc::St120(op);
                    v
                }
                _ => {
                    return Err(format!(
                        "{}: frame offset on a pseudo-operation {:?}",
                        here(),
                        inst.opc
                    ))
                }
            };
            inst.imm = Imm::Int(value);
        }
    }
    Ok(())
}

/// The ST120 immediate for byte offset `byte` on `op` (possibly widening ADDBA → ADDHA →
/// ADDWA to reach it). The scale is the one the machine description gives the immediate:
/// ASSUMPTION (isa.md §B4): store offsets are scaled by the access size like load offsets.
fn st120_scaled(op: st120::Opcode, byte: i64) -> Result<(st120::Opcode, i32), String> {
    use st120::{AuOp, Opcode as O};
    let candidates: Vec<O> = match op {
        O::AuI(AuOp::AddB) => vec![op, O::AuI(AuOp::AddH), O::AuI(AuOp::AddW)],
        O::AuI(AuOp::AddH) => vec![op, O::AuI(AuOp::AddW)],
        _ => vec![op],
    };
    let mut why = String::new();
    for cand in candidates {
        let Some(imm) = cand.info().imm() else {
            return Err(format!(
                "{} takes no immediate for a frame offset",
                target::st120_op_name(op)
            ));
        };
        let scale = i64::from(imm.scale.max(1));
        if byte % scale != 0 {
            why = format!(
                "frame offset {byte} is not a multiple of the scale {scale} of {}",
                target::st120_op_name(cand)
            );
            continue;
        }
        let v = byte / scale;
        if !imm.contains(v) {
            why = format!(
                "frame offset {byte} (= {v} × {scale}) is out of the range of {} (frame too \
                 large for ST120 SP-relative addressing)",
                target::st120_op_name(cand)
            );
            continue;
        }
        return Ok((cand, v as i32));
    }
    Err(why)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::BlockId;

    #[test]
    fn st120_offsets_are_scaled_and_checked() {
        use st120::{AddrMode::PlusImm, AuOp, LoadKind, Opcode as O};
        assert_eq!(
            st120_scaled(O::Load(LoadKind::W, PlusImm), 8).unwrap(),
            (O::Load(LoadKind::W, PlusImm), 2)
        );
        assert!(st120_scaled(O::Load(LoadKind::W, PlusImm), 6).is_err());
        assert!(st120_scaled(O::Load(LoadKind::W, PlusImm), 4096).is_err());
        assert_eq!(
            st120_scaled(O::AuI(AuOp::AddB), 600).unwrap(),
            (O::AuI(AuOp::AddH), 300)
        );
        assert_eq!(
            st120_scaled(O::AuI(AuOp::AddB), 12).unwrap(),
            (O::AuI(AuOp::AddB), 12)
        );
    }

    #[test]
    fn st120_sp_adjust_in_chunks() {
        let v = sp_adjust(Target::St120, -4096);
        let total: i32 = v
            .iter()
            .map(|i| match i.imm {
                Imm::Int(n) => n,
                _ => 0,
            })
            .sum();
        assert_eq!(total * 4, 4096);
        assert!(v.len() >= 3);
        assert!(v.iter().all(|i| i.flags.contains(InstFlags::FRAME)));
    }

    #[test]
    fn layout_order_and_incoming_args() {
        let mut f = Function::new("f", Target::St231);
        let big = f.new_frame_object(400, 4, FrameKind::Local, "big");
        let small = f.new_frame_object(4, 4, FrameKind::Local, "small");
        let sp = f.new_frame_object(4, 4, FrameKind::Spill, "s");
        let inc = f.new_frame_object(4, 4, FrameKind::IncomingArg(1), "a");
        f.frame.outgoing_size = 16;
        layout(&mut f);
        let o = &f.frame.offsets;
        assert_eq!(o[sp.0 as usize], 16);
        assert_eq!(o[small.0 as usize], 20);
        assert_eq!(o[big.0 as usize], 24);
        assert_eq!(f.frame.size, 424);
        assert_eq!(o[inc.0 as usize], 424 + 16 + 4);
        let _ = BlockId(0);
    }
}
