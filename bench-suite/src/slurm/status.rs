//! `ssalab status DIR`: where each shard of a campaign is, from the files its tasks leave
//! (`shards/K`, `slurm/tasks/K.started`, `slurm/tasks/K.exit`) and, when `squeue` is there,
//! the queue (a task still pending or running has no exit record yet; a task killed hard —
//! `SIGKILL`, a node lost, a time limit past the grace period — never writes one).
//!
//! A shard is *done* when `shards/K` exists (it is renamed there complete); *failed* when its
//! last attempt recorded an exit status but left no shard; *running* or *pending* when the
//! queue says so; *lost* when it started and is neither finished nor queued; *missing* when
//! nothing shows it ever ran. `--resume DIR` resubmits every shard that is not done. Linear
//! in the number of shards (one `squeue` call).

use super::fuzz_files::{FuzzRuns, FUZZ_TOML};
use super::{array_spec, Campaign, Kind, LOGS_DIR, MERGE_EXIT, TASKS_DIR};
use crate::bench::output::{RunsFile, RUNS_FILE};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

/// Where one shard is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShardState {
    /// `shards/K` exists; `failures` = failed jobs (bench) or mismatches and generator bugs
    /// (fuzz) recorded in it.
    Done { failures: u64 },
    /// The last attempt ended with this exit record and left no shard.
    Failed { exit: String },
    /// In the queue, running (the job id `ARRAY_K`).
    Running { job: String },
    /// In the queue, waiting.
    Pending { job: String },
    /// Started (the `.started` record), no exit record, not in the queue: killed.
    Lost { started: String },
    /// Started, no exit record, and the queue could not be read.
    Started { started: String },
    /// No trace of a run.
    Missing,
}

impl ShardState {
    fn label(&self) -> &'static str {
        match self {
            ShardState::Done { .. } => "done",
            ShardState::Failed { .. } => "failed",
            ShardState::Running { .. } => "running",
            ShardState::Pending { .. } => "pending",
            ShardState::Lost { .. } => "lost",
            ShardState::Started { .. } => "started",
            ShardState::Missing => "missing",
        }
    }

    /// Whether Slurm still holds the task.
    pub fn queued(&self) -> bool {
        matches!(
            self,
            ShardState::Running { .. } | ShardState::Pending { .. }
        )
    }
}

/// The queue's view of the campaign's jobs: array task K -> (job, state), merge jobs.
#[derive(Clone, Debug, Default)]
pub struct Queue {
    pub tasks: HashMap<usize, (String, String)>,
    /// Merge jobs still queued, with their state.
    pub merges: Vec<(String, String)>,
}

/// Reads the queue with `squeue` (`None` when it cannot be run).
pub fn read_queue(c: &Campaign) -> Option<Queue> {
    if c.submissions.is_empty() {
        return Some(Queue::default());
    }
    // `-u UID` rather than `--me`, which Slurm before 20.11 lacks.
    // SAFETY: getuid cannot fail and has no preconditions.
    let uid = unsafe { libc::getuid() };
    let out = std::process::Command::new("squeue")
        .args(["-u", &uid.to_string(), "-h", "-r", "-o", "%i %T"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(parse_queue(c, &String::from_utf8_lossy(&out.stdout)))
}

/// Parses `squeue -h -r -o "%i %T"` lines (`12_3 RUNNING`, `13 PENDING`), keeping the
/// campaign's jobs.
pub fn parse_queue(c: &Campaign, text: &str) -> Queue {
    let mut q = Queue::default();
    for line in text.lines() {
        let mut w = line.split_whitespace();
        let (Some(id), Some(state)) = (w.next(), w.next()) else {
            continue;
        };
        if let Some((array, k)) = id.split_once('_') {
            let ours = c.submissions.iter().any(|s| s.array_job == array);
            if let (true, Ok(k)) = (ours, k.parse::<usize>()) {
                q.tasks.insert(k, (id.to_string(), state.to_string()));
            }
        } else if c.submissions.iter().any(|s| s.merge_job == id) {
            q.merges.push((id.to_string(), state.to_string()));
        }
    }
    q
}

/// The failures a finished shard records, or why it cannot be read.
fn shard_failures(c: &Campaign, k: usize) -> Result<u64, String> {
    let dir = c.shard_dir(k);
    match c.kind {
        Kind::Bench => {
            let text = std::fs::read_to_string(dir.join(RUNS_FILE)).map_err(|e| e.to_string())?;
            let r: RunsFile = toml::from_str(&text).map_err(|e| e.message().to_string())?;
            Ok(r.results.failed as u64)
        }
        Kind::Fuzz => {
            let text = std::fs::read_to_string(dir.join(FUZZ_TOML)).map_err(|e| e.to_string())?;
            let r: FuzzRuns = toml::from_str(&text).map_err(|e| e.message().to_string())?;
            Ok(r.results.mismatches + r.results.generator_bugs)
        }
    }
}

/// The state of shard K.
fn shard_state(c: &Campaign, k: usize, queue: Option<&Queue>) -> ShardState {
    if let Some((job, state)) = queue.and_then(|q| q.tasks.get(&k)) {
        // A requeued or resubmitted task is what counts, even over an old exit record.
        return if state == "PENDING" {
            ShardState::Pending { job: job.clone() }
        } else {
            ShardState::Running { job: job.clone() }
        };
    }
    if c.shard_dir(k).is_dir() {
        return match shard_failures(c, k) {
            Ok(failures) => ShardState::Done { failures },
            Err(e) => ShardState::Failed {
                exit: format!("shard directory unreadable: {e}"),
            },
        };
    }
    let tasks = c.path(TASKS_DIR);
    let read = |name: String| {
        std::fs::read_to_string(tasks.join(name))
            .ok()
            .map(|t| t.trim().to_string())
    };
    if let Some(exit) = read(format!("{k}.exit")) {
        return ShardState::Failed { exit };
    }
    match (read(format!("{k}.started")), queue) {
        (Some(started), Some(_)) => ShardState::Lost { started },
        (Some(started), None) => ShardState::Started { started },
        (None, _) => ShardState::Missing,
    }
}

/// Where the merge is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MergeState {
    /// The merged output is there and complete.
    Merged,
    /// A partial merge (`--allow-partial`) is there, lacking these shards.
    Partial(Vec<String>),
    /// A merge job is queued (job, state).
    Queued(String, String),
    /// The last merge job failed with this status.
    Failed(String),
    NotYet,
}

fn merge_state(c: &Campaign, queue: Option<&Queue>) -> MergeState {
    if let Some((job, state)) = queue.and_then(|q| q.merges.first()) {
        return MergeState::Queued(job.clone(), state.clone());
    }
    let dir = Path::new(&c.dir);
    let missing = match c.kind {
        Kind::Bench => std::fs::read_to_string(dir.join(RUNS_FILE))
            .ok()
            .and_then(|t| toml::from_str::<RunsFile>(&t).ok())
            .map(|r| r.missing_shards),
        Kind::Fuzz => std::fs::read_to_string(dir.join(FUZZ_TOML))
            .ok()
            .and_then(|t| toml::from_str::<FuzzRuns>(&t).ok())
            .map(|r| r.missing_shards),
    };
    let exit = std::fs::read_to_string(dir.join(MERGE_EXIT))
        .ok()
        .map(|t| t.trim().to_string());
    match (missing, exit) {
        (_, Some(e)) if e != "0" => MergeState::Failed(e),
        (Some(m), _) if m.is_empty() => MergeState::Merged,
        (Some(m), _) => MergeState::Partial(m),
        (None, _) => MergeState::NotYet,
    }
}

/// A campaign's status.
#[derive(Clone, Debug)]
pub struct CampaignStatus {
    pub campaign: Campaign,
    /// Shard K at index K-1.
    pub shards: Vec<ShardState>,
    /// Whether the queue was read.
    pub queue_read: bool,
    pub merge: MergeState,
}

impl CampaignStatus {
    /// Reads the status of the campaign in `dir` (consulting the queue with `squeue`).
    pub fn read(dir: &Path) -> Result<CampaignStatus, String> {
        let campaign = super::Campaign::load(dir)?;
        let queue = read_queue(&campaign);
        Ok(Self::with_queue(campaign, queue.as_ref()))
    }

    /// The status given the queue (`None`: not read).
    pub fn with_queue(campaign: Campaign, queue: Option<&Queue>) -> CampaignStatus {
        let shards = (1..=campaign.shards)
            .map(|k| shard_state(&campaign, k, queue))
            .collect();
        CampaignStatus {
            merge: merge_state(&campaign, queue),
            campaign,
            shards,
            queue_read: queue.is_some(),
        }
    }

    /// The shards (K) not done.
    pub fn unfinished(&self) -> Vec<usize> {
        self.with(|s| !matches!(s, ShardState::Done { .. }))
    }

    /// The shards (K) whose state satisfies `f`.
    pub fn with(&self, f: impl Fn(&ShardState) -> bool) -> Vec<usize> {
        (1..=self.shards.len())
            .filter(|&k| f(&self.shards[k - 1]))
            .collect()
    }

    /// Every shard done and merged.
    pub fn complete(&self) -> bool {
        self.unfinished().is_empty() && self.merge == MergeState::Merged
    }

    /// The report `ssalab status` prints.
    pub fn render(&self) -> String {
        let c = &self.campaign;
        let mut s = String::new();
        let kind = match c.kind {
            Kind::Bench => "bench sweep",
            Kind::Fuzz => "fuzz campaign",
        };
        let _ = writeln!(s, "{}: {kind} in {} shards", c.dir, c.shards);
        for sub in &c.submissions {
            let _ = writeln!(
                s,
                "  submitted: array job {} (tasks {}), merge job {}",
                sub.array_job, sub.tasks, sub.merge_job
            );
        }
        if c.submissions.is_empty() {
            let _ = writeln!(s, "  not submitted (--dry-run)");
        }
        for label in [
            "done", "failed", "lost", "running", "pending", "started", "missing",
        ] {
            let ks = self.with(|st| st.label() == label);
            if !ks.is_empty() {
                let _ = writeln!(s, "  {label:<8} {:>5}  {}", ks.len(), array_spec(&ks));
            }
        }
        let with_failures =
            self.with(|st| matches!(st, ShardState::Done { failures } if *failures > 0));
        if !with_failures.is_empty() {
            let what = match c.kind {
                Kind::Bench => "failed jobs",
                Kind::Fuzz => "mismatches",
            };
            let _ = writeln!(
                s,
                "  done shards with {what} (results, not errors): {}",
                array_spec(&with_failures)
            );
        }
        self.render_details(&mut s);
        let merge = match &self.merge {
            MergeState::Merged => format!("merged in {}", c.dir),
            MergeState::Partial(m) => format!("partial merge, lacking shards {}", m.join(", ")),
            MergeState::Queued(job, state) => format!("merge job {job} {}", state.to_lowercase()),
            MergeState::Failed(e) => format!(
                "the merge failed (exit {e}; see {}/{LOGS_DIR}/merge.out)",
                c.dir
            ),
            MergeState::NotYet => "not merged".into(),
        };
        let _ = writeln!(s, "  merge: {merge}");
        if !self.queue_read {
            let _ = writeln!(
                s,
                "  (squeue could not be run: started shards may be running or lost)"
            );
        }
        let resumable = self.with(|st| {
            matches!(
                st,
                ShardState::Failed { .. } | ShardState::Lost { .. } | ShardState::Missing
            )
        });
        if !resumable.is_empty() && !self.shards.iter().any(ShardState::queued) {
            let _ = writeln!(
                s,
                "  next: `ssalab {} --resume {}` re-runs the {} unfinished shards",
                c.kind.command().join(" "),
                c.dir,
                resumable.len()
            );
        }
        s
    }

    /// One line per failed or lost shard (the first 20).
    fn render_details(&self, s: &mut String) {
        let c = &self.campaign;
        let mut shown = 0;
        for (i, st) in self.shards.iter().enumerate() {
            let k = i + 1;
            let line = match st {
                ShardState::Failed { exit } => format!(
                    "shard {k}: failed ({}); log {}/{LOGS_DIR}/shard-{k}.out",
                    if exit.parse::<i32>().is_ok() {
                        format!("exit {exit}")
                    } else {
                        exit.clone()
                    },
                    c.dir
                ),
                ShardState::Lost { started } => format!(
                    "shard {k}: lost ({started}; no exit record and not queued: killed, timed out or its node failed)"
                ),
                _ => continue,
            };
            shown += 1;
            if shown > 20 {
                let _ = writeln!(s, "    ...");
                break;
            }
            let _ = writeln!(s, "    {line}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Submission;
    use super::*;

    fn campaign(dir: &Path) -> Campaign {
        Campaign {
            kind: Kind::Fuzz,
            shards: 6,
            ssalab: "ssalab".into(),
            workdir: ".".into(),
            dir: dir.display().to_string(),
            args: vec![],
            cpus_per_task: 1,
            partition: None,
            time: None,
            report_manifest: None,
            submissions: vec![Submission {
                array_job: "40".into(),
                merge_job: "41".into(),
                tasks: "1-6".into(),
            }],
        }
    }

    #[test]
    fn every_state_from_files_and_queue() {
        let dir = std::env::temp_dir().join(format!("ssalab-slurm-status-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let c = campaign(&dir);
        let tasks = c.path(TASKS_DIR);
        std::fs::create_dir_all(&tasks).unwrap();
        // 1: done with a mismatch.
        std::fs::create_dir_all(c.shard_dir(1)).unwrap();
        let runs = "tool = \"ssalab\"\nversion = \"1\"\nshard = \"1/6\"\n[campaign]\ngenerator = 1\nfirst_seed = 1\ncount = 6\nsize = \"tiny\"\nconfigurations = []\nreduce = false\nreduce_budget = 1\nmax_steps = 1\nquick = false\nfront_reference = false\n[results]\nprograms = 1\nagree = 0\nmismatches = 1\ndiscarded = 0\ngenerator_bugs = 0\n";
        std::fs::write(c.shard_dir(1).join(FUZZ_TOML), runs).unwrap();
        // 2: failed; 3: lost; 4: running; 5: pending; 6: missing.
        std::fs::write(tasks.join("2.started"), "job=40_2").unwrap();
        std::fs::write(tasks.join("2.exit"), "2\n").unwrap();
        std::fs::write(tasks.join("3.started"), "job=40_3 host=n1").unwrap();
        std::fs::write(tasks.join("4.started"), "job=40_4").unwrap();
        let q = parse_queue(
            &c,
            "40_4 RUNNING\n40_5 PENDING\n99_1 RUNNING\n41 PENDING\ngarbage\n",
        );
        let st = CampaignStatus::with_queue(c.clone(), Some(&q));
        assert_eq!(
            st.shards,
            [
                ShardState::Done { failures: 1 },
                ShardState::Failed { exit: "2".into() },
                ShardState::Lost {
                    started: "job=40_3 host=n1".into()
                },
                ShardState::Running { job: "40_4".into() },
                ShardState::Pending { job: "40_5".into() },
                ShardState::Missing,
            ]
        );
        assert_eq!(st.merge, MergeState::Queued("41".into(), "PENDING".into()));
        assert_eq!(st.unfinished(), [2, 3, 4, 5, 6]);
        let text = st.render();
        assert!(text.contains("  lost         1  3\n"), "{text}");
        assert!(text.contains("shard 2: failed (exit 2)"), "{text}");
        // Tasks still queued: no resume advice yet.
        assert!(!text.contains("next:"), "{text}");
        // Without the queue, the started shard 4 cannot be told running or lost.
        let st = CampaignStatus::with_queue(c, None);
        assert_eq!(
            st.shards[3],
            ShardState::Started {
                started: "job=40_4".into()
            }
        );
        assert_eq!(st.shards[4], ShardState::Missing);
        assert!(st.render().contains("next: `ssalab fuzz run --resume"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
