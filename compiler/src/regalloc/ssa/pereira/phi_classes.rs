//! φ-analysis (Pereira §4.3) and `pereira-phi-mem-coalesce`, the aggressive coalescing of
//! φ-related values (§4.4, Figure 4's `PhiMemCoalesce`).
//!
//! **φ-analysis** ([`PhiClasses`]): the φ-related equivalence classes — the smallest
//! partition in which a phi's result and its operands share a class (reflexive,
//! symmetric, transitive closure, §4.2). After phi lifting each phi alone determines its
//! class, so one union-find pass over the phis computes them. Spilled members of a class
//! share one stack slot (the colouring's spill code), which is correct because the
//! members of a class never interfere (CSSA), and which makes a phi whose result and
//! operand are both in memory cost nothing.
//!
//! **PhiMemCoalesce**: `SI` = the copies created by phi lifting (the pairs of the lifted
//! parallel copies), `SQ` = the classes. For each copy `x := y`, when the classes of `x`
//! and `y` are equal or their live ranges — unions of their members' intervals
//! (`intervals`) — are disjoint, the copy is removed (the phi reads `y` itself, or defines
//! `x` itself) and the two classes become one. The program stays CSSA: no class gains two
//! members that overlap. Fewer classes mean fewer slots and fewer memory transfers when
//! φ-related values are spilled, and fewer lifted copies for the colouring to coalesce.
//!
//! Complexity: the intersection of two classes is linear in their intervals (§4.4:
//! O(|SI| × V) in all); the intervals compared are counted and capped at
//! [`COMPARE_CAP`] per function — past it the remaining copies stay (correct, merely
//! fewer coalesced), reported as `capped`.

use super::super::liveness::Liveness;
use super::intervals::{overlap, union, Intervals, Range};
use crate::mir::{Function, InstFlags, Opc, Reg, VReg};
use crate::pipeline::PassDetail;

/// Interval comparisons PhiMemCoalesce may make in one function.
pub const COMPARE_CAP: u64 = 20_000_000;

/// Union-find over vregs with path halving.
#[derive(Clone, Debug)]
pub struct PhiClasses {
    parent: Vec<u32>,
}

impl PhiClasses {
    pub fn new(n: usize) -> PhiClasses {
        PhiClasses {
            parent: (0..n as u32).collect(),
        }
    }

    /// φ-analysis: the classes of the phis of `f`.
    pub fn compute(f: &Function) -> PhiClasses {
        let mut c = PhiClasses::new(f.vregs.len());
        for block in &f.blocks {
            for inst in block.insts.iter().take_while(|i| i.is_phi()) {
                let Some(d) = inst.defs[0].vreg() else {
                    continue;
                };
                for u in inst.use_vregs() {
                    c.union(d, u);
                }
            }
        }
        c
    }

    pub fn find(&mut self, v: VReg) -> VReg {
        let mut x = v.0;
        while let Some(&p) = self.parent.get(x as usize) {
            if p == x {
                break;
            }
            let gp = self.parent[p as usize];
            self.parent[x as usize] = gp;
            x = gp;
        }
        VReg(x)
    }

    /// Merges the classes of `a` and `b`; the smaller number represents the union.
    pub fn union(&mut self, a: VReg, b: VReg) -> VReg {
        let (ra, rb) = (self.find(a), self.find(b));
        let (lo, hi) = if ra.0 <= rb.0 { (ra, rb) } else { (rb, ra) };
        if let Some(p) = self.parent.get_mut(hi.index()) {
            *p = lo.0;
        }
        lo
    }
}

/// The `pereira-phi-mem-coalesce` pass.
pub fn run(f: &mut Function) -> Result<PassDetail, String> {
    let preds = f.predecessors();
    let live = Liveness::compute(f, &preds);
    let iv = Intervals::compute(f, &live, &[]);
    let mut classes = PhiClasses::compute(f);
    // Each class's intervals, kept at its representative.
    let nv = f.vregs.len();
    let mut ranges: Vec<Vec<Range>> = vec![Vec::new(); nv];
    for v in 0..nv {
        let r = classes.find(VReg(v as u32));
        if iv.ranges[v].is_empty() {
            continue;
        }
        ranges[r.index()] = union(&ranges[r.index()], &iv.ranges[v]);
    }
    // Renamings: a removed copy x := y makes x another name of y.
    let mut rename: Vec<Option<VReg>> = vec![None; nv];
    let mut removed = 0u64;
    let mut kept = 0u64;
    let mut compared = 0u64;
    let mut capped = false;
    for b in f.block_ids().collect::<Vec<_>>() {
        for k in 0..f.block(b).insts.len() {
            let inst = &f.block(b).insts[k];
            if inst.opc != Opc::ParCopy || !inst.flags.contains(InstFlags::INSERTED) {
                continue;
            }
            let mut keep = vec![true; inst.defs.len()];
            for (i, (d, u)) in inst.defs.iter().zip(&inst.uses).enumerate() {
                let (Some(x), Some(y)) = (d.vreg(), u.vreg()) else {
                    continue;
                };
                let (qx, qy) = (classes.find(x), classes.find(y));
                if qx != qy {
                    compared += (ranges[qx.index()].len() + ranges[qy.index()].len()) as u64;
                    if compared > COMPARE_CAP {
                        capped = true;
                        continue;
                    }
                    if overlap(&ranges[qx.index()], &ranges[qy.index()]) {
                        continue;
                    }
                    let merged = union(&ranges[qx.index()], &ranges[qy.index()]);
                    let q = classes.union(qx, qy);
                    ranges[qx.index()].clear();
                    ranges[qy.index()].clear();
                    ranges[q.index()] = merged;
                }
                keep[i] = false;
                rename[x.index()] = Some(y);
            }
            let inst = &mut f.block_mut(b).insts[k];
            let mut i = 0;
            inst.defs.retain(|_| {
                i += 1;
                keep[i - 1]
            });
            let mut i = 0;
            inst.uses.retain(|_| {
                i += 1;
                keep[i - 1]
            });
            removed += keep.iter().filter(|&&x| !x).count() as u64;
            kept += keep.iter().filter(|&&x| x).count() as u64;
        }
    }
    apply_renaming(f, &rename);
    for block in &mut f.blocks {
        block
            .insts
            .retain(|i| !(i.opc == Opc::ParCopy && i.defs.is_empty()));
    }
    Ok(vec![
        ("copies_removed", removed),
        ("copies_kept", kept),
        ("capped", u64::from(capped)),
    ])
}

/// Replaces every occurrence of a renamed vreg by its final name (chains followed).
fn apply_renaming(f: &mut Function, rename: &[Option<VReg>]) {
    let resolve = |mut v: VReg| {
        let mut steps = 0;
        while let Some(Some(n)) = rename.get(v.index()) {
            v = *n;
            steps += 1;
            if steps > rename.len() {
                break;
            }
        }
        v
    };
    for block in &mut f.blocks {
        for inst in &mut block.insts {
            for o in inst.defs.iter_mut().chain(inst.uses.iter_mut()) {
                if let Reg::V(v) = o.reg {
                    o.reg = Reg::V(resolve(v));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::parse::parse_function;

    /// Two loops in sequence: `i` counts to 10, then `j` starts from the last `i1` and
    /// counts on. Lifting gives each phi its class: Q_i = {v_i, v_i0, v_i1} and Q_j =
    /// {v_j, v_j0, v_j1}, so spilled, `i` and `j` need two slots. Derived by hand
    /// (§4.4): the six lifted pairs are (v_i0 := c0), (i := v_i), (v_i1 := i1), (v_j0 := i1),
    /// (j := v_j), (v_j1 := j1). No two of c0, i, i1 (loop 1) and j, j1 (loop 2) and the
    /// lifted values are ever live at once (each dies where the next is defined, the
    /// lifted ones live only at a block end or start), so every class intersection is
    /// empty: all six copies go, and the two classes become one — one slot.
    #[test]
    fn two_loops_share_one_class() {
        let src = "mfunc @f st231 {
b0:
  .input
  %0:r = max $r0, #0
  goto b1
b1:
  %1:r = phi [b0: %0], [b1: %2]
  %2:r = add %1, #1
  %3:b = cmpne %2, #10
  br %3, b1
  goto b2
b2:
  %4:r = phi [b1: %2], [b2: %5]
  %5:r = add %4, #1
  %6:b = cmpne %5, #20
  br %6, b2
  goto b3
b3:
  .output %5^$r16
  return
}";
        let mut f = parse_function(src).unwrap();
        super::super::phi_lifting::run(&mut f).unwrap();
        let before = PhiClasses::compute(&f).clone();
        let mut b = before.clone();
        let (vi, vj) = (
            f.blocks[1].insts[0].defs[0].vreg().unwrap(),
            f.blocks[2].insts[0].defs[0].vreg().unwrap(),
        );
        assert_ne!(b.find(vi), b.find(vj), "two classes after lifting");
        let detail = run(&mut f).unwrap();
        assert!(detail.contains(&("copies_removed", 6)), "{detail:?}");
        assert!(detail.contains(&("copies_kept", 0)), "{detail:?}");
        let mut after = PhiClasses::compute(&f);
        let (i, j) = (
            f.blocks[1].insts[0].defs[0].vreg().unwrap(),
            f.blocks[2].insts[0].defs[0].vreg().unwrap(),
        );
        assert_eq!(
            after.find(i),
            after.find(j),
            "one class after PhiMemCoalesce"
        );
        // The original values are the phis' operands again.
        assert_eq!(
            f.blocks[2].insts[0]
                .uses
                .iter()
                .filter_map(|u| u.vreg())
                .filter(|v| v.0 == 2 || v.0 == 5)
                .count(),
            2
        );
    }
}
