//! One module per subcommand.

pub mod compile;
pub mod fuzz;
pub mod interp;
pub mod throughput;
