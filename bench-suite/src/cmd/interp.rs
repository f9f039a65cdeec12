//! `ssalab interp`: compile a program to the IR and run it on the reference interpreter.
//!
//! stdout carries exactly what the program prints; the exit status is `main`'s return value
//! (or `exit`'s argument). Compile errors print located diagnostics and exit with status 1; a
//! trap prints its message to stderr and exits with status 125 (or use `--trap-status`). When
//! the output cannot be written the run fails (see `ssalab::cli_io`), whatever `main` returned.
//!
//! The input is C or text IR. Machine-level input (`.lai`, `.s`, `.o`) is refused with exit
//! status 2 before anything is read: it is a wrong use of the command (`ssalab run` runs it),
//! not a bad file. The pass-debugging options (`ssalab::pass_debug`) cover the front end and
//! the mid-level passes of the `-O` level; `--stop-after PASS` runs the program as it is
//! after that pass.

use clap::Args;
use compiler::interp::{self, Options, Outcome};
use compiler::ir::Module;
use ssalab::cli_io::write_stdout;
use ssalab::frontend::{build_module, FrontArgs};
use ssalab::pass_debug::{Dumper, Pipeline};
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct InterpArgs {
    #[command(flatten)]
    pub front: FrontArgs,
    /// Function to run.
    #[arg(long, default_value = "main")]
    pub entry: String,
    /// Stop after this many executed IR instructions.
    #[arg(long, default_value_t = 2_000_000_000)]
    pub max_steps: u64,
    /// Interpret the program after every pass and check that its output never changes; the
    /// first pass that changes it is named (stage bisection).
    #[arg(long)]
    pub check_each_pass: bool,
}

/// Exit status used when the program traps.
const TRAP_STATUS: u8 = 125;

/// Exit status for a bad command line (as clap uses for the errors it finds).
const USAGE_STATUS: u8 = 2;

/// Refuses machine-level input, which the IR interpreter cannot run.
fn check_input_kind(args: &FrontArgs) -> Result<(), String> {
    let ext = args
        .input
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    let what = match ext {
        "lai" => "linear assembly (LAI)",
        "s" => "assembly",
        "o" => "an object file",
        _ => return Ok(()),
    };
    Err(format!(
        "error: {}: `ssalab interp` runs C (.c) or text IR (.ir) on the IR interpreter; this is {what}, which is machine code: run it on the simulator with `ssalab run {}`",
        args.input.display(),
        args.input.display()
    ))
}

/// The stages `interp` goes through: the front end and the mid-level passes.
fn pipeline(args: &FrontArgs) -> Pipeline {
    Pipeline {
        stages: args.stages(),
        context: format!("interp at {}", args.level_name()),
    }
}

pub fn main(args: InterpArgs) -> ExitCode {
    let pipeline = pipeline(&args.front);
    if let Err(msg) =
        check_input_kind(&args.front).and_then(|()| pipeline.check(&args.front.passes))
    {
        eprintln!("{msg}");
        return ExitCode::from(USAGE_STATUS);
    }
    let mut dumper = Dumper::new(&args.front.passes, &pipeline, &[]);
    let opts = Options {
        max_steps: args.max_steps,
        ..Options::default()
    };
    let mut reference: Option<(String, Outcome)> = None;
    let mut check = |pass: &str, m: &Module| -> Result<(), String> {
        // The front end stops the pipeline itself at `--stop-after`.
        dumper.after(pass, m)?;
        if !args.check_each_pass {
            return Ok(());
        }
        let out = interp::run(m, &args.entry, &opts).map_err(|e| e.to_string())?;
        match &reference {
            None => reference = Some((pass.to_string(), out)),
            Some((first, r)) if !same_behaviour(r, &out) => {
                return Err(format!(
                    "pass `{pass}` changed the program's behaviour (compared with `{first}`):\n  before: exit {} trap {:?} output {:?}\n  after:  exit {} trap {:?} output {:?}",
                    r.exit_code,
                    r.trap.as_ref().map(|t| t.to_string()),
                    abbreviate(&r.output_string()),
                    out.exit_code,
                    out.trap.as_ref().map(|t| t.to_string()),
                    abbreviate(&out.output_string()),
                ))
            }
            Some(_) => {}
        }
        Ok(())
    };
    let module = match build_module(&args.front, &mut check) {
        Ok((m, _)) => m,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(1);
        }
    };
    if let Err(msg) = dumper.check_filter() {
        eprintln!("{msg}");
        return ExitCode::from(1);
    }
    let outcome = match interp::run(&module, &args.entry, &opts) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    // The program's output is its result: losing it is a failure, whatever `main` returned.
    if let Err(e) = write_stdout(&outcome.output) {
        return e.exit_code();
    }
    match outcome.trap {
        Some(t) => {
            eprintln!("error: {t}");
            ExitCode::from(TRAP_STATUS)
        }
        None => ExitCode::from(outcome.exit_code as u8),
    }
}

fn same_behaviour(a: &Outcome, b: &Outcome) -> bool {
    a.output == b.output
        && a.exit_code == b.exit_code
        && a.trap.as_ref().map(|t| &t.kind) == b.trap.as_ref().map(|t| &t.kind)
}

fn abbreviate(s: &str) -> String {
    if s.len() > 200 {
        let mut end = 200;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &s[..end])
    } else {
        s.to_string()
    }
}
