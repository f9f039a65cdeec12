//! Conversion of preprocessing tokens to C tokens (translation phases 5–7): keywords,
//! punctuators, integer and character constant values, decoded string literals.
//!
//! Bad tokens (stray characters, unterminated literals, malformed numbers, floating-point
//! constants) are reported here with their place; a replacement token keeps the parser going.

use super::diag::{DiagSink, Span};
use super::lexer::{Interner, Sym, TokKind, Token};
use super::literals::{decode_char, decode_string, parse_int, IntLit};
use std::collections::HashMap;

/// Keywords (C99 §6.4.1) and the GNU spellings real code uses (`__inline__`, `__const`…).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kw {
    Auto,
    Break,
    Case,
    Char,
    Const,
    Continue,
    Default,
    Do,
    Double,
    Else,
    Enum,
    Extern,
    Float,
    For,
    Goto,
    If,
    Inline,
    Int,
    Long,
    Register,
    Restrict,
    Return,
    Short,
    Signed,
    Sizeof,
    Static,
    Struct,
    Switch,
    Typedef,
    Union,
    Unsigned,
    Void,
    Volatile,
    While,
    Bool,
    Complex,
    Attribute,
    Extension,
    Asm,
    Typeof,
    StaticAssert,
    Alignof,
    VaList,
}

const KEYWORDS: &[(&str, Kw)] = &[
    ("auto", Kw::Auto),
    ("break", Kw::Break),
    ("case", Kw::Case),
    ("char", Kw::Char),
    ("const", Kw::Const),
    ("__const", Kw::Const),
    ("__const__", Kw::Const),
    ("continue", Kw::Continue),
    ("default", Kw::Default),
    ("do", Kw::Do),
    ("double", Kw::Double),
    ("else", Kw::Else),
    ("enum", Kw::Enum),
    ("extern", Kw::Extern),
    ("float", Kw::Float),
    ("for", Kw::For),
    ("goto", Kw::Goto),
    ("if", Kw::If),
    ("inline", Kw::Inline),
    ("__inline", Kw::Inline),
    ("__inline__", Kw::Inline),
    ("int", Kw::Int),
    ("long", Kw::Long),
    ("register", Kw::Register),
    ("restrict", Kw::Restrict),
    ("__restrict", Kw::Restrict),
    ("__restrict__", Kw::Restrict),
    ("return", Kw::Return),
    ("short", Kw::Short),
    ("signed", Kw::Signed),
    ("__signed", Kw::Signed),
    ("__signed__", Kw::Signed),
    ("sizeof", Kw::Sizeof),
    ("static", Kw::Static),
    ("struct", Kw::Struct),
    ("switch", Kw::Switch),
    ("typedef", Kw::Typedef),
    ("union", Kw::Union),
    ("unsigned", Kw::Unsigned),
    ("void", Kw::Void),
    ("volatile", Kw::Volatile),
    ("__volatile", Kw::Volatile),
    ("__volatile__", Kw::Volatile),
    ("while", Kw::While),
    ("_Bool", Kw::Bool),
    ("_Complex", Kw::Complex),
    ("__attribute__", Kw::Attribute),
    ("__attribute", Kw::Attribute),
    ("__extension__", Kw::Extension),
    ("asm", Kw::Asm),
    ("__asm__", Kw::Asm),
    ("__asm", Kw::Asm),
    ("typeof", Kw::Typeof),
    ("__typeof__", Kw::Typeof),
    ("_Static_assert", Kw::StaticAssert),
    ("_Alignof", Kw::Alignof),
    ("__alignof__", Kw::Alignof),
    ("__builtin_va_list", Kw::VaList),
];

/// Punctuators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum P {
    LBracket,
    RBracket,
    LParen,
    RParen,
    LBrace,
    RBrace,
    Dot,
    Arrow,
    Inc,
    Dec,
    Amp,
    Star,
    Plus,
    Minus,
    Tilde,
    Bang,
    Slash,
    Percent,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    EqEq,
    Ne,
    Caret,
    Pipe,
    AndAnd,
    OrOr,
    Question,
    Colon,
    Semi,
    Ellipsis,
    Assign,
    MulAssign,
    DivAssign,
    ModAssign,
    AddAssign,
    SubAssign,
    ShlAssign,
    ShrAssign,
    AndAssign,
    XorAssign,
    OrAssign,
    Comma,
    Hash,
    HashHash,
}

fn punct(s: &str) -> Option<P> {
    Some(match s {
        "[" => P::LBracket,
        "]" => P::RBracket,
        "(" => P::LParen,
        ")" => P::RParen,
        "{" => P::LBrace,
        "}" => P::RBrace,
        "." => P::Dot,
        "->" => P::Arrow,
        "++" => P::Inc,
        "--" => P::Dec,
        "&" => P::Amp,
        "*" => P::Star,
        "+" => P::Plus,
        "-" => P::Minus,
        "~" => P::Tilde,
        "!" => P::Bang,
        "/" => P::Slash,
        "%" => P::Percent,
        "<<" => P::Shl,
        ">>" => P::Shr,
        "<" => P::Lt,
        ">" => P::Gt,
        "<=" => P::Le,
        ">=" => P::Ge,
        "==" => P::EqEq,
        "!=" => P::Ne,
        "^" => P::Caret,
        "|" => P::Pipe,
        "&&" => P::AndAnd,
        "||" => P::OrOr,
        "?" => P::Question,
        ":" => P::Colon,
        ";" => P::Semi,
        "..." => P::Ellipsis,
        "=" => P::Assign,
        "*=" => P::MulAssign,
        "/=" => P::DivAssign,
        "%=" => P::ModAssign,
        "+=" => P::AddAssign,
        "-=" => P::SubAssign,
        "<<=" => P::ShlAssign,
        ">>=" => P::ShrAssign,
        "&=" => P::AndAssign,
        "^=" => P::XorAssign,
        "|=" => P::OrAssign,
        "," => P::Comma,
        "#" => P::Hash,
        "##" => P::HashHash,
        _ => return None,
    })
}

/// A C token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CTok {
    Ident(Sym),
    Kw(Kw),
    Int(IntLit),
    /// Character constant: its `int` value.
    Char(i32),
    /// String literal bytes, without the terminating NUL.
    Str(Vec<u8>),
    P(P),
    Eof,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CToken {
    pub tok: CTok,
    pub span: Span,
}

/// Converts the preprocessor's output; the result ends with an `Eof` token.
pub fn convert(toks: &[Token], interner: &Interner, diags: &mut DiagSink) -> Vec<CToken> {
    let keywords: HashMap<Sym, Kw> = KEYWORDS
        .iter()
        .filter_map(|&(s, k)| interner.lookup(s).map(|sym| (sym, k)))
        .collect();
    let mut out = Vec::with_capacity(toks.len() + 1);
    for t in toks {
        let s = interner.get(t.sym);
        let tok = match t.kind {
            TokKind::Ident => match keywords.get(&t.sym) {
                Some(&k) => CTok::Kw(k),
                None => CTok::Ident(t.sym),
            },
            TokKind::Number => match parse_int(s) {
                Ok(lit) => CTok::Int(lit),
                Err(msg) => {
                    diags.error(t.span, msg);
                    CTok::Int(parse_int("0").expect("zero"))
                }
            },
            TokKind::Char => match decode_char(s) {
                Ok(v) => CTok::Char(v),
                Err(msg) => {
                    diags.error(t.span, msg);
                    CTok::Char(0)
                }
            },
            TokKind::Str => match decode_string(s) {
                Ok(v) => CTok::Str(v),
                Err(msg) => {
                    diags.error(t.span, msg);
                    CTok::Str(Vec::new())
                }
            },
            TokKind::BadLiteral => {
                let q = if s.contains('"') { '"' } else { '\'' };
                diags.error(t.span, format!("missing terminating {q} character"));
                continue;
            }
            TokKind::Punct => match punct(s) {
                Some(p) => CTok::P(p),
                None => {
                    diags.error(t.span, format!("stray `{s}` in program"));
                    continue;
                }
            },
            TokKind::HeaderName | TokKind::Other | TokKind::FileEnd => {
                diags.error(t.span, format!("stray `{s}` in program"));
                continue;
            }
        };
        out.push(CToken { tok, span: t.span });
    }
    let end = toks
        .last()
        .map(|t| Span::new(t.span.file, t.span.hi, t.span.hi))
        .unwrap_or(Span::NONE);
    out.push(CToken {
        tok: CTok::Eof,
        span: end,
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::diag::DiagSink;
    use crate::front::lexer::lex;

    fn conv(src: &str) -> (Vec<CTok>, usize) {
        let mut i = Interner::new();
        let mut d = DiagSink::new();
        let toks = lex(src, 0, &mut i, &mut d);
        let c = convert(&toks, &i, &mut d);
        (c.into_iter().map(|t| t.tok).collect(), d.error_count())
    }

    #[test]
    fn keywords_and_gnu_spellings() {
        let (t, e) = conv("int __inline__ __const x __restrict sizeof");
        assert_eq!(e, 0);
        assert_eq!(t[0], CTok::Kw(Kw::Int));
        assert_eq!(t[1], CTok::Kw(Kw::Inline));
        assert_eq!(t[2], CTok::Kw(Kw::Const));
        assert!(matches!(t[3], CTok::Ident(_)));
        assert_eq!(t[4], CTok::Kw(Kw::Restrict));
        assert_eq!(t[5], CTok::Kw(Kw::Sizeof));
        assert_eq!(t[6], CTok::Eof);
    }

    #[test]
    fn literal_values() {
        let (t, e) = conv("'\\n' \"a\\x41\" 0x10u <<=");
        assert_eq!(e, 0);
        assert_eq!(t[0], CTok::Char(10));
        assert_eq!(t[1], CTok::Str(b"aA".to_vec()));
        assert!(matches!(t[2], CTok::Int(l) if l.value == 16 && l.unsigned));
        assert_eq!(t[3], CTok::P(P::ShlAssign));
    }

    #[test]
    fn bad_tokens_are_reported() {
        assert_eq!(conv("a @ b").1, 1);
        assert_eq!(conv("'x").1, 1);
        assert_eq!(conv("1.5").1, 1);
        assert_eq!(conv("08").1, 1);
        assert_eq!(conv("L\"w\"").1, 1);
    }
}
