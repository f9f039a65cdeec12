//! Bench sweeps and fuzz campaigns on a Slurm cluster (issue 25): one job array of shards, a
//! dependent merge job, a status read from the files the tasks leave, and resubmission of the
//! shards that did not finish.
//!
//! A campaign lives in one directory `DIR` (the `--out` of `ssalab bench --slurm` or `ssalab
//! fuzz run --slurm`):
//!
//! | path | written by | what |
//! |---|---|---|
//! | `slurm/campaign.toml` | `ssalab` | the campaign: kind, shard count, the shard command, submissions |
//! | `slurm/shard.sbatch` | `ssalab` | the job-array script: array task K runs shard K/N |
//! | `slurm/merge.sbatch` | `ssalab` | the merge (and report) job, submitted `afterok` on the array |
//! | `slurm/tasks/K.started` | task K | job id, host and start time of the last attempt |
//! | `slurm/tasks/K.exit` | task K | the shard command's exit status (`signal` when killed) |
//! | `slurm/logs/shard-K.out` | Slurm | the task's output, every attempt appended |
//! | `shards/.K.tmp/` | task K | the shard being written (a bench shard keeps its journal here) |
//! | `shards/K/` | task K | the finished shard: renamed from `.K.tmp` in one `rename`, so it is complete or absent |
//! | `slurm/merge.exit` | merge job | the merge's exit status |
//! | `functions.csv` … or `fuzz.csv` … | merge job | the merged output, as one machine writes it |
//!
//! The steps, one submodule each: [`script`] writes the two job scripts; [`submit`] calls
//! `sbatch` (array, then `--dependency=afterok:ARRAY --kill-on-invalid-dep=yes` for the merge)
//! and resubmits the unfinished shards of a campaign (`--resume DIR`); [`status`] classifies
//! each shard as done, failed, running, pending, lost or missing from the files above and, when
//! `squeue` is there, the queue; [`fuzz_files`] gives fuzz campaigns the mergeable output bench
//! sweeps already have. Everything is linear in the number of shards.
//!
//! Invariants: a shard directory `shards/K` exists only complete (a rename of the finished
//! temporary directory); a task whose shard exists exits at once, so re-running a finished
//! shard is harmless; the merged files are a pure function of the shard directories, so
//! merging twice writes the same bytes, and they are byte-identical to an unsharded run with
//! `--no-times` (bench) or to one `fuzz run --out` (fuzz).

pub mod fuzz_files;
pub mod script;
pub mod status;
pub mod submit;

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The campaign description, relative to the campaign directory.
pub const CAMPAIGN_FILE: &str = "slurm/campaign.toml";
/// The job-array script.
pub const SHARD_SCRIPT: &str = "slurm/shard.sbatch";
/// The merge job's script.
pub const MERGE_SCRIPT: &str = "slurm/merge.sbatch";
/// The tasks' start and exit records.
pub const TASKS_DIR: &str = "slurm/tasks";
/// Slurm's output files.
pub const LOGS_DIR: &str = "slurm/logs";
/// The finished shards (`shards/K`).
pub const SHARDS_DIR: &str = "shards";
/// The merge job's exit record.
pub const MERGE_EXIT: &str = "slurm/merge.exit";

/// What a campaign runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// `ssalab bench` shards.
    Bench,
    /// `ssalab fuzz run` shards.
    Fuzz,
}

impl Kind {
    /// The subcommand words (`bench`, `fuzz run`).
    pub fn command(self) -> &'static [&'static str] {
        match self {
            Kind::Bench => &["bench"],
            Kind::Fuzz => &["fuzz", "run"],
        }
    }
}

/// One `sbatch` of the campaign's array and its merge job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Submission {
    /// The array's job id.
    pub array_job: String,
    /// The merge job's id.
    pub merge_job: String,
    /// The array indices submitted (`1-8`, `3,5`).
    pub tasks: String,
}

/// `slurm/campaign.toml`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Campaign {
    pub kind: Kind,
    /// N: shards, one per array task.
    pub shards: usize,
    /// The `ssalab` binary the tasks run (absolute; it must be visible on the compute nodes).
    pub ssalab: String,
    /// The directory the tasks run in (the one `--slurm` was given in: relative paths of the
    /// command line, and the manifest path recorded in the outputs, mean the same there).
    pub workdir: String,
    /// The campaign directory (absolute).
    pub dir: String,
    /// The subcommand's arguments common to every shard (no `--shard`, `--out`, `-j`).
    pub args: Vec<String>,
    /// CPUs per task (`-j` of each shard).
    pub cpus_per_task: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    /// `--manifest` for `ssalab report` in the merge job (bench only; absent: the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_manifest: Option<String>,
    /// Every submission, oldest first (none after `--dry-run`).
    #[serde(default)]
    pub submissions: Vec<Submission>,
}

impl Campaign {
    pub fn path(&self, rel: &str) -> PathBuf {
        Path::new(&self.dir).join(rel)
    }

    /// `shards/K`.
    pub fn shard_dir(&self, k: usize) -> PathBuf {
        self.path(SHARDS_DIR).join(k.to_string())
    }

    /// Reads `DIR/slurm/campaign.toml`.
    pub fn load(dir: &Path) -> Result<Campaign, String> {
        let path = dir.join(CAMPAIGN_FILE);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            format!(
                "{}: {e} (is {} the --out of `ssalab bench --slurm` or `ssalab fuzz run --slurm`?)",
                path.display(),
                dir.display()
            )
        })?;
        let c: Campaign = toml::from_str(&text)
            .map_err(|e| format!("{}: {}", path.display(), e.message().trim()))?;
        if c.shards == 0 {
            return Err(format!("{}: a campaign of 0 shards", path.display()));
        }
        Ok(c)
    }

    /// Writes `slurm/campaign.toml` atomically.
    pub fn save(&self) -> Result<(), String> {
        let text = toml::to_string(self).map_err(|e| format!("cannot write campaign: {e}"))?;
        crate::bench::output::write_atomic(&self.path(CAMPAIGN_FILE), text.as_bytes())
    }
}

/// Whether `dir` holds a Slurm campaign.
pub fn is_campaign(dir: &Path) -> bool {
    dir.join(CAMPAIGN_FILE).is_file()
}

/// A set of array indices in `sbatch --array` form: `1-3,5,7-8`.
pub fn array_spec(indices: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < indices.len() {
        let mut j = i;
        while j + 1 < indices.len() && indices[j + 1] == indices[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            indices[i].to_string()
        } else {
            format!("{}-{}", indices[i], indices[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_specs_are_ranges() {
        assert_eq!(array_spec(&[1, 2, 3, 5, 7, 8]), "1-3,5,7-8");
        assert_eq!(array_spec(&[4]), "4");
        assert_eq!(array_spec(&[]), "");
    }
}
