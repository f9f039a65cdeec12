//! The mid-level IR: a target-independent control-flow graph of basic blocks whose
//! instructions operate on 32-bit virtual registers.
//!
//! One data structure serves two forms of the program:
//! * **before SSA** — a virtual register may be assigned by several instructions (this is how
//!   the front end lowers promotable C locals; SSA construction renames them);
//! * **SSA** — every value has exactly one definition, and `phi` instructions sit at block heads
//!   (checked by [`crate::ssa::verify`]).
//!
//! Memory is byte-addressed and little-endian: globals and stack slots have addresses, loads and
//! stores carry their access width. The text form ([`print`] / [`parse`]) round-trips and is what
//! file tests and `--print-after` use.
//!
//! Invariants kept by the builder methods: the entry block is `b0`; a `Branch` never has equal
//! targets (it is turned into a `Jump`); values and blocks are dense indices into vectors.

mod function;
pub mod parse;
pub mod print;

pub use function::*;
pub use parse::{parse_module, ParseError};
