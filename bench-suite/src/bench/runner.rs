//! The parallel job runner: a crossbeam work queue served by `-j N` worker threads, with
//! indicatif progress (an overall bar plus one line per worker naming its current job).
//!
//! Guarantees:
//! * every job gets a result: an executor panic is caught (`catch_unwind`) and recorded as a
//!   failed job with the panic message and location; a job left over because no worker could
//!   be started is recorded as failed too; nothing stops the sweep;
//! * results are returned sorted by job index, whatever the number of workers or the order
//!   in which jobs finish;
//! * each outcome is checked against the manifest ([`check_outcome`]): a passing job must
//!   report every kernel exactly once; failure reasons are flattened to one line.
//!
//! Workers run on 64 MiB stacks (compiler passes recurse over the program). Panics on worker
//! threads are not printed by the default hook (they are reported as results instead).

use super::jobs::PlannedJob;
use super::{Executor, JobOutcome, JobStatus};
use crossbeam::channel;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::cell::RefCell;
use std::collections::HashSet;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// How to run the jobs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunnerOptions {
    /// Worker threads (at least 1 is used).
    pub workers: usize,
    /// Show progress bars (only when stderr is a terminal).
    pub progress: bool,
    /// Print each failed job on stderr as soon as it fails.
    pub print_failures: bool,
}

impl RunnerOptions {
    /// The number of cores.
    pub fn default_workers() -> usize {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
}

impl Default for RunnerOptions {
    fn default() -> RunnerOptions {
        RunnerOptions {
            workers: RunnerOptions::default_workers(),
            progress: true,
            print_failures: true,
        }
    }
}

/// The result of one job.
#[derive(Clone, Debug, PartialEq)]
pub struct JobResult {
    pub planned: PlannedJob,
    /// Checked by [`check_outcome`].
    pub outcome: JobOutcome,
    /// Wall time of the executor call.
    pub wall_seconds: f64,
}

impl JobResult {
    pub fn passed(&self) -> bool {
        self.outcome.status == JobStatus::Ok
    }
}

/// Longest failure reason kept (characters).
const MAX_REASON: usize = 400;

/// A failure reason on one line: whitespace runs (newlines included) become one space,
/// long reasons are cut, and a reason can never read `ok` or be empty.
pub fn one_line_reason(reason: &str) -> String {
    let mut out = reason.split_whitespace().collect::<Vec<_>>().join(" ");
    if out.chars().count() > MAX_REASON {
        out = out.chars().take(MAX_REASON).collect();
        out.push('…');
    }
    match out.as_str() {
        "" => "failed (no reason given)".into(),
        "ok" => "failed: ok".into(),
        _ => out,
    }
}

/// Checks an executor's outcome for `planned`: times are made finite and non-negative; a
/// passing job that reports a function twice or misses one of the manifest's kernels
/// becomes a failure (its statistics could not be trusted or tabulated); failure reasons
/// become one line.
pub fn check_outcome(planned: &PlannedJob, mut outcome: JobOutcome) -> JobOutcome {
    for t in [&mut outcome.compile_seconds, &mut outcome.simulate_seconds] {
        if !t.is_finite() || *t < 0.0 {
            *t = 0.0;
        }
    }
    if outcome.status == JobStatus::Ok {
        let mut seen = HashSet::new();
        if let Some(dup) = outcome
            .functions
            .iter()
            .find(|f| !seen.insert(f.function.as_str()))
        {
            outcome.status =
                JobStatus::Failed(format!("function `{}` reported twice", dup.function));
        } else {
            let missing: Vec<String> = planned
                .kernels
                .iter()
                .filter(|k| !seen.contains(k.as_str()))
                .map(|k| format!("`{k}`"))
                .collect();
            if !missing.is_empty() {
                // At most 20 names: the reason is one CSV field.
                let more = match missing.len().saturating_sub(20) {
                    0 => String::new(),
                    n => format!(" and {n} more"),
                };
                outcome.status = JobStatus::Failed(format!(
                    "kernel{} {}{more} not reported (not in the compiled program?)",
                    if missing.len() > 1 { "s" } else { "" },
                    missing[..missing.len().min(20)].join(", ")
                ));
            }
        }
    }
    if let JobStatus::Failed(reason) = &outcome.status {
        outcome.status = JobStatus::Failed(one_line_reason(reason));
    }
    outcome
}

const WORKER_PREFIX: &str = "ssalab-bench-";
const WORKER_STACK: usize = 64 << 20;

thread_local! {
    /// Where the last panic on this worker thread happened (set by the panic hook).
    static PANIC_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn is_worker_thread() -> bool {
    std::thread::current()
        .name()
        .is_some_and(|n| n.starts_with(WORKER_PREFIX))
}

/// Installs (once) a panic hook that, on bench worker threads, records the panic's location
/// instead of printing; other threads keep the previous hook.
fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if is_worker_thread() {
                let loc = info
                    .location()
                    .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
                PANIC_LOCATION.with(|p| *p.borrow_mut() = loc);
            } else {
                previous(info);
            }
        }));
    });
}

/// Runs the executor on one job, turning a panic into a failed outcome.
fn run_guarded(exec: &dyn Executor, planned: &PlannedJob) -> JobResult {
    let start = Instant::now();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| exec.run(&planned.job)));
    let wall_seconds = start.elapsed().as_secs_f64();
    let outcome = match result {
        Ok(o) => o,
        Err(payload) => {
            let msg = if let Some(s) = payload.downcast_ref::<&str>() {
                s.to_string()
            } else if let Some(s) = payload.downcast_ref::<String>() {
                s.clone()
            } else {
                "non-string payload".to_string()
            };
            let at = PANIC_LOCATION
                .with(|p| p.borrow_mut().take())
                .map(|l| format!(" at {l}"))
                .unwrap_or_default();
            JobOutcome::failed(format!("executor panicked{at}: {msg}"))
        }
    };
    JobResult {
        planned: planned.clone(),
        outcome: check_outcome(planned, outcome),
        wall_seconds,
    }
}

/// Progress display: an overall bar and one line per worker (all hidden when not wanted).
struct Progress {
    multi: MultiProgress,
    overall: ProgressBar,
    workers: Vec<ProgressBar>,
    visible: bool,
}

impl Progress {
    fn new(total: usize, workers: usize, wanted: bool) -> Progress {
        let visible = wanted && std::io::stderr().is_terminal();
        let multi = if visible {
            MultiProgress::with_draw_target(ProgressDrawTarget::stderr())
        } else {
            MultiProgress::with_draw_target(ProgressDrawTarget::hidden())
        };
        let overall = multi.add(ProgressBar::new(total as u64));
        if let Ok(style) = ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} jobs, eta {eta} {msg}",
        ) {
            overall.set_style(style.progress_chars("=> "));
        }
        let line_style = ProgressStyle::with_template("  {prefix} {wide_msg} {elapsed}").ok();
        let workers = (0..workers)
            .map(|w| {
                let b = multi.add(ProgressBar::new_spinner());
                if let Some(s) = &line_style {
                    b.set_style(s.clone());
                }
                b.set_prefix(format!("[{}]", w + 1));
                b.set_message("idle");
                b
            })
            .collect();
        if visible {
            overall.enable_steady_tick(Duration::from_millis(250));
        }
        Progress {
            multi,
            overall,
            workers,
            visible,
        }
    }

    /// A line above the bars (or plain stderr when they are hidden).
    fn println(&self, line: String) {
        if self.visible {
            let _ = self.multi.println(line);
        } else {
            eprintln!("{line}");
        }
    }

    fn finish(&self) {
        for w in &self.workers {
            w.finish_and_clear();
        }
        self.overall.finish_and_clear();
    }
}

/// Runs `jobs` on `opts.workers` threads and returns one result per job, sorted by job index.
pub fn run_jobs(exec: &dyn Executor, jobs: &[PlannedJob], opts: &RunnerOptions) -> Vec<JobResult> {
    run_jobs_with(exec, jobs, opts, &mut |_| {})
}

/// [`run_jobs`], calling `finished` on the calling thread with each result as its job ends
/// (the journal of `ssalab bench` is written there).
pub fn run_jobs_with(
    exec: &dyn Executor,
    jobs: &[PlannedJob],
    opts: &RunnerOptions,
    finished: &mut dyn FnMut(&JobResult),
) -> Vec<JobResult> {
    let workers = opts.workers.max(1).min(jobs.len().max(1));
    let progress = Progress::new(jobs.len(), workers, opts.progress);
    install_panic_hook();
    let (work_tx, work_rx) = channel::unbounded::<usize>();
    for k in 0..jobs.len() {
        let _ = work_tx.send(k);
    }
    drop(work_tx);
    let (done_tx, done_rx) = channel::unbounded::<(usize, JobResult)>();
    let mut results: Vec<Option<JobResult>> = vec![None; jobs.len()];
    let mut failed = 0usize;
    let _ = crossbeam::scope(|scope| {
        for w in 0..workers {
            let work_rx = work_rx.clone();
            let done_tx = done_tx.clone();
            let line = progress.workers[w].clone();
            let spawned = scope
                .builder()
                .name(format!("{WORKER_PREFIX}{w}"))
                .stack_size(WORKER_STACK)
                .spawn(move |_| {
                    for k in work_rx.iter() {
                        line.reset_elapsed();
                        line.set_message(jobs[k].job.label());
                        let r = run_guarded(exec, &jobs[k]);
                        if done_tx.send((k, r)).is_err() {
                            break;
                        }
                    }
                    line.set_message("done");
                });
            if let Err(e) = spawned {
                progress.println(format!("bench: cannot start worker {}: {e}", w + 1));
            }
        }
        drop(done_tx);
        for (k, r) in done_rx.iter() {
            if let JobStatus::Failed(reason) = &r.outcome.status {
                failed += 1;
                progress.overall.set_message(format!("{failed} failed"));
                if opts.print_failures {
                    progress.println(format!("FAILED {}: {reason}", r.planned.job.label()));
                }
            }
            progress.overall.inc(1);
            finished(&r);
            results[k] = Some(r);
        }
    });
    progress.finish();
    let mut out: Vec<JobResult> = results
        .into_iter()
        .zip(jobs)
        .map(|(r, planned)| {
            r.unwrap_or_else(|| JobResult {
                planned: planned.clone(),
                outcome: JobOutcome::failed("not run: no worker thread could be started"),
                wall_seconds: 0.0,
            })
        })
        .collect();
    out.sort_by_key(|r| r.planned.index);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::{FunctionRow, Job};
    use simulator::isa::Target;

    fn planned(index: usize, program: &str, kernels: &[&str]) -> PlannedJob {
        PlannedJob {
            index,
            job: Job {
                program: program.into(),
                target: Target::St231,
                config: "c".into(),
                regs: None,
            },
            kernels: kernels.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn ok(functions: &[&str]) -> JobOutcome {
        JobOutcome {
            status: JobStatus::Ok,
            functions: functions.iter().map(|f| FunctionRow::named(*f)).collect(),
            compile_seconds: f64::NAN,
            simulate_seconds: -1.0,
        }
    }

    #[test]
    fn outcomes_are_checked() {
        let p = planned(0, "a.c", &["f", "g"]);
        let o = check_outcome(&p, ok(&["g", "main", "f"]));
        assert_eq!(o.status, JobStatus::Ok);
        assert_eq!((o.compile_seconds, o.simulate_seconds), (0.0, 0.0));
        let o = check_outcome(&p, ok(&["f"]));
        assert_eq!(
            o.status,
            JobStatus::Failed("kernel `g` not reported (not in the compiled program?)".into())
        );
        let o = check_outcome(&p, ok(&[]));
        assert!(matches!(&o.status, JobStatus::Failed(r) if r.starts_with("kernels `f`, `g`")));
        let o = check_outcome(&p, ok(&["f", "g", "f"]));
        assert_eq!(
            o.status,
            JobStatus::Failed("function `f` reported twice".into())
        );
        let o = check_outcome(&p, JobOutcome::failed("wrong output:\n  line 3\n"));
        assert_eq!(o.status, JobStatus::Failed("wrong output: line 3".into()));
    }

    #[test]
    fn reasons_are_one_nonempty_line() {
        assert_eq!(one_line_reason(" a\n\tb  c "), "a b c");
        assert_eq!(one_line_reason("\n"), "failed (no reason given)");
        assert_eq!(one_line_reason("ok"), "failed: ok");
        let long = "x".repeat(1000);
        assert_eq!(one_line_reason(&long).chars().count(), MAX_REASON + 1);
    }

    #[test]
    fn panics_become_failures_and_order_is_kept() {
        let jobs: Vec<PlannedJob> = (0..9)
            .map(|i| planned(i, &format!("p{i}.c"), &["k"]))
            .collect();
        let exec = |job: &Job| -> JobOutcome {
            match job.program.as_str() {
                "p3.c" => panic!("boom in {}", job.program),
                "p5.c" => std::panic::panic_any(42u32),
                _ => ok(&["k"]),
            }
        };
        for workers in [1, 3] {
            let opts = RunnerOptions {
                workers,
                progress: false,
                print_failures: false,
            };
            let r = run_jobs(&exec, &jobs, &opts);
            assert_eq!(r.len(), 9);
            assert!(r.iter().enumerate().all(|(i, x)| x.planned.index == i));
            let JobStatus::Failed(reason) = &r[3].outcome.status else {
                panic!("p3 should fail");
            };
            assert!(reason.starts_with("executor panicked at "), "{reason}");
            assert!(
                reason.contains("runner.rs") && reason.ends_with(": boom in p3.c"),
                "{reason}"
            );
            assert!(matches!(&r[5].outcome.status,
                JobStatus::Failed(m) if m.ends_with("non-string payload")));
            assert_eq!(r.iter().filter(|x| x.passed()).count(), 7);
        }
    }

    #[test]
    fn no_jobs() {
        let exec = |_: &Job| -> JobOutcome { unreachable!() };
        assert!(run_jobs(&exec, &[], &RunnerOptions::default()).is_empty());
    }
}
