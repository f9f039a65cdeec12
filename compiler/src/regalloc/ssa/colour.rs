//! Colouring the chordal interference graph of an SSA program along the dominance tree:
//! Hack, Grund & Goos §4 and Algorithm 1 (`COLOR-PROGRAM` / `COLOR-RECURSIVE`). No
//! interference graph is built: each block starts with the colours of its live-in values
//! (coloured at their definitions, which dominate the block), frees the colour of a value
//! at its last use and gives each definition a colour not in use. Theorem 2 makes the
//! dominance pre-order a reverse perfect elimination order, so after `ssa-spill` no more
//! colours than the budget are ever needed (Theorem 1).
//!
//! Constraints (§6): a definition pinned to a register takes it; a tied definition takes
//! the register of its tied use (which dies there, `ssa-constraints` saw to it); the
//! results of a Perm (`ParCopy` in front of a constrained instruction) are coloured pinned
//! ones first, then the others with a register outside the call clobbers (when the
//! constrained instruction is a call) and outside the instruction's pinned results — and,
//! since the Perm only exists to let values change register, each keeps its operand's
//! register when that is allowed and free. Phi results take the first free register of the
//! budget: `hack` does no coalescing (§5.3's recolouring, still to come, would improve it).
//!
//! Output: the **allocated-SSA form** (`Form::AllocatedSsa`): every virtual-register operand
//! pinned to its physical register (`Pin::Phys`), tied uses keeping `Pin::Var`.
//!
//! Complexity: O(instructions × registers of a class) — finding a free colour scans the
//! budget, `|budget| ≤ 64`.

use super::liveness::Liveness;
use super::{is_call, Budget, RegMask};
use crate::mir::cfg::CfgInfo;
use crate::mir::{target, BlockId, Function, Inst, Opc, PReg, Pin, VReg};
use crate::pipeline::PassDetail;
use crate::regalloc::RegallocOptions;

/// The `ssa-colour` pass.
pub fn run(f: &mut Function, opts: &RegallocOptions) -> Result<PassDetail, String> {
    let colours = colour_program(f, opts)?;
    let used = apply_colours(f, &colours)?;
    Ok(vec![("regs_used", used as u64)])
}

/// `ssa-colour-phi` (issue 21's `BASE_phi` family): as `ssa-colour`, each value biased
/// towards the register already given to a phi-related value (its phi web: a phi's result
/// and operands, transitively) when that register is free at its definition.
pub fn run_coalescing(f: &mut Function, opts: &RegallocOptions) -> Result<PassDetail, String> {
    let colours = colour_program_with(f, opts, Some(phi_webs(f)))?;
    let used = apply_colours(f, &colours)?;
    Ok(vec![("regs_used", used as u64)])
}

/// Union-find of the phi webs: the representative of each vreg.
fn phi_webs(f: &Function) -> Vec<usize> {
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let mut parent: Vec<usize> = (0..f.vregs.len()).collect();
    for inst in f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| i.is_phi())
    {
        let Some(d) = inst.defs.first().and_then(|o| o.vreg()) else {
            continue;
        };
        for u in inst.use_vregs() {
            let (a, b) = (find(&mut parent, d.index()), find(&mut parent, u.index()));
            parent[a] = b;
        }
    }
    (0..parent.len()).map(|x| find(&mut parent, x)).collect()
}

/// `COLOR-PROGRAM`: a colour for every vreg defined in a reachable block.
pub fn colour_program(f: &Function, opts: &RegallocOptions) -> Result<Vec<Option<PReg>>, String> {
    colour_program_with(f, opts, None)
}

/// `COLOR-PROGRAM`, with phi webs to bias the choice towards (`None`: no bias).
fn colour_program_with(
    f: &Function,
    opts: &RegallocOptions,
    webs: Option<Vec<usize>>,
) -> Result<Vec<Option<PReg>>, String> {
    let budget = Budget::new(f.target, opts);
    let info = CfgInfo::compute(f);
    let preds = f.predecessors();
    let live = Liveness::compute(f, &preds);
    let mut colour: Vec<Option<PReg>> = vec![None; f.vregs.len()];
    let order: Vec<BlockId> = info.dom.preorder().iter().map(|b| BlockId(b.0)).collect();
    let mut bias = webs.map(|w| (w, vec![None; f.vregs.len()]));
    for b in order {
        colour_block(f, b, &budget, &live, &mut colour, bias.as_mut())?;
    }
    Ok(colour)
}

/// `COLOR-RECURSIVE`'s body for one block.
fn colour_block(
    f: &Function,
    b: BlockId,
    budget: &Budget,
    live: &Liveness,
    colour: &mut [Option<PReg>],
    mut bias: Option<&mut (Vec<usize>, Vec<Option<PReg>>)>,
) -> Result<(), String> {
    let block = f.block(b);
    let mut in_use = RegMask::default();
    for &v in &live.live_in[b.index()] {
        let c = colour[v.index()]
            .ok_or_else(|| format!("{v} is live into {b} but its definition was not coloured"))?;
        in_use.add(c);
    }
    let (dies, dead_defs) = last_uses(f, live, b);
    for (k, inst) in block.insts.iter().enumerate() {
        // A psi's result is coloured while its operands still hold their registers (its
        // lowering writes the result before reading the later operands).
        let late_free = inst.opc == Opc::Psi;
        if !inst.is_phi() && !late_free {
            for &v in &dies[k] {
                if let Some(c) = colour[v.index()] {
                    in_use.remove(c);
                }
            }
        }
        let next = block.insts.get(k + 1);
        let avoid = if inst.opc == Opc::ParCopy {
            perm_avoid(f, next)
        } else {
            RegMask::default()
        };
        // Pinned definitions first, then tied ones (their register is the dying tied use's,
        // which a free definition must not take), then the rest; of a Perm's results, those
        // that die at the constrained instruction come last, and only those that live
        // across it must avoid its clobbers and pinned results.
        let tied = |v: Option<VReg>| {
            v.is_some_and(|v| inst.uses.iter().any(|u| u.pin == Some(Pin::Var(v))))
        };
        let dies_next = |v: Option<VReg>| {
            inst.opc == Opc::ParCopy
                && v.is_some_and(|v| dies.get(k + 1).is_some_and(|d| d.contains(&v)))
        };
        let mut order: Vec<usize> = (0..inst.defs.len()).collect();
        order.sort_by_key(|&i| {
            if matches!(inst.defs[i].pin, Some(Pin::Phys(_))) {
                0
            } else if tied(inst.defs[i].vreg()) {
                1
            } else if !dies_next(inst.defs[i].vreg()) {
                2
            } else {
                3
            }
        });
        let no_avoid = RegMask::default();
        for i in order {
            let o = inst.defs[i];
            let Some(v) = o.vreg() else { continue };
            let avoid = if dies_next(Some(v)) {
                &no_avoid
            } else {
                &avoid
            };
            let pref = bias.as_ref().and_then(|(web, c)| c[web[v.index()]]);
            let chosen = choose(f, inst, i, v, budget, &in_use, avoid, colour, pref)
                .ok_or_else(|| format!("no register left for {v} in {b} (colouring failed)"))?;
            colour[v.index()] = Some(chosen);
            if let Some((web, c)) = bias.as_mut() {
                c[web[v.index()]].get_or_insert(chosen);
            }
            in_use.add(chosen);
        }
        if late_free {
            for &v in &dies[k] {
                if let Some(c) = colour[v.index()] {
                    in_use.remove(c);
                }
            }
        }
        // Definitions never used free their register at once.
        for &v in &dead_defs[k] {
            if let Some(c) = colour[v.index()] {
                in_use.remove(c);
            }
        }
    }
    Ok(())
}

/// Registers a Perm result that lives across the next instruction must not take.
fn perm_avoid(f: &Function, next: Option<&Inst>) -> RegMask {
    let mut a = RegMask::default();
    let Some(next) = next else { return a };
    if is_call(next) {
        for &r in target::call_clobbers(f.target) {
            a.add(r);
        }
    }
    for o in &next.defs {
        if let Some(Pin::Phys(p)) = o.pin {
            a.add(p);
        }
    }
    a
}

#[allow(clippy::too_many_arguments)]
fn choose(
    f: &Function,
    inst: &Inst,
    i: usize,
    v: VReg,
    budget: &Budget,
    in_use: &RegMask,
    avoid: &RegMask,
    colour: &[Option<PReg>],
    pref: Option<PReg>,
) -> Option<PReg> {
    let c = f.class_of(v);
    if let Some(Pin::Phys(p)) = inst.defs[i].pin {
        return (!in_use.has(p)).then_some(p);
    }
    // A tied definition shares the register of its (dying) tied use.
    for u in &inst.uses {
        if u.pin == Some(Pin::Var(v)) {
            let uv = u.vreg()?;
            let p = colour[uv.index()]?;
            return (!in_use.has(p)).then_some(p);
        }
    }
    let free = |p: PReg| !in_use.has(p) && !avoid.has(p);
    if inst.opc == Opc::ParCopy {
        // Keep the operand's register when possible (the Perm only permits a change).
        if let Some(src) = inst.uses[i].vreg().and_then(|u| colour[u.index()]) {
            if free(src) && budget.contains(src) {
                return Some(src);
            }
        }
    }
    if let Some(p) = pref.filter(|&p| p.class == c && free(p) && budget.contains(p)) {
        return Some(p);
    }
    budget
        .regs(c)
        .iter()
        .map(|&n| PReg::new(c, n))
        .find(|&p| free(p))
}

/// For each instruction of block `b`: the vregs whose last use it is, and its definitions
/// that are never used.
pub fn last_uses(f: &Function, live: &Liveness, b: BlockId) -> (Vec<Vec<VReg>>, Vec<Vec<VReg>>) {
    let block = f.block(b);
    let mut cur: Vec<VReg> = live.live_out[b.index()].clone();
    let mut dies = vec![Vec::new(); block.insts.len()];
    let mut dead = vec![Vec::new(); block.insts.len()];
    for (k, inst) in block.insts.iter().enumerate().rev() {
        for d in inst.def_vregs() {
            match cur.binary_search(&d) {
                Ok(i) => {
                    cur.remove(i);
                }
                Err(_) => dead[k].push(d),
            }
        }
        if inst.is_phi() {
            continue;
        }
        for u in inst.use_vregs() {
            if let Err(i) = cur.binary_search(&u) {
                cur.insert(i, u);
                dies[k].push(u);
            }
        }
    }
    (dies, dead)
}

/// Pins every vreg operand to its colour (tied uses keep their `Pin::Var`): the
/// allocated-SSA form. Returns the number of distinct allocatable registers used.
pub fn apply_colours(f: &mut Function, colour: &[Option<PReg>]) -> Result<usize, String> {
    let mut used: Vec<PReg> = Vec::new();
    for block in &mut f.blocks {
        for inst in &mut block.insts {
            for o in inst.defs.iter_mut().chain(inst.uses.iter_mut()) {
                let Some(v) = o.vreg() else { continue };
                let c = colour
                    .get(v.index())
                    .copied()
                    .flatten()
                    .ok_or_else(|| format!("{v} has no register"))?;
                if !used.contains(&c) {
                    used.push(c);
                }
                if !matches!(o.pin, Some(Pin::Var(_))) {
                    o.pin = Some(Pin::Phys(c));
                }
            }
        }
    }
    Ok(used.len())
}
