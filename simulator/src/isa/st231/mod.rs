//! ST231 (ST2xx-class 4-issue VLIW) machine description, from isa.md section A.
//!
//! * [`opcode`]: the opcode table (mnemonic, format, unit, latency, properties, encoding)
//!   and the [`Op`] value shared by assembler, encoder, decoder, simulator and compiler;
//! * [`encoding`]: bit-exact syllable and bundle encoding/decoding (§A3), lane arrangement;
//! * [`issue`]: bundle issue rules (§A2);
//! * [`semantics`]: pure operation semantics (§A7);
//! * this module: registers (§A1), latencies (§A4) and ABI facts (§A6).

pub mod encoding;
pub mod issue;
pub mod opcode;
pub mod semantics;

pub use opcode::{Dest, Enc, Format, Op, OpInfo, OpProps, Opcode, Src, Unit};

/// General registers `$r0..$r63` (32 bits). `$r0` reads 0 and ignores writes.
pub const NUM_GPR: usize = 64;
/// Branch registers `$b0..$b7` (1 bit).
pub const NUM_BR: usize = 8;
/// Registers in the unified numbering used by schedulers and the simulator: `$rN` = N,
/// `$bN` = 64 + N.
pub const NUM_UNIFIED: usize = NUM_GPR + NUM_BR;

/// `$r0`, always zero.
pub const ZERO: u8 = 0;
/// Link register: written by `call`/`icall`, read by `icall`/`igoto`/`return` (§A1).
pub const LINK: u8 = 63;
/// Stack pointer (§A6).
pub const SP: u8 = 12;
/// Thread pointer, reserved (§A6).
pub const TP: u8 = 13;
/// Global pointer, callee-saved in the embedded ABI (§A6).
pub const GP: u8 = 14;
/// Frame pointer when one is used (§A6).
pub const FP: u8 = 7;
/// Static link (§A6).
pub const STATIC_LINK: u8 = 8;
/// Struct-return address (§A6).
pub const STRUCT_RETURN: u8 = 15;
/// Argument and result registers `$r16..$r23`, in order (§A6).
pub const ARG_REGS: [u8; 8] = [16, 17, 18, 19, 20, 21, 22, 23];
/// Result registers (the same as the argument registers, §A6).
pub const RESULT_REGS: [u8; 8] = ARG_REGS;
/// Callee-saved general registers: `$r1..$r7` and `$r14` (§A6).
pub const CALLEE_SAVED: [u8; 8] = [1, 2, 3, 4, 5, 6, 7, 14];
/// Caller-saved general registers: `$r8..$r11`, `$r15..$r63` (§A6); all `$b` are caller-saved.
pub fn is_caller_saved(r: u8) -> bool {
    matches!(r, 8..=11 | 15..=63)
}
/// Registers a register allocator may hand out: everything but `$r0`, SP, TP and the link
/// register (`$r63` is allocatable between calls only in leaf code; it is excluded here).
pub fn is_allocatable(r: u8) -> bool {
    !matches!(r, 0 | 12 | 13 | 63) && r < 64
}
/// Stack alignment in bytes. ASSUMPTION (isa.md §A6): 8.
pub const STACK_ALIGN: u32 = 8;
/// Outgoing stack arguments start at SP + 16 (16-byte scratch area, §A6).
pub const STACK_ARG_OFFSET: u32 = 16;

/// Latencies (isa.md §A4), in cycles between producer issue and consumer issue.
pub mod latency {
    /// ALU operations, compares, selects, moves, `mtb`/`mfb`, `addcg`/`divs`.
    pub const ALU: u32 = 1;
    /// Multiplies.
    pub const MUL: u32 = 3;
    /// Loads (`.d` included).
    pub const LOAD: u32 = 3;
    /// Extra cycles when a `br`/`brf` reads a `$b` (branch reads at cycle 0, so compare ->
    /// branch = 1 + 2 = 3).
    pub const BRANCH_READS_B_EXTRA: u32 = 2;
    /// Extra cycles when `icall`/`igoto`/`return` read `$r63` (ALU -> return = 2, load ->
    /// return = 4).
    pub const LINK_READ_EXTRA: u32 = 1;
    /// ASSUMPTION (isa.md §A4): 1 bubble cycle after every taken branch, `goto`, `call`,
    /// `icall`, `igoto` and `return`.
    pub const TAKEN_BRANCH_PENALTY: u32 = 1;
}

/// Name of unified register `u` (`$rN` or `$bN`).
pub fn reg_name(u: u8) -> String {
    if (u as usize) < NUM_GPR {
        format!("$r{u}")
    } else {
        format!("$b{}", u as usize - NUM_GPR)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abi_sets() {
        assert!(CALLEE_SAVED.iter().all(|&r| !is_caller_saved(r)));
        assert!(ARG_REGS.iter().all(|&r| is_caller_saved(r)));
        assert!(!is_allocatable(SP) && !is_allocatable(ZERO) && is_allocatable(16));
        assert_eq!(reg_name(65), "$b1");
        assert_eq!(reg_name(12), "$r12");
    }
}
