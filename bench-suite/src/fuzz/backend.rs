//! Back-end configurations of the differential oracle: the program's SSA IR (mid-level
//! pipeline `-O2` plus the runtime routines, as `ssalab compile` builds it) taken through
//! `compiler::backend::compile_module` for one target and one [`BackendConfig`], with the
//! machine-IR verifier and the allocation checker on (`verify = true`). After every back-end
//! pass the machine-level interpreter (`compiler::mir::interp`) runs the whole module and its
//! output and exit status are compared with the host build; the linked object then runs on
//! the cycle-level simulator (`simulator::sim::run`) and is compared the same way.
//!
//! Stage names are `TARGET/CONFIG/PASS`: `st120/baseline/irc`, `st231/baseline-r8/sim`. A
//! configuration's stages, in order: `mid` (the mid-level pipeline and the runtime; its
//! passes are bisected by the `O2` configuration), `isel`, the configuration's function
//! passes, `sched`, `emit`, `sim`. A compiler error, a verifier or checker failure, a trap
//! or a panic is a mismatch naming the stage where it happened; a panic after the last
//! interpreted pass is charged to `sched` (scheduling and emission share no hook).
//!
//! Budgets (why these factors): the machine-level interpreter counts machine operations:
//! a few per IR instruction plus spill code, but a division or remainder becomes a call of
//! a runtime routine (`__ssalab_divs` ...) costing hundreds of operations where the IR
//! interpreter counts one step (a first campaign hit 4× as false runaways); so it gets 32×
//! the IR budget, and the simulator, which counts cycles (stalls included), 128× it. Both stay finite so a miscompiled loop ends as
//! a runaway, not a hang.

//!
//! Configurations: every row of `compiler::backend::CONFIGS` (Rastello et al. Table 1 and
//! the project's extra rows), on each target, with the whole register file and under
//! `--regs N`, after the mid-level pipeline at `-O2` and (back-end fuzzing of unoptimised
//! code) at `-O0`; [`Selection`] picks a subset. Names: `TARGET/CONFIG[-rN][-O0]`.
//!
//! Checkers (besides the driver's machine-IR verifier after every pass, in the form the pass
//! must produce, and its allocation checker after `irc` and `frame`): the CSSA check after
//! `sreedhar-cssa`, the register-budget check after `irc`, and the encoding round trip after
//! emission ([`super::checks`]); the out-of-pinned-SSA passes run the pinning verifier on
//! their own pinning, and a rejection ("incorrect pinning") is classified as a checker
//! failure. A checker failure is a [`Failure::Checker`] at the stage it follows.
//!
//! Placeholders: a pass still being written returns an error ending in
//! [`UNIMPLEMENTED`]; the configuration is then reported as skipped
//! ([`StageResult::Skipped`]) and counted in the summary, never silently passed.
//!
//! Sharing: all configurations built by one [`configurations`] call share a cache of the
//! mid-level module and of the instruction-selection output per (target, level) for the
//! program being checked (instruction selection does not depend on the configuration), so
//! a program's 64 configurations run the mid-level pipeline twice and isel four times.
//!
//! They also share a memo of function-pass results across programs
//! (`compiler::backend::memo`): a pass that meets a function equal to one it already
//! transformed under the same configuration (the runtime routines in every program; often
//! one function under several configurations) takes the stored result, which passed the
//! verifier and the allocation checker when it was computed. The checkers of this module
//! ([`super::checks`]) and the machine-level interpreter still run on every configuration's
//! module. When a configuration's linked object and assembly text equal those of another
//! configuration of the same program (a third of them, typically), the encoding round trip
//! and the simulation (deterministic functions of them) are not repeated: the verdict and the
//! simulator's result are reused.
//!
//! Quick mode ([`Configuration::run_final`]): the passes run with every verifier and checker
//! but without interpreting the intermediate modules; only the simulator's result is
//! reported. The oracle reruns a configuration in full (interpreting after every pass) when
//! its quick result differs, so the first failing stage is still named.

use super::checks;
use super::oracle::{guarded, Behaviour, Configuration, End, Failure, StageResult};
use compiler::backend::{self, BackendConfig, BackendError};
use compiler::ir::Module;
use compiler::mir;
use compiler::pipeline::{self, OptLevel};
use compiler::regalloc::fasthash::FastHasher;
use simulator::isa::Target;
use simulator::machine::RunOptions;
use simulator::object::Object;
use std::hash::{Hash, Hasher};
use std::ops::ControlFlow;
use std::sync::{Arc, Mutex};

/// Machine-level interpreter steps per IR step of the budget.
const MIR_STEP_FACTOR: u64 = 32;
/// Simulator cycles per IR step of the budget.
const SIM_CYCLE_FACTOR: u64 = 128;

/// How the placeholder of a pass being written ends its error message (`naive_abi`,
/// `pinning_phi`, `sreedhar3::convert_to_cssa`).
pub const UNIMPLEMENTED: &str = "not implemented yet";

/// A change applied to the linked object before simulation (tests plant bugs with it).
pub type ObjectTamper = fn(&mut Object);

/// Which back-end configurations to check.
#[derive(Clone, Debug)]
pub struct Selection {
    /// Names from `compiler::backend::CONFIGS` (empty: all).
    pub configs: Vec<String>,
    pub targets: Vec<Target>,
    /// Register limits (`None`: the whole register file).
    pub regs: Vec<Option<u32>>,
    /// Mid-level optimisation levels of the module handed to the back end.
    pub opts: Vec<OptLevel>,
}

impl Default for Selection {
    /// Every configuration, both targets, the whole register file and 8 registers, at `-O2`
    /// and at `-O0`.
    fn default() -> Self {
        Selection {
            configs: Vec::new(),
            targets: Target::ALL.to_vec(),
            regs: vec![None, Some(8)],
            opts: vec![OptLevel::O2, OptLevel::O0],
        }
    }
}

/// Names of every back-end configuration (`compiler::backend::CONFIGS`).
pub fn config_names() -> Vec<&'static str> {
    backend::CONFIGS.iter().map(|(n, _, _)| *n).collect()
}

/// The configurations of `sel`, in the order config × target × level × registers; they share
/// one per-program cache. Errors on an unknown configuration name.
pub fn configurations(sel: &Selection) -> Result<Vec<Box<dyn Configuration>>, String> {
    let names: Vec<String> = if sel.configs.is_empty() {
        config_names().iter().map(|s| s.to_string()).collect()
    } else {
        sel.configs.clone()
    };
    let cache = Arc::new(FrontCache::default());
    let mut v: Vec<Box<dyn Configuration>> = Vec::new();
    for n in &names {
        for &t in &sel.targets {
            for &opt in &sel.opts {
                for &r in &sel.regs {
                    let mut c = BackendConfig::named(n, t).ok_or_else(|| {
                        format!(
                            "unknown back-end configuration `{n}`; valid: {}",
                            config_names().join(", ")
                        )
                    })?;
                    c.regalloc.regs = r;
                    let mut s = BackendStages::new(c, opt);
                    s.cache = Arc::clone(&cache);
                    v.push(Box::new(s));
                }
            }
        }
    }
    Ok(v)
}

/// Every back-end configuration for `targets` × `regs` (`None` = the whole register file),
/// after `-O2`.
pub fn backend_configurations(
    targets: &[Target],
    regs: &[Option<u32>],
) -> Vec<Box<dyn Configuration>> {
    configurations(&Selection {
        configs: Vec::new(),
        targets: targets.to_vec(),
        regs: regs.to_vec(),
        opts: vec![OptLevel::O2],
    })
    .unwrap_or_default()
}

/// A stage's failure: (kind, message).
type Failed = (Failure, String);
/// The mid-level module of one level, or why there is none.
type MidResult = Result<Arc<Module>, Failed>;
/// The isel output of one (target, level), or why there is none.
type IselResult = Result<Arc<mir::Module>, Failed>;

/// The per-program results shared by the configurations of one worker.
#[derive(Default)]
struct FrontCache {
    entry: Mutex<Option<CacheEntry>>,
    /// Function-pass results, kept across programs (the runtime routines recur in every
    /// program; configurations often hand a pass the same function): see
    /// `compiler::backend::memo` for why a stored result equals a rerun, checks included.
    passes: Mutex<backend::PassMemo>,
}

struct CacheEntry {
    front: Module,
    mid: Vec<(OptLevel, MidResult)>,
    isel: Vec<((Target, OptLevel), IselResult)>,
    /// The machine-IR interpreter's run of the isel output: key (target, level, steps, output).
    isel_run: Vec<((Target, OptLevel, u64, usize), StageResult)>,
    /// Compiled programs that passed the encoding round trip, with their simulations.
    finals: Vec<FinalEntry>,
}

/// A linked object and its assembly text that passed the encoding round trip (both
/// deterministic functions of the pair), and the simulator's runs of the object: key
/// (cycle budget, output cap).
struct FinalEntry {
    hash: u64,
    asm: String,
    object: Object,
    sims: Vec<((u64, usize), StageResult)>,
}

impl CacheEntry {
    /// The index of the stored entry for this (object, assembly text) pair, if any.
    fn find_final(&self, hash: u64, object: &Object, asm: &str) -> Option<usize> {
        self.finals
            .iter()
            .position(|x| x.hash == hash && x.asm == asm && x.object == *object)
    }
}

/// Hash of an (object, assembly text) pair, to find equal pairs quickly.
fn final_hash(object: &Object, asm: &str) -> u64 {
    let mut h = FastHasher::default();
    asm.hash(&mut h);
    object.code.hash(&mut h);
    object.data.hash(&mut h);
    h.finish()
}

impl FrontCache {
    /// Runs `f` on the entry for `front` (a fresh one if the cache holds another program).
    fn with<T>(&self, front: &Module, f: impl FnOnce(&mut CacheEntry) -> T) -> T {
        let mut g = self.entry.lock().unwrap_or_else(|p| p.into_inner());
        if g.as_ref().is_none_or(|e| e.front != *front) {
            *g = Some(CacheEntry {
                front: front.clone(),
                mid: Vec::new(),
                isel: Vec::new(),
                isel_run: Vec::new(),
                finals: Vec::new(),
            });
        }
        f(g.as_mut().expect("entry set above"))
    }
}

/// One target under one back-end configuration.
pub struct BackendStages {
    name: String,
    config: BackendConfig,
    /// Mid-level optimisation level of the module handed to the back end.
    opt: OptLevel,
    /// Applied to the object before simulation (planted-bug tests only).
    pub tamper: Option<ObjectTamper>,
    cache: Arc<FrontCache>,
}

impl BackendStages {
    /// `config` for its target after the mid-level pipeline at `opt`, with verification
    /// forced on; named `TARGET/CONFIG` (`-rN` appended under `--regs N`, `-O0` at `-O0`).
    pub fn new(mut config: BackendConfig, opt: OptLevel) -> Self {
        config.verify = true;
        let mut name = format!("{}/{}", config.target.name(), config.name);
        if let Some(n) = config.regalloc.regs {
            name.push_str(&format!("-r{n}"));
        }
        if opt == OptLevel::O0 {
            name.push_str("-O0");
        }
        BackendStages {
            name,
            config,
            opt,
            tamper: None,
            cache: Arc::default(),
        }
    }

    /// The baseline configuration for `target` after `-O2`, restricted to `regs` registers
    /// per class.
    pub fn baseline(target: Target, regs: Option<u32>) -> Self {
        let mut c = BackendConfig::baseline(target);
        c.regalloc.regs = regs;
        BackendStages::new(c, OptLevel::O2)
    }

    fn stage(&self, pass: &str) -> String {
        format!("{}/{pass}", self.name)
    }

    /// The SSA module handed to the back end: mid-level pipeline, then the runtime.
    fn mid_level(&self, front: &Module) -> Result<Arc<Module>, Failed> {
        let opt = self.opt;
        self.cache.with(front, |e| {
            if let Some((_, r)) = e.mid.iter().find(|(o, _)| *o == opt) {
                return r.clone();
            }
            let r = match guarded(|| mid_level(front, opt)) {
                Ok(Ok(m)) => Ok(Arc::new(m)),
                Ok(Err(msg)) => Err((Failure::PassError, msg)),
                Err(msg) => Err((Failure::Panic, msg)),
            };
            e.mid.push((opt, r.clone()));
            r
        })
    }

    /// Instruction selection of the mid-level module, verified in SSA form.
    fn isel(&self, front: &Module, module: &Module) -> Result<Arc<mir::Module>, Failed> {
        let key = (self.config.target, self.opt);
        let isel_opts = self.config.isel.clone();
        self.cache.with(front, |e| {
            if let Some((_, r)) = e.isel.iter().find(|(k, _)| *k == key) {
                return r.clone();
            }
            let r = match guarded(|| compiler::isel::select_module(module, key.0, &isel_opts)) {
                Err(msg) => Err((Failure::Panic, msg)),
                Ok(Err(err)) => Err((
                    Failure::PassError,
                    format!("isel on @{}: {}", err.function, err.message),
                )),
                Ok(Ok(mm)) => verify_isel(&mm).map(|()| Arc::new(mm)),
            };
            e.isel.push((key, r.clone()));
            r
        })
    }

    /// The machine-IR interpreter's run of the isel output (shared by configurations).
    fn isel_run(
        &self,
        front: &Module,
        mm: &mir::Module,
        steps: u64,
        max_output: usize,
    ) -> StageResult {
        let key = (self.config.target, self.opt, steps, max_output);
        self.cache.with(front, |e| {
            if let Some((_, r)) = e.isel_run.iter().find(|(k, _)| *k == key) {
                return r.clone();
            }
            let r = interpret_mir(mm, steps, max_output);
            e.isel_run.push((key, r.clone()));
            r
        })
    }

    /// The checkers that follow pass `pass` on every function of `m`.
    fn check_after(&self, pass: &str, m: &mir::Module) -> Result<(), String> {
        let mut errs = Vec::new();
        for f in &m.functions {
            if pass == "sreedhar-cssa" {
                errs.extend(checks::check_cssa(f));
            }
            if pass == "irc" {
                if let Some(n) = self.config.regalloc.regs {
                    errs.extend(checks::check_register_budget(f, n));
                }
            }
        }
        if errs.is_empty() {
            return Ok(());
        }
        let what = if pass == "irc" {
            "register-budget check"
        } else {
            "CSSA check"
        };
        Err(format!("{what}: {}", errs.join("; ")))
    }

    /// Runs every stage; with `full`, the machine-level interpreter after isel and after every
    /// pass, else only the verifiers, checkers and the simulator.
    fn run_stages(
        &self,
        front: &Module,
        steps: u64,
        max_output: usize,
        full: bool,
        observe: &mut dyn FnMut(&str, StageResult) -> ControlFlow<()>,
    ) {
        let failed = |(k, m): Failed| StageResult::Failed(k, m);
        let module = match self.mid_level(front) {
            Ok(m) => m,
            Err(f) => {
                let _ = observe(&self.stage("mid"), failed(f));
                return;
            }
        };
        let mm = match self.isel(front, &module) {
            Ok(m) => m,
            Err(f) => {
                let _ = observe(&self.stage("isel"), failed(f));
                return;
            }
        };
        let mir_steps = steps.saturating_mul(MIR_STEP_FACTOR);
        if full
            && observe(
                &self.stage("isel"),
                self.isel_run(front, &mm, mir_steps, max_output),
            )
            .is_break()
        {
            return;
        }
        let mut stopped = false;
        let mut last_seen: Option<String> = Some("isel".to_string());
        let mut hook = |pass: &str, m: &mir::Module| -> Result<(), String> {
            last_seen = Some(pass.to_string());
            let result = match self.check_after(pass, m) {
                Err(msg) => StageResult::Failed(Failure::Checker, msg),
                Ok(()) if full => interpret_mir(m, mir_steps, max_output),
                Ok(()) => return Ok(()),
            };
            let failed = matches!(result, StageResult::Failed(..));
            match observe(&self.stage(pass), result) {
                ControlFlow::Continue(()) if !failed => Ok(()),
                _ => {
                    stopped = true;
                    Err("stopped by the oracle".to_string())
                }
            }
        };
        let compiled = guarded(|| {
            backend::compile_machine_module_memo(
                (*mm).clone(),
                Vec::new(),
                &self.config,
                &mut hook,
                Some(&self.cache.passes),
            )
        });
        if stopped {
            return;
        }
        let mut out = match compiled {
            Ok(Ok(out)) => out,
            Ok(Err(e)) => {
                let result = if is_unimplemented(&e) {
                    StageResult::Skipped(e.to_string())
                } else {
                    StageResult::Failed(error_kind(&e), e.to_string())
                };
                let _ = observe(&self.stage(&e.pass), result);
                return;
            }
            Err(msg) => {
                // The stage after the last one the hook saw.
                let names = backend::pass_names(&self.config);
                let next = match &last_seen {
                    None => 0,
                    Some(p) => names.iter().position(|n| n == p).map_or(0, |i| i + 1),
                };
                let pass = names.get(next).map_or("emit", |s| s.as_str());
                let _ = observe(
                    &self.stage(pass),
                    StageResult::Failed(Failure::Panic, format!("panic: {msg}")),
                );
                return;
            }
        };
        // An object and text equal to ones already checked for this program (another
        // configuration compiled to the same code) reuse the round trip's verdict and the
        // simulation; never with a planted bug (`tamper`).
        let memo = self.tamper.is_none();
        let hash = final_hash(&out.object, &out.asm);
        let known = if memo {
            self.cache
                .with(front, |e| e.find_final(hash, &out.object, &out.asm))
        } else {
            None
        };
        if known.is_none() {
            match guarded(|| checks::check_encoding_round_trip(&out.object, &out.asm)) {
                Ok(Ok(())) => {}
                Ok(Err(msg)) => {
                    let _ = observe(
                        &self.stage("emit"),
                        StageResult::Failed(
                            Failure::Checker,
                            format!("encoding round trip: {msg}"),
                        ),
                    );
                    return;
                }
                Err(msg) => {
                    let _ = observe(
                        &self.stage("emit"),
                        StageResult::Failed(Failure::Panic, format!("encoding round trip: {msg}")),
                    );
                    return;
                }
            }
        }
        if let Some(t) = self.tamper {
            t(&mut out.object);
        }
        let cycles = steps.saturating_mul(SIM_CYCLE_FACTOR);
        let key = (cycles, max_output);
        let stored = known.and_then(|i| {
            self.cache.with(front, |e| {
                e.finals[i]
                    .sims
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, r)| r.clone())
            })
        });
        let result = match stored {
            Some(r) => r,
            None => {
                let r = simulate(&out.object, cycles, max_output);
                if memo {
                    self.cache.with(front, |e| {
                        let i = match e.find_final(hash, &out.object, &out.asm) {
                            Some(i) => i,
                            None => {
                                e.finals.push(FinalEntry {
                                    hash,
                                    asm: out.asm.clone(),
                                    object: out.object.clone(),
                                    sims: Vec::new(),
                                });
                                e.finals.len() - 1
                            }
                        };
                        e.finals[i].sims.push((key, r.clone()));
                    });
                }
                r
            }
        };
        let _ = observe(&self.stage("sim"), result);
    }
}

/// The mid-level pipeline at `opt` on a copy of `front`, then the runtime routines.
fn mid_level(front: &Module, opt: OptLevel) -> Result<Module, String> {
    let mut m = front.clone();
    pipeline::run_passes(&mut m, &pipeline::mid_level_passes(opt), &mut |_, _| Ok(()))
        .map_err(|e| e.to_string())?;
    backend::add_runtime(&mut m, opt)?;
    Ok(m)
}

/// The machine-IR verifier on the isel output (SSA form), as the driver does.
fn verify_isel(mm: &mir::Module) -> Result<(), Failed> {
    for f in &mm.functions {
        let errors = mir::verify::verify_function(f, mir::verify::Form::Ssa);
        if !errors.is_empty() {
            let list: Vec<String> = errors.iter().take(20).map(|e| format!("  {e}")).collect();
            return Err((
                Failure::MachineVerifier,
                format!(
                    "pass `isel` on @{}: machine-IR verifier (Ssa form):\n{}",
                    f.name,
                    list.join("\n")
                ),
            ));
        }
    }
    Ok(())
}

/// Whether `e` is the placeholder error of a pass still being written.
pub fn is_unimplemented(e: &BackendError) -> bool {
    e.message.trim_end().ends_with(UNIMPLEMENTED)
}

/// Runs a machine-level module with the machine-IR interpreter.
pub fn interpret_mir(m: &mir::Module, steps: u64, max_output: usize) -> StageResult {
    let opts = mir::interp::InterpOptions {
        max_steps: steps,
        max_output,
        ..Default::default()
    };
    match guarded(|| mir::interp::run_module(m, "main", &opts)) {
        Err(msg) => StageResult::Failed(Failure::Panic, format!("machine-IR interpreter: {msg}")),
        Ok(Ok(o)) => StageResult::Ran(Behaviour {
            output: o.output,
            exit: o.exit_code as u8,
            end: End::Normal,
            steps: o.steps,
        }),
        Ok(Err(t)) => {
            let end = match t.kind {
                mir::interp::TrapKind::StepLimit(_) => End::StepLimit,
                _ => End::Trap(t.to_string()),
            };
            StageResult::Ran(Behaviour {
                output: Vec::new(),
                exit: 0,
                end,
                steps: t.steps,
            })
        }
    }
}

/// Runs an object on the cycle-level simulator.
pub fn simulate(obj: &Object, cycles: u64, max_output: usize) -> StageResult {
    let opts = RunOptions {
        max_cycles: cycles,
        max_output,
        ..RunOptions::default()
    };
    match guarded(|| simulator::sim::run(obj, &opts)) {
        Err(msg) => StageResult::Failed(Failure::Panic, format!("simulator: {msg}")),
        Ok(r) => {
            let end = match &r.trap {
                None => End::Normal,
                Some(t) if matches!(t.kind, simulator::machine::TrapKind::CycleBudget) => {
                    End::StepLimit
                }
                Some(t) => End::Trap(format!("simulator: {t}")),
            };
            StageResult::Ran(Behaviour {
                output: r.output,
                exit: r.exit_code as u8,
                end,
                steps: r.totals.cycles,
            })
        }
    }
}

/// The failure kind of a back-end error: a verifier or checker rejection, or a pass error.
fn error_kind(e: &BackendError) -> Failure {
    if e.message.contains("machine-IR verifier") || e.message.contains("allocation checker") {
        Failure::MachineVerifier
    } else if e.message.contains("incorrect pinning") {
        Failure::Checker
    } else {
        Failure::PassError
    }
}

impl Configuration for BackendStages {
    fn name(&self) -> &str {
        &self.name
    }

    fn stages(&self) -> Vec<String> {
        let mut v = vec![self.stage("mid")];
        v.extend(
            backend::pass_names(&self.config)
                .iter()
                .map(|p| self.stage(p)),
        );
        v.push(self.stage("sim"));
        v
    }

    fn run(
        &self,
        front: &Module,
        steps: u64,
        max_output: usize,
        observe: &mut dyn FnMut(&str, StageResult) -> ControlFlow<()>,
    ) {
        self.run_stages(front, steps, max_output, true, observe)
    }

    fn run_final(
        &self,
        front: &Module,
        steps: u64,
        max_output: usize,
        observe: &mut dyn FnMut(&str, StageResult) -> ControlFlow<()>,
    ) {
        self.run_stages(front, steps, max_output, false, observe)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_target_configuration_register_limit_and_level() {
        let c = BackendStages::baseline(Target::St120, Some(8));
        assert_eq!(c.name(), "st120/baseline-r8");
        let s = c.stages();
        assert_eq!(s.first().unwrap(), "st120/baseline-r8/mid");
        assert!(s.contains(&"st120/baseline-r8/irc".to_string()), "{s:?}");
        assert_eq!(s.last().unwrap(), "st120/baseline-r8/sim");
        let c = BackendStages::new(
            BackendConfig::named("L_phi+C", Target::St231).unwrap(),
            OptLevel::O0,
        );
        assert_eq!(c.name(), "st231/L_phi+C-O0");
    }

    #[test]
    fn the_default_selection_covers_every_configuration() {
        let all = configurations(&Selection::default()).unwrap();
        // configurations x 2 targets x 2 levels x 2 register limits
        assert_eq!(all.len(), backend::CONFIGS.len() * 8);
        for (n, _, _) in backend::CONFIGS {
            for t in ["st231", "st120"] {
                for suffix in ["", "-r8", "-O0", "-r8-O0"] {
                    let want = format!("{t}/{n}{suffix}");
                    assert!(all.iter().any(|c| c.name() == want), "{want}");
                }
            }
        }
        let bad = Selection {
            configs: vec!["no-such".into()],
            ..Selection::default()
        };
        match configurations(&bad) {
            Err(e) => assert!(e.contains("no-such"), "{e}"),
            Ok(_) => panic!("an unknown configuration name was accepted"),
        }
    }

    #[test]
    fn every_stage_agrees_on_a_small_program() {
        let src = "int g[4] = {1, 2, 3, 4};\n\
                   int f(int a, int b) { return a * b - g[a & 3]; }\n\
                   int main(void) { int s = 0; for (int i = 0; i < 10; i++) s += f(i, i + 1);\n\
                   return s & 255; }\n";
        let front = compiler::front::compile_source_to_ir("t.c", src, &Default::default()).unwrap();
        // s = sum i(i+1) - g[i&3] over 0..10 = 330 - 23 = 307; 307 & 255 = 51.
        let mut ran = 0;
        for c in configurations(&Selection::default()).unwrap() {
            let mut seen = Vec::new();
            let mut skipped = false;
            c.run(&front, 1_000_000, 1 << 16, &mut |stage, r| {
                match r {
                    StageResult::Ran(b) => {
                        assert_eq!(b.end, End::Normal, "{stage}");
                        assert_eq!(b.exit, 51, "{stage}");
                    }
                    StageResult::Failed(k, m) => panic!("{stage}: {k}: {m}"),
                    StageResult::Skipped(m) => {
                        assert!(m.ends_with(UNIMPLEMENTED), "{stage}: {m}");
                        skipped = true;
                    }
                }
                seen.push(stage.to_string());
                ControlFlow::Continue(())
            });
            if skipped {
                continue;
            }
            ran += 1;
            // isel, each function pass, sim (pass_names: isel, passes, sched, emit)
            let names = backend::pass_names(&c_config(c.name()));
            assert_eq!(seen.len(), names.len() - 1, "{seen:?}");
            assert!(seen.last().unwrap().ends_with("/sim"));
        }
        assert!(ran >= 8, "only {ran} configurations ran");
    }

    /// The configuration named by a stage prefix `TARGET/CONFIG[-rN][-O0]`.
    fn c_config(name: &str) -> BackendConfig {
        let (t, rest) = name.split_once('/').unwrap();
        let rest = rest.trim_end_matches("-O0").trim_end_matches("-r8");
        BackendConfig::named(rest, t.parse().unwrap()).unwrap()
    }

    #[test]
    fn only_the_placeholder_message_means_unimplemented() {
        let e = |m: &str| BackendError {
            pass: "naive-abi".into(),
            function: Some("f".into()),
            message: m.into(),
        };
        assert!(is_unimplemented(&e("naive_abi: @f: not implemented yet")));
        assert!(is_unimplemented(&e(
            "sreedhar3: @f: convert_to_cssa not implemented yet"
        )));
        assert!(!is_unimplemented(&e("naive_abi: @f: bad operand")));
        assert!(!is_unimplemented(&e(
            "not implemented yet: a feature the pass rejects"
        )));
    }

    #[test]
    fn quick_mode_reports_only_the_final_stage() {
        let src = "int main(void) { int s = 0; for (int i = 0; i < 5; i++) s += i; return s; }\n";
        let front = compiler::front::compile_source_to_ir("t.c", src, &Default::default()).unwrap();
        let c = BackendStages::baseline(Target::St231, None);
        let mut seen = Vec::new();
        c.run_final(&front, 1_000_000, 1 << 16, &mut |stage, r| {
            assert!(
                matches!(r, StageResult::Ran(ref b) if b.exit == 10),
                "{stage}: {r:?}"
            );
            seen.push(stage.to_string());
            ControlFlow::Continue(())
        });
        assert_eq!(seen, vec!["st231/baseline/sim".to_string()]);
    }
}
