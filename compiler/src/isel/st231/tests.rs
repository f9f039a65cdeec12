//! Unit tests of ST231 selection on small IR functions written in the IR text form.

use super::select_function;
use crate::ir::parse::parse_module;
use crate::isel::IselOptions;
use crate::mir::{self, Opc, Pin};
use simulator::isa::st231::Opcode as O;

fn select(src: &str, name: &str) -> mir::Function {
    let m = parse_module(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let f = m.function(name).expect("function");
    select_function(&m, f, &IselOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn select_err(src: &str, name: &str) -> String {
    let m = parse_module(src).unwrap();
    let f = m.function(name).unwrap();
    select_function(&m, f, &IselOptions::default())
        .expect_err("selection should fail")
        .to_string()
}

fn count(f: &mir::Function, opc: O) -> usize {
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| i.opc == Opc::St231(opc))
        .count()
}

#[test]
fn params_results_and_immediates() {
    let f = select(
        "func @f(%0: i32, %1: i32) -> i32 {
         b0:
           %2: i32 = const 1000
           %3: i32 = add %0, %2
           %4: i32 = sub %3, %1
           %5: i32 = const 7
           %6: i32 = sub %5, %4
           ret %6
         }",
        "f",
    );
    let text = f.to_string();
    assert!(text.contains("%0:r^$r16, %1:r^$r17 = .input"), "{text}");
    assert!(text.contains("= add %0, #1000"), "{text}");
    // x - y is sub with y in src1 and x in src2; 7 - x is the RI form.
    assert!(text.contains("%3:r = add %0, #1000"), "{text}");
    assert!(text.contains("%4:r = sub %1, %3"), "{text}");
    assert!(text.contains("%6:r = sub %4, #7"), "{text}");
    assert!(text.contains(".output %6^$r16\n  igoto"), "{text}");
    // The constants were all folded into immediates, so no `add $r0` remains.
    assert!(!text.contains("$r0"), "{text}");
}

#[test]
fn branch_folds_compare_into_b_register() {
    let f = select(
        "func @f(%0: i32, %1: i32) -> i32 {
         b0:
           %2: i32 = cmp.lt %0, %1
           br %2, b1, b2
         b1:
           ret %0
         b2:
           ret %1
         }",
        "f",
    );
    let text = f.to_string();
    assert!(text.contains(":b = cmplt %0, %1\n  br "), "{text}");
    assert!(text.contains("br %3, b1\n  goto b2"), "{text}");
    // The $r form of the compare is dead and removed.
    assert_eq!(count(&f, O::Cmplt), 1, "{text}");
}

#[test]
fn branch_on_plain_value_tests_nonzero_and_compares_data() {
    let f = select(
        "func @f(%0: i32) -> i32 {
         b0:
           %1: i32 = cmp.geu %0, %0
           %2: i32 = const 5
           %3: i32 = cmp.gt %2, %0
           %4: i32 = add %1, %3
           br %0, b1, b2
         b1:
           ret %4
         b2:
           ret %0
         }",
        "f",
    );
    let text = f.to_string();
    assert!(text.contains(":b = cmpne %0, #0"), "{text}");
    // 5 > x is x < 5 with the constant second.
    assert!(text.contains(":r = cmplt %0, #5"), "{text}");
    assert!(text.contains(":r = cmpgeu %0, %0"), "{text}");
}

#[test]
fn select_uses_slct_with_compare_in_same_block() {
    let f = select(
        "func @f(%0: i32, %1: i32) -> i32 {
         b0:
           %2: i32 = cmp.eq %0, %1
           %3: i32 = const 9
           %4: i32 = select %2, %0, %3
           %5: i32 = select %0, %3, %1
           %6: i32 = add %4, %5
           ret %6
         }",
        "f",
    );
    let text = f.to_string();
    assert!(text.contains(":b = cmpeq %0, %1\n  %"), "{text}");
    assert!(text.contains("slct %"), "{text}");
    assert!(text.contains(", #9"), "{text}");
    // The constant in the true position uses slctf with the operands exchanged.
    assert!(text.contains("slctf %"), "{text}");
}

#[test]
fn memory_widths_and_offset_folding() {
    let f = select(
        "global @g size 16 align 4 = zero
         func @f(%0: ptr) -> i32 {
         slot s0 size 8 align 4 \"buf\"
         b0:
           %1: i32 = const 6
           %2: ptr = add %0, %1
           %3: i32 = load.i8 %2
           %4: i32 = load.u8 %0
           %5: i32 = load.i16 %2
           %6: i32 = load.u16 %2
           %7: i32 = load.i32 %0
           %8: ptr = slot s0
           %9: i32 = const 4
           %10: ptr = add %8, %9
           store.i32 %10, %3
           store.i16 %8, %4
           %11: i32 = const 0
           store.i8 %2, %11
           %12: ptr = addr @g+8
           %13: i32 = load.i32 %12
           %14: i32 = add %13, %7
           %15: i32 = load.i32 %10
           %16: i32 = add %14, %15
           ret %16
         }",
        "f",
    );
    let text = f.to_string();
    for want in [
        "= ldb %0, #6",
        "= ldbu %0, #0",
        "= ldh %0, #6",
        "= ldhu %0, #6",
        "= ldw %0, #0",
        "stw $r12, %",
        "sth $r12, %",
        "stb %0, $r0, #6",
        "= ldw $r0, @g+8",
        "= ldw $r12, f0+4",
        "frame f0 size 8 align 4 local \"buf\"",
    ] {
        assert!(text.contains(want), "missing `{want}` in\n{text}");
    }
    assert!(text.contains(", f0+4"), "{text}");
}

#[test]
fn calls_pin_arguments_and_pass_extras_on_the_stack() {
    let src = "
        func @g(%0: i32, %1: i32, %2: i32, %3: i32, %4: i32, %5: i32, %6: i32, %7: i32, %8: i32, %9: i32) -> i32 {
        b0:
          %10: i32 = add %8, %9
          ret %10
        }
        func @f(%0: i32) -> i32 {
        b0:
          %1: i32 = call @g(%0, %0, %0, %0, %0, %0, %0, %0, %0, %0)
          ret %1
        }";
    let g = select(src, "g");
    let gt = g.to_string();
    assert!(gt.contains("frame f0 size 4 align 4 incoming 0"), "{gt}");
    assert!(gt.contains("frame f1 size 4 align 4 incoming 1"), "{gt}");
    assert!(gt.contains("= ldw $r12, f1"), "{gt}");
    assert!(gt.contains("%7:r^$r23 = .input"), "{gt}");
    let f = select(src, "f");
    let ft = f.to_string();
    assert_eq!(f.frame.outgoing_size, 24, "{ft}");
    assert!(ft.contains("stw $r12, %0, #16"), "{ft}");
    assert!(ft.contains("stw $r12, %0, #20"), "{ft}");
    assert!(ft.contains("^$r16 = call %0^$r16, "), "{ft}");
    assert!(ft.contains("^$r23, fn @g"), "{ft}");
    // The repeated argument is copied so that no value is pinned twice in one call.
    let call = f.blocks[0]
        .insts
        .iter()
        .find(|i| i.opc == Opc::St231(O::Call))
        .unwrap();
    let mut regs: Vec<_> = call.uses.iter().map(|u| u.reg).collect();
    regs.sort();
    regs.dedup();
    assert_eq!(regs.len(), 8, "{ft}");
    assert!(call
        .uses
        .iter()
        .enumerate()
        .all(|(k, u)| matches!(u.pin, Some(Pin::Phys(p)) if p.num == 16 + k as u8)));
}

#[test]
fn division_by_power_of_two_is_inline_and_general_division_calls_runtime() {
    let src = "
        func @__ssalab_divs(%0: i32, %1: i32) -> i32 {
        b0:
          ret %0
        }
        func @f(%0: i32, %1: i32) -> i32 {
        b0:
          %2: i32 = const 8
          %3: i32 = divs %0, %2
          %4: i32 = rems %0, %2
          %5: i32 = divu %0, %2
          %6: i32 = remu %0, %2
          %7: i32 = divs %0, %1
          %8: i32 = add %3, %4
          %9: i32 = add %5, %6
          %10: i32 = add %8, %9
          %11: i32 = add %10, %7
          ret %11
        }";
    let f = select(src, "f");
    let text = f.to_string();
    assert!(text.contains("shru %0, #3"), "{text}");
    assert!(text.contains("and %0, #7"), "{text}");
    assert!(text.contains("shr %0, #31"), "{text}");
    assert!(text.contains("shru %") && text.contains(", #29"), "{text}");
    assert!(text.contains("fn @__ssalab_divs"), "{text}");
    assert!(f.frame.outgoing_size >= 16);
    let e = select_err(
        "func @f(%0: i32, %1: i32) -> i32 {
         b0:
           %2: i32 = remu %0, %1
           ret %2
         }",
        "f",
    );
    assert!(e.contains("__ssalab_modu"), "{e}");
}

#[test]
fn builtins_become_syscalls() {
    let f = select(
        "global @s size 8 align 1 const = x\"6869257825730a00\"
         global @t size 4 align 1 = x\"41420000\"
         func @f(%0: i32) -> i32 {
         b0:
           call @print_int(%0)
           call @print_char(%0)
           %1: i32 = call @putchar(%0)
           %2: ptr = addr @s
           %3: ptr = addr @t
           call @printf(%2, %0, %3)
           call @exit(%1)
           ret %1
         }",
        "f",
    );
    let text = f.to_string();
    assert!(text.contains("syscall %0^$r16, #2"), "{text}");
    assert!(text.contains("syscall %0^$r16, #3"), "{text}");
    assert!(text.contains("= and %0, #255"), "{text}");
    // "hi" is one write of two bytes from the string itself.
    assert!(text.contains("add $r0, @s\n"), "{text}");
    assert!(text.contains("^$r17, #4"), "{text}");
    // %x and %s loops split the block: more MIR blocks than IR blocks.
    assert!(f.blocks.len() > 1, "{text}");
    assert!(text.contains("clz %0"), "{text}");
    assert!(text.contains("ldbu %"), "{text}");
    assert!(text.contains("#1\n"), "{text}");
}

#[test]
fn unknown_callee_and_bad_printf_are_errors() {
    let e = select_err(
        "func @f() {
         b0:
           call @frobnicate()
           ret
         }",
        "f",
    );
    assert!(e.contains("frobnicate"), "{e}");
    let e = select_err(
        "global @s size 4 align 1 const = x\"25356400\"
         func @f() {
         b0:
           %0: ptr = addr @s
           %1: i32 = const 3
           call @printf(%0, %1)
           ret
         }",
        "f",
    );
    // `%5d` needs the runtime's formatting routine, absent from this bare module.
    assert!(e.contains("__ssalab_printf_int"), "{e}");
}

#[test]
fn phis_keep_predecessors_and_unreachable_exits() {
    let f = select(
        "func @f(%0: i32) -> i32 {
         b0:
           br %0, b1, b3
         b1:
           %1: i32 = const 3
           jmp b3
         b2:
           unreachable
         b3:
           %2: i32 = phi [b1: %1], [b0: %0]
           ret %2
         }",
        "f",
    );
    let text = f.to_string();
    assert!(text.contains("= phi [b1: %"), "{text}");
    assert!(text.contains("[b0: %0]"), "{text}");
    assert!(text.contains("syscall %"), "{text}");
    assert!(text.contains("#1\n  goto b2"), "{text}");
}

#[test]
fn printf_of_a_literal_string_argument_is_text() {
    let f = select(
        "global @s size 4 align 1 const = x\"257300\"
         global @w size 6 align 1 const = x\"776f726c6400\"
         func @f() {
         b0:
           %0: ptr = addr @s
           %1: ptr = addr @w+1
           call @printf(%0, %1)
           ret
         }",
        "f",
    );
    let text = f.to_string();
    // "orld" is written straight from the string: no loop, one write of 4 bytes.
    assert_eq!(f.blocks.len(), 1, "{text}");
    assert!(text.contains("add $r0, @w+1"), "{text}");
    assert!(text.contains("add $r0, #4"), "{text}");
    assert!(text.contains("#4\n"), "{text}");
}

#[test]
fn undefined_value_is_an_error() {
    let e = select_err(
        "func @f() -> i32 {
         b0:
           ret %7
         }",
        "f",
    );
    assert!(
        e.contains("never defined") || e.contains("out of range"),
        "{e}"
    );
}
