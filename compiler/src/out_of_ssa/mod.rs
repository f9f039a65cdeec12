//! Out-of-SSA translation: the pieces shared by every algorithm of the family (Rastello et
//! al.; Sreedhar et al.; Boissinot et al.), starting with the sequentialisation of parallel
//! copies into ordinary moves.

pub mod isolation;
pub mod leung_george;
pub mod naive_abi;
pub mod parallel_copy;
pub mod pinning_phi;
pub mod sreedhar3;
