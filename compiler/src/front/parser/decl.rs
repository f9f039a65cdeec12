//! Declarations: specifiers, declarators (named and abstract), parameter lists (prototypes,
//! `(void)`, `...`, K&R identifier lists), struct and enum specifiers, initialisers,
//! function definitions (also old-style), type names.

use super::{Fatal, PResult, Parser};
use crate::front::ast::*;
use crate::front::ctoken::P;
use crate::front::ctoken::{CTok, Kw};
use crate::front::diag::Span;

/// Counts of the type-specifier keywords seen in one specifier list.
#[derive(Default)]
struct SpecCounts {
    void: u8,
    char: u8,
    short: u8,
    int: u8,
    long: u8,
    signed: u8,
    unsigned: u8,
    float: u8,
    double: u8,
    bool_: u8,
    complex: u8,
    va_list: u8,
}

impl SpecCounts {
    fn any(&self) -> bool {
        self.void
            + self.char
            + self.short
            + self.int
            + self.long
            + self.signed
            + self.unsigned
            + self.float
            + self.double
            + self.bool_
            + self.complex
            + self.va_list
            > 0
    }
}

/// Where a declarator appears: whether it must, may or must not have a name.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum DeclMode {
    Named,
    Abstract,
    Either,
}

impl Parser<'_> {
    /// `__attribute__((…))`: skipped, balanced parentheses.
    fn skip_attribute(&mut self) -> PResult<()> {
        let start = self.span();
        self.bump();
        if !self.is(P::LParen) {
            return self.error_here("expected `(` after __attribute__");
        }
        let mut depth = 0usize;
        loop {
            match self.tok() {
                CTok::Eof => return self.error_at(start, "unterminated __attribute__"),
                CTok::P(P::LParen) => depth += 1,
                CTok::P(P::RParen) => {
                    depth -= 1;
                    if depth == 0 {
                        self.bump();
                        return Ok(());
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// Skips any `__attribute__((…))` and `__extension__` at the current position.
    pub(super) fn skip_attributes(&mut self) -> PResult<()> {
        loop {
            if self.is_kw(Kw::Attribute) {
                self.skip_attribute()?;
            } else if self.is_kw(Kw::Extension) {
                self.bump();
            } else {
                return Ok(());
            }
        }
    }

    /// Declaration specifiers in any order. `allow_storage` is false in type names, struct
    /// members and parameters (where only `register` is allowed).
    pub(super) fn decl_specs(&mut self, allow_storage: bool) -> PResult<DeclSpecs> {
        let start = self.span();
        let mut storage: Option<(Storage, Span)> = None;
        let mut cv = Cv::NONE;
        let mut counts = SpecCounts::default();
        let mut other: Option<BaseType> = None;
        loop {
            let span = self.span();
            match self.tok() {
                CTok::Kw(k) => {
                    let k = *k;
                    let st = match k {
                        Kw::Typedef => Some(Storage::Typedef),
                        Kw::Extern => Some(Storage::Extern),
                        Kw::Static => Some(Storage::Static),
                        Kw::Auto => Some(Storage::Auto),
                        Kw::Register => Some(Storage::Register),
                        _ => None,
                    };
                    if let Some(st) = st {
                        if !allow_storage && st != Storage::Register {
                            return self.error_here("storage class not allowed here");
                        }
                        if storage.is_some() {
                            return self
                                .error_at(span, "more than one storage class in declaration");
                        }
                        storage = Some((st, span));
                        self.bump();
                        continue;
                    }
                    match k {
                        Kw::Const => cv.is_const = true,
                        Kw::Volatile => cv.is_volatile = true,
                        Kw::Restrict | Kw::Inline => {}
                        Kw::Attribute => {
                            self.skip_attribute()?;
                            continue;
                        }
                        Kw::Extension => {}
                        Kw::Void => counts.void += 1,
                        Kw::Char => counts.char += 1,
                        Kw::Short => counts.short += 1,
                        Kw::Int => counts.int += 1,
                        Kw::Long => counts.long += 1,
                        Kw::Signed => counts.signed += 1,
                        Kw::Unsigned => counts.unsigned += 1,
                        Kw::Float => counts.float += 1,
                        Kw::Double => counts.double += 1,
                        Kw::Bool => counts.bool_ += 1,
                        Kw::Complex => counts.complex += 1,
                        Kw::VaList => counts.va_list += 1,
                        Kw::Struct | Kw::Union | Kw::Enum => {
                            if other.is_some() || counts.any() {
                                return self.error_here("two or more data types in declaration");
                            }
                            other = Some(if k == Kw::Enum {
                                self.enum_spec()?
                            } else {
                                self.struct_spec()?
                            });
                            continue;
                        }
                        Kw::Typeof => {
                            return self.error_at(span, "not supported by ssalab: typeof");
                        }
                        _ => break,
                    }
                    self.bump();
                }
                CTok::Ident(s) => {
                    let s = *s;
                    if other.is_none() && !counts.any() && self.is_typedef_name(s) {
                        other = Some(BaseType::Named(s, span));
                        self.bump();
                    } else {
                        break;
                    }
                }
                _ => break,
            }
        }
        let end = self.prev_span();
        let (base, implicit_int) = match other {
            Some(b) => {
                if counts.any() {
                    return self.error_at(start.to(end), "two or more data types in declaration");
                }
                (b, false)
            }
            None if !counts.any() => (BaseType::Int(IntSpec::Int), true),
            None => (self.resolve_counts(&counts, start.to(end))?, false),
        };
        Ok(DeclSpecs {
            storage,
            cv,
            base,
            implicit_int,
            span: start.to(end),
        })
    }

    /// Resolves a multiset of type keywords to a type (C99 §6.7.2p2).
    fn resolve_counts(&mut self, c: &SpecCounts, span: Span) -> PResult<BaseType> {
        let unsupported = |what: &str| format!("not supported by ssalab: {what}");
        if c.float + c.double + c.complex > 0 {
            let what = if c.complex > 0 {
                "complex types"
            } else if c.double > 0 {
                "double (floating-point types)"
            } else {
                "float (floating-point types)"
            };
            self.diags.error(span, unsupported(what));
            return Ok(BaseType::Error);
        }
        if c.bool_ > 0 {
            self.diags.error(span, unsupported("_Bool"));
            return Ok(BaseType::Error);
        }
        if c.va_list > 0 {
            self.diags
                .error(span, unsupported("variable argument lists (va_list)"));
            return Ok(BaseType::Error);
        }
        if c.long >= 2 {
            self.diags.error(span, unsupported("long long"));
            return Ok(BaseType::Error);
        }
        if c.signed > 0 && c.unsigned > 0 {
            return self.error_at(
                span,
                "both `signed` and `unsigned` in declaration specifiers",
            );
        }
        let dup =
            c.void > 1 || c.char > 1 || c.short > 1 || c.int > 1 || c.signed > 1 || c.unsigned > 1;
        let u = c.unsigned > 0;
        let t = if dup {
            None
        } else if c.void == 1 {
            (c.char + c.short + c.int + c.long + c.signed + c.unsigned == 0)
                .then_some(BaseType::Void)
        } else if c.char == 1 {
            (c.short + c.int + c.long == 0).then_some({
                BaseType::Int(if u {
                    IntSpec::UChar
                } else if c.signed > 0 {
                    IntSpec::SChar
                } else {
                    IntSpec::Char
                })
            })
        } else if c.short == 1 {
            (c.long == 0).then_some(BaseType::Int(if u {
                IntSpec::UShort
            } else {
                IntSpec::Short
            }))
        } else if c.long == 1 {
            Some(BaseType::Int(if u {
                IntSpec::ULong
            } else {
                IntSpec::Long
            }))
        } else {
            Some(BaseType::Int(if u { IntSpec::UInt } else { IntSpec::Int }))
        };
        match t {
            Some(t) => Ok(t),
            None => self.error_at(span, "invalid combination of type specifiers"),
        }
    }

    fn tag(&mut self) -> Option<(crate::front::lexer::Sym, Span)> {
        if let CTok::Ident(s) = self.tok() {
            let r = (*s, self.span());
            self.bump();
            Some(r)
        } else {
            None
        }
    }

    fn struct_spec(&mut self) -> PResult<BaseType> {
        let start = self.span();
        let is_union = self.is_kw(Kw::Union);
        self.bump();
        self.skip_attributes()?;
        let tag = self.tag();
        let members = if self.is(P::LBrace) {
            Some(self.nested(|p| p.struct_body())?)
        } else {
            None
        };
        if tag.is_none() && members.is_none() {
            return self.error_here("expected a tag name or `{` after struct");
        }
        self.skip_attributes()?;
        let span = start.to(self.prev_span());
        Ok(BaseType::Struct(Box::new(StructSpec {
            is_union,
            tag,
            members,
            span,
        })))
    }

    fn struct_body(&mut self) -> PResult<Vec<MemberDecl>> {
        self.bump(); // {
        let mut members = Vec::new();
        while !self.is(P::RBrace) {
            if self.at_eof() {
                return self.error_here("expected `}` at end of struct");
            }
            if self.eat(P::Semi) {
                continue;
            }
            let start = self.span();
            let specs = self.decl_specs(false)?;
            let mut declarators = Vec::new();
            if !self.is(P::Semi) {
                loop {
                    let d = self.declarator(DeclMode::Named)?;
                    if self.is(P::Colon) {
                        // Reported, then parsed as a plain member so checking goes on.
                        let span = self.span();
                        self.diags
                            .error(span, "not supported by ssalab: bit-fields");
                        self.bump();
                        self.cond_expr()?;
                    }
                    self.skip_attributes()?;
                    declarators.push(d);
                    if !self.eat(P::Comma) {
                        break;
                    }
                }
            } else {
                let span = start.to(self.prev_span());
                return self.error_at(span, "not supported by ssalab: anonymous struct members");
            }
            self.expect(P::Semi, "`;` after struct member")?;
            members.push(MemberDecl {
                specs,
                declarators,
                span: start.to(self.prev_span()),
            });
        }
        self.bump(); // }
        Ok(members)
    }

    fn enum_spec(&mut self) -> PResult<BaseType> {
        let start = self.span();
        self.bump();
        self.skip_attributes()?;
        let tag = self.tag();
        let mut enumerators = None;
        if self.eat(P::LBrace) {
            let mut list = Vec::new();
            while !self.is(P::RBrace) {
                let CTok::Ident(name) = self.tok() else {
                    return self.error_here("expected an enumerator name");
                };
                let (name, span) = (*name, self.span());
                self.bump();
                let value = if self.eat(P::Assign) {
                    Some(self.cond_expr()?)
                } else {
                    None
                };
                self.declare(name, false);
                list.push(Enumerator { name, span, value });
                if !self.eat(P::Comma) {
                    break;
                }
            }
            self.expect(P::RBrace, "`}` at end of enum")?;
            enumerators = Some(list);
        }
        if tag.is_none() && enumerators.is_none() {
            return self.error_here("expected a tag name or `{` after enum");
        }
        Ok(BaseType::Enum(Box::new(EnumSpec {
            tag,
            enumerators,
            span: start.to(self.prev_span()),
        })))
    }

    /// A declarator. Pointers, then a name or parenthesised declarator, then array and
    /// function suffixes; see [`Declarator`] for the order of `derived`.
    pub(super) fn declarator(&mut self, mode: DeclMode) -> PResult<Declarator> {
        self.nested(|p| p.declarator_inner(mode))
    }

    fn declarator_inner(&mut self, mode: DeclMode) -> PResult<Declarator> {
        let start = self.span();
        let mut pointers = Vec::new();
        while self.eat(P::Star) {
            let mut cv = Cv::NONE;
            loop {
                match self.tok() {
                    CTok::Kw(Kw::Const) => cv.is_const = true,
                    CTok::Kw(Kw::Volatile) => cv.is_volatile = true,
                    CTok::Kw(Kw::Restrict) => {}
                    CTok::Kw(Kw::Attribute) => {
                        self.skip_attribute()?;
                        continue;
                    }
                    _ => break,
                }
                self.bump();
            }
            pointers.push(cv);
            if pointers.len() > super::MAX_DEPTH {
                return self.too_deep();
            }
        }
        self.skip_attributes()?;
        let mut name = None;
        let mut derived = Vec::new();
        match self.tok() {
            CTok::Ident(s) if mode != DeclMode::Abstract => {
                name = Some((*s, self.span()));
                self.bump();
            }
            CTok::P(P::LParen) if self.paren_is_nested_declarator(mode) => {
                self.bump();
                let inner = self.declarator(mode)?;
                self.expect(P::RParen, "`)` in declarator")?;
                name = inner.name;
                derived = inner.derived;
            }
            _ => {
                if mode == DeclMode::Named {
                    return self.error_here("expected an identifier or `(` in declarator");
                }
            }
        }
        // Suffixes.
        loop {
            self.skip_attributes()?;
            if self.is(P::LBracket) {
                let lb = self.span();
                self.bump();
                while self.eat_kw(Kw::Static)
                    || self.eat_kw(Kw::Const)
                    || self.eat_kw(Kw::Volatile)
                    || self.eat_kw(Kw::Restrict)
                {}
                let size = if self.is(P::RBracket) {
                    None
                } else if self.is(P::Star) && *self.tok_at(1) == CTok::P(P::RBracket) {
                    return self.unsupported("variable-length arrays");
                } else {
                    Some(Box::new(self.assign_expr()?))
                };
                self.expect(P::RBracket, "`]`")?;
                derived.push(Derived::Array(size, lb.to(self.prev_span())));
            } else if self.is(P::LParen) {
                let f = self.nested(|p| p.param_list())?;
                derived.push(Derived::Function(f));
            } else {
                break;
            }
            if derived.len() > super::MAX_DEPTH {
                return self.too_deep();
            }
        }
        derived.extend(pointers.into_iter().rev().map(Derived::Pointer));
        if derived.len() > super::MAX_DEPTH {
            return self.too_deep();
        }
        Ok(Declarator {
            name,
            derived,
            span: start.to(self.prev_span()),
        })
    }

    /// At `(` in a declarator: is it a parenthesised declarator (as opposed to a parameter
    /// list of an abstract function declarator)?
    fn paren_is_nested_declarator(&self, mode: DeclMode) -> bool {
        if mode == DeclMode::Named {
            return true;
        }
        match self.tok_at(1) {
            CTok::P(P::Star | P::LParen | P::LBracket) => true,
            CTok::Kw(Kw::Attribute) => true,
            CTok::Ident(s) => mode == DeclMode::Either && !self.is_typedef_name(*s),
            _ => false,
        }
    }

    /// Parameter list after `(` (the `(` is current).
    fn param_list(&mut self) -> PResult<FuncDeclarator> {
        let start = self.span();
        self.bump(); // (
        let mut f = FuncDeclarator {
            params: Vec::new(),
            prototype: false,
            variadic: false,
            kr_names: Vec::new(),
            span: start,
        };
        if self.eat(P::RParen) {
            f.span = start.to(self.prev_span());
            return Ok(f);
        }
        if self.is_kw(Kw::Void) && *self.tok_at(1) == CTok::P(P::RParen) {
            self.bump();
            self.bump();
            f.prototype = true;
            f.span = start.to(self.prev_span());
            return Ok(f);
        }
        if let CTok::Ident(s) = self.tok() {
            if !self.is_typedef_name(*s) {
                // Old-style identifier list.
                loop {
                    let CTok::Ident(s) = self.tok() else {
                        return self.error_here("expected a parameter name");
                    };
                    f.kr_names.push((*s, self.span()));
                    self.bump();
                    if !self.eat(P::Comma) {
                        break;
                    }
                }
                self.expect(P::RParen, "`)` after parameter names")?;
                f.span = start.to(self.prev_span());
                return Ok(f);
            }
        }
        f.prototype = true;
        self.push_scope();
        let r = self.prototype_params(&mut f);
        self.pop_scope();
        r?;
        f.span = start.to(self.prev_span());
        Ok(f)
    }

    fn prototype_params(&mut self, f: &mut FuncDeclarator) -> PResult<()> {
        loop {
            if self.eat(P::Ellipsis) {
                f.variadic = true;
                break;
            }
            let start = self.span();
            if !self.starts_decl_specs() {
                return self.error_here("expected a parameter declaration");
            }
            let specs = self.decl_specs(false)?;
            let declarator = self.declarator(DeclMode::Either)?;
            if let Some((n, _)) = declarator.name {
                self.declare(n, false);
            }
            f.params.push(ParamDecl {
                specs,
                declarator,
                span: start.to(self.prev_span()),
            });
            if !self.eat(P::Comma) {
                break;
            }
        }
        self.expect(P::RParen, "`)` at end of parameter list")
    }

    /// A type name: specifiers and an abstract declarator.
    pub(super) fn type_name(&mut self) -> PResult<TypeName> {
        let start = self.span();
        let specs = self.decl_specs(false)?;
        let declarator = self.declarator(DeclMode::Abstract)?;
        Ok(TypeName {
            specs,
            declarator,
            span: start.to(self.prev_span()),
        })
    }

    /// An initialiser: an assignment expression or a braced list (nested, trailing comma).
    pub(super) fn initializer(&mut self) -> PResult<Initializer> {
        if !self.is(P::LBrace) {
            return Ok(Initializer::Expr(self.assign_expr()?));
        }
        self.nested(|p| {
            let start = p.span();
            p.bump();
            let mut items = Vec::new();
            while !p.is(P::RBrace) {
                if p.is(P::Dot) || p.is(P::LBracket) {
                    items.push(p.designation()?);
                } else {
                    items.push(p.initializer()?);
                }
                if !p.eat(P::Comma) {
                    break;
                }
            }
            p.expect(P::RBrace, "`}` or `,` in initializer list")?;
            Ok(Initializer::List(items, start.to(p.prev_span())))
        })
    }

    /// `designator-list = initializer` (C99 §6.7.8p1), at `.` or `[`.
    fn designation(&mut self) -> PResult<Initializer> {
        let start = self.span();
        let mut ds = Vec::new();
        loop {
            if self.eat(P::Dot) {
                let CTok::Ident(m) = self.tok() else {
                    return self.error_here("expected a member name after `.` in a designator");
                };
                ds.push(Designator::Member(*m, self.span()));
                self.bump();
            } else if self.eat(P::LBracket) {
                ds.push(Designator::Index(self.cond_expr()?));
                if self.is(P::Ellipsis) {
                    return self.unsupported("range designators (`[a ... b]`, a GNU extension)");
                }
                self.expect(P::RBracket, "`]` after an array designator")?;
            } else {
                break;
            }
        }
        self.expect(P::Assign, "`=` after a designator")?;
        let init = self.initializer()?;
        Ok(Initializer::Designated(
            ds,
            Box::new(init),
            start.to(self.prev_span()),
        ))
    }

    /// The init-declarator list of a declaration after its specifiers; declares the names.
    fn init_declarators(
        &mut self,
        specs: &DeclSpecs,
        first: Option<Declarator>,
    ) -> PResult<Vec<InitDeclarator>> {
        let is_typedef = matches!(specs.storage, Some((Storage::Typedef, _)));
        let mut list = Vec::new();
        let mut next = first;
        loop {
            let d = match next.take() {
                Some(d) => d,
                None => self.declarator(DeclMode::Named)?,
            };
            self.skip_attributes()?;
            if self.is_kw(Kw::Asm) {
                return self.unsupported("asm labels");
            }
            if let Some((n, _)) = d.name {
                self.declare(n, is_typedef);
            }
            let init = if self.eat(P::Assign) {
                Some(self.initializer()?)
            } else {
                None
            };
            list.push(InitDeclarator {
                declarator: d,
                init,
            });
            if !self.eat(P::Comma) {
                break;
            }
        }
        Ok(list)
    }

    /// A declaration inside a function (after checking that one starts here).
    pub(super) fn declaration(&mut self) -> PResult<Declaration> {
        let start = self.span();
        let specs = self.decl_specs(true)?;
        let declarators = if self.is(P::Semi) {
            Vec::new()
        } else {
            self.init_declarators(&specs, None)?
        };
        self.expect(P::Semi, "`;` after declaration")?;
        Ok(Declaration {
            specs,
            declarators,
            span: start.to(self.prev_span()),
        })
    }

    /// A function definition or declaration at file level.
    pub(super) fn external_declaration(&mut self) -> PResult<Option<ExternalDecl>> {
        let start = self.span();
        if self.is_kw(Kw::Asm) {
            return self.unsupported("asm");
        }
        if self.is_kw(Kw::StaticAssert) {
            return self.unsupported("_Static_assert");
        }
        let specs = if self.starts_decl_specs() {
            self.decl_specs(true)?
        } else if matches!(self.tok(), CTok::Ident(_)) || self.is(P::Star) || self.is(P::LParen) {
            // C89 implicit int: `main() { … }`.
            DeclSpecs {
                storage: None,
                cv: Cv::NONE,
                base: BaseType::Int(IntSpec::Int),
                implicit_int: true,
                span: start,
            }
        } else {
            return self.error_here("expected a declaration");
        };
        if self.eat(P::Semi) {
            return Ok(Some(ExternalDecl::Decl(Declaration {
                specs,
                declarators: Vec::new(),
                span: start.to(self.prev_span()),
            })));
        }
        let d = self.declarator(DeclMode::Named)?;
        self.skip_attributes()?;
        let is_func = matches!(d.derived.first(), Some(Derived::Function(_)));
        if is_func && (self.is(P::LBrace) || (self.starts_decl_specs() && !self.is(P::Semi))) {
            return self.function_definition(specs, d, start).map(Some);
        }
        let declarators = self.init_declarators(&specs, Some(d))?;
        self.expect(P::Semi, "`;` after declaration")?;
        Ok(Some(ExternalDecl::Decl(Declaration {
            specs,
            declarators,
            span: start.to(self.prev_span()),
        })))
    }

    fn function_definition(
        &mut self,
        specs: DeclSpecs,
        d: Declarator,
        start: Span,
    ) -> PResult<ExternalDecl> {
        if let Some((n, _)) = d.name {
            self.declare(n, false);
        }
        self.push_scope();
        let r = self.function_rest(specs, d, start);
        self.pop_scope();
        r
    }

    fn function_rest(
        &mut self,
        specs: DeclSpecs,
        d: Declarator,
        start: Span,
    ) -> PResult<ExternalDecl> {
        let Some(Derived::Function(f)) = d.derived.first() else {
            return Err(Fatal);
        };
        for p in &f.params {
            if let Some((n, _)) = p.declarator.name {
                self.declare(n, false);
            }
        }
        for &(n, _) in &f.kr_names {
            self.declare(n, false);
        }
        let mut kr_decls = Vec::new();
        while !self.is(P::LBrace) {
            if !self.starts_decl_specs() {
                return self.error_here("expected `{` or a parameter declaration");
            }
            let decl = self.declaration()?;
            // Keep parameter names ordinary identifiers even if a typedef was shadowed.
            for id in &decl.declarators {
                if let Some((n, _)) = id.declarator.name {
                    self.declare(n, false);
                }
            }
            kr_decls.push(decl);
        }
        let body = self.compound_statement()?;
        Ok(ExternalDecl::Func(Box::new(FuncDef {
            specs,
            declarator: d,
            kr_decls,
            body,
            span: start.to(self.prev_span()),
        })))
    }
}
