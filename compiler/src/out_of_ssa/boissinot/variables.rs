//! The variables of the translation, their definition points and values, and the
//! intersection and interference tests of SSA book ch. 21 §21.2–21.3 ("Value-Based
//! Interference", "Interference Check").
//!
//! Variables are the function's virtual registers (index = vreg number) followed, when the
//! phi copies are virtualised, by one *virtual* variable per phi result (`a0'`, defined at the
//! phi's point) and one per (phi, distinct predecessor) (`ai'`, defined at the late point of
//! the predecessor). A virtual variable has no vreg, no instruction and no use list: its live
//! range is local and known (Alg. 21.5's "local virtual variables"), see
//! [`Variables::live_after`].
//!
//! Program points (positions inside a block, four per instruction so that the copy points
//! fall between instructions): the phis of a block define at 0; instruction `k` at `4k+4`;
//! the early point (after the phis) is `4·phi_end+1`; the late point (before the control
//! operations) is `4·terminator_start+3`; a phi argument in multiplexing mode is used at
//! [`EXIT`]. The early point always comes strictly before the late point, also in a block
//! holding only phis and a jump: the two parallel copies there run one after the other, so
//! a phi result copied in at the early point is live while the late copy reads its sources
//! (fuzz seed 7000169: with one shared point, a phi result was coalesced with a variable
//! the late copy still read). A def tied to a use (`Pin::Var`) is placed at `4k+3`,
//! *before* its operation: the out-of-SSA lowering copies the tied use into the def's
//! register before the operation, so the def's register is written while the operation's
//! uses are still live.

use crate::mir::cfg::CfgInfo;
use crate::mir::livecheck::{LiveCheck, UseSite, EXIT};
use crate::mir::{BlockId, Function, InstFlags, Opc, Pin, Reg, VReg};

/// "No such variable / block".
pub(super) const NONE: u32 = u32::MAX;

/// What a variable is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// A virtual register of the function.
    Real,
    /// Virtual copy target `ai'` of a phi argument (live from the late point of its
    /// predecessor to the edge).
    ArgPrime,
    /// Virtual phi result `a0'` (live from the phi point to the early point).
    ResPrime,
}

/// A phi and its (possibly virtual) copy variables, for materialisation.
#[derive(Clone, Debug)]
pub(super) struct PhiCopies {
    pub block: BlockId,
    /// The real result `a0` (virtual mode) or the phi's own result (explicit mode).
    pub result: VReg,
    /// The variable the phi defines: `a0'`.
    pub res_prime: u32,
    /// Per distinct predecessor: (predecessor, the argument, `ai'`).
    pub args: Vec<(BlockId, Reg, u32)>,
}

/// The variable table (see the module doc).
pub(super) struct Variables<'a> {
    pub nreal: usize,
    pub kind: Vec<Kind>,
    pub def_block: Vec<u32>,
    pub def_pos: Vec<u32>,
    /// Never coalesced (see [`Variables::build`]).
    pub excluded: Vec<bool>,
    /// `V(x)`: the variable whose definition gives `x`'s value (`x` itself without copies).
    pub value: Vec<u32>,
    use_start: Vec<u32>,
    uses: Vec<UseSite>,
    /// Per block: dominator-tree pre-order number (`NONE` if unreachable), early point.
    pre: Vec<u32>,
    early: Vec<u32>,
    pub info: &'a CfgInfo,
    pub live: LiveCheck<'a>,
    /// Queries answered (statistics).
    pub intersect_queries: std::cell::Cell<u64>,
}

/// The point of instruction `k` of a block.
fn inst_point(k: usize) -> u32 {
    4 * k as u32 + 4
}

/// The late point of block `b`: after its last non-control instruction, before its control
/// operations.
fn late_point(f: &Function, b: usize) -> u32 {
    4 * f.blocks[b].terminator_start() as u32 + 3
}

/// The early point of a block: after its phis, before its first other instruction; always
/// before its late point.
fn early_point(phi_end: usize) -> u32 {
    4 * phi_end as u32 + 1
}

impl<'a> Variables<'a> {
    /// Builds the table. `phis` lists the virtual variables (empty in explicit mode: the
    /// copies are then real instructions). `virtual_phis`: phi results are defined at the
    /// early point and phi arguments used at the late point (copy mode, Def. 21.2); else a
    /// phi defines at 0 and its arguments are used at the predecessors' exits (multiplexing
    /// mode, Def. 21.1). `value_based`: number values (`Bo_val*`), else every variable is its
    /// own value (`Bo_int`).
    ///
    /// Excluded (kept alone, their copies materialised): variables defined in unreachable
    /// blocks or never defined; results of psis and guarded (partial) definitions and psi
    /// arguments (the psi lowering writes the psi's result early, in place of argument
    /// definitions). O(instructions + operands), plus the sort-free value numbering along
    /// the dominator tree.
    pub fn build(
        f: &Function,
        info: &'a CfgInfo,
        phis: &[PhiCopies],
        nvirtual: usize,
        virtual_phis: bool,
        value_based: bool,
    ) -> Variables<'a> {
        let nreal = f.vregs.len();
        let n = nreal + nvirtual;
        let nb = f.blocks.len();
        let pre: Vec<u32> = (0..nb)
            .map(|b| {
                info.dom
                    .pre_number(crate::ir::BlockId(b as u32))
                    .unwrap_or(NONE)
            })
            .collect();
        let early: Vec<u32> = f.blocks.iter().map(|b| early_point(b.phi_end())).collect();
        let mut v = Variables {
            nreal,
            kind: vec![Kind::Real; n],
            def_block: vec![NONE; n],
            def_pos: vec![NONE; n],
            excluded: vec![false; n],
            value: (0..n as u32).collect(),
            use_start: Vec::new(),
            uses: Vec::new(),
            pre,
            early,
            info,
            live: LiveCheck::new(info),
            intersect_queries: std::cell::Cell::new(0),
        };
        v.scan_defs_and_uses(f, virtual_phis);
        for p in phis {
            let r = p.res_prime as usize;
            v.kind[r] = Kind::ResPrime;
            v.def_block[r] = p.block.0;
            v.def_pos[r] = 0;
            for &(pred, _, a) in &p.args {
                let a = a as usize;
                v.kind[a] = Kind::ArgPrime;
                v.def_block[a] = pred.0;
                v.def_pos[a] = late_point(f, pred.index());
            }
        }
        for x in 0..n {
            let b = v.def_block[x];
            if b == NONE || v.pre[b as usize] == NONE {
                v.excluded[x] = true;
            }
        }
        if value_based {
            v.number_values(f, phis);
        }
        v
    }

    /// Definition points, use sites (CSR) and the psi/guard exclusions of the real variables.
    fn scan_defs_and_uses(&mut self, f: &Function, virtual_phis: bool) {
        let nreal = self.nreal;
        let mut count = vec![0u32; nreal + 1];
        for i in f.blocks.iter().flat_map(|b| &b.insts) {
            for u in i.use_vregs() {
                if u.index() < nreal {
                    count[u.index()] += 1;
                }
            }
        }
        let mut start = vec![0u32; nreal + 1];
        for x in 0..nreal {
            start[x + 1] = start[x] + count[x];
        }
        let mut fill = start.clone();
        let mut uses = vec![
            UseSite {
                block: BlockId(0),
                pos: 0
            };
            start[nreal] as usize
        ];
        for (bi, blk) in f.blocks.iter().enumerate() {
            let b = BlockId(bi as u32);
            for (k, i) in blk.insts.iter().enumerate() {
                let at = inst_point(k);
                let partial = i.flags.contains(InstFlags::GUARDED) || i.opc == Opc::Psi;
                for o in &i.defs {
                    let Some(d) = o.vreg().filter(|d| d.index() < nreal) else {
                        continue;
                    };
                    let pos = if i.is_phi() {
                        if virtual_phis {
                            self.early[bi]
                        } else {
                            0
                        }
                    } else if i.uses.iter().any(|u| u.pin == Some(Pin::Var(d))) {
                        at - 1
                    } else {
                        at
                    };
                    self.def_block[d.index()] = b.0;
                    self.def_pos[d.index()] = pos;
                    self.excluded[d.index()] |= partial;
                }
                let phi_preds = i.phi_blocks();
                for (j, o) in i.uses.iter().enumerate() {
                    let Some(u) = o.vreg().filter(|u| u.index() < nreal) else {
                        continue;
                    };
                    let site = if i.is_phi() {
                        let p = phi_preds[j];
                        let pos = if virtual_phis {
                            late_point(f, p.index())
                        } else {
                            EXIT
                        };
                        UseSite { block: p, pos }
                    } else {
                        UseSite { block: b, pos: at }
                    };
                    uses[fill[u.index()] as usize] = site;
                    fill[u.index()] += 1;
                    if i.opc == Opc::Psi {
                        self.excluded[u.index()] = true;
                    }
                }
            }
        }
        self.use_start = start;
        self.uses = uses;
    }

    /// Value numbering on SSA (§21.2): along the dominator tree, `V(b) = V(a)` for a copy
    /// `b = a` (parallel copies pair by pair), else `V(b) = b`; a virtual phi result is its
    /// own value and the real result copies it; a virtual argument copy has its argument's
    /// value. Guarded copies are partial definitions: their own value.
    fn number_values(&mut self, f: &Function, phis: &[PhiCopies]) {
        let nreal = self.nreal;
        for p in phis {
            // The real result is defined by the virtual copy `a0 = a0'` (set first: copies
            // of it may follow).
            if p.result.index() < nreal && p.res_prime as usize >= nreal {
                self.value[p.result.index()] = p.res_prime;
            }
        }
        for &b in self.info.dom.preorder() {
            for i in &f.blocks[b.index()].insts {
                let is_copy = matches!(i.opc, Opc::Copy | Opc::ParCopy)
                    && !i.flags.contains(InstFlags::GUARDED);
                if !is_copy {
                    continue;
                }
                for (d, s) in i.defs.iter().zip(&i.uses) {
                    if let (Some(d), Some(s)) = (d.vreg(), s.vreg()) {
                        if d.index() < nreal && s.index() < nreal {
                            self.value[d.index()] = self.value[s.index()];
                        }
                    }
                }
            }
        }
        for p in phis {
            for &(_, a, prime) in &p.args {
                if let Some(a) = a.vreg().filter(|a| a.index() < nreal) {
                    self.value[prime as usize] = self.value[a.index()];
                }
            }
        }
    }

    pub fn len(&self) -> usize {
        self.kind.len()
    }

    pub fn uses_of(&self, x: usize) -> &[UseSite] {
        if x >= self.nreal {
            return &[];
        }
        &self.uses[self.use_start[x] as usize..self.use_start[x + 1] as usize]
    }

    /// Dominance order key: dominator-tree pre-order of the block, then position, then
    /// number (variables defined at one point are ordered arbitrarily, §21.3).
    pub fn key(&self, x: u32) -> (u32, u32, u32) {
        let b = self.def_block[x as usize];
        let pre = if b == NONE {
            NONE
        } else {
            self.pre[b as usize]
        };
        (pre, self.def_pos[x as usize], x)
    }

    /// Does `t`'s definition dominate `v`'s? (`t` comes first in [`Self::key`] order.)
    pub fn dominates(&self, t: u32, v: u32) -> bool {
        let (bt, bv) = (self.def_block[t as usize], self.def_block[v as usize]);
        self.info.dominates(BlockId(bt), BlockId(bv))
    }

    /// Do the live ranges of `a` and `b` intersect? Under strict SSA, iff the earlier one
    /// (whose definition dominates the other's) is live just after the other's definition;
    /// two variables defined at the same point always do (a parallel definition writes both).
    pub fn intersect(&self, a: u32, b: u32) -> bool {
        self.intersect_queries.set(self.intersect_queries.get() + 1);
        let (x, y) = if self.key(a) <= self.key(b) {
            (a as usize, b as usize)
        } else {
            (b as usize, a as usize)
        };
        let (bx, by) = (self.def_block[x], self.def_block[y]);
        if bx == by && self.def_pos[x] == self.def_pos[y] {
            return true;
        }
        if !self.info.dominates(BlockId(bx), BlockId(by)) {
            return false;
        }
        self.live_after(x, BlockId(by), self.def_pos[y])
    }

    /// Is `x` live just after point `p` of block `b` (a point its definition dominates)?
    /// For the virtual variables this is Alg. 21.5's case analysis: `ai'` lives from the late
    /// point of its predecessor to the edge, `a0'` from the phi point to the early point.
    pub fn live_after(&self, x: usize, b: BlockId, p: u32) -> bool {
        match self.kind[x] {
            Kind::ArgPrime => b.0 == self.def_block[x] && p >= self.def_pos[x],
            Kind::ResPrime => b.0 == self.def_block[x] && p < self.early[b.index()],
            Kind::Real => {
                let uses = self.uses_of(x);
                uses.iter().any(|u| u.block == b && u.pos > p)
                    || self
                        .live
                        .is_live_out(x as u32, BlockId(self.def_block[x]), uses, b)
            }
        }
    }

    /// Value-based interference (§21.2): intersecting live ranges and different values.
    /// (The traversals of [`super::congruence`] test the two halves separately.)
    #[cfg(test)]
    pub fn interfere(&self, a: u32, b: u32) -> bool {
        self.value[a as usize] != self.value[b as usize] && self.intersect(a, b)
    }
}
