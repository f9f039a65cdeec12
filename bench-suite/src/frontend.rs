//! Options shared by every subcommand that reads a C program or a text-IR file, and the code
//! that turns such an input into an SSA-optimised IR module.

use clap::{Args, ValueEnum};
use compiler::front::FrontOptions;
use compiler::ir::Module;
use compiler::pipeline::{self, OptLevel, PassStats};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Opt {
    #[value(name = "0")]
    O0,
    #[value(name = "2")]
    O2,
}

/// Front-end and mid-level pipeline options.
#[derive(Args, Debug, Clone)]
pub struct FrontArgs {
    /// Input: a C file (`.c`) or a text-IR file (`.ir`).
    pub input: PathBuf,
    /// Add a directory to the `#include` search path.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Define a macro (`NAME` or `NAME=VALUE`).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// Undefine a macro.
    #[arg(short = 'U', value_name = "NAME")]
    pub undefine: Vec<String>,
    /// Optimisation level: `-O0` builds SSA only, `-O2` runs the SSA optimisations.
    #[arg(short = 'O', value_name = "LEVEL", default_value = "2")]
    pub opt: Opt,
    /// Print the IR after this pass (repeatable; `all` prints after every pass; `front`
    /// prints the front end's output before SSA).
    #[arg(long, value_name = "PASS")]
    pub print_after: Vec<String>,
    /// Run the SSA verifier after every pass.
    #[arg(long)]
    pub verify: bool,
    /// Print per-pass statistics (time, instructions, copies) to stderr.
    #[arg(long)]
    pub time_passes: bool,
}

impl FrontArgs {
    pub fn front_options(&self) -> FrontOptions {
        FrontOptions {
            include_dirs: self.include.clone(),
            defines: self
                .define
                .iter()
                .map(|d| match d.split_once('=') {
                    Some((n, v)) => (n.to_string(), Some(v.to_string())),
                    None => (d.clone(), None),
                })
                .collect(),
            undefines: self.undefine.clone(),
            ..FrontOptions::default()
        }
    }

    pub fn opt_level(&self) -> OptLevel {
        match self.opt {
            Opt::O0 => OptLevel::O0,
            Opt::O2 => OptLevel::O2,
        }
    }

    fn prints_after(&self, pass: &str) -> bool {
        self.print_after.iter().any(|p| p == pass || p == "all")
    }
}

/// Reads the input: C through the front end, or text IR. Errors are rendered for the user.
pub fn read_input(args: &FrontArgs) -> Result<Module, String> {
    let path = &args.input;
    crate::cli_io::check_input(path)?;
    if path.extension().is_some_and(|e| e == "ir") {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("error: cannot read {}: {e}", path.display()))?;
        return compiler::ir::parse_module(&text).map_err(|e| format!("{}:{e}", path.display()));
    }
    let compiled = compiler::front::compile_file(path, &args.front_options());
    match compiled.module {
        Some(m) => {
            // Warnings only: show them and go on.
            if !compiled.diagnostics.list.is_empty() {
                eprint!("{}", compiled.diagnostics.render());
            }
            Ok(m)
        }
        None => Err(compiled.diagnostics.render()),
    }
}

/// Reads the input and runs the mid-level pipeline, with `--print-after`, `--verify` and
/// `--time-passes`. `after_pass` is called after every pass (and once for the front end's
/// output, with the name `front`) and may stop the pipeline with an error message.
pub fn build_module(
    args: &FrontArgs,
    after_pass: &mut dyn FnMut(&str, &Module) -> Result<(), String>,
) -> Result<(Module, Vec<PassStats>), String> {
    for p in &args.print_after {
        let known = p == "front" || p == "all" || pipeline::pass_names().contains(&p.as_str());
        if !known {
            return Err(format!(
                "error: unknown pass `{p}` for --print-after; valid: front, all, {}",
                pipeline::pass_names().join(", ")
            ));
        }
    }
    let start = std::time::Instant::now();
    let mut module = read_input(args)?;
    let front_time = start.elapsed();
    let already_ssa = is_ir_input(&args.input) && args.opt == Opt::O0;
    if args.prints_after("front") {
        crate::out!("{module}");
    }
    after_pass("front", &module)?;
    let passes = if already_ssa {
        Vec::new()
    } else {
        pipeline::mid_level_passes(args.opt_level())
    };
    let mut hook = |pass: &str, m: &Module| -> Result<(), String> {
        if args.prints_after(pass) {
            crate::outln!("// after {pass}");
            crate::out!("{m}");
        }
        if args.verify {
            if let Err(errors) = compiler::ssa::verify::verify_module(m) {
                let list: Vec<String> = errors.iter().map(|e| format!("  {e}")).collect();
                return Err(format!(
                    "SSA verifier after pass `{pass}`:\n{}",
                    list.join("\n")
                ));
            }
        }
        after_pass(pass, m)
    };
    let stats = pipeline::run_passes(&mut module, &passes, &mut hook).map_err(|e| e.to_string())?;
    if args.time_passes {
        eprintln!("front end: {} us", front_time.as_micros());
        eprint!("{}", format_stats(&stats));
    }
    Ok((module, stats))
}

fn is_ir_input(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "ir")
}

/// A table of per-pass statistics summed over functions, one line per pass run (the pipeline
/// runs each pass over every function before the next pass, so a run is a group of
/// consecutive rows with the same pass name).
pub fn format_stats(stats: &[PassStats]) -> String {
    let mut out = format!(
        "{:<16} {:>10} {:>9} {:>9} {:>8} {:>8} {:>9} {:>9}\n",
        "pass", "time(us)", "insts", "copies", "+copies", "-copies", "weighted", "phis"
    );
    for rows in stats.chunk_by(|a, b| a.pass == b.pass) {
        let sum = |f: fn(&PassStats) -> u64| rows.iter().map(f).sum::<u64>();
        out += &format!(
            "{:<16} {:>10} {:>9} {:>9} {:>8} {:>8} {:>9} {:>9}\n",
            rows[0].pass,
            sum(|s| s.time.as_micros() as u64),
            sum(|s| s.insts_after as u64),
            sum(|s| s.copies_after as u64),
            sum(|s| s.copies_inserted as u64),
            sum(|s| s.copies_removed as u64),
            sum(|s| s.weighted_copies_after),
            sum(|s| s.phis_after as u64),
        );
    }
    out
}
