//! Test-case reduction on the generator's tree: hierarchical delta debugging (Zeller &
//! Hildebrandt's ddmin applied per statement list, outer lists first, as in Misherghi & Su's
//! HDD) plus simplifications in the spirit of C-Reduce.
//!
//! Reducing the tree rather than the text keeps every candidate free of undefined behaviour:
//! the emitter derives every guard from the candidate's own types and ranges, and the edits
//! keep the tree's structural invariants (see [`super::ast`]):
//! * statements are deleted, never moved into a loop; a loop's bound may drop to 1 and a
//!   walk's count to 1 (both stay within their arrays);
//! * `if`/`switch` may be replaced by one of their arms (a `break` that ends up outside any
//!   loop or switch makes invalid C, which the host compiler rejects, so the candidate fails);
//! * an expression may be replaced by `0`, `1` or one of its operands;
//! * functions, parameters and unused declarations may be removed together with their uses.
//!
//! A candidate is kept when the caller's predicate holds (for the fuzzer: the same first
//! failing stage with the same kind of failure, and gcc still builds it). The loop repeats the
//! passes until none makes progress or the budget of predicate tests is spent; the budget makes
//! the result deterministic (no wall-clock limit).

use super::ast::*;

/// Reduction statistics.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReduceStats {
    /// Predicate evaluations.
    pub tests: usize,
    /// Candidates kept.
    pub accepted: usize,
    pub stmts_before: usize,
    pub stmts_after: usize,
}

struct Reducer<'a> {
    best: Program,
    budget: usize,
    stats: ReduceStats,
    interesting: &'a mut dyn FnMut(&Program) -> bool,
}

/// Reduces `prog` while `interesting` holds, with at most `budget` predicate tests.
/// `interesting(prog)` is assumed true.
pub fn reduce(
    prog: &Program,
    budget: usize,
    interesting: &mut dyn FnMut(&Program) -> bool,
) -> (Program, ReduceStats) {
    let mut r = Reducer {
        best: prog.clone(),
        budget,
        stats: ReduceStats {
            stmts_before: count_stmts(prog),
            ..ReduceStats::default()
        },
        interesting,
    };
    loop {
        let before = r.stats.accepted;
        r.remove_functions();
        r.delete_statements();
        r.simplify_statements();
        r.simplify_expressions();
        r.remove_parameters();
        r.remove_declarations();
        if r.stats.accepted == before || r.exhausted() {
            break;
        }
    }
    r.stats.stmts_after = count_stmts(&r.best);
    (r.best, r.stats)
}

impl Reducer<'_> {
    fn exhausted(&self) -> bool {
        self.stats.tests >= self.budget
    }

    /// Tests `candidate`; keeps it if interesting.
    fn try_candidate(&mut self, candidate: Program) -> bool {
        if self.exhausted() || candidate == self.best {
            return false;
        }
        self.stats.tests += 1;
        if (self.interesting)(&candidate) {
            self.best = candidate;
            self.stats.accepted += 1;
            true
        } else {
            false
        }
    }

    /// Applies `edit` to a copy of the best program; `None` when the edit does not apply.
    fn try_edit(&mut self, edit: impl FnOnce(&mut Program) -> bool) -> Option<bool> {
        let mut c = self.best.clone();
        if !edit(&mut c) {
            return None;
        }
        Some(self.try_candidate(c))
    }

    fn remove_functions(&mut self) {
        let names: Vec<String> = self
            .best
            .funcs
            .iter()
            .filter(|f| f.name != "main")
            .map(|f| f.name.clone())
            .collect();
        for name in names.iter().rev() {
            self.try_edit(|p| {
                p.funcs.retain(|f| &f.name != name);
                remove_calls(p, name);
                true
            });
        }
    }

    /// ddmin on every statement list, outer lists first.
    fn delete_statements(&mut self) {
        let mut k = 0;
        while k < list_count(&mut self.best) && !self.exhausted() {
            let len = list_len(&mut self.best, k);
            let mut chunk = len;
            while chunk >= 1 && !self.exhausted() {
                let mut start = 0;
                while start < list_len(&mut self.best, k) && !self.exhausted() {
                    let kept = self.try_edit(|p| {
                        with_list(p, k, |l| {
                            if start >= l.len() {
                                return false;
                            }
                            let end = (start + chunk).min(l.len());
                            l.drain(start..end);
                            true
                        })
                    });
                    match kept {
                        Some(true) => {}
                        Some(false) => start += chunk,
                        None => break,
                    }
                }
                chunk /= 2;
            }
            k += 1;
        }
    }

    /// Replaces compound statements by one of their parts, shortens loops, drops `else`s.
    fn simplify_statements(&mut self) {
        let mut k = 0;
        while k < list_count(&mut self.best) && !self.exhausted() {
            let mut j = 0;
            while j < list_len(&mut self.best, k) && !self.exhausted() {
                let Some(stmt) = list_item(&mut self.best, k, j) else {
                    break;
                };
                let mut kept = false;
                for replacement in simpler_forms(&stmt) {
                    if self.try_edit(|p| {
                        with_list(p, k, |l| {
                            if j >= l.len() {
                                return false;
                            }
                            l.splice(j..=j, replacement);
                            true
                        })
                    }) == Some(true)
                    {
                        kept = true;
                        break;
                    }
                }
                if !kept {
                    j += 1;
                }
            }
            k += 1;
        }
    }

    /// Replaces expressions by `0`, `1` or an operand, parents first.
    fn simplify_expressions(&mut self) {
        let mut n = 0;
        while !self.exhausted() {
            let Some(e) = nth_expr(&mut self.best, n) else {
                break;
            };
            for replacement in simpler_exprs(&e) {
                if self.try_edit(|p| set_nth_expr(p, n, replacement)) == Some(true) {
                    break;
                }
            }
            n += 1;
        }
    }

    /// Removes parameters (and their arguments); a used scalar parameter becomes a local
    /// initialised to 0.
    fn remove_parameters(&mut self) {
        let funcs: Vec<(String, Vec<String>)> = self
            .best
            .funcs
            .iter()
            .filter(|f| f.name != "main")
            .map(|f| {
                (
                    f.name.clone(),
                    f.params
                        .iter()
                        .filter(|p| p.name != DEPTH)
                        .map(|p| p.name.clone())
                        .collect(),
                )
            })
            .collect();
        for (fname, params) in funcs {
            for pname in params.iter().rev() {
                if self.exhausted() {
                    return;
                }
                self.try_edit(|p| remove_param(p, &fname, pname));
            }
        }
    }

    /// Removes declarations nothing mentions, and `volatile` qualifiers.
    fn remove_declarations(&mut self) {
        let globals: Vec<String> = self.best.globals.iter().map(|g| g.name.clone()).collect();
        for g in globals.iter().rev() {
            if !mentions(&self.best, g) {
                self.try_edit(|p| {
                    p.globals.retain(|d| &d.name != g);
                    true
                });
            }
            let volatile = self.best.globals.iter().any(|d| &d.name == g && d.volatile);
            if volatile {
                self.try_edit(|p| {
                    p.globals
                        .iter_mut()
                        .filter(|d| &d.name == g)
                        .for_each(|d| d.volatile = false);
                    true
                });
            }
        }
        let locals: Vec<(usize, String)> = self
            .best
            .funcs
            .iter()
            .enumerate()
            .flat_map(|(i, f)| f.locals.iter().map(move |l| (i, l.name.clone())))
            .collect();
        for (fi, l) in locals.iter().rev() {
            if self.exhausted() {
                return;
            }
            if !mentions(&self.best, l) {
                self.try_edit(|p| {
                    p.funcs[*fi].locals.retain(|d| &d.name != l);
                    true
                });
            }
        }
    }
}

/// Simpler statements to put in place of `s` (each a list spliced into the parent list).
fn simpler_forms(s: &Stmt) -> Vec<Vec<Stmt>> {
    let mut out = Vec::new();
    match s {
        Stmt::If { cond, then, els } => {
            out.push(then.clone());
            if !els.is_empty() {
                out.push(els.clone());
                out.push(vec![Stmt::If {
                    cond: cond.clone(),
                    then: then.clone(),
                    els: vec![],
                }]);
            }
        }
        Stmt::Switch {
            scrutinee,
            cases,
            default,
        } => {
            for c in cases {
                out.push(c.body.clone());
            }
            if let Some(d) = default {
                out.push(d.clone());
                out.push(vec![Stmt::Switch {
                    scrutinee: scrutinee.clone(),
                    cases: cases.clone(),
                    default: None,
                }]);
            }
            for i in 0..cases.len() {
                let mut fewer = cases.clone();
                fewer.remove(i);
                out.push(vec![Stmt::Switch {
                    scrutinee: scrutinee.clone(),
                    cases: fewer,
                    default: default.clone(),
                }]);
            }
        }
        Stmt::Loop(l) => {
            if !leaves_loop(&l.body) {
                // The body once, with the counter at its first value.
                let mut body = l.body.clone();
                let first = Expr::Const(l.counter_range().0, Scalar::I32);
                let counter = Root::Var(l.counter.clone());
                for_each_expr_node_in(&mut body, &mut |e| {
                    if matches!(e, Expr::Load(p) if p.path.is_empty() && p.root == counter) {
                        *e = first.clone();
                    }
                });
                out.push(body);
            }
            if l.side_entry.is_some() {
                let mut single = (**l).clone();
                single.side_entry = None;
                out.push(vec![Stmt::Loop(Box::new(single))]);
            }
            if l.bound > 1 {
                let mut once = (**l).clone();
                once.bound = 1;
                out.push(vec![Stmt::Loop(Box::new(once))]);
            }
            if l.kind != LoopKind::For || l.step != 1 || l.counter_ty != Scalar::I32 {
                let mut plain = (**l).clone();
                plain.kind = LoopKind::For;
                plain.step = 1;
                plain.counter_ty = Scalar::I32;
                // A side entry into a `for` would skip the counter's initialisation.
                plain.side_entry = None;
                out.push(vec![Stmt::Loop(Box::new(plain))]);
            }
        }
        Stmt::Walk(w) if w.count > 1 => {
            let mut once = (**w).clone();
            once.count = 1;
            out.push(vec![Stmt::Walk(Box::new(once))]);
        }
        Stmt::Assign { lhs, op, rhs } if *op != AssignOp::Set => {
            out.push(vec![Stmt::Assign {
                lhs: lhs.clone(),
                op: AssignOp::Set,
                rhs: rhs.clone(),
            }]);
        }
        Stmt::Call {
            dst: Some(_),
            func,
            args,
        } => out.push(vec![Stmt::Call {
            dst: None,
            func: func.clone(),
            args: args.clone(),
        }]),
        _ => {}
    }
    out
}

/// Whether `list` (a loop body) has a `break` or `continue` that leaves or restarts that loop
/// (those inside nested loops do not count; a `break` inside a `switch` ends the switch).
fn leaves_loop(list: &[Stmt]) -> bool {
    fn scan(list: &[Stmt], in_switch: bool) -> bool {
        list.iter().any(|s| match s {
            Stmt::Break => !in_switch,
            Stmt::Continue => true,
            Stmt::If { then, els, .. } => scan(then, in_switch) || scan(els, in_switch),
            Stmt::Switch { cases, default, .. } => {
                cases.iter().any(|c| scan(&c.body, true))
                    || default.as_ref().is_some_and(|d| scan(d, true))
            }
            _ => false,
        })
    }
    scan(list, false)
}

/// Simpler expressions to put in place of `e`.
fn simpler_exprs(e: &Expr) -> Vec<Expr> {
    let zero = Expr::int(0);
    let one = Expr::int(1);
    match e {
        Expr::Const(v, _) if *v == 0 || *v == 1 => vec![],
        Expr::Const(..) => vec![zero],
        Expr::Load(_) => vec![zero, one],
        Expr::Cast(_, a) | Expr::Unary(_, a) => vec![zero, (**a).clone()],
        Expr::Binary(_, a, b) => vec![zero, (**a).clone(), (**b).clone(), one],
        Expr::Cond(c, a, b) => vec![zero, (**a).clone(), (**b).clone(), (**c).clone()],
        Expr::Intrinsic(_, args) => std::iter::once(zero).chain(args.iter().cloned()).collect(),
    }
}

fn list_count(p: &mut Program) -> usize {
    let mut n = 0;
    for_each_list(p, &mut |_| n += 1);
    n
}

/// Applies `f` to the `k`-th statement list; false if there is none or `f` declined.
fn with_list(p: &mut Program, k: usize, f: impl FnOnce(&mut Vec<Stmt>) -> bool) -> bool {
    let mut f = Some(f);
    let mut i = 0;
    let mut applied = false;
    for_each_list(p, &mut |l| {
        if i == k {
            if let Some(f) = f.take() {
                applied = f(l);
            }
        }
        i += 1;
    });
    applied
}

fn list_len(p: &mut Program, k: usize) -> usize {
    let mut len = 0;
    with_list(p, k, |l| {
        len = l.len();
        true
    });
    len
}

fn list_item(p: &mut Program, k: usize, j: usize) -> Option<Stmt> {
    let mut item = None;
    with_list(p, k, |l| {
        item = l.get(j).cloned();
        true
    });
    item
}

fn nth_expr(p: &mut Program, n: usize) -> Option<Expr> {
    let mut i = 0;
    let mut found = None;
    for_each_expr_node(p, &mut |e| {
        if i == n {
            found = Some(e.clone());
        }
        i += 1;
    });
    found
}

fn set_nth_expr(p: &mut Program, n: usize, replacement: Expr) -> bool {
    let mut i = 0;
    let mut r = Some(replacement);
    for_each_expr_node(p, &mut |e| {
        if i == n {
            if let Some(x) = r.take() {
                *e = x;
            }
        }
        i += 1;
    });
    r.is_none()
}

/// Deletes every call of `name` (calls are statements).
fn remove_calls(p: &mut Program, name: &str) {
    for_each_list(p, &mut |l| {
        l.retain(|s| !matches!(s, Stmt::Call { func, .. } if func == name));
    });
}

/// Removes parameter `pname` of `fname` and the matching argument of every call.
fn remove_param(p: &mut Program, fname: &str, pname: &str) -> bool {
    let Some(fi) = p.funcs.iter().position(|f| f.name == fname) else {
        return false;
    };
    let Some(pi) = p.funcs[fi].params.iter().position(|d| d.name == pname) else {
        return false;
    };
    let param = p.funcs[fi].params.remove(pi);
    if mentions(p, pname) {
        // Still used: only a scalar can become a local (initialised, so still UB-free).
        match param.ty {
            Ty::Scalar(_) => p.funcs[fi].locals.insert(
                0,
                Decl {
                    init: Init::Expr(Expr::int(0)),
                    ..param
                },
            ),
            _ => return false,
        }
    }
    for_each_list(p, &mut |l| {
        for s in l.iter_mut() {
            if let Stmt::Call { func, args, .. } = s {
                if func == fname && pi < args.len() {
                    args.remove(pi);
                }
            }
        }
    });
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::gen::{generate, Size};

    fn has_switch_in_loop(p: &Program) -> bool {
        fn in_list(l: &[Stmt], in_loop: bool) -> bool {
            l.iter().any(|s| match s {
                Stmt::Switch { cases, default, .. } => {
                    in_loop
                        || cases.iter().any(|c| in_list(&c.body, in_loop))
                        || default.as_ref().is_some_and(|d| in_list(d, in_loop))
                }
                Stmt::Loop(l) => in_list(&l.body, true),
                Stmt::Walk(w) => in_list(&w.body, true),
                Stmt::If { then, els, .. } => in_list(then, in_loop) || in_list(els, in_loop),
                _ => false,
            })
        }
        p.funcs.iter().any(|f| in_list(&f.body, false))
    }

    /// An artificial bug: "a switch inside a loop". The reducer must keep it and strip
    /// nearly everything else.
    #[test]
    fn reduces_to_the_artificial_pattern() {
        let prog = (1..500)
            .map(|s| generate(s, Size::Medium))
            .find(has_switch_in_loop)
            .expect("some medium program has a switch in a loop");
        let before = count_stmts(&prog);
        let mut pred = |p: &Program| has_switch_in_loop(p);
        let (small, stats) = reduce(&prog, 100_000, &mut pred);
        assert!(has_switch_in_loop(&small));
        let after = count_stmts(&small);
        assert_eq!(stats.stmts_after, after);
        // The loop and the switch (its cases emptied or gone) are all that must remain.
        assert!(after <= 3, "{before} -> {after} statements:\n{small:#?}");
        assert!(small.funcs.len() <= 2);
        assert!(small.globals.is_empty(), "unused globals are removed");
    }

    #[test]
    fn budget_bounds_the_number_of_tests() {
        let prog = generate(3, Size::Medium);
        let mut calls = 0;
        let mut pred = |_: &Program| {
            calls += 1;
            false
        };
        let (same, stats) = reduce(&prog, 50, &mut pred);
        assert_eq!(same, prog);
        assert_eq!(stats.tests, 50);
        assert_eq!(calls, 50);
    }

    #[test]
    fn removing_a_used_scalar_parameter_makes_it_a_local() {
        let mut prog = generate(11, Size::Small);
        let Some((fname, pname)) = prog
            .funcs
            .iter()
            .filter(|f| f.name != "main")
            .flat_map(|f| {
                f.params
                    .iter()
                    .filter(|p| p.name != DEPTH && matches!(p.ty, Ty::Scalar(_)))
                    .map(move |p| (f.name.clone(), p.name.clone()))
            })
            .next()
        else {
            return;
        };
        let calls_before = count_args(&prog, &fname);
        assert!(remove_param(&mut prog, &fname, &pname));
        let f = prog.func(&fname).unwrap();
        assert!(f.params.iter().all(|p| p.name != pname));
        if mentions(&prog, &pname) {
            assert!(f.locals.iter().any(|l| l.name == pname));
        }
        let calls_after = count_args(&prog, &fname);
        assert_eq!(calls_before.len(), calls_after.len());
        for (b, a) in calls_before.iter().zip(&calls_after) {
            assert_eq!(*a + 1, *b);
        }
    }

    #[test]
    fn a_loop_is_unwrapped_only_without_exits_and_with_its_counter_replaced() {
        let body = vec![Stmt::Print(Expr::load_var("i0"))];
        let l = |body: Vec<Stmt>| {
            Stmt::Loop(Box::new(Loop {
                kind: LoopKind::While,
                counter: "i0".into(),
                counter_ty: Scalar::I32,
                bound: 5,
                step: 1,
                body,
                side_entry: None,
            }))
        };
        let forms = simpler_forms(&l(body.clone()));
        // While-loop counters start at 1 in the body.
        assert_eq!(forms[0], vec![Stmt::Print(Expr::Const(1, Scalar::I32))]);
        let exits = vec![Stmt::If {
            cond: Expr::int(1),
            then: vec![Stmt::Continue],
            els: vec![],
        }];
        assert!(leaves_loop(&exits));
        assert!(simpler_forms(&l(exits)).iter().all(|f| f.len() == 1));
        let switch_break = vec![Stmt::Switch {
            scrutinee: Expr::int(0),
            cases: vec![Case {
                label: 0,
                body: vec![Stmt::Break],
                brk: true,
            }],
            default: None,
        }];
        assert!(!leaves_loop(&switch_break));
    }

    fn count_args(p: &Program, fname: &str) -> Vec<usize> {
        let mut v = Vec::new();
        for_each_stmt(p, &mut |s| {
            if let Stmt::Call { func, args, .. } = s {
                if func == fname {
                    v.push(args.len());
                }
            }
        });
        v
    }
}
