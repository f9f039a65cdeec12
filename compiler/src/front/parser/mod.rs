//! Parser of C-DSP: C tokens to the syntax tree ([`crate::front::ast`]).
//!
//! A recursive-descent parser for declarations and statements with precedence climbing for
//! binary operators, written in nom's style: small functions over a token slice that either
//! consume input and return a node or fail without consuming. The typedef-name ambiguity is
//! resolved with a scope stack of ordinary identifiers (the "lexer hack").
//!
//! Errors are reported with their place, then the parser resynchronises (at `;` or `}` in a
//! function, at the end of the external declaration at file level) and continues, so one run
//! reports several errors.
//!
//! Nesting limit: every recursive construct (parenthesised or unary expression, statement,
//! declarator, initialiser list) goes through [`Parser::nested`], which refuses to go deeper
//! than [`MAX_DEPTH`] levels with its own diagnostic; left-deep chains built by loops (`a+b+c…`,
//! `a[1][2]…`) are bounded by [`MAX_CHAIN`]. So no input can overflow the stack here or in the
//! later passes that recurse over the tree. Complexity: linear in the number of tokens
//! (recovery skips each token at most once per nesting level it closes).

mod decl;
mod expr;
mod stmt;
#[cfg(test)]
mod tests;

use super::ast::*;
use super::ctoken::{CTok, CToken, Kw, P};
use super::diag::{DiagSink, Span};
use super::lexer::{Interner, Sym};
use std::collections::HashMap;

/// Maximum nesting of expressions, statements and declarators.
pub const MAX_DEPTH: usize = 256;
/// Maximum height of an expression tree (left-deep chains like `a+b+c…` are built by loops,
/// so they are bounded by height rather than by nesting).
pub const MAX_HEIGHT: u32 = 4096;

/// Marker for "an error was reported; unwind to a recovery point".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fatal;

pub type PResult<T> = Result<T, Fatal>;

pub struct Parser<'a> {
    toks: &'a [CToken],
    pos: usize,
    diags: &'a mut DiagSink,
    interner: &'a Interner,
    /// Ordinary-identifier scopes: `true` for typedef names.
    scopes: Vec<HashMap<Sym, bool>>,
    depth: usize,
    depth_reported: bool,
    /// Height of the expression tree returned last by an expression function.
    last_h: u32,
    /// Some syntax error made the parser skip input (the tree then lacks pieces, and
    /// semantic analysis would report follow-on errors).
    recovered: bool,
}

/// Parses a translation unit. `toks` must end with `Eof`. The flag is true if a syntax
/// error made the parser skip input.
pub fn parse(
    toks: &[CToken],
    interner: &Interner,
    diags: &mut DiagSink,
) -> (TranslationUnit, bool) {
    let mut p = Parser {
        toks,
        pos: 0,
        diags,
        interner,
        scopes: vec![HashMap::new()],
        depth: 0,
        depth_reported: false,
        last_h: 0,
        recovered: false,
    };
    let tu = p.translation_unit();
    (tu, p.recovered)
}

impl<'a> Parser<'a> {
    // ---- token access -------------------------------------------------------------------

    fn tok(&self) -> &'a CTok {
        &self.toks[self.pos.min(self.toks.len() - 1)].tok
    }

    fn tok_at(&self, k: usize) -> &'a CTok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].tok
    }

    fn span(&self) -> Span {
        self.toks[self.pos.min(self.toks.len() - 1)].span
    }

    /// Span of the last consumed token.
    fn prev_span(&self) -> Span {
        if self.pos == 0 {
            self.span()
        } else {
            self.toks[(self.pos - 1).min(self.toks.len() - 1)].span
        }
    }

    fn bump(&mut self) {
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
    }

    fn at_eof(&self) -> bool {
        matches!(self.tok(), CTok::Eof)
    }

    fn is(&self, p: P) -> bool {
        *self.tok() == CTok::P(p)
    }

    fn is_kw(&self, k: Kw) -> bool {
        *self.tok() == CTok::Kw(k)
    }

    /// Consumes punctuator `p` if it is next.
    fn eat(&mut self, p: P) -> bool {
        if self.is(p) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn eat_kw(&mut self, k: Kw) -> bool {
        if self.is_kw(k) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// Requires punctuator `p`; reports "expected …" at the current token otherwise.
    fn expect(&mut self, p: P, what: &str) -> PResult<()> {
        if self.eat(p) {
            Ok(())
        } else {
            self.error_here(format!("expected {what}"))
        }
    }

    fn error_here<T>(&mut self, msg: impl Into<String>) -> PResult<T> {
        let found = self.describe_tok();
        let msg = format!("{} before {found}", msg.into());
        self.diags.error(self.span(), msg);
        Err(Fatal)
    }

    /// Reports a construct outside the subset at the current token.
    fn unsupported<T>(&mut self, what: &str) -> PResult<T> {
        let span = self.span();
        self.error_at(span, format!("not supported by ssalab: {what}"))
    }

    fn error_at<T>(&mut self, span: Span, msg: impl Into<String>) -> PResult<T> {
        self.diags.error(span, msg);
        Err(Fatal)
    }

    fn describe_tok(&self) -> String {
        match self.tok() {
            CTok::Eof => "end of input".into(),
            CTok::Ident(s) => format!("`{}`", self.interner.get(*s)),
            CTok::Kw(k) => format!("keyword `{}`", format!("{k:?}").to_lowercase()),
            CTok::Int(l) => format!("constant {}", l.value),
            CTok::Char(_) => "character constant".into(),
            CTok::Str(_) => "string literal".into(),
            CTok::P(p) => format!("`{}`", punct_text(*p)),
        }
    }

    // ---- nesting ------------------------------------------------------------------------

    /// Reports the nesting-limit error (once per external declaration) and fails.
    fn too_deep<T>(&mut self) -> PResult<T> {
        if !self.depth_reported {
            self.depth_reported = true;
            self.diags.error(
                self.span(),
                format!(
                    "nesting too deep: more than {MAX_DEPTH} nested levels of expressions, statements or declarators"
                ),
            );
        }
        Err(Fatal)
    }

    /// Runs `f` one nesting level deeper, refusing beyond [`MAX_DEPTH`].
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_DEPTH {
            return self.too_deep();
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// Records the height of an expression node built from children of height `h` and
    /// refuses trees higher than [`MAX_HEIGHT`].
    fn set_height(&mut self, h: u32) -> PResult<()> {
        self.last_h = h;
        if h > MAX_HEIGHT {
            if !self.depth_reported {
                self.depth_reported = true;
                self.diags.error(
                    self.span(),
                    format!(
                        "expression too complex: its tree is more than {MAX_HEIGHT} levels high"
                    ),
                );
            }
            return Err(Fatal);
        }
        Ok(())
    }

    // ---- scopes -------------------------------------------------------------------------

    fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    fn pop_scope(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }

    fn declare(&mut self, name: Sym, is_typedef: bool) {
        self.scopes
            .last_mut()
            .expect("a scope")
            .insert(name, is_typedef);
    }

    fn is_typedef_name(&self, name: Sym) -> bool {
        for s in self.scopes.iter().rev() {
            if let Some(&t) = s.get(&name) {
                return t;
            }
        }
        false
    }

    /// True if the current token can begin declaration specifiers.
    fn starts_decl_specs(&self) -> bool {
        match self.tok() {
            CTok::Kw(k) => starts_declaration(*k),
            CTok::Ident(s) => self.is_typedef_name(*s),
            _ => false,
        }
    }

    // ---- recovery -----------------------------------------------------------------------

    /// Skips to just after the next `;` or to the next `}` of the current nesting level.
    fn recover_statement(&mut self) {
        let mut depth = 0usize;
        loop {
            match self.tok() {
                CTok::Eof => return,
                CTok::P(P::Semi) if depth == 0 => {
                    self.bump();
                    return;
                }
                CTok::P(P::RBrace) if depth == 0 => return,
                CTok::P(P::LBrace | P::LParen | P::LBracket) => depth += 1,
                CTok::P(P::RBrace | P::RParen | P::RBracket) => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 && self.is(P::RBrace) {
                        self.bump();
                        // A block ended: good place to resume.
                        return;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// Skips to the end of the external declaration that began at token `from`: brackets
    /// opened since then are closed first, so a failure deep inside a function body resumes
    /// after the function.
    fn recover_top(&mut self, from: usize) {
        let mut depth = 0usize;
        for t in &self.toks[from..self.pos.min(self.toks.len())] {
            match t.tok {
                CTok::P(P::LBrace | P::LParen | P::LBracket) => depth += 1,
                CTok::P(P::RBrace | P::RParen | P::RBracket) => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        loop {
            match self.tok() {
                CTok::Eof => return,
                CTok::P(P::Semi) if depth == 0 => {
                    self.bump();
                    return;
                }
                CTok::P(P::LBrace | P::LParen | P::LBracket) => depth += 1,
                CTok::P(P::RBrace | P::RParen | P::RBracket) => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 && self.is(P::RBrace) {
                        self.bump();
                        return;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    // ---- translation unit ---------------------------------------------------------------

    fn translation_unit(&mut self) -> TranslationUnit {
        let mut items = Vec::new();
        while !self.at_eof() {
            if self.diags.should_stop() {
                break;
            }
            if self.eat(P::Semi) {
                continue; // stray `;` at file level (accepted by gcc)
            }
            let start = self.pos;
            self.depth_reported = false;
            match self.external_declaration() {
                Ok(Some(item)) => items.push(item),
                Ok(None) => {}
                Err(Fatal) => {
                    self.recovered = true;
                    self.depth = 0;
                    self.recover_top(start);
                    if self.pos == start {
                        self.bump();
                    }
                }
            }
        }
        TranslationUnit { items }
    }
}

/// Text of a punctuator (for messages).
pub fn punct_text(p: P) -> &'static str {
    match p {
        P::LBracket => "[",
        P::RBracket => "]",
        P::LParen => "(",
        P::RParen => ")",
        P::LBrace => "{",
        P::RBrace => "}",
        P::Dot => ".",
        P::Arrow => "->",
        P::Inc => "++",
        P::Dec => "--",
        P::Amp => "&",
        P::Star => "*",
        P::Plus => "+",
        P::Minus => "-",
        P::Tilde => "~",
        P::Bang => "!",
        P::Slash => "/",
        P::Percent => "%",
        P::Shl => "<<",
        P::Shr => ">>",
        P::Lt => "<",
        P::Gt => ">",
        P::Le => "<=",
        P::Ge => ">=",
        P::EqEq => "==",
        P::Ne => "!=",
        P::Caret => "^",
        P::Pipe => "|",
        P::AndAnd => "&&",
        P::OrOr => "||",
        P::Question => "?",
        P::Colon => ":",
        P::Semi => ";",
        P::Ellipsis => "...",
        P::Assign => "=",
        P::MulAssign => "*=",
        P::DivAssign => "/=",
        P::ModAssign => "%=",
        P::AddAssign => "+=",
        P::SubAssign => "-=",
        P::ShlAssign => "<<=",
        P::ShrAssign => ">>=",
        P::AndAssign => "&=",
        P::XorAssign => "^=",
        P::OrAssign => "|=",
        P::Comma => ",",
        P::Hash => "#",
        P::HashHash => "##",
    }
}
