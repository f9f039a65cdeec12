//! The mid-level pass pipeline: a registry of passes by name, pipelines as data (lists of
//! names), a driver that runs them over a module, and the project-wide per-pass statistics.
//!
//! Every pass works on one function at a time. The driver measures each function before and
//! after each pass in the same way for all passes — static `copy` count, copies weighted by
//! `5^loop-depth` (the papers' static cost), copies inserted and removed (by result value),
//! phis, instructions — and times the pass alone (measurement excluded). After each pass it
//! calls a hook with the whole module: the CLI uses it for `--print-after PASS`, tests to run
//! the SSA verifier and the interpreter after every pass.
//!
//! Other stages (out-of-SSA, coalescing, register allocation) can register their own passes
//! by building a registry (`&[PassInfo]`) that extends [`mid_level_registry`] and calling
//! [`run_passes_with`]; the statistics then come out in the same shape.

use crate::analysis::bitset::BitSet;
use crate::analysis::cfg::Cfg;
use crate::analysis::dom::DomTree;
use crate::analysis::loops::LoopForest;
use crate::ir::{Function, Module, Op};
use crate::opt;
use std::fmt;
use std::time::{Duration, Instant};

/// Optimisation level of the mid-level pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OptLevel {
    /// SSA construction only.
    O0,
    /// SSA plus the cheap clean-ups (copy propagation, constant propagation, DCE).
    O1,
    /// Everything: SSA, copy propagation, SCCP, peephole, value numbering, loop-invariant
    /// code motion, strength reduction, DCE, CFG clean-up.
    O2,
}

/// The mid-level passes run at `opt`, in order.
pub fn mid_level_passes(opt: OptLevel) -> Vec<&'static str> {
    match opt {
        OptLevel::O0 => vec!["ssa"],
        OptLevel::O1 => vec!["ssa", "copyprop", "sccp", "copyprop", "dce"],
        OptLevel::O2 => vec![
            "ssa",
            "copyprop",
            "sccp",
            "peephole",
            "gvn",
            "copyprop",
            "licm",
            "strength-reduce",
            "gvn",
            "dce",
            "simplify-cfg",
            "copyprop",
        ],
    }
}

/// Extra numbers a pass reports about itself (name, count).
pub type PassDetail = Vec<(&'static str, u64)>;

/// A pass: its name in pipelines, a one-line summary, whether its input must be in SSA form,
/// and the function transformer.
#[derive(Clone, Copy)]
pub struct PassInfo {
    pub name: &'static str,
    pub summary: &'static str,
    /// If true, the driver refuses a function in which a register is assigned twice.
    pub requires_ssa: bool,
    pub run: fn(&mut Function) -> Result<PassDetail, String>,
}

impl fmt::Debug for PassInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PassInfo")
            .field("name", &self.name)
            .finish()
    }
}

fn run_ssa(f: &mut Function) -> Result<PassDetail, String> {
    let s = crate::ssa::construct_ssa(f).map_err(|e| e.message)?;
    Ok(vec![
        ("phis", s.phis as u64),
        ("undefined", s.undefined as u64),
        ("blocks_removed", s.blocks_removed as u64),
    ])
}

fn run_copyprop(f: &mut Function) -> Result<PassDetail, String> {
    let s = opt::copy_prop::copy_propagate(f);
    Ok(vec![
        ("copies_folded", s.copies_removed as u64),
        ("trivial_phis", s.phis_removed as u64),
    ])
}

fn run_sccp(f: &mut Function) -> Result<PassDetail, String> {
    let s = opt::sccp::sccp(f);
    Ok(vec![
        ("values_folded", s.values_folded as u64),
        ("branches_folded", s.branches_folded as u64),
        ("blocks_removed", s.blocks_removed as u64),
    ])
}

fn run_gvn(f: &mut Function) -> Result<PassDetail, String> {
    let s = opt::gvn::gvn(f);
    Ok(vec![
        ("insts_removed", s.insts_removed as u64),
        ("phis_removed", s.phis_removed as u64),
    ])
}

fn run_dce(f: &mut Function) -> Result<PassDetail, String> {
    let s = opt::dce::dce(f);
    Ok(vec![
        ("insts_removed", s.insts_removed as u64),
        ("phis_removed", s.phis_removed as u64),
    ])
}

fn run_strength_reduce(f: &mut Function) -> Result<PassDetail, String> {
    let s = opt::strength_reduce::strength_reduce(f);
    Ok(vec![
        ("ivs_created", s.ivs_created as u64),
        ("addresses_reduced", s.addresses_reduced as u64),
        ("loops_without_preheader", s.loops_without_preheader as u64),
    ])
}

fn run_licm(f: &mut Function) -> Result<PassDetail, String> {
    let s = opt::licm::licm(f);
    Ok(vec![
        ("hoisted", s.hoisted as u64),
        ("loops_without_preheader", s.loops_without_preheader as u64),
    ])
}

fn run_peephole(f: &mut Function) -> Result<PassDetail, String> {
    let s = opt::peephole::peephole(f);
    Ok(vec![("simplified", s.simplified as u64)])
}

fn run_simplify_cfg(f: &mut Function) -> Result<PassDetail, String> {
    let s = opt::simplify_cfg::simplify_cfg(f);
    Ok(vec![
        ("blocks_forwarded", s.forwarded as u64),
        ("blocks_merged", s.merged as u64),
    ])
}

fn run_split_critical_edges(f: &mut Function) -> Result<PassDetail, String> {
    let n = crate::analysis::cfg::split_critical_edges(f);
    Ok(vec![("edges_split", n as u64)])
}

const MID_LEVEL: &[PassInfo] = &[
    PassInfo {
        name: "ssa",
        summary: "pruned SSA construction (Cytron et al.)",
        requires_ssa: false,
        run: run_ssa,
    },
    PassInfo {
        name: "copyprop",
        summary: "copy propagation / folding and trivial-phi removal",
        requires_ssa: true,
        run: run_copyprop,
    },
    PassInfo {
        name: "sccp",
        summary: "sparse conditional constant propagation (Wegman-Zadeck)",
        requires_ssa: true,
        run: run_sccp,
    },
    PassInfo {
        name: "peephole",
        summary: "algebraic simplification (x+0, x*2^n -> shl, ...)",
        requires_ssa: true,
        run: run_peephole,
    },
    PassInfo {
        name: "gvn",
        summary: "dominator-based value numbering (scoped CSE)",
        requires_ssa: true,
        run: run_gvn,
    },
    PassInfo {
        name: "licm",
        summary: "loop-invariant code motion of pure instructions to the preheader",
        requires_ssa: true,
        run: run_licm,
    },
    PassInfo {
        name: "strength-reduce",
        summary: "induction-variable strength reduction of addresses into pointer IVs",
        requires_ssa: true,
        run: run_strength_reduce,
    },
    PassInfo {
        name: "dce",
        summary: "mark-sweep dead-code elimination (dead phi cycles included)",
        requires_ssa: true,
        run: run_dce,
    },
    PassInfo {
        name: "simplify-cfg",
        summary: "forward empty blocks, merge straight-line block pairs",
        requires_ssa: true,
        run: run_simplify_cfg,
    },
    PassInfo {
        name: "split-critical-edges",
        summary: "split every critical edge with an empty block",
        requires_ssa: false,
        run: run_split_critical_edges,
    },
];

/// The passes of this module (SSA construction and the SSA optimisations).
pub fn mid_level_registry() -> &'static [PassInfo] {
    MID_LEVEL
}

/// Names of the passes [`run_passes`] accepts.
pub fn pass_names() -> Vec<&'static str> {
    MID_LEVEL.iter().map(|p| p.name).collect()
}

/// Statistics of one pass on one function: the project-wide shape (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassStats {
    pub pass: &'static str,
    pub function: String,
    /// Static number of `copy` instructions.
    pub copies_before: usize,
    pub copies_after: usize,
    /// Copies weighted by `5^loop-depth` of their block (saturating).
    pub weighted_copies_before: u64,
    pub weighted_copies_after: u64,
    /// Copies present after but not before / before but not after (by result value).
    pub copies_inserted: usize,
    pub copies_removed: usize,
    pub phis_before: usize,
    pub phis_after: usize,
    pub insts_before: usize,
    pub insts_after: usize,
    /// Wall time of the pass on this function (measurements excluded).
    pub time: Duration,
    /// The pass's own numbers.
    pub detail: PassDetail,
}

/// Why a pipeline stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PipelineError {
    UnknownPass {
        name: String,
        valid: Vec<&'static str>,
    },
    PassFailed {
        pass: &'static str,
        function: String,
        message: String,
    },
    /// The hook rejected the module after a pass (e.g. the verifier found an error).
    Hook { pass: &'static str, message: String },
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PipelineError::UnknownPass { name, valid } => {
                write!(
                    f,
                    "unknown pass `{name}`; valid passes: {}",
                    valid.join(", ")
                )
            }
            PipelineError::PassFailed {
                pass,
                function,
                message,
            } => write!(f, "pass `{pass}` failed on @{function}: {message}"),
            PipelineError::Hook { pass, message } => write!(f, "after pass `{pass}`: {message}"),
        }
    }
}

impl std::error::Error for PipelineError {}

/// Static copy figures of one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionMeasure {
    pub copies: usize,
    pub weighted_copies: u64,
    pub phis: usize,
    pub insts: usize,
    /// Result values of the copies (to count insertions and removals).
    copy_dsts: Vec<u32>,
}

/// Measures `f`: copies, weighted copies (loop forest computed here), phis, instructions.
pub fn measure(f: &Function) -> FunctionMeasure {
    let cfg = Cfg::compute(f);
    let dom = DomTree::compute(&cfg);
    let loops = LoopForest::compute(&cfg, &dom);
    let mut m = FunctionMeasure::default();
    for b in f.block_ids() {
        let w = loops.weight(b);
        for inst in &f.block(b).insts {
            m.insts += 1;
            match inst.op {
                Op::Copy(_) => {
                    m.copies += 1;
                    m.weighted_copies = m.weighted_copies.saturating_add(w);
                    if let Some(d) = inst.dst {
                        m.copy_dsts.push(d.0);
                    }
                }
                Op::Phi(_) => m.phis += 1,
                _ => {}
            }
        }
    }
    m
}

/// Copies in `after` but not in `before`, and in `before` but not in `after` (by result).
fn copy_delta(
    before: &FunctionMeasure,
    after: &FunctionMeasure,
    num_values: usize,
) -> (usize, usize) {
    let set_of = |m: &FunctionMeasure| {
        let mut s = BitSet::new(num_values);
        for &d in &m.copy_dsts {
            if (d as usize) < num_values {
                s.insert(d as usize);
            }
        }
        s
    };
    let (old, new) = (set_of(before), set_of(after));
    let missing_from = |m: &FunctionMeasure, s: &BitSet| {
        m.copy_dsts
            .iter()
            .filter(|&&d| (d as usize) >= num_values || !s.contains(d as usize))
            .count()
    };
    (missing_from(after, &old), missing_from(before, &new))
}

/// True if no register has two definitions (parameters count as definitions).
pub fn is_single_assignment(f: &Function) -> bool {
    let mut seen = BitSet::new(f.num_values());
    let defs = f.params.iter().copied().chain(
        f.blocks
            .iter()
            .flat_map(|b| b.insts.iter().filter_map(|i| i.dst)),
    );
    for d in defs {
        if d.index() >= f.num_values() || !seen.insert(d.index()) {
            return false;
        }
    }
    true
}

/// Runs `passes` (names from [`mid_level_registry`]) over every function of `module`, calling
/// `hook(pass, module)` after each pass. Unknown names are reported before anything runs.
pub fn run_passes(
    module: &mut Module,
    passes: &[&str],
    hook: &mut dyn FnMut(&str, &Module) -> Result<(), String>,
) -> Result<Vec<PassStats>, PipelineError> {
    run_passes_with(mid_level_registry(), module, passes, hook)
}

/// [`run_passes`] with another registry (e.g. the mid-level passes plus a later stage's).
pub fn run_passes_with(
    registry: &[PassInfo],
    module: &mut Module,
    passes: &[&str],
    hook: &mut dyn FnMut(&str, &Module) -> Result<(), String>,
) -> Result<Vec<PassStats>, PipelineError> {
    let resolved: Vec<&PassInfo> = passes
        .iter()
        .map(|name| {
            registry
                .iter()
                .find(|p| p.name == *name)
                .ok_or_else(|| PipelineError::UnknownPass {
                    name: name.to_string(),
                    valid: registry.iter().map(|p| p.name).collect(),
                })
        })
        .collect::<Result<_, _>>()?;
    let mut stats = Vec::new();
    for pass in resolved {
        for f in &mut module.functions {
            if pass.requires_ssa && !is_single_assignment(f) {
                return Err(PipelineError::PassFailed {
                    pass: pass.name,
                    function: f.name.clone(),
                    message: "input is not in SSA form (a register is assigned more than \
                              once); run `ssa` first"
                        .to_string(),
                });
            }
            let before = measure(f);
            let start = Instant::now();
            let detail = (pass.run)(f).map_err(|message| PipelineError::PassFailed {
                pass: pass.name,
                function: f.name.clone(),
                message,
            })?;
            let time = start.elapsed();
            let after = measure(f);
            let (inserted, removed) = copy_delta(&before, &after, f.num_values());
            stats.push(PassStats {
                pass: pass.name,
                function: f.name.clone(),
                copies_before: before.copies,
                copies_after: after.copies,
                weighted_copies_before: before.weighted_copies,
                weighted_copies_after: after.weighted_copies,
                copies_inserted: inserted,
                copies_removed: removed,
                phis_before: before.phis,
                phis_after: after.phis,
                insts_before: before.insts,
                insts_after: after.insts,
                time,
                detail,
            });
        }
        hook(pass.name, module).map_err(|message| PipelineError::Hook {
            pass: pass.name,
            message,
        })?;
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_module;

    const PROGRAM: &str = "func @main() -> i32 {
b0:
  %0:i32 = const 0
  %1:i32 = const 10
  jmp b1
b1:
  %2:i32 = cmp.lt %0, %1
  br %2, b2, b3
b2:
  %3:i32 = copy %0
  %4:i32 = const 1
  %0:i32 = add %3, %4
  jmp b1
b3:
  call @print_int(%0)
  ret %0
}";

    #[test]
    fn unknown_pass_lists_valid_names() {
        let mut m = parse_module(PROGRAM).unwrap();
        let err = run_passes(&mut m, &["ssa", "bogus"], &mut |_, _| Ok(())).unwrap_err();
        match &err {
            PipelineError::UnknownPass { name, valid } => {
                assert_eq!(name, "bogus");
                assert!(valid.contains(&"gvn"));
            }
            other => panic!("{other:?}"),
        }
        assert!(err.to_string().contains("valid passes: ssa, copyprop"));
        // Nothing ran.
        assert_eq!(m, parse_module(PROGRAM).unwrap());
    }

    #[test]
    fn stats_count_copies_with_loop_weights() {
        let mut m = parse_module(PROGRAM).unwrap();
        let mut seen = Vec::new();
        let stats = run_passes(&mut m, &["ssa", "copyprop"], &mut |p, m| {
            seen.push(p.to_string());
            crate::ssa::verify_module(m).map_err(|e| format!("{e:?}"))
        })
        .unwrap();
        assert_eq!(seen, vec!["ssa", "copyprop"]);
        assert_eq!(stats.len(), 2);
        // The copy is in the loop body (depth 1): weight 5.
        let ssa = &stats[0];
        assert_eq!((ssa.copies_before, ssa.copies_after), (1, 1));
        assert_eq!(
            (ssa.weighted_copies_before, ssa.weighted_copies_after),
            (5, 5)
        );
        assert_eq!((ssa.copies_inserted, ssa.copies_removed), (0, 0));
        assert_eq!((ssa.phis_before, ssa.phis_after), (0, 1));
        assert_eq!(ssa.detail[0], ("phis", 1));
        let cp = &stats[1];
        assert_eq!((cp.copies_after, cp.weighted_copies_after), (0, 0));
        assert_eq!((cp.copies_inserted, cp.copies_removed), (0, 1));
        assert_eq!(cp.insts_before, cp.insts_after + 1);
    }

    #[test]
    fn ssa_passes_refuse_non_ssa_input() {
        let mut m = parse_module(PROGRAM).unwrap();
        let err = run_passes(&mut m, &["gvn"], &mut |_, _| Ok(())).unwrap_err();
        assert!(
            err.to_string()
                .contains("pass `gvn` failed on @main: input is not in SSA form"),
            "{err}"
        );
        // Critical-edge splitting works on any form.
        run_passes(
            &mut m,
            &["split-critical-edges", "ssa", "gvn"],
            &mut |_, _| Ok(()),
        )
        .unwrap();
    }

    #[test]
    fn level_lists_are_registered() {
        for level in [OptLevel::O0, OptLevel::O1, OptLevel::O2] {
            for p in mid_level_passes(level) {
                assert!(pass_names().contains(&p), "{p}");
            }
        }
        assert_eq!(mid_level_passes(OptLevel::O0), vec!["ssa"]);
    }
}
