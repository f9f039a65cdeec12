//! LAI file tests: every `compiler/tests/lai/*.lai` and `programs/lai/*.lai` is parsed into
//! machine SSA (`compiler::lai::parse_lai`), verified, run by the MIR interpreter, then
//! compiled by the baseline back end (isolation out-of-SSA, IRC, frame, scheduling,
//! emission) and run on the simulator; both runs must print the file's `# expected:` output
//! (Rust-style escapes `\n`) and exit with its `# exit:` code (default 0).
//! Files named `err_*.lai` must be rejected with a located diagnostic containing every
//! `# error:` text and the line given by `# error-line:`.

use compiler::lai::parse_lai;
use compiler::mir::interp::{run_module, InterpOptions};
use compiler::mir::verify::{verify_module, Form};
use compiler::mir::Module;
use compiler::out_of_ssa::isolation;
use compiler::regalloc::{frame, irc, RegallocOptions};
use compiler::{emit, sched};
use simulator::machine::RunOptions;
use std::path::{Path, PathBuf};

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('\\') => out.push('\\'),
                Some(o) => {
                    out.push('\\');
                    out.push(o)
                }
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn directive<'a>(text: &'a str, key: &str) -> Vec<&'a str> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix('#'))
        .filter_map(|l| l.trim_start().strip_prefix(key))
        .map(|v| v.strip_prefix(' ').unwrap_or(v))
        .collect()
}

/// The baseline back end on a machine SSA module; returns (output, exit code).
fn compile_and_simulate(m: &Module) -> Result<(Vec<u8>, i32), String> {
    let mut m = m.clone();
    for f in &mut m.functions {
        isolation::run(f).map_err(|e| format!("out-of-ssa @{}: {e}", f.name))?;
        irc::allocate(f, &RegallocOptions::default())
            .map_err(|e| format!("irc @{}: {e}", f.name))?;
        frame::finalize(f).map_err(|e| format!("frame @{}: {e}", f.name))?;
    }
    let errs = verify_module(&m, Form::Final);
    if !errs.is_empty() {
        return Err(format!("final form: {}", errs[0]));
    }
    let s =
        sched::schedule_module(&m, &sched::SchedOptions::default()).map_err(|e| e.to_string())?;
    let obj = emit::link_module(&s, &m.globals, m.target).map_err(|e| e.to_string())?;
    let r = simulator::sim::run(&obj, &RunOptions::default());
    if let Some(t) = r.trap {
        return Err(format!("simulator trap: {t:?}"));
    }
    Ok((r.output, r.exit_code))
}

fn check_file(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    if name.starts_with("err_") {
        let e = match parse_lai(&name, &text, None) {
            Ok(_) => return Err("accepted, but should be rejected".into()),
            Err(e) => e,
        };
        let short = e.short();
        let full = e.render();
        for want in directive(&text, "error:") {
            if !short.contains(want) {
                return Err(format!("diagnostic lacks `{want}`:\n{full}"));
            }
        }
        for line in directive(&text, "error-line:") {
            if !short.contains(&format!("{name}:{line}:")) {
                return Err(format!("diagnostic not at line {line}:\n{full}"));
            }
        }
        if !full.contains('^') {
            return Err(format!("no caret:\n{full}"));
        }
        return Ok(());
    }
    let expected = unescape(
        directive(&text, "expected:")
            .first()
            .ok_or("no `# expected:`")?,
    );
    let exit: i32 = directive(&text, "exit:")
        .first()
        .map_or(Ok(0), |s| s.trim().parse())
        .map_err(|_| "bad exit")?;
    let m = parse_lai(&name, &text, None).map_err(|e| e.render())?;
    let errs = verify_module(&m, Form::Ssa);
    if !errs.is_empty() {
        return Err(format!("not SSA: {}", errs[0]));
    }
    let out = run_module(&m, "main", &InterpOptions::default()).map_err(|t| {
        format!(
            "interp: {t}\n{}",
            m.functions
                .iter()
                .map(|f| f.to_string())
                .collect::<String>()
        )
    })?;
    let got = String::from_utf8_lossy(&out.output).to_string();
    if got != expected || out.exit_code != exit {
        return Err(format!(
            "interpreter printed {got:?} exit {}, expected {expected:?} exit {exit}",
            out.exit_code
        ));
    }
    let (o, code) = compile_and_simulate(&m)?;
    let got = String::from_utf8_lossy(&o).to_string();
    if got != expected || code != exit {
        return Err(format!(
            "simulator printed {got:?} exit {code}, expected {expected:?} exit {exit}"
        ));
    }
    Ok(())
}

fn lai_files(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "lai"))
        .collect();
    v.sort();
    v
}

fn run_dir(dir: &str, min: usize) {
    let files = lai_files(dir);
    assert!(files.len() >= min, "{dir}: only {} files", files.len());
    let mut failures = vec![];
    for p in &files {
        if let Err(e) = check_file(p) {
            failures.push(format!("{}: {e}", p.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}

#[test]
fn lai_file_tests() {
    run_dir("tests/lai", 6);
}

#[test]
fn lai_programs() {
    run_dir("../programs/lai", 8);
}

mod robustness {
    use super::*;
    use proptest::prelude::*;

    const PIECES: &[&str] = &[
        ".target st231\n",
        ".target st120\n",
        ".proc f\n",
        ".endp\n",
        "l:\n",
        "\n",
        " ",
        ",",
        "%a",
        "%b",
        "$r16",
        "R0",
        "P1",
        "G2",
        "^",
        "=",
        "phi(",
        ")",
        ":l",
        "@(",
        "!+",
        "+ 1",
        "add ",
        "ADD ",
        "LDW ",
        "ldw ",
        "[",
        "]",
        "4",
        "-1",
        "0x10",
        "%hi(",
        "goto l\n",
        "GOTO l\n",
        "br ",
        "%g! ",
        "%g? ",
        "return\n",
        "RTS\n",
        ".input ",
        ".output ",
        ".frame buf, 8\n",
        "buf",
        ".word t, 1\n",
        ".freq 3\n",
        "call ",
        "CALL ",
        "syscall 2",
        "TRAP 2",
        "MORE ",
        "mov ",
        "MOVE ",
        "#",
        "'a'",
        "\u{e9}",
        ";;",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// No token soup makes the LAI front end panic; whatever it accepts is machine SSA.
        #[test]
        fn never_panics(idx in proptest::collection::vec(0..PIECES.len(), 0..60)) {
            let text: String = idx.iter().map(|&i| PIECES[i]).collect();
            if let Ok(m) = parse_lai("p.lai", &text, None) {
                prop_assert!(verify_module(&m, Form::Ssa).is_empty());
            }
        }
    }
}
