//! The target-independent half of the assemblers.
//!
//! Source format (both targets):
//! * one statement per line; `;;` ends an issue group (bundle) and may follow a statement on
//!   the same line or stand alone; several `;;`-separated statements may share a line;
//! * `/* ... */` comments may span lines (they count as spaces; an unterminated one is an
//!   error at its start);
//! * comments start with `#` or `//` and run to the end of the line; a comment starting with
//!   `##` is an **annotation list** for the operation(s) on that line: comma- or
//!   space-separated words among `copy`, `spill_load`, `spill_store`, `swap` (unknown words
//!   are errors);
//! * `name:` defines a label (several may precede a statement); in `.text` a label must start
//!   a bundle;
//! * sections: `.text`, `.data`, `.rodata` (= data), `.bss`, `.section NAME`;
//! * data: `.word`/`.long`/`.int` (4 bytes), `.half`/`.short`/`.hword` (2), `.byte` (1), each
//!   taking a comma-separated list of expressions (`.word` may name symbols); in `.text`,
//!   `.word` takes constants and emits them as raw code words (stop bits as given); `.ascii`,
//!   `.asciz`/`.string` (C escapes `\n \t \r \0 \\ \" \xHH`); `.space`/`.zero`/`.skip N[, fill]`;
//!   `.align N` (bytes, a power of two; data and bss only), `.p2align K`;
//! * symbols: `.global`/`.globl NAME`, `.type NAME, @function|@object`, `.size NAME, EXPR`
//!   (EXPR may use `.`), `.equ`/`.set NAME, EXPR`, `.entry NAME`, `.target st231|st120`;
//!   `.file`, `.ident`, `.proc`, `.endp` are accepted and ignored.
//!
//! Function symbols (for per-function counters) are the `.text` labels declared by
//! `.global`, `.type ..., @function` or `.proc`, the entry label, and every label that a
//! call operation targets; other `.text` labels are local. Data labels not starting with
//! `.L` become object symbols. Sizes come from `.size`, otherwise from the distance to the
//! next symbol of the same kind (or the end of the section). The entry point is `.entry`,
//! else `main`, else `_start`, else the first code address.
//!
//! Layout (ASSUMPTION, project memory map): code at `CODE_BASE`, data right after the code
//! aligned to 16, bss after the data (aligned to 8). Code sizes are fixed when an operation
//! is parsed, so one pass lays everything out and the target encodes at the end with every
//! symbol known. Linear in the source size.

use super::expr::{ident, parse_expr, Expr};
use super::AsmError;
use crate::isa::Target;
use crate::machine::memory::data_base_after;
use crate::machine::CODE_BASE;
use crate::object::{
    image_limit_message, max_image_bytes, Annotation, Object, OpFlags, Symbol, SymbolKind,
};
use std::collections::HashMap;

/// A place in the source (1-based line and column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

impl Pos {
    /// The position `n` characters further on the same line.
    pub fn offset(self, n: usize) -> Pos {
        Pos {
            line: self.line,
            col: self.col + n,
        }
    }

    /// An error at this position.
    pub fn error(self, msg: impl Into<String>) -> AsmError {
        AsmError::new(self.line, self.col, msg)
    }
}

/// What the target half of an assembler provides.
pub trait CodeAssembler {
    /// One operation statement (labels, comment and `;;` removed, trimmed; `pos` is where
    /// `text` starts). The operation joins the currently open issue group; its size must be
    /// known now.
    fn operation(&mut self, text: &str, pos: Pos, flags: OpFlags) -> Result<(), AsmError>;
    /// `;;` at `pos`: close the open issue group (an empty group is an error or ignored, as
    /// the target decides).
    fn end_group(&mut self, pos: Pos) -> Result<(), AsmError>;
    /// True while operations have been given since the last `end_group`.
    fn group_open(&self) -> bool;
    /// Bytes of code laid out so far (including the open group).
    fn code_size(&self) -> u32;
    /// `.word` in `.text`: code words emitted exactly as given (stop bits included), between
    /// issue groups. This is how hand-written tests build illegal or unusual encodings.
    fn raw_words(&mut self, words: &[u32], pos: Pos) -> Result<(), AsmError>;
    /// Encode everything; `syms` gives every symbol's final value.
    fn finish(self, syms: &Symbols) -> Result<CodeOutput, AsmError>;
}

/// What a target's encoder returns.
#[derive(Clone, Debug, Default)]
pub struct CodeOutput {
    pub code: Vec<u8>,
    pub annotations: Vec<Annotation>,
    /// Labels named by call operations (they become function symbols).
    pub call_targets: Vec<String>,
}

/// Final symbol values, for the target's encoder.
pub struct Symbols {
    values: HashMap<String, i64>,
    pub code_base: u32,
}

impl Symbols {
    /// Value of `name`.
    pub fn get(&self, name: &str) -> Option<i64> {
        self.values.get(name).copied()
    }

    /// Evaluate `e` at location `dot`; errors name the undefined symbol at `pos`.
    pub fn eval(&self, e: &Expr, dot: u32, pos: Pos) -> Result<i64, AsmError> {
        e.eval(&|s| self.get(s), i64::from(dot))
            .map_err(|m| pos.error(m))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Section {
    Text,
    Data,
    Bss,
}

/// Where a label was defined: a section offset, or an absolute value (`.equ`).
#[derive(Clone, Copy, Debug)]
enum Place {
    In(Section, u32),
    Abs(i64),
}

struct LabelDef {
    place: Place,
    pos: Pos,
}

struct DataFixup {
    offset: usize,
    size: u32,
    expr: Expr,
    pos: Pos,
}

#[derive(Default)]
struct SymInfo {
    global: bool,
    kind: Option<SymbolKind>,
    size: Option<(Expr, Place, Pos)>,
}

/// Pass-one state of the driver.
struct Driver<A: CodeAssembler> {
    asm: A,
    target: Target,
    section: Section,
    data: Vec<u8>,
    bss: u32,
    labels: HashMap<String, LabelDef>,
    order: Vec<String>,
    info: HashMap<String, SymInfo>,
    fixups: Vec<DataFixup>,
    entry: Option<(String, Pos)>,
}

/// Assemble `src` with the target half `asm`, producing an object for `target`.
pub fn assemble_with<A: CodeAssembler>(
    src: &str,
    target: Target,
    asm: A,
) -> Result<Object, AsmError> {
    let mut d = Driver {
        asm,
        target,
        section: Section::Text,
        data: Vec::new(),
        bss: 0,
        labels: HashMap::new(),
        order: Vec::new(),
        info: HashMap::new(),
        fixups: Vec::new(),
        entry: None,
    };
    let blanked = blank_block_comments(src).map_err(|e| e.with_source(src))?;
    for (i, line) in blanked.lines().enumerate() {
        d.line(line, i + 1).map_err(|e| e.with_source(src))?;
    }
    let end = Pos {
        line: src.lines().count().max(1),
        col: 1,
    };
    if d.asm.group_open() {
        d.asm.end_group(end).map_err(|e| e.with_source(src))?;
    }
    d.finish(end).map_err(|e| e.with_source(src))
}

/// `src` with every `/* ... */` comment (outside string and character literals and line
/// comments) replaced by spaces, newlines kept, so that positions do not move. Borrowed
/// unchanged when there is none.
fn blank_block_comments(src: &str) -> Result<std::borrow::Cow<'_, str>, AsmError> {
    if !src.contains("/*") {
        return Ok(std::borrow::Cow::Borrowed(src));
    }
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let (mut i, mut line, mut col) = (0, 1, 1);
    let (mut in_str, mut in_line_comment) = (false, false);
    let mut open: Option<Pos> = None;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            (line, col, in_str, in_line_comment) = (line + 1, 1, false, false);
            i += 1;
            continue;
        }
        if open.is_some() {
            if c == b'*' && b.get(i + 1) == Some(&b'/') {
                out[i] = b' ';
                out[i + 1] = b' ';
                open = None;
                i += 2;
                col += 2;
                continue;
            }
            // Keep the byte count (a multi-byte character becomes several spaces).
            out[i] = b' ';
        } else if in_line_comment {
        } else if in_str {
            if c == b'\\' {
                i += 1;
                col += 1;
            } else if c == b'"' {
                in_str = false;
            }
        } else if c == b'"' {
            in_str = true;
        } else if c == b'\'' && i + 2 < b.len() && b[i + 2] == b'\'' {
            i += 2;
            col += 2;
        } else if c == b'#' || (c == b'/' && b.get(i + 1) == Some(&b'/')) {
            in_line_comment = true;
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            open = Some(Pos { line, col });
            out[i] = b' ';
            out[i + 1] = b' ';
            i += 2;
            col += 2;
            continue;
        }
        i += 1;
        // Columns count characters: UTF-8 continuation bytes do not advance them.
        if c & 0xC0 != 0x80 {
            col += 1;
        }
    }
    if let Some(at) = open {
        return Err(at.error("unterminated `/*` comment"));
    }
    // Only ASCII bytes were replaced, by whole characters' worth of spaces.
    String::from_utf8(out)
        .map(std::borrow::Cow::Owned)
        .map_err(|_| Pos { line: 1, col: 1 }.error("invalid UTF-8 after removing comments"))
}

/// Split a line into its code part and its comment (outside string and character literals).
fn split_comment(line: &str) -> (&str, Option<&str>) {
    let b = line.as_bytes();
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        let c = b[i];
        if in_str {
            if c == b'\\' {
                i += 1;
            } else if c == b'"' {
                in_str = false;
            }
        } else if c == b'"' {
            in_str = true;
        } else if c == b'\'' && i + 2 < b.len() && b[i + 2] == b'\'' {
            i += 2;
        } else if c == b'#' || (c == b'/' && b.get(i + 1) == Some(&b'/')) {
            return (&line[..i], Some(&line[i..]));
        }
        i += 1;
    }
    (line, None)
}

/// Byte offsets of `;;` separators outside string literals.
fn split_groups(code: &str) -> Vec<(usize, &str)> {
    let b = code.as_bytes();
    let mut parts = Vec::new();
    let mut start = 0;
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        match b[i] {
            b'\\' if in_str => i += 1,
            b'"' => in_str = !in_str,
            b';' if !in_str && b.get(i + 1) == Some(&b';') => {
                parts.push((start, &code[start..i]));
                i += 1;
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push((start, &code[start..]));
    parts
}

/// Parse an annotation comment (`## copy, spill_load`).
fn parse_annotations(comment: &str, pos: Pos) -> Result<OpFlags, AsmError> {
    let mut flags = OpFlags::empty();
    let body = &comment[2..];
    let mut off = 2;
    for word in body.split(|c: char| c == ',' || c.is_whitespace()) {
        if !word.is_empty() {
            flags |= match word {
                "copy" => OpFlags::COPY,
                "spill_load" => OpFlags::SPILL_LOAD,
                "spill_store" => OpFlags::SPILL_STORE,
                "swap" => OpFlags::SWAP_PART,
                _ => {
                    return Err(pos.offset(off).error(format!(
                    "unknown annotation `{word}` (expected copy, spill_load, spill_store or swap)"
                )))
                }
            };
        }
        off += word.len() + 1;
    }
    Ok(flags)
}

/// Split directive arguments at commas outside string literals, with their offsets.
fn split_args(s: &str) -> Vec<(usize, &str)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut in_str, mut i) = (0, false, 0);
    while i < b.len() {
        match b[i] {
            b'\\' if in_str => i += 1,
            b'"' => in_str = !in_str,
            b',' if !in_str => {
                out.push((start, &s[start..i]));
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if !s.trim().is_empty() {
        out.push((start, &s[start..]));
    }
    // Point at the first character of each argument, not at the spaces before it.
    out.into_iter()
        .map(|(o, a)| {
            let t = a.trim_start();
            (o + a.len() - t.len(), t.trim_end())
        })
        .collect()
}

/// Decode a C-style string literal (with its quotes).
fn parse_string(s: &str, pos: Pos) -> Result<Vec<u8>, AsmError> {
    let t = s.trim();
    let inner = t
        .strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .ok_or_else(|| pos.error("expected a string literal in double quotes"))?;
    let mut out = Vec::new();
    let b = inner.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let e = *b
            .get(i + 1)
            .ok_or_else(|| pos.error("string ends with a lone backslash"))?;
        i += 2;
        out.push(match e {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'0' => 0,
            b'\\' => b'\\',
            b'"' => b'"',
            b'\'' => b'\'',
            b'x' => {
                let h = inner
                    .get(i..i + 2)
                    .ok_or_else(|| pos.error("bad \\x escape"))?;
                i += 2;
                u8::from_str_radix(h, 16).map_err(|_| pos.error("bad \\x escape"))?
            }
            _ => return Err(pos.error(format!("unknown escape `\\{}`", e as char))),
        });
    }
    Ok(out)
}

impl<A: CodeAssembler> Driver<A> {
    fn line(&mut self, line: &str, n: usize) -> Result<(), AsmError> {
        let (code, comment) = split_comment(line);
        let flags = match comment {
            Some(c) if c.starts_with("##") => parse_annotations(
                c,
                Pos {
                    line: n,
                    col: code.len() + 1,
                },
            )?,
            _ => OpFlags::empty(),
        };
        let parts = split_groups(code);
        let last = parts.len() - 1;
        for (k, (off, part)) in parts.into_iter().enumerate() {
            self.statement(
                part,
                Pos {
                    line: n,
                    col: off + 1,
                },
                flags,
            )?;
            if k != last {
                let p = Pos {
                    line: n,
                    col: off + part.len() + 1,
                };
                if self.section != Section::Text {
                    return Err(p.error("`;;` outside .text"));
                }
                self.asm.end_group(p)?;
            }
        }
        Ok(())
    }

    fn statement(&mut self, part: &str, pos: Pos, flags: OpFlags) -> Result<(), AsmError> {
        let mut rest = part;
        let mut col = pos.col;
        loop {
            let trimmed = rest.trim_start();
            col += rest.len() - trimmed.len();
            rest = trimmed;
            if let Ok((after, name)) = ident(rest) {
                if let Some(after_colon) = after.strip_prefix(':') {
                    self.define_label(
                        name,
                        Pos {
                            line: pos.line,
                            col,
                        },
                    )?;
                    col += rest.len() - after_colon.len();
                    rest = after_colon;
                    continue;
                }
            }
            break;
        }
        let text = rest.trim_end();
        if text.is_empty() {
            return Ok(());
        }
        let p = Pos {
            line: pos.line,
            col,
        };
        if text.starts_with('.') {
            let (name, args) = text.split_at(text.find(char::is_whitespace).unwrap_or(text.len()));
            if let Some(r) = self.directive(name, args, p)? {
                return r;
            }
        }
        if self.section != Section::Text {
            return Err(p.error("operation outside .text"));
        }
        self.asm.operation(text, p, flags)
    }

    fn here(&self) -> Place {
        match self.section {
            Section::Text => Place::In(Section::Text, self.asm.code_size()),
            Section::Data => Place::In(Section::Data, self.data.len() as u32),
            Section::Bss => Place::In(Section::Bss, self.bss),
        }
    }

    fn define(&mut self, name: &str, place: Place, pos: Pos) -> Result<(), AsmError> {
        if let Some(old) = self.labels.get(name) {
            return Err(pos.error(format!(
                "`{name}` is already defined at line {}",
                old.pos.line
            )));
        }
        self.labels
            .insert(name.to_string(), LabelDef { place, pos });
        self.order.push(name.to_string());
        Ok(())
    }

    fn define_label(&mut self, name: &str, pos: Pos) -> Result<(), AsmError> {
        if self.section == Section::Text && self.asm.group_open() {
            return Err(pos.error(format!(
                "label `{name}` inside a bundle (missing `;;` before it?)"
            )));
        }
        let place = self.here();
        self.define(name, place, pos)
    }

    fn arg_expr(args: &str, off: usize, pos: Pos) -> Result<Expr, AsmError> {
        parse_expr(args).map_err(|m| pos.offset(off).error(m))
    }

    /// Handle a directive; `Ok(None)` means "not a directive" (the driver then treats the
    /// text as an operation).
    #[allow(clippy::type_complexity)]
    fn directive(
        &mut self,
        name: &str,
        args: &str,
        pos: Pos,
    ) -> Result<Option<Result<(), AsmError>>, AsmError> {
        let argpos = pos.offset(name.len());
        let list = split_args(args);
        let one = |what: &str| -> Result<(usize, &str), AsmError> {
            match list.as_slice() {
                [a] => Ok(*a),
                _ => Err(pos.error(format!("`{name}` takes {what}"))),
            }
        };
        match name {
            ".text" | ".data" | ".rodata" | ".bss" | ".section" => {
                let sec = match name {
                    ".section" => {
                        let (_, s) = one("a section name")?;
                        match s.trim().split(',').next().unwrap_or("").trim() {
                            ".text" => Section::Text,
                            ".data" | ".rodata" | ".sdata" => Section::Data,
                            ".bss" | ".sbss" => Section::Bss,
                            other => return Err(argpos.error(format!("unknown section `{other}`"))),
                        }
                    }
                    ".text" => Section::Text,
                    ".bss" => Section::Bss,
                    _ => Section::Data,
                };
                if self.asm.group_open() && sec != Section::Text {
                    return Err(pos.error("section change inside a bundle (missing `;;`?)"));
                }
                self.section = sec;
            }
            ".word" | ".long" | ".int" | ".half" | ".short" | ".hword" | ".byte" => {
                let size = match name {
                    ".byte" => 1,
                    ".half" | ".short" | ".hword" => 2,
                    _ => 4,
                };
                if list.is_empty() {
                    return Err(pos.error(format!("`{name}` needs at least one value")));
                }
                if self.section == Section::Text {
                    self.raw_code_words(name, size, &list, pos, argpos)?;
                    return Ok(Some(Ok(())));
                }
                for (off, a) in list {
                    let e = Self::arg_expr(a, off, argpos)?;
                    self.emit_value(size, e, argpos.offset(off))?;
                }
            }
            ".ascii" | ".asciz" | ".string" => {
                if list.is_empty() {
                    return Err(pos.error(format!("`{name}` needs a string")));
                }
                for (off, a) in list {
                    let mut bytes = parse_string(a, argpos.offset(off))?;
                    if name != ".ascii" {
                        bytes.push(0);
                    }
                    self.emit_bytes(&bytes, argpos.offset(off))?;
                }
            }
            ".space" | ".zero" | ".skip" => {
                let n = self.const_arg(list.first(), argpos, "a byte count")?;
                let fill = match list.get(1) {
                    Some(a) => self.const_arg(Some(a), argpos, "a fill byte")?,
                    None => 0,
                };
                if list.len() > 2 {
                    return Err(argpos.error(format!("`{name}` takes N[, FILL]")));
                }
                if n < 0 {
                    return Err(argpos.error(format!("`{name}` size {n} is negative")));
                }
                if !(-128..=255).contains(&fill) {
                    return Err(argpos.error(format!("fill value {fill} does not fit in a byte")));
                }
                self.emit_fill(n as u64, fill as u8, argpos)?;
            }
            ".align" | ".p2align" | ".balign" => {
                let v = self.const_arg(list.first(), argpos, "an alignment")?;
                let align = if name == ".p2align" {
                    if !(0..=12).contains(&v) {
                        return Err(argpos.error("alignment exponent must be 0..12"));
                    }
                    1i64 << v
                } else {
                    v
                };
                if align <= 0 || align > 4096 || align & (align - 1) != 0 {
                    return Err(argpos.error("alignment must be a power of two up to 4096"));
                }
                let align = align as u32;
                match self.section {
                    Section::Data => {
                        let pad = (align - (self.data.len() as u32 % align)) % align;
                        self.emit_fill(u64::from(pad), 0, pos)?;
                    }
                    Section::Bss => self.bss = self.bss.div_ceil(align) * align,
                    Section::Text => {
                        if !self.asm.code_size().is_multiple_of(align) {
                            return Err(pos.error("`.align` in .text is only allowed where the code is already aligned"));
                        }
                    }
                }
            }
            ".global" | ".globl" | ".proc" => {
                for (off, a) in list {
                    let s = a.trim();
                    if ident(s).map(|(r, _)| r.is_empty()) != Ok(true) {
                        return Err(argpos
                            .offset(off)
                            .error(format!("`{s}` is not a symbol name")));
                    }
                    let info = self.info.entry(s.to_string()).or_default();
                    info.global = true;
                    if name == ".proc" {
                        info.kind = Some(SymbolKind::Function);
                    }
                }
            }
            ".type" => {
                let [(_, sym), (off, kind)] = list.as_slice() else {
                    return Err(pos.error("`.type` takes NAME, @function|@object"));
                };
                let k = match kind.trim().trim_start_matches(['@', '%']) {
                    "function" => SymbolKind::Function,
                    "object" => SymbolKind::Object,
                    other => {
                        return Err(argpos
                            .offset(*off)
                            .error(format!("unknown symbol type `{other}`")))
                    }
                };
                self.info.entry(sym.trim().to_string()).or_default().kind = Some(k);
            }
            ".size" => {
                let [(_, sym), (off, e)] = list.as_slice() else {
                    return Err(pos.error("`.size` takes NAME, EXPR"));
                };
                let e = Self::arg_expr(e, *off, argpos)?;
                let here = self.here();
                self.info.entry(sym.trim().to_string()).or_default().size =
                    Some((e, here, argpos.offset(*off)));
            }
            ".equ" | ".set" => {
                let [(_, sym), (off, e)] = list.as_slice() else {
                    return Err(pos.error(format!("`{name}` takes NAME, EXPR")));
                };
                let e = Self::arg_expr(e, *off, argpos)?;
                if e.has_symbols() {
                    return Err(argpos.offset(*off).error("`.equ` needs a constant"));
                }
                let v = e
                    .eval(&|_| None, 0)
                    .map_err(|m| argpos.offset(*off).error(m))?;
                self.define(sym.trim(), Place::Abs(v), pos)?;
            }
            ".entry" => {
                let (_, s) = one("a symbol name")?;
                self.entry = Some((s.trim().to_string(), argpos));
            }
            ".target" => {
                let (off, s) = one("a target name")?;
                let t: Target = s.trim().parse().map_err(|e: crate::isa::UnknownTarget| {
                    argpos.offset(off).error(e.to_string())
                })?;
                if t != self.target {
                    return Err(argpos
                        .offset(off)
                        .error(format!("this is the {} assembler", self.target)));
                }
            }
            ".file" | ".ident" | ".endp" => {}
            _ => {
                if name.len() > 1
                    && name[1..]
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_')
                {
                    return Err(pos.error(format!("unknown directive `{name}`")));
                }
                return Ok(None);
            }
        }
        Ok(Some(Ok(())))
    }

    fn const_arg(&self, a: Option<&(usize, &str)>, pos: Pos, what: &str) -> Result<i64, AsmError> {
        let (off, s) = a.ok_or_else(|| pos.error(format!("expected {what}")))?;
        let e = Self::arg_expr(s, *off, pos)?;
        let look = |n: &str| match self.labels.get(n) {
            Some(LabelDef {
                place: Place::Abs(v),
                ..
            }) => Some(*v),
            _ => None,
        };
        e.eval(&look, 0).map_err(|m| {
            let why = if m == crate::asm::expr::OVERFLOW {
                m
            } else {
                format!("expected {what} (a constant)")
            };
            pos.offset(*off).error(why)
        })
    }

    /// Bytes of the memory image so far (code, data, bss).
    fn image_bytes(&self) -> u64 {
        u64::from(self.asm.code_size()) + self.data.len() as u64 + u64::from(self.bss)
    }

    /// Checks that `n` more bytes keep the image within [`max_image_bytes`] (before anything
    /// is allocated).
    fn check_growth(&self, n: u64, pos: Pos) -> Result<(), AsmError> {
        let total = self.image_bytes().saturating_add(n);
        if total > max_image_bytes() {
            return Err(pos.error(image_limit_message("this directive", total)));
        }
        Ok(())
    }

    fn emit_bytes(&mut self, bytes: &[u8], pos: Pos) -> Result<(), AsmError> {
        match self.section {
            Section::Data => {
                self.check_growth(bytes.len() as u64, pos)?;
                self.data.extend_from_slice(bytes);
                Ok(())
            }
            Section::Bss => Err(pos.error("initialised data in .bss (use .space)")),
            Section::Text => Err(pos.error("data in .text (switch to .data)")),
        }
    }

    fn emit_fill(&mut self, n: u64, fill: u8, pos: Pos) -> Result<(), AsmError> {
        match self.section {
            Section::Bss if fill == 0 => {
                self.check_growth(n, pos)?;
                // Within the image limit, hence within u32.
                self.bss += n as u32;
                Ok(())
            }
            Section::Data => {
                self.check_growth(n, pos)?;
                self.data.resize(self.data.len() + n as usize, fill);
                Ok(())
            }
            // Errors: initialised data in .bss, data in .text.
            _ => self.emit_bytes(&[], pos),
        }
    }

    /// `.word` (or `.long`/`.int`) in `.text`: raw code words, constants only, not inside an
    /// open issue group.
    fn raw_code_words(
        &mut self,
        name: &str,
        size: u32,
        list: &[(usize, &str)],
        pos: Pos,
        argpos: Pos,
    ) -> Result<(), AsmError> {
        if size != 4 {
            return Err(pos.error(format!(
                "`{name}` in .text: code is made of 32-bit words (use `.word`)"
            )));
        }
        if self.asm.group_open() {
            return Err(pos.error("code words inside an open bundle (missing `;;`?)"));
        }
        let mut words = Vec::with_capacity(list.len());
        for a in list {
            let v = self.const_arg(Some(a), argpos, "a code word")?;
            let w = u32::try_from(v)
                .or_else(|_| i32::try_from(v).map(|x| x as u32))
                .map_err(|_| {
                    argpos
                        .offset(a.0)
                        .error(format!("code word {v} does not fit in 32 bits"))
                })?;
            words.push(w);
        }
        self.asm.raw_words(&words, pos)
    }

    fn emit_value(&mut self, size: u32, e: Expr, pos: Pos) -> Result<(), AsmError> {
        let offset = self.data.len();
        self.emit_bytes(&vec![0; size as usize], pos)?;
        self.fixups.push(DataFixup {
            offset,
            size,
            expr: e,
            pos,
        });
        Ok(())
    }

    fn finish(self, end: Pos) -> Result<Object, AsmError> {
        let code_size = self.asm.code_size();
        let data_base = data_base_after(CODE_BASE, code_size);
        let data_len = self.data.len() as u32;
        let bss_base = data_base + data_len.div_ceil(8) * 8;
        let addr_of = |p: Place| -> i64 {
            match p {
                Place::Abs(v) => v,
                Place::In(Section::Text, o) => i64::from(CODE_BASE) + i64::from(o),
                Place::In(Section::Data, o) => i64::from(data_base) + i64::from(o),
                Place::In(Section::Bss, o) => i64::from(bss_base) + i64::from(o),
            }
        };
        let values: HashMap<String, i64> = self
            .labels
            .iter()
            .map(|(k, d)| (k.clone(), addr_of(d.place)))
            .collect();
        let syms = Symbols {
            values,
            code_base: CODE_BASE,
        };
        let mut data = self.data;
        for f in &self.fixups {
            let dot = data_base + f.offset as u32;
            let v = syms.eval(&f.expr, dot, f.pos)?;
            let ok = match f.size {
                1 => (-128..=255).contains(&v),
                2 => (-32768..=65535).contains(&v),
                _ => (-(1i64 << 31)..=u32::MAX as i64).contains(&v),
            };
            if !ok {
                return Err(f
                    .pos
                    .error(format!("value {v} does not fit in {} bytes", f.size)));
            }
            let bytes = (v as u32).to_le_bytes();
            data[f.offset..f.offset + f.size as usize].copy_from_slice(&bytes[..f.size as usize]);
        }
        let labels = self.labels;
        let info = self.info;
        let order = self.order;
        let entry_name = self.entry.clone();
        let out = self.asm.finish(&syms)?;
        let mut code = out.code;
        code.truncate(code_size as usize);
        let call_targets: std::collections::HashSet<&str> =
            out.call_targets.iter().map(String::as_str).collect();
        let is_function = |name: &str| -> bool {
            let i = info.get(name);
            i.is_some_and(|i| i.global || i.kind == Some(SymbolKind::Function))
                || call_targets.contains(name)
                || entry_name
                    .as_ref()
                    .map_or(name == "main" || name == "_start", |(e, _)| e == name)
        };
        // Symbols: (section, addr, name, kind).
        let mut symbols: Vec<(Section, u32, String, SymbolKind)> = Vec::new();
        for name in &order {
            let d = &labels[name];
            let Place::In(sec, _) = d.place else { continue };
            let addr = addr_of(d.place) as u32;
            let kind = match sec {
                Section::Text if is_function(name) => SymbolKind::Function,
                Section::Text => continue,
                _ if name.starts_with(".L") => continue,
                _ => info
                    .get(name.as_str())
                    .and_then(|i| i.kind)
                    .unwrap_or(SymbolKind::Object),
            };
            symbols.push((sec, addr, name.clone(), kind));
        }
        let code_end = CODE_BASE + code_size;
        let data_end = data_base + data_len;
        let bss_end = bss_base + self.bss;
        // The address of the next symbol of the same section, for each symbol: one backward
        // scan (linear in the number of symbols).
        let mut next_in_section = vec![None; symbols.len()];
        let mut following: HashMap<Section, u32> = HashMap::new();
        for (i, (sec, addr, _, _)) in symbols.iter().enumerate().rev() {
            next_in_section[i] = following.get(sec).copied();
            following.insert(*sec, *addr);
        }
        let mut result = Vec::with_capacity(symbols.len());
        for (i, (sec, addr, name, kind)) in symbols.iter().enumerate() {
            let next = next_in_section[i];
            let sec_end = match sec {
                Section::Text => code_end,
                Section::Data => data_end,
                Section::Bss => bss_end,
            };
            let mut size = next.unwrap_or(sec_end).saturating_sub(*addr);
            if let Some(Some((e, here, p))) = info.get(name.as_str()).map(|i| i.size.as_ref()) {
                let v = syms.eval(e, addr_of(*here) as u32, *p)?;
                size = u32::try_from(v)
                    .map_err(|_| p.error(format!("`.size` value {v} does not fit in 32 bits")))?;
            }
            result.push(Symbol {
                name: name.clone(),
                kind: *kind,
                addr: *addr,
                size,
            });
        }
        let entry = match &entry_name {
            Some((e, p)) => syms
                .get(e)
                .ok_or_else(|| p.error(format!("undefined entry symbol `{e}`")))?
                as u32,
            None => syms
                .get("main")
                .or_else(|| syms.get("_start"))
                .map_or(CODE_BASE, |v| v as u32),
        };
        let mut obj = Object::new(self.target);
        obj.code = code;
        obj.data_base = data_base;
        obj.data = data;
        if self.bss > 0 {
            obj.data.resize((bss_base - data_base) as usize, 0);
        }
        obj.bss_size = self.bss;
        obj.entry = entry;
        obj.symbols = result;
        obj.annotations = out.annotations;
        obj.validate().map_err(|e| end.error(e.to_string()))?;
        Ok(obj)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy target: every operation is one 4-byte word holding the value of its text as an
    /// expression; `call X` records a call target.
    #[derive(Default)]
    struct Toy {
        ops: Vec<(Expr, Pos, OpFlags)>,
        open: bool,
        calls: Vec<String>,
    }

    impl CodeAssembler for Toy {
        fn operation(&mut self, text: &str, pos: Pos, flags: OpFlags) -> Result<(), AsmError> {
            let t = text
                .strip_prefix("call ")
                .inspect(|s| self.calls.push(s.trim().to_string()))
                .unwrap_or(text);
            let e = parse_expr(t).map_err(|m| pos.error(m))?;
            self.ops.push((e, pos, flags));
            self.open = true;
            Ok(())
        }
        fn end_group(&mut self, _pos: Pos) -> Result<(), AsmError> {
            self.open = false;
            Ok(())
        }
        fn group_open(&self) -> bool {
            self.open
        }
        fn raw_words(&mut self, words: &[u32], pos: Pos) -> Result<(), AsmError> {
            for &w in words {
                self.ops
                    .push((Expr::num(i64::from(w)), pos, OpFlags::empty()));
            }
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
            for (i, (e, p, f)) in self.ops.iter().enumerate() {
                let addr = CODE_BASE + 4 * i as u32;
                out.code
                    .extend_from_slice(&(syms.eval(e, addr, *p)? as u32).to_le_bytes());
                if !f.is_empty() {
                    out.annotations.push(Annotation { addr, flags: *f });
                }
            }
            Ok(out)
        }
    }

    fn asm(src: &str) -> Result<Object, AsmError> {
        assemble_with(src, Target::St231, Toy::default())
    }

    #[test]
    fn layout_symbols_and_data() {
        let src = "\
main: 1 ;;
  tab ## copy
;;
f:  call f ;;
.data
tab: .word 7, f+1
s: .asciz \"a#\\n\"
.bss
buf: .space 12
";
        let o = asm(src).unwrap();
        assert_eq!(o.entry, 0x1000);
        assert_eq!(o.data_base, 0x1010);
        let w = |i: usize| u32::from_le_bytes(o.code[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!((w(0), w(1), w(2)), (1, 0x1010, 0x1008));
        assert_eq!(
            &o.data[..12],
            &[7, 0, 0, 0, 9, 0x10, 0, 0, b'a', b'#', b'\n', 0]
        );
        assert_eq!(
            o.annotations,
            vec![Annotation {
                addr: 0x1004,
                flags: OpFlags::COPY
            }]
        );
        let names: Vec<_> = o
            .symbols
            .iter()
            .map(|s| (s.name.as_str(), s.kind, s.addr, s.size))
            .collect();
        assert_eq!(
            names,
            vec![
                ("main", SymbolKind::Function, 0x1000, 8),
                ("f", SymbolKind::Function, 0x1008, 4),
                ("tab", SymbolKind::Object, 0x1010, 8),
                ("s", SymbolKind::Object, 0x1018, 4),
                ("buf", SymbolKind::Object, 0x1020, 12),
            ]
        );
        assert_eq!(o.bss_size, 12);
        assert_eq!(o.data.len(), 0x10);
    }

    #[test]
    fn errors_have_positions() {
        let e = asm("main: 1\nx: 2 ;;\n").unwrap_err();
        assert_eq!((e.line, e.col), (2, 1));
        assert!(e.to_string().contains("inside a bundle"), "{e}");
        let e = asm(".data\n  .word nope\n").unwrap_err();
        assert_eq!((e.line, e.col), (2, 9));
        let e = asm("  1 ## cpy\n").unwrap_err();
        assert_eq!((e.line, e.col), (1, 8));
        let e = asm(".frob 1\n").unwrap_err();
        assert!(e.msg.contains("unknown directive"));
        let e = asm("a: 1 ;;\na: 2 ;;\n").unwrap_err();
        assert!(e.msg.contains("already defined"));
        let e = asm(".data\n.byte 300\n").unwrap_err();
        assert!(e.msg.contains("does not fit"));
    }

    #[test]
    fn size_and_global_directives() {
        let src =
            ".globl g\n.type h, @function\nmain: 1 ;;\ng: 2 ;;\n 3 ;;\n.size g, .-g\nh: 4 ;;\n";
        let o = asm(src).unwrap();
        let g = o.function("g").unwrap();
        assert_eq!(g.size, 8);
        assert!(o.function("h").is_some());
    }

    #[test]
    fn comment_and_group_splitting() {
        assert_eq!(split_comment("a \"#\" # c"), ("a \"#\" ", Some("# c")));
        assert_eq!(split_comment("a // c"), ("a ", Some("// c")));
        assert_eq!(split_comment("x '#' y"), ("x '#' y", None));
        let g: Vec<_> = split_groups("a ;; b;;").into_iter().map(|x| x.1).collect();
        assert_eq!(g, vec!["a ", " b", ""]);
    }

    #[test]
    fn block_comments_become_spaces() {
        let b = |s: &str| blank_block_comments(s).map(|c| c.into_owned());
        assert_eq!(b("a /* x */ b").unwrap(), "a         b");
        // Newlines stay, so line numbers do not move.
        assert_eq!(b("a /* x\ny */ b\nc").unwrap(), "a     \n     b\nc");
        // Not comments: inside strings, character literals and line comments.
        for s in [
            ".ascii \"/* x\"",
            "x '/' y /",
            "# /* not\nb",
            "// /*\nb",
            "c é /",
        ] {
            assert_eq!(b(s).unwrap(), s);
        }
        assert_eq!(b("é/*é*/é").unwrap(), "é      é");
        let e = b("a\n  /* open\nb").unwrap_err().to_string();
        assert!(e.contains("2:3") && e.contains("unterminated"), "{e}");
    }
}
