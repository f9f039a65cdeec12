//! `ssalab compile`: C (or text IR) or linear assembly (`.lai`) → ST231/ST120 machine code
//! (object, assembly, machine IR, optimised IR, or the machine-SSA function in the LAO's Minir
//! YAML). The pipeline and its checking options are `ssalab::build`.
//!
//! `--stats` prints the per-function move counts of issue 4 on stderr (static: after
//! out-of-SSA, after coalescing, after allocation, weighted by 5^loop-depth; dynamic, when the
//! program has a `main` and is simulated: moves, loads, stores, spill loads/stores, cycles,
//! attributed per function by the simulator's profiler); `--stats-csv FILE` writes the same
//! rows with the bench suite's `functions.csv` columns (`ssalab::bench::machine`).

use clap::{Args, ValueEnum};
use simulator::isa::Target;
use ssalab::bench::machine::{function_rows, stats_csv, stats_table, StatsRun};
use ssalab::build::{build_program, is_lai, BuildArgs, Built};
use ssalab::cli_io::{write_file, write_stdout};
use std::path::PathBuf;
use std::process::ExitCode;

/// What `--emit` writes.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Emit {
    /// The optimised SSA IR (mid-level text form; C and text-IR input only).
    Ir,
    /// The machine-level IR after the last function pass.
    Mir,
    /// The machine-SSA module (after isel, or the LAI as parsed) in the LAO's Minir YAML.
    Minir,
    /// Scheduled assembly in the simulator assembler's syntax.
    Asm,
    /// An ssalab object file.
    Obj,
}

#[derive(Args, Debug)]
pub struct CompileArgs {
    /// Input: a C file (`.c`), a text-IR file (`.ir`) or linear assembly (`.lai`).
    pub input: PathBuf,
    /// Target machine (C/IR: default st231; LAI: the file's `.target`, which must agree).
    #[arg(long)]
    pub target: Option<Target>,
    #[command(flatten)]
    pub build: BuildArgs,
    /// What to write.
    #[arg(long, value_enum, default_value = "obj")]
    pub emit: Emit,
    /// Output file, `-` for stdout (default: stdout for text, INPUT.o for objects).
    #[arg(short = 'o', value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Print per-function move, load/store and cycle counts on stderr (the program is
    /// simulated when it has a `main`).
    #[arg(long)]
    pub stats: bool,
    /// Write the per-function counts as CSV with the bench suite's `functions.csv` columns.
    #[arg(long, value_name = "FILE")]
    pub stats_csv: Option<PathBuf>,
}

pub fn main(args: CompileArgs) -> ExitCode {
    let built = match build_program(&args.input, args.target, &args.build) {
        Ok(b) => b,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(1);
        }
    };
    if args.stats || args.stats_csv.is_some() {
        if let Err(e) = report_stats(&args, &built) {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    }
    let bytes: Vec<u8> = match args.emit {
        Emit::Ir => match &built.ir {
            Some(ir) => ir.to_string().into_bytes(),
            None => {
                eprintln!(
                    "error: {}: LAI input has no SSA IR level (try --emit minir or --emit mir)",
                    args.input.display()
                );
                return ExitCode::from(1);
            }
        },
        Emit::Mir => built.backend.mir.to_string().into_bytes(),
        Emit::Minir => minir_text(&built).into_bytes(),
        Emit::Asm => built.backend.asm.clone().into_bytes(),
        Emit::Obj => built.backend.object.to_bytes(),
    };
    let out = match (&args.output, args.emit) {
        (Some(p), _) if p.as_os_str() == "-" => None,
        (Some(p), _) => Some(p.clone()),
        (None, Emit::Obj) => Some(args.input.with_extension("o")),
        (None, _) => None,
    };
    let result = match out {
        Some(p) => write_file(&p, &bytes),
        None => write_stdout(&bytes),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => e.exit_code(),
    }
}

/// The machine-SSA module as Minir: LAI block frequencies when the file gives them, else
/// 5^loop-depth.
fn minir_text(built: &Built) -> String {
    let freqs = (!built.freqs.is_empty()).then_some(built.freqs.as_slice());
    compiler::mir::minir::module_to_minir(&built.machine_ssa, freqs)
}

/// `--stats` / `--stats-csv`: simulate (when there is a `main`), build the rows, print and
/// write them.
fn report_stats(args: &CompileArgs, built: &Built) -> Result<(), String> {
    let program = args.input.display().to_string();
    let run = StatsRun::simulate(built, is_lai(&args.input).then_some(&args.input));
    let rows = function_rows(built, run.report.as_ref());
    if args.stats {
        eprint!("{}", stats_table(&program, built, &run, &rows));
    }
    if let Some(path) = &args.stats_csv {
        let bytes = stats_csv(&program, built, &run.status, rows)?;
        std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}
