//! `ssalab bench` (the sweep, see [`ssalab::bench`]) and `ssalab merge` (join shard
//! outputs).
//!
//! `bench` needs an [`Executor`] (compile + simulate + check one job) and the catalogue of
//! configurations; the command-line driver passes them to [`main_with`]. Exit status: 0 when
//! every job passed, 1 when any job failed (the files are still written), 2 for a bad command
//! line, manifest or output directory. Each finished job is journalled in the output
//! directory; `--resume DIR` continues an interrupted sweep (see [`ssalab::bench::journal`]). `merge` exits 0 on success, 2 on any inconsistency.

use clap::Args;
use simulator::isa::Target;
use ssalab::bench::jobs::{plan, ConfigCatalog, Selection, Shard};
use ssalab::bench::manifest::{Group, Manifest};
use ssalab::bench::merge::merge_dirs;
use ssalab::bench::output::{FUNCTIONS_FILE, JOBS_FILE, RUNS_FILE};
use ssalab::bench::runner::RunnerOptions;
use ssalab::bench::sweep::{describe, run_sweep, SweepOptions};
use ssalab::bench::Executor;
use ssalab::programs::programs_root;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Exit status for usage, manifest and I/O errors.
const EXIT_USAGE: u8 = 2;

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
    /// Output directory for functions.csv, jobs.csv and runs.toml.
    #[arg(long, value_name = "DIR", default_value = "reports")]
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
}

/// Arguments of `ssalab merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Output directories of `ssalab bench --shard K/N` runs (every K of one N).
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Where to write the merged functions.csv, jobs.csv and runs.toml.
    #[arg(long, value_name = "DIR", default_value = "reports")]
    pub out: PathBuf,
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
    };
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
            ExitCode::from(report.exit_code())
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// Runs `ssalab merge`.
pub fn merge_main(args: MergeArgs) -> ExitCode {
    match merge_dirs(&args.dirs, &args.out) {
        Ok(merged) => {
            let r = &merged.runs.results;
            eprintln!(
                "merge: {} outputs, {} jobs ({} ok, {} failed), {} rows, written to {}",
                args.dirs.len(),
                r.jobs,
                r.ok,
                r.failed,
                r.function_rows,
                args.out.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("merge: {e}");
            ExitCode::from(EXIT_USAGE)
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
