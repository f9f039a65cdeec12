//! `ssalab throughput`: how fast the front end, the mid-level pipeline and the simulators
//! are.
//!
//! Compiles C files (default: every program under `programs/`) through the front end and the
//! `-O2` pipeline, and optionally one large random function, and prints times and rates
//! (source lines/s, IR instructions/s). With `--sim`, instead compiles each program for each
//! target (the configuration and options of `ssalab compile`) and runs it on the simulator,
//! every counter and the per-function profiler on, printing simulated operations per second
//! of host CPU time per program and over the suite: the speed a sweep over real compiled
//! kernels sees (short basic blocks, calls), as opposed to the long loop kernels of
//! `cargo bench -p ssalab-simulator`. With `--out-of-ssa`, times the out-of-SSA passes of
//! chosen configurations on random machine-SSA functions and counts their peak heap bytes
//! ([`out_of_ssa_main`]). Nothing is asserted: this is a measurement, to be run in release
//! mode on an otherwise idle machine.

use clap::Args;
use compiler::front::{compile_file, FrontOptions};
use compiler::pipeline::{mid_level_passes, run_passes, OptLevel};
use compiler::ssa::random::{random_program, ProgramShape, Rng};
use simulator::isa::Target;
use simulator::sim::{run, RunOptions};
use ssalab::build::{build, BuildArgs};
use ssalab::programs::{c_programs, programs_root};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct ThroughputArgs {
    /// C files to compile (default: every program under programs/).
    pub files: Vec<PathBuf>,
    /// Repeat the whole measurement this many times and keep the fastest run (1..=1000).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: u32,
    /// Also time SSA + -O2 on one random function of about this many instructions (with
    /// `--out-of-ssa`: the sizes of the random machine-SSA functions, comma-separated); each
    /// at most `--random-insts-limit`.
    #[arg(long, value_name = "N", value_delimiter = ',')]
    pub random_insts: Vec<usize>,
    /// The largest `--random-insts` accepted (the function is built in memory, and the
    /// passes' time grows with it).
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    pub random_insts_limit: usize,
    /// Measure the out-of-SSA passes instead (time, peak heap bytes, copies) on random
    /// machine-SSA functions of `--random-insts` instructions (see [`out_of_ssa_main`]).
    #[arg(long)]
    pub out_of_ssa: bool,
    /// With `--out-of-ssa`: the configurations (comma-separated, as `ssalab bench`;
    /// default: S3,L_phi,ABI,Bo_int,Bo_val,Bo_val_virt).
    #[arg(long, value_name = "LIST")]
    pub configs: Option<String>,
    /// With `--out-of-ssa`: print CSV `config,insts,seconds,peak_bytes,copies`.
    #[arg(long)]
    pub csv: bool,
    /// Measure the whole compiler instead (front end, -O2, every back-end pass) on generated
    /// functions of `--random-insts` statements of each `--shapes` shape, under `--configs`
    /// (default: baseline) on `--targets` (see `throughput_backend`).
    #[arg(long, conflicts_with_all = ["out_of_ssa", "sim"])]
    pub backend: bool,
    /// With `--backend`: the function shapes (comma-separated: loops, switch, straight;
    /// default: loops).
    #[arg(long, value_delimiter = ',', value_name = "SHAPE")]
    pub shapes: Vec<String>,
    /// Measure the simulators instead: compile each program and time its simulation.
    #[arg(long)]
    pub sim: bool,
    /// With `--sim` or `--backend`: the targets (comma-separated; default: st231,st120).
    #[arg(long, value_delimiter = ',', value_name = "TARGET")]
    pub targets: Vec<Target>,
    /// With `--sim`: how to compile (`ssalab compile`'s options).
    #[command(flatten)]
    pub build: BuildArgs,
}

/// Times of one pass over the files.
#[derive(Default, Clone, Copy)]
struct Sample {
    front: Duration,
    passes: Duration,
}

pub fn main(args: ThroughputArgs) -> ExitCode {
    if args.backend {
        return super::throughput_backend::main(&args);
    }
    for &n in &args.random_insts {
        if n > args.random_insts_limit {
            eprintln!(
                "error: --random-insts {n} is beyond the limit of {} instructions (raise it with --random-insts-limit N)",
                args.random_insts_limit
            );
            return ExitCode::from(2);
        }
    }
    let files = if args.files.is_empty() {
        c_programs(&programs_root())
    } else {
        args.files.clone()
    };
    for f in &files {
        if let Err(e) = ssalab::cli_io::check_input(f) {
            eprintln!("{e}");
            return ExitCode::from(1);
        }
    }
    if args.sim {
        return sim_main(&args, &files);
    }
    if args.out_of_ssa {
        return out_of_ssa_main(&args);
    }
    let lines: usize = files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .map(|t| t.lines().count())
        .sum();
    let mut best: Option<Sample> = None;
    let mut insts = 0usize;
    for _ in 0..args.repeat.max(1) {
        let mut s = Sample::default();
        insts = 0;
        for f in &files {
            let t = Instant::now();
            let c = compile_file(f, &FrontOptions::default());
            s.front += t.elapsed();
            let Some(mut m) = c.module else {
                eprintln!("{}", c.diagnostics.render());
                return ExitCode::from(1);
            };
            insts += m.functions.iter().map(|f| f.num_insts()).sum::<usize>();
            let t = Instant::now();
            if let Err(e) = run_passes(&mut m, &mid_level_passes(OptLevel::O2), &mut |_, _| Ok(()))
            {
                eprintln!("{}: {e}", f.display());
                return ExitCode::from(1);
            }
            s.passes += t.elapsed();
        }
        best = Some(match best {
            Some(b) if b.front + b.passes <= s.front + s.passes => b,
            _ => s,
        });
    }
    let s = best.unwrap_or_default();
    ssalab::outln!(
        "{} files, {} source lines, {} IR instructions from the front end (best of {})",
        files.len(),
        lines,
        insts,
        args.repeat.max(1)
    );
    ssalab::outln!(
        "front end:   {:>9.2} ms  {:>12.0} lines/s",
        ms(s.front),
        lines as f64 / s.front.as_secs_f64()
    );
    ssalab::outln!(
        "SSA + -O2:   {:>9.2} ms  {:>12.0} IR instructions/s",
        ms(s.passes),
        insts as f64 / s.passes.as_secs_f64()
    );
    for &n in &args.random_insts {
        let mut rng = Rng::new(42);
        let m = random_program(&mut rng, &ProgramShape::large(n));
        let size: usize = m.functions.iter().map(|f| f.num_insts()).sum();
        let mut fastest = Duration::MAX;
        for _ in 0..args.repeat.max(1) {
            let mut work = m.clone();
            let t = Instant::now();
            if let Err(e) = run_passes(&mut work, &mid_level_passes(OptLevel::O2), &mut |_, _| {
                Ok(())
            }) {
                eprintln!("random function: {e}");
                return ExitCode::from(1);
            }
            fastest = fastest.min(t.elapsed());
        }
        ssalab::outln!(
            "random function of {size} instructions, SSA + -O2: {:.2} ms  {:.0} IR instructions/s",
            ms(fastest),
            size as f64 / fastest.as_secs_f64()
        );
    }
    ExitCode::SUCCESS
}

/// One program's simulation: its counts and the fastest run.
struct SimSample {
    ops: u64,
    cycles: u64,
    calls: u64,
    seconds: f64,
}

/// `--sim`: per target, every program compiled once and simulated `repeat` times (best CPU
/// time of this thread, including pre-decoding and guest memory set-up, as `ssalab run`
/// pays them).
fn sim_main(args: &ThroughputArgs, files: &[PathBuf]) -> ExitCode {
    let targets = if args.targets.is_empty() {
        vec![Target::St231, Target::St120]
    } else {
        args.targets.clone()
    };
    let opts = RunOptions::default();
    for &target in &targets {
        ssalab::outln!(
            "{:<28} {:>12} {:>12} {:>9} {:>10} {:>12}",
            format!("{target} program"),
            "ops",
            "cycles",
            "calls",
            "CPU ms",
            "M ops/s"
        );
        let mut all = Vec::new();
        for f in files {
            let obj = match build(f, target, &args.build) {
                Ok(b) => b.backend.object,
                Err(e) => {
                    eprintln!("{e}");
                    return ExitCode::from(1);
                }
            };
            let mut best: Option<SimSample> = None;
            for _ in 0..args.repeat.max(1) {
                // One sample: at least 20 ms of runs (short programs run many times).
                let clock = CpuClock::start();
                let mut r = run(&obj, &opts);
                let mut runs = 1u32;
                while clock.seconds() < 0.02 && r.trap.is_none() {
                    r = run(&obj, &opts);
                    runs += 1;
                }
                let seconds = clock.seconds() / f64::from(runs);
                if let Some(t) = &r.trap {
                    eprintln!("{}: {target}: trap: {t}", f.display());
                    return ExitCode::from(1);
                }
                if best.as_ref().is_none_or(|b| seconds < b.seconds) {
                    let calls = r.functions.iter().map(|x| x.calls).sum::<u64>();
                    best = Some(SimSample {
                        ops: r.totals.ops,
                        cycles: r.totals.cycles,
                        calls,
                        seconds,
                    });
                }
            }
            let Some(s) = best else { continue };
            ssalab::outln!(
                "{:<28} {:>12} {:>12} {:>9} {:>10.3} {:>12.1}",
                short_name(f),
                s.ops,
                s.cycles,
                s.calls,
                s.seconds * 1e3,
                rate(s.ops, s.seconds)
            );
            all.push(s);
        }
        let ops: u64 = all.iter().map(|s| s.ops).sum();
        let secs: f64 = all.iter().map(|s| s.seconds).sum();
        let mut rates: Vec<f64> = all.iter().map(|s| rate(s.ops, s.seconds)).collect();
        rates.sort_by(f64::total_cmp);
        let median = rates.get(rates.len() / 2).copied().unwrap_or(0.0);
        ssalab::outln!(
            "{target}: {} programs, {ops} simulated ops in {:.3} s of CPU: {:.1} M ops/s over the suite, median per program {:.1} (best of {})\n",
            all.len(),
            secs,
            rate(ops, secs),
            median,
            args.repeat.max(1)
        );
    }
    ExitCode::SUCCESS
}

/// Millions of operations per second.
fn rate(ops: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        ops as f64 / seconds / 1e6
    } else {
        0.0
    }
}

/// `programs/dsp/fir.c` -> `dsp/fir.c`.
fn short_name(f: &std::path::Path) -> String {
    let parent = f
        .parent()
        .and_then(|p| p.file_name())
        .map(|p| p.to_string_lossy().into_owned());
    let name = f
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match parent {
        Some(p) => format!("{p}/{name}"),
        None => name,
    }
}

/// CPU time of the calling thread (`CLOCK_THREAD_CPUTIME_ID`), so that a rate is not
/// diluted by other processes on a shared machine; wall time where that is unavailable.
struct CpuClock {
    cpu: Option<Duration>,
    wall: Instant,
}

impl CpuClock {
    fn start() -> CpuClock {
        CpuClock {
            cpu: thread_cpu_time(),
            wall: Instant::now(),
        }
    }

    fn seconds(&self) -> f64 {
        match (self.cpu, thread_cpu_time()) {
            (Some(a), Some(b)) if b >= a => (b - a).as_secs_f64(),
            _ => self.wall.elapsed().as_secs_f64(),
        }
    }
}

fn thread_cpu_time() -> Option<Duration> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` only writes the `timespec` it is given, which lives here.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return None;
    }
    Some(Duration::new(
        u64::try_from(ts.tv_sec).ok()?,
        u32::try_from(ts.tv_nsec).ok()?,
    ))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The machine-SSA function measured at one size, and its size in instructions.
fn random_machine_function(
    target: Target,
    n: usize,
) -> Result<(compiler::mir::Function, usize), String> {
    let select = |want: usize| -> Result<compiler::mir::Function, String> {
        let mut rng = Rng::new(42);
        let mut m = random_program(&mut rng, &ProgramShape::large(want));
        run_passes(&mut m, &mid_level_passes(OptLevel::O2), &mut |_, _| Ok(()))
            .map_err(|e| format!("random function: {e}"))?;
        compiler::backend::add_runtime(&mut m, OptLevel::O2)
            .map_err(|e| format!("random function: runtime: {e}"))?;
        let mm = compiler::isel::select_module(&m, target, &Default::default())
            .map_err(|e| format!("random function: isel: {e:?}"))?;
        mm.functions
            .into_iter()
            .find(|f| f.name == "main")
            .ok_or_else(|| "random function: no main".to_string())
    };
    // The generator counts IR instructions before -O2 and selection: one calibration run
    // scales its target so that the machine function has about `n` instructions.
    let first = select(n)?;
    let got = first.num_insts().max(1);
    let f = if got.abs_diff(n) * 10 > n {
        select((n as u128 * n as u128 / got as u128).max(1) as usize)?
    } else {
        first
    };
    let size = f.num_insts();
    Ok((f, size))
}

/// The function passes of a configuration before register allocation: its out-of-SSA
/// passes (and `coalesce` for a `+C` configuration).
fn out_of_ssa_passes(config: &str) -> Result<Vec<&'static compiler::backend::MirPass>, String> {
    let (_, passes, _) = compiler::backend::CONFIGS
        .iter()
        .find(|(n, _, _)| *n == config)
        .ok_or_else(|| format!("unknown configuration `{config}` (see `ssalab configs`)"))?;
    passes
        .iter()
        .take_while(|p| **p != "irc")
        .map(|p| {
            compiler::backend::MIR_PASSES
                .iter()
                .find(|m| m.name == *p)
                .ok_or_else(|| format!("no pass `{p}`"))
        })
        .collect()
}

/// One measurement: best CPU time of this thread over `repeat` runs (the machine may be
/// shared; wall time would count other processes), peak heap bytes and copies of the last run,
/// and the pass counters that report a cap or fallback.
struct OutOfSsaSample {
    seconds: f64,
    peak_bytes: u64,
    copies: usize,
    fallbacks: Vec<(&'static str, u64)>,
}

fn measure_out_of_ssa(
    f: &compiler::mir::Function,
    passes: &[&compiler::backend::MirPass],
    config: &compiler::backend::BackendConfig,
    repeat: u32,
) -> Result<OutOfSsaSample, String> {
    let mut best = f64::MAX;
    let mut sample = None;
    for _ in 0..repeat.max(1) {
        let mut work = f.clone();
        let t = CpuClock::start();
        let (r, peak) = crate::heap::measure_peak(|| {
            let mut details = Vec::new();
            for p in passes {
                details.extend((p.run)(&mut work, config).map_err(|e| format!("{}: {e}", p.name))?);
            }
            Ok::<_, String>(details)
        });
        let seconds = t.seconds();
        let details = r?;
        best = best.min(seconds);
        let copies = work
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .filter(|i| i.flags.contains(compiler::mir::InstFlags::COPY))
            .count();
        let fallbacks = details
            .into_iter()
            .filter(|(k, v)| {
                *v > 0 && (k.contains("fallback") || k.contains("cap") || k.contains("exploring"))
            })
            .collect();
        sample = Some(OutOfSsaSample {
            seconds,
            peak_bytes: peak,
            copies,
            fallbacks,
        });
    }
    let mut s = sample.expect("at least one run");
    s.seconds = best;
    Ok(s)
}

/// The configuration names of `--configs` (else `default`), split like `bench --configs`
/// (names may contain commas).
pub fn config_list(args: &ThroughputArgs, default: &str) -> Vec<String> {
    let list = args.configs.as_deref().unwrap_or(default);
    super::bench::split_config_list(list, &known_configs())
}

/// Every configuration name, in `ssalab configs` order.
pub fn known_configs() -> Vec<String> {
    compiler::backend::CONFIGS
        .iter()
        .map(|(n, _, _)| n.to_string())
        .collect()
}

/// `--out-of-ssa`: for each size of `--random-insts` (default 1000,10000,100000), one random
/// machine-SSA function (the random `main` of `ssa::random` at -O2, selected for the first
/// `--targets` target, ST231 by default); for each configuration its passes before `irc` run
/// on a copy of it, timed in CPU seconds of this thread (best of `--repeat`), with the peak heap bytes counted by the
/// global allocator ([`crate::heap`]) and the copies left. The caps and fallbacks the passes
/// report (counters named `*fallback*`, `*cap*`, `*exploring*`) are printed after the table.
pub fn out_of_ssa_main(args: &ThroughputArgs) -> ExitCode {
    let configs = config_list(args, "S3,L_phi,ABI,Bo_int,Bo_val,Bo_val_virt");
    let sizes = if args.random_insts.is_empty() {
        vec![1000, 10_000, 100_000]
    } else {
        args.random_insts.clone()
    };
    let target = args.targets.first().copied().unwrap_or(Target::St231);
    let mut plans = Vec::new();
    for c in &configs {
        match out_of_ssa_passes(c) {
            Ok(p) => plans.push((c.clone(), p)),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if args.csv {
        ssalab::outln!("config,insts,seconds,peak_bytes,copies");
    } else {
        ssalab::outln!(
            "{:<14} {:>9} {:>12} {:>14} {:>9}",
            "config",
            "insts",
            "seconds",
            "peak bytes",
            "copies"
        );
    }
    let mut notes = Vec::new();
    for &n in &sizes {
        let (f, size) = match random_machine_function(target, n) {
            Ok(x) => x,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        };
        for (name, passes) in &plans {
            let Some(config) = compiler::backend::BackendConfig::named(name, target) else {
                eprintln!("error: unknown configuration `{name}`");
                return ExitCode::from(2);
            };
            let s = match measure_out_of_ssa(&f, passes, &config, args.repeat) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: {name} at {size} instructions: {e}");
                    return ExitCode::from(1);
                }
            };
            if args.csv {
                ssalab::outln!(
                    "{name},{size},{:.6},{},{}",
                    s.seconds,
                    s.peak_bytes,
                    s.copies
                );
            } else {
                ssalab::outln!(
                    "{name:<14} {size:>9} {:>12.6} {:>14} {:>9}",
                    s.seconds,
                    s.peak_bytes,
                    s.copies
                );
            }
            for (k, v) in s.fallbacks {
                notes.push(format!("{name} at {size} instructions: {k} = {v}"));
            }
        }
    }
    for n in notes {
        eprintln!("note: {n}");
    }
    ExitCode::SUCCESS
}
