//! The fuzzing campaign: programs of consecutive seeds checked in parallel (a crossbeam work
//! queue, one [`Checker`] per worker), mismatches reduced and saved, and a summary.
//!
//! Determinism: a program's report depends only on its seed (generation, checking and the
//! test-budgeted reduction are pure functions of the program), and reports are sorted by seed,
//! so the summary is the same for every `-j` — only times differ. (A host run that exceeds its
//! wall-clock limit is the one exception; such programs are counted as discarded.)

use super::ast::Program;
use super::emit::emit;
use super::gen::{generate, Size};
use super::oracle::{pass_fire_counts, Checker, StageFailure, Verdict};
use super::reduce::{reduce, ReduceStats};
use super::GENERATOR_VERSION;
use compiler::pipeline::OptLevel;
use crossbeam::channel;
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Options of a campaign.
#[derive(Clone, Debug)]
pub struct CampaignOptions {
    pub count: u64,
    pub first_seed: u64,
    pub jobs: usize,
    pub size: Size,
    /// Where reproducers are saved (none: not saved).
    pub save: Option<PathBuf>,
    /// Reduce mismatching programs.
    pub reduce: bool,
    /// Predicate tests per reduction.
    pub reduce_budget: usize,
    /// Show a progress bar (only if stderr is a terminal).
    pub progress: bool,
    /// Count how often each -O2 optimisation fires (printed with the summary).
    pub pass_stats: bool,
}

/// A reduced reproducer.
#[derive(Clone, Debug)]
pub struct Reduced {
    pub text: String,
    pub lines: usize,
    pub stats: ReduceStats,
}

/// What happened to one program.
#[derive(Clone, Debug)]
pub struct ProgramReport {
    pub seed: u64,
    pub lines: usize,
    pub verdict: Verdict,
    pub reduced: Option<Reduced>,
    /// Files written under `--save`.
    pub saved: Vec<PathBuf>,
    /// Reproducers that could not be written (each `cannot write PATH: REASON`): a failed
    /// save makes the campaign unclean, so that a reproducer is never lost without a word.
    pub save_errors: Vec<String>,
    /// With `pass_stats`: how often each -O2 optimisation fired (`pass:detail`, count).
    pub fires: Vec<(String, u64)>,
}

/// The result of a campaign.
#[derive(Clone, Debug)]
pub struct Summary {
    pub options: CampaignOptions,
    /// Sorted by seed.
    pub reports: Vec<ProgramReport>,
    pub elapsed: Duration,
}

impl Summary {
    pub fn mismatches(&self) -> impl Iterator<Item = (&ProgramReport, &StageFailure)> {
        self.reports.iter().filter_map(|r| match &r.verdict {
            Verdict::Mismatch { first, .. } => Some((r, first)),
            _ => None,
        })
    }

    pub fn generator_bugs(&self) -> impl Iterator<Item = &ProgramReport> {
        self.reports
            .iter()
            .filter(|r| matches!(r.verdict, Verdict::GeneratorBug(_)))
    }

    pub fn discarded(&self) -> usize {
        self.reports
            .iter()
            .filter(|r| matches!(r.verdict, Verdict::Discarded(_)))
            .count()
    }

    /// Per skipped configuration: in how many programs it was skipped, and the first
    /// placeholder message (sorted by configuration name).
    pub fn skipped(&self) -> BTreeMap<String, (usize, String)> {
        let mut m: BTreeMap<String, (usize, String)> = BTreeMap::new();
        for r in &self.reports {
            let skips = match &r.verdict {
                Verdict::Agree { skipped, .. } | Verdict::Mismatch { skipped, .. } => skipped,
                _ => continue,
            };
            for s in skips {
                let e = m
                    .entry(s.config.clone())
                    .or_insert_with(|| (0, format!("{}: {}", s.stage, s.message)));
                e.0 += 1;
            }
        }
        m
    }

    /// True when no program mismatched, the generator made no invalid program and every
    /// reproducer was saved.
    pub fn clean(&self) -> bool {
        self.mismatches().next().is_none()
            && self.generator_bugs().next().is_none()
            && self.reports.iter().all(|r| r.save_errors.is_empty())
    }

    /// Seeds of mismatching programs by first failing stage and kind.
    pub fn by_stage(&self) -> BTreeMap<String, Vec<u64>> {
        let mut m: BTreeMap<String, Vec<u64>> = BTreeMap::new();
        for (r, f) in self.mismatches() {
            m.entry(format!("{} ({})", f.stage, f.kind))
                .or_default()
                .push(r.seed);
        }
        m
    }

    /// The human-readable summary (deterministic except for the times).
    pub fn render(&self) -> String {
        let o = &self.options;
        let n = self.reports.len();
        let secs = self.elapsed.as_secs_f64();
        let mut s = String::new();
        let _ = writeln!(
            s,
            "ssalab fuzz: {n} programs (seeds {}..={}, {}, generator v{GENERATOR_VERSION}), -j {}, {:.1} s, {:.1} programs/s",
            o.first_seed,
            o.first_seed + o.count.saturating_sub(1),
            o.size.name(),
            o.jobs,
            secs,
            n as f64 / secs.max(1e-9)
        );
        let mism = self.mismatches().count();
        let genbugs = self.generator_bugs().count();
        let agree = n - mism - genbugs - self.discarded();
        let lines: usize = self.reports.iter().map(|r| r.lines).sum();
        let steps: Vec<u64> = self
            .reports
            .iter()
            .filter_map(|r| match r.verdict {
                Verdict::Agree { front_steps, .. } => Some(front_steps),
                _ => None,
            })
            .collect();
        let mean_steps = steps.iter().sum::<u64>() as f64 / steps.len().max(1) as f64;
        let _ = writeln!(
            s,
            "  agree: {agree}   mismatches: {mism}   discarded (step limit): {}   generator bugs: {genbugs}",
            self.discarded(),
        );
        let _ = writeln!(
            s,
            "  {:.0} lines of C and {:.0} executed IR instructions per program",
            lines as f64 / n.max(1) as f64,
            mean_steps
        );
        let skipped = self.skipped();
        if !skipped.is_empty() {
            let _ = writeln!(
                s,
                "  skipped: unimplemented: {} configurations (placeholder passes; not checked):",
                skipped.len()
            );
            for (config, (n, msg)) in &skipped {
                let _ = writeln!(s, "    {config:<36} {n:>5} programs   {}", one_line(msg));
            }
        }
        if mism > 0 {
            let _ = writeln!(s, "  mismatches by first failing stage:");
            for (stage, seeds) in self.by_stage() {
                let list: Vec<String> = seeds.iter().take(20).map(|x| x.to_string()).collect();
                let more = if seeds.len() > 20 { ", ..." } else { "" };
                let _ = writeln!(
                    s,
                    "    {stage:<36} {:>5}   seeds {}{more}",
                    seeds.len(),
                    list.join(", ")
                );
            }
        }
        let discarded: Vec<String> = self
            .reports
            .iter()
            .filter(|r| matches!(r.verdict, Verdict::Discarded(_)))
            .take(20)
            .map(|r| r.seed.to_string())
            .collect();
        if !discarded.is_empty() {
            let _ = writeln!(s, "  discarded seeds: {}", discarded.join(", "));
        }
        if o.pass_stats {
            s.push_str(&self.render_fires());
        }
        for r in &self.reports {
            match &r.verdict {
                Verdict::Mismatch { first, others, .. } => {
                    let _ = writeln!(
                        s,
                        "  seed {}: {} ({}): {}",
                        r.seed,
                        first.stage,
                        first.kind,
                        one_line(&first.detail)
                    );
                    for o in others {
                        let _ = writeln!(s, "      also {} ({})", o.stage, o.kind);
                    }
                    if let Some(red) = &r.reduced {
                        let _ = writeln!(
                            s,
                            "      reduced {} -> {} lines ({} tests)",
                            r.lines, red.lines, red.stats.tests
                        );
                    }
                    for p in &r.saved {
                        let _ = writeln!(s, "      saved {}", p.display());
                    }
                    for e in &r.save_errors {
                        let _ = writeln!(s, "      NOT SAVED: {e}");
                    }
                }
                Verdict::GeneratorBug(m) => {
                    let _ = writeln!(s, "  seed {}: GENERATOR BUG: {}", r.seed, one_line(m));
                    for p in &r.saved {
                        let _ = writeln!(s, "      saved {}", p.display());
                    }
                    for e in &r.save_errors {
                        let _ = writeln!(s, "      NOT SAVED: {e}");
                    }
                }
                _ => {}
            }
        }
        s
    }
}

impl Summary {
    /// Per optimisation detail: in how many programs it fired, and the total count.
    fn render_fires(&self) -> String {
        let mut rows: Vec<(String, usize, u64)> = Vec::new();
        for r in &self.reports {
            for (k, n) in &r.fires {
                let i = match rows.iter().position(|(name, _, _)| name == k) {
                    Some(i) => i,
                    None => {
                        rows.push((k.clone(), 0, 0));
                        rows.len() - 1
                    }
                };
                rows[i].1 += usize::from(*n > 0);
                rows[i].2 += n;
            }
        }
        let n = self.reports.len().max(1);
        let mut s = String::from("  -O2 optimisations (programs where they fired, total):\n");
        for (name, progs, total) in rows {
            let _ = writeln!(
                s,
                "    {name:<40} {progs:>6} ({:>5.1}%) {total:>10}",
                100.0 * progs as f64 / n as f64
            );
        }
        s
    }
}

/// The most telling line of a multi-line message (the first `error` line of a compiler's
/// output, else the first non-empty line), shortened.
fn one_line(m: &str) -> String {
    let line = m
        .lines()
        .find(|l| l.contains("error"))
        .or_else(|| m.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("");
    let mut out: String = line.chars().take(160).collect();
    if line.chars().count() > 160 {
        out.push('…');
    }
    out
}

/// Name prefix of worker threads (their panics are caught and reported as results).
const WORKER_PREFIX: &str = "ssalab-fuzz-";
const WORKER_STACK: usize = 64 << 20;

/// Compiler panics on worker threads are caught ([`super::oracle::guarded`]) and reported as
/// mismatches; the default hook would also print each one (hundreds while reducing). Other
/// threads keep the previous hook.
fn quiet_worker_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let worker = std::thread::current()
                .name()
                .is_some_and(|n| n.starts_with(WORKER_PREFIX));
            if !worker {
                previous(info);
            }
        }));
    });
}

/// Runs the campaign. `make_checker(worker)` builds each worker's checker (own scratch
/// directory).
pub fn run_campaign(
    opts: &CampaignOptions,
    make_checker: &(dyn Fn(usize) -> Checker + Sync),
) -> Summary {
    let start = Instant::now();
    let jobs = opts.jobs.max(1);
    let bar = if opts.progress && std::io::stderr().is_terminal() {
        let b = ProgressBar::new(opts.count);
        if let Ok(style) = ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} programs, {per_sec}, eta {eta} {msg}",
        ) {
            b.set_style(style.progress_chars("=> "));
        }
        b
    } else {
        ProgressBar::hidden()
    };
    let (work_tx, work_rx) = channel::unbounded::<u64>();
    for i in 0..opts.count {
        let _ = work_tx.send(opts.first_seed.wrapping_add(i));
    }
    drop(work_tx);
    let (done_tx, done_rx) = channel::unbounded::<ProgramReport>();
    let mut reports = Vec::with_capacity(opts.count as usize);
    quiet_worker_panics();
    crossbeam::scope(|scope| {
        for w in 0..jobs {
            let work_rx = work_rx.clone();
            let done_tx = done_tx.clone();
            let spawned = scope
                .builder()
                .name(format!("{WORKER_PREFIX}{w}"))
                // Compiler passes recurse over the program; the generator bounds nesting,
                // and this leaves a wide margin.
                .stack_size(WORKER_STACK)
                .spawn(move |_| {
                    let checker = make_checker(w);
                    for seed in work_rx.iter() {
                        let report = process(seed, opts, &checker);
                        if done_tx.send(report).is_err() {
                            break;
                        }
                    }
                    let _ = std::fs::remove_dir_all(&checker.workdir);
                });
            if let Err(e) = spawned {
                eprintln!("error: cannot start fuzz worker {w}: {e}");
            }
        }
        drop(done_tx);
        let mut mismatches = 0;
        for r in done_rx.iter() {
            if let Verdict::Mismatch { first, .. } = &r.verdict {
                mismatches += 1;
                bar.println(format!(
                    "seed {}: first failing stage {} ({})",
                    r.seed, first.stage, first.kind
                ));
                bar.set_message(format!("{mismatches} mismatches"));
            }
            bar.inc(1);
            reports.push(r);
        }
    })
    .unwrap_or_else(|_| panic!("a fuzz worker panicked"));
    bar.finish_and_clear();
    reports.sort_by_key(|r| r.seed);
    Summary {
        options: opts.clone(),
        reports,
        elapsed: start.elapsed(),
    }
}

/// Generates, checks and (on a mismatch) reduces and saves the program of `seed`.
pub fn process(seed: u64, opts: &CampaignOptions, checker: &Checker) -> ProgramReport {
    let prog = generate(seed, opts.size);
    let text = emit(&prog);
    let verdict = checker.check(&text);
    let mut report = ProgramReport {
        seed,
        lines: text.lines().count(),
        verdict,
        reduced: None,
        saved: Vec::new(),
        save_errors: Vec::new(),
        fires: Vec::new(),
    };
    if opts.pass_stats {
        if let Ok(m) = checker.front_end(&text) {
            report.fires = pass_fire_counts(&m, OptLevel::O2);
        }
    }
    match &report.verdict {
        Verdict::Mismatch { first, others, .. } => {
            let first = first.clone();
            if opts.reduce {
                report.reduced = Some(reduce_program(&prog, &first, opts.reduce_budget, checker));
            }
            if let Some(dir) = &opts.save {
                (report.saved, report.save_errors) = save_mismatch(
                    dir,
                    seed,
                    opts.size,
                    &text,
                    &first,
                    others,
                    report.reduced.as_ref(),
                    report.lines,
                );
            }
        }
        Verdict::GeneratorBug(msg) => {
            if let Some(dir) = &opts.save {
                let path = dir.join(format!("generator-bug-seed-{seed}.c"));
                let body = format!("/* generator bug: {}\n */\n{text}", sanitize_comment(msg));
                match write_file(&path, &body) {
                    Ok(()) => report.saved.push(path),
                    Err(e) => report.save_errors.push(e),
                }
            }
        }
        _ => {}
    }
    report
}

/// Reduces `prog` keeping the first failing stage `first`.
pub fn reduce_program(
    prog: &Program,
    first: &StageFailure,
    budget: usize,
    checker: &Checker,
) -> Reduced {
    let mut pred = |p: &Program| checker.reproduces(&emit(p), first);
    let (small, stats) = reduce(prog, budget, &mut pred);
    let text = emit(&small);
    Reduced {
        lines: text.lines().count(),
        text,
        stats,
    }
}

/// A file-name-safe form of a stage name (`O2:gvn#2` -> `O2-gvn-2`).
pub fn stage_file_name(stage: &str) -> String {
    stage
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn sanitize_comment(s: &str) -> String {
    s.replace("*/", "* /").replace('\n', "\n * ")
}

fn write_file(path: &Path, text: &str) -> Result<(), String> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).map_err(|e| format!("cannot create {}: {e}", d.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Checks, before a campaign starts, that reproducers can be saved in `dir` (created if
/// needed): a probe file is written and removed.
pub fn check_save_dir(dir: &Path) -> Result<(), String> {
    let probe = dir.join(format!(".ssalab-save-probe-{}", std::process::id()));
    write_file(&probe, "")?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// The header comment of a saved reproducer.
pub fn reproducer_header(
    seed: u64,
    size: Size,
    first: &StageFailure,
    others: &[StageFailure],
    reduced: Option<(&Reduced, usize)>,
) -> String {
    let mut h = String::new();
    let _ = writeln!(h, "/* ssalab fuzz reproducer");
    let _ = writeln!(
        h,
        " * generator v{GENERATOR_VERSION}, seed {seed}, size {} (ssalab fuzz gen --seed {seed} --size {})",
        size.name(),
        size.name()
    );
    let _ = writeln!(
        h,
        " * first failing stage: {} ({})",
        first.stage, first.kind
    );
    let _ = writeln!(h, " *   {}", sanitize_comment(&one_line(&first.detail)));
    for o in others {
        let _ = writeln!(h, " * also failing: {} ({})", o.stage, o.kind);
    }
    if let Some((r, lines)) = reduced {
        let _ = writeln!(
            h,
            " * reduced from {lines} to {} lines ({} tests, {} statements left)",
            r.lines, r.stats.tests, r.stats.stmts_after
        );
    }
    let _ = writeln!(h, " * check: ssalab fuzz check THIS_FILE");
    let _ = writeln!(h, " */");
    h
}

#[allow(clippy::too_many_arguments)]
fn save_mismatch(
    dir: &Path,
    seed: u64,
    size: Size,
    text: &str,
    first: &StageFailure,
    others: &[StageFailure],
    reduced: Option<&Reduced>,
    lines: usize,
) -> (Vec<PathBuf>, Vec<String>) {
    let mut saved = Vec::new();
    let mut errors = Vec::new();
    let stage = stage_file_name(&first.stage);
    let orig = dir.join(format!("seed-{seed}-{stage}.orig.c"));
    let header = reproducer_header(seed, size, first, others, None);
    let mut files = vec![(orig, format!("{header}{text}"))];
    if let Some(r) = reduced {
        let path = dir.join(format!("seed-{seed}-{stage}.c"));
        let header = reproducer_header(seed, size, first, others, Some((r, lines)));
        files.push((path, format!("{header}{}", r.text)));
    }
    for (path, body) in files {
        match write_file(&path, &body) {
            Ok(()) => saved.push(path),
            Err(e) => errors.push(e),
        }
    }
    (saved, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_names_become_file_names() {
        assert_eq!(stage_file_name("O2:gvn#2"), "O2-gvn-2");
        assert_eq!(stage_file_name("front"), "front");
    }

    #[test]
    fn reproducer_header_is_one_c_comment() {
        let f = StageFailure {
            stage: "O2:gvn".into(),
            kind: super::super::oracle::Failure::Output,
            detail: "a */ b\nsecond line".into(),
        };
        let h = reproducer_header(7, Size::Small, &f, &[], None);
        assert!(h.starts_with("/*"));
        assert_eq!(h.matches("*/").count(), 1, "{h}");
        assert!(h.trim_end().ends_with("*/"));
        assert!(h.contains("seed 7"));
        assert!(h.contains("O2:gvn (wrong output)"));
    }
}
