//! `ssalab run` / `asm` / `disasm` as a user sees them: stdout carries exactly the program's
//! output, counters go to stderr (or CSV/JSON files), the exit status is main's result, a
//! trap exits with status 70 and its message on stderr, a bad input exits with status 1.

use std::path::PathBuf;
use std::process::Command;

fn ssalab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ssalab"))
}

fn temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssalab-machine-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

const HELLO: &str = ".target st231\nmain:\n mov $r16 = msg\n mov $r17 = 3 ;;\n syscall 4 ;;\n mov $r16 = 7 ;;\n return $r63 ;;\n.data\nmsg: .ascii \"hi\\n\"\n";

#[test]
fn run_prints_output_and_returns_main_result() {
    let src = temp("hello.s", HELLO);
    let json = src.with_extension("json");
    let csv = src.with_extension("csv");
    let out = ssalab()
        .args([
            "run",
            src.to_str().unwrap(),
            "--stats-json",
            json.to_str().unwrap(),
            "--stats-csv",
            csv.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.stdout, b"hi\n");
    assert_eq!(out.status.code(), Some(7));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("<total>") && err.contains("main"), "{err}");
    let j = std::fs::read_to_string(&json).unwrap();
    assert!(
        j.contains("\"host_seconds\"") && j.contains("\"sim_ops_per_second\""),
        "{j}"
    );
    let c = std::fs::read_to_string(&csv).unwrap();
    assert!(
        c.starts_with("program,target,function,scope,calls,cycles"),
        "{c}"
    );
    assert!(c.contains(",main,exclusive,1,"), "{c}");
}

#[test]
fn asm_then_run_and_disasm_the_object() {
    let src = temp("hello2.s", HELLO);
    let obj = src.with_extension("o");
    let st = ssalab()
        .args(["asm", src.to_str().unwrap(), "-o", obj.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(st.success());
    let out = ssalab()
        .args(["run", "-q", obj.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        (out.stdout.as_slice(), out.status.code()),
        (&b"hi\n"[..], Some(7))
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let l = ssalab()
        .args(["disasm", obj.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&l.stdout);
    assert!(
        text.contains("<main>:") && text.contains("syscall 4") && text.contains(";;"),
        "{text}"
    );
}

#[test]
fn trap_and_errors() {
    let bad = temp("bad.s", "main:\n ldw $r1 = 0[$r0] ;;\n return $r63 ;;\n");
    let out = ssalab()
        .args(["run", "-q", bad.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(70));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad address 0x00000000") && err.contains("`main`") && err.contains("cycle 0"),
        "{err}"
    );

    let budget = temp("spin.s", "main:\n goto main ;;\n");
    let out = ssalab()
        .args(["run", "-q", "--max-cycles", "50", budget.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(70));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cycle budget"));

    let syntax = temp("syntax.s", "main:\n add $r1 = $r2 ;;\n");
    let out = ssalab()
        .args(["run", syntax.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("syntax.s:2:") && err.contains('^'), "{err}");
}

#[test]
fn trace_goes_to_stderr() {
    let src = temp("trace.s", "main:\n mov $r16 = 1 ;;\n return $r63 ;;\n");
    let out = ssalab()
        .args(["run", "-q", "--trace", src.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("0x00001000  mov $r16 = 1 ;;") && err.contains("return $r63"),
        "{err}"
    );
}

/// `ssalab throughput --sim` compiles and simulates each program for each target and prints a
/// line per program whose operation count is the one `ssalab run` reports, and a summary.
#[test]
fn throughput_sim_counts_what_run_counts() {
    let fir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../programs/dsp/fir.c");
    let out = ssalab()
        .args([
            "throughput",
            "--sim",
            "--repeat",
            "1",
            "--targets",
            "st231,st120",
        ])
        .arg(&fir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    for target in ["st231", "st120"] {
        let json = temp(&format!("fir-{target}.json"), "");
        let run = ssalab()
            .args(["run", "-q", "--target", target])
            .arg(&fir)
            .arg("--stats-json")
            .arg(&json)
            .output()
            .unwrap();
        assert!(run.status.success());
        let stats = std::fs::read_to_string(&json).unwrap();
        let total = &stats[stats.find("\"totals\"").expect("totals")..];
        let ops_at = total.find("\"ops\":").expect("ops field") + 6;
        let ops: String = total[ops_at..]
            .chars()
            .skip_while(|c| c.is_whitespace())
            .take_while(char::is_ascii_digit)
            .collect();
        // The program's line in this target's table: `dsp/fir.c  OPS  CYCLES  CALLS  MS  RATE`.
        let table = &text[text
            .find(&format!("{target} program"))
            .expect("table header")..];
        let line = table
            .lines()
            .find(|l| l.starts_with("dsp/fir.c"))
            .expect("fir line");
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(fields[1], ops, "{target}: {line}");
        assert!(fields[5].parse::<f64>().unwrap() > 0.0, "{line}");
        assert!(table.contains(&format!("{target}: 1 programs")), "{text}");
    }
}
