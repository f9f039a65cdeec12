//! One sweep end to end: plan the jobs, take the shard's slice, run them, build and write
//! the output files, and summarise. This is what `ssalab bench` calls, with the real
//! executor; the tests call it with fake ones.

use super::jobs::{plan, Plan, PlannedJob, Selection, Shard};
use super::manifest::Manifest;
use super::output::{OutputFiles, SweepDefinition};
use super::runner::{run_jobs, JobResult, RunnerOptions};
use super::{Executor, JobStatus};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

/// Everything `ssalab bench` decides besides the executor.
#[derive(Clone, Debug)]
pub struct SweepOptions {
    pub selection: Selection,
    pub shard: Option<Shard>,
    /// Write every function's row, not only the manifest's kernels.
    pub all_functions: bool,
    /// Write times as 0 (for byte-for-byte comparisons of outputs).
    pub no_times: bool,
    pub runner: RunnerOptions,
    /// Where to write the files (`None`: do not write).
    pub out_dir: Option<PathBuf>,
}

/// What a sweep did.
#[derive(Clone, Debug)]
pub struct SweepReport {
    /// Jobs in the full sweep (all shards).
    pub jobs_total: usize,
    pub shard: Option<Shard>,
    /// This run's results, by job index.
    pub results: Vec<JobResult>,
    pub files: OutputFiles,
    pub wall_seconds: f64,
    pub workers: usize,
}

/// The `[sweep]` section of `runs.toml` for a plan.
pub fn definition(m: &Manifest, plan: &Plan, opts: &SweepOptions) -> SweepDefinition {
    SweepDefinition {
        manifest_fingerprint: format!("{:016x}", m.fingerprint),
        job_list_fingerprint: format!("{:016x}", plan.fingerprint),
        jobs_total: plan.jobs.len(),
        targets: plan.targets.iter().map(|t| t.to_string()).collect(),
        configs: plan.configs.clone(),
        programs: opts.selection.programs.clone(),
        groups: opts
            .selection
            .groups
            .iter()
            .map(|g| g.to_string())
            .collect(),
        regs: opts.selection.regs,
        all_functions: opts.all_functions,
        no_times: opts.no_times,
    }
}

/// Runs the sweep `opts` describes over `m` with `exec`; writes the files if `out_dir` is
/// set. Errors: the selection (see [`plan`]) and writing the files. Failed jobs are not
/// errors: they are in the report.
pub fn run_sweep(
    m: &Manifest,
    opts: &SweepOptions,
    exec: &dyn Executor,
) -> Result<SweepReport, String> {
    let start = Instant::now();
    let plan = plan(m, &opts.selection)?;
    let jobs: Vec<PlannedJob> = Shard::slice(opts.shard, &plan)
        .into_iter()
        .cloned()
        .collect();
    let results = run_jobs(exec, &jobs, &opts.runner);
    let files = OutputFiles::from_results(
        &results,
        &m.file.display().to_string(),
        definition(m, &plan, opts),
        opts.shard,
    );
    if let Some(dir) = &opts.out_dir {
        files.write(dir)?;
    }
    Ok(SweepReport {
        jobs_total: plan.jobs.len(),
        shard: opts.shard,
        results,
        files,
        wall_seconds: start.elapsed().as_secs_f64(),
        workers: opts.runner.workers.max(1),
    })
}

impl SweepReport {
    pub fn failed(&self) -> usize {
        self.results.iter().filter(|r| !r.passed()).count()
    }

    /// 0 when every job passed, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        u8::from(self.failed() > 0)
    }

    /// The end-of-run summary: job counts, wall time, compile/simulate time split (summed
    /// over jobs, measured even with `--no-times`), and every failed job in index order.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let n = self.results.len();
        let scope = match self.shard {
            Some(sh) => format!("shard {sh}: {n} of {} jobs", self.jobs_total),
            None => format!("{n} jobs"),
        };
        let _ = writeln!(
            s,
            "bench: {scope}: {} ok, {} failed; {:.1} s wall with {} worker{}",
            n - self.failed(),
            self.failed(),
            self.wall_seconds,
            self.workers,
            if self.workers == 1 { "" } else { "s" }
        );
        let compile: f64 = self.results.iter().map(|r| r.outcome.compile_seconds).sum();
        let simulate: f64 = self
            .results
            .iter()
            .map(|r| r.outcome.simulate_seconds)
            .sum();
        let busy: f64 = self.results.iter().map(|r| r.wall_seconds).sum();
        let _ = writeln!(
            s,
            "bench: time in jobs {busy:.1} s: compile {compile:.1} s, simulate and check {simulate:.1} s, other {:.1} s",
            (busy - compile - simulate).max(0.0)
        );
        for r in &self.results {
            if let JobStatus::Failed(reason) = &r.outcome.status {
                let _ = writeln!(s, "FAILED {}: {reason}", r.planned.job.label());
            }
        }
        s
    }
}

/// The job list (for `--list`): one line per job of the shard, `index program target config`.
pub fn describe(plan: &Plan, shard: Option<Shard>) -> String {
    let mut s = String::new();
    for j in Shard::slice(shard, plan) {
        let _ = writeln!(s, "{:5} {}", j.index, j.job.label());
    }
    s
}
