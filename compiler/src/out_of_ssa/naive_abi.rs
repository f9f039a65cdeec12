//! `Naive_ABI`: PLACEHOLDER being written (session 3). Contract: see [`naive_abi`].

use crate::mir::Function;
use crate::pipeline::PassDetail;

/// SSA → SSA: isolates every renaming-constrained operand (operands with a pin) by local
/// copies around its operation, so that after it every pinned operand is a fresh variable
/// live only between the copy and the operation (Rastello et al. §5, `Naive_ABI`).
pub fn naive_abi(f: &mut Function) -> Result<PassDetail, String> {
    Err(format!("naive_abi: @{}: not implemented yet", f.name))
}
