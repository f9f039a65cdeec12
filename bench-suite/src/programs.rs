//! Discovery of the C programs under `programs/`.

use std::path::{Path, PathBuf};

/// The repository's `programs/` directory (from the crate's location at build time).
pub fn programs_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(|p| p.join("programs"))
        .unwrap_or_else(|| PathBuf::from("programs"))
}

/// Every `.c` file under `root` whose directory is not `include`, sorted.
pub fn c_programs(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    collect(root, &mut out);
    out.sort();
    out
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "include") {
                collect(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "c") {
            out.push(p);
        }
    }
}

/// Runs `check` on every program, split over `workers` threads, and returns the failures it
/// reported, in program order (the differential tests use it; the machine has two cores).
pub fn check_in_parallel<F>(programs: &[PathBuf], workers: usize, check: F) -> Vec<String>
where
    F: Fn(&Path, &mut Vec<String>) + Sync,
{
    if programs.is_empty() {
        return Vec::new();
    }
    let chunk = programs.len().div_ceil(workers.max(1));
    std::thread::scope(|s| {
        let handles: Vec<_> = programs
            .chunks(chunk)
            .map(|part| {
                let check = &check;
                s.spawn(move || {
                    let mut failures = Vec::new();
                    for p in part {
                        check(p, &mut failures);
                    }
                    failures
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("worker"))
            .collect()
    })
}
