//! ssalab machine: instruction-set descriptions of the ST231 (ST2xx-class VLIW) and ST120
//! (DSP-MCU) targets, the ssalab object format, assemblers and disassemblers, and a
//! cycle-level simulator with per-function counters.
//!
//! Facts come from `docs/isa.md` (section A = ST231, section B = ST120); every
//! choice that document marks ASSUMPTION is labelled `ASSUMPTION` where it is implemented.
//! The crate does not depend on the compiler; the compiler uses [`isa`] as its machine
//! description.
//!
//! Layout:
//! * [`isa`]: per-target machine descriptions (registers, opcodes, encodings, semantics);
//! * [`object`]: the "ssalab object" file format (code, data, symbols, annotations);
//! * [`asm`]: assembly text -> object, object -> objdump-style listing;
//! * [`machine`]: guest memory, traps, counters, system calls, per-function profiling;
//! * [`sim`]: the cycle-level simulators, one per target, behind [`sim::run`].

pub mod asm;
pub mod isa;
pub mod machine;
pub mod object;
pub mod sim;

pub use isa::Target;
pub use object::Object;
