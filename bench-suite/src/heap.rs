//! A counting global allocator: mimalloc underneath (see `main.rs` for why), plus the bytes
//! currently allocated and their peak while a measurement is on ([`measure_peak`]). Used by
//! `ssalab throughput --out-of-ssa` to report the peak heap of each pass by count, not by
//! estimate. Off, it costs one relaxed atomic load per allocation.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering::Relaxed};

/// The counting wrapper around mimalloc.
pub struct Counting;

static ON: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// Whether this thread is the one being measured: allocations and frees of other threads
    /// (the test harness runs tests side by side) must not move the counters.
    static MEASURED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether an allocation event counts: a measurement is on and this is its thread. (A
/// const-initialised `Cell<bool>` has no destructor, so the access never allocates.)
fn counting() -> bool {
    ON.load(Relaxed) && MEASURED.try_with(|m| m.get()).unwrap_or(false)
}
static CURRENT: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

fn grew(bytes: isize) {
    let now = CURRENT.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call is forwarded unchanged to mimalloc; the counters do not touch memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { mimalloc::MiMalloc.alloc(layout) };
        if !p.is_null() && counting() {
            grew(layout.size() as isize);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) };
        if !p.is_null() && counting() {
            grew(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) };
        if counting() {
            CURRENT.fetch_sub(layout.size() as isize, Relaxed);
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) };
        if !p.is_null() && counting() {
            grew(new_size as isize - layout.size() as isize);
        }
        p
    }
}

/// Runs `f` (on this thread; other threads' allocations are not counted) and returns its result and
/// the peak of the heap bytes allocated above the level at its start (memory freed during
/// `f` that was allocated before it lowers the level, so this is the peak net growth).
pub fn measure_peak<R>(f: impl FnOnce() -> R) -> (R, u64) {
    CURRENT.store(0, Relaxed);
    PEAK.store(0, Relaxed);
    BASE.store(0, Relaxed);
    OVERALL.store(0, Relaxed);
    MEASURED.with(|m| m.set(true));
    ON.store(true, Relaxed);
    let r = f();
    ON.store(false, Relaxed);
    MEASURED.with(|m| m.set(false));
    let peak = PEAK.load(Relaxed).max(OVERALL.load(Relaxed));
    (r, peak.max(0) as u64)
}

/// Inside [`measure_peak`]: the peak heap growth since the previous checkpoint (or the start),
/// above the level at that point; the next interval starts at the current level. Lets a
/// measurement attribute its peak to the phases it runs (passes, per `throughput --backend`).
pub fn checkpoint() -> u64 {
    let now = CURRENT.load(Relaxed);
    let peak = PEAK.swap(now, Relaxed);
    OVERALL.fetch_max(peak, Relaxed);
    let base = BASE.swap(now, Relaxed);
    (peak - base).max(0) as u64
}

/// The highest peak of the intervals closed by [`checkpoint`].
static OVERALL: AtomicIsize = AtomicIsize::new(0);

/// The level at the last [`checkpoint`].
static BASE: AtomicIsize = AtomicIsize::new(0);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vector_of_a_million_words_peaks_at_its_size() {
        let ((), peak) = measure_peak(|| {
            let v = vec![1u64; 1 << 20];
            std::hint::black_box(&v);
        });
        assert!(peak >= 8 << 20, "{peak}");
        assert!(peak < 9 << 20, "{peak}");
    }
}
