//! Cycle-driven list scheduling of one block (the classic algorithm: at each cycle, fill
//! the bundle with ready operations in priority order while the issue rules allow).
//!
//! Priority: the critical path (longest latency-weighted path to the block end, see
//! [`DepGraph::priorities`]), ties broken by program order. An operation is ready at cycle
//! `c` when all its predecessors are scheduled and `c ≥ pred cycle + latency` for each;
//! latency-0 edges (WAR, "before the control operation") allow the same bundle, so a
//! bundle is refilled until nothing more fits.
//!
//! Issue rules (checked for every candidate bundle, the simulator's own checks deciding):
//! * ST231 (isa.md §A2): quick counts first (≤ 4 syllables with long-immediate extensions,
//!   ≤ 1 memory operation, ≤ 1 control operation, ≤ 2 multiplies, `syscall` alone), then
//!   `st231::encoding::encode_bundle_forced` at both lane parities (an address ≡ 0 or 4
//!   mod 8: multiplies must land in odd lanes wherever the bundle ends up; the encoder may
//!   add one `nop`, ASSUMPTION §A2) and `st231::issue::check_bundle` on the resulting
//!   syllable positions (control operation first);
//! * ST120 (isa.md §B2, ASSUMPTION there: ≤ 2 operations, control in slot 1, ≤ 1 store,
//!   `TRAP` alone): `st120::issue::check_group` on the group with the control op last.
//!
//! The machines interlock (ST231 scoreboard §A4, ST120 §B2 ASSUMPTION), so cycles where
//! nothing is ready produce no bundle and no `nop`: the simulator stalls instead.
//!
//! Complexity: per bundle position at most [`MAX_TRIES`] candidate tests, each O(1)
//! (bounded bundle size; the ST231 encoder tries at most 4!·4 syllable orders), plus
//! O(ready) list upkeep: O(n · ready) per block in the worst case, O(n) in practice.

use super::deps::{DepGraph, NodeKind};
use crate::emit::{LoweredOp, MachOp};
use simulator::isa::st120 as isa120;
use simulator::isa::st231::{encoding, issue, OpProps, Unit};
use simulator::isa::Target;

/// One scheduled bundle: indices into the block's operations, in bundle order (ST231:
/// control operation first; ST120: control operation last; otherwise program order), and
/// the cycle (relative to the block start) at which the schedule expects it to issue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    pub ops: Vec<usize>,
    pub cycle: u32,
    /// The bundle, in this order, passed [`legal`] when it was formed (so the caller need not
    /// check it again); false for the unscheduled baseline and for an operation emitted alone
    /// because it fits no bundle.
    pub checked: bool,
}

/// Order a bundle's operations: program order, with the control operation first (ST231:
/// first syllable) or last (ST120: slot 1).
pub fn bundle_order(target: Target, ops: &[LoweredOp], idx: &mut [usize]) {
    idx.sort_unstable();
    match target {
        Target::St231 => idx.sort_by_key(|&i| !ops[i].is_control()),
        Target::St120 => idx.sort_by_key(|&i| ops[i].is_control()),
    }
}

/// Whether `group` (already in bundle order) is a legal bundle for `target`.
pub fn legal(target: Target, group: &[&LoweredOp]) -> bool {
    match target {
        Target::St231 => legal_231(group),
        Target::St120 => {
            let insts: Vec<isa120::Inst> = group.iter().filter_map(|l| l.st120()).collect();
            insts.len() == group.len() && isa120::issue::check_group(&insts).is_ok()
        }
    }
}

fn legal_231(group: &[&LoweredOp]) -> bool {
    let (mut syl, mut mem, mut mul, mut ctl, mut alone) = (0, 0, 0, 0, false);
    let mut ops = Vec::with_capacity(group.len());
    let mut force = Vec::with_capacity(group.len());
    for l in group {
        let Some(op) = l.st231() else { return false };
        let info = op.opc.info();
        syl += l.syllables();
        match info.unit {
            Unit::Mem => mem += 1,
            Unit::Mul => mul += 1,
            Unit::Ctl => ctl += 1,
            Unit::Sys => alone = true,
            Unit::Alu => {}
        }
        alone |= info.props.contains(OpProps::ALONE);
        ops.push(op);
        force.push(l.force_extension());
    }
    if syl > issue::ISSUE_WIDTH
        || mem > issue::MAX_MEM
        || mul > issue::MAX_MUL
        || ctl > 1
        || (alone && group.len() > 1)
    {
        return false;
    }
    [0u32, 4].iter().all(
        |&addr| match encoding::encode_bundle_forced(&ops, &force, addr) {
            Ok(enc) => issue::check_bundle(ops.iter().zip(enc.op_slots.iter().copied())).is_ok(),
            Err(_) => false,
        },
    )
}

/// Most ready operations tried for one bundle position.
const MAX_TRIES: usize = 32;

/// No operation can join this bundle any more.
fn full(target: Target, ops: &[LoweredOp], bundle: &[usize]) -> bool {
    match target {
        Target::St231 => {
            bundle.iter().map(|&i| ops[i].syllables()).sum::<usize>() >= issue::ISSUE_WIDTH
        }
        Target::St120 => bundle.len() >= isa120::issue::MAX_GROUP,
    }
}

/// Schedule one block: `ops` in program order, `g` its dependence graph. With `enabled`
/// false, one operation per bundle in program order (the unscheduled baseline).
pub fn schedule_block(target: Target, ops: &[LoweredOp], g: &DepGraph, enabled: bool) -> Vec<Slot> {
    let n = ops.len();
    if !enabled {
        return sequential(target, ops, g);
    }
    let prio = g.priorities();
    let mut npreds = g.npreds.clone();
    let mut earliest = vec![0u32; n];
    let mut done = vec![false; n];
    let mut ready: Vec<usize> = (0..n).filter(|&i| npreds[i] == 0).collect();
    let mut out = Vec::new();
    let mut left = n;
    let mut cycle = 0u32;
    while left > 0 {
        let mut bundle: Vec<usize> = Vec::new();
        loop {
            let mut cands: Vec<usize> = ready
                .iter()
                .copied()
                .filter(|&i| earliest[i] <= cycle)
                .collect();
            cands.sort_by(|&a, &b| prio[b].cmp(&prio[a]).then(a.cmp(&b)));
            let mut placed = None;
            // Cap the candidates tried per placement (the best ones by priority) so that
            // blocks with hundreds of ready operations stay linear per bundle.
            for c in cands.into_iter().take(MAX_TRIES) {
                let mut trial = bundle.clone();
                trial.push(c);
                bundle_order(target, ops, &mut trial);
                let group: Vec<&LoweredOp> = trial.iter().map(|&i| &ops[i]).collect();
                if legal(target, &group) {
                    placed = Some(c);
                    bundle = trial;
                    break;
                }
            }
            let Some(c) = placed else { break };
            done[c] = true;
            left -= 1;
            ready.retain(|&i| i != c);
            for &(s, lat) in &g.succs[c] {
                earliest[s] = earliest[s].max(cycle + lat);
                npreds[s] -= 1;
                if npreds[s] == 0 {
                    ready.push(s);
                }
            }
            // an alone operation (syscall) or a full bundle closes the bundle
            if matches!(g.kinds[c], NodeKind::Barrier { alone: true }) || full(target, ops, &bundle)
            {
                break;
            }
        }
        if !bundle.is_empty() {
            out.push(Slot {
                ops: bundle,
                cycle,
                checked: true,
            });
        } else if let Some(c) = ready
            .iter()
            .copied()
            .filter(|&i| earliest[i] <= cycle)
            .min()
        {
            // A ready operation does not fit even an empty bundle: it is illegal on its
            // own. Emit it alone so that the linker reports the encoding error.
            done[c] = true;
            left -= 1;
            ready.retain(|&i| i != c);
            for &(s, lat) in &g.succs[c] {
                earliest[s] = earliest[s].max(cycle + lat.max(1));
                npreds[s] -= 1;
                if npreds[s] == 0 {
                    ready.push(s);
                }
            }
            out.push(Slot {
                ops: vec![c],
                cycle,
                checked: false,
            });
        }
        cycle += 1;
    }
    debug_assert!(done.iter().all(|&d| d));
    out
}

/// One operation per bundle, in program order; cycles estimated with the latencies.
fn sequential(_target: Target, ops: &[LoweredOp], g: &DepGraph) -> Vec<Slot> {
    let mut earliest = vec![0u32; ops.len()];
    let mut cycle = 0u32;
    let mut out = Vec::with_capacity(ops.len());
    for i in 0..ops.len() {
        let c = cycle.max(earliest[i]);
        for &(s, lat) in &g.succs[i] {
            earliest[s] = earliest[s].max(c + lat.max(1));
        }
        out.push(Slot {
            ops: vec![i],
            cycle: c,
            checked: false,
        });
        cycle = c + 1;
    }
    out
}

/// The simulator operation count of a bundle that needs no link-time facts (for stats).
pub fn syllables(ops: &[LoweredOp], slot: &Slot) -> usize {
    slot.ops
        .iter()
        .map(|&i| match ops[i].op {
            MachOp::St231(_) => ops[i].syllables(),
            MachOp::St120(_) => 1,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::Fixup;
    use crate::mir::InstFlags;
    use simulator::isa::st231::{Dest, Op, Opcode, Src};

    fn l(op: Op) -> LoweredOp {
        LoweredOp {
            op: MachOp::St231(op),
            fixup: Fixup::None,
            flags: InstFlags::empty(),
        }
    }

    fn ok(ops: &[Op]) -> bool {
        let v: Vec<LoweredOp> = ops.iter().map(|&o| l(o)).collect();
        let r: Vec<&LoweredOp> = v.iter().collect();
        legal(Target::St231, &r)
    }

    #[test]
    fn st231_bundle_rules() {
        let add = |d| Op::binary(Opcode::Add, Dest::R(d), 1, Src::R(2));
        let big = |d| Op::binary(Opcode::Add, Dest::R(d), 1, Src::Imm(100_000));
        let mul = |d| Op::binary(Opcode::Mul32, Dest::R(d), 1, Src::R(2));
        assert!(ok(&[mul(3), mul(4), add(5), add(6)]));
        assert!(!ok(&[mul(3), mul(4), mul(5)]));
        assert!(ok(&[big(3), big(4)]));
        assert!(!ok(&[big(3), big(4), add(5)]));
        assert!(
            !ok(&[mul(3), mul(4), big(5)]),
            "no odd lanes left for both multiplies"
        );
        assert!(!ok(&[
            Op::load(Opcode::Ldw, 3, 1, 0),
            Op::store(Opcode::Stw, 1, 4, 2)
        ]));
        assert!(!ok(&[Op::syscall(2), add(3)]));
        assert!(ok(&[add(3), Op::jump(Opcode::Goto, 0)]));
        assert!(!ok(&[add(3), add(3)]), "two writes of one register");
    }

    #[test]
    fn ilp_block_is_packed_and_control_stays_last() {
        let mut ops: Vec<LoweredOp> = (0..8)
            .map(|k| {
                l(Op::binary(
                    Opcode::Add,
                    Dest::R(10 + k),
                    1,
                    Src::Imm(i32::from(k)),
                ))
            })
            .collect();
        ops.push(l(Op::jump(Opcode::Igoto, 0)));
        let g = DepGraph::build(&ops);
        let slots = schedule_block(Target::St231, &ops, &g, true);
        assert_eq!(slots.len(), 3, "{slots:?}");
        assert_eq!(
            slots.last().unwrap().ops[0],
            8,
            "return first in the last bundle"
        );
        let seq = schedule_block(Target::St231, &ops, &g, false);
        assert_eq!(seq.len(), 9);
    }
}
