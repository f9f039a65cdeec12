//! The C-DSP front end: C source text to the mid-level IR.
//!
//! Phases: [`preproc`] (with [`lexer`]) → [`ctoken`] (keywords, literal values) → [`parser`]
//! (to [`ast`]) → [`sema`] (types, conversions, constants; to the typed tree [`tast`]) →
//! [`lower`] (to [`crate::ir::Module`]). Every phase reports into one [`diag::DiagSink`] and
//! continues after errors where it sensibly can; any error stops the pipeline before
//! lowering. The accepted language is described in `research/c-subset.md` and in this
//! crate's README section "The C subset".

pub mod ast;
pub mod ctoken;
pub mod diag;
pub mod headers;
pub mod lexer;
pub mod literals;
pub mod parser;
pub mod preproc;
pub mod sema;
pub mod tast;
pub mod types;

use diag::{DiagSink, FileId, SourceMap};
use lexer::{Interner, Token};
use std::path::PathBuf;

/// Options of one compilation (the `-I`, `-D`, `-U` flags and the target).
#[derive(Clone, Debug, Default)]
pub struct FrontOptions {
    /// `-I` directories, searched in order.
    pub include_dirs: Vec<PathBuf>,
    /// `-D NAME` (value `None`, meaning 1) and `-D NAME=VALUE`, in command-line order.
    pub defines: Vec<(String, Option<String>)>,
    /// `-U NAME`, applied after the defines.
    pub undefines: Vec<String>,
    /// Target name (`st231`, `st120`): predefines `__st231__` / `__st120__`.
    pub target: Option<String>,
    /// In-memory headers (name, text) found by `#include` after the `-I` directories
    /// (for tests and tools).
    pub virtual_files: Vec<(String, String)>,
}

/// The state shared by the phases of one compilation.
#[derive(Debug, Default)]
pub struct Session {
    pub sm: SourceMap,
    pub interner: Interner,
    pub diags: DiagSink,
}

impl Session {
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs the preprocessor on a file already in the source map.
    pub fn preprocess(&mut self, main: FileId, opts: &FrontOptions) -> Vec<Token> {
        preproc::Preprocessor::new(&mut self.sm, &mut self.interner, &mut self.diags, opts)
            .run(main)
    }

    /// Preprocesses, converts and parses a file already in the source map.
    pub fn parse(&mut self, main: FileId, opts: &FrontOptions) -> ast::TranslationUnit {
        let pp = self.preprocess(main, opts);
        let toks = ctoken::convert(&pp, &self.interner, &mut self.diags);
        parser::parse(&toks, &self.interner, &mut self.diags)
    }

    /// Spellings of a token sequence separated by single spaces (for tests and debugging).
    pub fn spell(&self, toks: &[Token]) -> String {
        let v: Vec<&str> = toks.iter().map(|t| self.interner.get(t.sym)).collect();
        v.join(" ")
    }
}
