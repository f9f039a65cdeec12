//! The DSP intrinsics of `programs/include/ssalab.h` mapped to ST120 operations
//! (isa.md §B4 "Packed 16-bit", "MAC"). Each mapping has exactly the semantics of the plain-C
//! definition in the header (tested on edge values against those definitions):
//!
//! | intrinsic | operations |
//! |---|---|
//! | `__st_addp(a,b)` / `__st_subp(a,b)` | `ADDP` / `SUBP` (lanes modulo 2^16, bit 31 sign-extended) |
//! | `__st_mpy(a,b)` / `__st_mpyhh(a,b)` | `MPSSLL` / `MPSSHH` (exact, |p| <= 2^30) |
//! | `__st_mac(c,a,b)` / `__st_msu` / `__st_machh` | `MASSLL` / `MSSSLL` / `MASSHH` `d, c, a, b` + `EXTW` (modulo 2^32; the accumulator is a separate input, not tied) |
//! | `__st_pack(hi,lo)` | `SHL.i t, hi, 16`; `EXTUH u, lo`; `OR d, t, u` |
//! | `__st_lo(x)` / `__st_hi(x)` | `EXTH` / `SHRW.i x, 16` |
//! | `__st_sext16(h)` | `EXTH` when `h` is known to be in `0..=0xffff`; else `h - ((h >>u 15 != 0) << 16)` |
//!
//! O(1) per call.

use super::{Selector, Site};
use crate::ir::{BinOp, MemTy, Op, UnOp, Value};
use crate::isel::IselError;
use crate::mir::{Imm, RegClass, VReg};
use simulator::isa::st120::{
    BinOp as MB, CmpCond, CmpKind, MulFamily, MulVariant, Opcode as O, UnOp as MU,
};

use super::arith::Half;

/// Intrinsic names and their argument counts.
pub const INTRINSICS: [(&str, usize); 11] = [
    ("__st_addp", 2),
    ("__st_subp", 2),
    ("__st_mpy", 2),
    ("__st_mpyhh", 2),
    ("__st_mac", 3),
    ("__st_msu", 3),
    ("__st_machh", 3),
    ("__st_pack", 2),
    ("__st_lo", 1),
    ("__st_hi", 1),
    ("__st_sext16", 1),
];

fn is_intrinsic(name: &str, nargs: usize) -> bool {
    INTRINSICS.iter().any(|&(n, k)| n == name && k == nargs)
}

/// The 16-bit half an intrinsic's result is known to fit.
pub(crate) fn result_half(_s: &Selector<'_>, callee: &str, nargs: usize) -> Option<Half> {
    (is_intrinsic(callee, nargs) && matches!(callee, "__st_lo" | "__st_hi")).then_some(Half::Signed)
}

/// Whether `v` is known to lie in `0..=0xffff`.
fn fits_u16(s: &Selector<'_>, v: Value) -> bool {
    let v = s.resolve(v);
    let in_u16 = |k: i32| (0..=0xFFFF).contains(&k);
    match s.def_op(v) {
        Some(Op::Const(k)) => in_u16(*k),
        Some(Op::Load { ty, .. }) => matches!(ty, MemTy::U8 | MemTy::U16),
        Some(Op::Un(UnOp::Zext8 | UnOp::Zext16, _)) => true,
        Some(Op::Bin(BinOp::And, x, y)) => {
            s.const_of(*y).is_some_and(in_u16) || s.const_of(*x).is_some_and(in_u16)
        }
        Some(Op::Bin(BinOp::ShrU, _, n)) => s.const_of(*n).is_some_and(|n| n & 31 >= 16),
        _ => false,
    }
}

fn mac(family: MulFamily, high: bool) -> O {
    O::Mul(family, MulVariant::new(false, false, high, high))
}

/// Selects `callee(args)` as operations if it is an intrinsic; `Ok(false)` otherwise.
pub(crate) fn select(
    s: &mut Selector<'_>,
    dst: Option<Value>,
    callee: &str,
    args: &[Value],
) -> Result<bool, IselError> {
    if !is_intrinsic(callee, args.len()) {
        return Ok(false);
    }
    s.stats.intrinsics += 1;
    let Some(d) = dst else {
        return Ok(true); // pure: nothing to do without a result
    };
    let mut a = Vec::with_capacity(args.len());
    for &v in args {
        a.push(s.get(v, RegClass::R)?);
    }
    let r = match callee {
        "__st_addp" => s.emit_here(O::Bin(MB::Addp), RegClass::R, &a, Imm::None),
        "__st_subp" => s.emit_here(O::Bin(MB::Subp), RegClass::R, &a, Imm::None),
        "__st_mpy" => s.emit_here(mac(MulFamily::Mp, false), RegClass::R, &a, Imm::None),
        "__st_mpyhh" => s.emit_here(mac(MulFamily::Mp, true), RegClass::R, &a, Imm::None),
        "__st_mac" | "__st_msu" | "__st_machh" => {
            let o = match callee {
                "__st_mac" => mac(MulFamily::Ma, false),
                "__st_msu" => mac(MulFamily::Ms, false),
                _ => mac(MulFamily::Ma, true),
            };
            let t = s.emit_here(o, RegClass::R, &a, Imm::None);
            s.extw(t)
        }
        "__st_pack" => {
            let t = s.emit_here(O::BinI(MB::Shl), RegClass::R, &a[..1], Imm::Int(16));
            let u = s.emit_here(O::Un(MU::Extuh), RegClass::R, &a[1..], Imm::None);
            s.emit_here(O::Bin(MB::Or), RegClass::R, &[t, u], Imm::None)
        }
        "__st_lo" => s.emit_here(O::Un(MU::Exth), RegClass::R, &a, Imm::None),
        "__st_hi" => s.emit_here(O::BinI(MB::Shrw), RegClass::R, &a, Imm::Int(16)),
        _ => sext16(s, args[0], a[0]),
    };
    s.define_here(d, RegClass::R, r);
    Ok(true)
}

/// `__st_sext16(h)`: `h >= 0x8000u ? (int)h - 0x10000 : (int)h`.
fn sext16(s: &mut Selector<'_>, h: Value, hr: VReg) -> VReg {
    if fits_u16(s, h) {
        return s.emit_here(O::Un(MU::Exth), RegClass::R, &[hr], Imm::None);
    }
    let at: Site = s.here();
    let t = s.emit_def(at, O::BinI(MB::Shruw), RegClass::R, &[hr], Imm::Int(15));
    let g = s.emit_def(
        at,
        O::CmpI(CmpKind::W, CmpCond::Ne),
        RegClass::G,
        &[t],
        Imm::Int(0),
    );
    let b = s.emit_def(at, O::Bool, RegClass::R, &[g], Imm::None);
    let k = s.emit_def(at, O::BinI(MB::Shl), RegClass::R, &[b], Imm::Int(16));
    s.emit_def(at, O::Bin(MB::Sub), RegClass::R, &[hr, k], Imm::None)
}

#[cfg(test)]
mod tests {
    use simulator::isa::st120::semantics::{bin, bool_value, compare, mul, un};
    use simulator::isa::st120::{BinOp as MB, CmpCond, CmpKind, MulFamily, MulVariant, UnOp as MU};

    // The plain-C definitions of ssalab.h, transcribed.
    fn c_sext16(h: u32) -> i32 {
        if h >= 0x8000 {
            (h as i32).wrapping_sub(0x10000)
        } else {
            h as i32
        }
    }
    fn c_lo(x: i32) -> i32 {
        c_sext16(x as u32 & 0xffff)
    }
    fn c_hi(x: i32) -> i32 {
        c_sext16((x as u32 >> 16) & 0xffff)
    }
    fn c_pack(hi: i32, lo: i32) -> i32 {
        (((hi as u32 & 0xffff) << 16) | (lo as u32 & 0xffff)) as i32
    }
    fn c_addp(a: i32, b: i32) -> i32 {
        let (ua, ub) = (a as u32, b as u32);
        let lo = ua.wrapping_add(ub) & 0xffff;
        let hi = ((ua >> 16).wrapping_add(ub >> 16)) & 0xffff;
        ((hi << 16) | lo) as i32
    }
    fn c_subp(a: i32, b: i32) -> i32 {
        let (ua, ub) = (a as u32, b as u32);
        let lo = ua.wrapping_sub(ub) & 0xffff;
        let hi = ((ua >> 16).wrapping_sub(ub >> 16)) & 0xffff;
        ((hi << 16) | lo) as i32
    }
    fn c_mpy(a: i32, b: i32) -> i32 {
        c_lo(a) * c_lo(b)
    }
    fn c_mpyhh(a: i32, b: i32) -> i32 {
        c_hi(a) * c_hi(b)
    }

    const EDGES: [i32; 14] = [
        0,
        1,
        -1,
        0x7FFF,
        0x8000,
        -0x8000,
        0xFFFF,
        0x10000,
        0x1_8000,
        0x7FFF_FFFF,
        i32::MIN,
        0x1234_5678,
        -0x1234_5678,
        0x8000_8000u32 as i32,
    ];

    fn v(high: bool) -> MulVariant {
        MulVariant::new(false, false, high, high)
    }

    #[test]
    fn operations_match_the_c_definitions() {
        for &a in &EDGES {
            let x = i64::from(a);
            assert_eq!(un(MU::Exth, x), i64::from(c_lo(a)), "lo {a}");
            assert_eq!(bin(MB::Shrw, x, 16), i64::from(c_hi(a)), "hi {a}");
            // __st_sext16, general sequence.
            let t = bin(MB::Shruw, x, 15);
            let g = compare(CmpKind::W, CmpCond::Ne, t, 0);
            let k = bin(MB::Shl, bool_value(g), 16);
            assert_eq!(
                bin(MB::Sub, x, k),
                i64::from(c_sext16(a as u32)),
                "sext16 {a}"
            );
            for &b in &EDGES {
                let y = i64::from(b);
                assert_eq!(bin(MB::Addp, x, y), i64::from(c_addp(a, b)));
                assert_eq!(bin(MB::Subp, x, y), i64::from(c_subp(a, b)));
                assert_eq!(
                    mul(MulFamily::Mp, v(false), 0, x, y),
                    i64::from(c_mpy(a, b))
                );
                assert_eq!(
                    mul(MulFamily::Mp, v(true), 0, x, y),
                    i64::from(c_mpyhh(a, b))
                );
                let pack = bin(MB::Or, bin(MB::Shl, x, 16), un(MU::Extuh, y));
                assert_eq!(pack, i64::from(c_pack(a, b)), "pack {a} {b}");
                for &c in &EDGES {
                    let acc = i64::from(c);
                    let mac = un(MU::Extw, mul(MulFamily::Ma, v(false), acc, x, y));
                    assert_eq!(mac, i64::from(c.wrapping_add(c_mpy(a, b))));
                    let msu = un(MU::Extw, mul(MulFamily::Ms, v(false), acc, x, y));
                    assert_eq!(msu, i64::from(c.wrapping_sub(c_mpy(a, b))));
                    let machh = un(MU::Extw, mul(MulFamily::Ma, v(true), acc, x, y));
                    assert_eq!(machh, i64::from(c.wrapping_add(c_mpyhh(a, b))));
                }
            }
        }
    }
}
