//! Machine-level IR file tests: every `tests/mir/*.mir` file is one scenario — a module in
//! the text form of `mir::print` (one or more `mfunc`s, globals allowed), preceded by
//! directive lines starting with `#` (the MIR parser knows `//` comments only, so the
//! harness blanks `#` lines before parsing, keeping line numbers):
//!
//! ```text
//! # run: out-of-ssa            back-end passes to run, in order (`backend::MIR_PASSES`)
//! # entry: main                the function the interpreter starts in (default `main`)
//! # output: 9\n20\n            expected output of the run (`\n`, `\t`, `\\` escapes)
//! # exit: 0                    expected exit status of the run
//! # copies: @f 5               number of copies (flag COPY) in @f after the passes
//! # temporaries: @f 0          temporaries the out-of-SSA pass created in @f
//! # regs: 3                    `--regs N`: the register budget of the allocators
//! # swaps: @f 1                swap sequences (three `SWAP` operations) in @f
//! # spill_loads: @f 2          reloads (`SPILL_LOAD`), also `spill_stores`, `remats`
//! ```
//!
//! When the passes include road 2's `ssa-destruct` or Pereira's `pereira-colour*`, the
//! value-flow allocation checker
//! (`regalloc::checker::value_flow`) also checks every function against its input.
//!
//! Set `MIR_FILETESTS_SHOW=1` to print every module after its passes.
//!
//! Every expected number was derived by hand from the algorithm (the file says how), never
//! taken from a run. For each file the harness parses the module, verifies it in SSA form,
//! runs it with the machine-level interpreter (`mir::interp`) from the entry function and
//! checks `output`/`exit`, runs every pass on every function, verifies the result in the
//! pass's output form (and the out-of-SSA pass's own `check_output`), runs it again — same
//! output and exit status — and checks the counts.

mod common;
use compiler::backend::{BackendConfig, MirPass, MIR_PASSES};
use compiler::isel::{self, IselOptions};
use compiler::mir::interp::run_module;
use compiler::mir::parse::parse_module;
use compiler::mir::verify::{verify_module, Form};
use compiler::mir::{InstFlags, Module};
use compiler::out_of_ssa::isolation;
use compiler::pipeline::{self, OptLevel};
use simulator::isa::Target;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The pass called `name`: any machine-level pass of the back end
/// (`compiler::backend::MIR_PASSES`), with the form its output must satisfy.
fn pass_named(name: &str) -> Option<&'static MirPass> {
    MIR_PASSES.iter().find(|p| p.name == name)
}

#[derive(Debug, Default)]
struct FileTest {
    passes: Vec<String>,
    entry: String,
    output: Option<String>,
    exit: Option<i32>,
    copies: Vec<(String, usize)>,
    temporaries: Vec<(String, u64)>,
    /// Expected `affinity_cost_after` of the coalescing passes (Hack et al. equation 1).
    affinity_costs: Vec<(String, u64)>,
    regs: Option<u32>,
    /// (directive, function, expected count) of flag counts: swaps, spill_loads, ...
    flag_counts: Vec<(String, String, usize)>,
    /// The module text with directive lines blanked.
    module: String,
}

/// The file's oracle text with its escapes decoded (`compiler::lai::unescape_directive`).
fn unescape(s: &str) -> String {
    compiler::lai::unescape_directive(s).unwrap_or_else(|e| panic!("bad directive `{s}`: {e}"))
}

/// `@name N` → (name, N).
fn func_count<T: std::str::FromStr>(s: &str) -> Result<(String, T), String> {
    let mut it = s.split_whitespace();
    let (Some(f), Some(n), None) = (it.next(), it.next(), it.next()) else {
        return Err(format!("expected `@function N`, got `{s}`"));
    };
    let name = f
        .strip_prefix('@')
        .ok_or_else(|| format!("expected `@function`, got `{f}`"))?;
    let n = n.parse().map_err(|_| format!("bad number `{n}`"))?;
    Ok((name.to_string(), n))
}

fn parse_test(path: &Path) -> Result<FileTest, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut t = FileTest {
        entry: "main".into(),
        ..FileTest::default()
    };
    for (n, line) in text.lines().enumerate() {
        let Some(d) = line.trim_start().strip_prefix('#') else {
            t.module.push_str(line);
            t.module.push('\n');
            continue;
        };
        t.module.push('\n');
        let d = d.trim();
        let at = |e: String| format!("line {}: {e}", n + 1);
        if let Some(p) = d.strip_prefix("run:") {
            t.passes = p.split_whitespace().map(str::to_string).collect();
        } else if let Some(e) = d.strip_prefix("entry:") {
            t.entry = e.trim().to_string();
        } else if let Some(o) = d.strip_prefix("output:") {
            t.output = Some(unescape(o.trim()));
        } else if let Some(e) = d.strip_prefix("exit:") {
            let e = e.trim();
            t.exit = Some(
                e.parse()
                    .map_err(|_| at(format!("bad exit status `{e}`")))?,
            );
        } else if let Some(c) = d.strip_prefix("copies:") {
            t.copies.push(func_count(c).map_err(at)?);
        } else if let Some(c) = d.strip_prefix("temporaries:") {
            t.temporaries.push(func_count(c).map_err(at)?);
        } else if let Some(c) = d.strip_prefix("affinity_cost:") {
            t.affinity_costs.push(func_count(c).map_err(at)?);
        } else if let Some(r) = d.strip_prefix("regs:") {
            let r = r.trim();
            t.regs = Some(
                r.parse()
                    .map_err(|_| at(format!("bad register count `{r}`")))?,
            );
        } else if let Some((key, rest)) = ["swaps:", "spill_loads:", "spill_stores:", "remats:"]
            .iter()
            .find_map(|k| d.strip_prefix(k).map(|r| (k.trim_end_matches(':'), r)))
        {
            let (f, n) = func_count(rest).map_err(at)?;
            t.flag_counts.push((key.to_string(), f, n));
        }
    }
    if t.passes.is_empty() {
        return Err("missing `# run:` line".into());
    }
    for p in &t.passes {
        if pass_named(p).is_none() {
            return Err(format!("unknown pass `{p}`"));
        }
    }
    Ok(t)
}

fn verify(m: &Module, form: Form, stage: &str) -> Result<(), String> {
    let errs = verify_module(m, form);
    if errs.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
    Err(format!(
        "{stage}: verifier ({form:?}):\n{}\n{m}",
        list.join("\n")
    ))
}

fn count_copies(m: &Module, name: &str) -> Result<usize, String> {
    let f = m
        .function(name)
        .ok_or_else(|| format!("no function @{name}"))?;
    Ok(f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| i.flags.contains(InstFlags::COPY))
        .count())
}

/// Output and exit status of a run from `entry`.
fn interpret(m: &Module, entry: &str) -> Result<(String, i32), String> {
    let o = run_module(m, entry, &Default::default()).map_err(|t| format!("trap: {t}"))?;
    Ok((String::from_utf8_lossy(&o.output).into_owned(), o.exit_code))
}

fn check(path: &Path) -> Result<(), String> {
    let t = parse_test(path)?;
    let mut module = parse_module(&t.module).map_err(|e| format!("parse: {e}"))?;
    verify(&module, Form::Ssa, "input")?;
    if module.function(&t.entry).is_none() {
        return Err(format!("no entry function @{}", t.entry));
    }
    let before = interpret(&module, &t.entry).map_err(|e| format!("input run: {e}"))?;
    if let Some(o) = &t.output {
        if &before.0 != o {
            return Err(format!("input prints {:?}, expected {o:?}", before.0));
        }
    }
    if let Some(e) = t.exit {
        if before.1 != e {
            return Err(format!("input exits with {}, expected {e}", before.1));
        }
    }
    let mut temporaries: HashMap<String, u64> = HashMap::new();
    let mut affinity_costs: HashMap<String, u64> = HashMap::new();
    let input = module.clone();
    for pass in &t.passes {
        let p = pass_named(pass).expect("checked in parse_test");
        let mut config = BackendConfig::baseline(module.target);
        config.regalloc.regs = t.regs;
        for f in &mut module.functions {
            let detail = (p.run)(f, &config).map_err(|e| format!("{pass}: {e}"))?;
            if p.produces == Form::Allocation {
                isolation::check_output(f).map_err(|e| format!("{pass}: {e}\n{f}"))?;
            }
            let made: u64 = detail
                .iter()
                .filter(|(k, _)| *k == "temporaries")
                .map(|(_, v)| v)
                .sum();
            *temporaries.entry(f.name.clone()).or_default() += made;
            if let Some(&(_, c)) = detail.iter().find(|(k, _)| *k == "affinity_cost_after") {
                affinity_costs.insert(f.name.clone(), c);
            }
        }
        verify(&module, p.produces, pass)?;
        let after =
            interpret(&module, &t.entry).map_err(|e| format!("run after {pass}: {e}\n{module}"))?;
        if after != before {
            return Err(format!(
                "run after {pass}: {after:?} instead of {before:?}\n{module}"
            ));
        }
    }
    if std::env::var_os("MIR_FILETESTS_SHOW").is_some() {
        eprintln!("---- {} after {:?}:\n{module}", path.display(), t.passes);
    }
    if t.passes
        .iter()
        .any(|p| p == "ssa-destruct" || compiler::backend::allocates_ssa(p))
    {
        for (before, after) in input.functions.iter().zip(&module.functions) {
            compiler::regalloc::checker::value_flow::check(before, after)
                .map_err(|e| format!("{e}\n{module}"))?;
        }
    }
    for (key, name, want) in &t.flag_counts {
        let flag = match key.as_str() {
            "swaps" => InstFlags::SWAP,
            "spill_loads" => InstFlags::SPILL_LOAD,
            "spill_stores" => InstFlags::SPILL_STORE,
            _ => InstFlags::REMAT,
        };
        let f = module
            .function(name)
            .ok_or_else(|| format!("no function @{name}"))?;
        let n = f
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .filter(|i| i.flags.contains(flag))
            .count();
        let got = if key == "swaps" { n / 3 } else { n };
        if got != *want {
            return Err(format!("@{name}: {got} {key}, expected {want}\n{module}"));
        }
    }
    for (name, want) in &t.copies {
        let got = count_copies(&module, name)?;
        if got != *want {
            return Err(format!(
                "@{name}: {got} copies after the passes, expected {want}\n{module}"
            ));
        }
    }
    for (name, want) in &t.affinity_costs {
        let got = affinity_costs
            .get(name)
            .ok_or_else(|| format!("@{name}: no coalescing pass reported an affinity cost"))?;
        if got != want {
            return Err(format!(
                "@{name}: affinity cost {got}, expected {want}\n{module}"
            ));
        }
    }
    for (name, want) in &t.temporaries {
        let got = temporaries.get(name).copied().unwrap_or(0);
        if got != *want {
            return Err(format!("@{name}: {got} temporaries, expected {want}"));
        }
    }
    Ok(())
}

fn test_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mir");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mir"))
        .collect();
    files.sort();
    files
}

#[test]
fn mir_filetests() {
    let files = test_files();
    assert!(
        files.len() >= 10,
        "only {} MIR file tests found",
        files.len()
    );
    let mut failures = Vec::new();
    for path in &files {
        if let Err(e) = check(path) {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} MIR file tests failed:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}

/// The harness itself rejects what it cannot check.
#[test]
fn harness_rejects_bad_directives() {
    let dir = std::env::temp_dir().join(format!("mir_filetests_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        ("norun.mir", "# entry: main\n", "missing `# run:`"),
        ("badpass.mir", "# run: nonsense\n", "unknown pass"),
        (
            "badcount.mir",
            "# run: out-of-ssa\n# copies: f 3\n",
            "expected `@function`",
        ),
    ];
    for (name, text, want) in cases {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        let e = parse_test(&p).unwrap_err();
        assert!(e.contains(want), "{name}: {e}");
    }
    // A wrong hand count is reported.
    let p = dir.join("wrong.mir");
    std::fs::write(
        &p,
        "# run: out-of-ssa\n# copies: @main 2\n\
         mfunc @main st231 {\nb0:\n  .input\n  %0:r = add $r0, #1\n  .output %0^$r16\n  return\n}\n",
    )
    .unwrap();
    let e = check(&p).unwrap_err();
    assert!(e.contains("1 copies after the passes, expected 2"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

// ---------------------------------------------------------------------------------------
// The baseline on real instruction-selection output.
// ---------------------------------------------------------------------------------------

/// Front end, mid-level passes at `opt`, and the runtime routines appended (as the driver).
fn ssa_ir(path: &Path, opt: OptLevel) -> Result<compiler::ir::Module, String> {
    let passes = pipeline::mid_level_passes(opt);
    let mut m =
        compiler::front::compile_to_ir(path, &Default::default()).map_err(|d| d.render())?;
    pipeline::run_passes(&mut m, &passes, &mut |_, _| Ok(())).map_err(|e| format!("{e:?}"))?;
    compiler::backend::add_runtime(&mut m, opt)?;
    Ok(m)
}

/// Every program of `programs/`, both targets, -O0 and -O2: the selected machine SSA goes
/// out of SSA without error, verifies in allocation form, passes the pass's own output
/// check (pinned vregs local to their operation, no register needed by two values at once)
/// and prints the same output with the same exit status as before, under `mir::interp`.
/// Programs that do not reach machine SSA (front end or selection errors belong to other
/// stages) are counted and reported, not hidden; at least one must get through per target.
#[test]
fn every_program_goes_out_of_ssa() {
    let mut failures = Vec::new();
    let mut skipped = Vec::new();
    let mut done: HashMap<Target, usize> = HashMap::new();
    let mut totals: HashMap<Target, isolation::Stats> = HashMap::new();
    let mut time: HashMap<Target, std::time::Duration> = HashMap::new();
    let mut insts: HashMap<Target, usize> = HashMap::new();
    for p in common::c_programs() {
        for opt in [OptLevel::O0, OptLevel::O2] {
            let ir = match ssa_ir(&p, opt) {
                Ok(m) => m,
                Err(e) => {
                    skipped.push(format!("{} {opt:?}: {e}", p.display()));
                    continue;
                }
            };
            for target in Target::ALL {
                let name = format!("{} {opt:?} {target}", p.display());
                let mut m = match isel::select_module(&ir, target, &IselOptions::default()) {
                    Ok(m) => m,
                    Err(e) => {
                        skipped.push(format!("{name}: isel: {e}"));
                        continue;
                    }
                };
                let before = interpret(&m, "main");
                let t = totals.entry(target).or_default();
                let mut ok = true;
                for f in &mut m.functions {
                    let start = std::time::Instant::now();
                    let r = isolation::translate(f);
                    *time.entry(target).or_default() += start.elapsed();
                    *insts.entry(target).or_default() += f.num_insts();
                    match r {
                        Ok(s) => *t += s,
                        Err(e) => {
                            failures.push(format!("{name}: {e}"));
                            ok = false;
                        }
                    }
                    if let Err(e) = isolation::check_output(f) {
                        failures.push(format!("{name}: {e}"));
                        ok = false;
                    }
                }
                let errs = verify_module(&m, Form::Allocation);
                if let Some(e) = errs.first() {
                    failures.push(format!(
                        "{name}: {} verifier errors, first: {e}",
                        errs.len()
                    ));
                    ok = false;
                }
                if ok {
                    match (&before, interpret(&m, "main")) {
                        (Ok(b), Ok(a)) if *b == a => {}
                        (Ok(b), a) => {
                            failures.push(format!("{name}: {a:?} after out-of-SSA, {b:?} before"));
                            ok = false;
                        }
                        (Err(e), _) => skipped.push(format!("{name}: machine SSA run: {e}")),
                    }
                }
                if ok {
                    *done.entry(target).or_default() += 1;
                }
            }
        }
    }
    eprintln!("out-of-SSA over programs/: {done:?} modules; totals {totals:#?}");
    eprintln!("out-of-SSA time {time:?} for {insts:?} instructions (after the pass)");
    for s in &skipped {
        eprintln!("not reaching machine SSA (another stage): {s}");
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    for target in Target::ALL {
        assert!(
            done.get(&target).copied().unwrap_or(0) > 0,
            "no program for {target}"
        );
    }
}
