//! `ssalab diff`: two hand-made functions.csv files with hand-computed deltas, order and
//! totals; two configurations run on a small program set, checked against the rows a bench
//! sweep of the same two configurations writes; exit statuses for bad input and usage.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn ssalab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ssalab"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssalab-diff-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const HEADER: &str =
    "program,function,target,config,regs,moves_final,dyn_moves,cycles,compile_us,status";

/// Side A (configuration `old`): f and g on st231, h on st231 only here, f on st120.
const A: &str = "p.c,f,st231,old,,10,100,1000,5,ok
p.c,g,st231,old,,5,50,500,5,ok
p.c,h,st231,old,,1,1,1,5,ok
p.c,f,st120,old,,7,70,700,5,ok";

/// Side B (configuration `new`): k only here; q.c failed on st120.
const B: &str = "p.c,f,st231,new,,8,130,900,9,ok
p.c,g,st231,new,,5,40,520,9,ok
p.c,k,st231,new,,2,2,2,9,ok
p.c,f,st120,new,,7,70,650,9,ok
q.c,*,st120,new,,0,0,0,0,trap: bad access";

fn write_sides(dir: &Path) -> (String, String) {
    let a = dir.join("a.csv");
    let b = dir.join("b");
    std::fs::create_dir_all(&b).unwrap();
    std::fs::write(&a, format!("{HEADER}\n{A}\n")).unwrap();
    // B is given as a directory holding functions.csv, as `ssalab bench --out` leaves it.
    std::fs::write(b.join("functions.csv"), format!("{HEADER}\n{B}\n")).unwrap();
    (a.display().to_string(), b.display().to_string())
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn two_files_give_hand_computed_deltas_order_and_totals() {
    let dir = scratch("files");
    let (a, b) = write_sides(&dir);
    let csv = dir.join("out.csv");
    let o = ssalab(&["diff", &a, &b, "--csv", csv.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Sorted by |delta dyn_moves|: f +30 before g -10; totals over f and g only (h and k are
    // one-sided): moves_final 15 -> 13, dyn_moves 150 -> 170, cycles 1500 -> 1420. On st120,
    // f alone: cycles 700 -> 650. compile_us is a time: not a metric.
    let expected = "\
target,program,function,config,regs,present,moves_final_a,moves_final_b,moves_final_delta,dyn_moves_a,dyn_moves_b,dyn_moves_delta,cycles_a,cycles_b,cycles_delta
st231,p.c,f,,,both,10,8,-2,100,130,30,1000,900,-100
st231,p.c,g,,,both,5,5,0,50,40,-10,500,520,20
st231,,,,,total,15,13,-2,150,170,20,1500,1420,-80
st120,p.c,f,,,both,7,7,0,70,70,0,700,650,-50
st120,,,,,total,7,7,0,70,70,0,700,650,-50
st231,p.c,h,,,A,1,,,1,,,1,,
st231,p.c,k,,,B,,2,,,2,,,2,
";
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), expected);
    let text = stdout(&o);
    let f = text.find("p.c f ").unwrap();
    let g = text.find("p.c g ").unwrap();
    assert!(f < g, "{text}");
    assert!(text.contains("only in A"), "{text}");
    assert!(text.contains("st231 p.c h"), "{text}");
    assert!(text.contains("st231 p.c k"), "{text}");
    assert!(text.contains("failed in B"), "{text}");
    assert!(text.contains("trap: bad access"), "{text}");
    let total = text.lines().find(|l| l.starts_with("TOTAL st231")).unwrap();
    let cells: Vec<&str> = total.split_whitespace().collect();
    // TOTAL st231 | dyn_moves A, B, % | d moves_final, d dyn_moves, d cycles
    assert_eq!(
        cells[2..],
        ["150", "170", "+13.3%", "-2", "+20", "-80"],
        "{total}"
    );

    // The reversed diff: every delta changes sign, the totals swap sides.
    let o = ssalab(&[
        "diff",
        &b,
        &a,
        "--metric",
        "cycles",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let back = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = back.lines().collect();
    assert_eq!(
        lines[1],
        "st231,p.c,f,,,both,8,10,2,130,100,-30,900,1000,100"
    );
    assert_eq!(lines[3], "st231,,,,,total,13,15,2,170,150,-20,1420,1500,80");
}

#[test]
fn rows_sort_by_the_chosen_metric() {
    let dir = scratch("metric");
    let (a, _) = write_sides(&dir);
    let csv = dir.join("out.csv");
    // Against A: f changes by 1 cycle, 0 dyn_moves, 0 moves_final; g by 400 cycles, 1
    // dyn_move, 0 moves_final. Ties (moves_final) fall back to the key order: f first.
    let c = dir.join("c.csv");
    std::fs::write(
        &c,
        format!("{HEADER}\np.c,f,st231,new,,10,100,1001,0,ok\np.c,g,st231,new,,5,51,900,0,ok\n"),
    )
    .unwrap();
    let c = c.display().to_string();
    for (metric, first) in [("cycles", "g"), ("dyn_moves", "g"), ("moves_final", "f")] {
        let o = ssalab(&[
            "diff",
            &a,
            &c,
            "--metric",
            metric,
            "--csv",
            csv.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = std::fs::read_to_string(&csv).unwrap();
        let second = text.lines().nth(1).unwrap();
        assert!(
            second.starts_with(&format!("st231,p.c,{first},")),
            "{metric}: {text}"
        );
    }
}

#[test]
fn bad_input_is_a_located_error_and_usage_is_status_2() {
    let dir = scratch("bad");
    let (a, _) = write_sides(&dir);
    let bad = dir.join("bad.csv");
    std::fs::write(
        &bad,
        format!("{HEADER}\np.c,f,st231,x,,1,2,3,0,ok\np.c,g,st231,x,,1,two,3,0,ok\n"),
    )
    .unwrap();
    let o = ssalab(&["diff", &a, bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("bad.csv:3:") && e.contains("`two`") && e.contains("dyn_moves"),
        "{e}"
    );
    let missing = dir.join("missing.csv");
    let o = ssalab(&["diff", &a, missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("missing.csv"));
    let no_header = dir.join("other.csv");
    std::fs::write(&no_header, "a,b\n1,2\n").unwrap();
    let o = ssalab(&["diff", &a, no_header.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("missing column `program`"),
        "{}",
        stderr(&o)
    );
    for args in [
        vec!["diff", "no_such_config", "baseline"],
        vec!["diff", "baseline", &a],
        vec!["diff", &a, &a, "--metric", "nope"],
        vec!["diff", &a, &a, "--programs", "fir"],
        vec!["diff", "baseline", "baseline"],
        vec!["diff", "baseline", "baseline", "--from", &a],
    ] {
        let o = ssalab(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).starts_with("error: "),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

/// Reads a CSV into header and records.
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

#[test]
fn two_configurations_agree_with_a_bench_sweep() {
    let dir = scratch("configs");
    let sweep = dir.join("sweep");
    let o = ssalab(&[
        "bench",
        "--programs",
        "fir,phi_swap",
        "--configs",
        "baseline,C",
        "--targets",
        "st231",
        "--no-times",
        "-q",
        "--out",
        sweep.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = dir.join("diff.csv");
    let o = ssalab(&[
        "diff",
        "baseline",
        "C",
        "--programs",
        "fir,phi_swap",
        "--targets",
        "st231",
        "-q",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The bench rows, by (function, config).
    let (bh, brows) = read_csv(&sweep.join("functions.csv"));
    let col = |name: &str| bh.iter().position(|h| h == name).unwrap();
    let mut bench: HashMap<(String, String), &Vec<String>> = HashMap::new();
    for r in &brows {
        bench.insert((r[col("function")].clone(), r[col("config")].clone()), r);
    }
    let (dh, drows) = read_csv(&csv);
    let metrics: Vec<&str> = dh.iter().filter_map(|h| h.strip_suffix("_a")).collect();
    assert!(
        metrics.contains(&"moves_final") && metrics.contains(&"cycles"),
        "{dh:?}"
    );
    let both: Vec<&Vec<String>> = drows.iter().filter(|r| r[5] == "both").collect();
    assert_eq!(
        both.len() * 2,
        brows.len(),
        "every function of the sweep is matched"
    );
    let dcol = |name: String| dh.iter().position(|h| *h == name).unwrap();
    let mut sums: HashMap<&str, (i128, i128)> = HashMap::new();
    for r in &both {
        let function = r[2].clone();
        let base = bench[&(function.clone(), "baseline".to_string())];
        let c = bench[&(function, "C".to_string())];
        for m in &metrics {
            let (va, vb): (i128, i128) =
                (base[col(m)].parse().unwrap(), c[col(m)].parse().unwrap());
            assert_eq!(r[dcol(format!("{m}_a"))], va.to_string(), "{m} of {r:?}");
            assert_eq!(r[dcol(format!("{m}_b"))], vb.to_string(), "{m} of {r:?}");
            assert_eq!(r[dcol(format!("{m}_delta"))], (vb - va).to_string());
            let s = sums.entry(m).or_default();
            s.0 += va;
            s.1 += vb;
        }
    }
    let total = drows.iter().find(|r| r[5] == "total").unwrap();
    for m in &metrics {
        assert_eq!(total[dcol(format!("{m}_a"))], sums[m].0.to_string(), "{m}");
        assert_eq!(total[dcol(format!("{m}_b"))], sums[m].1.to_string(), "{m}");
    }
    // The same two configurations taken from the sweep's files instead of run: the same CSV.
    let from = dir.join("from.csv");
    let o = ssalab(&[
        "diff",
        "baseline",
        "C",
        "--from",
        sweep.to_str().unwrap(),
        "--csv",
        from.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read(&from).unwrap() == std::fs::read(&csv).unwrap());
    let o = ssalab(&["diff", "baseline", "S3", "--from", sweep.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no rows of configuration `S3`"),
        "{}",
        stderr(&o)
    );
    // Sorted by decreasing |delta dyn_moves|.
    let d: Vec<i128> = both
        .iter()
        .map(|r| {
            r[dcol("dyn_moves_delta".into())]
                .parse::<i128>()
                .unwrap()
                .abs()
        })
        .collect();
    assert!(d.windows(2).all(|w| w[0] >= w[1]), "{d:?}");
    assert!(d[0] > 0, "C changes some function's executed copies: {d:?}");
}
