//! `ssalab fuzz`: random C programs, free of undefined behaviour by construction, run through
//! every compiler stage and compared with the host C compiler; mismatches are bisected to the
//! first stage that differs, reduced, and saved as reproducers.
//!
//! * [`rng`] — the seeded random source (xoshiro256**);
//! * [`ast`] — the generator's program tree, whose meaning is wrapping arithmetic;
//! * [`gen`] — the generator and its policy knobs;
//! * [`emit`] — the tree as UB-free C (guards chosen from types and value ranges);
//! * [`oracle`] — stages and configurations, and the comparison with the host build;
//! * [`backend`] — the back-end configurations (every row of `compiler::backend::CONFIGS`,
//!   both targets, `--regs`, `-O2`/`-O0`): each machine-level pass interpreted, then the
//!   simulator;
//! * [`checks`] — independent checkers on compiled functions (CSSA, register budget,
//!   encoding round trip);
//! * [`inputs`] — fuzz targets for the parsers, the object reader, the decoders and the
//!   simulators (tests and cargo-fuzz);
//! * [`reduce`] — delta debugging on the tree (every candidate is still UB-free);
//! * [`driver`] — the parallel campaign, the summary and the saved reproducers.
//!
//! The test method follows docs/reliability.md ("The oracles").

pub mod ast;
pub mod backend;
pub mod checks;
pub mod driver;
pub mod emit;
pub mod gen;
pub mod inputs;
pub mod oracle;
pub mod reduce;
pub mod rng;

/// Version of the generator: a program is identified by (version, seed, size). Bump it when a
/// change makes the same seed produce a different program.
///
/// v2 (issue 24): the tree of a seed is v1's; about half of the brace-list initialisers are
/// printed with designators (`[i] = …`, `.field = …`) in a rotated order, which means the same.
pub const GENERATOR_VERSION: u32 = 2;

pub use gen::{generate, Size};

/// The C text of the program of `seed` at `size`.
pub fn program_text(seed: u64, size: Size) -> String {
    emit::emit(&generate(seed, size))
}
