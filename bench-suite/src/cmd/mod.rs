//! One module per subcommand.

pub mod frontend;
pub mod interp;
