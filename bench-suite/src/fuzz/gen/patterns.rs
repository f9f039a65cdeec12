//! The generator's patterns for out-of-SSA translation: loop-carried swaps and rotations,
//! diamonds assigning many variables (many phis at one join), copy chains, values live across
//! loop exits, and many simultaneously live variables (register pressure).

use super::*;

impl Gen {
    // -----------------------------------------------------------------------------------------
    // Patterns for out-of-SSA translation.

    /// Assignable scalar locals (and parameters); makes more when there are fewer than `n`.
    pub(super) fn scalar_locals(&mut self, cx: &mut FnCtx, n: usize) -> Vec<(String, Scalar)> {
        let mut have: Vec<(String, Scalar)> = cx
            .vars
            .iter()
            .filter(|v| matches!(v.kind, Kind::Local | Kind::Param))
            .filter_map(|v| v.ty.scalar().map(|s| (v.name.clone(), s)))
            .collect();
        while have.len() < n {
            let s = self.scalar_type();
            let name = self.add_local(cx, Ty::Scalar(s));
            have.push((name, s));
        }
        // A random choice of n of them.
        for i in 0..n {
            let j = i + self.rng.below((have.len() - i) as u64) as usize;
            have.swap(i, j);
        }
        have.truncate(n);
        have
    }

    /// A loop rotating 2-4 variables each iteration (`t = a; a = b; b = t;`) between other
    /// statements, so the rotated values flow around the back edge (the swap problem).
    pub(super) fn swap_loop(&mut self, cx: &mut FnCtx, nest: u32) -> Stmt {
        let k = self.rng.range(2, 4) as usize;
        let vars = self.scalar_locals(cx, k);
        let temp_ty = vars[0].1;
        let temp = self.add_local(cx, Ty::Scalar(temp_ty));
        let mut pattern = |g: &mut Gen, cx: &mut FnCtx| {
            let mut body = Vec::new();
            if g.rng.chance(50) {
                body.extend(g.block(cx, 1, nest + 1));
            }
            if k == 2 && g.rng.chance(30) {
                // The xor swap: no temporary, three dependent updates.
                let (a, b) = (&vars[0].0, &vars[1].0);
                for (x, y) in [(a, b), (b, a), (a, b)] {
                    body.push(Stmt::Assign {
                        lhs: Place::var(x),
                        op: AssignOp::Xor,
                        rhs: Expr::load_var(y),
                    });
                }
            } else {
                body.push(set(&temp, Expr::load_var(&vars[0].0)));
                for w in vars.windows(2) {
                    body.push(set(&w[0].0, Expr::load_var(&w[1].0)));
                }
                body.push(set(&vars[k - 1].0, Expr::load_var(&temp)));
            }
            if g.rng.chance(60) {
                // Perturb one so the rotation is not a no-op after k iterations.
                let (v, s) = vars[g.rng.below(k as u64) as usize].clone();
                let e = g.expr(cx, 1);
                body.push(Stmt::Assign {
                    lhs: Place::var(&v),
                    op: if s == Scalar::U32 {
                        AssignOp::Add
                    } else {
                        AssignOp::Xor
                    },
                    rhs: e,
                });
            }
            if g.rng.chance(40) {
                body.extend(g.block(cx, 1, nest + 1));
            }
            body
        };
        self.loop_stmt(cx, nest, Some(&mut pattern))
    }

    /// `if (c) { v1 = ..; ...; vk = ..; } else { vk' = ..; ... }` with 3-10 variables assigned
    /// in both arms: as many phis at the join.
    pub(super) fn diamond(&mut self, cx: &mut FnCtx, nest: u32) -> Stmt {
        let k = self.rng.range(3, 10) as usize;
        let vars = self.scalar_locals(cx, k);
        let cond = self.cond(cx);
        let mut then = Vec::new();
        let mut els = Vec::new();
        for (v, _) in &vars {
            let e = self.expr(cx, 2);
            then.push(set(v, e));
        }
        for (v, _) in vars.iter().rev() {
            // Sometimes a copy of another variable: parallel-copy cycles at the join.
            let e = if self.rng.chance(40) {
                let (o, _) = &vars[self.rng.below(k as u64) as usize];
                Expr::load_var(o)
            } else {
                self.expr(cx, 2)
            };
            els.push(set(v, e));
        }
        if self.rng.chance(30) && nest + 1 < self.pol.max_nest {
            then.extend(self.block(cx, 1, nest + 1));
        }
        Stmt::If { cond, then, els }
    }

    /// `b = a; c = b; d = c;` followed by a use of all of them.
    pub(super) fn copy_chain(&mut self, cx: &mut FnCtx) -> Vec<Stmt> {
        let k = self.rng.range(2, 5) as usize;
        let vars = self.scalar_locals(cx, k);
        let mut out = Vec::new();
        let first = self.expr(cx, 2);
        out.push(set(&vars[0].0, first));
        for w in vars.windows(2) {
            out.push(set(&w[1].0, Expr::load_var(&w[0].0)));
        }
        let target = self.writable_place(cx);
        let mut sum = Expr::load_var(&vars[0].0);
        for (v, _) in &vars[1..] {
            sum = Expr::bin(BinOp::Add, sum, Expr::load_var(v));
        }
        out.push(Stmt::Assign {
            lhs: target,
            op: AssignOp::Xor,
            rhs: sum,
        });
        out
    }

    /// A loop that computes values, may leave early, and whose values are used after it.
    pub(super) fn loop_exit_values(&mut self, cx: &mut FnCtx, nest: u32) -> Vec<Stmt> {
        let vars = self.scalar_locals(cx, 2);
        let (x, y) = (vars[0].0.clone(), vars[1].0.clone());
        // Half the time the lost-copy shape (Briggs et al.): `y = x; x = x + e;` with `y`
        // used after the loop, so after copy folding `y` is the phi's old value.
        let lost_copy = self.rng.chance(50);
        let mut pattern = |g: &mut Gen, cx: &mut FnCtx| {
            let mut body = Vec::new();
            if lost_copy {
                body.push(set(&y, Expr::load_var(&x)));
                let e = g.expr(cx, 1);
                body.push(Stmt::Assign {
                    lhs: Place::var(&x),
                    op: AssignOp::Add,
                    rhs: e,
                });
                if g.rng.chance(40) {
                    let cond = g.rare_cond(cx);
                    body.push(Stmt::If {
                        cond,
                        then: vec![Stmt::Break],
                        els: vec![],
                    });
                }
                return body;
            }
            let e = g.expr(cx, 2);
            body.push(Stmt::Assign {
                lhs: Place::var(&x),
                op: AssignOp::Add,
                rhs: e,
            });
            let cond = g.rare_cond(cx);
            body.push(Stmt::If {
                cond,
                then: vec![Stmt::Break],
                els: vec![],
            });
            let e = g.expr(cx, 1);
            body.push(set(&y, Expr::bin(BinOp::Xor, Expr::load_var(&x), e)));
            if g.rng.chance(30) {
                body.extend(g.block(cx, 1, nest + 1));
            }
            body
        };
        let l = self.loop_stmt(cx, nest, Some(&mut pattern));
        let target = self.writable_place(cx);
        vec![
            l,
            Stmt::Assign {
                lhs: target,
                op: AssignOp::Add,
                rhs: Expr::bin(BinOp::Sub, Expr::load_var(&x), Expr::load_var(&y)),
            },
        ]
    }

    /// Inserts the register-pressure pattern at a random top-level position (half the time,
    /// when the feature is on).
    pub(super) fn maybe_pressure(&mut self, cx: &mut FnCtx, body: &mut Vec<Stmt>) {
        if self.pol.features.pressure && self.rng.chance(50) {
            let stmts = self.pressure(cx, 0);
            let at = self.rng.below(body.len() as u64 + 1) as usize;
            body.splice(at..at, stmts);
        }
    }

    /// Many locals live at once: `k` new variables initialised from the state, updated in a
    /// loop from each other, then folded into one value.
    pub(super) fn pressure(&mut self, cx: &mut FnCtx, nest: u32) -> Vec<Stmt> {
        let k = match self.pol.size {
            Size::Tiny => self.rng.range(6, 10),
            Size::Small => self.rng.range(8, 16),
            Size::Medium => self.rng.range(12, 32),
            Size::Large => self.rng.range(20, 48),
        } as usize;
        let mut vars = Vec::new();
        for _ in 0..k {
            let s = self.scalar_type();
            let name = self.add_local(cx, Ty::Scalar(s));
            vars.push(name);
        }
        let vars2 = vars.clone();
        let mut pattern = |g: &mut Gen, _cx: &mut FnCtx| {
            let mut body = Vec::new();
            for i in 0..k {
                let other = &vars2[(i + 1 + g.rng.below(3) as usize) % k];
                let op = g.rng.pick(&[AssignOp::Add, AssignOp::Xor, AssignOp::Sub]);
                body.push(Stmt::Assign {
                    lhs: Place::var(&vars2[i]),
                    op,
                    rhs: Expr::load_var(other),
                });
            }
            body
        };
        let mut out = Vec::new();
        if cx.room() >= cx.mult * (k as u64) * 4 && nest < self.pol.max_nest {
            out.push(self.loop_stmt(cx, nest, Some(&mut pattern)));
        }
        let mut sum = Expr::load_var(&vars[0]);
        for v in &vars[1..] {
            sum = Expr::bin(BinOp::Add, sum, Expr::load_var(v));
        }
        let target = self.writable_place(cx);
        out.push(Stmt::Assign {
            lhs: target,
            op: AssignOp::Xor,
            rhs: sum,
        });
        out
    }
}
