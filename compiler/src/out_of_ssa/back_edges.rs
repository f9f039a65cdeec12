//! Splitting of the *critical back edges* into phi blocks (issue 20, item 5): where a loop's
//! exit test is in the block that holds the loop's phis (e.g. `rotate4` in
//! `programs/dsp/phi_swap.c`, a one-block loop `b1 -> b1 | exit`), the copies an out-of-SSA
//! translation places at the end of the latch for the back edge run on the exit path as
//! well, and Leung & George's translation must then repair the values the exit still needs.
//! Splitting the back edge gives those copies a block of their own (SSA book ch. 21 §21.1:
//! "The algorithm described in Sect. 3.2 involves the splitting of every critical edge").
//!
//! An edge `P -> S` is split when it is critical (`P` has several successors, `S` several
//! predecessors), a back edge (`S` dominates `P`) and `S` starts with phis. The splitting
//! itself is [`crate::mir::split_edges::split_edge`] (new blocks appended, phis renamed).
//! SSA form in, SSA form out. O(blocks + edges + phi operands).

use crate::mir::cfg::CfgInfo;
use crate::mir::split_edges::split_edge;
use crate::mir::{BlockId, Function};
use crate::pipeline::PassDetail;

/// Splits the critical back edges into phi blocks; returns the number of edges split.
pub fn split_critical_back_edges(f: &mut Function) -> usize {
    let info = CfgInfo::compute(f);
    let mut edges = Vec::new();
    for p in info.rpo() {
        let succs: Vec<BlockId> = info.succs(p).collect();
        if succs.len() < 2 {
            continue;
        }
        for s in succs {
            let critical = info.preds(s).count() > 1;
            let has_phis = f.blocks[s.index()].phi_end() > 0;
            if critical && has_phis && info.dominates(s, p) {
                edges.push((p, s));
            }
        }
    }
    for &(p, s) in &edges {
        split_edge(f, p, s);
    }
    edges.len()
}

/// The pass entry point (`split-back-edges`).
pub fn run(f: &mut Function) -> Result<PassDetail, String> {
    Ok(vec![(
        "critical_back_edges_split",
        split_critical_back_edges(f) as u64,
    )])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::interp::run_module;
    use crate::mir::parse::parse_module;
    use crate::mir::verify::{verify_module, Form};

    /// The lost-copy loop: `b1 -> b1` is a back edge, critical (b1 also exits to b2; b1 has
    /// the predecessors b0 and b1) into a phi block: split once; `b0 -> b1` is not critical
    /// (b0 has one successor) and `b1 -> b2` is no back edge.
    #[test]
    fn the_self_loop_of_the_lost_copy_is_split_once() {
        let src = include_str!("../../tests/mir/ssa-book-lost-copy.mir");
        let text: String = src
            .lines()
            .map(|l| {
                if l.trim_start().starts_with('#') {
                    ""
                } else {
                    l
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        let mut m = parse_module(&text).expect("parses");
        let before = run_module(&m, "main", &Default::default()).expect("runs");
        let f = m
            .functions
            .iter_mut()
            .find(|f| f.name == "lost_copy")
            .unwrap();
        assert_eq!(split_critical_back_edges(f), 1);
        assert_eq!(split_critical_back_edges(f), 0, "nothing critical is left");
        assert!(verify_module(&m, Form::Ssa).is_empty());
        let after = run_module(&m, "main", &Default::default()).expect("runs");
        assert_eq!(after.output, before.output);
    }
}
