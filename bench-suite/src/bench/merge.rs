//! `ssalab merge`: joins the outputs of the shards of one sweep into exactly the files an
//! unsharded run writes.
//!
//! Checks, each failing with a message naming the directory: every output comes from the same
//! sweep (same tool version and format, equal `[sweep]` definitions — manifest and job-list
//! fingerprints, targets, configurations, options, job count); the shards are K/N for one N,
//! each K once and none missing; every job index belongs to its shard and appears once; all
//! `jobs_total` jobs are present; each output's `functions.csv` rows belong to its jobs, in
//! the numbers `jobs.csv` states.
//!
//! The merged `functions.csv` lists each job's rows (in the order its shard wrote them) in
//! job-index order; `jobs.csv` is sorted by index; `runs.toml` is the common one without a
//! shard and with totals recomputed from the merged jobs, so merged times are the exact sums
//! of the shards' per-job times. Complexity: linear in the rows.
//!
//! With `allow_partial` (`ssalab merge --allow-partial`), absent shards are not an error: the
//! merged output holds the jobs of the shards given, `runs.toml` lists the absent ones under
//! `missing_shards`, and [`Merged::missing_shards`] says which they are. A partial merge is
//! not itself an input of `merge` (merge the shard directories again once they are all
//! there). Merging is a pure function of its inputs: merging twice writes the same bytes.

use super::jobs::Shard;
use super::output::{summarize, JobRecord, OutputFiles, SweepDefinition};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Names of the definition fields that differ.
fn differences(a: &SweepDefinition, b: &SweepDefinition) -> Vec<&'static str> {
    let fields = [
        ("manifest", a.manifest_fingerprint != b.manifest_fingerprint),
        ("job list", a.job_list_fingerprint != b.job_list_fingerprint),
        ("jobs_total", a.jobs_total != b.jobs_total),
        ("targets", a.targets != b.targets),
        ("configs", a.configs != b.configs),
        ("programs", a.programs != b.programs),
        ("groups", a.groups != b.groups),
        ("regs", a.regs != b.regs),
        ("all_functions", a.all_functions != b.all_functions),
        ("no_times", a.no_times != b.no_times),
    ];
    fields.iter().filter(|f| f.1).map(|f| f.0).collect()
}

/// Checks that every output belongs to the sweep of the first one.
fn check_same_sweep(outputs: &[(PathBuf, OutputFiles)]) -> Result<(), String> {
    let (dir0, first) = &outputs[0];
    for (dir, o) in &outputs[1..] {
        let (a, b) = (&first.runs, &o.runs);
        let mut diff = Vec::new();
        if a.tool != b.tool || a.version != b.version || a.format != b.format {
            diff.push("tool version");
        }
        diff.extend(differences(&a.sweep, &b.sweep));
        if !diff.is_empty() {
            return Err(format!(
                "{} is not from the same sweep as {} (different {})",
                dir.display(),
                dir0.display(),
                diff.join(", ")
            ));
        }
    }
    Ok(())
}

/// The shard of each output (all of one N, each K once) and the shards of that N no output
/// holds (an error unless `allow_partial`).
fn check_shards(
    outputs: &[(PathBuf, OutputFiles)],
    allow_partial: bool,
) -> Result<(Vec<Shard>, Vec<Shard>), String> {
    let mut shards = Vec::with_capacity(outputs.len());
    let mut owner: HashMap<usize, &Path> = HashMap::new();
    for (dir, o) in outputs {
        if !o.runs.missing_shards.is_empty() {
            return Err(format!(
                "{} is a partial merge (it lacks shards {}): merge the shard directories instead",
                dir.display(),
                o.runs.missing_shards.join(", ")
            ));
        }
        let s = o
            .runs
            .shard()
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        if let Some(first) = shards.first().map(|f: &Shard| f.count) {
            if s.count != first {
                return Err(format!(
                    "{} holds shard {s}, but {} holds a shard of {first}",
                    dir.display(),
                    outputs[0].0.display()
                ));
            }
        }
        if let Some(other) = owner.insert(s.index, dir) {
            return Err(format!(
                "shard {s} given twice: {} and {}",
                other.display(),
                dir.display()
            ));
        }
        shards.push(s);
    }
    let n = shards[0].count;
    let missing: Vec<Shard> = (1..=n)
        .filter(|k| !owner.contains_key(k))
        .map(|index| Shard { index, count: n })
        .collect();
    if !missing.is_empty() && !allow_partial {
        return Err(format!(
            "missing shard{}: {} (`--allow-partial` merges the others)",
            if missing.len() > 1 { "s" } else { "" },
            shard_list(&missing)
        ));
    }
    Ok((shards, missing))
}

/// `1/8, 3/8`, shortened after 20 shards.
pub fn shard_list(shards: &[Shard]) -> String {
    let mut names: Vec<String> = shards.iter().take(20).map(Shard::to_string).collect();
    if shards.len() > 20 {
        names.push(format!("... ({} in all)", shards.len()));
    }
    names.join(", ")
}

/// A merge's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Merged {
    pub files: OutputFiles,
    /// Shards no input held (only with `allow_partial`), in order.
    pub missing_shards: Vec<Shard>,
    /// Jobs of the sweep the merged output lacks (those of `missing_shards`).
    pub missing_jobs: usize,
}

/// Merges shard outputs (in any order). See the module documentation for the checks.
pub fn merge(outputs: &[(PathBuf, OutputFiles)]) -> Result<OutputFiles, String> {
    merge_with(outputs, false).map(|m| m.files)
}

/// Merges shard outputs (in any order); with `allow_partial`, absent shards are listed
/// instead of refused.
pub fn merge_with(
    outputs: &[(PathBuf, OutputFiles)],
    allow_partial: bool,
) -> Result<Merged, String> {
    if outputs.is_empty() {
        return Err("nothing to merge".into());
    }
    check_same_sweep(outputs)?;
    let (shards, missing_shards) = check_shards(outputs, allow_partial)?;
    let total = outputs[0].1.runs.sweep.jobs_total;
    // Where each job comes from: (index, output, position in its jobs), sorted by index
    // below. Not a table of `total` slots: `jobs_total` is read from a file.
    let mut slot: Vec<(usize, usize, usize)> = Vec::new();
    // Each output's function rows by job key, in file order.
    let mut rows_by_key = Vec::with_capacity(outputs.len());
    for (o, ((dir, files), shard)) in outputs.iter().zip(&shards).enumerate() {
        let d = dir.display();
        if files.runs.results.jobs != files.jobs.len()
            || files.runs.results.function_rows != files.functions.len()
        {
            return Err(format!(
                "{d}: the totals of runs.toml do not match the CSV files (incomplete output?)"
            ));
        }
        let (held, share) = (files.jobs.len(), shard.job_count(total));
        if held < share {
            return Err(format!(
                "{d}: {} of the {share} jobs of shard {shard} (of the sweep's {total}) are missing",
                share - held
            ));
        }
        if held > share {
            return Err(format!(
                "{d}: holds {held} jobs, but shard {shard} of a {total}-job sweep has {share} (is jobs_total wrong?)"
            ));
        }
        for (pos, job) in files.jobs.iter().enumerate() {
            if job.index >= total {
                return Err(format!(
                    "{d}: job index {} is beyond the sweep's {total} jobs",
                    job.index
                ));
            }
            if !shard.selects(job.index) {
                return Err(format!(
                    "{d}: job {} ({}) does not belong to shard {shard}",
                    job.index, job.program
                ));
            }
            slot.push((job.index, o, pos));
        }
        let mut by_key: HashMap<(String, String, String), Vec<&Vec<String>>> = HashMap::new();
        let known: HashMap<_, usize> = files.jobs.iter().map(|j| (j.key(), j.functions)).collect();
        for row in &files.functions {
            let key = (row[0].clone(), row[2].clone(), row[3].clone());
            if !known.contains_key(&key) {
                return Err(format!(
                    "{d}: functions.csv has a row of {} {} {}, which is not one of its jobs",
                    key.0, key.1, key.2
                ));
            }
            by_key.entry(key).or_default().push(row);
        }
        for (key, n) in &known {
            let got = by_key.get(key).map_or(0, Vec::len);
            if got != *n {
                return Err(format!(
                    "{d}: job {} {} {} has {got} rows in functions.csv, jobs.csv says {n}",
                    key.0, key.1, key.2
                ));
            }
        }
        rows_by_key.push(by_key);
    }
    slot.sort_unstable();
    if let Some(w) = slot.windows(2).find(|w| w[0].0 == w[1].0) {
        let job = &outputs[w[1].1].1.jobs[w[1].2];
        return Err(format!(
            "job {} ({} {} {}) appears twice ({} and {})",
            job.index,
            job.program,
            job.target,
            job.config,
            outputs[w[0].1].0.display(),
            outputs[w[1].1].0.display()
        ));
    }
    // Each shard given holds all its jobs, once (checked above): nothing else can be missing.
    let mut jobs = Vec::with_capacity(slot.len());
    let mut functions = Vec::new();
    for (_, o, pos) in slot {
        let job = outputs[o].1.jobs[pos].clone();
        if let Some(rows) = rows_by_key[o].get(&job.key()) {
            functions.extend(rows.iter().map(|r| (*r).clone()));
        }
        jobs.push(job);
    }
    let mut runs = outputs[0].1.runs.clone();
    runs.shard = None;
    runs.missing_shards = missing_shards.iter().map(Shard::to_string).collect();
    for (name, value) in [
        ("compile_us", (|j| j.compile_us) as fn(&JobRecord) -> u64),
        ("simulate_us", |j| j.simulate_us),
    ] {
        if jobs
            .iter()
            .try_fold(0u64, |s, j| s.checked_add(value(j)))
            .is_none()
        {
            return Err(format!(
                "the merged jobs' {name} add up beyond 2^64 (a jobs.csv holds a wrong time)"
            ));
        }
    }
    runs.results = summarize(&jobs, functions.len(), runs.sweep.no_times);
    Ok(Merged {
        missing_jobs: total - jobs.len(),
        missing_shards,
        files: OutputFiles {
            runs,
            jobs,
            functions,
        },
    })
}

/// Reads the output directories, merges them and writes the result into `out`.
pub fn merge_dirs(dirs: &[PathBuf], out: &Path) -> Result<OutputFiles, String> {
    merge_dirs_with(dirs, out, false).map(|m| m.files)
}

/// [`merge_dirs`], with absent shards allowed (and listed) when `allow_partial`.
pub fn merge_dirs_with(
    dirs: &[PathBuf],
    out: &Path,
    allow_partial: bool,
) -> Result<Merged, String> {
    let outputs = dirs
        .iter()
        .map(|d| OutputFiles::read(d).map(|f| (d.clone(), f)))
        .collect::<Result<Vec<_>, _>>()?;
    let merged = merge_with(&outputs, allow_partial)?;
    merged.files.write_dropping_report(out)?;
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::jobs::PlannedJob;
    use crate::bench::runner::JobResult;
    use crate::bench::{FunctionRow, Job, JobOutcome, JobStatus};
    use simulator::isa::Target;

    fn output(indices: &[usize], shard: Option<Shard>, no_times: bool) -> OutputFiles {
        let results: Vec<JobResult> = indices
            .iter()
            .map(|&i| JobResult {
                planned: PlannedJob {
                    index: i,
                    job: Job {
                        program: format!("p{i}.c"),
                        target: Target::St231,
                        config: "base".into(),
                        regs: None,
                    },
                    kernels: vec!["k".into()],
                },
                outcome: JobOutcome {
                    status: JobStatus::Ok,
                    functions: vec![FunctionRow::named("k")],
                    compile_seconds: i as f64,
                    simulate_seconds: 0.5,
                },
                wall_seconds: 0.0,
            })
            .collect();
        let sweep = SweepDefinition {
            manifest_fingerprint: "m".into(),
            job_list_fingerprint: "j".into(),
            jobs_total: 4,
            targets: vec!["st231".into()],
            configs: vec!["base".into()],
            programs: vec![],
            groups: vec![],
            regs: None,
            all_functions: false,
            no_times,
        };
        OutputFiles::from_results(&results, "suite.toml", sweep, shard)
    }

    #[test]
    fn two_halves_make_the_whole() {
        let whole = output(&[0, 1, 2, 3], None, false);
        let a = output(&[0, 2], Some(Shard { index: 1, count: 2 }), false);
        let b = output(&[1, 3], Some(Shard { index: 2, count: 2 }), false);
        let merged = merge(&[("b".into(), b), ("a".into(), a)]).unwrap();
        assert_eq!(merged, whole);
        assert_eq!(merged.runs.results.compile_us, Some(6_000_000));
    }

    #[test]
    fn a_whole_output_merges_to_itself() {
        let whole = output(&[0, 1, 2, 3], None, true);
        assert_eq!(merge(&[("w".into(), whole.clone())]).unwrap(), whole);
        let e = merge(&[("w".into(), whole.clone()), ("v".into(), whole)]).unwrap_err();
        assert!(e.contains("shard 1/1 given twice"), "{e}");
        assert_eq!(merge(&[]).unwrap_err(), "nothing to merge");
    }

    #[test]
    fn a_partial_merge_lists_what_is_missing() {
        let a = output(&[0, 2], Some(Shard { index: 1, count: 2 }), true);
        let e = merge(&[("a".into(), a.clone())]).unwrap_err();
        assert_eq!(
            e,
            "missing shard: 2/2 (`--allow-partial` merges the others)"
        );
        let m = merge_with(&[("a".into(), a.clone())], true).unwrap();
        assert_eq!(m.missing_shards, [Shard { index: 2, count: 2 }]);
        assert_eq!(m.missing_jobs, 2);
        assert_eq!(m.files.runs.missing_shards, ["2/2"]);
        assert_eq!(m.files.runs.shard, None);
        let indices: Vec<usize> = m.files.jobs.iter().map(|j| j.index).collect();
        assert_eq!(indices, [0, 2]);
        // The partial output is consistent (report reads it) but is not a merge input.
        m.files.check_consistency().unwrap();
        let e = merge_with(&[("p".into(), m.files.clone())], true).unwrap_err();
        assert!(
            e.contains("p is a partial merge (it lacks shards 2/2)"),
            "{e}"
        );
        // Every shard present: the same as a plain merge, nothing listed as missing.
        let b = output(&[1, 3], Some(Shard { index: 2, count: 2 }), true);
        let full = merge_with(&[("a".into(), a), ("b".into(), b)], true).unwrap();
        assert!(full.missing_shards.is_empty());
        assert_eq!(full.files, output(&[0, 1, 2, 3], None, true));
    }

    #[test]
    fn differing_options_are_named() {
        let a = output(&[0, 2], Some(Shard { index: 1, count: 2 }), false);
        let b = output(&[1, 3], Some(Shard { index: 2, count: 2 }), true);
        let e = merge(&[("a".into(), a), ("b".into(), b)]).unwrap_err();
        assert_eq!(e, "b is not from the same sweep as a (different no_times)");
    }
}
