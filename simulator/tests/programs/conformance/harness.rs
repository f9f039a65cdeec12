//! Shared checker of the conformance programs (`tests/programs/conformance/{st231,st120}/*.s`),
//! included by `conformance_st231.rs` and `conformance_st120.rs` through `#[path]`.
//!
//! Each program states values derived by hand from isa.md and the README in
//! `# expect: KEY=VALUE ...` lines (several pairs per line allowed) and run options in
//! `# options: KEY=VALUE ...` lines. The checker runs the program once untraced and once
//! traced (the two must agree, with one trace line per issued bundle) and returns every
//! mismatch, so that one run reports all wrong figures at once.
//!
//! Keys: `exit`, `output` ("..." with `\n` escapes), `code_words`, any counter name of
//! `Counters::NAMES`, `trap` (substring of the trap message; a program without it must not
//! trap), `trap_pc`, `trap_fn`, `trap_cycle`, `fn.NAME.calls`, `fn.NAME.excl.COUNTER`,
//! `fn.NAME.incl.COUNTER`, and on ST120 only `R<n>`, `P<n>`, `G<n>` (final register values)
//! and `mem.SYMBOL+OFFSET` (the 32-bit word there). Options: `max_cycles`, `max_call_depth`,
//! `mem_size`.

/// One test per conformance program of directory `$dir` (`st231`/`st120`), calling the
/// including file's `check(file)`, plus a test that every program of the directory has one
/// (none silently skipped). Attributes (e.g. `#[ignore = "..."]`) may precede a name.
macro_rules! conformance_programs {
    ($dir:literal: $($(#[$attr:meta])* $name:ident,)*) => {
        $(
            #[test]
            $(#[$attr])*
            fn $name() {
                check(concat!(stringify!($name), ".s"));
            }
        )*
        /// Every program in the directory has its test above (none silently skipped).
        #[test]
        fn every_program_has_a_test() {
            let listed = [$(concat!(stringify!($name), ".s")),*];
            for p in harness::programs($dir) {
                assert!(listed.contains(&p.as_str()), "{p} has no test");
            }
        }
    };
}
pub(crate) use conformance_programs;

use simulator::asm::assemble;
use simulator::machine::{Counters, RunOptions, RunReport};
use simulator::object::Object;
use simulator::Target;
use std::path::{Path, PathBuf};

/// The directory of one target's conformance programs.
pub fn dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs/conformance")
        .join(target)
}

/// Every `.s` file of a directory, sorted.
pub fn programs(target: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir(target))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".s"))
        .collect();
    v.sort();
    v
}

fn counter(c: &Counters, name: &str) -> Option<u64> {
    Counters::NAMES
        .iter()
        .position(|n| *n == name)
        .map(|i| c.values()[i])
}

/// `k=v k2="a b" ...` (spaces around `=` allowed).
fn parse_pairs(line: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    let mut rest = line.trim();
    while !rest.is_empty() {
        let eq = rest.find('=').ok_or(format!("bad pair `{rest}`"))?;
        let key = rest[..eq].trim().to_string();
        rest = rest[eq + 1..].trim_start();
        let value;
        if let Some(r) = rest.strip_prefix('"') {
            let end = r.find('"').ok_or("missing closing quote")?;
            value = r[..end].replace("\\n", "\n");
            rest = r[end + 1..].trim_start();
        } else {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            value = rest[..end].to_string();
            rest = rest[end..].trim_start();
        }
        out.push((key, value));
    }
    Ok(out)
}

/// `123`, `-5`, `0x10`, `-0x10`, `sym`, `sym+8`, `sym-4`.
fn value(obj: &Object, text: &str) -> Result<i64, String> {
    let parse_num = |s: &str| -> Option<i64> {
        let s = s.trim();
        let (neg, s) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
        let v = match s.strip_prefix("0x") {
            Some(h) => i64::from_str_radix(h, 16).ok()?,
            None => s.parse().ok()?,
        };
        Some(if neg { -v } else { v })
    };
    let t = text.trim();
    if let Some(v) = parse_num(t) {
        return Ok(v);
    }
    let (sym, off) = match t.find(['+', '-']) {
        Some(i) => {
            let o = parse_num(&t[i + 1..]).ok_or(format!("bad offset in `{t}`"))?;
            (t[..i].trim(), if &t[i..i + 1] == "-" { -o } else { o })
        }
        None => (t, 0),
    };
    let s = obj.symbol(sym).ok_or(format!("no symbol `{sym}`"))?;
    Ok(i64::from(s.addr) + off)
}

/// Final machine state the ST120 checker can inspect (registers and memory).
pub trait State {
    fn reg(&self, key: &str) -> Option<i64>;
    fn mem32(&self, addr: u32) -> Option<u32>;
}

/// No state access (ST231: results are checked through output and exit code).
#[allow(dead_code)] // used by the ST231 test crate only
pub struct NoState;
impl State for NoState {
    fn reg(&self, _: &str) -> Option<i64> {
        None
    }
    fn mem32(&self, _: u32) -> Option<u32> {
        None
    }
}

/// Assemble and run `file` of `target`; `runner` runs the object and may return the final
/// state. Returns the list of mismatches (empty = conforming).
pub fn check<S: State>(
    target: Target,
    sub: &str,
    file: &str,
    runner: impl Fn(&Object, &RunOptions) -> (RunReport, S),
) -> Vec<String> {
    let path = dir(sub).join(file);
    let src = std::fs::read_to_string(&path).unwrap();
    let obj = match assemble(&src, Some(target)) {
        Ok(o) => o,
        Err(e) => return vec![format!("assembly failed: {e}")],
    };
    let mut opts = RunOptions {
        max_cycles: 10_000_000,
        ..RunOptions::default()
    };
    let mut expects = Vec::new();
    let mut errors = Vec::new();
    for line in src.lines() {
        let line = line.trim();
        if let Some(o) = line.strip_prefix("# options:") {
            for (k, v) in parse_pairs(o).unwrap() {
                let n = value(&obj, &v).unwrap();
                match k.as_str() {
                    "max_cycles" => opts.max_cycles = n as u64,
                    "max_call_depth" => opts.max_call_depth = n as u32,
                    "mem_size" => opts.mem_size = n as u32,
                    _ => errors.push(format!("unknown option {k}")),
                }
            }
        }
        if let Some(e) = line.strip_prefix("# expect:") {
            expects.extend(parse_pairs(e).unwrap());
        }
    }
    if expects.is_empty() {
        return vec!["no expectations".into()];
    }
    let (r, state) = runner(&obj, &opts);
    // Tracing must not change the results and prints one line per issued bundle.
    let mut trace = Vec::new();
    let traced = RunOptions {
        trace: true,
        ..opts.clone()
    };
    let t = simulator::sim::run_traced(&obj, &traced, &mut trace);
    if (t.exit_code, &t.output, t.totals, &t.functions, &t.trap)
        != (r.exit_code, &r.output, r.totals, &r.functions, &r.trap)
    {
        errors.push(format!(
            "tracing changed the results: traced {:?} {:?}, untraced {:?} {:?}",
            t.totals, t.trap, r.totals, r.trap
        ));
    }
    let lines = String::from_utf8_lossy(&trace).lines().count() as u64;
    if lines != r.totals.bundles {
        errors.push(format!("{lines} trace lines, {} bundles", r.totals.bundles));
    }
    for (k, v) in &expects {
        let got: Result<String, String> = (|| {
            Ok(match k.as_str() {
                "exit" => r.exit_code.to_string(),
                "output" => String::from_utf8_lossy(&r.output).into_owned(),
                "code_words" => (obj.code.len() / 4).to_string(),
                "trap" => match &r.trap {
                    Some(t) if t.to_string().contains(v.as_str()) => v.clone(),
                    Some(t) => t.to_string(),
                    None => "no trap".into(),
                },
                "trap_pc" => r.trap.as_ref().map_or("none".into(), |t| t.pc.to_string()),
                "trap_fn" => r
                    .trap
                    .as_ref()
                    .and_then(|t| t.function.clone())
                    .unwrap_or_else(|| "none".into()),
                "trap_cycle" => r
                    .trap
                    .as_ref()
                    .map_or("none".into(), |t| t.cycle.to_string()),
                key if key.starts_with("fn.") => {
                    let parts: Vec<&str> = key.split('.').collect();
                    let f = r
                        .functions
                        .iter()
                        .find(|f| f.name == parts[1])
                        .ok_or(format!("no function {}", parts[1]))?;
                    match parts.as_slice() {
                        [_, _, "calls"] => f.calls.to_string(),
                        [_, _, "excl", c] => counter(&f.exclusive, c)
                            .ok_or(format!("bad counter {c}"))?
                            .to_string(),
                        [_, _, "incl", c] => counter(&f.inclusive, c)
                            .ok_or(format!("bad counter {c}"))?
                            .to_string(),
                        _ => return Err(format!("bad key {key}")),
                    }
                }
                key if key.starts_with("mem.") => {
                    let a = value(&obj, &key[4..])? as u32;
                    state
                        .mem32(a)
                        .ok_or(format!("cannot read memory at {a:#x}"))?
                        .to_string()
                }
                key if counter(&r.totals, key).is_some() => {
                    counter(&r.totals, key).unwrap().to_string()
                }
                key => state
                    .reg(key)
                    .ok_or(format!("unknown key {key}"))?
                    .to_string(),
            })
        })();
        let want: String = match k.as_str() {
            "output" | "trap" | "trap_fn" => v.clone(),
            k if k.starts_with("mem.") => (value(&obj, v).unwrap() as u32).to_string(),
            _ => value(&obj, v).unwrap().to_string(),
        };
        match got {
            Ok(g) if g == want => {}
            Ok(g) => errors.push(format!("{k}: expected {want:?}, got {g:?}")),
            Err(e) => errors.push(format!("{k}: {e}")),
        }
    }
    if !expects.iter().any(|(k, _)| k == "trap") {
        if let Some(t) = &r.trap {
            errors.push(format!("unexpected trap: {t}"));
        }
    }
    if !errors.is_empty() {
        errors.push(format!(
            "(totals {:?}, exit {}, output {:?})",
            r.totals,
            r.exit_code,
            String::from_utf8_lossy(&r.output)
        ));
    }
    errors
}
