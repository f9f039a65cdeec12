//! The generator's places (objects to read and write, with their index expressions) and
//! expressions, and the enumeration of sub-objects for pointer arguments and walks.

use super::*;

impl Gen {
    /// Every sub-object of `vars` (through indexing and fields, up to 4 steps) whose type
    /// satisfies `want`: (root, path template, type).
    pub(super) fn subobjects(
        &self,
        vars: &[Var],
        want: &dyn Fn(&Ty) -> bool,
    ) -> Vec<(String, Vec<TStep>, Ty)> {
        let mut out = Vec::new();
        for v in vars {
            self.sub_dfs(&v.name, &v.ty, &mut Vec::new(), want, &mut out);
        }
        out
    }

    pub(super) fn sub_dfs(
        &self,
        root: &str,
        ty: &Ty,
        path: &mut Vec<TStep>,
        want: &dyn Fn(&Ty) -> bool,
        out: &mut Vec<(String, Vec<TStep>, Ty)>,
    ) {
        if want(ty) {
            out.push((root.to_string(), path.clone(), ty.clone()));
        }
        if path.len() >= 4 || out.len() >= 200 {
            return;
        }
        match ty {
            Ty::Array(elem, n) | Ty::Ptr(elem, n) => {
                path.push(TStep::Index(*n));
                self.sub_dfs(root, elem, path, want, out);
                path.pop();
            }
            Ty::Struct(k) => {
                for (i, f) in self.prog.structs[*k].fields.iter().enumerate() {
                    path.push(TStep::Field(i));
                    self.sub_dfs(root, &f.ty, path, want, out);
                    path.pop();
                }
            }
            Ty::Scalar(_) => {}
        }
    }

    pub(super) fn instantiate(&mut self, cx: &FnCtx, root: &str, tpath: &[TStep]) -> Place {
        let path = tpath
            .iter()
            .map(|s| match s {
                TStep::Index(n) => Step::Index(Box::new(self.index_expr(cx, *n))),
                TStep::Field(i) => Step::Field(*i),
            })
            .collect();
        Place {
            root: Root::Var(root.to_string()),
            path,
        }
    }

    // -----------------------------------------------------------------------------------------
    // Places and expressions.

    /// A scalar place for reading.
    pub(super) fn readable_place(&mut self, cx: &FnCtx) -> Place {
        if !cx.walk_ptrs.is_empty() && self.rng.chance(15) {
            let (q, _) = cx.walk_ptrs[self.rng.below(cx.walk_ptrs.len() as u64) as usize].clone();
            return Place {
                root: Root::Deref(q),
                path: Vec::new(),
            };
        }
        let k = self.rng.below(cx.vars.len() as u64) as usize;
        let v = cx.vars[k].clone();
        self.descend(cx, &v)
    }

    /// A scalar place for writing (never a counter or `depth`).
    pub(super) fn writable_place(&mut self, cx: &FnCtx) -> Place {
        if !cx.walk_ptrs.is_empty() && self.rng.chance(15) {
            let (q, _) = cx.walk_ptrs[self.rng.below(cx.walk_ptrs.len() as u64) as usize].clone();
            return Place {
                root: Root::Deref(q),
                path: Vec::new(),
            };
        }
        let cands: Vec<Var> = cx
            .vars
            .iter()
            .filter(|v| v.assignable() && !matches!(v.kind, Kind::Counter | Kind::Depth))
            .cloned()
            .collect();
        // Locals are preferred: that is where SSA lives.
        let locals: Vec<&Var> = cands.iter().filter(|v| v.kind != Kind::Global).collect();
        let v = if !locals.is_empty() && self.rng.chance(50) {
            locals[self.rng.below(locals.len() as u64) as usize].clone()
        } else {
            cands[self.rng.below(cands.len() as u64) as usize].clone()
        };
        self.descend(cx, &v)
    }

    /// A random path from `v` down to a scalar.
    pub(super) fn descend(&mut self, cx: &FnCtx, v: &Var) -> Place {
        let mut path = Vec::new();
        let mut ty = v.ty.clone();
        loop {
            match ty {
                Ty::Scalar(_) => break,
                Ty::Array(elem, n) | Ty::Ptr(elem, n) => {
                    path.push(Step::Index(Box::new(self.index_expr(cx, n))));
                    ty = *elem;
                }
                Ty::Struct(k) => {
                    let fields = &self.prog.structs[k].fields;
                    let i = self.rng.below(fields.len() as u64) as usize;
                    ty = fields[i].ty.clone();
                    path.push(Step::Field(i));
                }
            }
        }
        Place {
            root: Root::Var(v.name.clone()),
            path,
        }
    }

    /// An index for an array of `len` elements: mostly loop counters (the strength-reduction
    /// pattern), sometimes any expression (the emitter masks it).
    pub(super) fn index_expr(&mut self, cx: &FnCtx, len: u32) -> Expr {
        let counters: Vec<&Var> = cx.vars.iter().filter(|v| v.kind == Kind::Counter).collect();
        if !counters.is_empty() && self.rng.chance(70) {
            let c = counters[self.rng.below(counters.len() as u64) as usize];
            let e = Expr::load_var(&c.name);
            return match self.rng.below(6) {
                0 => Expr::bin(BinOp::Add, e, Expr::int(self.rng.range(1, 3))),
                1 => Expr::bin(BinOp::Sub, Expr::int(len as i64), e),
                2 => Expr::bin(BinOp::Mul, e, Expr::int(2)),
                _ => e,
            };
        }
        // Index expressions inside index expressions stay simple (bounded nesting).
        if self.index_nesting > 0 || self.rng.chance(30) {
            return Expr::int(self.rng.range(0, len as i64 - 1));
        }
        self.index_nesting += 1;
        let e = self.expr(cx, 1);
        self.index_nesting -= 1;
        e
    }

    pub(super) fn leaf(&mut self, cx: &FnCtx) -> Expr {
        if self.rng.chance(30) {
            let s = self.scalar_type();
            self.const_of(s)
        } else {
            Expr::Load(Box::new(self.readable_place(cx)))
        }
    }

    pub(super) fn expr(&mut self, cx: &FnCtx, depth: u32) -> Expr {
        if depth == 0 || self.rng.chance(25) {
            return self.leaf(cx);
        }
        let d = depth - 1;
        // Comparisons and logical operators keep one bit of their operands: rarer.
        let dsp = if self.pol.features.intrinsics { 4 } else { 0 };
        match self.rng.weighted(&[30, 14, 10, 8, 6, 2, 6, 8, 5, dsp]) {
            0 => {
                let op = self.rng.pick(&[BinOp::Add, BinOp::Sub, BinOp::Mul]);
                Expr::bin(op, self.expr(cx, d), self.expr(cx, d))
            }
            1 => {
                let op = self.rng.pick(&[BinOp::And, BinOp::Or, BinOp::Xor]);
                Expr::bin(op, self.expr(cx, d), self.expr(cx, d))
            }
            2 => {
                let op = self.rng.pick(&[BinOp::Shl, BinOp::Shr]);
                let amount = if self.rng.chance(60) {
                    Expr::int(self.rng.range(0, 31))
                } else {
                    self.expr(cx, d)
                };
                Expr::bin(op, self.expr(cx, d), amount)
            }
            3 => {
                let op = self.rng.pick(&[BinOp::Div, BinOp::Rem]);
                let divisor = if self.rng.chance(50) {
                    let c = self.rng.pick(&[
                        1, 2, 3, 4, 7, 8, 10, 16, 100, 255, 256, -1, -2, -3, -8, 1024,
                    ]);
                    if self.rng.chance(30) && c > 0 {
                        Expr::Const(c, Scalar::U32)
                    } else {
                        Expr::int(c)
                    }
                } else {
                    self.expr(cx, d)
                };
                Expr::bin(op, self.expr(cx, d), divisor)
            }
            4 => {
                let op = self.rng.pick(&[
                    BinOp::Lt,
                    BinOp::Le,
                    BinOp::Gt,
                    BinOp::Ge,
                    BinOp::Eq,
                    BinOp::Ne,
                ]);
                Expr::bin(op, self.expr(cx, d), self.expr(cx, d))
            }
            5 => {
                let op = self.rng.pick(&[BinOp::LogAnd, BinOp::LogOr]);
                Expr::bin(op, self.expr(cx, d), self.expr(cx, d))
            }
            6 => {
                let op = self.rng.pick(&[UnOp::Neg, UnOp::BitNot, UnOp::LogNot]);
                Expr::Unary(op, Box::new(self.expr(cx, d)))
            }
            7 => {
                let s = self.scalar_type();
                Expr::Cast(s, Box::new(self.expr(cx, d)))
            }
            8 => Expr::Cond(
                Box::new(self.cond(cx)),
                Box::new(self.expr(cx, d)),
                Box::new(self.expr(cx, d)),
            ),
            _ => {
                let f = self.rng.pick(&Intrinsic::ALL);
                let args = (0..f.arity()).map(|_| self.expr(cx, d)).collect();
                Expr::Intrinsic(f, args)
            }
        }
    }
}
