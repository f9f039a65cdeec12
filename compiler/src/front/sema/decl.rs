//! Types of declarations and the declarations themselves: base types from specifiers,
//! struct and enum definitions, declarators (pointers, arrays, functions with parameter
//! adjustment), typedefs, file-scope and block-scope objects and functions, function
//! headers (prototype and K&R definitions).

use super::{Ordinary, Sema, Tag};
use crate::front::ast::{self, BaseType, Declarator, Derived, IntSpec, Storage};
use crate::front::diag::{Diag, Span};
use crate::front::lexer::Sym;
use crate::front::tast::*;
use crate::front::types::*;
use std::rc::Rc;

/// A parameter: name, adjusted type, place.
pub(super) type ParamInfo = (Option<Sym>, QualType, Span);

fn int_kind(s: IntSpec) -> IntKind {
    match s {
        IntSpec::Char => IntKind::Char,
        IntSpec::SChar => IntKind::SChar,
        IntSpec::UChar => IntKind::UChar,
        IntSpec::Short => IntKind::Short,
        IntSpec::UShort => IntKind::UShort,
        IntSpec::Int => IntKind::Int,
        IntSpec::UInt => IntKind::UInt,
        IntSpec::Long => IntKind::Long,
        IntSpec::ULong => IntKind::ULong,
    }
}

/// Length of the pointer/array chain of a type.
fn chain_len(t: &Type) -> usize {
    let mut n = 0;
    let mut cur = t;
    loop {
        match cur {
            Type::Ptr(p) | Type::Array(p, _) => {
                n += 1;
                cur = &p.ty;
            }
            Type::Func(f) => {
                n += 1;
                cur = &f.ret.ty;
            }
            _ => return n,
        }
    }
}

/// An object whose every byte is const (placed in read-only data).
fn is_const_object(t: &QualType) -> bool {
    t.cv.is_const
        || match &t.ty {
            Type::Array(e, _) => is_const_object(e),
            _ => false,
        }
}

impl Sema<'_> {
    /// The type named by declaration specifiers (defines structs and enums on the way).
    pub(super) fn base_type(&mut self, specs: &ast::DeclSpecs) -> QualType {
        let ty = match &specs.base {
            BaseType::Void => Type::Void,
            BaseType::Int(s) => Type::Int(int_kind(*s)),
            BaseType::Struct(s) => self.struct_type(s),
            BaseType::Enum(e) => self.enum_type(e),
            BaseType::Named(n, span) => match self.lookup(*n) {
                Some(Ordinary::Typedef(t, _)) => {
                    return t.clone().with_cv(specs.cv);
                }
                _ => {
                    self.error(*span, format!("unknown type name `{}`", self.name(*n)));
                    Type::Error
                }
            },
            BaseType::Error => Type::Error,
        };
        QualType { ty, cv: specs.cv }
    }

    fn struct_type(&mut self, s: &ast::StructSpec) -> Type {
        let id = match (&s.tag, &s.members) {
            (Some((tag, span)), None) => match self.lookup_tag(*tag) {
                Some(Tag::Struct(id)) => {
                    let def = self.prog.types.get(id);
                    if def.complete && def.is_union != s.is_union {
                        let kinds = ["struct", "union"];
                        let msg = format!(
                            "`{}` was defined as a {}, not a {}",
                            self.name(*tag),
                            kinds[usize::from(def.is_union)],
                            kinds[usize::from(s.is_union)]
                        );
                        self.error(*span, msg);
                        return Type::Error;
                    }
                    return Type::Struct(id);
                }
                Some(Tag::Enum(..)) => {
                    self.error(
                        *span,
                        format!("`{}` is an enum tag, not a struct", self.name(*tag)),
                    );
                    return Type::Error;
                }
                None => {
                    let id = self.prog.types.new_struct(Some(*tag), *span);
                    self.scopes
                        .last_mut()
                        .expect("scope")
                        .tags
                        .insert(*tag, Tag::Struct(id));
                    return Type::Struct(id);
                }
            },
            (Some((tag, span)), Some(_)) => {
                let existing = self.scopes.last().expect("scope").tags.get(tag).copied();
                match existing {
                    Some(Tag::Struct(id)) if !self.prog.types.get(id).complete => id,
                    Some(_) => {
                        self.error(
                            *span,
                            format!("redefinition of `struct {}`", self.name(*tag)),
                        );
                        self.prog.types.new_struct(Some(*tag), *span)
                    }
                    None => {
                        let id = self.prog.types.new_struct(Some(*tag), *span);
                        self.scopes
                            .last_mut()
                            .expect("scope")
                            .tags
                            .insert(*tag, Tag::Struct(id));
                        id
                    }
                }
            }
            (None, _) => self.prog.types.new_struct(None, s.span),
        };
        let Some(members) = &s.members else {
            return Type::Struct(id);
        };
        self.prog.types.structs[id as usize].is_union = s.is_union;
        let mut fields: Vec<(Sym, QualType, Span)> = Vec::new();
        let mut rejected: Vec<Sym> = Vec::new();
        for m in members {
            let base = self.base_type(&m.specs);
            for d in &m.declarators {
                let (ty, _) = self.declarator_type(base.clone(), d);
                let Some((name, span)) = d.name else { continue };
                if ty.ty.is_error() {
                    // Already diagnosed where the type was rejected.
                    rejected.push(name);
                    continue;
                }
                if let Type::Func(_) = ty.ty {
                    self.error(
                        span,
                        format!("field `{}` declared as a function", self.name(name)),
                    );
                    continue;
                }
                if let Type::Array(_, None) = ty.ty {
                    self.error(span, "not supported by ssalab: flexible array members");
                    continue;
                }
                if !self.prog.types.is_complete(&ty.ty) {
                    self.error(
                        span,
                        format!("field `{}` has incomplete type", self.name(name)),
                    );
                    continue;
                }
                if let Some((_, _, prev)) = fields.iter().find(|(n, _, _)| *n == name) {
                    let d = Diag::error(span, format!("duplicate member `{}`", self.name(name)))
                        .with_secondary(*prev, "previous declaration is here");
                    self.diags.report(d);
                    continue;
                }
                fields.push((name, ty, span));
            }
        }
        if fields.is_empty() && rejected.is_empty() {
            let kind = if s.is_union { "union" } else { "struct" };
            self.error(s.span, format!("{kind} has no members"));
        }
        self.prog.types.structs[id as usize].rejected = rejected;
        if !self.prog.types.complete(id, fields) {
            self.error(s.span, "struct is too large");
        }
        Type::Struct(id)
    }

    fn enum_type(&mut self, e: &ast::EnumSpec) -> Type {
        let Some(list) = &e.enumerators else {
            let (tag, span) = e.tag.expect("parser requires a tag or a list");
            return match self.lookup_tag(tag) {
                Some(Tag::Enum(k)) => Type::Int(k),
                Some(Tag::Struct(_)) => {
                    self.error(
                        span,
                        format!("`{}` is a struct tag, not an enum", self.name(tag)),
                    );
                    Type::Error
                }
                None => {
                    self.error(
                        span,
                        format!("enum `{}` used before its definition", self.name(tag)),
                    );
                    Type::Error
                }
            };
        };
        let mut next: i64 = 0;
        let mut negative = false;
        for en in list {
            let v = match &en.value {
                Some(x) => match self.ice(x) {
                    Some((v, k)) => {
                        if k.signed() {
                            v as i64
                        } else {
                            v as u32 as i64
                        }
                    }
                    None => next,
                },
                None => next,
            };
            if v > u32::MAX as i64 || v < i32::MIN as i64 {
                self.error(en.span, "enumerator value out of range");
            }
            negative |= v < 0;
            self.bind(en.name, en.span, Ordinary::Enum(v as i32, en.span));
            next = v + 1;
        }
        // gcc: an enumeration without negative values has type unsigned int.
        let kind = if negative {
            IntKind::Int
        } else {
            IntKind::UInt
        };
        if let Some((tag, span)) = e.tag {
            let scope = self.scopes.last_mut().expect("scope");
            if let std::collections::hash_map::Entry::Vacant(e) = scope.tags.entry(tag) {
                e.insert(Tag::Enum(kind));
            } else {
                self.error(span, format!("redefinition of `enum {}`", self.name(tag)));
            }
        }
        Type::Int(kind)
    }

    /// Applies a declarator to a base type. Returns the type and, if the declarator declares
    /// a function directly (`f(…)`), its parameters.
    pub(super) fn declarator_type(
        &mut self,
        base: QualType,
        d: &Declarator,
    ) -> (QualType, Option<Vec<ParamInfo>>) {
        if chain_len(&base.ty) + d.derived.len() > MAX_TYPE_DEPTH {
            self.error(
                d.span,
                format!("type too complex (more than {MAX_TYPE_DEPTH} derivations)"),
            );
            return (QualType::error(), None);
        }
        let mut cur = base;
        let mut params = None;
        for (k, step) in d.derived.iter().enumerate().rev() {
            if cur.ty.is_error() {
                return (cur, None);
            }
            cur = match step {
                Derived::Pointer(cv) => {
                    if let Type::Func(_) = cur.ty {
                        self.error(d.span, "not supported by ssalab: function pointers");
                        return (QualType::error(), None);
                    }
                    QualType {
                        ty: Type::ptr_to(cur),
                        cv: *cv,
                    }
                }
                Derived::Array(size, span) => {
                    match &cur.ty {
                        Type::Func(_) => {
                            self.error(*span, "array of functions");
                            return (QualType::error(), None);
                        }
                        Type::Void => {
                            self.error(*span, "array of void");
                            return (QualType::error(), None);
                        }
                        t if !self.prog.types.is_complete(t) => {
                            self.error(*span, "array has incomplete element type");
                            return (QualType::error(), None);
                        }
                        _ => {}
                    }
                    let n = match size {
                        None => None,
                        Some(e) => match self.array_size(e) {
                            Some(n) => Some(n),
                            None => return (QualType::error(), None),
                        },
                    };
                    let t = Type::Array(Rc::new(cur), n);
                    if n.is_some() && self.prog.types.size_of(&t).is_none() {
                        self.error(*span, "array is too large");
                        return (QualType::error(), None);
                    }
                    QualType::new(t)
                }
                Derived::Function(fd) => {
                    match &cur.ty {
                        Type::Array(..) => {
                            self.error(fd.span, "function cannot return an array");
                            return (QualType::error(), None);
                        }
                        Type::Func(_) => {
                            self.error(fd.span, "function cannot return a function");
                            return (QualType::error(), None);
                        }
                        _ => {}
                    }
                    let ps = self.param_list(fd);
                    let ty = FuncType {
                        ret: cur.unqual(),
                        params: ps.iter().map(|p| p.1.clone()).collect(),
                        prototype: fd.prototype,
                        variadic: fd.variadic,
                    };
                    if k == 0 {
                        params = Some(ps);
                    }
                    QualType::new(Type::Func(Rc::new(ty)))
                }
            };
        }
        (cur, params)
    }

    /// Parameters of a prototype, adjusted (arrays to pointers).
    fn param_list(&mut self, fd: &ast::FuncDeclarator) -> Vec<ParamInfo> {
        let mut out = Vec::new();
        for p in &fd.params {
            let base = self.base_type(&p.specs);
            let (ty, _) = self.declarator_type(base, &p.declarator);
            let name = p.declarator.name.map(|n| n.0);
            let span = p.declarator.name.map(|n| n.1).unwrap_or(p.span);
            out.push((name, self.adjust_param(ty, span), span));
        }
        out
    }

    /// C99 §6.7.5.3p7-8: array parameters are pointers (struct parameters are passed by
    /// value, lowered to the address of the caller's object).
    fn adjust_param(&mut self, ty: QualType, span: Span) -> QualType {
        match &ty.ty {
            Type::Array(e, _) => QualType::new(Type::Ptr(e.clone())),
            Type::Func(_) => {
                self.error(span, "not supported by ssalab: function pointers");
                QualType::error()
            }
            Type::Void => {
                self.error(span, "parameter has type void");
                QualType::error()
            }
            _ => ty,
        }
    }

    pub(super) fn type_name(&mut self, tn: &ast::TypeName) -> QualType {
        let base = self.base_type(&tn.specs);
        self.declarator_type(base, &tn.declarator).0
    }

    /// Size of an array from its constant expression.
    fn array_size(&mut self, e: &ast::Expr) -> Option<u32> {
        let (v, k) = self.ice(e)?;
        let v = if k.signed() {
            v as i64
        } else {
            v as u32 as i64
        };
        if v <= 0 {
            let what = if v == 0 { "zero" } else { "negative" };
            self.error(e.span, format!("array size is {what}"));
            return None;
        }
        Some(v as u32)
    }

    /// A declaration at file scope or in a block. Returns the statements that initialise
    /// automatic variables.
    pub(super) fn declaration(&mut self, d: &ast::Declaration, file_scope: bool) -> Vec<TStmt> {
        let base = self.base_type(&d.specs);
        let storage = d.specs.storage.map(|s| s.0);
        if d.declarators.is_empty() {
            if !matches!(d.specs.base, BaseType::Struct(_) | BaseType::Enum(_)) {
                self.diags
                    .warning(d.span, "declaration does not declare anything");
            }
            return Vec::new();
        }
        let mut out = Vec::new();
        for id in &d.declarators {
            let (ty, _) = self.declarator_type(base.clone(), &id.declarator);
            let Some((name, span)) = id.declarator.name else {
                continue;
            };
            if storage == Some(Storage::Typedef) {
                if let Some(init) = &id.init {
                    self.error(init.span(), "typedef cannot be initialised");
                }
                self.typedef(name, span, ty);
                continue;
            }
            if let Type::Func(f) = &ty.ty {
                if let Some(init) = &id.init {
                    self.error(
                        init.span(),
                        "function declared like a variable cannot be initialised",
                    );
                }
                if !file_scope && storage == Some(Storage::Static) {
                    self.error(
                        span,
                        "invalid storage class for block-scope function declaration",
                    );
                }
                let f = f.clone();
                if let Some(fid) =
                    self.declare_function(name, span, f, storage == Some(Storage::Static), false)
                {
                    self.bind(name, span, Ordinary::Func(fid));
                }
                continue;
            }
            if ty.ty.is_void() {
                self.error(
                    span,
                    format!("variable `{}` declared void", self.name(name)),
                );
                continue;
            }
            if file_scope {
                if matches!(storage, Some(Storage::Auto | Storage::Register)) {
                    self.error(span, "file-scope declaration with auto or register");
                }
                self.global_var(name, span, ty, storage, id.init.as_ref());
            } else {
                match storage {
                    Some(Storage::Extern) => {
                        if let Some(init) = &id.init {
                            self.error(
                                init.span(),
                                "block-scope extern declaration cannot be initialised",
                            );
                        }
                        let v = self.global_var(name, span, ty, storage, None);
                        if let Some(v) = v {
                            self.bind(name, span, Ordinary::Var(v));
                        }
                    }
                    Some(Storage::Static) => self.static_local(name, span, ty, id.init.as_ref()),
                    _ => {
                        let reg = storage == Some(Storage::Register);
                        if let Some(s) = self.local_var(name, span, ty, reg, id.init.as_ref()) {
                            out.push(s);
                        }
                    }
                }
            }
        }
        out
    }

    fn typedef(&mut self, name: Sym, span: Span, ty: QualType) {
        if let Some(Ordinary::Typedef(old, _)) =
            self.scopes.last().expect("scope").ordinary.get(&name)
        {
            if self.prog.types.compatible(&old.ty, &ty.ty) && old.cv == ty.cv {
                return; // C11 allows a repeated identical typedef
            }
        }
        self.bind(name, span, Ordinary::Typedef(ty, span));
    }

    /// Declares or redeclares a function at file level; merges prototypes.
    pub(super) fn declare_function(
        &mut self,
        name: Sym,
        span: Span,
        ty: Rc<FuncType>,
        is_static: bool,
        definition: bool,
    ) -> Option<FuncId> {
        if let Some(Ordinary::Var(_)) = self.scopes[0].ordinary.get(&name) {
            self.error(
                span,
                format!(
                    "`{}` redeclared as a different kind of symbol",
                    self.name(name)
                ),
            );
            return None;
        }
        if let Some(&fid) = self.global_funcs.get(&name) {
            let old = self.prog.funcs[fid as usize].clone();
            if !self
                .prog
                .types
                .compatible(&Type::Func(old.ty.clone()), &Type::Func(ty.clone()))
            {
                let d = Diag::error(span, format!("conflicting types for `{}`", self.name(name)))
                    .with_secondary(old.span, "previous declaration is here");
                self.diags.report(d);
                return None;
            }
            if definition && old.defined {
                let d = Diag::error(span, format!("redefinition of `{}`", self.name(name)))
                    .with_secondary(old.span, "previous definition is here");
                self.diags.report(d);
                return None;
            }
            let f = &mut self.prog.funcs[fid as usize];
            if ty.prototype && !old.ty.prototype {
                f.ty = ty;
            }
            if definition {
                f.span = span;
            }
            f.is_static |= is_static;
            return Some(fid);
        }
        let fid = self.prog.funcs.len() as FuncId;
        let n = self.name(name).to_string();
        self.symbols.insert(n.clone());
        self.prog.funcs.push(FuncInfo {
            name: n,
            ty,
            span,
            defined: false,
            is_static,
            kr: false,
            used: false,
        });
        self.global_funcs.insert(name, fid);
        let scope = &mut self.scopes[0];
        scope.ordinary.entry(name).or_insert(Ordinary::Func(fid));
        Some(fid)
    }

    /// Declares or defines a file-scope object (also used for block-scope `extern`).
    fn global_var(
        &mut self,
        name: Sym,
        span: Span,
        ty: QualType,
        storage: Option<Storage>,
        init: Option<&ast::Initializer>,
    ) -> Option<VarId> {
        if let Some(Ordinary::Func(_)) = self.scopes[0].ordinary.get(&name) {
            self.error(
                span,
                format!(
                    "`{}` redeclared as a different kind of symbol",
                    self.name(name)
                ),
            );
            return None;
        }
        let v = match self.global_vars.get(&name) {
            Some(&v) => {
                let old = self.prog.vars[v as usize].clone();
                if !self.prog.types.compatible(&old.ty.ty, &ty.ty) || old.ty.cv != ty.cv {
                    let msg = format!(
                        "conflicting types for `{}`: `{}` and `{}`",
                        self.name(name),
                        self.show(&old.ty),
                        self.show(&ty)
                    );
                    let d = Diag::error(span, msg)
                        .with_secondary(old.span, "previous declaration is here");
                    self.diags.report(d);
                    return None;
                }
                if let (Type::Array(_, None), Type::Array(_, Some(_))) = (&old.ty.ty, &ty.ty) {
                    self.prog.vars[v as usize].ty = ty.clone();
                }
                v
            }
            None => {
                let n = self.name(name).to_string();
                self.symbols.insert(n.clone());
                let v = self.new_var(VarInfo {
                    name: n.clone(),
                    ty: ty.clone(),
                    kind: VarKind::Global { symbol: n },
                    span,
                    addr_taken: false,
                    is_static: false,
                    defined: false,
                    used: false,
                });
                self.global_vars.insert(name, v);
                self.global_order.push(v);
                self.scopes[0].ordinary.insert(name, Ordinary::Var(v));
                v
            }
        };
        if storage == Some(Storage::Static) {
            self.prog.vars[v as usize].is_static = true;
        }
        if let Some(init) = init {
            if self.global_data.contains_key(&v) {
                let prev = self.prog.vars[v as usize].span;
                let d = Diag::error(span, format!("redefinition of `{}`", self.name(name)))
                    .with_secondary(prev, "previous definition is here");
                self.diags.report(d);
                return Some(v);
            }
            let ty = self.prog.vars[v as usize].ty.clone();
            if let Some((ty, data)) = self.static_init(v, &ty, init) {
                let info = &mut self.prog.vars[v as usize];
                info.ty = ty;
                info.defined = true;
                info.span = span;
                self.global_data.insert(v, data);
            }
        } else if storage != Some(Storage::Extern) {
            self.prog.vars[v as usize].defined = true;
        }
        Some(v)
    }

    fn static_local(
        &mut self,
        name: Sym,
        span: Span,
        ty: QualType,
        init: Option<&ast::Initializer>,
    ) {
        let fname = self
            .fctx
            .as_ref()
            .map(|f| f.name.clone())
            .unwrap_or_default();
        let symbol = self.fresh_symbol(&format!("{fname}.{}", self.name(name)));
        let v = self.new_var(VarInfo {
            name: self.name(name).to_string(),
            ty: ty.clone(),
            kind: VarKind::Global { symbol },
            span,
            addr_taken: false,
            is_static: true,
            defined: true,
            used: false,
        });
        self.bind(name, span, Ordinary::Var(v));
        let data = match init {
            Some(init) => match self.static_init(v, &ty, init) {
                Some((ty, data)) => {
                    self.prog.vars[v as usize].ty = ty;
                    data
                }
                None => return,
            },
            None => {
                let Some(size) = self.prog.types.size_of(&ty.ty) else {
                    self.error(
                        span,
                        format!("`{}` has an incomplete type", self.name(name)),
                    );
                    return;
                };
                GlobalData {
                    var: v,
                    size,
                    align: self.prog.types.data_align_of(&ty.ty),
                    init: Vec::new(),
                    relocs: Vec::new(),
                    readonly: false,
                }
            }
        };
        self.global_data.insert(v, data);
    }

    fn local_var(
        &mut self,
        name: Sym,
        span: Span,
        ty: QualType,
        register: bool,
        init: Option<&ast::Initializer>,
    ) -> Option<TStmt> {
        let v = self.new_var(VarInfo {
            name: self.name(name).to_string(),
            ty: ty.clone(),
            kind: VarKind::Local,
            span,
            addr_taken: false,
            is_static: false,
            defined: true,
            used: false,
        });
        if register {
            self.register_vars.insert(v);
        }
        // The name is in scope in its own initialiser (C99 §6.2.1p7).
        self.bind(name, span, Ordinary::Var(v));
        let linit = match init {
            Some(init) => {
                let (ty, li) = self.local_init(&ty, init)?;
                self.prog.vars[v as usize].ty = ty;
                Some(li)
            }
            None => None,
        };
        if !self
            .prog
            .types
            .is_complete(&self.prog.vars[v as usize].ty.ty)
        {
            self.error(
                span,
                format!("variable `{}` has an incomplete type", self.name(name)),
            );
            return None;
        }
        Some(TStmt::Decl(v, linit))
    }

    /// Header of a function definition: its type (prototype or K&R), the declaration, and
    /// the parameters to bind in the body.
    pub(super) fn function_header(&mut self, f: &ast::FuncDef) -> Option<(FuncId, Vec<ParamInfo>)> {
        let base = self.base_type(&f.specs);
        let (ty, params) = self.declarator_type(base, &f.declarator);
        let (name, span) = f.declarator.name?;
        if ty.ty.is_error() && self.lookup(name).is_none() {
            // The return or a parameter type was rejected (already diagnosed): the name is
            // still declared, with the error type, so its calls report nothing more.
            self.global_var(name, span, ty.clone(), None, None);
        }
        let Type::Func(fty) = &ty.ty else {
            return None;
        };
        let Some(Derived::Function(fd)) = f.declarator.derived.first() else {
            return None;
        };
        if !matches!(
            f.specs.storage,
            None | Some((Storage::Static | Storage::Extern, _))
        ) {
            self.error(f.specs.span, "invalid storage class for a function");
        }
        if fd.variadic {
            self.error(
                fd.span,
                "not supported by ssalab: variadic function definitions",
            );
            return None;
        }
        let mut params = params.unwrap_or_default();
        let mut fty = (**fty).clone();
        let kr = !fd.prototype;
        if !fd.prototype {
            params = self.kr_params(fd, &f.kr_decls);
            fty.params = params.iter().map(|p| p.1.clone()).collect();
        } else {
            for p in &params {
                if p.0.is_none() && !p.1.ty.is_error() {
                    self.error(p.2, "parameter name omitted in function definition");
                }
            }
        }
        let is_static = matches!(f.specs.storage, Some((Storage::Static, _)));
        let fid = self.declare_function(name, span, Rc::new(fty), is_static, true)?;
        let info = &mut self.prog.funcs[fid as usize];
        info.defined = true;
        info.kr = kr && !info.ty.prototype;
        if !info.ty.prototype {
            // A K&R definition: remember its parameter types for argument-count checks.
            info.ty = Rc::new(FuncType {
                params: params.iter().map(|p| p.1.clone()).collect(),
                ..(*info.ty).clone()
            });
        }
        self.bind(name, span, Ordinary::Func(fid));
        if params.iter().any(|p| p.1.ty.is_error()) {
            return None;
        }
        Some((fid, params))
    }

    /// Parameters of an old-style definition: names from the identifier list, types from
    /// the declarations before the body (`int` when not declared).
    fn kr_params(
        &mut self,
        fd: &ast::FuncDeclarator,
        decls: &[ast::Declaration],
    ) -> Vec<ParamInfo> {
        let mut types: Vec<Option<QualType>> = vec![None; fd.kr_names.len()];
        for d in decls {
            if matches!(d.specs.storage, Some((s, _)) if s != Storage::Register) {
                self.error(d.specs.span, "storage class in parameter declaration");
            }
            let base = self.base_type(&d.specs);
            for id in &d.declarators {
                let (ty, _) = self.declarator_type(base.clone(), &id.declarator);
                let Some((name, span)) = id.declarator.name else {
                    continue;
                };
                if id.init.is_some() {
                    self.error(span, "parameter cannot be initialised");
                }
                match fd.kr_names.iter().position(|(n, _)| *n == name) {
                    Some(k) => {
                        if types[k].is_some() {
                            self.error(
                                span,
                                format!("parameter `{}` declared twice", self.name(name)),
                            );
                        }
                        types[k] = Some(self.adjust_param(ty, span));
                    }
                    None => self.error(
                        span,
                        format!(
                            "declaration of `{}` but there is no such parameter",
                            self.name(name)
                        ),
                    ),
                }
            }
        }
        fd.kr_names
            .iter()
            .zip(types)
            .map(|(&(n, span), t)| (Some(n), t.unwrap_or(QualType::int(IntKind::Int)), span))
            .collect()
    }

    /// Data of a static object from its initialiser; completes an incomplete array type.
    fn static_init(
        &mut self,
        v: VarId,
        ty: &QualType,
        init: &ast::Initializer,
    ) -> Option<(QualType, GlobalData)> {
        let (ty, items) = self.init_items(ty, init)?;
        let size = self.prog.types.size_of(&ty.ty)?;
        let mut data = GlobalData {
            var: v,
            size,
            align: self.prog.types.data_align_of(&ty.ty),
            init: Vec::new(),
            relocs: Vec::new(),
            readonly: is_const_object(&ty),
        };
        self.static_data(&items, &mut data);
        Some((ty, data))
    }
}
