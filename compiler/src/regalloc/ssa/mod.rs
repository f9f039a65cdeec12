//! Road 2: register allocation **on SSA form** (Hack, Grund & Goos, "Register Allocation for
//! Programs in SSA-Form", 2005 technical report; the chapter and section numbers below are
//! that report's), followed by SSA destruction on registers.
//!
//! The passes, in pipeline order (each selected by name in `backend::MIR_PASSES`):
//!
//! 1. [`belady`] — `ssa-spill`: §3.1, Algorithms 2–3: Belady's method over the whole
//!    procedure with global, loop-aware next-use distances; reloads (or rematerialisations of
//!    constants) before uses and on edges, spill stores after definitions, memory phis, and
//!    SSA reconstruction ([`reconstruct`]) of the reloaded values. Afterwards the number of
//!    values live at any label of a class is at most the registers the class may use, so
//!    colouring cannot fail (§2, Theorem 1).
//! 2. [`constraints`] — `ssa-constraints`: §6: a Perm (parallel copy of every live value) in
//!    front of each instruction with register constraints (calls, `.output`, operands pinned
//!    to a physical register), and a copy of a tied (two-address) operand whose value stays
//!    live after the instruction.
//! 3. [`colour`] — `ssa-colour`: §4, Algorithm 1: colouring in a pre-order walk of the
//!    dominance tree, constraints honoured as §6 describes. The result is the
//!    **allocated-SSA form**: still SSA, every operand pinned to its physical register
//!    (`mir::verify::Form::AllocatedSsa`).
//! 4. [`destruct`] — `ssa-destruct`: phis become parallel copies on the incoming edges
//!    (edges into phi blocks from blocks with several successors are split first), every
//!    operand is replaced by its register: `Form::Allocated`, with the parallel copies kept
//!    as first-class instructions; `seq-parcopy` then sequentialises every parallel copy
//!    with the minimum number of moves, breaking cycles with a free register of the class
//!    or with swaps (three `xor`s flagged `SWAP`).
//!
//! Register budget ([`Budget`]): the registers `regalloc::irc` would use — `allocatable(t, c)`,
//! cut to the first `N` for the spillable classes under `--regs N`. Values pinned to an ABI
//! register outside the budget keep it (as under IRC).
//!
//! Calls: every register of `call_clobbers` is overwritten, so the spiller counts a call as
//! defining as many values as the budget has clobbered registers, and the colouring gives
//! the values that live across a call (the Perm's results) a register outside the clobbers.

pub mod belady;
pub mod colour;
pub mod constraints;
pub mod destruct;
pub mod ilp_coalesce;
pub mod ilp_spill;
/// SSA liveness is shared with road 1 (Leung & George's mark phase), so it lives in `mir`.
pub use crate::mir::ssa_liveness as liveness;
pub mod pereira;
pub mod perm_problem;
pub mod recolour;
pub mod reconstruct;

use super::RegallocOptions;
use crate::mir::{target, Control, Function, Inst, PReg, Pin, RegClass, VReg};
use simulator::isa::Target;

/// The registers each class may hand out to unpinned values, in preference order.
#[derive(Clone, Debug)]
pub struct Budget {
    target: Target,
    regs: [Vec<u8>; 4],
}

fn class_index(c: RegClass) -> usize {
    match c {
        RegClass::R => 0,
        RegClass::B => 1,
        RegClass::P => 2,
        RegClass::G => 3,
    }
}

impl Budget {
    pub fn new(t: Target, opts: &RegallocOptions) -> Budget {
        let regs = [RegClass::R, RegClass::B, RegClass::P, RegClass::G].map(|c| {
            let mut r = target::allocatable(t, c);
            if let (Some(n), true) = (opts.regs, super::spill::can_spill(t, c)) {
                r.truncate(n as usize);
            }
            r
        });
        Budget { target: t, regs }
    }

    /// The registers of class `c`, in preference order.
    pub fn regs(&self, c: RegClass) -> &[u8] {
        &self.regs[class_index(c)]
    }

    /// Number of registers of class `c` (the `k` of the paper).
    pub fn k(&self, c: RegClass) -> usize {
        self.regs(c).len()
    }

    /// Whether `r` is one of the budget's registers.
    pub fn contains(&self, r: PReg) -> bool {
        self.regs(r.class).contains(&r.num)
    }

    /// Registers of class `c` in the budget that a call overwrites.
    pub fn clobbered(&self, c: RegClass) -> usize {
        self.regs(c)
            .iter()
            .filter(|&&n| target::call_clobbers(self.target).contains(&PReg::new(c, n)))
            .count()
    }
}

/// A set of physical registers: one 64-bit mask per class (no class has more than 64).
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct RegMask([u64; 4]);

impl RegMask {
    pub fn has(&self, r: PReg) -> bool {
        self.0[class_index(r.class)] & (1u64 << r.num) != 0
    }
    pub fn add(&mut self, r: PReg) {
        self.0[class_index(r.class)] |= 1u64 << r.num;
    }
    pub fn remove(&mut self, r: PReg) {
        self.0[class_index(r.class)] &= !(1u64 << r.num);
    }
    /// Adds every register of `o`; tells whether the set grew.
    pub fn union(&mut self, o: &RegMask) -> bool {
        let before = *self;
        for i in 0..4 {
            self.0[i] |= o.0[i];
        }
        *self != before
    }
}

/// Whether `inst` is a call (its clobbers constrain the values live across it).
pub fn is_call(inst: &Inst) -> bool {
    inst.control() == Control::Call
}

/// Whether §6 puts a Perm in front of `inst`: a call, or an operand pinned to a physical
/// register (`.input` excepted: nothing is live before it).
///
/// Instructions the allocator inserted need none: a reload into a pinned register outside
/// the budget sits right before the constrained instruction whose Perm covers it, and
/// renaming the live values at it would only make copies.
pub fn needs_perm(inst: &Inst) -> bool {
    if inst.opc == crate::mir::Opc::Input
        || inst.is_phi()
        || inst.flags.contains(crate::mir::InstFlags::INSERTED)
    {
        return false;
    }
    is_call(inst)
        || inst
            .defs
            .iter()
            .chain(&inst.uses)
            .any(|o| matches!(o.pin, Some(Pin::Phys(_))) && o.vreg().is_some())
        || inst
            .defs
            .iter()
            .any(|o| matches!(o.pin, Some(Pin::Phys(_))))
}

/// The vreg a tied use of `inst` must share its register with, for each use index.
pub fn tied_def(inst: &Inst, use_index: usize) -> Option<VReg> {
    match inst.uses.get(use_index)?.pin {
        Some(Pin::Var(d)) => Some(d),
        _ => None,
    }
}

/// Extra budget registers of class `c` that the constraint handling of `inst` needs at the
/// instruction on top of the values live there: the Perm (or a tied-operand copy) gives a
/// value one result per constrained use and one more if it stays live after `inst` (or is
/// also read by an unconstrained operand); results pinned to registers outside the budget
/// do not count. `live_after(v)` tells whether `v` is live after `inst`.
pub fn duplicates_at(
    f: &Function,
    inst: &Inst,
    c: RegClass,
    budget: &Budget,
    live_after: &dyn Fn(VReg) -> bool,
) -> usize {
    let mut extra = 0;
    // A psi's result must not take the register of a later operand (its lowering writes
    // the result before reading them): it is given a register before any operand dies.
    if inst.opc == crate::mir::Opc::Psi && inst.def_vregs().any(|d| f.class_of(d) == c) {
        extra += 1;
    }
    let mut seen: Vec<VReg> = Vec::new();
    for o in &inst.uses {
        let Some(v) = o.vreg() else { continue };
        if f.class_of(v) != c || seen.contains(&v) {
            continue;
        }
        seen.push(v);
        let occurrences: Vec<_> = inst.uses.iter().filter(|u| u.reg == o.reg).collect();
        let constrained: Vec<_> = occurrences.iter().filter(|u| u.pin.is_some()).collect();
        if constrained.is_empty() {
            continue;
        }
        let in_budget = constrained
            .iter()
            .filter(|u| match u.pin {
                Some(Pin::Phys(p)) => budget.contains(p),
                _ => true,
            })
            .count();
        let unconstrained = occurrences.len() - constrained.len();
        let stays = usize::from(live_after(v) || unconstrained > 0);
        extra += (in_budget + stays).saturating_sub(1);
    }
    extra
}

/// Counts of the road-2 passes, reported through `PassDetail`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SsaRaStats {
    pub edges_split: u64,
    pub reloads: u64,
    pub remats: u64,
    pub spill_stores: u64,
    pub memory_phis: u64,
    pub reconstruct_phis: u64,
    pub nextuse_rounds_capped: u64,
}
