//! Scheduling: each basic block of a final-form function, lowered to target operations by
//! [`crate::emit::lower`], is list-scheduled into bundles (ST231, isa.md §A2) or issue groups
//! (ST120, §B2).
//!
//! * [`deps`]: the block's dependence graph (RAW with the producer's latency, §A4/§B3;
//!   WAR 0; WAW 1; memory order; calls and system calls as barriers; control last);
//! * [`list`]: cycle-driven list scheduling by critical path under the issue rules, every
//!   bundle checked with the simulator's own `check_bundle` / `check_group`.
//!
//! Scheduling never crosses a block boundary, never moves an operation across a call or a
//! system call, and keeps the block's control operations in its last bundles (a `goto`
//! after a conditional branch gets its own bundle). [`SchedOptions::enabled`] = false gives
//! the baseline of one operation per bundle in program order.
//!
//! Statistics per function ([`SchedStats`]): bundles, operations, the schedule length in
//! cycles as the schedule expects it (sum over blocks of the issue cycle of the last bundle
//! plus one; blocks executed once each, no branch penalties) and the empty cycles in it
//! (where the interlocked hardware stalls: no `nop` is emitted for them).

pub mod deps;
pub mod list;

use crate::emit::{lower::lower_function, EmitError, LoweredOp, MachOp};
use crate::mir::{self, BlockId};
use crate::pipeline::PassDetail;
use simulator::isa::{st120 as isa120, st231 as isa231, Target};

/// Scheduler options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchedOptions {
    /// List scheduling; when false, one operation per bundle in program order.
    pub enabled: bool,
}

impl Default for SchedOptions {
    fn default() -> SchedOptions {
        SchedOptions { enabled: true }
    }
}

/// One bundle (issue group): operations in encoding order and the expected issue cycle
/// relative to the start of its block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bundle {
    pub ops: Vec<LoweredOp>,
    pub cycle: u32,
}

/// The bundles of one block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduledBlock {
    pub id: BlockId,
    pub bundles: Vec<Bundle>,
}

/// Counts of one scheduled function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedStats {
    pub bundles: u64,
    pub ops: u64,
    /// Schedule length in cycles (sum over blocks).
    pub cycles: u64,
    /// Cycles of the schedule with no bundle (the hardware interlocks there).
    pub empty_cycles: u64,
    /// Syllables (ST231, long-immediate extensions included) or words (ST120).
    pub syllables: u64,
}

impl SchedStats {
    /// The counts as a pass detail.
    pub fn detail(&self) -> PassDetail {
        vec![
            ("bundles", self.bundles),
            ("ops", self.ops),
            ("sched_cycles", self.cycles),
            ("empty_cycles", self.empty_cycles),
            ("syllables", self.syllables),
        ]
    }
}

/// A function ready for linking: blocks in layout order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduledFunction {
    pub name: String,
    pub target: Target,
    pub blocks: Vec<ScheduledBlock>,
    pub stats: SchedStats,
}

/// Why a bundle is illegal, in the simulator's words.
fn explain(target: Target, group: &[&LoweredOp]) -> String {
    match target {
        Target::St231 => {
            let ops: Vec<isa231::Op> = group.iter().filter_map(|l| l.st231()).collect();
            let force: Vec<bool> = group.iter().map(|l| l.force_extension()).collect();
            match isa231::encoding::encode_bundle_forced(&ops, &force, 0) {
                Err(e) => e.to_string(),
                Ok(_) => "bundle breaks the issue rules".into(),
            }
        }
        Target::St120 => {
            let insts: Vec<isa120::Inst> = group.iter().filter_map(|l| l.st120()).collect();
            if let Err(e) = isa120::issue::check_group(&insts) {
                return e.to_string();
            }
            for i in &insts {
                if let Err(e) = isa120::encoding::encode(i, true) {
                    return e.to_string();
                }
            }
            "illegal issue group".into()
        }
    }
}

/// Lower and schedule one final-form function.
pub fn schedule_function(
    f: &mir::Function,
    opts: &SchedOptions,
) -> Result<ScheduledFunction, EmitError> {
    let lowered = lower_function(f)?;
    let mut blocks = Vec::with_capacity(lowered.len());
    let mut stats = SchedStats::default();
    for (bi, ops) in lowered.into_iter().enumerate() {
        let id = BlockId(bi as u32);
        let wrong_target = |o: &LoweredOp| {
            !matches!(
                (o.op, f.target),
                (MachOp::St231(_), Target::St231) | (MachOp::St120(_), Target::St120)
            )
        };
        if ops.iter().any(wrong_target) {
            return Err(EmitError::at(
                &f.name,
                Some(id),
                "operation of the wrong target",
            ));
        }
        let g = deps::DepGraph::build(&ops);
        let slots = list::schedule_block(f.target, &ops, &g, opts.enabled);
        let mut bundles = Vec::with_capacity(slots.len());
        for s in &slots {
            let group: Vec<&LoweredOp> = s.ops.iter().map(|&i| &ops[i]).collect();
            if !s.checked && !list::legal(f.target, &group) {
                return Err(EmitError::at(
                    &f.name,
                    Some(id),
                    format!("cannot encode: {}", explain(f.target, &group)),
                ));
            }
            stats.syllables += list::syllables(&ops, s) as u64;
            bundles.push(Bundle {
                ops: group.into_iter().cloned().collect(),
                cycle: s.cycle,
            });
        }
        let len = slots.last().map_or(0, |s| u64::from(s.cycle) + 1);
        stats.bundles += slots.len() as u64;
        stats.ops += ops.len() as u64;
        stats.cycles += len;
        stats.empty_cycles += len - slots.len() as u64;
        blocks.push(ScheduledBlock { id, bundles });
    }
    Ok(ScheduledFunction {
        name: f.name.clone(),
        target: f.target,
        blocks,
        stats,
    })
}

/// Lower and schedule every function of a final-form module.
pub fn schedule_module(
    m: &mir::Module,
    opts: &SchedOptions,
) -> Result<Vec<ScheduledFunction>, EmitError> {
    m.functions
        .iter()
        .map(|f| schedule_function(f, opts))
        .collect()
}
