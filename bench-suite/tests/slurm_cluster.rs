//! Sweeps and fuzz campaigns through Slurm (issue 25).
//!
//! * `shard_scripts_without_slurm_*` (always run): the job-array and merge scripts of a
//!   `--slurm --dry-run` campaign, run by bash as Slurm would run them (one
//!   `SLURM_ARRAY_TASK_ID` at a time), leave the status, partial merge and final merge the
//!   issue asks for, byte-identical to one `--no-times` run.
//! * `slurm_*` (a real cluster): run by `.ci/slurm.sh test`, which starts a one-node Slurm and
//!   sets `SSALAB_SLURM_TEST=1`; with it set, any Slurm failure fails the test. Without it they
//!   say so and return (there is no cluster to test against).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const SSALAB: &str = env!("CARGO_BIN_EXE_ssalab");

/// The workspace root: every command runs there, so that the default manifest is recorded
/// as `programs/suite.toml` by the shards and by the reference run alike.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ssalab-slurm-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn ssalab(args: &[&str]) -> Output {
    Command::new(SSALAB)
        .args(args)
        .current_dir(root())
        .output()
        .expect("run ssalab")
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Runs ssalab and requires exit status `code`.
fn ssalab_ok(args: &[&str], code: i32) -> Output {
    let o = ssalab(args);
    assert_eq!(
        o.status.code(),
        Some(code),
        "ssalab {}: {}",
        args.join(" "),
        text(&o)
    );
    o
}

/// Asserts that the files are byte-identical in both directories.
fn same_files(a: &Path, b: &Path, files: &[&str]) {
    for f in files {
        let x = std::fs::read(a.join(f)).unwrap_or_else(|e| panic!("{}/{f}: {e}", a.display()));
        let y = std::fs::read(b.join(f)).unwrap_or_else(|e| panic!("{}/{f}: {e}", b.display()));
        assert!(
            x == y,
            "{f} differs between {} and {}",
            a.display(),
            b.display()
        );
    }
}

const BENCH_FILES: [&str; 3] = ["functions.csv", "jobs.csv", "runs.toml"];
const FUZZ_FILES: [&str; 2] = ["fuzz.csv", "fuzz.toml"];

/// Runs array task `k` of the campaign in `dir` as Slurm would (bash, the task id set).
fn run_task(dir: &Path, k: usize) -> Output {
    Command::new("bash")
        .arg(dir.join("slurm/shard.sbatch"))
        .env("SLURM_ARRAY_TASK_ID", k.to_string())
        .env_remove("SLURM_CPUS_PER_TASK")
        .output()
        .expect("run bash")
}

const SWEEP: [&str; 7] = [
    "--programs",
    "fir,fft,crc",
    "--configs",
    "baseline,L_phi,ABI+C",
    "--no-times",
    "-j",
    "2",
];

#[test]
fn shard_scripts_without_slurm_merge_to_the_single_machine_sweep() {
    let dir = scratch("local-bench");
    let reference = scratch("local-bench-ref");
    let d = dir.to_str().unwrap();
    let mut args = vec![
        "bench",
        "--slurm",
        "--dry-run",
        "--array-size",
        "3",
        "--out",
        d,
    ];
    args.extend(SWEEP);
    let o = ssalab_ok(&args, 0);
    let printed = String::from_utf8_lossy(&o.stdout);
    assert!(printed.contains("#SBATCH --array=1-3"), "{printed}");
    assert!(
        printed.contains("--configs baseline,L_phi,ABI+C"),
        "{printed}"
    );
    // Tasks 1 and 3 run; 2 does not: the status and a partial merge say so.
    for k in [1, 3] {
        let o = run_task(&dir, k);
        assert!(o.status.success(), "task {k}: {}", text(&o));
    }
    let o = ssalab_ok(&["status", d], 1);
    let st = String::from_utf8_lossy(&o.stdout);
    assert!(st.contains("  done         2  1,3\n"), "{st}");
    assert!(st.contains("  missing      1  2\n"), "{st}");
    assert!(
        st.contains(&format!("next: `ssalab bench --resume {d}`")),
        "{st}"
    );
    let partial = scratch("local-bench-partial");
    let p = partial.to_str().unwrap();
    let s1 = format!("{d}/shards/1");
    let s2 = format!("{d}/shards/2");
    let s3 = format!("{d}/shards/3");
    let o = ssalab(&["merge", "--out", p, &s1, &s3]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("missing shard: 2/3"), "{}", text(&o));
    let o = ssalab_ok(&["merge", "--allow-partial", "--out", p, &s1, &s3], 0);
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(
        said.contains("merge: partial: missing shards 2/3 (their 4 jobs are absent)"),
        "{said}"
    );
    let runs = std::fs::read_to_string(partial.join("runs.toml")).unwrap();
    assert!(runs.contains("missing_shards = [\"2/3\"]"), "{runs}");
    // The missing task runs; running a finished one again changes nothing.
    assert!(run_task(&dir, 2).status.success());
    let again = run_task(&dir, 1);
    assert!(String::from_utf8_lossy(&again.stdout).contains("shard 1/3: already done"));
    let o = Command::new("bash")
        .arg(dir.join("slurm/merge.sbatch"))
        .output()
        .unwrap();
    assert!(o.status.success(), "merge job: {}", text(&o));
    assert_eq!(
        std::fs::read_to_string(dir.join("slurm/merge.exit")).unwrap(),
        "0\n"
    );
    let o = ssalab_ok(&["status", d], 0);
    assert!(String::from_utf8_lossy(&o.stdout).contains("merge: merged in"));
    // Byte-identical to one machine's sweep; merging twice writes the same bytes.
    let mut args = vec!["bench", "--quiet", "--out", reference.to_str().unwrap()];
    args.extend(SWEEP);
    ssalab_ok(&args, 0);
    same_files(&dir, &reference, &BENCH_FILES);
    assert!(
        dir.join("tables.md").is_file(),
        "the merge job writes the report"
    );
    let twice = scratch("local-bench-twice");
    let t = twice.to_str().unwrap();
    ssalab_ok(&["merge", "--out", t, &s3, &s1, &s2], 0);
    ssalab_ok(&["merge", "--out", t, &s1, &s2, &s3], 0);
    same_files(&twice, &reference, &BENCH_FILES);
    for x in [dir, reference, partial, twice] {
        let _ = std::fs::remove_dir_all(x);
    }
}

const FUZZ: [&str; 14] = [
    "--count",
    "7",
    "--seed",
    "300",
    "--size",
    "tiny",
    "--configs",
    "baseline",
    "--targets",
    "st231",
    "--regs",
    "full",
    "--opt",
    "O2",
];

#[test]
fn fuzz_shards_without_slurm_merge_to_one_campaign() {
    let dir = scratch("local-fuzz");
    let reference = scratch("local-fuzz-ref");
    let d = dir.to_str().unwrap();
    let mut args = vec![
        "fuzz",
        "run",
        "--slurm",
        "--dry-run",
        "--array-size",
        "3",
        "--out",
        d,
    ];
    args.extend(FUZZ);
    ssalab_ok(&args, 0);
    for k in 1..=3 {
        let o = run_task(&dir, k);
        assert!(o.status.success(), "task {k}: {}", text(&o));
    }
    let o = Command::new("bash")
        .arg(dir.join("slurm/merge.sbatch"))
        .output()
        .unwrap();
    assert!(o.status.success(), "merge job: {}", text(&o));
    let mut args = vec![
        "fuzz",
        "run",
        "-j",
        "2",
        "--out",
        reference.to_str().unwrap(),
    ];
    args.extend(FUZZ);
    ssalab_ok(&args, 0);
    same_files(&dir, &reference, &FUZZ_FILES);
    let csv = std::fs::read_to_string(reference.join("fuzz.csv")).unwrap();
    assert_eq!(csv.lines().count(), 8, "{csv}");
    ssalab_ok(&["status", d], 0);
    for x in [dir, reference] {
        let _ = std::fs::remove_dir_all(x);
    }
}

// ---------------------------------------------------------------------------------------------
// Against a real Slurm (.ci/slurm.sh test)
// ---------------------------------------------------------------------------------------------

/// Whether the Slurm tests are to run (`SSALAB_SLURM_TEST=1`, set by `.ci/slurm.sh`).
fn slurm_wanted(test: &str) -> bool {
    let on = std::env::var("SSALAB_SLURM_TEST").is_ok_and(|v| v == "1");
    if !on {
        eprintln!(
            "{test}: not run: no Slurm cluster (`bash .ci/slurm.sh test` starts one and runs it)"
        );
    }
    on
}

/// Waits for the campaign's merge job to record its exit status; returns it.
fn wait_for_merge(dir: &Path, limit: Duration) -> String {
    let start = Instant::now();
    let exit = dir.join("slurm/merge.exit");
    while start.elapsed() < limit {
        if let Ok(t) = std::fs::read_to_string(&exit) {
            return t.trim().to_string();
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let st = ssalab(&["status", dir.to_str().unwrap()]);
    panic!("no merge after {limit:?}:\n{}", text(&st));
}

/// Waits until nothing of the campaign is queued any more (`ssalab status` shows no running
/// or pending shard and no queued merge job).
fn wait_until_idle(dir: &Path, limit: Duration) -> String {
    let start = Instant::now();
    loop {
        let o = ssalab(&["status", dir.to_str().unwrap()]);
        let st = String::from_utf8_lossy(&o.stdout).to_string();
        let busy = ["  running ", "  pending ", "merge: merge job"]
            .iter()
            .any(|w| st.contains(w));
        if !busy {
            return st;
        }
        assert!(
            start.elapsed() < limit,
            "still queued after {limit:?}:\n{st}"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
}

#[test]
fn slurm_sweep_and_fuzz_campaign_match_local_runs() {
    if !slurm_wanted("slurm_sweep_and_fuzz_campaign_match_local_runs") {
        return;
    }
    let sweep = scratch("cluster-bench");
    let fuzz = scratch("cluster-fuzz");
    let (s, f) = (sweep.to_str().unwrap(), fuzz.to_str().unwrap());
    let mut args = vec![
        "bench",
        "--slurm",
        "--array-size",
        "3",
        "--time",
        "10",
        "--out",
        s,
    ];
    args.extend(SWEEP);
    let o = ssalab_ok(&args, 0);
    assert!(String::from_utf8_lossy(&o.stdout).contains("submitted array job"));
    let mut args = vec!["fuzz", "run", "--slurm", "--array-size", "3", "--out", f];
    args.extend(FUZZ);
    ssalab_ok(&args, 0);
    assert_eq!(wait_for_merge(&sweep, Duration::from_secs(600)), "0");
    assert_eq!(wait_for_merge(&fuzz, Duration::from_secs(600)), "0");
    let o = ssalab_ok(&["status", s], 0);
    let st = String::from_utf8_lossy(&o.stdout);
    assert!(st.contains("  done         3  1-3\n"), "{st}");
    ssalab_ok(&["status", f], 0);
    let reference = scratch("cluster-bench-ref");
    let mut args = vec!["bench", "--quiet", "--out", reference.to_str().unwrap()];
    args.extend(SWEEP);
    ssalab_ok(&args, 0);
    same_files(&sweep, &reference, &BENCH_FILES);
    let fuzz_reference = scratch("cluster-fuzz-ref");
    let mut args = vec!["fuzz", "run", "--out", fuzz_reference.to_str().unwrap()];
    args.extend(FUZZ);
    ssalab_ok(&args, 0);
    same_files(&fuzz, &fuzz_reference, &FUZZ_FILES);
    // Resuming a finished campaign submits nothing.
    let o = ssalab_ok(&["bench", "--resume", s], 0);
    assert!(String::from_utf8_lossy(&o.stdout).contains("nothing to resume"));
    for x in [sweep, fuzz, reference, fuzz_reference] {
        let _ = std::fs::remove_dir_all(x);
    }
}

/// The sweep of the kill test: 104 jobs, about 4 s per shard of 2.
const KILL_SWEEP: [&str; 5] = [
    "--programs",
    "dsp/*",
    "--configs",
    "baseline,C",
    "--no-times",
];

#[test]
fn slurm_killed_task_is_resumed_to_the_same_result() {
    if !slurm_wanted("slurm_killed_task_is_resumed_to_the_same_result") {
        return;
    }
    let dir = scratch("cluster-kill");
    let d = dir.to_str().unwrap();
    let mut args = vec!["bench", "--slurm", "--array-size", "2", "--out", d];
    args.extend(KILL_SWEEP);
    ssalab_ok(&args, 0);
    let campaign = std::fs::read_to_string(dir.join("slurm/campaign.toml")).unwrap();
    let array_job = campaign
        .lines()
        .find_map(|l| l.strip_prefix("array_job = \""))
        .and_then(|l| l.strip_suffix('"'))
        .expect("the array job id in campaign.toml")
        .to_string();
    // Kill task 2 as soon as it has started.
    let started = dir.join("slurm/tasks/2.started");
    let t0 = Instant::now();
    while !started.exists() {
        assert!(
            t0.elapsed() < Duration::from_secs(300),
            "task 2 never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(500));
    let o = Command::new("scancel")
        .arg(format!("{array_job}_2"))
        .output()
        .expect("run scancel");
    assert!(o.status.success(), "scancel: {}", text(&o));
    let st = wait_until_idle(&dir, Duration::from_secs(600));
    assert!(st.contains("  done         1  1\n"), "{st}");
    assert!(
        st.contains("  failed       1  2\n") || st.contains("  lost         1  2\n"),
        "task 2 was killed before it finished, yet:\n{st}"
    );
    assert!(st.contains("merge: not merged"), "{st}");
    assert!(!dir.join("shards/2").exists());
    // The partial merge says what is missing.
    let partial = scratch("cluster-kill-partial");
    let o = ssalab_ok(
        &[
            "merge",
            "--allow-partial",
            "--out",
            partial.to_str().unwrap(),
            &format!("{d}/shards/1"),
        ],
        0,
    );
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("missing shards 2/2 (their 52 jobs are absent)"),
        "{}",
        text(&o)
    );
    // Resume: only shard 2 is resubmitted, then merged.
    let o = ssalab_ok(&["bench", "--resume", d], 0);
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.contains("1 shard task (2)"), "{said}");
    assert_eq!(wait_for_merge(&dir, Duration::from_secs(600)), "0");
    ssalab_ok(&["status", d], 0);
    let reference = scratch("cluster-kill-ref");
    let mut args = vec!["bench", "--quiet", "--out", reference.to_str().unwrap()];
    args.extend(KILL_SWEEP);
    ssalab_ok(&args, 0);
    same_files(&dir, &reference, &BENCH_FILES);
    for x in [dir, partial, reference] {
        let _ = std::fs::remove_dir_all(x);
    }
}

#[test]
fn a_task_runs_the_shard_of_the_sweep_as_given() {
    // Every sweep option reaches the array script: task 1's shard equals `--shard 1/2`.
    let dir = scratch("local-args");
    let direct = scratch("local-args-direct");
    let d = dir.to_str().unwrap();
    let sweep = [
        "--manifest",
        "programs/suite.toml",
        "--groups",
        "dsp",
        "--programs",
        "f*,crc",
        "--targets",
        "st120",
        "--configs",
        "L_phi,ABI+C",
        "--regs",
        "8",
        "--all-functions",
        "--no-times",
    ];
    let mut args = vec![
        "bench",
        "--slurm",
        "--dry-run",
        "--array-size",
        "2",
        "--out",
        d,
    ];
    args.extend(sweep);
    ssalab_ok(&args, 0);
    let o = run_task(&dir, 1);
    assert!(o.status.success(), "task 1: {}", text(&o));
    let mut args = vec![
        "bench",
        "-q",
        "--shard",
        "1/2",
        "--out",
        direct.to_str().unwrap(),
    ];
    args.extend(sweep);
    ssalab_ok(&args, 0);
    same_files(&dir.join("shards/1"), &direct, &BENCH_FILES);
    let runs = std::fs::read_to_string(direct.join("runs.toml")).unwrap();
    assert!(
        runs.contains("regs = 8") && runs.contains("all_functions = true"),
        "{runs}"
    );
    for x in [dir, direct] {
        let _ = std::fs::remove_dir_all(x);
    }
}
