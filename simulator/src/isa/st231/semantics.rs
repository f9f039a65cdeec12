//! Pure semantics of ST231 operations: results from operand values, no machine state. The
//! simulator and the compiler's register-transfer interpreter both call these.
//!
//! Sources: isa.md §A7 (and §A3 for operand order); where §A7 gives no formula (mulhhs,
//! mullhus, mulfrac, addcg, divs) the SocLib ST231 ISS reading is used, corrected where it is
//! plainly buggy (shr, mul64h overflow, mulfrac) — each such choice is stated at the function.
//! All arithmetic wraps modulo 2^32. Operands are named by syllable field: `a` is the value
//! of the `src1` field, `b` the value of the `src2` field or the immediate. For every
//! operation but `sub` the assembly order is `op $d = a, b`; `sub $d = x, y` puts `x` in
//! `src2` and `y` in `src1` and computes `x - y` (isa.md §A3), so [`binary`] computes
//! `b - a` for `Sub` (which also covers `sub $d = imm, $s` = imm - s).

use super::opcode::Opcode;

/// Shift amount from a register: ASSUMPTION (isa.md §A7): the low 8 bits of the register;
/// amounts of 32 or more shift everything out (0, or the sign for `shr`).
#[inline]
fn shift_amount(b: u32) -> u32 {
    b & 0xFF
}

#[inline]
fn lo16s(x: u32) -> i64 {
    i64::from(x as u16 as i16)
}

#[inline]
fn hi16s(x: u32) -> i64 {
    i64::from((x >> 16) as u16 as i16)
}

#[inline]
fn lo16u(x: u32) -> i64 {
    i64::from(x as u16)
}

#[inline]
fn hi16u(x: u32) -> i64 {
    i64::from((x >> 16) as u16)
}

#[inline]
fn s32(x: u32) -> i64 {
    i64::from(x as i32)
}

/// Result of a binary (RRR/RI) operation: arithmetic, logic, shifts, min/max, multiplies and
/// compares (compares return 0 or 1, whether the destination is a `$r` or a `$b`).
/// Non-binary opcodes return 0.
#[inline]
pub fn binary(opc: Opcode, a: u32, b: u32) -> u32 {
    use Opcode::*;
    match opc {
        Add => a.wrapping_add(b),
        Sub => b.wrapping_sub(a),
        Shl => {
            let n = shift_amount(b);
            if n >= 32 {
                0
            } else {
                a << n
            }
        }
        Shr => {
            let n = shift_amount(b).min(31);
            ((a as i32) >> n) as u32
        }
        Shru => {
            let n = shift_amount(b);
            if n >= 32 {
                0
            } else {
                a >> n
            }
        }
        Sh1add => (a << 1).wrapping_add(b),
        Sh2add => (a << 2).wrapping_add(b),
        Sh3add => (a << 3).wrapping_add(b),
        Sh4add => (a << 4).wrapping_add(b),
        And => a & b,
        Andc => !a & b,
        Or => a | b,
        Orc => !a | b,
        Xor => a ^ b,
        Max => (a as i32).max(b as i32) as u32,
        Maxu => a.max(b),
        Min => (a as i32).min(b as i32) as u32,
        Minu => a.min(b),
        // Multiplies (isa.md §A7 table).
        Mul32 => a.wrapping_mul(b),
        Mul64h => ((s32(a) * s32(b)) >> 32) as u32,
        Mul64hu => ((u64::from(a) * u64::from(b)) >> 32) as u32,
        Mulll => (lo16s(a) * lo16s(b)) as u32,
        Mulllu => (lo16u(a) * lo16u(b)) as u32,
        Mullh => (lo16s(a) * hi16s(b)) as u32,
        Mullhu => (lo16u(a) * hi16u(b)) as u32,
        Mulhh => (hi16s(a) * hi16s(b)) as u32,
        Mulhhu => (hi16u(a) * hi16u(b)) as u32,
        Mull => (s32(a) * lo16s(b)) as u32,
        Mullu => (i64::from(a) * lo16u(b)) as u32,
        Mulh => (s32(a) * hi16s(b)) as u32,
        Mulhu => (i64::from(a) * hi16u(b)) as u32,
        Mulhs => ((s32(a) * hi16u(b)) << 16) as u32,
        // Not in the §A7 table; SocLib: bits 47..16 of a * hi16s(b), and the top of the
        // 48-bit product a * lo16u(b) shifted right by 32 (sign-extended).
        Mulhhs => ((s32(a) * hi16s(b)) >> 16) as u32,
        Mullhus => ((s32(a) * lo16u(b)) >> 32) as u32,
        // Q31 fractional multiply with rounding: (a*b + 2^30) >> 31, saturating the single
        // overflow case MIN*MIN to MAX (SocLib's version of this is broken).
        Mulfrac => {
            if a == 0x8000_0000 && b == 0x8000_0000 {
                0x7FFF_FFFF
            } else {
                ((s32(a) * s32(b) + (1 << 30)) >> 31) as u32
            }
        }
        Cmpeq => (a == b) as u32,
        Cmpne => (a != b) as u32,
        Cmpge => ((a as i32) >= (b as i32)) as u32,
        Cmpgeu => (a >= b) as u32,
        Cmpgt => ((a as i32) > (b as i32)) as u32,
        Cmpgtu => (a > b) as u32,
        Cmple => ((a as i32) <= (b as i32)) as u32,
        Cmpleu => (a <= b) as u32,
        Cmplt => ((a as i32) < (b as i32)) as u32,
        Cmpltu => (a < b) as u32,
        Andl => (a != 0 && b != 0) as u32,
        Nandl => !(a != 0 && b != 0) as u32,
        Orl => (a != 0 || b != 0) as u32,
        Norl => !(a != 0 || b != 0) as u32,
        _ => 0,
    }
}

/// Result of a monadic operation (sxtb, sxth, zxth, bswap, clz).
#[inline]
pub fn monadic(opc: Opcode, a: u32) -> u32 {
    match opc {
        Opcode::Sxtb => a as u8 as i8 as i32 as u32,
        Opcode::Sxth => a as u16 as i16 as i32 as u32,
        Opcode::Zxth => a & 0xFFFF,
        Opcode::Bswap => a.swap_bytes(),
        Opcode::Clz => a.leading_zeros(),
        _ => 0,
    }
}

/// `slct $d = $b, a, b` gives `a` when the condition is true; `slctf` gives `a` when false.
#[inline]
pub fn select(opc: Opcode, cond: bool, a: u32, b: u32) -> u32 {
    if cond == (opc == Opcode::Slct) {
        a
    } else {
        b
    }
}

/// `addcg $d, $bo = $bi, a, b`: d = a + b + carry_in, bo = carry out of bit 31.
#[inline]
pub fn addcg(a: u32, b: u32, carry_in: bool) -> (u32, bool) {
    let s = u64::from(a) + u64::from(b) + u64::from(carry_in);
    (s as u32, s >> 32 != 0)
}

/// `divs $d, $bo = $bi, a, b`: one step of non-restoring division. The partial remainder `a`
/// is shifted left by one with the carry-in `bi` entering bit 0; if `a` was negative the
/// divisor `b` is added, otherwise subtracted; `bo` is the sign bit of `a` (1 = the step
/// added). Same reading as the VEX/SocLib definition.
#[inline]
pub fn divs(a: u32, b: u32, carry_in: bool) -> (u32, bool) {
    let shifted = (a << 1) | u32::from(carry_in);
    if (a as i32) < 0 {
        (shifted.wrapping_add(b), true)
    } else {
        (shifted.wrapping_sub(b), false)
    }
}

/// Extend a loaded value of the opcode's width (zero-extended raw value in, register value
/// out).
#[inline]
pub fn load_extend(opc: Opcode, raw: u32) -> u32 {
    let info = opc.info();
    match (info.mem_width, info.mem_signed) {
        (1, true) => raw as u8 as i8 as i32 as u32,
        (2, true) => raw as u16 as i16 as i32 as u32,
        (1, false) => raw & 0xFF,
        (2, false) => raw & 0xFFFF,
        _ => raw,
    }
}

/// Effective address `base + offset` (wrapping).
#[inline]
pub fn address(base: u32, offset: i32) -> u32 {
    base.wrapping_add(offset as u32)
}

/// Whether `br`/`brf` is taken for the condition value.
#[inline]
pub fn branch_taken(opc: Opcode, cond: bool) -> bool {
    cond == (opc == Opcode::Br)
}

/// Values an operation produces from its operand values, for a register-transfer
/// interpreter: `a` = value of `s1`, `b` = value of `s2` (register or immediate), `c` = value
/// of the `$b` operand. Returns (main result, second `$b` result) for Binary, Monadic,
/// Select and Carry formats; `None` for memory, control, syscall and nop, whose effects
/// involve state (use [`address`], [`load_extend`], [`branch_taken`]).
pub fn execute(opc: Opcode, a: u32, b: u32, c: bool) -> Option<(u32, bool)> {
    use super::opcode::Format;
    match opc.info().format {
        Format::Binary => Some((binary(opc, a, b), false)),
        Format::Monadic => Some((monadic(opc, a), false)),
        Format::Select => Some((select(opc, c, a, b), false)),
        Format::Carry if opc == Opcode::Addcg => Some(addcg(a, b, c)),
        Format::Carry => Some(divs(a, b, c)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    //! Expected values worked out by hand from the definitions above (isa.md §A7).
    use super::*;
    use Opcode::*;

    const M1: u32 = 0xFFFF_FFFF; // -1

    #[test]
    fn arithmetic_and_logic() {
        assert_eq!(binary(Add, 0xFFFF_FFFF, 2), 1);
        assert_eq!(binary(Sub, 3, 5), 2, "sub = src2 - src1");
        assert_eq!(binary(Sub, 5, 3), (-2i32) as u32);
        assert_eq!(binary(Sh1add, 3, 4), 10);
        assert_eq!(binary(Sh2add, 3, 4), 16);
        assert_eq!(binary(Sh3add, 3, 4), 28);
        assert_eq!(binary(Sh4add, 3, 4), 52);
        assert_eq!(binary(And, 0b1100, 0b1010), 0b1000);
        assert_eq!(binary(Andc, 0b1100, 0b1010), 0b0010);
        assert_eq!(binary(Or, 0b1100, 0b1010), 0b1110);
        assert_eq!(binary(Orc, 0xFFFF_FFF0, 0b0001), 0b1111);
        assert_eq!(binary(Xor, 0b1100, 0b1010), 0b0110);
        assert_eq!(binary(Max, M1, 1), 1);
        assert_eq!(binary(Maxu, M1, 1), M1);
        assert_eq!(binary(Min, M1, 1), M1);
        assert_eq!(binary(Minu, M1, 1), 1);
    }

    #[test]
    fn shifts() {
        assert_eq!(binary(Shl, 1, 31), 0x8000_0000);
        assert_eq!(binary(Shl, 1, 32), 0);
        assert_eq!(binary(Shl, 1, 0x100), 1, "only the low 8 bits count");
        assert_eq!(binary(Shr, 0x8000_0000, 4), 0xF800_0000);
        assert_eq!(binary(Shr, 0x8000_0000, 40), M1);
        assert_eq!(binary(Shr, 0x4000_0000, 40), 0);
        assert_eq!(binary(Shru, 0x8000_0000, 4), 0x0800_0000);
        assert_eq!(binary(Shru, 0x8000_0000, 32), 0);
        assert_eq!(binary(Shl, 5, M1), 0, "imm -1 = amount 255");
    }

    #[test]
    fn multiplies() {
        // mul32: low 32 bits of 0x10000 * 0x10001 = 0x1_0001_0000.
        assert_eq!(binary(Mul32, 0x10000, 0x10001), 0x0001_0000);
        // mul64h: -2 * 3 = -6 -> high word all ones; 0x8000_0000^2 (signed) = 2^62 -> 0x4000_0000.
        assert_eq!(binary(Mul64h, (-2i32) as u32, 3), M1);
        assert_eq!(binary(Mul64h, 0x8000_0000, 0x8000_0000), 0x4000_0000);
        // mul64hu: 0xFFFF_FFFF^2 = 0xFFFF_FFFE_0000_0001.
        assert_eq!(binary(Mul64hu, M1, M1), 0xFFFF_FFFE);
        // mulll: lo16s(0x1234_FFFF) = -1, lo16s(0x0000_0003) = 3 -> -3.
        assert_eq!(binary(Mulll, 0x1234_FFFF, 3), (-3i32) as u32);
        assert_eq!(binary(Mulllu, 0x1234_FFFF, 3), 0x2FFFD);
        // mullh: lo16s(a) * hi16s(b): 2 * hi16s(0xFFFE_0000) = 2 * -2 = -4.
        assert_eq!(binary(Mullh, 2, 0xFFFE_0000), (-4i32) as u32);
        assert_eq!(binary(Mullhu, 2, 0xFFFE_0000), 0x1FFFC);
        // mulhh: hi16s(0x0003_xxxx) * hi16s(0xFFFF_xxxx) = 3 * -1.
        assert_eq!(binary(Mulhh, 0x0003_1234, 0xFFFF_5678), (-3i32) as u32);
        assert_eq!(binary(Mulhhu, 0x0003_1234, 0xFFFF_5678), 3 * 0xFFFF);
        // mull: a * lo16s(b) = 0x10000 * -1.
        assert_eq!(binary(Mull, 0x10000, 0x0000_FFFF), 0xFFFF_0000);
        assert_eq!(binary(Mullu, 0x10000, 0x0000_FFFF), 0xFFFF_0000);
        assert_eq!(binary(Mullu, 3, 0x0001_0002), 6);
        // mulh: a * hi16s(b) = 5 * -2; mulhu: 5 * 0xFFFE.
        assert_eq!(binary(Mulh, 5, 0xFFFE_0000), (-10i32) as u32);
        assert_eq!(binary(Mulhu, 5, 0xFFFE_0000), 5 * 0xFFFE);
        // mulhs: (a * hi16u(b)) << 16 = (3 * 2) << 16.
        assert_eq!(binary(Mulhs, 3, 0x0002_0000), 6 << 16);
        // The classic 32x32 multiply: mullu(a, b) + mulhs(a, b) = a * b (low 32 bits).
        let (a, b) = (0x1234_5678u32, 0x9ABC_DEF0u32);
        assert_eq!(
            binary(Mullu, a, b).wrapping_add(binary(Mulhs, a, b)),
            a.wrapping_mul(b)
        );
        // mulhhs: (a * hi16s(b)) >> 16 = (0x0001_0000 * 3) >> 16 = 3.
        assert_eq!(binary(Mulhhs, 0x0001_0000, 0x0003_0000), 3);
        // mullhus: (a * lo16u(b)) >> 32: -1 * 2 = -2 -> -1; 0x8000_0000 * 4 = 2^33 (as signed -2^33) -> -2.
        assert_eq!(binary(Mullhus, M1, 2), M1);
        assert_eq!(binary(Mullhus, 0x8000_0000, 4), (-2i32) as u32);
        // mulfrac: 0.5 * 0.5 = 0.25 in Q31; MIN*MIN saturates.
        assert_eq!(binary(Mulfrac, 0x4000_0000, 0x4000_0000), 0x2000_0000);
        assert_eq!(binary(Mulfrac, 0x8000_0000, 0x8000_0000), 0x7FFF_FFFF);
    }

    #[test]
    fn compares() {
        assert_eq!(binary(Cmpeq, 4, 4), 1);
        assert_eq!(binary(Cmpne, 4, 4), 0);
        assert_eq!(binary(Cmplt, M1, 0), 1);
        assert_eq!(binary(Cmpltu, M1, 0), 0);
        assert_eq!(binary(Cmpge, M1, 0), 0);
        assert_eq!(binary(Cmpgeu, M1, 0), 1);
        assert_eq!(binary(Cmpgt, 1, M1), 1);
        assert_eq!(binary(Cmpgtu, 1, M1), 0);
        assert_eq!(binary(Cmple, 2, 2), 1);
        assert_eq!(binary(Cmpleu, 3, 2), 0);
        assert_eq!(binary(Andl, 2, 4), 1);
        assert_eq!(binary(Andl, 2, 0), 0);
        assert_eq!(binary(Nandl, 2, 0), 1);
        assert_eq!(binary(Orl, 0, 7), 1);
        assert_eq!(binary(Norl, 0, 0), 1);
        assert_eq!(binary(Norl, 0, 1), 0);
    }

    #[test]
    fn monadics() {
        assert_eq!(monadic(Sxtb, 0x1280), 0xFFFF_FF80);
        assert_eq!(monadic(Sxth, 0x1_8001), 0xFFFF_8001);
        assert_eq!(monadic(Zxth, 0xFFFF_8001), 0x8001);
        assert_eq!(monadic(Bswap, 0x1122_3344), 0x4433_2211);
        assert_eq!(monadic(Clz, 1), 31);
        assert_eq!(monadic(Clz, 0), 32);
    }

    #[test]
    fn select_carry_divs() {
        assert_eq!(select(Slct, true, 1, 2), 1);
        assert_eq!(select(Slct, false, 1, 2), 2);
        assert_eq!(select(Slctf, true, 1, 2), 2);
        assert_eq!(select(Slctf, false, 1, 2), 1);
        assert_eq!(addcg(M1, 1, false), (0, true));
        assert_eq!(addcg(M1, 0, true), (0, true));
        assert_eq!(addcg(5, 6, true), (12, false));
        assert_eq!(addcg(0x8000_0000, 0x8000_0000, false), (0, true));
        // divs: a = 5 (non-negative): (5<<1)|1 - 3 = 8, carry 0.
        assert_eq!(divs(5, 3, true), (8, false));
        // a = -4 = 0xFFFF_FFFC: (a<<1)|0 = 0xFFFF_FFF8 = -8; -8 + 3 = -5, carry 1.
        assert_eq!(divs(0xFFFF_FFFC, 3, false), ((-5i32) as u32, true));
    }

    #[test]
    fn divide_with_divs_steps() {
        // Non-restoring unsigned division by 32 divs steps, dividend bits entering through the
        // carry-in: each step shifts the partial remainder and adds or subtracts the divisor
        // by the old sign; the quotient bit is 1 when the new remainder is non-negative; a
        // final correction adds the divisor back to a negative remainder.
        for (n, d) in [(1000u32, 7u32), (0xFFFF_FFFF, 10), (5, 9), (123_456_789, 1)] {
            let (mut r, mut q) = (0u32, n);
            for _ in 0..32 {
                let top = q >> 31 != 0;
                q <<= 1;
                r = divs(r, d, top).0;
                if (r as i32) >= 0 {
                    q |= 1;
                }
            }
            if (r as i32) < 0 {
                r = r.wrapping_add(d);
            }
            assert_eq!((q, r), (n / d, n % d), "{n} / {d}");
        }
    }

    #[test]
    fn loads_and_branches() {
        assert_eq!(load_extend(Ldb, 0x80), 0xFFFF_FF80);
        assert_eq!(load_extend(Ldbu, 0x80), 0x80);
        assert_eq!(load_extend(Ldh, 0x8000), 0xFFFF_8000);
        assert_eq!(load_extend(Ldhu, 0x8000), 0x8000);
        assert_eq!(load_extend(Ldw, 0x8000_0000), 0x8000_0000);
        assert_eq!(address(0x2000, -4), 0x1FFC);
        assert!(branch_taken(Br, true));
        assert!(!branch_taken(Br, false));
        assert!(branch_taken(Brf, false));
        assert_eq!(execute(Addcg, M1, 1, false), Some((0, true)));
        assert_eq!(execute(Ldw, 0, 0, false), None);
    }
}
