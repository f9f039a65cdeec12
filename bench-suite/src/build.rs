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
//! `--print-after PASS` works for every pass of both halves (`lai` prints the parsed LAI
//! module); `--verify` runs the SSA verifier, the machine-IR verifier in the form each pass
//! must produce and the allocation checker; `--check-each-pass` runs the program with the IR
//! interpreter after every mid-level pass (for LAI: with the machine-IR interpreter on the
//! parsed module) and with the machine-IR interpreter after every back-end pass, and stops
//! at the first pass that changes its output or exit status.

use crate::frontend::{build_module, FrontArgs, Opt};
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
    /// Print the program after this pass (repeatable; mid-level and back-end pass names,
    /// `front`, or `all`).
    #[arg(long, value_name = "PASS")]
    pub print_after: Vec<String>,
    /// Verify every pass's output (SSA verifier, machine-IR verifier, allocation checker).
    #[arg(long)]
    pub verify: bool,
    /// Interpret the program after every pass and stop at the first one that changes it.
    #[arg(long)]
    pub check_each_pass: bool,
    /// Print per-pass statistics (time, instructions, copies) to stderr.
    #[arg(long)]
    pub time_passes: bool,
    /// Keep a copy of the module after every back-end function pass in [`Built::stages`]
    /// (set by `--emit dot`, not an option of its own).
    #[arg(skip)]
    pub keep_stages: bool,
}

impl BuildArgs {
    fn front_args(&self, input: &Path, mid_prints: Vec<String>) -> FrontArgs {
        FrontArgs {
            input: input.to_path_buf(),
            include: self.include.clone(),
            define: self.define.clone(),
            undefine: self.undefine.clone(),
            opt: self.opt,
            print_after: mid_prints,
            verify: self.verify,
            time_passes: false,
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

/// What runs after every back-end stage: `--print-after`, `--check-each-pass`, and keeping
/// the machine-SSA module (isel's output).
struct BackHook {
    prints: Vec<String>,
    check: bool,
    /// (stage name, behaviour) of the first stage, for `--check-each-pass`.
    reference: Option<(String, Behaviour)>,
    isel: Option<mir::Module>,
    /// Keep the module after every function pass (`--emit dot`).
    keep: bool,
    kept: Vec<(String, mir::Module)>,
}

impl BackHook {
    fn prints(&self, pass: &str) -> bool {
        self.prints.iter().any(|p| p == pass || p == "all")
    }

    fn after(&mut self, pass: &str, m: &mir::Module) -> Result<(), String> {
        if pass == "isel" {
            self.isel = Some(m.clone());
        } else if self.keep {
            self.kept.push((pass.to_string(), m.clone()));
        }
        if self.prints(pass) {
            crate::outln!("// after {pass}");
            crate::out!("{m}");
        }
        if self.check {
            let got = mir_behaviour(m)
                .map_err(|t| format!("after `{pass}` the machine-IR interpreter: {t}"))?;
            if let Some(r) = &self.reference {
                compare(pass, r, &got)?;
            }
        }
        Ok(())
    }

    /// `--print-after sched|emit` (module-level stages the hook does not see).
    fn print_final(&self, out: &BackendOutput) {
        if self.prints("sched") {
            crate::outln!("// after sched");
            crate::out!("{}", out.asm);
        }
        if self.prints("emit") {
            crate::outln!("// after emit");
            crate::out!("{}", simulator::asm::disassemble(&out.object));
        }
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

/// Compiles `input` for `target`. C and text IR: front end, runtime, mid-level pipeline,
/// back end. LAI: see [`build_lai`] (the file's `.target` must be `target`).
pub fn build(input: &Path, target: Target, args: &BuildArgs) -> Result<Built, String> {
    if is_lai(input) {
        return build_lai(input, Some(target), args);
    }
    let config = args.config(target)?;
    let back_names = backend::pass_names(&config);
    let mut mid_prints = Vec::new();
    let mut back_prints = Vec::new();
    for p in &args.print_after {
        if p == "all" {
            mid_prints.push(p.clone());
            back_prints.push(p.clone());
        } else if back_names.iter().any(|n| n == p) {
            back_prints.push(p.clone());
        } else {
            mid_prints.push(p.clone());
        }
    }
    let front = args.front_args(input, mid_prints);
    let interp_opts = compiler::interp::Options::default();
    // Reference behaviour: the SSA IR of the first stage, by the reference interpreter.
    let mut reference: Option<(String, Behaviour)> = None;
    let check = args.check_each_pass;
    let mut mid_hook = |pass: &str, m: &ir::Module| -> Result<(), String> {
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
    backend::add_runtime(&mut module, front.opt_level())?;
    let mut hook = BackHook {
        prints: back_prints,
        check,
        reference,
        isel: None,
        keep: args.keep_stages,
        kept: Vec::new(),
    };
    let out = backend::compile_module(&module, &config, &mut |p, m| hook.after(p, m))
        .map_err(|e| format!("error: {}: {e}", input.display()))?;
    hook.print_final(&out);
    stats.extend(out.stats.iter().cloned());
    if args.time_passes {
        eprint!("{}", crate::frontend::format_stats(&stats));
    }
    let machine_ssa = hook
        .isel
        .ok_or_else(|| format!("error: {}: the back end ran no isel", input.display()))?;
    let stages = stages_of(args, "isel", &machine_ssa, hook.kept);
    Ok(Built {
        config,
        ir: Some(module),
        machine_ssa,
        freqs: Vec::new(),
        backend: out,
        stats,
        stages,
    })
}

/// Compiles `input` (C, text IR or LAI): for C and text IR `target` defaults to ST231; for
/// LAI it comes from the file's `.target`, and a `target` that disagrees is an error.
pub fn build_program(
    input: &Path,
    target: Option<Target>,
    args: &BuildArgs,
) -> Result<Built, String> {
    if is_lai(input) {
        build_lai(input, target, args)
    } else {
        build(input, target.unwrap_or(Target::St231), args)
    }
}

/// Compiles a linear-assembly file: parse (located diagnostics), then the back end from
/// machine SSA (`compile_machine_module`) under the configuration of `args`. The target is the
/// file's `.target` (or `target` when the file has none); `target` must agree with it.
/// `--print-after` accepts `lai` (the parsed module), the back end's function passes,
/// `sched`, `emit` and `all`; `-O`, `-I`, `-D`, `-U` and the isel options do not apply.
pub fn build_lai(input: &Path, target: Option<Target>, args: &BuildArgs) -> Result<Built, String> {
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
            ));
        }
    }
    let config = args.config(file_target)?;
    let back_names = backend::pass_names(&config);
    for p in &args.print_after {
        let known = p == "all" || p == LAI_STAGE || back_names.iter().any(|n| n == p);
        if !known || p == "isel" {
            return Err(format!(
                "error: unknown pass `{p}` for --print-after on LAI input; valid: {LAI_STAGE}, all, {}",
                back_names[1..].join(", ")
            ));
        }
    }
    let mut hook = BackHook {
        prints: args.print_after.clone(),
        check: args.check_each_pass,
        reference: None,
        isel: None,
        keep: args.keep_stages,
        kept: Vec::new(),
    };
    if hook.prints(LAI_STAGE) {
        crate::outln!("// after {LAI_STAGE}");
        crate::out!("{}", lai.module);
    }
    if hook.check {
        let r = mir_behaviour(&lai.module).map_err(|t| {
            format!("error: {name}: the machine-IR interpreter on the parsed program: {t}")
        })?;
        hook.reference = Some((LAI_STAGE.to_string(), r));
    }
    let out =
        backend::compile_machine_module(lai.module.clone(), Vec::new(), &config, &mut |p, m| {
            hook.after(p, m)
        })
        .map_err(|e| format!("error: {name}: {e}"))?;
    hook.print_final(&out);
    let stats = out.stats.clone();
    if args.time_passes {
        eprint!("{}", crate::frontend::format_stats(&stats));
    }
    let stages = stages_of(args, LAI_STAGE, &lai.module, hook.kept);
    Ok(Built {
        config,
        ir: None,
        machine_ssa: lai.module,
        freqs: lai.freqs,
        backend: out,
        stats,
        stages,
    })
}
