//! C text of a generated program, free of undefined behaviour by construction.
//!
//! The tree ([`super::ast`]) means wrapping arithmetic. This printer computes, bottom-up, the C
//! type and a conservative value interval of every expression and writes each operation in a
//! form that is defined for every value in those intervals:
//!
//! * signed `+ - *` and unary `-` whose exact result may leave `int` are computed in `unsigned`
//!   and converted back (`(int)((unsigned)a + (unsigned)b)`; the conversion is modulo 2^32 on
//!   gcc and ssalab, docs/c-subset.md), otherwise written plainly — so both forms occur;
//! * a divisor that may be zero (or `-1` with a dividend that may be `INT_MIN`) is guarded:
//!   `((b & 255) + 1)`, `(b != 0 ? b : 1)` or `(b | 1u)`;
//! * shift amounts not known to be in `0..=31` are masked with `& 31`; a left shift of a value
//!   that may be negative, or may overflow, is done in `unsigned`;
//! * array indices not known to be in bounds are masked with `len - 1` (lengths are powers of
//!   two);
//! * comparisons and `?:` between `int` and `unsigned` operands convert explicitly (the same
//!   meaning, without gcc's sign warnings).
//!
//! Complexity: linear in the size of the tree. Recursion depth is that of the tree, which the
//! generator bounds.

use super::ast::*;
use std::collections::HashMap;
use std::fmt::Write as _;

/// The C type and value interval of an expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Val {
    pub ty: Scalar,
    pub lo: i64,
    pub hi: i64,
}

impl Val {
    pub fn full(ty: Scalar) -> Val {
        Val {
            ty,
            lo: ty.min(),
            hi: ty.max(),
        }
    }

    fn exact(ty: Scalar, v: i64) -> Val {
        Val { ty, lo: v, hi: v }
    }

    /// A value of type `ty` in `[lo, hi]` if that fits the type, else the whole type.
    fn of(ty: Scalar, lo: i128, hi: i128) -> Val {
        if lo >= ty.min() as i128 && hi <= ty.max() as i128 && lo <= hi {
            Val {
                ty,
                lo: lo as i64,
                hi: hi as i64,
            }
        } else {
            Val::full(ty)
        }
    }

    /// This value converted to `ty` (modulo, so out-of-range intervals become the whole type).
    fn to(self, ty: Scalar) -> Val {
        Val::of(ty, self.lo as i128, self.hi as i128)
    }

    fn promoted(self) -> Val {
        self.to(self.ty.promoted())
    }

    fn contains(self, v: i64) -> bool {
        self.lo <= v && v <= self.hi
    }

    fn within(self, lo: i64, hi: i64) -> bool {
        lo <= self.lo && self.hi <= hi
    }

    fn max_abs(self) -> i128 {
        (self.lo as i128).abs().max((self.hi as i128).abs())
    }
}

/// What a name denotes.
#[derive(Clone, Debug)]
enum Sym {
    Object { ty: Ty },
    Counter { ty: Scalar, lo: i64, hi: i64 },
    WalkPtr { elem: Scalar },
}

/// Prints `prog` as C (including `ssalab.h`).
pub fn emit(prog: &Program) -> String {
    let mut e = Emitter {
        prog,
        syms: HashMap::new(),
        out: String::new(),
        indent: 0,
        lists: 0,
    };
    e.program();
    e.out
}

struct Emitter<'p> {
    prog: &'p Program,
    syms: HashMap<String, Sym>,
    out: String,
    indent: usize,
    /// Brace lists printed so far: with the seed, decides which are printed with designators.
    lists: u64,
}

/// `2^k - 1` for the smallest such value `>= v` (`v >= 0`).
fn ones_above(v: i128) -> i128 {
    let mut m: i128 = 0;
    while m < v {
        m = m * 2 + 1;
    }
    m
}

/// A constant in one of C's spellings, chosen from the value (deterministic): decimal, hex,
/// character constants, and unsuffixed hex that is `unsigned` because it does not fit `int`
/// (the front end must type every one of these as C99 6.4.4.1 says).
fn const_text(v: i64, ty: Scalar) -> String {
    match ty {
        Scalar::U32 if v > i32::MAX as i64 && v % 4 == 1 => format!("0x{v:X}"),
        Scalar::U32 if v % 5 == 2 => format!("0x{v:x}u"),
        Scalar::U32 => format!("{v}u"),
        _ if v == i32::MIN as i64 => "(-2147483647 - 1)".to_string(),
        _ if v < 0 && -v % 7 == 3 => format!("(-0x{:x})", -v),
        _ if v < 0 => format!("({v})"),
        _ if v > 9 && v % 7 == 3 => format!("0x{v:x}"),
        _ if (32..=126).contains(&v) && v != 39 && v != 92 && v % 2 == 0 => {
            format!("'{}'", v as u8 as char)
        }
        _ => format!("{v}"),
    }
}

impl<'p> Emitter<'p> {
    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn program(&mut self) {
        let p = self.prog;
        let _ = writeln!(
            self.out,
            "/* ssalab fuzz program: generator v{}, seed {} */",
            super::GENERATOR_VERSION,
            p.seed
        );
        self.out.push_str("#include \"ssalab.h\"\n\n");
        for s in &p.structs {
            self.out.push_str(&format!("struct {} {{\n", s.name));
            for f in &s.fields {
                let d = self.decl_text(&f.ty, &f.name);
                self.out.push_str(&format!("    {d};\n"));
            }
            self.out.push_str("};\n\n");
        }
        for g in &p.globals {
            self.syms
                .insert(g.name.clone(), Sym::Object { ty: g.ty.clone() });
        }
        for g in &p.globals {
            let text = self.decl_with_init(g, "static ");
            self.out.push_str(&text);
            self.out.push('\n');
        }
        self.out.push('\n');
        for f in &p.funcs {
            if f.name != "main" {
                let proto = self.signature(f);
                self.out.push_str(&format!("{proto};\n"));
            }
        }
        self.out.push('\n');
        for f in &p.funcs {
            self.function(f);
            self.out.push('\n');
        }
    }

    /// `T name[dims]` / `struct S name` / `T *name`.
    fn decl_text(&self, ty: &Ty, name: &str) -> String {
        let mut dims = String::new();
        let mut t = ty;
        while let Ty::Array(elem, n) = t {
            let _ = write!(dims, "[{n}]");
            t = elem;
        }
        match t {
            Ty::Scalar(s) => format!("{} {name}{dims}", s.c_name()),
            Ty::Struct(k) => format!("struct {} {name}{dims}", self.struct_name(*k)),
            Ty::Ptr(elem, _) => match &**elem {
                Ty::Scalar(s) => format!("{} *{name}{dims}", s.c_name()),
                Ty::Struct(k) => format!("struct {} *{name}{dims}", self.struct_name(*k)),
                // A pointer to rows: `T name[][m]`.
                row @ Ty::Array(..) => self.decl_text(row, &format!("{name}[]")),
                Ty::Ptr(..) => format!("int *{name}{dims}"),
            },
            Ty::Array(..) => unreachable!("stripped above"),
        }
    }

    fn struct_name(&self, k: usize) -> &str {
        self.prog
            .structs
            .get(k)
            .map(|s| s.name.as_str())
            .unwrap_or("S_missing")
    }

    fn decl_with_init(&mut self, d: &Decl, storage: &str) -> String {
        let vol = if d.volatile { "volatile " } else { "" };
        let storage = if d.is_static { "static " } else { storage };
        let mut s = format!("{storage}{vol}{}", self.decl_text(&d.ty, &d.name));
        match &d.init {
            Init::None => {}
            init => {
                let i = self.init_text(init, &d.ty);
                let _ = write!(s, " = {i}");
            }
        }
        s.push(';');
        s
    }

    fn init_text(&mut self, init: &Init, ty: &Ty) -> String {
        match init {
            Init::None => "0".to_string(),
            Init::Expr(e) => {
                let (t, v) = self.expr(e);
                // An explicit conversion when the value may not fit (no -Woverflow noise).
                match ty.scalar() {
                    Some(s) if !v.within(s.min(), s.max()) => {
                        format!("({})({t})", s.c_name())
                    }
                    _ => t,
                }
            }
            Init::List(items) => {
                let mut parts: Vec<String> = items
                    .iter()
                    .enumerate()
                    .map(|(i, it)| {
                        let elem_ty = self.element_type(ty, i);
                        self.init_text(it, &elem_ty)
                    })
                    .collect();
                if let Some(rotate) = self.designated_order(parts.len()) {
                    // Generator v2: the same elements, each with its designator, in an order
                    // rotated by `rotate` (C99 6.7.8: the meaning is unchanged).
                    for (i, part) in parts.iter_mut().enumerate() {
                        let d = match ty {
                            Ty::Struct(k) => self.prog.structs[*k]
                                .fields
                                .get(i)
                                .map(|f| format!(".{}", f.name))
                                .unwrap_or_default(),
                            _ => format!("[{i}]"),
                        };
                        *part = format!("{d} = {part}");
                    }
                    parts.rotate_left(rotate);
                }
                format!("{{ {} }}", parts.join(", "))
            }
        }
    }

    /// Whether the next brace list of `n` elements is printed with designators (about half of
    /// them, from the seed and the list's rank: SplitMix64's finaliser), and the rotation of
    /// its elements.
    fn designated_order(&mut self, n: usize) -> Option<usize> {
        self.lists += 1;
        let mut z = self.prog.seed ^ self.lists.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (n > 0 && z & 1 == 1).then(|| ((z >> 1) % n as u64) as usize)
    }

    fn element_type(&self, ty: &Ty, i: usize) -> Ty {
        match ty {
            Ty::Array(e, _) => (**e).clone(),
            Ty::Struct(k) => self
                .prog
                .structs
                .get(*k)
                .and_then(|s| s.fields.get(i))
                .map(|f| f.ty.clone())
                .unwrap_or(Ty::Scalar(Scalar::I32)),
            other => other.clone(),
        }
    }

    fn signature(&self, f: &Func) -> String {
        let ret = f.ret.map(|s| s.c_name()).unwrap_or("void");
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| self.decl_text(&p.ty, &p.name))
            .collect();
        let params = if params.is_empty() {
            "void".to_string()
        } else {
            params.join(", ")
        };
        let storage = if f.name == "main" { "" } else { "static " };
        format!("{storage}{ret} {}({params})", f.name)
    }

    fn function(&mut self, f: &Func) {
        for d in f.params.iter().chain(&f.locals) {
            self.syms
                .insert(d.name.clone(), Sym::Object { ty: d.ty.clone() });
        }
        let sig = self.signature(f);
        self.line(&format!("{sig} {{"));
        self.indent += 1;
        for d in &f.locals {
            let text = self.decl_with_init(d, "");
            self.line(&text);
        }
        if f.recursive {
            let base = match &f.base {
                Some(b) => format!(" {}", self.expr(b).0),
                None => String::new(),
            };
            self.line(&format!("if ({DEPTH} == 0u) return{base};"));
        }
        self.stmts(&f.body);
        if let Some(r) = &f.ret_expr {
            let (t, _) = self.expr(r);
            self.line(&format!("return {t};"));
        }
        self.indent -= 1;
        self.line("}");
    }

    fn stmts(&mut self, list: &[Stmt]) {
        for s in list {
            self.stmt(s);
        }
    }

    fn block(&mut self, list: &[Stmt]) {
        self.indent += 1;
        self.stmts(list);
        self.indent -= 1;
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Assign { lhs, op, rhs } => {
                let (ltext, lty) = self.place_scalar(lhs);
                let r = self.expr(rhs);
                let text = self.assign_text(&ltext, lty, *op, r);
                self.line(&format!("{text};"));
            }
            Stmt::Call { dst, func, args } => {
                let call = self.call_text(func, args);
                match dst {
                    Some(d) => self.line(&format!("{d} = {call};")),
                    None => self.line(&format!("{call};")),
                }
            }
            Stmt::If { cond, then, els } => {
                let (c, _) = self.expr(cond);
                self.line(&format!("if ({c}) {{"));
                self.block(then);
                if els.is_empty() {
                    self.line("}");
                } else {
                    self.line("} else {");
                    self.block(els);
                    self.line("}");
                }
            }
            Stmt::Loop(l) => self.loop_stmt(l),
            Stmt::Walk(w) => self.walk(w),
            Stmt::WalkStep { ptr, step } => match step {
                WalkStep::Read { dst, op } => {
                    let dty = self.object_scalar(dst);
                    let elem = match self.syms.get(ptr) {
                        Some(Sym::WalkPtr { elem }) => *elem,
                        _ => Scalar::I32,
                    };
                    let rhs = (format!("*{ptr}++"), Val::full(elem));
                    let text = self.assign_text(dst, dty, *op, rhs);
                    self.line(&format!("{text};"));
                }
                WalkStep::Write(e) => {
                    let (t, _) = self.expr(e);
                    self.line(&format!("*{ptr}++ = {t};"));
                }
            },
            Stmt::Switch {
                scrutinee,
                cases,
                default,
            } => {
                let (t, _) = self.expr(scrutinee);
                self.line(&format!("switch ({t}) {{"));
                let n = cases.len();
                for (k, c) in cases.iter().enumerate() {
                    self.line(&format!("case {}:", c.label));
                    self.block(&c.body);
                    self.indent += 1;
                    if c.brk {
                        self.line("break;");
                    } else if k + 1 < n || default.is_some() {
                        self.line("/* fall through */");
                    }
                    self.indent -= 1;
                }
                if let Some(d) = default {
                    self.line("default:");
                    self.block(d);
                    self.indent += 1;
                    self.line("break;");
                    self.indent -= 1;
                }
                self.line("}");
            }
            Stmt::Copy { dst, src } => {
                let (d, _) = self.place(dst);
                let (s, _) = self.place(src);
                self.line(&format!("{d} = {s};"));
            }
            Stmt::GuardedDiv { lhs, a, b, rem } => {
                let (lt, lty) = self.place_scalar(lhs);
                let (at, av) = self.expr(a);
                let (bt, bv) = self.expr(b);
                let t = Scalar::usual(av.ty, bv.ty);
                let (at, bt) = (explicit(at, av, t), explicit(bt, bv, t));
                // `b > 0` also rules out `INT_MIN / -1`.
                let guard = if t == Scalar::U32 {
                    format!("{bt} != 0u")
                } else {
                    format!("{bt} > 0")
                };
                let op = if *rem { "%" } else { "/" };
                let value = format!("({at} {op} {bt})");
                let value = if lty.promoted() != t || lty != t {
                    format!("({})({value})", lty.c_name())
                } else {
                    value
                };
                self.line(&format!("if ({guard}) {lt} = {value};"));
            }
            Stmt::Goto(l) => self.line(&format!("goto {l};")),
            Stmt::Label(l) => {
                self.indent = self.indent.saturating_sub(1);
                self.line(&format!("{l}: ;"));
                self.indent += 1;
            }
            Stmt::Break => self.line("break;"),
            Stmt::Continue => self.line("continue;"),
            Stmt::Return(None) => self.line("return;"),
            Stmt::Return(Some(e)) => {
                let (t, _) = self.expr(e);
                self.line(&format!("return {t};"));
            }
            Stmt::Print(e) => {
                let (t, v) = self.expr(e);
                let t = if v.ty == Scalar::I32 {
                    t
                } else {
                    format!("(int)({t})")
                };
                self.line(&format!("print_int({t});"));
                self.line("print_char('\\n');");
            }
        }
    }

    fn loop_stmt(&mut self, l: &Loop) {
        // Counters are read only in the body (their scope), where this is their range.
        let (lo, hi) = l.counter_range();
        self.syms.insert(
            l.counter.clone(),
            Sym::Counter {
                ty: l.counter_ty,
                lo,
                hi,
            },
        );
        let t = l.counter_ty.c_name();
        let i = &l.counter;
        let n = l.bound;
        match l.kind {
            LoopKind::For => {
                let inc = if l.step <= 1 {
                    format!("{i}++")
                } else {
                    format!("{i} += {}", l.step)
                };
                self.line(&format!("for ({t} {i} = 0; {i} < {n}; {inc}) {{"));
                self.block(&l.body);
                self.line("}");
            }
            LoopKind::ForDown => {
                self.line(&format!("for ({t} {i} = {n}; {i} > 0; {i}--) {{"));
                self.block(&l.body);
                self.line("}");
            }
            LoopKind::While => {
                self.line("{");
                self.indent += 1;
                self.line(&format!("{t} {i} = 0;"));
                if let (true, Some((cond, label))) = (l.has_side_entry(), &l.side_entry) {
                    // Evaluated where the counter is not in scope: the condition never
                    // mentions it (the generator builds it outside the loop).
                    let (c, _) = self.expr(cond);
                    self.line(&format!("if ({c}) goto {label};"));
                }
                self.line(&format!("while ({i} < {n}) {{"));
                self.indent += 1;
                self.line(&format!("{i}++;"));
                self.indent -= 1;
                self.block(&l.body);
                self.line("}");
                self.indent -= 1;
                self.line("}");
            }
            LoopKind::DoWhile => {
                self.line("{");
                self.indent += 1;
                self.line(&format!("{t} {i} = 0;"));
                self.line("do {");
                self.indent += 1;
                self.line(&format!("{i}++;"));
                self.indent -= 1;
                self.block(&l.body);
                self.line(&format!("}} while ({i} < {n});"));
                self.indent -= 1;
                self.line("}");
            }
        }
    }

    fn walk(&mut self, w: &Walk) {
        self.syms
            .insert(w.ptr.clone(), Sym::WalkPtr { elem: w.elem });
        self.syms.insert(
            w.counter.clone(),
            Sym::Counter {
                ty: Scalar::I32,
                lo: 0,
                hi: w.count as i64 - 1,
            },
        );
        let (arr, _) = self.place(&w.array);
        let (q, i, n) = (&w.ptr, &w.counter, w.count);
        self.line("{");
        self.indent += 1;
        self.line(&format!("{} *{q} = {arr};", w.elem.c_name()));
        let inc = if w.step_in_header {
            format!("{i}++, {q}++")
        } else {
            format!("{i}++")
        };
        self.line(&format!("for (int {i} = 0; {i} < {n}; {inc}) {{"));
        self.block(&w.body);
        self.line("}");
        self.indent -= 1;
        self.line("}");
    }

    fn call_text(&mut self, func: &str, args: &[Arg]) -> String {
        let callee = self.prog.func(func);
        let parts: Vec<String> = args
            .iter()
            .enumerate()
            .map(|(k, a)| match a {
                Arg::Value(e) => {
                    let (t, v) = self.expr(e);
                    // Explicit conversion to a narrower or differently signed parameter type.
                    let pty = callee
                        .and_then(|f| f.params.get(k))
                        .and_then(|p| p.ty.scalar());
                    match pty {
                        Some(s) if s != v.ty && !v.within(s.min(), s.max()) => {
                            format!("({})({t})", s.c_name())
                        }
                        _ => t,
                    }
                }
                Arg::Addr(p) => {
                    let (t, ty) = self.place(p);
                    match ty {
                        // Arrays decay; a pointer parameter is passed on as it is.
                        Ty::Array(..) | Ty::Ptr(..) => t,
                        _ => format!("&{t}"),
                    }
                }
                Arg::DepthMinusOne => format!("{DEPTH} - 1u"),
                Arg::Depth(d) => format!("{d}u"),
            })
            .collect();
        format!("{func}({})", parts.join(", "))
    }

    /// The scalar type of a named object (locals and globals).
    fn object_scalar(&self, name: &str) -> Scalar {
        match self.syms.get(name) {
            Some(Sym::Object { ty: Ty::Scalar(s) }) => *s,
            Some(Sym::Counter { ty, .. }) => *ty,
            _ => Scalar::I32,
        }
    }

    /// `lhs op= rhs` written without undefined behaviour; `lty` is the type of the lvalue.
    fn assign_text(&mut self, lhs: &str, lty: Scalar, op: AssignOp, rhs: (String, Val)) -> String {
        let (rt, rv) = rhs;
        let Some(bop) = op.bin_op() else {
            // An explicit conversion when the value may not fit (same meaning, no -Woverflow).
            if !rv.within(lty.min(), lty.max()) && rv.ty != lty {
                return format!("{lhs} = ({})({rt})", lty.c_name());
            }
            return format!("{lhs} = {rt}");
        };
        let cur = Val::full(lty);
        let compound = format!("{lhs} {}= ", bop.c_op());
        match bop {
            BinOp::And | BinOp::Or | BinOp::Xor => format!("{compound}{rt}"),
            BinOp::Add | BinOp::Sub | BinOp::Mul => {
                let t = Scalar::usual(lty, rv.ty);
                let exact = arith_interval(bop, cur.to(t.promoted()), rv.to(t));
                let one = rv.lo == 1 && rv.hi == 1 && rv.ty == Scalar::I32;
                if (t == Scalar::U32 || exact.is_some()) && one && bop != BinOp::Mul {
                    // `x++` / `--x`: the same meaning, another path through the front end.
                    let c = if bop == BinOp::Add { "++" } else { "--" };
                    if lhs.len().is_multiple_of(2) {
                        format!("{lhs}{c}")
                    } else {
                        format!("{c}{lhs}")
                    }
                } else if t == Scalar::U32 || exact.is_some() {
                    format!("{compound}{rt}")
                } else {
                    format!(
                        "{lhs} = ({})((unsigned)({lhs}) {} (unsigned)({rt}))",
                        lty.c_name(),
                        bop.c_op()
                    )
                }
            }
            BinOp::Div | BinOp::Rem => {
                let a = cur.promoted();
                let t = Scalar::usual(lty, rv.ty);
                let (d, _) = self.divisor(a.to(t), (rt, rv.to(t)), t);
                format!("{compound}{d}")
            }
            BinOp::Shl | BinOp::Shr => {
                let (amt, av) = shift_amount(rt, rv);
                let a = cur.promoted();
                let ok = bop == BinOp::Shr || a.ty == Scalar::U32 || shl_fits(a, av);
                if ok {
                    format!("{compound}{amt}")
                } else {
                    format!("{lhs} = ({})((unsigned)({lhs}) << {amt})", lty.c_name())
                }
            }
            _ => format!("{lhs} = {rt}"),
        }
    }

    /// The text of a divisor of type `t` that is never zero, nor `-1` when the dividend may be
    /// `INT_MIN`; and its interval.
    fn divisor(&mut self, a: Val, b: (String, Val), t: Scalar) -> (String, Val) {
        let (bt, bv) = b;
        let min_dividend = t == Scalar::I32 && a.contains(i32::MIN as i64);
        let unsafe_divisor = bv.contains(0) || (min_dividend && bv.contains(-1));
        if !unsafe_divisor {
            return (bt, bv);
        }
        if t == Scalar::U32 {
            if bv.lo == 0 && bv.hi == 0 {
                return ("1u".to_string(), Val::exact(t, 1));
            }
            // `b != 0u ? b : 1u` repeats `b`: only for short divisors.
            if bt.len() > 24 || a.hi % 2 == 0 {
                (
                    format!("({bt} | 1u)"),
                    Val::of(t, 1, ones_above(bv.hi as i128)),
                )
            } else {
                (
                    format!("({bt} != 0u ? {bt} : 1u)"),
                    Val::of(t, 1, (bv.hi as i128).max(1)),
                )
            }
        } else if !min_dividend && bv.lo < 0 && bt.len() <= 24 {
            (
                format!("({bt} != 0 ? {bt} : 1)"),
                Val::of(t, bv.lo as i128, (bv.hi as i128).max(1)),
            )
        } else {
            (format!("(({bt} & 255) + 1)"), Val::of(t, 1, 256))
        }
    }

    /// The text and type of a place; indices masked unless known to be in bounds.
    fn place(&mut self, p: &Place) -> (String, Ty) {
        let (mut text, mut ty) = match &p.root {
            Root::Var(n) => (
                n.clone(),
                match self.syms.get(n) {
                    Some(Sym::Object { ty }) => ty.clone(),
                    Some(Sym::Counter { ty, .. }) => Ty::Scalar(*ty),
                    Some(Sym::WalkPtr { elem }) => Ty::Ptr(Box::new(Ty::Scalar(*elem)), 1),
                    None => Ty::Scalar(Scalar::I32),
                },
            ),
            Root::Deref(q) => {
                let elem = match self.syms.get(q) {
                    Some(Sym::WalkPtr { elem }) => *elem,
                    _ => Scalar::I32,
                };
                (format!("(*{q})"), Ty::Scalar(elem))
            }
        };
        for (k, step) in p.path.iter().enumerate() {
            match (step, ty.clone()) {
                // `p->field` for the one struct a pointer parameter points to.
                (Step::Index(_), Ty::Ptr(elem, n))
                    if n <= 1
                        && matches!(*elem, Ty::Struct(_))
                        && matches!(p.path.get(k + 1), Some(Step::Field(_))) =>
                {
                    text.push_str("->");
                    ty = *elem;
                }
                (Step::Index(e), Ty::Array(elem, n)) | (Step::Index(e), Ty::Ptr(elem, n)) => {
                    let (it, iv) = self.expr(e);
                    if n <= 1 {
                        text.push_str("[0]");
                    } else if iv.within(0, n as i64 - 1) {
                        let _ = write!(text, "[{it}]");
                    } else {
                        let _ = write!(text, "[{it} & {}]", n - 1);
                    }
                    ty = *elem;
                }
                (Step::Field(k), Ty::Struct(s)) => {
                    let field = self.prog.structs.get(s).and_then(|d| d.fields.get(*k));
                    match field {
                        Some(f) => {
                            if !text.ends_with("->") {
                                text.push('.');
                            }
                            text.push_str(&f.name);
                            ty = f.ty.clone();
                        }
                        None => text.push_str(".missing_field"),
                    }
                }
                _ => text.push_str("/* ill-typed path */"),
            }
        }
        (text, ty)
    }

    /// A place that must denote a scalar; its text and type.
    fn place_scalar(&mut self, p: &Place) -> (String, Scalar) {
        let (t, ty) = self.place(p);
        (t, ty.scalar().unwrap_or(Scalar::I32))
    }

    fn load(&mut self, p: &Place) -> (String, Val) {
        if p.path.is_empty() {
            if let Root::Var(n) = &p.root {
                if let Some(Sym::Counter { ty, lo, hi }) = self.syms.get(n) {
                    return (
                        n.clone(),
                        Val {
                            ty: *ty,
                            lo: *lo,
                            hi: *hi,
                        },
                    );
                }
            }
        }
        let (t, s) = self.place_scalar(p);
        (t, Val::full(s))
    }

    /// The text and value of an expression.
    pub fn expr(&mut self, e: &Expr) -> (String, Val) {
        match e {
            Expr::Const(v, ty) => {
                let v = ty.wrap(*v);
                (const_text(v, *ty), Val::exact(*ty, v))
            }
            Expr::Load(p) => self.load(p),
            Expr::Cast(ty, a) => {
                let (t, v) = self.expr(a);
                (format!("(({})({t}))", ty.c_name()), v.to(*ty))
            }
            Expr::Unary(op, a) => {
                let (t, v) = self.expr(a);
                let v = v.promoted();
                match op {
                    UnOp::Neg => {
                        if v.ty == Scalar::U32 {
                            (format!("(-{t})"), Val::full(Scalar::U32))
                        } else if v.lo > i32::MIN as i64 {
                            (
                                format!("(-{t})"),
                                Val::of(v.ty, -(v.hi as i128), -(v.lo as i128)),
                            )
                        } else {
                            (
                                format!("((int)(0u - (unsigned)({t})))"),
                                Val::full(Scalar::I32),
                            )
                        }
                    }
                    UnOp::BitNot => {
                        let r = if v.ty == Scalar::U32 {
                            Val::of(
                                v.ty,
                                u32::MAX as i128 - v.hi as i128,
                                u32::MAX as i128 - v.lo as i128,
                            )
                        } else {
                            Val::of(v.ty, -(v.hi as i128) - 1, -(v.lo as i128) - 1)
                        };
                        (format!("(~{t})"), r)
                    }
                    UnOp::LogNot => (format!("(!{t})"), Val::of(Scalar::I32, 0, 1)),
                }
            }
            Expr::Binary(op, a, b) => {
                let a = self.expr(a);
                let b = self.expr(b);
                self.binary(*op, a, b)
            }
            Expr::Intrinsic(f, args) => {
                let texts: Vec<String> = args.iter().map(|a| self.expr(a).0).collect();
                // Results: exact 16-bit halves, a 16x16-bit product, or any int.
                let v = match f {
                    Intrinsic::Lo | Intrinsic::Hi => Val::of(Scalar::I32, -32768, 32767),
                    Intrinsic::Mpy | Intrinsic::Mpyhh => {
                        Val::of(Scalar::I32, -(1 << 30) + 32768, 1 << 30)
                    }
                    _ => Val::full(Scalar::I32),
                };
                (format!("{}({})", f.c_name(), texts.join(", ")), v)
            }
            Expr::Cond(c, a, b) => {
                let (ct, _) = self.expr(c);
                let (at, av) = self.expr(a);
                let (bt, bv) = self.expr(b);
                let t = Scalar::usual(av.ty, bv.ty);
                let at = explicit(at, av, t);
                let bt = explicit(bt, bv, t);
                let (av, bv) = (av.to(t), bv.to(t));
                (
                    format!("({ct} ? {at} : {bt})"),
                    Val::of(t, av.lo.min(bv.lo) as i128, av.hi.max(bv.hi) as i128),
                )
            }
        }
    }

    fn binary(&mut self, op: BinOp, a: (String, Val), b: (String, Val)) -> (String, Val) {
        let (at, av) = a;
        let (bt, bv) = b;
        let c = op.c_op();
        match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul => {
                let t = Scalar::usual(av.ty, bv.ty);
                let (x, y) = (av.to(t), bv.to(t));
                if t == Scalar::U32 {
                    let r = arith_interval(op, x, y).unwrap_or(Val::full(t));
                    return (format!("({at} {c} {bt})"), r);
                }
                match arith_interval(op, x, y) {
                    Some(r) => (format!("({at} {c} {bt})"), r),
                    None => (
                        format!("((int)((unsigned)({at}) {c} (unsigned)({bt})))"),
                        Val::full(Scalar::I32),
                    ),
                }
            }
            BinOp::Div | BinOp::Rem => {
                let t = Scalar::usual(av.ty, bv.ty);
                let x = av.to(t);
                let (dt, dv) = self.divisor(x, (bt, bv.to(t)), t);
                let r = if t == Scalar::U32 {
                    if op == BinOp::Div {
                        Val::of(t, 0, x.hi as i128)
                    } else {
                        Val::of(t, 0, (x.hi as i128).min(dv.hi as i128 - 1).max(0))
                    }
                } else if op == BinOp::Div {
                    let m = x.max_abs();
                    Val::of(t, -m, m)
                } else {
                    let m = x.max_abs().min(dv.max_abs() - 1).max(0);
                    let lo = if x.lo < 0 { -m } else { 0 };
                    let hi = if x.hi > 0 { m } else { 0 };
                    Val::of(t, lo, hi)
                };
                (format!("({at} {c} {dt})"), r)
            }
            BinOp::And | BinOp::Or | BinOp::Xor => {
                let t = Scalar::usual(av.ty, bv.ty);
                let (x, y) = (av.to(t), bv.to(t));
                let r = if x.lo >= 0 && y.lo >= 0 {
                    if op == BinOp::And {
                        Val::of(t, 0, x.hi.min(y.hi) as i128)
                    } else {
                        Val::of(t, 0, ones_above(x.hi.max(y.hi) as i128))
                    }
                } else if op == BinOp::And && (x.lo >= 0 || y.lo >= 0) {
                    let hi = if x.lo >= 0 { x.hi } else { y.hi };
                    Val::of(t, 0, hi as i128)
                } else {
                    Val::full(t)
                };
                (format!("({at} {c} {bt})"), r)
            }
            BinOp::Shl | BinOp::Shr => {
                let x = av.promoted();
                let (amt, sv) = shift_amount(bt, bv);
                if op == BinOp::Shr {
                    let lo = if x.lo >= 0 {
                        x.lo >> sv.hi
                    } else {
                        x.lo >> sv.lo
                    };
                    let hi = if x.hi >= 0 {
                        x.hi >> sv.lo
                    } else {
                        x.hi >> sv.hi
                    };
                    return (
                        format!("({at} >> {amt})"),
                        Val::of(x.ty, lo as i128, hi as i128),
                    );
                }
                if x.ty == Scalar::U32 {
                    let hi = (x.hi as i128) << sv.hi;
                    let r = Val::of(x.ty, (x.lo as i128) << sv.lo, hi);
                    (format!("({at} << {amt})"), r)
                } else if shl_fits(x, sv) {
                    let r = Val::of(x.ty, (x.lo as i128) << sv.lo, (x.hi as i128) << sv.hi);
                    (format!("({at} << {amt})"), r)
                } else {
                    (
                        format!("((int)((unsigned)({at}) << {amt}))"),
                        Val::full(Scalar::I32),
                    )
                }
            }
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => {
                let t = Scalar::usual(av.ty, bv.ty);
                let at = explicit(at, av, t);
                let bt = explicit(bt, bv, t);
                (format!("({at} {c} {bt})"), Val::of(Scalar::I32, 0, 1))
            }
            BinOp::LogAnd | BinOp::LogOr => {
                (format!("({at} {c} {bt})"), Val::of(Scalar::I32, 0, 1))
            }
        }
    }
}

/// `(unsigned)(x)` when a signed operand meets an `unsigned` one (same meaning as the implicit
/// conversion, without gcc's sign warnings).
fn explicit(text: String, v: Val, t: Scalar) -> String {
    if t == Scalar::U32 && v.ty.promoted() != Scalar::U32 && v.lo < 0 {
        format!("(unsigned)({text})")
    } else {
        text
    }
}

/// The shift amount's text (masked unless known to be in `0..=31`) and interval.
fn shift_amount(text: String, v: Val) -> (String, Val) {
    if v.within(0, 31) {
        (text, v)
    } else {
        (format!("({text} & 31)"), Val::of(Scalar::I32, 0, 31))
    }
}

/// Whether `x << s` is defined for every value: `x` non-negative and the result fits `int`.
fn shl_fits(x: Val, s: Val) -> bool {
    x.lo >= 0 && ((x.hi as i128) << s.hi) <= i32::MAX as i128
}

/// The exact interval of `x op y` (`+ - *`) if it fits the operands' common type.
fn arith_interval(op: BinOp, x: Val, y: Val) -> Option<Val> {
    let (a, b, c, d) = (x.lo as i128, x.hi as i128, y.lo as i128, y.hi as i128);
    let (lo, hi) = match op {
        BinOp::Add => (a + c, b + d),
        BinOp::Sub => (a - d, b - c),
        BinOp::Mul => {
            let p = [a * c, a * d, b * c, b * d];
            (*p.iter().min()?, *p.iter().max()?)
        }
        _ => return None,
    };
    let t = x.ty;
    (lo >= t.min() as i128 && hi <= t.max() as i128).then(|| Val::of(t, lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn emitter(prog: &Program) -> Emitter<'_> {
        Emitter {
            prog,
            syms: HashMap::new(),
            out: String::new(),
            indent: 0,
            lists: 0,
        }
    }

    fn empty() -> Program {
        Program {
            seed: 0,
            structs: vec![],
            globals: vec![],
            funcs: vec![],
        }
    }

    #[test]
    fn signed_add_wraps_through_unsigned_only_when_it_may_overflow() {
        let p = empty();
        let mut e = emitter(&p);
        e.syms.insert(
            "a".into(),
            Sym::Object {
                ty: Ty::Scalar(Scalar::I32),
            },
        );
        e.syms.insert(
            "s".into(),
            Sym::Object {
                ty: Ty::Scalar(Scalar::I16),
            },
        );
        let (t, _) = e.expr(&Expr::bin(BinOp::Add, Expr::load_var("a"), Expr::int(1)));
        assert_eq!(t, "((int)((unsigned)(a) + (unsigned)(1)))");
        let (t, v) = e.expr(&Expr::bin(
            BinOp::Mul,
            Expr::load_var("s"),
            Expr::load_var("s"),
        ));
        assert_eq!(t, "(s * s)");
        assert_eq!((v.lo, v.hi), (-32767 * 32768, 32768 * 32768));
    }

    #[test]
    fn divisors_are_guarded_unless_provably_safe() {
        let p = empty();
        let mut e = emitter(&p);
        e.syms.insert(
            "a".into(),
            Sym::Object {
                ty: Ty::Scalar(Scalar::I32),
            },
        );
        e.syms.insert(
            "u".into(),
            Sym::Object {
                ty: Ty::Scalar(Scalar::U32),
            },
        );
        let (t, _) = e.expr(&Expr::bin(BinOp::Div, Expr::load_var("a"), Expr::int(7)));
        assert_eq!(t, "(a / 7)");
        // -1 with a dividend that may be INT_MIN: guarded.
        let (t, _) = e.expr(&Expr::bin(BinOp::Div, Expr::load_var("a"), Expr::int(-1)));
        assert_eq!(t, "(a / (((-1) & 255) + 1))");
        let (t, _) = e.expr(&Expr::bin(
            BinOp::Rem,
            Expr::load_var("a"),
            Expr::load_var("a"),
        ));
        assert_eq!(t, "(a % ((a & 255) + 1))");
        let (t, _) = e.expr(&Expr::bin(
            BinOp::Rem,
            Expr::load_var("u"),
            Expr::load_var("u"),
        ));
        assert!(
            t == "(u % (u | 1u))" || t == "(u % (u != 0u ? u : 1u))",
            "{t}"
        );
    }

    #[test]
    fn shifts_are_masked_and_signed_left_shifts_go_through_unsigned() {
        let p = empty();
        let mut e = emitter(&p);
        e.syms.insert(
            "a".into(),
            Sym::Object {
                ty: Ty::Scalar(Scalar::I32),
            },
        );
        e.syms.insert(
            "c".into(),
            Sym::Object {
                ty: Ty::Scalar(Scalar::U8),
            },
        );
        let (t, _) = e.expr(&Expr::bin(
            BinOp::Shl,
            Expr::load_var("a"),
            Expr::load_var("a"),
        ));
        assert_eq!(t, "((int)((unsigned)(a) << (a & 31)))");
        let (t, _) = e.expr(&Expr::bin(BinOp::Shl, Expr::load_var("c"), Expr::int(3)));
        assert_eq!(t, "(c << 3)");
        let (t, _) = e.expr(&Expr::bin(BinOp::Shr, Expr::load_var("a"), Expr::int(41)));
        assert_eq!(t, "(a >> (41 & 31))");
    }

    #[test]
    fn compound_assignments_expand_when_they_may_overflow() {
        let p = empty();
        let mut e = emitter(&p);
        let one = ("1".to_string(), Val::exact(Scalar::I32, 1));
        assert_eq!(
            e.assign_text("x", Scalar::I32, AssignOp::Add, one.clone()),
            "x = (int)((unsigned)(x) + (unsigned)(1))"
        );
        assert_eq!(
            e.assign_text("s", Scalar::I16, AssignOp::Add, one.clone()),
            "++s"
        );
        assert_eq!(
            e.assign_text("us", Scalar::U16, AssignOp::Sub, one.clone()),
            "us--"
        );
        assert_eq!(
            e.assign_text("u", Scalar::U32, AssignOp::Mul, one.clone()),
            "u *= 1"
        );
        assert_eq!(
            e.assign_text(
                "c",
                Scalar::U8,
                AssignOp::Shl,
                ("30".into(), Val::exact(Scalar::I32, 30))
            ),
            "c = (unsigned char)((unsigned)(c) << 30)"
        );
    }

    #[test]
    fn constants_use_every_c_spelling_with_the_right_value() {
        assert_eq!(const_text(0x8000_0001, Scalar::U32), "0x80000001");
        assert_eq!(const_text(7, Scalar::U32), "0x7u");
        assert_eq!(const_text(8, Scalar::U32), "8u");
        assert_eq!(
            const_text(i32::MIN as i64, Scalar::I32),
            "(-2147483647 - 1)"
        );
        assert_eq!(const_text(-10, Scalar::I32), "(-0xa)");
        assert_eq!(const_text(-11, Scalar::I32), "(-11)");
        assert_eq!(const_text(17, Scalar::I32), "0x11");
        assert_eq!(const_text(68, Scalar::I32), "'D'");
        assert_eq!(const_text(92, Scalar::I32), "92");
        assert_eq!(const_text(5, Scalar::I32), "5");
    }

    #[test]
    fn indices_are_masked_unless_in_bounds() {
        let mut p = empty();
        p.globals.push(Decl {
            name: "g".into(),
            ty: Ty::Array(Box::new(Ty::Scalar(Scalar::I32)), 8),
            init: Init::None,
            volatile: false,
            is_static: false,
        });
        let mut e = emitter(&p);
        e.syms.insert(
            "g".into(),
            Sym::Object {
                ty: p.globals[0].ty.clone(),
            },
        );
        e.syms.insert(
            "x".into(),
            Sym::Object {
                ty: Ty::Scalar(Scalar::I32),
            },
        );
        e.syms.insert(
            "i".into(),
            Sym::Counter {
                ty: Scalar::I32,
                lo: 0,
                hi: 7,
            },
        );
        let idx = |name: &str| Place {
            root: Root::Var("g".into()),
            path: vec![Step::Index(Box::new(Expr::load_var(name)))],
        };
        assert_eq!(e.place(&idx("x")).0, "g[x & 7]");
        assert_eq!(e.place(&idx("i")).0, "g[i]");
    }
}
