//! Differential tests of the SSA passes on random programs: each pass alone, and the whole
//! `-O2` pipeline, must keep the program's output and leave verified strict SSA behind.
//! Plus the speed measurement on a large function (ignored by default; run it in release).

use crate::interp::{run, Options};
use crate::ir::Module;
use crate::pipeline::{mid_level_passes, run_passes, OptLevel};
use crate::ssa::random::{random_cfg_program, random_program, ProgramShape, Rng};
use crate::ssa::verify_module;
use proptest::prelude::*;

fn outcome(m: &Module) -> (String, i32) {
    let o = run(m, "main", &Options::default()).expect("module loads");
    assert_eq!(o.trap, None, "trap in\n{m}");
    (o.output_string(), o.exit_code)
}

/// Runs `passes` with the verifier and the interpreter after every pass.
fn check_pipeline(m: &Module, passes: &[&str]) -> Module {
    let expected = outcome(m);
    let mut m = m.clone();
    run_passes(&mut m, passes, &mut |pass, m| {
        verify_module(m).map_err(|e| format!("verifier after {pass}: {e:?}\n{m}"))?;
        let got = outcome(m);
        if got != expected {
            return Err(format!(
                "output changed by {pass}: {got:?} instead of {expected:?}\n{m}"
            ));
        }
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{e}"));
    m
}

fn random_module(rng: &mut Rng, round: usize) -> Module {
    if round % 4 == 3 {
        let n = 1 + rng.below(10) as usize;
        random_cfg_program(rng, n, 60)
    } else {
        random_program(rng, &ProgramShape::small())
    }
}

#[test]
fn each_pass_alone_preserves_behaviour() {
    let passes = [
        "copyprop",
        "sccp",
        "peephole",
        "gvn",
        "licm",
        "strength-reduce",
        "dce",
        "simplify-cfg",
        "split-critical-edges",
    ];
    let mut rng = Rng::new(314);
    for round in 0..150 {
        let m = random_module(&mut rng, round);
        let ssa = check_pipeline(&m, &["ssa"]);
        for p in passes {
            check_pipeline(&ssa, &[p]);
        }
    }
}

#[test]
fn o2_pipeline_preserves_behaviour() {
    let o2 = mid_level_passes(OptLevel::O2);
    let mut rng = Rng::new(2718);
    let (mut reduced, mut copies_before, mut copies_after) = (0, 0, 0);
    for round in 0..200 {
        let m = random_module(&mut rng, round);
        copies_before += crate::opt::count_copies(&m.functions[0]);
        let out = check_pipeline(&m, &o2);
        copies_after += crate::opt::count_copies(&out.functions[0]);
        reduced += usize::from(
            out.functions[0]
                .blocks
                .iter()
                .flat_map(|b| &b.insts)
                .any(|i| {
                    matches!(&i.op, crate::ir::Op::Phi(_))
                        && i.dst
                            .is_some_and(|d| out.functions[0].value_ty(d) == crate::ir::Ty::Ptr)
                }),
        );
    }
    // The generator exercises the passes: copies get folded, pointer IVs appear.
    assert!(
        copies_after < copies_before / 4,
        "{copies_after} of {copies_before}"
    );
    assert!(
        reduced > 10,
        "strength reduction fired in {reduced} programs"
    );
}

#[test]
fn passes_are_idempotent_enough_to_rerun() {
    // Running the optimisation list twice must still verify and behave.
    let mut list = mid_level_passes(OptLevel::O2);
    list.extend(mid_level_passes(OptLevel::O2).into_iter().skip(1));
    let mut rng = Rng::new(5);
    for round in 0..40 {
        let m = random_module(&mut rng, round);
        check_pipeline(&m, &list);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn o2_on_random_seeds(seed in any::<u64>(), unstructured in any::<bool>()) {
        let mut rng = Rng::new(seed);
        let m = if unstructured {
            random_cfg_program(&mut rng, 1 + (seed % 9) as usize, 50)
        } else {
            random_program(&mut rng, &ProgramShape::small())
        };
        check_pipeline(&m, &mid_level_passes(OptLevel::O2));
    }
}

/// Speed of SSA construction and every -O2 pass on one large random function.
/// `cargo test --release -p ssalab-compiler --lib -- --ignored --nocapture large_function_speed`
#[test]
#[ignore]
fn large_function_speed() {
    let size: usize = std::env::var("SSALAB_BENCH_INSTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let mut rng = Rng::new(42);
    let m = random_program(&mut rng, &ProgramShape::large(size));
    let f = &m.functions[0];
    println!(
        "function: {} instructions, {} blocks, {} registers",
        f.num_insts(),
        f.num_blocks(),
        f.num_values()
    );
    let mut work = m.clone();
    let total = std::time::Instant::now();
    let stats = run_passes(&mut work, &mid_level_passes(OptLevel::O2), &mut |_, _| {
        Ok(())
    })
    .expect("pipeline");
    let wall = total.elapsed();
    let mut pass_sum = std::time::Duration::ZERO;
    for s in &stats {
        pass_sum += s.time;
        println!(
            "{:16} {:>9.2} ms  insts {:>7} -> {:>7}  copies {:>6} -> {:>6}  phis {:>6} -> {:>6}",
            s.pass,
            s.time.as_secs_f64() * 1e3,
            s.insts_before,
            s.insts_after,
            s.copies_before,
            s.copies_after,
            s.phis_before,
            s.phis_after
        );
    }
    println!(
        "SSA + -O2 passes: {:.2} ms; with per-pass measurements: {:.2} ms",
        pass_sum.as_secs_f64() * 1e3,
        wall.as_secs_f64() * 1e3
    );
    let t = std::time::Instant::now();
    verify_module(&work).expect("verified");
    println!("verifier: {:.2} ms", t.elapsed().as_secs_f64() * 1e3);
    let f = &work.functions[0];
    let timed = |what: &str, run: &mut dyn FnMut()| {
        let t = std::time::Instant::now();
        run();
        println!("{what}: {:.2} ms", t.elapsed().as_secs_f64() * 1e3);
    };
    let cfg = crate::analysis::Cfg::compute(f);
    let dom = crate::analysis::DomTree::compute(&cfg);
    let loops = crate::analysis::LoopForest::compute(&cfg, &dom);
    timed("cfg + dominators + loop forest", &mut || {
        let cfg = crate::analysis::Cfg::compute(f);
        let dom = crate::analysis::DomTree::compute(&cfg);
        crate::analysis::LoopForest::compute(&cfg, &dom);
    });
    let mut sets = None;
    timed("liveness sets (exploration)", &mut || {
        sets = Some(crate::analysis::Liveness::compute_by_exploration(f, &cfg));
    });
    let sets = sets.expect("computed");
    let du = crate::analysis::DefUse::compute(f);
    let check = crate::analysis::LiveCheck::new(&cfg, &dom, &loops);
    let mut queries = 0usize;
    timed(
        "live-in check of every (value, block) pair the sets report, plus as many misses",
        &mut || {
            for &b in cfg.rpo() {
                for &v in sets.live_in(b) {
                    assert!(check.is_live_in(&du, v, b));
                    queries += 1;
                }
                let miss = crate::ir::Value((b.0 * 7919) % f.num_values() as u32);
                assert_eq!(check.is_live_in(&du, miss, b), sets.is_live_in(miss, b));
                queries += 1;
            }
        },
    );
    println!(
        "  ({queries} queries, matrix mode: {})",
        check.uses_reachability()
    );
    let before = outcome(&m);
    let after = outcome(&work);
    assert_eq!(before, after);
}

/// Every program of `programs/` through the front end and `-O2` (verifier and interpreter
/// after every pass): prints time per pass and what the passes did.
/// `cargo test --release -p ssalab-compiler --lib -- --ignored --nocapture programs_directory`
#[test]
#[ignore]
fn programs_directory_o2() {
    use crate::front::{compile_file, FrontOptions};
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../programs");
    let mut files: Vec<PathBuf> = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("programs/").flatten() {
            let p = e.path();
            if p.is_dir() && p.file_name().is_some_and(|n| n != "include") {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "c") {
                files.push(p);
            }
        }
    }
    files.sort();
    let o2 = mid_level_passes(OptLevel::O2);
    let (mut front_time, mut insts) = (std::time::Duration::ZERO, 0usize);
    let mut per_pass: BTreeMap<&str, std::time::Duration> = BTreeMap::new();
    let mut detail: BTreeMap<String, u64> = BTreeMap::new();
    let (mut copies_in, mut copies_out) = (0usize, 0usize);
    for f in &files {
        let t = std::time::Instant::now();
        let c = compile_file(f, &FrontOptions::default());
        front_time += t.elapsed();
        let Some(m) = c.module else {
            panic!("{}: {}", f.display(), c.diagnostics.render());
        };
        insts += m.functions.iter().map(|f| f.num_insts()).sum::<usize>();
        let expected = outcome(&m);
        let mut work = m.clone();
        let stats = run_passes(&mut work, &o2, &mut |pass, md| {
            verify_module(md).map_err(|e| format!("{pass}: {e:?}"))?;
            (outcome(md) == expected)
                .then_some(())
                .ok_or(format!("{pass} changed the output"))
        })
        .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        for s in &stats {
            *per_pass.entry(s.pass).or_default() += s.time;
            for (k, v) in &s.detail {
                *detail.entry(format!("{}.{k}", s.pass)).or_default() += v;
            }
            if s.pass == "ssa" {
                copies_in += s.copies_before;
            }
        }
        copies_out += work
            .functions
            .iter()
            .map(crate::opt::count_copies)
            .sum::<usize>();
    }
    let total: std::time::Duration = per_pass.values().sum();
    println!(
        "{} programs, {} IR instructions from the front end in {:.1} ms; SSA + -O2: {:.1} ms",
        files.len(),
        insts,
        front_time.as_secs_f64() * 1e3,
        total.as_secs_f64() * 1e3
    );
    for (p, t) in &per_pass {
        println!("  {p:16} {:8.2} ms", t.as_secs_f64() * 1e3);
    }
    println!("copies: {copies_in} from the front end, {copies_out} after -O2");
    for (k, v) in &detail {
        println!("  {k} = {v}");
    }
}
