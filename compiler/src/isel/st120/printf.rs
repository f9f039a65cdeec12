//! `printf` with a literal format string, expanded at compile time into system calls
//! (backend.md "system calls"; the simulator's `machine::output`: 2 print_int(R0),
//! 3 print_char(R0), 4 write(P0, R0)).
//!
//! * literal text: one `write` of the bytes of the format string itself (a `print_char` for
//!   a single byte); `%%` prints `%`;
//! * `%d`/`%i`: `print_int`; `%c`: `print_char`; constants are formatted at compile time;
//! * `%u`: `print_int` when the value is non-negative as an `int`, else `q = divu(x, 10)`
//!   then `print_int(q)` and the last digit — the two cases under complementary guards, no
//!   branch (`Gx? TRAP`); needs the runtime routine `__ssalab_divu`;
//! * `%x`/`%X`: eight nibbles, branch-free: each digit is printed under the guard "a
//!   non-zero nibble was seen" (the last one always), the letter offset added under a guard
//!   and merged with a psi;
//! * `%s`: a literal string argument is written at compile time; otherwise a two-block loop
//!   with a post-increment `LDUB` and a guarded `print_char`.
//!
//! * any other conversion (flags, width, precision, `h`/`hh`, `%o`, `%p`; parsed by
//!   [`crate::isel::printf_spec`]): a call to the runtime routine `__ssalab_printf_int` or
//!   `__ssalab_printf_str` (`compiler/runtime/runtime.c`) with the value, the specification
//!   word, the width (a `*` one made non-negative, its sign moved to the `-` flag) and the
//!   precision (-1 when absent).
//!
//! Floating-point conversions and `ll` are an [`IselError`] naming the conversion. The result of `printf` may not be used (it is an error if it is).
//!
//! Complexity: O(length of the format string).

use super::calls::{trap, SYS_PRINT_CHAR, SYS_PRINT_INT, SYS_WRITE};
use super::{op, Selector, Site};
use crate::ir::{Op, Value};
use crate::isel::printf_spec::{self, Count, Spec};
use crate::isel::IselError;
use crate::mir::{Imm, Inst, InstFlags, Opc, Operand, Pin, RegClass, VReg};
use simulator::isa::st120::{
    AddrMode, BinOp as MB, CmpCond, CmpKind, GuardOp, LoadKind, Opcode as O,
};

/// Longest format string or literal string argument read at compile time.
const MAX_LITERAL: usize = 1 << 16;

/// A literal string in memory: global name, byte offset and its bytes (without the NUL).
struct Literal {
    name: String,
    offset: i32,
    bytes: Vec<u8>,
}

impl Selector<'_> {
    /// The string `v` points to, if it is the address of a read-only initialised global.
    fn literal_string(&self, v: Value) -> Option<Literal> {
        let Some(Op::SymAddr(name, off)) = self.def_op(self.resolve(v)) else {
            return None;
        };
        let g = self.module().global(name)?;
        if !g.readonly || *off < 0 {
            return None;
        }
        let start = *off as usize;
        let mut bytes = Vec::new();
        for i in start..(g.size as usize).min(start + MAX_LITERAL) {
            let b = g.init.get(i).copied().unwrap_or(0);
            if b == 0 {
                return Some(Literal {
                    name: name.clone(),
                    offset: *off,
                    bytes,
                });
            }
            if g.relocs
                .iter()
                .any(|r| (r.offset as usize..r.offset as usize + 4).contains(&i))
            {
                return None;
            }
            bytes.push(b);
        }
        None
    }

    /// Writes `len` bytes at `@name + offset` (print_char for a single byte).
    fn write_literal(&mut self, name: &str, offset: i32, bytes: &[u8]) {
        match bytes.len() {
            0 => {}
            1 => self.print_const_char(bytes[0]),
            n => {
                let at = self.here();
                let p = self.sym_into(at, RegClass::P, name, offset);
                let len = self.const_into(at, RegClass::R, n as i32);
                trap(self, SYS_WRITE, Some(len), Some(p));
            }
        }
    }

    fn print_const_char(&mut self, c: u8) {
        let at = self.here();
        let r = self.const_into(at, RegClass::R, i32::from(c));
        trap(self, SYS_PRINT_CHAR, Some(r), None);
    }

    fn print_const_text(&mut self, text: &str) {
        for b in text.bytes() {
            self.print_const_char(b);
        }
    }

    /// A guarded `TRAP n` with the argument pinned to `R0`.
    fn guarded_trap(&mut self, n: i32, arg: VReg, g: VReg) {
        let uses = vec![
            Operand::pinned(arg, Pin::Phys(crate::mir::PReg::new(RegClass::R, 0))),
            Operand::new(g),
        ];
        let at = self.here();
        self.put(
            at,
            op(O::Trap, vec![], uses, Imm::Int(n)).with_flags(InstFlags::GUARDED),
        );
    }

    fn print_unsigned(&mut self, x: VReg) -> Result<(), IselError> {
        if crate::isel::signature(self.module(), crate::isel::RUNTIME_DIVU).is_none() {
            return Err(self.error(
                "printf conversion %u needs the runtime routine __ssalab_divu in the module",
            ));
        }
        let at = self.here();
        let small = self.emit_def(
            at,
            O::CmpI(CmpKind::W, CmpCond::Ge),
            RegClass::G,
            &[x],
            Imm::Int(0),
        );
        let big = self.emit_def(
            at,
            O::CmpI(CmpKind::W, CmpCond::Lt),
            RegClass::G,
            &[x],
            Imm::Int(0),
        );
        self.guarded_trap(SYS_PRINT_INT, x, small);
        let ten = self.const_into(at, RegClass::R, 10);
        let q = super::calls::call_runtime(self, crate::isel::RUNTIME_DIVU, &[x, ten]);
        let q8 = self.emit_here(O::BinI(MB::Shl), RegClass::R, &[q], Imm::Int(3));
        let q2 = self.emit_here(O::BinI(MB::Shl), RegClass::R, &[q], Imm::Int(1));
        let q10 = self.emit_here(O::Bin(MB::Add), RegClass::R, &[q8, q2], Imm::None);
        let d = self.emit_here(O::Bin(MB::Sub), RegClass::R, &[x, q10], Imm::None);
        let c = self.emit_here(O::BinI(MB::Add), RegClass::R, &[d], Imm::Int(48));
        self.guarded_trap(SYS_PRINT_INT, q, big);
        self.guarded_trap(SYS_PRINT_CHAR, c, big);
        Ok(())
    }

    /// A conversion with flags, width, precision or length: a call to `__ssalab_printf_int`
    /// or `__ssalab_printf_str` (`args`: `*` width, `*` precision, then the value).
    fn print_by_runtime(&mut self, spec: &Spec, args: &[Value]) -> Result<(), IselError> {
        let routine = if spec.conv == b's' {
            crate::isel::RUNTIME_PRINTF_STR
        } else {
            crate::isel::RUNTIME_PRINTF_INT
        };
        if crate::isel::signature(self.module(), routine).is_none() {
            return Err(self.error(format!(
                "printf conversion %{} needs the runtime routine {routine} in the module",
                spec.conv as char
            )));
        }
        let mut k = 0;
        let mut word = spec.word();
        let at = self.here();
        let width = match spec.width {
            Count::None => self.const_into(at, RegClass::R, 0),
            Count::Fixed(w) => self.const_into(at, RegClass::R, w as i32),
            Count::Star => {
                k += 1;
                let w = self.get(args[k - 1], RegClass::R)?;
                match self.const_of(args[k - 1]) {
                    Some(c) => {
                        let (f, w) = printf_spec::star_width(spec.flags, c);
                        word = (f | u32::from(spec.conv)) as i32;
                        self.const_into(at, RegClass::R, w as i32)
                    }
                    None => {
                        return self.print_star_width(routine, spec, w, &args[k..]);
                    }
                }
            }
        };
        let prec = match spec.precision {
            Count::None => self.const_into(at, RegClass::R, -1),
            Count::Fixed(p) => self.const_into(at, RegClass::R, p as i32),
            Count::Star => {
                k += 1;
                self.get(args[k - 1], RegClass::R)?
            }
        };
        let w = self.const_into(at, RegClass::R, word);
        let v = args[k];
        let class = if spec.conv == b's' {
            RegClass::P
        } else {
            RegClass::R
        };
        let v = self.get(v, class)?;
        super::calls::call_runtime_void(
            self,
            routine,
            &[
                (v, class),
                (w, RegClass::R),
                (width, RegClass::R),
                (prec, RegClass::R),
            ],
        );
        Ok(())
    }

    /// A `*` width read at run time: `|w|` and the `-` flag from its sign (C99 7.19.6.1p5),
    /// branch-free: `s = w >> 31`, `|w| = (w ^ s) - s`, word |= `(w >>u 31) << 8` (`LEFT`).
    fn print_star_width(
        &mut self,
        routine: &str,
        spec: &Spec,
        w: VReg,
        rest: &[Value],
    ) -> Result<(), IselError> {
        let at = self.here();
        let s = self.emit_here(O::BinI(MB::Shrw), RegClass::R, &[w], Imm::Int(31));
        let x = self.emit_here(O::Bin(MB::Xor), RegClass::R, &[w, s], Imm::None);
        let abs = self.emit_here(O::Bin(MB::Sub), RegClass::R, &[x, s], Imm::None);
        let bit = self.emit_here(O::BinI(MB::Shruw), RegClass::R, &[w], Imm::Int(31));
        let left = self.emit_here(
            O::BinI(MB::Shl),
            RegClass::R,
            &[bit],
            Imm::Int(printf_spec::LEFT.trailing_zeros() as i32),
        );
        let base = self.const_into(at, RegClass::R, spec.word());
        let word = self.emit_here(O::Bin(MB::Or), RegClass::R, &[base, left], Imm::None);
        let (prec, v) = match spec.precision {
            Count::None => (self.const_into(at, RegClass::R, -1), rest[0]),
            Count::Fixed(p) => (self.const_into(at, RegClass::R, p as i32), rest[0]),
            Count::Star => (self.get(rest[0], RegClass::R)?, rest[1]),
        };
        let class = if spec.conv == b's' {
            RegClass::P
        } else {
            RegClass::R
        };
        let v = self.get(v, class)?;
        super::calls::call_runtime_void(
            self,
            routine,
            &[
                (v, class),
                (word, RegClass::R),
                (abs, RegClass::R),
                (prec, RegClass::R),
            ],
        );
        Ok(())
    }

    fn print_hex(&mut self, x: VReg, upper: bool) {
        let letter_gap = if upper { 7 } else { 39 };
        let mut started: Option<VReg> = None;
        for i in (0..8).rev() {
            let t = if i == 0 {
                x
            } else {
                self.emit_here(O::BinI(MB::Shruw), RegClass::R, &[x], Imm::Int(4 * i))
            };
            let n = self.emit_here(O::BinI(MB::And), RegClass::R, &[t], Imm::Int(15));
            let c0 = self.emit_here(O::BinI(MB::Add), RegClass::R, &[n], Imm::Int(48));
            let letter = self.emit_here(
                O::CmpI(CmpKind::W, CmpCond::Gt),
                RegClass::G,
                &[n],
                Imm::Int(9),
            );
            let at = Site {
                guard: Some(letter),
                ..self.here()
            };
            let c1 = self.emit_def(
                at,
                O::BinI(MB::Add),
                RegClass::R,
                &[c0],
                Imm::Int(letter_gap),
            );
            let g15 = Self::g15();
            let c = self.mf.new_vreg(RegClass::R);
            let here = self.here();
            self.put(
                here,
                Inst::new(
                    Opc::Psi,
                    vec![Operand::new(c)],
                    vec![
                        Operand::new(g15),
                        Operand::new(c0),
                        Operand::new(letter),
                        Operand::new(c1),
                    ],
                    Imm::None,
                ),
            );
            self.stats.psis += 1;
            if i == 0 {
                trap(self, SYS_PRINT_CHAR, Some(c), None);
                break;
            }
            let nz = self.emit_here(
                O::CmpI(CmpKind::W, CmpCond::Ne),
                RegClass::G,
                &[n],
                Imm::Int(0),
            );
            let s = match started {
                None => nz,
                Some(s) => self.emit_here(O::Guard(GuardOp::Or), RegClass::G, &[s, nz], Imm::None),
            };
            self.guarded_trap(SYS_PRINT_CHAR, c, s);
            started = Some(s);
        }
    }

    /// The `%s` loop: `L: p = phi(s, p2); c, p2 = LDUB p !+ 1; g = c != 0; g? print_char(c);
    /// g! GOTO X; GOTO L`, then continues in `X`.
    fn print_string_loop(&mut self, s: VReg) {
        let from = self.cur;
        let l = self.mf.new_block();
        let x = self.mf.new_block();
        let at = self.here();
        self.put(at, op(O::Goto, vec![], vec![], Imm::Block(l)));
        self.cur = l;
        let p = self.mf.new_vreg(RegClass::P);
        let c = self.mf.new_vreg(RegClass::R);
        let p2 = self.mf.new_vreg(RegClass::P);
        let blk = self.mf.block_mut(l);
        blk.insts.push(Inst::new(
            Opc::Phi,
            vec![Operand::new(p)],
            vec![Operand::new(s), Operand::new(p2)],
            Imm::Blocks(vec![from, l]),
        ));
        blk.insts.push(op(
            O::Load(LoadKind::Ub, AddrMode::PostIncImm),
            vec![Operand::new(c), Operand::new(p2)],
            vec![Operand::pinned(p, Pin::Var(p2))],
            Imm::Int(1),
        ));
        let g = self.emit_here(
            O::CmpI(CmpKind::W, CmpCond::Ne),
            RegClass::G,
            &[c],
            Imm::Int(0),
        );
        self.guarded_trap(SYS_PRINT_CHAR, c, g);
        let mut br = op(O::GotoF, vec![], vec![Operand::new(g)], Imm::Block(x));
        br.flags |= InstFlags::GUARDED;
        let blk = self.mf.block_mut(l);
        blk.insts.push(br);
        blk.insts.push(op(O::Goto, vec![], vec![], Imm::Block(l)));
        self.cur = x;
    }
}

/// Expands `printf(fmt, args...)`.
pub(crate) fn expand(
    s: &mut Selector<'_>,
    dst: Option<Value>,
    args: &[Value],
) -> Result<(), IselError> {
    if dst.is_some_and(|d| s.uses_of_value(d) > 0) {
        return Err(s.error(
            "the result of printf is used (not supported: printf is expanded at compile time)",
        ));
    }
    let Some(&fmt_v) = args.first() else {
        return Err(s.error("printf without a format string"));
    };
    let fmt = s
        .literal_string(fmt_v)
        .ok_or_else(|| s.error("printf needs a literal format string"))?;
    let bytes = fmt.bytes.clone();
    let mut next_arg = 1;
    let mut run_start = 0usize;
    let mut i = 0usize;
    while i < bytes.len() {
        if bytes[i] != b'%' {
            i += 1;
            continue;
        }
        let spec = printf_spec::parse_spec(&bytes[i..]).map_err(|m| s.error(m))?;
        let conv = spec.conv;
        if conv == b'%' {
            // Print the text up to and including the first '%'.
            s.write_literal(
                &fmt.name,
                fmt.offset + run_start as i32,
                &bytes[run_start..=i],
            );
            i += 2;
            run_start = i;
            continue;
        }
        s.write_literal(
            &fmt.name,
            fmt.offset + run_start as i32,
            &bytes[run_start..i],
        );
        i += spec.len;
        run_start = i;
        if !spec.is_plain() {
            let n = 1
                + usize::from(spec.width == Count::Star)
                + usize::from(spec.precision == Count::Star);
            let a = args
                .get(next_arg..next_arg + n)
                .ok_or_else(|| s.error(format!("printf: no argument for %{}", conv as char)))?;
            next_arg += n;
            s.print_by_runtime(&spec, a)?;
            continue;
        }
        let a = *args
            .get(next_arg)
            .ok_or_else(|| s.error(format!("printf: no argument for %{}", conv as char)))?;
        next_arg += 1;
        let k = s.const_of(a);
        match (conv, k) {
            (b'd' | b'i', Some(k)) => s.print_const_text(&k.to_string()),
            (b'u', Some(k)) => s.print_const_text(&(k as u32).to_string()),
            (b'x', Some(k)) => s.print_const_text(&format!("{:x}", k as u32)),
            (b'X', Some(k)) => s.print_const_text(&format!("{:X}", k as u32)),
            (b'c', Some(k)) => s.print_const_char(k as u8),
            (b'd' | b'i', None) => {
                let r = s.get(a, RegClass::R)?;
                trap(s, SYS_PRINT_INT, Some(r), None);
            }
            (b'c', None) => {
                let r = s.get(a, RegClass::R)?;
                trap(s, SYS_PRINT_CHAR, Some(r), None);
            }
            (b'u', None) => {
                let r = s.get(a, RegClass::R)?;
                s.print_unsigned(r)?;
            }
            (b'x' | b'X', None) => {
                let r = s.get(a, RegClass::R)?;
                s.print_hex(r, conv == b'X');
            }
            _ => match s.literal_string(a) {
                Some(lit) => s.write_literal(&lit.name, lit.offset, &lit.bytes),
                None => {
                    let p = s.get(a, RegClass::P)?;
                    s.print_string_loop(p);
                }
            },
        }
    }
    s.write_literal(
        &fmt.name,
        fmt.offset + run_start as i32,
        &bytes[run_start..],
    );
    Ok(())
}
