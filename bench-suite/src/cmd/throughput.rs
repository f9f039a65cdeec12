//! `ssalab throughput`: how fast the front end and the mid-level pipeline are.
//!
//! Compiles C files (default: every program under `programs/`) through the front end and the
//! `-O2` pipeline, and optionally one large random function, and prints times and rates
//! (source lines/s, IR instructions/s). Nothing is asserted: this is a measurement, to be run
//! in release mode on an otherwise idle machine.

use clap::Args;
use compiler::front::{compile_file, FrontOptions};
use compiler::pipeline::{mid_level_passes, run_passes, OptLevel};
use compiler::ssa::random::{random_program, ProgramShape, Rng};
use ssalab::programs::{c_programs, programs_root};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct ThroughputArgs {
    /// C files to compile (default: every program under programs/).
    pub files: Vec<PathBuf>,
    /// Repeat the whole measurement this many times and keep the fastest run.
    #[arg(long, default_value_t = 3)]
    pub repeat: u32,
    /// Also time SSA + -O2 on one random function of about this many instructions.
    #[arg(long, value_name = "N")]
    pub random_insts: Option<usize>,
}

/// Times of one pass over the files.
#[derive(Default, Clone, Copy)]
struct Sample {
    front: Duration,
    passes: Duration,
}

pub fn main(args: ThroughputArgs) -> ExitCode {
    let files = if args.files.is_empty() {
        c_programs(&programs_root())
    } else {
        args.files.clone()
    };
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
    println!(
        "{} files, {} source lines, {} IR instructions from the front end (best of {})",
        files.len(),
        lines,
        insts,
        args.repeat.max(1)
    );
    println!(
        "front end:   {:>9.2} ms  {:>12.0} lines/s",
        ms(s.front),
        lines as f64 / s.front.as_secs_f64()
    );
    println!(
        "SSA + -O2:   {:>9.2} ms  {:>12.0} IR instructions/s",
        ms(s.passes),
        insts as f64 / s.passes.as_secs_f64()
    );
    if let Some(n) = args.random_insts {
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
        println!(
            "random function of {size} instructions, SSA + -O2: {:.2} ms  {:.0} IR instructions/s",
            ms(fastest),
            size as f64 / fastest.as_secs_f64()
        );
    }
    ExitCode::SUCCESS
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
