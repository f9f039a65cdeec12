//! Writing a campaign's directory and submitting it: the job array with `sbatch --parsable`,
//! then the merge job with `--dependency=afterok:ARRAY --kill-on-invalid-dep=yes` (it runs
//! once every task succeeded, and is cancelled by Slurm when one fails, so that a failed
//! campaign does not leave a job pending forever). `--resume DIR` resubmits only the shards
//! that are not done, with a new merge job; it refuses while tasks of the campaign are still
//! queued (their shards would be run twice).

use super::script::{merge_script, sh_quote, shard_script};
use super::status::CampaignStatus;
use super::{
    array_spec, is_campaign, Campaign, Kind, Submission, CAMPAIGN_FILE, LOGS_DIR, MERGE_SCRIPT,
    SHARDS_DIR, SHARD_SCRIPT, TASKS_DIR,
};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// Options of a submission.
#[derive(Clone, Debug, Default)]
pub struct SubmitOptions {
    /// Write the scripts and print them with the `sbatch` commands, submit nothing.
    pub dry_run: bool,
    /// New `--time` / `--partition` (resuming: replace the campaign's).
    pub time: Option<String>,
    pub partition: Option<String>,
}

/// A path as UTF-8 text (the campaign file and the scripts are text).
fn utf8(p: &Path, what: &str) -> Result<String, String> {
    p.to_str()
        .map(str::to_string)
        .ok_or_else(|| format!("{what} {} is not UTF-8", p.display()))
}

/// A campaign of `shards` shards in `out` (created), run by this `ssalab` binary from the
/// current directory, not yet written.
pub fn new_campaign(
    kind: Kind,
    shards: usize,
    out: &Path,
    args: Vec<String>,
    cpus_per_task: u16,
    report_manifest: Option<String>,
) -> Result<Campaign, String> {
    std::fs::create_dir_all(out).map_err(|e| format!("--out {}: {e}", out.display()))?;
    let dir = std::fs::canonicalize(out).map_err(|e| format!("--out {}: {e}", out.display()))?;
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find this ssalab binary: {e}"))?;
    let cwd = std::env::current_dir().map_err(|e| format!("no working directory: {e}"))?;
    Ok(Campaign {
        kind,
        shards,
        ssalab: utf8(&exe, "the ssalab binary")?,
        workdir: utf8(&cwd, "the working directory")?,
        dir: utf8(&dir, "--out")?,
        args,
        cpus_per_task: cpus_per_task.max(1),
        partition: None,
        time: None,
        report_manifest,
        submissions: Vec::new(),
    })
}

/// Writes the campaign file, the scripts and the directories.
fn write_campaign(c: &Campaign) -> Result<(), String> {
    for d in [TASKS_DIR, LOGS_DIR, SHARDS_DIR] {
        let p = c.path(d);
        std::fs::create_dir_all(&p).map_err(|e| format!("cannot create {}: {e}", p.display()))?;
    }
    let write =
        |rel: &str, text: String| crate::bench::output::write_atomic(&c.path(rel), text.as_bytes());
    write(SHARD_SCRIPT, shard_script(c))?;
    write(MERGE_SCRIPT, merge_script(c))?;
    c.save()
}

/// Runs `sbatch --parsable ARGS` and returns the job id.
fn sbatch(args: &[String]) -> Result<String, String> {
    let out = Command::new("sbatch")
        .arg("--parsable")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run sbatch: {e} (is Slurm installed here?)"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "sbatch {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    // `--parsable` prints `JOBID` or `JOBID;CLUSTER`.
    let id = stdout.trim().split(';').next().unwrap_or("").to_string();
    if id.is_empty() || !id.chars().all(|ch| ch.is_ascii_digit()) {
        return Err(format!("sbatch printed `{}`, not a job id", stdout.trim()));
    }
    Ok(id)
}

/// The `sbatch` arguments of the array for `tasks`.
fn array_args(c: &Campaign, tasks: &str) -> Vec<String> {
    vec![
        format!("--array={tasks}"),
        c.path(SHARD_SCRIPT).display().to_string(),
    ]
}

/// The `sbatch` arguments of the merge job after `array_job` (none: no dependency).
fn merge_args(c: &Campaign, array_job: Option<&str>) -> Vec<String> {
    let mut v = Vec::new();
    if let Some(id) = array_job {
        v.push(format!("--dependency=afterok:{id}"));
        v.push("--kill-on-invalid-dep=yes".into());
    }
    v.push(c.path(MERGE_SCRIPT).display().to_string());
    v
}

/// Submits the array for `tasks` (none: only the merge job) and the merge job, records the
/// submission, and says what it did.
fn submit(c: &mut Campaign, tasks: &[usize]) -> Result<String, String> {
    let spec = array_spec(tasks);
    let mut s = String::new();
    let array_job = if tasks.is_empty() {
        None
    } else {
        let id = sbatch(&array_args(c, &spec))?;
        let _ = writeln!(
            s,
            "slurm: submitted array job {id}: {} shard task{} ({spec})",
            tasks.len(),
            if tasks.len() == 1 { "" } else { "s" }
        );
        Some(id)
    };
    let merge = sbatch(&merge_args(c, array_job.as_deref()));
    let merge_job = match &merge {
        Ok(id) => id.clone(),
        Err(_) => String::new(),
    };
    c.submissions.push(Submission {
        array_job: array_job.clone().unwrap_or_default(),
        merge_job: merge_job.clone(),
        tasks: spec,
    });
    c.save()?;
    match merge {
        Ok(id) => {
            let after = array_job.map_or(String::new(), |a| format!(" (afterok:{a})"));
            let _ = writeln!(s, "slurm: submitted merge job {id}{after}");
        }
        Err(e) => {
            return Err(format!(
                "{s}{e}: the shards run, but merge them yourself (`ssalab merge --out {d} {d}/{SHARDS_DIR}/*`)",
                d = c.dir
            ))
        }
    }
    let _ = writeln!(s, "slurm: follow it with `ssalab status {}`", c.dir);
    Ok(s)
}

/// What `--dry-run` prints: the array script and the commands that submit it.
fn dry_run_text(c: &Campaign) -> String {
    let mut s = shard_script(c);
    let q = |v: Vec<String>| v.iter().map(|a| sh_quote(a)).collect::<Vec<_>>().join(" ");
    let _ = writeln!(
        s,
        "\n# Not submitted (--dry-run). The scripts are in {}/slurm; submit with:",
        c.dir
    );
    let _ = writeln!(
        s,
        "#   array=$(sbatch --parsable {})",
        q(array_args(c, &format!("1-{}", c.shards)))
    );
    let _ = writeln!(
        s,
        "#   sbatch --dependency=afterok:$array --kill-on-invalid-dep=yes {}",
        sh_quote(&c.path(MERGE_SCRIPT).display().to_string())
    );
    let _ = writeln!(
        s,
        "# or: ssalab {} --resume {}",
        c.kind.command().join(" "),
        sh_quote(&c.dir)
    );
    s
}

/// Starts a new campaign in `c.dir`: writes it, then submits every shard (or, with
/// `--dry-run`, prints the script). Refuses a directory that already holds a campaign.
pub fn start(mut c: Campaign, opts: &SubmitOptions) -> Result<String, String> {
    c.time.clone_from(&opts.time);
    c.partition.clone_from(&opts.partition);
    let dir = Path::new(&c.dir).to_path_buf();
    if is_campaign(&dir) {
        return Err(format!(
            "{} already holds a campaign ({CAMPAIGN_FILE}): continue it with `ssalab {} --resume {}`, or choose another --out",
            dir.display(),
            c.kind.command().join(" "),
            dir.display()
        ));
    }
    write_campaign(&c)?;
    if opts.dry_run {
        return Ok(dry_run_text(&c));
    }
    let all: Vec<usize> = (1..=c.shards).collect();
    submit(&mut c, &all)
}

/// `--resume DIR` of a campaign: resubmits the shards that are not done (or only the merge
/// job, when they all are and the merge is missing).
pub fn resume(dir: &Path, opts: &SubmitOptions) -> Result<String, String> {
    let status = CampaignStatus::read(dir)?;
    let mut c = status.campaign.clone();
    if !status.queue_read {
        return Err("cannot read the queue (squeue): resuming could run a shard twice".into());
    }
    let queued = status.with(super::status::ShardState::queued);
    if !queued.is_empty() {
        return Err(format!(
            "shards {} are still queued or running: wait for them (`ssalab status {}`) or scancel them, then resume",
            array_spec(&queued),
            dir.display()
        ));
    }
    if let super::status::MergeState::Queued(job, _) = &status.merge {
        return Err(format!(
            "merge job {job} is still queued: wait for it or scancel it, then resume"
        ));
    }
    let todo = status.unfinished();
    if todo.is_empty() && status.complete() {
        return Ok(format!(
            "slurm: {}: every shard is done and merged; nothing to resume\n",
            dir.display()
        ));
    }
    if opts.time.is_some() {
        c.time.clone_from(&opts.time);
    }
    if opts.partition.is_some() {
        c.partition.clone_from(&opts.partition);
    }
    write_campaign(&c)?;
    if opts.dry_run {
        return Ok(format!(
            "slurm: would resubmit shards {} of {} (--dry-run)\n",
            array_spec(&todo),
            c.shards
        ));
    }
    submit(&mut c, &todo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dry_run_writes_the_scripts_and_prints_the_commands() {
        let dir = std::env::temp_dir().join(format!("ssalab-slurm-dry-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let c = Campaign {
            kind: Kind::Bench,
            shards: 3,
            ssalab: "/bin/ssalab".into(),
            workdir: "/tmp".into(),
            dir: dir.display().to_string(),
            args: vec![],
            cpus_per_task: 1,
            partition: None,
            time: Some("0:10:00".into()),
            report_manifest: None,
            submissions: vec![],
        };
        let opts = SubmitOptions {
            dry_run: true,
            time: Some("0:10:00".into()),
            ..SubmitOptions::default()
        };
        let text = start(c.clone(), &opts).unwrap();
        assert!(text.contains("#SBATCH --array=1-3"), "{text}");
        assert!(text.contains("#SBATCH --time=0:10:00"), "{text}");
        assert!(text.contains(&format!(
            "#   sbatch --dependency=afterok:$array --kill-on-invalid-dep=yes {}/slurm/merge.sbatch",
            dir.display()
        )), "{text}");
        assert_eq!(Campaign::load(&dir).unwrap(), c);
        assert!(dir.join(SHARD_SCRIPT).is_file() && dir.join(MERGE_SCRIPT).is_file());
        let e = start(c, &opts).unwrap_err();
        assert!(e.contains("already holds a campaign"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
