//! One module per subcommand.

pub mod bench;
pub mod compile;
pub mod diff;
pub mod fuzz;
pub mod interp;
pub mod report;
pub mod status;
pub mod throughput;
pub mod throughput_backend;
