//! Loads and stores (isa.md §B4 "Addressing", §B6 "Load/store").
//!
//! * widths: `LDB/LDUB/LDH/LDUH/LDW` into R (sign- or zero-extended, so canonical),
//!   `SDB/SDH/SDW` from R; values of IR type `ptr` are loaded and stored with `LAW`/`SAW`;
//! * addressing: `@(P + u9)` / `@(P - u9)` where the immediate is the byte offset divided by
//!   the access size (it is stored as written in assembly; ASSUMPTION isa.md §B4: store
//!   offsets are scaled like load offsets); only offsets that are multiples
//!   of the access size and in range fold, else the address is computed in the AU;
//!   stack-slot addresses fold into `@(P15 + fN+off)` (`Imm::Frame`, a byte offset the frame
//!   pass scales) when the slot is aligned for the access;
//! * register offsets: a single-use `p + (x << log2 size)` address becomes `@(P + Pq)` with
//!   `Pq = x` (ASSUMPTION, simulator semantics: register offsets are scaled by the access
//!   size too; for bytes any index);
//! * post-modify: an access planned by [`super::postinc`] becomes `@(P1 !+ k)` /
//!   `@(P1 !- k)`, defining the incremented pointer with its base use tied to it
//!   (`%p2 = ... %p1^%p2`, Rastello et al. 2004 Fig. 2 S1).
//!
//! O(1) per access (the offset chain walk is capped).

use super::{Selector, CHAIN_CAP};
use crate::ir::{self, MemTy, Op, Ty, Value};
use crate::isel::IselError;
use crate::mir::{FrameIdx, Imm, Operand, Pin, RegClass, VReg};
use simulator::isa::st120::{AddrMode, LoadKind, Opcode as O, StoreKind};
use std::collections::HashMap;

/// Finds the `p + idx` values that fold into a register-offset access (see
/// [`Selector::reg_addr`]). O(instructions).
pub(crate) fn plan_reg_offsets(s: &Selector<'_>) -> HashMap<Value, (Value, Value, u32)> {
    let f = s.f;
    let mut out = HashMap::new();
    for b in f.block_ids() {
        for (i, inst) in f.block(b).insts.iter().enumerate() {
            let (addr, size) = match &inst.op {
                Op::Load { ty, addr, .. } | Op::Store { ty, addr, .. } => (*addr, ty.size()),
                _ => continue,
            };
            if s.postinc.accesses.contains_key(&(b, i)) || s.uses_of_value(addr) != 1 {
                continue;
            }
            let Some(Op::Bin(ir::BinOp::Add, x, y)) = s.def_op(addr) else {
                continue;
            };
            let (p, idx) = match (s.ty(*x), s.ty(*y)) {
                (Ty::Ptr, Ty::I32) => (*x, *y),
                (Ty::I32, Ty::Ptr) => (*y, *x),
                _ => continue,
            };
            if s.ty(addr) != Ty::Ptr || s.const_of(idx).is_some() {
                continue;
            }
            let scaled = match s.def_op(s.resolve(idx)) {
                Some(Op::Bin(ir::BinOp::Shl, v, k))
                    if s.const_of(*k) == Some(size.trailing_zeros() as i32) && size > 1 =>
                {
                    Some(*v)
                }
                _ => None,
            };
            let off = match (scaled, size) {
                (Some(v), _) => v,
                (None, 1) => idx,
                _ => continue,
            };
            out.insert(addr, (p, off, size));
        }
    }
    out
}

/// A resolved address: base register (or SP with a frame object), mode and immediate.
enum Addr {
    Reg {
        base: VReg,
        mode: AddrMode,
        imm: i32,
    },
    RegOffset {
        base: VReg,
        off: VReg,
    },
    Frame {
        idx: FrameIdx,
        offset: i32,
    },
}

fn load_kind(ty: MemTy, ptr: bool) -> LoadKind {
    match (ty, ptr) {
        (MemTy::I32, true) => LoadKind::Aw,
        (MemTy::I8, _) => LoadKind::B,
        (MemTy::U8, _) => LoadKind::Ub,
        (MemTy::I16, _) => LoadKind::H,
        (MemTy::U16, _) => LoadKind::Uh,
        (MemTy::I32, _) => LoadKind::W,
    }
}

fn store_kind(ty: MemTy, ptr: bool) -> StoreKind {
    match (ty, ptr) {
        (MemTy::I32, true) => StoreKind::Aw,
        (MemTy::I8 | MemTy::U8, _) => StoreKind::B,
        (MemTy::I16 | MemTy::U16, _) => StoreKind::H,
        (MemTy::I32, _) => StoreKind::W,
    }
}

impl Selector<'_> {
    /// Decomposes `addr` into `root + k` over lazy `pointer ± constant` links.
    fn addr_chain(&self, addr: Value) -> (Value, i64) {
        let (mut v, mut k) = (self.resolve(addr), 0i64);
        for _ in 0..CHAIN_CAP {
            match self.addr_imm(v) {
                Some((b, c)) => {
                    k += i64::from(c);
                    v = self.resolve(b);
                }
                None => break,
            }
        }
        (v, k)
    }

    /// The addressing of an access of `size` bytes at `addr`.
    fn address(&mut self, addr: Value, size: u32) -> Result<Addr, IselError> {
        if let Some(&(p, x, planned)) = self.reg_addr.get(&self.resolve(addr)) {
            if planned == size {
                let base = self.get(p, RegClass::P)?;
                let off = self.get(x, RegClass::P)?;
                return Ok(Addr::RegOffset { base, off });
            }
        }
        let sz = i64::from(size);
        let (root, k) = self.addr_chain(addr);
        if let Some(Op::SlotAddr(s)) = self.def_op(root) {
            let slot = &self.f.slots[s.index()];
            if k >= 0 && k % sz == 0 && slot.align >= size && k <= i64::from(i32::MAX) {
                return Ok(Addr::Frame {
                    idx: self.slot_frame[s.index()],
                    offset: k as i32,
                });
            }
        }
        if k % sz == 0 && (-511..=511).contains(&(k / sz)) {
            let base = self.get(root, RegClass::P)?;
            let (mode, imm) = if k >= 0 {
                (AddrMode::PlusImm, k / sz)
            } else {
                (AddrMode::MinusImm, -k / sz)
            };
            return Ok(Addr::Reg {
                base,
                mode,
                imm: imm as i32,
            });
        }
        Ok(Addr::Reg {
            base: self.get(addr, RegClass::P)?,
            mode: AddrMode::PlusImm,
            imm: 0,
        })
    }

    /// Base (and offset register) operands, mode and immediate of an access.
    fn address_operands(
        &mut self,
        addr: Value,
        size: u32,
    ) -> Result<(Vec<Operand>, AddrMode, Imm), IselError> {
        Ok(match self.address(addr, size)? {
            Addr::Reg { base, mode, imm } => (vec![Operand::new(base)], mode, Imm::Int(imm)),
            Addr::RegOffset { base, off } => (
                vec![Operand::new(base), Operand::new(off)],
                AddrMode::PlusReg,
                Imm::None,
            ),
            Addr::Frame { idx, offset } => (
                vec![Operand::new(Self::sp())],
                AddrMode::PlusImm,
                Imm::Frame { idx, offset },
            ),
        })
    }

    /// The post-modify plan of the access at `(b, i)`: base, new pointer, mode and `k`.
    fn post_modify(
        &mut self,
        b: ir::BlockId,
        i: usize,
        addr: Value,
        size: u32,
    ) -> Result<Option<(VReg, Value, AddrMode, i32)>, IselError> {
        let Some(&(p2, c)) = self.postinc.accesses.get(&(b, i)) else {
            return Ok(None);
        };
        let base = self.get(addr, RegClass::P)?;
        let k = c / size as i32;
        let mode = if k > 0 {
            AddrMode::PostIncImm
        } else {
            AddrMode::PostDecImm
        };
        self.stats.post_increments += 1;
        Ok(Some((base, p2, mode, k.abs())))
    }

    pub(crate) fn select_load(
        &mut self,
        b: ir::BlockId,
        i: usize,
        dst: Option<Value>,
        ty: MemTy,
        addr: Value,
    ) -> Result<(), IselError> {
        let ptr = dst.is_some_and(|d| self.ty(d) == Ty::Ptr) && ty == MemTy::I32;
        let kind = load_kind(ty, ptr);
        let class = if ptr { RegClass::P } else { RegClass::R };
        let d = self.mf.new_vreg(class);
        if let Some((base, p2, mode, k)) = self.post_modify(b, i, addr, ty.size())? {
            let np = self.mf.new_vreg(RegClass::P);
            let at = self.here();
            self.put(
                at,
                super::op(
                    O::Load(kind, mode),
                    vec![Operand::new(d), Operand::new(np)],
                    vec![Operand::pinned(base, Pin::Var(np))],
                    Imm::Int(k),
                ),
            );
            self.define_here(p2, RegClass::P, np);
        } else {
            let (uses, mode, imm) = self.address_operands(addr, ty.size())?;
            let at = self.here();
            self.put(
                at,
                super::op(O::Load(kind, mode), vec![Operand::new(d)], uses, imm),
            );
        }
        if let Some(v) = dst {
            self.define_here(v, class, d);
        }
        Ok(())
    }

    pub(crate) fn select_store(
        &mut self,
        b: ir::BlockId,
        i: usize,
        ty: MemTy,
        addr: Value,
        value: Value,
    ) -> Result<(), IselError> {
        let ptr = self.ty(value) == Ty::Ptr && ty == MemTy::I32;
        let kind = store_kind(ty, ptr);
        let class = if ptr { RegClass::P } else { RegClass::R };
        let val = self.get(value, class)?;
        if let Some((base, p2, mode, k)) = self.post_modify(b, i, addr, ty.size())? {
            let np = self.mf.new_vreg(RegClass::P);
            let at = self.here();
            self.put(
                at,
                super::op(
                    O::Store(kind, mode),
                    vec![Operand::new(np)],
                    vec![Operand::pinned(base, Pin::Var(np)), Operand::new(val)],
                    Imm::Int(k),
                ),
            );
            self.define_here(p2, RegClass::P, np);
            return Ok(());
        }
        let (mut uses, mode, imm) = self.address_operands(addr, ty.size())?;
        uses.push(Operand::new(val));
        let at = self.here();
        self.put(at, super::op(O::Store(kind, mode), vec![], uses, imm));
        Ok(())
    }
}
