//! Per-function attribution of counters through calls and returns, by calling context.
//!
//! The simulators keep the counters of the *current calling context* in their hot loop (in
//! whatever packed form suits them, see [`Tally`]) and call the [`Profiler`] only at calls
//! and returns (and once at the end). A calling context is the pair (set of functions on the
//! call stack, innermost function): everything that happens while it is current counts
//! *exclusively* for its innermost function and *inclusively* for every function of its set,
//! once each, so recursion is counted once. Events swap the simulator's running tally in and
//! out of the context table; the per-function figures are summed from the contexts at the
//! end (or when the table is compacted). This gives exactly the figures of charging the
//! counters accumulated since the previous event to the innermost activation and, at the end
//! of each outermost activation of a function, the counters since it began, with less work
//! per event: no counter arithmetic, only a transition looked up in a one-entry cache per
//! call site, a frame push or pop and two tally copies.
//!
//! Invariants: every context's set contains its function; the contexts of the frames on the
//! stack are live (never discarded); a context's set is the set of functions of the frames
//! from the entry up to an activation of it (recursive calls keep the set and may keep the
//! context). Complexity: O(1) per event when the call site's cache hits, otherwise one hash
//! lookup (and O(|set|) for a new transition); memory O(contexts + call depth + call sites).
//! Contexts are capped ([`CONTEXT_CAP`]); when a program creates more (many distinct call
//! paths), the table is folded into the per-function results and rebuilt from the current
//! stack, which keeps the results exact.
//!
//! Functions come from the object's `Function` symbols ([`FunctionTable`]); code outside all
//! of them belongs to a pseudo-function `<unknown>`. The active function changes only through
//! calls and returns: a jump into another function (a tail call) stays attributed to the
//! function that jumped.

use super::counters::{Counters, FunctionStats};
use super::trap::TrapKind;
use crate::object::{Object, SymbolKind};
use std::collections::HashMap;

/// Function symbols sorted by address, for address -> function lookups.
#[derive(Clone, Debug)]
pub struct FunctionTable {
    /// (start, end, name), sorted by start; end is exclusive (start + size, or the next
    /// function's start when the size is 0).
    funcs: Vec<(u32, u32, String)>,
}

impl FunctionTable {
    /// Build from the object's function symbols.
    pub fn new(obj: &Object) -> FunctionTable {
        let mut f: Vec<(u32, u32, String)> = obj
            .symbols
            .iter()
            .filter(|s| s.kind == SymbolKind::Function)
            .map(|s| (s.addr, s.addr.saturating_add(s.size), s.name.clone()))
            .collect();
        f.sort_by_key(|x| x.0);
        f.dedup_by_key(|x| x.0);
        let code_end = obj.code_end().min(u64::from(u32::MAX)) as u32;
        for i in 0..f.len() {
            if f[i].1 == f[i].0 {
                f[i].1 = f.get(i + 1).map_or(code_end, |n| n.0);
            }
        }
        FunctionTable { funcs: f }
    }

    /// Number of real functions; index `len()` is the `<unknown>` pseudo-function.
    pub fn len(&self) -> usize {
        self.funcs.len()
    }

    /// True when the object has no function symbols.
    pub fn is_empty(&self) -> bool {
        self.funcs.is_empty()
    }

    /// Index of the function containing `addr`, or `len()` (unknown). O(log n).
    pub fn index_of(&self, addr: u32) -> usize {
        let i = self.funcs.partition_point(|f| f.0 <= addr);
        if i > 0 && addr < self.funcs[i - 1].1 {
            i - 1
        } else {
            self.funcs.len()
        }
    }

    /// Name of function `i` (`<unknown>` for the pseudo-function).
    pub fn name(&self, i: usize) -> &str {
        self.funcs.get(i).map_or("<unknown>", |f| f.2.as_str())
    }

    /// Name of the function containing `addr`, if any (for trap messages).
    pub fn name_at(&self, addr: u32) -> Option<String> {
        let i = self.index_of(addr);
        self.funcs.get(i).map(|f| f.2.clone())
    }

    /// Start address of function `i` (0 for the pseudo-function).
    pub fn addr(&self, i: usize) -> u32 {
        self.funcs.get(i).map_or(0, |f| f.0)
    }
}

/// What a simulator accumulates for the current calling context between profiler events.
/// The simulator keeps one in its hot loop; the profiler stores one per context.
pub trait Tally: Copy + Default {
    /// Move into `settled` whatever could overflow if this tally grew further (called each
    /// time a context is saved, and whenever the simulator asks through
    /// [`Profiler::settle`]).
    fn settle(&mut self, settled: &mut Counters);
    /// The counters of a context: `settled` plus what this tally still holds.
    fn total(&self, settled: &Counters) -> Counters;
}

/// Plain counters as a tally (no packing, nothing to settle).
impl Tally for Counters {
    #[inline]
    fn settle(&mut self, _: &mut Counters) {}
    fn total(&self, settled: &Counters) -> Counters {
        *self + *settled
    }
}

/// Default cap on the number of calling contexts before the table is compacted.
pub const CONTEXT_CAP: usize = 1 << 16;

/// No set / no context / no cached site.
const NONE: u32 = u32::MAX;
/// A return tag that matches no address.
const NO_RET: u64 = u64::MAX;

#[derive(Clone, Copy, Debug)]
struct Context<T> {
    /// The tally saved when the context stopped being current.
    live: T,
    /// Counts moved out of `live` by [`Tally::settle`].
    settled: Counters,
    /// Calls that entered this context.
    calls: u64,
    func: u32,
    set: u32,
}

/// A caller's activation: its context and the return tag of its own activation.
#[derive(Clone, Copy, Debug)]
struct Frame {
    ctx: u32,
    ret: u64,
}

/// One-entry transition cache of a call site.
#[derive(Clone, Copy, Debug)]
struct Site {
    from: u32,
    callee: u32,
    to: u32,
}

const EMPTY_SITE: Site = Site {
    from: NONE,
    callee: NONE,
    to: NONE,
};

/// Call-stack tracker charging counters to functions (see the module documentation).
pub struct Profiler<T: Tally> {
    table: FunctionTable,
    ctxs: Vec<Context<T>>,
    /// Function sets as a tree: set `i` = set `sets[i].0` (or nothing for `NONE`) plus the
    /// function `sets[i].1`.
    sets: Vec<(u32, u32)>,
    set_child: HashMap<(u32, u32), u32>,
    ctx_of: HashMap<(u32, u32), u32>,
    /// Transitions (context, callee) -> context, memoised.
    next: HashMap<(u32, u32), u32>,
    sites: Vec<Site>,
    /// Frames of the callers of the current activation (innermost last).
    stack: Vec<Frame>,
    cur: u32,
    cur_ret: u64,
    /// Most caller frames (the call depth limit minus the current activation).
    max_frames: usize,
    cap: usize,
    /// Per function (pseudo-function last), folded from discarded contexts.
    calls: Vec<u64>,
    inclusive: Vec<Counters>,
    exclusive: Vec<Counters>,
    totals: Counters,
}

impl<T: Tally> Profiler<T> {
    /// A profiler whose first activation is the function containing `entry`, returning to
    /// `entry_ret` (see [`Profiler::ret_to`]); call sites are numbered `0..sites` (others
    /// work, uncached).
    pub fn new(
        table: FunctionTable,
        entry: u32,
        entry_ret: u32,
        max_depth: u32,
        sites: usize,
    ) -> Self {
        Self::with_cap(table, entry, entry_ret, max_depth, sites, CONTEXT_CAP)
    }

    fn with_cap(
        table: FunctionTable,
        entry: u32,
        entry_ret: u32,
        max_depth: u32,
        sites: usize,
        cap: usize,
    ) -> Self {
        let n = table.len() + 1;
        let entry_fn = table.index_of(entry) as u32;
        let mut p = Profiler {
            table,
            ctxs: Vec::new(),
            sets: Vec::new(),
            set_child: HashMap::new(),
            ctx_of: HashMap::new(),
            next: HashMap::new(),
            sites: vec![EMPTY_SITE; sites],
            stack: Vec::with_capacity((max_depth as usize).min(1 << 16)),
            cur: 0,
            cur_ret: u64::from(entry_ret),
            max_frames: max_depth.max(1) as usize - 1,
            cap: cap.max(2),
            calls: vec![0; n],
            inclusive: vec![Counters::default(); n],
            exclusive: vec![Counters::default(); n],
            totals: Counters::default(),
        };
        p.cur = p.root(entry_fn);
        p.ctxs[p.cur as usize].calls = 1;
        p
    }

    /// The function table.
    pub fn table(&self) -> &FunctionTable {
        &self.table
    }

    /// Index of the innermost active function.
    pub fn current(&self) -> usize {
        self.ctxs[self.cur as usize].func as usize
    }

    /// Current call depth (1 inside the entry function).
    pub fn depth(&self) -> usize {
        self.stack.len() + 1
    }

    /// Let the current context's tally settle (for simulators that must bound its growth).
    #[inline(always)]
    pub fn settle(&mut self, tally: &mut T) {
        tally.settle(&mut self.ctxs[self.cur as usize].settled);
    }

    /// The current context's settled counters, for simulators that settle their running
    /// tally themselves (what they move there must come out of the tally).
    #[inline(always)]
    pub fn settled_mut(&mut self) -> &mut Counters {
        &mut self.ctxs[self.cur as usize].settled
    }

    /// A call from call site `site` to the function with index `callee` (from
    /// [`FunctionTable::index_of`]; out-of-range means `<unknown>`) happened: `tally` (the
    /// current context's, the calling bundle included) is saved and replaced by the callee
    /// context's. `ret` tags the new activation for [`Profiler::ret_to`].
    #[inline(always)]
    pub fn call(
        &mut self,
        site: usize,
        callee: usize,
        ret: u32,
        tally: &mut T,
    ) -> Result<(), TrapKind> {
        if self.stack.len() >= self.max_frames {
            return Err(TrapKind::CallDepth);
        }
        // Out-of-range indices (any of them means `<unknown>`) are clamped on a cache miss;
        // the cache compares the index as given.
        let callee = callee.min(u32::MAX as usize) as u32;
        self.save(tally);
        let to = match self.sites.get(site) {
            Some(s) if s.from == self.cur && s.callee == callee => s.to,
            _ => self.call_slow(site, callee),
        };
        self.stack.push(Frame {
            ctx: self.cur,
            ret: self.cur_ret,
        });
        self.cur = to;
        self.cur_ret = u64::from(ret);
        let c = &mut self.ctxs[to as usize];
        c.calls += 1;
        *tally = c.live;
        Ok(())
    }

    /// A return happened (the returning bundle is in `tally`, charged to the callee). A
    /// return with no caller on the stack keeps charging the current function.
    #[inline(always)]
    pub fn ret(&mut self, tally: &mut T) {
        if let Some(f) = self.stack.pop() {
            self.save(tally);
            self.cur = f.ctx;
            self.cur_ret = f.ret;
            *tally = self.ctxs[f.ctx as usize].live;
        }
    }

    /// A jump to `target` that is a return when `target` is the current activation's return
    /// tag: then like [`Profiler::ret`] (the entry activation's tag matches once), and true.
    #[inline(always)]
    pub fn ret_to(&mut self, target: u32, tally: &mut T) -> bool {
        if u64::from(target) != self.cur_ret {
            return false;
        }
        if self.stack.is_empty() {
            self.cur_ret = NO_RET;
        } else {
            self.ret(tally);
        }
        true
    }

    /// End of the run: the per-function statistics in address order (the `<unknown>`
    /// pseudo-function only if it was active) and the totals of the run.
    pub fn finish(mut self, tally: T) -> (Vec<FunctionStats>, Counters) {
        self.save(&tally);
        self.fold_all();
        let n = self.table.len();
        let mut out = Vec::with_capacity(n + 1);
        for i in 0..=n {
            if i == n && self.calls[i] == 0 {
                break;
            }
            out.push(FunctionStats {
                name: self.table.name(i).to_string(),
                addr: self.table.addr(i),
                calls: self.calls[i],
                inclusive: self.inclusive[i],
                exclusive: self.exclusive[i],
            });
        }
        (out, self.totals)
    }

    #[inline(always)]
    fn save(&mut self, tally: &T) {
        let c = &mut self.ctxs[self.cur as usize];
        let mut t = *tally;
        t.settle(&mut c.settled);
        c.live = t;
    }

    /// The context entered by calling `callee` from the current one, cached for `site`.
    #[cold]
    #[inline(never)]
    fn call_slow(&mut self, site: usize, callee: u32) -> u32 {
        if self.ctxs.len() >= self.cap {
            self.compact();
        }
        let to = self.transition(self.cur, callee.min(self.table.len() as u32));
        if let Some(s) = self.sites.get_mut(site) {
            *s = Site {
                from: self.cur,
                callee,
                to,
            };
        }
        to
    }

    /// The context for a call of `callee` from context `from`, created if new.
    fn transition(&mut self, from: u32, callee: u32) -> u32 {
        if let Some(&to) = self.next.get(&(from, callee)) {
            return to;
        }
        let set = self.ctxs[from as usize].set;
        let set = if self.members(set).any(|f| f == callee) {
            set
        } else {
            self.set_with(set, callee)
        };
        let to = self.context(set, callee);
        self.next.insert((from, callee), to);
        to
    }

    /// The context of the entry function (a fresh table).
    fn root(&mut self, func: u32) -> u32 {
        let set = self.set_with(NONE, func);
        self.context(set, func)
    }

    /// The set `set` plus `func` (which it does not contain).
    fn set_with(&mut self, set: u32, func: u32) -> u32 {
        let next = self.sets.len() as u32;
        let id = *self.set_child.entry((set, func)).or_insert(next);
        if id == next {
            self.sets.push((set, func));
        }
        id
    }

    /// The context (set, func).
    fn context(&mut self, set: u32, func: u32) -> u32 {
        let next = self.ctxs.len() as u32;
        let id = *self.ctx_of.entry((set, func)).or_insert(next);
        if id == next {
            self.ctxs.push(Context {
                live: T::default(),
                settled: Counters::default(),
                calls: 0,
                func,
                set,
            });
        }
        id
    }

    /// The functions of set `set`.
    fn members(&self, mut set: u32) -> impl Iterator<Item = u32> + '_ {
        std::iter::from_fn(move || {
            let &(parent, f) = self.sets.get(set as usize)?;
            set = parent;
            Some(f)
        })
    }

    /// Add every context's counts to the per-function results and clear them.
    fn fold_all(&mut self) {
        for k in 0..self.ctxs.len() {
            let c = self.ctxs[k];
            let total = c.live.total(&c.settled);
            let f = c.func as usize;
            self.calls[f] += c.calls;
            self.exclusive[f] += total;
            self.totals += total;
            let mut set = c.set;
            while let Some(&(parent, g)) = self.sets.get(set as usize) {
                self.inclusive[g as usize] += total;
                set = parent;
            }
            let c = &mut self.ctxs[k];
            c.live = T::default();
            c.settled = Counters::default();
            c.calls = 0;
        }
    }

    /// Fold the table into the results, then rebuild it with only the contexts of the
    /// current stack (the current tally must have been saved). Doubles the cap when the
    /// stack alone needs more than half of it, so compactions stay rare.
    fn compact(&mut self) {
        self.fold_all();
        let funcs: Vec<u32> = self
            .stack
            .iter()
            .map(|f| self.ctxs[f.ctx as usize].func)
            .chain(std::iter::once(self.ctxs[self.cur as usize].func))
            .collect();
        self.ctxs.clear();
        self.sets.clear();
        self.set_child.clear();
        self.ctx_of.clear();
        self.next.clear();
        self.sites.fill(EMPTY_SITE);
        let mut ctx = self.root(funcs[0]);
        for (k, &f) in funcs.iter().enumerate() {
            if k > 0 {
                ctx = self.transition(ctx, f);
            }
            match self.stack.get_mut(k) {
                Some(frame) => frame.ctx = ctx,
                None => self.cur = ctx,
            }
        }
        if self.ctxs.len() * 2 > self.cap {
            self.cap = self.ctxs.len() * 2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Target;
    use crate::object::Symbol;
    use proptest::prelude::*;

    fn table() -> FunctionTable {
        let mut o = Object::new(Target::St231);
        o.code = vec![0; 0x40];
        for (name, addr, size) in [("main", 0x1000, 0x20), ("f", 0x1020, 0)] {
            o.symbols.push(Symbol {
                name: name.into(),
                kind: SymbolKind::Function,
                addr,
                size,
            });
        }
        FunctionTable::new(&o)
    }

    /// A table of `n` functions of 16 bytes each from 0x1000.
    fn table_n(n: u32) -> FunctionTable {
        let mut o = Object::new(Target::St231);
        o.code = vec![0; 16 * n as usize];
        for i in 0..n {
            o.symbols.push(Symbol {
                name: format!("f{i}"),
                kind: SymbolKind::Function,
                addr: 0x1000 + 16 * i,
                size: 16,
            });
        }
        FunctionTable::new(&o)
    }

    fn at(cycles: u64) -> Counters {
        Counters {
            cycles,
            ..Counters::default()
        }
    }

    #[test]
    fn lookup() {
        let t = table();
        assert_eq!(t.index_of(0x1000), 0);
        assert_eq!(t.index_of(0x101C), 0);
        assert_eq!(t.index_of(0x1020), 1);
        assert_eq!(t.index_of(0x103C), 1);
        assert_eq!(t.index_of(0x1040), 2);
        assert_eq!(t.index_of(0x10), 2);
        assert_eq!(t.name(2), "<unknown>");
    }

    #[test]
    fn attribution_with_recursion() {
        let mut p = Profiler::<Counters>::new(table(), 0x1000, 0, 10, 4);
        let mut t = at(10); // main ran 10
        p.call(0, 1, 0, &mut t).unwrap();
        t += at(5); // f ran 5, recursive call
        p.call(1, 1, 0, &mut t).unwrap();
        t += at(3); // inner f ran 3
        p.ret(&mut t);
        t += at(2); // outer f ran 2 more
        p.ret(&mut t);
        t += at(5); // main ran 5 more
        let (s, total) = p.finish(t);
        assert_eq!(total.cycles, 25);
        assert_eq!(s.len(), 2);
        assert_eq!(
            (s[0].exclusive.cycles, s[0].inclusive.cycles, s[0].calls),
            (15, 25, 1)
        );
        assert_eq!(
            (s[1].exclusive.cycles, s[1].inclusive.cycles, s[1].calls),
            (10, 10, 2)
        );
    }

    #[test]
    fn depth_limit() {
        let mut p = Profiler::<Counters>::new(table(), 0x1000, 0, 2, 0);
        let mut t = at(1);
        p.call(0, 1, 0, &mut t).unwrap();
        assert_eq!(p.call(0, 1, 0, &mut t), Err(TrapKind::CallDepth));
    }

    #[test]
    fn return_tags() {
        let mut p = Profiler::<Counters>::new(table(), 0x1000, 0xFFF0, 10, 1);
        let mut t = at(1);
        p.call(0, 1, 0x1010, &mut t).unwrap();
        assert!(!p.ret_to(0x2000, &mut t));
        assert_eq!(p.current(), 1);
        assert!(p.ret_to(0x1010, &mut t));
        assert_eq!(p.current(), 0);
        assert!(p.ret_to(0xFFF0, &mut t));
        assert!(!p.ret_to(0xFFF0, &mut t), "the entry tag matches once");
        assert_eq!(p.depth(), 1);
    }

    /// The reference: charge each event's increment to the innermost activation and, when
    /// the outermost activation of a function ends, everything since it began.
    fn reference(nfuncs: usize, events: &[(Option<usize>, u64)]) -> Vec<(u64, u64, u64)> {
        let n = nfuncs + 1;
        let (mut calls, mut incl, mut excl, mut on) =
            (vec![0; n], vec![0; n], vec![0; n], vec![0; n]);
        let mut stack: Vec<(usize, u64)> = vec![(0, 0)];
        calls[0] = 1;
        on[0] = 1;
        let mut now = 0;
        for &(ev, inc) in events {
            now += inc;
            excl[stack.last().unwrap().0] += inc;
            match ev {
                Some(f) => {
                    calls[f] += 1;
                    on[f] += 1;
                    stack.push((f, now));
                }
                None if stack.len() > 1 => {
                    let (f, t0) = stack.pop().unwrap();
                    on[f] -= 1;
                    if on[f] == 0 {
                        incl[f] += now - t0;
                    }
                }
                None => {}
            }
        }
        while let Some((f, t0)) = stack.pop() {
            on[f] -= 1;
            if on[f] == 0 {
                incl[f] += now - t0;
            }
        }
        (0..n).map(|i| (calls[i], incl[i], excl[i])).collect()
    }

    fn run_events(
        nfuncs: u32,
        events: &[(Option<usize>, u64)],
        cap: usize,
    ) -> Vec<(u64, u64, u64)> {
        let mut p = Profiler::<Counters>::with_cap(table_n(nfuncs), 0x1000, 0, 1000, 3, cap);
        let mut t = Counters::default();
        for (k, &(ev, inc)) in events.iter().enumerate() {
            t.cycles += inc;
            t.ops += 2 * inc;
            match ev {
                Some(f) => p.call(k % 4, f, 0, &mut t).unwrap(),
                None => p.ret(&mut t),
            }
        }
        let (stats, total) = p.finish(t);
        let sum: u64 = events.iter().map(|e| e.1).sum();
        assert_eq!(total.cycles, sum);
        let mut out = vec![(0, 0, 0); nfuncs as usize + 1];
        for s in &stats {
            assert_eq!(s.inclusive.ops, 2 * s.inclusive.cycles);
            assert_eq!(s.exclusive.ops, 2 * s.exclusive.cycles);
            let i = if s.name == "<unknown>" {
                nfuncs as usize
            } else {
                s.name[1..].parse().unwrap()
            };
            out[i] = (s.calls, s.inclusive.cycles, s.exclusive.cycles);
        }
        out
    }

    #[test]
    fn compaction_keeps_results() {
        // Calls down a chain of distinct functions and back, many times: more contexts
        // than a cap of 3.
        let mut ev = Vec::new();
        for r in 0..5 {
            for f in 1..5 {
                ev.push((Some((f + r) % 5), 1 + f as u64));
            }
            for _ in 0..4 {
                ev.push((None, 3));
            }
        }
        assert_eq!(run_events(5, &ev, 3), reference(5, &ev));
        assert_eq!(run_events(5, &ev, 1 << 16), reference(5, &ev));
    }

    proptest! {
        #[test]
        fn matches_reference(
            ev in proptest::collection::vec((proptest::option::weighted(0.55, 0usize..7), 0u64..20), 0..200),
            cap in 2usize..12,
        ) {
            // Index 6 is out of range: the `<unknown>` pseudo-function.
            let want = reference(6, &ev);
            prop_assert_eq!(run_events(6, &ev, cap), want.clone());
            prop_assert_eq!(run_events(6, &ev, CONTEXT_CAP), want);
        }
    }
}
