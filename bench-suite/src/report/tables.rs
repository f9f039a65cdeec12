//! Markdown tables in the layout of Rastello, de Ferrière & Guillon (2005), §5, Tables 2–5:
//! one row per program group, one column per configuration; the first column holds the
//! group's total, every other column the difference from the first column, written with an
//! explicit sign (`+59`, `-59`, `+0`) — "values with + or - are always relative to the first
//! column of the table". We add the relative change in percent after the difference.
//!
//! Tables: static moves after out-of-SSA (cf. their Table 4), after coalescing (Tables 2
//! and 3), in the final code, weighted moves (5^loop-depth, Table 5), and the dynamic counts
//! no paper had: executed moves, spill loads + stores, cycles.
//!
//! Complexity: O(kernels × configurations) per table.

use super::data::{Dataset, Metric, TargetSelection};
use crate::bench::manifest::Group;
use std::fmt::Write;

/// Title of a metric's table and the table of the paper it mirrors.
fn title(metric: Metric) -> (&'static str, &'static str) {
    match metric {
        Metric::MovesSsaOut => (
            "Static moves after out-of-SSA",
            "cf. Rastello et al. Table 4 (moves before the repeated coalescing)",
        ),
        Metric::MovesCoalesced => (
            "Static moves after coalescing",
            "cf. Rastello et al. Tables 2 and 3 (moves after out-of-SSA + coalescing)",
        ),
        Metric::MovesFinal => (
            "Static moves in the final code",
            "after register allocation; no paper counterpart",
        ),
        Metric::WeightedMoves => (
            "Weighted moves",
            "cf. Rastello et al. Table 5: each final move weighs 5^d, d its loop depth",
        ),
        Metric::DynMoves => (
            "Dynamic moves",
            "moves executed on the simulator; no paper had these",
        ),
        Metric::DynSpills => (
            "Dynamic spill loads + stores",
            "executed spill code on the simulator",
        ),
        Metric::Cycles => ("Cycles", "simulated cycles, exclusive per function"),
        Metric::WeightedMovesSsaOut => (
            "Weighted moves after out-of-SSA",
            "Rastello et al. Table 5's point: each move weighs 5^d right after out-of-SSA",
        ),
        Metric::WeightedMovesCoalesced => (
            "Weighted moves after coalescing",
            "each move weighs 5^d after the coalescer",
        ),
    }
}

/// One table cell relative to the first column: `+D (+P%)`, or `+D` when the first is 0.
pub fn relative_cell(first: u64, value: u64) -> String {
    let diff = i128::from(value) - i128::from(first);
    let sign = if diff < 0 { '-' } else { '+' };
    let mut s = format!("{sign}{}", diff.unsigned_abs());
    if first != 0 {
        let percent = diff as f64 * 100.0 / first as f64;
        let _ = write!(s, " ({percent:+.1}%)");
    }
    s
}

/// Per-group totals of `metric` for each configuration: `(group or None for all, sums)`, only
/// groups that have kernels, in [`Group::ALL`] order, then the all-groups row.
pub fn group_totals(
    ds: &Dataset,
    sel: &TargetSelection,
    metric: Metric,
) -> Vec<(Option<Group>, usize, Vec<u64>)> {
    let n = ds.configs.len();
    let mut out = Vec::new();
    let mut all = vec![0u64; n];
    let mut all_count = 0;
    for g in Group::ALL {
        let mut sums = vec![0u64; n];
        let mut count = 0;
        for (group, rows) in sel.kernels.values() {
            if *group != g {
                continue;
            }
            count += 1;
            for (sum, &i) in sums.iter_mut().zip(rows) {
                *sum = sum.saturating_add(metric.value(&ds.rows[i]));
            }
        }
        if count > 0 {
            for (a, s) in all.iter_mut().zip(&sums) {
                *a = a.saturating_add(*s);
            }
            all_count += count;
            out.push((Some(g), count, sums));
        }
    }
    out.push((None, all_count, all));
    out
}

/// One markdown table of `metric` on one target, every configuration of the sweep.
pub fn render_table(ds: &Dataset, sel: &TargetSelection, metric: Metric) -> String {
    let all: Vec<usize> = (0..ds.configs.len()).collect();
    render_table_columns(ds, sel, metric, &all)
}

/// One markdown table of `metric` on one target with the configurations `columns` (indices
/// into `ds.configs`, the first one absolute, the others relative to it).
pub fn render_table_columns(
    ds: &Dataset,
    sel: &TargetSelection,
    metric: Metric,
    columns: &[usize],
) -> String {
    let mut s = String::new();
    let _ = write!(s, "| group | kernels |");
    for &c in columns {
        let _ = write!(s, " {} |", ds.configs[c]);
    }
    s.push_str("\n|---|---:|");
    for _ in columns {
        s.push_str("---:|");
    }
    s.push('\n');
    for (group, count, sums) in group_totals(ds, sel, metric) {
        let name = group.map_or("**all**".to_string(), |g| g.name().to_string());
        let first = sums[columns[0]];
        let _ = write!(s, "| {name} | {count} | {first} |");
        for &c in &columns[1..] {
            let _ = write!(s, " {} |", relative_cell(first, sums[c]));
        }
        s.push('\n');
    }
    s
}

/// The footnote of a target: what was left out and why.
fn footnote(sel: &TargetSelection) -> String {
    let mut s = String::new();
    if sel.failed_rows == 0 {
        s.push_str("No failed rows.");
    } else {
        let _ = write!(
            s,
            "{} failed row(s) (status ≠ ok) excluded; their program(s) are left out of every \
             column so all columns sum over the same kernels: {}.",
            sel.failed_rows,
            sel.failed_programs
                .iter()
                .map(|p| format!("`{p}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if sel.incomplete_kernels > 0 {
        let _ = write!(
            s,
            " {} kernel(s) without an ok row under every configuration left out.",
            sel.incomplete_kernels
        );
    }
    if sel.non_kernel_rows > 0 {
        let _ = write!(
            s,
            " {} row(s) of functions that are not manifest kernels (from `--all-functions`) \
             ignored.",
            sel.non_kernel_rows
        );
    }
    s
}

/// The whole `tables.md`: the convention, then per target every metric's table.
pub fn render_tables(ds: &Dataset, selections: &[(String, TargetSelection)]) -> String {
    let mut s = String::from("# Move, spill and cycle counts per program group\n\n");
    s.push_str(
        "Generated by `ssalab report` from `functions.csv` (see README.md). Layout as in \
         Rastello, de Ferrière & Guillon (2005), §5, Tables 2–5: one row per program group of \
         `programs/suite.toml` (plus **all**), one column per configuration in the order of \
         `runs.toml`.\n\n",
    );
    let first = &ds.configs[0];
    let _ = write!(
        s,
        "**Convention.** The first column (`{first}`) is the group's total; every other column \
         is that configuration's total minus the first column's, with an explicit sign as in \
         the paper (`+59` = 59 more than `{first}`, `-59` = 59 fewer, `+0` = equal), followed \
         by the change in percent of the first column (none when the first column is 0). Lower is better everywhere. \
         `kernels` counts the functions summed in the row (the manifest's kernels only).\n\n"
    );
    for (target, sel) in selections {
        let _ = writeln!(s, "## {target}\n");
        for metric in Metric::ALL {
            let (name, note) = title(metric);
            let _ = writeln!(s, "### {target}: {name} (`{}`)\n", metric.column());
            let _ = writeln!(s, "{note}.\n");
            s.push_str(&render_table(ds, sel, metric));
            s.push('\n');
        }
        let _ = writeln!(s, "Footnote ({target}): {}\n", footnote(sel));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_cells_follow_the_paper_sign_convention() {
        assert_eq!(relative_cell(193, 252), "+59 (+30.6%)");
        assert_eq!(relative_cell(6803, 6744), "-59 (-0.9%)");
        assert_eq!(relative_cell(14, 14), "+0 (+0.0%)");
        assert_eq!(relative_cell(0, 3), "+3");
        assert_eq!(
            relative_cell(u64::MAX, 0),
            format!("-{} (-100.0%)", u64::MAX)
        );
    }
}
