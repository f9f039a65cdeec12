//! Division and remainder by a constant without a call: powers of two with shifts (signed:
//! the rounding-toward-zero bias), other divisors by multiplying with a "magic" reciprocal
//! and keeping the high word (`mul64h`/`mul64hu`, isa.md §A7), after Granlund & Montgomery,
//! "Division by invariant integers using multiplication" (PLDI 1994), §4–5.
//!
//! The reciprocal: for a divisor `d` and a shift `p >= 32`, `m = ceil(2^p / d)` and
//! `e = m*d - 2^p`. If `N * e < 2^p`, where `N` bounds the dividend's magnitude (2^31 signed,
//! 2^32 - 1 unsigned), then `floor(n*m / 2^p) = floor(n / d)` for `0 <= n <= N` (write
//! `n = qd + r`: the error `n*e / 2^p < 1` never carries `r/d` past 1), and for negative
//! `n` the same floor plus one is the quotient truncated toward zero. [`magic`] takes the
//! smallest such `p` with `m < 2^33`.
//!
//! Sequences (`x` the dividend, `q` the quotient):
//! * signed, `m < 2^31`: `t = mul64h x, m`; else `t = mul64h x, m - 2^32` + `x` (the signed
//!   reading of `m` is `m - 2^32`); `q = (t >> (p-32)) + (x >>> 31)`; negated for `d < 0`;
//! * unsigned, `m < 2^32`: `q = mul64hu x, m >>> (p-32)`; a 33-bit `m`:
//!   `t = mul64hu x, m - 2^32`, `q = (((x - t) >>> 1) + t) >>> (p-33)` (no overflow);
//!   divisors `>= 2^31`: `q = x >=u d`;
//! * remainder: `x - q*d`.
//!
//! Division by zero, by `INT_MIN`, and any divisor [`magic`] cannot serve, still call the
//! runtime routine (whose semantics — x/0 = 0 — a constant-zero divisor keeps).

use super::{zero, Sel, Src2};
use crate::ir::BinOp;
use crate::mir::VReg;
use simulator::isa::st231::Opcode as O;

/// The magic multiplier `m` (up to 33 bits) and shift `p` for divisor `d >= 3` (not a power
/// of two) and dividends of magnitude up to `bound`.
pub(crate) fn magic(d: u64, bound: u64) -> Option<(u64, u32)> {
    if d < 3 || d.is_power_of_two() {
        return None;
    }
    (32..=64).find_map(|p: u32| {
        let two_p = 1u128 << p;
        let m = two_p.div_ceil(u128::from(d));
        let e = m * u128::from(d) - two_p;
        (u128::from(bound) * e < two_p && m < (1u128 << 33)).then_some((m as u64, p))
    })
}

/// `log2(c)` when `c` is a power of two up to 2^30.
fn power_of_two(c: i32) -> Option<u32> {
    (c > 0 && c & (c - 1) == 0).then(|| c.trailing_zeros())
}

impl<'a> Sel<'a> {
    /// Emits `d = x op c` inline; `false` (nothing emitted) when the runtime must be called.
    pub(crate) fn divrem_by_constant(&mut self, d: VReg, op: BinOp, x: VReg, c: i32) -> bool {
        let signed = matches!(op, BinOp::DivS | BinOp::RemS);
        let rem = matches!(op, BinOp::RemS | BinOp::RemU);
        if c == 0 || (signed && c == i32::MIN) {
            return false;
        }
        if let Some(k) = power_of_two(c) {
            self.divrem_pow2(d, op, x, k as i32);
            return true;
        }
        if let Some(k) = c.checked_neg().filter(|_| signed).and_then(power_of_two) {
            // x / -2^k = -(x / 2^k); x % -2^k = x % 2^k (the sign follows the dividend).
            if rem {
                self.divrem_pow2(d, op, x, k as i32);
            } else {
                let t = self.new_r();
                self.divrem_pow2(t, op, x, k as i32);
                self.binary(O::Sub, d, t, Src2::I(0));
            }
            return true;
        }
        if signed && (c == -1 || c == 1) {
            // x / 1 = x, x / -1 = -x (wrapping), x % ±1 = 0.
            match (rem, c) {
                (true, _) => self.binary(O::Add, d, zero(), Src2::I(0)),
                (false, 1) => self.binary(O::Add, d, x, Src2::I(0)),
                _ => self.binary(O::Sub, d, x, Src2::I(0)),
            }
            return true;
        }
        let q = if rem { self.new_r() } else { d };
        let done = if signed {
            self.div_signed_magic(q, x, c)
        } else {
            self.div_unsigned_magic(q, x, c as u32)
        };
        if done && rem {
            let t = self.new_r();
            self.binary(O::Mul32, t, q, Src2::I(c));
            self.binary(O::Sub, d, t, Src2::R(x)); // x - t (sub = src2 - src1)
        }
        done
    }

    fn div_signed_magic(&mut self, q: VReg, x: VReg, c: i32) -> bool {
        let Some((m, p)) = magic(u64::from(c.unsigned_abs()), 1 << 31) else {
            return false;
        };
        if m >= 1 << 32 {
            return false;
        }
        let hi = self.new_r();
        self.binary(O::Mul64h, hi, x, Src2::I(m as u32 as i32));
        let t = if m >= 1 << 31 {
            let t = self.new_r();
            self.binary(O::Add, t, hi, Src2::R(x));
            t
        } else {
            hi
        };
        let (shifted, sign) = (self.new_r(), self.new_r());
        self.binary(O::Shr, shifted, t, Src2::I(p as i32 - 32));
        self.binary(O::Shru, sign, x, Src2::I(31));
        if c > 0 {
            self.binary(O::Add, q, shifted, Src2::R(sign));
        } else {
            let pos = self.new_r();
            self.binary(O::Add, pos, shifted, Src2::R(sign));
            self.binary(O::Sub, q, pos, Src2::I(0));
        }
        true
    }

    fn div_unsigned_magic(&mut self, q: VReg, x: VReg, c: u32) -> bool {
        if c >= 1 << 31 {
            self.binary(O::Cmpgeu, q, x, Src2::I(c as i32));
            return true;
        }
        let Some((m, p)) = magic(u64::from(c), u64::from(u32::MAX)) else {
            return false;
        };
        let t = self.new_r();
        self.binary(O::Mul64hu, t, x, Src2::I(m as u32 as i32));
        if m < 1 << 32 {
            self.binary(O::Shru, q, t, Src2::I(p as i32 - 32));
        } else {
            let (diff, half, sum) = (self.new_r(), self.new_r(), self.new_r());
            self.binary(O::Sub, diff, t, Src2::R(x)); // x - t
            self.binary(O::Shru, half, diff, Src2::I(1));
            self.binary(O::Add, sum, half, Src2::R(t));
            self.binary(O::Shru, q, sum, Src2::I(p as i32 - 33));
        }
        true
    }

    /// `x op 2^k` for k in 0..=30.
    fn divrem_pow2(&mut self, d: VReg, op: BinOp, x: VReg, k: i32) {
        match op {
            BinOp::DivU => self.binary(O::Shru, d, x, Src2::I(k)),
            BinOp::RemU => self.binary(O::And, d, x, Src2::I((1 << k) - 1)),
            BinOp::DivS if k == 0 => self.binary(O::Add, d, x, Src2::I(0)),
            BinOp::RemS if k == 0 => self.binary(O::Add, d, zero(), Src2::I(0)),
            BinOp::DivS => {
                let biased = self.biased(x, k);
                self.binary(O::Shr, d, biased, Src2::I(k));
            }
            _ => {
                // x - ((x + bias) & -2^k): sub computes src2 - src1.
                let biased = self.biased(x, k);
                let t = self.new_r();
                self.binary(O::And, t, biased, Src2::I(-(1 << k)));
                self.binary(O::Sub, d, t, Src2::R(x));
            }
        }
    }

    /// `x + (x < 0 ? 2^k - 1 : 0)`, computed as `x + ((x >> 31) >>> (32 - k))`.
    fn biased(&mut self, x: VReg, k: i32) -> VReg {
        let bias = self.new_r();
        if k == 1 {
            self.binary(O::Shru, bias, x, Src2::I(31));
        } else {
            let sign = self.new_r();
            self.binary(O::Shr, sign, x, Src2::I(31));
            self.binary(O::Shru, bias, sign, Src2::I(32 - k));
        }
        let t = self.new_r();
        self.binary(O::Add, t, x, Src2::R(bias));
        t
    }
}

#[cfg(test)]
mod tests {
    //! The emitted sequences are evaluated with the simulator's own semantic functions on
    //! edge and pseudo-random dividends, for many divisors, against Rust's wrapping division.
    use super::super::select_function;
    use super::*;
    use crate::ir::{self, Op, Terminator, Ty};
    use crate::isel::IselOptions;
    use crate::mir::{Imm, Opc, Reg};
    use simulator::isa::st231::semantics;

    /// Selects `f(x) = x op c`, which must be straight-line code without calls.
    fn selected(op: BinOp, c: i32) -> crate::mir::Function {
        let mut f = ir::Function::new("f");
        let x = f.add_param(Ty::I32);
        let k = f.new_value(Ty::I32);
        let r = f.new_value(Ty::I32);
        f.ret = Some(Ty::I32);
        f.push(ir::BlockId(0), Some(k), Op::Const(c));
        f.push(ir::BlockId(0), Some(r), Op::Bin(op, x, k));
        f.set_term(ir::BlockId(0), Terminator::Return(Some(r)));
        let mut m = ir::Module::default();
        m.functions.push(f.clone());
        for name in [
            crate::isel::RUNTIME_DIVS,
            crate::isel::RUNTIME_DIVU,
            crate::isel::RUNTIME_MODS,
            crate::isel::RUNTIME_MODU,
        ] {
            let mut g = ir::Function::new(name);
            g.add_param(Ty::I32);
            g.add_param(Ty::I32);
            g.ret = Some(Ty::I32);
            m.functions.push(g);
        }
        select_function(&m, &f, &IselOptions::default()).expect("select")
    }

    /// Runs the straight-line function on `x` with the ST231 semantics.
    fn eval(f: &crate::mir::Function, x: i32) -> i32 {
        let mut vals = vec![0u32; f.vregs.len()];
        let read = |vals: &[u32], r: Reg| match r {
            Reg::V(v) => vals[v.index()],
            Reg::P(_) => 0, // only $r0 appears
        };
        for inst in &f.blocks[0].insts {
            match inst.opc {
                Opc::Input => vals[inst.defs[0].vreg().unwrap().index()] = x as u32,
                Opc::Output => return read(&vals, inst.uses[0].reg) as i32,
                Opc::St231(o) => {
                    let a = read(&vals, inst.uses[0].reg);
                    let b = match (&inst.imm, inst.uses.get(1)) {
                        (Imm::Int(i), _) => *i as u32,
                        (_, Some(u)) => read(&vals, u.reg),
                        _ => 0,
                    };
                    assert!(o != O::Call, "unexpected call");
                    let (r, _) = semantics::execute(o, a, b, false).expect("ALU operation");
                    vals[inst.defs[0].vreg().unwrap().index()] = r;
                }
                _ => panic!("unexpected {:?}", inst.opc),
            }
        }
        unreachable!("no .output")
    }

    fn dividends() -> Vec<i32> {
        let mut v = vec![
            0, 1, -1, 2, -2, 3, -3, 7, -7, 9, 10, -10, 100, 32767, -32768, 65535,
        ];
        v.extend([
            i32::MAX,
            i32::MIN,
            i32::MAX - 1,
            i32::MIN + 1,
            0x7FFF_FFF0,
            -0x7FFF_FFF0,
        ]);
        let mut s = 0x1234_5678u32;
        for _ in 0..400 {
            s = s.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            v.push(s as i32);
            v.push((s >> (s % 31)) as i32);
        }
        v
    }

    fn divisors() -> Vec<i32> {
        let mut v: Vec<i32> = (-40..=40).filter(|&c| c != 0).collect();
        v.extend([
            100,
            641,
            1000,
            3600,
            10_000,
            32_767,
            65_535,
            65_537,
            1 << 20,
            1_000_000_007,
            i32::MAX,
            i32::MIN,
            -1000,
            -65_537,
            0x7FFF_FFFE,
            -0x4000_0001,
        ]);
        v
    }

    #[test]
    fn constant_division_matches_wrapping_semantics() {
        let xs = dividends();
        for c in divisors() {
            for op in [BinOp::DivS, BinOp::RemS, BinOp::DivU, BinOp::RemU] {
                let f = selected(op, c);
                let calls = f.blocks[0]
                    .insts
                    .iter()
                    .any(|i| i.opc == Opc::St231(O::Call));
                if calls {
                    // Only INT_MIN (signed) may still call the runtime.
                    assert!(
                        c == i32::MIN && matches!(op, BinOp::DivS | BinOp::RemS),
                        "{op:?} {c}"
                    );
                    continue;
                }
                for &x in &xs {
                    let want = op.eval(x, c).unwrap();
                    assert_eq!(eval(&f, x), want, "{x} {} {c}\n{f}", op.name());
                }
            }
        }
    }

    #[test]
    fn magic_numbers_are_small() {
        // d = 10 signed: the well-known 0x66666667 with p = 34.
        assert_eq!(magic(10, 1 << 31), Some((0x6666_6667, 34)));
        // d = 7 unsigned needs a 33-bit multiplier.
        let (m, _) = magic(7, u64::from(u32::MAX)).unwrap();
        assert!(m >= 1 << 32);
        assert_eq!(magic(8, 1 << 31), None);
    }
}
