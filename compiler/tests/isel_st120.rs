//! ST120 instruction selection over every program of `programs/`: each function is selected
//! at -O0 and -O2 (with the runtime routines appended, as the driver does) and checked by the
//! machine-level verifier in SSA form. When the machine-level interpreter is available the
//! selected module is also run and its output compared with the mid-level interpreter's.

mod common;
use compiler::ir::Module;
use compiler::isel::{self, IselOptions};
use compiler::mir;
use compiler::pipeline::{self, OptLevel};
use std::path::Path;

/// Front end + mid-level pipeline + runtime, as the back-end driver does.
pub fn build(path: &Path, opt: OptLevel) -> Result<Module, String> {
    let mut m =
        compiler::front::compile_to_ir(path, &Default::default()).map_err(|d| d.render())?;
    pipeline::run_passes(&mut m, &pipeline::mid_level_passes(opt), &mut |_, _| Ok(()))
        .map_err(|e| format!("{e:?}"))?;
    compiler::backend::add_runtime(&mut m, opt)?;
    Ok(m)
}

fn select(m: &Module, opts: &IselOptions) -> Result<mir::Module, String> {
    isel::select_module(m, simulator::isa::Target::St120, opts).map_err(|e| e.to_string())
}

#[test]
fn every_program_selects_and_verifies_in_ssa_form() {
    let mut failures = Vec::new();
    let mut count = 0;
    for p in common::c_programs() {
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

/// `ISEL_DUMP=programs/dsp/fir.c cargo test --test isel_st120 dump -- --nocapture` prints
/// the selected machine SSA of a program (a debugging aid; passes trivially otherwise).
#[test]
fn dump() {
    let Ok(path) = std::env::var("ISEL_DUMP") else {
        return;
    };
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
    let m = build(&p, OptLevel::O2).unwrap();
    let mm = select(&m, &IselOptions::default()).unwrap();
    let only = std::env::var("ISEL_FN").ok();
    for f in &mm.functions {
        if only.as_ref().is_none_or(|n| *n == f.name) {
            println!("{f}");
        }
    }
}

/// Runs `m` with the mid-level interpreter and `mm` with the machine-level interpreter;
/// `Err` describes the first difference (output, exit code, trap).
fn compare_runs(m: &Module, mm: &mir::Module) -> Result<(), String> {
    let want = compiler::interp::run(m, "main", &Default::default()).map_err(|e| e.to_string())?;
    if let Some(t) = &want.trap {
        return Err(format!("reference interpreter trapped: {t}"));
    }
    let got = mir::interp::run_module(mm, "main", &Default::default())
        .map_err(|t| format!("machine-level run trapped: {t}"))?;
    if got.output != want.output {
        let (g, w) = (
            String::from_utf8_lossy(&got.output).into_owned(),
            String::from_utf8_lossy(&want.output).into_owned(),
        );
        let at = g
            .bytes()
            .zip(w.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(g.len().min(w.len()));
        let cut = |s: &str| {
            let b = s.as_bytes();
            String::from_utf8_lossy(&b[at.saturating_sub(30).min(b.len())..(at + 30).min(b.len())])
                .into_owned()
        };
        return Err(format!(
            "output differs at byte {at}: got {:?}, want {:?}",
            cut(&g),
            cut(&w)
        ));
    }
    if got.exit_code != want.exit_code {
        return Err(format!(
            "exit code {} instead of {}",
            got.exit_code, want.exit_code
        ));
    }
    Ok(())
}

#[test]
fn every_program_runs_like_the_reference_interpreter() {
    let paths = common::c_programs();
    let mut failures = Vec::new();
    let mut runs = 0;
    for p in &paths {
        for opt in [OptLevel::O0, OptLevel::O2] {
            for opts in [
                IselOptions::default(),
                IselOptions {
                    if_convert: false,
                    post_increment: false,
                },
            ] {
                runs += 1;
                let name = format!(
                    "{} {opt:?} ifconv={} postinc={}",
                    p.display(),
                    opts.if_convert,
                    opts.post_increment
                );
                let result = build(p, opt)
                    .and_then(|m| select(&m, &opts).map(|mm| (m, mm)))
                    .and_then(|(m, mm)| compare_runs(&m, &mm));
                if let Err(e) = result {
                    failures.push(format!("{name}: {e}"));
                }
            }
        }
    }
    eprintln!(
        "st120 isel: {} of {runs} program runs agree",
        runs - failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {runs} runs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// How often post-increments and if-conversions fire on programs/dsp (printed for -O0 and
/// -O2, over the programs' own functions — names not starting with `__`, i.e. without the
/// runtime routines and the `ssalab.h` helpers — and over everything). The assertion only
/// checks that both transformations fire at -O2.
#[test]
fn post_increments_and_if_conversions_fire_on_dsp_kernels() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../programs/dsp");
    for opt in [OptLevel::O0, OptLevel::O2] {
        let mut own = compiler::isel::st120::Stats::default();
        let mut all = compiler::isel::st120::Stats::default();
        for p in common::c_programs().iter().filter(|p| p.starts_with(&root)) {
            let m = build(p, opt).unwrap();
            for f in &m.functions {
                let (_, s) = compiler::isel::st120::select_function_with_stats(
                    &m,
                    f,
                    &IselOptions::default(),
                )
                .unwrap();
                for t in [&mut all]
                    .into_iter()
                    .chain((!f.name.starts_with("__")).then_some(&mut own))
                {
                    t.post_increments += s.post_increments;
                    t.if_conversions += s.if_conversions;
                    t.psis += s.psis;
                    t.intrinsics += s.intrinsics;
                    t.conversions += s.conversions;
                }
            }
        }
        eprintln!("st120 isel on programs/dsp at {opt:?}, program functions: {own:?}");
        eprintln!("st120 isel on programs/dsp at {opt:?}, all functions: {all:?}");
        if opt == OptLevel::O2 {
            assert!(own.post_increments > 0 && own.if_conversions > 0);
        }
    }
}
