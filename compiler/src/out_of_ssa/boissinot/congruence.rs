//! Congruence classes without an interference graph: the dominance-ordered traversal of a
//! class with "equal intersecting ancestors" (SSA book ch. 21 §21.3, Alg. 21.3; Boissinot et
//! al., CGO 2009, §IV "linear interference check between congruence classes"; Budimlić et
//! al., PLDI 2002 for the dominance forest).
//!
//! A class is a list of variables sorted by [`Variables::key`] (dominance pre-order of the
//! definitions). The traversal keeps the stack of the dominance forest: the top, after
//! popping what does not dominate the current variable `v`, is `v.idom`, the nearest
//! member whose definition dominates `v`'s. Every member intersecting `v` intersects
//! `v.idom` too (it is live at `v`'s definition, hence at every definition on the dominance
//! path to it), and the members intersecting a variable are reached from it by
//! `eanc` links — `x.eanc` is the nearest dominating member that intersects `x` *and has its
//! value* (in an interference-free class every intersecting dominator has the same value).
//! So `v` is checked against `v.idom`, `v.idom.eanc`, ... only until the first one that
//! intersects `v`: if it has `v`'s value it becomes `v.eanc` and every further intersecting
//! dominator has that value too; if not, `v` interferes.
//!
//! [`Walk::check`] answers whether the union of two interference-free classes interferes
//! (the class-merging coalescer); [`Walk::decoalesce`] is Alg. 21.3: one pass over an
//! optimistically merged set that *uncolours* interfering variables (with their atomic set,
//! the phi web they belong to) until the coloured rest is interference-free.
//!
//! Complexity: O(class size) stack operations plus the `eanc` chain steps; the chain steps
//! are counted against a budget ([`Walk::steps_left`]); when it runs out the walk answers
//! "interferes" (check) or uncolours `v` (de-coalescing) — both always correct — and counts
//! it as a fallback.

use super::variables::{Variables, NONE};

/// Scratch state shared by all traversals of one function.
pub(super) struct Walk {
    stack: Vec<u32>,
    eanc: Vec<u32>,
    /// `eanc` chain steps still allowed; below zero every query answers conservatively.
    pub steps_left: i64,
    pub budget_fallbacks: u64,
}

/// Whom the de-coalescing uncolours (with the atomic set).
pub(super) trait Colouring {
    fn coloured(&self, x: u32) -> bool;
    /// Uncolours `x`'s atomic set.
    fn uncolour(&mut self, x: u32);
    /// Size of `x`'s atomic set (the cheaper set to uncolour is the smaller one).
    fn atomic_size(&self, x: u32) -> usize;
}

impl Walk {
    pub fn new(nvars: usize, steps: i64) -> Walk {
        Walk {
            stack: Vec::new(),
            eanc: vec![NONE; nvars],
            steps_left: steps,
            budget_fallbacks: 0,
        }
    }

    /// `v.idom` among the coloured members on the stack.
    fn idom(&mut self, vars: &Variables, col: &dyn Colouring, v: u32) -> u32 {
        while let Some(&t) = self.stack.last() {
            if col.coloured(t) && vars.dominates(t, v) {
                return t;
            }
            self.stack.pop();
        }
        NONE
    }

    /// The nearest coloured member on `cur`'s `eanc` chain (from `cur` itself) that
    /// intersects `v`; `Err` when the step budget is exhausted.
    fn nearest_intersecting(
        &mut self,
        vars: &Variables,
        col: &dyn Colouring,
        mut cur: u32,
        v: u32,
    ) -> Result<u32, ()> {
        while cur != NONE && !(col.coloured(cur) && vars.intersect(cur, v)) {
            self.steps_left -= 1;
            if self.steps_left < 0 {
                return Err(());
            }
            cur = self.eanc[cur as usize];
        }
        Ok(cur)
    }

    /// Does the union of the sorted, interference-free classes `a` and `b` interfere?
    pub fn check(&mut self, vars: &Variables, a: &[u32], b: &[u32]) -> bool {
        struct All;
        impl Colouring for All {
            fn coloured(&self, _: u32) -> bool {
                true
            }
            fn uncolour(&mut self, _: u32) {}
            fn atomic_size(&self, _: u32) -> usize {
                1
            }
        }
        self.stack.clear();
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            let v = if j == b.len() || (i < a.len() && vars.key(a[i]) < vars.key(b[j])) {
                i += 1;
                a[i - 1]
            } else {
                j += 1;
                b[j - 1]
            };
            if vars.excluded[v as usize] {
                continue;
            }
            let mut cur = self.idom(vars, &All, v);
            self.eanc[v as usize] = NONE;
            match self.nearest_intersecting(vars, &All, cur, v) {
                Err(()) => {
                    self.budget_fallbacks += 1;
                    return true;
                }
                Ok(c) => cur = c,
            }
            if cur != NONE {
                if vars.value[cur as usize] != vars.value[v as usize] {
                    return true;
                }
                self.eanc[v as usize] = cur;
            }
            self.stack.push(v);
        }
        false
    }

    /// Alg. 21.3: de-coalesces the sorted merged set `set`; returns the number of atomic
    /// sets uncoloured.
    pub fn decoalesce(&mut self, vars: &Variables, col: &mut dyn Colouring, set: &[u32]) -> u64 {
        self.stack.clear();
        let mut uncoloured = 0;
        for &v in set {
            if vars.excluded[v as usize] || !col.coloured(v) {
                continue;
            }
            let idom = self.idom(vars, col, v);
            self.eanc[v as usize] = NONE;
            let mut cur = idom;
            loop {
                cur = match self.nearest_intersecting(vars, col, cur, v) {
                    Ok(c) => c,
                    Err(()) => {
                        self.budget_fallbacks += 1;
                        col.uncolour(v);
                        uncoloured += 1;
                        break;
                    }
                };
                if cur == NONE {
                    break;
                }
                if vars.value[cur as usize] == vars.value[v as usize] {
                    self.eanc[v as usize] = cur;
                    break;
                }
                // `cur` and `v` interfere: uncolour the cheaper atomic set.
                uncoloured += 1;
                if col.atomic_size(cur) <= col.atomic_size(v) {
                    col.uncolour(cur);
                    cur = self.eanc[cur as usize];
                } else {
                    col.uncolour(v);
                    break;
                }
            }
            if col.coloured(v) {
                self.stack.push(v);
            }
        }
        uncoloured
    }
}
