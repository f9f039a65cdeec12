//! Differential test of the front end: every program in `tests/c/` is compiled by ssalab
//! (front end + IR interpreter) and by the host C compiler; both must print the same text
//! and exit with the same status. The programs are written for both data models (they do
//! not depend on the size of `long` or of pointers) and have no undefined behaviour.
//!
//! The host compiler is `$CC` or `gcc`; it is required (CI installs it).

use compiler::front::{compile_file, FrontOptions};
use compiler::interp;
use compiler::ir::{self, Module};
use compiler::pipeline::{mid_level_passes, run_passes, OptLevel};
use std::path::{Path, PathBuf};
use std::process::Command;

fn host_run(src: &Path, dir: &Path) -> (String, i32) {
    let cc = std::env::var("CC").unwrap_or_else(|_| "gcc".to_string());
    let exe = std::env::temp_dir().join(format!(
        "ssalab-front-{}-{}",
        std::process::id(),
        src.file_stem().unwrap().to_string_lossy()
    ));
    let status = Command::new(&cc)
        .args(["-std=c99", "-O1", "-w", "-o"])
        .arg(&exe)
        .arg(src)
        .arg("-I")
        .arg(dir)
        .status()
        .unwrap_or_else(|e| panic!("the host C compiler `{cc}` is required: {e}"));
    assert!(
        status.success(),
        "host compiler failed on {}",
        src.display()
    );
    let out = Command::new(&exe).output().expect("run host binary");
    std::fs::remove_file(&exe).ok();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

fn interpret(m: &Module, what: &str) -> (String, i32) {
    let out = interp::run(m, "main", &interp::Options::default()).expect("loads");
    if let Some(t) = &out.trap {
        panic!("{what}: {t}");
    }
    (out.output_string(), out.exit_code & 0xff)
}

/// Properties of the front end's IR: `b0` is never a jump target, and the text form
/// prints and parses back to the same text.
fn check_ir_shape(m: &Module, what: &str) {
    for f in &m.functions {
        for b in &f.blocks {
            assert!(
                !b.term
                    .successors()
                    .into_iter()
                    .any(|s| s == ir::BlockId::ENTRY),
                "{what}: @{} jumps to b0",
                f.name
            );
        }
    }
    let text = m.to_string();
    let back =
        ir::parse_module(&text).unwrap_or_else(|e| panic!("{what}: IR text does not parse: {e:?}"));
    assert_eq!(back.to_string(), text, "{what}: IR text round trip");
}

/// Output of the program compiled by ssalab, interpreted straight after the front end and
/// after the -O0 and -O2 mid-level pipelines (SSA verifier after every pass); all three must
/// agree.
fn ssalab_run(src: &Path) -> (String, i32) {
    let c = compile_file(src, &FrontOptions::default());
    let m = c
        .module
        .unwrap_or_else(|| panic!("{}:\n{}", src.display(), c.diagnostics.render()));
    let what = src.display().to_string();
    check_ir_shape(&m, &what);
    let direct = interpret(&m, &what);
    for opt in [OptLevel::O0, OptLevel::O2] {
        let mut mo = m.clone();
        let passes = mid_level_passes(opt);
        let mut verify = |pass: &str, md: &Module| {
            compiler::ssa::verify_module(md).map_err(|e| format!("after {pass}: {e:?}"))
        };
        run_passes(&mut mo, &passes, &mut verify)
            .unwrap_or_else(|e| panic!("{what} at {opt:?}: {e:?}"));
        let r = interpret(&mo, &what);
        assert_eq!(
            r, direct,
            "{what}: output at {opt:?} differs from the unoptimised IR"
        );
    }
    direct
}

#[test]
fn programs_match_the_host_compiler() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    files.sort();
    assert!(files.len() >= 9, "test programs missing");
    let mut failures = Vec::new();
    for f in &files {
        let ours = ssalab_run(f);
        let host = host_run(f, &dir);
        if ours != host {
            failures.push(format!(
                "{}:\n--- ssalab (exit {}) ---\n{}\n--- host (exit {}) ---\n{}",
                f.display(),
                ours.1,
                ours.0,
                host.1,
                host.0
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
