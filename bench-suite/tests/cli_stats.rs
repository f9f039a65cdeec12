//! `ssalab compile --stats` / `--stats-csv`: per-function move counts (static after
//! out-of-SSA, after coalescing, after allocation, weighted) and, by simulation when there is
//! a `main`, dynamic counts attributed per function. The CSV has exactly the bench suite's
//! `functions.csv` columns and the same numbers a bench job reports for the same build; its
//! dynamic columns agree with the simulator's own per-function CSV (`ssalab run
//! --stats-csv`), an independent path through the profiler.

use simulator::isa::Target;
use ssalab::bench::machine::MachineExecutor;
use ssalab::bench::output::FUNCTION_COLUMNS;
use ssalab::bench::{Executor, Job, JobStatus};
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

fn ssalab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ssalab"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssalab-cli-stats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// CSV text → header and rows as column-name maps.
fn read_csv(text: &str) -> (Vec<String>, Vec<HashMap<String, String>>) {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|rec| {
            let rec = rec.unwrap();
            header
                .iter()
                .cloned()
                .zip(rec.iter().map(String::from))
                .collect()
        })
        .collect();
    (header, rows)
}

fn num(row: &HashMap<String, String>, col: &str) -> u64 {
    row[col]
        .parse()
        .unwrap_or_else(|_| panic!("{col} = {:?}", row[col]))
}

const LOOP_C: &str = "\
int scale(int *a, int n, int k) {
    int s = 0;
    for (int i = 0; i < n; i++) { a[i] = a[i] * k; s += a[i]; }
    return s;
}
int a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
int main(void) { return scale(a, 8, 3) & 255; }
";

#[test]
fn csv_has_the_bench_columns_and_the_bench_numbers() {
    let lai = ssalab::programs::programs_root().join("lai/example8.lai");
    let csv_path = scratch("ex8.csv");
    let out = ssalab()
        .args(["compile", "--stats", "--config", "C", "--stats-csv"])
        .arg(&csv_path)
        .arg(&lai)
        .args(["-o", scratch("ex8.o").to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    // The table: a header line naming the status, a row per function, a total.
    assert!(err.contains("example8.lai (st231, C): ok"), "{err}");
    for name in ["gcd", "main", "<total>"] {
        assert!(
            err.lines()
                .any(|l| l.split_whitespace().next() == Some(name)),
            "{err}"
        );
    }
    let text = std::fs::read_to_string(&csv_path).unwrap();
    let (header, rows) = read_csv(&text);
    assert_eq!(header, FUNCTION_COLUMNS);
    assert!(rows
        .iter()
        .all(|r| r["status"] == "ok" && r["config"] == "C"));
    // The same build as a bench job: every count but the compile time is equal.
    let exec = MachineExecutor::new(ssalab::programs::programs_root(), false);
    let outcome = exec.run(&Job {
        program: "lai/example8.lai".into(),
        target: Target::St231,
        config: "C".into(),
        regs: None,
    });
    assert_eq!(outcome.status, JobStatus::Ok);
    for f in &outcome.functions {
        let row = rows
            .iter()
            .find(|r| r["function"] == f.function)
            .unwrap_or_else(|| panic!("no CSV row for {}", f.function));
        let pairs = [
            ("moves_ssa_out", f.moves_ssa_out),
            ("moves_coalesced", f.moves_coalesced),
            ("moves_final", f.moves_final),
            ("weighted_moves", f.weighted_moves),
            ("dyn_moves", f.dyn_moves),
            ("dyn_loads", f.dyn_loads),
            ("dyn_stores", f.dyn_stores),
            ("dyn_spill_loads", f.dyn_spill_loads),
            ("dyn_spill_stores", f.dyn_spill_stores),
            ("cycles", f.cycles),
            ("code_bytes", f.code_bytes),
            ("calls", f.calls),
        ];
        for (col, want) in pairs {
            assert_eq!(num(row, col), want, "{} {col}", f.function);
        }
    }
    // gcd is called: it ran, and its counts are its own (exclusive).
    let gcd = rows.iter().find(|r| r["function"] == "gcd").unwrap();
    assert!(num(gcd, "calls") >= 1 && num(gcd, "cycles") > 0);
    for r in &rows {
        assert!(num(r, "weighted_moves") >= num(r, "moves_final"), "{r:?}");
        assert!(
            num(r, "moves_coalesced") <= num(r, "moves_ssa_out"),
            "{r:?}"
        );
    }
}

#[test]
fn dynamic_columns_agree_with_the_simulator_profile() {
    let src = scratch("loop.c");
    std::fs::write(&src, LOOP_C).unwrap();
    let stats = scratch("loop-stats.csv");
    let prof = scratch("loop-run.csv");
    let out = ssalab()
        .args(["compile", "--regs", "4", "--stats-csv"])
        .arg(&stats)
        .arg(&src)
        .args(["-o", scratch("loop.o").to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = ssalab()
        .args(["run", "-q", "--regs", "4", "--stats-csv"])
        .arg(&prof)
        .arg(&src)
        .output()
        .unwrap();
    // 3 * 36 = 108: the program ran correctly under pressure.
    assert_eq!(run.status.code(), Some(108));
    let (_, rows) = read_csv(&std::fs::read_to_string(&stats).unwrap());
    let (_, prof_rows) = read_csv(&std::fs::read_to_string(&prof).unwrap());
    let scale = rows.iter().find(|r| r["function"] == "scale").unwrap();
    assert_eq!(scale["regs"], "4");
    let prof_scale = prof_rows
        .iter()
        .find(|r| r["function"] == "scale" && r["scope"] == "exclusive")
        .unwrap();
    for col in [
        "dyn_moves",
        "dyn_loads",
        "dyn_stores",
        "dyn_spill_loads",
        "dyn_spill_stores",
        "cycles",
    ] {
        assert_eq!(num(scale, col), num(prof_scale, col), "{col}");
    }
    // The loop loads and stores a[i] eight times each.
    assert!(num(scale, "dyn_loads") >= 8 && num(scale, "dyn_stores") >= 8);
}

#[test]
fn without_main_only_static_counts() {
    let src = scratch("nomain.c");
    std::fs::write(&src, "int twice(int x) { return x + x; }\n").unwrap();
    let stats = scratch("nomain.csv");
    let out = ssalab()
        .args(["compile", "--stats", "--target", "st120", "--stats-csv"])
        .arg(&stats)
        .arg(&src)
        .args(["-o", scratch("nomain.o").to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("not simulated: no main"), "{err}");
    let (_, rows) = read_csv(&std::fs::read_to_string(&stats).unwrap());
    let twice = rows.iter().find(|r| r["function"] == "twice").unwrap();
    assert_eq!(twice["status"], "not simulated: no main");
    assert_eq!(twice["target"], "st120");
    assert_eq!(num(twice, "cycles"), 0);
    assert!(num(twice, "code_bytes") > 0);
}

#[test]
fn a_wrong_lai_result_is_the_status() {
    let text = std::fs::read_to_string(ssalab::programs::programs_root().join("lai/example4.lai"))
        .unwrap();
    let bad = text.replacen("# expected:", "# expected: WRONG", 1);
    let p = scratch("wrong4.lai");
    std::fs::write(&p, bad).unwrap();
    let stats = scratch("wrong4.csv");
    let out = ssalab()
        .args(["compile", "--stats-csv"])
        .arg(&stats)
        .arg(&p)
        .args(["-o", scratch("wrong4.o").to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let (_, rows) = read_csv(&std::fs::read_to_string(&stats).unwrap());
    assert!(!rows.is_empty());
    for r in rows {
        assert!(r["status"].starts_with("wrong result"), "{r:?}");
    }
}
