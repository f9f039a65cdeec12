//! The random program generator's tree: a small C program whose *meaning* is wrapping
//! arithmetic, masked indices, guarded divisions and masked shifts.
//!
//! The tree says what to compute, not how to write it safely: [`super::emit`] turns every node
//! into C that has no undefined behaviour, deciding guards from the types and value ranges of
//! the operands (e.g. a signed `+` whose operands may overflow is written through `unsigned`).
//! So *any* tree that is well scoped emits UB-free C — which is what lets the reducer delete
//! statements and replace expressions freely: every candidate is still free of undefined
//! behaviour by construction.
//!
//! Structural invariants the generator keeps and the reducer preserves (the emitter relies on
//! them for termination and bounds):
//! * loop counters ([`Loop::counter`]) are assigned only by their loop header; loop bounds are
//!   constants, so every loop ends;
//! * a walk pointer ([`Walk`]) advances at most once per iteration of its walk (in the header,
//!   or by one [`Stmt::WalkStep`] outside any nested loop), so it stays inside its array;
//! * calls are statements (never inside expressions), so evaluation order never matters;
//! * recursion goes through a `depth` parameter that every self-call decrements and that
//!   callers set to a small constant.
//!
//! Names are strings, unique within their scope (`g*` globals, `p*` parameters, `l*` locals,
//! `i*` counters, `q*` walk pointers, `f*` functions).

/// The integer types of the subset (ILP32: `int` and `unsigned` are 32 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
}

impl Scalar {
    pub const ALL: [Scalar; 6] = [
        Scalar::I8,
        Scalar::U8,
        Scalar::I16,
        Scalar::U16,
        Scalar::I32,
        Scalar::U32,
    ];

    pub fn c_name(self) -> &'static str {
        match self {
            Scalar::I8 => "signed char",
            Scalar::U8 => "unsigned char",
            Scalar::I16 => "short",
            Scalar::U16 => "unsigned short",
            Scalar::I32 => "int",
            Scalar::U32 => "unsigned",
        }
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Scalar::I8 | Scalar::I16 | Scalar::I32)
    }

    pub fn min(self) -> i64 {
        match self {
            Scalar::I8 => i8::MIN as i64,
            Scalar::I16 => i16::MIN as i64,
            Scalar::I32 => i32::MIN as i64,
            _ => 0,
        }
    }

    pub fn max(self) -> i64 {
        match self {
            Scalar::I8 => i8::MAX as i64,
            Scalar::U8 => u8::MAX as i64,
            Scalar::I16 => i16::MAX as i64,
            Scalar::U16 => u16::MAX as i64,
            Scalar::I32 => i32::MAX as i64,
            Scalar::U32 => u32::MAX as i64,
        }
    }

    /// The type after the integer promotions (C99 6.3.1.1).
    pub fn promoted(self) -> Scalar {
        if self == Scalar::U32 {
            Scalar::U32
        } else {
            Scalar::I32
        }
    }

    /// The common type of the usual arithmetic conversions (C99 6.3.1.8) for these types.
    pub fn usual(a: Scalar, b: Scalar) -> Scalar {
        if a.promoted() == Scalar::U32 || b.promoted() == Scalar::U32 {
            Scalar::U32
        } else {
            Scalar::I32
        }
    }

    /// `v` converted to this type (modulo 2^bits, as gcc and ssalab define it).
    pub fn wrap(self, v: i64) -> i64 {
        match self {
            Scalar::I8 => v as i8 as i64,
            Scalar::U8 => v as u8 as i64,
            Scalar::I16 => v as i16 as i64,
            Scalar::U16 => v as u16 as i64,
            Scalar::I32 => v as i32 as i64,
            Scalar::U32 => v as u32 as i64,
        }
    }
}

/// A type of an object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    Scalar(Scalar),
    /// An array; the length is a power of two (indices are masked with `len - 1`).
    Array(Box<Ty>, u32),
    /// A struct, by index into [`Program::structs`].
    Struct(usize),
    /// A pointer parameter to `extent` consecutive objects of the element type (a power of
    /// two). Only parameters have pointer type; callers pass arrays or addresses of objects.
    Ptr(Box<Ty>, u32),
}

impl Ty {
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Ty::Scalar(s) => Some(*s),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructDef {
    pub name: String,
    pub fields: Vec<Field>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub ty: Ty,
}

/// An initialiser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Init {
    /// No initialiser (globals and parameters only: zero, or the argument).
    None,
    /// A scalar initialised by an expression (constants for globals).
    Expr(Expr),
    /// A brace list (arrays and structs); missing trailing elements are zero.
    List(Vec<Init>),
}

/// A declaration of a global, a parameter or a local.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decl {
    pub name: String,
    pub ty: Ty,
    pub init: Init,
    pub volatile: bool,
    /// A `static` local (its initialiser is constant; it keeps its value between calls).
    pub is_static: bool,
}

impl Decl {
    /// A plain declaration (not volatile, not static).
    pub fn new(name: &str, ty: Ty, init: Init) -> Decl {
        Decl {
            name: name.to_string(),
            ty,
            init,
            volatile: false,
            is_static: false,
        }
    }
}

/// An object reference: a root variable and a path of indexing and member selection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub root: Root,
    pub path: Vec<Step>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Root {
    /// A global, parameter, local or loop counter.
    Var(String),
    /// `*q` for the walk pointer `q`.
    Deref(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `[e & (len - 1)]` (the mask is left out when `e` is known to be in range).
    Index(Box<Expr>),
    /// `.name` (the field's index in its struct).
    Field(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    BitNot,
    LogNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    LogAnd,
    LogOr,
}

impl BinOp {
    pub fn c_op(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::LogAnd => "&&",
            BinOp::LogOr => "||",
        }
    }

    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        )
    }
}

/// A side-effect-free expression (calls are statements; only [`Stmt::WalkStep`] increments).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// A constant of type `int` or `unsigned` (the value is within the type).
    Const(i64, Scalar),
    Load(Box<Place>),
    Cast(Scalar, Box<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A call of one of `ssalab.h`'s DSP helpers: pure functions of their `int` arguments,
    /// defined for every value, so they may sit inside expressions.
    Intrinsic(Intrinsic, Vec<Expr>),
}

/// The DSP helpers of `ssalab.h` (isa.md B4): all take and return `int`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Intrinsic {
    Addp,
    Subp,
    Mpy,
    Mpyhh,
    Mac,
    Msu,
    Machh,
    Pack,
    Lo,
    Hi,
}

impl Intrinsic {
    pub const ALL: [Intrinsic; 10] = [
        Intrinsic::Addp,
        Intrinsic::Subp,
        Intrinsic::Mpy,
        Intrinsic::Mpyhh,
        Intrinsic::Mac,
        Intrinsic::Msu,
        Intrinsic::Machh,
        Intrinsic::Pack,
        Intrinsic::Lo,
        Intrinsic::Hi,
    ];

    pub fn c_name(self) -> &'static str {
        match self {
            Intrinsic::Addp => "__st_addp",
            Intrinsic::Subp => "__st_subp",
            Intrinsic::Mpy => "__st_mpy",
            Intrinsic::Mpyhh => "__st_mpyhh",
            Intrinsic::Mac => "__st_mac",
            Intrinsic::Msu => "__st_msu",
            Intrinsic::Machh => "__st_machh",
            Intrinsic::Pack => "__st_pack",
            Intrinsic::Lo => "__st_lo",
            Intrinsic::Hi => "__st_hi",
        }
    }

    pub fn arity(self) -> usize {
        match self {
            Intrinsic::Lo | Intrinsic::Hi => 1,
            Intrinsic::Mac | Intrinsic::Msu | Intrinsic::Machh => 3,
            _ => 2,
        }
    }
}

impl Expr {
    pub fn int(v: i64) -> Expr {
        Expr::Const(v, Scalar::I32)
    }

    pub fn load_var(name: &str) -> Expr {
        Expr::Load(Box::new(Place::var(name)))
    }

    pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Binary(op, Box::new(a), Box::new(b))
    }

    /// Number of nodes (for size limits and statistics).
    pub fn size(&self) -> usize {
        match self {
            Expr::Const(..) => 1,
            Expr::Load(p) => 1 + p.index_size(),
            Expr::Cast(_, e) | Expr::Unary(_, e) => 1 + e.size(),
            Expr::Binary(_, a, b) => 1 + a.size() + b.size(),
            Expr::Cond(c, a, b) => 1 + c.size() + a.size() + b.size(),
            Expr::Intrinsic(_, args) => 1 + args.iter().map(Expr::size).sum::<usize>(),
        }
    }
}

impl Place {
    pub fn var(name: &str) -> Place {
        Place {
            root: Root::Var(name.to_string()),
            path: Vec::new(),
        }
    }

    fn index_size(&self) -> usize {
        self.path
            .iter()
            .map(|s| match s {
                Step::Index(e) => e.size(),
                Step::Field(_) => 0,
            })
            .sum()
    }
}

/// Assignment operators; `Set` is plain `=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignOp {
    Set,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

impl AssignOp {
    /// The binary operator of a compound assignment.
    pub fn bin_op(self) -> Option<BinOp> {
        Some(match self {
            AssignOp::Set => return None,
            AssignOp::Add => BinOp::Add,
            AssignOp::Sub => BinOp::Sub,
            AssignOp::Mul => BinOp::Mul,
            AssignOp::Div => BinOp::Div,
            AssignOp::Rem => BinOp::Rem,
            AssignOp::And => BinOp::And,
            AssignOp::Or => BinOp::Or,
            AssignOp::Xor => BinOp::Xor,
            AssignOp::Shl => BinOp::Shl,
            AssignOp::Shr => BinOp::Shr,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopKind {
    /// `for (T i = 0; i < N; i += step)`.
    For,
    /// `for (T i = N; i > 0; i--)`.
    ForDown,
    /// `{ T i = 0; while (i < N) { i++; ... } }` (incremented first, so `continue` is safe).
    While,
    /// `{ T i = 0; do { i++; ... } while (i < N); }`.
    DoWhile,
}

/// A counted loop with a constant bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    pub kind: LoopKind,
    pub counter: String,
    pub counter_ty: Scalar,
    /// 1..=100 (every counter type holds `bound + step`).
    pub bound: u32,
    /// 1..=3, used by [`LoopKind::For`] only.
    pub step: u32,
    pub body: Vec<Stmt>,
    /// A second entry into the middle of the body (an irreducible loop): for a
    /// [`LoopKind::While`] loop, `if (cond) goto L;` just before the loop, where `L` is a
    /// [`Stmt::Label`] at the top level of the body. The counter is declared and set before
    /// that `goto`, so the loop still ends; ignored for other kinds.
    pub side_entry: Option<(Expr, String)>,
}

impl Loop {
    /// How many times the body runs (without `break`).
    pub fn trips(&self) -> u64 {
        match self.kind {
            LoopKind::For => (self.bound as u64).div_ceil(self.step.max(1) as u64),
            _ => self.bound as u64,
        }
    }

    /// The counter's value range anywhere in the body.
    pub fn counter_range(&self) -> (i64, i64) {
        match self.kind {
            LoopKind::For => (0, self.bound as i64 - 1),
            // Entered from the side, the body sees the counter's initial 0.
            LoopKind::While if self.has_side_entry() => (0, self.bound as i64),
            LoopKind::ForDown | LoopKind::While | LoopKind::DoWhile => (1, self.bound as i64),
        }
    }

    /// Whether the loop is emitted with its side entry.
    pub fn has_side_entry(&self) -> bool {
        self.kind == LoopKind::While && self.side_entry.is_some()
    }
}

/// A pointer walk over `count` elements of an array:
/// `{ T *q = ARRAY; for (int i = 0; i < count; i++[, q++]) { body } }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walk {
    pub ptr: String,
    pub elem: Scalar,
    /// A place of array type (decays to the pointer to its first element).
    pub array: Place,
    /// `1..=` the array's length.
    pub count: u32,
    pub counter: String,
    /// `q++` in the loop header; otherwise only a [`Stmt::WalkStep`] advances `q`.
    pub step_in_header: bool,
    pub body: Vec<Stmt>,
}

/// `dst op= *q++` or `*q++ = e`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WalkStep {
    /// `op` is one of `Set`, `Add`, `Sub`, `And`, `Or`, `Xor` (the right-hand side is never
    /// duplicated by a guard).
    Read { dst: String, op: AssignOp },
    /// The expression does not mention the walk pointer.
    Write(Expr),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub label: i64,
    pub body: Vec<Stmt>,
    /// `break;` at the end; otherwise control falls through to the next case.
    pub brk: bool,
}

/// A call argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    Value(Expr),
    /// An object passed to a pointer parameter: an array (decays) or `&object`.
    Addr(Place),
    /// `depth - 1u` (a self-call of a recursive function).
    DepthMinusOne,
    /// A constant recursion depth from a caller (0..=[`MAX_DEPTH`]).
    Depth(u32),
}

/// The largest recursion depth a caller passes.
pub const MAX_DEPTH: u32 = 3;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    Assign {
        lhs: Place,
        op: AssignOp,
        rhs: Expr,
    },
    /// `dst = f(args);` (`dst` a local scalar) or `f(args);`.
    Call {
        dst: Option<String>,
        func: String,
        args: Vec<Arg>,
    },
    If {
        cond: Expr,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
    Loop(Box<Loop>),
    Walk(Box<Walk>),
    WalkStep {
        ptr: String,
        step: WalkStep,
    },
    Switch {
        scrutinee: Expr,
        cases: Vec<Case>,
        default: Option<Vec<Stmt>>,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    /// `print_int(e); print_char('\n');`
    Print(Expr),
    /// Struct assignment `dst = src;` (both of the same struct type).
    Copy {
        dst: Place,
        src: Place,
    },
    /// `goto L;` to a [`Stmt::Label`] later in the same statement list (forward only, so
    /// every loop still ends).
    Goto(String),
    /// `L: ;`
    Label(String),
    /// `if (b > 0) lhs = a / b;` (`b != 0u` when the division is unsigned; `%` if `rem`): a
    /// division that is safe only under its condition, which optimisations must not hoist out
    /// of it (the interpreter traps on division by zero).
    GuardedDiv {
        lhs: Place,
        a: Expr,
        b: Expr,
        rem: bool,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Func {
    pub name: String,
    pub ret: Option<Scalar>,
    /// A recursive function's first parameter is `unsigned depth`; it returns `base` when
    /// `depth == 0`.
    pub recursive: bool,
    pub params: Vec<Decl>,
    pub locals: Vec<Decl>,
    pub base: Option<Expr>,
    pub body: Vec<Stmt>,
    /// The final `return` (non-void functions).
    pub ret_expr: Option<Expr>,
}

/// Name of a recursive function's depth parameter.
pub const DEPTH: &str = "depth";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub seed: u64,
    pub structs: Vec<StructDef>,
    pub globals: Vec<Decl>,
    /// Callees come before callers; `main` is last.
    pub funcs: Vec<Func>,
}

impl Program {
    pub fn func(&self, name: &str) -> Option<&Func> {
        self.funcs.iter().find(|f| f.name == name)
    }
}

// ---------------------------------------------------------------------------------------------
// Traversals (the reducer's and the statistics' view of the tree).

/// Calls `f` on every statement list, outer lists before the lists nested in them.
pub fn for_each_list(prog: &mut Program, f: &mut dyn FnMut(&mut Vec<Stmt>)) {
    for func in &mut prog.funcs {
        lists_in(&mut func.body, f);
    }
}

fn lists_in(list: &mut Vec<Stmt>, f: &mut dyn FnMut(&mut Vec<Stmt>)) {
    f(list);
    for s in list.iter_mut() {
        match s {
            Stmt::If { then, els, .. } => {
                lists_in(then, f);
                lists_in(els, f);
            }
            Stmt::Loop(l) => lists_in(&mut l.body, f),
            Stmt::Walk(w) => lists_in(&mut w.body, f),
            Stmt::Switch { cases, default, .. } => {
                for c in cases {
                    lists_in(&mut c.body, f);
                }
                if let Some(d) = default {
                    lists_in(d, f);
                }
            }
            _ => {}
        }
    }
}

/// Calls `f` on every statement (pre-order).
pub fn for_each_stmt(prog: &Program, f: &mut dyn FnMut(&Stmt)) {
    fn walk(list: &[Stmt], f: &mut dyn FnMut(&Stmt)) {
        for s in list {
            f(s);
            match s {
                Stmt::If { then, els, .. } => {
                    walk(then, f);
                    walk(els, f);
                }
                Stmt::Loop(l) => walk(&l.body, f),
                Stmt::Walk(w) => walk(&w.body, f),
                Stmt::Switch { cases, default, .. } => {
                    for c in cases {
                        walk(&c.body, f);
                    }
                    if let Some(d) = default {
                        walk(d, f);
                    }
                }
                _ => {}
            }
        }
    }
    for func in &prog.funcs {
        walk(&func.body, f);
    }
}

/// Calls `f` on every expression root slot of the program (initialisers, conditions, right-hand
/// sides, indices, arguments, returns), in program order. `f` sees each root once; nested
/// expressions are reached through [`for_each_expr_node`].
pub fn for_each_expr_root(prog: &mut Program, f: &mut dyn FnMut(&mut Expr)) {
    for g in &mut prog.globals {
        init_exprs(&mut g.init, f);
    }
    for func in &mut prog.funcs {
        for d in &mut func.locals {
            init_exprs(&mut d.init, f);
        }
        if let Some(b) = &mut func.base {
            f(b);
        }
        stmt_list_exprs(&mut func.body, f);
        if let Some(r) = &mut func.ret_expr {
            f(r);
        }
    }
}

fn init_exprs(init: &mut Init, f: &mut dyn FnMut(&mut Expr)) {
    match init {
        Init::None => {}
        Init::Expr(e) => f(e),
        Init::List(items) => {
            for i in items {
                init_exprs(i, f);
            }
        }
    }
}

fn place_exprs(p: &mut Place, f: &mut dyn FnMut(&mut Expr)) {
    for s in &mut p.path {
        if let Step::Index(e) = s {
            f(e);
        }
    }
}

fn stmt_list_exprs(list: &mut [Stmt], f: &mut dyn FnMut(&mut Expr)) {
    for s in list {
        match s {
            Stmt::Assign { lhs, rhs, .. } => {
                place_exprs(lhs, f);
                f(rhs);
            }
            Stmt::Call { args, .. } => {
                for a in args {
                    match a {
                        Arg::Value(e) => f(e),
                        Arg::Addr(p) => place_exprs(p, f),
                        Arg::DepthMinusOne | Arg::Depth(_) => {}
                    }
                }
            }
            Stmt::If { cond, then, els } => {
                f(cond);
                stmt_list_exprs(then, f);
                stmt_list_exprs(els, f);
            }
            Stmt::Loop(l) => {
                if let Some((cond, _)) = &mut l.side_entry {
                    f(cond);
                }
                stmt_list_exprs(&mut l.body, f);
            }
            Stmt::Walk(w) => {
                place_exprs(&mut w.array, f);
                stmt_list_exprs(&mut w.body, f);
            }
            Stmt::WalkStep { step, .. } => {
                if let WalkStep::Write(e) = step {
                    f(e);
                }
            }
            Stmt::Switch {
                scrutinee,
                cases,
                default,
            } => {
                f(scrutinee);
                for c in cases {
                    stmt_list_exprs(&mut c.body, f);
                }
                if let Some(d) = default {
                    stmt_list_exprs(d, f);
                }
            }
            Stmt::Return(Some(e)) | Stmt::Print(e) => f(e),
            Stmt::Copy { dst, src } => {
                place_exprs(dst, f);
                place_exprs(src, f);
            }
            Stmt::GuardedDiv { lhs, a, b, .. } => {
                place_exprs(lhs, f);
                f(a);
                f(b);
            }
            Stmt::Return(None) | Stmt::Break | Stmt::Continue | Stmt::Goto(_) | Stmt::Label(_) => {}
        }
    }
}

/// Calls `f` on every expression node, parents before children (index expressions of loads
/// included).
pub fn for_each_expr_node(prog: &mut Program, f: &mut dyn FnMut(&mut Expr)) {
    for_each_expr_root(prog, &mut |e| expr_nodes(e, f));
}

/// [`for_each_expr_node`] over one statement list.
pub fn for_each_expr_node_in(list: &mut [Stmt], f: &mut dyn FnMut(&mut Expr)) {
    stmt_list_exprs(list, &mut |e| expr_nodes(e, f));
}

fn expr_nodes(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    f(e);
    match e {
        Expr::Const(..) => {}
        Expr::Load(p) => place_exprs(p, &mut |i| expr_nodes(i, f)),
        Expr::Cast(_, a) | Expr::Unary(_, a) => expr_nodes(a, f),
        Expr::Binary(_, a, b) => {
            expr_nodes(a, f);
            expr_nodes(b, f);
        }
        Expr::Cond(c, a, b) => {
            expr_nodes(c, f);
            expr_nodes(a, f);
            expr_nodes(b, f);
        }
        Expr::Intrinsic(_, args) => {
            for a in args {
                expr_nodes(a, f);
            }
        }
    }
}

/// Whether the program mentions the name `name` anywhere (as a variable, pointer or callee).
pub fn mentions(prog: &Program, name: &str) -> bool {
    let mut found = false;
    let mut p = prog.clone();
    for_each_expr_node(&mut p, &mut |e| {
        if let Expr::Load(pl) = e {
            if root_name(&pl.root) == name {
                found = true;
            }
        }
    });
    if found {
        return true;
    }
    for g in &prog.globals {
        if init_mentions(&g.init, name) {
            return true;
        }
    }
    for_each_stmt(prog, &mut |s| match s {
        Stmt::Assign { lhs, .. } | Stmt::GuardedDiv { lhs, .. } if root_name(&lhs.root) == name => {
            found = true
        }
        Stmt::Call { dst, func, args } => {
            if func == name || dst.as_deref() == Some(name) {
                found = true;
            }
            for a in args {
                if let Arg::Addr(p) = a {
                    if root_name(&p.root) == name {
                        found = true;
                    }
                }
            }
        }
        Stmt::Walk(w) if root_name(&w.array.root) == name => found = true,
        Stmt::Copy { dst, src } if root_name(&dst.root) == name || root_name(&src.root) == name => {
            found = true
        }
        Stmt::WalkStep {
            step: WalkStep::Read { dst, .. },
            ..
        } if dst == name => found = true,
        _ => {}
    });
    found
}

fn init_mentions(init: &Init, name: &str) -> bool {
    match init {
        Init::None => false,
        Init::Expr(e) => {
            let mut e = e.clone();
            let mut found = false;
            expr_nodes(&mut e, &mut |x| {
                if let Expr::Load(p) = x {
                    if root_name(&p.root) == name {
                        found = true;
                    }
                }
            });
            found
        }
        Init::List(items) => items.iter().any(|i| init_mentions(i, name)),
    }
}

pub fn root_name(r: &Root) -> &str {
    match r {
        Root::Var(n) | Root::Deref(n) => n,
    }
}

/// Number of statements (all nesting levels).
pub fn count_stmts(prog: &Program) -> usize {
    let mut n = 0;
    for_each_stmt(prog, &mut |_| n += 1);
    n
}
