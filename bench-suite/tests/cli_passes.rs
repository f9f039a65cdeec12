//! Pass debugging on the command line (docs/debugging.md): `--print-before`, `--print-after`,
//! `--stop-after`, `--print-changed`, `--filter-function`, `--dump-dir`, `--time-passes`, the
//! pass names each configuration accepts (exit 2 otherwise), dumps on stderr only,
//! `compile --stats` without a stray object, `interp` refusing machine-level input, and the
//! documented target aliases.
//!
//! The expected stage lists come from the compiler's own pass lists
//! (`pipeline::mid_level_passes`, `backend::pass_names`), not from a run of the CLI.

use compiler::backend::{self, BackendConfig};
use compiler::pipeline::{mid_level_passes, OptLevel};
use simulator::isa::Target;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `sq` has a copy the mid-level passes remove; `one` is already minimal, so most passes
/// leave it unchanged; the division pulls runtime functions into the back end.
const PROGRAM: &str = "int g;
int one(void) { return 1; }
int sq(int x) { int y = x; return y * y; }
int main(void) {
    int s = 0;
    for (int i = 0; i < 4; i++)
        s += sq(i) / (i + one());
    g = s;
    return s;
}
";

/// What `main` returns: 0/1 + 1/2 + 4/3 + 9/4.
const EXIT: i32 = 3;

/// A LAI function with one register-to-register move.
const LAI: &str = "\
.target st231
.proc add2
    .input %a=$r16, %b=$r17
    mov %c = %a
    add %s = %c, %b
    .output %s=$r16
    return
.endp
";

/// A fresh directory for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssalab-passes-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Writes the test program into a fresh directory: its path.
fn program(test: &str) -> PathBuf {
    let path = scratch(test).join("prog.c");
    std::fs::write(&path, PROGRAM).expect("write program");
    path
}

fn ssalab(args: &[&str], input: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ssalab"))
        .args(args)
        .arg(input)
        .output()
        .expect("run ssalab")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Runs `compile` with `args` on `input`, writing any object into the input's directory
/// under another name, and checks it succeeded.
fn compile_ok(args: &[&str], input: &Path) -> Output {
    let o = ssalab(&[&["compile"], args].concat(), input);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"));
    o
}

/// The object path for a run that must not write next to the source.
fn object_in(input: &Path) -> String {
    input.with_file_name("out.o").display().to_string()
}

/// Splits a dump stream into (header, body) pairs at lines starting with `// `.
fn dumps(text: &str) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("// ") {
            v.push((h.to_string(), String::new()));
        } else if let Some((_, body)) = v.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    v
}

/// The stages of a C build at -O2 under `baseline` on ST231, from the compiler's lists.
fn baseline_stages() -> Vec<String> {
    let mut v = vec!["front".to_string()];
    v.extend(mid_level_passes(OptLevel::O2).iter().map(|s| s.to_string()));
    v.extend(backend::pass_names(&BackendConfig::baseline(Target::St231)));
    v
}

#[test]
fn print_before_shows_the_function_as_the_previous_pass_left_it() {
    let p = program("before");
    let obj = object_in(&p);
    let before = compile_ok(
        &[
            "--print-before",
            "irc",
            "--filter-function",
            "sq",
            "-o",
            &obj,
        ],
        &p,
    );
    let after_prev = compile_ok(
        &[
            "--print-after",
            "out-of-ssa",
            "--filter-function",
            "sq",
            "-o",
            &obj,
        ],
        &p,
    );
    let after = compile_ok(
        &[
            "--print-after",
            "irc",
            "--filter-function",
            "sq",
            "-o",
            &obj,
        ],
        &p,
    );
    let before = dumps(&stderr(&before));
    let after_prev = dumps(&stderr(&after_prev));
    let after = dumps(&stderr(&after));
    assert_eq!(before.len(), 1, "{before:?}");
    assert_eq!(before[0].0, "before irc: @sq");
    assert_eq!(
        before[0].1, after_prev[0].1,
        "before irc = after out-of-ssa"
    );
    // irc changes the function: the dump is not simply the output.
    assert_ne!(before[0].1, after[0].1);
    assert!(before[0].1.starts_with("mfunc @sq"), "{}", before[0].1);

    // Before isel: the IR module isel receives, runtime functions included (they are added
    // after the last mid-level pass, whose dump does not have them).
    let o = compile_ok(&["--print-before", "isel", "-o", &obj], &p);
    let d = dumps(&stderr(&o));
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].0, "before isel");
    assert!(d[0].1.contains("func @sq(") && d[0].1.contains("func @__ssalab_divs("));
    let last_mid = mid_level_passes(OptLevel::O2).last().unwrap().to_string();
    let o = compile_ok(&["--print-after", &last_mid, "-o", &obj], &p);
    let last = dumps(&stderr(&o));
    assert!(!last.last().unwrap().1.contains("__ssalab_divs"));
}

#[test]
fn stop_after_writes_what_print_after_prints() {
    let p = program("stop");
    let obj = object_in(&p);
    // gvn runs twice at -O2: --stop-after stops after the first run.
    for pass in ["front", "gvn", "isel", "irc", "sched", "emit"] {
        let stopped = compile_ok(&["--stop-after", pass], &p);
        let printed = compile_ok(&["--print-after", pass, "-o", &obj], &p);
        let first = dumps(&stderr(&printed)).remove(0);
        assert_eq!(first.0, format!("after {pass}"));
        assert_eq!(stdout(&stopped), first.1, "--stop-after {pass}");
        assert!(stderr(&stopped).is_empty(), "{}", stderr(&stopped));
    }
    // With a filter: that function only, on both sides.
    let stopped = compile_ok(&["--stop-after", "irc", "--filter-function", "sq"], &p);
    assert!(stdout(&stopped).starts_with("mfunc @sq") && !stdout(&stopped).contains("@main"));
    // The IR after a mid-level pass is a text-IR program: it runs to the same result.
    let out = p.with_file_name("after-gvn.ir");
    compile_ok(&["--stop-after", "gvn", "-o", out.to_str().unwrap()], &p);
    let o = ssalab(&["interp", "-O0"], &out);
    assert_eq!(o.status.code(), Some(EXIT), "{}", stderr(&o));
    // Nothing ran after the stop: no object next to the source.
    assert!(!p.with_extension("o").exists());
}

#[test]
fn stop_after_on_lai_input() {
    let p = scratch("stop-lai").join("add2.lai");
    std::fs::write(&p, LAI).unwrap();
    for pass in ["lai", "out-of-ssa", "irc"] {
        let stopped = compile_ok(&["--stop-after", pass], &p);
        let printed = compile_ok(&["--print-after", pass, "--emit", "asm", "-o", "-"], &p);
        let first = dumps(&stderr(&printed)).remove(0);
        assert_eq!(stdout(&stopped), first.1, "--stop-after {pass}");
    }
    let lai = compile_ok(&["--stop-after", "lai"], &p);
    assert!(stdout(&lai).contains("copy"), "{}", stdout(&lai));
}

#[test]
fn stop_after_is_refused_where_the_whole_pipeline_is_needed() {
    let p = program("stop-usage");
    let cases: [(&[&str], &str); 4] = [
        (
            &["compile", "--stop-after", "irc", "--emit", "asm"],
            "--emit",
        ),
        (&["compile", "--stop-after", "irc", "--stats"], "--stats"),
        (
            &["run", "--stop-after", "irc"],
            "`run` needs the whole pipeline",
        ),
        (&["compile", "--stop-after", "all"], "unknown pass `all`"),
    ];
    for (args, why) in cases {
        let o = ssalab(args, &p);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(why), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    assert!(!p.with_extension("o").exists());
    // `run` of assembly compiles nothing: the options would be ignored, so they are refused.
    let asm = p.with_file_name("prog.s");
    let o = ssalab(
        &["compile", "--emit", "asm", "-o", asm.to_str().unwrap()],
        &p,
    );
    assert_eq!(o.status.code(), Some(0));
    let o = ssalab(&["run", "-q", "--print-after", "irc"], &asm);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("pass-debugging options apply"));
    let o = ssalab(&["run", "-q"], &asm);
    assert_eq!(o.status.code(), Some(EXIT), "{}", stderr(&o));
}

#[test]
fn interp_stop_after_runs_the_program_as_that_pass_left_it() {
    let p = program("interp-stop");
    let o = ssalab(
        &["interp", "--stop-after", "sccp", "--print-after", "all"],
        &p,
    );
    assert_eq!(o.status.code(), Some(EXIT), "{}", stderr(&o));
    let headers: Vec<String> = dumps(&stderr(&o)).into_iter().map(|d| d.0).collect();
    assert_eq!(
        headers,
        ["front", "ssa", "copyprop", "sccp"].map(|p| format!("after {p}"))
    );
    // Back-end passes are not stages of `interp`.
    let o = ssalab(&["interp", "--print-after", "irc"], &p);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("valid: front, ssa"), "{}", stderr(&o));
}

#[test]
fn print_changed_prints_exactly_the_passes_that_changed_the_function() {
    let p = program("changed");
    let obj = object_in(&p);
    for function in ["one", "sq"] {
        let all = compile_ok(
            &[
                "--print-after",
                "all",
                "--filter-function",
                function,
                "-o",
                &obj,
            ],
            &p,
        );
        // Expected: every stage whose text differs from the stage before (the first always).
        let mut expected = Vec::new();
        let mut previous = String::new();
        for (header, body) in dumps(&stderr(&all)) {
            if body != previous {
                let pass = header.strip_prefix("after ").unwrap();
                expected.push(format!("after {}", pass.replace(": @", " (changed): @")));
            }
            previous = body;
        }
        let changed = compile_ok(
            &["--print-changed", "--filter-function", function, "-o", &obj],
            &p,
        );
        let got: Vec<String> = dumps(&stderr(&changed)).into_iter().map(|d| d.0).collect();
        assert_eq!(got, expected, "{function}");
        // Some passes leave each function alone, so this is not every stage.
        assert!(got.len() < baseline_stages().len(), "{got:?}");
    }
}

#[test]
fn dumps_go_to_stderr_and_stdout_holds_only_the_asm() {
    let p = program("stdout");
    let plain = compile_ok(&["--emit", "asm", "-o", "-"], &p);
    let debug = compile_ok(
        &[
            "--emit",
            "asm",
            "-o",
            "-",
            "--print-after",
            "all",
            "--print-before",
            "irc",
            "--print-changed",
            "--time-passes",
        ],
        &p,
    );
    assert_eq!(stdout(&debug), stdout(&plain));
    assert!(stderr(&debug).contains("// after irc") && stderr(&debug).contains("// before irc"));
    // `run` keeps stdout for the program too.
    let o = ssalab(&["run", "-q", "--print-after", "irc"], &p);
    assert_eq!(o.status.code(), Some(EXIT));
    assert!(o.stdout.is_empty() && stderr(&o).contains("// after irc"));
}

#[test]
fn filter_function_restricts_the_dumps() {
    let p = program("filter");
    let obj = object_in(&p);
    let o = compile_ok(
        &[
            "--print-after",
            "irc",
            "--filter-function",
            "one",
            "-o",
            &obj,
        ],
        &p,
    );
    let d = dumps(&stderr(&o));
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].0, "after irc: @one");
    assert!(!d[0].1.contains("@sq") && !d[0].1.contains("@main"));
    // A runtime function, which exists from isel on, can be picked too.
    let o = compile_ok(
        &[
            "--print-after",
            "sched",
            "--filter-function",
            "__ssalab_divs",
            "-o",
            &obj,
        ],
        &p,
    );
    let d = dumps(&stderr(&o));
    assert_eq!(d.len(), 1);
    assert!(d[0].1.starts_with("__ssalab_divs:"), "{}", d[0].1);
    assert!(!d[0].1.contains(".bss"), "{}", d[0].1);
    // A name the program does not have: an error, not silence.
    let o = ssalab(
        &[
            "compile",
            "--print-after",
            "irc",
            "--filter-function",
            "nope",
            "-o",
            &obj,
        ],
        &p,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no function `nope`"), "{}", stderr(&o));
}

#[test]
fn dump_dir_writes_one_file_per_pass_and_function() {
    let p = program("dumpdir");
    let obj = object_in(&p);
    let dir = p.with_file_name("dumps");
    let d = dir.to_str().unwrap();
    let o = compile_ok(&["--dump-dir", d, "-o", &obj], &p);
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    // Every stage, numbered in pipeline order, has a file for `one`.
    let stages = baseline_stages();
    let ones: Vec<&String> = files.iter().filter(|f| f.ends_with(".one.txt")).collect();
    let expected: Vec<String> = stages
        .iter()
        .enumerate()
        .map(|(i, s)| format!("{i:02}-{s}.one.txt"))
        .collect();
    assert_eq!(ones, expected.iter().collect::<Vec<_>>());
    // Runtime functions appear from isel on.
    let isel = stages.iter().position(|s| s == "isel").unwrap();
    assert!(files.contains(&format!("{isel:02}-isel.__ssalab_divs.txt")));
    assert!(!files
        .iter()
        .any(|f| f.starts_with("00-") && f.contains("__ssalab")));

    // Selected dumps: a file's text is the stderr dump's body.
    let dir2 = p.with_file_name("dumps2");
    let d2 = dir2.to_str().unwrap();
    compile_ok(
        &[
            "--dump-dir",
            d2,
            "--print-after",
            "irc",
            "--print-before",
            "irc",
            "-o",
            &obj,
        ],
        &p,
    );
    let irc = stages.iter().position(|s| s == "irc").unwrap();
    let shown = compile_ok(
        &[
            "--print-after",
            "irc",
            "--filter-function",
            "sq",
            "-o",
            &obj,
        ],
        &p,
    );
    let body = dumps(&stderr(&shown)).remove(0).1;
    let file = std::fs::read_to_string(dir2.join(format!("{irc:02}-irc.sq.txt"))).unwrap();
    assert_eq!(file, body);
    let before = std::fs::read_to_string(dir2.join(format!("{irc:02}-irc.sq.before.txt"))).unwrap();
    assert_ne!(before, file);
    let count = std::fs::read_dir(&dir2).unwrap().count();
    // `one`, `sq`, `main` and four runtime functions, before and after.
    assert_eq!(count, 2 * 7);
}

#[test]
fn unknown_passes_list_the_stages_of_the_chosen_configuration() {
    let p = program("names");
    let o = ssalab(&["compile", "--print-after", "coalesce"], &p);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    let valid = err.split("valid: ").nth(1).expect("valid list").trim();
    let mut names: Vec<String> = Vec::new();
    for s in baseline_stages() {
        if !names.contains(&s) {
            names.push(s);
        }
    }
    names.push("all".into());
    assert_eq!(valid, names.join(", "));
    assert!(err.contains("configuration `baseline`"), "{err}");
    // The same name is valid where the configuration runs it.
    let obj = object_in(&p);
    let o = compile_ok(
        &["--config", "C", "--print-after", "coalesce", "-o", &obj],
        &p,
    );
    assert!(stderr(&o).starts_with("// after coalesce\n"));
    // A mid-level pass the -O level does not run, before the first stage, a bad --stop-after.
    let cases: [(&[&str], &str); 4] = [
        (&["-O0", "--print-after", "gvn"], "valid: front, ssa, isel"),
        (&["--print-before", "front"], "nothing runs before it"),
        (
            &["--stop-after", "bogus"],
            "unknown pass `bogus` for --stop-after",
        ),
        (&["--config", "nope"], "unknown configuration `nope`"),
    ];
    for (args, why) in cases {
        let o = ssalab(&[&["compile"], args].concat(), &p);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(why), "{args:?}: {}", stderr(&o));
    }
    assert!(!p.with_extension("o").exists());
}

#[test]
fn time_passes_names_functions_and_sums_the_module() {
    let p = program("time");
    let obj = object_in(&p);
    let o = compile_ok(&["--time-passes", "-o", &obj], &p);
    let rows: Vec<Vec<String>> = stderr(&o)
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().map(String::from).collect())
        .collect();
    // Each pass run: function rows, then a (module) row whose counts are their sums.
    let mut run: Vec<&Vec<String>> = Vec::new();
    let mut modules = Vec::new();
    for r in &rows {
        if r[1] == "(module)" {
            assert!(run.iter().all(|f| f[0] == r[0]), "{run:?} {r:?}");
            for col in 3..9 {
                let sum: u64 = run.iter().map(|f| f[col].parse::<u64>().unwrap()).sum();
                assert_eq!(sum, r[col].parse::<u64>().unwrap(), "{r:?}");
            }
            let mut names: Vec<&str> = run.iter().map(|f| f[1].as_str()).collect();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), run.len(), "a function repeats in {r:?}");
            modules.push(r[0].clone());
            run.clear();
        } else {
            run.push(r);
        }
    }
    assert!(run.is_empty());
    // One module row per stage that has statistics (the front end has none).
    assert_eq!(modules, baseline_stages()[1..].to_vec());
    let sched: Vec<&Vec<String>> = rows.iter().filter(|r| r[0] == "sched").collect();
    assert!(sched.iter().any(|r| r[1] == "sq") && sched.iter().any(|r| r[1] == "__ssalab_divs"));
    // Filtered: that function's rows and the totals.
    let o = compile_ok(
        &["--time-passes", "--filter-function", "sq", "-o", &obj],
        &p,
    );
    for l in stderr(&o).lines().skip(1) {
        let f = l.split_whitespace().nth(1).unwrap();
        assert!(f == "sq" || f == "(module)", "{l}");
    }
}

#[test]
fn stats_writes_no_object_unless_asked() {
    let p = program("stats");
    let dir = p.parent().unwrap().to_path_buf();
    let o = ssalab(&["compile", "--stats"], &p);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("sq"), "{}", stderr(&o));
    let listing: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(listing.len(), 1, "only prog.c: {listing:?}");
    let csv = dir.join("f.csv");
    let o = ssalab(&["compile", "--stats-csv", csv.to_str().unwrap()], &p);
    assert_eq!(o.status.code(), Some(0));
    assert!(csv.exists() && !p.with_extension("o").exists());
    // -o asks for the object.
    let obj = dir.join("asked.o");
    let o = ssalab(&["compile", "--stats", "-o", obj.to_str().unwrap()], &p);
    assert_eq!(o.status.code(), Some(0));
    assert!(obj.exists());
    // Without --stats the default object is still written next to the source.
    let o = ssalab(&["compile"], &p);
    assert_eq!(o.status.code(), Some(0));
    assert!(p.with_extension("o").exists());
}

#[test]
fn interp_refuses_machine_level_input() {
    let dir = scratch("interp-lai");
    for (name, text) in [("add2.lai", LAI), ("x.s", ".text\n"), ("x.o", "")] {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        let o = ssalab(&["interp"], &p);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("ssalab run"), "{name}: {err}");
        assert!(!err.contains("stray"), "parsed as C: {err}");
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn target_aliases_are_documented_and_mean_their_target() {
    let help = Command::new(env!("CARGO_BIN_EXE_ssalab"))
        .args(["compile", "--help"])
        .output()
        .unwrap();
    let help = stdout(&help);
    assert!(help.contains("st200 and st2xx mean st231"), "{help}");
    assert!(help.contains("st100 means st120"), "{help}");
    let p = program("alias");
    let asm = |t: &str| {
        stdout(&compile_ok(
            &["--target", t, "--emit", "asm", "-o", "-"],
            &p,
        ))
    };
    assert_eq!(asm("st200"), asm("st231"));
    assert_eq!(asm("st100"), asm("st120"));
    assert_ne!(asm("st231"), asm("st120"));
    let o = ssalab(&["compile", "--target", "st300"], &p);
    assert_eq!(o.status.code(), Some(2));
}
