//! `cfg`: the control-flow graph of one function at one point of the pipeline.
//!
//! One box per block: its name, loop depth and frequency in the title line, then its
//! instructions as the machine-IR printer writes them. The frequency is the LAI file's
//! `.freq` for the block when it gives one, otherwise `5^depth` (the papers' static
//! weight, `mir::cfg::CfgInfo::weight`), marked `5^d`. Copies (instructions flagged `COPY`:
//! copies and parallel copies) are prefixed `[copy]`, spill code (`SPILL_LOAD`,
//! `SPILL_STORE`, `REMAT`) `[spill]`; a block holding copies is filled yellow, one holding
//! spill code red (both: orange), so that the costly places show at a glance. An edge whose
//! target dominates its source (a loop's back edge) is dashed and labelled `back`;
//! unreachable blocks are grey.

use super::dot::{left, text, Dot};
use super::{Context, Kind};
use crate::mir::cfg::CfgInfo;
use crate::mir::print::inst_to_string;
use crate::mir::{BlockId, Function, Inst, InstFlags};

/// Fill colours (see the module doc).
const COPY_FILL: &str = "#fff2a8";
const SPILL_FILL: &str = "#f7b2b2";
const BOTH_FILL: &str = "#fdc67a";
const UNREACHABLE_FILL: &str = "#e0e0e0";

fn is_copy(i: &Inst) -> bool {
    i.flags.contains(InstFlags::COPY)
}

fn is_spill(i: &Inst) -> bool {
    i.flags
        .intersects(InstFlags::SPILL_LOAD | InstFlags::SPILL_STORE | InstFlags::REMAT)
}

/// The block's frequency and whether it is the LAI's own (`true`) or `5^depth`.
fn frequency(ctx: &Context, info: &CfgInfo, b: BlockId) -> (u64, bool) {
    match ctx.freqs.and_then(|f| f.get(b.index()).copied().flatten()) {
        Some(q) => (q, true),
        None => (info.weight(b), false),
    }
}

/// The block's label: title line, then one line per instruction.
fn block_label(f: &Function, ctx: &Context, info: &CfgInfo, b: BlockId) -> String {
    let depth = info.loop_depth(b);
    let (freq, given) = frequency(ctx, info, b);
    let source = if given { "freq" } else { "5^d" };
    let mut s = format!("{b}  depth {depth}  {source} {freq}\n");
    for inst in &f.block(b).insts {
        let tag = if is_spill(inst) {
            "[spill] "
        } else if is_copy(inst) {
            "[copy] "
        } else {
            ""
        };
        s.push_str(tag);
        s.push_str(&inst_to_string(f, inst));
        s.push('\n');
    }
    s
}

fn fill(f: &Function, info: &CfgInfo, b: BlockId) -> Option<&'static str> {
    if !info.is_reachable(b) {
        return Some(UNREACHABLE_FILL);
    }
    let insts = &f.block(b).insts;
    match (insts.iter().any(is_copy), insts.iter().any(is_spill)) {
        (true, true) => Some(BOTH_FILL),
        (true, false) => Some(COPY_FILL),
        (false, true) => Some(SPILL_FILL),
        (false, false) => None,
    }
}

/// The DOT text of `f`'s CFG.
pub fn render(f: &Function, ctx: &Context) -> String {
    let info = CfgInfo::compute(f);
    let mut d = Dot::new(
        true,
        &Context::graph_name(f, Kind::Cfg),
        &ctx.title(f, Kind::Cfg),
    );
    d.defaults(
        "node",
        vec![("shape", text("box")), ("fontname", text("monospace"))],
    );
    for b in f.block_ids() {
        let mut attrs = vec![("label", left(&block_label(f, ctx, &info, b)))];
        if let Some(c) = fill(f, &info, b) {
            attrs.push(("style", text("filled")));
            attrs.push(("fillcolor", text(c)));
        }
        // Thicker borders for deeper loops: the weight grows with the depth.
        let depth = info.loop_depth(b);
        if depth > 0 {
            attrs.push(("penwidth", text(&(1 + depth.min(4)).to_string())));
        }
        d.node(&b.to_string(), attrs);
    }
    for b in f.block_ids() {
        let mut seen = Vec::new();
        for s in f.block(b).successors() {
            if s.index() >= f.blocks.len() || seen.contains(&s) {
                continue;
            }
            seen.push(s);
            let mut attrs = Vec::new();
            if info.is_reachable(b) && info.dominates(s, b) {
                attrs.push(("style", text("dashed")));
                attrs.push(("label", text("back")));
            }
            d.edge(&b.to_string(), &s.to_string(), attrs);
        }
    }
    d.finish()
}
