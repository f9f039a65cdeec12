//! The differential oracle: the host C compiler's build of a program is the reference; every
//! ssalab stage's output is executed and compared with it, and the first stage that differs
//! names the guilty pass (stage bisection, docs/reliability.md, "The oracles").
//!
//! A *configuration* is an ordered list of *stages* run on the front end's output. Today there
//! are the mid-level pipelines (`O0`, `O2`), whose stages are their passes, each followed by
//! the SSA verifier and a run of the reference interpreter. Back ends plug in as further
//! [`Configuration`]s: their stages are the back-end passes (interpreted like the mid-level
//! ones) and a final simulator run, each reported to the same `observe` callback as a
//! [`StageResult`], so the driver, the bisection and the reducer need no change.
//!
//! Step limits: the front end's run gets `Limits::max_steps`; a program whose reference run
//! hits it is discarded (counted, not a mismatch). Later stages get a budget relative to the
//! front end's step count ([`stage_step_budget`]); a stage that exceeds it although the host
//! build and the front end's IR ended is reported as a runaway (a miscompiled loop).

use crate::host::{HostCompiler, HostError};
use compiler::front::FrontOptions;
use compiler::interp::{self, Options, TrapKind};
use compiler::ir::Module;
use compiler::pipeline::{self, OptLevel};
use std::fmt;
use std::io::Read as _;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a run of the program did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Behaviour {
    pub output: Vec<u8>,
    /// The exit status modulo 256 (what a host process reports).
    pub exit: u8,
    pub end: End,
    /// Executed IR instructions (0 for host runs).
    pub steps: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    Normal,
    Trap(String),
    StepLimit,
}

/// Why a stage produced no runnable program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Failure {
    /// The front end rejected a program gcc accepted.
    CompileError,
    /// A pass returned an error.
    PassError,
    /// The SSA verifier rejected a pass's output.
    Verifier,
    /// The machine-IR verifier or the allocation checker rejected a back-end pass's output.
    MachineVerifier,
    /// An independent checker rejected a pass's output: the CSSA check, the pinning
    /// verifier, the register-budget check or the encoding round trip.
    Checker,
    /// The compiler (a pass, the verifier or the interpreter) panicked.
    Panic,
    /// The interpreter could not load the module.
    LoadError,
    /// The run trapped.
    Trap,
    /// The run did not end within its step budget.
    Runaway,
    /// The program printed something else.
    Output,
    /// Same output, another exit status.
    ExitStatus,
}

impl Failure {
    pub fn name(self) -> &'static str {
        match self {
            Failure::CompileError => "compile error",
            Failure::PassError => "pass error",
            Failure::Verifier => "SSA verifier",
            Failure::MachineVerifier => "machine verifier",
            Failure::Checker => "checker",
            Failure::Panic => "panic",
            Failure::LoadError => "load error",
            Failure::Trap => "trap",
            Failure::Runaway => "runaway",
            Failure::Output => "wrong output",
            Failure::ExitStatus => "wrong exit status",
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What one stage produced.
#[derive(Clone, Debug)]
pub enum StageResult {
    Ran(Behaviour),
    Failed(Failure, String),
    /// The configuration cannot run yet: one of its passes is a placeholder being written
    /// (its error message). Counted and reported, never taken as agreement.
    Skipped(String),
}

/// The first stage of a configuration whose result differs from the reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageFailure {
    /// `front`, or `CONFIG:PASS` (`#2` for a pass's second run in the pipeline).
    pub stage: String,
    pub kind: Failure,
    pub detail: String,
}

impl StageFailure {
    /// What the reducer must preserve: the stage and the kind of failure.
    pub fn same_bug(&self, other: &StageFailure) -> bool {
        self.stage == other.stage && self.kind == other.kind
    }
}

/// Limits of one check.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Step limit of the reference (front end) interpretation.
    pub max_steps: u64,
    /// Wall-clock limit of the host build's run.
    pub host_timeout: Duration,
    /// Output bytes kept per interpretation.
    pub max_output: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_steps: 20_000_000,
            host_timeout: Duration::from_secs(10),
            max_output: 1 << 20,
        }
    }
}

/// Step budget of a later stage, given the front end's count: generous (SSA adds phis and
/// copies, the optimisations usually remove work), but finite.
pub fn stage_step_budget(front_steps: u64) -> u64 {
    front_steps.saturating_mul(4).saturating_add(1_000_000)
}

/// A pipeline configuration: an ordered list of stages over the front end's module.
pub trait Configuration: Send + Sync {
    fn name(&self) -> &str;

    /// The stage names, in order.
    fn stages(&self) -> Vec<String>;

    /// Runs every stage on a copy of `front`, calling `observe(stage, result)` after each in
    /// order; stops as soon as `observe` breaks. `steps` is the interpreter step budget.
    fn run(
        &self,
        front: &Module,
        steps: u64,
        max_output: usize,
        observe: &mut dyn FnMut(&str, StageResult) -> ControlFlow<()>,
    );

    /// Like [`Configuration::run`], but may leave out the intermediate results that agree
    /// (quick mode): it must report every failure it meets, and the final stage's result.
    /// The oracle reruns [`Configuration::run`] when this reports a difference.
    fn run_final(
        &self,
        front: &Module,
        steps: u64,
        max_output: usize,
        observe: &mut dyn FnMut(&str, StageResult) -> ControlFlow<()>,
    ) {
        self.run(front, steps, max_output, observe)
    }
}

/// A mid-level pipeline (`ssalab interp -O0/-O2`): each pass, then the SSA verifier and an
/// interpretation of the whole module.
pub struct MidLevel {
    name: String,
    passes: Vec<&'static str>,
}

impl MidLevel {
    pub fn new(name: &str, level: OptLevel) -> Self {
        MidLevel {
            name: name.to_string(),
            passes: pipeline::mid_level_passes(level),
        }
    }
}

/// Stage names of a pass list: `CONFIG:PASS`, with `#k` on a pass's k-th run (k >= 2).
pub fn stage_names(config: &str, passes: &[&str]) -> Vec<String> {
    let mut seen: Vec<(&str, usize)> = Vec::new();
    passes
        .iter()
        .map(|p| {
            let n = match seen.iter_mut().find(|(q, _)| q == p) {
                Some((_, n)) => {
                    *n += 1;
                    *n
                }
                None => {
                    seen.push((p, 1));
                    1
                }
            };
            if n == 1 {
                format!("{config}:{p}")
            } else {
                format!("{config}:{p}#{n}")
            }
        })
        .collect()
}

impl Configuration for MidLevel {
    fn name(&self) -> &str {
        &self.name
    }

    fn stages(&self) -> Vec<String> {
        stage_names(&self.name, &self.passes)
    }

    fn run(
        &self,
        front: &Module,
        steps: u64,
        max_output: usize,
        observe: &mut dyn FnMut(&str, StageResult) -> ControlFlow<()>,
    ) {
        let names = self.stages();
        let mut module = front.clone();
        let mut k = 0usize;
        let mut stopped = false;
        let mut hook = |_pass: &str, m: &Module| -> Result<(), String> {
            let stage = &names[k];
            k += 1;
            let verified = guarded(|| compiler::ssa::verify::verify_module(m));
            let result = match verified {
                Err(msg) => StageResult::Failed(Failure::Panic, format!("SSA verifier: {msg}")),
                Ok(Err(errors)) => {
                    let list: Vec<String> = errors.iter().take(5).map(|e| e.to_string()).collect();
                    StageResult::Failed(Failure::Verifier, list.join("; "))
                }
                Ok(Ok(())) => interpret(m, steps, max_output),
            };
            match observe(stage, result) {
                ControlFlow::Continue(()) => Ok(()),
                ControlFlow::Break(()) => {
                    stopped = true;
                    Err("stopped".to_string())
                }
            }
        };
        let r = guarded(|| pipeline::run_passes(&mut module, &self.passes, &mut hook));
        if stopped {
            return;
        }
        // A failing pass is the one after the last stage the hook saw.
        let stage = names.get(k).cloned().unwrap_or_else(|| self.name.clone());
        match r {
            Err(msg) => {
                let _ = observe(&stage, StageResult::Failed(Failure::Panic, msg));
            }
            Ok(Err(e @ pipeline::PipelineError::PassFailed { .. })) => {
                let _ = observe(
                    &stage,
                    StageResult::Failed(Failure::PassError, e.to_string()),
                );
            }
            Ok(_) => {}
        }
    }
}

/// The configurations checked by default: `O0`, `O2`, then every back-end configuration on
/// both targets with the whole register file and with 8 registers per class, after `-O2` and
/// after `-O0` ([`super::backend::Selection::default`]).
pub fn default_configurations() -> Vec<Box<dyn Configuration>> {
    let mut v = mid_level_configurations();
    v.extend(
        super::backend::configurations(&super::backend::Selection::default())
            .expect("the default selection names existing configurations"),
    );
    v
}

/// The mid-level configurations only (`--no-backend`): `O0` and `O2`.
pub fn mid_level_configurations() -> Vec<Box<dyn Configuration>> {
    vec![
        Box::new(MidLevel::new("O0", OptLevel::O0)),
        Box::new(MidLevel::new("O2", OptLevel::O2)),
    ]
}

/// How often each optimisation fired on `module` at `level`: (`pass:detail`, sum over
/// functions and runs of the pass), in pipeline order; empty if the pipeline fails (that is
/// reported by the stage check). For tuning the generator toward programs the passes act on
/// (YARPGen's method).
pub fn pass_fire_counts(module: &Module, level: OptLevel) -> Vec<(String, u64)> {
    let mut m = module.clone();
    let passes = pipeline::mid_level_passes(level);
    let stats = match guarded(|| pipeline::run_passes(&mut m, &passes, &mut |_, _| Ok(()))) {
        Ok(Ok(stats)) => stats,
        _ => return Vec::new(),
    };
    let mut out: Vec<(String, u64)> = Vec::new();
    for st in stats {
        for (key, n) in st.detail {
            let name = format!("{}:{key}", st.pass);
            match out.iter_mut().find(|(k, _)| *k == name) {
                Some((_, total)) => *total += n,
                None => out.push((name, n)),
            }
        }
    }
    out
}

/// Runs `f`, turning a panic into its message (a compiler bug must be reported, not end the
/// campaign).
pub fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        if let Some(s) = payload.downcast_ref::<&str>() {
            s.to_string()
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            "panic with a non-string payload".to_string()
        }
    })
}

/// Runs `m`'s `main` on the reference interpreter.
pub fn interpret(m: &Module, steps: u64, max_output: usize) -> StageResult {
    let opts = Options {
        max_steps: steps,
        max_output,
        ..Options::default()
    };
    match guarded(|| interp::run(m, "main", &opts)) {
        Err(msg) => StageResult::Failed(Failure::Panic, format!("interpreter: {msg}")),
        Ok(Err(e)) => StageResult::Failed(Failure::LoadError, e.to_string()),
        Ok(Ok(o)) => {
            let end = match &o.trap {
                None => End::Normal,
                Some(t) if matches!(t.kind, TrapKind::StepLimit(_)) => End::StepLimit,
                Some(t) => End::Trap(t.to_string()),
            };
            StageResult::Ran(Behaviour {
                output: o.output,
                exit: o.exit_code as u8,
                end,
                steps: o.steps,
            })
        }
    }
}

/// How `got` differs from the reference `want`, if it does.
/// A skipped stage (placeholder pass) is no difference: the caller counts it.
pub fn compare(want: &Behaviour, got: &StageResult) -> Option<(Failure, String)> {
    let b = match got {
        StageResult::Failed(kind, msg) => return Some((*kind, msg.clone())),
        StageResult::Skipped(_) => return None,
        StageResult::Ran(b) => b,
    };
    match &b.end {
        End::Trap(t) => return Some((Failure::Trap, t.clone())),
        End::StepLimit => {
            return Some((Failure::Runaway, format!("no end after {} steps", b.steps)))
        }
        End::Normal => {}
    }
    if b.output != want.output {
        return Some((
            Failure::Output,
            describe_output_difference(&want.output, &b.output),
        ));
    }
    if b.exit != want.exit {
        return Some((
            Failure::ExitStatus,
            format!("exit status {} (expected {})", b.exit, want.exit),
        ));
    }
    None
}

/// The first differing output line, with its number.
fn describe_output_difference(want: &[u8], got: &[u8]) -> String {
    let w = String::from_utf8_lossy(want);
    let g = String::from_utf8_lossy(got);
    let (wl, gl): (Vec<&str>, Vec<&str>) = (w.lines().collect(), g.lines().collect());
    for i in 0..wl.len().max(gl.len()) {
        let (a, b) = (wl.get(i), gl.get(i));
        if a != b {
            return format!(
                "output line {}: expected {}, got {}",
                i + 1,
                a.map(|s| format!("{s:?}"))
                    .unwrap_or_else(|| "end of output".into()),
                b.map(|s| format!("{s:?}"))
                    .unwrap_or_else(|| "end of output".into()),
            );
        }
    }
    "output differs (line endings)".to_string()
}

/// The result of checking one program.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Every stage of every configuration that ran agrees with the host build; `skipped`
    /// names the configurations that could not run (a placeholder pass) and why.
    Agree {
        front_steps: u64,
        skipped: Vec<Skip>,
    },
    /// Some stage differs: the first failure, and the first failures of other configurations.
    Mismatch {
        first: StageFailure,
        others: Vec<StageFailure>,
        skipped: Vec<Skip>,
    },
    /// Not checkable: the reference run hit a limit.
    Discarded(String),
    /// gcc rejected the program, or its build crashed: the generator is wrong.
    GeneratorBug(String),
}

/// A configuration that did not run: its name, the stage and the placeholder's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skip {
    pub config: String,
    pub stage: String,
    pub message: String,
}

/// How one configuration did on one program.
enum Outcome {
    Agree,
    Skipped(Skip),
    Failed(StageFailure),
}

/// Checks programs against the host compiler (one per worker: it owns a scratch directory).
pub struct Checker {
    pub host: HostCompiler,
    /// Scratch directory for the host build of the program being checked.
    pub workdir: PathBuf,
    pub configs: Vec<Box<dyn Configuration>>,
    pub limits: Limits,
    pub front: FrontOptions,
    /// Quick mode: run each configuration without interpreting its intermediate stages, and
    /// rerun it stage by stage only when its result differs (same first failing stage, much
    /// faster when everything agrees).
    pub quick: bool,
    /// The reference is the host build (default). Without it the front end's interpretation
    /// is the reference (for campaigns about the back end: no gcc run per program; the
    /// mid-level smoke tests compare the front end with gcc).
    pub host_reference: bool,
}

/// A reason the host reference is unusable.
#[derive(Clone, Debug)]
pub enum HostProblem {
    /// gcc rejected the program or the build crashed: a generator bug.
    Rejected(String),
    /// The build ran past the time limit.
    Timeout,
}

impl Checker {
    /// A checker with the default configurations, using `workdir` as scratch space.
    pub fn new(host: HostCompiler, workdir: PathBuf, programs_root: &Path) -> Self {
        Checker {
            host,
            workdir,
            configs: default_configurations(),
            limits: Limits::default(),
            front: FrontOptions {
                include_dirs: vec![programs_root.join("include")],
                ..FrontOptions::default()
            },
            quick: false,
            host_reference: true,
        }
    }

    /// Every stage name in order (`front` first).
    pub fn stage_names(&self) -> Vec<String> {
        let mut v = vec!["front".to_string()];
        for c in &self.configs {
            v.extend(c.stages());
        }
        v
    }

    /// Builds and runs `text` with the host compiler.
    pub fn host_run(&self, text: &str) -> Result<Behaviour, HostProblem> {
        let exe = match self.host.build_text(text, &self.workdir) {
            Ok(e) => e,
            Err(HostError::Compile { stderr, .. }) => {
                return Err(HostProblem::Rejected(format!(
                    "gcc rejected the program:\n{stderr}"
                )))
            }
            Err(e) => return Err(HostProblem::Rejected(e.to_string())),
        };
        let out_path = self.workdir.join("stdout.txt");
        run_with_timeout(&exe, &out_path, self.limits.host_timeout)
    }

    /// The front end's module, or its diagnostics.
    pub fn front_end(&self, text: &str) -> Result<Module, String> {
        compiler::front::compile_source_to_ir("fuzz.c", text, &self.front).map_err(|d| d.render())
    }

    /// The reference behaviour of `text`: the host build's run, or (without
    /// `host_reference`) the front end's interpretation if it ended normally.
    fn reference(&self, text: &str) -> Result<Behaviour, Verdict> {
        if self.host_reference {
            return match self.host_run(text) {
                Ok(h) => Ok(h),
                Err(HostProblem::Rejected(m)) => Err(Verdict::GeneratorBug(m)),
                Err(HostProblem::Timeout) => Err(Verdict::Discarded(
                    "host build ran past the time limit".to_string(),
                )),
            };
        }
        let module = match self.front_end(text) {
            Ok(m) => m,
            Err(diag) => return Err(Verdict::GeneratorBug(diag)),
        };
        match interpret(&module, self.limits.max_steps, self.limits.max_output) {
            StageResult::Ran(b) if b.end == End::Normal => Ok(b),
            StageResult::Ran(b) if b.end == End::StepLimit => Err(Verdict::Discarded(format!(
                "step limit of {} reached",
                self.limits.max_steps
            ))),
            other => {
                let (kind, detail) = match other {
                    StageResult::Ran(b) => (Failure::Trap, format!("{:?}", b.end)),
                    StageResult::Failed(k, m) => (k, m),
                    StageResult::Skipped(m) => (Failure::PassError, m),
                };
                Err(Verdict::Mismatch {
                    first: StageFailure {
                        stage: "front".to_string(),
                        kind,
                        detail,
                    },
                    others: Vec::new(),
                    skipped: Vec::new(),
                })
            }
        }
    }

    /// Full check of one program against the reference.
    pub fn check(&self, text: &str) -> Verdict {
        let reference = match self.reference(text) {
            Ok(r) => r,
            Err(v) => return v,
        };
        match self.stages_against(text, &reference, None) {
            Err(reason) => Verdict::Discarded(reason),
            Ok((front_steps, failures, skipped)) => {
                let mut it = failures.into_iter();
                match it.next() {
                    None => Verdict::Agree {
                        front_steps,
                        skipped,
                    },
                    Some(first) => Verdict::Mismatch {
                        first,
                        others: it.collect(),
                        skipped,
                    },
                }
            }
        }
    }

    /// Runs configuration `c` on `module` against `reference`: its first failing stage, or
    /// whether it was skipped. In quick mode a configuration whose quick run agrees is not
    /// run stage by stage.
    fn outcome(
        &self,
        c: &dyn Configuration,
        module: &Module,
        reference: &Behaviour,
        budget: u64,
    ) -> Outcome {
        if self.quick {
            let quick = self.run_one(c, module, reference, budget, true);
            if !matches!(quick, Outcome::Failed(_)) {
                return quick;
            }
        }
        self.run_one(c, module, reference, budget, false)
    }

    /// One run of `c` (`quick`: [`Configuration::run_final`]).
    fn run_one(
        &self,
        c: &dyn Configuration,
        module: &Module,
        reference: &Behaviour,
        budget: u64,
        quick: bool,
    ) -> Outcome {
        let mut result = Outcome::Agree;
        let mut observe = |stage: &str, r: StageResult| {
            if let StageResult::Skipped(message) = r {
                result = Outcome::Skipped(Skip {
                    config: c.name().to_string(),
                    stage: stage.to_string(),
                    message,
                });
                return ControlFlow::Break(());
            }
            match compare(reference, &r) {
                None => ControlFlow::Continue(()),
                Some((kind, detail)) => {
                    result = Outcome::Failed(StageFailure {
                        stage: stage.to_string(),
                        kind,
                        detail,
                    });
                    ControlFlow::Break(())
                }
            }
        };
        if quick {
            c.run_final(module, budget, self.limits.max_output, &mut observe);
        } else {
            c.run(module, budget, self.limits.max_output, &mut observe);
        }
        result
    }

    /// Runs the front end and the configurations (all, or only `only`), comparing every stage
    /// with `reference`. Returns the front end's step count and the first failing stage of the
    /// front end or of each configuration (in order); `Err` when the reference interpretation
    /// hit the step limit (the program is discarded).
    pub fn stages_against(
        &self,
        text: &str,
        reference: &Behaviour,
        only: Option<&str>,
    ) -> Result<(u64, Vec<StageFailure>, Vec<Skip>), String> {
        let module = match self.front_end(text) {
            Ok(m) => m,
            Err(diag) => {
                return Ok((
                    0,
                    vec![StageFailure {
                        stage: "front".to_string(),
                        kind: Failure::CompileError,
                        detail: diag,
                    }],
                    Vec::new(),
                ))
            }
        };
        let front = interpret(&module, self.limits.max_steps, self.limits.max_output);
        if let StageResult::Ran(b) = &front {
            if b.end == End::StepLimit {
                return Err(format!("step limit of {} reached", self.limits.max_steps));
            }
        }
        let front_steps = match &front {
            StageResult::Ran(b) => b.steps,
            StageResult::Failed(..) | StageResult::Skipped(_) => 0,
        };
        if let Some((kind, detail)) = compare(reference, &front) {
            return Ok((
                front_steps,
                vec![StageFailure {
                    stage: "front".to_string(),
                    kind,
                    detail,
                }],
                Vec::new(),
            ));
        }
        let budget = stage_step_budget(front_steps);
        let mut failures = Vec::new();
        let mut skipped = Vec::new();
        for c in &self.configs {
            if only.is_some_and(|o| o != c.name()) {
                continue;
            }
            match self.outcome(c.as_ref(), &module, reference, budget) {
                Outcome::Agree => {}
                Outcome::Skipped(s) => skipped.push(s),
                Outcome::Failed(f) => failures.push(f),
            }
        }
        Ok((front_steps, failures, skipped))
    }

    /// Whether `text` still shows the failure `target` as its first failing stage (the
    /// reducer's test). The ssalab side runs first, against the front end's own behaviour,
    /// so most candidates are rejected without a host build; the host build then confirms the
    /// reference.
    pub fn reproduces(&self, text: &str, target: &StageFailure) -> bool {
        let config = self
            .configs
            .iter()
            .find(|c| c.stages().contains(&target.stage))
            .map(|c| c.name().to_string())
            .unwrap_or_default();
        if target.stage == "front" {
            let Ok(host) = self.host_run(text) else {
                return false;
            };
            return matches!(
                self.stages_against(text, &host, Some("")),
                Ok((_, f, _)) if f.first().is_some_and(|f| f.same_bug(target))
            );
        }
        let Ok(module) = self.front_end(text) else {
            return false;
        };
        let own = match interpret(&module, self.limits.max_steps, self.limits.max_output) {
            StageResult::Ran(b) if b.end == End::Normal => b,
            _ => return false,
        };
        // Configurations before the target's must agree too: the first failure is the same.
        for c in &self.configs {
            let budget = stage_step_budget(own.steps);
            let first = match self.outcome(c.as_ref(), &module, &own, budget) {
                Outcome::Failed(f) => Some(f),
                Outcome::Agree | Outcome::Skipped(_) => None,
            };
            if c.name() == config.as_str() {
                if !first.is_some_and(|f| f.same_bug(target)) {
                    return false;
                }
                break;
            }
            if first.is_some() {
                return false;
            }
        }
        if !self.host_reference {
            return true;
        }
        match self.host_run(text) {
            Ok(host) => compare(&host, &StageResult::Ran(own)).is_none(),
            Err(_) => false,
        }
    }
}

/// Runs `exe` with stdout to `out_path`, killing it after `timeout`.
fn run_with_timeout(
    exe: &Path,
    out_path: &Path,
    timeout: Duration,
) -> Result<Behaviour, HostProblem> {
    let io = |e: std::io::Error| HostProblem::Rejected(format!("cannot run the host build: {e}"));
    let out = std::fs::File::create(out_path).map_err(io)?;
    let mut child = Command::new(exe)
        .stdin(Stdio::null())
        .stdout(Stdio::from(out))
        .stderr(Stdio::null())
        .spawn()
        .map_err(io)?;
    let start = Instant::now();
    let mut nap = Duration::from_micros(200);
    let status = loop {
        if let Some(s) = child.try_wait().map_err(io)? {
            break s;
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            return Err(HostProblem::Timeout);
        }
        std::thread::sleep(nap);
        nap = (nap * 2).min(Duration::from_millis(20));
    };
    let mut output = Vec::new();
    std::fs::File::open(out_path)
        .and_then(|mut f| f.read_to_end(&mut output))
        .map_err(io)?;
    match status.code() {
        Some(c) => Ok(Behaviour {
            output,
            exit: c as u8,
            end: End::Normal,
            steps: 0,
        }),
        None => Err(HostProblem::Rejected(
            "the host build was killed by a signal (undefined behaviour in the program?)"
                .to_string(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_passes_get_numbered_stage_names() {
        let names = stage_names("O2", &["ssa", "gvn", "dce", "gvn"]);
        assert_eq!(names, vec!["O2:ssa", "O2:gvn", "O2:dce", "O2:gvn#2"]);
    }

    #[test]
    fn comparison_names_the_kind_of_difference() {
        let want = Behaviour {
            output: b"1\n2\n".to_vec(),
            exit: 3,
            end: End::Normal,
            steps: 0,
        };
        let mut got = want.clone();
        assert_eq!(compare(&want, &StageResult::Ran(got.clone())), None);
        got.exit = 4;
        assert_eq!(
            compare(&want, &StageResult::Ran(got.clone())).map(|c| c.0),
            Some(Failure::ExitStatus)
        );
        got.output = b"1\n5\n".to_vec();
        let (k, d) = compare(&want, &StageResult::Ran(got.clone())).unwrap();
        assert_eq!(k, Failure::Output);
        assert!(d.contains("line 2"), "{d}");
        got.end = End::StepLimit;
        assert_eq!(
            compare(&want, &StageResult::Ran(got)).map(|c| c.0),
            Some(Failure::Runaway)
        );
    }
}
