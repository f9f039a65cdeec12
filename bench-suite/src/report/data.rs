//! Reading a sweep's output back for the reports: `functions.csv` (by column name, with the
//! csv crate) and the few fields of `runs.toml` the reports show, then selecting, per target,
//! the rows the tables and plots compare.
//!
//! Selection rules (why: every column of a table must sum over the same functions, otherwise
//! a configuration that crashes on a big function would look like it saves moves):
//! * rows whose `status` is not `ok` are failures; a program with a failed row under any
//!   configuration on a target is left out of every column of that target;
//! * only the manifest's kernels count (rows of other functions, written by
//!   `ssalab bench --all-functions`, are ignored), so a group total counts each function once
//!   (the manifest's rule for the codec group);
//! * a kernel counts only if it has an `ok` row under every configuration.
//!
//! Complexity: O(rows · log rows) (the per-target key sets are B-trees).

use crate::bench::manifest::{Group, Manifest};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

/// The statistics the reports read from `functions.csv`, in this order in [`Row::counts`].
pub const COUNT_COLUMNS: [&str; 8] = [
    "moves_ssa_out",
    "moves_coalesced",
    "moves_final",
    "weighted_moves",
    "dyn_moves",
    "dyn_spill_loads",
    "dyn_spill_stores",
    "cycles",
];

/// The identifying columns the reports read from `functions.csv`.
pub const KEY_COLUMNS: [&str; 5] = ["program", "function", "target", "config", "status"];

/// One quantity a table or plot shows, computed from a row's counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    MovesSsaOut,
    MovesCoalesced,
    MovesFinal,
    WeightedMoves,
    DynMoves,
    /// `dyn_spill_loads + dyn_spill_stores`.
    DynSpills,
    Cycles,
    /// `weighted_moves_ssa_out` (optional column: 0 in older sweeps).
    WeightedMovesSsaOut,
    /// `weighted_moves_coalesced` (optional column: 0 in older sweeps).
    WeightedMovesCoalesced,
}

impl Metric {
    /// Every metric, in the order the tables show them.
    pub const ALL: [Metric; 7] = [
        Metric::MovesSsaOut,
        Metric::MovesCoalesced,
        Metric::MovesFinal,
        Metric::WeightedMoves,
        Metric::DynMoves,
        Metric::DynSpills,
        Metric::Cycles,
    ];

    /// The column(s) of `functions.csv` it comes from, as the tables name it.
    pub fn column(self) -> &'static str {
        match self {
            Metric::MovesSsaOut => "moves_ssa_out",
            Metric::MovesCoalesced => "moves_coalesced",
            Metric::MovesFinal => "moves_final",
            Metric::WeightedMoves => "weighted_moves",
            Metric::DynMoves => "dyn_moves",
            Metric::DynSpills => "dyn_spill_loads + dyn_spill_stores",
            Metric::Cycles => "cycles",
            Metric::WeightedMovesSsaOut => "weighted_moves_ssa_out",
            Metric::WeightedMovesCoalesced => "weighted_moves_coalesced",
        }
    }

    /// The value for one row.
    pub fn value(self, row: &Row) -> u64 {
        let c = &row.counts;
        match self {
            Metric::MovesSsaOut => c[0],
            Metric::MovesCoalesced => c[1],
            Metric::MovesFinal => c[2],
            Metric::WeightedMoves => c[3],
            Metric::DynMoves => c[4],
            Metric::DynSpills => c[5].saturating_add(c[6]),
            Metric::Cycles => c[7],
            Metric::WeightedMovesSsaOut => row.weighted_points.map_or(0, |w| w[0]),
            Metric::WeightedMovesCoalesced => row.weighted_points.map_or(0, |w| w[1]),
        }
    }

    /// Whether every row of `ds` has this metric (the optional columns are absent from
    /// sweeps written before they existed).
    pub fn present_in(self, ds: &Dataset) -> bool {
        match self {
            Metric::WeightedMovesSsaOut | Metric::WeightedMovesCoalesced => {
                ds.rows.iter().all(|r| r.weighted_points.is_some())
            }
            _ => true,
        }
    }
}

/// One row of `functions.csv` (only the columns the reports use).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub program: String,
    pub function: String,
    pub target: String,
    pub config: String,
    pub status: String,
    /// [`COUNT_COLUMNS`], in order.
    pub counts: [u64; 8],
    /// Optional columns (absent from older sweeps): the `--regs` budget (empty: the whole
    /// register file) and `ilp_optimal` (road 2's ILP coalescer proved its optimum).
    pub regs: String,
    pub ilp_optimal: Option<u64>,
    /// `weighted_moves_ssa_out` and `weighted_moves_coalesced`, when the sweep has them.
    pub weighted_points: Option<[u64; 2]>,
}

/// What the reports know about a sweep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dataset {
    /// `tool` and `version` of `runs.toml`.
    pub tool: String,
    pub version: String,
    /// A `date` field of `runs.toml`, if the sweep recorded one.
    pub date: Option<String>,
    /// Targets and configurations in `runs.toml` order (the tables' order).
    pub targets: Vec<String>,
    pub configs: Vec<String>,
    /// Every row of `functions.csv`, in file order.
    pub rows: Vec<Row>,
}

/// The rows of one target that the tables and plots compare.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TargetSelection {
    /// `(program, function)` → group and one row index per configuration (runs order).
    pub kernels: BTreeMap<(String, String), (Group, Vec<usize>)>,
    /// Rows with a status other than `ok`.
    pub failed_rows: usize,
    /// Programs left out because a row of theirs failed (sorted).
    pub failed_programs: Vec<String>,
    /// `ok` rows of functions that are not manifest kernels (ignored).
    pub non_kernel_rows: usize,
    /// Kernels left out because some configuration has no `ok` row for them.
    pub incomplete_kernels: usize,
}

impl Dataset {
    /// Reads `functions.csv` and `runs.toml` from `dir`.
    pub fn read(dir: &Path) -> Result<Dataset, String> {
        let runs_path = dir.join("runs.toml");
        let text = std::fs::read_to_string(&runs_path)
            .map_err(|e| format!("{}: {e}", runs_path.display()))?;
        let csv_path = dir.join("functions.csv");
        let bytes = std::fs::read(&csv_path).map_err(|e| format!("{}: {e}", csv_path.display()))?;
        let ds = Dataset::from_contents(&text, &runs_path, &bytes, &csv_path)?;
        // With the sweep's jobs.csv beside them, the set of jobs is checked as well.
        if dir.join(crate::bench::output::JOBS_FILE).exists() {
            crate::bench::output::OutputFiles::read(dir)?;
        }
        Ok(ds)
    }

    /// The dataset of a `runs.toml` text and `functions.csv` bytes already in memory (what
    /// `ssalab bench` has just rendered); the paths only name the files in errors.
    pub fn from_contents(
        runs_text: &str,
        runs_path: &Path,
        csv_bytes: &[u8],
        csv_path: &Path,
    ) -> Result<Dataset, String> {
        let mut ds =
            Dataset::parse_runs(runs_text).map_err(|e| format!("{}: {e}", runs_path.display()))?;
        ds.rows =
            parse_functions_csv(csv_bytes).map_err(|e| format!("{}{e}", csv_path.display()))?;
        ds.check_names()
            .map_err(|e| format!("{}: {e}", csv_path.display()))?;
        let expected = Dataset::parse_row_count(runs_text)
            .map_err(|e| format!("{}: {e}", runs_path.display()))?;
        if expected != ds.rows.len() {
            return Err(format!(
                "{}: {} rows, but {} gives function_rows = {expected} (the file is cut short or from another sweep)",
                csv_path.display(),
                ds.rows.len(),
                runs_path.display()
            ));
        }
        Ok(ds)
    }

    /// `[results] function_rows` of a `runs.toml` text: how many rows `functions.csv` has.
    pub fn parse_row_count(text: &str) -> Result<usize, String> {
        let doc: toml::Table = toml::from_str(text).map_err(|e| e.message().trim().to_string())?;
        doc.get("results")
            .and_then(|r| r.get("function_rows"))
            .and_then(|v| v.as_integer())
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                "missing `results.function_rows` (the row count of functions.csv)".into()
            })
    }

    /// The fields of a `runs.toml` text the reports use (read leniently, so later additions
    /// to the file do not break the reports); `rows` is left empty.
    pub fn parse_runs(text: &str) -> Result<Dataset, String> {
        let doc: toml::Table = toml::from_str(text).map_err(|e| e.message().trim().to_string())?;
        let string = |t: &toml::Table, k: &str| -> Result<String, String> {
            t.get(k)
                .and_then(|v| v.as_str())
                .map(String::from)
                .ok_or_else(|| format!("missing string `{k}`"))
        };
        let sweep = doc
            .get("sweep")
            .and_then(|v| v.as_table())
            .ok_or("missing table [sweep]")?;
        let list = |k: &str| -> Result<Vec<String>, String> {
            let items = sweep
                .get(k)
                .and_then(|v| v.as_array())
                .ok_or_else(|| format!("missing list `sweep.{k}`"))?;
            let names: Vec<String> = items
                .iter()
                .map(|v| v.as_str().map(String::from))
                .collect::<Option<_>>()
                .ok_or_else(|| format!("`sweep.{k}` is not a list of strings"))?;
            if names.is_empty() {
                return Err(format!("`sweep.{k}` is empty"));
            }
            Ok(names)
        };
        Ok(Dataset {
            tool: string(&doc, "tool")?,
            version: string(&doc, "version")?,
            date: doc.get("date").map(|v| match v {
                toml::Value::String(s) => s.clone(),
                other => other.to_string(),
            }),
            targets: list("targets")?,
            configs: list("configs")?,
            rows: Vec::new(),
        })
    }

    /// Every row's target and configuration must be one `runs.toml` lists.
    fn check_names(&self) -> Result<(), String> {
        for (i, r) in self.rows.iter().enumerate() {
            if !self.targets.contains(&r.target) {
                return Err(format!(
                    "row {}: target `{}` is not in runs.toml's targets",
                    i + 1,
                    r.target
                ));
            }
            if !self.configs.contains(&r.config) {
                return Err(format!(
                    "row {}: configuration `{}` is not in runs.toml's configs",
                    i + 1,
                    r.config
                ));
            }
        }
        Ok(())
    }

    /// Position of a configuration in the runs order.
    fn config_index(&self, name: &str) -> usize {
        self.configs.iter().position(|c| c == name).unwrap_or(0)
    }

    /// The rows of `target` the reports compare (see the module doc for the rules).
    pub fn select(&self, target: &str, manifest: &Manifest) -> Result<TargetSelection, String> {
        let mut sel = TargetSelection::default();
        let mut failed: BTreeSet<&str> = BTreeSet::new();
        for r in self.rows.iter().filter(|r| r.target == target) {
            if r.status != "ok" {
                sel.failed_rows += 1;
                failed.insert(&r.program);
            }
        }
        let n = self.configs.len();
        // Hash indexes: linear in rows + manifest size (a manifest may list 10^5 kernels).
        let programs: HashMap<&str, (&crate::bench::manifest::Program, HashSet<&str>)> = manifest
            .programs
            .iter()
            .map(|p| {
                let kernels = p.kernels.iter().map(String::as_str).collect();
                (p.path.as_str(), (p, kernels))
            })
            .collect();
        for (i, r) in self.rows.iter().enumerate() {
            if r.target != target || r.status != "ok" || failed.contains(r.program.as_str()) {
                continue;
            }
            let (program, kernels) = programs.get(r.program.as_str()).ok_or_else(|| {
                format!(
                    "program `{}` of functions.csv is not in the manifest {}",
                    r.program,
                    manifest.file.display()
                )
            })?;
            if !kernels.contains(r.function.as_str()) {
                sel.non_kernel_rows += 1;
                continue;
            }
            let entry = sel
                .kernels
                .entry((r.program.clone(), r.function.clone()))
                .or_insert_with(|| (program.group, vec![usize::MAX; n]));
            entry.1[self.config_index(&r.config)] = i;
        }
        let before = sel.kernels.len();
        sel.kernels
            .retain(|_, (_, rows)| rows.iter().all(|&i| i != usize::MAX));
        sel.incomplete_kernels = before - sel.kernels.len();
        sel.failed_programs = failed.into_iter().map(String::from).collect();
        Ok(sel)
    }
}

/// Parses `functions.csv` bytes: the header must name every column of [`KEY_COLUMNS`] and
/// [`COUNT_COLUMNS`] (other columns are ignored). Errors start with `:line: ` or `: ` so the
/// caller can prefix the file name.
pub fn parse_functions_csv(bytes: &[u8]) -> Result<Vec<Row>, String> {
    let mut reader = csv::Reader::from_reader(bytes);
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| format!(": {e}"))?
        .iter()
        .map(String::from)
        .collect();
    let find = |name: &str| -> Result<usize, String> {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| format!(": missing column `{name}` (the report needs it)"))
    };
    let keys: Vec<usize> = KEY_COLUMNS
        .iter()
        .map(|c| find(c))
        .collect::<Result<_, _>>()?;
    let counts: Vec<usize> = COUNT_COLUMNS
        .iter()
        .map(|c| find(c))
        .collect::<Result<_, _>>()?;
    let optional = |name: &str| header.iter().position(|h| h == name);
    let (regs_col, ilp_col) = (optional("regs"), optional("ilp_optimal"));
    let weighted_cols =
        optional("weighted_moves_ssa_out").zip(optional("weighted_moves_coalesced"));
    let mut rows = Vec::new();
    let mut sums = ColumnSums::default();
    for rec in reader.records() {
        let rec = rec.map_err(|e| format!(": {e}"))?;
        let line = rec.position().map_or(0, |p| p.line());
        let field = |k: usize| rec.get(k).unwrap_or("").to_string();
        let count = |k: usize, name: &str| -> Result<u64, String> {
            let text = rec.get(k).unwrap_or("");
            text.parse()
                .map_err(|_| format!(":{line}: `{text}` is not a count in column `{name}`"))
        };
        let mut values = [0u64; 8];
        for (slot, (&k, name)) in values.iter_mut().zip(counts.iter().zip(COUNT_COLUMNS)) {
            let text = rec.get(k).unwrap_or("");
            *slot = text
                .parse()
                .map_err(|_| format!(":{line}: `{text}` is not a count in column `{name}`"))?;
        }
        let (function, status) = (field(keys[1]), field(keys[4]));
        check_status(&function, &status, &values).map_err(|e| format!(":{line}: {e}"))?;
        let weighted_points = match weighted_cols {
            Some((a, b)) => Some([
                count(a, "weighted_moves_ssa_out")?,
                count(b, "weighted_moves_coalesced")?,
            ]),
            None => None,
        };
        sums.add(&values, weighted_points).map_err(|name| {
            format!(":{line}: column `{name}` adds up beyond 2^64 at this row (a count is wrong)")
        })?;
        rows.push(Row {
            program: field(keys[0]),
            function,
            target: field(keys[2]),
            config: field(keys[3]),
            status,
            counts: values,
            regs: regs_col.map(field).unwrap_or_default(),
            ilp_optimal: ilp_col.and_then(|k| rec.get(k)?.parse().ok()),
            weighted_points,
        });
    }
    Ok(rows)
}

/// The status vocabulary of a row: `ok` on a function's row, or the one-line reason of a
/// failed job on its single row (function `*`, every count 0), as `ssalab bench` writes them.
fn check_status(function: &str, status: &str, counts: &[u64; 8]) -> Result<(), String> {
    if status.trim().is_empty() || status.contains(['\n', '\r']) {
        return Err(format!(
            "column `status`: `{status}` is not a status (`ok` or a one-line failure reason)"
        ));
    }
    let failed_row = function == "*";
    if (status == "ok") == failed_row {
        return Err(format!(
            "column `status`: `{status}` does not fit function `{function}` (`ok` is a \
             function's status; a failed job has one row, function `*`, with its reason)"
        ));
    }
    if failed_row && counts.iter().any(|&c| c != 0) {
        return Err("the row of a failed job (function `*`) has nonzero counts".into());
    }
    Ok(())
}

/// Running sums of every column the tables add up, so that a count near 2^64 is an error at
/// its row instead of a wrapped total: if the whole column fits, every table's sum (over a
/// subset of the rows) fits too.
#[derive(Default)]
struct ColumnSums {
    counts: [u64; 8],
    /// `dyn_spill_loads + dyn_spill_stores`, which [`Metric::DynSpills`] adds.
    spills: u64,
    weighted: [u64; 2],
}

impl ColumnSums {
    /// Adds one row; on overflow, the name of the column.
    fn add(&mut self, counts: &[u64; 8], weighted: Option<[u64; 2]>) -> Result<(), &'static str> {
        for (k, (sum, &v)) in self.counts.iter_mut().zip(counts).enumerate() {
            *sum = sum.checked_add(v).ok_or(COUNT_COLUMNS[k])?;
        }
        self.spills = counts[5]
            .checked_add(counts[6])
            .and_then(|s| self.spills.checked_add(s))
            .ok_or("dyn_spill_loads + dyn_spill_stores")?;
        let names = ["weighted_moves_ssa_out", "weighted_moves_coalesced"];
        for ((sum, v), name) in self
            .weighted
            .iter_mut()
            .zip(weighted.unwrap_or([0; 2]))
            .zip(names)
        {
            *sum = sum.checked_add(v).ok_or(name)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "program,function,target,config,status,moves_ssa_out,moves_coalesced,\
                          moves_final,weighted_moves,dyn_moves,dyn_spill_loads,dyn_spill_stores,cycles";

    #[test]
    fn columns_are_found_by_name_in_any_order() {
        let text = format!("extra,{HEADER}\nx,p.c,f,st231,base,ok,1,2,3,4,5,6,7,8\n");
        let rows = parse_functions_csv(text.as_bytes()).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].program, "p.c");
        assert_eq!(rows[0].counts, [1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(Metric::DynSpills.value(&rows[0]), 13);
    }

    #[test]
    fn missing_column_and_bad_number_are_named() {
        let no_cycles = HEADER.replace(",cycles", "");
        let e = parse_functions_csv(format!("{no_cycles}\n").as_bytes()).unwrap_err();
        assert!(e.contains("missing column `cycles`"), "{e}");
        let bad = format!("{HEADER}\np.c,f,st231,base,ok,1,2,x,4,5,6,7,8\n");
        let e = parse_functions_csv(bad.as_bytes()).unwrap_err();
        assert!(e.contains(":2:") && e.contains("moves_final"), "{e}");
    }

    #[test]
    fn runs_fields_are_read_leniently() {
        let ds = Dataset::parse_runs(
            "tool = \"ssalab\"\nversion = \"1.2\"\nnew_field = 3\n[sweep]\n\
             targets = [\"st231\"]\nconfigs = [\"b\", \"a\"]\n",
        )
        .unwrap();
        assert_eq!(ds.configs, ["b", "a"]);
        assert_eq!(ds.date, None);
        let e = Dataset::parse_runs("tool = \"ssalab\"\nversion = \"1\"\n").unwrap_err();
        assert!(e.contains("[sweep]"), "{e}");
    }
}
