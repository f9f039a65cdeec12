//! One module per subcommand.

pub mod frontend;
pub mod fuzz;
pub mod interp;
pub mod throughput;
