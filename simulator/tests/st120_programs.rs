//! Hand-written ST120 programs (`tests/programs/st120/*.s`) whose results, cycle counts,
//! stalls and counters are derived by hand in their comments and declared in
//! `# expect: NAME = VALUE` lines, checked here against the simulator.
//!
//! NAME is `exit`, `output` (a quoted string), `trap` (a substring of the trap message), a
//! counter (`cycles`, `stall_operand`, `bundles`, `ops`, ...), `fn.F.calls`,
//! `fn.F.excl.COUNTER` / `fn.F.incl.COUNTER`, a register (`R3`, `P0`, `G4`), or `mem.EXPR`
//! (the 32-bit word at an address). VALUE is an integer, or `symbol ± integer`.

use simulator::asm::assemble;
use simulator::machine::{Counters, RunOptions, RunReport};
use simulator::object::Object;
use simulator::sim::st120::Machine;
use simulator::Target;
use std::path::Path;

fn counter(c: &Counters, name: &str) -> Option<u64> {
    Counters::NAMES
        .iter()
        .position(|n| *n == name)
        .map(|i| c.values()[i])
}

/// `123`, `-5`, `0x10`, `sym`, `sym + 8`, `sym - 4`.
fn value(obj: &Object, text: &str) -> i64 {
    let t = text.trim();
    let parse_num = |s: &str| -> Option<i64> {
        let s = s.trim();
        let (neg, s) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
        let v = match s.strip_prefix("0x") {
            Some(h) => i64::from_str_radix(h, 16).ok()?,
            None => s.parse().ok()?,
        };
        Some(if neg { -v } else { v })
    };
    if let Some(v) = parse_num(t) {
        return v;
    }
    let (sym, off) = match t.find(['+', '-']) {
        Some(i) => {
            let o = parse_num(&t[i + 1..]).expect("bad offset");
            (t[..i].trim(), if &t[i..i + 1] == "-" { -o } else { o })
        }
        None => (t, 0),
    };
    let s = obj
        .symbol(sym)
        .unwrap_or_else(|| panic!("no symbol `{sym}`"));
    i64::from(s.addr) + off
}

fn check(path: &Path) -> usize {
    let src = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy();
    let obj = assemble(&src, Some(Target::St120)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let opts = RunOptions {
        max_cycles: 1_000_000,
        ..RunOptions::default()
    };
    let mut m = Machine::load(&obj, &opts).unwrap_or_else(|t| panic!("{name}: {t}"));
    let r: RunReport = m.run::<false>(&mut std::io::sink());
    let mut checked = 0;
    for line in src.lines() {
        let Some(e) = line.trim().strip_prefix("# expect:") else {
            continue;
        };
        let (key, want) = e
            .split_once('=')
            .unwrap_or_else(|| panic!("{name}: bad `{line}`"));
        let (key, want) = (key.trim(), want.trim());
        let ctx = format!("{name}: {key}\n{}", simulator::asm::disassemble(&obj));
        match key {
            "exit" => assert_eq!(i64::from(r.exit_code), value(&obj, want), "{ctx}"),
            "output" => {
                assert_eq!(
                    String::from_utf8_lossy(&r.output),
                    want.trim_matches('"'),
                    "{ctx}"
                )
            }
            "trap" => {
                let t = r.trap.as_ref().map(|t| t.to_string()).unwrap_or_default();
                assert!(t.contains(want.trim_matches('"')), "{ctx}: trap `{t}`");
            }
            _ if key.starts_with("fn.") => {
                let parts: Vec<&str> = key.split('.').collect();
                let f = r
                    .functions
                    .iter()
                    .find(|f| f.name == parts[1])
                    .unwrap_or_else(|| panic!("{ctx}: no function"));
                let got = match parts.as_slice() {
                    [_, _, "calls"] => f.calls,
                    [_, _, "excl", c] => counter(&f.exclusive, c).expect("counter"),
                    [_, _, "incl", c] => counter(&f.inclusive, c).expect("counter"),
                    _ => panic!("{ctx}: bad key"),
                };
                assert_eq!(got as i64, value(&obj, want), "{ctx}");
            }
            _ if key.starts_with("mem.") => {
                let addr = value(&obj, &key[4..]) as u32;
                let got = m.memory().load32(addr).expect("mem");
                assert_eq!(i64::from(got), value(&obj, want), "{ctx}");
            }
            _ if key.len() >= 2 && key[1..].chars().all(|c| c.is_ascii_digit()) => {
                let n: usize = key[1..].parse().unwrap();
                let got = match &key[..1] {
                    "R" => m.r(n),
                    "P" => i64::from(m.p(n)),
                    "G" => i64::from(m.g(n)),
                    _ => panic!("{ctx}: bad register"),
                };
                assert_eq!(got, value(&obj, want), "{ctx}");
            }
            _ => {
                let got = counter(&r.totals, key).unwrap_or_else(|| panic!("{ctx}: unknown key"));
                assert_eq!(got as i64, value(&obj, want), "{ctx}\n{:?}", r.totals);
            }
        }
        checked += 1;
    }
    // Tracing sends every group through the simulator's general path: same results, and
    // one trace line per issued group.
    let traced_opts = RunOptions {
        trace: true,
        ..opts.clone()
    };
    let mut trace = Vec::new();
    let t = simulator::sim::run_traced(&obj, &traced_opts, &mut trace);
    assert_eq!(
        (t.exit_code, &t.output, t.totals),
        (r.exit_code, &r.output, r.totals),
        "{name}: trace"
    );
    assert_eq!(t.functions, r.functions, "{name}: trace");
    let lines = String::from_utf8(trace).unwrap().lines().count() as u64;
    assert_eq!(lines, r.totals.bundles, "{name}: one trace line per bundle");
    if !src.contains("# expect: trap") {
        assert!(r.trap.is_none(), "{name}: unexpected {:?}", r.trap);
    }
    assert!(checked > 0, "{name}: no expectations");
    checked
}

#[test]
fn hand_derived_programs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/st120");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "s"))
        .collect();
    files.sort();
    assert!(files.len() >= 6, "expected the six hand-written programs");
    let mut total = 0;
    for f in &files {
        total += check(f);
    }
    assert!(total >= 50, "only {total} expectations checked");
}
