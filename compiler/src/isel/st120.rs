//! Instruction selection for st120 (placeholder: being written).

use super::{IselError, IselOptions};
use crate::{ir, mir};

/// Selects one function.
pub fn select_function(
    _module: &ir::Module,
    f: &ir::Function,
    _opts: &IselOptions,
) -> Result<mir::Function, IselError> {
    Err(IselError {
        function: f.name.clone(),
        message: "instruction selection for st120 is not implemented yet".into(),
    })
}
