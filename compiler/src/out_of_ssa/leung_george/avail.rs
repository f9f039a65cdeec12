//! Availability of killed variables in their resources: which reads of a variable that the
//! mark phase found killed still find it in its resource, and which need its repair copy.
//!
//! Source: Rastello, de Ferrière, Guillon (LIP RR-2005-34), Appendix A, procedures `MARK`
//! and `USE`: `avail[r]` is the value resource `r` holds at a point (`avin`/`avout` of each
//! block, intersected over predecessors at confluence points); a use of `x` pinned to
//! `must_def[x]` with `avail[must_def[x]] ≠ x` is a repair site, any other reads `x` in
//! place. Here the same question is asked per variable instead of per resource: the mark
//! phase has already listed the *kill points* of `x` (where its resource is written with
//! another value while `x` is live), so `x` is still in its resource at a read iff no path
//! from its definition to the read passes a kill point of `x`. Per block this is a forward
//! "may be killed" dataflow over the killed variables (bit sets):
//!
//! * `gen[b]`: `b` holds a kill point of `x`;
//! * `reset[b]`: `b` defines `x` (a path through the definition starts afresh);
//! * `in[b] = ∪ out[p]` over the predecessors `p`, `out[b] = gen[b] ∪ (in[b] \ reset[b])`.
//!
//! A read of `x` in block `b` at position `q` finds `x` in place iff no kill point of `x`
//! in `b` precedes `q` and, outside `x`'s defining block, `x ∉ in[b]`. (In strict SSA a
//! variable is not live at the entry of its defining block, so every kill point there
//! follows the definition.)
//!
//! Difference from `USE`: a pinned-use copy that writes `x` back into its own resource
//! (`avail[must_use] := x`) does not make `x` available again here; later reads take the
//! repair copy (correct, at worst one copy more).
//!
//! Complexity: O(iterations × (blocks + edges) × killed / 64) time and
//! O(blocks × killed / 64) words; the iterations are bounded by the loop nesting plus two
//! in practice (blocks in index order). Functions where blocks × killed variables exceeds
//! [`MAX_BITS`] are not analysed ([`Avail::compute`] returns `None`); the caller then falls
//! back to "in place only in the defining block, before any kill point".

use super::Kills;
use crate::mir::{Function, VReg};

/// Largest blocks × killed-variables product analysed (8 MiB of bits per set).
pub const MAX_BITS: usize = 1 << 26;

const NONE: u32 = u32::MAX;

/// The result of the dataflow (see the module doc).
#[derive(Clone, Debug)]
pub struct Avail {
    /// Dense index of each killed variable (`NONE`: never killed).
    index: Vec<u32>,
    /// Words per block.
    words: usize,
    /// Per block, `words` words: bit `j` set if some path from the definition of the `j`-th
    /// killed variable to the block's entry passes one of its kill points.
    killed_in: Vec<u64>,
}

impl Avail {
    /// Runs the dataflow for the kill points `kills` (mark phase) with `def_block[v]` the
    /// defining block of each variable. `None` if the problem exceeds [`MAX_BITS`].
    pub fn compute(f: &Function, kills: &Kills, def_block: &[u32]) -> Option<Avail> {
        Avail::compute_capped(f, kills, def_block, MAX_BITS)
    }

    /// [`Avail::compute`] with the cap `max_bits` on blocks × killed variables.
    fn compute_capped(
        f: &Function,
        kills: &Kills,
        def_block: &[u32],
        max_bits: usize,
    ) -> Option<Avail> {
        let nb = f.blocks.len();
        let mut index = vec![NONE; kills.len()];
        let mut n = 0usize;
        for (v, k) in kills.iter().enumerate() {
            if !k.is_empty() {
                index[v] = n as u32;
                n += 1;
            }
        }
        if nb.saturating_mul(n) > max_bits {
            return None;
        }
        let words = n.div_ceil(64);
        let mut gen = vec![0u64; nb * words];
        let mut reset = vec![0u64; nb * words];
        let set = |m: &mut [u64], b: usize, j: usize| m[b * words + j / 64] |= 1 << (j % 64);
        for (v, k) in kills.iter().enumerate() {
            let j = index[v];
            if j == NONE {
                continue;
            }
            for &(b, _) in k {
                if (b as usize) < nb {
                    set(&mut gen, b as usize, j as usize);
                }
            }
            let db = def_block.get(v).copied().unwrap_or(NONE);
            if (db as usize) < nb {
                set(&mut reset, db as usize, j as usize);
            }
        }
        let preds = f.predecessors();
        let mut killed_in = vec![0u64; nb * words];
        let mut out = gen.clone();
        let mut changed = words > 0;
        while changed {
            changed = false;
            for (b, block_preds) in preds.iter().enumerate() {
                let kin = &mut killed_in[b * words..(b + 1) * words];
                kin.iter_mut().for_each(|w| *w = 0);
                for p in block_preds {
                    let from = p.index() * words;
                    for (w, o) in kin.iter_mut().zip(&out[from..from + words]) {
                        *w |= o;
                    }
                }
                for k in 0..words {
                    let i = b * words + k;
                    let o = gen[i] | (killed_in[i] & !reset[i]);
                    if o != out[i] {
                        out[i] = o;
                        changed = true;
                    }
                }
            }
        }
        Some(Avail {
            index,
            words,
            killed_in,
        })
    }

    /// True if some path from the definition of `v` to the entry of block `b` passes a
    /// kill point of `v` (false for a variable that is never killed).
    pub fn killed_on_entry(&self, v: VReg, b: u32) -> bool {
        let j = self.index.get(v.index()).copied().unwrap_or(NONE);
        if j == NONE {
            return false;
        }
        let (b, j) = (b as usize, j as usize);
        let w = b * self.words + j / 64;
        self.killed_in
            .get(w)
            .is_some_and(|x| x & (1 << (j % 64)) != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::parse::parse_module;

    fn func(text: &str) -> Function {
        let m = parse_module(text).expect("test input parses");
        m.functions.into_iter().next().expect("one function")
    }

    /// A diamond b0 -> {b1, b2} -> b3, with a loop b4 -> b4 after b3.
    const CFG: &str = "mfunc @t st231 {
b0:
  %0:r^$r16 = .input
  %1:b = cmpne %0, #0
  br %1, b2
  goto b1
b1:
  goto b3
b2:
  goto b3
b3:
  goto b4
b4:
  %2:b = cmpne %0, #1
  br %2, b4
  goto b5
b5:
  .output %0^$r16
  return
}";

    #[test]
    fn a_kill_on_one_branch_reaches_the_join_but_not_the_other_branch() {
        let f = func(CFG);
        // %0 defined in b0, killed in b2 only.
        let mut kills: Kills = vec![Vec::new(); f.vregs.len()];
        kills[0].push((2, 5));
        let def = vec![0, 0, 4];
        let a = Avail::compute(&f, &kills, &def).expect("small");
        assert!(!a.killed_on_entry(VReg(0), 1), "b1 is reached from b0 only");
        assert!(!a.killed_on_entry(VReg(0), 2), "the kill is inside b2");
        assert!(
            a.killed_on_entry(VReg(0), 3),
            "one predecessor of b3 passed the kill"
        );
        assert!(a.killed_on_entry(VReg(0), 4));
        assert!(a.killed_on_entry(VReg(0), 5));
        assert!(!a.killed_on_entry(VReg(1), 3), "never killed");
    }

    #[test]
    fn beyond_the_cap_there_is_no_answer() {
        let f = func(CFG);
        let mut kills: Kills = vec![Vec::new(); f.vregs.len()];
        kills[0].push((2, 5));
        let def = vec![0, 0, 4];
        // 6 blocks x 1 killed variable.
        assert!(Avail::compute_capped(&f, &kills, &def, 5).is_none());
        assert!(Avail::compute_capped(&f, &kills, &def, 6).is_some());
    }

    #[test]
    fn a_kill_inside_a_loop_reaches_the_loop_entry_through_the_back_edge() {
        let f = func(CFG);
        let mut kills: Kills = vec![Vec::new(); f.vregs.len()];
        kills[0].push((4, 9));
        let def = vec![0, 0, 4];
        let a = Avail::compute(&f, &kills, &def).expect("small");
        assert!(!a.killed_on_entry(VReg(0), 3));
        assert!(a.killed_on_entry(VReg(0), 4), "b4 -> b4 after the kill");
        assert!(a.killed_on_entry(VReg(0), 5));
    }

    #[test]
    fn the_definition_starts_afresh_in_its_own_loop() {
        // %2 is defined in b4 and killed in b4 (after its definition): on the back edge
        // the definition comes first again, but the kill still reaches b5.
        let f = func(CFG);
        let mut kills: Kills = vec![Vec::new(); f.vregs.len()];
        kills[2].push((4, 12));
        let def = vec![0, 0, 4];
        let a = Avail::compute(&f, &kills, &def).expect("small");
        assert!(
            a.killed_on_entry(VReg(2), 4),
            "as in-flow; unused in the defining block"
        );
        assert!(a.killed_on_entry(VReg(2), 5));
        assert!(!a.killed_on_entry(VReg(2), 3));
    }
}
