//! Hostile conditions for every subcommand (issue 27): a full stdout (`> /dev/full`) is an
//! error with a message and status 1, a closed pipe is a quiet exit with status 141, never a
//! panic; `run` refuses a program without `main`; limits name themselves and how to raise
//! them.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn ssalab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ssalab"))
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssalab-cli-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn temp(name: &str, text: &str) -> String {
    let p = scratch().join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

const HELLO_C: &str =
    "int printf(const char *, ...);\nint main(void) { printf(\"hello\\n\"); return 0; }\n";

/// A program whose listing is far larger than a pipe buffer, so that a closed pipe is met.
fn big_asm() -> String {
    let mut s = String::from(".target st231\nmain:\n");
    for _ in 0..20_000 {
        s.push_str(" mov $r16 = 1 ;;\n");
    }
    s.push_str(" return $r63 ;;\n");
    temp("big.s", &s)
}

/// Every subcommand that writes to stdout, with arguments that make it write.
fn writers() -> Vec<(&'static str, Vec<String>)> {
    let hello = temp("hello.c", HELLO_C);
    let asm = big_asm();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        ("configs", s(&["configs"])),
        ("disasm", s(&["disasm", &asm])),
        ("fuzz gen", s(&["fuzz", "gen", "--size", "large"])),
        ("bench --list", s(&["bench", "--list", "--configs", "all"])),
        (
            "throughput",
            s(&[
                "throughput",
                "--repeat",
                "1",
                &hello,
                "--random-insts",
                "2000",
            ]),
        ),
        (
            "throughput --out-of-ssa",
            s(&[
                "throughput",
                "--out-of-ssa",
                "--configs",
                "S3",
                "--random-insts",
                "300",
                "--repeat",
                "1",
            ]),
        ),
        (
            "throughput --backend",
            s(&[
                "throughput",
                "--backend",
                "--random-insts",
                "30",
                "--targets",
                "st231",
                "--repeat",
                "1",
            ]),
        ),
        ("interp", s(&["interp", &hello])),
        ("run", s(&["run", "-q", &hello])),
        ("compile", s(&["compile", "--emit", "asm", &hello])),
        ("asm -o -", s(&["asm", "-o", "-", &asm])),
    ]
}

fn no_panic(name: &str, out: &Output) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{name}: {err}");
    assert_ne!(out.status.code(), Some(101), "{name}: {err}");
}

#[test]
fn a_full_stdout_is_an_error_with_status_1() {
    for (name, args) in writers() {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = ssalab().args(&args).stdout(full).output().unwrap();
        no_panic(name, &out);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(err.contains("cannot write stdout"), "{name}: {err}");
    }
}

#[test]
fn a_closed_pipe_is_a_quiet_exit() {
    for (name, args) in writers() {
        // The pipe's read end is closed before the child starts, so its first write fails
        // whatever the timing (closing it after the spawn raced with short outputs).
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let child = ssalab()
            .args(&args)
            .stdout(writer)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = child.wait_with_output().unwrap();
        no_panic(name, &out);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(141), "{name}: {err}");
        assert!(!err.contains("cannot write"), "{name}: {err}");
    }
}

#[test]
fn a_closed_stderr_does_not_panic() {
    let bad = temp("bad.c", "int main(void) { return nope; }\n");
    let out = ssalab()
        .args(["interp", &bad])
        .stderr(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn run_refuses_a_program_without_main() {
    for (name, text, want) in [
        (
            "nomain.c",
            "int f(void) { return 3; }\n",
            "has no `main` function",
        ),
        (
            "intmain.c",
            "int main;\nint f(void) { return main; }\n",
            "`main` is not a function",
        ),
    ] {
        let file = temp(name, text);
        let out = ssalab().args(["run", "-q", &file]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(err.contains(want), "{name}: {err}");
        // The object of such a program is refused too.
        let obj = scratch().join(format!("{name}.o"));
        let c = ssalab()
            .args(["compile", &file, "-o", &obj.display().to_string()])
            .output()
            .unwrap();
        assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
        let out = ssalab()
            .args(["run", "-q", &obj.display().to_string()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{name}.o");
    }
}

#[test]
fn write_errors_on_files_are_status_1() {
    let hello = temp("hello2.c", HELLO_C);
    for args in [
        vec!["compile", &hello, "-o", "/nonexistent-dir/x.o"],
        vec!["run", "-q", &hello, "--stats-csv", "/nonexistent-dir/x.csv"],
        vec![
            "run",
            "-q",
            &hello,
            "--stats-json",
            "/nonexistent-dir/x.json",
        ],
    ] {
        let out = ssalab().args(&args).output().unwrap();
        no_panic("file", &out);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("/nonexistent-dir/"), "{err}");
    }
}

#[test]
fn the_image_limit_names_itself_and_can_be_raised() {
    let src = temp(
        "space.s",
        ".target st231\nmain:\n return $r63 ;;\n.bss\nbuf: .space 100000000\n",
    );
    let out = ssalab().args(["asm", &src, "-o", "-"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("limit of 67108864 bytes") && err.contains("SSALAB_MAX_IMAGE_BYTES"),
        "{err}"
    );
    let out = ssalab()
        .args(["asm", &src, "-o", "-"])
        .env("SSALAB_MAX_IMAGE_BYTES", "200000000")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn flags_that_would_make_work_huge_are_bounded() {
    let hello = temp("hello3.c", HELLO_C);
    let out = ssalab()
        .args([
            "throughput",
            &hello,
            "--random-insts",
            "18446744073709551615",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("limit of 1000000") && err.contains("--random-insts-limit"),
        "{err}"
    );
    let out = ssalab()
        .args(["run", "-q", &hello, "--mem-size", "4294967295"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("SSALAB_MAX_MEM_BYTES"), "{err}");
}

/// A manifest beside one program, with `kernels` as given.
fn manifest_with(name: &str, kernels: &str) -> String {
    let dir = scratch().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.c"), HELLO_C).unwrap();
    let m = dir.join("m.toml");
    std::fs::write(
        &m,
        format!(
            "version = 1\ndefault_targets = [\"st231\"]\n[[program]]\npath = \"a.c\"\ngroup = \"dsp\"\nkernels = [{kernels}]\n"
        ),
    )
    .unwrap();
    m.display().to_string()
}

#[test]
fn huge_manifests_are_linear_and_bounded() {
    // 10^5 kernels: listed (and checked) in well under a second each way, not minutes.
    let many: Vec<String> = (0..100_000).map(|i| format!("\"k{i}\"")).collect();
    let m = manifest_with("many", &many.join(", "));
    let t = std::time::Instant::now();
    let out = ssalab()
        .args(["bench", "--manifest", &m, "--list", "--configs", "baseline"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(t.elapsed().as_secs() < 20, "{:?}", t.elapsed());
    // 10^5 problems on one line: the first 100 are located, the rest counted.
    let dup = vec!["\"k\""; 100_000].join(", ");
    let m = manifest_with("dup", &dup);
    let out = ssalab()
        .args(["bench", "--manifest", &m, "--list"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(err.matches("listed twice").count(), 100, "{}", &err[..500]);
    assert!(
        err.contains("and 99899 more problems"),
        "{}",
        &err[err.len() - 300..]
    );
    // The size limit names itself and its variable.
    let out = ssalab()
        .args(["bench", "--manifest", &m, "--list"])
        .env("SSALAB_MAX_MANIFEST_BYTES", "1000")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("limit of 1000 bytes") && err.contains("SSALAB_MAX_MANIFEST_BYTES"),
        "{err}"
    );
}

#[test]
fn bench_manifest_compiles_the_files_beside_it() {
    // A program that exists only beside this manifest (not in the checkout's programs/).
    let dir = scratch().join("beside");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("only_here.c"),
        "int printf(const char *, ...);\nint twice(int x) { return 2 * x; }\nint main(void) { printf(\"%d\\n\", twice(21)); return 0; }\n",
    )
    .unwrap();
    let m = dir.join("m.toml");
    std::fs::write(
        &m,
        "version = 1\ndefault_targets = [\"st231\"]\n[[program]]\npath = \"only_here.c\"\ngroup = \"dsp\"\nkernels = [\"twice\"]\n",
    )
    .unwrap();
    let out_dir = dir.join("out");
    let out = ssalab()
        .args(["bench", "-q", "--configs", "baseline", "--manifest"])
        .arg(&m)
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let csv = std::fs::read_to_string(out_dir.join("functions.csv")).unwrap();
    assert!(csv.contains("only_here.c,twice,st231,baseline,,"), "{csv}");
    assert!(csv.contains(",ok,"), "{csv}");
}

/// A manifest of three small C programs beside it, for real sweeps.
fn small_suite(name: &str) -> PathBuf {
    let dir = scratch().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut m = String::from("version = 1\ndefault_targets = [\"st231\", \"st120\"]\n");
    for i in 1..=3 {
        std::fs::write(
            dir.join(format!("p{i}.c")),
            format!(
                "int printf(const char *, ...);\nint f{i}(int x) {{ return x * {i} + 1; }}\nint main(void) {{ printf(\"%d\\n\", f{i}(5)); return 0; }}\n"
            ),
        )
        .unwrap();
        m += &format!("[[program]]\npath = \"p{i}.c\"\ngroup = \"dsp\"\nkernels = [\"f{i}\"]\n");
    }
    std::fs::write(dir.join("m.toml"), m).unwrap();
    dir
}

fn journal_ends(dir: &std::path::Path) -> usize {
    std::fs::read_to_string(dir.join("bench-journal.csv"))
        .map(|t| t.lines().filter(|l| l.starts_with("end,")).count())
        .unwrap_or(0)
}

#[test]
fn a_killed_sweep_resumes_to_the_same_files() {
    let dir = small_suite("kill");
    let sweep = |out: &str| {
        let mut c = ssalab();
        c.current_dir(&dir).args([
            "bench",
            "--manifest",
            "m.toml",
            "--configs",
            "all",
            "--no-times",
            "-q",
            "-j",
            "1",
            "--out",
            out,
        ]);
        c
    };
    let whole = sweep("whole").output().unwrap();
    assert!(whole.status.code().is_some(), "{whole:?}");
    let mut child = sweep("cut").stderr(Stdio::null()).spawn().unwrap();
    let cut = dir.join("cut");
    let start = std::time::Instant::now();
    while journal_ends(&cut) < 3 {
        assert!(start.elapsed().as_secs() < 120, "no job finished");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();
    let done = journal_ends(&cut);
    assert!(
        done >= 3 && !cut.join("runs.toml").exists(),
        "killed too late ({done})"
    );
    let resumed = ssalab()
        .current_dir(&dir)
        .args(["bench", "--resume", "cut", "-q", "-j", "2"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(resumed.status.code(), whole.status.code(), "{err}");
    assert!(
        err.contains(&format!("{done} jobs taken from the journal")),
        "{err}"
    );
    for f in ["functions.csv", "jobs.csv", "runs.toml"] {
        let a = std::fs::read(dir.join("whole").join(f)).unwrap();
        let b = std::fs::read(cut.join(f)).unwrap();
        assert!(a == b, "{f} differs after resuming");
    }
    assert!(!cut.join("bench-journal.csv").exists());
}

#[test]
fn fuzz_save_to_an_unwritable_directory_is_an_error_before_starting() {
    let blocker = scratch().join("not-a-dir");
    std::fs::write(&blocker, "x").unwrap();
    let out = ssalab()
        .args(["fuzz", "run", "--count", "1", "--save"])
        .arg(blocker.join("sub"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("--save") && err.contains("not-a-dir"), "{err}");
}

#[test]
fn ctrl_c_during_run_prints_the_counters_so_far() {
    let spin = temp(
        "spin.c",
        "int printf(const char *, ...);\nint spin(int n) { int s = 0; while (n) { s = s * 3 + n; n = n | 1; } return s; }\nint main(void) { printf(\"start\\n\"); return spin(1); }\n",
    );
    for target in ["st231", "st120"] {
        let child = ssalab()
            .args([
                "run",
                "--target",
                target,
                &spin,
                "--max-cycles",
                "1000000000000",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1500));
        // SAFETY: sends SIGINT to our own child process.
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "{target}: {err}");
        assert!(
            err.contains("INTERRUPTED (Ctrl-C), counters so far"),
            "{err}"
        );
        assert!(err.contains("spin") && err.contains("<total>"), "{err}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "start\n");
    }
}

#[test]
fn endless_or_huge_inputs_are_refused_before_reading() {
    for args in [
        vec!["disasm", "/dev/zero"],
        vec!["run", "/dev/zero"],
        vec!["asm", "/dev/zero", "-o", "-"],
        vec!["compile", "/dev/zero"],
        vec!["interp", "/dev/zero"],
        vec!["throughput", "/dev/zero"],
    ] {
        let out = ssalab().args(&args).output().unwrap();
        no_panic("input", &out);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(matches!(out.status.code(), Some(1 | 2)), "{args:?}: {err}");
        assert!(
            err.contains("/dev/zero: not a regular file"),
            "{args:?}: {err}"
        );
    }
    let hello = temp("hello4.c", HELLO_C);
    let out = ssalab()
        .args(["compile", &hello, "--emit", "asm"])
        .env("SSALAB_MAX_INPUT_BYTES", "10")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("beyond the input limit of 10 bytes")
            && err.contains("SSALAB_MAX_INPUT_BYTES"),
        "{err}"
    );
}

/// A sweep output of one job (program `a.c` of the manifest beside it, target st231,
/// configuration `baseline`) whose `functions.csv` rows are `rows` (each `(function, cycles)`,
/// every other count 1), written into `name` under the scratch directory; the manifest's
/// path is returned beside the directory.
fn sweep_output(name: &str, rows: &[(&str, &str)]) -> (PathBuf, String) {
    use ssalab::bench::output::{JobPart, JobRecord, OutputFiles, SweepDefinition};
    let kernels: Vec<String> = rows.iter().map(|r| format!("\"{}\"", r.0)).collect();
    let manifest = manifest_with(&format!("{name}-m"), &kernels.join(", "));
    let row = |function: &str, cycles: &str| -> Vec<String> {
        let mut v: Vec<String> = ["a.c", function, "st231", "baseline", ""]
            .iter()
            .map(|s| s.to_string())
            .collect();
        v.extend((0..15).map(|k| {
            if k == 9 {
                cycles.to_string()
            } else {
                "1".into()
            }
        }));
        v.push("ok".into());
        v.extend((0..17).map(|_| "0".to_string()));
        v
    };
    let part = JobPart {
        job: JobRecord {
            index: 0,
            program: "a.c".into(),
            target: "st231".into(),
            config: "baseline".into(),
            regs: String::new(),
            status: "ok".into(),
            functions: rows.len(),
            compile_us: 0,
            simulate_us: 0,
        },
        rows: rows.iter().map(|&(f, c)| row(f, c)).collect(),
    };
    let sweep = SweepDefinition {
        manifest_fingerprint: "0".into(),
        job_list_fingerprint: "0".into(),
        jobs_total: 1,
        targets: vec!["st231".into()],
        configs: vec!["baseline".into()],
        programs: vec![],
        groups: vec![],
        regs: None,
        all_functions: false,
        no_times: true,
    };
    let dir = scratch().join(name);
    OutputFiles::from_parts(vec![part], "m.toml", sweep, None)
        .write(&dir)
        .unwrap();
    (dir, manifest)
}

/// Replaces `from` by `to` in `dir/file` (which must contain it).
fn edit(dir: &std::path::Path, file: &str, from: &str, to: &str) {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{file}: no `{from}` in\n{text}");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
}

/// `report` and `merge` of `dir`: both must fail with status 1, no panic, and say `want`
/// (every fragment).
fn report_and_merge_refuse(dir: &std::path::Path, manifest: &str, want: &[&str]) {
    let d = dir.display().to_string();
    let out_dir = dir.with_extension("out").display().to_string();
    let report = [
        "report",
        "--in",
        &d,
        "--out",
        &out_dir,
        "--manifest",
        manifest,
        "-q",
    ];
    let merge = ["merge", "--out", &out_dir, &d];
    for args in [&report[..], &merge[..]] {
        let t = std::time::Instant::now();
        let out = ssalab().args(args).output().unwrap();
        no_panic(args[0], &out);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        for w in want {
            assert!(err.contains(w), "{args:?}: no `{w}` in {err}");
        }
        // Refused before any work proportional to the bad value.
        assert!(t.elapsed().as_secs() < 20, "{args:?}: {:?}", t.elapsed());
    }
}

#[test]
fn huge_job_counts_in_runs_toml_are_located_errors() {
    // The output as written is good: report and merge accept it.
    let (dir, m) = sweep_output("jobs-total", &[("k", "100")]);
    let d = dir.display().to_string();
    let out = ssalab()
        .args(["merge", "--out", &format!("{d}.merged"), &d])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = ssalab()
        .args([
            "report",
            "--in",
            &d,
            "--out",
            &format!("{d}.report"),
            "--manifest",
            &m,
        ])
        .arg("-q")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // jobs_total near 2^63 aborted on allocation (a list of every index).
    edit(
        &dir,
        "runs.toml",
        "jobs_total = 1\n",
        "jobs_total = 9223372036854775807\n",
    );
    report_and_merge_refuse(
        &dir,
        &m,
        &[&d, "jobs_total", "9223372036854775807-job sweep"],
    );
    // A shard count near 2^63 likewise (a merge lists the shards it lacks).
    let (dir, m) = sweep_output("shard-count", &[("k", "100")]);
    edit(
        &dir,
        "runs.toml",
        "[sweep]",
        "shard = \"1/9223372036854775807\"\n\n[sweep]",
    );
    report_and_merge_refuse(&dir, &m, &["runs.toml", "at most 1000000 shards"]);
}

#[test]
fn output_counts_and_statuses_are_checked() {
    // A negative count, NaN, a status outside the vocabulary: merge copied them through.
    for (name, from, to, want) in [
        (
            "negative",
            ",1,1,1,1,1,100,",
            ",1,1,-5,1,1,100,",
            "column dyn_stores: `-5`",
        ),
        (
            "nan",
            "100,1,1,1,1,1,ok,0,0,0",
            "100,1,1,1,1,1,ok,0,0,NaN",
            "column dyn_swaps: `NaN`",
        ),
        ("weird", ",ok,", ",weird,", "`weird` does not fit"),
    ] {
        let (dir, m) = sweep_output(name, &[("k", "100")]);
        edit(&dir, "functions.csv", from, to);
        report_and_merge_refuse(&dir, &m, &["functions.csv:2: column", want]);
    }
    // Counts that each fit but whose sum does not: the tables' totals wrapped around.
    let (dir, m) = sweep_output("overflow", &[("k", "18446744073709551615"), ("k2", "1")]);
    let d = dir.display().to_string();
    let out_dir = dir.with_extension("out").display().to_string();
    let out = ssalab()
        .args([
            "report",
            "--in",
            &d,
            "--out",
            &out_dir,
            "--manifest",
            &m,
            "-q",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("functions.csv:3: column `cycles` adds up beyond 2^64"),
        "{err}"
    );
}

/// Runs `ssalab ARGS`; returns the status and stderr, after checking there was no panic.
fn status_and_stderr(args: &[&str]) -> (Option<i32>, String) {
    let out = ssalab().args(args).output().unwrap();
    no_panic(args[0], &out);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn bad_input_files_exit_1_and_bad_usage_2() {
    // Malformed assembly: a located error (file:line:col) and status 1 (it was 2).
    let s = temp("malformed.s", ".target st231\nmain:\n add $r1 = $r2 ;;\n");
    for args in [
        vec!["asm", &s, "-o", "-"],
        vec!["disasm", &s],
        vec!["run", "-q", &s],
    ] {
        let (code, err) = status_and_stderr(&args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(err.contains("malformed.s:3:"), "{args:?}: {err}");
    }
    // A damaged object and a missing file: named, status 1.
    let damaged = scratch().join("damaged.o");
    std::fs::write(&damaged, b"SSLB\x01\x00garbage").unwrap();
    let damaged = damaged.display().to_string();
    let missing = scratch().join("missing.o").display().to_string();
    for file in [&damaged, &missing] {
        for cmd in ["disasm", "run"] {
            let (code, err) = status_and_stderr(&[cmd, file]);
            assert_eq!(code, Some(1), "{cmd} {file}: {err}");
            assert!(err.contains(file.as_str()), "{cmd} {file}: {err}");
        }
    }
    // Illegal encodings in a well-formed object: `disasm` lists them (as objdump does) and
    // `run` traps on the first (status 70, the trap's own); neither is a usage error.
    let mut obj = simulator::asm::assemble(
        ".target st231\nmain:\n mov $r16 = 1 ;;\n return $r63 ;;\n",
        None,
    )
    .unwrap();
    obj.code.iter_mut().for_each(|b| *b = 0xff);
    let illegal = scratch().join("illegal.o");
    std::fs::write(&illegal, obj.to_bytes()).unwrap();
    let illegal = illegal.display().to_string();
    let out = ssalab().args(["disasm", &illegal]).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("illegal encoding 0xffffffff"));
    let (code, err) = status_and_stderr(&["run", "-q", &illegal]);
    assert_eq!(code, Some(70), "{err}");
    assert!(
        err.contains("illegal encoding 0xffffffff at pc 0x00001000"),
        "{err}"
    );
    // A bad report or merge input is status 1 too; a bad command line stays 2.
    let (code, err) = status_and_stderr(&["merge", "--out", &missing, &missing]);
    assert_eq!(code, Some(1), "{err}");
    for args in [
        vec!["asm"],
        vec!["run", "--max-cycles", "many", &s],
        vec!["disasm", "--target", "st999", &damaged],
    ] {
        let (code, err) = status_and_stderr(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
    }
}

/// A C function whose body is an `else if` chain of `arms` arms, all joining one block.
fn else_if_chain_c(arms: usize) -> String {
    let mut s = String::from("int f(int x) {\n  int r = 0;\n  if (x == 0) r = 1;\n");
    for i in 1..arms {
        s.push_str(&format!("  else if (x == {i}) r = {};\n", 3 * i + 1));
    }
    s.push_str("  return r;\n}\nint main(void) { return f(7); }\n");
    temp(&format!("elif{arms}.c"), &s)
}

/// Seconds `ssalab interp` (front end, SSA, -O2, interpreter) takes on a chain of `arms`;
/// the program must exit with f(7) = 22.
fn interp_seconds(arms: usize) -> f64 {
    let file = else_if_chain_c(arms);
    let t = std::time::Instant::now();
    let out = ssalab().args(["interp", &file]).output().unwrap();
    let seconds = t.elapsed().as_secs_f64();
    assert_eq!(
        out.status.code(),
        Some(22),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    seconds
}

/// Issue 27: a 50,000-arm `else if` chain took about 37 s in the middle end (dominators,
/// dominance frontiers, SCCP's phi and SSA renaming were each O(n^2) on the join of `n`
/// arms); now a few seconds on a loaded two-core machine. Bound: a tenfold chain
/// takes at most 30 times as long (linear: about 10; quadratic: 100), and under 2 minutes.
/// (The back end's register allocator is still quadratic on it: see docs/robustness.md.)
#[test]
fn a_long_else_if_chain_goes_through_the_middle_end_in_near_linear_time() {
    let small = interp_seconds(5_000);
    let large = interp_seconds(50_000);
    assert!(large < 120.0, "50,000 arms: {large:.1} s");
    assert!(
        large < 30.0 * small.max(0.2),
        "5,000 arms {small:.2} s, 50,000 arms {large:.2} s"
    );
}

/// Issue 27: the printf width/precision limit (4096) names itself: a written one beyond it is
/// a compile error (it silently printed a narrower field), a `*` one beyond it stops the
/// interpreter by name; the targets print any `*` width.
#[test]
fn printf_counts_beyond_the_limit_name_it() {
    let written = temp(
        "wide.c",
        "int printf(const char *, ...);\nint main(void) { printf(\"[%5000d]\\n\", 1); return 0; }\n",
    );
    // The interpreter formats at run time: there it is a trap (status 125).
    for (args, status) in [
        (vec!["compile", "--emit", "asm", &written], 1),
        (vec!["interp", &written], 125),
    ] {
        let (code, err) = status_and_stderr(&args);
        assert_eq!(code, Some(status), "{args:?}: {err}");
        assert!(
            err.contains("printf width `5000` is beyond the limit of 4096"),
            "{args:?}: {err}"
        );
    }
    let star = temp(
        "star.c",
        "int printf(const char *, ...);\nint w = 5000;\n\
         int main(void) { printf(\"[%*d]\\n\", w, 1); return 0; }\n",
    );
    let (code, err) = status_and_stderr(&["interp", &star]);
    assert_eq!(code, Some(125), "{err}");
    assert!(
        err.contains("beyond the interpreter's limit of 4096"),
        "{err}"
    );
    let out = ssalab().args(["run", "-q", &star]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout.len(), 5003, "[, 5000 characters, ], newline");
}
