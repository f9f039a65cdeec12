//! `congruence`: the congruence classes of an out-of-SSA translation that builds them —
//! Sreedhar et al.'s method III (`sreedhar3`, `sreedhar-cssa`: phi congruence classes made
//! interference-free by inserting copies) and Boissinot et al.'s coalescing (`boissinot-*`:
//! classes of phi- and copy-related variables merged while value-based, or intersection-
//! based, interference allows) — with the copies that split them.
//!
//! The point must be the input of one of these passes (the default: the first of them);
//! the pass is replayed on it through its traced entry point, which records its classes
//! and affinities just before it renames the classes.
//!
//! Drawing: each class is a cluster; the variables of a class with more than one member
//! share a fill colour. A directed edge `src -> dst` is an affinity (a phi operand pair or a
//! copy): grey when both ends are in one class (no copy needed), bold red when it splits
//! two classes — a copy the translation keeps — labelled with its weight `5^depth` and,
//! for Sreedhar's copies, its place (`end of bN`, `start of bN`).

use super::dot::{palette, text, Dot};
use super::{is_congruence_pass, Context, Kind};
use crate::mir::Function;
use crate::out_of_ssa::{boissinot, sreedhar3, CongruenceTrace};

/// Replays the congruence pass `pass` on a copy of `f` and returns its trace.
pub fn trace(f: &Function, pass: &str) -> Result<CongruenceTrace, String> {
    let mut g = f.clone();
    let mut t = CongruenceTrace::default();
    let variant = match pass {
        "boissinot-int" => Some(boissinot::Variant::Int),
        "boissinot-val" => Some(boissinot::Variant::Val),
        "boissinot-val-virt" => Some(boissinot::Variant::ValVirt),
        "boissinot-val-virt-dc" => Some(boissinot::Variant::ValVirtDecoalesce),
        _ => None,
    };
    let replay = match (pass, variant) {
        ("sreedhar3", _) => sreedhar3::translate_traced(&mut g, &mut t).map(|_| ()),
        ("sreedhar-cssa", _) => sreedhar3::convert_to_cssa_traced(&mut g, &mut t).map(|_| ()),
        (_, Some(v)) => boissinot::translate_traced(&mut g, v, &mut t).map(|_| ()),
        _ => Err(format!("`{pass}` builds no congruence classes")),
    };
    replay.map_err(|e| format!("congruence: replaying {pass} on @{}: {e}", f.name))?;
    Ok(t)
}

/// The DOT text of the classes the next pass builds on `f`.
pub fn render(f: &Function, ctx: &Context) -> Result<String, String> {
    let pass = match ctx.next {
        Some(p) if is_congruence_pass(p) => p,
        _ => {
            return Err(format!(
                "congruence: `--after {}` is not the input of a Sreedhar or Boissinot pass in \
                 configuration `{}` (the pass after it is {})",
                ctx.stage,
                ctx.config.name,
                ctx.next.map_or("none".to_string(), |p| format!("`{p}`"))
            ))
        }
    };
    let t = trace(f, pass)?;
    let mut d = Dot::new(
        true,
        &Context::graph_name(f, Kind::Congruence),
        &format!("{} by {pass}", ctx.title(f, Kind::Congruence)),
    );
    if t.classes.is_empty() {
        d.node(
            "none",
            vec![
                ("label", text("no phi or copy-related variable")),
                ("shape", text("plaintext")),
            ],
        );
    }
    let mut colour = 0;
    for (k, class) in t.classes.iter().enumerate() {
        d.cluster(&format!("c{k}"), &format!("class {k}"));
        let fill = (class.len() > 1).then(|| {
            colour += 1;
            palette(colour - 1)
        });
        for v in class {
            let mut attrs = vec![("label", text(v))];
            if let Some(c) = &fill {
                attrs.push(("style", text("filled")));
                attrs.push(("fillcolor", c.clone()));
            }
            d.node(v, attrs);
        }
        d.close();
    }
    for a in &t.affinities {
        let mut label = a.weight.to_string();
        if !a.place.is_empty() {
            label = format!("{label} {}", a.place);
        }
        let attrs = if a.split {
            vec![
                ("label", text(&format!("copy {label}"))),
                ("color", text("red")),
                ("penwidth", text("2")),
            ]
        } else {
            vec![("label", text(&label)), ("color", text("gray40"))]
        };
        d.edge(&a.src, &a.dst, attrs);
    }
    Ok(d.finish())
}
