//! `road2.md`: the register allocators on SSA (road 2: `hack`, `hack+recolor`, `hack+ilp`,
//! and whatever other road-2 configurations the sweep ran) against the IRC configurations
//! of road 1 in the same sweep — static moves, weighted moves (5^loop depth), dynamic spill
//! loads + stores, cycles — for each register budget: the main sweep and every `--also`
//! sweep (typically the same suite with `--regs 16` and `--regs 8`), side by side.
//!
//! It also checks the ordering Hack et al.'s §5 leads one to expect on weighted moves,
//! `hack+ilp` ≤ `hack+recolor` ≤ `hack` (the ILP minimises the weight of the phi and Perm
//! copies that stay, the heuristic lowers it from Algorithm 1's colouring), says by how
//! much the heuristic stays above the ILP, and counts the functions whose ILP optimum was
//! proved (`ilp_optimal`).
//!
//! Each sweep is summed over its own selection (kernels `ok` under every configuration of
//! that sweep, see [`super::data`]). Complexity: O(kernels × configurations) per sweep.

use super::data::{Dataset, Metric, TargetSelection};
use std::fmt::Write;

/// Name of the road-2 comparison file.
pub const ROAD2_FILE: &str = "road2.md";

/// Configurations of road 2 (allocation on SSA, then SSA destruction on registers).
pub fn is_road2(config: &str) -> bool {
    ["hack", "pereira", "BASE", "BM", "DDG"]
        .iter()
        .any(|p| config.starts_with(p))
}

/// The IRC configurations the table shows beside road 2, when the sweep ran them.
pub const IRC_REFERENCES: &[&str] = &["baseline", "L_phi,ABI+C", "Bo_val+C", "S3"];

/// One sweep: its label (the register budget) and its per-target selections.
pub struct Sweep<'a> {
    pub ds: &'a Dataset,
    pub selections: &'a [(String, TargetSelection)],
}

impl Sweep<'_> {
    /// "full" or "--regs N", from the rows' `regs` column.
    pub fn label(&self) -> String {
        match self.ds.rows.first().map(|r| r.regs.as_str()) {
            Some(r) if !r.is_empty() => format!("--regs {r}"),
            _ => "full".to_string(),
        }
    }
}

const METRICS: [Metric; 4] = [
    Metric::MovesFinal,
    Metric::WeightedMoves,
    Metric::DynSpills,
    Metric::Cycles,
];

/// Totals of one configuration over a selection: the four metrics, then functions with
/// `ilp_optimal` = 1 and the number of kernels.
fn totals(ds: &Dataset, sel: &TargetSelection, ci: usize) -> ([u64; 4], u64, u64) {
    let mut m = [0u64; 4];
    let (mut optimal, mut n) = (0u64, 0u64);
    for (_, rows) in sel.kernels.values() {
        let row = &ds.rows[rows[ci]];
        for (slot, metric) in m.iter_mut().zip(METRICS) {
            *slot = slot.saturating_add(metric.value(row));
        }
        optimal += row.ilp_optimal.unwrap_or(0);
        n += 1;
    }
    (m, optimal, n)
}

/// The configurations shown: road 2's, then the IRC references, in the sweep's order.
fn shown(ds: &Dataset) -> Vec<usize> {
    let road2 = (0..ds.configs.len()).filter(|&i| is_road2(&ds.configs[i]));
    let irc = (0..ds.configs.len()).filter(|&i| IRC_REFERENCES.contains(&ds.configs[i].as_str()));
    road2.chain(irc).collect()
}

/// `road2.md`, or `None` when the main sweep ran no road-2 configuration.
pub fn render_road2(sweeps: &[Sweep]) -> Option<String> {
    let main = sweeps.first()?;
    if !main.ds.configs.iter().any(|c| is_road2(c)) {
        return None;
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Register allocation on SSA (road 2) against IRC (road 1)\n"
    );
    let _ = writeln!(
        s,
        "Regenerate: `ssalab report --in DIR [--also DIR2 ...]`, each DIR a sweep of \
         `ssalab bench --configs 'hack,hack+recolor,hack+ilp,hack-ilpspill+ilp,baseline,L_phi,ABI+C,Bo_val+C,S3' [--regs N]`. \
         Totals over the kernels that are `ok` under every configuration of that sweep. \
         Columns: static `moves_final`, `weighted_moves` (5^loop depth), dynamic spill \
         loads + stores, `cycles`; `ILP opt.` = kernels whose ILP optimum was proved \
         (of the kernels counted).\n"
    );
    for (ti, (target, _)) in main.selections.iter().enumerate() {
        let _ = writeln!(s, "## {target}\n");
        for sw in sweeps {
            let Some((_, sel)) = sw.selections.get(ti).filter(|(t, _)| t == target) else {
                continue;
            };
            render_sweep(&mut s, sw, sel);
        }
    }
    Some(s)
}

fn render_sweep(s: &mut String, sw: &Sweep, sel: &TargetSelection) {
    let ds = sw.ds;
    let _ = writeln!(s, "### {} ({} kernels)\n", sw.label(), sel.kernels.len());
    let _ = writeln!(
        s,
        "| configuration | moves | weighted moves | dyn. spill ld+st | cycles | ILP opt. |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|");
    let mut weighted: Vec<(&str, u64)> = Vec::new();
    let mut spills: Vec<(&str, u64)> = Vec::new();
    for ci in shown(ds) {
        let (m, optimal, n) = totals(ds, sel, ci);
        let name = ds.configs[ci].as_str();
        let ilp = if name.contains("ilp") {
            format!("{optimal}/{n}")
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "| `{name}` | {} | {} | {} | {} | {ilp} |",
            m[0], m[1], m[2], m[3]
        );
        weighted.push((name, m[1]));
        spills.push((name, m[2]));
    }
    let _ = writeln!(s);
    let w = |c: &str| weighted.iter().find(|(n, _)| *n == c).map(|&(_, v)| v);
    if let (Some(ilp), Some(rec), Some(hack)) = (w("hack+ilp"), w("hack+recolor"), w("hack")) {
        let holds = ilp <= rec && rec <= hack;
        let above = if ilp > 0 {
            format!("{:+.1}%", (rec as f64 / ilp as f64 - 1.0) * 100.0)
        } else {
            "n/a (the ILP's total is 0)".into()
        };
        let _ = writeln!(
            s,
            "Weighted moves `hack+ilp` ≤ `hack+recolor` ≤ `hack`: {ilp} ≤ {rec} ≤ {hack}: **{}**; \
             the heuristic stays {above} above the ILP.\n",
            if holds { "holds" } else { "does not hold" }
        );
    }
    let sp = |c: &str| spills.iter().find(|(n, _)| *n == c).map(|&(_, v)| v);
    if let (Some(ilp_spill), Some(belady)) = (sp("hack-ilpspill+ilp"), sp("hack+ilp")) {
        let change = if belady > 0 {
            format!(
                " ({:+.1}%)",
                (ilp_spill as f64 / belady as f64 - 1.0) * 100.0
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "Dynamic spill loads + stores, ILP spilling (`hack-ilpspill+ilp`) against \
             Belady (`hack+ilp`): {ilp_spill} against {belady}{change}.\n"
        );
    }
}
