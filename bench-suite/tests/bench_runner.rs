//! The bench sweep with fake deterministic executors: output identical for any `-j`, shards
//! merged equal to an unsharded run, failures and panics recorded with the exit status
//! reflecting them, manifest errors located, filters applied; plus the real manifest.
//!
//! The `ssalab bench` / `ssalab merge` command-line code (`src/cmd/bench.rs`) is compiled into
//! this test through `#[path]`, so its argument parsing and exit statuses are tested too.

#[path = "../src/cmd/bench.rs"]
#[allow(dead_code)]
mod bench_cmd;

use clap::{Parser, Subcommand};
use simulator::isa::Target;
use ssalab::bench::jobs::{plan, ConfigCatalog, Selection};
use ssalab::bench::journal::{Journal, JOURNAL_FILE, JOURNAL_HEADER};
use ssalab::bench::manifest::Manifest;
use ssalab::bench::merge::{merge, merge_dirs};
use ssalab::bench::output::{JobPart, RowOptions};
use ssalab::bench::output::{OutputFiles, FUNCTIONS_FILE, JOBS_FILE, RUNS_FILE};
use ssalab::bench::runner::RunnerOptions;
use ssalab::bench::sweep::{journal_header, run_sweep, SweepOptions};
use ssalab::bench::{Executor, FunctionRow, Job, JobOutcome, JobStatus};
use ssalab::programs::{c_programs, programs_root};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

const MANIFEST: &str = r#"
version = 1
default_targets = ["st231", "st120"]

[[program]]
path = "dsp/fir.c"
group = "dsp"
kernels = ["fir_q15", "fir_q15_ptr"]

[[program]]
path = "dsp/fft.c"
group = "dsp"
kernels = ["fft_q15", "peak_bin"]

[[program]]
path = "dsp/bad.c"
group = "dsp"
kernels = ["bad"]

[[program]]
path = "codec/lpc.c"
group = "codec"
kernels = ["Levinson", "Autocorr"]
targets = ["st120"]

[[program]]
path = "codec/boom.c"
group = "codec"
kernels = ["boom"]

[[program]]
path = "features/loops.c"
group = "feature"
kernels = []
"#;

/// Functions each fake program has (kernels plus non-kernels).
fn functions_of(program: &str) -> &'static [&'static str] {
    match program {
        "dsp/fir.c" => &["main", "fir_q15", "fir_q15_ptr", "helper"],
        "dsp/fft.c" => &["main", "peak_bin", "fft_q15"],
        "dsp/bad.c" => &["main", "bad"],
        "codec/lpc.c" => &["main", "Autocorr", "Levinson", "Lag_window"],
        "codec/boom.c" => &["main", "boom"],
        "features/loops.c" => &["main", "loop_sum"],
        _ => &[],
    }
}

const CONFIGS: [&str; 3] = ["base", "sreedhar", "boissinot"];

fn catalog() -> ConfigCatalog {
    ConfigCatalog {
        available: CONFIGS.iter().map(|s| s.to_string()).collect(),
        default: vec!["base".into(), "boissinot".into()],
    }
}

/// A scratch directory (fresh) for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssalab-bench-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A programs directory with the fixture manifest and (empty) program files.
fn suite(name: &str) -> (PathBuf, Manifest) {
    let dir = scratch(name);
    let root = dir.join("programs");
    for p in [
        "dsp/fir.c",
        "dsp/fft.c",
        "dsp/bad.c",
        "codec/lpc.c",
        "codec/boom.c",
        "features/loops.c",
    ] {
        let f = root.join(p);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(&f, "int main(void) { return 0; }\n").unwrap();
    }
    let file = root.join("suite.toml");
    std::fs::write(&file, MANIFEST).unwrap();
    let m = Manifest::load(&file).unwrap();
    (dir, m)
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A deterministic executor: every number is derived from a hash of the job and function.
/// `dsp/bad.c` fails on st120 (wrong output), `codec/boom.c` panics under `sreedhar`.
/// Jobs sleep 0-3 ms so that, with several workers, they finish out of order.
struct Fake;

impl Executor for Fake {
    fn run(&self, job: &Job) -> JobOutcome {
        let h = fnv(&job.label());
        std::thread::sleep(Duration::from_millis(h % 4));
        if job.program == "dsp/bad.c" && job.target == Target::St120 {
            return JobOutcome::failed("wrong output:\nline 2: expected 5, got 6");
        }
        if job.program == "codec/boom.c" && job.config == "sreedhar" {
            panic!("index out of bounds: the len is 3 but the index is 7");
        }
        let functions = functions_of(&job.program)
            .iter()
            .map(|f| {
                let g = fnv(&format!("{} {f}", job.label()));
                let n = |k: u32| (g >> k) % 1000;
                FunctionRow {
                    function: f.to_string(),
                    moves_ssa_out: n(0),
                    moves_coalesced: n(3),
                    moves_final: n(6),
                    weighted_moves: n(9),
                    dyn_moves: n(12),
                    dyn_loads: n(15),
                    dyn_stores: n(18),
                    dyn_spill_loads: n(21),
                    dyn_spill_stores: n(24),
                    cycles: n(27) + 1000,
                    stall_cycles: n(30),
                    bundles: n(33),
                    ops: n(36),
                    code_bytes: n(39) * 4,
                    compile_us: n(42) + u64::from(job.regs.unwrap_or(0)),
                    calls: n(45),
                    incl_cycles: n(48) + 2000,
                    dyn_swaps: n(51) % 3,
                    taken_branches: n(54),
                    ..FunctionRow::default()
                }
            })
            .collect();
        JobOutcome {
            status: JobStatus::Ok,
            functions,
            compile_seconds: (h % 1000) as f64 / 1e4,
            simulate_seconds: ((h >> 10) % 1000) as f64 / 1e4,
        }
    }
}

fn options(out: &Path, workers: usize) -> SweepOptions {
    SweepOptions {
        selection: Selection {
            configs: CONFIGS.iter().map(|s| s.to_string()).collect(),
            ..Selection::default()
        },
        shard: None,
        all_functions: false,
        no_times: false,
        runner: RunnerOptions {
            workers,
            progress: false,
            print_failures: false,
        },
        out_dir: Some(out.to_path_buf()),
        resume: false,
        report: false,
    }
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

/// The three files of an output directory.
fn files(dir: &Path) -> [String; 3] {
    [FUNCTIONS_FILE, JOBS_FILE, RUNS_FILE].map(|n| read(dir, n))
}

// ---------------------------------------------------------------------------------------------
// Determinism, shards, merge
// ---------------------------------------------------------------------------------------------

#[test]
fn output_is_identical_for_any_number_of_workers() {
    let (dir, m) = suite("workers");
    let mut outputs = Vec::new();
    for workers in [1, 2, 5] {
        let out = dir.join(format!("j{workers}"));
        let mut o = options(&out, workers);
        o.no_times = true;
        let report = run_sweep(&m, &o, &Fake).unwrap();
        // 5 programs on 2 targets + lpc on st120 only = 11 target slots, × 3 configs.
        assert_eq!(report.results.len(), 33);
        outputs.push(files(&out));
    }
    assert_eq!(outputs[0], outputs[1], "-j 1 and -j 2 differ");
    assert_eq!(outputs[0], outputs[2], "-j 1 and -j 5 differ");
    // The content is what the fake computed: every kernel of every passing job, in
    // manifest order, and nothing for the feature program without kernels.
    let csv = &outputs[0][0];
    let fir: Vec<&str> = csv
        .lines()
        .filter(|l| l.starts_with("dsp/fir.c,"))
        .map(|l| l.split(',').nth(1).unwrap())
        .collect();
    assert_eq!(fir, ["fir_q15", "fir_q15_ptr"].repeat(6));
    assert!(!csv.contains("features/loops.c"));
    assert!(!csv.contains(",main,") && !csv.contains(",helper,"));
    assert!(outputs[0][1].contains("features/loops.c,st231,base,,ok,0,0,0"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn three_shards_merged_equal_the_unsharded_run() {
    let (dir, m) = suite("shards");
    // Times are deterministic in the fake, so they are compared too.
    let whole = dir.join("whole");
    run_sweep(&m, &options(&whole, 2), &Fake).unwrap();
    let mut shard_dirs = Vec::new();
    let mut jobs_in_shards = 0;
    for k in [2, 3, 1] {
        let out = dir.join(format!("shard{k}"));
        let mut o = options(&out, 2);
        o.shard = Some(format!("{k}/3").parse().unwrap());
        let r = run_sweep(&m, &o, &Fake).unwrap();
        assert!(r.results.iter().all(|x| x.planned.index % 3 == k - 1));
        jobs_in_shards += r.results.len();
        assert!(read(&out, RUNS_FILE).contains(&format!("shard = \"{k}/3\"")));
        shard_dirs.push(out);
    }
    assert_eq!(jobs_in_shards, 33);
    let merged = dir.join("merged");
    merge_dirs(&shard_dirs, &merged).unwrap();
    assert_eq!(files(&merged), files(&whole));
    // Through the command line as well, with --no-times.
    let whole = dir.join("whole-nt");
    let args = |extra: &[&str]| {
        let mut v = vec![
            "--manifest",
            m.file.to_str().unwrap(),
            "--configs",
            "all",
            "--no-times",
            "-q",
        ];
        v.extend_from_slice(extra);
        v.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let out = whole.to_str().unwrap();
    assert_eq!(bench(&args(&["--out", out, "-j", "1"])), ExitCode::from(1));
    let mut dirs = Vec::new();
    for k in 1..=3 {
        let d = dir.join(format!("nt{k}"));
        let shard = format!("{k}/3");
        bench(&args(&[
            "--out",
            d.to_str().unwrap(),
            "--shard",
            &shard,
            "-j",
            "2",
        ]));
        dirs.push(d.to_str().unwrap().to_string());
    }
    let merged = dir.join("merged-nt");
    let mut margs = dirs.clone();
    margs.extend(["--out".to_string(), merged.to_str().unwrap().to_string()]);
    assert_eq!(merge_cli(&margs), ExitCode::SUCCESS);
    assert_eq!(files(&merged), files(&whole));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn merge_rejects_inconsistent_shards() {
    let (dir, m) = suite("badmerge");
    let run = |name: &str, shard: &str, configs: &[&str]| {
        let out = dir.join(name);
        let mut o = options(&out, 2);
        o.no_times = true;
        o.shard = Some(shard.parse().unwrap());
        o.selection.configs = configs.iter().map(|s| s.to_string()).collect();
        run_sweep(&m, &o, &Fake).unwrap();
        let files = OutputFiles::read(&out).unwrap();
        (out, files)
    };
    let a = run("a", "1/3", &CONFIGS);
    let b = run("b", "2/3", &CONFIGS);
    let c = run("c", "3/3", &CONFIGS);
    let err = |outputs: &[&(PathBuf, OutputFiles)]| {
        let v: Vec<(PathBuf, OutputFiles)> = outputs.iter().map(|x| (*x).clone()).collect();
        merge(&v).unwrap_err()
    };
    assert!(merge(&[a.clone(), b.clone(), c.clone()]).is_ok());
    let e = err(&[&a, &c]);
    assert!(e.contains("missing shard: 2/3"), "{e}");
    let e = err(&[&a, &b, &c, &b]);
    assert!(e.contains("shard 2/3 given twice"), "{e}");
    let other = run("other", "2/3", &["base"]);
    let e = err(&[&a, &other, &c]);
    assert!(
        e.contains("not from the same sweep") && e.contains("configs"),
        "{e}"
    );
    let halves = run("halves", "2/2", &CONFIGS);
    let e = err(&[&a, &halves]);
    assert!(e.contains("holds shard 2/2"), "{e}");
    // A job listed in the wrong shard, a job lost, a row lost.
    let mut moved = b.clone();
    moved.1.jobs[0].index = 0;
    let e = err(&[&a, &moved, &c]);
    assert!(e.contains("does not belong to shard 2/3"), "{e}");
    let mut lost = b.clone();
    let removed = lost.1.jobs.remove(1);
    lost.1.functions.retain(|r| {
        (r[0].as_str(), r[2].as_str(), r[3].as_str())
            != (
                removed.program.as_str(),
                removed.target.as_str(),
                removed.config.as_str(),
            )
    });
    lost.1.runs.results.jobs -= 1;
    lost.1.runs.results.function_rows = lost.1.functions.len();
    let e = err(&[&a, &lost, &c]);
    assert!(
        e.contains("1 of the 11 jobs of shard 2/3 (of the sweep's 33) are missing"),
        "{e}"
    );
    let mut short = b.clone();
    short.1.functions.pop();
    let e = err(&[&a, &short, &c]);
    assert!(e.contains("do not match the CSV files"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------------
// Failures and exit status
// ---------------------------------------------------------------------------------------------

#[test]
fn failures_are_recorded_and_set_the_exit_status() {
    let (dir, m) = suite("failures");
    let out = dir.join("out");
    let report = run_sweep(&m, &options(&out, 2), &Fake).unwrap();
    // bad.c fails on st120 under 3 configs; boom.c panics under sreedhar on both targets.
    assert_eq!(report.failed(), 5);
    assert_eq!(report.exit_code(), 1);
    let csv = read(&out, FUNCTIONS_FILE);
    let bad: Vec<&str> = csv
        .lines()
        .filter(|l| l.starts_with("dsp/bad.c,*,st120,"))
        .collect();
    assert_eq!(bad.len(), 3, "{csv}");
    assert!(
        bad[0].ends_with(
            ",\"wrong output: line 2: expected 5, got 6\",0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
        ),
        "{}",
        bad[0]
    );
    let boom: Vec<&str> = csv
        .lines()
        .filter(|l| l.starts_with("codec/boom.c,*,"))
        .collect();
    assert_eq!(boom.len(), 2);
    assert!(boom[0].contains(",sreedhar,"), "{}", boom[0]);
    assert!(boom[0].contains("executor panicked at "), "{}", boom[0]);
    assert!(boom[0].contains("index out of bounds: the len is 3 but the index is 7"));
    // The other jobs of the same programs still ran.
    assert!(csv.contains("codec/boom.c,boom,st231,base,,"));
    assert!(csv.contains("dsp/bad.c,bad,st231,boissinot,,"));
    let summary = report.summary();
    assert!(summary.contains("33 jobs: 28 ok, 5 failed"), "{summary}");
    assert!(
        summary.contains("FAILED dsp/bad.c st120 base: wrong output"),
        "{summary}"
    );
    let runs = read(&out, RUNS_FILE);
    assert!(
        runs.contains("ok = 28") && runs.contains("failed = 5"),
        "{runs}"
    );
    // Without the failing programs everything passes: exit status 0.
    let mut o = options(&dir.join("clean"), 2);
    o.selection.programs = vec!["fir".into(), "codec/lpc.c".into()];
    let report = run_sweep(&m, &o, &Fake).unwrap();
    assert_eq!((report.failed(), report.exit_code()), (0, 0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_kernel_fails_the_job() {
    let (dir, m) = suite("missing");
    let forgetful = |job: &Job| -> JobOutcome {
        let mut o = Fake.run(job);
        o.functions.retain(|f| f.function != "peak_bin");
        o
    };
    let mut o = options(&dir.join("out"), 1);
    o.selection.programs = vec!["fft".into()];
    o.selection.configs = vec!["base".into()];
    let r = run_sweep(&m, &o, &forgetful).unwrap();
    assert_eq!(r.failed(), 2);
    let csv = read(&dir.join("out"), FUNCTIONS_FILE);
    assert!(csv.contains("dsp/fft.c,*,st231,base,,"), "{csv}");
    assert!(csv.contains("kernel `peak_bin` not reported"), "{csv}");
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------------
// The command line (src/cmd/bench.rs)
// ---------------------------------------------------------------------------------------------

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Bench(Box<bench_cmd::BenchArgs>),
    Merge(bench_cmd::MergeArgs),
}

fn bench(args: &[String]) -> ExitCode {
    let argv = ["ssalab", "bench"]
        .iter()
        .map(|s| s.to_string())
        .chain(args.iter().cloned());
    match Cli::try_parse_from(argv).unwrap().command {
        Command::Bench(a) => bench_cmd::main_with(*a, |_: &std::path::Path| Fake, &catalog()),
        Command::Merge(_) => unreachable!(),
    }
}

fn merge_cli(args: &[String]) -> ExitCode {
    let argv = ["ssalab", "merge"]
        .iter()
        .map(|s| s.to_string())
        .chain(args.iter().cloned());
    match Cli::try_parse_from(argv).unwrap().command {
        Command::Merge(a) => bench_cmd::merge_main(a),
        Command::Bench(_) => unreachable!(),
    }
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn command_line_filters() {
    let (dir, m) = suite("filters");
    let out = dir.join("out");
    let manifest = m.file.to_str().unwrap();
    let o = out.to_str().unwrap();
    let code = bench(&strings(&[
        "--manifest",
        manifest,
        "--out",
        o,
        "-q",
        "--programs",
        "dsp/f*,lpc",
        "--targets",
        "st120",
        "--configs",
        "sreedhar",
        "--regs",
        "8",
    ]));
    assert_eq!(code, ExitCode::SUCCESS);
    let jobs: Vec<String> = read(&out, JOBS_FILE)
        .lines()
        .skip(1)
        .map(|l| l.split(',').take(5).collect::<Vec<_>>().join(","))
        .collect();
    assert_eq!(
        jobs,
        [
            "0,dsp/fir.c,st120,sreedhar,8",
            "1,dsp/fft.c,st120,sreedhar,8",
            "2,codec/lpc.c,st120,sreedhar,8"
        ]
    );
    let runs = read(&out, RUNS_FILE);
    for line in [
        "targets = [\"st120\"]",
        "configs = [\"sreedhar\"]",
        "programs = [\"dsp/f*\", \"lpc\"]",
        "regs = 8",
        "jobs_total = 3",
        "version = \"",
    ] {
        assert!(runs.contains(line), "{line} not in\n{runs}");
    }
    // Default configurations, groups, --all-functions.
    let code = bench(&strings(&[
        "--manifest",
        manifest,
        "--out",
        o,
        "-q",
        "--groups",
        "codec",
        "--all-functions",
    ]));
    assert_eq!(
        code,
        ExitCode::SUCCESS,
        "boom.c panics only under sreedhar: not run here"
    );
    let csv = read(&out, FUNCTIONS_FILE);
    let lpc: Vec<&str> = csv
        .lines()
        .filter(|l| l.starts_with("codec/lpc.c,") && l.contains(",base,"))
        .map(|l| l.split(',').nth(1).unwrap())
        .collect();
    assert_eq!(lpc, ["Levinson", "Autocorr", "Lag_window", "main"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn command_line_errors() {
    let (dir, m) = suite("cli-errors");
    let manifest = m.file.to_str().unwrap();
    let out = dir.join("out");
    let o = out.to_str().unwrap();
    for bad in [
        vec!["--manifest", manifest, "--out", o, "--configs", "bogus"],
        vec!["--manifest", manifest, "--out", o, "--programs", "viterbi"],
        vec!["--manifest", manifest, "--out", o, "--regs", "0"],
        vec![
            "--manifest",
            dir.join("none.toml").to_str().unwrap(),
            "--out",
            o,
        ],
    ] {
        assert_eq!(bench(&strings(&bad)), ExitCode::from(2), "{bad:?}");
    }
    assert!(!out.exists(), "no output for a rejected command line");
    for bad in [
        ["--shard", "4/3"],
        ["--targets", "arm"],
        ["-j", "0"],
        ["--groups", "audio"],
    ] {
        let argv = ["ssalab", "bench"].into_iter().chain(bad);
        assert!(Cli::try_parse_from(argv).is_err(), "{bad:?}");
    }
    // --list runs nothing.
    assert_eq!(
        bench(&strings(&["--manifest", manifest, "--out", o, "--list"])),
        ExitCode::SUCCESS
    );
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn manifest_errors_are_located() {
    let dir = scratch("manifest-errors");
    std::fs::create_dir_all(dir.join("dsp")).unwrap();
    std::fs::write(dir.join("dsp/fir.c"), "").unwrap();
    let file = dir.join("suite.toml");
    std::fs::write(
        &file,
        "version = 1\ndefault_targets = [\"st231\"]\n\n[[program]]\npath = \"dsp/fir.c\"\ngroup = \"dsp\"\nkernels = [\"fir\"]\n\n[[program]]\npath = \"dsp/iir.c\"\ngroup = \"dps\"\nkernels = [\"iir\"]\n",
    )
    .unwrap();
    let e = Manifest::load(&file).unwrap_err().to_string();
    let f = file.display();
    assert_eq!(
        e,
        format!(
            "{f}:10:8: program `dsp/iir.c` not found under {}\n{f}:11:9: unknown group `dps` (expected dsp, codec, feature or lai)",
            dir.display()
        )
    );
    std::fs::write(
        &file,
        "version = 1\ndefault_targets = [\"st231\"]\nprograms = []\n",
    )
    .unwrap();
    let e = Manifest::load(&file).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("{f}:3:1: unknown field `programs`")),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------------
// The real manifest
// ---------------------------------------------------------------------------------------------

#[test]
fn the_suite_manifest_is_valid_and_complete() {
    let root = programs_root();
    let m = Manifest::load(&root.join("suite.toml")).unwrap_or_else(|e| panic!("{e}"));
    let listed: Vec<&str> = m.programs.iter().map(|p| p.path.as_str()).collect();
    let mut unlisted = Vec::new();
    for p in c_programs(&root) {
        let rel = p
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if !listed.contains(&rel.as_str()) {
            unlisted.push(rel);
        }
    }
    assert!(
        unlisted.is_empty(),
        "programs missing from suite.toml: {unlisted:?}"
    );
    let sel = Selection {
        configs: vec!["base".into()],
        ..Selection::default()
    };
    let p = plan(&m, &sel).unwrap();
    let slots: usize = m.programs.iter().map(|p| p.targets.len()).sum();
    assert_eq!(p.jobs.len(), slots);
    assert!(m.programs.iter().any(|p| !p.kernels.is_empty()));
}

// ---------------------------------------------------------------------------------------------
// Journal and resume (issue 27)
// ---------------------------------------------------------------------------------------------

/// Counts the jobs it runs (else the fake).
struct Counting(std::sync::atomic::AtomicUsize);

impl Executor for Counting {
    fn run(&self, job: &Job) -> JobOutcome {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Fake.run(job)
    }
}

#[test]
fn a_resumed_sweep_runs_only_the_missing_jobs_and_writes_the_same_files() {
    let (dir, m) = suite("resume");
    let whole = dir.join("whole");
    let mut o = options(&whole, 2);
    o.no_times = true;
    let reference = run_sweep(&m, &o, &Fake).unwrap();
    assert!(
        !whole.join(JOURNAL_FILE).exists(),
        "a finished sweep leaves no journal"
    );
    assert!(!whole.join(JOURNAL_HEADER).exists());
    // An interrupted sweep: the journal holds jobs 0..13 (in a scrambled order, as workers
    // finish them) and a torn record of job 13 (killed while writing it).
    let cut = dir.join("cut");
    let mut o = options(&cut, 3);
    o.no_times = true;
    let plan = plan(&m, &o.selection).unwrap();
    let def = ssalab::bench::sweep::definition(&m, &plan, &o);
    let mut journal = Journal::start(&cut, &journal_header(&m, &def, None)).unwrap();
    let row_opts = RowOptions {
        all_functions: false,
        no_times: true,
    };
    for k in [3, 0, 1, 2, 7, 4, 5, 6, 12, 8, 9, 10, 11] {
        journal
            .append(&JobPart::of(&reference.results[k], row_opts))
            .unwrap();
    }
    drop(journal);
    let mut torn = std::fs::OpenOptions::new()
        .append(true)
        .open(cut.join(JOURNAL_FILE))
        .unwrap();
    std::io::Write::write_all(
        &mut torn,
        b"job,13,dsp/fft.c,st231,sreedhar,,ok,2,0,0\nrow,dsp/ff",
    )
    .unwrap();
    drop(torn);
    std::fs::write(cut.join("tables.md"), "kept").unwrap();
    let exec = Counting(Default::default());
    o.resume = true;
    let r = run_sweep(&m, &o, &exec).unwrap();
    assert_eq!(r.resumed, 13);
    assert_eq!(exec.0.load(std::sync::atomic::Ordering::SeqCst), 33 - 13);
    assert_eq!(files(&cut), files(&whole), "resumed output differs");
    assert_eq!(read(&cut, "tables.md"), "kept");
    assert!(!cut.join(JOURNAL_FILE).exists());
    // The command line: --resume of a directory without a journal is a clear error.
    let code = bench(&strings(&["--resume", &cut.display().to_string()]));
    assert_eq!(code, ExitCode::from(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_journal_of_another_sweep_is_refused() {
    let (dir, m) = suite("resume-other");
    let out = dir.join("out");
    let mut o = options(&out, 1);
    let plan = plan(&m, &o.selection).unwrap();
    let mut def = ssalab::bench::sweep::definition(&m, &plan, &o);
    def.no_times = !def.no_times;
    Journal::start(&out, &journal_header(&m, &def, None)).unwrap();
    o.resume = true;
    let e = run_sweep(&m, &o, &Fake).unwrap_err();
    assert!(e.contains("another sweep"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unusable_out_is_found_before_the_first_job() {
    let (dir, m) = suite("bad-out");
    let blocker = dir.join("file");
    std::fs::write(&blocker, "x").unwrap();
    let exec = Counting(Default::default());
    let e = run_sweep(&m, &options(&blocker.join("out"), 1), &exec).unwrap_err();
    assert!(e.contains("--out"), "{e}");
    assert_eq!(exec.0.load(std::sync::atomic::Ordering::SeqCst), 0);
    let _ = std::fs::remove_dir_all(&dir);
}
