//! The fuzz targets of `ssalab::fuzz::inputs` as ordinary tests with a time budget: each
//! target gets mutated inputs from a seed corpus of real files for `SSALAB_FUZZ_SECS`
//! seconds (default 3; `SSALAB_FUZZ_SECS=600` is a ten-minute campaign per target), plus
//! the hand-made bad inputs of a new user (truncated files, binary garbage, absurd nesting,
//! a 10^5-line function, a program that never stops). An input that panics, runs longer than
//! `HANG_SECS` or overflows the stack (which aborts this test binary) fails the test; the
//! panicking or hanging input is written under the target directory and named in the failure.
//!
//! Each input runs on a worker thread with an 8 MiB stack (a main thread's usual size), so a
//! recursion without a depth cap shows up here as it would for the command line.

use ssalab::fuzz::inputs::{mutate, target, FuzzTarget, TARGETS};
use ssalab::fuzz::rng::Rng;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// An input running longer than this is a hang.
const HANG_SECS: u64 = 20;
const STACK: usize = 8 << 20;

fn budget() -> Duration {
    let secs = std::env::var("SSALAB_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(3.0);
    Duration::from_secs_f64(secs)
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Files under `dir` (recursively) whose name ends with `ext`, sorted, at most `max`.
fn files(dir: &Path, ext: &str, max: usize) -> Vec<Vec<u8>> {
    let mut paths = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(ext) {
                paths.push(p);
            }
        }
    }
    paths.sort();
    paths.truncate(max);
    paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

/// Assembled objects of the simulator's test programs (serialised).
fn objects() -> Vec<Vec<u8>> {
    let mut v = Vec::new();
    for (t, dir) in [
        (simulator::isa::Target::St231, "st231"),
        (simulator::isa::Target::St120, "st120"),
    ] {
        for src in files(&root().join("simulator/tests/programs").join(dir), ".s", 40) {
            if let Ok(obj) = simulator::asm::assemble(&String::from_utf8_lossy(&src), Some(t)) {
                v.push(obj.to_bytes());
            }
        }
    }
    v
}

/// The seed corpus of `name`.
fn corpus(name: &str) -> Vec<Vec<u8>> {
    let r = root();
    let with_target = |v: Vec<Vec<u8>>, b: u8| -> Vec<Vec<u8>> {
        v.into_iter()
            .map(|mut f| {
                f.insert(0, b);
                f
            })
            .collect()
    };
    let mut c = match name {
        "c_front" => files(&r.join("programs"), ".c", 200),
        "lai" => {
            let mut v = with_target(files(&r.join("compiler/tests/lai"), ".lai", 100), 0);
            v.extend(with_target(files(&r.join("programs/lai"), ".lai", 100), 1));
            v
        }
        "asm" => {
            let mut v = with_target(
                files(&r.join("simulator/tests/programs/st231"), ".s", 100),
                0,
            );
            v.extend(with_target(
                files(&r.join("simulator/tests/programs/st120"), ".s", 100),
                1,
            ));
            v
        }
        "object" => objects(),
        "decode" | "sim" => {
            // Object bytes contain real code; the target byte comes first for `sim`.
            objects()
                .into_iter()
                .enumerate()
                .map(|(k, mut o)| {
                    o.insert(0, k as u8);
                    o
                })
                .collect()
        }
        "large_sizes" => {
            // mode byte, repeat count (little-endian u16), line template (see large_sizes).
            let seed = |mode: u8, count: u16, line: &str| {
                let mut v = vec![mode];
                v.extend(count.to_le_bytes());
                v.extend(line.as_bytes());
                v
            };
            vec![
                seed(4, 10_000, ".space #"),
                seed(4, 60_000, "v@: .word #"),
                seed(5, 20_000, ".zero #, #"),
                seed(0, 30_000, "l@: mov $r16 = # ;;"),
                seed(1, 30_000, "l@: make R0, #"),
                seed(2, 20_000, "  mov $r@ = #"),
                seed(3, 20_000, ".space #"),
                seed(0, 65_535, "call l@ ;;"),
            ]
        }
        _ => Vec::new(),
    };
    if c.is_empty() {
        c.push(Vec::new());
    }
    c
}

/// Runs inputs of one target on a worker thread; fails on a panic or a hang.
struct Runner {
    target: FuzzTarget,
    tx: mpsc::Sender<Vec<u8>>,
    rx: mpsc::Receiver<Result<(), String>>,
}

impl Runner {
    fn new(target: FuzzTarget) -> Runner {
        let (tx, work) = mpsc::channel::<Vec<u8>>();
        let (done, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name(format!("fuzz-{}", target.name))
            .stack_size(STACK)
            .spawn(move || {
                for input in work {
                    let r = std::panic::catch_unwind(|| (target.run)(&input)).map_err(|p| {
                        p.downcast_ref::<String>()
                            .cloned()
                            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_else(|| "non-string panic".into())
                    });
                    if done.send(r).is_err() {
                        break;
                    }
                }
            })
            .unwrap();
        Runner { target, tx, rx }
    }

    /// Runs `input`; panics (failing the test) on a panic or a hang, saving the input.
    fn run(&self, input: Vec<u8>) {
        self.tx.send(input.clone()).unwrap();
        match self.rx.recv_timeout(Duration::from_secs(HANG_SECS)) {
            Ok(Ok(())) => {}
            Ok(Err(msg)) => self.fail(&input, &format!("panicked: {msg}")),
            Err(_) => self.fail(&input, &format!("ran longer than {HANG_SECS} s")),
        }
    }

    fn fail(&self, input: &[u8], what: &str) -> ! {
        let dir = std::env::temp_dir().join("ssalab-fuzz-inputs");
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join(format!("{}-{}.bin", self.target.name, std::process::id()));
        let _ = std::fs::write(&path, input);
        let shown: String = String::from_utf8_lossy(&input[..input.len().min(300)]).into();
        panic!(
            "fuzz target {} {what} on an input of {} bytes (saved to {}): {shown:?}",
            self.target.name,
            input.len(),
            path.display()
        );
    }
}

/// Mutated corpus inputs for the time budget; returns the number of inputs run.
fn campaign(name: &str, seed: u64) -> u64 {
    let t = target(name).unwrap();
    let corpus = corpus(name);
    let runner = Runner::new(t);
    for c in &corpus {
        runner.run(c.clone());
    }
    let mut rng = Rng::new(seed);
    let start = Instant::now();
    let mut n = corpus.len() as u64;
    while start.elapsed() < budget() {
        let a = rng.choose(&corpus);
        let b = rng.choose(&corpus);
        runner.run(mutate(&mut rng, a, b));
        n += 1;
    }
    eprintln!(
        "fuzz target {name}: {n} inputs in {:.1} s (corpus {})",
        start.elapsed().as_secs_f64(),
        corpus.len()
    );
    n
}

#[test]
fn c_front_end_survives_mutated_programs() {
    assert!(campaign("c_front", 1) > 1);
}

#[test]
fn lai_parser_survives_mutated_files() {
    assert!(campaign("lai", 2) > 1);
}

#[test]
fn assembler_survives_mutated_sources() {
    assert!(campaign("asm", 3) > 1);
}

#[test]
fn object_reader_survives_mutated_objects() {
    assert!(campaign("object", 4) > 1);
}

#[test]
fn decoders_survive_mutated_code() {
    assert!(campaign("decode", 5) > 1);
}

#[test]
fn simulators_survive_random_code() {
    assert!(campaign("sim", 6) > 1);
}

#[test]
fn lai_and_assemblers_survive_large_sizes() {
    assert!(campaign("large_sizes", 7) > 1);
}

/// The inputs a new user might try, on every target.
#[test]
fn a_new_users_bad_inputs() {
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    let deep = |open: &str, close: &str, n: usize| format!("{}{}", open.repeat(n), close.repeat(n));
    for n in [1_000, 100_000] {
        inputs.push(format!("int main(void) {{ return {}; }}", deep("(", ")", n)).into_bytes());
        inputs.push(format!("int main(void) {}", deep("{", "}", n)).into_bytes());
        inputs.push(format!("int main(void) {{ return {}1; }}", "-".repeat(n)).into_bytes());
        inputs
            .push(format!("{}int x;\n{}", "#if 1\n".repeat(n), "#endif\n".repeat(n)).into_bytes());
        inputs.push(format!("int x = {};", deep("{", "}", n)).into_bytes());
        inputs.push(
            format!(
                "int main(void) {{ int x = 0; {}x = 1; return x; }}",
                "if (x) ".repeat(n)
            )
            .into_bytes(),
        );
    }
    // A 10^5-line function, and a program that never stops (the front end must only parse it).
    let mut long = String::from("int main(void) {\n  int x = 0;\n");
    for i in 0..100_000 {
        long.push_str(&format!("  x = x + {i};\n"));
    }
    long.push_str("  return x & 1;\n}\n");
    inputs.push(long.into_bytes());
    inputs.push(b"int main(void) { for (;;) ; }".to_vec());
    inputs.push(b"#define A A A\nA".to_vec());
    inputs.push(b"#include \"fuzz.c\"\n".to_vec());
    inputs.push(vec![0xff; 10_000]);
    inputs.push(Vec::new());
    for t in TARGETS {
        let runner = Runner::new(*t);
        for i in &inputs {
            runner.run(i.clone());
            // Truncations of the same input.
            runner.run(i[..i.len() / 2].to_vec());
        }
    }
}
