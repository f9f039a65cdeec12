//! The job list of a sweep: manifest programs × configurations × targets, filtered by the
//! command line, in a fixed order, and its deterministic slicing into shards.
//!
//! Order: programs in manifest order, then configurations in the selection's order, then
//! targets in the sweep's target order (`--targets` as given, else the manifest's
//! `default_targets` followed by any other target a program names). A program runs only on
//! the targets it allows. The index of a job in this list is its identity in `jobs.csv`, in
//! shards and in merges.
//!
//! Shard K/N holds the jobs whose index ≡ K−1 (mod N): round-robin, so neighbouring jobs
//! (same program, similar cost) spread over the shards.

use super::glob::Glob;
use super::manifest::{Group, Manifest, Program};
use super::{fnv1a64, Job};
use simulator::isa::Target;
use std::fmt;
use std::str::FromStr;

/// The configurations an executor knows, and those a sweep runs when `--configs` is not
/// given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigCatalog {
    pub available: Vec<String>,
    pub default: Vec<String>,
}

impl ConfigCatalog {
    /// The configurations to run: `requested` (validated; `all` = every available one), or
    /// the default list when nothing was requested. Repeats are dropped.
    pub fn resolve(&self, requested: &[String]) -> Result<Vec<String>, String> {
        let mut out: Vec<String> = Vec::new();
        let wanted: &[String] = if requested.is_empty() {
            &self.default
        } else {
            requested
        };
        for name in wanted {
            let names: Vec<&String> = if name == "all" {
                self.available.iter().collect()
            } else if self.available.contains(name) {
                vec![name]
            } else {
                return Err(format!(
                    "unknown configuration `{name}`; known: {}",
                    self.available.join(", ")
                ));
            };
            for n in names {
                if !out.contains(n) {
                    out.push(n.clone());
                }
            }
        }
        if out.is_empty() {
            return Err("no configuration to run".into());
        }
        Ok(out)
    }
}

/// What the command line selects.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// Glob patterns over program paths (see [`program_matches`]); empty = every program.
    pub programs: Vec<String>,
    /// Groups; empty = every group.
    pub groups: Vec<Group>,
    /// Targets; empty = the manifest's (default targets, then programs' own).
    pub targets: Vec<Target>,
    /// Configurations, already resolved (see [`ConfigCatalog::resolve`]); must not be empty.
    pub configs: Vec<String>,
    /// `--regs N`.
    pub regs: Option<u32>,
}

/// A job with its place in the sweep and the functions it reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedJob {
    /// Position in the full (unsharded) job list.
    pub index: usize,
    pub job: Job,
    /// The program's kernels, in manifest order.
    pub kernels: Vec<String>,
}

/// The full job list of a sweep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub jobs: Vec<PlannedJob>,
    /// The sweep's targets and configurations, in job order.
    pub targets: Vec<Target>,
    pub configs: Vec<String>,
    /// Number of programs selected.
    pub programs: usize,
    /// FNV-1a of the job list (index, program, target, config, regs, kernels): two runs with
    /// equal fingerprints ran the same jobs.
    pub fingerprint: u64,
}

/// Whether `pattern` selects the program at `path`: the glob matches the whole path, or —
/// for a pattern without `/` — the file name or the file name without its extension (so
/// `fir`, `fir.c`, `dsp/fir.c` and `dsp/*` all select `dsp/fir.c`).
pub fn program_matches(pattern: &Glob, path: &str) -> bool {
    if pattern.matches(path) {
        return true;
    }
    if pattern.as_str().contains('/') {
        return false;
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    pattern.matches(name) || pattern.matches(stem)
}

/// The sweep's targets when `--targets` is not given.
fn manifest_targets(m: &Manifest) -> Vec<Target> {
    let mut out = m.default_targets.clone();
    for p in &m.programs {
        for t in &p.targets {
            if !out.contains(t) {
                out.push(*t);
            }
        }
    }
    out
}

fn dedup<T: PartialEq + Clone>(items: &[T]) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(items.len());
    for x in items {
        if !out.contains(x) {
            out.push(x.clone());
        }
    }
    out
}

/// The programs the selection keeps, in manifest order. A pattern that selects nothing is an
/// error (most likely a typo).
fn selected_programs<'m>(m: &'m Manifest, sel: &Selection) -> Result<Vec<&'m Program>, String> {
    let globs = sel
        .programs
        .iter()
        .map(|p| Glob::new(p))
        .collect::<Result<Vec<_>, _>>()?;
    for g in &globs {
        if !m.programs.iter().any(|p| program_matches(g, &p.path)) {
            return Err(format!(
                "--programs `{}` matches no program of {}",
                g.as_str(),
                m.file.display()
            ));
        }
    }
    Ok(m.programs
        .iter()
        .filter(|p| globs.is_empty() || globs.iter().any(|g| program_matches(g, &p.path)))
        .filter(|p| sel.groups.is_empty() || sel.groups.contains(&p.group))
        .collect())
}

/// Builds the job list of `sel` over `m`. Errors: a bad or unmatched glob, no configuration,
/// `--regs 0`, an empty result.
pub fn plan(m: &Manifest, sel: &Selection) -> Result<Plan, String> {
    if sel.configs.is_empty() {
        return Err("no configuration to run".into());
    }
    if sel.regs == Some(0) {
        return Err("--regs must be at least 1".into());
    }
    let configs = dedup(&sel.configs);
    let targets = if sel.targets.is_empty() {
        manifest_targets(m)
    } else {
        dedup(&sel.targets)
    };
    let programs = selected_programs(m, sel)?;
    let mut jobs = Vec::new();
    let mut text = String::new();
    for p in &programs {
        for config in &configs {
            for &target in targets.iter().filter(|t| p.targets.contains(t)) {
                let job = Job {
                    program: p.path.clone(),
                    target,
                    config: config.clone(),
                    regs: sel.regs,
                };
                let index = jobs.len();
                text.push_str(&format!(
                    "{index}\t{}\t{target}\t{config}\t{:?}\t{}\n",
                    p.path,
                    sel.regs,
                    p.kernels.join(",")
                ));
                jobs.push(PlannedJob {
                    index,
                    job,
                    kernels: p.kernels.clone(),
                });
            }
        }
    }
    if jobs.is_empty() {
        return Err("the selection has no jobs (check --programs, --groups and --targets)".into());
    }
    Ok(Plan {
        jobs,
        targets,
        configs,
        programs: programs.len(),
        fingerprint: fnv1a64(text.as_bytes()),
    })
}

/// `--shard K/N`: the K-th of N deterministic slices (1 ≤ K ≤ N).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shard {
    /// K, 1-based.
    pub index: usize,
    /// N.
    pub count: usize,
}

impl Shard {
    /// Whether the job at `job_index` belongs to this shard.
    pub fn selects(&self, job_index: usize) -> bool {
        job_index % self.count == self.index - 1
    }

    /// The jobs of `plan` in this shard (`None` = all of them).
    pub fn slice(shard: Option<Shard>, plan: &Plan) -> Vec<&PlannedJob> {
        plan.jobs
            .iter()
            .filter(|j| shard.is_none_or(|s| s.selects(j.index)))
            .collect()
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The most shards a sweep or campaign may be cut into. A merge lists the shards it lacks and
/// checks that every K of N is given, so N bounds its work: a `runs.toml` naming shard
/// `1/9223372036854775807` must not make it allocate for every K (documented in
/// docs/robustness.md).
pub const MAX_SHARDS: usize = 1_000_000;

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("bad shard `{s}`: expected K/N with 1 <= K <= N (e.g. 2/3)");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = k.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        if count > MAX_SHARDS {
            return Err(format!(
                "bad shard `{s}`: at most {MAX_SHARDS} shards (N <= {MAX_SHARDS})"
            ));
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// How many of the job indices `0..total` this shard holds. O(1).
    pub fn job_count(&self, total: usize) -> usize {
        if self.index > total {
            0
        } else {
            (total - self.index) / self.count + 1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn manifest() -> Manifest {
        let dir = std::env::temp_dir().join(format!("ssalab-jobs-{}", std::process::id()));
        for f in ["dsp/fir.c", "dsp/fft.c", "codec/lpc.c", "features/x.c"] {
            let p = dir.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "").unwrap();
        }
        let text = r#"
version = 1
default_targets = ["st231"]
[[program]]
path = "dsp/fir.c"
group = "dsp"
kernels = ["fir"]
[[program]]
path = "dsp/fft.c"
group = "dsp"
kernels = ["fft", "peak"]
[[program]]
path = "codec/lpc.c"
group = "codec"
kernels = ["Levinson"]
targets = ["st120", "st231"]
[[program]]
path = "features/x.c"
group = "feature"
kernels = []
"#;
        Manifest::parse(text, Path::new("suite.toml"), &dir).unwrap()
    }

    fn sel(configs: &[&str]) -> Selection {
        Selection {
            configs: configs.iter().map(|s| s.to_string()).collect(),
            ..Selection::default()
        }
    }

    fn labels(p: &Plan) -> Vec<String> {
        p.jobs.iter().map(|j| j.job.label()).collect()
    }

    #[test]
    fn order_is_program_config_target() {
        let p = plan(&manifest(), &sel(&["a", "b"])).unwrap();
        // st120 comes after the default targets; only codec/lpc.c allows it.
        assert_eq!(p.targets, vec![Target::St231, Target::St120]);
        assert_eq!(
            labels(&p),
            [
                "dsp/fir.c st231 a",
                "dsp/fir.c st231 b",
                "dsp/fft.c st231 a",
                "dsp/fft.c st231 b",
                "codec/lpc.c st231 a",
                "codec/lpc.c st120 a",
                "codec/lpc.c st231 b",
                "codec/lpc.c st120 b",
                "features/x.c st231 a",
                "features/x.c st231 b",
            ]
        );
        assert!(p.jobs.iter().enumerate().all(|(i, j)| j.index == i));
        assert_eq!(p.jobs[2].kernels, vec!["fft", "peak"]);
        assert_eq!(p.programs, 4);
    }

    #[test]
    fn filters() {
        let m = manifest();
        let mut s = sel(&["a"]);
        s.programs = vec!["dsp/*".into()];
        assert_eq!(
            labels(&plan(&m, &s).unwrap()),
            ["dsp/fir.c st231 a", "dsp/fft.c st231 a"]
        );
        s.programs = vec!["fft".into(), "lpc.c".into()];
        assert_eq!(
            labels(&plan(&m, &s).unwrap()),
            [
                "dsp/fft.c st231 a",
                "codec/lpc.c st231 a",
                "codec/lpc.c st120 a"
            ]
        );
        s.targets = vec![Target::St120];
        assert_eq!(labels(&plan(&m, &s).unwrap()), ["codec/lpc.c st120 a"]);
        s.programs = vec!["fir".into()];
        let e = plan(&m, &s).unwrap_err();
        assert!(e.contains("no jobs"), "{e}");
        let mut s = sel(&["a"]);
        s.groups = vec![Group::Codec, Group::Feature];
        s.regs = Some(8);
        assert_eq!(
            labels(&plan(&m, &s).unwrap()),
            [
                "codec/lpc.c st231 a regs=8",
                "codec/lpc.c st120 a regs=8",
                "features/x.c st231 a regs=8"
            ]
        );
    }

    #[test]
    fn selection_errors() {
        let m = manifest();
        let mut s = sel(&["a"]);
        s.programs = vec!["dsp/*".into(), "viterbi".into()];
        let e = plan(&m, &s).unwrap_err();
        assert!(e.contains("`viterbi` matches no program"), "{e}");
        s.programs = vec!["[".into()];
        assert!(plan(&m, &s).unwrap_err().contains("unterminated"));
        let mut s = sel(&["a"]);
        s.regs = Some(0);
        assert!(plan(&m, &s).is_err());
        assert!(plan(&m, &sel(&[])).is_err());
    }

    #[test]
    fn fingerprint_follows_the_job_list() {
        let m = manifest();
        let a = plan(&m, &sel(&["a", "b"])).unwrap();
        assert_eq!(
            a.fingerprint,
            plan(&m, &sel(&["a", "b"])).unwrap().fingerprint
        );
        assert_ne!(
            a.fingerprint,
            plan(&m, &sel(&["b", "a"])).unwrap().fingerprint
        );
        let mut s = sel(&["a", "b"]);
        s.regs = Some(16);
        assert_ne!(a.fingerprint, plan(&m, &s).unwrap().fingerprint);
    }

    #[test]
    fn configs_resolve() {
        let c = ConfigCatalog {
            available: vec!["base".into(), "sreedhar".into(), "boissinot".into()],
            default: vec!["base".into(), "boissinot".into()],
        };
        assert_eq!(c.resolve(&[]).unwrap(), ["base", "boissinot"]);
        assert_eq!(
            c.resolve(&["sreedhar".into(), "base".into(), "sreedhar".into()])
                .unwrap(),
            ["sreedhar", "base"]
        );
        assert_eq!(
            c.resolve(&["all".into()]).unwrap(),
            ["base", "sreedhar", "boissinot"]
        );
        let e = c.resolve(&["bogus".into()]).unwrap_err();
        assert!(
            e.contains("unknown configuration `bogus`") && e.contains("sreedhar"),
            "{e}"
        );
    }

    #[test]
    fn shards_partition_the_plan() {
        let p = plan(&manifest(), &sel(&["a", "b"])).unwrap();
        let mut seen = vec![0; p.jobs.len()];
        for k in 1..=3 {
            let s: Shard = format!("{k}/3").parse().unwrap();
            assert_eq!(s.to_string(), format!("{k}/3"));
            for j in Shard::slice(Some(s), &p) {
                assert_eq!(j.index % 3, k - 1);
                seen[j.index] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n == 1));
        assert_eq!(Shard::slice(None, &p).len(), p.jobs.len());
        for bad in ["0/3", "4/3", "1/0", "3", "a/b", "1/3/4", "", "1/1000001"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        // The O(1) count agrees with the shard's slice.
        for total in 0..8 {
            for k in 1..=3 {
                let s = Shard { index: k, count: 3 };
                let slow = (0..total).filter(|&i| s.selects(i)).count();
                assert_eq!(s.job_count(total), slow, "{s} of {total}");
            }
        }
    }
}
