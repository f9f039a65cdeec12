//! `ssalab compile`: C (or text IR) → ST231/ST120 machine code (object, assembly, machine
//! IR or optimised IR). The pipeline and its checking options are `ssalab::build`.

use clap::{Args, ValueEnum};
use simulator::isa::Target;
use ssalab::build::{build, BuildArgs};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// What `--emit` writes.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Emit {
    /// The optimised SSA IR (mid-level text form).
    Ir,
    /// The machine-level IR after the last function pass.
    Mir,
    /// Scheduled assembly in the simulator assembler's syntax.
    Asm,
    /// An ssalab object file.
    Obj,
}

#[derive(Args, Debug)]
pub struct CompileArgs {
    /// Input: a C file (`.c`) or a text-IR file (`.ir`).
    pub input: PathBuf,
    /// Target machine.
    #[arg(long, default_value = "st231")]
    pub target: Target,
    #[command(flatten)]
    pub build: BuildArgs,
    /// What to write.
    #[arg(long, value_enum, default_value = "obj")]
    pub emit: Emit,
    /// Output file (default: stdout for text, INPUT.o for objects).
    #[arg(short = 'o', value_name = "OUT")]
    pub output: Option<PathBuf>,
}

pub fn main(args: CompileArgs) -> ExitCode {
    let built = match build(&args.input, args.target, &args.build) {
        Ok(b) => b,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(1);
        }
    };
    let bytes: Vec<u8> = match args.emit {
        Emit::Ir => built.ir.to_string().into_bytes(),
        Emit::Mir => built.backend.mir.to_string().into_bytes(),
        Emit::Asm => built.backend.asm.clone().into_bytes(),
        Emit::Obj => built.backend.object.to_bytes(),
    };
    let out = match (&args.output, args.emit) {
        (Some(p), _) => Some(p.clone()),
        (None, Emit::Obj) => Some(args.input.with_extension("o")),
        (None, _) => None,
    };
    let result = match out {
        Some(p) => std::fs::write(&p, &bytes).map_err(|e| format!("{}: {e}", p.display())),
        None => {
            let mut s = std::io::stdout().lock();
            s.write_all(&bytes)
                .and_then(|_| s.flush())
                .map_err(|e| format!("stdout: {e}"))
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
