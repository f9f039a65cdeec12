//! ST231 simulator (in progress).

use crate::machine::{RunOptions, RunReport, Trap, TrapKind};
use crate::object::Object;
use std::io::Write;

/// Not implemented yet.
pub fn run(_obj: &Object, _opts: &RunOptions, _trace: &mut dyn Write) -> RunReport {
    RunReport::failed(Trap::at_load(TrapKind::Unsupported(
        "ST231 simulator in progress",
    )))
}
