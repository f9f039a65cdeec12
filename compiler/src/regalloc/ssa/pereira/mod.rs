//! Pereira's SSA-based register allocator: F. M. Q. Pereira, "The Design and Implementation
//! of a SSA-based Register Allocator" (UCLA technical report). The section, figure and
//! algorithm names below are that paper's. Figure 2's phases, as passes of
//! `backend::MIR_PASSES`:
//!
//! 1. [`phi_lifting`] — `pereira-lift`: edges split (Theorem 1 wants no critical edges),
//!    pinned and tied operands given short pre-coloured copies (§4.5), then `PhiLifting`
//!    (§4.2, Figure 4): each phi gets copies of its operands at the ends of the
//!    predecessors and a copy of its result after it, so φ-related values never interfere
//!    and the program is CSSA — still SSA.
//! 2. [`phi_classes`] — `pereira-phi-mem-coalesce`: φ-analysis (§4.3, the φ-related
//!    equivalence classes) and `PhiMemCoalesce` (§4.4, Figure 4): lifted copies whose two
//!    classes never overlap are removed and the classes merged. Spilled members of a class
//!    share one stack slot.
//! 3. `pereira-colour` (and `pereira-colour-noswap`): [`intervals`] (§4.1, live ranges as
//!    intervals over a linear order), [`colour`] (§4.5: pre-order walk of the dominance
//!    tree with `ComputePreference`/`ComputeWeight`, spilling decided while colouring,
//!    pre-coloured values by the interval-overlap rule), then [`deconstruct`] (§4.6, Figure
//!    7: per edge, safe copies then swaps, loads and stores for φ-operands in memory; §4.7:
//!    spill code for the other uses and definitions). Output: `Form::Allocated`.
//!
//! Differences from Hack et al. (road 2, `regalloc::ssa`), which the configurations
//! `pereira` and `hack` measure: spilling is decided during colouring, a value is either
//! in a register or in memory for its whole life (no live-range splitting by reloads), and
//! phi operands may live in memory — a phi is then partly a memory transfer.
//!
//! Register budget: `super::Budget` (`--regs N`), as road 2. Classes without spill code
//! (ST231 branch registers, ST120 guards) are never spilled: if they do not fit, the pass
//! reports an error.
//!
//! Complexity: each phase is linear or O(n log n) in the function (see each module); the
//! only super-linear step, PhiMemCoalesce's class intersections, is capped and counted.

pub mod colour;
pub mod deconstruct;
pub mod intervals;
pub mod phi_classes;
pub mod phi_lifting;

use super::liveness::Liveness;
use super::Budget;
use crate::mir::cfg::CfgInfo;
use crate::mir::{BlockId, Function};
use crate::pipeline::PassDetail;
use crate::regalloc::RegallocOptions;
pub use deconstruct::Breaker;

/// The `pereira-colour` passes: interval analysis, colouring with spilling, SSA
/// deconstruction and spill code.
pub fn run_colour(
    f: &mut Function,
    opts: &RegallocOptions,
    breaker: Breaker,
) -> Result<PassDetail, String> {
    let budget = Budget::new(f.target, opts);
    let info = CfgInfo::compute(f);
    let preds = f.predecessors();
    let live = Liveness::compute(f, &preds);
    let order: Vec<BlockId> = info.dom.preorder().iter().map(|b| BlockId(b.0)).collect();
    let iv = intervals::Intervals::compute(f, &live, &order);
    let pre = intervals::Precoloured::compute(f, &iv);
    let alloc = colour::colour_program(f, &budget, &info, &live, &iv, &pre)?;
    let mut classes = phi_classes::PhiClasses::compute(f);
    let s = deconstruct::rewrite(f, &alloc, &mut classes, &live, &info, &budget, breaker)?;
    let psi_copies = super::destruct::lower_psis(f)?;
    Ok(vec![
        ("spilled_values", s.spilled_values),
        ("evictions", alloc.evictions),
        ("spilled_at_def", alloc.spilled_at_definition),
        ("slots", s.slots),
        ("slots_saved", s.spilled_values.saturating_sub(s.slots)),
        ("reloads", s.reloads),
        ("loads_recycled", s.reloads_recycled),
        ("spill_stores", s.spill_stores),
        ("moves", s.moves),
        ("phi_loads", s.loads),
        ("phi_stores", s.stores),
        ("swaps", s.swaps),
        ("temp_cycles", s.temp_cycles),
        ("slot_cycles", s.slot_cycles),
        ("psi_copies", psi_copies),
    ])
}
