//! ST231 assembly text: assembler (text -> [`Object`]) and disassembler (object -> objdump-style
//! listing), on top of the shared [`driver`](super::driver) (comments, labels, sections, data
//! directives, `## copy`-style annotations, `;;` bundle ends).
//!
//! Operation syntax (close to ST's; isa.md §A3/§A7):
//! ```text
//! add $r1 = $r2, $r3          add $r1 = $r2, 42         add $r1 = $r2, table+4
//! sub $r1 = $r2, $r3          (= r2 - r3)               sub $r1 = 10, $r2 (= 10 - r2)
//! cmplt $b1 = $r2, $r3        cmpeq $r4 = $r5, 0        (compares write $r or $b)
//! sxtb $r1 = $r2              zxtb / sxth / zxth / bswap / clz
//! slct $r1 = $b0, $r2, $r3    slctf $r1 = $b0, $r2, 7
//! addcg $r1, $b1 = $b0, $r2, $r3   (also accepted: addcg $r1, $b1 = $r2, $r3, $b0); divs alike
//! mov $r1 = $r2   mov $r1 = 123456   mtb $b1 = $r2   mfb $r1 = $b2   nop
//! ldw $r1 = 8[$r2]   ldh/ldhu/ldb/ldbu (and .d forms)   stw 8[$r2] = $r1   sth / stb   pft 0[$r2]
//! br $b0, label    brf $b0, label    goto label    call label    icall $r63    igoto $r63
//! return $r63      syscall 2
//! ```
//! Registers: `$r0..$r63`, `$b0..$b7` (also `$r0.N`/`$b0.N` VEX style, `$sp` = `$r12`, `$lr` =
//! `$r63`). Immediates are expressions (`label+4`, `0x10`, `-3`, `'a'`); a constant that does not
//! fit in 9 signed bits, or ANY immediate naming a symbol, takes an `imml` extension syllable.
//! `sub $d = $s, C` with a constant `C` is accepted and assembled as `add $d = $s, -C`.
//! Branch and call targets are absolute addresses (labels or numbers); the encoding holds the
//! word displacement from the bundle's address. `;;` ends a bundle; the encoder may reorder the
//! syllables of a bundle (control first, multiplies in odd lanes) and pads it with as few
//! `nop`s as needed (ASSUMPTION isa.md §A2). Annotation: a trailing `## copy` (or `spill_load`, `spill_store`,
//! `swap`) marks the operation(s) of that line.

use super::driver::{assemble_with, CodeAssembler, CodeOutput, Pos, Symbols};
use super::expr::{self, Expr};
use super::AsmError;
use crate::isa::st231::encoding::{decode_bundle, encode_bundle_padded, STOP};
use crate::isa::st231::{Dest, Format, Op, OpProps, Opcode, Src, LINK};
use crate::isa::Target;
use crate::machine::CODE_BASE;
use crate::object::{Annotation, Object, OpFlags, SymbolKind};
use std::collections::HashMap;
use std::fmt::Write as _;

/// Assemble ST231 source text.
pub fn assemble(src: &str) -> Result<Object, AsmError> {
    assemble_with(src, Target::St231, St231Asm::default())
}

/// Padding `nop`s the assembler may add to a bundle for the lane rules: as many as needed
/// (the compiler's encoder allows one, see `encode_bundle_forced`).
const MAX_PAD: usize = 4;

/// Which field a symbolic expression fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fill {
    /// The second (immediate) operand of a binary or select operation.
    AluImm,
    /// A memory offset.
    MemOffset,
    /// A branch/call target (absolute address; encoded as a displacement).
    Target,
}

#[derive(Clone, Debug)]
struct Pending {
    op: Op,
    sym: Option<(Expr, Fill)>,
    flags: OpFlags,
    pos: Pos,
}

#[derive(Clone, Debug)]
struct Bundle {
    /// Offset of the bundle from the code base.
    offset: u32,
    ops: Vec<Pending>,
    words: usize,
    /// Code words given with `.word` in `.text` (then `ops` is empty), emitted as they are.
    raw: Vec<u32>,
}

/// The ST231 half of the assembler (pass one collects bundles, `finish` encodes them).
#[derive(Default)]
struct St231Asm {
    bundles: Vec<Bundle>,
    open: Vec<Pending>,
    size: u32,
    calls: Vec<String>,
}

impl St231Asm {
    /// The bundle's operations with symbolic immediates replaced by `values` (placeholders in
    /// pass one), and which of them must take an extension syllable.
    fn materialise(ops: &[Pending], addr: u32, values: &[i64]) -> (Vec<Op>, Vec<bool>) {
        let mut out = Vec::with_capacity(ops.len());
        let mut force = Vec::with_capacity(ops.len());
        for (p, &v) in ops.iter().zip(values) {
            let mut op = p.op;
            match p.sym {
                Some((_, Fill::AluImm)) => op.s2 = Src::Imm(v as i32),
                Some((_, Fill::MemOffset)) => op.imm = v as i32,
                Some((_, Fill::Target)) => op.imm = (v - i64::from(addr)) as i32,
                None => {}
            }
            force.push(matches!(p.sym, Some((_, Fill::AluImm | Fill::MemOffset))));
            out.push(op);
        }
        (out, force)
    }
}

impl CodeAssembler for St231Asm {
    fn operation(&mut self, text: &str, pos: Pos, flags: OpFlags) -> Result<(), AsmError> {
        let mut p = parse_operation(text, pos)?;
        p.flags = flags;
        if p.op.opc == Opcode::Call {
            if let Some((e, _)) = &p.sym {
                if let [(false, expr::Atom::Sym(name))] = e.terms.as_slice() {
                    self.calls.push(name.clone());
                }
            }
        }
        self.open.push(p);
        Ok(())
    }

    fn end_group(&mut self, pos: Pos) -> Result<(), AsmError> {
        if self.open.is_empty() {
            return Ok(());
        }
        let ops = std::mem::take(&mut self.open);
        let addr = CODE_BASE.wrapping_add(self.size);
        let placeholders: Vec<i64> = ops
            .iter()
            .map(|p| {
                if matches!(p.sym, Some((_, Fill::Target))) {
                    i64::from(addr)
                } else {
                    0
                }
            })
            .collect();
        let (real, force) = Self::materialise(&ops, addr, &placeholders);
        let first = ops.first().map_or(pos, |p| p.pos);
        let enc = encode_bundle_padded(&real, &force, addr, MAX_PAD)
            .map_err(|e| first.error(format!("bad bundle: {e}")))?;
        let words = enc.words.len();
        self.bundles.push(Bundle {
            offset: self.size,
            ops,
            words,
            raw: Vec::new(),
        });
        self.size = self
            .size
            .checked_add(4 * words as u32)
            .filter(|s| *s < 0x4000_0000)
            .ok_or_else(|| pos.error("code too large"))?;
        Ok(())
    }

    fn group_open(&self) -> bool {
        !self.open.is_empty()
    }

    fn code_size(&self) -> u32 {
        self.size
            + 4 * self
                .open
                .iter()
                .map(|p| p.op.syllables() as u32)
                .sum::<u32>()
    }

    fn raw_words(&mut self, words: &[u32], pos: Pos) -> Result<(), AsmError> {
        self.bundles.push(Bundle {
            offset: self.size,
            ops: Vec::new(),
            words: words.len(),
            raw: words.to_vec(),
        });
        self.size = u32::try_from(words.len())
            .ok()
            .and_then(|n| self.size.checked_add(n.checked_mul(4)?))
            .filter(|s| *s < 0x4000_0000)
            .ok_or_else(|| pos.error("code too large"))?;
        Ok(())
    }

    fn finish(self, syms: &Symbols) -> Result<CodeOutput, AsmError> {
        let mut out = CodeOutput {
            call_targets: self.calls,
            ..CodeOutput::default()
        };
        for b in &self.bundles {
            if !b.raw.is_empty() {
                for w in &b.raw {
                    out.code.extend_from_slice(&w.to_le_bytes());
                }
                continue;
            }
            let addr = syms.code_base + b.offset;
            let mut values = Vec::with_capacity(b.ops.len());
            for p in &b.ops {
                values.push(match &p.sym {
                    Some((e, fill)) => {
                        let v = syms.eval(e, addr, p.pos)?;
                        if !(-(1i64 << 31)..(1i64 << 32)).contains(&v) {
                            return Err(p.pos.error(format!("value {v} does not fit in 32 bits")));
                        }
                        if *fill == Fill::Target && v < 0 {
                            return Err(p
                                .pos
                                .error(format!("branch target {v} is not a 32-bit address")));
                        }
                        if *fill == Fill::Target && v % 4 != 0 {
                            return Err(p
                                .pos
                                .error(format!("branch target {v:#x} is not 4-byte aligned")));
                        }
                        v
                    }
                    None => 0,
                });
            }
            let (ops, force) = Self::materialise(&b.ops, addr, &values);
            let first = b.ops.first().map_or(Pos::default(), |p| p.pos);
            let enc = encode_bundle_padded(&ops, &force, addr, MAX_PAD)
                .map_err(|e| first.error(format!("bad bundle: {e}")))?;
            if enc.words.len() != b.words {
                return Err(first.error("internal: bundle size changed between passes"));
            }
            for w in enc.words {
                out.code.extend_from_slice(&w.to_le_bytes());
            }
            for (p, slot) in b.ops.iter().zip(enc.op_slots) {
                if !p.flags.is_empty() {
                    out.annotations.push(Annotation {
                        addr: addr + 4 * slot as u32,
                        flags: p.flags,
                    });
                }
            }
        }
        Ok(out)
    }
}

/// A register or expression operand.
enum Operand {
    R(u8),
    B(u8),
    E(Expr),
}

/// A cursor over one statement, tracking columns for errors.
struct Cur<'a> {
    rest: &'a str,
    full: &'a str,
    pos: Pos,
}

impl<'a> Cur<'a> {
    fn here(&self) -> Pos {
        self.pos.offset(self.full.len() - self.rest.len())
    }

    fn error<T>(&self, msg: impl Into<String>) -> Result<T, AsmError> {
        Err(self.here().error(msg))
    }

    fn ws(&mut self) {
        self.rest = self.rest.trim_start();
    }

    fn eat(&mut self, t: &str) -> bool {
        self.ws();
        match self.rest.strip_prefix(t) {
            Some(r) => {
                self.rest = r;
                true
            }
            None => false,
        }
    }

    fn expect(&mut self, t: &str) -> Result<(), AsmError> {
        if self.eat(t) {
            Ok(())
        } else {
            let found = self.rest.split_whitespace().next().unwrap_or("end of line");
            self.error(format!("expected `{t}`, found `{found}`"))
        }
    }

    fn at_end(&mut self) -> bool {
        self.ws();
        self.rest.is_empty()
    }

    fn end(&mut self) -> Result<(), AsmError> {
        if self.at_end() {
            Ok(())
        } else {
            self.error(format!("unexpected `{}`", self.rest))
        }
    }

    /// A register if one starts here.
    fn try_reg(&mut self) -> Result<Option<Operand>, AsmError> {
        self.ws();
        let Some(r) = self.rest.strip_prefix('$') else {
            return Ok(None);
        };
        let name_len = r
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
            .unwrap_or(r.len());
        let name = &r[..name_len];
        // Register names are case-insensitive, like mnemonics (`$R1`, `$SP`).
        let lower = name.to_ascii_lowercase();
        let parse_num = |s: &str| -> Option<u8> {
            let s = s.strip_prefix("0.").unwrap_or(s);
            if s.is_empty() || s.len() > 3 || !s.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            s.parse::<u16>().ok().and_then(|v| u8::try_from(v).ok())
        };
        let reg = match lower.as_str() {
            "sp" => Some(Operand::R(12)),
            "lr" => Some(Operand::R(LINK)),
            _ => match (lower.strip_prefix('r'), lower.strip_prefix('b')) {
                (Some(n), _) => parse_num(n).filter(|&v| v < 64).map(Operand::R),
                (_, Some(n)) => parse_num(n).filter(|&v| v < 8).map(Operand::B),
                _ => None,
            },
        };
        match reg {
            Some(op) => {
                self.rest = &r[name_len..];
                Ok(Some(op))
            }
            None => self.error(format!("unknown register `${name}`")),
        }
    }

    fn operand(&mut self) -> Result<Operand, AsmError> {
        if let Some(r) = self.try_reg()? {
            return Ok(r);
        }
        self.ws();
        match expr::expr(self.rest) {
            Ok((rest, e)) => {
                self.rest = rest;
                Ok(Operand::E(e))
            }
            Err(nom::Err::Failure(_)) => {
                // Started as an expression and is invalid: let the expression parser say why.
                let text = self.rest.split(";;").next().unwrap_or("");
                let why = expr::parse_expr(text).err().unwrap_or_default();
                self.error(why)
            }
            Err(_) => {
                let found = self.rest.split_whitespace().next().unwrap_or("end of line");
                self.error(format!(
                    "expected a register or an expression, found `{found}`"
                ))
            }
        }
    }

    fn gpr(&mut self) -> Result<u8, AsmError> {
        let at = self.here();
        match self.operand()? {
            Operand::R(r) => Ok(r),
            _ => Err(at.error("expected a general register $rN")),
        }
    }

    fn breg(&mut self) -> Result<u8, AsmError> {
        let at = self.here();
        match self.operand()? {
            Operand::B(b) => Ok(b),
            _ => Err(at.error("expected a branch register $bN")),
        }
    }

    /// `expr[$rN]` (the expression may be omitted).
    fn mem(&mut self) -> Result<(Expr, u8), AsmError> {
        self.ws();
        let e = if self.rest.starts_with('[') {
            Expr::num(0)
        } else {
            match expr::expr(self.rest) {
                Ok((rest, e)) => {
                    self.rest = rest;
                    e
                }
                Err(_) => return self.error("expected `offset[$rN]`"),
            }
        };
        self.expect("[")?;
        let base = self.gpr()?;
        self.expect("]")?;
        Ok((e, base))
    }
}

/// Build a [`Pending`] whose expression `e` fills `fill` (constant expressions are folded).
fn with_expr(mut op: Op, e: Expr, fill: Fill, at: Pos) -> Result<Pending, AsmError> {
    let mut sym = None;
    match (e.constant(), fill) {
        (Some(v), Fill::AluImm | Fill::MemOffset) => {
            if !(-(1i64 << 31)..(1i64 << 32)).contains(&v) {
                return Err(at.error(format!("immediate {v} does not fit in 32 bits")));
            }
            if fill == Fill::AluImm {
                op.s2 = Src::Imm(v as i32);
            } else {
                op.imm = v as i32;
            }
        }
        _ => sym = Some((e, fill)),
    }
    Ok(Pending {
        op,
        sym,
        flags: OpFlags::empty(),
        pos: at,
    })
}

fn plain(op: Op, at: Pos) -> Pending {
    Pending {
        op,
        sym: None,
        flags: OpFlags::empty(),
        pos: at,
    }
}

/// Parse one operation statement.
fn parse_operation(text: &str, pos: Pos) -> Result<Pending, AsmError> {
    let mut c = Cur {
        rest: text,
        full: text,
        pos,
    };
    let mlen = text
        .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '.'))
        .unwrap_or(text.len());
    let mnemonic = text[..mlen].to_ascii_lowercase();
    c.rest = &text[mlen..];
    let p = parse_body(&mnemonic, &mut c, pos)?;
    c.end()?;
    let info = p.op.opc.info();
    if info.props.contains(OpProps::NOLINK) && p.op.dest == Dest::R(LINK) {
        return Err(pos.error(format!(
            "{} may not write $r63 (operand class nolink)",
            p.op.opc
        )));
    }
    Ok(p)
}

fn parse_target(c: &mut Cur, op: Op) -> Result<Pending, AsmError> {
    c.ws();
    let at = c.here();
    match c.operand()? {
        Operand::E(e) => Ok(Pending {
            op,
            sym: Some((e, Fill::Target)),
            flags: OpFlags::empty(),
            pos: at,
        }),
        _ => Err(at.error("expected a label or address")),
    }
}

/// Accept an optional `$r63` (and `= $r63`) after an indirect control operation.
fn optional_link(c: &mut Cur) -> Result<(), AsmError> {
    if c.at_end() {
        return Ok(());
    }
    let at = c.here();
    if c.gpr()? != LINK {
        return Err(at.error("indirect control transfers go through $r63"));
    }
    if c.eat("=") {
        let at = c.here();
        if c.gpr()? != LINK {
            return Err(at.error("indirect control transfers go through $r63"));
        }
    }
    Ok(())
}

fn parse_body(mnemonic: &str, c: &mut Cur, pos: Pos) -> Result<Pending, AsmError> {
    match mnemonic {
        "nop" => return Ok(plain(Op::nop(), pos)),
        "mov" => {
            let d = c.gpr()?;
            c.expect("=")?;
            let at = c.here();
            return match c.operand()? {
                Operand::R(s) => Ok(plain(
                    Op::binary(Opcode::Add, Dest::R(d), 0, Src::R(s)),
                    pos,
                )),
                Operand::E(e) => with_expr(
                    Op::binary(Opcode::Add, Dest::R(d), 0, Src::Imm(0)),
                    e,
                    Fill::AluImm,
                    at,
                ),
                Operand::B(_) => Err(at.error("use `mfb` to copy a branch register")),
            };
        }
        "mtb" => {
            let b = c.breg()?;
            c.expect("=")?;
            let s = c.gpr()?;
            return Ok(plain(
                Op::binary(Opcode::Orl, Dest::B(b), s, Src::R(0)),
                pos,
            ));
        }
        "mfb" => {
            let d = c.gpr()?;
            c.expect("=")?;
            let b = c.breg()?;
            return Ok(plain(Op::select(Opcode::Slctf, d, b, 0, Src::Imm(1)), pos));
        }
        "zxtb" => {
            let d = c.gpr()?;
            c.expect("=")?;
            let s = c.gpr()?;
            return Ok(plain(
                Op::binary(Opcode::And, Dest::R(d), s, Src::Imm(255)),
                pos,
            ));
        }
        "return" | "igoto" => {
            optional_link(c)?;
            return Ok(plain(Op::jump(Opcode::Igoto, 0), pos));
        }
        "icall" => {
            optional_link(c)?;
            return Ok(plain(Op::jump(Opcode::Icall, 0), pos));
        }
        "goto" | "call" => {
            let opc = if mnemonic == "goto" {
                Opcode::Goto
            } else {
                Opcode::Call
            };
            let save = (c.rest, c.pos);
            if let Some(Operand::R(LINK)) = c.try_reg()? {
                if c.eat("=") {
                    // `call $r63 = target` (VEX form) or `call $r63 = $r63` (indirect).
                    if opc == Opcode::Call {
                        let save2 = c.rest;
                        if let Some(Operand::R(LINK)) = c.try_reg()? {
                            return Ok(plain(Op::jump(Opcode::Icall, 0), pos));
                        }
                        c.rest = save2;
                        return parse_target(c, Op::jump(opc, 0));
                    }
                    return c.error("unexpected `=`");
                }
                let indirect = if opc == Opcode::Goto {
                    Opcode::Igoto
                } else {
                    Opcode::Icall
                };
                return Ok(plain(Op::jump(indirect, 0), pos));
            }
            c.rest = save.0;
            return parse_target(c, Op::jump(opc, 0));
        }
        "syscall" => {
            c.ws();
            let at = c.here();
            let Operand::E(e) = c.operand()? else {
                return Err(at.error("expected a system call number"));
            };
            let n = e
                .constant()
                .ok_or_else(|| at.error("system call number must be a constant"))?;
            if !(0..1 << 21).contains(&n) {
                return Err(at.error("system call number must be in 0 .. 2^21-1"));
            }
            return Ok(plain(Op::syscall(n as u32), pos));
        }
        _ => {}
    }
    let Some(opc) = Opcode::from_mnemonic(mnemonic) else {
        return Err(pos.error(format!("unknown operation `{mnemonic}`")));
    };
    let info = opc.info();
    match info.format {
        Format::Binary => {
            let at = c.here();
            let dest = match c.operand()? {
                Operand::R(d) => Dest::R(d),
                Operand::B(b) if info.props.contains(OpProps::COMPARE) => Dest::B(b),
                _ => return Err(at.error(format!("`{opc}` needs a destination register"))),
            };
            c.expect("=")?;
            c.ws();
            let at1 = c.here();
            let x = c.operand()?;
            c.expect(",")?;
            c.ws();
            let at2 = c.here();
            let y = c.operand()?;
            binary_operands(opc, dest, (x, at1), (y, at2))
        }
        Format::Monadic => {
            let d = c.gpr()?;
            c.expect("=")?;
            let s = c.gpr()?;
            Ok(plain(Op::monadic(opc, d, s), pos))
        }
        Format::Select => {
            let d = c.gpr()?;
            c.expect("=")?;
            let b = c.breg()?;
            c.expect(",")?;
            let s1 = c.gpr()?;
            c.expect(",")?;
            c.ws();
            let at = c.here();
            match c.operand()? {
                Operand::R(s2) => Ok(plain(Op::select(opc, d, b, s1, Src::R(s2)), pos)),
                Operand::E(e) => {
                    with_expr(Op::select(opc, d, b, s1, Src::Imm(0)), e, Fill::AluImm, at)
                }
                Operand::B(_) => Err(at.error("expected a general register or an immediate")),
            }
        }
        Format::Carry => {
            let d = c.gpr()?;
            c.expect(",")?;
            let bd = c.breg()?;
            c.expect("=")?;
            let at = c.here();
            let ops = [
                c.operand()?,
                {
                    c.expect(",")?;
                    c.operand()?
                },
                {
                    c.expect(",")?;
                    c.operand()?
                },
            ];
            match ops {
                [Operand::B(bc), Operand::R(s1), Operand::R(s2)]
                | [Operand::R(s1), Operand::R(s2), Operand::B(bc)] => {
                    Ok(plain(Op::carry(opc, d, bd, bc, s1, s2), pos))
                }
                _ => Err(at.error(format!("`{opc}` takes $d, $b = $b, $r, $r"))),
            }
        }
        Format::Load => {
            let d = c.gpr()?;
            c.expect("=")?;
            c.ws();
            let at = c.here();
            let (e, base) = c.mem()?;
            with_expr(Op::load(opc, d, base, 0), e, Fill::MemOffset, at)
        }
        Format::Store => {
            c.ws();
            let at = c.here();
            let (e, base) = c.mem()?;
            c.expect("=")?;
            let v = c.gpr()?;
            with_expr(Op::store(opc, base, 0, v), e, Fill::MemOffset, at)
        }
        Format::Prefetch => {
            c.ws();
            let at = c.here();
            let (e, base) = c.mem()?;
            with_expr(Op::prefetch(base, 0), e, Fill::MemOffset, at)
        }
        Format::Branch => {
            let b = c.breg()?;
            c.expect(",")?;
            parse_target(c, Op::branch(opc, b, 0))
        }
        // Handled above by mnemonic.
        Format::Jump | Format::Indirect | Format::Syscall | Format::Nop => {
            Err(pos.error(format!("unknown operation `{mnemonic}`")))
        }
    }
}

fn binary_operands(
    opc: Opcode,
    dest: Dest,
    x: (Operand, Pos),
    y: (Operand, Pos),
) -> Result<Pending, AsmError> {
    let at = x.1;
    match (opc, x.0, y.0) {
        // sub $d = x, y: x in src2, y in src1 (isa.md §A3).
        (Opcode::Sub, Operand::R(a), Operand::R(b)) => {
            Ok(plain(Op::binary(opc, dest, b, Src::R(a)), at))
        }
        (Opcode::Sub, Operand::E(e), Operand::R(b)) => {
            with_expr(Op::binary(opc, dest, b, Src::Imm(0)), e, Fill::AluImm, at)
        }
        (Opcode::Sub, Operand::R(a), Operand::E(e)) => {
            let v = e.constant().ok_or_else(|| {
                y.1.error("`sub $d = $s, imm` needs a constant (it becomes add $d = $s, -imm)")
            })?;
            with_expr(
                Op::binary(Opcode::Add, dest, a, Src::Imm(0)),
                Expr::num(v.wrapping_neg()),
                Fill::AluImm,
                at,
            )
        }
        (_, Operand::R(a), Operand::R(b)) => Ok(plain(Op::binary(opc, dest, a, Src::R(b)), at)),
        (_, Operand::R(a), Operand::E(e)) => {
            with_expr(Op::binary(opc, dest, a, Src::Imm(0)), e, Fill::AluImm, at)
        }
        (_, Operand::R(_), Operand::B(_)) => {
            Err(y.1.error("expected a general register or an immediate"))
        }
        _ => Err(at.error("the first source operand must be a general register $rN")),
    }
}

/// Re-assemblable text of one operation of the bundle at `bundle_addr` (branch and call
/// targets printed as absolute addresses).
pub fn format_op(op: &Op, bundle_addr: u32) -> String {
    let mn = op.opc.mnemonic();
    let src2 = |s: Src| match s {
        Src::R(r) => format!("$r{r}"),
        Src::Imm(v) => v.to_string(),
        Src::None => String::from("?"),
    };
    let dest = match op.dest {
        Dest::R(r) => format!("$r{r}"),
        Dest::B(b) => format!("$b{b}"),
        Dest::None => String::from("?"),
    };
    let target = (bundle_addr as i64 + i64::from(op.imm)) as u32;
    match op.opc.info().format {
        Format::Nop => "nop".into(),
        Format::Binary => match (op.opc, op.dest, op.s1, op.s2) {
            (Opcode::Add, Dest::R(_), 0, s) => format!("mov {dest} = {}", src2(s)),
            (Opcode::Orl, Dest::B(_), s, Src::R(0)) => format!("mtb {dest} = $r{s}"),
            (Opcode::And, Dest::R(_), s, Src::Imm(255)) => format!("zxtb {dest} = $r{s}"),
            (Opcode::Sub, _, s1, s) => format!("sub {dest} = {}, $r{s1}", src2(s)),
            (_, _, s1, s) => format!("{mn} {dest} = $r{s1}, {}", src2(s)),
        },
        Format::Monadic => format!("{mn} {dest} = $r{}", op.s1),
        Format::Select => match (op.opc, op.s1, op.s2) {
            (Opcode::Slctf, 0, Src::Imm(1)) => format!("mfb {dest} = $b{}", op.b),
            _ => format!("{mn} {dest} = $b{}, $r{}, {}", op.b, op.s1, src2(op.s2)),
        },
        Format::Carry => format!(
            "{mn} {dest}, $b{} = $b{}, $r{}, {}",
            op.bdest,
            op.b,
            op.s1,
            src2(op.s2)
        ),
        Format::Load => format!("{mn} {dest} = {}[$r{}]", op.imm, op.s1),
        Format::Store => format!("{mn} {}[$r{}] = {}", op.imm, op.s1, src2(op.s2)),
        Format::Prefetch => format!("pft {}[$r{}]", op.imm, op.s1),
        Format::Branch => format!("{mn} $b{}, {target:#x}", op.b),
        Format::Jump => format!("{mn} {target:#x}"),
        Format::Indirect if op.opc == Opcode::Icall => "icall $r63".into(),
        Format::Indirect => "return $r63".into(),
        Format::Syscall => format!("syscall {}", op.imm),
    }
}

/// Symbol names by address, for listings.
struct Names {
    at: HashMap<u32, String>,
    funcs: Vec<(u32, String)>,
}

impl Names {
    fn new(obj: &Object) -> Names {
        let mut at = HashMap::new();
        let mut funcs = Vec::new();
        for s in &obj.symbols {
            at.entry(s.addr).or_insert_with(|| s.name.clone());
            if s.kind == SymbolKind::Function {
                funcs.push((s.addr, s.name.clone()));
            }
        }
        funcs.sort();
        Names { at, funcs }
    }

    /// `<name+off>` for a code address.
    fn describe(&self, addr: u32) -> String {
        let i = self.funcs.partition_point(|f| f.0 <= addr);
        match i.checked_sub(1).map(|k| &self.funcs[k]) {
            Some((a, n)) if *a == addr => format!(" <{n}>"),
            Some((a, n)) => format!(" <{n}+{:#x}>", addr - a),
            None => String::new(),
        }
    }
}

/// objdump-style listing of an ST231 object: symbol table, code with addresses, encodings,
/// bundle separators (`;;`), annotations and branch-target symbols, then the data section.
pub fn disassemble(obj: &Object) -> String {
    let mut out = String::new();
    let names = Names::new(obj);
    let annots: HashMap<u32, OpFlags> = obj.annotations.iter().map(|a| (a.addr, a.flags)).collect();
    let _ = writeln!(
        out,
        "ssalab object: target {}, entry {:#010x}{}\n",
        obj.target,
        obj.entry,
        names.describe(obj.entry)
    );
    let _ = writeln!(out, "SYMBOL TABLE:");
    for s in &obj.symbols {
        let k = if s.kind == SymbolKind::Function {
            'F'
        } else {
            'O'
        };
        let _ = writeln!(out, "{:08x} {k} {:08x} {}", s.addr, s.size, s.name);
    }
    let _ = writeln!(out, "\nDisassembly of section .text:");
    let words: Vec<u32> = obj
        .code
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut i = 0;
    while i < words.len() {
        let addr = obj.code_base + 4 * i as u32;
        if let Some(name) = names.at.get(&addr) {
            let _ = writeln!(out, "\n{addr:08x} <{name}>:");
        }
        match decode_bundle(&words[i..]) {
            Ok(b) => {
                for k in 0..b.syllables {
                    let a = addr + 4 * k as u32;
                    let w = words[i + k];
                    let text = match b.ops.iter().find(|(_, s)| *s == k) {
                        Some((op, _)) => {
                            let mut t = format_op(op, addr);
                            if matches!(op.opc.info().format, Format::Branch | Format::Jump) {
                                t += &names.describe((addr as i64 + i64::from(op.imm)) as u32);
                            }
                            t
                        }
                        None if w & (1 << 23) != 0 => format!("immr {:#x}", w & 0x7F_FFFF),
                        None => format!("imml {:#x}", w & 0x7F_FFFF),
                    };
                    let ann = annots
                        .get(&a)
                        .map_or(String::new(), |f| format!("    ## {}", flag_words(*f)));
                    let _ = writeln!(out, "    {a:6x}:\t{w:08x}\t{text}{ann}");
                }
                let _ = writeln!(out, "\t\t\t;;");
                i += b.syllables;
            }
            Err(e) => {
                let w = words[i];
                let _ = writeln!(out, "    {addr:6x}:\t{w:08x}\t.word {w:#010x}    # {e}");
                i += 1;
                if w & STOP != 0 {
                    let _ = writeln!(out, "\t\t\t;;");
                }
            }
        }
    }
    if !obj.data.is_empty() || obj.bss_size > 0 {
        let _ = writeln!(
            out,
            "\nContents of section .data ({} bytes, then {} bytes of bss):",
            obj.data.len(),
            obj.bss_size
        );
        for (k, chunk) in obj.data.chunks(16).enumerate() {
            let a = obj.data_base + 16 * k as u32;
            let hex: Vec<String> = chunk
                .chunks(4)
                .map(|g| g.iter().map(|b| format!("{b:02x}")).collect())
                .collect();
            let ascii: String = chunk
                .iter()
                .map(|&b| {
                    if (0x20..0x7F).contains(&b) {
                        b as char
                    } else {
                        '.'
                    }
                })
                .collect();
            let _ = writeln!(out, " {a:06x} {:<35}  {ascii}", hex.join(" "));
        }
    }
    out
}

/// Annotation words as written in source (`copy, spill_load`).
pub fn flag_words(f: OpFlags) -> String {
    let mut v = Vec::new();
    for (flag, word) in [
        (OpFlags::COPY, "copy"),
        (OpFlags::SPILL_LOAD, "spill_load"),
        (OpFlags::SPILL_STORE, "spill_store"),
        (OpFlags::SWAP_PART, "swap"),
    ] {
        if f.contains(flag) {
            v.push(word);
        }
    }
    v.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(src: &str) -> Op {
        let o = assemble(&format!("{src} ;;\n")).unwrap_or_else(|e| panic!("{e}"));
        let w: Vec<u32> = o
            .code
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        decode_bundle(&w).unwrap().ops[0].0
    }

    #[test]
    fn operand_orders() {
        assert_eq!(
            one("add $r1 = $r2, $r3"),
            Op::binary(Opcode::Add, Dest::R(1), 2, Src::R(3))
        );
        assert_eq!(
            one("sub $r1 = $r2, $r3"),
            Op::binary(Opcode::Sub, Dest::R(1), 3, Src::R(2))
        );
        assert_eq!(
            one("sub $r1 = 5, $r3"),
            Op::binary(Opcode::Sub, Dest::R(1), 3, Src::Imm(5))
        );
        assert_eq!(
            one("sub $r1 = $r3, 5"),
            Op::binary(Opcode::Add, Dest::R(1), 3, Src::Imm(-5))
        );
        assert_eq!(
            one("mov $r1 = $r2"),
            Op::binary(Opcode::Add, Dest::R(1), 0, Src::R(2))
        );
        assert_eq!(
            one("mtb $b2 = $r3"),
            Op::binary(Opcode::Orl, Dest::B(2), 3, Src::R(0))
        );
        assert_eq!(
            one("mfb $r4 = $b1"),
            Op::select(Opcode::Slctf, 4, 1, 0, Src::Imm(1))
        );
        assert_eq!(
            one("cmplt $b1 = $r2, 100"),
            Op::binary(Opcode::Cmplt, Dest::B(1), 2, Src::Imm(100))
        );
        assert_eq!(
            one("addcg $r1, $b1 = $b2, $r3, $r4"),
            Op::carry(Opcode::Addcg, 1, 1, 2, 3, 4)
        );
        assert_eq!(
            one("addcg $r1, $b1 = $r3, $r4, $b2"),
            Op::carry(Opcode::Addcg, 1, 1, 2, 3, 4)
        );
        assert_eq!(one("ldw $r1 = -8[$sp]"), Op::load(Opcode::Ldw, 1, 12, -8));
        assert_eq!(one("stw 4[$r0.2] = $lr"), Op::store(Opcode::Stw, 2, 4, 63));
        assert_eq!(one("ldbu.d $r1 = [$r2]"), Op::load(Opcode::LdbuD, 1, 2, 0));
        assert_eq!(one("return $r63"), Op::jump(Opcode::Igoto, 0));
        assert_eq!(one("goto $r63"), Op::jump(Opcode::Igoto, 0));
        assert_eq!(one("call $r63 = $r63"), Op::jump(Opcode::Icall, 0));
        assert_eq!(one("syscall 3"), Op::syscall(3));
    }

    #[test]
    fn labels_branches_and_long_immediates() {
        let src = "\
main:
    mov $r1 = table ;;
loop:
    cmpne $b0 = $r1, 0 ;;
    br $b0, loop ;;
    call f
    ;;
f:  return $r63 ;;
.data
table: .word 1
";
        let o = assemble(src).unwrap();
        let w: Vec<u32> = o
            .code
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        // mov with a symbol takes 2 syllables: 0x1000 (op), 0x1004 (imml); loop at 0x1008.
        assert_eq!(w.len(), 6);
        let b0 = decode_bundle(&w[0..]).unwrap();
        assert_eq!(b0.ops[0].0.s2, Src::Imm(o.data_base as i32));
        // br at 0x100c targets 0x1008: displacement -4.
        assert_eq!(
            decode_bundle(&w[3..]).unwrap().ops[0].0,
            Op::branch(Opcode::Br, 0, -4)
        );
        // call at 0x1010 targets f at 0x1014.
        assert_eq!(
            decode_bundle(&w[4..]).unwrap().ops[0].0,
            Op::jump(Opcode::Call, 4)
        );
        assert!(o.function("f").is_some(), "call targets become functions");
        assert!(o.function("loop").is_none());
    }

    #[test]
    fn errors_point_at_the_problem() {
        let e = assemble("  add $r1 = $r2, $r64 ;;\n").unwrap_err();
        assert_eq!((e.line, e.col), (1, 18));
        let e = assemble("  frob $r1 = $r2 ;;\n").unwrap_err();
        assert_eq!((e.line, e.col), (1, 3));
        assert!(e.to_string().contains("unknown operation `frob`"));
        let e = assemble("  mul32 $r63 = $r1, $r2 ;;\n").unwrap_err();
        assert!(e.msg.contains("nolink"), "{e}");
        let e = assemble(" ldw $r1 = 0[$r2]\n ldw $r3 = 0[$r2] ;;\n").unwrap_err();
        assert!(e.msg.contains("more than one memory operation"), "{e}");
        let e = assemble(" add $r1 = $r2, $r3 junk ;;\n").unwrap_err();
        assert!(e.msg.contains("unexpected"), "{e}");
        let e = assemble(" goto nowhere ;;\n").unwrap_err();
        assert!(e.msg.contains("undefined symbol `nowhere`"), "{e}");
        assert!(e.to_string().contains('^'));
    }

    #[test]
    fn annotations_land_on_the_right_syllable() {
        let src = "main:\n mul32 $r1 = $r2, $r3 ## copy\n add $r4 = $r5, $r6 ## spill_load\n;;\n";
        let o = assemble(src).unwrap();
        // mul32 goes to lane 1 (0x1004), add to lane 0 (0x1000).
        assert_eq!(o.flags_at(0x1004), OpFlags::COPY);
        assert_eq!(o.flags_at(0x1000), OpFlags::SPILL_LOAD);
    }

    #[test]
    fn listing_shows_symbols_and_bundles() {
        let o = assemble(
            "main:\n add $r1 = $r2, 1000 ## copy\n;;\n goto main ;;\n.data\nx: .ascii \"hi\"\n",
        )
        .unwrap();
        let l = disassemble(&o);
        assert!(l.contains("00001000 <main>:"), "{l}");
        assert!(l.contains("add $r1 = $r2, 1000    ## copy"), "{l}");
        assert!(l.contains("imml 0x1"), "{l}");
        assert!(l.contains("goto 0x1000 <main>"), "{l}");
        assert!(l.contains(";;"));
        assert!(l.contains("hi"));
    }
}
