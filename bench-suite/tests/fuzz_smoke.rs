//! Smoke campaign: 200 random programs (150 small, 50 medium) through the front end, the
//! reference interpreter and every mid-level stage at -O0 and -O2 (SSA verifier after each
//! pass), compared with gcc. Any mismatch fails with its first failing stage and a reduced
//! reproducer. Also the `ssalab fuzz run/check` command lines.

use ssalab::fuzz::driver::{run_campaign, CampaignOptions};
use ssalab::fuzz::oracle::{mid_level_configurations, Checker};
use ssalab::fuzz::{program_text, Size};
use ssalab::host::HostCompiler;
use ssalab::programs::programs_root;
use std::process::Command;

fn campaign(first_seed: u64, count: u64, size: Size) -> ssalab::fuzz::driver::Summary {
    let save = std::env::temp_dir().join(format!("ssalab-fuzz-smoke-{}", std::process::id()));
    let opts = CampaignOptions {
        count,
        first_seed,
        jobs: 2,
        size,
        save: Some(save),
        reduce: true,
        reduce_budget: 300,
        progress: false,
        pass_stats: false,
    };
    let make = |w: usize| {
        let root = programs_root();
        let dir = std::env::temp_dir().join(format!(
            "ssalab-fuzz-smoke-{}-{}-{w}",
            std::process::id(),
            size.name()
        ));
        let mut c = Checker::new(HostCompiler::new(&root), dir, &root);
        // The mid-level stages only: the back end has its own smoke test (fuzz_backend.rs),
        // and known back-end bugs (ignored regressions there) must not mask mid-level ones.
        c.configs = mid_level_configurations();
        c
    };
    run_campaign(&opts, &make)
}

#[test]
fn two_hundred_programs_agree_with_gcc_at_every_stage() {
    for (first, count, size) in [(1_000_000, 150, Size::Small), (2_000_000, 50, Size::Medium)] {
        let s = campaign(first, count, size);
        let report = s.render();
        eprint!("{report}");
        assert!(s.clean(), "{report}");
        // The check is not vacuous: nearly every program ran to its end and was compared.
        assert!(s.discarded() * 20 <= count as usize, "{report}");
        assert_eq!(s.reports.len(), count as usize);
    }
}

#[test]
fn cli_run_and_check() {
    let exe = env!("CARGO_BIN_EXE_ssalab");
    let out = Command::new(exe)
        .args([
            "fuzz",
            "run",
            "--count",
            "4",
            "--seed",
            "77",
            "--size",
            "small",
            "-j",
            "2",
            "--no-backend",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("4 programs (seeds 77..=80, small"),
        "{stdout}"
    );
    assert!(stdout.contains("agree: 4"), "{stdout}");

    let file = std::env::temp_dir().join(format!("ssalab-fuzz-cli-{}.c", std::process::id()));
    std::fs::write(&file, program_text(9, Size::Small)).unwrap();
    let out = Command::new(exe)
        .args(["fuzz", "check", file.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains(": agree ("), "{stdout}");

    // A program gcc rejects is reported and fails the check.
    std::fs::write(&file, "int main(void) { return undeclared; }\n").unwrap();
    let out = Command::new(exe)
        .args(["fuzz", "check", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let _ = std::fs::remove_file(&file);

    let out = Command::new(exe)
        .args(["fuzz", "run", "--count", "1"])
        .env("CC", "no-such-compiler")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("host C compiler"));

    let out = Command::new(exe)
        .args(["fuzz", "run", "--count", "1", "--config", "nonesuch"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        err.contains("valid: O0, O2, st231/baseline, st231/baseline-r8"),
        "{err}"
    );

    // The back end through the CLI: one target, one register limit, named configurations.
    let out = Command::new(exe)
        .args([
            "fuzz",
            "run",
            "--count",
            "2",
            "--seed",
            "9",
            "--size",
            "small",
            "--targets",
            "st120",
            "--regs",
            "6",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(": O0, O2, st120/baseline-r6, st120/baseline-r6-O0,"),
        "{stdout}"
    );
    assert!(stdout.contains("2 programs (seeds 9..=10"), "{stdout}");

    let out = Command::new(exe)
        .args(["fuzz", "run", "--count", "1", "--regs", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("register count"));
}

/// `--configs` takes a comma-separated list whose names may contain commas themselves
/// (`L_phi,ABI+C`): the list is split at the commas between known names, as `bench` does.
#[test]
fn fuzz_configs_list_keeps_names_with_commas_whole() {
    let exe = env!("CARGO_BIN_EXE_ssalab");
    let out = Command::new(exe)
        .args([
            "fuzz",
            "run",
            "--count",
            "1",
            "--seed",
            "5",
            "--size",
            "tiny",
            "--configs",
            "baseline,L_phi,ABI+C",
            "--targets",
            "st231",
            "--regs",
            "full",
            "--opt",
            "O2",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("configurations (4): O0, O2, st231/baseline, st231/L_phi,ABI+C"),
        "{stdout}"
    );
}
