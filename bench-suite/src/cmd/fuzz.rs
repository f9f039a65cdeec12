//! `ssalab fuzz`: random-program differential testing (see [`ssalab::fuzz`]).
//!
//! * `fuzz gen --seed S [--size small|medium|large]` prints the program of a seed;
//! * `fuzz run --count N --seed S [-j J] [--save DIR]` checks programs S, S+1, ... against the
//!   host compiler at every stage, reduces and saves mismatches, prints a summary; the exit
//!   status is 1 if any program mismatched or the generator produced invalid C;
//! * `fuzz check FILE...` checks given C files (saved reproducers) stage by stage.

use clap::{Args, Subcommand, ValueEnum};
use compiler::pipeline::OptLevel;
use simulator::isa::Target;
use ssalab::fuzz::backend::{self, Selection};
use ssalab::fuzz::driver::{run_campaign, CampaignOptions};
use ssalab::fuzz::oracle::{mid_level_configurations, Checker, Configuration, Verdict};
use ssalab::fuzz::{self, Size};
use ssalab::host::HostCompiler;
use ssalab::programs::programs_root;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct FuzzArgs {
    #[command(subcommand)]
    pub command: FuzzCommand,
}

#[derive(Subcommand, Debug)]
pub enum FuzzCommand {
    /// Print the random C program of a seed (deterministic, free of undefined behaviour).
    Gen(GenArgs),
    /// Check random programs against the host compiler at every compiler stage.
    Run(RunArgs),
    /// Check C files (e.g. saved reproducers) at every stage against the host compiler.
    Check(CheckArgs),
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum SizeArg {
    Tiny,
    Small,
    Medium,
    Large,
}

impl From<SizeArg> for Size {
    fn from(s: SizeArg) -> Size {
        match s {
            SizeArg::Tiny => Size::Tiny,
            SizeArg::Small => Size::Small,
            SizeArg::Medium => Size::Medium,
            SizeArg::Large => Size::Large,
        }
    }
}

#[derive(Args, Debug)]
pub struct GenArgs {
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long, value_enum, default_value = "medium")]
    pub size: SizeArg,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// Number of programs.
    #[arg(long, default_value_t = 100)]
    pub count: u64,
    /// Seed of the first program (then seed+1, seed+2, ...).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: the number of cores).
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
    #[arg(long, value_enum, default_value = "medium")]
    pub size: SizeArg,
    /// Save the original and the reduced program of every mismatch in this directory.
    #[arg(long, value_name = "DIR")]
    pub save: Option<PathBuf>,
    /// Do not reduce mismatching programs.
    #[arg(long)]
    pub no_reduce: bool,
    /// Candidate tests per reduction.
    #[arg(long, default_value_t = 1500)]
    pub reduce_budget: usize,
    /// Step limit of the reference interpretation (programs reaching it are discarded).
    #[arg(long, default_value_t = 20_000_000)]
    pub max_steps: u64,
    /// Check only these configurations, by full name (`O2`, `st120/baseline-r8`; repeatable;
    /// default: all).
    #[arg(long = "config", value_name = "NAME")]
    pub configs: Vec<String>,
    /// Back-end pipeline configurations to check, by name (comma-separated, see `ssalab
    /// configs`; default: every one of them).
    #[arg(long = "configs", value_delimiter = ',', value_name = "NAME")]
    pub backend_configs: Vec<String>,
    /// Mid-level levels of the module handed to the back end (comma-separated; default:
    /// O2,O0).
    #[arg(long, value_delimiter = ',', value_name = "O2|O0")]
    pub opt: Vec<OptArg>,
    /// Interpret a back-end configuration's intermediate stages only when its final result
    /// differs (the first failing stage is still named; much faster).
    #[arg(long)]
    pub quick: bool,
    /// Use the front end's interpretation as the reference instead of the host build (no gcc
    /// run per program; for back-end campaigns).
    #[arg(long)]
    pub front_reference: bool,
    /// Back-end targets to check (comma-separated; default: st231,st120).
    #[arg(long, value_delimiter = ',', value_name = "TARGET")]
    pub targets: Vec<Target>,
    /// Back-end register limits to check (comma-separated; `full` = the whole register file;
    /// default: full,8).
    #[arg(long, value_delimiter = ',', value_name = "N|full")]
    pub regs: Vec<RegsArg>,
    /// Check only the mid-level pipelines (no back end, no simulator).
    #[arg(long)]
    pub no_backend: bool,
    /// Also report how often each -O2 optimisation fired on the programs.
    #[arg(long)]
    pub pass_stats: bool,
}

/// An `--opt` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptArg(pub OptLevel);

impl std::str::FromStr for OptArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "O0" | "0" => Ok(OptArg(OptLevel::O0)),
            "O2" | "2" => Ok(OptArg(OptLevel::O2)),
            _ => Err(format!("`{s}` is not a level (O0 or O2)")),
        }
    }
}

/// A `--regs` value: the whole register file or the first N registers of each class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegsArg(pub Option<u32>);

impl std::str::FromStr for RegsArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "full" {
            return Ok(RegsArg(None));
        }
        match s.parse::<u32>() {
            Ok(n) if n >= 1 => Ok(RegsArg(Some(n))),
            _ => Err(format!(
                "`{s}` is not a register count (a positive number or `full`)"
            )),
        }
    }
}

/// The configurations a `fuzz run` checks: the mid-level pipelines, then (unless
/// `--no-backend`) the back end for every configuration × target × level × register limit.
fn configurations(a: &RunArgs) -> Result<Vec<Box<dyn Configuration>>, String> {
    let mut v = mid_level_configurations();
    if !a.no_backend {
        let mut sel = Selection {
            configs: a.backend_configs.clone(),
            ..Selection::default()
        };
        if !a.targets.is_empty() {
            sel.targets = a.targets.clone();
        }
        if !a.regs.is_empty() {
            sel.regs = a.regs.iter().map(|r| r.0).collect();
        }
        if !a.opt.is_empty() {
            sel.opts = a.opt.iter().map(|o| o.0).collect();
        }
        v.extend(backend::configurations(&sel)?);
    }
    Ok(v)
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// C files to check.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

pub fn main(args: FuzzArgs) -> ExitCode {
    match args.command {
        FuzzCommand::Gen(a) => {
            ssalab::out!("{}", fuzz::program_text(a.seed, a.size.into()));
            ExitCode::SUCCESS
        }
        FuzzCommand::Run(a) => run(a),
        FuzzCommand::Check(a) => check(a),
    }
}

/// A checker for worker `w` with its own scratch directory.
fn checker(w: usize) -> Checker {
    let root = programs_root();
    let dir = std::env::temp_dir().join(format!("ssalab-fuzz-{}-{w}", std::process::id()));
    Checker::new(HostCompiler::new(&root), dir, &root)
}

/// The host compiler is the oracle: without it nothing can be checked.
fn host_compiler_missing() -> bool {
    let cc = std::env::var("CC").unwrap_or_else(|_| "gcc".to_string());
    let found = std::process::Command::new(&cc)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("error: host C compiler `{cc}` not found (set CC); it is the reference");
    }
    !found
}

fn run(a: RunArgs) -> ExitCode {
    if host_compiler_missing() {
        return ExitCode::from(2);
    }
    let known: Vec<String> = match configurations(&a) {
        Ok(v) => v.iter().map(|c| c.name().to_string()).collect(),
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    for c in &a.configs {
        if !known.contains(c) {
            eprintln!(
                "error: unknown configuration `{c}`; valid: {}",
                known.join(", ")
            );
            return ExitCode::from(2);
        }
    }
    if let Some(dir) = &a.save {
        if let Err(e) = ssalab::fuzz::driver::check_save_dir(dir) {
            eprintln!("error: --save: {e}");
            return ExitCode::from(1);
        }
    }
    let jobs = a.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let opts = CampaignOptions {
        count: a.count,
        first_seed: a.seed,
        jobs,
        size: a.size.into(),
        save: a.save.clone(),
        reduce: !a.no_reduce,
        reduce_budget: a.reduce_budget,
        progress: true,
        pass_stats: a.pass_stats,
    };
    let configs = a.configs.clone();
    let checked: Vec<String> = known
        .iter()
        .filter(|n| configs.is_empty() || configs.contains(n))
        .cloned()
        .collect();
    ssalab::outln!("configurations ({}): {}", checked.len(), checked.join(", "));
    let max_steps = a.max_steps;
    let make = move |w: usize| {
        let mut c = checker(w);
        c.configs = configurations(&a).unwrap_or_default();
        c.limits.max_steps = max_steps;
        c.quick = a.quick;
        c.host_reference = !a.front_reference;
        if !configs.is_empty() {
            c.configs.retain(|k| configs.iter().any(|n| n == k.name()));
        }
        c
    };
    let summary = run_campaign(&opts, &make);
    ssalab::out!("{}", summary.render());
    if summary.clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn print_skipped(skipped: &[ssalab::fuzz::oracle::Skip]) {
    for s in skipped {
        ssalab::outln!(
            "    skipped: unimplemented: {} ({})",
            s.config,
            s.message.lines().next().unwrap_or("")
        );
    }
}

fn check(a: CheckArgs) -> ExitCode {
    if host_compiler_missing() {
        return ExitCode::from(2);
    }
    let c = checker(usize::MAX - 1);
    let mut bad = false;
    for f in &a.files {
        if let Err(e) = ssalab::cli_io::check_input(f) {
            eprintln!("{e}");
            bad = true;
            continue;
        }
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", f.display());
                bad = true;
                continue;
            }
        };
        match c.check(&text) {
            Verdict::Agree {
                front_steps,
                skipped,
            } => {
                ssalab::outln!("{}: agree ({front_steps} steps)", f.display());
                print_skipped(&skipped);
            }
            Verdict::Mismatch {
                first,
                others,
                skipped,
            } => {
                bad = true;
                ssalab::outln!(
                    "{}: first failing stage {} ({}): {}",
                    f.display(),
                    first.stage,
                    first.kind,
                    first.detail.lines().next().unwrap_or("")
                );
                for o in others {
                    ssalab::outln!("    also {} ({})", o.stage, o.kind);
                }
                print_skipped(&skipped);
            }
            Verdict::Discarded(r) => ssalab::outln!("{}: discarded: {r}", f.display()),
            Verdict::GeneratorBug(m) => {
                bad = true;
                ssalab::outln!("{}: host compiler problem: {m}", f.display())
            }
        }
    }
    let _ = std::fs::remove_dir_all(&c.workdir);
    if bad {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
