//! Assembly text <-> objects, for both targets.
//!
//! * [`assemble`] turns assembly text into an [`Object`]; the target comes from the caller or
//!   from a `.target st231|st120` directive (the two must agree; ST231 when neither is given).
//! * [`disassemble`] prints an objdump-style listing of an object.
//! * [`driver`] is the target-independent part of every assembler: lines, comments, `;;`
//!   group ends, labels, sections and data directives, symbols, annotations; a target plugs in
//!   through [`driver::CodeAssembler`].
//! * [`expr`] parses numbers, identifiers and `symbol+offset` expressions (nom).
//!
//! Errors carry line and column; their `Display` shows the source line with a caret.

use crate::isa::Target;
use crate::object::Object;
use std::fmt;

pub mod driver;
pub mod expr;
pub mod st120;
pub mod st231;

/// An assembly error at a line and column (both 1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    pub line: usize,
    pub col: usize,
    pub msg: String,
    /// The text of the offending line (filled in by [`assemble`]).
    pub source_line: String,
}

impl AsmError {
    /// An error without its source line yet.
    pub fn new(line: usize, col: usize, msg: impl Into<String>) -> AsmError {
        AsmError {
            line,
            col,
            msg: msg.into(),
            source_line: String::new(),
        }
    }

    /// Fill in the source line from the whole source text.
    pub fn with_source(mut self, src: &str) -> AsmError {
        if self.source_line.is_empty() {
            if let Some(l) = src.lines().nth(self.line.saturating_sub(1)) {
                self.source_line = l.to_string();
            }
        }
        self
    }
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: error: {}", self.line, self.col, self.msg)?;
        if !self.source_line.is_empty() {
            // Keep tabs so that the caret lines up under the same characters.
            let pad: String = self
                .source_line
                .chars()
                .take(self.col.saturating_sub(1))
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            write!(f, "\n  {}\n  {}^", self.source_line, pad)?;
        }
        Ok(())
    }
}

impl std::error::Error for AsmError {}

/// The target named by the first `.target NAME` directive of `src`, if any.
pub fn target_directive(src: &str) -> Result<Option<Target>, AsmError> {
    for (i, line) in src.lines().enumerate() {
        let code = line.split('#').next().unwrap_or("");
        let t = code.trim_start();
        if let Some(rest) = t.strip_prefix(".target") {
            if rest.starts_with(|c: char| c.is_whitespace()) {
                let name = rest.trim();
                let col = line.len() - t.len() + 1;
                return name
                    .parse::<Target>()
                    .map(Some)
                    .map_err(|e| AsmError::new(i + 1, col, e.to_string()).with_source(src));
            }
        }
    }
    Ok(None)
}

/// Assemble `src` for `target` (or the target of its `.target` directive; ST231 when neither).
pub fn assemble(src: &str, target: Option<Target>) -> Result<Object, AsmError> {
    let declared = target_directive(src)?;
    let t = match (target, declared) {
        (Some(a), Some(b)) if a != b => {
            return Err(AsmError::new(
                1,
                1,
                format!("target {a} requested but the source says `.target {b}`"),
            ));
        }
        (Some(a), _) => a,
        (None, Some(b)) => b,
        (None, None) => Target::St231,
    };
    let r = match t {
        Target::St231 => st231::assemble(src),
        Target::St120 => st120::assemble(src),
    };
    r.map_err(|e| e.with_source(src))
}

/// objdump-style listing of `obj`: addresses, encodings, bundle separators, symbols.
pub fn disassemble(obj: &Object) -> String {
    match obj.target {
        Target::St231 => st231::disassemble(obj),
        Target::St120 => st120::disassemble(obj),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_display_has_caret() {
        let e = AsmError::new(2, 5, "bad thing").with_source("x\n\tab cd\n");
        assert_eq!(e.to_string(), "2:5: error: bad thing\n  \tab cd\n  \t   ^");
    }

    #[test]
    fn finds_target_directive() {
        assert_eq!(
            target_directive("  .target st120 # x\n").unwrap(),
            Some(Target::St120)
        );
        assert_eq!(target_directive("# .target st120\n").unwrap(), None);
        assert!(target_directive(".target vax\n").is_err());
    }
}
