//! SSA form: construction from the front end's non-SSA IR ([`construct`]), the verifier
//! ([`verify`]), and random program generators for differential testing ([`random`]).

pub mod construct;
pub mod random;
pub mod verify;

pub use construct::{construct_ssa, SsaError, SsaStats};
pub use verify::{verify_function, verify_module, VerifyError};
