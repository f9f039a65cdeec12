//! Reference runs with the host C compiler.
//!
//! Every kernel in `programs/` is valid C; the host compiler's build of it is the oracle that
//! the interpreter and the simulator must match (stdout and exit status). Builds are cached by a
//! hash of the source text and the compiler flags, so a sweep builds each program once.

use std::collections::hash_map::DefaultHasher;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What a host run produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostRun {
    pub stdout: Vec<u8>,
    /// The process exit status (0..=255 on Unix: `main`'s value modulo 256).
    pub exit_code: i32,
}

#[derive(Debug)]
pub enum HostError {
    NoCompiler(String),
    Compile { program: PathBuf, stderr: String },
    Run { program: PathBuf, message: String },
    Io(std::io::Error),
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostError::NoCompiler(c) => write!(f, "host C compiler `{c}` not found"),
            HostError::Compile { program, stderr } => {
                write!(f, "host compiler rejected {}:\n{stderr}", program.display())
            }
            HostError::Run { program, message } => {
                write!(
                    f,
                    "host build of {} failed to run: {message}",
                    program.display()
                )
            }
            HostError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for HostError {}

impl From<std::io::Error> for HostError {
    fn from(e: std::io::Error) -> Self {
        HostError::Io(e)
    }
}

/// The host compiler and its flags.
#[derive(Clone, Debug)]
pub struct HostCompiler {
    pub cc: String,
    pub include_dirs: Vec<PathBuf>,
    pub cache_dir: PathBuf,
    /// Build 32-bit executables (`-m32`), so that `long` and pointers have ssalab's ILP32
    /// sizes. Chosen by [`HostCompiler::new`] when the host can build and run them.
    pub ilp32: bool,
}

impl HostCompiler {
    /// `gcc` (or `$CC`) with `programs/include` on the include path, caching under the system
    /// temporary directory.
    /// 32-bit builds are used when the host supports them (gcc-multilib on Debian).
    pub fn new(programs_root: &Path) -> Self {
        let mut h = HostCompiler {
            cc: std::env::var("CC").unwrap_or_else(|_| "gcc".to_string()),
            include_dirs: vec![programs_root.join("include")],
            cache_dir: std::env::temp_dir().join("ssalab-host-cache"),
            ilp32: false,
        };
        h.ilp32 = h.supports_m32();
        h
    }

    /// Whether `cc -m32` builds and runs a program printing `sizeof(long)` as 4.
    fn supports_m32(&self) -> bool {
        let dir = self.cache_dir.join(format!("probe-{}", std::process::id()));
        if std::fs::create_dir_all(&dir).is_err() {
            return false;
        }
        let src = dir.join("probe.c");
        let exe = dir.join("probe");
        let ok = std::fs::write(&src, "int main(void){return (int)sizeof(long);}\n").is_ok()
            && Command::new(&self.cc)
                .args(["-m32", "-o"])
                .arg(&exe)
                .arg(&src)
                .output()
                .is_ok_and(|o| o.status.success())
            && Command::new(&exe)
                .status()
                .is_ok_and(|s| s.code() == Some(4));
        let _ = std::fs::remove_dir_all(&dir);
        ok
    }

    fn flags(&self) -> Vec<String> {
        let mut f: Vec<String> = ["-std=c99", "-O1", "-w", "-fwrapv"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        if self.ilp32 {
            f.push("-m32".to_string());
        }
        for d in &self.include_dirs {
            f.push(format!("-I{}", d.display()));
        }
        f
    }

    /// Builds `source` (cached) and returns the executable's path.
    pub fn build(&self, source: &Path) -> Result<PathBuf, HostError> {
        let text = std::fs::read(source)?;
        let mut h = DefaultHasher::new();
        text.hash(&mut h);
        self.cc.hash(&mut h);
        self.flags().hash(&mut h);
        // Headers may change too: hash the include directories' files.
        for d in &self.include_dirs {
            hash_dir(d, &mut h);
        }
        let stem = source
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        std::fs::create_dir_all(&self.cache_dir)?;
        let exe = self.cache_dir.join(format!("{stem}-{:016x}", h.finish()));
        if exe.exists() {
            return Ok(exe);
        }
        // Build into a unique temporary name, then rename: concurrent builders never see a
        // half-written executable.
        let tmp = self.cache_dir.join(format!(
            "{stem}-{:016x}.tmp{}",
            h.finish(),
            std::process::id()
        ));
        let out = Command::new(&self.cc)
            .args(self.flags())
            .arg(source)
            .arg("-o")
            .arg(&tmp)
            .output()
            .map_err(|_| HostError::NoCompiler(self.cc.clone()))?;
        if !out.status.success() {
            return Err(HostError::Compile {
                program: source.to_path_buf(),
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
        std::fs::rename(&tmp, &exe)?;
        Ok(exe)
    }

    /// Builds C source text without caching (for one-off programs such as the fuzzer's):
    /// writes `dir/prog.c`, compiles it to `dir/prog` and returns the executable's path.
    pub fn build_text(&self, text: &str, dir: &Path) -> Result<PathBuf, HostError> {
        std::fs::create_dir_all(dir)?;
        let source = dir.join("prog.c");
        let exe = dir.join("prog");
        std::fs::write(&source, text)?;
        let _ = std::fs::remove_file(&exe);
        let out = Command::new(&self.cc)
            .args(self.flags())
            .arg(&source)
            .arg("-o")
            .arg(&exe)
            .output()
            .map_err(|_| HostError::NoCompiler(self.cc.clone()))?;
        if !out.status.success() {
            return Err(HostError::Compile {
                program: source,
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
        Ok(exe)
    }

    /// Builds and runs `source`, returning its stdout and exit status.
    pub fn run(&self, source: &Path) -> Result<HostRun, HostError> {
        let exe = self.build(source)?;
        let out = Command::new(&exe).output().map_err(|e| HostError::Run {
            program: source.to_path_buf(),
            message: e.to_string(),
        })?;
        let exit_code = out.status.code().ok_or_else(|| HostError::Run {
            program: source.to_path_buf(),
            message: "killed by a signal".to_string(),
        })?;
        Ok(HostRun {
            stdout: out.stdout,
            exit_code,
        })
    }
}

fn hash_dir(dir: &Path, h: &mut DefaultHasher) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            hash_dir(&p, h);
        } else if let Ok(bytes) = std::fs::read(&p) {
            p.hash(h);
            bytes.hash(h);
        }
    }
}
