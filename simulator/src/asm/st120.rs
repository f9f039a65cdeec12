//! ST120 assembler and disassembler: placeholder until helper "sim120" replaces this file.

use super::AsmError;
use crate::object::Object;

/// Not implemented yet.
pub fn assemble(_src: &str) -> Result<Object, AsmError> {
    Err(AsmError::new(1, 1, "ST120 not implemented yet"))
}

/// Not implemented yet.
pub fn disassemble(_obj: &Object) -> String {
    "ST120 disassembly not implemented yet\n".to_string()
}
