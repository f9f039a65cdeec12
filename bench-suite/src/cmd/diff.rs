//! `ssalab diff A B`: per-function differences of every metric between two configurations
//! (run now over the suite's programs, with the bench sweep's machinery) or two
//! `functions.csv` files (or directories holding one, e.g. two `ssalab bench --out` dirs).
//! The comparison itself is [`ssalab::report::diff`].
//!
//! Exit status: 0 when the diff was printed (and every job ran), 1 for a missing or
//! malformed file, a failed job or an unwritable `--csv`, 2 for a bad command line (an
//! unknown configuration, a configuration compared with a file, sweep options with files).

use clap::Args;
use simulator::isa::Target;
use ssalab::bench::jobs::{ConfigCatalog, Selection};
use ssalab::bench::manifest::Manifest;
use ssalab::bench::output::FUNCTIONS_FILE;
use ssalab::bench::runner::RunnerOptions;
use ssalab::bench::sweep::{run_sweep, SweepOptions};
use ssalab::bench::Executor;
use ssalab::programs::programs_root;
use ssalab::report::diff::{diff, Diff, Side, DEFAULT_METRIC};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Exit status for bad input files, failed jobs and output errors.
const EXIT_INPUT: u8 = 1;
/// Exit status for a bad command line.
const EXIT_USAGE: u8 = 2;

/// Arguments of `ssalab diff`.
#[derive(Args, Debug)]
pub struct DiffArgs {
    /// Side A: a configuration name (see `ssalab configs`), or a functions.csv file or a
    /// directory holding one.
    #[arg(value_name = "A")]
    pub a: String,
    /// Side B, of the same kind as A; the deltas are B - A.
    #[arg(value_name = "B")]
    pub b: String,
    /// The metric column the rows are sorted by (largest |B - A| first) and whose A and B
    /// values and change in percent the table shows.
    #[arg(long, value_name = "COLUMN", default_value = DEFAULT_METRIC)]
    pub metric: String,
    /// Also write every metric's A, B and delta per function, with totals, to this CSV file.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Show the delta of every metric column in the table, not only the headline ones.
    #[arg(long)]
    pub all_columns: bool,
    /// With two configurations: only programs whose path matches one of these globs (as
    /// `ssalab bench --programs`).
    #[arg(long, value_delimiter = ',', value_name = "GLOB")]
    pub programs: Vec<String>,
    /// With two configurations: only these targets (default: the manifest's).
    #[arg(long, value_delimiter = ',', value_name = "TARGET")]
    pub targets: Vec<Target>,
    /// With two configurations: restrict every register file to its first N registers.
    #[arg(long, value_name = "N")]
    pub regs: Option<u32>,
    /// With two configurations: take their rows from this sweep's functions.csv (a file, or
    /// a `bench --out` directory) instead of running them.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["programs", "targets", "regs", "manifest", "jobs"])]
    pub from: Option<PathBuf>,
    /// With two configurations: the suite manifest (default: programs/suite.toml).
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// With two configurations: worker threads (default: the number of cores).
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// No progress display while the configurations run.
    #[arg(long, short)]
    pub quiet: bool,
}

/// What the two arguments name.
enum Sides {
    Configs(String, String),
    Files(PathBuf, PathBuf),
}

/// The configuration `name` stands for (the catalogue resolves it, so any alias it accepts
/// works), if it is one configuration.
fn config_name(name: &str, catalog: &ConfigCatalog) -> Option<String> {
    match catalog.resolve(&[name.to_string()]) {
        Ok(v) if v.len() == 1 && name != "all" => v.into_iter().next(),
        _ => None,
    }
}

/// A configuration name when the catalogue knows it, else a file (or directory) path when it
/// exists or looks like one (`/`, `.csv`); anything else is an unknown configuration.
fn classify(a: &str, b: &str, catalog: &ConfigCatalog) -> Result<Sides, String> {
    let is_config = |s: &str| config_name(s, catalog).is_some();
    let is_path = |s: &str| {
        !is_config(s) && (Path::new(s).exists() || s.contains('/') || s.ends_with(".csv"))
    };
    match (is_config(a), is_config(b), is_path(a), is_path(b)) {
        (true, true, _, _) => Ok(Sides::Configs(
            config_name(a, catalog).unwrap_or_default(),
            config_name(b, catalog).unwrap_or_default(),
        )),
        (_, _, true, true) => Ok(Sides::Files(a.into(), b.into())),
        (true, _, _, true) | (_, true, true, _) => Err(format!(
            "`{a}` and `{b}`: compare two configurations or two functions.csv files, not one of each"
        )),
        _ => {
            let unknown = if is_config(a) || is_path(a) { b } else { a };
            Err(format!(
                "`{unknown}` is neither a configuration (`ssalab configs` lists them) nor an \
                 existing functions.csv file or directory"
            ))
        }
    }
}

/// Runs `ssalab diff` with the real executor and catalogue.
pub fn main(args: DiffArgs) -> ExitCode {
    let exec = |root: &Path| ssalab::bench::machine::MachineExecutor::new(root.to_path_buf(), true);
    main_with(args, exec, &ssalab::bench::machine::catalog())
}

/// Runs `ssalab diff`: `make_exec` builds the executor for a comparison of configurations.
pub fn main_with<E: Executor>(
    args: DiffArgs,
    make_exec: impl FnOnce(&Path) -> E,
    catalog: &ConfigCatalog,
) -> ExitCode {
    let sides = match classify(&args.a, &args.b, catalog) {
        Ok(s) => s,
        Err(e) => return fail(EXIT_USAGE, &e),
    };
    let (a, b, failed_jobs) = match sides {
        Sides::Files(a, b) => {
            if !args.programs.is_empty()
                || !args.targets.is_empty()
                || args.regs.is_some()
                || args.from.is_some()
            {
                return fail(
                    EXIT_USAGE,
                    "--programs, --targets, --regs and --from choose the rows of two \
                     configurations; two files are compared as they are",
                );
            }
            match Side::read(&a).and_then(|a| Ok((a, Side::read(&b)?))) {
                Ok((a, b)) => (a, b, 0),
                Err(e) => return fail(EXIT_INPUT, &e),
            }
        }
        Sides::Configs(a, b) if a == b => {
            return fail(EXIT_USAGE, &format!("`{a}` compared with itself"));
        }
        Sides::Configs(a, b) if args.from.is_some() => {
            match configs_from(args.from.as_deref().unwrap_or(Path::new(".")), &a, &b) {
                Ok((a, b)) => (a, b, 0),
                Err(e) => return fail(EXIT_INPUT, &e),
            }
        }
        Sides::Configs(a, b) => match run_configs(&args, &a, &b, make_exec) {
            Ok(sides) => sides,
            Err((code, e)) => return fail(code, &e),
        },
    };
    let d = match diff(&a, &b, &args.metric) {
        Ok(d) => d,
        Err(e) => return fail(EXIT_USAGE, &e),
    };
    if let Err(e) = write_csv(&d, args.csv.as_deref()) {
        return fail(EXIT_INPUT, &e);
    }
    let status = if failed_jobs > 0 {
        eprintln!("diff: {failed_jobs} jobs failed (listed at the end)");
        ExitCode::from(EXIT_INPUT)
    } else {
        ExitCode::SUCCESS
    };
    ssalab::cli_io::print_then(&d.render_text(args.all_columns), status)
}

fn fail(code: u8, message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(code)
}

fn write_csv(d: &Diff, path: Option<&Path>) -> Result<(), String> {
    let Some(path) = path else {
        return Ok(());
    };
    let bytes = d.render_csv()?;
    std::fs::write(path, bytes).map_err(|e| format!("--csv {}: {e}", path.display()))
}

/// The rows of configurations `a` and `b` in the sweep at `from` (each must have some).
fn configs_from(from: &Path, a: &str, b: &str) -> Result<(Side, Side), String> {
    let all = Side::read(from)?;
    let pick = |name: &str| {
        let side = all.of_config(name);
        if side.rows.is_empty() {
            Err(format!(
                "{}: no rows of configuration `{name}` (the sweep ran: {})",
                all.label,
                all.configs().join(", ")
            ))
        } else {
            Ok(side)
        }
    };
    Ok((pick(a)?, pick(b)?))
}

/// Runs configurations `a` and `b` over the selected programs (the bench sweep, nothing
/// written) and returns their rows as two sides, with the number of failed jobs.
fn run_configs<E: Executor>(
    args: &DiffArgs,
    a: &str,
    b: &str,
    make_exec: impl FnOnce(&Path) -> E,
) -> Result<(Side, Side, usize), (u8, String)> {
    let manifest_path = args
        .manifest
        .clone()
        .unwrap_or_else(|| programs_root().join("suite.toml"));
    let manifest = Manifest::load(&manifest_path).map_err(|e| (EXIT_INPUT, e.to_string()))?;
    let opts = SweepOptions {
        selection: Selection {
            programs: args.programs.clone(),
            groups: Vec::new(),
            targets: args.targets.clone(),
            configs: vec![a.to_string(), b.to_string()],
            regs: args.regs,
        },
        shard: None,
        all_functions: false,
        no_times: true,
        runner: RunnerOptions {
            workers: args
                .jobs
                .map_or_else(RunnerOptions::default_workers, usize::from),
            progress: !args.quiet,
            print_failures: !args.quiet,
        },
        out_dir: None,
        resume: false,
        report: false,
    };
    let exec = make_exec(&manifest.root);
    let report = run_sweep(&manifest, &opts, &exec).map_err(|e| (EXIT_USAGE, e))?;
    let files = report.files.render().map_err(|e| (EXIT_INPUT, e))?;
    let csv = files
        .iter()
        .find(|(name, _)| *name == FUNCTIONS_FILE)
        .map(|(_, bytes)| bytes.as_slice())
        .unwrap_or_default();
    let all =
        Side::parse(csv, "sweep").map_err(|e| (EXIT_INPUT, format!("the sweep's rows{e}")))?;
    Ok((all.of_config(a), all.of_config(b), report.failed()))
}
