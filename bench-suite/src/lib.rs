//! Library side of the `ssalab` command: the pieces the command line, the bench suite and the
//! integration tests share (host-compiler reference runs, program discovery).

pub mod bench;
pub mod build;
pub mod frontend;
pub mod fuzz;
pub mod host;
pub mod programs;
pub mod report;
