//! Building a program for a machine: C (or text IR) or linear assembly (LAI) → ST231/ST120
//! machine code. Used by `ssalab compile`, `ssalab run` and the bench sweep.
//!
//! C and text IR take the mid-level pipeline (`-O0`/`-O2`) and then the back end's pass list
//! (`compiler::backend::compile_module`): `isel`, the function passes of the configuration
//! (baseline: `out-of-ssa`, `irc`, `frame`), `sched`, `emit`. A `.lai` file is parsed into
//! machine SSA (`compiler::lai`, located diagnostics as for C) and enters the back end right
//! after instruction selection (`compiler::backend::compile_machine_module`); its target is
//! the file's `.target` (a `--target` that disagrees is an error).
//!
//! The pass-debugging options (`--print-before`, `--print-after`, `--stop-after`,
//! `--print-changed`, `--filter-function`, `--dump-dir`, `--time-passes`: `crate::pass_debug`,
//! docs/debugging.md) accept the stages of the chosen build only: `front` or `lai`, the
//! mid-level passes of the `-O` level, `isel`, the configuration's function passes, `sched`,
//! `emit`. `--stop-after` ends the build with [`Outcome::Stopped`]. `--verify` runs the SSA verifier, the machine-IR verifier in the form each pass
//! must produce and the allocation checker; `--check-each-pass` runs the program with the IR
//! interpreter after every mid-level pass (for LAI: with the machine-IR interpreter on the
//! parsed module) and with the machine-IR interpreter after every back-end pass, and stops
//! at the first pass that changes its output or exit status.

use crate::frontend::{build_module, format_stats, FrontArgs, Opt};
use crate::pass_debug::{Dumpable, Dumper, Listing, PassDebugArgs, Pipeline, Snapshot};
use clap::Args;
use compiler::backend::{self, BackendConfig, BackendOutput};
use compiler::ir;
use compiler::mir;
use compiler::pipeline::PassStats;
use simulator::isa::Target;
use std::path::{Path, PathBuf};

/// Compilation options shared by `compile` and `run`.
#[derive(Args, Debug, Clone)]
pub struct BuildArgs {
    /// Add a directory to the `#include` search path.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Define a macro (`NAME` or `NAME=VALUE`).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// Undefine a macro.
    #[arg(short = 'U', value_name = "NAME")]
    pub undefine: Vec<String>,
    /// Optimisation level of the mid-level pipeline (`-O0`: SSA only; `-O2`: all).
    #[arg(short = 'O', value_name = "LEVEL", default_value = "2")]
    pub opt: Opt,
    /// Pipeline configuration (`ssalab configs` lists them).
    #[arg(long, value_name = "NAME", default_value = "baseline")]
    pub config: String,
    /// Restrict every allocatable register class to its first N registers (forces spills).
    #[arg(long, value_name = "N")]
    pub regs: Option<u32>,
    /// Do not schedule: one operation per bundle.
    #[arg(long)]
    pub no_sched: bool,
    /// ST120: do not if-convert diamonds into guarded code.
    #[arg(long)]
    pub no_if_convert: bool,
    /// ST120: do not form post-increment loads/stores.
    #[arg(long)]
    pub no_post_increment: bool,
    /// Verify every pass's output (SSA verifier, machine-IR verifier, allocation checker).
    #[arg(long)]
    pub verify: bool,
    /// Interpret the program after every pass and stop at the first one that changes it.
    #[arg(long)]
    pub check_each_pass: bool,
    // --print-before/--print-after/--stop-after PASS, --print-changed, --filter-function,
    // --dump-dir, --time-passes.
    #[command(flatten)]
    pub passes: PassDebugArgs,
    /// Keep a copy of the module after every back-end function pass in [`Built::stages`]
    /// (set by `--emit dot`, not an option of its own).
    #[arg(skip)]
    pub keep_stages: bool,
}

impl BuildArgs {
    /// The front-end options: the dumps and the statistics table are the build's (see
    /// [`build_outcome`]); only `--stop-after` is passed on, for the mid-level pipeline.
    fn front_args(&self, input: &Path) -> FrontArgs {
        FrontArgs {
            input: input.to_path_buf(),
            include: self.include.clone(),
            define: self.define.clone(),
            undefine: self.undefine.clone(),
            opt: self.opt,
            verify: self.verify,
            passes: PassDebugArgs {
                stop_after: self.passes.stop_after.clone(),
                ..PassDebugArgs::default()
            },
        }
    }

    /// The back-end configuration these options select.
    pub fn config(&self, target: Target) -> Result<BackendConfig, String> {
        let mut c = BackendConfig::named(&self.config, target).ok_or_else(|| {
            let names: Vec<&str> = backend::CONFIGS.iter().map(|c| c.0).collect();
            format!(
                "error: unknown configuration `{}`; valid: {}",
                self.config,
                names.join(", ")
            )
        })?;
        c.regalloc.regs = self.regs;
        c.sched.enabled = !self.no_sched;
        c.isel.if_convert = !self.no_if_convert;
        c.isel.post_increment = !self.no_post_increment;
        c.verify = self.verify;
        Ok(c)
    }
}

/// A compiled program: where it came from and the back end's output.
pub struct Built {
    /// The back-end configuration used.
    pub config: BackendConfig,
    /// The SSA IR module (C and text-IR input; `None` for LAI input, which has no IR level).
    pub ir: Option<ir::Module>,
    /// The machine-SSA module the back end's function passes started from: the output of
    /// instruction selection, or the parsed LAI file (SSA form, pins, before out-of-SSA).
    pub machine_ssa: mir::Module,
    /// LAI input: per function (module order), per block, the `.freq` the file gives (empty
    /// for C).
    pub freqs: Vec<Vec<Option<u64>>>,
    pub backend: BackendOutput,
    pub stats: Vec<PassStats>,
    /// With `BuildArgs::keep_stages`: the machine-SSA module (stage `isel` or `lai`), then
    /// the module after each function pass of the configuration, in order (else empty).
    pub stages: Vec<(String, mir::Module)>,
}

/// The name `--print-after` uses for the parsed LAI module.
pub const LAI_STAGE: &str = "lai";

/// Whether `path` is linear assembly input (`.lai`).
pub fn is_lai(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "lai")
}

/// Whether `path` is an input `compile`/`run` build first: C, text IR or LAI.
pub fn is_buildable(path: &Path) -> bool {
    is_lai(path) || path.extension().is_some_and(|e| e == "c" || e == "ir")
}

/// Behaviour of a program run: (exit status, output).
type Behaviour = (i32, Vec<u8>);

fn describe(r: &Behaviour) -> String {
    let text = String::from_utf8_lossy(&r.1);
    let short: String = text.chars().take(200).collect();
    format!("exit {} output {:?}", r.0, short)
}

/// Runs a machine-level module with the machine-IR interpreter: (exit status, output).
fn mir_behaviour(m: &mir::Module) -> Result<Behaviour, String> {
    let out = mir::interp::run_module(m, "main", &Default::default()).map_err(|t| t.to_string())?;
    Ok((out.exit_code, out.output))
}

/// Compares the behaviour after `pass` with the reference (the first stage's).
fn compare(pass: &str, reference: &(String, Behaviour), got: &Behaviour) -> Result<(), String> {
    let (first, r) = reference;
    if r == got {
        return Ok(());
    }
    Err(format!(
        "pass `{pass}` changed the program's behaviour (compared with `{first}`):\n  before: {}\n  after:  {}",
        describe(r),
        describe(got)
    ))
}

/// The message a hook returns to stop the back end at `--stop-after` (never shown: the
/// build recognises it by the dumper's stop point).
const STOP: &str = "stopped by --stop-after";

/// What runs after every back-end stage: the dumps and `--stop-after`, `--check-each-pass`,
/// and keeping the machine-SSA module (isel's output).
struct BackHook<'d, 'a> {
    dumper: &'d mut Dumper<'a>,
    check: bool,
    /// (stage name, behaviour) of the first stage, for `--check-each-pass`.
    reference: Option<(String, Behaviour)>,
    isel: Option<mir::Module>,
    /// Keep the module after every function pass (`--emit dot`).
    keep: bool,
    kept: Vec<(String, mir::Module)>,
}

impl BackHook<'_, '_> {
    fn after(&mut self, pass: &str, m: &mir::Module) -> Result<(), String> {
        if pass == "isel" {
            self.isel = Some(m.clone());
        } else if self.keep {
            self.kept.push((pass.to_string(), m.clone()));
        }
        let stop = self.dumper.after(pass, m)?;
        if self.check {
            let got = mir_behaviour(m)
                .map_err(|t| format!("after `{pass}` the machine-IR interpreter: {t}"))?;
            if let Some(r) = &self.reference {
                compare(pass, r, &got)?;
            }
        }
        if stop {
            return Err(STOP.into());
        }
        Ok(())
    }

    /// `sched` and `emit`, the module-level stages the back end's hook does not see: their
    /// outputs are the assembly text and the object's disassembly. True when the build stops
    /// at one of them.
    fn final_stages(&mut self, out: &BackendOutput) -> Result<bool, String> {
        let names: Vec<String> = out.mir.functions.iter().map(|f| f.name.clone()).collect();
        let asm = Listing {
            text: &out.asm,
            names: &names,
        };
        if self.dumper.after("sched", &asm)? {
            return Ok(true);
        }
        let disassembly = Disassembly {
            object: &out.object,
            names: &names,
        };
        self.dumper.after("emit", &disassembly)
    }
}

/// The object's disassembly as a dumpable listing (disassembled only when a dump needs it).
struct Disassembly<'a> {
    object: &'a simulator::object::Object,
    names: &'a [String],
}

impl Dumpable for Disassembly<'_> {
    fn snapshot(&self) -> Snapshot {
        let text = simulator::asm::disassemble(self.object);
        Listing {
            text: &text,
            names: self.names,
        }
        .snapshot()
    }
}

/// [`Built::stages`]: the start module under its stage name, then the kept ones.
fn stages_of(
    args: &BuildArgs,
    start: &str,
    machine_ssa: &mir::Module,
    kept: Vec<(String, mir::Module)>,
) -> Vec<(String, mir::Module)> {
    if !args.keep_stages {
        return Vec::new();
    }
    let mut v = vec![(start.to_string(), machine_ssa.clone())];
    v.extend(kept);
    v
}

/// Why a build failed: bad usage (an unknown configuration or pass name; exit status 2) or
/// bad input (exit status 1).
#[derive(Debug)]
pub enum BuildError {
    Usage(String),
    Input(String),
}

impl BuildError {
    /// The rendered message.
    pub fn message(&self) -> &str {
        match self {
            BuildError::Usage(m) | BuildError::Input(m) => m,
        }
    }

    /// The exit status: 2 for usage, 1 for input.
    pub fn exit_code(&self) -> u8 {
        match self {
            BuildError::Usage(_) => 2,
            BuildError::Input(_) => 1,
        }
    }
}

impl From<String> for BuildError {
    fn from(m: String) -> BuildError {
        BuildError::Input(m)
    }
}

impl From<BuildError> for String {
    fn from(e: BuildError) -> String {
        match e {
            BuildError::Usage(m) | BuildError::Input(m) => m,
        }
    }
}

/// The end of a build: the program, or the point where `--stop-after` stopped it.
pub enum Outcome {
    Built(Box<Built>),
    /// `--stop-after PASS`: the program as `--print-after PASS` prints it (without the header
    /// line; only `--filter-function`'s function when given).
    Stopped {
        pass: String,
        text: String,
    },
}

/// The stages a C or text-IR build goes through under `config`.
fn c_pipeline(front: &FrontArgs, config: &BackendConfig) -> Pipeline {
    let mut stages = front.stages();
    stages.extend(backend::pass_names(config));
    Pipeline {
        stages,
        context: format!(
            "configuration `{}` at {} on {}",
            config.name,
            front.level_name(),
            config.target
        ),
    }
}

/// The stages a LAI build goes through under `config` (no isel: the file is machine SSA).
fn lai_pipeline(config: &BackendConfig) -> Pipeline {
    let mut stages = vec![LAI_STAGE.to_string()];
    stages.extend(backend::pass_names(config).into_iter().skip(1));
    Pipeline {
        stages,
        context: format!(
            "LAI input, configuration `{}` on {}",
            config.name, config.target
        ),
    }
}

/// `--time-passes`: the table of every pass run so far.
fn print_time_passes(args: &BuildArgs, stats: &[PassStats]) {
    if args.passes.time_passes {
        crate::eprint!(
            "{}",
            format_stats(stats, args.passes.filter_function.as_deref())
        );
    }
}

/// The build stopped at `--stop-after`: the outcome, after the checks the end of a build does.
fn stopped(
    args: &BuildArgs,
    dumper: &Dumper,
    stats: &[PassStats],
) -> Result<Option<Outcome>, BuildError> {
    let Some(text) = dumper.stopped() else {
        return Ok(None);
    };
    dumper.check_filter()?;
    print_time_passes(args, stats);
    Ok(Some(Outcome::Stopped {
        pass: args.passes.stop_after.clone().unwrap_or_default(),
        text: text.to_string(),
    }))
}

/// [`stopped`] where the dumper said the build stops.
fn stopped_here(
    args: &BuildArgs,
    dumper: &Dumper,
    stats: &[PassStats],
) -> Result<Outcome, BuildError> {
    stopped(args, dumper, stats)?
        .ok_or_else(|| BuildError::Input("error: the build stopped before --stop-after".into()))
}

/// Compiles `input` for `target`. C and text IR: front end, runtime, mid-level pipeline,
/// back end. LAI: see [`build_lai`] (the file's `.target` must be `target`).
pub fn build(input: &Path, target: Target, args: &BuildArgs) -> Result<Built, String> {
    built(build_outcome(input, Some(target), args)?)
}

/// Compiles `input` (C, text IR or LAI): for C and text IR `target` defaults to ST231; for
/// LAI it comes from the file's `.target`, and a `target` that disagrees is an error.
pub fn build_program(
    input: &Path,
    target: Option<Target>,
    args: &BuildArgs,
) -> Result<Built, String> {
    built(build_outcome(input, target, args)?)
}

/// The program of a build that was not asked to stop early.
fn built(outcome: Outcome) -> Result<Built, String> {
    match outcome {
        Outcome::Built(b) => Ok(*b),
        Outcome::Stopped { pass, .. } => Err(format!(
            "error: --stop-after {pass}: this command needs the whole pipeline"
        )),
    }
}

/// Compiles `input` (C, text IR or LAI; for C and text IR `target` defaults to ST231), with
/// the pass-debugging options: the program, or where `--stop-after` stopped.
pub fn build_outcome(
    input: &Path,
    target: Option<Target>,
    args: &BuildArgs,
) -> Result<Outcome, BuildError> {
    if is_lai(input) {
        build_lai(input, target, args)
    } else {
        build_c(input, target.unwrap_or(Target::St231), args)
    }
}

/// C and text IR: front end, mid-level pipeline, runtime, back end.
fn build_c(input: &Path, target: Target, args: &BuildArgs) -> Result<Outcome, BuildError> {
    let config = args.config(target).map_err(BuildError::Usage)?;
    let front = args.front_args(input);
    let pipeline = c_pipeline(&front, &config);
    pipeline.check(&args.passes).map_err(BuildError::Usage)?;
    let mut dumper = Dumper::new(&args.passes, &pipeline, &["isel"]);
    let interp_opts = compiler::interp::Options::default();
    // Reference behaviour: the SSA IR of the first stage, by the reference interpreter.
    let mut reference: Option<(String, Behaviour)> = None;
    let check = args.check_each_pass;
    let mut mid_hook = |pass: &str, m: &ir::Module| -> Result<(), String> {
        // The front end stops the mid-level pipeline itself at `--stop-after`.
        dumper.after(pass, m)?;
        if !check {
            return Ok(());
        }
        let out = compiler::interp::run(m, "main", &interp_opts).map_err(|e| e.to_string())?;
        if let Some(t) = &out.trap {
            return Err(format!("after `{pass}` the IR interpreter trapped: {t}"));
        }
        let got = (out.exit_code, out.output);
        match &reference {
            None => reference = Some((pass.to_string(), got)),
            Some(r) => compare(pass, r, &got)?,
        }
        Ok(())
    };
    let (mut module, mut stats) = build_module(&front, &mut mid_hook)?;
    if let Some(o) = stopped(args, &dumper, &stats)? {
        return Ok(o);
    }
    backend::add_runtime(&mut module, front.opt_level())?;
    dumper.before("isel", &module)?;
    let mut hook = BackHook {
        dumper: &mut dumper,
        check,
        reference,
        isel: None,
        keep: args.keep_stages,
        kept: Vec::new(),
    };
    let result = backend::compile_module(&module, &config, &mut |p, m| hook.after(p, m));
    let out = match result {
        Ok(out) => out,
        // The back end returns its statistics with its output only: a stop inside it
        // reports the mid-level passes' (docs/debugging.md).
        Err(e) if e.message == STOP => return stopped_here(args, hook.dumper, &stats),
        Err(e) => return Err(format!("error: {}: {e}", input.display()).into()),
    };
    stats.extend(out.stats.iter().cloned());
    if hook.final_stages(&out)? {
        return stopped_here(args, hook.dumper, &stats);
    }
    hook.dumper.check_filter()?;
    print_time_passes(args, &stats);
    let machine_ssa = hook
        .isel
        .ok_or_else(|| format!("error: {}: the back end ran no isel", input.display()))?;
    let stages = stages_of(args, "isel", &machine_ssa, hook.kept);
    Ok(Outcome::Built(Box::new(Built {
        config,
        ir: Some(module),
        machine_ssa,
        freqs: Vec::new(),
        backend: out,
        stats,
        stages,
    })))
}

/// Compiles a linear-assembly file: parse (located diagnostics), then the back end from
/// machine SSA (`compile_machine_module`) under the configuration of `args`. The target is the
/// file's `.target` (or `target` when the file has none); `target` must agree with it.
/// The pass options accept `lai` (the parsed module), the back end's function passes,
/// `sched`, `emit` and `all`; `-O`, `-I`, `-D`, `-U` and the isel options do not apply.
pub fn build_lai(
    input: &Path,
    target: Option<Target>,
    args: &BuildArgs,
) -> Result<Outcome, BuildError> {
    let name = input.display().to_string();
    crate::cli_io::check_input(input)?;
    let text =
        std::fs::read_to_string(input).map_err(|e| format!("error: cannot read {name}: {e}"))?;
    let lai = compiler::lai::parse_lai_full(&name, &text, target).map_err(|d| d.render())?;
    let file_target = lai.module.target;
    if let Some(t) = target {
        if t != file_target {
            return Err(format!(
                "error: {name}: the file is for {file_target} (`.target {file_target}`), but the target asked for is {t}"
            ).into());
        }
    }
    let config = args.config(file_target).map_err(BuildError::Usage)?;
    let pipeline = lai_pipeline(&config);
    pipeline.check(&args.passes).map_err(BuildError::Usage)?;
    let mut dumper = Dumper::new(&args.passes, &pipeline, &[]);
    let stop = dumper.after(LAI_STAGE, &lai.module)?;
    if stop {
        return stopped_here(args, &dumper, &[]);
    }
    let mut hook = BackHook {
        dumper: &mut dumper,
        check: args.check_each_pass,
        reference: None,
        isel: None,
        keep: args.keep_stages,
        kept: Vec::new(),
    };
    if hook.check {
        let r = mir_behaviour(&lai.module).map_err(|t| {
            format!("error: {name}: the machine-IR interpreter on the parsed program: {t}")
        })?;
        hook.reference = Some((LAI_STAGE.to_string(), r));
    }
    let result =
        backend::compile_machine_module(lai.module.clone(), Vec::new(), &config, &mut |p, m| {
            hook.after(p, m)
        });
    let out = match result {
        Ok(out) => out,
        Err(e) if e.message == STOP => return stopped_here(args, hook.dumper, &[]),
        Err(e) => return Err(format!("error: {name}: {e}").into()),
    };
    let stats = out.stats.clone();
    if hook.final_stages(&out)? {
        return stopped_here(args, hook.dumper, &stats);
    }
    hook.dumper.check_filter()?;
    print_time_passes(args, &stats);
    let stages = stages_of(args, LAI_STAGE, &lai.module, hook.kept);
    Ok(Outcome::Built(Box::new(Built {
        config,
        ir: None,
        machine_ssa: lai.module,
        freqs: lai.freqs,
        backend: out,
        stats,
        stages,
    })))
}
