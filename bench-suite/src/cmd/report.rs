//! `ssalab report`: regenerates the tables, plots and README of a bench sweep from its
//! `functions.csv` and `runs.toml` (see [`ssalab::report`]). Exit status: 0 on success, 1 for
//! a missing or malformed input, manifest or unwritable output directory (2 is clap's, for a
//! bad command line).

use clap::Args;
use ssalab::bench::manifest::Manifest;
use ssalab::programs::programs_root;
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit status for input, manifest and I/O errors.
const EXIT_INPUT: u8 = 1;

/// Arguments of `ssalab report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Directory holding the sweep's functions.csv and runs.toml (from `ssalab bench`; its
    /// default output directory by default).
    #[arg(long = "in", value_name = "DIR", default_value = "target/sweep")]
    pub input: PathBuf,
    /// Directory for tables.md, findings.md, the SVG plots and README.md (plots of an older
    /// report that this one does not write are removed).
    #[arg(long, value_name = "DIR", default_value = "target/sweep")]
    pub out: PathBuf,
    /// The suite manifest giving each program's group (default: programs/suite.toml of this
    /// checkout).
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// More sweeps of the same suite (e.g. `--regs 16`, `--regs 8`) whose totals road2.md
    /// shows beside this one's (repeatable).
    #[arg(long, value_name = "DIR")]
    pub also: Vec<PathBuf>,
    /// Also print findings.md (the paper's tables and whether its findings hold) to stdout.
    #[arg(long)]
    pub findings: bool,
    /// Do not list the files written.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Runs `ssalab report`.
pub fn main(args: ReportArgs) -> ExitCode {
    let manifest_path = args
        .manifest
        .clone()
        .unwrap_or_else(|| programs_root().join("suite.toml"));
    let manifest = match Manifest::load(&manifest_path) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(EXIT_INPUT);
        }
    };
    if !args.input.is_dir() {
        eprintln!(
            "error: --in {}: no such directory (`ssalab bench --out {}` makes one)",
            args.input.display(),
            args.input.display()
        );
        return ExitCode::from(EXIT_INPUT);
    }
    match ssalab::report::generate_with(&args.input, &args.also, &args.out, &manifest) {
        Ok(files) => {
            let mut text = String::new();
            if !args.quiet {
                for f in &files {
                    text.push_str(&format!("wrote {}\n", f.display()));
                }
            }
            if args.findings {
                let path = args.out.join(ssalab::report::FINDINGS_FILE);
                match std::fs::read_to_string(&path) {
                    Ok(findings) => text.push_str(&findings),
                    Err(e) => {
                        eprintln!("error: cannot read {}: {e}", path.display());
                        return ExitCode::from(EXIT_INPUT);
                    }
                }
            }
            ssalab::cli_io::print_then(&text, ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(EXIT_INPUT)
        }
    }
}
