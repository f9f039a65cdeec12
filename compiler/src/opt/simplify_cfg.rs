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
//! so at most `blocks` sweeps, in practice two or three).
//!
//! This pass removes loop preheaders that are empty, so it belongs after LICM and strength
//! reduction. Forwarding may create critical edges (e.g. a loop latch that was an empty block
//! becomes a self loop on the header) — the form the out-of-SSA papers start from.
//!
//! Complexity: O(instructions) per sweep.

use super::Subst;
use crate::analysis::cfg::{remove_unreachable_blocks, rename_phi_pred, Cfg};
use crate::ir::{BlockId, Function, Op, Terminator};

/// What the CFG clean-up did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimplifyCfgStats {
    pub forwarded: usize,
    pub merged: usize,
}

/// Cleans up the CFG of `f` (see the module doc).
pub fn simplify_cfg(f: &mut Function) -> SimplifyCfgStats {
    let mut stats = SimplifyCfgStats::default();
    loop {
        let cfg = Cfg::compute(f);
        let mut touched = vec![false; f.num_blocks()];
        let mut subst = Subst::new(f.num_values());
        let mut changed = false;
        for b in 1..f.num_blocks() {
            let b = BlockId(b as u32);
            if touched[b.index()] || !cfg.is_reachable(b) {
                continue;
            }
            if try_forward(f, &cfg, b, &mut touched) {
                stats.forwarded += 1;
                changed = true;
            } else if try_merge(f, &cfg, b, &mut touched, &mut subst) {
                stats.merged += 1;
                changed = true;
            }
        }
        if !changed {
            return stats;
        }
        subst.apply(f);
        remove_unreachable_blocks(f);
    }
}

/// Forwards the empty block `b` to its jump target.
fn try_forward(f: &mut Function, cfg: &Cfg, b: BlockId, touched: &mut [bool]) -> bool {
    let block = f.block(b);
    let Terminator::Jump(t) = block.term else {
        return false;
    };
    let preds = cfg.preds(b);
    if !block.insts.is_empty()
        || t == b
        || preds.is_empty()
        || touched[t.index()]
        || preds
            .iter()
            .any(|&p| touched[p.index()] || p == b || cfg.has_edge(p, t))
    {
        return false;
    }
    for &p in preds {
        f.block_mut(p).term.replace_successor(b, t);
    }
    for inst in &mut f.block_mut(t).insts {
        let Op::Phi(args) = &mut inst.op else { break };
        if let Some(k) = args.iter().position(|&(q, _)| q == b) {
            let (_, v) = args.remove(k);
            args.extend(preds.iter().map(|&p| (p, v)));
        }
    }
    // `b` is now unreachable; it still jumps to `t`, so make it a dead end.
    f.set_term(b, Terminator::Unreachable);
    touched[b.index()] = true;
    touched[t.index()] = true;
    for &p in preds {
        touched[p.index()] = true;
    }
    true
}

/// Appends `b` to its single predecessor when that predecessor only jumps to `b`.
fn try_merge(
    f: &mut Function,
    cfg: &Cfg,
    b: BlockId,
    touched: &mut [bool],
    subst: &mut Subst,
) -> bool {
    let [p] = cfg.preds(b) else {
        return false;
    };
    let p = *p;
    if p == b || touched[p.index()] || f.block(p).term != Terminator::Jump(b) {
        return false;
    }
    if cfg.succs(b).iter().any(|s| touched[s.index()]) {
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
