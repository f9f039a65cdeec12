//! Diagnostics of the C front end: source map, spans, collected errors and warnings, and
//! rendering with the source line and a caret (codespan-reporting).
//!
//! Every token carries a [`Span`]: a file of the [`SourceMap`] and a byte range in that file's
//! original text. Tokens produced by a macro expansion carry the span of the macro's use site,
//! so an error inside an expansion points at the place the programmer wrote.
//!
//! Errors are collected, not thrown: each phase reports into a [`DiagSink`] and continues where
//! it can; the sink stops accepting errors after [`MAX_ERRORS`] and phases poll
//! [`DiagSink::should_stop`] to give up early. Complexity: reporting is O(1); line/column
//! lookup is a binary search over precomputed line starts.

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label, Severity as CsSeverity};
use codespan_reporting::files::{Error as FilesError, Files};
use codespan_reporting::term;
use std::fmt;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

/// Number of errors after which a run stops.
pub const MAX_ERRORS: usize = 20;

/// Index of a file in the [`SourceMap`].
pub type FileId = u32;

/// A byte range in one file of the source map (`lo..hi`, original text offsets).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub lo: u32,
    pub hi: u32,
}

impl Span {
    /// A span that points nowhere (command-line macros, built-in definitions).
    pub const NONE: Span = Span {
        file: u32::MAX,
        lo: 0,
        hi: 0,
    };

    pub fn new(file: FileId, lo: u32, hi: u32) -> Span {
        Span { file, lo, hi }
    }

    pub fn is_none(&self) -> bool {
        self.file == u32::MAX
    }

    /// The smallest span covering `self` and `other` when both are in the same file and in
    /// order; otherwise `self` (a macro expansion may mix spans of different places).
    pub fn to(self, other: Span) -> Span {
        if self.file == other.file && other.hi >= self.lo {
            Span::new(self.file, self.lo, other.hi.max(self.hi))
        } else {
            self
        }
    }
}

/// One source file (the main file or a header) with its text and line starts.
#[derive(Debug)]
pub struct SourceFile {
    /// Name as shown in diagnostics (the path as written or found).
    pub name: String,
    /// The file's path on disk, if any (used to resolve `#include "…"` relative to it).
    pub path: Option<PathBuf>,
    pub text: String,
    line_starts: Vec<u32>,
}

/// All files read during one compilation.
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> Self {
        SourceMap { files: Vec::new() }
    }

    /// Adds a file and returns its id.
    pub fn add(&mut self, name: String, path: Option<PathBuf>, text: String) -> FileId {
        let mut line_starts = vec![0u32];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(k, _)| k as u32 + 1),
        );
        self.files.push(SourceFile {
            name,
            path,
            text,
            line_starts,
        });
        self.files.len() as FileId - 1
    }

    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id as usize]
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, file: FileId, offset: u32) -> (u32, u32) {
        let f = &self.files[file as usize];
        let line = f.line_starts.partition_point(|&s| s <= offset).max(1) - 1;
        let start = f.line_starts[line] as usize;
        let end = (offset as usize).min(f.text.len());
        let col = f
            .text
            .get(start..end)
            .map(|s| s.chars().count())
            .unwrap_or(end - start);
        (line as u32 + 1, col as u32 + 1)
    }

    /// `file:line:col` of the start of a span (`<command line>` for [`Span::NONE`]).
    pub fn describe(&self, span: Span) -> String {
        if span.is_none() || span.file as usize >= self.files.len() {
            return "<command line>".to_string();
        }
        let (l, c) = self.line_col(span.file, span.lo);
        format!("{}:{}:{}", self.files[span.file as usize].name, l, c)
    }
}

impl<'a> Files<'a> for SourceMap {
    type FileId = FileId;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: FileId) -> Result<&'a str, FilesError> {
        self.files
            .get(id as usize)
            .map(|f| f.name.as_str())
            .ok_or(FilesError::FileMissing)
    }

    fn source(&'a self, id: FileId) -> Result<&'a str, FilesError> {
        self.files
            .get(id as usize)
            .map(|f| f.text.as_str())
            .ok_or(FilesError::FileMissing)
    }

    fn line_index(&'a self, id: FileId, byte_index: usize) -> Result<usize, FilesError> {
        let f = self.files.get(id as usize).ok_or(FilesError::FileMissing)?;
        Ok(f.line_starts
            .partition_point(|&s| s as usize <= byte_index)
            .max(1)
            - 1)
    }

    fn line_range(&'a self, id: FileId, line_index: usize) -> Result<Range<usize>, FilesError> {
        let f = self.files.get(id as usize).ok_or(FilesError::FileMissing)?;
        let start = *f
            .line_starts
            .get(line_index)
            .ok_or(FilesError::LineTooLarge {
                given: line_index,
                max: f.line_starts.len() - 1,
            })? as usize;
        let end = f
            .line_starts
            .get(line_index + 1)
            .map(|&e| e as usize)
            .unwrap_or(f.text.len());
        Ok(start..end)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

/// One diagnostic: severity, message, primary place, secondary places and notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    /// Other places with a message ("previous definition is here").
    pub secondary: Vec<(Span, String)>,
    pub notes: Vec<String>,
}

impl Diag {
    pub fn error(span: Span, message: impl Into<String>) -> Diag {
        Diag {
            severity: Severity::Error,
            message: message.into(),
            span,
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn warning(span: Span, message: impl Into<String>) -> Diag {
        Diag {
            severity: Severity::Warning,
            ..Diag::error(span, message)
        }
    }

    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diag {
        self.secondary.push((span, message.into()));
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diag {
        self.notes.push(note.into());
        self
    }
}

/// Collector of diagnostics during a compilation.
#[derive(Debug, Default)]
pub struct DiagSink {
    list: Vec<Diag>,
    errors: usize,
    warnings: usize,
    truncated: bool,
}

impl DiagSink {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a diagnostic (errors beyond [`MAX_ERRORS`] are dropped).
    pub fn report(&mut self, d: Diag) {
        match d.severity {
            Severity::Error => {
                if self.errors >= MAX_ERRORS {
                    self.truncated = true;
                    return;
                }
                self.errors += 1;
            }
            Severity::Warning => {
                // Warnings are kept few; a flood of them helps nobody.
                if self.warnings >= 4 * MAX_ERRORS {
                    return;
                }
                self.warnings += 1;
            }
            Severity::Note => {}
        }
        self.list.push(d);
    }

    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        self.report(Diag::error(span, message));
    }

    pub fn warning(&mut self, span: Span, message: impl Into<String>) {
        self.report(Diag::warning(span, message));
    }

    pub fn error_count(&self) -> usize {
        self.errors
    }

    pub fn has_errors(&self) -> bool {
        self.errors > 0
    }

    /// True once the error limit is reached: phases should stop.
    pub fn should_stop(&self) -> bool {
        self.errors >= MAX_ERRORS
    }

    pub fn list(&self) -> &[Diag] {
        &self.list
    }

    /// Packs the collected diagnostics with the source map, ready to render.
    pub fn finish(self, map: Arc<SourceMap>) -> Diagnostics {
        // At the limit the phases stop early, so more errors may exist.
        Diagnostics {
            truncated: self.truncated || self.errors >= MAX_ERRORS,
            list: self.list,
            map,
        }
    }
}

/// The diagnostics of a compilation together with the files they refer to.
#[derive(Clone)]
pub struct Diagnostics {
    pub list: Vec<Diag>,
    /// True if errors were dropped after the limit.
    pub truncated: bool,
    pub map: Arc<SourceMap>,
}

impl fmt::Debug for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for Diagnostics {}

impl Diagnostics {
    pub fn error_count(&self) -> usize {
        self.list
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    pub fn has_errors(&self) -> bool {
        self.error_count() > 0
    }

    /// Error messages with their places, one per line: `file:line:col: message` (for tests
    /// and terse output).
    pub fn short(&self) -> String {
        let mut s = String::new();
        for d in &self.list {
            let sev = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Note => "note",
            };
            s += &format!("{}: {}: {}\n", self.map.describe(d.span), sev, d.message);
        }
        s
    }

    /// Full rendering: message, `file:line:col`, the source line and a caret for each
    /// diagnostic, as codespan-reporting prints it (no colours).
    pub fn render(&self) -> String {
        let mut w = term::termcolor::NoColor::new(Vec::<u8>::new());
        let config = term::Config::default();
        for d in &self.list {
            let cs = self.to_codespan(d);
            if term::emit(&mut w, &config, &*self.map, &cs).is_err() {
                // A span outside its file cannot be drawn: fall back to the short form.
                let line = format!("{}: {}\n", self.map.describe(d.span), d.message);
                w.get_mut().extend_from_slice(line.as_bytes());
            }
        }
        if self.truncated {
            w.get_mut().extend_from_slice(
                format!("error: too many errors (more than {MAX_ERRORS}); stopping\n").as_bytes(),
            );
        }
        String::from_utf8_lossy(&w.into_inner()).into_owned()
    }

    fn to_codespan(&self, d: &Diag) -> CsDiagnostic<FileId> {
        let sev = match d.severity {
            Severity::Error => CsSeverity::Error,
            Severity::Warning => CsSeverity::Warning,
            Severity::Note => CsSeverity::Note,
        };
        let valid = |s: Span| !s.is_none() && (s.file as usize) < self.map.len();
        let mut labels = Vec::new();
        if valid(d.span) {
            labels.push(Label::primary(d.span.file, self.range(d.span)));
        }
        for (s, m) in &d.secondary {
            if valid(*s) {
                labels.push(Label::secondary(s.file, self.range(*s)).with_message(m.clone()));
            }
        }
        let mut notes = d.notes.clone();
        if !valid(d.span) {
            notes.insert(0, "at <command line>".to_string());
        }
        CsDiagnostic::new(sev)
            .with_message(d.message.clone())
            .with_labels(labels)
            .with_notes(notes)
    }

    /// Byte range of a span clamped to its file and to character boundaries.
    fn range(&self, s: Span) -> Range<usize> {
        let text = &self.map.file(s.file).text;
        let mut lo = (s.lo as usize).min(text.len());
        while !text.is_char_boundary(lo) {
            lo -= 1;
        }
        let mut hi = (s.hi as usize).clamp(lo, text.len());
        while !text.is_char_boundary(hi) {
            hi += 1;
        }
        lo..hi
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column() {
        let mut m = SourceMap::new();
        let f = m.add("a.c".into(), None, "int x;\n  y = ;\n".into());
        assert_eq!(m.line_col(f, 0), (1, 1));
        assert_eq!(m.line_col(f, 7), (2, 1));
        assert_eq!(m.line_col(f, 11), (2, 5));
        assert_eq!(m.describe(Span::new(f, 11, 12)), "a.c:2:5");
    }

    #[test]
    fn render_has_place_line_and_caret() {
        let mut m = SourceMap::new();
        let f = m.add("a.c".into(), None, "int x;\n  y = ;\n".into());
        let mut sink = DiagSink::new();
        sink.error(Span::new(f, 13, 14), "expected an expression");
        let d = sink.finish(Arc::new(m));
        let r = d.render();
        assert!(r.contains("error: expected an expression"), "{r}");
        assert!(r.contains("a.c:2:7"), "{r}");
        assert!(r.contains("  y = ;"), "{r}");
        assert!(r.contains('^'), "{r}");
        assert_eq!(d.short(), "a.c:2:7: error: expected an expression\n");
    }

    #[test]
    fn error_limit() {
        let mut sink = DiagSink::new();
        for _ in 0..100 {
            sink.error(Span::NONE, "e");
        }
        assert_eq!(sink.error_count(), MAX_ERRORS);
        assert!(sink.should_stop());
        let d = sink.finish(Arc::new(SourceMap::new()));
        assert!(d.render().contains("too many errors"));
    }
}
