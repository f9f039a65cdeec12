//! Spill code: George & Appel 1996, §4 "RewriteProgram" (actual spill): each spilled vreg
//! gets a stack slot (`FrameKind::Spill`, 4 bytes); every instruction that reads it is
//! preceded by a load into a fresh temporary, every instruction that writes it is followed by
//! a store of a fresh temporary. An instruction that both reads and writes it (tied operands,
//! `GUARDED` partial definitions, `x = x + 1`) uses one temporary for both. The temporaries
//! live from the load to the use or from the definition to the store, so the allocator gives
//! them infinite spill cost.
//!
//! Spill operations (SP-relative, immediate `Imm::Frame { idx: slot }`, resolved by
//! `regalloc::frame`): ST231 `ldw`/`stw` for `$r`; ST120 `LDW+i`/`SDW+i` for `R` and
//! `LAW+i`/`SAW+i` for `P`. ST231 `$b` and ST120 guards have no spill code (the allocator
//! never spills them).
//!
//! ASSUMPTION (isa.md §B1, §B4 "40-bit data"): an ST120 data register is spilled as a 32-bit
//! word. `LDW` sign-extends bit 31 into the guard bits, so the reload is exact for every value
//! in canonical 32-bit form (results of 32-bit-typed operations, word loads, MAKE/MORE,
//! COPYD) — C `int` values; a `..U`-operation result with bit 31 set (guard bits 0) or a
//! multiply-accumulate result beyond 32 bits comes back with its guard bits replaced by the
//! sign of bit 31. The low 32 bits — the C value — are always preserved; instruction
//! selection must not read the guard bits of a C value (it does not need to: C arithmetic
//! is 32-bit).
//!
//! Complexity: O(instructions + operands) per rewrite.

use crate::mir::{
    target, BlockId, FrameIdx, FrameKind, Function, Imm, Inst, InstFlags, Opc, Operand, Pin, Reg,
    RegClass, VReg,
};
use simulator::isa::{st120, st231, Target};

/// Counts of one or more rewrites.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpillStats {
    pub spilled_vregs: u64,
    pub loads: u64,
    pub stores: u64,
    pub weighted_loads: u64,
    pub weighted_stores: u64,
}

impl SpillStats {
    pub fn add(&mut self, o: &SpillStats) {
        self.spilled_vregs += o.spilled_vregs;
        self.loads += o.loads;
        self.stores += o.stores;
        self.weighted_loads = self.weighted_loads.saturating_add(o.weighted_loads);
        self.weighted_stores = self.weighted_stores.saturating_add(o.weighted_stores);
    }
}

/// Whether values of class `c` can be spilled on target `t`.
pub fn can_spill(t: Target, c: RegClass) -> bool {
    matches!(
        (t, c),
        (Target::St231, RegClass::R) | (Target::St120, RegClass::R | RegClass::P)
    )
}

/// A new spill slot for `v`.
pub fn new_slot(f: &mut Function, v: VReg) -> FrameIdx {
    let size = target::spill_size(f.target, f.class_of(v));
    f.new_frame_object(size, size, FrameKind::Spill, &format!("spill %{}", v.0))
}

/// The spill load `dst = slot`.
pub fn spill_load(t: Target, c: RegClass, dst: VReg, slot: FrameIdx) -> Result<Inst, String> {
    let sp = Operand::new(target::stack_pointer(t));
    let imm = Imm::Frame {
        idx: slot,
        offset: 0,
    };
    let opc = match (t, c) {
        (Target::St231, RegClass::R) => Opc::St231(st231::Opcode::Ldw),
        (Target::St120, RegClass::R) => Opc::St120(st120::Opcode::Load(
            st120::LoadKind::W,
            st120::AddrMode::PlusImm,
        )),
        (Target::St120, RegClass::P) => Opc::St120(st120::Opcode::Load(
            st120::LoadKind::Aw,
            st120::AddrMode::PlusImm,
        )),
        _ => return Err(format!("regalloc: no spill code for class {c:?} on {t}")),
    };
    Ok(Inst::new(opc, vec![Operand::new(dst)], vec![sp], imm).with_flags(InstFlags::SPILL_LOAD))
}

/// The spill store `slot = src`.
pub fn spill_store(t: Target, c: RegClass, src: VReg, slot: FrameIdx) -> Result<Inst, String> {
    let sp = Operand::new(target::stack_pointer(t));
    let imm = Imm::Frame {
        idx: slot,
        offset: 0,
    };
    let opc = match (t, c) {
        (Target::St231, RegClass::R) => Opc::St231(st231::Opcode::Stw),
        (Target::St120, RegClass::R) => Opc::St120(st120::Opcode::Store(
            st120::StoreKind::W,
            st120::AddrMode::PlusImm,
        )),
        (Target::St120, RegClass::P) => Opc::St120(st120::Opcode::Store(
            st120::StoreKind::Aw,
            st120::AddrMode::PlusImm,
        )),
        _ => return Err(format!("regalloc: no spill code for class {c:?} on {t}")),
    };
    Ok(Inst::new(opc, vec![], vec![sp, Operand::new(src)], imm).with_flags(InstFlags::SPILL_STORE))
}

/// Rewrites `f` so that every vreg with `slot_of[v] = Some(slot)` lives in its slot between
/// instructions. New temporaries are marked in `is_temp` (grown to the new vreg count).
pub fn insert_spill_code(
    f: &mut Function,
    slot_of: &[Option<FrameIdx>],
    weights: &[u64],
    is_temp: &mut Vec<bool>,
) -> Result<SpillStats, String> {
    let t = f.target;
    let mut stats = SpillStats::default();
    let slot = |v: VReg| slot_of.get(v.index()).copied().flatten();
    for b in 0..f.blocks.len() {
        let w = weights.get(b).copied().unwrap_or(1);
        let old = std::mem::take(&mut f.blocks[b].insts);
        let mut out = Vec::with_capacity(old.len());
        // (spilled vreg, temporary) pairs of the current instruction
        let mut renames: Vec<(VReg, VReg)> = Vec::new();
        for mut inst in old {
            renames.clear();
            let guarded = inst.flags.contains(InstFlags::GUARDED);
            let mut reads: Vec<VReg> = Vec::new();
            let mut writes: Vec<VReg> = Vec::new();
            for v in inst.use_vregs() {
                if slot(v).is_some() && !reads.contains(&v) {
                    reads.push(v);
                }
            }
            for v in inst.def_vregs() {
                if slot(v).is_some() {
                    if guarded && !reads.contains(&v) {
                        reads.push(v);
                    }
                    if !writes.contains(&v) {
                        writes.push(v);
                    }
                }
            }
            if reads.is_empty() && writes.is_empty() {
                out.push(inst);
                continue;
            }
            for &v in reads.iter().chain(&writes) {
                if renames.iter().any(|&(s, _)| s == v) {
                    continue;
                }
                let c = f.class_of(v);
                let tmp = f.new_vreg(c);
                is_temp.resize(f.vregs.len(), false);
                is_temp[tmp.index()] = true;
                renames.push((v, tmp));
            }
            let temp_of = |v: VReg| renames.iter().find(|&&(s, _)| s == v).map(|&(_, t)| t);
            for &v in &reads {
                let tmp = temp_of(v).expect("renamed");
                out.push(spill_load(
                    t,
                    f.class_of(v),
                    tmp,
                    slot(v).expect("spilled"),
                )?);
                stats.loads += 1;
                stats.weighted_loads = stats.weighted_loads.saturating_add(w);
            }
            for o in inst.defs.iter_mut().chain(inst.uses.iter_mut()) {
                if let Reg::V(v) = o.reg {
                    if let Some(tmp) = temp_of(v) {
                        o.reg = Reg::V(tmp);
                    }
                }
                if let Some(Pin::Var(v)) = o.pin {
                    if let Some(tmp) = temp_of(v) {
                        o.pin = Some(Pin::Var(tmp));
                    }
                }
            }
            out.push(inst);
            for &v in &writes {
                let tmp = temp_of(v).expect("renamed");
                out.push(spill_store(
                    t,
                    f.class_of(v),
                    tmp,
                    slot(v).expect("spilled"),
                )?);
                stats.stores += 1;
                stats.weighted_stores = stats.weighted_stores.saturating_add(w);
            }
        }
        f.blocks[b].insts = out;
    }
    let _ = BlockId(0);
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use simulator::isa::st120::semantics::{load_r, store_bits};

    /// The 40-bit ST120 reload (ASSUMPTION above): exact for canonical 32-bit values, keeps
    /// the low 32 bits of every value.
    #[test]
    fn st120_word_spill_round_trip() {
        let canon = |x: i64| i64::from(x as i32);
        for v in [0i64, 1, -1, 0x7FFF_FFFF, -0x8000_0000, 12345, -98765] {
            let c = canon(v);
            let back = load_r(st120::LoadKind::W, store_bits(st120::StoreKind::W, c));
            assert_eq!(back, c, "{v:#x}");
        }
        // A zero-extended unsigned value with bit 31 set: same low 32 bits, guard bits now
        // the sign of bit 31.
        let u = 0x8000_0000i64;
        let back = load_r(st120::LoadKind::W, store_bits(st120::StoreKind::W, u));
        assert_eq!(back & 0xFFFF_FFFF, u);
        assert_ne!(back, u);
    }

    #[test]
    fn spill_code_shapes() {
        let mut f = Function::new("f", Target::St120);
        let r = f.new_vreg(RegClass::R);
        let p = f.new_vreg(RegClass::P);
        let s = new_slot(&mut f, r);
        let l = spill_load(Target::St120, RegClass::R, r, s).unwrap();
        assert_eq!(l.uses[0].reg, Reg::P(target::stack_pointer(Target::St120)));
        assert!(l.flags.contains(InstFlags::SPILL_LOAD));
        let st = spill_store(Target::St120, RegClass::P, p, s).unwrap();
        assert_eq!(st.uses.len(), 2);
        assert!(st.flags.contains(InstFlags::SPILL_STORE));
        assert!(spill_load(Target::St120, RegClass::G, r, s).is_err());
        assert!(!can_spill(Target::St231, RegClass::B));
    }
}
