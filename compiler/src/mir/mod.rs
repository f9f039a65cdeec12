//! The machine-level SSA IR (the "LAI" level of the LAO, Rastello et al. 2004 §2): target
//! operations from the machine description on virtual and physical registers, plus the
//! pseudo-operations the out-of-SSA and allocation algorithms work on (phi, parallel copy,
//! psi, copy, `.input`/`.output`). Operands carry **pins** (renaming constraints).
//!
//! * [`function`]: the data structures and their invariants;
//! * [`target`]: register classes, names, allocatable/callee-saved sets, ABI registers;
//! * [`print`]: the text form (see its module doc for the grammar);
//! * [`minir`]: export to the LAO's Minir YAML.

pub mod cfg;
pub mod function;
pub mod interp;
pub mod livecheck;
pub mod minir;
pub mod parse;
pub mod print;
pub mod split_edges;
pub mod ssa_liveness;
pub mod target;
pub mod verify;

pub use function::*;
pub use target::RegClass;
