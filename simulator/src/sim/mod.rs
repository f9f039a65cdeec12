//! The cycle-level simulators, one per target, behind one entry point that dispatches on the
//! object's target. Each target module exposes
//! `pub fn run(obj: &Object, opts: &RunOptions, trace: &mut dyn std::io::Write) -> RunReport`.

use crate::isa::Target;
use crate::object::Object;
use std::io::Write;

pub use crate::machine::{Counters, FunctionStats, RunOptions, RunReport, Trap, TrapKind};

pub mod st120;
pub mod st231;
#[cfg(test)]
pub(crate) mod testutil;

/// Run `obj` to completion (or to a trap) and report counters and output.
pub fn run(obj: &Object, opts: &RunOptions) -> RunReport {
    run_traced(obj, opts, &mut std::io::sink())
}

/// Like [`run`]; when `opts.trace` is set, every issued bundle is printed to `trace` with its
/// cycle number.
pub fn run_traced(obj: &Object, opts: &RunOptions, trace: &mut dyn Write) -> RunReport {
    match obj.target {
        Target::St231 => st231::run(obj, opts, trace),
        Target::St120 => st120::run(obj, opts, trace),
    }
}
