//! The C-DSP front end: C source text to the mid-level IR.
//!
//! Phases: [`preproc`] (with [`lexer`]) → [`ctoken`] (keywords, literal values) → [`parser`]
//! (to [`ast`]) → [`sema`] (types, conversions, constants; to the typed tree [`tast`]) →
//! [`lower`] (to [`crate::ir::Module`]). Every phase reports into one [`diag::DiagSink`] and
//! continues after errors where it sensibly can; any error stops the pipeline before
//! lowering. The accepted language is described in `docs/c-subset.md`.

pub mod ast;
pub mod ctoken;
pub mod diag;
pub mod headers;
pub mod lexer;
pub mod literals;
pub mod lower;
pub mod parser;
pub mod preproc;
pub mod sema;
pub mod tast;
pub mod types;

use crate::ir;
use diag::{DiagSink, Diagnostics, FileId, SourceMap, Span};
use lexer::{Interner, Token};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Stack size of the thread the front end runs on: the parser bounds nesting, and this is
/// ample for the deepest trees it accepts.
const FRONT_STACK: usize = 256 << 20;

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

    /// Preprocesses, converts and parses a file already in the source map. The flag is
    /// true if a syntax error made the parser skip input.
    pub fn parse(&mut self, main: FileId, opts: &FrontOptions) -> (ast::TranslationUnit, bool) {
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

/// Result of a compilation: the module if there were no errors, and all diagnostics
/// (warnings included).
#[derive(Debug)]
pub struct Compiled {
    pub module: Option<ir::Module>,
    pub diagnostics: Diagnostics,
}

/// Where the main source comes from.
enum Input {
    File(PathBuf),
    Text(String, String),
}

/// Compiles a C file to IR. On error, the diagnostics (render them with
/// [`Diagnostics::render`]).
pub fn compile_to_ir(path: &Path, opts: &FrontOptions) -> Result<ir::Module, Diagnostics> {
    let c = compile(Input::File(path.to_path_buf()), opts);
    c.module.ok_or(c.diagnostics)
}

/// Compiles C source text (named `name` in diagnostics) to IR.
pub fn compile_source_to_ir(
    name: &str,
    text: &str,
    opts: &FrontOptions,
) -> Result<ir::Module, Diagnostics> {
    let c = compile(Input::Text(name.to_string(), text.to_string()), opts);
    c.module.ok_or(c.diagnostics)
}

/// Compiles a C file and returns the module (if no errors) with every diagnostic.
pub fn compile_file(path: &Path, opts: &FrontOptions) -> Compiled {
    compile(Input::File(path.to_path_buf()), opts)
}

/// Compiles C source text and returns the module (if no errors) with every diagnostic.
pub fn compile_source(name: &str, text: &str, opts: &FrontOptions) -> Compiled {
    compile(Input::Text(name.to_string(), text.to_string()), opts)
}

/// Runs the whole front end on a thread with a large stack (the recursion over syntax
/// trees is bounded by the parser's limits; this makes those limits safe).
fn compile(input: Input, opts: &FrontOptions) -> Compiled {
    let opts = opts.clone();
    let worker = std::thread::Builder::new()
        .name("ssalab-front".into())
        .stack_size(FRONT_STACK)
        .spawn(move || compile_here(input, &opts));
    match worker.map(|h| h.join()) {
        Ok(Ok(c)) => c,
        _ => {
            let mut sink = DiagSink::new();
            sink.error(
                Span::NONE,
                "internal error in the C front end (please report)",
            );
            Compiled {
                module: None,
                diagnostics: sink.finish(Arc::new(SourceMap::new())),
            }
        }
    }
}

fn compile_here(input: Input, opts: &FrontOptions) -> Compiled {
    let mut s = Session::new();
    let main = match input {
        Input::Text(name, text) => s.sm.add(name, None, text),
        Input::File(path) => match std::fs::read(&path) {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                s.sm.add(path.to_string_lossy().into_owned(), Some(path), text)
            }
            Err(e) => {
                s.diags
                    .error(Span::NONE, format!("cannot read `{}`: {e}", path.display()));
                return Compiled {
                    module: None,
                    diagnostics: s.diags.finish(Arc::new(s.sm)),
                };
            }
        },
    };
    let (tu, recovered) = s.parse(main, opts);
    // Semantic analysis also runs after errors that left the tree whole (unsupported types,
    // bad literals, preprocessor errors), so one run reports those and the type errors.
    let module = if recovered || s.diags.should_stop() {
        None
    } else {
        let prog = sema::check(&tu, &s.interner, &mut s.diags);
        drop(tu);
        (!s.diags.has_errors()).then(|| lower::lower(&prog))
    };
    Compiled {
        module,
        diagnostics: s.diags.finish(Arc::new(s.sm)),
    }
}
