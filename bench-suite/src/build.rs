//! Building a program for a machine: C (or text IR) → ST231/ST120 machine code. Used by
//! `ssalab compile`, `ssalab run prog.c` and the bench sweep.
//!
//! The pipeline is the mid-level one (`-O0`/`-O2`) followed by the back end's pass list
//! (`compiler::backend`): `isel`, the function passes of the configuration (baseline:
//! `out-of-ssa`, `irc`, `frame`), `sched`, `emit`. `--print-after PASS` works for every
//! pass of both halves; `--verify` runs the SSA verifier, the machine-IR verifier in the
//! form each pass must produce and the allocation checker; `--check-each-pass` runs the
//! program with the IR interpreter after every mid-level pass and with the machine-IR
//! interpreter after every back-end pass and stops at the first pass that changes its
//! output or exit status.

use crate::frontend::{build_module, FrontArgs, Opt};
use clap::Args;
use compiler::backend::{self, BackendConfig, BackendOutput};
use compiler::ir;
use compiler::pipeline::PassStats;
use simulator::isa::Target;
use std::path::{Path, PathBuf};

/// Compilation options shared by `compile` and `run`.
#[derive(Args, Debug, Clone)]
pub struct BuildArgs {
    /// Add a directory to the `#include` search path.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Define a macro (`NAME` or `NAME=VALUE`).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// Undefine a macro.
    #[arg(short = 'U', value_name = "NAME")]
    pub undefine: Vec<String>,
    /// Optimisation level of the mid-level pipeline (`-O0`: SSA only; `-O2`: all).
    #[arg(short = 'O', value_name = "LEVEL", default_value = "2")]
    pub opt: Opt,
    /// Pipeline configuration (`ssalab configs` lists them).
    #[arg(long, value_name = "NAME", default_value = "baseline")]
    pub config: String,
    /// Restrict every allocatable register class to its first N registers (forces spills).
    #[arg(long, value_name = "N")]
    pub regs: Option<u32>,
    /// Do not schedule: one operation per bundle.
    #[arg(long)]
    pub no_sched: bool,
    /// ST120: do not if-convert diamonds into guarded code.
    #[arg(long)]
    pub no_if_convert: bool,
    /// ST120: do not form post-increment loads/stores.
    #[arg(long)]
    pub no_post_increment: bool,
    /// Print the program after this pass (repeatable; mid-level and back-end pass names,
    /// `front`, or `all`).
    #[arg(long, value_name = "PASS")]
    pub print_after: Vec<String>,
    /// Verify every pass's output (SSA verifier, machine-IR verifier, allocation checker).
    #[arg(long)]
    pub verify: bool,
    /// Interpret the program after every pass and stop at the first one that changes it.
    #[arg(long)]
    pub check_each_pass: bool,
    /// Print per-pass statistics (time, instructions, copies) to stderr.
    #[arg(long)]
    pub time_passes: bool,
}

/// A compiled program: the SSA IR module it came from and the back end's output.
pub struct Built {
    /// The back-end configuration used.
    pub config: BackendConfig,
    pub ir: ir::Module,
    pub backend: BackendOutput,
    pub stats: Vec<PassStats>,
}

impl BuildArgs {
    fn front_args(&self, input: &Path, mid_prints: Vec<String>) -> FrontArgs {
        FrontArgs {
            input: input.to_path_buf(),
            include: self.include.clone(),
            define: self.define.clone(),
            undefine: self.undefine.clone(),
            opt: self.opt,
            print_after: mid_prints,
            verify: self.verify,
            time_passes: false,
        }
    }

    /// The back-end configuration these options select.
    pub fn config(&self, target: Target) -> Result<BackendConfig, String> {
        let mut c = BackendConfig::named(&self.config, target).ok_or_else(|| {
            let names: Vec<&str> = backend::CONFIGS.iter().map(|c| c.0).collect();
            format!(
                "error: unknown configuration `{}`; valid: {}",
                self.config,
                names.join(", ")
            )
        })?;
        c.regalloc.regs = self.regs;
        c.sched.enabled = !self.no_sched;
        c.isel.if_convert = !self.no_if_convert;
        c.isel.post_increment = !self.no_post_increment;
        c.verify = self.verify;
        Ok(c)
    }
}

fn same(a: &(i32, Vec<u8>), b: &(i32, Vec<u8>)) -> bool {
    a == b
}

fn describe(r: &(i32, Vec<u8>)) -> String {
    let text = String::from_utf8_lossy(&r.1);
    let short: String = text.chars().take(200).collect();
    format!("exit {} output {:?}", r.0, short)
}

/// Runs a machine-level module with the machine-IR interpreter: (exit status, output).
fn mir_behaviour(m: &compiler::mir::Module) -> Result<(i32, Vec<u8>), String> {
    let out = compiler::mir::interp::run_module(m, "main", &Default::default())
        .map_err(|t| t.to_string())?;
    Ok((out.exit_code, out.output))
}

/// Compiles `input` for `target`: front end, runtime, mid-level pipeline, back end.
pub fn build(input: &Path, target: Target, args: &BuildArgs) -> Result<Built, String> {
    let config = args.config(target)?;
    let back_names = backend::pass_names(&config);
    let mut mid_prints = Vec::new();
    let mut back_prints = Vec::new();
    for p in &args.print_after {
        if p == "all" {
            mid_prints.push(p.clone());
            back_prints.push(p.clone());
        } else if back_names.iter().any(|n| n == p) {
            back_prints.push(p.clone());
        } else {
            mid_prints.push(p.clone());
        }
    }
    let front = args.front_args(input, mid_prints);
    let interp_opts = compiler::interp::Options::default();
    // Reference behaviour: the SSA IR of the first stage, by the reference interpreter.
    let mut reference: Option<(String, (i32, Vec<u8>))> = None;
    let check = args.check_each_pass;
    let mut mid_hook = |pass: &str, m: &ir::Module| -> Result<(), String> {
        if !check {
            return Ok(());
        }
        let out = compiler::interp::run(m, "main", &interp_opts).map_err(|e| e.to_string())?;
        if let Some(t) = &out.trap {
            return Err(format!("after `{pass}` the IR interpreter trapped: {t}"));
        }
        let got = (out.exit_code, out.output);
        match &reference {
            None => reference = Some((pass.to_string(), got)),
            Some((first, r)) if !same(r, &got) => {
                return Err(format!(
                    "pass `{pass}` changed the program's behaviour (compared with `{first}`):\n  before: {}\n  after:  {}",
                    describe(r),
                    describe(&got)
                ))
            }
            Some(_) => {}
        }
        Ok(())
    };
    let (mut module, mut stats) = build_module(&front, &mut mid_hook)?;
    backend::add_runtime(&mut module, front.opt_level())?;
    let prints = |pass: &str| back_prints.iter().any(|p| p == pass || p == "all");
    let mut back_hook = |pass: &str, m: &compiler::mir::Module| -> Result<(), String> {
        if prints(pass) {
            println!("// after {pass}");
            print!("{m}");
        }
        if check {
            let got = mir_behaviour(m)
                .map_err(|t| format!("after `{pass}` the machine-IR interpreter: {t}"))?;
            if let Some((first, r)) = &reference {
                if !same(r, &got) {
                    return Err(format!(
                        "pass `{pass}` changed the program's behaviour (compared with `{first}`):\n  before: {}\n  after:  {}",
                        describe(r),
                        describe(&got)
                    ));
                }
            }
        }
        Ok(())
    };
    let out = backend::compile_module(&module, &config, &mut back_hook)
        .map_err(|e| format!("error: {}: {e}", input.display()))?;
    if prints("sched") {
        println!("// after sched");
        print!("{}", out.asm);
    }
    if prints("emit") {
        println!("// after emit");
        print!("{}", simulator::asm::disassemble(&out.object));
    }
    stats.extend(out.stats.iter().cloned());
    if args.time_passes {
        eprint!("{}", crate::frontend::format_stats(&stats));
    }
    Ok(Built {
        config,
        ir: module,
        backend: out,
        stats,
    })
}
