//! Constants and addresses (isa.md §B4 "Constants"; Rastello et al. 2004 Fig. 2 S5–S6).
//!
//! * a 32-bit constant that fits `s16` is one `MAKE` (`MAKEA` in the AU); otherwise
//!   `MAKE t, hi16` then `MORE d = t^d, lo16` — `MORE` is a 2-operand form, so its input is
//!   a use pinned to its own definition (`Pin::Var(d)`), exactly the pinning of Fig. 2;
//! * a symbol address is `MAKEA hi(@sym)` + `MOREA lo(@sym)` (`Imm::Sym` with `Hi16`/`Lo16`,
//!   resolved by the linker);
//! * a stack-slot address is `ADDBA.i %p = P15, fN` (`Imm::Frame`, a byte offset the frame
//!   pass resolves);
//! * `pointer + constant` is one `ADDxA.i`/`SUBxA.i` when the constant, divided by the
//!   largest scale (4, 2, 1) that divides it, fits `u9`; else the constant is built in a P
//!   register and added with `ADDBA`.
//!
//! All O(1).

use super::{Selector, Site};
use crate::ir::SlotId;
use crate::mir::{Imm, Operand, RegClass, SymPart, VReg};
use simulator::isa::st120::{AuOp, Opcode as O};

/// Whether `k` fits the signed 16-bit immediate of `MAKE`/`MAKEA`.
pub(crate) fn fits_s16(k: i64) -> bool {
    (-32768..=32767).contains(&k)
}

/// The `(MAKE, MORE)` immediates of a 32-bit constant: `(hi as s16, lo as u16)`.
pub(crate) fn split_hi_lo(k: i32) -> (i32, i32) {
    (k >> 16, k & 0xFFFF)
}

/// The AU operation and immediate that add `k` bytes with one operation, if any.
pub(crate) fn au_imm_form(k: i64) -> Option<(AuOp, i32)> {
    let (abs, sub) = (k.abs(), k < 0);
    for (scale, add, subop) in [
        (4, AuOp::AddW, AuOp::SubW),
        (2, AuOp::AddH, AuOp::SubH),
        (1, AuOp::AddB, AuOp::SubB),
    ] {
        if abs % scale == 0 && abs / scale <= 511 {
            return Some((if sub { subop } else { add }, (abs / scale) as i32));
        }
    }
    None
}

impl Selector<'_> {
    /// Materialises the constant `k` in a register of class `c` at `at`.
    pub(crate) fn const_into(&mut self, at: Site, c: RegClass, k: i32) -> VReg {
        let (make, more) = match c {
            RegClass::P => (O::MakeA, O::MoreA),
            _ => (O::Make, O::More),
        };
        if fits_s16(i64::from(k)) {
            return self.emit_def(at, make, c, &[], Imm::Int(k));
        }
        let (hi, lo) = split_hi_lo(k);
        let t = self.emit_def(at, make, c, &[], Imm::Int(hi));
        self.emit_tied(at, more, c, t, Imm::Int(lo))
    }

    /// Materialises the address `@name + off` in a register of class `c`.
    pub(crate) fn sym_into(&mut self, at: Site, c: RegClass, name: &str, off: i32) -> VReg {
        let (make, more) = match c {
            RegClass::P => (O::MakeA, O::MoreA),
            _ => (O::Make, O::More),
        };
        let sym = |part| Imm::Sym {
            name: name.to_string(),
            offset: off,
            part,
        };
        let t = self.emit_def(at, make, c, &[], sym(SymPart::Hi16));
        self.emit_tied(at, more, c, t, sym(SymPart::Lo16))
    }

    /// The address of stack slot `s`: `ADDBA.i %p = P15, fN`.
    pub(crate) fn slot_addr(&mut self, at: Site, s: SlotId) -> VReg {
        let idx = self.slot_frame[s.index()];
        let d = self.mf.new_vreg(RegClass::P);
        self.put(
            at,
            super::op(
                O::AuI(AuOp::AddB),
                vec![Operand::new(d)],
                vec![Operand::new(Self::sp())],
                Imm::Frame { idx, offset: 0 },
            ),
        );
        d
    }

    /// `base + k` bytes in the AU.
    pub(crate) fn au_add_imm(&mut self, at: Site, base: VReg, k: i32) -> VReg {
        match au_imm_form(i64::from(k)) {
            Some((o, imm)) => self.emit_def(at, O::AuI(o), RegClass::P, &[base], Imm::Int(imm)),
            None => {
                let t = self.const_into(at, RegClass::P, k);
                self.emit_def(at, O::Au(AuOp::AddB), RegClass::P, &[base, t], Imm::None)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simulator::isa::st120::semantics::{au, make, make_a, more, more_a};

    #[test]
    fn make_more_builds_every_edge_constant() {
        for k in [
            0,
            1,
            -1,
            32767,
            -32768,
            32768,
            -32769,
            65535,
            65536,
            0x00A1_2BFA,
            i32::MAX,
            i32::MIN,
            -65536,
            0x7FFF_0000,
        ] {
            let v = if fits_s16(i64::from(k)) {
                make(k)
            } else {
                let (hi, lo) = split_hi_lo(k);
                assert!(fits_s16(i64::from(hi)) && (0..=0xFFFF).contains(&lo));
                more(make(hi), lo)
            };
            assert_eq!(v, i64::from(k), "{k:#x}");
            let p = if fits_s16(i64::from(k)) {
                make_a(k)
            } else {
                let (hi, lo) = split_hi_lo(k);
                more_a(make_a(hi), lo)
            };
            assert_eq!(p, k as u32, "{k:#x}");
        }
    }

    #[test]
    fn au_immediates_are_scaled_and_in_range() {
        for k in [
            0i64, 1, 3, 4, 8, 511, 512, 1022, 1024, 2044, 2048, -4, -2044, -511, -513,
        ] {
            match au_imm_form(k) {
                Some((o, imm)) => {
                    assert!((0..=511).contains(&imm));
                    assert_eq!(au(o, 0x10000, imm as u32), (0x10000 + k) as u32, "{k}");
                }
                None => assert!([1, 2, 4]
                    .iter()
                    .all(|s| k.abs() % s != 0 || k.abs() / s > 511)),
            }
        }
        assert!(au_imm_form(2048).is_none());
    }
}
