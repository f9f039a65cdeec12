//! Differential test: every C program in `programs/` interpreted by `ssalab interp` at `-O0`
//! and `-O2` prints exactly what the host C compiler's build prints, and exits with the same
//! status. At `-O2` the SSA verifier runs after every pass and the program is interpreted after
//! every pass (`--check-each-pass`), so a wrong pass is named by the failure.

use ssalab::host::HostCompiler;
use ssalab::programs::{c_programs, check_in_parallel, programs_root};
use std::path::Path;
use std::process::Command;

fn ssalab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ssalab"))
        .args(args)
        .output()
        .expect("run ssalab")
}

fn check_program(host: &HostCompiler, prog: &Path, failures: &mut Vec<String>) {
    let reference = match host.run(prog) {
        Ok(r) => r,
        Err(e) => {
            failures.push(format!("{}: host: {e}", prog.display()));
            return;
        }
    };
    let path = prog.to_string_lossy();
    // No -I: ssalab's built-in headers are the files of programs/include (one copy of each).
    for opt in ["-O0", "-O2"] {
        let mut args = vec!["interp", &*path, opt, "--verify"];
        if opt == "-O2" {
            args.push("--check-each-pass");
        }
        let out = ssalab(&args);
        let code = out.status.code().unwrap_or(-1000);
        if out.stdout != reference.stdout || code != reference.exit_code {
            failures.push(format!(
                "{} {opt}: exit {code} (host {}), stdout {} (host {})\nstderr: {}",
                prog.display(),
                reference.exit_code,
                summarize(&out.stdout),
                summarize(&reference.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
}

fn summarize(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    if s.len() > 300 {
        format!("{:?}…", &s[..300])
    } else {
        format!("{s:?}")
    }
}

#[test]
fn every_program_matches_the_host_compiler() {
    let root = programs_root();
    let programs = c_programs(&root);
    assert!(
        programs.len() >= 12,
        "expected at least 12 programs under {}, found {}",
        root.display(),
        programs.len()
    );
    let host = HostCompiler::new(&root);
    // Two workers: the machine has two cores.
    let failures = check_in_parallel(&programs, 2, |p, f| check_program(&host, p, f));
    assert!(
        failures.is_empty(),
        "{} of {} program runs differ from the host compiler:\n{}",
        failures.len(),
        programs.len() * 2,
        failures.join("\n")
    );
}
