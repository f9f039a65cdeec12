//! Tests of the machine-level interpreter: hand-written MIR for both targets in every form.
//! Expected values are worked out by hand in the comments.

use super::*;
use crate::mir::parse::parse_module;
use crate::mir::verify::{verify_module, Form};

fn run_text(src: &str) -> Result<Outcome, Trap> {
    let m = parse_module(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    run_module(&m, "main", &InterpOptions::default())
}

fn ok(src: &str) -> Outcome {
    run_text(src).unwrap_or_else(|t| panic!("{t}\n{src}"))
}

fn trap(src: &str) -> Trap {
    match run_text(src) {
        Ok(o) => panic!("expected a trap, got {o:?}\n{src}"),
        Err(t) => t,
    }
}

fn verified(src: &str, form: Form) -> Outcome {
    let m = parse_module(src).unwrap();
    let errs = verify_module(&m, form);
    assert!(errs.is_empty(), "{errs:#?}");
    ok(src)
}

#[test]
fn st231_arithmetic() {
    // (3 + 4) * 5 = 35; sub computes src2 - src1: 100 - 35 = 65.
    let o = verified(
        "mfunc @main st231 {
b0:
  %0:r = add $r0, #3
  %1:r = add %0, #4
  %2:r = mul32 %1, #5
  %3:r = sub %2, #100
  .output %3^$r16
  return
}",
        Form::Ssa,
    );
    assert_eq!(o.exit_code, 65);
    assert_eq!(o.steps, 6);
}

const SUM_LOOP_231: &str = "mfunc @main st231 {
b0:
  %0:r = add $r0, #0
  %1:r = add $r0, #0
  goto b1
b1:
  %2:r = phi [b0: %0], [b1: %4]
  %3:r = phi [b0: %1], [b1: %5]
  %4:r = add %2, #1
  %5:r = add %3, %4
  %6:b = cmplt %4, #10
  br %6, b1
  goto b2
b2:
  syscall %5^$r16, #2
  .output %5^$r16
  return
}";

#[test]
fn st231_loop_with_phis_and_print_int() {
    // s = 1 + 2 + ... + 10 = 55.
    let o = verified(SUM_LOOP_231, Form::Ssa);
    assert_eq!((o.exit_code, o.output.as_slice()), (55, b"55".as_slice()));
    // 3 in b0; 10 times through b1 (2 phis, 2 adds, cmplt, br), the goto once; 3 in b2.
    assert_eq!(o.steps, 3 + 10 * 6 + 1 + 3);
}

#[test]
fn phis_read_simultaneously_swap() {
    // a, b = b, a three times starting from (1, 2): (2, 1), (1, 2), (2, 1); result a*10+b = 21.
    let src = "mfunc @main st231 {
b0:
  %0:r = add $r0, #1
  %1:r = add $r0, #2
  %2:r = add $r0, #0
  goto b1
b1:
  %3:r = phi [b0: %0], [b1: %4]
  %4:r = phi [b0: %1], [b1: %3]
  %5:r = phi [b0: %2], [b1: %6]
  %6:r = add %5, #1
  %7:b = cmplt %6, #4
  br %7, b1
  goto b2
b2:
  %8:r = mul32 %3, #10
  %9:r = add %8, %4
  .output %9^$r16
  return
}";
    // After iteration k (k = 1..4 entries) ... entries of b1: 4; values at the 4th entry:
    // (1,2) -> (2,1) -> (1,2) -> (2,1): a = 2, b = 1.
    assert_eq!(verified(src, Form::Ssa).exit_code, 21);
}

#[test]
fn parallel_copy_reads_all_then_writes() {
    // ST120, allocated registers: (R1, R2) = (R2, R1) as one parallel copy.
    let src = "mfunc @main st120 {
b0:
  R1 = MAKE #7
  R2 = MAKE #9
  R1, R2 = parcopy R2, R1 !copy
  R3 = MAKE #10
  R0 = MPSSLL R1, R3
  R0 = ADD R0, R2
  RTS
}";
    // R1 = 9, R2 = 7: 9 * 10 + 7 = 97 (a sequential copy would give 9 * 10 + 9).
    assert_eq!(ok(src).exit_code, 97);
}

#[test]
fn st120_psi_and_guarded_operations() {
    // psi: last true guard wins. x = 3: g = (x < 5) true -> 20; x = 8: g false -> 10.
    for (x, expect) in [(3, 20), (8, 10)] {
        let src = format!(
            "mfunc @main st120 {{
b0:
  %0:r = MAKE #{x}
  %1:g = LTW.i %0, #5
  %2:r = MAKE #10
  %3:r = %1? MAKE #20
  %4:r = psi [G15: %2], [%1: %3]
  .output %4^R0
  RTS
}}"
        );
        assert_eq!(verified(&src, Form::Ssa).exit_code, expect, "x = {x}");
    }
    // Allocation form: a guarded operation that is off leaves its definition unchanged.
    let src = "mfunc @main st120 {
b0:
  %0:r = MAKE #1
  %1:g = CLRG
  %0:r = %1? MAKE #2
  %2:g = SETG
  %3:r = MAKE #5
  %3:r = %2? ADD.i %3, #1
  %4:r = ADD %0, %3
  .output %4^R0
  RTS
}";
    // %0 stays 1, %3 becomes 6: 7.
    assert_eq!(verified(src, Form::Allocation).exit_code, 7);
    // Guarded copies (psi lowered by out-of-SSA): only the one whose guard is on copies.
    let src = "mfunc @main st120 {
b0:
  %0:g = CLRG
  %1:g = SETG
  %2:r = MAKE #3
  %3:r = MAKE #4
  %4:r = MAKE #5
  %4:r = %0? copy %2 !copy
  %4:r = %1? copy %3 !copy
  .output %4^R0
  RTS
}";
    assert_eq!(verified(src, Form::Allocation).exit_code, 4);
}

#[test]
fn st120_forty_bit_values_and_post_increment() {
    // MAKE 0x7FFF; MORE 0xFFFF -> 0x7FFFFFFF; MASSLL acc = acc + lo16s(a)*lo16s(b) with
    // a = b = -1 (0xFFFF lanes): 0x7FFFFFFF + 1 = 0x80000000 kept in 40 bits (positive);
    // CLAMPW saturates it to 0x7FFFFFFF.
    let src = "global @buf size 8 align 4 = x\"0500000007000000\"
mfunc @main st120 {
b0:
  %0:r = MAKE #32767
  %1:r = MORE %0^%1, #65535
  %2:r = MAKE #-1
  %3:r = MASSLL %1, %2, %2
  %4:r = CLAMPW %3
  %5:p = MAKEA hi(@buf)
  %6:p = MOREA %5^%6, lo(@buf)
  %7:r, %8:p = LDW!+i %6^%8, #1
  %9:r, %10:p = LDW!+i %8^%10, #1
  %11:r = ADD %7, %9
  %12:g = EQW %4, %1
  %13:r = BOOL %12
  %14:r = ADD %11, %13
  .output %14^R0
  RTS
}";
    // 5 + 7 + (clamp == 0x7FFFFFFF) = 13.
    assert_eq!(verified(src, Form::Ssa).exit_code, 13);
}

const CALLS_231: &str = "mfunc @main st231 {
b0:
  %0:r = add $r0, #2
  %1:r = add $r0, #3
  %2:r = add $r0, #4
  %3:r^$r16 = call %0^$r16, %1^$r17, %2^$r18, fn @madd
  %4:r = add %3, #1
  .output %4^$r16
  return
}

mfunc @madd st231 {
b0:
  %0:r^$r16, %1:r^$r17, %2:r^$r18 = .input
  %3:r = mul32 %0, %1
  %4:r = add %3, %2
  .output %4^$r16
  return
}
";

#[test]
fn calls_with_pinned_arguments() {
    // madd(2, 3, 4) = 10; + 1.
    assert_eq!(verified(CALLS_231, Form::Ssa).exit_code, 11);
}

#[test]
fn call_clobbered_registers_are_poisoned() {
    // Reading $r17 after the call (caller-saved, not a result) is an ABI bug.
    let src = CALLS_231.replace("%4:r = add %3, #1", "%4:r = add %3, $r17");
    let t = trap(&src);
    assert_eq!(t.kind, TrapKind::Undefined("$r17".into()), "{t}");
    assert_eq!(
        (t.function.as_str(), t.block, t.inst),
        ("main", BlockId(0), 4)
    );
    assert!(t.text.contains("add %3, $r17"), "{t}");
    // Callee-saved registers survive a call (restored for a non-finalized callee).
    let src = CALLS_231
        .replace(
            "  %0:r = add $r0, #2\n",
            "  %0:r = add $r0, #2\n  $r5 = add $r0, #100\n",
        )
        .replace("%4:r = add %3, #1", "%4:r = add %3, $r5")
        .replace(
            "%4:r = add %3, %2",
            "$r5 = add $r0, #7\n  %4:r = add %3, %2",
        );
    assert_eq!(ok(&src).exit_code, 110);
}

#[test]
fn stack_arguments_through_provisional_frames() {
    // ST231: the caller stores the 9th argument at SP+16; the callee reads incoming 0 at
    // frame size + 16. The callee has a local (8 bytes), so its SP is 8 below.
    let src = "mfunc @main st231 {
  outgoing 20
b0:
  %0:r = add $r0, #40
  stw $r12, %0, #16
  %1:r = add $r12, #0
  %2:r^$r16 = call fn @g
  %3:r = add $r12, #0
  %4:r = sub %3, %1
  %5:r = add %2, %4
  .output %5^$r16
  return
}

mfunc @g st231 {
  frame f0 size 4 align 4 local \"x\"
  frame f1 size 4 align 4 incoming 0 \"a9\"
b0:
  %0:r = ldw $r12, f1
  %1:r = add $r0, #2
  stw $r12, %1, f0
  %2:r = ldw $r12, f0
  %3:r = add %0, %2
  .output %3^$r16
  return
}
";
    // g returns 40 + 2; SP is the same before and after the call (difference 0).
    assert_eq!(verified(src, Form::Ssa).exit_code, 42);
    // ST120: the caller stores argument k at SP + 4k (immediate in words); incoming 0 at
    // frame size + 0. The callee addresses its local with ADDBA.i and a word load.
    let src = "mfunc @main st120 {
  outgoing 8
b0:
  %0:r = MAKE #30
  %1:r = MAKE #12
  SDW+i P15, %0, #0
  SDW+i P15, %1, #1
  %2:r^R0 = CALL fn @g
  .output %2^R0
  RTS
}

mfunc @g st120 {
  frame f0 size 8 align 4 local \"x\"
  frame f1 size 4 align 4 incoming 0 \"a\"
  frame f2 size 4 align 4 incoming 1 \"b\"
b0:
  %0:r = LDW+i P15, f1
  %1:r = LDW+i P15, f2
  %2:p = ADDBA.i P15, f0+4
  SDW+i %2, %1, #0
  %3:r = LDW+i P15, f0+4
  %4:r = ADD %0, %3
  .output %4^R0
  RTS
}
";
    assert_eq!(verified(src, Form::Ssa).exit_code, 42);
}

#[test]
fn system_calls_both_targets() {
    let src = "global @msg size 3 align 1 const = x\"68690a\"
mfunc @main st231 {
b0:
  %0:r = add $r0, @msg
  %1:r = add $r0, #3
  syscall %0^$r16, %1^$r17, #4
  %2:r = add $r0, #65
  syscall %2^$r16, #3
  %3:r = add $r0, #-7
  syscall %3^$r16, #2
  %4:r = add $r0, #9
  syscall %4^$r16, #1
  %5:r = add $r0, #0
  .output %5^$r16
  return
}";
    let o = verified(src, Form::Ssa);
    assert_eq!(
        (o.exit_code, o.output.as_slice()),
        (9, b"hi\nA-7".as_slice())
    );
    let src = "global @msg size 2 align 1 = x\"6f6b\"
mfunc @main st120 {
b0:
  %0:p = MAKEA hi(@msg)
  %1:p = MOREA %0^%1, lo(@msg)
  %2:r = MAKE #2
  TRAP %2^R0, %1^P0, #4
  %3:r = MAKE #33
  TRAP %3^R0, #3
  %4:r = MAKE #5
  .output %4^R0
  RTS
}";
    let o = verified(src, Form::Ssa);
    assert_eq!((o.exit_code, o.output.as_slice()), (5, b"ok!".as_slice()));
}

/// A final-form ST231 program: `main` (non-leaf: saves the link register) calls `f`, which
/// uses the callee-saved `$r1` and saves/restores it.
const FINAL_231: &str = "mfunc @main st231 {
  frame f0 size 4 align 4 save \"link\"
  layout size 24 offsets [16] finalized
b0:
  .input
  $r12 = add $r12, #-24 !frame
  stw $r12, $r63, #16 !frame
  $r1 = add $r0, #1000
  $r16 = add $r0, #20
  $r16^$r16 = call $r16^$r16, fn @f
  $r16 = add $r16, $r1
  $r63 = ldw $r12, #16 !frame
  $r12 = add $r12, #24 !frame
  .output $r16^$r16
  return
}

mfunc @f st231 {
  frame f0 size 4 align 4 save \"r1\"
  layout size 8 offsets [0] finalized
b0:
  $r16^$r16 = .input
  $r12 = add $r12, #-8 !frame
  stw $r12, $r1, #0 !frame
  $r1 = add $r16, #1
  $r16 = add $r1, $r1
  $r1 = ldw $r12, #0 !frame
  $r12 = add $r12, #8 !frame
  .output $r16^$r16
  return
}
";

#[test]
fn finalized_functions_with_prologues() {
    // f(20) = 42; + 1000 from the callee-saved $r1.
    assert_eq!(verified(FINAL_231, Form::Final).exit_code, 1042);
    // f forgets to restore $r1: caught at its return.
    let broken = FINAL_231.replace("  $r1 = ldw $r12, #0 !frame\n", "");
    let t = trap(&broken);
    assert_eq!(
        t.kind,
        TrapKind::CalleeSaved {
            reg: "$r1".into(),
            callee: "f".into()
        },
        "{t}"
    );
    // main forgets to save the link register around its call: its return goes astray.
    let broken = FINAL_231.replace("  $r63 = ldw $r12, #16 !frame\n", "");
    let t = trap(&broken);
    assert!(matches!(t.kind, TrapKind::BadReturn { .. }), "{t}");
    assert_eq!(t.function, "main");
    // f forgets to restore SP.
    let broken = FINAL_231.replace("  $r12 = add $r12, #8 !frame\n", "");
    let t = trap(&broken);
    assert_eq!(
        t.kind,
        TrapKind::CalleeSaved {
            reg: "$r12".into(),
            callee: "f".into()
        },
        "{t}"
    );
}

#[test]
fn traps_name_the_place_and_reason() {
    let t = trap("mfunc @main st231 {\nb0:\n  %0:r = ldw $r0, #0\n  return\n}");
    assert_eq!(
        t.kind,
        TrapKind::Machine(simulator::machine::TrapKind::BadAddress { addr: 0 })
    );
    assert_eq!(t.text, "%0:r = ldw $r0, #0");
    let t = trap("mfunc @main st231 {\nb0:\n  %1:r = add %0, #1\n  return\n}");
    assert_eq!(t.kind, TrapKind::Undefined("%0".into()));
    let t = trap("mfunc @main st231 {\nb0:\n  goto b9\n}");
    assert!(
        matches!(&t.kind, TrapKind::Bad(m) if m.contains("b9")),
        "{t}"
    );
    let t = trap("mfunc @main st231 {\nb0:\n  call fn @nowhere\n  return\n}");
    assert!(
        matches!(&t.kind, TrapKind::Bad(m) if m.contains("@nowhere")),
        "{t}"
    );
    let m = parse_module("mfunc @main st120 {\nb0:\n  GOTO b0\n}").unwrap();
    let opts = InterpOptions {
        max_steps: 1000,
        ..InterpOptions::default()
    };
    let t = run_module(&m, "main", &opts).unwrap_err();
    assert_eq!((t.kind, t.steps), (TrapKind::StepLimit(1000), 1001));
    let t = trap("mfunc @main st231 {\nb0:\n  call fn @main\n  return\n}");
    assert!(
        matches!(t.kind, TrapKind::CallDepth(_) | TrapKind::StackOverflow),
        "{t}"
    );
    let t = trap("mfunc @main st231 {\nb0:\n  %0:r = add $r0, #1\n}");
    assert!(
        matches!(&t.kind, TrapKind::Bad(m) if m.contains("fell off")),
        "{t}"
    );
    let t = trap("mfunc @main st231 {\nb0:\n  %0:r = add $r0, #2\n  stw %0, %0, #0\n  return\n}");
    assert!(matches!(t.kind, TrapKind::Machine(_)), "{t}");
    let m = parse_module("mfunc @f st231 {\nb0:\n  return\n}").unwrap();
    let t = run_module(&m, "main", &InterpOptions::default()).unwrap_err();
    assert_eq!(t.kind, TrapKind::NoEntry("main".into()));
    // A phi without an operand for the edge taken.
    let t = trap(
        "mfunc @main st231 {\nb0:\n  goto b1\nb1:\n  %0:r = phi [b2: %0]\n  goto b2\nb2:\n  return\n}",
    );
    assert!(
        matches!(&t.kind, TrapKind::Bad(m) if m.contains("edge from b0")),
        "{t}"
    );
}

#[test]
fn recursion_and_steps_per_second() {
    // fib(15) = 610 by naive recursion: calls, pins, poisoning and frames under load.
    let src = "mfunc @main st231 {
b0:
  %0:r = add $r0, #15
  %1:r^$r16 = call %0^$r16, fn @fib
  .output %1^$r16
  return
}

mfunc @fib st231 {
b0:
  %0:r^$r16 = .input
  %1:b = cmplt %0, #2
  br %1, b2
  goto b1
b1:
  %2:r = add %0, #-1
  %3:r^$r16 = call %2^$r16, fn @fib
  %4:r = add %0, #-2
  %5:r^$r16 = call %4^$r16, fn @fib
  %6:r = add %3, %5
  .output %6^$r16
  return
b2:
  .output %0^$r16
  return
}
";
    assert_eq!(verified(src, Form::Ssa).exit_code, 610);
    // A loop kernel for the speed figure: 1,000,000 iterations of the sum loop.
    let kernel = SUM_LOOP_231
        .replace("cmplt %4, #10", "cmplt %4, #1000000")
        .replace("syscall %5^$r16, #2\n", "");
    let m = parse_module(&kernel).unwrap();
    let t0 = std::time::Instant::now();
    let o = run_module(&m, "main", &InterpOptions::default()).unwrap();
    let secs = t0.elapsed().as_secs_f64();
    // sum 1..1e6 = 500000500000, low 32 bits as i32.
    assert_eq!(o.exit_code, 500_000_500_000u64 as u32 as i32);
    println!(
        "mir::interp: {} steps in {secs:.3} s = {:.1} M steps/s",
        o.steps,
        o.steps as f64 / secs / 1e6
    );
}
