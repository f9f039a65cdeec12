//! ST231 instruction selection over every program of `programs/` (front end + mid-level
//! pipeline at -O0 and -O2, runtime routines appended as the driver does): every function
//! must select and pass the machine-level verifier in SSA form, and the selected module's
//! structural contracts (pins, `B` values local to their block, outgoing area) must hold.

mod common;
use compiler::ir::Module;
use compiler::isel::{self, IselOptions};
use compiler::mir::{self, Opc, Pin, RegClass};
use compiler::pipeline::{self, OptLevel};
use simulator::isa::st231::Opcode as O;
use simulator::isa::Target;
use std::path::Path;

/// Runs the mid-level passes of `opt` over `m`.
fn optimise(m: &mut Module, opt: OptLevel) -> Result<(), String> {
    pipeline::run_passes(m, &pipeline::mid_level_passes(opt), &mut |_, _| Ok(()))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Adds the runtime routines (compiled separately, same optimisation level) to `m`.
fn append_runtime(m: &mut Module, opt: OptLevel) -> Result<(), String> {
    compiler::backend::add_runtime(m, opt)?;
    Ok(())
}

fn build_file(path: &Path, opt: OptLevel) -> Result<Module, String> {
    let mut m =
        compiler::front::compile_to_ir(path, &Default::default()).map_err(|d| d.render())?;
    optimise(&mut m, opt)?;
    append_runtime(&mut m, opt)?;
    Ok(m)
}

fn build_source(src: &str, opt: OptLevel) -> Module {
    let mut m = compiler::front::compile_source_to_ir("test.c", src, &Default::default())
        .unwrap_or_else(|d| panic!("{}", d.render()));
    optimise(&mut m, opt).unwrap();
    append_runtime(&mut m, opt).unwrap();
    m
}

fn select(m: &Module) -> Result<mir::Module, String> {
    isel::select_module(m, Target::St231, &IselOptions::default()).map_err(|e| e.to_string())
}

/// Contracts of backend.md beyond what the verifier checks, on one function.
fn check_contracts(f: &mir::Function) -> Result<(), String> {
    let entry = &f.blocks[0];
    if entry.insts.first().map(|i| i.opc) != Some(Opc::Input) {
        return Err(format!("@{}: .input is not first", f.name));
    }
    let mut calls = false;
    for (bi, b) in f.blocks.iter().enumerate() {
        let n = b.insts.len();
        for (k, i) in b.insts.iter().enumerate() {
            let pinned_ok =
                |o: &mir::Operand| matches!(o.pin, Some(Pin::Phys(p)) if (16..24).contains(&p.num));
            match i.opc {
                Opc::St231(O::Call) => {
                    calls = true;
                    if !i.uses.iter().chain(&i.defs).all(pinned_ok) {
                        return Err(format!("@{} b{bi}: unpinned call operand", f.name));
                    }
                }
                Opc::St231(O::Syscall) if !i.uses.iter().all(pinned_ok) => {
                    return Err(format!("@{} b{bi}: unpinned syscall operand", f.name));
                }
                Opc::Output if k + 2 != n || b.insts[n - 1].opc != Opc::St231(O::Igoto) => {
                    return Err(format!(
                        "@{} b{bi}: .output not right before return",
                        f.name
                    ));
                }
                _ => {}
            }
        }
    }
    if calls && f.frame.outgoing_size < 16 {
        return Err(format!("@{}: calls but outgoing_size < 16", f.name));
    }
    Ok(())
}

#[test]
fn every_program_selects_and_verifies_in_ssa_form() {
    let paths = common::c_programs();
    assert!(
        paths.len() > 40,
        "expected the programs/ suite, found {}",
        paths.len()
    );
    let mut failures = Vec::new();
    let mut selected = 0;
    for p in &paths {
        for opt in [OptLevel::O0, OptLevel::O2] {
            let name = format!("{} {opt:?}", p.display());
            let m = match build_file(p, opt) {
                Ok(m) => m,
                Err(e) => {
                    failures.push(format!("{name}: front end/pipeline: {e}"));
                    continue;
                }
            };
            let mm = match select(&m) {
                Ok(mm) => mm,
                Err(e) => {
                    failures.push(format!("{name}: {e}"));
                    continue;
                }
            };
            let errs = mir::verify::verify_module(&mm, mir::verify::Form::Ssa);
            if let Some(e) = errs.first() {
                failures.push(format!(
                    "{name}: {} verifier error(s), first: {e}",
                    errs.len()
                ));
                continue;
            }
            if let Some(e) = mm.functions.iter().find_map(|f| check_contracts(f).err()) {
                failures.push(format!("{name}: {e}"));
                continue;
            }
            selected += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        paths.len() * 2,
        failures.join("\n")
    );
    assert_eq!(selected, paths.len() * 2);
}

#[test]
fn many_arguments_recursion_and_division_from_c() {
    let src = r#"
        void print_int(int);
        int sum9(int a, int b, int c, int d, int e, int f, int g, int h, int i) {
            return a + b + c + d + e + f + g + h + i * 3;
        }
        int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
        int main(void) {
            int x = sum9(1, 2, 3, 4, 5, 6, 7, 8, 9);
            print_int(x / 7 + x % 7 + fact(5) / x);
            return 0;
        }
    "#;
    for opt in [OptLevel::O0, OptLevel::O2] {
        let m = build_source(src, opt);
        let mm = select(&m).unwrap();
        assert!(mir::verify::verify_module(&mm, mir::verify::Form::Ssa).is_empty());
        let sum9 = mm.function("sum9").unwrap();
        assert!(sum9
            .frame
            .objects
            .iter()
            .any(|o| o.kind == mir::FrameKind::IncomingArg(0)));
        let main = mm.function("main").unwrap();
        assert_eq!(main.frame.outgoing_size, 20, "{main}");
        let text = main.to_string();
        assert!(text.contains("stw $r12, %"), "{text}");
        assert!(text.contains("#16"), "{text}");
        // Division by the constant 7 is inline (magic multiply); by a variable, a call.
        assert!(text.contains("mul64h "), "{text}");
        assert!(text.contains("fn @__ssalab_divs"), "{text}");
        let fact = mm.function("fact").unwrap().to_string();
        assert!(fact.contains("mul32"), "{fact}");
        assert!(fact.contains("fn @fact"), "{fact}");
        for f in &mm.functions {
            check_contracts(f).unwrap();
            // No B value crosses a block: every B vreg's uses are in its defining block.
            for b in &f.blocks {
                for i in &b.insts {
                    for u in i.use_vregs().filter(|&v| f.class_of(v) == RegClass::B) {
                        assert!(b.insts.iter().any(|j| j.def_vregs().any(|d| d == u)), "{f}");
                    }
                }
            }
        }
    }
}

#[test]
fn unsupported_printf_conversion_is_a_clear_error() {
    let src = r#"
        int printf(const char *, ...);
        int main(void) { printf("%lld\n", 5); return 0; }
    "#;
    let m = build_source(src, OptLevel::O0);
    let e = select(&m).unwrap_err();
    assert!(e.contains("@main") && e.contains("`ll`"), "{e}");
}

/// Runs `m` with the mid-level interpreter and `mm` with the machine-level interpreter;
/// `Err` describes the first difference (output, exit code, trap).
fn compare_runs(m: &Module, mm: &mir::Module) -> Result<(), String> {
    let want = compiler::interp::run(m, "main", &Default::default()).map_err(|e| e.to_string())?;
    if let Some(t) = &want.trap {
        return Err(format!("reference interpreter trapped: {t}"));
    }
    let got = mir::interp::run_module(mm, "main", &Default::default())
        .map_err(|t| format!("machine-level run trapped: {t}"))?;
    if got.output != want.output {
        let (g, w) = (
            String::from_utf8_lossy(&got.output),
            String::from_utf8_lossy(&want.output),
        );
        let at = g
            .bytes()
            .zip(w.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(g.len().min(w.len()));
        let lo = at.saturating_sub(40);
        return Err(format!(
            "output differs at byte {at}: got {:?}, want {:?}",
            &g[lo.min(g.len())..(at + 40).min(g.len())],
            &w[lo.min(w.len())..(at + 40).min(w.len())]
        ));
    }
    if got.exit_code != want.exit_code {
        return Err(format!(
            "exit code {} instead of {}",
            got.exit_code, want.exit_code
        ));
    }
    Ok(())
}

#[test]
fn every_program_runs_like_the_reference_interpreter() {
    let paths = common::c_programs();
    let mut failures = Vec::new();
    let mut passed = 0;
    for p in &paths {
        for opt in [OptLevel::O0, OptLevel::O2] {
            let name = format!("{} {opt:?}", p.display());
            let result = build_file(p, opt)
                .and_then(|m| select(&m).map(|mm| (m, mm)))
                .and_then(|(m, mm)| compare_runs(&m, &mm));
            match result {
                Ok(()) => passed += 1,
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
    }
    eprintln!(
        "st231 isel: {passed} of {} program runs agree",
        paths.len() * 2
    );
    assert!(
        failures.is_empty(),
        "{} of {} runs failed:\n{}",
        failures.len(),
        paths.len() * 2,
        failures.join("\n")
    );
}

/// Small C kernels beyond `programs/` (edge values of every selection rule), each run through
/// isel + the machine-level interpreter at -O0 and -O2 and compared with the IR interpreter.
#[test]
fn edge_kernels_run_like_the_reference_interpreter() {
    let kernels = [
        // Division and remainder by constants and variables, negative operands, unsigned.
        r#"
        #include <stdio.h>
        int divs(int a, int b) { return a / b; }
        int main(void) {
            int v[8] = { 0, 1, -1, 7, -7, 2147483647, -2147483647 - 1, 1000003 };
            unsigned u;
            int i;
            for (i = 0; i < 8; i++) {
                printf("%d %d %d %d %d %d|", v[i] / 3, v[i] % 3, v[i] / -8, v[i] % -8,
                       v[i] / 10, v[i] % 1000);
                u = (unsigned)v[i];
                printf("%u %u %u %x\n", u / 7u, u % 7u, u / 2147483649u, u % 16u);
                if (i > 0) printf("%d\n", divs(v[i], v[i - 1] | 1));
            }
            return 0;
        }"#,
        // Conversions, shifts, compares as data and as branch conditions, selects.
        r#"
        #include <stdio.h>
        signed char sc[4] = { -128, -1, 0, 127 };
        unsigned char uc[4] = { 0, 1, 128, 255 };
        short ss[3] = { -32768, -1, 32767 };
        unsigned short us[3] = { 0, 32768, 65535 };
        int main(void) {
            int i, acc = 0;
            for (i = 0; i < 4; i++) {
                int a = sc[i], b = uc[i];
                int lt = a < b, ltu = (unsigned)a < (unsigned)b;
                acc += (a > b ? a : b) + lt * 3 + ltu;
                acc ^= (a << 3) + (b >> 1) + ((unsigned)a >> 28) + (a >> 2);
                sc[i] = (signed char)(acc + 100);
                uc[i] = (unsigned char)(acc * 3);
            }
            for (i = 0; i < 3; i++) {
                acc += ss[i] * 2 + us[i] - (short)(acc >> 4) + (unsigned short)acc;
                ss[i] = (short)acc;
                us[i] = (unsigned short)~acc;
            }
            printf("%d %d %d %d %d %d %x %u\n", acc, sc[0], uc[3], ss[2], us[1], -acc, acc, acc);
            printf("%x %x %X %u %c%c [%s]\n", 0u, 0xF0000000u, 0xABCDu, 4294967295u, 'o', 'k', "lit");
            return acc & 1;
        }"#,
        // Many arguments, recursion, stack slots, pointers to locals, address arithmetic.
        r#"
        void print_int(int);
        void print_char(int);
        int mix(int a, int b, int c, int d, int e, int f, int g, int h, int i, int j, int k) {
            return a - b + c * d - e + f * 3 + g - h + (i << 2) - j * k;
        }
        int ack(int m, int n) {
            if (m == 0) return n + 1;
            if (n == 0) return ack(m - 1, 1);
            return ack(m - 1, ack(m, n - 1));
        }
        void fill(int *p, int n) { int i; for (i = 0; i < n; i++) p[i] = i * i - 5; }
        int main(void) {
            int buf[12];
            int k, s = 0;
            fill(buf, 12);
            for (k = 0; k < 12; k++) s += buf[k] * (k & 1 ? -1 : 1);
            print_int(mix(buf[0], buf[1], buf[2], buf[3], buf[4], buf[5], buf[6], buf[7],
                          buf[8], buf[9], buf[10]));
            print_char(' ');
            print_int(ack(2, 3) + s);
            print_char('\n');
            return 3;
        }"#,
    ];
    let mut failures = Vec::new();
    for (n, src) in kernels.iter().enumerate() {
        for opt in [OptLevel::O0, OptLevel::O2] {
            let m = build_source(src, opt);
            let r = select(&m).and_then(|mm| compare_runs(&m, &mm));
            if let Err(e) = r {
                failures.push(format!("kernel {n} {opt:?}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
