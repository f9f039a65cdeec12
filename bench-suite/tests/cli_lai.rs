//! Linear assembly input through the command line and the bench executor: `ssalab run f.lai`
//! prints the program's output and exits with its status, under several configurations with
//! `--verify` and `--check-each-pass`; the target comes from the file's `.target` (a
//! disagreeing `--target` is an error); LAI errors are located diagnostics; the bench
//! executor checks an LAI program against its `# expected:` line and reports a wrong one.

use simulator::isa::Target;
use ssalab::bench::machine::MachineExecutor;
use ssalab::bench::manifest::lai_oracle;
use ssalab::bench::{Executor, Job, JobStatus};
use std::path::{Path, PathBuf};
use std::process::Command;

fn ssalab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ssalab"))
}

fn scratch_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssalab-cli-lai-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn temp(name: &str, text: &str) -> PathBuf {
    let p = scratch_dir().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn examples() -> Vec<PathBuf> {
    let dir = ssalab::programs::programs_root().join("lai");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "lai"))
        .collect();
    v.sort();
    v
}

/// An LAI program that prints `7\n` and returns 5 (ST231): a call with the ABI pins.
const SEVEN: &str = "\
# expected: 7\\n
# exit: 5
.target st231
.proc add2
    .input %a=$r16, %b=$r17
    add %s = %a, %b
    .output %s=$r16
    return
.endp
.proc main
    mov %x = 3
    mov %y = 4
    call %r = add2, %x, %y
    syscall 2, %r
    mov %nl = 10
    syscall 3, %nl
    mov %five = 5
    .output %five=$r16
    return
.endp
";

#[test]
fn run_prints_the_output_and_exits_with_the_status() {
    let p = temp("seven.lai", SEVEN);
    let out = ssalab()
        .args(["run", "-q", p.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "7\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(5));
}

#[test]
fn every_example_runs_checked_under_several_configurations() {
    let configs = ["baseline", "C", "L_phi,ABI+C", "L_ABI"];
    let mut failures = Vec::new();
    for p in examples() {
        let oracle = lai_oracle(&std::fs::read_to_string(&p).unwrap()).unwrap();
        for config in configs {
            let out = ssalab()
                .args([
                    "run",
                    "-q",
                    "--verify",
                    "--check-each-pass",
                    "--config",
                    config,
                ])
                .arg(&p)
                .output()
                .unwrap();
            if out.stdout != oracle.output || out.status.code() != Some(oracle.exit_code) {
                failures.push(format!(
                    "{} [{config}]: printed {:?} exit {:?}, expected {:?} exit {}\n{}",
                    p.display(),
                    String::from_utf8_lossy(&out.stdout),
                    out.status.code(),
                    String::from_utf8_lossy(&oracle.output),
                    oracle.exit_code,
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(examples().len() >= 8, "programs/lai has the eight examples");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn target_comes_from_the_file_and_must_agree() {
    let p = temp("agree.lai", SEVEN);
    let ok = ssalab()
        .args(["compile", "--emit", "asm", "--target", "st231"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(ok.status.code(), Some(0));
    let asm = String::from_utf8_lossy(&ok.stdout);
    assert!(asm.contains("add2") && asm.contains("syscall"), "{asm}");
    let bad = ssalab()
        .args(["compile", "--emit", "asm", "--target", "st120"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("the file is for st231") && err.contains("st120"),
        "{err}"
    );
    let run_bad = ssalab()
        .args(["run", "--target", "st120"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(run_bad.status.code(), Some(1));
    assert!(run_bad.stdout.is_empty());
}

#[test]
fn lai_errors_are_located() {
    let p = temp(
        "bad.lai",
        ".target st231\n.proc main\n    mov %x = 1\n    frob %y = %x\n    return\n.endp\n",
    );
    for cmd in ["compile", "run"] {
        let out = ssalab().arg(cmd).arg(&p).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{cmd}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("bad.lai:4:"), "{cmd}: {err}");
        assert!(err.contains('^'), "{cmd}: caret expected: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // No target anywhere: an error, not a guess.
    let p = temp("notarget.lai", ".proc main\n    return\n.endp\n");
    let out = ssalab().arg("compile").arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no target"));
}

/// `-o -` writes to stdout (the Unix convention) instead of creating a file named `-`.
#[test]
fn dash_output_is_stdout() {
    let p = temp("dash.lai", SEVEN);
    let cwd = scratch_dir().join("dash-cwd");
    std::fs::create_dir_all(&cwd).unwrap();
    for emit in ["asm", "obj"] {
        let out = ssalab()
            .current_dir(&cwd)
            .args(["compile", "--emit", emit, "-o", "-"])
            .arg(&p)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{emit}");
        assert!(!out.stdout.is_empty(), "{emit}: nothing on stdout");
        assert!(!cwd.join("-").exists(), "{emit}: wrote a file named `-`");
    }
    let asm = ssalab()
        .args(["compile", "--emit", "asm", "-o", "-"])
        .arg(&p)
        .output()
        .unwrap();
    let s = cwd.join("dash.s");
    std::fs::write(&s, &asm.stdout).unwrap();
    let obj = ssalab()
        .current_dir(&cwd)
        .args(["asm", "-o", "-"])
        .arg(&s)
        .output()
        .unwrap();
    assert_eq!(obj.status.code(), Some(0));
    assert!(!obj.stdout.is_empty() && !cwd.join("-").exists());
}

#[test]
fn print_after_and_emit_options() {
    let p = temp("print.lai", SEVEN);
    let out = ssalab()
        .args([
            "compile",
            "--emit",
            "mir",
            "--print-after",
            "lai",
            "--print-after",
            "irc",
        ])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    // The dumps go to stderr; stdout holds the --emit output only.
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("mfunc @"));
    let text = String::from_utf8_lossy(&out.stderr);
    let lai = text.find("// after lai").expect("parsed module printed");
    let irc = text.find("// after irc").expect("irc printed");
    assert!(lai < irc, "{text}");
    assert!(text[lai..irc].contains("mfunc @add2"), "{text}");
    // There is no instruction selection for LAI input, and no SSA IR to emit.
    let out = ssalab()
        .args(["compile", "--print-after", "isel"])
        .arg(&p)
        .output()
        .unwrap();
    // An unknown pass name is bad usage (exit 2).
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown pass `isel`"));
    let out = ssalab()
        .args(["compile", "--emit", "ir"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no SSA IR"));
    // Register pressure on LAI input: still correct, and checked.
    let out = ssalab()
        .args(["run", "-q", "--regs", "3", "--verify"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(
        (out.stdout.as_slice(), out.status.code()),
        (&b"7\n"[..], Some(5)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn job(program: &str, config: &str) -> Job {
    Job {
        program: program.into(),
        target: Target::St231,
        config: config.into(),
        regs: None,
    }
}

#[test]
fn bench_executor_checks_the_expected_line() {
    let dir = scratch_dir().join("programs");
    std::fs::create_dir_all(dir.join("lai")).unwrap();
    std::fs::write(dir.join("lai/good.lai"), SEVEN).unwrap();
    std::fs::write(
        dir.join("lai/wrong.lai"),
        SEVEN.replace("# expected: 7\\n", "# expected: 8\\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("lai/status.lai"),
        SEVEN.replace("# exit: 5", "# exit: 4"),
    )
    .unwrap();
    let exec = MachineExecutor::new(dir.clone(), true);
    let ok = exec.run(&job("lai/good.lai", "L_phi,ABI+C"));
    assert_eq!(ok.status, JobStatus::Ok);
    let names: Vec<&str> = ok.functions.iter().map(|f| f.function.as_str()).collect();
    assert!(
        names.contains(&"main") && names.contains(&"add2"),
        "{names:?}"
    );
    let add2 = ok.functions.iter().find(|f| f.function == "add2").unwrap();
    assert_eq!(add2.calls, 1, "dynamic counts attributed to add2");
    match exec.run(&job("lai/wrong.lai", "baseline")).status {
        JobStatus::Failed(r) => assert!(r.contains("output differs"), "{r}"),
        JobStatus::Ok => panic!("a wrong expected output must fail the job"),
    }
    match exec.run(&job("lai/status.lai", "baseline")).status {
        JobStatus::Failed(r) => assert!(r.contains("exit 5 (host 4)"), "{r}"),
        JobStatus::Ok => panic!("a wrong expected status must fail the job"),
    }
    // The file is for st231: asking for st120 is a failed job with the reason, not a panic.
    let mut j = job("lai/good.lai", "baseline");
    j.target = Target::St120;
    match exec.run(&j).status {
        JobStatus::Failed(r) => assert!(r.contains("the file is for st231"), "{r}"),
        JobStatus::Ok => panic!("target mismatch must fail"),
    }
}

#[test]
fn the_suite_lists_every_example_with_its_target() {
    let root = ssalab::programs::programs_root();
    let m = ssalab::bench::manifest::Manifest::load(&root.join("suite.toml")).unwrap();
    for p in examples() {
        let rel = Path::new("lai").join(p.file_name().unwrap());
        let rel = rel.to_str().unwrap();
        let prog = m
            .program(rel)
            .unwrap_or_else(|| panic!("{rel} missing from suite.toml"));
        assert_eq!(prog.group, ssalab::bench::manifest::Group::Lai);
        let text = std::fs::read_to_string(&p).unwrap();
        let module = compiler::lai::parse_lai(rel, &text, None).unwrap();
        assert_eq!(prog.targets, vec![module.target], "{rel}");
        for k in &prog.kernels {
            assert!(
                module.function(k).is_some(),
                "{rel}: kernel {k} not defined"
            );
        }
    }
}
