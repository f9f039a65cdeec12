//! `ddg`: per block, the data-dependence graph on which Brandner & Colombet's copy
//! elimination after register allocation works (`post_ra::ddg`, RR-7735 §3, Definition 1),
//! built by the pass's own builder (`post_ra::ddg::block_graphs`) on the function at the
//! chosen point. Only blocks holding a parallel copy have one (the pass skips the others).
//!
//! The configuration must run `ddg`; the default point is its input (the graphs the pass
//! starts from); `--after ddg` draws the graphs of its output (what is left to move).
//!
//! Drawing, one cluster per block: an instruction is a box with its text; a parallel-copy
//! component is a blue box `chain` (a regular copy) or `cycle` (a cyclic one), a component
//! duplicating a value a grey box `copy (dup)`; barriers (calls, control, pseudo
//! operations) are grey, memory accesses pale yellow; the exit node, which reads the
//! registers live out of the block, is a double circle. A true dependence is a solid black
//! edge labelled with its register, an anti dependence a dashed blue edge `anti $r`, an
//! output dependence a dashed red edge `out $r`, an ordering edge (memory, barriers) a
//! light grey edge.

use super::dot::{left, text, Dot};
use super::{Context, Kind};
use crate::mir::print::inst_to_string;
use crate::mir::target::reg_name;
use crate::mir::{Function, Reg};
use crate::post_ra::ddg::{block_graphs, Kind as NodeRole, Label};

/// The DOT text of `f`'s DDGs at `ctx`'s point.
pub fn render(f: &Function, ctx: &Context) -> Result<String, String> {
    let virtual_operand = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .flat_map(|i| i.defs.iter().chain(&i.uses))
        .any(|o| matches!(o.reg, Reg::V(_)));
    if virtual_operand {
        return Err(format!(
            "ddg: @{} after `{}` still has virtual registers; the DDG of the post-allocation \
             copy elimination needs allocated code (the default point is the input of `ddg`)",
            f.name, ctx.stage
        ));
    }
    let mut d = Dot::new(
        true,
        &Context::graph_name(f, Kind::Ddg),
        &ctx.title(f, Kind::Ddg),
    );
    d.defaults("node", vec![("fontname", text("monospace"))]);
    let graphs = block_graphs(f);
    if graphs.is_empty() {
        d.node(
            "none",
            vec![
                ("label", text("no block with a parallel copy")),
                ("shape", text("plaintext")),
            ],
        );
    }
    for (b, nodes, edges) in &graphs {
        d.cluster(&b.to_string(), &format!("{b}"));
        for (k, n) in nodes.iter().enumerate() {
            let body = inst_to_string(f, &n.inst);
            let (label, shape, fill) = match n.role {
                NodeRole::Exit => ("exit".to_string(), "doublecircle", None),
                NodeRole::Copy { cyclic } => {
                    let what = if cyclic { "cycle" } else { "chain" };
                    (format!("{what}\n{body}"), "box", Some("#bcd7f5"))
                }
                NodeRole::OtherCopy => (format!("copy (dup)\n{body}"), "box", Some("#e0e0e0")),
                NodeRole::Barrier => (body, "box", Some("#e0e0e0")),
                NodeRole::Memory => (body, "box", Some("#fff2c0")),
                NodeRole::Plain => (body, "box", None),
            };
            let mut attrs = vec![
                (
                    "label",
                    if label.contains('\n') {
                        left(&label)
                    } else {
                        text(&label)
                    },
                ),
                ("shape", text(shape)),
            ];
            if let Some(c) = fill {
                attrs.push(("style", text("filled")));
                attrs.push(("fillcolor", text(c)));
            }
            d.node(&format!("{b}.{k}"), attrs);
        }
        for &(from, to, label) in edges {
            let reg = |r| reg_name(f.target, r);
            let attrs = match label {
                Label::True(r) => vec![("label", text(&reg(r)))],
                Label::Anti(r) => vec![
                    ("label", text(&format!("anti {}", reg(r)))),
                    ("style", text("dashed")),
                    ("color", text("blue")),
                ],
                Label::Output(r) => vec![
                    ("label", text(&format!("out {}", reg(r)))),
                    ("style", text("dashed")),
                    ("color", text("red")),
                ],
                Label::Other => vec![("color", text("gray70"))],
            };
            d.edge(&format!("{b}.{from}"), &format!("{b}.{to}"), attrs);
        }
        d.close();
    }
    Ok(d.finish())
}
