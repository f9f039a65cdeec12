//! `ssalab compile`: C (or text IR) or linear assembly (`.lai`) → ST231/ST120 machine code
//! (object, assembly, machine IR, optimised IR, or the machine-SSA function in the LAO's Minir
//! YAML). The pipeline and its checking options are `ssalab::build`.
//!
//! `--stats` prints the per-function move counts of issue 4 on stderr (static: after
//! out-of-SSA, after coalescing, after allocation, weighted by 5^loop-depth; dynamic, when the
//! program has a `main` and is simulated: moves, loads, stores, spill loads/stores, cycles,
//! attributed per function by the simulator's profiler); `--stats-csv FILE` writes the same
//! rows with the bench suite's `functions.csv` columns (`ssalab::bench::machine`).
//!
//! `--emit dot=KIND[,KIND…]` writes per-function graphs (`compiler::viz`, `docs/graphs.md`)
//! as Graphviz DOT: all to stdout, or with `-o DIR` one file `DIR/FUNCTION.KIND.dot` per
//! function and kind; `--svg` also draws each as `DIR/FUNCTION.KIND.svg` in-process
//! (`ssalab::graph_svg`). `--after PASS` picks the point of the pipeline, `--filter-function`
//! one function. A kind that does not apply to the configuration is an error (exit 1).
//!
//! `--stop-after PASS` (see `ssalab::pass_debug`, docs/debugging.md) replaces the output:
//! `compile` writes the program as it is after that pass (the text `--print-after PASS`
//! prints, without its header line) to `-o FILE` or stdout; `--emit`, `--stats` and
//! `--stats-csv` need the whole pipeline and are refused with it (exit 2).
//!
//! `--stats`/`--stats-csv` without `-o` write no object file: the counts are the output.

use clap::{Args, ValueEnum};
use compiler::viz::{self, Kind};
use simulator::isa::Target;
use ssalab::bench::machine::{function_rows, stats_csv, stats_table, StatsRun};
use ssalab::build::{build_outcome, is_lai, BuildArgs, Built, Outcome};
use ssalab::cli_io::{write_file, write_stdout};
use std::path::{Path, PathBuf};
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

/// The value of `--emit`: one of [`Emit`], or `dot=KIND[,KIND…]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmitChoice {
    Plain(Emit),
    Dot(Vec<Kind>),
}

/// Parses `--emit` (a usage error, exit 2, when it fails).
fn parse_emit(s: &str) -> Result<EmitChoice, String> {
    let kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
    if let Some(list) = s.strip_prefix("dot=") {
        let mut out = Vec::new();
        for k in list.split(',') {
            let kind = Kind::parse(k)
                .ok_or_else(|| format!("unknown graph kind `{k}`; valid: {}", kinds.join(", ")))?;
            if !out.contains(&kind) {
                out.push(kind);
            }
        }
        return Ok(EmitChoice::Dot(out));
    }
    if s == "dot" {
        return Err(format!(
            "`dot` needs its kinds: dot=KIND[,KIND...] with KIND in {}",
            kinds.join(", ")
        ));
    }
    Emit::from_str(s, false)
        .map(EmitChoice::Plain)
        .map_err(|_| {
            let plain: Vec<String> = Emit::value_variants()
                .iter()
                .filter_map(|v| v.to_possible_value().map(|p| p.get_name().to_string()))
                .collect();
            format!(
                "unknown output `{s}`; valid: {}, dot=KIND[,KIND...] ({})",
                plain.join(", "),
                kinds.join(", ")
            )
        })
}

#[derive(Args, Debug)]
pub struct CompileArgs {
    /// Input: a C file (`.c`), a text-IR file (`.ir`) or linear assembly (`.lai`).
    pub input: PathBuf,
    /// Target machine: st231 or st120 (aliases: st200 and st2xx mean st231, st100 means
    /// st120). C/IR: default st231; LAI: the file's `.target`, which must agree.
    #[arg(long)]
    pub target: Option<Target>,
    #[command(flatten)]
    pub build: BuildArgs,
    /// What to write (default obj): ir, mir, minir, asm, obj, or dot=KIND[,KIND...]
    /// per-function graphs (KIND: cfg, interference, affinity, congruence, ddg; see
    /// docs/graphs.md).
    #[arg(long, value_name = "WHAT", value_parser = parse_emit)]
    pub emit: Option<EmitChoice>,
    /// Output file, `-` for stdout (default: stdout for text, INPUT.o for objects, none with
    /// --stats/--stats-csv); with `--emit dot=…`, a directory receiving FUNCTION.KIND.dot files.
    #[arg(short = 'o', value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// `--emit dot`: draw the graphs after this pass (`isel`/`lai` or a function pass of the
    /// configuration; default: per kind, see docs/graphs.md).
    #[arg(long, value_name = "PASS")]
    pub after: Option<String>,
    /// `--emit dot`: also lay out and draw every graph as DIR/FUNCTION.KIND.svg (needs -o DIR).
    #[arg(long)]
    pub svg: bool,
    /// Print per-function move, load/store and cycle counts on stderr (the program is
    /// simulated when it has a `main`).
    #[arg(long)]
    pub stats: bool,
    /// Write the per-function counts as CSV with the bench suite's `functions.csv` columns.
    #[arg(long, value_name = "FILE")]
    pub stats_csv: Option<PathBuf>,
}

pub fn main(mut args: CompileArgs) -> ExitCode {
    if let Err(msg) = check_usage(&args) {
        eprintln!("error: {msg}");
        return ExitCode::from(2);
    }
    if args.build.passes.stop_after.is_some() {
        return stop_after(&args);
    }
    let emit = match args.emit.clone().unwrap_or(EmitChoice::Plain(Emit::Obj)) {
        EmitChoice::Plain(e) => e,
        EmitChoice::Dot(kinds) => {
            args.build.keep_stages = true;
            return emit_dot(&args, &kinds);
        }
    };
    let built = match build_whole(&args) {
        Ok(b) => b,
        Err(code) => return code,
    };
    let stats_asked = args.stats || args.stats_csv.is_some();
    if stats_asked {
        if let Err(e) = report_stats(&args, &built) {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    }
    let bytes: Vec<u8> = match emit {
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
    let out = match (&args.output, emit) {
        (Some(p), _) if p.as_os_str() == "-" => Output::Stdout,
        (Some(p), _) => Output::File(p.clone()),
        // With --stats the counts are the output: no object unless -o asks for one.
        (None, Emit::Obj) if stats_asked => Output::Nothing,
        (None, Emit::Obj) => Output::File(args.input.with_extension("o")),
        (None, _) => Output::Stdout,
    };
    write_output(out, &bytes)
}

/// Builds the whole pipeline; on failure prints the message and gives the exit status (2 for
/// an unknown configuration or pass name, 1 for bad input).
fn build_whole(args: &CompileArgs) -> Result<Box<Built>, ExitCode> {
    match build_outcome(&args.input, args.target, &args.build) {
        Ok(Outcome::Built(b)) => Ok(b),
        Ok(Outcome::Stopped { pass, .. }) => {
            eprintln!("error: the build stopped after {pass}");
            Err(ExitCode::from(1))
        }
        Err(e) => {
            eprintln!("{}", e.message());
            Err(ExitCode::from(e.exit_code()))
        }
    }
}

/// Where `compile` writes its output.
enum Output {
    Stdout,
    File(PathBuf),
    Nothing,
}

fn write_output(out: Output, bytes: &[u8]) -> ExitCode {
    let result = match out {
        Output::File(p) => write_file(&p, bytes),
        Output::Stdout => write_stdout(bytes),
        Output::Nothing => Ok(()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => e.exit_code(),
    }
}

/// `--stop-after PASS`: build up to that pass and write the program as it is then (to `-o`
/// or stdout).
fn stop_after(args: &CompileArgs) -> ExitCode {
    match build_outcome(&args.input, args.target, &args.build) {
        Ok(Outcome::Stopped { text, .. }) => {
            let out = match &args.output {
                Some(p) if p.as_os_str() != "-" => Output::File(p.clone()),
                _ => Output::Stdout,
            };
            write_output(out, text.as_bytes())
        }
        // The pipeline always reaches the stage it was checked to have.
        Ok(Outcome::Built(_)) => {
            eprintln!("error: the build ended without reaching --stop-after");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("{}", e.message());
            ExitCode::from(e.exit_code())
        }
    }
}

/// Options that do not go together (exit 2).
fn check_usage(args: &CompileArgs) -> Result<(), String> {
    check_dot_usage(args)?;
    if let Some(pass) = &args.build.passes.stop_after {
        let whole = [
            (args.emit.is_some(), "--emit"),
            (args.stats, "--stats"),
            (args.stats_csv.is_some(), "--stats-csv"),
        ];
        for (given, name) in whole {
            if given {
                return Err(format!(
                    "--stop-after {pass} writes the program as it is after {pass}; {name} needs the whole pipeline"
                ));
            }
        }
    }
    Ok(())
}

/// The options that only `--emit dot` takes, and `--svg`'s need for a directory.
fn check_dot_usage(args: &CompileArgs) -> Result<(), String> {
    let dot = matches!(args.emit, Some(EmitChoice::Dot(_)));
    let only_dot = [(args.after.is_some(), "--after"), (args.svg, "--svg")];
    for (given, name) in only_dot {
        if given && !dot {
            return Err(format!("{name} applies to --emit dot=KIND[,KIND...] only"));
        }
    }
    let to_dir = args.output.as_ref().is_some_and(|p| p.as_os_str() != "-");
    if args.svg && !to_dir {
        return Err("--svg writes one file per graph: give the directory with -o DIR".into());
    }
    Ok(())
}

/// `--emit dot=…`: build with every stage kept, render each kind, write DOT (and SVG).
fn emit_dot(args: &CompileArgs, kinds: &[Kind]) -> ExitCode {
    let built = match build_whole(args) {
        Ok(b) => b,
        Err(code) => return code,
    };
    let stages = viz::Stages {
        config: &built.config,
        modules: &built.stages,
        freqs: &built.freqs,
    };
    let mut graphs = Vec::new();
    for &k in kinds {
        match viz::render(
            k,
            &stages,
            args.after.as_deref(),
            args.build.passes.filter_function.as_deref(),
        ) {
            Ok(g) => graphs.extend(g),
            Err(e) => {
                eprintln!("error: {}: {e}", args.input.display());
                return ExitCode::from(1);
            }
        }
    }
    let dir = args.output.as_ref().filter(|p| p.as_os_str() != "-");
    let result = match dir {
        None => {
            let text: Vec<&str> = graphs.iter().map(|g| g.dot.as_str()).collect();
            write_stdout(text.join("\n").as_bytes())
        }
        Some(d) => match write_graphs(d, &graphs, args.svg) {
            Ok(()) => Ok(()),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => e.exit_code(),
    }
}

/// A function name as a file-name part: characters other than letters, digits, `_`, `-`
/// and `.` become `_` (names come from the input file).
fn file_part(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_-.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Writes `DIR/FUNCTION.KIND.dot` (and `.svg`) for every graph. A graph the layouter cannot
/// draw does not stop the others: its `.dot` is written, and the failures are reported
/// together at the end (exit 1).
fn write_graphs(dir: &Path, graphs: &[viz::Rendered], svg: bool) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut failed = Vec::new();
    for g in graphs {
        let stem = format!("{}.{}", file_part(&g.function), g.kind.name());
        let path = dir.join(format!("{stem}.dot"));
        std::fs::write(&path, &g.dot).map_err(|e| format!("{}: {e}", path.display()))?;
        if svg {
            match ssalab::graph_svg::dot_to_svg(&g.dot) {
                Ok(drawing) => {
                    let path = dir.join(format!("{stem}.svg"));
                    std::fs::write(&path, drawing)
                        .map_err(|e| format!("{}: {e}", path.display()))?;
                }
                Err(e) => failed.push(format!("{stem}: {e}")),
            }
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("no SVG for {}", failed.join("; ")))
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
