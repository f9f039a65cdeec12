//! One sweep end to end: plan the jobs, take the shard's slice, start (or, resuming, read) the
//! journal in the output directory, run the jobs not yet done, appending each to the journal
//! as it ends, build the output files and swap them in, and summarise. This is what `ssalab
//! bench` calls, with the real executor; the tests call it with fake ones.

use super::jobs::{plan, Plan, PlannedJob, Selection, Shard};
use super::journal::{read_journal, Journal};
use super::manifest::Manifest;
use super::output::{JobPart, OutputFiles, ResultsSummary, RowOptions, RunsFile, SweepDefinition};
use super::runner::{run_jobs_with, JobResult, RunnerOptions};
use super::Executor;
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
    /// Where to write the files and the journal (`None`: do not write).
    pub out_dir: Option<PathBuf>,
    /// Continue the interrupted sweep whose journal is in `out_dir`: run only the jobs it
    /// does not hold.
    pub resume: bool,
    /// Write the report (tables, findings, plots, README; what `ssalab report` makes of the
    /// same files) beside the data, in the same swap. Never for a shard: its output is half
    /// a sweep, reported on once merged.
    pub report: bool,
}

/// What a sweep did.
#[derive(Clone, Debug)]
pub struct SweepReport {
    /// Jobs in the full sweep (all shards).
    pub jobs_total: usize,
    pub shard: Option<Shard>,
    /// This run's results, by job index.
    pub results: Vec<JobResult>,
    /// Jobs taken from the journal of an interrupted run (`--resume`).
    pub resumed: usize,
    pub files: OutputFiles,
    pub wall_seconds: f64,
    pub workers: usize,
    /// Report files written beside the data (0 without `report`).
    pub report_files: usize,
    /// Why the report could not be written (the data files were).
    pub report_error: Option<String>,
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

/// The journal header of a sweep: its `runs.toml` without results.
pub fn journal_header(
    m: &Manifest,
    definition: &SweepDefinition,
    shard: Option<Shard>,
) -> RunsFile {
    let mut files = OutputFiles::from_parts(
        Vec::new(),
        &m.file.display().to_string(),
        definition.clone(),
        shard,
    );
    files.runs.date = None;
    files.runs.results = ResultsSummary {
        jobs: 0,
        ok: 0,
        failed: 0,
        function_rows: 0,
        compile_us: None,
        simulate_us: None,
    };
    files.runs
}

/// The finished jobs of the journal in `dir`, checked to belong to this sweep and shard.
fn resumed_parts(
    dir: &std::path::Path,
    header: &RunsFile,
    jobs: &[PlannedJob],
) -> Result<Vec<JobPart>, String> {
    let journal = read_journal(dir)?;
    if journal.header.sweep != header.sweep || journal.header.shard != header.shard {
        return Err(format!(
            "{}: the journal is of another sweep (the manifest, job list or options changed)",
            dir.display()
        ));
    }
    let mut parts = Vec::with_capacity(journal.parts.len());
    let mut by_index = journal.parts;
    for j in jobs {
        if let Some(p) = by_index.remove(&j.index) {
            let job = &j.job;
            if (p.job.program.as_str(), p.job.config.as_str()) != (&job.program, &job.config)
                || p.job.target != job.target.to_string()
            {
                return Err(format!(
                    "{}: journal job {} is not `{}`",
                    dir.display(),
                    j.index,
                    job.label()
                ));
            }
            parts.push(p);
        }
    }
    if let Some(stray) = by_index.keys().min() {
        return Err(format!(
            "{}: journal job {stray} is not in this sweep",
            dir.display()
        ));
    }
    Ok(parts)
}

/// Runs the sweep `opts` describes over `m` with `exec`; with `out_dir`, journals each job
/// as it ends and swaps the files in at the end. Errors: the selection (see [`plan`]), an
/// unusable output directory (found before the first job), a journal of another sweep,
/// writing the journal or the files. Failed jobs are not errors: they are in the report.
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
    let definition = definition(m, &plan, opts);
    let header = journal_header(m, &definition, opts.shard);
    let (mut journal, mut parts) = match &opts.out_dir {
        Some(dir) if opts.resume => (
            Some(Journal::reopen(dir)?),
            resumed_parts(dir, &header, &jobs)?,
        ),
        Some(dir) => {
            if dir.join(super::journal::JOURNAL_FILE).exists() {
                eprintln!(
                    "bench: starting afresh in {}: the journal of an interrupted sweep there is replaced (`ssalab bench --resume {}` continues one instead)",
                    dir.display(),
                    dir.display()
                );
            }
            (Some(Journal::start(dir, &header)?), Vec::new())
        }
        None if opts.resume => return Err("--resume needs an output directory".into()),
        None => (None, Vec::new()),
    };
    let resumed = parts.len();
    let done: std::collections::HashSet<usize> = parts.iter().map(|p| p.job.index).collect();
    let todo: Vec<PlannedJob> = jobs
        .into_iter()
        .filter(|j| !done.contains(&j.index))
        .collect();
    let row_opts = RowOptions {
        all_functions: opts.all_functions,
        no_times: opts.no_times,
    };
    let mut journal_error: Option<String> = None;
    let results = run_jobs_with(exec, &todo, &opts.runner, &mut |r| {
        if let Some(j) = &mut journal {
            if journal_error.is_none() {
                journal_error = j.append(&JobPart::of(r, row_opts)).err();
            }
        }
    });
    parts.extend(results.iter().map(|r| JobPart::of(r, row_opts)));
    let files =
        OutputFiles::from_parts(parts, &m.file.display().to_string(), definition, opts.shard);
    let (mut report_files, mut report_error) = (0, None);
    if let Some(dir) = &opts.out_dir {
        let mut set: Vec<(String, Vec<u8>)> = files
            .render()?
            .into_iter()
            .map(|(name, bytes)| (name.to_string(), bytes))
            .collect();
        let report = opts.report && opts.shard.is_none();
        if report {
            match crate::report::render_beside(&set, dir, m) {
                Ok(extra) => {
                    report_files = extra.len();
                    set.extend(extra);
                }
                Err(e) => report_error = Some(e),
            }
        }
        // With a report, the files of an older report that this one does not write go.
        let stale = |name: &str| report && crate::report::is_generated(name);
        super::journal::swap_in_set(dir, &set, &stale)?;
    }
    if let Some(e) = journal_error {
        return Err(format!(
            "{e} (the output files were written; the journal is incomplete)"
        ));
    }
    Ok(SweepReport {
        jobs_total: plan.jobs.len(),
        shard: opts.shard,
        results,
        resumed,
        files,
        wall_seconds: start.elapsed().as_secs_f64(),
        workers: opts.runner.workers.max(1),
        report_files,
        report_error,
    })
}

impl SweepReport {
    /// Failed jobs, this run's and the resumed ones.
    pub fn failed(&self) -> usize {
        self.files.runs.results.failed
    }

    /// 0 when every job passed and the report (if asked for) was written, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        u8::from(self.failed() > 0 || self.report_error.is_some())
    }

    /// The end-of-run summary: job counts, wall time, compile/simulate time split (summed
    /// over jobs, measured even with `--no-times`), and every failed job in index order.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let n = self.files.jobs.len();
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
        if self.resumed > 0 {
            let _ = writeln!(
                s,
                "bench: {} jobs taken from the journal, {} run now",
                self.resumed,
                self.results.len()
            );
        }
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
        for j in self.files.jobs.iter().filter(|j| j.status != "ok") {
            let regs = if j.regs.is_empty() {
                String::new()
            } else {
                format!(" regs={}", j.regs)
            };
            let _ = writeln!(
                s,
                "FAILED {} {} {}{regs}: {}",
                j.program, j.target, j.config, j.status
            );
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
