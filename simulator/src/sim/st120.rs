//! ST120 simulator: placeholder until helper "sim120" replaces this file.

use crate::machine::{RunOptions, RunReport, Trap, TrapKind};
use crate::object::Object;
use std::io::Write;

/// Not implemented yet: returns a report carrying an `Unsupported` trap.
pub fn run(_obj: &Object, _opts: &RunOptions, _trace: &mut dyn Write) -> RunReport {
    RunReport::failed(Trap::at_load(TrapKind::Unsupported("ST120 not implemented yet")))
}
