//! SSA reconstruction after spilling: a value `v` that the spiller reloaded now has several
//! definitions (its original one, unless it was a memory phi, and one per reload or
//! rematerialisation). Each use of `v` is renamed to the definition that reaches it, and
//! phis are placed where definitions meet — on demand, only in blocks of the iterated
//! dominance frontier of the definitions where `v` is live-in and a use actually needs the
//! merged value (the pruned, lazy variant of the classic algorithm; cf. the SSA book's
//! ch. 5 "SSA reconstruction", used by Hack et al. §3.1 after reload insertion).
//!
//! Preconditions: the CFG is final (no block is added afterwards); the definitions of each
//! value dominate the uses they reach (the spiller guarantees a register definition on
//! every path to a use). A use with no reaching definition is an error, never an undefined
//! value.
//!
//! Complexity: per value, O(uses × dominator-tree climb, with caching) + its IDF; the
//! climbs are cached per block, so the total is near-linear in the function size.

use super::liveness::Liveness;
use crate::analysis::dom::{DomFrontiers, IdfScratch};
use crate::mir::cfg::CfgInfo;
use crate::mir::{BlockId, Function, Imm, Inst, Operand, VReg};

const NONE: u32 = u32::MAX;

/// Extra definitions of values, then [`Reconstruction::run`].
#[derive(Default)]
pub struct Reconstruction {
    /// The value each added definition redefines.
    original_of: Vec<(VReg, VReg)>,
    /// Values whose original definition no longer exists.
    forgotten: Vec<VReg>,
}

impl Reconstruction {
    pub fn new() -> Reconstruction {
        Reconstruction::default()
    }

    /// `new` is another definition of the value `original`.
    pub fn add_definition(&mut self, new: VReg, original: VReg) {
        self.original_of.push((new, original));
    }

    /// `v`'s own definition was deleted (a memory phi): only the added ones remain.
    pub fn forget_original(&mut self, v: VReg) {
        self.forgotten.push(v);
    }

    /// Renames the uses of every value with added definitions; returns the phis inserted.
    pub fn run(self, f: &mut Function) -> Result<usize, String> {
        if self.original_of.is_empty() {
            return Ok(0);
        }
        let info = CfgInfo::compute(f);
        let df = DomFrontiers::compute(&info.cfg, &info.dom);
        let preds = f.predecessors();
        let live = Liveness::compute(f, &preds);
        // Group: original value -> its definitions (block, index, vreg).
        let mut var_of = vec![NONE; f.vregs.len()];
        let mut originals: Vec<VReg> = Vec::new();
        for &(new, orig) in &self.original_of {
            if var_of[orig.index()] == NONE {
                var_of[orig.index()] = originals.len() as u32;
                originals.push(orig);
            }
            var_of[new.index()] = var_of[orig.index()];
        }
        for &v in &self.forgotten {
            if var_of[v.index()] == NONE {
                var_of[v.index()] = originals.len() as u32;
                originals.push(v);
            }
        }
        let nvars = originals.len();
        let mut defs: Vec<Vec<(BlockId, usize, VReg)>> = vec![Vec::new(); nvars];
        let mut uses: Vec<Vec<(BlockId, usize, usize)>> = vec![Vec::new(); nvars];
        for b in f.block_ids() {
            for (k, inst) in f.block(b).insts.iter().enumerate() {
                for d in inst.def_vregs() {
                    if let Some(&x) = var_of.get(d.index()) {
                        if x != NONE && !self.forgotten.contains(&d) {
                            defs[x as usize].push((b, k, d));
                        }
                    }
                }
                for (j, u) in inst.uses.iter().enumerate() {
                    if let Some(v) = u.vreg() {
                        // Only uses of the original name are renamed (reload results are
                        // used by nothing yet).
                        if originals.get(var_of[v.index()] as usize) == Some(&v) {
                            uses[var_of[v.index()] as usize].push((b, k, j));
                        }
                    }
                }
            }
        }
        let mut ctx = Context::new(f.blocks.len());
        let mut new_phis: Vec<(BlockId, Inst)> = Vec::new();
        for (x, &orig) in originals.iter().enumerate() {
            ctx.start(&info, &df, &live, orig, &defs[x]);
            let mut renames: Vec<(BlockId, usize, usize, VReg)> = Vec::new();
            for &(b, k, j) in &uses[x] {
                let inst = &f.block(b).insts[k];
                let reaching = if inst.is_phi() {
                    let p = inst.phi_blocks()[j];
                    ctx.at_end(f, &info, p)?
                } else {
                    ctx.before(f, &info, b, k)?
                };
                renames.push((b, k, j, reaching));
            }
            ctx.finish_phis(f, &info, &preds)?;
            for (b, k, j, r) in renames {
                f.block_mut(b).insts[k].uses[j].reg = r.into();
            }
            new_phis.append(&mut ctx.phis);
        }
        let count = new_phis.len();
        for (b, phi) in new_phis.into_iter().rev() {
            f.block_mut(b).insts.insert(0, phi);
        }
        Ok(count)
    }
}

/// Per-value lookup state, reused across values (generation-stamped caches).
struct Context {
    generation: u32,
    stamp: Vec<u32>,
    entry: Vec<VReg>,
    phi_block: Vec<u32>,
    defs_in_block: Vec<Vec<(usize, VReg)>>,
    touched: Vec<BlockId>,
    /// One scratch for every value's frontier query (its marks are generation stamps).
    idf: IdfScratch,
    var: VReg,
    phis: Vec<(BlockId, Inst)>,
    /// Phis whose operands are still to be found: (index in `phis`).
    pending: Vec<usize>,
}

impl Context {
    fn new(n: usize) -> Context {
        Context {
            generation: 0,
            stamp: vec![0; n],
            entry: vec![VReg(0); n],
            phi_block: vec![0; n],
            defs_in_block: vec![Vec::new(); n],
            touched: Vec::new(),
            idf: IdfScratch::new(),
            var: VReg(0),
            phis: Vec::new(),
            pending: Vec::new(),
        }
    }

    fn start(
        &mut self,
        info: &CfgInfo,
        df: &DomFrontiers,
        live: &Liveness,
        var: VReg,
        defs: &[(BlockId, usize, VReg)],
    ) {
        self.generation += 1;
        self.var = var;
        for b in self.touched.drain(..) {
            self.defs_in_block[b.index()].clear();
        }
        let mut blocks: Vec<crate::ir::BlockId> = Vec::new();
        for &(b, k, v) in defs {
            if self.defs_in_block[b.index()].is_empty() {
                self.touched.push(b);
                blocks.push(crate::ir::BlockId(b.0));
            }
            self.defs_in_block[b.index()].push((k, v));
        }
        for b in &self.touched {
            self.defs_in_block[b.index()].sort_unstable();
        }
        let mut idf = Vec::new();
        self.idf.iterated_frontier(df, &blocks, &mut idf);
        for b in idf {
            let b = BlockId(b.0);
            if live.is_live_in(b, var) && info.is_reachable(b) {
                self.phi_block[b.index()] = self.generation;
            }
        }
    }

    /// The definition reaching the use at instruction `k` of block `b`.
    fn before(
        &mut self,
        f: &mut Function,
        info: &CfgInfo,
        b: BlockId,
        k: usize,
    ) -> Result<VReg, String> {
        if let Some(&(_, v)) = self.defs_in_block[b.index()]
            .iter()
            .rev()
            .find(|(i, _)| *i < k)
        {
            return Ok(v);
        }
        self.at_entry(f, info, b)
    }

    /// The definition live at the end of block `b`.
    fn at_end(&mut self, f: &mut Function, info: &CfgInfo, b: BlockId) -> Result<VReg, String> {
        if let Some(&(_, v)) = self.defs_in_block[b.index()].last() {
            return Ok(v);
        }
        self.at_entry(f, info, b)
    }

    fn at_entry(&mut self, f: &mut Function, info: &CfgInfo, b: BlockId) -> Result<VReg, String> {
        let mut walk: Vec<BlockId> = Vec::new();
        let mut cur = b;
        let found = loop {
            if self.stamp[cur.index()] == self.generation {
                break self.entry[cur.index()];
            }
            if self.phi_block[cur.index()] == self.generation {
                break self.new_phi(f, cur);
            }
            walk.push(cur);
            let Some(up) = info.idom(cur) else {
                return Err(format!(
                    "SSA reconstruction: no definition of {} reaches {b}",
                    self.var
                ));
            };
            if let Some(&(_, v)) = self.defs_in_block[up.index()].last() {
                break v;
            }
            cur = up;
        };
        for w in walk {
            self.stamp[w.index()] = self.generation;
            self.entry[w.index()] = found;
        }
        Ok(found)
    }

    /// A phi for the value at the entry of `b`, its operands filled in later.
    fn new_phi(&mut self, f: &mut Function, b: BlockId) -> VReg {
        let v = f.new_vreg(f.class_of(self.var));
        self.stamp[b.index()] = self.generation;
        self.entry[b.index()] = v;
        self.phis.push((
            b,
            Inst::new(
                crate::mir::Opc::Phi,
                vec![Operand::new(v)],
                vec![],
                Imm::Blocks(vec![]),
            ),
        ));
        self.pending.push(self.phis.len() - 1);
        v
    }

    fn finish_phis(
        &mut self,
        f: &mut Function,
        info: &CfgInfo,
        preds: &[Vec<BlockId>],
    ) -> Result<(), String> {
        while let Some(i) = self.pending.pop() {
            let b = self.phis[i].0;
            let mut blocks = Vec::new();
            let mut ops = Vec::new();
            for &p in &preds[b.index()] {
                if !info.is_reachable(p) {
                    continue;
                }
                let v = self.at_end(f, info, p)?;
                blocks.push(p);
                ops.push(Operand::new(v));
            }
            let phi = &mut self.phis[i].1;
            phi.uses = ops;
            phi.imm = Imm::Blocks(blocks);
        }
        Ok(())
    }
}
