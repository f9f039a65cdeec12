//! CFG clean-up: forwarding of empty blocks and merging of straight-line block pairs, the
//! "simplify CFG" step compilers run after the SSA optimisations (the front end's `if`/loop
//! lowering and the passes that folded branches or emptied blocks leave `jmp`-only blocks).
//!
//! * **Forwarding.** A block with no instruction that just jumps to `T` disappears: its
//!   predecessors jump to `T` directly and `T`'s phis take, for each of them, the argument the
//!   empty block gave. Not done when a predecessor already has an edge to `T` (its phi
//!   arguments could differ, and a branch cannot have two equal targets) or for a self loop.
//! * **Merging.** A block `B` whose only predecessor `P` has `B` as only successor is appended
//!   to `P` (its phis, which have one argument, are replaced by that argument); `B`'s
//!   successors' phis now name `P`.
//!
//! Both keep strict SSA (`P` dominated everything `B` did). A sweep applies the rules to
//! blocks not touched earlier in the same sweep, then unreachable blocks are deleted and the
//! blocks renumbered; sweeps repeat until nothing changes (each one deletes at least a block,
//! so at most `blocks` sweeps, in practice two or three). A sweep forwards at most one block
//! into each target; after [`MAX_CAREFUL_SWEEPS`] sweeps (a counted cap), any number (the
//! target's phis are rewritten once, after the sweep), so that the `n` empty cases of a
//! lowered `switch`, which all jump to its exit, take a few sweeps rather than `n` (issue 27:
//! 10^5 cases took over 300 s) while every ordinary function gets exactly the code it got
//! before.
//!
//! This pass removes loop preheaders that are empty, so it belongs after LICM and strength
//! reduction. Forwarding may create critical edges (e.g. a loop latch that was an empty block
//! becomes a self loop on the header) — the form the out-of-SSA papers start from.
//!
//! Complexity: O(instructions) per sweep; O(instructions) sweeps at worst (a chain of
//! blocks), [`MAX_CAREFUL_SWEEPS`] plus a few for a `switch`.

use super::Subst;
use crate::analysis::cfg::{remove_unreachable_blocks, rename_phi_pred, Cfg};
use crate::ir::{BlockId, Function, Op, Terminator};

/// What the CFG clean-up did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimplifyCfgStats {
    pub forwarded: usize,
    pub merged: usize,
}

/// What one sweep has changed so far (the sweep's [`Cfg`] is not updated as it goes).
struct Sweep {
    /// Blocks whose terminator, instructions or predecessors changed: no rule applies to
    /// them again in this sweep.
    touched: Vec<bool>,
    /// Blocks that gained predecessors by forwarding: their predecessor lists in the sweep's
    /// `Cfg` are stale, and their phis await [`rewrite_forwarded_phis`].
    gained_preds: Vec<bool>,
    /// Forwarded blocks, in order: `(b, t)` = empty block `b` now bypassed to `t`.
    forwards: Vec<(BlockId, BlockId)>,
    /// At most one forwarding into each target (the first [`MAX_CAREFUL_SWEEPS`] sweeps).
    one_forward_per_target: bool,
}

/// Sweeps that forward at most one block into each target. This is the original order of the
/// rules, kept so that the code of every ordinary function (two or three sweeps) is unchanged;
/// a function that needs more sweeps (the `n` empty cases of a lowered `switch` all jump to
/// its exit: one sweep per case) continues with any number of forwardings per target per
/// sweep, so that its clean-up stays O(n) sweeps' worth of work in total.
pub const MAX_CAREFUL_SWEEPS: usize = 64;

/// Cleans up the CFG of `f` (see the module doc).
pub fn simplify_cfg(f: &mut Function) -> SimplifyCfgStats {
    let mut stats = SimplifyCfgStats::default();
    for sweeps in 0.. {
        let cfg = Cfg::compute(f);
        let mut sweep = Sweep {
            touched: vec![false; f.num_blocks()],
            gained_preds: vec![false; f.num_blocks()],
            forwards: Vec::new(),
            one_forward_per_target: sweeps < MAX_CAREFUL_SWEEPS,
        };
        let mut subst = Subst::new(f.num_values());
        let mut changed = false;
        for b in 1..f.num_blocks() {
            let b = BlockId(b as u32);
            if sweep.touched[b.index()] || !cfg.is_reachable(b) {
                continue;
            }
            if try_forward(f, &cfg, b, &mut sweep) {
                stats.forwarded += 1;
                changed = true;
            } else if try_merge(f, &cfg, b, &mut sweep, &mut subst) {
                stats.merged += 1;
                changed = true;
            }
        }
        if !changed {
            return stats;
        }
        rewrite_forwarded_phis(f, &cfg, &sweep.forwards);
        subst.apply(f);
        remove_unreachable_blocks(f);
    }
    unreachable!("the sweeps end when nothing changes")
}

/// Forwards the empty block `b` to its jump target. Several blocks may be forwarded to one
/// target in a sweep (the cases of a lowered `switch` all jump to its exit): the target's
/// phis are rewritten once, after the sweep, so that a switch of `n` cases costs O(n), not
/// `n` sweeps.
fn try_forward(f: &mut Function, cfg: &Cfg, b: BlockId, sweep: &mut Sweep) -> bool {
    let block = f.block(b);
    let Terminator::Jump(t) = block.term else {
        return false;
    };
    let preds = cfg.preds(b);
    // An untouched predecessor has its sweep-start successors, so `has_edge` is current.
    if !block.insts.is_empty()
        || t == b
        || preds.is_empty()
        || sweep.gained_preds[b.index()]
        || sweep.touched[t.index()]
        || (sweep.one_forward_per_target && sweep.gained_preds[t.index()])
        || preds.iter().any(|&p| {
            sweep.touched[p.index()]
                || sweep.gained_preds[p.index()]
                || p == b
                || cfg.has_edge(p, t)
        })
    {
        return false;
    }
    for &p in preds {
        f.block_mut(p).term.replace_successor(b, t);
        sweep.touched[p.index()] = true;
    }
    // `b` is now unreachable; it still jumps to `t`, so make it a dead end.
    f.set_term(b, Terminator::Unreachable);
    sweep.touched[b.index()] = true;
    sweep.gained_preds[t.index()] = true;
    sweep.forwards.push((b, t));
    true
}

/// Gives each target of a forwarding its new phi arguments: the argument that came from a
/// forwarded block `b` is removed and one per predecessor of `b` is appended (in forwarding
/// order, as if the forwardings had been done one at a time). One pass over each target's
/// phis: linear in their arguments.
fn rewrite_forwarded_phis(f: &mut Function, cfg: &Cfg, forwards: &[(BlockId, BlockId)]) {
    let mut by_target: Vec<Vec<BlockId>> = vec![Vec::new(); f.num_blocks()];
    let mut targets = Vec::new();
    for &(b, t) in forwards {
        if by_target[t.index()].is_empty() {
            targets.push(t);
        }
        by_target[t.index()].push(b);
    }
    let mut forwarded = vec![false; f.num_blocks()];
    for t in targets {
        let bs = std::mem::take(&mut by_target[t.index()]);
        for &b in &bs {
            forwarded[b.index()] = true;
        }
        for inst in &mut f.block_mut(t).insts {
            let Op::Phi(args) = &mut inst.op else { break };
            let mut value_of = std::collections::HashMap::with_capacity(bs.len());
            args.retain(|&(q, v)| {
                let keep = !forwarded[q.index()];
                if !keep {
                    value_of.insert(q, v);
                }
                keep
            });
            for &b in &bs {
                if let Some(&v) = value_of.get(&b) {
                    args.extend(cfg.preds(b).iter().map(|&p| (p, v)));
                }
            }
        }
        for &b in &bs {
            forwarded[b.index()] = false;
        }
    }
}

/// Appends `b` to its single predecessor when that predecessor only jumps to `b`.
fn try_merge(
    f: &mut Function,
    cfg: &Cfg,
    b: BlockId,
    sweep: &mut Sweep,
    subst: &mut Subst,
) -> bool {
    let touched = &mut sweep.touched;
    if sweep.gained_preds[b.index()] {
        return false;
    }
    let [p] = cfg.preds(b) else {
        return false;
    };
    let p = *p;
    if p == b
        || touched[p.index()]
        || sweep.gained_preds[p.index()]
        || f.block(p).term != Terminator::Jump(b)
    {
        return false;
    }
    // A successor awaiting forwarded phi arguments is renamed only after the sweep.
    if cfg
        .succs(b)
        .iter()
        .any(|s| touched[s.index()] || sweep.gained_preds[s.index()])
    {
        return false;
    }
    let moved = std::mem::take(&mut f.block_mut(b).insts);
    let term = std::mem::replace(&mut f.block_mut(b).term, Terminator::Unreachable);
    for inst in moved {
        match (&inst.op, inst.dst) {
            // A phi of a block with one predecessor has one argument.
            (Op::Phi(args), Some(d)) => subst.set(d, args[0].1),
            _ => f.block_mut(p).insts.push(inst),
        }
    }
    for &s in cfg.succs(b) {
        rename_phi_pred(f, s, b, p);
        touched[s.index()] = true;
    }
    f.block_mut(p).term = term;
    touched[p.index()] = true;
    touched[b.index()] = true;
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse::parse_function;

    fn run(src: &str) -> (String, SimplifyCfgStats) {
        let mut f = parse_function(src).expect("parse");
        let stats = simplify_cfg(&mut f);
        if let Err(e) = crate::ssa::verify_function(&f) {
            panic!("{e:?}\n{f}");
        }
        (f.to_string(), stats)
    }

    #[test]
    fn empty_latch_becomes_self_loop_and_chain_merges() {
        // The one-argument phi of b3 stays (copy propagation removes such phis); b4 is
        // appended to b3.
        let (text, stats) = run("func @f(%0:i32) -> i32 {
b0:
  %1:i32 = const 1
  jmp b1
b1:
  %2:i32 = phi [b0: %0], [b2: %3]
  %3:i32 = sub %2, %1
  br %3, b2, b3
b2:
  jmp b1
b3:
  %4:i32 = phi [b1: %3]
  jmp b4
b4:
  ret %4
}");
        assert_eq!(
            stats,
            SimplifyCfgStats {
                forwarded: 1,
                merged: 1
            }
        );
        let expect = parse_function(
            "func @f(%0:i32) -> i32 {
b0:
  %1:i32 = const 1
  jmp b1
b1:
  %2:i32 = phi [b0: %0], [b1: %3]
  %3:i32 = sub %2, %1
  br %3, b1, b2
b2:
  %4:i32 = phi [b1: %3]
  ret %4
}",
        )
        .unwrap();
        assert_eq!(text, expect.to_string());
    }

    /// A lowered `switch` of `n` cases: a chain of compares, each case an empty block that
    /// jumps to the exit, whose phi takes one constant per case.
    fn switch_chain(n: usize) -> String {
        let mut s = String::from("func @f(%0:i32) -> i32 {\nb0:\n  %1:i32 = const 0\n  jmp b1\n");
        let exit = 2 * n + 1;
        let mut phi = Vec::new();
        for k in 0..n {
            let (test, case) = (2 * k + 1, 2 * k + 2);
            let next = if k + 1 < n { 2 * k + 3 } else { exit };
            s += &format!("b{test}:\n  %{}:i32 = const {k}\n  %{}:i32 = cmp.eq %0, %{}\n  br %{}, b{case}, b{next}\n", 2 * k + 2, 2 * k + 3, 2 * k + 2, 2 * k + 3);
            s += &format!("b{case}:\n  jmp b{exit}\n");
            phi.push(format!("[b{case}: %{}]", 2 * k + 2));
        }
        phi.push(format!("[b{}: %1]", 2 * n - 1));
        s += &format!(
            "b{exit}:\n  %{}:i32 = phi {}\n  ret %{}\n}}\n",
            2 * n + 2,
            phi.join(", "),
            2 * n + 2
        );
        s
    }

    #[test]
    fn a_large_switch_is_cleaned_up_in_linear_time() {
        // Each case's block is forwarded (the exit's phi then names the compare blocks); the
        // last compare already reaches the exit, so its case block stays. Beyond the careful
        // sweeps this takes a few sweeps, not one per case.
        let n = 20_000;
        let start = std::time::Instant::now();
        let (text, stats) = run(&switch_chain(n));
        assert_eq!(stats.forwarded, n - 1, "{stats:?}");
        assert!(start.elapsed().as_secs() < 30, "{:?}", start.elapsed());
        let phi = text.lines().find(|l| l.contains("phi")).unwrap();
        assert_eq!(phi.matches('[').count(), n + 1);
        // Small switches get exactly the sweeps they always got: one forwarding per target
        // per sweep.
        let (_, small) = run(&switch_chain(5));
        assert_eq!(small.forwarded, 4);
    }

    #[test]
    fn forwarding_refused_when_the_predecessor_already_reaches_the_target() {
        // b1 is empty, but b0 also jumps to b2 directly with another phi argument.
        let (text, stats) = run("func @f(%0:i32) -> i32 {
b0:
  %1:i32 = const 1
  br %0, b1, b2
b1:
  jmp b2
b2:
  %2:i32 = phi [b0: %0], [b1: %1]
  ret %2
}");
        assert_eq!(stats, SimplifyCfgStats::default());
        assert!(text.contains("%2:i32 = phi [b0: %0], [b1: %1]"));
    }
}
