//! LAI file tests: every `compiler/tests/lai/*.lai` and `programs/lai/*.lai` is parsed into
//! machine SSA (`compiler::lai::parse_lai`), verified, run by the MIR interpreter, then
//! compiled by the back end under every configuration of `compiler::backend::CONFIGS` (each
//! pass's output verified, the allocation checked) and run on the simulator; every run must
//! print the file's `# expected:` output (Rust-style escapes `\n`) and exit with its
//! `# exit:` code (default 0).
//!
//! Paper figures assert move counts with `# moves: CONFIG @function = N  why`: the static
//! number of copies (source ≠ destination) in `@function` after the configuration's last
//! allocation-form pass (out-of-SSA, plus coalescing when the configuration has it) — the
//! `moves_coalesced` statistic. `LAI_CONFIGS="C L_ABI"` restricts the configurations run.
//! Files named `err_*.lai` must be rejected with a located diagnostic containing every
//! `# error:` text and the line given by `# error-line:`.
//!
//! A correct program that some configurations must refuse (an incorrect pinning they detect,
//! e.g. Rastello et al. Fig. 3's too-constrained SP) says so with
//! `# compile-error: CONFIG CONFIG … : TEXT`: each listed configuration must fail to compile
//! with an error containing TEXT; every other configuration must still run it and print the
//! expected output.

use compiler::backend::{compile_machine_module, measure, stat_passes, BackendConfig, CONFIGS};
use compiler::lai::parse_lai;
use compiler::mir::interp::{run_module, InterpOptions};
use compiler::mir::verify::{verify_module, Form};
use compiler::mir::Module;
use simulator::machine::RunOptions;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The file's oracle text with its escapes decoded (`compiler::lai::unescape_directive`).
fn unescape(s: &str) -> String {
    compiler::lai::unescape_directive(s).unwrap_or_else(|e| panic!("bad directive `{s}`: {e}"))
}

fn directive<'a>(text: &'a str, key: &str) -> Vec<&'a str> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix('#'))
        .filter_map(|l| l.trim_start().strip_prefix(key))
        .map(|v| v.strip_prefix(' ').unwrap_or(v))
        .collect()
}

/// The configurations every LAI file is compiled under: all of `backend::CONFIGS`, or the
/// space-separated names in the environment variable `LAI_CONFIGS` (to iterate quickly on
/// one algorithm; the full set runs by default, and in CI).
fn configs() -> Vec<&'static str> {
    let all: Vec<&'static str> = CONFIGS.iter().map(|(n, _, _)| *n).collect();
    match std::env::var("LAI_CONFIGS") {
        Ok(v) if !v.trim().is_empty() => all
            .into_iter()
            .filter(|n| v.split_whitespace().any(|w| w == *n))
            .collect(),
        _ => all,
    }
}

/// What one configuration did to a module: the program's output and exit code on the
/// simulator, and per function the static moves after the configuration's last
/// allocation-form pass (out-of-SSA, plus coalescing if it has one).
struct ConfigRun {
    output: String,
    exit: i32,
    moves: HashMap<String, usize>,
}

/// Compiles `m` with configuration `config` (verifying each pass and the allocation) and
/// runs it on the simulator.
fn compile_and_simulate(m: &Module, config: &str) -> Result<ConfigRun, String> {
    let mut cfg = BackendConfig::named(config, m.target).ok_or("no such configuration")?;
    cfg.verify = true;
    let (_, coalesced, _) = stat_passes(&cfg);
    let coalesced = coalesced.ok_or("no allocation-form pass")?.to_string();
    let mut moves = HashMap::new();
    let mut hook = |stage: &str, mm: &Module| -> Result<(), String> {
        if stage == coalesced {
            for f in &mm.functions {
                moves.insert(f.name.clone(), measure(f).copies);
            }
        }
        Ok(())
    };
    let out =
        compile_machine_module(m.clone(), vec![], &cfg, &mut hook).map_err(|e| e.to_string())?;
    let r = simulator::sim::run(&out.object, &RunOptions::default());
    if let Some(t) = r.trap {
        return Err(format!("simulator trap: {t:?}"));
    }
    Ok(ConfigRun {
        output: String::from_utf8_lossy(&r.output).to_string(),
        exit: r.exit_code,
        moves,
    })
}

/// A `# moves: CONFIG @function = N  why` assertion (see the module doc).
struct MovesAssertion {
    config: String,
    function: String,
    count: usize,
}

fn moves_assertions(text: &str) -> Result<Vec<MovesAssertion>, String> {
    directive(text, "moves:")
        .into_iter()
        .map(|d| {
            let bad = || format!("bad `# moves:` directive `{d}`: want `CONFIG @function = N`");
            let mut w = d.split_whitespace();
            let config = w.next().ok_or_else(bad)?.to_string();
            let function = w.next().and_then(|f| f.strip_prefix('@')).ok_or_else(bad)?;
            if w.next() != Some("=") {
                return Err(bad());
            }
            let count = w.next().and_then(|n| n.parse().ok()).ok_or_else(bad)?;
            if !CONFIGS.iter().any(|(n, _, _)| *n == config) {
                return Err(format!(
                    "`# moves:` names an unknown configuration `{config}`"
                ));
            }
            Ok(MovesAssertion {
                config,
                function: function.to_string(),
                count,
            })
        })
        .collect()
}

/// `# compile-error: CONFIG … : TEXT` lines: configuration → the text its error must contain.
fn compile_errors(text: &str) -> Result<HashMap<String, String>, String> {
    let mut out = HashMap::new();
    for d in directive(text, "compile-error:") {
        let (configs, want) = d
            .split_once(" : ")
            .ok_or_else(|| format!("bad `# compile-error:` `{d}`: want `CONFIG … : TEXT`"))?;
        for c in configs.split_whitespace() {
            if !CONFIGS.iter().any(|(n, _, _)| *n == c) {
                return Err(format!(
                    "`# compile-error:` names an unknown configuration `{c}`"
                ));
            }
            out.insert(c.to_string(), want.trim().to_string());
        }
    }
    Ok(out)
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
    let assertions = moves_assertions(&text)?;
    let must_fail = compile_errors(&text)?;
    let mut errors = vec![];
    for config in configs() {
        if let Some(want) = must_fail.get(config) {
            match compile_and_simulate(&m, config) {
                Ok(_) => errors.push(format!("[{config}] compiled, but must fail with `{want}`")),
                Err(e) if !e.contains(want.as_str()) => {
                    errors.push(format!("[{config}] failed without `{want}`: {e}"))
                }
                Err(_) => {}
            }
            continue;
        }
        let run = match compile_and_simulate(&m, config) {
            Ok(r) => r,
            Err(e) => {
                errors.push(format!("[{config}] {e}"));
                continue;
            }
        };
        if run.output != expected || run.exit != exit {
            errors.push(format!(
                "[{config}] simulator printed {:?} exit {}, expected {expected:?} exit {exit}",
                run.output, run.exit
            ));
        }
        for a in assertions.iter().filter(|a| a.config == config) {
            match run.moves.get(&a.function) {
                None => errors.push(format!("[{config}] no function @{}", a.function)),
                Some(&n) if n != a.count => errors.push(format!(
                    "[{config}] @{}: {n} moves, the file asserts {}",
                    a.function, a.count
                )),
                Some(_) => {}
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
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

#[test]
fn compile_error_directive_is_parsed_and_checked() {
    let m = compile_errors("# compile-error: C L_ABI : incorrect pinning\n").unwrap();
    assert_eq!(m.get("C").map(String::as_str), Some("incorrect pinning"));
    assert_eq!(
        m.get("L_ABI").map(String::as_str),
        Some("incorrect pinning")
    );
    assert!(compile_errors("# compile-error: C incorrect pinning\n").is_err());
    assert!(compile_errors("# compile-error: NoSuchConfig : x\n").is_err());
}

#[test]
fn moves_directive_is_checked() {
    let ok = moves_assertions("# moves: L_ABI+C @main = 3  why\n").unwrap();
    assert_eq!(
        (ok[0].config.as_str(), ok[0].function.as_str(), ok[0].count),
        ("L_ABI+C", "main", 3)
    );
    for bad in [
        "# moves: L_ABI+C main = 3\n",
        "# moves: L_ABI+C @main 3\n",
        "# moves: L_ABI+C @main = x\n",
        "# moves: NoSuchConfig @main = 1\n",
    ] {
        assert!(moves_assertions(bad).is_err(), "accepted {bad:?}");
    }
}
