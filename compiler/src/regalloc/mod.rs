//! Register allocation of machine-level functions in allocation form (`docs/design.md`):
//!
//! * [`liveness`]: per-block live-in/live-out sets of virtual registers (reusable context);
//! * [`interference`]: the interference and move graph of one register class (G&A `Build`);
//! * [`irc`]: iterated register coalescing (George & Appel, TOPLAS 1996) with spilling,
//!   precoloured (pinned) vregs, call clobbers and `--regs N`;
//! * [`spill`]: spill slots and spill code (`SPILL_LOAD` / `SPILL_STORE`);
//! * [`frame`]: frame layout, prologue/epilogue, callee-saved and link-register saves,
//!   resolution of `Imm::Frame` (allocated form → final form);
//! * [`fasthash`]: a cheap hasher for maps and sets keyed by small integers;
//! * [`checker`]: an allocation checker independent of the allocator (symbolic dataflow:
//!   which vregs each register and stack slot holds), run in tests and under `--verify`.
//!
//! * [`ssa`]: road 2, register allocation on SSA form (Hack, Grund & Goos): Belady
//!   spilling, constraints through Perms, colouring along the dominance tree, SSA
//!   destruction on registers, late sequentialisation of parallel copies.
//!
//! Entry points: [`irc::allocate`], [`frame::finalize`], [`checker::check`].

pub mod checker;
pub mod concat_lists;
pub mod fasthash;
pub mod frame;
pub mod interference;
pub mod irc;
pub mod liveness;
pub mod spill;
pub mod split_pinned;
pub mod ssa;

/// Options of the register allocator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegallocOptions {
    /// `--regs N`: unpinned vregs of each spillable class (ST231 `$r`, ST120 `R` and `P`)
    /// use only `allocatable(t, c)[..N]` (precoloured vregs keep their ABI registers);
    /// ST231 `$b` and ST120 guards, which have no spill code, keep their whole file.
    /// `None` = the whole class.
    pub regs: Option<u32>,
}
