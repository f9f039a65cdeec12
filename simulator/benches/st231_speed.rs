//! Simulation speed of the ST231 simulator: simulated operations per host second, with all
//! counters on, on long-running kernels. Run with `cargo bench -p ssalab-simulator --bench
//! st231_speed`; prints one line per kernel (best of 5 runs).

use simulator::asm::assemble;
use simulator::isa::Target;
use simulator::machine::RunOptions;
use simulator::sim::run;

/// A dot-product-like loop in the style of the W1 workload (docs/reliability.md, "Simulation speed"):
/// `s += a[i]*b[i] + (s >> 3)` over 1000 words, repeated. 5 bundles, 12 operations per
/// iteration, with load-use and multiply stalls.
const DOT: &str = "
.target st231
main:
    mov $r20 = REPS ;;
outer:
    mov $r1 = a ;;
    mov $r2 = b ;;
    mov $r3 = 1000
    mov $r6 = 0 ;;
loop:
    ldw $r4 = 0[$r1]
    add $r1 = $r1, 4
    add $r3 = $r3, -1
    shr $r8 = $r6, 3 ;;
    ldw $r5 = 0[$r2]
    add $r2 = $r2, 4
    cmpgt $b0 = $r3, 0
    add $r6 = $r6, $r8 ;;
    mul32 $r7 = $r4, $r5 ;;
    add $r6 = $r6, $r7
    add $r9 = $r9, 1 ;;
    br $b0, loop ;;
    add $r20 = $r20, -1 ;;
    cmpgt $b1 = $r20, 0 ;;
    br $b1, outer ;;
    mov $r16 = $r6 ;;
    return $r63 ;;
.data
a: .space 4000, 3
b: .space 4000, 5
";

/// A wide loop: 4 independent ALU operations in each of 7 bundles, then a branch bundle
/// (29 operations per 8 bundles), no stalls once running.
const WIDE: &str = "
.target st231
main:
    mov $r20 = REPS ;;
loop:
    add $r1 = $r1, 1
    xor $r2 = $r2, $r1
    sh1add $r3 = $r3, $r4
    max $r4 = $r4, $r5 ;;
    sub $r5 = $r5, $r6
    and $r6 = $r6, 255
    or $r7 = $r7, $r8
    shru $r8 = $r8, 1 ;;
    add $r9 = $r9, 3
    min $r10 = $r10, $r9
    cmplt $r11 = $r9, $r10
    orc $r12 = $r12, $r13 ;;
    add $r13 = $r13, $r14
    sh2add $r14 = $r14, $r1
    minu $r15 = $r15, $r2
    maxu $r21 = $r21, $r3 ;;
    add $r22 = $r22, 1
    xor $r23 = $r23, $r22
    shl $r24 = $r24, 1
    cmpeq $r25 = $r24, 0 ;;
    add $r26 = $r26, $r25
    andc $r27 = $r27, $r26
    sh3add $r28 = $r28, $r27
    add $r20 = $r20, -1 ;;
    cmpgt $b0 = $r20, 0
    add $r29 = $r29, 7
    xor $r30 = $r30, $r29
    add $r31 = $r31, $r30 ;;
    add $r32 = $r32, 1
    br $b0, loop ;;
    mov $r16 = $r31 ;;
    return $r63 ;;
";

/// Nanoseconds this thread has spent on a CPU (Linux `/proc/thread-self/schedstat`), so that
/// the rate is not diluted by time slices given to other processes on a shared machine.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// A call-heavy loop: every iteration calls a leaf function (profiler events at each call
/// and return). 6 bundles, 12 operations per iteration.
const CALLS: &str = "
.target st231
main:
    add $r12 = $r12, -16
    mov $r20 = REPS ;;
    stw 0[$r12] = $r63 ;;
loop:
    mov $r16 = $r20
    add $r20 = $r20, -1
    add $r21 = $r21, 1 ;;
    call leaf ;;
    add $r22 = $r22, $r16
    cmpgt $b0 = $r20, 0 ;;
    br $b0, loop ;;
    ldw $r63 = 0[$r12] ;;
    mov $r16 = $r22
    add $r12 = $r12, 16 ;;
    return $r63 ;;
leaf:
    add $r16 = $r16, $r16
    xor $r17 = $r16, 5
    sh1add $r18 = $r16, $r17 ;;
    add $r16 = $r16, $r18
    return $r63 ;;
";

fn measure(name: &str, src: &str, reps: u32) {
    let src = src.replace("REPS", &reps.to_string());
    let obj = assemble(&src, Some(Target::St231)).expect("kernel assembles");
    let opts = RunOptions {
        max_cycles: u64::MAX,
        ..RunOptions::default()
    };
    let mut best = f64::MAX;
    let mut best_cpu = f64::MAX;
    let mut report = None;
    for _ in 0..5 {
        let c0 = cpu_ns();
        let r = run(&obj, &opts);
        if let (Some(a), Some(b)) = (c0, cpu_ns()) {
            best_cpu = best_cpu.min((b - a) as f64 / 1e9);
        }
        assert!(r.trap.is_none(), "{:?}", r.trap);
        best = best.min(r.host_seconds);
        report = Some(r);
    }
    let r = report.expect("ran");
    let t = &r.totals;
    println!(
        "{name:>6}: {:>6.1} M simulated ops/s wall, {:>6.1} M/s per CPU second  ({} ops, {} bundles, {} cycles, {} stall cycles, {:.3} s; {:.2} ops/bundle, {:.1} ns/bundle)",
        t.ops as f64 / best / 1e6,
        t.ops as f64 / best_cpu / 1e6,
        t.ops,
        t.bundles,
        t.cycles,
        t.stall_operand,
        best,
        t.ops as f64 / t.bundles as f64,
        best * 1e9 / t.bundles as f64
    );
}

fn main() {
    // `ST231_BENCH=dot` or `=wide` runs one kernel only (for profiling).
    let only = std::env::var("ST231_BENCH").ok();
    let want = |k: &str| only.as_deref().is_none_or(|o| o == k);
    if want("dot") {
        measure("dot", DOT, 20_000);
    }
    if want("wide") {
        measure("wide", WIDE, 10_000_000);
    }
    if want("calls") {
        measure("calls", CALLS, 10_000_000);
    }
}
