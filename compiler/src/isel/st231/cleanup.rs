//! Dead-code sweep after selection: deletes pure operations (ALU, multiply, select, compare,
//! copy, phi) whose every result is an unused virtual register. Selection leaves such code
//! behind on purpose — a constant every user took as an immediate, a compare re-emitted into
//! a `$b` next to its branch, an address addition folded into a memory offset — which keeps
//! the selector itself simple and local.
//!
//! Loads are kept (a load may fault, and volatile loads must stay); stores, calls, system
//! calls, control operations and `.input`/`.output` are never removed.
//!
//! Complexity: O(instructions) per round with a use-count array; a round only removes, and
//! removal of an instruction decrements the counts of its uses, so one worklist pass suffices.

use crate::mir::{Function, Inst, Opc};
use simulator::isa::st231::{Format, Unit};

/// True when deleting `i` cannot change behaviour if its results are unused.
fn is_pure(i: &Inst) -> bool {
    match i.opc {
        Opc::Phi | Opc::Copy => true,
        Opc::St231(o) => {
            let info = o.info();
            matches!(info.unit, Unit::Alu | Unit::Mul)
                && matches!(
                    info.format,
                    Format::Binary | Format::Monadic | Format::Select | Format::Carry
                )
        }
        _ => false,
    }
}

/// Removes dead pure instructions; returns how many were removed.
pub(crate) fn remove_dead(f: &mut Function) -> usize {
    let mut uses = vec![0u32; f.vregs.len()];
    for b in &f.blocks {
        for i in &b.insts {
            for v in i.use_vregs() {
                uses[v.index()] += 1;
            }
        }
    }
    let dead = |i: &Inst, uses: &[u32]| {
        is_pure(i)
            && !i.defs.is_empty()
            && i.def_vregs().all(|d| uses[d.index()] == 0)
            && i.defs.iter().all(|d| d.vreg().is_some())
    };
    // Worklist of (block, index) candidates; removal marks instructions, compaction at the end.
    let mut removed: Vec<Vec<bool>> = f
        .blocks
        .iter()
        .map(|b| vec![false; b.insts.len()])
        .collect();
    let mut work: Vec<(usize, usize)> = Vec::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        for (ii, i) in b.insts.iter().enumerate() {
            if dead(i, &uses) {
                work.push((bi, ii));
            }
        }
    }
    // Defining instruction of each vreg, to revisit the producers of a removed instruction.
    let mut def_site = vec![None; f.vregs.len()];
    for (bi, b) in f.blocks.iter().enumerate() {
        for (ii, i) in b.insts.iter().enumerate() {
            for d in i.def_vregs() {
                def_site[d.index()] = Some((bi, ii));
            }
        }
    }
    let mut count = 0;
    while let Some((bi, ii)) = work.pop() {
        if removed[bi][ii] || !dead(&f.blocks[bi].insts[ii], &uses) {
            continue;
        }
        removed[bi][ii] = true;
        count += 1;
        for v in f.blocks[bi].insts[ii].use_vregs() {
            uses[v.index()] -= 1;
            if uses[v.index()] == 0 {
                if let Some(site) = def_site[v.index()] {
                    work.push(site);
                }
            }
        }
    }
    for (b, gone) in f.blocks.iter_mut().zip(removed) {
        let mut k = 0;
        b.insts.retain(|_| {
            let keep = !gone[k];
            k += 1;
            keep
        });
    }
    count
}
