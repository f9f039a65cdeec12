//! `ssalab bench`: the sweep over programs × pipeline configurations × targets.
//!
//! The sweep is generic over an [`Executor`], the thing that compiles one program for one
//! target under one configuration, runs it on the simulator, checks its output against the
//! host compiler's, and reports per-function statistics. This module knows nothing about the
//! compiler: it plans the jobs from the suite manifest, runs them in parallel, and writes the
//! results.
//!
//! Flow (one submodule per step):
//! * [`manifest`] loads and validates `programs/suite.toml`;
//! * [`jobs`] turns the manifest and the command-line selection into the ordered job list
//!   (programs in manifest order × configurations × targets) and slices it into shards;
//! * [`runner`] runs the jobs on a crossbeam work queue with `-j N` workers, with progress
//!   bars, catching executor panics;
//! * [`output`] turns the results into the tidy `functions.csv`, the per-job `jobs.csv` and
//!   the `runs.toml` description of the sweep, written atomically;
//! * [`journal`] appends each finished job to a journal in the output directory, resumes an
//!   interrupted sweep from it, and swaps the final files in at once;
//! * [`merge`] joins shard outputs into exactly what an unsharded run writes;
//! * [`sweep`] ties the steps together for the `ssalab bench` command and the tests.
//!
//! Determinism: the job list is a pure function of the manifest and the selection; results
//! are sorted by job index and, within a job, by the manifest's kernel order, so the files do
//! not depend on `-j` or on scheduling. The only varying values are compile and simulation
//! times; `--no-times` writes them as 0 (see [`output`]).

pub mod glob;
pub mod jobs;
pub mod journal;
pub mod machine;
pub mod manifest;
pub mod merge;
pub mod output;
pub mod runner;
pub mod sweep;

use simulator::isa::Target;
use simulator::machine::FunctionStats;

/// One unit of work: a program compiled for a target under a configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Job {
    /// The program's path relative to the `programs/` directory (as in the manifest).
    pub program: String,
    pub target: Target,
    /// A pipeline configuration name (as `ssalab configs` lists them).
    pub config: String,
    /// `--regs N`: restrict every register file to its first N allocatable registers.
    pub regs: Option<u32>,
}

impl Job {
    /// `program target config` (plus `regs=N`), for progress lines and messages.
    pub fn label(&self) -> String {
        match self.regs {
            Some(n) => format!("{} {} {} regs={n}", self.program, self.target, self.config),
            None => format!("{} {} {}", self.program, self.target, self.config),
        }
    }
}

/// Statistics of one function of one job: one row of `functions.csv`.
///
/// Static counts come from the compiler (`moves_ssa_out` = copies right after out-of-SSA,
/// `moves_coalesced` = after coalescing, `moves_final` = in the final code, `weighted_moves`
/// = final copies weighted by 5^loop-depth, `code_bytes`, `compile_us`); dynamic counts and
/// cycles come from the simulator's exclusive per-function counters (see
/// [`FunctionRow::set_dynamic`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionRow {
    pub function: String,
    pub moves_ssa_out: u64,
    pub moves_coalesced: u64,
    pub moves_final: u64,
    pub weighted_moves: u64,
    pub dyn_moves: u64,
    pub dyn_loads: u64,
    pub dyn_stores: u64,
    pub dyn_spill_loads: u64,
    pub dyn_spill_stores: u64,
    pub cycles: u64,
    pub stall_cycles: u64,
    pub bundles: u64,
    pub ops: u64,
    pub code_bytes: u64,
    /// Time spent compiling this function, in microseconds (written as 0 with `--no-times`).
    pub compile_us: u64,
    // Extra columns (after `status` in the CSV).
    /// Times the function was entered.
    pub calls: u64,
    /// Cycles while the function was active, callees included.
    pub incl_cycles: u64,
    /// Executed swap sequences.
    pub dyn_swaps: u64,
    /// Taken control transfers.
    pub taken_branches: u64,
    /// Register pressure at the back end's input, per class (R, B, P, G): `maxlive`.
    pub maxlive: [u64; 4],
    /// Distinct allocatable registers the final code uses.
    pub regs_used: u64,
    /// Copies of road 2's §6 Perms (values moved to another register at a constraint).
    pub perm_copies: u64,
    /// Static swap sequences, spill loads and spill stores of the final code.
    pub swaps: u64,
    pub spill_loads: u64,
    pub spill_stores: u64,
    /// Road 2's coalescing passes (`ssa-recolour`, `ssa-ilp-coalesce`): the summed weight
    /// of the phi and Perm affinities left unsatisfied (Hack et al. §5.2, equation 1).
    pub affinity_cost: u64,
    /// 1 when `ssa-ilp-coalesce` proved its colouring optimal (§5.4), else 0.
    pub ilp_optimal: u64,
    /// `moves_ssa_out` and `moves_coalesced` weighted by 5^loop-depth, as `weighted_moves`
    /// (Rastello et al.'s Table 5 counts them right after out-of-SSA).
    pub weighted_moves_ssa_out: u64,
    pub weighted_moves_coalesced: u64,
}

impl FunctionRow {
    /// A row for `function` with every count 0.
    pub fn named(function: impl Into<String>) -> FunctionRow {
        FunctionRow {
            function: function.into(),
            ..FunctionRow::default()
        }
    }

    /// Fills the dynamic columns from the simulator's counters of this function: exclusive
    /// counters (the function's own code), except `incl_cycles`.
    pub fn set_dynamic(&mut self, stats: &FunctionStats) {
        let c = &stats.exclusive;
        self.dyn_moves = c.moves;
        self.dyn_loads = c.loads;
        self.dyn_stores = c.stores;
        self.dyn_spill_loads = c.spill_loads;
        self.dyn_spill_stores = c.spill_stores;
        self.cycles = c.cycles;
        self.stall_cycles = c.stalls();
        self.bundles = c.bundles;
        self.ops = c.ops;
        self.calls = stats.calls;
        self.incl_cycles = stats.inclusive.cycles;
        self.dyn_swaps = c.swaps;
        self.taken_branches = c.taken_branches;
    }
}

/// Fills the dynamic columns of `rows` from the simulator's per-function counters
/// (`RunReport::functions`), matching by function name; a function with counters but no row
/// gets a new row (static counts 0, at the end). Pseudo-functions such as `<unknown>` (code
/// outside every symbol) are skipped. Linear in rows + functions.
pub fn add_dynamic(rows: &mut Vec<FunctionRow>, functions: &[FunctionStats]) {
    let mut index: std::collections::HashMap<String, usize> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (r.function.clone(), i))
        .collect();
    for stats in functions.iter().filter(|f| !f.name.starts_with('<')) {
        let i = *index.entry(stats.name.clone()).or_insert_with(|| {
            rows.push(FunctionRow::named(stats.name.clone()));
            rows.len() - 1
        });
        rows[i].set_dynamic(stats);
    }
}

/// Whether a job passed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobStatus {
    Ok,
    /// Compile error, trap, wrong output, panic, ...: the reason (one line is best; it is
    /// flattened to one line in the CSV).
    Failed(String),
}

/// What an executor reports for one job.
#[derive(Clone, Debug, PartialEq)]
pub struct JobOutcome {
    pub status: JobStatus,
    /// Every function the executor measured (at least the manifest's kernels when the job
    /// passed; more are fine — they are written only with `--all-functions`).
    pub functions: Vec<FunctionRow>,
    /// Wall time spent compiling (all functions, all passes).
    pub compile_seconds: f64,
    /// Wall time spent simulating and checking the output.
    pub simulate_seconds: f64,
}

impl JobOutcome {
    /// A failed job with no statistics.
    pub fn failed(reason: impl Into<String>) -> JobOutcome {
        JobOutcome {
            status: JobStatus::Failed(reason.into()),
            functions: Vec::new(),
            compile_seconds: 0.0,
            simulate_seconds: 0.0,
        }
    }
}

/// Runs one job. Called concurrently from several worker threads (hence `Sync`), each on a
/// large stack; a panic is caught and recorded as a failed job.
pub trait Executor: Sync {
    fn run(&self, job: &Job) -> JobOutcome;
}

/// Any `Fn(&Job) -> JobOutcome + Sync` closure is an executor.
impl<F: Fn(&Job) -> JobOutcome + Sync> Executor for F {
    fn run(&self, job: &Job) -> JobOutcome {
        self(job)
    }
}

/// 64-bit FNV-1a: a hash that is stable across Rust versions and platforms (unlike
/// `DefaultHasher`), for the fingerprints in `runs.toml` that merge compares.
pub(crate) fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use simulator::machine::Counters;

    #[test]
    fn fnv_known_values() {
        // Reference values of 64-bit FNV-1a.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn dynamic_columns_come_from_exclusive_counters() {
        let stats = FunctionStats {
            name: "f".into(),
            addr: 0,
            calls: 3,
            inclusive: Counters {
                cycles: 100,
                ..Counters::default()
            },
            exclusive: Counters {
                cycles: 40,
                stall_operand: 5,
                stall_memport: 2,
                bundles: 30,
                ops: 60,
                moves: 7,
                swaps: 1,
                loads: 8,
                stores: 9,
                spill_loads: 10,
                spill_stores: 11,
                taken_branches: 4,
                ..Counters::default()
            },
        };
        let mut r = FunctionRow::named("f");
        r.set_dynamic(&stats);
        assert_eq!(
            (r.cycles, r.stall_cycles, r.bundles, r.ops, r.dyn_moves),
            (40, 7, 30, 60, 7)
        );
        assert_eq!(
            (
                r.dyn_loads,
                r.dyn_stores,
                r.dyn_spill_loads,
                r.dyn_spill_stores
            ),
            (8, 9, 10, 11)
        );
        assert_eq!(
            (r.calls, r.incl_cycles, r.dyn_swaps, r.taken_branches),
            (3, 100, 1, 4)
        );
    }

    #[test]
    fn dynamic_counts_join_static_rows_by_name() {
        let stats = |name: &str, cycles: u64| FunctionStats {
            name: name.into(),
            addr: 0,
            calls: 1,
            inclusive: Counters::default(),
            exclusive: Counters {
                cycles,
                ..Counters::default()
            },
        };
        let mut f = FunctionRow::named("f");
        f.moves_final = 4;
        let mut rows = vec![f, FunctionRow::named("g")];
        add_dynamic(
            &mut rows,
            &[
                stats("g", 20),
                stats("<unknown>", 1),
                stats("f", 10),
                stats("h", 30),
            ],
        );
        let got: Vec<(&str, u64, u64)> = rows
            .iter()
            .map(|r| (r.function.as_str(), r.moves_final, r.cycles))
            .collect();
        assert_eq!(got, [("f", 4, 10), ("g", 0, 20), ("h", 0, 30)]);
    }

    #[test]
    fn job_label() {
        let mut j = Job {
            program: "dsp/fir.c".into(),
            target: Target::St120,
            config: "base".into(),
            regs: None,
        };
        assert_eq!(j.label(), "dsp/fir.c st120 base");
        j.regs = Some(8);
        assert_eq!(j.label(), "dsp/fir.c st120 base regs=8");
    }
}
