//! The files a sweep writes into its output directory, and reading them back (for merge).
//!
//! * `functions.csv` — tidy (long) format, one row per program × function × target ×
//!   configuration, columns [`FUNCTION_COLUMNS`]. Only the manifest's kernels of each program
//!   are written (in manifest order), unless `--all-functions` (then the other functions
//!   follow, sorted by name). A failed job has one row with function `*`, zero counts and the
//!   reason in `status`; a passing job's rows have status `ok`.
//! * `jobs.csv` — one row per job (also jobs with no kernels, so a merge can check that
//!   every job is present), columns [`JOB_COLUMNS`]: the job's index in the full sweep, its
//!   status, the number of rows it wrote to `functions.csv`, and its compile and simulate
//!   times.
//! * `runs.toml` — the sweep's definition (tool version, manifest and job-list fingerprints,
//!   targets, configurations, options, job count), the shard, and result totals.
//!
//! Times: `compile_us`/`simulate_us` are wall times in microseconds. They vary from run to
//! run, so with `--no-times` they are written as 0 and the time totals are left out of
//! `runs.toml`; everything else is a pure function of the job results, so two runs with
//! `--no-times` (any `-j`, sharded-then-merged or not) write byte-identical files.
//!
//! The three files are replaced as one set: written into a temporary directory that is then
//! exchanged with the output directory (see [`super::journal`], which also keeps the journal
//! of finished jobs that `--resume` continues from).

use super::jobs::Shard;
use super::runner::JobResult;
use super::{FunctionRow, JobStatus};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::Path;

/// Columns of `functions.csv` (the first 21 are the contract of the reports; the others are
/// extras).
pub const FUNCTION_COLUMNS: [&str; 38] = [
    "program",
    "function",
    "target",
    "config",
    "regs",
    "moves_ssa_out",
    "moves_coalesced",
    "moves_final",
    "weighted_moves",
    "dyn_moves",
    "dyn_loads",
    "dyn_stores",
    "dyn_spill_loads",
    "dyn_spill_stores",
    "cycles",
    "stall_cycles",
    "bundles",
    "ops",
    "code_bytes",
    "compile_us",
    "status",
    "calls",
    "incl_cycles",
    "dyn_swaps",
    "taken_branches",
    "maxlive_r",
    "maxlive_b",
    "maxlive_p",
    "maxlive_g",
    "regs_used",
    "perm_copies",
    "swaps",
    "spill_loads",
    "spill_stores",
    "affinity_cost",
    "ilp_optimal",
    "weighted_moves_ssa_out",
    "weighted_moves_coalesced",
];

/// Columns of `jobs.csv`.
pub const JOB_COLUMNS: [&str; 9] = [
    "index",
    "program",
    "target",
    "config",
    "regs",
    "status",
    "functions",
    "compile_us",
    "simulate_us",
];

pub const FUNCTIONS_FILE: &str = "functions.csv";
pub const JOBS_FILE: &str = "jobs.csv";
pub const RUNS_FILE: &str = "runs.toml";
/// Format version of `runs.toml` (and of the two CSV layouts).
pub const RUNS_FORMAT: u32 = 1;

/// What defines a sweep: two outputs with equal definitions (and tool versions) come from
/// the same job list and can be merged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepDefinition {
    /// FNV-1a of the manifest file, hex.
    pub manifest_fingerprint: String,
    /// FNV-1a of the full job list (see `jobs::Plan::fingerprint`), hex.
    pub job_list_fingerprint: String,
    /// Jobs in the full (unsharded) sweep.
    pub jobs_total: usize,
    pub targets: Vec<String>,
    pub configs: Vec<String>,
    /// `--programs` patterns (empty: all).
    pub programs: Vec<String>,
    /// `--groups` (empty: all).
    pub groups: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regs: Option<u32>,
    pub all_functions: bool,
    pub no_times: bool,
}

/// Totals of the jobs in one output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultsSummary {
    pub jobs: usize,
    pub ok: usize,
    pub failed: usize,
    pub function_rows: usize,
    /// Sum of the jobs' compile times (absent with `--no-times`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compile_us: Option<u64>,
    /// Sum of the jobs' simulate times (absent with `--no-times`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulate_us: Option<u64>,
}

/// The `runs.toml` document.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunsFile {
    /// Always `ssalab`.
    pub tool: String,
    /// The ssalab version that ran the sweep.
    pub version: String,
    /// [`RUNS_FORMAT`].
    pub format: u32,
    /// The manifest file as given on the command line (informational).
    pub manifest: String,
    /// UTC date the sweep ran (`YYYY-MM-DD`); absent with `--no-times`, so that such
    /// outputs stay byte-identical from run to run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// `K/N` for a shard's output; absent for a whole sweep (or a merge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// Shards (`K/N`) a `ssalab merge --allow-partial` did not have: their jobs are absent.
    /// Empty (and not written) for a shard's output, a whole sweep and a complete merge.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing_shards: Vec<String>,
    pub sweep: SweepDefinition,
    pub results: ResultsSummary,
}

impl RunsFile {
    /// The shard this output holds (a whole sweep is shard 1/1).
    pub fn shard(&self) -> Result<Shard, String> {
        match &self.shard {
            None => Ok(Shard { index: 1, count: 1 }),
            Some(s) => s.parse(),
        }
    }
}

/// One row of `jobs.csv`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobRecord {
    pub index: usize,
    pub program: String,
    pub target: String,
    pub config: String,
    /// Empty without `--regs`.
    pub regs: String,
    pub status: String,
    /// Rows this job wrote to `functions.csv`.
    pub functions: usize,
    pub compile_us: u64,
    pub simulate_us: u64,
}

impl JobRecord {
    /// The `jobs.csv` fields, in [`JOB_COLUMNS`] order.
    pub fn to_fields(&self) -> Vec<String> {
        vec![
            self.index.to_string(),
            self.program.clone(),
            self.target.clone(),
            self.config.clone(),
            self.regs.clone(),
            self.status.clone(),
            self.functions.to_string(),
            self.compile_us.to_string(),
            self.simulate_us.to_string(),
        ]
    }

    /// The `(program, target, config)` key that `functions.csv` rows carry.
    pub fn key(&self) -> (String, String, String) {
        (
            self.program.clone(),
            self.target.clone(),
            self.config.clone(),
        )
    }
}

/// Everything an output directory holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputFiles {
    pub runs: RunsFile,
    /// Sorted by index.
    pub jobs: Vec<JobRecord>,
    /// `functions.csv` rows (without the header), in job-index order.
    pub functions: Vec<Vec<String>>,
}

/// Options that shape the rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowOptions {
    pub all_functions: bool,
    pub no_times: bool,
}

/// Today's date in UTC, `YYYY-MM-DD`.
pub fn today_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The proleptic Gregorian date of day `z` since 1970-01-01 (eras of 400 years = 146,097
/// days; the year is counted from March so that the leap day ends it).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn micros(seconds: f64) -> u64 {
    (seconds * 1e6).round() as u64
}

/// The reported functions of a passing job: kernels in manifest order, then (with
/// `all_functions`) the others sorted by name.
/// Linear in kernels + functions (hash maps: a manifest may list 10^5 kernels).
fn reported(r: &JobResult, all_functions: bool) -> Vec<&FunctionRow> {
    let funcs = &r.outcome.functions;
    let mut by_name: HashMap<&str, &FunctionRow> = HashMap::with_capacity(funcs.len());
    for f in funcs.iter().rev() {
        // The first row of a name wins, as a forward search would find it.
        by_name.insert(f.function.as_str(), f);
    }
    let mut out: Vec<&FunctionRow> = r
        .planned
        .kernels
        .iter()
        .filter_map(|k| by_name.get(k.as_str()).copied())
        .collect();
    if all_functions {
        let kernels: HashSet<&str> = r.planned.kernels.iter().map(String::as_str).collect();
        let mut rest: Vec<&FunctionRow> = funcs
            .iter()
            .filter(|f| !kernels.contains(f.function.as_str()))
            .collect();
        rest.sort_by(|a, b| a.function.cmp(&b.function));
        out.extend(rest);
    }
    out
}

fn function_fields(r: &JobResult, f: &FunctionRow, status: &str, no_times: bool) -> Vec<String> {
    let job = &r.planned.job;
    let mut v = vec![
        job.program.clone(),
        f.function.clone(),
        job.target.to_string(),
        job.config.clone(),
        job.regs.map_or(String::new(), |n| n.to_string()),
    ];
    let counts = [
        f.moves_ssa_out,
        f.moves_coalesced,
        f.moves_final,
        f.weighted_moves,
        f.dyn_moves,
        f.dyn_loads,
        f.dyn_stores,
        f.dyn_spill_loads,
        f.dyn_spill_stores,
        f.cycles,
        f.stall_cycles,
        f.bundles,
        f.ops,
        f.code_bytes,
        if no_times { 0 } else { f.compile_us },
    ];
    v.extend(counts.iter().map(u64::to_string));
    v.push(status.to_string());
    let extras = [
        f.calls,
        f.incl_cycles,
        f.dyn_swaps,
        f.taken_branches,
        f.maxlive[0],
        f.maxlive[1],
        f.maxlive[2],
        f.maxlive[3],
        f.regs_used,
        f.perm_copies,
        f.swaps,
        f.spill_loads,
        f.spill_stores,
        f.affinity_cost,
        f.ilp_optimal,
        f.weighted_moves_ssa_out,
        f.weighted_moves_coalesced,
    ];
    v.extend(extras.iter().map(u64::to_string));
    v
}

/// One job's share of the output: its `jobs.csv` record and its `functions.csv` rows (a
/// failed job has one row, function `*`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobPart {
    pub job: JobRecord,
    pub rows: Vec<Vec<String>>,
}

impl JobPart {
    /// Renders one job's result with the sweep's row options.
    pub fn of(r: &JobResult, opts: RowOptions) -> JobPart {
        let mut rows = Vec::new();
        let status = match &r.outcome.status {
            JobStatus::Ok => {
                for f in reported(r, opts.all_functions) {
                    rows.push(function_fields(r, f, "ok", opts.no_times));
                }
                "ok".to_string()
            }
            JobStatus::Failed(reason) => {
                rows.push(function_fields(r, &FunctionRow::named("*"), reason, false));
                reason.clone()
            }
        };
        let job = &r.planned.job;
        let time = |s: f64| if opts.no_times { 0 } else { micros(s) };
        JobPart {
            job: JobRecord {
                index: r.planned.index,
                program: job.program.clone(),
                target: job.target.to_string(),
                config: job.config.clone(),
                regs: job.regs.map_or(String::new(), |n| n.to_string()),
                status,
                functions: rows.len(),
                compile_us: time(r.outcome.compile_seconds),
                simulate_us: time(r.outcome.simulate_seconds),
            },
            rows,
        }
    }
}

impl OutputFiles {
    /// The output of `results` (sorted by index, checked by the runner).
    pub fn from_results(
        results: &[JobResult],
        manifest: &str,
        sweep: SweepDefinition,
        shard: Option<Shard>,
    ) -> OutputFiles {
        let opts = RowOptions {
            all_functions: sweep.all_functions,
            no_times: sweep.no_times,
        };
        let parts: Vec<JobPart> = results.iter().map(|r| JobPart::of(r, opts)).collect();
        OutputFiles::from_parts(parts, manifest, sweep, shard)
    }

    /// The output of the jobs' rendered parts (sorted by index here): what
    /// [`OutputFiles::from_results`] writes, also for parts read back from a journal.
    pub fn from_parts(
        mut parts: Vec<JobPart>,
        manifest: &str,
        sweep: SweepDefinition,
        shard: Option<Shard>,
    ) -> OutputFiles {
        parts.sort_by_key(|p| p.job.index);
        let mut jobs = Vec::with_capacity(parts.len());
        let mut functions = Vec::new();
        for p in parts {
            functions.extend(p.rows);
            jobs.push(p.job);
        }
        let runs = RunsFile {
            tool: "ssalab".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            format: RUNS_FORMAT,
            manifest: manifest.to_string(),
            date: (!sweep.no_times).then(today_utc),
            shard: shard.map(|s| s.to_string()),
            missing_shards: Vec::new(),
            results: summarize(&jobs, functions.len(), sweep.no_times),
            sweep,
        };
        OutputFiles {
            runs,
            jobs,
            functions,
        }
    }

    /// `functions.csv`, `jobs.csv` and `runs.toml` as bytes.
    pub fn render(&self) -> Result<Vec<(&'static str, Vec<u8>)>, String> {
        let functions = csv_bytes(&FUNCTION_COLUMNS, self.functions.iter().cloned())?;
        let jobs = csv_bytes(&JOB_COLUMNS, self.jobs.iter().map(JobRecord::to_fields))?;
        let runs = toml::to_string(&self.runs)
            .map_err(|e| format!("cannot write {RUNS_FILE}: {e}"))?
            .into_bytes();
        Ok(vec![
            (FUNCTIONS_FILE, functions),
            (JOBS_FILE, jobs),
            (RUNS_FILE, runs),
        ])
    }

    /// Writes the three files into `dir` (created if needed), replacing the set there at
    /// once (see [`super::journal::swap_in`]).
    pub fn write(&self, dir: &Path) -> Result<(), String> {
        super::journal::swap_in(dir, &self.render()?)
    }

    /// As [`OutputFiles::write`], and the files of a report already in `dir` go (they
    /// describe other data): `ssalab merge`'s output has the data only, until `ssalab report`
    /// is run on it.
    pub fn write_dropping_report(&self, dir: &Path) -> Result<(), String> {
        let set: Vec<(String, Vec<u8>)> = self
            .render()?
            .into_iter()
            .map(|(name, bytes)| (name.to_string(), bytes))
            .collect();
        super::journal::swap_in_set(dir, &set, &crate::report::is_generated)
    }

    /// Reads an output directory back (headers, numbers and the runs file are checked).
    pub fn read(dir: &Path) -> Result<OutputFiles, String> {
        let runs_path = dir.join(RUNS_FILE);
        let text = std::fs::read_to_string(&runs_path)
            .map_err(|e| format!("{}: {e}", runs_path.display()))?;
        let runs: RunsFile = toml::from_str(&text)
            .map_err(|e| format!("{}: {}", runs_path.display(), e.message().trim()))?;
        let jobs = read_csv(&dir.join(JOBS_FILE), &JOB_COLUMNS)?
            .into_iter()
            .map(|(line, f)| parse_job(&dir.join(JOBS_FILE), line, f))
            .collect::<Result<Vec<_>, _>>()?;
        let functions_path = dir.join(FUNCTIONS_FILE);
        let functions = read_csv(&functions_path, &FUNCTION_COLUMNS)?
            .into_iter()
            .map(|(line, f)| check_function_row(&functions_path, line, f))
            .collect::<Result<Vec<_>, _>>()?;
        let files = OutputFiles {
            runs,
            jobs,
            functions,
        };
        files
            .check_consistency()
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(files)
    }

    /// Checks the three files against each other: `runs.toml`'s totals equal the rows of
    /// `jobs.csv` and `functions.csv`, the jobs are exactly the jobs of the output's shard
    /// (every index, once, in order), and each job's rows name that job. A file cut at a row
    /// boundary, a job dropped or duplicated, or files from two sweeps are errors. Linear.
    pub fn check_consistency(&self) -> Result<(), String> {
        let r = &self.runs.results;
        let ok = self.jobs.iter().filter(|j| j.status == "ok").count();
        let counted = [
            ("jobs", r.jobs, self.jobs.len(), JOBS_FILE),
            (
                "function_rows",
                r.function_rows,
                self.functions.len(),
                FUNCTIONS_FILE,
            ),
            ("ok", r.ok, ok, JOBS_FILE),
            ("failed", r.failed, self.jobs.len() - ok, JOBS_FILE),
        ];
        for (what, expected, got, file) in counted {
            if expected != got {
                return Err(format!(
                    "{RUNS_FILE} gives {what} = {expected} but {file} has {got} (a file is cut short or from another sweep)"
                ));
            }
        }
        let shard = self.runs.shard().map_err(|e| format!("{RUNS_FILE}: {e}"))?;
        let total = self.runs.sweep.jobs_total;
        let expected = self.expected_jobs(shard)?;
        if self.jobs.len() != expected.count {
            let what = if self.runs.missing_shards.is_empty() {
                format!("shard {shard}")
            } else {
                format!(
                    "a partial merge without shards {}",
                    self.runs.missing_shards.join(", ")
                )
            };
            return Err(format!(
                "{JOBS_FILE} has {} jobs, but {what} of a {total}-job sweep has {} ({RUNS_FILE}'s jobs_total is wrong, or a job is missing)",
                self.jobs.len(),
                expected.count
            ));
        }
        let mut rows = self.functions.iter();
        let mut previous: Option<usize> = None;
        for j in &self.jobs {
            // With as many jobs as the shard holds, strictly increasing indices that all
            // belong to it are exactly its jobs: no list of every index is built (a
            // `jobs_total` near 2^63 must not allocate).
            expected.check(j.index, previous, shard)?;
            previous = Some(j.index);
            for _ in 0..j.functions {
                let row = rows.next().ok_or_else(|| {
                    format!("{FUNCTIONS_FILE} ends before the rows of job {}", j.index)
                })?;
                let status_fits = if j.status == "ok" {
                    row.get(20).is_some_and(|s| s == "ok")
                } else {
                    j.functions == 1 && row.get(20) == Some(&j.status)
                };
                if !status_fits {
                    return Err(format!(
                        "{FUNCTIONS_FILE}: a row of job {} has status `{}`, but {JOBS_FILE} gives the job status `{}`",
                        j.index,
                        row.get(20).map_or("", String::as_str),
                        j.status
                    ));
                }
                if row.first() != Some(&j.program)
                    || row.get(2) != Some(&j.target)
                    || row.get(3) != Some(&j.config)
                {
                    return Err(format!(
                        "{FUNCTIONS_FILE}: a row of job {} names `{}`",
                        j.index,
                        row.iter().take(4).cloned().collect::<Vec<_>>().join(",")
                    ));
                }
            }
        }
        self.check_time_totals()?;
        let sum: usize = self.jobs.iter().map(|j| j.functions).sum();
        if sum != self.functions.len() {
            return Err(format!(
                "{JOBS_FILE} accounts for {sum} rows but {FUNCTIONS_FILE} has {}",
                self.functions.len()
            ));
        }
        Ok(())
    }
}

/// One of a job's times.
type TimeOf = fn(&JobRecord) -> u64;

impl OutputFiles {
    /// The sums of the jobs' times fit 64 bits and are the totals `runs.toml` gives.
    fn check_time_totals(&self) -> Result<(), String> {
        let r = &self.runs.results;
        let columns: [(&str, TimeOf, Option<u64>); 2] = [
            ("compile_us", |j| j.compile_us, r.compile_us),
            ("simulate_us", |j| j.simulate_us, r.simulate_us),
        ];
        for (name, value, total) in columns {
            let sum = self
                .jobs
                .iter()
                .try_fold(0u64, |s, j| s.checked_add(value(j)))
                .ok_or_else(|| format!("{JOBS_FILE}: column {name} adds up beyond 2^64"))?;
            if total.is_some_and(|t| t != sum) {
                return Err(format!(
                    "{RUNS_FILE} gives {name} = {} but {JOBS_FILE} adds up to {sum}",
                    total.unwrap_or(0)
                ));
            }
        }
        Ok(())
    }

    /// The jobs this output must hold: its shard's, less those of the shards a partial merge
    /// lacks. O(missing shards), whatever `jobs_total` says.
    fn expected_jobs(&self, shard: Shard) -> Result<ExpectedJobs, String> {
        let total = self.runs.sweep.jobs_total;
        let mut missing: HashSet<usize> = HashSet::new();
        let mut modulus = 1;
        for m in &self.runs.missing_shards {
            let m: Shard = m.parse().map_err(|e| format!("{RUNS_FILE}: {e}"))?;
            if (!missing.is_empty() && m.count != modulus) || !missing.insert(m.index - 1) {
                return Err(format!(
                    "{RUNS_FILE}: missing_shards lists `{m}` twice or with another N"
                ));
            }
            modulus = m.count;
        }
        let mut count = shard.job_count(total);
        if !missing.is_empty() {
            if shard.count != 1 {
                return Err(format!(
                    "{RUNS_FILE}: shard {shard} cannot also lack shards (missing_shards)"
                ));
            }
            let lacking: usize = missing
                .iter()
                .map(|&k| {
                    Shard {
                        index: k + 1,
                        count: modulus,
                    }
                    .job_count(total)
                })
                .sum();
            count -= lacking;
        }
        Ok(ExpectedJobs {
            count,
            total,
            missing,
            modulus,
        })
    }
}

/// The job indices an output must hold, as a rule rather than a list.
struct ExpectedJobs {
    /// How many there are.
    count: usize,
    /// `jobs_total`: every index is below it.
    total: usize,
    /// `K - 1` of each shard (of `modulus` shards) a partial merge lacks.
    missing: HashSet<usize>,
    modulus: usize,
}

impl ExpectedJobs {
    /// Whether job `index`, following `previous`, is one of these, in order.
    fn check(&self, index: usize, previous: Option<usize>, shard: Shard) -> Result<(), String> {
        if previous.is_some_and(|p| index <= p) {
            return Err(format!(
                "{JOBS_FILE}: job {index} after job {} (repeated or out of order)",
                previous.unwrap_or(0)
            ));
        }
        if index >= self.total {
            return Err(format!(
                "{JOBS_FILE}: job {index} is beyond the sweep's {} jobs",
                self.total
            ));
        }
        if !shard.selects(index) {
            return Err(format!(
                "{JOBS_FILE}: job {index} does not belong to shard {shard}"
            ));
        }
        if self.missing.contains(&(index % self.modulus)) {
            return Err(format!(
                "{JOBS_FILE}: job {index} belongs to shard {}/{}, which {RUNS_FILE} lists as missing",
                index % self.modulus + 1,
                self.modulus
            ));
        }
        Ok(())
    }
}

/// Result totals over job records.
pub fn summarize(jobs: &[JobRecord], function_rows: usize, no_times: bool) -> ResultsSummary {
    let ok = jobs.iter().filter(|j| j.status == "ok").count();
    let sum = |f: fn(&JobRecord) -> u64| (!no_times).then(|| jobs.iter().map(f).sum());
    ResultsSummary {
        jobs: jobs.len(),
        ok,
        failed: jobs.len() - ok,
        function_rows,
        compile_us: sum(|j| j.compile_us),
        simulate_us: sum(|j| j.simulate_us),
    }
}

fn csv_bytes(header: &[&str], rows: impl Iterator<Item = Vec<String>>) -> Result<Vec<u8>, String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = |e: csv::Error| format!("CSV: {e}");
    w.write_record(header).map_err(err)?;
    for r in rows {
        w.write_record(&r).map_err(err)?;
    }
    w.into_inner().map_err(|e| format!("CSV: {e}"))
}

/// Rows of a CSV file with the given header, each with its 1-based line number.
fn read_csv(path: &Path, header: &[&str]) -> Result<Vec<(u64, Vec<String>)>, String> {
    let at = |e: csv::Error| format!("{}: {e}", path.display());
    let mut r = csv::Reader::from_path(path).map_err(at)?;
    let got: Vec<String> = r.headers().map_err(at)?.iter().map(String::from).collect();
    if got != header {
        return Err(format!(
            "{}: unexpected header (expected `{}`)",
            path.display(),
            header.join(",")
        ));
    }
    let mut out = Vec::new();
    for rec in r.records() {
        let rec = rec.map_err(at)?;
        let line = rec.position().map_or(0, |p| p.line());
        out.push((line, rec.iter().map(String::from).collect()));
    }
    Ok(out)
}

/// Columns of `functions.csv` that hold counts (non-negative integers): everything but the
/// names, `regs` and `status`.
fn is_count_column(k: usize) -> bool {
    !matches!(
        FUNCTION_COLUMNS[k],
        "program" | "function" | "target" | "config" | "regs" | "status"
    )
}

/// Checks one `functions.csv` row as `merge` copies it: every count a non-negative integer
/// (no `-5`, `NaN`, `1e3`), `regs` empty or a register count, and the status vocabulary: `ok`
/// on a function's row, or a failure reason on a failed job's single row (function `*`,
/// every count 0). Errors name the file, line and column.
fn check_function_row(path: &Path, line: u64, f: Vec<String>) -> Result<Vec<String>, String> {
    let at = |k: usize, what: &str| {
        format!(
            "{}:{line}: column {}: `{}` {what}",
            path.display(),
            FUNCTION_COLUMNS[k],
            f[k]
        )
    };
    let regs = 4;
    if !f[regs].is_empty() && f[regs].parse::<u32>().is_err() {
        return Err(at(regs, "is not a register count"));
    }
    let mut all_zero = true;
    for k in (0..f.len()).filter(|&k| is_count_column(k)) {
        let v: u64 = f[k]
            .parse()
            .map_err(|_| at(k, "is not a count (a non-negative integer)"))?;
        all_zero &= v == 0;
    }
    let (function, status) = (1, 20);
    check_status(&f[status]).map_err(|e| at(status, &e))?;
    let failed_row = f[function] == "*";
    if (f[status] == "ok") == failed_row {
        return Err(at(
            status,
            "does not fit the row (`ok` is a function's status; a failed job has one row, function `*`, with its reason)",
        ));
    }
    if failed_row && !all_zero {
        return Err(format!(
            "{}:{line}: the row of a failed job (function `*`) has nonzero counts",
            path.display()
        ));
    }
    Ok(f)
}

/// The status vocabulary: `ok`, or the one-line reason of a failure.
fn check_status(status: &str) -> Result<(), String> {
    if status.trim().is_empty() || status.contains(['\n', '\r']) {
        Err("is not a status (`ok` or a one-line failure reason)".into())
    } else {
        Ok(())
    }
}

pub(crate) fn parse_job(path: &Path, line: u64, f: Vec<String>) -> Result<JobRecord, String> {
    let num = |k: usize| -> Result<u64, String> {
        f[k].parse().map_err(|_| {
            format!(
                "{}:{line}: `{}` is not a number in column {}",
                path.display(),
                f[k],
                JOB_COLUMNS[k]
            )
        })
    };
    check_status(&f[5])
        .map_err(|e| format!("{}:{line}: column status: `{}` {e}", path.display(), f[5]))?;
    Ok(JobRecord {
        index: num(0)? as usize,
        program: f[1].clone(),
        target: f[2].clone(),
        config: f[3].clone(),
        regs: f[4].clone(),
        status: f[5].clone(),
        functions: num(6)? as usize,
        compile_us: num(7)?,
        simulate_us: num(8)?,
    })
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so
/// readers see the old file or the new one, never a partial one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot write {}: {e}", path.display())
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn civil_dates() {
        assert_eq!(super::civil_from_days(0), (1970, 1, 1));
        assert_eq!(super::civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(super::civil_from_days(20_779), (2026, 11, 22));
        assert_eq!(super::civil_from_days(-1), (1969, 12, 31));
    }

    use super::*;
    use crate::bench::jobs::PlannedJob;
    use crate::bench::{Job, JobOutcome};
    use simulator::isa::Target;

    fn result(index: usize, kernels: &[&str], outcome: JobOutcome) -> JobResult {
        JobResult {
            planned: PlannedJob {
                index,
                job: Job {
                    program: "dsp/x.c".into(),
                    target: Target::St120,
                    config: "base".into(),
                    regs: Some(8),
                },
                kernels: kernels.iter().map(|s| s.to_string()).collect(),
            },
            outcome,
            wall_seconds: 0.0,
        }
    }

    fn definition(all_functions: bool, no_times: bool) -> SweepDefinition {
        SweepDefinition {
            manifest_fingerprint: "0".into(),
            job_list_fingerprint: "1".into(),
            jobs_total: 2,
            targets: vec!["st120".into()],
            configs: vec!["base".into()],
            programs: vec![],
            groups: vec![],
            regs: Some(8),
            all_functions,
            no_times,
        }
    }

    fn passing() -> JobOutcome {
        let mut g = FunctionRow::named("g");
        g.moves_final = 3;
        g.compile_us = 120;
        g.dyn_swaps = 2;
        JobOutcome {
            status: JobStatus::Ok,
            functions: vec![
                FunctionRow::named("main"),
                FunctionRow::named("f"),
                g,
                FunctionRow::named("aux"),
            ],
            compile_seconds: 0.25,
            simulate_seconds: 1.5,
        }
    }

    fn text(files: &OutputFiles, name: &str) -> String {
        let all = files.render().unwrap();
        String::from_utf8(all.into_iter().find(|f| f.0 == name).unwrap().1).unwrap()
    }

    #[test]
    fn rows_kernels_in_manifest_order_and_failures() {
        let results = [
            result(0, &["g", "f"], passing()),
            result(1, &["g"], JobOutcome::failed("trap, at 0x10")),
        ];
        let files =
            OutputFiles::from_results(&results, "suite.toml", definition(false, false), None);
        let csv = text(&files, FUNCTIONS_FILE);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], FUNCTION_COLUMNS.join(","));
        assert_eq!(
            lines[1],
            "dsp/x.c,g,st120,base,8,0,0,3,0,0,0,0,0,0,0,0,0,0,0,120,ok,0,0,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
        );
        assert!(lines[2].starts_with("dsp/x.c,f,st120,base,8,"));
        assert_eq!(
            lines[3],
            "dsp/x.c,*,st120,base,8,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\"trap, at 0x10\",0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
        );
        assert_eq!(lines.len(), 4);
        let jobs = text(&files, JOBS_FILE);
        assert_eq!(
            jobs.lines().collect::<Vec<_>>(),
            [
                JOB_COLUMNS.join(",").as_str(),
                "0,dsp/x.c,st120,base,8,ok,2,250000,1500000",
                "1,dsp/x.c,st120,base,8,\"trap, at 0x10\",1,0,0",
            ]
        );
        let r = &files.runs.results;
        assert_eq!((r.jobs, r.ok, r.failed, r.function_rows), (2, 1, 1, 3));
        assert_eq!((r.compile_us, r.simulate_us), (Some(250000), Some(1500000)));
    }

    #[test]
    fn all_functions_and_no_times() {
        let results = [result(0, &["g", "f"], passing())];
        let files = OutputFiles::from_results(&results, "m", definition(true, true), None);
        let csv = text(&files, FUNCTIONS_FILE);
        let names: Vec<&str> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(1).unwrap())
            .collect();
        assert_eq!(names, ["g", "f", "aux", "main"]);
        assert!(
            csv.lines().nth(1).unwrap().contains(",0,ok,"),
            "compile_us zeroed: {csv}"
        );
        assert_eq!(files.jobs[0].compile_us, 0);
        let runs = text(&files, RUNS_FILE);
        assert!(!runs.contains("compile_us"), "{runs}");
    }

    #[test]
    fn files_round_trip() {
        // Shard 2/3 of a 5-job sweep holds jobs 1 and 4.
        let results = [
            result(1, &["g", "f"], passing()),
            result(4, &["g"], JobOutcome::failed("wrong output \"x\"")),
        ];
        let shard = Some(Shard { index: 2, count: 3 });
        let mut def = definition(false, false);
        def.jobs_total = 5;
        let files = OutputFiles::from_results(&results, "suite.toml", def, shard);
        let dir = std::env::temp_dir().join(format!("ssalab-output-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        files.write(&dir).unwrap();
        let back = OutputFiles::read(&dir).unwrap();
        assert_eq!(back, files);
        assert_eq!(back.runs.shard().unwrap(), Shard { index: 2, count: 3 });
        // No temporary file is left behind.
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 3, "{names:?}");
        // A functions.csv cut at a row boundary, and a job dropped, are reported.
        let csv = std::fs::read_to_string(dir.join(FUNCTIONS_FILE)).unwrap();
        let cut: Vec<&str> = csv.lines().take(2).collect();
        std::fs::write(dir.join(FUNCTIONS_FILE), cut.join("\n") + "\n").unwrap();
        let e = OutputFiles::read(&dir).unwrap_err();
        assert!(
            e.contains("function_rows = 3 but functions.csv has 1"),
            "{e}"
        );
        std::fs::write(dir.join(FUNCTIONS_FILE), &csv).unwrap();
        let jobs = std::fs::read_to_string(dir.join(JOBS_FILE)).unwrap();
        let first_job: Vec<&str> = jobs.lines().take(2).collect();
        std::fs::write(dir.join(JOBS_FILE), first_job.join("\n") + "\n").unwrap();
        let e = OutputFiles::read(&dir).unwrap_err();
        assert!(e.contains("jobs = 2 but jobs.csv has 1"), "{e}");
        // A damaged header is reported.
        std::fs::write(dir.join(JOBS_FILE), "index,program\n").unwrap();
        let e = OutputFiles::read(&dir).unwrap_err();
        assert!(e.contains("unexpected header"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
