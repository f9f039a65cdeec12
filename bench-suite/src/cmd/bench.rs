//! `ssalab bench` (the sweep, see [`ssalab::bench`]) and `ssalab merge` (join shard
//! outputs).
//!
//! `bench` needs an [`Executor`] (compile + simulate + check one job) and the catalogue of
//! configurations; the command-line driver passes them to [`main_with`]. Exit status: 0 when
//! every job passed, 1 when any job failed (the files are still written), 2 for a bad command
//! line, manifest or output directory. Each finished job is journalled in the output
//! directory; `--resume DIR` continues an interrupted sweep (see [`ssalab::bench::journal`]).
//! (A bad manifest is not status 1 here: 1 says the sweep ran and its files are complete,
//! which the Slurm task script relies on.) `merge` exits 0 on success, 1 on bad or
//! inconsistent inputs (a located error), 2 for a bad command line.
//!
//! `--slurm` submits the sweep to a Slurm cluster instead of running it (a job array of
//! shards and a dependent merge job, see [`ssalab::slurm`]); `--resume DIR` of such a
//! campaign resubmits its unfinished shards. Both exit 0 once submitted, 2 on any error.

use clap::Args;
use simulator::isa::Target;
use ssalab::bench::jobs::{plan, ConfigCatalog, Selection, Shard};
use ssalab::bench::manifest::{Group, Manifest};
use ssalab::bench::merge::merge_dirs_with;
use ssalab::bench::output::{FUNCTIONS_FILE, JOBS_FILE, RUNS_FILE};
use ssalab::bench::runner::RunnerOptions;
use ssalab::bench::sweep::{describe, run_sweep, SweepOptions};
use ssalab::bench::Executor;
use ssalab::programs::programs_root;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Where `bench` writes when `--out` is not given: under the build directory, so that a run
/// from the checkout leaves `git status` clean.
pub const DEFAULT_OUT: &str = "target/sweep";

/// Exit status of `bench` for usage, manifest and I/O errors.
const EXIT_USAGE: u8 = 2;
/// Exit status of `merge` for bad or inconsistent inputs.
const EXIT_MERGE_INPUT: u8 = 1;

/// Arguments of `ssalab bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The suite manifest (default: programs/suite.toml of this checkout).
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// Only programs whose path matches one of these globs (comma-separated or repeated;
    /// `*`, `?`, `**`, `[a-z]`; a pattern without `/` also matches the file name with or
    /// without extension: `fir`, `dsp/*`, `codec/**`).
    #[arg(long, value_delimiter = ',', value_name = "GLOB")]
    pub programs: Vec<String>,
    /// Only programs of these groups (dsp, codec, feature, lai).
    #[arg(long, value_delimiter = ',', value_name = "GROUP")]
    pub groups: Vec<Group>,
    /// Only these targets (default: the manifest's).
    #[arg(long, value_delimiter = ',', value_name = "TARGET")]
    pub targets: Vec<Target>,
    /// Pipeline configurations to run, comma-separated or repeated (`all` = every one;
    /// default: the standard set). Names containing commas (`L_phi,ABI+C`) are recognised
    /// whole: the longest known name wins.
    #[arg(long, value_name = "NAME")]
    pub configs: Vec<String>,
    /// Restrict every register file to its first N allocatable registers.
    #[arg(long, value_name = "N")]
    pub regs: Option<u32>,
    /// Output directory for functions.csv, jobs.csv, runs.toml and the report made of them
    /// (tables.md, findings.md, plots, README.md: what `ssalab report` writes). The committed
    /// `reports/` changes only when named here.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_OUT)]
    pub out: PathBuf,
    /// Worker threads (default: the number of cores).
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Run only slice K of N of the job list (jobs whose index is K-1 modulo N); join the
    /// slices' outputs with `ssalab merge`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Write every function's statistics, not only the manifest's kernels.
    #[arg(long)]
    pub all_functions: bool,
    /// Write compile and simulate times as 0, so that outputs compare byte for byte.
    #[arg(long)]
    pub no_times: bool,
    /// No progress display and no failure lines while running (the summary is still printed).
    #[arg(long, short)]
    pub quiet: bool,
    /// Print the job list (index program target config) and exit without running anything.
    #[arg(long)]
    pub list: bool,
    /// Continue the interrupted sweep whose output directory (and journal) is DIR: run only
    /// the jobs its journal does not hold; the sweep's definition comes from the journal.
    #[arg(long, value_name = "DIR", conflicts_with_all = [
        "manifest", "programs", "groups", "targets", "configs", "regs", "out", "shard",
        "all_functions", "no_times", "list",
    ])]
    pub resume: Option<PathBuf>,
    /// Submit the sweep to Slurm instead of running it: a job array (one shard per task, each
    /// writing `--out`/shards/K), then a job that merges them into `--out` and writes the
    /// report. `ssalab status DIR` follows it; `--resume DIR` re-runs unfinished shards.
    #[arg(long, conflicts_with_all = ["shard", "list", "resume"])]
    pub slurm: bool,
    /// With --slurm: number of array tasks, i.e. shards (default: 100, at most the job count).
    #[arg(long, value_name = "N", requires = "slurm", value_parser = clap::value_parser!(u32).range(1..))]
    pub array_size: Option<u32>,
    /// With --slurm or --resume of a Slurm campaign: the partition (sbatch --partition).
    #[arg(long, value_name = "P")]
    pub partition: Option<String>,
    /// With --slurm or --resume of a Slurm campaign: each task's time limit (sbatch --time,
    /// e.g. 30 or 2:00:00).
    #[arg(long, value_name = "T")]
    pub time: Option<String>,
    /// With --slurm or --resume of a Slurm campaign: write the scripts and print the array
    /// script and the sbatch commands, submit nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Arguments of `ssalab merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Output directories of `ssalab bench --shard K/N` runs (every K of one N), or of
    /// `ssalab fuzz run --shard K/N --out DIR` runs.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Where to write the merged functions.csv, jobs.csv and runs.toml (or fuzz.csv and
    /// fuzz.toml). A bench report already there is removed: `ssalab report` makes the new one.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_OUT)]
    pub out: PathBuf,
    /// Merge the shards given even if some are absent: the output lacks their jobs and
    /// lists them (`missing_shards`), and the merge says which they are.
    #[arg(long)]
    pub allow_partial: bool,
}

/// The shard command's arguments of a `--slurm` sweep: the sweep's definition as given.
fn slurm_shard_args(a: &BenchArgs) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    let mut push = |flag: &str, value: String| {
        v.push(flag.to_string());
        v.push(value);
    };
    if let Some(m) = &a.manifest {
        push("--manifest", m.display().to_string());
    }
    for p in &a.programs {
        push("--programs", p.clone());
    }
    for g in &a.groups {
        push("--groups", g.to_string());
    }
    for t in &a.targets {
        push("--targets", t.to_string());
    }
    for c in &a.configs {
        push("--configs", c.clone());
    }
    if let Some(r) = a.regs {
        push("--regs", r.to_string());
    }
    if a.all_functions {
        v.push("--all-functions".into());
    }
    if a.no_times {
        v.push("--no-times".into());
    }
    v
}

/// Shards of a `--slurm` sweep when `--array-size` is not given.
const DEFAULT_ARRAY_SIZE: usize = 100;

/// `--slurm`: writes the campaign for `jobs_total` jobs into `--out` and submits it.
fn slurm_submit(args: &BenchArgs, jobs_total: usize) -> ExitCode {
    let shards = args
        .array_size
        .map_or(DEFAULT_ARRAY_SIZE, |n| n as usize)
        .min(jobs_total)
        .max(1);
    let campaign = ssalab::slurm::submit::new_campaign(
        ssalab::slurm::Kind::Bench,
        shards,
        &args.out,
        slurm_shard_args(args),
        args.jobs.unwrap_or(1),
        args.manifest.as_ref().map(|m| m.display().to_string()),
    );
    let opts = ssalab::slurm::submit::SubmitOptions {
        dry_run: args.dry_run,
        time: args.time.clone(),
        partition: args.partition.clone(),
    };
    slurm_outcome(campaign.and_then(|c| ssalab::slurm::submit::start(c, &opts)))
}

/// Prints what a submission did; 0 on success, 2 on error.
pub fn slurm_outcome(r: Result<String, String>) -> ExitCode {
    match r {
        Ok(text) => ssalab::cli_io::print_then(&text, ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("error: slurm: {e}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// The Slurm options are meaningless without --slurm or the --resume of a campaign.
fn check_slurm_options(args: &BenchArgs) -> Result<(), String> {
    let campaign = args.slurm
        || args
            .resume
            .as_deref()
            .is_some_and(ssalab::slurm::is_campaign);
    let given = [
        ("--partition", args.partition.is_some()),
        ("--time", args.time.is_some()),
        ("--dry-run", args.dry_run),
    ];
    match given.iter().find(|g| g.1) {
        Some((flag, _)) if !campaign => Err(format!(
            "{flag} needs --slurm (or --resume of a Slurm campaign)"
        )),
        _ => Ok(()),
    }
}

/// Splits a comma-separated list of configuration names whose names may themselves contain
/// commas: from each position, the longest run of comma-separated pieces that forms a known
/// name (or `all`) is taken; an unknown piece is kept alone (and rejected later, by name).
pub fn split_config_list(list: &str, known: &[String]) -> Vec<String> {
    let pieces: Vec<&str> = list.split(',').map(str::trim).collect();
    let is_known = |name: &str| name == "all" || known.iter().any(|k| k == name);
    let mut out = Vec::new();
    let mut i = 0;
    while i < pieces.len() {
        let longest = (i + 1..=pieces.len())
            .rev()
            .find(|&j| is_known(&pieces[i..j].join(",")))
            .unwrap_or(i + 1);
        let name = pieces[i..longest].join(",");
        if !name.is_empty() {
            out.push(name);
        }
        i = longest;
    }
    out
}

/// With `--resume DIR`: the command line of the interrupted sweep, from its journal header.
fn resumed_args(args: BenchArgs) -> Result<BenchArgs, String> {
    let Some(dir) = args.resume.clone() else {
        return Ok(args);
    };
    let header = ssalab::bench::journal::read_journal(&dir)?.header;
    let def = header.sweep;
    let parse_all = |v: &[String], what: &str| -> Result<Vec<String>, String> {
        if v.is_empty() {
            Err(format!("{}: the journal lists no {what}", dir.display()))
        } else {
            Ok(v.to_vec())
        }
    };
    Ok(BenchArgs {
        manifest: Some(PathBuf::from(&header.manifest)),
        programs: def.programs.clone(),
        groups: def
            .groups
            .iter()
            .map(|g| g.parse())
            .collect::<Result<_, _>>()?,
        targets: parse_all(&def.targets, "targets")?
            .iter()
            .map(|t| t.parse().map_err(|e| format!("{e}")))
            .collect::<Result<_, _>>()?,
        configs: parse_all(&def.configs, "configurations")?,
        regs: def.regs,
        out: dir,
        shard: header.shard.as_deref().map(str::parse).transpose()?,
        all_functions: def.all_functions,
        no_times: def.no_times,
        list: false,
        ..args
    })
}

/// Runs `ssalab bench`: `make_exec` builds the executor for the programs under the
/// manifest's directory; `catalog` gives the configurations.
pub fn main_with<E: Executor>(
    args: BenchArgs,
    make_exec: impl FnOnce(&Path) -> E,
    catalog: &ConfigCatalog,
) -> ExitCode {
    if let Err(e) = check_slurm_options(&args) {
        eprintln!("error: {e}");
        return ExitCode::from(EXIT_USAGE);
    }
    if let Some(dir) = args
        .resume
        .as_deref()
        .filter(|d| ssalab::slurm::is_campaign(d))
    {
        let opts = ssalab::slurm::submit::SubmitOptions {
            dry_run: args.dry_run,
            time: args.time.clone(),
            partition: args.partition.clone(),
        };
        return slurm_outcome(ssalab::slurm::submit::resume(dir, &opts));
    }
    let resume = args.resume.is_some();
    let args = match resumed_args(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: --resume: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    // The default manifest is named relative to the working directory when it can be, so
    // that runs.toml does not record where the checkout happens to live.
    let manifest_path = args.manifest.clone().unwrap_or_else(|| {
        let path = programs_root().join("suite.toml");
        std::env::current_dir()
            .ok()
            .and_then(|cwd| path.strip_prefix(cwd).ok().map(PathBuf::from))
            .unwrap_or(path)
    });
    let manifest = match Manifest::load(&manifest_path) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    // Configurations: a journal records them resolved (names may contain commas).
    let requested: Vec<String> = if resume {
        args.configs.clone()
    } else {
        args.configs
            .iter()
            .flat_map(|v| split_config_list(v, &catalog.available))
            .collect()
    };
    let configs = match catalog.resolve(&requested) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let opts = SweepOptions {
        selection: Selection {
            programs: args.programs.clone(),
            groups: args.groups.clone(),
            targets: args.targets.clone(),
            configs,
            regs: args.regs,
        },
        shard: args.shard,
        all_functions: args.all_functions,
        no_times: args.no_times,
        runner: RunnerOptions {
            workers: args
                .jobs
                .map_or_else(RunnerOptions::default_workers, usize::from),
            progress: !args.quiet,
            print_failures: !args.quiet,
        },
        out_dir: Some(args.out.clone()),
        resume,
        report: true,
    };
    if args.slurm {
        return match plan(&manifest, &opts.selection) {
            Ok(p) => slurm_submit(&args, p.jobs.len()),
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(EXIT_USAGE)
            }
        };
    }
    if args.list {
        return match plan(&manifest, &opts.selection) {
            Ok(p) => ssalab::cli_io::print_then(&describe(&p, args.shard), ExitCode::SUCCESS),
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(EXIT_USAGE)
            }
        };
    }
    // The programs are the files beside the manifest, not this checkout's `programs/`.
    let exec = make_exec(&manifest.root);
    match run_sweep(&manifest, &opts, &exec) {
        Ok(report) => {
            eprint!("{}", report.summary());
            eprintln!(
                "bench: wrote {} ({} rows), {JOBS_FILE} and {RUNS_FILE} in {}",
                FUNCTIONS_FILE,
                report.files.functions.len(),
                args.out.display()
            );
            say_report(&report, &args.out);
            ExitCode::from(report.exit_code())
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// Says what became of the report the sweep writes beside its data.
fn say_report(report: &ssalab::bench::sweep::SweepReport, out: &Path) {
    if let Some(e) = &report.report_error {
        eprintln!("error: bench: no report written (the data files are complete): {e}");
    } else if report.report_files > 0 {
        eprintln!(
            "bench: wrote the report ({} files: tables.md, findings.md, plots, README.md) in {}",
            report.report_files,
            out.display()
        );
    }
}

/// Runs `ssalab merge`: bench sweep outputs, or fuzz campaign outputs (`fuzz.toml`).
pub fn merge_main(args: MergeArgs) -> ExitCode {
    let fuzz = args
        .dirs
        .iter()
        .filter(|d| ssalab::slurm::fuzz_files::is_fuzz_output(d))
        .count();
    if fuzz > 0 && fuzz < args.dirs.len() {
        eprintln!("merge: some directories hold fuzz campaigns and others bench sweeps");
        return ExitCode::from(EXIT_MERGE_INPUT);
    }
    let said = if fuzz > 0 {
        ssalab::slurm::fuzz_files::merge_fuzz_dirs(&args.dirs, &args.out, args.allow_partial).map(
            |m| {
                let r = &m.files.runs.results;
                let text = format!(
                    "merge: {} outputs, {} programs ({} agree, {} mismatches, {} discarded, {} generator bugs), written to {}",
                    args.dirs.len(),
                    r.programs,
                    r.agree,
                    r.mismatches,
                    r.discarded,
                    r.generator_bugs,
                    args.out.display()
                );
                let missing = (!m.missing_shards.is_empty()).then(|| {
                    format!(
                        "{} (their {} programs are absent)",
                        ssalab::bench::merge::shard_list(&m.missing_shards),
                        m.missing_programs
                    )
                });
                (text, missing)
            },
        )
    } else {
        merge_dirs_with(&args.dirs, &args.out, args.allow_partial).map(|m| {
            let r = &m.files.runs.results;
            let text = format!(
                "merge: {} outputs, {} jobs ({} ok, {} failed), {} rows, written to {}",
                args.dirs.len(),
                r.jobs,
                r.ok,
                r.failed,
                r.function_rows,
                args.out.display()
            );
            let missing = (!m.missing_shards.is_empty()).then(|| {
                format!(
                    "{} (their {} jobs are absent)",
                    ssalab::bench::merge::shard_list(&m.missing_shards),
                    m.missing_jobs
                )
            });
            (text, missing)
        })
    };
    match said {
        Ok((text, missing)) => {
            eprintln!("{text}");
            if let Some(m) = missing {
                eprintln!("merge: partial: missing shards {m}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("merge: {e}");
            ExitCode::from(EXIT_MERGE_INPUT)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::split_config_list;

    #[test]
    fn config_lists_with_commas_in_names() {
        let known: Vec<String> = ["baseline", "C", "L_phi,ABI+C", "L_phi,ABI", "S_phi+C"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            split_config_list("baseline,L_phi,ABI+C,C", &known),
            ["baseline", "L_phi,ABI+C", "C"]
        );
        assert_eq!(split_config_list("L_phi,ABI", &known), ["L_phi,ABI"]);
        assert_eq!(split_config_list("all", &known), ["all"]);
        assert_eq!(split_config_list("nope,C", &known), ["nope", "C"]);
    }
}
