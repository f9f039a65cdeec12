//! The back-end driver: SSA IR → machine-level SSA → out-of-SSA → register allocation →
//! frame → scheduling → encoding, as a pipeline of named passes (a [`BackendConfig`] is
//! data: a name and the ordered pass list), with the same per-pass statistics shape as the
//! mid-level pipeline ([`PassStats`]: static and 5^loop-depth weighted copies before and
//! after, copies inserted/removed, phis, instructions, time, the pass's own counts).
//!
//! Checking hooks: after every pass the driver can verify the function in the form the pass
//! must produce (`mir::verify`), run the independent allocation checker after allocation
//! and frame finalisation, and execute the whole module with the machine-level interpreter
//! (`mir::interp`) to compare its output with a reference.

use crate::ir;
use crate::isel::{self, IselOptions};
use crate::mir::{self, cfg::CfgInfo, Opc};
use crate::pipeline::{mid_level_passes, OptLevel, PassDetail, PassStats};
use crate::{emit, out_of_ssa, regalloc, sched};
pub use memo::PassMemo;
use simulator::isa::Target;
use simulator::object::Object;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub mod memo;

/// A machine-level pass over one function.
#[derive(Clone, Copy)]
pub struct MirPass {
    pub name: &'static str,
    pub summary: &'static str,
    /// The form the pass produces (checked under `verify`).
    pub produces: mir::verify::Form,
    pub run: fn(&mut mir::Function, &BackendConfig) -> Result<PassDetail, String>,
}

impl fmt::Debug for MirPass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

fn run_isolation(f: &mut mir::Function, _c: &BackendConfig) -> Result<PassDetail, String> {
    out_of_ssa::isolation::run(f)
}

fn run_sreedhar3(f: &mut mir::Function, _c: &BackendConfig) -> Result<PassDetail, String> {
    out_of_ssa::sreedhar3::run(f)
}

fn run_sreedhar_cssa(f: &mut mir::Function, _c: &BackendConfig) -> Result<PassDetail, String> {
    out_of_ssa::sreedhar3::convert_to_cssa(f)
}

fn run_boissinot(
    f: &mut mir::Function,
    variant: out_of_ssa::boissinot::Variant,
) -> Result<PassDetail, String> {
    out_of_ssa::boissinot::run(f, variant)
}

fn run_naive_abi(f: &mut mir::Function, _c: &BackendConfig) -> Result<PassDetail, String> {
    out_of_ssa::naive_abi::naive_abi(f)
}

/// Out-of-pinned-SSA after the pinning phases named by `pass` (see [`LEUNG_PASSES`]).
fn run_leung(f: &mut mir::Function, pass: &str) -> Result<PassDetail, String> {
    let phases = LEUNG_PASSES
        .iter()
        .find(|(n, _)| *n == pass)
        .map(|(_, p)| *p)
        .ok_or_else(|| format!("no pinning phases for pass `{pass}`"))?;
    out_of_ssa::leung_george::run(f, phases)
}

use out_of_ssa::leung_george::Phases;
use out_of_ssa::pinning_phi::PhiVariant;

/// The out-of-pinned-SSA passes and the pinning phases each runs (`pinning_SP` always).
pub const LEUNG_PASSES: &[(&str, Phases)] = &[
    (
        "leung",
        Phases {
            cssa: false,
            abi: false,
            phi: None,
        },
    ),
    (
        "leung-abi",
        Phases {
            cssa: false,
            abi: true,
            phi: None,
        },
    ),
    (
        "leung-cssa",
        Phases {
            cssa: true,
            abi: false,
            phi: None,
        },
    ),
    (
        "leung-cssa-abi",
        Phases {
            cssa: true,
            abi: true,
            phi: None,
        },
    ),
    (
        "leung-phi",
        Phases {
            cssa: false,
            abi: false,
            phi: Some(PhiVariant::Base),
        },
    ),
    (
        "leung-phi-abi",
        Phases {
            cssa: false,
            abi: true,
            phi: Some(PhiVariant::Base),
        },
    ),
    (
        "leung-phi-abi-depth",
        Phases {
            cssa: false,
            abi: true,
            phi: Some(PhiVariant::Depth),
        },
    ),
    (
        "leung-phi-abi-opt",
        Phases {
            cssa: false,
            abi: true,
            phi: Some(PhiVariant::Opt),
        },
    ),
    (
        "leung-phi-abi-pess",
        Phases {
            cssa: false,
            abi: true,
            phi: Some(PhiVariant::Pess),
        },
    ),
];

macro_rules! leung_pass {
    ($name:literal, $summary:literal) => {
        MirPass {
            name: $name,
            summary: $summary,
            produces: mir::verify::Form::Allocation,
            run: |f, _c| run_leung(f, $name),
        }
    };
}

fn run_coalesce(f: &mut mir::Function, _c: &BackendConfig) -> Result<PassDetail, String> {
    crate::coalesce::aggressive::run(f)
}

fn run_coalesce_chaitin(f: &mut mir::Function, _c: &BackendConfig) -> Result<PassDetail, String> {
    crate::coalesce::chaitin::run(f)
}

fn run_irc(f: &mut mir::Function, c: &BackendConfig) -> Result<PassDetail, String> {
    regalloc::irc::allocate(f, &c.regalloc)
}

fn run_ssa_spill(f: &mut mir::Function, c: &BackendConfig) -> Result<PassDetail, String> {
    regalloc::ssa::belady::run(f, &c.regalloc)
}

fn run_ssa_spill_ilp(f: &mut mir::Function, c: &BackendConfig) -> Result<PassDetail, String> {
    regalloc::ssa::ilp_spill::run(f, &c.regalloc)
}

fn run_ssa_constraints(f: &mut mir::Function, _c: &BackendConfig) -> Result<PassDetail, String> {
    regalloc::ssa::constraints::run(f)
}

fn run_ssa_colour(f: &mut mir::Function, c: &BackendConfig) -> Result<PassDetail, String> {
    regalloc::ssa::colour::run(f, &c.regalloc)
}

fn run_ssa_recolour(f: &mut mir::Function, c: &BackendConfig) -> Result<PassDetail, String> {
    regalloc::ssa::recolour::run(f, &c.regalloc)
}

fn run_ssa_ilp_coalesce(f: &mut mir::Function, c: &BackendConfig) -> Result<PassDetail, String> {
    regalloc::ssa::ilp_coalesce::run(f, &c.regalloc)
}

fn run_ssa_destruct(f: &mut mir::Function, _c: &BackendConfig) -> Result<PassDetail, String> {
    regalloc::ssa::destruct::run(f)
}

fn run_seq_parcopy(f: &mut mir::Function, c: &BackendConfig) -> Result<PassDetail, String> {
    regalloc::ssa::destruct::sequentialise(f, &c.regalloc)
}

fn run_frame(f: &mut mir::Function, _c: &BackendConfig) -> Result<PassDetail, String> {
    regalloc::frame::finalize(f)
}

/// Every machine-level function pass, by name.
pub const MIR_PASSES: &[MirPass] = &[
    MirPass {
        name: "out-of-ssa",
        summary: "baseline out-of-SSA: pin isolation + phi isolation with parallel copies (SSA book §21.1)",
        produces: mir::verify::Form::Allocation,
        run: run_isolation,
    },
    MirPass {
        name: "sreedhar3",
        summary: "Sreedhar et al. method III for phis (CSSA by liveness and interference) + pin isolation",
        produces: mir::verify::Form::Allocation,
        run: run_sreedhar3,
    },
    MirPass {
        name: "sreedhar-cssa",
        summary: "Sreedhar et al. method III: conversion of the phis to CSSA only (copies, phis kept)",
        produces: mir::verify::Form::Ssa,
        run: run_sreedhar_cssa,
    },
    MirPass {
        name: "naive-abi",
        summary: "Naive_ABI: local copies around every renaming-constrained operand (SSA kept)",
        produces: mir::verify::Form::Ssa,
        run: run_naive_abi,
    },
    leung_pass!("leung", "pinning_SP + Naive_ABI + Leung & George out-of-pinned-SSA (mark, reconstruct; Rastello et al. App. A)"),
    leung_pass!("leung-abi", "pinning_SP + pinning_ABI + out-of-pinned-SSA"),
    leung_pass!("leung-cssa", "pinning_SP + Naive_ABI + pinning_CSSA + out-of-pinned-SSA"),
    leung_pass!("leung-cssa-abi", "pinning_SP + pinning_CSSA + pinning_ABI + out-of-pinned-SSA"),
    leung_pass!("leung-phi", "pinning_SP + Naive_ABI + pinning_phi (Rastello et al. §3, Alg. 2) + out-of-pinned-SSA"),
    leung_pass!("leung-phi-abi", "pinning_SP + pinning_ABI + pinning_phi + out-of-pinned-SSA"),
    leung_pass!("leung-phi-abi-depth", "as leung-phi-abi, pinning_phi with the depth constraint (Alg. 3)"),
    leung_pass!("leung-phi-abi-opt", "as leung-phi-abi, pinning_phi with optimistic interferences (Alg. 4)"),
    leung_pass!("leung-phi-abi-pess", "as leung-phi-abi, pinning_phi with pessimistic interferences (Alg. 4)"),
    MirPass {
        name: "coalesce",
        summary: "the paper's C: repeated aggressive coalescing of the remaining copies, before allocation",
        produces: mir::verify::Form::Allocation,
        run: run_coalesce,
    },
    MirPass {
        name: "irc",
        summary: "iterated register coalescing with spilling (George & Appel 1996)",
        produces: mir::verify::Form::Allocated,
        run: run_irc,
    },
    MirPass {
        name: "ssa-spill",
        summary: "road 2: Belady spilling on SSA with global next-use distances, reloads/remat on blocks and edges, SSA reconstruction (Hack et al. §3.1, Alg. 2-3)",
        produces: mir::verify::Form::Ssa,
        run: run_ssa_spill,
    },
    MirPass {
        name: "ssa-spill-ilp",
        summary: "road 2: optimal spilling by ILP (Hack et al. §3.2: reloads, remat, stores) for small functions, Belady's placement, Belady as capped fallback",
        produces: mir::verify::Form::Ssa,
        run: run_ssa_spill_ilp,
    },
    MirPass {
        name: "ssa-constraints",
        summary: "road 2: a Perm (parallel copy of the live values) before each constrained instruction, copies for tied operands (Hack et al. §6)",
        produces: mir::verify::Form::Ssa,
        run: run_ssa_constraints,
    },
    MirPass {
        name: "ssa-colour",
        summary: "road 2: colouring along the dominance tree (Hack et al. §4, Alg. 1) -> allocated-SSA form",
        produces: mir::verify::Form::AllocatedSsa,
        run: run_ssa_colour,
    },
    MirPass {
        name: "ssa-recolour",
        summary: "road 2: Algorithm 1's colouring, then recolouring towards fewer Perm and phi copies (Hack et al. §5.3, App. C) -> allocated-SSA form",
        produces: mir::verify::Form::AllocatedSsa,
        run: run_ssa_recolour,
    },
    MirPass {
        name: "ssa-ilp-coalesce",
        summary: "road 2: Algorithm 1, the §5.3 recolouring, then optimal Perm and phi copies by ILP (Hack et al. §5.4, microlp; capped, heuristic fallback) -> allocated-SSA form",
        produces: mir::verify::Form::AllocatedSsa,
        run: run_ssa_ilp_coalesce,
    },
    MirPass {
        name: "ssa-destruct",
        summary: "road 2: SSA destruction on registers: phis -> parallel copies on the incoming edges (Hack et al. §5.1)",
        produces: mir::verify::Form::Allocated,
        run: run_ssa_destruct,
    },
    MirPass {
        name: "seq-parcopy",
        summary: "road 2: sequentialise parallel copies with a free register or xor swaps (SSA book §21.3)",
        produces: mir::verify::Form::Allocated,
        run: run_seq_parcopy,
    },
    MirPass {
        name: "frame",
        summary: "frame layout, prologue/epilogue, callee-saved and link-register saves",
        produces: mir::verify::Form::Final,
        run: run_frame,
    },
    // Boissinot et al. (SSA book ch. 21 §21.2-21.3; issue 20).
    MirPass {
        name: "boissinot-int",
        summary: "Boissinot et al.: phi isolation, class merging by the linear dominance check, intersection-based interference + pin isolation",
        produces: mir::verify::Form::Allocation,
        run: |f, _c| run_boissinot(f, out_of_ssa::boissinot::Variant::Int),
    },
    MirPass {
        name: "boissinot-val",
        summary: "Boissinot et al.: as boissinot-int with value-based interference (SSA book §21.2)",
        produces: mir::verify::Form::Allocation,
        run: |f, _c| run_boissinot(f, out_of_ssa::boissinot::Variant::Val),
    },
    MirPass {
        name: "boissinot-val-virt",
        summary: "Boissinot et al.: value-based, virtualised phi copies (Alg. 21.4-21.5), class merging + pin isolation",
        produces: mir::verify::Form::Allocation,
        run: |f, _c| run_boissinot(f, out_of_ssa::boissinot::Variant::ValVirt),
    },
    MirPass {
        name: "boissinot-val-virt-dc",
        summary: "Boissinot et al.: value-based, virtualised phi copies, optimistic merging + linear de-coalescing (Alg. 21.3) + pin isolation",
        produces: mir::verify::Form::Allocation,
        run: |f, _c| run_boissinot(f, out_of_ssa::boissinot::Variant::ValVirtDecoalesce),
    },
    MirPass {
        name: "split-back-edges",
        summary: "splits the critical back edges into phi blocks (issue 20 item 5), SSA kept",
        produces: mir::verify::Form::Ssa,
        run: |f, _c| out_of_ssa::back_edges::run(f),
    },
    // Copy elimination after allocation (issue 21).
    MirPass {
        name: "ssa-colour-phi",
        summary: "road 2: ssa-colour biased towards the register of phi-related values (the BASE_phi family's coalescing of phi webs)",
        produces: mir::verify::Form::AllocatedSsa,
        run: |f, c| regalloc::ssa::colour::run_coalescing(f, &c.regalloc),
    },
    MirPass {
        name: "mark-pinned",
        summary: "flags the instructions with register-pinned operands (before ssa-colour overwrites the pins), so that pcm-block and ddg leave their registers alone (issue 21)",
        produces: mir::verify::Form::Ssa,
        run: |f, _c| crate::post_ra::mark_pinned(f),
    },
    MirPass {
        name: "pcm-edge",
        summary: "Parallel Copy Motion: Edge Motion of the phi permutations into merge blocks and out of branch blocks (Bouchez et al. 2010; Brandner & Colombet §2.3)",
        produces: mir::verify::Form::Allocated,
        run: |f, c| crate::post_ra::pcm::edge_motion(f, &c.regalloc),
    },
    MirPass {
        name: "pcm-block",
        summary: "Parallel Copy Motion: Block Motion, each permutation placed in its block where its live projection is smallest (Bouchez et al. 2010)",
        produces: mir::verify::Form::Allocated,
        run: |f, c| crate::post_ra::pcm::block_motion(f, &c.regalloc),
    },
    MirPass {
        name: "ddg",
        summary: "Brandner & Colombet §3: parallel-copy elimination on each block's data-dependence graph (downward motion of definitions, upward motion of uses, Alg. 1-9), topological re-emission",
        produces: mir::verify::Form::Allocated,
        run: |f, _c| crate::post_ra::ddg::run(f),
    },
    // Pereira's SSA-based register allocator (issue 22).
    MirPass {
        name: "pereira-lift",
        summary: "Pereira §4.2: edge splitting, short copies for pinned/tied operands, PhiLifting (Fig. 4) -> CSSA, still SSA",
        produces: mir::verify::Form::Ssa,
        run: |f, _c| regalloc::ssa::pereira::phi_lifting::run(f),
    },
    MirPass {
        name: "pereira-phi-mem-coalesce",
        summary: "Pereira §4.3-4.4: phi-analysis and PhiMemCoalesce (Fig. 4): lifted copies between non-overlapping phi classes removed",
        produces: mir::verify::Form::Ssa,
        run: |f, _c| regalloc::ssa::pereira::phi_classes::run(f),
    },
    MirPass {
        name: "pereira-colour",
        summary: "Pereira §4.1, 4.5-4.7: intervals, dominance-order colouring with preferences and spilling, SSA deconstruction with xor swaps, spill code",
        produces: mir::verify::Form::Allocated,
        run: |f, c| {
            regalloc::ssa::pereira::run_colour(f, &c.regalloc, regalloc::ssa::pereira::Breaker::Swap)
        },
    },
    MirPass {
        name: "pereira-colour-noswap",
        summary: "as pereira-colour, cycles broken with a free register or a stack slot instead of swaps",
        produces: mir::verify::Form::Allocated,
        run: |f, c| {
            regalloc::ssa::pereira::run_colour(f, &c.regalloc, regalloc::ssa::pereira::Breaker::NoSwap)
        },
    },
    MirPass {
        name: "coalesce-chaitin",
        summary: "the paper's C as Chaitin's coalescer: repeated aggressive coalescing, one precoloured node per physical register",
        produces: mir::verify::Form::Allocation,
        run: run_coalesce_chaitin,
    },
];

/// Names accepted by `--print-after` for the back end (module-level stages included).
pub fn pass_names(config: &BackendConfig) -> Vec<String> {
    let mut v = vec!["isel".to_string()];
    v.extend(config.passes.iter().cloned());
    v.push("sched".into());
    v.push("emit".into());
    v
}

/// A back-end pipeline configuration.
#[derive(Clone, Debug)]
pub struct BackendConfig {
    pub name: String,
    pub target: Target,
    /// Function passes after instruction selection, by name (see [`MIR_PASSES`]).
    pub passes: Vec<String>,
    pub isel: IselOptions,
    pub regalloc: regalloc::RegallocOptions,
    pub sched: sched::SchedOptions,
    /// Verify each pass's output form, and run the allocation checker.
    pub verify: bool,
}

/// The named pipeline configurations: (name, function passes after isel, summary). Each is
/// followed by scheduling and encoding. Names with `_` and `+` are those of Rastello et al.
/// (2004) Table 1.
pub const CONFIGS: &[(&str, &[&str], &str)] = &[
    (
        "baseline",
        &["out-of-ssa", "irc", "frame"],
        "isolation of phis and pins (Naive + Naive_ABI), then IRC",
    ),
    (
        "L_phi+C",
        &["leung-phi", "coalesce", "irc", "frame"],
        "Table 2: pinning_phi with the ABI constraints left to Naive_ABI, then C",
    ),
    (
        "C",
        &["leung", "coalesce", "irc", "frame"],
        "Tables 2-3: Naive_ABI, phis isolated by out-of-pinned-SSA, then repeated aggressive coalescing (C)",
    ),
    (
        "S_phi+C",
        &["sreedhar-cssa", "leung-cssa", "coalesce", "irc", "frame"],
        "Table 2: Sreedhar III to CSSA, pinning_CSSA, Naive_ABI, out-of-pinned-SSA, then C",
    ),
    (
        "L_phi,ABI+C",
        &["leung-phi-abi", "coalesce", "irc", "frame"],
        "Table 3: pinning_ABI + pinning_phi (the paper's algorithm), out-of-pinned-SSA, then C",
    ),
    (
        "S_phi+L_ABI+C",
        &["sreedhar-cssa", "leung-cssa-abi", "coalesce", "irc", "frame"],
        "Table 3: Sreedhar III to CSSA, pinning_CSSA + pinning_ABI, out-of-pinned-SSA, then C",
    ),
    (
        "L_ABI+C",
        &["leung-abi", "coalesce", "irc", "frame"],
        "Table 3: pinning_ABI, out-of-pinned-SSA (phis isolated), then C",
    ),
    (
        "L_phi,ABI",
        &["leung-phi-abi", "irc", "frame"],
        "Table 4: pinning_ABI + pinning_phi, out-of-pinned-SSA, no coalescing",
    ),
    (
        "S_phi",
        &["sreedhar-cssa", "leung-cssa", "irc", "frame"],
        "Table 4: Sreedhar III to CSSA, pinning_CSSA, Naive_ABI, out-of-pinned-SSA, no coalescing",
    ),
    (
        "L_ABI",
        &["leung-abi", "irc", "frame"],
        "Table 4: pinning_ABI, out-of-pinned-SSA (phis isolated), no coalescing",
    ),
    (
        "L_phi,ABI+C/depth",
        &["leung-phi-abi-depth", "coalesce", "irc", "frame"],
        "Table 5 'depth': pinning_phi with the depth-constrained affinity graph (Alg. 3)",
    ),
    (
        "L_phi,ABI+C/opt",
        &["leung-phi-abi-opt", "coalesce", "irc", "frame"],
        "Table 5 'opt': pinning_phi with optimistic interferences (Alg. 4)",
    ),
    (
        "L_phi,ABI+C/pess",
        &["leung-phi-abi-pess", "coalesce", "irc", "frame"],
        "Table 5 'pess': pinning_phi with pessimistic interferences (Alg. 4)",
    ),
    (
        "baseline+C",
        &["out-of-ssa", "coalesce", "irc", "frame"],
        "isolation (baseline), then C (not a row of the paper's Table 1)",
    ),
    (
        "S3",
        &["sreedhar3", "irc", "frame"],
        "Sreedhar III renaming its congruence classes itself, then pin isolation (not a row of Table 1)",
    ),
    (
        "L_CSSA_ABI",
        &["leung-cssa-abi", "irc", "frame"],
        "pinning_CSSA + pinning_ABI + out-of-pinned-SSA (not a row of the paper's Table 1), then IRC",
    ),
    (
        "hack",
        &[
            "ssa-spill",
            "ssa-constraints",
            "ssa-colour",
            "ssa-destruct",
            "seq-parcopy",
            "frame",
        ],
        "road 2: register allocation on SSA (Hack, Grund & Goos): Belady spilling, Perms at constraints, dominance-tree colouring, no coalescing; SSA destruction on registers",
    ),
    (
        "hack+recolor",
        &[
            "ssa-spill",
            "ssa-constraints",
            "ssa-recolour",
            "ssa-destruct",
            "seq-parcopy",
            "frame",
        ],
        "road 2: hack with the recolouring heuristic of Hack et al. §5.3 for phi and Perm copies",
    ),
    (
        "hack+ilp",
        &[
            "ssa-spill",
            "ssa-constraints",
            "ssa-ilp-coalesce",
            "ssa-destruct",
            "seq-parcopy",
            "frame",
        ],
        "road 2: hack with optimal phi and Perm copies by the ILP of Hack et al. §5.4 (heuristic §5.3 as warm start and fallback)",
    ),
    (
        "hack-ilpspill+ilp",
        &[
            "ssa-spill-ilp",
            "ssa-constraints",
            "ssa-ilp-coalesce",
            "ssa-destruct",
            "seq-parcopy",
            "frame",
        ],
        "road 2: spilling by the ILP of Hack et al. §3.2 (Belady as fallback), then hack+ilp's colouring",
    ),
    // Boissinot et al. (SSA book ch. 21 §21.2-21.3; issue 20).
    (
        "Bo_int",
        &["boissinot-int", "irc", "frame"],
        "Boissinot et al.: isolation, class merging with intersection-based interference, then IRC",
    ),
    (
        "Bo_val",
        &["boissinot-val", "irc", "frame"],
        "Boissinot et al.: isolation, class merging with value-based interference, then IRC",
    ),
    (
        "Bo_val_virt",
        &["boissinot-val-virt", "irc", "frame"],
        "Boissinot et al.: value-based, virtualised copies (Alg. 21.4-21.5) with Bo_val's class merging, then IRC",
    ),
    (
        "Bo_val+C",
        &["boissinot-val", "coalesce", "irc", "frame"],
        "Bo_val, then the repeated aggressive coalescer C",
    ),
    // The Chaitin-coalescer twins of the `+C` configurations (issue 20).
    (
        "L_phi+Cc",
        &["leung-phi", "coalesce-chaitin", "irc", "frame"],
        "L_phi+C with the Chaitin coalescer (one node per physical register) instead of C",
    ),
    (
        "Cc",
        &["leung", "coalesce-chaitin", "irc", "frame"],
        "C with the Chaitin coalescer (one node per physical register) instead of C",
    ),
    (
        "S_phi+Cc",
        &["sreedhar-cssa", "leung-cssa", "coalesce-chaitin", "irc", "frame"],
        "S_phi+C with the Chaitin coalescer (one node per physical register) instead of C",
    ),
    (
        "L_phi,ABI+Cc",
        &["leung-phi-abi", "coalesce-chaitin", "irc", "frame"],
        "L_phi,ABI+C with the Chaitin coalescer (one node per physical register) instead of C",
    ),
    (
        "S_phi+L_ABI+Cc",
        &["sreedhar-cssa", "leung-cssa-abi", "coalesce-chaitin", "irc", "frame"],
        "S_phi+L_ABI+C with the Chaitin coalescer (one node per physical register) instead of C",
    ),
    (
        "L_ABI+Cc",
        &["leung-abi", "coalesce-chaitin", "irc", "frame"],
        "L_ABI+C with the Chaitin coalescer (one node per physical register) instead of C",
    ),
    (
        "L_phi,ABI+Cc/depth",
        &["leung-phi-abi-depth", "coalesce-chaitin", "irc", "frame"],
        "L_phi,ABI+C/depth with the Chaitin coalescer (one node per physical register) instead of C",
    ),
    (
        "L_phi,ABI+Cc/opt",
        &["leung-phi-abi-opt", "coalesce-chaitin", "irc", "frame"],
        "L_phi,ABI+C/opt with the Chaitin coalescer (one node per physical register) instead of C",
    ),
    (
        "L_phi,ABI+Cc/pess",
        &["leung-phi-abi-pess", "coalesce-chaitin", "irc", "frame"],
        "L_phi,ABI+C/pess with the Chaitin coalescer (one node per physical register) instead of C",
    ),
    (
        "baseline+Cc",
        &["out-of-ssa", "coalesce-chaitin", "irc", "frame"],
        "baseline+C with the Chaitin coalescer (one node per physical register) instead of C",
    ),
    (
        "Bo_val+Cc",
        &["boissinot-val", "coalesce-chaitin", "irc", "frame"],
        "Bo_val+C with the Chaitin coalescer (one node per physical register) instead of C",
    ),    (
        "L_phi+C/split",
        &["split-back-edges", "leung-phi", "coalesce", "irc", "frame"],
        "L_phi+C after splitting the critical back edges into phi blocks (issue 20 item 5)",
    ),
    (
        "C/split",
        &["split-back-edges", "leung", "coalesce", "irc", "frame"],
        "C after splitting the critical back edges into phi blocks (issue 20 item 5)",
    ),
    (
        "S_phi+C/split",
        &["split-back-edges", "sreedhar-cssa", "leung-cssa", "coalesce", "irc", "frame"],
        "S_phi+C after splitting the critical back edges into phi blocks (issue 20 item 5)",
    ),
    (
        "L_phi,ABI+C/split",
        &["split-back-edges", "leung-phi-abi", "coalesce", "irc", "frame"],
        "L_phi,ABI+C after splitting the critical back edges into phi blocks (issue 20 item 5)",
    ),
    (
        "S_phi+L_ABI+C/split",
        &["split-back-edges", "sreedhar-cssa", "leung-cssa-abi", "coalesce", "irc", "frame"],
        "S_phi+L_ABI+C after splitting the critical back edges into phi blocks (issue 20 item 5)",
    ),
    (
        "L_ABI+C/split",
        &["split-back-edges", "leung-abi", "coalesce", "irc", "frame"],
        "L_ABI+C after splitting the critical back edges into phi blocks (issue 20 item 5)",
    ),
    // Brandner & Colombet (RR-7735, 2011) §4: copy elimination after allocation (issue 21).
    (
        "BASE_phi",
        &["ssa-spill", "ssa-constraints", "ssa-colour-phi", "ssa-destruct", "pcm-edge", "seq-parcopy", "frame"],
        "§4.1 BASE_phi: allocation on SSA with phi-related values coalesced (biased colouring), phi copies placed by Edge Motion",
    ),
    (
        "BM_phi",
        &["ssa-spill", "ssa-constraints", "mark-pinned", "ssa-colour-phi", "ssa-destruct", "pcm-edge", "pcm-block", "seq-parcopy", "frame"],
        "§4.1 BM_phi: BASE_phi + Block Motion",
    ),
    (
        "BASE",
        &["ssa-spill", "ssa-constraints", "ssa-colour", "ssa-destruct", "pcm-edge", "seq-parcopy", "frame"],
        "§4.2 BASE: decoupled allocation on SSA (no coalescing of phi-related values), phi copies placed by Edge Motion",
    ),
    (
        "BM",
        &["ssa-spill", "ssa-constraints", "mark-pinned", "ssa-colour", "ssa-destruct", "pcm-edge", "pcm-block", "seq-parcopy", "frame"],
        "§4.2 BM: BASE + Block Motion",
    ),
    (
        "DDG_phi",
        &["ssa-spill", "ssa-constraints", "mark-pinned", "ssa-colour-phi", "ssa-destruct", "pcm-edge", "ddg", "seq-parcopy", "frame"],
        "§4.1 DDG_phi: BASE_phi + the DDG-based copy elimination in place of Block Motion",
    ),
    (
        "DDG",
        &["ssa-spill", "ssa-constraints", "mark-pinned", "ssa-colour", "ssa-destruct", "pcm-edge", "ddg", "seq-parcopy", "frame"],
        "§4.2 DDG: BASE + the DDG-based copy elimination in place of Block Motion",
    ),
    // Pereira's SSA-based register allocator (issue 22).
    (
        "pereira",
        &["pereira-lift", "pereira-phi-mem-coalesce", "pereira-colour", "frame"],
        "Pereira: PhiLifting, PhiMemCoalesce, intervals, dominance-order colouring with preferences and spilling, deconstruction with xor swaps",
    ),
    (
        "pereira-noswap",
        &["pereira-lift", "pereira-phi-mem-coalesce", "pereira-colour-noswap", "frame"],
        "pereira with the cycles of the deconstruction broken by a free register or a stack slot instead of xor swaps",
    ),
    (
        "Bo_val_virt/dc",
        &["boissinot-val-virt-dc", "irc", "frame"],
        "Boissinot et al.: value-based, virtualised copies (Alg. 21.4-21.5), optimistic merging and linear de-coalescing (Alg. 21.3), then IRC",
    ),
];

impl BackendConfig {
    /// The baseline configuration of issue 3: isolation out-of-SSA, IRC, list scheduling.
    pub fn baseline(target: Target) -> BackendConfig {
        Self::named("baseline", target).expect("baseline exists")
    }

    /// The configuration called `name` (see [`CONFIGS`]).
    pub fn named(name: &str, target: Target) -> Option<BackendConfig> {
        let (n, passes, _) = CONFIGS.iter().find(|(n, _, _)| *n == name)?;
        Some(BackendConfig {
            name: n.to_string(),
            target,
            passes: passes.iter().map(|p| p.to_string()).collect(),
            isel: IselOptions::default(),
            regalloc: regalloc::RegallocOptions::default(),
            sched: sched::SchedOptions::default(),
            verify: false,
        })
    }
}

/// Passes that take SSA to allocated form in one step (Pereira's colouring and
/// deconstruction): checked like road 2, by the value-flow checker against the SSA input.
pub fn allocates_ssa(pass: &str) -> bool {
    pass.starts_with("pereira-colour")
}

/// The role of a pass in the statistics: the copies right after out-of-SSA are those after
/// the first pass producing allocation form; after coalescing, after the last one; final,
/// after the last function pass.
pub fn stat_passes(config: &BackendConfig) -> (Option<&str>, Option<&str>, Option<&str>) {
    let produces = |n: &str| MIR_PASSES.iter().find(|p| p.name == n).map(|p| p.produces);
    // Road 2: the pass after the one that produces allocated SSA destroys SSA on registers,
    // which is where the copies appear; no pass coalesces afterwards (yet), so the coalesced
    // count is the same.
    // Pereira's allocator destroys SSA in its colouring pass.
    if let Some(p) = config.passes.iter().find(|n| allocates_ssa(n)) {
        return (
            Some(p.as_str()),
            Some(p.as_str()),
            config.passes.last().map(String::as_str),
        );
    }
    let allocated_ssa = config
        .passes
        .iter()
        .position(|n| produces(n) == Some(mir::verify::Form::AllocatedSsa));
    if let Some(d) = allocated_ssa.and_then(|i| config.passes.get(i + 1)) {
        return (
            Some(d.as_str()),
            Some(d.as_str()),
            config.passes.last().map(String::as_str),
        );
    }
    let alloc: Vec<&str> = config
        .passes
        .iter()
        .map(String::as_str)
        .filter(|n| produces(n) == Some(mir::verify::Form::Allocation))
        .collect();
    (
        alloc.first().copied(),
        alloc.last().copied(),
        config.passes.last().map(String::as_str),
    )
}

/// Why the back end stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendError {
    pub pass: String,
    pub function: Option<String>,
    pub message: String,
}

impl fmt::Display for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.function {
            Some(func) => write!(f, "pass `{}` on @{func}: {}", self.pass, self.message),
            None => write!(f, "pass `{}`: {}", self.pass, self.message),
        }
    }
}

impl std::error::Error for BackendError {}

fn err(pass: &str, function: Option<&str>, message: impl Into<String>) -> BackendError {
    BackendError {
        pass: pass.to_string(),
        function: function.map(str::to_string),
        message: message.into(),
    }
}

/// What the back end produced.
#[derive(Debug)]
pub struct BackendOutput {
    pub object: Object,
    /// The scheduled program as assembly text (simulator assembler syntax).
    pub asm: String,
    /// Per function: bundles, operations and schedule length of the scheduler.
    pub sched: Vec<(String, sched::SchedStats)>,
    /// Final-form machine functions (after the last function pass).
    pub mir: mir::Module,
    pub stats: Vec<PassStats>,
    /// Register pressure of each function as it entered the function passes: `maxlive`
    /// per class (R, B, P, G), the largest number of values live at one label (Hack et
    /// al. §2, Theorem 1).
    pub maxlive: Vec<(String, [u32; 4])>,
}

/// Called after each stage with its name and the module (machine-level stages only; `sched`
/// and `emit` are reported through `after_emit`). May stop the pipeline with a message.
pub type MirHook<'a> = dyn FnMut(&str, &mir::Module) -> Result<(), String> + 'a;

/// Runs the back end on an SSA-form IR module.
pub fn compile_module(
    module: &ir::Module,
    config: &BackendConfig,
    hook: &mut MirHook<'_>,
) -> Result<BackendOutput, BackendError> {
    let mut stats = Vec::new();
    let start = Instant::now();
    let mm = isel::select_module(module, config.target, &config.isel)
        .map_err(|e| err("isel", Some(&e.function), e.message))?;
    let isel_time = start.elapsed() / (mm.functions.len().max(1) as u32);
    for f in &mm.functions {
        let m = measure(f);
        stats.push(pass_stats(
            "isel",
            f,
            &FunctionMeasure::default(),
            &m,
            isel_time,
            vec![],
        ));
        if config.verify {
            verify_form(f, mir::verify::Form::Ssa, "isel")?;
        }
    }
    hook("isel", &mm).map_err(|m| err("isel", None, m))?;
    compile_machine_module(mm, stats, config, hook)
}

/// Runs the back end from machine SSA (the output of instruction selection, or a parsed
/// linear-assembly module): the function passes of `config`, scheduling and encoding.
/// `stats` holds the statistics gathered so far (empty for LAI input).
pub fn compile_machine_module(
    mm: mir::Module,
    stats: Vec<PassStats>,
    config: &BackendConfig,
    hook: &mut MirHook<'_>,
) -> Result<BackendOutput, BackendError> {
    compile_machine_module_memo(mm, stats, config, hook, None)
}

/// [`compile_machine_module`], taking each function pass's result from `memo` when the pass
/// already transformed an equal function under an equal configuration (see [`memo`]), and
/// storing every new result that passed its checks. The output is the same as without the
/// memo, except that the `time` of a pass answered from the memo is the lookup's.
pub fn compile_machine_module_memo(
    mut mm: mir::Module,
    mut stats: Vec<PassStats>,
    config: &BackendConfig,
    hook: &mut MirHook<'_>,
    memo: Option<&Mutex<PassMemo>>,
) -> Result<BackendOutput, BackendError> {
    if mm.target != config.target {
        return Err(err(
            "isel",
            None,
            format!(
                "the module is for {:?} but the configuration for {:?}",
                mm.target, config.target
            ),
        ));
    }
    let passes = resolve_passes(&config.passes)?;
    let maxlive: Vec<(String, [u32; 4])> = mm.functions.iter().map(function_maxlive).collect();
    // Road 2 (allocation on SSA) is checked by the value-flow checker against the SSA that
    // enters the back end's function passes; road 1 by the checker of allocation form.
    let road2 = passes
        .iter()
        .any(|p| p.produces == mir::verify::Form::AllocatedSsa || allocates_ssa(p.name));
    let ssa_input: Vec<Option<mir::Function>> = if config.verify && road2 {
        mm.functions.iter().cloned().map(Some).collect()
    } else {
        Vec::new()
    };
    // Allocation-form copies of each function (by position), kept for the allocation checker.
    let mut before_alloc: Vec<Option<Arc<mir::Function>>> = vec![None; mm.functions.len()];
    // The measure of each function after the previous pass (the next pass's "before").
    let mut measures: Vec<Option<FunctionMeasure>> = vec![None; mm.functions.len()];
    // With a memo: a shared copy of each function equal to it (as the previous pass left it).
    let mut current: Vec<Option<memo::Shared>> = vec![None; mm.functions.len()];
    for pass in passes {
        let checked = config.verify
            && !road2
            && matches!(
                pass.produces,
                mir::verify::Form::Allocated | mir::verify::Form::Final
            );
        let flow_checked = config.verify && road2 && pass.produces == mir::verify::Form::Allocated;
        for (k, f) in mm.functions.iter_mut().enumerate() {
            if memo.is_some() && current[k].is_none() {
                current[k] = Some(memo::Shared::new(f));
            }
            if checked && pass.produces == mir::verify::Form::Allocated {
                before_alloc[k] = Some(match &current[k] {
                    Some(c) => Arc::clone(&c.f),
                    None => Arc::new(f.clone()),
                });
            }
            let checked_against = if checked {
                before_alloc[k].clone()
            } else {
                None
            };
            let before = measures[k].take().unwrap_or_else(|| measure(f));
            let t = Instant::now();
            let miss = match (memo, &current[k]) {
                (Some(m), Some(input)) => match lock_memo(m).lookup(&memo::Key {
                    pass: pass.name,
                    config,
                    input,
                    checked_against: checked_against.as_deref(),
                }) {
                    Ok((output, detail)) => {
                        split_checked_input(&mut before_alloc[k], &detail)
                            .map_err(|m| err(pass.name, Some(&f.name), m))?;
                        *f = (*output.f).clone();
                        current[k] = Some(output);
                        let after = measure(f);
                        stats.push(pass_stats(
                            pass.name,
                            f,
                            &before,
                            &after,
                            t.elapsed(),
                            detail,
                        ));
                        measures[k] = Some(after);
                        continue;
                    }
                    Err(miss) => Some(miss),
                },
                _ => None,
            };
            let input = current[k].take();
            let detail = (pass.run)(f, config).map_err(|m| err(pass.name, Some(&f.name), m))?;
            let time = t.elapsed();
            let after = measure(f);
            stats.push(pass_stats(
                pass.name,
                f,
                &before,
                &after,
                time,
                detail.clone(),
            ));
            measures[k] = Some(after);
            if config.verify {
                verify_form(f, pass.produces, pass.name)?;
                split_checked_input(&mut before_alloc[k], &detail)
                    .map_err(|m| err(pass.name, Some(&f.name), m))?;
                if let Some(b) = checked_against.as_ref().and(before_alloc[k].as_ref()) {
                    regalloc::checker::check(b, f).map_err(|e| {
                        err(pass.name, Some(&f.name), format!("allocation checker: {e}"))
                    })?;
                }
                if let (true, Some(Some(b))) = (flow_checked, ssa_input.get(k)) {
                    regalloc::checker::value_flow::check(b, f)
                        .map_err(|e| err(pass.name, Some(&f.name), e.to_string()))?;
                }
            }
            if let (Some(m), Some(miss), Some(input)) = (memo, miss, input) {
                let output = memo::Shared::new(f);
                current[k] = Some(output.clone());
                lock_memo(m).insert(miss, input.f, checked_against, output, detail);
            }
        }
        hook(pass.name, &mm).map_err(|m| err(pass.name, None, m))?;
    }

    let t = Instant::now();
    let scheduled = match memo {
        None => sched::schedule_module(&mm, &config.sched),
        Some(m) => mm
            .functions
            .iter()
            .zip(&current)
            .map(|(f, c)| lock_memo(m).schedule(f, c.as_ref(), &config.sched))
            .collect(),
    }
    .map_err(|e| err("sched", None, e.to_string()))?;
    let sched_time = t.elapsed();
    let t = Instant::now();
    let linked = memo.and_then(|m| lock_memo(m).linked(&scheduled, &mm.globals, config.target));
    let (object, asm) = match linked {
        Some(r) => r,
        None => {
            let object = emit::link_module(&scheduled, &mm.globals, config.target)
                .map_err(|e| err("emit", None, e.to_string()))?;
            let asm = emit::asm::asm_text(&scheduled, &mm.globals, config.target)
                .map_err(|e| err("emit", None, e.to_string()))?;
            if let Some(m) = memo {
                lock_memo(m).insert_linked(&scheduled, &mm.globals, config.target, &object, &asm);
            }
            (object, asm)
        }
    };
    let emit_time = t.elapsed();
    let n = mm.functions.len().max(1) as u32;
    for (f, m) in mm.functions.iter().zip(measures) {
        let m = m.unwrap_or_else(|| measure(f));
        stats.push(pass_stats("sched", f, &m, &m, sched_time / n, vec![]));
        stats.push(pass_stats("emit", f, &m, &m, emit_time / n, vec![]));
    }
    Ok(BackendOutput {
        object,
        asm,
        sched: scheduled
            .iter()
            .map(|s| (s.name.clone(), s.stats))
            .collect(),
        mir: mm,
        stats,
        maxlive,
    })
}

/// `maxlive` of `f` per class, in the order R, B, P, G (0 for a class the target lacks).
pub fn function_maxlive(f: &mir::Function) -> (String, [u32; 4]) {
    use mir::RegClass as C;
    let live = regalloc::ssa::liveness::Liveness::compute(f, &f.predecessors());
    let m = live.maxlive(f, &[C::R, C::B, C::P, C::G]);
    (f.name.clone(), [m[0], m[1], m[2], m[3]])
}

/// The memo, also after a panic elsewhere poisoned its lock (entries are only ever added
/// whole, so the content stays consistent).
fn lock_memo(m: &Mutex<PassMemo>) -> std::sync::MutexGuard<'_, PassMemo> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn resolve_passes(names: &[String]) -> Result<Vec<MirPass>, BackendError> {
    names
        .iter()
        .map(|n| {
            MIR_PASSES
                .iter()
                .find(|p| p.name == n)
                .copied()
                .ok_or_else(|| {
                    let valid: Vec<&str> = MIR_PASSES.iter().map(|p| p.name).collect();
                    err(
                        n,
                        None,
                        format!("unknown back-end pass; valid: {}", valid.join(", ")),
                    )
                })
        })
        .collect()
}

fn verify_form(f: &mir::Function, form: mir::verify::Form, pass: &str) -> Result<(), BackendError> {
    let errors = mir::verify::verify_function(f, form);
    if errors.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = errors.iter().take(20).map(|e| format!("  {e}")).collect();
    Err(err(
        pass,
        Some(&f.name),
        format!("machine-IR verifier ({form:?} form):\n{}", list.join("\n")),
    ))
}

/// Static copy figures of one machine function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionMeasure {
    /// Copy operations (`copy` pseudos and parallel-copy components, i.e. every operation
    /// flagged COPY, counting each component of a parallel copy).
    pub copies: usize,
    pub weighted_copies: u64,
    pub phis: usize,
    pub insts: usize,
    /// (destination, source) of every copy, sorted, to count insertions and removals.
    copy_keys: Vec<(mir::Reg, mir::Reg)>,
}

/// Measures copies (static and weighted by 5^loop depth), phis and instructions.
/// The loop nest (for the weights) is computed only when the function has a copy.
pub fn measure(f: &mir::Function) -> FunctionMeasure {
    let mut info: Option<CfgInfo> = None;
    let mut m = FunctionMeasure::default();
    for b in f.block_ids() {
        for inst in &f.block(b).insts {
            m.insts += 1;
            if inst.opc == Opc::Phi {
                m.phis += 1;
            }
            if inst.flags.contains(mir::InstFlags::COPY) && !is_identity_copy(inst) {
                let n = if inst.opc == Opc::ParCopy {
                    inst.defs.len()
                } else {
                    1
                };
                let w = info.get_or_insert_with(|| CfgInfo::compute(f)).weight(b);
                m.copies += n;
                m.weighted_copies = m.weighted_copies.saturating_add(w.saturating_mul(n as u64));
                for (d, u) in inst.defs.iter().zip(&inst.uses) {
                    m.copy_keys.push((d.reg, u.reg));
                }
            }
        }
    }
    m.copy_keys.sort_unstable();
    m
}

/// A copy whose source and destination are the same physical register (a coalesced copy
/// the allocator leaves in place; emission drops it): not a move.
fn is_identity_copy(inst: &mir::Inst) -> bool {
    inst.opc == Opc::Copy
        && inst.defs.len() == 1
        && inst.uses.len() == 1
        && matches!((inst.defs[0].reg, inst.uses[0].reg), (mir::Reg::P(a), mir::Reg::P(b)) if a == b)
}

/// Size of the multiset difference `a \ b` of two sorted lists.
fn sorted_difference<T: Ord>(a: &[T], b: &[T]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() {
        if j < b.len() && a[i] == b[j] {
            i += 1;
            j += 1;
        } else if j < b.len() && b[j] < a[i] {
            j += 1;
        } else {
            n += 1;
            i += 1;
        }
    }
    n
}

fn pass_stats(
    pass: &'static str,
    f: &mir::Function,
    before: &FunctionMeasure,
    after: &FunctionMeasure,
    time: Duration,
    detail: PassDetail,
) -> PassStats {
    PassStats {
        pass,
        function: f.name.clone(),
        copies_before: before.copies,
        copies_after: after.copies,
        weighted_copies_before: before.weighted_copies,
        weighted_copies_after: after.weighted_copies,
        copies_inserted: sorted_difference(&after.copy_keys, &before.copy_keys),
        copies_removed: sorted_difference(&before.copy_keys, &after.copy_keys),
        phis_before: before.phis,
        phis_after: after.phis,
        insts_before: before.insts,
        insts_after: after.insts,
        time,
        detail,
    }
}

/// Appends the runtime routines (`compiler/runtime/runtime.c`), compiled and taken through
/// the mid-level pipeline at `opt`, to an SSA-form module, skipping any routine the program
/// defines itself, and the `printf` routines when the program does not call `printf`.
pub fn add_runtime(module: &mut ir::Module, opt: OptLevel) -> Result<(), String> {
    let calls_printf = module.functions.iter().any(|f| {
        f.blocks.iter().any(|b| {
            b.insts
                .iter()
                .any(|i| matches!(&i.op, ir::Op::Call { callee, .. } if callee == "printf"))
        })
    });
    let opts = crate::front::FrontOptions::default();
    let mut rt =
        crate::front::compile_source_to_ir("<ssalab runtime>", isel::RUNTIME_SOURCE, &opts)
            .map_err(|d| format!("runtime does not compile:\n{}", d.render()))?;
    crate::pipeline::run_passes(&mut rt, &mid_level_passes(opt), &mut |_, _| Ok(()))
        .map_err(|e| format!("runtime: {e}"))?;
    for f in rt.functions {
        let printf_routine = f.name.starts_with(isel::RUNTIME_PRINTF_PREFIX);
        if (calls_printf || !printf_routine) && !module.functions.iter().any(|g| g.name == f.name) {
            module.functions.push(f);
        }
    }
    for g in rt.globals {
        if !module.globals.iter().any(|h| h.name == g.name) {
            module.globals.push(g);
        }
    }
    Ok(())
}

/// When the allocator fell back to splitting the live ranges of precoloured vregs
/// (`pinned_split_fallback`, [`regalloc::split_pinned`]), the function it allocated is its
/// input split the same (deterministic) way: the allocation checker compares the result with
/// that function, and the split itself is checked by running it (tests, fuzzing).
fn split_checked_input(
    before_alloc: &mut Option<Arc<mir::Function>>,
    detail: &crate::pipeline::PassDetail,
) -> Result<(), String> {
    let split = detail
        .iter()
        .any(|&(k, v)| k == "pinned_split_fallback" && v > 0);
    if let (true, Some(b)) = (split, before_alloc.as_ref()) {
        let mut f = (**b).clone();
        regalloc::split_pinned::split_pinned_ranges(&mut f)?;
        *before_alloc = Some(Arc::new(f));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multiset_difference() {
        let a: Vec<String> = ["a", "b", "b", "c"].iter().map(|s| s.to_string()).collect();
        let b: Vec<String> = ["b", "c", "d"].iter().map(|s| s.to_string()).collect();
        assert_eq!(sorted_difference(&a, &b), 2);
        assert_eq!(sorted_difference(&b, &a), 1);
    }

    #[test]
    fn runtime_compiles_and_divides() {
        let mut m = crate::front::compile_source_to_ir(
            "t.c",
            "int main(void) { return 0; }",
            &Default::default(),
        )
        .unwrap();
        add_runtime(&mut m, OptLevel::O2).unwrap();
        assert!(m.functions.iter().any(|f| f.name == isel::RUNTIME_DIVS));
    }
}
