//! Machine descriptions, one module per target: registers, opcode tables (mnemonic, operand
//! kinds, unit, latency, tied operands, flags), bit-exact encodings and pure semantic
//! functions. Written once and used by the assembler, the disassembler, the simulator and the
//! compiler.
//!
//! Sources: `docs/isa.md` section A (ST231) and section B (ST120).

use std::fmt;
use std::str::FromStr;

pub mod st120;
pub mod st231;

/// The two machines ssalab targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// ST231-class 4-issue VLIW (isa.md section A).
    St231,
    /// ST120 DSP-MCU, GP32 mode (isa.md section B).
    St120,
}

impl Target {
    /// Every target, in a fixed order.
    pub const ALL: [Target; 2] = [Target::St231, Target::St120];

    /// The lower-case name used on the command line, in `.target` directives and in CSV files.
    pub fn name(self) -> &'static str {
        match self {
            Target::St231 => "st231",
            Target::St120 => "st120",
        }
    }

    /// Byte used for the target in the object format.
    pub fn to_byte(self) -> u8 {
        match self {
            Target::St231 => 1,
            Target::St120 => 2,
        }
    }

    /// Inverse of [`Target::to_byte`].
    pub fn from_byte(b: u8) -> Option<Target> {
        match b {
            1 => Some(Target::St231),
            2 => Some(Target::St120),
            _ => None,
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error for an unknown target name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownTarget(pub String);

impl fmt::Display for UnknownTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown target `{}` (expected st231 or st120)", self.0)
    }
}

impl std::error::Error for UnknownTarget {}

impl FromStr for Target {
    type Err = UnknownTarget;
    fn from_str(s: &str) -> Result<Target, UnknownTarget> {
        match s.to_ascii_lowercase().as_str() {
            "st231" | "st200" | "st2xx" => Ok(Target::St231),
            "st120" | "st100" => Ok(Target::St120),
            _ => Err(UnknownTarget(s.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_names_round_trip() {
        for t in Target::ALL {
            assert_eq!(t.name().parse::<Target>().unwrap(), t);
            assert_eq!(Target::from_byte(t.to_byte()), Some(t));
        }
        assert!("arm".parse::<Target>().is_err());
        assert_eq!(Target::from_byte(0), None);
    }
}
