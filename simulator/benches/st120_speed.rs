//! Simulation-speed benchmark for the ST120 (run explicitly, in release mode):
//! `cargo bench -p ssalab-simulator --bench st120_speed`.
//! Kernels are long-running loops; the figure is simulated operations per host second with
//! every counter and the per-function profiler on (the only mode there is).

use simulator::asm::assemble;
use simulator::machine::RunOptions;
use simulator::sim::run;
use simulator::Target;

/// Dot product of two 256-element 16-bit vectors with post-increment loads and a MAC chain,
/// repeated OUTER times; a call per repetition.
const DOT: &str = "
        .data
a:      .space 512
b:      .space 512
        .text
main:   MAKE R5, OUTER_HI
        MOVEA P10, P11 ;;
        MORE R5, OUTER_LO ;;
outer:  CALL dot ;;
        SUB R5, R5, 1 ;;
        NEW G1, R5, 0 ;;
        G1! GOTO done ;;
        GOTO outer ;;
done:   MOVE R0, R3
        MOVEA P11, P10 ;;
        RTS ;;
dot:    MAKEA P0, %hi(a)
        MAKEA P1, %hi(b) ;;
        MOREA P0, %lo(a)
        MOREA P1, %lo(b) ;;
        MAKE R4, 256
        MAKE R3, 0 ;;
loop:   LDH R1, @(P0 !+ 1)
        LDH R2, @(P1 !+ 1) ;;
        MASSLL R3, R3, R1, R2
        SUB R4, R4, 1 ;;
        ADD R6, R6, R1
        EQW G0, R4, 0 ;;
        XOR R7, R7, R2
        G0! GOTO loop ;;
        RTS ;;
";

/// A call-heavy loop: every iteration calls a leaf function (a profiler event at each call
/// and return). 8 groups, 11 operations per iteration.
const CALLS: &str = "
main:   MAKE R5, OUTER_HI ;;
        MORE R5, OUTER_LO ;;
        MOVEA P10, P11 ;;
loop:   MOVE R0, R5
        ADD R7, R7, 1 ;;
        CALL leaf ;;
        ADD R8, R8, R0
        SUB R5, R5, 1 ;;
        EQW G0, R5, 0 ;;
        G0! GOTO loop ;;
        MOVEA P11, P10
        MOVE R0, R8 ;;
        RTS ;;
leaf:   ADD R0, R0, R0
        XOR R1, R0, 5 ;;
        ADD R0, R0, R1 ;;
        RTS ;;
";

/// Straight-line ALU work in 2-operation groups with a loop every 16 groups.
const ALU: &str = "
main:   MAKE R5, OUTER_HI ;;
        MORE R5, OUTER_LO ;;
loop:   ADD R1, R1, R2
        XOR R3, R3, R4 ;;
        SUB R2, R2, 3
        AND R4, R4, R1 ;;
        ADD R6, R6, R1
        OR R7, R7, R3 ;;
        SHL R8, R1, 3
        ADD R9, R9, 1 ;;
        ADD R1, R1, R2
        XOR R3, R3, R4 ;;
        SUB R2, R2, 3
        AND R4, R4, R1 ;;
        ADD R6, R6, R1
        OR R7, R7, R3 ;;
        SHL R8, R1, 3
        ADD R9, R9, 1 ;;
        ADD R1, R1, R2
        XOR R3, R3, R4 ;;
        SUB R2, R2, 3
        AND R4, R4, R1 ;;
        ADD R6, R6, R1
        OR R7, R7, R3 ;;
        SHL R8, R1, 3
        ADD R9, R9, 1 ;;
        ADDWA P1, P1, 1
        SUB R5, R5, 1 ;;
        LDW R10, @(P2 + 0)
        EQW G0, R5, 0 ;;
        MOVE R11, R10
        ADD R12, R12, R11 ;;
        SHRW R13, R12, 2
        G0! GOTO loop ;;
        MOVE R0, R9 ;;
        RTS ;;
";

/// CPU time of this thread in seconds (the machine is shared; wall time is noisy).
fn thread_cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e9)
}

/// A FIR filter written like unscheduled compiled code: mostly one operation per group,
/// post-increment halfword loads, a MAC, a store, a copy, two nested loops, a call per
/// repetition (about 1.2 operations per group).
const FIR: &str = "
        .data
x:      .space 2048
h:      .space 64
y:      .space 2048
        .text
main:   MOVEA P10, P11 ;;
        MAKE R9, OUTER_HI ;;
        MORE R9, OUTER_LO ;;
rep:    CALL fir ;;
        SUB R9, R9, 1 ;;
        EQW G1, R9, 0 ;;
        G1! GOTO rep ;;
        MOVEA P11, P10 ;;
        MOVE R0, R3 ;;
        RTS ;;
fir:    MAKEA P0, %hi(x) ;;
        MOREA P0, %lo(x) ;;
        MAKEA P2, %hi(y) ;;
        MOREA P2, %lo(y) ;;
        MAKE R0, 480 ;;
outer:  MOVEA P4, P0 ;;          ## copy
        MAKEA P1, %hi(h) ;;
        MOREA P1, %lo(h) ;;
        MAKE R3, 0 ;;
        MAKE R1, 32 ;;
inner:  LDH R4, @(P4 !+ 1)
        LDH R5, @(P1 !+ 1) ;;
        MASSLL R3, R3, R4, R5 ;;
        SUB R1, R1, 1 ;;
        EQW G0, R1, 0 ;;
        G0! GOTO inner ;;
        SHRW R6, R3, 15 ;;
        SDH @(P2 !+ 1), R6 ;;
        ADDHA P0, P0, 1 ;;
        SUB R0, R0, 1 ;;
        EQW G2, R0, 0 ;;
        G2! GOTO outer ;;
        RTS ;;
";

fn bench(name: &str, src: &str, outer: u32) {
    // ST120_BENCH_ONLY=word runs only the kernels whose name contains `word`.
    if std::env::var("ST120_BENCH_ONLY").is_ok_and(|w| !name.contains(w.as_str())) {
        return;
    }
    // ST120_BENCH_DIV shrinks the runs (e.g. under valgrind).
    let div: u32 = std::env::var("ST120_BENCH_DIV")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let outer = (outer / div.max(1)).max(1);
    let src = src
        .replace("OUTER_HI", &format!("{}", (outer >> 16) as i16))
        .replace("OUTER_LO", &format!("{}", outer & 0xFFFF));
    let mut src = src;
    if !src.contains(".data") {
        src = format!(".data\nv: .word 7\n.text\n{src}").replace("LDW R10, @(P2 + 0)", "NOP");
    }
    let obj = assemble(&src, Some(Target::St120)).unwrap_or_else(|e| panic!("{e}"));
    let opts = RunOptions {
        max_cycles: 20_000_000_000,
        ..RunOptions::default()
    };
    let mut best = 0.0f64;
    let mut best_cpu = 0.0f64;
    let mut last = None;
    for _ in 0..3 {
        let cpu0 = thread_cpu_seconds();
        let r = run(&obj, &opts);
        let cpu = thread_cpu_seconds() - cpu0;
        assert!(r.trap.is_none(), "{:?}", r.trap);
        best = best.max(r.ops_per_second());
        if cpu > 0.0 {
            best_cpu = best_cpu.max(r.totals.ops as f64 / cpu);
        }
        last = Some(r);
    }
    let r = last.unwrap();
    println!(
        "{name}: {} ops, {} bundles, {} cycles, {} stalls, {} taken; {:.3} s; best {:.0} M ops/s \
         wall, {:.0} M ops/s per CPU second",
        r.totals.ops,
        r.totals.bundles,
        r.totals.cycles,
        r.totals.stall_operand,
        r.totals.taken_branches,
        r.host_seconds,
        best / 1e6,
        best_cpu / 1e6
    );
}

fn main() {
    bench("dot (MAC, post-inc loads, call per 256)", DOT, 100_000);
    bench("alu (16 groups per iteration)", ALU, 4_000_000);
    bench("fir (unscheduled, 1.2 ops per group)", FIR, 1_000);
    bench("calls (call + return per 8 groups)", CALLS, 5_000_000);
}
