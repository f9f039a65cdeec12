//! Text-IR file tests: every `tests/filetests/*.ir` file is one scenario.
//!
//! ```text
//! // passes: ssa copyprop        the passes to run, in order (pipeline names)
//! // run                         interpret before and after every pass: same output
//! // output: 12\n                expected output of the run (`\n`, `\t`, `\\` escapes)
//! // exit: 2                     expected exit code of the run
//! func @main() -> i32 { ... }    the input module
//! // expect:
//! func @main() -> i32 { ... }    the module expected after the passes
//! ```
//!
//! The SSA verifier runs after every pass. The expected text is compared after parsing and
//! printing it (so spacing and comments do not matter). Set `FILETESTS_SHOW=1` to print the
//! actual output of failing tests in a form that can be pasted after `// expect:` — the
//! expectations in this directory were written by hand and then checked, not generated.

use compiler::interp::{run, Options};
use compiler::ir::{parse_module, Module};
use compiler::pipeline::run_passes;
use compiler::ssa::verify_module;
use std::path::{Path, PathBuf};

struct FileTest {
    passes: Vec<String>,
    run: bool,
    output: Option<String>,
    exit: Option<i32>,
    input: String,
    expect: String,
}

/// The file's oracle text with its escapes decoded (`compiler::lai::unescape_directive`).
fn unescape(s: &str) -> String {
    compiler::lai::unescape_directive(s).unwrap_or_else(|e| panic!("bad directive `{s}`: {e}"))
}

fn parse_test(path: &Path) -> Result<FileTest, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let (input, expect) = text
        .split_once("// expect:")
        .ok_or("missing `// expect:` line")?;
    let mut t = FileTest {
        passes: Vec::new(),
        run: false,
        output: None,
        exit: None,
        input: input.to_string(),
        expect: expect.to_string(),
    };
    for line in input.lines() {
        let Some(d) = line.trim().strip_prefix("//") else {
            continue;
        };
        let d = d.trim();
        if let Some(p) = d.strip_prefix("passes:") {
            t.passes = p.split_whitespace().map(str::to_string).collect();
        } else if d == "run" {
            t.run = true;
        } else if let Some(o) = d.strip_prefix("output:") {
            t.output = Some(unescape(o.trim()));
        } else if let Some(e) = d.strip_prefix("exit:") {
            t.exit = Some(
                e.trim()
                    .parse()
                    .map_err(|_| format!("bad exit code `{e}`"))?,
            );
        }
    }
    if t.passes.is_empty() {
        return Err("missing `// passes:` line".into());
    }
    Ok(t)
}

fn interpret(m: &Module) -> Result<(String, i32), String> {
    let o = run(m, "main", &Options::default()).map_err(|e| e.to_string())?;
    if let Some(trap) = &o.trap {
        return Err(format!("trap: {trap}"));
    }
    Ok((o.output_string(), o.exit_code))
}

fn check(path: &Path) -> Result<(), String> {
    let t = parse_test(path)?;
    let mut module = parse_module(&t.input).map_err(|e| format!("input: {e}"))?;
    let expected_module = parse_module(&t.expect).map_err(|e| format!("expected text: {e}"))?;
    let before = if t.run {
        let got = interpret(&module).map_err(|e| format!("input run: {e}"))?;
        if let Some(o) = &t.output {
            if &got.0 != o {
                return Err(format!("input prints {:?}, expected {o:?}", got.0));
            }
        }
        if let Some(e) = t.exit {
            if got.1 != e {
                return Err(format!("input exits with {}, expected {e}", got.1));
            }
        }
        Some(got)
    } else {
        None
    };
    let passes: Vec<&str> = t.passes.iter().map(String::as_str).collect();
    run_passes(&mut module, &passes, &mut |pass, m| {
        verify_module(m).map_err(|errors| {
            let list: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            format!("verifier: {}\n{m}", list.join("\n"))
        })?;
        if let Some(before) = &before {
            let after = interpret(m)?;
            if &after != before {
                return Err(format!(
                    "run after {pass}: {after:?} instead of {before:?}\n{m}"
                ));
            }
        }
        Ok(())
    })
    .map_err(|e| e.to_string())?;
    let got = module.to_string();
    let want = expected_module.to_string();
    if got != want {
        if std::env::var_os("FILETESTS_SHOW").is_some() {
            eprintln!("---- actual output of {}:\n{got}", path.display());
        }
        return Err(format!(
            "output differs from the expectation:\n{}",
            diff(&want, &got)
        ));
    }
    Ok(())
}

/// A line diff good enough for short functions: `-` expected, `+` actual.
fn diff(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let mut out = String::new();
    let n = w.len().max(g.len());
    for k in 0..n {
        match (w.get(k), g.get(k)) {
            (Some(a), Some(b)) if a == b => out.push_str(&format!("  {a}\n")),
            (a, b) => {
                if let Some(a) = a {
                    out.push_str(&format!("- {a}\n"));
                }
                if let Some(b) = b {
                    out.push_str(&format!("+ {b}\n"));
                }
            }
        }
    }
    out
}

fn test_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ir"))
        .collect();
    files.sort();
    files
}

#[test]
fn filetests() {
    let files = test_files();
    assert!(files.len() >= 20, "only {} file tests found", files.len());
    let mut failures = Vec::new();
    for path in &files {
        if let Err(e) = check(path) {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} file tests failed:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}

/// The runner itself must notice a wrong expectation and a wrong run directive.
#[test]
fn runner_detects_mismatches() {
    let dir = std::env::temp_dir().join(format!("ssalab-filetest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad_expect = dir.join("bad_expect.ir");
    std::fs::write(
        &bad_expect,
        "// passes: ssa\n// run\nfunc @main() -> i32 {\nb0:\n  %0:i32 = const 1\n  ret %0\n}\n// expect:\nfunc @main() -> i32 {\nb0:\n  %0:i32 = const 2\n  ret %0\n}\n",
    )
    .unwrap();
    assert!(check(&bad_expect).unwrap_err().contains("differs"));
    let bad_exit = dir.join("bad_exit.ir");
    std::fs::write(
        &bad_exit,
        "// passes: ssa\n// run\n// exit: 3\nfunc @main() -> i32 {\nb0:\n  %0:i32 = const 1\n  ret %0\n}\n// expect:\nfunc @main() -> i32 {\nb0:\n  %0:i32 = const 1\n  ret %0\n}\n",
    )
    .unwrap();
    assert!(check(&bad_exit).unwrap_err().contains("exits with 1"));
    std::fs::remove_dir_all(&dir).ok();
}
