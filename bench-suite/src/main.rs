//! `ssalab`: the command line of the ssalab workbench.
//!
//! Each subcommand lives in its own module; this file only parses the command line and
//! dispatches. A subcommand exists here only once it really works.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// `eprintln!`/`eprint!` that ignore a closed stderr instead of panicking, for every module
/// below (see `ssalab::cli_io`).
macro_rules! eprintln {
    ($($arg:tt)*) => { ssalab::eprintln!($($arg)*) };
}
macro_rules! eprint {
    ($($arg:tt)*) => { ssalab::eprint!($($arg)*) };
}

mod cmd;
mod heap;
mod machine_cmds;

/// mimalloc instead of the system allocator: the compiler allocates many small vectors per
/// pass and per configuration, and glibc's allocator spent about a quarter of a fuzz campaign's
/// time in malloc/free and in re-zeroing the simulator's 16 MiB guest memory (measured with
/// `perf record` on `ssalab fuzz run`). Wrapped in a byte counter that is off except while
/// `ssalab throughput --out-of-ssa` measures a pass's peak heap ([`heap`]).
#[global_allocator]
static GLOBAL: heap::Counting = heap::Counting;

#[derive(Parser)]
#[command(
    name = "ssalab",
    version,
    about = "Out-of-SSA, coalescing and register-allocation workbench for ST231/ST120"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the bench suite: every program × configuration × target, checked against the host
    /// compiler, per-function CSV.
    Bench(cmd::bench::BenchArgs),
    /// Join the outputs of `ssalab bench --shard K/N` (or `fuzz run --shard K/N --out`) runs
    /// into one.
    Merge(cmd::bench::MergeArgs),
    /// Where the shards of a Slurm campaign are (done, failed, lost, running, missing).
    Status(cmd::status::StatusArgs),
    /// List the pipeline configurations with their pass lists.
    Configs,
    /// Tables (markdown), plots (SVG) and README of a sweep, regenerated from its functions.csv.
    Report(cmd::report::ReportArgs),
    /// Per-function differences of every metric between two configurations (run now) or two
    /// functions.csv files, sorted by size of change, with totals per target.
    Diff(cmd::diff::DiffArgs),
    /// Compile a C program (or text IR) to ST231/ST120 machine code (object, assembly, IR).
    Compile(cmd::compile::CompileArgs),
    /// Compile a C program (or read a text-IR file) and run it on the reference IR interpreter.
    Interp(cmd::interp::InterpArgs),
    /// Measure the speed of the front end and of SSA + -O2 (source lines/s, IR instructions/s).
    Throughput(cmd::throughput::ThroughputArgs),
    /// Random programs checked against the host compiler at every stage (gen, run, check).
    Fuzz(cmd::fuzz::FuzzArgs),
    #[command(flatten)]
    Machine(machine_cmds::MachineCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Bench(args) => {
            let exec = |root: &std::path::Path| {
                ssalab::bench::machine::MachineExecutor::new(root.to_path_buf(), true)
            };
            cmd::bench::main_with(args, exec, &ssalab::bench::machine::catalog())
        }
        Command::Merge(args) => cmd::bench::merge_main(args),
        Command::Status(args) => cmd::status::main(args),
        Command::Report(args) => cmd::report::main(args),
        Command::Diff(args) => cmd::diff::main(args),
        Command::Configs => {
            let configs = compiler::backend::CONFIGS;
            let width = configs.iter().map(|(n, _, _)| n.len()).max().unwrap_or(0);
            let mut text = String::new();
            for (name, passes, summary) in configs {
                text.push_str(&format!(
                    "{name:<width$}  isel {} sched emit\n{:width$}  {summary}\n",
                    passes.join(" "),
                    ""
                ));
            }
            ssalab::cli_io::print_then(&text, ExitCode::SUCCESS)
        }
        Command::Compile(args) => cmd::compile::main(args),
        Command::Interp(args) => cmd::interp::main(args),
        Command::Throughput(args) => cmd::throughput::main(args),
        Command::Fuzz(args) => cmd::fuzz::main(args),
        Command::Machine(c) => machine_cmds::run(c),
    }
}
