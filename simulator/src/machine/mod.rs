//! What both simulated cores share: the memory map, guest memory, traps, counters, system
//! calls and output, per-function attribution, and the run options / run report types.
//!
//! Memory map (ASSUMPTION, project convention for both targets, see `docs/isa.md` §S):
//! code at [`CODE_BASE`] upwards, data after it aligned to 16, then bss; addresses below
//! [`CODE_BASE`] are unmapped so that null-pointer accesses trap; the stack pointer starts at
//! the top of memory (`mem_size`) aligned to 8 and grows down; the link register starts as
//! [`HALT_ADDRESS`], and returning there ends the run.

pub mod counters;
pub mod memory;
pub mod output;
pub mod profile;
pub mod trap;

pub use counters::{Counters, FunctionStats};
pub use memory::Memory;
pub use output::{syscall, SyscallOutcome};
pub use profile::{FunctionTable, Profiler};
pub use trap::{Trap, TrapKind};

/// First code address; everything below is unmapped. ASSUMPTION (project memory map).
pub const CODE_BASE: u32 = 0x0000_1000;
/// Return address given to the entry function; never mapped. ASSUMPTION (project start-up).
pub const HALT_ADDRESS: u32 = 0xFFFF_FFF0;
/// Default guest memory size: 16 MiB.
pub const DEFAULT_MEM_SIZE: u32 = 16 << 20;
/// Data starts at the end of the code rounded up to this alignment.
pub const DATA_ALIGN: u32 = 16;

/// Round `x` up to a multiple of `align` (a power of two), saturating at the top.
pub fn align_up(x: u32, align: u32) -> u32 {
    x.checked_add(align - 1)
        .map_or(!(align - 1), |v| v & !(align - 1))
}

/// Knobs of one simulation run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The run stops with [`TrapKind::CycleBudget`] when this many cycles have elapsed.
    pub max_cycles: u64,
    /// Print every issued bundle (only through the `run_traced` entry points).
    pub trace: bool,
    /// Bytes of guest memory (addresses `0..mem_size`, the first [`CODE_BASE`] unmapped).
    pub mem_size: u32,
    /// Deepest call nesting before [`TrapKind::CallDepth`].
    pub max_call_depth: u32,
    /// Most output bytes the program may produce before [`TrapKind::OutputLimit`].
    pub max_output: usize,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            max_cycles: 10_000_000_000,
            trace: false,
            mem_size: DEFAULT_MEM_SIZE,
            max_call_depth: 100_000,
            max_output: 64 << 20,
        }
    }
}

/// Everything a run produced.
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    /// `main`'s return value (or the `exit` system call's argument); -1 after a trap.
    pub exit_code: i32,
    /// Bytes the program printed through system calls.
    pub output: Vec<u8>,
    /// Counters of the whole run.
    pub totals: Counters,
    /// Per-function counters, in symbol address order (functions never entered included,
    /// with zero counts); code outside every function symbol is reported as `<unknown>`
    /// when it executed.
    pub functions: Vec<FunctionStats>,
    /// Why the run stopped early, if it did.
    pub trap: Option<Trap>,
    /// Host wall-clock seconds spent simulating (loading and decoding included).
    pub host_seconds: f64,
}

impl RunReport {
    /// A report for a run that could not start (bad object, unsupported target ...).
    pub fn failed(trap: Trap) -> RunReport {
        RunReport {
            exit_code: -1,
            trap: Some(trap),
            ..RunReport::default()
        }
    }

    /// Simulated operations per host second.
    pub fn ops_per_second(&self) -> f64 {
        if self.host_seconds > 0.0 {
            self.totals.ops as f64 / self.host_seconds
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn align_up_works() {
        assert_eq!(align_up(0x1001, 16), 0x1010);
        assert_eq!(align_up(0x1010, 16), 0x1010);
        assert_eq!(align_up(u32::MAX, 16), 0xFFFF_FFF0);
    }
}
