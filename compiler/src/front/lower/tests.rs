//! Lowering tests: the shape of the IR the front end produces (register or stack slot per
//! variable, extensions of narrow values, select, switch dispatch, string deduplication,
//! dropping of unused static functions, struct copies).

use crate::front::{compile_source_to_ir, FrontOptions};
use crate::ir::{Function, MemTy, Module, Op, UnOp};

fn compile(src: &str) -> Module {
    compile_source_to_ir("t.c", src, &FrontOptions::default())
        .unwrap_or_else(|d| panic!("{}", d.render()))
}

fn func<'m>(m: &'m Module, name: &str) -> &'m Function {
    m.function(name)
        .unwrap_or_else(|| panic!("no function {name}"))
}

fn count(f: &Function, pred: impl Fn(&Op) -> bool) -> usize {
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| pred(&i.op))
        .count()
}

#[test]
fn registers_for_plain_locals_slots_for_the_rest() {
    let m = compile(
        "void use(int *p);
         int f(int a) { int x = a + 1, y = 2; int arr[4]; int z = 3; use(&z); arr[0] = x; return x + y + z + arr[0]; }
         void use(int *p) { *p = 1; }",
    );
    let f = func(&m, "f");
    // arr and z are in memory; a, x, y are registers.
    assert_eq!(f.slots.len(), 2, "{f}");
    assert_eq!(f.slots[0].size, 16);
    assert_eq!(f.slots[1].size, 4);
    assert_eq!(f.params.len(), 1);
}

#[test]
fn narrow_variables_stay_extended() {
    let m = compile("int f(int a) { char c = a; unsigned short u = a; c += 1; return c + u; }");
    let f = func(&m, "f");
    assert_eq!(count(f, |o| matches!(o, Op::Un(UnOp::Sext8, _))), 2, "{f}");
    assert_eq!(count(f, |o| matches!(o, Op::Un(UnOp::Zext16, _))), 1, "{f}");
    // Loads of narrow memory extend by their width instead.
    let m = compile("char g[4]; int h(int i) { return g[i]; }");
    let h = func(&m, "h");
    assert_eq!(
        count(h, |o| matches!(o, Op::Load { ty: MemTy::I8, .. })),
        1,
        "{h}"
    );
    assert_eq!(count(h, |o| matches!(o, Op::Un(..))), 0, "{h}");
}

#[test]
fn cheap_conditionals_become_select() {
    let m = compile(
        "int f(int a, int b) { return a < b ? a : b; } int g(int a) { return a ? a * 2 : 7; }",
    );
    assert_eq!(count(func(&m, "f"), |o| matches!(o, Op::Select(..))), 1);
    assert_eq!(count(func(&m, "g"), |o| matches!(o, Op::Select(..))), 0);
    assert!(func(&m, "g").blocks.len() >= 3);
}

#[test]
fn switch_dispatch_shapes() {
    let few = compile("int f(int x) { switch (x) { case 1: return 1; case 5: return 2; case 9: return 3; } return 0; }");
    let cmp_lt = |f: &Function| {
        count(f, |o| {
            matches!(
                o,
                Op::Cmp(crate::ir::CmpOp::LtS | crate::ir::CmpOp::LtU, ..)
            )
        })
    };
    assert_eq!(cmp_lt(func(&few, "f")), 0);
    let many = compile(
        "int f(unsigned x) { switch (x) { case 1: return 1; case 5: return 2; case 9: return 3;
           case 20: return 4; case 30: return 5; case 40: return 6; case 50: return 7; } return 0; }",
    );
    let f = func(&many, "f");
    assert!(cmp_lt(f) >= 1, "{f}");
    assert_eq!(
        count(f, |o| matches!(o, Op::Cmp(crate::ir::CmpOp::LtS, ..))),
        0,
        "unsigned switch uses unsigned order"
    );
}

#[test]
fn strings_are_shared_and_read_only() {
    let m = compile("int printf(const char *, ...); int main(void) { printf(\"abc\"); printf(\"abc\"); printf(\"d\"); return 0; }");
    let strs: Vec<_> = m
        .globals
        .iter()
        .filter(|g| g.name.starts_with(".str."))
        .collect();
    assert_eq!(strs.len(), 2);
    assert!(strs.iter().all(|g| g.readonly && g.align == 1));
    assert_eq!(strs[0].init, b"abc\0");
}

#[test]
fn unused_static_functions_and_objects_are_dropped() {
    let m = compile(
        "static int unused(void) { return 1; }
         static int used(void) { return 2; }
         static int table[4] = {1, 2, 3, 4};
         static int dead_table[4] = {1};
         int exported(void) { return 3; }
         int main(void) { return used() + table[1]; }",
    );
    let names: Vec<&str> = m.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["used", "exported", "main"]);
    assert!(m.global("table").is_some());
    assert!(m.global("dead_table").is_none());
}

#[test]
fn struct_copies_by_words_or_loop() {
    let m = compile(
        "struct s3 { int a, b, c; }; struct big { int v[50]; }; struct h { short a; char b; };
         struct s3 x, y; struct big p, q; struct h r, t;
         void f(void) { x = y; } void g(void) { p = q; } void k(void) { r = t; }",
    );
    let f = func(&m, "f");
    assert_eq!(
        count(f, |o| matches!(o, Op::Load { ty: MemTy::I32, .. })),
        3,
        "{f}"
    );
    assert_eq!(
        count(f, |o| matches!(o, Op::Store { ty: MemTy::I32, .. })),
        3
    );
    let g = func(&m, "g");
    assert_eq!(count(g, |o| matches!(o, Op::Load { .. })), 1, "a loop: {g}");
    assert!(g.blocks.len() >= 2);
    let k = func(&m, "k");
    assert_eq!(
        count(k, |o| matches!(o, Op::Load { ty: MemTy::U16, .. })),
        2,
        "{k}"
    );
}

#[test]
fn entry_block_is_never_a_target() {
    let m =
        compile("int f(int n) { top: if (n > 0) { n--; goto top; } while (n < 5) n++; return n; }");
    let f = func(&m, "f");
    for b in &f.blocks {
        assert!(!b.term.successors().into_iter().any(|s| s.0 == 0), "{f}");
    }
}

#[test]
fn volatile_accesses_are_marked() {
    let m = compile("int f(void) { volatile int v = 1; v += 2; return v; }");
    let f = func(&m, "f");
    assert_eq!(f.slots.len(), 1);
    assert_eq!(
        count(f, |o| matches!(o, Op::Load { volatile: true, .. })),
        2,
        "{f}"
    );
    assert_eq!(
        count(f, |o| matches!(o, Op::Store { volatile: true, .. })),
        2,
        "{f}"
    );
}

#[test]
fn sizeof_operands_take_no_address_and_need_no_definition() {
    let m = compile("extern int nowhere[10]; int f(int a) { return sizeof(&a) + sizeof nowhere; }");
    let f = func(&m, "f");
    assert!(f.slots.is_empty(), "{f}");
    assert_eq!(count(f, |o| matches!(o, Op::Load { .. })), 0);
}
