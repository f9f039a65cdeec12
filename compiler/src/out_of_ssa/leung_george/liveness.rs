//! Liveness of SSA variables with the phi semantics of Rastello et al., Appendix A: a phi
//! defines its result at the entry of its block, and uses each argument at the end of the
//! corresponding predecessor (after the predecessor's ordinary operations, in parallel with
//! the other phis' uses, before its control operations).
//!
//! `live_in[b]`: variables live at the entry of `b` *after* its phis, phi results excluded.
//! `live_out[b]`: variables live at the end of `b`, phi arguments flowing out of `b`
//! included. Iterative bit-set dataflow (blocks in reverse order until stable):
//! O(iterations × blocks × vregs / 64).

use crate::mir::{Function, Inst, VReg};

/// A dense set of vregs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    pub fn new(n: usize) -> BitSet {
        BitSet {
            words: vec![0; n.div_ceil(64)],
        }
    }
    pub fn insert(&mut self, v: VReg) {
        self.words[v.index() / 64] |= 1 << (v.index() % 64);
    }
    pub fn remove(&mut self, v: VReg) {
        self.words[v.index() / 64] &= !(1 << (v.index() % 64));
    }
    pub fn contains(&self, v: VReg) -> bool {
        self.words[v.index() / 64] & (1 << (v.index() % 64)) != 0
    }
    pub fn copy_from(&mut self, o: &BitSet) {
        self.words.copy_from_slice(&o.words);
    }
    /// `self |= o`; true if `self` changed.
    pub fn union_with(&mut self, o: &BitSet) -> bool {
        let mut changed = false;
        for (a, b) in self.words.iter_mut().zip(&o.words) {
            let n = *a | b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }
    pub fn iter(&self) -> impl Iterator<Item = VReg> + '_ {
        self.words.iter().enumerate().flat_map(|(k, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros();
                w &= w - 1;
                Some(VReg(k as u32 * 64 + b))
            })
        })
    }
}

/// Block-level liveness (see the module doc).
#[derive(Clone, Debug)]
pub struct Liveness {
    pub live_in: Vec<BitSet>,
    pub live_out: Vec<BitSet>,
    nvregs: usize,
}

/// Backward transfer over one non-phi instruction: defs die, uses become live.
pub fn step_back(i: &Inst, set: &mut BitSet) {
    for d in i.def_vregs() {
        set.remove(d);
    }
    for u in i.use_vregs() {
        set.insert(u);
    }
}

impl Liveness {
    pub fn compute(f: &Function) -> Liveness {
        let n = f.vregs.len();
        let nb = f.blocks.len();
        let succs = f.successors();
        // Phi arguments flowing out of each block.
        let mut phi_out = vec![BitSet::new(n); nb];
        for b in &f.blocks {
            for phi in b.insts.iter().take_while(|i| i.is_phi()) {
                for (p, u) in phi.phi_blocks().iter().zip(&phi.uses) {
                    if let (Some(v), Some(set)) = (u.vreg(), phi_out.get_mut(p.index())) {
                        set.insert(v);
                    }
                }
            }
        }
        let mut live = Liveness {
            live_in: vec![BitSet::new(n); nb],
            live_out: phi_out.clone(),
            nvregs: n,
        };
        let mut set = BitSet::new(n);
        let mut changed = true;
        while changed {
            changed = false;
            for bi in (0..nb).rev() {
                let mut out = phi_out[bi].clone();
                for s in &succs[bi] {
                    out.union_with(&live.live_in[s.index()]);
                }
                set.copy_from(&out);
                let b = &f.blocks[bi];
                for i in b.insts[b.phi_end()..].iter().rev() {
                    step_back(i, &mut set);
                }
                for phi in b.insts.iter().take_while(|i| i.is_phi()) {
                    for d in phi.def_vregs() {
                        set.remove(d);
                    }
                }
                live.live_out[bi] = out;
                if live.live_in[bi] != set {
                    live.live_in[bi].copy_from(&set);
                    changed = true;
                }
            }
        }
        live
    }

    pub fn empty_set(&self) -> BitSet {
        BitSet::new(self.nvregs)
    }

    /// `set` := live at the end of block `bi`.
    pub fn block_live_out(&self, bi: usize, set: &mut BitSet) {
        set.copy_from(&self.live_out[bi]);
    }

    /// `set` := what is live right after the virtual phi uses at the end of `bi`: the
    /// successors' live-in plus the uses of `bi`'s control operations.
    pub fn block_end_after_phi_uses(&self, f: &Function, bi: usize, set: &mut BitSet) {
        set.clear();
        let b = &f.blocks[bi];
        for s in b.successors() {
            set.union_with(&self.live_in[s.index()]);
        }
        for i in &b.insts[b.terminator_start()..] {
            for u in i.use_vregs() {
                set.insert(u);
            }
        }
    }
}
