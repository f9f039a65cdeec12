//! Liveness of SSA variables with the phi semantics of Rastello et al., Appendix A: a phi
//! defines its result at the entry of its block, and uses each argument at the end of the
//! corresponding predecessor (after the predecessor's ordinary operations, in parallel with
//! the other phis' uses, before its control operations).
//!
//! `live_in[b]`: variables live at the entry of `b` *after* its phis, phi results excluded.
//! `live_out[b]`: variables live at the end of `b`, phi arguments flowing out of `b`
//! included.
//!
//! Representation (issue 27): the per-block sets are the sparse sorted lists of
//! [`crate::mir::ssa_liveness`] (path exploration from each use up to the definition), so
//! memory is Σ |live-in| + |live-out| instead of the blocks × variables bit matrix this
//! module used to keep (1.8 GB on a 3·10^4-statement loop nest). The walks of the mark phase
//! use one [`LiveSet`], a sparse set whose clear and iteration cost the number of members,
//! not the number of variables.
//!
//! Preconditions: strict SSA (every use of a variable outside a phi is dominated by its one
//! definition; variables without a definition are live up to the entry).
//! Complexity: O(instructions + Σ |live-in| + Σ |live-out|); queries are binary searches.

use crate::mir::ssa_liveness::Liveness as SsaLiveness;
use crate::mir::{BlockId, Function, Inst, VReg};

/// A set of vregs with O(1) insert, remove and membership and O(members) clear and
/// iteration (Briggs & Torczon's sparse set). Iteration order is insertion order with
/// swap-removal; callers must not depend on it.
#[derive(Clone, Debug)]
pub struct LiveSet {
    members: Vec<VReg>,
    /// Position of each vreg in `members` (meaningful only when it points back).
    slot: Vec<u32>,
}

impl LiveSet {
    pub fn new(n: usize) -> LiveSet {
        LiveSet {
            members: Vec::new(),
            slot: vec![0; n],
        }
    }
    pub fn contains(&self, v: VReg) -> bool {
        let s = self.slot[v.index()] as usize;
        self.members.get(s) == Some(&v)
    }
    pub fn insert(&mut self, v: VReg) {
        if !self.contains(v) {
            self.slot[v.index()] = self.members.len() as u32;
            self.members.push(v);
        }
    }
    pub fn remove(&mut self, v: VReg) {
        if !self.contains(v) {
            return;
        }
        let s = self.slot[v.index()] as usize;
        let last = *self.members.last().expect("a member exists");
        self.members.swap_remove(s);
        if last != v {
            self.slot[last.index()] = s as u32;
        }
    }
    pub fn clear(&mut self) {
        self.members.clear();
    }
    pub fn len(&self) -> usize {
        self.members.len()
    }
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
    /// The members, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = VReg> + '_ {
        self.members.iter().copied()
    }
    /// The members sorted by vreg number.
    pub fn to_sorted_vec(&self) -> Vec<VReg> {
        let mut v = self.members.clone();
        v.sort_unstable();
        v
    }
    /// The number of vregs the set can hold.
    pub fn capacity(&self) -> usize {
        self.slot.len()
    }
}

/// Block-level liveness (see the module doc).
#[derive(Clone, Debug)]
pub struct Liveness {
    sets: SsaLiveness,
    nvregs: usize,
}

/// Backward transfer over one non-phi instruction: defs die, uses become live.
pub fn step_back(i: &Inst, set: &mut LiveSet) {
    for d in i.def_vregs() {
        set.remove(d);
    }
    for u in i.use_vregs() {
        set.insert(u);
    }
}

impl Liveness {
    pub fn compute(f: &Function) -> Liveness {
        Liveness {
            sets: SsaLiveness::compute(f, &f.predecessors()),
            nvregs: f.vregs.len(),
        }
    }

    /// The number of blocks and of vregs the sets were computed for.
    pub fn shape(&self) -> (usize, usize) {
        (self.sets.live_in.len(), self.nvregs)
    }

    /// Is `v` live at the entry of block `bi`, after its phis?
    pub fn is_live_in(&self, bi: usize, v: VReg) -> bool {
        self.sets.is_live_in(BlockId(bi as u32), v)
    }

    /// Is `v` live at the end of block `bi` (phi arguments flowing out included)?
    pub fn is_live_out(&self, bi: usize, v: VReg) -> bool {
        self.sets.is_live_out(BlockId(bi as u32), v)
    }

    /// Live at the entry of block `bi`, after its phis, sorted.
    pub fn live_in(&self, bi: usize) -> &[VReg] {
        &self.sets.live_in[bi]
    }

    /// Live at the end of block `bi`, sorted.
    pub fn live_out(&self, bi: usize) -> &[VReg] {
        &self.sets.live_out[bi]
    }

    pub fn empty_set(&self) -> LiveSet {
        LiveSet::new(self.nvregs)
    }

    /// `set` := live at the end of block `bi`.
    pub fn block_live_out(&self, bi: usize, set: &mut LiveSet) {
        set.clear();
        for &v in self.live_out(bi) {
            set.insert(v);
        }
    }

    /// `set` := what is live right after the virtual phi uses at the end of `bi`: the
    /// successors' live-in plus the uses of `bi`'s control operations.
    pub fn block_end_after_phi_uses(&self, f: &Function, bi: usize, set: &mut LiveSet) {
        set.clear();
        let b = &f.blocks[bi];
        for s in b.successors() {
            for &v in self.live_in(s.index()) {
                set.insert(v);
            }
        }
        for i in &b.insts[b.terminator_start()..] {
            for u in i.use_vregs() {
                set.insert(u);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::Function;

    /// The dense fixed point this module computed before issue 27 (kept as the reference):
    /// blocks in reverse order until stable, `out = phi_out ∪ ∪ in(s)`, back over the
    /// non-phi instructions, phi results removed.
    fn dense_reference(f: &Function) -> (Vec<Vec<VReg>>, Vec<Vec<VReg>>) {
        let nb = f.blocks.len();
        let succs = f.successors();
        let mut phi_out = vec![std::collections::BTreeSet::new(); nb];
        for b in &f.blocks {
            for phi in b.insts.iter().take_while(|i| i.is_phi()) {
                for (p, u) in phi.phi_blocks().iter().zip(&phi.uses) {
                    if let (Some(v), Some(set)) = (u.vreg(), phi_out.get_mut(p.index())) {
                        set.insert(v);
                    }
                }
            }
        }
        let mut live_in = vec![std::collections::BTreeSet::new(); nb];
        let mut live_out = phi_out.clone();
        let mut changed = true;
        while changed {
            changed = false;
            for bi in (0..nb).rev() {
                let mut out = phi_out[bi].clone();
                for s in &succs[bi] {
                    out.extend(live_in[s.index()].iter().copied());
                }
                let mut set = out.clone();
                let b = &f.blocks[bi];
                for i in b.insts[b.phi_end()..].iter().rev() {
                    for d in i.def_vregs() {
                        set.remove(&d);
                    }
                    set.extend(i.use_vregs());
                }
                for phi in b.insts.iter().take_while(|i| i.is_phi()) {
                    for d in phi.def_vregs() {
                        set.remove(&d);
                    }
                }
                live_out[bi] = out;
                if live_in[bi] != set {
                    live_in[bi] = set;
                    changed = true;
                }
            }
        }
        let list = |s: Vec<std::collections::BTreeSet<VReg>>| {
            s.into_iter().map(|b| b.into_iter().collect()).collect()
        };
        (list(live_in), list(live_out))
    }

    /// Random programs (structured and random-CFG ones) at -O2 and -O0, selected for both
    /// targets: every block's sets equal the dense fixed point's.
    #[test]
    fn sparse_sets_equal_the_dense_fixed_point_on_random_ssa() {
        use crate::pipeline::{mid_level_passes, run_passes, OptLevel};
        use crate::ssa::random::{random_cfg_program, random_program, ProgramShape, Rng};
        for seed in 0..30u64 {
            let mut rng = Rng::new(seed);
            let base = if seed % 3 == 0 {
                random_cfg_program(&mut rng, 1 + (seed % 9) as usize, 50)
            } else {
                random_program(&mut rng, &ProgramShape::small())
            };
            for level in [OptLevel::O2, OptLevel::O0] {
                let mut m = base.clone();
                run_passes(&mut m, &mid_level_passes(level), &mut |_, _| Ok(())).unwrap();
                crate::backend::add_runtime(&mut m, level).unwrap();
                for target in [simulator::isa::Target::St231, simulator::isa::Target::St120] {
                    let mm = crate::isel::select_module(&m, target, &Default::default()).unwrap();
                    for f in &mm.functions {
                        let live = Liveness::compute(f);
                        let (din, dout) = dense_reference(f);
                        for bi in 0..f.blocks.len() {
                            let at = format!("seed {seed} {level:?} {target:?} @{} b{bi}", f.name);
                            assert_eq!(live.live_in(bi), &din[bi][..], "{at} in");
                            assert_eq!(live.live_out(bi), &dout[bi][..], "{at} out");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn live_set_insert_remove_clear() {
        let mut s = LiveSet::new(10);
        for v in [3, 7, 1, 7] {
            s.insert(VReg(v));
        }
        assert_eq!(s.len(), 3);
        s.remove(VReg(3));
        s.remove(VReg(9));
        assert!(!s.contains(VReg(3)) && s.contains(VReg(7)) && s.contains(VReg(1)));
        assert_eq!(s.to_sorted_vec(), vec![VReg(1), VReg(7)]);
        s.remove(VReg(1));
        s.remove(VReg(7));
        assert!(s.is_empty() && !s.contains(VReg(7)));
        s.insert(VReg(7));
        s.clear();
        assert!(!s.contains(VReg(7)) && s.is_empty());
    }
}
