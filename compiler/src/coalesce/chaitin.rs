//! The paper's coalescer, Chaitin's kind: repeated aggressive coalescing in which every
//! physical register is **one precoloured node** — "C" as Rastello, de Ferrière and Guillon
//! ran it (LIP RR-2005-34, §5: a repeated register coalescer [Chaitin 1982; George & Appel
//! 1996] outside register allocation; §4.1 [CC1]: "Because the physical register R0 and z
//! interfere, [the initial code] cannot be coalesced by Chaitin's register coalescing").
//!
//! It differs from [`super::aggressive`] (the project's `C`) in one point only: there, each
//! virtual register pinned to a register is a class of its own and two classes pinned to the
//! same register merge when they do not interfere — live-range-level partial coalescing,
//! the very ability the paper credits to pinning; here, at the start of every round, all the
//! virtual registers pinned to a register `r` are folded into `r`'s node (their
//! interferences united, [`fold_register_nodes`]), so a class merges with `r` only if it
//! interferes with none of `r`'s uses anywhere in the function, and two classes merge only
//! if neither interferes with the other. Everything else (liveness, the copy rule,
//! forbidden registers, copies by decreasing `5^depth` weight, rounds until nothing merges,
//! the edge cap) is `aggressive`'s.
//!
//! Preconditions and result: those of [`super::aggressive`] (allocation form in and out; the
//! vregs of a register node are renamed to one vreg pinned to that register at every site,
//! which precolouring accepts since they never hold two values at once).
//!
//! Complexity: `aggressive`'s, plus O(vregs + edges) per round to fold the register nodes.

use super::aggressive::{coalesce_named, coalesce_with, Graph, Stats};
use crate::mir::{Function, PReg, VReg};
use crate::pipeline::PassDetail;
use std::collections::HashMap;

/// The pass entry point (configuration suffix `+Cc`).
pub fn run(f: &mut Function) -> Result<PassDetail, String> {
    let (s, folded) = coalesce(f)?;
    let mut d = s.detail();
    d.push(("register_node_folds", folded));
    Ok(d)
}

/// Same as [`run`]: the statistics and the number of vreg classes folded into register
/// nodes (over all rounds).
pub fn coalesce(f: &mut Function) -> Result<(Stats, u64), String> {
    coalesce_with(f, fold_register_nodes)
}

/// [`coalesce`], recording in `class` the vreg each input vreg was renamed to (equal
/// entries: one web, a register's node included), for `viz` (issue 26).
pub fn coalesce_traced(f: &mut Function, class: &mut Vec<VReg>) -> Result<(Stats, u64), String> {
    coalesce_named(f, fold_register_nodes, Some(class))
}

/// Folds every class pinned to a register into one node per register; returns the number
/// of merges.
fn fold_register_nodes(g: &mut Graph) -> u64 {
    let mut node: HashMap<PReg, u32> = HashMap::new();
    let mut folds = 0;
    for v in 0..g.pin.len() as u32 {
        let Some(r) = g.pin[v as usize] else {
            continue;
        };
        let root = g.find(v);
        match node.get(&r).copied() {
            None => {
                node.insert(r, root);
            }
            Some(k) => {
                let k = g.find(k);
                if k != root {
                    g.merge(k, root);
                    folds += 1;
                }
            }
        }
    }
    folds
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::interp::run_module;
    use crate::mir::parse::parse_module;
    use crate::mir::verify::{verify_module, Form};
    use crate::mir::InstFlags;

    fn copies(f: &Function) -> usize {
        f.blocks
            .iter()
            .flat_map(|b| &b.insts)
            .filter(|i| i.flags.contains(InstFlags::COPY))
            .count()
    }

    /// Rastello et al. Fig. 9 in allocation form ([CC1]): `%1` (the first call's result,
    /// copied out of the pinned `%10`) is printed after R0 = $r16 is redefined by the second
    /// call (`%12`). Derivation by hand (one block, all weights 1, copies in program order):
    /// live ranges %10 1-2, %1 2-6, %11 3-4, %12 4-5, %2 5-8, %13 6-7, %14 8-9, %3 10-11,
    /// %15 11-12; edges (copy rule applied) %12-%1, %2-%1, %13-%2; %1 is live across the
    /// call of @g, so $r16 (caller-saved) is forbidden for it.
    /// * `C`: `%1 := %10`, `%11 := %1`, `%13 := %1` are refused ($r16 forbidden for %1);
    ///   `%2 := %12` and `%14 := %2` are refused (%2's neighbour %13 is pinned to $r16);
    ///   `%15 := %3` merges -> 6 - 1 = 5 copies.
    /// * `Cc`: the node $r16 = {%10, %11, %12, %13, %14, %15} has the edges %1 and %2, so the
    ///   same five copies are refused and `%15 := %3` merges -> 5 copies.
    ///
    /// On this figure the register node changes nothing: the partial coalescing the paper
    /// credits to pinning is not available to either coalescer once the value is live across
    /// the call (forbidden register).
    const FIG9: &str = "mfunc @fig9 st231 {
b0:
  .input
  %10:r^$r16 = call fn @f
  %1:r = copy %10 !copy
  %11:r^$r16 = copy %1 !copy
  %12:r^$r16 = call %11^$r16, fn @g
  %2:r = copy %12 !copy
  %13:r^$r16 = copy %1 !copy
  syscall %13^$r16, #2
  %14:r^$r16 = copy %2 !copy
  syscall %14^$r16, #2
  %3:r = add $r0, #0
  %15:r^$r16 = copy %3 !copy
  .output %15^$r16
  return
}

mfunc @f st231 {
b0:
  .input
  %0:r = add $r0, #7
  %1:r^$r16 = copy %0 !copy
  .output %1^$r16
  return
}

mfunc @g st231 {
b0:
  %0:r^$r16 = .input
  %1:r = copy %0 !copy
  %2:r = add %1, #100
  %3:r^$r16 = copy %2 !copy
  .output %3^$r16
  return
}

mfunc @main st231 {
b0:
  .input
  %0:r^$r16 = call fn @fig9
  %1:r = add $r0, #0
  %2:r^$r16 = copy %1 !copy
  .output %2^$r16
  return
}";

    fn run_both(src: &str, name: &str) -> (usize, usize) {
        let mut out = Vec::new();
        for chaitin in [false, true] {
            let mut m = parse_module(src).unwrap_or_else(|e| panic!("{e}"));
            assert!(verify_module(&m, Form::Allocation).is_empty());
            let before = run_module(&m, "main", &Default::default()).expect("runs");
            let mut n = None;
            for f in &mut m.functions {
                if chaitin {
                    coalesce(f).unwrap_or_else(|e| panic!("{e}"));
                } else {
                    super::super::aggressive::coalesce(f).unwrap_or_else(|e| panic!("{e}"));
                }
                if f.name == name {
                    n = Some(copies(f));
                }
            }
            let errs = verify_module(&m, Form::Allocation);
            assert!(errs.is_empty(), "{errs:#?}\n{m}");
            let after = run_module(&m, "main", &Default::default()).expect("runs");
            assert_eq!(
                (after.output, after.exit_code),
                (before.output, before.exit_code)
            );
            out.push(n.expect("function"));
        }
        (out[0], out[1])
    }

    #[test]
    fn figure_9_keeps_five_copies_under_both_coalescers() {
        assert_eq!(run_both(FIG9, "fig9"), (5, 5));
    }

    /// Two `$r16` vregs joined by a copy of one value (`%2 := %1`, both pinned, `%1` dead
    /// after it), the simplest case, where both coalescers delete the copies. By hand: live ranges %0 0-1, %1 1-2,
    /// %2 2-3; no edges. `C`: `%1 := %0` merges %0 into %1's class ($r16), then `%2 := %1`
    /// (both $r16, no pinned neighbour) merges -> 0 copies. `Cc`: %1 and %2 are one node,
    /// `%2 := %1` is a self-copy; `%1 := %0` merges %0 into it -> 0 copies.
    const SAME_REGISTER: &str = "mfunc @main st231 {
b0:
  .input
  %0:r = add $r0, #0
  %1:r^$r16 = copy %0 !copy
  %2:r^$r16 = copy %1 !copy
  .output %2^$r16
  return
}";

    #[test]
    fn copies_within_one_register_disappear_under_both() {
        assert_eq!(run_both(SAME_REGISTER, "main"), (0, 0));
    }
}
