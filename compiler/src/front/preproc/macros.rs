//! Macro definitions and replacement (C99 §6.10.3) following Prosser's hide-set algorithm.
//!
//! Each token carries a hide set: the names of the macros whose expansion produced it. A
//! macro name is not replaced if it is in its own token's hide set, which stops recursion
//! exactly where the standard says (§6.10.3.4) without a global "currently expanding" list,
//! and gives the right answer for the tricky examples of §6.10.3.5. An object-like
//! expansion adds the macro to the hide set of every token it produces; a function-like one
//! adds it to the intersection of the name's and the closing parenthesis's hide sets.
//! Arguments are fully macro-expanded before substitution except as operands of `#` and
//! `##`. Replacement text is pushed back on the input for rescanning.
//!
//! Every token produced by an expansion gets the span of the macro's use site (arguments
//! keep their own spans), so errors point where the programmer wrote the macro.
//!
//! Limits: argument pre-expansion recurses, so its depth is capped at [`MAX_EXPAND_DEPTH`];
//! the total number of tokens produced by expansion is capped at [`MAX_EXPANDED_TOKENS`]
//! (exponential macros). Hitting either is an error and expansion stops.

use super::{Preprocessor, TokKind, Token};
use crate::front::diag::Span;
use crate::front::lexer::{lex_single, Interner, Sym, BOL, SPACE};

/// Maximum nesting of macro invocations inside macro arguments.
pub const MAX_EXPAND_DEPTH: usize = 100;
/// Maximum number of tokens all macro expansions may produce.
pub const MAX_EXPANDED_TOKENS: u64 = 4_000_000;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MacroKind {
    Object,
    Function { params: Vec<Sym>, variadic: bool },
    File,
    Line,
}

/// A macro definition.
#[derive(Clone, Debug)]
pub struct Macro {
    pub name_span: Span,
    pub kind: MacroKind,
    pub body: Vec<Token>,
    /// For each body token: 1 + the index of the parameter it names, or 0.
    param_of: Vec<u16>,
}

impl Macro {
    pub(super) fn builtin(kind: MacroKind) -> Macro {
        Macro {
            name_span: Span::NONE,
            kind,
            body: Vec::new(),
            param_of: Vec::new(),
        }
    }

    /// §6.10.3p2: a redefinition must have the same parameters and the same replacement list
    /// (same spellings, whitespace separation in the same places).
    pub(super) fn same_definition(&self, other: &Macro, _i: &Interner) -> bool {
        self.kind == other.kind
            && self.body.len() == other.body.len()
            && self
                .body
                .iter()
                .zip(&other.body)
                .enumerate()
                .all(|(k, (a, b))| a.sym == b.sym && (k == 0 || a.space() == b.space()))
    }

    fn is_function_like(&self) -> bool {
        matches!(self.kind, MacroKind::Function { .. })
    }
}

impl Preprocessor<'_> {
    /// Parses the part of a `#define` line after the name. `None` after an error.
    pub(super) fn parse_macro(&mut self, name: Token, rest: &[Token]) -> Option<Macro> {
        let n = self.names;
        let mut k = 0;
        let mut kind = MacroKind::Object;
        if let Some(t) = rest.first() {
            if self.is_punct(t, n.lparen) && !t.space() {
                let mut params = Vec::new();
                let mut variadic = false;
                k = 1;
                loop {
                    let Some(&t) = rest.get(k) else {
                        self.diags
                            .error(name.span, "missing ')' in macro parameter list");
                        return None;
                    };
                    k += 1;
                    if self.is_punct(&t, n.rparen) && params.is_empty() && !variadic {
                        break;
                    }
                    if self.is_punct(&t, n.ellipsis) {
                        variadic = true;
                        params.push(n.va_args);
                    } else if t.kind == TokKind::Ident && t.sym != n.va_args {
                        if params.contains(&t.sym) {
                            self.diags.error(
                                t.span,
                                format!("duplicate macro parameter `{}`", self.spelling(&t)),
                            );
                            return None;
                        }
                        params.push(t.sym);
                    } else {
                        self.diags
                            .error(t.span, "expected a parameter name in macro parameter list");
                        return None;
                    }
                    match rest.get(k) {
                        Some(c) if self.is_punct(c, n.rparen) => {
                            k += 1;
                            break;
                        }
                        Some(c) if self.is_punct(c, n.comma) && !variadic => k += 1,
                        Some(c) => {
                            self.diags
                                .error(c.span, "expected ',' or ')' in macro parameter list");
                            return None;
                        }
                        None => {
                            self.diags
                                .error(name.span, "missing ')' in macro parameter list");
                            return None;
                        }
                    }
                }
                kind = MacroKind::Function { params, variadic };
            }
        }
        let mut body: Vec<Token> = rest[k..].to_vec();
        for (j, t) in body.iter_mut().enumerate() {
            t.flags &= !BOL;
            if j == 0 {
                t.flags &= !SPACE;
            }
        }
        let param_of: Vec<u16> = body
            .iter()
            .map(|t| match &kind {
                MacroKind::Function { params, .. } if t.kind == TokKind::Ident => params
                    .iter()
                    .position(|&p| p == t.sym)
                    .map(|p| p as u16 + 1)
                    .unwrap_or(0),
                _ => 0,
            })
            .collect();
        // Constraints of §6.10.3.2 and §6.10.3.3.
        if let (Some(first), Some(last)) = (body.first(), body.last()) {
            for t in [first, last] {
                if self.is_punct(t, n.hashhash) {
                    self.diags.error(
                        t.span,
                        "'##' cannot appear at either end of a macro expansion",
                    );
                    return None;
                }
            }
        }
        if matches!(kind, MacroKind::Function { .. }) {
            for (j, t) in body.iter().enumerate() {
                if self.is_punct(t, n.hash) && param_of.get(j + 1).copied().unwrap_or(0) == 0 {
                    self.diags
                        .error(t.span, "'#' is not followed by a macro parameter");
                    return None;
                }
            }
        }
        Some(Macro {
            name_span: name.span,
            kind,
            body,
            param_of,
        })
    }

    /// Fully macro-expands a token list that is complete in itself (a directive line or a
    /// macro argument). In `#if` mode, `defined X` and `defined(X)` become 1 or 0.
    pub(super) fn expand_list(&mut self, toks: Vec<Token>, if_mode: bool) -> Vec<Token> {
        if self.expansion_disabled && !if_mode {
            return toks;
        }
        if self.expand_depth >= MAX_EXPAND_DEPTH {
            if !self.expansion_disabled {
                let span = toks.first().map(|t| t.span).unwrap_or(Span::NONE);
                self.diags.error(
                    span,
                    format!(
                        "macro invocations nested too deeply in macro arguments (more than {MAX_EXPAND_DEPTH})"
                    ),
                );
                self.expansion_disabled = true;
            }
            return toks;
        }
        self.expand_depth += 1;
        let mut input: Vec<Token> = toks.into_iter().rev().collect();
        let mut out = Vec::with_capacity(input.len());
        while let Some(t) = input.pop() {
            if t.kind != TokKind::Ident {
                out.push(t);
                continue;
            }
            if if_mode && t.sym == self.names.defined {
                let v = self.defined_operator(t, &mut input);
                let tok =
                    self.make_token(TokKind::Number, if v { "1" } else { "0" }, t.span, t.flags);
                out.push(tok);
                continue;
            }
            if !self.try_expand(t, &mut input, true) {
                out.push(t);
            }
        }
        self.expand_depth -= 1;
        out
    }

    /// `defined X` / `defined ( X )` in `#if`.
    fn defined_operator(&mut self, t: Token, input: &mut Vec<Token>) -> bool {
        let n = self.names;
        let paren = matches!(input.last(), Some(p) if self.is_punct(p, n.lparen));
        if paren {
            input.pop();
        }
        let name = match input.pop() {
            Some(x) if x.kind == TokKind::Ident => x,
            _ => {
                self.diags
                    .error(t.span, "operator \"defined\" requires an identifier");
                return false;
            }
        };
        if paren {
            match input.pop() {
                Some(p) if self.is_punct(&p, n.rparen) => {}
                _ => self.diags.error(name.span, "missing ')' after \"defined\""),
            }
        }
        self.macros.contains_key(&name.sym)
    }

    /// If `t` names a macro that may be expanded here, reads its arguments from `input`,
    /// pushes the replacement onto `input` for rescanning and returns true. `bounded` input
    /// (a directive line or an argument) has no directives or file ends in it.
    pub(super) fn try_expand(&mut self, t: Token, input: &mut Vec<Token>, bounded: bool) -> bool {
        if self.expansion_disabled || self.hs.contains(t.hs, t.sym) {
            return false;
        }
        let Some(m) = self.macros.get(&t.sym) else {
            return false;
        };
        let produced = match &m.kind {
            MacroKind::File => {
                let name = if t.span.is_none() {
                    "<command line>".to_string()
                } else {
                    self.sm.file(t.span.file).name.clone()
                };
                let lit = format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""));
                vec![self.make_token(TokKind::Str, &lit, t.span, t.flags)]
            }
            MacroKind::Line => {
                let line = if t.span.is_none() {
                    1
                } else {
                    self.sm.line_col(t.span.file, t.span.lo).0
                };
                vec![self.make_token(TokKind::Number, &line.to_string(), t.span, t.flags)]
            }
            MacroKind::Object => {
                let m = m.clone();
                let hs = self.hs.insert(t.hs, t.sym);
                self.subst(&m, &[], hs, t)
            }
            MacroKind::Function { .. } => {
                let m = m.clone();
                // Only an invocation if the next token is `(` (possibly on a later line).
                match input.last() {
                    Some(p) if self.is_punct(p, self.names.lparen) => {}
                    _ => return false,
                }
                input.pop();
                let Some((args, rparen)) = self.collect_args(&m, t, input, bounded) else {
                    return true; // error reported; the invocation is dropped
                };
                let hs = self.hs.intersect(t.hs, rparen.hs);
                let hs = self.hs.insert(hs, t.sym);
                let out = self.subst(&m, &args, hs, t);
                if self.expansion_disabled {
                    // A limit was hit inside the arguments (reported): drop the invocation.
                    return true;
                }
                out
            }
        };
        self.produced += produced.len() as u64;
        if self.produced > MAX_EXPANDED_TOKENS {
            if self.expansion_disabled {
                return true;
            }
            self.diags.error(
                t.span,
                format!("macro expansion too large (more than {MAX_EXPANDED_TOKENS} tokens)"),
            );
            self.expansion_disabled = true;
            return true;
        }
        let first_flags = t.flags & SPACE;
        let n = produced.len();
        input.extend(produced.into_iter().rev().enumerate().map(|(k, mut x)| {
            x.flags &= !BOL;
            if k == n - 1 {
                // The first token of the replacement inherits the name's leading space.
                x.flags = (x.flags & !SPACE) | first_flags;
            }
            x
        }));
        true
    }

    /// Reads the arguments of a function-like macro invocation after its `(`. Returns the
    /// arguments (unexpanded) and the closing parenthesis.
    fn collect_args(
        &mut self,
        m: &Macro,
        name: Token,
        input: &mut Vec<Token>,
        bounded: bool,
    ) -> Option<(Vec<Vec<Token>>, Token)> {
        let MacroKind::Function { params, variadic } = &m.kind else {
            return None;
        };
        let n = self.names;
        let mut args: Vec<Vec<Token>> = vec![Vec::new()];
        let mut depth = 0usize;
        let rparen = loop {
            let Some(t) = input.pop() else {
                self.unterminated(name);
                return None;
            };
            if !bounded && (t.kind == TokKind::FileEnd || (t.bol() && self.is_punct(&t, n.hash))) {
                input.push(t);
                if t.kind == TokKind::FileEnd {
                    self.unterminated(name);
                } else {
                    self.diags.error(
                        t.span,
                        format!(
                            "preprocessing directive inside the arguments of macro `{}` is not supported",
                            self.spelling(&name)
                        ),
                    );
                }
                return None;
            }
            if t.kind == TokKind::Punct {
                if t.sym == n.lparen {
                    depth += 1;
                } else if t.sym == n.rparen {
                    if depth == 0 {
                        break t;
                    }
                    depth -= 1;
                } else if t.sym == n.comma
                    && depth == 0
                    && !(*variadic && args.len() == params.len())
                {
                    args.push(Vec::new());
                    continue;
                }
            }
            args.last_mut().expect("argument").push(t);
        };
        // `F()` passes one empty argument, which is right for one parameter and none.
        if params.is_empty() && args.len() == 1 && args[0].is_empty() {
            args.clear();
        }
        if *variadic && args.len() + 1 == params.len() {
            args.push(Vec::new()); // no variable arguments at all
        }
        if args.len() != params.len() {
            self.diags.error(
                name.span,
                format!(
                    "macro `{}` requires {} argument(s), but {} given",
                    self.spelling(&name),
                    params.len() - *variadic as usize,
                    args.len()
                ),
            );
            return None;
        }
        Some((args, rparen))
    }

    fn unterminated(&mut self, name: Token) {
        self.diags.error(
            name.span,
            format!(
                "unterminated argument list invoking macro `{}`",
                self.spelling(&name)
            ),
        );
    }

    /// Prosser's `subst`: builds the replacement of one invocation.
    fn subst(&mut self, m: &Macro, args: &[Vec<Token>], hs: u32, site: Token) -> Vec<Token> {
        let n = self.names;
        let body = &m.body;
        let param = |j: usize| -> Option<usize> {
            match m.param_of.get(j) {
                Some(&p) if p > 0 => Some(p as usize - 1),
                _ => None,
            }
        };
        let va_index = match &m.kind {
            MacroKind::Function {
                params,
                variadic: true,
            } => Some(params.len() - 1),
            _ => None,
        };
        let mut expanded: Vec<Option<Vec<Token>>> = vec![None; args.len()];
        let mut os: Vec<Token> = Vec::with_capacity(body.len());
        let at_site = |mut t: Token| {
            t.span = site.span;
            t
        };
        let mut j = 0;
        while j < body.len() {
            let t = body[j];
            // # parameter
            if m.is_function_like() && self.is_punct(&t, n.hash) {
                if let Some(p) = param(j + 1) {
                    let mut s = self.stringify(&args[p], site.span);
                    s.flags = t.flags & SPACE;
                    os.push(s);
                    j += 2;
                    continue;
                }
            }
            // ## operand
            if self.is_punct(&t, n.hashhash) && j + 1 < body.len() {
                match param(j + 1) {
                    Some(p) => {
                        if args[p].is_empty() {
                            // GNU: `, ## __VA_ARGS__` drops the comma when there are none.
                            if Some(p) == va_index
                                && matches!(os.last(), Some(c) if self.is_punct(c, n.comma))
                            {
                                os.pop();
                            }
                        } else if Some(p) == va_index
                            && matches!(os.last(), Some(c) if self.is_punct(c, n.comma))
                        {
                            // GNU: `, ## __VA_ARGS__` with arguments is a plain comma.
                            os.extend(args[p].iter().copied());
                        } else {
                            let a = args[p].clone();
                            self.glue(&mut os, &a, site.span);
                        }
                    }
                    None => {
                        let r = at_site(body[j + 1]);
                        self.glue(&mut os, &[r], site.span);
                    }
                }
                j += 2;
                continue;
            }
            if let Some(p) = param(j) {
                let next_is_paste = j + 1 < body.len() && self.is_punct(&body[j + 1], n.hashhash);
                if next_is_paste {
                    if args[p].is_empty() {
                        // Empty left operand of ##: the right operand is taken unexpanded.
                        match param(j + 2) {
                            Some(q) => {
                                os.extend(args[q].iter().copied());
                                j += 3;
                            }
                            None => j += 2,
                        }
                    } else {
                        os.extend(args[p].iter().copied());
                        j += 1;
                    }
                    continue;
                }
                if expanded[p].is_none() {
                    let e = self.expand_list(args[p].clone(), false);
                    if self.expansion_disabled {
                        return Vec::new();
                    }
                    expanded[p] = Some(e);
                }
                let e = expanded[p].as_ref().expect("expanded argument");
                let start = os.len();
                os.extend(e.iter().copied());
                if let Some(first) = os.get_mut(start) {
                    first.flags = (first.flags & !SPACE) | (t.flags & SPACE);
                }
                j += 1;
                continue;
            }
            os.push(at_site(t));
            j += 1;
        }
        for t in &mut os {
            t.hs = self.hs.union(t.hs, hs);
        }
        os
    }

    /// `#` operator: the spelling of the argument as a string literal (§6.10.3.2).
    fn stringify(&mut self, arg: &[Token], span: Span) -> Token {
        let mut s = String::from("\"");
        for (k, t) in arg.iter().enumerate() {
            if k > 0 && t.space() {
                s.push(' ');
            }
            let sp = self.interner.get(t.sym);
            if matches!(t.kind, TokKind::Str | TokKind::Char | TokKind::BadLiteral) {
                for c in sp.chars() {
                    if c == '"' || c == '\\' {
                        s.push('\\');
                    }
                    s.push(c);
                }
            } else {
                s.push_str(sp);
            }
        }
        s.push('"');
        self.make_token(TokKind::Str, &s, span, 0)
    }

    /// `##`: pastes the last token of `os` with the first of `rs` (Prosser's `glue`).
    fn glue(&mut self, os: &mut Vec<Token>, rs: &[Token], span: Span) {
        let Some(&r) = rs.first() else { return };
        let Some(l) = os.pop() else {
            os.extend_from_slice(rs);
            return;
        };
        let text = format!("{}{}", self.interner.get(l.sym), self.interner.get(r.sym));
        match lex_single(&text, self.interner) {
            Some((kind, sym)) => {
                let hs = self.hs.intersect(l.hs, r.hs);
                os.push(Token {
                    kind,
                    flags: l.flags,
                    sym,
                    span,
                    hs,
                });
            }
            None => {
                self.diags.error(
                    span,
                    format!(
                        "pasting \"{}\" and \"{}\" does not give a valid preprocessing token",
                        self.interner.get(l.sym),
                        self.interner.get(r.sym)
                    ),
                );
                os.push(l);
                os.push(r);
            }
        }
        os.extend_from_slice(&rs[1..]);
    }
}
