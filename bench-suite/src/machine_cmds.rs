//! The machine subcommands of `ssalab`: `run` (simulate a program), `asm` (assemble to an
//! ssalab object) and `disasm` (objdump-style listing). `run` compiles C, text IR and linear
//! assembly (`.lai`, target from its `.target`) first, with the options of `ssalab compile`.
//!
//! `run` keeps stdout for the program's own output; the counters go to stderr as a table
//! (unless `--quiet`), and optionally to `--stats-csv FILE` (one row per function and scope,
//! plus totals) and `--stats-json FILE` (with the host seconds and simulated operations per
//! second). The exit status is the program's (main's return value or `exit` argument, modulo
//! 256); a trap prints its message on stderr and exits with status 70; bad input (an
//! unreadable file, assembly errors, an illegal encoding or a damaged object) is a located
//! error with status 1, as is a program without a `main` function; status 2 is kept for a bad
//! command line (clap's errors, a `--mem-size` beyond its limit, an unknown configuration or
//! pass name, `--stop-after`, which `run` cannot honour); output that cannot be
//! written fails the run (see `ssalab::cli_io`).

use clap::{Args, Subcommand};
use simulator::asm;
use simulator::isa::Target;
use simulator::machine::{Counters, FunctionStats, RunOptions, RunReport, TrapKind};
use simulator::object::{Object, SymbolKind};
use ssalab::cli_io::{write_file, write_stdout, WriteError};
use ssalab::pass_debug::PassDebugArgs;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Exit status after a trap.
pub const EXIT_TRAP: u8 = 70;
/// Exit status for bad input: unreadable files, assembly errors, bad objects.
pub const EXIT_ERROR: u8 = 1;
/// Exit status for a bad command line (as clap uses for the errors it finds).
pub const EXIT_USAGE: u8 = 2;

/// Machine subcommands (flattened into the top-level `ssalab` command).
#[derive(Subcommand, Debug)]
pub enum MachineCommand {
    /// Run a program (.s assembly or .o object) on the cycle-level simulator.
    Run(Box<RunArgs>),
    /// Assemble a .s file into an ssalab object (.o).
    Asm(AsmArgs),
    /// Print an objdump-style listing of an object (or of an assembled .s file).
    Disasm(DisasmArgs),
}

/// Arguments of `ssalab run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Program: C (.c), text IR (.ir) or linear assembly (.lai), compiled first; assembly
    /// (.s); an ssalab object (.o).
    pub input: PathBuf,
    /// Target: st231 or st120 (aliases: st200 and st2xx mean st231, st100 means st120).
    /// C/IR input: default st231; LAI: the file's `.target`, which must agree; assembly:
    /// default the file's `.target` directive, else st231.
    #[arg(long)]
    pub target: Option<Target>,
    /// Stop with a trap after this many cycles.
    #[arg(long)]
    pub max_cycles: Option<u64>,
    /// Print every issued bundle with its cycle number on stderr.
    #[arg(long)]
    pub trace: bool,
    /// Write the counters as CSV (one row per function and scope).
    #[arg(long, value_name = "FILE")]
    pub stats_csv: Option<PathBuf>,
    /// Write the counters as JSON (with host seconds and simulated ops/s).
    #[arg(long, value_name = "FILE")]
    pub stats_json: Option<PathBuf>,
    /// Guest memory size in bytes.
    #[arg(long)]
    pub mem_size: Option<u32>,
    /// Do not print the counter table on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// How to compile C (`.c`), text-IR (`.ir`) or LAI (`.lai`) input.
    #[command(flatten)]
    pub build: ssalab::build::BuildArgs,
}

/// Arguments of `ssalab asm`.
#[derive(Args, Debug)]
pub struct AsmArgs {
    /// Assembly source (.s).
    pub input: PathBuf,
    /// Output object, `-` for stdout (default: the input with extension .o).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Target: st231 or st120 (aliases: st200 and st2xx mean st231, st100 means st120);
    /// default: the file's `.target` directive, else st231.
    #[arg(long)]
    pub target: Option<Target>,
}

/// Arguments of `ssalab disasm`.
#[derive(Args, Debug)]
pub struct DisasmArgs {
    /// Object (.o) or assembly source (.s, assembled first).
    pub input: PathBuf,
    /// Target for assembly input: st231 or st120 (aliases: st200 and st2xx mean st231,
    /// st100 means st120).
    #[arg(long)]
    pub target: Option<Target>,
}

/// Why a machine subcommand stopped early.
enum Failure {
    /// Bad input: the message, exit status [`EXIT_ERROR`].
    Input(String),
    /// A bad command-line value: the message, exit status [`EXIT_USAGE`].
    Usage(String),
    /// An output could not be written (see `ssalab::cli_io`).
    Write(WriteError),
    /// A message already printed, exit status 1.
    Reported,
    /// A usage message already printed, exit status [`EXIT_USAGE`].
    UsageReported,
}

impl From<String> for Failure {
    fn from(msg: String) -> Failure {
        Failure::Input(msg)
    }
}

impl From<WriteError> for Failure {
    fn from(e: WriteError) -> Failure {
        Failure::Write(e)
    }
}

/// Execute a machine subcommand.
pub fn run(cmd: MachineCommand) -> ExitCode {
    let r = match cmd {
        MachineCommand::Run(a) => cmd_run(&a),
        MachineCommand::Asm(a) => cmd_asm(&a),
        MachineCommand::Disasm(a) => cmd_disasm(&a),
    };
    match r {
        Ok(code) => code,
        Err(Failure::Input(msg)) => {
            eprintln!("ssalab: {msg}");
            ExitCode::from(EXIT_ERROR)
        }
        Err(Failure::Usage(msg)) => {
            eprintln!("ssalab: {msg}");
            ExitCode::from(EXIT_USAGE)
        }
        Err(Failure::Write(e)) => e.exit_code(),
        Err(Failure::Reported) => ExitCode::from(1),
        Err(Failure::UsageReported) => ExitCode::from(EXIT_USAGE),
    }
}

/// The environment variable that raises the `--mem-size` limit.
pub const MAX_MEM_ENV: &str = "SSALAB_MAX_MEM_BYTES";

/// The largest `--mem-size`: 1 GiB unless [`MAX_MEM_ENV`] says otherwise.
fn max_mem_bytes() -> u64 {
    std::env::var(MAX_MEM_ENV)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(1 << 30)
}

/// Refuses an object whose entry point is not a function named `main` (or `_start`): a C
/// program without `main`, or with a `main` that is not a function (`int main;`), would
/// otherwise start in whatever code comes first (a runtime helper). An assembly source may
/// instead name its entry function with `.entry`.
pub fn check_entry(obj: &Object, from_assembly: bool) -> Result<(), String> {
    let at_entry = obj
        .symbols
        .iter()
        .find(|s| s.kind == SymbolKind::Function && s.addr == obj.entry);
    match at_entry {
        Some(s) if s.name == "main" || s.name == "_start" || from_assembly => Ok(()),
        _ => {
            let what = match obj.symbols.iter().find(|s| s.name == "main") {
                Some(s) if s.kind != SymbolKind::Function => "its `main` is not a function",
                Some(_) => "its entry point is not `main`",
                None => "it has no `main` function",
            };
            Err(format!(
                "cannot run: {what} (the simulator starts the program at `main`, or `_start`)"
            ))
        }
    }
}

/// Load a program: an object file (by magic) or assembly text.
pub fn load_program(path: &Path, target: Option<Target>) -> Result<Object, String> {
    ssalab::cli_io::check_input(path).map_err(|e| e.trim_start_matches("error: ").to_string())?;
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.starts_with(simulator::object::MAGIC) {
        let obj = Object::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        if let Some(t) = target {
            if t != obj.target {
                return Err(format!(
                    "{}: object is for {}, not {t}",
                    path.display(),
                    obj.target
                ));
            }
        }
        return Ok(obj);
    }
    let src = String::from_utf8(bytes).map_err(|_| {
        format!(
            "{}: not UTF-8 text and not an ssalab object",
            path.display()
        )
    })?;
    asm::assemble(&src, target).map_err(|e| format!("{}:{e}", path.display()))
}

fn cmd_run(a: &RunArgs) -> Result<ExitCode, Failure> {
    let built = ssalab::build::is_buildable(&a.input);
    if !built && a.build.passes != PassDebugArgs::default() {
        return Err(Failure::Usage(format!(
            "{}: the pass-debugging options apply to input that `run` compiles (.c, .ir, .lai), not to assembly or objects",
            a.input.display()
        )));
    }
    if let (true, Some(pass)) = (built, &a.build.passes.stop_after) {
        return Err(Failure::Usage(format!(
            "--stop-after {pass}: `run` needs the whole pipeline (use `ssalab compile --stop-after {pass}`, or `ssalab interp` for a mid-level pass)"
        )));
    }
    let obj = if built {
        match ssalab::build::build_outcome(&a.input, a.target, &a.build) {
            Ok(ssalab::build::Outcome::Built(b)) => b.backend.object,
            Ok(ssalab::build::Outcome::Stopped { pass, .. }) => {
                return Err(Failure::Input(format!("the build stopped after {pass}")));
            }
            Err(ssalab::build::BuildError::Usage(msg)) => {
                eprintln!("{msg}");
                return Err(Failure::UsageReported);
            }
            Err(ssalab::build::BuildError::Input(msg)) => {
                eprintln!("{msg}");
                return Err(Failure::Reported);
            }
        }
    } else {
        load_program(&a.input, a.target)?
    };
    let from_assembly = !built && !is_object_file(&a.input);
    if let Err(msg) = check_entry(&obj, from_assembly) {
        eprintln!("error: {}: {msg}", a.input.display());
        return Err(Failure::Reported);
    }
    let mut opts = RunOptions {
        trace: a.trace,
        ..RunOptions::default()
    };
    if let Some(m) = a.max_cycles {
        opts.max_cycles = m;
    }
    if let Some(m) = a.mem_size {
        let limit = max_mem_bytes();
        if u64::from(m) > limit {
            return Err(Failure::Usage(format!(
                "--mem-size {m} is beyond the limit of {limit} bytes (the guest memory is allocated whole; raise the limit with the environment variable {MAX_MEM_ENV}=BYTES)"
            )));
        }
        opts.mem_size = m;
    }
    catch_ctrl_c();
    let report = if a.trace {
        let stderr = std::io::stderr();
        let mut w = std::io::BufWriter::new(stderr.lock());
        let r = simulator::sim::run_traced(&obj, &opts, &mut w);
        let _ = w.flush();
        r
    } else {
        simulator::sim::run(&obj, &opts)
    };
    // The counters are printed even when the output cannot be written (they go to stderr),
    // but the run then fails: its output was its result.
    let written = write_stdout(&report.output);
    if !a.quiet {
        eprint!("{}", stats_table(obj.target, &report));
    }
    written?;
    let program = a.input.display().to_string();
    if let Some(p) = &a.stats_csv {
        write_csv(p, &program, obj.target, &report)?;
    }
    if let Some(p) = &a.stats_json {
        write_file(p, stats_json(&program, obj.target, &report).as_bytes())?;
    }
    Ok(match &report.trap {
        Some(t) if t.kind == TrapKind::Interrupted => {
            eprintln!("ssalab: {t} (Ctrl-C): the counters above are those of the run so far");
            ExitCode::from(EXIT_INTERRUPTED)
        }
        Some(t) => {
            eprintln!("ssalab: {t}");
            ExitCode::from(EXIT_TRAP)
        }
        None => ExitCode::from(report.exit_code as u8),
    })
}

/// Exit status after Ctrl-C (128 + SIGINT, as a shell reports a killed program).
pub const EXIT_INTERRUPTED: u8 = 130;

/// The first Ctrl-C (SIGINT) during a simulation stops it at its next check point, so that
/// the counters so far are printed (marked interrupted); the handler then resets itself, so
/// a second Ctrl-C kills at once.
fn catch_ctrl_c() {
    extern "C" fn on_sigint(_: libc::c_int) {
        // Async-signal-safe: one atomic store.
        simulator::machine::interrupt();
    }
    #[cfg(unix)]
    // SAFETY: installs a handler that only performs an atomic store; `action` is a fully
    // initialised sigaction (zeroed, then the handler, an empty mask and flags set).
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESETHAND;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
    }
}

/// Whether `path` holds an ssalab object (by its magic), as opposed to assembly text.
fn is_object_file(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
        .is_ok_and(|()| &magic == simulator::object::MAGIC)
}

fn cmd_asm(a: &AsmArgs) -> Result<ExitCode, Failure> {
    ssalab::cli_io::check_input(&a.input)
        .map_err(|e| e.trim_start_matches("error: ").to_string())?;
    let src =
        std::fs::read_to_string(&a.input).map_err(|e| format!("{}: {e}", a.input.display()))?;
    let obj = asm::assemble(&src, a.target).map_err(|e| format!("{}:{e}", a.input.display()))?;
    let out = a
        .output
        .clone()
        .unwrap_or_else(|| a.input.with_extension("o"));
    if out.as_os_str() == "-" {
        write_stdout(&obj.to_bytes())?;
    } else {
        write_file(&out, &obj.to_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_disasm(a: &DisasmArgs) -> Result<ExitCode, Failure> {
    let obj = load_program(&a.input, a.target)?;
    write_stdout(asm::disassemble(&obj).as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// A named counter column.
type Column = (&'static str, fn(&Counters) -> u64);

/// Counter columns in CSV/JSON order, with the CSV names the reports use.
const COLUMNS: [Column; 13] = [
    ("cycles", |c| c.cycles),
    ("stall_operand", |c| c.stall_operand),
    ("stall_memport", |c| c.stall_memport),
    ("bundles", |c| c.bundles),
    ("ops", |c| c.ops),
    ("nops", |c| c.nops),
    ("dyn_moves", |c| c.moves),
    ("dyn_swaps", |c| c.swaps),
    ("dyn_loads", |c| c.loads),
    ("dyn_stores", |c| c.stores),
    ("dyn_spill_loads", |c| c.spill_loads),
    ("dyn_spill_stores", |c| c.spill_stores),
    ("taken_branches", |c| c.taken_branches),
];

/// Functions worth reporting: entered at least once, or with any counted activity.
fn active(report: &RunReport) -> impl Iterator<Item = &FunctionStats> {
    report
        .functions
        .iter()
        .filter(|f| f.calls > 0 || f.exclusive.bundles > 0)
}

/// The stderr table: totals, then per function exclusive counters and inclusive cycles.
pub fn stats_table(target: Target, r: &RunReport) -> String {
    let mut s = String::new();
    let status = match &r.trap {
        Some(t) if t.kind == TrapKind::Interrupted => {
            "INTERRUPTED (Ctrl-C), counters so far".to_string()
        }
        Some(_) => "trapped".to_string(),
        None => format!("exit {}", r.exit_code),
    };
    let _ = writeln!(
        s,
        "== ssalab run ({target}): {status}, {} cycles, {} ops, {:.4} s host, {:.1} M simulated ops/s",
        r.totals.cycles,
        r.totals.ops,
        r.host_seconds,
        r.ops_per_second() / 1e6
    );
    let head = [
        "function",
        "calls",
        "incl_cyc",
        "cycles",
        "stall_op",
        "stall_mem",
        "bundles",
        "ops",
        "nops",
        "moves",
        "swaps",
        "loads",
        "stores",
        "spill_ld",
        "spill_st",
        "taken",
    ];
    let widths = [16, 7, 10, 10, 9, 9, 9, 9, 7, 7, 6, 8, 8, 8, 8, 8];
    let row = |s: &mut String, cells: &[String]| {
        for (k, (c, w)) in cells.iter().zip(widths).enumerate() {
            if k == 0 {
                let _ = write!(s, "{c:<w$}");
            } else {
                let _ = write!(s, " {c:>w$}");
            }
        }
        s.push('\n');
    };
    row(&mut s, &head.map(String::from));
    let cells = |name: &str, calls: String, incl: u64, c: &Counters| -> Vec<String> {
        let mut v = vec![name.to_string(), calls, incl.to_string()];
        v.extend(
            [
                c.cycles,
                c.stall_operand,
                c.stall_memport,
                c.bundles,
                c.ops,
                c.nops,
                c.moves,
                c.swaps,
                c.loads,
                c.stores,
                c.spill_loads,
                c.spill_stores,
                c.taken_branches,
            ]
            .map(|x| x.to_string()),
        );
        v
    };
    row(
        &mut s,
        &cells("<total>", String::new(), r.totals.cycles, &r.totals),
    );
    for f in active(r) {
        row(
            &mut s,
            &cells(
                &f.name,
                f.calls.to_string(),
                f.inclusive.cycles,
                &f.exclusive,
            ),
        );
    }
    s
}

fn write_csv(path: &Path, program: &str, target: Target, r: &RunReport) -> Result<(), Failure> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["program", "target", "function", "scope", "calls"];
    header.extend(COLUMNS.iter().map(|c| c.0));
    let mut rows = vec![header.iter().map(|h| h.to_string()).collect::<Vec<_>>()];
    let record = |function: &str, scope: &str, calls: u64, c: &Counters| {
        let mut rec = vec![
            program.to_string(),
            target.to_string(),
            function.to_string(),
            scope.to_string(),
            calls.to_string(),
        ];
        rec.extend(COLUMNS.iter().map(|col| (col.1)(c).to_string()));
        rec
    };
    rows.push(record("<total>", "total", 1, &r.totals));
    for f in active(r) {
        rows.push(record(&f.name, "exclusive", f.calls, &f.exclusive));
        rows.push(record(&f.name, "inclusive", f.calls, &f.inclusive));
    }
    for row in &rows {
        w.write_record(row).map_err(|e| format!("CSV: {e}"))?;
    }
    let bytes = w.into_inner().map_err(|e| format!("CSV: {e}"))?;
    Ok(write_file(path, &bytes)?)
}

fn json_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for ch in s.chars() {
        match ch {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn json_counters(c: &Counters) -> String {
    let fields: Vec<String> = COLUMNS
        .iter()
        .map(|(n, f)| format!("\"{n}\": {}", f(c)))
        .collect();
    format!("{{{}}}", fields.join(", "))
}

/// The `--stats-json` document.
pub fn stats_json(program: &str, target: Target, r: &RunReport) -> String {
    let mut s = String::from("{\n");
    let _ = writeln!(s, "  \"program\": {},", json_str(program));
    let _ = writeln!(s, "  \"target\": \"{target}\",");
    let _ = writeln!(s, "  \"exit_code\": {},", r.exit_code);
    let trap = r
        .trap
        .as_ref()
        .map_or("null".to_string(), |t| json_str(&t.to_string()));
    let _ = writeln!(s, "  \"trap\": {trap},");
    let _ = writeln!(s, "  \"output_bytes\": {},", r.output.len());
    let _ = writeln!(s, "  \"host_seconds\": {},", r.host_seconds);
    let _ = writeln!(s, "  \"sim_ops_per_second\": {:.1},", r.ops_per_second());
    let _ = writeln!(s, "  \"totals\": {},", json_counters(&r.totals));
    s.push_str("  \"functions\": [");
    let fs: Vec<String> = active(r)
        .map(|f| {
            format!(
                "\n    {{\"name\": {}, \"addr\": {}, \"calls\": {}, \"exclusive\": {}, \"inclusive\": {}}}",
                json_str(&f.name),
                f.addr,
                f.calls,
                json_counters(&f.exclusive),
                json_counters(&f.inclusive)
            )
        })
        .collect();
    s.push_str(&fs.join(","));
    s.push_str("\n  ]\n}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escapes() {
        assert_eq!(json_str("a\"b\\c\n\u{1}"), "\"a\\\"b\\\\c\\n\\u0001\"");
    }

    #[test]
    fn run_report_documents() {
        let obj = asm::assemble(
            "main:\n mov $r16 = 7 ;;\n return $r63 ;;\n",
            Some(Target::St231),
        )
        .unwrap();
        let r = simulator::sim::run(&obj, &RunOptions::default());
        let j = stats_json("p.s", Target::St231, &r);
        assert!(j.contains("\"exit_code\": 7"), "{j}");
        assert!(j.contains("\"name\": \"main\""), "{j}");
        assert!(j.contains("\"sim_ops_per_second\""));
        let t = stats_table(Target::St231, &r);
        assert!(t.contains("<total>") && t.contains("main"), "{t}");
    }
}
