//! Pruned SSA construction for machine functions written in LAI (Cytron et al. 1991 phi
//! placement at iterated dominance frontiers, pruned by liveness; renaming along the
//! dominator tree).
//!
//! Input: a `mir::Function` whose vregs are the LAI's *variables* (a variable may be defined
//! several times; user-written phis are allowed and name variables). Output: every def gets
//! a fresh vreg; phis are inserted only where the variable is live-in; a use pinned
//! `Pin::Var(x)` where `x` is defined by the same instruction (tied operands) is pinned to
//! that definition's new vreg, otherwise to the reaching version of `x`.
//!
//! Errors (instruction index for location): a use with no reaching definition on some path.
//!
//! Complexity: liveness O(variables x blocks) worst case (guarded by a cap), phi placement
//! near-linear, renaming linear; no recursion (explicit dominator-tree stack).

use crate::analysis::dom::{DomFrontiers, IdfScratch};
use crate::ir;
use crate::mir::cfg::CfgInfo;
use crate::mir::*;

/// Largest `variables x blocks` product the liveness pass accepts.
pub const MAX_WORK: usize = 50_000_000;

/// Where an error is: block and instruction index in the input function (phis inserted by
/// this pass are not counted), plus the message.
#[derive(Debug)]
pub struct SsaError {
    pub block: BlockId,
    pub inst: usize,
    pub message: String,
}

/// Rebuilds `f` in SSA form. `names[v]` names variable `v` for messages.
pub fn construct(f: &mut Function, names: &[String]) -> Result<(), SsaError> {
    let nvars = f.vregs.len();
    let nb = f.blocks.len();
    if nvars.saturating_mul(nb) > MAX_WORK {
        return Err(SsaError {
            block: BlockId(0),
            inst: 0,
            message: format!(
                "function too large for SSA construction ({nvars} registers x {nb} blocks)"
            ),
        });
    }
    let info = CfgInfo::compute(f);
    if let Some(b) = f.block_ids().find(|&b| !info.is_reachable(b)) {
        return Err(SsaError {
            block: b,
            inst: 0,
            message: "unreachable code (no path from the entry reaches this block)".into(),
        });
    }
    let preds = f.predecessors();
    // Def blocks and upward-exposed uses per variable.
    let mut def_blocks: Vec<Vec<BlockId>> = vec![vec![]; nvars];
    let mut ue: Vec<Vec<BlockId>> = vec![vec![]; nvars];
    for (bi, b) in f.blocks.iter().enumerate() {
        let bid = BlockId(bi as u32);
        let mut defined: Vec<VReg> = vec![];
        for i in &b.insts {
            if !i.is_phi() {
                for u in i.use_vregs() {
                    if !defined.contains(&u) && ue[u.index()].last() != Some(&bid) {
                        ue[u.index()].push(bid);
                    }
                }
            }
            for d in i.def_vregs() {
                if def_blocks[d.index()].last() != Some(&bid) {
                    def_blocks[d.index()].push(bid);
                }
                defined.push(d);
            }
        }
        // Phi uses are uses at the end of the predecessor.
        for i in b.insts.iter().take_while(|i| i.is_phi()) {
            for (u, p) in i.use_vregs().zip(i.phi_blocks()) {
                ue[u.index()].push(BlockId(p.0 | 0x8000_0000));
            }
        }
    }
    // Live-in sets per variable (only for variables with definitions).
    let mut phis_at: Vec<Vec<VReg>> = vec![vec![]; nb];
    let df = DomFrontiers::compute(&info.cfg, &info.dom);
    let mut scratch = IdfScratch::new();
    let mut idf = Vec::new();
    let mut live_in = vec![false; nb];
    let mut def_here = vec![false; nb];
    for v in 0..nvars {
        if def_blocks[v].is_empty() {
            continue;
        }
        live_in.iter_mut().for_each(|x| *x = false);
        def_here.iter_mut().for_each(|x| *x = false);
        for b in &def_blocks[v] {
            def_here[b.index()] = true;
        }
        let mut work: Vec<BlockId> = vec![];
        for &b in &ue[v] {
            if b.0 & 0x8000_0000 != 0 {
                // live-out of predecessor p
                let p = BlockId(b.0 & 0x7FFF_FFFF);
                if p.index() < nb && !def_here[p.index()] && !live_in[p.index()] {
                    live_in[p.index()] = true;
                    work.push(p);
                }
            } else if !live_in[b.index()] {
                live_in[b.index()] = true;
                work.push(b);
            }
        }
        while let Some(b) = work.pop() {
            for &p in &preds[b.index()] {
                if !def_here[p.index()] && !live_in[p.index()] {
                    live_in[p.index()] = true;
                    work.push(p);
                }
            }
        }
        let defs: Vec<ir::BlockId> = def_blocks[v].iter().map(|b| ir::BlockId(b.0)).collect();
        scratch.iterated_frontier(&df, &defs, &mut idf);
        for b in &idf {
            if live_in[b.index()] {
                phis_at[b.index()].push(VReg(v as u32));
            }
        }
    }
    // Insert the phis (operands filled during renaming), keeping user phis first.
    let mut n_inserted = vec![0usize; nb];
    for (bi, vars) in phis_at.iter().enumerate() {
        let ps = &preds[bi];
        for &v in vars {
            let inst = Inst::new(
                Opc::Phi,
                vec![Operand::new(v)],
                ps.iter().map(|_| Operand::new(v)).collect(),
                Imm::Blocks(ps.clone()),
            );
            f.blocks[bi].insts.insert(0, inst);
            n_inserted[bi] += 1;
        }
    }
    // Renaming: new vreg table.
    let classes: Vec<RegClass> = f.vregs.iter().map(|v| v.class).collect();
    f.vregs.clear();
    let mut stacks: Vec<Vec<VReg>> = vec![vec![]; nvars];
    // The phi operand of each (block, phi, use) is renamed from its predecessor; mark them so
    // the block's own renaming skips phi uses.
    enum Step {
        Enter(BlockId),
        Exit(Vec<usize>),
    }
    let mut todo = vec![Step::Enter(BlockId(0))];
    let mut err: Option<SsaError> = None;
    while let Some(step) = todo.pop() {
        let b = match step {
            Step::Exit(pushed) => {
                for v in pushed {
                    stacks[v].pop();
                }
                continue;
            }
            Step::Enter(b) => b,
        };
        let mut pushed = vec![];
        let block = &mut f.blocks[b.index()];
        for (k, inst) in block.insts.iter_mut().enumerate() {
            let before: Vec<Option<VReg>> = inst
                .uses
                .iter()
                .map(|u| match u.pin {
                    Some(Pin::Var(x)) if !inst.is_phi() => stacks[x.index()].last().copied(),
                    _ => None,
                })
                .collect();
            if !inst.is_phi() {
                for u in inst.uses.iter_mut() {
                    if let Reg::V(x) = u.reg {
                        match stacks[x.index()].last() {
                            Some(&nv) => u.reg = Reg::V(nv),
                            None => {
                                if err.is_none() {
                                    err = Some(SsaError {
                                        block: b,
                                        inst: k.saturating_sub(n_inserted[b.index()]),
                                        message: format!(
                                            "%{} is used before it is defined (on some path to here)",
                                            names[x.index()]
                                        ),
                                    });
                                }
                            }
                        }
                    }
                }
            }
            let mut renamed_defs: Vec<(VReg, VReg)> = vec![];
            for d in inst.defs.iter_mut() {
                if let Reg::V(x) = d.reg {
                    let nv = VReg(f.vregs.len() as u32);
                    f.vregs.push(VRegInfo {
                        class: classes[x.index()],
                    });
                    stacks[x.index()].push(nv);
                    pushed.push(x.index());
                    renamed_defs.push((x, nv));
                    d.reg = Reg::V(nv);
                }
            }
            let is_phi = inst.is_phi();
            for (u, bef) in inst.uses.iter_mut().zip(before) {
                if let (Some(Pin::Var(x)), false) = (u.pin, is_phi) {
                    let p = renamed_defs
                        .iter()
                        .find(|(old, _)| *old == x)
                        .map(|(_, n)| *n)
                        .or(bef);
                    match p {
                        Some(p) => u.pin = Some(Pin::Var(p)),
                        None => {
                            if err.is_none() {
                                err = Some(SsaError {
                                    block: b,
                                    inst: k.saturating_sub(n_inserted[b.index()]),
                                    message: format!(
                                        "pin `^%{}` names a register with no definition here",
                                        names[x.index()]
                                    ),
                                });
                            }
                        }
                    }
                }
            }
            for d in inst.defs.iter_mut() {
                if let Some(Pin::Var(x)) = d.pin {
                    if let Some(&p) = stacks[x.index()].last() {
                        d.pin = Some(Pin::Var(p));
                    }
                }
            }
        }
        // Fill phi operands of successors.
        for s in f.blocks[b.index()].successors() {
            let sb = &mut f.blocks[s.index()];
            let end = sb.phi_end();
            for (pi, inst) in sb.insts[..end].iter_mut().enumerate() {
                let blocks = inst.phi_blocks().to_vec();
                for (u, pb) in inst.uses.iter_mut().zip(blocks) {
                    if pb != b {
                        continue;
                    }
                    if let Reg::V(x) = u.reg {
                        if x.index() >= nvars || u.pin == Some(Pin::Var(VReg(u32::MAX))) {
                            continue;
                        }
                        match stacks[x.index()].last() {
                            Some(&nv) => {
                                u.reg = Reg::V(nv);
                                // Mark as renamed (pin slot is reused, cleared below).
                                u.pin = Some(Pin::Var(VReg(u32::MAX)));
                            }
                            None => {
                                if err.is_none() {
                                    err = Some(SsaError {
                                        block: s,
                                        inst: pi.saturating_sub(n_inserted[s.index()]),
                                        message: format!(
                                            "%{} flows into this phi from {} without a definition",
                                            names[x.index()],
                                            b
                                        ),
                                    });
                                }
                            }
                        }
                    }
                }
            }
        }
        todo.push(Step::Exit(pushed));
        for &c in info.dom.children(ir::BlockId(b.0)).iter().rev() {
            todo.push(Step::Enter(BlockId(c.0)));
        }
    }
    if let Some(e) = err {
        return Err(e);
    }
    for (bi, b) in f.blocks.iter_mut().enumerate() {
        let inserted = n_inserted[bi];
        for (k, i) in b.insts.iter_mut().enumerate().filter(|(_, i)| i.is_phi()) {
            let blocks = i.phi_blocks().to_vec();
            for (u, pb) in i.uses.iter_mut().zip(blocks) {
                if u.pin == Some(Pin::Var(VReg(u32::MAX))) {
                    u.pin = None;
                } else if u.reg.vreg().is_some() {
                    return Err(SsaError {
                        block: BlockId(bi as u32),
                        inst: k.saturating_sub(inserted),
                        message: format!(
                            "phi operand from {pb}, which is not a predecessor of this block"
                        ),
                    });
                }
            }
        }
    }
    Ok(())
}
