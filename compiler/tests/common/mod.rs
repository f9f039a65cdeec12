//! Helpers shared by the compiler's integration tests (each test file includes this module
//! with `mod common;`).

use std::path::{Path, PathBuf};

/// Every `.c` program of `programs/{dsp,codec,features}`, sorted by path. A missing group
/// directory is a broken checkout, not an empty suite: it panics.
pub fn c_programs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../programs");
    let mut paths = Vec::new();
    for group in ["dsp", "codec", "features"] {
        let dir =
            std::fs::read_dir(root.join(group)).unwrap_or_else(|e| panic!("programs/{group}: {e}"));
        paths.extend(
            dir.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "c")),
        );
    }
    paths.sort();
    paths
}
