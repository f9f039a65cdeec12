//! Random program generator (Csmith/YARPGen style) for the C subset: a program is a pure
//! function of (generator version, seed, size).
//!
//! It builds a [`Program`] tree; [`super::emit`] prints it as C free of undefined behaviour.
//! What it generates: structs (with arrays and arrays of structs), global and local scalars and
//! 1-D/2-D arrays of every integer width and signedness, functions with up to 10 parameters
//! (scalars and pointers to arrays, structs or single objects), bounded recursion, `for` /
//! `while` / `do` loops with constant bounds, pointer walks (`*q++`), nested `if`, `switch` with
//! fall-through, `break` / `continue` / early `return`, casts, `?:`, compound assignments, and
//! prints of checksums. Policy knobs (YARPGen's "generation policies") create the patterns
//! out-of-SSA translation must get right: values swapped and rotated around loops, values live
//! across loop exits, copies of copies, many variables assigned in both arms of a conditional
//! (many phis in one block), and many simultaneously live variables (register pressure).
//! Each program also turns a random subset of features off ("swarm testing", Groce et al.,
//! ISSTA 2012), which finds more bugs than always mixing everything.
//!
//! Running time of a generated program is bounded by construction: loop bounds are constants,
//! recursion depth is at most [`MAX_DEPTH`], and an estimate of executed statements (loop trip
//! products times callee costs) is kept under a budget while generating.

use super::ast::*;
use super::rng::Rng;
use std::collections::HashMap;

mod exprs;
mod patterns;

/// Program size classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Size {
    /// 90-170 lines (most of it the state declarations and checksums): one or two functions
    /// of few statements; the CI campaign's size.
    Tiny,
    /// 30-120 lines: quick to check and to reduce.
    Small,
    /// 100-400 lines.
    Medium,
    /// 400-1500 lines.
    Large,
}

impl Size {
    pub fn name(self) -> &'static str {
        match self {
            Size::Tiny => "tiny",
            Size::Small => "small",
            Size::Medium => "medium",
            Size::Large => "large",
        }
    }
}

/// Features a program may use (a random subset is enabled per program).
#[derive(Clone, Debug)]
pub struct Features {
    pub structs: bool,
    pub pointers: bool,
    pub walks: bool,
    pub recursion: bool,
    pub switches: bool,
    pub narrow_types: bool,
    pub calls: bool,
    pub volatile: bool,
    pub early_exits: bool,
    /// Patterns for out-of-SSA translation.
    pub swaps: bool,
    pub diamonds: bool,
    pub pressure: bool,
    pub copy_chains: bool,
    pub loop_exit_values: bool,
    pub prints: bool,
    pub statics: bool,
    pub gotos: bool,
    pub struct_copies: bool,
    pub intrinsics: bool,
    pub guarded_divisions: bool,
}

/// Generation policy: sizes, limits and features.
#[derive(Clone, Debug)]
pub struct Policy {
    pub size: Size,
    /// Non-`main` functions.
    pub funcs: u32,
    /// Statements per function body (top-level count; nested statements come on top).
    pub stmts: u32,
    pub max_nest: u32,
    pub expr_depth: u32,
    /// Scalar locals per function.
    pub locals: u32,
    pub globals: u32,
    /// Estimated executed statements per function (callees included).
    pub budget: u64,
    /// Statements per function at all nesting levels (bounds the size of the text).
    pub max_stmts: u32,
    pub features: Features,
}

impl Policy {
    /// The policy of a program of size `size`, with features drawn from `rng`.
    pub fn random(rng: &mut Rng, size: Size) -> Policy {
        let mut on = |p: u32| rng.chance(p);
        let features = Features {
            structs: on(70),
            pointers: on(70),
            walks: on(70),
            recursion: on(50),
            switches: on(70),
            narrow_types: on(85),
            calls: on(90),
            volatile: on(20),
            early_exits: on(60),
            swaps: on(60),
            diamonds: on(60),
            pressure: on(50),
            copy_chains: on(50),
            loop_exit_values: on(60),
            prints: on(50),
            statics: on(40),
            gotos: on(30),
            struct_copies: on(50),
            intrinsics: on(40),
            guarded_divisions: on(50),
        };
        let (funcs, stmts, nest, locals, globals, budget, max_stmts) = match size {
            Size::Tiny => (
                rng.range(1, 2),
                rng.range(2, 4),
                2,
                rng.range(2, 4),
                rng.range(2, 4),
                800,
                8,
            ),
            Size::Small => (
                rng.range(1, 3),
                rng.range(3, 6),
                2,
                rng.range(2, 5),
                rng.range(2, 5),
                2000,
                12,
            ),
            Size::Medium => (
                rng.range(2, 4),
                rng.range(4, 8),
                3,
                rng.range(3, 8),
                rng.range(4, 9),
                5000,
                20,
            ),
            Size::Large => (
                rng.range(5, 9),
                rng.range(8, 16),
                4,
                rng.range(5, 12),
                rng.range(6, 14),
                10000,
                50,
            ),
        };
        Policy {
            size,
            funcs: funcs as u32,
            stmts: stmts as u32,
            max_nest: nest,
            expr_depth: if matches!(size, Size::Tiny | Size::Small) {
                2
            } else {
                3
            },
            locals: locals as u32,
            globals: globals as u32,
            budget,
            max_stmts: max_stmts as u32,
            features,
        }
    }
}

/// Generates the program of `seed` at `size`.
pub fn generate(seed: u64, size: Size) -> Program {
    // The size goes into the seed so that small and medium programs of one seed differ.
    let mut rng = Rng::new(seed ^ ((size as u64) << 56));
    let pol = Policy::random(&mut rng, size);
    let mut g = Gen {
        rng,
        pol,
        prog: Program {
            seed,
            structs: Vec::new(),
            globals: Vec::new(),
            funcs: Vec::new(),
        },
        next_name: HashMap::new(),
        cost: HashMap::new(),
        index_nesting: 0,
    };
    g.program();
    g.prog
}

/// What kind of name a visible variable is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Global,
    Param,
    Local,
    Counter,
    Depth,
}

#[derive(Clone, Debug)]
struct Var {
    name: String,
    ty: Ty,
    kind: Kind,
    volatile: bool,
}

impl Var {
    /// Counters change only in their loop header; `depth` only by the call.
    fn assignable(&self) -> bool {
        !matches!(self.kind, Kind::Counter | Kind::Depth)
    }

    /// Whether the object may be passed by address or walked (volatile objects may not lose
    /// their qualifier; counters must never change outside their loop header).
    fn addressable(&self) -> bool {
        !self.volatile && matches!(self.kind, Kind::Global | Kind::Param | Kind::Local)
    }
}

/// A path template: how to reach a sub-object, with index expressions still to choose.
#[derive(Clone, Debug)]
enum TStep {
    Index(u32),
    Field(usize),
}

/// The state of the function being generated.
struct FnCtx {
    name: String,
    ret: Option<Scalar>,
    vars: Vec<Var>,
    locals: Vec<Decl>,
    /// The innermost walk whose pointer a `WalkStep` may still advance.
    walk_step: Option<(String, Scalar)>,
    /// Walk pointers in scope (readable / writable as `*q`).
    walk_ptrs: Vec<(String, Scalar)>,
    loop_depth: u32,
    switch_depth: u32,
    /// Executions of the current statement per call of the function (product of trips).
    mult: u64,
    /// Estimated executed statements so far.
    work: u64,
    budget: u64,
    self_calls: u32,
    /// Statements this function may still get.
    stmts_left: u32,
}

impl FnCtx {
    fn room(&self) -> u64 {
        self.budget.saturating_sub(self.work)
    }
}

struct Gen {
    rng: Rng,
    pol: Policy,
    prog: Program,
    next_name: HashMap<&'static str, u32>,
    /// Estimated executed statements of one call of each function.
    cost: HashMap<String, u64>,
    /// Depth of index expressions being generated inside index expressions.
    index_nesting: u32,
}

/// A generator of a loop body for a pattern.
type Pattern<'a> = dyn FnMut(&mut Gen, &mut FnCtx) -> Vec<Stmt> + 'a;

const NUM_WEIGHTS: usize = 17;

impl Gen {
    fn fresh(&mut self, prefix: &'static str) -> String {
        let n = self.next_name.entry(prefix).or_insert(0);
        let name = format!("{prefix}{n}");
        *n += 1;
        name
    }

    fn scalar_type(&mut self) -> Scalar {
        if self.pol.features.narrow_types {
            self.rng.pick(&Scalar::ALL)
        } else if self.rng.chance(70) {
            Scalar::I32
        } else {
            Scalar::U32
        }
    }

    fn pow2(&mut self, lo_log: u32, hi_log: u32) -> u32 {
        1 << self.rng.range(lo_log as i64, hi_log as i64)
    }

    // -----------------------------------------------------------------------------------------
    // Program, types, globals.

    fn program(&mut self) {
        if self.pol.features.structs {
            let n = self.rng.range(1, 3);
            for _ in 0..n {
                self.struct_def();
            }
        }
        for _ in 0..self.pol.globals {
            self.global();
        }
        // Signatures first (callers need them), then bodies in order: a function calls only
        // earlier functions and, if recursive, itself.
        let mut funcs = Vec::new();
        for _ in 0..self.pol.funcs {
            funcs.push(self.signature());
        }
        for f in funcs {
            let f = self.function_body(f);
            self.prog.funcs.push(f);
        }
        let main = self.main();
        self.prog.funcs.push(main);
    }

    fn struct_def(&mut self) {
        let k = self.prog.structs.len();
        let nfields = self.rng.range(2, 5);
        let mut fields = Vec::new();
        for i in 0..nfields {
            let ty = match self.rng.below(10) {
                0..=4 => Ty::Scalar(self.scalar_type()),
                5..=7 => Ty::Array(Box::new(Ty::Scalar(self.scalar_type())), self.pow2(1, 3)),
                _ if k > 0 => {
                    let inner = Ty::Struct(self.rng.below(k as u64) as usize);
                    if self.rng.chance(60) {
                        Ty::Array(Box::new(inner), self.pow2(1, 2))
                    } else {
                        inner
                    }
                }
                _ => Ty::Scalar(self.scalar_type()),
            };
            fields.push(Field {
                name: format!("m{i}"),
                ty,
            });
        }
        self.prog.structs.push(StructDef {
            name: format!("S{k}"),
            fields,
        });
    }

    fn object_type(&mut self, allow_struct: bool) -> Ty {
        let nstructs = self.prog.structs.len();
        let structs = allow_struct && nstructs > 0;
        match self.rng.below(12) {
            0..=4 => Ty::Scalar(self.scalar_type()),
            5..=7 => Ty::Array(Box::new(Ty::Scalar(self.scalar_type())), self.pow2(2, 5)),
            8 | 9 => Ty::Array(
                Box::new(Ty::Array(
                    Box::new(Ty::Scalar(self.scalar_type())),
                    self.pow2(1, 3),
                )),
                self.pow2(1, 3),
            ),
            _ if structs => {
                let s = Ty::Struct(self.rng.below(nstructs as u64) as usize);
                if self.rng.chance(60) {
                    Ty::Array(Box::new(s), self.pow2(1, 2))
                } else {
                    s
                }
            }
            _ => Ty::Array(Box::new(Ty::Scalar(self.scalar_type())), self.pow2(2, 4)),
        }
    }

    fn global(&mut self) {
        let name = self.fresh("g");
        let ty = self.object_type(true);
        let init = if self.rng.chance(60) {
            self.const_init(&ty)
        } else {
            Init::None
        };
        let volatile =
            self.pol.features.volatile && matches!(ty, Ty::Scalar(_)) && self.rng.chance(40);
        self.prog.globals.push(Decl {
            volatile,
            ..Decl::new(&name, ty, init)
        });
    }

    /// A constant initialiser for `ty` (brace lists may be partial: the rest is zero).
    fn const_init(&mut self, ty: &Ty) -> Init {
        match ty {
            Ty::Scalar(s) => Init::Expr(self.const_of(*s)),
            Ty::Array(elem, n) => {
                let count = self.rng.range(1, *n as i64) as usize;
                let elem = (**elem).clone();
                Init::List((0..count).map(|_| self.const_init(&elem)).collect())
            }
            Ty::Struct(k) => {
                let fields: Vec<Ty> = self.prog.structs[*k]
                    .fields
                    .iter()
                    .map(|f| f.ty.clone())
                    .collect();
                let count = self.rng.range(1, fields.len() as i64) as usize;
                Init::List(fields[..count].iter().map(|t| self.const_init(t)).collect())
            }
            Ty::Ptr(..) => Init::None,
        }
    }

    /// A constant whose value fits `s` (written as `int` unless `s` is `unsigned`).
    fn const_of(&mut self, s: Scalar) -> Expr {
        let v = self.interesting(s);
        let ty = if s == Scalar::U32 {
            Scalar::U32
        } else {
            Scalar::I32
        };
        Expr::Const(v, ty)
    }

    /// Boundary values are over-represented: that is where conversions and folding go wrong.
    fn interesting(&mut self, s: Scalar) -> i64 {
        let v = match self.rng.below(10) {
            0..=3 => self.rng.range(-10, 20),
            4 => self.rng.pick(&[s.min(), s.max(), s.min() + 1, s.max() - 1]),
            5 => self
                .rng
                .pick(&[127, 128, 255, 256, -128, -129, 32767, 32768, -32768, 65535]),
            6 => {
                let k = self.rng.range(0, 31);
                let b = 1i64 << k;
                self.rng.pick(&[b, b - 1, -b, b + 1])
            }
            7 => self.rng.range(-1000, 1000),
            _ => self.rng.range(s.min(), s.max()),
        };
        if v < s.min() || v > s.max() {
            s.wrap(v)
        } else {
            v
        }
    }

    // -----------------------------------------------------------------------------------------
    // Functions.

    fn signature(&mut self) -> Func {
        let name = self.fresh("f");
        let recursive = self.pol.features.recursion && self.rng.chance(35);
        let mut params = Vec::new();
        if recursive {
            params.push(Decl::new(DEPTH, Ty::Scalar(Scalar::U32), Init::None));
        }
        let n = match self.rng.below(10) {
            0 => 0,
            1..=6 => self.rng.range(1, 5),
            _ => self.rng.range(6, 10),
        } as usize;
        for _ in 0..n {
            let ty = if self.pol.features.pointers && self.rng.chance(30) {
                self.pointer_param_type()
            } else {
                Ty::Scalar(self.scalar_type())
            };
            let name = self.fresh("p");
            params.push(Decl::new(&name, ty, Init::None));
        }
        params.truncate(10);
        let ret = if self.rng.chance(85) {
            Some(self.scalar_type())
        } else {
            None
        };
        Func {
            name,
            ret,
            recursive,
            params,
            locals: Vec::new(),
            base: None,
            body: Vec::new(),
            ret_expr: None,
        }
    }

    /// A pointer parameter type that some global sub-object can satisfy (so every caller has
    /// an argument to pass).
    fn pointer_param_type(&mut self) -> Ty {
        let globals: Vec<Var> = self
            .global_vars()
            .into_iter()
            .filter(|v| v.addressable())
            .collect();
        let subs = self.subobjects(&globals, &|_| true);
        if subs.is_empty() {
            return Ty::Scalar(Scalar::I32);
        }
        let (_, _, ty) = subs[self.rng.below(subs.len() as u64) as usize].clone();
        match ty {
            Ty::Array(elem, n) if !matches!(*elem, Ty::Array(..)) => {
                let max_log = 31 - n.leading_zeros();
                let l = 1 << self.rng.range(0, max_log as i64);
                Ty::Ptr(elem, l)
            }
            // A 2-D array: a pointer to rows (`T p[][m]`).
            Ty::Array(row, n) if matches!(*row, Ty::Array(ref e, _) if e.scalar().is_some()) => {
                let max_log = 31 - n.leading_zeros();
                Ty::Ptr(row, 1 << self.rng.range(0, max_log as i64))
            }
            Ty::Array(..) => Ty::Scalar(Scalar::I32),
            other => Ty::Ptr(Box::new(other), 1),
        }
    }

    fn global_vars(&self) -> Vec<Var> {
        self.prog
            .globals
            .iter()
            .map(|g| Var {
                name: g.name.clone(),
                ty: g.ty.clone(),
                kind: Kind::Global,
                volatile: g.volatile,
            })
            .collect()
    }

    fn new_ctx(&self, f: &Func, budget: u64) -> FnCtx {
        let mut vars = self.global_vars();
        for p in &f.params {
            vars.push(Var {
                name: p.name.clone(),
                ty: p.ty.clone(),
                kind: if p.name == DEPTH {
                    Kind::Depth
                } else {
                    Kind::Param
                },
                volatile: false,
            });
        }
        FnCtx {
            name: f.name.clone(),
            ret: f.ret,
            vars,
            locals: Vec::new(),
            walk_step: None,
            walk_ptrs: Vec::new(),
            loop_depth: 0,
            switch_depth: 0,
            mult: 1,
            work: 0,
            budget,
            self_calls: 0,
            stmts_left: self.pol.max_stmts,
        }
    }

    fn function_body(&mut self, mut f: Func) -> Func {
        // A recursive function runs its body up to 2^(MAX_DEPTH+1)-1 times (two self-calls).
        let budget = if f.recursive {
            self.pol.budget / ((1 << (MAX_DEPTH + 1)) - 1)
        } else {
            self.pol.budget
        };
        let mut cx = self.new_ctx(&f, budget);
        self.declare_locals(&mut cx, self.pol.locals);
        if f.recursive {
            f.base = f.ret.map(|r| {
                let e = self.expr(&cx, 1);
                cast_to(e, r)
            });
        }
        let mut body = self.block(&mut cx, self.pol.stmts, 0);
        self.maybe_pressure(&mut cx, &mut body);
        if f.recursive {
            let calls = self.rng.range(1, 2);
            for _ in 0..calls {
                let call = self.call_to(&mut cx, &f.name.clone(), Some(&f));
                let at = self.rng.below(body.len() as u64 + 1) as usize;
                body.insert(at, call);
            }
        }
        // Values must reach the output for a miscompilation to show: print a hash of the
        // function's scalars at its end, and return another mix of them.
        if self.rng.chance(50) {
            body.push(Stmt::Print(self.hash_of_locals(&cx)));
        }
        f.ret_expr = f.ret.map(|r| {
            let e = if self.rng.chance(60) {
                self.hash_of_locals(&cx)
            } else {
                self.fold_of_locals(&cx)
            };
            cast_to(e, r)
        });
        f.body = body;
        f.locals = cx.locals;
        let factor = if f.recursive {
            (1 << (MAX_DEPTH + 1)) - 1
        } else {
            1
        };
        self.cost.insert(f.name.clone(), (cx.work + 1) * factor);
        f
    }

    /// Scalar locals initialised by expressions over what is already visible; sometimes a
    /// local array or struct with a constant initialiser.
    fn declare_locals(&mut self, cx: &mut FnCtx, n: u32) {
        for _ in 0..n {
            let ty = Ty::Scalar(self.scalar_type());
            let is_static = self.pol.features.statics && self.rng.chance(15);
            self.add_local_with(cx, ty, is_static);
        }
        let aggregates = self.rng.range(0, 2);
        for _ in 0..aggregates {
            let ty = self.object_type(true);
            let is_static = self.pol.features.statics && self.rng.chance(25);
            self.add_local_with(cx, ty, is_static);
        }
    }

    fn add_local(&mut self, cx: &mut FnCtx, ty: Ty) -> String {
        self.add_local_with(cx, ty, false)
    }

    /// A new initialised local (a `static` one gets a constant initialiser).
    fn add_local_with(&mut self, cx: &mut FnCtx, ty: Ty, is_static: bool) -> String {
        let name = self.fresh("l");
        let init = match &ty {
            Ty::Scalar(s) => {
                // Inside a loop the visible names include counters and walk pointers, which
                // do not exist at the top of the function where the local is declared.
                let e = if !is_static && cx.loop_depth == 0 && self.rng.chance(70) {
                    self.expr(cx, 1)
                } else {
                    self.const_of(*s)
                };
                Init::Expr(e)
            }
            // Aggregates are always initialised: a partial list zero-fills the rest.
            other => match self.const_init(other) {
                Init::None => Init::List(vec![]),
                i => i,
            },
        };
        let init = match init {
            Init::List(items) if items.is_empty() => self.const_init(&ty),
            i => i,
        };
        cx.locals.push(Decl {
            is_static,
            ..Decl::new(&name, ty.clone(), init)
        });
        cx.vars.push(Var {
            name: name.clone(),
            ty,
            kind: Kind::Local,
            volatile: false,
        });
        name
    }

    /// An expression mixing several locals and parameters (keeps them live to the end).
    fn fold_of_locals(&mut self, cx: &FnCtx) -> Expr {
        let scalars: Vec<&Var> = cx
            .vars
            .iter()
            .filter(|v| {
                matches!(v.kind, Kind::Local | Kind::Param) && matches!(v.ty, Ty::Scalar(_))
            })
            .collect();
        if scalars.is_empty() {
            return self.expr(cx, 2);
        }
        let n = self.rng.range(1, scalars.len().min(6) as i64) as usize;
        let mut acc: Option<Expr> = None;
        for _ in 0..n {
            let v = scalars[self.rng.below(scalars.len() as u64) as usize];
            let e = Expr::load_var(&v.name);
            acc = Some(match acc {
                None => e,
                Some(a) => {
                    let op = self
                        .rng
                        .pick(&[BinOp::Add, BinOp::Xor, BinOp::Sub, BinOp::Mul]);
                    Expr::bin(op, a, e)
                }
            });
        }
        acc.unwrap_or(Expr::int(0))
    }

    /// `((v1 * 33u) ^ v2) * 33u ^ ...` over every scalar local and parameter.
    fn hash_of_locals(&mut self, cx: &FnCtx) -> Expr {
        let mut acc = Expr::Const(self.rng.range(0, 1000), Scalar::U32);
        for v in &cx.vars {
            if matches!(v.kind, Kind::Local | Kind::Param) && matches!(v.ty, Ty::Scalar(_)) {
                acc = Expr::bin(
                    BinOp::Xor,
                    Expr::bin(BinOp::Mul, acc, Expr::Const(33, Scalar::U32)),
                    Expr::load_var(&v.name),
                );
            }
        }
        acc
    }

    fn main(&mut self) -> Func {
        let f = Func {
            name: "main".to_string(),
            ret: Some(Scalar::I32),
            recursive: false,
            params: Vec::new(),
            locals: Vec::new(),
            base: None,
            body: Vec::new(),
            ret_expr: None,
        };
        let budget = self.pol.budget * (self.pol.funcs as u64 + 2);
        let mut cx = self.new_ctx(&f, budget);
        self.declare_locals(&mut cx, self.pol.locals);
        let crc = self.add_local(&mut cx, Ty::Scalar(Scalar::U32));
        cx.locals.last_mut().expect("just added").init = Init::Expr(Expr::Const(0, Scalar::U32));
        let mut body = Vec::new();
        let pre = self.rng.range(1, 3) as u32;
        body.extend(self.block(&mut cx, pre, 0));
        // Call every function at least once and print what it returns.
        let names: Vec<String> = self.prog.funcs.iter().map(|f| f.name.clone()).collect();
        for name in names {
            let call = self.call_to(&mut cx, &name, None);
            let printed = match &call {
                Stmt::Call { dst: Some(d), .. } => Some(d.clone()),
                _ => None,
            };
            body.push(call);
            if let Some(d) = printed {
                body.push(Stmt::Print(Expr::load_var(&d)));
            }
            if self.rng.chance(40) {
                body.extend(self.block(&mut cx, 1, 0));
            }
        }
        body.extend(self.block(&mut cx, pre, 0));
        self.maybe_pressure(&mut cx, &mut body);
        body.extend(self.checksums(&mut cx, &crc));
        let mut out = f;
        out.body = body;
        out.ret_expr = Some(Expr::Cast(
            Scalar::I32,
            Box::new(Expr::bin(
                BinOp::And,
                Expr::load_var(&crc),
                Expr::Const(127, Scalar::U32),
            )),
        ));
        out.locals = cx.locals;
        out
    }

    /// `crc = crc * 33u ^ (unsigned)x` over every global element and every scalar local of
    /// `main`, printing the checksum after each global.
    fn checksums(&mut self, cx: &mut FnCtx, crc: &str) -> Vec<Stmt> {
        let mut out = Vec::new();
        let globals = self.global_vars();
        for g in globals {
            self.checksum_of(cx, crc, Place::var(&g.name), &g.ty, &mut out);
            out.push(Stmt::Print(Expr::load_var(crc)));
        }
        let locals: Vec<String> = cx
            .vars
            .iter()
            .filter(|v| v.kind == Kind::Local && v.name != crc && matches!(v.ty, Ty::Scalar(_)))
            .map(|v| v.name.clone())
            .collect();
        for l in locals {
            out.push(mix(crc, Expr::load_var(&l)));
        }
        out.push(Stmt::Print(Expr::load_var(crc)));
        out
    }

    fn checksum_of(
        &mut self,
        cx: &mut FnCtx,
        crc: &str,
        place: Place,
        ty: &Ty,
        out: &mut Vec<Stmt>,
    ) {
        match ty {
            Ty::Scalar(_) => out.push(mix(crc, Expr::Load(Box::new(place)))),
            Ty::Array(elem, n) => {
                let counter = self.fresh("i");
                let mut p = place;
                p.path.push(Step::Index(Box::new(Expr::load_var(&counter))));
                let mut body = Vec::new();
                self.checksum_of(cx, crc, p, elem, &mut body);
                cx.work += *n as u64 * body.len() as u64;
                out.push(Stmt::Loop(Box::new(Loop {
                    kind: LoopKind::For,
                    counter,
                    counter_ty: Scalar::I32,
                    bound: *n,
                    step: 1,
                    body,
                    side_entry: None,
                })));
            }
            Ty::Struct(k) => {
                let fields: Vec<Ty> = self.prog.structs[*k]
                    .fields
                    .iter()
                    .map(|f| f.ty.clone())
                    .collect();
                for (i, fty) in fields.iter().enumerate() {
                    let mut p = place.clone();
                    p.path.push(Step::Field(i));
                    self.checksum_of(cx, crc, p, fty, out);
                }
            }
            Ty::Ptr(..) => {}
        }
    }

    // -----------------------------------------------------------------------------------------
    // Statements.

    fn block(&mut self, cx: &mut FnCtx, n: u32, nest: u32) -> Vec<Stmt> {
        let mut out = Vec::new();
        for _ in 0..n {
            if cx.room() < cx.mult || cx.stmts_left == 0 {
                break;
            }
            cx.stmts_left -= 1;
            out.extend(self.stmt(cx, nest));
        }
        out
    }

    fn stmt(&mut self, cx: &mut FnCtx, nest: u32) -> Vec<Stmt> {
        let f = self.pol.features.clone();
        let can_nest = nest < self.pol.max_nest;
        let in_loop = cx.loop_depth > 0;
        let callees = self.callees(cx);
        let arrays = can_nest && f.walks && !self.walkable(cx).is_empty();
        let w = |on: bool, weight: u32| if on { weight } else { 0 };
        let weights: [u32; NUM_WEIGHTS] = [
            40,                                                      // assign
            w(can_nest, 12),                                         // if
            w(can_nest && cx.room() >= cx.mult * 4, 10),             // loop
            w(can_nest && f.switches, 5),                            // switch
            w(f.calls && !callees.is_empty(), 8),                    // call
            w(arrays && cx.room() >= cx.mult * 4, 6),                // walk
            w(cx.walk_step.is_some(), 10),                           // walk step
            w(f.prints, 2),                                          // print
            w((in_loop || cx.switch_depth > 0) && f.early_exits, 4), // break / continue
            w(f.early_exits && cx.name != "main", 1),                // return
            w(can_nest && f.swaps && cx.room() >= cx.mult * 8, 4),   // swap / rotate loop
            w(can_nest && f.diamonds, 4),                            // diamond
            w(f.copy_chains, 3),                                     // copy chain
            w(
                can_nest && f.loop_exit_values && cx.room() >= cx.mult * 8,
                3,
            ), // loop exit
            w(f.struct_copies && !self.prog.structs.is_empty(), 3),  // struct copy
            w(f.gotos && can_nest, 2),                               // forward goto
            w(f.guarded_divisions, 4),                               // guarded division
        ];
        cx.work += cx.mult;
        match self.rng.weighted(&weights) {
            0 => vec![self.assign(cx)],
            1 => vec![self.if_stmt(cx, nest)],
            2 => vec![self.loop_stmt(cx, nest, None)],
            3 => vec![self.switch(cx, nest)],
            4 => {
                let name = self.rng.choose(&callees).clone();
                vec![self.call_to(cx, &name, None)]
            }
            5 => vec![self.walk(cx, nest)],
            6 => vec![self.walk_step(cx)],
            7 => {
                let e = self.expr(cx, 2);
                vec![Stmt::Print(e)]
            }
            8 => {
                let exit = if in_loop && self.rng.chance(50) {
                    Stmt::Continue
                } else {
                    Stmt::Break
                };
                let cond = self.rare_cond(cx);
                vec![Stmt::If {
                    cond,
                    then: vec![exit],
                    els: vec![],
                }]
            }
            9 => {
                let cond = self.rare_cond(cx);
                let value = cx.ret.map(|r| {
                    let e = self.expr(cx, 2);
                    cast_to(e, r)
                });
                vec![Stmt::If {
                    cond,
                    then: vec![Stmt::Return(value)],
                    els: vec![],
                }]
            }
            10 => vec![self.swap_loop(cx, nest)],
            11 => vec![self.diamond(cx, nest)],
            12 => self.copy_chain(cx),
            13 => self.loop_exit_values(cx, nest),
            14 => self.struct_copy(cx),
            15 => self.forward_goto(cx, nest),
            _ => {
                let lhs = self.writable_place(cx);
                let a = self.expr(cx, 2);
                let mut b = self.expr(cx, 1);
                if !reads_memory_or_variables(&b) {
                    // A constant divisor that folds to 0 would make gcc warn about the
                    // (never executed) division.
                    b = Expr::bin(BinOp::Xor, b, Expr::Load(Box::new(self.readable_place(cx))));
                }
                let rem = self.rng.chance(30);
                vec![Stmt::GuardedDiv { lhs, a, b, rem }]
            }
        }
    }

    fn assign(&mut self, cx: &mut FnCtx) -> Stmt {
        let lhs = self.writable_place(cx);
        let op = match self.rng.below(10) {
            0..=4 => AssignOp::Set,
            _ => self.rng.pick(&[
                AssignOp::Add,
                AssignOp::Sub,
                AssignOp::Mul,
                AssignOp::Div,
                AssignOp::Rem,
                AssignOp::And,
                AssignOp::Or,
                AssignOp::Xor,
                AssignOp::Shl,
                AssignOp::Shr,
            ]),
        };
        let rhs = self.expr(cx, self.pol.expr_depth);
        Stmt::Assign { lhs, op, rhs }
    }

    /// `dst = src;` between two objects of one struct type (the same object is allowed:
    /// exact overlap is defined).
    fn struct_copy(&mut self, cx: &mut FnCtx) -> Vec<Stmt> {
        let k = self.rng.below(self.prog.structs.len() as u64) as usize;
        let vars: Vec<Var> = cx.vars.iter().filter(|v| v.assignable()).cloned().collect();
        let want = Ty::Struct(k);
        let subs = self.subobjects(&vars, &|t| *t == want);
        if subs.is_empty() {
            return vec![self.assign(cx)];
        }
        let (d, dp, _) = self.rng.choose(&subs).clone();
        let (r, rp, _) = self.rng.choose(&subs).clone();
        let dst = self.instantiate(cx, &d, &dp);
        let src = self.instantiate(cx, &r, &rp);
        vec![Stmt::Copy { dst, src }]
    }

    /// `if (rare) goto L; ...statements...; L: ;` in one statement list.
    fn forward_goto(&mut self, cx: &mut FnCtx, nest: u32) -> Vec<Stmt> {
        let label = self.fresh("L");
        let cond = self.rare_cond(cx);
        let mut out = vec![Stmt::If {
            cond,
            then: vec![Stmt::Goto(label.clone())],
            els: vec![],
        }];
        let n = self.rng.range(1, 3) as u32;
        out.extend(self.block(cx, n, nest + 1));
        out.push(Stmt::Label(label));
        out
    }

    fn cond(&mut self, cx: &FnCtx) -> Expr {
        let a = self.expr(cx, 2);
        if self.rng.chance(70) {
            let b = self.expr(cx, 1);
            let op = self.rng.pick(&[
                BinOp::Lt,
                BinOp::Le,
                BinOp::Gt,
                BinOp::Ge,
                BinOp::Eq,
                BinOp::Ne,
            ]);
            Expr::bin(op, a, b)
        } else {
            a
        }
    }

    /// A condition true about once in 4-16 evaluations (`(e & 7) == 3`): early exits that
    /// do not cut every loop short.
    fn rare_cond(&mut self, cx: &FnCtx) -> Expr {
        let mask = self.rng.pick(&[3i64, 7, 15]);
        let e = self.expr(cx, 2);
        let k = self.rng.range(0, mask);
        Expr::bin(
            BinOp::Eq,
            Expr::bin(BinOp::And, e, Expr::int(mask)),
            Expr::int(k),
        )
    }

    fn if_stmt(&mut self, cx: &mut FnCtx, nest: u32) -> Stmt {
        let cond = self.cond(cx);
        let n = self.rng.range(1, 3) as u32;
        let then = self.block(cx, n, nest + 1);
        let els = if self.rng.chance(50) {
            let n = self.rng.range(1, 3) as u32;
            self.block(cx, n, nest + 1)
        } else {
            Vec::new()
        };
        Stmt::If { cond, then, els }
    }

    /// Trip count for a new loop that fits the remaining budget.
    fn trips(&mut self, cx: &FnCtx) -> u32 {
        let max = (cx.room() / cx.mult.max(1) / 4).clamp(1, 100) as i64;
        let want = match self.rng.below(10) {
            0..=5 => self.rng.range(2, 10),
            6..=8 => self.rng.range(10, 30),
            _ => self.rng.range(30, 100),
        };
        want.min(max) as u32
    }

    /// A counted loop; `body` (if given) is generated by the caller's pattern instead of
    /// random statements.
    fn loop_stmt(&mut self, cx: &mut FnCtx, nest: u32, pattern: Option<&mut Pattern<'_>>) -> Stmt {
        let bound = self.trips(cx);
        let kind = self.rng.pick(&[
            LoopKind::For,
            LoopKind::For,
            LoopKind::ForDown,
            LoopKind::While,
            LoopKind::DoWhile,
        ]);
        let step = if kind == LoopKind::For && self.rng.chance(25) {
            self.rng.range(2, 3) as u32
        } else {
            1
        };
        let counter_ty = if self.pol.features.narrow_types {
            self.rng.pick(&[
                Scalar::I32,
                Scalar::I32,
                Scalar::U32,
                Scalar::I16,
                Scalar::U8,
            ])
        } else {
            Scalar::I32
        };
        // An irreducible loop: a jump into the middle of a while loop's body. The condition
        // is built before the counter exists.
        let side_entry =
            (kind == LoopKind::While && self.pol.features.gotos && self.rng.chance(40))
                .then(|| (self.cond(cx), self.fresh("E")));
        let counter = self.fresh("i");
        let mut l = Loop {
            kind,
            counter: counter.clone(),
            counter_ty,
            bound,
            step,
            body: Vec::new(),
            side_entry,
        };
        cx.vars.push(Var {
            name: counter,
            ty: Ty::Scalar(counter_ty),
            kind: Kind::Counter,
            volatile: false,
        });
        let saved_mult = cx.mult;
        let saved_step = cx.walk_step.take();
        cx.mult = cx.mult.saturating_mul(l.trips().max(1));
        cx.loop_depth += 1;
        let work_before = cx.work;
        l.body = match pattern {
            Some(p) => p(self, cx),
            None => {
                let n = self.rng.range(1, 4) as u32;
                self.block(cx, n, nest + 1)
            }
        };
        // Patterns build statements directly: count every statement of the body at least
        // once per iteration.
        let body_stmts = l.body.len() as u64;
        cx.work = cx
            .work
            .max(work_before.saturating_add(cx.mult.saturating_mul(body_stmts)));
        if let Some((_, label)) = &l.side_entry {
            let at = self.rng.below(l.body.len() as u64 + 1) as usize;
            l.body.insert(at, Stmt::Label(label.clone()));
        }
        cx.loop_depth -= 1;
        cx.mult = saved_mult;
        cx.walk_step = saved_step;
        // Not `pop`: the body may have declared locals (they live at function scope).
        cx.vars.retain(|v| v.name != l.counter);
        Stmt::Loop(Box::new(l))
    }

    fn switch(&mut self, cx: &mut FnCtx, nest: u32) -> Stmt {
        let mask = self.rng.pick(&[3i64, 7, 15]);
        let e = self.expr(cx, 2);
        let scrutinee = if self.rng.chance(80) {
            Expr::bin(BinOp::And, e, Expr::int(mask))
        } else {
            e
        };
        let ncases = self.rng.range(2, 6);
        let mut labels: Vec<i64> = Vec::new();
        while labels.len() < ncases as usize {
            let l = if self.rng.chance(90) {
                self.rng.range(0, mask)
            } else {
                self.rng.range(-3, 40)
            };
            if !labels.contains(&l) {
                labels.push(l);
            }
        }
        cx.switch_depth += 1;
        let mut cases = Vec::new();
        for label in labels {
            let n = self.rng.range(0, 2) as u32;
            let body = self.block(cx, n, nest + 1);
            let brk = self.rng.chance(60);
            cases.push(Case { label, body, brk });
        }
        let default = if self.rng.chance(70) {
            let n = self.rng.range(1, 2) as u32;
            Some(self.block(cx, n, nest + 1))
        } else {
            None
        };
        cx.switch_depth -= 1;
        Stmt::Switch {
            scrutinee,
            cases,
            default,
        }
    }

    /// Places of array type with scalar elements that can be walked: (root, path template,
    /// element, length).
    fn walkable(&self, cx: &FnCtx) -> Vec<(String, Vec<TStep>, Scalar, u32)> {
        let vars: Vec<Var> = cx
            .vars
            .iter()
            .filter(|v| v.addressable())
            .cloned()
            .collect();
        self.subobjects(
            &vars,
            &|t| matches!(t, Ty::Array(e, _) | Ty::Ptr(e, _) if matches!(**e, Ty::Scalar(_))),
        )
        .into_iter()
        .filter_map(|(root, path, ty)| match ty {
            Ty::Array(e, n) | Ty::Ptr(e, n) => e.scalar().map(|s| (root, path, s, n)),
            _ => None,
        })
        .filter(|(_, _, _, n)| *n >= 2)
        .collect()
    }

    fn walk(&mut self, cx: &mut FnCtx, nest: u32) -> Stmt {
        let cands = self.walkable(cx);
        let (root, tpath, elem, len) = cands[self.rng.below(cands.len() as u64) as usize].clone();
        let array = self.instantiate(cx, &root, &tpath);
        let step_in_header = self.rng.chance(50);
        // Without the header step, a WalkStep may advance the pointer once per iteration,
        // after which the body may still read `*q`: one element must stay in reserve.
        let max = if step_in_header { len } else { len - 1 };
        let max = max.min((cx.room() / cx.mult.max(1) / 4).max(1) as u32);
        let count = self.rng.range(1, max as i64) as u32;
        let ptr = self.fresh("q");
        let counter = self.fresh("i");
        cx.vars.push(Var {
            name: counter.clone(),
            ty: Ty::Scalar(Scalar::I32),
            kind: Kind::Counter,
            volatile: false,
        });
        cx.walk_ptrs.push((ptr.clone(), elem));
        let saved_mult = cx.mult;
        let saved_step = cx.walk_step.take();
        if !step_in_header {
            cx.walk_step = Some((ptr.clone(), elem));
        }
        cx.mult = cx.mult.saturating_mul(count as u64);
        cx.loop_depth += 1;
        let n = self.rng.range(1, 4) as u32;
        let body = self.block(cx, n, nest + 1);
        cx.loop_depth -= 1;
        cx.mult = saved_mult;
        cx.walk_step = saved_step;
        cx.walk_ptrs.pop();
        cx.vars.retain(|v| v.name != counter);
        Stmt::Walk(Box::new(Walk {
            ptr,
            elem,
            array,
            count,
            counter,
            step_in_header,
            body,
        }))
    }

    /// `x op= *q++` or `*q++ = e`; at most one per walk body.
    fn walk_step(&mut self, cx: &mut FnCtx) -> Stmt {
        let (ptr, _) = cx.walk_step.take().expect("weight is zero without a walk");
        let dsts: Vec<String> = cx
            .vars
            .iter()
            .filter(|v| {
                matches!(v.kind, Kind::Local | Kind::Param) && matches!(v.ty, Ty::Scalar(_))
            })
            .map(|v| v.name.clone())
            .collect();
        if !dsts.is_empty() && self.rng.chance(60) {
            let dst = self.rng.choose(&dsts).clone();
            let op = self.rng.pick(&[
                AssignOp::Set,
                AssignOp::Add,
                AssignOp::Sub,
                AssignOp::Xor,
                AssignOp::Or,
                AssignOp::And,
            ]);
            Stmt::WalkStep {
                ptr,
                step: WalkStep::Read { dst, op },
            }
        } else {
            // The value must not read through the pointer being advanced.
            let mut e = self.expr(cx, 2);
            if mentions_deref(&e, &ptr) {
                e = self.const_of(Scalar::I32);
            }
            Stmt::WalkStep {
                ptr,
                step: WalkStep::Write(e),
            }
        }
    }

    fn callees(&self, cx: &FnCtx) -> Vec<String> {
        self.prog
            .funcs
            .iter()
            .filter(|f| {
                let c = self.cost.get(&f.name).copied().unwrap_or(u64::MAX);
                c.saturating_mul(cx.mult) <= cx.room()
            })
            .map(|f| f.name.clone())
            .collect()
    }

    /// A call of `name`; `self_sig` is the signature when a recursive function calls itself.
    fn call_to(&mut self, cx: &mut FnCtx, name: &str, self_sig: Option<&Func>) -> Stmt {
        let callee = match self_sig {
            Some(f) => f.clone(),
            None => self
                .prog
                .func(name)
                .cloned()
                .expect("callees are generated before callers"),
        };
        let is_self = self_sig.is_some();
        if !is_self {
            let c = self.cost.get(name).copied().unwrap_or(1);
            cx.work = cx.work.saturating_add(c.saturating_mul(cx.mult));
        } else {
            cx.self_calls += 1;
        }
        let mut args = Vec::new();
        for p in &callee.params {
            let arg = if p.name == DEPTH {
                if is_self {
                    Arg::DepthMinusOne
                } else {
                    Arg::Depth(self.rng.range(0, MAX_DEPTH as i64) as u32)
                }
            } else {
                match &p.ty {
                    Ty::Ptr(elem, extent) => self.pointer_arg(cx, elem, *extent),
                    _ => Arg::Value(self.expr(cx, 2)),
                }
            };
            args.push(arg);
        }
        let dst = match callee.ret {
            Some(_) if self.rng.chance(85) => self.call_destination(cx),
            _ => None,
        };
        Stmt::Call {
            dst,
            func: name.to_string(),
            args,
        }
    }

    /// A local scalar to receive a call's result (never a counter, never indexed: the
    /// callee cannot change it through the left-hand side).
    fn call_destination(&mut self, cx: &mut FnCtx) -> Option<String> {
        let dsts: Vec<String> = cx
            .vars
            .iter()
            .filter(|v| {
                matches!(v.kind, Kind::Local | Kind::Param) && matches!(v.ty, Ty::Scalar(_))
            })
            .map(|v| v.name.clone())
            .collect();
        if dsts.is_empty() || self.rng.chance(20) {
            let ty = Ty::Scalar(self.scalar_type());
            return Some(self.add_local(cx, ty));
        }
        Some(self.rng.choose(&dsts).clone())
    }

    /// An argument for a pointer parameter to `extent` objects of type `elem`.
    fn pointer_arg(&mut self, cx: &FnCtx, elem: &Ty, extent: u32) -> Arg {
        let vars: Vec<Var> = cx
            .vars
            .iter()
            .filter(|v| v.addressable())
            .cloned()
            .collect();
        let want = elem.clone();
        let subs = self.subobjects(&vars, &|t| match t {
            Ty::Array(e, n) | Ty::Ptr(e, n) => **e == want && *n >= extent,
            t => extent == 1 && *t == want,
        });
        // Never empty: the parameter type was chosen from an addressable global sub-object.
        assert!(!subs.is_empty(), "no argument for a pointer parameter");
        let (root, tpath, _) = subs[self.rng.below(subs.len() as u64) as usize].clone();
        Arg::Addr(self.instantiate(cx, &root, &tpath))
    }
}

fn set(name: &str, e: Expr) -> Stmt {
    Stmt::Assign {
        lhs: Place::var(name),
        op: AssignOp::Set,
        rhs: e,
    }
}

/// `crc = crc * 33u ^ (unsigned)e`.
fn mix(crc: &str, e: Expr) -> Stmt {
    set(
        crc,
        Expr::bin(
            BinOp::Xor,
            Expr::bin(
                BinOp::Mul,
                Expr::load_var(crc),
                Expr::Const(33, Scalar::U32),
            ),
            Expr::Cast(Scalar::U32, Box::new(e)),
        ),
    )
}

fn cast_to(e: Expr, s: Scalar) -> Expr {
    Expr::Cast(s, Box::new(e))
}

/// Whether `e` reads `*q`.
fn mentions_deref(e: &Expr, q: &str) -> bool {
    match e {
        Expr::Const(..) => false,
        Expr::Load(p) => {
            matches!(&p.root, Root::Deref(n) if n == q)
                || p.path.iter().any(|s| match s {
                    Step::Index(i) => mentions_deref(i, q),
                    Step::Field(_) => false,
                })
        }
        Expr::Cast(_, a) | Expr::Unary(_, a) => mentions_deref(a, q),
        Expr::Binary(_, a, b) => mentions_deref(a, q) || mentions_deref(b, q),
        Expr::Cond(c, a, b) => mentions_deref(c, q) || mentions_deref(a, q) || mentions_deref(b, q),
        Expr::Intrinsic(_, args) => args.iter().any(|a| mentions_deref(a, q)),
    }
}

/// Whether `e` reads any variable (is not a constant expression).
fn reads_memory_or_variables(e: &Expr) -> bool {
    match e {
        Expr::Const(..) => false,
        Expr::Load(_) => true,
        Expr::Cast(_, a) | Expr::Unary(_, a) => reads_memory_or_variables(a),
        Expr::Binary(_, a, b) => reads_memory_or_variables(a) || reads_memory_or_variables(b),
        Expr::Cond(c, a, b) => [c, a, b].iter().any(|x| reads_memory_or_variables(x)),
        Expr::Intrinsic(_, args) => args.iter().any(reads_memory_or_variables),
    }
}
