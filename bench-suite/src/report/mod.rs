//! `ssalab report`: the tables and plots of a bench sweep, regenerated from its
//! `functions.csv` and `runs.toml` (written by `ssalab bench`, see [`crate::bench::output`]).
//!
//! * [`data`] reads the CSV (by column name) and `runs.toml`, and selects per target the
//!   kernels every configuration ran successfully;
//! * [`tables`] writes `tables.md`, the layout of Rastello et al. (2005) Tables 2–5 plus
//!   dynamic counts;
//! * [`findings`] writes `findings.md`: the paper's Tables 2–5 restricted to their own
//!   configurations, and whether each ordering the paper's text claims holds on our suite;
//! * [`pcm`] writes Brandner & Colombet's Tables 1–2 (`pcm-tables.md`) and Figure 15 when
//!   the sweep has their configurations;
//! * [`plots`] writes the SVG plots, each answering one question named in its title: totals
//!   per configuration, static against executed copies, and per-kernel ratios on a log scale
//!   (Brandner & Colombet 2011, Figures 11–17, with the extreme kernels named);
//! * [`diff`] compares two sets of `functions.csv` rows function by function (`ssalab diff`);
//! * this module names the files, writes `README.md` describing them, and writes everything
//!   atomically.
//!
//! Determinism: every output is a pure function of the two input files and the manifest (no
//! clock, no hash-map order), so the same CSV gives byte-identical files.

pub mod data;
pub mod diff;
pub mod findings;
pub mod pcm;
pub mod plots;
pub mod road2;
pub mod tables;

use crate::bench::manifest::Manifest;
use crate::bench::output::write_atomic;
use data::{Dataset, TargetSelection};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Name of the tables file.
pub const TABLES_FILE: &str = "tables.md";
/// Name of the paper-findings file.
pub const FINDINGS_FILE: &str = "findings.md";
/// Name of the generated README.
pub const README_FILE: &str = "README.md";

/// One generated plot, for the README.
struct PlotEntry {
    file: String,
    question: String,
    description: String,
}

/// Every output file (name relative to the output directory, contents), in a fixed order.
pub fn render(ds: &Dataset, manifest: &Manifest) -> Result<Vec<(String, Vec<u8>)>, String> {
    let selections: Vec<(String, TargetSelection)> = ds
        .targets
        .iter()
        .map(|t| Ok((t.clone(), ds.select(t, manifest)?)))
        .collect::<Result<_, String>>()?;
    let mut files = vec![(
        TABLES_FILE.to_string(),
        tables::render_tables(ds, &selections).into_bytes(),
    )];
    files.push((
        FINDINGS_FILE.to_string(),
        findings::render_findings(ds, &selections).into_bytes(),
    ));
    let mut entries = Vec::new();
    for (target, sel) in &selections {
        for p in plots::render_target(ds, target, sel)? {
            entries.push(PlotEntry {
                file: p.file.clone(),
                question: p.question,
                description: p.description,
            });
            files.push((p.file, p.svg.into_bytes()));
        }
    }
    // Brandner & Colombet Tables 1-2 and Figure 15, when the sweep has their configurations.
    for (file, bytes) in pcm::render(ds, &selections)? {
        if file.ends_with(".svg") {
            entries.push(PlotEntry {
                question: "Brandner & Colombet (2011) Figure 15: how many copies does the DDG \
                           method remove, kernel by kernel?"
                    .to_string(),
                description: "accumulated, normalised copies under `BASE` and copies \
                              eliminated by `DDG`, kernels by decreasing copies (tables: \
                              `pcm-tables.md`)"
                    .to_string(),
                file: file.clone(),
            });
        }
        files.push((file, bytes));
    }
    files.push((
        README_FILE.to_string(),
        render_readme(ds, &selections, &entries).into_bytes(),
    ));
    Ok(files)
}

/// Per target and ratio metric, a table of what each configuration's ratio panel shows.
fn ratio_tables(s: &mut String, ds: &Dataset, selections: &[(String, TargetSelection)]) {
    if ds.configs.len() < 2 {
        return;
    }
    let first = &ds.configs[0];
    s.push_str(
        "\n## The ratio plots in numbers\n\nPer configuration, against the first: kernels \
         with fewer, equal and more (each kernel's count divided by the first configuration's), \
         kernels whose count drops to 0, the upper median ratio, and kernels with 0 under the \
         first configuration (no ratio; in brackets, how many of them are nonzero under the \
         compared one).\n",
    );
    for (target, sel) in selections {
        for metric in plots::RATIO_METRICS {
            let _ = write!(
                s,
                "\n### {target}: `{}` relative to `{first}`\n\n| configuration | fewer | equal | \
                 more | to 0 | median | no ratio |\n|---|---:|---:|---:|---:|---:|---:|\n",
                metric.column()
            );
            for c in 1..ds.configs.len() {
                let (_, r) = plots::ratios(ds, sel, metric, c);
                let median = r.median.map_or("-".to_string(), |m| format!("{m:.3}"));
                let _ = writeln!(
                    s,
                    "| `{}` | {} | {} | {} | {} | {median} | {} ({}) |",
                    ds.configs[c],
                    r.below,
                    r.equal,
                    r.above,
                    r.zero,
                    r.zero_base,
                    r.zero_base_gained
                );
            }
        }
    }
}

fn render_readme(
    ds: &Dataset,
    selections: &[(String, TargetSelection)],
    plots: &[PlotEntry],
) -> String {
    let mut s = String::from("# Bench reports\n\n");
    s.push_str(
        "Everything in this directory is generated; do not edit by hand. `ssalab bench --out \
         DIR` runs every program × configuration × target, writes the raw data (`functions.csv`, \
         `jobs.csv`, `runs.toml`) and, in the same atomic swap, this report made of it; \
         `ssalab report --in DIR --out DIR` regenerates the report from the data alone, byte for \
         byte the same. What each file answers: `docs/report.md` in the repository.\n\n",
    );
    let _ = writeln!(
        s,
        "Data: written by {} {}; targets {}; configurations {} (in table order).",
        ds.tool,
        ds.version,
        ds.targets.join(", "),
        ds.configs.join(", ")
    );
    match &ds.date {
        Some(d) => {
            let _ = writeln!(s, "Sweep date: {d}.");
        }
        None => s.push_str("The sweep's runs.toml records no date.\n"),
    }
    s.push_str("\n## Files\n\n| file | produced by | contents |\n|---|---|---|\n");
    s.push_str(
        "| `functions.csv` | `ssalab bench` (input of `ssalab report --in DIR`) | one row per \
         program × function × target × configuration (tidy format) |\n| `jobs.csv` | `ssalab \
         bench` | one row per job: status, compile and simulate times |\n| `runs.toml` | \
         `ssalab bench` (input of `ssalab report`) | tool version, targets, configurations and \
         options of the sweep, totals |\n",
    );
    let _ = writeln!(
        s,
        "| `{TABLES_FILE}` | `ssalab report` | per target and group: static moves after \
         out-of-SSA, after coalescing, final; weighted moves; dynamic moves, spill loads + \
         stores, cycles — Rastello et al. (2005) Tables 2–5 layout, first column absolute, \
         others relative to it (+/-) |"
    );
    let _ = writeln!(
        s,
        "| `{FINDINGS_FILE}` | `ssalab report` (printed by `ssalab report --findings`) | \
         Rastello et al. (2005) Tables 2–5 restricted to their own configurations, and \
         whether each ordering their §5 text claims holds on this suite, with the numbers |"
    );
    for p in plots {
        let _ = writeln!(
            s,
            "| `{}` | `ssalab report` | **{}** — {} |",
            p.file, p.question, p.description
        );
    }
    let _ = writeln!(s, "| `{README_FILE}` | `ssalab report` | this file |");
    if ds.configs.len() == 1 {
        s.push_str(
            "\nThis sweep has a single configuration, so there are no ratio plots, and the \
             tables have a single (absolute) column.\n",
        );
    }
    ratio_tables(&mut s, ds, selections);
    s.push_str(
        "\nOnly the manifest's kernels are counted (each once); a program with a failed job \
         under any configuration is left out of all columns of its target (see the footnotes \
         in the tables).\n",
    );
    s
}

/// Whether a file of an output directory is one a report writes (and a newer report may
/// drop): the markdown files, the plots (`plot-*.svg`, `fig15-*.svg`) and the README.
pub fn is_generated(name: &str) -> bool {
    let fixed = [
        TABLES_FILE,
        FINDINGS_FILE,
        README_FILE,
        pcm::FILE,
        road2::ROAD2_FILE,
    ];
    fixed.contains(&name)
        || (name.ends_with(".svg") && (name.starts_with("plot-") || name.starts_with("fig15-")))
}

/// Every report file of one sweep (`ds`) and, for [`road2`]'s table, more sweeps of the
/// same suite: what `ssalab report` writes, in a fixed order.
pub fn render_all(
    ds: Dataset,
    also: Vec<Dataset>,
    manifest: &Manifest,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut files = render(&ds, manifest)?;
    let mut sets = vec![ds];
    sets.extend(also);
    let selections: Vec<Vec<(String, TargetSelection)>> = sets
        .iter()
        .map(|d| {
            d.targets
                .iter()
                .map(|t| Ok((t.clone(), d.select(t, manifest)?)))
                .collect::<Result<_, String>>()
        })
        .collect::<Result<_, String>>()?;
    let sweeps: Vec<road2::Sweep> = sets
        .iter()
        .zip(&selections)
        .map(|(ds, selections)| road2::Sweep { ds, selections })
        .collect();
    if let Some(text) = road2::render_road2(&sweeps) {
        files.push((road2::ROAD2_FILE.to_string(), text.into_bytes()));
    }
    Ok(files)
}

/// The report of the data files `ssalab bench` is about to write into `dir` (`files` holds
/// `runs.toml` and `functions.csv` among them): the same bytes `ssalab report --in dir` makes
/// of them once written.
pub fn render_beside(
    files: &[(String, Vec<u8>)],
    dir: &Path,
    manifest: &Manifest,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    use crate::bench::output::{FUNCTIONS_FILE, RUNS_FILE};
    let find = |name: &str| {
        files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.as_slice())
            .ok_or_else(|| format!("no {name} to report on"))
    };
    let runs = std::str::from_utf8(find(RUNS_FILE)?)
        .map_err(|e| format!("{}: {e}", dir.join(RUNS_FILE).display()))?;
    let ds = Dataset::from_contents(
        runs,
        &dir.join(RUNS_FILE),
        find(FUNCTIONS_FILE)?,
        &dir.join(FUNCTIONS_FILE),
    )?;
    render_all(ds, Vec::new(), manifest)
}

/// Reads `in_dir`, writes every report file into `out_dir` (created if needed), each
/// atomically. Returns the paths written.
pub fn generate(
    in_dir: &Path,
    out_dir: &Path,
    manifest: &Manifest,
) -> Result<Vec<PathBuf>, String> {
    generate_with(in_dir, &[], out_dir, manifest)
}

/// As [`generate`], with more sweeps of the same suite (other register budgets) whose
/// totals [`road2`]'s table shows beside the main sweep's. Files of an older report in
/// `out_dir` that this one does not write (plots of configurations no longer in the sweep,
/// say) are removed, so that the directory never mixes two reports.
pub fn generate_with(
    in_dir: &Path,
    also: &[PathBuf],
    out_dir: &Path,
    manifest: &Manifest,
) -> Result<Vec<PathBuf>, String> {
    let ds = Dataset::read(in_dir)?;
    let also = also
        .iter()
        .map(|dir| Dataset::read(dir))
        .collect::<Result<Vec<_>, _>>()?;
    let files = render_all(ds, also, manifest)?;
    std::fs::create_dir_all(out_dir)
        .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    let mut written = Vec::new();
    for (name, bytes) in &files {
        let path = out_dir.join(name);
        write_atomic(&path, bytes)?;
        written.push(path);
    }
    remove_stale(out_dir, &files);
    Ok(written)
}

/// Removes the generated files of `dir` that are not in `files`.
fn remove_stale(dir: &Path, files: &[(String, Vec<u8>)]) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if is_file && is_generated(&name) && !files.iter().any(|(n, _)| *n == name) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_parts_are_safe() {
        assert_eq!(plots::file_part("lai+coalesce/x y"), "lai_coalesce_x_y");
        assert_eq!(plots::file_part("st231"), "st231");
    }
}
