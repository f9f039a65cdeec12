//! Analyses over the mid-level IR, all on dense indices and compressed adjacency lists:
//!
//! * [`cfg`] — successors, predecessors, reverse post-order, reachability; CFG edits
//!   (unreachable-block removal, critical-edge splitting, compact renumbering);
//! * [`dom`] — dominator tree (Cooper–Harvey–Kennedy), O(1) dominance queries, dominance
//!   frontiers and iterated dominance frontiers;
//! * [`loops`] — loop nesting forest, loop depth and the `5^depth` copy weight;
//! * [`defuse`] — definition and use sites of every value;
//! * [`liveness`] — live-in/live-out sets (backward data-flow over bit sets);
//! * [`livecheck`] — fast live-in/live-out queries on strict SSA (Boissinot et al. 2008);
//! * [`bitset`] — the bit sets and matrices they share.
//!
//! Analyses are snapshots: recompute them after a pass changes what they describe.

pub mod bitset;
pub mod cfg;
pub mod defuse;
pub mod dom;
pub mod livecheck;
pub mod liveness;
pub mod loops;

pub use cfg::Cfg;
pub use defuse::DefUse;
pub use dom::{DomFrontiers, DomTree};
pub use livecheck::LiveCheck;
pub use liveness::Liveness;
pub use loops::{LoopForest, LoopId};
