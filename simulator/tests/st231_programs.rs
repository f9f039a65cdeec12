//! Hand-written ST231 programs (tests/programs/st231/*.s) whose exit codes, outputs, cycle
//! counts, stalls and other counters were derived by hand in their comments; the `# expect:`
//! lines state the derived values and this test checks every one of them.
//!
//! Keys: exit, output ("..." with \n escapes), code_words, any counter name (cycles,
//! stall_operand, stall_memport, bundles, ops, nops, moves, swaps, loads, stores, spill_loads,
//! spill_stores, taken_branches), trap (substring of the message), trap_pc, trap_fn,
//! trap_cycle, fn:NAME.calls, fn:NAME.excl.COUNTER, fn:NAME.incl.COUNTER.
//! `# options:` lines set max_cycles and max_call_depth.

use simulator::asm::assemble;
use simulator::isa::Target;
use simulator::machine::{Counters, RunOptions, RunReport};
use simulator::sim::run;
use std::path::Path;

fn counter(c: &Counters, name: &str) -> Option<u64> {
    Counters::NAMES
        .iter()
        .position(|n| *n == name)
        .map(|i| c.values()[i])
}

fn parse_pairs(line: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = line.trim();
    while !rest.is_empty() {
        let eq = rest
            .find('=')
            .unwrap_or_else(|| panic!("bad expectation `{rest}`"));
        let key = rest[..eq].trim().to_string();
        rest = &rest[eq + 1..];
        let value;
        if let Some(r) = rest.strip_prefix('"') {
            let end = r.find('"').expect("closing quote");
            value = r[..end].replace("\\n", "\n");
            rest = r[end + 1..].trim_start();
        } else {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            value = rest[..end].to_string();
            rest = rest[end..].trim_start();
        }
        out.push((key, value));
    }
    out
}

fn num(v: &str) -> u64 {
    match v.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap(),
        None => v.parse().unwrap(),
    }
}

fn check(path: &Path) -> Result<usize, String> {
    let src = std::fs::read_to_string(path).unwrap();
    let obj = assemble(&src, Some(Target::St231)).map_err(|e| e.to_string())?;
    let mut opts = RunOptions::default();
    let mut expects = Vec::new();
    for line in src.lines() {
        if let Some(o) = line.strip_prefix("# options:") {
            for (k, v) in parse_pairs(o) {
                match k.as_str() {
                    "max_cycles" => opts.max_cycles = num(&v),
                    "max_call_depth" => opts.max_call_depth = num(&v) as u32,
                    _ => return Err(format!("unknown option {k}")),
                }
            }
        }
        if let Some(e) = line.strip_prefix("# expect:") {
            expects.extend(parse_pairs(e));
        }
    }
    if expects.is_empty() {
        return Err("no expectations".into());
    }
    let r: RunReport = run(&obj, &opts);
    let mut errors = Vec::new();
    // Tracing must not change any result, and prints one line per issued bundle.
    let traced_opts = RunOptions {
        trace: true,
        ..opts.clone()
    };
    let mut trace = Vec::new();
    let t = simulator::sim::run_traced(&obj, &traced_opts, &mut trace);
    if (t.exit_code, &t.output, t.totals, &t.functions)
        != (r.exit_code, &r.output, r.totals, &r.functions)
    {
        errors.push("tracing changed the results".to_string());
    }
    let lines = String::from_utf8_lossy(&trace).lines().count() as u64;
    if lines != r.totals.bundles {
        errors.push(format!(
            "{lines} trace lines for {} issued bundles",
            r.totals.bundles
        ));
    }
    for (k, v) in &expects {
        let got: String = match k.as_str() {
            "exit" => r.exit_code.to_string(),
            "output" => String::from_utf8_lossy(&r.output).into_owned(),
            "code_words" => (obj.code.len() / 4).to_string(),
            "trap" => match &r.trap {
                Some(t) if t.to_string().contains(v.as_str()) => v.clone(),
                Some(t) => t.to_string(),
                None => "no trap".into(),
            },
            "trap_pc" => r
                .trap
                .as_ref()
                .map_or("none".into(), |t| format!("{:#x}", t.pc)),
            "trap_fn" => r
                .trap
                .as_ref()
                .and_then(|t| t.function.clone())
                .unwrap_or_default(),
            "trap_cycle" => r
                .trap
                .as_ref()
                .map_or("none".into(), |t| t.cycle.to_string()),
            key if key.starts_with("fn:") => {
                let (name, field) = key[3..].split_once('.').expect("fn:NAME.FIELD");
                let f = r
                    .functions
                    .iter()
                    .find(|f| f.name == name)
                    .ok_or(format!("no function {name}"))?;
                match field.split_once('.') {
                    None if field == "calls" => f.calls.to_string(),
                    Some(("excl", c)) => counter(&f.exclusive, c)
                        .ok_or(format!("bad counter {c}"))?
                        .to_string(),
                    Some(("incl", c)) => counter(&f.inclusive, c)
                        .ok_or(format!("bad counter {c}"))?
                        .to_string(),
                    _ => return Err(format!("bad key {key}")),
                }
            }
            key => counter(&r.totals, key)
                .ok_or(format!("unknown key {key}"))?
                .to_string(),
        };
        let want = if k == "trap_pc" {
            format!("{:#x}", num(v))
        } else {
            v.clone()
        };
        if got != want {
            errors.push(format!("{k}: expected {want:?}, got {got:?}"));
        }
    }
    if !k_has_trap(&expects) {
        if let Some(t) = &r.trap {
            errors.push(format!("unexpected trap: {t}"));
        }
    }
    if errors.is_empty() {
        Ok(expects.len())
    } else {
        Err(errors.join("; "))
    }
}

fn k_has_trap(e: &[(String, String)]) -> bool {
    e.iter().any(|(k, _)| k == "trap")
}

#[test]
fn hand_derived_programs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/st231");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "s"));
    files.sort();
    assert!(files.len() >= 10, "programs missing in {}", dir.display());
    let mut failures = Vec::new();
    for f in &files {
        match check(f) {
            Ok(n) => assert!(n > 0),
            Err(e) => failures.push(format!("{}: {e}", f.file_name().unwrap().to_string_lossy())),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
