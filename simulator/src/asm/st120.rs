//! ST120 (GP32) assembler and disassembler.
//!
//! Syntax (close to ST's, isa.md §B4/§B6); lines, comments, labels, `;;`, sections, data
//! directives and `## copy`-style annotations are the shared ones of [`super::driver`]:
//!
//! ```text
//! main:   MAKE R1, 0x00A1              # R1 = 0x000000A1
//!         MORE R1, 0x2BFA ;;           # R1 = 0x00A12BFA (tied: reads and writes R1)
//!         G3? ADD R1, R2, R3           # guarded: executes when G3 is true
//!         LDW R4, @(P2 !+ 1) ;;        # load at P2, then P2 += 1*4 (post-increment)
//!         SDW @(P2 + 2), R1 ;;         # store at P2 + 2*4
//!         G0! GOTO loop ;;             # conditional branches are taken on FALSE
//! ```
//!
//! * **Issue groups** end with `;;` (as on ST231): the operations since the previous `;;`
//!   form one group of at most 2, issued in the same cycle. A file with one operation per
//!   line must therefore end each line with `;;`. A label must start a group. A `;;` with
//!   no operation before it is ignored. The end of the file closes an open group.
//! * **Guards**: an optional `Gn?` prefix (execute when Gn is true; none = `G15?`, always).
//!   `GOTO` and `JUMP` take `Gn!` (taken when Gn is FALSE) or no prefix (unconditional);
//!   `Gn? GOTO` is an error that says so. `CALL`, `LINK`, `RTS`, `TRAP` take `Gn?`.
//! * **Registers** `R0..R15`, `P0..P15` (`SP` = `P15`), `G0..G15`; mnemonics and register
//!   names are case-insensitive.
//! * **Operands** follow the opcode table ([`crate::isa::st120::opcode`]); the register form
//!   and the immediate form share the mnemonic (`ADD R1, R2, R3` / `ADD R1, R2, 7`).
//!   Memory operands: `@(Pn + off)`, `@(Pn - off)`, `@(Pn !+ off)`, `@(Pn !- off)`, `@(Pn)`,
//!   where `off` is an unscaled constant (`u9`, or `u5` for `!+`/`!-`) or a register `Pq`;
//!   offsets count elements of the access size. Stores put the memory operand first:
//!   `SDW @(P2 + 2), R1`.
//! * **Immediates** are expressions (numbers, `'c'`, symbols, `.`, `+`/`-`); `%hi(e)` and
//!   `%lo(e)` give the upper (signed) and lower 16 bits of a 32-bit value, for
//!   `MAKEA P0, %hi(table)` / `MOREA P0, %lo(table)`. `MAKE`/`MAKEA` also accept the
//!   16-bit pattern 0x8000..0xFFFF for a negative value.
//! * **Branch targets** (`GOTO`, `CALL`) are addresses (usually labels); the encoding keeps
//!   a signed 20-bit word offset from the branch.
//! * `TRAP n` is the system call (ASSUMPTION, project convention): 1 exit(R0),
//!   2 print_int(R0), 3 print_char(R0), 4 write(P0, R0); alone in its group.
//!
//! The disassembler prints an objdump-style listing: address, encoding, operation, ` ;;` after
//! the last operation of a group, `<symbol+offset>` after branch targets and annotations as
//! `## copy` comments; its output assembles back to the same code.
//!
//! Everything is linear in the source or code size.

use super::driver::{assemble_with, CodeAssembler, CodeOutput, Pos, Symbols};
use super::expr::{parse_expr, Expr};
use super::AsmError;
use crate::isa::st120::encoding::{decode, encode};
use crate::isa::st120::issue::check_group;
use crate::isa::st120::opcode::{AddrMode, Inst, OpProps, Opcode, Operand};
use crate::isa::st120::{RegClass, GUARD_TRUE};
use crate::isa::Target;
use crate::object::{Annotation, Object, OpFlags, SymbolKind};
use nom::branch::alt;
use nom::bytes::complete::{tag, tag_no_case};
use nom::character::complete::{char, digit1, multispace0, one_of, space0};
use nom::combinator::{all_consuming, map, map_res, opt};
use nom::sequence::{delimited, preceded, tuple};
use nom::IResult;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::OnceLock;

/// Assemble ST120 source text into an object.
pub fn assemble(src: &str) -> Result<Object, AsmError> {
    assemble_with(src, Target::St120, St120Asm::default())
}

// ---------------------------------------------------------------------------------------
// Operand syntax

/// A parsed operand, before it is matched against an opcode's operand list.
#[derive(Clone, Debug, PartialEq)]
enum Syn {
    Reg(RegClass, u8),
    Mem {
        base: u8,
        mode: AddrMode,
        off_reg: u8,
        off: Option<ImmExpr>,
    },
    Imm(ImmExpr),
}

/// An immediate expression, possibly wrapped in `%hi(..)` / `%lo(..)`.
#[derive(Clone, Debug, PartialEq)]
struct ImmExpr {
    expr: Expr,
    part: Part,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    All,
    Hi,
    Lo,
}

impl ImmExpr {
    fn eval(&self, syms: &Symbols, dot: u32, pos: Pos) -> Result<i64, AsmError> {
        let v = syms.eval(&self.expr, dot, pos)?;
        if self.part != Part::All && !(-(1i64 << 31)..(1i64 << 32)).contains(&v) {
            return Err(pos.error(format!(
                "value {v} does not fit in 32 bits (its 16-bit halves are taken)"
            )));
        }
        Ok(match self.part {
            Part::All => v,
            Part::Hi => i64::from((v >> 16) as i16),
            Part::Lo => v & 0xFFFF,
        })
    }
}

fn reg_number(i: &str) -> IResult<&str, u8> {
    map_res(digit1, |d: &str| match d.parse::<u8>() {
        Ok(n) if n < 16 => Ok(n),
        _ => Err(()),
    })(i)
}

/// `R3`, `p15`, `G0`, `SP`.
fn register(i: &str) -> IResult<&str, (RegClass, u8)> {
    alt((
        map(tag_no_case("SP"), |_| (RegClass::P, 15)),
        map(tuple((one_of("RPGrpg"), reg_number)), |(c, n)| {
            let class = match c.to_ascii_uppercase() {
                'R' => RegClass::R,
                'P' => RegClass::P,
                _ => RegClass::G,
            };
            (class, n)
        }),
    ))(i)
}

fn ws<'a, O>(
    p: impl FnMut(&'a str) -> IResult<&'a str, O>,
) -> impl FnMut(&'a str) -> IResult<&'a str, O> {
    delimited(multispace0, p, multispace0)
}

/// Base register and, unless the operand is `@(Pn)`, the operator and raw offset text.
type MemParts<'a> = (u8, Option<(&'a str, &'a str)>);

/// `@(Pn op off)` or `@(Pn)`; the offset text is returned raw for expression parsing.
fn memory(i: &str) -> IResult<&str, MemParts<'_>> {
    let (i, _) = preceded(char('@'), ws(char('(')))(i)?;
    let (i, (class, base)) = register(i)?;
    if class != RegClass::P {
        return Err(nom::Err::Error(nom::error::Error::new(
            i,
            nom::error::ErrorKind::Verify,
        )));
    }
    let (i, _) = multispace0(i)?;
    let (i, rest) = opt(tuple((
        alt((tag("!+"), tag("!-"), tag("+"), tag("-"))),
        nom::bytes::complete::take_while1(|c| c != ')'),
    )))(i)?;
    let (i, _) = char(')')(i)?;
    Ok((i, (base, rest)))
}

fn parse_imm(text: &str) -> Result<ImmExpr, String> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    for (prefix, part) in [("%hi(", Part::Hi), ("%lo(", Part::Lo)] {
        if lower.starts_with(prefix) {
            let inner = t[prefix.len()..]
                .strip_suffix(')')
                .ok_or_else(|| format!("missing `)` in `{t}`"))?;
            return Ok(ImmExpr {
                expr: parse_expr(inner)?,
                part,
            });
        }
    }
    Ok(ImmExpr {
        expr: parse_expr(t)?,
        part: Part::All,
    })
}

fn parse_operand(text: &str) -> Result<Syn, String> {
    let t = text.trim();
    if t.starts_with('@') {
        let (rest, (base, tail)) = memory(t)
            .map_err(|_| format!("bad memory operand `{t}` (expected @(Pn op offset))"))?;
        if !rest.trim().is_empty() {
            return Err(format!(
                "unexpected `{}` after the memory operand",
                rest.trim()
            ));
        }
        let Some((op, off)) = tail else {
            return Ok(Syn::Mem {
                base,
                mode: AddrMode::PlusImm,
                off_reg: 0,
                off: None,
            });
        };
        let (post, minus) = (op.starts_with('!'), op.ends_with('-'));
        let off_t = off.trim();
        if let Ok((_, (RegClass::P, q))) = all_consuming(register)(off_t) {
            let mode = AddrMode::from_parts(post, minus, true);
            return Ok(Syn::Mem {
                base,
                mode,
                off_reg: q,
                off: None,
            });
        }
        if all_consuming(register)(off_t).is_ok() {
            return Err(format!(
                "offset register `{off_t}` must be a pointer register"
            ));
        }
        let mode = AddrMode::from_parts(post, minus, false);
        return Ok(Syn::Mem {
            base,
            mode,
            off_reg: 0,
            off: Some(parse_imm(off_t)?),
        });
    }
    if let Ok((_, (c, n))) = all_consuming(register)(t) {
        return Ok(Syn::Reg(c, n));
    }
    parse_imm(t).map(Syn::Imm)
}

/// Split an operand list at top-level commas, with each operand's offset in `s`.
fn split_operands(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push((start, &s[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s.trim().is_empty() {
        out.push((start, &s[start..]));
    }
    out.into_iter()
        .map(|(o, a)| (o + a.len() - a.trim_start().len(), a.trim()))
        .collect()
}

/// `G3?` / `G3!` guard prefix (spaces allowed before the mark: `G3 ? ADD`).
fn guard_prefix(i: &str) -> IResult<&str, (u8, bool)> {
    let (i, (_, n, _, c)) = tuple((one_of("Gg"), reg_number, space0, one_of("?!")))(i)?;
    Ok((i, (n, c == '!')))
}

/// Opcodes by mnemonic (the register, immediate and addressing-mode forms share one).
fn by_mnemonic() -> &'static HashMap<&'static str, Vec<Opcode>> {
    static TABLE: OnceLock<HashMap<&'static str, Vec<Opcode>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut m: HashMap<&'static str, Vec<Opcode>> = HashMap::new();
        for op in Opcode::all() {
            m.entry(op.mnemonic()).or_default().push(op);
        }
        m
    })
}

// ---------------------------------------------------------------------------------------
// Matching operands against an opcode

/// What the encoder still needs to evaluate for one operation.
#[derive(Clone, Debug)]
enum Pending {
    None,
    Imm(ImmExpr),
    Target(ImmExpr),
}

#[derive(Clone, Debug)]
struct ParsedOp {
    inst: Inst,
    pending: Pending,
    pos: Pos,
    flags: OpFlags,
    /// A code word given with `.word` in `.text`, emitted as it is (`inst` is unused).
    raw: Option<u32>,
}

fn describe(op: Opcode) -> String {
    let info = op.info();
    let show = |o: &Operand| match o {
        Operand::Def(c) | Operand::Use(c) | Operand::Tied(c) => format!("{}n", c.letter()),
        Operand::Imm(i) => format!("{}{}", if i.signed { "s" } else { "u" }, i.bits),
        Operand::Target => "label".to_string(),
    };
    match (op, info.mem) {
        (Opcode::Load(_, m), Some(a)) => {
            format!(
                "{} {}m, @(Pn {} {})",
                info.mnemonic,
                a.class.letter(),
                m.operator(),
                offset_kind(m)
            )
        }
        (Opcode::Store(_, m), Some(a)) => {
            format!(
                "{} @(Pn {} {}), {}m",
                info.mnemonic,
                m.operator(),
                offset_kind(m),
                a.class.letter()
            )
        }
        _ => {
            let ops: Vec<String> = info.operands().iter().map(show).collect();
            format!("{} {}", info.mnemonic, ops.join(", "))
        }
    }
}

fn offset_kind(m: AddrMode) -> String {
    if m.is_reg_offset() {
        "Pq".into()
    } else {
        format!("u{}", m.imm_bits())
    }
}

/// Try to read `syn` as the operand list of `op`: register numbers and the pending
/// immediate, or `None` when the shapes differ.
fn match_operands(op: Opcode, syn: &[Syn]) -> Option<([u8; 4], Pending)> {
    let info = op.info();
    let mut regs = [0u8; 4];
    match op {
        Opcode::Load(k, mode) => {
            let [Syn::Reg(c, v), Syn::Mem {
                base,
                mode: m,
                off_reg,
                off,
            }] = syn
            else {
                return None;
            };
            if *c != k.class() || *m != mode {
                return None;
            }
            regs[0] = *v;
            regs[1] = *base;
            regs[2] = *off_reg;
            return Some((regs, mem_pending(off)));
        }
        Opcode::Store(k, mode) => {
            let [Syn::Mem {
                base,
                mode: m,
                off_reg,
                off,
            }, Syn::Reg(c, v)] = syn
            else {
                return None;
            };
            if *c != k.class() || *m != mode {
                return None;
            }
            regs[0] = *base;
            if mode.is_reg_offset() {
                regs[1] = *off_reg;
                regs[2] = *v;
            } else {
                regs[1] = *v;
            }
            return Some((regs, mem_pending(off)));
        }
        _ => {}
    }
    if syn.len() != info.operands().len() {
        return None;
    }
    let mut pending = Pending::None;
    let mut k = 0;
    for (want, got) in info.operands().iter().zip(syn) {
        match (want, got) {
            (Operand::Def(c) | Operand::Use(c) | Operand::Tied(c), Syn::Reg(gc, n)) if c == gc => {
                regs[k] = *n;
                k += 1;
            }
            (Operand::Imm(_), Syn::Imm(e)) => pending = Pending::Imm(e.clone()),
            (Operand::Target, Syn::Imm(e)) => pending = Pending::Target(e.clone()),
            _ => return None,
        }
    }
    Some((regs, pending))
}

fn mem_pending(off: &Option<ImmExpr>) -> Pending {
    match off {
        Some(e) => Pending::Imm(e.clone()),
        None => Pending::None,
    }
}

/// Parse one operation statement (labels, comments and `;;` already removed).
fn parse_operation(text: &str, pos: Pos, flags: OpFlags) -> Result<ParsedOp, AsmError> {
    let (rest, prefix) = match guard_prefix(text) {
        Ok((r, g)) if r.starts_with(char::is_whitespace) => (r, Some(g)),
        _ => (text, None),
    };
    let body = rest.trim_start();
    let mpos = pos.offset(text.len() - body.len());
    let name_len = body.find(char::is_whitespace).unwrap_or(body.len());
    let name = body[..name_len].to_ascii_uppercase();
    let candidates = by_mnemonic()
        .get(name.as_str())
        .ok_or_else(|| mpos.error(format!("unknown ST120 operation `{}`", &body[..name_len])))?;
    let args = &body[name_len..];
    let args_pos = mpos.offset(name_len);
    let mut syn = Vec::new();
    for (off, a) in split_operands(args) {
        syn.push(parse_operand(a).map_err(|m| args_pos.offset(off).error(m))?);
    }
    // Conditional (on-false) and unconditional forms of GOTO / JUMP.
    let on_false = matches!(prefix, Some((_, true)));
    let guard = prefix.map_or(GUARD_TRUE, |g| g.0);
    let chosen: Vec<Opcode> = candidates
        .iter()
        .copied()
        .filter(|op| {
            let p = op.info().props;
            if p.contains(OpProps::ON_FALSE) || on_false {
                on_false && p.contains(OpProps::ON_FALSE)
            } else if p.contains(OpProps::UNGUARDED) && candidates.len() > 1 {
                prefix.is_none()
            } else {
                true
            }
        })
        .collect();
    if on_false && chosen.is_empty() {
        return Err(pos.error(format!(
            "only GOTO and JUMP take a `Gn!` guard (taken on false); write `G{guard}? {name}`"
        )));
    }
    if !on_false
        && prefix.is_some()
        && candidates
            .iter()
            .any(|o| o.info().props.contains(OpProps::ON_FALSE))
    {
        return Err(pos.error(format!(
            "conditional {name} is taken when the guard is FALSE (isa.md §B4): write `G{guard}! {name}`"
        )));
    }
    for op in &chosen {
        if let Some((regs, pending)) = match_operands(*op, &syn) {
            let p = op.info().props;
            if p.contains(OpProps::UNGUARDED) && guard != GUARD_TRUE {
                return Err(pos.error(format!("{name} is not guarded")));
            }
            let inst = Inst {
                opcode: *op,
                guard,
                regs,
                imm: 0,
            };
            return Ok(ParsedOp {
                inst,
                pending,
                pos,
                flags,
                raw: None,
            });
        }
    }
    let forms: Vec<String> = {
        let mut v: Vec<String> = chosen.iter().map(|o| describe(*o)).collect();
        v.dedup();
        v.truncate(8);
        v
    };
    Err(mpos.error(format!(
        "bad operands for {name}; expected {}",
        forms.join(" | ")
    )))
}

// ---------------------------------------------------------------------------------------
// The CodeAssembler

#[derive(Default)]
struct St120Asm {
    ops: Vec<ParsedOp>,
    /// Index in `ops` of the first operation of the open group.
    group_start: usize,
    /// Indices of operations that end a group.
    stops: Vec<bool>,
    calls: Vec<String>,
}

impl CodeAssembler for St120Asm {
    fn operation(&mut self, text: &str, pos: Pos, flags: OpFlags) -> Result<(), AsmError> {
        let op = parse_operation(text, pos, flags)?;
        if self.ops.len() - self.group_start >= 2 {
            return Err(
                pos.error("an issue group holds at most 2 operations (end groups with `;;`)")
            );
        }
        if op.inst.opcode == Opcode::Call {
            if let Pending::Target(e) = &op.pending {
                if let [(false, crate::asm::expr::Atom::Sym(s))] = e.expr.terms.as_slice() {
                    self.calls.push(s.clone());
                }
            }
        }
        self.ops.push(op);
        self.stops.push(false);
        Ok(())
    }

    fn end_group(&mut self, pos: Pos) -> Result<(), AsmError> {
        if self.ops.len() == self.group_start {
            return Ok(());
        }
        let group: Vec<Inst> = self.ops[self.group_start..]
            .iter()
            .map(|o| o.inst)
            .collect();
        check_group(&group).map_err(|m| {
            let first = self.ops[self.group_start].pos;
            AsmError::new(first.line, first.col, format!("illegal issue group: {m}"))
        })?;
        let _ = pos;
        if let Some(s) = self.stops.last_mut() {
            *s = true;
        }
        self.group_start = self.ops.len();
        Ok(())
    }

    fn group_open(&self) -> bool {
        self.ops.len() > self.group_start
    }

    fn raw_words(&mut self, words: &[u32], pos: Pos) -> Result<(), AsmError> {
        for &w in words {
            self.ops.push(ParsedOp {
                inst: Inst::new(Opcode::Nop, &[], 0),
                pending: Pending::None,
                pos,
                flags: OpFlags::empty(),
                raw: Some(w),
            });
            self.stops.push(w >> 31 != 0);
        }
        self.group_start = self.ops.len();
        Ok(())
    }

    fn code_size(&self) -> u32 {
        4 * self.ops.len() as u32
    }

    fn finish(self, syms: &Symbols) -> Result<CodeOutput, AsmError> {
        let mut out = CodeOutput {
            call_targets: self.calls,
            ..CodeOutput::default()
        };
        out.code.reserve(4 * self.ops.len());
        for (i, op) in self.ops.iter().enumerate() {
            if let Some(w) = op.raw {
                out.code.extend_from_slice(&w.to_le_bytes());
                continue;
            }
            let pc = syms.code_base + 4 * i as u32;
            let mut inst = op.inst;
            match &op.pending {
                Pending::None => {}
                Pending::Imm(e) => {
                    let v = e.eval(syms, pc, op.pos)?;
                    inst.imm = fit_immediate(&inst, v).map_err(|m| op.pos.error(m))?;
                }
                Pending::Target(e) => {
                    let t = e.eval(syms, pc, op.pos)?;
                    if !(0..(1i64 << 32)).contains(&t) {
                        return Err(op
                            .pos
                            .error(format!("branch target {t} is not a 32-bit address")));
                    }
                    let delta = (t as u32).wrapping_sub(pc) as i32;
                    if delta % 4 != 0 {
                        return Err(op
                            .pos
                            .error(format!("branch target {t:#x} is not word-aligned")));
                    }
                    inst.imm = delta / 4;
                }
            }
            let word = encode(&inst, self.stops[i]).map_err(|e| op.pos.error(e.to_string()))?;
            out.code.extend_from_slice(&word.to_le_bytes());
            if !op.flags.is_empty() {
                out.annotations.push(Annotation {
                    addr: pc,
                    flags: op.flags,
                });
            }
        }
        Ok(out)
    }
}

/// Range-check an immediate for `inst` (MAKE/MAKEA also take the 16-bit pattern of a
/// negative number).
fn fit_immediate(inst: &Inst, v: i64) -> Result<i32, String> {
    let imm = inst.opcode.info().imm().ok_or("no immediate expected")?;
    if matches!(inst.opcode, Opcode::Make | Opcode::MakeA) && (0x8000..=0xFFFF).contains(&v) {
        return Ok(i32::from(v as u16 as i16));
    }
    if imm.contains(v) {
        Ok(v as i32)
    } else {
        let (lo, hi) = imm.range();
        Err(format!(
            "immediate {v} out of range {lo}..={hi} for {}",
            inst.opcode.mnemonic()
        ))
    }
}

// ---------------------------------------------------------------------------------------
// Printing

/// Assembly text of one operation at address `pc`; `label` names an address for branch
/// targets (e.g. `<main+0x10>`).
pub fn format_inst(inst: &Inst, pc: u32, label: &dyn Fn(u32) -> Option<String>) -> String {
    let info = inst.opcode.info();
    let mut s = String::new();
    if info.props.contains(OpProps::ON_FALSE) {
        let _ = write!(s, "G{}! ", inst.guard);
    } else if inst.guard != GUARD_TRUE {
        let _ = write!(s, "G{}? ", inst.guard);
    }
    s.push_str(info.mnemonic);
    let r = |i: usize, c: RegClass| format!("{}{}", c.letter(), inst.regs[i]);
    let imm_text = |op: Opcode, v: i32| match op {
        Opcode::More | Opcode::MoreA | Opcode::MakeP => format!("0x{:04X}", v),
        _ => v.to_string(),
    };
    match (inst.opcode, info.mem) {
        (Opcode::Load(_, m), Some(a)) => {
            let _ = write!(
                s,
                " {}, {}",
                r(0, a.class),
                mem_text(m, inst.regs[1], inst.regs[2], inst.imm)
            );
        }
        (Opcode::Store(_, m), Some(a)) => {
            let (q, v) = if m.is_reg_offset() {
                (inst.regs[1], 2)
            } else {
                (0, 1)
            };
            let _ = write!(
                s,
                " {}, {}",
                mem_text(m, inst.regs[0], q, inst.imm),
                r(v, a.class)
            );
        }
        _ => {
            let mut parts = Vec::new();
            let mut k = 0;
            for o in info.operands() {
                match o {
                    Operand::Def(c) | Operand::Use(c) | Operand::Tied(c) => {
                        parts.push(r(k, *c));
                        k += 1;
                    }
                    Operand::Imm(_) => parts.push(imm_text(inst.opcode, inst.imm)),
                    Operand::Target => {
                        let t = pc.wrapping_add((inst.imm as u32).wrapping_mul(4));
                        match label(t) {
                            Some(l) => parts.push(format!("{t:#x} <{l}>")),
                            None => parts.push(format!("{t:#x}")),
                        }
                    }
                }
            }
            if !parts.is_empty() {
                s.push(' ');
                s.push_str(&parts.join(", "));
            }
        }
    }
    s
}

fn mem_text(m: AddrMode, base: u8, q: u8, imm: i32) -> String {
    if m.is_reg_offset() {
        format!("@(P{base} {} P{q})", m.operator())
    } else {
        format!("@(P{base} {} {imm})", m.operator())
    }
}

/// objdump-style listing of an ST120 object.
pub fn disassemble(obj: &Object) -> String {
    let mut funcs: Vec<(u32, &str)> = obj
        .symbols
        .iter()
        .filter(|s| s.kind == SymbolKind::Function)
        .map(|s| (s.addr, s.name.as_str()))
        .collect();
    funcs.sort();
    let label = |a: u32| -> Option<String> {
        let i = funcs.partition_point(|f| f.0 <= a);
        let (start, name) = *funcs.get(i.checked_sub(1)?)?;
        Some(if a == start {
            name.to_string()
        } else {
            format!("{name}+{:#x}", a - start)
        })
    };
    let flags: HashMap<u32, OpFlags> = obj.annotations.iter().map(|a| (a.addr, a.flags)).collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Disassembly of section .text (st120, entry {:#x}):",
        obj.entry
    );
    for (i, chunk) in obj.code.chunks_exact(4).enumerate() {
        let pc = obj.code_base.wrapping_add(4 * i as u32);
        if let Ok(k) = funcs.binary_search_by_key(&pc, |f| f.0) {
            let _ = writeln!(out, "\n{pc:08x} <{}>:", funcs[k].1);
        }
        let word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        let text = match decode(word) {
            Ok((inst, stop)) => {
                let mut t = format_inst(&inst, pc, &label);
                if stop {
                    t.push_str(" ;;");
                }
                t
            }
            Err(e) => format!(".word {word:#010x} # {}", e.reason),
        };
        let _ = write!(out, "{pc:8x}:\t{word:08x}\t{text}");
        if let Some(f) = flags.get(&pc).filter(|f| !f.is_empty()) {
            let _ = write!(out, " {}", annotation_text(*f));
        }
        out.push('\n');
    }
    if !obj.data.is_empty() || obj.bss_size > 0 {
        let _ = writeln!(
            out,
            "\n.data at {:#x}: {} bytes; .bss: {} bytes",
            obj.data_base,
            obj.data.len(),
            obj.bss_size
        );
    }
    out
}

/// `## copy, spill_load` text for annotation flags.
fn annotation_text(f: OpFlags) -> String {
    let mut words = Vec::new();
    for (flag, w) in [
        (OpFlags::COPY, "copy"),
        (OpFlags::SPILL_LOAD, "spill_load"),
        (OpFlags::SPILL_STORE, "spill_store"),
        (OpFlags::SWAP_PART, "swap"),
    ] {
        if f.contains(flag) {
            words.push(w);
        }
    }
    format!("## {}", words.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::st120::opcode::{BinOp, LoadKind, MulFamily, MulVariant, StoreKind};

    fn words(o: &Object) -> Vec<u32> {
        o.code
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    fn one(text: &str) -> Inst {
        let o = assemble(&format!("{text} ;;\n")).unwrap_or_else(|e| panic!("{text}: {e}"));
        decode(words(&o)[0]).unwrap().0
    }

    #[test]
    fn operations_parse() {
        assert_eq!(
            one("G3? ADD R1, R2, R3"),
            Inst::new(Opcode::Bin(BinOp::Add), &[1, 2, 3], 0).guarded(3)
        );
        assert_eq!(
            one("add r1, r2, 7"),
            Inst::new(Opcode::BinI(BinOp::Add), &[1, 2], 7)
        );
        assert_eq!(
            one("LDW R1, @(P2 !+ 1)"),
            Inst::new(Opcode::Load(LoadKind::W, AddrMode::PostIncImm), &[1, 2], 1)
        );
        assert_eq!(
            one("LDW R1, @(P2)"),
            Inst::new(Opcode::Load(LoadKind::W, AddrMode::PlusImm), &[1, 2], 0)
        );
        assert_eq!(
            one("LDH R1, @(P2 - P3)"),
            Inst::new(Opcode::Load(LoadKind::H, AddrMode::MinusReg), &[1, 2, 3], 0)
        );
        assert_eq!(
            one("SDW @(P2 + 2), R1"),
            Inst::new(Opcode::Store(StoreKind::W, AddrMode::PlusImm), &[2, 1], 2)
        );
        assert_eq!(
            one("SAW @(SP !- P4), P11"),
            Inst::new(
                Opcode::Store(StoreKind::Aw, AddrMode::PostDecReg),
                &[15, 4, 11],
                0
            )
        );
        assert_eq!(one("MAKE R1, 0x00A1"), Inst::new(Opcode::Make, &[1], 0xA1));
        assert_eq!(one("MAKE R1, 0xFFFF"), Inst::new(Opcode::Make, &[1], -1));
        assert_eq!(
            one("MORE R1, 0x2BFA"),
            Inst::new(Opcode::More, &[1], 0x2BFA)
        );
        assert_eq!(
            one("MAKEA P0, %hi(0x12348765)"),
            Inst::new(Opcode::MakeA, &[0], 0x1234)
        );
        assert_eq!(
            one("MOREA P0, %lo(0x12348765)"),
            Inst::new(Opcode::MoreA, &[0], 0x8765)
        );
        assert_eq!(
            one("MAUSLH R4, R5, R6, R7"),
            Inst::new(
                Opcode::Mul(MulFamily::Ma, MulVariant::new(true, false, false, true)),
                &[4, 5, 6, 7],
                0
            )
        );
        assert_eq!(
            one("G0! GOTO ."),
            Inst::new(Opcode::GotoF, &[], 0).guarded(0)
        );
        assert_eq!(one("GOTO .+8"), Inst::new(Opcode::Goto, &[], 2));
        assert_eq!(one("NOTG G2"), Inst::new(Opcode::NotG, &[2], 0));
        assert_eq!(one("G1? RTS"), Inst::new(Opcode::Rts, &[], 0).guarded(1));
        assert_eq!(one("TRAP 2"), Inst::new(Opcode::Trap, &[], 2));
    }

    #[test]
    fn errors_are_clear() {
        let err = |s: &str| assemble(s).unwrap_err().to_string();
        assert!(err("G3? GOTO x ;;\nx: NOP ;;\n").contains("taken when the guard is FALSE"));
        assert!(err("G3! ADD R1, R2, R3 ;;\n").contains("only GOTO and JUMP"));
        assert!(err("ADD R1, R2 ;;\n").contains("bad operands for ADD"));
        assert!(err("ADD R1, R2, 256 ;;\n").contains("out of range"));
        assert!(err("FROB R1 ;;\n").contains("unknown ST120 operation"));
        assert!(err("ADD R1, R2, R3\nADD R1, R2, R3\nADD R1, R2, R3 ;;\n").contains("at most 2"));
        assert!(err("GOTO x\nADD R1, R2, R3 ;;\nx: NOP ;;\n").contains("last operation"));
        assert!(err("LDW R1, @(P2 !+ 32) ;;\n").contains("out of range"));
        assert!(err("LDW R1, @(R2 + 1) ;;\n").contains("bad memory operand"));
        assert!(err("SETG G15 ;;\n").contains("G15"));
        assert!(err("ADD R16, R1, R2 ;;\n").contains("bad operands"));
        let e = assemble("  MAKE R1, 1 ;;\n  FROB ;;\n").unwrap_err();
        assert_eq!((e.line, e.col), (2, 3));
    }

    #[test]
    fn groups_labels_calls_and_listing() {
        let src = "\
main:   MAKE R0, 5
        CALL f ;;
        RTS ;;
f:      ADD R0, R0, R0 ## copy
        RTS ;;
";
        let o = assemble(src).unwrap();
        let w = words(&o);
        assert_eq!(w.len(), 5);
        assert_eq!(w[0] >> 31, 0);
        assert_eq!(w[1] >> 31, 1);
        assert!(o.function("f").is_some(), "call targets become functions");
        assert_eq!(
            o.annotations,
            vec![Annotation {
                addr: 0x100C,
                flags: OpFlags::COPY
            }]
        );
        let listing = disassemble(&o);
        assert!(listing.contains("CALL 0x100c <f> ;;"), "{listing}");
        assert!(listing.contains("ADD R0, R0, R0 ## copy"), "{listing}");
    }
}
