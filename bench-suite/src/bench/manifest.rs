//! The bench-suite manifest, `programs/suite.toml`: which programs the sweep runs, their
//! group, the functions whose statistics are reported (kernels) and target restrictions.
//!
//! The file's own header comment is the reference for its shape (format version 1). Loading
//! parses with serde + toml (unknown keys are errors, located by the toml parser), then
//! validates every entry and reports *all* problems found, each as `file:line:col: message`:
//! * `version` present and equal to [`MANIFEST_VERSION`];
//! * `default_targets` and each program's `targets`: non-empty, known target names, no
//!   repeats;
//! * each program: a relative path without `..` to a `.c` or `.lai` file that exists under the
//!   manifest's directory, outside `include` directories, listed once; a known group; kernels
//!   that are C identifiers other than `main` (allowed in the `lai` group, where `main` is
//!   hand-written code, not a harness), listed once; a `.lai` program (which has no
//!   host-compiler oracle) carries its expected output in the file itself — a
//!   `# expected: TEXT` line (escapes `\n`, `\t`, `\\`) and optionally `# exit: N`
//!   (default 0), read by [`lai_oracle`] — and must have them;
//! * in the `codec` group, every kernel under exactly one program (so group totals count each
//!   function once — the manifest's stated rule).
//!
//! Complexity: linear in the file size (plus one `stat` per listed file).

use super::fnv1a64;
use serde::Deserialize;
use simulator::isa::Target;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::ops::Range;
use std::path::{Component, Path, PathBuf};
use std::str::FromStr;
use toml::Spanned;

/// The manifest format version this ssalab reads.
pub const MANIFEST_VERSION: i64 = 1;

/// The group whose totals a report table shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Group {
    Dsp,
    Codec,
    Feature,
    Lai,
}

impl Group {
    pub const ALL: [Group; 4] = [Group::Dsp, Group::Codec, Group::Feature, Group::Lai];

    pub fn name(self) -> &'static str {
        match self {
            Group::Dsp => "dsp",
            Group::Codec => "codec",
            Group::Feature => "feature",
            Group::Lai => "lai",
        }
    }
}

impl fmt::Display for Group {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Group {
    type Err = String;
    fn from_str(s: &str) -> Result<Group, String> {
        Group::ALL
            .into_iter()
            .find(|g| g.name() == s)
            .ok_or_else(|| format!("unknown group `{s}` (expected dsp, codec, feature or lai)"))
    }
}

/// One program of the suite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// Relative to the manifest's directory (`programs/`), with `/` separators.
    pub path: String,
    pub group: Group,
    /// Functions whose statistics are reported, in manifest order (may be empty).
    pub kernels: Vec<String>,
    /// The targets the program runs on (its `targets`, else the manifest's default).
    pub targets: Vec<Target>,
}

/// The oracle of a `.lai` program (there is no host compiler for linear assembly): what the
/// file's `# expected:` and `# exit:` comment lines say the program prints and returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaiOracle {
    pub output: Vec<u8>,
    /// `main`'s exit status modulo 256 (as the host compiler's runs report it).
    pub exit_code: i32,
}

/// The value of the first `# KEY` comment line (`# expected: ...`), without the one space
/// after the key.
fn directive<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix('#'))
        .filter_map(|l| l.trim_start().strip_prefix(key))
        .map(|v| v.strip_prefix(' ').unwrap_or(v))
        .next()
}

/// Reads the oracle of a `.lai` program from its text: `# expected: TEXT` (required; escapes
/// `\n`, `\t`, `\\`, any other backslash is an error) and `# exit: N` (optional, default 0;
/// 0..=255). Linear in the text.
pub fn lai_oracle(text: &str) -> Result<LaiOracle, String> {
    let raw = directive(text, "expected:")
        .ok_or("no `# expected:` line (the expected output of a .lai program)")?;
    let output = compiler::lai::unescape_directive(raw.trim_end_matches('\r'))
        .map_err(|e| format!("`# expected:`: {e}"))?
        .into_bytes();
    let exit_code = match directive(text, "exit:") {
        None => 0,
        Some(v) => match v.trim().parse::<i32>() {
            Ok(n) if (0..=255).contains(&n) => n,
            _ => return Err(format!("`# exit: {}`: expected a status 0..=255", v.trim())),
        },
    };
    Ok(LaiOracle { output, exit_code })
}

/// A loaded, validated manifest.
#[derive(Clone, Debug)]
pub struct Manifest {
    /// The manifest file as given.
    pub file: PathBuf,
    /// The directory program paths are relative to (the manifest's directory).
    pub root: PathBuf,
    pub default_targets: Vec<Target>,
    /// In manifest order.
    pub programs: Vec<Program>,
    /// FNV-1a of the file's bytes: identifies the suite definition in `runs.toml`.
    pub fingerprint: u64,
}

/// One problem, located in the manifest file (line and column are 1-based; 0 = unknown).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestError {
    pub file: PathBuf,
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file.display(), self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.file.display(),
                self.line,
                self.col,
                self.message
            )
        }
    }
}

/// Every problem found in a manifest, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestErrors(pub Vec<ManifestError>);

impl fmt::Display for ManifestErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, e) in self.0.iter().enumerate() {
            if k > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ManifestErrors {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    version: Option<Spanned<i64>>,
    default_targets: Option<Spanned<Vec<Spanned<String>>>>,
    #[serde(default, rename = "program")]
    programs: Vec<Spanned<RawProgram>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProgram {
    path: Spanned<String>,
    group: Spanned<String>,
    kernels: Spanned<Vec<Spanned<String>>>,
    targets: Option<Spanned<Vec<Spanned<String>>>>,
}

/// At most this many problems are reported (located) per manifest; the rest are counted.
pub const MAX_REPORTED_ERRORS: usize = 100;

/// The largest manifest file read: 16 MiB unless [`MAX_MANIFEST_ENV`] says otherwise.
pub const DEFAULT_MAX_MANIFEST_BYTES: u64 = 16 << 20;

/// The environment variable that raises the manifest size limit.
pub const MAX_MANIFEST_ENV: &str = "SSALAB_MAX_MANIFEST_BYTES";

fn max_manifest_bytes() -> u64 {
    std::env::var(MAX_MANIFEST_ENV)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(DEFAULT_MAX_MANIFEST_BYTES)
}

/// Collects errors while validating; they are located (line and column) only when
/// reported, at most [`MAX_REPORTED_ERRORS`] of them, so that a manifest with 10^5 bad
/// entries on one line is not quadratic to diagnose.
struct Checker<'a> {
    file: &'a Path,
    text: &'a str,
    errors: Vec<(usize, String)>,
}

impl Checker<'_> {
    fn error(&mut self, span: Range<usize>, message: String) {
        self.errors.push((span.start, message));
    }

    /// The errors in file order, the first [`MAX_REPORTED_ERRORS`] located, then a count of
    /// the others.
    fn into_errors(mut self) -> ManifestErrors {
        self.errors.sort_by_key(|e| e.0);
        let more = self.errors.len().saturating_sub(MAX_REPORTED_ERRORS);
        let mut out: Vec<ManifestError> = self
            .errors
            .into_iter()
            .take(MAX_REPORTED_ERRORS)
            .map(|(offset, message)| {
                let (line, col) = line_col(self.text, offset);
                ManifestError {
                    file: self.file.to_path_buf(),
                    line,
                    col,
                    message,
                }
            })
            .collect();
        if more > 0 {
            out.push(ManifestError {
                file: self.file.to_path_buf(),
                line: 0,
                col: 0,
                message: format!("... and {more} more problems"),
            });
        }
        ManifestErrors(out)
    }

    /// A target list: non-empty, known names, no repeats.
    fn targets(&mut self, what: &str, list: &Spanned<Vec<Spanned<String>>>) -> Vec<Target> {
        if list.get_ref().is_empty() {
            self.error(list.span(), format!("`{what}` is empty"));
        }
        let mut out = Vec::new();
        for name in list.get_ref() {
            match name.get_ref().parse::<Target>() {
                Ok(t) if out.contains(&t) => self.error(
                    name.span(),
                    format!("target `{t}` listed twice in `{what}`"),
                ),
                Ok(t) => out.push(t),
                Err(e) => self.error(name.span(), e.to_string()),
            }
        }
        out
    }
}

/// 1-based line of byte `offset`, given the offsets where lines start (binary search).
fn line_of(line_starts: &[usize], offset: usize) -> usize {
    line_starts.partition_point(|&s| s <= offset)
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let col = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, col)
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// Why a program path is not acceptable (syntax only), if it is not.
fn path_problem(path: &str) -> Option<String> {
    if path.is_empty() {
        return Some("empty program path".into());
    }
    if path.contains('\\') {
        return Some(format!("`{path}`: use `/` as the separator"));
    }
    let p = Path::new(path);
    if !p
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Some(format!(
            "`{path}` must be relative to the manifest's directory, without `..`"
        ));
    }
    if p.components().any(|c| c.as_os_str() == "include") {
        return Some(format!(
            "`{path}` is under an `include` directory: those files are not programs"
        ));
    }
    match p.extension().and_then(|e| e.to_str()) {
        Some("c") | Some("lai") => None,
        _ => Some(format!("`{path}`: a program is a `.c` or `.lai` file")),
    }
}

impl Manifest {
    /// Reads and validates the manifest at `file`; program paths are relative to its
    /// directory.
    pub fn load(file: &Path) -> Result<Manifest, ManifestErrors> {
        let whole = |message: String| {
            ManifestErrors(vec![ManifestError {
                file: file.to_path_buf(),
                line: 0,
                col: 0,
                message,
            }])
        };
        let limit = max_manifest_bytes();
        let mut bytes = Vec::new();
        std::fs::File::open(file)
            .and_then(|f| {
                std::io::Read::read_to_end(&mut std::io::Read::take(f, limit + 1), &mut bytes)
            })
            .map_err(|e| whole(format!("cannot read the manifest: {e}")))?;
        if bytes.len() as u64 > limit {
            return Err(whole(format!(
                "the manifest is larger than the limit of {limit} bytes (raise it with the environment variable {MAX_MANIFEST_ENV}=BYTES)"
            )));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| whole("cannot read the manifest: it is not UTF-8 text".into()))?;
        let root = file
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        Manifest::parse(&text, file, &root)
    }

    /// Parses and validates manifest `text` (named `file` in errors); program files are
    /// looked up under `root`.
    pub fn parse(text: &str, file: &Path, root: &Path) -> Result<Manifest, ManifestErrors> {
        let raw: RawManifest = toml::from_str(text).map_err(|e| {
            let (line, col) = e.span().map_or((0, 0), |s| line_col(text, s.start));
            ManifestErrors(vec![ManifestError {
                file: file.to_path_buf(),
                line,
                col,
                message: e.message().trim().to_string(),
            }])
        })?;
        let mut ck = Checker {
            file,
            text,
            errors: Vec::new(),
        };
        match &raw.version {
            None => ck.error(0..0, format!("missing `version = {MANIFEST_VERSION}`")),
            Some(v) if *v.get_ref() != MANIFEST_VERSION => {
                ck.error(
                    v.span(),
                    format!(
                        "unsupported manifest version {} (this ssalab reads version {MANIFEST_VERSION})",
                        v.get_ref()
                    ),
                );
                // Nothing else can be trusted in a file of another format.
                return Err(ck.into_errors());
            }
            Some(_) => {}
        }
        let default_targets = match &raw.default_targets {
            Some(list) => ck.targets("default_targets", list),
            None => {
                ck.error(0..0, "missing `default_targets`".into());
                Vec::new()
            }
        };
        if raw.programs.is_empty() {
            ck.error(0..0, "no `[[program]]` entries".into());
        }
        let line_starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let mut programs = Vec::with_capacity(raw.programs.len());
        let mut seen_paths: HashMap<String, usize> = HashMap::new();
        let mut codec_kernels: HashMap<String, String> = HashMap::new();
        for entry in &raw.programs {
            let p = entry.get_ref();
            let path = p.path.get_ref().clone();
            if let Some(problem) = path_problem(&path) {
                ck.error(p.path.span(), problem);
            } else if !root.join(&path).is_file() {
                ck.error(
                    p.path.span(),
                    format!("program `{path}` not found under {}", root.display()),
                );
            }
            if let Some(first) = seen_paths.get(&path) {
                let line = line_of(&line_starts, *first);
                ck.error(
                    p.path.span(),
                    format!("program `{path}` listed twice (first at line {line})"),
                );
            } else {
                seen_paths.insert(path.clone(), p.path.span().start);
            }
            let group = match p.group.get_ref().parse::<Group>() {
                Ok(g) => g,
                Err(e) => {
                    ck.error(p.group.span(), e);
                    Group::Feature
                }
            };
            let mut kernels: Vec<String> = Vec::new();
            let mut kernel_set: HashSet<&str> = HashSet::new();
            for k in p.kernels.get_ref() {
                let name = k.get_ref();
                if !is_identifier(name) {
                    ck.error(k.span(), format!("kernel `{name}` is not a C identifier"));
                } else if name == "main" && group != Group::Lai {
                    // A C `main` is the test harness; an LAI `main` is hand-written code
                    // whose renaming constraints are the point of the example.
                    ck.error(
                        k.span(),
                        "`main` is never a kernel (except in the `lai` group)".into(),
                    );
                } else if !kernel_set.insert(name.as_str()) {
                    ck.error(k.span(), format!("kernel `{name}` listed twice"));
                } else {
                    if group == Group::Codec {
                        if let Some(other) = codec_kernels.get(name) {
                            ck.error(
                                k.span(),
                                format!(
                                    "codec kernel `{name}` is already listed under `{other}` (each codec kernel belongs to one program)"
                                ),
                            );
                        } else {
                            codec_kernels.insert(name.clone(), path.clone());
                        }
                    }
                    kernels.push(name.clone());
                }
            }
            let targets = match &p.targets {
                Some(list) => ck.targets("targets", list),
                None => default_targets.clone(),
            };
            if path.ends_with(".lai") && path_problem(&path).is_none() {
                // The oracle lives in the file: check it now rather than in every job.
                if let Ok(text) = std::fs::read_to_string(root.join(&path)) {
                    if let Err(e) = lai_oracle(&text) {
                        ck.error(p.path.span(), format!("`{path}`: {e}"));
                    }
                }
            }
            programs.push(Program {
                path,
                group,
                kernels,
                targets,
            });
        }
        if !ck.errors.is_empty() {
            return Err(ck.into_errors());
        }
        Ok(Manifest {
            file: file.to_path_buf(),
            root: root.to_path_buf(),
            default_targets,
            programs,
            fingerprint: fnv1a64(text.as_bytes()),
        })
    }

    /// The program with this path.
    pub fn program(&self, path: &str) -> Option<&Program> {
        self.programs.iter().find(|p| p.path == path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch `programs/` directory with the given files.
    fn scratch(name: &str, files: &[&str]) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("ssalab-manifest-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for f in files {
            let p = dir.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            let body = if f.ends_with(".lai") {
                "# expected: 42\\n\n.target st231\n"
            } else {
                "int main(void){return 0;}\n"
            };
            std::fs::write(&p, body).unwrap();
        }
        dir
    }

    fn parse(dir: &Path, text: &str) -> Result<Manifest, ManifestErrors> {
        Manifest::parse(text, Path::new("suite.toml"), dir)
    }

    #[test]
    fn good_manifest() {
        let dir = scratch("good", &["dsp/a.c", "dsp/b.c", "lai/e1.lai"]);
        let m = parse(
            &dir,
            r#"
version = 1
default_targets = ["st231", "st120"]

[[program]]
path = "dsp/a.c"
group = "dsp"
kernels = ["f", "g"]

[[program]]
path = "dsp/b.c"
group = "codec"
kernels = []
targets = ["st120"]

[[program]]
path = "lai/e1.lai"
group = "lai"
kernels = ["example1", "main"]
targets = ["st120"]
"#,
        )
        .unwrap();
        assert_eq!(m.default_targets, vec![Target::St231, Target::St120]);
        assert_eq!(m.programs.len(), 3);
        assert_eq!(m.programs[0].kernels, vec!["f", "g"]);
        assert_eq!(m.programs[0].targets, vec![Target::St231, Target::St120]);
        assert_eq!(m.programs[1].group, Group::Codec);
        assert_eq!(m.programs[1].targets, vec![Target::St120]);
        assert_eq!(m.programs[2].group, Group::Lai);
        assert_eq!(m.programs[2].kernels, vec!["example1", "main"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn unknown_key_is_located() {
        let dir = scratch("unknown", &["a.c"]);
        let e = parse(
            &dir,
            "version = 1\ndefault_targets = [\"st231\"]\n[[program]]\npath = \"a.c\"\ngroup = \"dsp\"\nkernels = []\nkernel = [\"x\"]\n",
        )
        .unwrap_err();
        assert_eq!(e.0.len(), 1, "{e}");
        assert_eq!(e.0[0].line, 7, "{e}");
        assert!(e.0[0].message.contains("unknown field `kernel`"), "{e}");
        assert!(e.to_string().starts_with("suite.toml:7:"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn syntax_error_is_located() {
        let dir = scratch("syntax", &[]);
        let e = parse(&dir, "version = 1\ndefault_targets = [\"st231\"\n").unwrap_err();
        assert_eq!(e.0[0].line, 2, "{e}");
    }

    #[test]
    fn version_is_checked() {
        let dir = scratch("version", &["a.c"]);
        let e = parse(
            &dir,
            "version = 2\ndefault_targets = [\"bogus\"]\n[[program]]\npath = \"a.c\"\ngroup = \"dsp\"\nkernels = []\n",
        )
        .unwrap_err();
        // Only the version is reported: the rest of a file of another format is not judged.
        assert_eq!(e.0.len(), 1, "{e}");
        assert_eq!((e.0[0].line, e.0[0].col), (1, 11), "{e}");
        assert!(
            e.0[0].message.contains("unsupported manifest version 2"),
            "{e}"
        );
        let e = parse(&dir, "default_targets = [\"st231\"]\n").unwrap_err();
        assert!(e.to_string().contains("missing `version = 1`"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn every_problem_is_reported_in_file_order() {
        let dir = scratch(
            "many",
            &["dsp/a.c", "codec/x.c", "codec/y.c", "include/h.c"],
        );
        let text = r#"version = 1
default_targets = ["st231", "st231", "arm"]
[[program]]
path = "dsp/missing.c"
group = "dsp"
kernels = ["f", "f", "main", "2x"]
[[program]]
path = "dsp/a.c"
group = "audio"
kernels = []
targets = []
[[program]]
path = "dsp/a.c"
group = "dsp"
kernels = []
[[program]]
path = "../a.c"
group = "dsp"
kernels = []
[[program]]
path = "include/h.c"
group = "dsp"
kernels = []
[[program]]
path = "codec/x.c"
group = "codec"
kernels = ["Levinson"]
[[program]]
path = "codec/y.c"
group = "codec"
kernels = ["Levinson"]
[[program]]
path = "lai/e.lai"
group = "lai"
kernels = []
"#;
        let e = parse(&dir, text).unwrap_err();
        let lines: Vec<String> =
            e.0.iter()
                .map(|x| format!("{}: {}", x.line, x.message))
                .collect();
        let expect = [
            "2: target `st231` listed twice in `default_targets`",
            "2: unknown target `arm`",
            "4: program `dsp/missing.c` not found",
            "6: kernel `f` listed twice",
            "6: `main` is never a kernel",
            "6: kernel `2x` is not a C identifier",
            "9: unknown group `audio`",
            "11: `targets` is empty",
            "13: program `dsp/a.c` listed twice (first at line 8)",
            "17: `../a.c` must be relative",
            "21: `include/h.c` is under an `include` directory",
            "31: codec kernel `Levinson` is already listed under `codec/x.c`",
            "33: program `lai/e.lai` not found",
        ];
        assert_eq!(lines.len(), expect.len(), "{lines:#?}");
        for (got, want) in lines.iter().zip(expect) {
            assert!(
                got.starts_with(want),
                "got {got:?}, want {want:?}\n{lines:#?}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn lai_program_without_oracle_is_located() {
        let dir = scratch("lai-oracle", &["lai/ok.lai"]);
        std::fs::write(dir.join("lai/bad.lai"), ".target st231\n# exit: 3\n").unwrap();
        let e = parse(
            &dir,
            "version = 1\ndefault_targets = [\"st231\"]\n[[program]]\npath = \"lai/ok.lai\"\ngroup = \"lai\"\nkernels = []\n[[program]]\npath = \"lai/bad.lai\"\ngroup = \"lai\"\nkernels = []\n",
        )
        .unwrap_err();
        assert_eq!(e.0.len(), 1, "{e}");
        assert_eq!(e.0[0].line, 8, "{e}");
        assert!(e.0[0].message.contains("no `# expected:` line"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn lai_oracle_reads_escapes_and_exit() {
        let o = lai_oracle("# a comment\n#   expected: a\\tb\\\\ c\\n\n# exit: 7\n").unwrap();
        assert_eq!(o.output, b"a\tb\\ c\n");
        assert_eq!(o.exit_code, 7);
        // The first `# expected:` counts; `# exit:` defaults to 0.
        let o = lai_oracle("# expected: x\n# expected: y\n").unwrap();
        assert_eq!((o.output.as_slice(), o.exit_code), (&b"x"[..], 0));
        // An empty expected output is allowed (the key must still be there).
        assert_eq!(lai_oracle("# expected:\n").unwrap().output, b"");
        assert!(lai_oracle("# expected: a\\q\n")
            .unwrap_err()
            .contains("unknown escape `\\q`"));
        assert!(lai_oracle("# expected: a\\\n")
            .unwrap_err()
            .contains("unknown escape"));
        assert!(lai_oracle("# expected: a\n# exit: 300\n").is_err());
        assert!(lai_oracle("# exit: 1\n")
            .unwrap_err()
            .contains("no `# expected:`"));
    }

    #[test]
    fn line_col_counts_characters() {
        let t = "ab\nçd\n";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 3), (2, 1));
        assert_eq!(line_col(t, 5), (2, 2)); // after the two-byte ç
    }
}
