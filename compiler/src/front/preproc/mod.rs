//! The C preprocessor (C99 §6.10): includes, conditional compilation, macro definition and
//! directives. Macro replacement itself is in [`macros`], `#if` arithmetic in [`ifexpr`].
//!
//! Design: every file is lexed once into preprocessing tokens. Pending input is one stack of
//! tokens (`stack`, next token on top): an `#include` pushes an end-of-file marker and the
//! included file's tokens; a macro expansion pushes its replacement back for rescanning. A
//! `#` that starts a line of a file (tokens from expansions never have the line-start flag)
//! begins a directive; everything up to the next line start is that directive's line.
//! Conditional groups that are skipped are scanned only for nested conditionals.
//!
//! Limits (bad input gets an error, never a crash): include depth [`MAX_INCLUDE_DEPTH`],
//! `#if` expression nesting, argument pre-expansion depth and total expansion size (see
//! [`macros`]). Complexity: linear in the number of tokens produced.

mod hideset;
mod ifexpr;
mod macros;

use super::diag::{Diag, DiagSink, FileId, SourceMap, Span};
use super::headers;
use super::lexer::{lex, Interner, Sym, TokKind, Token, BOL, SPACE};
use super::FrontOptions;
use hideset::HideSets;
pub use macros::{Macro, MacroKind};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Maximum nesting of `#include`.
pub const MAX_INCLUDE_DEPTH: usize = 200;

/// State of one open `#if` group.
#[derive(Clone, Copy, Debug)]
struct Cond {
    span: Span,
    /// Some group of this conditional has been (or is being) taken.
    taken: bool,
    seen_else: bool,
}

/// An included file that is being read.
#[derive(Clone, Copy, Debug)]
struct OpenFile {
    /// Number of open conditionals when the file was entered.
    cond_base: usize,
}

/// Well-known spellings, interned once.
#[derive(Clone, Copy, Debug)]
pub(super) struct Names {
    pub hash: Sym,
    pub hashhash: Sym,
    pub lparen: Sym,
    pub rparen: Sym,
    pub comma: Sym,
    pub ellipsis: Sym,
    pub defined: Sym,
    pub va_args: Sym,
    pub pragma_op: Sym,
    pub lt: Sym,
    pub gt: Sym,
}

pub struct Preprocessor<'a> {
    pub(super) sm: &'a mut SourceMap,
    pub(super) interner: &'a mut Interner,
    pub(super) diags: &'a mut DiagSink,
    opts: &'a FrontOptions,
    pub(super) names: Names,
    pub(super) macros: HashMap<Sym, Macro>,
    pub(super) hs: HideSets,
    /// Pending input; the next token is at the end.
    stack: Vec<Token>,
    out: Vec<Token>,
    conds: Vec<Cond>,
    open: Vec<OpenFile>,
    once: HashSet<String>,
    /// Tokens produced by macro expansion so far (bounded).
    pub(super) produced: u64,
    pub(super) expand_depth: usize,
    /// Set after an expansion limit was hit: macros are no longer expanded.
    pub(super) expansion_disabled: bool,
}

impl<'a> Preprocessor<'a> {
    pub fn new(
        sm: &'a mut SourceMap,
        interner: &'a mut Interner,
        diags: &'a mut DiagSink,
        opts: &'a FrontOptions,
    ) -> Self {
        let mut i = |s: &str| interner.intern(s);
        let names = Names {
            hash: i("#"),
            hashhash: i("##"),
            lparen: i("("),
            rparen: i(")"),
            comma: i(","),
            ellipsis: i("..."),
            defined: i("defined"),
            va_args: i("__VA_ARGS__"),
            pragma_op: i("_Pragma"),
            lt: i("<"),
            gt: i(">"),
        };
        let mut pp = Preprocessor {
            sm,
            interner,
            diags,
            opts,
            names,
            macros: HashMap::new(),
            hs: HideSets::new(),
            stack: Vec::new(),
            out: Vec::new(),
            conds: Vec::new(),
            open: Vec::new(),
            once: HashSet::new(),
            produced: 0,
            expand_depth: 0,
            expansion_disabled: false,
        };
        for (name, kind) in [("__FILE__", MacroKind::File), ("__LINE__", MacroKind::Line)] {
            let sym = pp.interner.intern(name);
            pp.macros.insert(sym, Macro::builtin(kind));
        }
        pp
    }

    /// Preprocesses `main` (already in the source map) after the predefined and command-line
    /// macros; returns the token sequence of the translation unit.
    pub fn run(mut self, main: FileId) -> Vec<Token> {
        let predef = self.predefined_text();
        let predef_id = self.sm.add("<command line>".into(), None, predef);
        self.push_file(main, Span::NONE);
        self.push_file(predef_id, Span::NONE);
        self.process();
        self.out
    }

    /// The `#define`/`#undef` lines for predefined and `-D`/`-U` macros.
    fn predefined_text(&self) -> String {
        let mut s = String::from(
            "#define __SSALAB__ 1\n#define __STDC__ 1\n#define __STDC_VERSION__ 199901L\n\
             #define __ILP32__ 1\n#define __CHAR_BIT__ 8\n",
        );
        if let Some(t) = &self.opts.target {
            let t: String = t
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            s += &format!("#define __{t}__ 1\n");
        }
        for (name, val) in &self.opts.defines {
            // `-D NAME` defines NAME as 1; `-D NAME=` defines it as empty.
            let body = val.as_deref().unwrap_or("1");
            s += &format!("#define {name} {}\n", body.replace('\n', " "));
        }
        for name in &self.opts.undefines {
            s += &format!("#undef {name}\n");
        }
        s
    }

    fn push_file(&mut self, file: FileId, _site: Span) {
        let toks = lex(&self.sm.file(file).text, file, self.interner, self.diags);
        self.stack.push(Token {
            kind: TokKind::FileEnd,
            flags: BOL,
            sym: self.names.hash,
            span: Span::new(file, 0, 0),
            hs: 0,
        });
        self.stack.extend(toks.into_iter().rev());
        self.open.push(OpenFile {
            cond_base: self.conds.len(),
        });
    }

    pub(super) fn spelling(&self, t: &Token) -> &str {
        self.interner.get(t.sym)
    }

    pub(super) fn is_punct(&self, t: &Token, s: Sym) -> bool {
        t.kind == TokKind::Punct && t.sym == s
    }

    fn process(&mut self) {
        while let Some(t) = self.stack.pop() {
            if self.diags.should_stop() {
                break;
            }
            match t.kind {
                TokKind::FileEnd => self.end_file(),
                TokKind::Punct if t.bol() && t.sym == self.names.hash => self.directive(t),
                TokKind::Ident => {
                    let mut input = std::mem::take(&mut self.stack);
                    let expanded = self.try_expand(t, &mut input, false);
                    self.stack = input;
                    if !expanded {
                        if t.sym == self.names.pragma_op {
                            self.pragma_operator(t);
                        } else {
                            self.out.push(t);
                        }
                    }
                }
                _ => self.out.push(t),
            }
        }
    }

    fn end_file(&mut self) {
        let Some(f) = self.open.pop() else { return };
        while self.conds.len() > f.cond_base {
            let c = self.conds.pop().expect("open conditional");
            self.diags
                .error(c.span, "unterminated conditional directive");
        }
    }

    /// `_Pragma ( string-literal )` is removed (C99 §6.10.9); pragmas are ignored.
    fn pragma_operator(&mut self, t: Token) {
        let ok = self.stack.len() >= 3 && {
            let n = self.stack.len();
            let (a, b, c) = (self.stack[n - 1], self.stack[n - 2], self.stack[n - 3]);
            self.is_punct(&a, self.names.lparen)
                && b.kind == TokKind::Str
                && self.is_punct(&c, self.names.rparen)
        };
        if ok {
            self.stack.truncate(self.stack.len() - 3);
        } else {
            self.diags
                .error(t.span, "_Pragma takes a parenthesized string literal");
        }
    }

    /// Pops the rest of the current directive line.
    fn line_rest(&mut self) -> Vec<Token> {
        let mut v = Vec::new();
        while let Some(t) = self.stack.last() {
            if t.bol() || t.kind == TokKind::FileEnd {
                break;
            }
            v.push(self.stack.pop().expect("token"));
        }
        v
    }

    fn directive(&mut self, hash: Token) {
        let line = self.line_rest();
        let Some(&name_tok) = line.first() else {
            return; // null directive
        };
        let args = &line[1..];
        if name_tok.kind == TokKind::Number {
            return; // `# 33 "file"` line marker: ignored like #line
        }
        let name = self.spelling(&name_tok).to_string();
        match name.as_str() {
            "define" => self.define(args, name_tok),
            "undef" => self.undef(args, name_tok),
            "include" | "include_next" => self.include(args, name_tok),
            "if" => {
                let v = self.eval_if(args, name_tok);
                self.open_cond(hash, v);
            }
            "ifdef" | "ifndef" => {
                let v = self.ifdef_value(args, name_tok, name == "ifdef");
                self.open_cond(hash, v);
            }
            "elif" | "else" => {
                if self.conds.len() <= self.cond_base() {
                    self.diags
                        .error(name_tok.span, format!("#{name} without #if"));
                    return;
                }
                let c = self.conds.last_mut().expect("conditional");
                if c.seen_else {
                    let d = Diag::error(name_tok.span, format!("#{name} after #else"));
                    self.diags.report(d);
                }
                if name == "else" {
                    c.seen_else = true;
                    self.extra_tokens(args, "else");
                }
                // The group before was taken: skip all the remaining groups.
                self.skip_rest_of_conditional();
            }
            "endif" => {
                if self.conds.len() <= self.cond_base() {
                    self.diags.error(name_tok.span, "#endif without #if");
                } else {
                    self.conds.pop();
                }
                self.extra_tokens(args, "endif");
            }
            "error" => {
                let msg = self.join_spellings(args);
                self.diags.error(name_tok.span, format!("#error {msg}"));
            }
            "warning" => {
                let msg = self.join_spellings(args);
                self.diags.warning(name_tok.span, format!("#warning {msg}"));
            }
            "pragma" => {
                if args.len() == 1 && self.spelling(&args[0]) == "once" {
                    let key = self.file_key(hash.span.file);
                    self.once.insert(key);
                }
            }
            // #line changes only presumed names and numbers: ignored (documented).
            "line" | "ident" | "sccs" | "assert" | "unassert" => {}
            _ => self.diags.error(
                name_tok.span,
                format!("invalid preprocessing directive #{name}"),
            ),
        }
    }

    fn cond_base(&self) -> usize {
        self.open.last().map(|f| f.cond_base).unwrap_or(0)
    }

    fn extra_tokens(&mut self, args: &[Token], what: &str) {
        if let Some(t) = args.first() {
            self.diags
                .warning(t.span, format!("extra tokens at end of #{what} directive"));
        }
    }

    pub(super) fn join_spellings(&self, toks: &[Token]) -> String {
        let mut s = String::new();
        for (k, t) in toks.iter().enumerate() {
            if k > 0 && t.space() {
                s.push(' ');
            }
            s.push_str(self.spelling(t));
        }
        s
    }

    fn open_cond(&mut self, hash: Token, value: bool) {
        self.conds.push(Cond {
            span: hash.span,
            taken: value,
            seen_else: false,
        });
        if !value {
            self.skip_to_taken_group();
        }
    }

    fn ifdef_value(&mut self, args: &[Token], name_tok: Token, ifdef: bool) -> bool {
        match args.first() {
            Some(t) if t.kind == TokKind::Ident => {
                if args.len() > 1 {
                    let w = if ifdef { "ifdef" } else { "ifndef" };
                    self.extra_tokens(&args[1..], w);
                }
                self.macros.contains_key(&t.sym) == ifdef
            }
            Some(t) => {
                self.diags.error(t.span, "macro names must be identifiers");
                false
            }
            None => {
                self.diags.error(name_tok.span, "no macro name given");
                false
            }
        }
    }

    /// Skips groups of the innermost conditional until one is taken or `#endif` closes it.
    fn skip_to_taken_group(&mut self) {
        loop {
            let Some(name_tok) = self.skip_group() else {
                return; // end of file: reported by end_file
            };
            let args = self.line_rest();
            match self.spelling(&name_tok) {
                "elif" => {
                    let c = *self.conds.last().expect("conditional");
                    if c.seen_else {
                        self.diags.error(name_tok.span, "#elif after #else");
                    }
                    if !c.taken && self.eval_if(&args, name_tok) {
                        self.conds.last_mut().expect("conditional").taken = true;
                        return;
                    }
                }
                "else" => {
                    let c = self.conds.last_mut().expect("conditional");
                    if c.seen_else {
                        self.diags.error(name_tok.span, "#else after #else");
                    }
                    c.seen_else = true;
                    if !c.taken {
                        c.taken = true;
                        return;
                    }
                }
                _ => {
                    // endif
                    self.conds.pop();
                    return;
                }
            }
        }
    }

    /// After a taken group: skips every remaining group up to and including `#endif`.
    fn skip_rest_of_conditional(&mut self) {
        self.conds.last_mut().expect("conditional").taken = true;
        self.skip_to_taken_group();
    }

    /// Skips tokens up to an `#elif`, `#else` or `#endif` of the current nesting level and
    /// returns its name token (the rest of that line is still pending). `None` at the end
    /// of the file (the FileEnd marker is left on the stack).
    fn skip_group(&mut self) -> Option<Token> {
        let mut depth = 0usize;
        while let Some(t) = self.stack.pop() {
            if t.kind == TokKind::FileEnd {
                self.stack.push(t);
                return None;
            }
            if !(t.bol() && self.is_punct(&t, self.names.hash)) {
                continue;
            }
            let Some(&n) = self.stack.last() else {
                continue;
            };
            if n.bol() || n.kind != TokKind::Ident {
                continue;
            }
            match self.spelling(&n) {
                "if" | "ifdef" | "ifndef" => depth += 1,
                "endif" if depth > 0 => depth -= 1,
                "elif" | "else" | "endif" if depth == 0 => {
                    self.stack.pop();
                    return Some(n);
                }
                _ => {}
            }
        }
        None
    }

    fn define(&mut self, args: &[Token], name_tok: Token) {
        let Some(&name) = args.first() else {
            self.diags
                .error(name_tok.span, "no macro name given in #define");
            return;
        };
        if name.kind != TokKind::Ident {
            self.diags
                .error(name.span, "macro names must be identifiers");
            return;
        }
        if name.sym == self.names.defined {
            self.diags
                .error(name.span, "\"defined\" cannot be used as a macro name");
            return;
        }
        let Some(m) = self.parse_macro(name, &args[1..]) else {
            return;
        };
        if let Some(old) = self.macros.get(&name.sym) {
            if !old.same_definition(&m, self.interner) {
                let d = Diag::warning(name.span, format!("`{}` redefined", self.spelling(&name)));
                let d = if old.name_span.is_none() {
                    d
                } else {
                    d.with_secondary(old.name_span, "previous definition is here")
                };
                self.diags.report(d);
            }
        }
        self.macros.insert(name.sym, m);
    }

    fn undef(&mut self, args: &[Token], name_tok: Token) {
        match args.first() {
            Some(t) if t.kind == TokKind::Ident => {
                self.macros.remove(&t.sym);
                if args.len() > 1 {
                    self.extra_tokens(&args[1..], "undef");
                }
            }
            Some(t) => self.diags.error(t.span, "macro names must be identifiers"),
            None => self
                .diags
                .error(name_tok.span, "no macro name given in #undef"),
        }
    }

    /// Name used for `#pragma once`: canonical path, or the virtual name.
    fn file_key(&self, file: FileId) -> String {
        let f = self.sm.file(file);
        match &f.path {
            Some(p) => std::fs::canonicalize(p)
                .unwrap_or_else(|_| p.clone())
                .to_string_lossy()
                .into_owned(),
            None => format!("<{}>", f.name),
        }
    }

    fn include(&mut self, args: &[Token], name_tok: Token) {
        let Some((name, angled, span)) = self.header_spec(args, name_tok) else {
            return;
        };
        if self.open.len() >= MAX_INCLUDE_DEPTH {
            self.diags.error(
                span,
                format!("#include nested too deeply (more than {MAX_INCLUDE_DEPTH} levels)"),
            );
            return;
        }
        let including = name_tok.span.file;
        match self.find_header(&name, angled, including) {
            Ok(id) => {
                let key = self.file_key(id);
                if !self.once.contains(&key) {
                    self.push_file(id, span);
                }
            }
            Err(msg) => self.diags.error(span, msg),
        }
    }

    /// The header name of an `#include` line: (name, angled, span).
    fn header_spec(&mut self, args: &[Token], name_tok: Token) -> Option<(String, bool, Span)> {
        let direct = match args.first() {
            Some(t) if t.kind == TokKind::HeaderName || t.kind == TokKind::Str => Some(*t),
            _ => None,
        };
        if let Some(t) = direct {
            let s = self.spelling(&t);
            let name = s[1..s.len() - 1].to_string();
            if args.len() > 1 {
                self.extra_tokens(&args[1..], "include");
            }
            return Some((name, t.kind == TokKind::HeaderName, t.span));
        }
        // `#include MACRO`: expand, then take a string or `<` … `>`.
        let toks = self.expand_list(args.to_vec(), false);
        let span = args.first().map(|t| t.span).unwrap_or(name_tok.span);
        match toks.first() {
            Some(t) if t.kind == TokKind::Str => {
                let s = self.spelling(t);
                Some((s[1..s.len() - 1].to_string(), false, span))
            }
            Some(t) if self.is_punct(t, self.names.lt) => {
                let end = toks.iter().position(|t| self.is_punct(t, self.names.gt));
                match end {
                    Some(e) if e > 1 => {
                        let name = self.join_spellings(&toks[1..e]);
                        Some((name, true, span))
                    }
                    _ => {
                        self.diags.error(span, "missing '>' in #include");
                        None
                    }
                }
            }
            _ => {
                self.diags
                    .error(span, "#include expects \"FILENAME\" or <FILENAME>");
                None
            }
        }
    }

    /// Finds and loads a header: quoted names look in the including file's directory first,
    /// then the `-I` directories, then the test-only virtual files, then ssalab's built-in
    /// headers.
    fn find_header(
        &mut self,
        name: &str,
        angled: bool,
        including: FileId,
    ) -> Result<FileId, String> {
        let mut dirs: Vec<PathBuf> = Vec::new();
        if !angled {
            if let Some(p) = self.sm.file(including).path.as_ref() {
                dirs.push(p.parent().map(Path::to_path_buf).unwrap_or_default());
            }
        }
        dirs.extend(self.opts.include_dirs.iter().cloned());
        for d in dirs {
            let p = if d.as_os_str().is_empty() {
                PathBuf::from(name)
            } else {
                d.join(name)
            };
            if p.is_file() {
                return match std::fs::read(&p) {
                    Ok(bytes) => {
                        let text = String::from_utf8_lossy(&bytes).into_owned();
                        let shown = p.to_string_lossy().into_owned();
                        Ok(self.sm.add(shown, Some(p), text))
                    }
                    Err(e) => Err(format!("cannot read include file `{name}`: {e}")),
                };
            }
        }
        if let Some((_, text)) = self.opts.virtual_files.iter().find(|(n, _)| n == name) {
            return Ok(self.sm.add(name.to_string(), None, text.clone()));
        }
        if let Some(text) = headers::builtin(name) {
            return Ok(self
                .sm
                .add(format!("<built-in>/{name}"), None, text.to_string()));
        }
        Err(format!("cannot find include file `{name}`"))
    }

    /// Makes a fresh token with the given spelling and place (for `__LINE__`, `#`, …).
    pub(super) fn make_token(&mut self, kind: TokKind, text: &str, span: Span, flags: u8) -> Token {
        Token {
            kind,
            flags: flags & SPACE,
            sym: self.interner.intern(text),
            span,
            hs: 0,
        }
    }
}

#[cfg(test)]
mod tests;
