//! Frames of any size through the whole back end (`regalloc::frame`, isa.md §B4/§B6 reach
//! limits): generated C programs whose spill slots, locals and incoming stack arguments lie
//! beyond every SP-relative immediate range of the ST120 (and far beyond the ST231's 9-bit
//! short immediates), compiled with `--verify` (form verifier and allocation checker after
//! every pass) on both targets, run on the simulator, and compared with the value computed
//! here in Rust. Each test also asserts that the frame pass really displaced SP on the ST120
//! (the case under test happened), so it cannot pass vacuously.

use compiler::backend::{compile_module, BackendConfig};
use compiler::pipeline::{self, OptLevel};
use simulator::isa::Target;
use simulator::machine::RunOptions;

const PRELUDE: &str = "void print_int(int v);\nvoid print_char(int c);\n";

/// Compiles `src` (verify on) for `t`, runs it, returns its output and the frame pass's
/// `sp_displacements` summed over the functions named in `funcs`.
fn compile_and_run(
    src: &str,
    t: Target,
    opt: OptLevel,
    regs: Option<u32>,
    funcs: &[&str],
) -> (String, u64) {
    let mut m = compiler::front::compile_source_to_ir("frame_large.c", src, &Default::default())
        .unwrap_or_else(|d| panic!("{}", d.render()));
    pipeline::run_passes(&mut m, &pipeline::mid_level_passes(opt), &mut |_, _| Ok(()))
        .expect("mid-level passes");
    compiler::backend::add_runtime(&mut m, opt).expect("runtime");
    let mut config = BackendConfig::baseline(t);
    config.verify = true;
    config.regalloc.regs = regs;
    let out = compile_module(&m, &config, &mut |_, _| Ok(()))
        .unwrap_or_else(|e| panic!("{t:?} {opt:?} regs {regs:?}: {e}"));
    let displaced = out
        .stats
        .iter()
        .filter(|s| s.pass == "frame" && funcs.contains(&s.function.as_str()))
        .flat_map(|s| &s.detail)
        .filter(|(k, _)| *k == "sp_displacements")
        .map(|&(_, v)| v)
        .sum();
    let rep = simulator::sim::run(
        &out.object,
        &RunOptions {
            max_cycles: 200_000_000,
            ..RunOptions::default()
        },
    );
    assert!(rep.trap.is_none(), "{t:?} {opt:?}: trap {:?}", rep.trap);
    (String::from_utf8(rep.output).unwrap(), displaced)
}

fn check_everywhere(src: &str, expected: &str, funcs: &[&str]) {
    for t in [Target::St120, Target::St231] {
        for (opt, regs) in [
            (OptLevel::O2, None),
            (OptLevel::O2, Some(8)),
            (OptLevel::O0, None),
        ] {
            let (got, displaced) = compile_and_run(src, t, opt, regs, funcs);
            assert_eq!(got, expected, "{t:?} {opt:?} regs {regs:?}");
            if t == Target::St120 {
                assert!(displaced > 0, "{opt:?} regs {regs:?}: no SP displacement");
            }
        }
    }
}

/// 600 values live across a call: 600 spill slots (2 400 bytes), the last ones beyond the
/// 2 044-byte reach of `LDW`/`SDW @(SP + u9)`.
#[test]
fn spill_slots_beyond_every_immediate_range() {
    const N: i32 = 600;
    let mut body = String::from("int many(int s)\n{\n");
    for i in 0..N {
        body += &format!("    int v{i} = (s ^ {}) + {};\n", i * 7, i * 3);
    }
    body += "    int t = keep(s);\n    unsigned acc = (unsigned)t;\n";
    for i in 0..N {
        body += &format!("    acc = acc * 3u + (unsigned)v{i};\n");
    }
    body += "    return (int)acc;\n}\n";
    let src = format!(
        "{PRELUDE}int keep(int x)\n{{\n    return x * 5 + 1;\n}}\n{body}\
         int main(void)\n{{\n    print_int(many(12345));\n    print_char(10);\n    \
         print_int(many(-7));\n    print_char(10);\n    return 0;\n}}\n"
    );
    let many = |s: i32| {
        let mut acc = s.wrapping_mul(5).wrapping_add(1) as u32;
        for i in 0..N {
            let v = (s ^ (i * 7)).wrapping_add(i * 3);
            acc = acc.wrapping_mul(3).wrapping_add(v as u32);
        }
        acc as i32
    };
    let expected = format!("{}\n{}\n", many(12345), many(-7));
    // spills are the point: one configuration is enough per target, plus --regs 8
    for t in [Target::St120, Target::St231] {
        for regs in [None, Some(8)] {
            let (got, displaced) = compile_and_run(&src, t, OptLevel::O2, regs, &["many"]);
            assert_eq!(got, expected, "{t:?} regs {regs:?}");
            if t == Target::St120 {
                assert!(displaced > 0, "regs {regs:?}: no spill slot beyond reach");
            }
        }
    }
}

/// A `char` array of `n` bytes written and read at both ends and in the middle, by constant
/// and variable index and through its address, with a call, in a function with seven
/// arguments (the stack-passed ones lie above the frame).
fn char_array_program(n: u32) -> (String, String) {
    let src = format!(
        "{PRELUDE}
static int sum_ends(const unsigned char *p, int k)
{{
    return p[0] + p[k - 1];
}}

int big(int a, int b, int c, int d, int e, int f, int g)
{{
    unsigned char buf[{n}];
    short hs[4];
    int i, s;
    for (i = 0; i < {n}; i += 1)
        buf[i] = (unsigned char)(i + a);
    buf[0] = (unsigned char)b;
    buf[{last}] = (unsigned char)c;
    buf[{mid}] = (unsigned char)d;
    hs[0] = (short)e;
    hs[3] = (short)f;
    s = sum_ends(buf, {n}) + sum_ends(&buf[{mid}], {n} - {mid});
    s = s * 7 + buf[{last}] + buf[{mid}] + buf[1] + hs[0] + hs[3] + g;
    return s + buf[(a & 1) + {last} - 1];
}}

int main(void)
{{
    print_int(big(1, 2, 3, 4, 5, 6, 7));
    print_char(10);
    print_int(big(100, -3, 250, 77, -9, 1000, -123456));
    print_char(10);
    return 0;
}}
",
        last = n - 1,
        mid = n / 2,
    );
    let big = |a: i32, b: i32, c: i32, d: i32, e: i32, f: i32, g: i32| {
        let n = n as usize;
        let mut buf: Vec<u8> = (0..n).map(|i| (i as i32 + a) as u8).collect();
        buf[0] = b as u8;
        buf[n - 1] = c as u8;
        buf[n / 2] = d as u8;
        let (h0, h3) = (e as i16 as i32, f as i16 as i32);
        let ends = |k: usize, len: usize| i32::from(buf[k]) + i32::from(buf[k + len - 1]);
        let mut s = ends(0, n) + ends(n / 2, n - n / 2);
        s = s * 7 + i32::from(buf[n - 1]) + i32::from(buf[n / 2]) + i32::from(buf[1]) + h0 + h3 + g;
        s + i32::from(buf[(a & 1) as usize + n - 2])
    };
    let expected = format!(
        "{}\n{}\n",
        big(1, 2, 3, 4, 5, 6, 7),
        big(100, -3, 250, 77, -9, 1000, -123456)
    );
    (src, expected)
}

/// Frame sizes around every ST120 limit: the byte reach (511), the half (1 022) and word
/// (2 044) reaches, two `ADDWA.i` chunks (4 088), the 16-bit `MAKEA` word count
/// (131 068 bytes) and beyond it (`MAKEA` + `MOREA`), and a frame over 64 KiB.
#[test]
fn char_arrays_around_every_reach_limit() {
    for n in [600, 1100, 2100, 4100, 70_000, 140_000] {
        let (src, expected) = char_array_program(n);
        check_everywhere(&src, &expected, &["big"]);
    }
}
