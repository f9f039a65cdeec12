//! Preprocessing-token lexer (C99 §6.4, translation phases 1–3).
//!
//! Turns the text of one file into preprocessing tokens: identifiers, pp-numbers, character
//! constants, string literals, header names (only right after `#include`), punctuators and
//! single "other" characters. Comments become whitespace. Backslash-newline line splices are
//! removed first (phase 2) while keeping a map back to the original offsets, so every token's
//! [`Span`] points into the file as written.
//!
//! The lexer never fails: an unterminated character constant or string literal becomes a
//! [`TokKind::BadLiteral`] token that is reported only if it survives conditional compilation
//! (an apostrophe in an `#if 0` block is harmless). An unterminated comment is reported at
//! once. Token recognition uses nom combinators; the driver loop is hand-written.
//! Complexity: linear in the file size.

use super::diag::{DiagSink, FileId, Span};
use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::{char as nchar, one_of, satisfy};
use nom::combinator::{opt, recognize};
use nom::multi::many0_count;
use nom::sequence::{pair, tuple};
use nom::IResult;
use std::collections::HashMap;
use std::rc::Rc;

/// An interned string (identifier or token spelling).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(pub u32);

/// String interner: every spelling is stored once and compared as a number.
#[derive(Debug, Default)]
pub struct Interner {
    map: HashMap<Rc<str>, Sym>,
    strs: Vec<Rc<str>>,
}

impl Interner {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn intern(&mut self, s: &str) -> Sym {
        if let Some(&k) = self.map.get(s) {
            return k;
        }
        let rc: Rc<str> = Rc::from(s);
        let k = Sym(self.strs.len() as u32);
        self.strs.push(rc.clone());
        self.map.insert(rc, k);
        k
    }

    /// The symbol of `s` if it was ever interned.
    pub fn lookup(&self, s: &str) -> Option<Sym> {
        self.map.get(s).copied()
    }

    pub fn get(&self, k: Sym) -> &str {
        &self.strs[k.0 as usize]
    }
}

/// Kind of a preprocessing token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokKind {
    Ident,
    Number,
    Char,
    Str,
    /// `<…>` after `#include` (the spelling includes the brackets).
    HeaderName,
    Punct,
    /// A character that is no token (`@`, `` ` ``, a stray `\`, non-ASCII).
    Other,
    /// A character constant or string literal without its closing quote.
    BadLiteral,
    /// End of an included file (inserted by the preprocessor, never produced by the lexer).
    FileEnd,
}

/// Token flag: first token of a line.
pub const BOL: u8 = 1;
/// Token flag: preceded by whitespace (a newline counts).
pub const SPACE: u8 = 2;

/// A preprocessing token. `hs` is the hide set (index into the preprocessor's hide-set
/// table, 0 = empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokKind,
    pub flags: u8,
    pub sym: Sym,
    pub span: Span,
    pub hs: u32,
}

impl Token {
    pub fn bol(&self) -> bool {
        self.flags & BOL != 0
    }
    pub fn space(&self) -> bool {
        self.flags & SPACE != 0
    }
}

/// Removes backslash-newline splices. Returns the spliced text and, for each splice, the
/// offset in the spliced text where it was and the total number of bytes removed so far.
fn splice_lines(text: &str) -> (std::borrow::Cow<'_, str>, Vec<(u32, u32)>) {
    if !text.contains('\\') {
        return (std::borrow::Cow::Borrowed(text), Vec::new());
    }
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut map = Vec::new();
    let mut removed = 0u32;
    let mut k = 0;
    let mut start = 0;
    while k < b.len() {
        if b[k] == b'\\' {
            let n = if b.get(k + 1) == Some(&b'\n') {
                2
            } else if b.get(k + 1) == Some(&b'\r') && b.get(k + 2) == Some(&b'\n') {
                3
            } else {
                0
            };
            if n > 0 {
                out.push_str(&text[start..k]);
                removed += n as u32;
                map.push((out.len() as u32, removed));
                k += n;
                start = k;
                continue;
            }
        }
        k += 1;
    }
    out.push_str(&text[start..]);
    (std::borrow::Cow::Owned(out), map)
}

type Res<'a, T> = IResult<&'a str, T>;

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '$'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

fn identifier(i: &str) -> Res<'_, &str> {
    recognize(pair(satisfy(is_ident_start), take_while(is_ident_char)))(i)
}

/// pp-number (C99 §6.4.8): `.`? digit (digit | identifier char | `e+` `e-` `p+` `p-` | `.`)*.
fn pp_number(i: &str) -> Res<'_, &str> {
    recognize(tuple((
        opt(nchar('.')),
        satisfy(|c| c.is_ascii_digit()),
        many0_count(alt((
            recognize(pair(one_of("eEpP"), one_of("+-"))),
            recognize(satisfy(|c| is_ident_char(c) || c == '.')),
        ))),
    )))(i)
}

/// Punctuators (C99 §6.4.6), longest first.
fn punctuator(i: &str) -> Res<'_, &str> {
    alt((
        alt((
            tag("..."),
            tag("<<="),
            tag(">>="),
            tag("->"),
            tag("++"),
            tag("--"),
            tag("<<"),
            tag(">>"),
            tag("<="),
            tag(">="),
            tag("=="),
            tag("!="),
            tag("&&"),
            tag("||"),
            tag("*="),
            tag("/="),
            tag("%="),
            tag("+="),
            tag("-="),
            tag("&="),
            tag("^="),
        )),
        alt((tag("|="), tag("##"))),
        recognize(one_of("[](){}.&*+-~!/%<>^|?:;=,#")),
    ))(i)
}

/// Body of a quoted literal after the opening quote: `Some(len)` including the closing quote,
/// or `None` if the line or file ends first.
fn quoted_tail(i: &str, quote: char) -> Option<usize> {
    let mut chars = i.char_indices();
    while let Some((k, c)) = chars.next() {
        match c {
            '\\' => {
                if let Some((_, '\n')) | None = chars.next() {
                    return None;
                }
            }
            '\n' => return None,
            c if c == quote => return Some(k + 1),
            _ => {}
        }
    }
    None
}

fn header_name(i: &str) -> Res<'_, &str> {
    recognize(tuple((
        nchar('<'),
        take_while1(|c| c != '>' && c != '\n'),
        nchar('>'),
    )))(i)
}

fn line_comment(i: &str) -> Res<'_, &str> {
    recognize(pair(tag("//"), take_while(|c| c != '\n')))(i)
}

/// Lexes one file. `file` is its id in the source map (for spans).
pub fn lex(text: &str, file: FileId, interner: &mut Interner, diags: &mut DiagSink) -> Vec<Token> {
    let (spliced, splices) = splice_lines(text);
    let src: &str = &spliced;
    let orig = |pos: usize| -> u32 {
        let k = splices.partition_point(|&(s, _)| s as usize <= pos);
        pos as u32 + if k == 0 { 0 } else { splices[k - 1].1 }
    };
    let mut toks = Vec::with_capacity(src.len() / 3);
    let mut flags = BOL;
    // A UTF-8 byte-order mark at the start of a file is not part of the program.
    let mut pos = if src.starts_with('\u{feff}') { 3 } else { 0 };
    // Directive state: 0 = none, 1 = saw `#` at line start, 2 = saw `# include`.
    let mut directive = 0u8;
    while pos < src.len() {
        let rest = &src[pos..];
        let c = rest.chars().next().expect("non-empty");
        // Whitespace and comments.
        if c == '\n' {
            flags = BOL | SPACE;
            directive = 0;
            pos += 1;
            continue;
        }
        if c == ' ' || c == '\t' || c == '\r' || c == '\x0c' || c == '\x0b' {
            flags |= SPACE;
            pos += 1;
            continue;
        }
        if let Ok((r, _)) = line_comment(rest) {
            flags |= SPACE;
            pos = src.len() - r.len();
            continue;
        }
        if let Some(body) = rest.strip_prefix("/*") {
            flags |= SPACE;
            match body.find("*/") {
                Some(k) => pos += k + 4,
                None => {
                    diags.error(
                        Span::new(file, orig(pos), orig(pos) + 2),
                        "unterminated comment",
                    );
                    pos = src.len();
                }
            }
            continue;
        }
        let (kind, len) = if directive == 2 && c == '<' {
            match header_name(rest) {
                Ok((r, _)) => (TokKind::HeaderName, rest.len() - r.len()),
                Err(_) => (TokKind::Punct, 1),
            }
        } else if let Ok((r, id)) = identifier(rest) {
            // Encoding prefixes glue onto a following literal: L'x', u8"s".
            let after = r.chars().next();
            let prefix = matches!(id, "L" | "u" | "U" | "u8");
            match after {
                Some(q @ ('\'' | '"')) if prefix && !(id == "u8" && q == '\'') => {
                    let body = &r[1..];
                    let kind = if q == '"' {
                        TokKind::Str
                    } else {
                        TokKind::Char
                    };
                    match quoted_tail(body, q) {
                        Some(n) => (kind, id.len() + 1 + n),
                        None => (TokKind::BadLiteral, id.len() + 1 + line_len(body)),
                    }
                }
                _ => (TokKind::Ident, id.len()),
            }
        } else if let Ok((r, _)) = pp_number(rest) {
            (TokKind::Number, rest.len() - r.len())
        } else if c == '"' || c == '\'' {
            let kind = if c == '"' {
                TokKind::Str
            } else {
                TokKind::Char
            };
            match quoted_tail(&rest[1..], c) {
                Some(n) => (kind, 1 + n),
                None => (TokKind::BadLiteral, 1 + line_len(&rest[1..])),
            }
        } else if let Ok((r, _)) = punctuator(rest) {
            (TokKind::Punct, rest.len() - r.len())
        } else {
            (TokKind::Other, c.len_utf8())
        };
        let spelling = &rest[..len];
        directive = match (directive, kind, spelling) {
            (0, TokKind::Punct, "#") if flags & BOL != 0 => 1,
            (1, TokKind::Ident, "include" | "include_next") => 2,
            _ => 0,
        };
        toks.push(Token {
            kind,
            flags,
            sym: interner.intern(spelling),
            span: Span::new(file, orig(pos), orig(pos + len)),
            hs: 0,
        });
        flags = 0;
        pos += len;
    }
    toks
}

fn line_len(s: &str) -> usize {
    s.find('\n').unwrap_or(s.len())
}

/// Lexes a spelling that must form exactly one token (used by `##`). Returns `None` if the
/// text is not a single valid preprocessing token.
pub fn lex_single(text: &str, interner: &mut Interner) -> Option<(TokKind, Sym)> {
    if text.is_empty() {
        return None;
    }
    let mut sink = DiagSink::new();
    if text.contains("/*") || text.contains("//") {
        return None;
    }
    let toks = lex(text, 0, interner, &mut sink);
    match toks.as_slice() {
        [t] if t.flags & SPACE == 0
            && t.span.hi as usize == text.len()
            && !matches!(t.kind, TokKind::BadLiteral | TokKind::Other) =>
        {
            Some((t.kind, t.sym))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(TokKind, String, u8)> {
        let mut i = Interner::new();
        let mut d = DiagSink::new();
        lex(src, 0, &mut i, &mut d)
            .into_iter()
            .map(|t| (t.kind, i.get(t.sym).to_string(), t.flags))
            .collect()
    }

    #[test]
    fn basic_tokens() {
        let t = kinds("int x = 0x1fUL+.5e+3; a->b <<= 'c' \"s\\\"t\"");
        let spell: Vec<&str> = t.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(
            spell,
            [
                "int",
                "x",
                "=",
                "0x1fUL",
                "+",
                ".5e+3",
                ";",
                "a",
                "->",
                "b",
                "<<=",
                "'c'",
                "\"s\\\"t\""
            ]
        );
        assert_eq!(t[4].0, TokKind::Punct);
        assert_eq!(t[5].0, TokKind::Number);
        assert_eq!(t[11].0, TokKind::Char);
        assert_eq!(t[12].0, TokKind::Str);
    }

    #[test]
    fn comments_and_flags() {
        let t = kinds("a/*x\ny*/b // c\n  d");
        assert_eq!(t.len(), 3);
        assert_eq!(t[0].2, BOL);
        assert_eq!(t[1].2, SPACE);
        assert_eq!(t[2].2, BOL | SPACE);
    }

    #[test]
    fn header_names_only_after_include() {
        let t = kinds("#include <a/b.h>\nx<y>z");
        assert_eq!(t[2].0, TokKind::HeaderName);
        assert_eq!(t[2].1, "<a/b.h>");
        assert_eq!(t[4].1, "<");
    }

    #[test]
    fn splices_keep_original_offsets() {
        let mut i = Interner::new();
        let mut d = DiagSink::new();
        let src = "ab\\\ncd ef";
        let t = lex(src, 0, &mut i, &mut d);
        assert_eq!(i.get(t[0].sym), "abcd");
        assert_eq!((t[0].span.lo, t[0].span.hi), (0, 6));
        assert_eq!(i.get(t[1].sym), "ef");
        assert_eq!(t[1].span.lo, 7);
    }

    #[test]
    fn bad_literals_and_comments() {
        let t = kinds("'abc\nx");
        assert_eq!(t[0].0, TokKind::BadLiteral);
        assert_eq!(t[1].1, "x");
        let mut i = Interner::new();
        let mut d = DiagSink::new();
        lex("a /* never closed", 0, &mut i, &mut d);
        assert_eq!(d.error_count(), 1);
    }

    #[test]
    fn single_token_check() {
        let mut i = Interner::new();
        assert!(lex_single("ab", &mut i).is_some());
        assert!(lex_single("+=", &mut i).is_some());
        assert!(lex_single("+-", &mut i).is_none());
        assert!(lex_single("1e", &mut i).is_some());
        assert!(lex_single("", &mut i).is_none());
    }

    #[test]
    fn prefixed_literals() {
        let t = kinds("L'a' u8\"x\" Lx");
        assert_eq!(t[0].0, TokKind::Char);
        assert_eq!(t[1].0, TokKind::Str);
        assert_eq!(t[2].0, TokKind::Ident);
    }
}
