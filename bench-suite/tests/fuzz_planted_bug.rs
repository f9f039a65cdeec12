//! The fuzzer's bisection and reduction on a planted miscompilation: a configuration whose
//! second stage turns every arithmetic right shift into a logical one. The campaign must name
//! that stage, reduce the program to a small reproducer that gcc still builds and that still
//! fails at that stage, save it, and give the same results with one and two workers.

use compiler::ir::{BinOp, Module, Op};
use ssalab::fuzz::driver::{run_campaign, CampaignOptions, Summary};
use ssalab::fuzz::oracle::{interpret, Checker, Configuration, StageResult, Verdict};
use ssalab::fuzz::Size;
use ssalab::host::HostCompiler;
use ssalab::programs::programs_root;
use std::ops::ControlFlow;
use std::path::PathBuf;

/// `ssa`, then the planted bug: `>>` of signed values computed as unsigned shifts.
struct ShrBug;

impl Configuration for ShrBug {
    fn name(&self) -> &str {
        "bug"
    }

    fn stages(&self) -> Vec<String> {
        vec!["bug:ssa".into(), "bug:shr".into()]
    }

    fn run(
        &self,
        front: &Module,
        steps: u64,
        max_output: usize,
        observe: &mut dyn FnMut(&str, StageResult) -> ControlFlow<()>,
    ) {
        let mut m = front.clone();
        for f in &mut m.functions {
            compiler::ssa::construct_ssa(f).expect("ssa");
        }
        if observe("bug:ssa", interpret(&m, steps, max_output)).is_break() {
            return;
        }
        for f in &mut m.functions {
            let ids: Vec<_> = f.block_ids().collect();
            for b in ids {
                for inst in &mut f.block_mut(b).insts {
                    if let Op::Bin(op @ BinOp::ShrS, _, _) = &mut inst.op {
                        *op = BinOp::ShrU;
                    }
                }
            }
        }
        let _ = observe("bug:shr", interpret(&m, steps, max_output));
    }
}

fn scratch(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("ssalab-fuzz-test-{}-{tag}", std::process::id()))
}

fn campaign(first_seed: u64, count: u64, jobs: usize, reduce: bool, save: PathBuf) -> Summary {
    let opts = CampaignOptions {
        count,
        first_seed,
        jobs,
        size: Size::Medium,
        save: Some(save),
        reduce,
        reduce_budget: 400,
        progress: false,
        pass_stats: false,
    };
    let make = |w: usize| {
        let root = programs_root();
        let mut c = Checker::new(
            HostCompiler::new(&root),
            scratch(&format!("j{jobs}-w{w}")),
            &root,
        );
        c.configs = vec![Box::new(ShrBug)];
        c
    };
    run_campaign(&opts, &make)
}

#[test]
fn planted_bug_is_bisected_reduced_saved_and_deterministic() {
    // A quick scan finds the programs that show the bug (about a quarter of medium ones
    // shift a negative value right where it matters).
    let scan = campaign(300, 40, 2, false, scratch("scan"));
    let hits: Vec<u64> = scan.mismatches().map(|(r, _)| r.seed).collect();
    assert!(
        hits.len() >= 2,
        "the planted bug should show in several of 40 programs:\n{}",
        scan.render()
    );
    assert!(!scan.clean());
    // Reduce a range holding the first two, with one and with two workers.
    let (first, last) = (hits[0], hits[1]);
    let count = last - first + 1;
    let save1 = scratch("save1");
    let save2 = scratch("save2");
    let one = campaign(first, count, 1, true, save1.clone());
    let two = campaign(first, count, 2, true, save2.clone());
    let mismatches: Vec<_> = one.mismatches().collect();
    assert_eq!(
        mismatches.iter().map(|(r, _)| r.seed).collect::<Vec<_>>(),
        hits.iter()
            .copied()
            .filter(|s| *s <= last)
            .collect::<Vec<_>>(),
        "the same programs mismatch with and without reduction"
    );
    for (r, first) in &mismatches {
        assert_eq!(first.stage, "bug:shr", "seed {}", r.seed);
        let red = r.reduced.as_ref().expect("reduced");
        assert!(
            red.lines * 4 < r.lines && red.lines <= 60,
            "seed {}: reduced only from {} to {} lines:\n{}",
            r.seed,
            r.lines,
            red.lines,
            red.text
        );
        assert!(red.text.contains(">>"), "{}", red.text);
        // The reducer kept it failing at the same stage: check the saved file independently.
        let saved = r
            .saved
            .iter()
            .find(|p| !p.to_string_lossy().ends_with(".orig.c"))
            .expect("reduced file saved");
        let text = std::fs::read_to_string(saved).unwrap();
        assert!(text.contains("first failing stage: bug:shr"));
        let root = programs_root();
        let mut c = Checker::new(HostCompiler::new(&root), scratch("recheck"), &root);
        c.configs = vec![Box::new(ShrBug)];
        match c.check(&text) {
            Verdict::Mismatch { first, .. } => assert_eq!(first.stage, "bug:shr"),
            other => panic!("saved reproducer does not reproduce: {other:?}"),
        }
        let _ = std::fs::remove_dir_all(&c.workdir);
    }
    // Same verdicts and the same reduced programs with one and two workers.
    assert_eq!(one.reports.len(), two.reports.len());
    for (a, b) in one.reports.iter().zip(&two.reports) {
        assert_eq!(a.seed, b.seed);
        assert_eq!(format!("{:?}", a.verdict), format!("{:?}", b.verdict));
        assert_eq!(
            a.reduced.as_ref().map(|r| &r.text),
            b.reduced.as_ref().map(|r| &r.text)
        );
    }
    for d in [save1, save2, scratch("scan")] {
        let _ = std::fs::remove_dir_all(d);
    }
}
