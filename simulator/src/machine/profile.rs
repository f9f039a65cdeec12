//! Per-function attribution of counters through calls and returns.
//!
//! The simulators keep running totals in their hot loop and call the [`Profiler`] only at
//! calls and returns (and once at the end). At each event, the counters accumulated since the
//! previous event are charged to the innermost active function (its *exclusive* counters);
//! when the outermost activation of a function ends, the counters accumulated since it began
//! are added to its *inclusive* counters (so recursion is counted once). Each event costs
//! O(1) plus one 13-field subtraction; memory is O(functions + call depth).
//!
//! Functions come from the object's `Function` symbols ([`FunctionTable`]); code outside all
//! of them belongs to a pseudo-function `<unknown>`. The active function changes only through
//! calls and returns: a jump into another function (a tail call) stays attributed to the
//! function that jumped.

use super::counters::{Counters, FunctionStats};
use super::trap::TrapKind;
use crate::object::{Object, SymbolKind};

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

struct Frame {
    func: usize,
    /// Totals when this activation began (for inclusive counters).
    entry: Counters,
}

/// Call-stack tracker charging counters to functions.
pub struct Profiler {
    table: FunctionTable,
    stack: Vec<Frame>,
    /// Per function (pseudo-function last): calls, inclusive, exclusive, activations on stack.
    calls: Vec<u64>,
    inclusive: Vec<Counters>,
    exclusive: Vec<Counters>,
    on_stack: Vec<u32>,
    /// Totals at the previous event.
    last: Counters,
    max_depth: usize,
}

impl Profiler {
    /// A profiler whose first activation is the function containing `entry`.
    pub fn new(table: FunctionTable, entry: u32, max_depth: u32) -> Profiler {
        let n = table.len() + 1;
        let mut p = Profiler {
            stack: Vec::new(),
            calls: vec![0; n],
            inclusive: vec![Counters::default(); n],
            exclusive: vec![Counters::default(); n],
            on_stack: vec![0; n],
            last: Counters::default(),
            max_depth: max_depth.max(1) as usize,
            table,
        };
        let f = p.table.index_of(entry);
        p.push(f, Counters::default());
        p
    }

    /// The function table.
    pub fn table(&self) -> &FunctionTable {
        &self.table
    }

    /// Index of the innermost active function.
    pub fn current(&self) -> usize {
        self.stack.last().map_or(self.table.len(), |f| f.func)
    }

    /// Current call depth (1 inside the entry function).
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    #[inline]
    fn charge(&mut self, now: Counters) {
        let cur = self.current();
        self.exclusive[cur] += now - self.last;
        self.last = now;
    }

    #[inline]
    fn push(&mut self, func: usize, now: Counters) {
        self.calls[func] += 1;
        self.on_stack[func] += 1;
        self.stack.push(Frame { func, entry: now });
    }

    #[inline]
    fn pop(&mut self, now: Counters) {
        if let Some(fr) = self.stack.pop() {
            self.on_stack[fr.func] -= 1;
            if self.on_stack[fr.func] == 0 {
                self.inclusive[fr.func] += now - fr.entry;
            }
        }
    }

    /// A call to `target` happened; `now` = run totals so far (the counters up to and
    /// including the calling bundle are charged to the caller).
    pub fn call(&mut self, target: u32, now: Counters) -> Result<(), TrapKind> {
        let f = self.table.index_of(target);
        self.call_function(f, now)
    }

    /// Like [`Profiler::call`] with the callee's function index (from
    /// [`FunctionTable::index_of`], which simulators may precompute per call site).
    #[inline]
    pub fn call_function(&mut self, f: usize, now: Counters) -> Result<(), TrapKind> {
        if self.stack.len() >= self.max_depth {
            return Err(TrapKind::CallDepth);
        }
        self.charge(now);
        self.push(f.min(self.table.len()), now);
        Ok(())
    }

    /// A return happened (the returning bundle is charged to the callee). A return with an
    /// empty stack keeps charging the last function.
    #[inline]
    pub fn ret(&mut self, now: Counters) {
        self.charge(now);
        if self.stack.len() > 1 {
            self.pop(now);
        }
    }

    /// End of the run: close every activation and produce the per-function statistics, in
    /// address order; the `<unknown>` pseudo-function appears only if it was active.
    pub fn finish(mut self, now: Counters) -> Vec<FunctionStats> {
        self.charge(now);
        while !self.stack.is_empty() {
            self.pop(now);
        }
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
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Target;
    use crate::object::Symbol;

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
        let mut p = Profiler::new(table(), 0x1000, 10);
        p.call(0x1020, at(10)).unwrap(); // main ran 10
        p.call(0x1020, at(15)).unwrap(); // f ran 5, recursive call
        p.ret(at(18)); // inner f ran 3
        p.ret(at(20)); // outer f ran 2 more
        let s = p.finish(at(25)); // main ran 5 more
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
        let mut p = Profiler::new(table(), 0x1000, 2);
        p.call(0x1020, at(1)).unwrap();
        assert_eq!(p.call(0x1020, at(2)), Err(TrapKind::CallDepth));
    }
}
