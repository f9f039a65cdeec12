//! ssalab compiler: C subset and linear assembly through machine-level SSA to ST231/ST120 code.
//!
//! Data flows one way: front end -> [`ir`] -> SSA ([`ssa`]) -> optimisation -> target lowering
//! -> out-of-SSA -> register allocation -> post-RA -> scheduling -> encoding. Every stage's
//! output can be printed and executed by the reference interpreter ([`interp`]).

pub mod analysis;
pub mod backend;
pub mod coalesce;
pub mod emit;
pub mod front;
pub mod interp;
pub mod ir;
pub mod isel;
pub mod lai;
pub mod mir;
pub mod opt;
pub mod out_of_ssa;
pub mod pipeline;
pub mod post_ra;
pub mod regalloc;
pub mod sched;
pub mod ssa;
pub mod viz;
