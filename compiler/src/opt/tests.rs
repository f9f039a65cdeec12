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

/// One large random function (about 20,000 instructions) through SSA and every -O2 pass: the
/// result verifies, behaves like the input, and the fast live-in check agrees with the
/// liveness sets on it. (Speed is measured by `ssalab throughput --random-insts N`, not here.)
#[test]
fn large_function_is_correct_after_o2() {
    let mut rng = Rng::new(42);
    let m = random_program(&mut rng, &ProgramShape::large(20_000));
    let mut work = m.clone();
    run_passes(&mut work, &mid_level_passes(OptLevel::O2), &mut |_, _| {
        Ok(())
    })
    .expect("pipeline");
    verify_module(&work).expect("verified");
    let f = &work.functions[0];
    let cfg = crate::analysis::Cfg::compute(f);
    let dom = crate::analysis::DomTree::compute(&cfg);
    let loops = crate::analysis::LoopForest::compute(&cfg, &dom);
    let sets = crate::analysis::Liveness::compute_by_exploration(f, &cfg);
    let du = crate::analysis::DefUse::compute(f);
    let check = crate::analysis::LiveCheck::new(&cfg, &dom, &loops);
    for &b in cfg.rpo() {
        for &v in sets.live_in(b) {
            assert!(check.is_live_in(&du, v, b));
        }
        let miss = crate::ir::Value((b.0 * 7919) % f.num_values() as u32);
        assert_eq!(check.is_live_in(&du, miss, b), sets.is_live_in(miss, b));
    }
    assert_eq!(outcome(&m), outcome(&work));
}
