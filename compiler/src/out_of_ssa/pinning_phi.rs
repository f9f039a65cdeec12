//! `pinning_phi`: PLACEHOLDER being written (session 3). Contract: see
//! [`pinning_phi`]. Replaced by the implementation of Rastello et al. §3, Algorithms 2–4.

use super::leung_george::liveness::Liveness;
use super::leung_george::Pinning;
use crate::mir::Function;
use crate::pipeline::PassDetail;

/// The variants of the paper's §5 / Table 5.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PhiVariant {
    /// Algorithm 2: phis prioritised by the loop depth of their block.
    #[default]
    Base,
    /// Algorithm 3: affinity graph built with a depth constraint, `Program_pinning` called
    /// with decreasing depth.
    Depth,
    /// Algorithm 4, optimistic interferences.
    Opt,
    /// Algorithm 4, pessimistic interferences.
    Pess,
}

/// Pins phi operands to resources on top of the pinning `p` (which already holds the
/// `pinning_SP` / `pinning_ABI` pins). Returns the pass's own counts.
pub fn pinning_phi(
    f: &Function,
    _live: &Liveness,
    _p: &mut Pinning,
    _variant: PhiVariant,
) -> Result<PassDetail, String> {
    Err(format!("pinning_phi: @{}: not implemented yet", f.name))
}
