//! End-to-end test of the back end: every C program in `programs/` compiled by
//! `ssalab run --target st231|st120` at `-O0`, `-O2` and `-O2 --regs 8` (forcing spills)
//! prints on the cycle-level simulator exactly what the host C compiler's build prints and
//! exits with the same status.
//!
//! Every run uses `--verify` (SSA verifier, machine-IR verifier in each pass's form, and the
//! independent allocation checker on every function). The `-O2` runs also use
//! `--check-each-pass`: the program is executed by the IR interpreter after every mid-level
//! pass and by the machine-IR interpreter after every back-end pass, and must behave the
//! same each time — so the machine-SSA interpreter agrees with the simulator on every program
//! (both agree with the host).

use ssalab::host::HostCompiler;
use ssalab::programs::{c_programs, check_in_parallel, programs_root};
use std::path::Path;
use std::process::Command;

const TARGETS: [&str; 2] = ["st231", "st120"];

/// (label, extra arguments) of each configuration.
const CONFIGS: [(&str, &[&str]); 3] = [
    ("-O0", &["-O0"]),
    ("-O2", &["-O2", "--check-each-pass"]),
    ("-O2 --regs 8", &["-O2", "--regs", "8"]),
];

fn check_program(host: &HostCompiler, prog: &Path, failures: &mut Vec<String>) {
    let reference = match host.run(prog) {
        Ok(r) => r,
        Err(e) => {
            failures.push(format!("{}: host: {e}", prog.display()));
            return;
        }
    };
    let path = prog.to_string_lossy();
    for target in TARGETS {
        for (label, extra) in CONFIGS {
            let mut args = vec!["run", &*path, "--target", target, "--verify", "-q"];
            args.extend_from_slice(extra);
            let out = Command::new(env!("CARGO_BIN_EXE_ssalab"))
                .args(&args)
                .output()
                .expect("run ssalab");
            let code = out.status.code().unwrap_or(-1000);
            if out.stdout != reference.stdout || code != reference.exit_code {
                failures.push(format!(
                    "{} {target} {label}: exit {code} (host {}), stdout {} (host {})\nstderr: {}",
                    prog.display(),
                    reference.exit_code,
                    summarize(&out.stdout),
                    summarize(&reference.stdout),
                    summarize(&out.stderr)
                ));
            }
        }
    }
}

fn summarize(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    if s.len() > 600 {
        let cut: String = s.chars().take(600).collect();
        format!("{cut:?}…")
    } else {
        format!("{s:?}")
    }
}

#[test]
fn every_program_runs_on_both_machines_like_the_host_build() {
    let root = programs_root();
    let programs = c_programs(&root);
    assert!(
        programs.len() >= 12,
        "too few programs under {}",
        root.display()
    );
    let host = HostCompiler::new(&root);
    let failures = check_in_parallel(&programs, 2, |p, f| check_program(&host, p, f));
    assert!(
        failures.is_empty(),
        "{} of {} runs differ from the host compiler:\n{}",
        failures.len(),
        programs.len() * TARGETS.len() * CONFIGS.len(),
        failures.join("\n")
    );
}
