//! `ssalab fuzz`: random-program differential testing (see [`ssalab::fuzz`]).
//!
//! * `fuzz gen --seed S [--size small|medium|large]` prints the program of a seed;
//! * `fuzz run --count N --seed S [-j J] [--save DIR]` checks programs S, S+1, ... against the
//!   host compiler at every stage, reduces and saves mismatches, prints a summary; the exit
//!   status is 1 if any program mismatched or the generator produced invalid C;
//! * `fuzz check FILE...` checks given C files (saved reproducers) stage by stage.
//!
//! `fuzz run --out DIR` also writes the campaign's results as files (`fuzz.csv`, `fuzz.toml`);
//! `--shard K/N` runs the K-th block of the seeds, and `ssalab merge` joins the blocks into the
//! files one run writes. `--slurm` submits the campaign to Slurm as a job array of shards and
//! a merge job; `--resume DIR` resubmits its unfinished shards (see [`ssalab::slurm`]).

use clap::{Args, Subcommand, ValueEnum};
use compiler::pipeline::OptLevel;
use simulator::isa::Target;
use ssalab::bench::jobs::Shard;
use ssalab::fuzz::backend::{self, Selection};
use ssalab::fuzz::driver::{run_campaign, CampaignOptions};
use ssalab::fuzz::oracle::{mid_level_configurations, Checker, Configuration, Verdict};
use ssalab::fuzz::{self, Size};
use ssalab::host::HostCompiler;
use ssalab::programs::programs_root;
use ssalab::slurm::fuzz_files::{seed_block, FuzzDefinition, FuzzFiles};
use ssalab::slurm::submit::SubmitOptions;
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
    Run(Box<RunArgs>),
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
    /// configs`; names that contain commas, such as `L_phi,ABI+C`, are recognised whole: the
    /// longest known name wins; default: every one of them).
    #[arg(long = "configs", value_name = "NAME[,NAME...]")]
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
    /// Also write the results into DIR: fuzz.csv (one row per program) and fuzz.toml (the
    /// campaign and its totals), without times, so that runs compare byte for byte.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Run only the K-th of N blocks of the seeds (join the blocks' --out with `ssalab merge`).
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Submit the campaign to Slurm instead of running it: a job array (one block of seeds
    /// per task, each writing `--out`/shards/K), then a job merging them into `--out`.
    #[arg(long, requires = "out", conflicts_with_all = ["shard", "resume"])]
    pub slurm: bool,
    /// With --slurm: number of array tasks (default: 100, at most --count).
    #[arg(long, value_name = "N", requires = "slurm", value_parser = clap::value_parser!(u32).range(1..))]
    pub array_size: Option<u32>,
    /// With --slurm or --resume: the partition (sbatch --partition).
    #[arg(long, value_name = "P")]
    pub partition: Option<String>,
    /// With --slurm or --resume: each task's time limit (sbatch --time).
    #[arg(long, value_name = "T")]
    pub time: Option<String>,
    /// With --slurm or --resume: write the scripts and print them, submit nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Resubmit the unfinished shards of the Slurm campaign in DIR (see `ssalab status DIR`).
    #[arg(long, value_name = "DIR")]
    pub resume: Option<PathBuf>,
}

impl RunArgs {
    /// The shard command's arguments of a `--slurm` campaign: the campaign as given.
    fn slurm_shard_args(&self) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        let mut push = |flag: &str, value: String| {
            v.push(flag.to_string());
            v.push(value);
        };
        push("--count", self.count.to_string());
        push("--seed", self.seed.to_string());
        push("--size", Size::from(self.size).name().to_string());
        push("--reduce-budget", self.reduce_budget.to_string());
        push("--max-steps", self.max_steps.to_string());
        if let Some(d) = &self.save {
            push("--save", d.display().to_string());
        }
        for c in &self.configs {
            push("--config", c.clone());
        }
        let join = |v: Vec<String>| v.join(",");
        if !self.backend_configs.is_empty() {
            push("--configs", join(self.backend_configs.clone()));
        }
        if !self.opt.is_empty() {
            let opts = self.opt.iter().map(|o| match o.0 {
                OptLevel::O0 => "O0".to_string(),
                _ => "O2".to_string(),
            });
            push("--opt", join(opts.collect()));
        }
        if !self.targets.is_empty() {
            push(
                "--targets",
                join(self.targets.iter().map(|t| t.to_string()).collect()),
            );
        }
        if !self.regs.is_empty() {
            let regs = self
                .regs
                .iter()
                .map(|r| r.0.map_or("full".into(), |n| n.to_string()));
            push("--regs", join(regs.collect()));
        }
        for (flag, on) in [
            ("--no-reduce", self.no_reduce),
            ("--quick", self.quick),
            ("--front-reference", self.front_reference),
            ("--no-backend", self.no_backend),
            ("--pass-stats", self.pass_stats),
        ] {
            if on {
                v.push(flag.to_string());
            }
        }
        v
    }

    fn submit_options(&self) -> SubmitOptions {
        SubmitOptions {
            dry_run: self.dry_run,
            time: self.time.clone(),
            partition: self.partition.clone(),
        }
    }
}

/// `--slurm`: writes the campaign into `--out` and submits it.
fn slurm_submit(a: &RunArgs, out: &std::path::Path) -> ExitCode {
    let shards = a.array_size.map_or(100, |n| n as u64).min(a.count).max(1) as usize;
    let jobs = a
        .jobs
        .map_or(1, |j| j.clamp(1, usize::from(u16::MAX)) as u16);
    let campaign = ssalab::slurm::submit::new_campaign(
        ssalab::slurm::Kind::Fuzz,
        shards,
        out,
        a.slurm_shard_args(),
        jobs,
        None,
    );
    slurm_outcome(campaign.and_then(|c| ssalab::slurm::submit::start(c, &a.submit_options())))
}

/// Prints what a submission did; 0 on success, 2 on error.
fn slurm_outcome(r: Result<String, String>) -> ExitCode {
    match r {
        Ok(text) => ssalab::cli_io::print_then(&text, ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("error: slurm: {e}");
            ExitCode::from(2)
        }
    }
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

/// The back-end configuration names of `--configs`, split at the commas that separate names
/// (not those inside a name such as `L_phi,ABI+C`).
fn backend_config_names(lists: &[String]) -> Vec<String> {
    let known = super::throughput::known_configs();
    lists
        .iter()
        .flat_map(|l| super::bench::split_config_list(l, &known))
        .collect()
}

/// The configurations a `fuzz run` checks: the mid-level pipelines, then (unless
/// `--no-backend`) the back end for every configuration × target × level × register limit.
fn configurations(a: &RunArgs) -> Result<Vec<Box<dyn Configuration>>, String> {
    let mut v = mid_level_configurations();
    if !a.no_backend {
        let mut sel = Selection {
            configs: backend_config_names(&a.backend_configs),
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
        FuzzCommand::Run(a) => run(*a),
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
    if let Some(dir) = &a.resume {
        return slurm_outcome(ssalab::slurm::submit::resume(dir, &a.submit_options()));
    }
    if !a.slurm && (a.dry_run || a.time.is_some() || a.partition.is_some()) {
        eprintln!("error: --dry-run, --time and --partition need --slurm or --resume");
        return ExitCode::from(2);
    }
    if !a.slurm && host_compiler_missing() {
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
    if let (true, Some(out)) = (a.slurm, &a.out) {
        return slurm_submit(&a, out);
    }
    if let Some(dir) = &a.out {
        // An unusable --out is found before the campaign, not after it.
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("error: --out {}: {e}", dir.display());
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
    let (first_seed, count) = seed_block(a.seed, a.count, a.shard);
    let opts = CampaignOptions {
        count,
        first_seed,
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
    let definition = FuzzDefinition {
        generator: fuzz::GENERATOR_VERSION,
        first_seed: a.seed,
        count: a.count,
        size: Size::from(a.size).name().to_string(),
        configurations: checked,
        reduce: !a.no_reduce,
        reduce_budget: a.reduce_budget,
        max_steps: a.max_steps,
        quick: a.quick,
        front_reference: a.front_reference,
    };
    let (out, shard) = (a.out.clone(), a.shard);
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
    if let Some(dir) = &out {
        if let Err(e) = FuzzFiles::from_summary(&summary, definition, shard).write(dir) {
            eprintln!("error: --out: {e}");
            return ExitCode::from(2);
        }
    }
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
