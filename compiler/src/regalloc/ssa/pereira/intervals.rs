//! Interval analysis (Pereira §4.1): the live range of every value as a sorted list of
//! integer intervals over a linear order of the instructions, in the way of linear-scan
//! allocators.
//!
//! Linear order: blocks in the given order (the colouring uses the dominance pre-order;
//! unreachable blocks last). A block `b` of `n` instructions owns the positions
//! `start(b) ..= end(b)` with `end(b) = start(b) + 2n + 2`; instruction `k` reads its
//! operands at `use_pos = start + 2k + 1` and writes its results at `def_pos = start + 2k + 2`,
//! so a value that dies at an instruction and a value defined there never overlap (the
//! paper's Lemma 1: values interfere iff one is live at the other's definition).
//!
//! Phis are parallel copies (§4.1): every phi result is live from `start(b)`; a phi operand
//! coming from `P` is live at `end(P)` and no further (it is in `P`'s live-out set, not in
//! `b`'s live-in set).
//!
//! Preconditions: SSA form, `live` computed on `f`. Complexity: O(instructions +
//! Σ |live-in| + Σ |live-out|) to build, plus sorting each value's intervals; an overlap
//! test of two sorted lists is linear in their lengths, a test against the intervals of a
//! pre-coloured register is O(log n) per interval ([`Precoloured::conflicts`]).

use super::super::liveness::Liveness;
use crate::mir::{target, BlockId, Function, PReg, Pin, RegClass, VReg};

/// A closed interval of positions.
pub type Range = (u32, u32);

/// Positions of blocks and the intervals of every value.
#[derive(Clone, Debug, Default)]
pub struct Intervals {
    pub start: Vec<u32>,
    pub end: Vec<u32>,
    /// Per vreg: its intervals, sorted by start, disjoint.
    pub ranges: Vec<Vec<Range>>,
}

impl Intervals {
    /// Position at which instruction `k` of `b` reads its operands.
    pub fn use_pos(&self, b: BlockId, k: usize) -> u32 {
        self.start[b.index()] + 2 * k as u32 + 1
    }

    /// Position at which instruction `k` of `b` writes its results.
    pub fn def_pos(&self, b: BlockId, k: usize) -> u32 {
        self.start[b.index()] + 2 * k as u32 + 2
    }

    /// Builds the intervals of `f`, blocks laid out in `order` then the others.
    pub fn compute(f: &Function, live: &Liveness, order: &[BlockId]) -> Intervals {
        let nb = f.blocks.len();
        let nv = f.vregs.len();
        let mut iv = Intervals {
            start: vec![0; nb],
            end: vec![0; nb],
            ranges: vec![Vec::new(); nv],
        };
        let mut placed = vec![false; nb];
        let mut pos = 0u32;
        let rest: Vec<BlockId> = f.block_ids().collect();
        for &b in order.iter().chain(&rest) {
            if std::mem::replace(&mut placed[b.index()], true) {
                continue;
            }
            iv.start[b.index()] = pos;
            iv.end[b.index()] = pos + 2 * f.block(b).insts.len() as u32 + 2;
            pos = iv.end[b.index()] + 1;
        }
        const OPEN: u32 = u32::MAX;
        let mut open_end = vec![OPEN; nv];
        let mut open: Vec<VReg> = Vec::new();
        for b in f.block_ids() {
            let (s, e) = (iv.start[b.index()], iv.end[b.index()]);
            open.clear();
            for &v in &live.live_out[b.index()] {
                if v.index() < nv && open_end[v.index()] == OPEN {
                    open_end[v.index()] = e;
                    open.push(v);
                }
            }
            for (k, inst) in f.block(b).insts.iter().enumerate().rev() {
                let dp = if inst.is_phi() { s } else { iv.def_pos(b, k) };
                for d in inst.def_vregs() {
                    if d.index() >= nv {
                        continue;
                    }
                    let end = std::mem::replace(&mut open_end[d.index()], OPEN);
                    let end = if end == OPEN { dp } else { end };
                    iv.ranges[d.index()].push((dp, end));
                }
                if inst.is_phi() {
                    continue;
                }
                let up = iv.use_pos(b, k);
                for u in inst.use_vregs() {
                    if u.index() < nv && open_end[u.index()] == OPEN {
                        open_end[u.index()] = up;
                        open.push(u);
                    }
                }
            }
            for &v in &open {
                let end = std::mem::replace(&mut open_end[v.index()], OPEN);
                if end != OPEN {
                    iv.ranges[v.index()].push((s, end));
                }
            }
        }
        for r in &mut iv.ranges {
            r.sort_unstable();
        }
        iv
    }

    /// The size `s` of ComputeWeight: instructions (two positions each) the range covers.
    pub fn size(&self, v: VReg) -> u32 {
        self.ranges[v.index()]
            .iter()
            .map(|&(a, b)| (b - a) / 2 + 1)
            .sum()
    }
}

/// Whether two sorted interval lists share a position (linear merge).
pub fn overlap(a: &[Range], b: &[Range]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x.0 <= y.1 && y.0 <= x.1 {
            return true;
        }
        if x.1 < y.1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    false
}

/// The union of two sorted interval lists, sorted.
pub fn union(a: &[Range], b: &[Range]) -> Vec<Range> {
    let mut out: Vec<Range> = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let take_a = j >= b.len() || (i < a.len() && a[i] <= b[j]);
        let r = if take_a {
            i += 1;
            a[i - 1]
        } else {
            j += 1;
            b[j - 1]
        };
        match out.last_mut() {
            Some(last) if r.0 <= last.1.saturating_add(1) => last.1 = last.1.max(r.1),
            _ => out.push(r),
        }
    }
    out
}

/// Index of a physical register in per-register tables.
pub fn reg_index(p: PReg) -> usize {
    let c = match p.class {
        RegClass::R => 0,
        RegClass::B => 1,
        RegClass::P => 2,
        RegClass::G => 3,
    };
    c * 64 + p.num as usize
}

/// The register with index `i` (inverse of [`reg_index`]).
pub fn reg_of_index(i: usize) -> PReg {
    let c = [RegClass::R, RegClass::B, RegClass::P, RegClass::G][i / 64];
    PReg::new(c, (i % 64) as u8)
}

/// The intervals during which each physical register is held by a pre-coloured value
/// (a value with an operand pinned to it) or overwritten by a call (its clobbers), for the
/// paper's rule (§4.5, "Handling Pre-colored Virtual Registers"): `r` may be given to `v`
/// only if `v`'s live range overlaps no other value pre-coloured with `r`.
#[derive(Clone, Debug)]
pub struct Precoloured {
    /// Per register: intervals sorted by start, with the running maximum of their ends.
    by_reg: Vec<Vec<(u32, u32, u32)>>,
    /// The register each pre-coloured value is pinned to.
    pub pin: Vec<Option<PReg>>,
}

impl Precoloured {
    pub fn compute(f: &Function, iv: &Intervals) -> Precoloured {
        let nv = f.vregs.len();
        let mut pin: Vec<Option<PReg>> = vec![None; nv];
        let mut lists: Vec<Vec<Range>> = vec![Vec::new(); 256];
        for b in f.block_ids() {
            for (k, inst) in f.block(b).insts.iter().enumerate() {
                if inst.is_phi() {
                    continue;
                }
                for o in inst.defs.iter().chain(&inst.uses) {
                    if let (Some(v), Some(Pin::Phys(p))) = (o.vreg(), o.pin) {
                        if v.index() < nv && pin[v.index()].is_none() {
                            pin[v.index()] = Some(p);
                        }
                    }
                }
                if super::super::is_call(inst) {
                    let d = iv.def_pos(b, k);
                    for &r in target::call_clobbers(f.target) {
                        lists[reg_index(r)].push((d, d));
                    }
                }
            }
        }
        for (v, p) in pin.iter().enumerate() {
            if let Some(p) = p {
                lists[reg_index(*p)].extend_from_slice(&iv.ranges[v]);
            }
        }
        let by_reg = lists
            .into_iter()
            .map(|mut l| {
                l.sort_unstable();
                let mut m = 0;
                l.into_iter()
                    .map(|(a, b)| {
                        m = m.max(b);
                        (a, b, m)
                    })
                    .collect()
            })
            .collect();
        Precoloured { by_reg, pin }
    }

    /// Whether some interval pre-coloured with `p` overlaps `ranges` (a value's own
    /// pre-colouring excluded by the caller: pinned values take their pin).
    pub fn conflicts(&self, p: PReg, ranges: &[Range]) -> bool {
        let list = &self.by_reg[reg_index(p)];
        if list.is_empty() {
            return false;
        }
        ranges.iter().any(|&(a, b)| {
            let idx = list.partition_point(|&(s, _, _)| s <= b);
            idx > 0 && list[idx - 1].2 >= a
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_and_union() {
        assert!(!overlap(&[(1, 3), (8, 9)], &[(4, 7)]));
        assert!(overlap(&[(1, 3), (8, 9)], &[(4, 8)]));
        assert_eq!(union(&[(1, 3), (8, 9)], &[(4, 7)]), vec![(1, 9)]);
        assert_eq!(union(&[(1, 2)], &[(5, 7)]), vec![(1, 2), (5, 7)]);
    }
}
