//! A memo of function-pass results for callers that compile many modules sharing functions
//! (the differential fuzz driver: every program carries the same runtime routines, and the
//! configurations of one program often hand a pass the very same function).
//!
//! A back-end function pass is a deterministic function of its input function and of the
//! configuration (`MirPass::run` sees nothing else), and so are the verifier and the
//! allocation checker that follow it. So when a pass meets a function *equal* (`==`, the
//! whole `mir::Function`: blocks, vregs, frame, name) to one it already transformed under an
//! equal configuration — and, for the passes followed by the allocation checker, against an
//! equal allocation-form function — the stored result is exactly what running the pass, the
//! verifier and the checker again would give. Only results that passed every check are
//! stored; an error, a verifier or checker rejection or a panic is never memoised, so it
//! recurs (and is reported) every time.
//!
//! The same holds one level up: scheduling (`sched::schedule_function`) of an equal final-form
//! function, and linking plus assembly text (`emit::link_module`, `emit::asm::asm_text`) of
//! an equal list of scheduled functions with equal globals, are taken from the memo too.
//!
//! Lookup: a structural hash of the function (operations, operands, immediates, flags, block
//! and vreg counts) selects candidates, and full equality decides. Memory is bounded: above
//! [`MAX_INSTS`] stored instructions the memo is emptied.
//!
//! Complexity: a lookup is O(size of the function) (hash + one comparison per candidate);
//! a hit clones the stored output, O(size).

use super::BackendConfig;
use crate::emit::EmitError;
use crate::ir::Global;
use crate::mir::{Function, Reg};
use crate::pipeline::PassDetail;
use crate::regalloc::fasthash::{FastHasher, FastMap};
use crate::sched::{SchedOptions, ScheduledFunction};
use simulator::isa::Target;
use simulator::object::Object;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Stored instructions (inputs and outputs) above which the memo is emptied.
pub const MAX_INSTS: usize = 2_000_000;

/// The configuration a pass may read, without its name and pass list (the pass is named by
/// the key's own field).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Params {
    target: simulator::isa::Target,
    isel: crate::isel::IselOptions,
    regalloc: crate::regalloc::RegallocOptions,
    sched: crate::sched::SchedOptions,
    verify: bool,
}

impl Params {
    fn of(c: &BackendConfig) -> Params {
        Params {
            target: c.target,
            isel: c.isel.clone(),
            regalloc: c.regalloc,
            sched: c.sched,
            verify: c.verify,
        }
    }
}

struct Entry {
    pass: &'static str,
    params: Params,
    input: Arc<Function>,
    /// The allocation-form function the allocation checker compared the output with.
    checked_against: Option<Arc<Function>>,
    output: Shared,
    detail: PassDetail,
}

/// Stored pass results (see the module documentation).
#[derive(Default)]
pub struct PassMemo {
    by_hash: FastMap<u64, Vec<usize>>,
    entries: Vec<Entry>,
    /// Linked modules: (scheduled functions, globals, target) → (object, assembly text),
    /// the most recent [`MAX_LINKED`].
    linked: Vec<Linked>,
    /// Schedules: (final-form function, options) → scheduled function, by function hash.
    schedules: FastMap<u64, Vec<(Arc<Function>, SchedOptions, ScheduledFunction)>>,
    insts: usize,
    /// Lookups answered from the memo and lookups that missed.
    pub hits: u64,
    pub misses: u64,
}

/// What a lookup is about: a pass, its configuration, its input (with its
/// [`function_hash`]), and the allocation-form function its output is checked against (if
/// the checker runs after it).
pub struct Key<'a> {
    pub pass: &'static str,
    pub config: &'a BackendConfig,
    pub input: &'a Shared,
    pub checked_against: Option<&'a Function>,
}

/// A lookup that missed: what [`PassMemo::insert`] needs to store the result.
pub struct Miss {
    hash: u64,
    pass: &'static str,
    params: Params,
}

impl Key<'_> {
    fn hash(&self) -> u64 {
        let mut h = FastHasher::default();
        self.pass.hash(&mut h);
        h.write_u64(self.input.hash);
        h.finish()
    }

    fn matches(&self, e: &Entry) -> bool {
        e.pass == self.pass
            && e.params == Params::of(self.config)
            && (Arc::ptr_eq(&e.input, &self.input.f) || *e.input == *self.input.f)
            && e.checked_against.as_deref() == self.checked_against
    }
}

/// Linked modules kept (one program's configurations often link the same code).
pub const MAX_LINKED: usize = 64;

/// One linked module (`emit::link_module` and `emit::asm::asm_text`, deterministic functions
/// of the scheduled functions, the globals and the target).
struct Linked {
    scheduled: Vec<ScheduledFunction>,
    globals: Vec<Global>,
    target: Target,
    object: Object,
    asm: String,
}

/// A shared copy of a function with its [`function_hash`].
#[derive(Clone)]
pub struct Shared {
    pub f: Arc<Function>,
    pub hash: u64,
}

impl Shared {
    pub fn new(f: &Function) -> Shared {
        Shared {
            f: Arc::new(f.clone()),
            hash: function_hash(f),
        }
    }
}

/// A cheap structural hash: the name, the shape, and each operation's opcode and operand
/// registers (immediates, flags and pins are left to the equality test).
pub fn function_hash(f: &Function) -> u64 {
    let mut h = FastHasher::default();
    f.name.hash(&mut h);
    h.write_usize(f.blocks.len());
    h.write_usize(f.vregs.len());
    for b in &f.blocks {
        h.write_usize(b.insts.len());
        for i in &b.insts {
            i.opc.hash(&mut h);
            for o in i.defs.iter().chain(&i.uses) {
                h.write_u64(match o.reg {
                    Reg::V(v) => u64::from(v.0),
                    Reg::P(p) => (1 << 40) | (p.class as u64) << 8 | u64::from(p.num),
                });
            }
        }
    }
    h.finish()
}

fn size(f: &Function) -> usize {
    f.blocks.iter().map(|b| b.insts.len()).sum::<usize>() + 1
}

impl PassMemo {
    /// The stored output and pass detail for `key`, or what storing a result needs.
    pub fn lookup(&mut self, key: &Key<'_>) -> Result<(Shared, PassDetail), Miss> {
        let hash = key.hash();
        let found = self.by_hash.get(&hash).and_then(|ids| {
            ids.iter()
                .map(|&i| &self.entries[i])
                .find(|e| key.matches(e))
                .map(|e| (e.output.clone(), e.detail.clone()))
        });
        match found {
            Some(r) => {
                self.hits += 1;
                Ok(r)
            }
            None => {
                self.misses += 1;
                Err(Miss {
                    hash,
                    pass: key.pass,
                    params: Params::of(key.config),
                })
            }
        }
    }

    /// Stores the result of a pass that passed every check (`miss` from the lookup of the
    /// same pass, configuration and input).
    pub fn insert(
        &mut self,
        miss: Miss,
        input: Arc<Function>,
        checked_against: Option<Arc<Function>>,
        output: Shared,
        detail: PassDetail,
    ) {
        self.make_room(size(&input) + size(&output.f));
        self.by_hash
            .entry(miss.hash)
            .or_default()
            .push(self.entries.len());
        self.entries.push(Entry {
            pass: miss.pass,
            params: miss.params,
            input,
            checked_against,
            output,
            detail,
        });
    }

    /// Empties the memo if `added` more instructions would exceed [`MAX_INSTS`].
    fn make_room(&mut self, added: usize) {
        if self.insts + added > MAX_INSTS {
            self.by_hash.clear();
            self.entries.clear();
            self.schedules.clear();
            self.linked.clear();
            self.insts = 0;
        }
        self.insts += added;
    }

    /// `f` scheduled with `opts` (`sched::schedule_function`, a deterministic function of
    /// both), from the memo when an equal function was scheduled with equal options. `shared`
    /// is a shared copy of `f` if the caller has one. Errors are not stored.
    pub fn schedule(
        &mut self,
        f: &Function,
        shared: Option<&Shared>,
        opts: &SchedOptions,
    ) -> Result<ScheduledFunction, EmitError> {
        let hash = shared.map_or_else(|| function_hash(f), |s| s.hash);
        if let Some(list) = self.schedules.get(&hash) {
            if let Some((_, _, s)) = list.iter().find(|(g, o, _)| o == opts && **g == *f) {
                self.hits += 1;
                return Ok(s.clone());
            }
        }
        self.misses += 1;
        let s = crate::sched::schedule_function(f, opts)?;
        let input = shared.map_or_else(|| Arc::new(f.clone()), |s| Arc::clone(&s.f));
        self.make_room(2 * size(f));
        self.schedules
            .entry(hash)
            .or_default()
            .push((input, *opts, s.clone()));
        Ok(s)
    }

    /// The object and assembly text of an equal linked module, if one is stored.
    pub fn linked(
        &mut self,
        scheduled: &[ScheduledFunction],
        globals: &[Global],
        target: Target,
    ) -> Option<(Object, String)> {
        let found = self
            .linked
            .iter()
            .find(|l| l.target == target && l.scheduled == scheduled && l.globals == globals)
            .map(|l| (l.object.clone(), l.asm.clone()));
        if found.is_some() {
            self.hits += 1;
        } else {
            self.misses += 1;
        }
        found
    }

    /// Stores a linked module (evicting the oldest beyond [`MAX_LINKED`]).
    pub fn insert_linked(
        &mut self,
        scheduled: &[ScheduledFunction],
        globals: &[Global],
        target: Target,
        object: &Object,
        asm: &str,
    ) {
        if self.linked.len() >= MAX_LINKED {
            self.linked.remove(0);
        }
        self.linked.push(Linked {
            scheduled: scheduled.to_vec(),
            globals: globals.to_vec(),
            target,
            object: object.clone(),
            asm: asm.to_string(),
        });
    }

    /// Number of stored results.
    pub fn len(&self) -> usize {
        self.entries.len() + self.schedules.values().map(Vec::len).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{compile_machine_module, compile_machine_module_memo, CONFIGS};
    use crate::pipeline::{self, OptLevel, PassStats};
    use std::sync::Mutex;

    const SRC: &str = "int g[4];\n\
        int f(int a, int b) { int s = 0; for (int i = 0; i < a; i++) { int t = s; s = b + i; b = t; } return s / (b | 1); }\n\
        int main(void) { g[1] = f(7, 3); return g[1] % 5; }\n";

    fn machine_module(target: simulator::isa::Target) -> mir::Module {
        let mut m = crate::front::compile_source_to_ir("t.c", SRC, &Default::default()).unwrap();
        pipeline::run_passes(
            &mut m,
            &pipeline::mid_level_passes(OptLevel::O2),
            &mut |_, _| Ok(()),
        )
        .unwrap();
        crate::backend::add_runtime(&mut m, OptLevel::O2).unwrap();
        crate::isel::select_module(&m, target, &Default::default()).unwrap()
    }

    use crate::mir;

    /// Whether `f` is stored as some entry's input.
    fn holds_input(m: &PassMemo, f: &Function) -> bool {
        m.entries.iter().any(|e| *e.input == *f)
    }

    /// The statistics without the times (which the memo does not reproduce).
    fn untimed(stats: &[PassStats]) -> Vec<String> {
        stats
            .iter()
            .map(|s| {
                let mut s = s.clone();
                s.time = Default::default();
                format!("{s:?}")
            })
            .collect()
    }

    #[test]
    fn memoised_compilation_equals_a_fresh_one_for_every_configuration() {
        for target in simulator::isa::Target::ALL {
            let mm = machine_module(target);
            let memo = Mutex::new(PassMemo::default());
            for round in 0..2 {
                for (name, _, _) in CONFIGS {
                    for regs in [None, Some(8)] {
                        let mut c = BackendConfig::named(name, target).unwrap();
                        c.verify = true;
                        c.regalloc.regs = regs;
                        let fresh =
                            compile_machine_module(mm.clone(), Vec::new(), &c, &mut |_, _| Ok(()))
                                .unwrap();
                        let memoised = compile_machine_module_memo(
                            mm.clone(),
                            Vec::new(),
                            &c,
                            &mut |_, _| Ok(()),
                            Some(&memo),
                        )
                        .unwrap();
                        assert_eq!(fresh.asm, memoised.asm, "{target:?} {name} round {round}");
                        assert_eq!(fresh.object, memoised.object);
                        assert_eq!(fresh.mir, memoised.mir);
                        assert_eq!(untimed(&fresh.stats), untimed(&memoised.stats));
                    }
                }
            }
            let m = memo.lock().unwrap();
            // The second round is answered entirely from the memo.
            assert!(m.hits >= m.misses, "hits {} misses {}", m.hits, m.misses);
            assert!(holds_input(&m, &mm.functions[0]));
        }
    }

    #[test]
    fn a_different_configuration_or_function_misses() {
        let target = simulator::isa::Target::St231;
        let mm = machine_module(target);
        let memo = Mutex::new(PassMemo::default());
        let c = BackendConfig::named("baseline", target).unwrap();
        compile_machine_module_memo(mm.clone(), Vec::new(), &c, &mut |_, _| Ok(()), Some(&memo))
            .unwrap();
        let misses = memo.lock().unwrap().misses;
        let mut c8 = c.clone();
        c8.regalloc.regs = Some(8);
        let out8 = compile_machine_module_memo(
            mm.clone(),
            Vec::new(),
            &c8,
            &mut |_, _| Ok(()),
            Some(&memo),
        )
        .unwrap();
        let fresh8 =
            compile_machine_module(mm.clone(), Vec::new(), &c8, &mut |_, _| Ok(())).unwrap();
        assert_eq!(out8.asm, fresh8.asm);
        // `out-of-ssa` hits (same input, same options), `irc` onwards must miss.
        assert!(memo.lock().unwrap().misses > misses);
        let mut other = mm.clone();
        other.functions[0].name.push('x');
        let before = memo.lock().unwrap().misses;
        let _ = compile_machine_module_memo(other, Vec::new(), &c, &mut |_, _| Ok(()), Some(&memo));
        assert!(
            memo.lock().unwrap().misses > before,
            "a renamed function is another function"
        );
    }
}
