//! Integration tests of `out_of_ssa::leung_george` (Rastello et al.'s `L_ABI` and
//! `pinning_CSSA + L_ABI`).
//!
//! 1. Every MIR file test (`tests/mir/*.mir`) goes through both configurations: the result
//!    verifies in allocation form and prints the same as the SSA input under `mir::interp`.
//!    Files `leung-*.mir` also state hand-derived copy counts with the directives
//!    `# lg-abi-copies: @f N` and `# lg-cssa-copies: @f N` (ignored by the baseline harness,
//!    which runs the same files through the isolation baseline).
//! 2. Every program of `programs/` on both targets at -O0 and -O2, through isel, then each
//!    configuration: `mir::verify` (allocation form), same output under `mir::interp`, and
//!    `regalloc::irc::allocate` accepted by `regalloc::checker::check`. The copy totals are
//!    printed next to the isolation baseline's.

mod common;
use compiler::isel::{self, IselOptions};
use compiler::mir::interp::run_module;
use compiler::mir::parse::parse_module;
use compiler::mir::verify::{verify_module, Form};
use compiler::mir::{Function, InstFlags, Module};
use compiler::out_of_ssa::{isolation, leung_george};
use compiler::pipeline::{self, OptLevel};
use compiler::regalloc::{checker, irc, RegallocOptions};
use simulator::isa::Target;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

type Config = (
    &'static str,
    fn(&mut Function) -> Result<leung_george::Stats, String>,
);

const CONFIGS: &[Config] = &[
    ("abi", leung_george::translate_abi),
    ("cssa", leung_george::translate_cssa_abi),
];

fn interpret(m: &Module, entry: &str) -> Result<(String, i32), String> {
    let o = run_module(m, entry, &Default::default()).map_err(|t| format!("trap: {t}"))?;
    Ok((String::from_utf8_lossy(&o.output).into_owned(), o.exit_code))
}

fn copies(f: &Function) -> usize {
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| i.flags.contains(InstFlags::COPY))
        .count()
}

fn verify(m: &Module, form: Form) -> Result<(), String> {
    let errs = verify_module(m, form);
    if errs.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = errs.iter().take(5).map(|e| e.to_string()).collect();
    Err(format!("verifier ({form:?}): {}\n{m}", list.join("\n")))
}

/// Runs configuration `c` on every function of `m`; verifies and compares the run.
fn translate_module(m: &mut Module, c: &Config, entry: &str) -> Result<(), String> {
    let before = interpret(m, entry);
    for f in &mut m.functions {
        (c.1)(f).map_err(|e| format!("{}: {e}", c.0))?;
    }
    verify(m, Form::Allocation)?;
    match (&before, interpret(m, entry)) {
        (Ok(b), Ok(a)) if *b == a => Ok(()),
        (Ok(b), a) => Err(format!("{}: {a:?} after, {b:?} before\n{m}", c.0)),
        (Err(_), _) => Ok(()),
    }
}

fn mir_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mir");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mir"))
        .collect();
    files.sort();
    files
}

/// `(config, function, count)` from the `lg-*-copies` directives.
fn hand_counts(text: &str) -> Vec<(&'static str, String, usize)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(d) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let d = d.trim();
        for (key, cfg) in [("lg-abi-copies:", "abi"), ("lg-cssa-copies:", "cssa")] {
            if let Some(rest) = d.strip_prefix(key) {
                let mut it = rest.split_whitespace();
                let f = it
                    .next()
                    .and_then(|f| f.strip_prefix('@'))
                    .expect("@function");
                let n = it.next().and_then(|n| n.parse().ok()).expect("count");
                out.push((cfg, f.to_string(), n));
            }
        }
    }
    out
}

fn check_file(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let entry = text
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("# entry:"))
        .map(|e| e.trim().to_string())
        .unwrap_or_else(|| "main".into());
    let blanked: String = text
        .lines()
        .map(|l| {
            if l.trim_start().starts_with('#') {
                ""
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let module = parse_module(&blanked).map_err(|e| format!("parse: {e}"))?;
    verify(&module, Form::Ssa)?;
    let counts = hand_counts(&text);
    for c in CONFIGS {
        let mut m = module.clone();
        translate_module(&mut m, c, &entry)?;
        for (cfg, fname, want) in &counts {
            if *cfg != c.0 {
                continue;
            }
            let f = m.function(fname).ok_or(format!("no @{fname}"))?;
            let got = copies(f);
            if got != *want {
                return Err(format!(
                    "{cfg} @{fname}: {got} copies, expected {want}\n{f}"
                ));
            }
        }
    }
    if path
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("leung-"))
        && counts.is_empty()
    {
        return Err("a leung-*.mir file without hand counts".into());
    }
    Ok(())
}

#[test]
fn mir_files_through_leung_george() {
    let files = mir_files();
    let leung = files
        .iter()
        .filter(|p| p.to_string_lossy().contains("/leung-"))
        .count();
    assert!(leung >= 3, "only {leung} leung-*.mir files");
    let failures: Vec<String> = files
        .iter()
        .filter_map(|p| check_file(p).err().map(|e| format!("{}: {e}", p.display())))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// ---------------------------------------------------------------------------------------
// programs/
// ---------------------------------------------------------------------------------------

/// Front end, mid-level passes at `opt`, runtime routines appended (as the driver does).
fn ssa_ir(path: &Path, opt: OptLevel) -> Result<compiler::ir::Module, String> {
    let passes = pipeline::mid_level_passes(opt);
    let mut m =
        compiler::front::compile_to_ir(path, &Default::default()).map_err(|d| d.render())?;
    pipeline::run_passes(&mut m, &passes, &mut |_, _| Ok(())).map_err(|e| format!("{e:?}"))?;
    compiler::backend::add_runtime(&mut m, opt)?;
    Ok(m)
}

/// Register allocation of every function, checked against its allocation-form input.
fn allocate_and_check(m: &Module) -> Result<(), String> {
    for f in &m.functions {
        let mut a = f.clone();
        irc::allocate(&mut a, &RegallocOptions::default())
            .map_err(|e| format!("irc @{}: {e}", f.name))?;
        checker::check(f, &a).map_err(|e| format!("checker @{}: {e:?}", f.name))?;
    }
    Ok(())
}

#[test]
fn every_program_through_leung_george() {
    let mut failures = Vec::new();
    let mut skipped = Vec::new();
    // (target, opt, config) -> copies after out-of-SSA
    let mut totals: BTreeMap<String, usize> = BTreeMap::new();
    let mut done = 0usize;
    for p in common::c_programs() {
        for opt in [OptLevel::O0, OptLevel::O2] {
            let ir = match ssa_ir(&p, opt) {
                Ok(m) => m,
                Err(e) => {
                    skipped.push(format!("{} {opt:?}: {e}", p.display()));
                    continue;
                }
            };
            for target in Target::ALL {
                let name = format!("{} {opt:?} {target}", p.display());
                let m = match isel::select_module(&ir, target, &IselOptions::default()) {
                    Ok(m) => m,
                    Err(e) => {
                        skipped.push(format!("{name}: isel: {e}"));
                        continue;
                    }
                };
                let mut base = m.clone();
                for f in &mut base.functions {
                    let _ = isolation::translate(f);
                }
                let n: usize = base.functions.iter().map(copies).sum();
                *totals
                    .entry(format!("{target} {opt:?} isolation"))
                    .or_default() += n;
                for c in CONFIGS {
                    let mut lg = m.clone();
                    let r =
                        translate_module(&mut lg, c, "main").and_then(|()| allocate_and_check(&lg));
                    match r {
                        Ok(()) => {
                            done += 1;
                            let n: usize = lg.functions.iter().map(copies).sum();
                            *totals
                                .entry(format!("{target} {opt:?} {}", c.0))
                                .or_default() += n;
                        }
                        Err(e) => failures.push(format!("{name} {}: {e}", c.0)),
                    }
                }
            }
        }
    }
    eprintln!("Leung-George over programs/: {done} module runs; copies after out-of-SSA:");
    for (k, v) in &totals {
        eprintln!("  {k:<40} {v}");
    }
    for s in &skipped {
        eprintln!("not reaching machine SSA (another stage): {s}");
    }
    let short: Vec<String> = failures
        .iter()
        .map(|f| f.chars().take(3000).collect())
        .collect();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        short.join("\n\n")
    );
    assert!(done > 0, "no program went through");
}
