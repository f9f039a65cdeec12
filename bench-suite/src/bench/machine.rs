//! The real [`Executor`] of the sweep: compile one program for one target under one pipeline
//! configuration (`ssalab::build`, the same path as `ssalab run prog.c`), run it on the
//! cycle-level simulator, compare its output and exit status with the oracle, and report
//! per-function statistics. The oracle of a C program is the host compiler's build (built
//! once per program and cached); a `.lai` program has no host compiler, so its oracle is the
//! file's own `# expected:` output and `# exit:` status ([`super::manifest::lai_oracle`]).
//!
//! Static columns come from the compiler's per-pass statistics (`PassStats`): copies right
//! after out-of-SSA, after coalescing, and in the final code (static and 5^loop-depth
//! weighted); code bytes from the object's symbol sizes; compile time summed over every pass
//! that touched the function. Dynamic columns come from the simulator's exclusive
//! per-function counters ([`super::add_dynamic`]).
//!
//! `ssalab compile --stats`/`--stats-csv` build their rows here too ([`function_rows`],
//! [`stats_csv`]), so the command line and the sweep count the same way.

use super::jobs::PlannedJob;
use super::output::{OutputFiles, SweepDefinition, FUNCTION_COLUMNS};
use super::runner::JobResult;
use super::{add_dynamic, FunctionRow, Job, JobOutcome, JobStatus};
use crate::build::{build, is_lai, BuildArgs, Built};
use crate::frontend::Opt;
use crate::host::{HostCompiler, HostRun};
use compiler::pipeline::PassStats;
use simulator::machine::{RunOptions, RunReport};
use simulator::object::SymbolKind;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
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
        if is_lai(Path::new(program)) {
            return lai_expected(&self.root.join(program));
        }
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
            verify: self.verify,
            check_each_pass: false,
            passes: Default::default(),
            keep_stages: false,
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
        if let Err(e) = check_result(&report, &host) {
            outcome.status = super::JobStatus::Failed(e);
            return outcome;
        }
        outcome.functions = function_rows(&built, Some(&report));
        outcome
    }
}

/// The oracle of a `.lai` program, from the file itself.
fn lai_expected(path: &Path) -> Result<HostRun, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let o = super::manifest::lai_oracle(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(HostRun {
        stdout: o.output,
        exit_code: o.exit_code,
    })
}

/// Compares a simulated run with the oracle ("host" in messages: the host compiler's build,
/// or the LAI file's expected output): `Err(reason)` when the output or the exit status
/// (modulo 256) differs.
fn check_result(report: &RunReport, host: &HostRun) -> Result<(), String> {
    let exit = report.exit_code & 0xff;
    if report.output == host.stdout && exit == host.exit_code {
        return Ok(());
    }
    Err(format!(
        "wrong result: exit {exit} (host {}), output {} bytes (host {}){}",
        host.exit_code,
        report.output.len(),
        host.stdout.len(),
        if report.output == host.stdout {
            ""
        } else {
            ", output differs"
        }
    ))
}

/// Per-function rows of a build: the static counts, plus the dynamic ones of `report` (a
/// simulation of the build's object) when given.
pub fn function_rows(built: &Built, report: Option<&RunReport>) -> Vec<FunctionRow> {
    let mut rows = static_rows(built);
    if let Some(r) = report {
        add_dynamic(&mut rows, &r.functions);
    }
    rows
}

/// The simulation behind `ssalab compile --stats`: run when the program has a `main`.
pub struct StatsRun {
    pub report: Option<RunReport>,
    /// `ok` (simulated without a trap, and — for LAI — with the file's expected output and
    /// exit status), or why not: `trap: ...`, `wrong result: ...`, `not simulated: no main`.
    pub status: String,
}

impl StatsRun {
    /// Simulates `built` if it has a `main`; `lai` names the LAI source whose `# expected:`
    /// output the run is checked against.
    pub fn simulate(built: &Built, lai: Option<&Path>) -> StatsRun {
        if built.backend.mir.function("main").is_none() {
            return StatsRun {
                report: None,
                status: "not simulated: no main".into(),
            };
        }
        let report = simulator::sim::run(&built.backend.object, &RunOptions::default());
        let status = match (&report.trap, lai) {
            (Some(t), _) => format!("trap: {t}"),
            (None, Some(path)) => {
                match lai_expected(path).and_then(|o| check_result(&report, &o)) {
                    Ok(()) => "ok".into(),
                    Err(e) => e,
                }
            }
            (None, None) => "ok".into(),
        };
        StatsRun {
            report: Some(report),
            status,
        }
    }
}

/// The `--stats` table: one line per function of the module (module order) and a total.
pub fn stats_table(program: &str, built: &Built, run: &StatsRun, rows: &[FunctionRow]) -> String {
    let c = &built.config;
    let regs = c
        .regalloc
        .regs
        .map_or(String::new(), |n| format!(", --regs {n}"));
    let mut s = format!(
        "== ssalab compile --stats: {program} ({}, {}{regs}): {}\n",
        c.target, c.name, run.status
    );
    let head = [
        "function",
        "ssa_out",
        "coalesced",
        "final",
        "weighted",
        "dyn_moves",
        "loads",
        "stores",
        "spill_ld",
        "spill_st",
        "cycles",
    ];
    let widths = [20, 8, 9, 7, 9, 10, 9, 9, 8, 8, 10];
    let line = |s: &mut String, cells: &[String]| {
        for (k, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if k == 0 {
                let _ = write!(s, "{cell:<w$}");
            } else {
                let _ = write!(s, " {cell:>w$}");
            }
        }
        s.push('\n');
    };
    line(&mut s, &head.map(String::from));
    let counts = |r: &FunctionRow| {
        [
            r.moves_ssa_out,
            r.moves_coalesced,
            r.moves_final,
            r.weighted_moves,
            r.dyn_moves,
            r.dyn_loads,
            r.dyn_stores,
            r.dyn_spill_loads,
            r.dyn_spill_stores,
            r.cycles,
        ]
    };
    let mut total = [0u64; 10];
    for r in rows {
        let c = counts(r);
        for (t, x) in total.iter_mut().zip(c) {
            *t = t.saturating_add(x);
        }
        let mut cells = vec![r.function.clone()];
        cells.extend(c.map(|x| x.to_string()));
        line(&mut s, &cells);
    }
    let mut cells = vec!["<total>".to_string()];
    cells.extend(total.map(|x| x.to_string()));
    line(&mut s, &cells);
    s
}

/// `--stats-csv`: the rows of `functions.csv` (same columns, built by the sweep's own
/// `OutputFiles`, every function sorted by name), with `status` on every row.
pub fn stats_csv(
    program: &str,
    built: &Built,
    status: &str,
    rows: Vec<FunctionRow>,
) -> Result<Vec<u8>, String> {
    let c = &built.config;
    let job = Job {
        program: program.to_string(),
        target: c.target,
        config: c.name.clone(),
        regs: c.regalloc.regs,
    };
    let result = JobResult {
        planned: PlannedJob {
            index: 0,
            job,
            kernels: Vec::new(),
        },
        outcome: JobOutcome {
            status: JobStatus::Ok,
            functions: rows,
            compile_seconds: 0.0,
            simulate_seconds: 0.0,
        },
        wall_seconds: 0.0,
    };
    let sweep = SweepDefinition {
        manifest_fingerprint: String::new(),
        job_list_fingerprint: String::new(),
        jobs_total: 1,
        targets: vec![c.target.to_string()],
        configs: vec![c.name.clone()],
        programs: vec![program.to_string()],
        groups: Vec::new(),
        regs: c.regalloc.regs,
        all_functions: true,
        no_times: false,
    };
    let files = OutputFiles::from_results(&[result], "", sweep, None);
    let status_col = FUNCTION_COLUMNS
        .iter()
        .position(|c| *c == "status")
        .ok_or("functions.csv has no status column")?;
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = |e: csv::Error| format!("CSV: {e}");
    w.write_record(FUNCTION_COLUMNS).map_err(err)?;
    for mut row in files.functions {
        // A row of a job that passed says `ok`; say what the simulation found instead.
        row[status_col] = status.to_string();
        w.write_record(&row).map_err(err)?;
    }
    w.into_inner().map_err(|e| format!("CSV: {e}"))
}

/// Per-function static counts of a build.
fn static_rows(built: &Built) -> Vec<FunctionRow> {
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
                row.weighted_moves_ssa_out = s.weighted_copies_after;
            }
            if let Some(s) = coalesced.and_then(|p| pass_row(&built.stats, name, p)) {
                row.moves_coalesced = s.copies_after as u64;
                row.weighted_moves_coalesced = s.weighted_copies_after;
            }
            if let Some(s) = last.and_then(|p| pass_row(&built.stats, name, p)) {
                row.moves_final = s.copies_after as u64;
                row.weighted_moves = s.weighted_copies_after;
            }
            row.code_bytes = u64::from(sizes.get(name).copied().unwrap_or(0));
            if let Some((_, m)) = built.backend.maxlive.iter().find(|(n, _)| n == name) {
                row.maxlive = m.map(u64::from);
            }
            if let Some(s) = pass_row(&built.stats, name, "ssa-destruct") {
                row.perm_copies = detail(s, "perm_copies");
            }
            for pass in ["ssa-recolour", "ssa-ilp-coalesce"] {
                if let Some(s) = pass_row(&built.stats, name, pass) {
                    row.affinity_cost = detail(s, "affinity_cost_after");
                    row.ilp_optimal = detail(s, "ilp_optimal");
                }
            }
            let code = code_counts(f);
            row.regs_used = code.regs_used;
            row.swaps = code.swaps;
            row.spill_loads = code.spill_loads;
            row.spill_stores = code.spill_stores;
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

fn detail(s: &PassStats, key: &str) -> u64 {
    s.detail
        .iter()
        .find(|(k, _)| *k == key)
        .map_or(0, |(_, v)| *v)
}

/// Static counts of a final-form function.
#[derive(Default)]
struct CodeCounts {
    regs_used: u64,
    swaps: u64,
    spill_loads: u64,
    spill_stores: u64,
}

fn code_counts(f: &compiler::mir::Function) -> CodeCounts {
    use compiler::mir::{target, InstFlags, PReg};
    let mut used: Vec<PReg> = Vec::new();
    let mut c = CodeCounts::default();
    let mut swap_ops = 0;
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        for o in inst.defs.iter().chain(&inst.uses) {
            if let Some(p) = o.reg.preg() {
                if !used.contains(&p) && target::allocatable(f.target, p.class).contains(&p.num) {
                    used.push(p);
                }
            }
        }
        swap_ops += u64::from(inst.flags.contains(InstFlags::SWAP));
        c.spill_loads += u64::from(inst.flags.contains(InstFlags::SPILL_LOAD));
        c.spill_stores += u64::from(inst.flags.contains(InstFlags::SPILL_STORE));
    }
    c.regs_used = used.len() as u64;
    c.swaps = swap_ops / 3;
    c
}

fn first_line(s: &str) -> String {
    let line = s.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    line.chars().take(300).collect()
}
