//! The two job scripts of a campaign, as text: the job array (`slurm/shard.sbatch`, task K
//! runs shard K/N) and the merge job (`slurm/merge.sbatch`). Both are plain bash with
//! `#SBATCH` directives, meant to be read: README.md shows one. Every value from the command
//! line is shell-quoted ([`sh_quote`]). Options given to `sbatch` itself (`--array` when
//! resuming, `--time`) override the directives.

use super::{Campaign, Kind, LOGS_DIR, MERGE_EXIT, SHARDS_DIR, TASKS_DIR};
use crate::bench::journal::JOURNAL_HEADER;
use std::fmt::Write as _;

/// `s` as one bash word: unchanged when it is made of safe characters, else single-quoted.
pub fn sh_quote(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_./:=,+-@%".contains(c);
    if !s.is_empty() && s.chars().all(safe) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The shared `#SBATCH` lines for the partition and the time limit.
fn placement(c: &Campaign, s: &mut String) {
    if let Some(p) = &c.partition {
        let _ = writeln!(s, "#SBATCH --partition={}", sh_quote(p));
    }
    if let Some(t) = &c.time {
        let _ = writeln!(s, "#SBATCH --time={}", sh_quote(t));
    }
}

/// The common variables and the `cd` into the working directory.
fn prologue(c: &Campaign, s: &mut String) {
    let _ = writeln!(s, "set -u");
    let _ = writeln!(s, "campaign={}", sh_quote(&c.dir));
    let _ = writeln!(s, "ssalab={}", sh_quote(&c.ssalab));
    let _ = writeln!(s, "cd {} || exit 2", sh_quote(&c.workdir));
}

/// The job-array script.
pub fn shard_script(c: &Campaign) -> String {
    let what = match c.kind {
        Kind::Bench => "bench sweep",
        Kind::Fuzz => "fuzz campaign",
    };
    let mut s = String::new();
    let _ = writeln!(s, "#!/bin/bash");
    let _ = writeln!(
        s,
        "# ssalab {what} on Slurm: array task K runs shard K/{} (written by `ssalab {} --slurm`).",
        c.shards,
        c.kind.command().join(" ")
    );
    let _ = writeln!(
        s,
        "# A task writes its shard into {SHARDS_DIR}/.K.tmp and renames it to {SHARDS_DIR}/K when complete;"
    );
    let _ = writeln!(
        s,
        "# {TASKS_DIR}/K.started and K.exit record each attempt for `ssalab status`."
    );
    let _ = writeln!(s, "#SBATCH --job-name=ssalab-{}", kind_name(c.kind));
    let _ = writeln!(s, "#SBATCH --array=1-{}", c.shards);
    let _ = writeln!(s, "#SBATCH --cpus-per-task={}", c.cpus_per_task);
    let _ = writeln!(
        s,
        "#SBATCH --output={}",
        sh_quote(&format!("{}/{LOGS_DIR}/shard-%a.out", c.dir))
    );
    let _ = writeln!(s, "#SBATCH --open-mode=append");
    placement(c, &mut s);
    prologue(c, &mut s);
    let _ = writeln!(s, "n={}", c.shards);
    let _ = writeln!(
        s,
        "k=${{SLURM_ARRAY_TASK_ID:?not run as a Slurm array task}}"
    );
    let _ = writeln!(s, "shard=\"$campaign/{SHARDS_DIR}/$k\"");
    let _ = writeln!(s, "tmp=\"$campaign/{SHARDS_DIR}/.$k.tmp\"");
    let _ = writeln!(s, "tasks=\"$campaign/{TASKS_DIR}\"");
    s.push_str(
        r#"if [ -d "$shard" ]; then echo "shard $k/$n: already done"; exit 0; fi
record() { echo "$1" > "$tasks/.$k.exit" && mv -f "$tasks/.$k.exit" "$tasks/$k.exit"; }
rm -f "$tasks/$k.exit"
echo "job=${SLURM_ARRAY_JOB_ID:-}_$k host=$(hostname) start=$(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$tasks/$k.started"
trap 'record "killed by SIGTERM or SIGINT (scancel, time limit)"; exit 143' TERM INT
"#,
    );
    let args: Vec<String> = c.args.iter().map(|a| sh_quote(a)).collect();
    let command = c.kind.command().join(" ");
    let jobs = "-j \"${SLURM_CPUS_PER_TASK:-1}\"";
    match c.kind {
        Kind::Bench => {
            let _ = writeln!(
                s,
                "# A killed attempt left its journal: continue it instead of starting again."
            );
            let _ = writeln!(s, "if [ -f \"$tmp/{JOURNAL_HEADER}\" ]; then");
            let _ = writeln!(s, "  \"$ssalab\" bench --resume \"$tmp\" {jobs} --quiet");
            let _ = writeln!(s, "else");
            let _ = writeln!(s, "  rm -rf \"$tmp\"");
            let _ = writeln!(
                s,
                "  \"$ssalab\" bench --shard \"$k/$n\" --out \"$tmp\" {jobs} --quiet {}",
                args.join(" ")
            );
            let _ = writeln!(s, "fi");
        }
        Kind::Fuzz => {
            let _ = writeln!(s, "rm -rf \"$tmp\"");
            let _ = writeln!(
                s,
                "\"$ssalab\" {command} --shard \"$k/$n\" --out \"$tmp\" {jobs} {}",
                args.join(" ")
            );
        }
    }
    s.push_str(
        r#"rc=$?
# 0: all passed; 1: failures found, recorded in the shard's files. Either way the shard is complete.
if [ "$rc" -le 1 ] && { mv -T "$tmp" "$shard" || [ -d "$shard" ]; }; then
  record "$rc"
  exit 0
fi
record "$rc"
exit $(( rc > 1 ? rc : 2 ))
"#,
    );
    s
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Bench => "bench",
        Kind::Fuzz => "fuzz",
    }
}

/// The merge job's script: merge every finished shard into the campaign directory (bench:
/// and write the report there).
pub fn merge_script(c: &Campaign) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "#!/bin/bash");
    let _ = writeln!(
        s,
        "# ssalab: merge the shards of the campaign in {} (submitted afterok on its job array).",
        c.dir
    );
    let _ = writeln!(s, "#SBATCH --job-name=ssalab-merge");
    let _ = writeln!(
        s,
        "#SBATCH --output={}",
        sh_quote(&format!("{}/{LOGS_DIR}/merge.out", c.dir))
    );
    let _ = writeln!(s, "#SBATCH --open-mode=append");
    placement(c, &mut s);
    prologue(c, &mut s);
    let _ = writeln!(s, "rm -f \"$campaign/{MERGE_EXIT}\"");
    let _ = writeln!(
        s,
        "\"$ssalab\" merge --out \"$campaign\" \"$campaign\"/{SHARDS_DIR}/[0-9]*"
    );
    let _ = write!(s, "rc=$?");
    if c.kind == Kind::Bench {
        // The report is a by-product: its failure is logged, the merge's status recorded.
        let _ = write!(
            s,
            "\nif [ \"$rc\" = 0 ]; then\n  \"$ssalab\" report --in \"$campaign\" --out \"$campaign\" --quiet"
        );
        if let Some(m) = &c.report_manifest {
            let _ = write!(s, " --manifest {}", sh_quote(m));
        }
        let _ = write!(
            s,
            " ||\n    echo \"ssalab: the report failed; the merged files are complete\"\nfi"
        );
    }
    s.push_str(&format!(
        r#"
echo "$rc" > "$campaign/{MERGE_EXIT}.tmp" && mv -f "$campaign/{MERGE_EXIT}.tmp" "$campaign/{MERGE_EXIT}"
exit "$rc"
"#
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn campaign(kind: Kind) -> Campaign {
        Campaign {
            kind,
            shards: 4,
            ssalab: "/opt/ssalab/bin/ssalab".into(),
            workdir: "/home/me/work".into(),
            dir: "/home/me/work/sweep 1".into(),
            args: vec!["--configs".into(), "L_phi,ABI+C".into(), "it's".into()],
            cpus_per_task: 2,
            partition: Some("short".into()),
            time: None,
            report_manifest: None,
            submissions: vec![],
        }
    }

    #[test]
    fn quoting() {
        assert_eq!(sh_quote("dsp/fir.c"), "dsp/fir.c");
        assert_eq!(sh_quote("a b"), "'a b'");
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
        assert_eq!(sh_quote(""), "''");
        assert_eq!(sh_quote("$HOME"), "'$HOME'");
    }

    #[test]
    fn the_array_script_runs_one_shard_per_task() {
        let s = shard_script(&campaign(Kind::Bench));
        assert!(s.starts_with("#!/bin/bash\n"));
        for line in [
            "#SBATCH --array=1-4",
            "#SBATCH --cpus-per-task=2",
            "#SBATCH --partition=short",
            "#SBATCH --output='/home/me/work/sweep 1/slurm/logs/shard-%a.out'",
            "campaign='/home/me/work/sweep 1'",
            "cd /home/me/work || exit 2",
            "n=4",
        ] {
            assert!(s.lines().any(|l| l == line), "no `{line}` in\n{s}");
        }
        assert!(!s.contains("--time"));
        assert!(s.contains(
            r#"bench --shard "$k/$n" --out "$tmp" -j "${SLURM_CPUS_PER_TASK:-1}" --quiet --configs L_phi,ABI+C 'it'\''s'"#
        ));
        assert!(s.contains(r#"mv -T "$tmp" "$shard""#));
        let f = shard_script(&campaign(Kind::Fuzz));
        assert!(f.contains(r#""$ssalab" fuzz run --shard "$k/$n" --out "$tmp""#));
        assert!(!f.contains("--resume"));
    }

    #[test]
    fn the_merge_script_merges_then_reports() {
        let mut c = campaign(Kind::Bench);
        c.report_manifest = Some("my suite.toml".into());
        let s = merge_script(&c);
        assert!(s.contains(r#""$ssalab" merge --out "$campaign" "$campaign"/shards/[0-9]*"#));
        assert!(s.contains(
            "report --in \"$campaign\" --out \"$campaign\" --quiet --manifest 'my suite.toml'"
        ));
        assert!(!merge_script(&campaign(Kind::Fuzz)).contains("report"));
    }
}
