//! ST120 machine description: placeholder until helper "sim120" replaces this module.

/// Marker so that the module is not empty.
pub const NOT_IMPLEMENTED: &str = "ST120 not implemented yet";
