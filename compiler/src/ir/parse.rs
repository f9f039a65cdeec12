//! Text form of the IR: the parser (nom).
//!
//! ```text
//! module   := (global | func)*
//! global   := "global" "@"name "size" N "align" N ["const"] "=" ("zero" | x"HEX") reloc*
//! reloc    := "reloc" N "@"name ("+"|"-")N
//! func     := "func" "@"name "(" [%N ":" ty {"," %N ":" ty}] ")" ["->" ty] "{" slot* block* "}"
//! slot     := "slot" sN "size" N "align" N "\"name\""
//! block    := bN ":" inst* term
//! inst     := [%N ":" ty "="] op
//! op       := const N | copy %a | <binop> %a, %b | <unop> %a | cmp.<cc> %a, %b
//!           | select %c, %a, %b | addr @sym(+|-)N | slot sN | load.<mt>[.volatile] %a
//!           | store.<mt>[.volatile] %a, %v | call @f(%a, ...) | phi [bN: %v], ...
//! term     := jmp bN | br %c, bN, bN | ret [%v] | unreachable
//! ```
//! `//` starts a comment that runs to the end of the line. Blocks must be numbered `b0, b1, …`
//! in order, and slots `s0, s1, …`. Errors carry the line and column.

use super::*;
use nom::{
    branch::alt,
    bytes::complete::{tag, take_while, take_while1},
    character::complete::{char, digit1, multispace1, not_line_ending},
    combinator::{map, map_res, opt, recognize, value},
    multi::{many0, separated_list0},
    sequence::{pair, preceded},
    IResult,
};
use std::fmt;

/// A parse error located in the input text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for ParseError {}

type Res<'a, T> = IResult<&'a str, T>;

/// Skips whitespace and `//` comments.
fn ws(i: &str) -> Res<'_, ()> {
    value(
        (),
        many0(alt((
            value((), multispace1),
            value((), pair(tag("//"), not_line_ending)),
        ))),
    )(i)
}

/// A token: the parser `p` preceded by optional whitespace.
fn tok<'a, T>(p: impl FnMut(&'a str) -> Res<'a, T>) -> impl FnMut(&'a str) -> Res<'a, T> {
    preceded(ws, p)
}

fn kw<'a>(k: &'static str) -> impl FnMut(&'a str) -> Res<'a, &'a str> {
    tok(tag(k))
}

fn number_u32(i: &str) -> Res<'_, u32> {
    tok(map_res(digit1, str::parse::<u32>))(i)
}

fn number_i64(i: &str) -> Res<'_, i64> {
    tok(map_res(
        recognize(pair(opt(alt((char('-'), char('+')))), digit1)),
        str::parse::<i64>,
    ))(i)
}

fn number_i32(i: &str) -> Res<'_, i32> {
    // Accept the whole 32-bit range, signed or unsigned spelling.
    map_res(number_i64, |n| {
        if (i32::MIN as i64..=u32::MAX as i64).contains(&n) {
            Ok(n as i32)
        } else {
            Err("constant out of 32-bit range")
        }
    })(i)
}

fn ident(i: &str) -> Res<'_, &str> {
    take_while1(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$')(i)
}

fn symbol(i: &str) -> Res<'_, String> {
    map(tok(preceded(char('@'), ident)), str::to_string)(i)
}

fn value_ref(i: &str) -> Res<'_, Value> {
    map(tok(preceded(char('%'), map_res(digit1, str::parse))), Value)(i)
}

fn block_ref(i: &str) -> Res<'_, BlockId> {
    map(
        tok(preceded(char('b'), map_res(digit1, str::parse))),
        BlockId,
    )(i)
}

fn slot_ref(i: &str) -> Res<'_, SlotId> {
    map(
        tok(preceded(char('s'), map_res(digit1, str::parse))),
        SlotId,
    )(i)
}

fn ty(i: &str) -> Res<'_, Ty> {
    tok(alt((
        value(Ty::I32, tag("i32")),
        value(Ty::Ptr, tag("ptr")),
    )))(i)
}

fn mem_ty(i: &str) -> Res<'_, MemTy> {
    alt((
        value(MemTy::I8, tag("i8")),
        value(MemTy::U8, tag("u8")),
        value(MemTy::I16, tag("i16")),
        value(MemTy::U16, tag("u16")),
        value(MemTy::I32, tag("i32")),
    ))(i)
}

fn comma(i: &str) -> Res<'_, char> {
    tok(char(','))(i)
}

fn quoted(i: &str) -> Res<'_, String> {
    let (i, _) = tok(char('"'))(i)?;
    let mut out = String::new();
    let mut chars = i.char_indices();
    while let Some((k, c)) = chars.next() {
        match c {
            '"' => return Ok((&i[k + 1..], out)),
            '\\' => match chars.next() {
                Some((_, e @ ('"' | '\\'))) => out.push(e),
                Some((_, 'n')) => out.push('\n'),
                Some((_, 't')) => out.push('\t'),
                _ => break,
            },
            '\n' => break,
            c => out.push(c),
        }
    }
    Err(nom::Err::Error(nom::error::Error::new(
        i,
        nom::error::ErrorKind::Char,
    )))
}

fn signed_offset(i: &str) -> Res<'_, i32> {
    map(opt(number_i32), |o| o.unwrap_or(0))(i)
}

fn op(i: &str) -> Res<'_, Op> {
    let (rest, word) = tok(take_while1(|c: char| c.is_ascii_alphanumeric() || c == '.'))(i)?;
    let binop = BinOp::ALL.iter().find(|o| o.name() == word);
    if let Some(&b) = binop {
        let (r, a) = value_ref(rest)?;
        let (r, _) = comma(r)?;
        let (r, c) = value_ref(r)?;
        return Ok((r, Op::Bin(b, a, c)));
    }
    if let Some(&u) = UnOp::ALL.iter().find(|o| o.name() == word) {
        return map(value_ref, move |a| Op::Un(u, a))(rest);
    }
    if let Some(cc) = word.strip_prefix("cmp.") {
        if let Some(&c) = CmpOp::ALL.iter().find(|o| o.name() == cc) {
            let (r, a) = value_ref(rest)?;
            let (r, _) = comma(r)?;
            let (r, b) = value_ref(r)?;
            return Ok((r, Op::Cmp(c, a, b)));
        }
    }
    if let Some(spec) = word.strip_prefix("load.").or(word.strip_prefix("store.")) {
        let (vol_rest, mt) = mem_ty(spec).map_err(|_| fail(i))?;
        let volatile = match vol_rest {
            "" => false,
            ".volatile" => true,
            _ => return Err(fail(i)),
        };
        let (r, addr) = value_ref(rest)?;
        if word.starts_with("load.") {
            return Ok((
                r,
                Op::Load {
                    ty: mt,
                    addr,
                    volatile,
                },
            ));
        }
        let (r, _) = comma(r)?;
        let (r, v) = value_ref(r)?;
        return Ok((
            r,
            Op::Store {
                ty: mt,
                addr,
                value: v,
                volatile,
            },
        ));
    }
    match word {
        "const" => map(number_i32, Op::Const)(rest),
        "copy" => map(value_ref, Op::Copy)(rest),
        "select" => {
            let (r, c) = value_ref(rest)?;
            let (r, _) = comma(r)?;
            let (r, a) = value_ref(r)?;
            let (r, _) = comma(r)?;
            let (r, b) = value_ref(r)?;
            Ok((r, Op::Select(c, a, b)))
        }
        "addr" => {
            let (r, s) = symbol(rest)?;
            let (r, off) = signed_offset(r)?;
            Ok((r, Op::SymAddr(s, off)))
        }
        "slot" => map(slot_ref, Op::SlotAddr)(rest),
        "call" => {
            let (r, callee) = symbol(rest)?;
            let (r, _) = tok(char('('))(r)?;
            let (r, args) = separated_list0(comma, value_ref)(r)?;
            let (r, _) = tok(char(')'))(r)?;
            Ok((r, Op::Call { callee, args }))
        }
        "phi" => {
            let arg = |i| {
                let (r, _) = tok(char('['))(i)?;
                let (r, b) = block_ref(r)?;
                let (r, _) = tok(char(':'))(r)?;
                let (r, v) = value_ref(r)?;
                let (r, _) = tok(char(']'))(r)?;
                Ok((r, (b, v)))
            };
            map(separated_list0(comma, arg), Op::Phi)(rest)
        }
        _ => Err(fail(i)),
    }
}

fn fail(i: &str) -> nom::Err<nom::error::Error<&str>> {
    nom::Err::Error(nom::error::Error::new(i, nom::error::ErrorKind::Tag))
}

fn terminator(i: &str) -> Res<'_, Terminator> {
    alt((
        map(preceded(kw("jmp"), block_ref), Terminator::Jump),
        map(
            preceded(
                kw("br"),
                nom::sequence::tuple((value_ref, comma, block_ref, comma, block_ref)),
            ),
            |(cond, _, then_, _, else_)| Terminator::Branch { cond, then_, else_ },
        ),
        map(preceded(kw("ret"), opt(value_ref)), Terminator::Return),
        value(Terminator::Unreachable, kw("unreachable")),
    ))(i)
}

/// Parser state that turns nom failures into located messages.
struct Parser<'a> {
    src: &'a str,
}

impl<'a> Parser<'a> {
    fn error_at(&self, rest: &str, message: impl Into<String>) -> ParseError {
        let rest = rest.trim_start();
        let offset = self.src.len() - rest.len();
        let before = &self.src[..offset];
        let line = before.matches('\n').count() + 1;
        let col = offset - before.rfind('\n').map_or(0, |p| p + 1) + 1;
        ParseError {
            line,
            col,
            message: message.into(),
        }
    }

    fn expect<T>(
        &self,
        i: &'a str,
        what: &str,
        mut p: impl FnMut(&'a str) -> Res<'a, T>,
    ) -> Result<(&'a str, T), ParseError> {
        p(i).map_err(|_| self.error_at(i, format!("expected {what}")))
    }

    fn module(&self) -> Result<Module, ParseError> {
        let mut m = Module::default();
        let mut i = self.src;
        loop {
            let (r, _) = ws(i).map_err(|_| self.error_at(i, "bad whitespace"))?;
            i = r;
            if i.is_empty() {
                return Ok(m);
            }
            if let Ok((r, _)) = tag::<_, _, nom::error::Error<&str>>("global")(i) {
                let (r, g) = self.global(r)?;
                m.globals.push(g);
                i = r;
            } else if let Ok((r, _)) = tag::<_, _, nom::error::Error<&str>>("func")(i) {
                let (r, f) = self.function(r)?;
                m.functions.push(f);
                i = r;
            } else {
                return Err(self.error_at(i, "expected `global` or `func`"));
            }
        }
    }

    fn global(&self, i: &'a str) -> Result<(&'a str, Global), ParseError> {
        let (i, name) = self.expect(i, "a global name `@name`", symbol)?;
        let (i, _) = self.expect(i, "`size`", kw("size"))?;
        let (i, size) = self.expect(i, "a size", number_u32)?;
        let (i, _) = self.expect(i, "`align`", kw("align"))?;
        let (i, align) = self.expect(i, "an alignment", number_u32)?;
        if !align.is_power_of_two() {
            return Err(self.error_at(i, "alignment must be a power of two"));
        }
        let (i, readonly) = self.expect(i, "", map(opt(kw("const")), |c| c.is_some()))?;
        let (i, _) = self.expect(i, "`=`", tok(char('=')))?;
        let hex_init = preceded(tag("x\""), take_while(|c: char| c.is_ascii_hexdigit()));
        let (i, init) = self.expect(
            i,
            "`zero` or x\"hex bytes\"",
            tok(alt((map(tag("zero"), |_| ""), hex_init))),
        )?;
        let i = if init.is_empty() {
            i
        } else {
            self.expect(i, "closing `\"`", char('"'))?.0
        };
        if init.len() % 2 != 0 {
            return Err(self.error_at(i, "odd number of hex digits"));
        }
        let bytes: Vec<u8> = (0..init.len())
            .step_by(2)
            .map(|k| u8::from_str_radix(&init[k..k + 2], 16).unwrap_or(0))
            .collect();
        if bytes.len() as u64 > size as u64 {
            return Err(self.error_at(i, "initialiser larger than the global"));
        }
        let mut g = Global {
            name,
            size,
            align,
            init: bytes,
            relocs: Vec::new(),
            readonly,
        };
        let mut i = i;
        while let Ok((r, _)) = kw("reloc")(i) {
            let (r, offset) = self.expect(r, "a reloc offset", number_u32)?;
            let (r, symbol) = self.expect(r, "a symbol", symbol)?;
            let (r, addend) = self.expect(r, "an addend", signed_offset)?;
            if offset as u64 + 4 > size as u64 {
                return Err(self.error_at(r, "relocation outside the global"));
            }
            g.relocs.push(Reloc {
                offset,
                symbol,
                addend,
            });
            i = r;
        }
        Ok((i, g))
    }

    fn function(&self, i: &'a str) -> Result<(&'a str, Function), ParseError> {
        let (i, name) = self.expect(i, "a function name `@name`", symbol)?;
        let mut f = Function::new(&name);
        f.blocks.clear();
        let (i, _) = self.expect(i, "`(`", tok(char('(')))?;
        let param = pair(value_ref, preceded(tok(char(':')), ty));
        let (i, params) = self.expect(i, "parameters", separated_list0(comma, param))?;
        let (i, _) = self.expect(i, "`)`", tok(char(')')))?;
        let (i, ret) = self.expect(i, "", opt(preceded(kw("->"), ty)))?;
        f.ret = ret;
        let mut types = Types::default();
        let mut refs = Refs::default();
        for (v, t) in &params {
            types.define(self, i, *v, *t)?;
            f.params.push(*v);
        }
        let (mut i, _) = self.expect(i, "`{`", tok(char('{')))?;
        while let Ok((r, _)) = kw("slot")(i) {
            let (r, s) = self.expect(r, "a slot `sN`", slot_ref)?;
            if s.index() != f.slots.len() {
                return Err(self.error_at(
                    i,
                    format!(
                        "slots must be numbered in order; expected s{}",
                        f.slots.len()
                    ),
                ));
            }
            let (r, _) = self.expect(r, "`size`", kw("size"))?;
            let (r, size) = self.expect(r, "a size", number_u32)?;
            let (r, _) = self.expect(r, "`align`", kw("align"))?;
            let (r, align) = self.expect(r, "an alignment", number_u32)?;
            if !align.is_power_of_two() {
                return Err(self.error_at(r, "alignment must be a power of two"));
            }
            let (r, name) = self.expect(r, "a quoted slot name", quoted)?;
            f.new_slot(size, align, &name);
            i = r;
        }
        loop {
            if let Ok((r, _)) = tok(char::<_, nom::error::Error<&str>>('}'))(i) {
                i = r;
                break;
            }
            let (r, b) = self.expect(i, "a block label `bN:` or `}`", block_ref)?;
            if b.index() != f.blocks.len() {
                return Err(self.error_at(
                    i,
                    format!(
                        "blocks must be numbered in order; expected b{}",
                        f.blocks.len()
                    ),
                ));
            }
            let (r, _) = self.expect(r, "`:`", tok(char(':')))?;
            f.blocks.push(Block::new());
            i = self.block_body(r, &mut f, b, &mut types, &mut refs)?;
        }
        if f.blocks.is_empty() {
            return Err(self.error_at(i, format!("function @{name} has no blocks")));
        }
        for (target, at) in refs.blocks {
            if target.index() >= f.blocks.len() {
                return Err(self.error_at(at, format!("jump to missing block {target}")));
            }
        }
        for (slot, at) in refs.slots {
            if slot.index() >= f.slots.len() {
                return Err(self.error_at(at, format!("use of missing slot {slot}")));
            }
        }
        types.apply(&mut f);
        Ok((i, f))
    }

    fn block_body(
        &self,
        mut i: &'a str,
        f: &mut Function,
        b: BlockId,
        types: &mut Types,
        refs: &mut Refs<'a>,
    ) -> Result<&'a str, ParseError> {
        loop {
            if let Ok((r, t)) = terminator(i) {
                refs.blocks
                    .extend(t.successors().into_iter().map(|s| (s, i)));
                let mut uses = Vec::new();
                t.for_each_use(|v| uses.push(v));
                for v in uses {
                    types.used(self, i, v)?;
                }
                if let Terminator::Branch { then_, else_, .. } = t {
                    if then_ == else_ {
                        return Err(self.error_at(i, "a branch needs two different targets"));
                    }
                }
                f.blocks[b.index()].term = t;
                return Ok(r);
            }
            let def = pair(value_ref, preceded(tok(char(':')), ty));
            let (r, dst) =
                self.expect(i, "", opt(nom::sequence::terminated(def, tok(char('=')))))?;
            let (r, op) = self.expect(r, "an instruction or a terminator", op)?;
            if let Some((v, t)) = dst {
                types.define(self, i, v, t)?;
            }
            for v in op.uses() {
                types.used(self, i, v)?;
            }
            if let Op::SlotAddr(s) = op {
                refs.slots.push((s, i));
            }
            f.push(b, dst.map(|(v, _)| v), op);
            i = r;
        }
    }
}

/// Block and slot references, checked once the whole function is parsed.
#[derive(Default)]
struct Refs<'a> {
    blocks: Vec<(BlockId, &'a str)>,
    slots: Vec<(SlotId, &'a str)>,
}

/// Largest value number the text form accepts (a guard against absurd allocations).
const MAX_VALUE: usize = 1 << 24;

/// Register types collected while parsing; a value may be defined several times (non-SSA
/// form) but always with the same type.
#[derive(Default)]
struct Types {
    ty: Vec<Option<Ty>>,
}

impl Types {
    fn slot(&mut self, v: Value) -> &mut Option<Ty> {
        if self.ty.len() <= v.index() {
            self.ty.resize(v.index() + 1, None);
        }
        &mut self.ty[v.index()]
    }
    fn define(&mut self, p: &Parser<'_>, at: &str, v: Value, t: Ty) -> Result<(), ParseError> {
        if v.index() > MAX_VALUE {
            return Err(p.error_at(at, "value number too large"));
        }
        let slot = self.slot(v);
        match slot {
            Some(old) if *old != t => {
                Err(p.error_at(at, format!("{v} redefined with another type")))
            }
            _ => {
                *slot = Some(t);
                Ok(())
            }
        }
    }
    fn used(&mut self, p: &Parser<'_>, at: &str, v: Value) -> Result<(), ParseError> {
        if v.index() > MAX_VALUE {
            return Err(p.error_at(at, "value number too large"));
        }
        self.slot(v);
        Ok(())
    }
    fn apply(self, f: &mut Function) {
        f.reserve_values(self.ty.len());
        for (k, t) in self.ty.into_iter().enumerate() {
            f.set_value_ty(Value(k as u32), t.unwrap_or(Ty::I32));
        }
    }
}

/// Parses a whole module in text form.
pub fn parse_module(src: &str) -> Result<Module, ParseError> {
    Parser { src }.module()
}

/// Parses one `global` declaration of `src` that starts at byte `at`, just after the keyword
/// `global` (the machine-level IR text form embeds globals in this syntax). Returns the
/// global and the byte position after it; errors are located in `src`.
pub(crate) fn parse_global_at(src: &str, at: usize) -> Result<(Global, usize), ParseError> {
    let p = Parser { src };
    let (rest, g) = p.global(&src[at..])?;
    Ok((g, src.len() - rest.len()))
}

/// Parses a text containing exactly one function.
pub fn parse_function(src: &str) -> Result<Function, ParseError> {
    let mut m = parse_module(src)?;
    match m.functions.len() {
        1 => Ok(m.functions.pop().expect("one function")),
        n => Err(ParseError {
            line: 1,
            col: 1,
            message: format!("expected exactly one function, found {n}"),
        }),
    }
}
