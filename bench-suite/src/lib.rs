//! Library side of the `ssalab` command: the pieces the command line, the bench suite and the
//! integration tests share (host-compiler reference runs, program discovery).

/// Declared first so that its `eprintln!`/`eprint!` (which cannot panic) shadow std's in
/// every module below.
#[macro_use]
pub mod cli_io;
pub mod bench;
pub mod build;
pub mod frontend;
pub mod fuzz;
pub mod graph_svg;
pub mod host;
pub mod pass_debug;
pub mod programs;
pub mod report;
pub mod slurm;
