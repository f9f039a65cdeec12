//! The machine-level interpreter on text MIR and on the back end's real output.
//!
//! * Hand-written text modules for both targets (globals, calls, final-form prologues and
//!   epilogues), with results worked out by hand.
//! * Every program of `programs/{dsp,codec,features}` at -O0 and -O2 on both targets, after
//!   instruction selection (SSA form), out-of-SSA (`isolation`; allocation form), register
//!   allocation (`irc` with all registers, and at -O2 also with only 4 per spillable class so
//!   that spill code runs; allocated form) and frame layout (final form): the machine module
//!   must verify in that form and behave exactly like the mid-level IR interpreter's run of
//!   the same program (exit code and output bytes) — in final form under the interpreter's
//!   ABI checks (clobbered registers poisoned; callee-saved registers, SP and the return
//!   address preserved). The text form of each selected module must parse back to the same
//!   module (up to vreg numbers no instruction mentions).

mod common;
use compiler::ir::Module;
use compiler::isel::{self, IselOptions};
use compiler::mir;
use compiler::mir::interp::{run_module, InterpOptions, TrapKind};
use compiler::mir::parse::parse_module;
use compiler::mir::verify::{verify_module, Form};
use compiler::pipeline::{self, OptLevel};
use simulator::isa::Target;
use std::path::Path;

fn run_text(src: &str, form: Form) -> mir::interp::Outcome {
    let m = parse_module(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let errs = verify_module(&m, form);
    assert!(errs.is_empty(), "{errs:#?}");
    run_module(&m, "main", &InterpOptions::default()).unwrap_or_else(|t| panic!("{t}"))
}

/// ST120 final form: `main` saves the link register P11, keeps 1000 in the callee-saved R4
/// across the call; `f` saves and restores R4. SP moves by words (`SUBWA.i #2` = 8 bytes).
const FINAL_120: &str = "mfunc @main st120 {
  frame f0 size 4 align 4 save \"link\"
  layout size 8 offsets [0] finalized
b0:
  .input
  P15 = SUBWA.i P15, #2 !frame
  SAW+i P15, P11, #0 !frame
  R4 = MAKE #1000
  R0 = MAKE #20
  R0^R0 = CALL R0^R0, fn @f
  R0 = ADD R0, R4
  P11 = LAW+i P15, #0 !frame
  P15 = ADDWA.i P15, #2 !frame
  .output R0^R0
  RTS
}

mfunc @f st120 {
  frame f0 size 4 align 4 save \"r4\"
  layout size 8 offsets [0] finalized
b0:
  R0^R0 = .input
  P15 = SUBWA.i P15, #2 !frame
  SDW+i P15, R4, #0 !frame
  R4 = ADD.i R0, #1
  R0 = ADD R4, R4
  R4 = LDW+i P15, #0 !frame
  P15 = ADDWA.i P15, #2 !frame
  .output R0^R0
  RTS
}
";

#[test]
fn st120_final_form_with_prologue() {
    // f(20) = 2 * 21 = 42, plus main's R4 = 1000.
    assert_eq!(run_text(FINAL_120, Form::Final).exit_code, 1042);
    // Without the restore of R4 in f, the interpreter names the ABI violation.
    let broken = FINAL_120.replace("  R4 = LDW+i P15, #0 !frame\n", "");
    let m = parse_module(&broken).unwrap();
    let t = run_module(&m, "main", &InterpOptions::default()).unwrap_err();
    assert_eq!(
        t.kind,
        TrapKind::CalleeSaved {
            reg: "R4".into(),
            callee: "f".into()
        },
        "{t}"
    );
    assert_eq!(
        (t.function.as_str(), t.inst, t.text.as_str()),
        ("f", 7, "RTS"),
        "{t}"
    );
}

#[test]
fn st231_globals_relocations_and_pointer_chasing() {
    // @p holds the address of @tab + 4; main loads *p = tab[1] = 7, then tab[2] = 9, adds
    // them, prints "16" and exits through the exit system call with 3.
    let src = "global @tab size 12 align 4 = x\"050000000700000009000000\"
global @p size 4 align 4 = zero
  reloc 0 @tab+4
mfunc @main st231 {
b0:
  %0:r = add $r0, @p
  %1:r = ldw %0, #0
  %2:r = ldw %1, #0
  %3:r = ldw %1, #4
  %4:r = add %2, %3
  syscall %4^$r16, #2
  %5:r = add $r0, #3
  syscall %5^$r16, #1
  .output %4^$r16
  return
}
";
    let o = run_text(src, Form::Ssa);
    assert_eq!((o.exit_code, o.output.as_slice()), (3, b"16".as_slice()));
}

fn optimise(m: &mut Module, opt: OptLevel) -> Result<(), String> {
    pipeline::run_passes(m, &pipeline::mid_level_passes(opt), &mut |_, _| Ok(()))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// The program with the runtime routines appended (as the driver does).
fn build(path: &Path, opt: OptLevel) -> Result<Module, String> {
    let mut m =
        compiler::front::compile_to_ir(path, &Default::default()).map_err(|d| d.render())?;
    optimise(&mut m, opt)?;
    compiler::backend::add_runtime(&mut m, opt)?;
    Ok(m)
}

/// Verifies `m` in `form` and runs it; the result must equal the mid-level run.
fn check_stage(
    name: &str,
    m: &mir::Module,
    form: Form,
    expected: &compiler::interp::Outcome,
) -> Result<(), String> {
    let errs = verify_module(m, form);
    if let Some(e) = errs.first() {
        return Err(format!("{name} {form:?}: {e} (+{} more)", errs.len() - 1));
    }
    let o = run_module(m, "main", &InterpOptions::default())
        .map_err(|t| format!("{name} {form:?}: {t}"))?;
    if o.exit_code != expected.exit_code || o.output != expected.output {
        return Err(format!(
            "{name} {form:?}: exit {} output {:?}, expected exit {} output {:?}",
            o.exit_code,
            String::from_utf8_lossy(&o.output),
            expected.exit_code,
            String::from_utf8_lossy(&expected.output)
        ));
    }
    Ok(())
}

/// Register allocation (allocated form) and frame layout (final form), each checked.
fn allocate_and_finalize(
    name: &str,
    mut mm: mir::Module,
    regs: Option<u32>,
    expected: &compiler::interp::Outcome,
) -> Result<(), String> {
    let opts = compiler::regalloc::RegallocOptions { regs };
    for f in &mut mm.functions {
        compiler::regalloc::irc::allocate(f, &opts)
            .map_err(|e| format!("{name}: register allocation: {e}"))?;
    }
    check_stage(name, &mm, Form::Allocated, expected)?;
    for f in &mut mm.functions {
        compiler::regalloc::frame::finalize(f).map_err(|e| format!("{name}: frame: {e}"))?;
    }
    check_stage(name, &mm, Form::Final, expected)
}

#[test]
fn st231_programs_run_alike_at_every_stage() {
    programs_run_alike(Target::St231);
}

#[test]
fn st120_programs_run_alike_at_every_stage() {
    programs_run_alike(Target::St120);
}

fn programs_run_alike(t: Target) {
    let mut failures = Vec::new();
    let mut runs = 0;
    for path in common::c_programs() {
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        for opt in [OptLevel::O0, OptLevel::O2] {
            let m = build(&path, opt).unwrap_or_else(|e| panic!("{file}: {e}"));
            let expected = compiler::interp::run(&m, "main", &Default::default())
                .unwrap_or_else(|e| panic!("{file}: {e:?}"));
            assert!(expected.trap.is_none(), "{file}: {:?}", expected.trap);
            {
                let name = format!("{file} {opt:?} {t}");
                let mut mm = match isel::select_module(&m, t, &IselOptions::default()) {
                    Ok(mm) => mm,
                    Err(e) => {
                        failures.push(format!("{name}: isel: {e}"));
                        continue;
                    }
                };
                runs += 1;
                let text = mm.to_string();
                // The text holds everything but vreg numbers no instruction mentions.
                match parse_module(&text) {
                    Ok(back)
                        if back.to_string() == text
                            && back.globals == mm.globals
                            && back.functions.iter().zip(&mm.functions).all(|(a, b)| {
                                (&a.name, a.target, &a.blocks, &a.frame)
                                    == (&b.name, b.target, &b.blocks, &b.frame)
                            }) => {}
                    Ok(_) => failures.push(format!("{name}: text does not parse back equal")),
                    Err(e) => failures.push(format!("{name}: text: {e}")),
                }
                if let Err(e) = check_stage(&name, &mm, Form::Ssa, &expected) {
                    failures.push(e);
                    continue;
                }
                let oos: Result<Vec<_>, String> = mm
                    .functions
                    .iter_mut()
                    .map(compiler::out_of_ssa::isolation::run)
                    .collect();
                if let Err(e) = oos {
                    failures.push(format!("{name}: out-of-SSA: {e}"));
                    continue;
                }
                if let Err(e) = check_stage(&name, &mm, Form::Allocation, &expected) {
                    failures.push(e);
                    continue;
                }
                // The whole register files, and (at -O2) only 4 registers per spillable class.
                let pressures: &[Option<u32>] = match opt {
                    OptLevel::O0 => &[None],
                    _ => &[None, Some(4)],
                };
                for &regs in pressures {
                    let name = format!("{name} regs {regs:?}");
                    if let Err(e) = allocate_and_finalize(&name, mm.clone(), regs, &expected) {
                        failures.push(e);
                    }
                }
            }
        }
    }
    assert!(runs > 0);
    assert!(
        failures.is_empty(),
        "{} of {runs} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
