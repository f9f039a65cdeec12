//! ST231 assembler and disassembler (in progress).

use super::AsmError;
use crate::object::Object;

/// Not implemented yet.
pub fn assemble(_src: &str) -> Result<Object, AsmError> {
    Err(AsmError::new(1, 1, "ST231 assembler in progress"))
}

/// Not implemented yet.
pub fn disassemble(_obj: &Object) -> String {
    String::new()
}
