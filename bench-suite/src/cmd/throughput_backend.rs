//! `ssalab throughput --backend`: how the whole compiler (front end, mid-level -O2 and every
//! back-end pass of a configuration) scales with the size of one function.
//!
//! The functions are generated C text of a chosen *shape* and number of statements
//! ([`generate`]): `loops` (a sequence of small counted loops over an array, the shape that
//! made liveness and IRC quadratic), `switch` (one `switch` of N cases) and `straight`
//! (straight-line arithmetic). Each one is compiled in-process, under each configuration and
//! target, and the table reports the machine instructions after instruction selection, the
//! front + mid-level time, the back-end time, the peak heap growth of the whole compilation
//! (counted by the global allocator, [`crate::heap`]), the slowest back-end pass, the number
//! of classes that fell back to spill-everywhere, and the back end's time per instruction
//! relative to the smallest size (1.0 = linear scaling).
//!
//! The measurement is the fastest of `--repeat` runs for sizes up to 10^4 statements and one
//! run above (a 10^5-statement compilation is its own warm-up).

use super::throughput::ThroughputArgs;
use compiler::backend::{compile_module, BackendConfig};
use compiler::front::FrontOptions;
use compiler::pipeline::{mid_level_passes, run_passes, OptLevel, PassStats};
use simulator::isa::Target;
use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The function shapes of `--shapes`.
pub const SHAPES: [&str; 3] = ["loops", "switch", "straight"];

/// C source of a program whose function `f` has about `n` statements of the given shape
/// (`None` for an unknown shape). `main` calls `f` once so that the program also runs.
pub fn generate(shape: &str, n: usize) -> Option<String> {
    let mut out = String::from("int a[64];\nint f(int x, int y) {\n  int s = x, t = y, i;\n");
    match shape {
        "loops" => {
            // Three statements per loop: the loop test, the two assignments.
            for k in 0..n.div_ceil(3) {
                let _ = writeln!(
                    out,
                    "  for (i = 0; i < (x & 7); i++) {{ s += a[(i + {k}) & 63] * t; \
                     t = t ^ (s >> {}); }}",
                    k % 5 + 1
                );
            }
        }
        "switch" => {
            out.push_str("  switch (x) {\n");
            for k in 0..n {
                let _ = writeln!(out, "  case {k}: s = y * {} + t; break;", k % 1000 + 1);
            }
            out.push_str("  }\n");
        }
        "straight" => {
            for k in 0..n.div_ceil(2) {
                let _ = writeln!(
                    out,
                    "  s = s * {} + (t ^ {k}); t = t + (s >> 3);",
                    k % 7 + 1
                );
            }
        }
        _ => return None,
    }
    out.push_str(
        "  return s + t;\n}\nint main(void) {\n  int i;\n  for (i = 0; i < 64; i++) a[i] = i * 3 - 7;\n  \
         return f(5, 3) & 255;\n}\n",
    );
    Some(out)
}

/// One compilation's measurements.
#[derive(Clone, Debug, Default)]
pub struct Measure {
    /// Machine instructions of `f` after instruction selection.
    pub insts: usize,
    pub front_mid: Duration,
    pub backend: Duration,
    pub peak_bytes: u64,
    /// The back-end pass that took longest on `f`, and its time.
    pub slowest: (&'static str, Duration),
    /// The back-end pass with the largest heap growth over its start, and that growth.
    pub hungriest: (String, u64),
    /// Register classes that fell back to spill-everywhere (IRC's `spill_everywhere_fallback`).
    pub fallbacks: u64,
}

/// Compiles `source` once under `config_name` for `target` and measures it.
pub fn measure(source: &str, config_name: &str, target: Target) -> Result<Measure, String> {
    let config = BackendConfig::named(config_name, target)
        .ok_or_else(|| format!("unknown configuration `{config_name}`"))?;
    let ((front_mid, result), peak_bytes) = crate::heap::measure_peak(|| {
        let start = Instant::now();
        let module = compile_front_and_mid(source);
        let front_mid = start.elapsed();
        let mut hungriest = (String::from("-"), 0u64);
        let result = module.and_then(|m| {
            crate::heap::checkpoint();
            let start = Instant::now();
            let mut hook = |pass: &str, _: &compiler::mir::Module| {
                let grew = crate::heap::checkpoint();
                if grew > hungriest.1 {
                    hungriest = (pass.to_string(), grew);
                }
                Ok(())
            };
            let out = compile_module(&m, &config, &mut hook)
                .map(|out| (out.stats, start.elapsed()))
                .map_err(|e| e.to_string());
            let grew = crate::heap::checkpoint();
            if grew > hungriest.1 {
                hungriest = ("sched+emit".to_string(), grew);
            }
            out
        });
        (front_mid, result.map(|r| (r, hungriest)))
    });
    let ((stats, backend), hungriest) = result?;
    let mut m = summarise(&stats, front_mid, backend, peak_bytes);
    m.hungriest = hungriest;
    Ok(m)
}

fn compile_front_and_mid(source: &str) -> Result<compiler::ir::Module, String> {
    let compiled = compiler::front::compile_source("scale.c", source, &FrontOptions::default());
    let mut module = compiled
        .module
        .ok_or_else(|| compiled.diagnostics.render())?;
    run_passes(&mut module, &mid_level_passes(OptLevel::O2), &mut |_, _| {
        Ok(())
    })
    .map_err(|e| e.to_string())?;
    compiler::backend::add_runtime(&mut module, OptLevel::O2)?;
    Ok(module)
}

fn summarise(stats: &[PassStats], front_mid: Duration, backend: Duration, peak: u64) -> Measure {
    let mut m = Measure {
        front_mid,
        backend,
        peak_bytes: peak,
        slowest: ("-", Duration::ZERO),
        ..Measure::default()
    };
    for s in stats.iter().filter(|s| s.function == "f") {
        if s.pass == "isel" {
            m.insts = s.insts_after;
        }
        if s.time > m.slowest.1 {
            m.slowest = (s.pass, s.time);
        }
        m.fallbacks += s
            .detail
            .iter()
            .filter(|(k, _)| *k == "spill_everywhere_fallback")
            .map(|(_, v)| *v)
            .sum::<u64>();
    }
    m
}

/// The fastest of `repeat` measurements (by back-end time).
fn fastest(source: &str, config: &str, target: Target, repeat: u32) -> Result<Measure, String> {
    let mut best: Option<Measure> = None;
    for _ in 0..repeat.max(1) {
        let m = measure(source, config, target)?;
        if best.as_ref().is_none_or(|b| m.backend < b.backend) {
            best = Some(m);
        }
    }
    Ok(best.expect("at least one run"))
}

/// Entry point of `ssalab throughput --backend`.
pub fn main(args: &ThroughputArgs) -> ExitCode {
    let known = super::throughput::known_configs();
    let configs: Vec<String> = super::throughput::config_list(args, "baseline")
        .into_iter()
        .flat_map(|c| if c == "all" { known.clone() } else { vec![c] })
        .collect();
    if let Some(bad) = configs.iter().find(|c| !known.contains(c)) {
        eprintln!("error: unknown configuration `{bad}` (`ssalab configs` lists them)");
        return ExitCode::from(2);
    }
    let shapes: Vec<String> = if args.shapes.is_empty() {
        vec!["loops".to_string()]
    } else {
        args.shapes.clone()
    };
    if let Some(bad) = shapes.iter().find(|s| !SHAPES.contains(&s.as_str())) {
        eprintln!("error: unknown shape `{bad}`; valid: {}", SHAPES.join(", "));
        return ExitCode::from(2);
    }
    let sizes = if args.random_insts.is_empty() {
        vec![1000, 10_000, 100_000]
    } else {
        args.random_insts.clone()
    };
    if let Some(&n) = sizes
        .iter()
        .find(|&&n| n > args.random_insts_limit || n == 0)
    {
        eprintln!(
            "error: --random-insts {n}: the sizes must be in 1..={} (--random-insts-limit)",
            args.random_insts_limit
        );
        return ExitCode::from(2);
    }
    let targets = if args.targets.is_empty() {
        vec![Target::St231, Target::St120]
    } else {
        args.targets.clone()
    };
    if args.csv {
        ssalab::outln!(
            "shape,statements,target,config,insts,front_mid_s,backend_s,peak_bytes,slowest_pass,slowest_s,hungriest_pass,hungriest_bytes,fallbacks"
        );
    } else {
        ssalab::outln!(
            "{:<8} {:>7} {:<6} {:<14} {:>8} {:>9} {:>9} {:>9} {:>9}  {:<18} {:<18} {:>3}",
            "shape",
            "stmts",
            "target",
            "config",
            "insts",
            "front+mid",
            "back end",
            "vs linear",
            "peak MB",
            "slowest pass",
            "hungriest pass",
            "fb"
        );
    }
    let mut failed = false;
    for shape in &shapes {
        for &target in &targets {
            for config in &configs {
                // Back-end seconds per instruction at the first size: the linear reference.
                let mut reference: Option<f64> = None;
                for &n in &sizes {
                    let source = generate(shape, n).expect("shape checked");
                    let repeat = if n > 10_000 { 1 } else { args.repeat };
                    match fastest(&source, config, target, repeat) {
                        Ok(m) => {
                            let per_inst = m.backend.as_secs_f64() / m.insts.max(1) as f64;
                            let reference = *reference.get_or_insert(per_inst);
                            print_row(args.csv, shape, n, target, config, &m, per_inst / reference);
                        }
                        Err(e) => {
                            failed = true;
                            eprintln!("error: {shape} {n} {target:?} {config}: {e}");
                        }
                    }
                }
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn print_row(
    csv: bool,
    shape: &str,
    n: usize,
    target: Target,
    config: &str,
    m: &Measure,
    vs_linear: f64,
) {
    let target = format!("{target:?}").to_lowercase();
    if csv {
        ssalab::outln!(
            "{shape},{n},{target},\"{config}\",{},{:.6},{:.6},{},{},{:.6},{},{},{}",
            m.insts,
            m.front_mid.as_secs_f64(),
            m.backend.as_secs_f64(),
            m.peak_bytes,
            m.slowest.0,
            m.slowest.1.as_secs_f64(),
            m.hungriest.0,
            m.hungriest.1,
            m.fallbacks
        );
    } else {
        ssalab::outln!(
            "{shape:<8} {n:>7} {target:<6} {config:<14} {:>8} {:>8.3}s {:>8.3}s {:>8.2}x {:>9.1}  {:<10} {:>6.3}s {:<10} {:>6.1}MB {:>3}",
            m.insts,
            m.front_mid.as_secs_f64(),
            m.backend.as_secs_f64(),
            vs_linear,
            m.peak_bytes as f64 / 1e6,
            m.slowest.0,
            m.slowest.1.as_secs_f64(),
            m.hungriest.0,
            m.hungriest.1 as f64 / 1e6,
            m.fallbacks
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shape_compiles_and_has_about_n_statements() {
        for shape in SHAPES {
            let src = generate(shape, 30).unwrap();
            let m = measure(&src, "baseline", Target::St231).unwrap();
            assert!(m.insts >= 30, "{shape}: {} instructions", m.insts);
            assert_eq!(m.fallbacks, 0, "{shape}");
        }
        assert!(generate("spiral", 10).is_none());
    }

    #[test]
    fn bigger_functions_have_more_instructions() {
        let small = measure(&generate("loops", 30).unwrap(), "C", Target::St120).unwrap();
        let big = measure(&generate("loops", 300).unwrap(), "C", Target::St120).unwrap();
        assert!(
            big.insts > 5 * small.insts,
            "{} vs {}",
            big.insts,
            small.insts
        );
    }
}
