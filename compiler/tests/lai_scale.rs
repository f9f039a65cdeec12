//! Issue 27: a LAI file with 50,000 labels. Reading it (parse, SSA construction, machine-SSA
//! verification), the out-of-SSA translation after it and the register allocator (IRC) stay
//! linear in time and memory: each is measured on 5,000 and 50,000 labels with a counting
//! allocator (this test binary's own) and a clock. The allocator's dense liveness sets (blocks
//! x registers) used to make such a file allocate gigabytes (see docs/robustness.md).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

/// The system allocator, counting the bytes in use and their peak.
struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; the counters do not
// touch the memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = CURRENT.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            let now = CURRENT.fetch_add(new_size, Relaxed) + new_size;
            CURRENT.fetch_sub(layout.size(), Relaxed);
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The counters are global: the tests of this file measure one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Runs `work`; returns the bytes allocated at its peak beyond what was in use before, and
/// its seconds.
fn measure(work: impl FnOnce()) -> (usize, f64) {
    let before = CURRENT.load(Relaxed);
    PEAK.store(before, Relaxed);
    let t = std::time::Instant::now();
    work();
    let seconds = t.elapsed().as_secs_f64();
    (PEAK.load(Relaxed).saturating_sub(before), seconds)
}

/// A function of `labels` blocks, each a label and one redefinition of `%x` (so SSA
/// construction renames `%x` once per block), plus a branch back to the block's own label
/// when `loops` (a phi per block).
fn lai(labels: usize, loops: bool) -> String {
    let mut s = String::from(".target st231\n.proc main\n    mov %x = 0\n");
    for i in 0..labels {
        s.push_str(&format!("L{i}:\n    add %x = %x, 1\n"));
        if loops {
            s.push_str(&format!("    cmplt %c = %x, 3\n    br %c, L{i}\n"));
        }
    }
    s.push_str("    mov %z = 0\n    .output %z=$r16\n    return\n.endp\n");
    s
}

/// Peak bytes and seconds of reading `lai(labels, loops)`, of its out-of-SSA translation and
/// of its register allocation.
fn read_and_translate(labels: usize, loops: bool) -> [(usize, f64); 3] {
    let text = lai(labels, loops);
    let mut module = None;
    let read = measure(|| {
        module = Some(compiler::lai::parse_lai("scale.lai", &text, None).expect("parses"));
    });
    let mut module = module.unwrap();
    assert!(module.functions[0].blocks.len() > labels);
    let translate = measure(|| {
        for f in &mut module.functions {
            compiler::out_of_ssa::isolation::run(f).expect("out of SSA");
        }
    });
    let options = compiler::regalloc::RegallocOptions::default();
    let allocate = measure(|| {
        for f in &mut module.functions {
            compiler::regalloc::irc::allocate(f, &options).expect("allocates");
        }
    });
    [read, translate, allocate]
}

/// Bounds, generous for a loaded machine and a debug-ish test build, tight enough for
/// quadratic behaviour (which a tenfold input turns into a hundredfold cost): the 50,000-label
/// file needs at most 25 times the memory and 40 times the time of the 5,000-label one
/// (linear: 10), at most 256 MB and 30 s.
#[test]
fn fifty_thousand_labels_are_linear_in_time_and_memory() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for loops in [false, true] {
        let small = read_and_translate(5_000, loops);
        let large = read_and_translate(50_000, loops);
        for (stage, (s, l)) in ["read", "out-of-SSA", "irc"]
            .iter()
            .zip(small.iter().zip(&large))
        {
            let what = format!("{stage} (loops: {loops}): 5,000 labels {s:?}, 50,000 {l:?}");
            assert!(l.0 < 256 << 20, "{what}");
            assert!(l.0 < 25 * s.0.max(1 << 20), "{what}");
            assert!(l.1 < 30.0, "{what}");
            assert!(l.1 < 40.0 * s.1.max(0.02), "{what}");
        }
    }
}
