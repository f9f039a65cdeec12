//! Compile-time expansion of `printf` with a literal format string into ST231 system calls
//! (backend.md: "printf with a literal format string is expanded at compile time").
//!
//! The format must be the address of a global (a string literal) plus a constant offset; its
//! bytes are read from the global's initialiser. Each piece becomes:
//! * literal text: `print_char` (syscall 3) for one byte, else `write` (syscall 4) of the bytes
//!   inside the format string itself (`$r16` = address, `$r17` = length);
//! * `%d`/`%i`: `print_int` (syscall 2); `%c`: `print_char`; `%%`: the byte `%`;
//! * `%u`: a branch: a non-negative value is printed by `print_int`; otherwise the quotient
//!   by 10 (`mul64hu` by 0xCCCCCCCD, then `shru 3`: exact for every 32-bit value) is printed by
//!   `print_int` and the last digit by `print_char`;
//! * `%x`/`%X`: a loop over the hexadecimal digits from the highest non-zero one (found with
//!   `clz`), one `print_char` per digit, the digit chosen with `slct`;
//! * `%s`: the text itself when the argument is the address of a read-only string (a string
//!   literal), else a loop printing bytes (`ldbu`) until the terminating zero.
//!
//! * any other conversion (flags, width, precision, `h`/`hh`, `%o`, `%p`; parsed by
//!   [`crate::isel::printf_spec`]): a call to the runtime routine `__ssalab_printf_int` or
//!   `__ssalab_printf_str` (`compiler/runtime/runtime.c`) with the value, the specification
//!   word, the width and the precision (-1 when absent); a `*` width or precision is read
//!   from its argument.
//!
//! The loops and branches split the current block (see the parent module doc). Floating-point
//! conversions and `ll` are rejected with an error naming them; so is a use of `printf`'s
//! result (the count is not known at compile time).

use super::calls::{SYS_PRINT_CHAR, SYS_PRINT_INT, SYS_WRITE};
use super::{zero, Sel, Src2};
use crate::ir::{Op, Value};
use crate::isel::printf_spec::{self, Count, Spec};
use crate::isel::{self, IselError};
use crate::mir::{BlockId, Imm, Inst, Opc, SymPart, VReg};
use simulator::isa::st231::Opcode as O;

/// Longest format string read from a global (input-driven cap).
const MAX_FORMAT: usize = 1 << 16;

/// One piece of a format string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Piece {
    /// `len` literal bytes starting at byte `start` of the format string.
    Text { start: usize, len: usize },
    /// A conversion consuming the next argument(s) (`*` width and precision first).
    Conv(Spec),
}

/// Splits a format string into pieces, or names the unsupported conversion.
pub(crate) fn parse_format(fmt: &[u8]) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut i = 0;
    let mut text_start = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            i += 1;
            continue;
        }
        if i > text_start {
            pieces.push(Piece::Text {
                start: text_start,
                len: i - text_start,
            });
        }
        let spec = printf_spec::parse_spec(&fmt[i..])?;
        if spec.conv == b'%' {
            pieces.push(Piece::Text {
                start: i + 1,
                len: 1,
            });
        } else {
            pieces.push(Piece::Conv(spec));
        }
        i += spec.len;
        text_start = i;
    }
    if i > text_start {
        pieces.push(Piece::Text {
            start: text_start,
            len: i - text_start,
        });
    }
    Ok(pieces)
}

impl<'a> Sel<'a> {
    pub(crate) fn select_printf(
        &mut self,
        dst: Option<Value>,
        args: &[Value],
    ) -> Result<(), IselError> {
        if dst.is_some_and(|d| self.use_count[d.index()] > 0) {
            return Err(self.err("the result of printf is used (not supported on st231)"));
        }
        let Some(&fmt_arg) = args.first() else {
            return Err(self.err("printf without a format argument"));
        };
        let (global, offset, bytes) = self.format_bytes(fmt_arg)?;
        let pieces = parse_format(&bytes).map_err(|m| self.err(m))?;
        let mut next = 1;
        for p in pieces {
            match p {
                Piece::Text { start, len } => {
                    self.print_text(&global, offset, &bytes[start..start + len], start)
                }
                Piece::Conv(spec) => {
                    let too_few = || {
                        format!(
                            "printf: too few arguments for the format {:?}",
                            String::from_utf8_lossy(&bytes)
                        )
                    };
                    if !spec.is_plain() {
                        let n = 1
                            + usize::from(spec.width == Count::Star)
                            + usize::from(spec.precision == Count::Star);
                        let Some(a) = args.get(next..next + n) else {
                            return Err(self.err(too_few()));
                        };
                        next += n;
                        self.print_by_runtime(&spec, a)?;
                        continue;
                    }
                    let Some(&a) = args.get(next) else {
                        return Err(self.err(too_few()));
                    };
                    next += 1;
                    let c = spec.conv;
                    if c == b's' {
                        if let Some((g, off, text)) = self.constant_string(a) {
                            self.print_text(&g, off, &text, 0);
                            continue;
                        }
                    }
                    let v = self.vreg(a);
                    self.print_conversion(c, v);
                }
            }
        }
        Ok(())
    }

    /// A conversion with flags, width, precision or length: a call to the runtime routine
    /// `__ssalab_printf_int` / `__ssalab_printf_str` (`args`: `*` width, `*` precision, value).
    fn print_by_runtime(&mut self, spec: &Spec, args: &[Value]) -> Result<(), IselError> {
        let routine = if spec.conv == b's' {
            isel::RUNTIME_PRINTF_STR
        } else {
            isel::RUNTIME_PRINTF_INT
        };
        if isel::signature(self.module, routine).is_none() {
            return Err(self.err(format!(
                "printf conversion %{} needs the runtime routine `{routine}`, which the module \
                 lacks (see backend::add_runtime)",
                char::from(spec.conv)
            )));
        }
        let mut k = 0;
        let mut star = |s: &mut Self| {
            k += 1;
            s.vreg(args[k - 1])
        };
        let (flags, width) = match spec.width {
            Count::None => (self.constant(0), self.constant(0)),
            Count::Fixed(w) => (self.constant(0), self.constant(w as i32)),
            Count::Star => {
                // A negative `*` width means `-` and its magnitude: |w| and the `-` bit
                // (`LEFT`) set from the sign, branch-free.
                let w = star(self);
                let (sign, abs, neg, left) =
                    (self.new_r(), self.new_r(), self.new_r(), self.new_r());
                self.binary(O::Shr, sign, w, Src2::I(31));
                self.binary(O::Sub, neg, w, Src2::I(0)); // 0 - w
                self.binary(O::Max, abs, w, Src2::R(neg));
                self.binary(O::And, left, sign, Src2::I(printf_spec::LEFT as i32));
                (left, abs)
            }
        };
        let prec = match spec.precision {
            Count::None => self.constant(-1),
            Count::Fixed(p) => self.constant(p as i32),
            Count::Star => {
                // Any negative `*` precision is taken as absent: the routine tests `< 0`.
                star(self)
            }
        };
        let v = star(self);
        let word = self.new_r();
        self.binary(O::Or, word, flags, Src2::I(spec.word()));
        self.call(routine, &[v, word, width, prec], None);
        Ok(())
    }

    /// The format string: global name, offset, and bytes up to the terminating zero.
    fn format_bytes(&self, v: Value) -> Result<(String, i32, Vec<u8>), IselError> {
        self.constant_string(v).ok_or_else(|| {
            self.err("printf needs a literal format string (the address of a constant string)")
        })
    }

    /// `v` as the address of a zero-terminated string inside a read-only global: the global,
    /// the offset and the bytes before the zero.
    fn constant_string(&self, v: Value) -> Option<(String, i32, Vec<u8>)> {
        let Some(Op::SymAddr(name, off)) = self.root_op(v) else {
            return None;
        };
        let g = self.module.global(name).filter(|g| g.readonly)?;
        let start = usize::try_from(*off).ok()?;
        if start >= g.size as usize {
            return None;
        }
        let init = g.init.get(start..).unwrap_or(&[]);
        let bytes: Vec<u8> = init.iter().copied().take_while(|&b| b != 0).collect();
        // The zero must lie inside the global (a string cut by the cap is not constant text).
        let end = start + bytes.len();
        (end < g.size as usize && bytes.len() <= MAX_FORMAT).then(|| (name.clone(), *off, bytes))
    }

    /// Prints `text`, which sits at `global + offset + start`.
    fn print_text(&mut self, global: &str, offset: i32, text: &[u8], start: usize) {
        if text.is_empty() {
            return;
        }
        if let [byte] = text {
            let c = self.constant(i32::from(*byte));
            self.syscall(SYS_PRINT_CHAR, &[c]);
            return;
        }
        let p = self.new_r();
        self.emit(Inst::new(
            Opc::St231(O::Add),
            vec![p.into()],
            vec![zero()],
            Imm::Sym {
                name: global.to_string(),
                offset: offset + start as i32,
                part: SymPart::Full,
            },
        ));
        let n = self.constant(text.len() as i32);
        self.syscall(SYS_WRITE, &[p, n]);
    }

    fn print_conversion(&mut self, c: u8, v: VReg) {
        match c {
            b'd' | b'i' => self.syscall(SYS_PRINT_INT, &[v]),
            b'c' => self.syscall(SYS_PRINT_CHAR, &[v]),
            b'u' => self.print_unsigned(v),
            b's' => self.print_string(v),
            _ => self.print_hex(v, c == b'X'),
        }
    }

    /// Ends the current block with `br b, taken` + `goto other`.
    fn branch(&mut self, b: VReg, taken: BlockId, other: BlockId) {
        self.emit(Inst::new(
            Opc::St231(O::Br),
            vec![],
            vec![b.into()],
            Imm::Block(taken),
        ));
        self.goto(other);
    }

    /// `%u` (module doc).
    fn print_unsigned(&mut self, v: VReg) {
        let b = self.new_b();
        self.binary(O::Cmplt, b, v, Src2::I(0));
        let (small, big, done) = (
            self.out.new_block(),
            self.out.new_block(),
            self.out.new_block(),
        );
        self.branch(b, big, small);
        self.cur = small;
        self.syscall(SYS_PRINT_INT, &[v]);
        self.goto(done);
        self.cur = big;
        let hi = self.new_r();
        self.binary(O::Mul64hu, hi, v, Src2::I(0xCCCC_CCCDu32 as i32));
        let q = self.new_r();
        self.binary(O::Shru, q, hi, Src2::I(3));
        let (t, r, ch) = (self.new_r(), self.new_r(), self.new_r());
        self.binary(O::Mul32, t, q, Src2::I(10));
        self.binary(O::Sub, r, t, Src2::R(v)); // v - t (sub = src2 - src1)
        self.binary(O::Add, ch, r, Src2::I(i32::from(b'0')));
        self.syscall(SYS_PRINT_INT, &[q]);
        self.syscall(SYS_PRINT_CHAR, &[ch]);
        self.goto(done);
        self.cur = done;
    }

    /// `%s` (module doc).
    fn print_string(&mut self, p0: VReg) {
        let entry = self.cur;
        let (head, body, done) = (
            self.out.new_block(),
            self.out.new_block(),
            self.out.new_block(),
        );
        self.goto(head);
        let (p, p1, c) = (self.new_r(), self.new_r(), self.new_r());
        self.cur = head;
        self.emit(Inst::phi(p, vec![(entry, p0), (body, p1)]));
        self.emit(Inst::new(
            Opc::St231(O::Ldbu),
            vec![c.into()],
            vec![p.into()],
            Imm::Int(0),
        ));
        let b = self.new_b();
        self.binary(O::Cmpne, b, c, Src2::I(0));
        self.branch(b, body, done);
        self.cur = body;
        self.syscall(SYS_PRINT_CHAR, &[c]);
        self.binary(O::Add, p1, p, Src2::I(1));
        self.goto(head);
        self.cur = done;
    }

    /// `%x` / `%X` (module doc).
    fn print_hex(&mut self, v: VReg, upper: bool) {
        let (z, zn, t, s_raw, s0) = (
            self.new_r(),
            self.new_r(),
            self.new_r(),
            self.new_r(),
            self.new_r(),
        );
        self.emit(Inst::new(
            Opc::St231(O::Clz),
            vec![z.into()],
            vec![v.into()],
            Imm::None,
        ));
        self.binary(O::Shru, zn, z, Src2::I(2)); // leading zero digits, 0..=8
        self.binary(O::Shl, t, zn, Src2::I(2));
        self.binary(O::Sub, s_raw, t, Src2::I(28)); // 28 - 4 * zn
        self.binary(O::Max, s0, s_raw, Src2::I(0)); // v == 0 prints one digit
        let entry = self.cur;
        let (looph, done) = (self.out.new_block(), self.out.new_block());
        self.goto(looph);
        self.cur = looph;
        let (s, s1) = (self.new_r(), self.new_r());
        self.emit(Inst::phi(s, vec![(entry, s0), (looph, s1)]));
        let (sh, n, lo, hi, ch) = (
            self.new_r(),
            self.new_r(),
            self.new_r(),
            self.new_r(),
            self.new_r(),
        );
        self.binary(O::Shru, sh, v, Src2::R(s));
        self.binary(O::And, n, sh, Src2::I(15));
        self.binary(O::Add, lo, n, Src2::I(i32::from(b'0')));
        let letter = if upper { b'A' } else { b'a' };
        self.binary(O::Add, hi, n, Src2::I(i32::from(letter) - 10));
        let is_digit = self.new_b();
        self.binary(O::Cmpltu, is_digit, n, Src2::I(10));
        self.emit(Inst::new(
            Opc::St231(O::Slct),
            vec![ch.into()],
            vec![is_digit.into(), lo.into(), hi.into()],
            Imm::None,
        ));
        self.syscall(SYS_PRINT_CHAR, &[ch]);
        self.binary(O::Add, s1, s, Src2::I(-4));
        let more = self.new_b();
        self.binary(O::Cmpge, more, s1, Src2::I(0));
        self.branch(more, looph, done);
        self.cur = done;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_pieces() {
        let p = parse_format(b"a%d%%b%-5s").unwrap();
        assert_eq!(p.len(), 5);
        assert_eq!(p[0], Piece::Text { start: 0, len: 1 });
        assert!(matches!(p[1], Piece::Conv(s) if s.conv == b'd' && s.is_plain()));
        assert_eq!(p[2], Piece::Text { start: 4, len: 1 });
        assert_eq!(p[3], Piece::Text { start: 5, len: 1 });
        assert!(
            matches!(p[4], Piece::Conv(s) if s.conv == b's' && !s.is_plain()
            && s.width == Count::Fixed(5))
        );
        assert_eq!(parse_format(b"").unwrap(), vec![]);
    }

    #[test]
    fn rejects_unknown_conversions() {
        let e = parse_format(b"%f").unwrap_err();
        assert!(e.contains("`%f`"), "{e}");
        assert!(parse_format(b"%lld").is_err());
        assert!(parse_format(b"50%").is_err());
    }
}
