//! `ssalab report` on synthetic sweeps: group totals and the paper's +/- convention checked
//! against hand-computed values, failed rows excluded, byte-identical regeneration, SVG
//! plots, and clear errors for bad inputs.

use clap::Parser;
use ssalab::bench::manifest::Manifest;
use ssalab::report::generate;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[path = "../src/cmd/report.rs"]
#[allow(dead_code)]
mod report_cmd;

const HEADER: &str = "program,function,target,config,regs,moves_ssa_out,moves_coalesced,\
moves_final,weighted_moves,dyn_moves,dyn_loads,dyn_stores,dyn_spill_loads,dyn_spill_stores,\
cycles,stall_cycles,bundles,ops,code_bytes,compile_us,status,calls,incl_cycles,dyn_swaps,\
taken_branches";

/// A fresh scratch directory under the system temp dir.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssalab-report-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A manifest with three programs (dsp, codec, feature) whose files exist.
fn manifest(dir: &Path) -> Manifest {
    for p in ["dsp/a.c", "codec/b.c", "feature/c.c"] {
        let path = dir.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "int main(void) { return 0; }\n").unwrap();
    }
    let text = "version = 1\ndefault_targets = [\"st231\", \"st120\"]\n\
        [[program]]\npath = \"dsp/a.c\"\ngroup = \"dsp\"\nkernels = [\"f\", \"g\"]\n\
        [[program]]\npath = \"codec/b.c\"\ngroup = \"codec\"\nkernels = [\"h\"]\n\
        [[program]]\npath = \"feature/c.c\"\ngroup = \"feature\"\nkernels = [\"k\"]\n";
    let file = dir.join("suite.toml");
    std::fs::write(&file, text).unwrap();
    Manifest::load(&file).unwrap()
}

/// A functions.csv row whose count columns are all `v` except the spill columns (`v` each,
/// so spills = 2v) and cycles (100v).
fn row(program: &str, function: &str, target: &str, config: &str, v: u64, status: &str) -> String {
    format!(
        "{program},{function},{target},{config},,{v},{v},{v},{v},{v},0,0,{v},{v},{c},0,0,0,0,0,\
         {status},0,0,0,0",
        c = 100 * v
    )
}

fn runs(configs: &[&str]) -> String {
    runs_with_rows(configs, 1)
}

/// runs.toml of a sweep whose functions.csv has `rows` rows.
fn runs_with_rows(configs: &[&str], rows: usize) -> String {
    let list = |v: &[&str]| {
        v.iter()
            .map(|s| format!("\"{s}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "tool = \"ssalab\"\nversion = \"9.9.9\"\nformat = 1\nmanifest = \"suite.toml\"\n\n\
         [sweep]\nmanifest_fingerprint = \"0\"\njob_list_fingerprint = \"0\"\njobs_total = 1\n\
         targets = [\"st231\", \"st120\"]\nconfigs = [{}]\nprograms = []\ngroups = []\n\
         all_functions = true\nno_times = true\n\n[results]\njobs = 1\nok = 1\nfailed = 0\n\
         function_rows = {rows}\n",
        list(configs)
    )
}

/// Per-kernel static counts, (program, function, [base, x, y]): hand-chosen so that the
/// group totals below can be checked by hand.
const KERNELS: [(&str, &str, [u64; 3]); 4] = [
    ("dsp/a.c", "f", [10, 5, 12]),
    ("dsp/a.c", "g", [4, 4, 0]),
    ("codec/b.c", "h", [20, 25, 20]),
    ("feature/c.c", "k", [0, 2, 0]),
];
const CONFIGS: [&str; 3] = ["base", "x", "y"];

/// Three configurations on two targets; on st120 the job of feature/c.c under `y` failed;
/// `main` of dsp/a.c is a non-kernel row.
fn three_config_input(dir: &Path) {
    let mut lines = vec![HEADER.to_string()];
    for target in ["st231", "st120"] {
        for (ci, config) in CONFIGS.iter().enumerate() {
            for (program, function, values) in KERNELS {
                if target == "st120" && *config == "y" && program == "feature/c.c" {
                    lines.push(row(program, "*", target, config, 0, "trap: bad access"));
                    continue;
                }
                lines.push(row(program, function, target, config, values[ci], "ok"));
            }
            lines.push(row("dsp/a.c", "main", target, config, 1000, "ok"));
        }
    }
    std::fs::write(dir.join("functions.csv"), lines.join("\n") + "\n").unwrap();
    std::fs::write(
        dir.join("runs.toml"),
        runs_with_rows(&CONFIGS, lines.len() - 1),
    )
    .unwrap();
}

/// The lines of the table titled `heading` (a `### ` line containing it) in `tables`.
fn table<'a>(tables: &'a str, heading: &str) -> Vec<&'a str> {
    let start = tables
        .lines()
        .position(|l| l.starts_with("### ") && l.contains(heading))
        .unwrap_or_else(|| panic!("no table `{heading}` in\n{tables}"));
    tables
        .lines()
        .skip(start + 1)
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .collect()
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

#[test]
fn group_totals_and_signs_match_hand_computation() {
    let dir = scratch("signs");
    let m = manifest(&dir);
    three_config_input(&dir);
    let out = dir.join("out");
    generate(&dir, &out, &m).unwrap();
    let t = read(&out, "tables.md");
    // st231 moves_final: dsp 10+4=14, x 5+4=9 (-5, -35.7%), y 12+0=12 (-2, -14.3%);
    // codec 20, 25 (+5, +25.0%), 20 (+0); feature 0, 2 (+2, no percent of 0), 0 (+0);
    // all 34, 36 (+2, +5.9%), 32 (-2, -5.9%). `main` (1000) must not count.
    assert_eq!(
        table(&t, "st231: Static moves in the final code"),
        [
            "| group | kernels | base | x | y |",
            "|---|---:|---:|---:|---:|",
            "| dsp | 2 | 14 | -5 (-35.7%) | -2 (-14.3%) |",
            "| codec | 1 | 20 | +5 (+25.0%) | +0 (+0.0%) |",
            "| feature | 1 | 0 | +2 | +0 |",
            "| **all** | 4 | 34 | +2 (+5.9%) | -2 (-5.9%) |",
        ]
    );
    // Spills are loads + stores = 2v: dsp 28, 18 (-10), 24 (-4).
    let spills = table(&t, "st231: Dynamic spill loads + stores");
    assert_eq!(spills[2], "| dsp | 2 | 28 | -10 (-35.7%) | -4 (-14.3%) |");
    // Cycles are 100v: all 3400, 3600 (+200), 3200 (-200).
    let cycles = table(&t, "st231: Cycles");
    assert_eq!(
        cycles[5],
        "| **all** | 4 | 3400 | +200 (+5.9%) | -200 (-5.9%) |"
    );
    for heading in [
        "st231: Static moves after out-of-SSA",
        "st231: Static moves after coalescing",
        "st231: Weighted moves",
        "st231: Dynamic moves",
    ] {
        assert_eq!(
            table(&t, heading)[2],
            "| dsp | 2 | 14 | -5 (-35.7%) | -2 (-14.3%) |"
        );
    }
    assert!(
        t.contains("**Convention.**") && t.contains("`+59` = 59 more than `base`"),
        "the convention is explained"
    );
    assert!(t.contains("3 row(s) of functions that are not manifest kernels"));
}

#[test]
fn failed_rows_are_excluded_and_counted() {
    let dir = scratch("failed");
    let m = manifest(&dir);
    three_config_input(&dir);
    let out = dir.join("out");
    generate(&dir, &out, &m).unwrap();
    let t = read(&out, "tables.md");
    // feature/c.c failed under y on st120: left out of every st120 column.
    assert_eq!(
        table(&t, "st120: Static moves in the final code"),
        [
            "| group | kernels | base | x | y |",
            "|---|---:|---:|---:|---:|",
            "| dsp | 2 | 14 | -5 (-35.7%) | -2 (-14.3%) |",
            "| codec | 1 | 20 | +5 (+25.0%) | +0 (+0.0%) |",
            "| **all** | 3 | 34 | +0 (+0.0%) | -2 (-5.9%) |",
        ]
    );
    assert!(t.contains("Footnote (st120): 1 failed row(s)"), "{t}");
    assert!(t.contains("`feature/c.c`"));
    assert!(t.contains("Footnote (st231): No failed rows."));
}

#[test]
fn regeneration_is_byte_identical() {
    let dir = scratch("identical");
    let m = manifest(&dir);
    three_config_input(&dir);
    let a = generate(&dir, &dir.join("a"), &m).unwrap();
    let b = generate(&dir, &dir.join("b"), &m).unwrap();
    assert_eq!(a.len(), b.len());
    // tables + findings + README + 2 targets × (totals, scatter, 3 ratio plots)
    assert_eq!(a.len(), 3 + 2 * 5);
    for (pa, pb) in a.iter().zip(&b) {
        assert_eq!(pa.file_name(), pb.file_name());
        assert!(
            std::fs::read(pa).unwrap() == std::fs::read(pb).unwrap(),
            "{} differs",
            pa.display()
        );
    }
    // Regenerating in place over the old output changes nothing either.
    let before: Vec<Vec<u8>> = a.iter().map(|p| std::fs::read(p).unwrap()).collect();
    generate(&dir, &dir.join("a"), &m).unwrap();
    let after: Vec<Vec<u8>> = a.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert!(before == after);
}

#[test]
fn plots_are_svg_with_the_series() {
    let dir = scratch("plots");
    let m = manifest(&dir);
    three_config_input(&dir);
    let out = dir.join("out");
    generate(&dir, &out, &m).unwrap();
    // Ratios of moves_final on st231 (KERNELS): under x, f 5/10, g 4/4, h 25/20 (k has 0
    // under base: no ratio); under y, f 12/10, g 0/4 (a triangle on the floor), h 20/20.
    let svg = read(&out, "plot-st231-ratios-moves_final.svg");
    assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
    assert!(svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("how does each configuration&apos;s moves_final compare with base?"));
    assert!(
        svg.contains("x: 1 fewer, 1 equal, 1 more (median 1.000)"),
        "panel caption"
    );
    assert!(
        svg.contains("y: 1 fewer, 1 equal, 1 more (median 1.000)"),
        "panel caption"
    );
    assert_eq!(
        svg.matches("<circle").count(),
        3 + 2,
        "one point per ratio above 0"
    );
    assert_eq!(svg.matches("<polygon").count(), 1, "g's ratio 0 under y");
    // The extremes are named (f lowest under x at 0.5), the ratio-1 kernels are not.
    assert!(svg.contains(" f 0.50"), "lowest kernel named");
    assert!(!svg.contains(" g 1.0"), "a kernel at 1.0 is not an extreme");
    // Totals over f, g, h, k on st231: base 34, x 36 (+5.9%), y 32 (-5.9%).
    let totals = read(&out, "plot-st231-totals.svg");
    assert!(totals.contains(">\n 34\n</text>"), "base total");
    assert!(totals.contains(" 36 (+5.9%)") && totals.contains(" 32 (-5.9%)"));
    // Static and dynamic counts are equal per kernel here: rank correlation 1.
    let scatter = read(&out, "plot-st231-static-vs-dynamic.svg");
    assert!(scatter.contains("moves_final (Spearman 1.00)"), "legend");
    let readme = read(&out, "README.md");
    assert!(
        readme.contains("| `x` | 1 | 1 | 1 | 0 | 1.000 | 1 (1) |"),
        "{readme}"
    );
    assert!(
        readme.contains("| `y` | 1 | 1 | 1 | 1 | 1.000 | 1 (0) |"),
        "{readme}"
    );
    for name in [
        "plot-st231-totals.svg",
        "plot-st231-static-vs-dynamic.svg",
        "plot-st231-ratios-dyn_moves.svg",
        "plot-st231-ratios-cycles.svg",
        "plot-st120-ratios-moves_final.svg",
    ] {
        assert!(read(&out, name).starts_with("<svg"), "{name}");
        assert!(readme.contains(name), "README lists {name}");
    }
    assert!(readme.contains("`ssalab report --in DIR --out DIR` regenerates the report"));
    assert!(readme.contains("ssalab 9.9.9"));
}

#[test]
fn single_configuration_gives_absolute_plots() {
    let dir = scratch("single");
    let m = manifest(&dir);
    let mut lines = vec![HEADER.to_string()];
    for target in ["st231", "st120"] {
        for (program, function, values) in KERNELS {
            lines.push(row(program, function, target, "baseline", values[0], "ok"));
        }
    }
    std::fs::write(dir.join("functions.csv"), lines.join("\n") + "\n").unwrap();
    std::fs::write(
        dir.join("runs.toml"),
        runs_with_rows(&["baseline"], lines.len() - 1),
    )
    .unwrap();
    let out = dir.join("out");
    let files = generate(&dir, &out, &m).unwrap();
    // tables, findings, README, and per target the totals and the scatter (no ratios).
    assert_eq!(files.len(), 7);
    // The paper's configurations are not in this sweep: said, never silently skipped.
    let f = read(&out, "findings.md");
    assert!(f.contains("Not in this sweep: `L_phi,ABI+C`"), "{f}");
    assert!(
        f.contains("— under `C` **not evaluated**: a configuration is not in this sweep"),
        "{f}"
    );
    let t = read(&out, "tables.md");
    assert_eq!(
        table(&t, "st231: Static moves in the final code")[5],
        "| **all** | 4 | 34 |"
    );
    let svg = read(&out, "plot-st231-static-vs-dynamic.svg");
    assert!(svg.starts_with("<svg") && svg.contains("baseline"));
    // f, g, h (k has 0 moves: not on a log axis), plus the legend's marker.
    assert_eq!(svg.matches("<circle").count(), 3 + 1);
    assert!(!out.join("plot-st231-ratios-moves_final.svg").exists());
    assert!(read(&out, "README.md").contains("single configuration"));
}

/// Table 5 at its three points (weighted moves after out-of-SSA, after the coalescer, final)
/// under both coalescers, with hand-chosen counts: every kernel has the same counts, so each
/// total is 4 × the per-kernel value below.
#[test]
fn table5_at_three_points_under_both_coalescers() {
    let dir = scratch("table5");
    let m = manifest(&dir);
    // config, (weighted after out-of-SSA, after coalescing, final) per kernel.
    let configs: [(&str, [u64; 3]); 8] = [
        ("L_phi,ABI+C", [100, 50, 40]),
        ("L_phi,ABI+C/depth", [104, 50, 45]),
        ("L_phi,ABI+C/opt", [108, 52, 40]),
        ("L_phi,ABI+C/pess", [200, 60, 41]),
        ("L_phi,ABI+Cc", [100, 60, 45]),
        ("L_phi,ABI+Cc/depth", [104, 66, 45]),
        ("L_phi,ABI+Cc/opt", [108, 70, 46]),
        ("L_phi,ABI+Cc/pess", [200, 100, 90]),
    ];
    let mut lines = vec![format!(
        "{HEADER},weighted_moves_ssa_out,weighted_moves_coalesced"
    )];
    for target in ["st231", "st120"] {
        for (config, [w_out, w_coal, w_final]) in configs {
            for (program, function, _) in KERNELS {
                lines.push(format!(
                    "{program},{function},{target},\"{config}\",,1,1,1,{w_final},1,0,0,0,0,100,\
                     0,0,0,0,0,ok,0,0,0,0,{w_out},{w_coal}"
                ));
            }
        }
    }
    std::fs::write(dir.join("functions.csv"), lines.join("\n") + "\n").unwrap();
    let names: Vec<&str> = configs.iter().map(|c| c.0).collect();
    std::fs::write(
        dir.join("runs.toml"),
        runs_with_rows(&names, lines.len() - 1),
    )
    .unwrap();
    let out = dir.join("out");
    generate(&dir, &out, &m).unwrap();
    let f = read(&out, "findings.md");
    // depth: 416 vs 400 is +4.0% (within ±5%) at the paper's point, under both.
    assert!(
        f.contains(
            "- st231: Table 5: `L_phi,ABI+C/depth` ≈ (±5%) `L_phi,ABI+C` (weighted_moves_ssa_out) \
         — under `C` **holds**: 416 vs 400 (+4.0%) over 4 kernels; under `Cc` **holds**: 416 vs \
         400 (+4.0%) over 4 kernels\n"
        ),
        "{f}"
    );
    // opt after the coalescer: C 208 vs 200 (+4%), Cc 280 vs 240 (+16.7% > +10%).
    assert!(
        f.contains(
            "`L_phi,ABI+C/opt` ≤ +10% of `L_phi,ABI+C` (weighted_moves_coalesced) — under `C` \
         **holds**: 208 vs 200 (+4.0%) over 4 kernels; under `Cc` **DOES NOT HOLD**: 280 vs 240 \
         (+16.7%) over 4 kernels; groups where it does not hold:"
        ),
        "{f}"
    );
    // pess after the coalescer: C 240 < 1.5 × 200, Cc 400 ≥ 1.5 × 240.
    assert!(
        f.contains(
            "`L_phi,ABI+C` ≪ `L_phi,ABI+C/pess` (weighted_moves_coalesced) — under `C` **DOES NOT \
         HOLD**: 200 vs 240 (-16.7%) over 4 kernels; groups where it does not hold: dsp 100 vs \
         120, codec 50 vs 60, feature 50 vs 60; under `Cc` **holds**: 240 vs 400 (-40.0%) over 4 \
         kernels\n"
        ),
        "{f}"
    );
    // depth in the final code: C 180 vs 160 (+12.5%) fails, Cc 180 vs 180 holds.
    assert!(
        f.contains(
            "(weighted_moves) — under `C` **DOES NOT HOLD**: 180 vs 160 (+12.5%) over 4 kernels"
        ),
        "{f}"
    );
    // The tables: one at the paper's point (no coalescer yet), two after it.
    assert_eq!(f.matches("## st231: Table 5 — ").count(), 1, "{f}");
    assert_eq!(
        f.matches("## st231: Table 5 under `Cc` — ").count(),
        2,
        "{f}"
    );
    assert!(f.contains("| **all** | 4 | 240 | +24 (+10.0%) | +40 (+16.7%) | +160 (+66.7%) |"));
}

/// Writes `csv` and the three-configuration runs.toml, runs the report, returns the error.
fn error_for(name: &str, csv: &str, runs_toml: Option<&str>) -> String {
    let dir = scratch(name);
    let m = manifest(&dir);
    std::fs::write(dir.join("functions.csv"), csv).unwrap();
    if let Some(r) = runs_toml {
        std::fs::write(dir.join("runs.toml"), r).unwrap();
    }
    generate(&dir, &dir.join("out"), &m).unwrap_err()
}

#[test]
fn bad_inputs_are_clear_errors() {
    let ok_runs = runs(&CONFIGS);
    let good_row = row("dsp/a.c", "f", "st231", "base", 1, "ok");
    let no_weighted = HEADER.replace("weighted_moves,", "");
    let e = error_for("nocol", &format!("{no_weighted}\n"), Some(&ok_runs));
    assert!(
        e.contains("functions.csv") && e.contains("missing column `weighted_moves`"),
        "{e}"
    );
    let e = error_for(
        "ragged",
        &format!("{HEADER}\n{good_row}\na,b\n"),
        Some(&ok_runs),
    );
    assert!(e.contains("functions.csv") && e.contains("3"), "{e}");
    let bad_number = good_row.replacen(",1,", ",one,", 1);
    let e = error_for(
        "number",
        &format!("{HEADER}\n{bad_number}\n"),
        Some(&ok_runs),
    );
    assert!(e.contains("functions.csv:2:") && e.contains("`one`"), "{e}");
    let e = error_for("noruns", &format!("{HEADER}\n{good_row}\n"), None);
    assert!(e.contains("runs.toml"), "{e}");
    let e = error_for(
        "badruns",
        &format!("{HEADER}\n{good_row}\n"),
        Some("tool = 3"),
    );
    assert!(e.contains("runs.toml"), "{e}");
    let other = row("dsp/a.c", "f", "st231", "other", 1, "ok");
    let e = error_for("config", &format!("{HEADER}\n{other}\n"), Some(&ok_runs));
    assert!(e.contains("configuration `other`"), "{e}");
    // A functions.csv cut at a row boundary: runs.toml gives the row count.
    let e = error_for(
        "cut",
        &format!("{HEADER}\n{good_row}\n"),
        Some(&runs_with_rows(&CONFIGS, 2)),
    );
    assert!(
        e.contains("1 rows") && e.contains("function_rows = 2"),
        "{e}"
    );
    let stray = row("dsp/zz.c", "f", "st231", "base", 1, "ok");
    let e = error_for("program", &format!("{HEADER}\n{stray}\n"), Some(&ok_runs));
    assert!(
        e.contains("`dsp/zz.c`") && e.contains("not in the manifest"),
        "{e}"
    );
}

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: report_cmd::ReportArgs,
}

#[test]
fn command_defaults_and_exit_status() {
    let cli = Cli::parse_from(["report"]);
    assert_eq!(cli.args.input, PathBuf::from("target/sweep"));
    assert_eq!(cli.args.out, PathBuf::from("target/sweep"));
    let dir = scratch("cmd");
    manifest(&dir);
    three_config_input(&dir);
    let (d, o, mf) = (
        dir.display().to_string(),
        dir.join("out").display().to_string(),
        dir.join("suite.toml").display().to_string(),
    );
    let argv = ["report", "--in", &d, "--out", &o, "--manifest", &mf, "-q"];
    assert_eq!(
        report_cmd::main(Cli::parse_from(argv).args),
        ExitCode::SUCCESS
    );
    assert!(dir.join("out/tables.md").is_file());
    let missing = dir.join("nothing").display().to_string();
    let argv = [
        "report",
        "--in",
        &missing,
        "--out",
        &o,
        "--manifest",
        &mf,
        "-q",
    ];
    assert_eq!(
        report_cmd::main(Cli::parse_from(argv).args),
        ExitCode::from(1)
    );
}

/// The files exactly as `ssalab bench` writes them (its own writer, header and runs.toml)
/// are what the report reads.
#[test]
fn reads_what_the_bench_writer_writes() {
    use ssalab::bench::output::{
        JobRecord, OutputFiles, ResultsSummary, RunsFile, SweepDefinition,
    };
    let dir = scratch("writer");
    let m = manifest(&dir);
    // Rows in FUNCTION_COLUMNS order: 4 key columns, regs, 16 numbers, status, the extras.
    let writer_row = |function: &str, config: &str, moves: u64| -> Vec<String> {
        let mut v: Vec<String> = ["dsp/a.c", function, "st231", config, ""]
            .iter()
            .map(|s| s.to_string())
            .collect();
        v.extend((0..15).map(|i| if i == 2 { moves } else { 1 }.to_string()));
        v.push("ok".into());
        v.extend((0..17).map(|_| "0".to_string()));
        v
    };
    let files = OutputFiles {
        runs: RunsFile {
            tool: "ssalab".into(),
            version: "0.0.1".into(),
            format: 1,
            manifest: "suite.toml".into(),
            date: None,
            shard: None,
            missing_shards: Vec::new(),
            sweep: SweepDefinition {
                manifest_fingerprint: "0".into(),
                job_list_fingerprint: "0".into(),
                jobs_total: 2,
                targets: vec!["st231".into()],
                configs: vec!["b".into(), "a".into()],
                programs: vec![],
                groups: vec![],
                regs: None,
                all_functions: false,
                no_times: true,
            },
            results: ResultsSummary {
                jobs: 2,
                ok: 2,
                failed: 0,
                function_rows: 4,
                compile_us: None,
                simulate_us: None,
            },
        },
        jobs: ["b", "a"]
            .iter()
            .enumerate()
            .map(|(index, config)| JobRecord {
                index,
                program: "dsp/a.c".into(),
                target: "st231".into(),
                config: config.to_string(),
                regs: String::new(),
                status: "ok".into(),
                functions: 2,
                compile_us: 0,
                simulate_us: 0,
            })
            .collect(),
        functions: vec![
            writer_row("f", "b", 7),
            writer_row("g", "b", 3),
            writer_row("f", "a", 4),
            writer_row("g", "a", 3),
        ],
    };
    assert_eq!(
        files.functions[0].len(),
        ssalab::bench::output::FUNCTION_COLUMNS.len()
    );
    for (name, bytes) in files.render().unwrap() {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let out = dir.join("out");
    generate(&dir, &out, &m).unwrap();
    // Column order follows runs.toml (b first): b = 7 + 3 = 10, a = 4 + 3 = 7 → -3 (-30.0%).
    assert_eq!(
        table(
            &read(&out, "tables.md"),
            "st231: Static moves in the final code"
        )[2],
        "| dsp | 2 | 10 | -3 (-30.0%) |"
    );
}

/// road2.md: road 2's configurations, then the IRC references the sweep ran, totalled over
/// the kernels; the ordering of weighted moves checked and the heuristic's distance from
/// the ILP given. Hand-computed from the per-kernel values below (`row` sets moves, weighted
/// moves = v, spills = 2v, cycles = 100v).
#[test]
fn road2_table_totals_and_ordering() {
    let dir = scratch("road2");
    let m = manifest(&dir);
    let configs = [
        "hack",
        "hack+recolor",
        "hack+ilp",
        "hack-ilpspill+ilp",
        "baseline",
        "x",
    ];
    // Per kernel f, g, h, k: hack 10 each (40), recolor 6 each (24), ilp 5 each (20),
    // ILP spilling 4 each (16), baseline 7 each (28); `x` is neither road 2 nor a
    // reference and is not shown.
    let values = [10u64, 6, 5, 4, 7, 1];
    let mut lines = vec![HEADER.to_string()];
    for target in ["st231", "st120"] {
        for (config, v) in configs.iter().zip(values) {
            for (program, function, _) in KERNELS {
                lines.push(row(program, function, target, config, v, "ok"));
            }
        }
    }
    std::fs::write(dir.join("functions.csv"), lines.join("\n") + "\n").unwrap();
    std::fs::write(
        dir.join("runs.toml"),
        runs_with_rows(&configs, lines.len() - 1),
    )
    .unwrap();
    let out = dir.join("out");
    generate(&dir, &out, &m).unwrap();
    let r = read(&out, "road2.md");
    assert_eq!(
        table(&r, "full (4 kernels)"),
        [
            "| configuration | moves | weighted moves | dyn. spill ld+st | cycles | ILP opt. |",
            "|---|---:|---:|---:|---:|---:|",
            "| `hack` | 40 | 40 | 80 | 4000 |  |",
            "| `hack+recolor` | 24 | 24 | 48 | 2400 |  |",
            "| `hack+ilp` | 20 | 20 | 40 | 2000 | 0/4 |",
            "| `hack-ilpspill+ilp` | 16 | 16 | 32 | 1600 | 0/4 |",
            "| `baseline` | 28 | 28 | 56 | 2800 |  |",
        ]
    );
    // Spills 32 against 40: -20.0%.
    assert!(r.contains("(`hack+ilp`): 32 against 40 (-20.0%)."), "{r}");
    // 24 / 20 = +20.0%.
    assert!(
        r.contains("20 ≤ 24 ≤ 40: **holds**; the heuristic stays +20.0% above the ILP."),
        "{r}"
    );
}

/// `ssalab bench` (the real binary, a small sweep) writes the report beside its data, in the
/// same output directory, and it is byte for byte what `ssalab report` regenerates from that
/// data; an older report's plot there is dropped, a file of the user's is kept.
#[test]
fn bench_writes_the_report_that_report_regenerates() {
    let dir = scratch("bench-writes-report");
    let out = dir.join("sweep");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(
        out.join("plot-st231-gone-vs-baseline-dyn_moves.svg"),
        "<svg/>",
    )
    .unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let ssalab = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_ssalab"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap()
    };
    let o = out.display().to_string();
    let bench = ssalab(&[
        "bench",
        "--programs",
        "fir,phi_swap",
        "--configs",
        "baseline,C",
        "--no-times",
        "-q",
        "--out",
        &o,
    ]);
    assert!(
        bench.status.success(),
        "{}",
        String::from_utf8_lossy(&bench.stderr)
    );
    let names = |d: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let written = names(&out);
    for must in [
        "functions.csv",
        "runs.toml",
        "tables.md",
        "findings.md",
        "README.md",
    ] {
        assert!(written.iter().any(|n| n == must), "{must} in {written:?}");
    }
    assert!(written.iter().any(|n| n.ends_with(".svg")), "{written:?}");
    assert!(!written.iter().any(|n| n.contains("gone")), "{written:?}");
    assert_eq!(read(&out, "notes.txt"), "mine");
    let again = dir.join("again");
    let a = again.display().to_string();
    let report = ssalab(&["report", "--in", &o, "--out", &a, "-q"]);
    assert!(report.status.success());
    let regenerated = names(&again);
    let reported: Vec<&String> = written
        .iter()
        .filter(|n| ssalab::report::is_generated(n))
        .collect();
    assert_eq!(
        reported.len(),
        regenerated.len(),
        "{written:?} vs {regenerated:?}"
    );
    for name in &regenerated {
        assert!(
            std::fs::read(out.join(name)).unwrap() == std::fs::read(again.join(name)).unwrap(),
            "{name}: bench's differs from report's"
        );
    }
}

/// A shard writes no report (it holds a slice of the jobs); `ssalab merge` drops the report
/// of other data from its output directory; `ssalab report` on the merged data then gives
/// the very report an unsharded `ssalab bench` writes.
#[test]
fn shards_have_no_report_and_merge_drops_a_stale_one() {
    let dir = scratch("merge-report");
    let ssalab = |args: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_ssalab"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    let path = |name: &str| dir.join(name).display().to_string();
    let sweep = [
        "--programs",
        "fir",
        "--configs",
        "baseline,C",
        "--no-times",
        "-q",
    ];
    for (k, out) in [("1/2", "s1"), ("2/2", "s2")] {
        let mut args = vec!["bench", "--shard", k, "--out"];
        let out = path(out);
        args.push(&out);
        args.extend(sweep);
        ssalab(&args);
        assert!(!dir.join(&out).join("tables.md").exists(), "shard {k}");
    }
    let merged = dir.join("merged");
    std::fs::create_dir_all(&merged).unwrap();
    std::fs::write(merged.join("tables.md"), "old").unwrap();
    std::fs::write(merged.join("plot-st231-totals.svg"), "<svg/>").unwrap();
    let m = path("merged");
    ssalab(&["merge", &path("s1"), &path("s2"), "--out", &m]);
    assert!(merged.join("functions.csv").is_file());
    assert!(!merged.join("tables.md").exists(), "stale report dropped");
    assert!(
        !merged.join("plot-st231-totals.svg").exists(),
        "stale plot dropped"
    );
    ssalab(&["report", "--in", &m, "--out", &m, "-q"]);
    let direct = path("direct");
    let mut args = vec!["bench", "--out", &direct];
    args.extend(sweep);
    ssalab(&args);
    for name in [
        "tables.md",
        "findings.md",
        "README.md",
        "plot-st231-totals.svg",
    ] {
        assert!(
            std::fs::read(merged.join(name)).unwrap()
                == std::fs::read(dir.join("direct").join(name)).unwrap(),
            "{name}"
        );
    }
}
