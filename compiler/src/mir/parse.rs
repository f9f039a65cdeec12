//! Text form of the machine-level IR: the parser. It reads exactly what [`super::print`]
//! writes (see its module doc for the grammar), so that `parse(print(f)) == f` for every
//! well-formed function, and gives located errors (`line:col: message`) for anything else.
//!
//! ```text
//! module   := (global | mfunc)*            globals in the mid-level IR syntax (`ir::parse`)
//! mfunc    := "mfunc" "@"name target "{" NL frame* [outgoing] [layout] block* "}"
//! frame    := "frame" fN "size" N "align" N (local|spill|save|incoming N) "\"name\""
//! outgoing := "outgoing" N
//! layout   := "layout" "size" N "offsets" "[" [int {"," int}] "]" ["finalized"]
//! block    := bN ":" NL (inst NL)*
//! inst     := [def {"," def} "="] [use "?"] NAME [operand {"," operand}] {"!"flag}
//! ```
//!
//! The function body is line oriented (one instruction per line), which keeps every optional
//! part of an instruction unambiguous; `//` starts a comment. Blocks must be numbered `b0, b1,
//! ...` in order and frame objects `f0, f1, ...`.
//!
//! Virtual registers: the class comes from the definition (`%3:r`). A use may come before the
//! definition in the text (the classes are resolved after the whole function is read). A
//! vreg that is used but never defined takes its class from a physical pin, from the operand
//! position of the target operation (`mir::verify::signature`), from the other side of a
//! copy / parallel copy, from a psi guard position (`G` on ST120, `B` on ST231) or the psi's
//! definition, or from a phi's definition; if none applies it is an error. The vreg table
//! ends at the highest vreg number the text mentions; numbers below it that never appear get
//! class `R` (the text does not record unreferenced vregs, so `parse(print(f)) == f` holds
//! when every vreg of `f` is mentioned — otherwise only `print(parse(print(f))) == print(f)`).
//!
//! The module's target is the target of its functions (all must agree); a module without
//! functions is an error because the text cannot say its target.
//!
//! Limits: vreg numbers below 2^24, block and frame numbers below 2^20, 2^20 operands per
//! instruction; no recursion depends on the input. Complexity: linear in the text size.

use super::function::*;
use super::target::{parse_reg, st120_op_from_name, RegClass};
use super::verify::signature;
use crate::ir;
pub use crate::ir::ParseError;
use simulator::isa::{st231, Target};

/// Largest virtual register number the text form accepts.
const MAX_VREG: u32 = 1 << 24;
/// Largest block or frame object number the text form accepts.
const MAX_INDEX: u32 = 1 << 20;

/// Parses a whole module (globals and machine functions).
pub fn parse_module(src: &str) -> Result<Module, ParseError> {
    let p = Parser { src };
    let mut globals = Vec::new();
    let mut functions: Vec<Function> = Vec::new();
    let mut pos = 0;
    loop {
        pos = p.skip_ws(pos);
        if pos >= src.len() {
            break;
        }
        let rest = &src[pos..];
        if let Some(after) = keyword(rest, "global") {
            let (g, end) = ir::parse::parse_global_at(src, pos + (rest.len() - after.len()))?;
            globals.push(g);
            pos = end;
        } else if keyword(rest, "mfunc").is_some() {
            let (f, end) = p.function(pos)?;
            if let Some(first) = functions.first() {
                if first.target != f.target {
                    return Err(p.error_at(
                        pos,
                        format!(
                            "function @{} is for {} but @{} is for {}",
                            f.name, f.target, first.name, first.target
                        ),
                    ));
                }
            }
            functions.push(f);
            pos = end;
        } else {
            return Err(p.error_at(
                pos,
                format!("expected `global` or `mfunc`, found `{}`", word_at(rest)),
            ));
        }
    }
    let Some(target) = functions.first().map(|f| f.target) else {
        return Err(p.error_at(
            src.len(),
            "a machine module needs at least one `mfunc` (it gives the target)",
        ));
    };
    Ok(Module {
        target,
        functions,
        globals,
    })
}

/// Parses a text holding exactly one machine function.
pub fn parse_function(src: &str) -> Result<Function, ParseError> {
    let p = Parser { src };
    let start = p.skip_ws(0);
    if keyword(&src[start..], "mfunc").is_none() {
        return Err(p.error_at(
            start,
            format!("expected `mfunc`, found `{}`", word_at(&src[start..])),
        ));
    }
    let (f, end) = p.function(start)?;
    let end = p.skip_ws(end);
    if end < src.len() {
        return Err(p.error_at(
            end,
            format!(
                "expected the end of the text after the function, found `{}`",
                word_at(&src[end..])
            ),
        ));
    }
    Ok(f)
}

/// `s` without the keyword `k` when `s` starts with `k` followed by a non-identifier byte.
fn keyword<'a>(s: &'a str, k: &str) -> Option<&'a str> {
    let rest = s.strip_prefix(k)?;
    match rest.bytes().next() {
        Some(b) if b.is_ascii_alphanumeric() || b == b'_' => None,
        _ => Some(rest),
    }
}

/// The word at the start of `s` (for error messages), at most 24 characters.
fn word_at(s: &str) -> String {
    let w: String = s
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != ',')
        .take(24)
        .collect();
    if w.is_empty() {
        match s.chars().next() {
            Some(c) => c.to_string(),
            None => "end of input".to_string(),
        }
    } else {
        w
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$'
}

/// The parser: the whole source, so that any sub-slice can be located.
struct Parser<'a> {
    src: &'a str,
}

/// A cursor over one line of the source.
struct Cur<'a> {
    s: &'a str,
    /// Byte position of `s` in the source.
    pos: usize,
}

impl<'a> Cur<'a> {
    fn skip_spaces(&mut self) {
        let n = self.s.len() - self.s.trim_start().len();
        self.advance(n);
    }
    fn advance(&mut self, n: usize) {
        self.s = &self.s[n..];
        self.pos += n;
    }
    fn at_end(&mut self) -> bool {
        self.skip_spaces();
        self.s.is_empty() || self.s.starts_with("//")
    }
    /// Consumes `t` (after spaces) if it is next.
    fn eat(&mut self, t: &str) -> bool {
        self.skip_spaces();
        if self.s.starts_with(t) {
            self.advance(t.len());
            true
        } else {
            false
        }
    }
    /// A run of bytes satisfying `f` (possibly empty).
    fn take_while(&mut self, f: impl Fn(char) -> bool) -> &'a str {
        self.skip_spaces();
        let n = self.s.find(|c: char| !f(c)).unwrap_or(self.s.len());
        let w = &self.s[..n];
        self.advance(n);
        w
    }
}

/// A register operand before vreg classes are resolved.
#[derive(Clone, Copy)]
struct RawOperand {
    op: Operand,
    /// Class written in a definition (`%3:r`).
    class: Option<RegClass>,
    pos: usize,
}

/// One operand item after the operation name.
enum Item {
    Use(RawOperand),
    Phi(BlockId, RawOperand),
    Psi(RawOperand, Option<RawOperand>),
    Imm(Imm),
}

/// Vreg classes collected while parsing one function.
#[derive(Default)]
struct Classes {
    class: Vec<Option<RegClass>>,
    /// Position of the first mention, for errors.
    first: Vec<usize>,
}

impl Classes {
    fn mention(&mut self, v: VReg, pos: usize) {
        let i = v.index();
        if self.class.len() <= i {
            self.class.resize(i + 1, None);
            self.first.resize(i + 1, usize::MAX);
        }
        if self.first[i] == usize::MAX {
            self.first[i] = pos;
        }
    }
    fn get(&self, v: VReg) -> Option<RegClass> {
        self.class.get(v.index()).copied().flatten()
    }
}

impl<'a> Parser<'a> {
    fn error_at(&self, pos: usize, message: impl Into<String>) -> ParseError {
        let pos = pos.min(self.src.len());
        let before = &self.src[..pos];
        let line = before.matches('\n').count() + 1;
        let col = before[before.rfind('\n').map_or(0, |p| p + 1)..]
            .chars()
            .count()
            + 1;
        ParseError {
            line,
            col,
            message: message.into(),
        }
    }

    /// Skips whitespace and `//` comments from `pos`.
    fn skip_ws(&self, mut pos: usize) -> usize {
        loop {
            let rest = &self.src[pos..];
            let t = rest.trim_start();
            pos += rest.len() - t.len();
            if t.starts_with("//") {
                pos += t.find('\n').unwrap_or(t.len());
            } else {
                return pos;
            }
        }
    }

    /// The line starting at `pos` (without its newline) and the position after it.
    fn line(&self, pos: usize) -> (Cur<'a>, usize) {
        let rest = &self.src[pos..];
        let n = rest.find('\n').unwrap_or(rest.len());
        let next = (pos + n + 1).min(self.src.len());
        (Cur { s: &rest[..n], pos }, next)
    }

    fn err_expected(&self, c: &mut Cur<'_>, what: &str) -> ParseError {
        c.skip_spaces();
        let found = if c.s.is_empty() {
            "end of line".to_string()
        } else {
            format!("`{}`", word_at(c.s))
        };
        self.error_at(c.pos, format!("expected {what}, found {found}"))
    }

    fn expect(&self, c: &mut Cur<'_>, t: &str) -> Result<(), ParseError> {
        if c.eat(t) {
            Ok(())
        } else {
            Err(self.err_expected(c, &format!("`{t}`")))
        }
    }

    fn expect_end(&self, c: &mut Cur<'_>) -> Result<(), ParseError> {
        if c.at_end() {
            Ok(())
        } else {
            Err(self.err_expected(c, "the end of the line"))
        }
    }

    fn number_u32(&self, c: &mut Cur<'_>, what: &str) -> Result<u32, ParseError> {
        let start = c.pos;
        let w = c.take_while(|ch| ch.is_ascii_digit());
        if w.is_empty() {
            return Err(self.err_expected(c, what));
        }
        w.parse()
            .map_err(|_| self.error_at(start, format!("{what} `{w}` is too large")))
    }

    fn number_i32(&self, c: &mut Cur<'_>, what: &str) -> Result<i32, ParseError> {
        c.skip_spaces();
        let start = c.pos;
        let neg = if c.s.starts_with('-') {
            c.advance(1);
            true
        } else {
            if c.s.starts_with('+') {
                c.advance(1);
            }
            false
        };
        let digits = &c.s[..c
            .s
            .find(|ch: char| !ch.is_ascii_digit())
            .unwrap_or(c.s.len())];
        if digits.is_empty() {
            return Err(self.err_expected(c, what));
        }
        c.advance(digits.len());
        let v: i64 = digits
            .parse::<i64>()
            .ok()
            .map(|v| if neg { -v } else { v })
            .filter(|v| (i64::from(i32::MIN)..=i64::from(i32::MAX)).contains(v))
            .ok_or_else(|| self.error_at(start, format!("{what} out of the 32-bit range")))?;
        Ok(v as i32)
    }

    /// `letter` followed by a number below [`MAX_INDEX`] (`b3`, `f0`).
    fn index(&self, c: &mut Cur<'_>, letter: char, what: &str) -> Result<u32, ParseError> {
        c.skip_spaces();
        let start = c.pos;
        let ok = c.s.starts_with(letter) && c.s[1..].starts_with(|ch: char| ch.is_ascii_digit());
        if !ok {
            return Err(self.err_expected(c, what));
        }
        c.advance(1);
        let n = self.number_u32(c, what)?;
        if n >= MAX_INDEX {
            return Err(self.error_at(start, format!("{what} number {n} is too large")));
        }
        Ok(n)
    }

    /// A Rust-debug-quoted string (what the printer writes with `{:?}`).
    fn quoted(&self, c: &mut Cur<'_>) -> Result<String, ParseError> {
        self.expect(c, "\"")?;
        let mut out = String::new();
        let mut it = c.s.char_indices();
        while let Some((k, ch)) = it.next() {
            match ch {
                '"' => {
                    c.advance(k + 1);
                    return Ok(out);
                }
                '\\' => {
                    let esc = it.next().map(|(_, e)| e);
                    match esc {
                        Some('"') => out.push('"'),
                        Some('\\') => out.push('\\'),
                        Some('\'') => out.push('\''),
                        Some('n') => out.push('\n'),
                        Some('t') => out.push('\t'),
                        Some('r') => out.push('\r'),
                        Some('0') => out.push('\0'),
                        Some('u') => {
                            let rest = &c.s[k + 2..];
                            let close = rest.find('}');
                            let code = close
                                .filter(|_| rest.starts_with('{'))
                                .and_then(|e| u32::from_str_radix(&rest[1..e], 16).ok())
                                .and_then(char::from_u32);
                            match (code, close) {
                                (Some(ch), Some(e)) => {
                                    out.push(ch);
                                    // skip `{...}`
                                    for _ in 0..=e {
                                        it.next();
                                    }
                                }
                                _ => return Err(self.error_at(c.pos + k, "bad `\\u{...}` escape")),
                            }
                        }
                        _ => return Err(self.error_at(c.pos + k, "bad escape in string")),
                    }
                }
                ch => out.push(ch),
            }
        }
        Err(self.error_at(c.pos, "unterminated string"))
    }

    /// `mfunc @name target {` ... `}` starting at `pos`; returns the function and the position
    /// after the closing brace.
    fn function(&self, pos: usize) -> Result<(Function, usize), ParseError> {
        let (mut c, mut next) = self.line(pos);
        self.expect(&mut c, "mfunc")?;
        let name = self.symbol(&mut c, "a function name `@name`")?;
        c.skip_spaces();
        let tpos = c.pos;
        let tname = c.take_while(|ch| ch.is_ascii_alphanumeric());
        let target: Target = tname.parse().map_err(|_| {
            self.error_at(
                tpos,
                format!(
                    "expected a target (st231 or st120), found `{}`",
                    word_at(tname)
                ),
            )
        })?;
        self.expect(&mut c, "{")?;
        self.expect_end(&mut c)?;
        let mut f = Function::new(&name, target);
        f.blocks.clear();
        let mut classes = Classes::default();
        let mut raws: Vec<Vec<RawInst>> = Vec::new();
        let mut header_done = false;
        loop {
            if next >= self.src.len() {
                return Err(self.error_at(self.src.len(), "missing `}` at the end of the function"));
            }
            let line_pos = next;
            let (mut c, after) = self.line(line_pos);
            next = after;
            if c.at_end() {
                continue;
            }
            if c.eat("}") {
                self.expect_end(&mut c)?;
                break;
            }
            let first = word_at(c.s);
            if !header_done {
                if let Some(rest) = keyword(c.s, "frame") {
                    c.advance(c.s.len() - rest.len());
                    self.frame_object(&mut c, &mut f)?;
                    continue;
                }
                if let Some(rest) = keyword(c.s, "outgoing") {
                    c.advance(c.s.len() - rest.len());
                    f.frame.outgoing_size = self.number_u32(&mut c, "a byte count")?;
                    self.expect_end(&mut c)?;
                    continue;
                }
                if let Some(rest) = keyword(c.s, "layout") {
                    c.advance(c.s.len() - rest.len());
                    self.layout(&mut c, &mut f.frame)?;
                    continue;
                }
            }
            if c.s.starts_with('b') && first.ends_with(':') {
                c.skip_spaces();
                let label_pos = c.pos;
                let b = self.index(&mut c, 'b', "a block label `bN:`")?;
                if b as usize != f.blocks.len() {
                    return Err(self.error_at(
                        label_pos,
                        format!(
                            "blocks must be numbered in order: expected b{}, found b{b}",
                            f.blocks.len()
                        ),
                    ));
                }
                self.expect(&mut c, ":")?;
                self.expect_end(&mut c)?;
                f.blocks.push(Block::default());
                raws.push(Vec::new());
                header_done = true;
                continue;
            }
            if f.blocks.is_empty() {
                return Err(self.err_expected(
                    &mut c,
                    "`frame`, `outgoing`, `layout`, a block label `b0:` or `}`",
                ));
            }
            let inst = self.inst(&mut c, target, &mut classes)?;
            raws.last_mut().expect("a block").push(inst);
        }
        if f.blocks.is_empty() {
            return Err(self.error_at(pos, format!("function @{name} has no blocks")));
        }
        self.resolve(&mut f, raws, &mut classes)?;
        Ok((f, next.min(self.src.len())))
    }

    fn symbol(&self, c: &mut Cur<'_>, what: &str) -> Result<String, ParseError> {
        if !c.eat("@") {
            return Err(self.err_expected(c, what));
        }
        let n = c.s.find(|ch: char| !is_ident_char(ch)).unwrap_or(c.s.len());
        if n == 0 {
            return Err(self.err_expected(c, "a name after `@`"));
        }
        let w = &c.s[..n];
        c.advance(n);
        Ok(w.to_string())
    }

    fn frame_object(&self, c: &mut Cur<'_>, f: &mut Function) -> Result<(), ParseError> {
        let start = c.pos;
        let idx = self.index(c, 'f', "a frame object `fN`")?;
        if idx as usize != f.frame.objects.len() {
            return Err(self.error_at(
                start,
                format!(
                    "frame objects must be numbered in order: expected f{}, found f{idx}",
                    f.frame.objects.len()
                ),
            ));
        }
        self.expect(c, "size")?;
        let size = self.number_u32(c, "a size")?;
        self.expect(c, "align")?;
        let apos = c.pos;
        let align = self.number_u32(c, "an alignment")?;
        if !align.is_power_of_two() {
            return Err(self.error_at(apos, "alignment must be a power of two"));
        }
        c.skip_spaces();
        let kpos = c.pos;
        let kind = match c.take_while(|ch| ch.is_ascii_alphabetic()) {
            "local" => FrameKind::Local,
            "spill" => FrameKind::Spill,
            "save" => FrameKind::Save,
            "incoming" => FrameKind::IncomingArg(self.number_u32(c, "an argument number")?),
            w => {
                return Err(self.error_at(
                    kpos,
                    format!(
                        "expected a frame kind (local, spill, save, incoming N), found `{}`",
                        word_at(w)
                    ),
                ))
            }
        };
        let name = self.quoted(c)?;
        self.expect_end(c)?;
        f.new_frame_object(size, align, kind, &name);
        Ok(())
    }

    fn layout(&self, c: &mut Cur<'_>, frame: &mut Frame) -> Result<(), ParseError> {
        self.expect(c, "size")?;
        frame.size = self.number_u32(c, "a frame size")?;
        self.expect(c, "offsets")?;
        self.expect(c, "[")?;
        frame.offsets.clear();
        if !c.eat("]") {
            loop {
                if frame.offsets.len() as u32 >= MAX_INDEX {
                    return Err(self.error_at(c.pos, "too many frame offsets"));
                }
                frame.offsets.push(self.number_i32(c, "an offset")?);
                if c.eat("]") {
                    break;
                }
                self.expect(c, ",")?;
            }
        }
        frame.finalized = c.eat("finalized");
        self.expect_end(c)
    }

    /// A `%N` virtual register or a physical register name.
    fn reg(&self, c: &mut Cur<'_>, t: Target, cl: &mut Classes) -> Option<Result<Reg, ParseError>> {
        c.skip_spaces();
        let start = c.pos;
        if c.s.starts_with('%') {
            c.advance(1);
            let digits = &c.s[..c
                .s
                .find(|ch: char| !ch.is_ascii_digit())
                .unwrap_or(c.s.len())];
            if digits.is_empty() {
                return Some(Err(
                    self.error_at(start, "expected a register number after `%`")
                ));
            }
            c.advance(digits.len());
            let v = match digits.parse::<u32>() {
                Ok(v) if v < MAX_VREG => VReg(v),
                _ => {
                    return Some(Err(self.error_at(
                        start,
                        format!("virtual register %{digits} is too large"),
                    )))
                }
            };
            cl.mention(v, start);
            return Some(Ok(Reg::V(v)));
        }
        let n =
            c.s.find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '$'))
                .unwrap_or(c.s.len());
        let w = &c.s[..n];
        let looks_physical = match t {
            Target::St231 => w.starts_with('$'),
            Target::St120 => {
                w.starts_with(['R', 'P', 'G'])
                    && w.len() > 1
                    && w[1..].bytes().all(|b| b.is_ascii_digit())
            }
        };
        if !looks_physical {
            return None;
        }
        Some(match parse_reg(t, w) {
            Some(p) => {
                c.advance(n);
                Ok(Reg::P(p))
            }
            None => Err(self.error_at(start, format!("`{w}` is not a {t} register"))),
        })
    }

    /// An operand with its optional `:class` (definitions) and `^pin`.
    fn operand(
        &self,
        c: &mut Cur<'_>,
        t: Target,
        cl: &mut Classes,
        is_def: bool,
    ) -> Option<Result<RawOperand, ParseError>> {
        c.skip_spaces();
        let pos = c.pos;
        let reg = match self.reg(c, t, cl)? {
            Ok(r) => r,
            Err(e) => return Some(Err(e)),
        };
        let mut class = None;
        if is_def && matches!(reg, Reg::V(_)) && c.s.starts_with(':') {
            c.advance(1);
            let n =
                c.s.find(|ch: char| !ch.is_ascii_alphabetic())
                    .unwrap_or(c.s.len());
            match RegClass::from_suffix(&c.s[..n]) {
                Some(k) => {
                    class = Some(k);
                    c.advance(n);
                }
                None => {
                    return Some(Err(self.error_at(
                        c.pos,
                        format!(
                            "unknown register class `{}` (r, b, p, g)",
                            word_at(&c.s[..n])
                        ),
                    )))
                }
            }
        }
        let mut pin = None;
        if c.s.starts_with('^') {
            c.advance(1);
            let ppos = c.pos;
            pin = Some(match self.reg(c, t, cl) {
                Some(Ok(Reg::P(p))) => Pin::Phys(p),
                Some(Ok(Reg::V(v))) => Pin::Var(v),
                Some(Err(e)) => return Some(Err(e)),
                None => {
                    return Some(Err(self.error_at(
                        ppos,
                        format!(
                            "expected a pin (register or %N) after `^`, found `{}`",
                            word_at(c.s)
                        ),
                    )))
                }
            });
        }
        Some(Ok(RawOperand {
            op: Operand { reg, pin },
            class,
            pos,
        }))
    }

    fn imm(&self, c: &mut Cur<'_>) -> Result<Imm, ParseError> {
        c.skip_spaces();
        if c.eat("#") {
            return Ok(Imm::Int(self.number_i32(c, "an integer after `#`")?));
        }
        for (part, open) in [(SymPart::Hi16, "hi("), (SymPart::Lo16, "lo(")] {
            if c.s.starts_with(open) {
                c.advance(open.len());
                let (name, offset) = self.sym_offset(c)?;
                self.expect(c, ")")?;
                return Ok(Imm::Sym { name, offset, part });
            }
        }
        if c.s.starts_with('@') {
            let (name, offset) = self.sym_offset(c)?;
            return Ok(Imm::Sym {
                name,
                offset,
                part: SymPart::Full,
            });
        }
        if let Some(rest) = keyword(c.s, "fn") {
            c.advance(c.s.len() - rest.len());
            return Ok(Imm::Func(self.symbol(c, "a function name `@name`")?));
        }
        if c.s.starts_with('b') {
            return Ok(Imm::Block(BlockId(self.index(c, 'b', "a block `bN`")?)));
        }
        if c.s.starts_with('f') {
            let idx = FrameIdx(self.index(c, 'f', "a frame object `fN`")?);
            let offset = self.opt_offset(c)?;
            return Ok(Imm::Frame { idx, offset });
        }
        Err(self.err_expected(
            c,
            "an operand (%N, a register, #int, @sym, hi(..), lo(..), bN, fn @f, fN)",
        ))
    }

    fn sym_offset(&self, c: &mut Cur<'_>) -> Result<(String, i32), ParseError> {
        let name = self.symbol(c, "a symbol `@name`")?;
        Ok((name, self.opt_offset(c)?))
    }

    /// An optional `+N` / `-N` written right after a symbol or frame object.
    fn opt_offset(&self, c: &mut Cur<'_>) -> Result<i32, ParseError> {
        if c.s.starts_with(['+', '-']) {
            self.number_i32(c, "an offset")
        } else {
            Ok(0)
        }
    }

    /// One item of the operand list.
    fn item(
        &self,
        c: &mut Cur<'_>,
        t: Target,
        cl: &mut Classes,
        opc: Opc,
    ) -> Result<Item, ParseError> {
        c.skip_spaces();
        if c.eat("[") {
            let item = if opc == Opc::Phi {
                let b = BlockId(self.index(c, 'b', "a predecessor block `bN`")?);
                self.expect(c, ":")?;
                let u = self.required_operand(c, t, cl)?;
                Item::Phi(b, u)
            } else {
                let g = self.required_operand(c, t, cl)?;
                let v = if c.eat(":") {
                    Some(self.required_operand(c, t, cl)?)
                } else {
                    None
                };
                Item::Psi(g, v)
            };
            self.expect(c, "]")?;
            return Ok(item);
        }
        if let Some(r) = self.operand(c, t, cl, false) {
            return Ok(Item::Use(r?));
        }
        Ok(Item::Imm(self.imm(c)?))
    }

    fn required_operand(
        &self,
        c: &mut Cur<'_>,
        t: Target,
        cl: &mut Classes,
    ) -> Result<RawOperand, ParseError> {
        match self.operand(c, t, cl, false) {
            Some(r) => r,
            None => Err(self.err_expected(c, "a register operand")),
        }
    }

    fn opcode(&self, c: &mut Cur<'_>, t: Target) -> Result<Opc, ParseError> {
        c.skip_spaces();
        let pos = c.pos;
        let name = c.take_while(|ch| !ch.is_whitespace() && ch != ',');
        let opc = match name {
            "phi" => Some(Opc::Phi),
            "parcopy" => Some(Opc::ParCopy),
            "copy" => Some(Opc::Copy),
            "psi" => Some(Opc::Psi),
            ".input" => Some(Opc::Input),
            ".output" => Some(Opc::Output),
            _ => match t {
                Target::St231 => st231::Opcode::from_mnemonic(name).map(Opc::St231),
                Target::St120 => st120_op_from_name(name).map(Opc::St120),
            },
        };
        opc.ok_or_else(|| {
            if name.is_empty() {
                self.error_at(
                    pos,
                    format!("expected an operation name, found `{}`", word_at(c.s)),
                )
            } else {
                self.error_at(pos, format!("unknown {t} operation `{name}`"))
            }
        })
    }

    /// One instruction line.
    fn inst(&self, c: &mut Cur<'a>, t: Target, cl: &mut Classes) -> Result<RawInst, ParseError> {
        let start = c.pos;
        // Definitions: try `def, def =`; fall back to no definitions.
        let mut defs = Vec::new();
        {
            let save = (c.s, c.pos);
            let mut ok = false;
            let mut trial = Vec::new();
            loop {
                match self.operand(c, t, cl, true) {
                    Some(Ok(d)) => trial.push(d),
                    Some(Err(e)) => {
                        // a malformed register at the start of the line is an error either way
                        return Err(e);
                    }
                    None => break,
                }
                if c.eat(",") {
                    continue;
                }
                if c.eat("=") {
                    ok = true;
                }
                break;
            }
            if ok {
                defs = trial;
            } else {
                c.s = save.0;
                c.pos = save.1;
            }
        }
        // Guard `use?`.
        let mut guard = None;
        {
            let save = (c.s, c.pos);
            if let Some(g) = self.operand(c, t, cl, false) {
                let g = g?;
                if c.s.starts_with('?') {
                    c.advance(1);
                    guard = Some(g);
                } else {
                    c.s = save.0;
                    c.pos = save.1;
                }
            }
        }
        let opc = self.opcode(c, t)?;
        let mut items = Vec::new();
        if !c.at_end() && !c.s.starts_with('!') {
            loop {
                if items.len() as u32 >= MAX_INDEX {
                    return Err(self.error_at(c.pos, "too many operands"));
                }
                items.push((c.pos, self.item(c, t, cl, opc)?));
                if !c.eat(",") {
                    break;
                }
            }
        }
        let mut flags = InstFlags::empty();
        while c.eat("!") {
            let fpos = c.pos;
            let w = c.take_while(|ch| ch.is_ascii_alphanumeric() || ch == '_');
            flags |= match w {
                "copy" => InstFlags::COPY,
                "spill_load" => InstFlags::SPILL_LOAD,
                "spill_store" => InstFlags::SPILL_STORE,
                "swap" => InstFlags::SWAP,
                "frame" => InstFlags::FRAME,
                "remat" => InstFlags::REMAT,
                "inserted" => InstFlags::INSERTED,
                "pinned" => InstFlags::PINNED,
                _ => {
                    return Err(self.error_at(
                        fpos,
                        format!(
                            "unknown flag `!{}` (copy, spill_load, spill_store, swap, frame, remat, inserted, pinned)",
                            word_at(w)
                        ),
                    ))
                }
            };
        }
        self.expect_end(c)?;
        self.assemble(start, opc, defs, guard, items, flags)
    }

    /// Builds an instruction from its parsed parts (operand kinds checked against the
    /// operation: phi pairs only in phis, psi pairs only in psis, the immediate last).
    fn assemble(
        &self,
        start: usize,
        opc: Opc,
        defs: Vec<RawOperand>,
        guard: Option<RawOperand>,
        items: Vec<(usize, Item)>,
        mut flags: InstFlags,
    ) -> Result<RawInst, ParseError> {
        let mut uses = Vec::new();
        let mut blocks = Vec::new();
        let mut imm = Imm::None;
        let n = items.len();
        for (k, (pos, item)) in items.into_iter().enumerate() {
            match item {
                Item::Use(u) if opc != Opc::Phi && opc != Opc::Psi => uses.push(u),
                Item::Phi(b, u) if opc == Opc::Phi => {
                    blocks.push(b);
                    uses.push(u);
                }
                Item::Psi(g, v) if opc == Opc::Psi => {
                    uses.push(g);
                    uses.extend(v);
                }
                Item::Imm(i) if k + 1 == n => imm = i,
                Item::Imm(_) => {
                    return Err(self.error_at(pos, "the immediate must be the last operand"))
                }
                Item::Use(_) => {
                    return Err(self.error_at(
                        pos,
                        "phi and psi operands are written in brackets: `[bN: %u]`, `[%g: %v]`",
                    ))
                }
                Item::Phi(..) | Item::Psi(..) => {
                    return Err(self.error_at(pos, "bracketed operands only belong to phi and psi"))
                }
            }
        }
        if opc == Opc::Phi {
            imm = Imm::Blocks(blocks);
        }
        if let Some(g) = guard {
            uses.push(g);
            flags |= InstFlags::GUARDED;
        }
        Ok(RawInst {
            pos: start,
            opc,
            defs,
            uses,
            imm,
            flags,
        })
    }

    /// Second pass: vreg classes, then the instructions.
    fn resolve(
        &self,
        f: &mut Function,
        raws: Vec<Vec<RawInst>>,
        cl: &mut Classes,
    ) -> Result<(), ParseError> {
        // Classes from definitions.
        for ri in raws.iter().flatten() {
            for d in &ri.defs {
                if let (Reg::V(v), Some(k)) = (d.op.reg, d.class) {
                    match cl.get(v) {
                        Some(old) if old != k => {
                            return Err(self.error_at(
                                d.pos,
                                format!(
                                    "{v} defined with class {} here but {} elsewhere",
                                    k.suffix(),
                                    old.suffix()
                                ),
                            ))
                        }
                        _ => cl.class[v.index()] = Some(k),
                    }
                }
            }
        }
        // Classes of never-defined vregs, inferred from their uses; iterate to a fixed point
        // (bounded: each round fixes at least one vreg or stops).
        let mut changed = true;
        let mut rounds = 0;
        while changed && rounds < 64 {
            changed = false;
            rounds += 1;
            for ri in raws.iter().flatten() {
                changed |= infer(f.target, ri, cl);
            }
        }
        for (i, k) in cl.class.iter().enumerate() {
            if k.is_none() && cl.first[i] != usize::MAX {
                return Err(self.error_at(
                    cl.first[i],
                    format!(
                        "%{i} is never defined and its register class cannot be inferred \
                         (define it, or write `%{i}:class` somewhere)"
                    ),
                ));
            }
        }
        f.vregs = cl
            .class
            .iter()
            .map(|k| VRegInfo {
                class: k.unwrap_or(RegClass::R),
            })
            .collect();
        for (b, insts) in raws.into_iter().enumerate() {
            f.blocks[b].insts = insts
                .into_iter()
                .map(|ri| Inst {
                    opc: ri.opc,
                    defs: ri.defs.iter().map(|d| d.op).collect(),
                    uses: ri.uses.iter().map(|u| u.op).collect(),
                    imm: ri.imm,
                    flags: ri.flags,
                })
                .collect();
        }
        Ok(())
    }
}

/// An instruction before vreg classes are resolved.
struct RawInst {
    #[allow(dead_code)]
    pos: usize,
    opc: Opc,
    defs: Vec<RawOperand>,
    uses: Vec<RawOperand>,
    imm: Imm,
    flags: InstFlags,
}

/// Sets the class of not-yet-classified vregs of `ri` that its operation determines.
/// Returns whether anything changed.
fn infer(t: Target, ri: &RawInst, cl: &mut Classes) -> bool {
    let mut changed = false;
    let mut set = |cl: &mut Classes, r: Reg, k: Option<RegClass>| {
        if let (Reg::V(v), Some(k)) = (r, k) {
            if cl.get(v).is_none() {
                cl.class[v.index()] = Some(k);
                changed = true;
            }
        }
    };
    let class_of = |cl: &Classes, r: Reg| match r {
        Reg::V(v) => cl.get(v),
        Reg::P(p) => Some(p.class),
    };
    // Physical pins give the class directly; a Var pin ties two vregs.
    for o in ri.defs.iter().chain(&ri.uses) {
        match o.op.pin {
            Some(Pin::Phys(p)) => set(cl, o.op.reg, Some(p.class)),
            Some(Pin::Var(v)) => {
                let k = class_of(cl, o.op.reg);
                set(cl, Reg::V(v), k);
                let k = cl.get(v);
                set(cl, o.op.reg, k);
            }
            None => {}
        }
    }
    let guarded = ri.flags.contains(InstFlags::GUARDED);
    match ri.opc {
        Opc::Phi => {
            let k = ri.defs.first().and_then(|d| class_of(cl, d.op.reg));
            for u in &ri.uses {
                set(cl, u.op.reg, k);
            }
            if let Some(d) = ri.defs.first() {
                let k = ri.uses.iter().find_map(|u| class_of(cl, u.op.reg));
                set(cl, d.op.reg, k);
            }
        }
        Opc::Copy | Opc::ParCopy => {
            for (d, u) in ri.defs.iter().zip(&ri.uses) {
                let k = class_of(cl, d.op.reg);
                set(cl, u.op.reg, k);
                let k = class_of(cl, u.op.reg);
                set(cl, d.op.reg, k);
            }
        }
        Opc::Psi => {
            let gk = match t {
                Target::St231 => RegClass::B,
                Target::St120 => RegClass::G,
            };
            let k = ri.defs.first().and_then(|d| class_of(cl, d.op.reg));
            for pair in ri.uses.chunks(2) {
                set(cl, pair[0].op.reg, Some(gk));
                if let Some(v) = pair.get(1) {
                    set(cl, v.op.reg, k);
                }
            }
        }
        Opc::Input | Opc::Output => {}
        Opc::St231(_) | Opc::St120(_) => {
            let inst = Inst {
                opc: ri.opc,
                defs: ri.defs.iter().map(|d| d.op).collect(),
                uses: ri.uses.iter().map(|u| u.op).collect(),
                imm: ri.imm.clone(),
                flags: ri.flags,
            };
            let sig = signature(t, &inst);
            for (k, d) in ri.defs.iter().enumerate() {
                set(cl, d.op.reg, sig.def_class(k).and_then(|s| s.single()));
            }
            let n = ri.uses.len() - usize::from(guarded && !ri.uses.is_empty());
            for (k, u) in ri.uses[..n].iter().enumerate() {
                set(cl, u.op.reg, sig.use_class(k).and_then(|s| s.single()));
            }
            if guarded {
                if let Some(g) = ri.uses.last() {
                    set(cl, g.op.reg, Some(RegClass::G));
                }
            }
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use simulator::isa::st120::{AddrMode, LoadKind, Opcode as O120};

    const DOC_EXAMPLE: &str = r#"mfunc @dot st231 {
  frame f0 size 40 align 4 local "buf"
b0:
  %0:r^$r16, %1:r^$r17 = .input
  %2:r = add %0, #5
  %3:b = cmplt %2, %1
  br %3, b2
  goto b1
b1:
  %4:r = ldw %0, f0+4 !spill_load
  %5:r = copy %4 !copy
  %6:r, %7:r = parcopy %5, %4 !copy
  %8:r^$r16 = call %6^$r16, fn @g
  goto b2
b2:
  %9:r = phi [b0: %2], [b1: %8]
  .output %9^$r16
  return
}
"#;

    fn err(src: &str) -> ParseError {
        parse_function(src).expect_err("should not parse")
    }

    #[test]
    fn parses_the_documented_example() {
        let f = parse_function(DOC_EXAMPLE).unwrap();
        assert_eq!(f.target, Target::St231);
        assert_eq!(f.blocks.len(), 3);
        assert_eq!(f.vregs.len(), 10);
        assert_eq!(f.class_of(VReg(3)), RegClass::B);
        let ld = &f.blocks[1].insts[0];
        assert_eq!(
            ld.imm,
            Imm::Frame {
                idx: FrameIdx(0),
                offset: 4
            }
        );
        assert!(ld.flags.contains(InstFlags::SPILL_LOAD));
        let phi = &f.blocks[2].insts[0];
        assert_eq!(phi.phi_blocks(), &[BlockId(0), BlockId(1)]);
        // `return` is the ST231 spelling of igoto; it prints as `igoto`.
        assert_eq!(f.blocks[2].insts[2].opc, Opc::St231(st231::Opcode::Igoto));
        let again = parse_function(&f.to_string()).unwrap();
        assert_eq!(again, f);
    }

    #[test]
    fn st120_guards_tied_operands_and_names() {
        let src = "mfunc @k st120 {
b0:
  %0:p^P0 = .input
  %1:g = LTW.i %2, #10
  %3:r, %4:p = %1? LDW!+i %0^%4, #1
  %2:r = MAKE #-3
  %1? GOTO.f b0
  RTS
}";
        let f = parse_function(src).unwrap();
        let ld = &f.blocks[0].insts[2];
        assert_eq!(
            ld.opc,
            Opc::St120(O120::Load(LoadKind::W, AddrMode::PostIncImm))
        );
        assert!(ld.flags.contains(InstFlags::GUARDED));
        assert_eq!(ld.guard().unwrap().reg, Reg::V(VReg(1)));
        assert_eq!(ld.uses[0].pin, Some(Pin::Var(VReg(4))));
        // %2 is used before its definition: fine.
        assert_eq!(f.class_of(VReg(2)), RegClass::R);
        assert_eq!(f.blocks[0].insts[4].control(), Control::CondBranch);
        assert_eq!(parse_function(&f.to_string()).unwrap(), f);
    }

    #[test]
    fn classes_of_undefined_vregs_are_inferred_or_rejected() {
        // %5 is never defined: its class comes from the operand position (ST231 br: B).
        let f = parse_function("mfunc @f st231 {\nb0:\n  br %5, b0\n  goto b0\n}\n").unwrap();
        assert_eq!(f.class_of(VReg(5)), RegClass::B);
        // from a physical pin
        let f = parse_function("mfunc @f st120 {\nb0:\n  .output %1^P0\n  RTS\n}\n").unwrap();
        assert_eq!(f.class_of(VReg(1)), RegClass::P);
        // from the other side of a copy
        let f = parse_function("mfunc @f st120 {\nb0:\n  %1:g = copy %0\n  RTS\n}\n").unwrap();
        assert_eq!(f.class_of(VReg(0)), RegClass::G);
        // nothing says what %0 is
        let e = err("mfunc @f st120 {\nb0:\n  .output %0\n  RTS\n}\n");
        assert_eq!((e.line, e.col), (3, 11), "{e}");
        assert!(
            e.message.contains("%0") && e.message.contains("class"),
            "{e}"
        );
    }

    #[test]
    fn located_errors_name_the_bad_token() {
        let e = err("mfunc @f st231 {\nb0:\n  %1:r = frob %0\n}\n");
        assert_eq!((e.line, e.col), (3, 10));
        assert!(e.message.contains("`frob`"), "{e}");
        let e = err("mfunc @f st231 {\nb0:\n  %1:q = add %0, #1\n}\n");
        assert_eq!(e.line, 3);
        assert!(e.message.contains("`q`"), "{e}");
        let e = err("mfunc @f st231 {\nb0:\n  %1:r = add $r64, #1\n}\n");
        assert!(e.message.contains("$r64"), "{e}");
        let e = err("mfunc @f st231 {\nb1:\n  goto b1\n}\n");
        assert!(e.message.contains("expected b0"), "{e}");
        let e = err("mfunc @f st231 {\nb0:\n  goto b0\n");
        assert!(e.message.contains("missing `}`"), "{e}");
        let e = err("mfunc @f st999 {\n}\n");
        assert!(e.message.contains("st999"), "{e}");
        let e = err("mfunc @f st231 {\nb0:\n  %1:r = add %0, #99999999999\n}\n");
        assert!(e.message.contains("32-bit"), "{e}");
        let e = err("mfunc @f st231 {\nb0:\n  %1:r = add #1, %0\n}\n");
        assert!(e.message.contains("last operand"), "{e}");
        let e = err("mfunc @f st231 {\nb0:\n  %1:r = add %0, #1 !bogus\n}\n");
        assert!(e.message.contains("!bogus"), "{e}");
        let e = err("mfunc @f st231 {\nb0:\n  %99999999:r = add %0, #1\n}\n");
        assert!(e.message.contains("too large"), "{e}");
        let e = err("mfunc @f st231 {\nb0:\n  %1:r = add %0, #1\n  %1:b = cmpeq %0, #1\n}\n");
        assert_eq!(e.line, 4, "{e}");
        let e = err("mfunc @f st231 {\n  frame f1 size 4 align 4 local \"x\"\nb0:\n}\n");
        assert!(e.message.contains("expected f0"), "{e}");
        let e = err("mfunc @f st231 {\n  frame f0 size 4 align 3 local \"x\"\nb0:\n}\n");
        assert!(e.message.contains("power of two"), "{e}");
        let e = err("mfunc @f st231 {\n}\n");
        assert!(e.message.contains("no blocks"), "{e}");
        let e = err("mfunc @f st231 {\nb0:\n  goto b0\n}\ntrailing");
        assert!(e.message.contains("trailing"), "{e}");
    }

    #[test]
    fn comments_and_layout_lines() {
        let src = "// leading comment
mfunc @f st231 {
  frame f0 size 4 align 4 spill \"s\"
  outgoing 16
  layout size 32 offsets [16] finalized
b0:
  // a comment line
  %0:r = add $r12, #-32 !frame // trailing comment
  igoto
}
";
        let f = parse_function(src).unwrap();
        assert!(f.frame.finalized);
        assert_eq!((f.frame.size, f.frame.offsets.clone()), (32, vec![16]));
        assert_eq!(f.frame.outgoing_size, 16);
        assert!(f.blocks[0].insts[0].flags.contains(InstFlags::FRAME));
        assert_eq!(parse_function(&f.to_string()).unwrap(), f);
    }
}
