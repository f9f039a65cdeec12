//! `affinity`: the copy and phi affinities of one function — which variables would like to
//! share a register, and how much it is worth.
//!
//! Base graph (any point): a node per variable (or physical register) that is an operand of
//! a phi or of a copy (`copy`, parallel-copy pairs, unguarded); an edge per pair, labelled
//! with its weight: the sum over the phi operands and copies it stands for of `5^depth` of
//! the block the copy sits in (a phi argument's copy sits at the end of its predecessor).
//!
//! When the next pass is one of the affinity-driven passes, the drawing shows what it did
//! (replayed on a copy of its input through its traced entry point):
//! * `leung-phi*` (Rastello et al.'s `pinning_phi`, Algorithms 2–4): one cluster per block
//!   holding phis, as the pass visits them; a node is a *resource* (its variables, its
//!   register if physical), an edge an affinity with its multiplicity. Edges removed by
//!   `Graph_InitialPruning` (the resources interfere) are dashed red, those removed by
//!   `BipartiteGraph_pruning` dashed orange, kept edges bold green. Resources merged into
//!   one web share a fill colour and a `web` line.
//! * `coalesce` / `coalesce-chaitin` (the paper's repeated aggressive coalescer C): every
//!   variable is filled with the colour of the web it ended in (webs of one variable stay
//!   white); a coalesced copy is bold green, a copy that stays dashed red.

use super::dot::{palette, text, Dot};
use super::{reg_label, Context, Kind};
use crate::backend::LEUNG_PASSES;
use crate::mir::cfg::CfgInfo;
use crate::mir::{Function, InstFlags, Opc, Reg, VReg};
use crate::out_of_ssa::leung_george::translate_traced;
use crate::out_of_ssa::pinning_phi::{BlockTrace, EdgeFate};
use std::collections::BTreeMap;

/// One affinity of the base graph: an unordered pair of operands with its total weight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Affinity {
    pub a: Reg,
    pub b: Reg,
    pub weight: u64,
    /// How many phi operands and copies it stands for.
    pub count: u32,
}

/// The phi and copy affinities of `f`, one per unordered pair, in first-seen order.
pub fn affinities(f: &Function) -> Vec<Affinity> {
    let info = CfgInfo::compute(f);
    let mut out: Vec<Affinity> = Vec::new();
    let mut add = |a: Reg, b: Reg, w: u64| {
        if a == b {
            return;
        }
        match out
            .iter_mut()
            .find(|x| (x.a, x.b) == (a, b) || (x.a, x.b) == (b, a))
        {
            Some(x) => {
                x.weight = x.weight.saturating_add(w);
                x.count += 1;
            }
            None => out.push(Affinity {
                a,
                b,
                weight: w,
                count: 1,
            }),
        }
    };
    for b in f.block_ids() {
        for inst in &f.block(b).insts {
            if inst.is_phi() {
                for (u, &p) in inst.uses.iter().zip(inst.phi_blocks()) {
                    add(inst.defs[0].reg, u.reg, info.weight(p));
                }
            } else if matches!(inst.opc, Opc::Copy | Opc::ParCopy)
                && !inst.flags.contains(InstFlags::GUARDED)
            {
                for (d, u) in inst.defs.iter().zip(&inst.uses) {
                    add(d.reg, u.reg, info.weight(b));
                }
            }
        }
    }
    out
}

/// The DOT text of `f`'s affinity graph at `ctx`'s point.
pub fn render(f: &Function, ctx: &Context) -> Result<String, String> {
    let mut d = Dot::new(
        false,
        &Context::graph_name(f, Kind::Affinity),
        &ctx.title(f, Kind::Affinity),
    );
    match ctx.next {
        Some(p) if p.starts_with("leung-phi") => draw_pinning_phi(&mut d, f, p)?,
        Some(p @ ("coalesce" | "coalesce-chaitin")) => draw_coalesced(&mut d, f, p)?,
        _ => draw_base(&mut d, f, &|_| None, None),
    }
    Ok(d.finish())
}

/// The base graph; `web` gives a node's fill group, `kept` says whether an affinity's copy
/// stays (`Some(true)`), was coalesced (`Some(false)`) or is not judged (`None`).
fn draw_base(
    d: &mut Dot,
    f: &Function,
    web: &dyn Fn(Reg) -> Option<usize>,
    kept: Option<&dyn Fn(&Affinity) -> bool>,
) {
    let affs = affinities(f);
    let mut nodes: Vec<Reg> = Vec::new();
    for a in &affs {
        for r in [a.a, a.b] {
            if !nodes.contains(&r) {
                nodes.push(r);
            }
        }
    }
    for &r in &nodes {
        let mut attrs = vec![("label", text(&reg_label(f, r)))];
        if matches!(r, Reg::P(_)) {
            attrs.push(("shape", text("box")));
        }
        if let Some(w) = web(r) {
            attrs.push(("style", text("filled")));
            attrs.push(("fillcolor", palette(w)));
        }
        d.node(&reg_label(f, r), attrs);
    }
    for a in &affs {
        let mut label = a.weight.to_string();
        if a.count > 1 {
            label.push_str(&format!(" ({}x)", a.count));
        }
        let mut attrs = vec![("label", text(&label))];
        match kept.map(|k| k(a)) {
            Some(true) => {
                attrs.push(("style", text("dashed")));
                attrs.push(("color", text("red")));
            }
            Some(false) => {
                attrs.push(("color", text("darkgreen")));
                attrs.push(("penwidth", text("2")));
            }
            None => {}
        }
        d.edge(&reg_label(f, a.a), &reg_label(f, a.b), attrs);
    }
}

/// `coalesce` / `coalesce-chaitin`: the base graph with the webs the coalescer made.
fn draw_coalesced(d: &mut Dot, f: &Function, pass: &str) -> Result<(), String> {
    let mut g = f.clone();
    let mut class: Vec<VReg> = Vec::new();
    let replay = if pass == "coalesce" {
        crate::coalesce::aggressive::coalesce_traced(&mut g, &mut class).map(|_| ())
    } else {
        crate::coalesce::chaitin::coalesce_traced(&mut g, &mut class).map(|_| ())
    };
    replay.map_err(|e| format!("affinity: replaying {pass} on @{}: {e}", f.name))?;
    let web_of = |r: Reg| r.vreg().and_then(|v| class.get(v.index()).copied());
    // Webs with more than one member get a colour index (in order of their root).
    let mut size: BTreeMap<VReg, usize> = BTreeMap::new();
    for &c in &class {
        *size.entry(c).or_default() += 1;
    }
    let colour: BTreeMap<VReg, usize> = size
        .iter()
        .filter(|(_, &n)| n > 1)
        .enumerate()
        .map(|(k, (&c, _))| (c, k))
        .collect();
    let web = |r: Reg| web_of(r).and_then(|c| colour.get(&c).copied());
    let kept = |a: &Affinity| match (web_of(a.a), web_of(a.b)) {
        (Some(x), Some(y)) => x != y,
        _ => true,
    };
    draw_base(d, f, &web, Some(&kept));
    Ok(())
}

/// `leung-phi*`: pinning_phi's per-block affinity graphs.
fn draw_pinning_phi(d: &mut Dot, f: &Function, pass: &str) -> Result<(), String> {
    let phases = LEUNG_PASSES
        .iter()
        .find(|(n, _)| *n == pass)
        .map(|(_, p)| *p)
        .ok_or_else(|| format!("affinity: no pinning phases for `{pass}`"))?;
    let mut g = f.clone();
    let mut trace: Vec<BlockTrace> = Vec::new();
    translate_traced(&mut g, phases, &mut trace)
        .map_err(|e| format!("affinity: replaying {pass} on @{}: {e}", f.name))?;
    if trace.is_empty() {
        d.node(
            "none",
            vec![
                ("label", text("no phi affinity (no block with phis to pin)")),
                ("shape", text("plaintext")),
            ],
        );
    }
    // One colour per merged web over the whole function.
    let mut webs: Vec<u32> = Vec::new();
    for (k, bt) in trace.iter().enumerate() {
        let depth = bt
            .depth
            .map(|x| format!(", depth level {x}"))
            .unwrap_or_default();
        d.cluster(&format!("t{k}"), &format!("phis of {}{depth}", bt.block));
        // A web is worth a colour only if two vertices of this graph merged into it.
        let merged = |root: u32| bt.vertices.iter().filter(|v| v.merged_root == root).count() > 1;
        for (i, v) in bt.vertices.iter().enumerate() {
            let mut label: Vec<String> = v.members.iter().map(|m| format!("%{}", m.0)).collect();
            if let Some(p) = v.phys {
                label.insert(0, crate::mir::target::reg_name(f.target, p));
            }
            let mut attrs = Vec::new();
            if v.phys.is_some() {
                attrs.push(("shape", text("box")));
            }
            if merged(v.merged_root) {
                let w = match webs.iter().position(|&r| r == v.merged_root) {
                    Some(w) => w,
                    None => {
                        webs.push(v.merged_root);
                        webs.len() - 1
                    }
                };
                label.push(format!("web {w}"));
                attrs.push(("style", text("filled")));
                attrs.push(("fillcolor", palette(w)));
            }
            attrs.insert(0, ("label", text(&label.join("\n"))));
            d.node(&format!("t{k}.{i}"), attrs);
        }
        for e in &bt.edges {
            let mut label = String::new();
            if e.multiplicity > 1 {
                label = format!("{}x", e.multiplicity);
            }
            let mut attrs = Vec::new();
            match e.fate {
                EdgeFate::Interfering => {
                    label = format!("{label} interfere").trim().to_string();
                    attrs.push(("style", text("dashed")));
                    attrs.push(("color", text("red")));
                }
                EdgeFate::Pruned => {
                    label = format!("{label} pruned").trim().to_string();
                    attrs.push(("style", text("dashed")));
                    attrs.push(("color", text("orange")));
                }
                EdgeFate::Kept => {
                    attrs.push(("color", text("darkgreen")));
                    attrs.push(("penwidth", text("2")));
                }
            }
            if !label.is_empty() {
                attrs.insert(0, ("label", text(&label)));
            }
            d.edge(&format!("t{k}.{}", e.x), &format!("t{k}.{}", e.y), attrs);
        }
        d.close();
    }
    Ok(())
}
