//! The files of a fuzz campaign (`ssalab fuzz run --out DIR`), so that a campaign can be cut
//! into shards (`--shard K/N`, one block of consecutive seeds each), run on several machines or
//! as a Slurm job array, and merged (`ssalab merge`) into exactly the files one run writes.
//!
//! * `fuzz.csv`: one row per program, by seed: the verdict, the first failing stage and kind,
//!   the other failing stages, the skipped configurations, the reduced size and the first line
//!   of the failure. Every column is a pure function of (generator version, seed, size,
//!   options), so two runs of one campaign write the same bytes (the campaign's one exception,
//!   a host run over its wall-clock limit, is a discarded program in both).
//! * `fuzz.toml`: the campaign's definition (what must be equal to merge), the shard, the
//!   shards a partial merge lacks, and the totals. No times and no dates.
//!
//! Shard K/N holds the K-th of N blocks of consecutive seeds ([`seed_block`]); merging checks
//! the definitions, that each K appears once, and that each output holds exactly its block's
//! seeds in order; it concatenates the blocks. Linear in the rows.

use crate::bench::jobs::Shard;
use crate::bench::merge::shard_list;
use crate::bench::output::write_atomic;
use crate::fuzz::driver::{ProgramReport, Summary};
use crate::fuzz::oracle::Verdict;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The per-program file.
pub const FUZZ_CSV: &str = "fuzz.csv";
/// The campaign file (written last).
pub const FUZZ_TOML: &str = "fuzz.toml";
/// Columns of `fuzz.csv`.
pub const FUZZ_COLUMNS: [&str; 10] = [
    "seed",
    "lines",
    "verdict",
    "front_steps",
    "stage",
    "kind",
    "also",
    "skipped",
    "reduced_lines",
    "detail",
];

/// What defines a campaign: outputs with equal definitions (and tool versions) merge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FuzzDefinition {
    pub generator: u32,
    pub first_seed: u64,
    /// Programs in the whole campaign (all shards).
    pub count: u64,
    pub size: String,
    /// The configurations checked, by full name.
    pub configurations: Vec<String>,
    pub reduce: bool,
    pub reduce_budget: usize,
    pub max_steps: u64,
    pub quick: bool,
    pub front_reference: bool,
}

/// Totals of the programs in one output.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FuzzTotals {
    pub programs: u64,
    pub agree: u64,
    pub mismatches: u64,
    pub discarded: u64,
    pub generator_bugs: u64,
}

/// The `fuzz.toml` document.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FuzzRuns {
    pub tool: String,
    pub version: String,
    /// `K/N` for a shard's output; absent for a whole campaign or a merge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// Shards a `merge --allow-partial` did not have.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing_shards: Vec<String>,
    pub campaign: FuzzDefinition,
    pub results: FuzzTotals,
}

/// A fuzz output: the campaign file and the rows of `fuzz.csv` (by seed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuzzFiles {
    pub runs: FuzzRuns,
    pub rows: Vec<Vec<String>>,
}

/// The seeds of shard K/N of a campaign of `count` programs from `first_seed`: the K-th of N
/// blocks of consecutive seeds, as `(first seed, programs)`. Blocks differ by at most one.
pub fn seed_block(first_seed: u64, count: u64, shard: Option<Shard>) -> (u64, u64) {
    let Some(s) = shard else {
        return (first_seed, count);
    };
    let n = s.count as u128;
    let start = (u128::from(count) * (s.index as u128 - 1) / n) as u64;
    let end = (u128::from(count) * s.index as u128 / n) as u64;
    (first_seed.wrapping_add(start), end - start)
}

/// The first line of a message, one line, at most 160 characters.
fn flatten(m: &str) -> String {
    let line = m
        .lines()
        .find(|l| l.contains("error"))
        .or_else(|| m.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("");
    line.chars().take(160).collect()
}

/// One program's row.
fn row(r: &ProgramReport) -> Vec<String> {
    let (verdict, steps, stage, kind, also, skipped, detail) = match &r.verdict {
        Verdict::Agree {
            front_steps,
            skipped,
        } => (
            "agree",
            front_steps.to_string(),
            "",
            String::new(),
            String::new(),
            skipped.len(),
            String::new(),
        ),
        Verdict::Mismatch {
            first,
            others,
            skipped,
        } => (
            "mismatch",
            String::new(),
            first.stage.as_str(),
            first.kind.to_string(),
            others
                .iter()
                .map(|o| o.stage.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            skipped.len(),
            flatten(&first.detail),
        ),
        Verdict::Discarded(m) => (
            "discarded",
            String::new(),
            "",
            String::new(),
            String::new(),
            0,
            flatten(m),
        ),
        Verdict::GeneratorBug(m) => (
            "generator-bug",
            String::new(),
            "",
            String::new(),
            String::new(),
            0,
            flatten(m),
        ),
    };
    vec![
        r.seed.to_string(),
        r.lines.to_string(),
        verdict.to_string(),
        steps,
        stage.to_string(),
        kind,
        also,
        skipped.to_string(),
        r.reduced
            .as_ref()
            .map_or(String::new(), |x| x.lines.to_string()),
        detail,
    ]
}

/// The verdicts `fuzz.csv` may hold (the `verdict` column).
const VERDICTS: [&str; 4] = ["agree", "mismatch", "discarded", "generator-bug"];

/// Checks one `fuzz.csv` row as `merge` copies it: the counts are non-negative integers
/// (`seed`, `lines`, `skipped`; `front_steps` and `reduced_lines` may be empty) and the
/// verdict is one of [`VERDICTS`]. The error names the column.
fn check_row(row: &[String]) -> Result<(), String> {
    if row.len() != FUZZ_COLUMNS.len() {
        return Err(format!("{} fields, not {}", row.len(), FUZZ_COLUMNS.len()));
    }
    for (k, may_be_empty) in [(0, false), (1, false), (3, true), (7, false), (8, true)] {
        let v = &row[k];
        if !(may_be_empty && v.is_empty()) && v.parse::<u64>().is_err() {
            return Err(format!(
                "column {}: `{v}` is not a count (a non-negative integer)",
                FUZZ_COLUMNS[k]
            ));
        }
    }
    if !VERDICTS.contains(&row[2].as_str()) {
        return Err(format!(
            "column verdict: `{}` is not a verdict ({})",
            row[2],
            VERDICTS.join(", ")
        ));
    }
    Ok(())
}

/// Totals over rows (by their `verdict` column).
fn totals(rows: &[Vec<String>]) -> FuzzTotals {
    let mut t = FuzzTotals {
        programs: rows.len() as u64,
        ..FuzzTotals::default()
    };
    for r in rows {
        match r.get(2).map(String::as_str) {
            Some("agree") => t.agree += 1,
            Some("mismatch") => t.mismatches += 1,
            Some("discarded") => t.discarded += 1,
            _ => t.generator_bugs += 1,
        }
    }
    t
}

impl FuzzFiles {
    /// The files of a finished campaign (or shard) `summary` of the campaign `def`.
    pub fn from_summary(summary: &Summary, def: FuzzDefinition, shard: Option<Shard>) -> Self {
        let rows: Vec<Vec<String>> = summary.reports.iter().map(row).collect();
        FuzzFiles {
            runs: FuzzRuns {
                tool: "ssalab".into(),
                version: env!("CARGO_PKG_VERSION").into(),
                shard: shard.map(|s| s.to_string()),
                missing_shards: Vec::new(),
                campaign: def,
                results: totals(&rows),
            },
            rows,
        }
    }

    /// The shard this output holds (a whole campaign is 1/1).
    pub fn shard(&self) -> Result<Shard, String> {
        self.runs
            .shard
            .as_deref()
            .map_or(Ok(Shard { index: 1, count: 1 }), str::parse)
    }

    /// Writes `fuzz.csv`, then `fuzz.toml`, each atomically, into `dir` (created).
    pub fn write(&self, dir: &Path) -> Result<(), String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let mut w = csv::Writer::from_writer(Vec::new());
        let err = |e: csv::Error| format!("cannot write {FUZZ_CSV}: {e}");
        w.write_record(FUZZ_COLUMNS).map_err(err)?;
        for r in &self.rows {
            w.write_record(r).map_err(err)?;
        }
        let csv = w
            .into_inner()
            .map_err(|e| format!("cannot write {FUZZ_CSV}: {e}"))?;
        let toml =
            toml::to_string(&self.runs).map_err(|e| format!("cannot write {FUZZ_TOML}: {e}"))?;
        write_atomic(&dir.join(FUZZ_CSV), &csv)?;
        write_atomic(&dir.join(FUZZ_TOML), toml.as_bytes())
    }

    /// Reads a fuzz output back and checks it: the totals match the rows, and the rows are
    /// exactly the seeds of its shard, in order.
    pub fn read(dir: &Path) -> Result<FuzzFiles, String> {
        let tpath = dir.join(FUZZ_TOML);
        let text =
            std::fs::read_to_string(&tpath).map_err(|e| format!("{}: {e}", tpath.display()))?;
        let runs: FuzzRuns = toml::from_str(&text)
            .map_err(|e| format!("{}: {}", tpath.display(), e.message().trim()))?;
        let cpath = dir.join(FUZZ_CSV);
        let mut reader =
            csv::Reader::from_path(&cpath).map_err(|e| format!("{}: {e}", cpath.display()))?;
        let header = reader
            .headers()
            .map_err(|e| format!("{}: {e}", cpath.display()))?
            .clone();
        if header.iter().ne(FUZZ_COLUMNS) {
            return Err(format!("{}: not a fuzz.csv header", cpath.display()));
        }
        let mut rows = Vec::new();
        for rec in reader.records() {
            let rec = rec.map_err(|e| format!("{}: {e}", cpath.display()))?;
            let line = rec.position().map_or(0, |p| p.line());
            let row = rec.iter().map(str::to_string).collect::<Vec<_>>();
            check_row(&row).map_err(|e| format!("{}:{line}: {e}", cpath.display()))?;
            rows.push(row);
        }
        let files = FuzzFiles { runs, rows };
        files
            .check()
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(files)
    }

    /// The seeds this output must hold, in order.
    fn expected_seeds(&self) -> Result<Vec<u64>, String> {
        let c = &self.runs.campaign;
        let missing = self
            .runs
            .missing_shards
            .iter()
            .map(|m| m.parse::<Shard>())
            .collect::<Result<Vec<_>, _>>()?;
        let shards: Vec<Option<Shard>> = if missing.is_empty() {
            vec![self.runs.shard.as_deref().map(str::parse).transpose()?]
        } else {
            let n = missing[0].count;
            (1..=n)
                .map(|index| Shard { index, count: n })
                .filter(|s| !missing.contains(s))
                .map(Some)
                .collect()
        };
        let blocks: Vec<(u64, u64)> = shards
            .into_iter()
            .map(|s| seed_block(c.first_seed, c.count, s))
            .collect();
        // `count` is read from a file: the seeds are listed only once they are known to be
        // as many as the rows (a count near 2^64 must not allocate).
        let expected = blocks.iter().fold(0u64, |t, b| t.saturating_add(b.1));
        if expected != self.rows.len() as u64 {
            return Err(format!(
                "{FUZZ_CSV} has {} programs, its shard has {expected}",
                self.rows.len()
            ));
        }
        let mut seeds = Vec::with_capacity(self.rows.len());
        for (first, n) in blocks {
            seeds.extend((0..n).map(|i| first.wrapping_add(i)));
        }
        Ok(seeds)
    }

    /// Totals, row widths and seeds (see [`FuzzFiles::read`]).
    fn check(&self) -> Result<(), String> {
        if totals(&self.rows) != self.runs.results {
            return Err(format!(
                "the totals of {FUZZ_TOML} do not match {FUZZ_CSV} (a file is cut short or from another campaign)"
            ));
        }
        let expected = self.expected_seeds()?;
        if expected.len() != self.rows.len() {
            return Err(format!(
                "{FUZZ_CSV} has {} programs, its shard has {}",
                self.rows.len(),
                expected.len()
            ));
        }
        for (r, seed) in self.rows.iter().zip(expected) {
            if r.len() != FUZZ_COLUMNS.len() || r[0] != seed.to_string() {
                return Err(format!(
                    "{FUZZ_CSV}: a row of seed `{}` where seed {seed} was expected",
                    r.first().map_or("", String::as_str)
                ));
            }
        }
        Ok(())
    }
}

/// A fuzz merge's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuzzMerged {
    pub files: FuzzFiles,
    pub missing_shards: Vec<Shard>,
    /// Programs of the campaign the merged output lacks.
    pub missing_programs: u64,
}

/// Merges fuzz shard outputs (in any order): same campaign, one N, each K once, and with
/// `allow_partial` absent shards listed instead of refused.
pub fn merge_fuzz(
    outputs: &[(PathBuf, FuzzFiles)],
    allow_partial: bool,
) -> Result<FuzzMerged, String> {
    let Some((dir0, first)) = outputs.first() else {
        return Err("nothing to merge".into());
    };
    let mut by_index: HashMap<usize, usize> = HashMap::new();
    let mut count = None;
    for (o, (dir, f)) in outputs.iter().enumerate() {
        if !f.runs.missing_shards.is_empty() {
            return Err(format!(
                "{} is a partial merge (it lacks shards {}): merge the shard directories instead",
                dir.display(),
                f.runs.missing_shards.join(", ")
            ));
        }
        if f.runs.campaign != first.runs.campaign
            || f.runs.version != first.runs.version
            || f.runs.tool != first.runs.tool
        {
            return Err(format!(
                "{} is not from the same fuzz campaign as {} (different tool version, seeds, size or configurations)",
                dir.display(),
                dir0.display()
            ));
        }
        let s = f.shard().map_err(|e| format!("{}: {e}", dir.display()))?;
        if *count.get_or_insert(s.count) != s.count {
            return Err(format!(
                "{} holds shard {s}, but {} holds a shard of {}",
                dir.display(),
                dir0.display(),
                first.shard().map_or(0, |x| x.count)
            ));
        }
        if let Some(other) = by_index.insert(s.index, o) {
            return Err(format!(
                "shard {s} given twice: {} and {}",
                outputs[other].0.display(),
                dir.display()
            ));
        }
    }
    let n = count.unwrap_or(1);
    let missing: Vec<Shard> = (1..=n)
        .filter(|k| !by_index.contains_key(k))
        .map(|index| Shard { index, count: n })
        .collect();
    if !missing.is_empty() && !allow_partial {
        return Err(format!(
            "missing shard{}: {} (`--allow-partial` merges the others)",
            if missing.len() > 1 { "s" } else { "" },
            shard_list(&missing)
        ));
    }
    let mut rows = Vec::new();
    for k in 1..=n {
        if let Some(&o) = by_index.get(&k) {
            rows.extend(outputs[o].1.rows.iter().cloned());
        }
    }
    let mut runs = first.runs.clone();
    runs.shard = None;
    runs.missing_shards = missing.iter().map(Shard::to_string).collect();
    runs.results = totals(&rows);
    Ok(FuzzMerged {
        missing_programs: runs.campaign.count - rows.len() as u64,
        missing_shards: missing,
        files: FuzzFiles { runs, rows },
    })
}

/// Reads fuzz outputs, merges them and writes the result into `out`.
pub fn merge_fuzz_dirs(
    dirs: &[PathBuf],
    out: &Path,
    allow_partial: bool,
) -> Result<FuzzMerged, String> {
    let outputs = dirs
        .iter()
        .map(|d| FuzzFiles::read(d).map(|f| (d.clone(), f)))
        .collect::<Result<Vec<_>, _>>()?;
    let merged = merge_fuzz(&outputs, allow_partial)?;
    merged.files.write(out)?;
    Ok(merged)
}

/// Whether `dir` holds a fuzz output (rather than a bench sweep's).
pub fn is_fuzz_output(dir: &Path) -> bool {
    dir.join(FUZZ_TOML).is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_blocks_cover_the_campaign_once() {
        assert_eq!(seed_block(10, 7, None), (10, 7));
        let blocks: Vec<(u64, u64)> = (1..=3)
            .map(|index| seed_block(10, 7, Some(Shard { index, count: 3 })))
            .collect();
        assert_eq!(blocks, [(10, 2), (12, 2), (14, 3)]);
        // More shards than programs: some blocks are empty, none overlap.
        let blocks: Vec<(u64, u64)> = (1..=4)
            .map(|index| seed_block(0, 2, Some(Shard { index, count: 4 })))
            .collect();
        assert_eq!(blocks, [(0, 0), (0, 1), (1, 0), (1, 1)]);
    }

    fn def() -> FuzzDefinition {
        FuzzDefinition {
            generator: 1,
            first_seed: 5,
            count: 5,
            size: "tiny".into(),
            configurations: vec!["O2".into()],
            reduce: true,
            reduce_budget: 10,
            max_steps: 100,
            quick: false,
            front_reference: false,
        }
    }

    fn files(seeds: std::ops::Range<u64>, shard: Option<Shard>) -> FuzzFiles {
        let rows: Vec<Vec<String>> = seeds
            .map(|s| {
                let mut r = vec![s.to_string(), "3".into()];
                r.push(if s == 7 { "mismatch" } else { "agree" }.into());
                r.extend((0..7).map(|_| String::new()));
                r
            })
            .collect();
        FuzzFiles {
            runs: FuzzRuns {
                tool: "ssalab".into(),
                version: "1".into(),
                shard: shard.map(|s| s.to_string()),
                missing_shards: vec![],
                campaign: def(),
                results: totals(&rows),
            },
            rows,
        }
    }

    #[test]
    fn shards_merge_into_the_whole_campaign() {
        let s = |index| Some(Shard { index, count: 2 });
        let (a, b) = (files(5..7, s(1)), files(7..10, s(2)));
        a.check().unwrap();
        b.check().unwrap();
        let whole = files(5..10, None);
        let m = merge_fuzz(&[("b".into(), b.clone()), ("a".into(), a.clone())], false).unwrap();
        assert_eq!(m.files, whole);
        assert_eq!(m.files.runs.results.mismatches, 1);
        let e = merge_fuzz(&[("a".into(), a.clone())], false).unwrap_err();
        assert_eq!(
            e,
            "missing shard: 2/2 (`--allow-partial` merges the others)"
        );
        let p = merge_fuzz(&[("a".into(), a.clone())], true).unwrap();
        assert_eq!(
            (p.missing_programs, p.files.runs.missing_shards.clone()),
            (3, vec!["2/2".to_string()])
        );
        p.files.check().unwrap();
        let e = merge_fuzz(&[("a".into(), a.clone()), ("c".into(), a)], false).unwrap_err();
        assert_eq!(e, "shard 1/2 given twice: a and c");
    }

    #[test]
    fn a_wrong_seed_or_total_is_found() {
        let mut a = files(5..7, Some(Shard { index: 1, count: 2 }));
        a.rows[1][0] = "9".into();
        assert!(a.check().unwrap_err().contains("seed `9` where seed 6"));
        let mut b = files(5..10, None);
        b.rows.pop();
        assert!(b.check().unwrap_err().contains("totals"));
    }

    /// A campaign `count` near 2^64 is an error, not a list of every seed (it aborted on
    /// allocation); so is one of a missing shard whose N is near 2^63.
    #[test]
    fn a_huge_count_is_refused_before_listing_seeds() {
        let mut a = files(5..10, None);
        a.runs.campaign.count = u64::MAX;
        let e = a.check().unwrap_err();
        assert!(
            e.contains(&format!("has 5 programs, its shard has {}", u64::MAX)),
            "{e}"
        );
        let mut b = files(5..10, None);
        b.runs.missing_shards = vec!["2/9223372036854775807".into()];
        let e = b.check().unwrap_err();
        assert!(e.contains("at most 1000000 shards"), "{e}");
    }

    /// What `read` checks in each row: counts and the verdict vocabulary.
    #[test]
    fn rows_with_bad_counts_or_verdicts_are_refused() {
        let mut good = files(5..6, None).rows.remove(0);
        good[7] = "0".into(); // skipped configurations, as `row` writes it
        check_row(&good).unwrap();
        for (k, bad, want) in [
            (1, "-5", "column lines: `-5`"),
            (3, "NaN", "column front_steps: `NaN`"),
            (2, "weird", "column verdict: `weird`"),
        ] {
            let mut row = good.clone();
            row[k] = bad.into();
            let e = check_row(&row).unwrap_err();
            assert!(e.contains(want), "{e}");
        }
    }
}
