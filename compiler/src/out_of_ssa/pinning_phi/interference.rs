//! Interferences between SSA variables and between resources, as `pinning_phi` needs them
//! (Rastello, de Ferrière, Guillon, LIP RR-2005-34, §3.2–3.3; Algorithm 2's
//! `Variable_kills`, `Variable_stronglyInterfere`, `Resource_killed`, `Resource_interfere`;
//! Algorithm 4's optimistic and pessimistic `Variable_kills`).
//!
//! # The classes of §3.2 (Fig. 7)
//! * **Class 1** — `x` and `y` are live at one point and the definition of `x` dominates that
//!   of `y`: pinned together, `y`'s definition overwrites `x` while `x` is live ("the
//!   definition of `x` is killed by `y`"; `x` needs a repair copy). With the phi semantics
//!   of Appendix A, "live after the definition of `y`" is: `x` live at the entry of `y`'s
//!   block after its phis if `y` is a phi, else `x` used later in `y`'s block or live out of
//!   it (live-out includes the phi arguments read at the block end).
//! * **Class 2** — `y = phi(.., z : C, ..)` writes `y`'s resource at the end of `C`: every
//!   `x ≠ z` still live there (after the parallel phi uses: the successors' live-in plus the
//!   control operations' uses) is killed by `y`.
//! * **Class 3** — two phis with a common predecessor write their resources at its end; one
//!   resource would receive two values: a *strong* interference (an incorrect pinning, Fig. 5
//!   case 6). As in Algorithm 2's `Variable_stronglyInterfere` ("if `a_i ≠ b_j` return
//!   true"), identical arguments on the common predecessor are exempt: the block end writes
//!   the resource once, with one value ([`Pinning::try_union`] makes the same decision).
//! * **Class 4** — two phis of one block (Fig. 5 case 3): strong.
//! * Variables defined by one operation (Fig. 5 case 1) and two different physical registers
//!   strongly interfere.
//!
//! # Renaming-constraint writes (an addition the machine level needs)
//! Leung and George's mark phase also writes a resource where the paper's model has no
//! variable definition: a call writes every register it clobbers, a use pinned to register
//! `r` is copied into `r` right before its operation, and a tied use is copied into its
//! definition's resource before the operation. A variable live across such a write would be
//! killed if it joined that resource, so [`Facts`] records, per variable, the physical
//! registers written while it is live ([`Facts::crosses`]), and a tied definition also kills
//! the other variables its operation reads. These are the exact write points of
//! `leung_george::mark`, so "no new killed variable" here means "no new repair copy" there.
//!
//! # Complexity
//! [`Facts::compute`]: one backward walk per block with a live bit set, O(instructions ×
//! live) for the pinned-use and call points (as the mark phase). `Variable_kills` is O(uses
//! of the variable in one block); `Resource_interfere(A, B)` is O(|A|·|B|) pair tests and
//! is budgeted by the caller.

use crate::mir::cfg::CfgInfo;
use crate::mir::target::call_clobbers;
use crate::mir::{BlockId, Control, Function, InstFlags, Opc, PReg, Pin, VReg};
use crate::out_of_ssa::leung_george::liveness::{step_back, Liveness};
use crate::out_of_ssa::leung_george::Pinning;

use super::PhiVariant;

/// "No such block / phi".
pub(super) const NONE: u32 = u32::MAX;

/// Where a variable is defined.
#[derive(Clone, Copy, Debug)]
pub(super) struct Def {
    /// Defining block (`NONE` if the variable has no definition).
    pub block: u32,
    /// Index of the defining instruction in its block; -1 for a phi (block entry).
    pub pos: i32,
    /// Index into [`Facts::phis`] if defined by a phi, else `NONE`.
    pub phi: u32,
    /// Defined by an operation with a tied use (`Pin::Var`) of this definition.
    pub tied: bool,
    /// The vreg of that tied use (`NONE` if none): it dies into this definition, so its use
    /// there does not keep it live after the definition.
    pub tied_src: u32,
}

/// A phi's block and its (predecessor, argument) pairs.
#[derive(Clone, Debug)]
pub(super) struct PhiInfo {
    pub block: u32,
    pub args: Vec<(BlockId, Option<VReg>)>,
}

/// What the interference tests read: definitions, uses, phis, liveness at block ends, and
/// the renaming-constraint writes each variable is live across.
pub(super) struct Facts {
    pub def: Vec<Def>,
    /// Ordinary (non-phi) uses of each variable: (block, instruction index).
    pub uses: Vec<Vec<(u32, u32)>>,
    pub phis: Vec<PhiInfo>,
    /// Per block: live after the virtual phi uses at its end (Appendix A), sorted.
    pub end_live: Vec<Vec<VReg>>,
    /// Per variable: live across a call (after it, not defined by it).
    pub crosses_call: Vec<bool>,
    /// Per variable: registers written by pinned-use copies while it is live.
    pub crossed_pins: Vec<Vec<PReg>>,
    /// Per variable: registers its resource may never hold (a tied definition whose
    /// operation also has a use pinned to that register: Fig. 5 case 2).
    pub forbidden_phys: Vec<Vec<PReg>>,
    pub clobbers: Vec<PReg>,
    pub info: CfgInfo,
    /// False for variables pinning_phi leaves alone: psi operands, guarded (partial)
    /// definitions, variables without a (reachable) definition.
    pub mergeable: Vec<bool>,
}

impl Facts {
    pub fn compute(f: &Function, live: &Liveness) -> Facts {
        let n = f.vregs.len();
        let info = CfgInfo::compute(f);
        let no_def = Def {
            block: NONE,
            pos: 0,
            phi: NONE,
            tied: false,
            tied_src: NONE,
        };
        let mut facts = Facts {
            def: vec![no_def; n],
            uses: vec![Vec::new(); n],
            phis: Vec::new(),
            end_live: Vec::with_capacity(f.blocks.len()),
            crosses_call: vec![false; n],
            crossed_pins: vec![Vec::new(); n],
            forbidden_phys: vec![Vec::new(); n],
            clobbers: call_clobbers(f.target).to_vec(),
            info,
            mergeable: vec![true; n],
        };
        let mut end = live.empty_set();
        for (bi, b) in f.blocks.iter().enumerate() {
            let reachable = facts.info.is_reachable(BlockId(bi as u32));
            for (k, i) in b.insts.iter().enumerate() {
                facts.record_inst(bi as u32, k, i, reachable);
            }
            live.block_end_after_phi_uses(f, bi, &mut end);
            facts.end_live.push(end.to_sorted_vec());
        }
        facts.record_constraint_writes(f, live);
        for (m, d) in facts.mergeable.iter_mut().zip(&facts.def) {
            *m &= d.block != NONE;
        }
        facts
    }

    fn record_inst(&mut self, bi: u32, k: usize, i: &crate::mir::Inst, reachable: bool) {
        if i.is_phi() {
            let Some(d) = i.defs.first().and_then(|o| o.vreg()) else {
                return;
            };
            let args = i
                .phi_blocks()
                .iter()
                .zip(&i.uses)
                .map(|(&pb, u)| (pb, u.vreg()))
                .collect();
            self.def[d.index()] = Def {
                block: bi,
                pos: -1,
                phi: self.phis.len() as u32,
                tied: false,
                tied_src: NONE,
            };
            self.phis.push(PhiInfo { block: bi, args });
            self.mergeable[d.index()] &= reachable;
            return;
        }
        let partial = i.flags.contains(InstFlags::GUARDED) || i.opc == Opc::Psi;
        let phys_use_pins: Vec<PReg> = i
            .uses
            .iter()
            .filter_map(|o| match o.pin {
                Some(Pin::Phys(r)) => Some(r),
                _ => None,
            })
            .collect();
        for o in &i.defs {
            let Some(d) = o.vreg() else { continue };
            let tied = i.uses.iter().any(|u| u.pin == Some(Pin::Var(d)));
            let tied_src = i
                .uses
                .iter()
                .find(|u| u.pin == Some(Pin::Var(d)))
                .and_then(|u| u.vreg())
                .map_or(NONE, |v| v.0);
            self.def[d.index()] = Def {
                block: bi,
                pos: k as i32,
                phi: NONE,
                tied,
                tied_src,
            };
            self.mergeable[d.index()] &= reachable && !partial;
            if tied {
                self.forbidden_phys[d.index()].extend_from_slice(&phys_use_pins);
            }
        }
        for v in i.use_vregs() {
            self.uses[v.index()].push((bi, k as u32));
            if i.opc == Opc::Psi {
                self.mergeable[v.index()] = false;
            }
        }
    }

    /// The call and pinned-use write points of the mark phase, walked backwards per block.
    fn record_constraint_writes(&mut self, f: &Function, live: &Liveness) {
        let mut set = live.empty_set();
        for (bi, b) in f.blocks.iter().enumerate() {
            live.block_live_out(bi, &mut set);
            let term = b.terminator_start();
            for i in b.insts[term..].iter().rev() {
                step_back(i, &mut set);
            }
            for i in b.insts[b.phi_end()..term].iter().rev() {
                if i.control() == Control::Call {
                    for v in set.iter() {
                        if !i.def_vregs().any(|d| d == v) {
                            self.crosses_call[v.index()] = true;
                        }
                    }
                }
                step_back(i, &mut set);
                for o in &i.uses {
                    let (Some(u), Some(Pin::Phys(r))) = (o.vreg(), o.pin) else {
                        continue;
                    };
                    for v in set.iter() {
                        let w = &mut self.crossed_pins[v.index()];
                        if v != u && !w.contains(&r) {
                            w.push(r);
                        }
                    }
                }
            }
        }
    }

    /// True if a variable live across the writes recorded for `v` would be overwritten in
    /// physical register `r`.
    pub fn crosses(&self, v: VReg, r: PReg) -> bool {
        (self.crosses_call[v.index()] && self.clobbers.contains(&r))
            || self.crossed_pins[v.index()].contains(&r)
    }

    fn def_dominates(&self, x: Def, y: Def) -> bool {
        if x.block == y.block {
            x.pos < y.pos
        } else {
            self.info.dominates(BlockId(x.block), BlockId(y.block))
        }
    }

    /// Is `v` live after the virtual phi uses at the end of block `pb`?
    fn ends_live(&self, pb: BlockId, v: VReg) -> bool {
        self.end_live
            .get(pb.index())
            .is_some_and(|s| s.binary_search(&v).is_ok())
    }

    /// Is `b` live right after the definition of `a` (Appendix A semantics)?
    fn live_after_def(&self, live: &Liveness, a: VReg, b: VReg) -> bool {
        let da = self.def[a.index()];
        let bb = da.block as usize;
        if da.pos < 0 {
            return live.is_live_in(bb, b);
        }
        live.is_live_out(bb, b)
            || self.uses[b.index()].iter().any(|&(ub, k)| {
                ub == da.block
                    && (k as i32 > da.pos || (da.tied && k as i32 == da.pos && b.0 != da.tied_src))
            })
    }

    /// `Variable_kills(a, b)`: pinning `a` and `b` together overwrites `b` while it is live
    /// (Class 1 with the variant's liveness test, or Class 2).
    pub fn kills(&self, live: &Liveness, variant: PhiVariant, a: VReg, b: VReg) -> bool {
        let (da, db) = (self.def[a.index()], self.def[b.index()]);
        if a == b {
            // Class 2 with b = a (the paper's test has no a ≠ b there): a phi result live at
            // the end of a predecessor whose argument is another variable is overwritten by
            // its own phi's copy there — it is already repaired, so joining that argument's
            // resource adds no repair (Rastello et al. Fig. 14, the lost copy).
            if da.phi == NONE || da.block == NONE {
                return false;
            }
            let phi = &self.phis[da.phi as usize];
            return phi
                .args
                .iter()
                .any(|&(pb, arg)| arg != Some(b) && self.ends_live(pb, b));
        }
        if da.block == NONE || db.block == NONE {
            return true;
        }
        if self.def_dominates(db, da) {
            let node_a = da.block as usize;
            let class1 = match variant {
                PhiVariant::Base | PhiVariant::Depth => self.live_after_def(live, a, b),
                // Algorithm 4: b live out of a's block.
                PhiVariant::Opt => live.is_live_out(node_a, b),
                // Algorithm 4: b live into a's block, or both in one block.
                PhiVariant::Pess => live.is_live_in(node_a, b) || da.block == db.block,
            };
            if class1 {
                return true;
            }
        }
        if da.phi != NONE {
            let phi = &self.phis[da.phi as usize];
            for &(pb, arg) in &phi.args {
                if arg != Some(b) && self.ends_live(pb, b) {
                    return true;
                }
            }
        }
        false
    }

    /// `Variable_stronglyInterfere(a, b)`: Classes 3 and 4, or one operation defining both.
    pub fn strongly_interfere(&self, a: VReg, b: VReg) -> bool {
        if a == b {
            return false;
        }
        let (da, db) = (self.def[a.index()], self.def[b.index()]);
        if da.block == NONE || db.block == NONE {
            return true;
        }
        if da.phi != NONE && db.phi != NONE {
            let (pa, pb) = (&self.phis[da.phi as usize], &self.phis[db.phi as usize]);
            // Class 4 (one block), then Class 3: a common predecessor where the arguments
            // differ (`a_i ≠ b_j`); identical variables are one write of one value.
            return pa.block == pb.block
                || pa.args.iter().any(|&(x, ax)| {
                    pb.args
                        .iter()
                        .any(|&(y, ay)| x == y && (ax != ay || ax.is_none()))
                });
        }
        da.block == db.block && da.pos == db.pos && da.pos >= 0
    }
}

/// The per-variable `Resource_killed` flags and the pair budget of the resource tests.
pub(super) struct Interference<'a> {
    pub facts: &'a Facts,
    pub live: &'a Liveness,
    pub variant: PhiVariant,
    /// `killed[v]`: `v` is killed by another variable of its resource (`Resource_killed`).
    /// Merging two non-interfering resources keeps every flag (no new kill), so the flags
    /// are computed once.
    pub killed: Vec<bool>,
    /// Pair tests left before `Resource_interfere` answers "interfere" without testing.
    pub budget: u64,
    /// Times the budget made a test answer conservatively.
    pub cap_hits: u64,
}

/// Largest resource whose `Resource_killed` set is computed pair by pair; the variables of
/// a larger one count as not killed (conservative: more interferences).
const KILLED_PAIR_CAP: usize = 512;

impl<'a> Interference<'a> {
    pub fn new(
        facts: &'a Facts,
        live: &'a Liveness,
        variant: PhiVariant,
        members: &std::collections::HashMap<u32, Vec<VReg>>,
        p: &Pinning,
        budget: u64,
    ) -> Interference<'a> {
        let mut it = Interference {
            facts,
            live,
            variant,
            killed: vec![false; facts.def.len()],
            budget,
            cap_hits: 0,
        };
        for (&root, vs) in members {
            if vs.len() > KILLED_PAIR_CAP {
                it.cap_hits += 1;
                continue;
            }
            it.mark_killed_within(vs, p.phys(root));
        }
        it
    }

    /// `Resource_killed`: the variables of one resource killed by another of its members
    /// (or by a constraint write of its register).
    fn mark_killed_within(&mut self, vs: &[VReg], phys: Option<PReg>) {
        for &x in vs {
            let by_member = vs
                .iter()
                .any(|&y| self.facts.kills(self.live, self.variant, y, x));
            let by_write = phys.is_some_and(|r| self.facts.crosses(x, r));
            if by_member || by_write {
                self.killed[x.index()] = true;
            }
        }
    }

    /// `Resource_interfere(A, B)`: would pinning `A` and `B` together create a new kill or a
    /// strong interference? `pa`/`pb`: their physical registers.
    pub fn resources_interfere(
        &mut self,
        a: &[VReg],
        pa: Option<PReg>,
        b: &[VReg],
        pb: Option<PReg>,
    ) -> bool {
        if pa.is_some() && pb.is_some() {
            return true;
        }
        let pairs = (a.len() as u64).saturating_mul(b.len() as u64);
        if pairs > self.budget {
            self.budget = 0;
            self.cap_hits += 1;
            return true;
        }
        self.budget -= pairs;
        if self.phys_conflict(a, pb) || self.phys_conflict(b, pa) {
            return true;
        }
        let f = self.facts;
        a.iter().any(|&x| {
            b.iter().any(|&y| {
                (!self.killed[x.index()] && f.kills(self.live, self.variant, y, x))
                    || (!self.killed[y.index()] && f.kills(self.live, self.variant, x, y))
                    || f.strongly_interfere(x, y)
            })
        })
    }

    /// Would the variables `vs` joining register `r` be overwritten there (calls, pinned
    /// uses), or break a tie (Fig. 5 case 2)?
    fn phys_conflict(&self, vs: &[VReg], r: Option<PReg>) -> bool {
        let Some(r) = r else { return false };
        vs.iter().any(|&v| {
            self.facts.forbidden_phys[v.index()].contains(&r)
                || (!self.killed[v.index()] && self.facts.crosses(v, r))
        })
    }
}
