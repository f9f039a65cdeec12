//! Unit tests of ST120 instruction selection on small IR functions and C snippets: the shapes
//! of the selected code (pins, tied operands, guards, psis, ABI) and, through the
//! machine-level interpreter, agreement with the reference interpreter.

use super::*;
use crate::mir::{Reg, SymPart};

fn parse(text: &str) -> ir::Module {
    ir::parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn select_one(m: &ir::Module, name: &str, opts: &IselOptions) -> (mir::Function, Stats) {
    let f = m.function(name).expect("function");
    let (mf, st) = select_function_with_stats(m, f, opts).unwrap_or_else(|e| panic!("{e}"));
    let errs = mir::verify::verify_function(&mf, mir::verify::Form::Ssa);
    assert!(errs.is_empty(), "{}\n{mf}", errs[0]);
    (mf, st)
}

fn insts(f: &mir::Function) -> Vec<&Inst> {
    f.blocks.iter().flat_map(|b| &b.insts).collect()
}

fn find<'f>(f: &'f mir::Function, name: &str) -> Vec<&'f Inst> {
    insts(f)
        .into_iter()
        .filter(|i| mir::print::opc_name(i.opc) == name)
        .collect()
}

fn phys(c: RegClass, n: u8) -> Pin {
    Pin::Phys(PReg::new(c, n))
}

/// Runs the module with both interpreters and returns the machine-level output.
fn run_both(m: &ir::Module, opts: &IselOptions) -> String {
    let want = crate::interp::run(m, "main", &Default::default()).expect("loads");
    assert!(want.trap.is_none(), "{:?}", want.trap);
    let mm = crate::isel::select_module(m, Target::St120, opts).unwrap_or_else(|e| panic!("{e}"));
    for f in &mm.functions {
        let errs = mir::verify::verify_function(f, mir::verify::Form::Ssa);
        assert!(errs.is_empty(), "{}\n{f}", errs[0]);
    }
    let got = mir::interp::run_module(&mm, "main", &Default::default())
        .unwrap_or_else(|t| panic!("{t}\n{mm}"));
    assert_eq!(
        String::from_utf8_lossy(&got.output),
        String::from_utf8_lossy(&want.output)
    );
    assert_eq!(got.exit_code, want.exit_code);
    String::from_utf8(got.output).expect("text")
}

/// C source → SSA IR at -O0 or -O2, with the runtime routines appended.
fn from_c(src: &str, opt: crate::pipeline::OptLevel) -> ir::Module {
    let mut m = crate::front::compile_source_to_ir("t.c", src, &Default::default())
        .unwrap_or_else(|d| panic!("{}", d.render()));
    let passes = crate::pipeline::mid_level_passes(opt);
    crate::pipeline::run_passes(&mut m, &passes, &mut |_, _| Ok(())).expect("passes");
    crate::backend::add_runtime(&mut m, opt).expect("runtime");
    m
}

fn both_levels(src: &str) -> String {
    let a = run_both(
        &from_c(src, crate::pipeline::OptLevel::O0),
        &IselOptions::default(),
    );
    let b = run_both(
        &from_c(src, crate::pipeline::OptLevel::O2),
        &IselOptions::default(),
    );
    assert_eq!(a, b);
    a
}

#[test]
fn make_more_is_tied_like_rastello_fig2() {
    let m = parse(
        "func @k() -> i32 {\nb0:\n  %0:i32 = const 10562554\n  ret %0\n}\n", // 0x00A12BFA
    );
    let (f, _) = select_one(&m, "k", &IselOptions::default());
    let make = find(&f, "MAKE");
    let more = find(&f, "MORE");
    assert_eq!((make.len(), more.len()), (1, 1), "{f}");
    assert_eq!(make[0].imm, Imm::Int(0x00A1));
    assert_eq!(more[0].imm, Imm::Int(0x2BFA));
    let d = more[0].defs[0].vreg().unwrap();
    assert_eq!(more[0].uses[0].reg, make[0].defs[0].reg);
    assert_eq!(more[0].uses[0].pin, Some(Pin::Var(d)));
    let out = find(&f, ".output");
    assert_eq!(out[0].uses[0].reg, Reg::V(d));
    assert_eq!(out[0].uses[0].pin, Some(phys(RegClass::R, 0)));
}

/// Rastello et al. Fig. 2 as IR: `.input C, P`; two loads through `P++`; a call with two
/// arguments; `F = C + D - 0x00A12BFA`; `.output F`.
const FIG2: &str = "
func @f(%0:i32, %1:i32) -> i32 {
b0:
  %2:i32 = sub %0, %1
  ret %2
}
func @fig2(%0:i32, %1:ptr) -> i32 {
b0:
  %2:i32 = load.i32 %1
  %3:i32 = const 4
  %4:ptr = add %1, %3
  %5:i32 = load.i32 %4
  %6:i32 = call @f(%2, %5)
  %7:i32 = add %0, %6
  %8:i32 = const 10562554
  %9:i32 = sub %7, %8
  ret %9
}
global @buf size 8 align 4 = x\"0700000002000000\"
func @main() -> i32 {
b0:
  %0:ptr = addr @buf+0
  %1:i32 = const 100
  %2:i32 = call @fig2(%1, %0)
  call @print_int(%2)
  ret %2
}
";

#[test]
fn rastello_fig2_pins() {
    let m = parse(FIG2);
    let (f, st) = select_one(&m, "fig2", &IselOptions::default());
    assert_eq!(st.post_increments, 1, "{f}");
    let input = find(&f, ".input");
    assert_eq!(input[0].defs[0].pin, Some(phys(RegClass::R, 0)));
    assert_eq!(input[0].defs[1].pin, Some(phys(RegClass::P, 0)));
    let post = find(&f, "LDW!+i");
    assert_eq!(post.len(), 1, "{f}");
    assert_eq!(post[0].imm, Imm::Int(1), "one word");
    let q = post[0].defs[1].vreg().unwrap();
    assert_eq!(post[0].uses[0].pin, Some(Pin::Var(q)));
    assert_eq!(post[0].uses[0].reg, input[0].defs[1].reg);
    // The second load goes through the incremented pointer.
    let plain = find(&f, "LDW+i");
    assert_eq!(plain[0].uses[0].reg, Reg::V(q));
    let call = find(&f, "CALL");
    assert_eq!(call[0].imm, Imm::Func("f".into()));
    assert_eq!(call[0].uses[0].pin, Some(phys(RegClass::R, 0)));
    assert_eq!(call[0].uses[1].pin, Some(phys(RegClass::R, 1)));
    assert_eq!(call[0].defs[0].pin, Some(phys(RegClass::R, 0)));
    assert_eq!(find(&f, "MORE").len(), 1);
    // 100 + (7 - 2) - 0x00A12BFA
    assert_eq!(
        run_both(&m, &IselOptions::default()),
        (105 - 0x00A1_2BFA).to_string()
    );
    let off = IselOptions {
        if_convert: false,
        post_increment: false,
    };
    let (f, st) = select_one(&m, "fig2", &off);
    assert_eq!(st.post_increments, 0);
    assert!(find(&f, "LDW!+i").is_empty());
    run_both(&m, &off);
}

#[test]
fn post_increment_keeps_the_old_pointer_alive() {
    // p1 is used after the increment: SSA keeps both values (out-of-SSA adds the copy).
    let m = parse(
        "
global @a size 12 align 4 = x\"0b0000001600000021000000\"
func @main() -> i32 {
b0:
  %0:ptr = addr @a+0
  %1:i32 = const 8
  %2:ptr = add %0, %1
  %3:i32 = load.i16 %0
  %4:i32 = load.i32 %2
  %5:i32 = load.i32 %0
  %6:i32 = add %3, %4
  %7:i32 = add %6, %5
  call @print_int(%7)
  ret %7
}
",
    );
    let (f, st) = select_one(&m, "main", &IselOptions::default());
    assert_eq!(st.post_increments, 1, "{f}");
    let post = find(&f, "LDH!+i");
    assert_eq!(post[0].imm, Imm::Int(4), "8 bytes = 4 halfwords");
    assert_eq!(run_both(&m, &IselOptions::default()), "55");
}

#[test]
fn post_increment_after_the_add_only_without_uses_between() {
    // The access after the add cannot fold: %2 is used by the store in between.
    let m = parse(
        "
global @a size 16 align 4 = zero
global @q size 4 align 4 = zero
func @main() -> i32 {
b0:
  %0:ptr = addr @a+0
  %1:i32 = const 4
  %2:ptr = add %0, %1
  %3:ptr = addr @q+0
  store.i32 %3, %2
  %4:i32 = const 9
  store.i32 %0, %4
  %5:ptr = load.i32 %3
  %6:i32 = load.i32 %0
  call @print_int(%6)
  %7:i32 = load.i32 %5
  call @print_int(%7)
  ret %6
}
",
    );
    let (f, st) = select_one(&m, "main", &IselOptions::default());
    assert_eq!(st.post_increments, 0, "{f}");
    assert_eq!(run_both(&m, &IselOptions::default()), "90");
}

#[test]
fn branches_are_taken_on_false() {
    let m = parse(
        "
func @max(%0:i32, %1:i32) -> i32 {
b0:
  %2:i32 = cmp.lt %0, %1
  br %2, b1, b2
b1:
  call @print_int(%1)
  ret %1
b2:
  ret %0
}
func @main() -> i32 {
b0:
  %0:i32 = const 3
  %1:i32 = const -4
  %2:i32 = call @max(%0, %1)
  %3:i32 = call @max(%1, %0)
  ret %3
}
",
    );
    let (f, _) = select_one(&m, "max", &IselOptions::default());
    let b0 = &f.blocks[0].insts;
    let n = b0.len();
    assert_eq!(mir::print::opc_name(b0[n - 3].opc), "LTW");
    let br = &b0[n - 2];
    assert_eq!(br.opc, Opc::St120(O::GotoF));
    assert_eq!(br.guard().unwrap().reg, b0[n - 3].defs[0].reg);
    // False goes to the else block (no print), true to the then block (print_int).
    let has_trap = |b: &Imm| match b {
        Imm::Block(b) => f
            .block(*b)
            .insts
            .iter()
            .any(|i| i.opc == Opc::St120(O::Trap)),
        _ => panic!("not a block"),
    };
    assert!(!has_trap(&br.imm), "{f}");
    assert_eq!(b0[n - 1].opc, Opc::St120(O::Goto));
    assert!(has_trap(&b0[n - 1].imm), "{f}");
    assert_eq!(run_both(&m, &IselOptions::default()), "3");
}

#[test]
fn arguments_follow_the_callee_types_and_spill_to_the_stack() {
    // 5 ints and 4 pointers, interleaved: R0..R3 + stack 0, P0..P2 + stack 1.
    let src = "
int g(int a, int *p, int b, int *q, int c, int *r, int d, int *s, int e) {
    return a + 2 * *p + 3 * b + 4 * *q + 5 * c + 6 * *r + 7 * d + 8 * *s + 9 * e;
}
void print_int(int);
int main(void) {
    int x = 10, y = 20, z = 30, w = 40;
    int v = g(1, &x, 2, &y, 3, &z, 4, &w, 5);
    print_int(v);
    return 0;
}
";
    let m = from_c(src, crate::pipeline::OptLevel::O2);
    let (g, _) = select_one(&m, "g", &IselOptions::default());
    let input = find(&g, ".input")[0];
    let pins: Vec<_> = input.defs.iter().map(|d| d.pin).collect();
    use RegClass::{P, R};
    assert_eq!(
        pins,
        vec![
            Some(phys(R, 0)),
            Some(phys(P, 0)),
            Some(phys(R, 1)),
            Some(phys(P, 1)),
            Some(phys(R, 2)),
            Some(phys(P, 2)),
            Some(phys(R, 3)),
        ]
    );
    let incoming: Vec<_> = g
        .frame
        .objects
        .iter()
        .map(|o| o.kind)
        .filter(|k| matches!(k, mir::FrameKind::IncomingArg(_)))
        .collect();
    assert_eq!(
        incoming,
        vec![
            mir::FrameKind::IncomingArg(0),
            mir::FrameKind::IncomingArg(1)
        ]
    );
    assert_eq!(
        find(&g, "LAW+i").len(),
        1,
        "the pointer from the stack: {g}"
    );
    let (mf, _) = select_one(&m, "main", &IselOptions::default());
    assert_eq!(mf.frame.outgoing_size, 8);
    let stores: Vec<_> = find(&mf, "SAW+i")
        .into_iter()
        .chain(find(&mf, "SDW+i"))
        .filter(|i| i.uses[0].reg == Reg::P(Selector::sp()))
        .map(|i| i.imm.clone())
        .collect();
    assert!(
        stores.contains(&Imm::Int(0)) && stores.contains(&Imm::Int(1)),
        "{mf}"
    );
    let out = run_both(&m, &IselOptions::default());
    assert_eq!(
        out,
        (1 + 20 + 6 + 80 + 15 + 180 + 28 + 320 + 45).to_string()
    );
}

#[test]
fn select_is_two_compares_two_guarded_moves_and_a_psi() {
    let m = parse(
        "
func @sel(%0:i32, %1:i32) -> i32 {
b0:
  %2:i32 = cmp.gt %0, %1
  %3:i32 = const 70000
  %4:i32 = select %2, %0, %3
  ret %4
}
func @main() -> i32 {
b0:
  %0:i32 = const 5
  %1:i32 = const 6
  %2:i32 = call @sel(%0, %1)
  call @print_int(%2)
  %3:i32 = call @sel(%1, %0)
  call @print_int(%3)
  ret %3
}
",
    );
    let (f, st) = select_one(&m, "sel", &IselOptions::default());
    assert_eq!(st.psis, 1);
    let (gt, le) = (find(&f, "GTW"), find(&f, "LEW"));
    assert_eq!((gt.len(), le.len()), (1, 1), "{f}");
    let psi = find(&f, "psi")[0];
    assert_eq!(psi.uses[0].reg, gt[0].defs[0].reg);
    assert_eq!(psi.uses[2].reg, le[0].defs[0].reg);
    let mv = find(&f, "MOVE")[0];
    assert!(mv.flags.contains(InstFlags::GUARDED) && mv.guard().unwrap().reg == psi.uses[0].reg);
    // The constant: guarded MAKE + MORE under the opposite guard.
    for i in find(&f, "MAKE").into_iter().chain(find(&f, "MORE")) {
        assert_eq!(i.guard().unwrap().reg, psi.uses[2].reg);
    }
    assert_eq!(run_both(&m, &IselOptions::default()), "700006");
}

const DIAMOND: &str = "
func @clip(%0:i32) -> i32 {
b0:
  %1:i32 = const 100
  %2:i32 = cmp.gt %0, %1
  br %2, b1, b2
b1:
  %3:i32 = const 3
  %4:i32 = shl %0, %3
  jmp b3
b2:
  %5:i32 = neg %0
  jmp b3
b3:
  %6:i32 = phi [b1: %4], [b2: %5]
  %7:i32 = phi [b1: %1], [b2: %0]
  %8:i32 = add %6, %7
  ret %8
}
func @tri(%0:i32) -> i32 {
b0:
  %1:i32 = const 0
  %2:i32 = cmp.lt %0, %1
  br %2, b1, b2
b1:
  %3:i32 = neg %0
  jmp b2
b2:
  %4:i32 = phi [b0: %0], [b1: %3]
  ret %4
}
func @main() -> i32 {
b0:
  %0:i32 = const 101
  %1:i32 = call @clip(%0)
  call @print_int(%1)
  %2:i32 = const -7
  %3:i32 = call @clip(%2)
  call @print_int(%3)
  %4:i32 = call @tri(%2)
  call @print_int(%4)
  %5:i32 = call @tri(%0)
  call @print_int(%5)
  ret %5
}
";

#[test]
fn diamonds_and_triangles_become_guarded_code() {
    let m = parse(DIAMOND);
    let (f, st) = select_one(&m, "clip", &IselOptions::default());
    assert_eq!((st.if_conversions, st.psis), (1, 2), "{f}");
    assert_eq!(f.blocks.len(), 1, "head, arms and join merged: {f}");
    let (gt, le) = (find(&f, "GTW.i"), find(&f, "LEW.i"));
    assert_eq!((gt.len(), le.len()), (1, 1), "{f}");
    let shl = find(&f, "SHL.i")[0];
    assert_eq!(shl.guard().unwrap().reg, gt[0].defs[0].reg);
    let neg = find(&f, "NEG")[0];
    assert_eq!(neg.guard().unwrap().reg, le[0].defs[0].reg);
    for psi in find(&f, "psi") {
        assert_eq!(psi.uses[0].reg, gt[0].defs[0].reg);
        assert_eq!(psi.uses[2].reg, le[0].defs[0].reg);
    }
    let (t, st) = select_one(&m, "tri", &IselOptions::default());
    assert_eq!(st.if_conversions, 1);
    let psi = find(&t, "psi")[0];
    assert_eq!(psi.uses[0].reg, Reg::P(Selector::g15()), "{t}");
    assert!(
        find(&t, "GEW.i").is_empty(),
        "a triangle needs one guard: {t}"
    );
    assert_eq!(find(&t, "LTW.i").len(), 1, "{t}");
    assert_eq!(run_both(&m, &IselOptions::default()), "90807101");
    let off = IselOptions {
        if_convert: false,
        post_increment: true,
    };
    let (f, st) = select_one(&m, "clip", &off);
    assert_eq!((st.if_conversions, st.psis), (0, 0));
    assert_eq!(f.blocks.len(), 4);
    run_both(&m, &off);
}

#[test]
fn symbols_slots_and_cross_file_conversions() {
    let m = parse(
        "
global @g size 8 align 4 = x\"0500000006000000\"
func @main() -> i32 {
  slot s0 size 8 align 4 \"buf\"
b0:
  %0:ptr = slot s0
  %1:ptr = addr @g+4
  %2:i32 = load.i32 %1
  %3:i32 = const 4
  %4:ptr = add %0, %3
  store.i32 %4, %2
  %5:i32 = load.i32 %4
  %6:ptr = addr @g+0
  %7:i32 = sub %1, %6
  %8:i32 = add %5, %7
  call @print_int(%8)
  ret %8
}
",
    );
    let (f, _) = select_one(&m, "main", &IselOptions::default());
    let makea = find(&f, "MAKEA");
    assert!(makea.iter().all(|i| matches!(
        i.imm,
        Imm::Sym {
            part: SymPart::Hi16,
            ..
        }
    )));
    let morea = find(&f, "MOREA");
    assert!(morea.iter().all(|i| matches!(
        i.imm,
        Imm::Sym {
            part: SymPart::Lo16,
            ..
        }
    )));
    // The slot access folds into @(P15 + f0+4).
    let st = find(&f, "SDW+i")[0];
    assert_eq!(st.uses[0].reg, Reg::P(Selector::sp()));
    assert_eq!(
        st.imm,
        Imm::Frame {
            idx: mir::FrameIdx(0),
            offset: 4
        }
    );
    assert_eq!(find(&f, "COPYD").len(), 1, "pointer difference: {f}");
    assert_eq!(run_both(&m, &IselOptions::default()), "10");
}

#[test]
fn offsets_fold_only_when_aligned_and_in_range() {
    let m = parse(
        "
global @big size 4096 align 4 = zero
func @main() -> i32 {
b0:
  %0:ptr = addr @big+0
  %1:i32 = const 2044
  %2:ptr = add %0, %1
  %3:i32 = const 77
  store.i32 %2, %3
  %4:i32 = const 2048
  %5:ptr = add %0, %4
  store.i32 %5, %3
  %6:i32 = const 1
  %7:ptr = add %0, %6
  store.i8 %7, %3
  %8:i32 = load.i32 %2
  %9:i32 = load.i32 %5
  %10:i32 = load.u8 %7
  %11:i32 = add %8, %9
  %12:i32 = add %11, %10
  call @print_int(%12)
  ret %12
}
",
    );
    let (f, _) = select_one(&m, "main", &IselOptions::default());
    let imms: Vec<_> = find(&f, "SDW+i").iter().map(|i| i.imm.clone()).collect();
    assert!(imms.contains(&Imm::Int(511)), "2044 bytes = 511 words: {f}");
    assert!(imms.contains(&Imm::Int(0)), "2048 bytes is computed: {f}");
    assert_eq!(find(&f, "SDB+i")[0].imm, Imm::Int(1));
    assert_eq!(run_both(&m, &IselOptions::default()), "231");
}

#[test]
fn multiply_edge_values_and_16_bit_products() {
    let src = "
void print_int(int);
void print_char(int);
int vals[14] = {0, 1, -1, 2, -2, 255, 256, 32767, -32768, 65535, 65536, 0x12345678,
                2147483647, -2147483647 - 1};
short sh[5] = {0, 1, -1, 32767, -32768};
unsigned short us[4] = {0, 1, 65535, 32768};
int main(void) {
    int i, j;
    for (i = 0; i < 14; i++)
        for (j = 0; j < 14; j++) {
            print_int(vals[i] * vals[j]);
            print_char(' ');
        }
    for (i = 0; i < 5; i++)
        for (j = 0; j < 4; j++) {
            print_int(sh[i] * sh[j % 5]);
            print_char(' ');
            print_int(sh[i] * us[j]);
            print_char(' ');
            print_int(us[j] * us[3 - j]);
            print_char(' ');
        }
    return 0;
}
";
    let m = from_c(src, crate::pipeline::OptLevel::O2);
    let (f, _) = select_one(&m, "main", &IselOptions::default());
    assert!(!find(&f, "MPSSLL").is_empty(), "{f}");
    assert!(!find(&f, "MPSULL").is_empty(), "{f}");
    assert!(!find(&f, "MPUULL").is_empty(), "{f}");
    assert!(!find(&f, "MAUULL").is_empty(), "{f}");
    both_levels(src);
}

/// Signed division and remainder by constant powers of two are inline (biased shifts), and
/// round toward zero on negative dividends like C.
#[test]
fn signed_division_by_powers_of_two_is_inline_and_exact() {
    let src = "
void print_int(int);
void print_char(int);
int vals[12] = {0, 1, -1, 7, -7, 8, -8, 255, -256, 0x12345678, 2147483647, -2147483647 - 1};
int main(void) {
    int i;
    for (i = 0; i < 12; i++) {
        int v = vals[i];
        print_int(v / 2); print_char(' '); print_int(v % 2); print_char(' ');
        print_int(v / 8); print_char(' '); print_int(v % 8); print_char(' ');
        print_int(v / 1024); print_char(' '); print_int(v % 1024); print_char(' ');
        print_int(v / 1073741824); print_char(' '); print_int(v % 1073741824);
        print_char('\\n');
    }
    return 0;
}
";
    let out = both_levels(src);
    let mut want = String::new();
    for v in [
        0i32,
        1,
        -1,
        7,
        -7,
        8,
        -8,
        255,
        -256,
        0x12345678,
        i32::MAX,
        i32::MIN,
    ] {
        for d in [2, 8, 1024, 1 << 30] {
            want += &format!("{} {}", v / d, v % d);
            want += if d == 1 << 30 { "\n" } else { " " };
        }
    }
    assert_eq!(out, want);
    let m = from_c(src, crate::pipeline::OptLevel::O2);
    let (f, _) = select_one(&m, "main", &IselOptions::default());
    assert!(
        !f.to_string().contains(crate::isel::RUNTIME_DIVS)
            && !f.to_string().contains(crate::isel::RUNTIME_MODS),
        "{f}"
    );
}

#[test]
fn shifts_division_and_logic_on_edge_values() {
    let src = "
void print_int(int);
void print_char(int);
int vals[10] = {0, 1, -1, 7, -7, 255, -256, 0x12345678, 2147483647, -2147483647 - 1};
int main(void) {
    int i, j;
    for (i = 0; i < 10; i++) {
        for (j = 0; j < 32; j += 5) {
            print_int(vals[i] << j); print_char(' ');
            print_int(vals[i] >> j); print_char(' ');
            print_int((int)((unsigned)vals[i] >> j)); print_char(' ');
        }
        for (j = 0; j < 10; j++) {
            if (vals[j] != 0 && !(vals[i] == -2147483647 - 1 && vals[j] == -1)) {
                print_int(vals[i] / vals[j]); print_char(' ');
                print_int(vals[i] % vals[j]); print_char(' ');
                print_int((int)((unsigned)vals[i] / (unsigned)vals[j])); print_char(' ');
                print_int((int)((unsigned)vals[i] % (unsigned)vals[j])); print_char(' ');
            }
            print_int(vals[i] & vals[j]); print_int(vals[i] | vals[j]);
            print_int(vals[i] ^ vals[j]); print_int(~vals[i]); print_int(-vals[j]);
            print_int(vals[i] < vals[j]); print_int((unsigned)vals[i] < (unsigned)vals[j]);
            print_int(vals[i] == vals[j]); print_int(vals[i] >= vals[j]);
            print_char('\\n');
        }
        print_int((unsigned)vals[i] / 8u); print_int((unsigned)vals[i] % 1024u);
        print_int((signed char)vals[i]); print_int((unsigned char)vals[i]);
        print_int((short)vals[i]); print_int((unsigned short)vals[i]);
    }
    return 0;
}
";
    both_levels(src);
}

#[test]
fn register_shift_amounts_wrap_like_the_ir() {
    let m = parse(
        "
func @main() -> i32 {
b0:
  %0:i32 = const -1000
  %1:i32 = const 33
  %2:i32 = call @id(%1)
  %3:i32 = shl %0, %2
  %4:i32 = shrs %0, %2
  %5:i32 = shru %0, %2
  %6:i32 = const 32
  %7:i32 = call @id(%6)
  %8:i32 = shru %0, %7
  call @print_int(%3)
  call @print_int(%4)
  call @print_int(%5)
  call @print_int(%8)
  ret %8
}
func @id(%0:i32) -> i32 {
b0:
  ret %0
}
",
    );
    assert_eq!(
        run_both(&m, &IselOptions::default()),
        format!(
            "{}{}{}{}",
            -2000,
            -500,
            ((-1000i32) as u32 >> 1) as i32,
            -1000
        )
    );
}

#[test]
fn intrinsics_match_their_c_definitions_on_edge_values() {
    let src = "
#include \"ssalab.h\"
int vals[12] = {0, 1, -1, 0x7fff, 0x8000, -0x8000, 0xffff, 0x10000, 0x18000,
                2147483647, -2147483647 - 1, 0x12345678};
int main(void) {
    int i, j, k;
    for (i = 0; i < 12; i++) {
        print_int(__st_lo(vals[i])); print_char(' ');
        print_int(__st_hi(vals[i])); print_char(' ');
        print_int(__st_sext16((unsigned)vals[i])); print_char('\\n');
        for (j = 0; j < 12; j++) {
            print_int(__st_addp(vals[i], vals[j])); print_char(' ');
            print_int(__st_subp(vals[i], vals[j])); print_char(' ');
            print_int(__st_mpy(vals[i], vals[j])); print_char(' ');
            print_int(__st_mpyhh(vals[i], vals[j])); print_char(' ');
            print_int(__st_pack(vals[i], vals[j])); print_char('\\n');
            for (k = 0; k < 12; k++) {
                print_int(__st_mac(vals[k], vals[i], vals[j])); print_char(' ');
                print_int(__st_msu(vals[k], vals[i], vals[j])); print_char(' ');
                print_int(__st_machh(vals[k], vals[i], vals[j])); print_char('\\n');
            }
        }
    }
    return 0;
}
";
    let m = from_c(src, crate::pipeline::OptLevel::O2);
    let (f, st) = select_one(&m, "main", &IselOptions::default());
    assert_eq!(st.intrinsics, 11, "{f}");
    for name in [
        "ADDP", "SUBP", "MPSSLL", "MPSSHH", "MASSLL", "MSSSLL", "MASSHH",
    ] {
        assert!(!find(&f, name).is_empty(), "{name}: {f}");
    }
    assert!(find(&f, "CALL").is_empty(), "no intrinsic is called: {f}");
    // MAC: a separate accumulator input, not tied.
    let mac = find(&f, "MASSLL")[0];
    assert_eq!(mac.uses.len(), 3);
    assert!(mac.uses.iter().all(|u| u.pin.is_none()));
    both_levels(src);
}

#[test]
fn printf_is_expanded_at_compile_time() {
    let src = "
#include <stdio.h>
const char *names[2] = {\"zero\", \"one\"};
int main(void) {
    int i;
    unsigned u = 4000000000u;
    printf(\"hello, world\\n\");
    for (i = -1; i < 2; i++)
        printf(\"%d %i %c|%u %x %X [%s] 100%%\\n\", i, i * 3, 'a' + i, u + (unsigned)i,
               (unsigned)i * 0x1234567u, (unsigned)i, names[i < 0 ? 0 : i]);
    printf(\"%u %x %s\\n\", 7u, 0u, \"lit\");
    return 0;
}
";
    let out = both_levels(src);
    assert!(out.starts_with("hello, world\n-1 -3 `|3999999999 fedcba99 FFFFFFFF [zero] 100%\n"));
    let m = from_c(src, crate::pipeline::OptLevel::O2);
    let (f, _) = select_one(&m, "main", &IselOptions::default());
    assert!(find(&f, "CALL")
        .iter()
        .all(|c| c.imm == Imm::Func(crate::isel::RUNTIME_DIVU.into())));
}

#[test]
fn unsupported_printf_conversions_and_unknown_callees_are_errors() {
    for (body, needle) in [
        ("printf(\"%f\", 1);", "%f"),
        ("printf(\"%lld\", 1);", "ll"),
        ("int n = printf(\"x\"); print_int(n);", "result of printf"),
    ] {
        let src = format!(
            "int printf(const char *, ...);\nvoid print_int(int);\nint main(void) {{ {body} return 0; }}\n"
        );
        let m = from_c(&src, crate::pipeline::OptLevel::O0);
        let f = m.function("main").unwrap();
        let e = select_function(&m, f, &IselOptions::default()).unwrap_err();
        assert!(e.message.contains(needle), "{body}: {e}");
    }
    let m = parse("func @main() -> i32 {\nb0:\n  call @mystery()\n  unreachable\n}\n");
    let e = select_function(&m, &m.functions[0], &IselOptions::default()).unwrap_err();
    assert!(e.message.contains("mystery"), "{e}");
}

#[test]
fn builtins_exit_abort_putchar() {
    let m = parse(
        "
func @main() -> i32 {
b0:
  %0:i32 = const 321
  %1:i32 = call @putchar(%0)
  call @print_int(%1)
  %2:i32 = const 7
  call @exit(%2)
  ret %2
}
",
    );
    assert_eq!(run_both(&m, &IselOptions::default()), "A65");
    let (f, _) = select_one(&m, "main", &IselOptions::default());
    let traps: Vec<_> = find(&f, "TRAP").iter().map(|t| t.imm.clone()).collect();
    assert_eq!(traps, vec![Imm::Int(3), Imm::Int(2), Imm::Int(1)]);
    for t in find(&f, "TRAP") {
        assert_eq!(t.uses[0].pin, Some(phys(RegClass::R, 0)));
    }
    let a = parse("func @main() -> i32 {\nb0:\n  call @abort()\n  unreachable\n}\n");
    let (f, _) = select_one(&a, "main", &IselOptions::default());
    assert_eq!(find(&f, "MAKE")[0].imm, Imm::Int(134));
    let mm = crate::isel::select_module(&a, Target::St120, &IselOptions::default()).unwrap();
    let out = mir::interp::run_module(&mm, "main", &Default::default()).unwrap();
    assert_eq!(out.exit_code, 134);
}

#[test]
fn pointer_results_return_in_p0_and_entry_loops_get_an_input_block() {
    let m = parse(
        "
global @a size 8 align 4 = x\"0100000002000000\"
func @second(%0:ptr) -> ptr {
b0:
  %1:i32 = const 4
  %2:ptr = add %0, %1
  ret %2
}
func @main() -> i32 {
b0:
  %0:ptr = addr @a+0
  %1:ptr = call @second(%0)
  %2:i32 = load.i32 %1
  call @print_int(%2)
  ret %2
}
",
    );
    let (f, _) = select_one(&m, "second", &IselOptions::default());
    assert_eq!(
        find(&f, ".output")[0].uses[0].pin,
        Some(phys(RegClass::P, 0))
    );
    let (mf, _) = select_one(&m, "main", &IselOptions::default());
    assert_eq!(find(&mf, "CALL")[0].defs[0].pin, Some(phys(RegClass::P, 0)));
    assert_eq!(run_both(&m, &IselOptions::default()), "2");
}

#[test]
fn long_lazy_chains_do_not_recurse_deeply() {
    // 3000 chained `p + 4` (lazy addresses) and 3000 chained copies, used at the end.
    let n = 3000;
    let mut t = format!(
        "global @a size {} align 4 = zero\nfunc @main() -> i32 {{\nb0:\n  %0:i32 = const 4\n  %1:ptr = addr @a+0\n",
        4 * (n + 2)
    );
    for k in 0..n {
        t += &format!("  %{}:ptr = add %{}, %0\n", k + 2, k + 1);
    }
    let last = n + 1;
    let c0 = n + 2;
    t += &format!("  %{c0}:i32 = const 5\n");
    for k in 0..n {
        t += &format!("  %{}:i32 = copy %{}\n", c0 + k + 1, c0 + k);
    }
    let c = c0 + n;
    t += &format!(
        "  store.i32 %{last}, %{c}\n  %{}:i32 = load.i32 %{last}\n  call @print_int(%{})\n  ret %{c}\n}}\n",
        c + 1,
        c + 1
    );
    let m = parse(&t);
    assert_eq!(run_both(&m, &IselOptions::default()), "5");
}

#[test]
fn an_entry_block_that_is_a_branch_target_gets_a_separate_input_block() {
    let m = parse(
        "
global @n size 4 align 4 = x\"03000000\"
func @count(%0:i32) -> i32 {
b0:
  %1:ptr = addr @n+0
  %2:i32 = load.i32 %1
  %3:i32 = sub %2, %0
  store.i32 %1, %3
  call @print_int(%3)
  %4:i32 = const 0
  %5:i32 = cmp.gt %3, %4
  br %5, b0, b1
b1:
  ret %3
}
func @main() -> i32 {
b0:
  %0:i32 = const 1
  %1:i32 = call @count(%0)
  ret %1
}
",
    );
    let (f, _) = select_one(&m, "count", &IselOptions::default());
    let b0 = &f.blocks[0].insts;
    assert_eq!(b0.len(), 2, "{f}");
    assert_eq!(b0[0].opc, Opc::Input);
    assert_eq!(b0[1].opc, Opc::St120(O::Goto));
    assert_eq!(run_both(&m, &IselOptions::default()), "210");
}

#[test]
fn indexed_accesses_use_the_register_offset_mode() {
    let src = "
void print_int(int);
int a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
short h[4] = {-1, 2, -3, 4};
char c[4] = {9, 8, 7, 6};
int main(void) {
    int i, s = 0;
    for (i = 0; i < 4; i++)
        s += a[i] * 100 + h[i] * 10 + c[i];
    print_int(s);
    return 0;
}
";
    let m = from_c(src, crate::pipeline::OptLevel::O0);
    let (f, _) = select_one(&m, "main", &IselOptions::default());
    for name in ["LDW+r", "LDH+r", "LDB+r"] {
        assert_eq!(find(&f, name).len(), 1, "{name}: {f}");
    }
    assert!(
        find(&f, "ADDWA").is_empty() && find(&f, "SHL.i").is_empty(),
        "{f}"
    );
    both_levels(src);
}
