//! Liveness of virtual registers over a machine-level function in allocation form: per-block
//! live-in / live-out bitsets, computed by the classic backward dataflow
//! `in(b) = gen(b) ∪ (out(b) − kill(b))`, `out(b) = ∪ in(s)` over the successors `s`
//! (Appel, "Modern Compiler Implementation", §10.1; George & Appel 1996 §4 take liveness as
//! given for the `Build` step).
//!
//! * Only virtual registers are tracked; physical operands (SP, `$r0`) are ignored (the
//!   allocator sees them as precolour information only).
//! * A `GUARDED` instruction's definitions are partial (the old value survives when the guard
//!   is false), so they count as uses as well and never kill.
//! * A filter selects the tracked registers (one register class at a time): bitsets are
//!   indexed by a dense numbering of the selected registers, which keeps them small.
//! * Unreachable blocks get live sets too (their instructions are still allocated).
//!
//! The context is reusable: [`Liveness::compute`] clears and refills the same vectors.
//!
//! Complexity: O(blocks × tracked / 64) words per set and per dataflow iteration; the
//! worklist converges after O(loop depth) passes over the blocks in practice.

use crate::mir::{Function, Inst, InstFlags, VReg};

/// "Not tracked" in the dense numbering.
pub const UNTRACKED: u32 = u32::MAX;

/// Per-block live-in / live-out sets of the tracked virtual registers.
#[derive(Clone, Debug, Default)]
pub struct Liveness {
    /// Dense index of each vreg (or [`UNTRACKED`]).
    pub dense: Vec<u32>,
    /// Vreg of each dense index.
    pub vregs: Vec<VReg>,
    /// Words per set.
    words: usize,
    live_in: Vec<u64>,
    live_out: Vec<u64>,
    gen: Vec<u64>,
    kill: Vec<u64>,
}

/// Calls `f` on every vreg the instruction reads: its uses and its partial (guarded) defs.
pub fn for_each_read(inst: &Inst, mut f: impl FnMut(VReg)) {
    for v in inst.use_vregs() {
        f(v);
    }
    if inst.flags.contains(InstFlags::GUARDED) {
        for v in inst.def_vregs() {
            f(v);
        }
    }
}

/// Calls `f` on every vreg the instruction overwrites completely (none for guarded ones).
pub fn for_each_kill(inst: &Inst, mut f: impl FnMut(VReg)) {
    if !inst.flags.contains(InstFlags::GUARDED) {
        for v in inst.def_vregs() {
            f(v);
        }
    }
}

impl Liveness {
    pub fn new() -> Liveness {
        Liveness::default()
    }

    /// Drops all sets (keeps the allocations).
    pub fn clear(&mut self) {
        self.dense.clear();
        self.vregs.clear();
        self.words = 0;
        self.live_in.clear();
        self.live_out.clear();
        self.gen.clear();
        self.kill.clear();
    }

    /// Computes liveness of the vregs selected by `track`.
    pub fn compute(&mut self, f: &Function, track: impl Fn(VReg) -> bool) {
        self.clear();
        self.dense.resize(f.vregs.len(), UNTRACKED);
        for i in 0..f.vregs.len() {
            let v = VReg(i as u32);
            if track(v) {
                self.dense[i] = self.vregs.len() as u32;
                self.vregs.push(v);
            }
        }
        self.words = self.vregs.len().div_ceil(64);
        let n = f.blocks.len() * self.words;
        self.live_in.resize(n, 0);
        self.live_out.resize(n, 0);
        self.gen.resize(n, 0);
        self.kill.resize(n, 0);
        for (b, block) in f.blocks.iter().enumerate() {
            self.local_sets(b, &block.insts);
        }
        self.solve(f);
    }

    fn dense_of(&self, v: VReg) -> Option<usize> {
        match self.dense.get(v.index()) {
            Some(&d) if d != UNTRACKED => Some(d as usize),
            _ => None,
        }
    }

    /// gen = upward-exposed reads, kill = complete definitions of block `b`.
    fn local_sets(&mut self, b: usize, insts: &[Inst]) {
        let base = b * self.words;
        for inst in insts.iter().rev() {
            let mut kills = Vec::new();
            for_each_kill(inst, |v| kills.extend(self.dense_of(v)));
            for d in kills {
                clear_bit(&mut self.gen[base..], d);
                set_bit(&mut self.kill[base..], d);
            }
            let mut reads = Vec::new();
            for_each_read(inst, |v| reads.extend(self.dense_of(v)));
            for d in reads {
                set_bit(&mut self.gen[base..], d);
            }
        }
    }

    fn solve(&mut self, f: &Function) {
        let succs = f.successors();
        let preds = f.predecessors();
        let nb = f.blocks.len();
        let w = self.words;
        let mut queued = vec![true; nb];
        let mut work: Vec<usize> = (0..nb).collect(); // popped from the end: last block first
        let mut out = vec![0u64; w];
        while let Some(b) = work.pop() {
            queued[b] = false;
            out.iter_mut().for_each(|x| *x = 0);
            for s in &succs[b] {
                if s.index() < nb {
                    let si = &self.live_in[s.index() * w..(s.index() + 1) * w];
                    out.iter_mut().zip(si).for_each(|(o, i)| *o |= i);
                }
            }
            let base = b * w;
            let mut changed = false;
            for (k, &o) in out.iter().enumerate() {
                self.live_out[base + k] = o;
                let new_in = self.gen[base + k] | (o & !self.kill[base + k]);
                if new_in != self.live_in[base + k] {
                    self.live_in[base + k] = new_in;
                    changed = true;
                }
            }
            if changed {
                for p in &preds[b] {
                    if !queued[p.index()] {
                        queued[p.index()] = true;
                        work.push(p.index());
                    }
                }
            }
        }
    }

    /// Tracked vregs live at the end of block `b`.
    pub fn live_out(&self, b: usize) -> impl Iterator<Item = VReg> + '_ {
        self.iter_set(&self.live_out[b * self.words..(b + 1) * self.words])
    }

    /// Tracked vregs live at the start of block `b`.
    pub fn live_in(&self, b: usize) -> impl Iterator<Item = VReg> + '_ {
        self.iter_set(&self.live_in[b * self.words..(b + 1) * self.words])
    }

    pub fn is_live_out(&self, b: usize, v: VReg) -> bool {
        self.dense_of(v)
            .is_some_and(|d| get_bit(&self.live_out[b * self.words..], d))
    }

    pub fn is_live_in(&self, b: usize, v: VReg) -> bool {
        self.dense_of(v)
            .is_some_and(|d| get_bit(&self.live_in[b * self.words..], d))
    }

    fn iter_set<'a>(&'a self, words: &'a [u64]) -> impl Iterator<Item = VReg> + 'a {
        words.iter().enumerate().flat_map(move |(k, &w)| {
            let mut bits = w;
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let t = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                Some(self.vregs[k * 64 + t])
            })
        })
    }
}

fn set_bit(s: &mut [u64], i: usize) {
    s[i / 64] |= 1 << (i % 64);
}

fn clear_bit(s: &mut [u64], i: usize) {
    s[i / 64] &= !(1 << (i % 64));
}

fn get_bit(s: &[u64], i: usize) -> bool {
    s[i / 64] >> (i % 64) & 1 != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::{BlockId, Imm, Inst, Opc, Operand, RegClass};
    use simulator::isa::{st120, st231::Opcode as O, Target};

    fn goto(b: BlockId) -> Inst {
        Inst::new(Opc::St231(O::Goto), vec![], vec![], Imm::Block(b))
    }

    #[test]
    fn loop_carried_value_is_live_around_the_loop() {
        // b0: a = ..; goto b1   b1: a = a + 1; br c, b1; goto b2   b2: use a; return
        let mut f = Function::new("f", Target::St231);
        let b1 = f.new_block();
        let b2 = f.new_block();
        let a = f.new_vreg(RegClass::R);
        let c = f.new_vreg(RegClass::B);
        let x = f.new_vreg(RegClass::R);
        let add = |d: VReg, s: VReg| {
            Inst::new(
                Opc::St231(O::Add),
                vec![d.into()],
                vec![s.into()],
                Imm::Int(1),
            )
        };
        f.push(BlockId(0), add(a, x));
        f.push(BlockId(0), goto(b1));
        f.push(b1, add(a, a));
        f.push(
            b1,
            Inst::new(
                Opc::St231(O::Cmplt),
                vec![c.into()],
                vec![a.into(), a.into()],
                Imm::None,
            ),
        );
        f.push(
            b1,
            Inst::new(Opc::St231(O::Br), vec![], vec![c.into()], Imm::Block(b1)),
        );
        f.push(b1, goto(b2));
        f.push(
            b2,
            Inst::new(Opc::Output, vec![], vec![a.into()], Imm::None),
        );
        f.push(
            b2,
            Inst::new(Opc::St231(O::Igoto), vec![], vec![], Imm::None),
        );
        let mut l = Liveness::new();
        l.compute(&f, |_| true);
        assert!(l.is_live_in(1, a) && l.is_live_out(1, a) && l.is_live_in(2, a));
        assert!(!l.is_live_in(1, c) && !l.is_live_out(1, c));
        assert!(l.is_live_in(0, x) && !l.is_live_out(0, x));
        assert_eq!(l.live_in(0).collect::<Vec<_>>(), vec![x]);
        // Only class R tracked: the branch register is absent.
        l.compute(&f, |v| f.class_of(v) == RegClass::R);
        assert!(!l.is_live_in(1, c) && l.is_live_in(1, a));
    }

    #[test]
    fn guarded_defs_are_uses() {
        let mut f = Function::new("g", Target::St120);
        let d = f.new_vreg(RegClass::R);
        let g = f.new_vreg(RegClass::G);
        let s = f.new_vreg(RegClass::R);
        let mv = Opc::St120(st120::Opcode::Un(st120::UnOp::Move));
        f.push(
            BlockId(0),
            Inst::new(
                mv,
                vec![d.into()],
                vec![s.into(), Operand::new(g)],
                Imm::None,
            )
            .with_flags(InstFlags::GUARDED),
        );
        f.push(
            BlockId(0),
            Inst::new(Opc::Output, vec![], vec![d.into()], Imm::None),
        );
        f.push(
            BlockId(0),
            Inst::new(Opc::St120(st120::Opcode::Rts), vec![], vec![], Imm::None),
        );
        let mut l = Liveness::new();
        l.compute(&f, |_| true);
        let live: Vec<_> = l.live_in(0).collect();
        assert!(
            live.contains(&d) && live.contains(&g) && live.contains(&s),
            "{live:?}"
        );
    }
}
