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
