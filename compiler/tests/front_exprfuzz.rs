//! Differential test of C integer semantics: random expressions over variables of every
//! integer type of the subset (and some constants) are printed by a program compiled once by
//! ssalab (front end + IR interpreter) and once by the host C compiler; the outputs must be
//! identical. This exercises promotions, the usual arithmetic conversions, signed/unsigned
//! comparisons, narrowing casts, division, remainder and shifts of negative values.
//!
//! The generator avoids undefined behaviour: it tracks a bound on the magnitude of every
//! signed subexpression and switches to unsigned arithmetic where a signed operation could
//! overflow; divisors are made non-zero; shift amounts are masked; only unsigned values are
//! shifted left. Deterministic seeds; the host compiler (`$CC` or `gcc`) is required.
//! `SSALAB_EXPR_FUZZ=N` sets the number of programs (default 40).

use compiler::front::{compile_source_to_ir, FrontOptions};
use compiler::interp;
use std::process::Command;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A generated expression: its text, whether its C type is `unsigned int` (else `int`,
/// after promotion), and a bound on its magnitude when signed.
struct E {
    text: String,
    unsigned: bool,
    bound: u64,
}

const LIMIT: u64 = 1 << 31;

const VARS: [(&str, &str, bool, u64); 8] = [
    ("int", "i0", false, 1000),
    ("int", "i1", false, 100_000),
    ("unsigned", "u0", true, 0),
    ("unsigned", "u1", true, 0),
    ("char", "c0", false, 128),
    ("unsigned char", "uc0", false, 255),
    ("short", "s0", false, 32768),
    ("unsigned short", "us0", false, 65535),
];

fn leaf(r: &mut Rng) -> E {
    if r.below(4) == 0 {
        let consts: [(&str, bool, u64); 8] = [
            ("0", false, 0),
            ("1", false, 1),
            ("-1", false, 1),
            ("7", false, 7),
            ("0x80000000", true, 0),
            ("0xffffffffu", true, 0),
            ("2147483647", false, LIMIT - 1),
            ("'\\xff'", false, 1),
        ];
        let (t, u, b) = consts[r.below(consts.len() as u64) as usize];
        return E {
            text: t.to_string(),
            unsigned: u,
            bound: b,
        };
    }
    let (_, name, u, b) = VARS[r.below(VARS.len() as u64) as usize];
    E {
        text: name.to_string(),
        unsigned: u,
        bound: b,
    }
}

fn to_unsigned(e: E) -> E {
    E {
        text: format!("(unsigned)({})", e.text),
        unsigned: true,
        bound: 0,
    }
}

fn gen(r: &mut Rng, depth: u32) -> E {
    if depth == 0 || r.below(4) == 0 {
        return leaf(r);
    }
    match r.below(12) {
        0..=4 => {
            let a = gen(r, depth - 1);
            let b = gen(r, depth - 1);
            binary(r, a, b)
        }
        5 => {
            let a = gen(r, depth - 1);
            match r.below(3) {
                0 if !a.unsigned => E {
                    text: format!("(-({}))", a.text),
                    unsigned: false,
                    bound: a.bound,
                },
                0 | 1 => E {
                    text: format!("(~({}))", a.text),
                    unsigned: a.unsigned,
                    bound: a.bound + 1,
                },
                _ => E {
                    text: format!("(!({}))", a.text),
                    unsigned: false,
                    bound: 1,
                },
            }
        }
        6 => {
            let a = gen(r, depth - 1);
            let casts: [(&str, bool, u64); 6] = [
                ("char", false, 128),
                ("unsigned char", false, 255),
                ("short", false, 32768),
                ("unsigned short", false, 65535),
                ("int", false, LIMIT),
                ("unsigned", true, 0),
            ];
            let (t, u, b) = casts[r.below(casts.len() as u64) as usize];
            E {
                text: format!("(({t})({}))", a.text),
                unsigned: u,
                bound: b,
            }
        }
        7 => {
            let c = gen(r, depth - 1);
            let a = gen(r, depth - 1);
            let b = gen(r, depth - 1);
            let unsigned = a.unsigned || b.unsigned;
            E {
                text: format!("(({}) ? ({}) : ({}))", c.text, a.text, b.text),
                unsigned,
                bound: if unsigned { 0 } else { a.bound.max(b.bound) },
            }
        }
        _ => {
            let a = gen(r, depth - 1);
            let b = gen(r, depth - 1);
            let ops = ["<", "<=", ">", ">=", "==", "!=", "&&", "||"];
            let op = ops[r.below(ops.len() as u64) as usize];
            E {
                text: format!("(({}) {op} ({}))", a.text, b.text),
                unsigned: false,
                bound: 1,
            }
        }
    }
}

fn binary(r: &mut Rng, a: E, b: E) -> E {
    let ops = ["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"];
    let op = ops[r.below(ops.len() as u64) as usize];
    match op {
        "<<" => {
            let a = if a.unsigned { a } else { to_unsigned(a) };
            E {
                text: format!("(({}) << (({}) & 15))", a.text, b.text),
                unsigned: true,
                bound: 0,
            }
        }
        ">>" => E {
            text: format!("(({}) >> (({}) & 15))", a.text, b.text),
            unsigned: a.unsigned,
            bound: a.bound,
        },
        "/" | "%" => {
            let unsigned = a.unsigned || b.unsigned;
            let bound = a.bound;
            // A non-zero divisor; for signed division the bounds exclude INT_MIN / -1.
            let (a, b) = if !unsigned && (a.bound >= LIMIT || b.bound >= LIMIT) {
                (to_unsigned(a), b)
            } else {
                (a, b)
            };
            let unsigned = a.unsigned || b.unsigned;
            E {
                text: format!("(({}) {op} (({}) ? ({}) : 3))", a.text, b.text, b.text),
                unsigned,
                bound: if unsigned { 0 } else { bound },
            }
        }
        _ => {
            let unsigned = a.unsigned || b.unsigned;
            let bound = match op {
                "+" | "-" => a.bound + b.bound,
                "*" => a.bound.saturating_mul(b.bound),
                _ => 2 * a.bound.max(b.bound).next_power_of_two(),
            };
            if !unsigned && bound >= LIMIT {
                let a = to_unsigned(a);
                return E {
                    text: format!("(({}) {op} ({}))", a.text, b.text),
                    unsigned: true,
                    bound: 0,
                };
            }
            E {
                text: format!("(({}) {op} ({}))", a.text, b.text),
                unsigned,
                bound: if unsigned { 0 } else { bound },
            }
        }
    }
}

fn program(seed: u64) -> String {
    let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut s = String::from("int printf(const char *, ...);\nint main(void)\n{\n");
    for (ty, name, unsigned, bound) in VARS {
        let v = if unsigned {
            r.next() as u32 as i64
        } else {
            r.below(2 * bound) as i64 - bound as i64
        };
        let v = match ty {
            "unsigned char" | "unsigned short" => v.abs(),
            "char" | "short" => v.min(bound as i64 - 1),
            _ => v,
        };
        let lit = if unsigned {
            format!("{v}u")
        } else {
            v.to_string()
        };
        s += &format!("    {ty} {name} = {lit};\n");
    }
    for _ in 0..25 {
        let e = gen(&mut r, 4);
        s += &format!("    printf(\"%u\\n\", (unsigned)({}));\n", e.text);
    }
    s += "    return 0;\n}\n";
    s
}

fn host(src: &str, tag: u64) -> String {
    let cc = std::env::var("CC").unwrap_or_else(|_| "gcc".to_string());
    let dir = std::env::temp_dir();
    let c = dir.join(format!("ssalab-exprfuzz-{}-{tag}.c", std::process::id()));
    let exe = dir.join(format!("ssalab-exprfuzz-{}-{tag}", std::process::id()));
    std::fs::write(&c, src).unwrap();
    let st = Command::new(&cc)
        .args(["-std=c99", "-O0", "-w", "-o"])
        .arg(&exe)
        .arg(&c)
        .status()
        .unwrap_or_else(|e| panic!("the host C compiler `{cc}` is required: {e}"));
    assert!(st.success(), "host compiler failed:\n{src}");
    let out = Command::new(&exe).output().unwrap();
    std::fs::remove_file(&c).ok();
    std::fs::remove_file(&exe).ok();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn ours(src: &str) -> String {
    let m = compile_source_to_ir("fuzz.c", src, &FrontOptions::default())
        .unwrap_or_else(|d| panic!("{}\n{src}", d.render()));
    let out = interp::run(&m, "main", &interp::Options::default()).unwrap();
    assert!(out.trap.is_none(), "{:?}\n{src}", out.trap);
    out.output_string()
}

#[test]
fn random_integer_expressions_match_the_host_compiler() {
    // `SSALAB_EXPR_FUZZ=N` runs N programs instead of 40 (longer campaigns).
    let n: u64 = std::env::var("SSALAB_EXPR_FUZZ")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40);
    for seed in 1..=n {
        let src = program(seed);
        let (a, b) = (ours(&src), host(&src, seed));
        if a != b {
            let la: Vec<&str> = a.lines().collect();
            let lb: Vec<&str> = b.lines().collect();
            let k = la.iter().zip(&lb).position(|(x, y)| x != y).unwrap_or(0);
            let line = src
                .lines()
                .filter(|l| l.contains("printf(\"%u"))
                .nth(k)
                .unwrap_or("");
            panic!(
                "seed {seed}: expression {k} differs: ssalab {:?}, host {:?}\n{line}",
                la.get(k),
                lb.get(k)
            );
        }
    }
}
