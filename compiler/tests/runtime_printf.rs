//! The C runtime's printf routines (`__ssalab_printf_int`, `__ssalab_printf_str` in
//! `compiler/runtime/runtime.c`, called by both targets for conversions with flags, widths or
//! precisions) print what the reference formatter (`isel::printf_spec`, which the interpreter
//! uses) prints, on 3,000 pseudo-random specifications and values, run by the interpreter.

use compiler::isel::printf_spec::{
    format_int, format_str, ALT, CHAR, LEFT, PLUS, SHORT, SPACE, ZERO,
};
use compiler::isel::{RUNTIME_PRINTF_INT, RUNTIME_PRINTF_STR, RUNTIME_SOURCE};

/// A 64-bit LCG (Knuth's MMIX constants): deterministic test data.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.next() as usize % xs.len()]
    }
}

fn c_int(n: i32) -> String {
    if n == i32::MIN {
        "(-2147483647 - 1)".into()
    } else {
        format!("({n})")
    }
}

#[test]
fn runtime_printf_matches_the_reference_formatter() {
    let values = [
        0,
        1,
        -1,
        7,
        -42,
        255,
        256,
        32767,
        -32768,
        65535,
        123456789,
        i32::MAX,
        i32::MIN,
        -129,
    ];
    let convs = [b'd', b'i', b'u', b'o', b'x', b'X', b'c', b'p'];
    let strings = ["", "a", "hello", "sixteen chars!!!"];
    let mut rng = Lcg(24);
    let mut body = String::new();
    let mut expected = Vec::new();
    for k in 0..3000 {
        let mut flags = 0;
        for f in [LEFT, ZERO, PLUS, SPACE, ALT] {
            if rng.next().is_multiple_of(3) {
                flags |= f;
            }
        }
        let width = rng.pick(&[0u32, 1, 3, 8, 13]);
        let prec = rng.pick(&[None, Some(0u32), Some(1), Some(5), Some(12)]);
        let p = prec.map_or(-1, |p| p as i32);
        if k % 5 == 4 {
            let s = rng.pick(&strings);
            body += &format!(
                "  {RUNTIME_PRINTF_STR}(\"{s}\", {}, {width}, {p}); print_char('\\n');\n",
                flags | u32::from(b's')
            );
            expected.extend(format_str(flags, width, prec, s.as_bytes()));
        } else {
            let conv = rng.pick(&convs);
            if conv != b'c' && conv != b'p' {
                flags |= rng.pick(&[0, 0, 0, SHORT, CHAR]);
            }
            let v = if rng.next().is_multiple_of(2) {
                rng.pick(&values)
            } else {
                rng.next() as i32
            };
            body += &format!(
                "  {RUNTIME_PRINTF_INT}({}, {}, {width}, {p}); print_char('\\n');\n",
                c_int(v),
                flags | u32::from(conv)
            );
            expected.extend(format_int(conv, flags, width, prec, v));
        }
        expected.push(b'\n');
    }
    let src = format!(
        "{RUNTIME_SOURCE}\nvoid print_int(int);\nint main(void) {{\n{body}  return 0;\n}}\n"
    );
    let m = compiler::front::compile_source_to_ir("runtime_printf.c", &src, &Default::default())
        .unwrap_or_else(|d| panic!("{}", d.render()));
    let out = compiler::interp::run(&m, "main", &Default::default()).unwrap();
    assert!(out.trap.is_none(), "{:?}", out.trap);
    let got = String::from_utf8_lossy(&out.output).into_owned();
    let want = String::from_utf8_lossy(&expected).into_owned();
    for (n, (g, e)) in got.lines().zip(want.lines()).enumerate() {
        assert_eq!(g, e, "line {n}: {}", body.lines().nth(n).unwrap_or(""));
    }
    assert_eq!(got.lines().count(), want.lines().count());
}
