//! `interference`: the interference and move graph that iterated register coalescing builds
//! for each register class (`regalloc::interference`, George & Appel's `Build`), coloured
//! by the registers IRC assigns.
//!
//! The point must be the input of `irc` (the default): the graph is IRC's own, obtained by
//! replaying `irc` on that input through `regalloc::irc::allocate_traced`. A class that
//! needed spill rounds is drawn as built in its last round (the one that coloured), which
//! includes the spill temporaries.
//!
//! Drawing, one cluster per class:
//! * a virtual register is an ellipse `%N` with the register it got, filled with that
//!   register's colour; a node coalesced into another says so (`= %M`);
//! * a physical register is a box, filled with its colour; the vregs pinned to it (renaming
//!   constraints: ABI arguments and results, the stack pointer) *are* that node in IRC
//!   and are listed in it (`pinned: %3 %7`). Only registers with a pin or a move are drawn:
//!   the edges to the others (mostly the registers a call clobbers while the vreg is live
//!   across it) are counted in the vreg's label (`+N regs`);
//! * an interference edge is a plain line; a move (copy) is a dashed blue line labelled with
//!   its weight `5^depth`, green when IRC coalesced its two ends. Edges between two
//!   registers are left out.

use super::dot::{palette, text, Dot};
use super::{Context, Kind};
use crate::mir::target::{classes, reg_name};
use crate::mir::{Function, PReg, RegClass};
use crate::regalloc::interference::{pins, Picture};
use crate::regalloc::irc::{allocate_traced, Round};

fn node_id(c: RegClass, n: u32) -> String {
    format!("{c:?}.{n}")
}

/// The DOT text of `f`'s interference graphs, or why there is none.
pub fn render(f: &Function, ctx: &Context) -> Result<String, String> {
    if ctx.next != Some("irc") {
        return Err(format!(
            "interference: the graph is the one `irc` builds on its input; `--after {}` is \
             not the pass right before `irc` in configuration `{}`",
            ctx.stage, ctx.config.name
        ));
    }
    let mut g = f.clone();
    let mut rounds = Vec::new();
    allocate_traced(&mut g, &ctx.config.regalloc, &mut rounds)
        .map_err(|e| format!("interference: replaying irc on @{}: {e}", f.name))?;
    let pin_of = pins(f).map_err(|e| format!("interference: @{}: {e}", f.name))?;
    let mut d = Dot::new(
        false,
        &Context::graph_name(f, Kind::Interference),
        &ctx.title(f, Kind::Interference),
    );
    for &c in classes(f.target) {
        let Some(last) = rounds.iter().rev().find(|r| r.graph.class == c) else {
            continue;
        };
        if last.graph.node_vreg.is_empty() {
            continue;
        }
        let spill_rounds = last.round - 1;
        let label = if spill_rounds > 0 {
            format!(
                "class {c:?} (colouring round {}, after {spill_rounds} spill round(s))",
                last.round
            )
        } else {
            format!("class {c:?}")
        };
        d.cluster(&format!("{c:?}"), &label);
        draw_class(&mut d, f, last, &pin_of);
        d.close();
    }
    Ok(d.finish())
}

fn draw_class(d: &mut Dot, f: &Function, round: &Round, pin_of: &[Option<PReg>]) {
    let g: &Picture = &round.graph;
    let c = g.class;
    let n_phys = g.n_phys as u32;
    let vreg_of = |n: u32| g.node_vreg[(n - n_phys) as usize];
    let name = |n: u32| {
        if n < n_phys {
            reg_name(f.target, PReg::new(c, n as u8))
        } else {
            format!("%{}", vreg_of(n).0)
        }
    };
    // Registers worth drawing: a move or a pinned vreg. The others' edges (mostly call
    // clobbers) are counted in their vreg's label instead of drawn.
    let mut shown = vec![false; g.n_phys];
    for m in &g.moves {
        for n in [m.dst, m.src] {
            if n < n_phys {
                shown[n as usize] = true;
            }
        }
    }
    let mut pinned: Vec<Vec<String>> = vec![Vec::new(); g.n_phys];
    for (v, p) in pin_of.iter().enumerate() {
        if let Some(p) = p.filter(|p| p.class == c) {
            pinned[usize::from(p.num)].push(format!("%{v}"));
            shown[usize::from(p.num)] = true;
        }
    }
    for r in 0..n_phys {
        if !shown[r as usize] {
            continue;
        }
        let mut label = name(r);
        if !pinned[r as usize].is_empty() {
            label.push_str(&format!("\npinned: {}", pinned[r as usize].join(" ")));
        }
        d.node(
            &node_id(c, r),
            vec![
                ("label", text(&label)),
                ("shape", text("box")),
                ("style", text("filled")),
                ("fillcolor", palette(r as usize)),
            ],
        );
    }
    let mut hidden = vec![0u32; g.n_phys + g.node_vreg.len()];
    for &(a, b) in &g.edges {
        if a < n_phys && !shown[a as usize] {
            hidden[b as usize] += 1;
        }
    }
    for n in n_phys..n_phys + g.node_vreg.len() as u32 {
        let mut label = name(n);
        let mut attrs = Vec::new();
        match round.color[n as usize] {
            Some(k) => {
                label.push('\n');
                label.push_str(&reg_name(f.target, PReg::new(c, k)));
                attrs.push(("style", text("filled")));
                attrs.push(("fillcolor", palette(usize::from(k))));
            }
            None => {
                label.push_str("\nspilled");
                attrs.push(("style", text("dashed")));
            }
        }
        let a = round.alias[n as usize];
        if a != n {
            label.push_str(&format!("\n= {}", name(a)));
        }
        if hidden[n as usize] > 0 {
            label.push_str(&format!("\n+{} regs", hidden[n as usize]));
        }
        attrs.insert(0, ("label", text(&label)));
        d.node(&node_id(c, n), attrs);
    }
    for &(a, b) in &g.edges {
        if a >= n_phys || shown[a as usize] {
            d.edge(&node_id(c, a), &node_id(c, b), vec![]);
        }
    }
    for m in &g.moves {
        if m.dst == m.src {
            continue;
        }
        let coalesced = round.alias[m.dst as usize] == round.alias[m.src as usize];
        let colour = if coalesced { "darkgreen" } else { "blue" };
        d.edge(
            &node_id(c, m.dst),
            &node_id(c, m.src),
            vec![
                ("style", text("dashed")),
                ("color", text(colour)),
                ("label", text(&format!("move {}", m.weight))),
            ],
        );
    }
}
