//! Every configuration of `compiler::backend::CONFIGS` (every row of Rastello et al.'s
//! Table 1, their variants, and ours) on every program of the suite manifest, on both
//! targets: the bench sweep's own machinery (`ssalab::bench`) with the verifier and the
//! allocation checker on, each job's output compared with the host compiler's (C) or the
//! file's `# expected:` line (LAI). Any failed job fails the test with its reason.
//! (`programs_on_machines.rs` covers -O0, --check-each-pass and --regs 8 on the baseline.)

use ssalab::bench::jobs::{plan, Selection};
use ssalab::bench::machine::{catalog, MachineExecutor};
use ssalab::bench::manifest::Manifest;
use ssalab::bench::runner::{run_jobs, RunnerOptions};
use ssalab::programs::programs_root;

#[test]
fn every_configuration_on_every_program_and_target() {
    let root = programs_root();
    let manifest = Manifest::load(&root.join("suite.toml")).expect("manifest");
    let configs = catalog()
        .resolve(&["all".to_string()])
        .expect("configurations");
    assert_eq!(configs.len(), compiler::backend::CONFIGS.len());
    let sel = Selection {
        configs,
        ..Selection::default()
    };
    let plan = plan(&manifest, &sel).expect("plan");
    assert_eq!(plan.targets.len(), 2, "both targets");
    let exec = MachineExecutor::new(root, true);
    let opts = RunnerOptions {
        progress: false,
        print_failures: false,
        ..RunnerOptions::default()
    };
    let results = run_jobs(&exec, &plan.jobs, &opts);
    assert_eq!(results.len(), plan.jobs.len());
    let failures: Vec<String> = results
        .iter()
        .filter(|r| !r.passed())
        .map(|r| {
            format!(
                "{} {:?} {}: {:?}",
                r.planned.job.program, r.planned.job.target, r.planned.job.config, r.outcome.status
            )
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} jobs failed:\n{}",
        failures.len(),
        results.len(),
        failures.join("\n")
    );
}
