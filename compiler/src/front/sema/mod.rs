//! Semantic analysis: checks the syntax tree against C's typing rules for ILP32 and builds
//! the typed tree ([`crate::front::tast`]) with every implicit conversion made explicit.
//!
//! Scopes are a stack of maps for ordinary identifiers and for tags (C99 §6.2.1, §6.2.3).
//! File-scope objects and functions are merged across redeclarations (composite array sizes,
//! prototypes). At the end, tentative definitions become zero-initialised definitions and
//! every used but never defined object or function (other than the runtime's builtins) is
//! an error: ssalab compiles a single translation unit.
//!
//! Errors use [`Type::Error`] to stop cascades: an erroneous expression has that type and is
//! accepted by everything. Recursion follows the syntax tree, whose height the parser bounds.
//! Sub-modules: [`decl`] (types of declarations, struct/enum, declarations), [`expr`],
//! [`conv`] (promotions, conversions, constant folding), [`consteval`] (constant
//! expressions and address constants), [`init`] (initialisers), [`stmt`].

mod consteval;
mod conv;
mod decl;
mod expr;
mod init;
mod stmt;
#[cfg(test)]
mod tests;

use super::ast::{self, ExternalDecl, TranslationUnit};
use super::diag::{Diag, DiagSink, Span};
use super::lexer::{Interner, Sym};
use super::tast::*;
use super::types::*;
use std::collections::{HashMap, HashSet};

pub use consteval::CVal;

/// Names the IR interpreter and simulator provide; calls to them need no definition.
pub const BUILTINS: [&str; 7] = [
    "print_int",
    "print_char",
    "putchar",
    "printf",
    "fprintf",
    "exit",
    "abort",
];

#[derive(Clone, Debug)]
enum Ordinary {
    Var(VarId),
    Func(FuncId),
    Typedef(QualType, Span),
    Enum(i32, Span),
}

#[derive(Clone, Copy, Debug)]
enum Tag {
    Struct(StructId),
    Enum(IntKind),
}

#[derive(Default)]
struct Scope {
    ordinary: HashMap<Sym, Ordinary>,
    tags: HashMap<Sym, Tag>,
}

struct LabelInfo {
    id: LabelId,
    defined: bool,
    first_use: Option<Span>,
}

struct SwitchCtx {
    cases: Vec<(i32, CaseId, Span)>,
    default: Option<(CaseId, Span)>,
    kind: IntKind,
}

/// What `break` / `continue` may refer to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Breakable {
    Loop,
    Switch,
}

/// State while checking one function body.
struct FnCtx {
    name: String,
    ret: QualType,
    labels: HashMap<Sym, LabelInfo>,
    num_labels: u32,
    num_cases: u32,
    breakables: Vec<Breakable>,
    switches: Vec<SwitchCtx>,
}

pub struct Sema<'a> {
    interner: &'a Interner,
    diags: &'a mut DiagSink,
    prog: Program,
    scopes: Vec<Scope>,
    strings: HashMap<Vec<u8>, StrId>,
    /// File-scope objects and functions by name (block-scope `extern` refers to these).
    global_vars: HashMap<Sym, VarId>,
    global_funcs: HashMap<Sym, FuncId>,
    /// Static data of globals with an explicit initialiser, by variable.
    global_data: HashMap<VarId, GlobalData>,
    /// Global variables in order of first declaration.
    global_order: Vec<VarId>,
    symbols: HashSet<String>,
    register_vars: HashSet<VarId>,
    first_use: HashMap<SymRef, Span>,
    /// Calls through a declaration without prototype: checked against the definition later.
    unprototyped_calls: Vec<(FuncId, usize, Span)>,
    fctx: Option<FnCtx>,
    /// Inside the operand of `sizeof` (not evaluated: takes no address, uses no symbol).
    in_sizeof: u32,
}

/// Checks a translation unit. Errors go to `diags`; the program is meaningful only if
/// there were none.
pub fn check(tu: &TranslationUnit, interner: &Interner, diags: &mut DiagSink) -> Program {
    let mut s = Sema {
        interner,
        diags,
        prog: Program::default(),
        scopes: vec![Scope::default()],
        strings: HashMap::new(),
        global_vars: HashMap::new(),
        global_funcs: HashMap::new(),
        global_data: HashMap::new(),
        global_order: Vec::new(),
        symbols: HashSet::new(),
        register_vars: HashSet::new(),
        first_use: HashMap::new(),
        unprototyped_calls: Vec::new(),
        fctx: None,
        in_sizeof: 0,
    };
    for item in &tu.items {
        if s.diags.should_stop() {
            break;
        }
        match item {
            ExternalDecl::Decl(d) => {
                s.declaration(d, true);
            }
            ExternalDecl::Func(f) => s.function_definition(f),
        }
    }
    s.finish();
    s.prog
}

impl std::hash::Hash for SymRef {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        match self {
            SymRef::Var(v) => (0u8, *v).hash(h),
            SymRef::Str(v) => (1u8, *v).hash(h),
            SymRef::Func(v) => (2u8, *v).hash(h),
        }
    }
}

impl<'a> Sema<'a> {
    fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.error(span, msg);
    }

    fn name(&self, s: Sym) -> &'a str {
        self.interner.get(s)
    }

    fn show(&self, t: &QualType) -> String {
        self.prog.types.display(t, self.interner)
    }

    fn push_scope(&mut self) {
        self.scopes.push(Scope::default());
    }

    fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    fn lookup(&self, name: Sym) -> Option<&Ordinary> {
        self.scopes.iter().rev().find_map(|s| s.ordinary.get(&name))
    }

    fn lookup_tag(&self, name: Sym) -> Option<Tag> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.tags.get(&name).copied())
    }

    /// Declares an ordinary identifier in the current scope; a clash with a different
    /// entity in the same scope is an error.
    fn bind(&mut self, name: Sym, span: Span, o: Ordinary) {
        let scope = self.scopes.last_mut().expect("scope");
        if let Some(old) = scope.ordinary.get(&name) {
            let same = match (old, &o) {
                (Ordinary::Var(a), Ordinary::Var(b)) => a == b,
                (Ordinary::Func(a), Ordinary::Func(b)) => a == b,
                _ => false,
            };
            if !same {
                let prev = match old {
                    Ordinary::Var(v) => self.prog.vars[*v as usize].span,
                    Ordinary::Func(f) => self.prog.funcs[*f as usize].span,
                    Ordinary::Typedef(_, s) | Ordinary::Enum(_, s) => *s,
                };
                let d = Diag::error(span, format!("redefinition of `{}`", self.name(name)))
                    .with_secondary(prev, "previous definition is here");
                self.diags.report(d);
                return;
            }
        }
        self.scopes
            .last_mut()
            .expect("scope")
            .ordinary
            .insert(name, o);
    }

    fn new_var(&mut self, info: VarInfo) -> VarId {
        self.prog.vars.push(info);
        self.prog.vars.len() as VarId - 1
    }

    /// A fresh IR symbol name based on `base`.
    fn fresh_symbol(&mut self, base: &str) -> String {
        let mut s = base.to_string();
        let mut k = 1;
        while self.symbols.contains(&s) {
            s = format!("{base}.{k}");
            k += 1;
        }
        self.symbols.insert(s.clone());
        s
    }

    /// The string literal object for `bytes` (NUL appended), shared between equal literals.
    fn string_literal(&mut self, bytes: &[u8]) -> StrId {
        if let Some(&id) = self.strings.get(bytes) {
            return id;
        }
        let id = self.prog.strings.len() as StrId;
        let mut b = bytes.to_vec();
        b.push(0);
        self.prog.strings.push(b);
        self.strings.insert(bytes.to_vec(), id);
        id
    }

    fn note_use(&mut self, r: SymRef, span: Span) {
        if self.in_sizeof > 0 {
            return;
        }
        self.first_use.entry(r).or_insert(span);
    }

    /// End of the unit: tentative definitions, undefined references, global data order.
    fn finish(&mut self) {
        for &(f, n, span) in &self.unprototyped_calls {
            let info = &self.prog.funcs[f as usize];
            if info.defined && info.kr && info.ty.params.len() != n {
                let msg = format!(
                    "function `{}` is defined with {} parameter(s) but called with {} argument(s)",
                    info.name,
                    info.ty.params.len(),
                    n
                );
                self.diags.error(span, msg);
            }
        }
        let mut uses: Vec<(SymRef, Span)> = self
            .first_use
            .iter()
            .map(|(r, s)| (r.clone(), *s))
            .collect();
        uses.sort_by_key(|(_, s)| (s.file, s.lo));
        for (r, span) in uses {
            match r {
                SymRef::Func(f) => {
                    let info = &self.prog.funcs[f as usize];
                    if !info.defined && !BUILTINS.contains(&info.name.as_str()) {
                        let msg = format!(
                            "function `{}` is used but never defined (ssalab compiles a single translation unit)",
                            info.name
                        );
                        self.diags.error(span, msg);
                    }
                }
                SymRef::Var(v) => {
                    let info = &self.prog.vars[v as usize];
                    if matches!(info.kind, VarKind::Global { .. }) && !info.defined {
                        let msg = format!(
                            "`{}` is declared `extern` but never defined (ssalab compiles a single translation unit)",
                            info.name
                        );
                        self.diags.error(span, msg);
                    }
                }
                SymRef::Str(_) => {}
            }
        }
        for v in std::mem::take(&mut self.global_order) {
            let info = &self.prog.vars[v as usize];
            if !info.defined {
                continue;
            }
            let data = match self.global_data.remove(&v) {
                Some(d) => d,
                None => {
                    // Tentative definition: zero-initialised (an incomplete array gets one
                    // element, as C99 §6.9.2p5 says).
                    let mut ty = info.ty.ty.clone();
                    if let Type::Array(e, None) = &ty {
                        ty = Type::Array(e.clone(), Some(1));
                    }
                    let size = self.prog.types.size_of(&ty);
                    let Some(size) = size else {
                        let msg = format!("`{}` has an incomplete type", info.name);
                        let span = info.span;
                        self.diags.error(span, msg);
                        continue;
                    };
                    GlobalData {
                        var: v,
                        size,
                        align: self.prog.types.data_align_of(&ty),
                        init: Vec::new(),
                        relocs: Vec::new(),
                        readonly: false,
                    }
                }
            };
            self.prog.globals.push(data);
        }
        // Static locals were defined as they were met.
        let mut rest: Vec<GlobalData> = self.global_data.drain().map(|(_, d)| d).collect();
        rest.sort_by_key(|d| d.var);
        self.prog.globals.extend(rest);
    }

    /// Checks a function definition and records its body.
    fn function_definition(&mut self, f: &ast::FuncDef) {
        let Some(def) = self.function_header(f) else {
            return;
        };
        let (fid, params) = def;
        let finfo = self.prog.funcs[fid as usize].clone();
        self.fctx = Some(FnCtx {
            name: finfo.name.clone(),
            ret: finfo.ty.ret.clone(),
            labels: HashMap::new(),
            num_labels: 0,
            num_cases: 0,
            breakables: Vec::new(),
            switches: Vec::new(),
        });
        self.push_scope();
        let mut param_vars = Vec::new();
        for (k, (name, ty, span)) in params.into_iter().enumerate() {
            let v = self.new_var(VarInfo {
                name: name.map(|n| self.name(n).to_string()).unwrap_or_default(),
                ty,
                kind: VarKind::Param(k as u32),
                span,
                addr_taken: false,
                is_static: false,
                defined: true,
                used: false,
            });
            if let Some(n) = name {
                self.bind(n, span, Ordinary::Var(v));
            }
            param_vars.push(v);
        }
        let body = match &f.body.kind {
            ast::StmtKind::Compound(items) => TStmt::Block(self.block_items(items)),
            _ => self.statement(&f.body),
        };
        self.pop_scope();
        let ctx = self.fctx.take().expect("function context");
        let mut undefined: Vec<(Span, Sym)> = ctx
            .labels
            .iter()
            .filter(|(_, l)| !l.defined)
            .filter_map(|(n, l)| l.first_use.map(|s| (s, *n)))
            .collect();
        undefined.sort_by_key(|(s, _)| (s.file, s.lo));
        for (span, n) in undefined {
            self.error(
                span,
                format!("label `{}` used but not defined", self.name(n)),
            );
        }
        self.prog.bodies.push(FuncBody {
            func: fid,
            params: param_vars,
            body,
            num_labels: ctx.num_labels,
            num_cases: ctx.num_cases,
            span: f.span,
        });
    }
}
