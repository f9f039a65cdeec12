//! Options shared by every subcommand that reads a C program or a text-IR file, and the code
//! that turns such an input into an SSA-optimised IR module.

use crate::pass_debug::PassDebugArgs;
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
    /// Run the SSA verifier after every pass.
    #[arg(long)]
    pub verify: bool,
    // --print-before/--print-after/--stop-after PASS, --print-changed, --filter-function,
    // --dump-dir, --time-passes.
    #[command(flatten)]
    pub passes: PassDebugArgs,
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

    /// The mid-level passes this input goes through, in order (none for text IR at `-O0`,
    /// which is SSA already).
    pub fn mid_passes(&self) -> Vec<&'static str> {
        if is_ir_input(&self.input) && self.opt == Opt::O0 {
            Vec::new()
        } else {
            pipeline::mid_level_passes(self.opt_level())
        }
    }

    /// The stages of the mid-level pipeline: `front`, then each pass.
    pub fn stages(&self) -> Vec<String> {
        std::iter::once("front")
            .chain(self.mid_passes())
            .map(String::from)
            .collect()
    }

    /// `-O0` or `-O2`, for messages.
    pub fn level_name(&self) -> &'static str {
        match self.opt {
            Opt::O0 => "-O0",
            Opt::O2 => "-O2",
        }
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

/// Reads the input and runs the mid-level pipeline with `--verify`, stopping after the
/// first run of `--stop-after PASS` when that is a mid-level stage; `--time-passes` prints
/// the table on stderr. `after_pass` is called after every pass (and once for the front
/// end's output, with the name `front`) and may stop the pipeline with an error message;
/// the pass-debugging dumps are its business ([`crate::pass_debug::Dumper`]).
pub fn build_module(
    args: &FrontArgs,
    after_pass: &mut dyn FnMut(&str, &Module) -> Result<(), String>,
) -> Result<(Module, Vec<PassStats>), String> {
    let start = std::time::Instant::now();
    let mut module = read_input(args)?;
    let front_time = start.elapsed();
    after_pass("front", &module)?;
    let mut passes = args.mid_passes();
    match args.passes.stop_after.as_deref() {
        Some("front") => passes.clear(),
        Some(stop) => {
            if let Some(i) = passes.iter().position(|p| *p == stop) {
                passes.truncate(i + 1);
            }
        }
        None => {}
    }
    let mut hook = |pass: &str, m: &Module| -> Result<(), String> {
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
    if args.passes.time_passes {
        crate::eprintln!("front end: {} us", front_time.as_micros());
        crate::eprint!(
            "{}",
            format_stats(&stats, args.passes.filter_function.as_deref())
        );
    }
    Ok((module, stats))
}

fn is_ir_input(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "ir")
}

/// The `--time-passes` table: for every run of a pass, one row per function (only
/// `filter`'s when given) and a `(module)` row with the totals over all functions.
pub fn format_stats(stats: &[PassStats], filter: Option<&str>) -> String {
    let runs = pass_runs(stats);
    let width = stats
        .iter()
        .map(|s| s.function.len())
        .chain([8])
        .max()
        .unwrap_or(8);
    let mut out = format!(
        "{:<22} {:<width$} {:>10} {:>9} {:>9} {:>8} {:>8} {:>9} {:>9}\n",
        "pass", "function", "time(us)", "insts", "copies", "+copies", "-copies", "weighted", "phis"
    );
    for rows in &runs {
        for r in rows
            .iter()
            .filter(|r| filter.is_none_or(|f| f == r.function))
        {
            out += &stats_row(rows[0].pass, &r.function, width, std::slice::from_ref(*r));
        }
        let all: Vec<PassStats> = rows.iter().map(|r| (*r).clone()).collect();
        out += &stats_row(rows[0].pass, "(module)", width, &all);
    }
    out
}

/// One line of [`format_stats`]: the sums over `rows`.
fn stats_row(pass: &str, function: &str, width: usize, rows: &[PassStats]) -> String {
    let sum = |f: fn(&PassStats) -> u64| rows.iter().map(f).sum::<u64>();
    format!(
        "{:<22} {:<width$} {:>10} {:>9} {:>9} {:>8} {:>8} {:>9} {:>9}\n",
        pass,
        function,
        sum(|s| s.time.as_micros() as u64),
        sum(|s| s.insts_after as u64),
        sum(|s| s.copies_after as u64),
        sum(|s| s.copies_inserted as u64),
        sum(|s| s.copies_removed as u64),
        sum(|s| s.weighted_copies_after),
        sum(|s| s.phis_after as u64),
    )
}

/// The statistics grouped by pass run, in order of first row. A run of pass P collects P's
/// rows until a function repeats: the back end reports `sched` and `emit` interleaved per
/// function, and the mid-level pipeline runs some passes twice.
fn pass_runs(stats: &[PassStats]) -> Vec<Vec<&PassStats>> {
    let mut runs: Vec<Vec<&PassStats>> = Vec::new();
    let mut open: std::collections::HashMap<&str, usize> = Default::default();
    for s in stats {
        match open.get(s.pass) {
            Some(&i) if !runs[i].iter().any(|r| r.function == s.function) => runs[i].push(s),
            _ => {
                open.insert(s.pass, runs.len());
                runs.push(vec![s]);
            }
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(pass: &'static str, function: &str, insts: usize) -> PassStats {
        PassStats {
            pass,
            function: function.into(),
            copies_before: 0,
            copies_after: 0,
            weighted_copies_before: 0,
            weighted_copies_after: 0,
            copies_inserted: 0,
            copies_removed: 0,
            phis_before: 0,
            phis_after: 0,
            insts_before: 0,
            insts_after: insts,
            time: std::time::Duration::ZERO,
            detail: Vec::new(),
        }
    }

    #[test]
    fn runs_split_on_a_repeated_function_and_merge_interleaved_passes() {
        let stats = [
            row("copyprop", "f", 1),
            row("copyprop", "g", 2),
            row("dce", "f", 1),
            row("dce", "g", 2),
            row("copyprop", "f", 1),
            row("copyprop", "g", 2),
            row("sched", "f", 1),
            row("emit", "f", 1),
            row("sched", "g", 2),
            row("emit", "g", 2),
        ];
        let runs: Vec<(&str, usize)> = pass_runs(&stats)
            .iter()
            .map(|r| (r[0].pass, r.len()))
            .collect();
        assert_eq!(
            runs,
            vec![
                ("copyprop", 2),
                ("dce", 2),
                ("copyprop", 2),
                ("sched", 2),
                ("emit", 2)
            ]
        );
        let table = format_stats(&stats, Some("g"));
        let sched: Vec<&str> = table.lines().filter(|l| l.starts_with("sched")).collect();
        assert_eq!(sched.len(), 2, "{table}");
        assert!(sched[0].split_whitespace().nth(1) == Some("g"), "{table}");
        // The module row sums both functions' instructions.
        let module: Vec<&str> = sched[1].split_whitespace().collect();
        assert_eq!((module[1], module[3]), ("(module)", "3"), "{table}");
    }
}
