use super::*;
use crate::ir::parse_module;

fn run_text(src: &str) -> Outcome {
    let m = parse_module(src).unwrap_or_else(|e| panic!("parse: {e}"));
    run(&m, "main", &Options::default()).expect("load")
}

#[test]
fn arithmetic_and_output() {
    let o = run_text(
        "func @main() -> i32 {
b0:
  %0:i32 = const -7
  %1:i32 = const 2
  %2:i32 = divs %0, %1
  call @print_int(%2)
  %3:i32 = rems %0, %1
  call @print_int(%3)
  %4:i32 = shrs %0, %1
  call @print_int(%4)
  %5:i32 = shru %0, %1
  call @print_int(%5)
  ret %3
}",
    );
    assert_eq!(o.trap, None);
    // -7/2 = -3 (truncation), -7%2 = -1, -7>>2 = -2 (arithmetic), 0xFFFFFFF9>>2 = 0x3FFFFFFE.
    assert_eq!(o.output_string(), "-3-1-21073741822");
    assert_eq!(o.exit_code, -1);
}

/// The swap problem: phis at a loop head read their arguments in parallel.
#[test]
fn phis_are_parallel() {
    let o = run_text(
        "func @main() -> i32 {
b0:
  %0:i32 = const 1
  %1:i32 = const 2
  %2:i32 = const 0
  jmp b1
b1:
  %3:i32 = phi [b0: %0], [b1: %4]
  %4:i32 = phi [b0: %1], [b1: %3]
  %5:i32 = phi [b0: %2], [b1: %6]
  %7:i32 = const 1
  %6:i32 = add %5, %7
  %8:i32 = const 3
  %9:i32 = cmp.lt %6, %8
  br %9, b1, b2
b2:
  call @print_int(%3)
  call @print_int(%4)
  ret %5
}",
    );
    // Three iterations: (1,2) -> (2,1) -> (1,2); the loop exits with %5 = 2.
    assert_eq!(o.output_string(), "12");
    assert_eq!(o.exit_code, 2);
}

#[test]
fn memory_globals_relocs_and_slots() {
    let o = run_text(
        "global @tab size 8 align 4 = x\"0500000006000000\"
global @ptr size 4 align 4 = zero
  reloc 0 @tab+4
func @main() -> i32 {
  slot s0 size 4 align 4 \"x\"
b0:
  %0:ptr = addr @ptr+0
  %1:ptr = load.i32 %0
  %2:i32 = load.i32 %1
  %3:ptr = slot s0
  %4:i32 = const -1
  store.i16 %3, %4
  %5:i32 = load.u16 %3
  %6:i32 = load.i8 %3
  %7:i32 = add %2, %5
  %8:i32 = add %7, %6
  ret %8
}",
    );
    // 6 + 65535 + (-1) = 65540
    assert_eq!(o.trap, None);
    assert_eq!(o.exit_code, 65540);
}

#[test]
fn recursion_uses_explicit_stack() {
    let o = run_text(
        "func @f(%0:i32) -> i32 {
b0:
  %1:i32 = const 0
  %2:i32 = cmp.eq %0, %1
  br %2, b1, b2
b1:
  ret %1
b2:
  %3:i32 = const 1
  %4:i32 = sub %0, %3
  %5:i32 = call @f(%4)
  %6:i32 = add %5, %3
  ret %6
}
func @main() -> i32 {
b0:
  %0:i32 = const 50000
  %1:i32 = call @f(%0)
  ret %1
}",
    );
    assert_eq!(o.trap, None);
    assert_eq!(o.exit_code, 50000);
}

#[test]
fn traps_are_located() {
    let o = run_text(
        "func @main() -> i32 {
b0:
  %0:i32 = const 0
  %1:i32 = const 5
  %2:i32 = divs %1, %0
  ret %2
}",
    );
    let t = o.trap.expect("trap");
    assert_eq!(t.kind, TrapKind::DivisionByZero);
    assert_eq!(
        (t.function.as_str(), t.block, t.inst),
        ("main", BlockId(0), 2)
    );

    let o = run_text(
        "func @main() -> i32 {
b0:
  %0:i32 = const 0
  %1:i32 = load.i32 %0
  ret %1
}",
    );
    assert_eq!(
        o.trap.expect("trap").kind,
        TrapKind::BadAddress { addr: 0, size: 4 }
    );

    let opts = Options {
        max_steps: 1000,
        ..Options::default()
    };
    let m = parse_module("func @main() -> i32 {\nb0:\n  jmp b0\n}").unwrap();
    let o2 = run(&m, "main", &opts).unwrap();
    assert_eq!(o2.trap.expect("trap").kind, TrapKind::StepLimit(1000));
}

#[test]
fn undefined_values_trap_only_when_used() {
    // %1 is undefined along b0->b2, and is only copied, never used: fine.
    let ok = run_text(
        "func @main() -> i32 {
b0:
  %0:i32 = const 0
  br %0, b1, b2
b1:
  %1:i32 = const 4
  jmp b2
b2:
  %2:i32 = phi [b0: %1], [b1: %1]
  %3:i32 = copy %2
  ret %0
}",
    );
    assert_eq!(ok.trap, None);
    let bad = run_text(
        "func @main() -> i32 {
b0:
  %1:i32 = copy %5
  %2:i32 = add %1, %1
  ret %2
}",
    );
    assert_eq!(
        bad.trap.expect("trap").kind,
        TrapKind::UndefinedValue(Value(1))
    );
}

#[test]
fn printf_formats() {
    let o = run_text(
        "global @fmt size 32 align 1 const = x\"5b2535645d5b252d34645d5b253034785d5b25735d5b25635d252500\"
global @s size 3 align 1 const = x\"686900\"
func @main() -> i32 {
b0:
  %0:ptr = addr @fmt+0
  %1:i32 = const -42
  %2:i32 = const 7
  %3:i32 = const 255
  %4:ptr = addr @s+0
  %5:i32 = const 65
  %6:i32 = call @printf(%0, %1, %2, %3, %4, %5)
  ret %6
}",
    );
    assert_eq!(o.trap, None);
    assert_eq!(o.output_string(), "[  -42][7   ][00ff][hi][A]%");
    assert_eq!(o.exit_code, 27);
}

#[test]
fn stack_overflow_is_a_trap() {
    let o = run_text(
        "func @f() {
  slot s0 size 4096 align 4 \"big\"
b0:
  call @f()
  ret
}
func @main() -> i32 {
b0:
  call @f()
  %0:i32 = const 0
  ret %0
}",
    );
    assert_eq!(o.trap.expect("trap").kind, TrapKind::StackOverflow);
}
