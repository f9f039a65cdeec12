//! Writing the command line's output without panicking: every subcommand prints through
//! these functions instead of `print!`/`println!` (which panic when stdout is closed or
//! full).
//!
//! Policy (docs/robustness.md):
//! * a closed pipe (`ssalab disasm x.o | head`) is a quiet exit with status
//!   [`EXIT_BROKEN_PIPE`] (128 + SIGPIPE, what a shell reports for a C tool killed by the
//!   signal): the reader chose to stop, so nothing is printed, but the status is not 0, so that
//!   a caller checking it (or `set -o pipefail`) knows the output was cut;
//! * any other write error (`> /dev/full`, an unwritable `-o` file) prints
//!   `error: cannot write WHAT: REASON` on stderr and exits with status [`EXIT_WRITE_ERROR`].
//!
//! stderr itself is written with `eprint!`/`eprintln!` replaced, at the crate roots, by the
//! macros of this module that ignore errors: there is nowhere left to report them.

use std::io::{ErrorKind, Write};
use std::process::ExitCode;

/// Default of [`max_input_bytes`]: 256 MiB.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 256 << 20;

/// The environment variable that raises the input size limit.
pub const MAX_INPUT_ENV: &str = "SSALAB_MAX_INPUT_BYTES";

/// The largest input file read (source, assembly, object): [`DEFAULT_MAX_INPUT_BYTES`] unless
/// [`MAX_INPUT_ENV`] says otherwise.
pub fn max_input_bytes() -> u64 {
    std::env::var(MAX_INPUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(DEFAULT_MAX_INPUT_BYTES)
}

/// Checks an input file before it is read whole: it must be a regular file (not `/dev/zero`,
/// a FIFO or a directory, which would be read forever or not at all) of at most
/// [`max_input_bytes`] bytes. The error starts with `error: PATH:`.
pub fn check_input(path: &std::path::Path) -> Result<(), String> {
    let meta = std::fs::metadata(path)
        .map_err(|e| format!("error: cannot read {}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!(
            "error: {}: not a regular file (inputs are read from files)",
            path.display()
        ));
    }
    let limit = max_input_bytes();
    if meta.len() > limit {
        return Err(format!(
            "error: {}: {} bytes, beyond the input limit of {limit} bytes (raise it with the environment variable {MAX_INPUT_ENV}=BYTES)",
            path.display(),
            meta.len()
        ));
    }
    Ok(())
}

/// Exit status when stdout is a closed pipe.
pub const EXIT_BROKEN_PIPE: u8 = 141;
/// Exit status when output cannot be written for any other reason.
pub const EXIT_WRITE_ERROR: u8 = 1;

/// Why output could not be written.
#[derive(Debug)]
pub enum WriteError {
    /// The reader closed the pipe.
    BrokenPipe,
    /// Any other error, with what was being written (`stdout`, a file name).
    Failed { what: String, error: std::io::Error },
}

impl WriteError {
    /// Classifies an I/O error met while writing `what`.
    pub fn new(what: impl Into<String>, error: std::io::Error) -> WriteError {
        if error.kind() == ErrorKind::BrokenPipe {
            WriteError::BrokenPipe
        } else {
            WriteError::Failed {
                what: what.into(),
                error,
            }
        }
    }

    /// Reports the error (nothing for a broken pipe) and gives the exit status.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            WriteError::BrokenPipe => ExitCode::from(EXIT_BROKEN_PIPE),
            WriteError::Failed { .. } => {
                crate::eprintln!("error: {self}");
                ExitCode::from(EXIT_WRITE_ERROR)
            }
        }
    }
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::BrokenPipe => f.write_str("cannot write stdout: the pipe is closed"),
            WriteError::Failed { what, error } => write!(f, "cannot write {what}: {error}"),
        }
    }
}

/// Writes `bytes` to stdout and flushes.
pub fn write_stdout(bytes: &[u8]) -> Result<(), WriteError> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| WriteError::new("stdout", e))
}

/// Writes `bytes` to the file `path`.
pub fn write_file(path: &std::path::Path, bytes: &[u8]) -> Result<(), WriteError> {
    std::fs::write(path, bytes).map_err(|e| WriteError::new(path.display().to_string(), e))
}

/// Writes `text` to stdout; on failure reports it and exits the process (status
/// [`EXIT_BROKEN_PIPE`] or [`EXIT_WRITE_ERROR`]). For output printed while work goes on
/// (progress lines of `throughput`, `fuzz check`), where unwinding to `main` would only
/// delay the same exit.
pub fn print_or_exit(text: &str) {
    if let Err(e) = write_stdout(text.as_bytes()) {
        let code = match e {
            WriteError::BrokenPipe => i32::from(EXIT_BROKEN_PIPE),
            WriteError::Failed { .. } => {
                crate::eprintln!("error: {e}");
                i32::from(EXIT_WRITE_ERROR)
            }
        };
        std::process::exit(code);
    }
}

/// Writes `text` to stdout and gives `ok` when that worked, else the write error's status.
pub fn print_then(text: &str, ok: ExitCode) -> ExitCode {
    match write_stdout(text.as_bytes()) {
        Ok(()) => ok,
        Err(e) => e.exit_code(),
    }
}

/// `println!` that cannot panic: see [`print_or_exit`].
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli_io::print_or_exit(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` that cannot panic: see [`print_or_exit`].
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli_io::print_or_exit(&format!($($arg)*))
    };
}

/// `eprintln!` that ignores a closed or full stderr instead of panicking.
#[macro_export]
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `eprint!` that ignores a closed or full stderr instead of panicking.
#[macro_export]
macro_rules! eprint {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}
