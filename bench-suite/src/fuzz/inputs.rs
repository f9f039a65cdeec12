//! Fuzz targets for every reader of user input: the C preprocessor and parser (the whole
//! front end), the LAI parser, the assemblers, the object-file reader, the decoders, and the
//! simulators on random bytes as code. Each target is a function from bytes to nothing that
//! must return — never panic, hang or overflow the stack — for every input (bad input gets
//! an error value or a trap). The same functions drive the tests (`tests/fuzz_inputs.rs`,
//! time-budgeted) and the cargo-fuzz targets (`fuzz/fuzz_targets/`).
//!
//! Inputs for the tests come from [`mutate`]: a seed corpus of real files (the C programs,
//! the LAI and assembly test files, objects assembled from them) changed by byte flips,
//! deletions, duplications, truncations, splices of two files and insertions of tokens that
//! open nesting (`(`, `{`, `#if`, ...) many times over — the shapes of bad input a new user
//! makes, and the absurd nesting that would overflow a recursive parser.
//!
//! Budgets: every run is bounded — the front end and the parsers by their input size, the
//! simulator by `SIM_CYCLES` cycles and a small memory.

use super::rng::Rng;
use simulator::isa::Target;
use simulator::machine::RunOptions;
use simulator::object::Object;

/// Cycle budget of a simulator run on random code.
pub const SIM_CYCLES: u64 = 20_000;

/// A fuzz target: a name and a function that must return for every input.
#[derive(Clone, Copy)]
pub struct FuzzTarget {
    pub name: &'static str,
    pub run: fn(&[u8]),
}

/// Every target, by name.
pub const TARGETS: &[FuzzTarget] = &[
    FuzzTarget {
        name: "c_front",
        run: c_front,
    },
    FuzzTarget {
        name: "lai",
        run: lai,
    },
    FuzzTarget {
        name: "asm",
        run: asm,
    },
    FuzzTarget {
        name: "object",
        run: object,
    },
    FuzzTarget {
        name: "decode",
        run: decode,
    },
    FuzzTarget {
        name: "sim",
        run: sim,
    },
    FuzzTarget {
        name: "large_sizes",
        run: large_sizes,
    },
];

/// The target called `name`.
pub fn target(name: &str) -> Option<FuzzTarget> {
    TARGETS.iter().copied().find(|t| t.name == name)
}

/// The first byte picks the target machine of the targets that need one.
fn split_target(data: &[u8]) -> (Target, &[u8]) {
    match data.split_first() {
        Some((b, rest)) if b & 1 == 1 => (Target::St120, rest),
        Some((_, rest)) => (Target::St231, rest),
        None => (Target::St231, data),
    }
}

/// The C preprocessor, parser, semantic analysis and lowering to IR.
pub fn c_front(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = compiler::front::compile_source_to_ir("fuzz.c", &text, &Default::default());
}

/// The LAI (linear assembly input) parser, target from the first byte.
pub fn lai(data: &[u8]) {
    let (t, rest) = split_target(data);
    let text = String::from_utf8_lossy(rest);
    let _ = compiler::lai::parse_lai("fuzz.lai", &text, Some(t));
}

/// The assembler of the target named by the first byte.
pub fn asm(data: &[u8]) {
    let (t, rest) = split_target(data);
    let text = String::from_utf8_lossy(rest);
    let _ = simulator::asm::assemble(&text, Some(t));
}

/// Numbers that stress sizes and fields: past 64 bits, at the edges of 32 and 64 bits,
/// beyond the memory-image limit.
const LARGE_NUMBERS: [&str; 10] = [
    "1 << 200",
    "268435456",
    "18446744073709551615",
    "9223372036854775807 + 1",
    "4294967296",
    "-2147483649",
    "(1 << 62) * 4",
    "0x7fffffff",
    "67108865",
    "1 << 63",
];

/// The most lines [`large_sizes`] builds.
pub const LARGE_MAX_LINES: usize = 1 << 16;

/// The most template bytes [`large_sizes`] repeats (the text is at most about 2 MiB, plus the
/// numbers substituted for `#`).
pub const LARGE_MAX_BYTES: usize = 2 << 20;

/// Large-size inputs for the LAI parser and the assemblers (issue 27): byte 0 picks the
/// reader and the target (bit 0: target, bit 1: LAI or assembly); bytes 1-2 a repeat count
/// (up to [`LARGE_MAX_LINES`], and [`LARGE_MAX_BYTES`] of template in all); the rest is a
/// line template in which every `#` becomes one of [`LARGE_NUMBERS`] (chosen by the
/// template's bytes) and every `@` the line's number. The line is repeated that many times
/// after a header that opens a function (and, for bit 2, a `.data` section), so that small
/// fuzz inputs become programs of 10^4-10^5 lines with huge `.space` directives, constants
/// and label counts. Must return, bounded by the limits: parsing is linear and images are
/// capped.
pub fn large_sizes(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let target = if mode & 1 == 1 {
        Target::St120
    } else {
        Target::St231
    };
    let (count, template) = match rest {
        [a, b, t @ ..] => (usize::from(u16::from_le_bytes([*a, *b])), t),
        _ => (1, rest),
    };
    let template = String::from_utf8_lossy(template);
    // Bounded in lines and in bytes (a long template repeated would be gigabytes).
    let count = count
        .min(LARGE_MAX_LINES)
        .min(LARGE_MAX_BYTES / (template.len() + 1).max(1));
    let mut text = String::with_capacity(count * (template.len() + 24) + 64);
    let lai = mode & 2 == 2;
    if lai {
        text.push_str(&format!(".target {target}\n"));
    } else {
        text.push_str("main:\n");
        if mode & 4 == 4 {
            text.push_str(".data\n");
        }
    }
    let bytes = template.as_bytes();
    for line in 0..count {
        for (k, ch) in template.chars().enumerate() {
            match ch {
                '#' => {
                    let pick = bytes.get(k).copied().unwrap_or(0) as usize + line;
                    text.push_str(LARGE_NUMBERS[pick % LARGE_NUMBERS.len()]);
                }
                '@' => text.push_str(&line.to_string()),
                c => text.push(c),
            }
        }
        text.push('\n');
    }
    if lai {
        let _ = compiler::lai::parse_lai("fuzz.lai", &text, Some(target));
    } else {
        let _ = simulator::asm::assemble(&text, Some(target));
    }
}

/// The object-file reader; a file it accepts is also disassembled.
pub fn object(data: &[u8]) {
    if let Ok(obj) = Object::from_bytes(data) {
        let _ = simulator::asm::disassemble(&obj);
    }
}

/// The instruction decoders: ST231 bundles and ST120 words.
pub fn decode(data: &[u8]) {
    let words: Vec<u32> = data
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for k in 0..words.len() {
        let _ = simulator::isa::st231::encoding::decode_bundle(&words[k..]);
        let _ = simulator::isa::st120::encoding::decode(words[k]);
    }
}

/// The simulator of the target named by the first byte, running the rest as code (the data
/// section gets the same bytes), with a small cycle budget.
pub fn sim(data: &[u8]) {
    let (t, rest) = split_target(data);
    let mut obj = Object::new(t);
    let n = rest.len() / 4 * 4;
    obj.code = rest[..n].to_vec();
    if obj.code.is_empty() {
        obj.code = vec![0; 4];
    }
    obj.data = rest.iter().rev().copied().take(256).collect();
    obj.data_base =
        simulator::machine::memory::data_base_after(obj.code_base, obj.code.len() as u32);
    obj.entry = obj.code_base;
    if obj.validate().is_err() {
        return;
    }
    let opts = RunOptions {
        max_cycles: SIM_CYCLES,
        max_output: 1 << 12,
        max_call_depth: 1000,
        ..RunOptions::default()
    };
    let _ = simulator::sim::run(&obj, &opts);
}

/// Tokens that open nesting or start constructs, inserted in runs by [`mutate`].
const TOKENS: &[&str] = &[
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "#if 1\n",
    "#endif\n",
    "#define A A A\n",
    "#include \"x.h\"\n",
    "/*",
    "*/",
    "\"",
    "'",
    "\\\n",
    "-",
    "*",
    "&",
    "if (1) ",
    "while (0) ",
    "int ",
    "struct s {",
    ";",
    ",",
    "0x",
    "999999999999999999999",
    "%0",
    "^",
    "phi ",
    "b0:\n",
    ".proc",
    ".endp\n",
    "$r",
    "R",
    "P15",
    ";;\n",
    "\n",
    "\0",
    "\u{fffd}",
    "=",
    "goto ",
    "call ",
    "[b0: ",
];

/// A random change of `base` (and sometimes of `other`, spliced in).
pub fn mutate(rng: &mut Rng, base: &[u8], other: &[u8]) -> Vec<u8> {
    let mut v = base.to_vec();
    let rounds = 1 + rng.below(4);
    for _ in 0..rounds {
        let len = v.len() as u64;
        let at = rng.below(len + 1) as usize;
        match rng.below(8) {
            0 => {
                // flip bits of a few bytes
                for _ in 0..1 + rng.below(8) {
                    if !v.is_empty() {
                        let k = rng.below(v.len() as u64) as usize;
                        v[k] ^= 1 << rng.below(8);
                    }
                }
            }
            1 => {
                // delete a range
                let n = rng.below((len - at as u64).min(64) + 1) as usize;
                v.drain(at..at + n);
            }
            2 => {
                // duplicate a range
                let n = rng.below((len - at as u64).min(256) + 1) as usize;
                let piece: Vec<u8> = v[at..at + n].to_vec();
                let to = rng.below(v.len() as u64 + 1) as usize;
                v.splice(to..to, piece);
            }
            3 => v.truncate(at),
            4 => {
                // splice a piece of the other file
                if !other.is_empty() {
                    let from = rng.below(other.len() as u64) as usize;
                    let n = rng.below((other.len() - from) as u64 + 1) as usize;
                    v.splice(at..at, other[from..from + n].iter().copied());
                }
            }
            5 => {
                // a run of one nesting token: absurd nesting
                let t = rng.pick(TOKENS);
                let n = if rng.chance(30) {
                    rng.below(20_000) as usize
                } else {
                    1 + rng.below(8) as usize
                };
                let run = t.repeat(n);
                v.splice(at..at, run.bytes());
            }
            6 => {
                // random bytes
                let n = rng.below(16) as usize;
                let bytes: Vec<u8> = (0..n).map(|_| rng.below(256) as u8).collect();
                v.splice(at..at, bytes);
            }
            _ => {
                // a token
                let t = rng.pick(TOKENS);
                v.splice(at..at, t.bytes());
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_takes_empty_and_garbage_input() {
        let garbage: Vec<u8> = (0..4096u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for t in TARGETS {
            (t.run)(&[]);
            (t.run)(&[1]);
            (t.run)(&garbage);
        }
    }

    #[test]
    fn mutation_is_deterministic_and_changes_input() {
        let base = b"int main(void) { return 0; }".to_vec();
        let a: Vec<Vec<u8>> = {
            let mut r = Rng::new(5);
            (0..20).map(|_| mutate(&mut r, &base, b"x")).collect()
        };
        let b: Vec<Vec<u8>> = {
            let mut r = Rng::new(5);
            (0..20).map(|_| mutate(&mut r, &base, b"x")).collect()
        };
        assert_eq!(a, b);
        assert!(a.iter().any(|m| *m != base));
    }
}
