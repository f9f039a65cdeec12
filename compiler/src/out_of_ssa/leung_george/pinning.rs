//! Pinning of SSA variables to resources (Rastello et al. §2.1, §4; Leung and George's
//! collect phase) and the incorrect-pinning checker (Fig. 5).
//!
//! A [`Pinning`] is a union-find over the function's vregs and the target's physical
//! registers: the root of a variable's set is its *resource* (a physical register if the set
//! contains one, else a virtual resource named after one of its variables). Each set also
//! records, for the phis whose results it holds, their blocks and their (predecessor,
//! argument) pairs, so that merging never pins two phis of one block (Fig. 5 case 3) or two
//! phi writes of *different* values at the end of one block (the strong interference of
//! Class 3, §3: Algorithm 2's `Variable_stronglyInterfere` returns true only if `a_i ≠ b_j`
//! on the shared predecessor) to one resource. Two phis of different blocks whose arguments
//! from a common predecessor are the same variable may share a resource: that block end
//! then writes the resource once, with that one value.
//!
//! Invariants: a set holds one register class and at most one physical register; a
//! variable defined by an operand pinned to `r` is in `r` (or the pinning is reported
//! incorrect). Complexity: union by size, find by walking (depth O(log n)); the phi block
//! lists are merged as sorted vectors.

use super::liveness::{step_back, Liveness};
use crate::mir::target::{classes, num_regs};
use crate::mir::{Function, Opc, PReg, Pin, RegClass, VReg};
use std::collections::HashMap;

/// Variables grouped into resources (see the module doc).
#[derive(Clone, Debug)]
pub struct Pinning {
    parent: Vec<u32>,
    class: Vec<RegClass>,
    /// Per root: number of vreg members.
    size: Vec<u32>,
    /// Per node: the physical register of a physical node.
    preg: Vec<Option<PReg>>,
    /// Per root: blocks holding a phi whose result is in the set.
    phi_blocks: Vec<Vec<u32>>,
    /// Per root: (block, argument) of each phi write of the set at a block end, sorted; at
    /// most one argument per block ([`NO_ARG`] for an argument that is not a variable).
    phi_preds: Vec<Vec<(u32, u32)>>,
    phys_nodes: HashMap<PReg, u32>,
    nvregs: usize,
}

impl Pinning {
    /// Every variable in its own resource; one node per physical register of the target;
    /// every phi's block and predecessors recorded on its result.
    pub fn new(f: &Function) -> Pinning {
        let n = f.vregs.len();
        let mut p = Pinning {
            parent: (0..n as u32).collect(),
            class: f.vregs.iter().map(|v| v.class).collect(),
            size: vec![1; n],
            preg: vec![None; n],
            phi_blocks: vec![Vec::new(); n],
            phi_preds: vec![Vec::new(); n],
            phys_nodes: HashMap::new(),
            nvregs: n,
        };
        for &c in classes(f.target) {
            for k in 0..num_regs(f.target, c) {
                let r = PReg::new(c, k);
                let node = p.parent.len() as u32;
                p.parent.push(node);
                p.class.push(c);
                p.size.push(0);
                p.preg.push(Some(r));
                p.phi_blocks.push(Vec::new());
                p.phi_preds.push(Vec::new());
                p.phys_nodes.insert(r, node);
            }
        }
        for (bi, b) in f.blocks.iter().enumerate() {
            for phi in b.insts.iter().take_while(|i| i.is_phi()) {
                let Some(d) = phi.defs.first().and_then(|o| o.vreg()) else {
                    continue;
                };
                p.phi_blocks[d.index()].push(bi as u32);
                let preds = &mut p.phi_preds[d.index()];
                for (pb, u) in phi.phi_blocks().iter().zip(&phi.uses) {
                    preds.push((pb.0, u.vreg().map_or(NO_ARG, |v| v.0)));
                }
                preds.sort_unstable();
                preds.dedup();
            }
        }
        p
    }

    fn find(&self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            x = self.parent[x as usize];
        }
        x
    }

    /// The resource (root) of any node: a variable's index or a physical node.
    pub fn find_root(&self, x: u32) -> u32 {
        self.find(x)
    }

    /// The resource of variable `v`.
    pub fn res(&self, v: VReg) -> u32 {
        self.find(v.0)
    }

    /// The node of physical register `r` (None if the target has no such register).
    pub fn phys_node(&self, r: PReg) -> Option<u32> {
        self.phys_nodes.get(&r).map(|&n| self.find(n))
    }

    /// The resource a pinned operand must occupy.
    pub fn pin_resource(&self, pin: Pin) -> u32 {
        match pin {
            Pin::Phys(r) => self.phys_node(r).expect("pin to a register of the target"),
            Pin::Var(d) => self.res(d),
        }
    }

    /// Number of variables in resource (root) `r`.
    pub fn members(&self, r: u32) -> u32 {
        self.size[r as usize]
    }

    pub fn phys(&self, r: u32) -> Option<PReg> {
        self.preg[r as usize]
    }

    pub fn is_phys(&self, r: u32) -> bool {
        self.preg[r as usize].is_some()
    }

    pub fn class(&self, r: u32) -> RegClass {
        self.class[r as usize]
    }

    /// The variable naming a virtual resource (None for a physical one).
    pub fn root_vreg(&self, r: u32) -> Option<VReg> {
        ((r as usize) < self.nvregs).then_some(VReg(r))
    }

    /// Variables sharing their resource with something else (another variable or a
    /// register).
    pub fn shared_vars(&self, f: &Function) -> usize {
        (0..f.vregs.len() as u32)
            .filter(|&v| {
                let r = self.find(v);
                self.size[r as usize] > 1 || self.is_phys(r)
            })
            .count()
    }

    /// Merges the resources of nodes `a` and `b` if that is a correct pinning: one class, at
    /// most one physical register, no two phis of one block (Class 4 / Fig. 5 case 3), no two
    /// phi writes of different values at the end of one block (Class 3 / Fig. 5 case 6;
    /// identical arguments are exempt, as in Algorithm 2's `Variable_stronglyInterfere`).
    /// Returns whether they are (now) one resource.
    pub fn try_union(&mut self, a: u32, b: u32) -> bool {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return true;
        }
        let (ia, ib) = (ra as usize, rb as usize);
        if self.class[ia] != self.class[ib]
            || (self.preg[ia].is_some() && self.preg[ib].is_some())
            || intersects(&self.phi_blocks[ia], &self.phi_blocks[ib])
            || phi_writes_conflict(&self.phi_preds[ia], &self.phi_preds[ib])
        {
            return false;
        }
        // A physical node stays the root; otherwise the larger set.
        let (root, child) = if self.preg[ia].is_some()
            || (self.preg[ib].is_none() && self.size[ia] >= self.size[ib])
        {
            (ia, ib)
        } else {
            (ib, ia)
        };
        self.parent[child] = root as u32;
        self.size[root] += self.size[child];
        let blocks = std::mem::take(&mut self.phi_blocks[child]);
        merge_sorted(&mut self.phi_blocks[root], &blocks);
        let preds = std::mem::take(&mut self.phi_preds[child]);
        self.phi_preds[root].extend_from_slice(&preds);
        self.phi_preds[root].sort_unstable();
        self.phi_preds[root].dedup();
        true
    }
}

#[cfg(test)]
impl Pinning {
    /// Forgets the phi records, so that tests can build incorrect pinnings on purpose.
    pub(crate) fn phi_blocks_clear_for_test(&mut self) {
        self.phi_blocks.iter_mut().for_each(Vec::clear);
        self.phi_preds.iter_mut().for_each(Vec::clear);
    }
}

fn intersects(a: &[u32], b: &[u32]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}

/// Argument key of a phi operand that is not a variable: never identical to another one.
const NO_ARG: u32 = u32::MAX;

/// Would two sets of phi writes `(block, argument)` (each sorted) write one resource with
/// two values at the end of some block? True if a block appears in both with different
/// arguments, or with an argument that is not a variable. O(|a| log |b|).
fn phi_writes_conflict(a: &[(u32, u32)], b: &[(u32, u32)]) -> bool {
    a.iter().any(|&(block, arg)| {
        let from = b.partition_point(|&(x, _)| x < block);
        b[from..]
            .iter()
            .take_while(|&&(x, _)| x == block)
            .any(|&(_, other)| other != arg || arg == NO_ARG)
    })
}

fn merge_sorted(into: &mut Vec<u32>, from: &[u32]) {
    into.extend_from_slice(from);
    into.sort_unstable();
    into.dedup();
}

/// Variables the pinning phases leave alone: those defined or used by a psi, defined by a
/// guarded (partial) operation, or defined by an operand with a pin (their resource is
/// fixed by that pin).
fn unpinnable(f: &Function) -> (Vec<bool>, Vec<bool>) {
    let n = f.vregs.len();
    let mut partial = vec![false; n];
    let mut def_pinned = vec![false; n];
    for b in &f.blocks {
        for i in &b.insts {
            let guarded = i.flags.contains(crate::mir::InstFlags::GUARDED);
            for o in &i.defs {
                if let Some(v) = o.vreg() {
                    partial[v.index()] |= guarded || i.opc == Opc::Psi;
                    def_pinned[v.index()] |= o.pin.is_some();
                }
            }
            if i.opc == Opc::Psi {
                for v in i.use_vregs() {
                    partial[v.index()] = true;
                }
            }
        }
    }
    (partial, def_pinned)
}

/// `pinning_CSSA`: the result and the arguments of each phi in one resource, where correct
/// (see [`Pinning::try_union`]); variables whose resource is fixed by a def pin, and psi or
/// guarded values, are left out (their phi operands get copies).
pub fn pinning_cssa(f: &Function, p: &mut Pinning) {
    let (partial, def_pinned) = unpinnable(f);
    let ok = |v: VReg| !partial[v.index()] && !def_pinned[v.index()];
    for b in &f.blocks {
        for phi in b.insts.iter().take_while(|i| i.is_phi()) {
            let Some(d) = phi.defs.first().and_then(|o| o.vreg()) else {
                continue;
            };
            if !ok(d) {
                continue;
            }
            for a in phi.use_vregs() {
                if ok(a) {
                    p.try_union(d.0, a.0);
                }
            }
        }
    }
}

/// `pinning_ABI` (Leung and George's collect phase): a variable defined by an operand pinned
/// to `r` goes into `r`; a use pinned to `r` puts its variable into `r` when it is the
/// variable's last use (it dies there), the variable is alone in its resource and not
/// partial; a tied use that dies at its operation shares one resource with the def when
/// either of them is alone (so a dying argument register can be reused by the tied def) —
/// except when the use's variable is in a physical register that is overwritten while it
/// is live (the mark phase run on the def pins kills it): that variable will be repaired
/// and the tied use will read its repair copy, so pinning the def to the register would
/// only force a copy back into it; left alone, the def can be coalesced with the repair
/// copy (Rastello et al. Fig. 13 / [LIM2]: Leung and George pin no definition from a use).
/// Merges are made only if correct ([`Pinning::try_union`]); any other pinned use will get
/// a copy.
///
/// Complexity: one walk of the function, plus one mark phase when it has tied uses.
pub fn pinning_abi(f: &Function, live: &Liveness, p: &mut Pinning) {
    let (partial, _) = unpinnable(f);
    for b in &f.blocks {
        for i in &b.insts {
            for o in &i.defs {
                if let (Some(v), Some(Pin::Phys(r))) = (o.vreg(), o.pin) {
                    if let Some(n) = p.phys_nodes.get(&r).copied() {
                        p.try_union(v.0, n);
                    }
                }
            }
        }
    }
    let has_ties = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .any(|i| i.uses.iter().any(|o| matches!(o.pin, Some(Pin::Var(_)))));
    // Variables overwritten in their register under the def pins alone (calls, other defs
    // and pinned-use copies of that register): the mark phase's verdict, computed once.
    let killed_in_reg: Vec<bool> = if has_ties {
        super::mark(f, live, p)
            .iter()
            .enumerate()
            .map(|(v, k)| !k.is_empty() && p.is_phys(p.res(VReg(v as u32))))
            .collect()
    } else {
        Vec::new()
    };
    let mut set = live.empty_set();
    for (bi, b) in f.blocks.iter().enumerate() {
        live.block_live_out(bi, &mut set);
        for i in b.insts[b.phi_end()..].iter().rev() {
            for o in &i.uses {
                let (Some(v), Some(pin)) = (o.vreg(), o.pin) else {
                    continue;
                };
                if set.contains(v) || partial[v.index()] {
                    continue;
                }
                let lone = |p: &Pinning, x: VReg| {
                    let r = p.res(x);
                    p.members(r) == 1 && !p.is_phys(r)
                };
                match pin {
                    // Only a lone variable joins a register: merging a whole web into
                    // a register would make every member's live range precoloured.
                    Pin::Phys(r) => {
                        if let (true, Some(&n)) = (lone(p, v), p.phys_nodes.get(&r)) {
                            p.try_union(v.0, n);
                        }
                    }
                    // A tie: the dying use and the def share a resource; either side may
                    // bring its resource if the other is a lone variable.
                    // Not when v is killed in its register (see the doc comment).
                    Pin::Var(d) => {
                        let repaired = killed_in_reg.get(v.index()).copied().unwrap_or(false);
                        if (lone(p, v) || lone(p, d)) && !partial[d.index()] && !repaired {
                            p.try_union(v.0, d.0);
                        }
                    }
                }
            }
            step_back(i, &mut set);
        }
    }
}

/// The incorrect pinnings of Fig. 5 (and the strong interference of §3, Class 3) present in
/// `p` for `f`; empty if the pinning is correct.
/// * Case 1: one operation defines two different variables in one resource.
/// * Case 2: one operation needs two different variables in one resource at its entry
///   (two uses pinned to one resource).
/// * Case 3: two phis of one block have their results in one resource.
/// * Case 5: a phi operand pinned to another resource than the phi's result.
/// * Case 6 / Class 3: two phis of different successors of one block write one resource
///   with different values at the end of that block.
/// * A def pinned to a register whose variable is not in that register.
pub fn check_pinning(f: &Function, p: &Pinning) -> Vec<String> {
    let mut errs = Vec::new();
    let at = |bi: usize, i: &crate::mir::Inst, m: String| {
        format!("b{bi}: `{}`: {m}", crate::mir::print::inst_to_string(f, i))
    };
    let mut phi_writes: Vec<Vec<(u32, Option<crate::mir::Reg>)>> = vec![Vec::new(); f.blocks.len()];
    for (bi, b) in f.blocks.iter().enumerate() {
        let mut phi_res: Vec<(u32, VReg)> = Vec::new();
        for i in &b.insts {
            if i.is_phi() {
                let Some(d) = i.defs.first().and_then(|o| o.vreg()) else {
                    continue;
                };
                let r = p.res(d);
                if let Some((_, e)) = phi_res.iter().find(|x| x.0 == r) {
                    errs.push(at(
                        bi,
                        i,
                        format!("case 3: phis {e} and {d} in one resource"),
                    ));
                }
                phi_res.push((r, d));
                for (pb, u) in i.phi_blocks().iter().zip(&i.uses) {
                    if let Some(pin) = u.pin {
                        if p.pin_resource(pin) != r {
                            errs.push(at(bi, i, "case 5: phi argument pinned elsewhere".into()));
                        }
                    }
                    if let Some(w) = phi_writes.get_mut(pb.index()) {
                        w.push((r, Some(u.reg)));
                    }
                }
                continue;
            }
            let mut defs: Vec<(u32, VReg)> = Vec::new();
            for o in &i.defs {
                let Some(v) = o.vreg() else { continue };
                let r = p.res(v);
                if let Some((_, e)) = defs.iter().find(|x| x.0 == r && x.1 != v) {
                    errs.push(at(
                        bi,
                        i,
                        format!("case 1: {e} and {v} defined in one resource"),
                    ));
                }
                defs.push((r, v));
                if let Some(Pin::Phys(want)) = o.pin {
                    if p.phys(r) != Some(want) {
                        errs.push(at(bi, i, format!("{v} is not in its def pin {want:?}")));
                    }
                }
            }
            let mut uses: Vec<(u32, VReg)> = Vec::new();
            for o in &i.uses {
                let (Some(v), Some(pin)) = (o.vreg(), o.pin) else {
                    continue;
                };
                let r = p.pin_resource(pin);
                if let Some((_, e)) = uses.iter().find(|x| x.0 == r && x.1 != v) {
                    errs.push(at(
                        bi,
                        i,
                        format!("case 2: {e} and {v} used in one resource"),
                    ));
                }
                uses.push((r, v));
            }
        }
    }
    for (bi, w) in phi_writes.iter_mut().enumerate() {
        w.sort_unstable();
        w.dedup();
        for k in 1..w.len() {
            if w[k].0 == w[k - 1].0 {
                errs.push(format!(
                    "b{bi}: case 6: two phi writes of one resource at the block end"
                ));
            }
        }
    }
    errs
}

/// `pinning_SP` (Rastello et al. §2.2, §5, Appendix A and Fig. 3 / Fig. 15): the versions
/// of the stack pointer are SSA variables when LAI code writes them as such (`.input
/// %sp0=$r12`, `add %sp1^$r12 = %sp0, -16`, phis of SP versions); "all variables renamed from
/// SP must be renamed back to SP". The *SP web* is every variable with an operand pinned to
/// the stack pointer (`mir::target::stack_pointer`), closed under phis (result and
/// arguments) and under copies whose destination is in the web (their source joins it); a
/// copy whose source is an SP version but whose destination is not otherwise in the web
/// (a frame pointer `fp = sp`) is an ordinary value (Fig. 15, unfolded). Every member is put into the SP
/// resource. The pinning is incorrect — an error naming the place, never a silent repair —
/// when two members would be live at once in SP (Fig. 3: after a phi, two SP versions live
/// together; Fig. 15: the parallel copies of a block end write SP with two values):
/// * an operation defines a member while another member is live after it (or writes SP
///   itself while a member is live);
/// * at a block end, a successor's phi of the web writes SP with its argument while another
///   member is live after the block (or two such phis write different values);
/// * at a block entry, a phi of the web defines SP while another member is live-in (or two
///   phis of one block are in the web, Fig. 5 case 3).
///
/// Returns the number of variables pinned to SP. Complexity: O(operands) for the web, one
/// liveness computation and one backward walk (only when the web is not empty), each check
/// O(web members).
pub fn pinning_sp(f: &Function, p: &mut Pinning) -> Result<u64, String> {
    let sp = crate::mir::target::stack_pointer(f.target);
    let web = sp_web(f, sp);
    if web.is_empty() {
        return Ok(0);
    }
    let name = crate::mir::target::reg_name(f.target, sp);
    let in_web = {
        let mut m = vec![false; f.vregs.len()];
        for v in &web {
            m[v.index()] = true;
        }
        m
    };
    for &v in &web {
        if f.class_of(v) != sp.class {
            return Err(format!(
                "pinning_SP: @{}: {v} is a version of {name} but not of its register class",
                f.name
            ));
        }
    }
    check_sp_web(f, &web, &in_web, &name)?;
    let node = p
        .phys_node(sp)
        .expect("the stack pointer is a register of the target");
    for &v in &web {
        if !p.try_union(v.0, node) {
            return Err(format!(
                "pinning_SP: @{}: {v} cannot be pinned to {name} (its resource holds another \
                 register or a phi of the same block)",
                f.name
            ));
        }
    }
    Ok(web.len() as u64)
}

/// The SP web: variables with an operand pinned to `sp`, closed under phis (both ways) and
/// under copies from destination to source.
fn sp_web(f: &Function, sp: PReg) -> Vec<VReg> {
    let n = f.vregs.len();
    let mut adj: Vec<Vec<VReg>> = vec![Vec::new(); n];
    let mut seen = vec![false; n];
    let mut work: Vec<VReg> = Vec::new();
    for i in f.blocks.iter().flat_map(|b| &b.insts) {
        for o in i.defs.iter().chain(&i.uses) {
            if let (Some(v), Some(Pin::Phys(r))) = (o.vreg(), o.pin) {
                if r == sp && v.index() < n && !seen[v.index()] {
                    seen[v.index()] = true;
                    work.push(v);
                }
            }
        }
        if i.is_phi() || i.opc == Opc::Copy {
            let Some(d) = i.defs.first().and_then(|o| o.vreg()) else {
                continue;
            };
            for u in i.use_vregs().take(if i.is_phi() { usize::MAX } else { 1 }) {
                if d.index() < n && u.index() < n {
                    adj[d.index()].push(u);
                    // A copy joins the web only through its destination (a copy feeding an
                    // SP phi, e.g. one Sreedhar inserted): a copy *of* SP such as a frame
                    // pointer `fp = sp` is a new value, not an SP version (Fig. 15).
                    if i.is_phi() {
                        adj[u.index()].push(d);
                    }
                }
            }
        }
    }
    let mut web = Vec::new();
    while let Some(v) = work.pop() {
        web.push(v);
        for &w in &adj[v.index()] {
            if !seen[w.index()] {
                seen[w.index()] = true;
                work.push(w);
            }
        }
    }
    web.sort_unstable();
    web
}

/// The conflicts of the SP web (see [`pinning_sp`]): the first one found, as an error.
fn check_sp_web(f: &Function, web: &[VReg], in_web: &[bool], sp: &str) -> Result<(), String> {
    let spreg = crate::mir::target::stack_pointer(f.target);
    let live = Liveness::compute(f);
    let mut set = live.empty_set();
    let other_live = |set: &super::liveness::LiveSet, except: &[VReg]| {
        web.iter()
            .copied()
            .find(|&w| set.contains(w) && !except.contains(&w))
    };
    let fail = |bi: usize, what: String| {
        Err(format!(
            "pinning_SP: @{} b{bi}: incorrect pinning to {sp} (Rastello et al. Fig. 3): {what}",
            f.name
        ))
    };
    for (bi, b) in f.blocks.iter().enumerate() {
        // Phi writes of SP at the end of the block.
        live.block_end_after_phi_uses(f, bi, &mut set);
        let mut written: Option<crate::mir::Reg> = None;
        for s in b.successors() {
            for phi in f.block(s).insts.iter().take_while(|i| i.is_phi()) {
                let Some(d) = phi.defs.first().and_then(|o| o.vreg()) else {
                    continue;
                };
                if !in_web[d.index()] {
                    continue;
                }
                let Some(k) = phi.phi_blocks().iter().position(|x| x.index() == bi) else {
                    continue;
                };
                let arg = phi.uses[k];
                if written.is_some_and(|w| w != arg.reg) {
                    return fail(bi, format!("two phis write {sp} with different values"));
                }
                written = Some(arg.reg);
                let keep: Vec<VReg> = arg.vreg().into_iter().collect();
                if let Some(w) = other_live(&set, &keep) {
                    return fail(
                        bi,
                        format!("the phi {d} of {s} writes {sp} at the end of the block while {w} is live"),
                    );
                }
            }
        }
        // Ordinary operations, backwards.
        live.block_live_out(bi, &mut set);
        for i in b.insts[b.phi_end()..].iter().rev() {
            let defs: Vec<VReg> = i.def_vregs().collect();
            let writes_sp = defs.iter().any(|d| in_web[d.index()])
                || i.defs.iter().any(|o| o.reg.preg() == Some(spreg));
            if writes_sp {
                if let Some(w) = other_live(&set, &defs) {
                    return fail(
                        bi,
                        format!(
                            "`{}` writes {sp} while {w} is live",
                            crate::mir::print::inst_to_string(f, i)
                        ),
                    );
                }
            }
            step_back(i, &mut set);
        }
        // Phi definitions at the entry.
        let phi_defs: Vec<VReg> = b
            .insts
            .iter()
            .take_while(|i| i.is_phi())
            .filter_map(|i| i.defs.first().and_then(|o| o.vreg()))
            .filter(|d| in_web[d.index()])
            .collect();
        if phi_defs.len() > 1 {
            return fail(
                bi,
                format!("two phis {} and {} define {sp}", phi_defs[0], phi_defs[1]),
            );
        }
        if let Some(&d) = phi_defs.first() {
            if let Some(w) = other_live(&set, &phi_defs) {
                return fail(bi, format!("the phi {d} defines {sp} while {w} is live-in"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "fig5_tests.rs"]
mod fig5_tests;
