//! `ssalab diff`: per-function differences between two sides, each a set of `functions.csv`
//! rows (two files, or the rows of two configurations of one sweep).
//!
//! * Columns: every column of the CSV except the identifying ones (`program`, `function`,
//!   `target`, `config`, `regs`, `status`) and the times (`*_us`, which differ between runs of
//!   the same code) is a metric, read by name; a metric only one side has is named in a note
//!   and left out. So the diff follows the schema of the files it is given.
//! * Matching: rows are matched on `(target, program, function)`, plus `config` and `regs`
//!   when a side has more than one of them (two whole sweeps compare configuration by
//!   configuration; two single-configuration files compare across their configurations).
//! * Rows whose `status` is not `ok` (a failed job's single row) are listed as failures, not
//!   differenced. A function one side has and the other has not is listed as such.
//! * Order: per target (in the order the first side lists them), rows by decreasing |B − A| of
//!   the chosen metric, ties by program, function and the other key columns; then a totals
//!   row over the matched functions of that target.
//!
//! Complexity: O(n log n) for n rows (a B-tree index per side).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

/// Columns that identify a row rather than measure it.
const KEY_COLUMNS: [&str; 6] = ["program", "function", "target", "config", "regs", "status"];

/// The metrics the text table shows by default (those the CSV has), in this order: the
/// static moves at each point, weighted moves, the dynamic counts and cycles.
pub const HEADLINE: [&str; 10] = [
    "moves_ssa_out",
    "moves_coalesced",
    "moves_final",
    "weighted_moves",
    "dyn_moves",
    "dyn_loads",
    "dyn_stores",
    "dyn_spill_loads",
    "dyn_spill_stores",
    "cycles",
];

/// The metric rows are sorted by when `--metric` is not given: executed copies, the cost the
/// out-of-SSA and coalescing algorithms are about, as measured on the simulator.
pub const DEFAULT_METRIC: &str = "dyn_moves";

/// One row of one side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SideRow {
    pub program: String,
    pub function: String,
    pub target: String,
    pub config: String,
    pub regs: String,
    pub status: String,
    /// One value per [`Side::metrics`] column.
    pub values: Vec<u64>,
}

/// One side of a diff: its label (file or configuration name), metric columns and rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Side {
    pub label: String,
    pub metrics: Vec<String>,
    pub rows: Vec<SideRow>,
}

impl Side {
    /// Reads a `functions.csv`, or the `functions.csv` inside a directory. Errors name the
    /// file (and line).
    pub fn read(path: &Path) -> Result<Side, String> {
        let file = if path.is_dir() {
            path.join(crate::bench::output::FUNCTIONS_FILE)
        } else {
            path.to_path_buf()
        };
        let bytes = std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let label = file.display().to_string();
        Side::parse(&bytes, &label).map_err(|e| format!("{label}{e}"))
    }

    /// Parses `functions.csv` bytes. Errors start with `:line: ` or `: ` (the caller adds
    /// the file name).
    pub fn parse(bytes: &[u8], label: &str) -> Result<Side, String> {
        let mut reader = csv::Reader::from_reader(bytes);
        let header: Vec<String> = reader
            .headers()
            .map_err(|e| format!(": {e}"))?
            .iter()
            .map(String::from)
            .collect();
        let find = |name: &str| {
            header
                .iter()
                .position(|h| h == name)
                .ok_or_else(|| format!(": missing column `{name}` (not a functions.csv?)"))
        };
        let [program, function, target, config, status] =
            ["program", "function", "target", "config", "status"].map(find);
        let (program, function, target, config, status) =
            (program?, function?, target?, config?, status?);
        let regs = header.iter().position(|h| h == "regs");
        let metric_cols: Vec<usize> = (0..header.len())
            .filter(|&i| !KEY_COLUMNS.contains(&header[i].as_str()) && !header[i].ends_with("_us"))
            .collect();
        let mut rows = Vec::new();
        for rec in reader.records() {
            let rec = rec.map_err(|e| format!(": {e}"))?;
            let line = rec.position().map_or(0, |p| p.line());
            let field = |k: usize| rec.get(k).unwrap_or("").to_string();
            let values = metric_cols
                .iter()
                .map(|&k| {
                    let text = rec.get(k).unwrap_or("");
                    text.parse::<u64>().map_err(|_| {
                        format!(":{line}: `{text}` is not a count in column `{}`", header[k])
                    })
                })
                .collect::<Result<Vec<u64>, String>>()?;
            rows.push(SideRow {
                program: field(program),
                function: field(function),
                target: field(target),
                config: field(config),
                regs: regs.map(field).unwrap_or_default(),
                status: field(status),
                values,
            });
        }
        Ok(Side {
            label: label.to_string(),
            metrics: metric_cols.iter().map(|&k| header[k].clone()).collect(),
            rows,
        })
    }

    /// The rows of one configuration, labelled by its name.
    pub fn of_config(&self, config: &str) -> Side {
        Side {
            label: config.to_string(),
            metrics: self.metrics.clone(),
            rows: self
                .rows
                .iter()
                .filter(|r| r.config == config)
                .cloned()
                .collect(),
        }
    }

    /// The configurations of the rows, in order of first appearance.
    pub fn configs(&self) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for r in &self.rows {
            if !v.contains(&r.config) {
                v.push(r.config.clone());
            }
        }
        v
    }

    fn distinct(&self, field: impl Fn(&SideRow) -> &str) -> usize {
        self.rows.iter().map(field).collect::<BTreeSet<_>>().len()
    }
}

/// What identifies a row in a diff: target, program, function, and config/regs when kept.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    pub target: String,
    pub program: String,
    pub function: String,
    /// `config` and `regs`, empty when they are not part of the key.
    pub config: String,
    pub regs: String,
}

impl Key {
    /// The key as printed: `program function`, then config and regs when they are part of it.
    fn label(&self) -> String {
        let mut s = format!("{} {}", self.program, self.function);
        if !self.config.is_empty() {
            let _ = write!(s, " [{}]", self.config);
        }
        if !self.regs.is_empty() {
            let _ = write!(s, " regs={}", self.regs);
        }
        s
    }
}

/// A function both sides have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matched {
    pub key: Key,
    /// One value per [`Diff::metrics`] column.
    pub a: Vec<u64>,
    pub b: Vec<u64>,
}

/// One target's part of a diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetDiff {
    pub target: String,
    /// Sorted by decreasing |delta| of the chosen metric.
    pub rows: Vec<Matched>,
    /// Sums over `rows`, per metric.
    pub total_a: Vec<u64>,
    pub total_b: Vec<u64>,
}

/// A failed row: its key and reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub side: char,
    pub target: String,
    pub program: String,
    pub config: String,
    pub status: String,
}

/// The difference of two sides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diff {
    pub label_a: String,
    pub label_b: String,
    /// The metric columns both sides have, in side A's order.
    pub metrics: Vec<String>,
    /// Index in `metrics` of the metric rows are sorted by.
    pub sort_metric: usize,
    /// Metric columns only one side has (left out), with the side (`A`, `B`).
    pub one_sided_columns: Vec<(char, String)>,
    pub targets: Vec<TargetDiff>,
    /// Keys one side has and the other has not.
    pub only_a: Vec<(Key, Vec<u64>)>,
    pub only_b: Vec<(Key, Vec<u64>)>,
    pub failures: Vec<Failure>,
}

/// `b - a` as a signed number.
pub fn delta(a: u64, b: u64) -> i128 {
    i128::from(b) - i128::from(a)
}

/// The ok rows of a side, keyed, with values in `columns` order; failures to `failures`.
fn index(
    side: &Side,
    tag: char,
    columns: &[String],
    keep_config: bool,
    keep_regs: bool,
    failures: &mut Vec<Failure>,
) -> Result<BTreeMap<Key, Vec<u64>>, String> {
    let cols: Vec<usize> = columns
        .iter()
        .map(|c| side.metrics.iter().position(|m| m == c).unwrap_or(0))
        .collect();
    let mut out = BTreeMap::new();
    for r in &side.rows {
        if r.status != "ok" {
            failures.push(Failure {
                side: tag,
                target: r.target.clone(),
                program: r.program.clone(),
                config: r.config.clone(),
                status: r.status.clone(),
            });
            continue;
        }
        let key = Key {
            target: r.target.clone(),
            program: r.program.clone(),
            function: r.function.clone(),
            config: if keep_config {
                r.config.clone()
            } else {
                String::new()
            },
            regs: if keep_regs {
                r.regs.clone()
            } else {
                String::new()
            },
        };
        let values = cols.iter().map(|&k| r.values[k]).collect();
        if out.insert(key.clone(), values).is_some() {
            return Err(format!(
                "{}: two rows for {} on {}",
                side.label,
                key.label(),
                key.target
            ));
        }
    }
    Ok(out)
}

/// Differences `b − a`, sorted by `metric` (see the module documentation).
pub fn diff(a: &Side, b: &Side, metric: &str) -> Result<Diff, String> {
    let metrics: Vec<String> = a
        .metrics
        .iter()
        .filter(|m| b.metrics.contains(m))
        .cloned()
        .collect();
    let sort_metric = metrics.iter().position(|m| m == metric).ok_or_else(|| {
        format!(
            "--metric {metric}: not a metric column of both inputs; they have: {}",
            metrics.join(", ")
        )
    })?;
    let mut one_sided_columns: Vec<(char, String)> = Vec::new();
    for (tag, side, other) in [('A', a, b), ('B', b, a)] {
        for m in side.metrics.iter().filter(|m| !other.metrics.contains(m)) {
            one_sided_columns.push((tag, m.clone()));
        }
    }
    let keep_config = a.distinct(|r| &r.config) > 1 || b.distinct(|r| &r.config) > 1;
    let keep_regs = a.distinct(|r| &r.regs) > 1 || b.distinct(|r| &r.regs) > 1;
    let mut failures = Vec::new();
    let ia = index(a, 'A', &metrics, keep_config, keep_regs, &mut failures)?;
    let ib = index(b, 'B', &metrics, keep_config, keep_regs, &mut failures)?;
    let mut target_order: Vec<String> = Vec::new();
    for r in a.rows.iter().chain(&b.rows) {
        if !target_order.contains(&r.target) {
            target_order.push(r.target.clone());
        }
    }
    let n = metrics.len();
    let mut targets: Vec<TargetDiff> = target_order
        .iter()
        .map(|t| TargetDiff {
            target: t.clone(),
            rows: Vec::new(),
            total_a: vec![0; n],
            total_b: vec![0; n],
        })
        .collect();
    let (mut only_a, mut only_b) = (Vec::new(), Vec::new());
    for (key, va) in &ia {
        match ib.get(key) {
            Some(vb) => {
                let t = targets
                    .iter_mut()
                    .find(|t| t.target == key.target)
                    .expect("every target is in the order");
                for k in 0..n {
                    t.total_a[k] = t.total_a[k].saturating_add(va[k]);
                    t.total_b[k] = t.total_b[k].saturating_add(vb[k]);
                }
                t.rows.push(Matched {
                    key: key.clone(),
                    a: va.clone(),
                    b: vb.clone(),
                });
            }
            None => only_a.push((key.clone(), va.clone())),
        }
    }
    for (key, vb) in &ib {
        if !ia.contains_key(key) {
            only_b.push((key.clone(), vb.clone()));
        }
    }
    for t in &mut targets {
        t.rows.sort_by(|x, y| {
            let dx = delta(x.a[sort_metric], x.b[sort_metric]).abs();
            let dy = delta(y.a[sort_metric], y.b[sort_metric]).abs();
            dy.cmp(&dx).then_with(|| x.key.cmp(&y.key))
        });
    }
    targets.retain(|t| !t.rows.is_empty());
    Ok(Diff {
        label_a: a.label.clone(),
        label_b: b.label.clone(),
        metrics,
        sort_metric,
        one_sided_columns,
        targets,
        only_a,
        only_b,
        failures,
    })
}

/// `+D` / `-D` / `0`.
fn signed(d: i128) -> String {
    if d > 0 {
        format!("+{d}")
    } else {
        d.to_string()
    }
}

/// The relative change in percent, or `-` when A is 0.
fn percent(a: u64, b: u64) -> String {
    if a == 0 {
        "-".to_string()
    } else {
        format!("{:+.1}%", delta(a, b) as f64 * 100.0 / a as f64)
    }
}

/// Pads the cells of `rows` into aligned columns (first column left, others right).
fn align(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut s = String::new();
    for r in rows {
        let mut line = String::new();
        for (c, cell) in r.iter().enumerate() {
            let pad = width[c] - cell.chars().count();
            if c == 0 {
                line.push_str(cell);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str("  ");
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            }
        }
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}

impl Diff {
    /// The columns the text table shows: the headline metrics the inputs have (all metrics
    /// with `all`), the sort metric always among them.
    fn shown(&self, all: bool) -> Vec<usize> {
        let mut shown: Vec<usize> = if all {
            (0..self.metrics.len()).collect()
        } else {
            HEADLINE
                .iter()
                .filter_map(|h| self.metrics.iter().position(|m| m == h))
                .collect()
        };
        if !shown.contains(&self.sort_metric) {
            shown.insert(0, self.sort_metric);
        }
        shown
    }

    /// The aligned text table: per target, one line per matched function (the sort metric's
    /// A, B and change in percent, then the delta of each shown metric), a totals line, then
    /// the functions of one side only, the failures and the columns left out.
    pub fn render_text(&self, all_columns: bool) -> String {
        let shown = self.shown(all_columns);
        let m = &self.metrics[self.sort_metric];
        let mut s = format!(
            "diff A = {} -> B = {}: B - A per function, sorted by |delta {m}|\n",
            self.label_a, self.label_b
        );
        for t in &self.targets {
            let mut header = vec![
                format!("{} ({} functions)", t.target, t.rows.len()),
                format!("{m} A"),
                format!("{m} B"),
                "%".to_string(),
            ];
            header.extend(shown.iter().map(|&k| format!("d {}", self.metrics[k])));
            let mut rows = vec![header];
            let line = |label: String, a: &[u64], b: &[u64]| {
                let mut r = vec![
                    label,
                    a[self.sort_metric].to_string(),
                    b[self.sort_metric].to_string(),
                    percent(a[self.sort_metric], b[self.sort_metric]),
                ];
                r.extend(shown.iter().map(|&k| signed(delta(a[k], b[k]))));
                r
            };
            for row in &t.rows {
                rows.push(line(row.key.label(), &row.a, &row.b));
            }
            rows.push(line(format!("TOTAL {}", t.target), &t.total_a, &t.total_b));
            s.push('\n');
            s.push_str(&align(&rows));
        }
        let mut notes = String::new();
        for (tag, label, only) in [
            ('A', &self.label_a, &self.only_a),
            ('B', &self.label_b, &self.only_b),
        ] {
            for (key, values) in only {
                let _ = writeln!(
                    notes,
                    "only in {tag} ({label}): {} {} ({m} {})",
                    key.target,
                    key.label(),
                    values[self.sort_metric]
                );
            }
        }
        for f in &self.failures {
            let label = if f.side == 'A' {
                &self.label_a
            } else {
                &self.label_b
            };
            let _ = writeln!(
                notes,
                "failed in {} ({label}): {} {} {}: {}",
                f.side, f.target, f.program, f.config, f.status
            );
        }
        for (tag, col) in &self.one_sided_columns {
            let _ = writeln!(notes, "column `{col}` only in {tag}: not compared");
        }
        if !notes.is_empty() {
            s.push('\n');
            s.push_str(&notes);
        }
        s
    }

    /// The CSV: `target, program, function, config, regs, present` (`both`, `A`, `B`, or
    /// `total`), then `<metric>_a, <metric>_b, <metric>_delta` for every metric; rows in the
    /// text table's order, a `total` row after each target's, the one-sided rows last.
    pub fn render_csv(&self) -> Result<Vec<u8>, String> {
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut header: Vec<String> =
            ["target", "program", "function", "config", "regs", "present"]
                .iter()
                .map(|s| s.to_string())
                .collect();
        for m in &self.metrics {
            header.extend([format!("{m}_a"), format!("{m}_b"), format!("{m}_delta")]);
        }
        let err = |e: csv::Error| format!("cannot write the CSV: {e}");
        w.write_record(&header).map_err(err)?;
        let record = |key: &Key, present: &str, a: Option<&[u64]>, b: Option<&[u64]>| {
            let mut r = vec![
                key.target.clone(),
                key.program.clone(),
                key.function.clone(),
                key.config.clone(),
                key.regs.clone(),
                present.to_string(),
            ];
            for k in 0..self.metrics.len() {
                let va = a.map(|v| v[k]);
                let vb = b.map(|v| v[k]);
                r.push(va.map(|v| v.to_string()).unwrap_or_default());
                r.push(vb.map(|v| v.to_string()).unwrap_or_default());
                r.push(match (va, vb) {
                    (Some(x), Some(y)) => delta(x, y).to_string(),
                    _ => String::new(),
                });
            }
            r
        };
        for t in &self.targets {
            for row in &t.rows {
                w.write_record(record(&row.key, "both", Some(&row.a), Some(&row.b)))
                    .map_err(err)?;
            }
            let total = Key {
                target: t.target.clone(),
                program: String::new(),
                function: String::new(),
                config: String::new(),
                regs: String::new(),
            };
            w.write_record(record(&total, "total", Some(&t.total_a), Some(&t.total_b)))
                .map_err(err)?;
        }
        for (key, v) in &self.only_a {
            w.write_record(record(key, "A", Some(v), None))
                .map_err(err)?;
        }
        for (key, v) in &self.only_b {
            w.write_record(record(key, "B", None, Some(v)))
                .map_err(err)?;
        }
        w.into_inner()
            .map_err(|e| format!("cannot write the CSV: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(label: &str, text: &str) -> Side {
        Side::parse(text.as_bytes(), label).unwrap()
    }

    #[test]
    fn metric_columns_skip_keys_and_times() {
        let s = side(
            "a",
            "program,function,target,config,regs,moves_final,compile_us,status,cycles\n\
             p.c,f,st231,base,,3,99,ok,10\n",
        );
        assert_eq!(s.metrics, ["moves_final", "cycles"]);
        assert_eq!(s.rows[0].values, [3, 10]);
    }

    #[test]
    fn bad_numbers_and_missing_columns_are_located() {
        let e = Side::parse(
            b"program,function,target,config,status,cycles\np,f,t,c,ok,x\n",
            "a",
        )
        .unwrap_err();
        assert!(e.starts_with(":2:") && e.contains("`cycles`"), "{e}");
        let e = Side::parse(b"program,function,target,status\n", "a").unwrap_err();
        assert!(e.contains("missing column `config`"), "{e}");
    }

    #[test]
    fn config_is_part_of_the_key_only_with_several() {
        let a = side(
            "a",
            "program,function,target,config,status,cycles\np,f,t,x,ok,1\np,f,t,y,ok,2\n",
        );
        let b = side(
            "b",
            "program,function,target,config,status,cycles\np,f,t,x,ok,5\np,f,t,y,ok,2\n",
        );
        let d = diff(&a, &b, "cycles").unwrap();
        assert_eq!(d.targets[0].rows.len(), 2);
        assert_eq!(d.targets[0].rows[0].key.config, "x");
        let single = diff(&a.of_config("x"), &b.of_config("y"), "cycles").unwrap();
        assert_eq!(single.targets[0].rows[0].key.config, "");
        assert_eq!(single.targets[0].rows[0].b, [2]);
    }
}
