//! Sweeps that keep their work (issue 27): the journal of finished jobs, resuming from it, and
//! swapping the final files into the output directory at once.
//!
//! * Before the first job, [`Journal::start`] creates the output directory and writes
//!   `bench-journal.toml` (the sweep's definition, manifest and shard: everything `--resume`
//!   needs) and an empty `bench-journal.csv`: an unusable `--out` is found before any work.
//! * As each job ends, [`Journal::append`] appends its rendered share of the output (its
//!   `jobs.csv` record and its `functions.csv` rows, exactly the bytes the final files will
//!   hold) to `bench-journal.csv` in one write, followed by an `end` record, and syncs it. A
//!   job whose `end` record is missing (the sweep was killed while writing it) does not count.
//! * `ssalab bench --resume DIR` reads both files ([`read_journal`]), re-plans the sweep from
//!   the recorded definition (the manifest and job list must still have the recorded
//!   fingerprints), runs only the jobs without a complete record, and writes the same files an
//!   uninterrupted run writes (byte-identical with `--no-times`: the journal holds the rendered
//!   rows, and the final files are a pure function of them).
//! * [`swap_in`] writes the final files into a fresh sibling directory, with hard links to
//!   every other file of the output directory (report tables, plots), and exchanges the two
//!   directories with one `renameat2(RENAME_EXCHANGE)`: a reader sees the old set or the new
//!   set, never a mix. The journal is not carried over: a finished sweep leaves none. Where the
//!   exchange is not available (not Linux, a file system without it, the output directory a
//!   mount point, or one with subdirectories, which are not re-created), the files are renamed
//!   into place one by one, `runs.toml` last, and the journal removed after.
//!
//! Journal records (CSV, variable length): `job,<JOB_COLUMNS...>`, then one
//! `row,<FUNCTION_COLUMNS...>` per row, then `end,<index>`. Linear in the journal's size.

use super::output::{
    parse_job, JobPart, RunsFile, FUNCTIONS_FILE, FUNCTION_COLUMNS, JOBS_FILE, JOB_COLUMNS,
    RUNS_FILE,
};
use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The journal's records.
pub const JOURNAL_FILE: &str = "bench-journal.csv";
/// The journal's header: the sweep to resume.
pub const JOURNAL_HEADER: &str = "bench-journal.toml";

/// An open journal.
pub struct Journal {
    file: File,
    path: PathBuf,
}

impl Journal {
    /// Creates `dir` and a fresh journal in it, described by `header` (a `runs.toml` document
    /// without results). Replaces an older journal. Errors name the directory.
    pub fn start(dir: &Path, header: &RunsFile) -> Result<Journal, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("--out {}: cannot create it: {e}", dir.display()))?;
        let text =
            toml::to_string(header).map_err(|e| format!("cannot write {JOURNAL_HEADER}: {e}"))?;
        super::output::write_atomic(&dir.join(JOURNAL_HEADER), text.as_bytes())
            .map_err(|e| format!("--out {}: {e}", dir.display()))?;
        let path = dir.join(JOURNAL_FILE);
        let file = File::create(&path).map_err(|e| {
            format!(
                "--out {}: cannot write {}: {e}",
                dir.display(),
                path.display()
            )
        })?;
        Ok(Journal { file, path })
    }

    /// Opens an existing journal to append the jobs a resumed sweep runs.
    pub fn reopen(dir: &Path) -> Result<Journal, String> {
        let path = dir.join(JOURNAL_FILE);
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(|e| format!("cannot append to {}: {e}", path.display()))?;
        Ok(Journal { file, path })
    }

    /// Appends one finished job, in one write, and syncs.
    pub fn append(&mut self, part: &JobPart) -> Result<(), String> {
        let mut w = csv::WriterBuilder::new()
            .flexible(true)
            .from_writer(Vec::new());
        let err = |e: csv::Error| format!("journal: {e}");
        let mut job = vec!["job".to_string()];
        job.extend(part.job.to_fields());
        w.write_record(&job).map_err(err)?;
        for r in &part.rows {
            let mut row = Vec::with_capacity(r.len() + 1);
            row.push("row".to_string());
            row.extend(r.iter().cloned());
            w.write_record(&row).map_err(err)?;
        }
        w.write_record(["end".to_string(), part.job.index.to_string()])
            .map_err(err)?;
        let bytes = w.into_inner().map_err(|e| format!("journal: {e}"))?;
        self.file
            .write_all(&bytes)
            .and_then(|()| self.file.sync_data())
            .map_err(|e| format!("cannot append to {}: {e}", self.path.display()))
    }
}

/// A journal read back: the sweep it belongs to and its complete job records by index.
pub struct JournalContents {
    pub header: RunsFile,
    pub parts: HashMap<usize, JobPart>,
}

/// Reads the journal of `dir`. Incomplete trailing records (a kill mid-write) are dropped;
/// a malformed complete record is an error.
pub fn read_journal(dir: &Path) -> Result<JournalContents, String> {
    let hpath = dir.join(JOURNAL_HEADER);
    let text = std::fs::read_to_string(&hpath).map_err(|e| {
        format!(
            "{}: {e} (is {} the --out of an interrupted `ssalab bench`?)",
            hpath.display(),
            dir.display()
        )
    })?;
    let header: RunsFile = toml::from_str(&text)
        .map_err(|e| format!("{}: {}", hpath.display(), e.message().trim()))?;
    let path = dir.join(JOURNAL_FILE);
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .has_headers(false)
        .from_reader(bytes.as_slice());
    let mut parts = HashMap::new();
    let mut open: Option<JobPart> = None;
    for rec in reader.records() {
        let Ok(rec) = rec else {
            break; // a torn last line
        };
        let line = rec.position().map_or(0, |p| p.line());
        let fields: Vec<String> = rec.iter().map(String::from).collect();
        let bad = |what: &str| format!("{}:{line}: {what}", path.display());
        match fields.first().map(String::as_str) {
            Some("job") if fields.len() == JOB_COLUMNS.len() + 1 => {
                let job = parse_job(&path, line, fields[1..].to_vec())?;
                open = Some(JobPart {
                    job,
                    rows: Vec::new(),
                });
            }
            Some("row") if fields.len() == FUNCTION_COLUMNS.len() + 1 => match &mut open {
                Some(p) => p.rows.push(fields[1..].to_vec()),
                None => return Err(bad("a row outside a job record")),
            },
            Some("end") if fields.len() == 2 => {
                let Some(p) = open.take() else {
                    return Err(bad("an end record outside a job record"));
                };
                if fields[1] != p.job.index.to_string() || p.rows.len() != p.job.functions {
                    return Err(bad("the job record does not match its end record"));
                }
                parts.entry(p.job.index).or_insert(p);
            }
            // A record cut short by a kill can only be the last one.
            _ if !bytes.ends_with(b"\n") && rec.position().is_some() => break,
            _ => return Err(bad("not a journal record")),
        }
    }
    Ok(JournalContents { header, parts })
}

/// Writes `files` (name, bytes) into `dir`, replacing the set there at once (see the module
/// documentation), and removes the journal.
pub fn swap_in(dir: &Path, files: &[(&'static str, Vec<u8>)]) -> Result<(), String> {
    let named: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|(n, b)| (n.to_string(), b.clone()))
        .collect();
    swap_in_set(dir, &named, &|_| false)
}

/// As [`swap_in`], for a set that may hold more files than the three data files (the report
/// `ssalab bench` writes beside them): every name of `files` is replaced, and an older file
/// for which `stale` holds (a plot of an earlier report that this one does not write) is
/// dropped instead of carried over.
pub fn swap_in_set(
    dir: &Path,
    files: &[(String, Vec<u8>)],
    stale: &dyn Fn(&str) -> bool,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let dir = std::fs::canonicalize(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let dropped = |name: &std::ffi::OsStr| {
        let name = name.to_string_lossy();
        replaced(name.as_ref()) || files.iter().any(|(n, _)| *n == name) || stale(&name)
    };
    if exchange_in(&dir, files, &dropped).is_ok() {
        return Ok(());
    }
    // `runs.toml` last: it names how many rows the others have, so a reader that finds it
    // new finds the rest new too.
    let (runs, others): (Vec<_>, Vec<_>) = files.iter().partition(|(n, _)| n == RUNS_FILE);
    for (name, bytes) in others.into_iter().chain(runs) {
        super::output::write_atomic(&dir.join(name), bytes)?;
    }
    for name in [JOURNAL_FILE, JOURNAL_HEADER] {
        let _ = std::fs::remove_file(dir.join(name));
    }
    // The file-by-file fallback removes the stale files last, once the new set is in.
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let is_file = entry.file_type().is_ok_and(|t| t.is_file());
            if is_file && stale(&name) && !files.iter().any(|(n, _)| *n == name) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    Ok(())
}

/// Names that the new directory never inherits from the old one.
fn replaced(name: &str) -> bool {
    [
        FUNCTIONS_FILE,
        JOBS_FILE,
        RUNS_FILE,
        JOURNAL_FILE,
        JOURNAL_HEADER,
    ]
    .contains(&name)
}

/// The exchange: stage a sibling directory, link the files of `dir` that are not `dropped`
/// into it, swap.
fn exchange_in(
    dir: &Path,
    files: &[(String, Vec<u8>)],
    dropped: &dyn Fn(&std::ffi::OsStr) -> bool,
) -> std::io::Result<()> {
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
        return Err(std::io::ErrorKind::Unsupported.into());
    };
    let staging = parent.join(format!(
        ".{}.ssalab-new-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    // Only a flat directory of files is re-created by links: anything with subdirectories
    // (`--out .` in a checkout, say) keeps its tree and gets the file-by-file renames.
    for entry in std::fs::read_dir(dir)? {
        if entry?.file_type()?.is_dir() {
            return Err(std::io::ErrorKind::Unsupported.into());
        }
    }
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir(&staging)?;
    let result = (|| {
        for (name, bytes) in files {
            let mut f = File::create(staging.join(name))?;
            f.write_all(bytes)?;
            f.sync_all()?;
        }
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            if !dropped(&entry.file_name()) {
                link_tree(&entry.path(), &staging.join(entry.file_name()))?;
            }
        }
        File::open(&staging)?.sync_all()?;
        exchange(&staging, dir)
    })();
    // After a successful exchange `staging` holds the old set; after a failure, a partial
    // new one. Either way it goes.
    let _ = std::fs::remove_dir_all(&staging);
    result
}

/// Hard links `from` (a file or a symbolic link) to `to`.
fn link_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(from)?;
    if meta.is_dir() {
        Err(std::io::ErrorKind::Unsupported.into())
    } else if meta.file_type().is_symlink() {
        symlink(&std::fs::read_link(from)?, to)
    } else {
        std::fs::hard_link(from, to)
    }
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(not(unix))]
fn symlink(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// Atomically exchanges two directories (Linux `renameat2(RENAME_EXCHANGE)`).
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        CString::new(p.as_os_str().as_bytes())
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))
    };
    let (ca, cb) = (c(a)?, c(b)?);
    // SAFETY: two valid NUL-terminated paths relative to the working directory; the call
    // reads them and touches no memory of ours.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ssalab-journal-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn swap_keeps_other_files_and_drops_the_journal() {
        let dir = scratch("swap");
        std::fs::write(dir.join(FUNCTIONS_FILE), "old").unwrap();
        std::fs::write(dir.join(JOURNAL_FILE), "j").unwrap();
        std::fs::write(dir.join("tables.md"), "tables").unwrap();
        std::fs::write(dir.join("a.svg"), "svg").unwrap();
        let inode = |p: &Path| std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(p).unwrap());
        let before = inode(&dir);
        let files = vec![
            (FUNCTIONS_FILE, b"new f".to_vec()),
            (JOBS_FILE, b"new j".to_vec()),
            (RUNS_FILE, b"new r".to_vec()),
        ];
        swap_in(&dir, &files).unwrap();
        let read = |n: &str| std::fs::read_to_string(dir.join(n)).unwrap();
        assert_eq!(read(FUNCTIONS_FILE), "new f");
        assert_eq!(read(RUNS_FILE), "new r");
        assert_eq!(read("tables.md"), "tables");
        assert_eq!(read("a.svg"), "svg");
        assert!(!dir.join(JOURNAL_FILE).exists());
        // The directory itself was exchanged (a new inode), not its files renamed.
        assert_ne!(inode(&dir), before);
        // With a subdirectory, the files are renamed in instead, and the tree is kept.
        std::fs::create_dir_all(dir.join("plots")).unwrap();
        std::fs::write(dir.join("plots/b.svg"), "b").unwrap();
        let before = inode(&dir);
        swap_in(&dir, &files).unwrap();
        assert_eq!(inode(&dir), before);
        assert_eq!(read("plots/b.svg"), "b");
        assert_eq!(read(RUNS_FILE), "new r");
        // No staging directory is left beside it.
        let parent = dir.parent().unwrap();
        let left = std::fs::read_dir(parent)
            .unwrap()
            .filter(|e| {
                let n = e.as_ref().unwrap().file_name();
                n.to_string_lossy().contains("ssalab-new")
                    && n.to_string_lossy().contains("ssalab-journal-swap")
            })
            .count();
        assert_eq!(left, 0);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_set_with_a_report_replaces_the_old_report_and_drops_its_stale_files() {
        let stale = |n: &str| n.starts_with("plot-") || n == "tables.md";
        for with_subdir in [false, true] {
            let dir = scratch(if with_subdir { "set-sub" } else { "set-flat" });
            if with_subdir {
                std::fs::create_dir_all(dir.join("keep")).unwrap();
            }
            std::fs::write(dir.join("tables.md"), "old tables").unwrap();
            std::fs::write(dir.join("plot-old.svg"), "old").unwrap();
            std::fs::write(dir.join("mine.txt"), "mine").unwrap();
            let files: Vec<(String, Vec<u8>)> = [
                (FUNCTIONS_FILE, "f"),
                (JOBS_FILE, "j"),
                (RUNS_FILE, "r"),
                ("tables.md", "new tables"),
                ("plot-new.svg", "new"),
            ]
            .iter()
            .map(|(n, b)| (n.to_string(), b.as_bytes().to_vec()))
            .collect();
            swap_in_set(&dir, &files, &stale).unwrap();
            let read = |n: &str| std::fs::read_to_string(dir.join(n)).unwrap();
            assert_eq!(read("tables.md"), "new tables", "subdir {with_subdir}");
            assert_eq!(read("plot-new.svg"), "new");
            assert_eq!(read("mine.txt"), "mine");
            assert!(!dir.join("plot-old.svg").exists(), "subdir {with_subdir}");
            assert_eq!(dir.join("keep").is_dir(), with_subdir);
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}
