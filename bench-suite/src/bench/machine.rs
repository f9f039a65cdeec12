//! The real [`Executor`] of the sweep: compile one program for one target under one pipeline
//! configuration (`ssalab::build`, the same path as `ssalab run prog.c`), run it on the
//! cycle-level simulator, compare its output and exit status with the host compiler's build
//! (built once per program and cached), and report per-function statistics.
//!
//! Static columns come from the compiler's per-pass statistics (`PassStats`): copies right
//! after out-of-SSA, after the allocator's coalescing, and in the final code (static and
//! 5^loop-depth weighted); code bytes from the object's symbol sizes; compile time summed
//! over every pass that touched the function. Dynamic columns come from the simulator's
//! exclusive per-function counters ([`super::add_dynamic`]).

use super::{add_dynamic, FunctionRow, Job, JobOutcome};
use crate::build::{build, BuildArgs};
use crate::frontend::Opt;
use crate::host::{HostCompiler, HostRun};
use compiler::pipeline::PassStats;
use simulator::machine::RunOptions;
use simulator::object::SymbolKind;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

/// The host build's result of one program, computed once.
type HostCell = Arc<OnceLock<Result<HostRun, String>>>;
use std::time::Instant;

/// The catalogue for the sweep: every configuration of `compiler::backend::CONFIGS`, all run
/// by default.
pub fn catalog() -> super::jobs::ConfigCatalog {
    let names: Vec<String> = compiler::backend::CONFIGS
        .iter()
        .map(|(n, _, _)| n.to_string())
        .collect();
    super::jobs::ConfigCatalog {
        available: names.clone(),
        default: names,
    }
}

/// Compiles with the ssalab back end, simulates, checks against the host compiler.
pub struct MachineExecutor {
    root: PathBuf,
    host: HostCompiler,
    host_runs: Mutex<HashMap<String, HostCell>>,
    /// Run the machine-IR verifier and the allocation checker on every function.
    pub verify: bool,
}

impl MachineExecutor {
    pub fn new(programs_root: PathBuf, verify: bool) -> Self {
        MachineExecutor {
            host: HostCompiler::new(&programs_root),
            root: programs_root,
            host_runs: Mutex::new(HashMap::new()),
            verify,
        }
    }

    /// The host build's behaviour, computed once per program: the first worker to ask builds
    /// and runs it, the others wait for that result (the host compiler's file cache is not
    /// safe against two builds of one program at once).
    fn host_run(&self, program: &str) -> Result<HostRun, String> {
        let cell = {
            let mut map = self.host_runs.lock().map_err(|e| e.to_string())?;
            Arc::clone(map.entry(program.to_string()).or_default())
        };
        cell.get_or_init(|| {
            self.host
                .run(&self.root.join(program))
                .map_err(|e| format!("host compiler: {e}"))
        })
        .clone()
    }

    fn build_args(&self, job: &Job) -> BuildArgs {
        BuildArgs {
            include: Vec::new(),
            define: Vec::new(),
            undefine: Vec::new(),
            opt: Opt::O2,
            config: job.config.clone(),
            regs: job.regs,
            no_sched: false,
            no_if_convert: false,
            no_post_increment: false,
            print_after: Vec::new(),
            verify: self.verify,
            check_each_pass: false,
            time_passes: false,
        }
    }
}

/// The statistics row of pass `pass` for `function`, if the pass ran on it.
fn pass_row<'a>(stats: &'a [PassStats], function: &str, pass: &str) -> Option<&'a PassStats> {
    stats
        .iter()
        .rev()
        .find(|s| s.function == function && s.pass == pass)
}

impl super::Executor for MachineExecutor {
    fn run(&self, job: &Job) -> JobOutcome {
        let host = match self.host_run(&job.program) {
            Ok(h) => h,
            Err(e) => return JobOutcome::failed(e),
        };
        let path = self.root.join(&job.program);
        let t = Instant::now();
        let built = match build(&path, job.target, &self.build_args(job)) {
            Ok(b) => b,
            Err(e) => return JobOutcome::failed(format!("compile: {}", first_line(&e))),
        };
        let compile_seconds = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let report = simulator::sim::run(&built.backend.object, &RunOptions::default());
        let simulate_seconds = t.elapsed().as_secs_f64();
        let mut outcome = JobOutcome {
            status: super::JobStatus::Ok,
            functions: Vec::new(),
            compile_seconds,
            simulate_seconds,
        };
        if let Some(trap) = &report.trap {
            outcome.status = super::JobStatus::Failed(format!("trap: {trap}"));
            return outcome;
        }
        let exit = report.exit_code & 0xff;
        if report.output != host.stdout || exit != host.exit_code {
            outcome.status = super::JobStatus::Failed(format!(
                "wrong result: exit {exit} (host {}), output {} bytes (host {}){}",
                host.exit_code,
                report.output.len(),
                host.stdout.len(),
                if report.output == host.stdout {
                    ""
                } else {
                    ", output differs"
                }
            ));
            return outcome;
        }
        outcome.functions = static_rows(&built);
        add_dynamic(&mut outcome.functions, &report.functions);
        outcome
    }
}

/// Per-function static counts of a build.
fn static_rows(built: &crate::build::Built) -> Vec<FunctionRow> {
    let obj = &built.backend.object;
    let sizes: HashMap<&str, u32> = obj
        .symbols
        .iter()
        .filter(|s| s.kind == SymbolKind::Function)
        .map(|s| (s.name.as_str(), s.size))
        .collect();
    let (ssa_out, coalesced, last) = compiler::backend::stat_passes(&built.config);
    built
        .backend
        .mir
        .functions
        .iter()
        .map(|f| {
            let name = f.name.as_str();
            let mut row = FunctionRow::named(name);
            if let Some(s) = ssa_out.and_then(|p| pass_row(&built.stats, name, p)) {
                row.moves_ssa_out = s.copies_after as u64;
            }
            if let Some(s) = coalesced.and_then(|p| pass_row(&built.stats, name, p)) {
                row.moves_coalesced = s.copies_after as u64;
            }
            if let Some(s) = last.and_then(|p| pass_row(&built.stats, name, p)) {
                row.moves_final = s.copies_after as u64;
                row.weighted_moves = s.weighted_copies_after;
            }
            row.code_bytes = u64::from(sizes.get(name).copied().unwrap_or(0));
            row.compile_us = built
                .stats
                .iter()
                .filter(|s| s.function == name)
                .map(|s| s.time.as_micros() as u64)
                .sum();
            row
        })
        .collect()
}

fn first_line(s: &str) -> String {
    let line = s.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    line.chars().take(300).collect()
}
