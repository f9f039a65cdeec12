//! Liveness of an SSA machine function as sparse per-block sets (no blocks × registers
//! matrix): live-in and live-out lists of virtual registers, computed variable by variable
//! by path exploration from each use up to the definition (Appel's "liveness by paths"; the
//! SSA book's ch. 9 §9.3 variant for SSA). A phi operand is a use at the end of its
//! predecessor; phi results are defined at the entry of their block, so they are in no
//! live-in set of their own block.
//!
//! Preconditions: `f` is in SSA form (one definition per vreg); unreachable blocks may be
//! present (they get sets like any other block).
//! Complexity: O(instructions + Σ |live-in| + Σ |live-out|) time and memory.

use crate::mir::{BlockId, Function, RegClass, VReg};

const NONE: u32 = u32::MAX;

/// Live-in and live-out sets of every block, each sorted by vreg number.
#[derive(Clone, Debug, Default)]
pub struct Liveness {
    pub live_in: Vec<Vec<VReg>>,
    pub live_out: Vec<Vec<VReg>>,
}

impl Liveness {
    /// Computes the sets of `f`; `preds` are the predecessors of every block.
    pub fn compute(f: &Function, preds: &[Vec<BlockId>]) -> Liveness {
        let n = f.blocks.len();
        let nv = f.vregs.len();
        let mut def_block = vec![NONE; nv];
        // (vreg, block where the value must be live: at its entry (false) or exit (true))
        let mut uses: Vec<(u32, u32, bool)> = Vec::new();
        for b in f.block_ids() {
            for inst in &f.block(b).insts {
                for v in inst.def_vregs() {
                    if v.index() < nv {
                        def_block[v.index()] = b.0;
                    }
                }
            }
        }
        for b in f.block_ids() {
            for inst in &f.block(b).insts {
                if inst.is_phi() {
                    for (o, &p) in inst.uses.iter().zip(inst.phi_blocks()) {
                        if let Some(v) = o.vreg() {
                            uses.push((v.0, p.0, true));
                        }
                    }
                } else {
                    for v in inst.use_vregs() {
                        if v.index() < nv && def_block[v.index()] != b.0 {
                            uses.push((v.0, b.0, false));
                        }
                    }
                }
            }
        }
        uses.sort_unstable();
        uses.dedup();
        let mut live = Liveness {
            live_in: vec![Vec::new(); n],
            live_out: vec![Vec::new(); n],
        };
        let mut mark_in = vec![NONE; n];
        let mut mark_out = vec![NONE; n];
        let mut work: Vec<u32> = Vec::new();
        for &(v, b, at_exit) in &uses {
            let def = def_block.get(v as usize).copied().unwrap_or(NONE);
            let vreg = VReg(v);
            if at_exit {
                live.mark_out(&mut mark_out, b, vreg);
                if b != def {
                    work.push(b);
                }
            } else {
                work.push(b);
            }
            while let Some(b) = work.pop() {
                if mark_in[b as usize] == v {
                    continue;
                }
                mark_in[b as usize] = v;
                live.live_in[b as usize].push(vreg);
                for &p in &preds[b as usize] {
                    live.mark_out(&mut mark_out, p.0, vreg);
                    if p.0 != def && mark_in[p.index()] != v {
                        work.push(p.0);
                    }
                }
            }
        }
        // Uses were visited in vreg order, so every list is already sorted.
        live
    }

    fn mark_out(&mut self, mark_out: &mut [u32], b: u32, v: VReg) {
        if mark_out[b as usize] != v.0 {
            mark_out[b as usize] = v.0;
            self.live_out[b as usize].push(v);
        }
    }

    pub fn is_live_in(&self, b: BlockId, v: VReg) -> bool {
        self.live_in[b.index()].binary_search(&v).is_ok()
    }

    pub fn is_live_out(&self, b: BlockId, v: VReg) -> bool {
        self.live_out[b.index()].binary_search(&v).is_ok()
    }

    /// Largest number of simultaneously live values of each class in `classes` over all
    /// labels of `f` (§2, Theorem 1: the chromatic number of the SSA interference graph). At
    /// an instruction both what is live before it and its definitions together with what is
    /// live after it are counted, so a definition that is never used still needs a register.
    pub fn maxlive(&self, f: &Function, classes: &[RegClass]) -> Vec<u32> {
        let mut best = vec![0u32; classes.len()];
        let slot = |c: RegClass| classes.iter().position(|&x| x == c);
        let mut cur: Vec<VReg> = Vec::new();
        let mut count = vec![0u32; classes.len()];
        for b in f.block_ids() {
            cur.clear();
            cur.extend_from_slice(&self.live_out[b.index()]);
            count.iter_mut().for_each(|c| *c = 0);
            for &v in &cur {
                if let Some(i) = slot(f.class_of(v)) {
                    count[i] += 1;
                }
            }
            let mut note = |count: &[u32], extra: &[u32]| {
                for i in 0..best.len() {
                    best[i] = best[i].max(count[i] + extra[i]);
                }
            };
            let zero = vec![0u32; classes.len()];
            note(&count, &zero);
            let mut dead_defs = vec![0u32; classes.len()];
            for inst in f.block(b).insts.iter().rev() {
                dead_defs.iter_mut().for_each(|c| *c = 0);
                for d in inst.def_vregs() {
                    match cur.binary_search(&d) {
                        Ok(i) => {
                            cur.remove(i);
                        }
                        Err(_) => {
                            if let Some(i) = slot(f.class_of(d)) {
                                dead_defs[i] += 1;
                            }
                            continue;
                        }
                    }
                    if let Some(i) = slot(f.class_of(d)) {
                        count[i] -= 1;
                        dead_defs[i] += 1;
                    }
                }
                // definitions with what is live after the instruction
                note(&count, &dead_defs);
                if inst.is_phi() {
                    continue;
                }
                for u in inst.use_vregs() {
                    if let Err(i) = cur.binary_search(&u) {
                        cur.insert(i, u);
                        if let Some(i) = slot(f.class_of(u)) {
                            count[i] += 1;
                        }
                    }
                }
                note(&count, &zero);
            }
        }
        best
    }
}
