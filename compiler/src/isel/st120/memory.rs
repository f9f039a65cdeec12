//! Loads and stores (isa.md §B4 "Addressing", §B6 "Load/store").
//!
//! * widths: `LDB/LDUB/LDH/LDUH/LDW` into R (sign- or zero-extended, so canonical),
//!   `SDB/SDH/SDW` from R; values of IR type `ptr` are loaded and stored with `LAW`/`SAW`;
//! * addressing: `@(P + u9)` / `@(P - u9)` where the immediate is the byte offset divided by
//!   the access size (it is stored as written in assembly); only offsets that are multiples
//!   of the access size and in range fold, else the address is computed in the AU;
//!   stack-slot addresses fold into `@(P15 + fN+off)` (`Imm::Frame`, a byte offset the frame
//!   pass scales) when the slot is aligned for the access;
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

/// A resolved address: base register (or SP with a frame object), mode and immediate.
enum Addr {
    Reg {
        base: VReg,
        mode: AddrMode,
        imm: i32,
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
            let (base, mode, imm) = match self.address(addr, ty.size())? {
                Addr::Reg { base, mode, imm } => (Operand::new(base), mode, Imm::Int(imm)),
                Addr::Frame { idx, offset } => (
                    Operand::new(Self::sp()),
                    AddrMode::PlusImm,
                    Imm::Frame { idx, offset },
                ),
            };
            let at = self.here();
            self.put(
                at,
                super::op(O::Load(kind, mode), vec![Operand::new(d)], vec![base], imm),
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
        let (base, mode, imm) = match self.address(addr, ty.size())? {
            Addr::Reg { base, mode, imm } => (Operand::new(base), mode, Imm::Int(imm)),
            Addr::Frame { idx, offset } => (
                Operand::new(Self::sp()),
                AddrMode::PlusImm,
                Imm::Frame { idx, offset },
            ),
        };
        let at = self.here();
        self.put(
            at,
            super::op(
                O::Store(kind, mode),
                vec![],
                vec![base, Operand::new(val)],
                imm,
            ),
        );
        Ok(())
    }
}
